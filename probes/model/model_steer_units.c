/*
 * The steering model's units and flows (model_steer_int.h): a client node's
 * requests through the caches it asks (a unit per [resolver] cache and name,
 * shared with the other nodes that ask it), or through its own answers when
 * it asks authd itself (a unit per logical client of a population); each
 * unit with its querier's answer (model_steer_name.c), the TTL and first-fill
 * phase its cache gives the name, the configured delays to authd (lab/
 * topology's topo_owd_ns and topo_rtt_ns), and who asks it again once it
 * expired: a population's paced clients at their known requests (its first
 * answers asked of every cache at once at its start), the others at random
 * phases.
 */
#include "model_steer_int.h"

#include <arpa/inet.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model_topo_int.h"
#include "popseq.h"

#define NS 1e9
/* a population asks all its caches at once at its start, the answers
 * polled every 0.2 ms (agents/client/popdns.c); its requests start once the
 * last came: about 2 ms beyond the path's RTT */
#define STEER_POLL_S 0.002
/* a client whose hold ran out asks at most this often: CLIENT_DNS_MIN_TTL_NS */
#define STEER_MIN_HOLD_S 0.1
/* a unit per logical client of a population asking authd itself: at most */
#define STEER_USERS_MAX 4096

/* who asks a unit again once its entry expired: n clients at random
 * phases, each every gap seconds, and paced population clients (users, into
 * the input's list, their requests known); a TTL of 0: each of their
 * queries is a fill, fills_per_s */
struct steer_asking {
	int n;
	double gap_s, fills_per_s;
	int user0, nusers;
	int no_users; /* a shared cache's other clients: at random */
};

static double steer_rtt(const struct topology *t, int a, int b)
{
	int64_t ns = a == b ? 0 : topo_rtt_ns(t, a, b);

	return ns > 0 ? (double)ns / NS : 0;
}

static double steer_owd(const struct topology *t, int a, int b)
{
	int64_t ns = a == b ? 0 : topo_owd_ns(t, a, b);

	return ns > 0 ? (double)ns / NS : 0;
}

/* steer_pick: which site of several a client node's clients send to */
static void steer_pick(struct steer_build *b, const struct topo_node *c, struct model_steer_unit *u)
{
	const struct model_steer_name *nm = &b->in->names[u->name];

	if (c->addresses == TOPO_ADDRESSES_SORTED && u->nsites > 1 && u->nsites <= 8 &&
	    nm->policy != MODEL_P_WEIGHTED) {
		/* the lowest address: always the same site */
		int low = 0;

		for (int i = 1; i < u->nsites; i++)
			if (ntohl(b->t->nodes[b->site_node[u->site[i]]].address.s_addr) <
			    ntohl(b->t->nodes[b->site_node[u->site[low]]].address.s_addr))
				low = i;
		u->site[0] = u->site[low];
		u->nsites = 1;
		u->tie = -1;
	}
	u->pick = c->addresses == TOPO_ADDRESSES_FIRST || c->addresses == TOPO_ADDRESSES_SORTED
		      ? MODEL_PICK_FIRST
		  : c->population ? MODEL_PICK_SPREAD
				  : MODEL_PICK_RANDOM;
}

/* steer_unit: a new unit of name n, first asked by group g, for the
 * querier at addr; -1 if there is
 * no room or authd answers it nothing (said in the name's why) */
static int steer_unit(struct steer_build *b, int n, int g, struct in_addr addr)
{
	struct model_steer_input *in = b->in;
	struct model_steer_unit *u;

	if (in->nunits == MODEL_STEER_UNITS) {
		steer_why(&in->names[n], "more units (caches, clients asking authd) than the "
					 "model holds");
		return -1;
	}
	u = &in->units[in->nunits];
	memset(u, 0, sizeof(*u));
	u->name = n;
	u->group = g;
	u->first_of = -1;
	u->querier = ntohl(addr.s_addr);
	if (steer_answer(b, n, ntohl(addr.s_addr), u) == -1) {
		steer_why(&in->names[n], in->names[n].policy == MODEL_P_PROXIMITY
					     ? "a querier of it no site measures: authd hands the "
					       "sites out in turn"
					     : "a querier of it matches no geo prefix and it has "
					       "no default: authd answers NODATA");
		return -1;
	}
	return in->nunits++;
}

