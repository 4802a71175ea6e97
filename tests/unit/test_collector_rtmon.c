/*
 * The collector's route monitor (probes/collector/rtmon.c) against the real
 * kernel, in a network namespace of the test's own (test_netns.h; root,
 * else skipped): routes added, replaced, appended and deleted through libnl
 * (a nexthop object through `ip`) come back as the events the collector
 * writes, prefix, via, device, metric, op and deleted exactly; a dump gives
 * the routes already there as "present"; a multipath route its next hops,
 * the first RTMON_MAX_NEXTHOPS of them; IPv6 routes (unless asked for:
 * then their prefix and next hop in IPv6, a dump with both families) and
 * messages that are not the kernel's are left out; a receive buffer too small for a burst is
 * reported as an overrun (1), a socket error as -1, with the message.
 * Nothing is waited for by a guess: each read follows a poll, bounded, for
 * the events that must come; an IPv4 route added after what must not be
 * seen, and seen next, shows that it was not.
 */
#include <arpa/inet.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <cmocka.h>
#include <netlink/route/route.h>

#include "log.h"
#include "probes/collector/rtmon.h"
#include "test_child.h"
#include "test_netns.h"
#include "timeutil.h"

/* how long the kernel may take to hand over what must come */
#define WAIT_MS 2000

struct fixture {
	struct nl_sock *sk;
	struct rtmon *m;
	int n;		    /* routes seen */
	int main_only;	    /* leave out routes of other tables (a dump's local ones) */
	int ipv6;	    /* lab(): the monitor opened for IPv6 routes too */
	int64_t t_min;	    /* every route's t_ns at or after this */
	char text[1 << 15]; /* one line a route seen */
	size_t at;
};

static void on_route(const struct rtmon_route *r, void *arg)
{
	struct fixture *f = arg;
	char dst[INET6_ADDRSTRLEN], gw[INET6_ADDRSTRLEN], dev[IF_NAMESIZE] = "-";
	size_t room = sizeof(f->text) - f->at;
	int v6 = r->family == AF_INET6;

	assert_true(r->t_ns >= f->t_min && r->t_ns <= now_real_ns());
	assert_int_equal(r->deleted, r->op == RTMON_DEL);
	if (f->main_only && r->table != RT_TABLE_MAIN)
		return;
	f->n++;
	assert_true(r->family == AF_INET || r->family == AF_INET6);
	inet_ntop(r->family, v6 ? (const void *)&r->dst6 : (const void *)&r->dst, dst, sizeof(dst));
	if (r->oif)
		assert_non_null(if_indextoname((unsigned)r->oif, dev));
	f->at += (size_t)snprintf(f->text + f->at, room, "%s %s/%d", rtmon_op_name(r->op), dst,
				  r->dst_len);
	room = sizeof(f->text) - f->at;
	if (r->has_gateway) {
		inet_ntop(r->family, v6 ? (const void *)&r->gateway6 : (const void *)&r->gateway,
			  gw, sizeof(gw));
		f->at += (size_t)snprintf(f->text + f->at, room, " via %s", gw);
		room = sizeof(f->text) - f->at;
	}
	f->at += (size_t)snprintf(f->text + f->at, room, " dev %s metric %u table %u proto %u %s%s",
				  dev, r->metric, r->table, r->protocol, rtmon_type_name(r->type),
				  r->deleted ? " deleted" : "");
	room = sizeof(f->text) - f->at;
	if (r->nhid) {
		f->at += (size_t)snprintf(f->text + f->at, room, " nhid %u", r->nhid);
		room = sizeof(f->text) - f->at;
	}
	if (r->multipath) {
		f->at += (size_t)snprintf(f->text + f->at, room, " multipath %d of %d:", r->nnh,
					  r->nnh_total);
		room = sizeof(f->text) - f->at;
		for (int i = 0; i < r->nnh; i++) {
			inet_ntop(AF_INET, &r->nh[i].gateway, gw, sizeof(gw));
			f->at += (size_t)snprintf(f->text + f->at, room, " %s",
						  r->nh[i].has_gateway ? gw : "-");
			room = sizeof(f->text) - f->at;
		}
	} else {
		/* a single next hop is the route's own */
		assert_int_equal(r->nnh, 1);
		assert_int_equal(r->nnh_total, 1);
		assert_int_equal(r->nh[0].has_gateway, r->has_gateway);
		assert_int_equal(r->nh[0].gateway.s_addr, r->gateway.s_addr);
		assert_int_equal(r->nh[0].oif, r->oif);
	}
	f->at += (size_t)snprintf(f->text + f->at, room, "\n");
	assert_true(f->at < sizeof(f->text) - 1);
}

