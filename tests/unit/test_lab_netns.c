/*
 * Named network namespaces (lab/build/netns.c) for real, as `ip netns` sees them:
 * a file under /run/netns with the namespace bind-mounted on it, /run/netns
 * a shared mount, the caller left in its own namespace; entering one and
 * coming back; deleting it; a name in use or too long refused; the
 * processes inside a namespace found by its device and inode, each held
 * by a pidfd; `exec`'s view of /sys. All of it in the mount and network
 * namespaces of tests/unit/test_sandbox.h, whose /run/netns is the test's
 * own; every namespace is removed by its exact name.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "lab/build/lab.h"
#include "test_sandbox.h"

static const char *const names[] = {"t20ns-a", "t20ns-b"};

static int teardown(void **state)
{
	(void)state;
	for (size_t i = 0; sandbox_ok && i < sizeof(names) / sizeof(names[0]); i++)
		if (netns_exists(names[i]))
			netns_delete(names[i]);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	return 0;
}

/* same: path and fd (or, fd -1, path2) are one namespace */
static int same_ns(const char *path, int fd, const char *path2)
{
	struct stat a, b;

	assert_int_equal(stat(path, &a), 0);
	if (fd >= 0)
		assert_int_equal(fstat(fd, &b), 0);
	else
		assert_int_equal(stat(path2, &b), 0);
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* mountinfo_line: the line of /proc/self/mountinfo for mount point dir */
static char *mountinfo_line(const char *dir)
{
	char *text = sandbox_read("/proc/self/mountinfo"), *save = NULL, *found = NULL;

	assert_non_null(text);
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char point[PATH_MAX];
		if (sscanf(line, "%*s %*s %*s %*s %4095s", point) == 1 && strcmp(point, dir) == 0)
			found = line; /* the last one is on top */
	}
	found = found ? strdup(found) : NULL;
	free(text);
	return found;
}

static void test_create(void **state)
{
	char *mnt;
	int fd;

	(void)state;
	SANDBOX_REQUIRE();
	assert_int_equal(netns_exists("t20ns-a"), 0);
	assert_int_equal(netns_create("t20ns-a"), 0);
	assert_int_equal(netns_exists("t20ns-a"), 1);
	/* the caller stays where it was; the file is another namespace */
	assert_false(same_ns("/proc/self/ns/net", -1, NETNS_DIR "/t20ns-a"));
	assert_true((fd = netns_open("t20ns-a")) >= 0);
	assert_true(same_ns(NETNS_DIR "/t20ns-a", fd, NULL));
	close(fd);
	/* bind-mounted, and /run/netns shared, as ip netns makes them */
	assert_non_null(mnt = mountinfo_line(NETNS_DIR "/t20ns-a"));
	assert_non_null(strstr(mnt, " - nsfs "));
	free(mnt);
	assert_non_null(mnt = mountinfo_line(NETNS_DIR));
	assert_non_null(strstr(mnt, " shared:"));
	free(mnt);
	/* a name in use */
	assert_int_equal(netns_create("t20ns-a"), -1);
	assert_int_equal(errno, EEXIST);
	assert_int_equal(netns_create("t20ns-b"), 0);
	assert_false(same_ns(NETNS_DIR "/t20ns-a", -1, NETNS_DIR "/t20ns-b"));
}

static void test_enter(void **state)
{
	int fd, null;

	(void)state;
	SANDBOX_REQUIRE();
	assert_int_equal(netns_create("t20ns-a"), 0);
	fd = netns_open("t20ns-a");
	assert_int_equal(netns_enter(fd), 0);
	assert_true(same_ns("/proc/self/ns/net", fd, NULL));
	assert_int_equal(netns_enter_root(), 0);
	assert_false(same_ns("/proc/self/ns/net", fd, NULL));
	close(fd);
	null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_int_equal(netns_enter(null), -1);
	assert_int_equal(errno, EINVAL);
	close(null);
}

