/*
 * The lab's model input from a loaded topology (docs/model.md, "From the
 * topology"): the failure of the timeline modelled, the probers that see
 * it, the DNS side (the name, its probers, the caches: model_topo_dns.c),
 * each client's flows, the anycast side; every assumption said in the notes, and
 * everything the model does not cover said there as not modelled, with the
 * clocks it would change left unknown rather than guessed. See model.h.
 */
#include "model.h"

#include <math.h>
#include <stdlib.h>
#include <arpa/inet.h>
#include <string.h>
#include <strings.h>

#include "model_topo_int.h"
#include "topology.h"

#define NS 1e9

double model_topo_seconds(const char *v)
{
	static const struct {
		const char *unit;
		double s;
	} units[] = {{"", 1},  {"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3},
		     {"s", 1}, {"m", 60},    {"h", 3600},  {"d", 86400}};
	char *end;
	double x = strtod(v, &end);

	if (end == v || x < 0)
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(end, units[i].unit) == 0)
			return x * units[i].s;
	return -1;
}

const char *model_topo_rsv(const struct topology *t, int n, const char *key)
{
	const char *v = NULL;

	for (int i = 0; i < t->nrsv_pairs; i++)
		if (t->rsv_pairs[i].node == n && strcmp(t->rsv_pairs[i].key, key) == 0)
			v = t->rsv_pairs[i].value;
	return v;
}

int model_topo_same_name(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	la -= la && a[la - 1] == '.';
	lb -= lb && b[lb - 1] == '.';
	return la == lb && strncasecmp(a, b, la) == 0;
}

int model_topo_name_section(const struct topology *t, const char *name)
{
	for (int s = 0; s < t->nraw_sections; s++)
		if (strcmp(t->raw_sections[s].kind, "name") == 0 &&
		    model_topo_same_name(t->raw_sections[s].name, name))
			return s;
	return -1;
}

int model_topo_probe(const struct topology *t, int prober, int s, int how, struct model_probe *p)
{
	const struct topo_node *n = &t->nodes[prober];
	int64_t rtt = prober == s ? 0 : topo_rtt_ns(t, prober, s);
	double timeout = (double)n->probe_timeout_ns / NS;

	p->free_phase = n->probe_phase == TOPO_PROBE_PHASE_RANDOM && t->seed < 0;
	p->phase_s = (double)topo_probe_offset_ns(t, prober) / NS;
	p->interval_s = (double)n->probe_interval_ns / NS;
	p->down = n->probe_down;
	p->up = n->probe_up;
	/* a cut link: the site's own prober, over loopback, sees it answer;
	 * the others' probes vanish on the way (measured: no ICMP error comes
	 * back) */
	if (how == MODEL_LINK_DOWN && prober == s)
		return -1;
	if (how == MODEL_LINK_DOWN)
		how = MODEL_FREEZE;
	if (n->check == TOPO_CHECK_ICMP) /* the host answers whatever runs there */
		return how == MODEL_FREEZE ? (p->fail_s = timeout, 0) : -1;
	if (how == MODEL_FREEZE) {
		if (n->check != TOPO_CHECK_UDP && t->probe_connect_timeout_ns > 0)
			timeout = (double)t->probe_connect_timeout_ns / NS;
		p->fail_s = timeout;
		return 0;
	}
	/* drain and degrade: the kernel's handshake goes on, so a shallow
	 * check sees neither */
	if ((how == MODEL_DRAIN || how == MODEL_DEGRADE) && n->check == TOPO_CHECK_TCP)
		return -1;
	if (how == MODEL_DEGRADE) {
		/* no answer: http's response waited for from the connection
		 * (probe_connect_timeout set) or from the send */
		p->fail_s = timeout;
		if (n->check == TOPO_CHECK_HTTP && t->probe_connect_timeout_ns > 0)
			p->fail_s += rtt > 0 ? (double)rtt / NS : 0;
		return 0;
	}
	/* kill, crash: the kernel refuses (ICMP port unreachable, an RST);
	 * drain: sited answers, flagged draining */
	p->fail_s = rtt > 0 ? (double)rtt / NS : 0;
	return 0;
}

int model_topo_catchment(const struct topology *t, int c, int s)
{
	struct topo_path path[TOPO_MAX_NODES];
	uint64_t best = UINT64_MAX, mine = UINT64_MAX;
	int nbest = 0;

	topo_paths(t, topo_node_router(t, c), path);
	for (int n = 0; n < t->nnodes; n++) {
		int r;
		uint64_t key;

		if (t->nodes[n].kind != TOPO_SITE || model_topo_dead(n))
			continue;
		r = topo_node_router(t, n);
		if (path[r].hops < 0)
			continue;
		key = (uint64_t)path[r].hops * TOPO_HOPS_METRIC + t->nodes[n].metric;
		if (n == s)
			mine = key;
		if (key < best) {
			best = key;
			nbest = 1;
		} else if (key == best) {
			nbest++;
		}
	}
	if (mine != best)
		return 0;
	return nbest == 1 ? 1 : -1;
}

