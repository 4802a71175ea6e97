/*
 * The model in a sweep: each point's clocks.json "model" read into the
 * sweep's table, and written as sweep.csv's model columns and sweep.md's
 * model and difference rows; see sweep_model.h.
 */
#include "sweep_model.h"

#include <math.h>
#include <string.h>

#include "strfmt.h"
#include "texttable.h"

/* where each clock is in a scheme's "model" (obj, or obj's sub), its name
 * in sweep.csv, and its unit */
static const struct {
	const char *key; /* as "outside" names it */
	const char *obj, *sub;
	const char *col;
	int seconds;
} sweep_model_clocks[SWEEP_MODEL_CLOCKS] = {
    [SWEEP_MODEL_DETECT] = {"detect_s", "detect_s", NULL, "detect_s", 1},
    [SWEEP_MODEL_STEER] = {"steer_s", "steer_s", NULL, "steer_s", 1},
    [SWEEP_MODEL_WINDOW] = {"window_s", "window_s", NULL, "window_s", 1},
    [SWEEP_MODEL_LAST_P50] = {"last_per_client_s.p50", "last_per_client_s", "p50", "last_p50_s", 1},
    [SWEEP_MODEL_LAST_P99] = {"last_per_client_s.p99", "last_per_client_s", "p99", "last_p99_s", 1},
    [SWEEP_MODEL_LAST_MAX] = {"last_per_client_s.max", "last_per_client_s", "max", "last_max_s", 1},
    [SWEEP_MODEL_LOST_CLIENT] = {"lost_client", "lost_client", NULL, "lost_client", 0},
    [SWEEP_MODEL_LOST_CAPTURE] = {"lost_capture", "lost_capture", NULL, "lost_capture", 0},
    [SWEEP_MODEL_UPSTREAM] = {"upstream_queries", "upstream_queries", NULL, "upstream_queries", 0},
};

const char *sweep_model_key(enum sweep_model_clock c)
{
	return sweep_model_clocks[c].key;
}

int sweep_model_seconds(enum sweep_model_clock c)
{
	return sweep_model_clocks[c].seconds;
}

static double sweep_model_num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* sweep_model_iv_load: {p5, p50, p95, min, max}; unknown if null or
 * short of one */
static void sweep_model_iv_load(struct sweep_model_iv *v, json_t *o)
{
	v->p5 = sweep_model_num(o, "p5");
	v->p50 = sweep_model_num(o, "p50");
	v->p95 = sweep_model_num(o, "p95");
	v->min = sweep_model_num(o, "min");
	v->max = sweep_model_num(o, "max");
	v->known =
	    !isnan(v->p5) && !isnan(v->p50) && !isnan(v->p95) && !isnan(v->min) && !isnan(v->max);
}

/* sweep_model_bits: the clocks an array of clocks.json keys names */
static unsigned sweep_model_bits(json_t *a)
{
	unsigned bits = 0;
	json_t *k;
	size_t j;

	json_array_foreach(a, j, k)
	{
		for (int c = 0; c < SWEEP_MODEL_CLOCKS; c++)
			if (json_is_string(k) &&
			    strcmp(json_string_value(k), sweep_model_clocks[c].key) == 0)
				bits |= 1u << c;
	}
	return bits;
}

void sweep_model_load(struct sweep_table *tb, int i, int s, json_t *o, json_t *root)
{
	struct sweep_model *m = &tb->clocks[i][s].model;
	json_t *run = json_object_get(root, "model"), *mo = json_object_get(o, "model");
	json_t *tol = json_object_get(mo, "tolerance");
	double tol_s = sweep_model_num(tol, "seconds");

	memset(m, 0, sizeof(*m));
	for (int c = 0; c < SWEEP_MODEL_CLOCKS; c++)
		m->tol[c] = NAN;
	if (json_is_string(json_object_get(run, "none")))
		strfmt(tb->model_none[i], sizeof(tb->model_none[i]), "%s",
		       json_string_value(json_object_get(run, "none")));
	if (!json_is_object(mo))
		return;
	m->present = 1;
	/* the run's own tolerance for a time when the scheme does not say it */
	if (isnan(tol_s))
		tol_s = sweep_model_num(run, "tolerance_s");
	for (int c = 0; c < SWEEP_MODEL_CLOCKS; c++) {
		json_t *v = json_object_get(mo, sweep_model_clocks[c].obj);

		if (sweep_model_clocks[c].sub)
			v = json_object_get(v, sweep_model_clocks[c].sub);
		sweep_model_iv_load(&m->clock[c], v);
		if (sweep_model_clocks[c].seconds)
			m->tol[c] = tol_s;
		else
			m->tol[c] = sweep_model_num(
			    tol, c == SWEEP_MODEL_UPSTREAM ? "upstream_queries" : "lost");
	}
	m->outside = sweep_model_bits(json_object_get(mo, "outside"));
	m->later_step = sweep_model_bits(json_object_get(mo, "later_step"));
}

int sweep_model_shown(const struct sweep_table *tb, int s, enum sweep_model_clock c)
{
	return c != SWEEP_MODEL_UPSTREAM || tb->has_upstream[s];
}

const char *sweep_model_cell(char *buf, size_t len, const struct sweep_model_iv *v, int seconds)
{
	int d = seconds ? 3 : 0;

	if (!v->known)
		strfmt(buf, len, "-");
	else if (v->p5 == v->p95)
		strfmt(buf, len, "%.*f", d, v->p50);
	else
		strfmt(buf, len, "%.*f (%.*f-%.*f)", d, v->p50, d, v->p5, d, v->p95);
	return buf;
}

