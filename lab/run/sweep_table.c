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
			"Times in "
			"seconds\nafter t0 (the failure), lost in requests; docs/clocks.md "
			"defines "
			"each column.\n",
			sw->key, sw->key);
	for (int s = 0; s < tb->nschemes; s++) {
		fprintf(out, "\n## %s\n\n", tb->schemes[s]);
		sweep_md_scheme(sw, tb, s, out);
	}
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

/* sweep_gp_string: s in a gnuplot double-quoted string */
static void sweep_gp_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

int sweep_logx(const struct sweep *sw)
{
	double lo = INFINITY, hi = -INFINITY;

	if (!sw->numeric || sw->nvalues < 2)
		return 0;
	for (int i = 0; i < sw->nvalues; i++) {
		lo = sw->x[i] < lo ? sw->x[i] : lo;
		hi = sw->x[i] > hi ? sw->x[i] : hi;
	}
	return lo > 0 && hi / lo >= 10;
}

void sweep_write_gp(const struct sweep *sw, const struct sweep_table *tb, FILE *out)
{
	sweep_gp_text(sw, tb, out, 0);
}

void sweep_gp_text(const struct sweep *sw, const struct sweep_table *tb, FILE *out, int to_stdout)
{
	double lo = INFINITY, hi = -INFINITY;
	char title[512];
	int logx, lb[SWEEP_MAX_SCHEMES] = {0}, off;

	fprintf(out,
		"# The plot of a steerlab sweep (docs/sweeps.md): run in this directory,\n"
		"# `gnuplot sweep.gp` writes sweep.png.\n"
		"set terminal pngcairo size 960,800 noenhanced\n"
		"%s\n"
		"set datafile missing '?'\n\n"
		"# x, then per scheme (%d): %s\n"
		"$points << EOD\n",
		to_stdout ? "set output" : "set output 'sweep.png'", tb->nschemes,
		tb->steady ? "deviation, upstream queries, unused (steady-state runs);\n"
			     "# an invalid point has none of them"
			   : "window (s), lost (client), window if it is a\n"
			     "# lower bound (window_cut); an invalid point has none of them");
	for (int i = 0; i < sw->nvalues; i++) {
		int ok = !(tb->done[i] && tb->valid[i] == 0);

		fprintf(out, "%.9g", sw->x[i]);
		for (int s = 0; s < tb->nschemes; s++) {
			const struct sweep_clocks *c = &tb->clocks[i][s];
			int have = c->present && ok;

			/* a steady-state sweep: the deviation and the upstream
			 * queries in their places */
			fputc(' ', out);
			sweep_put_s(out, have ? (tb->steady ? c->deviation : c->window) : NAN,
				    "%.9g", "?");
			fputc(' ', out);
			sweep_put_n(out, have ? (tb->steady ? c->upstream : c->lost_client) : -1,
				    "?");
			fputc(' ', out);
			sweep_put_s(out, have && c->lb_window ? c->window : NAN, "%.9g", "?");
			lb[s] |= have && c->lb_window;
		}
		fputc('\n', out);
		lo = sw->x[i] < lo ? sw->x[i] : lo;
		hi = sw->x[i] > hi ? sw->x[i] : hi;
	}
	fputs("EOD\n\n", out);
	off = snprintf(title, sizeof(title), "steerlab sweep of %s%s%s", sw->key,
		       tb->lab[0] ? ", lab " : "", tb->lab);
	for (int i = 0, n = 0; i < sw->nvalues && off < (int)sizeof(title); i++)
		if (tb->done[i] && tb->valid[i] == 0)
			off += snprintf(title + off, sizeof(title) - (size_t)off, "%s%s=%s",
					n++ ? ", " : " (invalid runs left out: ", sw->key,
					sw->values[i]);
	if (sweep_invalid(sw, tb) > 0 && off < (int)sizeof(title) - 1)
		strfmt(title + off, sizeof(title) - (size_t)off, ")");
	fputs("set multiplot layout 2,1 title ", out);
	sweep_gp_string(out, title);
	fputs("\nset grid\nset key outside right top\nset yrange [0:*]\nset xlabel ", out);
	sweep_gp_string(out, sw->xlabel);
	/* values a decade or more apart (TTLs of 30 s to 15 min) */
	logx = sweep_logx(sw);
	if (logx)
		fputs("\nset logscale x", out);
	/* every value a tic, as given, and in range even if it was not measured */
	if (hi > lo)
		fprintf(out, "\nset xrange [%.9g:%.9g]", logx ? lo / 1.25 : lo - (hi - lo) / 20,
			logx ? hi * 1.25 : hi + (hi - lo) / 20);
	fputs("\nset xtics (", out);
	for (int i = 0; i < sw->nvalues; i++) {
		fputs(i ? ", " : "", out);
		sweep_gp_string(out, sw->values[i]);
		fprintf(out, " %.9g", sw->x[i]);
	}
	fputs(")\n", out);
	const char *const failover[2][2] = {
	    {"failover window: last request to the dead site after t0", "window (s)"},
	    {"requests lost (client timeouts)", "lost requests"},
	};
	const char *const steady[2][2] = {
	    {"steady state: deviation from the target shares (half L1)", "deviation"},
	    {"upstream DNS queries (authd links)", "queries"},
	};
	const char *const(*what)[2] = tb->steady ? steady : failover;
	for (int k = 0; k < 2; k++) {
		fputs("set title ", out);
		sweep_gp_string(out, what[k][0]);
		fputs("\nset ylabel ", out);
		sweep_gp_string(out, what[k][1]);
		fputs("\nplot", out);
		for (int s = 0; s < tb->nschemes; s++) {
			/* a scheme's line type is its column's: its lower bounds
			 * are drawn in its colour */
			fprintf(out, "%s $points using 1:%d with linespoints lt %d pt 7 title ",
				s ? "," : "", 2 + 3 * s + k, s + 1);
			sweep_gp_string(out, tb->schemes[s]);
			if (k == 0 && lb[s]) {
				char t[64];

				strfmt(t, sizeof(t), "%s: lower bound (window_cut)",
				       tb->schemes[s]);
				fprintf(out,
					", $points using 1:%d with points lt %d pt 9 ps 2 title ",
					4 + 3 * s, s + 1);
				sweep_gp_string(out, t);
			}
		}
		if (tb->nschemes == 0)
			fputs(" $points using 1:(NaN) notitle", out);
		fputc('\n', out);
	}
	fputs("unset multiplot\n", out);
}
