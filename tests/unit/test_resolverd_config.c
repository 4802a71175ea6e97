/*
 * resolverd's configuration file (agents/resolverd/config.h): defaults and
 * overrides whatever the order of sections, groups, spread phases, every
 * kind of error with its exact "file:line: message", and the printed
 * configuration reading back as the same one.
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

#include "agents/resolverd/config.h"
#include "timeutil.h"

/* load: text as the file "r.ini"; its errors in *errs (malloc'd). */
static int load(struct rsv_conf *c, const char *text, char **errs)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	size_t len;
	FILE *err = open_memstream(errs, &len);
	int rc;

	assert_non_null(f);
	assert_non_null(err);
	rc = rsv_conf_load_stream(c, f, "r.ini", err);
	fclose(f);
	fclose(err);
	return rc;
}

static void load_ok(struct rsv_conf *c, const char *text)
{
	char *errs;

	if (load(c, text, &errs) != 0)
		fail_msg("unexpected errors:\n%s", errs);
	assert_string_equal(errs, "");
	free(errs);
}

static void expect_errors(const char *text, const char *expected)
{
	struct rsv_conf c;
	char *errs;

	assert_int_equal(load(&c, text, &errs), -1);
	assert_string_equal(errs, expected);
	assert_null(c.inst);
	free(errs);
}

static const char *addr_str(struct in_addr a)
{
	static char buf[INET_ADDRSTRLEN];

	return inet_ntop(AF_INET, &a, buf, sizeof(buf));
}

static void test_defaults_and_overrides(void **state)
{
	struct rsv_conf c;

	(void)state;
	load_ok(&c, "# two resolvers\n"
		    "[resolver r1]\n"
		    "address = 198.18.64.1\n"
		    "min_ttl = 60\n"
		    "\n"
		    "[resolverd]\n"
		    "upstream = 198.18.0.10 198.18.0.11:5300\n"
		    "max_ttl = 1h   ; an hour\n"
		    "serve_stale = yes\n"
		    "\n"
		    "  [resolver r2]\n"
		    "  address = 198.18.64.2\n"
		    "  serve_stale = no\n"
		    "  prefetch = 20%\n"
		    "  phase = 7s\n"
		    "  max_stale = 2d\n");
	assert_int_equal(c.nupstream, 2);
	assert_string_equal(addr_str(c.upstream[0].sin_addr), "198.18.0.10");
	assert_int_equal(ntohs(c.upstream[0].sin_port), 53);
	assert_int_equal(ntohs(c.upstream[1].sin_port), 5300);
	assert_int_equal(c.timeout_ns, 500 * NSEC_PER_MSEC);
	assert_int_equal(c.retries, 2);
	assert_int_equal(c.port, 53);
	assert_int_equal(c.tcp, 1);
	assert_int_equal(c.stats_ns, NSEC_PER_SEC);
	assert_int_equal(c.ninst, 2);

	/* r1 comes before [resolverd] in the file and still inherits it */
	assert_string_equal(c.inst[0].name, "r1");
	assert_string_equal(addr_str(c.inst[0].addr), "198.18.64.1");
	assert_int_equal(c.inst[0].line, 2);
	assert_int_equal(c.inst[0].cache.min_ttl, 60);
	assert_int_equal(c.inst[0].cache.max_ttl, 3600);
	assert_int_equal(c.inst[0].cache.neg_max_ttl, 3600);
	assert_int_equal(c.inst[0].cache.serve_stale, 1);
	assert_int_equal(c.inst[0].cache.stale_ttl, 30);
	assert_int_equal(c.inst[0].cache.max_stale_ns, 86400 * NSEC_PER_SEC);
	assert_int_equal(c.inst[0].cache.stale_recheck_ns, 30 * NSEC_PER_SEC);
	assert_int_equal(c.inst[0].cache.prefetch_pct, 0);
	assert_int_equal(c.inst[0].cache.phase, RSV_PHASE_NONE);
	assert_int_equal(c.inst[0].cache.max_entries, 10000);

	assert_string_equal(c.inst[1].name, "r2");
	assert_int_equal(c.inst[1].cache.min_ttl, 0);
	assert_int_equal(c.inst[1].cache.max_ttl, 3600);
	assert_int_equal(c.inst[1].cache.serve_stale, 0);
	assert_int_equal(c.inst[1].cache.prefetch_pct, 20);
	assert_int_equal(c.inst[1].cache.phase, RSV_PHASE_OFFSET);
	assert_int_equal(c.inst[1].cache.phase_ns, 7 * NSEC_PER_SEC);
	assert_int_equal(c.inst[1].cache.max_stale_ns, 2 * 86400 * NSEC_PER_SEC);
	rsv_conf_free(&c);
}

