/*
 * The steady state of the steering (model_steer.h; docs/model.md, "Steady
 * state: shares, deviation, distance"): the rows of the steering table (each
 * group's, name's and scheme's), their targets, and over the draws
 * (model_steer_draw.c) the shares, the deviation, the RTT per request and a
 * name's upstream queries, with their p5, p50, p95 and bounds.
 */
#include "model_steer_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const model_policy_name[7] = {"simple",	 "multivalue", "failover", "weighted",
					  "geolocation", "latency",    "proximity"};

/* the values of a row per draw: its shares, deviation, RTT, upstream */
enum { V_DEV = MODEL_STEER_SITES, V_RTT, V_UP, V_COUNT };

/* steer_row_draw: row w's values of this draw into v[V_COUNT] from the
 * groups it covers (scheme, and name or group) */
static void steer_row_draw(const struct steer_state *st, const struct model_steer_row *w, int name,
			   int group, double *v)
{
	const struct model_steer_input *in = st->in;
	double total = 0, rtt = 0, dev = 0;

	memset(v, 0, V_COUNT * sizeof(*v));
	for (int g = 0; g < in->ngroups; g++) {
		const struct model_steer_group *gr = &in->groups[g];

		if (gr->scheme != w->scheme || (name >= 0 && gr->name_index != name) ||
		    (group >= 0 && g != group))
			continue;
		for (int s = 0; s < in->nsites; s++) {
			v[s] += st->acc[g].req[s];
			total += st->acc[g].req[s];
		}
		rtt += st->acc[g].rtt;
	}
	for (int s = 0; s < in->nsites; s++) {
		v[s] = total > 0 ? round(v[s] / total * 1e12) / 1e12 : 0;
		dev += fabs(v[s] - w->target[s]);
	}
	v[V_DEV] = round(dev / 2 * 1e12) / 1e12;
	v[V_RTT] = total > 0 ? round(rtt / total * 1e12) / 1e9 : 0; /* ms */
	v[V_UP] = name >= 0 ? st->upstream[name] : 0;
}

/* steer_row_target: w's target from the groups it covers, weighted by
 * their requests (none unless every one has one) */
static void steer_row_target(const struct model_steer_input *in, struct model_steer_row *w,
			     int name, int group)
{
	double n = 0;
	int all = 1;

	for (int g = 0; g < in->ngroups; g++) {
		const struct model_steer_group *gr = &in->groups[g];
		double q = 0;

		if (gr->scheme != w->scheme || (name >= 0 && gr->name_index != name) ||
		    (group >= 0 && g != group))
			continue;
		for (int f = 0; f < in->nflows; f++)
			if (in->flows[f].group == g)
				q += in->flows[f].rate_per_s;
		all &= gr->has_target;
		for (int s = 0; s < in->nsites; s++)
			w->target[s] += q * gr->target[s];
		n += q;
	}
	w->has_target = all && n > 0;
	for (int s = 0; s < in->nsites; s++)
		w->target[s] = w->has_target ? w->target[s] / n : 0;
}

/* steer_rows: the rows of r (their keys, targets, what is known); rname[i]
 * the name of row i (-1: none), rgroup[i] its group (-1: none) */
static void steer_rows(const struct model_steer_input *in, struct model_steer_result *r, int *rname,
		       int *rgroup)
{
	r->nrows = 0;
	for (int sc = 0; sc < MODEL_SCHEMES; sc++) {
		struct model_steer_row *w = &r->rows[r->nrows];
		int any = 0;

		memset(w, 0, sizeof(*w));
		w->scheme = sc;
		w->known = 1;
		for (int g = 0; g < in->ngroups; g++) {
			const struct model_steer_group *gr = &in->groups[g];
			const struct model_steer_name *nm =
			    gr->name_index >= 0 ? &in->names[gr->name_index] : NULL;

			if (gr->scheme != sc)
				continue;
			any = 1;
			if (sc == MODEL_DNS && (nm == NULL || nm->why[0]) && w->known) {
				w->known = 0;
				snprintf(w->why, sizeof(w->why), "%.31s: %.280s", gr->name,
					 nm ? nm->why : MODEL_STEER_NO_NAME);
			}
		}
		if (!any)
			continue;
		if (sc == MODEL_ANYCAST && in->anycast_why[0]) {
			w->known = 0;
			snprintf(w->why, sizeof(w->why), "%s", in->anycast_why);
		}
		steer_row_target(in, w, -1, -1);
		rgroup[r->nrows] = -1;
		rname[r->nrows++] = -1;
	}
	for (int i = 0; i < in->nnames; i++) {
		struct model_steer_row *w = &r->rows[r->nrows];
		const struct model_steer_name *nm = &in->names[i];

		memset(w, 0, sizeof(*w));
		w->scheme = MODEL_DNS;
		snprintf(w->name, sizeof(w->name), "%s", nm->name);
		w->policy = model_policy_name[nm->policy];
		w->known = !nm->why[0];
		snprintf(w->why, sizeof(w->why), "%s", nm->why);
		w->upstream_known = w->known && !nm->upstream_why[0];
		snprintf(w->upstream_why, sizeof(w->upstream_why), "%s",
			 w->known ? nm->upstream_why : nm->why);
		steer_row_target(in, w, i, -1);
		rgroup[r->nrows] = -1;
		rname[r->nrows++] = i;
	}
	for (int g = 0; g < in->ngroups && r->nrows < MODEL_STEER_ROWS; g++) {
		const struct model_steer_group *gr = &in->groups[g];
		const struct model_steer_name *nm =
		    gr->name_index >= 0 ? &in->names[gr->name_index] : NULL;
		struct model_steer_row *w = &r->rows[r->nrows];

		memset(w, 0, sizeof(*w));
		w->scheme = gr->scheme;
		snprintf(w->group, sizeof(w->group), "%s", gr->name);
		if (nm)
			snprintf(w->name, sizeof(w->name), "%s", nm->name);
		w->known = gr->scheme == MODEL_ANYCAST ? !in->anycast_why[0] : nm && !nm->why[0];
		snprintf(w->why, sizeof(w->why), "%s",
			 gr->scheme == MODEL_ANYCAST ? in->anycast_why
			 : nm			     ? nm->why
						     : MODEL_STEER_NO_NAME);
		steer_row_target(in, w, -1, g);
		rgroup[r->nrows] = g;
		rname[r->nrows++] = -1;
	}
}

