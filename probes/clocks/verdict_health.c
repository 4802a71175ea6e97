/*
 * The verdict's checks of the sites' health (docs/clocks.md, "Verdict"): a
 * healthy site declared dead by a prober or authd, or whose route left a
 * FIB, when the timeline did not act on it (healthy_site_failed). See
 * verdict_int.h; the verdict as a whole is verdict.c.
 */
#include <arpa/inet.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clocks_int.h"
#include "timeutil.h"
#include "verdict_int.h"

/* one kind of finding about a healthy site, counted, its first kept */
#define CLOCKS_VERDICT_MAX_FINDINGS 32

struct clocks_verdict_finding {
	char who[2 * CLOCKS_NAME_MAX + 2]; /* what is the same in every occurrence */
	int64_t first;
	int count;
};

static void clocks_verdict_find(struct clocks_verdict_finding *f, int *n, const char *who,
				int64_t t)
{
	for (int i = 0; i < *n; i++) {
		if (strcmp(f[i].who, who) == 0) {
			f[i].count++;
			if (t < f[i].first)
				f[i].first = t;
			return;
		}
	}
	if (*n == CLOCKS_VERDICT_MAX_FINDINGS)
		return;
	snprintf(f[*n].who, sizeof(f[*n].who), "%s", who);
	f[*n].first = t;
	f[(*n)++].count = 1;
}

static const char *clocks_verdict_times(char *buf, size_t len, int count)
{
	if (count == 1)
		snprintf(buf, len, "once");
	else
		snprintf(buf, len, "%d times", count);
	return buf;
}

#define CLOCKS_VERDICT_ROUTED_PROTO 252 /* agents/routed/kroute.h: KROUTE_PROTO */

/* clocks_verdict_failed_route: rt is the failed site's route in its router (the
 * next hop toward it from a router without it, at its metric there: as
 * site_failed's routes say, or as the FIBs at t0 say), deleted after t0 */
static int clocks_verdict_failed_route(const struct clocks_input *in, const struct clocks_route *rt)
{
	const struct clocks_failure *f = &in->failure;
	if (!rt->has_via || rt->t_ns < f->t0_ns)
		return 0;
	char site[CLOCKS_NAME_MAX];

	for (int k = 0; k < f->nroutes; k++)
		if (strcmp(f->routes[k].router, rt->node) == 0 &&
		    f->routes[k].via.s_addr == rt->via.s_addr &&
		    (!rt->has_metric || rt->metric == f->routes[k].metric))
			return 1;
	/* routed's routes (routing = static) are exactly site_failed's; a
	 * routing daemon's: its next hop led to the failed site at t0 (the
	 * next router's route then, followed: lab_up's addresses) */
	if (rt->protocol == CLOCKS_VERDICT_ROUTED_PROTO)
		return 0;
	clocks_fib_via_site(in, rt->via, f->t0_ns, site);
	return strcmp(site, f->site) == 0;
}

struct clocks_verdict_gone {
	struct clocks_verdict_finding *gone;
	int *n;
};

static int clocks_verdict_failback_route(const struct clocks_failure *f,
					 const struct clocks_route *rt);

/* clocks_verdict_route_left: a route that left a FIB (deleted, or replaced by one
 * of other next hops): a healthy route withdrawn, unless it was the failed
 * site's after t0 */
static void clocks_verdict_route_left(const struct clocks_input *in, const struct clocks_route *rt,
				      const struct clocks_route *by, void *arg)
{
	const struct clocks_failure *f = &in->failure;
	struct clocks_verdict_gone *g = arg;
	char via[INET6_ADDRSTRLEN] = "no gateway";

	/* a multipath route (ECMP) replaced by another: each next hop that is
	 * not in the new one left, and is judged as a route of its own */
	if (by && !by->deleted && (rt->nnh > 1 || by->nnh > 1)) {
		for (int i = 0; i < rt->nnh; i++) {
			struct clocks_route one = *rt;
			int k;

			for (k = 0; k < by->nnh && (!by->nh[k].has_via || !rt->nh[i].has_via ||
						    by->nh[k].via.s_addr != rt->nh[i].via.s_addr);
			     k++)
				;
			if (k < by->nnh)
				continue;
			one.has_via = rt->nh[i].has_via;
			one.via = rt->nh[i].via;
			one.nnh = 1;
			one.nh[0] = rt->nh[i];
			clocks_verdict_route_left(in, &one, NULL, arg);
		}
		return;
	}
	if (!clocks_verdict_measured(in, rt->t_ns) ||
	    (rt->has_via && rt->via.s_addr == f->via.s_addr && rt->t_ns >= f->t0_ns) ||
	    (rt->has_via && clocks_verdict_hit_via(in, rt->via, rt->t_ns)) ||
	    (by && clocks_verdict_failback_route(f, by)) || clocks_verdict_failed_route(in, rt))
		return;
	if (rt->has_via)
		clocks_addr_name(in, rt->via, via, sizeof(via));
	clocks_verdict_find(g->gone, g->n, via, rt->t_ns);
}

/* clocks_verdict_failback_route: rt is a router's route moving back to S after the
 * timeline brought S back: its replacement of the route via another site
 * is the fail-back, not that route leaving (BGP prefers S again) */
static int clocks_verdict_failback_route(const struct clocks_failure *f,
					 const struct clocks_route *rt)
{
	if (!rt->has_via || f->recovered_ns == 0 || rt->t_ns < f->recovered_ns)
		return 0;
	if (rt->via.s_addr == f->via.s_addr)
		return 1;
	for (int k = 0; k < f->nroutes; k++)
		if (strcmp(f->routes[k].router, rt->node) == 0 &&
		    f->routes[k].via.s_addr == rt->via.s_addr)
			return 1;
	return 0;
}

