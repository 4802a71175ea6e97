/* lib/edns.h: EDNS payload sizes below 512 raised to 512 in raw messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "edns.h"

/* clang-format off */
/* www.lab.test. A IN, one OPT of payload 1 and no option in the additional
 * section, one in the answer section (not an EDNS record there: kept) */
static const uint8_t query[] = {
	0, 7, 0x01, 0, 0, 1, 0, 1, 0, 0, 0, 1,
	3, 'w', 'w', 'w', 3, 'l', 'a', 'b', 4, 't', 'e', 's', 't', 0, 0, 1, 0, 1,
	0xc0, 0x0c, 0, 41, 0, 1, 0, 0, 0, 0, 0, 0,	/* answer: "OPT" class 1 */
	0, 0, 41, 0, 1, 0, 0, 0, 0, 0, 4, 0, 10, 0, 0,	/* OPT 1, an empty cookie */
};
/* clang-format on */
#define AR_CLASS (sizeof(query) - 12)
#define AN_CLASS (12 + 18 + 4)

static void test_floor(void **state)
{
	uint8_t w[sizeof(query)];

	(void)state;
	memcpy(w, query, sizeof(w));
	assert_int_equal(edns_payload_floor(w, sizeof(w)), 1);
	assert_int_equal(w[AR_CLASS] << 8 | w[AR_CLASS + 1], 512);
	assert_int_equal(w[AN_CLASS] << 8 | w[AN_CLASS + 1], 1);
	assert_memory_equal(w, query, AR_CLASS);
	/* 512 and above stay; a second pass changes nothing */
	assert_int_equal(edns_payload_floor(w, sizeof(w)), 0);
	w[AR_CLASS] = 0x10;
	assert_int_equal(edns_payload_floor(w, sizeof(w)), 0);
	assert_int_equal(w[AR_CLASS], 0x10);
}

static void test_not_walkable(void **state)
{
	uint8_t w[sizeof(query)];

	(void)state;
	/* cut anywhere: a record or a name runs past the end */
	for (size_t len = 0; len < sizeof(query); len++) {
		memcpy(w, query, sizeof(w));
		assert_int_equal(edns_payload_floor(w, len), -1);
	}
	/* a label type 0x40 or 0x80 */
	memcpy(w, query, sizeof(w));
	w[16] = 0x43;
	assert_int_equal(edns_payload_floor(w, sizeof(w)), -1);
	w[16] = 0x83;
	assert_int_equal(edns_payload_floor(w, sizeof(w)), -1);
	/* an RDLENGTH past the end */
	memcpy(w, query, sizeof(w));
	w[sizeof(w) - 5] = 5;
	assert_int_equal(edns_payload_floor(w, sizeof(w)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_floor),
	    cmocka_unit_test(test_not_walkable),
	};

	return cmocka_run_group_tests_name("edns", tests, NULL, NULL);
}