static void test_groups_and_spread(void **state)
{
	struct rsv_conf c;

	(void)state;
	load_ok(&c, "[resolverd]\n"
		    "upstream = 127.0.0.53:5300\n"
		    "port = 5353\n"
		    "tcp = no\n"
		    "timeout = 1s\n"
		    "retries = 0\n"
		    "phase = spread\n"
		    "[resolvers edge]\n"
		    "count = 3\n"
		    "first_address = 198.18.64.254\n"
		    "[resolver fixed]\n"
		    "address = 198.18.65.10\n"
		    "phase = 25%\n"
		    "[resolvers far]\n"
		    "count = 1\n"
		    "first_address = 198.18.66.1\n");
	assert_int_equal(c.port, 5353);
	assert_int_equal(c.tcp, 0);
	assert_int_equal(c.timeout_ns, NSEC_PER_SEC);
	assert_int_equal(c.retries, 0);
	assert_int_equal(c.ninst, 5);
	assert_string_equal(c.inst[0].name, "edge1");
	assert_string_equal(c.inst[1].name, "edge2");
	assert_string_equal(c.inst[2].name, "edge3");
	assert_string_equal(c.inst[3].name, "fixed");
	assert_string_equal(c.inst[4].name, "far1");
	assert_string_equal(addr_str(c.inst[0].addr), "198.18.64.254");
	assert_string_equal(addr_str(c.inst[1].addr), "198.18.64.255");
	assert_string_equal(addr_str(c.inst[2].addr), "198.18.65.0");
	/* spread: the k-th of the 4 resolvers set to spread gets k/4 */
	assert_int_equal(c.inst[0].cache.phase, RSV_PHASE_FRACTION);
	assert_true(c.inst[0].cache.phase_frac == 0.0);
	assert_true(c.inst[1].cache.phase_frac == 0.25);
	assert_true(c.inst[2].cache.phase_frac == 0.5);
	assert_true(c.inst[4].cache.phase_frac == 0.75);
	/* an explicit phase is not part of the spread */
	assert_int_equal(c.inst[3].cache.phase, RSV_PHASE_FRACTION);
	assert_true(c.inst[3].cache.phase_frac == 0.25);
	rsv_conf_free(&c);
}

static void test_value_errors(void **state)
{
	(void)state;
	expect_errors(
	    "[resolverd]\n"
	    "upstream = 198.18.0.10\n"
	    "timeout = x\n"
	    "retries = 11\n"
	    "port = 0\n"
	    "tcp = maybe\n"
	    "stats_interval = 1ms\n"
	    "upstream = 1.2.3\n"
	    "[resolver r1]\n"
	    "address = 224.0.0.1\n"
	    "min_ttl = 1.5s\n"
	    "max_ttl = -1\n"
	    "prefetch = 100%\n"
	    "prefetch = 10\n"
	    "phase = 0.5\n"
	    "phase = 100%\n"
	    "max_entries = 0\n"
	    "serve_stale = yes\n",
	    "r.ini:3: timeout: expected a duration of at least 1ms such as 30s, got 'x'\n"
	    "r.ini:4: retries: expected a whole number from 0 to 10, got '11'\n"
	    "r.ini:5: port: expected a port from 1 to 65535, got '0'\n"
	    "r.ini:6: tcp: expected yes or no, got 'maybe'\n"
	    "r.ini:7: stats_interval: expected a duration of at least 10ms such as 30s, "
	    "got '1ms'\n"
	    "r.ini:8: [resolverd]: duplicate key 'upstream' (first set at line 2)\n"
	    "r.ini:10: address: expected a unicast IPv4 address (a.b.c.d), got "
	    "'224.0.0.1'\n"
	    "r.ini:11: min_ttl: expected a TTL in whole seconds such as 300 or 5m, got "
	    "'1.5s'\n"
	    "r.ini:12: max_ttl: expected a TTL in whole seconds such as 300 or 5m, got "
	    "'-1'\n"
	    "r.ini:13: prefetch: expected no, yes (10%) or a percentage of the TTL from 1% "
	    "to 99%, got '100%'\n"
	    "r.ini:14: prefetch: expected no, yes (10%) or a percentage of the TTL from 1% "
	    "to 99%, got '10'\n"
	    "r.ini:15: phase: expected none, spread, a percentage of the TTL below 100% "
	    "such as 25%, or a duration with its unit such as 7s, got '0.5'\n"
	    "r.ini:16: phase: expected none, spread, a percentage of the TTL below 100% "
	    "such as 25%, or a duration with its unit such as 7s, got '100%'\n"
	    "r.ini:17: max_entries: expected a whole number from 1 to 10000000, got '0'\n"
	    "r.ini:9: [resolver r1]: 'address' (or 'address6', or both) is required\n");
}

