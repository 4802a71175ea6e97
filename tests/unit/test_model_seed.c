/*
 * The seeds' printed tables, line for line, from the model module
 * (probes/model): seed 000's three policies at TTL 300, its weighted TTL
 * sweep, its equal-shares sensitivity line and its failover table (window,
 * dropped requests, equivalent downtime, budget share, upstream queries per
 * TTL); seed 002's decay table and its totals; seed 004's worked example
 * (checks every 30 s, three failures, TTL 60 s: about 90 s to detect, up to
 * about 150 s until clients move). Each line is computed by the model and
 * printed in the seed's own format, then compared with the seed's published
 * text (../shared/seeds/000_b77c620cc6e702da.txt, 002_54385d33805160d4.txt,
 * 004_1b3505181d711c16.txt).
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

/* seed 000: name/policy.mjs's header and its three policies */
static void test_s0_policies(void **state)
{
	static const char *const want[] = {
	    "geolocation     | %57.6 %25.3 %17.1 |     0.076 |         1.710 |            480",
	    "latency-based   | %55.1 %25.3 %19.6 |     0.051 |         1.171 |            480",
	    "weighted        | %50.6 %27.8 %21.6 |     0.022 |         2.144 |            480",
	};
	int req[MODEL_S0_RESOLVERS], sum = 0;
	char line[256], cell[16];

	(void)state;
	model_s0_requests(req);
	for (int j = 0; j < MODEL_S0_RESOLVERS; j++)
		sum += req[j];
	assert_int_equal(sum, MODEL_S0_RPS);
	snprintf(line, sizeof(line),
		 "3600 s, 514 requests/s, TTL 300 s, largest resolver's share %%%.2f",
		 (double)req[0] / MODEL_S0_RPS * 100);
	assert_string_equal(line,
			    "3600 s, 514 requests/s, TTL 300 s, largest resolver's share %23.35");
	for (int p = 0; p < 3; p++) {
		struct model_s0_result r;
		size_t n;

		assert_int_equal(model_s0_run(p, 300, -1, 3600, req, &r), 0);
		n = (size_t)snprintf(line, sizeof(line), "%-15s |", model_s0_policy_name[p]);
		for (int b = 0; b < MODEL_S0_ZONES; b++) {
			snprintf(cell, sizeof(cell), "%%%.1f", r.share[b] * 100);
			n += (size_t)snprintf(line + n, sizeof(line) - n, "%6s", cell);
		}
		snprintf(line + n, sizeof(line) - n, " | %9.3f | %13.3f | %14lld", r.deviation,
			 r.unit_distance, r.upstream);
		assert_string_equal(line, want[p]);
	}
}

/* seed 000: the weighted policy's TTL sweep, and equal shares */
static void test_s0_ttl_sweep(void **state)
{
	static const char *const want[] = {
	    "weighted, ttl  30 s -> deviation 0.082, upstream query 4800",
	    "weighted, ttl  60 s -> deviation 0.195, upstream query 2400",
	    "weighted, ttl 300 s -> deviation 0.022, upstream query  480",
	    "weighted, ttl 900 s -> deviation 0.037, upstream query  160",
	};
	static const int ttls[] = {30, 60, 300, 900};
	int req[MODEL_S0_RESOLVERS];
	struct model_s0_result r;
	char line[256];

	(void)state;
	model_s0_requests(req);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(model_s0_run(MODEL_S0_WEIGHTED, ttls[i], -1, 3600, req, &r), 0);
		snprintf(line, sizeof(line),
			 "weighted, ttl %3d s -> deviation %.3f, upstream query %4lld", ttls[i],
			 r.deviation, r.upstream);
		assert_string_equal(line, want[i]);
	}
	model_s0_equal_requests(req);
	assert_int_equal(model_s0_run(MODEL_S0_WEIGHTED, 300, -1, 3600, req, &r), 0);
	snprintf(line, sizeof(line), "T4 sensitivity: with equal shares (ttl %d) deviation %.3f",
		 300, r.deviation);
	assert_string_equal(line, "T4 sensitivity: with equal shares (ttl 300) deviation 0.000");
	/* not by accident: the harmonic shares are what makes it deviate */
	assert_true(r.deviation < 0.0005);
}