int model_steer(const struct model_steer_input *in, struct model_steer_result *r)
{
	struct steer_state st = {.in = in, .rng = in->seed ? in->seed : MODEL_STEER_SEED};
	unsigned n = in->samples ? in->samples : MODEL_STEER_SAMPLES;
	int rname[MODEL_STEER_ROWS], rgroup[MODEL_STEER_ROWS], rc = -1;
	double *v = NULL, row[V_COUNT];

	memset(r, 0, sizeof(*r));
	r->samples = n;
	steer_rows(in, r, rname, rgroup);
	st.first = calloc((size_t)in->nunits + 1, sizeof(int));
	st.tiepick = calloc((size_t)in->ntie + 1, sizeof(int));
	st.upstream = calloc((size_t)in->nnames + 1, sizeof(double));
	st.edge = calloc((size_t)in->nnames + 1, sizeof(double));
	st.late = calloc((size_t)in->ngroups + 1, sizeof(double));
	st.acc = calloc((size_t)in->ngroups + 1, sizeof(*st.acc));
	v = calloc((size_t)r->nrows * V_COUNT * n, sizeof(double));
	if (!st.first || !st.tiepick || !st.upstream || !st.edge || !st.late || !st.acc || !v ||
	    steer_index(&st) == -1)
		goto out;
	for (unsigned d = 0; d < n; d++) {
		if (steer_draw(&st) == -1)
			goto out;
		for (int i = 0; i < r->nrows; i++) {
			steer_row_draw(&st, &r->rows[i], rname[i], rgroup[i], row);
			for (int k = 0; k < V_COUNT; k++)
				v[((size_t)i * V_COUNT + (size_t)k) * n + d] = row[k];
			r->rows[i].requests = 0;
			if (rname[i] >= 0)
				r->rows[i].upstream_edge =
				    fmax(r->rows[i].upstream_edge, st.edge[rname[i]]);
		}
	}
	for (int i = 0; i < r->nrows; i++) {
		struct model_steer_row *w = &r->rows[i];
		double *x = v + (size_t)i * V_COUNT * n;

		for (int g = 0; g < in->ngroups; g++) {
			const struct model_steer_group *gr = &in->groups[g];

			if (gr->scheme != w->scheme ||
			    (rname[i] >= 0 && gr->name_index != rname[i]) ||
			    (rgroup[i] >= 0 && g != rgroup[i]))
				continue;
			for (int s = 0; s < in->nsites; s++)
				w->requests += st.acc[g].req[s];
		}
		if (!w->known)
			continue;
		for (int s = 0; s < in->nsites; s++)
			model_iv_of(x + (size_t)s * n, n, &w->share[s]);
		if (w->has_target)
			model_iv_of(x + (size_t)V_DEV * n, n, &w->deviation);
		model_iv_of(x + (size_t)V_RTT * n, n, &w->rtt_ms);
		if (w->upstream_known)
			model_iv_of(x + (size_t)V_UP * n, n, &w->upstream);
	}
	rc = 0;
out:
	free(v);
	free(st.fill);
	free(st.first);
	free(st.tiepick);
	free(st.upstream);
	free(st.edge);
	free(st.late);
	free(st.acc);
	free(st.flows_of);
	free(st.flow_start);
	return rc;
}
