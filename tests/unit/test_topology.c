/*
 * Topology files (lab/topology/topology.h): values and defaults, addresses, --set
 * overrides, every kind of error with its exact message, and the golden
 * test of topo_print. Run from the repository root: the fixtures are under
 * tests/unit/data/topology/.
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

static void test_minimal_defaults(void **state)
{
	struct topology *t = new_topology();
	const struct topo_node *s1, *c1;

	(void)state;
	load_ok(t, DATA "minimal.ini", NULL, 0);
	assert_string_equal(t->path, DATA "minimal.ini");
	assert_string_equal(t->name, "mini");
	assert_addr(t->service, "198.19.0.1");
	assert_int_equal(t->port, 7000);
	assert_int_equal(t->fail_at_ns, 3 * NSEC_PER_SEC);
	assert_int_equal(t->duration_ns, 10 * NSEC_PER_SEC);
	assert_int_equal(t->settle_ns, 5 * NSEC_PER_SEC);
	assert_int_equal(t->capture_buffer, 0); /* auto: each link sized by what it carries */
	assert_true(t->rate == 1000);
	assert_int_equal(t->timeout_ns, 500 * NSEC_PER_MSEC);
	assert_int_equal(t->probe_interval_ns, 100 * NSEC_PER_MSEC);
	assert_int_equal(t->probe_timeout_ns, 50 * NSEC_PER_MSEC);
	assert_int_equal(t->probe_down, 3);
	assert_int_equal(t->probe_up, 3);

	assert_int_equal(t->nnodes, 3);
	assert_int_equal(t->nlinks, 2);
	assert_int_equal(node(t, "r1")->kind, TOPO_ROUTER);
	assert_int_equal(node(t, "r1")->link, -1);
	assert_int_equal(node(t, "r1")->line, 5);

	s1 = node(t, "s1");
	assert_int_equal(s1->kind, TOPO_SITE);
	assert_int_equal(s1->line, 7);
	assert_int_equal(s1->metric, 10);
	assert_int_equal(s1->fail, 0);
	assert_int_equal(s1->probe_interval_ns, 100 * NSEC_PER_MSEC);
	assert_int_equal(s1->probe_timeout_ns, 50 * NSEC_PER_MSEC);
	assert_int_equal(s1->probe_down, 3);
	assert_int_equal(s1->probe_up, 3);

	c1 = node(t, "c1");
	assert_int_equal(c1->kind, TOPO_CLIENT);
	assert_int_equal(c1->client_id, 1);
	assert_true(c1->rate == 1000);
	assert_int_equal(c1->timeout_ns, 500 * NSEC_PER_MSEC);
	free(t);
}

static void test_full_values(void **state)
{
	struct topology *t = new_topology();
	const struct topo_node *a, *b, *c, *west, *east;
	static const struct {
		const char *node, *router, *raddr, *naddr;
		int line;
	} links[] = {
	    {"west", "edge1", "198.18.0.1", "198.18.0.2", 18},
	    {"a", "edge1", "198.18.0.5", "198.18.0.6", 25},
	    {"b", "edge1", "198.18.0.9", "198.18.0.10", 29},
	    {"east", "edge1", "198.18.0.13", "198.18.0.14", 36},
	    {"c", "edge1", "198.18.0.17", "198.18.0.18", 40},
	};

	(void)state;
	load_ok(t, DATA "full.ini", NULL, 0);
	assert_string_equal(t->name, "full-1");
	assert_addr(t->service, "198.19.7.7");
	assert_int_equal(t->port, 8053);
	assert_int_equal(t->fail_at_ns, 1500 * NSEC_PER_MSEC);
	assert_int_equal(t->duration_ns, 60 * NSEC_PER_SEC);
	assert_int_equal(t->settle_ns, 2 * NSEC_PER_SEC);
	assert_int_equal(t->capture_buffer, 128 << 20);
	assert_true(t->rate == 250.5);
	assert_int_equal(t->timeout_ns, NSEC_PER_SEC);
	assert_int_equal(t->probe_interval_ns, 200 * NSEC_PER_MSEC);
	assert_int_equal(t->probe_timeout_ns, 80 * NSEC_PER_MSEC);
	assert_int_equal(t->probe_down, 2);
	assert_int_equal(t->probe_up, 5);

	/* file order: nodes and links */
	assert_int_equal(t->nnodes, 6);
	assert_string_equal(t->nodes[0].name, "west");
	assert_string_equal(t->nodes[1].name, "edge1");
	assert_string_equal(t->nodes[5].name, "c");
	assert_int_equal(t->nlinks, 5);
	for (int i = 0; i < 5; i++) {
		const struct topo_link *l = &t->links[i];

		assert_string_equal(t->nodes[l->node].name, links[i].node);
		assert_string_equal(t->nodes[l->router].name, links[i].router);
		assert_int_equal(node(t, links[i].node)->link, i);
		assert_addr(l->router_addr, links[i].raddr);
		assert_addr(l->node_addr, links[i].naddr);
		assert_int_equal(l->prefixlen, 30);
		assert_int_equal(l->line, links[i].line);
		assert_string_equal(l->router_ifname, links[i].node);
		assert_string_equal(l->node_ifname, "eth0");
	}

	/* sites: metric 10 x ordinal unless set; lab probes unless overridden */
	a = node(t, "a");
	b = node(t, "b");
	c = node(t, "c");
	assert_int_equal(a->metric, 10);
	assert_int_equal(b->metric, 5);
	assert_int_equal(c->metric, 30);
	assert_int_equal(a->fail, 1);
	assert_int_equal(b->fail, 0);
	assert_int_equal(c->fail, 0);
	assert_int_equal(a->probe_interval_ns, 200 * NSEC_PER_MSEC);
	assert_int_equal(a->probe_timeout_ns, 80 * NSEC_PER_MSEC);
	assert_int_equal(a->probe_down, 2);
	assert_int_equal(a->probe_up, 5);
	assert_int_equal(b->probe_interval_ns, NSEC_PER_SEC);
	assert_int_equal(b->probe_timeout_ns, 300 * NSEC_PER_MSEC);
	assert_int_equal(b->probe_down, 1);
	assert_int_equal(b->probe_up, 5);

	/* clients: ids in file order; lab rate and timeout unless overridden */
	west = node(t, "west");
	east = node(t, "east");
	assert_int_equal(west->client_id, 1);
	assert_int_equal(east->client_id, 2);
	assert_true(west->rate == 10);
	assert_int_equal(west->timeout_ns, NSEC_PER_SEC);
	assert_true(east->rate == 250.5);
	assert_int_equal(east->timeout_ns, 250 * NSEC_PER_MSEC);
	free(t);
}

