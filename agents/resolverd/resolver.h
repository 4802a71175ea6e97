/*
 * The resolvers of one resolverd process and what they do with a query.
 *
 * Each resolver (struct rsv_inst) has its own cache, its own address, a
 * UDP and a TCP socket on ADDR:port for clients (server.c) and one UDP
 * socket on ADDR:random-port for its upstream queries (upstream.c), so the
 * authoritative server sees every resolver as a different source. With an
 * IPv6 address (address6) it has the same again on [ADDR6]:port for
 * clients over IPv6, one cache for both families, and, when it asks IPv6
 * servers, an upstream socket on [ADDR6]:random-port.
 *
 * A client's query is answered from the cache when it can be (a hit, or a
 * stale answer during the failure recheck); otherwise it waits on an
 * upstream query for its key, joining one already in flight for the same
 * resolver and key rather than sending another. When the upstream answers,
 * the answer is stored and every waiter answered from it; when it fails
 * (every attempt timed out, or SERVFAIL/REFUSED/... came back), every
 * waiter gets the stale entry if the cache allows it, else SERVFAIL.
 *
 * Everything runs in one thread on the process's lib/loop loop: three
 * sockets per resolver (up to six with IPv6), hundreds of resolvers and any
 * number of TCP connections, each socket's handler in its struct rsv_fd.
 */
#ifndef STEERLAB_RESOLVERD_RESOLVER_H
#define STEERLAB_RESOLVERD_RESOLVER_H

#include <libknot/libknot.h>
#include <netinet/in.h>
#include <stdint.h>

#include "cache.h"
#include "config.h"
#include "dnstcp.h"
#include "loop.h"

struct rsv_ctx;
struct rsv_pending;

enum rsv_fd_kind {
	RSV_FD_UDP,	    /* a resolver's client socket (either family) */
	RSV_FD_UPSTREAM,    /* a resolver's upstream socket (either family) */
	RSV_FD_UPSTREAM_TCP /* an upstream query over TCP */
};

/* a descriptor of resolverd's in the loop: its handler's argument */
struct rsv_fd {
	enum rsv_fd_kind kind;
	int fd;
	void *ptr; /* struct rsv_inst or rsv_pending */
	struct rsv_ctx *ctx;
	struct loop_handler h;
};

struct rsv_counts {
	uint64_t queries;	    /* well-formed queries from clients */
	uint64_t hits;		    /* answered fresh from the cache */
	uint64_t negative_hits;	    /* of which NXDOMAIN or NODATA */
	uint64_t misses;	    /* not in the cache, or expired */
	uint64_t coalesced;	    /* of which joined an upstream query in flight */
	uint64_t upstream_queries;  /* queries sent upstream, each attempt */
	uint64_t upstream_timeouts; /* attempts unanswered within the timeout */
	uint64_t stale_answers;	    /* answers from expired entries */
	uint64_t prefetches;	    /* background refreshes started */
	uint64_t servfail;	    /* SERVFAIL answers: upstream failed, nothing stale */
	uint64_t overloaded;	    /* no upstream query possible: stale or SERVFAIL */
	uint64_t bad;		    /* malformed or refused client messages */
};

/* where an answer goes */
struct rsv_client {
	int tcp;
	struct sockaddr_in addr;   /* UDP: the client (over IPv6: AF_INET6, and addr6) */
	struct sockaddr_in6 addr6; /* UDP over IPv6: the client (config.h, rsv_sa) */
	struct dnstcp_ref conn;	   /* TCP: the connection, if still open */
};

struct rsv_inst {
	struct rsv_ctx *ctx;
	int index;
	const struct rsv_inst_conf *conf;
	struct rsv_cache cache;
	struct rsv_cache deleg;	    /* mode = iterate: the zone cuts (deleg.h) */
	uint32_t ecs_scopes;	    /* ecs = yes: bit s set once a /s answer was stored */
	uint64_t ecs_scopes6;	    /* the same for IPv6 subnets */
	struct rsv_fd udp, up;	    /* IPv4 (fd -1 if conf->v6only) */
	struct dnstcp_listener tcp; /* in ctx->srv.tcp */
	char src[32];		    /* "ADDR:PORT" of the upstream socket */
	struct rsv_fd udp6, up6;    /* address6: the same over IPv6 (fd -1 if none) */
	struct dnstcp_listener tcp6;
	char src6[RSV_SA_STRLEN]; /* "[ADDR6]:PORT" of up6 */
	int up_pref;		  /* the upstream to try first: the last that answered */
	unsigned pending;
	struct rsv_counts n, last; /* now; at the last resolver_stats */
};

/* rsv_client_query: one query from a client of in. If it can be answered
 * now, writes the answer to out (at most max bytes) and returns its length;
 * returns 0 if it waits for the upstream or is dropped. */
size_t rsv_client_query(struct rsv_inst *in, const uint8_t *wire, size_t len,
			const struct rsv_client *who, uint8_t *out, size_t max);

/* rsv_resolved: the upstream answered p with r (parsed; wire/len). Answers
 * p's waiters. */
void rsv_resolved(struct rsv_pending *p, const knot_pkt_t *r, const uint8_t *wire, size_t len);

/* rsv_failed: p could not be resolved. Answers p's waiters stale or with
 * SERVFAIL. */
void rsv_failed(struct rsv_pending *p);

#endif
