/*
 * A sweep's combined table: every point's clocks.json (docs/clocks.md)
 * read with jansson, written as CSV, Markdown and a gnuplot script; see
 * sweep.h. The columns per scheme are the clocks table's first lines:
 * detect, steer, window, the last packet per client (p50, p99, max: the
 * "last_per_client_s" of clocks.json), the requests lost as the clients and
 * the captures count them, and for DNS the queries that reached authd.
 * Each point's verdict comes with it: an invalid point is marked with the
 * codes that invalidate it and left out of the plot; a lower bound
 * (window_cut) is "≥ 4.003" in the table, flagged in the CSV and drawn as
 * a triangle pointing up. A scheme a point does not have is absent there.
 */
#include "run.h"

#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "strfmt.h"
#include "sweep_model.h"
#include "texttable.h"

static double sweep_json_s(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static int64_t sweep_json_n(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? (int64_t)json_integer_value(v) : -1;
}

static int sweep_json_b(json_t *o, const char *key)
{
	return json_is_true(json_object_get(o, key));
}

/* sweep_verdict: the point's "valid" and its invalidating codes */
static void sweep_verdict(struct sweep_table *tb, int i, json_t *root)
{
	json_t *valid = json_object_get(root, "valid"), *w;
	size_t k, off = 0;

	tb->valid[i] = json_is_boolean(valid) ? json_is_true(valid) : -1;
	tb->invalid[i][0] = '\0';
	json_array_foreach(json_object_get(root, "warnings"), k, w)
	{
		const char *code = json_string_value(json_object_get(w, "code"));

		if (code == NULL || !json_is_true(json_object_get(w, "invalidates")) ||
		    off >= sizeof(tb->invalid[i]))
			continue;
		/* each code once */
		char *hit = strstr(tb->invalid[i], code);
		size_t len = strlen(code);
		if (hit && (hit[len] == '\0' || hit[len] == ','))
			continue;
		off += (size_t)snprintf(tb->invalid[i] + off, sizeof(tb->invalid[i]) - off, "%s%s",
					off ? ", " : "", code);
	}
}

/* sweep_scheme: the column of scheme name, added if new; -1 if full */
static int sweep_scheme(struct sweep_table *tb, const char *name)
{
	for (int s = 0; s < tb->nschemes; s++)
		if (strcmp(tb->schemes[s], name) == 0)
			return s;
	if (tb->nschemes == SWEEP_MAX_SCHEMES)
		return -1;
	strfmt(tb->schemes[tb->nschemes], sizeof(tb->schemes[0]), "%s", name);
	return tb->nschemes++;
}

int sweep_table_load(const struct sweep *sw, const char *dir, struct sweep_table *tb, FILE *err)
{
	char path[PATH_MAX];
	json_error_t jerr;

	int ndone = 0, nsteady = 0;

	memset(tb, 0, sizeof(*tb));
	/* the sweep's lab, not LAB-N of a point run beside others */
	strfmt(tb->lab, sizeof(tb->lab), "%s", sw->lab);
	for (int i = 0; i < sw->nvalues; i++) {
		json_t *root, *schemes, *o;
		const char *name;

		tb->offset[i] = NAN;
		strfmt(path, sizeof(path), "%s/%s/clocks.json", dir, sw->names[i]);
		if (access(path, F_OK) == -1)
			continue;
		if ((root = json_load_file(path, 0, &jerr)) == NULL) {
			fprintf(err, "%s:%d: %s\n", path, jerr.line, jerr.text);
			return -1;
		}
		schemes = json_object_get(root, "schemes");
		if (!json_is_object(schemes)) {
			fprintf(err, "%s: no \"schemes\" object\n", path);
			json_decref(root);
			return -1;
		}
		if (tb->lab[0] == '\0' && json_is_string(json_object_get(root, "lab")))
			strfmt(tb->lab, sizeof(tb->lab), "%s",
			       json_string_value(json_object_get(root, "lab")));
		tb->offset[i] = sweep_json_s(json_object_get(root, "failed"), "jitter_offset_s");
		json_t *steer = json_object_get(json_object_get(root, "steering"), "schemes");
		json_object_foreach(schemes, name, o)
		{
			int s = sweep_scheme(tb, name);
			if (s < 0 || !json_is_object(o))
				continue;
			struct sweep_clocks *c = &tb->clocks[i][s];
			json_t *last = json_object_get(o, "last_per_client_s");
			c->present = 1;
			c->detect = sweep_json_s(o, "detect_s");
			c->remote_dead = sweep_json_s(o, "remote_dead_s");
			if (json_object_get(o, "remote_dead_s"))
				tb->has_remote[s] = 1;
			c->steer = sweep_json_s(o, "steer_s");
			c->window = sweep_json_s(o, "window_s");
			c->p50 = sweep_json_s(last, "p50");
			c->p99 = sweep_json_s(last, "p99");
			c->max = sweep_json_s(last, "max");
			c->lb_window = sweep_json_b(o, "window_lower_bound");
			c->lb_p50 = sweep_json_b(json_object_get(last, "lower_bound"), "p50");
			c->lb_p99 = sweep_json_b(json_object_get(last, "lower_bound"), "p99");
			c->lb_max = sweep_json_b(json_object_get(last, "lower_bound"), "max");
			c->lost_client = sweep_json_n(o, "lost_client");
			c->lost_capture = sweep_json_n(o, "lost_capture");
			c->upstream = sweep_json_n(o, "upstream_queries");
			if (json_object_get(o, "upstream_queries"))
				tb->has_upstream[s] = 1;
			c->deviation = sweep_json_s(json_object_get(steer, name), "deviation");
			if (!isnan(c->deviation))
				tb->has_deviation[s] = 1;
			sweep_model_load(tb, i, s, o, root);
		}
		sweep_verdict(tb, i, root);
		tb->done[i] = 1;
		ndone++;
		nsteady += json_is_true(json_object_get(root, "steady_state"));
		json_decref(root);
	}
	tb->steady = ndone > 0 && nsteady == ndone;
	return 0;
}

/* sweep_put_s, sweep_put_n: a cell: a number, or missing (NAN, -1) */
static void sweep_put_s(FILE *out, double v, const char *fmt, const char *missing)
{
	if (isnan(v))
		fputs(missing, out);
	else
		fprintf(out, fmt, v);
}

static void sweep_put_n(FILE *out, int64_t v, const char *missing)
{
	if (v < 0)
		fputs(missing, out);
	else
		fprintf(out, "%lld", (long long)v);
}

static const char *const sweep_s_cols[] = {"detect_s",	 "steer_s",    "window_s",
					   "last_p50_s", "last_p99_s", "last_max_s"};

void sweep_csv_point_end(const struct sweep *sw, const struct sweep_table *tb, int i, FILE *out)
{
	fputc(',', out);
	if (tb->done[i] && tb->valid[i] >= 0)
		fputc(tb->valid[i] ? '1' : '0', out);
	fputc(',', out);
	texttable_csv_field(out, tb->done[i] ? tb->invalid[i] : "");
	fputc(',', out);
	texttable_csv_field(out, sw->names[i]);
	fputc('\n', out);
}

void sweep_write_csv(const struct sweep *sw, const struct sweep_table *tb, FILE *out)
{
	texttable_csv_field(out, sw->key);
	for (int s = 0; s < tb->nschemes; s++) {
		for (size_t k = 0; k < sizeof(sweep_s_cols) / sizeof(sweep_s_cols[0]); k++)
			fprintf(out, ",%s_%s", tb->schemes[s], sweep_s_cols[k]);
		fprintf(out, ",%s_window_lower_bound", tb->schemes[s]);
		fprintf(out, ",%s_lost_client,%s_lost_capture", tb->schemes[s], tb->schemes[s]);
		if (tb->has_upstream[s])
			fprintf(out, ",%s_upstream_queries", tb->schemes[s]);
		if (tb->has_deviation[s])
			fprintf(out, ",%s_deviation", tb->schemes[s]);
		if (!tb->steady)
			sweep_model_csv_head(tb, s, out);
	}
	fputs(",valid,invalid_codes,run\n", out);
	for (int i = 0; i < sw->nvalues; i++) {
		texttable_csv_field(out, sw->values[i]);
		for (int s = 0; s < tb->nschemes; s++) {
			const struct sweep_clocks *c = &tb->clocks[i][s];
			const double v[] = {c->detect, c->steer, c->window, c->p50, c->p99, c->max};
			for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
				fputc(',', out);
				sweep_put_s(out, c->present ? v[k] : NAN, "%.6f", "");
			}
			fputc(',', out);
			if (c->present && !isnan(c->window))
				fputc(c->lb_window ? '1' : '0', out);
			fputc(',', out);
			sweep_put_n(out, c->present ? c->lost_client : -1, "");
			fputc(',', out);
			sweep_put_n(out, c->present ? c->lost_capture : -1, "");
			if (tb->has_upstream[s]) {
				fputc(',', out);
				sweep_put_n(out, c->present ? c->upstream : -1, "");
			}
			if (tb->has_deviation[s]) {
				fputc(',', out);
				sweep_put_s(out, c->present ? c->deviation : NAN, "%.6f", "");
			}
			if (!tb->steady)
				sweep_model_csv_cells(tb, i, s, out);
		}
		sweep_csv_point_end(sw, tb, i, out);
	}
}

