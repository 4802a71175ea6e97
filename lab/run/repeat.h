/*
 * `steerlab run FILE --repeat N [--set K=V ...] [--out DIR]`: the same
 * scenario N times, then the spread of every clock (docs/repeat.md).
 *
 * A repeat is a sweep whose axis is the repetition: it runs on the sweep's
 * machinery (lab/run/run.h: the directory and its args file, resuming, the
 * points, gnuplot) with one point per repetition, rep-1 .. rep-N, each run
 * with --set seed=S, S = jitter_rep_seed(the repeat's seed, its number)
 * (lab/topology/topology.h). With fail_jitter set to the probe interval, each
 * repetition's failure falls at another phase of the probe cycle, and the
 * spread of the detection times is the model's: one probe interval. The
 * repeat's seed is --set seed=N, or drawn; DIR/repeat.args records it, and a
 * rerun with --out DIR resumes with it. DIR (by default
 * runs/repeat-LAB-YYYYmmdd-HHMMSS) holds:
 *
 *   repeat.args           the topology file, the seed, the fixed --set
 *   rep-1/ .. rep-N/      each repetition's run directory
 *   repeat.csv            one row per repetition: its seed, its jitter
 *                         offset, every clock of every scheme, its verdict
 *   stats.csv, stats.md   per scheme and clock: n, min, median, p95, max,
 *                         the runs' model and whether the spread lies
 *                         within it
 *   spread.png            each clock's values, one strip per clock, and
 *                         the model's interval beside it
 *
 * Statistics are over the valid repetitions only: an invalid one (its
 * clocks.json says "valid": false) keeps its row in repeat.csv, is left out
 * of stats and plot, and makes the command exit 3. The median and the p95
 * are interpolated between the two nearest ranks (repeat_quantile), as R's
 * and NumPy's defaults are; a value that is a lower bound (window_cut) makes
 * every statistic of its clock one, shown "≥".
 *
 * repeat.c parses the arguments and writes the files; repeat_table.c the
 * statistics and the tables, repeat_model.c the model beside them, with no
 * other I/O than the stream they are given (tests/unit/test_repeat.c).
 */
#ifndef STEERLAB_REPEAT_H
#define STEERLAB_REPEAT_H

#include <stdint.h>
#include <stdio.h>

#include "run.h"

/* repeat_seeds: seed is the repeat's: each repetition's seed (values) and
 * directory (names) from it. */
void repeat_seeds(struct sweep *sw, uint32_t seed);

/* repeat_progress: one line on stdout after repetition i is done: its
 * failure's jitter offset and each scheme's detect and window. */
void repeat_progress(const struct sweep *sw, const char *dir, int i);

/* repeat_results: repeat.csv, stats.csv, stats.md and spread.png in dir,
 * and the statistics on stdout. 0, SWEEP_INVALID if a repetition is
 * invalid, or -1. */
int repeat_results(const struct sweep *sw, const char *dir);

/* Statistics of one clock over the valid repetitions. */
struct repeat_stat {
	int n;			      /* the values: valid repetitions that have the clock */
	double min, median, p95, max; /* NAN when n is 0 */
	int lower_bound;	      /* one of the values is a lower bound */
};

/* repeat_quantile: the p-quantile (0 <= p <= 1) of sorted[0..n), linearly
 * interpolated between the nearest ranks: at h = (n - 1) p, sorted[floor h]
 * + (h - floor h) (sorted[floor h + 1] - sorted[floor h]) (Hyndman and
 * Fan's type 7). NAN if n is 0. */
double repeat_quantile(const double *sorted, int n, double p);

/* repeat_stat: the statistics of v[0..n) (sorted in place). */
void repeat_stat(double *v, int n, struct repeat_stat *s);

/* The clocks of a scheme, in the order of the tables (docs/clocks.md). */
enum repeat_clock {
	REPEAT_DETECT,
	REPEAT_REMOTE_DEAD,
	REPEAT_STEER,
	REPEAT_WINDOW,
	REPEAT_LAST_P50,
	REPEAT_LAST_P99,
	REPEAT_LAST_MAX,
	REPEAT_LOST_CLIENT,
	REPEAT_LOST_CAPTURE,
	REPEAT_UPSTREAM,
	REPEAT_NCLOCKS,
};

