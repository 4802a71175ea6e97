/* The resolvers' client sockets, UDP and TCP; see server.h. */
#include "server.h"

#include <arpa/inet.h>
#include <errno.h>
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

/* rsv_srv_tcp_message: one query on a TCP connection of in. */
static void rsv_srv_tcp_message(void *arg, struct dnstcp_conn *c, const uint8_t *msg, size_t len)
{
	struct rsv_inst *in = arg;
	struct rsv_ctx *ctx = in->ctx;
	struct rsv_client who = {.tcp = 1, .conn = dnstcp_ref(c)};
	size_t n;

	ctx->now = rsv_ctx_now(ctx);
	n = rsv_client_query(in, msg, len, &who, ctx->srv.scratch, RSV_TCP_MAX);
	if (n)
		dnstcp_send(c, ctx->srv.scratch, n);
}

int rsv_srv_init(struct rsv_ctx *ctx, int nfd)
{
	struct rsv_server *s = &ctx->srv;
	struct dnstcp_conf tcp = {.max_conns = RSV_TCP_CONNS,
				  .cap = DNSTCP_CAP_EVICT,
				  .idle_ns = RSV_TCP_IDLE,
				  .out_max = RSV_TCP_OUT_MAX,
				  .nfd = nfd,
				  .clock = ctx->clock,
				  .message = rsv_srv_tcp_message};

	memset(s, 0, sizeof(*s));
	s->batch = udp_batch_new(RSV_SRV_BATCH, RSV_SRV_RXLEN, RSV_UDP_MAX);
	s->scratch = malloc(RSV_TCP_MAX);
	if (dnstcp_open(&s->tcp, ctx->loop, &tcp) == -1 || s->batch == NULL || s->scratch == NULL) {
		log_warn("%s: calloc", __func__);
		return -1;
	}
	return 0;
}

uint8_t *rsv_srv_scratch(struct rsv_ctx *ctx)
{
	return ctx->srv.scratch;
}

/* rsv_srv_socket: a client socket of in of type on ADDR:port, or on
 * [ADDR6]:port (IPv6 only) if v6. */
static int rsv_srv_socket(struct rsv_inst *in, int type, int v6)
{
	struct sockaddr_in sin = {.sin_family = AF_INET,
				  .sin_addr = in->conf->addr,
				  .sin_port = htons(in->ctx->conf->port)};
	struct sockaddr_in6 sin6 = {.sin6_family = AF_INET6,
				    .sin6_addr = in->conf->addr6,
				    .sin6_port = htons(in->ctx->conf->port)};
	const struct sockaddr *sa = v6 ? (struct sockaddr *)&sin6 : (struct sockaddr *)&sin;
	socklen_t salen = v6 ? sizeof(sin6) : sizeof(sin);
	int fd, on = 1, rcvbuf = 1 << 20;
	char a[RSV_SA_STRLEN];

	fd = socket(sa->sa_family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd == -1) {
		log_warn("%s: %s: socket", __func__, in->conf->name);
		return -1;
	}
	/* the address may not be up yet; it is the lab's to add */
	if (!v6 || setsockopt(fd, IPPROTO_IPV6, IPV6_FREEBIND, &on, sizeof(on)) == -1)
		(void)setsockopt(fd, IPPROTO_IP, IP_FREEBIND, &on, sizeof(on));
	if (v6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof(on)) == -1) {
		log_warn("%s: %s: IPV6_V6ONLY", __func__, in->conf->name);
		close(fd);
		return -1;
	}
	if (type == SOCK_STREAM)
		(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	else if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) == -1)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (bind(fd, sa, salen) == -1 || (type == SOCK_STREAM && listen(fd, 128) == -1)) {
		log_warn("%s: %s: %s %s", __func__, in->conf->name,
			 type == SOCK_STREAM ? "TCP" : "UDP", rsv_sa_str(sa, a, sizeof(a)));
		close(fd);
		return -1;
	}
	return fd;
}

/* rsv_srv_open_family: in's UDP and TCP client sockets of one family,
 * into udp and tcp. 0, or -1 (logged). */
