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
#include "dnstcp.h"
#include "log.h"
#include "timeutil.h"
#include "udpbatch.h"

#define AUTHD_BATCH 64
#define AUTHD_RXLEN 4096   /* a larger UDP query is dropped */
#define AUTHD_ROUNDS 16	   /* batches per wake-up, so signals still get a turn */
#define AUTHD_CTL_LEN 2048 /* a control datagram */

struct authd_net;

struct authd_sock {
	struct authd_net *net;
	struct loop_handler h;	      /* UDP, control */
	struct dnstcp_listener tcp_l; /* TCP */
	int fd;
	int family;
	int tcp;
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
	uint8_t *tcp_out; /* AUTHD_MSG_MAX: an answer being built */
	struct dnstcp_server tcp;
	struct authd_net_counts counts;
};

static socklen_t authd_socklen(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
}

/* authd_bind: a socket of type bound to ss. An IPv6 one takes IPv6 alone,
 * but the control socket's on [::], which takes both families (a dual
 * lab's probers report over either; IPv4 senders come as ::ffff:a.b.c.d,
 * which allow.c reads as their IPv4 address). The fd, or -1 (logged). */
static int authd_bind(const struct sockaddr_storage *ss, int type, int pktinfo, int control)
{
	int v6only =
	    ss->ss_family == AF_INET6 &&
	    !(control && IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)ss)->sin6_addr));
	char name[INET6_ADDRSTRLEN + 8];
	int on = 1, rcvbuf = 4 << 20;
	int fd = socket(ss->ss_family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	addr_sockaddr_str(ss, name, sizeof(name));
	if (fd == -1) {
		log_warn("%s: socket for %s", __func__, name);
		return -1;
	}
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	if (ss->ss_family == AF_INET6 &&
	    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof(v6only)) == -1)
		log_warn("%s: IPV6_V6ONLY on %s", __func__, name);
	if (pktinfo && udp_pktinfo_on(fd, ss->ss_family) == -1) {
		log_warn("%s: pktinfo on %s", __func__, name);
		goto fail;
	}
	/* bursts: a larger buffer than rmem_max if root */
	if (type == SOCK_DGRAM &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) == -1)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (bind(fd, (const struct sockaddr *)ss, authd_socklen(ss)) == -1) {
		log_warn("%s: bind %s%s", __func__, type == SOCK_STREAM ? "tcp " : "", name);
		goto fail;
	}
	if (type == SOCK_STREAM && listen(fd, 128) == -1) {
		log_warn("%s: listen %s", __func__, name);
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
		log_warn("%s: udp reply", __func__);
}

static void authd_udp_serve(struct authd_net *n, struct authd_sock *s)
{
	struct udp_batch *b = n->batch;

	for (int round = 0; round < AUTHD_ROUNDS; round++) {
		int r = udp_recv(s->fd, b);

		if (r == -1)
			log_warn("%s: recvmmsg", __func__);
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
 * TCP (lib/dnstcp.h): answers in order, a connection not read while its
 * answer waits to be written.
 */

static void authd_tcp_message(void *arg, struct dnstcp_conn *c, const uint8_t *msg, size_t len)
{
	struct authd_net *n = arg;
	size_t out;

	n->counts.tcp_queries++;
	out = authd_respond(n->rc, msg, len, (const struct sockaddr *)&c->peer, 1, n->tcp_out,
			    AUTHD_MSG_MAX);
	if (out == 0)
		return;
	n->counts.tcp_responses++;
	dnstcp_send(c, n->tcp_out, out);
}

static void authd_idle_timer(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct authd_net *n = arg;

	(void)loop;
	(void)events;
	loop_timer_read(fd);
	dnstcp_idle(&n->tcp);
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
				log_warn("%s: control socket", __func__);
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

int authd_net_control_reply(struct authd_net *n, const struct sockaddr_storage *to, const char *buf,
			    size_t len)
{
	if (n->control.fd == -1 || sendto(n->control.fd, buf, len, 0, (const struct sockaddr *)to,
					  authd_socklen(to)) == -1)
		return -1;
	return 0;
}

static void authd_sock_event(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct authd_sock *s = arg;

	(void)loop;
	(void)fd;
	(void)events;
	if (s == &s->net->control)
		authd_control_read(s->net, s);
	else
		authd_udp_serve(s->net, s);
}

struct authd_net *authd_net_open(struct loop *loop, const struct authd_server_conf *sv,
				 struct authd_respond_ctx *rc, authd_report_cb cb, void *arg)
{
	struct authd_net *n = calloc(1, sizeof(*n));

	if (n == NULL) {
		log_warn("%s: calloc", __func__);
		return NULL;
	}
	n->loop = loop;
	n->sv = sv;
	n->rc = rc;
	n->report = cb;
	n->report_arg = arg;
	n->control.fd = -1;
	n->idle_timer.fd = -1;
	n->batch = udp_batch_new(AUTHD_BATCH, AUTHD_RXLEN, sv->udp_max);
	n->tcp_out = malloc(AUTHD_MSG_MAX);
	if (n->batch == NULL || n->tcp_out == NULL ||
	    dnstcp_open(&n->tcp, loop,
			&(struct dnstcp_conf){.max_conns = (unsigned)sv->tcp_max,
					      .cap = DNSTCP_CAP_REFUSE,
					      .idle_ns = sv->tcp_idle_ns,
					      .message = authd_tcp_message}) == -1) {
		log_warn("%s: calloc", __func__);
		goto fail;
	}
	for (int i = 0; i < sv->nlisten; i++)
		for (int tcp = 0; tcp < 2; tcp++) {
			struct authd_sock *s = &n->socks[n->nsocks];

			s->net = n;
			s->tcp = tcp;
			s->family = sv->listen[i].ss_family;
			s->fd = authd_bind(&sv->listen[i], tcp ? SOCK_STREAM : SOCK_DGRAM, !tcp, 0);
			if (s->fd == -1)
				goto fail;
			n->nsocks++;
			if (tcp ? dnstcp_listen(&n->tcp, &s->tcp_l, s->fd, n)
				: loop_add(loop, &s->h, s->fd, EPOLLIN, authd_sock_event, s)) {
				log_warn("%s: loop_add", __func__);
				goto fail;
			}
		}
	if (sv->has_control) {
		n->control.net = n;
		n->control.fd = authd_bind(&sv->control, SOCK_DGRAM, 0, 1);
		if (n->control.fd == -1 || loop_add(loop, &n->control.h, n->control.fd, EPOLLIN,
						    authd_sock_event, &n->control) == -1)
			goto fail;
	}
	if (loop_timer_add(loop, &n->idle_timer, now_mono_ns() + NSEC_PER_SEC, NSEC_PER_SEC,
			   authd_idle_timer, n) == -1) {
		log_warn("%s: timerfd", __func__);
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
	dnstcp_close_all(&n->tcp);
	for (int i = 0; i < n->nsocks; i++) {
		loop_del(n->loop, &n->socks[i].h);
		dnstcp_unlisten(&n->socks[i].tcp_l);
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

const struct authd_net_counts *authd_net_counts(struct authd_net *n)
{
	n->counts.tcp_accepted = n->tcp.counts.accepted;
	n->counts.tcp_rejected = n->tcp.counts.rejected;
	n->counts.tcp_idle_closed = n->tcp.counts.idle_closed;
	return &n->counts;
}
