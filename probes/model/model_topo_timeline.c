/*
 * The timeline as the model reads it (model_topo_int.h; docs/model.md,
 * "Every failure", "DNS outages"): which events are failures and in what
 * order, the sites out at each one, the DNS outages the model follows query
 * by query, the first failure's recovery (its fail-back, model_failback.c),
 * the events it does not follow, and the model of each failure after the
 * first with the ones before it settled.
 */
#include "model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model_topo_int.h"
#include "topology.h"

#define NS 1e9

/* model_topo_failure_site: the site event e takes out, as topo_first_failure
 * counts it (an impair of a site's link: a gray failure), or -1 */
int model_topo_failure_site(const struct topology *t, int e)
{
	const struct topo_event *ev = &t->events[e];

	if ((!topo_event_failing(ev->action) && ev->action != TOPO_A_IMPAIR) ||
	    ev->action == TOPO_A_DNS_DOWN || ev->action == TOPO_A_RESOLVER_DOWN ||
	    ev->action == TOPO_A_ICMP_DOWN)
		return -1;
	if (ev->node >= 0 && t->nodes[ev->node].kind == TOPO_SITE)
		return ev->node;
	if (ev->link >= 0 && t->nodes[t->links[ev->link].node].kind == TOPO_SITE)
		return t->links[ev->link].node;
	return -1;
}

/* model_topo_nth_failure: the event of the timeline's k-th failure (from 0, in
 * time order), or -1 */
int model_topo_nth_failure(const struct topology *t, int k)
{
	for (int e = 0; e < t->nevents; e++)
		if (model_topo_failure_site(t, e) >= 0 && k-- == 0)
			return e;
	return -1;
}

int model_failures(const struct topology *t)
{
	int n = 0;

	while (model_topo_nth_failure(t, n) >= 0)
		n++;
	return n;
}

/* the sites out at the failure modelled (an earlier failure's, not
 * recovered by its t0): no route, no answer leads to them */
static int timeline_dead[TOPO_MAX_NODES];

int model_topo_dead(int n)
{
	return n >= 0 && n < TOPO_MAX_NODES && timeline_dead[n];
}

void model_topo_set_dead(const struct topology *t, int k)
{
	int e = model_topo_nth_failure(t, k);

	memset(timeline_dead, 0, sizeof(timeline_dead));
	if (e < 0)
		return;
	for (int j = 0; j < k; j++) {
		int ej = model_topo_nth_failure(t, j), back = 0;

		for (int u = 0; u < t->nevents; u++)
			back |=
			    t->events[u].undoes == ej && t->events[u].at_ns <= t->events[e].at_ns;
		if (!back)
			timeline_dead[model_topo_failure_site(t, ej)] = 1;
	}
}

/* timeline_outage_why: why the DNS outages of the timeline cannot be followed
 * (NULL: they can): what model_dns_sim.c does not play */
static const char *timeline_outage_why(const struct topology *t, const struct model_input *in,
				       const char *name, int server, int e)
{
	const struct topo_event *ev = &t->events[e];
	int z = name ? topo_name_zone(t, name) : -1, servers = 0, upstreams = 0, fwd = 0;

	for (int n = 0; n < t->nnodes; n++) {
		servers += z >= 0 && topo_dns_serves(t, n, z);
		upstreams += topo_rsv_upstream(t, n) != 0;
		fwd |=
		    t->nodes[n].kind == TOPO_RESOLVER && t->nodes[n].rsv_mode != TOPO_RSV_ITERATE;
	}
	if (ev->action == TOPO_A_DNS_DOWN && ev->node != server)
		return "a dns-down of a server other than the name's: not modelled";
	if (servers > 1 || (fwd && upstreams > 1))
		return "a DNS outage where the resolvers have several servers to try: not "
		       "modelled";
	if (in->fail_jitter_s > 0)
		return "a DNS outage with fail_jitter (each event of the timeline moved on its "
		       "own): not modelled";
	for (int i = 0; i < in->nclients; i++)
		if (in->clients[i].scheme == MODEL_DNS && in->clients[i].pop)
			return "a population through a DNS outage: not modelled";
	if (in->noutages == MODEL_MAX_OUTAGES)
		return "more DNS outages than the model follows";
	return NULL;
}

/* timeline_outage_add: event e's outage of cache c (-1: the name's server) */
static void timeline_outage_add(const struct topology *t, struct model_input *in, int e, int c)
{
	struct model_outage *o = &in->outages[in->noutages++];

	o->cache = c;
	o->from_s = (double)t->events[e].at_ns / NS;
	o->to_s = INFINITY;
	for (int u = 0; u < t->nevents; u++)
		if (t->events[u].undoes == e && (double)t->events[u].at_ns / NS < o->to_s)
			o->to_s = (double)t->events[u].at_ns / NS;
}

