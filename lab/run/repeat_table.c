/*
 * A repeat's statistics and tables: every clock of every scheme over the
 * repetitions, read by sweep_table_load from their clocks.json, as
 * repeat.csv, stats.csv, a table (terminal and Markdown, lib/texttable) and
 * a gnuplot script; see repeat.h.
 */
#include "repeat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "strfmt.h"
#include "texttable.h"

static const struct {
	const char *col;   /* in the CSV files: SCHEME_COL */
	const char *label; /* in the table */
	const char *tic;   /* on the plot's x axis, under the scheme */
	int count;	   /* requests, not seconds */
	int panel;	   /* of spread.png: detection, window, lost */
} repeat_clocks[REPEAT_NCLOCKS] = {
    [REPEAT_DETECT] = {"detect_s", "detect (s)", "detect", 0, 0},
    [REPEAT_REMOTE_DEAD] = {"remote_dead_s", "remote prober dead (s)", "remote dead", 0, 0},
    [REPEAT_STEER] = {"steer_s", "steer (s)", "steer", 0, 0},
    [REPEAT_WINDOW] = {"window_s", "window (s)", "window", 0, 1},
    [REPEAT_LAST_P50] = {"last_p50_s", "last packet p50 (s)", "last p50", 0, 1},
    [REPEAT_LAST_P99] = {"last_p99_s", "last packet p99 (s)", "last p99", 0, 1},
    [REPEAT_LAST_MAX] = {"last_max_s", "last packet max (s)", "last max", 0, 1},
    [REPEAT_LOST_CLIENT] = {"lost_client", "lost (client)", "lost (client)", 1, 2},
    [REPEAT_LOST_CAPTURE] = {"lost_capture", "lost (capture)", "lost (capture)", 1, 2},
    [REPEAT_UPSTREAM] = {"upstream_queries", "upstream queries", "upstream queries", 1, 2},
};

static int repeat_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double repeat_quantile(const double *sorted, int n, double p)
{
	double h, lo;

	if (n <= 0)
		return NAN;
	h = (n - 1) * p;
	lo = floor(h);
	if ((int)lo + 1 >= n)
		return sorted[n - 1];
	return sorted[(int)lo] + (h - lo) * (sorted[(int)lo + 1] - sorted[(int)lo]);
}

void repeat_stat(double *v, int n, struct repeat_stat *s)
{
	qsort(v, (size_t)n, sizeof(*v), repeat_cmp);
	s->n = n;
	s->min = n ? v[0] : NAN;
	s->max = n ? v[n - 1] : NAN;
	s->median = repeat_quantile(v, n, 0.5);
	s->p95 = repeat_quantile(v, n, 0.95);
	s->lower_bound = 0;
}

/* repeat_has: whether scheme s has clock k in some repetition */
static int repeat_has(const struct sweep_table *tb, int s, int k)
{
	if (k == REPEAT_REMOTE_DEAD)
		return tb->has_remote[s];
	if (k == REPEAT_UPSTREAM)
		return tb->has_upstream[s];
	return 1;
}

/* repeat_value: clock k of c, NAN if unknown; *lb: a lower bound */
static double repeat_value(const struct sweep_clocks *c, int k, int *lb)
{
	int64_t n = -1;

	*lb = 0;
	if (!c->present)
		return NAN;
	switch (k) {
	case REPEAT_DETECT:
		return c->detect;
	case REPEAT_REMOTE_DEAD:
		return c->remote_dead;
	case REPEAT_STEER:
		return c->steer;
	case REPEAT_WINDOW:
		*lb = c->lb_window;
		return c->window;
	case REPEAT_LAST_P50:
		*lb = c->lb_p50;
		return c->p50;
	case REPEAT_LAST_P99:
		*lb = c->lb_p99;
		return c->p99;
	case REPEAT_LAST_MAX:
		*lb = c->lb_max;
		return c->max;
	case REPEAT_LOST_CLIENT:
		n = c->lost_client;
		break;
	case REPEAT_LOST_CAPTURE:
		n = c->lost_capture;
		break;
	case REPEAT_UPSTREAM:
		n = c->upstream;
		break;
	}
	return n < 0 ? NAN : (double)n;
}

/* repeat_valid: repetition i is done and not invalid (a clocks.json from
 * before the verdict counts as valid: it does not say otherwise) */
static int repeat_valid(const struct sweep_table *tb, int i)
{
	return tb->done[i] && tb->valid[i] != 0;
}

int repeat_clock_stat(const struct sweep *sw, const struct sweep_table *tb, int s, int k,
		      struct repeat_stat *st)
{
	double v[SWEEP_MAX_POINTS];
	int n = 0, lb, anylb = 0;

