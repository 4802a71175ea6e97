/* NFQUEUE through libmnl; see nfqueue.h. */
#include "nfqueue.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <libmnl/libmnl.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "log.h"

/* messages per recvmmsg, and the room for each: a packet's is about
 * NFQUEUE_COPY + 100 bytes */
#define NFQUEUE_MSGS 256
#define NFQUEUE_MSG_LEN 1024
#define NFQUEUE_RBUF (NFQUEUE_MSGS * NFQUEUE_MSG_LEN)
/* verdicts per sendto: each is 32 bytes */
#define NFQUEUE_VBATCH (64 * 1024)

int nfqueue_open(struct nfqueue *q, int rcvbuf)
{
	memset(q, 0, sizeof(*q));
	if ((q->nl = mnl_socket_open(NETLINK_NETFILTER)) == NULL) {
		log_warn("%s: netlink socket", __func__);
		return -1;
	}
	if (mnl_socket_bind(q->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		log_warn("%s: netlink bind", __func__);
		goto fail;
	}
	q->portid = mnl_socket_get_portid(q->nl);
	/* FORCE: past rmem_max, as root; else as much as allowed */
	if (setsockopt(mnl_socket_get_fd(q->nl), SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
		       sizeof(rcvbuf)) == -1 &&
	    setsockopt(mnl_socket_get_fd(q->nl), SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)) ==
		-1)
		log_warn("%s: SO_RCVBUF %d", __func__, rcvbuf);
	q->rlen = NFQUEUE_RBUF;
	if ((q->rbuf = malloc(q->rlen)) == NULL || (q->vbuf = malloc(2 * NFQUEUE_VBATCH)) == NULL) {
		log_warn("%s: malloc", __func__);
		goto fail;
	}
	if ((q->vb = mnl_nlmsg_batch_start(q->vbuf, NFQUEUE_VBATCH)) == NULL) {
		log_warn("%s: batch", __func__);
		goto fail;
	}
	return 0;
fail:
	nfqueue_close(q);
	return -1;
}

/* nfqueue_ack: sends the message and waits for its acknowledgement */
static int nfqueue_ack(struct nfqueue *q, struct nlmsghdr *nlh, const char *what)
{
	static unsigned seq = 1;
	ssize_t n;

	nlh->nlmsg_flags |= NLM_F_ACK;
	nlh->nlmsg_seq = seq++;
	if (mnl_socket_sendto(q->nl, nlh, nlh->nlmsg_len) < 0) {
		log_warn("%s: %s: sendto", __func__, what);
		return -1;
	}
	if ((n = mnl_socket_recvfrom(q->nl, q->rbuf, q->rlen)) < 0) {
		log_warn("%s: %s: recv", __func__, what);
		return -1;
	}
	if (mnl_cb_run(q->rbuf, (size_t)n, nlh->nlmsg_seq, q->portid, NULL, NULL) < 0) {
		log_warn("%s: %s", __func__, what);
		return -1;
	}
	return 0;
}

int nfqueue_bind(struct nfqueue *q, uint16_t num, uint32_t maxlen)
{
	char buf[MNL_SOCKET_BUFFER_SIZE], what[64];
	struct nlmsghdr *nlh;

	snprintf(what, sizeof(what), "queue %u: bind", num);
	nlh = nfq_nlmsg_put(buf, NFQNL_MSG_CONFIG, num);
	nfq_nlmsg_cfg_put_cmd(nlh, AF_INET, NFQNL_CFG_CMD_BIND);
	if (nfqueue_ack(q, nlh, what) == -1)
		return -1;
	snprintf(what, sizeof(what), "queue %u: parameters", num);
	nlh = nfq_nlmsg_put(buf, NFQNL_MSG_CONFIG, num);
	nfq_nlmsg_cfg_put_params(nlh, NFQNL_COPY_PACKET, NFQUEUE_COPY);
	nfq_nlmsg_cfg_put_qmaxlen(nlh, maxlen);
	/* fail-open off: a full queue drops, counted by the kernel */
	mnl_attr_put_u32(nlh, NFQA_CFG_FLAGS, htonl(NFQA_CFG_F_GSO));
	mnl_attr_put_u32(nlh, NFQA_CFG_MASK, htonl(NFQA_CFG_F_GSO | NFQA_CFG_F_FAIL_OPEN));
	return nfqueue_ack(q, nlh, what);
}

int nfqueue_nonblock(struct nfqueue *q)
{
	int fd = mnl_socket_get_fd(q->nl), fl = fcntl(fd, F_GETFL);

	if (fl == -1 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) == -1) {
		log_warn("%s: O_NONBLOCK", __func__);
		return -1;
	}
	return 0;
}

int nfqueue_fd(const struct nfqueue *q)
{
	return mnl_socket_get_fd(q->nl);
}