static void test_sets(void **state)
{
	struct topology *t = new_topology();
	char *sets[] = {"probe_interval=300ms", " s1.metric = 7 ", "c1.rate=5",
			"duration = 20s",	"s1.fail=yes",	   "name=other",
			"c1.timeout=2s",	"timeout=1s"};

	(void)state;
	load_ok(t, DATA "minimal.ini", sets, 8);
	assert_string_equal(t->name, "other");
	assert_int_equal(t->duration_ns, 20 * NSEC_PER_SEC);
	assert_int_equal(t->probe_interval_ns, 300 * NSEC_PER_MSEC);
	/* the lab's new default reaches the node that does not override it */
	assert_int_equal(node(t, "s1")->probe_interval_ns, 300 * NSEC_PER_MSEC);
	assert_int_equal(node(t, "s1")->metric, 7);
	assert_int_equal(node(t, "s1")->fail, 1);
	assert_true(node(t, "c1")->rate == 5);
	assert_int_equal(node(t, "c1")->timeout_ns, 2 * NSEC_PER_SEC);
	assert_int_equal(t->timeout_ns, NSEC_PER_SEC);
	free(t);
}

static void test_set_overrides_file(void **state)
{
	struct topology *t = new_topology();
	char *sets[] = {"b.metric=1",	   "a.fail=no",	     "c.fail=1",
			"west.link=edge1", "b.probe_down=9", "b.probe_down=7"};

	(void)state;
	load_ok(t, DATA "full.ini", sets, 6);
	assert_int_equal(node(t, "b")->metric, 1);
	assert_int_equal(node(t, "b")->probe_down, 7); /* the last --set wins */
	assert_int_equal(node(t, "a")->fail, 0);
	assert_int_equal(node(t, "c")->fail, 1);
	assert_string_equal(t->nodes[t->links[0].router].name, "edge1");
	assert_int_equal(t->links[0].line, 0); /* set by --set, not a line */
	free(t);
}

static void test_sizes_and_values(void **state)
{
	static const struct {
		const char *set;
		uint64_t bytes;
	} sizes[] = {
	    {"capture_buffer=64M", 64 << 20},	{"capture_buffer=64MiB", 64 << 20},
	    {"capture_buffer=512K", 512 << 10}, {"capture_buffer=512k", 512 << 10},
	    {"capture_buffer=1KiB", 1024},	{"capture_buffer=65536", 65536},
	    {"capture_buffer=1G", 1 << 30},	{"capture_buffer=2047M", 2047ull << 20},
	};
	struct topology *t = new_topology();
	char *sets[4];

	(void)state;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		sets[0] = (char *)sizes[i].set;
		load_ok(t, DATA "minimal.ini", sets, 1);
		assert_int_equal(t->capture_buffer, sizes[i].bytes);
	}
	sets[0] = "service=198.18.4.0";
	sets[1] = "rate=0.5";
	sets[2] = "s1.fail=TRUE";
	sets[3] = "port=65535";
	load_ok(t, DATA "minimal.ini", sets, 4);
	assert_addr(t->service, "198.18.4.0");
	assert_true(node(t, "c1")->rate == 0.5);
	assert_int_equal(node(t, "s1")->fail, 1);
	assert_int_equal(t->port, 65535);
	free(t);
}

static void test_anycast(void **state)
{
	struct topology *t = new_topology();

	(void)state;
	load_ok(t, "topology/anycast.ini", NULL, 0);
	assert_string_equal(t->name, "anycast");
	assert_int_equal(node(t, "a")->metric, 10);
	assert_int_equal(node(t, "a")->fail, 1);
	assert_int_equal(node(t, "b")->metric, 20);
	assert_int_equal(node(t, "b")->fail, 0);
	assert_int_equal(node(t, "c1")->client_id, 1);
	assert_int_equal(t->nlinks, 3);
	free(t);
}

static void test_golden_anycast(void **state)
{
	struct topology *t = new_topology();
	char *got;

	(void)state;
	load_ok(t, "topology/anycast.ini", NULL, 0);
	got = print_to_string(t);
	test_assert_golden(DATA "anycast.golden", got);
	free(got);
	free(t);
}

/* [lab] target_share (seed 000's T3): kept as written with single spaces,
 * printed by check with the shares it means, and only when set; --set
 * replaces the file's */
static void test_target_share(void **state)
{
	struct topology *t = new_topology();
	char *got, *sets[] = {"target_share= b06:1   b34:0.5 "};

	(void)state;
	load_ok(t, DATA "target.ini", NULL, 0);
	assert_string_equal(t->target_share, "b34:5 b35:3 b06:2");
	got = print_to_string(t);
	assert_non_null(strstr(got, "\nsticky = 60s\n"
				    "# target shares: b34 50.0%, b35 30.0%, b06 20.0% (W / sum W)\n"
				    "target_share = b34:5 b35:3 b06:2\n"
				    "routing = static\n"));
	test_assert_golden(DATA "target.golden", got);
	free(got);

	load_ok(t, DATA "target.ini", sets, 1);
	assert_string_equal(t->target_share, "b06:1 b34:0.5");
	got = print_to_string(t);
	assert_non_null(strstr(got, "\n# target shares: b06 66.7%, b34 33.3% (W / sum W)\n"
				    "target_share = b06:1 b34:0.5\n"));
	free(got);

	/* none by default, and none printed */
	load_ok(t, DATA "minimal.ini", NULL, 0);
	assert_string_equal(t->target_share, "");
	got = print_to_string(t);
	assert_null(strstr(got, "target_share"));
	assert_null(strstr(got, "target shares"));
	free(got);
	sets[0] = "target_share=s1:1";
	load_ok(t, DATA "minimal.ini", sets, 1);
	assert_string_equal(t->target_share, "s1:1");
	free(t);
}

/* Its values: each refused with the same rule, from --set as from a file
 * (err_target_value); its sites checked where they were set. */
static void test_target_share_errors(void **state)
{
	static const char *const bad[] = {
	    "",	     "a",   "a:",   ":5",    "a:0",  "a:0.0",		"a:-1",
	    "a:1e3", "a:x", "a:.5", "a:5.",  "A:5",  "a:5,b:3",		"a:5, b:3",
	    "a:5:3", "a=5", "a 5",  "a:5 b", "a:5%", "toolongname12:1",
	};
	char set[64], expected[256], *sets[1];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(set, sizeof(set), "target_share=%s", bad[i]);
		snprintf(expected, sizeof(expected),
			 "--set %s: expected SITE:W pairs such as b34:5 b35:3, each W a number "
			 "above 0\n",
			 set);
		sets[0] = set;
		expect_errors(DATA "minimal.ini", sets, 1, expected);
	}
	/* blamed on the --set that named the sites */
	sets[0] = "target_share=s1:1 c1:1 s2:1 s1:2";
	expect_errors(DATA "minimal.ini", sets, 1,
		      "--set target_share=s1:1 c1:1 s2:1 s1:2: [lab] target_share: 'c1' is a "
		      "client, not a site\n"
		      "--set target_share=s1:1 c1:1 s2:1 s1:2: [lab] target_share: 's2' is not a "
		      "site in this file\n"
		      "--set target_share=s1:1 c1:1 s2:1 s1:2: [lab] target_share: site 's1' "
		      "twice: expected each site at most once\n");
	/* a refused --set leaves the file's value, checked at its line */
	sets[0] = "target_share=b:0";
	expect_errors(DATA "err_target_share.ini", sets, 1,
		      "--set target_share=b:0: expected SITE:W pairs such as b34:5 b35:3, each W "
		      "a number above 0\n" DATA
		      "err_target_share.ini:3: [lab] target_share: 'zz' is not a site in this "
		      "file\n" DATA
		      "err_target_share.ini:3: [lab] target_share: 'core' is a router, not a "
		      "site\n" DATA
		      "err_target_share.ini:3: [lab] target_share: site 'a' twice: expected each "
		      "site at most once\n");
}

