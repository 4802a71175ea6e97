/*
 * The model beside the measurement, written (docs/clocks.md, "The model"):
 * the table of each scheme's modelled clocks with the measured one, the
 * difference and whether they agree; clocks.json's "model" objects. See
 * clocks_model.h.
 */
#include "clocks_model.h"

#include <math.h>
#include <string.h>

#include "clocks_int.h"
#include "texttable.h"

#define NS 1e9

/* clocks_model_cell: a clock of the model, p50 (p5-p95) or one value */
static const char *clocks_model_cell(char *buf, size_t len, const struct clocks_model_iv *v,
				     int seconds)
{
	int d = seconds ? 3 : 0;

	if (!v->known)
		snprintf(buf, len, "-");
	else if (v->p5 == v->p95)
		snprintf(buf, len, "%.*f", d, v->p50);
	else
		snprintf(buf, len, "%.*f (%.*f-%.*f)", d, v->p50, d, v->p5, d, v->p95);
	return buf;
}

/* clocks_model_diff: d rounded to decimals, a zero without its sign */
static double clocks_model_diff(double d, int decimals)
{
	double scale = pow(10, decimals), r = round(d * scale) / scale;

	return r == 0 ? 0 : r;
}

static const char *clocks_model_agrees(int judged)
{
	switch (judged) {
	case CLOCKS_MODEL_WITHIN:
		return "yes";
	case CLOCKS_MODEL_OUTSIDE:
		return "NO";
	case CLOCKS_MODEL_LOWER_BOUND:
		return "lower bound";
	case CLOCKS_MODEL_LATER_STEP:
		return "later step";
	default:
		return "-";
	}
}

/* clocks_model_row_na: the row is no measure of the scheme (upstream
 * queries of anycast), or of the run (a fail-back without a recovery) */
static int clocks_model_row_na(const struct clocks_result *r, enum clocks_model_clock c)
{
	return ((c == CLOCKS_MODEL_UPSTREAM || c == CLOCKS_MODEL_UPSTREAM_PER_S) &&
		r->upstream_queries == CLOCKS_NA) ||
	       (clocks_model_fb(c) && !r->has_failback);
}

/* clocks_model_shown: scheme i is in the run and in the model */
static int clocks_model_shown(const struct clocks_input *in, const struct clocks_result *res,
			      int nres, int i)
{
	return i < nres && i < CLOCKS_NSCHEMES && !res[i].noflows && in->model &&
	       in->model->known && in->model->s[i].present;
}

void clocks_model_table(const struct clocks_input *in, const struct clocks_result *res, int nres,
			struct texttable *t)
{
	texttable_init(t, 6);
	texttable_align(t, 1, 1);
	texttable_align(t, 5, 1);
	texttable_titles(t, "scheme", "clock", "measured", "model", "measured - p50", "agrees",
			 NULL);
	for (int i = 0; i < nres; i++) {
		const struct clocks_model_scheme *s;

		if (!clocks_model_shown(in, res, nres, i))
			continue;
		s = &in->model->s[i];
		for (int k = 0; k < clocks_model_nrows; k++) {
			const struct clocks_model_row *row = &clocks_model_rows[k];
			const struct clocks_model_iv *v = &s->clock[row->c];
			char cell[96];
			double m;
			int lb, have;

			if (!v->known || clocks_model_row_na(&res[i], row->c))
				continue;
			have = clocks_model_measured(in, &res[i], row->c, &m, &lb) == 0;
			texttable_row(t);
			texttable_cell(t, "%s", res[i].scheme);
			texttable_cell(t, "%s", row->label);
			if (!have)
				texttable_cell(t, "-");
			else if (row->seconds)
				texttable_cell(t, "%s%.6f", lb ? "\u2265 " : "", m);
			else
				texttable_cell(t, "%.0f", m);
			texttable_cell(t, "%s",
				       clocks_model_cell(cell, sizeof(cell), v, row->seconds));
			if (!have)
				texttable_cell(t, "-");
			else
				texttable_cell(t, "%+.*f", row->seconds ? 3 : 0,
					       clocks_model_diff(m - v->p50, row->seconds ? 3 : 0));
			texttable_cell(
			    t, "%s",
			    have ? clocks_model_agrees(clocks_model_judge(in, i, row->c, m, lb))
				 : "-");
		}
	}
}

