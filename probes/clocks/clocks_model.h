/*
 * The model beside the measurement (docs/clocks.md, "The model"; docs/model.md):
 * what probes/model predicts for this run, from the run's own topology.ini
 * (the topology as it ran, every --set applied) and the instant its failure
 * came, set beside each measured clock. clocks_model_prepare computes it
 * once for the verdict (model_disagrees: verdict_model.c), clocks.json (each
 * scheme's "model", with the keys of its measured clocks), the table
 * (clocks_model_write.c) and the report's decay (clocks_model_decay). The
 * numbers are plain here: only clocks_model.c sees probes/model and the
 * topology's loader.
 */
#ifndef STEERLAB_CLOCKS_MODEL_H
#define STEERLAB_CLOCKS_MODEL_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "clocks_base.h"

struct clocks_input;
struct clocks_result;
struct texttable;

/*
 * model_disagrees: a measured clock outside the model's bounds (the least
 * and the greatest of its draws) widened by CLOCKS_MODEL_TOL_NS; the losses
 * by that time at the scheme's rate, and one more; the upstream queries to
 * the model's count for a traffic that much shorter and longer. 100 ms:
 * the DNS clients' polling floor (an answer of TTL 0 is asked again 100 ms
 * later), three times the most a measured clock was off the model's in 24
 * runs, three labs at once (each DNS client's schedule counted from its own
 * start, up to 32 ms from the traffic's, from which the model counts).
 */
#define CLOCKS_MODEL_TOL_NS (100 * 1000000LL)
#define CLOCKS_MODEL_WHY 320
#define CLOCKS_MODEL_NOTES 48

/* a predicted clock: its p5, p50, p95 and bounds over the model's draws
 * (seconds or counts), or why it is not modelled */
struct clocks_model_iv {
	int known;
	double p5, p50, p95, min, max;
	char why[CLOCKS_MODEL_WHY];
};

/* the clocks the model predicts, in clocks.json's order */
enum clocks_model_clock {
	CLOCKS_MODEL_DETECT,
	CLOCKS_MODEL_STEER,
	CLOCKS_MODEL_WINDOW,
	CLOCKS_MODEL_LAST_P50,
	CLOCKS_MODEL_LAST_P99,
	CLOCKS_MODEL_LAST_MAX,
	CLOCKS_MODEL_LOST_CLIENT,  /* the model's lost requests, */
	CLOCKS_MODEL_LOST_CAPTURE, /* for each of the two counts */
	CLOCKS_MODEL_ERRORS,	   /* TCP and HTTP clients' failed requests */
	CLOCKS_MODEL_DOWNTIME,	   /* the budget's equivalent_downtime_s */
	CLOCKS_MODEL_BUDGET_SHARE, /* budget_share_downtime */
	CLOCKS_MODEL_UPSTREAM,	   /* dns only */
	CLOCKS_MODEL_UPSTREAM_PER_S,
	/* the fail-back's, seconds after the recovery (clocks.json's failback) */
	CLOCKS_MODEL_FB_HEALTHY,
	CLOCKS_MODEL_FB_STEER,
	CLOCKS_MODEL_FB_FIRST,
	CLOCKS_MODEL_FB_LAST,
	CLOCKS_MODEL_CLOCKS
};

/* clocks_model_fb: c is one of the fail-back's */
#define clocks_model_fb(c) ((c) >= CLOCKS_MODEL_FB_HEALTHY && (c) <= CLOCKS_MODEL_FB_LAST)

/* the clocks of the table and the verdict, in their order: the label of
 * the clocks' table, and the unit (1: seconds, 0: a count) */
struct clocks_model_row {
	const char *label;
	enum clocks_model_clock c;
	int seconds;
};
extern const struct clocks_model_row clocks_model_rows[];
extern const int clocks_model_nrows;

struct clocks_model_client {
	uint32_t id; /* the client id of its flow of the scheme (lib/wire.h) */
	char name[CLOCKS_NAME_MAX];
	double rate_per_s;
	struct clocks_model_iv last; /* its last packet to the failed site */
};