/* seed 000: name/failover.mjs, b34 down at second 100 */
static void test_s0_failover(void **state)
{
	static const char *const want[] = {
	    " 30 |   39 s |        6666 |          12.97 s |         %0.50 |            1600",
	    " 60 |   69 s |        9486 |          18.46 s |         %0.71 |             800",
	    "300 |  305 s |       57906 |         112.66 s |         %4.35 |             160",
	    "900 |  905 s |      190206 |         370.05 s |        %14.28 |              64",
	};
	static const int ttls[] = {30, 60, 300, 900};
	const double budget = (1 - 99.9 / 100) * 30 * 24 * 3600, k01 = 1541.67;
	int req[MODEL_S0_RESOLVERS];
	struct model_s0_result r;
	char line[256], cell[32];

	(void)state;
	model_s0_requests(req);
	snprintf(line, sizeof(line), "monthly downtime budget = %.1f min (99.9%%)", budget / 60);
	assert_string_equal(line, "monthly downtime budget = 43.2 min (99.9%)");
	assert_true(fabs(model_budget_s(99.9) - budget) < 1e-9);
	for (int i = 0; i < 4; i++) {
		double eq;

		assert_int_equal(model_s0_run(MODEL_S0_GEOLOCATION, ttls[i], 100, 1200, req, &r),
				 0);
		eq = (double)r.dropped / MODEL_S0_RPS;
		snprintf(cell, sizeof(cell), "%%%.2f", eq / budget * 100);
		snprintf(line, sizeof(line), "%3d | %4d s | %11lld | %14.2f s | %13s | %15lld",
			 ttls[i], r.window, r.dropped, eq, cell, r.upstream);
		assert_string_equal(line, want[i]);
	}
	assert_int_equal(model_s0_run(MODEL_S0_GEOLOCATION, 300, 100, 1200, req, &r), 0);
	snprintf(line, sizeof(line),
		 "ttl 300: window %d s, equivalent downtime %.2f s -> %%%.1f of the window's "
		 "traffic was dropped",
		 r.window, (double)r.dropped / MODEL_S0_RPS,
		 (double)r.dropped / (r.window * MODEL_S0_RPS) * 100);
	assert_string_equal(line, "ttl 300: window 305 s, equivalent downtime 112.66 s -> %36.9 of "
				  "the window's traffic was dropped");
	snprintf(line, sizeof(line),
		 "K01's active-passive failover dropped %.2f requests in 3 s; this failover drops "
		 "%.1f times that",
		 k01, (double)r.dropped / k01);
	assert_string_equal(line, "K01's active-passive failover dropped 1541.67 requests in 3 s; "
				  "this failover drops 37.6 times that");
}

