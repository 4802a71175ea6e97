/*
 * A population's per-client clocks, summarised (clocks_pop.c; docs/clocks.md,
 * "Populations"): its logical clients' last request to the dead site after
 * t0, as quantiles, counts and the slowest CLOCKS_POP_SLOWEST named. A
 * process client is listed in clocks.json by its id; a population of
 * 10,000 is this instead: the summary is intended, not a loss.
 */
#ifndef STEERLAB_CLOCKS_POP_H
#define STEERLAB_CLOCKS_POP_H

#include <stddef.h>
#include <stdint.h>

#include "clocks_input.h"
#include "clocks_result.h"

#define CLOCKS_POP_SLOWEST 10
#define CLOCKS_MAX_POPS 64

struct clocks_pop {
	uint32_t base;		    /* WIRE_POP_ID(node, flow, 0): its agent's id */
	char node[CLOCKS_NAME_MAX]; /* from its agent's client_started; "" if unknown */
	int64_t clients, sent_after_t0, cut;
	/* nearest-rank quantiles over the logical clients (p999: 99.9 %) */
	int64_t p50_ns, p90_ns, p99_ns, p999_ns, max_ns;
	/* each a lower bound: a cut client's value is at or below it */
	int lb_p50, lb_p90, lb_p99, lb_p999, lb_max;
	int nslowest;
	struct clocks_client_last slowest[CLOCKS_POP_SLOWEST]; /* the largest first */
};

/* clocks_pops: summarise the populations among by[0..n) (sorted by client
 * id) into pops[0..max), node names from in's clients. The number of
 * populations (at most max; more are counted in *lost), or -1 when out of
 * memory. Pure computation. */
int clocks_pops(const struct clocks_input *in, const struct clocks_client_last *by, size_t n,
		struct clocks_pop *pops, int max, int *lost);

#endif