/* topo_capture_ring: each captured link's kernel ring by what it carries
 * (topology.h): a site link every client flow's rate held a second at 256 bytes a packet, in blocks
 * of 256 KiB, from 2 MiB (a site link's; other links 1 MiB) to 64 MiB; capture_buffer set, that for
 * every link; check prints them */
static void test_capture_rings(void **state)
{
	static const char text[] = "[lab]\nname = rings\n[router r1]\n[site s1]\nlink = r1\n"
				   "[site s2]\nlink = r1\n[client c1]\nlink = r1\nrate = 10000\n"
				   "[client c2]\nlink = r1\nrate = 500000\n";
	struct topology *t = new_topology();
	char tmp[64], *got, *sets[2] = {"c2.rate=1000"};

	(void)state;
	write_temp(tmp, text, sizeof(text) - 1);
	load_ok(t, tmp, NULL, 0);
	assert_int_equal(t->capture_buffer, 0);
	/* links 0 and 1 are the sites': 510,000 packets/s is past the cap */
	assert_true(topo_captured(t, 0) && topo_captured(t, 1) && !topo_captured(t, 2));
	assert_int_equal(topo_capture_ring(t, 0), 64 << 20);
	/* 11,000 requests/s (c1 and c2) and their replies x 256 B =
	 * 5,632,000: 22 blocks of 256 KiB */
	load_ok(t, tmp, sets, 1);
	assert_int_equal(topo_capture_ring(t, 0), 22 * (256 << 10));
	assert_int_equal(topo_capture_ring(t, 1), 22 * (256 << 10));
	got = print_to_string(t);
	assert_non_null(strstr(got, "\n# The captures' rings: 2 links, 11 MiB of kernel memory, "
				    "each sized by what it carries;\n"));
	assert_non_null(strstr(got, "\n# captures: s1 5.5 MiB, s2 5.5 MiB: 11 MiB of kernel "
				    "memory\n"));
	assert_non_null(strstr(got, "\ncapture_buffer = auto\n"));
	free(got);
	/* at least eight blocks (lib/capring.h: a quiet link's held 400 ms) */
	sets[0] = "c1.rate=1";
	sets[1] = "c2.rate=1";
	load_ok(t, tmp, sets, 2);
	assert_int_equal(topo_capture_ring(t, 0), 2 << 20);
	/* set: every capture that */
	sets[0] = "capture_buffer=3M";
	load_ok(t, tmp, sets, 1);
	assert_int_equal(topo_capture_ring(t, 0), 3 << 20);
	assert_int_equal(topo_capture_total(t, -1, NULL), 6 << 20);
	sets[0] = "capture_buffer=auto";
	load_ok(t, tmp, sets, 1);
	assert_int_equal(t->capture_buffer, 0);
	unlink(tmp);
	free(t);
}

/* impl = nginx at a site: HTTP clients, probers that connect, no sited
 * signal on the timeline; printed back */
static void test_site_nginx(void **state)
{
	static const char text[] = "[lab]\nname = ng\nproto = http\ncheck = http\n[router r]\n"
				   "[site a]\nlink = r\nimpl = nginx\n[site b]\nlink = r\n"
				   "[client c1]\nlink = r\n";
	struct topology *t = new_topology();
	char tmp[64], want[1024], *got, *udp[1] = {"proto=udp"};
	char *deg[3] = {"check=tcp", "c1.proto=http", "a.check=udp"};

	(void)state;
	write_temp(tmp, text, sizeof(text) - 1);
	load_ok(t, tmp, NULL, 0);
	assert_int_equal(node(t, "a")->site_impl, TOPO_SITE_NGINX);
	assert_int_equal(node(t, "b")->site_impl, TOPO_SITE_SITED);
	got = print_to_string(t);
	assert_non_null(strstr(got, "\n[site a]\n"));
	assert_non_null(strstr(got, "\nimpl = nginx\n"));
	assert_null(strstr(got, "\nimpl = sited\n"));
	free(got);
	snprintf(want, sizeof(want),
		 "%s:8: [site a] impl = nginx: nginx answers HTTP only, and client c1 speaks udp; "
		 "set proto = http\n",
		 tmp);
	expect_errors(tmp, udp, 1, want);
	snprintf(want, sizeof(want),
		 "%s:8: [site a] impl = nginx: its own prober checks it with a request of sited's "
		 "(check = udp); set check = http or tcp\n",
		 tmp);
	expect_errors(tmp, deg, 3, want);
	unlink(tmp);
	free(t);
}

/* proto: the clients' transport, the [lab]'s unless a [client] says; printed
 * when not udp, every client's when the lab's is not (so that the printed
 * form reads back the same); a population takes tcp and http; http makes
 * the sites serve HTTP and the captures take TCP */
