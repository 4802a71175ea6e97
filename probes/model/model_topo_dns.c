/*
 * The DNS side of the model's input from a loaded topology (docs/model.md,
 * "The DNS window", "Real resolvers"): the name the DNS clients resolve,
 * its TTL and policy, its server's quorum, the probers that report to it,
 * and every [resolver] node's caches, resolverd's and the real resolvers',
 * with their clamps, phases, upstream settings and whole seconds; what the
 * model does not follow through a real resolver. See model_topo_int.h.
 */
#include "model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <arpa/inet.h>

#include "model_steer.h"
#include "model_topo_int.h"
#include "topology.h"

/* the [dns] node serving the name's zone (topo_dns_name), -1 if none */
static int dns_server = -1;

double model_topo_cache_ttl(const struct topology *t, int n, double ttl)
{
	const char *v;
	double lo = 0, hi = 86400;

	if ((v = model_topo_rsv(t, n, "min_ttl")) && model_topo_seconds(v) >= 0)
		lo = model_topo_seconds(v);
	if ((v = model_topo_rsv(t, n, "max_ttl")) && model_topo_seconds(v) >= 0)
		hi = model_topo_seconds(v);
	/* resolverd: raised to min_ttl, then cut to max_ttl */
	ttl = floor(ttl < lo ? lo : ttl);
	return ttl > hi ? floor(hi) : ttl;
}

double model_topo_cache_phase(const struct topology *t, int n, unsigned k, double ttl)
{
	const char *ph = model_topo_rsv(t, n, "phase");

	if (ph && strcmp(ph, "spread") == 0)
		return (double)k / t->nodes[n].count;
	if (ph && ph[0] && ph[strlen(ph) - 1] == '%')
		return strtod(ph, NULL) / 100;
	if (ph && strcmp(ph, "none") != 0 && model_topo_seconds(ph) > 0 && ttl > 0)
		return fmod(model_topo_seconds(ph), ttl) / ttl;
	return 0;
}

/* topo_failover_answer: the site a failover name answers with while the
 * sites of topo_dead are out: the first of primary, then secondary's
 * sites in order, that is not; -1 if none */
static int topo_failover_answer(const struct topology *t, const char *primary,
				const char *secondary)
{
	char buf[256], *save = NULL;
	int n = primary ? topo_find(t, primary) : -1;

	if (n >= 0 && !model_topo_dead(n))
		return n;
	snprintf(buf, sizeof(buf), "%s", secondary ? secondary : "");
	for (char *x = strtok_r(buf, " ,", &save); x; x = strtok_r(NULL, " ,", &save))
		if ((n = topo_find(t, x)) >= 0 && !model_topo_dead(n))
			return n;
	return -1;
}

/* topo_rsv_seconds: [resolver] node n's duration key, or def */
static double topo_rsv_seconds(const struct topology *t, int n, const char *key, double def)
{
	const char *v = model_topo_rsv(t, n, key);

	return v && model_topo_seconds(v) >= 0 ? model_topo_seconds(v) : def;
}

/* topo_prefetch: [resolver] node n's prefetch as a share of the TTL (0:
 * none), as resolverd reads it: yes 10 %, N% */
static double topo_prefetch(const struct topology *t, int n)
{
	const char *v = model_topo_rsv(t, n, "prefetch");

	if (v == NULL || strcasecmp(v, "no") == 0 || strcasecmp(v, "off") == 0)
		return 0;
	if (strcasecmp(v, "yes") == 0 || strcasecmp(v, "on") == 0)
		return 0.10;
	return strtod(v, NULL) / 100;
}

/* topo_cache_upstream: node n's upstream attempts and serve-stale, as
 * resolverd defaults them (docs/resolverd.md) */
static void topo_cache_upstream(const struct topology *t, int n, struct model_cache *c)
{
	const char *v = model_topo_rsv(t, n, "retries");

	c->timeout_s = topo_rsv_seconds(t, n, "timeout", 0.5);
	c->retries = v ? (unsigned)strtoul(v, NULL, 10) : 2;
	v = model_topo_rsv(t, n, "serve_stale");
	c->serve_stale = v && strcmp(v, "no") != 0;
	c->stale_ttl_s = topo_rsv_seconds(t, n, "stale_ttl", 30);
	c->max_stale_s = topo_rsv_seconds(t, n, "max_stale", 86400);
	c->stale_recheck_s = topo_rsv_seconds(t, n, "stale_recheck", 30);
	c->prefetch = topo_prefetch(t, n);
}

