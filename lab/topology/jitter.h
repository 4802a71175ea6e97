/*
 * Jittered event instants and the seeds they come from (docs/repeat.md).
 *
 * A failure scheduled at a nominal instant always falls at the same phase
 * of the probers' cycle, so repeated runs of one topology give the same
 * detection time to a few milliseconds. `fail_jitter = W` moves each event
 * to an instant drawn uniformly from [at, at + W): the window opens at the
 * nominal instant rather than around it, so `fail_at` stays the earliest
 * the failure can happen and `fail_at + fail_jitter` its latest. Set W to
 * the probe interval and repeated runs sample every probe phase once over.
 *
 * The draw is a pure function of (seed, event index): the same seed gives
 * the same instants on any machine, so a run is reproduced with
 * `--set seed=N`. The generator is SplitMix64 (Steele, Lea and Flood,
 * "Fast splittable pseudorandom number generators", OOPSLA 2014) applied
 * twice, once to the seed and once to that mixed with the event's index,
 * which decorrelates events and neighbouring seeds. A seed is a whole
 * number from 0 to 2^32 - 1, short enough to type and exact in any JSON
 * reader; a run without one draws it from getrandom(2) and records it.
 *
 * A repetition of `steerlab run --repeat N` has a seed of its own, derived
 * from the repeat's seed and its number (jitter_rep_seed), so the whole
 * repeat is reproduced from one number and each repetition alone from its
 * own.
 */
#ifndef STEERLAB_JITTER_H
#define STEERLAB_JITTER_H

#include <stdint.h>

#define JITTER_SEED_MAX UINT32_MAX

/* jitter_offset_ns: where event `index` (0 for today's single failure,
 * then the timeline's events in order) falls in a window of window_ns
 * for seed: a value in [0, window_ns), uniform; 0 if window_ns <= 0. */
int64_t jitter_offset_ns(int64_t window_ns, uint32_t seed, unsigned index);

/* jitter_instant_ns: the actual instant of an event nominally at at_ns:
 * at_ns + jitter_offset_ns(window_ns, seed, index). */
int64_t jitter_instant_ns(int64_t at_ns, int64_t window_ns, uint32_t seed, unsigned index);

/* jitter_rep_seed: the seed of repetition rep (1, 2, ...) of a repeat
 * whose seed is base. */
uint32_t jitter_rep_seed(uint32_t base, unsigned rep);

/* jitter_random_seed: a seed from getrandom(2) into *seed. 0, or -1 with
 * errno set. */
int jitter_random_seed(uint32_t *seed);

#endif
