/*
 * The scenario runner behind `steerlab run`: up, warm-up, failure,
 * observation, down, analysis, in one run directory.
 */
#ifndef STEERLAB_RUN_H
#define STEERLAB_RUN_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "lab.h"
#include "topology.h"
#include "zone_change.h"

/* Set by SIGINT/SIGTERM: the run stops early, keeps what was captured,
 * tears the lab down and analyses what it has. */
extern volatile sig_atomic_t run_interrupted;

struct run_opts {
	const char *rundir; /* NULL: runs/LAB-YYYYmmdd-HHMMSS */
	const char *bindir;
	int quiet;
	const char *label; /* before the progress line: a sweep's point */
	int merge;	   /* run --merge: report_merge (run.pcapng) after the analysis */
	int json;	   /* stdout: clocks.json's document alone; the progress on stderr */
};

/* run_scenario returns RUN_INVALID for a run that was analysed but cannot
 * be trusted: its verdict is invalid (report_run), an agent ended during it,
 * or it was interrupted. `steerlab run` exits 3 for it. */
#define RUN_INVALID 1
/* RUN_UNSAVED: analysed and printed, but a file of the analysis could not
 * be written in the run directory (a full disk): `steerlab run` exits 4,
 * as `steerlab report` does */
#define RUN_UNSAVED 2

/* run_scenario: 0 if the run and its analysis completed and the run is
 * valid, RUN_INVALID if it is not, RUN_UNSAVED if its analysis could not
 * all be written, -1 on error (nothing to analyse). It
 * refuses first (run_preflight) what it would refuse later. A random seed
 * (t->seed -1) is drawn into t->seed (run_seed) before topology.ini is
 * written; the failure falls at fail_at plus its jitter (lab/topology/topology.h). */
int run_scenario(struct topology *t, const struct run_opts *o);

/* run_seed: if t->seed is random (-1), a seed from getrandom into it. 0,
 * or -1 (logged). */
int run_seed(struct topology *t);

/* run_preflight: what run_scenario would refuse, checked before anything is
 * made: no failing site, the lab or one of its namespaces already there, an
 * agent program missing, a run directory lab/build/rundir.c refuses (explicit_out:
 * it was given with --out). Each said on stderr. 0 or -1. */
int run_preflight(const struct topology *t, const char *bindir, const char *rundir,
		  int explicit_out);

/* run_preflight_lab: what bringing the lab of t up would refuse, said on
 * stderr as "steerlab: CMD: ...": the lab already up, one of its namespaces
 * already there, an agent program missing from bindir (NULL: not checked).
 * 0 or -1. */
int run_preflight_lab(const char *cmd, const struct topology *t, const char *bindir);

/* run_failing_site: the site the timeline takes out first
 * (topo_first_failure), or -1: a run needs one. */
int run_failing_site(const struct topology *t);

struct lab;

/* run_ready: 1 when every site link is being captured, every site's route
 * applied, and every authd and resolverd answers (their events in rundir). */
int run_ready(const struct topology *t, const char *rundir);
/* run_anycast_ns_ready: every anycast name server's route applied by
 * every router (its prober found its server answering: after PowerDNS
 * and gdnsd start), else what is missing in why */
int run_anycast_ns_ready(const struct topology *t, const char *rundir, char *why, size_t len);
/* run_ready_why: run_ready, and what the lab still waits for in why */
int run_ready_why(const struct topology *t, const char *rundir, char *why, size_t len);

/* run_wait_ready: wait, at most settle, until the lab is ready, watching its
 * agents. 0 when ready; -1 (said) if an agent ended or settle passed. */
int run_wait_ready(struct lab *lab);

/* run_runs_dir: where the default run directories go: $STEERLAB_RUNS if set
 * and not empty, else runs (under the current directory). */
#define RUN_RUNS_ENV "STEERLAB_RUNS"
const char *run_runs_dir(void);

/* run_default_dir: RUNS/LAB-YYYYmmdd-HHMMSS into buf (RUNS: run_runs_dir). */
void run_default_dir(char *buf, size_t len, const char *lab);

