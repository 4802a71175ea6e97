/*
 * routing = bgp beyond the failed site's own router (docs/model.md, "BGP
 * over AS hops"): every BGP speaker of the topology (its routers and
 * sites, each its own AS) and its sessions as lab/build/frrconf.c writes
 * them (a [link]'s prepend and local_pref per end, a site's MED), the
 * routes converged as the lab's warm-up leaves them, then the failed site's
 * withdrawal played through them: each router decides 50 ms after the
 * first update it has not yet decided on (bgpd's work-queue hold; updates
 * that come meanwhile join that decision), sends its new best path to
 * every neighbour at once, and changes its FIB 10 ms later (zebra's hold):
 * the 50 ms an AS hop measured in bench/bgp (docs/benchmarks.md). Each
 * anycast client's packets follow the routers' FIBs hop by hop, so its
 * traffic reaches the failed site, another site, or nothing (no route, a
 * loop) in each interval between two FIB changes. With an advertisement
 * interval (bgp_mrai, whole seconds as FRR keeps it) a speaker's update to
 * a neighbour waits as FRR's bgp_adjust_routeadv makes it: at once when the
 * last update to that neighbour was more than the interval of whole
 * seconds of the monotonic clock ago (every first one after the warm-up),
 * else the interval less those whole seconds later, carrying what the
 * speaker holds then. Where the monotonic clock's second begins is not
 * known: played at MODEL_BGP_PHASES phases. See model_topo_int.h.
 */
#include "model_topo_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology.h"

#define BGP_PATH_MAX 64
#define BGP_NB_MAX 64
#define BGP_HOLD_S 0.050  /* bgpd's work-queue hold: update to decision */
#define BGP_ZEBRA_S 0.010 /* zebra's: decision to the FIB */
#define BGP_EVENTS_MAX 100000
#define BGP_CHANGES_MAX 64 /* FIB changes a router, at most */

struct bgp_route {
	int valid;
	int len;
	unsigned as[BGP_PATH_MAX];
	unsigned lp;
	unsigned med;
	int direct; /* from a site itself: its MED is its metric */
};

struct bgp_spk {
	int node;
	unsigned asn;
	int site; /* a site: it originates the service (while up) */
	int nnb;
	int nb[BGP_NB_MAX];	      /* speakers */
	int back[BGP_NB_MAX];	      /* my index in nb[k]'s list */
	unsigned prepend[BGP_NB_MAX]; /* more times my AS toward nb[k] */
	unsigned lp[BGP_NB_MAX];      /* what I set on what nb[k] sends (0: 100) */
	struct bgp_route in[BGP_NB_MAX];
	/* what it last sent nb[k]: an update goes out when what it exports
	 * changes, even one the neighbour drops (its own AS in the path: FRR
	 * sends it all the same), and counts for the advertisement interval */
	struct bgp_route sent[BGP_NB_MAX];
	double got[BGP_NB_MAX]; /* when in[k] came (-1: before the failure) */
	int best;		/* index into nb, -1 none, -2 its own (a site) */
	int tie;		/* its best tied with another neighbour's path */
	double due;		/* a decision pending then, else -1 */
	/* the advertisement interval toward nb[k] (whole seconds, 0: none),
	 * the last update sent it after the failure (-INFINITY: none), and
	 * the interval's timer, pending until then (-1: none) */
	double mrai[BGP_NB_MAX], last_upd[BGP_NB_MAX], adv_at[BGP_NB_MAX];
	int nchanges;
	double when[BGP_CHANGES_MAX]; /* its FIB's changes */
	int hop[BGP_CHANGES_MAX];     /* the next hop (a speaker) from then, -1 none */
};

struct bgp_net {
	int n;
	int pref; /* a tie FRR's age cannot break here: 0 the first neighbour wins, 1 the last */
	double phase; /* the monotonic clock's second at play time 0 began this long before */
	struct bgp_spk *s;
	int of[TOPO_MAX_NODES]; /* speaker of a node, -1 */
};

