/* authd's sockets: UDP batches, TCP connections, the control socket; see net.h. */
#include "net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "conf.h"
#include "log.h"
#include "timeutil.h"

#define AUTHD_BATCH 64
#define AUTHD_RXLEN 4096   /* a larger UDP query is dropped */
#define AUTHD_ROUNDS 16	   /* batches per wake-up, so signals still get a turn */
#define AUTHD_CTL_LEN 2048 /* a control datagram */
#define AUTHD_TCP_READ 4096

union authd_cmsg {
	char buf[CMSG_SPACE(sizeof(struct in6_pktinfo))];
	struct cmsghdr align;
};

struct authd_batch {
	struct mmsghdr rx[AUTHD_BATCH];
	struct iovec rx_iov[AUTHD_BATCH];
	struct sockaddr_storage rx_from[AUTHD_BATCH];
	union authd_cmsg rx_cmsg[AUTHD_BATCH];
	uint8_t rx_buf[AUTHD_BATCH][AUTHD_RXLEN];

	struct mmsghdr tx[AUTHD_BATCH];
	struct iovec tx_iov[AUTHD_BATCH];
	struct sockaddr_storage tx_to[AUTHD_BATCH];
	union authd_cmsg tx_cmsg[AUTHD_BATCH];
	uint8_t *tx_buf[AUTHD_BATCH];
};

struct authd_net;

struct authd_sock {
	struct authd_net *net;
	int fd;
	int family;
	int tcp;
};

struct authd_conn {
	struct authd_net *net;
	int fd;
	struct sockaddr_storage peer;
	int64_t last; /* CLOCK_MONOTONIC of the last activity */
	uint8_t *rbuf;
	size_t rcap, rlen;
	uint8_t *wbuf;
	size_t wcap, wlen, woff;
	int writing; /* waiting for EPOLLOUT */
	int eof;
	struct authd_conn *prev, *next;
};

struct authd_net {
	struct loop *loop;
	const struct authd_server_conf *sv;
	struct authd_respond_ctx *rc;
	authd_report_cb report;
	void *report_arg;
	int nsocks;
	struct authd_sock socks[2 * AUTHD_MAX_LISTEN];
	struct authd_sock control;
	int idle_timer;
	struct authd_batch *batch;
	uint8_t *tcp_out; /* 2 + AUTHD_MSG_MAX */
	int nconns;
	struct authd_conn *conns;
	struct authd_net_counts counts;
};

static socklen_t authd_socklen(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
}

/* authd_bind: a socket of type bound to ss. The fd, or -1 (logged). */
static int authd_bind(const struct sockaddr_storage *ss, int type, int pktinfo)
{
	char name[INET6_ADDRSTRLEN + 8];
	int on = 1, rcvbuf = 4 << 20;
	int fd = socket(ss->ss_family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	addr_sockaddr_str(ss, name, sizeof(name));
	if (fd == -1) {
		log_warn("socket for %s", name);
		return -1;
	}
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	if (ss->ss_family == AF_INET6 &&
	    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof(on)) == -1)
		log_warn("IPV6_V6ONLY on %s", name);
	if (pktinfo) {
		int r = ss->ss_family == AF_INET6
			    ? setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &on, sizeof(on))
			    : setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &on, sizeof(on));

		if (r == -1) {
			log_warn("pktinfo on %s", name);
			goto fail;
		}
	}
	/* bursts: a larger buffer than rmem_max if root */
	if (type == SOCK_DGRAM &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) == -1)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (bind(fd, (const struct sockaddr *)ss, authd_socklen(ss)) == -1) {
		log_warn("bind %s%s", type == SOCK_STREAM ? "tcp " : "", name);
		goto fail;
	}
	if (type == SOCK_STREAM && listen(fd, 128) == -1) {
		log_warn("listen %s", name);
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return -1;
}

/*
 * UDP.
 */

