/*
 * Inverse design (docs/model.md, "Inverse design"): the settings that meet
 * a target on the model's clocks, and what each costs.
 *
 * `steerlab model FILE --target 'dns.window<=30s' --vary ttl=5..300,...`
 * models the topology at every point of a grid of --set values, keeps the
 * points whose clocks meet every target, and ranks them cheapest first.
 * The pure parts are here, no I/O: a target (SCHEME.CLOCK[.STAT] OP VALUE,
 * the clock named as in the model's JSON, the statistic of its interval
 * p95 unless named), a varied key (KEY=LO..HI[:N] or KEY=V1,V2,...) and its
 * values, a point's costs (upstream DNS queries a second, probes a second)
 * and the ranking. lab/cli/cmd_design.c loads each point and models it.
 *
 * Files: model_target.c (targets), model_vary.c (the grid), model_design.c
 * (costs, ranking), model_design_write.c (the table and the JSON).
 */
#ifndef STEERLAB_MODEL_DESIGN_H
#define STEERLAB_MODEL_DESIGN_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "model.h"

#define DESIGN_MAX_TARGETS 8
#define DESIGN_MAX_KEYS 4
#define DESIGN_MAX_VALUES 64
#define DESIGN_MAX_POINTS 2000
#define DESIGN_KEY_MAX 64
#define DESIGN_VALUE_MAX 32
#define DESIGN_TEXT_MAX 128
/* the traffic of a design runs a day: no client's last packet is cut at
 * the lab's duration, and the first fills' queries are spread over it */
#define DESIGN_HORIZON_S 86400.0

enum design_op { DESIGN_LE, DESIGN_LT, DESIGN_GE, DESIGN_GT };

/* the statistic of a clock's interval a target compares (model_iv) */
enum design_stat { DESIGN_P5, DESIGN_P50, DESIGN_P95, DESIGN_MIN, DESIGN_MAX };

/* what a clock counts, and so how a target's value is read */
enum design_unit {
	DESIGN_SECONDS,	 /* a duration: 30s, 500ms, 2m; a bare number is seconds */
	DESIGN_COUNT,	 /* requests, queries */
	DESIGN_FRACTION, /* of the budget: 0.05, or 5% */
	DESIGN_RATE,	 /* a second: 2.5, or 2.5/s */
};

/* A target on one clock of one scheme: its statistic OP value. */
struct design_target {
	int scheme; /* enum model_scheme */
	int clock;  /* design_clock_name's index */
	int stat;   /* enum design_stat */
	int op;	    /* enum design_op */
	double value;
	char text[DESIGN_TEXT_MAX]; /* "dns.window p95 <= 30 s" */
};

/* design_clock_count: how many clocks a target may name; design_clock_name:
 * clock i's name (detect, steer, window, last_p50, ...), design_clock_unit
 * its unit, design_clock_iv its interval in scheme result sr */
int design_clock_count(void);
const char *design_clock_name(int i);
int design_clock_unit(int i);
const struct model_iv *design_clock_iv(int i, const struct model_scheme_result *sr);

/* design_stat_name: "p5", "p50", "p95", "min", "max" */
const char *design_stat_name(int stat);

/*
 * design_targets_parse: the targets of one --target option, spec, comma-
 * separated ("dns.window<=30s,dns.lost.p50<1000"), appended to t[*n..max).
 * A target is SCHEME.CLOCK[.STAT] OP VALUE: SCHEME anycast or dns, CLOCK a
 * name of the model's JSON or table (window, window_s, last_p99, "last
 * packet p99", equivalent_downtime, ...), STAT p5, p50, p95 (the default),
 * min or max, OP <=, <, >= or >, VALUE in the clock's unit. 0, or -1 with
 * "--target 'SPEC': what was expected" in err.
 */
int design_targets_parse(const char *spec, struct design_target *t, int *n, int max, char *err,
			 size_t errlen);

/*
 * design_target_check: target t against the model's result r. 1 if met, 0
 * if not, with the statistic in *got; -1 if the clock is not modelled
 * there (the scheme absent, or the model's reason), with why in *why.
 * Compared to a nanosecond's (1e-9 relative) tolerance.
 */
int design_target_check(const struct design_target *t, const struct model_result *r, double *got,
			const char **why);

/* design_target_meets: whether statistic x meets target t (to 1e-9
 * relative, as design_target_check) */
int design_target_meets(const struct design_target *t, double x);

/* design_op_name: "<=", "<", ">=", ">" */
const char *design_op_name(int op);

/* A varied key: its values, as --set takes them. */
enum design_series { DESIGN_LIST, DESIGN_EVERY, DESIGN_SERIES, DESIGN_STEPS };

struct design_vary {
	char key[DESIGN_KEY_MAX];
	char spec[DESIGN_TEXT_MAX]; /* KEY=... as given */
	int series;		    /* enum design_series: how the values were made */
	int n;
	char value[DESIGN_MAX_VALUES][DESIGN_VALUE_MAX];
	double x[DESIGN_MAX_VALUES]; /* as a number (seconds for durations), NAN if not one */
};