static void test_delete(void **state)
{
	char name[300];

	(void)state;
	SANDBOX_REQUIRE();
	assert_int_equal(netns_create("t20ns-a"), 0);
	assert_int_equal(netns_delete("t20ns-a"), 0);
	assert_int_equal(netns_exists("t20ns-a"), 0);
	assert_null(mountinfo_line(NETNS_DIR "/t20ns-a"));
	assert_int_equal(netns_delete("t20ns-a"), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(netns_open("t20ns-a"), -1);
	assert_int_equal(errno, ENOENT);
	/* a name that does not fit */
	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	assert_int_equal(netns_create(name), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	assert_int_equal(netns_delete(name), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	assert_int_equal(netns_open(name), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	assert_int_equal(netns_exists(name), 0);
}

static void test_members(void **state)
{
	const char *const look[] = {"t20ns-none", "t20ns-b", "t20ns-a"};
	struct netns_member m[4];
	int fd, p[2], status, n;
	char c;
	pid_t pid;

	(void)state;
	SANDBOX_REQUIRE();
	assert_int_equal(netns_create("t20ns-a"), 0);
	assert_int_equal(netns_create("t20ns-b"), 0);
	fd = netns_open("t20ns-a");
	assert_int_equal(pipe(p), 0);
	assert_true((pid = fork()) != -1);
	if (pid == 0) {
		if (netns_enter(fd) == -1 || write(p[1], "i", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	assert_int_equal(read(p[0], &c, 1), 1);
	close(p[0]);

	assert_int_equal(netns_members(look, 3, m, 4), 1);
	assert_int_equal(m[0].pid, pid);
	assert_int_equal(m[0].ns, 2);
	assert_string_equal(m[0].comm, "test_lab_netns");
	/* held: signalled through its pidfd */
	assert_int_equal(pidfd_send_signal(m[0].pidfd, SIGKILL, NULL, 0), 0);
	close(m[0].pidfd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	/* the caller is never one of them, nor a namespace that is not there */
	assert_int_equal(netns_enter(fd), 0);
	n = netns_members(look, 3, m, 4);
	assert_int_equal(netns_enter_root(), 0);
	assert_int_equal(n, 0);
	assert_int_equal(netns_members(look, 1, m, 4), 0);
	close(fd);
}

/* what `steerlab exec` sees of /sys: the namespace's own links */
static void test_enter_exec(void **state)
{
	char buf[256] = "";
	int fd, p[2], status;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	(void)state;
	SANDBOX_REQUIRE();
	assert_int_equal(netns_create("t20ns-a"), 0);
	assert_int_equal(system("ip -n t20ns-a link add t20x type veth peer name t20y"), 0);
	fd = netns_open("t20ns-a");
	assert_int_equal(pipe(p), 0);
	assert_true((pid = fork()) != -1);
	if (pid == 0) {
		struct dirent **list;
		int k;

		close(p[0]);
		if (netns_enter_exec(fd) == -1)
			_exit(1);
		if ((k = scandir("/sys/class/net", &list, NULL, alphasort)) < 0)
			_exit(2);
		for (int i = 0; i < k; i++)
			if (list[i]->d_name[0] != '.')
				dprintf(p[1], "%s ", list[i]->d_name);
		_exit(0);
	}
	close(p[1]);
	while ((n = read(p[0], buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	close(p[0]);
	close(fd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_string_equal(buf, "lo t20x t20y ");
	/* the caller's /sys is as it was */
	assert_int_equal(access("/sys/class/net/t20x", F_OK), -1);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_create, teardown),
	    cmocka_unit_test_teardown(test_enter, teardown),
	    cmocka_unit_test_teardown(test_delete, teardown),
	    cmocka_unit_test_teardown(test_members, teardown),
	    cmocka_unit_test_teardown(test_enter_exec, teardown),
	};

	SANDBOX_MAIN(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
