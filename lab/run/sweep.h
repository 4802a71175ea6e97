/*
 * `steerlab sweep FILE --set KEY=V1,V2,... [--set K=V ...] [--out DIR]`: one
 * `steerlab run` per value of one parameter, then one table of the clocks
 * (docs/sweeps.md).
 *
 * The one --set whose value has commas is the swept parameter; the others
 * are fixed overrides, the same at every point. DIR (by default
 * runs/sweep-LAB-KEY-YYYYmmdd-HHMMSS) holds:
 *
 *   sweep.args           what DIR is a sweep of: a rerun with --out DIR must match
 *   KEY-VALUE/           each point's run directory (ttl-30/, c1.rate-500/)
 *   sweep.csv, sweep.md  the combined table, from each point's clocks.json
 *   sweep.gp, sweep.png  the plot: gnuplot sweep.gp (in DIR) writes sweep.png
 *
 * A point is done when its clocks.json exists and its run was not
 * interrupted (lab.events.jsonl's traffic_stopped). Rerunning the command
 * with --out DIR skips the points that are done and runs the others again
 * from an empty directory, so an interrupted sweep resumes where it
 * stopped.
 *
 * A point whose clocks.json says "valid": false is done, but its run is
 * not to be trusted: the table marks it invalid with its codes, the plot
 * leaves it out, and the sweep exits with SWEEP_INVALID. A window that is a
 * lower bound (window_cut) is shown "≥ 4.003" and plotted as such; a scheme
 * a point does not have is absent from it, not zero.
 *
 * sweep.c parses the arguments and runs the points; sweep_table.c reads
 * the clocks and writes the table and the plot script, with no other I/O
 * than the files it is given (the unit tests' golden files).
 */
#ifndef STEERLAB_SWEEP_H
#define STEERLAB_SWEEP_H

#include <stdint.h>
#include <stdio.h>

#include "topology.h"

#define SWEEP_MAX_POINTS 64
#define SWEEP_MAX_SCHEMES 4
#define SWEEP_KEY_MAX 64
#define SWEEP_POINT_NAME_MAX 96

struct sweep {
	const char *file;	 /* the topology file */
	char key[SWEEP_KEY_MAX]; /* the swept parameter: ttl, rate, c1.rate */
	const char *swept;	 /* its --set, as given */
	int nvalues;
	char *values[SWEEP_MAX_POINTS];			    /* each value, trimmed (into store) */
	char names[SWEEP_MAX_POINTS][SWEEP_POINT_NAME_MAX]; /* point directories: KEY-VALUE */
	char *fixed[TOPO_MAX_SETS];			    /* the other --set, as given */
	int nfixed;
	char store[4096];

	/* the plot's x axis (sweep_axis): each value as a number in the unit
	 * of xlabel, if every value is one; else the points are evenly spaced */
	int numeric;
	double x[SWEEP_MAX_POINTS];
	char xlabel[128];

	/* a repeat (`steerlab run --repeat N`, lab/run/repeat.h): N runs of one
	 * scenario, the points rep-1 .. rep-N, key "seed" and each value the
	 * repetition's seed, jitter_rep_seed(seed, i + 1); 0 for a sweep */
	int repeat;
	uint32_t seed;	/* the repeat's own */
	int seed_given; /* by --set seed=N (else drawn, or read back on resume) */
};

/*
 * sweep_parse: the swept parameter and the fixed overrides of sets[0..nsets)
 * for a sweep of file. Exactly one set may have commas; every value must
 * be non-empty and different. 0, or -1 with "steerlab: sweep: ..." on err.
 */
int sweep_parse(struct sweep *sw, const char *file, char *const sets[], int nsets, FILE *err);

/* sweep_point_sets: the --set of point i (the fixed ones, then KEY=VALUE)
 * into sets (TOPO_MAX_SETS + 1 entries), the strings in buf. Their count,
 * or -1 if buf is too small. */
int sweep_point_sets(const struct sweep *sw, int i, char *sets[], char *buf, size_t len);

/* sweep_axis: the x axis for the key's type in topology t (the first
 * point's): durations and TTLs in seconds, rates in requests per second. */
void sweep_axis(struct sweep *sw, const struct topology *t);

/* sweep_logx: the plot's x axis is logarithmic: the values are numbers
 * (sweep_axis), all above zero, and span a decade or more (max/min >= 10). */
int sweep_logx(const struct sweep *sw);

/* sweep_command: "steerlab sweep FILE --set ... [--out DIR]" into buf. */
void sweep_command(const struct sweep *sw, const char *dir, char *buf, size_t len);