/* nfqueue_packet: one message of a read */
static void nfqueue_packet(struct nfqueue *q, const struct nlmsghdr *nlh, nfqueue_pkt_fn fn,
			   void *arg)
{
	struct nlattr *attr[NFQA_MAX + 1] = {0};
	const struct nfqnl_msg_packet_hdr *ph;
	const struct nfgenmsg *nfg;
	int64_t queued_ns = 0;

	if (nlh->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

		if (e->error) {
			if (q->errors++ == 0)
				log_warnx("%s: the kernel refused a message: %s", __func__,
					  strerror(-e->error));
		}
		return;
	}
	if ((nlh->nlmsg_type & 0xff) != NFQNL_MSG_PACKET || nfq_nlmsg_parse(nlh, attr) < 0 ||
	    attr[NFQA_PACKET_HDR] == NULL)
		return;
	nfg = mnl_nlmsg_get_payload(nlh);
	ph = mnl_attr_get_payload(attr[NFQA_PACKET_HDR]);
	if (attr[NFQA_TIMESTAMP]) {
		const struct nfqnl_msg_packet_timestamp *ts =
		    mnl_attr_get_payload(attr[NFQA_TIMESTAMP]);

		queued_ns =
		    (int64_t)be64toh(ts->sec) * 1000000000LL + (int64_t)be64toh(ts->usec) * 1000LL;
	}
	fn(arg, ntohs(nfg->res_id), ntohl(ph->packet_id), queued_ns,
	   attr[NFQA_PAYLOAD] ? mnl_attr_get_payload(attr[NFQA_PAYLOAD]) : NULL,
	   attr[NFQA_PAYLOAD] ? mnl_attr_get_payload_len(attr[NFQA_PAYLOAD]) : 0);
}

int nfqueue_read(struct nfqueue *q, int max, nfqueue_pkt_fn fn, void *arg)
{
	struct mmsghdr mm[NFQUEUE_MSGS];
	struct iovec iov[NFQUEUE_MSGS];
	int packets = 0;

	/* the kernel queues each packet as a message of its own, and a read
	 * of a netlink socket takes one: recvmmsg takes many at once */
	for (int i = 0; i < NFQUEUE_MSGS; i++) {
		iov[i] = (struct iovec){.iov_base = q->rbuf + i * NFQUEUE_MSG_LEN,
					.iov_len = NFQUEUE_MSG_LEN};
		mm[i].msg_hdr = (struct msghdr){.msg_iov = &iov[i], .msg_iovlen = 1};
	}
	for (int i = 0; i < max; i++) {
		int n = recvmmsg(mnl_socket_get_fd(q->nl), mm, NFQUEUE_MSGS, MSG_DONTWAIT, NULL);

		if (n == -1) {
			if (errno == EAGAIN || errno == EINTR)
				break;
			if (errno == ENOBUFS) {
				/* the kernel counts the packets lost (user_dropped) */
				if (q->enobufs++ == 0)
					log_warnx("%s: the socket overflowed: packets dropped",
						  __func__);
				continue;
			}
			log_warn("%s: recvmmsg", __func__);
			return -1;
		}
		for (int k = 0; k < n; k++) {
			const struct nlmsghdr *nlh = iov[k].iov_base;
			int left = (int)mm[k].msg_len;

			if (mm[k].msg_hdr.msg_flags & MSG_TRUNC) {
				if (q->errors++ == 0)
					log_warnx("%s: a message longer than %d bytes: cut",
						  __func__, NFQUEUE_MSG_LEN);
				continue;
			}
			for (; mnl_nlmsg_ok(nlh, left); nlh = mnl_nlmsg_next(nlh, &left)) {
				nfqueue_packet(q, nlh, fn, arg);
				packets++;
			}
		}
		if (n < NFQUEUE_MSGS)
			break;
	}
	return packets;
}

int nfqueue_flush(struct nfqueue *q)
{
	size_t len = mnl_nlmsg_batch_size(q->vb);

	if (len == 0)
		return 0;
	if (mnl_socket_sendto(q->nl, mnl_nlmsg_batch_head(q->vb), len) < 0) {
		log_warn("%s: sendto", __func__);
		mnl_nlmsg_batch_reset(q->vb);
		return -1;
	}
	mnl_nlmsg_batch_reset(q->vb);
	return 0;
}

_Static_assert(NFQUEUE_DROP == NF_DROP && NFQUEUE_ACCEPT == NF_ACCEPT, "verdicts");

int nfqueue_verdict(struct nfqueue *q, uint16_t num, uint32_t id, enum nfqueue_verdict verdict)
{
	struct nlmsghdr *nlh =
	    nfq_nlmsg_put(mnl_nlmsg_batch_current(q->vb), NFQNL_MSG_VERDICT, num);

	nfq_nlmsg_verdict_put(nlh, (int)id, (int)verdict);
	/* false: the batch is full without this one, which reset() moves to
	 * the front of the next */
	if (!mnl_nlmsg_batch_next(q->vb)) {
		size_t len = mnl_nlmsg_batch_size(q->vb);

		if (mnl_socket_sendto(q->nl, mnl_nlmsg_batch_head(q->vb), len) < 0) {
			log_warn("%s: sendto", __func__);
			mnl_nlmsg_batch_reset(q->vb);
			return -1;
		}
		mnl_nlmsg_batch_reset(q->vb);
	}
	return 0;
}

void nfqueue_close(struct nfqueue *q)
{
	if (q->vb)
		mnl_nlmsg_batch_stop(q->vb);
	if (q->nl)
		mnl_socket_close(q->nl);
	free(q->rbuf);
	free(q->vbuf);
	memset(q, 0, sizeof(*q));
}

int nfqueue_stats(uint16_t num, uint64_t *queue_dropped, uint64_t *user_dropped)
{
	FILE *fp = fopen("/proc/net/netfilter/nfnetlink_queue", "r");
	unsigned qn, portid, total, mode, range;
	unsigned long long qd, ud;
	char line[256];
	int rc = -1;

	if (fp == NULL)
		return -1;
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%u %u %u %u %u %llu %llu", &qn, &portid, &total, &mode, &range,
			   &qd, &ud) == 7 &&
		    qn == num) {
			*queue_dropped = qd;
			*user_dropped = ud;
			rc = 0;
			break;
		}
	}
	fclose(fp);
	return rc;
}
