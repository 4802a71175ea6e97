/* Steering policies; see policy.h. */
#include "policy.h"

#include <string.h>

#include "rng.h"

void authd_client_from_sockaddr(struct authd_client *c, const struct sockaddr *sa)
{
	static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

	memset(c, 0, sizeof(*c));
	if (sa == NULL)
		return;
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)sa;

		c->family = AF_INET;
		memcpy(c->addr, &sin->sin_addr, 4);
		c->source_len = 32;
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)sa;

		if (memcmp(sin6->sin6_addr.s6_addr, mapped, 12) == 0) {
			c->family = AF_INET;
			memcpy(c->addr, sin6->sin6_addr.s6_addr + 12, 4);
			c->source_len = 32;
		} else {
			c->family = AF_INET6;
			memcpy(c->addr, sin6->sin6_addr.s6_addr, 16);
			c->source_len = 128;
		}
	}
}

/* authd_client_in: is the client's network inside e? Only if it knows at
 * least e's bits. */
static int authd_client_in(const struct addr_prefix *e, const struct authd_client *c)
{
	return c->family == e->family && e->len <= c->source_len &&
	       authd_prefix_match(e, c->family, c->addr);
}

/* authd_common_bits: leading bits a and b share, at most max. */
static int authd_common_bits(const uint8_t *a, const uint8_t *b, int max)
{
	int n = 0;

	for (int i = 0; n < max; i++) {
		uint8_t x = a[i] ^ b[i];

		if (x == 0) {
			n += 8;
			continue;
		}
		while (!(x & 0x80)) {
			x <<= 1;
			n++;
		}
		break;
	}
	return n < max ? n : max;
}

/* authd_scope_widen: the scope (RFC 7871) must keep every more specific
 * entry that does not hold the client outside the block the answer is
 * claimed for: the block of the first `scope` bits of the client's
 * address. */
static void authd_scope_widen(uint8_t *scope, int best_len, const struct addr_prefix *e,
			      const struct authd_client *c)
{
	int cb, need;

	if (e->family != c->family || e->len <= best_len || authd_client_in(e, c))
		return;
	cb = authd_common_bits(e->addr, c->addr, e->len);
	if (cb < best_len)
		return; /* outside the block already */
	need = cb + 1 < e->len ? cb + 1 : e->len;
	if (need > *scope)
		*scope = (uint8_t)need;
}

static int authd_usable(const struct authd_name *nm, const struct authd_site *sites, int slot,
			int fam)
{
	return sites[nm->sites[slot]].naddr[fam] > 0;
}

/* authd_weighed: slot is one the policy may hand out by weight: any slot
 * of a policy without weights, a slot of weight above 0 of a weighted one */
static int authd_weighed(const struct authd_name *nm, int slot)
{
	return nm->policy != AUTHD_WEIGHTED || nm->weight[slot] > 0;
}

int authd_name_weighted(const struct authd_name *nm)
{
	for (int i = 0; i < nm->nsites; i++)
		if (nm->weight[i] > 0)
			return 1;
	return 0;
}

static int authd_healthy(const struct authd_name *nm, const struct authd_health *h, int slot)
{
	return h == NULL || h->healthy[nm->sites[slot]];
}

static void authd_pick_add(struct authd_pick *p, int slot)
{
	for (int i = 0; i < p->n; i++)
		if (p->slot[i] == slot)
			return;
	if (p->n < AUTHD_MAX_SITES)
		p->slot[p->n++] = slot;
}

/* authd_first: the first usable slot of order[] that is healthy (or any,
 * when healthy is 0). -1 if none. */
static int authd_first(const struct authd_name *nm, const struct authd_site *sites,
		       const struct authd_health *h, int fam, const int *order, int n, int healthy)
{
	for (int i = 0; i < n; i++)
		if (authd_usable(nm, sites, order[i], fam) &&
		    (!healthy || authd_healthy(nm, h, order[i])))
			return order[i];
	return -1;
}