/* seen: the routes seen so far, emptied */
static const char *seen(struct fixture *f)
{
	static char out[sizeof(f->text)];

	memcpy(out, f->text, f->at + 1);
	f->at = 0;
	f->text[0] = '\0';
	f->n = 0;
	return out;
}

/* wait_routes: poll and read until n routes are seen (WAIT_MS at most);
 * what rtmon_read returned last: 0, or 1 if any read said overrun */
static int wait_routes(struct fixture *f, int n)
{
	int64_t deadline = now_real_ns() + (int64_t)WAIT_MS * 1000000;
	int overrun = 0;

	while (f->n < n) {
		struct pollfd p = {.fd = rtmon_fd(f->m), .events = POLLIN};
		int64_t left = deadline - now_real_ns();
		int rc;

		if (left <= 0)
			fail_msg("%d route(s) seen in %d ms, %d expected:\n%s", f->n, WAIT_MS, n,
				 f->text);
		assert_true(poll(&p, 1, (int)(left / 1000000) + 1) >= 0);
		rc = rtmon_read(f->m);
		assert_true(rc == 0 || rc == 1);
		overrun |= rc;
	}
	return overrun;
}

/* lab: the namespace: veth t0 (198.18.0.1/27) to t1, so that 198.18.0.2
 * to .30 are gateways on a link; the monitor opened after it */
static void lab(struct fixture *f)
{
	struct rtnl_addr *a = rtnl_addr_alloc();
	struct nl_addr *local;
	int ifindex;

	TEST_NETNS_ENTER();
	log_init("collector", 0);
	f->sk = test_netns_sock();
	ifindex = test_netns_veth(f->sk, "t0", "t1");
	assert_non_null(a);
	assert_int_equal(nl_addr_parse("198.18.0.1/27", AF_INET, &local), 0);
	rtnl_addr_set_ifindex(a, ifindex);
	assert_int_equal(rtnl_addr_set_local(a, local), 0);
	assert_int_equal(rtnl_addr_add(f->sk, a, 0), 0);
	nl_addr_put(local);
	rtnl_addr_put(a);
	f->t_min = now_real_ns();
	assert_non_null(f->m = rtmon_open(on_route, f, f->ipv6));
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	rtmon_close(f->m);
	if (f->sk)
		nl_socket_free(f->sk);
	memset(f, 0, sizeof(*f));
	return 0;
}

enum { ADD, REPLACE, APPEND, DEL };

/* route: DST (a prefix) through the gateways gws (NULL-terminated; none: a
 * blackhole) on t0, metric, added (flags as `ip route` would), or deleted */