static void test_structure_errors(void **state)
{
	(void)state;
	expect_errors(
	    "orphan = 1\n"
	    "[resolverd\n"
	    "[resolverd] x\n"
	    "[resolverd]\n"
	    "upstream = 198.18.0.10\n"
	    "address = 198.18.64.1\n"
	    "just words\n"
	    "= 5\n"
	    "[resolverd]\n"
	    "[router r1]\n"
	    "[resolver]\n"
	    "[resolver a b]\n"
	    "[resolver bad/name]\n"
	    "[resolver r1]\n"
	    "count = 3\n"
	    "address = 198.18.64.1\n"
	    "[resolvers g]\n"
	    "address = 198.18.64.9\n",
	    "r.ini:1: 'orphan = 1' outside any section (expected [resolverd], [resolver "
	    "NAME] or [resolvers PREFIX] first)\n"
	    "r.ini:2: expected ']' to close the section header '[resolverd'\n"
	    "r.ini:3: unexpected 'x' after the section header\n"
	    "r.ini:6: [resolverd]: unknown key 'address' (expected one of: mode, upstream, "
	    "root, qname_minimisation, ecs, transport, timeout, retries, port, tcp, "
	    "stats_interval, "
	    "max_pending, min_ttl, max_ttl, "
	    "neg_max_ttl, serve_stale, stale_ttl, max_stale, stale_recheck, prefetch, "
	    "phase, max_entries)\n"
	    "r.ini:7: expected 'key = value', a [section] or a comment, got 'just words'\n"
	    "r.ini:8: expected a key name before '='\n"
	    "r.ini:9: duplicate [resolverd] section (first at line 4)\n"
	    "r.ini:10: unknown section '[router]' (expected [resolverd], [resolver NAME] "
	    "or [resolvers PREFIX])\n"
	    "r.ini:11: expected one name: [resolver NAME]\n"
	    "r.ini:12: expected one name: [resolver NAME]\n"
	    "r.ini:13: [resolver bad/name]: expected a name of 1 to 32 letters, digits, "
	    "'.', '_' or '-'\n"
	    "r.ini:15: [resolver r1]: unknown key 'count' (expected one of: address, "
	    "address6, min_ttl, max_ttl, neg_max_ttl, serve_stale, stale_ttl, max_stale, "
	    "stale_recheck, prefetch, phase, max_entries)\n"
	    "r.ini:18: [resolvers g]: unknown key 'address' (expected one of: count, "
	    "first_address, first_address6, min_ttl, max_ttl, neg_max_ttl, serve_stale, stale_ttl, "
	    "max_stale, stale_recheck, prefetch, phase, max_entries)\n"
	    "r.ini:17: [resolvers g]: 'count' and 'first_address' (or 'first_address6', or "
	    "both) are required\n");
}

static void test_whole_file_checks(void **state)
{
	(void)state;
	/* no [resolverd] at all, and nothing to run */
	expect_errors("# empty\n", "r.ini: [resolverd]: 'upstream' is required: the authoritative "
				   "server(s), ADDR[:PORT] ...\n"
				   "r.ini: no resolvers: add [resolver NAME] with an address, or "
				   "[resolvers PREFIX] with count and first_address (or "
				   "address6, first_address6)\n");
	expect_errors("[resolverd]\n"
		      "upstream = 198.18.0.10\n"
		      "min_ttl = 600\n"
		      "max_ttl = 5m\n"
		      "[resolver r1]\n"
		      "address = 198.18.64.1\n"
		      "[resolver r2]\n"
		      "address = 198.18.64.2\n"
		      "min_ttl = 10\n"
		      "max_ttl = 5\n"
		      "[resolvers r]\n"
		      "count = 2\n"
		      "first_address = 198.18.64.2\n"
		      "[resolver r3]\n"
		      "address = 198.18.0.10\n",
		      /* r1 inherits the bad pair: said once, at [resolverd] */
		      "r.ini:4: [resolverd]: min_ttl (600) is above max_ttl (300)\n"
		      "r.ini:10: [resolver r2]: min_ttl (10) is above max_ttl (5)\n"
		      "r.ini:11: resolver name 'r1' already used at line 5\n"
		      "r.ini:11: resolver name 'r2' already used at line 7\n"
		      "r.ini:11: r1: address 198.18.64.2 already used by r2 (line 7)\n"
		      "r.ini:14: r3: listens on the upstream's address and port 198.18.0.10:53\n");
	expect_errors("[resolverd]\n"
		      "upstream = 198.18.0.10\n"
		      "[resolvers abcdefghijklmnopqrstuvwxyz01234]\n"
		      "count = 10\n"
		      "first_address = 198.18.64.1\n",
		      "r.ini:3: [resolvers abcdefghijklmnopqrstuvwxyz01234]: the name "
		      "abcdefghijklmnopqrstuvwxyz0123410 is longer than 32 characters\n");
	expect_errors("[resolverd]\n"
		      "upstream = 198.18.0.10\n"
		      "[resolvers top]\n"
		      "count = 3\n"
		      "first_address = 255.255.255.253\n",
		      "r.ini:4: [resolvers top]: 3 addresses from first_address run past "
		      "255.255.255.254\n");
}

