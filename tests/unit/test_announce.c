/* lib/announce.c: the announce/withdraw lines routed and prober exchange. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <arpa/inet.h>
#include <cmocka.h>

#include "announce.h"

static struct announce_msg msg(int withdraw, const char *site, const char *prefix, int len,
			       unsigned metric)
{
	struct announce_msg m = {.withdraw = withdraw, .metric = metric};
	int plen = -1;

	strcpy(m.site, site);
	assert_int_equal(announce_prefix_parse(prefix, &m.prefix, &plen), 0);
	m.prefixlen = len;
	return m;
}

static void test_format(void **state)
{
	struct announce_msg a = msg(0, "a", "198.19.0.1", 32, 10);
	struct announce_msg w = msg(1, "site-b", "198.19.0.0", 24, 99);
	char buf[ANNOUNCE_MAX];

	(void)state;
	assert_int_equal(announce_format(&a, buf, sizeof(buf)), 28);
	assert_string_equal(buf, "ANNOUNCE a 198.19.0.1/32 10\n");
	/* a withdrawal carries no metric */
	assert_int_equal(announce_format(&w, buf, sizeof(buf)), 30);
	assert_string_equal(buf, "WITHDRAW site-b 198.19.0.0/24\n");
}

static void test_format_too_small(void **state)
{
	struct announce_msg a = msg(0, "a", "198.19.0.1", 32, 10);
	char buf[28]; /* the line is 28 characters */

	(void)state;
	assert_int_equal(announce_format(&a, buf, sizeof(buf)), -1); /* no room for the NUL */
	assert_int_equal(announce_format(&a, buf, 5), -1);
}

static void test_round_trip(void **state)
{
	struct announce_msg in[] = {
	    msg(0, "a", "198.19.0.1", 32, 0),
	    msg(0, "site_1.x-y", "198.18.0.0", 15, 4294967295u),
	    msg(1, "b", "198.19.200.1", 32, 0),
	    msg(0, "a", "2001:2:0:ff00::1", 128, 10),
	    msg(1, "b", "2001:2:0:ff00::", 56, 0),
	};
	char buf[ANNOUNCE_MAX];
	struct announce_msg out;

	(void)state;
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		int n = announce_format(&in[i], buf, sizeof(buf));
		assert_true(n > 0);
		assert_int_equal(announce_parse(buf, (size_t)n, &out), 0);
		assert_int_equal(out.withdraw, in[i].withdraw);
		assert_string_equal(out.site, in[i].site);
		assert_memory_equal(&out.prefix, &in[i].prefix, sizeof(out.prefix));
		assert_int_equal(out.prefixlen, in[i].prefixlen);
		assert_int_equal(out.metric, in[i].metric);
	}
}

static void test_parse_without_newline_and_crlf(void **state)
{
	struct announce_msg m;
	const char *a = "ANNOUNCE a 198.19.0.1 7";
	const char *b = "WITHDRAW a 198.19.0.1/32\r\n";

	(void)state;
	assert_int_equal(announce_parse(a, strlen(a), &m), 0);
	assert_int_equal(m.prefixlen, 32); /* a bare address is a /32 */
	assert_int_equal(m.metric, 7);
	assert_int_equal(announce_parse(b, strlen(b), &m), 0);
	assert_int_equal(m.withdraw, 1);
}

static void test_parse_rejects(void **state)
{
	static const char *const bad[] = {
	    "",
	    "\n",
	    "ANNOUNCE",
	    "ANNOUNCE a",
	    "ANNOUNCE a 198.19.0.1/32",		   /* no metric */
	    "ANNOUNCE a 198.19.0.1/32 \n",	   /* no metric either */
	    "ANNOUNCE a 198.19.0.1/32 ten",	   /* not a number */
	    "ANNOUNCE a 198.19.0.1/32 10x",	   /* trailing junk */
	    "ANNOUNCE a 198.19.0.1/32 10 11",	   /* extra field */
	    "ANNOUNCE a 198.19.0.1/32 -1",	   /* negative */
	    "ANNOUNCE a 198.19.0.1/32 -0",	   /* a sign, even on 0 */
	    "ANNOUNCE a 198.19.0.1/32 +10",	   /* digits only */
	    "ANNOUNCE a 198.19.0.1/32 4294967296", /* over 32 bits */
	    "ANNOUNCE a 198.19.0.1/33 10",	   /* prefix length */
	    "ANNOUNCE a 198.19.0.1/ 10",
	    "ANNOUNCE a 198.19.0/24 10",	   /* not an address */
	    "ANNOUNCE a 2001:db8::1/129 10",	   /* IPv6 prefix length */
	    "ANNOUNCE a 2001:db8::1/64 10",	   /* bits past the length */
	    "ANNOUNCE a 198.19.0.1/24 10",	   /* the same in IPv4 */
	    "ANNOUNCE a ::ffff:198.19.0.1/128 10", /* IPv4-mapped: not IPv6 */
	    "ANNOUNCE a 2001:db8:::1/128 10",
	    "ANNOUNCE a 2001:db8::1/+64 10",
	    "WITHDRAW a 198.19.0.1/32 10", /* a withdrawal has no metric */
	    "announce a 198.19.0.1/32 10", /* verbs are upper case */
	    "REPLACE a 198.19.0.1/32 10",
	    /* a site name longer than the field must not be cut into the prefix */
	    "ANNOUNCE aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa198.19.0.1/32 10",
	};
	struct announce_msg m;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (announce_parse(bad[i], strlen(bad[i]), &m) != -1)
			fail_msg("accepted malformed line '%s'", bad[i]);
	}
}

