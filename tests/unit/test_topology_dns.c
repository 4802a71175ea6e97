/*
 * Topology files for DNS steering labs (lab/topology/topology.h): the [dns] and
 * [prober] kinds, the DNS keys of [lab], [site] and [client], the sticky
 * clients [lab] sticky_share chooses, the [zone] and [name] sections kept
 * as written for authd, their errors with their exact messages, and the
 * golden test of topo_print for dns.ini. The rest
 * of the parser is tested in test_topology.c (which also reloads what
 * topo_print writes for dns.ini). Run from the repository root.
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

/* A lab with every DNS kind and nothing else set: the defaults. */
static const char defaults_ini[] = "[lab]\nname = d\n[router r]\n[site s1]\nlink = r\n"
				   "[site s2]\nlink = r\n[site s3]\nlink = r\n"
				   "[dns ns]\nlink = r\n[prober p]\nlink = r\n"
				   "[client c]\nlink = r\n[zone z.example]\n";

static void test_dns_values(void **state)
{
	struct topology *t = new_topology();
	const struct topo_node *ns, *p1, *c1, *c2;
	static const struct {
		const char *node, *naddr;
	} links[] = {
	    {"a", "198.18.0.2"},   {"b", "198.18.0.6"},	  {"ns", "198.18.0.10"},
	    {"p1", "198.18.0.14"}, {"c1", "198.18.0.18"}, {"c2", "198.18.0.22"},
	};
	static const struct {
		int section;
		const char *key, *value;
		int line;
	} pairs[] = {
	    {0, "soa", "ns hostmaster 1 3600 600 86400 30", 37},
	    {0, "ttl", "5", 38},
	    {0, "record", "@ NS ns", 39},
	    {0, "record", "ns A 198.18.0.10", 40},
	    {0, "record", "ns TXT \"authd, in the lab\"", 41},
	    {1, "policy", "multivalue", 44},
	    {1, "sites", "a b", 45},
	    {1, "ttl", "5", 46},
	};

	(void)state;
	load_ok(t, DATA "dns.ini", NULL, 0);
	assert_string_equal(t->name, "dns");
	assert_string_equal(t->dns_name, "www.lab.example");

	/* links in the file order of every node but the router */
	assert_int_equal(t->nnodes, 7);
	assert_int_equal(t->nlinks, 6);
	for (int i = 0; i < 6; i++) {
		assert_string_equal(t->nodes[t->links[i].node].name, links[i].node);
		assert_string_equal(t->nodes[t->links[i].router].name, "core");
		assert_int_equal(node(t, links[i].node)->link, i);
		assert_addr(t->links[i].node_addr, links[i].naddr);
		assert_string_equal(t->links[i].router_ifname, links[i].node);
	}

	/* sites: the default address is 198.19.1.N for the N-th site */
	assert_addr(node(t, "a")->address, "198.19.1.1");
	assert_addr(node(t, "b")->address, "198.19.1.2");
	assert_int_equal(node(t, "a")->metric, 10);
	assert_int_equal(node(t, "b")->metric, 20);

	ns = node(t, "ns");
	assert_int_equal(ns->kind, TOPO_DNS);
	assert_int_equal(ns->line, 16);
	assert_true(ns->quorum == 0.25);
	assert_int_equal(ns->fail_closed, 1);

	p1 = node(t, "p1");
	assert_int_equal(p1->kind, TOPO_PROBER);
	assert_int_equal(p1->line, 21);
	assert_int_equal(p1->probe_interval_ns, 200 * NSEC_PER_MSEC);
	assert_int_equal(p1->probe_timeout_ns, 50 * NSEC_PER_MSEC);
	assert_int_equal(p1->probe_down, 3);
	assert_int_equal(p1->probe_up, 3);

	c1 = node(t, "c1");
	c2 = node(t, "c2");
	assert_int_equal(c1->client_id, 1);
	assert_int_equal(c2->client_id, 2);
	assert_int_equal(c1->mode, TOPO_MODE_BOTH);
	assert_int_equal(c2->mode, TOPO_MODE_DNS);
	assert_int_equal(c1->resolver, topo_find(t, "ns"));
	assert_int_equal(c2->resolver, topo_find(t, "ns"));
	assert_string_equal(c1->dns_name, "www.lab.example");
	assert_string_equal(c2->dns_name, "www.lab.example");
	assert_int_equal(c1->sticky_ns, 0);
	assert_int_equal(c2->sticky_ns, 30 * NSEC_PER_SEC);
	assert_true(c1->rate == 1000);

	/* [zone] and [name]: as written, with their lines, in file order */
	assert_int_equal(t->nraw_sections, 2);
	assert_string_equal(t->raw_sections[0].kind, "zone");
	assert_string_equal(t->raw_sections[0].name, "lab.example");
	assert_int_equal(t->raw_sections[0].line, 36);
	assert_string_equal(t->raw_sections[1].kind, "name");
	assert_string_equal(t->raw_sections[1].name, "www.lab.example");
	assert_int_equal(t->raw_sections[1].line, 43);
	assert_int_equal(t->nraw_pairs, 8);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(t->raw_pairs[i].section, pairs[i].section);
		assert_string_equal(t->raw_pairs[i].key, pairs[i].key);
		assert_string_equal(t->raw_pairs[i].value, pairs[i].value);
		assert_int_equal(t->raw_pairs[i].line, pairs[i].line);
	}
	free(t);
}