/* topo_how: how the model names timeline action a (MODEL_HOW_OTHER for one
 * it does not follow) */
static int topo_how(int a)
{
	static const int how[TOPO_A_COUNT] = {
	    [TOPO_A_KILL] = MODEL_KILL + 1,	  [TOPO_A_CRASH] = MODEL_CRASH + 1,
	    [TOPO_A_FREEZE] = MODEL_FREEZE + 1,	  [TOPO_A_DRAIN] = MODEL_DRAIN + 1,
	    [TOPO_A_DEGRADE] = MODEL_DEGRADE + 1, [TOPO_A_LINK_DOWN] = MODEL_LINK_DOWN + 1,
	};

	/* stored + 1: 0, an action left out */
	return a >= 0 && a < TOPO_A_COUNT && how[a] ? how[a] - 1 : MODEL_HOW_OTHER;
}

/* topo_failure: the timeline's k-th failure: its site, how, when; the
 * sites of the failures before it, not recovered by then, out
 * (model_topo_set_dead) */
/* topo_probers_of: whether a [prober] probes over family (4 or 6) */
static int topo_probers_of(const struct topology *t, int family)
{
	for (int n = 0; n < t->nnodes; n++)
		if (t->nodes[n].kind == TOPO_PROBER &&
		    (t->nodes[n].family == TOPO_FAMILY_6 ? 6 : 4) == family)
			return 1;
	return 0;
}

static int topo_failure(const struct topology *t, int k, struct model_input *in, int *site,
			int *action)
{
	int e = model_topo_nth_failure(t, k);
	int64_t at;

	model_topo_set_dead(t, k);
	if (e < 0)
		return -1;
	*site = model_topo_failure_site(t, e);
	at = t->events[e].at_ns;
	*action = topo_event_failing(t->events[e].action) ? t->events[e].action : -1;
	snprintf(in->event, sizeof(in->event), "%s", t->events[e].name);
	/* the site's own link to its router, not another */
	in->how = *action == TOPO_A_LINK_DOWN &&
			  (t->events[e].link < 0 || t->links[t->events[e].link].node != *site)
		      ? MODEL_HOW_OTHER
		      : topo_how(*action);
	/* a freeze or link-down of one family: to the probers of that family
	 * a freeze (their probes unanswered), the others never see it; the
	 * clients of the other family (and dual ones, which go on over it)
	 * lose nothing. Not followed without such a prober: no detection
	 * ever comes */
	if (t->events[e].family != TOPO_EV_FAMILY_BOTH) {
		in->fail_family = t->events[e].family == TOPO_EV_FAMILY_6 ? 6 : 4;
		in->how = (in->how == MODEL_FREEZE || in->how == MODEL_LINK_DOWN) &&
				  topo_probers_of(t, in->fail_family)
			      ? MODEL_FREEZE
			      : MODEL_HOW_OTHER;
	}
	in->fail_at_s = (double)at / NS;
	snprintf(in->site, sizeof(in->site), "%s", t->nodes[*site].name);
	return 0;
}

/* the [dns] node serving the name's zone (model_topo_dns), -1 if none */
static int topo_server = -1;

double model_topo_owd(const struct topology *t, int a, int b)
{
	int64_t ns = a < 0 || b < 0 || a == b ? 0 : topo_owd_ns(t, a, b);

	return ns > 0 ? (double)ns / NS : 0;
}

static int topo_aaaa_cache(struct model_input *in, int c);

/* topo_pop: client node n's population into in->pops (its caches from
 * base), as the client agent lays it out (docs/agents.md, "Populations");
 * -1 if there is no room (the node is left out, said) */