/* thousands: n rounded, with commas, as Python's {:,.0f} */
static const char *thousands(double n, char *buf, size_t len)
{
	char digits[32];
	size_t nd, o = 0;

	snprintf(digits, sizeof(digits), "%.0f", n);
	nd = strlen(digits);
	for (size_t i = 0; i < nd && o + 2 < len; i++) {
		if (i > 0 && (nd - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
	return buf;
}

/* seed 002: the decay table, its totals and the query load */
static void test_s2_decay(void **state)
{
	static const char *const want[] = {
	    "   after     TTL 30 s    TTL 300 s   TTL 3600 s",
	    "    15 s       100.0%       100.0%       100.0%",
	    "    30 s       100.0%       100.0%       100.0%",
	    "    45 s        51.0%        95.1%        99.6%",
	    "   1 min         2.0%        90.2%        99.2%",
	    "   2 min         1.9%        70.5%        97.5%",
	    "   5 min         1.7%        11.5%        92.5%",
	    "  10 min         1.4%         1.4%        84.2%",
	    "  30 min         0.0%         0.0%        50.8%",
	    "  60 min         0.0%         0.0%         0.8%",
	    "requests sent to the failed region in all         126,400      391,000    3,661,000",
	    "queries a second at the DNS servers                   667           67            6",
	};
	static const int ttls[] = {30, 300, 3600},
			 after[] = {15, 30, 45, 60, 120, 300, 600, 1800, 3600};
	const struct model_decay d = {.detect_s = 30, .sticky_share = 0.02, .sticky_s = 1800};
	char line[256], cell[32], num[32];
	size_t n;
	int w = 0;

	(void)state;
	n = (size_t)snprintf(line, sizeof(line), "%8s", "after");
	for (int i = 0; i < 3; i++) {
		snprintf(cell, sizeof(cell), "TTL %d s", ttls[i]);
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%13s", cell);
	}
	assert_string_equal(line, want[w++]);
	for (int a = 0; a < 9; a++) {
		if (after[a] % 60 == 0)
			snprintf(cell, sizeof(cell), "%d min", after[a] / 60);
		else
			snprintf(cell, sizeof(cell), "%d s", after[a]);
		n = (size_t)snprintf(line, sizeof(line), "%8s", cell);
		for (int i = 0; i < 3; i++) {
			snprintf(cell, sizeof(cell), "%.1f%%",
				 model_decay_still_sent(&d, after[a], ttls[i]) * 100);
			n += (size_t)snprintf(line + n, sizeof(line) - n, "%13s", cell);
		}
		assert_string_equal(line, want[w++]);
	}
	n = (size_t)snprintf(line, sizeof(line), "%-44s",
			     "requests sent to the failed region in all");
	for (int i = 0; i < 3; i++)
		n += (size_t)snprintf(
		    line + n, sizeof(line) - n, "%13s",
		    thousands(model_decay_failed_requests(&d, ttls[i], 4 * 3600, 2000), num,
			      sizeof(num)));
	assert_string_equal(line, want[w++]);
	n = (size_t)snprintf(line, sizeof(line), "%-44s", "queries a second at the DNS servers");
	for (int i = 0; i < 3; i++)
		n +=
		    (size_t)snprintf(line + n, sizeof(line) - n, "%13s",
				     thousands(model_query_rate(20000, ttls[i]), num, sizeof(num)));
	assert_string_equal(line, want[w++]);
}

/*
 * seed 004's worked example: a check every 30 s, three failures in a row,
 * TTL 60 s: "90 s" to declare the site down (30 s x 3, the worst phase), a
 * TTL-honouring resolver stops handing out the old address "<= 150 s" after
 * the fault. The lab's model with one such prober and one cache, the
 * failure at every phase of the cache's cycle (fail_jitter = one TTL).
 */
static void test_s4_worked_example(void **state)
{
	const struct model_probe p = {.interval_s = 30, .fail_s = 0, .down = 3};
	struct model_input *in = calloc(1, sizeof(*in));
	struct model_result *r = calloc(1, sizeof(*r));
	const struct model_scheme_result *dns = &r->s[MODEL_DNS];

	(void)state;
	assert_non_null(in);
	assert_non_null(r);
	assert_true(fabs(model_detect_max(&p) - 90) < 1e-9);
	assert_true(fabs(model_detect_min(&p) - 60) < 1e-9);
	assert_true(fabs(model_detect_quantile(&p, 1, 1, 0.5) - 75) < 1e-6);
	/* Route 53's checkers: unhealthy when 18 % or fewer see it healthy */
	assert_int_equal(model_quorum_needed(8, 0.18), 7);
	assert_int_equal(model_quorum_needed(16, 0.18), 14);

	in->dns_present = 1;
	in->nprobers = 1;
	in->probers[0] = p;
	in->quorum = 0.5;
	in->ttl_s = 60;
	in->fail_at_s = 600;
	in->fail_jitter_s = 60;
	in->duration_s = 1200;
	in->slo_pct = 99.9;
	in->ncaches = 1;
	in->caches[0] = (struct model_cache){.name = "r1", .ttl_s = 60, .phase_s = 0};
	in->nclients = 1;
	in->clients[0] = (struct model_client){
	    .name = "c1", .scheme = MODEL_DNS, .rate_per_s = 10, .to_failed = 1, .cache = 0};
	in->samples = 4000;
	in->seed = MODEL_SEED;
	/* the seed's failure: at any instant of the check cycle and of the
	 * cache's TTL, independently (the lab's probers are set at the
	 * traffic's start: free_phases 0) */
	in->free_phases = 1;
	assert_int_equal(model_lab(in, r), 0);
	assert_true(dns->detect.known && dns->window.known);
	assert_true(dns->detect.max <= 90 && dns->detect.max > 89.9);
	assert_true(dns->detect.min >= 60 && dns->detect.min < 60.1);
	/* up to about 150 s until the client moves, and never before detect */
	/* (its draws' greatest: the failure just after an expiry, the check
	 * cycle's worst phase, both near their ends at once) */
	assert_true(dns->window.max <= 150 && dns->window.max > 145);
	assert_true(dns->window.min >= 60);
	assert_true(dns->window.p50 > 100 && dns->window.p50 < 110);
	/* its requests in the window are lost: rate x window */
	assert_true(fabs(dns->lost.p50 - 10 * dns->window.p50) < 1e-6);
	/* one query per TTL from the start, the first fill included */
	assert_true(fabs(dns->upstream_queries.p50 - 20) < 1e-9);
	free(in);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_s0_policies),	      cmocka_unit_test(test_s0_ttl_sweep),
	    cmocka_unit_test(test_s0_failover),	      cmocka_unit_test(test_s2_decay),
	    cmocka_unit_test(test_s4_worked_example),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