static void test_dns_defaults(void **state)
{
	struct topology *t = new_topology();
	const struct topo_node *c1, *ns, *p;
	char path[64];

	(void)state;
	/* an anycast lab: the new keys take their defaults */
	load_ok(t, DATA "minimal.ini", NULL, 0);
	assert_string_equal(t->dns_name, "www.lab.example");
	assert_addr(node(t, "s1")->address, "198.19.1.1");
	c1 = node(t, "c1");
	assert_int_equal(c1->mode, TOPO_MODE_ANYCAST);
	assert_int_equal(c1->resolver, -1);
	assert_string_equal(c1->dns_name, "www.lab.example");
	assert_int_equal(c1->sticky_ns, 0);
	assert_int_equal(t->nraw_sections, 0);
	assert_int_equal(t->nraw_pairs, 0);

	write_temp(path, defaults_ini, sizeof(defaults_ini) - 1);
	load_ok(t, path, NULL, 0);
	unlink(path);
	assert_addr(node(t, "s3")->address, "198.19.1.3");
	ns = node(t, "ns");
	assert_true(ns->quorum == 0.5);
	assert_int_equal(ns->fail_closed, 0);
	p = node(t, "p");
	assert_int_equal(p->probe_interval_ns, 100 * NSEC_PER_MSEC);
	assert_int_equal(p->probe_timeout_ns, 50 * NSEC_PER_MSEC);
	assert_int_equal(p->probe_down, 3);
	assert_int_equal(p->probe_up, 3);
	assert_int_equal(node(t, "c")->link, 5); /* after s1, s2, s3, ns and p */
	/* a section without keys is kept */
	assert_int_equal(t->nraw_sections, 1);
	assert_int_equal(t->raw_sections[0].line, 16);
	assert_int_equal(t->nraw_pairs, 0);
	free(t);
}

static void test_dns_sets(void **state)
{
	struct topology *t = new_topology();
	char *sets[] = {"c1.mode=anycast",	  "c2.name=api.lab.example.",
			"dns_name=other.example", "ns.quorum=0",
			"ns.all_dead=fail-open",  "b.address=198.18.4.9",
			"probe_timeout=80ms",	  "p1.probe_up=9",
			"c2.sticky=250ms"};

	(void)state;
	load_ok(t, DATA "dns.ini", sets, 9);
	assert_int_equal(node(t, "c1")->mode, TOPO_MODE_ANYCAST);
	assert_int_equal(node(t, "c1")->resolver, -1); /* not used in anycast mode */
	assert_string_equal(node(t, "c1")->dns_name, "other.example"); /* the lab's */
	assert_string_equal(node(t, "c2")->dns_name, "api.lab.example.");
	assert_int_equal(node(t, "c2")->sticky_ns, 250 * NSEC_PER_MSEC);
	assert_true(node(t, "ns")->quorum == 0);
	assert_int_equal(node(t, "ns")->fail_closed, 0);
	assert_addr(node(t, "b")->address, "198.18.4.9");
	assert_int_equal(node(t, "p1")->probe_timeout_ns, 80 * NSEC_PER_MSEC);
	assert_int_equal(node(t, "p1")->probe_up, 9);
	/* --set does not reach [zone]/[name] */
	assert_int_equal(t->nraw_pairs, 8);
	free(t);
}