static int bgp_link(struct bgp_net *g, int a, int b, unsigned pa, unsigned pb, unsigned la,
		    unsigned lb)
{
	struct bgp_spk *x = &g->s[a], *y = &g->s[b];

	if (x->nnb == BGP_NB_MAX || y->nnb == BGP_NB_MAX)
		return -1;
	x->nb[x->nnb] = b;
	y->nb[y->nnb] = a;
	x->back[x->nnb] = y->nnb;
	y->back[y->nnb] = x->nnb;
	x->prepend[x->nnb] = pa;
	y->prepend[y->nnb] = pb;
	x->lp[x->nnb++] = la;
	y->lp[y->nnb++] = lb;
	return 0;
}

/* bgp_better: whether route a is preferred to route b (both valid) at a
 * router; *tie set when neither is (what decides then is the older path,
 * which the model cannot know) */
static int bgp_better(const struct bgp_route *a, const struct bgp_route *b, int *tie)
{
	if (a->lp != b->lp)
		return a->lp > b->lp;
	if (a->len != b->len)
		return a->len < b->len;
	/* always-compare-med; a MED does not cross an AS (RFC 4271 5.1.4):
	 * only the sites' own announcements carry theirs */
	if (a->direct && b->direct && a->med != b->med)
		return a->med < b->med;
	*tie = 1;
	return 0;
}

/* bgp_decide: speaker i's best path now; 1 if its next hop changed. Of
 * paths equal in preference FRR keeps the older (eBGP): the one that came
 * first when both came after the failure, else the net's pref decides and
 * the speaker is marked (tie) */
static int bgp_decide(struct bgp_net *g, int i)
{
	struct bgp_spk *s = &g->s[i];
	int best = -1, tie = 0, was = s->best;

	if (s->site)
		return 0; /* a site forwards nothing: its own, or none */
	for (int k = 0; k < s->nnb; k++) {
		int t = 0;

		if (!s->in[k].valid)
			continue;
		if (best < 0 || bgp_better(&s->in[k], &s->in[best], &t)) {
			best = k;
			tie = 0;
		} else if (t) {
			if (s->got[k] >= 0 && s->got[best] >= 0 && s->got[k] != s->got[best]) {
				if (s->got[k] < s->got[best])
					best = k;
			} else {
				tie = 1;
				if (g->pref)
					best = k;
			}
		}
	}
	s->best = best;
	s->tie = tie;
	return best != was;
}

/* bgp_export: what speaker i announces to its neighbour k */
static void bgp_export(const struct bgp_net *g, int i, int k, struct bgp_route *r)
{
	const struct bgp_spk *s = &g->s[i];
	const struct bgp_route *b = s->best >= 0 ? &s->in[s->best] : NULL;
	int n = 1 + (int)s->prepend[k];

	memset(r, 0, sizeof(*r));
	if (s->site ? s->best != -2 : b == NULL)
		return;
	if (n + (b ? b->len : 0) > BGP_PATH_MAX)
		return;
	for (int j = 0; j < n; j++)
		r->as[j] = s->asn;
	if (b)
		memcpy(r->as + n, b->as, (size_t)b->len * sizeof(unsigned));
	r->len = n + (b ? b->len : 0);
	r->valid = 1;
	r->direct = s->site;
}

/* bgp_receive: speaker j takes what its neighbour (its k) announces at
 * now (-1: before the failure); 1 if that changed what it holds */
static int bgp_receive(struct bgp_net *g, int j, int k, const struct bgp_route *r, double now)
{
	struct bgp_spk *s = &g->s[j];
	struct bgp_route in = *r;

	/* its own AS in the path: a loop, dropped */
	for (int a = 0; in.valid && a < in.len; a++)
		if (in.as[a] == s->asn)
			in.valid = 0;
	if (in.valid) {
		in.lp = s->lp[k] ? s->lp[k] : 100;
	} else {
		memset(&in, 0, sizeof(in));
	}
	if (memcmp(&in, &s->in[k], sizeof(in)) == 0)
		return 0;
	s->in[k] = in;
	s->got[k] = now;
	return 1;
}

/* bgp_deliver: speaker i's best to its neighbour k at now; 1 if it is
 * not what it last sent (an update goes out); a neighbour whose holding
 * that changed decides at now + hold (unless it already has a decision
 * due) */
