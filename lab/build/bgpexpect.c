/*
 * Where BGP should converge; see lab.h.
 *
 * A synchronous path-vector computation: sites hold their own route (an
 * empty AS path), and in each round every router takes the best of what
 * its neighbours held in the round before, as each would announce it to
 * it (its AS, prepended as the site or the [link] says, before its path).
 * It stops when a round changes nothing; a policy that never settles
 * (local preferences can make one: RFC 3345) is "not known" after as many
 * rounds as twice the nodes. So is a tie between two different AS paths
 * at any router: FRR keeps the older route, which the topology does not
 * say, and the routers beyond may choose by it.
 */
#include "lab.h"

#include <stdlib.h>
#include <string.h>

#define BGPX_PATH_MAX 128
#define BGPX_LP_DEFAULT 100

struct bgpx_path {
	int have;
	unsigned lp, len, med;
	unsigned as[BGPX_PATH_MAX]; /* the AS path, first hop first */
	int nvia;
	int via_node[BGPX_MAX_VIA];
	struct in_addr via[BGPX_MAX_VIA];
	int mixed; /* tied with different AS paths: which one it passes on is FRR's choice */
};

/* bgpx_ibgp: two linked routers share an AS */
static int bgpx_ibgp(const struct topology *t)
{
	for (int j = 0; j < t->nrlinks; j++)
		if (topo_node_asn(t, t->rlinks[j].a) == topo_node_asn(t, t->rlinks[j].b))
			return 1;
	return 0;
}

/* bgpx_offer: the route neighbour nb of router r offers it, from what nb
 * holds (from), into o. 0 if none. */
static int bgpx_offer(const struct topology *t, int r, const struct frrconf_neighbor *nb,
		      const struct bgpx_path *from, struct bgpx_path *o)
{
	unsigned asn = topo_node_asn(t, nb->node), prepend = 0, lp = BGPX_LP_DEFAULT;
	const struct topo_rlink *rl = nb->rlink >= 0 ? &t->rlinks[nb->rlink] : NULL;

	if (!from->have)
		return 0;
	for (unsigned i = 0; i < from->len; i++)
		if (from->as[i] == topo_node_asn(t, r))
			return 0; /* a loop: r's own AS is on it */
	if (t->nodes[nb->node].kind == TOPO_SITE)
		prepend = t->nodes[nb->node].prepend;
	else if (rl)
		prepend = rl->prepend[rl->a == nb->node ? 0 : 1];
	if (rl && rl->local_pref[rl->a == r ? 0 : 1])
		lp = rl->local_pref[rl->a == r ? 0 : 1];
	if (from->len + 1 + prepend > BGPX_PATH_MAX)
		return 0;
	o->have = 1;
	o->lp = lp;
	o->len = from->len + 1 + prepend;
	/* MED: a site's metric, to its router only (not passed on) */
	o->med = t->nodes[nb->node].kind == TOPO_SITE ? t->nodes[nb->node].metric : 0;
	for (unsigned i = 0; i <= prepend; i++)
		o->as[i] = asn;
	memcpy(o->as + 1 + prepend, from->as, from->len * sizeof(from->as[0]));
	o->nvia = 1;
	o->via_node[0] = nb->node;
	o->via[0] = nb->addr;
	return 1;
}

/* bgpx_cmp: < 0 if a is better than b, 0 if BGP's deterministic steps tie */
static int bgpx_cmp(const struct bgpx_path *a, const struct bgpx_path *b)
{
	if (a->lp != b->lp)
		return a->lp > b->lp ? -1 : 1;
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	if (a->med != b->med)
		return a->med < b->med ? -1 : 1;
	return 0;
}

static int bgpx_same(const struct bgpx_path *a, const struct bgpx_path *b)
{
	if (a->have != b->have)
		return 0;
	if (!a->have)
		return 1;
	return bgpx_cmp(a, b) == 0 && a->nvia == b->nvia &&
	       memcmp(a->via_node, b->via_node, (size_t)a->nvia * sizeof(a->via_node[0])) == 0 &&
	       memcmp(a->as, b->as, a->len * sizeof(a->as[0])) == 0;
}