static void test_iterate(void **state)
{
	struct rsv_conf a, b;
	char *text;
	size_t len;
	FILE *out;

	(void)state;
	load_ok(&a, "[resolverd]\n"
		    "mode = iterate\n"
		    "root = 198.18.201.1 198.18.201.2:5300\n"
		    "qname_minimisation = yes\n"
		    "ecs = yes\n"
		    "[resolver r1]\n"
		    "address = 198.18.64.1\n");
	assert_int_equal(a.mode, RSV_MODE_ITERATE);
	assert_int_equal(a.nroot, 2);
	assert_int_equal(a.nupstream, 0);
	assert_string_equal(addr_str(a.root[0].sin_addr), "198.18.201.1");
	assert_int_equal(ntohs(a.root[0].sin_port), 53);
	assert_int_equal(ntohs(a.root[1].sin_port), 5300);
	assert_int_equal(a.qname_minimisation, 1);
	assert_int_equal(a.ecs, 1);
	/* -p: the mode's keys, read back the same */
	out = open_memstream(&text, &len);
	rsv_conf_print(&a, out);
	fclose(out);
	assert_non_null(strstr(text, "[resolverd]\nmode = iterate\nroot = 198.18.201.1:53 "
				     "198.18.201.2:5300\nqname_minimisation = yes\necs = yes\n"));
	assert_null(strstr(text, "upstream"));
	load_ok(&b, text);
	assert_int_equal(b.mode, RSV_MODE_ITERATE);
	assert_int_equal(b.nroot, 2);
	assert_memory_equal(a.root, b.root, sizeof(a.root));
	assert_int_equal(b.qname_minimisation, 1);
	assert_int_equal(b.ecs, 1);
	free(text);
	rsv_conf_free(&a);
	rsv_conf_free(&b);
	/* the defaults: forward, no minimisation, no ECS; -p says forward */
	load_ok(&a, "[resolverd]\nupstream = 198.18.0.10\n[resolver r1]\naddress = 198.18.64.1\n");
	assert_int_equal(a.mode, RSV_MODE_FORWARD);
	assert_int_equal(a.qname_minimisation, 0);
	assert_int_equal(a.ecs, 0);
	out = open_memstream(&text, &len);
	rsv_conf_print(&a, out);
	fclose(out);
	assert_non_null(strstr(text, "[resolverd]\nmode = forward\nupstream = 198.18.0.10:53\n"));
	assert_null(strstr(text, "qname_minimisation"));
	free(text);
	rsv_conf_free(&a);
}

static void test_mode_errors(void **state)
{
	(void)state;
	/* a key of the other mode, named at its line */
	expect_errors("[resolverd]\n"
		      "upstream = 198.18.0.10\n"
		      "root = 198.18.201.1\n"
		      "qname_minimisation = yes\n"
		      "ecs = no\n"
		      "[resolver r1]\n"
		      "address = 198.18.64.1\n",
		      "r.ini:3: [resolverd]: 'root' applies only with mode = iterate\n"
		      "r.ini:4: [resolverd]: 'qname_minimisation' applies only with mode = "
		      "iterate\n"
		      "r.ini:5: [resolverd]: 'ecs' applies only with mode = iterate\n");
	expect_errors("[resolverd]\n"
		      "mode = iterate\n"
		      "upstream = 198.18.0.10\n"
		      "[resolver r1]\n"
		      "address = 198.18.64.1\n",
		      "r.ini:3: [resolverd]: 'upstream' applies only with mode = forward (mode = "
		      "iterate walks from 'root')\n"
		      "r.ini:1: [resolverd]: 'root' is required with mode = iterate: the lab's "
		      "root server(s), ADDR[:PORT] ...\n");
	expect_errors(
	    "[resolverd]\n"
	    "mode = recursive\n"
	    "root = 198.18.201.1 1.2.3.4 1.2.3.5 1.2.3.6 1.2.3.7 1.2.3.8 1.2.3.9 1.2.3.10 "
	    "1.2.3.11\n"
	    "ecs = maybe\n"
	    "[resolver r1]\n"
	    "address = 198.18.64.1\n",
	    "r.ini:2: mode: expected forward or iterate, got 'recursive'\n"
	    "r.ini:3: root: expected 1 to 8 servers separated by spaces, each ADDR[:PORT], IPV6 "
	    "or [IPV6]:PORT, got "
	    "'198.18.201.1 1.2.3.4 1.2.3.5 1.2.3.6 1.2.3.7 1.2.3.8 1.2.3.9 1.2.3.10 "
	    "1.2.3.11'\n"
	    "r.ini:4: ecs: expected yes or no, got 'maybe'\n"
	    "r.ini:1: [resolverd]: 'upstream' is required: the authoritative server(s), "
	    "ADDR[:PORT] ...\n");
	/* a resolver on a root server's address and port */
	expect_errors("[resolverd]\n"
		      "mode = iterate\n"
		      "root = 198.18.201.1\n"
		      "[resolver r1]\n"
		      "address = 198.18.64.1\n"
		      "[resolver r2]\n"
		      "address = 198.18.201.1\n",
		      "r.ini:6: r2: listens on a root server's address and port 198.18.201.1:53\n");
}

static void test_file_errors(void **state)
{
	struct rsv_conf c;
	char *errs;
	size_t len;
	FILE *err = open_memstream(&errs, &len);

	(void)state;
	assert_int_equal(rsv_conf_load(&c, "/nonexistent/resolverd.ini", err), -1);
	fclose(err);
	assert_string_equal(errs, "/nonexistent/resolverd.ini: No such file or directory\n");
	free(errs);
}

