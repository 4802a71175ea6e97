/* The resolvers' client sockets, UDP and TCP; see server.h. */
#include "server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ctx.h"
#include "log.h"
#include "msg.h"
#include "udpbatch.h"

#define RSV_SRV_BATCH 32
#define RSV_SRV_RXLEN 4096
/* a flood returns to the loop after this many batches, so timers and
 * signals still run */
#define RSV_SRV_ROUNDS 8
#define RSV_TCP_IN_FIRST 1024

int rsv_srv_init(struct rsv_ctx *ctx, int nfd)
{
	struct rsv_server *s = &ctx->srv;

	memset(s, 0, sizeof(*s));
	s->nfd = nfd;
	s->by_fd = calloc((size_t)nfd, sizeof(*s->by_fd));
	s->batch = udp_batch_new(RSV_SRV_BATCH, RSV_SRV_RXLEN, RSV_UDP_MAX);
	s->scratch = malloc(RSV_TCP_MAX);
	if (s->by_fd == NULL || s->batch == NULL || s->scratch == NULL) {
		log_warn("calloc");
		return -1;
	}
	return 0;
}

uint8_t *rsv_srv_scratch(struct rsv_ctx *ctx)
{
	return ctx->srv.scratch;
}

static int rsv_srv_socket(struct rsv_inst *in, int type)
{
	struct sockaddr_in sin = {.sin_family = AF_INET,
				  .sin_addr = in->conf->addr,
				  .sin_port = htons(in->ctx->conf->port)};
	int fd, on = 1, rcvbuf = 1 << 20;
	char a[INET_ADDRSTRLEN];

	fd = socket(AF_INET, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd == -1) {
		log_warn("%s: socket", in->conf->name);
		return -1;
	}
	/* the address may not be up yet; it is the lab's to add */
	(void)setsockopt(fd, IPPROTO_IP, IP_FREEBIND, &on, sizeof(on));
	if (type == SOCK_STREAM)
		(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	else if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) == -1)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    (type == SOCK_STREAM && listen(fd, 128) == -1)) {
		log_warn("%s: %s %s:%u", in->conf->name, type == SOCK_STREAM ? "TCP" : "UDP",
			 inet_ntop(AF_INET, &sin.sin_addr, a, sizeof(a)), in->ctx->conf->port);
		close(fd);
		return -1;
	}
	return fd;
}

int rsv_srv_open(struct rsv_inst *in)
{
	int fd;

	if ((fd = rsv_srv_socket(in, SOCK_DGRAM)) == -1)
		return -1;
	in->udp = (struct rsv_fd){.kind = RSV_FD_UDP, .fd = fd, .ptr = in};
	if (rsv_watch(in->ctx, &in->udp, EPOLLIN) == -1) {
		log_warn("epoll_ctl");
		return -1;
	}
	if (!in->ctx->conf->tcp)
		return 0;
	if ((fd = rsv_srv_socket(in, SOCK_STREAM)) == -1)
		return -1;
	in->tcp = (struct rsv_fd){.kind = RSV_FD_TCP_LISTEN, .fd = fd, .ptr = in};
	if (rsv_watch(in->ctx, &in->tcp, EPOLLIN) == -1) {
		log_warn("epoll_ctl");
		return -1;
	}
	return 0;
}

/* rsv_srv_refused: an answer the kernel refused, skipped. */
static void rsv_srv_refused(void *arg, unsigned index)
{
	struct rsv_inst *in = arg;

	(void)index;
	log_debug("%s: answer refused: %s", in->conf->name, strerror(errno));
}

void rsv_srv_udp_readable(struct rsv_inst *in)
{
	struct udp_batch *b = in->ctx->srv.batch;

	for (int round = 0; round < RSV_SRV_ROUNDS; round++) {
		int r = udp_recv(in->udp.fd, b);

		if (r == -1)
			log_warn("%s: recvmmsg", in->conf->name);
		if (r <= 0)
			return;
		for (int i = 0; i < r; i++) {
			struct rsv_client who = {.tcp = 0, .fd = -1};
			size_t len;

			if (udp_rx_truncated(b, (unsigned)i) ||
			    udp_rx_fromlen(b, (unsigned)i) != sizeof(struct sockaddr_in)) {
				in->n.bad++;
				continue;
			}
			memcpy(&who.addr, udp_rx_from(b, (unsigned)i), sizeof(who.addr));
			len = rsv_client_query(in, udp_rx_data(b, (unsigned)i),
					       udp_rx_len(b, (unsigned)i), &who, udp_tx_buf(b),
					       RSV_UDP_MAX);
			if (len == 0)
				continue;
			udp_tx_reply(b, (unsigned)i, len);
		}
		udp_send(in->udp.fd, b, rsv_srv_refused, in);
		if (r < RSV_SRV_BATCH)
			return;
	}
}