void sweep_model_csv_head(const struct sweep_table *tb, int s, FILE *out)
{
	static const char *const q[] = {"p50", "p5", "p95"};

	for (int c = 0; c < SWEEP_MODEL_CLOCKS; c++)
		for (int k = 0; k < 3 && sweep_model_shown(tb, s, c); k++)
			fprintf(out, ",%s_model_%s_%s", tb->schemes[s], sweep_model_clocks[c].col,
				q[k]);
	fprintf(out, ",%s_model_outside", tb->schemes[s]);
}

void sweep_model_csv_cells(const struct sweep_table *tb, int i, int s, FILE *out)
{
	const struct sweep_clocks *cl = &tb->clocks[i][s];
	const struct sweep_model *m = &cl->model;
	int n = 0;

	for (int c = 0; c < SWEEP_MODEL_CLOCKS; c++) {
		const struct sweep_model_iv *v = &m->clock[c];
		const char *fmt = sweep_model_clocks[c].seconds ? ",%.6f" : ",%.3f";
		const double q[] = {v->p50, v->p5, v->p95};

		if (!sweep_model_shown(tb, s, c))
			continue;
		for (int k = 0; k < 3; k++)
			if (cl->present && m->present && v->known)
				fprintf(out, fmt, q[k]);
			else
				fputc(',', out);
	}
	fputc(',', out);
	for (int c = 0; c < SWEEP_MODEL_CLOCKS && cl->present; c++)
		if (m->outside & (1u << c))
			fprintf(out, "%s%s", n++ ? " " : "", sweep_model_clocks[c].key);
}

/* sweep_model_measured: clock c of cl as measured, NAN if not; *lb 1 if
 * it is a lower bound */
static double sweep_model_measured(const struct sweep_clocks *cl, int c, int *lb)
{
	int64_t n = -1;

	*lb = 0;
	switch (c) {
	case SWEEP_MODEL_DETECT:
		return cl->detect;
	case SWEEP_MODEL_STEER:
		return cl->steer;
	case SWEEP_MODEL_WINDOW:
		*lb = cl->lb_window;
		return cl->window;
	case SWEEP_MODEL_LAST_P50:
		*lb = cl->lb_p50;
		return cl->p50;
	case SWEEP_MODEL_LAST_P99:
		*lb = cl->lb_p99;
		return cl->p99;
	case SWEEP_MODEL_LAST_MAX:
		*lb = cl->lb_max;
		return cl->max;
	case SWEEP_MODEL_LOST_CLIENT:
		n = cl->lost_client;
		break;
	case SWEEP_MODEL_LOST_CAPTURE:
		n = cl->lost_capture;
		break;
	case SWEEP_MODEL_UPSTREAM:
		n = cl->upstream;
		break;
	}
	return n < 0 ? NAN : (double)n;
}

/* sweep_model_diff_cell: measured - p50 of clock c, rounded as shown (no
 * "-0.000"), "≥" before a lower bound's, "outside" after a clock the run
 * judged outside */
static void sweep_model_diff_cell(struct texttable *t, const struct sweep_clocks *cl, int c)
{
	const struct sweep_model_iv *v = &cl->model.clock[c];
	int lb, d = sweep_model_clocks[c].seconds ? 3 : 0;
	double x = sweep_model_measured(cl, c, &lb), scale = pow(10, d), r;

	if (isnan(x) || !v->known) {
		texttable_cell(t, "-");
		return;
	}
	r = round((x - v->p50) * scale) / scale;
	texttable_cell(t, "%s%+.*f%s", lb ? "\u2265 " : "", d, r == 0 ? 0 : r,
		       cl->model.outside & (1u << c) ? " outside" : "");
}

void sweep_model_md_rows(const struct sweep_table *tb, int i, int s, struct texttable *t)
{
	const struct sweep_clocks *cl = &tb->clocks[i][s];
	char cell[96];

	if (!tb->done[i] || !cl->present || tb->steady)
		return;
	texttable_row(t);
	texttable_cell(t, "model");
	for (int c = 0; c < SWEEP_MODEL_CLOCKS; c++)
		if (sweep_model_shown(tb, s, c))
			texttable_cell(t, "%s",
				       cl->model.present
					   ? sweep_model_cell(cell, sizeof(cell),
							      &cl->model.clock[c],
							      sweep_model_clocks[c].seconds)
					   : "-");
	if (tb->has_deviation[s])
		texttable_cell(t, "-");
	if (!cl->model.present)
		return;
	texttable_row(t);
	texttable_cell(t, "difference");
	for (int c = 0; c < SWEEP_MODEL_CLOCKS; c++)
		if (sweep_model_shown(tb, s, c))
			sweep_model_diff_cell(t, cl, c);
	if (tb->has_deviation[s])
		texttable_cell(t, "-");
}

void sweep_model_md_notes(const struct sweep *sw, const struct sweep_table *tb, FILE *out)
{
	int n = 0;

	if (tb->steady || tb->nschemes == 0)
		return;
	fputs("\nmodel: the model of each point's run, what `steerlab model` predicts from its "
	      "topology.ini with\nthe failure at the run's own instant (its clocks.json; "
	      "docs/model.md, \"In sweeps and repeats\"):\np50 (p5-p95) over the model's draws, "
	      "one value when every draw gives it, - where it has none.\ndifference: measured - "
	      "the model's p50; outside: the run's model_disagrees, the clock outside\nthe "
	      "model's bounds widened by its tolerance (docs/clocks.md, \"The model beside the "
	      "measurement\").\n",
	      out);
	for (int i = 0; i < sw->nvalues; i++)
		if (tb->done[i] && tb->model_none[i][0])
			fprintf(out, "%s- %s=%s (%s/): %s\n", n++ ? "" : "\nNo model:\n\n", sw->key,
				sw->values[i], sw->names[i], tb->model_none[i]);
}