static void test_print_reads_back(void **state)
{
	struct rsv_conf a, b;
	char *text;
	size_t len;
	FILE *out;

	(void)state;
	load_ok(&a, "[resolverd]\n"
		    "upstream = 198.18.0.10 198.18.0.11:5300\n"
		    "timeout = 250ms\n"
		    "stats_interval = 500ms\n"
		    "phase = spread\n"
		    "neg_max_ttl = 5m\n"
		    "[resolvers r]\n"
		    "count = 3\n"
		    "first_address = 198.18.64.1\n"
		    "prefetch = yes\n"
		    "[resolver solo]\n"
		    "address = 198.18.65.1\n"
		    "phase = 1500ms\n"
		    "serve_stale = on\n"
		    "stale_ttl = 1m\n"
		    "max_stale = 90m\n");
	out = open_memstream(&text, &len);
	rsv_conf_print(&a, out);
	fclose(out);
	load_ok(&b, text);
	assert_int_equal(a.nupstream, b.nupstream);
	assert_memory_equal(a.upstream, b.upstream, sizeof(a.upstream));
	assert_int_equal(a.timeout_ns, b.timeout_ns);
	assert_int_equal(a.stats_ns, b.stats_ns);
	assert_int_equal(a.ninst, b.ninst);
	for (int i = 0; i < a.ninst; i++) {
		const struct rsv_cache_cfg *x = &a.inst[i].cache, *y = &b.inst[i].cache;

		assert_string_equal(a.inst[i].name, b.inst[i].name);
		assert_int_equal(a.inst[i].addr.s_addr, b.inst[i].addr.s_addr);
		assert_int_equal(x->neg_max_ttl, y->neg_max_ttl);
		assert_int_equal(x->serve_stale, y->serve_stale);
		assert_int_equal(x->stale_ttl, y->stale_ttl);
		assert_int_equal(x->max_stale_ns, y->max_stale_ns);
		assert_int_equal(x->prefetch_pct, y->prefetch_pct);
		assert_int_equal(x->phase, y->phase);
		assert_int_equal(x->phase_ns, y->phase_ns);
		assert_true(x->phase_frac - y->phase_frac < 1e-12 &&
			    y->phase_frac - x->phase_frac < 1e-12);
	}
	assert_non_null(strstr(text, "[resolver r2]\naddress = 198.18.64.2\n"));
	assert_non_null(strstr(text, "phase = 33.333333333333329%\n"));
	assert_non_null(strstr(text, "phase = 1500ms\n"));
	assert_non_null(strstr(text, "max_stale = 90m\n"));
	assert_non_null(strstr(text, "prefetch = 10%\n"));
	free(text);
	rsv_conf_free(&a);
	rsv_conf_free(&b);
}

static const char *addr6_str(const struct in6_addr *a)
{
	static char buf[INET6_ADDRSTRLEN];

	return inet_ntop(AF_INET6, a, buf, sizeof(buf));
}

/* print: c as rsv_conf_print writes it (malloc'd) */
static char *print(const struct rsv_conf *c)
{
	char *text;
	size_t len;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	rsv_conf_print(c, out);
	fclose(out);
	return text;
}

/* IPv6: address6 and first_address6 beside the IPv4 addresses, IPv6
 * upstreams with and without a port, -p reading back */
