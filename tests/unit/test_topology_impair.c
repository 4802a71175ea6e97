/*
 * Impairments in a topology (lab/topology/topology_impair.c): the keys of
 * [link R1 R2] and [link NODE ROUTER] sections per direction (A>B.KEY over
 * the plain key, whatever the order), the configured delay of a path, the
 * timeouts checked against it, what `steerlab check` prints of them, the
 * printed form (golden, read back) and every error (exact text). Run from
 * the repository root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "lab/topology/topology.h"
#include "test_topology_util.h"
#include "timeutil.h"

#define IMPAIR DATA "impair.ini"
#define MS NSEC_PER_MSEC

static const struct topo_link *link_of(const struct topology *t, const char *name)
{
	return &t->links[node(t, name)->link];
}

/* each direction: the plain key in both, A>B.KEY in one, before or after */
static void test_directions(void **state)
{
	struct topology *t = new_topology();
	const struct topo_link *l;
	const struct topo_rlink *rl;

	(void)state;
	load_ok(t, IMPAIR, NULL, 0);
	l = link_of(t, "c1");
	assert_int_equal(l->impair_line, 20);
	assert_int_equal(l->impair[0].delay_ns, 20 * MS); /* c1>r1, written before delay */
	assert_int_equal(l->impair[1].delay_ns, 15 * MS);
	assert_int_equal(l->impair[0].jitter_ns, 2 * MS);
	assert_int_equal(l->impair[1].dist, IMPAIR_DIST_NORMAL);
	assert_true(l->impair[0].loss_pct == 0);
	assert_true(l->impair[1].loss_pct == 1 && l->impair[1].loss_corr_pct == 25);
	/* [link r2 a]: written router first */
	l = link_of(t, "a");
	assert_int_equal(l->impair[0].delay_ns, MS);
	assert_int_equal(l->impair[1].delay_ns, MS);
	assert_true(l->impair[1].duplicate_pct == 1 && l->impair[0].reorder_pct == 5);
	/* no [link] section: none */
	assert_int_equal(link_of(t, "b")->impair_line, 0);
	assert_true(topo_impair_none(&link_of(t, "b")->impair[0]));
	rl = &t->rlinks[0];
	assert_int_equal(rl->impair[0].delay_ns, 5 * MS);
	assert_int_equal(rl->impair[0].rate_bps, 0);
	assert_int_equal(rl->impair[1].rate_bps, 10000000);
	assert_int_equal(topo_impaired(t), 6);
	free(t);
	/* none in the examples that have none */
	t = new_topology();
	load_ok(t, "topology/anycast.ini", NULL, 0);
	assert_int_equal(topo_impaired(t), 0);
	free(t);
}

/* the delay of a path, each way along its own route; RTT both */
static void test_path_delay(void **state)
{
	struct topology *t = new_topology();
	int c1, a, b, p1;
	char buf[64];

	(void)state;
	load_ok(t, IMPAIR, NULL, 0);
	c1 = node_index(t, "c1");
	a = node_index(t, "a");
	b = node_index(t, "b");
	p1 = node_index(t, "p1");
	assert_int_equal(topo_owd_ns(t, c1, a), (20 + 5 + 1) * MS);
	assert_int_equal(topo_owd_ns(t, a, c1), (1 + 5 + 15) * MS);
	assert_int_equal(topo_rtt_ns(t, c1, a), 47 * MS);
	assert_int_equal(topo_rtt_ns(t, c1, b), 35 * MS);
	assert_int_equal(topo_rtt_ns(t, p1, a), 12 * MS);
	assert_int_equal(topo_rtt_ns(t, p1, b), 0);
	assert_string_equal(topo_path_text(t, c1, a, buf, sizeof(buf)), "c1 r1 r2 a");
	assert_string_equal(topo_path_text(t, a, c1, buf, sizeof(buf)), "a r2 r1 c1");
	assert_string_equal(topo_path_text(t, c1, b, buf, sizeof(buf)), "c1 r1 b");
	free(t);
}

/* a node's impaired interfaces, as bring-up applies them */
static void test_egress(void **state)
{
	struct topology *t = new_topology();
	struct topo_egress e[8];

	(void)state;
	load_ok(t, IMPAIR, NULL, 0);
	assert_int_equal(topo_node_egress(t, node_index(t, "c1"), e, 8), 1);
	assert_string_equal(e[0].ifname, "eth0");
	assert_int_equal(e[0].im->delay_ns, 20 * MS);
	assert_int_equal(e[0].peer, node_index(t, "r1"));
	/* r1: to c1, to r2 */
	assert_int_equal(topo_node_egress(t, node_index(t, "r1"), e, 8), 2);
	assert_string_equal(e[0].ifname, "c1");
	assert_int_equal(e[0].im->delay_ns, 15 * MS);
	assert_string_equal(e[1].ifname, "r2");
	assert_int_equal(e[1].im->delay_ns, 5 * MS);
	/* r2: to a, to r1 (rate only); the count past max */
	assert_int_equal(topo_node_egress(t, node_index(t, "r2"), e, 1), 2);
	assert_int_equal(topo_node_egress(t, node_index(t, "b"), e, 8), 0);
	free(t);
}