/* expect_sticky: each client of sticky.ini's sticky, in seconds (c1 .. c7). */
static void expect_sticky(const struct topology *t, const int64_t want[7])
{
	char name[16];

	for (int i = 0; i < 7; i++) {
		snprintf(name, sizeof(name), "c%d", i + 1);
		if (node(t, name)->sticky_ns != want[i] * NSEC_PER_SEC)
			fail_msg("%s: sticky %lld ns, expected %llds", name,
				 (long long)node(t, name)->sticky_ns, (long long)want[i]);
	}
}

/* [lab] sticky_share: the k-th DNS client (mode dns or both) without a
 * sticky of its own is sticky when floor(k q) > floor((k - 1) q). In
 * sticky.ini those are c1, c3, c5 and c7; c2 is anycast, c4 (0) and c6 (5s)
 * set their own. */
static void test_dns_sticky(void **state)
{
	static const int64_t half[7] = {0, 0, 20, 0, 0, 5, 20};
	static const int64_t none[7] = {0, 0, 0, 0, 0, 5, 0};
	static const int64_t all[7] = {20, 0, 20, 0, 20, 5, 20};
	static const int64_t quarter[7] = {0, 0, 0, 0, 0, 5, 20};
	static const int64_t own[7] = {0, 0, 0, 0, 20, 5, 0};
	static const int64_t mode[7] = {0, 20, 0, 0, 20, 5, 0};
	struct topology *t = new_topology();
	char *share0[] = {"sticky_share=0"};
	char *share1[] = {"sticky_share=1", "sticky=90s"};
	char *share25[] = {"sticky_share=0.25"};
	char *set_own[] = {"c3.sticky=0s", "c7.sticky = 0"};
	char *set_mode[] = {"c2.mode=dns", "c2.resolver=ns"};
	char *tiny[] = {"sticky_share=0.00001"};
	char *got;

	(void)state;
	/* 0.5 over c1, c3, c5, c7: the 2nd and the 4th */
	load_ok(t, DATA "sticky.ini", NULL, 0);
	assert_true(t->sticky_share == 0.5);
	assert_int_equal(t->sticky_ns, 20 * NSEC_PER_SEC);
	expect_sticky(t, half);
	/* shown by steerlab check: the share, the duration, every client's result */
	got = print_to_string(t);
	assert_non_null(strstr(got, "\ndns_name = www.lab.example\nsticky_share = 0.5\n"
				    "sticky = 20s\nrouting = static\nstatic_refresh = "
				    "1s\nstatic_hold = 3s\nfail_jitter = 0s\n"
				    "seed = random\n\n[router core]\n"));
	assert_non_null(strstr(got, "\nsticky = 20s\n\n[client c4]\n"));       /* c3's */
	assert_non_null(strstr(got, "\nsticky = 0s\n\n[client c6]\n"));	       /* c5's */
	assert_non_null(strstr(got, "\nsticky = 20s\n\n# [zone] and [name]")); /* c7's */
	free(got);

	load_ok(t, DATA "sticky.ini", share0, 1);
	expect_sticky(t, none);
	/* 1: all but the anycast client and those that set their own (c4's 0 too) */
	load_ok(t, DATA "sticky.ini", share1, 1);
	expect_sticky(t, all);
	load_ok(t, DATA "sticky.ini", share1, 2);
	assert_int_equal(t->sticky_ns, 90 * NSEC_PER_SEC);
	assert_int_equal(node(t, "c1")->sticky_ns, 90 * NSEC_PER_SEC);
	assert_int_equal(node(t, "c7")->sticky_ns, 90 * NSEC_PER_SEC);
	assert_int_equal(node(t, "c4")->sticky_ns, 0);
	assert_int_equal(node(t, "c6")->sticky_ns, 5 * NSEC_PER_SEC);
	/* 0.25 of four: the 4th */
	load_ok(t, DATA "sticky.ini", share25, 1);
	assert_true(t->sticky_share == 0.25);
	expect_sticky(t, quarter);
	/* a --set of a client's sticky is its own: c3 and c7 drop out of the
	 * count, which leaves c1 and c5, and 0.5 of them is c5 */
	load_ok(t, DATA "sticky.ini", set_own, 2);
	expect_sticky(t, own);
	/* a client made dns by --set counts: c1, c2, c3, c5, c7: c2 and c5 */
	load_ok(t, DATA "sticky.ini", set_mode, 2);
	expect_sticky(t, mode);

	/* a small share is written back without an exponent (it reads back) */
	load_ok(t, DATA "sticky.ini", tiny, 1);
	expect_sticky(t, none);
	got = print_to_string(t);
	assert_non_null(strstr(got, "\nsticky_share = 0.00001\n"));
	free(got);

	/* a lab without DNS clients: the share has nobody to choose */
	load_ok(t, DATA "minimal.ini", share1, 1);
	assert_int_equal(node(t, "c1")->sticky_ns, 0);
	free(t);
}

