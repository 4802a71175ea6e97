/*
 * The lab's own DNS tree (lab/topology/topology_tree.c, docs/topology.md "The
 * lab's DNS tree"): [dns] zones and its default, the root and TLD zones
 * and nodes [lab] dns_tree adds, the delegations and apex records the lab
 * generates, the root hints (topo_dns_roots), each [resolver] node's mode
 * and what the lab writes for authd (lab/build/dnsconf.c, checked by authd's own
 * parser) and resolverd (lab/build/resolvconf.c); the errors with their exact
 * messages; the golden test of topo_print for tree.ini, and its output
 * read back. Run from the repository root.
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

#include "agents/authd/authd_check.h"
#include "agents/resolverd/config.h"
#include "lab/build/dnsconf.h"
#include "lab/build/resolvconf.h"
#include "lab/topology/topology.h"
#include "test_topology_util.h"

#define TREE DATA "tree.ini"

/* zone_index: the [zone] section whose name is name */
static int zone_index(const struct topology *t, const char *name)
{
	for (int z = 0; z < t->nraw_sections; z++)
		if (strcmp(t->raw_sections[z].kind, "zone") == 0 &&
		    strcmp(t->raw_sections[z].name, name) == 0)
			return z;
	fail_msg("no [zone %s]", name);
	return -1;
}

/* records: what topo_zone_records emits, "LINE RECORD\n" each */
struct records {
	char text[4096];
	size_t len;
};

static void collect(void *arg, const char *record, int line)
{
	struct records *r = arg;

	r->len +=
	    (size_t)snprintf(r->text + r->len, sizeof(r->text) - r->len, "%d %s\n", line, record);
}

static const char *zone_records(const struct topology *t, const char *zone, const char *node,
				struct records *r)
{
	r->len = 0;
	r->text[0] = '\0';
	topo_zone_records(t, zone_index(t, zone), node ? node_index(t, node) : -1, collect, r);
	return r->text;
}

/* write_to_string: dnsconf_write or resolvconf_write of node name */
static char *write_to_string(const struct topology *t, const char *name, int resolver)
{
	char *buf;
	size_t len;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(out);
	if (resolver)
		assert_int_equal(resolvconf_write(t, node_index(t, name), out), 0);
	else
		assert_int_equal(dnsconf_write(t, node_index(t, name), out), 0);
	fclose(out);
	return buf;
}

