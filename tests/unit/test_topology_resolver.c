/*
 * Topology files with caching resolvers (lab/topology/topology.h): the [resolver]
 * kind, its addresses, the clients' choice of cache (in turn, or NAME.N),
 * the resolverd keys kept as written, the configuration the lab makes for
 * resolverd (lab/build/resolvconf.c) and resolverd's own parser run on it, the
 * errors with their exact messages, and the golden test of topo_print for
 * resolver.ini. Run from the repository root.
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

#include "agents/resolverd/config.h"
#include "lab/build/resolvconf.h"
#include "lab/topology/topology.h"
#include "test_topology_util.h"
#include "timeutil.h"

/* A lab around one [resolver] node: the lines of the resolver's section
 * and the clients' are the caller's (they follow line 9). */
static const char head[] = "[lab]\nname = l\n[router core]\n[site a]\nlink = core\n"
			   "[dns ns]\nlink = core\n[zone lab.example]\n"
			   "soa = ns hostmaster 1 3600 600 86400 30\n"; /* 9 lines */

/* load_text: head and then text, loaded; the temporary file is removed. */
static int load_text(struct topology *t, const char *text, char *const sets[], int nsets,
		     char **errs, char *path)
{
	char *all = malloc(strlen(head) + strlen(text) + 1);
	int rc;

	assert_non_null(all);
	strcpy(all, head);
	strcat(all, text);
	write_temp(path, all, strlen(all));
	free(all);
	rc = load(t, path, sets, nsets, errs);
	return rc;
}

static void test_resolver_values(void **state)
{
	static const struct {
		const char *client, *resolver, *address;
		int instance;
	} clients[] = {
	    /* r's turn, in file order: c1, c2, c5, c8 (c3 names its cache, c7 is anycast) */
	    {"c1", "r", "198.18.128.1", 1}, {"c2", "r", "198.18.128.2", 2},
	    {"c3", "r", "198.18.128.1", 1}, {"c4", "edge", "198.18.129.1", 1},
	    {"c5", "r", "198.18.128.3", 3}, {"c6", "ns", "198.18.0.18", 0},
	    {"c8", "r", "198.18.128.1", 1},
	};
	static const struct {
		const char *key, *value;
		int line;
	} pairs[] = {
	    {"phase", "spread", 23},
	    {"serve_stale", "yes", 24},
	    {"timeout", "200ms", 25},
	};
	struct topology *t = new_topology();
	const struct topo_node *r, *edge;

	(void)state;
	load_ok(t, DATA "resolver.ini", NULL, 0);
	r = node(t, "r");
	edge = node(t, "edge");
	assert_int_equal(r->kind, TOPO_RESOLVER);
	assert_int_equal(r->line, 20);
	assert_int_equal(r->count, 3);
	assert_int_equal(edge->count, 1); /* the default */
	/* links in file order, resolvers among the others */
	assert_int_equal(r->link, 3);
	assert_int_equal(edge->link, 12);
	assert_addr(t->links[r->link].node_addr, "198.18.0.14");
	assert_string_equal(t->links[r->link].router_ifname, "r");
	/* the k-th [resolver] node has 198.18.(128 + k).0/24, cache i at .i */
	assert_addr(r->resolver_net, "198.18.128.0");
	assert_addr(edge->resolver_net, "198.18.129.0");
	assert_addr(topo_resolver_addr(t, node_index(t, "r"), 1), "198.18.128.1");
	assert_addr(topo_resolver_addr(t, node_index(t, "r"), 3), "198.18.128.3");
	assert_addr(topo_resolver_addr(t, node_index(t, "edge"), 1), "198.18.129.1");

	for (size_t i = 0; i < sizeof(clients) / sizeof(clients[0]); i++) {
		int c = node_index(t, clients[i].client);

		assert_int_equal(t->nodes[c].resolver, node_index(t, clients[i].resolver));
		assert_int_equal(t->nodes[c].resolver_instance, clients[i].instance);
		assert_addr(topo_client_resolver(t, c), clients[i].address);
	}
	assert_int_equal(node(t, "c7")->resolver, -1); /* anycast: not used */
	assert_int_equal(node(t, "c7")->resolver_instance, 0);

	/* resolverd's keys: as written, with their lines, not the topology's keys */
	assert_int_equal(t->nrsv_pairs, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(t->rsv_pairs[i].node, node_index(t, "r"));
		assert_string_equal(t->rsv_pairs[i].key, pairs[i].key);
		assert_string_equal(t->rsv_pairs[i].value, pairs[i].value);
		assert_int_equal(t->rsv_pairs[i].line, pairs[i].line);
	}
	assert_int_equal(t->nraw_pairs, 7); /* [zone] and [name] are apart */
	free(t);
}