/* The floors are exact: 0.57 of 100 clients is 57 of them, the 100th
 * included, though 100 * 0.57 is 56.99999999999999 in doubles. */
static void test_dns_sticky_exact(void **state)
{
	struct topology *t = new_topology();
	char path[64], name[16], *text, *p, *sets[] = {"sticky_share=0.57"};
	int sticky = 0;

	(void)state;
	text = calloc(1, 16384);
	assert_non_null(text);
	p = text + sprintf(text, "[lab]\nname = x\n[router r]\n[site s]\nlink = r\n"
				 "[dns ns]\nlink = r\n[zone z.example]\n");
	for (int i = 1; i <= 100; i++)
		p += sprintf(p, "[client c%d]\nlink = r\nmode = dns\nresolver = ns\n", i);
	write_temp(path, text, (size_t)(p - text));
	load_ok(t, path, sets, 1);
	unlink(path);
	for (int i = 1; i <= 100; i++) {
		snprintf(name, sizeof(name), "c%d", i);
		if (node(t, name)->sticky_ns == 60 * NSEC_PER_SEC) /* the default [lab] sticky */
			sticky++;
		else
			assert_int_equal(node(t, name)->sticky_ns, 0);
	}
	assert_int_equal(sticky, 57);
	assert_int_equal(node(t, "c100")->sticky_ns, 60 * NSEC_PER_SEC);
	assert_int_equal(node(t, "c2")->sticky_ns, 60 * NSEC_PER_SEC); /* floor(1.14) > 0 */
	assert_int_equal(node(t, "c3")->sticky_ns, 0);		       /* floor(1.71) = 1 */
	free(text);
	free(t);
}

