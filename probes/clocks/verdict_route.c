/*
 * The verdict's checks of the route monitor (docs/clocks.md, "Verdict"):
 * a FIB change is time-stamped when the collector reads it (the kernel
 * gives netlink no time stamp), so a collector that lost notifications,
 * or read one late, moves steer and the FIB clocks while the run looks
 * sound. Three checks, each invalidating:
 *
 *   route_events_lost      a collector's route monitor overran (ENOBUFS)
 *                          or stopped: its FIB's changes are incomplete
 *   route_monitor_stalled  a change of the service prefix read after the
 *                          collector's loop had stalled (stalled_ns)
 *   steer_after_window     the packets' own bound: while the route via the
 *                          failed site's link was in its router's FIB, the
 *                          clients' requests went on reaching the site; a
 *                          steer later than the last of them by more than
 *                          the clients' request interval and a slack is
 *                          not when the route left
 */
#include <arpa/inet.h>
#include <string.h>

#include "clocks_int.h"
#include "timeutil.h"
#include "verdict_int.h"

/* route_events_lost: one note per collector and kind, the first given */
static void clocks_verdict_mlosses(const struct clocks_input *in, struct clocks_notes *v)
{
	char at[48];

	for (size_t i = 0; i < in->nmlosses; i++) {
		const struct clocks_monitor_loss *m = &in->mlosses[i];
		int64_t count = 0;
		int seen = 0;

		if (m->t_ns > clocks_verdict_cutoff(in))
			continue;
		for (size_t k = 0; k < i && !seen; k++)
			seen = in->mlosses[k].stopped == m->stopped &&
			       strcmp(in->mlosses[k].node, m->node) == 0 &&
			       in->mlosses[k].t_ns <= clocks_verdict_cutoff(in);
		if (seen)
			continue;
		for (size_t k = i; k < in->nmlosses; k++)
			count += in->mlosses[k].stopped == m->stopped &&
				 strcmp(in->mlosses[k].node, m->node) == 0 &&
				 in->mlosses[k].t_ns <= clocks_verdict_cutoff(in);
		if (m->stopped)
			clocks_invalid(v, "route_events_lost",
				       "the route monitor of the collector on %s stopped at %s "
				       "(route_monitor_error): no change of its FIB after it was "
				       "seen, so the FIB clocks and steer may miss theirs",
				       m->node, clocks_verdict_at(at, sizeof(at), in, m->t_ns));
		else
			clocks_invalid(v, "route_events_lost",
				       "the kernel dropped route notifications of the collector on "
				       "%s (ENOBUFS, %lld time%s, the first at %s): its FIB's "
				       "changes are incomplete, so the FIB clocks and steer may "
				       "miss theirs",
				       m->node, (long long)count, count == 1 ? "" : "s",
				       clocks_verdict_at(at, sizeof(at), in, m->t_ns));
	}
}

/* route_monitor_stalled: a change of the service prefix, in the measured
 * period, read at the end of a stall; one note per collector, its worst */
static void clocks_verdict_stalls(const struct clocks_input *in, struct clocks_notes *v)
{
	const struct clocks_failure *f = &in->failure;
	char at[48], prefix[INET6_ADDRSTRLEN], via[INET6_ADDRSTRLEN];

	for (size_t i = 0; i < in->nroutes; i++) {
		const struct clocks_route *r = &in->routes[i], *worst = r;
		int seen = 0;

		if (r->stalled_ns <= CLOCKS_MONITOR_STALL_NS || r->prefixlen != f->prefixlen ||
		    r->prefix.s_addr != f->prefix.s_addr || !clocks_verdict_measured(in, r->t_ns))
			continue;
		for (size_t k = 0; k < i && !seen; k++)
			seen = in->routes[k].stalled_ns > CLOCKS_MONITOR_STALL_NS &&
			       strcmp(in->routes[k].node, r->node) == 0 &&
			       in->routes[k].prefixlen == f->prefixlen &&
			       in->routes[k].prefix.s_addr == f->prefix.s_addr &&
			       clocks_verdict_measured(in, in->routes[k].t_ns);
		if (seen)
			continue;
		for (size_t k = i + 1; k < in->nroutes; k++) {
			const struct clocks_route *o = &in->routes[k];

			if (o->stalled_ns > worst->stalled_ns && strcmp(o->node, r->node) == 0 &&
			    o->prefixlen == f->prefixlen && o->prefix.s_addr == f->prefix.s_addr &&
			    clocks_verdict_measured(in, o->t_ns))
				worst = o;
		}
		clocks_addr_name(in, worst->prefix, prefix, sizeof(prefix));
		clocks_addr_name(in, worst->via, via, sizeof(via));
		clocks_invalid(v, "route_monitor_stalled",
			       "the collector on %s read a change of its route to %s/%d (%s%s%s) "
			       "at %s only after its loop had not run for %.3f s (stopped, or "
			       "starved of CPU): it may have happened that much earlier, so "
			       "steer and the FIB clocks from it are not measured (more than "
			       "%.3f s invalidates)",
			       worst->node, prefix, in->ip6 ? 128 : worst->prefixlen,
			       worst->deleted ? "deleted" : "added", worst->has_via ? " via " : "",
			       worst->has_via ? via : "",
			       clocks_verdict_at(at, sizeof(at), in, worst->t_ns),
			       (double)worst->stalled_ns / NSEC_PER_SEC,
			       (double)CLOCKS_MONITOR_STALL_NS / NSEC_PER_SEC);
	}
}

