/*
 * xorshift64* (Vigna, "An experimental exploration of Marsaglia's xorshift
 * generators, scrambled", 2016): the agents' draws that need to be
 * unpredictable enough for a lab (DNS query ids, a weighted pick, a
 * shuffle) and cheap, with no system call per draw. Not for secrets.
 */
#ifndef STEERLAB_RNG_H
#define STEERLAB_RNG_H

#include <stdint.h>

/* rng_next: the next number of the generator whose state is *state (never
 * 0; a 0 state is replaced by a fixed one) */
uint64_t rng_next(uint64_t *state);

/* rng_seed: a state from getrandom, or, without it, from the clock and the
 * process id; never 0 */
uint64_t rng_seed(void);

#endif