static int bgp_deliver(struct bgp_net *g, const struct topology *t, int i, int k, double now)
{
	struct bgp_spk *s = &g->s[i];
	struct bgp_route r;
	int j = s->nb[k];

	bgp_export(g, i, k, &r);
	if (r.valid && r.direct)
		r.med = t->nodes[s->node].metric;
	if (memcmp(&r, &s->sent[k], sizeof(r)) == 0)
		return 0;
	s->sent[k] = r;
	if (bgp_receive(g, j, s->back[k], &r, now) && g->s[j].due < 0 && now >= 0)
		g->s[j].due = now + BGP_HOLD_S;
	return 1;
}

/* bgp_mrai_at: when speaker s may send neighbour k an update that is due
 * at now: FRR's bgp_adjust_routeadv on whole seconds of the monotonic
 * clock (time_t): at once if the last update went more than the interval
 * of them ago, else the interval less the whole seconds since */
static double bgp_mrai_at(const struct bgp_net *g, const struct bgp_spk *s, int k, double now)
{
	double diff;

	if (s->mrai[k] <= 0 || now < 0 || isinf(s->last_upd[k]))
		return now;
	diff = floor(now + g->phase) - floor(s->last_upd[k] + g->phase);
	return diff > s->mrai[k] ? now : now + (s->mrai[k] - diff);
}

/* bgp_send: speaker i's best to every neighbour, at once or when the
 * advertisement interval lets it (a timer already pending that fires
 * sooner is kept, as FRR keeps it; one that may go at once cancels it) */
static void bgp_send(struct bgp_net *g, const struct topology *t, int i, double now)
{
	struct bgp_spk *s = &g->s[i];

	for (int k = 0; k < s->nnb; k++) {
		double at = bgp_mrai_at(g, s, k, now);

		if (at > now) {
			if (s->adv_at[k] < 0 || at < s->adv_at[k])
				s->adv_at[k] = at;
			continue;
		}
		/* at once, a pending timer with it (FRR's case I) */
		s->adv_at[k] = -1;
		if (bgp_deliver(g, t, i, k, now) && now >= 0)
			s->last_upd[k] = now;
	}
}

/* bgp_fib: speaker s's FIB from when, if its next hop is not the one it
 * had (initial: before the failure) */
static void bgp_fib(struct bgp_spk *s, int initial, double when)
{
	int hop = s->best >= 0 ? s->nb[s->best] : -1;

	if ((s->nchanges ? s->hop[s->nchanges - 1] : initial) == hop)
		return;
	if (s->nchanges == BGP_CHANGES_MAX) {
		s->nchanges = BGP_CHANGES_MAX + 1; /* too many: said by the caller */
		return;
	}
	if (s->nchanges > BGP_CHANGES_MAX)
		return;
	s->when[s->nchanges] = when;
	s->hop[s->nchanges++] = hop;
}

/* bgp_intervals: each session's advertisement interval as
 * lab/build/frrconf.c writes it (the [link]'s own, else the speaker's, in
 * whole seconds), no update sent yet, no timer */
static void bgp_intervals(const struct topology *t, struct bgp_net *g)
{
	for (int i = 0; i < g->n; i++) {
		struct bgp_spk *s = &g->s[i];
		int a = s->node;

		for (int k = 0; k < s->nnb; k++) {
			int b = g->s[s->nb[k]].node;
			int64_t ns = t->nodes[a].bgp_mrai_ns;

			for (int l = 0; l < t->nrlinks; l++) {
				const struct topo_rlink *rl = &t->rlinks[l];

				if (((rl->a == a && rl->b == b) || (rl->a == b && rl->b == a)) &&
				    rl->bgp_mrai_ns >= 0)
					ns = rl->bgp_mrai_ns;
			}
			s->mrai[k] = (double)(ns / 1000000000);
			s->last_upd[k] = -INFINITY;
			s->adv_at[k] = -1;
		}
	}
}

/* bgp_build: the speakers and their sessions; -1 if the model cannot
 * (said in why) */