/* model_topo_outages: the timeline's dns-down and resolver-down events as
 * in->outages, the DNS clients then followed query by query
 * (model_dns_sim.c); what the model cannot follow said, its clocks left
 * unknown */
void model_topo_outages(const struct topology *t, struct model_input *in, const int base[],
			const char *name, int server, struct model_notes *notes)
{
	for (int e = 0; e < t->nevents; e++) {
		const struct topo_event *ev = &t->events[e];
		const char *why;

		if (ev->action != TOPO_A_DNS_DOWN && ev->action != TOPO_A_RESOLVER_DOWN)
			continue;
		if (!in->dns_present || in->dns_limit[0])
			return;
		if ((why = timeline_outage_why(t, in, name, server, e)) != NULL) {
			snprintf(in->dns_limit, sizeof(in->dns_limit), "%s (%s)", why, ev->name);
			snprintf(in->upstream_limit, sizeof(in->upstream_limit), "%s",
				 in->dns_limit);
			in->noutages = 0;
			return;
		}
		if (ev->action == TOPO_A_DNS_DOWN) {
			timeline_outage_add(t, in, e, -1);
			continue;
		}
		if (base[ev->node] < 0)
			continue;
		for (unsigned k = 0; k < t->nodes[ev->node].count; k++)
			if ((ev->instance == 0 || ev->instance == k + 1) &&
			    in->noutages < MODEL_MAX_OUTAGES)
				timeline_outage_add(t, in, e, base[ev->node] + (int)k);
	}
	in->dns_sim |= in->noutages > 0;
	/* through real resolvers: model_topo.c's topo_real_limits decides */
	if (in->noutages && !model_dns_whole(in))
		model_note(
		    notes, 0,
		    "dns outages (dns-down, resolver-down): every DNS client followed query by "
		    "query (docs/model.md, \"DNS outages\"): a query the outage drops asked "
		    "again 1 s after it was sent; a cache's refresh tried 1 + retries times, "
		    "timeout each (resolverd's 10 ms timer), then the expired entry answered "
		    "stale (serve_stale, TTL stale_ttl) or SERVFAIL, the client keeping its "
		    "address");
}

/* model_topo_failback: the recovery of the k-th failure by the timeline, if
 * any (its first event undoing it): when, whether the site's agents start
 * again, its own prober; what the fail-back model leaves out */
void model_topo_failback(const struct topology *t, int k, struct model_input *in, int site,
			 struct model_notes *notes)
{
	int e = model_topo_nth_failure(t, k);
	const char *why = NULL;

	in->recover_at_s = -1;
	for (int u = 0; e >= 0 && u < t->nevents; u++)
		if (t->events[u].undoes == e &&
		    (in->recover_at_s < 0 || (double)t->events[u].at_ns / NS < in->recover_at_s))
			in->recover_at_s = (double)t->events[u].at_ns / NS;
	if (in->recover_at_s < 0)
		return;
	in->recover_restart = in->how == MODEL_CRASH;
	model_topo_probe(t, site, site, MODEL_KILL, &in->back_probe);
	if (in->how == MODEL_HOW_OTHER)
		why = "a fail-back from a failure other than kill, crash, freeze, drain or "
		      "degrade";
	else if (in->how == MODEL_LINK_DOWN)
		why = "a fail-back from a link-down (the routes' return with the link)";
	else if (in->fail_jitter_s > 0)
		why = "a fail-back with fail_jitter (each event of the timeline moved on its own)";
	else if (in->dns_sim || in->noutages)
		why = "a fail-back through a DNS outage or a prefetching cache";
	else if (in->npops)
		why = "a population's fail-back";
	else if (in->clients_limit[0])
		why = in->clients_limit;
	for (int i = 0; i < in->nclients && why == NULL; i++)
		if (in->clients[i].proto != MODEL_UDP)
			why = "a fail-back of TCP or HTTP clients (a connection stays where it was "
			      "made until it breaks)";
	if (why) {
		snprintf(in->failback_limit, sizeof(in->failback_limit), "%.290s: not modelled",
			 why);
		return;
	}
	model_note(notes, 0,
		   "fail-back: %s back %g s into the traffic; each prober's first probe after it "
		   "succeeds%s, probe_up in a row declare the site alive, the route comes back "
		   "(static) or authd answers it again (its quorum), and the clients return: "
		   "anycast's at the route, DNS's as they take an answer fetched after it "
		   "(docs/model.md, \"Fail-back\")",
		   in->site, in->recover_at_s,
		   in->recover_restart
		       ? " (the site's own prober, started again with it, at a phase "
			 "of its own)"
		       : "");
}

/* model_topo_other_events: the timeline's events the model does not follow: not
 * a failure, nor a DNS outage it follows */
