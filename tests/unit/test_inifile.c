/*
 * lib/inifile: the INI front-end of the topology, authd and resolverd.
 * Each case reads a file from memory and compares what the user was
 * handed (headers, pairs with their lines) and what was said, byte for
 * byte. The grammar is inih's as the files had it (lib/inifile.h); the
 * three parsers' own tests (test_topology.c, test_authd_conf.c,
 * test_resolverd_config.c) check the messages in context.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "inifile.h"

struct seen {
	char log[4096]; /* "S line kind name extra|" and "P line key=value|" */
	size_t used;
	int drop; /* the section callback refuses sections named "bad" */
	struct inifile *in;
};

static void seen_add(struct seen *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void seen_add(struct seen *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	s->used += (size_t)vsnprintf(s->log + s->used, sizeof(s->log) - s->used, fmt, ap);
	va_end(ap);
}

static int on_section(void *arg, const char *kind, const char *name, const char *extra)
{
	struct seen *s = arg;

	seen_add(s, "S%d %s %s %s|", s->in->lineno, kind, name ? name : "-", extra ? extra : "-");
	return name && strcmp(name, "bad") == 0 ? -1 : 0;
}

static void on_pair(void *arg, const char *key, const char *value)
{
	struct seen *s = arg;

	seen_add(s, "P%d %s=%s|", s->in->lineno, key, value);
}

/* run: reads text with flags; returns what was said, sets *seen. */
static char *run(const char *text, size_t len, int flags, int max_errors, struct seen *s)
{
	struct inifile in = {.path = "t.ini",
			     .max_errors = max_errors,
			     .flags = flags,
			     .kinds = "expected [a]",
			     .section = on_section,
			     .pair = on_pair,
			     .arg = s};
	char *said = NULL;
	size_t saidlen = 0;
	FILE *f = fmemopen((void *)text, len, "r");

	memset(s, 0, sizeof(*s));
	s->in = &in;
	assert_non_null(f);
	in.err = open_memstream(&said, &saidlen);
	assert_non_null(in.err);
	inifile_read(&in, f);
	fclose(in.err);
	fclose(f);
	return said;
}

#define RUN(text, flags, s) run(text, sizeof(text) - 1, flags, 20, s)

static void test_sections_and_pairs(void **state)
{
	struct seen s;
	char *said;

	(void)state;
	said = RUN("; comment\n# another\n\n[a]\nx = 1\ny: two words  \n[b  n1]  ; c\n"
		   "z=3 ;inline\nw = a;b\n[c n m]\n",
		   0, &s);
	assert_string_equal(said, "");
	assert_string_equal(s.log, "S4 a - -|P5 x=1|P6 y=two words|S7 b n1 -|P8 z=3|P9 w=a;b|"
				   "S10 c n m|");
	free(said);
}

static void test_header_errors(void **state)
{
	struct seen s;
	char *said;

	(void)state;
	said = RUN("[a\n[]\n[a] x\n[b bad]\nk = dropped\n[b] #c\n", 0, &s);
	assert_string_equal(said, "t.ini:1: expected ']' to close the section header '[a'\n"
				  "t.ini:2: empty section header (expected [a])\n"
				  "t.ini:3: unexpected 'x' after the section header\n");
	assert_string_equal(s.log, "S4 b bad -|S6 b - -|");
	free(said);
	/* strict: not even a comment, and the text after ']' as it is */
	said = RUN("[b] ;c\n", INI_HEADER_STRICT, &s);
	assert_string_equal(said, "t.ini:1: unexpected ' ;c' after the section header\n");
	free(said);
}

static void test_pair_errors(void **state)
{
	struct seen s;
	char *said;

	(void)state;
	said = RUN("k = before\n[a]\n= v\nno value\nk ;= v\n", 0, &s);
	assert_string_equal(
	    said, "t.ini:1: 'k = before' outside any section (expected [a] first)\n"
		  "t.ini:3: expected a key name before '='\n"
		  "t.ini:4: expected 'key = value', a [section] or a comment, got 'no value'\n"
		  "t.ini:5: expected 'key = value', a [section] or a comment, got 'k ;= v'\n");
	assert_string_equal(s.log, "S2 a - -|");
	free(said);
}

static void test_indentation(void **state)
{
	struct seen s;
	char *said;

	(void)state;
	/* INI_INDENT: a first pair may be indented, a second is refused */
	said = RUN("[a]\n  x = 1\n  y = 2\n\tmore ; kept\n", INI_INDENT, &s);
	assert_string_equal(
	    said, "t.ini:3: unexpected indentation: values do not continue on the next line\n"
		  "t.ini:4: unexpected indentation: values do not continue on the next line\n");
	assert_string_equal(s.log, "S1 a - -|P2 x=1|");
	free(said);
	/* without it, indentation is nothing */
	said = RUN("[a]\n  x = 1\n  y = 2\n", 0, &s);
	assert_string_equal(said, "");
	assert_string_equal(s.log, "S1 a - -|P2 x=1|P3 y=2|");
	free(said);
	/* a form feed is white space to the pair splitter, not indentation:
	 * inih continued the pair before with it, comment and all */
	said = RUN("[a]\nx = 1\n\fy = 2 ; c\n", 0, &s);
	assert_string_equal(said, "");
	assert_string_equal(s.log, "S1 a - -|P2 x=1|P3 x=y = 2 ; c|");
	free(said);
}

static void test_lines(void **state)
{
	static const char nul[] = "[a]\nx = 1\0\ny = 2\r\n";
	char longline[512], longcomment[512];
	struct seen s;
	char *said;

	(void)state;
	said = RUN("\xEF\xBB\xBF[a]\r\nx = 1\r\n", 0, &s);
	assert_string_equal(said, "");
	assert_string_equal(s.log, "S1 a - -|P2 x=1|");
	free(said);

	said = run(nul, sizeof(nul) - 1, 0, 20, &s);
	assert_string_equal(said, "t.ini:2: unexpected NUL byte\n");
	assert_string_equal(s.log, "S1 a - -|P3 y=2|");
	free(said);

	/* 198 characters fit, 199 do not */
	snprintf(longline, sizeof(longline), "[a]\nk = %0194d\nk = %0195d\n", 0, 0);
	said = run(longline, strlen(longline), 0, 20, &s);
	assert_string_equal(said, "t.ini:3: line too long (at most 198 characters)\n");
	free(said);
	/* INI_LONG_BLANK: a long comment is fine, indentation does not count */
	snprintf(longcomment, sizeof(longcomment), "[a]\n;%0300d\n      k = %0190d\n", 0, 0);
	said = run(longcomment, strlen(longcomment), INI_LONG_BLANK, 20, &s);
	assert_string_equal(said, "");
	said = (free(said), run(longcomment, strlen(longcomment), 0, 20, &s));
	assert_string_equal(said, "t.ini:2: line too long (at most 198 characters)\n"
				  "t.ini:3: line too long (at most 198 characters)\n");
	free(said);
}

/* INI_LINE_MARKS: "#line N" numbers the next line N, in messages too;
 * without the flag, or not exactly that, it is a comment */
static void test_line_marks(void **state)
{
	static const char text[] = "[a]\n#line 40\nx = 1\ny\n#line 7\n[b]\n#line 0\n"
				   "#line 12x\n# line 3\nz = 2\n";
	struct seen s;
	char *said;

	(void)state;
	said = RUN(text, INI_LINE_MARKS, &s);
	assert_string_equal(said, "t.ini:41: expected 'key = value', a [section] or a comment, "
				  "got 'y'\n");
	assert_string_equal(s.log, "S1 a - -|P40 x=1|S7 b - -|P11 z=2|");
	free(said);
	said = RUN(text, 0, &s);
	assert_string_equal(s.log, "S1 a - -|P3 x=1|S6 b - -|P10 z=2|");
	free(said);
}

static void test_cap(void **state)
{
	struct seen s;
	char *said;

	(void)state;
	said = run("[\n[\n[\n[a]\nx = 1\n", 16, 0, 2, &s);
	assert_string_equal(said, "t.ini:1: expected ']' to close the section header '['\n"
				  "t.ini:2: expected ']' to close the section header '['\n"
				  "t.ini: too many errors, stopping\n");
	assert_string_equal(s.log, "");
	free(said);
}

static void test_silent(void **state)
{
	struct inifile in = {.path = "t.ini",
			     .max_errors = 100,
			     .kinds = "",
			     .section = on_section,
			     .pair = on_pair};
	static const char text[] = "[a]\nx = 1\nnot a pair\n[b\n";
	struct seen s = {.in = &in};
	FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");

	(void)state;
	in.arg = &s;
	assert_int_equal(inifile_read(&in, f), 2);
	assert_int_equal(in.error_line, 3);
	assert_string_equal(s.log, "S1 a - -|P2 x=1|");
	fclose(f);
}

static void test_scan(void **state)
{
	char path[] = "/tmp/test_inifile.XXXXXX";
	struct seen s;
	struct inifile in = {0};
	int fd = mkstemp(path);
	FILE *f;

	(void)state;
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs("[lab]\nport = 7000\n\n[client c1]\ntimeout = 1s\nnot a pair\n", f);
	fclose(f);
	memset(&s, 0, sizeof(s));
	s.in = &in; /* the lines are inifile_scan's own */
	assert_int_equal(inifile_scan(path, on_section, on_pair, &s), 6);
	assert_int_equal(
	    strncmp(s.log, "S0 lab - -|P0 port=7000|S0 client c1 -|P0 timeout=1s|", s.used), 0);
	unlink(path);
	assert_int_equal(inifile_scan(path, on_section, on_pair, &s), -1);
}

/* `steerlab check /dev/zero` grew without bound, a FIFO blocked forever:
 * anything but a regular file of a bounded size is refused at once */
static void test_open_not_a_file(void **state)
{
	char dir[] = "/tmp/inifile-open.XXXXXX", fifo[64], big[64], ok[64], why[128];
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(big, sizeof(big), "%s/big.ini", dir);
	snprintf(ok, sizeof(ok), "%s/ok.ini", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_null(inifile_open("/dev/zero", why, sizeof(why)));
	assert_string_equal(why, "not a regular file (a character device): expected a file");
	assert_null(inifile_open(fifo, why, sizeof(why)));
	assert_string_equal(why, "not a regular file (a FIFO): expected a file");
	assert_null(inifile_open(dir, why, sizeof(why)));
	assert_string_equal(why, "not a regular file (a directory): expected a file");
	assert_null(inifile_open("/nonexistent/x.ini", why, sizeof(why)));
	assert_string_equal(why, "No such file or directory");
	assert_non_null(f = fopen(big, "w"));
	assert_int_equal(ftruncate(fileno(f), INI_MAX_FILE + 1), 0);
	fclose(f);
	assert_null(inifile_open(big, why, sizeof(why)));
	assert_string_equal(why, "67108865 bytes: larger than the 64 MB a file of the lab may be");
	assert_non_null(f = fopen(ok, "w"));
	fputs("[lab]\nname = x\n", f);
	fclose(f);
	assert_non_null(f = inifile_open(ok, why, sizeof(why)));
	/* blocking again: read as any stream */
	assert_false(fcntl(fileno(f), F_GETFL) & O_NONBLOCK);
	fclose(f);
	/* the analysis's silent reader refuses the same */
	assert_int_equal(inifile_scan(fifo, NULL, NULL, NULL), -1);
	unlink(fifo);
	unlink(big);
	unlink(ok);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sections_and_pairs),
	    cmocka_unit_test(test_header_errors),
	    cmocka_unit_test(test_pair_errors),
	    cmocka_unit_test(test_indentation),
	    cmocka_unit_test(test_lines),
	    cmocka_unit_test(test_line_marks),
	    cmocka_unit_test(test_cap),
	    cmocka_unit_test(test_silent),
	    cmocka_unit_test(test_scan),
	    cmocka_unit_test(test_open_not_a_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
