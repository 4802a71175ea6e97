/*
 * FRR's configurations (lab/topology/topology_bgp.c, lab/build/frrconf.c): the knobs and
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

#include "lab/build/lab.h"
#include "lab/topology/topology.h"
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

/* require_frr: FRR's programs are there (make deps), else the test fails
 * (t freed) */
static void require_frr(struct topology *t)
{
	if (access(FRR_VTYSH, X_OK) != 0 || access(FRR_BGPD, X_OK) != 0) {
		free(t);
		fail_msg("FRR is not installed (%s, %s): make deps installs it", FRR_VTYSH,
			 FRR_BGPD);
	}
}

/* dry_run_ok: FRR's dry run takes every configuration of t, saying nothing */
static void dry_run_ok(const struct topology *t)
{
	char *errs = NULL;
	size_t len = 0;
	FILE *err = open_memstream(&errs, &len);

	assert_non_null(err);
	assert_int_equal(frrconf_check(t, err), 0);
	fclose(err);
	assert_string_equal(errs, "");
	free(errs);
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
	require_frr(t);
	load_ok(t, BGP, good, 2);
	dry_run_ok(t);

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
	require_frr(t);
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

#define POLICY "tests/unit/data/frrconf/policy.ini"

/* the catchment knobs: a [link]'s prepend by the announcing end and
 * local_pref by the receiving end, a site's prepend, as route-maps
 * defined before router bgp names them */
static void test_policy(void **state)
{
	struct topology *t = new_topology();
	char *c;

	(void)state;
	load_ok(t, POLICY, NULL, 0);
	c = conf(t, "t1", FRRCONF_BGPD, NULL);
	/* t1:1 on [link t1 t2]: t1 prepends once towards t2 */
	assert_non_null(strstr(c, "\nroute-map STEERLAB-TO-t2 permit 10\n"
				  " set as-path prepend 65001\nexit\n"));
	/* local_pref = t1:200: what t1 receives from t2 */
	assert_non_null(strstr(c, "\nroute-map STEERLAB-FROM-t2 permit 10\n"
				  " set local-preference 200\nexit\n"));
	assert_true(strstr(c, "route-map STEERLAB-TO-t2 permit") < strstr(c, "router bgp"));
	assert_non_null(strstr(c, "\n  neighbor 198.18.32.2 route-map STEERLAB-TO-t2 out\n"
				  "  neighbor 198.18.32.2 route-map STEERLAB-FROM-t2 in\n"));
	/* none towards t3, nor the site */
	assert_null(strstr(c, "STEERLAB-TO-t3"));
	assert_null(strstr(c, "STEERLAB-FROM-t3"));
	assert_null(strstr(c, "STEERLAB-TO-a"));
	free(c);
	c = conf(t, "t2", FRRCONF_BGPD, NULL);
	/* t2:2: twice its own AS; it sets no local preference */
	assert_non_null(strstr(c, "\nroute-map STEERLAB-TO-t1 permit 10\n"
				  " set as-path prepend 65002 65002\nexit\n"));
	assert_non_null(strstr(c, "\n  neighbor 198.18.32.1 route-map STEERLAB-TO-t1 out\n"));
	assert_null(strstr(c, "local-preference"));
	assert_null(strstr(c, "STEERLAB-TO-t3"));
	free(c);
	c = conf(t, "t3", FRRCONF_BGPD, NULL);
	assert_null(strstr(c, "route-map STEERLAB-"));
	free(c);
	/* a site's prepend: its own AS, on what it announces to its router */
	c = conf(t, "a", FRRCONF_BGPD, NULL);
	assert_non_null(strstr(c, "\nroute-map STEERLAB-TO-t1 permit 10\n"
				  " set as-path prepend 65101 65101 65101\nexit\n"));
	assert_non_null(strstr(c, "\n  redistribute connected route-map STEERLAB-ANNOUNCE\n"
				  "  neighbor 198.18.0.1 route-map STEERLAB-TO-t1 out\n"));
	free(c);
	c = conf(t, "b", FRRCONF_BGPD, NULL);
	assert_null(strstr(c, "STEERLAB-TO-"));
	free(c);
	/* the [link]'s keys come back from check's output */
	c = print_to_string(t);
	assert_non_null(strstr(c, "\n[link t1 t2]\n# router link 0: t1:t2 198.18.32.1/30 <-> "
				  "t2:t1 198.18.32.2/30\nprepend = t1:1 t2:2\n"
				  "local_pref = t1:200\nbgp_mrai = 2s\n"));
	assert_non_null(strstr(c, "\n[site a]\n"));
	assert_non_null(strstr(c, "\nprepend = 3\n"));
	free(c);
	free(t);
}

/* per-node and per-link timers and BFD: a node's own `timers bgp` and
 * MRAI, a [link]'s per neighbour; BFD on a session if its [link] says so,
 * else if either end does; bfdd only where a session has it */
static void test_node_link_timers(void **state)
{
	struct topology *t = new_topology();
	char *c;

	(void)state;
	load_ok(t, POLICY, NULL, 0);
	c = conf(t, "t1", FRRCONF_BGPD, NULL);
	assert_non_null(strstr(c, "\n timers bgp 1 3\n"));
	assert_non_null(strstr(c, "\n neighbor 198.18.32.2 advertisement-interval 2\n"
				  " neighbor 198.18.32.2 bfd profile steerlab\n"));
	/* [link t3 t1] bfd = no beats t1's bfd = yes */
	assert_non_null(strstr(c, "\n neighbor 198.18.32.9 advertisement-interval 0\n"
				  " neighbor 198.18.0.2 remote-as"));
	assert_non_null(strstr(c, "\n neighbor 198.18.0.2 bfd profile steerlab\n"));
	assert_null(strstr(c, " neighbor 198.18.32.2 timers 1"));
	free(c);
	c = conf(t, "t2", FRRCONF_BGPD, NULL);
	assert_non_null(strstr(c, "\n timers bgp 3 9\n")); /* the lab's */
	/* [link t1 t2]'s MRAI, then t2's own towards t3 and b */
	assert_non_null(strstr(c, "\n neighbor 198.18.32.1 advertisement-interval 2\n"
				  " neighbor 198.18.32.1 bfd profile steerlab\n"));
	assert_non_null(strstr(c, "\n neighbor 198.18.32.6 timers connect 10\n"
				  " neighbor 198.18.32.6 timers 5 15\n"
				  " neighbor 198.18.32.6 advertisement-interval 5\n"
				  " neighbor 198.18.0.6 remote-as"));
	assert_non_null(strstr(c, "\n neighbor 198.18.0.6 advertisement-interval 5\n"));
	free(c);
	c = conf(t, "t3", FRRCONF_BGPD, NULL);
	assert_non_null(strstr(c, "\n neighbor 198.18.32.5 timers 5 15\n"));
	assert_null(strstr(c, "bfd"));
	free(c);
	assert_true(frrconf_bfd(t, topo_find(t, "t1")));
	assert_true(frrconf_bfd(t, topo_find(t, "t2")));
	assert_true(frrconf_bfd(t, topo_find(t, "a")));
	assert_false(frrconf_bfd(t, topo_find(t, "t3")));
	assert_false(frrconf_bfd(t, topo_find(t, "b")));
	free(t);

	/* with routing = static the knobs are kept but not printed */
	{
		char *stat[] = {"routing=static"};

		t = new_topology();
		load_ok(t, POLICY, stat, 1);
		c = print_to_string(t);
		assert_null(strstr(c, "prepend"));
		assert_null(strstr(c, "local_pref"));
		assert_null(strstr(c, "bgp_hold"));
		free(c);
		free(t);
	}
}

static void test_policy_errors(void **state)
{
	char *sets[] = {"t3.bgp_hold=2s", "a.prepend=-1", "b.bgp_mrai=700s"};

	(void)state;
	expect_errors(
	    "tests/unit/data/frrconf/err_policy.ini", NULL, 0,
	    "tests/unit/data/frrconf/err_policy.ini:18: unknown key 'cost' in [link t1 t2] "
	    "(expected: prepend, local_pref, bgp_keepalive, bgp_hold, bgp_mrai, bfd; delay, "
	    "jitter, loss, duplicate, reorder, rate, each also as A>B.KEY for one direction)\n"
	    "tests/unit/data/frrconf/err_policy.ini:23: [link t2 t3] prepend: set twice (first "
	    "at line 22)\n"
	    "tests/unit/data/frrconf/err_policy.ini:33: [site a] prepend: expected a whole "
	    "number from 0 to 10, got '11'\n"
	    "tests/unit/data/frrconf/err_policy.ini:16: [link t1 t2] prepend: expected ROUTER:N "
	    "for one end or both (ROUTER t1 or t2, once each; N a whole number from 0 to 10), "
	    "got 't3:1'\n"
	    "tests/unit/data/frrconf/err_policy.ini:17: [link t1 t2] local_pref: expected "
	    "ROUTER:N for one end or both (ROUTER t1 or t2, once each; N a whole number from 1 "
	    "to 4294967295), got 't1:0'\n"
	    "tests/unit/data/frrconf/err_policy.ini:22: [link t2 t3] prepend: expected ROUTER:N "
	    "for one end or both (ROUTER t2 or t3, once each; N a whole number from 0 to 10), "
	    "got 't2:11'\n"
	    "tests/unit/data/frrconf/err_policy.ini:24: [link t2 t3] local_pref: expected "
	    "ROUTER:N for one end or both (ROUTER t2 or t3, once each; N a whole number from 1 "
	    "to 4294967295), got 't2'\n"
	    "tests/unit/data/frrconf/err_policy.ini:25: [link t2 t3] bfd: expected yes or no "
	    "(or true/false, 1/0), got 'maybe'\n"
	    "tests/unit/data/frrconf/err_policy.ini:28: [link t3 t1] prepend: expected ROUTER:N "
	    "for one end or both (ROUTER t3 or t1, once each; N a whole number from 0 to 10), "
	    "got 't1:1 t1:2'\n"
	    "tests/unit/data/frrconf/err_policy.ini:19: [link t1 t2] bgp_keepalive: expected "
	    "less than bgp_hold (the hold timer would expire between two keepalives)\n"
	    "tests/unit/data/frrconf/err_policy.ini:29: [link t3 t1] bgp_hold: expected 0 (no "
	    "hold timer) or at least 3s (RFC 4271)\n"
	    "tests/unit/data/frrconf/err_policy.ini:7: [router t1] bgp_hold: expected 0 (no "
	    "hold timer) or at least 3s (RFC 4271)\n"
	    "tests/unit/data/frrconf/err_policy.ini:10: [router t2] bgp_keepalive: expected "
	    "less than bgp_hold (the hold timer would expire between two keepalives)\n"
	    "tests/unit/data/frrconf/err_policy.ini:13: [router t3] bgp_mrai: expected whole "
	    "seconds from 0 to 600 (FRR's range), got 1500ms\n");
	expect_errors(POLICY, sets, 3,
		      "--set a.prepend=-1: expected a whole number from 0 to 10\n"
		      "--set t3.bgp_hold=2s: [router t3] bgp_hold: expected 0 (no hold timer) or "
		      "at least 3s (RFC 4271)\n"
		      "--set b.bgp_mrai=700s: [site b] bgp_mrai: expected whole seconds from 0 to "
		      "600 (FRR's range), got 700s\n");
}

/* FRR's dry run takes the route-maps and per-neighbour timers */
static void test_policy_dry_run(void **state)
{
	struct topology *t = new_topology();

	(void)state;
	require_frr(t);
	load_ok(t, POLICY, NULL, 0);
	dry_run_ok(t);
	free(t);
}

/* ip = dual: a session over IPv6 beside each IPv4 one, carrying IPv6
 * unicast alone (the IPv4 family does not activate it), the same policy
 * (prepend out; local preference in, with the peer's global address as
 * the next hop); a site announces the service's IPv6 address with its
 * MED; FRR's dry run takes it */
static void test_dual(void **state)
{
	struct topology *t = new_topology();
	char *sets[] = {"ip=dual"}, *c;

	(void)state;
	load_ok(t, POLICY, sets, 1);
	c = conf(t, "t1", FRRCONF_BGPD, NULL);
	assert_non_null(strstr(c, "\n neighbor 2001:2:0:1000::2 remote-as "));
	assert_non_null(strstr(c, " address-family ipv4 unicast\n"));
	assert_non_null(strstr(c, "  no neighbor 2001:2:0:1000::2 activate\n"));
	assert_non_null(strstr(c, " address-family ipv6 unicast\n"
				  "  neighbor 2001:2:0:1000::2 activate\n"
				  "  neighbor 2001:2:0:1000::2 route-map STEERLAB-TO-t2 out\n"
				  "  neighbor 2001:2:0:1000::2 route-map STEERLAB-FROM6-t2 in\n"));
	assert_non_null(strstr(c, "\nroute-map STEERLAB-FROM6-t2 permit 10\n"
				  " set ipv6 next-hop prefer-global\n"
				  " set local-preference 200\nexit\n"));
	free(c);
	c = conf(t, "a", FRRCONF_BGPD, NULL);
	assert_non_null(strstr(c, "\nipv6 prefix-list STEERLAB-SERVICE6 seq 5 permit "
				  "2001:2:0:ff00::1/128\n"
				  "route-map STEERLAB-ANNOUNCE permit 30\n"
				  " match ipv6 address prefix-list STEERLAB-SERVICE6\n"
				  " set metric "));
	assert_non_null(strstr(c, " address-family ipv6 unicast\n"
				  "  redistribute connected route-map STEERLAB-ANNOUNCE\n"));
	free(c);
	require_frr(t);
	dry_run_ok(t);
	free(t);
}

/* ip = 6: the IPv6 sessions alone, without IPv4 unicast (said before the
 * neighbours, or bgpd activates each in it), a site announcing the
 * service's IPv6 address alone; FRR's dry run takes it */
static void test_ip6(void **state)
{
	struct topology *t = new_topology();
	char *sets[] = {"ip=6", "family=6"}, *c;

	(void)state;
	load_ok(t, POLICY, sets, 2);
	c = conf(t, "t1", FRRCONF_BGPD, NULL);
	assert_non_null(strstr(c, " no bgp default ipv4-unicast\n neighbor 2001:2:0:"));
	assert_null(strstr(c, "address-family ipv4"));
	assert_null(strstr(c, "neighbor 198."));
	assert_non_null(strstr(c, " address-family ipv6 unicast\n"
				  "  neighbor 2001:2:0:1000::2 activate\n"));
	free(c);
	c = conf(t, "a", FRRCONF_BGPD, NULL);
	assert_null(strstr(c, "ip prefix-list"));
	assert_non_null(strstr(c, "\nipv6 prefix-list STEERLAB-SERVICE6 seq 5 permit "
				  "2001:2:0:ff00::1/128\n"));
	free(c);
	require_frr(t);
	dry_run_ok(t);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_golden),
	    cmocka_unit_test(test_neighbors_and_asns),
	    cmocka_unit_test(test_knobs),
	    cmocka_unit_test(test_frr_lines),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_dry_run),
	    cmocka_unit_test(test_two_routers),
	    cmocka_unit_test(test_square),
	    cmocka_unit_test(test_static_dry_run),
	    cmocka_unit_test(test_policy),
	    cmocka_unit_test(test_ip6),
	    cmocka_unit_test(test_node_link_timers),
	    cmocka_unit_test(test_policy_errors),
	    cmocka_unit_test(test_policy_dry_run),
	    cmocka_unit_test(test_dual),
	};

	return cmocka_run_group_tests_name("frrconf", tests, NULL, NULL);
}
