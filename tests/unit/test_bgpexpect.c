/*
 * Where BGP should converge (lab/build/bgpexpect.c): topology/bgp.ini's routers
 * before and after site a withdraws, with the knobs that move catchments
 * (a [link]'s prepend and local_pref, a site's prepend), and what it
 * does not model (ties between AS paths, iBGP, routing = static). What
 * tests/integration/test_bgp_internet.sh sees FRR do. Run from the
 * repository root.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lab/build/lab.h"
#include "lab/topology/topology.h"
#include "test_topology_util.h"

#define BGPNET "topology/bgp.ini"

static struct bgpx x;

/* via: router r's acceptable next hops, by node name, comma-separated,
 * with its AS path length: "a/1", "b,c/2" */
static const char *via(const struct topology *t, const char *r)
{
	static char buf[128];
	int n = topo_find(t, r);
	size_t used = 0;

	assert_true(n >= 0);
	if (!x.r[n].have)
		return "none";
	for (int i = 0; i < x.r[n].nvia; i++)
		used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%s", i ? "," : "",
					 t->nodes[x.r[n].via_node[i]].name);
	snprintf(buf + used, sizeof(buf) - used, "/%u", x.r[n].len);
	return buf;
}

static void compute(const struct topology *t, const char *without)
{
	assert_int_equal(bgpx_compute(t, without ? topo_find(t, without) : -1, &x), 0);
	assert_true(x.known);
}

static void test_bgpnet(void **state)
{
	struct topology *t = new_topology();
	struct in_addr a;

	(void)state;
	load_ok(t, BGPNET, NULL, 0);
	compute(t, NULL);
	assert_string_equal(via(t, "t1"), "a/1");
	assert_string_equal(via(t, "t2"), "b/1");
	assert_string_equal(via(t, "t3"), "c/1");
	/* the next hop is the site's link address */
	inet_pton(AF_INET, "198.18.0.2", &a);
	assert_true(bgpx_via_ok(&x, topo_find(t, "t1"), a));
	inet_pton(AF_INET, "198.18.32.2", &a);
	assert_false(bgpx_via_ok(&x, topo_find(t, "t1"), a));
	/* a withdrawn: t1 takes b through t2 (t3 prepends towards t1) */
	compute(t, "a");
	assert_string_equal(via(t, "t1"), "t2/2");
	assert_true(bgpx_via_ok(&x, topo_find(t, "t1"), a));
	assert_string_equal(via(t, "t2"), "b/1");
	assert_string_equal(via(t, "t3"), "c/1");
	free(t);
}

/* the knobs: a site's prepend makes it a backup; a local preference beats
 * the path length; without the ring's prepend, t1's two ways tie */
static void test_knobs(void **state)
{
	char *backup[] = {"a.prepend=2"};
	struct topology *t = new_topology();

	(void)state;
	load_ok(t, BGPNET, backup, 1);
	compute(t, NULL);
	assert_string_equal(via(t, "t1"), "t2/2");
	assert_string_equal(via(t, "t2"), "b/1");
	assert_string_equal(via(t, "t3"), "c/1");

	load_ok(t, "tests/unit/data/bgpexpect/tie.ini", NULL, 0);
	compute(t, NULL);
	assert_string_equal(via(t, "t1"), "a/1");
	/* without a, t1's ways through t2 and t3 tie: FRR keeps the older
	 * route, which the topology does not say */
	assert_int_equal(bgpx_compute(t, topo_find(t, "a"), &x), 0);
	assert_false(x.known);

	/* local_pref = t1:200 on [link t3 t1]: t1 prefers c through t3 to
	 * its own a; t2 then hears c from t1 too, but keeps its own b */
	load_ok(t, "tests/unit/data/bgpexpect/lp.ini", NULL, 0);
	compute(t, NULL);
	assert_string_equal(via(t, "t1"), "t3/2");
	assert_int_equal(x.r[topo_find(t, "t1")].lp, 200);
	assert_string_equal(via(t, "t2"), "b/1");
	assert_string_equal(via(t, "t3"), "c/1");
	free(t);
}

/* iBGP and static routing are not modelled */
static void test_unknown(void **state)
{
	char *shared[] = {"routing=bgp", "r2.asn=65001"};
	struct topology *t = new_topology();

	(void)state;
	load_ok(t, "topology/two-routers.ini", shared, 2);
	assert_int_equal(bgpx_compute(t, -1, &x), 0);
	assert_false(x.known);
	load_ok(t, "topology/two-routers.ini", NULL, 0);
	assert_int_equal(bgpx_compute(t, -1, &x), 0);
	assert_false(x.known);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bgpnet),
	    cmocka_unit_test(test_knobs),
	    cmocka_unit_test(test_unknown),
	};

	return cmocka_run_group_tests_name("bgpexpect", tests, NULL, NULL);
}
