/*
 * The DNS outage clocks (clocks_outage.c; docs/clocks.md, "DNS outage
 * clocks"): per dns-down and resolver-down of the timeline and per
 * resolver, the clients' resolutions by outcome, in buckets of
 * CLOCKS_OUTAGE_BUCKET_NS from the outage and in total while it lasted.
 */
#ifndef STEERLAB_CLOCKS_OUTAGE_H
#define STEERLAB_CLOCKS_OUTAGE_H

#include <stdint.h>

#include "clocks_input.h"

#define CLOCKS_MAX_OUTAGES 8
#define CLOCKS_MAX_OUTAGE_RESOLVERS 16
#define CLOCKS_OUTAGE_BUCKET_NS 1000000000LL
#define CLOCKS_OUTAGE_BUCKETS 120

/* a resolution that took this long or more was slow: its first server
 * did not answer and its resolver asked another (resolverd's timeout is
 * 500 ms), or it waited on an outage */
#define CLOCKS_OUTAGE_SLOW_NS (100 * 1000000LL)

struct clocks_outage_resolver {
	char resolver[CLOCKS_NAME_MAX]; /* "" when the clients did not say */
	int64_t during[CLOCKS_DNS_OUTCOMES];
	/* while it lasted: the resolutions answered CLOCKS_OUTAGE_SLOW_NS or
	 * more after their query, and the slowest answered one (0: none) */
	int64_t slow, slowest_ns;
	int64_t b[CLOCKS_OUTAGE_BUCKETS][CLOCKS_DNS_OUTCOMES];
};

struct clocks_outage {
	char name[CLOCKS_NAME_MAX];
	char action[CLOCKS_NAME_MAX];
	char target[2 * CLOCKS_NAME_MAX];
	int64_t from_ns, until_ns; /* until: CLOCKS_NONE, not over before the end */
	int nbuckets;		   /* from from_ns to the end of the observation */
	int nresolvers;
	struct clocks_outage_resolver r[CLOCKS_MAX_OUTAGE_RESOLVERS];
};

struct clocks_outages {
	int n;
	struct clocks_outage o[CLOCKS_MAX_OUTAGES];
};

extern const char *const clocks_dns_outcome_names[CLOCKS_DNS_OUTCOMES];

/* clocks_outages: the DNS outage clocks of in into *out (a large struct:
 * allocate it); pure computation */
void clocks_outages(const struct clocks_input *in, struct clocks_outages *out);

#endif