int sweep_invalid(const struct sweep *sw, const struct sweep_table *tb)
{
	int n = 0;

	for (int i = 0; i < sw->nvalues; i++)
		n += tb->done[i] && tb->valid[i] == 0;
	return n;
}

/* sweep_cell_s: seconds that may be a lower bound ("≥ 4.003"), or
 * missing (NAN) */
static void sweep_cell_s(struct texttable *t, double v, int lb, const char *missing)
{
	if (isnan(v))
		texttable_cell(t, "%s", missing);
	else
		texttable_cell(t, "%s%.3f", lb ? "\u2265 " : "", v);
}

/* sweep_cell_n: a count, or missing (-1) */
static void sweep_cell_n(struct texttable *t, int64_t v, const char *missing)
{
	if (v < 0)
		texttable_cell(t, "%s", missing);
	else
		texttable_cell(t, "%lld", (long long)v);
}

static const char *const sweep_md_cols[] = {
    "detect (s)",   "steer (s)",     "window (s)",     "last p50 (s)",	   "last p99 (s)",
    "last max (s)", "lost (client)", "lost (capture)", "upstream queries", "deviation",
};

/* sweep_md_scheme: the table of scheme s, through lib/texttable (the
 * report's table writer), every column aligned right */
static void sweep_md_scheme(const struct sweep *sw, const struct sweep_table *tb, int s, FILE *out)
{
	/* the key, detect .. lost (capture); a steady-state sweep has no
	 * clocks: the key and lost (client) */
	int nfixed = tb->steady ? 2 : 1 + 8;
	int ncols = nfixed + !!tb->has_upstream[s] + !!tb->has_deviation[s];
	struct texttable t;

	texttable_init(&t, ncols);
	for (int c = 0; c < ncols; c++)
		texttable_align(&t, c, 0);
	texttable_row(&t);
	texttable_cell(&t, "%s", sw->key);
	for (int c = 1; c < nfixed; c++)
		texttable_cell(&t, "%s", sweep_md_cols[tb->steady ? 6 : c - 1]);
	if (tb->has_upstream[s])
		texttable_cell(&t, "%s", sweep_md_cols[8]);
	if (tb->has_deviation[s])
		texttable_cell(&t, "%s", sweep_md_cols[9]);
	for (int i = 0; i < sw->nvalues; i++) {
		const struct sweep_clocks *c = &tb->clocks[i][s];
		const double v[] = {c->detect, c->steer, c->window, c->p50, c->p99, c->max};
		const int lb[] = {0, 0, c->lb_window, c->lb_p50, c->lb_p99, c->lb_max};
		/* a point without the scheme: absent, not a row of dashes */
		const char *none = tb->done[i] && !c->present ? "absent" : "-";

		texttable_row(&t);
		texttable_cell(&t, "%s%s", sw->values[i],
			       tb->done[i] && tb->valid[i] == 0 ? " (invalid)" : "");
		for (size_t k = 0; k < sizeof(v) / sizeof(v[0]) && !tb->steady; k++)
			sweep_cell_s(&t, c->present ? v[k] : NAN, lb[k], none);
		sweep_cell_n(&t, c->present ? c->lost_client : -1, none);
		if (!tb->steady)
			sweep_cell_n(&t, c->present ? c->lost_capture : -1, none);
		if (tb->has_upstream[s])
			sweep_cell_n(&t, c->present ? c->upstream : -1, none);
		if (tb->has_deviation[s]) {
			if (c->present && !isnan(c->deviation))
				texttable_cell(&t, "%.3f", c->deviation);
			else
				texttable_cell(&t, "%s", none);
		}
		sweep_model_md_rows(tb, i, s, &t);
	}
	texttable_print(&t, out, 1);
	texttable_free(&t);
}

