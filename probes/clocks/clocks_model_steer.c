/*
 * The steady state of the steering beside the steering table (clocks_model.h;
 * docs/clocks.md, "Steering"): probes/model's model_steer of the run's own
 * topology.ini, over the table's period (the whole traffic of a steady state,
 * [start, t0) of a failure), its traffic time the run's, each client node as
 * late as its client_started says it was; its rows copied into the clocks'
 * plain numbers, and what is measured judged against them.
 */
#include "clocks_model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "clocks_int.h"
#include "clocks_steering.h"
#include "model_steer.h"
#include "topology.h"

#define NS 1e9

void clocks_model_steer_free(struct clocks_model_steer *s)
{
	for (int i = 0; i < s->nrows; i++)
		json_decref(s->rows[i].json);
	json_decref(s->notes);
	s->nrows = 0;
	s->notes = NULL;
}

/* clocks_model_steer_late: each group's clients as late as the run's: the
 * first request its client_started says came after the traffic's start,
 * less the model's */
static void clocks_model_steer_late(const struct clocks_input *in, struct model_steer_input *si)
{
	for (int g = 0; g < si->ngroups; g++) {
		struct model_steer_group *gr = &si->groups[g];
		const char *agent = gr->scheme == MODEL_DNS ? "client-dns" : "client";
		double from = INFINITY;

		for (int f = 0; f < si->nflows; f++)
			if (si->flows[f].group == g)
				from = fmin(from, si->flows[f].from_s);
		for (size_t c = 0; c < in->nclients && isfinite(from); c++) {
			const struct clocks_client *cl = &in->clients[c];
			double at;

			if (strcmp(cl->node, gr->name) != 0 || strcmp(cl->agent, agent) != 0 ||
			    cl->started_ns == CLOCKS_NONE || in->traffic_start_ns == CLOCKS_NONE)
				continue;
			at = (double)(cl->started_ns - in->traffic_start_ns) / NS;
			gr->late_s = at > from ? at - from : 0;
		}
	}
}

/* clocks_model_steer_copy: the result's scheme and name rows into s */
static void clocks_model_steer_copy(const struct model_steer_input *si,
				    const struct model_steer_result *sr,
				    struct clocks_model_steer *s)
{
	for (int i = 0; i < sr->nrows && s->nrows < CLOCKS_MODEL_STEER_ROWS; i++) {
		const struct model_steer_row *w = &sr->rows[i];
		struct clocks_model_steer_row *d = &s->rows[s->nrows];

		if (w->group[0])
			continue;
		s->nrows++;
		d->scheme = w->scheme == MODEL_DNS ? CLOCKS_SCHEME_DNS : CLOCKS_SCHEME_ANYCAST;
		snprintf(d->name, sizeof(d->name), "%s", w->name);
		d->known = w->known;
		snprintf(d->why, sizeof(d->why), "%s", w->why);
		d->policy = w->policy;
		d->requests = w->requests;
		d->nsites =
		    si->nsites < CLOCKS_MODEL_STEER_SITES ? si->nsites : CLOCKS_MODEL_STEER_SITES;
		for (int k = 0; k < d->nsites; k++) {
			snprintf(d->site[k], sizeof(d->site[k]), "%s", si->sites[k]);
			clocks_model_iv_copy(&d->share[k], &w->share[k]);
		}
		d->has_target = w->has_target;
		clocks_model_iv_copy(&d->deviation, &w->deviation);
		clocks_model_iv_copy(&d->rtt_ms, &w->rtt_ms);
		clocks_model_iv_copy(&d->upstream, &w->upstream);
		if (!w->upstream_known) {
			d->upstream.known = 0;
			snprintf(d->upstream.why, sizeof(d->upstream.why), "%s", w->upstream_why);
		}
		d->upstream_tol = w->upstream_edge + 1;
		d->json = model_steer_row_json(si, w);
	}
}

void clocks_model_steer_prepare(const struct topology *t, const struct clocks_input *in,
				struct clocks_model *m)
{
	struct clocks_model_steer *s = &m->steer;
	struct model_steer_input *si = calloc(1, sizeof(*si));
	struct model_steer_result *sr = calloc(1, sizeof(*sr));
	struct model_notes *notes = calloc(1, sizeof(*notes));
	int64_t traffic = clocks_traffic_ns(in);
	double period = 0;
	json_t *as = json_array(), *nm = json_array();

	clocks_model_steer_free(s);
	if (!si || !sr || !notes || !as || !nm) {
		snprintf(s->why, sizeof(s->why), "out of memory");
		goto out;
	}
	if (!in->steady && in->traffic_start_ns != CLOCKS_NONE &&
	    in->failure.t0_ns > in->traffic_start_ns)
		period = (double)(in->failure.t0_ns - in->traffic_start_ns) / NS;
	model_steer_from_topology(t, period, si, notes);
	if (si->dns_why[0]) {
		snprintf(s->why, sizeof(s->why), "%s", si->dns_why);
		goto out;
	}
	/* the run's own traffic time (an interrupted run's) */
	if (traffic != CLOCKS_NONE && traffic > 0) {
		if (in->steady)
			si->period_s += (double)traffic / NS - si->duration_s;
		si->duration_s = (double)traffic / NS;
	}
	clocks_model_steer_late(in, si);
	if (model_steer(si, sr) == -1) {
		snprintf(s->why, sizeof(s->why), "out of memory");
		goto out;
	}
	s->known = 1;
	s->period_s = si->period_s;
	s->samples = sr->samples;
	clocks_model_steer_copy(si, sr, s);
	for (int i = 0; i < notes->n; i++)
		json_array_append_new(notes->not_modelled[i] ? nm : as,
				      json_string(notes->text[i]));
	s->notes = json_pack("{s:o, s:o}", "assumptions", as, "not_modelled", nm);
	as = nm = NULL;
out:
	json_decref(as);
	json_decref(nm);
	free(si);
	free(sr);
	free(notes);
}