static void authd_batch_arm(struct authd_batch *b)
{
	for (int i = 0; i < AUTHD_BATCH; i++) {
		struct msghdr *h = &b->rx[i].msg_hdr;

		b->rx_iov[i].iov_base = b->rx_buf[i];
		b->rx_iov[i].iov_len = AUTHD_RXLEN;
		memset(&b->rx[i], 0, sizeof(b->rx[i]));
		h->msg_name = &b->rx_from[i];
		h->msg_namelen = sizeof(b->rx_from[i]);
		h->msg_iov = &b->rx_iov[i];
		h->msg_iovlen = 1;
		h->msg_control = b->rx_cmsg[i].buf;
		h->msg_controllen = sizeof(b->rx_cmsg[i].buf);
	}
}

/* authd_reply_cmsg: the reply leaves from the query's destination address. */
static void authd_reply_cmsg(struct msghdr *rx, struct msghdr *tx, union authd_cmsg *buf)
{
	tx->msg_control = NULL;
	tx->msg_controllen = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(rx); c; c = CMSG_NXTHDR(rx, c)) {
		struct cmsghdr *o;

		if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO) {
			struct in_pktinfo in, out = {0};
			in_addr_t dst;

			memcpy(&in, CMSG_DATA(c), sizeof(in));
			dst = ntohl(in.ipi_addr.s_addr);
			out.ipi_spec_dst = IN_MULTICAST(dst) || dst == INADDR_BROADCAST
					       ? in.ipi_spec_dst
					       : in.ipi_addr;
			tx->msg_control = buf->buf;
			tx->msg_controllen = CMSG_SPACE(sizeof(out));
			o = CMSG_FIRSTHDR(tx);
			o->cmsg_level = IPPROTO_IP;
			o->cmsg_type = IP_PKTINFO;
			o->cmsg_len = CMSG_LEN(sizeof(out));
			memcpy(CMSG_DATA(o), &out, sizeof(out));
			return;
		}
		if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_PKTINFO) {
			struct in6_pktinfo in;

			memcpy(&in, CMSG_DATA(c), sizeof(in));
			if (IN6_IS_ADDR_MULTICAST(&in.ipi6_addr))
				return;
			tx->msg_control = buf->buf;
			tx->msg_controllen = CMSG_SPACE(sizeof(in));
			o = CMSG_FIRSTHDR(tx);
			o->cmsg_level = IPPROTO_IPV6;
			o->cmsg_type = IPV6_PKTINFO;
			o->cmsg_len = CMSG_LEN(sizeof(in));
			memcpy(CMSG_DATA(o), &in, sizeof(in));
			return;
		}
	}
}

static void authd_udp_send(struct authd_net *n, int fd, int count)
{
	struct authd_batch *b = n->batch;
	int off = 0;

	while (off < count) {
		int r = sendmmsg(fd, b->tx + off, (unsigned)(count - off), 0);

		if (r > 0) {
			n->counts.udp_responses += (uint64_t)r;
			off += r;
			continue;
		}
		if (r == -1 && errno == EINTR)
			continue;
		if (n->counts.udp_send_errors++ == 0)
			log_warn("udp reply");
		off++;
	}
}

static void authd_udp_serve(struct authd_net *n, struct authd_sock *s)
{
	struct authd_batch *b = n->batch;

	for (int round = 0; round < AUTHD_ROUNDS; round++) {
		int r, count = 0;

		authd_batch_arm(b);
		r = recvmmsg(s->fd, b->rx, AUTHD_BATCH, MSG_DONTWAIT, NULL);
		if (r == -1) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				log_warn("recvmmsg");
			return;
		}
		for (int i = 0; i < r; i++) {
			struct msghdr *rh = &b->rx[i].msg_hdr, *th = &b->tx[count].msg_hdr;
			size_t len;

			n->counts.udp_queries++;
			if (rh->msg_flags & MSG_TRUNC) {
				n->counts.udp_oversize++;
				continue;
			}
			len = authd_respond(n->rc, b->rx_buf[i], b->rx[i].msg_len,
					    (const struct sockaddr *)&b->rx_from[i], 0,
					    b->tx_buf[count], n->sv->udp_max);
			if (len == 0)
				continue;
			memset(&b->tx[count], 0, sizeof(b->tx[count]));
			b->tx_to[count] = b->rx_from[i];
			b->tx_iov[count].iov_base = b->tx_buf[count];
			b->tx_iov[count].iov_len = len;
			th->msg_name = &b->tx_to[count];
			th->msg_namelen = rh->msg_namelen;
			th->msg_iov = &b->tx_iov[count];
			th->msg_iovlen = 1;
			authd_reply_cmsg(rh, th, &b->tx_cmsg[count]);
			count++;
		}
		authd_udp_send(n, s->fd, count);
		if (r < AUTHD_BATCH)
			return;
	}
}