static void test_tree_nodes(void **state)
{
	struct topology *t = new_topology();
	struct in_addr roots[4];
	static const struct {
		const char *zone, *parent;
		int nservers;
		const char *servers[2];
	} zones[] = {
	    {"lab.example", "example.", 1, {"ns"}},
	    {"edge.lab.example", "lab.example.", 1, {"edge"}},
	    {"cdn.example", "example.", 2, {"cdn", "ns2"}},
	    {"example.", ".", 1, {"tld"}},
	    {".", NULL, 1, {"root"}},
	};

	(void)state;
	load_ok(t, TREE, NULL, 0);
	/* the two nodes dns_tree adds: last, linked to the first router */
	assert_int_equal(t->nnodes, 12);
	assert_string_equal(t->nodes[10].name, "root");
	assert_string_equal(t->nodes[11].name, "tld");
	for (int i = 10; i < 12; i++) {
		assert_int_equal(t->nodes[i].kind, TOPO_DNS);
		assert_true(t->nodes[i].generated);
		assert_int_equal(t->nodes[i].line, 7); /* dns_tree = yes */
		assert_string_equal(t->nodes[t->links[t->nodes[i].link].router].name, "core");
	}
	assert_addr(t->links[node(t, "root")->link].node_addr, "198.18.0.38");
	assert_addr(t->links[node(t, "tld")->link].node_addr, "198.18.0.42");
	assert_false(node(t, "ns")->generated);

	/* every zone's servers and parent; the generated ones at dns_tree's line */
	for (size_t i = 0; i < sizeof(zones) / sizeof(zones[0]); i++) {
		const struct topo_raw_section *z = &t->raw_sections[zone_index(t, zones[i].zone)];

		assert_int_equal(z->nservers, zones[i].nservers);
		for (int s = 0; s < z->nservers; s++)
			assert_string_equal(t->nodes[z->servers[s]].name, zones[i].servers[s]);
		if (zones[i].parent)
			assert_string_equal(t->raw_sections[z->parent].apex, zones[i].parent);
		else
			assert_int_equal(z->parent, -1);
		assert_int_equal(z->generated, zones[i].zone[strlen(zones[i].zone) - 1] == '.');
		if (z->generated)
			assert_int_equal(z->line, 7);
	}
	assert_true(topo_dns_serves(t, node_index(t, "ns"), zone_index(t, "lab.example")));
	assert_false(topo_dns_serves(t, node_index(t, "ns"), zone_index(t, "edge.lab.example")));
	assert_int_equal(topo_name_zone(t, "www.cdn.example"), zone_index(t, "cdn.example"));
	assert_int_equal(topo_name_zone(t, "x.y.edge.lab.example."),
			 zone_index(t, "edge.lab.example"));
	assert_int_equal(topo_name_zone(t, "nowhere.test"), zone_index(t, "."));

	/* the root hints; who forwarding resolvers ask */
	assert_int_equal(topo_dns_roots(t, roots, 4), 1);
	assert_addr(roots[0], "198.18.0.38");
	assert_int_equal(topo_dns_roots(t, roots, 0), 0);
	assert_false(topo_rsv_upstream(t, node_index(t, "ns")));
	assert_false(topo_rsv_upstream(t, node_index(t, "edge")));
	assert_true(topo_rsv_upstream(t, node_index(t, "cdn")));
	assert_true(topo_rsv_upstream(t, node_index(t, "ns2")));
	assert_false(topo_rsv_upstream(t, node_index(t, "root")));
	assert_false(topo_rsv_upstream(t, node_index(t, "tld")));

	/* a lab with a root iterates unless told otherwise */
	assert_int_equal(node(t, "r")->rsv_mode, TOPO_RSV_ITERATE);
	assert_int_equal(node(t, "f")->rsv_mode, TOPO_RSV_FORWARD);
	free(t);

	/* without dns_tree, no root: no hints, and forward */
	t = new_topology();
	load_ok(t, DATA "resolver.ini", NULL, 0);
	assert_int_equal(topo_dns_roots(t, roots, 4), 0);
	assert_int_equal(node(t, "r")->rsv_mode, TOPO_RSV_FORWARD);
	free(t);
}

static void test_tree_records(void **state)
{
	struct topology *t = new_topology();
	struct records r;
	char *sets[] = {"ns.zones=lab.example edge.lab.example"};

	(void)state;
	load_ok(t, TREE, NULL, 0);
	/* the root: its own server, and example. delegated to tld with glue */
	assert_string_equal(zone_records(t, ".", NULL, &r), "7 . NS ns-root.\n"
							    "7 ns-root. A 198.18.0.38\n"
							    "7 example. NS ns-tld.example.\n"
							    "7 ns-tld.example. A 198.18.0.42\n");
	/* the TLD: lab.example to ns, cdn.example to its two servers */
	assert_string_equal(zone_records(t, "example.", "tld", &r),
			    "7 example. NS ns-tld.example.\n"
			    "7 ns-tld.example. A 198.18.0.42\n"
			    "45 lab.example. NS ns-ns.lab.example.\n"
			    "45 ns-ns.lab.example. A 198.18.0.10\n"
			    "53 cdn.example. NS ns-cdn.cdn.example.\n"
			    "53 cdn.example. NS ns-ns2.cdn.example.\n"
			    "53 ns-cdn.cdn.example. A 198.18.0.18\n"
			    "53 ns-ns2.cdn.example. A 198.18.0.22\n");
	/* a zone written by hand: its servers at its header's line, and the
	 * delegation of the zone below it at that zone's */
	assert_string_equal(zone_records(t, "lab.example", "ns", &r),
			    "45 lab.example. NS ns-ns.lab.example.\n"
			    "45 ns-ns.lab.example. A 198.18.0.10\n"
			    "49 edge.lab.example. NS ns-edge.edge.lab.example.\n"
			    "49 ns-edge.edge.lab.example. A 198.18.0.14\n");
	free(t);

	/* ns serves the child too: no referral in its copy, one in the print */
	t = new_topology();
	load_ok(t, TREE, sets, 1);
	assert_string_equal(zone_records(t, "lab.example", "ns", &r),
			    "45 lab.example. NS ns-ns.lab.example.\n"
			    "45 ns-ns.lab.example. A 198.18.0.10\n");
	assert_non_null(strstr(zone_records(t, "lab.example", NULL, &r),
			       "49 edge.lab.example. NS ns-ns.edge.lab.example.\n"
			       "49 edge.lab.example. NS ns-edge.edge.lab.example.\n"));
	free(t);
}

