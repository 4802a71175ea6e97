/*
 * The steering model's input from a loaded topology (model_steer.h;
 * docs/model.md, "Steady state: shares, deviation, distance"): the sites,
 * each client node a group of each scheme it uses, its DNS requests through
 * units (model_steer_units.c) and its anycast ones to the site its router's
 * static routes lead to; the period; the timeline's events within it; what
 * all that assumes and leaves out.
 */
#include "model_steer_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model_topo_int.h"

#define NS 1e9

/* steer_events: the timeline's events within the period change the
 * steering (a link's delay, a DNS outage, a site drained or degraded):
 * what they change is not modelled */
static void steer_events(struct steer_build *b)
{
	const struct topology *t = b->t;
	struct model_steer_input *in = b->in;

	int64_t failure = INT64_MAX;

	/* the failure itself ends the period: before its instant as written
	 * (a run's t0 comes a little later) */
	if (topo_first_failure(t, &failure) < 0)
		failure = INT64_MAX;
	for (int e = 0; e < t->nevents; e++) {
		const struct topo_event *ev = &t->events[e];
		char why[MODEL_NOTE_MAX], tgt[32];

		if ((double)ev->at_ns / NS >= in->period_s || ev->at_ns >= failure)
			continue;
		snprintf(why, sizeof(why),
			 "the timeline's %s of %s at %g s changes the steering within the period",
			 topo_action_name(ev->action), topo_event_target(t, ev, tgt, sizeof(tgt)),
			 (double)ev->at_ns / NS);
		for (int n = 0; n < in->nnames; n++)
			steer_why(&in->names[n], why);
		if (!in->anycast_why[0])
			snprintf(in->anycast_why, sizeof(in->anycast_why), "%s", why);
		return;
	}
}

/* steer_dns_group: client node c's DNS requests, group g */
static void steer_dns_group(struct steer_build *b, int g, int node, int *ukey)
{
	const struct topology *t = b->t;
	const struct topo_node *c = &t->nodes[node];
	struct model_steer_group *gr = &b->in->groups[g];
	struct model_steer_name *nm;
	static double rate[TOPO_POPULATION_MAX];
	int n = gr->name_index, r = c->resolver;
	const char *v;

	if (n < 0)
		return;
	nm = &b->in->names[n];
	gr->has_target = nm->has_target;
	memcpy(gr->target, nm->target, sizeof(gr->target));
	steer_user_rates(c, rate);
	if (c->resolve == TOPO_RESOLVE_LIBCURL)
		steer_why(nm, "libcurl resolves it (its own DNS cache)");
	if (r < 0) {
		steer_why(nm, "a client with no resolver");
	} else if (t->nodes[r].kind == TOPO_DNS) {
		if (r != b->spec[n].dns)
			steer_why(nm, "a client asks a [dns] node that does not serve it");
		else
			steer_direct(b, g, node, n, rate);
	} else if (t->nodes[r].impl != TOPO_IMPL_RESOLVERD) {
		/* its answers are authd's whoever asks when they do not depend
		 * on the querier or the order: one cache, its upstream not known */
		if (nm->policy == MODEL_P_WEIGHTED || nm->policy == MODEL_P_MULTIVALUE ||
		    nm->policy == MODEL_P_GEOLOCATION || nm->policy == MODEL_P_LATENCY ||
		    nm->policy == MODEL_P_PROXIMITY)
			steer_why(nm, "a [resolver] that is not resolverd: its caching and its "
				      "address towards authd");
		else
			steer_other_resolver(b, g, node, n, rate);
	} else {
		if ((v = model_topo_rsv(t, r, "ecs")) && strcmp(v, "yes") == 0 &&
		    (nm->policy == MODEL_P_GEOLOCATION || nm->policy == MODEL_P_LATENCY ||
		     nm->policy == MODEL_P_PROXIMITY))
			steer_why(nm, "a [resolver] passing the client's subnet on (ecs): its "
				      "answers per subnet");
		if (t->nodes[r].rsv_mode == TOPO_RSV_ITERATE && !nm->upstream_why[0])
			snprintf(nm->upstream_why, sizeof(nm->upstream_why),
				 "an iterating cache's first walk asks the zones above it once, "
				 "for whichever name it fills first");
		if ((v = model_topo_rsv(t, r, "prefetch")) && strcmp(v, "no") != 0 &&
		    !nm->upstream_why[0])
			snprintf(nm->upstream_why, sizeof(nm->upstream_why),
				 "a cache that prefetches refreshes before the expiry");
		steer_cached(b, g, node, n, rate, ukey);
	}
	steer_tcp(b, g, node, n);
}

/* steer_anycast_group: client node c's anycast requests, group g: to the
 * one site its router's static routes lead to */
