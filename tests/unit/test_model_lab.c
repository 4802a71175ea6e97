/*
 * The lab's model (probes/model): the detect clock's exact distribution
 * (order statistics of the probers' phases) against the draws; quorum;
 * topology/compare.ini's predictions worked out by hand from its settings
 * (probes every 100 ms, three failures, TTL 2 s over four spread caches, a
 * client sticky for 8 s, the kill 3 s into the traffic), with static and
 * BGP routing; the limits said rather than guessed; the JSON's keys.
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

#define NEAR(x, want, tol) assert_true(fabs((x) - (want)) <= (tol))

/* load: topology/compare.ini with the overrides, modelled */
static void load(char *const sets[], int nsets)
{
	char err[512];

	assert_int_equal(topo_load(&topo, "topology/compare.ini", sets, nsets, stderr), 0);
	assert_int_equal(model_from_topology(&topo, &in, &notes, err, sizeof(err)), 0);
	assert_int_equal(model_lab(&in, &res), 0);
}

/* client_last: the p50 of the last packet of scheme s's client name */
static const struct model_iv *client_last(int s, const char *name)
{
	for (int j = 0; j < res.s[s].clients; j++)
		if (strcmp(in.clients[res.s[s].client_index[j]].name, name) == 0)
			return &res.s[s].client_last[j];
	fail_msg("no client %s", name);
	return NULL;
}

static void test_detect_exact(void **state)
{
	const struct model_probe p = {.interval_s = 0.1, .fail_s = 0.002, .down = 3};

	(void)state;
	NEAR(model_detect_min(&p), 0.202, 1e-12);
	NEAR(model_detect_max(&p), 0.302, 1e-12);
	/* one prober: uniform over one interval */
	NEAR(model_detect_quantile(&p, 1, 1, 0.05), 0.207, 1e-9);
	NEAR(model_detect_quantile(&p, 1, 1, 0.95), 0.297, 1e-9);
	/* the first of two: 1 - (1 - x)^2 = q */
	NEAR(model_detect_quantile(&p, 2, 1, 0.5), 0.202 + 0.1 * (1 - sqrt(0.5)), 1e-9);
	/* the last of two: x^2 = q */
	NEAR(model_detect_quantile(&p, 2, 2, 0.5), 0.202 + 0.1 * sqrt(0.5), 1e-9);
	NEAR(model_order_cdf(3, 2, 0.5), 0.5, 1e-12);
	assert_int_equal(model_quorum_needed(2, 0.5), 1);
	assert_int_equal(model_quorum_needed(3, 0.5), 2);
	assert_int_equal(model_quorum_needed(4, 0.5), 2);
	assert_int_equal(model_quorum_needed(3, 0), 3);
	assert_int_equal(model_quorum_needed(0, 0.5), 0);
}

/* the draws agree with the exact distribution: two probers, quorum 0.5 */
static void test_detect_draws(void **state)
{
	static struct model_input m;
	static struct model_result r;
	const struct model_probe p = {.interval_s = 1, .fail_s = 0, .down = 2};

	(void)state;
	m.dns_present = 1;
	m.nprobers = 2;
	m.probers[0] = m.probers[1] = p;
	m.quorum = 0.5;
	m.ttl_s = 10;
	m.duration_s = 100;
	m.fail_at_s = 50;
	m.slo_pct = 99.9;
	m.samples = 20000;
	m.seed = 7;
	assert_int_equal(model_lab(&m, &r), 0);
	NEAR(r.s[MODEL_DNS].detect.p5, model_detect_quantile(&p, 2, 1, 0.05), 0.01);
	NEAR(r.s[MODEL_DNS].detect.p50, model_detect_quantile(&p, 2, 1, 0.5), 0.01);
	NEAR(r.s[MODEL_DNS].detect.p95, model_detect_quantile(&p, 2, 1, 0.95), 0.01);
	/* quorum 0: both must say down, the later of the two */
	m.quorum = 0;
	assert_int_equal(model_lab(&m, &r), 0);
	NEAR(r.s[MODEL_DNS].detect.p50, model_detect_quantile(&p, 2, 2, 0.5), 0.01);
	/* started together (the lab's probers): in step, whatever the quorum */
	m.probers_in_phase = 1;
	assert_int_equal(model_lab(&m, &r), 0);
	NEAR(r.s[MODEL_DNS].detect.p50, model_detect_quantile(&p, 1, 1, 0.5), 0.01);
	NEAR(r.s[MODEL_DNS].detect.p95, model_detect_quantile(&p, 1, 1, 0.95), 0.01);
	m.quorum = 0.5;
	assert_int_equal(model_lab(&m, &r), 0);
	NEAR(r.s[MODEL_DNS].detect.p50, model_detect_quantile(&p, 1, 1, 0.5), 0.01);
	m.probers_in_phase = 0;
	/* no prober: never steered, said */
	m.nprobers = 0;
	assert_int_equal(model_lab(&m, &r), 0);
	assert_false(r.s[MODEL_DNS].detect.known);
	assert_non_null(strstr(r.s[MODEL_DNS].window.why, "prober"));
}

