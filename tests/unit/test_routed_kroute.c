/*
 * routed's kernel routes (agents/routed/kroute.c) in the real FIB of a
 * network namespace of the test's own (test_netns.h; root, else skipped),
 * read back through libnl: a route installed with our protocol, the
 * gateway and the metric asked; replaced in place for the same prefix and
 * metric, added beside for another metric; in the table asked; deleted
 * exactly (gateway and metric, or any metric), "no such route" said apart
 * from an error, and a route of another protocol never deleted; the
 * kernel's refusal given as libnl's text.
 */
#include <arpa/inet.h>
#include <linux/rtnetlink.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <net/if.h>
#include <netlink/route/addr.h>
#include <netlink/route/route.h>

#include "agents/routed/knh.h"
#include "agents/routed/kroute.h"
#include "agents/routed/twin.h"
#include "test_netns.h"

#define TABLE_OTHER 100

struct fixture {
	struct nl_sock *sk;
	struct kroute_ctx *k;
	enum kroute_ecmp ecmp;
	char err[256];
};

/* lab: the namespace: veth t0 (198.18.0.1/29) to t1, so that 198.18.0.2
 * to .6 are gateways on a link */
static void lab(struct fixture *f, uint32_t table)
{
	struct rtnl_addr *a = rtnl_addr_alloc();
	struct nl_addr *local;
	int ifindex;

	f->sk = test_netns_sock();
	ifindex = test_netns_veth(f->sk, "t0", "t1");
	assert_non_null(a);
	assert_int_equal(nl_addr_parse("198.18.0.1/29", AF_INET, &local), 0);
	rtnl_addr_set_ifindex(a, ifindex);
	assert_int_equal(rtnl_addr_set_local(a, local), 0);
	assert_int_equal(rtnl_addr_add(f->sk, a, 0), 0);
	nl_addr_put(local);
	rtnl_addr_put(a);
	assert_non_null(f->k = kroute_open(table, f->ecmp));
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	kroute_close(f->k);
	if (f->sk)
		nl_socket_free(f->sk);
	memset(f, 0, sizeof(*f));
	return 0;
}

/* routes: the IPv4 routes of table with a gateway, one a line, "DST via GW
 * metric M proto P", in the kernel's order */
static const char *routes_of(struct fixture *f, int family, uint32_t table)
{
	static char out[1024];
	struct nl_cache *cache;
	size_t at = 0;

	out[0] = '\0';
	assert_int_equal(rtnl_route_alloc_cache(f->sk, family, 0, &cache), 0);
	for (struct nl_object *o = nl_cache_get_first(cache); o; o = nl_cache_get_next(o)) {
		struct rtnl_route *r = (struct rtnl_route *)o;
		struct rtnl_nexthop *nh;
		char dst[64], gw[64];

		if (rtnl_route_get_table(r) != table || rtnl_route_get_nnexthops(r) != 1)
			continue;
		nh = rtnl_route_nexthop_n(r, 0);
		if (rtnl_route_nh_get_gateway(nh) == NULL)
			continue;
		/* ours are unicast routes of universe scope */
		assert_int_equal(rtnl_route_get_type(r), RTN_UNICAST);
		assert_int_equal(rtnl_route_get_scope(r), RT_SCOPE_UNIVERSE);
		nl_addr2str(rtnl_route_get_dst(r), dst, sizeof(dst));
		nl_addr2str(rtnl_route_nh_get_gateway(nh), gw, sizeof(gw));
		at += (size_t)snprintf(out + at, sizeof(out) - at, "%s via %s metric %u proto %u\n",
				       dst, gw, rtnl_route_get_priority(r),
				       rtnl_route_get_protocol(r));
	}
	nl_cache_free(cache);
	return out;
}

static const char *routes(struct fixture *f, uint32_t table)
{
	return routes_of(f, AF_INET, table);
}

static struct kroute route(const char *prefix, int len, const char *via, unsigned metric)
{
	struct kroute r = {.prefixlen = len, .metric = metric};

	assert_int_equal(inet_pton(AF_INET, prefix, &r.prefix), 1);
	assert_int_equal(inet_pton(AF_INET, via, &r.via), 1);
	return r;
}

static void change(struct fixture *f, struct kroute r)
{
	if (kroute_change(f->k, &r, f->err, sizeof(f->err)) != 0)
		fail_msg("kroute_change: %s", f->err);
}