static void route(struct fixture *f, int what, const char *dst, uint32_t metric, const char **gws)
{
	struct rtnl_route *r = rtnl_route_alloc();
	struct nl_addr *a;
	int err;

	assert_non_null(r);
	rtnl_route_set_family(r, AF_INET);
	assert_int_equal(nl_addr_parse(dst, AF_INET, &a), 0);
	assert_int_equal(rtnl_route_set_dst(r, a), 0);
	nl_addr_put(a);
	rtnl_route_set_table(r, RT_TABLE_MAIN);
	rtnl_route_set_protocol(r, RTPROT_STATIC);
	rtnl_route_set_priority(r, metric);
	if (gws == NULL || gws[0] == NULL)
		rtnl_route_set_type(r, RTN_BLACKHOLE);
	for (int i = 0; gws && gws[i]; i++) {
		struct rtnl_nexthop *nh = rtnl_route_nh_alloc();

		assert_non_null(nh);
		assert_int_equal(nl_addr_parse(gws[i], AF_INET, &a), 0);
		rtnl_route_nh_set_gateway(nh, a);
		nl_addr_put(a);
		rtnl_route_nh_set_ifindex(nh, (int)if_nametoindex("t0"));
		rtnl_route_add_nexthop(r, nh);
	}
	switch (what) {
	case ADD:
		err = rtnl_route_add(f->sk, r, NLM_F_CREATE | NLM_F_EXCL);
		break;
	case REPLACE:
		err = rtnl_route_add(f->sk, r, NLM_F_CREATE | NLM_F_REPLACE);
		break;
	case APPEND:
		err = rtnl_route_add(f->sk, r, NLM_F_CREATE | NLM_F_APPEND);
		break;
	default:
		err = rtnl_route_delete(f->sk, r, 0);
	}
	if (err < 0)
		fail_msg("route %s: %s", dst, nl_geterror(err));
	rtnl_route_put(r);
}

#define GWS(...) ((const char *[]){__VA_ARGS__, NULL})

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(rtmon_op_name(RTMON_ADD), "add");
	assert_string_equal(rtmon_op_name(RTMON_REPLACE), "replace");
	assert_string_equal(rtmon_op_name(RTMON_APPEND), "append");
	assert_string_equal(rtmon_op_name(RTMON_DEL), "del");
	assert_string_equal(rtmon_op_name(RTMON_PRESENT), "present");
	assert_string_equal(rtmon_op_name((enum rtmon_op)99), "other");
	assert_string_equal(rtmon_type_name(RTN_UNICAST), "unicast");
	assert_string_equal(rtmon_type_name(RTN_LOCAL), "local");
	assert_string_equal(rtmon_type_name(RTN_BLACKHOLE), "blackhole");
	assert_string_equal(rtmon_type_name(RTN_XRESOLVE), "xresolve");
	assert_string_equal(rtmon_type_name(RTN_XRESOLVE + 1), "other");
	assert_string_equal(rtmon_type_name(255), "other");
	rtmon_close(NULL); /* harmless */
}

/* the route's life as a routing daemon would change it */
static void test_add_replace_append_delete(void **state)
{
	struct fixture *f = *state;

	lab(f);
	route(f, ADD, "198.19.1.0/24", 10, GWS("198.18.0.2"));
	route(f, REPLACE, "198.19.1.0/24", 10, GWS("198.18.0.3"));
	/* another metric: a second route beside, its own add */
	route(f, ADD, "198.19.1.0/24", 20, GWS("198.18.0.4"));
	route(f, APPEND, "198.19.1.0/24", 20, GWS("198.18.0.5"));
	route(f, DEL, "198.19.1.0/24", 10, GWS("198.18.0.3"));
	route(f, ADD, "198.19.2.1/32", 0, NULL);
	route(f, DEL, "198.19.2.1/32", 0, NULL);
	assert_int_equal(wait_routes(f, 7), 0);
	assert_string_equal(
	    seen(f),
	    "add 198.19.1.0/24 via 198.18.0.2 dev t0 metric 10 table 254 proto 4 unicast\n"
	    "replace 198.19.1.0/24 via 198.18.0.3 dev t0 metric 10 table 254 proto 4 unicast\n"
	    "add 198.19.1.0/24 via 198.18.0.4 dev t0 metric 20 table 254 proto 4 unicast\n"
	    "append 198.19.1.0/24 via 198.18.0.5 dev t0 metric 20 table 254 proto 4 unicast\n"
	    "del 198.19.1.0/24 via 198.18.0.3 dev t0 metric 10 table 254 proto 4 unicast deleted\n"
	    "add 198.19.2.1/32 dev - metric 0 table 254 proto 4 blackhole\n"
	    "del 198.19.2.1/32 dev - metric 0 table 254 proto 4 blackhole deleted\n");
	/* nothing more is pending */
	assert_int_equal(rtmon_read(f->m), 0);
	assert_int_equal(f->n, 0);
}

/* a monitor started late still knows the routes: the dump's, "present",
 * then the changes as they come */