/* topo_caches: every [resolver] node's caches, their TTL for the name
 * (clamped) and first-fill phase; base[n] the index of node n's first */
static void topo_caches(const struct topology *t, struct model_input *in, int base[], int walk,
			struct model_notes *notes)
{
	for (int n = 0; n < t->nnodes; n++) {
		const struct topo_node *r = &t->nodes[n];
		const char *v;
		double ttl = in->ttl_s;

		base[n] = -1;
		if (r->kind != TOPO_RESOLVER)
			continue;
		if (r->impl != TOPO_IMPL_RESOLVERD)
			model_note(
			    notes, 0,
			    "[resolver] %s runs %s: its cache keeps whole seconds, an entry "
			    "fetched in second s answered %s (docs/model.md, \"Real "
			    "resolvers\"); the wall clock's fraction of a second at the start "
			    "of the traffic drawn",
			    r->name, topo_impl_name(r->impl),
			    r->impl == TOPO_IMPL_BIND
				? "until second s + TTL begins"
				: "until second s + TTL ends, with TTL 0 in that last part, "
				  "its TTL-honouring clients asking every 0.1 s then");
		ttl = model_topo_cache_ttl(t, n, ttl);
		if (ttl != in->ttl_s)
			model_note(notes, 0,
				   "[resolver] %s clamps the TTL %g s to %g s (min_ttl, max_ttl)",
				   r->name, in->ttl_s, ttl);
		if ((v = model_topo_rsv(t, n, "serve_stale")) && strcmp(v, "no") != 0)
			model_note(notes, 0,
				   "[resolver] %s: serve_stale = %s changes nothing while its "
				   "upstream answers (it serves stale only when a refresh fails)",
				   r->name, v);
		if (topo_prefetch(t, n) > 0) {
			in->dns_sim = 1;
			model_note(notes, 0,
				   "[resolver] %s: prefetch = %s: a hit that finds less than %g %% "
				   "of the TTL left refreshes the entry in the background; its "
				   "clients followed query by query (docs/model.md, \"Prefetch\")",
				   r->name, model_topo_rsv(t, n, "prefetch"),
				   topo_prefetch(t, n) * 100);
		}
		base[n] = in->ncaches;
		for (unsigned k = 0; k < r->count && in->ncaches < MODEL_MAX_CACHES; k++) {
			struct model_cache *c = &in->caches[in->ncaches++];

			snprintf(c->name, sizeof(c->name), "%s%u", r->name, k + 1);
			c->ttl_s = ttl;
			c->walk = r->rsv_mode == TOPO_RSV_ITERATE ? walk : 0;
			c->phase_s = model_topo_cache_phase(t, n, k, ttl) * ttl;
			c->up_s = model_topo_owd(t, n, dns_server);
			c->fill_s = c->up_s + model_topo_owd(t, dns_server, n);
			topo_cache_upstream(t, n, c);
			c->whole = r->impl == TOPO_IMPL_RESOLVERD ? 0
				   : r->impl == TOPO_IMPL_BIND	  ? -1
								  : 1;
		}
		if (model_topo_rsv(t, n, "phase"))
			model_note(
			    notes, 0,
			    "[resolver] %s: phase = %s: cache k of its %u first expires "
			    "(1 - phase_k) x TTL after the start of the traffic, then every TTL",
			    r->name, model_topo_rsv(t, n, "phase"), r->count);
	}
}

/* topo_late_outages: with real resolvers, whether every DNS outage of the
 * timeline begins after every DNS client has moved at the latest (t0's
 * latest, the last verdict, then the longest time from one fetch to the
 * next: a TTL, the second past it, a client's 0.1 s hold and the refill's
 * way; a sticky client's hold on top): the failover's clocks then do not
 * see them, and the closed forms hold */
static int topo_late_outages(struct model_input *in, struct model_notes *notes)
{
	double steer = 0, period = 0, sticky = 0, from = INFINITY, by;

	for (int p = 0; p < in->nprobers; p++)
		steer = fmax(steer, model_detect_max(&in->probers[p]) + in->probers[p].report_s);
	for (int c = 0; c < in->ncaches; c++) {
		if (in->caches[c].prefetch > 0)
			return 0;
		period = fmax(period, in->caches[c].ttl_s + 1 + 0.1 + 2 * in->caches[c].drift_s);
	}
	for (int i = 0; i < in->nclients; i++)
		if (in->clients[i].scheme == MODEL_DNS) {
			sticky = fmax(sticky, in->clients[i].sticky_s);
			if (in->clients[i].cache < 0)
				period = fmax(period, in->ttl_s + 0.1);
		}
	for (int o = 0; o < in->noutages; o++)
		from = fmin(from, in->outages[o].from_s);
	by = in->fail_at_s + in->fail_jitter_s + steer + period + sticky;
	if (!isfinite(steer) || in->noutages == 0 || by >= from)
		return 0;
	model_note(notes, 0,
		   "the DNS outages begin %g s into the traffic, after every DNS client has moved "
		   "(by %.3f s at the latest): the failover's clocks do not see them",
		   from, by);
	return 1;
}