static int topo_pop(const struct topology *t, struct model_input *in, int n, const int base[],
		    struct model_notes *notes)
{
	const struct topo_node *c = &t->nodes[n];
	struct model_pop *p;
	int r = c->resolver;
	if (in->npops == MODEL_MAX_POPS) {
		model_note(notes, 1, "client %s: more than %d populations: left out", c->name,
			   MODEL_MAX_POPS);
		return -1;
	}
	p = &in->pops[in->npops++];
	memset(p, 0, sizeof(*p));
	p->n = c->population;
	p->skew = c->skew == TOPO_SKEW_HARMONIC ? MODEL_SKEW_HARMONIC
		  : c->skew == TOPO_SKEW_ZIPF	? MODEL_SKEW_ZIPF
						: MODEL_SKEW_EQUAL;
	p->zipf_s = c->zipf_exponent;
	p->rate_per_s = c->rate;
	if (c->arrivals == TOPO_ARRIVALS_POISSON) {
		const char *why = "a population with poisson arrivals (its clients' requests "
				  "at random instants) is not modelled";

		if (c->mode != TOPO_MODE_DNS && !in->anycast_limit[0])
			snprintf(in->anycast_limit, sizeof(in->anycast_limit), "%s", why);
		if (c->mode != TOPO_MODE_ANYCAST && !in->dns_limit[0])
			snprintf(in->dns_limit, sizeof(in->dns_limit), "%s", why);
	}
	if (c->mode != TOPO_MODE_ANYCAST && r >= 0) {
		const struct topo_node *rn = &t->nodes[r];
		int all = rn->kind == TOPO_RESOLVER && c->resolver_all;
		int k0 = c->resolver_instance > 0 ? c->resolver_instance - 1 : 0;
		char buf[TOPO_WEIGHTS_LEN], *save = NULL;

		p->nres = all ? (int)rn->count : 1;
		for (int k = 0; k < p->nres && k < MODEL_POP_RES_MAX; k++) {
			p->cache[k] = rn->kind == TOPO_RESOLVER && base[r] >= 0
					  ? base[r] + (all ? k : k0)
					  : -1;
			/* of family 6 or dual: its requests follow the AAAA, an
			 * entry of its own in the cache */
			if (c->family != TOPO_FAMILY_4 && p->cache[k] >= 0)
				p->cache[k] = topo_aaaa_cache(in, p->cache[k]);
			p->off[k] = model_topo_pop_off(n, k);
		}
		snprintf(buf, sizeof(buf), "%s", c->resolver_weights);
		for (char *x = strtok_r(buf, ",", &save); x && p->nweights < p->nres;
		     x = strtok_r(NULL, ",", &save))
			p->weight[p->nweights++] = strtod(x, NULL);
		if (c->sticky_ns > 0) {
			p->all_sticky = 1;
			p->sticky_s = (double)c->sticky_ns / NS;
		} else if (t->sticky_share > 0) {
			p->sticky_share = t->sticky_share;
			p->sticky_s = (double)t->sticky_ns / NS;
		}
		model_note(
		    notes, 0,
		    "dns: population %s: each of its %u logical clients followed through "
		    "its cache (docs/model.md, \"Populations\"): its first answer asked of "
		    "every cache at once at the start and held a fraction of a hold, then a "
		    "query at its first request after its hold ran out, the hold the TTL its "
		    "cache has left (whole seconds, at least 0.1 s)%s",
		    c->name, c->population,
		    p->sticky_share > 0 || p->all_sticky ? ", or sticky's" : "");
		if (c->family == TOPO_FAMILY_DUAL)
			model_note(notes, 0,
				   "dns: population %s (family dual): its clients followed through "
				   "their caches' AAAA entries, which their requests use; the A "
				   "lookups of Happy Eyeballs' fallback are not counted upstream",
				   c->name);
	}
	/* its requests are due from the start of the traffic (those due
	 * before its first answers came go when they come) */
	p->from_s = 0;
	return 0;
}

/* topo_tcp_limit: why TCP or HTTP client c's window and losses are not
 * modelled, into in->clients_limit (docs/model.md, "Connections"): a kill
 * or a crash (the site's kernel refuses at once) of a client that keeps one
 * connection, or HTTP's, resolving for itself, is */
static void topo_tcp_limit(struct model_input *in, const struct topo_node *c)
{
	const char *why = NULL;

	if (in->how != MODEL_KILL && in->how != MODEL_CRASH)
		why = "over a connection, only a kill's or a crash's (the site's kernel refusing "
		      "at once)";
	else if (c->population > 0)
		why = "a population over TCP or HTTP";
	else if (c->requests_per_conn || c->idle_timeout_ns || c->pipeline)
		why = "a TCP client that closes its connections itself (requests_per_conn, "
		      "idle_timeout) or limits what is outstanding on one (pipeline)";
	else if (c->addresses == TOPO_ADDRESSES_NEXT)
		why = "a TCP client that tries an answer's next address";
	else if (c->proto == TOPO_PROTO_HTTP && c->resolve == TOPO_RESOLVE_LIBCURL)
		why = "an HTTP client that lets libcurl resolve (its own DNS cache)";
	if (why)
		snprintf(in->clients_limit, sizeof(in->clients_limit),
			 "TCP and HTTP clients (connections, reconnections): %s; not modelled",
			 why);
}

/* topo_plays_differ: anycast over BGP, client m's plays of the
 * withdrawal (FRR's choice among equal paths, the monotonic clock's phase
 * against an advertisement interval) do not all agree */
static int topo_plays_differ(const struct model_client *m)
{
	/* after_s and alt_after_s are plays 0 and nplays / 2 */
	for (int p = 1; p < m->nplays; p++)
		if (m->play_after_s[p] != m->play_after_s[0] ||
		    m->play_lost_extra_s[p] != m->play_lost_extra_s[0])
			return 1;
	return 0;
}

/* topo_aaaa_cache: cache c's entry of the name's AAAA record (the A's is
 * c itself): one more model cache, as c in all but its entry, made once
 * (the same index for every client asking it); c if there is no room */
static int topo_aaaa_cache(struct model_input *in, int c)
{
	char name[MODEL_NAME_MAX];

	snprintf(name, sizeof(name), "%.20s AAAA", in->caches[c].name);
	for (int k = 0; k < in->ncaches; k++)
		if (strcmp(in->caches[k].name, name) == 0)
			return k;
	if (in->ncaches == MODEL_MAX_CACHES)
		return c;
	in->caches[in->ncaches] = in->caches[c];
	memcpy(in->caches[in->ncaches].name, name, sizeof(name));
	in->caches[in->ncaches].aaaa_of = c + 1;
	return in->ncaches++;
}

