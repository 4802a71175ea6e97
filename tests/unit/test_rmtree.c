/*
 * lib/rmtree: a directory the lab made removed with what it holds, to the
 * depth asked; a symbolic link inside is removed, never followed (what it
 * points at stays); a directory deeper than asked is left and reported; a
 * missing directory is not an error.
 */
#include <errno.h>
#include <fcntl.h>
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

#include "rmtree.h"
#include "test_rundir.h"

static void put(const char *dir, const char *name)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_non_null(f = fopen(path, "w"));
	fputs("x\n", f);
	fclose(f);
}

static int exists(const char *dir, const char *name)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return lstat(path, &st) == 0;
}

/* the shape a real resolver's directory has: files, and control/ below */
static void test_depth(void **state)
{
	char *top = rundir_new("rmtree"), *outside = rundir_new("rmtree-out"), link[512];
	int fd;

	(void)state;
	assert_non_null(top);
	assert_non_null(outside);
	put(outside, "keep");
	assert_int_equal(mkdir(strcat(strcpy(link, top), "/node"), 0700), 0);
	assert_int_equal(mkdir(strcat(strcpy(link, top), "/node/control"), 0700), 0);
	put(top, "node/conf");
	put(top, "node/control/sock");
	snprintf(link, sizeof(link), "%s/node/escape", top);
	assert_int_equal(symlink(outside, link), 0);
	assert_true((fd = open(top, O_RDONLY | O_DIRECTORY)) >= 0);

	/* files only: control/ is deeper than asked, so node stays */
	assert_int_equal(rmtree_at(fd, "node", 0), -1);
	assert_int_equal(errno, ENOTEMPTY); /* the last failure: node itself */
	assert_false(exists(top, "node/conf"));
	assert_false(exists(top, "node/escape"));
	assert_true(exists(top, "node/control/sock"));

	assert_int_equal(rmtree_at(fd, "node", 1), 0);
	assert_false(exists(top, "node"));
	assert_true(exists(outside, "keep"));	       /* the link was not followed */
	assert_int_equal(rmtree_at(fd, "node", 1), 0); /* gone already */
	close(fd);
	rundir_free(outside);
	rmdir(top);
	free(top);
}

/* a link where the directory should be is not followed */
static void test_link_as_dir(void **state)
{
	char *top = rundir_new("rmtree"), *outside = rundir_new("rmtree-out"), link[512];
	int fd;

	(void)state;
	put(outside, "keep");
	snprintf(link, sizeof(link), "%s/node", top);
	assert_int_equal(symlink(outside, link), 0);
	assert_true((fd = open(top, O_RDONLY | O_DIRECTORY)) >= 0);
	assert_int_equal(rmtree_at(fd, "node", 2), -1);
	assert_true(exists(outside, "keep"));
	close(fd);
	unlink(link);
	rundir_free(outside);
	rmdir(top);
	free(top);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_depth),
	    cmocka_unit_test(test_link_as_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
