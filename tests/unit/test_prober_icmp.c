/*
 * The prober's icmp check (agents/prober/probe_icmp.c): the echo request it
 * builds (RFC 792, its checksum RFC 1071's), the echo replies it takes for
 * the probe in flight, an earlier one or someone else's, ICMPv6's too
 * (RFC 4443); and, as root (a raw socket), probes of 127.0.0.1 and ::1
 * answered by the kernel, whatever runs there.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <cmocka.h>
#include <poll.h>

#include "agents/prober/probe.h"
#include "timeutil.h"

/* reply: the IPv4 packet of an echo reply to buf's request (type 0, its
 * checksum set again), as a raw socket reads it */
static size_t reply(uint8_t *pkt, const uint8_t *req, size_t len, uint8_t type)
{
	uint16_t sum;

	memset(pkt, 0, 20);
	pkt[0] = 0x45;
	pkt[9] = 1; /* ICMP */
	memcpy(pkt + 20, req, len);
	pkt[20] = type;
	pkt[22] = pkt[23] = 0;
	sum = prober_icmp_sum(pkt + 20, len);
	pkt[22] = (uint8_t)(sum >> 8);
	pkt[23] = (uint8_t)sum;
	return 20 + len;
}

static void test_echo_and_check(void **state)
{
	uint8_t req[64], pkt[128];
	size_t n, m;

	(void)state;
	assert_int_equal(prober_icmp_echo(req, 8, 7, 1, 0), 0);
	n = prober_icmp_echo(req, sizeof(req), 0x1234, 0x0102030405060708ull, 0);
	assert_int_equal(n, 16);
	assert_int_equal(req[0], 8); /* echo request */
	assert_int_equal(req[4] << 8 | req[5], 0x1234);
	/* a packet with its checksum in sums to 0 */
	assert_int_equal(prober_icmp_sum(req, n), 0);
	m = reply(pkt, req, n, 0);
	assert_int_equal(prober_icmp_check(pkt, m, 0x1234, 0x0102030405060708ull), PROBER_REPLY_OK);
	assert_int_equal(prober_icmp_check(pkt, m, 0x1234, 0x0102030405060709ull),
			 PROBER_REPLY_STALE);
	/* another prober's id, a request (not a reply), a short or non-ICMP packet */
	assert_int_equal(prober_icmp_check(pkt, m, 0x1235, 0x0102030405060708ull),
			 PROBER_REPLY_BAD);
	m = reply(pkt, req, n, 8);
	assert_int_equal(prober_icmp_check(pkt, m, 0x1234, 0x0102030405060708ull),
			 PROBER_REPLY_BAD);
	assert_int_equal(prober_icmp_check(pkt, 30, 0x1234, 1), PROBER_REPLY_BAD);
	pkt[9] = 6;
	assert_int_equal(prober_icmp_check(pkt, m, 0x1234, 0x0102030405060708ull),
			 PROBER_REPLY_BAD);
}

/* ICMPv6 (RFC 4443): the request is type 128, its checksum left to the
 * kernel (a raw ICMPv6 socket sets it over the pseudo-header); a reply is
 * type 129, read without an IPv6 header */
static void test_echo6_and_check(void **state)
{
	uint8_t req[64], msg[64];
	size_t n;

	(void)state;
	n = prober_icmp_echo(req, sizeof(req), 0x1234, 0x0102030405060708ull, 1);
	assert_int_equal(n, 16);
	assert_int_equal(req[0], 128);
	assert_int_equal(req[2] | req[3], 0);
	memcpy(msg, req, n);
	msg[0] = 129;
	assert_int_equal(prober_icmp6_check(msg, n, 0x1234, 0x0102030405060708ull),
			 PROBER_REPLY_OK);
	assert_int_equal(prober_icmp6_check(msg, n, 0x1234, 0x0102030405060709ull),
			 PROBER_REPLY_STALE);
	assert_int_equal(prober_icmp6_check(msg, n, 0x1235, 0x0102030405060708ull),
			 PROBER_REPLY_BAD);
	assert_int_equal(prober_icmp6_check(msg, n - 1, 0x1234, 0x0102030405060708ull),
			 PROBER_REPLY_BAD);
	/* the request itself, or an IPv4 reply's type */
	assert_int_equal(prober_icmp6_check(req, n, 0x1234, 0x0102030405060708ull),
			 PROBER_REPLY_BAD);
	msg[0] = 0;
	assert_int_equal(prober_icmp6_check(msg, n, 0x1234, 0x0102030405060708ull),
			 PROBER_REPLY_BAD);
}

/* test_loopback_of: a live probe of lo, an address of the host's own:
 * answered by its kernel, twice, each by its own sequence */
static void test_loopback_of(const struct sockaddr *lo)
{
	struct prober_probe p;

	assert_int_equal(prober_check_icmp.open(&p, lo, "a"), 0);
	for (int k = 0; k < 2; k++) {
		struct pollfd pf = {.fd = p.fd, .events = POLLIN};
		int r;

		assert_int_equal(prober_check_icmp.send(&p, 500 * 1000000LL), 0);
		do {
			assert_true(poll(&pf, 1, 500) == 1);
			r = prober_check_icmp.read(&p);
		} while (r == -1 && errno == EAGAIN);
		assert_int_equal(r, PROBER_REPLY_OK);
	}
	prober_check_icmp.close(&p);
}

/* live probes of 127.0.0.1 and of ::1 (ICMPv6) */
static void test_loopback(void **state)
{
	struct sockaddr_in lo = {.sin_family = AF_INET, .sin_port = htons(7000)};
	struct sockaddr_in6 lo6 = {
	    .sin6_family = AF_INET6, .sin6_port = htons(7000), .sin6_addr = IN6ADDR_LOOPBACK_INIT};

	(void)state;
	lo.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (geteuid() != 0) {
		print_message("not root: no raw ICMP socket, the live probe skipped\n");
		skip();
	}
	test_loopback_of((const struct sockaddr *)&lo);
	test_loopback_of((const struct sockaddr *)&lo6);
	assert_ptr_equal(prober_check_find("icmp"), &prober_check_icmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_echo_and_check),
	    cmocka_unit_test(test_echo6_and_check),
	    cmocka_unit_test(test_loopback),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