/* clocks_verdict_client_interval: 1 / the rate client id was told (client_started),
 * or 0 if unknown */
static int64_t clocks_verdict_client_interval(const struct clocks_input *in, uint32_t id)
{
	for (size_t i = 0; i < in->nclients; i++)
		if (in->clients[i].id == id && in->clients[i].rate > 0)
			return (int64_t)(NSEC_PER_SEC / in->clients[i].rate);
	return 0;
}

/* clocks_verdict_steer_router: the router whose FIB change is steer: the one of
 * the route via the failed site at steer_at ("?" if not found) */
static const char *clocks_verdict_steer_router(const struct clocks_input *in, int64_t at)
{
	for (size_t i = 0; i < in->nroutes; i++)
		if (in->routes[i].t_ns == at)
			return in->routes[i].node;
	return "?";
}

/* steer_after_window: the anycast requests that reached S until its route
 * left; how the failure keeps them reaching S's link (a kill, a crash, a
 * freeze, a drain: not a cut link) */
static void clocks_verdict_steer_packets(const struct clocks_input *in,
					 const struct clocks_result *r, struct clocks_notes *v)
{
	const struct clocks_failure *f = &in->failure;
	const struct clocks_capture *c = NULL;
	int64_t t0 = f->t0_ns, steer = r->steer_at_ns, last = CLOCKS_NONE, interval = 0;
	char at[48], at2[48], at3[48];
	int before = 0;

	if (steer == CLOCKS_NONE || steer <= t0 || strcmp(f->how, "link-down") == 0)
		return;
	/* over TCP a client does not send at its rate to a silent site: its
	 * connection holds the requests while the kernel backs off, so the
	 * last one to reach S bounds nothing */
	if (in->dnstopo.tcp)
		return;
	/* a link the timeline cut before the route left: the requests may have
	 * stopped on the way */
	for (size_t i = 0; i < in->nhits; i++)
		if (strcmp(in->hits[i].kind, "link") == 0 && in->hits[i].t_ns <= steer)
			return;
	for (size_t i = 0; i < in->ncaptures && c == NULL; i++)
		if (strcmp(in->captures[i].label, f->site) == 0)
			c = &in->captures[i];
	if (c == NULL)
		return;
	for (size_t k = 0; k < c->n; k++) {
		const struct clocks_packet *p = &c->packets[k];

		if (!clocks_is_flow(in, &clocks_anycast_flows, p) || p->t_ns > steer)
			continue;
		if (last == CLOCKS_NONE || p->t_ns > last)
			last = p->t_ns;
		/* S was the catchment of these clients in the second before t0:
		 * each sends every interval, so the last of theirs at S is at most
		 * one interval before the route left */
		if (p->t_ns <= t0 && p->t_ns > t0 - NSEC_PER_SEC && !clocks_pop_of(p->client)) {
			int64_t iv = clocks_verdict_client_interval(in, p->client);

			before = 1;
			if (iv > interval)
				interval = iv;
		}
	}
	if (!before || interval == 0 || last == CLOCKS_NONE ||
	    steer - last <= interval + CLOCKS_STEER_SLACK_NS)
		return;
	clocks_invalid(v, "steer_after_window",
		       "anycast: the route via %s's link left %s's FIB at %s by its route "
		       "monitor, but the last anycast request reached %s at %s, %.3f s before, "
		       "though its clients sent every %.3f s at most: the route was gone by "
		       "%s (plus %.3f s of slack) at the latest, so steer is late (a collector "
		       "that fell behind, or clients that stopped sending: see "
		       "route_monitor_stalled, client_stalled)",
		       f->site, clocks_verdict_steer_router(in, steer),
		       clocks_verdict_at(at, sizeof(at), in, steer), f->site,
		       clocks_verdict_at(at2, sizeof(at2), in, last),
		       (double)(steer - last) / NSEC_PER_SEC, (double)interval / NSEC_PER_SEC,
		       clocks_verdict_at(at3, sizeof(at3), in, last + interval),
		       (double)CLOCKS_STEER_SLACK_NS / NSEC_PER_SEC);
}

void clocks_verdict_routes(const struct clocks_input *in, const struct clocks_result *anycast,
			   struct clocks_notes *v)
{
	clocks_verdict_mlosses(in, v);
	clocks_verdict_stalls(in, v);
	if (anycast && !anycast->noflows)
		clocks_verdict_steer_packets(in, anycast, v);
}
