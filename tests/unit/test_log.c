/*
 * lib/log: every line on standard error as "HH:MM:SS.mmm NAME: MESSAGE", the
 * time UTC wall clock; log_warn and fatal add the errno text, log_warnx and
 * fatalx do not; log_debug only with verbose > 0, tagged "debug: "; fatal and
 * fatalx tagged "fatal: " and exit 1. Each case runs in a child whose standard
 * error the test reads (test_child.h).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "log.h"
#include "test_child.h"

/* the seconds of the UTC day now, by the clock lib/log stamps with:
 * time(2) reads the kernel's coarse clock, up to a tick behind
 * CLOCK_REALTIME, so a line stamped just after a second's turn could be
 * "later" than a time() read after it (CI: 16:27:22.000 against :21) */
static long day_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long)(ts.tv_sec % 86400);
}

static void quiet(void *arg)
{
	(void)arg;
	log_init("authd", 0);
	if (log_verbose() != 0)
		log_warnx("log_verbose says %d", log_verbose());
	errno = ENOENT;
	log_warn("%s: open %s", "conf_load", "/nonexistent");
	errno = ENOENT;
	log_warnx("zone %s: %d records", "lab.example", 7);
	log_info("listening on %s", "198.18.0.53:53");
	log_debug("not shown at level %d", 0);
}

static void test_levels(void **state)
{
	long from = day_s();
	int status;
	char *err = test_child_stderr(quiet, NULL, &status), *text;

	(void)state;
	test_assert_exit(status, 0);
	text = test_strip_stamps_between(err, from, day_s());
	assert_string_equal(text, "authd: conf_load: open /nonexistent: No such file or directory\n"
				  "authd: zone lab.example: 7 records\n"
				  "authd: listening on 198.18.0.53:53\n");
	free(text);
	free(err);
}

static void verbose(void *arg)
{
	(void)arg;
	log_init("prober", 1);
	if (log_verbose() != 1)
		log_warnx("log_verbose says %d", log_verbose());
	log_debug("probe %d sent", 3);
	log_info("site %s alive", "a");
}

static void test_debug(void **state)
{
	long from = day_s();
	int status;
	char *err = test_child_stderr(verbose, NULL, &status), *text;

	(void)state;
	test_assert_exit(status, 0);
	text = test_strip_stamps_between(err, from, day_s());
	assert_string_equal(text, "prober: debug: probe 3 sent\n"
				  "prober: site a alive\n");
	free(text);
	free(err);
}

static void die(void *arg)
{
	log_init("routed", 0);
	errno = EACCES;
	if (arg)
		fatal("%s: socket", "kroute_open");
	else
		fatalx("no %s given", "-l");
	log_warnx("still running after fatal");
}

static void test_fatal(void **state)
{
	long from = day_s();
	int status;
	char *err = test_child_stderr(die, "", &status), *text;

	(void)state;
	test_assert_exit(status, 1);
	text = test_strip_stamps_between(err, from, day_s());
	assert_string_equal(text, "routed: fatal: kroute_open: socket: Permission denied\n");
	free(text);
	free(err);

	err = test_child_stderr(die, NULL, &status);
	test_assert_exit(status, 1);
	text = test_strip_stamps_between(err, from, day_s());
	assert_string_equal(text, "routed: fatal: no -l given\n");
	free(text);
	free(err);
}

static void unnamed(void *arg)
{
	(void)arg;
	log_warnx("before log_init");
}

static void test_default_name(void **state)
{
	long from = day_s();
	int status;
	char *err = test_child_stderr(unnamed, NULL, &status), *text;

	(void)state;
	test_assert_exit(status, 0);
	text = test_strip_stamps_between(err, from, day_s());
	assert_string_equal(text, "steerlab: before log_init\n");
	free(text);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_levels),
	    cmocka_unit_test(test_debug),
	    cmocka_unit_test(test_fatal),
	    cmocka_unit_test(test_default_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