/* topo_unharmed: whether client c loses nothing to a failure of one
 * family (in->fail_family): it sends over the other one, or, dual, goes on
 * over it (Happy Eyeballs) */
static int topo_unharmed(const struct model_input *in, const struct topo_node *c)
{
	int fam = c->family == TOPO_FAMILY_6 ? 6 : c->family == TOPO_FAMILY_4 ? 4 : 0;

	return in->fail_family && fam != in->fail_family;
}

/* topo_clients: each client node's flows */
static void topo_clients(const struct topology *t, struct model_input *in, int site,
			 const int base[], const int dns_on_failed[],
			 const struct model_topo_bgp_client *bgp, struct model_notes *notes)
{
	for (int n = 0; n < t->nnodes && in->nclients < MODEL_MAX_CLIENTS - 1; n++) {
		const struct topo_node *c = &t->nodes[n];

		if (c->kind != TOPO_CLIENT)
			continue;
		if (c->population > 0 && in->fail_family && !in->dns_limit[0])
			snprintf(in->dns_limit, sizeof(in->dns_limit),
				 "a population through a failure of one address family is not "
				 "modelled");
		if (c->population > 0 && topo_pop(t, in, n, base, notes) == -1)
			continue;
		/* their detect and steer are any client's */
		if (c->proto != TOPO_PROTO_UDP && !in->clients_limit[0])
			topo_tcp_limit(in, c);
		if (c->mode != TOPO_MODE_DNS) {
			struct model_client *m = &in->clients[in->nclients++];
			int to = bgp ? bgp[n].on : model_topo_catchment(t, n, site);

			snprintf(m->name, sizeof(m->name), "%s", c->name);
			m->scheme = MODEL_ANYCAST;
			m->proto = c->proto == TOPO_PROTO_TCP	 ? MODEL_TCP
				   : c->proto == TOPO_PROTO_HTTP ? MODEL_HTTP
								 : MODEL_UDP;
			m->tcp_now = t->reconnect == 1;
			m->attempt_s =
			    c->family == TOPO_FAMILY_DUAL ? TOPO_ATTEMPT_DELAY_NS / NS : 0;
			m->unharmed = topo_unharmed(in, c);
			m->rate_per_s = c->rate;
			m->to_failed = to == 1;
			m->ask_s = model_topo_owd(t, n, topo_node_router(t, site));
			m->arrive_s = model_topo_owd(t, n, site);
			if (bgp && to == 1) {
				m->after_s = bgp[n].after_s;
				m->lost_extra_s = bgp[n].lost_extra_s;
				m->alt_after_s = bgp[n].alt_after_s;
				m->alt_lost_extra_s = bgp[n].alt_lost_extra_s;
				m->nplays = bgp[n].nplays;
				memcpy(m->play_after_s, bgp[n].play_after_s,
				       sizeof(m->play_after_s));
				memcpy(m->play_lost_extra_s, bgp[n].play_lost_extra_s,
				       sizeof(m->play_lost_extra_s));
				if (m->nplays > 2 && !in->bgp_mrai_note) {
					model_note(
					    notes, 0,
					    "anycast (routing = bgp): an advertisement interval "
					    "(bgp_mrai) holds a speaker's update to a neighbour "
					    "that comes within the interval's whole seconds of the "
					    "monotonic clock after its last one (FRR's "
					    "bgp_adjust_routeadv): the withdrawal played at %d "
					    "phases of that clock's second, one drawn",
					    MODEL_BGP_PHASES);
					in->bgp_mrai_note = 1;
				}
				if (topo_plays_differ(m)) {
					if (!in->bgp_tie_note &&
					    (m->alt_after_s != m->after_s ||
					     m->alt_lost_extra_s != m->lost_extra_s)) {
						in->bgp_tie_note = 1;
						model_note(
						    notes, 0,
						    "anycast (routing = bgp): of equal paths "
						    "FRR keeps the older, which the model cannot "
						    "tell (they came at bring-up, or at once): "
						    "half the draws one way, half the other");
					}
					in->bgp_ties = 1;
				}
			}
			m->cache = -1;
			m->pop = c->population > 0 ? in->npops : 0;
			in->anycast_present = 1;
			if (to == -1 && !in->anycast_limit[0])
				snprintf(in->anycast_limit, sizeof(in->anycast_limit),
					 "%s's router has routes of equal cost to %s and another "
					 "site: which one it uses is not modelled",
					 c->name, t->nodes[site].name);
		}
		if (c->mode != TOPO_MODE_ANYCAST) {
			struct model_client *m = &in->clients[in->nclients++];
			int r = c->resolver;

			snprintf(m->name, sizeof(m->name), "%s", c->name);
			m->scheme = MODEL_DNS;
			m->proto = c->proto == TOPO_PROTO_TCP	 ? MODEL_TCP
				   : c->proto == TOPO_PROTO_HTTP ? MODEL_HTTP
								 : MODEL_UDP;
			m->tcp_now = t->reconnect == 1;
			m->attempt_s =
			    c->family == TOPO_FAMILY_DUAL ? TOPO_ATTEMPT_DELAY_NS / NS : 0;
			m->unharmed = topo_unharmed(in, c);
			m->rate_per_s = c->rate;
			m->to_failed = dns_on_failed[n];
			m->sticky_s = (double)c->sticky_ns / NS;
			m->cache = -1;
			m->pop = c->population > 0 ? in->npops : 0;
			m->arrive_s = model_topo_owd(t, n, site);
			m->ask_s = r >= 0 && t->nodes[r].kind == TOPO_RESOLVER
				       ? model_topo_owd(t, n, r) + model_topo_owd(t, r, topo_server)
				       : model_topo_owd(t, n, topo_server);
			if (m->pop)
				; /* its caches: in its population's */
			else if (r >= 0 && t->nodes[r].kind == TOPO_RESOLVER && base[r] >= 0) {
				struct model_cache *k;
				double d;

				m->cache =
				    base[r] +
				    (c->resolver_instance > 0 ? c->resolver_instance - 1 : 0);
				/* a client of family 6 asks for the AAAA: an entry of
				 * its own in the cache, filled and expiring apart; a
				 * dual one for both, its requests following the AAAA */
				if (c->family == TOPO_FAMILY_DUAL)
					m->cache2 = m->cache + 1;
				if (c->family != TOPO_FAMILY_4)
					m->cache = topo_aaaa_cache(in, m->cache);
				/* a TTL-honouring client refills it a query's way
				 * there and back and a fill's after it expired */
				k = &in->caches[m->cache];
				m->to_cache_s = model_topo_owd(t, n, r);
				m->from_cache_s = model_topo_owd(t, r, n);
				d = m->to_cache_s + m->from_cache_s + k->fill_s;
				if (m->sticky_s <= 0 && (k->drift_s <= 0 || d < k->drift_s))
					k->drift_s = d;
				/* and of a dual client's A entry alike */
				k = m->cache2 ? &in->caches[m->cache2 - 1] : NULL;
				if (k && m->sticky_s <= 0 && (k->drift_s <= 0 || d < k->drift_s))
					k->drift_s = d;
			}
			in->dns_present = 1;
			if (m->sticky_s > 0)
				model_note(
				    notes, 0,
				    "dns: %s is sticky: it resolves every %g s from the start "
				    "of the traffic, whatever the TTL",
				    c->name, m->sticky_s);
		}
	}
}