/* topo_real_limits: what the model does not follow through a real
 * resolver (one of whole seconds): a DNS outage before its clients moved
 * or a prefetch (their own upstream timers, docs/resolvers.md), a
 * population */
void model_topo_real_limits(const struct topology *t, struct model_input *in,
			    struct model_notes *notes)
{
	for (int n = 0; n < t->nnodes; n++) {
		const struct topo_node *r = &t->nodes[n];
		int pop = 0;

		if (r->kind != TOPO_RESOLVER || r->impl == TOPO_IMPL_RESOLVERD)
			continue;
		if (!in->upstream_limit[0])
			snprintf(
			    in->upstream_limit, sizeof(in->upstream_limit),
			    "[resolver] %s runs %s: its queries upstream beside the name's "
			    "fills (its priming of the root, the lab's readiness query) are its "
			    "own: not modelled",
			    r->name, topo_impl_name(r->impl));
		for (int c = 0; c < t->nnodes; c++)
			pop |= t->nodes[c].kind == TOPO_CLIENT && t->nodes[c].resolver == n &&
			       t->nodes[c].population > 0;
		if (in->dns_limit[0])
			continue;
		if (in->dns_sim && topo_late_outages(in, notes)) {
			/* the closed forms; the fail-back's through the
			 * outages not modelled (model_topo_failback) */
			in->dns_sim = 0;
		} else if (in->dns_sim) {
			snprintf(in->dns_limit, sizeof(in->dns_limit),
				 "[resolver] %s runs %s: a DNS outage before its clients moved, "
				 "or a prefetch (its own upstream timers): not modelled",
				 r->name, topo_impl_name(r->impl));
		} else if (pop)
			snprintf(in->dns_limit, sizeof(in->dns_limit),
				 "[resolver] %s runs %s: a population through it: not modelled",
				 r->name, topo_impl_name(r->impl));
	}
}

/* pop_off[n][k]: population node n's cache slot k never sent its clients
 * to the failed site (topo_policy_on; model_topo_pop_off) */
static unsigned char pop_off[TOPO_MAX_NODES][MODEL_POP_RES_MAX];

int model_topo_pop_off(int node, int k)
{
	return node >= 0 && node < TOPO_MAX_NODES && k >= 0 && k < MODEL_POP_RES_MAX &&
	       pop_off[node][k];
}

/* topo_pop_slot_addr: the address population node n's cache slot k asks
 * from, as model_topo.c's topo_pop lays its slots out */
static uint32_t topo_pop_slot_addr(const struct topology *t, int n, int k)
{
	const struct topo_node *c = &t->nodes[n];
	int k0 = c->resolver_instance > 0 ? c->resolver_instance - 1 : 0;

	return ntohl(topo_resolver_addr(t, c->resolver, (c->resolver_all ? k : k0) + 1).s_addr);
}

/* topo_policy_on: a name whose policy is not failover: the DNS client
 * nodes on the failed site at t0 are those its answers sent there before
 * it, every site healthy (the steady state's units, model_steer_on_site),
 * and of a population through a [resolver], the clients of the caches
 * sent there; not modelled for a population asking authd itself, or where
 * an answer was one of several */
static void topo_policy_on(const struct topology *t, struct model_input *in, int site,
			   const char *name, const char *policy, int on_failed[],
			   struct model_notes *notes)
{
	char why[MODEL_NOTE_MAX] = "", on[256] = "";
	static uint32_t q[TOPO_MAX_NODES * 8];
	static int q_on[TOPO_MAX_NODES * 8], q_node[TOPO_MAX_NODES * 8], q_k[TOPO_MAX_NODES * 8];
	int nq = 0, pops = 0;
	size_t len = 0;