static void rsv_conn_list_remove(struct rsv_server *s, struct rsv_conn *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		s->oldest = c->next;
	if (c->next)
		c->next->prev = c->prev;
	else
		s->newest = c->prev;
	c->prev = c->next = NULL;
}

static void rsv_conn_list_append(struct rsv_server *s, struct rsv_conn *c)
{
	c->prev = s->newest;
	c->next = NULL;
	if (s->newest)
		s->newest->next = c;
	else
		s->oldest = c;
	s->newest = c;
}

static void rsv_conn_active(struct rsv_conn *c)
{
	struct rsv_server *s = &c->inst->ctx->srv;

	c->active = c->inst->ctx->now;
	if (s->newest != c) {
		rsv_conn_list_remove(s, c);
		rsv_conn_list_append(s, c);
	}
}

static void rsv_conn_free(struct loop_handler *h)
{
	struct rsv_conn *c = (struct rsv_conn *)((char *)h - offsetof(struct rsv_conn, fd.h));

	free(c->in);
	free(c->out);
	free(c);
}

/* rsv_conn_close: c is freed once the event being handled is done (at
 * once outside one), so its callers may still look at c->fd.fd. */
static void rsv_conn_close(struct rsv_conn *c)
{
	struct rsv_server *s = &c->inst->ctx->srv;

	if (c->fd.fd == -1)
		return;
	loop_del(c->inst->ctx->loop, &c->fd.h);
	s->by_fd[c->fd.fd] = NULL;
	close(c->fd.fd);
	c->fd.fd = -1;
	rsv_conn_list_remove(s, c);
	s->nconns--;
	loop_del_finalize(c->inst->ctx->loop, &c->fd.h, rsv_conn_free);
}

void rsv_srv_accept(struct rsv_inst *in)
{
	struct rsv_server *s = &in->ctx->srv;

	for (int i = 0; i < 64; i++) {
		struct sockaddr_in peer;
		socklen_t plen = sizeof(peer);
		struct rsv_conn *c;
		int fd = accept4(in->tcp.fd, (struct sockaddr *)&peer, &plen,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd == -1) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
			    errno != ECONNABORTED)
				log_warn("%s: accept", in->conf->name);
			return;
		}
		if (fd >= s->nfd || (c = calloc(1, sizeof(*c))) == NULL) {
			close(fd);
			continue;
		}
		if (s->nconns >= RSV_TCP_CONNS)
			rsv_conn_close(s->oldest);
		c->fd = (struct rsv_fd){.kind = RSV_FD_TCP_CONN, .fd = fd, .ptr = c};
		c->inst = in;
		c->serial = ++s->serial;
		c->active = in->ctx->now;
		if (rsv_watch(in->ctx, &c->fd, EPOLLIN) == -1) {
			close(fd);
			free(c);
			continue;
		}
		s->by_fd[fd] = c;
		rsv_conn_list_append(s, c);
		s->nconns++;
	}
}

/* rsv_conn_flush: writes what is queued. 0, or -1 (c is closed). */
static int rsv_conn_flush(struct rsv_conn *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd.fd, c->out + c->out_off, c->out_len - c->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			c->out_off += (size_t)n;
			continue;
		}
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		rsv_conn_close(c);
		return -1;
	}
	if (c->out_off == c->out_len)
		c->out_off = c->out_len = 0;
	if (c->want_out != (c->out_len > 0)) {
		c->want_out = c->out_len > 0;
		if (loop_mod(c->inst->ctx->loop, &c->fd.h,
			     EPOLLIN | (c->want_out ? EPOLLOUT : 0)) == -1) {
			rsv_conn_close(c);
			return -1;
		}
	}
	return 0;
}

