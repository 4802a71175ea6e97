/* The agents' cheap random numbers; see rng.h. */
#include "rng.h"

#include <sys/random.h>
#include <unistd.h>

#include "timeutil.h"

#define RNG_NONZERO 0x9e3779b97f4a7c15ULL

uint64_t rng_next(uint64_t *state)
{
	uint64_t x = *state ? *state : RNG_NONZERO;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x ? x : RNG_NONZERO;
	return x * 0x2545f4914f6cdd1dULL;
}

uint64_t rng_seed(void)
{
	uint64_t s;

	if (getrandom(&s, sizeof(s), GRND_NONBLOCK) != sizeof(s))
		s = (uint64_t)now_real_ns() ^ ((uint64_t)getpid() << 32);
	return s ? s : RNG_NONZERO;
}
