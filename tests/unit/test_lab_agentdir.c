/*
 * Where steerlab finds its agents (lab/build/agentdir.c): beside itself when sited
 * is there (a checkout's bin/), else the installed LIBEXECDIR, else beside
 * itself again, so that the missing program is named where make builds it.
 */
#include <fcntl.h>
#include <limits.h>
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

#include "lab/build/lab.h"

struct dirs {
	char root[64], self[PATH_MAX], libexec[PATH_MAX];
};

static void touch(const char *dir, const char *name, mode_t mode)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_CREAT | O_WRONLY, mode);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(chmod(path, mode), 0);
}

static int setup(void **state)
{
	struct dirs *d = calloc(1, sizeof(*d));

	if (d == NULL)
		return -1;
	snprintf(d->root, sizeof(d->root), "/tmp/steerlab-agentdir.XXXXXX");
	if (mkdtemp(d->root) == NULL)
		return -1;
	snprintf(d->self, sizeof(d->self), "%s/bin", d->root);
	snprintf(d->libexec, sizeof(d->libexec), "%s/libexec", d->root);
	if (mkdir(d->self, 0755) == -1)
		return -1;
	touch(d->self, "steerlab", 0755);
	*state = d;
	return 0;
}

static int teardown(void **state)
{
	struct dirs *d = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d->root);
	free(d);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_pick(void **state)
{
	struct dirs *d = *state;
	char got[PATH_MAX];

	/* neither: beside steerlab, where the error will name the program */
	lab_agent_dir_pick(d->self, d->libexec, got, sizeof(got));
	assert_string_equal(got, d->self);

	/* installed: steerlab alone in its directory, the agents in libexec */
	assert_int_equal(mkdir(d->libexec, 0755), 0);
	touch(d->libexec, "sited", 0755);
	lab_agent_dir_pick(d->self, d->libexec, got, sizeof(got));
	assert_string_equal(got, d->libexec);

	/* a sited that is not executable does not count */
	touch(d->self, "sited", 0644);
	lab_agent_dir_pick(d->self, d->libexec, got, sizeof(got));
	assert_string_equal(got, d->libexec);

	/* a checkout's bin/: its own agents win over an installed copy */
	touch(d->self, "sited", 0755);
	lab_agent_dir_pick(d->self, d->libexec, got, sizeof(got));
	assert_string_equal(got, d->self);
}

static void test_self(void **state)
{
	char got[PATH_MAX], want[PATH_MAX];
	ssize_t n;

	(void)state;
	/* the test binary has no sited beside it: libexec if installed, else
	 * the test's own directory */
	lab_agent_dir(got, sizeof(got));
	n = readlink("/proc/self/exe", want, sizeof(want) - 1);
	assert_true(n > 0);
	want[n] = '\0';
	*strrchr(want, '/') = '\0';
	if (strcmp(got, want) != 0)
		assert_string_equal(got, lab_libexecdir());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_pick, setup, teardown),
	    cmocka_unit_test(test_self),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
