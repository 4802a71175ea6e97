/*
 * lib/nladdr: an IPv4 address added to and removed from an interface in a
 * network namespace of the test's own (test_netns.h; root, else skipped),
 * read back through libnl; adding one already there is -NLE_EXIST, removing
 * one that is not there -NLE_NOADDR, as nladdr.h says, and an interface
 * that does not exist -NLE_NODEV.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <netlink/errno.h>

#include "nladdr.h"
#include "test_netns.h"

static struct in_addr ip(const char *s)
{
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a;
}

static void test_add_remove(void **state)
{
	struct nl_sock *sk;

	(void)state;
	TEST_NETNS_ENTER();
	sk = test_netns_sock();
	assert_string_equal(test_netns_addrs(sk, 1), "127.0.0.1/8");
	assert_int_equal(nladdr_change(sk, 1, ip("198.18.0.1"), 24, 1), 0);
	assert_int_equal(nladdr_change(sk, 1, ip("198.19.0.1"), 32, 1), 0);
	assert_string_equal(test_netns_addrs(sk, 1), "127.0.0.1/8 198.18.0.1/24 198.19.0.1");
	assert_int_equal(nladdr_change(sk, 1, ip("198.18.0.1"), 24, 1), -NLE_EXIST);
	assert_int_equal(nladdr_change(sk, 1, ip("198.18.0.1"), 24, 0), 0);
	assert_string_equal(test_netns_addrs(sk, 1), "127.0.0.1/8 198.19.0.1");
	assert_int_equal(nladdr_change(sk, 1, ip("198.18.0.1"), 24, 0), -NLE_NOADDR);
	assert_int_equal(nladdr_change(sk, 1, ip("198.19.0.1"), 32, 0), 0);
	assert_string_equal(test_netns_addrs(sk, 1), "127.0.0.1/8");
	nl_socket_free(sk);
}

static void test_no_such_interface(void **state)
{
	struct nl_sock *sk;

	(void)state;
	TEST_NETNS_ENTER();
	sk = test_netns_sock();
	assert_int_equal(nladdr_change(sk, 4242, ip("198.18.0.1"), 24, 1), -NLE_NODEV);
	assert_string_equal(test_netns_addrs(sk, 4242), "");
	nl_socket_free(sk);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_add_remove),
	    cmocka_unit_test(test_no_such_interface),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
