/* lab/run/runowner.c: the user a run directory is given back to (SUDO_UID,
 * SUDO_GID), and the walk that gives it. */
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "run.h"

static int owner(const char *uid, const char *gid, uid_t *u, gid_t *g)
{
	if (uid)
		setenv("SUDO_UID", uid, 1);
	else
		unsetenv("SUDO_UID");
	if (gid)
		setenv("SUDO_GID", gid, 1);
	else
		unsetenv("SUDO_GID");
	return run_sudo_owner(u, g);
}

static void test_valid(void **state)
{
	uid_t u = 0;
	gid_t g = 0;

	(void)state;
	assert_int_equal(owner("1000", "1001", &u, &g), 0);
	assert_int_equal(u, 1000);
	assert_int_equal(g, 1001);
	assert_int_equal(owner("0", "0", &u, &g), 0);
	assert_int_equal(u, 0);
	assert_int_equal(owner("4294967294", "4294967294", &u, &g), 0);
	assert_int_equal(u, 4294967294U);
}

static void test_unset(void **state)
{
	uid_t u = 7;
	gid_t g = 7;

	(void)state;
	assert_int_equal(owner(NULL, NULL, &u, &g), -1);
	assert_int_equal(owner("1000", NULL, &u, &g), -1);
	assert_int_equal(owner(NULL, "1000", &u, &g), -1);
	assert_int_equal(u, 7);
	assert_int_equal(g, 7);
}

/* strtoul took "abc" for 0: root's run given to root, or "-1" for the
 * "unchanged" id; now each is refused, and nothing is written */
static void test_invalid(void **state)
{
	static const char *bad[] = {"abc", "", "-1", "12x", "4294967295", "99999999999", "-0"};
	uid_t u = 7;
	gid_t g = 7;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(owner(bad[i], "1000", &u, &g), -1);
		assert_int_equal(owner("1000", bad[i], &u, &g), -1);
	}
	assert_int_equal(u, 7);
	assert_int_equal(g, 7);
}

static uid_t test_uid(const char *path)
{
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	return st.st_uid;
}

static int test_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

/* Everything root made under the run, at any depth, becomes the user's (a
 * sweep's points, report files written later); what a link points to, a
 * file with a second name elsewhere and the parent stay root's. */
static void test_chown_walk(void **state)
{
	char top[] = "/tmp/test_run_sudo.XXXXXX", run[256], p[300], outside[300];
	int fd;

	(void)state;
	if (geteuid() != 0) {
		print_message("skipped: needs root (files of another owner)\n");
		skip();
	}
	assert_non_null(mkdtemp(top));
	snprintf(run, sizeof(run), "%s/sweep", top);
	assert_int_equal(mkdir(run, 0755), 0);
	snprintf(p, sizeof(p), "%s/ttl=2", run);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/ttl=2/plots", run);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/ttl=2/plots/decay.png", run);
	assert_true((fd = open(p, O_CREAT | O_WRONLY, 0644)) >= 0);
	close(fd);
	snprintf(p, sizeof(p), "%s/sweep.csv", run);
	assert_true((fd = open(p, O_CREAT | O_WRONLY, 0644)) >= 0);
	close(fd);
	/* planted: a link to a root file outside, and a second name of one */
	snprintf(outside, sizeof(outside), "%s/outside", top);
	assert_true((fd = open(outside, O_CREAT | O_WRONLY, 0644)) >= 0);
	close(fd);
	snprintf(p, sizeof(p), "%s/ttl=2/link", run);
	assert_int_equal(symlink(outside, p), 0);
	snprintf(p, sizeof(p), "%s/ttl=2/hard", run);
	assert_int_equal(link(outside, p), 0);
	snprintf(p, sizeof(p), "%s/dirlink", run);
	assert_int_equal(symlink(top, p), 0);

	setenv("SUDO_UID", "65534", 1);
	setenv("SUDO_GID", "65534", 1);
	run_chown(run);
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");

	assert_int_equal(test_uid(run), 65534);
	snprintf(p, sizeof(p), "%s/ttl=2", run);
	assert_int_equal(test_uid(p), 65534);
	snprintf(p, sizeof(p), "%s/ttl=2/plots", run);
	assert_int_equal(test_uid(p), 65534);
	snprintf(p, sizeof(p), "%s/ttl=2/plots/decay.png", run);
	assert_int_equal(test_uid(p), 65534);
	snprintf(p, sizeof(p), "%s/sweep.csv", run);
	assert_int_equal(test_uid(p), 65534);
	snprintf(p, sizeof(p), "%s/ttl=2/link", run);
	assert_int_equal(test_uid(p), 65534); /* the link itself */
	assert_int_equal(test_uid(outside), 0);
	assert_int_equal(test_uid(top), 0);
	snprintf(p, sizeof(p), "%s/ttl=2/hard", run);
	assert_int_equal(test_uid(p), 0);
	assert_int_equal(nftw(top, test_rm, 8, FTW_DEPTH | FTW_PHYS), 0);
}

/* without SUDO_UID nothing changes hands */
static void test_chown_unset(void **state)
{
	char top[] = "/tmp/test_run_sudo.XXXXXX";

	(void)state;
	if (geteuid() != 0) {
		print_message("skipped: needs root (files of another owner)\n");
		skip();
	}
	assert_non_null(mkdtemp(top));
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	run_chown(top);
	assert_int_equal(test_uid(top), 0);
	assert_int_equal(rmdir(top), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_valid),	cmocka_unit_test(test_unset),
	    cmocka_unit_test(test_invalid),	cmocka_unit_test(test_chown_walk),
	    cmocka_unit_test(test_chown_unset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