/* Round-robin over the caches, with --set: the turn follows the file order
 * of the clients that name the node without a number. */
static void test_resolver_turns(void **state)
{
	struct topology *t = new_topology();
	char *count[] = {"r.count=2"};
	char *mixed[] = {"c1.resolver=r.3", "c8.mode=anycast", "c5.resolver=ns", "r.count=250"};

	(void)state;
	load_ok(t, DATA "resolver.ini", count, 1);
	assert_int_equal(node(t, "c1")->resolver_instance, 1);
	assert_int_equal(node(t, "c2")->resolver_instance, 2);
	assert_int_equal(node(t, "c3")->resolver_instance, 1);
	assert_int_equal(node(t, "c5")->resolver_instance, 1);
	assert_int_equal(node(t, "c8")->resolver_instance, 2);

	load_ok(t, DATA "resolver.ini", mixed, 4);
	assert_int_equal(node(t, "r")->count, 250);
	assert_int_equal(node(t, "c1")->resolver_instance, 3); /* named: takes no turn */
	assert_int_equal(node(t, "c2")->resolver_instance, 1);
	assert_int_equal(node(t, "c3")->resolver_instance, 1);
	assert_int_equal(node(t, "c5")->resolver, node_index(t, "ns"));
	assert_int_equal(node(t, "c5")->resolver_instance, 0);
	assert_int_equal(node(t, "c8")->resolver, -1);
	assert_addr(topo_client_resolver(t, node_index(t, "c1")), "198.18.128.3");
	assert_addr(topo_resolver_addr(t, node_index(t, "r"), 250), "198.18.128.250");
	free(t);
}

static void test_resolver_golden(void **state)
{
	struct topology *t = new_topology(), *u = new_topology();
	char *got, *again, tmp[64];

	(void)state;
	load_ok(t, DATA "resolver.ini", NULL, 0);
	got = print_to_string(t);
	test_assert_golden(DATA "resolver.golden", got);

	/* what it prints reads back to the same lab, the same caches chosen */
	write_temp(tmp, got, strlen(got));
	load_ok(u, tmp, NULL, 0);
	unlink(tmp);
	again = print_to_string(u);
	assert_string_equal(got, again);
	for (int i = 0; i < t->nnodes; i++) {
		assert_int_equal(t->nodes[i].resolver, u->nodes[i].resolver);
		assert_int_equal(t->nodes[i].resolver_instance, u->nodes[i].resolver_instance);
		assert_int_equal(t->nodes[i].count, u->nodes[i].count);
		assert_int_equal(t->nodes[i].resolver_net.s_addr, u->nodes[i].resolver_net.s_addr);
	}
	assert_int_equal(t->nrsv_pairs, u->nrsv_pairs);
	for (int i = 0; i < t->nrsv_pairs; i++) {
		assert_int_equal(t->rsv_pairs[i].node, u->rsv_pairs[i].node);
		assert_string_equal(t->rsv_pairs[i].key, u->rsv_pairs[i].key);
		assert_string_equal(t->rsv_pairs[i].value, u->rsv_pairs[i].value);
	}
	free(got);
	free(again);
	free(t);
	free(u);
}

/* write_conf: resolvconf_write of node name into a string. */
static char *write_conf(const struct topology *t, const char *name)
{
	char *buf;
	size_t len;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(out);
	assert_int_equal(resolvconf_write(t, node_index(t, name), out), 0);
	fclose(out);
	return buf;
}