static void test_ipv6(void **state)
{
	struct rsv_conf a, b;
	char *text;

	(void)state;
	load_ok(&a, "[resolverd]\n"
		    "upstream = 198.18.0.53:5300 2001:2::53, [2001:2::54]:5300\n"
		    "[resolver r1]\n"
		    "address = 198.18.64.1\n"
		    "address6 = 2001:2:0:8000::1\n"
		    "[resolvers e]\n"
		    "count = 3\n"
		    "first_address = 198.18.65.1\n"
		    "first_address6 = 2001:2:0:8000::ff\n");
	assert_int_equal(a.nupstream, 3);
	assert_false(rsv_sa_is6(&a.upstream[0]));
	assert_string_equal(addr_str(a.upstream[0].sin_addr), "198.18.0.53");
	assert_int_equal(ntohs(a.upstream[0].sin_port), 5300);
	assert_true(rsv_sa_is6(&a.upstream[1]));
	assert_string_equal(addr6_str(&a.upstream6[1].sin6_addr), "2001:2::53");
	assert_int_equal(ntohs(a.upstream6[1].sin6_port), 53);
	assert_int_equal(ntohs(a.upstream[1].sin_port), 53);
	assert_string_equal(addr6_str(&a.upstream6[2].sin6_addr), "2001:2::54");
	assert_int_equal(ntohs(a.upstream6[2].sin6_port), 5300);
	assert_true(rsv_conf_up6(&a));
	assert_int_equal(a.ninst, 4);
	assert_true(a.inst[0].has_addr6);
	assert_string_equal(addr6_str(&a.inst[0].addr6), "2001:2:0:8000::1");
	/* consecutive, as first_address: e1 ::ff, e2 ::100 (a carry), e3 ::101 */
	assert_string_equal(addr6_str(&a.inst[1].addr6), "2001:2:0:8000::ff");
	assert_string_equal(addr6_str(&a.inst[2].addr6), "2001:2:0:8000::100");
	assert_string_equal(addr6_str(&a.inst[3].addr6), "2001:2:0:8000::101");
	assert_string_equal(addr_str(a.inst[3].addr), "198.18.65.3");
	text = print(&a);
	assert_non_null(strstr(text, "upstream = 198.18.0.53:5300 [2001:2::53]:53 "
				     "[2001:2::54]:5300\n"));
	assert_non_null(
	    strstr(text, "[resolver r1]\naddress = 198.18.64.1\naddress6 = 2001:2:0:8000::1\n"));
	assert_non_null(
	    strstr(text, "[resolver e2]\naddress = 198.18.65.2\naddress6 = 2001:2:0:8000::100\n"));
	assert_null(strstr(text, "transport"));
	load_ok(&b, text);
	assert_int_equal(b.nupstream, 3);
	assert_memory_equal(a.upstream, b.upstream, sizeof(a.upstream));
	assert_memory_equal(a.upstream6, b.upstream6, sizeof(a.upstream6));
	assert_int_equal(b.ninst, 4);
	for (int i = 0; i < a.ninst; i++) {
		assert_int_equal(a.inst[i].has_addr6, b.inst[i].has_addr6);
		assert_memory_equal(&a.inst[i].addr6, &b.inst[i].addr6, sizeof(a.inst[i].addr6));
	}
	free(text);
	rsv_conf_free(&a);
	rsv_conf_free(&b);

	/* iterating over IPv6: transport = 6, IPv6 root hints; -p says so */
	load_ok(&a, "[resolverd]\n"
		    "mode = iterate\n"
		    "root = 2001:2::1 [2001:2::2]:5300\n"
		    "transport = 6\n"
		    "ecs = yes\n"
		    "[resolver r1]\n"
		    "address = 198.18.64.1\n"
		    "address6 = 2001:2:0:8000::1\n");
	assert_int_equal(a.transport, 6);
	assert_int_equal(a.nroot, 2);
	assert_true(rsv_sa_is6(&a.root[0]) && rsv_sa_is6(&a.root[1]));
	assert_string_equal(addr6_str(&a.root6[1].sin6_addr), "2001:2::2");
	assert_true(rsv_conf_up6(&a));
	text = print(&a);
	assert_non_null(strstr(text,
			       "root = [2001:2::1]:53 [2001:2::2]:5300\n"
			       "qname_minimisation = no\necs = yes\ntransport = 6\ntimeout = "));
	load_ok(&b, text);
	assert_int_equal(b.transport, 6);
	assert_memory_equal(a.root6, b.root6, sizeof(a.root6));
	free(text);
	rsv_conf_free(&a);
	rsv_conf_free(&b);

	/* transport = 4 is the default, said or not: no IPv6 server, so a
	 * resolver without an IPv6 address beside one with */
	load_ok(&a, "[resolverd]\n"
		    "mode = iterate\n"
		    "root = 198.18.201.1\n"
		    "transport = 4\n"
		    "[resolver r1]\n"
		    "address = 198.18.64.1\n"
		    "address6 = 2001:2:0:8000::1\n"
		    "[resolver v4]\n"
		    "address = 198.18.64.2\n");
	assert_int_equal(a.transport, 4);
	assert_false(rsv_conf_up6(&a));
	assert_false(a.inst[1].has_addr6);
	text = print(&a);
	assert_null(strstr(text, "transport"));
	assert_non_null(strstr(text, "[resolver v4]\naddress = 198.18.64.2\nmin_ttl = "));
	free(text);
	rsv_conf_free(&a);
}