static int bgp_build(const struct topology *t, struct bgp_net *g, char *why, size_t len)
{
	for (int n = 0; n < TOPO_MAX_NODES; n++)
		g->of[n] = -1;
	if ((g->s = calloc((size_t)t->nnodes, sizeof(*g->s))) == NULL) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	for (int n = 0; n < t->nnodes; n++) {
		const struct topo_node *x = &t->nodes[n];

		if (x->kind != TOPO_ROUTER && x->kind != TOPO_SITE)
			continue;
		for (int i = 0; i < g->n; i++)
			if (g->s[i].asn == topo_node_asn(t, n)) {
				snprintf(
				    why, len,
				    "routing = bgp: %s and %s share AS %u: iBGP is not modelled",
				    t->nodes[g->s[i].node].name, x->name, topo_node_asn(t, n));
				return -1;
			}
		g->of[n] = g->n;
		g->s[g->n].node = n;
		g->s[g->n].asn = topo_node_asn(t, n);
		g->s[g->n].site = x->kind == TOPO_SITE;
		g->s[g->n].best = x->kind == TOPO_SITE ? -2 : -1;
		g->s[g->n].due = -1;
		g->n++;
	}
	for (int l = 0; l < t->nrlinks; l++) {
		const struct topo_rlink *rl = &t->rlinks[l];

		if (bgp_link(g, g->of[rl->a], g->of[rl->b], rl->prepend[0], rl->prepend[1],
			     rl->local_pref[0], rl->local_pref[1]) == -1)
			goto many;
	}
	for (int n = 0; n < t->nnodes; n++) {
		int r;

		if (t->nodes[n].kind != TOPO_SITE)
			continue;
		if ((r = topo_node_router(t, n)) < 0 || g->of[r] < 0) {
			snprintf(why, len, "routing = bgp: site %s has no router",
				 t->nodes[n].name);
			return -1;
		}
		if (bgp_link(g, g->of[n], g->of[r], t->nodes[n].prepend, 0, 0, 0) == -1)
			goto many;
	}
	bgp_intervals(t, g);
	return 0;
many:
	snprintf(why, len, "routing = bgp: a speaker of more than %d sessions: not modelled",
		 BGP_NB_MAX);
	return -1;
}

/* bgp_converge: the routes as the warm-up leaves them (every update
 * passed on until nothing changes) */
static int bgp_converge(const struct topology *t, struct bgp_net *g)
{
	for (int round = 0; round < 4 * g->n + 8; round++) {
		int changed = 0;

		for (int i = 0; i < g->n; i++)
			changed |= bgp_decide(g, i);
		for (int i = 0; i < g->n; i++) {
			struct bgp_spk *s = &g->s[i];

			for (int k = 0; k < s->nnb; k++)
				changed |= bgp_deliver(g, t, i, k, -1);
		}
		if (!changed)
			return 0;
	}
	return -1;
}

/* bgp_hop_at: speaker i's FIB next hop at instant x (its route before
 * the failure when x precedes every change) */
static int bgp_hop_at(const struct bgp_spk *s, int initial, double x)
{
	int hop = initial;

	for (int c = 0; c < s->nchanges && s->when[c] <= x; c++)
		hop = s->hop[c];
	return hop;
}

/* bgp_dest: where a packet from router speaker r goes at instant x: the
 * site speaker it reaches, -1 nowhere (no route, a loop); *tie if a router
 * on its way had tied paths (initial state only, x < 0) */
static int bgp_dest(const struct bgp_net *g, const int *initial, const int *itie, int r, double x,
		    int *tie)
{
	for (int steps = 0; steps <= g->n; steps++) {
		int hop = bgp_hop_at(&g->s[r], initial[r], x);

		if (x < 0 && itie[r])
			*tie = 1;
		if (hop < 0)
			return -1;
		if (g->s[hop].site)
			return hop;
		r = hop;
	}
	return -1;
}

static int bgp_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* bgp_start: g's speakers built and their routes converged as the
 * warm-up leaves them; *initial each one's next hop then (a speaker, -1
 * none), *itie whether its best tied (the caller frees both, and g->s).
 * -1 if the model cannot (why) */
static int bgp_start(const struct topology *t, struct bgp_net *g, int **initial, int **itie,
		     char *why, size_t len)
{
	if (bgp_build(t, g, why, len) == -1)
		return -1;
	if (bgp_converge(t, g) == -1) {
		snprintf(why, len, "routing = bgp: the routes do not converge (a dispute wheel?)");
		return -1;
	}
	*initial = calloc((size_t)g->n, sizeof(int));
	*itie = calloc((size_t)g->n, sizeof(int));
	if (*initial == NULL || *itie == NULL) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	for (int i = 0; i < g->n; i++) {
		(*initial)[i] = g->s[i].best >= 0 ? g->s[i].nb[g->s[i].best] : -1;
		(*itie)[i] = g->s[i].tie;
	}
	return 0;
}

