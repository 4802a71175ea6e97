/*
 * Inside the report (report.h): what report.c hands the writers, and their
 * small shared helpers. Not for other modules.
 */
#ifndef STEERLAB_REPORT_INT_H
#define STEERLAB_REPORT_INT_H

#include <stddef.h>
#include <stdio.h>

#include "atomicfile.h"
#include "clocks_auths.h"
#include "report.h"
#include "texttable.h"

/* Everything a report is made of, computed once by report_run. */
struct report {
	const char *rundir;
	int dirfd; /* rundir, opened once: every file is written through it */
	int64_t bucket_ns;
	int bucket_auto; /* the default was taken */
	double slo_pct;
	int slo_default;
	const char *gnuplot;
	struct clocks_input in;
	struct clocks_result res[REPORT_NSCHEMES];
	struct clocks_notes verdict; /* the self-checks (clocks_verdict) */
	int valid;
	int unsaved; /* a file could not be written: the error is in the log */
	struct clocks_decay decay;
	/* the model's share of each scheme's requests sent to the dead site,
	 * per bucket of the decay (clocks_model_decay); NULL: no model curve */
	double *model_share[REPORT_NSCHEMES];
	struct clocks_explain ex;	/* what held each scheme (clocks_explain_init) */
	struct clocks_flaps *flaps;	/* the flap clocks (clocks_flaps) */
	struct clocks_outages *outages; /* the DNS outage clocks (clocks_outages) */
	struct report_upstream_series up;
	struct clocks_resolvers *rsv; /* NULL: no [resolver] node */
	char *clocks_text;	      /* clocks_print's table, for report.md */
	size_t clocks_len;
	/* the plots: a script written for each (decay.gp, upstream.gp); drawn
	 * when gnuplot ran on it; else plot_note says why not */
	int plot_decay, plot_upstream, plot_causes, plot_shares;
	int drawn;
	char plot_note[512];
	char gnuplot_version[256]; /* its first line, or "not found (NAME)" */
	/* the nanoseconds each stage took (CLOCK_MONOTONIC), and when the
	 * one being timed began */
	int64_t stage_ns[REPORT_NSTAGES];
	int64_t stage_start_ns;
};

/* report_stage_end: the time since the last stage ended added to stage s */
void report_stage_end(struct report *r, enum report_stage s);

/* The tables the summary and report.md share (report_tables.c), on
 * lib/texttable.h. */
void report_budget_table(const struct report *r, struct texttable *t);
void report_decay_table(const struct report *r, struct texttable *t);
void report_upstream_table(const struct report *r, struct texttable *t);
/* The routing tables (report_fib.c): per router, its FIB's route to the
 * service after t0; per anycast client, its catchment. report_has_fib: the
 * run has route events of the service prefix. */
int report_has_fib(const struct report *r);
void report_fib_table(const struct report *r, struct texttable *t);
void report_fib_summary(const struct report *r, FILE *out);
/* the same of a dual lab's IPv6 service address (its next hops as their
 * IPv4 twins) */
int report_has_fib6(const struct report *r);
void report_fib6_table(const struct report *r, struct texttable *t);
void report_fib6_summary(const struct report *r, FILE *out);
void report_catch_table(const struct report *r, struct texttable *t);
/* The timeline and the flaps (report_timeline.c): every step of the
 * timeline as applied; per flap and router, its route changes and the ups
 * after which its route to the site was suppressed. */
int report_has_timeline(const struct report *r);
void report_timeline_table(const struct report *r, struct texttable *t);
int report_has_flaps(const struct report *r);
void report_flap_table(const struct report *r, struct texttable *t);
/* per DNS outage and resolver, its clients' resolutions by outcome while it
 * lasted; and per second from it (report.md) */
int report_has_outages(const struct report *r);
void report_outage_table(const struct report *r, struct texttable *t);
void report_outage_buckets_table(const struct report *r, struct texttable *t);
/* report_decay_marks: the times the decay tables show (0.5 s, 1 s, ...,
 * then the last whole bucket) into marks, their labels ("2 s", "6.9 s
 * (end)") into labels; how many (at most REPORT_MAX_MARKS). When the
 * timeline recovered the site, up to its recovery only ("2.9 s (before
 * recovery)"): the fail-back's table (report_failback_table) takes over
 * from there, its marks from the recovery. report_recovered_at: the
 * recovery after t0, CLOCKS_NONE if none within the observation. */
#define REPORT_MAX_MARKS 16
#define REPORT_MARK_LABEL_LEN 48
int report_decay_marks(const struct report *r, int64_t *marks,
		       char (*labels)[REPORT_MARK_LABEL_LEN]);
int64_t report_recovered_at(const struct report *r);
int report_has_failback_decay(const struct report *r);
/* report_has_conn_decay: whether a present scheme has connection attempts'
 * curves (clients spoke TCP); report_conn_decay_table: at the decay's
 * marks, the SYNs each scheme's clients sent to the dead site since t0, of
 * all their SYNs since t0 */
int report_has_conn_decay(const struct report *r);
void report_conn_decay_table(const struct report *r, struct texttable *t);
void report_failback_table(const struct report *r, struct texttable *t);
/* The resolver tables (report_resolvers.c), when the run has [resolver]
 * nodes: a row per node (upstream per level, answered from cache, its
 * clients on the dead site); its clients' decay at the marks, a column per
 * node. report_rsv_name: "r1 (resolverd)"; report_rsv_level_present: a
 * [dns] node of the run serves level l (zone: always). */