static int rsv_srv_open_family(struct rsv_inst *in, int v6, struct rsv_fd *udp,
			       struct dnstcp_listener *tcp)
{
	int fd;

	if ((fd = rsv_srv_socket(in, SOCK_DGRAM, v6)) == -1)
		return -1;
	*udp = (struct rsv_fd){.kind = RSV_FD_UDP, .fd = fd, .ptr = in};
	if (rsv_watch(in->ctx, udp, EPOLLIN) == -1) {
		log_warn("%s: epoll_ctl", __func__);
		return -1;
	}
	if (!in->ctx->conf->tcp)
		return 0;
	if ((fd = rsv_srv_socket(in, SOCK_STREAM, v6)) == -1)
		return -1;
	tcp->fd = fd;
	if (dnstcp_listen(&in->ctx->srv.tcp, tcp, fd, in) == -1) {
		log_warn("%s: epoll_ctl", __func__);
		return -1;
	}
	return 0;
}

int rsv_srv_open(struct rsv_inst *in)
{
	if (!in->conf->v6only && rsv_srv_open_family(in, 0, &in->udp, &in->tcp) == -1)
		return -1;
	if (in->conf->has_addr6 && rsv_srv_open_family(in, 1, &in->udp6, &in->tcp6) == -1)
		return -1;
	return 0;
}

/* rsv_srv_refused: an answer the kernel refused, skipped. */
static void rsv_srv_refused(void *arg, unsigned index)
{
	struct rsv_inst *in = arg;

	(void)index;
	log_debug("%s: answer refused: %s", in->conf->name, strerror(errno));
}

void rsv_srv_udp_readable(struct rsv_inst *in, int fd)
{
	struct udp_batch *b = in->ctx->srv.batch;
	int v6 = fd == in->udp6.fd;
	socklen_t fromlen = v6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);

	for (int round = 0; round < RSV_SRV_ROUNDS; round++) {
		int r = udp_recv(fd, b);

		if (r == -1)
			log_warn("%s: %s: recvmmsg", __func__, in->conf->name);
		if (r <= 0)
			return;
		for (int i = 0; i < r; i++) {
			struct rsv_client who = {.tcp = 0};
			size_t len;

			if (udp_rx_truncated(b, (unsigned)i) ||
			    udp_rx_fromlen(b, (unsigned)i) != fromlen) {
				in->n.bad++;
				continue;
			}
			rsv_sa_set(&who.addr, &who.addr6, udp_rx_from(b, (unsigned)i));
			len = rsv_client_query(in, udp_rx_data(b, (unsigned)i),
					       udp_rx_len(b, (unsigned)i), &who, udp_tx_buf(b),
					       RSV_UDP_MAX);
			if (len == 0)
				continue;
			udp_tx_reply(b, (unsigned)i, len);
		}
		udp_send(fd, b, rsv_srv_refused, in);
		if (r < RSV_SRV_BATCH)
			return;
	}
}

void rsv_srv_reply(struct rsv_inst *in, const struct rsv_client *who, const uint8_t *buf,
		   size_t len)
{
	struct dnstcp_conn *c;

	if (!who->tcp) {
		socklen_t slen;
		const struct sockaddr *to = rsv_sa(&who->addr, &who->addr6, &slen);

		if (sendto(rsv_sa_is6(&who->addr) ? in->udp6.fd : in->udp.fd, buf, len, 0, to,
			   slen) == -1)
			log_debug("%s: sendto: %s", in->conf->name, strerror(errno));
		return;
	}
	if ((c = dnstcp_find(&in->ctx->srv.tcp, who->conn)) == NULL)
		return; /* the client has gone */
	dnstcp_send(c, buf, len);
}

void rsv_srv_idle(struct rsv_ctx *ctx)
{
	dnstcp_idle(&ctx->srv.tcp);
}

void rsv_srv_close_all(struct rsv_ctx *ctx)
{
	struct rsv_server *s = &ctx->srv;

	dnstcp_close_all(&s->tcp);
	udp_batch_free(s->batch);
	free(s->scratch);
	s->batch = NULL;
	s->scratch = NULL;
}
