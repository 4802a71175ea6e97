/* Batched UDP: recvmmsg, sendmmsg and the reply source rule; see udpbatch.h. */
#include "udpbatch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

struct udp_batch *udp_batch_new(unsigned cap, size_t rxlen, size_t txlen)
{
	struct udp_batch *b = calloc(1, sizeof(*b));

	if (b == NULL)
		return NULL;
	b->cap = cap;
	b->rxlen = rxlen;
	b->txlen = txlen;
	b->rx = calloc(cap, sizeof(*b->rx));
	b->tx = calloc(cap, sizeof(*b->tx));
	b->rx_iov = calloc(cap, sizeof(*b->rx_iov));
	b->tx_iov = calloc(cap, sizeof(*b->tx_iov));
	b->rx_from = calloc(cap, sizeof(*b->rx_from));
	b->tx_to = calloc(cap, sizeof(*b->tx_to));
	b->rx_cmsg = calloc(cap, sizeof(*b->rx_cmsg));
	b->tx_cmsg = calloc(cap, sizeof(*b->tx_cmsg));
	b->rx_buf = calloc(cap, rxlen);
	b->tx_buf = calloc(cap, txlen ? txlen : 1); /* none queued by a reader */
	if (!b->rx || !b->tx || !b->rx_iov || !b->tx_iov || !b->rx_from || !b->tx_to ||
	    !b->rx_cmsg || !b->tx_cmsg || !b->rx_buf || !b->tx_buf) {
		udp_batch_free(b);
		return NULL;
	}
	return b;
}

void udp_batch_free(struct udp_batch *b)
{
	if (b == NULL)
		return;
	free(b->rx);
	free(b->tx);
	free(b->rx_iov);
	free(b->tx_iov);
	free(b->rx_from);
	free(b->tx_to);
	free(b->rx_cmsg);
	free(b->tx_cmsg);
	free(b->rx_buf);
	free(b->tx_buf);
	free(b);
}

int udp_pktinfo_on(int fd, int family)
{
	int on = 1;

	if (family == AF_INET6)
		return setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &on, sizeof(on));
	return setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &on, sizeof(on));
}

int udp_recv(int fd, struct udp_batch *b)
{
	int r;

	for (unsigned i = 0; i < b->cap; i++) {
		struct msghdr *h = &b->rx[i].msg_hdr;

		b->rx_iov[i].iov_base = udp_rx_data(b, i);
		b->rx_iov[i].iov_len = b->rxlen;
		memset(&b->rx[i], 0, sizeof(b->rx[i]));
		h->msg_name = &b->rx_from[i];
		h->msg_namelen = sizeof(b->rx_from[i]);
		h->msg_iov = &b->rx_iov[i];
		h->msg_iovlen = 1;
		h->msg_control = b->rx_cmsg[i].buf;
		h->msg_controllen = sizeof(b->rx_cmsg[i].buf);
	}
	r = recvmmsg(fd, b->rx, b->cap, MSG_DONTWAIT, NULL);
	if (r == -1)
		return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
	return r;
}

const struct in_pktinfo *udp_rx_pktinfo(const struct udp_batch *b, unsigned i)
{
	const struct msghdr *h = &b->rx[i].msg_hdr;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(h); c; c = CMSG_NXTHDR((struct msghdr *)h, c))
		if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO)
			return (const struct in_pktinfo *)CMSG_DATA(c);
	return NULL;
}

int udp_timestamp_on(int fd)
{
	int one = 1;

	return setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
}

int64_t udp_rx_time_ns(const struct udp_batch *b, unsigned i)
{
	const struct msghdr *h = &b->rx[i].msg_hdr;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(h); c; c = CMSG_NXTHDR((struct msghdr *)h, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
			struct timespec ts;

			memcpy(&ts, CMSG_DATA(c), sizeof(ts));
			return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
		}
	}
	return -1;
}

struct in_addr udp_reply_source(const struct in_pktinfo *pi)
{
	in_addr_t dst = ntohl(pi->ipi_addr.s_addr);

	/* a reply from a broadcast or multicast address would not be one
	 * the querier can answer to; none is unspecified */
	if (IN_MULTICAST(dst) || dst == INADDR_BROADCAST || dst == INADDR_ANY)
		return pi->ipi_spec_dst;
	/* the address the query was sent to: an anycast address on lo, a
	 * secondary address, the one a wildcard listener was reached at */
	return pi->ipi_addr;
}

