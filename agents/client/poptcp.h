/*
 * A population over TCP (-P with -T; docs/agents.md, client, "Populations"):
 * every logical client its own long-lived connection, as 10^4 users of a
 * service each hold theirs.
 *
 * Logical client j connects from its source address (the block's, or the
 * kernel's choice) to the anycast target or, in DNS mode, to the address
 * its own answer holds when the connection is made; a new answer is used
 * from the next connection. All the connections are opened before the
 * first request, waited for up to the timeout together. A request of j is
 * written on j's connection when it falls due; without one it is an error
 * at once (counted unconnected), and a write the kernel does not take
 * whole is an error too (blocked: the site reads nothing, the connection's
 * buffers are full) that gives the connection up. Replies are matched by
 * sequence number through the agent's ring, as every client's.
 *
 * A connection ends as one client's does (tcp.h: the site's reset or
 * close, a refused or timed-out connect, a reply that does not decode, a
 * request on it unanswered for the timeout: stalled); its requests still
 * outstanding are recorded as errors at the agent's next expiry pass (a
 * walk of the ring, once for every connection that ended meanwhile: each
 * slot carries its connection's generation), and j reconnects after
 * client_tcp_backoff_ns, attempts checked every POPTCP_TICK_NS while some
 * connection is down. There is no event per connection (10^4 of them
 * would drown the event file): the counts are client_summary's tcp object,
 * the same as one client's.
 */
#ifndef STEERLAB_CLIENT_POPTCP_H
#define STEERLAB_CLIENT_POPTCP_H

#include <jansson.h>
#include <stdint.h>

#include "loop.h"
#include "tcp.h"
#include "wire.h"

#define POPTCP_TICK_NS (10 * 1000000LL)

struct client;
struct client_slot;
struct poptcp;

/* poptcp_open: the connections of c's population (c->pop; DNS mode: its
 * answers, c->popdns), every one tried at once and waited for up to the
 * timeout; http: the requests as HTTP/1.1 GETs (lib/httpwire.h, Host
 * host, NULL: the target's address), one on a connection at a time. NULL (logged) when it cannot be
 * set up: memory, descriptors (the soft limit is raised as far as the hard one allows, and the
 * population must fit under it). */
struct poptcp *poptcp_open(struct client *c, int http, const char *host);

/* poptcp_send: logical client j's request m (its slot s just pushed to the
 * ring) written on j's connection, or recorded as an error. */
void poptcp_send(struct poptcp *t, uint32_t j, const struct wire_msg *m, struct client_slot *s);

/* poptcp_expired: slot s timed out (recorded lost by the caller): its
 * connection, if still the one it was sent on, is given up (stalled). */
void poptcp_expired(struct poptcp *t, const struct client_slot *s);

/* poptcp_sweep: after connections ended, the requests still outstanding
 * on them recorded as errors (one walk of the ring). */
void poptcp_sweep(struct poptcp *t);

/* poptcp_counts: the counts so far */
const struct client_tcp_counts *poptcp_counts(const struct poptcp *t);

/* poptcp_close: every connection closed, t freed (NULL: nothing). */
void poptcp_close(struct poptcp *t);

#endif