static void test_dump(void **state)
{
	struct fixture *f = *state;

	lab(f);
	route(f, ADD, "198.19.1.0/24", 10, GWS("198.18.0.2"));
	assert_int_equal(wait_routes(f, 1), 0);
	seen(f);
	assert_int_equal(rtmon_dump(f->m), 0);
	f->main_only = 1;
	assert_int_equal(wait_routes(f, 2), 0);
	assert_string_equal(
	    seen(f),
	    "present 198.18.0.0/27 dev t0 metric 0 table 254 proto 2 unicast\n"
	    "present 198.19.1.0/24 via 198.18.0.2 dev t0 metric 10 table 254 proto 4 unicast\n");
	/* the local table's too, the address's own route first among them */
	assert_int_equal(rtmon_dump(f->m), 0);
	f->main_only = 0;
	assert_int_equal(wait_routes(f, 3), 0);
	assert_non_null(
	    strstr(f->text, "present 198.18.0.1/32 dev t0 metric 0 table 255 proto 2 local\n"));
	assert_non_null(
	    strstr(f->text, "present 127.0.0.1/32 dev lo metric 0 table 255 proto 2 local\n"));
	/* the dump ended with it: what comes next is a change */
	assert_int_equal(rtmon_read(f->m), 0);
	seen(f);
	route(f, DEL, "198.19.1.0/24", 10, GWS("198.18.0.2"));
	assert_int_equal(wait_routes(f, 1), 0);
	assert_string_equal(seen(f), "del 198.19.1.0/24 via 198.18.0.2 dev t0 metric 10 table 254 "
				     "proto 4 unicast deleted\n");
}

/* ECMP: every next hop, the first RTMON_MAX_NEXTHOPS of more */
static void test_multipath(void **state)
{
	struct fixture *f = *state;
	const char *many[RTMON_MAX_NEXTHOPS + 2];
	char addr[RTMON_MAX_NEXTHOPS + 1][16], want[1024];
	size_t at;

	lab(f);
	route(f, ADD, "198.19.3.0/24", 0, GWS("198.18.0.2", "198.18.0.3", "198.18.0.4"));
	assert_int_equal(wait_routes(f, 1), 0);
	assert_string_equal(seen(f), "add 198.19.3.0/24 via 198.18.0.2 dev t0 metric 0 table 254 "
				     "proto 4 unicast multipath 3 of 3: 198.18.0.2 198.18.0.3 "
				     "198.18.0.4\n");
	for (int i = 0; i < RTMON_MAX_NEXTHOPS + 1; i++) {
		snprintf(addr[i], sizeof(addr[i]), "198.18.0.%d", 2 + i);
		many[i] = addr[i];
	}
	many[RTMON_MAX_NEXTHOPS + 1] = NULL;
	route(f, REPLACE, "198.19.3.0/24", 0, many);
	assert_int_equal(wait_routes(f, 1), 0);
	at = (size_t)snprintf(
	    want, sizeof(want),
	    "replace 198.19.3.0/24 via 198.18.0.2 dev t0 metric 0 table 254 proto 4 "
	    "unicast multipath %d of %d:",
	    RTMON_MAX_NEXTHOPS, RTMON_MAX_NEXTHOPS + 1);
	for (int i = 0; i < RTMON_MAX_NEXTHOPS; i++)
		at += (size_t)snprintf(want + at, sizeof(want) - at, " %s", addr[i]);
	snprintf(want + at, sizeof(want) - at, "\n");
	assert_string_equal(seen(f), want);
}

/* FRR's zebra installs routes through nexthop objects: their id */
static void test_nexthop_object(void **state)
{
	struct fixture *f = *state;

	lab(f);
	assert_int_equal(system("ip nexthop add id 7 via 198.18.0.2 dev t0 && "
				"ip route add 198.19.4.0/24 nhid 7 proto static"),
			 0);
	assert_int_equal(wait_routes(f, 1), 0);
	assert_string_equal(seen(f), "add 198.19.4.0/24 via 198.18.0.2 dev t0 metric 0 table 254 "
				     "proto 4 unicast nhid 7\n");
}