/* What the user wrote stays: apex NS, a delegation by hand, a TLD zone. */
static void test_tree_written(void **state)
{
	static const char text[] = "[lab]\nname = w\ndns_tree = yes\n[router core]\n"
				   "[site a]\nlink = core\n"
				   "[dns ns]\nlink = core\nzones = example\n" /* 7 */
				   "[dns ns2]\nlink = core\n"		      /* 10 */
				   "[client c]\nlink = core\n"		      /* 12 */
				   "[zone example]\n"			      /* 14 */
				   "soa = ns hostmaster 1 3600 600 86400 5\n" /* 15 */
				   "record = @ NS ns\n"			      /* 16 */
				   "record = ns A 198.18.0.6\n"		      /* 17 */
				   "record = lab NS ns.lab.example.\n"	      /* 18 */
				   "record = ns.lab A 198.18.0.10\n"	      /* 19 */
				   "[zone lab.example]\n"		      /* 20 */
				   "soa = ns hostmaster 1 3600 600 86400 5\n" /* 21 */
				   "record = @ NS ns.lab.example.\n"	      /* 22 */
				   "record = ns A 198.18.0.10\n";	      /* 23 */
	struct topology *t = new_topology();
	struct records r;
	char path[64], *conf;
	FILE *f;

	(void)state;
	write_temp(path, text, sizeof(text) - 1);
	load_ok(t, path, NULL, 0);
	/* the TLD is written: only the root is added */
	assert_int_equal(topo_find(t, "tld"), -1);
	assert_int_equal(node(t, "root")->link, 4);
	assert_true(t->raw_sections[zone_index(t, "example")].apex_ns);
	assert_true(t->raw_sections[zone_index(t, "lab.example")].deleg_written);
	/* the apex NS written: only the servers' addresses; no delegation */
	assert_string_equal(zone_records(t, "example", "ns", &r),
			    "14 ns-ns.example. A 198.18.0.6\n");
	assert_string_equal(zone_records(t, "lab.example", "ns2", &r),
			    "20 ns-ns2.lab.example. A 198.18.0.10\n");
	assert_string_equal(zone_records(t, ".", NULL, &r), "3 . NS ns-root.\n"
							    "3 ns-root. A 198.18.0.18\n"
							    "14 example. NS ns-ns.example.\n"
							    "14 ns-ns.example. A 198.18.0.6\n");
	/* authd takes what the lab writes for each node */
	for (int n = 0; n < t->nnodes; n++) {
		if (t->nodes[n].kind != TOPO_DNS)
			continue;
		conf = write_to_string(t, t->nodes[n].name, 0);
		f = fmemopen(conf, strlen(conf), "r");
		assert_non_null(f);
		assert_int_equal(authd_check_stream(f, path, stderr), 0);
		fclose(f);
		free(conf);
	}
	assert_int_equal(dnsconf_check(t, stderr), 0);
	unlink(path);
	free(t);
}

