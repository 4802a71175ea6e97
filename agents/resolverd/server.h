/*
 * The client side of the resolvers: one UDP and (with tcp = yes) one TCP
 * socket per resolver on ADDR:port, and with address6 the same on
 * [ADDR6]:port (IPV6_V6ONLY), all bound with IP_FREEBIND (IPV6_FREEBIND) so
 * a resolver can start before its address is up. An answer leaves from the
 * socket its query came in on: from the address the client asked.
 *
 * UDP queries are read in batches and the answers ready at once (hits,
 * stale answers, errors) go back in one batch (lib/udpbatch.h); answers that
 * waited on the upstream go out one by one. Over TCP (RFC 7766) a
 * connection may carry many queries, answered as they are ready, possibly
 * out of order; it is closed after RSV_TCP_IDLE without a query, and at
 * most RSV_TCP_CONNS connections are open per process (a new one beyond
 * that closes the least recently active one); lib/dnstcp.h does the work.
 */
#ifndef STEERLAB_RESOLVERD_SERVER_H
#define STEERLAB_RESOLVERD_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include "resolver.h"

#define RSV_TCP_CONNS 1024
#define RSV_TCP_IDLE (10 * 1000000000LL)
#define RSV_TCP_OUT_MAX (256 * 1024) /* unsent answers beyond this close it */

struct udp_batch;

struct rsv_server {
	struct dnstcp_server tcp; /* every resolver's TCP clients */
	struct udp_batch *batch;
	uint8_t *scratch; /* RSV_TCP_MAX: an answer being built */
};

/* rsv_srv_init: buffers, the TCP connections (lib/dnstcp.h) for fds below
 * nfd. 0 or -1. */
int rsv_srv_init(struct rsv_ctx *ctx, int nfd);
/* rsv_srv_open: in's client sockets (IPv6 ones too with address6), in
 * ctx->loop. 0, or -1 (logged). */
int rsv_srv_open(struct rsv_inst *in);

/* rsv_srv_udp_readable: queries on fd, one of in's UDP client sockets. */
void rsv_srv_udp_readable(struct rsv_inst *in, int fd);

/* rsv_srv_reply: sends an answer that waited to who. */
void rsv_srv_reply(struct rsv_inst *in, const struct rsv_client *who, const uint8_t *buf,
		   size_t len);
/* rsv_srv_scratch: a buffer of RSV_TCP_MAX bytes to build an answer in. */
uint8_t *rsv_srv_scratch(struct rsv_ctx *ctx);

/* rsv_srv_idle: closes connections idle since before ctx->now - RSV_TCP_IDLE. */
void rsv_srv_idle(struct rsv_ctx *ctx);
void rsv_srv_close_all(struct rsv_ctx *ctx);

#endif