int report_has_resolvers(const struct report *r);
void report_resolver_table(const struct report *r, struct texttable *t);
void report_resolver_decay_table(const struct report *r, struct texttable *t);
const char *report_rsv_name(char *buf, size_t len, const struct clocks_rsv_node *n);
int report_rsv_level_present(const struct report *r, int l);
/* The authorities side by side (report_auths.c), when the DNS clients'
 * names are served by several [dns] nodes: a row per node with its own
 * clocks and the model's beside them; report_auths_md: its section of
 * report.md */
int report_has_auths(const struct report *r);
void report_auths_table(const struct report *r, struct texttable *t);
void report_auths_md(const struct report *r, FILE *fp);
/* report_cause_table: what held each scheme at the dead site, a row per
 * cause and who (the terminal prints clocks_explain_print's) */
void report_cause_table(const struct report *r, struct texttable *t);
/* report_has_causes: some scheme's requests to the dead site were told by
 * cause: decay-causes.csv and the plot by cause are written */
int report_has_causes(const struct report *r);
/* report_budget_why: a paragraph on why the window and the equivalent
 * downtime differ, with this run's numbers */
void report_budget_why(const struct report *r, FILE *out);

/* report_fmt_s: ns as seconds without trailing zeros ("0.1", "2", "0.25") */
const char *report_fmt_s(char *buf, size_t len, int64_t ns);
/* report_decay_cell: series s's cell at bucket k of the decay's tables,
 * count being its dead (the failure's tables) or back (the fail-back's):
 * "n/a" (unknown, or count NULL), "no requests", or "P (COUNT of ALL)";
 * report_tables.c */
void report_decay_cell(struct texttable *t, const struct clocks_decay_series *s,
		       const int64_t *count, int64_t k);
/* report_fmt_pct: a fraction as a percentage, "-" if negative (unknown) */
const char *report_fmt_pct(char *buf, size_t len, double fraction);
/* report_fmt_budget: a budget in seconds as "43.2 min (2592 s)" */
const char *report_fmt_budget(char *buf, size_t len, double s);
/* report_fmt_duration: ns in the unit a person would use: "100 ms", "1 s",
 * "2 min" */
const char *report_fmt_duration(char *buf, size_t len, int64_t ns);

/* report_file_open: start writing rundir/name (lib/atomicfile.h: a new
 * temporary file, no link followed); report_file_close renames it into
 * place. 0, or -1 with err set (and the temporary file removed). */
int report_file_open(const struct report *r, struct atomicfile *af, const char *name, char *err,
		     size_t errlen);
int report_file_close(struct atomicfile *af, char *err, size_t errlen);
/* report_csv_open: report_file_open of a CSV file, its '#' lines written
 * (lib/csvmeta.h: the run, lab_up's topology, units "COLUMN=UNIT, ...") */
int report_csv_open(const struct report *r, struct atomicfile *af, const char *name,
		    const char *units, char *err, size_t errlen);

/* report_present: is scheme i in the run (it has flows)? The others are
 * absent from every table, file and plot. */
static inline int report_present(const struct report *r, int i)
{
	return !r->res[i].noflows;
}

/* report_decay_share: series s's share of bucket k, count (its dead or
 * its back) of all, as decay.csv writes it ("%.6g") into buf; NULL when
 * decay.csv leaves it empty (unknown, or no request in the bucket).
 * report_model_share: the same of scheme i's model curve. decay.csv and
 * report.html's plot both write these, so their numbers are the same. */
const char *report_decay_share(char *buf, size_t len, const struct clocks_decay_series *s,
			       const int64_t *count, size_t k);
const char *report_model_share(char *buf, size_t len, const struct report *r, int i, size_t k);

/* The files (report_csv.c, report_plot.c, report_md.c, report_html.c). 0,
 * or -1 with err. */
int report_write_decay_csv(const struct report *r, char *err, size_t errlen);
/* decay-causes.csv: per bucket, each scheme's share still sent to the dead
 * site by cause */
int report_write_causes_csv(const struct report *r, char *err, size_t errlen);
int report_write_upstream_csv(const struct report *r, char *err, size_t errlen);
/* Weights that change (report_shares.c), when the timeline moved a
 * weighted name's: shares.csv, shares.gp's text, report.md's section */
int report_has_shares(const struct report *r);
int report_write_shares_csv(const struct report *r, char *err, size_t errlen);
void report_plot_shares_text(const struct report *r, FILE *fp, const char *png);
void report_md_shares(const struct report *r, FILE *fp);
/* report_plot: write the scripts and run gnuplot on them; a gnuplot that is
 * missing or fails is not an error (r->plot_note says what happened) */
int report_plot(struct report *r, char *err, size_t errlen);
int report_write_md(const struct report *r, char *err, size_t errlen);
/* report.html: report.md's page for a browser, with the decay plot drawn
 * from the same numbers as decay.csv and the topology as a graph; written
 * after clocks.json, which it embeds (report_html.c) */
int report_write_html(const struct report *r, char *err, size_t errlen);
/* report_html_topology: the run's topology (plan.json) as an SVG graph,
 * each client coloured by its catchment before and after the failure,
 * each router with its FIB's change (report_svg.c); nothing when the run
 * directory has no plan.json */
void report_html_topology(const struct report *r, FILE *fp);
/* report_html_script: the page's script (report_html_js.c) */
extern const char report_html_script[];

/* report_env: the "Machine" lines of report.md: steerlab's, the libraries'
 * and gnuplot's versions, the kernel, link delays and sch_netem */
void report_env(const struct report *r, FILE *out);

#endif