/* steer_flow: group g's requests (from node) at rate through unit u, or
 * to site when u is -1 */
void steer_flow(struct steer_build *b, int g, int node, int u, int site, double rate, double from)
{
	struct model_steer_input *in = b->in;
	struct model_steer_flow *f;

	if (in->nflows == MODEL_STEER_UNITS)
		return;
	f = &in->flows[in->nflows++];
	f->group = g;
	f->unit = u;
	f->site = site;
	f->rate_per_s = rate;
	f->from_s = from;
	for (int s = 0; s < in->nsites; s++)
		f->rtt_s[s] = steer_rtt(b->t, node, b->site_node[s]);
}

/* steer_user_rates: each of a population's logical clients' rate (its
 * skew) into r; a client node that is no population: one */
void steer_user_rates(const struct topo_node *c, double *r)
{
	unsigned n = c->population ? c->population : 1;
	double sum = 0;

	for (unsigned j = 0; j < n; j++) {
		r[j] = c->skew == TOPO_SKEW_HARMONIC ? 1.0 / (j + 1)
		       : c->skew == TOPO_SKEW_ZIPF   ? pow(j + 1.0, -c->zipf_exponent)
						     : 1;
		sum += r[j];
	}
	for (unsigned j = 0; j < n; j++)
		r[j] *= c->rate / sum;
}

/* steer_hold: how long client j of node c keeps an answer of ttl, and
 * whether it is sticky */
static double steer_hold(const struct topology *t, const struct topo_node *c, unsigned j,
			 double ttl, int *sticky)
{
	double s = (double)c->sticky_ns / NS;

	*sticky = c->sticky_ns > 0;
	if (!*sticky && c->population && t->sticky_share > 0 && pop_sticky(j, t->sticky_share)) {
		*sticky = 1;
		s = (double)t->sticky_ns / NS;
	}
	return fmax(*sticky ? s : ttl, STEER_MIN_HOLD_S);
}

/* steer_ask: client j (rate r, holding hold, sticky or not; paced from
 * from: its requests known) asking a unit whose entries live ttl: into a */
static void steer_ask(struct model_steer_input *in, struct steer_asking *a,
		      const struct topo_node *c, unsigned j, double r, double ttl, double hold,
		      int sticky, double from)
{
	if (ttl <= 0)
		a->fills_per_s += sticky ? 1 / hold : fmin(r, 1 / STEER_MIN_HOLD_S);
	/* a population's client asks at its next request once its hold ran
	 * out, and every hold a cache gives ends by the cache's expiry */
	if (c->population && !sticky && c->arrivals == TOPO_ARRIVALS_PACED && !a->no_users &&
	    in->nusers < MODEL_STEER_USERS &&
	    (a->nusers == 0 || a->user0 + a->nusers == in->nusers)) {
		if (a->nusers++ == 0)
			a->user0 = in->nusers;
		in->users[in->nusers].first_s = from + pop_phase(j) / r;
		in->users[in->nusers++].period_s = 1 / r;
		return;
	}
	/* else at a random phase: a sticky client at its next resolution, a
	 * population's at its next request, one client polling (its last
	 * answers' TTL was 0) */
	double gap = sticky	     ? hold
		     : c->population ? fmax(1 / r, STEER_MIN_HOLD_S)
				     : STEER_MIN_HOLD_S;

	a->n++;
	a->gap_s = a->gap_s > 0 ? fmin(a->gap_s, gap) : gap;
}

/* steer_direct: client node c (group g) asking name n's [dns] node itself:
 * one unit, or one per logical client of a population after their common
 * first answer */
