/* sited's pure parts: building a reply, and the address it leaves from. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <arpa/inet.h>
#include <cmocka.h>

#include "agents/sited/serve.h"

static void test_reply_echoes_request(void **state)
{
	struct wire_msg req = {.type = WIRE_REQUEST,
			       .flags = 0,
			       .client_id = 77,
			       .seq = 123456,
			       .sent_ns = 1700000000000000001ULL};
	uint8_t in[WIRE_LEN], out[WIRE_LEN];
	struct wire_msg got;

	(void)state;
	wire_encode(&req, in, sizeof(in));
	assert_int_equal(sited_reply_build(in, sizeof(in), "site-a", out, sizeof(out)), WIRE_LEN);
	assert_int_equal(wire_decode(out, sizeof(out), &got), 0);
	assert_int_equal(got.type, WIRE_REPLY);
	assert_int_equal(got.client_id, 77);
	assert_int_equal(got.seq, 123456);
	assert_true(got.sent_ns == 1700000000000000001ULL);
	assert_string_equal(got.site, "site-a");
}

static void test_reply_site_of_sixteen(void **state)
{
	struct wire_msg req = {.type = WIRE_REQUEST, .seq = 1};
	uint8_t in[WIRE_LEN], out[WIRE_LEN];
	struct wire_msg got;

	(void)state;
	strcpy(req.site, "junk"); /* whatever a request carries, the reply names us */
	wire_encode(&req, in, sizeof(in));
	assert_int_equal(sited_reply_build(in, sizeof(in), "0123456789abcdef", out, sizeof(out)),
			 WIRE_LEN);
	wire_decode(out, sizeof(out), &got);
	assert_string_equal(got.site, "0123456789abcdef");
}

static void test_reply_rejects(void **state)
{
	struct wire_msg m = {.type = WIRE_REPLY, .seq = 1};
	uint8_t in[WIRE_LEN], out[WIRE_LEN];

	(void)state;
	wire_encode(&m, in, sizeof(in));
	/* a reply is never answered: two sites must not ping-pong */
	assert_int_equal(sited_reply_build(in, sizeof(in), "a", out, sizeof(out)), -1);
	m.type = WIRE_REQUEST;
	wire_encode(&m, in, sizeof(in));
	assert_int_equal(sited_reply_build(in, WIRE_LEN - 1, "a", out, sizeof(out)), -1);
	assert_int_equal(sited_reply_build((const uint8_t *)"hello", 5, "a", out, sizeof(out)), -1);
	assert_int_equal(sited_reply_build(in, sizeof(in), "a", out, WIRE_LEN - 1), -1);
}

static struct in_pktinfo pktinfo(const char *dst, const char *local)
{
	struct in_pktinfo pi = {.ipi_ifindex = 3};

	inet_pton(AF_INET, dst, &pi.ipi_addr);
	inet_pton(AF_INET, local, &pi.ipi_spec_dst);
	return pi;
}

static void test_reply_source(void **state)
{
	struct in_pktinfo pi;
	char buf[INET_ADDRSTRLEN];
	struct in_addr a;

	(void)state;
	/* anycast on lo, arriving on a veth whose address is .2: reply from anycast */
	pi = pktinfo("198.19.200.1", "198.18.200.2");
	a = sited_reply_source(&pi);
	assert_string_equal(inet_ntop(AF_INET, &a, buf, sizeof(buf)), "198.19.200.1");
	/* broadcast and multicast cannot be a source: the local address is */
	pi = pktinfo("255.255.255.255", "198.18.200.2");
	a = sited_reply_source(&pi);
	assert_string_equal(inet_ntop(AF_INET, &a, buf, sizeof(buf)), "198.18.200.2");
	pi = pktinfo("239.1.2.3", "198.18.200.2");
	a = sited_reply_source(&pi);
	assert_string_equal(inet_ntop(AF_INET, &a, buf, sizeof(buf)), "198.18.200.2");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reply_echoes_request),
	    cmocka_unit_test(test_reply_site_of_sixteen),
	    cmocka_unit_test(test_reply_rejects),
	    cmocka_unit_test(test_reply_source),
	};

	return cmocka_run_group_tests_name("sited", tests, NULL, NULL);
}