static void test_change_installs_and_replaces(void **state)
{
	struct fixture *f = *state;

	TEST_NETNS_ENTER();
	lab(f, RT_TABLE_MAIN);
	assert_string_equal(routes(f, RT_TABLE_MAIN), "");
	change(f, route("198.19.0.1", 32, "198.18.0.2", 10));
	assert_string_equal(routes(f, RT_TABLE_MAIN),
			    "198.19.0.1 via 198.18.0.2 metric 10 proto 252\n");
	/* the same prefix and metric: replaced, not added */
	change(f, route("198.19.0.1", 32, "198.18.0.3", 10));
	assert_string_equal(routes(f, RT_TABLE_MAIN),
			    "198.19.0.1 via 198.18.0.3 metric 10 proto 252\n");
	/* another metric: a second route, the better one first */
	change(f, route("198.19.0.1", 32, "198.18.0.2", 5));
	change(f, route("198.19.4.0", 24, "198.18.0.4", 0));
	assert_string_equal(routes(f, RT_TABLE_MAIN),
			    "198.19.0.1 via 198.18.0.2 metric 5 proto 252\n"
			    "198.19.0.1 via 198.18.0.3 metric 10 proto 252\n"
			    "198.19.4.0/24 via 198.18.0.4 metric 0 proto 252\n");
}

static void test_table(void **state)
{
	struct fixture *f = *state;

	TEST_NETNS_ENTER();
	lab(f, TABLE_OTHER);
	change(f, route("198.19.0.1", 32, "198.18.0.2", 10));
	assert_string_equal(routes(f, TABLE_OTHER),
			    "198.19.0.1 via 198.18.0.2 metric 10 proto 252\n");
	assert_string_equal(routes(f, RT_TABLE_MAIN), "");
}

static void test_delete_exactly(void **state)
{
	struct fixture *f = *state;
	struct kroute r;

	TEST_NETNS_ENTER();
	lab(f, RT_TABLE_MAIN);
	change(f, route("198.19.0.1", 32, "198.18.0.2", 10));
	change(f, route("198.19.0.1", 32, "198.18.0.2", 20));
	change(f, route("198.19.0.1", 32, "198.18.0.3", 30));
	/* another gateway, another metric: no such route, nothing deleted */
	r = route("198.19.0.1", 32, "198.18.0.4", 10);
	assert_int_equal(kroute_delete(f->k, &r, f->err, sizeof(f->err)), 1);
	r = route("198.19.0.1", 32, "198.18.0.2", 15);
	assert_int_equal(kroute_delete(f->k, &r, f->err, sizeof(f->err)), 1);
	assert_string_equal(routes(f, RT_TABLE_MAIN),
			    "198.19.0.1 via 198.18.0.2 metric 10 proto 252\n"
			    "198.19.0.1 via 198.18.0.2 metric 20 proto 252\n"
			    "198.19.0.1 via 198.18.0.3 metric 30 proto 252\n");
	/* the one asked */
	r = route("198.19.0.1", 32, "198.18.0.2", 20);
	assert_int_equal(kroute_delete(f->k, &r, f->err, sizeof(f->err)), 0);
	assert_int_equal(kroute_delete(f->k, &r, f->err, sizeof(f->err)), 1);
	assert_string_equal(routes(f, RT_TABLE_MAIN),
			    "198.19.0.1 via 198.18.0.2 metric 10 proto 252\n"
			    "198.19.0.1 via 198.18.0.3 metric 30 proto 252\n");
	/* any metric: the gateway's, whatever its metric */
	r = route("198.19.0.1", 32, "198.18.0.3", 0);
	r.any_metric = 1;
	assert_int_equal(kroute_delete(f->k, &r, f->err, sizeof(f->err)), 0);
	assert_string_equal(routes(f, RT_TABLE_MAIN),
			    "198.19.0.1 via 198.18.0.2 metric 10 proto 252\n");
}