void steer_direct(struct steer_build *b, int g, int node, int n, const double *rate)
{
	const struct topology *t = b->t;
	const struct topo_node *c = &t->nodes[node];
	const struct steer_spec *sp = &b->spec[n];
	struct model_steer_input *in = b->in;
	double owd = steer_owd(t, node, sp->dns), rtt = steer_rtt(t, node, sp->dns);
	double from = rtt + STEER_POLL_S;
	struct in_addr link = t->links[c->link].node_addr;
	unsigned users = c->population ? c->population : 1;
	int pf, sticky;

	if (c->population > STEER_USERS_MAX || in->nunits + (int)users + 1 > MODEL_STEER_UNITS) {
		steer_why(&in->names[n], "a population asking authd itself: each logical client "
					 "holds its own answer, and there are more than the model "
					 "holds");
		return;
	}
	if ((pf = steer_unit(b, n, g, link)) == -1)
		return;
	in->units[pf].ttl_s = in->units[pf].first_s = sp->ttl_s;
	in->units[pf].owd_s = owd;
	in->units[pf].rtt_s = rtt;
	steer_pick(b, c, &in->units[pf]);
	if (!c->population) {
		struct model_steer_unit *x = &in->units[pf];

		/* one client: it asks again the moment its hold runs out */
		x->ttl_s = x->first_s = steer_hold(t, c, 0, sp->ttl_s, &sticky);
		x->nasking = 1;
		steer_flow(b, g, node, pf, -1, c->rate, rtt);
		return;
	}
	for (unsigned j = 0; j < users; j++) {
		struct in_addr a = link;
		double hold = steer_hold(t, c, j, sp->ttl_s, &sticky);
		struct steer_asking ask = {0};
		struct model_steer_unit *x;
		int u;

		if (c->source_block.len > 0)
			a.s_addr = htonl(ntohl(c->source_block.net.s_addr) +
					 j % (1u << (32 - c->source_block.len)));
		if ((u = steer_unit(b, n, g, a)) == -1)
			return;
		x = &in->units[u];
		x->first_of = pf;
		x->owd_s = owd;
		x->rtt_s = rtt;
		x->ttl_s = hold;
		/* its first hold a phase of a whole one (pop_hold_phase) */
		x->first_s = (1 - pop_hold_phase(j)) * hold;
		/* then it asks at its next request after its hold ran out */
		steer_ask(in, &ask, c, j, rate[j], hold, hold, 0, from);
		x->user0 = ask.user0;
		x->nusers = ask.nusers;
		x->nasking = ask.n;
		x->gap_s = ask.gap_s;
		x->fills_per_s = ask.fills_per_s;
		steer_pick(b, c, x);
		steer_flow(b, g, node, u, -1, rate[j], from);
	}
}

/* steer_cached: client node c (group g) asking name n through the caches
 * of [resolver] node r: a unit per cache (shared with the other groups
 * asking it the name), each cache's clients' rate a flow */