/* run_sudo_owner: the user and group who ran sudo (SUDO_UID, SUDO_GID)
 * into *uid and *gid: 0; -1 if either is unset, or not a number from 0
 * to 2^32 - 2 (said: never taken for uid 0). */
int run_sudo_owner(uid_t *uid, gid_t *gid);

/* run_chown: when root, give dir and everything under it that root made
 * (owned by uid 0) to the user who ran sudo (SUDO_UID, SUDO_GID), if any,
 * and the default parent runs/ if sudo made it; never any other parent.
 * No symbolic link is followed (each entry is opened O_NOFOLLOW relative to
 * its directory and changed through that descriptor), and a file with more
 * than one link stays root's. Errors are logged with -v only: a file that
 * cannot be given away is still there for root. (lab/run/runowner.c) */
void run_chown(const char *dir);

/* run_count_events: lines of the JSON Lines file path whose "event" is
 * event (and, if key is not NULL, whose key equals value). */
int run_count_events(const char *path, const char *event, const char *key, const char *value);

/*
 * The timeline's actions on a lab that is up (topology.h's enum
 * topo_action; docs/man/steerlab.ini.5 says what each does in the kernel,
 * docs/topology.md which incident it stands for):
 *
 *   kill           SIGKILL of the site's sited
 *   crash          SIGKILL of every agent the lab runs at the node, as
 *                  agents.tsv records them by node: sited, prober, and a
 *                  BGP speaker's daemons wherever the lab starts some
 *   freeze         an nftables table in the node's namespace dropping every
 *                  packet in and out but loopback's: the processes run, the
 *                  links stay up, nothing is answered
 *   drain/undrain  SIGUSR1/SIGUSR2 to sited: it keeps answering, and flags
 *                  its replies "draining", so every prober (the site's, and
 *                  the vantage points reporting to authd) takes it out
 *   link-down/up   IFF_UP cleared/set on both veth ends (libnl); on the way
 *                  up both ends' routes are added back
 *   dns-down/up    an nftables table dropping DNS (UDP and TCP port 53) to
 *                  the [dns] node: resolvers time out
 *   resolver-down/up  the same at a [resolver] node, for all its caches or
 *                  one (instance)
 *   recover        undoes the event the parser found it undoes: sited or the
 *                  node's agents started again with up's command lines, the
 *                  table deleted, the link up, the drain lifted
 *   flap           count cycles of the site's kill/recover or the link's
 *                  down/up, period apart, up at half of each
 *   set-ttl, set-weight, add-record, remove-record
 *                  one CHANGE line to the [dns] node's authd, from loopback
 *                  inside its namespace (actions_dns.c), and its answer: the
 *                  zone's new serial, or why authd refused it
 *
 * Where routing = bgp (issue 11) plugs in: crash kills whatever agents.tsv
 * records at the node, FRR's daemons included once the lab records them
 * there, and recover starts them again through lab_start_node; drain goes
 * through the probers' own verdict (a draining reply is a failed probe), so
 * a prober that withdraws by removing the anycast /32 from lo drains that
 * way too; freeze drops the BGP session's packets with the rest.
 *
 * One step is one call: the caller (lab/run/run.c) schedules them. Every step
 * writes event_applied to lab.events.jsonl at the instant it was applied;
 * the first step that takes a site out (kill, crash, freeze, drain, its
 * link down, a flap's first down) also writes site_failed, stamped before
 * the step (t0), which the clocks measure from.
 *
 * What a step does to the lab goes through one table of calls, struct
 * action_ops: the agents' signals and starts (lab/build/supervise.c), a node's
 * routes and links (lab/build/build.c), an nftables script in a node's namespace, a link's
 * end up or down (lab/build/kernel.c). The rest, which step does what to whom,
 * which script, which events, is decided here and unit-tested against a
 * fake table (tests/unit/test_lab_actions.c); action_lab_ops is the lab's.
 */

/* One scheduled step of the timeline. */
struct action_step {
	int64_t at_ns;	    /* from the traffic's start, fail_jitter included */
	int64_t nominal_ns; /* as written (a flap's cycle's instant) */
	int event;	    /* index in t->events */
	int cycle;	    /* flap: 1..count; 0 otherwise */
	int up;		    /* flap: the cycle's way back */
};

