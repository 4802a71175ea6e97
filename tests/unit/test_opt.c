/*
 * lib/opt: the command line from a table, as every agent parses it: each
 * type into its destination within its bounds, the "seen" flags, a
 * callback per occurrence, -h; and the errors as exact text on standard
 * error, the usage after them, exit status 1 (or an agent's own words
 * through cmd->error); operands refused, none accepted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <cmocka.h>

#include "opt.h"
#include "test_child.h"
#include "timeutil.h"

#define USAGE "usage: agent [-p PORT] [-v]\n"

struct vals {
	int flag, count, seen_i, seen_t, ncall;
	const char *str, *name;
	uint8_t u8;
	uint16_t port;
	uint32_t u32;
	int neg;
	uint64_t u64;
	int64_t dur_ns;
	struct sockaddr_in sin;
	struct opt_prefix prefix;
	char calls[4][8];
};

/* vals_call: a repeatable flag, "ok" or "okN" only; "many" past 4 */
static int vals_call(const char *arg, void *dst, const char **what)
{
	struct vals *v = dst;

	if (v->ncall == 4) {
		*what = "at most 4 of them";
		return -1;
	}
	if (strncmp(arg, "ok", 2) != 0 || strlen(arg) > 3)
		return -1;
	strcpy(v->calls[v->ncall++], arg);
	return 0;
}

/* vals_silent: fails having said why itself */
static int vals_silent(const char *arg, void *dst, const char **what)
{
	(void)dst;
	fprintf(stderr, "said: %s\n", arg);
	*what = NULL;
	return -1;
}

static void vals_help(FILE *fp)
{
	fprintf(fp, USAGE "  -p PORT  the port\n");
}

static const struct opt_cmd vals_cmd = {"agent", USAGE, vals_help, NULL};

/* vals_parse: every type of the table, into v */
static void vals_parse(struct vals *v, char **argv)
{
	int argc = 0;
	const struct opt opts[] = {
	    {OPT_FLAG('f', &v->flag)},
	    {OPT_COUNT('v', &v->count)},
	    {OPT_STR('s', &v->str)},
	    {OPT_INT('b', &v->u8, 0, 255, "a byte")},
	    {OPT_INT('p', &v->port, 1, 65535, "a port (1-65535)")},
	    {OPT_INT('i', &v->u32, 0, UINT32_MAX, "an id"), .seen = &v->seen_i},
	    {OPT_INT('n', &v->neg, -10, 10, "a number from -10 to 10")},
	    {OPT_INT('S', &v->u64, 0, INT64_MAX, "a seed")},
	    {OPT_DURATION('d', &v->dur_ns, 1, 60 * NSEC_PER_SEC, "a duration up to 1m")},
	    {OPT_ADDR('t', &v->sin, 7000, "an IPv4 ADDR[:PORT]"), .seen = &v->seen_t},
	    {OPT_PREFIX('P', &v->prefix, "an IPv4 prefix")},
	    {OPT_NAME('N', &v->name, 4, "a name of 1 to 4")},
	    {OPT_CALL('c', vals_call, v, "ok or okN")},
	    {OPT_CALL('q', vals_silent, v, "never said")},
	    {0},
	};

	while (argv[argc])
		argc++;
	opt_parse(&vals_cmd, opts, argc, argv);
}

static void test_types(void **state)
{
	char *argv[] = {"agent", "-f",
			"-vv",	 "-v",
			"-s",	 "str",
			"-b",	 "255",
			"-p",	 "53",
			"-i",	 "4294967295",
			"-n",	 "-10",
			"-S",	 "9223372036854775807",
			"-d",	 "1.5s",
			"-t",	 "198.18.0.1",
			"-P",	 "198.19.0.0/16",
			"-N",	 "a.-_",
			"-c",	 "ok",
			"-cok2", NULL};
	struct vals v = {.port = 9};
	char addr[INET_ADDRSTRLEN];

	(void)state;
	vals_parse(&v, argv);
	assert_int_equal(v.flag, 1);
	assert_int_equal(v.count, 3);
	assert_string_equal(v.str, "str");
	assert_int_equal(v.u8, 255);
	assert_int_equal(v.port, 53);
	assert_int_equal(v.u32, UINT32_MAX);
	assert_int_equal(v.seen_i, 1);
	assert_int_equal(v.neg, -10);
	assert_true(v.u64 == INT64_MAX);
	assert_true(v.dur_ns == 1500 * NSEC_PER_MSEC);
	assert_int_equal(v.seen_t, 1);
	assert_int_equal(v.sin.sin_family, AF_INET);
	assert_int_equal(ntohs(v.sin.sin_port), 7000);
	inet_ntop(AF_INET, &v.sin.sin_addr, addr, sizeof(addr));
	assert_string_equal(addr, "198.18.0.1");
	inet_ntop(AF_INET, &v.prefix.addr, addr, sizeof(addr));
	assert_string_equal(addr, "198.19.0.0");
	assert_int_equal(v.prefix.len, 16);
	assert_string_equal(v.name, "a.-_");
	assert_int_equal(v.ncall, 2);
	assert_string_equal(v.calls[0], "ok");
	assert_string_equal(v.calls[1], "ok2");
}

