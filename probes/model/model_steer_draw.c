/*
 * The draws of the steering model (model_steer_int.h; docs/model.md,
 * "Steady state: shares, deviation, distance"): in each, every unit's fills
 * (its first query, then a refetch each time its entry has expired and one
 * of its clients asks), the order they reach authd in, the answer each gets
 * (a weighted name's rotation goes on from fill to fill), and the time each
 * answer binds the unit's flows to its site, summed per group.
 */
#include "model_steer_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void model_steer_swrr(const double *w, int k, int n, int *out)
{
	double cur[MODEL_STEER_SITES] = {0}, total = 0;

	for (int i = 0; i < k; i++)
		total += w[i];
	for (int a = 0; a < n; a++) {
		int best = -1;

		for (int i = 0; i < k; i++) {
			cur[i] += w[i];
			if (best == -1 || cur[i] > cur[best])
				best = i;
		}
		cur[best] -= total;
		out[a] = best;
	}
}

/* by key: the instant it reaches authd, give or take the order's
 * uncertainty */
static int steer_fill_cmp(const void *a, const void *b)
{
	const struct steer_fill *x = a, *y = b;

	return (x->key > y->key) - (x->key < y->key);
}

static int steer_push(struct steer_state *st, const struct steer_fill *f)
{
	if (st->nfill == st->capfill) {
		size_t cap = st->capfill ? 2 * st->capfill : 1024;
		struct steer_fill *n = realloc(st->fill, cap * sizeof(*n));

		if (n == NULL)
			return -1;
		st->fill = n;
		st->capfill = cap;
	}
	st->fill[st->nfill++] = *f;
	return 0;
}

/* steer_fixed: the one site every fill of unit u gets, or -1 if fills may
 * differ (a rotation, a random order or choice, an even split) */
static int steer_fixed(const struct steer_state *st, const struct model_steer_unit *u)
{
	const struct model_steer_name *n = &st->in->names[u->name];

	if (n->policy == MODEL_P_WEIGHTED)
		return -1;
	if (u->tie >= 0)
		return st->tiepick[u->tie];
	if (u->nsites == 1)
		return u->site[0];
	if (n->policy == MODEL_P_SIMPLE && u->pick == MODEL_PICK_FIRST)
		return u->site[0];
	return -1;
}

/* steer_next_user: the first request after e of unit u's users, their
 * group late by late; a request due within MODEL_STEER_SEND_JITTER_S
 * before e comes after it with this draw's probability st->late_p (the
 * host's scheduling: the client whose request refilled an entry is due
 * again just before it expires); INFINITY if it has none */
static double steer_next_user(struct steer_state *st, const struct model_steer_unit *u, double late,
			      double e)
{
	const struct model_steer_user *us = st->in->users;
	double best = INFINITY;

	for (int j = u->user0; j < u->user0 + u->nusers; j++) {
		double o = us[j].first_s + late, p = us[j].period_s, before, x;

		if (e < o) {
			best = fmin(best, o);
			continue;
		}
		before = o + floor((e - o) / p) * p;
		x = before + p;
		if (e - before < MODEL_STEER_SEND_JITTER_S && model_uniform(&st->rng) < st->late_p)
			x = e +
			    (MODEL_STEER_SEND_JITTER_S - (e - before)) * model_uniform(&st->rng);
		best = fmin(best, x);
	}
	return best;
}

/* steer_fills: unit u's fills in this draw, pushed in time order: its first
 * query, then each time its entry has expired, the first query of one of
 * its clients after that */