/* rsv_conn_write: queues one answer with its length and writes. */
static void rsv_conn_write(struct rsv_conn *c, const uint8_t *buf, size_t len)
{
	size_t need = c->out_len + 2 + len;

	if (need > RSV_TCP_OUT_MAX) {
		log_debug("%s: TCP client reads too slowly, closed", c->inst->conf->name);
		rsv_conn_close(c);
		return;
	}
	if (need > c->out_cap) {
		size_t cap = need < 4096 ? 4096 : need * 2;
		uint8_t *o = realloc(c->out, cap);

		if (o == NULL) {
			rsv_conn_close(c);
			return;
		}
		c->out = o;
		c->out_cap = cap;
	}
	c->out[c->out_len] = (uint8_t)(len >> 8);
	c->out[c->out_len + 1] = (uint8_t)len;
	memcpy(c->out + c->out_len + 2, buf, len);
	c->out_len += 2 + len;
	rsv_conn_active(c);
	rsv_conn_flush(c);
}

/* rsv_conn_queries: answers every whole query in c->in. */
static void rsv_conn_queries(struct rsv_conn *c)
{
	struct rsv_ctx *ctx = c->inst->ctx;
	size_t off = 0;

	while (c->fd.fd != -1 && c->in_len - off >= 2) {
		size_t len = (size_t)c->in[off] << 8 | c->in[off + 1];
		struct rsv_client who = {.tcp = 1, .fd = c->fd.fd, .serial = c->serial};
		size_t n;

		if (len == 0) {
			rsv_conn_close(c);
			return;
		}
		if (c->in_len - off < 2 + len)
			break;
		rsv_conn_active(c);
		n = rsv_client_query(c->inst, c->in + off + 2, len, &who, ctx->srv.scratch,
				     RSV_TCP_MAX);
		off += 2 + len;
		if (n)
			rsv_conn_write(c, ctx->srv.scratch, n);
	}
	if (c->fd.fd != -1 && off) {
		memmove(c->in, c->in + off, c->in_len - off);
		c->in_len -= off;
	}
}

void rsv_srv_conn_event(struct rsv_conn *c, uint32_t events)
{
	if ((events & EPOLLOUT) && rsv_conn_flush(c) == -1)
		return;
	if (!(events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
		return;
	for (int i = 0; i < 16 && c->fd.fd != -1; i++) {
		ssize_t n;

		/* room for the message whose length is known, or a start */
		size_t need = c->in_len >= 2 ? 2 + ((size_t)c->in[0] << 8 | c->in[1]) : 2;
		if (need < RSV_TCP_IN_FIRST)
			need = RSV_TCP_IN_FIRST;
		if (need > c->in_cap) {
			uint8_t *b = realloc(c->in, need);
			if (b == NULL) {
				rsv_conn_close(c);
				return;
			}
			c->in = b;
			c->in_cap = need;
		}
		n = recv(c->fd.fd, c->in + c->in_len, c->in_cap - c->in_len, MSG_DONTWAIT);
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			rsv_conn_close(c);
			return;
		}
		c->in_len += (size_t)n;
		rsv_conn_queries(c);
	}
}

void rsv_srv_reply(struct rsv_inst *in, const struct rsv_client *who, const uint8_t *buf,
		   size_t len)
{
	struct rsv_server *s = &in->ctx->srv;
	struct rsv_conn *c;

	if (!who->tcp) {
		if (sendto(in->udp.fd, buf, len, 0, (const struct sockaddr *)&who->addr,
			   sizeof(who->addr)) == -1)
			log_debug("%s: sendto: %s", in->conf->name, strerror(errno));
		return;
	}
	if (who->fd < 0 || who->fd >= s->nfd || (c = s->by_fd[who->fd]) == NULL ||
	    c->serial != who->serial)
		return; /* the client has gone */
	rsv_conn_write(c, buf, len);
}

void rsv_srv_idle(struct rsv_ctx *ctx)
{
	struct rsv_server *s = &ctx->srv;

	while (s->oldest && s->oldest->active < ctx->now - RSV_TCP_IDLE)
		rsv_conn_close(s->oldest);
}

void rsv_srv_close_all(struct rsv_ctx *ctx)
{
	struct rsv_server *s = &ctx->srv;

	while (s->oldest)
		rsv_conn_close(s->oldest);
	free(s->by_fd);
	udp_batch_free(s->batch);
	free(s->scratch);
	s->by_fd = NULL;
	s->batch = NULL;
	s->scratch = NULL;
}
