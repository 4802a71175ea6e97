/*
 * The lab's address plan (lib/addrplan.c): each address it computes, its
 * blocks' bounds, and its texts (messages, configurations, the printed
 * topology) saying the same as its numbers.
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

#include "addrplan.h"

static void assert_addr(struct in_addr a, const char *want)
{
	char buf[INET_ADDRSTRLEN];

	assert_non_null(inet_ntop(AF_INET, &a, buf, sizeof(buf)));
	assert_string_equal(buf, want);
}

/* assert_block: text is "NET/LEN" of the host-order net and mask */
static void assert_block(const char *text, uint32_t net, uint32_t mask)
{
	char host[INET_ADDRSTRLEN];
	const char *slash = strchr(text, '/');
	struct in_addr a;
	int len;

	assert_non_null(slash);
	snprintf(host, sizeof(host), "%.*s", (int)(slash - text), text);
	assert_int_equal(inet_pton(AF_INET, host, &a), 1);
	len = atoi(slash + 1);
	assert_int_equal(ntohl(a.s_addr), net);
	assert_int_equal(len == 0 ? 0u : ~(0xFFFFFFFFu >> len), mask);
}

static void assert_addr6(struct in6_addr a, const char *want)
{
	char buf[INET6_ADDRSTRLEN];

	assert_non_null(inet_ntop(AF_INET6, &a, buf, sizeof(buf)));
	assert_string_equal(buf, want);
	assert_true(addrplan6_in_lab(&a));
}

/* the IPv6 plan: each address, in 2001:2::/48, the texts agreeing */
static void test_addresses6(void **state)
{
	struct in6_addr out;

	(void)state;
	assert_addr6(addrplan6_link(0, 0), "2001:2::1");
	assert_addr6(addrplan6_link(0, 1), "2001:2::2");
	assert_addr6(addrplan6_link(255, 1), "2001:2:0:ff::2");
	assert_addr6(addrplan6_rlink(3, 1), "2001:2:0:1003::2");
	assert_addr6(addrplan6_router_id(0), "2001:2:0:2000::1");
	assert_addr6(addrplan6_resolver_cache(2, 5), "2001:2:0:8002::5");
	assert_addr6(addrplan6_site(2), "2001:2:0:ff01::2");
	assert_addr6(addrplan6_service(), ADDRPLAN6_SERVICE_TEXT);
	assert_int_equal(inet_pton(AF_INET6, "2001:3::1", &out), 1);
	assert_false(addrplan6_in_lab(&out));
	assert_int_equal(inet_pton(AF_INET6, "2001:2:1::1", &out), 1);
	assert_false(addrplan6_in_lab(&out));
}

static void test_addresses(void **state)
{
	(void)state;
	assert_addr(addrplan_link(0, 0), "198.18.0.1");
	assert_addr(addrplan_link(0, 1), "198.18.0.2");
	assert_addr(addrplan_link(255, 1), "198.18.3.254");
	assert_addr(addrplan_rlink(0, 0), "198.18.32.1");
	assert_addr(addrplan_rlink(3, 1), "198.18.32.14");
	assert_addr(addrplan_router_id(0), "198.18.40.1");
	assert_addr(addrplan_router_id(253), "198.18.40.254");
	assert_addr(addrplan_resolver_block(0), "198.18.128.0");
	assert_addr(addrplan_resolver_block(127), "198.18.255.0");
	assert_addr(addrplan_resolver_cache(2, 5), "198.18.130.5");
	assert_addr(addrplan_site(1), "198.19.1.1");
	assert_addr(addrplan_site(2), "198.19.1.2");
	assert_addr(addrplan_service(), ADDRPLAN_SERVICE_TEXT);
}

static void test_resolver_of(void **state)
{
	struct in_addr a;

	(void)state;
	for (unsigned k = 0; k < ADDRPLAN_RESOLVERS_MAX; k++) {
		assert_int_equal(addrplan_resolver_of(addrplan_resolver_cache(k, 1)), (int)k);
		assert_int_equal(addrplan_resolver_of(addrplan_resolver_block(k)), (int)k);
	}
	inet_pton(AF_INET, "198.18.127.255", &a);
	assert_int_equal(addrplan_resolver_of(a), -1);
	inet_pton(AF_INET, "198.19.128.1", &a);
	assert_int_equal(addrplan_resolver_of(a), -1);
	assert_int_equal(addrplan_resolver_of(addrplan_service()), -1);
}

