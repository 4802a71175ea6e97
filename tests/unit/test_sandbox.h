/*
 * The lab's own tests (test_lab_*.c) run what `steerlab up` and `down` do
 * for real: state directories under /run/steerlab, namespaces under
 * /run/netns, agents forked into them. This header gives such a test
 * process a machine of its own to do it on, and agents that do nothing.
 *
 * sandbox_enter (first thing in main) runs the tests in a new network
 * namespace (nothing they make reaches the machine's links, addresses or
 * routes), a new mount namespace in which /run, /tmp and /var/tmp are empty
 * tmpfs mounts of their own (/run/steerlab and /run/netns are the test's
 * alone; whatever it leaves there goes with its last process), and a new
 * PID namespace whose first process is the test: when it ends, however it
 * ends, every process it started ends with it. As root that is all;
 * otherwise it first makes a user namespace in which it is root, if the
 * kernel lets it. A test that cannot have it says why and skips
 * (SANDBOX_REQUIRE); as root nothing skips.
 *
 * The fake agents: sandbox_bindir copies this test program under each
 * agent's name into a directory, so that a lab whose bindir it is starts
 * them (and `down` takes them for the lab's agents: /proc/PID/exe is
 * bindir's). Started with STEERLAB_TEST_AGENT in the environment, main
 * hands over to sandbox_agent_main, which writes to its standard output
 * (the agent's log, RUNDIR/NODE.LABEL.log) one block:
 *
 *   recorded: yes       its PID has a line in $STEERLAB_TEST_STATEDIR/agents.tsv
 *   fds: 0 1 2          the descriptors it was given
 *   stdin: /dev/null
 *   session: own        it leads a session of its own
 *   argv: sited -n a ...
 *
 * then, given an argument exit=N, exits with N; else waits for SIGTERM,
 * appends "LOGNAME stopped" to $STEERLAB_TEST_STOPS and exits 0. It
 * never writes coverage data (_exit).
 */
#ifndef STEERLAB_TEST_SANDBOX_H
#define STEERLAB_TEST_SANDBOX_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_child.h"

#define SANDBOX_AGENT_ENV "STEERLAB_TEST_AGENT"
#define SANDBOX_STATEDIR_ENV "STEERLAB_TEST_STATEDIR"
#define SANDBOX_STOPS_ENV "STEERLAB_TEST_STOPS"

static char sandbox_why[256]; /* why not, when sandbox_ok is 0 */
static int sandbox_ok;
static int sandbox_root; /* the test runs as the machine's root */

static inline int sandbox_write(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), rc;

	if (fd == -1)
		return -1;
	rc = write(fd, text, strlen(text)) == (ssize_t)strlen(text) ? 0 : -1;
	close(fd);
	return rc;
}

/* the watcher's: the test process, and SIGALRM's kill of it */
static pid_t sandbox_test_pid;

static void sandbox_watchdog(int sig)
{
	(void)sig;
	kill(sandbox_test_pid, SIGKILL);
}

/* sandbox_watch: in the process that made the namespaces, wait for the test
 * (its child, init of the new PID namespace: when it ends, for whatever
 * reason, the kernel kills whatever it started) at most
 * SANDBOX_WATCHDOG_S, and exit as it did. Never returns. */
#define SANDBOX_WATCHDOG_S 300 /* a hung test fails; a slow one does not */
static inline void __attribute__((noreturn)) sandbox_watch(pid_t test)
{
	struct sigaction sa = {.sa_handler = sandbox_watchdog};
	int status = 0;

	sandbox_test_pid = test;
	sigaction(SIGALRM, &sa, NULL);
	alarm(SANDBOX_WATCHDOG_S);
	while (waitpid(test, &status, 0) == -1 && errno == EINTR)
		;
	if (WIFSIGNALED(status))
		fprintf(stderr, "%s: the test process was killed by signal %d%s\n",
			program_invocation_short_name, WTERMSIG(status),
			WTERMSIG(status) == SIGKILL ? " (hung? the watchdog's limit is 300 s)"
						    : "");
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}