static void test_tree_dnsconf(void **state)
{
	struct topology *t = new_topology();
	char *conf;
	FILE *f;

	(void)state;
	load_ok(t, TREE, NULL, 0);
	/* tld: only the generated zone, each record at the line it comes from */
	conf = write_to_string(t, "tld", 0);
	assert_non_null(strstr(conf, "[zone example.]\n#line 7\nsoa = ns-tld.example. "
				     "hostmaster.example. 1 3600 600 86400 3600\n#line 7\n"
				     "ttl = 86400\n"));
	assert_non_null(strstr(conf, "\nrecord = lab.example. NS ns-ns.lab.example.\n"));
	assert_non_null(strstr(conf, "\nrecord = cdn.example. NS ns-cdn.cdn.example.\n"));
	assert_null(strstr(conf, "[zone lab.example]"));
	assert_null(strstr(conf, "[name "));
	free(conf);
	/* ns: its zone at its own lines, its generated records after; the
	 * [name] of another zone is not its own */
	conf = write_to_string(t, "ns", 0);
	assert_true(strncmp(conf, "\n\n\n", 3) == 0);
	assert_non_null(strstr(conf, "\n[zone lab.example]\nsoa = ns-ns hostmaster"));
	assert_non_null(strstr(conf, "#line 45\nrecord = lab.example. NS ns-ns.lab.example.\n"));
	assert_non_null(
	    strstr(conf, "\nrecord = edge.lab.example. NS ns-edge.edge.lab.example.\n"));
	assert_null(strstr(conf, "[zone example.]"));
	assert_null(strstr(conf, "[name www.cdn.example]"));
	free(conf);
	conf = write_to_string(t, "ns2", 0);
	assert_non_null(strstr(conf, "[name www.cdn.example]\npolicy = failover\n"));
	free(conf);
	/* authd's parser takes every node's: "#line" marks read as lines */
	for (int n = 0; n < t->nnodes; n++) {
		if (t->nodes[n].kind != TOPO_DNS)
			continue;
		conf = write_to_string(t, t->nodes[n].name, 0);
		f = fmemopen(conf, strlen(conf), "r");
		assert_non_null(f);
		assert_int_equal(authd_check_stream(f, TREE, stderr), 0);
		fclose(f);
		free(conf);
	}
	free(t);
}

/* authd's errors name the topology's lines, the generated records' too. */
static void test_tree_dnsconf_errors(void **state)
{
	static const char text[] = "[lab]\nname = e\ndns_tree = yes\n[router core]\n"
				   "[site a]\nlink = core\n[dns ns]\nlink = core\n"
				   "[client c]\nlink = core\n"
				   "[zone lab.example]\n"		      /* 11 */
				   "soa = ns hostmaster 1 3600 600 86400 5\n" /* 12 */
				   "record = ns-ns 60 A 198.18.0.6\n";	      /* 13 */
	struct topology *t = new_topology();
	char path[64], want[512], *errs = NULL;
	size_t len;
	FILE *err;

	(void)state;
	write_temp(path, text, sizeof(text) - 1);
	load_ok(t, path, NULL, 0);
	err = open_memstream(&errs, &len);
	assert_non_null(err);
	assert_int_equal(dnsconf_check(t, err), -1);
	fclose(err);
	snprintf(want, sizeof(want),
		 "%s:11: this record's TTL 30 differs from its RRset's, set at line 13 (RFC "
		 "2181: one TTL per RRset) (line 11 also stands for the records the lab "
		 "generates there: ns.authd.ini)\n",
		 path);
	assert_string_equal(errs, want);
	free(errs);
	unlink(path);
	free(t);
}

/* the timeline's DNS changes, applied in order by authd's own code at
 * check: each refusal names its event's line */