static int steer_fills(struct steer_state *st, int ui)
{
	const struct model_steer_unit *u = &st->in->units[ui];
	double late = st->late[u->group];
	double t = u->start_s + late, life = u->first_s;
	double period = st->period, end = -1;

	/* its clients ask while they send: no fill after the last stops */
	for (int j = st->flow_start[ui]; j < st->flow_start[ui + 1]; j++) {
		const struct model_steer_flow *f = &st->in->flows[st->flows_of[j]];

		end = fmax(end, f->from_s + st->late[f->group] + st->in->duration_s);
	}
	if (end >= 0 && end < period)
		period = end;
	if (u->ttl_s <= 0 && u->fills_per_s > 0)
		return 0; /* never held: counted from its rate */
	for (int i = 0; t < period; i++) {
		/* the hosts' own time orders fills that come together */
		struct steer_fill f = {t + u->owd_s, t + u->rtt_s,
				       t + u->owd_s + st->order * (2 * model_uniform(&st->rng) - 1),
				       ui, -1};
		double e, x = INFINITY;

		if ((i > 0 || u->first_of < 0) && steer_push(st, &f) == -1)
			return -1;
		e = f.bound + life + MODEL_STEER_HOST_S;
		life = u->ttl_s;
		if ((u->nasking <= 0 && u->nusers <= 0) || u->ttl_s <= 0)
			break;
		/* the first of nasking clients asking every gap_s at random
		 * phases, or of the users at their next request */
		if (u->nasking > 0)
			x = e + u->gap_s * (1 - pow(model_uniform(&st->rng), 1.0 / u->nasking));
		t = fmin(x, steer_next_user(st, u, late, e));
	}
	return 0;
}

/* steer_draw_answer: the site authd answers fill f with; the name's rotation
 * state in pos and cur */
static int steer_draw_answer(struct steer_state *st, const struct model_steer_unit *u,
			     unsigned *pos, double *cur)
{
	const struct model_steer_name *n = &st->in->names[u->name];
	int fixed = steer_fixed(st, u);

	if (n->policy == MODEL_P_WEIGHTED) {
		double total = 0, x;
		int best = -1;

		if (n->npattern)
			return n->pattern[(*pos)++ % (unsigned)n->npattern];
		for (int i = 0; i < n->norder; i++)
			total += n->weight[n->order[i]];
		if (n->random) {
			x = model_uniform(&st->rng) * total;
			for (int i = 0; i < n->norder; i++) {
				if (x < n->weight[n->order[i]])
					return n->order[i];
				x -= n->weight[n->order[i]];
			}
			return n->order[n->norder - 1];
		}
		for (int i = 0; i < n->norder; i++) {
			int s = n->order[i];

			cur[s] += n->weight[s];
			if (best == -1 || cur[s] > cur[best])
				best = s;
		}
		cur[best] -= total;
		return best;
	}
	if (fixed >= 0)
		return fixed;
	if (u->pick == MODEL_PICK_SPREAD)
		return -1;
	/* multivalue's random order taken first, or a client's random pick */
	return u->site[(int)(model_uniform(&st->rng) * u->nsites) % u->nsites];
}

/* steer_bind: rate x the part of [a, b) in flow f's sending window and the
 * period, to site (-1: split evenly over u's sites) */
static void steer_bind(struct steer_state *st, const struct model_steer_flow *f,
		       const struct model_steer_unit *u, double a, double b, int site)
{
	double from = f->from_s + st->late[f->group], lo = fmax(a, fmax(from, 0)),
	       hi = fmin(b, fmin(from + st->in->duration_s, st->period)), x;
	struct steer_acc *acc = &st->acc[f->group];

	if (hi <= lo)
		return;
	x = f->rate_per_s * (hi - lo);
	if (site >= 0) {
		acc->req[site] += x;
		acc->rtt += x * f->rtt_s[site];
		return;
	}
	for (int k = 0; k < u->nsites; k++) {
		acc->req[u->site[k]] += x / u->nsites;
		acc->rtt += x / u->nsites * f->rtt_s[u->site[k]];
	}
}