/* sandbox_enter: see above. The namespaces are made here; the tests run in
 * a child, the first process of a new PID namespace, so that nothing a
 * test starts (an agent, FRR, a resolver) outlives it, even when it fails
 * half-way or is killed: this process watches it (sandbox_watch). */
static inline void sandbox_enter(void)
{
	static const char *const mounts[] = {"/run", "/tmp", "/var/tmp"};
	uid_t uid = getuid();
	gid_t gid = getgid();
	char map[64];
	pid_t test;

	sandbox_root = geteuid() == 0;
	if (unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWPID |
		    (sandbox_root ? 0 : CLONE_NEWUSER)) == -1) {
		snprintf(sandbox_why, sizeof(sandbox_why),
			 "skipped: needs root, or user namespaces (unshare: %s)", strerror(errno));
		return;
	}
	if (!sandbox_root) {
		snprintf(map, sizeof(map), "0 %u 1", (unsigned)uid);
		if (sandbox_write("/proc/self/setgroups", "deny") == -1 ||
		    sandbox_write("/proc/self/uid_map", map) == -1)
			goto fail;
		snprintf(map, sizeof(map), "0 %u 1", (unsigned)gid);
		if (sandbox_write("/proc/self/gid_map", map) == -1)
			goto fail;
	}
	fflush(NULL);
	if ((test = fork()) == -1)
		goto fail;
	if (test > 0)
		sandbox_watch(test);
	/* and if the watcher dies, the test with all it started (getppid is 0
	 * here, the watcher being outside the namespace) */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
		_exit(1);
	/* nothing mounted from here on reaches the machine's namespace */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1)
		goto fail;
	for (size_t i = 0; i < sizeof(mounts) / sizeof(mounts[0]); i++)
		if (mount("sandbox", mounts[i], "tmpfs", 0, i ? "mode=1777" : "mode=0755") == -1)
			goto fail;
	/* the PIDs this process sees are its namespace's */
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == -1)
		goto fail;
	sandbox_ok = 1;
	return;
fail:
	snprintf(sandbox_why, sizeof(sandbox_why), "skipped: no namespaces of its own (%s)",
		 strerror(errno));
}

/* SANDBOX_REQUIRE: in a test, skip it (saying why) without the sandbox;
 * SANDBOX_REQUIRE_ROOT: also without the machine's root (a daemon that
 * drops to its own user, files chowned to it). */
#define SANDBOX_REQUIRE()                                                                          \
	do {                                                                                       \
		if (!sandbox_ok) {                                                                 \
			print_message("%s\n", sandbox_why);                                        \
			skip();                                                                    \
		}                                                                                  \
	} while (0)
#define SANDBOX_REQUIRE_ROOT()                                                                     \
	do {                                                                                       \
		SANDBOX_REQUIRE();                                                                 \
		if (!sandbox_root) {                                                               \
			print_message("skipped: needs root (a daemon that drops to its own "       \
				      "user)\n");                                                  \
			skip();                                                                    \
		}                                                                                  \
	} while (0)

/* the fake agent's SIGTERM: what to append where, made before the handler */
static char sandbox_stop_line[PATH_MAX + 16];
static int sandbox_stop_fd = -1;

static void sandbox_agent_term(int sig)
{
	(void)sig;
	if (sandbox_stop_fd >= 0 &&
	    write(sandbox_stop_fd, sandbox_stop_line, strlen(sandbox_stop_line)) < 0)
		_exit(2);
	_exit(0);
}

/* sandbox_recorded: a line of dir/agents.tsv begins with pid */
static inline const char *sandbox_recorded(const char *dir)
{
	char path[PATH_MAX], line[256], want[32];
	const char *found = "no";
	FILE *fp;

	if (dir == NULL)
		return "?";
	snprintf(path, sizeof(path), "%s/agents.tsv", dir);
	snprintf(want, sizeof(want), "%d\t", (int)getpid());
	if ((fp = fopen(path, "r")) == NULL)
		return "no";
	while (fgets(line, sizeof(line), fp))
		if (strncmp(line, want, strlen(want)) == 0)
			found = "yes";
	fclose(fp);
	return found;
}