	if (!repeat_has(tb, s, k))
		return -1;
	for (int i = 0; i < sw->nvalues; i++) {
		double x;

		if (!repeat_valid(tb, i))
			continue;
		x = repeat_value(&tb->clocks[i][s], k, &lb);
		if (isnan(x))
			continue;
		v[n++] = x;
		anylb |= lb;
	}
	repeat_stat(v, n, st);
	/* each true value is at least the one measured, so each order
	 * statistic is at least the one computed */
	st->lower_bound = anylb;
	return 0;
}

static void repeat_put(FILE *out, double v, int count)
{
	if (isnan(v))
		return;
	if (count && v == floor(v))
		fprintf(out, "%.0f", v);
	else
		fprintf(out, count ? "%.3f" : "%.6f", v);
}

void repeat_write_csv(const struct sweep *sw, const struct sweep_table *tb, FILE *out)
{
	fputs("rep,seed,jitter_offset_s", out);
	for (int s = 0; s < tb->nschemes; s++) {
		for (int k = 0; k < REPEAT_NCLOCKS; k++)
			if (repeat_has(tb, s, k))
				fprintf(out, ",%s_%s", tb->schemes[s], repeat_clocks[k].col);
		fprintf(out, ",%s_window_lower_bound", tb->schemes[s]);
	}
	fputs(",valid,invalid_codes,run\n", out);
	for (int i = 0; i < sw->nvalues; i++) {
		int lb;

		fprintf(out, "%d,%s,", i + 1, sw->values[i]);
		repeat_put(out, tb->done[i] ? tb->offset[i] : NAN, 0);
		for (int s = 0; s < tb->nschemes; s++) {
			const struct sweep_clocks *c = &tb->clocks[i][s];

			for (int k = 0; k < REPEAT_NCLOCKS; k++) {
				if (!repeat_has(tb, s, k))
					continue;
				fputc(',', out);
				repeat_put(out, repeat_value(c, k, &lb), repeat_clocks[k].count);
			}
			fputc(',', out);
			if (c->present && !isnan(c->window))
				fputc(c->lb_window ? '1' : '0', out);
		}
		sweep_csv_point_end(sw, tb, i, out);
	}
}

void repeat_write_stats_csv(const struct sweep *sw, const struct sweep_table *tb, FILE *out)
{
	struct repeat_model rm;
	struct repeat_stat st;

	fputs("scheme,clock,n,min,median,p95,max,lower_bound", out);
	repeat_model_stats_head(out);
	fputc('\n', out);
	for (int s = 0; s < tb->nschemes; s++) {
		for (int k = 0; k < REPEAT_NCLOCKS; k++) {
			if (repeat_clock_stat(sw, tb, s, k, &st) == -1)
				continue;
			fprintf(out, "%s,%s,%d,", tb->schemes[s], repeat_clocks[k].col, st.n);
			const double v[] = {st.min, st.median, st.p95, st.max};
			for (int j = 0; j < 4; j++) {
				repeat_put(out, v[j], repeat_clocks[k].count);
				fputc(',', out);
			}
			fprintf(out, "%d", st.lower_bound);
			repeat_model_stat(sw, tb, s, k, &st, &rm);
			repeat_model_stats_cells(out, &rm, repeat_clocks[k].count);
			fputc('\n', out);
		}
	}
}

/* repeat_invalid: the invalid repetitions; not done: those not measured */
static int repeat_count(const struct sweep *sw, const struct sweep_table *tb, int invalid)
{
	int n = 0;

	for (int i = 0; i < sw->nvalues; i++)
		n += invalid ? tb->done[i] && tb->valid[i] == 0 : !tb->done[i];
	return n;
}

/* repeat_table: the statistics as a texttable, printed to out */
static void repeat_table(const struct sweep *sw, const struct sweep_table *tb, FILE *out,
			 int markdown)
{
	static const char *const head[] = {"clock", "n",   "min",   "median",
					   "p95",   "max", "model", "within"};
	struct texttable t;
	struct repeat_stat st;
	struct repeat_model rm;
	char cell[96];

	texttable_init(&t, 8);
	texttable_row(&t);
	for (int c = 0; c < 8; c++)
		texttable_cell(&t, "%s", head[c]);
	for (int s = 0; s < tb->nschemes; s++) {
		for (int k = 0; k < REPEAT_NCLOCKS; k++) {
			if (repeat_clock_stat(sw, tb, s, k, &st) == -1)
				continue;
			const double v[] = {st.min, st.median, st.p95, st.max};
			texttable_row(&t);
			texttable_cell(&t, "%s %s", tb->schemes[s], repeat_clocks[k].label);
			texttable_cell(&t, "%d", st.n);
			for (int j = 0; j < 4; j++) {
				const char *ge = st.lower_bound ? "\u2265 " : "";
				if (isnan(v[j]))
					texttable_cell(&t, "-");
				else if (repeat_clocks[k].count)
					texttable_cell(&t, "%s%.*f", ge,
						       v[j] == floor(v[j]) ? 0 : 1, v[j]);
				else
					texttable_cell(&t, "%s%.3f", ge, v[j]);
			}
			repeat_model_stat(sw, tb, s, k, &st, &rm);
			texttable_cell(
			    &t, "%s",
			    repeat_model_cell(cell, sizeof(cell), &rm, repeat_clocks[k].count));
			texttable_cell(&t, "%s", repeat_model_within(cell, sizeof(cell), &rm));
		}
	}
	texttable_print(&t, out, markdown);
	texttable_free(&t);
}

