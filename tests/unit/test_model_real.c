/*
 * The model through real resolvers (probes/model/model_dns.c, dns_expiry;
 * docs/model.md, "Real resolvers"), on topology/real-resolvers.ini (TTL 2
 * s, site a killed 2 s into the traffic, the probers' verdict 0.25 s after
 * t0, one client per resolver), worked out by hand. unbound and kresd keep
 * an entry fetched in wall second s until second s + 2 ends, answering TTL
 * 0 after its 2 s, the client asking every 0.1 s then; bind9 drops it as
 * second s + 2 begins, before the client's own 2 s copy expires. With the
 * wall clock at w of a second as the traffic starts, the first fill (at 0)
 * lives to 3 - w: w = 0.248, the client's query at 2.8 fetches b's address
 * (after the steer at 2.25): 0.8 s after t0; w = 0.65, at 2.4: 0.4 s;
 * w = 0.9, the fetch at 2.1 comes before the steer and holds a until the
 * next, 2.1 + 3: 3.1 s (measured: 0.803 and 0.402 via unbound and kresd,
 * 2.004 and 2.003 via bind9).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model.h"
#include "topology.h"

static struct topology topo;
static struct model_input in;
static struct model_result res;
static struct model_notes notes;

static void load(char *const sets[], int nsets)
{
	char err[512];

	assert_int_equal(topo_load(&topo, "topology/real-resolvers.ini", sets, nsets, stderr), 0);
	assert_int_equal(model_from_topology(&topo, &in, &notes, err, sizeof(err)), 0);
}

/* client c's (cu, ck, cb: 0, 1, 2) last request's p50 */
static double last(int c)
{
	assert_true(res.s[MODEL_DNS].client_last[c].known);
	return res.s[MODEL_DNS].client_last[c].p50;
}

static void test_whole_seconds(void **state)
{
	static const double wall[] = {0.248, 0.65, 0.9}, whole[] = {0.8, 0.4, 3.1};

	(void)state;
	load(NULL, 0);
	assert_int_equal(in.ncaches, 3);
	assert_int_equal(in.caches[0].whole, 1);  /* unbound */
	assert_int_equal(in.caches[1].whole, 1);  /* kresd */
	assert_int_equal(in.caches[2].whole, -1); /* bind9 */
	/* the outage at 5.5 s comes after every client moved */
	assert_int_equal(in.dns_sim, 0);
	assert_false(in.dns_limit[0]);
	for (size_t k = 0; k < sizeof(wall) / sizeof(wall[0]); k++) {
		in.wall_known = 1;
		in.wall_s = wall[k];
		assert_int_equal(model_lab(&in, &res), 0);
		if (fabs(last(0) - whole[k]) > 1e-6 || fabs(last(1) - whole[k]) > 1e-6)
			fail_msg("wall %.3f: unbound %.6f, kresd %.6f, expected %.3f", wall[k],
				 last(0), last(1), whole[k]);
		assert_true(fabs(last(2) - 2.0) < 1e-6);
	}
	/* the wall clock drawn: from 0.3 (w just under 0.75) to 3.2 (w 0.8) */
	in.wall_known = 0;
	assert_int_equal(model_lab(&in, &res), 0);
	assert_true(res.s[MODEL_DNS].client_last[0].min >= 0.3 - 1e-6);
	assert_true(res.s[MODEL_DNS].client_last[0].max <= 3.2 + 1e-6);
	assert_true(res.s[MODEL_DNS].client_last[0].max > 3.0);
	assert_true(fabs(res.s[MODEL_DNS].client_last[2].max - 2.0) < 1e-6);
	/* their upstream queries are their own */
	assert_false(res.s[MODEL_DNS].upstream_queries.known);
}

/* an outage before the clients moved: their own timers, not modelled */
static void test_early_outage(void **state)
{
	char *sets[] = {"out.at=3s"};

	(void)state;
	load(sets, 1);
	assert_int_equal(model_lab(&in, &res), 0);
	assert_true(res.s[MODEL_DNS].detect.known);
	assert_false(res.s[MODEL_DNS].window.known);
	assert_non_null(strstr(res.s[MODEL_DNS].window.why, "before its clients moved"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_whole_seconds),
	    cmocka_unit_test(test_early_outage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
