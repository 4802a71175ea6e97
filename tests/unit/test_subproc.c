/*
 * lib/subproc: subproc_capture runs a program with PATH alone in its
 * environment and returns what it printed on both streams with its exit
 * status; a program that cannot be run is 127 with no pid.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "subproc.h"

static void test_capture(void **state)
{
	char *const sh[] = {"/bin/sh", "-c", "echo out; echo err >&2; exit 3", NULL};
	char *const env[] = {"/usr/bin/env", NULL};
	char *const none[] = {"/nonexistent/steerlab-test", NULL};
	char *text;
	pid_t pid;

	(void)state;
	assert_int_equal(subproc_capture(sh, -1, &text, &pid), 3);
	assert_true(pid > 0);
	assert_string_equal(text, "out\nerr\n");
	free(text);

	/* the user's environment does not reach it */
	setenv("STEERLAB_TEST_LEAK", "1", 1);
	assert_int_equal(subproc_capture(env, -1, &text, NULL), 0);
	assert_string_equal(text, "PATH=/usr/bin:/bin\n");
	free(text);

	assert_int_equal(subproc_capture(none, -1, &text, &pid), 127);
	assert_int_equal(pid, 0);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_capture),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
