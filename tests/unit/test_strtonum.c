/*
 * lib/strtonum: OpenBSD's strtonum(3) with its error strings, and the one
 * difference kept from the checks it replaced ('-' refused when the
 * minimum is not negative, "-0" included).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "strtonum.h"

static const char *why(const char *s, long long min, long long max, long long *v)
{
	const char *errstr = "unset";

	*v = strtonum(s, min, max, &errstr);
	return errstr;
}

static void test_strtonum(void **state)
{
	long long v;

	(void)state;
	assert_null(why("53", 1, 65535, &v));
	assert_int_equal(v, 53);
	assert_null(why("4294967295", 0, UINT32_MAX, &v));
	assert_int_equal(v, 4294967295LL);
	assert_null(why("-5", -10, 10, &v));
	assert_int_equal(v, -5);
	assert_null(why("+7", 0, 10, &v));
	assert_int_equal(v, 7);
	assert_string_equal(why("0", 1, 65535, &v), "too small");
	assert_int_equal(v, 0);
	assert_string_equal(why("65536", 1, 65535, &v), "too large");
	assert_string_equal(why("99999999999999999999", 0, 10, &v), "too large");
	assert_string_equal(why("-99999999999999999999", -10, 10, &v), "too small");
	assert_string_equal(why("-1", 0, 10, &v), "invalid");
	assert_string_equal(why("-0", 0, 10, &v), "invalid");
	assert_string_equal(why(" -1", 0, 10, &v), "invalid");
	assert_string_equal(why("", 0, 10, &v), "invalid");
	assert_string_equal(why("5x", 0, 10, &v), "invalid");
	assert_string_equal(why("0x5", 0, 10, &v), "invalid");
	assert_string_equal(why("5", 10, 0, &v), "invalid");
	assert_int_equal(strtonum("8", 0, 10, NULL), 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_strtonum),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