#define ACTION_MAX_STEPS 2048

/* action_plan: the steps of t's timeline in order into steps[0..max).
 * Their number (at most max). With [lab] fail_jitter, event i (in time
 * order) moves later by jitter_offset_ns(fail_jitter, seed, i) (lab/topology/topology.h;
 * the fail = yes shorthand alone is event 0, as before the timeline), a
 * flap with all its cycles; an event never moves before the previous one on
 * its target ended (a recover stays after what it undoes). */
int action_plan(const struct topology *t, struct action_step *steps, int max);

/* action_fail_at: the instant of the first step that takes a site out
 * (topo_first_failure's event), jitter included, and as written into
 * *nominal; t->fail_at_ns (both) if none. */
int64_t action_fail_at(const struct topology *t, const struct action_step *steps, int n,
		       int64_t *nominal);

/* action_reset: forget which sites failed (a new run). */
void action_reset(void);

/* action_sites_failed: how many sites a step took out since action_reset
 * (each wrote its site_failed). */
int action_sites_failed(void);

/* action_apply: apply one step to the lab now, writing its events to
 * lab->ev; by is "timeline" or "hand". A line saying what was done goes to
 * said. 0, or -1 (said, with why) if the step could not be applied. */
int action_apply(struct lab *lab, const struct action_step *s, const char *by, char *said,
		 size_t len);

/* The lab's side of the actions: what each call does to the lab of the
 * real table, action_lab_ops. Agent i is lab->agents[i], node n
 * lab->t->nodes[n]. */
struct action_ops {
	/* report the agents that have ended (lab_watch(lab, 0)): a killed
	 * agent's end is then told from one that ended before */
	void (*watch)(struct lab *lab);
	/* SIGKILL agent i on purpose (lab_kill_agent); any signal to it
	 * (lab_signal_agent). 0, or -1 with errno (ESRCH: it had ended) */
	int (*kill_agent)(struct lab *lab, int i);
	int (*signal_agent)(struct lab *lab, int i, int sig);
	/* sig with a value (lab_signal_agent_value); NULL: not supported */
	int (*signal_agent_value)(struct lab *lab, int i, int sig, int value);
	/* node n's sited (its index in lab->agents), or every agent of the
	 * node (0), started again with up's command lines; -1 (logged) */
	int (*start_sited)(struct lab *lab, int n);
	int (*start_node)(struct lab *lab, int n);
	/* node n's addresses and routes again, after a link came back up.
	 * 0 or -1 (logged) */
	int (*reconfigure_node)(struct lab *lab, int n);
	/* `nft -f -` with script in node n's namespace. 0, or -1 with why in
	 * said */
	int (*nft)(struct lab *lab, int n, const char *script, char *said, size_t len);
	/* IFF_UP set (up) or cleared on node n's interface ifname. 0 or -1
	 * (logged) */
	int (*link_set)(struct lab *lab, int n, const char *ifname, int up);
	/* the impair event e applied to its link (lab_impair_change, with the
	 * lab's mechanism). 0, or -1 with why in said */
	int (*impair)(struct lab *lab, const struct topo_event *e, const char *by, char *said,
		      size_t len);
	/* a DNS change c sent to [dns] node n's authd, its answer into r
	 * (action_lab_dns_change: from loopback in the node's namespace). 0,
	 * or -1 with why in said (no answer) */
	int (*dns_change)(struct lab *lab, int n, const struct zone_change *c,
			  struct zone_change_reply *r, char *said, size_t len);
};

extern const struct action_ops action_lab_ops;

/* action_dns: DNS change e sent through ops, the zone's serial after it
 * into *serial (lab/run/actions_dns.c). 0, or -1 with why in said (authd
 * refused it: its reason). */
int action_dns(struct lab *lab, const struct topo_event *e, const struct action_ops *ops,
	       uint32_t *serial, char *said, size_t len);