/*
 * TCP.
 */

static void authd_conn_close(struct authd_conn *c)
{
	struct authd_net *n = c->net;

	loop_del(n->loop, c->fd);
	close(c->fd);
	if (c->prev)
		c->prev->next = c->next;
	else
		n->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	n->nconns--;
	free(c->rbuf);
	free(c->wbuf);
	free(c);
}

static void authd_conn_event(struct loop *loop, int fd, uint32_t events, void *arg);

/* authd_conn_watch: EPOLLOUT while output is pending, else EPOLLIN. */
static int authd_conn_watch(struct authd_conn *c, int writing)
{
	if (c->writing == writing)
		return 0;
	c->writing = writing;
	loop_del(c->net->loop, c->fd);
	return loop_add(c->net->loop, c->fd, writing ? EPOLLOUT : EPOLLIN, authd_conn_event, c);
}

/* authd_conn_flush: writes pending output. 0 when all is written, 1 when
 * some remains, -1 on error. */
static int authd_conn_flush(struct authd_conn *c)
{
	while (c->woff < c->wlen) {
		ssize_t w = send(c->fd, c->wbuf + c->woff, c->wlen - c->woff, MSG_NOSIGNAL);

		if (w > 0) {
			c->woff += (size_t)w;
			continue;
		}
		if (w == -1 && errno == EINTR)
			continue;
		if (w == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 1;
		return -1;
	}
	c->woff = c->wlen = 0;
	return 0;
}

/* authd_conn_send: out (len bytes) now, the rest when writable. 0, 1 if
 * output is pending, -1 on error. */
static int authd_conn_send(struct authd_conn *c, const uint8_t *out, size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t w = send(c->fd, out + off, len - off, MSG_NOSIGNAL);

		if (w > 0) {
			off += (size_t)w;
			continue;
		}
		if (w == -1 && errno == EINTR)
			continue;
		if (w == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		return -1;
	}
	if (off == len)
		return 0;
	if (c->wcap < len - off) {
		uint8_t *p = realloc(c->wbuf, len - off);

		if (p == NULL)
			return -1;
		c->wbuf = p;
		c->wcap = len - off;
	}
	memcpy(c->wbuf, out + off, len - off);
	c->wlen = len - off;
	c->woff = 0;
	return 1;
}

/* authd_conn_process: answers the complete messages read, in order, until
 * output blocks. 0, 1 if output is pending, -1 to close. */
static int authd_conn_process(struct authd_conn *c)
{
	struct authd_net *n = c->net;
	size_t off = 0;
	int ret = 0;

	while (c->rlen - off >= 2) {
		size_t mlen = (size_t)c->rbuf[off] << 8 | c->rbuf[off + 1], len;

		if (c->rlen - off < 2 + mlen)
			break;
		n->counts.tcp_queries++;
		len =
		    authd_respond(n->rc, c->rbuf + off + 2, mlen, (const struct sockaddr *)&c->peer,
				  1, n->tcp_out + 2, AUTHD_MSG_MAX);
		off += 2 + mlen;
		if (len == 0)
			continue;
		n->counts.tcp_responses++;
		n->tcp_out[0] = (uint8_t)(len >> 8);
		n->tcp_out[1] = (uint8_t)len;
		ret = authd_conn_send(c, n->tcp_out, len + 2);
		if (ret != 0)
			break;
	}
	if (off > 0) {
		memmove(c->rbuf, c->rbuf + off, c->rlen - off);
		c->rlen -= off;
	}
	return ret;
}

/* authd_conn_read: reads what is there. 0, or -1 to close. */
static int authd_conn_read(struct authd_conn *c)
{
	for (;;) {
		ssize_t r;

		if (c->rcap - c->rlen < AUTHD_TCP_READ) {
			/* room for a whole message, at most, plus a read */
			size_t cap = c->rlen + AUTHD_TCP_READ;
			uint8_t *p;

			if (cap > 2 + AUTHD_MSG_MAX + AUTHD_TCP_READ)
				return 0; /* full: process first */
			p = realloc(c->rbuf, cap);
			if (p == NULL)
				return -1;
			c->rbuf = p;
			c->rcap = cap;
		}
		r = recv(c->fd, c->rbuf + c->rlen, c->rcap - c->rlen, 0);
		if (r > 0) {
			c->rlen += (size_t)r;
			continue;
		}
		if (r == 0) {
			c->eof = 1;
			return 0;
		}
		if (errno == EINTR)
			continue;
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
	}
}

static void authd_conn_event(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct authd_conn *c = arg;
	int ret;

	(void)loop;
	(void)fd;
	c->last = now_mono_ns();
	if (c->writing) {
		ret = authd_conn_flush(c);
		if (ret == -1)
			goto close;
		if (ret == 1)
			return;
	} else if (events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
		if (authd_conn_read(c) == -1)
			goto close;
	}
	/* answer what is complete; a buffer that was full is read again */
	for (;;) {
		size_t before;

		ret = authd_conn_process(c);
		if (ret == -1)
			goto close;
		if (ret == 1 || c->eof)
			break;
		before = c->rlen;
		if (authd_conn_read(c) == -1)
			goto close;
		if (c->rlen == before)
			break;
	}
	if (ret == 1) {
		if (authd_conn_watch(c, 1) == -1)
			goto close;
		return;
	}
	if (c->eof)
		goto close;
	if (authd_conn_watch(c, 0) == -1)
		goto close;
	return;
close:
	authd_conn_close(c);
}

static void authd_tcp_accept(struct authd_net *n, struct authd_sock *s)
{
	for (int i = 0; i < 64; i++) {
		struct sockaddr_storage peer;
		socklen_t plen = sizeof(peer);
		struct authd_conn *c;
		int fd =
		    accept4(s->fd, (struct sockaddr *)&peer, &plen, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd == -1) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
			    errno != ECONNABORTED)
				log_warn("accept");
			return;
		}
		if (n->nconns >= n->sv->tcp_max || (c = calloc(1, sizeof(*c))) == NULL) {
			n->counts.tcp_rejected++;
			close(fd);
			continue;
		}
		c->net = n;
		c->fd = fd;
		c->peer = peer;
		c->last = now_mono_ns();
		if (loop_add(n->loop, fd, EPOLLIN, authd_conn_event, c) == -1) {
			log_warn("loop_add");
			close(fd);
			free(c);
			continue;
		}
		c->next = n->conns;
		if (n->conns)
			n->conns->prev = c;
		n->conns = c;
		n->nconns++;
		n->counts.tcp_accepted++;
	}
}

