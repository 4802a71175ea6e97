/* routed's table: what each announcement asks of the kernel, against a fake. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <arpa/inet.h>
#include <cmocka.h>

#include "agents/routed/rib.h"

/* the fake kernel: a log of calls, and what each kind of call returns */
struct fake {
	char log[1024];
	int change_rc;
	int remove_rc;
};

static void fake_log(struct fake *f, const char *op, const struct kroute *r)
{
	char p[INET_ADDRSTRLEN], v[INET_ADDRSTRLEN];
	size_t n = strlen(f->log);

	inet_ntop(AF_INET, &r->prefix, p, sizeof(p));
	inet_ntop(AF_INET, &r->via, v, sizeof(v));
	if (r->any_metric)
		snprintf(f->log + n, sizeof(f->log) - n, "%s %s/%d via %s any;", op, p,
			 r->prefixlen, v);
	else
		snprintf(f->log + n, sizeof(f->log) - n, "%s %s/%d via %s metric %u;", op, p,
			 r->prefixlen, v, r->metric);
}

static int fake_change(void *ctx, const struct kroute *r, char *err, size_t errlen)
{
	struct fake *f = ctx;

	fake_log(f, "change", r);
	if (f->change_rc)
		snprintf(err, errlen, "Nexthop has invalid gateway");
	return f->change_rc;
}

static int fake_remove(void *ctx, const struct kroute *r, char *err, size_t errlen)
{
	struct fake *f = ctx;

	fake_log(f, "delete", r);
	if (f->remove_rc == -1)
		snprintf(err, errlen, "Operation not permitted");
	return f->remove_rc;
}

static struct fake fk;
static struct rib rib;
static const struct rib_kernel kernel = {fake_change, fake_remove, &fk};

static int setup(void **state)
{
	(void)state;
	memset(&fk, 0, sizeof(fk));
	rib_init(&rib);
	return 0;
}

static struct announce_msg msg(int withdraw, const char *site, unsigned metric)
{
	struct announce_msg m = {.withdraw = withdraw, .prefixlen = 32, .metric = metric};

	strcpy(m.site, site);
	inet_pton(AF_INET, "198.19.200.1", &m.prefix);
	return m;
}

static struct in_addr addr(const char *s)
{
	struct in_addr a;

	inet_pton(AF_INET, s, &a);
	return a;
}

/* apply: one message from src; returns the outcome, and clears the log first */
static enum rib_outcome apply(struct announce_msg m, const char *src, struct rib_result *res)
{
	fk.log[0] = '\0';
	rib_apply(&rib, &kernel, &m, addr(src), res);
	return res->outcome;
}

static void test_announce_installs(void **state)
{
	struct rib_result res;

	(void)state;
	assert_int_equal(apply(msg(0, "a", 10), "198.18.200.2", &res), RIB_APPLIED);
	assert_string_equal(fk.log, "change 198.19.200.1/32 via 198.18.200.2 metric 10;");
	assert_int_equal(res.metric, 10);
	assert_int_equal(res.via.s_addr, addr("198.18.200.2").s_addr);
	assert_non_null(rib_find(&rib, "a", addr("198.19.200.1"), 32));
	assert_null(rib_find(&rib, "b", addr("198.19.200.1"), 32));
}

static void test_refresh_is_unchanged(void **state)
{
	struct rib_result res;

	(void)state;
	apply(msg(0, "a", 10), "198.18.200.2", &res);
	/* told to the kernel again (replace is idempotent), but no event */
	assert_int_equal(apply(msg(0, "a", 10), "198.18.200.2", &res), RIB_UNCHANGED);
	assert_string_equal(fk.log, "change 198.19.200.1/32 via 198.18.200.2 metric 10;");
	assert_int_equal(rib.n, 1);
}

static void test_metric_change_removes_old_route(void **state)
{
	struct rib_result res;

	(void)state;
	apply(msg(0, "a", 10), "198.18.200.2", &res);
	assert_int_equal(apply(msg(0, "a", 30), "198.18.200.2", &res), RIB_APPLIED);
	assert_string_equal(fk.log, "change 198.19.200.1/32 via 198.18.200.2 metric 30;"
				    "delete 198.19.200.1/32 via 198.18.200.2 metric 10;");
	assert_int_equal(rib_find(&rib, "a", addr("198.19.200.1"), 32)->metric, 30);
}

static void test_next_hop_change_replaces(void **state)
{
	struct rib_result res;

	(void)state;
	apply(msg(0, "a", 10), "198.18.200.2", &res);
	assert_int_equal(apply(msg(0, "a", 10), "198.18.201.2", &res), RIB_APPLIED);
	/* same prefix and metric: the replace moved it, nothing to delete */
	assert_string_equal(fk.log, "change 198.19.200.1/32 via 198.18.201.2 metric 10;");
}