/* what check prints */
static void test_check_lines(void **state)
{
	struct topology *t = new_topology();
	char *buf;
	size_t len;
	FILE *out;

	(void)state;
	load_ok(t, IMPAIR, NULL, 0);
	out = open_memstream(&buf, &len);
	assert_non_null(out);
	topo_print_impair(t, "delayline (linkd)", out);
	fclose(out);
	test_assert_golden(DATA "impair_check.golden", buf);
	free(buf);
	free(t);
}

static void test_golden_and_roundtrip(void **state)
{
	struct topology *t = new_topology(), *u = new_topology();
	char *got, tmp[64], *again;

	(void)state;
	load_ok(t, IMPAIR, NULL, 0);
	got = print_to_string(t);
	test_assert_golden(DATA "impair.golden", got);
	write_temp(tmp, got, strlen(got));
	load_ok(u, tmp, NULL, 0);
	unlink(tmp);
	again = print_to_string(u);
	assert_string_equal(got, again);
	for (int l = 0; l < t->nlinks; l++)
		assert_memory_equal(t->links[l].impair, u->links[l].impair,
				    sizeof(t->links[l].impair));
	assert_memory_equal(t->rlinks[0].impair, u->rlinks[0].impair, sizeof(t->rlinks[0].impair));
	free(got);
	free(again);
	free(t);
	free(u);
}

static void test_errors(void **state)
{
	char *expected = test_read_file(DATA "err_impair.expected");
	char *timeouts[] = {"c1.timeout=46ms", "p1.probe_timeout=11ms", "probe_interval=1s"};
	char *lab_timeout[] = {"timeout=40ms"};

	(void)state;
	expect_errors(DATA "err_impair.ini", NULL, 0, expected);
	free(expected);
	/* a timeout shorter than its path's RTT: the longest path is named */
	expect_errors(IMPAIR, timeouts, 3,
		      "--set c1.timeout=46ms: [client c1] timeout: 46ms is shorter than the "
		      "configured RTT of its path to site 'a', 47ms (c1 r1 r2 a); expected at "
		      "least 47ms\n"
		      "--set p1.probe_timeout=11ms: [prober p1] probe_timeout: 11ms is shorter "
		      "than the configured RTT of its path to site 'a', 12ms (p1 r1 r2 a); "
		      "expected at least 12ms\n");
	/* inherited from [lab]: said where [lab] sets it; c1 has its own */
	expect_errors(DATA "impair_lab.ini", lab_timeout, 1,
		      "--set timeout=40ms: [client c2] timeout: 40ms is shorter than the "
		      "configured RTT of its path to site 'a', 50ms (c2 r1 a); expected at least "
		      "50ms\n");
	expect_errors(DATA "impair_lab.ini", NULL, 0,
		      DATA "impair_lab.ini:4: [client c2] timeout: 30ms is shorter than the "
			   "configured RTT of its path to site 'a', 50ms (c2 r1 a); expected at "
			   "least 50ms\n");
}

/*
 * Distance: the great circle (haversine, R = 6371 km) at 2/3 c =
 * 199861.639 km/s, rounded to the microsecond, plus hop_delay. By hand:
 * one degree of the equator is 6371 * pi / 180 = 111.195 km, 556.36 us;
 * pole to pole is 6371 * pi = 20015.087 km, 100144.71 us. Paris (48.8566,
 * 2.3522) to London (51.5074, -0.1278): 343.556 km, 1718.97 us; London to
 * New York (40.7128, -74.0060): 5570.222 km, 27870.39 us (the same
 * formula in Python; the published great circles are 344 km and 5570 km).
 */
static void test_distance_numbers(void **state)
{
	struct topo_location eq0 = {0, 0, 1}, eq1 = {0, 1, 1}, n = {90, 0, 1}, s = {-90, 0, 1};
	struct topo_location par = {48.8566, 2.3522, 1}, lon = {51.5074, -0.1278, 1};
	struct topo_location nyc = {40.7128, -74.0060, 1};

	(void)state;
	assert_float_equal(topo_distance_km(&eq0, &eq1), 111.195, 0.001);
	assert_int_equal(topo_auto_delay_ns(topo_distance_km(&eq0, &eq1), 0), 556000);
	assert_int_equal(topo_auto_delay_ns(topo_distance_km(&eq0, &eq1), 100000), 656000);
	assert_float_equal(topo_distance_km(&n, &s), 20015.087, 0.001);
	assert_int_equal(topo_auto_delay_ns(topo_distance_km(&n, &s), 0), 100145000);
	assert_float_equal(topo_distance_km(&par, &lon), 343.556, 0.001);
	assert_float_equal(topo_distance_km(&lon, &par), 343.556, 0.001);
	assert_int_equal(topo_auto_delay_ns(topo_distance_km(&par, &lon), 100000), 1819000);
	assert_float_equal(topo_distance_km(&lon, &nyc), 5570.222, 0.001);
	assert_int_equal(topo_auto_delay_ns(topo_distance_km(&lon, &nyc), 100000), 27970000);
	assert_float_equal(topo_distance_km(&par, &par), 0, 0);
}