static void test_defaults_kept(void **state)
{
	char *argv[] = {"agent", "-t", "198.18.0.1:53", NULL};
	char *none[] = {"agent", NULL};
	struct vals v = {.port = 9, .dur_ns = 5, .str = "default"};

	(void)state;
	vals_parse(&v, argv);
	assert_int_equal(ntohs(v.sin.sin_port), 53);
	assert_int_equal(v.seen_t, 1);
	assert_int_equal(v.seen_i, 0);
	assert_int_equal(v.port, 9);
	assert_true(v.dur_ns == 5);
	assert_string_equal(v.str, "default");
	assert_int_equal(v.flag + v.count + v.ncall, 0);
	/* and again: a second parse starts from the first argument */
	memset(&v, 0, sizeof(v));
	vals_parse(&v, none);
	assert_int_equal(v.seen_t, 0);
}

/* the child's argv, and standard output sent to standard error (-h) */
static void vals_child(void *arg)
{
	struct vals v = {0};

	dup2(STDERR_FILENO, STDOUT_FILENO);
	vals_parse(&v, arg);
}

/* expect: the argv parsed in a child writes want and exits with rc */
static void expect(int rc, const char *want, ...)
{
	char *argv[16] = {"agent"};
	int argc = 1, status;
	va_list ap;
	char *err;

	va_start(ap, want);
	while ((argv[argc] = va_arg(ap, char *)) != NULL)
		argc++;
	va_end(ap);
	err = test_child_stderr(vals_child, argv, &status);
	assert_string_equal(err, want);
	test_assert_exit(status, rc);
	free(err);
}

static void test_missing_argument(void **state)
{
	(void)state;
	expect(1, "agent: -p: missing argument\n" USAGE, "-v", "-p", NULL);
}

static void test_unknown_flag(void **state)
{
	(void)state;
	expect(1, "agent: unknown flag -x\n" USAGE, "-p", "53", "-x", NULL);
	/* a flag of the table's letters is no flag of the agent's */
	expect(1, "agent: unknown flag -:\n" USAGE, "-:", NULL);
}

static void test_operand_refused(void **state)
{
	(void)state;
	expect(1, "agent: unexpected argument 'extra'\n" USAGE, "-p", "53", "extra", NULL);
	/* the first is named, wherever it stands */
	expect(1, "agent: unexpected argument 'extra'\n" USAGE, "extra", "-v", "more", NULL);
	expect(0, "", "-v", "-p", "53", "--", NULL);
}

static void test_help(void **state)
{
	(void)state;
	expect(0, USAGE "  -p PORT  the port\n", "-v", "-h", "-x", NULL);
	/* what comes first is first refused */
	expect(1, "agent: unknown flag -x\n" USAGE, "-x", "-h", NULL);
}