const struct clocks_model_steer_row *clocks_model_steer_row(const struct clocks_input *in, int sc,
							    const char *name)
{
	const struct clocks_model_steer *s;

	if (in->model == NULL || !in->model->steer.known)
		return NULL;
	s = &in->model->steer;
	for (int i = 0; i < s->nrows; i++) {
		const char *a = s->rows[i].name, *b = name ? name : "";
		size_t la = strlen(a), lb = strlen(b);

		/* the names compared as DNS names: case and a final dot aside */
		la -= la > 1 && a[la - 1] == '.';
		lb -= lb > 1 && b[lb - 1] == '.';
		if (s->rows[i].scheme == sc && la == lb && strncasecmp(a, b, la) == 0)
			return &s->rows[i];
	}
	return NULL;
}

const struct clocks_model_iv *clocks_model_steer_share(const struct clocks_model_steer_row *w,
						       const char *site)
{
	for (int k = 0; w && w->known && k < w->nsites; k++)
		if (strcmp(w->site[k], site) == 0)
			return &w->share[k];
	return NULL;
}

int clocks_model_steer_judge(const struct clocks_model_iv *iv, double v, double tol)
{
	if (iv == NULL || !iv->known)
		return CLOCKS_MODEL_UNKNOWN;
	if (tol < 0)
		tol = CLOCKS_MODEL_STEER_TOL;
	/* to a billionth: a share at the tolerance's edge is within */
	tol += 1e-9;
	return v > iv->max + tol || v < iv->min - tol ? CLOCKS_MODEL_OUTSIDE : CLOCKS_MODEL_WITHIN;
}

/* clocks_model_steer_say: one more value outside, into text and keys */
static void clocks_model_steer_say(char *text, size_t len, int n, json_t *keys, const char *key,
				   const char *what, double v, const struct clocks_model_iv *iv,
				   double tol, int decimals)
{
	size_t at = strlen(text);

	if (keys)
		json_array_append_new(keys, json_string(key));
	if (at < len)
		snprintf(text + at, len - at,
			 "%s%s: measured %.*f, the model %.*f (p5-p95 %.*f-%.*f, bounds %.*f-%.*f, "
			 "tolerance %.*f)",
			 n ? "; " : "", what, decimals, v, decimals, iv->p50, decimals, iv->p5,
			 decimals, iv->p95, decimals, iv->min, decimals, iv->max, decimals, tol);
}

int clocks_model_steer_outside(const struct clocks_input *in, const struct clocks_steer_total *t,
			       const struct clocks_model_steer_row **w, char *text, size_t len,
			       json_t *keys)
{
	const struct clocks_steering *s = in->steering;
	const struct clocks_model_steer_row *m = clocks_model_steer_row(in, t->scheme, t->name);
	char key[CLOCKS_NAME_MAX + 8], what[CLOCKS_NAME_MAX + 16];
	int n = 0;

	if (len)
		text[0] = '\0';
	*w = m;
	if (s == NULL || m == NULL || !m->known || t->n == 0)
		return -1;
	for (int k = 0; k < s->nsites; k++) {
		const struct clocks_model_iv *iv = clocks_model_steer_share(m, s->sites[k]);

		if (clocks_model_steer_judge(iv, t->share[k], -1) != CLOCKS_MODEL_OUTSIDE)
			continue;
		snprintf(key, sizeof(key), "share.%s", s->sites[k]);
		snprintf(what, sizeof(what), "share of %s", s->sites[k]);
		clocks_model_steer_say(text, len, n++, keys, key, what, t->share[k], iv,
				       CLOCKS_MODEL_STEER_TOL, 3);
	}
	if (t->has_target &&
	    clocks_model_steer_judge(&m->deviation, t->deviation, -1) == CLOCKS_MODEL_OUTSIDE)
		clocks_model_steer_say(text, len, n++, keys, "deviation", "deviation", t->deviation,
				       &m->deviation, CLOCKS_MODEL_STEER_TOL, 3);
	if (t->name[0] && t->upstream != CLOCKS_NONE &&
	    clocks_model_steer_judge(&m->upstream, (double)t->upstream, m->upstream_tol) ==
		CLOCKS_MODEL_OUTSIDE)
		clocks_model_steer_say(text, len, n++, keys, "upstream_queries", "upstream queries",
				       (double)t->upstream, &m->upstream, m->upstream_tol, 0);
	return n;
}

json_t *clocks_model_steer_json(const struct clocks_input *in)
{
	const struct clocks_model_steer *s;
	json_t *o;

	if (in->model == NULL)
		return NULL;
	s = &in->model->steer;
	if (!s->known)
		return json_pack("{s:s}", "none", s->why[0] ? s->why : "not modelled");
	o = json_pack("{s:s, s:f, s:i, s:f, s:f}", "from", "topology.ini", "period_s", s->period_s,
		      "samples", (int)s->samples, "tolerance_share", CLOCKS_MODEL_STEER_TOL,
		      "tolerance_upstream_s", (double)CLOCKS_MODEL_TOL_NS / NS);
	if (o && s->notes)
		json_object_update(o, s->notes);
	return o;
}