static void authd_idle_timer(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct authd_net *n = arg;
	int64_t now = now_mono_ns();

	(void)loop;
	(void)events;
	loop_timer_read(fd);
	for (struct authd_conn *c = n->conns, *next; c; c = next) {
		next = c->next;
		if (now - c->last >= n->sv->tcp_idle_ns) {
			n->counts.tcp_idle_closed++;
			authd_conn_close(c);
		}
	}
}

/*
 * The control socket.
 */

static void authd_control_read(struct authd_net *n, struct authd_sock *s)
{
	char buf[AUTHD_CTL_LEN + 1];

	for (int i = 0; i < 256; i++) {
		struct sockaddr_storage from;
		socklen_t flen = sizeof(from);
		ssize_t r = recvfrom(s->fd, buf, AUTHD_CTL_LEN, 0, (struct sockaddr *)&from, &flen);
		char *p, *end;

		if (r == -1) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				log_warn("control socket");
			return;
		}
		n->counts.control_datagrams++;
		buf[r] = '\0';
		for (p = buf, end = buf + r; p < end;) {
			char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);

			if (len > 0)
				n->report(n->report_arg, p, len, &from);
			p += len + 1;
		}
	}
}

static void authd_sock_event(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct authd_sock *s = arg;

	(void)loop;
	(void)fd;
	(void)events;
	if (s == &s->net->control)
		authd_control_read(s->net, s);
	else if (s->tcp)
		authd_tcp_accept(s->net, s);
	else
		authd_udp_serve(s->net, s);
}

