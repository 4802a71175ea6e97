/*
 * FRR's configurations (lab/topology_bgp.c, lab/frrconf.c): the knobs and
 * their errors, the ASNs and BGP neighbours (sites, [link]s between
 * routers, in the peer's AS), the configurations written for
 * topology/bgp-simple.ini (golden files in tests/unit/data/frrconf/), the
 * knobs and `frr =` lines in them, the routers' of check --frr with
 * routing = static, and FRR's dry run (when FRR is installed). Run from
 * the repository root.
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

#include "lab/frrconf.h"
#include "lab/topology.h"
#include "test_topology_util.h"

#define BGP "topology/bgp-simple.ini"

/* conf: daemon d's configuration of node name (caller frees). */
static char *conf(const struct topology *t, const char *name, enum frrconf_daemon d, int *raw)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	assert_non_null(fp);
	assert_int_equal(frrconf_write(t, topo_find(t, name), d, fp, raw), 0);
	fclose(fp);
	return buf;
}

static void test_golden(void **state)
{
	struct topology *t = new_topology();
	static const char *const nodes[] = {"core", "a"};

	(void)state;
	load_ok(t, BGP, NULL, 0);
	for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++) {
		char path[128], *got = conf(t, nodes[i], FRRCONF_BGPD, NULL), *want;

		snprintf(path, sizeof(path), "tests/unit/data/frrconf/%s.bgpd.conf", nodes[i]);
		want = test_read_file(path);
		assert_string_equal(got, want);
		free(got);
		free(want);
	}
	free(t);
}

static void test_neighbors_and_asns(void **state)
{
	struct topology *t = new_topology();
	struct frrconf_neighbor nb[8];
	char a[INET_ADDRSTRLEN];
	int core, site_a, site_b, c1;

	(void)state;
	load_ok(t, BGP, NULL, 0);
	core = topo_find(t, "core");
	site_a = topo_find(t, "a");
	site_b = topo_find(t, "b");
	c1 = topo_find(t, "c1");
	assert_int_equal(topo_node_asn(t, core), 65001);
	assert_int_equal(topo_node_asn(t, site_a), 65101);
	assert_int_equal(topo_node_asn(t, site_b), 65102);
	assert_int_equal(topo_node_asn(t, c1), 0);
	assert_true(frrconf_node(t, core));
	assert_true(frrconf_node(t, site_a));
	assert_false(frrconf_node(t, c1));

	/* the router's neighbours: both sites, not the client */
	assert_int_equal(frrconf_neighbors(t, core, nb, 8), 2);
	assert_int_equal(nb[0].node, site_a);
	assert_string_equal(inet_ntop(AF_INET, &nb[0].addr, a, sizeof(a)), "198.18.0.2");
	assert_string_equal(inet_ntop(AF_INET, &nb[0].local, a, sizeof(a)), "198.18.0.1");
	assert_int_equal(nb[0].asn, 65101);
	assert_int_equal(nb[1].node, site_b);
	assert_string_equal(inet_ntop(AF_INET, &nb[1].addr, a, sizeof(a)), "198.18.0.6");
	/* a site's one neighbour: its router */
	assert_int_equal(frrconf_neighbors(t, site_a, nb, 8), 1);
	assert_int_equal(nb[0].node, core);
	assert_string_equal(inet_ntop(AF_INET, &nb[0].addr, a, sizeof(a)), "198.18.0.1");
	assert_int_equal(nb[0].asn, 65001);
	assert_int_equal(frrconf_neighbors(t, c1, nb, 8), 0);

	/* static: nobody runs FRR */
	free(t);
	t = new_topology();
	load_ok(t, "topology/anycast.ini", NULL, 0);
	assert_false(frrconf_node(t, topo_find(t, "core")));
	free(t);
}

static void test_knobs(void **state)
{
	char *sets[] = {"bfd=yes",
			"bfd_interval=50ms",
			"bfd_multiplier=4",
			"damping=yes",
			"ecmp=yes",
			"bgp_mrai=5s",
			"bgp_keepalive=1s",
			"bgp_hold=3s",
			"bgp_connect_retry=2s",
			"damping_half_life=10m",
			"b.asn=64512"};
	struct topology *t = new_topology();
	char *bgpd, *bfdd;

	(void)state;
	load_ok(t, BGP, sets, (int)(sizeof(sets) / sizeof(sets[0])));
	bgpd = conf(t, "core", FRRCONF_BGPD, NULL);
	assert_non_null(strstr(bgpd, "\n timers bgp 1 3\n"));
	assert_non_null(strstr(bgpd, "\n neighbor 198.18.0.2 timers connect 2\n"));
	assert_non_null(strstr(bgpd, "\n neighbor 198.18.0.6 remote-as 64512\n"));
	assert_non_null(strstr(bgpd, "\n neighbor 198.18.0.2 advertisement-interval 5\n"));
	assert_non_null(strstr(bgpd, "\n neighbor 198.18.0.2 bfd profile steerlab\n"));
	assert_non_null(strstr(bgpd, "\n bgp bestpath as-path multipath-relax\n"));
	assert_non_null(strstr(bgpd, "\n  maximum-paths 64\n"));
	assert_non_null(strstr(bgpd, "\n  bgp dampening 10 750 6000 60\n"));
	bfdd = conf(t, "a", FRRCONF_BFDD, NULL);
	assert_non_null(strstr(bfdd, "\nbfd\n profile steerlab\n  receive-interval 50\n"
				     "  transmit-interval 50\n  detect-multiplier 4\n"));
	free(bgpd);
	free(bfdd);
	free(t);
}