/*
 * design_vary_parse: the keys of one --vary option, opt, appended to
 * v[*n..max): KEY=LO..HI (the values LO, HI and, between them, the series
 * 1, 1.5, 2, 3, 5, 7 x 10^k; every whole number when both are whole and at
 * most 12 apart), KEY=LO..HI:N (N values log-spaced from LO to HI, to two
 * significant digits), KEY=V1,V2,... (a list, as written). Several keys
 * are separated by commas ("ttl=5..300,probe_interval=1s..30s"): an item
 * with '=' starts a key, one without is the list's next value. LO and HI
 * are numbers or durations (1s, 250ms), 0 < LO < HI. A key twice is
 * refused. 0, or -1 with "--vary 'OPT': what was expected" in err.
 */
int design_vary_parse(const char *opt, struct design_vary *v, int *n, int max, char *err,
		      size_t errlen);

/* design_series_text: how v's values were made, "the series 1, 1.5, 2, 3,
 * 5, 7 x 10^k from 5 to 300", into buf */
const char *design_series_text(const struct design_vary *v, char *buf, size_t len);

/* design_grid_size: the points of the grid of v[0..n) (the product of
 * their counts), or -1 if more than DESIGN_MAX_POINTS */
long design_grid_size(const struct design_vary *v, int n);

/* design_grid_point: the value index of each key at point i of the grid
 * (the last key varying fastest) into vi[0..n) */
void design_grid_point(const struct design_vary *v, int n, long i, int vi[]);

/* A point of the grid, modelled. */
struct design_point {
	long index;		  /* in the grid */
	int vi[DESIGN_MAX_KEYS];  /* each key's value index */
	int status;		  /* 1 meets every target, 0 misses one, -1 one is not modelled */
	int why_target;		  /* -1: the first target not modelled */
	char why[MODEL_NOTE_MAX]; /* and why */
	double got[DESIGN_MAX_TARGETS]; /* each target's statistic (NAN: not modelled) */
	/* each target's clock: p5, p50, p95, min, max (NAN: not modelled) */
	double iv[DESIGN_MAX_TARGETS][5];
	int dns;				  /* the lab has DNS clients */
	int upstream_known;			  /* dns: its upstream queries are modelled */
	double upstream_per_s;			  /* authd's queries a second */
	double probes_per_s, probes_remote_per_s; /* every prober's; the [prober] nodes' */
	unsigned samples;			  /* the draws it was modelled with */
};

/* design_input: in set for a design's point: the traffic runs at least
 * DESIGN_HORIZON_S, samples draws (0: MODEL_SAMPLES) */
void design_input(struct model_input *in, unsigned samples);

/* design_probes: the lab's probes a second into p: each [prober] node
 * probes every site once per its probe_interval (probes_remote_per_s), and
 * each site's own prober its service once per the site's */
struct topology;
void design_probes(const struct topology *t, struct design_point *p);

/* design_evaluate: the targets t[0..nt) and costs of point p from the
 * model's input in and result r (p->status, got, iv, upstream; not the
 * probes) */
void design_evaluate(const struct design_target *t, int nt, const struct model_input *in,
		     const struct model_result *r, struct design_point *p);

/*
 * design_rank: the points p[0..n) that meet (status 1) into order, cheapest
 * first: fewer upstream DNS queries a second (a lab without DNS clients
 * counts 0; one not modelled, last), then fewer probes a second, then the
 * first target's statistic, best first (lowest for <= and <, highest for
 * >= and >), then grid order. Their count.
 */
int design_rank(const struct design_point *p, int n, const struct design_target *t, int order[]);

/* What a design was asked, for its writers. */
struct design {
	const char *file;
	int ntargets;
	struct design_target targets[DESIGN_MAX_TARGETS];
	int nvary;
	struct design_vary vary[DESIGN_MAX_KEYS];
	long npoints;
	unsigned search_samples; /* the draws of the search */
	long nfull;		 /* fewer than MODEL_SAMPLES: the points modelled again with
				    them (design_near) */
	double duration_s;	 /* the lab's own, before the horizon */
	double seconds;		 /* the search's wall time, for the footer; < 0: not shown */
};

/* DESIGN_NEAR: a point that misses its targets by at most this share of
 * their values is near (design_near) */
#define DESIGN_NEAR 0.05

/* design_near: whether point p of d meets its targets, or misses each it
 * misses by at most DESIGN_NEAR of its value: a search with fewer draws
 * models it again with MODEL_SAMPLES */
int design_near(const struct design *d, const struct design_point *p);

/* design_print: the design's header (targets, grid, counts, the ranking's
 * rule) and the table of the ranked points order[0..nmeet), at most max
 * rows (0: all), for the lab modelled as in */
void design_print(const struct design *d, const struct model_input *in,
		  const struct design_point *p, const int order[], int nmeet, int max, FILE *out);

/* design_json: the same as JSON, every point: "meet" ranked, "miss" and
 * "not_modelled" in grid order. NULL: out of memory. */
json_t *design_json(const struct design *d, const struct model_input *in,
		    const struct design_point *p, const int order[], int nmeet);

#endif