/* [lab] sticky_share and sticky: their errors, exact. */
static void test_dns_sticky_errors(void **state)
{
	char *sets[] = {"sticky_share=1.01", "sticky_share=-0.5", "sticky_share=1e-3", "sticky=0",
			"c1.sticky_share=0.5"};
	char *share[] = {"sticky_share=0.25", "sticky=0s"};

	(void)state;
	expect_errors(
	    DATA "err_sticky.ini", NULL, 0,
	    DATA "err_sticky.ini:3: [lab] sticky_share: expected a share from 0 to 1, "
		 "such as 0.25, got '1.5'\n" DATA
		 "err_sticky.ini:4: [lab] sticky: expected a duration greater than "
		 "zero, got '0s'\n" DATA
		 "err_sticky.ini:14: unknown key 'sticky_share' in [client c1] "
		 "(expected: link, rate, timeout, mode, resolver, name, sticky, "
		 "population, skew, zipf_exponent, arrivals, source_block, "
		 "resolver_weights, proto, location, addresses, connect_timeout, resolve, "
		 "dns_cache, requests_per_connection, idle_timeout, pipeline, family, host)\n" DATA
		 "err_sticky.ini:17: [client c2] sticky: expected a duration of at most "
		 "24h, got '25h'\n");
	expect_errors(
	    DATA "sticky.ini", sets, 5,
	    "--set sticky_share=1.01: expected a share from 0 to 1, such as 0.25\n"
	    "--set sticky_share=-0.5: expected a share from 0 to 1, such as 0.25\n"
	    "--set sticky_share=1e-3: expected a share from 0 to 1, such as 0.25\n"
	    "--set sticky=0: expected a duration greater than zero\n"
	    "--set c1.sticky_share=0.5: unknown key 'sticky_share' in [client c1] "
	    "(expected: link, rate, timeout, mode, resolver, name, sticky, population, "
	    "skew, zipf_exponent, arrivals, source_block, resolver_weights, proto, location, "
	    "addresses, connect_timeout, resolve, dns_cache, requests_per_connection, "
	    "idle_timeout, pipeline, family, host)\n");
	expect_errors(DATA "sticky.ini", share, 2,
		      "--set sticky=0s: expected a duration greater than zero\n");
}

/* label_run: n copies of c, then a NUL, into buf. */
static char *label_run(char *buf, char c, int n)
{
	memset(buf, c, (size_t)n);
	buf[n] = '\0';
	return buf;
}

#define DNAME_RULE                                                                                 \
	"expected a DNS name such as www.lab.example: labels of 1 to 63 characters from a-z, "     \
	"A-Z, "                                                                                    \
	"0-9, '-' and '_', separated by dots, at most 253 characters"

static void test_dns_names(void **state)
{
	static const char *const good[] = {"www.lab.example", "www.lab.example.", "a",
					   "_dns-sd._udp.Lab.Example", "x-1.y"};
	static const char *const bad[] = {
	    ".", "..", "a..b", ".a", "www.lab example", "caf\xc3\xa9.example", "a/b", "*.example"};
	struct topology *t = new_topology();
	char set[400], expected[600], a[64], b[72], *sets[] = {set};

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		snprintf(set, sizeof(set), "c1.name=%s", good[i]);
		load_ok(t, DATA "minimal.ini", sets, 1);
		assert_string_equal(node(t, "c1")->dns_name, good[i]);
	}
	/* 63-character labels, 253 characters in all, with or without the final dot */
	label_run(a, 'a', 63);
	snprintf(set, sizeof(set), "c1.name=%s.%s.%s.%s", a, a, a, label_run(b, 'b', 61));
	load_ok(t, DATA "minimal.ini", sets, 1);
	assert_int_equal(strlen(node(t, "c1")->dns_name), 253);
	strcat(set, ".");
	load_ok(t, DATA "minimal.ini", sets, 1);
	assert_int_equal(strlen(node(t, "c1")->dns_name), 254);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]) + 3; i++) {
		if (i < sizeof(bad) / sizeof(bad[0]))
			snprintf(set, sizeof(set), "c1.name=%s", bad[i]);
		else if (i == sizeof(bad) / sizeof(bad[0])) /* a 64-character label */
			snprintf(set, sizeof(set), "c1.name=%s.example", label_run(b, 'b', 64));
		else if (i == sizeof(bad) / sizeof(bad[0]) + 1) /* 254 characters */
			snprintf(set, sizeof(set), "c1.name=%s.%s.%s.%s", a, a, a,
				 label_run(b, 'b', 62));
		else
			snprintf(set, sizeof(set), "c1.name=");
		snprintf(expected, sizeof(expected), "--set %s: %s\n", set, DNAME_RULE);
		expect_errors(DATA "minimal.ini", sets, 1, expected);
	}
	free(t);
}