/* authd_geo_fallback: with a fallback map, each slot of order[] (n) is
 * followed by its chain of fallbacks (A's, then that one's...), each slot
 * once: a dead region's users go where the map says before the rest of
 * the order. Returns the new count. */
static int authd_geo_fallback(const struct authd_name *nm, int *order, int n)
{
	int out[AUTHD_MAX_SITES], k = 0;
	uint64_t used = 0;

	for (int i = 0; i < n; i++)
		for (int s = order[i]; s != -1 && !(used & (1ULL << s)); s = nm->fallback[s] - 1) {
			used |= 1ULL << s;
			out[k++] = s;
		}
	memcpy(order, out, (size_t)k * sizeof(*out));
	return k;
}

/* authd_geo_order: the slots a geolocation querier may get, best first:
 * its matching entries, most specific first, then the default, then every
 * site (the fallback when those are dead). Empty when nothing matches and
 * there is no default. Returns the count. */
static int authd_geo_order(const struct authd_name *nm, const struct authd_client *c, int *order,
			   uint8_t *scope)
{
	int n = 0, best = -1;
	uint8_t used[AUTHD_MAX_SITES / 8 + 1] = {0};
	int last_len = 1000;

	for (;;) {
		int pick = -1;

		for (int i = 0; i < nm->ngeo; i++) {
			const struct authd_geo *g = &nm->geo[i];

			if (!authd_client_in(&g->net, c) || g->net.len >= last_len)
				continue;
			if (pick == -1 || g->net.len > nm->geo[pick].net.len)
				pick = i;
		}
		if (pick == -1)
			break;
		if (best == -1)
			best = pick;
		last_len = nm->geo[pick].net.len;
		/* entries of the same prefix length: configuration order */
		for (int i = 0; i < nm->ngeo; i++) {
			const struct authd_geo *g = &nm->geo[i];

			if (g->net.len == last_len && authd_client_in(&g->net, c) &&
			    !(used[g->site / 8] & (1 << (g->site % 8)))) {
				used[g->site / 8] |= (uint8_t)(1 << (g->site % 8));
				order[n++] = g->site;
			}
		}
	}
	*scope = best == -1 ? 0 : nm->geo[best].net.len;
	for (int i = 0; i < nm->ngeo; i++)
		authd_scope_widen(scope, best == -1 ? 0 : nm->geo[best].net.len, &nm->geo[i].net,
				  c);
	if (best == -1 && nm->default_site == -1)
		return 0;
	if (nm->default_site != -1)
		order[n++] = nm->default_site;
	for (int i = 0; i < nm->nsites; i++)
		order[n++] = i;
	return authd_geo_fallback(nm, order, n);
}

/* authd_vantage_of: the prober whose RTTs stand for c's network, or -1. */
static int authd_vantage_of(const struct authd_name *nm, const struct authd_client *c,
			    uint8_t *scope)
{
	int best = -1;

	for (int i = 0; i < nm->nvantage; i++)
		if (authd_client_in(&nm->vantage[i].net, c) &&
		    (best == -1 || nm->vantage[i].net.len > nm->vantage[best].net.len))
			best = i;
	*scope = best == -1 ? 0 : nm->vantage[best].net.len;
	for (int i = 0; i < nm->nvantage; i++)
		authd_scope_widen(scope, best == -1 ? 0 : nm->vantage[best].net.len,
				  &nm->vantage[i].net, c);
	return best == -1 ? -1 : nm->vantage[best].prober;
}

/* authd_lowest_rtt: among usable slots (healthy ones, unless healthy is
 * 0), the lowest RTT prober reports; ties and unknown RTTs go to the
 * earlier slot. -1 if none. */
static int authd_lowest_rtt(const struct authd_name *nm, const struct authd_site *sites,
			    const struct authd_health *h, int fam, int prober, int healthy)
{
	int best = -1;
	uint32_t best_rtt = AUTHD_RTT_NONE;

	for (int i = 0; i < nm->nsites; i++) {
		uint32_t rtt;

		if (!authd_usable(nm, sites, i, fam) || (healthy && !authd_healthy(nm, h, i)))
			continue;
		rtt = h ? authd_health_rtt(h, prober, nm->sites[i]) : AUTHD_RTT_NONE;
		if (best == -1 || rtt < best_rtt) {
			best = i;
			best_rtt = rtt;
		}
	}
	return best;
}

