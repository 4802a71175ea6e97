/*
 * What held each scheme at the dead site (clocks_explain.c; docs/clocks.md,
 * "Explain"): each request to the dead site after t0 given the cause that
 * held its client there when it was sent, and who; each scheme's window
 * held by its last request's; the scheme that left first, in words.
 * Computed within the decay's pass.
 */
#ifndef STEERLAB_CLOCKS_EXPLAIN_H
#define STEERLAB_CLOCKS_EXPLAIN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "clocks_base.h"
#include "clocks_input.h"
#include "clocks_result.h"

struct clocks_decay;

/* the causes that hold a client at the dead site (clocks_explain.c) */
enum clocks_cause {
	CLOCKS_CAUSE_DETECT,
	CLOCKS_CAUSE_HOLD,
	CLOCKS_CAUSE_ROUTING,
	CLOCKS_CAUSE_RESOLVER,
	CLOCKS_CAUSE_STALE,
	CLOCKS_CAUSE_CLIENT,
	CLOCKS_CAUSE_STICKY,
	CLOCKS_CAUSE_NOANSWER,
	CLOCKS_CAUSE_OTHER,
	CLOCKS_CAUSES,
};

#define CLOCKS_EXPLAIN_MAX 64 /* (cause, who) per scheme; more are "other" */

struct clocks_cause_entry {
	enum clocks_cause cause;
	char who[CLOCKS_NAME_MAX];
	int64_t requests;	   /* to the dead site after t0 */
	int64_t first_ns, last_ns; /* after t0; CLOCKS_NONE: none */
	int untold;		   /* other: the client's dns_answer events are not in the run */
};

struct clocks_explain_map; /* clocks_explain.c's: each client's causes in time */

struct clocks_explain_scheme {
	int present; /* the scheme has flows and a capture of the site */
	int n;
	struct clocks_cause_entry e[CLOCKS_EXPLAIN_MAX];
	int64_t window_ns, lost;
	int held;	    /* the entry of the window's request; -1: none */
	int64_t without_ns; /* the latest request of any other entry; CLOCKS_NONE: none */
	int64_t detect_ns;  /* the scheme's detect, for the words; CLOCKS_NONE */
	struct clocks_explain_map *map;
};

#define CLOCKS_EXPLAIN_WORDS 8
#define CLOCKS_EXPLAIN_LINE 512

struct clocks_explain {
	struct clocks_explain_scheme s[CLOCKS_NSCHEMES];
	int first;	/* the scheme that left the site first (index); -1: not told */
	int tie;	/* both left within a millisecond */
	int64_t by_ns;	/* how much sooner */
	int back_first; /* after a recovery, the scheme back first; -1 */
	int64_t back_by_ns;
	int nwords;
	char words[CLOCKS_EXPLAIN_WORDS][CLOCKS_EXPLAIN_LINE]; /* the verdict, a line each */
	const struct clocks_decay *decay; /* the curves it was computed with (by cause) */
	int64_t recovered_ns;		  /* after t0; CLOCKS_NONE: not recovered */
};

extern const char *const clocks_cause_names[CLOCKS_CAUSES];
extern const char *const clocks_cause_labels[CLOCKS_CAUSES];

/* clocks_explain_init: the causes of in's clients in time, from the
 * schemes' results res[0..nres) (anycast, dns) into *ex. 0, or -1 (out of
 * memory). Free with clocks_explain_free either way. */
int clocks_explain_init(const struct clocks_input *in, const struct clocks_result *res, int nres,
			struct clocks_explain *ex);
void clocks_explain_free(struct clocks_explain *ex);

/* clocks_decay_explain: clocks_decay, each request to the dead site also
 * given its cause in ex (from clocks_explain_init): its counts, and d's
 * per-cause curves; then the verdict in words (ex->words). */
int clocks_decay_explain(const struct clocks_input *in, int64_t bucket_ns, struct clocks_decay *d,
			 struct clocks_explain *ex, const struct clocks_result *res, int nres,
			 char *err, size_t errlen);

/* clocks_steer_ttl_s: the TTL in seconds of the name whose answer changed
 * at the DNS steer (dns, its result), from topology.ini's [name]; -1 if
 * unknown */
int64_t clocks_steer_ttl_s(const struct clocks_input *in, const struct clocks_result *dns);

/* clocks_explain_print: the words, then a table of the causes: scheme,
 * cause, who, requests, first and last after t0 */
void clocks_explain_print(FILE *out, const struct clocks_input *in,
			  const struct clocks_explain *ex);

#endif