static void test_withdraw_deletes_what_was_installed(void **state)
{
	struct rib_result res;

	(void)state;
	apply(msg(0, "a", 10), "198.18.200.2", &res);
	apply(msg(0, "b", 20), "198.18.200.6", &res);
	assert_int_equal(apply(msg(1, "a", 0), "198.18.200.2", &res), RIB_WITHDRAWN);
	assert_string_equal(fk.log, "delete 198.19.200.1/32 via 198.18.200.2 metric 10;");
	assert_int_equal(res.via.s_addr, addr("198.18.200.2").s_addr);
	assert_null(rib_find(&rib, "a", addr("198.19.200.1"), 32));
	assert_non_null(rib_find(&rib, "b", addr("198.19.200.1"), 32)); /* b untouched */
}

static void test_withdraw_from_other_address(void **state)
{
	struct rib_result res;

	(void)state;
	apply(msg(0, "a", 10), "198.18.200.2", &res);
	/* the route to delete is the one installed, whatever the sender now */
	assert_int_equal(apply(msg(1, "a", 0), "198.18.201.2", &res), RIB_WITHDRAWN);
	assert_string_equal(fk.log, "delete 198.19.200.1/32 via 198.18.200.2 metric 10;");
}

static void test_withdraw_refresh_of_nothing(void **state)
{
	struct rib_result res;

	(void)state;
	fk.remove_rc = 1; /* the kernel has no such route */
	assert_int_equal(apply(msg(1, "a", 0), "198.18.200.2", &res), RIB_UNCHANGED);
	/* unknown site: any route of ours via the sender, left by an earlier routed */
	assert_string_equal(fk.log, "delete 198.19.200.1/32 via 198.18.200.2 any;");
}

static void test_withdraw_stale_route_of_earlier_routed(void **state)
{
	struct rib_result res;

	(void)state;
	fk.remove_rc = 0; /* the kernel had one */
	assert_int_equal(apply(msg(1, "a", 0), "198.18.200.2", &res), RIB_WITHDRAWN);
}

static void test_kernel_refuses_announce(void **state)
{
	struct rib_result res;

	(void)state;
	fk.change_rc = -1;
	assert_int_equal(apply(msg(0, "a", 10), "203.0.113.9", &res), RIB_ERROR);
	assert_string_equal(res.error, "Nexthop has invalid gateway");
	assert_int_equal(rib.n, 0); /* nothing recorded as installed */
}

static void test_kernel_refuses_withdraw_keeps_entry(void **state)
{
	struct rib_result res;

	(void)state;
	apply(msg(0, "a", 10), "198.18.200.2", &res);
	fk.remove_rc = -1;
	assert_int_equal(apply(msg(1, "a", 0), "198.18.200.2", &res), RIB_ERROR);
	assert_string_equal(res.error, "Operation not permitted");
	/* kept, so the next refresh of the withdrawal tries again */
	assert_non_null(rib_find(&rib, "a", addr("198.19.200.1"), 32));
	fk.remove_rc = 0;
	assert_int_equal(apply(msg(1, "a", 0), "198.18.200.2", &res), RIB_WITHDRAWN);
}

static void test_loopback_next_hop_refused(void **state)
{
	struct rib_result res;

	(void)state;
	assert_int_equal(apply(msg(0, "x", 5), "127.0.0.1", &res), RIB_ERROR);
	assert_string_equal(res.error, "next hop 127.0.0.1 is not usable");
	assert_int_equal(apply(msg(0, "x", 5), "0.0.0.0", &res), RIB_ERROR);
	assert_string_equal(fk.log, ""); /* the kernel was not asked */
	assert_int_equal(rib.n, 0);
}

static void test_table_full(void **state)
{
	struct rib_result res;
	char site[16];

	(void)state;
	for (int i = 0; i < RIB_MAX; i++) {
		snprintf(site, sizeof(site), "s%d", i);
		assert_int_equal(apply(msg(0, site, 10), "198.18.200.2", &res), RIB_APPLIED);
	}
	assert_int_equal(apply(msg(0, "one-more", 10), "198.18.200.2", &res), RIB_ERROR);
	assert_string_equal(fk.log, ""); /* the kernel was not asked */
	/* a known site still refreshes */
	assert_int_equal(apply(msg(0, "s5", 10), "198.18.200.2", &res), RIB_UNCHANGED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_announce_installs, setup),
	    cmocka_unit_test_setup(test_refresh_is_unchanged, setup),
	    cmocka_unit_test_setup(test_metric_change_removes_old_route, setup),
	    cmocka_unit_test_setup(test_next_hop_change_replaces, setup),
	    cmocka_unit_test_setup(test_withdraw_deletes_what_was_installed, setup),
	    cmocka_unit_test_setup(test_withdraw_from_other_address, setup),
	    cmocka_unit_test_setup(test_withdraw_refresh_of_nothing, setup),
	    cmocka_unit_test_setup(test_withdraw_stale_route_of_earlier_routed, setup),
	    cmocka_unit_test_setup(test_kernel_refuses_announce, setup),
	    cmocka_unit_test_setup(test_kernel_refuses_withdraw_keeps_entry, setup),
	    cmocka_unit_test_setup(test_loopback_next_hop_refused, setup),
	    cmocka_unit_test_setup(test_table_full, setup),
	};

	return cmocka_run_group_tests_name("routed", tests, NULL, NULL);
}