static void steer_anycast_group(struct steer_build *b, int g, int node)
{
	const struct topology *t = b->t;
	struct model_steer_input *in = b->in;
	struct model_steer_group *gr = &in->groups[g];
	int site = -1;
	static int bgp_site[TOPO_MAX_NODES];
	char why[MODEL_NOTE_MAX];

	/* BGP: the site its packets reach in the converged routes
	 * (model_topo_bgp.c, FRR's decision) */
	if (t->routing == TOPO_ROUTING_BGP) {
		if (model_topo_bgp_sites(t, bgp_site, why, sizeof(why)) == -1) {
			if (!in->anycast_why[0])
				snprintf(in->anycast_why, sizeof(in->anycast_why), "%s", why);
			return;
		}
		for (int s = 0; s < in->nsites; s++)
			if (b->site_node[s] == bgp_site[node])
				site = s;
	}
	for (int s = 0; s < in->nsites && t->routing != TOPO_ROUTING_BGP; s++) {
		int to = model_topo_catchment(t, node, b->site_node[s]);

		if (to == 1)
			site = s;
		if (to == -1 && !in->anycast_why[0])
			snprintf(in->anycast_why, sizeof(in->anycast_why),
				 "%s's router has routes of equal cost to several sites: which one "
				 "it uses (ECMP or the latest announcement)",
				 t->nodes[node].name);
	}
	if (site < 0)
		return;
	gr->has_target = 1;
	gr->target[site] = 1;
	steer_flow(b, g, node, -1, site, t->nodes[node].rate, 0);
}

/* steer_notes: what the model assumes and leaves out, into notes */
static void steer_notes(const struct steer_build *b, struct model_notes *notes)
{
	const struct model_steer_input *in = b->in;

	model_note(notes, 0,
		   "steering: every site healthy (a steady state, or before the failure); the "
		   "shares of %g s of traffic from its start, each flow sending %g s from its "
		   "first answer",
		   in->period_s, in->duration_s);
	model_note(
	    notes, 0,
	    "steering: a cache fills at its first client's query (a population asks all "
	    "its caches at once at its start), then at the first query of a client after the "
	    "entry expired; queries reach authd over the configured delays; each answer "
	    "binds the cache's clients until the next");
	for (int n = 0; n < in->nnames; n++) {
		const struct model_steer_name *nm = &in->names[n];

		if (nm->why[0])
			model_note(notes, 1, "steering: %s: %s", nm->name, nm->why);
		else if (nm->policy == MODEL_P_WEIGHTED)
			model_note(notes, 0,
				   "steering: %s: weighted %s: which cache gets which place of "
				   "the rotation depends on the order of the fills at authd, drawn "
				   "%u times",
				   nm->name,
				   nm->npattern ? "with an explicit pattern"
				   : nm->random ? "at random (weighted_mode = random)"
						: "by smooth weighted round robin",
				   in->samples);
		else if (nm->upstream_why[0])
			model_note(notes, 1, "steering: %s: upstream queries: %s", nm->name,
				   nm->upstream_why);
	}
	if (in->ntie)
		model_note(notes, 0,
			   "steering: latency: sites within max(%.1f ms, %.0f %%) of the lowest "
			   "RTT from the vantage prober are a tie the lab's own time decides: "
			   "one drawn",
			   MODEL_STEER_TIE_S * 1000, MODEL_STEER_TIE_SHARE * 100);
	if (in->anycast_why[0])
		model_note(notes, 1, "steering: anycast: %s", in->anycast_why);
	model_note(notes, 0,
		   "steering: RTT per request: the configured delays of each client's path to "
		   "its site, there and back; the hosts' and the delay line's own time left out");
}

void model_steer_from_topology(const struct topology *t, double period_s,
			       struct model_steer_input *in, struct model_notes *notes)
{
	struct steer_build *b = calloc(1, sizeof(*b));
	int *ukey = malloc(MODEL_STEER_UNITS * sizeof(int)),
	    steady = topo_first_failure(t, NULL) < 0;
	double end = 0;

	memset(in, 0, sizeof(*in));
	snprintf(in->lab, sizeof(in->lab), "%s", t->name);
	in->samples = MODEL_STEER_SAMPLES;
	in->seed = MODEL_STEER_SEED;
	in->start_jitter_s = MODEL_STEER_START_JITTER_S;
	in->duration_s = (double)t->duration_ns / NS;
	if (b == NULL || ukey == NULL) {
		snprintf(in->dns_why, sizeof(in->dns_why), "out of memory");
		goto out;
	}
	b->t = t;
	b->in = in;
	for (int i = 0; i < MODEL_STEER_UNITS; i++)
		ukey[i] = -1;
	for (int n = 0; n < t->nnodes; n++)
		if (t->nodes[n].kind == TOPO_SITE && in->nsites < MODEL_STEER_SITES) {
			b->site_node[in->nsites] = n;
			snprintf(in->sites[in->nsites++], MODEL_NAME_MAX, "%s", t->nodes[n].name);
		}
	for (int n = 0; n < t->nnodes && in->ngroups < MODEL_STEER_GROUPS - 1; n++) {
		const struct topo_node *c = &t->nodes[n];

		if (c->kind != TOPO_CLIENT)
			continue;
		if (c->mode != TOPO_MODE_DNS) {
			struct model_steer_group *gr = &in->groups[in->ngroups];

			snprintf(gr->name, sizeof(gr->name), "%s", c->name);
			gr->scheme = MODEL_ANYCAST;
			gr->name_index = -1;
			steer_anycast_group(b, in->ngroups++, n);
		}
		if (c->mode != TOPO_MODE_ANYCAST) {
			struct model_steer_group *gr = &in->groups[in->ngroups];

			snprintf(gr->name, sizeof(gr->name), "%s", c->name);
			gr->scheme = MODEL_DNS;
			gr->name_index =
			    steer_name_of(b, c->dns_name[0] ? c->dns_name : t->dns_name);
			steer_dns_group(b, in->ngroups++, n, ukey);
		}
	}
	for (int f = 0; f < in->nflows; f++)
		end = fmax(end, in->flows[f].from_s + in->duration_s);
	/* a steady state's whole traffic; before the failure otherwise */
	in->period_s = steady ? end : period_s > 0 ? period_s : (double)t->fail_at_ns / NS;
	in->whole = steady;
	steer_events(b);
	if (notes)
		steer_notes(b, notes);
out:
	free(b);
	free(ukey);
}

