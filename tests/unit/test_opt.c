/*
 * lib/opt: the command-line errors every agent prints, after getopt with a
 * leading ':' as the agents call it: the exact text on standard error, the
 * usage after it, and exit status 1; operands refused, none accepted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "opt.h"
#include "test_child.h"

#define USAGE "usage: agent [-p PORT] [-v]\n"

struct args {
	int argc;
	char **argv;
};

/* parse: the agents' getopt loop: an error goes to opt_fail */
static void parse(void *arg)
{
	struct args *a = arg;
	int ch;

	optind = 0; /* glibc: start over */
	while ((ch = getopt(a->argc, a->argv, ":p:v")) != -1)
		if (ch != 'p' && ch != 'v')
			opt_fail("agent", USAGE, ch);
	opt_no_operands("agent", USAGE, a->argc, a->argv);
}

static char *run(int *status, char **argv)
{
	struct args a = {0, argv};

	while (argv[a.argc])
		a.argc++;
	return test_child_stderr(parse, &a, status);
}

static void test_missing_argument(void **state)
{
	char *argv[] = {"agent", "-v", "-p", NULL};
	int status;
	char *err = run(&status, argv);

	(void)state;
	assert_string_equal(err, "agent: -p: missing argument\n" USAGE);
	test_assert_exit(status, 1);
	free(err);
}

static void test_unknown_flag(void **state)
{
	char *argv[] = {"agent", "-p", "53", "-x", NULL};
	int status;
	char *err = run(&status, argv);

	(void)state;
	assert_string_equal(err, "agent: unknown flag -x\n" USAGE);
	test_assert_exit(status, 1);
	free(err);
}

static void test_operand_refused(void **state)
{
	char *one[] = {"agent", "-p", "53", "extra", NULL};
	char *two[] = {"agent", "-v", "extra", "more", NULL};
	int status;
	char *err = run(&status, one);

	(void)state;
	assert_string_equal(err, "agent: unexpected argument 'extra'\n" USAGE);
	test_assert_exit(status, 1);
	free(err);
	/* the first is named */
	err = run(&status, two);
	assert_string_equal(err, "agent: unexpected argument 'extra'\n" USAGE);
	test_assert_exit(status, 1);
	free(err);
}

static void test_flags_alone_pass(void **state)
{
	char *argv[] = {"agent", "-v", "-p", "53", NULL};
	char *none[] = {"agent", NULL};
	int status;
	char *err = run(&status, argv);

	(void)state;
	assert_string_equal(err, "");
	test_assert_exit(status, 0);
	free(err);
	err = run(&status, none);
	assert_string_equal(err, "");
	test_assert_exit(status, 0);
	free(err);
}

static void bad(void *arg)
{
	(void)arg;
	opt_bad("routed", USAGE, "-l", "ADDR:PORT", "198.18.0.1:port");
}

static void test_bad_argument(void **state)
{
	int status;
	char *err = test_child_stderr(bad, NULL, &status);

	(void)state;
	assert_string_equal(err, "routed: -l: expected ADDR:PORT, got '198.18.0.1:port'\n" USAGE);
	test_assert_exit(status, 1);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_missing_argument), cmocka_unit_test(test_unknown_flag),
	    cmocka_unit_test(test_operand_refused),  cmocka_unit_test(test_flags_alone_pass),
	    cmocka_unit_test(test_bad_argument),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
