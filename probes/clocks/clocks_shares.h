/*
 * Weights that change (clocks_shares.c; docs/clocks.md, "Weights that
 * change"): for each weighted [name] whose weights the timeline moved
 * (authd's zone_changed, set-weight), each site's share of the requests
 * of the DNS clients asking it, per second of the traffic, beside the
 * shares its weights meant then; and per period between two changes, the
 * shares over the period and from one TTL after its change on (what the
 * caches had caught up with), with their deviation from the weights.
 * The requests are the site links' captures', as the steering's.
 */
#ifndef STEERLAB_CLOCKS_SHARES_H
#define STEERLAB_CLOCKS_SHARES_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "clocks_input.h"
#include "clocks_steering.h"

#define CLOCKS_SHARES_NAMES 8
#define CLOCKS_SHARES_PERIODS 32
/* changes of one name closer than this are one change (a canary's two
 * set-weight lines at one instant) */
#define CLOCKS_SHARES_BURST_NS 100000000LL

struct clocks_shares_period {
	int64_t from_ns, until_ns;	   /* absolute */
	double weight[CLOCKS_STEER_SITES]; /* the weights in force, as shares */
	int64_t ttl_s;			   /* the name's TTL in force at from (-1 unknown) */
	int64_t n, settled_n;		   /* requests: the period's; from one TTL on */
	double share[CLOCKS_STEER_SITES], settled[CLOCKS_STEER_SITES];
	double deviation, settled_deviation; /* half L1 from the weights; -1: no request */
};

struct clocks_shares_name {
	char name[CLOCKS_DNS_NAME_MAX];
	int nsites; /* its weighted sites, in the [name]'s order */
	char sites[CLOCKS_STEER_SITES][CLOCKS_NAME_MAX];
	int64_t *count; /* nbuckets x nsites: requests captured at each site */
	int64_t *total; /* nbuckets: its clients' requests captured at any site */
	double *weight; /* nbuckets x nsites: the weights' shares at the bucket's middle */
	int nperiods;
	struct clocks_shares_period periods[CLOCKS_SHARES_PERIODS];
};

struct clocks_shares {
	int64_t start_ns;  /* bucket k holds [start + k s, start + (k + 1) s) */
	int64_t bucket_ns; /* 1 s */
	size_t nbuckets;
	int nnames;
	struct clocks_shares_name names[CLOCKS_SHARES_NAMES];
};

/* clocks_shares: s from in. 1 if a weighted name's weights changed (s
 * filled; free with clocks_shares_free), 0 if none did, -1 out of
 * memory. */
int clocks_shares(const struct clocks_input *in, struct clocks_shares *s);
void clocks_shares_free(struct clocks_shares *s);

/* clocks_shares_prepare: in->shares computed once for the writers */
void clocks_shares_prepare(struct clocks_input *in);

/* clocks_shares_print: one line per name and period (nothing without
 * in->shares); clocks_shares_md: the same as a Markdown table;
 * clocks_shares_json: clocks.json's "weights" object, NULL without. */
void clocks_shares_print(FILE *out, const struct clocks_input *in);
void clocks_shares_md(FILE *out, const struct clocks_input *in);
json_t *clocks_shares_json(const struct clocks_input *in);

#endif
