/*
 * lib/impair_kernel.c against the real kernel, in a network namespace of
 * the test's own (test_netns.h; root, else skipped): a rate as a root tbf
 * on a veth, read back through libnl (rate, and a bucket of two frames at
 * least), replaced in place, removed; netem refused on this kernel (no
 * sch_netem) with the text the lab says, and detected as the delay line;
 * an absent interface and a rate out of tbf's range said exactly.
 */
#include <linux/pkt_sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <netlink/route/qdisc.h>
#include <netlink/route/qdisc/tbf.h>
#include <netlink/route/tc.h>

#include "impair.h"
#include "test_netns.h"

/* root_qdisc: ifindex's root qdisc's kind ("" if none besides the
 * default), and a tbf's rate and bucket in bytes */
static void root_qdisc(struct nl_sock *sk, int ifindex, char *kind, size_t len, int *rate,
		       int *bucket)
{
	struct nl_cache *cache;
	struct rtnl_qdisc *q;

	kind[0] = '\0';
	*rate = *bucket = -1;
	assert_int_equal(rtnl_qdisc_alloc_cache(sk, &cache), 0);
	q = rtnl_qdisc_get_by_parent(cache, ifindex, TC_H_ROOT);
	if (q) {
		snprintf(kind, len, "%s", rtnl_tc_get_kind(TC_CAST(q)));
		if (strcmp(kind, "tbf") == 0) {
			*rate = rtnl_qdisc_tbf_get_rate(q);
			*bucket = rtnl_qdisc_tbf_get_rate_bucket(q);
			assert_int_equal(rtnl_tc_get_handle(TC_CAST(q)), TC_HANDLE(1, 0));
		}
		rtnl_qdisc_put(q);
	}
	nl_cache_free(cache);
}

static void test_impair_tbf_apply(void **state)
{
	struct nl_sock *sk;
	char err[256], kind[32];
	int ifindex, rate, bucket;

	(void)state;
	TEST_NETNS_ENTER();
	sk = test_netns_sock();
	ifindex = test_netns_veth(sk, "t0", "t1");

	/* 10 Mbit/s: 1,250,000 bytes/s, a bucket of 4 ms (5000 bytes) */
	assert_int_equal(impair_tbf_apply("t0", 10000000, err, sizeof(err)), 0);
	root_qdisc(sk, ifindex, kind, sizeof(kind), &rate, &bucket);
	assert_string_equal(kind, "tbf");
	assert_int_equal(rate, 1250000);
	assert_int_equal(bucket, 5000);

	/* replaced in place; a slow rate gets two full frames of bucket */
	assert_int_equal(impair_tbf_apply("t0", 80000, err, sizeof(err)), 0);
	root_qdisc(sk, ifindex, kind, sizeof(kind), &rate, &bucket);
	assert_string_equal(kind, "tbf");
	assert_int_equal(rate, 10000);
	assert_int_equal(bucket, 2 * 1514);

	/* the other end is untouched */
	root_qdisc(sk, (int)if_nametoindex("t1"), kind, sizeof(kind), &rate, &bucket);
	assert_string_not_equal(kind, "tbf");

	assert_int_equal(impair_root_remove("t0", err, sizeof(err)), 0);
	root_qdisc(sk, ifindex, kind, sizeof(kind), &rate, &bucket);
	assert_string_not_equal(kind, "tbf");
	/* nothing left to remove: the kernel's answer, said */
	assert_int_equal(impair_root_remove("t0", err, sizeof(err)), -1);
	assert_string_equal(err, "t0: removing the root qdisc: Object not found");
	nl_socket_free(sk);
}

/* kernel_netem: whether this kernel takes a netem qdisc, asked of
 * iproute2's tc in a namespace of its own, not of the code under test */
static int kernel_netem(void)
{
	return system("unshare -n sh -c 'tc qdisc add dev lo root netem delay 1ms' "
		      ">/dev/null 2>&1") == 0;
}

static void test_impair_kernel_refusals(void **state)
{
	struct impair im = {.delay_ns = 20000000, .rate_bps = 1000000};
	struct nl_sock *sk;
	char err[256], kind[32];
	int ifindex, rate, bucket;

	(void)state;
	TEST_NETNS_ENTER();
	sk = test_netns_sock();
	ifindex = test_netns_veth(sk, "t0", "t1");

	assert_int_equal(impair_tbf_apply("nosuch0", 1000000, err, sizeof(err)), -1);
	assert_string_equal(err, "nosuch0: no such interface");
	assert_int_equal(impair_netem_apply("nosuch0", &im, err, sizeof(err)), -1);
	assert_string_equal(err, "nosuch0: no such interface");
	assert_int_equal(impair_root_remove("nosuch0", err, sizeof(err)), -1);
	assert_string_equal(err, "nosuch0: no such interface");
	assert_int_equal(impair_tbf_apply("t0", 4, err, sizeof(err)), -1);
	assert_string_equal(err, "rate: 4bit is out of tbf's range (8bit to 17179869176bit)");

	if (kernel_netem()) {
		/* a kernel with sch_netem takes it, at the root */
		assert_int_equal(impair_netem_apply("t0", &im, err, sizeof(err)), 0);
		root_qdisc(sk, ifindex, kind, sizeof(kind), &rate, &bucket);
		assert_string_equal(kind, "netem");
		nl_socket_free(sk);
		return;
	}
	/* a kernel without sch_netem: refused, the delay line named */
	assert_int_equal(impair_netem_apply("t0", &im, err, sizeof(err)), -1);
	assert_string_equal(err, "t0: the kernel has no sch_netem (netem qdisc: Object not found); "
				 "impairments need the delay line (linkd) on this kernel");
	/* and nothing was put in its place (the tbf under it not tried) */
	root_qdisc(sk, ifindex, kind, sizeof(kind), &rate, &bucket);
	assert_string_not_equal(kind, "tbf");
	assert_string_not_equal(kind, "netem");
	nl_socket_free(sk);
}

static void test_impair_detect(void **state)
{
	enum impair_mech mech = IMPAIR_MECH_NETEM;
	char err[256];

	(void)state;
	/* impair_detect forks a child that makes its own namespace: no
	 * TEST_NETNS_ENTER, but root all the same */
	if (geteuid() != 0) {
		print_message("skipped: needs root (the probe makes a network namespace)\n");
		skip();
	}
	assert_int_equal(impair_detect(&mech, err, sizeof(err)), 0);
	if (kernel_netem()) {
		assert_int_equal(mech, IMPAIR_MECH_NETEM);
		return;
	}
	assert_int_equal(mech, IMPAIR_MECH_DELAYLINE);
	assert_string_equal(err, "lo: the kernel has no sch_netem (netem qdisc: Object not found); "
				 "impairments need the delay line (linkd) on this kernel");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_impair_tbf_apply),
	    cmocka_unit_test(test_impair_kernel_refusals),
	    cmocka_unit_test(test_impair_detect),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