/* model_draw_in_phase: one offset of the failure from the probers' start
 * gives each its phase: the time to its next probe over its interval.
 * Probers of one interval share it; one of a third of the interval is in
 * step with it, a third of a cycle at a time; a static announcement's last
 * refresh, on the site's prober's timer, came the rest of a cycle before */
static void test_in_phase(void **state)
{
	static struct model_input m;
	struct model_draw d = {0};

	(void)state;
	m.site_probe.interval_s = 0.3;
	m.static_refresh_s = 0.9;
	m.nprobers = 3;
	m.probers[0].interval_s = m.probers[1].interval_s = 0.3;
	m.probers[2].interval_s = 0.1;
	for (int k = 0; k < 100; k++) {
		double off;

		d.u_site = (k + 0.37) / 100;
		off = d.u_site * 0.9 * 4096;
		model_draw_in_phase(&m, &d);
		NEAR(d.u_site, 1 - fmod(off, 0.3) / 0.3, 1e-6);
		NEAR(d.u_probers[0], d.u_site, 1e-12);
		NEAR(d.u_probers[1], d.u_site, 1e-12);
		NEAR(d.u_probers[2], 1 - fmod(off, 0.1) / 0.1, 1e-6);
		NEAR(d.u_refresh, fmod(off, 0.9) / 0.9, 1e-6);
		assert_true(d.u_site > 0 && d.u_site <= 1);
	}
}

/*
 * compare.ini, routing = static. Anycast: a's prober, 100 ms, 3 refused
 * probes: detect uniform in [0.2, 0.3), the route gone at once, c1 and c2
 * (2000 + 500 /s) on a until then. DNS: caches r1..r4 fill at 0 with
 * phases 0, 1/4, 1/2, 3/4 of TTL 2: r1 expires at 2, 4, ..., r2 at 1.5,
 * 3.5, ...; the kill at 3, authd's answer changes about 0.23 s later: c1
 * (r1) leaves at 4 (1 s after t0), c2 (r2) at 3.5 (0.5 s); c3, sticky 8 s
 * on r3, resolves at 8 (5 s after t0). Lost 2000 x 1 + 500 x 0.5 + 200 x
 * 5 = 3250. Upstream: r1 fills at 0, 2, 4, 6, 8 (5), r2 at 0, 1.5, ...,
 * 9.5 (6), r3 only when c3 asks with its entry expired: 0 and 8 (2); and
 * each of the three, iterating, asks the root and tld once at its first
 * fill (6): 19 (measured: 7, 8 and 4 from r1, r2, r3).
 */
static void test_compare_static(void **state)
{
	char *sets[] = {"routing=static"};
	const struct model_scheme_result *any = &res.s[MODEL_ANYCAST], *dns = &res.s[MODEL_DNS];

	(void)state;
	load(sets, 1);
	assert_true(any->present && dns->present);
	assert_true(any->detect.known && any->steer.known && any->window.known);
	NEAR(any->detect.p50, 0.25, 0.005);
	NEAR(any->detect.p5, 0.205, 0.003);
	NEAR(any->detect.p95, 0.295, 0.003);
	assert_true(any->detect.min >= 0.2 && any->detect.max < 0.3);
	NEAR(any->steer.p50, any->detect.p50, 1e-12);
	NEAR(any->window.p50, any->detect.p50, 1e-12);
	NEAR(any->rate_per_s, 2500, 1e-9);
	NEAR(any->lost.p50, 2500 * any->window.p50, 1e-6);
	NEAR(any->equivalent_downtime.p50, any->window.p50, 1e-9);
	assert_false(any->upstream_queries.known);

	/* two [prober]s, quorum 0.5: the first verdict; the lab starts both
	 * together, so they probe in step and the first is either's: one
	 * prober's uniform phase, not the least of two (measured: the first
	 * verdict 0.25 to 0.29 s in 8 runs, a's own within 7 ms of it) */
	assert_true(in.probers_in_phase);
	NEAR(dns->detect.p50, model_detect_quantile(&in.probers[0], 1, 1, 0.5), 0.005);
	NEAR(dns->detect.p5, model_detect_quantile(&in.probers[0], 1, 1, 0.05), 0.005);
	NEAR(dns->detect.p95, model_detect_quantile(&in.probers[0], 1, 1, 0.95), 0.005);
	NEAR(client_last(MODEL_DNS, "c1")->p50, 1.0, 1e-9);
	NEAR(client_last(MODEL_DNS, "c2")->p50, 0.5, 1e-9);
	NEAR(client_last(MODEL_DNS, "c3")->p50, 5.0, 1e-9);
	NEAR(dns->window.p50, 5.0, 1e-9);
	NEAR(dns->last_p50.p50, 1.0, 1e-9);
	NEAR(dns->lost.p50, 3250, 1e-6);
	NEAR(dns->equivalent_downtime.p50, 3250.0 / 2700, 1e-9);
	NEAR(dns->budget_share.p50, 3250.0 / 2700 / 2592, 1e-9);
	NEAR(dns->upstream_queries.p50, 19, 1e-9);
	NEAR(dns->upstream_per_s.p50, 1.9, 1e-9);
}