/* clocks_model_bare: the length of label without its unit, " (s)" */
static int clocks_model_bare(const char *label)
{
	const char *unit = strstr(label, " (s)");

	return unit ? (int)(unit - label) : (int)strlen(label);
}

/* clocks_model_print_missing: per scheme, the table's clocks the model
 * leaves out, grouped by why */
static void clocks_model_print_missing(FILE *out, const struct clocks_input *in,
				       const struct clocks_result *res, int nres)
{
	for (int i = 0; i < nres && i < CLOCKS_NSCHEMES; i++) {
		const struct clocks_model_scheme *s = &in->model->s[i];
		int done[16] = {0};

		if (res[i].noflows)
			continue;
		if (!s->present) {
			fprintf(out, "not modelled: %s: the topology has no client of it\n",
				res[i].scheme);
			continue;
		}
		for (int k = 0; k < clocks_model_nrows && k < 16; k++) {
			const struct clocks_model_iv *v = &s->clock[clocks_model_rows[k].c];
			int n = 0;

			/* errors: said where lost is */
			if (done[k] || v->known || clocks_model_rows[k].c == CLOCKS_MODEL_ERRORS ||
			    clocks_model_row_na(&res[i], clocks_model_rows[k].c))
				continue;
			fprintf(out, "not modelled: %s ", res[i].scheme);
			for (int j = k; j < clocks_model_nrows && j < 16; j++) {
				const struct clocks_model_iv *w = &s->clock[clocks_model_rows[j].c];

				if (done[j] || w->known || strcmp(w->why, v->why) != 0 ||
				    clocks_model_row_na(&res[i], clocks_model_rows[j].c))
					continue;
				done[j] = 1;
				fprintf(out, "%s%.*s", n++ ? ", " : "",
					clocks_model_bare(clocks_model_rows[j].label),
					clocks_model_rows[j].label);
			}
			fprintf(out, ": %s\n", v->why[0] ? v->why : "not modelled");
		}
	}
}

void clocks_model_print(FILE *out, const struct clocks_input *in, const struct clocks_result *res,
			int nres)
{
	const struct clocks_model *m = in->model;
	struct texttable t;

	if (m == NULL || in->steady)
		return;
	if (!m->known) {
		fprintf(out, "\nmodel: none (%s)\n", m->why);
		return;
	}
	fprintf(
	    out,
	    "\nmodel: what steerlab model predicts from this run's topology.ini, t0 %.3f s into "
	    "the traffic\n(docs/model.md): p50 (p5-p95) over %u draws of its random phases; "
	    "agrees: within the\ndraws' bounds widened by %g s, a count by what %g s changes "
	    "(docs/clocks.md, \"The model\")\n",
	    m->t0_s, m->samples, (double)CLOCKS_MODEL_TOL_NS / NS,
	    (double)CLOCKS_MODEL_TOL_NS / NS);
	clocks_model_table(in, res, nres, &t);
	if (t.nrows > 1)
		texttable_print(&t, out, 0);
	texttable_free(&t);
	clocks_model_print_missing(out, in, res, nres);
}

json_t *clocks_model_iv_json(const struct clocks_model_iv *v)
{
	if (!v->known)
		return json_null();
	return json_pack("{s:f, s:f, s:f, s:f, s:f}", "p5", v->p5, "p50", v->p50, "p95", v->p95,
			 "min", v->min, "max", v->max);
}

/* the JSON key of each clock in the scheme's object ("" in budget, or
 * under last_per_client_s) */
