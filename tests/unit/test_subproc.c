/*
 * lib/subproc: subproc_capture runs a program with PATH alone in its
 * environment and returns what it printed on both streams with its exit
 * status; a program that cannot be run is 127 with no pid. subproc_run_fds
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
	    cmocka_unit_test(test_run_fds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
