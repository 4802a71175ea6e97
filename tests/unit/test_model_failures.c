/*
 * The model of every failure of the timeline (probes/model/model_topo.c,
 * model_from_topology_failure; docs/model.md, "Every failure"):
 * topology/two-failures.ini worked out by hand (a crashes at 2 s, b is
 * killed at 4 s: by then a's clients have moved, a is out, so the anycast
 * clients are on b, metric 20 before c's 30, and the failover name answers
 * b, a's secondary; b's own prober and the vantage points see the kill in
 * 0.25 s, static routing withdraws at once, the TTL is 1 s); a later
 * failure that comes before the earlier one's clients moved, and one of a
 * site that failed before, said rather than guessed; the fail-back of a
 * recovery (model_failback.c).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "model.h"
#include "test_file.h"
#include "topology.h"

static struct topology topo;
static struct model_input in;
static struct model_result res;
static struct model_notes notes;

static void load(char *const sets[], int nsets, int k)
{
	char err[512];

	assert_int_equal(topo_load(&topo, "topology/two-failures.ini", sets, nsets, stderr), 0);
	assert_int_equal(model_failures(&topo), 2);
	assert_int_equal(model_from_topology_failure(&topo, k, &in, &notes, err, sizeof(err)), 0);
	assert_int_equal(model_lab(&in, &res), 0);
}

static void test_second(void **state)
{
	const struct model_scheme_result *a = &res.s[MODEL_ANYCAST], *d = &res.s[MODEL_DNS];

	(void)state;
	load(NULL, 0, 1);
	assert_string_equal(in.site, "b");
	assert_string_equal(in.event, "e2");
	assert_int_equal(in.how, MODEL_KILL);
	assert_true(fabs(in.fail_at_s - 4) < 1e-9);
	for (int i = 0; i < in.nclients; i++)
		assert_true(in.clients[i].to_failed);
	assert_true(a->window.known && d->window.known);
	assert_true(fabs(a->detect.p50 - 0.25) < 1e-9);
	assert_true(fabs(a->window.p50 - 0.25) < 1e-9);
	assert_true(fabs(d->detect.p50 - 0.25) < 1e-9);
	assert_true(fabs(d->window.p50 - 1.0) < 1e-9);
	/* both clients at 500/s until the window */
	assert_true(fabs(d->lost.p50 - 1000) < 1e-6);
	/* the first is model_from_topology's */
	load(NULL, 0, 0);
	assert_string_equal(in.site, "a");
	assert_int_equal(in.how, MODEL_CRASH);
}

/* b killed 200 ms after a crashed: a's anycast clients wait for the routers'
 * hold timer (0.5-0.6 s), its DNS clients for the TTL: not settled */
static void test_unsettled(void **state)
{
	char *sets[] = {"e2.at=2200ms"};

	(void)state;
	load(sets, 1, 1);
	assert_true(res.s[MODEL_ANYCAST].detect.known);
	assert_false(res.s[MODEL_ANYCAST].window.known);
	assert_non_null(strstr(res.s[MODEL_ANYCAST].window.why, "before e1's clients had moved"));
	assert_false(res.s[MODEL_DNS].window.known);
}

/* a killed at 1 s, recovered at 2 s, b killed at 5 s: where the fail-back
 * left the clients is not modelled, said */
static void test_recovered(void **state)
{
	char err[512];
	static const char text[] =
	    "[lab]\nname = rec\ndns_name = www.lab.example\nduration = 8s\n"
	    "[router core]\n[site a]\nlink = core\nmetric = 10\n[site b]\nlink = core\n"
	    "metric = 20\n[dns ns]\nlink = core\n[prober p1]\nlink = core\n"
	    "[client c1]\nlink = core\nmode = both\nresolver = ns\n"
	    "[event e1]\nat = 1s\naction = kill\ntarget = a\n"
	    "[event back]\nat = 2s\naction = recover\ntarget = a\n"
	    "[event e2]\nat = 5s\naction = kill\ntarget = b\n"
	    "[zone lab.example]\nsoa = ns.lab.example. hostmaster.lab.example. 1 3600 600 86400 5\n"
	    "ttl = 60\nrecord = @ NS ns.lab.example.\nrecord = ns A 198.18.0.10\n"
	    "[name www.lab.example]\npolicy = failover\nprimary = a\nsecondary = b\nttl = 1\n";
	char path[64];

	(void)state;
	test_temp_file(path, sizeof(path), text);
	assert_int_equal(topo_load(&topo, path, NULL, 0, stderr), 0);
	unlink(path);
	assert_int_equal(model_failures(&topo), 2);
	assert_int_equal(model_from_topology_failure(&topo, 1, &in, &notes, err, sizeof(err)), 0);
	assert_string_equal(in.site, "b");
	assert_int_equal(model_lab(&in, &res), 0);
	assert_true(res.s[MODEL_DNS].detect.known);
	assert_false(res.s[MODEL_DNS].window.known);
	assert_non_null(strstr(res.s[MODEL_DNS].window.why, "back brought a back before e2"));
}