/* bgp_run: the withdrawal with ties the age cannot break decided by pref,
 * the monotonic clock's second begun phase before play time 0 */
static int bgp_run(const struct topology *t, int site, int pref, double phase,
		   struct model_topo_bgp_client *out, char *why, size_t len)
{
	struct bgp_net g = {.pref = pref, .phase = phase};
	int rc = -1, fs, r1, *initial = NULL, *itie = NULL, events = 0;
	double *at = NULL, first;
	size_t nat = 0;

	why[0] = '\0';
	if (bgp_start(t, &g, &initial, &itie, why, len) == -1)
		goto out;
	/* the failed site withdraws: its router decides at 0, its FIB at
	 * BGP_ZEBRA_S (the caller's steer) */
	fs = g.of[site];
	g.s[fs].best = -1;
	r1 = g.s[fs].nb[0];
	bgp_send(&g, t, fs, -1);
	g.s[r1].due = 0;
	for (;;) {
		int i = -1, ti = -1, tk = -1;

		for (int j = 0; j < g.n; j++)
			if (g.s[j].due >= 0 && (i < 0 || g.s[j].due < g.s[i].due))
				i = j;
		/* an advertisement interval's timer that fires first */
		for (int j = 0; j < g.n; j++)
			for (int k = 0; k < g.s[j].nnb; k++)
				if (g.s[j].adv_at[k] >= 0 &&
				    (ti < 0 || g.s[j].adv_at[k] < g.s[ti].adv_at[tk])) {
					ti = j;
					tk = k;
				}
		if (i < 0 && ti < 0)
			break;
		if (++events > BGP_EVENTS_MAX) {
			snprintf(why, len, "routing = bgp: the withdrawal does not converge");
			goto out;
		}
		if (ti >= 0 && (i < 0 || g.s[ti].adv_at[tk] < g.s[i].due)) {
			double now = g.s[ti].adv_at[tk];

			g.s[ti].adv_at[tk] = -1;
			if (bgp_deliver(&g, t, ti, tk, now))
				g.s[ti].last_upd[tk] = now;
			continue;
		}
		{
			double now = g.s[i].due;

			g.s[i].due = -1;
			bgp_decide(&g, i);
			bgp_fib(&g.s[i], initial[i], now + BGP_ZEBRA_S);
			/* its path may change with its next hop the same: sent
			 * all the same (only a change moves a neighbour) */
			bgp_send(&g, t, i, now);
		}
	}
	for (int i = 0; i < g.n; i++) {
		if (g.s[i].nchanges > BGP_CHANGES_MAX) {
			snprintf(why, len, "routing = bgp: %s's route changes more than %d times",
				 t->nodes[g.s[i].node].name, BGP_CHANGES_MAX);
			goto out;
		}
		nat += (size_t)g.s[i].nchanges;
	}
	if ((at = calloc(nat + 1, sizeof(double))) == NULL) {
		snprintf(why, len, "out of memory");
		goto out;
	}
	nat = 0;
	for (int i = 0; i < g.n; i++)
		for (int c = 0; c < g.s[i].nchanges; c++)
			at[nat++] = g.s[i].when[c];
	qsort(at, nat, sizeof(double), bgp_cmp);
	first = BGP_ZEBRA_S; /* the site's router's FIB: the caller's steer */
	for (int n = 0; n < t->nnodes; n++) {
		struct model_topo_bgp_client *o = &out[n];
		int r = topo_node_router(t, n), tie = 0, d;
		double a_end = first, lost = 0;

		o->on = 0;
		o->after_s = o->lost_extra_s = 0;
		if (t->nodes[n].kind != TOPO_CLIENT || r < 0 || g.of[r] < 0)
			continue;
		d = bgp_dest(&g, initial, itie, g.of[r], -1, &tie);
		o->on = d == fs;
		if (!o->on)
			continue;
		/* each interval between two changes from the first: where its
		 * packets go */
		for (size_t k = 0; k < nat; k++) {
			double from = at[k], to = k + 1 < nat ? at[k + 1] : 1e9;

			if (to <= from || from < first)
				continue;
			d = bgp_dest(&g, initial, itie, g.of[r], from, &tie);
			if (d == fs)
				a_end = to;
			if (d == fs || d < 0)
				lost += to - from;
		}
		o->after_s = a_end - first;
		o->lost_extra_s = lost - o->after_s;
	}
	rc = 0;
out:
	free(g.s);
	free(initial);
	free(itie);
	free(at);
	return rc;
}