static void test_proto(void **state)
{
	static const char text[] = "[lab]\nname = pt\n[router r]\n[site a]\nlink = r\n"
				   "[client c1]\nlink = r\n[client c2]\nlink = r\nproto = tcp\n"
				   "[client c3]\nlink = r\npopulation = 10\n";
	struct topology *t = new_topology(), *back = new_topology();
	char tmp[64], tmp2[64], *got, *sets[1] = {"proto=tcp"},
				      *http[2] = {"proto=http", "c2.proto=http"};
	FILE *f;

	(void)state;
	write_temp(tmp, text, sizeof(text) - 1);
	load_ok(t, tmp, NULL, 0);
	assert_int_equal(t->proto, TOPO_PROTO_UDP);
	assert_int_equal(node(t, "c1")->proto, TOPO_PROTO_UDP);
	assert_int_equal(node(t, "c2")->proto, TOPO_PROTO_TCP);
	assert_true(topo_has_tcp(t));
	assert_false(topo_has_http(t));
	got = print_to_string(t);
	assert_null(strstr(got, "\nproto = udp\n"));
	/* c2's, after its section's line */
	assert_non_null(strstr(got, "\n[client c2]\n"));
	assert_true(strstr(got, "\nproto = tcp\n") > strstr(got, "\n[client c2]\n"));
	free(got);
	/* the lab's tcp: c1 takes it, and the population, one connection a
	 * logical client; and http */
	{
		struct topology *pt = new_topology();

		load_ok(pt, tmp, sets, 1);
		assert_int_equal(node(pt, "c3")->proto, TOPO_PROTO_TCP);
		free(pt);
	}
	{
		struct topology *ph = new_topology();

		load_ok(ph, tmp, http, 2);
		assert_int_equal(node(ph, "c3")->proto, TOPO_PROTO_HTTP);
		free(ph);
	}
	unlink(tmp);
	/* c3 set back to udp: every client's printed, and read back the same */
	write_temp(tmp, text, sizeof(text) - 1);
	f = fopen(tmp, "a");
	assert_non_null(f);
	fputs("proto = udp\n", f);
	fclose(f);
	load_ok(t, tmp, sets, 1);
	assert_int_equal(node(t, "c1")->proto, TOPO_PROTO_TCP);
	assert_int_equal(node(t, "c3")->proto, TOPO_PROTO_UDP);
	got = print_to_string(t);
	assert_non_null(strstr(got, "\nproto = udp\n"));
	write_temp(tmp2, got, strlen(got));
	load_ok(back, tmp2, NULL, 0);
	for (int i = 0; i < t->nnodes; i++)
		assert_int_equal(back->nodes[i].proto, t->nodes[i].proto);
	free(got);
	/* http, the same way: c1 takes the lab's (c2 too: tcp beside http is
	 * refused, test_check_key) */
	load_ok(t, tmp, http, 2);
	assert_int_equal(node(t, "c1")->proto, TOPO_PROTO_HTTP);
	assert_int_equal(node(t, "c2")->proto, TOPO_PROTO_HTTP);
	assert_true(topo_has_http(t));
	got = print_to_string(t);
	assert_non_null(strstr(got, "\nproto = http\n"));
	unlink(tmp2); /* the tcp round trip's */
	write_temp(tmp2, got, strlen(got));
	load_ok(back, tmp2, NULL, 0);
	for (int i = 0; i < t->nnodes; i++)
		assert_int_equal(back->nodes[i].proto, t->nodes[i].proto);
	free(got);
	unlink(tmp);
	unlink(tmp2);
	free(t);
	free(back);
}

/* requests_per_connection, idle_timeout, pipeline: a TCP client's own,
 * printed when set and read back the same; refused on a UDP or HTTP
 * client and on a population, naming the key's line */
static void test_tcp_knobs(void **state)
{
	static const char text[] =
	    "[lab]\nname = kn\n[router r]\n[site a]\nlink = r\n"
	    "[client c1]\nlink = r\nproto = tcp\n"
	    "requests_per_connection = 100\nidle_timeout = 5s\npipeline = 4\n"
	    "[client c2]\nlink = r\n";
	struct topology *t = new_topology(), *back = new_topology();
	char tmp[64], tmp2[64], *got, *udp[1] = {"c2.pipeline=2"},
				      *pop[2] = {"c1.population=10", "c1.rate=100"};
	char want[1024];

	(void)state;
	write_temp(tmp, text, sizeof(text) - 1);
	load_ok(t, tmp, NULL, 0);
	assert_int_equal(node(t, "c1")->requests_per_conn, 100);
	assert_int_equal(node(t, "c1")->idle_timeout_ns, 5 * NSEC_PER_SEC);
	assert_int_equal(node(t, "c1")->pipeline, 4);
	assert_int_equal(node(t, "c2")->pipeline, 0);
	got = print_to_string(t);
	assert_non_null(strstr(got, "\nrequests_per_connection = 100\n"));
	assert_non_null(strstr(got, "\nidle_timeout = 5s\n"));
	assert_non_null(strstr(got, "\npipeline = 4\n"));
	/* c2's are not printed */
	assert_null(strstr(strstr(got, "[client c2]"), "pipeline"));
	write_temp(tmp2, got, strlen(got));
	load_ok(back, tmp2, NULL, 0);
	assert_int_equal(node(back, "c1")->requests_per_conn, 100);
	assert_int_equal(node(back, "c1")->idle_timeout_ns, 5 * NSEC_PER_SEC);
	assert_int_equal(node(back, "c1")->pipeline, 4);
	free(got);
	unlink(tmp2);
	expect_errors(tmp, udp, 1,
		      "--set c2.pipeline=2: [client c2] pipeline: the lab's own client over "
		      "TCP (proto = tcp, one client, no population); libcurl keeps its own "
		      "connections\n");
	snprintf(want, sizeof(want),
		 "%s:9: [client c1] requests_per_connection: the lab's own client over TCP "
		 "(proto = tcp, one client, no population); libcurl keeps its own "
		 "connections\n"
		 "%s:10: [client c1] idle_timeout: the lab's own client over TCP (proto = tcp, "
		 "one client, no population); libcurl keeps its own connections\n"
		 "%s:11: [client c1] pipeline: the lab's own client over TCP (proto = tcp, one "
		 "client, no population); libcurl keeps its own connections\n",
		 tmp, tmp, tmp);
	expect_errors(tmp, pop, 2, want);
	unlink(tmp);
	free(t);
	free(back);
}

/* check: the probers' check, the [lab]'s unless a [site] (its own prober)
 * or a [prober] says; printed when not udp, every one's when the lab's is
 * not; read back the same; http makes the sites serve HTTP, which a client
 * of proto = tcp cannot share */
static void test_check_key(void **state)
{
	struct topology *t = new_topology(), *back = new_topology();
	char tmp2[64], *got, *one[1] = {"a.check=tcp"}, *all[2] = {"check=tcp", "p2.check=udp"};

	(void)state;
	load_ok(t, "topology/dns.ini", one, 1);
	assert_int_equal(t->check, TOPO_CHECK_UDP);
	assert_int_equal(node(t, "a")->check, TOPO_CHECK_TCP);
	assert_int_equal(node(t, "b")->check, TOPO_CHECK_UDP);
	assert_int_equal(node(t, "p1")->check, TOPO_CHECK_UDP);
	got = print_to_string(t);
	assert_null(strstr(got, "\ncheck = udp\n"));
	assert_true(strstr(got, "\ncheck = tcp\n") > strstr(got, "\n[site a]\n"));
	assert_true(strstr(got, "\ncheck = tcp\n") < strstr(got, "\n[site b]\n"));
	free(got);
	/* the lab's tcp: b and p1 take it, p2 keeps its udp */
	load_ok(t, "topology/dns.ini", all, 2);
	assert_int_equal(node(t, "b")->check, TOPO_CHECK_TCP);
	assert_int_equal(node(t, "p1")->check, TOPO_CHECK_TCP);
	assert_int_equal(node(t, "p2")->check, TOPO_CHECK_UDP);
	got = print_to_string(t);
	write_temp(tmp2, got, strlen(got));
	load_ok(back, tmp2, NULL, 0);
	for (int i = 0; i < t->nnodes; i++)
		assert_int_equal(back->nodes[i].check, t->nodes[i].check);
	free(got);
	unlink(tmp2);
	assert_false(topo_has_http(t));
	{
		char *http[1] = {"p1.check=http"}, *clash[2] = {"p1.check=http", "proto=tcp"},
		     want[512];

		load_ok(t, "topology/dns.ini", http, 1);
		assert_int_equal(node(t, "p1")->check, TOPO_CHECK_HTTP);
		assert_true(topo_has_http(t));
		got = print_to_string(t);
		assert_non_null(strstr(got, "\ncheck = http\n"));
		free(got);
		snprintf(want, sizeof(want),
			 "topology/dns.ini:%d: [client c1] proto = tcp: the sites serve HTTP on "
			 "their TCP port in this lab (a client with proto = http, or check = "
			 "http); one TCP service a lab: set proto = http or udp for it\n",
			 node(t, "c1")->line);
		expect_errors("topology/dns.ini", clash, 2, want);
	}
	free(t);
	free(back);
}