static void test_blocks(void **state)
{
	struct in_addr a;

	(void)state;
	assert_true(addrplan_in_lab(addrplan_service()));
	inet_pton(AF_INET, "198.20.0.1", &a);
	assert_false(addrplan_in_lab(a));
	inet_pton(AF_INET, "198.17.255.255", &a);
	assert_false(addrplan_in_lab(a));
	/* 198.18.64.0/18 is free; a block over any of the plan's is not */
	assert_false(addrplan_reserved(0xC6124000u, 0xC6127FFFu));
	assert_false(addrplan_reserved(ADDRPLAN_SERVICE, ADDRPLAN_SERVICE));
	assert_true(addrplan_reserved(0xC6120000u, 0xC612FFFFu)); /* 198.18.0.0/16 */
	assert_true(addrplan_reserved(0xC6120300u, 0xC61203FFu)); /* in the links' */
	assert_false(addrplan_reserved(0xC6120400u, 0xC6121FFFu));
	assert_true(addrplan_reserved(0xC6122FFFu, 0xC6122FFFu)); /* the routers' last */
	assert_false(addrplan_reserved(0xC6123000u, 0xC6123000u));
	assert_true(addrplan_reserved(0xC6128000u, 0xC6128000u));
	assert_true(addrplan_reserved(0xC612FFFFu, 0xC612FFFFu));
}

/* the texts say what the numbers do */
static void test_texts(void **state)
{
	char buf[64];
	struct in_addr a;

	(void)state;
	assert_block(ADDRPLAN_NET_TEXT, ADDRPLAN_NET, ADDRPLAN_NET_MASK);
	assert_block(ADDRPLAN_LINKS_TEXT, ADDRPLAN_LINKS, ADDRPLAN_LINKS_MASK);
	assert_block(ADDRPLAN_ROUTERS_TEXT, ADDRPLAN_ROUTERS, ADDRPLAN_ROUTERS_MASK);
	assert_block(ADDRPLAN_RLINKS_TEXT, ADDRPLAN_ROUTERS, 0xFFFFF800u);
	assert_true(ADDRPLAN_ROUTER_IDS >= ADDRPLAN_ROUTERS + 0x800u);
	assert_block(ADDRPLAN_RESOLVERS_TEXT, ADDRPLAN_RESOLVERS, ADDRPLAN_RESOLVERS_MASK);
	assert_int_equal(ADDRPLAN_RESOLVERS_MAX, (~ADDRPLAN_RESOLVERS_MASK + 1) / 256);
	assert_block(ADDRPLAN_FREE_EXAMPLE_TEXT, 0xC6124000u, 0xFFFFC000u);
	assert_false(addrplan_reserved(0xC6124000u, 0xC6127FFFu));
	assert_int_equal(inet_pton(AF_INET, ADDRPLAN_SERVICE_TEXT, &a), 1);
	assert_int_equal(ntohl(a.s_addr), ADDRPLAN_SERVICE);

	/* the rules in words, at their first index */
	inet_ntop(AF_INET, &(struct in_addr){htonl(ntohl(addrplan_link(0, 0).s_addr) - 1)}, buf,
		  sizeof(buf));
	strcat(buf, "/30 + 4 i");
	assert_string_equal(ADDRPLAN_LINK_RULE_TEXT, buf);
	inet_ntop(AF_INET, &(struct in_addr){htonl(ntohl(addrplan_rlink(0, 0).s_addr) - 1)}, buf,
		  sizeof(buf));
	strcat(buf, "/30 + 4 j");
	assert_string_equal(ADDRPLAN_RLINK_RULE_TEXT, buf);
	inet_ntop(AF_INET, &(struct in_addr){htonl(ntohl(addrplan_router_id(0).s_addr) - 1)}, buf,
		  sizeof(buf));
	assert_string_equal(buf, "198.18.40.0");
	assert_memory_equal(ADDRPLAN_ROUTER_ID_RULE_TEXT, "198.18.40.", 10);
	assert_addr(addrplan_resolver_block(0), "198.18.128.0");
	assert_memory_equal(ADDRPLAN_RESOLVER_RULE_TEXT, "198.18.(128 + k).0/24", 21);
	snprintf(buf, sizeof(buf), "198.18.128.0/24 to 198.18.%u.0/24",
		 (ntohl(addrplan_resolver_block(ADDRPLAN_RESOLVERS_MAX - 1).s_addr) >> 8) & 0xFF);
	assert_string_equal(ADDRPLAN_RESOLVER_RANGE_TEXT, buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_addresses),	cmocka_unit_test(test_addresses6),
	    cmocka_unit_test(test_resolver_of), cmocka_unit_test(test_blocks),
	    cmocka_unit_test(test_texts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
