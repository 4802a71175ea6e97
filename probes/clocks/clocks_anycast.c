/*
 * The anycast clocks (docs/clocks.md), computed from a loaded run with no
 * I/O. The scheme's requests are those of client ids 1 to
 * WIRE_DNS_CLIENT_BASE - 1 sent to the service prefix. Every time is
 * compared with t0, the t of site_failed:
 *
 *   detect   first declared_dead of the failed site by its own prober (the
 *            one on the site's node) at or after t0, or (routing = static)
 *            first route_expired of its route by a routed's hold timer
 *            (one that deleted it from the FIB) if earlier: a crashed
 *            site's prober is dead, a frozen one's still believes it
 *            healthy, and the hold timer is what notices
 *   steer    first FIB change at or after t0, in any router, that takes a
 *            route of the service prefix via the failed site's link address
 *            out: its route_deleted, or its replacement by a route not via it
 *            (clocks_fib.c)
 *   window   last anycast request in the failed site's capture after t0
 *
 * plus the request counts of the clients' records and of the captures
 * (clocks_scheme.c). A clock whose event never came stays CLOCKS_NONE, with
 * a warning.
 */
#include "clocks_result.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "clocks_int.h"

/* clocks_in_prefix: is p sent to the service prefix? */
static int clocks_in_prefix(const struct clocks_input *in, const struct clocks_packet *p)
{
	const struct clocks_failure *f = &in->failure;
	uint32_t mask = f->prefixlen == 0 ? 0 : htonl(~0u << (32 - f->prefixlen));

	return (p->dst.s_addr & mask) == (f->prefix.s_addr & mask);
}

const struct clocks_flows clocks_anycast_flows = {
    .scheme = CLOCKS_SCHEME_ANYCAST,
    .name = "anycast",
    .what = "anycast flows (client ids 1-99999 to the service prefix)",
    .is_flow = clocks_in_prefix,
    .to_dead = NULL,
};

static void clocks_detect(const struct clocks_input *in, struct clocks_result *r)
{
	const struct clocks_failure *f = &in->failure;

	/* the site's own prober; the remote probers' verdicts are the DNS
	 * scheme's (clocks_dns.c) */
	for (size_t i = 0; i < in->ndead; i++) {
		const struct clocks_dead *d = &in->dead[i];
		if (d->t_ns >= f->t0_ns && strcmp(d->site, f->site) == 0 &&
		    strcmp(d->node, f->site) == 0 &&
		    (r->detect_at_ns == CLOCKS_NONE || d->t_ns < r->detect_at_ns))
			r->detect_at_ns = d->t_ns;
	}
	/* a router's hold timer: the site stopped announcing */
	for (size_t i = 0; i < in->nexpired; i++) {
		const struct clocks_dead *d = &in->expired[i];
		if (d->t_ns >= f->t0_ns && strcmp(d->site, f->site) == 0 &&
		    (r->detect_at_ns == CLOCKS_NONE || d->t_ns < r->detect_at_ns)) {
			r->detect_at_ns = d->t_ns;
			r->detect_by_hold = 1;
		}
	}
	if (r->detect_at_ns == CLOCKS_NONE && clocks_gray(f))
		clocks_gray_undetected(r, f);
	else if (r->detect_at_ns == CLOCKS_NONE)
		clocks_missing(r,
			       "detect: no declared_dead of site %s at or after t0 in "
			       "%s.prober.events.jsonl, nor a route_expired that deleted its "
			       "route in *.routed.events.jsonl",
			       f->site, f->site);
	else
		r->detect_ns = r->detect_at_ns - f->t0_ns;
}

int64_t clocks_route_left_at(const struct clocks_input *in, const struct clocks_fib *fib)
{
	const struct clocks_failure *f = &in->failure;
	int64_t at = CLOCKS_NONE;
	/* the lab taking itself down withdraws every route: no steer */
	int64_t end = in->lab_stopping_ns != CLOCKS_NONE ? in->lab_stopping_ns : INT64_MAX;

	for (size_t i = 0; i < in->nroutes; i++) {
		const struct clocks_route *rt = &in->routes[i];
		int gone = rt->deleted && rt->has_via && rt->via.s_addr == f->via.s_addr;

		if (gone && rt->t_ns >= f->t0_ns && rt->t_ns < end &&
		    rt->prefixlen == f->prefixlen && rt->prefix.s_addr == f->prefix.s_addr &&
		    (at == CLOCKS_NONE || rt->t_ns < at))
			at = rt->t_ns;
	}
	/* or replaced by a route not via it (a routing daemon's way) */
	if (fib && fib->left_at_ns != CLOCKS_NONE && (at == CLOCKS_NONE || fib->left_at_ns < at))
		at = fib->left_at_ns;
	return at;
}

