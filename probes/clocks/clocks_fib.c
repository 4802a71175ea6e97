/*
 * The FIB clocks (docs/clocks.md, "FIB clocks"), computed from a loaded run
 * with no I/O. Every router's collector records its route to the service
 * prefix as the kernel announces it (route_added, route_deleted, with op
 * add, replace, append, del, and present for what the FIB held when the
 * collector started), whatever protocol installed it: routed (252), FRR's
 * bgpd through zebra (186), by hand. Per router, replaying those events:
 *
 *   its FIB's routes to the service, keyed by metric as the kernel keys
 *   them; the route used is the one of the lowest metric
 *   changes      its route events at or after t0 (each one kernel
 *                notification) that changed its table (a route installed
 *                again as it was is none), path_changes those that changed
 *                the route used (its next hops)
 *   first, final the first and the last of them
 *   before       the route used just before t0, after: after the final one;
 *                each with the site its next hop leads to: the next hop's
 *                node (lab_up's addresses), and if that is a router, that
 *                router's route used at the same moment, until a site
 *
 * Lab-wide: the first and the last change of any router, convergence = the
 * last router's final change - t0, path exploration = the routers with more
 * than one change. Events from the teardown on (lab_stopping) are not the
 * run's: a routing daemon stopped before the collector withdraws its routes.
 *
 * A failure the timeline recovers is two episodes: the failure, from t0 to
 * the recovery, and the fail-back, from the recovery to the end, each with
 * its own changes, convergence and path exploration (the route coming back
 * is no exploration of the failure's), each router's route before and
 * after it.
 */
#include "clocks_fib.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "clocks_int.h"

#define CLOCKS_FIB_ENTRIES 32	   /* routes of one prefix in one FIB */
#define CLOCKS_FOLLOW_MAX 32	   /* routers a next hop is followed through */
#define CLOCKS_FIB_MAX_ROUTERS 256 /* a lab's routers, and more */

/* one router's routes to the service prefix */
struct clocks_fib_table {
	int n;
	struct clocks_fib_route e[CLOCKS_FIB_ENTRIES];
};

/* clocks_fib_event: is route event rt one of the run's for the service
 * prefix of router (any router if NULL)? */
static int clocks_fib_event(const struct clocks_input *in, const struct clocks_route *rt,
			    const char *router)
{
	const struct clocks_failure *f = &in->failure;

	if (rt->prefixlen != f->prefixlen || rt->prefix.s_addr != f->prefix.s_addr)
		return 0;
	if (in->lab_stopping_ns != CLOCKS_NONE && rt->t_ns >= in->lab_stopping_ns)
		return 0;
	return router == NULL || strcmp(rt->node, router) == 0;
}

static struct clocks_fib_route *clocks_fib_find(struct clocks_fib_table *tb, int64_t metric)
{
	for (int i = 0; i < tb->n; i++)
		if (tb->e[i].metric == metric)
			return &tb->e[i];
	return NULL;
}

/* clocks_fib_apply: route event rt on table tb. Returns 1 if a route via
 * gone (when given) left the table: deleted, or replaced by one not via it. */
static int clocks_fib_apply(struct clocks_fib_table *tb, const struct clocks_route *rt,
			    const struct in_addr *gone)
{
	int64_t metric = rt->has_metric ? rt->metric : 0;
	struct clocks_fib_route *e = clocks_fib_find(tb, metric);
	int had = 0, has = 0;

	if (e && gone)
		for (int i = 0; i < e->nnh; i++)
			had |= e->nh[i].has_via && e->nh[i].via.s_addr == gone->s_addr;
	if (rt->op == CLOCKS_OP_DEL) {
		if (e) {
			*e = tb->e[--tb->n];
			return had;
		}
		return 0;
	}
	if (e == NULL) {
		if (tb->n == CLOCKS_FIB_ENTRIES)
			return 0;
		e = &tb->e[tb->n++];
		memset(e, 0, sizeof(*e));
	} else if (rt->op != CLOCKS_OP_APPEND) {
		e->nnh = 0;
	}
	e->present = 1;
	e->metric = metric;
	e->protocol = rt->protocol;
	for (int i = 0; i < rt->nnh && e->nnh < CLOCKS_MAX_NEXTHOPS; i++)
		e->nh[e->nnh++] = rt->nh[i];
	if (gone)
		for (int i = 0; i < e->nnh; i++)
			has |= e->nh[i].has_via && e->nh[i].via.s_addr == gone->s_addr;
	return had && !has;
}