/* authd_closest: among usable healthy slots, the one measured closest to
 * proximity table entry q (the earlier slot on a tie); -1 if no such slot
 * has a measurement */
static int authd_closest(const struct authd_name *nm, const struct authd_site *sites,
			 const struct authd_health *h, int fam, int q)
{
	int best = -1;
	uint32_t best_rtt = AUTHD_RTT_NONE;

	if (h == NULL || q < 0)
		return -1;
	for (int i = 0; i < nm->nsites; i++) {
		uint32_t rtt = h->prox[q].rtt[nm->sites[i]];

		if (rtt == AUTHD_RTT_NONE || !authd_usable(nm, sites, i, fam) ||
		    !authd_healthy(nm, h, i))
			continue;
		if (best == -1 || rtt < best_rtt) {
			best = i;
			best_rtt = rtt;
		}
	}
	return best;
}

void authd_policy_select(const struct authd_name *nm, int fam, const struct authd_client *c,
			 const struct authd_health *h, const struct authd_site *sites,
			 enum authd_all_dead server, struct authd_pick *out)
{
	int closed =
	    (nm->all_dead == AUTHD_FAIL_DEFAULT ? server : nm->all_dead) == AUTHD_FAIL_CLOSED;
	int order[3 * AUTHD_MAX_SITES + 1], n, s, prober;

	out->n = 0;
	out->scope = 0;
	switch (nm->policy) {
	case AUTHD_SIMPLE:
	case AUTHD_MULTIVALUE:
	case AUTHD_WEIGHTED:
		/* a weighted site of weight 0 is in no one's answer */
		for (int i = 0; i < nm->nsites; i++)
			if (authd_usable(nm, sites, i, fam) && authd_healthy(nm, h, i) &&
			    authd_weighed(nm, i))
				authd_pick_add(out, i);
		if (out->n == 0 && !closed)
			for (int i = 0; i < nm->nsites; i++)
				if (authd_usable(nm, sites, i, fam) && authd_weighed(nm, i))
					authd_pick_add(out, i);
		return;
	case AUTHD_FAILOVER:
		for (int i = 0; i < nm->nsites; i++)
			order[i] = i;
		s = authd_first(nm, sites, h, fam, order, nm->nsites, 1);
		if (s == -1 && !closed)
			s = authd_first(nm, sites, h, fam, order, nm->nsites, 0);
		break;
	case AUTHD_GEOLOCATION:
		n = authd_geo_order(nm, c, order, &out->scope);
		s = authd_first(nm, sites, h, fam, order, n, 1);
		if (s == -1 && !closed)
			s = authd_first(nm, sites, h, fam, order, n, 0);
		break;
	case AUTHD_PROXIMITY:
		/* the closest live site measured; else, as the seed's PDNS
		 * without its database, round robin over the live ones. With
		 * tiers: every live site of the closest one's tier, else of
		 * every tier (the tiers in turn: authd_policy_tier) */
		out->scope = c->family == AF_INET ? c->source_len : 0;
		s = authd_closest(nm, sites, h, fam,
				  authd_health_prox_of(h, c->family, c->addr, c->source_len));
		if (s != -1 && nm->ntiers == 0)
			break;
		for (int i = 0; i < nm->nsites; i++)
			if (authd_usable(nm, sites, i, fam) && authd_healthy(nm, h, i) &&
			    (s == -1 || nm->tier_of[i] == nm->tier_of[s]))
				authd_pick_add(out, i);
		if (out->n == 0 && !closed)
			for (int i = 0; i < nm->nsites; i++)
				if (authd_usable(nm, sites, i, fam))
					authd_pick_add(out, i);
		return;
	case AUTHD_LATENCY:
		prober = authd_vantage_of(nm, c, &out->scope);
		s = authd_lowest_rtt(nm, sites, h, fam, prober, 1);
		if (s == -1 && !closed)
			s = authd_lowest_rtt(nm, sites, h, fam, prober, 0);
		break;
	default:
		return;
	}
	if (s != -1)
		authd_pick_add(out, s);
}

