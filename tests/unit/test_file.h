/*
 * What unit tests that work with files need: the whole file as a string,
 * and a file written from one.
 */
#ifndef STEERLAB_TEST_FILE_H
#define STEERLAB_TEST_FILE_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* test_read_file: a whole file, such as a .expected or .golden, malloc'd
 * and NUL-terminated (caller frees); a missing file fails the test. */
static inline char *test_read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long len;

	if (f == NULL)
		fail_msg("%s: cannot open (run the tests from the repository root)", path);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)len + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	return buf;
}

/* test_write_file: DIR/NAME holds text (created or truncated). */
static inline void test_write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
}

/* test_temp_file: a new file under /tmp holding text, its name into path
 * (at least 32 bytes); the caller unlinks it. */
static inline void test_temp_file(char *path, size_t len, const char *text)
{
	int fd;
	FILE *fp;

	snprintf(path, len, "/tmp/steerlab-testXXXXXX");
	assert_true((fd = mkstemp(path)) != -1);
	assert_non_null(fp = fdopen(fd, "w"));
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
}

/* test_mask_line: the rest of the line that starts with tag replaced by
 * word, in place (word no longer than what it replaces) */
static inline void test_mask_line(char *text, const char *tag, const char *word)
{
	char *p = strstr(text, tag), *end;
	size_t n = strlen(word);

	while (p != NULL && p != text && p[-1] != '\n')
		p = strstr(p + 1, tag);
	if (p == NULL)
		return;
	p += strlen(tag);
	end = p + strcspn(p, "\n");
	if ((size_t)(end - p) < n)
		return;
	memcpy(p, word, n);
	memmove(p + n, end, strlen(end) + 1);
}

/* test_mask_csvmeta: a CSV file's text (lib/csvmeta.h) with the values of
 * its "# steerlab VERSION" (git describe's, changing from commit to commit)
 * and "# run RUNID" (a test's temporary directory) lines masked, for a
 * golden file */
static inline char *test_mask_csvmeta(char *text)
{
	test_mask_line(text, "# steerlab ", "VERSION");
	test_mask_line(text, "# run ", "RUN");
	return text;
}

/* test_assert_golden: text is what the golden file at path holds. With
 * UPDATE_GOLDEN set in the environment, a text that differs is written to
 * PATH.new and the test still fails: a person compares the two and copies
 * the new one over (a test that rewrote its own expectation would pass
 * whatever the code printed). */
static inline void test_assert_golden(const char *path, const char *text)
{
	char *want = test_read_file(path);

	if (strcmp(text, want) != 0 && getenv("UPDATE_GOLDEN")) {
		char newpath[PATH_MAX];
		FILE *fp;

		snprintf(newpath, sizeof(newpath), "%s.new", path);
		fp = fopen(newpath, "w");
		assert_non_null(fp);
		fputs(text, fp);
		assert_int_equal(fclose(fp), 0);
		free(want);
		fail_msg("%s differs from what the code prints: wrote %s (diff them; copy it over "
			 "if the change is right)",
			 path, newpath);
	}
	assert_string_equal(text, want);
	free(want);
}

#endif