/* clocks_fib_used: the route the kernel uses, the lowest metric's */
static void clocks_fib_used(const struct clocks_fib_table *tb, struct clocks_fib_route *out)
{
	const struct clocks_fib_route *best = NULL;

	for (int i = 0; i < tb->n; i++)
		if (best == NULL || tb->e[i].metric < best->metric)
			best = &tb->e[i];
	if (best)
		*out = *best;
	else
		memset(out, 0, sizeof(*out));
}

/* clocks_fib_same: do two used routes forward the same way? */
static int clocks_fib_same(const struct clocks_fib_route *a, const struct clocks_fib_route *b)
{
	if (a->present != b->present || a->nnh != b->nnh)
		return 0;
	for (int i = 0; i < a->nnh; i++)
		if (a->nh[i].has_via != b->nh[i].has_via ||
		    a->nh[i].via.s_addr != b->nh[i].via.s_addr ||
		    strcmp(a->nh[i].dev, b->nh[i].dev) != 0)
			return 0;
	return 1;
}

/* clocks_fib_at: router's route used at until_ns (its events before it) */
static void clocks_fib_at(const struct clocks_input *in, const char *router, int64_t until_ns,
			  struct clocks_fib_route *out)
{
	static struct clocks_fib_table tb;

	tb.n = 0;
	for (size_t i = 0; i < in->nroutes; i++) {
		const struct clocks_route *rt = &in->routes[i];
		if (rt->t_ns < until_ns && clocks_fib_event(in, rt, router))
			clocks_fib_apply(&tb, rt, NULL);
	}
	clocks_fib_used(&tb, out);
}

static const struct clocks_addr_node *clocks_addr_node(const struct clocks_input *in,
						       struct in_addr a)
{
	for (size_t i = 0; i < in->naddrs; i++)
		if (in->addrs[i].addr.s_addr == a.s_addr)
			return &in->addrs[i];
	return NULL;
}

/* clocks_fib_site: the site route r of a router leads to at until_ns,
 * following routers' routes; "" if it cannot be told (no route, a next hop
 * of no known node, a loop) */
static void clocks_fib_site(const struct clocks_input *in, const struct clocks_fib_route *r,
			    int64_t until_ns, char *site)
{
	struct clocks_fib_route hop = *r;

	site[0] = '\0';
	for (int k = 0; k < CLOCKS_FOLLOW_MAX; k++) {
		const struct clocks_addr_node *a;

		if (!hop.present || hop.nnh == 0 || !hop.nh[0].has_via)
			return;
		if ((a = clocks_addr_node(in, hop.nh[0].via)) == NULL) {
			/* a run from before lab_up's addresses: site_failed's via
			 * is still the failed site's link address */
			if (in->naddrs == 0 && hop.nh[0].via.s_addr == in->failure.via.s_addr)
				snprintf(site, CLOCKS_NAME_MAX, "%s", in->failure.site);
			return;
		}
		if (a->is_site) {
			snprintf(site, CLOCKS_NAME_MAX, "%s", a->node);
			return;
		}
		if (!a->is_router)
			return;
		clocks_fib_at(in, a->node, until_ns, &hop);
	}
}