void repeat_write_md(const struct sweep *sw, const struct sweep_table *tb, FILE *out)
{
	int invalid = repeat_count(sw, tb, 1), missing = repeat_count(sw, tb, 0);
	int used = sw->nvalues - invalid - missing;

	fprintf(out, "# Repeat of %s", sw->file);
	if (tb->lab[0])
		fprintf(out, ", lab %s", tb->lab);
	fprintf(out, "\n\n    steerlab run %s --repeat %d", sw->file, sw->nvalues);
	for (int i = 0; i < sw->nfixed; i++)
		fprintf(out, " --set %s", sw->fixed[i]);
	fprintf(out, " --set seed=%lu\n\n", (unsigned long)sw->seed);
	fprintf(out,
		"%d runs of one scenario, in rep-1 .. rep-%d beside this file, each with its "
		"own seed\n(repeat.csv). Statistics over the %d valid run%s: times in seconds "
		"after t0 (the\nfailure), lost in requests; median and p95 interpolated between "
		"ranks (docs/repeat.md).\n\n",
		sw->nvalues, sw->nvalues, used, used == 1 ? "" : "s");
	repeat_table(sw, tb, out, 1);
	repeat_model_md_notes(sw, tb, out);
	if (missing) {
		fputs("\nNot measured (no clocks.json):", out);
		for (int i = 0, n = 0; i < sw->nvalues; i++)
			if (!tb->done[i])
				fprintf(out, "%s %s/", n++ ? "," : "", sw->names[i]);
		fputs(".\n", out);
	}
	if (invalid) {
		fprintf(out,
			"\n**%d INVALID run%s, left out of the statistics** (each run's report.md "
			"says why; docs/clocks.md, \"Verdict\"):\n\n",
			invalid, invalid == 1 ? "" : "s");
		for (int i = 0; i < sw->nvalues; i++)
			if (tb->done[i] && tb->valid[i] == 0)
				fprintf(out, "- %s/ (seed %s): %s\n", sw->names[i], sw->values[i],
					tb->invalid[i]);
	}
	for (int s = 0, lb = 0; s < tb->nschemes && !lb; s++)
		for (int k = 0; k < REPEAT_NCLOCKS && !lb; k++) {
			struct repeat_stat st;
			if (repeat_clock_stat(sw, tb, s, k, &st) == 0 && st.lower_bound) {
				lb = 1;
				fputs("\n\u2265: lower bounds: in some run the observation ended "
				      "while "
				      "a client still sent to the dead site (window_cut).\n",
				      out);
			}
		}
}

/* repeat_gp_chars: s inside a gnuplot double-quoted string */
static void repeat_gp_chars(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		fputc(*s, out);
	}
}

static void repeat_gp_string(FILE *out, const char *s)
{
	fputc('"', out);
	repeat_gp_chars(out, s);
	fputc('"', out);
}

/* repeat_gp_model: the end of panel p's medians, then its model: per
 * clock (x as the panel counts them) p50, p5, p95 and the bounds widened
 * by the tolerance (by none if it is not said) */
static int repeat_gp_model(const struct sweep *sw, const struct sweep_table *tb, int p, FILE *out)
{
	int x = 0, n = 0;

	fprintf(out,
		"EOD\n# x, the model: p50, p5, p95, min - tolerance, max + tolerance\n"
		"$model%d << EOD\n",
		p);
	for (int s = 0; s < tb->nschemes; s++)
		for (int k = 0; k < REPEAT_NCLOCKS; k++) {
			struct repeat_stat st;
			struct repeat_model rm;
			double tol;

			if (repeat_clocks[k].panel != p ||
			    repeat_clock_stat(sw, tb, s, k, &st) == -1)
				continue;
			if (repeat_model_stat(sw, tb, s, k, &st, &rm) == 0 && rm.n > 0) {
				tol = isnan(rm.tol) ? 0 : rm.tol;
				fprintf(out, "%d %.9g %.9g %.9g %.9g %.9g\n", x, rm.p50, rm.p5,
					rm.p95, rm.min - tol, rm.max + tol);
				n++;
			}
			x++;
		}
	fputs("EOD\n", out);
	return n;
}

