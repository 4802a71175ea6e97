/* The prober's pure parts: the up/down verdict, reply checks, router syntax. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "addr.h"
#include "announce.h"
#include "agents/prober/fsm.h"
#include "agents/prober/probe.h"
#include "agents/prober/routers.h"

/* feed: a string of results, '+' success '-' failure; returns the verdicts
 * as a string: '.' no change, 'A' became alive, 'D' became dead. */
static const char *feed(struct prober_fsm *f, const char *results)
{
	static char out[64];
	size_t i;

	for (i = 0; results[i] && i < sizeof(out) - 1; i++) {
		enum prober_verdict v = prober_fsm_feed(f, results[i] == '+');
		out[i] = v == PROBER_BECAME_ALIVE ? 'A' : v == PROBER_BECAME_DEAD ? 'D' : '.';
	}
	out[i] = '\0';
	return out;
}

static void test_fsm_starts_unknown(void **state)
{
	struct prober_fsm f;

	(void)state;
	prober_fsm_init(&f, 3, 3);
	assert_int_equal(f.state, PROBER_UNKNOWN);
	/* nothing is announced before UP successes in a row */
	assert_string_equal(feed(&f, "++-++"), ".....");
	assert_int_equal(f.state, PROBER_UNKNOWN);
	assert_string_equal(feed(&f, "+"), "A");
	assert_int_equal(f.state, PROBER_ALIVE);
}

static void test_fsm_down_after_consecutive_failures(void **state)
{
	struct prober_fsm f;

	(void)state;
	prober_fsm_init(&f, 3, 3);
	assert_string_equal(feed(&f, "+++"), "..A");
	/* isolated failures do not kill: the run resets on success */
	assert_string_equal(feed(&f, "--+--+-+"), "........");
	assert_int_equal(f.state, PROBER_ALIVE);
	/* the third failure in a row does, once */
	assert_string_equal(feed(&f, "-----"), "..D..");
	assert_int_equal(f.state, PROBER_DEAD);
	assert_int_equal(f.failures, 5);
}

static void test_fsm_recovery_needs_up_successes(void **state)
{
	struct prober_fsm f;

	(void)state;
	prober_fsm_init(&f, 2, 4);
	assert_string_equal(feed(&f, "++++--"), "...A.D");
	assert_string_equal(feed(&f, "+++-++++"), ".......A");
	assert_int_equal(f.successes, 4);
	assert_int_equal(f.failures, 0);
}

static void test_fsm_dead_from_unknown(void **state)
{
	struct prober_fsm f;

	(void)state;
	prober_fsm_init(&f, 3, 3);
	/* a service that never came up is declared dead (and withdrawn) */
	assert_string_equal(feed(&f, "---"), "..D");
}

static void test_fsm_thresholds_of_one(void **state)
{
	struct prober_fsm f;

	(void)state;
	prober_fsm_init(&f, 1, 1);
	assert_string_equal(feed(&f, "+-+--++"), "ADAD.A.");
	prober_fsm_init(&f, 0, 0); /* 0 means 1 rather than never */
	assert_string_equal(feed(&f, "+-"), "AD");
}

static void test_state_names(void **state)
{
	(void)state;
	assert_string_equal(prober_state_name(PROBER_UNKNOWN), "unknown");
	assert_string_equal(prober_state_name(PROBER_ALIVE), "alive");
	assert_string_equal(prober_state_name(PROBER_DEAD), "dead");
}

static size_t reply(uint8_t *buf, uint8_t type, uint32_t client, uint64_t seq, const char *site)
{
	struct wire_msg m = {.type = type, .client_id = client, .seq = seq};

	strcpy(m.site, site);
	return (size_t)wire_encode(&m, buf, WIRE_LEN);
}

static void test_reply_check(void **state)
{
	uint8_t buf[WIRE_LEN];
	size_t n;

	(void)state;
	n = reply(buf, WIRE_REPLY, PROBER_CLIENT_ID, 9, "a");
	assert_int_equal(prober_reply_check(buf, n, 9, "a"), PROBER_REPLY_OK);
	assert_int_equal(prober_reply_check(buf, n, 10, "a"), PROBER_REPLY_STALE);
	assert_int_equal(prober_reply_check(buf, n, 9, "ab"), PROBER_REPLY_WRONG_SITE);
	assert_int_equal(prober_reply_check(buf, n - 1, 9, "a"), PROBER_REPLY_BAD);
	n = reply(buf, WIRE_REQUEST, PROBER_CLIENT_ID, 9, "a"); /* our own request echoed */
	assert_int_equal(prober_reply_check(buf, n, 9, "a"), PROBER_REPLY_BAD);
	n = reply(buf, WIRE_REPLY, PROBER_CLIENT_ID + 1, 9, "a"); /* a client's reply */
	assert_int_equal(prober_reply_check(buf, n, 9, "a"), PROBER_REPLY_BAD);
}