static void test_bad_arguments(void **state)
{
	(void)state;
	expect(1, "agent: -p: expected a port (1-65535), got '0'\n" USAGE, "-p", "0", NULL);
	expect(1, "agent: -p: expected a port (1-65535), got '65536'\n" USAGE, "-p", "65536", NULL);
	expect(1, "agent: -b: expected a byte, got '256'\n" USAGE, "-b", "256", NULL);
	expect(1, "agent: -i: expected an id, got '-1'\n" USAGE, "-i", "-1", NULL);
	expect(1, "agent: -n: expected a number from -10 to 10, got '-11'\n" USAGE, "-n", "-11",
	       NULL);
	expect(1, "agent: -S: expected a seed, got '9223372036854775808'\n" USAGE, "-S",
	       "9223372036854775808", NULL);
	expect(1, "agent: -d: expected a duration up to 1m, got '0'\n" USAGE, "-d", "0", NULL);
	expect(1, "agent: -d: expected a duration up to 1m, got '61s'\n" USAGE, "-d", "61s", NULL);
	expect(1, "agent: -d: expected a duration up to 1m, got 'soon'\n" USAGE, "-d", "soon",
	       NULL);
	expect(1, "agent: -t: expected an IPv4 ADDR[:PORT], got '198.18.0.1:0'\n" USAGE, "-t",
	       "198.18.0.1:0", NULL);
	expect(1, "agent: -t: expected an IPv4 ADDR[:PORT], got '2001:2::1'\n" USAGE, "-t",
	       "2001:2::1", NULL);
	expect(1, "agent: -P: expected an IPv4 prefix, got '198.19.0.0/33'\n" USAGE, "-P",
	       "198.19.0.0/33", NULL);
	expect(1, "agent: -N: expected a name of 1 to 4, got ''\n" USAGE, "-N", "", NULL);
	expect(1, "agent: -N: expected a name of 1 to 4, got 'abcde'\n" USAGE, "-N", "abcde", NULL);
	expect(1, "agent: -N: expected a name of 1 to 4, got 'a/b'\n" USAGE, "-N", "a/b", NULL);
}

static void test_callback(void **state)
{
	(void)state;
	expect(1, "agent: -c: expected ok or okN, got 'no'\n" USAGE, "-c", "ok", "-c", "no", NULL);
	/* the callback's own words, when it has them */
	expect(1, "agent: -c: expected at most 4 of them, got 'ok5'\n" USAGE, "-cok1", "-cok2",
	       "-cok3", "-cok4", "-cok5", NULL);
	/* or none of ours, when it has said why */
	expect(1, "said: x\n", "-q", "x", NULL);
}

static void own_error(const struct opt_cmd *cmd, enum opt_error e, int flag, const char *what,
		      const char *arg)
{
	fprintf(stderr, "%s: error %d flag %c what %s arg %s\n", cmd->prog, (int)e,
		flag ? flag : '0', what ? what : "-", arg ? arg : "-");
	exit(1);
}

static void own_child(void *arg)
{
	static const struct opt_cmd cmd = {"own", USAGE, NULL, own_error};
	char **argv = arg;
	int argc = 0, v = 0, p = 0;
	const struct opt opts[] = {
	    {OPT_COUNT('v', &v)},
	    {OPT_INT('p', &p, 1, 65535, "a port")},
	    {0},
	};

	while (argv[argc])
		argc++;
	opt_parse(&cmd, opts, argc, argv);
}

static void own(const char *want, char **argv)
{
	int status;
	char *err = test_child_stderr(own_child, argv, &status);

	assert_string_equal(err, want);
	test_assert_exit(status, 1);
	free(err);
}

static void test_own_errors(void **state)
{
	char *missing[] = {"own", "-p", NULL};
	char *unknown[] = {"own", "-h", NULL}; /* no help: -h is no flag */
	char *bad[] = {"own", "-p", "x", NULL};
	char *operand[] = {"own", "-v", "x", NULL};

	(void)state;
	own("own: error 0 flag p what - arg -\n", missing);
	own("own: error 1 flag h what - arg -\n", unknown);
	own("own: error 2 flag p what a port arg x\n", bad);
	own("own: error 3 flag 0 what - arg x\n", operand);
}

static void refuse(void *arg)
{
	(void)arg;
	opt_refuse(&vals_cmd, "-L replaces -m and -R: give %s", "one or the other");
}

static void test_refuse(void **state)
{
	int status;
	char *err = test_child_stderr(refuse, NULL, &status);

	(void)state;
	assert_string_equal(err, "agent: -L replaces -m and -R: give one or the other\n" USAGE);
	test_assert_exit(status, 1);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_types),
	    cmocka_unit_test(test_defaults_kept),
	    cmocka_unit_test(test_missing_argument),
	    cmocka_unit_test(test_unknown_flag),
	    cmocka_unit_test(test_operand_refused),
	    cmocka_unit_test(test_help),
	    cmocka_unit_test(test_bad_arguments),
	    cmocka_unit_test(test_callback),
	    cmocka_unit_test(test_own_errors),
	    cmocka_unit_test(test_refuse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