int model_topo_bgp(const struct topology *t, int site, struct model_topo_bgp_client *out, char *why,
		   size_t len)
{
	static struct model_topo_bgp_client play[TOPO_MAX_NODES];
	int phases = 1;
	double mrai = (double)topo_bgp_mrai_max_ns(t) / 1e9;
	int64_t first = 0;

	/* an advertisement interval: the play depends on where the monotonic
	 * clock's second begins, played at MODEL_BGP_PHASES of them; the
	 * warm-up's last updates must be older than the interval */
	if (mrai > 0) {
		phases = MODEL_BGP_PHASES;
		if (topo_first_failure(t, &first) < 0 || (double)first / 1e9 < mrai + 1) {
			snprintf(
			    why, len,
			    "routing = bgp: bgp_mrai %g s: the warm-up's last updates may still "
			    "hold the interval at the failure (%g s into the traffic): not "
			    "modelled",
			    mrai, (double)first / 1e9);
			return -1;
		}
	}
	/* where FRR keeps the older of equal paths and the model cannot tell
	 * which is older (both came at bring-up, or at the same instant):
	 * played both ways, the first neighbour winning every such tie and
	 * the last; a client's site must not depend on it, its clocks may */
	for (int pref = 0; pref < 2; pref++)
		for (int ph = 0; ph < phases; ph++) {
			int p = pref * phases + ph;

			if (bgp_run(t, site, pref, (ph + 0.5) / phases, p ? play : out, why, len) ==
			    -1)
				return -1;
			for (int n = 0; n < t->nnodes; n++) {
				const struct model_topo_bgp_client *x = p ? &play[n] : &out[n];

				if (p && play[n].on != out[n].on) {
					snprintf(
					    why, len,
					    "routing = bgp: whether %s reached the failed site "
					    "depends on which of equal paths FRR kept at "
					    "bring-up (the older): not modelled",
					    t->nodes[n].name);
					return -1;
				}
				out[n].play_after_s[p] = x->after_s;
				out[n].play_lost_extra_s[p] = x->lost_extra_s;
				out[n].nplays = 2 * phases;
			}
		}
	for (int n = 0; n < t->nnodes; n++) {
		out[n].alt_after_s = out[n].play_after_s[phases];
		out[n].alt_lost_extra_s = out[n].play_lost_extra_s[phases];
	}
	return 0;
}

/* bgp_sites: the site node each client node's packets reach in the
 * converged routes, -1 none, with ties decided by pref; -1 if the model
 * cannot (why) */
static int bgp_sites(const struct topology *t, int pref, int *site_of, char *why, size_t len)
{
	struct bgp_net g = {.pref = pref};
	int rc = -1, *initial = NULL, *itie = NULL;

	if (bgp_start(t, &g, &initial, &itie, why, len) == -1)
		goto out;
	for (int n = 0; n < t->nnodes; n++) {
		int r = topo_node_router(t, n), tie = 0, d;

		site_of[n] = -1;
		if (t->nodes[n].kind != TOPO_CLIENT || r < 0 || g.of[r] < 0)
			continue;
		d = bgp_dest(&g, initial, itie, g.of[r], -1, &tie);
		site_of[n] = d >= 0 ? g.s[d].node : -1;
	}
	rc = 0;
out:
	free(g.s);
	free(initial);
	free(itie);
	return rc;
}

int model_topo_bgp_sites(const struct topology *t, int *site_of, char *why, size_t len)
{
	static int other[TOPO_MAX_NODES];

	why[0] = '\0';
	if (bgp_sites(t, 0, site_of, why, len) == -1 || bgp_sites(t, 1, other, why, len) == -1)
		return -1;
	for (int n = 0; n < t->nnodes; n++)
		if (site_of[n] != other[n]) {
			snprintf(
			    why, len,
			    "routing = bgp: %s's site depends on which of equal paths FRR kept "
			    "at bring-up (the older)",
			    t->nodes[n].name);
			return -1;
		}
	return 0;
}