static void test_parse_rejects_too_long(void **state)
{
	char buf[ANNOUNCE_MAX + 8];
	struct announce_msg m;

	(void)state;
	memset(buf, ' ', sizeof(buf));
	memcpy(buf, "WITHDRAW a 198.19.0.1/32", 24);
	assert_int_equal(announce_parse(buf, sizeof(buf), &m), -1);
	assert_int_equal(announce_parse(buf, ANNOUNCE_MAX, &m), -1);
}

/* an IPv6 prefix: ANNOUNCE a 2001:2:0:ff00::1/128 10, written and read */
static void test_ipv6(void **state)
{
	struct announce_msg a = msg(0, "a", "2001:2:0:ff00::1", 128, 10), m;
	const char *w = "WITHDRAW b 2001:2:0:ff00::1\n"; /* a bare address: a /128 */
	char buf[ANNOUNCE_MAX], s[ANNOUNCE_PREFIX_STRLEN];
	struct in6_addr want;

	(void)state;
	assert_int_equal(announce_format(&a, buf, sizeof(buf)), 35);
	assert_string_equal(buf, "ANNOUNCE a 2001:2:0:ff00::1/128 10\n");
	assert_int_equal(announce_parse(w, strlen(w), &m), 0);
	assert_int_equal(m.withdraw, 1);
	assert_int_equal(m.prefixlen, 128);
	inet_pton(AF_INET6, "2001:2:0:ff00::1", &want);
	assert_memory_equal(&m.prefix, &want, sizeof(want));
	assert_false(addr_is4(&m.prefix));
	assert_string_equal(announce_prefix_str(&m.prefix, m.prefixlen, s, sizeof(s)),
			    "2001:2:0:ff00::1/128");
	/* the longest IPv6 address and a long site name still fit */
	a = msg(0, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
		128, 4294967295u);
	assert_true(announce_format(&a, buf, sizeof(buf)) > 0);
	assert_int_equal(announce_parse(buf, strlen(buf), &m), 0);
	assert_memory_equal(&m.prefix, &a.prefix, sizeof(m.prefix));
	/* an IPv4 prefix is kept in its mapped form, written as IPv4 */
	assert_int_equal(announce_parse("ANNOUNCE a 198.19.0.1/32 1", 26, &m), 0);
	assert_true(addr_is4(&m.prefix));
	assert_int_equal(addr_unmap4(&m.prefix).s_addr, htonl(0xc6130001));
	assert_string_equal(announce_prefix_str(&m.prefix, m.prefixlen, s, sizeof(s)),
			    "198.19.0.1/32");
}

static void test_parse_prefix(void **state)
{
	struct in_addr a;
	int len = -1;

	(void)state;
	assert_int_equal(parse_prefix("198.19.0.1", &a, &len), 0);
	assert_int_equal(len, 32);
	assert_int_equal(a.s_addr, htonl(0xc6130001));
	assert_int_equal(parse_prefix("198.18.0.0/15", &a, &len), 0);
	assert_int_equal(len, 15);
	assert_int_equal(parse_prefix("0.0.0.0/0", &a, &len), 0);
	assert_int_equal(len, 0);
	assert_int_equal(parse_prefix("", &a, &len), -1);
	assert_int_equal(parse_prefix("/32", &a, &len), -1);
	assert_int_equal(parse_prefix("198.19.0.1/", &a, &len), -1);
	assert_int_equal(parse_prefix("198.19.0.1/-1", &a, &len), -1);
	assert_int_equal(parse_prefix("198.19.0.1/32x", &a, &len), -1);
	/* digits only: strtol took these for 24 and 0 */
	assert_int_equal(parse_prefix("198.19.0.1/+24", &a, &len), -1);
	assert_int_equal(parse_prefix("198.19.0.1/ 24", &a, &len), -1);
	assert_int_equal(parse_prefix("198.19.0.1/-0", &a, &len), -1);
	assert_int_equal(parse_prefix("198.19.0.1/99999999999999999999", &a, &len), -1);
	assert_int_equal(parse_prefix("198.19.0.256/32", &a, &len), -1);
	assert_int_equal(parse_prefix("198.19.0.1.7", &a, &len), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_format),
	    cmocka_unit_test(test_format_too_small),
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_parse_without_newline_and_crlf),
	    cmocka_unit_test(test_parse_rejects),
	    cmocka_unit_test(test_parse_rejects_too_long),
	    cmocka_unit_test(test_ipv6),
	    cmocka_unit_test(test_parse_prefix),
	};

	return cmocka_run_group_tests_name("announce", tests, NULL, NULL);
}