/* left out: IPv6 routes (another group), and a route message a process,
 * not the kernel, sent to the monitor's socket */
static void test_left_out(void **state)
{
	struct fixture *f = *state;
	struct sockaddr_nl me;
	socklen_t len = sizeof(me);
	struct {
		struct nlmsghdr nlh;
		struct rtmsg rtm;
	} fake;
	int fd;

	lab(f);
	assert_int_equal(system("ip -6 route add 2001:2::/64 dev t0"), 0);
	/* a forged RTM_NEWROUTE, root may send to any socket */
	assert_int_equal(getsockname(rtmon_fd(f->m), (struct sockaddr *)&me, &len), 0);
	memset(&fake, 0, sizeof(fake));
	fake.nlh.nlmsg_len = NLMSG_LENGTH(sizeof(fake.rtm));
	fake.nlh.nlmsg_type = RTM_NEWROUTE;
	fake.rtm.rtm_family = AF_INET;
	fake.rtm.rtm_dst_len = 8;
	assert_true((fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE)) != -1);
	assert_int_equal(
	    sendto(fd, &fake, fake.nlh.nlmsg_len, 0, (struct sockaddr *)&me, sizeof(me)),
	    (ssize_t)fake.nlh.nlmsg_len);
	close(fd);
	route(f, ADD, "198.19.5.0/24", 0, GWS("198.18.0.2"));
	/* the first route seen is the IPv4 one added after both */
	assert_int_equal(wait_routes(f, 1), 0);
	assert_string_equal(seen(f), "add 198.19.5.0/24 via 198.18.0.2 dev t0 metric 0 table 254 "
				     "proto 4 unicast\n");
}

/* asked for (a dual-stack lab's collector), the IPv6 routes come too,
 * in IPv6, beside the IPv4 ones; a dump gives both families */
static void test_ipv6(void **state)
{
	struct fixture *f = *state;

	f->ipv6 = 1;
	lab(f);
	/* no duplicate address detection: the gateway is usable at once */
	assert_int_equal(system("sysctl -qw net.ipv6.conf.t0.accept_dad=0 && "
				"ip -6 addr add 2001:2::1/64 dev t0 nodad"),
			 0);
	assert_int_equal(system("ip -6 route add 2001:2:0:ff00::1/128 via 2001:2::2 dev t0 "
				"metric 20 proto static"),
			 0);
	route(f, ADD, "198.19.5.0/24", 0, GWS("198.18.0.2"));
	f->main_only = 1;
	/* the IPv6 ones first: the address's own routes, then the route */
	for (int i = 0; i < 10 && !strstr(f->text, "198.19.5.0/24"); i++)
		wait_routes(f, f->n + 1);
	assert_non_null(strstr(f->text, "add 2001:2:0:ff00::1/128 via 2001:2::2 dev t0 metric 20 "
					"table 254 proto 4 unicast\n"));
	assert_non_null(strstr(f->text, "add 198.19.5.0/24 via 198.18.0.2 dev t0 metric 0 table "
					"254 proto 4 unicast\n"));
	seen(f);
	assert_int_equal(rtmon_dump(f->m), 0);
	for (int i = 0; i < 20 && !(strstr(f->text, "present 198.19.5.0/24") &&
				    strstr(f->text, "present 2001:2:0:ff00::1/128"));
	     i++)
		wait_routes(f, f->n + 1);
	assert_non_null(strstr(f->text, "present 2001:2:0:ff00::1/128 via 2001:2::2 dev t0 metric "
					"20 table 254 proto 4 unicast\n"));
	assert_non_null(strstr(f->text, "present 198.19.5.0/24 via 198.18.0.2"));
	seen(f);
	assert_int_equal(system("ip -6 route del 2001:2:0:ff00::1/128 via 2001:2::2 dev t0"), 0);
	assert_int_equal(wait_routes(f, 1), 0);
	assert_string_equal(seen(f), "del 2001:2:0:ff00::1/128 via 2001:2::2 dev t0 metric 20 "
				     "table 254 proto 4 unicast deleted\n");
}

