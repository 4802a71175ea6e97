/*
 * The configured impairments against the measured paths (clocks_impair.c;
 * docs/clocks.md, "Impairments").
 */
#ifndef STEERLAB_CLOCKS_IMPAIR_H
#define STEERLAB_CLOCKS_IMPAIR_H

#include <stdint.h>

#include "clocks_base.h"
#include "clocks_input.h"

/* clocks_impair_measure: in's configured paths (in->impair) into out
 * (in->nimpair of them), each with its measure: the requests of the
 * client's flows (both schemes, a population's too) the site answered
 * (status ok) sent before t0, their RTT's p50, and mismatch when it
 * differs from the configured RTT by more than max(CLOCKS_IMPAIR_TOL_NS,
 * CLOCKS_IMPAIR_TOL_SHARE of it); a path configured at 0 is not judged.
 * 0, or -1 (out of memory). clocks_impair_verdict: impairment_mismatch
 * (invalidating) for each such path into v. */
int clocks_impair_measure(const struct clocks_input *in, struct clocks_impair_path *out);
void clocks_impair_verdict(const struct clocks_input *in, struct clocks_notes *v);

/* clocks_impair_loss: the requests of scheme's flows a configured loss
 * may explain: the 99 % upper bound of a binomial count, each request of
 * a client node drawn with the highest loss of its paths in force when it
 * was sent (an impair changes it); 0 when no path is lossy, INT64_MAX if
 * it cannot be computed (out of memory). */
int64_t clocks_impair_loss(const struct clocks_input *in, enum clocks_scheme scheme);

#endif