static void test_other_protocol_kept(void **state)
{
	struct fixture *f = *state;
	struct rtnl_route *st;
	struct rtnl_nexthop *nh;
	struct nl_addr *dst, *gw;
	struct kroute r;

	TEST_NETNS_ENTER();
	lab(f, RT_TABLE_MAIN);
	assert_non_null(st = rtnl_route_alloc());
	assert_non_null(nh = rtnl_route_nh_alloc());
	/* what an administrator (or another daemon) put there: proto static */
	assert_int_equal(nl_addr_parse("198.19.0.1/32", AF_INET, &dst), 0);
	assert_int_equal(nl_addr_parse("198.18.0.2", AF_INET, &gw), 0);
	rtnl_route_set_family(st, AF_INET);
	assert_int_equal(rtnl_route_set_dst(st, dst), 0);
	rtnl_route_set_table(st, RT_TABLE_MAIN);
	rtnl_route_set_protocol(st, RTPROT_STATIC);
	rtnl_route_set_priority(st, 10);
	rtnl_route_nh_set_gateway(nh, gw);
	rtnl_route_add_nexthop(st, nh);
	assert_int_equal(rtnl_route_add(f->sk, st, NLM_F_CREATE | NLM_F_EXCL), 0);
	nl_addr_put(dst);
	nl_addr_put(gw);
	rtnl_route_put(st);

	r = route("198.19.0.1", 32, "198.18.0.2", 10);
	assert_int_equal(kroute_delete(f->k, &r, f->err, sizeof(f->err)), 1);
	r.any_metric = 1;
	assert_int_equal(kroute_delete(f->k, &r, f->err, sizeof(f->err)), 1);
	assert_string_equal(routes(f, RT_TABLE_MAIN),
			    "198.19.0.1 via 198.18.0.2 metric 10 proto 4\n");
}

/* a dual lab's twins (twin.h): each IPv4 route of a prefix with a twin
 * has an IPv6 one beside it, via the next hop's twin, at its metric;
 * deleted likewise; a prefix without one has none */
static void test_ipv6_twin(void **state)
{
	struct fixture *f = *state;
	struct twins tw = {0};
	struct kroute r, r6;
	struct rtnl_addr *a = rtnl_addr_alloc();
	struct nl_addr *local;

	TEST_NETNS_ENTER();
	lab(f, RT_TABLE_MAIN);
	assert_non_null(a);
	assert_int_equal(nl_addr_parse("2001:2:0:3::1/64", AF_INET6, &local), 0);
	rtnl_addr_set_ifindex(a, (int)if_nametoindex("t0"));
	rtnl_addr_set_flags(a, IFA_F_NODAD);
	assert_int_equal(rtnl_addr_set_local(a, local), 0);
	assert_int_equal(rtnl_addr_add(f->sk, a, 0), 0);
	nl_addr_put(local);
	rtnl_addr_put(a);

	assert_int_equal(twin_add(&tw, "198.19.0.1/32=2001:2:0:ff00::1/128"), 0);
	assert_int_equal(twin_add(&tw, "198.18.0.2=2001:2:0:3::2"), 0);
	/* malformed: the families the wrong way round, a prefix beside an
	 * address, no '=' */
	assert_int_equal(twin_add(&tw, "2001:2:0:3::2=198.18.0.2"), -1);
	assert_int_equal(twin_add(&tw, "198.19.0.1/32=2001:2:0:ff00::1"), -1);
	assert_int_equal(twin_add(&tw, "198.18.0.2"), -1);

	r = route("198.19.0.1", 32, "198.18.0.2", 10);
	assert_int_equal(twin_route(&tw, &r, &r6), 1);
	change(f, r);
	change(f, r6);
	assert_string_equal(routes(f, RT_TABLE_MAIN),
			    "198.19.0.1 via 198.18.0.2 metric 10 proto 252\n");
	assert_string_equal(routes_of(f, AF_INET6, RT_TABLE_MAIN),
			    "2001:2:0:ff00::1 via 2001:2:0:3::2 metric 10 proto 252\n");
	assert_int_equal(kroute_delete(f->k, &r6, f->err, sizeof(f->err)), 0);
	assert_string_equal(routes_of(f, AF_INET6, RT_TABLE_MAIN), "");
	/* a next hop with no twin: said; a prefix with none: nothing to do */
	r = route("198.19.0.1", 32, "198.18.0.3", 10);
	assert_int_equal(twin_route(&tw, &r, &r6), -1);
	r = route("198.19.4.0", 24, "198.18.0.2", 10);
	assert_int_equal(twin_route(&tw, &r, &r6), 0);
}