void sweep_write_md(const struct sweep *sw, const struct sweep_table *tb, FILE *out)
{
	int missing = 0;

	fprintf(out, "# Sweep of %s", sw->key);
	if (tb->lab[0])
		fprintf(out, ", lab %s", tb->lab);
	fprintf(out, "\n\n    steerlab sweep %s", sw->file);
	for (int i = 0; i < sw->nfixed; i++)
		fprintf(out, " --set %s", sw->fixed[i]);
	fprintf(out, " --set %s\n\n", sw->swept);
	if (tb->steady)
		fprintf(out,
			"One run per value of %s, in the directory %s-VALUE beside this file. "
			"Steady-state\nruns (no failure, no clocks): lost in requests, the "
			"upstream queries, and the deviation\nfrom the target shares; "
			"docs/clocks.md (\"Steering\") defines each column.\n",
			sw->key, sw->key);
	else
		fprintf(out,
			"One run per value of %s, in the directory %s-VALUE beside this file. "
			"Times in seconds\nafter t0 (the failure), lost in requests; "
			"docs/clocks.md defines each column.\n%s",
			sw->key, sw->key,
			tb->nschemes ? "Under each point, its run's model and the difference "
				       "(after the tables).\n"
				     : "");
	for (int s = 0; s < tb->nschemes; s++) {
		fprintf(out, "\n## %s\n\n", tb->schemes[s]);
		sweep_md_scheme(sw, tb, s, out);
	}
	sweep_model_md_notes(sw, tb, out);
	for (int i = 0; i < sw->nvalues; i++) {
		if (tb->done[i])
			continue;
		fprintf(out, "%s %s=%s (%s/)",
			missing++ ? "," : "\nNot measured (no clocks.json):", sw->key,
			sw->values[i], sw->names[i]);
	}
	if (missing)
		fputs(".\n", out);
	if (sweep_invalid(sw, tb) > 0) {
		fputs("\n**Invalid runs**: their clocks are shown but must not be quoted (each "
		      "point's report.md says why; docs/clocks.md, \"Verdict\"):\n\n",
		      out);
		for (int i = 0; i < sw->nvalues; i++)
			if (tb->done[i] && tb->valid[i] == 0)
				fprintf(out, "- %s=%s (%s/): %s\n", sw->key, sw->values[i],
					sw->names[i], tb->invalid[i]);
	}
	for (int s = 0, lb = 0; s < tb->nschemes && !lb; s++)
		for (int i = 0; i < sw->nvalues && !lb; i++)
			if ((lb = tb->clocks[i][s].present && tb->clocks[i][s].lb_window))
				fputs(
				    "\n\u2265: a lower bound: the observation ended while a client "
				    "still sent to the dead site (window_cut); a longer duration "
				    "after fail_at would measure it.\n",
				    out);
}