struct authd_net *authd_net_open(struct loop *loop, const struct authd_server_conf *sv,
				 struct authd_respond_ctx *rc, authd_report_cb cb, void *arg)
{
	struct authd_net *n = calloc(1, sizeof(*n));

	if (n == NULL) {
		log_warn("calloc");
		return NULL;
	}
	n->loop = loop;
	n->sv = sv;
	n->rc = rc;
	n->report = cb;
	n->report_arg = arg;
	n->control.fd = -1;
	n->idle_timer = -1;
	n->batch = calloc(1, sizeof(*n->batch));
	n->tcp_out = malloc(2 + AUTHD_MSG_MAX);
	if (n->batch == NULL || n->tcp_out == NULL) {
		log_warn("calloc");
		goto fail;
	}
	for (int i = 0; i < AUTHD_BATCH; i++)
		if ((n->batch->tx_buf[i] = malloc(sv->udp_max)) == NULL) {
			log_warn("malloc");
			goto fail;
		}
	for (int i = 0; i < sv->nlisten; i++)
		for (int tcp = 0; tcp < 2; tcp++) {
			struct authd_sock *s = &n->socks[n->nsocks];

			s->net = n;
			s->tcp = tcp;
			s->family = sv->listen[i].ss_family;
			s->fd = authd_bind(&sv->listen[i], tcp ? SOCK_STREAM : SOCK_DGRAM, !tcp);
			if (s->fd == -1)
				goto fail;
			n->nsocks++;
			if (loop_add(loop, s->fd, EPOLLIN, authd_sock_event, s) == -1) {
				log_warn("loop_add");
				goto fail;
			}
		}
	if (sv->has_control) {
		n->control.net = n;
		n->control.fd = authd_bind(&sv->control, SOCK_DGRAM, 0);
		if (n->control.fd == -1 ||
		    loop_add(loop, n->control.fd, EPOLLIN, authd_sock_event, &n->control) == -1)
			goto fail;
	}
	n->idle_timer =
	    loop_timer(loop, now_mono_ns() + NSEC_PER_SEC, NSEC_PER_SEC, authd_idle_timer, n);
	if (n->idle_timer == -1) {
		log_warn("timerfd");
		goto fail;
	}
	return n;
fail:
	authd_net_close(n);
	return NULL;
}

void authd_net_close(struct authd_net *n)
{
	if (n == NULL)
		return;
	while (n->conns)
		authd_conn_close(n->conns);
	for (int i = 0; i < n->nsocks; i++) {
		loop_del(n->loop, n->socks[i].fd);
		close(n->socks[i].fd);
	}
	if (n->control.fd != -1) {
		loop_del(n->loop, n->control.fd);
		close(n->control.fd);
	}
	if (n->idle_timer != -1) {
		loop_del(n->loop, n->idle_timer);
		close(n->idle_timer);
	}
	if (n->batch)
		for (int i = 0; i < AUTHD_BATCH; i++)
			free(n->batch->tx_buf[i]);
	free(n->batch);
	free(n->tcp_out);
	free(n);
}

const struct authd_net_counts *authd_net_counts(const struct authd_net *n)
{
	return &n->counts;
}