struct clocks_model_scheme {
	int present; /* the model has clients of the scheme */
	int tcp;     /* of them TCP or HTTP clients (the errors row) */
	int clients;
	double rate_per_s;
	struct clocks_model_iv clock[CLOCKS_MODEL_CLOCKS];
	/* dns: the upstream queries were the traffic CLOCKS_MODEL_TOL_NS
	 * shorter or longer (a cache's fill at its very end counted or not):
	 * the count's tolerance */
	double upstream_lo, upstream_hi;
	int nclients;
	struct clocks_model_client client[CLOCKS_MAX_CLIENTS];
};

/*
 * The steady state of the steering beside the steering table (docs/clocks.md,
 * "Steering"; docs/model.md, "Steady state: shares, deviation, distance"):
 * per scheme and per name, each site's share, the deviation, the mean RTT per
 * request and a name's upstream queries over the model's draws of the order
 * of the fills (clocks_model_steer.c). A measured share or deviation outside
 * the draws' bounds widened by CLOCKS_MODEL_STEER_TOL, or a name's upstream
 * queries outside theirs widened by the fills within CLOCKS_MODEL_TOL_NS of
 * the period's end and one more, is model_disagrees. The RTT is shown, not
 * judged: the hosts' and the delay line's own time add to every request, and
 * the verdict's impairment_mismatch judges that.
 */
#define CLOCKS_MODEL_STEER_TOL 0.01
#define CLOCKS_MODEL_STEER_SITES 16
#define CLOCKS_MODEL_STEER_ROWS 18

struct clocks_model_steer_row {
	int scheme;			/* enum clocks_scheme: anycast or dns */
	char name[CLOCKS_DNS_NAME_MAX]; /* a name's row; "" a scheme's */
	int known;
	char why[CLOCKS_MODEL_WHY];
	const char *policy; /* a name's, static */
	double requests;
	int nsites;
	char site[CLOCKS_MODEL_STEER_SITES][CLOCKS_NAME_MAX];
	struct clocks_model_iv share[CLOCKS_MODEL_STEER_SITES];
	int has_target;
	struct clocks_model_iv deviation, rtt_ms;
	struct clocks_model_iv upstream; /* a name's; not known: why in its why */
	double upstream_tol;
	json_t *json; /* the row as `steerlab model --json` writes it */
};

struct clocks_model_steer {
	int known; /* 0: none, and why */
	char why[CLOCKS_MODEL_WHY];
	double period_s; /* from the traffic's start */
	unsigned samples;
	int nrows;
	struct clocks_model_steer_row rows[CLOCKS_MODEL_STEER_ROWS];
	json_t *notes; /* {"assumptions": [...], "not_modelled": [...]} */
};

/* the model of a later failure of the timeline (clocks_model_fail.c):
 * detect, steer, window, the last packet's max, lost by the clients and at
 * the site, per scheme, beside the row of clocks_multi's table and in
 * clocks.json's failures; the earlier failures modelled settled */
enum clocks_model_fail_clock {
	CLOCKS_MF_DETECT,
	CLOCKS_MF_STEER,
	CLOCKS_MF_WINDOW,
	CLOCKS_MF_LAST_MAX,
	CLOCKS_MF_LOST_CLIENT,
	CLOCKS_MF_LOST_CAPTURE,
	CLOCKS_MF_CLOCKS
};
#define CLOCKS_MODEL_FAILURES 16

struct clocks_model_failure {
	int known; /* 0: not modelled, and why */
	char why[CLOCKS_MODEL_WHY];
	double t0_s; /* from the start of the traffic: the run's */
	int present[CLOCKS_NSCHEMES];
	double rate_per_s[CLOCKS_NSCHEMES];
	struct clocks_model_iv clock[CLOCKS_NSCHEMES][CLOCKS_MF_CLOCKS];
};

