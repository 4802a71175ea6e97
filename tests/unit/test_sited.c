/* sited's pure parts: building a reply (the address it leaves from is
 * lib/udpbatch's rule: tests/unit/test_udpbatch.c). */
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
	assert_int_equal(sited_reply_build(in, sizeof(in), "site-a", 0, out, sizeof(out)),
			 WIRE_LEN);
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
	assert_int_equal(sited_reply_build(in, sizeof(in), "0123456789abcdef", 0, out, sizeof(out)),
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
	assert_int_equal(sited_reply_build(in, sizeof(in), "a", 0, out, sizeof(out)), -1);
	m.type = WIRE_REQUEST;
	wire_encode(&m, in, sizeof(in));
	assert_int_equal(sited_reply_build(in, WIRE_LEN - 1, "a", 0, out, sizeof(out)), -1);
	assert_int_equal(sited_reply_build((const uint8_t *)"hello", 5, "a", 0, out, sizeof(out)),
			 -1);
	assert_int_equal(sited_reply_build(in, sizeof(in), "a", 0, out, WIRE_LEN - 1), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reply_echoes_request),
	    cmocka_unit_test(test_reply_site_of_sixteen),
	    cmocka_unit_test(test_reply_rejects),
	};

	return cmocka_run_group_tests_name("sited", tests, NULL, NULL);
}