/* a burst the receive buffer cannot hold: the kernel drops notifications
 * and says so once; rtmon_read reports it (1) and still gives what was
 * kept, in order */
static void test_overrun(void **state)
{
	struct fixture *f = *state;
	int tiny = 1; /* the kernel's minimum: a few notifications */
	char dst[32], want[64];

	lab(f);
	assert_int_equal(setsockopt(rtmon_fd(f->m), SOL_SOCKET, SO_RCVBUF, &tiny, sizeof(tiny)), 0);
	for (int i = 0; i < 100; i++) {
		snprintf(dst, sizeof(dst), "198.19.6.%d/32", i);
		route(f, ADD, dst, 0, NULL);
	}
	assert_int_equal(rtmon_read(f->m), 1);
	assert_true(f->n >= 1 && f->n < 100);
	for (int i = 0; i < f->n; i++) {
		snprintf(want, sizeof(want), "add 198.19.6.%d/32 dev", i);
		assert_non_null(strstr(f->text, want));
	}
	/* reported once: the next read is clean */
	seen(f);
	route(f, ADD, "198.19.7.0/24", 0, NULL);
	assert_int_equal(wait_routes(f, 1), 0);
	assert_string_equal(seen(f),
			    "add 198.19.7.0/24 dev - metric 0 table 254 proto 4 blackhole\n");
}

/* the errors, with what the collector logs: a socket that fails (here, no
 * longer a socket at all) and no descriptor left to open one */
static void test_errors(void **state)
{
	struct fixture *f = *state;
	int p[2], saved;
	char *err, *text;

	lab(f);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(dup2(p[0], rtmon_fd(f->m)), rtmon_fd(f->m));
	close(p[0]);
	close(p[1]);
	saved = test_stderr_begin();
	assert_int_equal(rtmon_read(f->m), -1);
	assert_int_equal(rtmon_dump(f->m), -1);
	err = test_stderr_end(saved);
	text = test_strip_stamps(err);
	assert_string_equal(
	    text, "collector: rtmon_read: netlink receive: Socket operation on non-socket\n"
		  "collector: rtmon_dump: netlink route dump: Socket operation on non-socket\n");
	free(text);
	free(err);
}

static void open_no_fd(void *arg)
{
	struct rlimit none = {0, 0}, was;
	struct rtmon *m;

	(void)arg;
	log_init("collector", 0);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &was), 0);
	none.rlim_max = was.rlim_max;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &none), 0);
	m = rtmon_open(on_route, NULL, 0);
	/* back, for what the exit does (the sanitizers' report) */
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &was), 0);
	if (m != NULL)
		fprintf(stderr, "rtmon_open: opened without a descriptor\n");
	rtmon_close(m);
}

static void test_open_fails(void **state)
{
	int status;
	char *err, *text;

	(void)state;
	err = test_child_stderr(open_no_fd, NULL, &status);
	test_assert_exit(status, 0);
	text = test_strip_stamps(err);
	assert_string_equal(text, "collector: rtmon_open: netlink socket: Too many open files\n");
	free(text);
	free(err);
}

int main(void)
{
	static struct fixture fx;
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_names),
	    cmocka_unit_test_prestate_setup_teardown(test_add_replace_append_delete, NULL, teardown,
						     &fx),
	    cmocka_unit_test_prestate_setup_teardown(test_dump, NULL, teardown, &fx),
	    cmocka_unit_test_prestate_setup_teardown(test_multipath, NULL, teardown, &fx),
	    cmocka_unit_test_prestate_setup_teardown(test_nexthop_object, NULL, teardown, &fx),
	    cmocka_unit_test_prestate_setup_teardown(test_left_out, NULL, teardown, &fx),
	    cmocka_unit_test_prestate_setup_teardown(test_ipv6, NULL, teardown, &fx),
	    cmocka_unit_test_prestate_setup_teardown(test_overrun, NULL, teardown, &fx),
	    cmocka_unit_test_prestate_setup_teardown(test_errors, NULL, teardown, &fx),
	    cmocka_unit_test(test_open_fails),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