int udp_reply_pktinfo(const struct msghdr *rx, union udp_pktinfo *out)
{
	memset(out, 0, sizeof(*out));
	for (struct cmsghdr *c = CMSG_FIRSTHDR(rx); c; c = CMSG_NXTHDR((struct msghdr *)rx, c)) {
		if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO) {
			struct in_pktinfo in;

			memcpy(&in, CMSG_DATA(c), sizeof(in));
			out->v4.ipi_spec_dst = udp_reply_source(&in);
			return AF_INET;
		}
		if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_PKTINFO) {
			memcpy(&out->v6, CMSG_DATA(c), sizeof(out->v6));
			/* the kernel picks a unicast source for a multicast query */
			if (IN6_IS_ADDR_MULTICAST(&out->v6.ipi6_addr))
				return 0;
			return AF_INET6;
		}
	}
	return 0;
}

void udp_pktinfo_cmsg(struct msghdr *tx, union udp_cmsg *buf, int family,
		      const union udp_pktinfo *pi)
{
	size_t len = family == AF_INET6 ? sizeof(pi->v6) : sizeof(pi->v4);
	struct cmsghdr *c;

	tx->msg_control = NULL;
	tx->msg_controllen = 0;
	if (family != AF_INET && family != AF_INET6)
		return;
	memset(buf, 0, sizeof(*buf));
	tx->msg_control = buf->buf;
	tx->msg_controllen = CMSG_SPACE(len);
	c = CMSG_FIRSTHDR(tx);
	c->cmsg_level = family == AF_INET6 ? IPPROTO_IPV6 : IPPROTO_IP;
	c->cmsg_type = family == AF_INET6 ? IPV6_PKTINFO : IP_PKTINFO;
	c->cmsg_len = CMSG_LEN(len);
	memcpy(CMSG_DATA(c), pi, len);
}

void udp_reply_cmsg(const struct msghdr *rx, struct msghdr *tx, union udp_cmsg *buf)
{
	union udp_pktinfo pi;

	udp_pktinfo_cmsg(tx, buf, udp_reply_pktinfo(rx, &pi), &pi);
}

/* udp_tx_queue: the next queued datagram, len bytes, to `to`. */
static struct msghdr *udp_tx_queue(struct udp_batch *b, const struct sockaddr *to, socklen_t tolen,
				   size_t len)
{
	unsigned n = b->ntx++;
	struct msghdr *th = &b->tx[n].msg_hdr;

	memset(&b->tx[n], 0, sizeof(b->tx[n]));
	memcpy(&b->tx_to[n], to, tolen);
	b->tx_iov[n].iov_base = b->tx_buf + (size_t)n * b->txlen;
	b->tx_iov[n].iov_len = len;
	th->msg_name = &b->tx_to[n];
	th->msg_namelen = tolen;
	th->msg_iov = &b->tx_iov[n];
	th->msg_iovlen = 1;
	return th;
}

void udp_tx_reply(struct udp_batch *b, unsigned i, size_t len)
{
	const struct msghdr *rh = &b->rx[i].msg_hdr;
	struct msghdr *th = udp_tx_queue(b, udp_rx_from(b, i), rh->msg_namelen, len);

	udp_reply_cmsg(rh, th, &b->tx_cmsg[b->ntx - 1]);
}

void udp_tx_to(struct udp_batch *b, const struct sockaddr *to, socklen_t tolen, size_t len)
{
	udp_tx_queue(b, to, tolen, len);
}

void udp_tx_to_from(struct udp_batch *b, const struct sockaddr_in *to, struct in_addr from,
		    size_t len)
{
	struct msghdr *th = udp_tx_queue(b, (const struct sockaddr *)to, sizeof(*to), len);
	union udp_pktinfo pi = {.v4.ipi_spec_dst = from};

	udp_pktinfo_cmsg(th, &b->tx_cmsg[b->ntx - 1], AF_INET, &pi);
}

unsigned udp_send(int fd, struct udp_batch *b, udp_refused_cb refused, void *arg)
{
	unsigned off = 0, sent = 0, n = b->ntx;

	while (off < n) {
		int r = sendmmsg(fd, b->tx + off, n - off, 0);

		if (r > 0) {
			off += (unsigned)r;
			sent += (unsigned)r;
			continue;
		}
		if (r == -1 && errno == EINTR)
			continue;
		/* sendmmsg stopped at a datagram the kernel refused: skip it */
		if (refused)
			refused(arg, off);
		off++;
	}
	b->ntx = 0;
	return sent;
}
