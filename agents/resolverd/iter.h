/*
 * The iterative walk (`mode = iterate`, docs/resolverd.md): how a miss is
 * resolved from the root hints instead of being forwarded.
 *
 * A miss is one upstream query in flight (struct rsv_pending, upstream.h,
 * so coalescing, the deadline queue, TCP after TC, the CSV and the counts
 * are those of forward mode) that carries a walk: the goal (the client's
 * name and type, then each CNAME target), the zone cut being asked and
 * its servers. Each step asks the servers of the closest cut the
 * delegation cache (deleg.h) holds fresh for the goal, the root hints if
 * none, and acts on the verdict (iter_msg.h):
 *
 *   referral   the cut and its glue go to the delegation cache, each with
 *              its own TTL, and the next step asks the new cut;
 *   answer, NXDOMAIN, NODATA
 *              stored in the resolver's cache under the goal's key (the
 *              clamps and phase of any answer) and the chain is complete;
 *   CNAME      the link is stored under its own key with its own TTL and
 *              the walk goes on at the target (at most 8 links);
 *   timeout, SERVFAIL, REFUSED, lame
 *              the next server of the same cut, `retries` times; then the
 *              walk fails (serve-stale as in forward mode).
 *
 * A cut whose servers have no address (no glue) gets them resolved first,
 * as a goal of its own, two levels deep at most; an NS name inside the cut
 * it serves cannot be resolved without glue and is skipped. A cut none of
 * whose servers can be reached gives way to its parent, which refers
 * again; if it refers to the same cut, still unreachable, the goal fails
 * (a loop). With
 * qname_minimisation (RFC 9156) a step below the cut asks only one more
 * label, with QTYPE A, until the full name is reached or a referral comes.
 * No walk sends more than RSV_ITER_MAX_QUERIES queries (retries counted),
 * so a lame or looping tree cannot hold a client for long.
 *
 * The client's answer is the chain: every link's records, each with what
 * is left of its own TTL (msg.h, rsv_msg_answer_chain).
 *
 * With transport = 6 every server is asked at its IPv6 address: the root
 * hints are IPv6, a referral's AAAA glue is kept (not its A glue) and an
 * NS name without glue is resolved for its AAAA records.
 *
 * ECS (`ecs = yes`, RFC 7871): a client's subnet is its query's ECS (either
 * family) cut to at most /24 for IPv4 or /56 for IPv6, or, without one,
 * its UDP source address's /24 (over IPv6, its /56; a client sending
 * SOURCE 0 opts out). The full question is asked with it; an answer whose
 * option echoes a SCOPE s > 0 is stored under the key scoped to the
 * client's address cut to min(s, source) bits (7.3.1), any other under
 * the plain key. A lookup tries the scoped keys of every scope this
 * resolver has stored for the client's family, longest first, then the
 * plain key. A scoped key is the name with a first label of the prefix in
 * hex, and a class of private use (RFC 6895; a client asking another class
 * than IN is refused when iterating) that says the family and the prefix
 * length: an IPv4 /s is 8 hex digits (the 32 bits) and class 0xFF00 + s,
 * an IPv6 /s 16 (the first 64 bits: s <= 56) and class 0xFF80 + s. So the
 * two families never share a key, clients of one prefix always do, and
 * queries of different subnets do not coalesce. A client that sent ECS
 * gets it back with the answer's scope (7.2.2).
 */
#ifndef STEERLAB_RESOLVERD_ITER_H
#define STEERLAB_RESOLVERD_ITER_H

#include <libknot/libknot.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#include "msg.h"
#include "resolver.h"

#define RSV_ITER_MAX_QUERIES 32 /* per walk, every attempt counted */
#define RSV_ITER_DEPTH 3	/* the goal, and two NS names without glue */

struct rsv_pending;

#define RSV_ITER_ECS_MAX 24	   /* the longest IPv4 prefix passed on */
#define RSV_ITER_ECS_CLASS 0xff00  /* + the prefix length: a scoped key's class */
#define RSV_ITER_ECS6_MAX 56	   /* the longest IPv6 prefix passed on (RFC 7871) */
#define RSV_ITER_ECS6_CLASS 0xff80 /* + the prefix length: an IPv6 scoped key's class */

/* a client's subnet: IPv4, or IPv6 if v6 */
struct rsv_ecs {
	struct in_addr addr;   /* masked to source */
	uint8_t source;	       /* 1..24; IPv6: 1..56 */
	uint8_t v6;	       /* IPv6: addr6 */
	struct in6_addr addr6; /* masked to source */
};