/* clocks_steer: the failed site's route left a FIB (in6: a dual lab's
 * IPv6 routes; a failure of IPv6 alone is steered by those) */
static void clocks_steer(const struct clocks_input *in, const struct clocks_input *in6,
			 struct clocks_result *r)
{
	const struct clocks_failure *f = &in->failure;
	char via[INET6_ADDRSTRLEN], prefix[INET6_ADDRSTRLEN];

	if (f->family == 6 && in6 && r->fib6)
		r->steer_at_ns = clocks_route_left_at(in6, r->fib6);
	else
		r->steer_at_ns = clocks_route_left_at(in, r->fib);
	if (r->steer_at_ns == CLOCKS_NONE && r->undetected) {
		/* said once, by detect */
	} else if (r->steer_at_ns == CLOCKS_NONE) {
		clocks_addr_name(in, f->via, via, sizeof(via));
		clocks_addr_name(in, f->prefix, prefix, sizeof(prefix));
		clocks_missing(r,
			       "steer: no route of %s/%d via %s left a FIB at or after t0 "
			       "(*.collector.events.jsonl)",
			       prefix, in->ip6 ? 128 : f->prefixlen, via);
	} else {
		r->steer_ns = r->steer_at_ns - f->t0_ns;
	}
}

/* clocks_input6: a dual lab's input with the IPv6 routes (each as its
 * IPv4 twin's) in the place of the IPv4 ones: a shallow copy, freed
 * without what it points to; NULL if there are none (or out of memory) */
static struct clocks_input *clocks_input6(const struct clocks_input *in)
{
	struct clocks_input *in6;

	if (in->nroutes6 == 0 || (in6 = malloc(sizeof(*in6))) == NULL)
		return NULL;
	*in6 = *in;
	in6->routes = in->routes6;
	in6->nroutes = in->nroutes6;
	return in6;
}

/* clocks_fib6: the FIB clocks of the service's IPv6 address, its routes
 * replayed as the IPv4 ones are */
static void clocks_fib6(const struct clocks_input *in6, struct clocks_result *r)
{
	if (in6 == NULL)
		return;
	if ((r->fib6 = malloc(sizeof(*r->fib6))) == NULL) {
		clocks_warn(&r->notes, "limit", "anycast: no IPv6 FIB clocks: out of memory");
		return;
	}
	clocks_fib(in6, r->fib6);
}

void clocks_anycast(const struct clocks_input *in, struct clocks_result *r)
{
	struct clocks_input *in6;

	clocks_scheme_init(in, &clocks_anycast_flows, r);
	in6 = clocks_input6(in);
	clocks_fib6(in6, r);
	r->fib = malloc(sizeof(*r->fib));
	r->catchments = malloc(sizeof(*r->catchments));
	if (r->fib && r->catchments) {
		clocks_fib(in, r->fib);
		/* a failure of IPv6 alone moved the IPv6 routes alone: the
		 * catchments after theirs */
		if (in->failure.family == 6 && in6 && r->fib6)
			clocks_catchments(in6, r->fib6, r->catchments);
		else
			clocks_catchments(in, r->fib, r->catchments);
		if (r->catchments->lost_pops)
			clocks_warn(&r->notes, "limit",
				    "anycast: catchments: more than %d populations, more than %d "
				    "pairs in one, or out of memory: some not counted",
				    CLOCKS_CATCH_POPS, CLOCKS_CATCH_PAIRS);
	} else {
		free(r->fib);
		free(r->catchments);
		r->fib = NULL;
		r->catchments = NULL;
		clocks_warn(&r->notes, "limit", "anycast: no FIB clocks: out of memory");
	}
	if (!in->steady) { /* a steady-state run has no failover clocks */
		clocks_detect(in, r);
		clocks_steer(in, in6, r);
	}
	free(in6);
	clocks_scheme_measure(in, &clocks_anycast_flows, r);
}
