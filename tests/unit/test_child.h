/*
 * For unit tests of what code writes to standard error (lib/log.h's lines):
 * in a child whose standard error is a pipe, for code that may exit (fatal,
 * lib/opt.h's errors), the test getting what it wrote and how it ended; or
 * in the test's own process, standard error sent to a file for a while.
 */
#ifndef STEERLAB_TEST_CHILD_H
#define STEERLAB_TEST_CHILD_H

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* test_child_stderr: runs fn(arg) in a child, which exits 0 if fn returns;
 * returns what the child wrote to standard error (caller frees) and its wait
 * status in *status. */
static inline char *test_child_stderr(void (*fn)(void *), void *arg, int *status)
{
	size_t len = 0, cap = 256;
	char *buf = malloc(cap);
	int p[2];
	pid_t pid;
	ssize_t r;

	assert_non_null(buf);
	assert_int_equal(pipe(p), 0);
	/* what cmocka printed is not the child's to print again */
	fflush(NULL);
	pid = fork();
	assert_true(pid != -1);
	if (pid == 0) {
		close(p[0]);
		if (dup2(p[1], STDERR_FILENO) == -1)
			_exit(126);
		close(p[1]);
		fn(arg);
		exit(0);
	}
	close(p[1]);
	while ((r = read(p[0], buf + len, cap - len - 1)) > 0) {
		len += (size_t)r;
		if (cap - len < 2) {
			cap *= 2;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
	}
	assert_int_equal(r, 0);
	buf[len] = '\0';
	close(p[0]);
	assert_int_equal(waitpid(pid, status, 0), pid);
	return buf;
}

/* test_stderr_begin: standard error to a temporary file until
 * test_stderr_end(the value returned), which gives what was written (caller
 * frees) and puts standard error back. */
static inline int test_stderr_begin(void)
{
	FILE *tmp = tmpfile();
	int saved = dup(STDERR_FILENO);

	assert_non_null(tmp);
	assert_true(saved != -1);
	fflush(stderr);
	assert_int_equal(dup2(fileno(tmp), STDERR_FILENO), STDERR_FILENO);
	fclose(tmp); /* the file lives on as fd 2 */
	return saved;
}

static inline char *test_stderr_end(int saved)
{
	off_t len;
	char *buf;

	fflush(stderr);
	len = lseek(STDERR_FILENO, 0, SEEK_END);
	assert_true(len >= 0);
	assert_non_null(buf = calloc(1, (size_t)len + 1));
	assert_int_equal(pread(STDERR_FILENO, buf, (size_t)len, 0), (ssize_t)len);
	assert_int_equal(dup2(saved, STDERR_FILENO), STDERR_FILENO);
	close(saved);
	return buf;
}

/* test_strip_stamps_between: text's lines without lib/log's time stamps,
 * "HH:MM:SS.mmm " (caller frees). Unless from_s is -1, every line must have
 * one, of a UTC time from from_s to to_s, seconds of the day (to_s the
 * smaller across midnight); with -1 a line without one passes as it is. */
static inline char *test_strip_stamps_between(const char *text, long from_s, long to_s)
{
	char *out = calloc(1, strlen(text) + 1), *o = out;
	const char *p = text;

	assert_non_null(out);
	while (*p) {
		const char *nl = strchr(p, '\n'), *end = nl ? nl + 1 : p + strlen(p);
		int stamped =
		    end - p >= 13 && p[2] == ':' && p[5] == ':' && p[8] == '.' && p[12] == ' ';
		long s;

		for (int i = 0; stamped && i < 12; i++)
			if (i != 2 && i != 5 && i != 8 && !isdigit((unsigned char)p[i]))
				stamped = 0;
		if (!stamped && from_s != -1)
			fail_msg("no time stamp on '%.*s'", (int)(end - p), p);
		if (stamped) {
			s = atol(p) * 3600 + atol(p + 3) * 60 + atol(p + 6);
			if (from_s != -1 && from_s <= to_s && (s < from_s || s > to_s))
				fail_msg("time stamp of '%.*s' not within %ld..%ld s of the day",
					 (int)(end - p), p, from_s, to_s);
			if (from_s != -1 && from_s > to_s && s < from_s && s > to_s)
				fail_msg("time stamp of '%.*s' not within %ld..%ld s of the day",
					 (int)(end - p), p, from_s, to_s);
			p += 13;
		}
		memcpy(o, p, (size_t)(end - p));
		o += end - p;
		p = end;
	}
	return out;
}

/* test_strip_stamps: the same, the times not checked, a line without a
 * stamp taken as it is */
static inline char *test_strip_stamps(const char *text)
{
	return test_strip_stamps_between(text, -1, 0);
}

/* test_assert_exit: the child's status was exit(code) */
#define test_assert_exit(status, code)                                                             \
	do {                                                                                       \
		assert_true(WIFEXITED(status));                                                    \
		assert_int_equal(WEXITSTATUS(status), (code));                                     \
	} while (0)

#endif