static void test_dns_golden(void **state)
{
	struct topology *t = new_topology();
	char *got;

	(void)state;
	load_ok(t, DATA "dns.ini", NULL, 0);
	got = print_to_string(t);
	test_assert_golden(DATA "dns.golden", got);
	free(got);
	free(t);
}

/* [zone]/[name] values are inih's: trimmed, without an inline comment;
 * ':' and '=' after the first delimiter are part of the value. */
static void test_dns_raw_as_written(void **state)
{
	static const char text[] = "[name www.lab.example]\n"
				   "policy   =   failover   ; inline comment\n"
				   "ttl =\n"
				   "[lab]\nname = raw\n[router r]\n[site s]\nlink = r\n"
				   "[dns ns]\nlink = r\n[client c]\nlink = r\n"
				   "[zone lab.example]\n"
				   "record: www AAAA 2001:db8::1\n"
				   "record = t TXT \"a=b\"\n"
				   "# a comment\n"
				   "record = www A 198.19.1.1\n"
				   "[name www.lab.example]\n"
				   "sites = s\n";
	static const struct {
		int section;
		const char *key, *value;
		int line;
	} pairs[] = {
	    {0, "policy", "failover", 2},
	    {0, "ttl", "", 3},
	    {1, "record", "www AAAA 2001:db8::1", 14},
	    {1, "record", "t TXT \"a=b\"", 15},
	    {1, "record", "www A 198.19.1.1", 17},
	    {2, "sites", "s", 19},
	};
	struct topology *t = new_topology();
	char path[64], *got;

	(void)state;
	write_temp(path, text, sizeof(text) - 1);
	load_ok(t, path, NULL, 0);
	unlink(path);
	/* the same name twice is two sections: authd's parser judges that */
	assert_int_equal(t->nraw_sections, 3);
	assert_string_equal(t->raw_sections[2].name, "www.lab.example");
	assert_int_equal(t->raw_sections[2].line, 18);
	assert_int_equal(t->nraw_pairs, 6);
	for (int i = 0; i < 6; i++) {
		assert_int_equal(t->raw_pairs[i].section, pairs[i].section);
		assert_string_equal(t->raw_pairs[i].key, pairs[i].key);
		assert_string_equal(t->raw_pairs[i].value, pairs[i].value);
		assert_int_equal(t->raw_pairs[i].line, pairs[i].line);
	}
	got = print_to_string(t);
	assert_non_null(strstr(got,
			       "\n# [zone] and [name]: authd's, as written (docs/authd.md).\n\n"
			       "[name www.lab.example]\npolicy = failover\nttl =\n\n"
			       "[zone lab.example]\nrecord = www AAAA 2001:db8::1\n"
			       "record = t TXT \"a=b\"\nrecord = www A 198.19.1.1\n"
			       "# served by ns (198.18.0.6)\n"
			       "# generated: record = lab.example. NS ns-ns.lab.example.\n"
			       "# generated: record = ns-ns.lab.example. A 198.18.0.6\n\n"
			       "[name www.lab.example]\nsites = s\n"));
	free(got);
	free(t);
}