static void test_frr_lines(void **state)
{
	char *sets[] = {"a.frr=router bgp 65101", "a.frr=neighbor 198.18.0.1 passive"};
	struct topology *t = new_topology();
	char *bgpd, *tail;
	int raw = -1, lines = 0;

	(void)state;
	load_ok(t, BGP, sets, 2);
	bgpd = conf(t, "a", FRRCONF_BGPD, &raw);
	for (char *p = bgpd; *p; p++)
		lines += *p == '\n';
	/* the two lines last, as written; raw_from names the first */
	assert_int_equal(raw, lines - 1);
	tail = bgpd + strlen(bgpd) - strlen("router bgp 65101\nneighbor 198.18.0.1 passive\n");
	assert_string_equal(tail, "router bgp 65101\nneighbor 198.18.0.1 passive\n");
	free(bgpd);
	/* the other nodes get none */
	bgpd = conf(t, "b", FRRCONF_BGPD, &raw);
	assert_int_equal(raw, 0);
	assert_null(strstr(bgpd, "passive"));
	free(bgpd);
	free(t);
}

static void test_errors(void **state)
{
	char *sets[] = {"bgp_hold=2s",	      "bgp_mrai=1500ms", "bfd_interval=5ms",
			"damping_reuse=7000", "c1.frr=x",	 "damping_half_life=90s",
			"bfd_multiplier=1"};
	char *dup[] = {"b.asn=65101"};
	char *stat[] = {"routing=static", "a.frr=x"};

	(void)state;
	expect_errors(BGP, sets, 7,
		      "--set c1.frr=x: [client c1] frr: FRR runs in [router] and [site] nodes "
		      "only (routing = bgp); expected it there\n"
		      "--set bfd_multiplier=1: expected a whole number from 2 to 255\n"
		      "--set bgp_hold=2s: [lab] bgp_hold: expected 0 (no hold timer) or at "
		      "least 3s (RFC 4271)\n"
		      "--set bgp_mrai=1500ms: [lab] bgp_mrai: expected whole seconds from 0 to "
		      "600 (FRR's range), got 1500ms\n"
		      "--set bfd_interval=5ms: [lab] bfd_interval: expected whole milliseconds "
		      "from 10 to 60000 (FRR's range), got 5ms\n"
		      "--set damping_half_life=90s: [lab] damping_half_life: expected whole "
		      "minutes from 1 to 45 (FRR's range), got 90s\n"
		      "--set damping_reuse=7000: [lab] damping_reuse: expected less than "
		      "damping_suppress (a route is suppressed above damping_suppress and reused "
		      "below damping_reuse)\n");
	expect_errors(BGP, dup, 1,
		      "--set b.asn=65101: [site b]: AS 65101 is also [site a]'s: expected an AS of "
		      "its own for each site (sites are AS 65101 + their index unless asn says "
		      "otherwise, routers 65001 + theirs)\n");
	expect_errors(BGP, stat, 2,
		      "--set a.frr=x: [site a] frr: FRR runs only with [lab] routing = bgp\n");
}

/* FRR's own dry run, when FRR is installed: a line it does not know is
 * refused, naming the node, FRR's message and where the line came from. */
static void test_dry_run(void **state)
{
	char *good[] = {"a.frr=router bgp 65101", "a.frr=neighbor 198.18.0.1 passive"};
	char *bad[] = {"a.frr=bogus"};
	struct topology *t = new_topology();
	char *errs = NULL;
	size_t len = 0;
	FILE *err;

	(void)state;
	if (access(FRR_VTYSH, X_OK) != 0 || access(FRR_BGPD, X_OK) != 0) {
		free(t);
		skip();
	}
	load_ok(t, BGP, good, 2);
	err = open_memstream(&errs, &len);
	assert_int_equal(frrconf_check(t, err), 0);
	fclose(err);
	assert_string_equal(errs, "");
	free(errs);

	load_ok(t, BGP, bad, 1);
	err = open_memstream(&errs, &len);
	assert_int_equal(frrconf_check(t, err), -1);
	fclose(err);
	assert_string_equal(errs, "steerlab: node a: FRR rejected its configuration (vtysh line "
				  "27: % Unknown command[4]: bogus; from --set a.frr=bogus)\n");
	free(errs);
	free(t);
}