static void test_tree_dnsconf_changes(void **state)
{
	static const char text[] = "[lab]\nname = e\n[router core]\n"		       /* 1 */
				   "[site a]\nlink = core\n[site b]\nlink = core\n"    /* 4 */
				   "[dns ns]\nlink = core\n[client c]\nlink = core\n"  /* 8 */
				   "[zone lab.example]\n"			       /* 12 */
				   "soa = ns hostmaster 1 3600 600 86400 5\n"	       /* 13 */
				   "[name w.lab.example]\npolicy = weighted\n"	       /* 14 */
				   "weight = a 1\nweight = b 1\n"		       /* 16 */
				   "[name f.lab.example]\npolicy = failover\n"	       /* 18 */
				   "primary = a\nsecondary = b\n"		       /* 20 */
				   "[event e1]\nat = 1s\naction = set-weight\n"	       /* 22 */
				   "name = w.lab.example\nsite = a\nweight = 0\n"      /* 25 */
				   "[event e2]\nat = 2s\naction = set-weight\n"	       /* 28 */
				   "name = w.lab.example\nsite = b\nweight = 0\n"      /* 31 */
				   "[event e3]\nat = 1s\naction = set-weight\n"	       /* 34 */
				   "name = f.lab.example\nsite = a\nweight = 5\n"      /* 37 */
				   "[event e4]\nat = 3s\naction = remove-record\n"     /* 40 */
				   "name = n.lab.example\nrecord = A\n"		       /* 43 */
				   "[event e5]\nat = 2s\naction = add-record\n"	       /* 45 */
				   "name = n.lab.example\nrecord = A 198.19.9.1\n"     /* 48 */
				   "[event e6]\nat = 4s\naction = add-record\n"	       /* 50 */
				   "name = n.lab.example\nrecord = 60 A 198.19.9.2\n"; /* 53 */
	struct topology *t = new_topology();
	char path[64], want[1024], *errs = NULL;
	size_t len;
	FILE *err;

	(void)state;
	write_temp(path, text, sizeof(text) - 1);
	load_ok(t, path, NULL, 0);
	err = open_memstream(&errs, &len);
	assert_non_null(err);
	assert_int_equal(dnsconf_check(t, err), -1);
	fclose(err);
	/* in time order: e3 (1s), e1, e2 and e5 (2s), e4 (3s: e5 added the
	 * record it removes), e6 (4s: the record is gone, and a new RRset may
	 * have its own TTL) */
	snprintf(want, sizeof(want),
		 "%s:34: [event e3]: f.lab.example.: policy failover has no weights (set-weight "
		 "changes a weighted name's)\n"
		 "%s:28: [event e2]: w.lab.example.: a weight of 0 for b would leave no site "
		 "above 0 (expected another site's weight raised first)\n",
		 path, path);
	assert_string_equal(errs, want);
	free(errs);
	unlink(path);
	free(t);
}

static void test_tree_resolvconf(void **state)
{
	struct topology *t = new_topology();
	char *conf;

	(void)state;
	load_ok(t, TREE, NULL, 0);
	/* r iterates from the root; its own keys stay at their lines */
	conf = write_to_string(t, "r", 1);
	assert_non_null(strstr(conf, "[resolverd]\n\nqname_minimisation = yes\n"));
	assert_non_null(strstr(conf, "\n#line 32\nmode = iterate\n#line 32\nroot = 198.18.0.38\n"));
	assert_null(strstr(conf, "upstream"));
	free(conf);
	/* f forwards to the servers of the steered name's zone */
	conf = write_to_string(t, "f", 1);
	assert_non_null(strstr(conf, "\n#line 36\nupstream = 198.18.0.18 198.18.0.22\n"));
	assert_null(strstr(conf, "mode ="));
	assert_null(strstr(conf, "root ="));
	free(conf);
	free(t);
}

/* ip = 6: the caches at their IPv6 addresses alone; r walks from the
 * root's IPv6 address over IPv6, f forwards to the IPv6 addresses of the
 * servers of the steered name's zone; resolverd reads both */
