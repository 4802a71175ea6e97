/*
 * lib/timeutil: the one duration grammar (parse_duration_ns, parse_ttl).
 * What each grammar it replaced accepted keeps its meaning: the topology's
 * and resolverd's durations ("1.5s", "250ms", "2" in seconds, "1d") and
 * authd's TTLs ("1h30m", "1h30", "5M", seconds, at most 2^31 - 1).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "timeutil.h"

static int64_t dur(const char *s)
{
	int64_t ns = -7;

	return parse_duration_ns(s, &ns) == 0 ? ns : -1;
}

static long long ttl(const char *s)
{
	uint32_t t = 7;

	return parse_ttl(s, &t) == 0 ? (long long)t : -1;
}

static void test_durations(void **state)
{
	(void)state;
	assert_int_equal(dur("2"), 2 * NSEC_PER_SEC);
	assert_int_equal(dur("1.5s"), 1500 * NSEC_PER_MSEC);
	assert_int_equal(dur("250ms"), 250 * NSEC_PER_MSEC);
	assert_int_equal(dur("250us"), 250 * NSEC_PER_USEC);
	assert_int_equal(dur("7ns"), 7);
	assert_int_equal(dur("3m"), 180 * NSEC_PER_SEC);
	assert_int_equal(dur("1h30m"), 5400 * NSEC_PER_SEC);
	assert_int_equal(dur("1h30"), 3630 * NSEC_PER_SEC);
	assert_int_equal(dur("1.5d"), 129600 * NSEC_PER_SEC);
	assert_int_equal(dur("1w"), 604800 * NSEC_PER_SEC);
	assert_int_equal(dur(".5s"), 500 * NSEC_PER_MSEC);
	assert_int_equal(dur("5."), 5 * NSEC_PER_SEC);
	assert_int_equal(dur("0"), 0);
	assert_int_equal(dur("1MS"), NSEC_PER_MSEC);
	assert_int_equal(dur("0.0000000015s"), 2); /* to the nearest */
	assert_int_equal(dur("9223372036854775807ns"), INT64_MAX);
	assert_int_equal(dur("1e3"), 1000 * NSEC_PER_SEC);
	assert_int_equal(dur("2.5e-1s"), 250 * NSEC_PER_MSEC);
	assert_int_equal(dur("1e3ms"), NSEC_PER_SEC);
}

static void test_durations_refused(void **state)
{
	static const char *const bad[] = {
	    "",	       ".",	 "s",	 "-1s", "+1s",
	    " 1s",     "1s ",	 "0x10", "5x",	"1sec",
	    "1h1.5",   "1h 30m", "1e",	 "1e+", "9223372036854775808ns",
	    "107000d", "inf",	 "nan",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int64_t ns = -7;

		if (parse_duration_ns(bad[i], &ns) != -1)
			fail_msg("'%s' was taken as %lld ns", bad[i], (long long)ns);
	}
}

static void test_ttls(void **state)
{
	(void)state;
	assert_int_equal(ttl("30"), 30);
	assert_int_equal(ttl("1h30m"), 5400);
	assert_int_equal(ttl("1w1d1h1m1s"), 604800 + 86400 + 3600 + 60 + 1);
	assert_int_equal(ttl("5M"), 300);
	assert_int_equal(ttl("2147483647"), 2147483647LL);
	assert_int_equal(ttl("2147483648"), -1);
	assert_int_equal(ttl("1500ms"), -1); /* not whole seconds */
	assert_int_equal(ttl("5ms"), -1);
	assert_int_equal(ttl("5x"), -1);
	assert_int_equal(ttl(""), -1);
	assert_int_equal(ttl("h"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_durations),
	    cmocka_unit_test(test_durations_refused),
	    cmocka_unit_test(test_ttls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
