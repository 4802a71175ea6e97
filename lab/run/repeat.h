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
 *   stats.csv, stats.md   per scheme and clock: n, min, median, p95, max
 *   spread.png            each clock's values, one strip per clock
 *
 * Statistics are over the valid repetitions only: an invalid one (its
 * clocks.json says "valid": false) keeps its row in repeat.csv, is left out
 * of stats and plot, and makes the command exit 3. The median and the p95
 * are interpolated between the two nearest ranks (repeat_quantile), as R's
 * and NumPy's defaults are; a value that is a lower bound (window_cut) makes
 * every statistic of its clock one, shown "≥".
 *
 * repeat.c parses the arguments and writes the files; repeat_table.c the
 * statistics and the tables, with no other I/O than the stream it is given
 * (tests/unit/test_repeat.c).
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
