/*
 * Routers linked to routers (lab/topology/topology_routers.c, topology_paths.c): the
 * address plan of [link] sections, AS numbers and router ids, the shortest
 * paths and their tie rule, the static routes toward each site, every
 * error of a [link] and of the graph, and the printed form (golden, read
 * back). Run from the repository root.
 */
#include <arpa/inet.h>
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

#define ROUTERS DATA "routers.ini"

static int rlink_of(const struct topology *t, const char *a, const char *b)
{
	int ia = node_index(t, a), ib = node_index(t, b);

	for (int j = 0; j < t->nrlinks; j++)
		if ((t->rlinks[j].a == ia && t->rlinks[j].b == ib) ||
		    (t->rlinks[j].a == ib && t->rlinks[j].b == ia))
			return j;
	fail_msg("no [link %s %s]", a, b);
	return -1;
}

/* the address plan: link j in file order, .1 at the first router written */
static void test_rlink_addresses(void **state)
{
	struct topology *t = new_topology();
	const struct topo_rlink *rl;

	(void)state;
	load_ok(t, ROUTERS, NULL, 0);
	assert_int_equal(t->nrouters, 5);
	assert_int_equal(t->nrlinks, 5);
	assert_int_equal(t->routing, TOPO_ROUTING_STATIC);
	rl = &t->rlinks[2]; /* [link r3 r1]: written the other way round */
	assert_int_equal(rl->a, node_index(t, "r3"));
	assert_int_equal(rl->b, node_index(t, "r1"));
	assert_addr(rl->a_addr, "198.18.32.9");
	assert_addr(rl->b_addr, "198.18.32.10");
	assert_int_equal(rl->prefixlen, 30);
	assert_string_equal(rl->a_ifname, "r1"); /* r3's end, named after r1 */
	assert_string_equal(rl->b_ifname, "r3");
	assert_int_equal(rl->line, 15); /* [link r3 r1] */
	rl = &t->rlinks[4];
	assert_addr(rl->a_addr, "198.18.32.17");
	assert_addr(rl->b_addr, "198.18.32.18");
	/* the node links keep their plan */
	assert_addr(t->links[node(t, "b")->link].router_addr, "198.18.0.5");
	free(t);
}

/* asn: 65001 + the router's index unless set; ids 198.18.40.(k + 1) */
static void test_asn_and_ids(void **state)
{
	struct topology *t = new_topology();
	char *sets[] = {"r5.asn=4200000000"};

	(void)state;
	load_ok(t, ROUTERS, sets, 1);
	assert_int_equal(node(t, "r1")->asn, 65001);
	assert_int_equal(node(t, "r2")->asn, 64512);
	assert_int_equal(node(t, "r3")->asn, 65003);
	assert_int_equal(node(t, "r5")->asn, 4200000000u);
	assert_int_equal(node(t, "r4")->router_index, 3);
	assert_addr(node(t, "r1")->router_id, "198.18.40.1");
	assert_addr(node(t, "r5")->router_id, "198.18.40.5");
	free(t);
	t = new_topology();
	load_ok(t, "topology/anycast.ini", NULL, 0);
	assert_int_equal(t->nrouters, 1);
	assert_int_equal(t->nrlinks, 0);
	assert_int_equal(node(t, "core")->asn, 65001);
	free(t);
}

/* every interface name of a namespace is unique and fits IFNAMSIZ */
static void test_ifnames_unique(void **state)
{
	struct topology *t = new_topology();

	(void)state;
	load_ok(t, ROUTERS, NULL, 0);
	for (int r = 0; r < t->nnodes; r++) {
		const char *names[TOPO_MAX_NODES];
		int n = 0;

		if (t->nodes[r].kind != TOPO_ROUTER)
			continue;
		for (int i = 0; i < t->nlinks; i++)
			if (t->links[i].router == r)
				names[n++] = t->links[i].router_ifname;
		for (int j = 0; j < t->nrlinks; j++)
			if (t->rlinks[j].a == r || t->rlinks[j].b == r)
				topo_rlink_end(t, j, r, NULL, NULL, &names[n++]);
		for (int i = 0; i < n; i++) {
			assert_true(strlen(names[i]) > 0 && strlen(names[i]) <= 15);
			for (int k = 0; k < i; k++)
				assert_string_not_equal(names[i], names[k]);
		}
	}
	free(t);
}