static void test_refused(void **state)
{
	struct fixture *f = *state;
	struct kroute r;

	TEST_NETNS_ENTER();
	lab(f, RT_TABLE_MAIN);
	/* a gateway on no link of the namespace: the kernel's ENETUNREACH,
	 * which libnl's nl_geterror says as NLE_FAILURE */
	r = route("198.19.0.1", 32, "198.18.9.9", 10);
	assert_int_equal(kroute_change(f->k, &r, f->err, sizeof(f->err)), -1);
	assert_string_equal(f->err, "Unspecific failure");
	/* a prefix length IPv4 has not */
	r = route("198.19.0.1", 33, "198.18.0.2", 10);
	assert_int_equal(kroute_change(f->k, &r, f->err, sizeof(f->err)), -1);
	assert_string_equal(f->err, "Invalid input data or parameter");
	assert_int_equal(kroute_delete(f->k, &r, f->err, sizeof(f->err)), -1);
	assert_string_equal(f->err, "Invalid input data or parameter");
	assert_string_equal(routes(f, RT_TABLE_MAIN), "");
}

/* multipath: the gateways of table's route to dst, "GW,GW,..." in the
 * kernel's order ("" when there is none) */
static const char *multipath(struct fixture *f, const char *dst_text)
{
	static char out[512];
	struct nl_cache *cache;
	size_t at = 0;

	out[0] = '\0';
	assert_int_equal(rtnl_route_alloc_cache(f->sk, AF_INET, 0, &cache), 0);
	for (struct nl_object *o = nl_cache_get_first(cache); o; o = nl_cache_get_next(o)) {
		struct rtnl_route *r = (struct rtnl_route *)o;
		char dst[64], gw[64];

		nl_addr2str(rtnl_route_get_dst(r), dst, sizeof(dst));
		if (rtnl_route_get_table(r) != RT_TABLE_MAIN || strcmp(dst, dst_text) != 0)
			continue;
		assert_int_equal(rtnl_route_get_protocol(r), KROUTE_PROTO);
		for (int i = 0; i < rtnl_route_get_nnexthops(r); i++) {
			struct nl_addr *a = rtnl_route_nh_get_gateway(rtnl_route_nexthop_n(r, i));

			assert_non_null(a);
			at += (size_t)snprintf(out + at, sizeof(out) - at, "%s%s", at ? "," : "",
					       nl_addr2str(a, gw, sizeof(gw)));
		}
	}
	nl_cache_free(cache);
	return out;
}

/* ECMP (hash): one route with every gateway as a next hop, replaced as a
 * whole when the set changes, deleted without naming a gateway */
static void test_ecmp_hash(void **state)
{
	struct fixture *f = *state;
	struct kroute r = route("198.19.0.1", 32, "198.18.0.2", 10);

	TEST_NETNS_ENTER();
	f->ecmp = KROUTE_ECMP_HASH;
	lab(f, RT_TABLE_MAIN);
	r.nvia = 3;
	assert_int_equal(inet_pton(AF_INET, "198.18.0.2", &r.vias[0]), 1);
	assert_int_equal(inet_pton(AF_INET, "198.18.0.3", &r.vias[1]), 1);
	assert_int_equal(inet_pton(AF_INET, "198.18.0.4", &r.vias[2]), 1);
	change(f, r);
	assert_string_equal(multipath(f, "198.19.0.1"), "198.18.0.2,198.18.0.3,198.18.0.4");
	r.vias[1] = r.vias[2];
	r.nvia = 2;
	change(f, r);
	assert_string_equal(multipath(f, "198.19.0.1"), "198.18.0.2,198.18.0.4");
	r.nvia = 1;
	change(f, r);
	assert_string_equal(multipath(f, "198.19.0.1"), "198.18.0.2");
	r.nvia = 0;
	r.via.s_addr = 0;
	assert_int_equal(kroute_delete(f->k, &r, f->err, sizeof(f->err)), 0);
	assert_string_equal(multipath(f, "198.19.0.1"), "");
	assert_int_equal(kroute_delete(f->k, &r, f->err, sizeof(f->err)), 1);
}

/* sh: the first line of cmd's output (ip in the test's namespace), or "" */
static const char *sh(const char *cmd)
{
	static char out[4096];
	FILE *p = popen(cmd, "r");
	size_t n;

	assert_non_null(p);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	pclose(p);
	return out;
}

