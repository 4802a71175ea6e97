/*
 * probes/report: the report of a run directory (docs/clocks.md, "The
 * report"). It takes the clocks of probes/clocks (clocks.h) and writes
 * around them what a person asks next: report.md, the CSV series, the
 * plots and the machine the report was made on. It measures nothing itself:
 * every number comes from the clocks module; report_run() is the one entry,
 * for `steerlab run` and `steerlab report`.
 *
 *   report.c           report_run(): load, compute, write every file, print
 *                      the summary
 *   report_upstream.c  the queries that reached authd, per second and per
 *                      resolver (a pure computation on the loaded run)
 *   report_tables.c    the tables (budget, decay marks, upstream load) that
 *                      the summary and report.md share, on lib/texttable.h
 *   report_csv.c       decay.csv and upstream.csv
 *   report_plot.c      the gnuplot scripts, kept in the run directory, and
 *                      gnuplot run on them (lib/subproc.h)
 *   report_md.c        report.md
 *   report_html.c      report.html: report.md's page for a browser, one
 *                      file fetching nothing, the decay plot drawn by its
 *                      inline script (report_html_js.c) from decay.csv's
 *                      numbers; report_svg.c its topology graph
 *   report_env.c       the versions, the kernel and sch_netem, for report.md
 *
 * The decay curve and the error budget are computed by the clocks module
 * (clocks_decay, clocks_budget): the budget is in clocks.json, and the decay
 * counts exactly the requests the window does. Every file is written
 * through lib/atomicfile.h.
 */
#ifndef STEERLAB_REPORT_H
#define STEERLAB_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "clocks.h"

/* anycast, dns: the order of every per-scheme array (as clocks.h's decay) */
#define REPORT_NSCHEMES CLOCKS_NSCHEMES

/* The queries that reached authd per second (bucket k of 1 s after t0, k
 * from first, may be negative) and per source address (sorted). */
struct report_upstream_series {
	int known; /* 0: no capture-dns-*.pcap */
	int64_t first;
	size_t n;
	size_t nsrc;
	struct in_addr *src;
	int64_t *count;		 /* n * nsrc: second i, source j at [i * nsrc + j] */
	int64_t *total;		 /* per second, every source */
	int64_t *before, *after; /* per source: at or before t0, after t0 */
	/* per [resolver] node (in->dnstopo) and level of the [dns] node
	 * reached: second i, node k, level l at [(i * nrsv + k) * CLOCKS_LEVELS
	 * + l] */
	int nrsv;
	int64_t *level;
};

/* report_upstream_series: the series of in's query captures, over the
 * traffic and the observation (and every query). 0, or -1 with err. Free
 * with report_upstream_series_free either way. */
int report_upstream_series(const struct clocks_input *in, struct report_upstream_series *u,
			   char *err, size_t errlen);
void report_upstream_series_free(struct report_upstream_series *u);

/* What `steerlab report` takes. Zero values are the defaults. */
struct report_opts {
	int64_t bucket_ns;   /* decay bucket; 0: clocks_decay_auto_bucket */
	double slo_pct;	     /* 0: CLOCKS_SLO_DEFAULT */
	const char *gnuplot; /* the program that draws the plots; NULL: "gnuplot" */
	FILE *times;	     /* not NULL: the time each stage took, written there */
	int json;	     /* print clocks.json's document instead of the tables (--json) */
};

/* report_parse_slo: "99.9" or "99.9%" into *pct (0 < pct < 100). 0 or -1. */
int report_parse_slo(const char *s, double *pct);

/*
 * report_run: read the run directory rundir and write into it clocks.json,
 * decay.csv, upstream.csv, decay.gp and upstream.gp with their PNGs (when
 * gnuplot runs), report.md and report.html; print the clocks and a summary
 * to out (with opts->json, clocks.json's document instead: docs/analysis.md).
 * Nothing is rerun: only the recorded files are read, and the verdict
 * (clocks_verdict) is computed again from them. Returns 0 for a valid run,
 * REPORT_INVALID for a run the verdict invalidates (every file is written
 * all the same, saying so), or -1 after logging an error that names the
 * file and what is wrong. A file that cannot be written (permission, full
 * disk) stops the writing, not the terminal: the clocks and the summary are
 * printed all the same, the error is logged after them naming the file,
 * and REPORT_UNSAVED is or'ed into the result. A missing gnuplot is not an
 * error: report.md says so. Every file is written through lib/atomicfile.h.
 */
#define REPORT_INVALID 1
#define REPORT_UNSAVED 2
int report_run(const char *rundir, const struct report_opts *opts, FILE *out);

/* The stages of report_run, timed for opts->times (`steerlab report
 * --times`): reading the run directory (clocks_load), the clocks (each
 * scheme's, every failure's, the decay, the upstream series, the flaps,
 * the outages and the resolvers), the verdict, the writers (clocks.json,
 * the CSVs, report.md and the terminal's tables) and the plots (gnuplot). A
 * regression of the analysis is then seen in the stage it is in. */
enum report_stage {
	REPORT_STAGE_READ,
	REPORT_STAGE_CLOCKS,
	REPORT_STAGE_VERDICT,
	REPORT_STAGE_WRITERS,
	REPORT_STAGE_PLOTS,
	REPORT_NSTAGES
};

/*
 * report_merge: `steerlab merge RUN` (probes/report/merge.c, docs/clocks.md,
 * "One capture per run"): every capture-*.pcap of rundir read with libpcap
 * and written, in time order (a k-way merge on a heap, one packet of each
 * capture in memory), into rundir/run.pcapng (lib/pcapng.h), each capture
 * an interface named by its label ("a", "link-core-a", "dns-ns"), with the
 * lab's events as packet comments: the timeline's steps (t0 first), each
 * prober's declaration of the failed site, each router's first and final
 * FIB change, authd's first answer without the failed site, each scheme's
 * last request to it and each client's first request at its new site,
 * taken from clocks.json (what the clocks computed), plan.json and the
 * probers' events. port: the request port (0: clocks.json's, else 7000). The counts into *st;
 * a damaged capture is merged up to its damage and said on log (may be
 * NULL). 0, or -1 with err naming the file.
 */
#define REPORT_MERGE_FILE "run.pcapng"
struct report_merge_stats {
	int captures;
	uint64_t packets;
	int comments;
	int unplaced; /* events no packet came after */
};
int report_merge(const char *rundir, uint16_t port, struct report_merge_stats *st, FILE *log,
		 char *err, size_t errlen);

#endif