/* [link]s between routers: one neighbour each, in the peer's AS; with
 * routing = static only those (check --frr), with bgp the sites too */
static void test_two_routers(void **state)
{
	char *bgp[] = {"routing=bgp"};
	struct topology *t = new_topology();
	char *c;

	(void)state;
	load_ok(t, "topology/two-routers.ini", NULL, 0);
	c = conf(t, "r1", FRRCONF_BGPD, NULL);
	assert_non_null(strstr(c, "\nhostname r1\n"));
	assert_non_null(strstr(c, "\nrouter bgp 65001\n bgp router-id 198.18.40.1\n"));
	assert_non_null(strstr(c, "\n neighbor 198.18.32.2 remote-as 65002\n"));
	assert_null(strstr(c, "198.18.32.1 ")); /* not itself */
	assert_null(strstr(c, "198.18.0.2"));	/* no site: routing = static */
	free(c);
	c = conf(t, "r2", FRRCONF_BGPD, NULL);
	assert_non_null(strstr(c, "\nrouter bgp 65002\n bgp router-id 198.18.40.2\n"));
	assert_non_null(strstr(c, "\n neighbor 198.18.32.1 remote-as 65001\n"));
	free(c);
	load_ok(t, "topology/two-routers.ini", bgp, 1);
	c = conf(t, "r1", FRRCONF_BGPD, NULL);
	assert_non_null(strstr(c, "\n neighbor 198.18.32.2 remote-as 65002\n"));
	assert_non_null(strstr(c, "\n neighbor 198.18.0.2 remote-as 65101\n"));
	free(c);
	c = conf(t, "b", FRRCONF_BGPD, NULL);
	assert_non_null(strstr(c, "\nrouter bgp 65102\n"));
	free(c);
	free(t);
}

/* one neighbour per [link], in the peer's own AS (asn set or default);
 * iBGP between routers that share one: next-hop-self */
static void test_square(void **state)
{
	char *shared[] = {"r5.asn=65004"};
	struct topology *t = new_topology();
	char *c;

	(void)state;
	load_ok(t, "tests/unit/data/topology/routers.ini", NULL, 0);
	c = conf(t, "r4", FRRCONF_BGPD, NULL);
	assert_non_null(strstr(c, "\nrouter bgp 65004\n"));
	assert_non_null(strstr(c, " neighbor 198.18.32.5 remote-as 64512\n")); /* r2's asn */
	assert_non_null(strstr(c, " neighbor 198.18.32.14 remote-as 65003\n"));
	assert_non_null(strstr(c, " neighbor 198.18.32.17 remote-as 65005\n"));
	assert_null(strstr(c, "next-hop-self"));
	free(c);
	c = conf(t, "r5", FRRCONF_BGPD, NULL); /* one link */
	assert_non_null(strstr(c, " neighbor 198.18.32.18 remote-as 65004\n"));
	assert_null(strstr(c, "198.18.32.5"));
	free(c);
	load_ok(t, "tests/unit/data/topology/routers.ini", shared, 1);
	c = conf(t, "r5", FRRCONF_BGPD, NULL);
	assert_non_null(strstr(c, " neighbor 198.18.32.18 remote-as 65004\n"
				  " neighbor 198.18.32.18 description router r4\n"
				  " neighbor 198.18.32.18 timers connect 10\n"
				  " neighbor 198.18.32.18 advertisement-interval 0\n"
				  " neighbor 198.18.32.18 next-hop-self\n"));
	free(c);
	free(t);
}

/* check --frr's routers with routing = static: FRR's dry run takes them */
static void test_static_dry_run(void **state)
{
	struct topology *t = new_topology();
	char *errs = NULL;
	size_t len = 0;
	FILE *err;

	(void)state;
	if (access(FRR_VTYSH, X_OK) != 0 || access(FRR_BGPD, X_OK) != 0) {
		free(t);
		skip();
	}
	load_ok(t, "tests/unit/data/topology/routers.ini", NULL, 0);
	err = open_memstream(&errs, &len);
	for (int n = 0; n < t->nnodes; n++)
		if (t->nodes[n].kind == TOPO_ROUTER)
			assert_int_equal(frrconf_check_node(t, n, err), 0);
	fclose(err);
	assert_string_equal(errs, "");
	free(errs);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_golden),	   cmocka_unit_test(test_neighbors_and_asns),
	    cmocka_unit_test(test_knobs),	   cmocka_unit_test(test_frr_lines),
	    cmocka_unit_test(test_errors),	   cmocka_unit_test(test_dry_run),
	    cmocka_unit_test(test_two_routers),	   cmocka_unit_test(test_square),
	    cmocka_unit_test(test_static_dry_run),
	};

	return cmocka_run_group_tests_name("frrconf", tests, NULL, NULL);
}