/* roundtrip: what topo_print writes, topo_load reads back the same. */
static void roundtrip(const char *path, char *const sets[], int nsets)
{
	struct topology *t = new_topology(), *u = new_topology();
	char tmp[64], *first, *second;

	load_ok(t, path, sets, nsets);
	first = print_to_string(t);
	write_temp(tmp, first, strlen(first));
	load_ok(u, tmp, NULL, 0);
	unlink(tmp);
	second = print_to_string(u);
	assert_string_equal(first, second);
	assert_int_equal(t->nnodes, u->nnodes);
	for (int i = 0; i < t->nnodes; i++) {
		const struct topo_node *a = &t->nodes[i], *b = &u->nodes[i];

		assert_int_equal(a->kind, b->kind);
		assert_string_equal(a->name, b->name);
		assert_int_equal(a->link, b->link);
		assert_int_equal(a->metric, b->metric);
		assert_int_equal(a->fail, b->fail);
		assert_int_equal(a->probe_interval_ns, b->probe_interval_ns);
		assert_int_equal(a->probe_timeout_ns, b->probe_timeout_ns);
		assert_int_equal(a->probe_down, b->probe_down);
		assert_int_equal(a->probe_up, b->probe_up);
		assert_true(a->rate == b->rate);
		assert_int_equal(a->timeout_ns, b->timeout_ns);
		assert_int_equal(a->client_id, b->client_id);
		assert_int_equal(a->address.s_addr, b->address.s_addr);
		assert_int_equal(a->mode, b->mode);
		assert_int_equal(a->resolver, b->resolver);
		assert_int_equal(a->resolver_instance, b->resolver_instance);
		assert_int_equal(a->count, b->count);
		assert_int_equal(a->resolver_net.s_addr, b->resolver_net.s_addr);
		assert_string_equal(a->dns_name, b->dns_name);
		assert_int_equal(a->sticky_ns, b->sticky_ns);
		assert_true(a->quorum == b->quorum);
		assert_int_equal(a->fail_closed, b->fail_closed);
		assert_int_equal(a->asn, b->asn);
		assert_int_equal(a->router_id.s_addr, b->router_id.s_addr);
	}
	assert_int_equal(t->routing, u->routing);
	assert_int_equal(t->nrlinks, u->nrlinks);
	for (int i = 0; i < t->nrlinks; i++) {
		assert_int_equal(t->rlinks[i].a, u->rlinks[i].a);
		assert_int_equal(t->rlinks[i].b, u->rlinks[i].b);
		assert_int_equal(t->rlinks[i].a_addr.s_addr, u->rlinks[i].a_addr.s_addr);
	}
	assert_string_equal(t->dns_name, u->dns_name);
	assert_true(t->sticky_share == u->sticky_share);
	assert_int_equal(t->sticky_ns, u->sticky_ns);
	assert_int_equal(t->nraw_sections, u->nraw_sections);
	for (int i = 0; i < t->nraw_sections; i++) {
		assert_string_equal(t->raw_sections[i].kind, u->raw_sections[i].kind);
		assert_string_equal(t->raw_sections[i].name, u->raw_sections[i].name);
	}
	assert_int_equal(t->nraw_pairs, u->nraw_pairs);
	for (int i = 0; i < t->nraw_pairs; i++) {
		assert_int_equal(t->raw_pairs[i].section, u->raw_pairs[i].section);
		assert_string_equal(t->raw_pairs[i].key, u->raw_pairs[i].key);
		assert_string_equal(t->raw_pairs[i].value, u->raw_pairs[i].value);
	}
	assert_int_equal(t->nrsv_pairs, u->nrsv_pairs);
	for (int i = 0; i < t->nrsv_pairs; i++) {
		assert_int_equal(t->rsv_pairs[i].node, u->rsv_pairs[i].node);
		assert_string_equal(t->rsv_pairs[i].key, u->rsv_pairs[i].key);
		assert_string_equal(t->rsv_pairs[i].value, u->rsv_pairs[i].value);
	}
	assert_int_equal(t->nlinks, u->nlinks);
	for (int i = 0; i < t->nlinks; i++) {
		assert_int_equal(t->links[i].router, u->links[i].router);
		assert_int_equal(t->links[i].node, u->links[i].node);
		assert_int_equal(t->links[i].node_addr.s_addr, u->links[i].node_addr.s_addr);
	}
	free(first);
	free(second);
	free(t);
	free(u);
}

static void test_print_roundtrip(void **state)
{
	char *sets[] = {"fail_at=1234567ns", "capture_buffer=1000", "b.metric=0"};
	char *dns_sets[] = {"c1.mode=anycast",	     "c2.name=api.lab.example.", "ns.quorum=0",
			    "ns.all_dead=fail-open", "a.address=198.18.100.1",	 "c2.sticky=1500ms",
			    "p1.probe_up=7",	     "dns_name=x_y.lab.example"};
	char *rsv_sets[] = {"r.count=7", "c2.resolver=edge", "c8.resolver=r.6"};
	/* the clients sticky_share chose are printed with their sticky, and
	 * read back as their own: the same clients, whatever the share */
	char *sticky_sets[] = {"sticky_share=0.25", "sticky=90s", "c3.sticky=0", "c2.mode=dns",
			       "c2.resolver=ns"};
	char *share_sets[] = {"sticky_share=0.000001"};
	char *compare_sets[] = {"sticky_share=0.5", "sticky=1500ms"};

	(void)state;
	roundtrip("topology/anycast.ini", NULL, 0);
	roundtrip(DATA "full.ini", NULL, 0);
	roundtrip(DATA "full.ini", sets, 3);
	roundtrip(DATA "dns.ini", NULL, 0);
	roundtrip(DATA "dns.ini", dns_sets, 8);
	roundtrip(DATA "resolver.ini", NULL, 0);
	roundtrip(DATA "resolver.ini", rsv_sets, 3);
	roundtrip("topology/compare.ini", NULL, 0);
	roundtrip(DATA "sticky.ini", NULL, 0);
	roundtrip(DATA "sticky.ini", sticky_sets, 5);
	roundtrip(DATA "sticky.ini", share_sets, 1);
	roundtrip("topology/compare.ini", compare_sets, 2);
	roundtrip(DATA "routers.ini", NULL, 0);
	roundtrip(DATA "target.ini", NULL, 0);
}