static const char *const clocks_model_keys[CLOCKS_MODEL_CLOCKS] = {
    [CLOCKS_MODEL_DETECT] = "detect_s",
    [CLOCKS_MODEL_STEER] = "steer_s",
    [CLOCKS_MODEL_WINDOW] = "window_s",
    [CLOCKS_MODEL_LAST_P50] = "last_per_client_s.p50",
    [CLOCKS_MODEL_LAST_P99] = "last_per_client_s.p99",
    [CLOCKS_MODEL_LAST_MAX] = "last_per_client_s.max",
    [CLOCKS_MODEL_LOST_CLIENT] = "lost_client",
    [CLOCKS_MODEL_LOST_CAPTURE] = "lost_capture",
    [CLOCKS_MODEL_ERRORS] = "errors",
    [CLOCKS_MODEL_DOWNTIME] = "budget.equivalent_downtime_s",
    [CLOCKS_MODEL_BUDGET_SHARE] = "budget.budget_share_downtime",
    [CLOCKS_MODEL_UPSTREAM] = "upstream_queries",
    [CLOCKS_MODEL_UPSTREAM_PER_S] = "upstream_queries_per_s",
    [CLOCKS_MODEL_FB_HEALTHY] = "failback.healthy_s",
    [CLOCKS_MODEL_FB_STEER] = "failback.steer_s",
    [CLOCKS_MODEL_FB_FIRST] = "failback.first_client_s",
    [CLOCKS_MODEL_FB_LAST] = "failback.last_client_s",
};