/* One scheme's clocks at one point; NAN and -1 where clocks.json has
 * null or nothing. lb_*: the value is a lower bound (window_cut). */
struct sweep_clocks {
	int present; /* the point's clocks.json has this scheme */
	double detect, steer, window, p50, p99, max;
	double remote_dead; /* DNS: a remote prober's declared_dead */
	int64_t lost_client, lost_capture, upstream;
	int lb_window, lb_p50, lb_p99, lb_max;
};

#define SWEEP_CODES_MAX 160

struct sweep_table {
	char lab[64];
	int nschemes; /* in the order of the first clocks.json */
	char schemes[SWEEP_MAX_SCHEMES][16];
	int has_upstream[SWEEP_MAX_SCHEMES]; /* some point has upstream_queries */
	int has_remote[SWEEP_MAX_SCHEMES];   /* some point has remote_dead_s */
	/* clocks.json's failed.jitter_offset_s: how far fail_jitter moved t0
	 * past fail_at; NAN if not recorded */
	double offset[SWEEP_MAX_POINTS];
	int done[SWEEP_MAX_POINTS]; /* the point's clocks.json was read */
	/* 1 valid, 0 invalid, -1 not said (a clocks.json from before the
	 * verdict); invalid: the invalidating codes, comma-separated */
	int valid[SWEEP_MAX_POINTS];
	char invalid[SWEEP_MAX_POINTS][SWEEP_CODES_MAX];
	struct sweep_clocks clocks[SWEEP_MAX_POINTS][SWEEP_MAX_SCHEMES];
};

/* sweep_table_load: DIR/NAME/clocks.json of every point. A point without
 * one is not done; a clocks.json that does not parse is an error. 0, or -1
 * with the file and why on err. */
int sweep_table_load(const struct sweep *sw, const char *dir, struct sweep_table *tb, FILE *err);

/* sweep_write_csv: a header, then one line per point: the value, each
 * scheme's clocks (seconds; empty when unknown), the run directory. */
void sweep_write_csv(const struct sweep *sw, const struct sweep_table *tb, FILE *out);

/* sweep_write_md: one Markdown table per scheme, a row per point. */
void sweep_write_md(const struct sweep *sw, const struct sweep_table *tb, FILE *out);

/* sweep_write_gp: a gnuplot script, run in DIR, that writes sweep.png:
 * the window and the requests lost against the swept value, per scheme;
 * the lower bounds as such, the invalid points left out. */
void sweep_write_gp(const struct sweep *sw, const struct sweep_table *tb, FILE *out);

/* sweep_gp_text: the same script; to_stdout: its PNG to gnuplot's
 * standard output instead of sweep.png (what the sweep runs) */
void sweep_gp_text(const struct sweep *sw, const struct sweep_table *tb, FILE *out, int to_stdout);

/* sweep_invalid: how many done points are invalid */
int sweep_invalid(const struct sweep *sw, const struct sweep_table *tb);

/* sweep_write_file: DIR/NAME (dirfd: DIR's, lib/atomicfile.h) through a
 * temporary file renamed into place, its text from fn. 0, or -1 logged. */
int sweep_write_file(const struct sweep *sw, const struct sweep_table *tb, int dirfd,
		     const char *dir, const char *name,
		     void (*fn)(const struct sweep *, const struct sweep_table *, FILE *));

/* sweep_gnuplot: gnuplot in dir, the script from fill(fp, arg) on its
 * standard input, its PNG on its standard output into DIR/png through a
 * temporary file; an older png is removed first. 0, 1 if gnuplot is not
 * installed, -1 (logged). */
int sweep_gnuplot(int dirfd, const char *dir, const char *png, void (*fill)(FILE *, const void *),
		  const void *arg);

struct sweep_opts {
	const char *out; /* DIR; NULL: runs/sweep-LAB-KEY-YYYYmmdd-HHMMSS */
	const char *bindir;
	int quiet;
};

/* sweep_check: load the topology of every point (errors to stderr), check
 * that its lab can come up (run_preflight_lab: not up already, the agent
 * programs in bindir) and set the axis. The lab's name into lab
 * (TOPO_NAME_MAX + 1). 0 or -1. */
int sweep_check(struct sweep *sw, char *lab, const char *bindir);

/* sweep_run: run the points that are not done, then write the table and
 * the plot. 0 if every point is done and valid; SWEEP_INVALID if every
 * point is done but some are invalid; -1 if one failed or the sweep was
 * interrupted (run_interrupted). Needs root. */
#define SWEEP_INVALID 1
int sweep_run(struct sweep *sw, const char *lab, const struct sweep_opts *o);

#endif
