/*
 * lab/rundir: the one set of rules of a run directory (run, up, sweep, run
 * --repeat): a new or empty directory, or a sweep's or repeat's own to
 * resume; never a symbolic link, nothing but a directory, no control
 * character in its path; each refusal's text exact, and nothing created.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "lab.h"
#include "test_file.h"
#include "test_rundir.h"

/* check: rundir_check's status, its message into msg */
static int check(const char *cmd, const char *dir, const char *marker, int explicit_out, char *msg,
		 size_t len)
{
	FILE *fp = fmemopen(msg, len, "w");
	int rc;

	assert_non_null(fp);
	memset(msg, 0, len);
	rc = rundir_check(cmd, dir, marker, explicit_out, fp);
	fclose(fp);
	return rc;
}

static void test_new_and_empty(void **state)
{
	char *top = rundir_new("rundir"), path[512], msg[1024];

	(void)state;
	assert_non_null(top);
	snprintf(path, sizeof(path), "%s/new/deeper", top);
	assert_int_equal(check("run", path, NULL, 1, msg, sizeof(msg)), 0);
	assert_string_equal(msg, "");
	assert_int_equal(check("up", top, NULL, 1, msg, sizeof(msg)), 0);
	/* nothing was made */
	snprintf(path, sizeof(path), "%s/new", top);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "%s/new/deeper", top);
	assert_int_equal(rundir_make(path), 0);
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(rmdir(path), 0);
	snprintf(path, sizeof(path), "%s/new", top);
	assert_int_equal(rmdir(path), 0);
	rundir_free(top);
}

static void test_not_empty(void **state)
{
	char *top = rundir_new("rundir"), want[1024], msg[1024];

	(void)state;
	assert_non_null(top);
	test_write_file(top, "notes.txt", "mine\n");
	assert_int_equal(check("up", top, NULL, 1, msg, sizeof(msg)), -1);
	snprintf(want, sizeof(want),
		 "steerlab: up: %s is not empty (it has notes.txt): a lab writes into a new or "
		 "empty directory and leaves what is there untouched; choose another --out\n",
		 top);
	assert_string_equal(msg, want);
	test_write_file(top, "lab.events.jsonl", "");
	assert_int_equal(check("run", top, NULL, 0, msg, sizeof(msg)), -1);
	snprintf(want, sizeof(want),
		 "steerlab: run: %s is not empty (it has lab.events.jsonl: a run): a run writes "
		 "into a new or empty directory and leaves what is there untouched; run again "
		 "in a second\n",
		 top);
	assert_string_equal(msg, want);
	/* a sweep's own directory is resumed; another is refused */
	assert_int_equal(check("sweep", top, "sweep.args", 1, msg, sizeof(msg)), -1);
	snprintf(want, sizeof(want),
		 "steerlab: sweep: %s exists and is not a sweep directory (it has no "
		 "sweep.args): choose another --out\n",
		 top);
	assert_string_equal(msg, want);
	test_write_file(top, "sweep.args", "file = x\n");
	assert_int_equal(check("sweep", top, "sweep.args", 1, msg, sizeof(msg)), 0);
	assert_int_equal(check("repeat", top, "repeat.args", 1, msg, sizeof(msg)), -1);
	rundir_free(top);
}

/* `ln -s /etc OUT; steerlab up ... --out OUT`: refused, even when what the
 * link points to is an empty directory */
static void test_symlink(void **state)
{
	char *top = rundir_new("rundir"), *empty = rundir_new("rundir-to"), link[512], want[2048],
	     msg[2048];
	const char *cmds[] = {"run", "up", "sweep", "repeat"};
	const char *says[] = {"run", "up", "sweep", "run"};
	const char *what[] = {"a run", "a lab", "a sweep", "a repeat"};

	(void)state;
	assert_non_null(top);
	assert_non_null(empty);
	snprintf(link, sizeof(link), "%s/out", top);
	assert_int_equal(symlink(empty, link), 0);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(
		    check(cmds[i], link, i >= 2 ? "x.args" : NULL, 1, msg, sizeof(msg)), -1);
		snprintf(want, sizeof(want),
			 "steerlab: %s: %s is a symbolic link (to %s): refused, %s directory is "
			 "never reached through a link; choose another --out\n",
			 says[i], link, empty, what[i]);
		assert_string_equal(msg, want);
	}
	snprintf(link, sizeof(link), "%s/etc", top);
	assert_int_equal(symlink("/etc", link), 0);
	assert_int_equal(check("up", link, NULL, 1, msg, sizeof(msg)), -1);
	/* a link planted after the check is refused when the directory is made */
	assert_int_equal(rundir_make(link), -1);
	rundir_free(empty);
	rundir_free(top);
}

static void test_not_a_directory(void **state)
{
	char *top = rundir_new("rundir"), path[512], want[1024], msg[1024];

	(void)state;
	assert_non_null(top);
	test_write_file(top, "file", "x\n");
	snprintf(path, sizeof(path), "%s/file", top);
	assert_int_equal(check("run", path, NULL, 1, msg, sizeof(msg)), -1);
	snprintf(want, sizeof(want),
		 "steerlab: run: %s exists and is not a directory: choose another --out\n", path);
	assert_string_equal(msg, want);
	rundir_free(top);
}

/* a newline in --out: status would show the path cut there, and down would
 * lose its closing events; refused before anything is made */
static void test_control_characters(void **state)
{
	char *top = rundir_new("rundir"), path[512], want[1024], msg[1024], q[64];

	(void)state;
	assert_non_null(top);
	snprintf(path, sizeof(path), "%s/a\nb", top);
	assert_int_equal(check("up", path, NULL, 1, msg, sizeof(msg)), -1);
	snprintf(want, sizeof(want),
		 "steerlab: up: --out \"%s/a\\nb\": a control character (byte 0x0a) in the "
		 "path: refused, the lab writes it one a line in its state and events; choose "
		 "another --out\n",
		 top);
	assert_string_equal(msg, want);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "%s/tab\there", top);
	assert_int_equal(check("sweep", path, "sweep.args", 1, msg, sizeof(msg)), -1);
	snprintf(path, sizeof(path), "%s/esc\x1b[2J", top);
	assert_int_equal(check("run", path, NULL, 1, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "esc\\x1b[2J\": a control character (byte 0x1b)"));
	assert_null(rundir_ctl("runs/anycast-20261130-234501"));
	assert_non_null(rundir_ctl("del\x7f"));
	assert_string_equal(rundir_quote("a\"b\\c\td\n", q, sizeof(q)), "a\\\"b\\\\c\\td\\n");
	rundir_free(top);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_new_and_empty),
	    cmocka_unit_test(test_not_empty),
	    cmocka_unit_test(test_symlink),
	    cmocka_unit_test(test_not_a_directory),
	    cmocka_unit_test(test_control_characters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