struct clocks_model {
	int known;			      /* 0: no model of the run, and why */
	char why[CLOCKS_WARNING_LEN];	      /* "" when known */
	double t0_s;			      /* the failure from the start of the traffic */
	double recover_s;		      /* its recovery's, after t0; < 0: none */
	double duration_s;		      /* of the traffic */
	double slo_pct, budget_s;	      /* of the budget share */
	unsigned samples;		      /* the model's draws */
	int nnotes;			      /* its assumptions, and what it leaves out */
	int not_modelled[CLOCKS_MODEL_NOTES]; /* 1: a limit, 0: an assumption */
	char note[CLOCKS_MODEL_NOTES][CLOCKS_MODEL_WHY];
	struct clocks_model_scheme s[CLOCKS_NSCHEMES]; /* anycast, dns */
	void *input;			 /* the model's input (clocks_model.c), for the decay */
	struct clocks_model_steer steer; /* a steady state's too */
	/* the timeline's later failures, by in->failures' index (0 unused) */
	int nfailures;
	struct clocks_model_failure failure[CLOCKS_MODEL_FAILURES];
	/* the authorities side by side (clocks_auths.h), when the DNS
	 * clients' names are served by several [dns] nodes: each one's detect
	 * and steer as the model of the lab with every DNS client asking it */
	int nauth;
	struct clocks_model_auth {
		char node[CLOCKS_NAME_MAX];
		struct clocks_model_iv detect, steer;
	} auth[CLOCKS_MODEL_FAILURES];
};

/* clocks_model_iv_json: {p5, p50, p95, min, max}, or null if not known */
json_t *clocks_model_iv_json(const struct clocks_model_iv *v);

/* clocks_model_failures_prepare: the model of each failure of in after the
 * first (its site's, the nearest in time of the topology's), at the run's
 * t0 of it, into m->failure (clocks_model_fail.c) */
struct topology;
void clocks_model_failures_prepare(const struct topology *t, const struct clocks_input *in,
				   struct clocks_model *m);

/* clocks_model_failure_row: the model's row under failure i's measured row r
 * of scheme index k in the table "every failure of the timeline" (each
 * clock's p50; the ones outside the model's bounds widened by the
 * tolerance named after it); clocks_model_failure_json: the same as
 * clocks.json's failures[i].schemes.SCHEME.model, NULL if none */
struct clocks_result;
void clocks_model_failure_row(FILE *out, const struct clocks_input *in, int i, int k,
			      const struct clocks_result *r);
json_t *clocks_model_failure_json(const struct clocks_input *in, int i, int k,
				  const struct clocks_result *r);

/* clocks_model_prepare: the model of the run in rundir (its topology.ini,
 * and in's failure instant and traffic time) into in->model, for a budget
 * at slo_pct; a run without a model (a steady state, no topology.ini, one
 * the loader refuses, a timeline the model cannot read) gets known 0 and
 * why. Out of memory leaves in->model NULL. Freed by clocks_input_free. */
void clocks_model_prepare(const char *rundir, struct clocks_input *in, double slo_pct);
void clocks_model_free(struct clocks_model *m);

/* clocks_model_decay: in's model's share of scheme i's requests sent to
 * the failed site in each bucket (k w, (k + 1) w] after t0 into
 * share[0..n), w = bucket_ns; -1 for a bucket after the traffic, or from
 * the timeline's next step on (the model knows the first failure alone).
 * 0, or -1 if the model has no curve of the scheme. */
int clocks_model_decay(const struct clocks_input *in, int i, int64_t bucket_ns, size_t n,
		       double *share);

/* clocks_model_measured: the measured value of clock c of result r in the
 * model's unit (seconds, counts) into *v, *lb 1 if it is a lower bound
 * (window_cut). 0, or -1 when the run did not measure it. */
int clocks_model_measured(const struct clocks_input *in, const struct clocks_result *r,
			  enum clocks_model_clock c, double *v, int *lb);

/* clocks_model_tolerance: the tolerance of clock c of scheme i (seconds,
 * or a count) */
double clocks_model_tolerance(const struct clocks_model *m, int i, enum clocks_model_clock c);

/* clocks_model_judge: whether measured v (a lower bound if lb) of clock c
 * of scheme i agrees with in's model: WITHIN its bounds widened by the
 * tolerance, or OUTSIDE them; or not judged: UNKNOWN (not modelled),
 * LOWER_BOUND (v is one, below the bounds' top), LATER_STEP (a step of the
 * timeline after the failure, a recovery or another failure, came before
 * the model's clock could end, or within the traffic for a count of the
 * whole run (lost_client, the budget's, the upstream queries): the model
 * knows the first failure alone) */
