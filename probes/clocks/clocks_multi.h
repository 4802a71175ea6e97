/*
 * Every failure of the timeline (clocks_multi.c; docs/clocks.md, "Every
 * failure"): each one's clocks per scheme, from its own t0 to its site's
 * recovery, computed by the schemes' functions on a copy of the input
 * whose failure is that one.
 */
#ifndef STEERLAB_CLOCKS_MULTI_H
#define STEERLAB_CLOCKS_MULTI_H

#include <stdio.h>

#include "clocks_input.h"
#include "clocks_result.h"

#define CLOCKS_MAX_FAILURES 16

struct clocks_failure_clocks {
	const struct clocks_failure *f;
	struct clocks_result res[2]; /* anycast, dns */
};

struct clocks_multi {
	int n;
	int lost; /* failures past CLOCKS_MAX_FAILURES */
	struct clocks_failure_clocks fc[CLOCKS_MAX_FAILURES];
};

/* clocks_multi: the clocks of every failure of in into *m (a large struct:
 * allocate it); pure computation. 0, or -1 (out of memory). Free with
 * clocks_multi_free. */
int clocks_multi(const struct clocks_input *in, struct clocks_multi *m);
void clocks_multi_free(struct clocks_multi *m);

/* clocks_multi_prepare: with several failures, their clocks computed once
 * into in->multi (freed by clocks_input_free), for every later reader: each
 * is a full pass of both schemes over the captures. Call it once the input
 * is loaded and before the verdict. Nothing for a single failure (its clocks
 * are the run's), nor when out of memory (each reader computes its own). */
void clocks_multi_prepare(struct clocks_input *in);

/* clocks_multi_print: the table "every failure of the timeline", when the
 * run has more than one failure */
void clocks_multi_print(FILE *out, const struct clocks_input *in, const struct clocks_multi *m);

#endif
