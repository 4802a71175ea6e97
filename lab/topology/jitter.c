/* Jittered event instants from a seed; see topology.h. */
#include "topology.h"

#include <errno.h>
#include <sys/random.h>

#define JITTER_GOLDEN 0x9e3779b97f4a7c15ull

/* jitter_mix: SplitMix64's output function of x + the golden gamma */
static uint64_t jitter_mix(uint64_t x)
{
	x += JITTER_GOLDEN;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

int64_t jitter_offset_ns(int64_t window_ns, uint32_t seed, unsigned index)
{
	uint64_t r;

	if (window_ns <= 0)
		return 0;
	r = jitter_mix(jitter_mix(seed) ^ ((uint64_t)index + 1) * JITTER_GOLDEN);
	/* the modulo's bias is window_ns / 2^64: under 1e-10 for a window
	 * of a second, under 5e-6 for a day (the longest duration) */
	return (int64_t)(r % (uint64_t)window_ns);
}

int64_t jitter_instant_ns(int64_t at_ns, int64_t window_ns, uint32_t seed, unsigned index)
{
	return at_ns + jitter_offset_ns(window_ns, seed, index);
}

uint32_t jitter_rep_seed(uint32_t base, unsigned rep)
{
	return (uint32_t)(jitter_mix(((uint64_t)base << 32) | rep) >> 32);
}

int jitter_random_seed(uint32_t *seed)
{
	ssize_t n;

	do
		n = getrandom(seed, sizeof(*seed), 0);
	while (n == -1 && errno == EINTR);
	if (n == (ssize_t)sizeof(*seed))
		return 0;
	if (n >= 0)
		errno = EIO;
	return -1;
}

int64_t topo_probe_offset_ns(const struct topology *t, int node)
{
	const struct topo_node *n = &t->nodes[node];

	if (n->probe_phase != TOPO_PROBE_PHASE_RANDOM || t->seed < 0)
		return 0;
	return jitter_offset_ns(n->probe_interval_ns, (uint32_t)t->seed,
				JITTER_PROBER_INDEX + (unsigned)node);
}
