/*
 * The prober's announcement with routing = bgp (agents/prober/loaddr.c):
 * the anycast address put on lo and taken off it, in a network namespace of
 * the test's own (test_netns.h; root, else skipped), read back through
 * libnl; 1 when lo changed, 0 when it already was so, and a failure logged
 * with the address and libnl's reason; in a dual-stack lab the service's
 * IPv6 address with it, each change said by family.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "agents/prober/loaddr.h"
#include "log.h"
#include "test_child.h"
#include "test_netns.h"

static struct in_addr ip(const char *s)
{
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a;
}

static void test_on_and_off(void **state)
{
	struct prober_lo l;
	struct nl_sock *sk;

	(void)state;
	TEST_NETNS_ENTER();
	sk = test_netns_sock();
	assert_int_equal(prober_lo_open(&l, ip("198.19.0.1"), 32, NULL), 0);
	assert_int_equal(prober_lo_set(&l, 1), 1);
	assert_string_equal(test_netns_addrs(sk, 1), "127.0.0.1/8 198.19.0.1");
	assert_int_equal(prober_lo_set(&l, 1), 0);
	assert_string_equal(test_netns_addrs(sk, 1), "127.0.0.1/8 198.19.0.1");
	assert_int_equal(prober_lo_set(&l, 0), 1);
	assert_string_equal(test_netns_addrs(sk, 1), "127.0.0.1/8");
	assert_int_equal(prober_lo_set(&l, 0), 0);
	/* and back, as after a recovery */
	assert_int_equal(prober_lo_set(&l, 1), 1);
	assert_string_equal(test_netns_addrs(sk, 1), "127.0.0.1/8 198.19.0.1");
	prober_lo_close(&l);
	assert_null(l.sk);
	prober_lo_close(&l); /* twice is harmless */
	nl_socket_free(sk);
}

/* -6: both addresses together; one already there is not a change */
static void test_dual(void **state)
{
	struct prober_lo l;
	struct in6_addr a6;
	struct nl_sock *sk;

	(void)state;
	TEST_NETNS_ENTER();
	sk = test_netns_sock();
	assert_int_equal(inet_pton(AF_INET6, "2001:2:0:ff00::1", &a6), 1);
	assert_int_equal(prober_lo_open(&l, ip("198.19.0.1"), 32, &a6), 0);
	assert_int_equal(prober_lo_set(&l, 1), PROBER_LO_CHANGED4 | PROBER_LO_CHANGED6);
	assert_string_equal(test_netns_addrs(sk, 1), "127.0.0.1/8 198.19.0.1");
	assert_non_null(strstr(test_netns_addrs_of(sk, 1, AF_INET6), "2001:2:0:ff00::1"));
	assert_int_equal(prober_lo_set(&l, 1), 0);
	/* someone took the IPv6 one off: put back alone */
	assert_int_equal(system("ip -6 addr del 2001:2:0:ff00::1/128 dev lo"), 0);
	assert_int_equal(prober_lo_set(&l, 1), PROBER_LO_CHANGED6);
	assert_int_equal(prober_lo_set(&l, 0), PROBER_LO_CHANGED4 | PROBER_LO_CHANGED6);
	assert_string_equal(test_netns_addrs(sk, 1), "127.0.0.1/8");
	assert_null(strstr(test_netns_addrs_of(sk, 1, AF_INET6), "2001:2:0:ff00::1"));
	assert_int_equal(prober_lo_set(&l, 0), 0);
	prober_lo_close(&l);
	nl_socket_free(sk);
}

/* -6 without -P (ip = 6): the IPv6 address alone, no IPv4 one */
static void test_ipv6_alone(void **state)
{
	struct prober_lo l;
	struct in6_addr a6;
	struct nl_sock *sk;

	(void)state;
	TEST_NETNS_ENTER();
	sk = test_netns_sock();
	assert_int_equal(inet_pton(AF_INET6, "2001:2:0:ff00::1", &a6), 1);
	assert_int_equal(prober_lo_open(&l, (struct in_addr){0}, 0, &a6), 0);
	assert_int_equal(prober_lo_set(&l, 1), PROBER_LO_CHANGED6);
	assert_string_equal(test_netns_addrs(sk, 1), "127.0.0.1/8");
	assert_non_null(strstr(test_netns_addrs_of(sk, 1, AF_INET6), "2001:2:0:ff00::1"));
	assert_int_equal(prober_lo_set(&l, 0), PROBER_LO_CHANGED6);
	assert_null(strstr(test_netns_addrs_of(sk, 1, AF_INET6), "2001:2:0:ff00::1"));
	prober_lo_close(&l);
	nl_socket_free(sk);
}

static void bad_prefix(void *arg)
{
	struct prober_lo l;

	(void)arg;
	log_init("prober", 0);
	if (prober_lo_open(&l, ip("198.19.0.1"), 33, NULL) == -1)
		return;
	fprintf(stderr, "set: %d\n", prober_lo_set(&l, 1));
	prober_lo_close(&l);
}

static void test_failure_logged(void **state)
{
	int status;
	char *err, *text;

	(void)state;
	TEST_NETNS_ENTER();
	err = test_child_stderr(bad_prefix, NULL, &status);
	test_assert_exit(status, 0);
	text = test_strip_stamps(err);
	assert_string_equal(text, "prober: adding 198.19.0.1/33 on lo: Invalid input data or "
				  "parameter\nset: -1\n");
	free(text);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_on_and_off),
	    cmocka_unit_test(test_dual),
	    cmocka_unit_test(test_ipv6_alone),
	    cmocka_unit_test(test_failure_logged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