void repeat_gp_text(const struct sweep *sw, const struct sweep_table *tb, FILE *out, int to_stdout)
{
	static const char *const titles[3][2] = {
	    {"detection: each run's value (dots) and the median (bar)", "seconds after t0"},
	    {"failover window and last packets", "seconds after t0"},
	    {"requests lost", "requests"},
	};
	int invalid = repeat_count(sw, tb, 1), used = 0, nmodel[3] = {0};
	char title[256];

	for (int i = 0; i < sw->nvalues; i++)
		used += repeat_valid(tb, i);
	fprintf(out,
		"# The spread of a steerlab repeat (docs/repeat.md): run in this directory,\n"
		"# `gnuplot spread.gp` writes spread.png.\n"
		"set terminal pngcairo size 1100,1000 noenhanced\n"
		"%s\n\n",
		to_stdout ? "set output" : "set output 'spread.png'");
	for (int p = 0; p < 3; p++) {
		int x = 0;

		/* x, a value of a valid run (spread sideways so equal ones show) */
		fprintf(out, "# %s: x, value\n$values%d << EOD\n", titles[p][0], p);
		for (int s = 0; s < tb->nschemes; s++)
			for (int k = 0; k < REPEAT_NCLOCKS; k++) {
				if (repeat_clocks[k].panel != p || !repeat_has(tb, s, k))
					continue;
				for (int i = 0, j = 0; i < sw->nvalues; i++) {
					int lb;
					double v;
					if (!repeat_valid(tb, i))
						continue;
					v = repeat_value(&tb->clocks[i][s], k, &lb);
					if (!isnan(v))
						fprintf(out, "%.6g %.9g\n",
							x + 0.3 * ((j + 0.5) / used - 0.5), v);
					j++;
				}
				x++;
			}
		fprintf(out, "EOD\n# x, median\n$medians%d << EOD\n", p);
		x = 0;
		for (int s = 0; s < tb->nschemes; s++)
			for (int k = 0; k < REPEAT_NCLOCKS; k++) {
				struct repeat_stat st;
				if (repeat_clocks[k].panel != p ||
				    repeat_clock_stat(sw, tb, s, k, &st) == -1)
					continue;
				if (!isnan(st.median))
					fprintf(out, "%d %.9g\n", x, st.median);
				x++;
			}
		nmodel[p] = repeat_gp_model(sw, tb, p, out);
	}
	snprintf(title, sizeof(title), "steerlab repeat%s%s: %d valid run%s%s",
		 tb->lab[0] ? ", lab " : "", tb->lab, used, used == 1 ? "" : "s",
		 invalid ? " (invalid runs left out)" : "");
	/* a second line of the title: the model's marks */
	fputs("\nset multiplot layout 3,1 title \"", out);
	repeat_gp_chars(out, title);
	if (nmodel[0] + nmodel[1] + nmodel[2] > 0)
		fputs("\\nthe model (green): p5-p95 dashed, p50 a circle, its bounds widened by "
		      "the tolerance the whiskers",
		      out);
	fputc('"', out);
	fputs("\nset grid ytics\nset yrange [0:*]\nset key off\nset bmargin 3.5\n", out);
	for (int p = 0; p < 3; p++) {
		int x = 0;

		fputs("set title ", out);
		repeat_gp_string(out, titles[p][0]);
		fputs("\nset ylabel ", out);
		repeat_gp_string(out, titles[p][1]);
		fputs("\nset xtics (", out);
		for (int s = 0; s < tb->nschemes; s++)
			for (int k = 0; k < REPEAT_NCLOCKS; k++) {
				if (repeat_clocks[k].panel != p || !repeat_has(tb, s, k))
					continue;
				/* "SCHEME\nCLOCK": two lines under the tic */
				fputs(x ? ", \"" : "\"", out);
				repeat_gp_chars(out, tb->schemes[s]);
				fputs("\\n", out);
				repeat_gp_chars(out, repeat_clocks[k].tic);
				fprintf(out, "\" %d", x++);
			}
		fprintf(out, ")\nset xrange [-0.5:%g]\n", x ? x - 0.5 : 0.5);
		/* the model beside each clock: p5-p95 a dashed box, p50 a circle,
		 * the bounds widened by the tolerance the whiskers */
		fprintf(out,
			"plot $values%d using 1:2 with points pt 7 ps 0.8 lc 1, "
			"$medians%d using 1:2:(0.2) with xerrorbars pt -1 lw 2 lc 7",
			p, p);
		if (nmodel[p] > 0)
			fprintf(out,
				", $model%d using ($1 + 0.3):2:($1 + 0.25):($1 + 0.35):3:4 with "
				"boxxyerror fs empty dt 2 lc 2, $model%d using ($1 + 0.3):2:5:6 "
				"with yerrorbars pt 6 lc 2",
				p, p);
		fputc('\n', out);
	}
	fputs("unset multiplot\n", out);
}