enum clocks_model_judgement {
	CLOCKS_MODEL_WITHIN,
	CLOCKS_MODEL_OUTSIDE,
	CLOCKS_MODEL_UNKNOWN,
	CLOCKS_MODEL_LOWER_BOUND,
	CLOCKS_MODEL_LATER_STEP,
};
int clocks_model_judge(const struct clocks_input *in, int i, enum clocks_model_clock c, double v,
		       int lb);

/* clocks_model_table: the model beside the measurement, a row per scheme
 * and modelled clock of the table (scheme, clock, measured, model p50
 * (p5-p95), measured - p50, judged), into t (texttable_init'ed here);
 * clocks_model_print: the same for the terminal under a title, then what is
 * not modelled; nothing for a run without a model */
void clocks_model_table(const struct clocks_input *in, const struct clocks_result *res, int nres,
			struct texttable *t);
void clocks_model_print(FILE *out, const struct clocks_input *in, const struct clocks_result *res,
			int nres);

/* clocks_model_json: scheme i's "model" object (r its result), with the keys of its
 * measured clocks (each an interval {p5, p50, p95, min, max} or null, and
 * "not_modelled" with the reasons), or null; clocks_model_json_run: the
 * run's top-level "model" (how it was made, its notes, or why there is
 * none). NULL: out of memory. */
json_t *clocks_model_json(const struct clocks_input *in, const struct clocks_result *r, int i);
json_t *clocks_model_json_run(const struct clocks_input *in);

/* clocks_model_steer_prepare: m->steer from the run's loaded topology t
 * (clocks_model.c), over in->steering's period (clocks_model_steer.c) */
struct topology;
void clocks_model_steer_prepare(const struct topology *t, const struct clocks_input *in,
				struct clocks_model *m);
void clocks_model_steer_free(struct clocks_model_steer *s);

/* clocks_model_steer_row: the model's row of scheme sc and name ("" or
 * NULL: the scheme's), or NULL */
const struct clocks_model_steer_row *clocks_model_steer_row(const struct clocks_input *in, int sc,
							    const char *name);

/* clocks_model_steer_share: row w's share of site, NULL if not modelled */
const struct clocks_model_iv *clocks_model_steer_share(const struct clocks_model_steer_row *w,
						       const char *site);

/* clocks_model_steer_judge: measured v of iv (a share or deviation when
 * tol < 0: CLOCKS_MODEL_STEER_TOL) within its bounds widened by tol:
 * CLOCKS_MODEL_WITHIN, CLOCKS_MODEL_OUTSIDE, or CLOCKS_MODEL_UNKNOWN */
int clocks_model_steer_judge(const struct clocks_model_iv *iv, double v, double tol);

/* clocks_model_steer_outside: measured total t of the steering table
 * (a scheme's or a name's) against the model's row (into *w, NULL if none):
 * how many of its shares, its deviation and its upstream queries lie outside
 * the model's bounds widened by their tolerance, said in text and, when
 * keys is not NULL, their keys appended to it ("share.b34", "deviation",
 * "upstream_queries"); -1 if the row is not modelled */
struct clocks_steer_total;
int clocks_model_steer_outside(const struct clocks_input *in, const struct clocks_steer_total *t,
			       const struct clocks_model_steer_row **w, char *text, size_t len,
			       json_t *keys);

/* clocks_model_steer_print_row: the model's row under total t of the
 * steering table, on the terminal or in Markdown (md), nothing without one;
 * clocks_model_steer_print_notes: how the rows were made, the intervals of
 * what varies, what disagrees, and in Markdown what the model assumes and
 * leaves out (clocks_model_steer_write.c) */
void clocks_model_steer_print_row(FILE *out, const struct clocks_input *in,
				  const struct clocks_steer_total *t, int md);
void clocks_model_steer_print_notes(FILE *out, const struct clocks_input *in, int md);

/* clocks_model_steer_json: the steering's own "model" (how it was made, its
 * assumptions and limits, or why there is none); NULL without a model */
json_t *clocks_model_steer_json(const struct clocks_input *in);

/* clocks_model_verdict: model_disagrees into v, a warning per scheme and
 * clock of the table outside the model's bounds widened by the tolerance
 * (verdict_model.c) */
void clocks_model_verdict(const struct clocks_input *in, const struct clocks_result *res, int nres,
			  struct clocks_notes *v);

#endif
