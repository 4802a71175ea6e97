/*
 * The delegation cache of an iterating resolver: what it learnt of the zone
 * cuts from referrals, kept in a struct rsv_cache of its own (cache.h, so
 * the same expiry, clamps and LRU bound), apart from the answers clients
 * get.
 *
 *   (CUT, NS)      the referral's NS RRset for the cut (the message
 *                  rsv_iter_synth() builds: NS in the answer section, the
 *                  glue in the additional one), stored for the NS TTL
 *   (NSNAME, A)    each server's addresses: the referral's glue, or what
 *                  the walk resolved for an NS name without glue, each
 *                  stored for its own TTL
 *   (NSNAME, AAAA) the same for a walk over IPv6 (transport = 6), whose
 *                  referrals keep the AAAA glue instead of the A glue
 *
 * The walk asks the closest cut it knows fresh: rsv_deleg_closest() looks
 * up (name, NS), then the parent's, up to the root (which is not stored:
 * the root hints stand for it). A cut whose every server address has
 * expired still names its servers, so the walk can resolve them.
 */
#ifndef STEERLAB_RESOLVERD_DELEG_H
#define STEERLAB_RESOLVERD_DELEG_H

#include <libknot/libknot.h>
#include <netinet/in.h>
#include <stdint.h>

#include "cache.h"
#include "iter_msg.h"

struct rsv_deleg_servers {
	knot_dname_storage_t cut;		/* lower case; the root if none is known */
	struct in_addr addr[RSV_ITER_NS_MAX];	/* the fresh addresses of its servers */
	struct in6_addr addr6[RSV_ITER_NS_MAX]; /* rsv_deleg_closest_type AAAA: instead */
	int naddr;
	knot_dname_storage_t missing[RSV_ITER_NS_MAX]; /* NS names without one */
	int nmissing;
};

/* rsv_deleg_cfg: the delegation cache's configuration from a resolver's:
 * the same TTL clamps and size, no phase, prefetch or serve-stale. */
void rsv_deleg_cfg(struct rsv_cache_cfg *out, const struct rsv_cache_cfg *in);

/* rsv_deleg_store: stores a referral as rsv_iter_synth() wrote it (msg,
 * len): the cut's NS RRset and each glue RRset (A or AAAA) with its own
 * TTL. 0, or -1 (not a referral message, or out of memory). */
int rsv_deleg_store(struct rsv_cache *c, const uint8_t *msg, size_t len, int64_t now);

/* rsv_deleg_store_addr: the addresses of an NS name, a's owner: every
 * record of a's type (A or AAAA) of r's section sec at that owner (the glue
 * of a referral, or what the walk resolved), for their smallest TTL. 0, or
 * -1. */
int rsv_deleg_store_addr(struct rsv_cache *c, const knot_pkt_t *r, knot_section_t sec,
			 const knot_rrset_t *a, int64_t now);

/* rsv_deleg_closest: the closest cut at or above name that c holds fresh,
 * with its servers' fresh addresses and the NS names that have none, in
 * s. Returns 1, or 0 if c knows no cut for name (s->cut is then the root
 * and s holds nothing else). */
int rsv_deleg_closest(struct rsv_cache *c, const knot_dname_t *name, int64_t now,
		      struct rsv_deleg_servers *s);

/* rsv_deleg_closest_type: rsv_deleg_closest with the servers' addresses
 * of type (A: in s->addr, as rsv_deleg_closest; AAAA: in s->addr6); an NS
 * name is missing when it has none of that type. */
int rsv_deleg_closest_type(struct rsv_cache *c, const knot_dname_t *name, uint16_t type,
			   int64_t now, struct rsv_deleg_servers *s);

#endif