/* the fail-back (docs/model.md, "Fail-back"): topology/recovery.ini with a
 * killed at 3 s and recovered at 6 s. a's own prober and the vantage
 * points keep their cycles, probes at (k + 1/2) x 100 ms: the first after
 * the recovery at 6.05 s succeeds, the third in a row at 6.25 s declares a
 * alive: healthy and steer 0.25 s after it (0.35 s when sited, started
 * again, takes more than 50 ms to answer: a loaded gate's did), anycast's
 * clients back with the route; the DNS clients as their answers are fetched again: r's entry and
 * c2's own hold both run out at 8 s, 2 s after the recovery (measured:
 * 0.2505, 0.2507, 0.2515-0.2524 s; 0.2504, 0.2504, 2.004-2.007 s). A crash's
 * recovery starts a's prober again, at its own phase: anycast's healthy
 * from 0.2 to 0.4 s (measured 0.318 s) */
static void test_failback(void **state)
{
	char *kill[] = {"e1.action=kill"};
	char err[512];
	const struct model_scheme_result *a = &res.s[MODEL_ANYCAST], *d = &res.s[MODEL_DNS];

	(void)state;
	assert_int_equal(topo_load(&topo, "topology/recovery.ini", kill, 1, stderr), 0);
	assert_int_equal(model_from_topology(&topo, &in, &notes, err, sizeof(err)), 0);
	assert_int_equal(model_lab(&in, &res), 0);
	assert_true(fabs(in.recover_at_s - 6) < 1e-9);
	/* sited, started again, answers within 100 ms: the probe at 6.05 s or
	 * the one at 6.15 s is the first to pass */
	for (int k = 0; k < 2; k++) {
		const struct model_scheme_result *x = k ? d : a;

		assert_true(fabs(x->fb_healthy.min - 0.25) < 1e-9);
		assert_true(fabs(x->fb_healthy.max - 0.35) < 1e-9);
		assert_true(fabs(x->fb_steer.max - x->fb_healthy.max) < 1e-9);
	}
	assert_true(fabs(a->fb_first.min - 0.25) < 1e-9 && fabs(a->fb_last.max - 0.35) < 1e-9);
	/* either way the DNS clients' answers are fetched again at 8 s */
	assert_true(fabs(d->fb_first.min - 2) < 1e-9 && fabs(d->fb_last.max - 2) < 1e-9);

	assert_int_equal(topo_load(&topo, "topology/recovery.ini", NULL, 0, stderr), 0);
	assert_int_equal(model_from_topology(&topo, &in, &notes, err, sizeof(err)), 0);
	assert_int_equal(model_lab(&in, &res), 0);
	assert_true(in.recover_restart);
	assert_true(a->fb_healthy.min >= 0.2 - 1e-9 && a->fb_healthy.max <= 0.4 + 1e-9);
	assert_true(a->fb_healthy.min < 0.318 && 0.318 < a->fb_healthy.max);
	/* no recovery: said */
	assert_int_equal(topo_load(&topo, "topology/compare.ini", NULL, 0, stderr), 0);
	assert_int_equal(model_from_topology(&topo, &in, &notes, err, sizeof(err)), 0);
	assert_int_equal(model_lab(&in, &res), 0);
	assert_false(d->fb_healthy.known);
	assert_non_null(strstr(d->fb_healthy.why, "no recovery"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_second),
	    cmocka_unit_test(test_unsettled),
	    cmocka_unit_test(test_recovered),
	    cmocka_unit_test(test_failback),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
