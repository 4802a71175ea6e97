/*
 * lib/atomicfile: a file written beside its target and renamed into place.
 * The new content replaces the old only when committed; an abort or a
 * failed write leaves the old file and no temporary one; a symbolic link
 * planted under the temporary file's old name (NAME.tmp) or under NAME is
 * never written through; a write error is reported with the file's name,
 * strerror's text and the errno's name (EFBIG here: RLIMIT_FSIZE makes a
 * full disk without root).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "atomicfile.h"
#include "test_rundir.h"
#include "test_file.h"

static int setup(void **state)
{
	char *dir = rundir_new("test_atomicfile");

	if (dir == NULL)
		return -1;
	*state = dir;
	return 0;
}

static int teardown(void **state)
{
	rundir_free(*state);
	return 0;
}

static char *slurp(const char *dir, const char *name)
{
	static char buf[4096];
	char path[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY);
	if (fd == -1)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n < 0 ? 0 : n] = '\0';
	return buf;
}

/* entries: the directory's names, but . and .. */
static int entries(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)) != NULL)
		n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
	closedir(d);
	return n;
}

static int is_link(const char *dir, const char *name)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

static void test_commit(void **state)
{
	const char *dir = *state;
	struct atomicfile af;
	char err[512];
	int dirfd = atomicfile_dir(dir, err, sizeof(err));

	assert_true(dirfd >= 0);
	test_write_file(dir, "out.txt", "old\n");
	assert_int_equal(atomicfile_open(&af, dirfd, dir, "out.txt", err, sizeof(err)), 0);
	fprintf(af.fp, "new %d\n", 42);
	/* not there before the commit */
	assert_string_equal(slurp(dir, "out.txt"), "old\n");
	assert_int_equal(atomicfile_size(&af), 7);
	assert_int_equal(atomicfile_commit(&af, err, sizeof(err)), 0);
	assert_string_equal(slurp(dir, "out.txt"), "new 42\n");
	assert_int_equal(entries(dir), 1); /* no temporary file left */
	/* an abort leaves the old file */
	assert_int_equal(atomicfile_open(&af, dirfd, dir, "out.txt", err, sizeof(err)), 0);
	fputs("never\n", af.fp);
	atomicfile_abort(&af);
	assert_string_equal(slurp(dir, "out.txt"), "new 42\n");
	assert_int_equal(entries(dir), 1);
	close(dirfd);
}

/* links planted as NAME.tmp and as NAME are not followed */
static void test_links_not_followed(void **state)
{
	const char *dir = *state;
	struct atomicfile af;
	char err[512], path[512];
	int dirfd = atomicfile_dir(dir, err, sizeof(err));

	assert_true(dirfd >= 0);
	test_write_file(dir, "victim", "untouched\n");
	snprintf(path, sizeof(path), "%s/clocks.json.tmp", dir);
	assert_int_equal(symlink("victim", path), 0);
	snprintf(path, sizeof(path), "%s/clocks.json", dir);
	assert_int_equal(symlink("victim", path), 0);
	assert_int_equal(atomicfile_open(&af, dirfd, dir, "clocks.json", err, sizeof(err)), 0);
	fputs("{}\n", af.fp);
	assert_int_equal(atomicfile_commit(&af, err, sizeof(err)), 0);
	assert_string_equal(slurp(dir, "victim"), "untouched\n");
	assert_string_equal(slurp(dir, "clocks.json"), "{}\n");
	assert_false(is_link(dir, "clocks.json"));
	assert_true(is_link(dir, "clocks.json.tmp")); /* left alone */
	close(dirfd);
}

/* a write that fails: named, with its errno's name; the old file stays */
static void test_write_error(void **state)
{
	const char *dir = *state;
	struct rlimit old, small = {.rlim_cur = 1000};
	struct atomicfile af;
	char err[512] = "", line[200];
	int dirfd = atomicfile_dir(dir, err, sizeof(err)), rc;

	assert_true(dirfd >= 0);
	test_write_file(dir, "report.md", "old\n");
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	small.rlim_max = old.rlim_max;
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(atomicfile_open(&af, dirfd, dir, "report.md", err, sizeof(err)), 0);
	memset(line, 'x', sizeof(line) - 2);
	line[sizeof(line) - 2] = '\n';
	line[sizeof(line) - 1] = '\0';
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	for (int i = 0; i < 100; i++)
		fputs(line, af.fp);
	rc = atomicfile_commit(&af, err, sizeof(err));
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	assert_int_equal(rc, -1);
	if (strstr(err, "/report.md: cannot write: File too large (EFBIG)") == NULL)
		fail_msg("error \"%s\"", err);
	assert_non_null(strstr(err, dir));
	assert_string_equal(slurp(dir, "report.md"), "old\n");
	assert_int_equal(entries(dir), 1);
	close(dirfd);
}

static void test_errors(void **state)
{
	const char *dir = *state;
	struct atomicfile af;
	char err[512], path[512];
	int dirfd;

	snprintf(path, sizeof(path), "%s/no-such-dir", dir);
	assert_int_equal(atomicfile_dir(path, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no-such-dir: cannot open the directory: No such file or "
				    "directory (ENOENT)"));
	dirfd = atomicfile_dir(dir, err, sizeof(err));
	assert_true(dirfd >= 0);
	assert_int_equal(atomicfile_open(&af, dirfd, dir, "../x", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "../x: not a plain file name"));
	assert_int_equal(atomicfile_open(&af, dirfd, dir, "..", err, sizeof(err)), -1);
	close(dirfd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_commit, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_links_not_followed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_write_error, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
	};

	return cmocka_run_group_tests_name("atomicfile", tests, NULL, NULL);
}