/* buckets: the gateway id of each bucket of group gid, "id id id ..." */
static void buckets(uint32_t gid, unsigned *ids, int n)
{
	char cmd[128], line[256];
	FILE *p;
	int k = 0;

	snprintf(cmd, sizeof(cmd), "ip nexthop bucket list id %u", gid);
	assert_non_null(p = popen(cmd, "r"));
	while (fgets(line, sizeof(line), p)) {
		const char *at = strstr(line, "nhid ");
		unsigned index;

		assert_non_null(at);
		assert_int_equal(sscanf(line, "id %*u index %u", &index), 1);
		assert_true(index < (unsigned)n);
		ids[index] = (unsigned)strtoul(at + 5, NULL, 10);
		k++;
	}
	pclose(p);
	assert_int_equal(k, n);
}

/* ECMP (resilient): the route points at a resilient group of the
 * gateways' nexthop objects; a gateway's removal hands its buckets to the
 * others and moves no other bucket; the route's deletion takes the group */
static void test_ecmp_resilient(void **state)
{
	struct fixture *f = *state;
	struct kroute r = route("198.19.0.1", 32, "198.18.0.2", 10);
	unsigned before[KNH_BUCKETS], after[KNH_BUCKETS];
	const uint32_t gid = KNH_GROUP_BASE + 1, gone = KNH_GW_BASE + 2;
	char want[512];
	int moved = 0;

	TEST_NETNS_ENTER();
	f->ecmp = KROUTE_ECMP_RESILIENT;
	lab(f, RT_TABLE_MAIN);
	r.nvia = 3;
	assert_int_equal(inet_pton(AF_INET, "198.18.0.2", &r.vias[0]), 1);
	assert_int_equal(inet_pton(AF_INET, "198.18.0.3", &r.vias[1]), 1);
	assert_int_equal(inet_pton(AF_INET, "198.18.0.4", &r.vias[2]), 1);
	change(f, r);
	snprintf(want, sizeof(want),
		 "198.19.0.1 nhid %u proto 252 metric 10 \n"
		 "\tnexthop via 198.18.0.2 dev t0 weight 1 \n"
		 "\tnexthop via 198.18.0.3 dev t0 weight 1 \n"
		 "\tnexthop via 198.18.0.4 dev t0 weight 1 \n",
		 gid);
	assert_string_equal(sh("ip route show 198.19.0.1"), want);
	buckets(gid, before, KNH_BUCKETS);
	/* the same set again (a refresh): nothing moves */
	change(f, r);
	buckets(gid, after, KNH_BUCKETS);
	assert_memory_equal(before, after, sizeof(before));
	/* 198.18.0.3 leaves */
	r.vias[1] = r.vias[2];
	r.nvia = 2;
	change(f, r);
	buckets(gid, after, KNH_BUCKETS);
	for (int i = 0; i < KNH_BUCKETS; i++) {
		assert_true(after[i] != gone);
		if (before[i] != gone)
			assert_int_equal(after[i], before[i]);
		else
			moved++;
	}
	/* its share of the 64 buckets, a third, give or take the rounding */
	assert_true(moved >= 21 && moved <= 22);
	r.nvia = 0;
	r.via.s_addr = 0;
	assert_int_equal(kroute_delete(f->k, &r, f->err, sizeof(f->err)), 0);
	assert_string_equal(sh("ip route show 198.19.0.1"), "");
	snprintf(want, sizeof(want), "ip nexthop show id %u 2>/dev/null", gid);
	assert_string_equal(sh(want), "");
	assert_int_equal(kroute_delete(f->k, &r, f->err, sizeof(f->err)), 1);
}

int main(void)
{
	static struct fixture fx;
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_prestate_setup_teardown(test_change_installs_and_replaces, NULL,
						     teardown, &fx),
	    cmocka_unit_test_prestate_setup_teardown(test_table, NULL, teardown, &fx),
	    cmocka_unit_test_prestate_setup_teardown(test_delete_exactly, NULL, teardown, &fx),
	    cmocka_unit_test_prestate_setup_teardown(test_other_protocol_kept, NULL, teardown, &fx),
	    cmocka_unit_test_prestate_setup_teardown(test_refused, NULL, teardown, &fx),
	    cmocka_unit_test_prestate_setup_teardown(test_ipv6_twin, NULL, teardown, &fx),
	    cmocka_unit_test_prestate_setup_teardown(test_ecmp_hash, NULL, teardown, &fx),
	    cmocka_unit_test_prestate_setup_teardown(test_ecmp_resilient, NULL, teardown, &fx),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