static void test_tree_resolvconf_ip6(void **state)
{
	struct topology *t = new_topology();
	char *sets[] = {"ip=6", "routing=bgp"}, *conf, a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
	char want[512];
	struct in6_addr first6;
	struct rsv_conf c;
	FILE *in;
	int n;

	(void)state;
	load_ok(t, TREE, sets, 2);
	n = node_index(t, "root");
	conf = write_to_string(t, "r", 1);
	snprintf(want, sizeof(want),
		 "\n#line 32\nmode = iterate\n#line 32\nroot = %s\n#line 32\ntransport = 6\n",
		 inet_ntop(AF_INET6, &t->links[t->nodes[n].link].node_addr6, a, sizeof(a)));
	assert_non_null(strstr(conf, want));
	n = node_index(t, "r");
	first6 = topo_resolver_addr6(t, n, 1);
	snprintf(want, sizeof(want),
		 "\n[resolvers r]\n#line 32\ncount = 1\n#line 32\nfirst_address6 = %s\n",
		 inet_ntop(AF_INET6, &first6, a, sizeof(a)));
	assert_non_null(strstr(conf, want));
	assert_null(strstr(conf, "first_address ="));
	/* resolverd: one cache at r's first IPv6 address, none of IPv4 */
	in = fmemopen(conf, strlen(conf), "r");
	assert_non_null(in);
	assert_int_equal(rsv_conf_load_stream(&c, in, "r.ini", stderr), 0);
	fclose(in);
	assert_int_equal(c.transport, 6);
	assert_int_equal(c.ninst, 1);
	assert_true(c.inst[0].v6only && c.inst[0].has_addr6);
	assert_memory_equal(&c.inst[0].addr6, &first6, sizeof(first6));
	rsv_conf_free(&c);
	free(conf);

	/* f: the IPv6 link addresses of cdn and ns2 */
	conf = write_to_string(t, "f", 1);
	n = node_index(t, "cdn");
	inet_ntop(AF_INET6, &t->links[t->nodes[n].link].node_addr6, a, sizeof(a));
	n = node_index(t, "ns2");
	inet_ntop(AF_INET6, &t->links[t->nodes[n].link].node_addr6, b, sizeof(b));
	snprintf(want, sizeof(want), "\n#line 36\nupstream = %s %s\n", a, b);
	assert_non_null(strstr(conf, want));
	assert_null(strstr(conf, "transport"));
	assert_null(strstr(conf, "first_address ="));
	assert_non_null(strstr(conf, "first_address6 = 2001:2:0:8001::1\n"));
	free(conf);
	assert_int_equal(resolvconf_check(t, stderr), 0);
	free(t);
}

static void test_tree_golden(void **state)
{
	struct topology *t = new_topology(), *back = new_topology();
	char path[64], *got, *again;

	(void)state;
	load_ok(t, TREE, NULL, 0);
	got = print_to_string(t);
	test_assert_golden(DATA "tree.golden", got);
	/* read back: the same lab, root and tld added again, not twice */
	write_temp(path, got, strlen(got));
	load_ok(back, path, NULL, 0);
	unlink(path);
	assert_int_equal(back->nnodes, t->nnodes);
	again = print_to_string(back);
	assert_string_equal(again, got);
	free(again);
	free(got);
	free(back);
	free(t);
}

