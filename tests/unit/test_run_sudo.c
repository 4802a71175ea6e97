/* lab/run.c: the user a run directory is given back to (SUDO_UID, SUDO_GID). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_valid),
	    cmocka_unit_test(test_unset),
	    cmocka_unit_test(test_invalid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