int authd_policy_tier(struct authd_name *nm, int fam, const struct authd_pick *p)
{
	int tiers[AUTHD_MAX_SITES], n = 0;

	for (int i = 0; i < p->n; i++) {
		int t = nm->tier_of[p->slot[i]], seen = 0;

		for (int k = 0; k < n; k++)
			seen |= tiers[k] == t;
		if (!seen)
			tiers[n++] = t;
	}
	if (n == 0)
		return -1;
	return n == 1 ? tiers[0] : tiers[nm->rr_pos[fam]++ % (unsigned)n];
}

int authd_policy_weighted_pick(struct authd_name *nm, int fam, const struct authd_pick *p,
			       uint64_t *rng)
{
	int64_t total = 0, *cur = nm->swrr[fam];
	int best = -1;

	if (p->n == 0)
		return -1;
	/* a pattern: its next entry that is eligible, the ones skipped
	 * consumed; none of its sites eligible: the weights below */
	for (int k = 0; k < nm->npattern; k++) {
		int s = nm->pattern[nm->pattern_pos[fam]++ % (unsigned)nm->npattern];

		for (int i = 0; i < p->n; i++)
			if (p->slot[i] == s)
				return s;
	}
	if (nm->weighted_random) {
		uint64_t r;

		for (int i = 0; i < p->n; i++)
			total += nm->weight[p->slot[i]];
		r = rng_next(rng) % (uint64_t)total;
		for (int i = 0; i < p->n; i++) {
			uint64_t w = nm->weight[p->slot[i]];

			if (r < w)
				return p->slot[i];
			r -= w;
		}
		return p->slot[p->n - 1];
	}
	/* nginx's smooth weighted round robin over the eligible sites */
	for (int i = 0; i < p->n; i++) {
		int s = p->slot[i];

		cur[s] += nm->weight[s];
		total += nm->weight[s];
		if (best == -1 || cur[s] > cur[best])
			best = s;
	}
	cur[best] -= total;
	return best;
}

static int authd_add_site_records(const struct authd_site *site, int fam, const knot_rdata_t **out,
				  int n, int max)
{
	const knot_rdata_t *rd = site->rrs[fam].rdata;

	for (int k = 0; k < site->rrs[fam].count && n < max; k++) {
		out[n++] = rd;
		rd = knot_rdataset_next((knot_rdata_t *)rd);
	}
	return n;
}

int authd_policy_records(struct authd_name *nm, int fam, const struct authd_pick *p,
			 const struct authd_site *sites, uint64_t *rng, const knot_rdata_t **out,
			 int max)
{
	int n = 0, keep;

	if (nm->policy == AUTHD_WEIGHTED) {
		int s = authd_policy_weighted_pick(nm, fam, p, rng);

		return s == -1 ? 0 : authd_add_site_records(&sites[nm->sites[s]], fam, out, 0, max);
	}
	if (nm->policy == AUTHD_PROXIMITY && p->n > 1) {
		int s = p->slot[nm->rr_pos[fam]++ % (unsigned)p->n];

		return authd_add_site_records(&sites[nm->sites[s]], fam, out, 0, max);
	}
	for (int i = 0; i < p->n; i++)
		n = authd_add_site_records(&sites[nm->sites[p->slot[i]]], fam, out, n, max);
	if (nm->policy != AUTHD_MULTIVALUE)
		return n;
	/* a random AUTHD_MULTIVALUE_MAX of them, in random order */
	keep = n < AUTHD_MULTIVALUE_MAX ? n : AUTHD_MULTIVALUE_MAX;
	for (int i = 0; i < keep; i++) {
		int j = i + (int)(rng_next(rng) % (uint64_t)(n - i));
		const knot_rdata_t *t = out[i];

		out[i] = out[j];
		out[j] = t;
	}
	return keep;
}