/* the kill half a second later: c1 leaves at 4 (0.5 s), c2 at 5.5 (2 s),
 * c3 at 8 (4.5 s); with a 100 ms fail_jitter, t0 moves and so do they */
static void test_compare_phases(void **state)
{
	char *sets[] = {"routing=static", "fail_at=3.5s", "fail_jitter=100ms"};

	(void)state;
	load(sets, 2);
	NEAR(client_last(MODEL_DNS, "c1")->p50, 0.5, 1e-9);
	NEAR(client_last(MODEL_DNS, "c2")->p50, 2.0, 1e-9);
	NEAR(client_last(MODEL_DNS, "c3")->p50, 4.5, 1e-9);
	load(sets, 3);
	assert_true(client_last(MODEL_DNS, "c3")->min > 4.4);
	assert_true(client_last(MODEL_DNS, "c3")->max <= 4.5);
	assert_true(client_last(MODEL_DNS, "c3")->p5 < client_last(MODEL_DNS, "c3")->p95);
}

/* routing = bgp: detect is a's prober's, the rest not modelled and said */
static void test_compare_bgp(void **state)
{
	json_t *o, *any;
	int found = 0;

	(void)state;
	load(NULL, 0);
	assert_true(res.s[MODEL_ANYCAST].detect.known);
	assert_false(res.s[MODEL_ANYCAST].steer.known);
	assert_non_null(strstr(res.s[MODEL_ANYCAST].steer.why, "routing = bgp"));
	assert_true(res.s[MODEL_DNS].window.known);
	for (int i = 0; i < notes.n; i++)
		found |= notes.not_modelled[i] && strstr(notes.text[i], "routing = bgp") != NULL;
	assert_true(found);

	o = model_json(&in, &res, &notes);
	assert_non_null(o);
	any = json_object_get(json_object_get(o, "schemes"), "anycast");
	assert_true(json_is_object(json_object_get(any, "detect_s")));
	assert_true(json_is_real(json_object_get(json_object_get(any, "detect_s"), "p95")));
	assert_true(json_is_null(json_object_get(any, "steer_s")));
	assert_true(
	    json_is_string(json_object_get(json_object_get(any, "not_modelled"), "steer_s")));
	assert_true(json_is_object(json_object_get(
	    json_object_get(json_object_get(o, "schemes"), "dns"), "upstream_queries")));
	json_decref(o);
}

/* a crash under static routing: the prober dies with the site, the
 * routers' hold timer deletes the route static_hold after the last
 * refresh (1 s): between 3 - 1 and 3 + 0.1 s */
static void test_crash_hold(void **state)
{
	char *sets[] = {"routing=static", "a.fail=no"};
	char err[512];

	(void)state;
	assert_int_equal(topo_load(&topo, "topology/compare.ini", sets, 2, stderr), 0);
	/* no failure: said, not a row of zeros */
	assert_int_equal(model_from_topology(&topo, &in, &notes, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "fails no site"));
	assert_int_equal(topo_load(&topo, "topology/recovery.ini", sets, 1, stderr), 0);
	assert_int_equal(model_from_topology(&topo, &in, &notes, err, sizeof(err)), 0);
	assert_int_equal(in.how, MODEL_CRASH);
	assert_int_equal(model_lab(&in, &res), 0);
	assert_true(res.s[MODEL_ANYCAST].detect.known);
	assert_true(res.s[MODEL_ANYCAST].detect.min >= in.static_hold_s - in.static_refresh_s);
	assert_true(res.s[MODEL_ANYCAST].detect.max <= in.static_hold_s + 0.1);
	/* a degrade is no death: the site's prober may go on refreshing the
	 * announcement, so no hold timer stands in for a detect (measured:
	 * topology/checks.ini's a kept its route, no anycast detect at all) */
	assert_int_equal(topo_load(&topo, "topology/checks.ini", NULL, 0, stderr), 0);
	assert_int_equal(model_from_topology(&topo, &in, &notes, err, sizeof(err)), 0);
	assert_int_equal(model_lab(&in, &res), 0);
	assert_true(res.s[MODEL_ANYCAST].present);
	assert_false(res.s[MODEL_ANYCAST].detect.known);
	assert_non_null(strstr(res.s[MODEL_ANYCAST].detect.why, "degrade"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_detect_exact),   cmocka_unit_test(test_detect_draws),
	    cmocka_unit_test(test_in_phase),	   cmocka_unit_test(test_compare_static),
	    cmocka_unit_test(test_compare_phases), cmocka_unit_test(test_compare_bgp),
	    cmocka_unit_test(test_crash_hold),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