/* repeat_clock_stat: clock k of scheme s over the valid repetitions of tb:
 * 0, or -1 if no repetition's clocks.json has it (the row is left out). */
int repeat_clock_stat(const struct sweep *sw, const struct sweep_table *tb, int s, int k,
		      struct repeat_stat *st);

/*
 * The model beside the spread (repeat_model.c; docs/model.md, "In sweeps
 * and repeats"): each repetition's clocks.json carries its run's model, at
 * its own failure instant. Where the valid repetitions' models agree (their
 * p50s within a tenth of the clock's tolerance), the model is the first
 * one's; where they differ (fail_jitter moves each failure, and the model
 * with it), the median of their p50s, the least p5 and min and the greatest
 * p95 and max. The measured spread lies within the model when its min and
 * max lie within those bounds widened by the tolerance each run's
 * model_disagrees used (clocks.json's "tolerance"), as a run is judged.
 */
enum repeat_judged {
	REPEAT_MODEL_NONE,	  /* not modelled, or nothing measured */
	REPEAT_MODEL_WITHIN,	  /* the spread within the bounds */
	REPEAT_MODEL_OUTSIDE,	  /* a run's value outside them */
	REPEAT_MODEL_LOWER_BOUND, /* the values lower bounds, below the top */
	REPEAT_MODEL_LATER_STEP,  /* a later step of a run's timeline came first */
};

struct repeat_model {
	int n;			       /* valid repetitions whose model has the clock */
	int same;		       /* every one's model the first's */
	double p5, p50, p95, min, max; /* the model, as above */
	double tol;		       /* the widest tolerance of the runs; NAN: not said */
	enum repeat_judged judged;     /* the spread st against min - tol .. max + tol */
	int runs_outside;	       /* repetitions whose model_disagrees named it */
};

/* repeat_model_stat: the model of clock k of scheme s over the valid
 * repetitions of tb, judged against st (repeat_clock_stat's); 0, or -1 if
 * the clock has no model (remote_dead) */
int repeat_model_stat(const struct sweep *sw, const struct sweep_table *tb, int s, int k,
		      const struct repeat_stat *st, struct repeat_model *rm);

/* repeat_model_word: "yes", "NO", "lower bound", "later step" or "-" */
const char *repeat_model_word(enum repeat_judged j);

/* repeat_model_within: the judgement's word, and "(N runs NO)" after it
 * when a run's own model_disagrees named the clock */
const char *repeat_model_within(char *buf, size_t len, const struct repeat_model *rm);

/* repeat_model_cell: rm as a cell, p50 (p5-p95), one value when they are
 * the same, a "*" after it when the runs' models differ; "-" if none */
const char *repeat_model_cell(char *buf, size_t len, const struct repeat_model *rm, int count);

/* repeat_model_stats_head, repeat_model_stats_cells: stats.csv's model
 * columns, and their cells for rm (empty when it has none) */
void repeat_model_stats_head(FILE *out);
void repeat_model_stats_cells(FILE *out, const struct repeat_model *rm, int count);

/* repeat_model_md_notes: what the table's model and within columns say,
 * and the repetitions whose model_disagrees named a clock */
void repeat_model_md_notes(const struct sweep *sw, const struct sweep_table *tb, FILE *out);

/* repeat_write_csv: repeat.csv: a header, then a row per repetition. */
void repeat_write_csv(const struct sweep *sw, const struct sweep_table *tb, FILE *out);

/* repeat_write_stats_csv: stats.csv: a row per scheme and clock. */
void repeat_write_stats_csv(const struct sweep *sw, const struct sweep_table *tb, FILE *out);

/* repeat_write_md: the statistics table (what the command prints), with
 * the invalid repetitions listed after it. */
void repeat_write_md(const struct sweep *sw, const struct sweep_table *tb, FILE *out);

/* repeat_gp_text: the gnuplot script of spread.png: per clock a strip of
 * its values and a bar at their median, in three panels (detection,
 * window and last packets, requests lost); to_stdout: the PNG to
 * gnuplot's standard output (what the repeat runs), else to spread.png. */
void repeat_gp_text(const struct sweep *sw, const struct sweep_table *tb, FILE *out, int to_stdout);

#endif
