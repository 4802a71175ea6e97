/*
 * The report of a run directory (docs/clocks.md, "The report"): the clocks
 * of clocks.h, and around them what a person asks next.
 *
 *   decay.c          the decay curve: per time bucket after t0, the share of
 *                    each scheme's requests still sent to the dead site
 *   budget.c         the failed requests as an equivalent downtime and a
 *                    share of a monthly error budget (clocks.h: clocks_budget)
 *   upstream.c       the queries that reached authd, per second and per
 *                    resolver
 *   report.c         report_run(): load, compute, write every file, print
 *                    the summary; the one entry of `steerlab run` and
 *                    `steerlab report`
 *   report_csv.c     decay.csv and upstream.csv
 *   report_tables.c  the tables (budget, decay marks, upstream load) that
 *                    the summary and report.md share, on report_table.c
 *   report_plot.c    the gnuplot scripts, kept in the run directory, and
 *                    gnuplot run on them as a child process
 *   report_md.c      report.md
 *   report_env.c     the versions, the kernel and sch_netem, for report.md
 *
 * decay.c, budget.c and upstream.c are pure computations on a loaded
 * struct clocks_input; everything that writes a file is in report_*.c.
 */
#ifndef STEERLAB_REPORT_H
#define STEERLAB_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "clocks.h"

#define REPORT_NSCHEMES 2 /* anycast, dns: the order of every per-scheme array */
#define REPORT_MAX_BUCKETS 1000000

/* bucket k of a series holds the times t with t0 + k w < t <= t0 + (k+1) w:
 * report_bucket_of gives k for rel = t - t0 (any sign) and width w > 0 */
int64_t report_bucket_of(int64_t rel_ns, int64_t width_ns);

/* One scheme's decay curve: per bucket, its requests captured on the dead
 * site's link (to the dead site, as in the window) and on every site link.
 * known = 0: it cannot be told (no capture of the failed site; for dns, no
 * site address in site_failed). */
struct clocks_decay_series {
	int known;
	int64_t *dead, *all;
};

struct clocks_decay {
	int64_t bucket_ns;
	int64_t end_ns; /* the end of the observation, relative to t0 */
	size_t n;	/* buckets, covering (t0, t0 + end_ns] */
	struct clocks_decay_series s[REPORT_NSCHEMES];
};

/* clocks_decay_auto_bucket: the bucket for an observation of obs_ns: the
 * largest of 1 s, 100 ms and 10 ms that gives at least 50 buckets (10 ms if
 * none does). */
int64_t clocks_decay_auto_bucket(int64_t obs_ns);

/* clocks_decay: the decay curves of in with buckets of bucket_ns (> 0) into
 * *d. 0, or -1 with the reason in err (too many buckets, no memory). Free
 * with clocks_decay_free either way. */
int clocks_decay(const struct clocks_input *in, int64_t bucket_ns, struct clocks_decay *d,
		 char *err, size_t errlen);
void clocks_decay_free(struct clocks_decay *d);

/* The queries that reached authd per second (bucket k of 1 s after t0, k
 * from first, may be negative) and per source address (sorted). */
struct clocks_upstream_series {
	int known; /* 0: no capture-dns-*.pcap */
	int64_t first;
	size_t n;
	size_t nsrc;
	struct in_addr *src;
	int64_t *count;		 /* n * nsrc: second i, source j at [i * nsrc + j] */
	int64_t *total;		 /* per second, every source */
	int64_t *before, *after; /* per source: at or before t0, after t0 */
};

/* clocks_upstream_series: the series of in's query captures, over the
 * traffic and the observation (and every query). 0, or -1 with err. Free
 * with clocks_upstream_series_free either way. */
int clocks_upstream_series(const struct clocks_input *in, struct clocks_upstream_series *u,
			   char *err, size_t errlen);
void clocks_upstream_series_free(struct clocks_upstream_series *u);

/* What `steerlab report` takes. Zero values are the defaults. */
struct report_opts {
	int64_t bucket_ns;   /* decay bucket; 0: clocks_decay_auto_bucket */
	double slo_pct;	     /* 0: CLOCKS_SLO_DEFAULT */
	const char *gnuplot; /* the program that draws the plots; NULL: "gnuplot" */
};

/* report_parse_slo: "99.9" or "99.9%" into *pct (0 < pct < 100). 0 or -1. */
int report_parse_slo(const char *s, double *pct);

/*
 * report_run: read the run directory rundir and write into it clocks.json,
 * decay.csv, upstream.csv, decay.gp and upstream.gp with their PNGs (when
 * gnuplot runs) and report.md; print the clocks and a summary to out.
 * Nothing is rerun: only the recorded files are read, and the verdict
 * (clocks_verdict) is computed again from them. Returns 0 for a valid run,
 * REPORT_INVALID for a run the verdict invalidates (every file is written
 * all the same, saying so), or -1 after logging an error that names the
 * file and what is wrong. A missing gnuplot is not an error: report.md
 * says so. Every file is written through lib/atomicfile.h.
 */
#define REPORT_INVALID 1
int report_run(const char *rundir, const struct report_opts *opts, FILE *out);

#endif
