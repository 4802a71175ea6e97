/*
 * lab/hint: the usage errors that suggest the fix, word for word.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "hint.h"

static char buf[1024];

static const char *opt(const char *o, const char *next)
{
	return hint_option(o, next, buf, sizeof(buf)) == 0 ? buf : NULL;
}

static void test_option(void **state)
{
	(void)state;
	assert_string_equal(opt("--duration", "3s"),
			    "--duration is not an option; durations and other topology keys are "
			    "set with --set: --set duration=3s");
	assert_string_equal(opt("--duration=3s", NULL),
			    "--duration is not an option; durations and other topology keys are "
			    "set with --set: --set duration=3s");
	assert_string_equal(opt("--ttl", "5"), "--ttl is not an option; durations and other "
					       "topology keys are set with --set: --set ttl=5");
	assert_string_equal(opt("--rate", "100"),
			    "--rate is not an option; topology keys are set with --set: --set "
			    "rate=100");
	/* a [lab] key without its value */
	assert_string_equal(opt("--probe_interval", NULL),
			    "--probe_interval is not an option; durations and other topology "
			    "keys are set with --set: --set probe_interval=VALUE");
	assert_string_equal(opt("--sticky", "--quiet"),
			    "--sticky is not an option; durations and other topology keys are "
			    "set with --set: --set sticky=VALUE");
	/* an unknown option with a value */
	assert_string_equal(opt("--frob", "1"), "--frob is not an option; if frob is a topology "
						"key, set it with --set: --set frob=1");
	/* no suggestion: an unknown option without a value, a short one */
	assert_null(opt("--frob", NULL));
	assert_null(opt("--frob", "-q"));
	assert_null(opt("-x", "1"));
	assert_null(opt("--", "1"));
	assert_null(opt("--=1", NULL));
	/* too small a buffer: no half message */
	assert_int_equal(hint_option("--duration", "3s", buf, 20), -1);
}

static void test_lab_file(void **state)
{
	(void)state;
	assert_int_equal(hint_lab_file("down", "topology/anycast.ini", "anycast", buf, sizeof(buf)),
			 0);
	assert_string_equal(buf, "down takes the lab's name, not its file: steerlab down "
				 "anycast");
	assert_int_equal(hint_lab_file("down", "x.ini", NULL, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "down takes a lab's name, not a file ('x.ini'; steerlab status "
				 "lists the labs that are up)");
}

static const char *first(int n, char *const args[])
{
	return hint_options_first(n, args, buf, sizeof(buf)) == 0 ? buf : NULL;
}

static void test_options_first(void **state)
{
	char *a1[] = {"--quiet", "run", "FILE"};
	char *a2[] = {"-q", "run", "topology/anycast.ini", "--set", "ttl=2"};
	char *a3[] = {"--set", "ttl=2,5", "-q", "sweep", "FILE"};
	char *a4[] = {"-v"};
	char *a5[] = {"run", "FILE"};

	(void)state;
	assert_string_equal(first(3, a1), "options go after the command: steerlab run FILE "
					  "--quiet");
	assert_string_equal(first(5, a2), "options go after the command: steerlab run "
					  "topology/anycast.ini --set ttl=2 -q");
	assert_string_equal(first(5, a3), "options go after the command: steerlab sweep FILE "
					  "--set ttl=2,5 -q");
	assert_string_equal(first(1, a4), "options go after the command: steerlab COMMAND ... "
					  "-v");
	assert_null(first(2, a5));
	assert_null(first(0, a5));
}

static void test_directory(void **state)
{
	char *names[] = {"anycast.ini", "compare.ini", "dns.ini"};

	(void)state;
	assert_int_equal(hint_directory("topology/", names, 3, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "topology/: is a directory; expected a topology file such as "
				 "topology/anycast.ini\n"
				 "  topology files in topology/: anycast.ini compare.ini dns.ini");
	assert_int_equal(hint_directory("topology", names, 1, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "topology: is a directory; expected a topology file such as "
				 "topology/anycast.ini\n"
				 "  topology files in topology: anycast.ini");
	assert_int_equal(hint_directory("/tmp", names, 0, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/tmp: is a directory; expected a topology file such as "
				 "topology/anycast.ini (/tmp holds no .ini file)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_option),
	    cmocka_unit_test(test_lab_file),
	    cmocka_unit_test(test_options_first),
	    cmocka_unit_test(test_directory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