/* Errors: err_NAME.ini has its messages in err_NAME.expected beside it. */
static void test_dns_error_files(void **state)
{
	static const char *const cases[] = {
	    "err_dns_values",  /* every new value type and key list */
	    "err_dns_refs",    /* resolvers, probes, site addresses */
	    "err_dns_missing", /* a prober, sections, a dns client: no [dns] node */
	    "err_dns_nozone",  /* a [dns] node without a [zone] */
	    "err_raw",	       /* [zone]/[name] headers and lines */
	    "err_sticky",      /* [lab] sticky_share and sticky */
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

/* The messages of the cross-checks, spelled out. */
static void test_dns_error_forms(void **state)
{
	(void)state;
	expect_errors(DATA "err_dns_nozone.ini", NULL, 0,
		      DATA "err_dns_nozone.ini:6: [dns ns]: a [dns] node needs at least one [zone] "
			   "section\n");
	expect_errors(DATA "err_dns_missing.ini", NULL, 0,
		      DATA "err_dns_missing.ini:12: [name www.lab.example] has no [dns] node to "
			   "serve it\n" DATA
			   "err_dns_missing.ini:7: [prober p1] reports to a [dns] node; there is "
			   "none\n" DATA "err_dns_missing.ini:11: [client c1] mode = dns needs "
			   "resolver = NAME of a [dns] or [resolver] node\n");
}

static void test_dns_error_sets(void **state)
{
	char *sets[] = {"lab.example.ttl=5", "www.lab.example.policy=simple",
			"a.b.c=1",	     "c1.resolver=a",
			"ns.quorum=1",	     "ns.all_dead=open",
			"c2.mode=tcp",	     "c2.sticky=1 s"};
	char *mode[] = {"c1.mode=dns"};
	char *both[] = {"c1.mode=both", "c1.resolver=r1"};
	char *addr[] = {"s1.address=198.19.0.1"};
	char *service[] = {"service=198.19.1.2"};
	char *twice[] = {"a.address=198.19.9.9", "b.address=198.19.9.9"};
	char *dflt[] = {"b.address=198.19.1.1"};

	(void)state;
	expect_errors(DATA "dns.ini", sets, 8,
		      "--set lab.example.ttl=5: [zone lab.example]: [zone]/[name] keys cannot be "
		      "overridden (they go to authd as written)\n"
		      "--set www.lab.example.policy=simple: [name www.lab.example]: [zone]/[name] "
		      "keys cannot be overridden (they go to authd as written)\n"
		      "--set a.b.c=1: no node named 'a.b' (node names have no dots; [zone]/[name] "
		      "keys cannot be overridden)\n"
		      "--set ns.quorum=1: expected a share from 0 up to (not including) 1, such as "
		      "0.5\n"
		      "--set ns.all_dead=open: expected fail-open or fail-closed\n"
		      "--set c2.mode=tcp: expected anycast, dns or both\n"
		      "--set c2.sticky=1 s: expected a duration such as 100ms or 2s\n"
		      "--set c1.resolver=a: [client c1] resolver: 'a' is a site, not a [dns] or "
		      "[resolver] node\n");
	expect_errors(DATA "minimal.ini", mode, 1,
		      "--set c1.mode=dns: [client c1] mode = dns needs resolver = NAME of a [dns] "
		      "or [resolver] node\n");
	expect_errors(DATA "minimal.ini", both, 2,
		      "--set c1.resolver=r1: [client c1] resolver: 'r1' is a router, not a [dns] "
		      "or [resolver] node\n");
	/* two addresses the same: the one set last is blamed, the other named */
	expect_errors(DATA "minimal.ini", addr, 1,
		      "--set s1.address=198.19.0.1: [site s1] address: 198.19.0.1 is also the "
		      "[lab] service (its default, line 2)\n");
	expect_errors(DATA "dns.ini", service, 1,
		      "--set service=198.19.1.2: [lab] service: 198.19.1.2 is also [site b]'s "
		      "address (its default, line 13)\n");
	expect_errors(DATA "dns.ini", twice, 2,
		      "--set b.address=198.19.9.9: [site b] address: 198.19.9.9 is also [site a]'s "
		      "address (--set a.address=198.19.9.9)\n");
	expect_errors(DATA "dns.ini", dflt, 1,
		      "--set b.address=198.19.1.1: [site b] address: 198.19.1.1 is also [site a]'s "
		      "address (its default, line 9)\n");
}

static const char limits_head[] = "[lab]\nname = l\n[router r]\n[site s]\nlink = r\n"
				  "[dns ns]\nlink = r\n[client c]\nlink = r\n"; /* 9 lines */

static void test_dns_limits(void **state)
{
	char path[64], expected[256], *text, *p;
	struct topology *t = new_topology();

	(void)state;
	/* 65 sections: the 65th is refused (said once), its keys ignored */
	text = calloc(1, 65536);
	assert_non_null(text);
	p = text + sprintf(text, "%s", limits_head);
	for (int i = 0; i < 66; i++)
		p += sprintf(p, "[zone z%d.example]\nsoa = x\n", i);
	write_temp(path, text, (size_t)(p - text));
	snprintf(expected, sizeof(expected),
		 "%s:%d: too many [zone]/[name] sections (at most 64)\n", path, 9 + 2 * 64 + 1);
	expect_errors(path, NULL, 0, expected);
	unlink(path);

	/* 64 sections and 512 keys: the most there may be */
	p = text + sprintf(text, "%s", limits_head);
	for (int i = 0; i < 64; i++)
		p += sprintf(p, "[%s z%d.example]\n", i % 2 ? "name" : "zone", i);
	for (int i = 0; i < 512; i++)
		p += sprintf(p, "record = r%d A 198.19.2.1\n", i);
	write_temp(path, text, (size_t)(p - text));
	load_ok(t, path, NULL, 0);
	assert_int_equal(t->nraw_sections, 64);
	assert_int_equal(t->nraw_pairs, 512);
	assert_int_equal(t->raw_pairs[511].section, 63);
	assert_int_equal(t->raw_pairs[511].line, 9 + 64 + 512);
	assert_string_equal(t->raw_pairs[511].value, "r511 A 198.19.2.1");
	unlink(path);

	/* 514 keys: the 513th is refused, said once */
	p += sprintf(p, "ttl = 5\nttl = 6\n");
	write_temp(path, text, (size_t)(p - text));
	snprintf(expected, sizeof(expected),
		 "%s:%d: too many keys in [zone]/[name] sections (at most 512)\n", path,
		 9 + 64 + 513);
	expect_errors(path, NULL, 0, expected);
	unlink(path);
	free(text);
	free(t);
}

/* a weighted name seen through fewer caches than its sites: check notes
 * it; with as many caches, or a population asking authd itself, not */
static void test_dns_weighted_note(void **state)
{
	static const char text[] = "[lab]\nname = wt\n[router core]\n"
				   "[site a]\nlink = core\nfail = yes\n[site b]\nlink = core\n"
				   "[site c]\nlink = core\n[dns ns]\nlink = core\n"
				   "[resolver r]\nlink = core\n"
				   "[client c1]\nlink = core\nmode = dns\nresolver = r\n"
				   "[zone lab.example]\nrecord = @ NS ns.lab.example.\n"
				   "[name www.lab.example]\npolicy = weighted\nweight = a 50\n"
				   "weight = b 30\nweight = c 20\n";
	char *sets[] = {"r.count=3"};
	struct topology *t = new_topology();
	char path[64], *got;

	(void)state;
	write_temp(path, text, sizeof(text) - 1);
	load_ok(t, path, NULL, 0);
	got = print_to_string(t);
	assert_non_null(strstr(got, "weight = c 20\n# note: weighted over 3 sites, but the lab has "
				    "1 cache: each hands out one site a TTL,\n"));
	free(got);
	load_ok(t, path, sets, 1);
	got = print_to_string(t);
	assert_null(strstr(got, "# note: weighted"));
	free(got);
	unlink(path);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dns_values),	       cmocka_unit_test(test_dns_defaults),
	    cmocka_unit_test(test_dns_weighted_note),  cmocka_unit_test(test_dns_sets),
	    cmocka_unit_test(test_dns_names),	       cmocka_unit_test(test_dns_golden),
	    cmocka_unit_test(test_dns_raw_as_written), cmocka_unit_test(test_dns_error_files),
	    cmocka_unit_test(test_dns_error_forms),    cmocka_unit_test(test_dns_error_sets),
	    cmocka_unit_test(test_dns_limits),	       cmocka_unit_test(test_dns_sticky),
	    cmocka_unit_test(test_dns_sticky_exact),   cmocka_unit_test(test_dns_sticky_errors),
	};

	return cmocka_run_group_tests_name("topology_dns", tests, NULL, NULL);
}
