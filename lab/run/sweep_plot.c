/*
 * A sweep's plot: the gnuplot script of sweep.png (see run.h,
 * sweep_gp_text): the window and the requests lost against the swept
 * value, a line per scheme, its lower bounds as triangles, and the model of
 * each point's run dashed beside it, with the model's p5-p95 as error bars
 * where it is not one value (lab/run/sweep_model.h).
 */
#include "run.h"

#include <math.h>

#include "strfmt.h"
#include "sweep_model.h"

/* per scheme, the columns of $points after x: the two measured, the
 * window's lower bound, and the model's p50, p5 and p95 of each panel */
#define SWEEP_GP_COLS 9

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

/* sweep_gp_num: " v", or " ?" when it is missing (NAN) */
static void sweep_gp_num(FILE *out, double v)
{
	if (isnan(v))
		fputs(" ?", out);
	else
		fprintf(out, " %.9g", v);
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

/* the model's clock of each panel of a failover sweep */
static const enum sweep_model_clock sweep_gp_model[2] = {SWEEP_MODEL_WINDOW,
							 SWEEP_MODEL_LOST_CLIENT};

/* sweep_gp_model_iv: the model's clock k of scheme s at point i, drawn or
 * not: an invalid point's too (the model is of its topology and its
 * instant, not of what it measured); NULL when it has none */
static const struct sweep_model_iv *sweep_gp_model_iv(const struct sweep_table *tb, int i, int s,
						      int k)
{
	const struct sweep_clocks *c = &tb->clocks[i][s];
	const struct sweep_model_iv *v = &c->model.clock[sweep_gp_model[k]];

	return !tb->steady && tb->done[i] && c->present && c->model.present && v->known ? v : NULL;
}

/* sweep_gp_data: the $points block; in has_model and spread, per scheme
 * and panel, whether some point has a model and one not a single value */
static void sweep_gp_data(const struct sweep *sw, const struct sweep_table *tb, FILE *out, int lb[],
			  int has_model[][2], int spread[][2])
{
	for (int i = 0; i < sw->nvalues; i++) {
		int ok = !(tb->done[i] && tb->valid[i] == 0);

		fprintf(out, "%.9g", sw->x[i]);
		for (int s = 0; s < tb->nschemes; s++) {
			const struct sweep_clocks *c = &tb->clocks[i][s];
			int have = c->present && ok;
			int64_t n;

			/* a steady-state sweep: the deviation and the upstream
			 * queries in their places */
			sweep_gp_num(out, have ? (tb->steady ? c->deviation : c->window) : NAN);
			n = tb->steady ? c->upstream : c->lost_client;
			sweep_gp_num(out, have && n >= 0 ? (double)n : NAN);
			sweep_gp_num(out, have && c->lb_window ? c->window : NAN);
			lb[s] |= have && c->lb_window;
			for (int k = 0; k < 2; k++) {
				const struct sweep_model_iv *v = sweep_gp_model_iv(tb, i, s, k);

				sweep_gp_num(out, v ? v->p50 : NAN);
				sweep_gp_num(out, v ? v->p5 : NAN);
				sweep_gp_num(out, v ? v->p95 : NAN);
				has_model[s][k] |= v != NULL;
				spread[s][k] |= v && v->p5 != v->p95;
			}
		}
		fputc('\n', out);
	}
}

/* sweep_gp_model_plot: the dashed model line of scheme s in panel k, and
 * its p5-p95 as error bars where they are not one value */
static void sweep_gp_model_plot(const struct sweep_table *tb, FILE *out, int s, int k, int spread)
{
	int col = 2 + SWEEP_GP_COLS * s + 3 + 3 * k;
	char t[64];

	strfmt(t, sizeof(t), "%s: the model (p50)", tb->schemes[s]);
	fprintf(out, ", $points using 1:%d with linespoints lt %d dt 2 pt 6 title ", col, s + 1);
	sweep_gp_string(out, t);
	if (!spread)
		return;
	strfmt(t, sizeof(t), "%s: the model's p5-p95", tb->schemes[s]);
	fprintf(out, ", $points using 1:%d:%d:%d with yerrorbars lt %d ps 0 title ", col, col + 1,
		col + 2, s + 1);
	sweep_gp_string(out, t);
}

void sweep_gp_text(const struct sweep *sw, const struct sweep_table *tb, FILE *out, int to_stdout)
{
	double lo = INFINITY, hi = -INFINITY;
	char title[512];
	int logx, off, lb[SWEEP_MAX_SCHEMES] = {0};
	int has_model[SWEEP_MAX_SCHEMES][2] = {{0}}, spread[SWEEP_MAX_SCHEMES][2] = {{0}};

	fprintf(out,
		"# The plot of a steerlab sweep (docs/sweeps.md): run in this directory,\n"
		"# `gnuplot sweep.gp` writes sweep.png.\n"
		"set terminal pngcairo size 960,800 noenhanced\n"
		"%s\n"
		"set datafile missing '?'\n\n"
		"# x, then per scheme (%d): %s\n"
		"$points << EOD\n",
		to_stdout ? "set output" : "set output 'sweep.png'", tb->nschemes,
		tb->steady ? "deviation, upstream queries, unused (steady-state runs),\n"
			     "# six unused; an invalid point has none of them"
			   : "window (s), lost (client), window if it is a\n"
			     "# lower bound (window_cut), the model's window p50, p5 and p95, its "
			     "lost (client)\n# p50, p5 and p95; an invalid point has none of "
			     "the measured ones");
	sweep_gp_data(sw, tb, out, lb, has_model, spread);
	for (int i = 0; i < sw->nvalues; i++) {
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
			 * and its model are drawn in its colour */
			fprintf(out, "%s $points using 1:%d with linespoints lt %d pt 7 title ",
				s ? "," : "", 2 + SWEEP_GP_COLS * s + k, s + 1);
			sweep_gp_string(out, tb->schemes[s]);
			if (k == 0 && lb[s]) {
				char t[64];

				strfmt(t, sizeof(t), "%s: lower bound (window_cut)",
				       tb->schemes[s]);
				fprintf(out,
					", $points using 1:%d with points lt %d pt 9 ps 2 title ",
					4 + SWEEP_GP_COLS * s, s + 1);
				sweep_gp_string(out, t);
			}
			if (has_model[s][k])
				sweep_gp_model_plot(tb, out, s, k, spread[s][k]);
		}
		if (tb->nschemes == 0)
			fputs(" $points using 1:(NaN) notitle", out);
		fputc('\n', out);
	}
	fputs("unset multiplot\n", out);
}