static void test_router_parse(void **state)
{
	struct sockaddr_in sin;

	(void)state;
	assert_int_equal(parse_addr_port("198.18.0.1", ANNOUNCE_PORT, &sin), 0);
	assert_int_equal(ntohs(sin.sin_port), ANNOUNCE_PORT);
	assert_int_equal(ntohl(sin.sin_addr.s_addr), 0xc6120001);
	assert_int_equal(parse_addr_port("198.18.0.1:9000", ANNOUNCE_PORT, &sin), 0);
	assert_int_equal(ntohs(sin.sin_port), 9000);
	assert_int_equal(parse_addr_port("", ANNOUNCE_PORT, &sin), -1);
	assert_int_equal(parse_addr_port(":7179", ANNOUNCE_PORT, &sin), -1);
	assert_int_equal(parse_addr_port("198.18.0.1:", ANNOUNCE_PORT, &sin), -1);
	assert_int_equal(parse_addr_port("198.18.0.1:0", ANNOUNCE_PORT, &sin), -1);
	assert_int_equal(parse_addr_port("198.18.0.1:65536", ANNOUNCE_PORT, &sin), -1);
	assert_int_equal(parse_addr_port("198.18.0.1:-5", ANNOUNCE_PORT, &sin), -1);
	assert_int_equal(parse_addr_port("198.18.0.1:80x", ANNOUNCE_PORT, &sin), -1);
	assert_int_equal(parse_addr_port("router1", ANNOUNCE_PORT, &sin), -1);
}

static void test_routers_add(void **state)
{
	struct prober_routers r = {.fd = -1, .fd6 = -1};
	struct sockaddr_storage ss, ss6;

	(void)state;
	assert_int_equal(addr_parse_sockaddr("198.18.0.1", ANNOUNCE_PORT, &ss), 0);
	assert_int_equal(addr_parse_sockaddr("[2001:2:0:3::1]:7179", ANNOUNCE_PORT, &ss6), 0);
	assert_int_equal(prober_routers_add(&r, &ss6), 0);
	for (int i = 1; i < PROBER_MAX_ROUTERS; i++)
		assert_int_equal(prober_routers_add(&r, &ss), 0);
	assert_int_equal(prober_routers_add(&r, &ss), -1);
	assert_string_equal(r.name[0], "[2001:2:0:3::1]:7179");
	assert_string_equal(r.name[1], "198.18.0.1:7179");
}

/* routers_listener: a UDP socket on ADDR (127.0.0.1 or ::1), its address
 * in *ss */
static int routers_listener(int family, struct sockaddr_storage *ss)
{
	socklen_t len = sizeof(*ss);
	int fd = socket(family, SOCK_DGRAM, 0);

	assert_true(fd >= 0);
	memset(ss, 0, sizeof(*ss));
	ss->ss_family = (sa_family_t)family;
	if (family == AF_INET)
		((struct sockaddr_in *)ss)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	else
		((struct sockaddr_in6 *)ss)->sin6_addr = in6addr_loopback;
	if (bind(fd, (struct sockaddr *)ss,
		 family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6)) != 0)
		return -1;
	assert_int_equal(getsockname(fd, (struct sockaddr *)ss, &len), 0);
	return fd;
}

/* a prober's routers of both families: one socket each, every datagram
 * over its router's family, from an address of that family */
static void test_routers_send_both_families(void **state)
{
	struct prober_routers r = {.fd = -1, .fd6 = -1};
	struct sockaddr_storage l4, l6, from;
	struct announce_msg m = {.metric = 10, .prefixlen = 128};
	char buf[ANNOUNCE_MAX];
	int fd4 = routers_listener(AF_INET, &l4), fd6 = routers_listener(AF_INET6, &l6);
	socklen_t flen = sizeof(from);
	ssize_t n;

	(void)state;
	if (fd6 == -1)
		skip(); /* no IPv6 on this host's loopback */
	strcpy(m.site, "a");
	inet_pton(AF_INET6, "2001:2:0:ff00::1", &m.prefix);
	assert_int_equal(prober_routers_add(&r, &l6), 0);
	assert_int_equal(prober_routers_add(&r, &l4), 0);
	assert_int_equal(prober_routers_open(&r), 0);
	assert_true(r.fd >= 0 && r.fd6 >= 0 && r.fd != r.fd6);
	assert_int_equal(prober_routers_send(&r, 0, &m), 0);
	n = recvfrom(fd6, buf, sizeof(buf) - 1, 0, (struct sockaddr *)&from, &flen);
	assert_int_equal(n, 35);
	buf[n] = '\0';
	assert_string_equal(buf, "ANNOUNCE a 2001:2:0:ff00::1/128 10\n");
	assert_int_equal(from.ss_family, AF_INET6);
	assert_int_equal(prober_routers_send(&r, 1, &m), 0);
	flen = sizeof(from);
	n = recvfrom(fd4, buf, sizeof(buf) - 1, 0, (struct sockaddr *)&from, &flen);
	assert_int_equal(n, 35); /* the socket does not care; prober -R refuses */
	assert_int_equal(from.ss_family, AF_INET);
	prober_routers_close(&r);
	assert_int_equal(r.fd, -1);
	assert_int_equal(r.fd6, -1);
	close(fd4);
	close(fd6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fsm_starts_unknown),
	    cmocka_unit_test(test_fsm_down_after_consecutive_failures),
	    cmocka_unit_test(test_fsm_recovery_needs_up_successes),
	    cmocka_unit_test(test_fsm_dead_from_unknown),
	    cmocka_unit_test(test_fsm_thresholds_of_one),
	    cmocka_unit_test(test_state_names),
	    cmocka_unit_test(test_reply_check),
	    cmocka_unit_test(test_router_parse),
	    cmocka_unit_test(test_routers_add),
	    cmocka_unit_test(test_routers_send_both_families),
	};

	return cmocka_run_group_tests_name("prober", tests, NULL, NULL);
}