/* steer_unit_bindings: unit ui's answers over time to its flows */
static void steer_unit_bindings(struct steer_state *st, int ui, const int *next)
{
	const struct model_steer_unit *u = &st->in->units[ui];
	int fixed = steer_fixed(st, u), k = st->first[ui];

	for (int j = st->flow_start[ui]; j < st->flow_start[ui + 1]; j++) {
		const struct model_steer_flow *f = &st->in->flows[st->flows_of[j]];
		int i = k;
		double from = -1e300;

		if (fixed >= 0 && u->ttl_s > 0) {
			steer_bind(st, f, u, -1e300, 1e300, fixed);
			continue;
		}
		if (u->first_of >= 0 && st->first[u->first_of] >= 0) {
			/* the first answer is its population's: until its own */
			const struct steer_fill *s = &st->fill[st->first[u->first_of]];

			steer_bind(st, f, u, from, i >= 0 ? st->fill[i].bound : 1e300, s->site);
			from = i >= 0 ? st->fill[i].bound : 1e300;
		}
		for (; i >= 0; i = next[i]) {
			double until = next[i] >= 0 ? st->fill[next[i]].bound : 1e300;

			steer_bind(st, f, u, from, until, st->fill[i].site);
			from = until;
		}
	}
}

/* steer_name_ttl0: the flows of name n's units that hold no answer: every
 * request its own fill, so the rotation's long-run composition */
static void steer_name_ttl0(struct steer_state *st, int n)
{
	const struct model_steer_name *nm = &st->in->names[n];

	for (int ui = 0; ui < st->in->nunits; ui++) {
		const struct model_steer_unit *u = &st->in->units[ui];
		double w[MODEL_STEER_SITES] = {0}, total = 0;

		if (u->name != n || u->ttl_s > 0 || u->fills_per_s <= 0)
			continue;
		if (nm->policy == MODEL_P_WEIGHTED && nm->npattern) {
			for (int i = 0; i < nm->npattern; i++)
				w[nm->pattern[i]] += 1;
		} else if (nm->policy == MODEL_P_WEIGHTED) {
			for (int i = 0; i < nm->norder; i++)
				w[nm->order[i]] = nm->weight[nm->order[i]];
		} else if (steer_fixed(st, u) >= 0) {
			w[steer_fixed(st, u)] = 1;
		} else {
			for (int k = 0; k < u->nsites; k++)
				w[u->site[k]] = 1;
		}
		for (int s = 0; s < MODEL_STEER_SITES; s++)
			total += w[s];
		for (int j = st->flow_start[ui]; j < st->flow_start[ui + 1]; j++) {
			const struct model_steer_flow *f = &st->in->flows[st->flows_of[j]];
			double from = f->from_s + st->late[f->group], lo = fmax(from, 0),
			       hi = fmin(from + st->in->duration_s, st->period);

			for (int s = 0; s < MODEL_STEER_SITES && hi > lo; s++)
				if (w[s] > 0) {
					double x = f->rate_per_s * (hi - lo) * w[s] / total;

					st->acc[f->group].req[s] += x;
					st->acc[f->group].rtt += x * f->rtt_s[s];
				}
			if (hi > lo) {
				st->upstream[n] += u->fills_per_s * (hi - lo);
				st->edge[n] += u->fills_per_s * 2 * MODEL_STEER_EDGE_S;
			}
		}
	}
}

/* steer_anycast: the anycast flows, each to its site, into st->acc */
static void steer_anycast(struct steer_state *st)
{
	for (int f = 0; f < st->in->nflows; f++) {
		const struct model_steer_flow *fl = &st->in->flows[f];

		if (fl->unit < 0 && fl->site >= 0)
			steer_bind(st, fl, NULL, -1e300, 1e300, fl->site);
	}
}

/* steer_draw: one draw of every name's fills and answers into st->acc and
 * st->upstream */
