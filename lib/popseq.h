/*
 * The sequences a population's logical clients are spread by (docs/agents.md,
 * "Populations"): the client agent lays its clients out with them, and the
 * analysis and the model (probes/model/model_steer_topo.c) read the same
 * layout back instead of working it out again. Each is the fractional part
 * of j times an irrational (a Kronecker sequence), which spreads any first k
 * clients evenly; the three irrationals differ so that the send phase, the
 * first hold and the cache of a client are independent of one another.
 */
#ifndef STEERLAB_POPSEQ_H
#define STEERLAB_POPSEQ_H

#include <stdint.h>

/* pop_phase: client j's send phase in [0, 1): frac(j x the golden ratio's
 * (sqrt(5) - 1) / 2) */
double pop_phase(uint32_t j);

/* pop_hold_phase: client j's phase of its first DNS hold, in [0, 1):
 * frac(j (sqrt(2) - 1)); it holds the first answer (1 - this) of a whole
 * hold. Independent of pop_phase: were it the same, the sticky clients
 * still holding an answer late would all be the ones that send early in
 * each second */
double pop_hold_phase(uint32_t j);

/* pop_sticky: whether client j is sticky at share q (0 <= q <= 1):
 * floor((j + 1) q) > floor(j q), spread evenly */
int pop_sticky(uint32_t j, double q);

/* pop_resolver_point: client j's point in [0, 1) for a weighted choice of
 * resolver: frac(j (sqrt(3) - 1)), a sequence independent of the send and
 * hold phases, so the clients of one resolver do not all send early in the
 * second or expire first */
double pop_resolver_point(uint32_t j);

/* pop_resolver_of: the resolver (0 .. n - 1) client j asks: with weights w
 * (n of them; NULL: in turn, j mod n) the one whose share of [0, 1) holds
 * pop_resolver_point(j) */
int pop_resolver_of(const double *w, int n, uint32_t j);

#endif