void clocks_fib_via_site(const struct clocks_input *in, struct in_addr via, int64_t at_ns,
			 char *site)
{
	struct clocks_fib_route r;

	memset(&r, 0, sizeof(r));
	r.present = 1;
	r.nnh = 1;
	r.nh[0].has_via = 1;
	r.nh[0].via = via;
	clocks_fib_site(in, &r, at_ns, site);
}

/* clocks_fib_entry_route: table entry e of router's FIB as a route event
 * of op del at t_ns: what left */
static void clocks_fib_entry_route(const struct clocks_fib_route *e, const struct clocks_route *rt,
				   struct clocks_route *out)
{
	*out = *rt;
	out->deleted = 1;
	out->op = CLOCKS_OP_DEL;
	out->has_metric = 1;
	out->metric = e->metric;
	out->protocol = e->protocol;
	out->nnh = e->nnh;
	memcpy(out->nh, e->nh, sizeof(e->nh[0]) * (size_t)e->nnh);
	out->has_via = e->nnh > 0 && e->nh[0].has_via;
	out->via = e->nnh > 0 ? e->nh[0].via : (struct in_addr){0};
}

void clocks_fib_left(const struct clocks_input *in, clocks_left_fn fn, void *arg)
{
	static struct clocks_fib_table tb;
	static struct clocks_route left;
	static char done[CLOCKS_FIB_MAX_ROUTERS][CLOCKS_NAME_MAX];
	int ndone = 0;

	for (size_t i = 0; i < in->nroutes; i++) {
		const char *router = in->routes[i].node;
		int seen = 0;

		for (int k = 0; k < ndone && !seen; k++)
			seen = strcmp(done[k], router) == 0;
		if (seen || !clocks_fib_event(in, &in->routes[i], NULL))
			continue;
		if (ndone == CLOCKS_FIB_MAX_ROUTERS)
			return; /* more routers than a lab has */
		snprintf(done[ndone++], CLOCKS_NAME_MAX, "%s", router);
		tb.n = 0;
		for (size_t j = i; j < in->nroutes; j++) {
			const struct clocks_route *rt = &in->routes[j];
			struct clocks_fib_route *e;
			struct clocks_fib_route now;

			if (!clocks_fib_event(in, rt, router))
				continue;
			e = clocks_fib_find(&tb, rt->has_metric ? rt->metric : 0);
			if (rt->op == CLOCKS_OP_DEL) {
				/* a route the collector never saw come: as it says */
				if (e)
					clocks_fib_entry_route(e, rt, &left);
				fn(in, e ? &left : rt, NULL, arg);
			} else if (e && rt->op != CLOCKS_OP_APPEND) {
				memset(&now, 0, sizeof(now));
				now.present = 1;
				now.nnh = rt->nnh;
				memcpy(now.nh, rt->nh, sizeof(rt->nh[0]) * (size_t)rt->nnh);
				if (!clocks_fib_same(e, &now)) {
					clocks_fib_entry_route(e, rt, &left);
					fn(in, &left, rt, arg);
				}
			}
			clocks_fib_apply(&tb, rt, NULL);
		}
	}
}

/* clocks_fib_router: the router's entry, added if new; NULL when full */
static struct clocks_router_fib *clocks_fib_router(struct clocks_fib *fib, const char *router)
{
	struct clocks_router_fib *r;

	for (int i = 0; i < fib->nrouters; i++)
		if (strcmp(fib->routers[i].router, router) == 0)
			return &fib->routers[i];
	if (fib->nrouters == CLOCKS_MAX_ROUTERS) {
		fib->lost_routers++;
		return NULL;
	}
	r = &fib->routers[fib->nrouters++];
	memset(r, 0, sizeof(*r));
	snprintf(r->router, sizeof(r->router), "%s", router);
	r->first_at_ns = r->final_at_ns = r->u_ns = CLOCKS_NONE;
	return r;
}

/* clocks_fib_replay: router r's changes in [from, until), those of the
 * failure (fail: a route via its link that left the FIB is steer) or of
 * the fail-back */