/* sandbox_agent_then: what a fake agent does once its block is written
 * (a fake linkd says linkd_ready then, so that a test that saw it ready
 * finds its block), or NULL */
static void (*sandbox_agent_then)(int argc, char **argv);

static inline int sandbox_agent_main(int argc, char **argv)
{
	char out[8192], target[PATH_MAX], *stops = getenv(SANDBOX_STOPS_ENV);
	size_t used = 0;
	struct dirent *de;
	ssize_t n;
	DIR *d;
	int code = -1;

	n = readlink("/proc/self/fd/1", target, sizeof(target) - 1);
	target[n > 0 ? n : 0] = '\0';
	snprintf(sandbox_stop_line, sizeof(sandbox_stop_line), "%s stopped\n",
		 strrchr(target, '/') ? strrchr(target, '/') + 1 : target);
	if (stops)
		sandbox_stop_fd = open(stops, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	signal(SIGTERM, sandbox_agent_term);

	used +=
	    (size_t)snprintf(out + used, sizeof(out) - used,
			     "recorded: %s\nfds:", sandbox_recorded(getenv(SANDBOX_STATEDIR_ENV)));
	if ((d = opendir("/proc/self/fd")) != NULL) {
		while ((de = readdir(d)) != NULL && used < sizeof(out)) {
			int fd = atoi(de->d_name);
			if (de->d_name[0] == '.' || fd == dirfd(d) || fd == sandbox_stop_fd)
				continue;
			used += (size_t)snprintf(out + used, sizeof(out) - used, " %d", fd);
		}
		closedir(d);
	}
	n = readlink("/proc/self/fd/0", target, sizeof(target) - 1);
	target[n > 0 ? n : 0] = '\0';
	used += (size_t)snprintf(out + used, sizeof(out) - used,
				 "\nstdin: %s\nsession: %s\nargv:", target,
				 getsid(0) == getpid() ? "own" : "inherited");
	for (int i = 0; i < argc && used < sizeof(out); i++) {
		used += (size_t)snprintf(out + used, sizeof(out) - used, " %s", argv[i]);
		if (strncmp(argv[i], "exit=", 5) == 0)
			code = atoi(argv[i] + 5);
	}
	if (used < sizeof(out))
		used += (size_t)snprintf(out + used, sizeof(out) - used, "\n");
	if (write(STDOUT_FILENO, out, used < sizeof(out) ? used : sizeof(out)) < 0)
		_exit(3);
	if (sandbox_agent_then)
		sandbox_agent_then(argc, argv);
	if (code >= 0)
		_exit(code);
	for (;;)
		pause();
}

/* SANDBOX_MAIN: the first lines of a lab test's main(). */
#define SANDBOX_MAIN(argc, argv)                                                                   \
	do {                                                                                       \
		if (getenv(SANDBOX_AGENT_ENV))                                                     \
			return sandbox_agent_main((argc), (argv));                                 \
		sandbox_enter();                                                                   \
		setenv(SANDBOX_AGENT_ENV, "1", 1);                                                 \
	} while (0)

/* sandbox_copy: from to `to`, mode 0755. 0 or -1. */
static inline int sandbox_copy(const char *from, const char *to)
{
	int in = open(from, O_RDONLY | O_CLOEXEC), out, rc = 0;
	char buf[65536];
	ssize_t n;

	if (in == -1)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (out == -1) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			rc = -1;
	if (n < 0)
		rc = -1;
	close(in);
	return close(out) == -1 ? -1 : rc;
}

/* sandbox_bindir: dir (made if missing) with this program as each of the
 * lab's agents. 0 or -1. */
static inline int sandbox_bindir(const char *dir)
{
	static const char *const agents[] = {"routed", "collector", "sited",	"prober",
					     "client", "authd",	    "resolverd"};
	char path[PATH_MAX];

	if (mkdir(dir, 0755) == -1 && errno != EEXIST)
		return -1;
	for (size_t i = 0; i < sizeof(agents) / sizeof(agents[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, agents[i]);
		if (access(path, X_OK) == 0)
			continue;
		if (sandbox_copy("/proc/self/exe", path) == -1)
			return -1;
	}
	return 0;
}

/* sandbox_read: the whole file at path, malloc'd; NULL if it cannot be read. */
static inline char *sandbox_read(const char *path)
{
	FILE *fp = fopen(path, "r");
	char *text = NULL;
	size_t cap = 0, len = 0, n;

	if (fp == NULL)
		return NULL;
	do {
		if (len + 4096 + 1 > cap) {
			char *more = realloc(text, cap = cap * 2 + 8192);
			if (more == NULL) {
				free(text);
				fclose(fp);
				return NULL;
			}
			text = more;
		}
		n = fread(text + len, 1, 4096, fp);
		len += n;
	} while (n > 0);
	text[len] = '\0';
	fclose(fp);
	return text;
}

/* sandbox_wait_file: until the file at path holds needle (or, with needle
 * NULL, exists), at most 10 s (a loaded machine): 0, or -1. It waits for
 * what it needs, looking every millisecond, not for a guessed time. */
static inline int sandbox_wait_file(const char *path, const char *needle)
{
	struct timespec ms = {0, 1000000};

	for (int i = 0; i < 10000; i++) {
		char *text = sandbox_read(path);
		int found = text && (needle == NULL || strstr(text, needle));

		free(text);
		if (found)
			return 0;
		nanosleep(&ms, NULL);
	}
	return -1;
}

/* The messages of the code under test, log.c's and the supervisor's own
 * lines on standard error: capture_begin sends them to a file, capture_end
 * gives them back (malloc'd), each line without log.c's time stamp
 * (tests/unit/test_child.h). */
static int capture_saved = -1;

static inline void capture_begin(void)
{
	capture_saved = test_stderr_begin();
}

static inline char *capture_end(void)
{
	char *raw = test_stderr_end(capture_saved), *text = test_strip_stamps(raw);

	free(raw);
	return text;
}

/* sandbox_proc_start: field 22 of /proc/PID/stat (its start time), read
 * here on its own; 0 if it cannot be read */
static inline unsigned long long sandbox_proc_start(pid_t pid)
{
	char path[64], *text, *p;
	unsigned long long start = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((text = sandbox_read(path)) == NULL)
		return 0;
	if ((p = strrchr(text, ')')) != NULL) {
		p += 2;
		for (int field = 3; p && field < 22; field++)
			if ((p = strchr(p, ' ')) != NULL)
				p++;
		if (p)
			start = strtoull(p, NULL, 10);
	}
	free(text);
	return start;
}

/* sandbox_spawn: prog with argv, its output appended to log; the pid, or
 * -1 */
static inline pid_t sandbox_spawn(const char *prog, char *const argv[], const char *log)
{
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (fd == -1 || dup2(fd, STDOUT_FILENO) == -1)
			_exit(126);
		execv(prog, argv);
		_exit(127);
	}
	return pid;
}

/* sandbox_events: the events called name in the JSON Lines file at path,
 * as an array (the caller decrefs). */
static inline json_t *sandbox_events(const char *path, const char *name)
{
	json_t *all = json_array();
	char *text = sandbox_read(path), *save = NULL;

	for (char *line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		json_t *ev = json_loads(line, 0, NULL);
		const char *e = json_string_value(json_object_get(ev, "event"));

		if (e && strcmp(e, name) == 0)
			json_array_append(all, ev);
		json_decref(ev);
	}
	free(text);
	return all;
}

#endif