int model_topo_other_events(const struct topology *t, const struct model_input *in)
{
	int n = 0;

	for (int e = 0; e < t->nevents; e++) {
		int a = t->events[e].action;

		if (model_topo_failure_site(t, e) >= 0)
			continue;
		if (in->noutages && (a == TOPO_A_DNS_DOWN || a == TOPO_A_DNS_UP ||
				     a == TOPO_A_RESOLVER_DOWN || a == TOPO_A_RESOLVER_UP))
			continue;
		/* the first failure's recovery: its fail-back modelled */
		if (in->recover_at_s >= 0 && !in->failback_limit[0] &&
		    t->events[e].undoes == model_topo_nth_failure(t, 0))
			continue;
		n++;
	}
	return n;
}

/* timeline_settled: the failures before the k-th (of in) done with, their
 * clients moved, by its t0: each one's window (both schemes, its
 * greatest draw) ends before it, else said in in's limits. The model of
 * the k-th takes every client where the earlier ones left it. */
static int timeline_settled(const struct topology *t, int k, struct model_input *in,
			    struct model_notes *notes)
{
	struct model_input *mj = calloc(1, sizeof(*mj));
	struct model_result *rj = calloc(1, sizeof(*rj));
	struct model_notes *nj = calloc(1, sizeof(*nj));
	char err[256], why[MODEL_NOTE_MAX] = "";
	int rc = -1;

	if (mj == NULL || rj == NULL || nj == NULL)
		goto out;
	for (int j = 0; j < k && !why[0]; j++) {
		int ej = model_topo_nth_failure(t, j);

		for (int u = 0; u < t->nevents && !why[0]; u++)
			if (t->events[u].undoes == ej &&
			    (double)t->events[u].at_ns / NS <= in->fail_at_s)
				snprintf(
				    why, sizeof(why),
				    "%s brought %s back before %s: the fail-back is not modelled",
				    t->events[u].name,
				    t->nodes[model_topo_failure_site(t, ej)].name, in->event);
		if (why[0] || model_topo_input(t, j, mj, nj, err, sizeof(err)) == -1)
			continue;
		if (strcmp(mj->site, in->site) == 0) {
			snprintf(why, sizeof(why),
				 "site %s failed before (%s): a failure after its recovery is not "
				 "modelled",
				 in->site, mj->event);
			break;
		}
		mj->samples = 400;
		if (model_lab(mj, rj) == -1)
			goto out;
		for (int s = 0; s < MODEL_SCHEMES && !why[0]; s++) {
			const struct model_scheme_result *r = &rj->s[s];
			int present = s == MODEL_ANYCAST ? in->anycast_present : in->dns_present;

			if (!present || !r->present)
				continue;
			if (!r->window.known || mj->fail_at_s + r->window.max >= in->fail_at_s)
				snprintf(why, sizeof(why),
					 "%s comes before %s's clients had moved (%s's window %s): "
					 "the model takes the earlier failures settled",
					 in->event, mj->event,
					 s == MODEL_ANYCAST ? "anycast" : "dns",
					 r->window.known ? "ends after it" : "not modelled");
		}
	}
	if (why[0]) {
		if (!in->anycast_limit[0])
			snprintf(in->anycast_limit, sizeof(in->anycast_limit), "%s", why);
		if (!in->dns_limit[0])
			snprintf(in->dns_limit, sizeof(in->dns_limit), "%s", why);
	}
	model_note(notes, 0,
		   "failure %d of the timeline (%s): the failures before it modelled settled, "
		   "their sites out (no route, no answer leads to them) unless recovered by its "
		   "t0",
		   k + 1, in->event);
	rc = 0;
out:
	free(mj);
	free(rj);
	free(nj);
	return rc;
}

int model_from_topology(const struct topology *t, struct model_input *in, struct model_notes *notes,
			char *err, size_t errlen)
{
	return model_topo_input(t, 0, in, notes, err, errlen);
}

int model_from_topology_failure(const struct topology *t, int k, struct model_input *in,
				struct model_notes *notes, char *err, size_t errlen)
{
	static struct model_input keep;
	static struct model_notes keep_notes;

	if (k == 0)
		return model_topo_input(t, 0, in, notes, err, errlen);
	if (model_topo_input(t, k, in, notes, err, errlen) == -1)
		return -1;
	if (in->routing == MODEL_BGP && !in->anycast_limit[0])
		snprintf(in->anycast_limit, sizeof(in->anycast_limit),
			 "routing = bgp: a failure after the first is not modelled");
	/* the earlier failures' models overwrite model_topo.c's statics: in is
	 * kept aside meanwhile */
	keep = *in;
	keep_notes = *notes;
	if (timeline_settled(t, k, &keep, &keep_notes) == -1)
		return -1;
	*in = keep;
	*notes = keep_notes;
	return 0;
}