/* The configuration the lab writes: the node's keys at their lines. */
static void test_resolver_conf(void **state)
{
	struct topology *t = new_topology();
	char want[1024], *got;
	struct rsv_conf c;
	FILE *f;

	(void)state;
	load_ok(t, DATA "resolver.ini", NULL, 0);
	got = write_conf(t, "r");
	memset(want, '\n', 19);
	snprintf(want + 19, sizeof(want) - 19,
		 "[resolverd]\n\n\nphase = spread\nserve_stale = yes\ntimeout = 200ms\n"
		 "\n# generated by steerlab from " DATA "resolver.ini: the lines above are "
		 "that file's, those below its [resolver r]'s\n#line 20\nupstream = "
		 "198.18.0.18\n#line 20\n[resolvers r]\n#line 20\ncount = 3\n#line 20\n"
		 "first_address = 198.18.128.1\n");
	assert_string_equal(got, want);

	/* resolverd reads it as three caches out of step, asking ns */
	f = fmemopen(got, strlen(got), "r");
	assert_non_null(f);
	assert_int_equal(rsv_conf_load_stream(&c, f, "r.ini", stderr), 0);
	fclose(f);
	assert_int_equal(c.nupstream, 1);
	assert_addr(c.upstream[0].sin_addr, "198.18.0.18");
	assert_int_equal(ntohs(c.upstream[0].sin_port), 53);
	assert_int_equal(c.port, 53);
	assert_int_equal(c.timeout_ns, 200 * NSEC_PER_MSEC);
	assert_int_equal(c.ninst, 3);
	for (int i = 0; i < 3; i++) {
		char name[16];

		snprintf(name, sizeof(name), "r%d", i + 1);
		assert_string_equal(c.inst[i].name, name);
		assert_int_equal(c.inst[i].addr.s_addr,
				 topo_resolver_addr(t, node_index(t, "r"), i + 1).s_addr);
		assert_int_equal(c.inst[i].cache.serve_stale, 1);
		assert_int_equal(c.inst[i].cache.phase, RSV_PHASE_FRACTION);
		assert_true(c.inst[i].cache.phase_frac == (double)i / 3);
	}
	rsv_conf_free(&c);
	free(got);

	/* a node without keys: its header, then what the lab generates */
	got = write_conf(t, "edge");
	assert_non_null(strstr(got, "\n[resolverd]\n\n# generated by steerlab from "));
	assert_non_null(strstr(got, "upstream = 198.18.0.18\n#line 64\n[resolvers edge]\n#line "
				    "64\ncount = 1\n#line 64\nfirst_address = 198.18.129.1\n"));
	assert_int_equal(resolvconf_check(t, stderr), 0);
	free(got);
	free(t);
}

/* resolverd's own parser judges the values, against the topology's lines. */
static void test_resolver_conf_errors(void **state)
{
	static const char text[] = "[resolver r]\n"	   /* 10 */
				   "link = core\n"	   /* 11 */
				   "max_stale = forever\n" /* 12 */
				   "prefetch = 100%\n"	   /* 13 */
				   "[resolver r2]\n"	   /* 14 */
				   "link = core\n"	   /* 15 */
				   "max_ttl = 10\n"	   /* 16 */
				   "min_ttl = 1m\n"	   /* 17 */
				   "[client c]\nlink = core\nmode = dns\nresolver = r2\n";
	struct topology *t = new_topology();
	char path[64], want[1024], *errs;
	size_t len;
	FILE *err;

	(void)state;
	/* the topology parser keeps them as written: they load */
	assert_int_equal(load_text(t, text, NULL, 0, &errs, path), 0);
	assert_string_equal(errs, "");
	free(errs);
	err = open_memstream(&errs, &len);
	assert_non_null(err);
	assert_int_equal(resolvconf_check(t, err), -1);
	fclose(err);
	snprintf(want, sizeof(want),
		 "%s:12: max_stale: expected a duration such as 30s, got 'forever'\n"
		 "%s:13: prefetch: expected no, yes (10%%) or a percentage of the TTL from 1%% "
		 "to 99%%, got '100%%'\n"
		 "%s:17: [resolverd]: min_ttl (60) is above max_ttl (10)\n",
		 path, path, path);
	assert_string_equal(errs, want);
	unlink(path);
	free(errs);
	free(t);
}

