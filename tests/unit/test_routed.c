/* routed's table: what each announcement asks of the kernel, against a fake;
 * who may announce what (acl.c), and what a refused datagram changes
 * (control.c): nothing but counters and a control_rejected event. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <cmocka.h>

#include "addr.h"
#include "agents/routed/acl.h"
#include "agents/routed/control.h"
#include "agents/routed/rib.h"
#include "timeutil.h"

/* the fake kernel: a log of calls, and what each kind of call returns */
struct fake {
	char log[1024];
	int change_rc;
	int remove_rc;
};

static void fake_log(struct fake *f, const char *op, const struct kroute *r)
{
	char p[INET6_ADDRSTRLEN], v[KROUTE_VIAS_MAX * INET6_ADDRSTRLEN];
	size_t n = strlen(f->log);
	int v6 = r->family == AF_INET6, af = v6 ? AF_INET6 : AF_INET;

	inet_ntop(af, v6 ? (const void *)&r->prefix6 : (const void *)&r->prefix, p, sizeof(p));
	inet_ntop(af, v6 ? (const void *)&r->via6 : (const void *)&r->via, v, sizeof(v));
	/* ECMP: every next hop, comma-separated */
	for (int i = 0; i < r->nvia; i++) {
		size_t m = i ? strlen(v) : 0;

		if (i)
			v[m++] = ',';
		inet_ntop(af, v6 ? (const void *)&r->vias6[i] : (const void *)&r->vias[i], v + m,
			  sizeof(v) - m);
	}
	if (r->any_metric)
		snprintf(f->log + n, sizeof(f->log) - n, "%s%s %s/%d via %s any;", op,
			 v6 ? "6" : "", p, r->prefixlen, v);
	else
		snprintf(f->log + n, sizeof(f->log) - n, "%s%s %s/%d via %s metric %u;", op,
			 v6 ? "6" : "", p, r->prefixlen, v, r->metric);
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
static int64_t fake_now = 1000 * NSEC_PER_SEC; /* the fake clock, CLOCK_MONOTONIC */
static const struct rib_kernel kernel = {fake_change, fake_remove, &fk};

static int setup(void **state)
{
	(void)state;
	memset(&fk, 0, sizeof(fk));
	rib_init(&rib);
	fake_now = 1000 * NSEC_PER_SEC;
	return 0;
}

/* addr: an address of either family in the table's form (IPv4 mapped),
 * from a ring of 8 */
static const struct in6_addr *addr(const char *s)
{
	static struct in6_addr ring[8];
	static int next;
	struct in6_addr *a = &ring[next++ % 8];

	assert_int_equal(addr_ip_parse(s, a), 0);
	return a;
}

static struct announce_msg msg(int withdraw, const char *site, unsigned metric)
{
	struct announce_msg m = {.withdraw = withdraw, .prefixlen = 32, .metric = metric};

	strcpy(m.site, site);
	m.prefix = *addr("198.19.200.1");
	return m;
}

/* apply: one message from src; returns the outcome, and clears the log first */
static enum rib_outcome apply(struct announce_msg m, const char *src, struct rib_result *res)
{
	fk.log[0] = '\0';
	rib_apply(&rib, &kernel, &m, addr(src), fake_now, res);
	return res->outcome;
}

static void test_announce_installs(void **state)
{
	struct rib_result res;

	(void)state;
	assert_int_equal(apply(msg(0, "a", 10), "198.18.200.2", &res), RIB_APPLIED);
	assert_string_equal(fk.log, "change 198.19.200.1/32 via 198.18.200.2 metric 10;");
	assert_int_equal(res.metric, 10);
	assert_memory_equal(&res.via, addr("198.18.200.2"), sizeof(struct in6_addr));
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
	assert_memory_equal(&res.via, addr("198.18.200.2"), sizeof(struct in6_addr));
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

/* the hold timer: what each check of rib_expire() deletes, with the time
 * moved by hand */
struct expiries {
	int n;
	struct rib_entry e[4];
	struct rib_result res[4];
};

static void on_expired(void *arg, const struct rib_entry *e, const struct rib_result *res)
{
	struct expiries *x = arg;

	if (x->n < 4) {
		x->e[x->n] = *e;
		x->res[x->n] = *res;
	}
	x->n++;
}

static size_t expire_at(int64_t now, struct expiries *x)
{
	fk.log[0] = '\0';
	memset(x, 0, sizeof(*x));
	return rib_expire(&rib, &kernel, now, 3 * NSEC_PER_SEC, on_expired, x);
}

static void test_hold_refresh_keeps_route(void **state)
{
	const int64_t t = fake_now, s = NSEC_PER_SEC;
	struct rib_result res;
	struct expiries x;

	(void)state;
	apply(msg(0, "a", 10), "198.18.200.2", &res);
	/* announced again every second for ten seconds: never silent 3 s */
	for (int i = 1; i <= 10; i++) {
		fake_now = t + i * s;
		assert_int_equal(apply(msg(0, "a", 10), "198.18.200.2", &res), RIB_UNCHANGED);
		assert_int_equal(expire_at(fake_now + s / 2, &x), 0);
		assert_int_equal(x.n, 0);
		assert_string_equal(fk.log, ""); /* the kernel was not asked */
	}
	/* exactly the hold since the last one: still there */
	assert_int_equal(expire_at(t + 13 * s, &x), 0);
	assert_non_null(rib_find(&rib, "a", addr("198.19.200.1"), 32));
}

static void test_hold_silence_deletes_once(void **state)
{
	const int64_t t = fake_now, s = NSEC_PER_SEC;
	struct rib_result res;
	struct expiries x;

	(void)state;
	apply(msg(0, "a", 10), "198.18.200.2", &res);
	apply(msg(0, "b", 20), "198.18.200.6", &res);
	/* b keeps announcing, a falls silent at t */
	for (int i = 1; i <= 3; i++) {
		fake_now = t + i * s;
		apply(msg(0, "b", 20), "198.18.200.6", &res);
	}
	assert_int_equal(expire_at(t + 3 * s, &x), 0);
	assert_int_equal(expire_at(t + 3 * s + 1, &x), 1);
	/* the kernel path of a WITHDRAW: the route installed, at its metric */
	assert_string_equal(fk.log, "delete 198.19.200.1/32 via 198.18.200.2 metric 10;");
	assert_int_equal(x.n, 1);
	assert_string_equal(x.e[0].site, "a");
	assert_int_equal(x.e[0].last_ns, t);
	assert_memory_equal(&x.e[0].via, addr("198.18.200.2"), sizeof(struct in6_addr));
	assert_int_equal(x.res[0].outcome, RIB_WITHDRAWN);
	assert_null(rib_find(&rib, "a", addr("198.19.200.1"), 32));
	assert_non_null(rib_find(&rib, "b", addr("198.19.200.1"), 32));
	/* once: later checks find nothing of a's to delete */
	assert_int_equal(expire_at(t + 4 * s, &x), 0);
	assert_int_equal(expire_at(t + 5 * s, &x), 0);
	assert_int_equal(x.n, 0);
	assert_string_equal(fk.log, "");
	/* b falls silent too */
	assert_int_equal(expire_at(t + 6 * s + 1, &x), 1);
	assert_string_equal(x.e[0].site, "b");
	assert_int_equal(rib.n, 0);
}

static void test_hold_late_announcement_reinstalls(void **state)
{
	const int64_t t = fake_now, s = NSEC_PER_SEC;
	struct rib_result res;
	struct expiries x;

	(void)state;
	apply(msg(0, "a", 10), "198.18.200.2", &res);
	assert_int_equal(expire_at(t + 4 * s, &x), 1);
	/* the site comes back (recovered, unfrozen): a new route */
	fake_now = t + 9 * s;
	assert_int_equal(apply(msg(0, "a", 10), "198.18.200.2", &res), RIB_APPLIED);
	assert_string_equal(fk.log, "change 198.19.200.1/32 via 198.18.200.2 metric 10;");
	assert_int_equal(rib_find(&rib, "a", addr("198.19.200.1"), 32)->last_ns, fake_now);
	/* held from its new announcement, not the old one */
	assert_int_equal(expire_at(t + 11 * s, &x), 0);
	assert_int_equal(expire_at(t + 12 * s + 1, &x), 1);
}

static void test_hold_kernel_gone_or_refusing(void **state)
{
	const int64_t t = fake_now, s = NSEC_PER_SEC;
	struct rib_result res;
	struct expiries x;

	(void)state;
	apply(msg(0, "a", 10), "198.18.200.2", &res);
	/* the kernel refuses: kept, tried again at the next check */
	fk.remove_rc = -1;
	assert_int_equal(expire_at(t + 4 * s, &x), 0);
	assert_int_equal(x.n, 1);
	assert_int_equal(x.res[0].outcome, RIB_ERROR);
	assert_string_equal(x.res[0].error, "Operation not permitted");
	assert_non_null(rib_find(&rib, "a", addr("198.19.200.1"), 32));
	/* the route went with its link: the entry leaves all the same */
	fk.remove_rc = 1;
	assert_int_equal(expire_at(t + 5 * s, &x), 1);
	assert_int_equal(x.res[0].outcome, RIB_UNCHANGED);
	assert_int_equal(rib.n, 0);
}

static void test_hold_zero_never_expires(void **state)
{
	struct rib_result res;

	(void)state;
	apply(msg(0, "a", 10), "198.18.200.2", &res);
	fk.log[0] = '\0';
	assert_int_equal(
	    rib_expire(&rib, &kernel, fake_now + 1000000 * NSEC_PER_SEC, 0, NULL, NULL), 0);
	assert_string_equal(fk.log, "");
	assert_int_equal(rib.n, 1);
}

/* the lab's routed: site a at 198.18.0.2, site b at 198.18.0.6, the
 * service 198.19.0.1/32 */
static void lab_acl(struct routed_acl *acl)
{
	memset(acl, 0, sizeof(*acl));
	assert_int_equal(routed_acl_add_sender(acl, "a=198.18.0.2"), 0);
	assert_int_equal(routed_acl_add_sender(acl, "b=198.18.0.6"), 0);
	assert_int_equal(routed_acl_add_prefix(acl, "198.19.0.1/32"), 0);
}

static struct announce_msg line(const char *text)
{
	struct announce_msg m;

	assert_int_equal(announce_parse(text, strlen(text), &m), 0);
	return m;
}

static void test_acl_parse(void **state)
{
	struct routed_acl acl;

	(void)state;
	memset(&acl, 0, sizeof(acl));
	assert_int_equal(acl.senders_set, 0);
	assert_int_equal(routed_acl_add_sender(&acl, "none"), 0);
	assert_int_equal(acl.senders_set, 1);
	assert_int_equal(acl.nsenders, 0);
	assert_int_equal(routed_acl_add_sender(&acl, "198.18.0.2"), 0);
	assert_string_equal(acl.senders[0].site, "");
	assert_int_equal(routed_acl_add_sender(&acl, "site_1.x-y=198.18.0.6"), 0);
	assert_string_equal(acl.senders[1].site, "site_1.x-y");
	static const char *bad[] = {"",
				    "=198.18.0.2",
				    "a=",
				    "a=b",
				    "198.18.0.256",
				    "a/b=1.2.3.4",
				    "toolongsitename17=1.2.3.4",
				    "a=198.18.0.2:7179",
				    "::ffff:198.18.0.2",	       /* IPv4-mapped: IPv4's */
				    "a=2001:2:0:3::2,via=198.18.32.1", /* a via of another family */
				    "a=198.18.0.2,via=2001:2:0:3::2",
				    "a=2001:2:0:3::2,via=::",
				    "a=[2001:2:0:3::2]"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (routed_acl_add_sender(&acl, bad[i]) != -1)
			fail_msg("-a '%s' accepted", bad[i]);
	assert_int_equal(acl.nsenders, 2);
	/* IPv6 senders, next hops and prefixes (ip = 6) */
	assert_int_equal(routed_acl_add_sender(&acl, "a=2001:2:0:3::2,via=2001:2:0:1::2,hops=1"),
			 0);
	assert_memory_equal(&acl.senders[2].addr, addr("2001:2:0:3::2"), sizeof(struct in6_addr));
	assert_memory_equal(&acl.senders[2].via, addr("2001:2:0:1::2"), sizeof(struct in6_addr));
	assert_true(acl.senders[2].has_via);
	assert_int_equal(routed_acl_add_prefix(&acl, "198.19.0.1"), 0);
	assert_int_equal(acl.prefixes[0].prefixlen, 32);
	assert_int_equal(routed_acl_add_prefix(&acl, "2001:2:0:ff00::1"), 0);
	assert_int_equal(acl.prefixes[1].prefixlen, 128);
	assert_int_equal(routed_acl_add_prefix(&acl, "x/32"), -1);
	assert_int_equal(routed_acl_add_prefix(&acl, "198.19.0.1/33"), -1);
	assert_int_equal(routed_acl_add_prefix(&acl, "2001:2:0:ff00::1/129"), -1);
}

static void test_acl_check(void **state)
{
	struct routed_acl acl;
	struct announce_msg m;
	char reason[128];

	(void)state;
	lab_acl(&acl);
	m = line("ANNOUNCE a 198.19.0.1/32 10");
	assert_int_equal(routed_acl_check(&acl, &m, addr("198.18.0.2"), reason, sizeof(reason)), 0);
	/* a client's address */
	assert_int_equal(routed_acl_check(&acl, &m, addr("198.18.0.10"), reason, sizeof(reason)),
			 -1);
	assert_string_equal(reason, "sender not allowed");
	/* b's prober speaking for a: it could withdraw a's route */
	m = line("WITHDRAW a 198.19.0.1/32");
	assert_int_equal(routed_acl_check(&acl, &m, addr("198.18.0.6"), reason, sizeof(reason)),
			 -1);
	assert_string_equal(reason, "site a not allowed from this sender");
	/* the default route, and another prefix, from an entitled prober */
	m = line("ANNOUNCE a 0.0.0.0/0 1");
	assert_int_equal(routed_acl_check(&acl, &m, addr("198.18.0.2"), reason, sizeof(reason)),
			 -1);
	assert_string_equal(reason, "prefix 0.0.0.0/0 not allowed");
	m = line("WITHDRAW a 198.19.0.0/24");
	assert_int_equal(routed_acl_check(&acl, &m, addr("198.18.0.2"), reason, sizeof(reason)),
			 -1);
	assert_string_equal(reason, "prefix 198.19.0.0/24 not allowed");
	/* another length is another prefix */
	m = line("ANNOUNCE a 198.19.0.0/31 1");
	assert_int_equal(routed_acl_check(&acl, &m, addr("198.18.0.2"), reason, sizeof(reason)),
			 -1);
	/* the service address with host bits past a length: malformed (lib/addr) */
	assert_int_equal(announce_parse("ANNOUNCE a 198.19.0.1/31 1", 26, &m), -1);
	/* an IPv4 sender's address written as IPv6 is not that sender */
	m = line("ANNOUNCE a 198.19.0.1/32 10");
	assert_int_equal(routed_acl_check(&acl, &m, addr("2001:2::c612:2"), reason, sizeof(reason)),
			 -1);
	assert_string_equal(reason, "sender not allowed");
}

/* ip = 6: the lab's ACL in IPv6 alone */
static void lab_acl6(struct routed_acl *acl)
{
	memset(acl, 0, sizeof(*acl));
	assert_int_equal(routed_acl_add_sender(acl, "a=2001:2:0:3::2"), 0);
	assert_int_equal(routed_acl_add_sender(acl, "b=2001:2:0:4::2,via=2001:2:0:100::2,hops=1"),
			 0);
	assert_int_equal(routed_acl_add_prefix(acl, "2001:2:0:ff00::1/128"), 0);
}

static void test_acl_check6(void **state)
{
	struct routed_acl acl;
	struct announce_msg m;
	char reason[128];

	(void)state;
	lab_acl6(&acl);
	m = line("ANNOUNCE a 2001:2:0:ff00::1/128 10");
	assert_int_equal(routed_acl_check(&acl, &m, addr("2001:2:0:3::2"), reason, sizeof(reason)),
			 0);
	assert_int_equal(routed_acl_check(&acl, &m, addr("2001:2:0:4::2"), reason, sizeof(reason)),
			 -1);
	assert_string_equal(reason, "site a not allowed from this sender");
	assert_int_equal(routed_acl_check(&acl, &m, addr("2001:2:0:3::3"), reason, sizeof(reason)),
			 -1);
	assert_string_equal(reason, "sender not allowed");
	m = line("ANNOUNCE a ::/0 1");
	assert_int_equal(routed_acl_check(&acl, &m, addr("2001:2:0:3::2"), reason, sizeof(reason)),
			 -1);
	assert_string_equal(reason, "prefix ::/0 not allowed");
	/* the IPv4 service is not allowed where only the IPv6 one is */
	m = line("ANNOUNCE a 198.19.0.1/32 1");
	assert_int_equal(routed_acl_check(&acl, &m, addr("2001:2:0:3::2"), reason, sizeof(reason)),
			 -1);
	assert_string_equal(reason, "prefix 198.19.0.1/32 not allowed");
}

static void test_acl_open_and_none(void **state)
{
	struct routed_acl acl;
	struct announce_msg m = line("ANNOUNCE x 0.0.0.0/0 1");
	char reason[128];

	(void)state;
	/* no -a, no -P: a routed started by hand takes anything */
	memset(&acl, 0, sizeof(acl));
	assert_int_equal(routed_acl_check(&acl, &m, addr("203.0.113.1"), reason, sizeof(reason)),
			 0);
	/* an address-only sender may speak for any site */
	assert_int_equal(routed_acl_add_sender(&acl, "198.18.0.2"), 0);
	assert_int_equal(routed_acl_check(&acl, &m, addr("198.18.0.2"), reason, sizeof(reason)), 0);
	/* -a none: a router without sites takes nothing */
	memset(&acl, 0, sizeof(acl));
	assert_int_equal(routed_acl_add_sender(&acl, "none"), 0);
	assert_int_equal(routed_acl_check(&acl, &m, addr("198.18.0.2"), reason, sizeof(reason)),
			 -1);
	assert_string_equal(reason, "sender not allowed");
}

/* from: a datagram's source, a sockaddr_in or (an IPv6 address) a
 * sockaddr_in6 */
static struct sockaddr_storage from(const char *a)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, a, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(40000);
	} else {
		assert_int_equal(inet_pton(AF_INET6, a, &sin6->sin6_addr), 1);
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(40000);
	}
	return ss;
}

static void send_line(struct routed *rd, const char *text, const char *src, int64_t now)
{
	struct sockaddr_storage ss = from(src);

	fk.log[0] = '\0';
	routed_control_handle(rd, text, strlen(text), (const struct sockaddr *)&ss, now);
}

/* read_all: the whole of a file (caller frees) */
static char *read_all(FILE *fp)
{
	long n;
	char *buf;

	fflush(fp);
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	buf = calloc(1, (size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
	return buf;
}

static int count_of(const char *text, const char *needle)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	return n;
}

static void test_control_rejects_change_nothing(void **state)
{
	char path[] = "/tmp/test_routed.XXXXXX";
	int fd = mkstemp(path);
	struct event_log *ev;
	struct routed rd;
	FILE *fp;
	char *text;
	const int64_t t = 1000 * NSEC_PER_SEC;

	(void)state;
	assert_true(fd != -1);
	ev = event_open(path, "core", "routed");
	assert_non_null(ev);
	routed_control_init(&rd, &kernel, ev, NULL);
	lab_acl(&rd.acl);

	/* a client node announcing the default route, then the service */
	send_line(&rd, "ANNOUNCE a 0.0.0.0/0 1\n", "198.18.0.10", t);
	assert_string_equal(fk.log, ""); /* the kernel was not asked */
	send_line(&rd, "ANNOUNCE a 198.19.0.1/32 1\n", "198.18.0.10", t + 1000);
	assert_string_equal(fk.log, "");
	/* the entitled prober with a bad prefix */
	send_line(&rd, "ANNOUNCE a 0.0.0.0/0 1\n", "198.18.0.2", t + 2000);
	assert_string_equal(fk.log, "");
	/* b's prober withdrawing a */
	send_line(&rd, "WITHDRAW a 198.19.0.1/32\n", "198.18.0.6", t + 3000);
	assert_string_equal(fk.log, "");
	assert_int_equal(rd.rib.n, 0);
	assert_int_equal(rd.rejected, 4);
	assert_int_equal(rd.messages, 0);
	assert_int_equal(rd.applied, 0);
	assert_int_equal(rd.rejects.total, 4);

	/* the real prober still gets its route */
	send_line(&rd, "ANNOUNCE a 198.19.0.1/32 10\n", "198.18.0.2", t + 4000);
	assert_string_equal(fk.log, "change 198.19.0.1/32 via 198.18.0.2 metric 10;");
	assert_int_equal(rd.applied, 1);
	assert_int_equal(rd.messages, 1);
	/* and a forged withdrawal of it still changes nothing */
	send_line(&rd, "WITHDRAW a 198.19.0.1/32\n", "198.18.0.10", t + 5000);
	assert_string_equal(fk.log, "");
	assert_non_null(rib_find(&rd.rib, "a", addr("198.19.0.1"), 32));
	assert_int_equal(rd.rejected, 5);

	/* one event at the first drop, the other four at close */
	routed_control_close(&rd);
	event_close(ev);
	fp = fdopen(fd, "r");
	text = read_all(fp);
	assert_int_equal(count_of(text, "\"event\":\"control_rejected\""), 2);
	assert_non_null(strstr(text, "\"event\":\"control_rejected\",\"from\":\"198.18.0.10\","
				     "\"reason\":\"sender not allowed\",\"count\":1}"));
	assert_non_null(strstr(text, "\"from\":\"198.18.0.10\",\"reason\":\"sender not "
				     "allowed\",\"count\":4}"));
	assert_int_equal(count_of(text, "\"event\":\"route_applied\""), 1);
	free(text);
	fclose(fp);
	unlink(path);
}

/* -a SITE=ADDR,via=NEXTHOP,hops=N: a site behind other routers */
static void test_acl_via_hops_parse(void **state)
{
	struct routed_acl acl;
	static const char *bad[] = {"a=198.18.0.2,",
				    "a=198.18.0.2,via=",
				    "a=198.18.0.2,via=x",
				    "a=198.18.0.2,via=0.0.0.0",
				    "a=198.18.0.2,hops=256",
				    "a=198.18.0.2,hops=-1",
				    "a=198.18.0.2,hops=",
				    "a=198.18.0.2,cost=3",
				    "a=198.18.0.2,hops=1,hops=2",
				    "198.18.0.2,hops=1",
				    "a=,via=198.18.32.1"};

	(void)state;
	memset(&acl, 0, sizeof(acl));
	assert_int_equal(routed_acl_add_sender(&acl, "a=198.18.0.2,via=198.18.32.1,hops=2"), 0);
	assert_string_equal(acl.senders[0].site, "a");
	assert_memory_equal(&acl.senders[0].addr, addr("198.18.0.2"), sizeof(struct in6_addr));
	assert_memory_equal(&acl.senders[0].via, addr("198.18.32.1"), sizeof(struct in6_addr));
	assert_int_equal(acl.senders[0].hops, 2);
	assert_int_equal(routed_acl_add_sender(&acl, "b=198.18.0.6,hops=0"), 0);
	assert_false(acl.senders[1].has_via);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (routed_acl_add_sender(&acl, bad[i]) != -1)
			fail_msg("-a '%s' accepted", bad[i]);
	assert_int_equal(acl.nsenders, 2);
}

/* the route of a site two routers away: via the neighbour, 2 * 2^24 + metric;
 * its withdrawal deletes exactly that */
static void test_control_via_hops(void **state)
{
	struct routed rd;
	const int64_t t = 1000 * NSEC_PER_SEC;

	(void)state;
	routed_control_init(&rd, &kernel, NULL, NULL);
	assert_int_equal(routed_acl_add_sender(&rd.acl, "a=198.18.0.2,via=198.18.32.1,hops=2"), 0);
	assert_int_equal(routed_acl_add_sender(&rd.acl, "b=198.18.0.6"), 0);
	assert_int_equal(routed_acl_add_prefix(&rd.acl, "198.19.0.1/32"), 0);
	send_line(&rd, "ANNOUNCE a 198.19.0.1/32 10\n", "198.18.0.2", t);
	assert_string_equal(fk.log, "change 198.19.0.1/32 via 198.18.32.1 metric 33554442;");
	send_line(&rd, "ANNOUNCE b 198.19.0.1/32 20\n", "198.18.0.6", t + 1);
	assert_string_equal(fk.log, "change 198.19.0.1/32 via 198.18.0.6 metric 20;");
	send_line(&rd, "WITHDRAW a 198.19.0.1/32\n", "198.18.0.2", t + 2);
	assert_string_equal(fk.log, "delete 198.19.0.1/32 via 198.18.32.1 metric 33554442;");
	/* a metric that does not fit above the hops: refused, nothing asked */
	assert_int_equal(routed_acl_add_sender(&rd.acl, "c=198.18.0.10,via=198.18.32.5,hops=255"),
			 0);
	send_line(&rd, "ANNOUNCE c 198.19.0.1/32 16777216\n", "198.18.0.10", t + 3);
	assert_string_equal(fk.log, "");
	assert_int_equal(rd.rejected, 1);
	assert_int_equal(rd.applied, 2);
	assert_int_equal(rd.withdrawn, 1);
	routed_control_close(&rd);
}

/* routed_control_expire: a route_expired event with what was deleted and
 * when it was last announced; counted in expired */
static void test_control_expire_event(void **state)
{
	char path[] = "/tmp/test_routed.XXXXXX";
	int fd = mkstemp(path);
	struct event_log *ev;
	struct routed rd;
	FILE *fp;
	char *text;
	const int64_t t = 1000 * NSEC_PER_SEC;

	(void)state;
	assert_true(fd != -1);
	ev = event_open(path, "core", "routed");
	assert_non_null(ev);
	routed_control_init(&rd, &kernel, ev, NULL);
	lab_acl(&rd.acl);
	rd.hold_ns = 3 * NSEC_PER_SEC;
	send_line(&rd, "ANNOUNCE a 198.19.0.1/32 10\n", "198.18.0.2", t);
	send_line(&rd, "ANNOUNCE b 198.19.0.1/32 20\n", "198.18.0.6", t);
	send_line(&rd, "ANNOUNCE b 198.19.0.1/32 20\n", "198.18.0.6", t + 2 * NSEC_PER_SEC);
	fk.log[0] = '\0';
	routed_control_expire(&rd, t + 3500 * NSEC_PER_MSEC);
	assert_string_equal(fk.log, "delete 198.19.0.1/32 via 198.18.0.2 metric 10;");
	fk.log[0] = '\0';
	routed_control_expire(&rd, t + 3600 * NSEC_PER_MSEC);
	assert_string_equal(fk.log, "");
	assert_int_equal(rd.expired, 1);
	assert_int_equal(rd.withdrawn, 0);
	assert_null(rib_find(&rd.rib, "a", addr("198.19.0.1"), 32));
	assert_non_null(rib_find(&rd.rib, "b", addr("198.19.0.1"), 32));
	routed_control_close(&rd);
	event_close(ev);
	fp = fdopen(fd, "r");
	text = read_all(fp);
	assert_int_equal(count_of(text, "\"event\":\"route_expired\""), 1);
	assert_non_null(strstr(text, "\"event\":\"route_expired\",\"site\":\"a\",\"prefix\":"
				     "\"198.19.0.1/32\",\"via\":\"198.18.0.2\",\"metric\":10,"));
	assert_non_null(strstr(text, "\"silent_s\":3.5,\"deleted\":true}"));
	free(text);
	fclose(fp);
	unlink(path);
}

static void test_control_malformed_is_bad_not_rejected(void **state)
{
	struct routed rd;

	(void)state;
	routed_control_init(&rd, &kernel, NULL, NULL);
	lab_acl(&rd.acl);
	send_line(&rd, "ANNOUNCE a 0.0.0.0/99 1\n", "198.18.0.10", NSEC_PER_SEC);
	assert_int_equal(rd.bad, 1);
	assert_int_equal(rd.rejected, 0);
	routed_control_close(&rd);
}

/* ECMP: the sites of one prefix and metric share its route, every change
 * installing the whole set again in address order; the last one's
 * withdrawal deletes it; an unknown site's withdrawal leaves the others'
 * route alone; the hold timer takes one next hop out */
static void test_ecmp_group(void **state)
{
	struct rib_result res;

	(void)state;
	rib.ecmp = 1;
	assert_int_equal(apply(msg(0, "b", 10), "198.18.200.6", &res), RIB_APPLIED);
	assert_string_equal(fk.log, "change 198.19.200.1/32 via 198.18.200.6 metric 10;");
	assert_int_equal(apply(msg(0, "a", 10), "198.18.200.2", &res), RIB_APPLIED);
	assert_string_equal(fk.log,
			    "change 198.19.200.1/32 via 198.18.200.2,198.18.200.6 metric 10;");
	/* a refresh installs the same set */
	assert_int_equal(apply(msg(0, "b", 10), "198.18.200.6", &res), RIB_UNCHANGED);
	assert_string_equal(fk.log,
			    "change 198.19.200.1/32 via 198.18.200.2,198.18.200.6 metric 10;");
	assert_int_equal(apply(msg(0, "c", 10), "198.18.200.10", &res), RIB_APPLIED);
	assert_string_equal(fk.log, "change 198.19.200.1/32 via "
				    "198.18.200.2,198.18.200.6,198.18.200.10 metric 10;");
	/* c at another metric: a route of its own, and c out of the set */
	assert_int_equal(apply(msg(0, "c", 20), "198.18.200.10", &res), RIB_APPLIED);
	assert_string_equal(fk.log, "change 198.19.200.1/32 via 198.18.200.10 metric 20;"
				    "change 198.19.200.1/32 via 198.18.200.2,198.18.200.6 metric "
				    "10;");
	assert_int_equal(apply(msg(1, "a", 10), "198.18.200.2", &res), RIB_WITHDRAWN);
	assert_string_equal(fk.log, "change 198.19.200.1/32 via 198.18.200.6 metric 10;");
	/* nobody the table knows: b's route stays */
	assert_int_equal(apply(msg(1, "d", 10), "198.18.200.14", &res), RIB_UNCHANGED);
	assert_string_equal(fk.log, "");
	assert_int_equal(apply(msg(1, "b", 10), "198.18.200.6", &res), RIB_WITHDRAWN);
	assert_string_equal(fk.log, "delete 198.19.200.1/32 via 0.0.0.0 metric 10;");
	/* the hold timer: c silent, its route deleted */
	fk.log[0] = '\0';
	assert_int_equal(
	    rib_expire(&rib, &kernel, fake_now + 10 * NSEC_PER_SEC, 3 * NSEC_PER_SEC, NULL, NULL),
	    1);
	assert_string_equal(fk.log, "delete 198.19.200.1/32 via 0.0.0.0 metric 20;");
	rib.ecmp = 0;
}

static struct announce_msg msg6(int withdraw, const char *site, unsigned metric)
{
	struct announce_msg m = msg(withdraw, site, metric);

	m.prefix = *addr("2001:2:0:ff00::1");
	m.prefixlen = 128;
	return m;
}

/* an IPv6 prefix: an IPv6 route via the IPv6 sender, withdrawn and expired
 * as an IPv4 one; a next hop of the other family or loopback refused */
static void test_ipv6_route(void **state)
{
	struct rib_result res;
	char v[INET6_ADDRSTRLEN];

	(void)state;
	assert_int_equal(apply(msg6(0, "a", 10), "2001:2:0:3::2", &res), RIB_APPLIED);
	assert_string_equal(fk.log, "change6 2001:2:0:ff00::1/128 via 2001:2:0:3::2 metric 10;");
	assert_string_equal(addr_ip_str(&res.via, v, sizeof(v)), "2001:2:0:3::2");
	assert_non_null(rib_find(&rib, "a", addr("2001:2:0:ff00::1"), 128));
	/* the IPv4 service of the same site is another entry */
	assert_null(rib_find(&rib, "a", addr("198.19.200.1"), 32));
	assert_int_equal(apply(msg6(0, "a", 10), "2001:2:0:3::2", &res), RIB_UNCHANGED);
	assert_int_equal(apply(msg6(0, "a", 20), "2001:2:0:3::2", &res), RIB_APPLIED);
	assert_string_equal(fk.log, "change6 2001:2:0:ff00::1/128 via 2001:2:0:3::2 metric 20;"
				    "delete6 2001:2:0:ff00::1/128 via 2001:2:0:3::2 metric 10;");
	assert_int_equal(apply(msg6(1, "a", 0), "2001:2:0:3::2", &res), RIB_WITHDRAWN);
	assert_string_equal(fk.log, "delete6 2001:2:0:ff00::1/128 via 2001:2:0:3::2 metric 20;");
	/* a stale route of an earlier routed: any metric (the kernel has none) */
	fk.remove_rc = 1;
	assert_int_equal(apply(msg6(1, "a", 0), "2001:2:0:3::2", &res), RIB_UNCHANGED);
	assert_string_equal(fk.log, "delete6 2001:2:0:ff00::1/128 via 2001:2:0:3::2 any;");
	fk.remove_rc = 0;
	/* no next hop of the other family (no RFC 5549 here), nor loopback */
	assert_int_equal(apply(msg6(0, "a", 10), "198.18.200.2", &res), RIB_ERROR);
	assert_string_equal(res.error, "next hop 198.18.200.2 is not of the prefix's family");
	assert_int_equal(apply(msg(0, "a", 10), "2001:2:0:3::2", &res), RIB_ERROR);
	assert_int_equal(apply(msg6(0, "a", 10), "::1", &res), RIB_ERROR);
	assert_string_equal(res.error, "next hop ::1 is not usable");
	assert_int_equal(apply(msg6(0, "a", 10), "::", &res), RIB_ERROR);
	assert_string_equal(fk.log, "");
	assert_int_equal(apply(msg6(1, "a", 0), "198.18.200.2", &res), RIB_UNCHANGED);
	assert_string_equal(fk.log, "");
	/* the hold timer */
	assert_int_equal(apply(msg6(0, "b", 10), "2001:2:0:4::2", &res), RIB_APPLIED);
	fk.log[0] = '\0';
	assert_int_equal(
	    rib_expire(&rib, &kernel, fake_now + 4 * NSEC_PER_SEC, 3 * NSEC_PER_SEC, NULL, NULL),
	    1);
	assert_string_equal(fk.log, "delete6 2001:2:0:ff00::1/128 via 2001:2:0:4::2 metric 10;");
	assert_int_equal(rib.n, 0);
}

/* ECMP in IPv6: one multipath IPv6 route, next hops in address order */
static void test_ipv6_ecmp(void **state)
{
	struct rib_result res;

	(void)state;
	rib.ecmp = 1;
	assert_int_equal(apply(msg6(0, "b", 10), "2001:2:0:4::2", &res), RIB_APPLIED);
	assert_int_equal(apply(msg6(0, "a", 10), "2001:2:0:3::2", &res), RIB_APPLIED);
	assert_string_equal(
	    fk.log, "change6 2001:2:0:ff00::1/128 via 2001:2:0:3::2,2001:2:0:4::2 metric 10;");
	assert_int_equal(apply(msg6(1, "a", 10), "2001:2:0:3::2", &res), RIB_WITHDRAWN);
	assert_string_equal(fk.log, "change6 2001:2:0:ff00::1/128 via 2001:2:0:4::2 metric 10;");
	assert_int_equal(apply(msg6(1, "b", 10), "2001:2:0:4::2", &res), RIB_WITHDRAWN);
	assert_string_equal(fk.log, "delete6 2001:2:0:ff00::1/128 via :: metric 10;");
	rib.ecmp = 0;
}

/* ip = 6 through the control channel: IPv6 senders, a site behind another
 * router via its IPv6 next hop, and events and rejections naming IPv6
 * addresses */
static void test_control_ipv6(void **state)
{
	char path[] = "/tmp/test_routed.XXXXXX";
	int fd = mkstemp(path);
	struct event_log *ev;
	struct routed rd;
	FILE *fp;
	char *text;
	const int64_t t = 1000 * NSEC_PER_SEC;

	(void)state;
	assert_true(fd != -1);
	ev = event_open(path, "r1", "routed");
	assert_non_null(ev);
	routed_control_init(&rd, &kernel, ev, NULL);
	lab_acl6(&rd.acl);
	rd.hold_ns = 3 * NSEC_PER_SEC;
	send_line(&rd, "ANNOUNCE a 2001:2:0:ff00::1/128 10\n", "2001:2:0:3::2", t);
	assert_string_equal(fk.log, "change6 2001:2:0:ff00::1/128 via 2001:2:0:3::2 metric 10;");
	send_line(&rd, "ANNOUNCE b 2001:2:0:ff00::1/128 20\n", "2001:2:0:4::2", t);
	assert_string_equal(fk.log,
			    "change6 2001:2:0:ff00::1/128 via 2001:2:0:100::2 metric 16777236;");
	/* a client, and an entitled sender over IPv4 */
	send_line(&rd, "WITHDRAW a 2001:2:0:ff00::1/128\n", "2001:2:0:5::2", t);
	send_line(&rd, "WITHDRAW a 2001:2:0:ff00::1/128\n", "198.18.0.2", t);
	assert_string_equal(fk.log, "");
	assert_int_equal(rd.rejected, 2);
	send_line(&rd, "WITHDRAW a 2001:2:0:ff00::1/128\n", "2001:2:0:3::2", t + 1);
	assert_string_equal(fk.log, "delete6 2001:2:0:ff00::1/128 via 2001:2:0:3::2 metric 10;");
	fk.log[0] = '\0';
	routed_control_expire(&rd, t + 3500 * NSEC_PER_MSEC);
	assert_string_equal(fk.log,
			    "delete6 2001:2:0:ff00::1/128 via 2001:2:0:100::2 metric 16777236;");
	assert_int_equal(rd.applied, 2);
	assert_int_equal(rd.withdrawn, 1);
	assert_int_equal(rd.expired, 1);
	routed_control_close(&rd);
	event_close(ev);
	fp = fdopen(fd, "r");
	text = read_all(fp);
	assert_non_null(
	    strstr(text, "\"event\":\"route_applied\",\"site\":\"a\",\"prefix\":"
			 "\"2001:2:0:ff00::1/128\",\"via\":\"2001:2:0:3::2\",\"metric\":10}"));
	assert_non_null(strstr(text, "\"event\":\"route_applied\",\"site\":\"b\",\"prefix\":"
				     "\"2001:2:0:ff00::1/128\",\"via\":\"2001:2:0:100::2\""));
	assert_non_null(strstr(text, "\"event\":\"route_withdrawn\",\"site\":\"a\",\"prefix\":"
				     "\"2001:2:0:ff00::1/128\",\"via\":\"2001:2:0:3::2\"}"));
	assert_non_null(strstr(text, "\"event\":\"route_expired\",\"site\":\"b\",\"prefix\":"
				     "\"2001:2:0:ff00::1/128\",\"via\":\"2001:2:0:100::2\""));
	assert_non_null(strstr(text, "\"from\":\"2001:2:0:5::2\""));
	free(text);
	fclose(fp);
	unlink(path);
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
	    cmocka_unit_test_setup(test_hold_refresh_keeps_route, setup),
	    cmocka_unit_test_setup(test_hold_silence_deletes_once, setup),
	    cmocka_unit_test_setup(test_hold_late_announcement_reinstalls, setup),
	    cmocka_unit_test_setup(test_hold_kernel_gone_or_refusing, setup),
	    cmocka_unit_test_setup(test_hold_zero_never_expires, setup),
	    cmocka_unit_test(test_acl_parse),
	    cmocka_unit_test(test_acl_check),
	    cmocka_unit_test(test_acl_check6),
	    cmocka_unit_test_setup(test_ipv6_route, setup),
	    cmocka_unit_test_setup(test_ipv6_ecmp, setup),
	    cmocka_unit_test_setup(test_control_ipv6, setup),
	    cmocka_unit_test(test_acl_open_and_none),
	    cmocka_unit_test_setup(test_control_rejects_change_nothing, setup),
	    cmocka_unit_test_setup(test_control_malformed_is_bad_not_rejected, setup),
	    cmocka_unit_test(test_acl_via_hops_parse),
	    cmocka_unit_test_setup(test_control_via_hops, setup),
	    cmocka_unit_test_setup(test_control_expire_event, setup),
	    cmocka_unit_test_setup(test_ecmp_group, setup),
	};

	return cmocka_run_group_tests_name("routed", tests, NULL, NULL);
}
