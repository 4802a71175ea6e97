/*
 * The live status line of a run (lab/progress.h): its formatting in every
 * phase, the client_progress events it reads, and the share "to the dead
 * site" it computes from two of them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "lab/progress.h"

#define S 1000000000LL

static const char *format(const struct progress_view *v)
{
	static char buf[256];
	int n = progress_format(buf, sizeof(buf), v);

	assert_int_equal(n, (int)strlen(buf));
	return buf;
}

static void test_format_phases(void **state)
{
	struct progress_view v = {
	    .phase = PROGRESS_WARMUP,
	    .elapsed_ns = 1234 * 1000000LL,
	    .total_ns = 10 * S,
	    .fail_at_ns = 3 * S,
	    .sent = -1,
	    .dead = "a",
	};

	(void)state;
	assert_string_equal(format(&v), "[warm-up] 1.2 s: waiting for captures, routes and DNS "
					"servers");
	v.phase = PROGRESS_TRAFFIC;
	v.elapsed_ns = 500 * 1000000LL;
	v.scheme[PROGRESS_ANYCAST].present = 1;
	v.scheme[PROGRESS_DNS].present = 1;
	assert_string_equal(format(&v), "[traffic] 0.5/10.0 s, failure at 3.0 s  no counts yet");
	v.elapsed_ns = 2100 * 1000000LL;
	v.sent = 5400;
	v.scheme[PROGRESS_ANYCAST].to_dead = 1480;
	v.scheme[PROGRESS_ANYCAST].resolved = 2000;
	v.scheme[PROGRESS_DNS].to_dead = 1500;
	v.scheme[PROGRESS_DNS].resolved = 2000;
	assert_string_equal(format(&v), "[traffic] 2.1/10.0 s, failure at 3.0 s  sent 5400  to a "
					"(last 1 s): anycast 74% dns 75%");
	v.phase = PROGRESS_OBSERVING;
	v.elapsed_ns = 6200 * 1000000LL;
	v.sent = 31200;
	v.scheme[PROGRESS_ANYCAST].to_dead = 0;
	v.scheme[PROGRESS_DNS].to_dead = 683;
	assert_string_equal(format(&v), "[observing] 6.2/10.0 s  sent 31200  to a (last 1 s): "
					"anycast 0% dns 34%");
	/* a scheme without a resolved request in the interval */
	v.scheme[PROGRESS_DNS].resolved = 0;
	v.phase = PROGRESS_DRAINING;
	v.elapsed_ns = 10300 * 1000000LL;
	assert_string_equal(format(&v), "[last replies] 10.3/10.0 s  sent 31200  to a (last 1 s): "
					"anycast 0% dns -");
}

static void test_format_label_and_one_scheme(void **state)
{
	struct progress_view v = {
	    .label = "ttl=30 2/4",
	    .phase = PROGRESS_OBSERVING,
	    .elapsed_ns = 4 * S,
	    .total_ns = 10 * S,
	    .sent = 4000,
	    .dead = "a",
	};

	(void)state;
	v.scheme[PROGRESS_ANYCAST].present = 1;
	v.scheme[PROGRESS_ANYCAST].to_dead = 1;
	v.scheme[PROGRESS_ANYCAST].resolved = 1000;
	assert_string_equal(format(&v), "ttl=30 2/4 [observing] 4.0/10.0 s  sent 4000  to a (last "
					"1 s): anycast 0%");
	/* no failing site: no share */
	v.dead = "";
	assert_string_equal(format(&v), "ttl=30 2/4 [observing] 4.0/10.0 s  sent 4000");
}

/* a buffer too small is cut, never overrun */
static void test_format_truncates(void **state)
{
	struct progress_view v = {
	    .phase = PROGRESS_OBSERVING, .total_ns = S, .sent = 1, .dead = "a"};
	char buf[16];

	(void)state;
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(progress_format(buf, sizeof(buf), &v), 15);
	assert_string_equal(buf, "[observing] 0.0");
	assert_int_equal(progress_format(buf, 0, &v), 0);
}

static void test_parse(void **state)
{
	struct progress_sample s;

	(void)state;
	assert_int_equal(
	    progress_parse("{\"t\": 1700000000000000000, \"node\": \"c1\", \"agent\": "
			   "\"client\", \"event\": \"client_progress\", \"client\": 1, "
			   "\"sent\": 2000, \"ok\": 1900, \"lost\": 50, \"errors\": 1, "
			   "\"sites\": {\"a\": 1400, \"b\": 500}}\n",
			   "a", &s),
	    0);
	assert_true(s.t_ns == 1700000000000000000LL);
	assert_true(s.sent == 2000 && s.ok == 1900 && s.lost == 50 && s.errors == 1);
	assert_true(s.dead == 1400);
	/* a dead site that never answered */
	assert_int_equal(
	    progress_parse("{\"t\": 5, \"event\": \"client_progress\", \"sent\": 1, "
			   "\"ok\": 1, \"lost\": 0, \"errors\": 0, \"sites\": {\"b\": 1}}",
			   "a", &s),
	    0);
	assert_true(s.dead == 0 && s.ok == 1);
	/* other events, other lines */
	assert_int_equal(
	    progress_parse("{\"t\": 5, \"event\": \"client_summary\", \"sent\": 1}", "a", &s), -1);
	assert_int_equal(progress_parse("{\"t\": 5, \"event\": \"client_pro", "a", &s), -1);
	assert_int_equal(progress_parse("{\"event\": \"client_progress\"}", "a", &s), -1);
	assert_int_equal(progress_parse("", "a", &s), -1);
}

static void test_share(void **state)
{
	struct progress_sample prev = {
	    .t_ns = 10 * S, .sent = 1000, .ok = 900, .lost = 10, .errors = 0, .dead = 600};
	struct progress_sample cur = {
	    .t_ns = 11 * S, .sent = 2000, .ok = 1500, .lost = 400, .errors = 10, .dead = 650};
	int64_t to_dead = 0, resolved = 0;

	(void)state;
	/* before t0 (or no t0 yet): only the dead site's replies */
	progress_share(&prev, &cur, 0, &to_dead, &resolved);
	assert_true(resolved == 600 + 390 + 10 && to_dead == 50);
	to_dead = resolved = 0;
	progress_share(&prev, &cur, 12 * S, &to_dead, &resolved);
	assert_true(resolved == 1000 && to_dead == 50);
	/* after t0, the timeouts went to the dead site too; the counts add up
	 * over flows */
	progress_share(&prev, &cur, 10500 * 1000000LL, &to_dead, &resolved);
	assert_true(resolved == 2000 && to_dead == 50 + 50 + 390);
	/* one sample only, or samples out of order: nothing */
	to_dead = resolved = 0;
	struct progress_sample none = {0};
	progress_share(&none, &cur, 0, &to_dead, &resolved);
	progress_share(&cur, &prev, 0, &to_dead, &resolved);
	assert_true(resolved == 0 && to_dead == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_format_phases),
	    cmocka_unit_test(test_format_label_and_one_scheme),
	    cmocka_unit_test(test_format_truncates),
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_share),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
