/*
 * lib/subproc: subproc_capture runs a program with PATH alone in its
 * environment and returns what it printed on both streams with its exit
 * status; a program that cannot be run is 127 with no pid.
 * subproc_capture_all runs several so, at most so many at once, each
 * result in its own job. subproc_run_fds
 * gives the child each descriptor at its place, even one given for a
 * place that another descriptor given is at.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <fcntl.h>

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

/* several at once, at most two at a time: jobs 0 and 1 wait for each
 * other, then 2 and 3, so two must run side by side; the log of their
 * starts and ends never has three running; each job's output and status
 * in its own job */
static void test_capture_all(void **state)
{
	static const char script[] =
	    "d=$1; echo + >>$d/log; touch $d/$2; n=0; "
	    "while [ ! -e $d/$3 ] && [ $n -lt 1000 ]; do sleep 0.01; n=$((n+1)); done; "
	    "echo - >>$d/log; echo job $2; exit $2";
	static const char *const name[] = {"0", "1", "2", "3"}, *const peer[] = {"1", "0", "3",
										 "2"};
	char dir[] = "/tmp/test-subproc-XXXXXX", path[64], *const none[] = {"/nonexistent/x", NULL};
	char *argv[4][8], line[8];
	struct subproc_job jobs[5];
	int running = 0, most = 0;
	FILE *log;

	(void)state;
	assert_non_null(mkdtemp(dir));
	memset(jobs, 0, sizeof(jobs));
	for (int i = 0; i < 4; i++) {
		argv[i][0] = "/bin/sh";
		argv[i][1] = "-c";
		argv[i][2] = (char *)script;
		argv[i][3] = "sh";
		argv[i][4] = dir;
		argv[i][5] = (char *)name[i];
		argv[i][6] = (char *)peer[i];
		argv[i][7] = NULL;
		jobs[i].argv = argv[i];
		jobs[i].in = -1;
	}
	jobs[4].argv = none;
	jobs[4].in = -1;
	assert_int_equal(subproc_capture_all(jobs, 5, 2), 0);
	for (int i = 0; i < 4; i++) {
		char want[32];

		snprintf(want, sizeof(want), "job %d\n", i);
		assert_int_equal(jobs[i].status, i);
		assert_true(jobs[i].pid > 0);
		assert_string_equal(jobs[i].text, want);
		free(jobs[i].text);
	}
	assert_int_equal(jobs[4].status, 127);
	assert_int_equal(jobs[4].pid, 0);
	free(jobs[4].text);
	snprintf(path, sizeof(path), "%s/log", dir);
	assert_non_null(log = fopen(path, "r"));
	while (fgets(line, sizeof(line), log)) {
		running += line[0] == '+' ? 1 : -1;
		if (running > most)
			most = running;
	}
	fclose(log);
	assert_int_equal(most, 2);
	unlink(path);
	for (int i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, name[i]);
		unlink(path);
	}
	assert_int_equal(rmdir(dir), 0);
}

/* memfd_text: what a memory file holds */
static void memfd_text(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	assert_true(n >= 0);
	buf[n] = '\0';
}

static void test_run_fds(void **state)
{
	char *const sh[] = {"/bin/sh", "-c", "echo three >&3; echo four >&4; echo out", NULL};
	int a = memfd_create("a", MFD_CLOEXEC), b = memfd_create("b", MFD_CLOEXEC);
	int out = memfd_create("out", MFD_CLOEXEC), saved = -1, fds[5];
	char text[64];

	(void)state;
	assert_true(a >= 0 && b >= 0 && out >= 0);
	/* a at 3: given for 4, while b is given for 3 and copied there first */
	if (a != 3 && fcntl(3, F_GETFD) != -1)
		saved = fcntl(3, F_DUPFD_CLOEXEC, 10);
	if (a != 3) {
		assert_int_equal(dup3(a, 3, O_CLOEXEC), 3);
		close(a);
		a = 3;
	}
	fds[0] = -1;
	fds[1] = out;
	fds[2] = out;
	fds[3] = b;
	fds[4] = 3;
	assert_int_equal(subproc_run_fds(NULL, sh, fds, 5), 0);
	memfd_text(a, text, sizeof(text));
	assert_string_equal(text, "four\n");
	memfd_text(b, text, sizeof(text));
	assert_string_equal(text, "three\n");
	memfd_text(out, text, sizeof(text));
	assert_string_equal(text, "out\n");
	/* 3 is still a's in the parent */
	assert_int_equal(fcntl(3, F_GETFD), FD_CLOEXEC);
	assert_int_equal(subproc_run_fds(NULL, sh, fds, 2), -1);
	close(a);
	if (saved != -1)
		assert_int_equal(dup3(saved, 3, 0), 3);
	close(b);
	close(out);
	if (saved != -1)
		close(saved);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_capture),
	    cmocka_unit_test(test_capture_all),
	    cmocka_unit_test(test_run_fds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
