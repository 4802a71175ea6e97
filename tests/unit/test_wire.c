/* lib/wire.c: the request wire format, byte for byte, and what it rejects. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "wire.h"

static const struct wire_msg sample = {
    .type = WIRE_REPLY,
    .flags = 0x0102,
    .client_id = 0x0a0b0c0d,
    .seq = 0x1112131415161718ULL,
    .sent_ns = 0x2122232425262728ULL,
    .site = "site-a",
};

static void test_encode_layout(void **state)
{
	/* clang-format off */
	static const uint8_t want[WIRE_LEN] = {
		'S', 'L', 'R', 'Q', 1, 2, 0x01, 0x02,                  /* magic version type flags */
		0x0a, 0x0b, 0x0c, 0x0d, 0, 0, 0, 0,                    /* client id, reserved */
		0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18,        /* seq */
		0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28,        /* send time */
		's', 'i', 't', 'e', '-', 'a', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* site */
	};
	/* clang-format on */
	uint8_t buf[64];

	(void)state;
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(wire_encode(&sample, buf, sizeof(buf)), WIRE_LEN);
	assert_memory_equal(buf, want, WIRE_LEN);
	assert_int_equal(buf[WIRE_LEN], 0xee); /* nothing written past the message */
}

static void test_round_trip(void **state)
{
	uint8_t buf[WIRE_LEN];
	struct wire_msg got;

	(void)state;
	assert_int_equal(wire_encode(&sample, buf, sizeof(buf)), WIRE_LEN);
	assert_int_equal(wire_decode(buf, sizeof(buf), &got), 0);
	assert_int_equal(got.type, WIRE_REPLY);
	assert_int_equal(got.flags, 0x0102);
	assert_int_equal(got.client_id, 0x0a0b0c0d);
	assert_true(got.seq == 0x1112131415161718ULL);
	assert_true(got.sent_ns == 0x2122232425262728ULL);
	assert_string_equal(got.site, "site-a");
}

static void test_round_trip_extremes(void **state)
{
	struct wire_msg m = {.type = WIRE_REQUEST,
			     .client_id = UINT32_MAX,
			     .seq = UINT64_MAX,
			     .sent_ns = UINT64_MAX};
	uint8_t buf[WIRE_LEN];
	struct wire_msg got;

	(void)state;
	memcpy(m.site, "0123456789abcdef", WIRE_SITE_LEN); /* exactly 16: no NUL on the wire */
	assert_int_equal(wire_encode(&m, buf, sizeof(buf)), WIRE_LEN);
	assert_int_equal(wire_decode(buf, sizeof(buf), &got), 0);
	assert_int_equal(got.type, WIRE_REQUEST);
	assert_true(got.client_id == UINT32_MAX);
	assert_true(got.seq == UINT64_MAX);
	assert_true(got.sent_ns == UINT64_MAX);
	assert_string_equal(got.site, "0123456789abcdef");
}

static void test_decode_longer_datagram(void **state)
{
	uint8_t buf[WIRE_LEN + 20];
	struct wire_msg got;

	(void)state;
	memset(buf, 0x55, sizeof(buf));
	wire_encode(&sample, buf, sizeof(buf));
	assert_int_equal(wire_decode(buf, sizeof(buf), &got), 0);
	assert_true(got.seq == sample.seq);
}

static void test_decode_site_without_nul(void **state)
{
	uint8_t buf[WIRE_LEN];
	struct wire_msg got;

	(void)state;
	wire_encode(&sample, buf, sizeof(buf));
	memset(buf + 32, 'x', WIRE_SITE_LEN);
	assert_int_equal(wire_decode(buf, sizeof(buf), &got), 0);
	assert_int_equal(strlen(got.site), WIRE_SITE_LEN);
}

static void test_decode_rejects(void **state)
{
	uint8_t good[WIRE_LEN], buf[WIRE_LEN];
	struct wire_msg got;

	(void)state;
	wire_encode(&sample, good, sizeof(good));

	assert_int_equal(wire_decode(good, WIRE_LEN - 1, &got), -1); /* short */
	assert_int_equal(wire_decode(good, 0, &got), -1);

	memcpy(buf, good, WIRE_LEN);
	buf[0] = 'X'; /* magic */
	assert_int_equal(wire_decode(buf, WIRE_LEN, &got), -1);

	memcpy(buf, good, WIRE_LEN);
	buf[4] = 2; /* version */
	assert_int_equal(wire_decode(buf, WIRE_LEN, &got), -1);

	memcpy(buf, good, WIRE_LEN);
	buf[5] = 0; /* type */
	assert_int_equal(wire_decode(buf, WIRE_LEN, &got), -1);
	buf[5] = 3;
	assert_int_equal(wire_decode(buf, WIRE_LEN, &got), -1);
}

static void test_encode_rejects(void **state)
{
	struct wire_msg m = sample;
	uint8_t buf[WIRE_LEN];

	(void)state;
	assert_int_equal(wire_encode(&sample, buf, WIRE_LEN - 1), -1); /* no room */
	memset(m.site, 'x', sizeof(m.site));			       /* 17 chars, no NUL */
	assert_int_equal(wire_encode(&m, buf, sizeof(buf)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_encode_layout),
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_round_trip_extremes),
	    cmocka_unit_test(test_decode_longer_datagram),
	    cmocka_unit_test(test_decode_site_without_nul),
	    cmocka_unit_test(test_decode_rejects),
	    cmocka_unit_test(test_encode_rejects),
	};

	return cmocka_run_group_tests_name("wire", tests, NULL, NULL);
}