/* bgpx_round: every router's best from cur into next; 1 if one changed */
static int bgpx_round(const struct topology *t, const struct bgpx_path *cur, struct bgpx_path *next,
		      struct frrconf_neighbor *nb)
{
	static struct bgpx_path offer;
	int changed = 0;

	for (int r = 0; r < t->nnodes; r++) {
		struct bgpx_path *best = &next[r];
		int nn;

		if (t->nodes[r].kind != TOPO_ROUTER) {
			next[r] = cur[r];
			continue;
		}
		memset(best, 0, sizeof(*best));
		nn = frrconf_neighbors(t, r, nb, TOPO_MAX_NODES);
		for (int i = 0; i < nn; i++) {
			if (!bgpx_offer(t, r, &nb[i], &cur[nb[i].node], &offer))
				continue;
			if (!best->have || bgpx_cmp(&offer, best) < 0)
				*best = offer;
			else if (bgpx_cmp(&offer, best) == 0 && best->nvia < BGPX_MAX_VIA) {
				best->via_node[best->nvia] = offer.via_node[0];
				best->via[best->nvia++] = offer.via[0];
				best->mixed |= memcmp(offer.as, best->as,
						      best->len * sizeof(best->as[0])) != 0;
			}
		}
		changed |= !bgpx_same(best, &cur[r]);
	}
	return changed;
}

int bgpx_compute(const struct topology *t, int without, struct bgpx *x)
{
	return bgpx_compute_door(t, without, t->service, x);
}

int bgpx_compute_door(const struct topology *t, int without, struct in_addr door, struct bgpx *x)
{
	struct bgpx_path *cur, *next, *tmp;
	struct frrconf_neighbor *nb;
	int settled = 0;

	memset(x, 0, sizeof(*x));
	if (t->routing != TOPO_ROUTING_BGP || bgpx_ibgp(t))
		return 0;
	cur = calloc((size_t)t->nnodes, sizeof(*cur));
	next = calloc((size_t)t->nnodes, sizeof(*next));
	nb = calloc(TOPO_MAX_NODES, sizeof(*nb));
	if (cur == NULL || next == NULL || nb == NULL) {
		free(cur);
		free(next);
		free(nb);
		return -1;
	}
	for (int n = 0; n < t->nnodes; n++)
		cur[n].have = t->nodes[n].kind == TOPO_SITE && n != without &&
			      topo_site_service(t, n).s_addr == door.s_addr;
	for (int round = 0; round < 2 * t->nnodes + 2 && !settled; round++) {
		settled = !bgpx_round(t, cur, next, nb);
		tmp = cur;
		cur = next;
		next = tmp;
	}
	/* a tie between different AS paths: what the router passes on, and
	 * so its neighbours' choices, depend on which route came first */
	for (int r = 0; settled && r < t->nnodes; r++)
		if (cur[r].mixed)
			settled = 0;
	x->known = settled;
	for (int r = 0; settled && r < t->nnodes; r++) {
		if (t->nodes[r].kind != TOPO_ROUTER)
			continue;
		x->r[r].have = cur[r].have;
		x->r[r].lp = cur[r].lp;
		x->r[r].len = cur[r].len;
		x->r[r].med = cur[r].med;
		x->r[r].nvia = cur[r].nvia;
		memcpy(x->r[r].via_node, cur[r].via_node, sizeof(cur[r].via_node));
		memcpy(x->r[r].via, cur[r].via, sizeof(cur[r].via));
	}
	free(cur);
	free(next);
	free(nb);
	return 0;
}

int bgpx_via_ok(const struct bgpx *x, int r, struct in_addr via)
{
	for (int i = 0; i < x->r[r].nvia; i++)
		if (x->r[r].via[i].s_addr == via.s_addr)
			return 1;
	return 0;
}
