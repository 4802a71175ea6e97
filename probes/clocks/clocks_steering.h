/*
 * Steering quality (clocks_steering.c; docs/clocks.md, "Steering"): per
 * scheme and per client node, each site's share of the requests the site
 * links captured, the deviation from the target shares (half the L1
 * distance, seed 000's), the RTT per request and the DNS resolution time
 * from the clients' records, and the upstream queries on the authd links;
 * over the whole traffic of a steady-state run, before t0 in a failure run.
 */
#ifndef STEERLAB_CLOCKS_STEERING_H
#define STEERLAB_CLOCKS_STEERING_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "clocks_input.h"
#include "clocks_result.h"

#define CLOCKS_STEER_SITES 16
#define CLOCKS_STEER_ROWS 64
/* steering_records: the records' shares further than this from the
 * captures' (half L1), with 100 ok records or more */
#define CLOCKS_STEER_AGREE 0.01

/* mean, p50 and p99 (nearest rank) of n values; CLOCKS_NONE when n = 0 */
struct clocks_steer_dist {
	int64_t n, mean_ns, p50_ns, p99_ns;
};

/* one client node's requests of one scheme */
struct clocks_steer_row {
	int scheme; /* enum clocks_scheme: anycast or dns */
	char group[CLOCKS_NAME_MAX];
	char name[CLOCKS_DNS_NAME_MAX];	      /* dns: the name the node asks; "" unknown */
	int64_t captured[CLOCKS_STEER_SITES]; /* requests captured at each site */
	int64_t answered[CLOCKS_STEER_SITES]; /* clients' ok records from each site */
	int64_t ncaptured, nanswered;
	double share[CLOCKS_STEER_SITES];  /* captured / ncaptured */
	double target[CLOCKS_STEER_SITES]; /* when has_target */
	int has_target;
	char target_from[192]; /* where the target comes from, or why there is none */
	double deviation;      /* sum |share - target| / 2; -1: no target */
	double disagreement;   /* the same between captured and answered shares; -1: no records */
	struct clocks_steer_dist rtt;	     /* ok records' RTT */
	struct clocks_steer_dist resolution; /* dns_resolution's latency (answers) */
	/* the node's queries to a [resolver] node's caches in its link's
	 * capture, query to answer: a hit (no upstream answer reached the
	 * cache between) and a miss (one did); n = 0: no such capture */
	struct clocks_steer_dist cache_hit, cache_miss;
};

/* a scheme's requests over all its client nodes, or over those asking
 * one name: seed 000's row (its share of all requests against the target,
 * the rows' targets weighted by their requests, and the mean RTT per
 * request, its "distance") */
struct clocks_steer_total {
	int scheme;
	char name[CLOCKS_DNS_NAME_MAX]; /* a name's total; "" a scheme's */
	int64_t n;
	double share[CLOCKS_STEER_SITES], target[CLOCKS_STEER_SITES];
	int has_target;		    /* every row with requests has one */
	double deviation;	    /* -1: no target */
	int64_t rtt_n, rtt_mean_ns; /* the rows' ok records; CLOCKS_NONE: none */
	/* a name's: the queries for it captured on the authd links in the
	 * period; CLOCKS_NONE: no such capture (a scheme's: upstream_queries) */
	int64_t upstream;
};

#define CLOCKS_STEER_NAMES 16

struct clocks_steering {
	int64_t from_ns, until_ns; /* the period measured: [from, until) */
	int nsites;
	char sites[CLOCKS_STEER_SITES][CLOCKS_NAME_MAX];
	int nrows;
	struct clocks_steer_row rows[CLOCKS_STEER_ROWS];
	int lost_rows;			    /* past CLOCKS_STEER_ROWS */
	struct clocks_steer_total total[3]; /* by enum clocks_scheme */
	/* the dns scheme's total per name, when its groups ask more than one
	 * (seed 000's row per policy, the names side by side) */
	int nnames;
	struct clocks_steer_total names[CLOCKS_STEER_NAMES];
	/* DNS queries captured on the authd links in the period; CLOCKS_NONE:
	 * no such capture */
	int64_t upstream_queries;
};

/* clocks_steer_deviation: half the L1 distance of two share vectors */
double clocks_steer_deviation(const double *share, const double *target, int n);

/* clocks_steer_dist: the distribution of the n values v (sorted here) */
void clocks_steer_dist(struct clocks_steer_dist *d, int64_t *v, size_t n);

/* clocks_steer_node: the client node that sent client id's requests ("" if
 * no client_started said) */
const char *clocks_steer_node(const struct clocks_input *in, uint32_t client);

/* clocks_steer_name_of: the [name] that client node group asks (its name
 * key; without one the [lab]'s dns_name, or the only [name] if the
 * topology has one), or NULL; its name in name ("" if not known) */
const struct clocks_topo_name *clocks_steer_name_of(const struct clocks_input *in,
						    const char *group, char *name, size_t len);

/* clocks_steer_dname_eq: a and b are one DNS name in text (case and a
 * final dot aside); "" is none */
int clocks_steer_dname_eq(const char *a, const char *b);

/* clocks_steer_totals: s->total, and s->names, from s->rows */
void clocks_steer_totals(struct clocks_steering *s);

/* clocks_steering: s from in (and res[0], the anycast result, for the FIB
 * the anycast targets come from; NULL: none). Returns 0, or -1 out of
 * memory. */
int clocks_steering(const struct clocks_input *in, const struct clocks_result *anycast,
		    struct clocks_steering *s);

/* clocks_steering_prepare: in->steering computed once for the writers */
void clocks_steering_prepare(struct clocks_input *in, const struct clocks_result *anycast);

/* clocks_steering_print: the table shaped like seed 000's, one line per
 * scheme and client node */
void clocks_steering_print(FILE *out, const struct clocks_input *in);

/* clocks_steering_md: the same as a Markdown table, and each row's target */
void clocks_steering_md(FILE *out, const struct clocks_input *in);

/* clocks_steering_json: clocks.json's "steering" object; NULL when
 * in->steering is */
json_t *clocks_steering_json(const struct clocks_input *in);

#endif