/* The cache side (iter_cache.c): what a client's lookup finds. */

/* rsv_iter_client_ecs: the subnet to pass on for client who's query q (ecs
 * = yes), in e. 1, or 0 if none is (SOURCE 0, or TCP without ECS). */
int rsv_iter_client_ecs(const knot_pkt_t *q, const struct rsv_client *who, struct rsv_ecs *e);

/* rsv_iter_scoped_key: k scoped to addr cut to scope bits, in out. 0, or
 * -1 if the name would be too long (then k is not scoped). */
int rsv_iter_scoped_key(const struct rsv_key *k, struct in_addr addr, uint8_t scope,
			struct rsv_key *out);

/* rsv_iter_ecs_key: k scoped to e's address (of its family) cut to scope
 * bits, in out. 0, or -1 if the name would be too long or scope is out of
 * the family's range (then k is not scoped). */
int rsv_iter_ecs_key(const struct rsv_key *k, const struct rsv_ecs *e, uint8_t scope,
		     struct rsv_key *out);

/* rsv_iter_key_scope: the prefix length k is scoped to (the family in *v6,
 * if not NULL), or 0 for a plain key. */
int rsv_iter_key_scope(const struct rsv_key *k, int *v6);

/* rsv_iter_key_ecs: if k is a scoped key, the plain key in plain, its
 * subnet in e (source: the scope) and 1; 0 if it is not one. */
int rsv_iter_key_ecs(const struct rsv_key *k, struct rsv_key *plain, struct rsv_ecs *e);

/* rsv_iter_lookup: what in's cache holds for k and a client of subnet e
 * (NULL: no ECS): the scoped entries first, then the plain one, then an
 * expired scoped one. The key of the entry found (k if none), in lk. A miss
 * is resolved under k scoped to e's source (rsv_iter_ecs_key). */
void rsv_iter_lookup(struct rsv_inst *in, const struct rsv_key *k, const struct rsv_ecs *e,
		     struct rsv_lookup *l, struct rsv_key *lk);

/* rsv_iter_start: begins the walk of p (p->key, p->reason set, in the
 * tables) and sends its first query. 0, or -1 (out of memory: p is left
 * for the caller to release). */
int rsv_iter_start(struct rsv_pending *p);

/* rsv_iter_answer: r (wire/len), the answer to p's current query. Returns
 * 1 when p is done (its waiters answered: release it), 0 when the walk
 * goes on. */
int rsv_iter_answer(struct rsv_pending *p, const knot_pkt_t *r, const uint8_t *wire, size_t len);

/* rsv_iter_attempt_failed: p's current attempt timed out or failed: the
 * next server, or the walk fails (p's waiters answered stale or SERVFAIL).
 * Returns 1 when p is done, 0 when the walk goes on. */
int rsv_iter_attempt_failed(struct rsv_pending *p);

/* rsv_iter_wire: the wire of p's current query, with the client's subnet
 * when it asks the full question (ecs = yes), in out. Its length, or -1. */
int rsv_iter_wire(const struct rsv_pending *p, uint8_t *out, size_t max);

/* rsv_iter_free: p's walk, when p is released. */
void rsv_iter_free(struct rsv_pending *p);

/* rsv_iter_zone: the zone cut p's current query is for, as text ("." for
 * the root), in buf. */
const char *rsv_iter_zone(const struct rsv_pending *p, char *buf, size_t len);

/* rsv_iter_echo: if the client's query q has an ECS option (either
 * family), the option to echo in its answer in echo: its family, address
 * and source, scope (RFC 7871 7.2.2). 1, or 0 if q has none. */
int rsv_iter_echo(const knot_pkt_t *q, struct rsv_msg_ecs *echo, uint8_t scope);

/* rsv_iter_cached: the answer to q (plain key k, a client of subnet e or
 * NULL) from in's cache, the chain followed from k: every link fresh (stale = 0), or, after a
 * failed walk, each link fresh or still allowed stale (stale = 1, each stale link with stale_ttl).
 * Returns its length, 0 if a link is missing (a miss), -1 on error. */
int rsv_iter_cached(struct rsv_inst *in, const knot_pkt_t *q, const struct rsv_key *k, int stale,
		    const struct rsv_ecs *e, uint8_t *out, size_t max);

#endif