/* topo_bgp: routing = bgp: the withdrawal is modelled where it crosses one
 * AS hop, from the failed site to its router, which has another site of
 * its own (that site's path already in its table) and every anycast
 * client; the session of that router with the site, for a crash or freeze */
static void topo_bgp(const struct topology *t, struct model_input *in, int site,
		     struct model_notes *notes)
{
	const struct topo_node *s = &t->nodes[site];
	int r = topo_node_router(t, site), other = 0;
	const struct topo_node *rt = &t->nodes[r];
	int64_t hold, keep;

	for (int n = 0; n < t->nnodes; n++)
		other |= n != site && t->nodes[n].kind == TOPO_SITE && topo_node_router(t, n) == r;
	for (int n = 0; n < t->nnodes; n++)
		other &= t->nodes[n].kind != TOPO_CLIENT || t->nodes[n].mode == TOPO_MODE_DNS ||
			 topo_node_router(t, n) == r;
	if (!other && !in->anycast_limit[0])
		model_note(
		    notes, 0,
		    "anycast (routing = bgp): the withdrawal travels over AS hops from %s's "
		    "router %s, every router deciding %.0f ms after the first update it has "
		    "not decided on and its FIB %.0f ms later (bench/bgp's 50 ms a hop); each "
		    "client's packets follow the FIBs hop by hop (docs/model.md, \"BGP over AS "
		    "hops\")",
		    s->name, rt->name, 50.0, 10.0);
	hold = s->bgp_hold_ns < rt->bgp_hold_ns ? s->bgp_hold_ns : rt->bgp_hold_ns;
	keep = s->bgp_keepalive_ns;
	if (hold > 0 && keep > hold / 3)
		keep = hold / 3;
	in->bgp_bfd = s->bfd || rt->bfd;
	if (in->how == MODEL_CRASH || in->how == MODEL_LINK_DOWN) {
		in->bgp_down_s = in->bgp_period_s = 0;
	} else if (in->bgp_bfd) {
		in->bgp_period_s = (double)t->bfd_interval_ns / NS;
		in->bgp_down_s = t->bfd_multiplier * in->bgp_period_s;
	} else {
		in->bgp_down_s = (double)hold / NS;
		in->bgp_period_s = (double)keep / NS;
		if (hold == 0 && in->how == MODEL_FREEZE && !in->anycast_limit[0])
			snprintf(in->anycast_limit, sizeof(in->anycast_limit),
				 "routing = bgp with bgp_hold = 0 and no BFD: nothing ends the "
				 "session with a frozen site");
	}
	if (in->how == MODEL_KILL)
		model_note(
		    notes, 0,
		    "anycast (routing = bgp): the withdrawal takes FRR's floor, %.0f ms from "
		    "the prober's verdict to %s's FIB (two bgpd holds of 50 ms, two zebra "
		    "holds of 10 ms: bench/bgp)",
		    MODEL_BGP_FLOOR_S * 1000, rt->name);
	else
		model_note(notes, 0,
			   "anycast (routing = bgp): %s, then %s's bgpd clears %s's routes and its "
			   "bgpd and zebra holds follow (%.0f ms)",
			   in->how == MODEL_CRASH ? "the crash closes the session at t0"
			   : in->how == MODEL_LINK_DOWN
			       ? "the session ends at t0 with the link (bgpd's fast external "
				 "failover)"
			   : in->bgp_bfd ? "BFD ends the session after its multiplier of "
					   "intervals without a packet (the last at a random "
					   "phase of an interval)"
					 : "the hold timer ends the session, the hold time after "
					   "the site's last keepalive (at a random phase of the "
					   "keepalive interval)",
			   rt->name, s->name, MODEL_BGP_ROUTER_S * 1000);
}

