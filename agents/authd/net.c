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
#include "udpbatch.h"

#define AUTHD_BATCH 64
#define AUTHD_RXLEN 4096   /* a larger UDP query is dropped */
#define AUTHD_ROUNDS 16	   /* batches per wake-up, so signals still get a turn */
#define AUTHD_CTL_LEN 2048 /* a control datagram */
#define AUTHD_TCP_READ 4096

struct authd_net;

struct authd_sock {
	struct authd_net *net;
	struct loop_handler h;
	int fd;
	int family;
	int tcp;
};

struct authd_conn {
	struct authd_net *net;
	struct loop_handler h;
	int fd;
	struct sockaddr_storage peer;
	int64_t last; /* CLOCK_MONOTONIC of the last activity */
	uint8_t *rbuf;
	size_t rcap, rlen;
	uint8_t *wbuf;
	size_t wcap, wlen, woff;
	int writing; /* waiting for EPOLLOUT */
	int eof;
	LIST_ENTRY(authd_conn) entry;
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
	struct loop_handler idle_timer;
	struct udp_batch *batch;
	uint8_t *tcp_out; /* 2 + AUTHD_MSG_MAX */
	int nconns;
	LIST_HEAD(, authd_conn) conns;
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

	authd_sockaddr_str(ss, name, sizeof(name));
	if (fd == -1) {
		log_warn("socket for %s", name);
		return -1;
	}
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	if (ss->ss_family == AF_INET6 &&
	    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof(on)) == -1)
		log_warn("IPV6_V6ONLY on %s", name);
	if (pktinfo && udp_pktinfo_on(fd, ss->ss_family) == -1) {
		log_warn("pktinfo on %s", name);
		goto fail;
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

/* authd_udp_refused: a reply the kernel refused; the first is logged. */
static void authd_udp_refused(void *arg, unsigned index)
{
	struct authd_net *n = arg;

	(void)index;
	if (n->counts.udp_send_errors++ == 0)
		log_warn("udp reply");
}

static void authd_udp_serve(struct authd_net *n, struct authd_sock *s)
{
	struct udp_batch *b = n->batch;

	for (int round = 0; round < AUTHD_ROUNDS; round++) {
		int r = udp_recv(s->fd, b);

		if (r == -1)
			log_warn("recvmmsg");
		if (r <= 0)
			return;
		for (int i = 0; i < r; i++) {
			size_t len;

			n->counts.udp_queries++;
			if (udp_rx_truncated(b, (unsigned)i)) {
				n->counts.udp_oversize++;
				continue;
			}
			len = authd_respond(n->rc, udp_rx_data(b, (unsigned)i),
					    udp_rx_len(b, (unsigned)i), udp_rx_from(b, (unsigned)i),
					    0, udp_tx_buf(b), n->sv->udp_max);
			if (len == 0)
				continue;
			udp_tx_reply(b, (unsigned)i, len);
		}
		n->counts.udp_responses += udp_send(s->fd, b, authd_udp_refused, n);
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

	loop_del(n->loop, &c->h);
	close(c->fd);
	LIST_REMOVE(c, entry);
	n->nconns--;
	free(c->rbuf);
	free(c->wbuf);
	free(c);
}

/* authd_conn_watch: EPOLLOUT while output is pending, else EPOLLIN. */
static int authd_conn_watch(struct authd_conn *c, int writing)
{
	if (c->writing == writing)
		return 0;
	c->writing = writing;
	return loop_mod(c->net->loop, &c->h, writing ? EPOLLOUT : EPOLLIN);
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
		if (loop_add(n->loop, &c->h, fd, EPOLLIN, authd_conn_event, c) == -1) {
			log_warn("loop_add");
			close(fd);
			free(c);
			continue;
		}
		LIST_INSERT_HEAD(&n->conns, c, entry);
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
	for (struct authd_conn *c = LIST_FIRST(&n->conns), *next; c; c = next) {
		next = LIST_NEXT(c, entry);
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
	n->idle_timer.fd = -1;
	LIST_INIT(&n->conns);
	n->batch = udp_batch_new(AUTHD_BATCH, AUTHD_RXLEN, sv->udp_max);
	n->tcp_out = malloc(2 + AUTHD_MSG_MAX);
	if (n->batch == NULL || n->tcp_out == NULL) {
		log_warn("calloc");
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
			if (loop_add(loop, &s->h, s->fd, EPOLLIN, authd_sock_event, s) == -1) {
				log_warn("loop_add");
				goto fail;
			}
		}
	if (sv->has_control) {
		n->control.net = n;
		n->control.fd = authd_bind(&sv->control, SOCK_DGRAM, 0);
		if (n->control.fd == -1 || loop_add(loop, &n->control.h, n->control.fd, EPOLLIN,
						    authd_sock_event, &n->control) == -1)
			goto fail;
	}
	if (loop_timer_add(loop, &n->idle_timer, now_mono_ns() + NSEC_PER_SEC, NSEC_PER_SEC,
			   authd_idle_timer, n) == -1) {
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
	while (!LIST_EMPTY(&n->conns))
		authd_conn_close(LIST_FIRST(&n->conns));
	for (int i = 0; i < n->nsocks; i++) {
		loop_del(n->loop, &n->socks[i].h);
		close(n->socks[i].fd);
	}
	if (n->control.fd != -1) {
		loop_del(n->loop, &n->control.h);
		close(n->control.fd);
	}
	loop_timer_del(n->loop, &n->idle_timer);
	udp_batch_free(n->batch);
	free(n->tcp_out);
	free(n);
}

const struct authd_net_counts *authd_net_counts(const struct authd_net *n)
{
	return &n->counts;
}