/* shortest paths; between two, the neighbour first in the file */
static void test_paths_tie_rule(void **state)
{
	struct topology *t = new_topology();
	struct topo_path *path = calloc(TOPO_MAX_NODES, sizeof(*path));
	int r1, r4;

	(void)state;
	load_ok(t, ROUTERS, NULL, 0);
	r1 = node_index(t, "r1");
	r4 = node_index(t, "r4");
	topo_paths(t, r1, path);
	assert_int_equal(path[r1].hops, 0);
	assert_int_equal(path[r1].rlink, -1);
	assert_int_equal(path[node_index(t, "r3")].hops, 1);
	assert_int_equal(path[node_index(t, "r3")].rlink, rlink_of(t, "r1", "r3"));
	/* r1 -> r4: by r2 or by r3, two hops each; r2 comes first */
	assert_int_equal(path[r4].hops, 2);
	assert_int_equal(path[r4].rlink, rlink_of(t, "r1", "r2"));
	assert_int_equal(path[node_index(t, "r5")].hops, 3);
	assert_int_equal(path[node_index(t, "r5")].rlink, rlink_of(t, "r1", "r2"));
	assert_int_equal(path[node_index(t, "a")].hops, -1); /* not a router */
	/* and back: r4 -> r1 by r2, again first */
	topo_paths(t, r4, path);
	assert_int_equal(path[r1].hops, 2);
	assert_int_equal(path[r1].rlink, rlink_of(t, "r2", "r4"));
	free(path);
	free(t);
}

/* the static route of each router to each site: next hop, device, hops */
static void test_route_to(void **state)
{
	struct topology *t = new_topology();
	struct topo_path *path = calloc(TOPO_MAX_NODES, sizeof(*path));
	struct in_addr via;
	const char *dev;

	(void)state;
	load_ok(t, ROUTERS, NULL, 0);
	topo_paths(t, node_index(t, "r4"), path);
	assert_int_equal(
	    topo_route_to(t, node_index(t, "r4"), path, node_index(t, "b"), &via, &dev), 1);
	assert_addr(via, "198.18.32.17"); /* r5's end of [link r5 r4] */
	assert_string_equal(dev, "r5");
	assert_int_equal(
	    topo_route_to(t, node_index(t, "r4"), path, node_index(t, "a"), &via, &dev), 2);
	assert_addr(via, "198.18.32.5"); /* r2's end of [link r2 r4] */
	assert_string_equal(dev, "r2");
	/* its own client: the link address, 0 hops */
	assert_int_equal(
	    topo_route_to(t, node_index(t, "r4"), path, node_index(t, "c1"), &via, &dev), 0);
	assert_addr(via, "198.18.0.10");
	assert_string_equal(dev, "c1");
	topo_paths(t, node_index(t, "r1"), path);
	assert_int_equal(
	    topo_route_to(t, node_index(t, "r1"), path, node_index(t, "a"), &via, &dev), 0);
	assert_addr(via, "198.18.0.2");
	free(path);
	free(t);
}

static void test_golden_and_roundtrip(void **state)
{
	struct topology *t = new_topology(), *u = new_topology();
	char *got, tmp[64], *again;

	(void)state;
	load_ok(t, ROUTERS, NULL, 0);
	got = print_to_string(t);
	test_assert_golden(DATA "routers.golden", got);
	/* check's output reads back to the same routers and links */
	write_temp(tmp, got, strlen(got));
	load_ok(u, tmp, NULL, 0);
	unlink(tmp);
	again = print_to_string(u);
	assert_string_equal(got, again);
	assert_int_equal(t->nrlinks, u->nrlinks);
	for (int j = 0; j < t->nrlinks; j++) {
		assert_int_equal(t->rlinks[j].a, u->rlinks[j].a);
		assert_int_equal(t->rlinks[j].b, u->rlinks[j].b);
		assert_int_equal(t->rlinks[j].a_addr.s_addr, u->rlinks[j].a_addr.s_addr);
		assert_int_equal(t->rlinks[j].b_addr.s_addr, u->rlinks[j].b_addr.s_addr);
	}
	for (int i = 0; i < t->nnodes; i++)
		assert_int_equal(t->nodes[i].asn, u->nodes[i].asn);
	free(got);
	free(again);
	free(t);
	free(u);
}

static void test_errors(void **state)
{
	static const char *const cases[] = {
	    "err_rlinks",  /* duplicate (either order), self, not a router, unknown, words, keys */
	    "err_islands", /* an island of one, of two; metric; a client with no site */
	};
	char ini[128], exp[128], *expected;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(ini, sizeof(ini), DATA "%s.ini", cases[i]);
		snprintf(exp, sizeof(exp), DATA "%s.expected", cases[i]);
		expected = test_read_file(exp);
		expect_errors(ini, NULL, 0, expected);
		free(expected);
	}
	/* spelled out: the form of the graph's messages */
	expect_errors(DATA "err_islands.ini", NULL, 0,
		      DATA "err_islands.ini:6: [router r3]: not connected to router 'r1' (line "
			   "4): no [link] names it; expected a [link] section such as [link r1 "
			   "r3]\n" DATA "err_islands.ini:7: [router r4]: not connected to router "
			   "'r1' (line 4): routers r4, r5 form an island; expected a [link] "
			   "section joining it to the rest, such as [link r1 r4]\n" DATA
			   "err_islands.ini:14: [site a] metric: expected at most 16777215 in a "
			   "lab of several routers (a router installs hops x 16777216 + metric), "
			   "got 16777216\n" DATA
			   "err_islands.ini:18: [client c2] link: no path to any site: no [site] "
			   "is linked to router 'r5' or to a router connected to it; expected the "
			   "router of a site\n");
}