	memset(pop_off, 0, sizeof(pop_off));
	for (int n = 0; n < t->nnodes; n++) {
		const struct topo_node *c = &t->nodes[n];
		int nres;

		if (c->kind != TOPO_CLIENT || c->mode == TOPO_MODE_ANYCAST || c->population == 0)
			continue;
		nres = c->resolver >= 0 && t->nodes[c->resolver].kind == TOPO_RESOLVER
			   ? (c->resolver_all ? (int)t->nodes[c->resolver].count : 1)
			   : 0;
		if (nres == 0 || nres > MODEL_POP_RES_MAX ||
		    nq + nres > (int)(sizeof(q) / sizeof(q[0]))) {
			snprintf(in->dns_limit, sizeof(in->dns_limit),
				 "%.100s has policy %.20s: which of population %s's clients were "
				 "on the failed site at t0 is not modelled (%s)",
				 name, policy ? policy : "(none)", c->name,
				 nres == 0 ? "it asks no [resolver]" : "too many caches");
			return;
		}
		for (int k = 0; k < nres; k++) {
			q_node[nq] = n;
			q_k[nq] = k;
			q[nq++] = topo_pop_slot_addr(t, n, k);
		}
		pops++;
	}
	if (model_steer_on_site(t, site, on_failed, q, nq, q_on, why, sizeof(why)) == -1) {
		snprintf(in->dns_limit, sizeof(in->dns_limit), "%s", why);
		return;
	}
	for (int i = 0; i < nq; i++)
		pop_off[q_node[i]][q_k[i]] = !q_on[i];
	for (int n = 0; n < t->nnodes && len < sizeof(on) - 1; n++)
		if (t->nodes[n].kind == TOPO_CLIENT && on_failed[n]) {
			int w = snprintf(on + len, sizeof(on) - len, "%s%s", len ? ", " : "",
					 t->nodes[n].name);

			len += w > 0 ? (size_t)w : 0;
		}
	model_note(notes, 0,
		   "dns: %s has policy %s: before the failure, every site healthy, its answers "
		   "sent %s to %s (the steady state's, docs/model.md \"Steady state\"); the "
		   "other DNS clients never were on it%s",
		   name, policy ? policy : "(none)", len ? on : "no client", t->nodes[site].name,
		   pops ? "; of a population, the clients of the caches sent there" : "");
}

/* topo_dns_name: the name the DNS clients resolve: its TTL, which DNS
 * client nodes its policy had on the failed site at t0 (on_failed[node]),
 * the quorum of the [dns] node serving it */
static void topo_dns_name(const struct topology *t, struct model_input *in, int site,
			  const char *name, int on_failed[], struct model_notes *notes)
{
	int s = model_topo_name_section(t, name), z = topo_name_zone(t, name);
	const char *policy = s >= 0 ? topo_raw(t, s, "policy") : NULL;
	const char *ttl = s >= 0 ? topo_raw(t, s, "ttl") : NULL;
	const char *primary = s >= 0 ? topo_raw(t, s, "primary") : NULL;
	const char *secondary = s >= 0 ? topo_raw(t, s, "secondary") : NULL;

	if (ttl == NULL && z >= 0)
		ttl = topo_raw(t, z, "ttl");
	in->ttl_s = ttl && model_topo_seconds(ttl) >= 0 ? model_topo_seconds(ttl) : 30;
	in->quorum = 0.5;
	dns_server = -1;
	for (int n = 0; n < t->nnodes; n++)
		if (topo_dns_serves(t, n, z)) {
			in->quorum = t->nodes[n].quorum;
			dns_server = n;
			break;
		}
	for (int n = 0; n < t->nnodes; n++)
		on_failed[n] = 0;
	memset(pop_off, 0, sizeof(pop_off));
	if (policy && strcmp(policy, "failover") == 0 && primary) {
		int on = topo_failover_answer(t, primary, secondary);

		for (int n = 0; n < t->nnodes; n++)
			on_failed[n] = on == site;
		model_note(notes, 0,
			   "dns: %s has policy failover, primary %s: every DNS client was on %s "
			   "at t0",
			   name, primary, on >= 0 ? t->nodes[on].name : "no site");
	} else if (!in->dns_limit[0]) {
		topo_policy_on(t, in, site, name, policy, on_failed, notes);
	}
}

/* topo_own_check: the check of a [dns] node that checks the sites itself
 * (impl = pdns or gdnsd, docs/authorities.md) of site s: a TCP connection
 * every check_interval, at a phase of its own (its cycle began in the
 * warm-up, not with the traffic), check_down failures in a row declaring
 * the site down (PowerDNS 4.7: one), its answers following at once. -1 if
 * it never sees the failure: a drained or degraded site still completes
 * the handshake. */
