/* The service socket of sited: batched receive and reply; see serve.h. */
#include "serve.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"

#define SITED_BATCH 64
#define SITED_RXLEN 512
/* serve() returns to the loop after this many batches, so a flood cannot
 * keep the signal handler from running */
#define SITED_ROUNDS 16

union sited_cmsg {
	char buf[CMSG_SPACE(sizeof(struct in_pktinfo))];
	struct cmsghdr align;
};

struct sited_batch {
	struct mmsghdr rx[SITED_BATCH];
	struct iovec rx_iov[SITED_BATCH];
	struct sockaddr_in rx_from[SITED_BATCH];
	union sited_cmsg rx_cmsg[SITED_BATCH];
	uint8_t rx_buf[SITED_BATCH][SITED_RXLEN];

	struct mmsghdr tx[SITED_BATCH];
	struct iovec tx_iov[SITED_BATCH];
	struct sockaddr_in tx_to[SITED_BATCH];
	union sited_cmsg tx_cmsg[SITED_BATCH];
	uint8_t tx_buf[SITED_BATCH][WIRE_LEN];
};

int sited_reply_build(const uint8_t *req, size_t len, const char *site, uint8_t *out, size_t outlen)
{
	struct wire_msg m;

	if (wire_decode(req, len, &m) == -1 || m.type != WIRE_REQUEST)
		return -1;
	m.type = WIRE_REPLY;
	m.flags = 0;
	memset(m.site, 0, sizeof(m.site));
	strncpy(m.site, site, WIRE_SITE_LEN);
	return wire_encode(&m, out, outlen);
}

struct in_addr sited_reply_source(const struct in_pktinfo *pi)
{
	in_addr_t dst = ntohl(pi->ipi_addr.s_addr);

	if (IN_MULTICAST(dst) || dst == INADDR_BROADCAST || dst == INADDR_ANY)
		return pi->ipi_spec_dst;
	return pi->ipi_addr;
}

int sited_server_open(struct sited_server *s, const struct sockaddr_in *addr, const char *site)
{
	int on = 1, rcvbuf = 4 << 20;

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	if (strlen(site) > WIRE_SITE_LEN) {
		log_warnx("site name '%s' longer than %d characters", site, WIRE_SITE_LEN);
		return -1;
	}
	strcpy(s->site, site);
	s->batch = calloc(1, sizeof(*s->batch));
	if (s->batch == NULL) {
		log_warn("calloc");
		goto fail;
	}
	s->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->fd == -1) {
		log_warn("socket");
		goto fail;
	}
	if (setsockopt(s->fd, IPPROTO_IP, IP_PKTINFO, &on, sizeof(on)) == -1) {
		log_warn("setsockopt IP_PKTINFO");
		goto fail;
	}
	/* bursts from fast clients: a larger buffer than rmem_max if root */
	if (setsockopt(s->fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) == -1)
		(void)setsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (bind(s->fd, (const struct sockaddr *)addr, sizeof(*addr)) == -1) {
		log_warn("bind");
		goto fail;
	}
	return 0;
fail:
	sited_server_close(s);
	return -1;
}

static void sited_batch_arm(struct sited_batch *b)
{
	for (int i = 0; i < SITED_BATCH; i++) {
		b->rx_iov[i].iov_base = b->rx_buf[i];
		b->rx_iov[i].iov_len = SITED_RXLEN;
		memset(&b->rx[i], 0, sizeof(b->rx[i]));
		b->rx[i].msg_hdr.msg_name = &b->rx_from[i];
		b->rx[i].msg_hdr.msg_namelen = sizeof(b->rx_from[i]);
		b->rx[i].msg_hdr.msg_iov = &b->rx_iov[i];
		b->rx[i].msg_hdr.msg_iovlen = 1;
		b->rx[i].msg_hdr.msg_control = b->rx_cmsg[i].buf;
		b->rx[i].msg_hdr.msg_controllen = sizeof(b->rx_cmsg[i].buf);
	}
}

static const struct in_pktinfo *sited_pktinfo(struct msghdr *h)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(h); c; c = CMSG_NXTHDR(h, c))
		if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO)
			return (const struct in_pktinfo *)CMSG_DATA(c);
	return NULL;
}

/* sited_prepare: turns request i into reply slot n. 0, or -1 if bad. */
static int sited_prepare(struct sited_server *s, int i, int n)
{
	struct sited_batch *b = s->batch;
	struct msghdr *rh = &b->rx[i].msg_hdr, *th = &b->tx[n].msg_hdr;
	const struct in_pktinfo *pi = sited_pktinfo(rh);
	struct in_pktinfo out = {0};
	struct cmsghdr *c;

	if (pi == NULL || rh->msg_namelen != sizeof(struct sockaddr_in))
		return -1;
	if (sited_reply_build(b->rx_buf[i], b->rx[i].msg_len, s->site, b->tx_buf[n], WIRE_LEN) ==
	    -1)
		return -1;
	out.ipi_spec_dst = sited_reply_source(pi);
	b->tx_to[n] = b->rx_from[i];
	b->tx_iov[n].iov_base = b->tx_buf[n];
	b->tx_iov[n].iov_len = WIRE_LEN;
	memset(&b->tx[n], 0, sizeof(b->tx[n]));
	th->msg_name = &b->tx_to[n];
	th->msg_namelen = sizeof(b->tx_to[n]);
	th->msg_iov = &b->tx_iov[n];
	th->msg_iovlen = 1;
	th->msg_control = b->tx_cmsg[n].buf;
	th->msg_controllen = sizeof(b->tx_cmsg[n].buf);
	c = CMSG_FIRSTHDR(th);
	c->cmsg_level = IPPROTO_IP;
	c->cmsg_type = IP_PKTINFO;
	c->cmsg_len = CMSG_LEN(sizeof(out));
	memcpy(CMSG_DATA(c), &out, sizeof(out));
	return 0;
}

/* sited_send: sends replies [0, n); a reply the kernel refuses is counted
 * and skipped. */
static void sited_send(struct sited_server *s, int n)
{
	int off = 0;

	while (off < n) {
		int r = sendmmsg(s->fd, s->batch->tx + off, n - off, 0);
		if (r > 0) {
			s->counts.replies += r;
			off += r;
			continue;
		}
		if (r == -1 && errno == EINTR)
			continue;
		if (s->counts.send_errors++ == 0)
			log_warn("reply to %s", inet_ntoa(s->batch->tx_to[off].sin_addr));
		off++;
	}
}

int sited_server_serve(struct sited_server *s)
{
	struct sited_batch *b = s->batch;

	for (int round = 0; round < SITED_ROUNDS; round++) {
		int r, n = 0;

		sited_batch_arm(b);
		r = recvmmsg(s->fd, b->rx, SITED_BATCH, MSG_DONTWAIT, NULL);
		if (r == -1) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
				return 0;
			log_warn("recvmmsg");
			return -1;
		}
		for (int i = 0; i < r; i++) {
			if (sited_prepare(s, i, n) == -1) {
				s->counts.bad++;
				continue;
			}
			s->counts.requests++;
			n++;
		}
		sited_send(s, n);
		if (r < SITED_BATCH)
			return 0;
	}
	return 0;
}

void sited_server_close(struct sited_server *s)
{
	if (s->fd != -1)
		close(s->fd);
	s->fd = -1;
	free(s->batch);
	s->batch = NULL;
}
