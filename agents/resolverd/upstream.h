/*
 * Upstream queries: what a resolver asks the authoritative server(s).
 *
 * Each resolver has one UDP socket bound to its own address on a port the
 * kernel picks at random when it starts (and one bound to its IPv6 address
 * for the IPv6 servers, if it asks any); each query gets a random ID (a
 * fresh one per query, kept over its retries) and an answer is taken only
 * from a configured upstream, with that ID and the same question. An
 * attempt unanswered after `timeout` is retried, `retries` times, each
 * retry going to the next upstream in the list; the first attempt goes to
 * the upstream that answered this resolver last. A truncated answer (TC)
 * is asked again over TCP, from the same address, and so are the retries
 * after it.
 *
 * All attempts have the same timeout, so the attempts in flight are in a
 * queue in deadline order and the 10 ms tick only looks at its head.
 * Pending queries are found by (resolver, ID) for answers and by
 * (resolver, key) so that a second client asking the same key waits on the
 * query in flight. At most max_pending queries are in flight per process.
 */
#ifndef STEERLAB_RESOLVERD_UPSTREAM_H
#define STEERLAB_RESOLVERD_UPSTREAM_H

#include <stdint.h>

#include "hmap.h"
#include "resolver.h"

enum rsv_reason {
	RSV_REASON_MISS,     /* a client asked for something not fresh */
	RSV_REASON_PREFETCH, /* a hit found the entry about to expire */
};

struct rsv_waiter {
	struct rsv_waiter *next;
	struct rsv_client who;
	uint16_t len;
	uint8_t query[];
};

struct rsv_walk;

struct rsv_pending {
	struct hmap_node id_node, key_node;  /* in the upstream's maps */
	struct rsv_pending *q_prev, *q_next; /* the deadline queue, */
	int queued;			     /* if in it */
	struct rsv_inst *inst;
	struct rsv_key key;	   /* the client's question */
	const struct rsv_key *ask; /* the one asked now: key, or the walk's */
	struct sockaddr_in to;	   /* the server asked now (IPv6: to6, config.h) */
	struct sockaddr_in6 to6;
	struct rsv_walk *walk; /* mode = iterate (iter.h); NULL when forwarding */
	uint16_t id;
	enum rsv_reason reason;
	unsigned attempt; /* 1 = the first */
	int upstream;	  /* forward: the index of to in the upstream list */
	int tcp;	  /* the current attempt is over TCP */
	int logged;	  /* the current attempt's fate is written */
	int doomed;	  /* rsv_up_fail_soon: no attempt, a failure */
	int64_t sent_mono, sent_real, deadline;
	struct rsv_fd tcp_fd; /* fd -1 unless over TCP */
	uint8_t *tcp_buf;     /* the query to write, then the answer read */
	size_t tcp_len, tcp_done;
	int tcp_reading;
	char tcp_src[RSV_SA_STRLEN]; /* "ADDR:PORT" of the TCP attempt */
	struct rsv_waiter *waiters, **wtail;
	unsigned nwait;
};

struct rsv_up_batch;

struct rsv_upstream {
	struct hmap by_id, by_key; /* the pending queries by (instance, id), by question */
	struct rsv_pending *q_head, *q_tail;
	unsigned count, max;
	uint64_t rng;
	struct rsv_up_batch *batch;
};

/* rsv_up_init: tables for max pending queries. 0, or -1 (logged). */
int rsv_up_init(struct rsv_ctx *ctx);
/* rsv_up_open: in's upstream socket, and its IPv6 one if it has an IPv6
 * address and IPv6 servers are asked, in ctx->loop. 0, or -1 (logged). */
int rsv_up_open(struct rsv_inst *in);

/* rsv_up_find: the query in flight for in and k, or NULL. */
struct rsv_pending *rsv_up_find(struct rsv_inst *in, const struct rsv_key *k);

/* rsv_up_start: sends a query for k. NULL if max_pending are in flight. */
struct rsv_pending *rsv_up_start(struct rsv_inst *in, const struct rsv_key *k,
				 enum rsv_reason reason);

/* rsv_up_wait: the client who (with its query) waits on p. 0, or -1 if p
 * has too many waiters or memory ran out. */
int rsv_up_wait(struct rsv_pending *p, const struct rsv_client *who, const uint8_t *query,
		size_t len);

/* rsv_up_readable: answers on fd, one of in's upstream sockets. */
void rsv_up_readable(struct rsv_inst *in, int fd);
/* rsv_up_tcp_event: an upstream TCP socket is ready. */
void rsv_up_tcp_event(struct rsv_pending *p, uint32_t events);
/* rsv_up_tick: attempts past their deadline at ctx->now. */
void rsv_up_tick(struct rsv_ctx *ctx);
/* rsv_up_finish: at exit, every query in flight is abandoned (written to
 * the CSV), its waiters unanswered. */
void rsv_up_finish(struct rsv_ctx *ctx);

#endif