static void clocks_fib_replay(const struct clocks_input *in, struct clocks_fib *fib,
			      struct clocks_router_fib *r, int fail)
{
	static struct clocks_fib_table tb;
	const struct clocks_failure *f = &in->failure;
	struct clocks_fib_route used, now;

	tb.n = 0;
	memset(&used, 0, sizeof(used));
	for (size_t i = 0; i < in->nroutes; i++) {
		const struct clocks_route *rt = &in->routes[i];
		int after = rt->t_ns >= fib->from_ns && rt->t_ns < fib->until_ns;

		const struct clocks_fib_route *e;
		struct clocks_fib_route was;
		int changed;

		if (!clocks_fib_event(in, rt, r->router))
			continue;
		if (rt->t_ns >= fib->until_ns)
			continue;
		e = clocks_fib_find(&tb, rt->has_metric ? rt->metric : 0);
		if (e)
			was = *e;
		else
			memset(&was, 0, sizeof(was));
		if (clocks_fib_apply(&tb, rt, after && fail ? &f->via : NULL) &&
		    (fib->left_at_ns == CLOCKS_NONE || rt->t_ns < fib->left_at_ns))
			fib->left_at_ns = rt->t_ns;
		clocks_fib_used(&tb, &now);
		/* a deletion changes the FIB; a route added or replaced by the
		 * same one (a daemon installing it again) does not */
		e = clocks_fib_find(&tb, rt->has_metric ? rt->metric : 0);
		changed = rt->op == CLOCKS_OP_DEL || e == NULL || !clocks_fib_same(&was, e) ||
			  was.protocol != e->protocol;
		if (after && changed) {
			r->changes++;
			if (!clocks_fib_same(&used, &now))
				r->path_changes++;
			if (r->first_at_ns == CLOCKS_NONE)
				r->first_at_ns = rt->t_ns;
			r->final_at_ns = rt->t_ns;
		}
		used = now;
	}
}

/* clocks_fib_episode: the FIB clocks of [fib->from_ns, fib->until_ns) */
static void clocks_fib_episode(const struct clocks_input *in, struct clocks_fib *fib, int fail)
{
	fib->first_at_ns = fib->last_at_ns = fib->left_at_ns = CLOCKS_NONE;
	fib->u_first_ns = fib->u_last_ns = CLOCKS_NONE;
	/* every router with a route event of the service prefix, in order */
	for (size_t i = 0; i < in->nroutes; i++)
		if (clocks_fib_event(in, &in->routes[i], NULL))
			clocks_fib_router(fib, in->routes[i].node);
	for (int i = 0; i < fib->nrouters; i++) {
		struct clocks_router_fib *r = &fib->routers[i];

		clocks_fib_replay(in, fib, r, fail);
		clocks_fib_at(in, r->router, fib->from_ns, &r->before);
		clocks_fib_at(in, r->router, fib->until_ns, &r->after);
		if (r->changes == 0)
			continue;
		fib->routers_changed++;
		if (r->changes > 1)
			fib->exploring++;
		if (fib->first_at_ns == CLOCKS_NONE || r->first_at_ns < fib->first_at_ns) {
			fib->first_at_ns = r->first_at_ns;
			snprintf(fib->first_router, sizeof(fib->first_router), "%s", r->router);
		}
		if (fib->last_at_ns == CLOCKS_NONE || r->final_at_ns > fib->last_at_ns) {
			fib->last_at_ns = r->final_at_ns;
			snprintf(fib->last_router, sizeof(fib->last_router), "%s", r->router);
		}
	}
	/* where each route used leads, once every router's is known */
	for (int i = 0; i < fib->nrouters; i++) {
		struct clocks_router_fib *r = &fib->routers[i];

		clocks_fib_site(in, &r->before, fib->from_ns, r->before.site);
		clocks_fib_site(in, &r->after, fib->until_ns, r->after.site);
	}
}

