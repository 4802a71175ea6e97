/*
 * The verdict (verdict.c, verdict_loss.c, verdict_health.c, verdict_route.c;
 * docs/clocks.md, "The verdict"): the self-checks of a loaded run and its
 * schemes' results, with no I/O. Each finding is a coded note, invalidating
 * or not; the run is valid when no note of the input, of a result or of
 * the verdict invalidates it.
 */
#ifndef STEERLAB_VERDICT_H
#define STEERLAB_VERDICT_H

#include "clocks_base.h"
#include "clocks_input.h"
#include "clocks_result.h"

#define CLOCKS_LOSS_SHARE 0.01	/* loss_mismatch: 1 % of the larger count */
#define CLOCKS_LOSS_ABS 10	/* ... and more than this many requests */
#define CLOCKS_RATE_BEHIND 0.02 /* client_behind: more than 2 % behind */
/* client_stalled: a gap in a client's sends around t0 or its switch of
 * more than this many of its request intervals, and more than this long */
#define CLOCKS_GAP_INTERVALS 2.0
#define CLOCKS_GAP_MIN_NS 100000000LL
#define CLOCKS_CUT_GUARD_NS 100000000LL /* window_cut: at least 100 ms */

/* clocks_verdict: the self-checks of in and the schemes' results
 * res[0..nres) into *v */
void clocks_verdict(const struct clocks_input *in, const struct clocks_result *res, int nres,
		    struct clocks_notes *v);

/* clocks_warnings: every note of v (may be NULL), in and the schemes
 * present in res, the invalidating ones first, each once, as pointers
 * into them: at most max in out, the others counted in *lost. The count. */
#define CLOCKS_MAX_SCHEMES 4
#define CLOCKS_MAX_LIST ((2 + CLOCKS_MAX_SCHEMES) * CLOCKS_MAX_WARNINGS)
int clocks_warnings(const struct clocks_input *in, const struct clocks_result *res, int nres,
		    const struct clocks_notes *v, const struct clocks_warning **out, int max,
		    int *lost);

/* clocks_valid: no note of in, res[0..nres) or v (may be NULL) invalidates */
int clocks_valid(const struct clocks_input *in, const struct clocks_result *res, int nres,
		 const struct clocks_notes *v);

#endif