/* delay = auto in a topology: each direction from the locations, a
 * written direction over it, the same spot gives hop_delay only */
static void test_distance_topology(void **state)
{
	struct topology *t = new_topology();
	char *sets[] = {"hop_delay=0"};
	const struct topo_rlink *pl, *ln;
	char *buf;
	size_t len;
	FILE *out;

	(void)state;
	load_ok(t, DATA "distance.ini", NULL, 0);
	assert_true(node(t, "lon")->location.set && node(t, "lon")->location.lon == -0.1278);
	assert_false(node(t, "b")->location.set);
	pl = &t->rlinks[0];
	ln = &t->rlinks[1];
	assert_int_equal(pl->impair[0].delay_ns, 1819000);
	assert_int_equal(pl->impair[1].delay_ns, 1819000);
	assert_int_equal(ln->impair[0].delay_ns, 27970000); /* lon>nyc */
	assert_int_equal(ln->impair[1].delay_ns, 40 * MS);  /* nyc>lon, written */
	assert_true(ln->delay_auto[0] && !ln->delay_auto[1]);
	assert_int_equal(link_of(t, "a")->impair[0].delay_ns, 100000);
	assert_int_equal(link_of(t, "b")->impair[1].delay_ns, 2 * MS);
	assert_int_equal(topo_delay_auto(t), 5);
	/* c1 to a: lon>par, par>a; back a>par, par>lon */
	assert_int_equal(topo_rtt_ns(t, node_index(t, "c1"), node_index(t, "a")),
			 2 * (1819000 + 100000));
	assert_int_equal(topo_rtt_ns(t, node_index(t, "c1"), node_index(t, "b")),
			 27970000 + 2 * MS + 2 * MS + 40 * MS);
	free(t);
	t = new_topology();
	load_ok(t, DATA "distance.ini", sets, 1);
	assert_int_equal(t->rlinks[0].impair[0].delay_ns, 1719000);
	assert_true(topo_impair_none(&link_of(t, "a")->impair[0]));
	/* still printed by check: an auto link that comes to 0 */
	out = open_memstream(&buf, &len);
	assert_non_null(out);
	topo_print_impair(t, "netem", out);
	fclose(out);
	assert_non_null(strstr(buf, "# link a par\n#   a>par: delay 0s\n#     delay = auto: 0.0 km "
				    "between the locations at 2/3 c, 0s, plus hop_delay 0s\n"));
	free(buf);
	free(t);
}

/* what check prints of them, the printed form and reading it back */
static void test_distance_print(void **state)
{
	struct topology *t = new_topology(), *u = new_topology();
	char *buf, *again, tmp[64];
	size_t len;
	FILE *out;

	(void)state;
	load_ok(t, DATA "distance.ini", NULL, 0);
	out = open_memstream(&buf, &len);
	assert_non_null(out);
	topo_print_impair(t, "delayline (linkd)", out);
	fclose(out);
	test_assert_golden(DATA "distance_check.golden", buf);
	free(buf);
	buf = print_to_string(t);
	test_assert_golden(DATA "distance.golden", buf);
	write_temp(tmp, buf, strlen(buf));
	load_ok(u, tmp, NULL, 0);
	unlink(tmp);
	again = print_to_string(u);
	assert_string_equal(buf, again);
	for (int j = 0; j < t->nrlinks; j++)
		assert_memory_equal(t->rlinks[j].impair, u->rlinks[j].impair,
				    sizeof(t->rlinks[j].impair));
	free(buf);
	free(again);
	free(t);
	free(u);
}

static void test_distance_errors(void **state)
{
	char *expected = test_read_file(DATA "err_distance.expected");

	(void)state;
	expect_errors(DATA "err_distance.ini", NULL, 0, expected);
	free(expected);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_directions),
	    cmocka_unit_test(test_path_delay),
	    cmocka_unit_test(test_egress),
	    cmocka_unit_test(test_check_lines),
	    cmocka_unit_test(test_golden_and_roundtrip),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_distance_numbers),
	    cmocka_unit_test(test_distance_topology),
	    cmocka_unit_test(test_distance_print),
	    cmocka_unit_test(test_distance_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