void clocks_fib(const struct clocks_input *in, struct clocks_fib *fib)
{
	const struct clocks_failure *f = &in->failure;
	int64_t end = in->lab_stopping_ns != CLOCKS_NONE ? in->lab_stopping_ns : INT64_MAX;

	memset(fib, 0, sizeof(*fib));
	/* the failure until the timeline brought the site back; from then on
	 * the fail-back, an episode of its own: a route back is no path
	 * exploration of the failure's */
	fib->from_ns = f->t0_ns;
	fib->until_ns = f->recovered_ns && f->recovered_ns < end ? f->recovered_ns : end;
	clocks_fib_episode(in, fib, 1);
	if (fib->until_ns == end || (fib->failback = malloc(sizeof(*fib->failback))) == NULL)
		return;
	memset(fib->failback, 0, sizeof(*fib->failback));
	fib->failback->from_ns = fib->until_ns;
	fib->failback->until_ns = end;
	clocks_fib_episode(in, fib->failback, 0);
}

void clocks_fib_free(struct clocks_fib *fib)
{
	if (fib == NULL)
		return;
	free(fib->failback);
	free(fib);
}

void clocks_fib_site_at(const struct clocks_input *in, const char *router, int64_t at_ns,
			char *site)
{
	struct clocks_fib_route r;

	clocks_fib_at(in, router, at_ns, &r);
	clocks_fib_site(in, &r, at_ns, site);
}

int64_t clocks_fib_changes(const struct clocks_input *in, const char *router, int64_t from_ns,
			   int64_t *t, int max)
{
	static struct clocks_fib_table tb;
	int64_t n = 0;

	tb.n = 0;
	for (size_t i = 0; i < in->nroutes; i++) {
		const struct clocks_route *rt = &in->routes[i];
		const struct clocks_fib_route *e;
		struct clocks_fib_route was;

		if (!clocks_fib_event(in, rt, router))
			continue;
		e = clocks_fib_find(&tb, rt->has_metric ? rt->metric : 0);
		if (e)
			was = *e;
		else
			memset(&was, 0, sizeof(was));
		clocks_fib_apply(&tb, rt, NULL);
		e = clocks_fib_find(&tb, rt->has_metric ? rt->metric : 0);
		/* as clocks_fib_replay counts a change */
		if (rt->t_ns >= from_ns &&
		    (rt->op == CLOCKS_OP_DEL || e == NULL || !clocks_fib_same(&was, e) ||
		     was.protocol != e->protocol)) {
			if (n < max)
				t[n] = rt->t_ns;
			n++;
		}
	}
	return n;
}

static int clocks_fib_cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

int64_t clocks_fib_left_site(const struct clocks_input *in, const char *router, int64_t from,
			     int64_t until)
{
	const char *site = in->failure.site;
	int64_t *t, left = INT64_MAX;
	char at[CLOCKS_NAME_MAX];
	size_t n = 0;

	clocks_fib_site_at(in, router, from, at);
	if (strcmp(at, site) != 0)
		return CLOCKS_NONE;
	if ((t = malloc((in->nroutes ? in->nroutes : 1) * sizeof(*t))) == NULL)
		return INT64_MAX;
	/* a router's route leads through others: any router's change may
	 * move it */
	for (size_t i = 0; i < in->nroutes; i++)
		if (clocks_fib_event(in, &in->routes[i], NULL) && in->routes[i].t_ns >= from &&
		    in->routes[i].t_ns < until)
			t[n++] = in->routes[i].t_ns;
	qsort(t, n, sizeof(*t), clocks_fib_cmp_i64);
	for (size_t i = 0; i < n && left == INT64_MAX; i++) {
		if (i && t[i] == t[i - 1])
			continue;
		clocks_fib_site_at(in, router, t[i] + 1, at);
		if (strcmp(at, site) != 0)
			left = t[i];
	}
	free(t);
	return left;
}
