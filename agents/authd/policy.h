/*
 * Steering policies: which sites a [name] hands out, to whom
 * (docs/authd.md, "Policies").
 *
 * An answer is chosen in two steps. authd_policy_select() decides the sites
 * a querier may get for one address family: it depends only on the
 * configuration, the health state and the querier's network, so
 * handout.c can ask it what a name hands out right now. Then
 * authd_policy_records() makes one answer from that choice: the weighted
 * pick, the multivalue shuffle, and the addresses of the chosen sites.
 *
 * Every policy consults health: a dead site is never chosen while a healthy
 * candidate exists; geolocation's fallback map says which one takes a dead
 * site's users first. When every candidate is dead, fail-open runs the policy
 * as if all were healthy and fail-closed chooses nothing (NODATA).
 */
#ifndef STEERLAB_AUTHD_POLICY_H
#define STEERLAB_AUTHD_POLICY_H

#include <stdint.h>

#include "db.h"
#include "health.h"

/* what the answer may depend on: the querier's network */
struct authd_client {
	int family; /* AF_INET, AF_INET6, or 0: unknown */
	uint8_t addr[16];
	uint8_t source_len; /* the known leading bits: the ECS source prefix, or 32/128 */
};

struct authd_pick {
	int n;
	int slot[AUTHD_MAX_SITES]; /* indexes into the name's sites[], in answer order */
	uint8_t scope;		   /* the ECS scope prefix length the choice holds for */
};

/* authd_policy_select: the sites nm hands out to c for family fam
 * (AUTHD_V4/AUTHD_V6): only sites with addresses of that family. server is
 * the [server] all_dead, used unless the name overrides it. */
void authd_policy_select(const struct authd_name *nm, int fam, const struct authd_client *c,
			 const struct authd_health *h, const struct authd_site *sites,
			 enum authd_all_dead server, struct authd_pick *out);

/* authd_policy_records: one answer's records from a selection: weighted
 * picks one site (the pattern's next eligible entry if it has one, else
 * smooth weighted round robin, updating nm's counters, or random), proximity
 * with several candidates (no measurement) the next in turn, multivalue shuffles and keeps
 * AUTHD_MULTIVALUE_MAX, the others take every address of every chosen site in order. Fills out[]
 * with pointers into the sites' rdatasets (at most max) and returns the count. rng is a xorshift64
 * state (non-zero). */
int authd_policy_records(struct authd_name *nm, int fam, const struct authd_pick *p,
			 const struct authd_site *sites, uint64_t *rng, const knot_rdata_t **out,
			 int max);

/* authd_policy_tier: a tiered proximity name's answer from a selection:
 * the tier of its sites, or with sites of several tiers (no measurement)
 * the next of those tiers in turn; -1 if p is empty. */
int authd_policy_tier(struct authd_name *nm, int fam, const struct authd_pick *p);

/* authd_policy_weighted_pick: the weighted step alone: a slot of p, or -1
 * if p is empty. */
int authd_policy_weighted_pick(struct authd_name *nm, int fam, const struct authd_pick *p,
			       uint64_t *rng);

/* authd_name_weighted: whether a weighted name has a site of weight above
 * 0 (a site of weight 0 is handed out to no one: drained by weight). */
int authd_name_weighted(const struct authd_name *nm);

/* authd_client_from_sockaddr: the querier as its source address says
 * (IPv4-mapped IPv6 as IPv4). */
void authd_client_from_sockaddr(struct authd_client *c, const struct sockaddr *sa);

#endif