json_t *clocks_model_json(const struct clocks_input *in, const struct clocks_result *r, int i)
{
	const struct clocks_model_scheme *s;
	const struct clocks_model *m = in->model;
	json_t *o, *by, *why, *outside, *later, *tol;
	char id[16];

	if (i < 0 || i >= CLOCKS_NSCHEMES || r->noflows || m == NULL || !m->known ||
	    !m->s[i].present)
		return json_null();
	s = &m->s[i];
	by = json_object();
	why = json_object();
	outside = json_array();
	later = json_array();
	for (int j = 0; by && j < s->nclients; j++) {
		snprintf(id, sizeof(id), "%u", s->client[j].id);
		json_object_set_new(by, id, clocks_model_iv_json(&s->client[j].last));
	}
	o = json_pack(
	    "{s:o, s:o, s:o, s:{s:i, s:o, s:o, s:o}, s:o, s:o, s:o, s:{s:f, s:f, s:f, s:o, s:o}}",
	    "detect_s", clocks_model_iv_json(&s->clock[CLOCKS_MODEL_DETECT]), "steer_s",
	    clocks_model_iv_json(&s->clock[CLOCKS_MODEL_STEER]), "window_s",
	    clocks_model_iv_json(&s->clock[CLOCKS_MODEL_WINDOW]), "last_per_client_s", "clients",
	    s->clients, "p50", clocks_model_iv_json(&s->clock[CLOCKS_MODEL_LAST_P50]), "p99",
	    clocks_model_iv_json(&s->clock[CLOCKS_MODEL_LAST_P99]), "max",
	    clocks_model_iv_json(&s->clock[CLOCKS_MODEL_LAST_MAX]), "last_by_client_s",
	    by ? by : json_null(), "lost_client",
	    clocks_model_iv_json(&s->clock[CLOCKS_MODEL_LOST_CLIENT]), "lost_capture",
	    clocks_model_iv_json(&s->clock[CLOCKS_MODEL_LOST_CAPTURE]), "budget", "slo_pct",
	    m->slo_pct, "budget_s", round(m->budget_s * 1e6) / 1e6, "rate_per_s", s->rate_per_s,
	    "equivalent_downtime_s", clocks_model_iv_json(&s->clock[CLOCKS_MODEL_DOWNTIME]),
	    "budget_share_downtime", clocks_model_iv_json(&s->clock[CLOCKS_MODEL_BUDGET_SHARE]));
	/* the widening model_disagrees gives each kind of clock, so that a
	 * reader (a repeat, lab/run/repeat_model.c) judges as the run did */
	tol = json_pack("{s:f, s:f}", "seconds", (double)CLOCKS_MODEL_TOL_NS / NS, "lost",
			clocks_model_tolerance(m, i, CLOCKS_MODEL_LOST_CLIENT));
	if (o == NULL || why == NULL || outside == NULL || later == NULL || tol == NULL) {
		json_decref(o);
		json_decref(why);
		json_decref(outside);
		json_decref(later);
		json_decref(tol);
		return NULL;
	}
	if (s->tcp)
		json_object_set_new(o, "errors",
				    clocks_model_iv_json(&s->clock[CLOCKS_MODEL_ERRORS]));
	if (r->upstream_queries != CLOCKS_NA) {
		json_object_set_new(o, "upstream_queries",
				    clocks_model_iv_json(&s->clock[CLOCKS_MODEL_UPSTREAM]));
		json_object_set_new(o, "upstream_queries_per_s",
				    clocks_model_iv_json(&s->clock[CLOCKS_MODEL_UPSTREAM_PER_S]));
		json_object_set_new(tol, "upstream_queries",
				    json_real(clocks_model_tolerance(m, i, CLOCKS_MODEL_UPSTREAM)));
	}
	/* the fail-back's, when the timeline recovered the site */
	if (m->recover_s >= 0)
		json_object_set_new(
		    o, "failback",
		    json_pack(
			"{s:o, s:o, s:o, s:o}", "healthy_s",
			clocks_model_iv_json(&s->clock[CLOCKS_MODEL_FB_HEALTHY]), "steer_s",
			clocks_model_iv_json(&s->clock[CLOCKS_MODEL_FB_STEER]), "first_client_s",
			clocks_model_iv_json(&s->clock[CLOCKS_MODEL_FB_FIRST]), "last_client_s",
			clocks_model_iv_json(&s->clock[CLOCKS_MODEL_FB_LAST])));
	for (int c = 0; c < CLOCKS_MODEL_CLOCKS; c++) {
		const struct clocks_model_iv *v = &s->clock[c];
		double x;
		int lb, judged;

		if (clocks_model_row_na(r, (enum clocks_model_clock)c) ||
		    (c == CLOCKS_MODEL_ERRORS && !s->tcp))
			continue;
		if (!v->known) {
			json_object_set_new(why, clocks_model_keys[c],
					    json_string(v->why[0] ? v->why : "not modelled"));
			continue;
		}
		if (clocks_model_measured(in, r, (enum clocks_model_clock)c, &x, &lb) == -1)
			continue;
		judged = clocks_model_judge(in, i, (enum clocks_model_clock)c, x, lb);
		if (judged == CLOCKS_MODEL_OUTSIDE)
			json_array_append_new(outside, json_string(clocks_model_keys[c]));
		else if (judged == CLOCKS_MODEL_LATER_STEP)
			json_array_append_new(later, json_string(clocks_model_keys[c]));
	}
	json_object_set_new(o, "not_modelled", why);
	json_object_set_new(o, "outside", outside);
	json_object_set_new(o, "later_step", later);
	json_object_set_new(o, "tolerance", tol);
	return o;
}

json_t *clocks_model_json_run(const struct clocks_input *in)
{
	const struct clocks_model *m = in->model;
	json_t *as, *nm;

	if (m == NULL)
		return json_null();
	if (!m->known)
		return json_pack("{s:s}", "none", m->why);
	as = json_array();
	nm = json_array();
	for (int k = 0; as && nm && k < m->nnotes; k++)
		json_array_append_new(m->not_modelled[k] ? nm : as, json_string(m->note[k]));
	return json_pack("{s:s, s:f, s:f, s:i, s:f, s:o, s:o}", "from", "topology.ini", "t0_s",
			 m->t0_s, "duration_s", m->duration_s, "samples", (int)m->samples,
			 "tolerance_s", (double)CLOCKS_MODEL_TOL_NS / NS, "assumptions",
			 as ? as : json_null(), "not_modelled", nm ? nm : json_null());
}