static void test_ipv6_errors(void **state)
{
	(void)state;
	/* values */
	expect_errors("[resolverd]\n"
		      "upstream = [198.18.0.53]:53\n"
		      "[resolver r1]\n"
		      "address = 198.18.64.1\n"
		      "address6 = fe80::1\n"
		      "[resolver r2]\n"
		      "address = 198.18.64.2\n"
		      "address6 = ::\n"
		      "[resolver r3]\n"
		      "address = 198.18.64.3\n"
		      "address6 = ff02::1\n"
		      "[resolver r4]\n"
		      "address = 198.18.64.4\n"
		      "address6 = ::ffff:198.18.64.4\n"
		      "[resolver r5]\n"
		      "address = 198.18.64.5\n"
		      "address6 = 2001:2::5/64\n"
		      "[resolvers g]\n"
		      "count = 2\n"
		      "first_address = 198.18.65.1\n"
		      "first_address6 = 198.18.65.1\n",
		      "r.ini:2: upstream: expected 1 to 8 servers separated by spaces, each "
		      "ADDR[:PORT], IPV6 or [IPV6]:PORT, got '[198.18.0.53]:53'\n"
		      "r.ini:5: address6: expected a unicast IPv6 address such as 2001:2::1 (not "
		      "::, link-local, multicast or IPv4-mapped), got 'fe80::1'\n"
		      "r.ini:8: address6: expected a unicast IPv6 address such as 2001:2::1 (not "
		      "::, link-local, multicast or IPv4-mapped), got '::'\n"
		      "r.ini:11: address6: expected a unicast IPv6 address such as 2001:2::1 (not "
		      "::, link-local, multicast or IPv4-mapped), got 'ff02::1'\n"
		      "r.ini:14: address6: expected a unicast IPv6 address such as 2001:2::1 (not "
		      "::, link-local, multicast or IPv4-mapped), got '::ffff:198.18.64.4'\n"
		      "r.ini:17: address6: expected a unicast IPv6 address such as 2001:2::1 (not "
		      "::, link-local, multicast or IPv4-mapped), got '2001:2::5/64'\n"
		      "r.ini:21: first_address6: expected a unicast IPv6 address such as 2001:2::1 "
		      "(not ::, link-local, multicast or IPv4-mapped), got '198.18.65.1'\n"
		      "r.ini:1: [resolverd]: 'upstream' is required: the authoritative server(s), "
		      "ADDR[:PORT] ...\n");
	/* an IPv6 upstream: every resolver needs an IPv6 address to ask it
	 * from, named at its section; addresses unique; none on the upstream */
	expect_errors("[resolverd]\n"
		      "upstream = 198.18.0.53 2001:2::53\n"
		      "transport = 6\n"
		      "[resolver r1]\n"
		      "address = 198.18.64.1\n"
		      "[resolver r2]\n"
		      "address = 198.18.64.2\n"
		      "address6 = 2001:2::53\n"
		      "[resolver r3]\n"
		      "address = 198.18.64.3\n"
		      "address6 = 2001:2:0:8000::3\n"
		      "[resolver r4]\n"
		      "address = 198.18.64.4\n"
		      "address6 = 2001:2:0:8000::3\n"
		      "[resolvers g]\n"
		      "count = 2\n"
		      "first_address = 198.18.65.1\n",
		      "r.ini:3: [resolverd]: 'transport' applies only with mode = iterate\n"
		      "r.ini:4: [resolver r1]: 'address6' is required: the upstream "
		      "[2001:2::53]:53 is asked from it\n"
		      "r.ini:15: [resolvers g]: 'first_address6' is required: the upstream "
		      "[2001:2::53]:53 is asked from it\n"
		      "r.ini:12: r4: address6 2001:2:0:8000::3 already used by r3 (line 9)\n"
		      "r.ini:6: r2: listens on the upstream's address and port [2001:2::53]:53\n");
	/* a group running into multicast */
	expect_errors("[resolverd]\n"
		      "upstream = 198.18.0.53\n"
		      "[resolvers g]\n"
		      "count = 2\n"
		      "first_address = 198.18.65.1\n"
		      "first_address6 = feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff\n",
		      "r.ini:4: [resolvers g]: 2 addresses from first_address6 run into ff00::, "
		      "not a unicast address\n");
	/* iterating: the root hints of the transport's family */
	expect_errors("[resolverd]\n"
		      "mode = iterate\n"
		      "root = 198.18.201.1 2001:2::1\n"
		      "transport = 5\n"
		      "[resolver r1]\n"
		      "address = 198.18.64.1\n",
		      "r.ini:4: transport: expected 4 or 6, got '5'\n"
		      "r.ini:3: [resolverd]: root [2001:2::1]:53 is IPv6, but the walk asks over "
		      "IPv4 (transport = 4): set transport = 6\n");
	expect_errors("[resolverd]\n"
		      "mode = iterate\n"
		      "root = 198.18.201.1 2001:2::1\n"
		      "transport = 6\n"
		      "[resolver r1]\n"
		      "address = 198.18.64.1\n"
		      "[resolver r2]\n"
		      "address = 198.18.64.2\n"
		      "address6 = 2001:2::1\n",
		      "r.ini:3: [resolverd]: root 198.18.201.1:53 is IPv4, but transport = 6 asks "
		      "every server at its IPv6 address\n"
		      "r.ini:5: [resolver r1]: 'address6' is required: transport = 6 asks every "
		      "server from it\n"
		      "r.ini:7: r2: listens on a root server's address and port [2001:2::1]:53\n");
}

/* IPv6 alone: a group with first_address6 and no first_address, a
 * resolver with address6 and no address, forwarding to IPv6 upstreams or
 * iterating with transport = 6; -p writes no address and reads back */
static void test_ipv6_only(void **state)
{
	struct rsv_conf a, b;
	char *text;

	(void)state;
	load_ok(&a, "[resolverd]\n"
		    "upstream = 2001:2::53 [2001:2::54]:5300\n"
		    "[resolver r1]\n"
		    "address6 = 2001:2:0:8000::1\n"
		    "[resolvers e]\n"
		    "count = 2\n"
		    "first_address6 = 2001:2:0:8001::1\n"
		    "[resolver d]\n"
		    "address = 198.18.64.9\n"
		    "address6 = 2001:2:0:8000::9\n");
	assert_int_equal(a.ninst, 4);
	assert_true(a.inst[0].v6only && a.inst[0].has_addr6);
	assert_int_equal(a.inst[0].addr.s_addr, 0);
	assert_string_equal(addr6_str(&a.inst[0].addr6), "2001:2:0:8000::1");
	assert_true(a.inst[1].v6only && a.inst[2].v6only);
	assert_string_equal(a.inst[2].name, "e2");
	assert_string_equal(addr6_str(&a.inst[2].addr6), "2001:2:0:8001::2");
	assert_false(a.inst[3].v6only);
	text = print(&a);
	assert_non_null(strstr(text, "[resolver r1]\naddress6 = 2001:2:0:8000::1\nmin_ttl = "));
	assert_non_null(strstr(text, "[resolver e2]\naddress6 = 2001:2:0:8001::2\nmin_ttl = "));
	load_ok(&b, text);
	assert_int_equal(b.ninst, 4);
	for (int i = 0; i < a.ninst; i++) {
		assert_int_equal(a.inst[i].v6only, b.inst[i].v6only);
		assert_memory_equal(&a.inst[i].addr6, &b.inst[i].addr6, sizeof(a.inst[i].addr6));
	}
	free(text);
	rsv_conf_free(&a);
	rsv_conf_free(&b);

	/* iterating over IPv6 */
	load_ok(&a, "[resolverd]\n"
		    "mode = iterate\n"
		    "root = 2001:2::1\n"
		    "transport = 6\n"
		    "[resolvers r]\n"
		    "count = 3\n"
		    "first_address6 = 2001:2:0:8000::1\n");
	assert_int_equal(a.ninst, 3);
	assert_true(a.inst[2].v6only);
	assert_true(rsv_conf_up6(&a));
	rsv_conf_free(&a);
}