void steer_cached(struct steer_build *b, int g, int node, int n, const double *rate, int *ukey)
{
	const struct topology *t = b->t;
	const struct topo_node *c = &t->nodes[node];
	struct model_steer_input *in = b->in;
	int r = c->resolver, count = (int)t->nodes[r].count;
	int k0 = c->resolver_instance > 0 ? c->resolver_instance - 1 : 0;
	const struct steer_spec *sp = &b->spec[n];
	double w[TOPO_RESOLVER_COUNT_MAX], share[TOPO_RESOLVER_COUNT_MAX] = {0}, from = 0;
	double ttl = model_topo_cache_ttl(t, r, sp->ttl_s), start[TOPO_RESOLVER_COUNT_MAX];
	static int of[TOPO_POPULATION_MAX];
	int nw = 0, unit[TOPO_RESOLVER_COUNT_MAX], made[TOPO_RESOLVER_COUNT_MAX] = {0};
	unsigned users = c->population ? c->population : 1;
	char buf[TOPO_WEIGHTS_LEN], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", c->resolver_weights);
	for (char *x = strtok_r(buf, ",", &save); x && nw < count; x = strtok_r(NULL, ",", &save))
		w[nw++] = strtod(x, NULL);
	/* the first answers: every cache asked at once at the start; the
	 * requests from the last answer */
	for (int k = 0; k < count; k++) {
		int key = (r * TOPO_RESOLVER_COUNT_MAX + k) * MODEL_STEER_NAMES + n, u = -1;

		if (!c->resolver_all && k != k0)
			continue;
		for (int i = 0; i < in->nunits && u < 0; i++)
			if (ukey[i] == key)
				u = i;
		start[k] = steer_rtt(t, node, r);
		from = fmax(from, steer_rtt(t, node, r) + (u < 0 ? steer_rtt(t, r, sp->dns) : 0) +
				      STEER_POLL_S);
		if (u < 0 && (u = steer_unit(b, n, g, topo_resolver_addr(t, r, k + 1))) == -1)
			return;
		made[k] = ukey[u] != key;
		ukey[u] = key;
		unit[k] = u;
	}
	for (unsigned j = 0; j < users; j++) {
		of[j] = c->resolver_all ? pop_resolver_of(nw == count ? w : NULL, count, j) : k0;
		share[of[j]] += rate[j];
	}
	for (int k = 0; k < count; k++) {
		struct steer_asking ask = {0};
		struct model_steer_unit *x;
		int sticky;

		if (!c->resolver_all && k != k0)
			continue;
		x = &in->units[unit[k]];
		if (made[k]) {
			x->start_s = start[k];
			x->owd_s = steer_owd(t, r, sp->dns);
			x->rtt_s = steer_rtt(t, r, sp->dns);
			x->ttl_s = ttl;
			x->first_s = (1 - model_topo_cache_phase(t, r, (unsigned)k, ttl)) * ttl;
			steer_pick(b, c, x);
		}
		/* its clients' requests, in a block of the users when it is
		 * its own (another group's cache: at random phases) */
		ask.no_users = !made[k];
		for (unsigned j = 0; j < users; j++)
			if (of[j] == k) {
				double hold = steer_hold(t, c, j, ttl, &sticky);

				steer_ask(in, &ask, c, j, rate[j], ttl, hold, sticky, from);
			}
		if (made[k]) {
			x->user0 = ask.user0;
			x->nusers = ask.nusers;
		}
		x->gap_s = x->gap_s > 0 && ask.gap_s > 0 ? fmin(x->gap_s, ask.gap_s)
							 : fmax(x->gap_s, ask.gap_s);
		x->nasking += ask.n;
		x->fills_per_s += ask.fills_per_s;
		if (share[k] > 0)
			steer_flow(b, g, node, unit[k], -1, share[k], from);
	}
}

/* steer_other_resolver: client node c (group g) asking name n through a
 * [resolver] that is not resolverd (unbound, kresd, named): one cache of the
 * name's TTL, answered alike whoever asks; its upstream queries not said */
void steer_other_resolver(struct steer_build *b, int g, int node, int n, const double *rate)
{
	const struct topology *t = b->t;
	const struct topo_node *c = &t->nodes[node];
	struct model_steer_name *nm = &b->in->names[n];
	double total = 0;
	int u;

	snprintf(nm->upstream_why, sizeof(nm->upstream_why), "[resolver] %s runs %s: its caching",
		 t->nodes[c->resolver].name, topo_impl_name(t->nodes[c->resolver].impl));
	if ((u = steer_unit(b, n, g, t->links[t->nodes[c->resolver].link].node_addr)) == -1)
		return;
	b->in->units[u].ttl_s = b->in->units[u].first_s = b->spec[n].ttl_s;
	steer_pick(b, c, &b->in->units[u]);
	for (unsigned j = 0; j < (c->population ? c->population : 1); j++)
		total += rate[j];
	steer_flow(b, g, node, u, -1, total, 0);
}

/* steer_tcp: a client node over TCP or HTTP keeps the address its
 * connection was made with, not the answers after it: modelled only when
 * every answer it can get is the same */
void steer_tcp(struct steer_build *b, int g, int node, int n)
{
	const struct model_steer_input *in = b->in;
	struct model_steer_name *nm = &b->in->names[n];

	if (b->t->nodes[node].proto == TOPO_PROTO_UDP)
		return;
	for (int f = 0; f < in->nflows; f++) {
		const struct model_steer_unit *u;

		if (in->flows[f].group != g || in->flows[f].unit < 0)
			continue;
		u = &in->units[in->flows[f].unit];
		if (nm->policy == MODEL_P_WEIGHTED || u->tie >= 0 ||
		    (u->nsites > 1 &&
		     (nm->policy == MODEL_P_MULTIVALUE || u->pick != MODEL_PICK_FIRST))) {
			steer_why(nm, "a TCP or HTTP client keeps the address its connection was "
				      "made with, not the answers after it, and these differ");
			return;
		}
	}
}