static void test_format(void **state)
{
	char buf[32];

	(void)state;
	assert_string_equal(topo_format_duration(0, buf, sizeof(buf)), "0s");
	assert_string_equal(topo_format_duration(3 * NSEC_PER_SEC, buf, sizeof(buf)), "3s");
	assert_string_equal(topo_format_duration(1500 * NSEC_PER_MSEC, buf, sizeof(buf)), "1500ms");
	assert_string_equal(topo_format_duration(250 * NSEC_PER_USEC, buf, sizeof(buf)), "250us");
	assert_string_equal(topo_format_duration(7, buf, sizeof(buf)), "7ns");
	assert_string_equal(topo_format_size(64 << 20, buf, sizeof(buf)), "64M");
	assert_string_equal(topo_format_size(3ull << 30, buf, sizeof(buf)), "3G");
	assert_string_equal(topo_format_size(1536, buf, sizeof(buf)), "1536");
	assert_string_equal(topo_format_size(2048, buf, sizeof(buf)), "2K");
}

static void test_find_and_kinds(void **state)
{
	struct topology *t = new_topology();

	(void)state;
	load_ok(t, DATA "full.ini", NULL, 0);
	assert_int_equal(topo_find(t, "west"), 0);
	assert_int_equal(topo_find(t, "c"), 5);
	assert_int_equal(topo_find(t, "nowhere"), -1);
	assert_string_equal(topo_kind_name(TOPO_ROUTER), "router");
	assert_string_equal(topo_kind_name(TOPO_SITE), "site");
	assert_string_equal(topo_kind_name(TOPO_CLIENT), "client");
	assert_string_equal(topo_kind_name(TOPO_DNS), "dns");
	assert_string_equal(topo_kind_name(TOPO_PROBER), "prober");
	assert_string_equal(topo_kind_name(TOPO_RESOLVER), "resolver");
	free(t);
}

/*
 * Errors: the exact messages, file:line first. Each err_NAME.ini has its
 * messages in err_NAME.expected beside it.
 */