/* IPv6 alone, refused: nothing to ask an IPv4 server from */
static void test_ipv6_only_errors(void **state)
{
	(void)state;
	/* an IPv4 upstream, named with its line, at each section without an
	 * IPv4 address; one with neither address */
	expect_errors("[resolverd]\n"
		      "upstream = 2001:2::53 198.18.0.53\n"
		      "[resolver r1]\n"
		      "address6 = 2001:2:0:8000::1\n"
		      "[resolvers g]\n"
		      "count = 2\n"
		      "first_address6 = 2001:2:0:8001::1\n"
		      "[resolver ok]\n"
		      "address = 198.18.64.1\n"
		      "address6 = 2001:2:0:8000::2\n"
		      "[resolver none]\n"
		      "min_ttl = 5\n"
		      "[resolvers nog]\n"
		      "count = 2\n",
		      "r.ini:11: [resolver none]: 'address' (or 'address6', or both) is required\n"
		      "r.ini:13: [resolvers nog]: 'count' and 'first_address' (or "
		      "'first_address6', or both) are required\n"
		      "r.ini:11: [resolver none]: 'address6' is required: the upstream "
		      "[2001:2::53]:53 is asked from it\n"
		      "r.ini:13: [resolvers nog]: 'first_address6' is required: the upstream "
		      "[2001:2::53]:53 is asked from it\n"
		      "r.ini:3: [resolver r1]: no 'address': the upstream 198.18.0.53:53 (line 2) "
		      "is IPv4, and it has only an IPv6 address to ask from\n"
		      "r.ini:5: [resolvers g]: no 'first_address': the upstream 198.18.0.53:53 "
		      "(line 2) is IPv4, and it has only an IPv6 address to ask from\n");
	/* iterating over IPv4 (transport = 4, said or not) */
	expect_errors("[resolverd]\n"
		      "mode = iterate\n"
		      "root = 198.18.201.1\n"
		      "[resolvers g]\n"
		      "count = 2\n"
		      "first_address6 = 2001:2:0:8001::1\n",
		      "r.ini:4: [resolvers g]: no 'first_address': transport = 4 (the default) "
		      "asks every server from the IPv4 address: set transport = 6, or add "
		      "'first_address'\n");
	expect_errors("[resolverd]\n"
		      "mode = iterate\n"
		      "root = 198.18.201.1\n"
		      "transport = 4\n"
		      "[resolver r1]\n"
		      "address6 = 2001:2:0:8000::1\n",
		      "r.ini:5: [resolver r1]: no 'address': transport = 4 asks every server from "
		      "the IPv4 address: set transport = 6, or add 'address'\n");
	/* the IPv6 addresses still unique, and not a server's */
	expect_errors("[resolverd]\n"
		      "mode = iterate\n"
		      "root = 2001:2::1\n"
		      "transport = 6\n"
		      "[resolver r1]\n"
		      "address6 = 2001:2::1\n"
		      "[resolver r2]\n"
		      "address6 = 2001:2:0:8000::2\n"
		      "[resolver r3]\n"
		      "address6 = 2001:2:0:8000::2\n",
		      "r.ini:9: r3: address6 2001:2:0:8000::2 already used by r2 (line 7)\n"
		      "r.ini:5: r1: listens on a root server's address and port [2001:2::1]:53\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults_and_overrides),
	    cmocka_unit_test(test_groups_and_spread),
	    cmocka_unit_test(test_value_errors),
	    cmocka_unit_test(test_structure_errors),
	    cmocka_unit_test(test_whole_file_checks),
	    cmocka_unit_test(test_file_errors),
	    cmocka_unit_test(test_print_reads_back),
	    cmocka_unit_test(test_iterate),
	    cmocka_unit_test(test_mode_errors),
	    cmocka_unit_test(test_ipv6),
	    cmocka_unit_test(test_ipv6_errors),
	    cmocka_unit_test(test_ipv6_only),
	    cmocka_unit_test(test_ipv6_only_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