static int topo_own_check(const struct topology *t, int dns, int s, int how, struct model_probe *p)
{
	const struct topo_node *n = &t->nodes[dns];

	memset(p, 0, sizeof(*p));
	p->free_phase = 1;
	p->interval_s = (double)n->check_interval_ns / 1e9;
	p->down = n->check_down;
	p->up = n->check_up;
	if (how == MODEL_FREEZE || how == MODEL_LINK_DOWN) {
		p->fail_s = (double)n->check_timeout_ns / 1e9;
		return 0;
	}
	if (how == MODEL_DRAIN || how == MODEL_DEGRADE)
		return -1;
	/* kill, crash: the site's kernel refuses, an RST one RTT after the SYN */
	p->fail_s = (double)topo_rtt_ns(t, dns, s) / 1e9;
	return 0;
}

/* topo_probers: the [prober] nodes, which report to authd, against the
 * failure; or the checks of PowerDNS or gdnsd when it serves the name */
static void topo_probers(const struct topology *t, struct model_input *in, int site,
			 struct model_notes *notes)
{
	if (dns_server >= 0 && t->nodes[dns_server].dns_impl != TOPO_DNS_AUTHD) {
		const char *impl =
		    t->nodes[dns_server].dns_impl == TOPO_DNS_GDNSD ? "gdnsd" : "pdns";
		struct model_probe p;

		in->quorum = 0;
		in->own_checks = 1;
		in->answer_lag_s =
		    t->nodes[dns_server].dns_impl == TOPO_DNS_GDNSD ? MODEL_GDNSD_LAG_S : 0;
		if (topo_own_check(t, dns_server, site, in->how, &p) == -1) {
			p.interval_s = INFINITY;
			model_note(notes, 0,
				   "dns: %s on %s checks the sites with a TCP connection, which a "
				   "%s leaves open: it never declares the site dead",
				   impl, t->nodes[dns_server].name, model_how_name(in->how));
		} else {
			model_note(
			    notes, 0,
			    "dns detect: %s on %s checks each site itself (a TCP connection) "
			    "every %g s at a phase of its own, %u failure(s) declaring it down, "
			    "its answers changing %s",
			    impl, t->nodes[dns_server].name, p.interval_s, p.down,
			    in->answer_lag_s > 0 ? "a second later (gdnsd's own delay)"
						 : "at once");
		}
		in->probers[in->nprobers++] = p;
		return;
	}
	for (int n = 0; n < t->nnodes && in->nprobers < MODEL_MAX_PROBERS; n++) {
		struct model_probe p;

		if (t->nodes[n].kind != TOPO_PROBER)
			continue;
		if (in->fail_family &&
		    (t->nodes[n].family == TOPO_FAMILY_6 ? 6 : 4) != in->fail_family) {
			/* a failure of the other family: its probes answered */
			model_topo_probe(t, n, site, in->how, &p);
			p.interval_s = INFINITY;
			model_note(notes, 0,
				   "dns: prober %s probes over IPv%d: it never sees the failure of "
				   "IPv%d alone",
				   t->nodes[n].name, in->fail_family == 6 ? 4 : 6, in->fail_family);
		} else if (model_topo_probe(t, n, site, in->how, &p) == -1) {
			/* its verdict never comes: last of all */
			p.interval_s = INFINITY;
			model_note(notes, 0,
				   "dns: prober %s's check cannot see a %s: it never "
				   "declares the site dead",
				   t->nodes[n].name, model_how_name(in->how));
		}
		p.report_s = model_topo_owd(t, n, dns_server);
		in->probers[in->nprobers++] = p;
	}
	if (in->nprobers)
		model_note(notes, 0,
			   "dns detect: verdict %u of the %d probers' (authd: healthy while more "
			   "than quorum %g x the probers say up)",
			   model_quorum_needed((unsigned)in->nprobers, in->quorum), in->nprobers,
			   in->quorum);
}

int model_topo_dns(const struct topology *t, struct model_input *in, int site, const char *name,
		   int probers, int base[], int on_failed[], struct model_notes *notes)
{
	int z = topo_name_zone(t, name), walk = 0;

	topo_dns_name(t, in, site, name, on_failed, notes);
	if (probers)
		topo_probers(t, in, site, notes);
	/* an iterating cache's first fill asks every zone above the name's */
	for (int p = z >= 0 ? t->raw_sections[z].parent : -1; p >= 0 && walk < 64;
	     p = t->raw_sections[p].parent)
		walk++;
	topo_caches(t, in, base, walk, notes);
	return dns_server;
}