static void test_tree_errors(void **state)
{
	static const struct {
		const char *text, *errors;
	} cases[] = {
	    /* a zone nobody serves; a zone name that is no [zone] */
	    {"[dns ns]\nlink = core\nzones = lab.example nope.example\n" /* 5 */
	     "[zone lab.example]\nsoa = x\n[zone other.example]\nsoa = x\n",
	     "PATH:10: [dns ns] zones: 'nope.example' is not a [zone] of this file (expected the "
	     "name of a [zone] section)\n"
	     "PATH:13: [zone other.example] is served by no [dns] node: every [dns] node's zones "
	     "leaves it out; expected its name in one of them\n"},
	    /* a [dns] node left with nothing to serve */
	    {"[dns ns]\nlink = core\nzones = lab.example\n[dns ns2]\nlink = core\n"
	     "[zone lab.example]\nsoa = x\n",
	     "PATH:11: [dns ns2] serves no zone: every [zone] is named by another [dns] node's "
	     "zones; expected zones = NAME ... here\n"},
	    /* an empty list */
	    {"[dns ns]\nlink = core\nzones =\n[zone lab.example]\nsoa = x\n",
	     "PATH:10: [dns ns] zones: expected the names of [zone] sections separated by spaces, "
	     "such as '. example' or lab.example ('.' is the root zone), got ''\n"},
	    /* iterate needs a root; forward needs a server below it */
	    {"[dns ns]\nlink = core\n[zone lab.example]\nsoa = x\n"
	     "[resolver r]\nlink = core\nmode = iterate\n",
	     "PATH:14: [resolver r] mode = iterate needs the lab's root zone: expected [lab] "
	     "dns_tree = yes, or a [zone .] and its [dns] node\n"},
	    {"[dns ns]\nlink = core\n[zone .]\nsoa = x\n[resolver r]\nlink = core\nmode = forward\n"
	     "root = 1.2.3.4\n",
	     "PATH:15: [resolver r] root: the lab writes this one (the upstreams are the [dns] "
	     "nodes; the caches listen on port 53 at the node's addresses)\n"
	     "PATH:14: [resolver r] forwards to the [dns] nodes below the root; there is none "
	     "(the root and TLD servers answer with referrals): expected mode = iterate\n"},
	    {"[dns ns]\nlink = core\nzones = x\n",
	     "PATH:8: [dns ns]: a [dns] node needs at least one [zone] section\n"
	     "PATH:10: [dns ns] zones: 'x' is not a [zone] of this file (expected the name of a "
	     "[zone] section)\n"},
	};
	static const char head[] = "[lab]\nname = e\n[router core]\n[site a]\nlink = core\n"
				   "[client c]\nlink = core\n";
	static const char tree_cases[][2][512] = {
	    /* dns_tree: a name it takes is taken; no zone to hang the tree on */
	    {"[lab]\nname = e\ndns_tree = yes\n[router core]\n[site tld]\nlink = core\n"
	     "[client c]\nlink = core\n[dns ns]\nlink = core\n[zone lab.example]\nsoa = x\n",
	     "PATH:3: [lab] dns_tree: the lab adds the [dns] node 'tld', and [site tld] (line 5) "
	     "has that name: expected another name for that node\n"},
	    {"[lab]\nname = e\ndns_tree = yes\n[router core]\n[site a]\nlink = core\n"
	     "[client c]\nlink = core\n",
	     "PATH:3: [lab] dns_tree: expected a [zone] section (the service zone: the lab writes "
	     "the root and TLD zones above it)\n"},
	};
	char path[64], text[1024], want[2048];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]) + 2; i++) {
		const char *errors;
		size_t w = 0;

		if (i < sizeof(cases) / sizeof(cases[0])) {
			snprintf(text, sizeof(text), "%s%s", head, cases[i].text);
			errors = cases[i].errors;
		} else {
			snprintf(text, sizeof(text), "%s", tree_cases[i - 6][0]);
			errors = tree_cases[i - 6][1];
		}
		write_temp(path, text, strlen(text));
		for (const char *c = errors; *c; c++) {
			if (strncmp(c, "PATH", 4) == 0) {
				w += (size_t)snprintf(want + w, sizeof(want) - w, "%s", path);
				c += 3;
			} else {
				want[w++] = *c;
			}
		}
		want[w] = '\0';
		expect_errors(path, NULL, 0, want);
		unlink(path);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tree_nodes),		cmocka_unit_test(test_tree_records),
	    cmocka_unit_test(test_tree_written),	cmocka_unit_test(test_tree_dnsconf),
	    cmocka_unit_test(test_tree_dnsconf_errors), cmocka_unit_test(test_tree_dnsconf_changes),
	    cmocka_unit_test(test_tree_resolvconf),	cmocka_unit_test(test_tree_resolvconf_ip6),
	    cmocka_unit_test(test_tree_golden),		cmocka_unit_test(test_tree_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