/* Errors: err_NAME.ini has its messages in err_NAME.expected beside it. */
static void test_resolver_error_files(void **state)
{
	static const char *const cases[] = {
	    "err_resolver",	  /* keys, resolverd's keys, the clients' caches */
	    "err_resolver_nodns", /* a [resolver] node and no [dns] node */
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

/* A few messages spelled out, so the form is visible in the source. */
static void test_resolver_error_forms(void **state)
{
	char *sets[] = {"r.phase=none", "c2.resolver=r.4", "service=198.18.128.1",
			"a.address=198.18.255.255", "r.upstream=1.2.3.4"};
	char *bad_count[] = {"r.count=251", "c2.resolver=r.4"};
	char *count[] = {"c3.resolver=r.3", "r.count=2"};
	char *ok[] = {"a.address=198.18.127.255", "service=198.19.255.255"};
	struct topology *t = new_topology();

	(void)state;
	expect_errors(DATA "err_resolver_nodns.ini", NULL, 0,
		      DATA "err_resolver_nodns.ini:7: [resolver r] forwards to the [dns] nodes; "
			   "there is none\n");
	expect_errors(
	    DATA "resolver.ini", sets, 5,
	    "--set r.phase=none: [resolver r] phase: resolverd's keys cannot be overridden "
	    "(they go to resolverd as written)\n"
	    "--set service=198.18.128.1: expected an IPv4 address in 198.18.0.0/15 outside the "
	    "links' 198.18.0.0/22, the routers' 198.18.32.0/20 and the resolvers' "
	    "198.18.128.0/17, such as 198.19.0.1\n"
	    "--set a.address=198.18.255.255: expected an IPv4 address in 198.18.0.0/15 outside "
	    "the links' 198.18.0.0/22, the routers' 198.18.32.0/20 and the resolvers' "
	    "198.18.128.0/17, such as 198.19.0.1\n"
	    "--set r.upstream=1.2.3.4: [resolver r] upstream: the lab writes this one (the "
	    "upstreams are the [dns] nodes; the caches listen on port 53 at the node's "
	    "addresses)\n"
	    "--set c2.resolver=r.4: [client c2] resolver: 'r.4': [resolver r] has 3 caches "
	    "(count = 3, line 22)\n");
	/* a bad count is said once: which caches there are is not known */
	expect_errors(DATA "resolver.ini", bad_count, 2,
		      "--set r.count=251: expected a whole number from 1 to 250\n");
	/* the count named where it was set last */
	expect_errors(DATA "resolver.ini", count, 2,
		      "--set c3.resolver=r.3: [client c3] resolver: 'r.3': [resolver r] has 2 "
		      "caches (count = 2, --set r.count=2)\n");
	load_ok(t, DATA "resolver.ini", ok, 2);
	free(t);
}

static void test_resolver_limits(void **state)
{
	char path[64], expected[256], *text, *p, *errs;
	struct topology *t = new_topology();

	(void)state;
	/* 128 [resolver] nodes: the last has 198.18.255.0/24 */
	text = calloc(1, 65536);
	assert_non_null(text);
	p = text + sprintf(text, "[client c]\nlink = core\nmode = dns\nresolver = x127.250\n");
	for (int i = 0; i < 128; i++)
		p += sprintf(p, "[resolver x%d]\nlink = core\n%s", i,
			     i == 127 ? "count = 250\n" : "");
	assert_int_equal(load_text(t, text, NULL, 0, &errs, path), 0);
	assert_string_equal(errs, "");
	free(errs);
	unlink(path);
	assert_addr(node(t, "x127")->resolver_net, "198.18.255.0");
	assert_addr(topo_client_resolver(t, node_index(t, "c")), "198.18.255.250");

	/* the 129th is refused */
	p += sprintf(p, "[resolver x128]\nlink = core\n");
	assert_int_equal(load_text(t, text, NULL, 0, &errs, path), -1);
	snprintf(expected, sizeof(expected),
		 "%s:%d: [resolver x128]: too many [resolver] nodes (at most 128: "
		 "198.18.128.0/24 to 198.18.255.0/24)\n",
		 path, 9 + 4 + 2 * 128 + 1 + 1);
	assert_string_equal(errs, expected);
	free(errs);
	unlink(path);

	/* resolverd takes at most 8 upstreams: every [dns] node is one */
	p = text;
	for (int i = 0; i < 8; i++)
		p += sprintf(p, "[dns d%d]\nlink = core\n", i);
	p += sprintf(p, "[resolver r]\nlink = core\n[client c]\nlink = core\n");
	assert_int_equal(load_text(t, text, NULL, 0, &errs, path), -1);
	snprintf(expected, sizeof(expected),
		 "%s:%d: [resolver r] forwards to every [dns] node, and resolverd takes at most "
		 "8; there are 9\n",
		 path, 9 + 16 + 1);
	assert_string_equal(errs, expected);
	free(errs);
	unlink(path);

	/* a value too long for resolverd's keys */
	p = text + sprintf(text, "[resolver r]\nlink = core\nphase = ");
	memset(p, '1', 64);
	strcpy(p + 64, "\n[client c]\nlink = core\n");
	assert_int_equal(load_text(t, text, NULL, 0, &errs, path), -1);
	snprintf(expected, sizeof(expected),
		 "%s:12: [resolver r] phase: value too long (at most 63 characters)\n", path);
	assert_string_equal(errs, expected);
	free(errs);
	unlink(path);
	free(text);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_resolver_values),
	    cmocka_unit_test(test_resolver_turns),
	    cmocka_unit_test(test_resolver_golden),
	    cmocka_unit_test(test_resolver_conf),
	    cmocka_unit_test(test_resolver_conf_errors),
	    cmocka_unit_test(test_resolver_error_files),
	    cmocka_unit_test(test_resolver_error_forms),
	    cmocka_unit_test(test_resolver_limits),
	};

	return cmocka_run_group_tests_name("topology_resolver", tests, NULL, NULL);
}
