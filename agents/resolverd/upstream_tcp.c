/*
 * Upstream queries over TCP (upstream.h): after a truncated answer, the
 * query is asked again on a TCP connection from the resolver's address (its
 * IPv6 one for an IPv6 server), one connection per query, closed when its
 * answer is read.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ctx.h"
#include "dnstcp.h"
#include "log.h"
#include "msg.h"
#include "upstream_int.h"

void rsv_up_tcp_close(struct rsv_pending *p)
{
	if (p->tcp_fd.fd != -1) {
		loop_del(p->inst->ctx->loop, &p->tcp_fd.h);
		close(p->tcp_fd.fd);
		p->tcp_fd.fd = -1;
	}
	/* tcp_buf stays until p is freed: the answer being handled may be in it */
}

int rsv_up_tcp_start(struct rsv_pending *p, const uint8_t *q, size_t qlen)
{
	int v6 = rsv_sa_is6(&p->to), fd, on = 1, err;
	struct sockaddr_storage src = {0};
	socklen_t slen = v6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in), tolen;
	const struct sockaddr *to = rsv_sa(&p->to, &p->to6, &tolen);

	if (v6) {
		((struct sockaddr_in6 *)&src)->sin6_family = AF_INET6;
		((struct sockaddr_in6 *)&src)->sin6_addr = p->inst->conf->addr6;
	} else {
		((struct sockaddr_in *)&src)->sin_family = AF_INET;
		((struct sockaddr_in *)&src)->sin_addr = p->inst->conf->addr;
	}
	if (p->tcp_buf == NULL && (p->tcp_buf = malloc(2 + RSV_TCP_MAX)) == NULL)
		return -1;
	dnstcp_put_len(p->tcp_buf, qlen);
	memcpy(p->tcp_buf + 2, q, qlen);
	p->tcp_len = 2 + qlen;
	p->tcp_done = 0;
	p->tcp_reading = 0;
	/* the address alone until the port is known */
	if (v6)
		inet_ntop(AF_INET6, &p->inst->conf->addr6, p->tcp_src, sizeof(p->tcp_src));
	else
		inet_ntop(AF_INET, &p->inst->conf->addr, p->tcp_src, sizeof(p->tcp_src));
	if ((v6 && !p->inst->conf->has_addr6) || (!v6 && p->inst->conf->v6only)) {
		errno = EAFNOSUPPORT;
		return -1;
	}
	fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd == -1)
		return -1;
	if (!v6 || setsockopt(fd, IPPROTO_IPV6, IPV6_FREEBIND, &on, sizeof(on)) == -1)
		(void)setsockopt(fd, IPPROTO_IP, IP_FREEBIND, &on, sizeof(on));
	if (v6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof(on)) == -1)
		goto fail;
	if (bind(fd, (struct sockaddr *)&src, slen) == -1)
		goto fail;
	if (getsockname(fd, (struct sockaddr *)&src, &slen) == 0)
		rsv_sa_str((struct sockaddr *)&src, p->tcp_src, sizeof(p->tcp_src));
	if (connect(fd, to, tolen) == -1 && errno != EINPROGRESS)
		goto fail;
	p->tcp_fd = (struct rsv_fd){.kind = RSV_FD_UPSTREAM_TCP, .fd = fd, .ptr = p};
	if (rsv_watch(p->inst->ctx, &p->tcp_fd, EPOLLOUT) == -1) {
		p->tcp_fd.fd = -1;
		goto fail;
	}
	return 0;
fail:
	err = errno;
	close(fd);
	errno = err;
	return -1;
}

/* rsv_up_tcp_fail: the TCP attempt broke (written as an error). */
static void rsv_up_tcp_fail(struct rsv_pending *p, const char *why)
{
	log_debug("%s: upstream TCP: %s", p->inst->conf->name, why);
	if (!p->logged)
		rsv_stats_attempt(p->inst->ctx, p, "error", -1, 0);
	p->logged = 1;
	rsv_up_attempt_failed(p);
}

/* rsv_up_tcp_write: more of the query; then switch to reading. */
static void rsv_up_tcp_write(struct rsv_pending *p, uint32_t events)
{
	ssize_t n;

	if (events & (EPOLLERR | EPOLLHUP)) {
		rsv_up_tcp_fail(p, "connection failed");
		return;
	}
	n = send(p->tcp_fd.fd, p->tcp_buf + p->tcp_done, p->tcp_len - p->tcp_done, MSG_NOSIGNAL);
	if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return;
	if (n <= 0) {
		rsv_up_tcp_fail(p, strerror(errno));
		return;
	}
	p->tcp_done += (size_t)n;
	if (p->tcp_done < p->tcp_len)
		return;
	p->tcp_reading = 1;
	p->tcp_done = 0;
	if (loop_mod(p->inst->ctx->loop, &p->tcp_fd.h, EPOLLIN) == -1)
		rsv_up_tcp_fail(p, "loop_mod");
}

void rsv_up_tcp_event(struct rsv_pending *p, uint32_t events)
{
	knot_pkt_t *pkt;
	size_t want;
	ssize_t n;

	if (!p->tcp_reading) {
		rsv_up_tcp_write(p, events);
		return;
	}
	/* the answer: a 2-byte length, then the message, into tcp_buf */
	for (;;) {
		want = dnstcp_framed(p->tcp_buf, p->tcp_done);
		if (p->tcp_done >= want)
			break;
		n = recv(p->tcp_fd.fd, p->tcp_buf + p->tcp_done, want - p->tcp_done, 0);
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return;
		if (n <= 0) {
			rsv_up_tcp_fail(p, n == 0 ? "closed by the upstream" : strerror(errno));
			return;
		}
		p->tcp_done += (size_t)n;
	}
	pkt = rsv_msg_parse(p->tcp_buf + 2, want - 2);
	if (pkt == NULL || !rsv_msg_matches(pkt, p->ask, p->id)) {
		knot_pkt_free(pkt);
		rsv_up_tcp_fail(p, "not an answer to the query");
		return;
	}
	rsv_up_answer(p, pkt, p->tcp_buf + 2, want - 2);
	knot_pkt_free(pkt);
}