int model_topo_input(const struct topology *t, int k, struct model_input *in,
		     struct model_notes *notes, char *err, size_t errlen)
{
	static int base[TOPO_MAX_NODES];
	static int on_failed[TOPO_MAX_NODES];
	int site, action;
	const char *name = NULL;

	memset(on_failed, 0, sizeof(on_failed));
	memset(in, 0, sizeof(*in));
	memset(notes, 0, sizeof(*notes));
	topo_server = -1;
	snprintf(in->lab, sizeof(in->lab), "%s", t->name);
	if (topo_failure(t, k, in, &site, &action) == -1) {
		snprintf(err, errlen,
			 "%s: the timeline fails no site (fail = yes on a [site], or an [event] "
			 "that kills, crashes, freezes, drains or cuts one): nothing to predict",
			 t->path);
		return -1;
	}
	in->fail_jitter_s = (double)t->fail_jitter_ns / NS;
	in->duration_s = (double)t->duration_ns / NS;
	in->slo_pct = 99.9;
	in->samples = MODEL_SAMPLES;
	in->seed = MODEL_SEED;
	in->routing = t->routing == TOPO_ROUTING_BGP ? MODEL_BGP : MODEL_STATIC;
	in->static_refresh_s = (double)t->static_refresh_ns / NS;
	in->static_hold_s = (double)t->static_hold_ns / NS;
	if (in->fail_family && in->how != MODEL_HOW_OTHER)
		snprintf(in->anycast_limit, sizeof(in->anycast_limit),
			 "a failure of IPv%d alone is not modelled for anycast (the sites' own "
			 "probers and the routes that follow them see both families at once)",
			 in->fail_family);
	if (in->how == MODEL_HOW_OTHER) {
		int e = model_topo_nth_failure(t, k);

		snprintf(in->anycast_limit, sizeof(in->anycast_limit),
			 "a failure by %s%s is not modelled (kill, crash, freeze, drain, degrade "
			 "and the site's link down are)",
			 topo_action_name(t->events[e].action),
			 t->events[e].family == TOPO_EV_FAMILY_BOTH
			     ? (t->events[e].action == TOPO_A_LINK_DOWN
				    ? " of a link beyond the site's"
				    : "")
			 : t->events[e].action == TOPO_A_DRAIN
			     ? " of one address family (that family's announcement withdrawn)"
			     : " of one address family (no [prober] probes over it: none "
			       "detects it)");
		snprintf(in->dns_limit, sizeof(in->dns_limit), "%s", in->anycast_limit);
		action = -1; /* detect left unknown below */
	}
	model_note(notes, 0,
		   "failure: %s site %s %g s after the start of the traffic%s; clocks in s "
		   "after t0",
		   action < 0 ? "a failure of" : model_how_name(in->how), in->site, in->fail_at_s,
		   in->fail_jitter_s > 0 ? ", t0 uniform within fail_jitter after it" : "");
	/* anycast: the site's own prober (over loopback: a freeze is not seen) */
	in->anycast_detect_by_prober =
	    action >= 0 && in->how != MODEL_CRASH && in->how != MODEL_FREEZE &&
	    model_topo_probe(t, site, site, in->how, &in->site_probe) == 0;
	/* its refreshes share its cycle: random too with probe_phase = random */
	in->site_probe.free_phase =
	    t->nodes[site].probe_phase == TOPO_PROBE_PHASE_RANDOM && t->seed < 0;
	in->site_probe.phase_s = (double)topo_probe_offset_ns(t, site) / NS;
	if (t->nodes[site].probe_phase == TOPO_PROBE_PHASE_RANDOM)
		in->refresh_shift_s =
		    in->site_probe.phase_s - (double)t->nodes[site].probe_interval_ns / NS;
	model_note(notes, 0,
		   "detect: every prober probes half an interval after the start of the "
		   "traffic, then every interval (the lab sets its cycle then), so the failure "
		   "falls at the phase t0 gives (random only within fail_jitter); a refused "
		   "probe fails its configured RTT after its send, an unanswered one "
		   "probe_timeout after; probe_down in a row declare the site dead");
	for (int n = 0; n < t->nnodes; n++)
		if ((t->nodes[n].kind == TOPO_PROBER || n == site) &&
		    t->nodes[n].probe_phase == TOPO_PROBE_PHASE_RANDOM) {
			model_note(
			    notes, 0,
			    "detect: probe_phase = random: each prober so set probes at a "
			    "phase of its own, uniform within its interval, that the lab draws "
			    "from the seed: %s",
			    t->seed >= 0 ? "the topology's, so the model knows it"
					 : "drawn per run, so drawn in each of the model's draws");
			break;
		}
	if (in->routing == MODEL_STATIC)
		model_note(notes, 0,
			   "anycast (routing = static): the verdict leaves every router's FIB at "
			   "once, steer = detect; a crash or freeze by the routers' hold timer "
			   "(static_hold %g s after the last refresh, every %g s)",
			   in->static_hold_s, in->static_refresh_s);
	if (in->how == MODEL_DRAIN)
		model_note(notes, 0,
			   "drain: %s answers every request that reaches it, flagged draining: a "
			   "deep check's probe fails as it comes back, a shallow (tcp) one never; "
			   "nothing is lost (lost = 0), the window is the traffic it still takes",
			   in->site);
	if (in->how == MODEL_DEGRADE)
		model_note(notes, 0,
			   "degrade: %s reads every request and answers none: a deep check's "
			   "probe fails probe_timeout after its send (its own prober's too), a "
			   "shallow (tcp) one never",
			   in->site);
	if (in->how == MODEL_LINK_DOWN)
		model_note(notes, 0,
			   "link-down: nothing reaches %s after t0 (its window 0): every request "
			   "still sent its way is lost on the way; the probes of the other probers "
			   "go unanswered (probe_timeout), its own prober, over loopback, sees "
			   "nothing; %s",
			   in->site,
			   in->routing == MODEL_STATIC
			       ? "the router's kernel drops the routes through the link at t0, the "
				 "other sites' in its FIB already (steer 0)"
			       : "the router's session with it ends with the link (detect 0)");
	/* a failure of another kind (a degrade) is not the site's death: its
	 * prober may still refresh its announcement, the routers' hold timer
	 * need not expire */
	if (action < 0) {
		in->anycast_detect_by_prober = 0;
		in->static_hold_s = 0;
	}
	for (int n = 0; n < t->nnodes && name == NULL; n++)
		if (t->nodes[n].kind == TOPO_CLIENT && t->nodes[n].mode != TOPO_MODE_ANYCAST)
			name = t->nodes[n].dns_name[0] ? t->nodes[n].dns_name : t->dns_name;
	if (name) {
		topo_server =
		    model_topo_dns(t, in, site, name, action >= 0, base, on_failed, notes);
		for (int n = 0; n < t->nnodes; n++)
			if (t->nodes[n].kind == TOPO_CLIENT &&
			    t->nodes[n].mode != TOPO_MODE_ANYCAST &&
			    !model_topo_same_name(
				t->nodes[n].dns_name[0] ? t->nodes[n].dns_name : t->dns_name, name))
				snprintf(in->dns_limit, sizeof(in->dns_limit),
					 "the DNS clients resolve several names: not modelled");
		if (model_topo_authorities(t, NULL, 0) > 1)
			snprintf(in->dns_detect_limit, sizeof(in->dns_detect_limit),
				 "the DNS clients' names are served by several [dns] nodes, "
				 "each deciding on its own: the first of any is measured, "
				 "each one's modelled beside its own (`steerlab model`'s "
				 "authorities; docs/clocks.md, \"Authorities\")");
	}
	if (in->routing == MODEL_BGP) {
		static struct model_topo_bgp_client bgp[TOPO_MAX_NODES];
		char why[MODEL_NOTE_MAX];

		if (t->ecmp && !in->anycast_limit[0])
			snprintf(
			    in->anycast_limit, sizeof(in->anycast_limit),
			    "routing = bgp with ecmp: which of the equal paths a flow takes is "
			    "not modelled");
		if (model_topo_bgp(t, site, bgp, why, sizeof(why)) == -1) {
			if (!in->anycast_limit[0])
				snprintf(in->anycast_limit, sizeof(in->anycast_limit), "%s", why);
			topo_clients(t, in, site, base, on_failed, NULL, notes);
		} else {
			topo_clients(t, in, site, base, on_failed, bgp, notes);
		}
	} else {
		topo_clients(t, in, site, base, on_failed, NULL, notes);
	}
	/* a SYN that reaches no site waits for its retransmission (1 s) */
	for (int i = 0; i < in->nclients && !in->clients_limit[0]; i++)
		if (in->clients[i].proto != MODEL_UDP &&
		    (in->clients[i].lost_extra_s > 0 || in->clients[i].alt_lost_extra_s > 0))
			snprintf(in->clients_limit, sizeof(in->clients_limit),
				 "TCP and HTTP clients (connections, reconnections): %s's packets "
				 "reach no site while BGP's routers disagree (a lost SYN waits for "
				 "its retransmission); not modelled",
				 in->clients[i].name);
	in->withdraw_s = model_topo_owd(t, site, topo_node_router(t, site));
	if (in->routing == MODEL_BGP && action >= 0)
		topo_bgp(t, in, site, notes);
	if (in->dns_present)
		model_note(
		    notes, 0,
		    "dns: each cache's first fill is its clients' first query, at the start "
		    "of the traffic; a client that honours TTLs asks again as its cache's "
		    "entry expires and leaves the failed site then (or up to 0.1 s later: its "
		    "floor on a TTL of 0)");
	model_note(notes, 0,
		   "lost = each client's rate x its last packet after t0 (every request sent to "
		   "the dead site is lost); equivalent downtime = lost / the scheme's rate; "
		   "budget at %g %%: %g s a month",
		   in->slo_pct, model_budget_s(in->slo_pct));
	if (in->dns_present)
		model_note(
		    notes, 0,
		    "upstream queries: each used cache's fills of the name, and once (at its "
		    "first fill) a query to each zone above it when it iterates (the root's "
		    "and TLD's referrals, cached a day); the queries of clients asking the "
		    "name's server directly");
	if (topo_impaired(t) || topo_impair_events(t))
		model_note(notes, 1,
			   "link delays count (a request's, a query's, a verdict's, a withdrawal's "
			   "way: docs/model.md, \"Link delays\"); jitter and loss are left out");
	model_topo_outages(t, in, base, name, topo_server, notes);
	for (int i = 0; i < in->nclients && in->dns_sim && !in->dns_limit[0]; i++)
		if (in->clients[i].scheme == MODEL_DNS && in->clients[i].pop)
			snprintf(in->dns_limit, sizeof(in->dns_limit),
				 "a population through a cache that prefetches: not modelled");
	for (int i = 0; i < t->nraw_pairs && !in->upstream_limit[0]; i++)
		if (strcmp(t->raw_pairs[i].key, "tier") == 0)
			snprintf(in->upstream_limit, sizeof(in->upstream_limit),
				 "[name %.100s] is tiered: its caches also ask the level-2 zones' "
				 "names: not modelled",
				 t->raw_sections[t->raw_pairs[i].section].name);
	if (t->nodes[site].front_door.s_addr && !in->dns_limit[0]) {
		char door[INET_ADDRSTRLEN];
		int kept = -1;

		inet_ntop(AF_INET, &t->nodes[site].front_door, door, sizeof(door));
		for (int n = 0; n < t->nnodes && kept < 0; n++)
			if (n != site && t->nodes[n].kind == TOPO_SITE &&
			    t->nodes[n].front_door.s_addr == t->nodes[site].front_door.s_addr &&
			    !model_topo_dead(n))
				kept = n;
		snprintf(in->dns_limit, sizeof(in->dns_limit),
			 "%.100s is behind the front door %s: its requests move by routing while "
			 "another site serves the door, and have no route while none does: not "
			 "modelled",
			 t->nodes[site].name, door);
		/* DNS keeps the door: steer is routing's (docs/clocks.md, "Front doors") */
		if (kept >= 0)
			snprintf(in->dns_detect_limit, sizeof(in->dns_detect_limit),
				 "%.100s's front door %s stays in the answers while %.100s serves "
				 "it: steer is routing's, not modelled",
				 t->nodes[site].name, door, t->nodes[kept].name);
	}
	model_topo_real_limits(t, in, notes);
	model_topo_failback(t, k, in, site, notes);
	if (model_failures(t) > 1)
		model_note(notes, 0,
			   "every failure of the timeline modelled on its own, the ones before it "
			   "settled and their sites out (the table \"every failure of the "
			   "timeline\"; docs/model.md, \"Every failure\")");
	if (model_topo_other_events(t, in))
		model_note(notes, 1,
			   "the timeline's other events (a later failure's recovery, flaps, DNS "
			   "changes) are not modelled, nor a failure that comes before the ones "
			   "before it settled");
	model_note(notes, 1,
		   "not modelled yet: BGP's iBGP and ECMP; "
		   "populations of poisson arrivals; TCP and HTTP "
		   "connections through failures other than kill and crash; jitter and loss; "
		   "a weighted, multivalue or random pick of the name before the failure");
	if (in->anycast_limit[0])
		model_note(notes, 1, "anycast: %s", in->anycast_limit);
	if (in->dns_limit[0])
		model_note(notes, 1, "dns: %s", in->dns_limit);
	if (in->clients_limit[0])
		model_note(notes, 1, "the clients' clocks (window, last packets, losses): %s",
			   in->clients_limit);
	return 0;
}