/* steer_unit_site: the one site unit u's answers before the failure give
 * its clients, or -1 with why (several, one drawn or rotated) */
static int steer_unit_site(const struct model_steer_input *in, const struct model_steer_unit *u,
			   char *why, size_t len)
{
	const struct model_steer_name *nm = &in->names[u->name];

	if (nm->policy == MODEL_P_WEIGHTED) {
		snprintf(why, len,
			 "%.100s is weighted: which caches held the failed site at t0 is the "
			 "rotation's order at authd, not modelled",
			 nm->name);
		return -1;
	}
	if (u->tie >= 0) {
		snprintf(why, len,
			 "%.100s: the latency of two sites is a tie the lab's own time decides: "
			 "which one its clients held at t0 is not modelled",
			 nm->name);
		return -1;
	}
	if (u->nsites == 1 || (u->pick == MODEL_PICK_FIRST && nm->policy != MODEL_P_MULTIVALUE))
		return u->nsites ? u->site[0] : -1;
	snprintf(why, len,
		 "%.100s gives several sites and its clients take one at random: which "
		 "clients were on the failed site at t0 is not modelled",
		 nm->name);
	return -1;
}

int model_steer_on_site(const struct topology *t, int site_node, int on[], const uint32_t *q,
			int nq, int *q_on, char *why, size_t len)
{
	struct model_steer_input *in = calloc(1, sizeof(*in));
	int site = -1, rc = 0;

	if (in == NULL) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	model_steer_from_topology(t, 0, in, NULL);
	for (int s = 0; s < in->nsites; s++)
		if (strcmp(in->sites[s], t->nodes[site_node].name) == 0)
			site = s;
	for (int g = 0; g < in->ngroups && rc == 0; g++) {
		const struct model_steer_group *gr = &in->groups[g];
		int node = -1, flows = 0;

		if (gr->scheme != MODEL_DNS)
			continue;
		for (int n = 0; n < t->nnodes; n++)
			if (t->nodes[n].kind == TOPO_CLIENT &&
			    strcmp(t->nodes[n].name, gr->name) == 0)
				node = n;
		if (node < 0)
			continue;
		on[node] = 0;
		if (gr->name_index < 0) {
			const char *asks =
			    t->nodes[node].dns_name[0] ? t->nodes[node].dns_name : t->dns_name;

			snprintf(why, len,
				 "%s asks %.100s, which no [name] steers (a CNAME or a static "
				 "record): which clients were on the failed site at t0 is not "
				 "modelled",
				 gr->name, asks);
			rc = -1;
		} else if (in->names[gr->name_index].why[0]) {
			snprintf(why, len, "%s's answers before the failure: %s", gr->name,
				 in->names[gr->name_index].why);
			rc = -1;
		}
		for (int f = 0; f < in->nflows && rc == 0; f++) {
			const struct model_steer_flow *fl = &in->flows[f];
			int s;

			if (fl->group != g)
				continue;
			flows++;
			s = fl->unit >= 0 ? steer_unit_site(in, &in->units[fl->unit], why, len)
					  : fl->site;
			if (s < 0 && !why[0])
				snprintf(why, len, "%s's answer before the failure is no site",
					 gr->name);
			if (s < 0)
				rc = -1;
			else
				on[node] |= s == site;
		}
		if (rc == 0 && flows == 0) {
			snprintf(why, len, "%s's answers before the failure are not modelled",
				 gr->name);
			rc = -1;
		}
	}
	for (int i = 0; i < nq && rc == 0; i++) {
		int u = 0, s;

		while (u < in->nunits && in->units[u].querier != q[i])
			u++;
		if (u == in->nunits) {
			snprintf(why, len, "a population's cache asks nothing before the failure");
			rc = -1;
		} else if ((s = steer_unit_site(in, &in->units[u], why, len)) < 0) {
			rc = -1;
		} else {
			q_on[i] = s == site;
		}
	}
	free(in);
	return rc;
}