int steer_draw(struct steer_state *st)
{
	const struct model_steer_input *in = st->in;
	int *next = NULL, *last = calloc((size_t)in->nunits + 1, sizeof(int));

	if (last == NULL)
		return -1;
	memset(st->acc, 0, (size_t)in->ngroups * sizeof(*st->acc));
	/* around the run's own (or the model's, 0), never before the model's */
	for (int g = 0; g < in->ngroups; g++)
		st->late[g] = fmax(0, in->groups[g].late_s +
					  in->start_jitter_s * (2 * model_uniform(&st->rng) - 1));
	st->late_p = model_uniform(&st->rng);
	/* the whole traffic: until the last flow's last request */
	st->period = in->period_s;
	for (int f = 0; f < in->nflows && in->whole; f++)
		st->period = fmax(st->period, in->flows[f].from_s + st->late[in->flows[f].group] +
						  in->duration_s);
	st->order = MODEL_STEER_ORDER_S;
	memset(st->upstream, 0, (size_t)in->nnames * sizeof(double));
	memset(st->edge, 0, (size_t)in->nnames * sizeof(double));
	for (int c = 0; c < in->ntie; c++) {
		/* a tie class: its units' sites are the same; one drawn */
		for (int ui = 0; ui < in->nunits; ui++)
			if (in->units[ui].tie == c) {
				const struct model_steer_unit *u = &in->units[ui];

				st->tiepick[c] =
				    u->site[(int)(model_uniform(&st->rng) * u->nsites) % u->nsites];
				break;
			}
	}
	for (int n = 0; n < in->nnames; n++) {
		unsigned pos = 0;
		double cur[MODEL_STEER_SITES] = {0};

		if (in->names[n].why[0])
			continue;
		st->nfill = 0;
		for (int ui = 0; ui < in->nunits; ui++)
			if (in->units[ui].name == n && steer_fills(st, ui) == -1)
				goto fail;
		qsort(st->fill, st->nfill, sizeof(*st->fill), steer_fill_cmp);
		free(next);
		if ((next = malloc((st->nfill + 1) * sizeof(int))) == NULL)
			goto fail;
		for (int ui = 0; ui < in->nunits; ui++)
			last[ui] = st->first[ui] = -1;
		/* in the order they reach authd: each fill's answer, and each
		 * unit's fills chained in that order */
		for (size_t i = 0; i < st->nfill; i++) {
			struct steer_fill *f = &st->fill[i];

			f->site = steer_draw_answer(st, &in->units[f->unit], &pos, cur);
			next[i] = -1;
			if (last[f->unit] >= 0)
				next[last[f->unit]] = (int)i;
			else
				st->first[f->unit] = (int)i;
			last[f->unit] = (int)i;
			if (f->at >= 0 && f->at < st->period)
				st->upstream[n] += 1;
			if (fabs(f->at - st->period) <= MODEL_STEER_EDGE_S)
				st->edge[n] += 1;
		}
		for (int ui = 0; ui < in->nunits; ui++)
			if (in->units[ui].name == n && in->units[ui].ttl_s > 0)
				steer_unit_bindings(st, ui, next);
		steer_name_ttl0(st, n);
	}
	free(next);
	free(last);
	steer_anycast(st);
	return 0;
fail:
	free(next);
	free(last);
	return -1;
}

/* steer_index: flows grouped by unit into st */
int steer_index(struct steer_state *st)
{
	const struct model_steer_input *in = st->in;
	int *count = calloc((size_t)in->nunits + 1, sizeof(int));

	st->flows_of = malloc(((size_t)in->nflows + 1) * sizeof(int));
	st->flow_start = calloc((size_t)in->nunits + 2, sizeof(int));
	if (count == NULL || st->flows_of == NULL || st->flow_start == NULL) {
		free(count);
		return -1;
	}
	for (int f = 0; f < in->nflows; f++)
		if (in->flows[f].unit >= 0)
			st->flow_start[in->flows[f].unit + 1]++;
	for (int u = 0; u < in->nunits; u++)
		st->flow_start[u + 1] += st->flow_start[u];
	for (int f = 0; f < in->nflows; f++) {
		int u = in->flows[f].unit;

		if (u >= 0)
			st->flows_of[st->flow_start[u] + count[u]++] = f;
	}
	free(count);
	return 0;
}