int action_lab_dns_change(struct lab *lab, int n, const struct zone_change *c,
			  struct zone_change_reply *r, char *said, size_t len);

/* action_set_ops: the table action_apply uses from now on (NULL: the
 * lab's, action_lab_ops, as at start). */
void action_set_ops(const struct action_ops *ops);

/* action_describe: "crash site a" for the step, into buf. */
const char *action_describe(const struct topology *t, const struct action_step *s, char *buf,
			    size_t len);

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
 * Beside each point's clocks, its run's model (clocks.json's "model":
 * docs/model.md, "In sweeps and repeats"): p50 (p5-p95) and the difference
 * in the table, the model dashed on the plot.
 *
 * sweep.c parses the arguments and runs the points; sweep_table.c reads
 * the clocks and writes the table, sweep_plot.c the plot script,
 * sweep_model.c the model's part of both (sweep_model.h), with no other
 * I/O than the files they are given (the unit tests' golden files).
 */

#define SWEEP_MAX_POINTS 64
#define SWEEP_MAX_SCHEMES 4
#define SWEEP_KEY_MAX 64
#define SWEEP_POINT_NAME_MAX 96

struct sweep {
	const char *file;	     /* the topology file */
	char key[SWEEP_KEY_MAX];     /* the swept parameter: ttl, rate, c1.rate */
	const char *swept;	     /* its --set, as given */
	char lab[TOPO_NAME_MAX + 1]; /* the lab's name (sweep_check), "" before */
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
	/* a repeat's own steps (repeat_parse sets them; NULL for a sweep), so
	 * that the sweep calls them without depending on the repeat */
	const struct sweep_hooks *hooks;
	/* --json: the table's rows as JSON there (sweep_table_json), not the
	 * table on stdout; NULL: the table */
	FILE *json_out;
};

/* What a repeat does differently in sweep_run (lab/run/repeat.c): its
 * seeds when a resumed directory holds them, the line after each
 * repetition, its results instead of the sweep's table. */
struct sweep_hooks {
	void (*seeds)(struct sweep *sw, uint32_t seed);
	void (*progress)(const struct sweep *sw, const char *dir, int i);
	int (*results)(const struct sweep *sw, const char *dir);
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

/* The model's clocks a sweep and a repeat show beside the measured ones,
 * from each run's clocks.json (a scheme's "model", docs/clocks.md, "The
 * model beside the measurement"), in the order of the tables. */
enum sweep_model_clock {
	SWEEP_MODEL_DETECT,
	SWEEP_MODEL_STEER,
	SWEEP_MODEL_WINDOW,
	SWEEP_MODEL_LAST_P50,
	SWEEP_MODEL_LAST_P99,
	SWEEP_MODEL_LAST_MAX,
	SWEEP_MODEL_LOST_CLIENT,
	SWEEP_MODEL_LOST_CAPTURE,
	SWEEP_MODEL_UPSTREAM,
	SWEEP_MODEL_CLOCKS
};

/* a clock of the model: p5, p50, p95 and bounds over its draws */
struct sweep_model_iv {
	int known; /* 0: null in clocks.json (not modelled) */
	double p5, p50, p95, min, max;
};

/* a scheme's model at one run */
struct sweep_model {
	int present; /* the scheme's "model" is an object, not null or absent */
	struct sweep_model_iv clock[SWEEP_MODEL_CLOCKS];
	/* the widening model_disagrees gave each clock (seconds, or a count;
	 * NAN when clocks.json does not say it) */
	double tol[SWEEP_MODEL_CLOCKS];
	/* bit c: the run judged clock c outside (model_disagrees), or did not
	 * judge it because a later step of the timeline came first */
	unsigned outside, later_step;
};

/* One scheme's clocks at one point; NAN and -1 where clocks.json has
 * null or nothing. lb_*: the value is a lower bound (window_cut). */
struct sweep_clocks {
	int present; /* the point's clocks.json has this scheme */
	double detect, steer, window, p50, p99, max;
	double remote_dead; /* DNS: a remote prober's declared_dead */
	int64_t lost_client, lost_capture, upstream;
	/* clocks.json's steering.schemes.SCHEME.deviation: the scheme's
	 * shares against their target; NAN when it has none */
	double deviation;
	int lb_window, lb_p50, lb_p99, lb_max;
	struct sweep_model model; /* the run's model of the scheme */
};

#define SWEEP_CODES_MAX 160

struct sweep_table {
	char lab[64];
	int nschemes; /* in the order of the first clocks.json */
	char schemes[SWEEP_MAX_SCHEMES][16];
	int has_upstream[SWEEP_MAX_SCHEMES];  /* some point has upstream_queries */
	int has_deviation[SWEEP_MAX_SCHEMES]; /* some point has a steering deviation */
	/* every point measured is a steady-state run (no failure, no clocks):
	 * the tables and the plot show the steering instead */
	int steady;
	int has_remote[SWEEP_MAX_SCHEMES]; /* some point has remote_dead_s */
	/* clocks.json's failed.jitter_offset_s: how far fail_jitter moved t0
	 * past fail_at; NAN if not recorded */
	double offset[SWEEP_MAX_POINTS];
	int done[SWEEP_MAX_POINTS]; /* the point's clocks.json was read */
	/* 1 valid, 0 invalid, -1 not said (a clocks.json from before the
	 * verdict); invalid: the invalidating codes, comma-separated */
	int valid[SWEEP_MAX_POINTS];
	char invalid[SWEEP_MAX_POINTS][SWEEP_CODES_MAX];
	/* why the point's run has no model (its clocks.json's "model":
	 * {"none": why}); "" when it has one or does not say */
	char model_none[SWEEP_MAX_POINTS][320];
	struct sweep_clocks clocks[SWEEP_MAX_POINTS][SWEEP_MAX_SCHEMES];
};

/* sweep_table_load: DIR/NAME/clocks.json of every point. A point without
 * one is not done; a clocks.json that does not parse is an error. 0, or -1
 * with the file and why on err. */
int sweep_table_load(const struct sweep *sw, const char *dir, struct sweep_table *tb, FILE *err);

/* sweep_write_csv: a header, then one line per point: the value, each
 * scheme's clocks (seconds; empty when unknown), the run directory. */
void sweep_write_csv(const struct sweep *sw, const struct sweep_table *tb, FILE *out);
/* sweep_csv_point_end: the end of point i's CSV line, its last columns
 * (",valid,invalid_codes,run"), for the sweep's CSV and the repeat's */
void sweep_csv_point_end(const struct sweep *sw, const struct sweep_table *tb, int i, FILE *out);

/* sweep_table_json: the table as JSON, a row per point (steerlab sweep
 * --json; docs/analysis.md, "JSON output"), dir the sweep's directory;
 * sweep_check_json: the points of sweep --check --json. NULL: out of
 * memory. */
#define SWEEP_JSON_VERSION 1
json_t *sweep_table_json(const struct sweep *sw, const struct sweep_table *tb, const char *dir);
json_t *sweep_check_json(const struct sweep *sw);

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
 * temporary file renamed into place, its text from fn; a CSV file (units
 * not NULL: "COLUMN=UNIT, ...") opens with lib/csvmeta.h's '#' lines (the
 * run: DIR's name; the topology: sw->file). 0, or -1 logged. */
int sweep_write_file(const struct sweep *sw, const struct sweep_table *tb, int dirfd,
		     const char *dir, const char *name, const char *units,
		     void (*fn)(const struct sweep *, const struct sweep_table *, FILE *));

/* What a sweep or a repeat writes once its points are done: its files (in
 * order, the last one its gnuplot script), the one also printed on stdout,
 * its plot (fill gets a struct sweep_plot_arg), and what it says of
 * invalid points. */
#define SWEEP_OUTPUT_FILES 4
typedef void (*sweep_writer)(const struct sweep *, const struct sweep_table *, FILE *);
struct sweep_output {
	const char *what; /* "sweep", "repeat": the messages' word */
	int nfiles;
	const char *files[SWEEP_OUTPUT_FILES];
	sweep_writer writers[SWEEP_OUTPUT_FILES];
	const char *units[SWEEP_OUTPUT_FILES]; /* a CSV file's units; NULL: not a CSV */
	sweep_writer shown;		       /* printed on stdout */
	const char *png;
	void (*fill)(FILE *, const void *);
	void (*invalid)(const struct sweep *sw, int invalid);
};

struct sweep_plot_arg {
	const struct sweep *sw;
	const struct sweep_table *tb;
};

/* sweep_output_write: out's files in dir, its table on stdout, its plot
 * once a point is measured and valid (else an older plot removed). 0,
 * SWEEP_INVALID if a point is invalid, or -1 (logged). */
int sweep_output_write(const struct sweep *sw, const char *dir, const struct sweep_output *out);
/* sweep_write_html: dir/report.html (dirfd: dir opened), out's table as
 * the terminal shows it and its CSV's clocks plotted as SVG (sweep_html.c).
 * 0, or -1 (logged). */
int sweep_write_html(const struct sweep *sw, const struct sweep_table *tb, int dirfd,
		     const char *dir, const struct sweep_output *out);

/* sweep_gnuplot: gnuplot in dir, the script from fill(fp, arg) on its
 * standard input, its PNG on its standard output into DIR/png through a
 * temporary file; an older png is removed first. 0, 1 if gnuplot is not
 * installed, -1 (logged). */
int sweep_gnuplot(int dirfd, const char *dir, const char *png, void (*fill)(FILE *, const void *),
		  const void *arg);

/* How a sweep's (or a repeat's) points run (docs/sweeps.md, "Many points
 * at once"): one after another in this process (the default); --jobs N of
 * them at once, each a `steerlab run` of its own lab name; or --via slurm,
 * one task of a Slurm job array per point, on a shared filesystem. */
enum sweep_via {
	SWEEP_VIA_SELF,
	SWEEP_VIA_LOCAL,
	SWEEP_VIA_SLURM,
};

struct sweep_opts {
	const char *out; /* DIR; NULL: runs/sweep-LAB-KEY-YYYYmmdd-HHMMSS */
	const char *bindir;
	int quiet;
	enum sweep_via via;
	int jobs;	       /* SWEEP_VIA_LOCAL: at most this many at once (> 1) */
	const char *partition; /* SWEEP_VIA_SLURM: sbatch --partition, or NULL */
};

/* sweep_point_done: the point's run directory holds a finished run: its
 * clocks.json, and traffic that was not interrupted (sweep.c) */
int sweep_point_done(const char *rundir);

/* sweep_point_label: "point ttl=30", or a repeat's "repetition 2 (seed N)" */
void sweep_point_label(const struct sweep *sw, int i, char *buf, size_t len);

/* sweep_point_lab: the lab name of point i of a sweep of lab's run beside
 * others: LAB-N (N = i + 1), LAB cut so that it fits TOPO_NAME_MAX */
void sweep_point_lab(const char *lab, int i, char *buf, size_t len);

/* sweep_via_run: the points todo[0..ntodo) of sw, each a `steerlab run`
 * into dir/NAME with its own lab name (sweep_point_lab), as o->via says:
 * o->jobs at once here, or as a Slurm job array (progress from squeue).
 * Returns once every one has ended, or at an interruption (the Slurm job
 * cancelled, the children told). 0, or -1 (said) if they could not be
 * started: which ones finished is for the caller to read (sweep_point_done). */
int sweep_via_run(const struct sweep *sw, const char *lab, const char *dir, const int *todo,
		  int ntodo, const struct sweep_opts *o);

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

/* A repeat (lab/run/repeat.c, repeat.h): a sweep over the repetitions
 * (`steerlab run --repeat N`). */
#define REPEAT_MAX SWEEP_MAX_POINTS

/* repeat_parse: a repeat of n runs of file with the overrides
 * sets[0..nsets): --set seed=S is the repeat's seed (else one is drawn),
 * the others are fixed; none may have several values. 0, or -1 with
 * "steerlab: run: ..." on err. */
int repeat_parse(struct sweep *sw, const char *file, int n, char *const sets[], int nsets,
		 FILE *err);

#endif
