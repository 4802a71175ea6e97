/*
 * Unit tests of kernel-facing code (routes, addresses) run against the real
 * kernel in a network namespace of their own: test_netns_enter moves the
 * test process into a new, empty one, lo up, so nothing it does can reach
 * the namespace the tests were started in; the next test's call leaves it
 * for a new one, and the kernel frees it. That takes root (CAP_SYS_ADMIN):
 * without it the test skips, saying so (tests/run-unit.sh counts the skips,
 * and as root a skip fails the run). Addresses from 198.18.0.0/15.
 */
#ifndef STEERLAB_TEST_NETNS_H
#define STEERLAB_TEST_NETNS_H

#include <errno.h>
#include <net/if.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/link/veth.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* test_netns_link_up: ifindex up, through sk */
static inline void test_netns_link_up(struct nl_sock *sk, int ifindex)
{
	struct rtnl_link *link = NULL, *change = rtnl_link_alloc();
	int err;

	assert_non_null(change);
	assert_int_equal(rtnl_link_get_kernel(sk, ifindex, NULL, &link), 0);
	rtnl_link_set_flags(change, IFF_UP);
	if ((err = rtnl_link_change(sk, link, change, 0)) < 0)
		fail_msg("link %d up: %s", ifindex, nl_geterror(err));
	rtnl_link_put(change);
	rtnl_link_put(link);
}

/* test_netns_sock: a connected NETLINK_ROUTE socket (caller frees) */
static inline struct nl_sock *test_netns_sock(void)
{
	struct nl_sock *sk = nl_socket_alloc();

	assert_non_null(sk);
	assert_int_equal(nl_connect(sk, NETLINK_ROUTE), 0);
	return sk;
}

/* TEST_NETNS_ENTER: a new network namespace for this process with lo up,
 * or the test skipped when not root. */
#define TEST_NETNS_ENTER()                                                                         \
	do {                                                                                       \
		if (geteuid() != 0) {                                                              \
			print_message("skipped: needs root (a network namespace of its own)\n");   \
			skip();                                                                    \
		}                                                                                  \
		test_netns_enter();                                                                \
	} while (0)

static inline void test_netns_enter(void)
{
	struct nl_sock *sk;

	if (unshare(CLONE_NEWNET) == -1)
		fail_msg("unshare(CLONE_NEWNET): %s", strerror(errno));
	sk = test_netns_sock();
	test_netns_link_up(sk, 1);
	nl_socket_free(sk);
}

/* test_netns_veth: a veth pair a (ifindex returned) and b, both up */
static inline int test_netns_veth(struct nl_sock *sk, const char *a, const char *b)
{
	int err;

	if ((err = rtnl_link_veth_add(sk, a, b, getpid())) < 0)
		fail_msg("veth %s %s: %s", a, b, nl_geterror(err));
	test_netns_link_up(sk, (int)if_nametoindex(b));
	test_netns_link_up(sk, (int)if_nametoindex(a));
	return (int)if_nametoindex(a);
}

/* test_netns_addrs_of: the addresses of family on ifindex, "ADDR/LEN ..."
 * in the kernel's order */
static inline const char *test_netns_addrs_of(struct nl_sock *sk, int ifindex, int family)
{
	static char out[512];
	struct nl_cache *cache;
	size_t at = 0;

	out[0] = '\0';
	assert_int_equal(rtnl_addr_alloc_cache(sk, &cache), 0);
	for (struct nl_object *o = nl_cache_get_first(cache); o; o = nl_cache_get_next(o)) {
		struct rtnl_addr *a = (struct rtnl_addr *)o;
		char buf[64];

		if (rtnl_addr_get_ifindex(a) != ifindex || rtnl_addr_get_family(a) != family)
			continue;
		nl_addr2str(rtnl_addr_get_local(a), buf, sizeof(buf));
		at += (size_t)snprintf(out + at, sizeof(out) - at, "%s%s", at ? " " : "", buf);
	}
	nl_cache_free(cache);
	return out;
}

/* test_netns_addrs: the IPv4 addresses on ifindex */
static inline const char *test_netns_addrs(struct nl_sock *sk, int ifindex)
{
	return test_netns_addrs_of(sk, ifindex, AF_INET);
}

#endif
