/*
 * Two hosts' clocks compared (lib/clocksync.c) on synthetic time stamps: a
 * host whose clock is ahead or behind by a known offset, probes with
 * symmetric and asymmetric paths, queued probes, broken ones; the offset
 * found within its stated uncertainty of the true one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "clocksync.h"

#define MS 1000000LL
#define US 1000LL

/* probe: sent at t (the reference's clock), there after out ns, answered
 * hold ns later, back after back ns, by a host whose clock reads offset
 * more than the reference's */
static struct clocksync_probe probe(int64_t t, int64_t offset, int64_t out, int64_t hold,
				    int64_t back)
{
	struct clocksync_probe p = {.t1 = t};

	p.t2 = t + out + offset;
	p.t3 = p.t2 + hold;
	p.t4 = t + out + hold + back;
	return p;
}

/* symmetric paths: the offset exactly, ahead or behind */
static void test_symmetric(void **state)
{
	static const int64_t offsets[] = {0, 2500 * US, -37 * MS, 1700000000LL * 1000000000LL};
	int64_t off, unc;

	(void)state;
	for (size_t i = 0; i < sizeof(offsets) / sizeof(offsets[0]); i++) {
		struct clocksync_probe p = probe(1000 * MS, offsets[i], 40 * US, 5 * US, 40 * US);

		assert_int_equal(clocksync_offset_ns(&p), offsets[i]);
		assert_int_equal(clocksync_rtt_ns(&p), 80 * US);
		assert_int_equal(clocksync_estimate(&p, 1, &off, &unc), 0);
		assert_int_equal(off, offsets[i]);
		assert_int_equal(unc, 40 * US);
	}
}

/* the smallest round trip wins; an asymmetric path errs by half the
 * difference of its ways, within the uncertainty */
static void test_best_of_n(void **state)
{
	const int64_t offset = 2500 * US;
	struct clocksync_probe p[4];
	int64_t off, unc;

	(void)state;
	p[0] = probe(0, offset, 300 * US, 5 * US, 900 * US); /* queued */
	p[1] = probe(10 * MS, offset, 100 * US, 5 * US, 60 * US);
	p[2] = probe(20 * MS, offset, 2 * MS, 5 * US, 50 * US); /* queued one way */
	p[3] = probe(30 * MS, offset, 500 * US, 5 * US, 500 * US);
	assert_int_equal(clocksync_estimate(p, 4, &off, &unc), 0);
	/* p[1]: round trip 160 us, out 100 back 60: 20 us off the truth */
	assert_int_equal(unc, 80 * US);
	assert_int_equal(off, offset + 20 * US);
	assert_true(off - offset <= unc && offset - off <= unc);
	/* a queued probe alone errs by far more, but within its own
	 * uncertainty still */
	assert_int_equal(clocksync_estimate(&p[2], 1, &off, &unc), 0);
	assert_int_equal(off, offset + (2 * MS - 50 * US) / 2);
	assert_true(off - offset <= unc);
}

/* a probe whose time stamps cannot be (answered before received, back
 * before sent) is skipped; none usable: -1 */
static void test_broken(void **state)
{
	struct clocksync_probe p[2] = {{.t1 = 100, .t2 = 50, .t3 = 40, .t4 = 200},
				       {.t1 = 100, .t2 = 150, .t3 = 160, .t4 = 90}};
	int64_t off = 7, unc = 7;

	(void)state;
	assert_int_equal(clocksync_estimate(p, 2, &off, &unc), -1);
	assert_int_equal(off, 7);
	assert_int_equal(clocksync_estimate(p, 0, &off, &unc), -1);
	p[1] = probe(0, -5 * MS, 10 * US, 1 * US, 10 * US);
	assert_int_equal(clocksync_estimate(p, 2, &off, &unc), 0);
	assert_int_equal(off, -5 * MS);
	assert_int_equal(unc, 10 * US);
}

/* the verdict's share: 0.4 ms on a 0.3 s clock is within 10 %, 40 ms is
 * not */
static void test_too_uncertain(void **state)
{
	(void)state;
	assert_false(clocksync_too_uncertain(400 * US, 300 * MS, 0.1));
	assert_true(clocksync_too_uncertain(40 * MS, 300 * MS, 0.1));
	assert_true(clocksync_too_uncertain(40 * MS, -300 * MS, 0.1));
	assert_false(clocksync_too_uncertain(30 * MS, 300 * MS, 0.1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_symmetric),
	    cmocka_unit_test(test_best_of_n),
	    cmocka_unit_test(test_broken),
	    cmocka_unit_test(test_too_uncertain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
