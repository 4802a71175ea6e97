/*
 * Seed 000's name-layer model (../shared/seeds/000_b77c620cc6e702da.txt,
 * name/model.mjs), ported rule for rule: its tables are this file's unit
 * tests (tests/unit/test_model_seed.c). See model.h.
 */
#include "model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const model_s0_zone_name[MODEL_S0_ZONES] = {"b34", "b35", "b06"};
const char *const model_s0_policy_name[3] = {"geolocation", "latency-based", "weighted"};
const double model_s0_weight[MODEL_S0_ZONES] = {0.5, 0.3, 0.2};

/* DISTANCE[group][zone], in the seed's abstract unit */
static const int s0_distance[MODEL_S0_GROUPS][MODEL_S0_ZONES] = {
    {1, 3, 2},
    {3, 1, 2},
    {2, 4, 1},
    {2, 3, 4},
};
/* the coarse hand-written table, and its fallback per zone */
static const int s0_geolocation[MODEL_S0_GROUPS] = {MODEL_S0_B34, MODEL_S0_B35, MODEL_S0_B34,
						    MODEL_S0_B06};
static const int s0_fallback[MODEL_S0_ZONES] = {MODEL_S0_B06, MODEL_S0_B34, MODEL_S0_B35};
/* the weighted policy's pattern: 5 b34, 3 b35, 2 b06 */
static const int s0_pattern[10] = {MODEL_S0_B34, MODEL_S0_B35, MODEL_S0_B06, MODEL_S0_B34,
				   MODEL_S0_B35, MODEL_S0_B34, MODEL_S0_B35, MODEL_S0_B06,
				   MODEL_S0_B34, MODEL_S0_B34};

struct s0_frac {
	double frac;
	int j;
};

/* by fractional part, largest first; equal ones in index order, as the
 * seed's stable sort leaves them */
static int s0_frac_cmp(const void *a, const void *b)
{
	const struct s0_frac *x = a, *y = b;

	if (x->frac != y->frac)
		return x->frac < y->frac ? 1 : -1;
	return x->j - y->j;
}

void model_s0_requests(int req[MODEL_S0_RESOLVERS])
{
	struct s0_frac f[MODEL_S0_RESOLVERS];
	double raw[MODEL_S0_RESOLVERS], total = 0;
	int sum = 0;

	for (int j = 0; j < MODEL_S0_RESOLVERS; j++) {
		raw[j] = 1.0 / (j + 1);
		total += raw[j]; /* left to right, as reduce adds */
	}
	for (int j = 0; j < MODEL_S0_RESOLVERS; j++) {
		double x = (raw[j] / total) * MODEL_S0_RPS;

		req[j] = (int)floor(x);
		sum += req[j];
		f[j].frac = fmod(x, 1.0);
		f[j].j = j;
	}
	qsort(f, MODEL_S0_RESOLVERS, sizeof(f[0]), s0_frac_cmp);
	for (int i = 0; i < MODEL_S0_RPS - sum && i < MODEL_S0_RESOLVERS; i++)
		req[f[i].j]++;
}

void model_s0_equal_requests(int req[MODEL_S0_RESOLVERS])
{
	for (int j = 0; j < MODEL_S0_RESOLVERS; j++)
		req[j] = j < 34 ? 13 : 12;
}

struct s0_state {
	int policy, outage_start, pattern_index;
};

static int s0_is_down(const struct s0_state *s, int b, long t)
{
	return s->outage_start >= 0 && b == MODEL_S0_B34 && t >= s->outage_start;
}

static int s0_is_detected(const struct s0_state *s, int b, long t)
{
	return s0_is_down(s, b, t) && t >= s->outage_start + MODEL_S0_DETECTION;
}

/* s0_authoritative: the zone the authoritative server answers group with
 * at second t */
static int s0_authoritative(struct s0_state *s, int group, long t)
{
	if (s->policy == MODEL_S0_GEOLOCATION) {
		int b = s0_geolocation[group];

		return s0_is_detected(s, b, t) ? s0_fallback[b] : b;
	}
	if (s->policy == MODEL_S0_LATENCY) {
		int best = -1;

		/* reduce over the live zones in order: a later zone wins only
		 * when strictly closer */
		for (int b = 0; b < MODEL_S0_ZONES; b++) {
			if (s0_is_detected(s, b, t))
				continue;
			if (best < 0 || s0_distance[group][b] < s0_distance[group][best])
				best = b;
		}
		return best;
	}
	for (int k = 0; k < 10; k++) { /* weighted: the next live zone of the pattern */
		int b = s0_pattern[(s->pattern_index + k) % 10];

		if (!s0_is_detected(s, b, t)) {
			s->pattern_index = (s->pattern_index + k + 1) % 10;
			return b;
		}
	}
	return -1;
}

int model_s0_run(int policy, int ttl, int outage_start, int duration,
		 const int req[MODEL_S0_RESOLVERS], struct model_s0_result *r)
{
	struct s0_state s = {.policy = policy, .outage_start = outage_start};
	long long zone_requests[MODEL_S0_ZONES] = {0};
	long expires[MODEL_S0_RESOLVERS];
	int bound[MODEL_S0_RESOLVERS];

	if (ttl <= 0 || duration <= 0)
		return -1;
	memset(r, 0, sizeof(*r));
	/* warm-up: the cache phases spread, counting from t >= 1 */
	for (int j = 0; j < MODEL_S0_RESOLVERS; j++) {
		expires[j] = 1 - ttl + (j * 13) % ttl;
		bound[j] = -1;
	}
	for (long t = 1 - ttl; t <= duration; t++) {
		for (int j = 0; j < MODEL_S0_RESOLVERS; j++) {
			int group = j % MODEL_S0_GROUPS, target;

			if (t >= expires[j]) { /* expired: asks the authoritative server */
				bound[j] = s0_authoritative(&s, group, t);
				expires[j] = t + ttl;
				if (t >= 1)
					r->upstream++;
			}
			if (t < 1)
				continue;
			target = bound[j];
			if (s0_is_down(&s, target, t)) {
				r->dropped += req[j];
				r->window = (int)(t - outage_start + 1);
				continue;
			}
			r->accepted += req[j];
			r->distance += (long long)req[j] * s0_distance[group][target];
			zone_requests[target] += req[j];
		}
	}
	r->deviation = 0;
	for (int b = 0; b < MODEL_S0_ZONES; b++) {
		r->share[b] = r->accepted ? (double)zone_requests[b] / (double)r->accepted : 0;
		r->deviation += fabs(r->share[b] - model_s0_weight[b]);
	}
	r->deviation /= 2;
	r->unit_distance = r->accepted ? (double)r->distance / (double)r->accepted : 0;
	return 0;
}
