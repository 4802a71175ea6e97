/*
 * Inside the upstream queries, shared by upstream.c (UDP, attempts,
 * timeouts) and upstream_tcp.c (TCP after TC). See upstream.h.
 */
#ifndef STEERLAB_RESOLVERD_UPSTREAM_INT_H
#define STEERLAB_RESOLVERD_UPSTREAM_INT_H

#include <libknot/libknot.h>
#include <stddef.h>
#include <netinet/in.h>
#include <stdint.h>

#include "upstream.h"

/* rsv_up_tcp_start: connects for p's current attempt and queues the query
 * q/qlen to be written. 0, or -1 with errno set. */
int rsv_up_tcp_start(struct rsv_pending *p, const uint8_t *q, size_t qlen);

/* rsv_up_tcp_close: closes p's TCP connection, if any. */
void rsv_up_tcp_close(struct rsv_pending *p);

/* rsv_up_attempt_failed: p's current attempt is over without an answer
 * that settles it (and is written): retry, or fail. */
void rsv_up_attempt_failed(struct rsv_pending *p);

/* rsv_up_received: one datagram from `from` on in's upstream socket,
 * wire/len, cut if it was larger than the buffer: an answer to a query in
 * flight, or ignored. (rsv_up_readable's loop body; the fuzz target feeds
 * it directly.) */
void rsv_up_received(struct rsv_inst *in, const struct sockaddr_in *from, const uint8_t *wire,
		     size_t len, int cut);

/* rsv_up_received6: the same from an IPv6 server, on in's IPv6 upstream
 * socket. */
void rsv_up_received6(struct rsv_inst *in, const struct sockaddr_in6 *from, const uint8_t *wire,
		      size_t len, int cut);

/* rsv_up_send: the next attempt of p, to p->to (p->to6) when iterating,
 * to the next upstream when forwarding; from in's socket of the server's
 * family. */
void rsv_up_send(struct rsv_pending *p);

/* rsv_up_new_id: a fresh random ID for p's next query (a new step of a
 * walk), unique among the resolver's queries in flight. */
void rsv_up_new_id(struct rsv_pending *p);

/* rsv_up_unqueue: p's current attempt is over: out of the deadline
 * queue, its TCP connection (if any) closed. */
void rsv_up_unqueue(struct rsv_pending *p);

/* rsv_up_fail_soon: p, whose walk could not even start, fails at the next
 * tick (its waiters are not there yet): first in the deadline queue, its
 * deadline now, neither counted nor written as a timeout. */
void rsv_up_fail_soon(struct rsv_pending *p);

/* rsv_up_answer: r (wire/len) answers p's question. */
void rsv_up_answer(struct rsv_pending *p, const knot_pkt_t *r, const uint8_t *wire, size_t len);

#endif