/* clocks_verdict_hit_site: the timeline acted on site at or before t_ns (killed,
 * crashed, frozen, drained, its link down, a flap; or brought it back, after
 * which probers may still be catching up): its being declared dead then is
 * the timeline's doing, not a fault of the run */
int clocks_verdict_hit_site(const struct clocks_input *in, const char *site, int64_t t_ns)
{
	for (size_t i = 0; i < in->nhits; i++) {
		const struct clocks_hit *h = &in->hits[i];

		if (h->t_ns > t_ns)
			continue;
		if (h->site[0] && strcmp(h->site, site) == 0)
			return 1;
		/* an anycast name server's own prober, told of its dns-down (or
		 * a crash, a freeze of its node) as a site's of its failure */
		if (h->site[0] == '\0' && strcmp(h->kind, "dns") == 0 &&
		    strcmp(h->target, site) == 0 && !h->up)
			return 1;
		/* a link between routers cut: any site may be out of a
		 * vantage point's reach from then on */
		if (h->site[0] == '\0' && h->link && !h->up)
			return 1;
	}
	return 0;
}

/* clocks_verdict_hit_via: the timeline acted at or before t_ns on a target whose
 * routes go via via (a site's link, a link's ends) */
int clocks_verdict_hit_via(const struct clocks_input *in, struct in_addr via, int64_t t_ns)
{
	for (size_t i = 0; i < in->nhits; i++)
		for (int k = 0; in->hits[i].t_ns <= t_ns && k < in->hits[i].nvias; k++)
			if (in->hits[i].vias[k].s_addr == via.s_addr)
				return 1;
	return 0;
}

/* healthy_site_dead, healthy_route_withdrawn: a site that had not failed
 * (any other site, or the failing one before t0) declared dead by a prober
 * or by authd, or its route withdrawn, while the traffic ran. What the
 * timeline did (event_applied: a second site failed, a link cut) is not
 * counted: those sites and next hops are the timeline's from its step on. */
void clocks_verdict_healthy(const struct clocks_input *in, struct clocks_notes *v)
{
	const struct clocks_failure *f = &in->failure;
	struct clocks_verdict_finding dead[CLOCKS_VERDICT_MAX_FINDINGS],
	    sick[CLOCKS_VERDICT_MAX_FINDINGS], gone[CLOCKS_VERDICT_MAX_FINDINGS];
	int ndead = 0, nsick = 0, ngone = 0;
	struct clocks_verdict_gone gone_arg;
	char who[2 * CLOCKS_NAME_MAX + 2], at[48], times[32], prefix[INET6_ADDRSTRLEN],
	    fvia[INET6_ADDRSTRLEN];

	for (size_t i = 0; i < in->ndead; i++) {
		const struct clocks_dead *d = &in->dead[i];

		if (!clocks_verdict_measured(in, d->t_ns) ||
		    (strcmp(d->site, f->site) == 0 && d->t_ns >= f->t0_ns) ||
		    clocks_verdict_hit_site(in, d->site, d->t_ns))
			continue;
		snprintf(who, sizeof(who), "%s|%s", d->node, d->site);
		clocks_verdict_find(dead, &ndead, who, d->t_ns);
	}
	for (size_t i = 0; i < in->nhealth; i++) {
		const struct clocks_health *h = &in->health[i];

		if (h->healthy || !clocks_verdict_measured(in, h->t_ns) ||
		    (strcmp(h->site, f->site) == 0 && h->t_ns >= f->t0_ns) ||
		    clocks_verdict_hit_site(in, h->site, h->t_ns))
			continue;
		clocks_verdict_find(sick, &nsick, h->site, h->t_ns);
	}
	gone_arg.gone = gone;
	gone_arg.n = &ngone;
	clocks_fib_left(in, clocks_verdict_route_left, &gone_arg);
	for (int i = 0; i < ndead; i++) {
		char *site = strchr(dead[i].who, '|');

		*site++ = '\0';
		clocks_invalid(v, "healthy_site_dead",
			       "the prober on %s declared site %s dead %s, first at %s, %s",
			       dead[i].who, site,
			       clocks_verdict_times(times, sizeof(times), dead[i].count),
			       clocks_verdict_at(at, sizeof(at), in, dead[i].first),
			       strcmp(site, f->site) == 0 ? "before it failed"
							  : "though it is not the failing site");
	}
	for (int i = 0; i < nsick; i++)
		clocks_invalid(
		    v, "healthy_site_dead", "authd marked site %s unhealthy %s, first at %s, %s",
		    sick[i].who, clocks_verdict_times(times, sizeof(times), sick[i].count),
		    clocks_verdict_at(at, sizeof(at), in, sick[i].first),
		    strcmp(sick[i].who, f->site) == 0 ? "before it failed"
						      : "though it is not the failing site");
	clocks_addr_name(in, f->prefix, prefix, sizeof(prefix));
	clocks_addr_name(in, f->via, fvia, sizeof(fvia));
	for (int i = 0; i < ngone; i++)
		clocks_invalid(
		    v, "healthy_route_withdrawn",
		    "the route to %s/%d via %s left the router's FIB %s, first at %s, %s", prefix,
		    in->ip6 ? 128 : f->prefixlen, gone[i].who,
		    clocks_verdict_times(times, sizeof(times), gone[i].count),
		    clocks_verdict_at(at, sizeof(at), in, gone[i].first),
		    strcmp(gone[i].who, fvia) == 0 ? "before the site failed"
						   : "though it is not the failing site's link");
}