/* routing: static or bgp (test_frrconf.c); asn's range */
static void test_routing_and_asn_values(void **state)
{
	char *bgp[] = {"routing=bgp"}, *ospf[] = {"routing=ospf"}, *asn0[] = {"r1.asn=0"};
	char *one[] = {"b.metric=4294967295"};
	struct topology *t = new_topology();

	(void)state;
	load_ok(t, ROUTERS, bgp, 1);
	assert_int_equal(t->routing, TOPO_ROUTING_BGP);
	/* settle outlasts the connect retry (10 s) that brings back a
	 * session closed at bring-up, by 5 s */
	assert_int_equal(t->settle_ns, 15 * NSEC_PER_SEC);
	{
		char *retry[] = {"routing=bgp", "bgp_connect_retry=30s"};
		char *quick[] = {"routing=bgp", "bgp_connect_retry=1s"};
		char *said[] = {"routing=bgp", "settle=7s"};

		load_ok(t, ROUTERS, retry, 2);
		assert_int_equal(t->settle_ns, 35 * NSEC_PER_SEC);
		load_ok(t, ROUTERS, quick, 2);
		assert_int_equal(t->settle_ns, 10 * NSEC_PER_SEC);
		load_ok(t, ROUTERS, said, 2);
		assert_int_equal(t->settle_ns, 7 * NSEC_PER_SEC);
	}
	expect_errors(ROUTERS, ospf, 1, "--set routing=ospf: expected static or bgp\n");
	expect_errors(ROUTERS, asn0, 1,
		      "--set r1.asn=0: expected a whole number from 1 to 4294967294\n");
	/* one router: any metric, as before */
	load_ok(t, "topology/anycast.ini", one, 1);
	free(t);
}

/* routing = static's hold timer: static_hold defaults to three
 * static_refresh, 0 is never, and it must outlast one refresh */
static void test_static_hold(void **state)
{
	static const char text[] = "[lab]\nname = hold\nstatic_refresh = 500ms\n"
				   "static_hold = 500ms\n[router core]\n[site a]\nlink = core\n"
				   "[client c]\nlink = core\n";
	char *refresh[] = {"static_refresh=2s"}, *never[] = {"static_hold=0"};
	char *both[] = {"static_refresh=2s", "static_hold=1500ms"};
	char path[64], *want, *errs, *out;
	struct topology *t = new_topology();

	(void)state;
	load_ok(t, "topology/anycast.ini", NULL, 0);
	assert_int_equal(t->static_refresh_ns, NSEC_PER_SEC);
	assert_int_equal(t->static_hold_ns, 3 * NSEC_PER_SEC);
	load_ok(t, "topology/anycast.ini", refresh, 1);
	assert_int_equal(t->static_hold_ns, 6 * NSEC_PER_SEC);
	load_ok(t, "topology/anycast.ini", never, 1);
	assert_int_equal(t->static_hold_ns, 0);
	expect_errors("topology/anycast.ini", both, 2,
		      "--set static_hold=1500ms: [lab] static_hold: expected more than "
		      "static_refresh (2s), got 1500ms\n");
	write_temp(path, text, sizeof(text) - 1);
	assert_int_equal(load(t, path, NULL, 0, &errs), -1);
	if (asprintf(&want,
		     "%s:4: [lab] static_hold: expected more than static_refresh (500ms), got "
		     "500ms\n",
		     path) == -1)
		fail();
	assert_string_equal(errs, want);
	free(want);
	free(errs);
	unlink(path);
	/* shown by steerlab check in static mode only */
	load_ok(t, "topology/anycast.ini", refresh, 1);
	out = print_to_string(t);
	assert_non_null(strstr(out, "\nrouting = static\nstatic_refresh = 2s\nstatic_hold = 6s\n"));
	free(out);
	load_ok(t, ROUTERS, (char *[]){"routing=bgp"}, 1);
	out = print_to_string(t);
	assert_null(strstr(out, "static_"));
	free(out);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rlink_addresses), cmocka_unit_test(test_asn_and_ids),
	    cmocka_unit_test(test_ifnames_unique),  cmocka_unit_test(test_paths_tie_rule),
	    cmocka_unit_test(test_route_to),	    cmocka_unit_test(test_golden_and_roundtrip),
	    cmocka_unit_test(test_errors),	    cmocka_unit_test(test_routing_and_asn_values),
	    cmocka_unit_test(test_static_hold),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