static void test_error_files(void **state)
{
	static const char *const cases[] = {
	    "err_metric",	/* a bad value */
	    "err_unknown_key",	/* unknown keys, per kind */
	    "err_unknown_kind", /* [switch s1]; its keys are not reported again */
	    "err_link",		/* missing, unknown, not a router */
	    "err_no_site",	/* a kind missing */
	    "err_no_lab",	/* no [lab] */
	    "err_no_name",	/* [lab] without a name */
	    "err_duplicate",	/* node names, keys, [lab] */
	    "err_syntax",	/* lines inih rejects, headers, indentation */
	    "err_values",	/* every value type, all errors reported */
	    "err_checks",	/* across keys: fail_at, probes, two failing sites */
	    "err_names",	/* names in headers */
	    "err_paths",	/* a second router, a client with no site */
	    "err_population",	/* population keys without one, out of range */
	    "err_target_share", /* [lab] target_share's sites: unknown, not a site, twice */
	    "err_target_value", /* [lab] target_share's value */
	    "err_hosts",	/* [host] sections and nodes' host */
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
}

/* A few messages spelled out here, so the form is visible in the source. */
static void test_error_forms(void **state)
{
	(void)state;
	expect_errors(DATA "err_metric.ini", NULL, 0,
		      DATA "err_metric.ini:8: [site a] metric: expected a whole number from 0 to "
			   "4294967295, got 'abc'\n");
	expect_errors(DATA "err_unknown_kind.ini", NULL, 0,
		      DATA "err_unknown_kind.ini:3: unknown section kind 'switch' (expected [lab], "
			   "[router NAME], [site NAME], [client NAME], [dns NAME], [prober NAME], "
			   "[resolver NAME], [link ROUTER ROUTER], [event NAME], [host NAME], "
			   "[zone NAME] or [name NAME])\n");
	expect_errors(DATA "err_no_site.ini", NULL, 0,
		      DATA "err_no_site.ini: no [site] section: a lab needs at least one site\n");
}

/* Paths: a client moved by --set onto the router without a site is blamed
 * at the --set; the second router at its header. */
static void test_error_paths(void **state)
{
	char *sets[] = {"c1.link=edge", "c2.link=core"};

	(void)state;
	expect_errors(DATA "err_paths.ini", sets, 2,
		      DATA "err_paths.ini:11: [router edge]: not connected to router 'core' (line "
			   "5): no [link] names it; expected a [link] section such as [link core "
			   "edge]\n"
			   "--set c1.link=edge: [client c1] link: no path to any site: no [site] "
			   "is linked to router 'edge' or to a router connected to it; expected "
			   "the router of a site\n");
}

static void test_error_missing_file(void **state)
{
	struct topology *t = new_topology();
	char *errs;

	(void)state;
	assert_int_equal(load(t, DATA "no-such-file.ini", NULL, 0, &errs), -1);
	assert_string_equal(errs, DATA "no-such-file.ini: No such file or directory\n");
	free(errs);
	/* `steerlab check /dev/zero` read without end; refused at once */
	assert_int_equal(load(t, "/dev/zero", NULL, 0, &errs), -1);
	assert_string_equal(
	    errs, "/dev/zero: not a regular file (a character device): expected a file\n");
	free(errs);
	free(t);
}

/* family = 6: in a dual lab only (BGP's too); what IPv6 clients do not do
 * yet is refused by name; the [lab]'s family is every client's */
static void test_family(void **state)
{
	struct topology *t = new_topology();
	char *v4[] = {"family=6"};
	char *pop[] = {"ip=dual", "family=6", "c1.population=10"};
	/* several addresses and libcurl's resolution are an IPv6 client's too
	 * (docs/topology.md, "Several addresses", "libcurl's DNS cache") */
	char *next[] = {"ip=dual", "c1.family=6", "c2.family=dual", "proto=tcp", "addresses=next"};
	char *lib[] = {"ip=dual", "family=dual", "proto=http", "c1.resolve=libcurl",
		       "c2.addresses=first"};
	char *libpick[] = {"ip=dual",
			   "family=6",
			   "proto=http",
			   "c1.resolve=libcurl",
			   "c1.addresses=sorted",
			   "c2.addresses=random"};
	char *poptcp[] = {"ip=dual", "family=dual", "c1.population=10", "proto=tcp"};
	char *popblock[] = {"ip=dual", "family=6", "c1.population=10",
			    "c1.source_block=198.18.64.0/24"};
	char *bgp[] = {"ip=dual", "c1.family=6", "routing=bgp"};
	char *ok[] = {"ip=dual", "c1.family=6"};
	char *pdns[] = {"ip=dual", "family=6"};
	char *gdnsd[] = {"ip=dual", "family=dual"};

	(void)state;
	/* PowerDNS and gdnsd answer AAAA too (docs/authorities.md, "IPv6") */
	load_ok(t, "topology/pdns.ini", pdns, 2);
	load_ok(t, "topology/gdnsd.ini", gdnsd, 2);
	expect_errors(DATA "minimal.ini", v4, 1,
		      "--set family=6: [client c1] family = 6: the lab's network has no IPv6; "
		      "set [lab] ip = dual\n");
	/* a population of IPv6 clients: over UDP, without a source block */
	load_ok(t, DATA "minimal.ini", pop, 3);
	assert_int_equal(t->nodes[topo_find(t, "c1")].population, 10);
	expect_errors(DATA "minimal.ini", poptcp, 4,
		      "--set family=dual: [client c1] family = dual: not yet with a population "
		      "over TCP or HTTP (proto = tcp or http with population = N); IPv6 clients "
		      "send over UDP or, one client, TCP and HTTP\n");
	expect_errors(DATA "minimal.ini", popblock, 4,
		      "--set family=6: [client c1] family = 6: not yet with a population's "
		      "source_block (its block is IPv4); IPv6 clients send over UDP or, one "
		      "client, TCP and HTTP\n");
	load_ok(t, "topology/tcp-addresses.ini", next, 5);
	assert_int_equal(t->nodes[topo_find(t, "c2")].family, TOPO_FAMILY_DUAL);
	assert_int_equal(t->nodes[topo_find(t, "c2")].addresses, TOPO_ADDRESSES_NEXT);
	load_ok(t, "topology/tcp-addresses.ini", lib, 5);
	assert_int_equal(t->nodes[topo_find(t, "c1")].resolve, TOPO_RESOLVE_LIBCURL);
	/* libcurl keeps its own order, whatever the family */
	expect_errors("topology/tcp-addresses.ini", libpick, 6,
		      "--set c1.resolve=libcurl: [client c1] resolve = libcurl: libcurl "
		      "resolves the name of an HTTP client's DNS flow (proto = http, mode = dns "
		      "or both), one client (no population), keeping its answer as its DNS "
		      "cache says (no sticky, addresses = first)\n");
	/* routing = bgp carries IPv6 unicast too */
	load_ok(t, DATA "minimal.ini", bgp, 3);
	char *dual[] = {"ip=dual", "c1.family=dual", "timeout=250ms"};

	expect_errors(
	    DATA "minimal.ini", dual, 3,
	    "--set c1.family=dual: [client c1] family = dual: its timeout (250 ms) must be "
	    "longer than Happy Eyeballs' attempt delay, 250 ms: a request is sent again "
	    "over IPv4 that long after it left over IPv6\n");
	load_ok(t, DATA "minimal.ini", ok, 2);
	assert_int_equal(t->nodes[topo_find(t, "c1")].family, TOPO_FAMILY_6);
	{
		char *text = print_to_string(t);

		assert_non_null(strstr(text, "family = 6"));
		free(text);
	}
	free(t);
}

/* a [prober] of family = 6 (probing the sites and reporting over IPv6):
 * in a dual lab, one family; the [lab]'s family is not its */
static void test_prober_family(void **state)
{
	struct topology *t = new_topology();
	char *v4[] = {"p1.family=6"};
	char *dual[] = {"ip=dual", "p1.family=dual"};
	char *lab[] = {"ip=dual", "family=6"};
	char *ok[] = {"ip=dual", "p1.family=6"};

	(void)state;
	expect_errors(DATA "dns.ini", v4, 1,
		      "--set p1.family=6: [prober p1] family = 6: the lab's network has no "
		      "IPv6; set [lab] ip = dual\n");
	expect_errors(DATA "dns.ini", dual, 2,
		      "--set p1.family=dual: [prober p1] family = dual: a prober probes over one "
		      "family; expected 4 or 6 (two [prober] nodes probe both)\n");
	load_ok(t, DATA "dns.ini", lab, 2);
	assert_int_equal(t->nodes[topo_find(t, "p1")].family, TOPO_FAMILY_4);
	load_ok(t, DATA "dns.ini", ok, 2);
	assert_int_equal(t->nodes[topo_find(t, "p1")].family, TOPO_FAMILY_6);
	{
		char *text = print_to_string(t), *p = strstr(text, "[prober p1]");

		assert_non_null(p);
		assert_non_null(strstr(p, "family = 6"));
		free(text);
	}
	free(t);
}

/* ip = 6: every client and prober of family 6 unless said, which is
 * refused; what it cannot have yet refused by name */
static void test_ip6(void **state)
{
	struct topology *t = new_topology();
	char *ok[] = {"ip=6", "routing=bgp"};
	char *stat[] = {"ip=6"};
	char *res[] = {"ip=6", "ecmp=resilient"};
	char *four[] = {"ip=6", "routing=bgp", "c1.family=4"};

	(void)state;
	load_ok(t, DATA "dns.ini", ok, 2);
	assert_int_equal(t->ip, TOPO_IP_6);
	assert_int_equal(t->nodes[topo_find(t, "p1")].family, TOPO_FAMILY_6);
	for (int i = 0; i < t->nnodes; i++)
		if (t->nodes[i].kind == TOPO_CLIENT)
			assert_int_equal(t->nodes[i].family, TOPO_FAMILY_6);
	{
		char *text = print_to_string(t);

		assert_non_null(strstr(text, "# ip = 6: the IPv4 addresses below are on no "
					     "interface"));
		free(text);
	}
	/* routing = static too: routed's announcements and routes in IPv6 */
	load_ok(t, DATA "dns.ini", stat, 1);
	assert_int_equal(t->routing, TOPO_ROUTING_STATIC);
	expect_errors(DATA "dns.ini", res, 2,
		      DATA "dns.ini:25: [client c1] family = 6: not yet with ecmp = resilient (its "
			   "nexthop groups are IPv4 only here); IPv6 clients send over UDP or, one "
			   "client, TCP and HTTP\n" DATA
			   "dns.ini:30: [client c2] family = 6: not yet with ecmp = resilient (its "
			   "nexthop groups are IPv4 only here); IPv6 clients send over UDP or, one "
			   "client, TCP and HTTP\n"
			   "--set ip=6: [lab] ip = 6: not yet with ecmp = resilient (its nexthop "
			   "groups are IPv4)\n");
	expect_errors(DATA "dns.ini", four, 3,
		      "--set c1.family=4: [client c1] family = 4: the lab's network has no IPv4 "
		      "(ip = 6); expected 6\n");
	free(t);
}

static void test_error_sets(void **state)
{
	char *sets[] = {
	    "probe_interval=fast", "z.metric=3", "noeq",	  "s1.colour=1", "r1.x=1",
	    "c1.rate=0",	   "name=",	 "s1.metric=abc", "colour=1"};

	(void)state;
	expect_errors(
	    DATA "minimal.ini", sets, 9,
	    "--set probe_interval=fast: expected a duration such as 100ms or 2s\n"
	    "--set z.metric=3: no node or event named 'z'\n"
	    "--set noeq: expected key=value or node.key=value\n"
	    "--set s1.colour=1: unknown key 'colour' in [site s1] (expected: link, address, "
	    "metric, fail, probe_interval, probe_timeout, probe_down, probe_up, check, asn, "
	    "prepend, "
	    "bgp_keepalive, bgp_hold, bgp_mrai, bfd, location, impl, probe_phase, front_door, "
	    "host)\n"
	    "--set r1.x=1: unknown key 'x' in [router r1] (expected: asn, bgp_keepalive, "
	    "bgp_hold, bgp_mrai, bfd, location, host)\n"
	    "--set c1.rate=0: expected requests per second from 0.001 to 1000000, such as "
	    "1000 or 0.5\n"
	    "--set name=: expected a name of 1 to 12 characters from a-z, 0-9 and '-', "
	    "starting with a letter or digit\n"
	    "--set s1.metric=abc: expected a whole number from 0 to 4294967295\n"
	    /* every [lab] key, the last ones included */
	    "--set colour=1: unknown key 'colour' in [lab] (expected: name, service, port, "
	    "fail_at, duration, settle, capture_buffer, rate, timeout, probe_interval, "
	    "probe_timeout, probe_down, probe_up, dns_name, sticky_share, sticky, target_share, "
	    "routing, static_refresh, static_hold, fail_jitter, seed, bgp_keepalive, bgp_hold, "
	    "bgp_connect_retry, bgp_mrai, bfd, bfd_interval, bfd_multiplier, damping, "
	    "damping_half_life, damping_reuse, damping_suppress, damping_max_suppress, ecmp, "
	    "records, dns_tree, hop_delay, proto, check, addresses, connect_timeout, ecmp_hash, "
	    "http_path, http_status, http_body, probe_connect_timeout, reconnect, probe_phase, "
	    "ip, family)\n");
}

static void test_error_set_checks(void **state)
{
	char *dur[] = {"duration=2s"};
	char *pt[] = {"s1.probe_timeout=1s"};
	char *link[] = {"c1.link=s1"};
	char *fail[] = {"b.fail=1"};
	char *late[] = {"fail_at=1s", "fail_at=20s"};
	struct topology *t;

	(void)state;
	/* fail_at bounds the traffic only when a site fails by it (fail =
	 * yes), as anycast.ini's a does; minimal.ini fails nothing */
	expect_errors(
	    "topology/anycast.ini", dur, 1,
	    "--set duration=2s: [lab] duration: expected more than fail_at (3s), got 2s\n");
	t = new_topology();
	load_ok(t, DATA "minimal.ini", dur, 1);
	free(t);
	expect_errors(DATA "minimal.ini", pt, 1,
		      "--set s1.probe_timeout=1s: [site s1] probe_timeout: expected less than "
		      "probe_interval (100ms), got 1s\n");
	expect_errors(DATA "minimal.ini", link, 1,
		      "--set c1.link=s1: [client c1] link: 's1' is a site, not a router\n");
	expect_errors("topology/anycast.ini", fail, 1,
		      "--set b.fail=1: [site b] fail: at most one site may fail, and site 'a' "
		      "already does\n");
	/* the error points at the override that took effect, the last one */
	expect_errors(DATA "minimal.ini", late, 2,
		      "--set fail_at=20s: [lab] fail_at: expected less than duration (10s), got "
		      "20s\n");
}

static void test_error_limits(void **state)
{
	static const char nul[] = "[lab]\nname = x\0y\n";
	char path[64], expected[512], *text, *p;
	size_t len;

	(void)state;
	/* a NUL byte */
	write_temp(path, nul, sizeof(nul) - 1);
	/* a lost line may have held what is missing: that is not reported */
	snprintf(expected, sizeof(expected), "%s:2: unexpected NUL byte\n", path);
	expect_errors(path, NULL, 0, expected);
	unlink(path);

	/* a line longer than inih's buffer */
	text = calloc(1, 400);
	assert_non_null(text);
	len = (size_t)snprintf(text, 400, "[router r]\n[site s]\nlink = %0250d\n", 0);
	write_temp(path, text, len);
	snprintf(expected, sizeof(expected), "%s:3: line too long (at most 198 characters)\n",
		 path);
	expect_errors(path, NULL, 0, expected);
	unlink(path);
	free(text);

	/* many errors: the first 20, then it stops */
	text = calloc(1, 8192);
	assert_non_null(text);
	p = text;
	for (int i = 0; i < 30; i++)
		p += sprintf(p, "[switch s%d]\n", i);
	write_temp(path, text, (size_t)(p - text));
	p = text;
	for (int i = 0; i < 20; i++)
		p += sprintf(
		    p,
		    "%s:%d: unknown section kind 'switch' (expected [lab], [router NAME], "
		    "[site NAME], [client NAME], [dns NAME], [prober NAME], [resolver NAME], "
		    "[link ROUTER ROUTER], [event NAME], [host NAME], [zone NAME] or [name "
		    "NAME])\n",
		    path, i + 1);
	sprintf(p, "%s: too many errors, stopping\n", path);
	expect_errors(path, NULL, 0, text);
	unlink(path);
	free(text);
}

static void test_syntax_accepted(void **state)
{
	/* a BOM, CRLF line ends, "key: value", inline and # comments */
	static const char text[] = "\xEF\xBB\xBF# comment\r\n[lab] ; the lab\r\nname = crlf ; "
				   "inline\r\n\r\n[router r]\r\n[site s]\r\n  link: r\r\n"
				   "[client c]\r\nlink=r\r\n";
	struct topology *t = new_topology();
	char path[64];

	(void)state;
	write_temp(path, text, sizeof(text) - 1);
	load_ok(t, path, NULL, 0);
	unlink(path);
	assert_string_equal(t->name, "crlf");
	assert_int_equal(t->nlinks, 2);
	assert_int_equal(t->links[0].line, 7);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_minimal_defaults),
	    cmocka_unit_test(test_full_values),
	    cmocka_unit_test(test_sets),
	    cmocka_unit_test(test_set_overrides_file),
	    cmocka_unit_test(test_sizes_and_values),
	    cmocka_unit_test(test_anycast),
	    cmocka_unit_test(test_golden_anycast),
	    cmocka_unit_test(test_target_share),
	    cmocka_unit_test(test_target_share_errors),
	    cmocka_unit_test(test_capture_rings),
	    cmocka_unit_test(test_proto),
	    cmocka_unit_test(test_tcp_knobs),
	    cmocka_unit_test(test_site_nginx),
	    cmocka_unit_test(test_check_key),
	    cmocka_unit_test(test_print_roundtrip),
	    cmocka_unit_test(test_format),
	    cmocka_unit_test(test_find_and_kinds),
	    cmocka_unit_test(test_syntax_accepted),
	    cmocka_unit_test(test_error_files),
	    cmocka_unit_test(test_error_forms),
	    cmocka_unit_test(test_error_paths),
	    cmocka_unit_test(test_error_missing_file),
	    cmocka_unit_test(test_family),
	    cmocka_unit_test(test_prober_family),
	    cmocka_unit_test(test_ip6),
	    cmocka_unit_test(test_error_sets),
	    cmocka_unit_test(test_error_set_checks),
	    cmocka_unit_test(test_error_limits),
	};

	return cmocka_run_group_tests_name("topology", tests, NULL, NULL);
}
