/*
 * A lab that is up, as the commands of a later process find it (lab/build/lab.h):
 * its state directory /run/steerlab/LAB (topology.ini, rundir, bindir,
 * namespaces, agents.tsv) and its namespaces' files under /run/netns, made
 * by the test in a /run of its own: labstate_private_run puts the test
 * process in a mount namespace with an empty tmpfs on /run, as
 * tests/run-integration.sh gives each integration test, so nothing of the
 * machine's labs is seen or touched. That takes root; without it the tests
 * that need it skip, saying so.
 *
 * A namespace here is a plain file: what opens it works, what enters it
 * (setns) is refused. An agent that must be alive is a real process of the
 * test, a copy of sleep(1) as BINDIR/LABEL, so that `down`'s and `fail`'s
 * test (its start time, its program in bindir) holds; labstate_reap ends
 * it.
 */
#ifndef STEERLAB_TEST_LABSTATE_H
#define STEERLAB_TEST_LABSTATE_H

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_file.h"

/* labstate_private_run: this process in a mount namespace of its own, an
 * empty tmpfs on /run with /run/steerlab (0711, as `up` makes it) and
 * /run/netns. 0, or -1 (not root, or the kernel refused: why in why). */
static inline int labstate_private_run(char *why, size_t len)
{
	if (geteuid() != 0) {
		snprintf(why, len, "needs root (a mount namespace with /run of its own)");
		return -1;
	}
	if (unshare(CLONE_NEWNS) == -1 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1 ||
	    mount("tmpfs", "/run", "tmpfs", 0, "mode=0755") == -1 ||
	    mkdir("/run/steerlab", 0711) == -1 || mkdir("/run/netns", 0755) == -1) {
		snprintf(why, len, "a /run of its own: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* labstate_file: DIR/NAME holds text, with mode */
static inline void labstate_file(const char *dir, const char *name, const char *text, mode_t mode)
{
	char path[1024];

	test_write_file(dir, name, text);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (chmod(path, mode) == -1)
		fail_msg("%s: chmod: %s", path, strerror(errno));
}

/* labstate_make: /run/steerlab/LAB with topology.ini, rundir and bindir
 * (each "" for none), and a namespace file (and its line) for each name of
 * nss (NULL-terminated: "a" for LAB-a); agents.tsv empty. */
static inline void labstate_make(const char *lab, const char *topology, const char *rundir,
				 const char *bindir, const char *const nss[])
{
	char dir[256], line[300], lines[4096] = "";

	snprintf(dir, sizeof(dir), "/run/steerlab/%s", lab);
	if (mkdir(dir, 0700) == -1)
		fail_msg("%s: %s", dir, strerror(errno));
	labstate_file(dir, "topology.ini", topology, 0644);
	if (rundir[0]) {
		snprintf(line, sizeof(line), "%s\n", rundir);
		labstate_file(dir, "rundir", line, 0644);
	}
	if (bindir[0]) {
		snprintf(line, sizeof(line), "%s\n", bindir);
		labstate_file(dir, "bindir", line, 0644);
	}
	for (int i = 0; nss && nss[i]; i++) {
		snprintf(line, sizeof(line), "%s-%s", lab, nss[i]);
		labstate_file("/run/netns", line, "", 0444);
		snprintf(lines + strlen(lines), sizeof(lines) - strlen(lines), "%s\n", line);
	}
	labstate_file(dir, "namespaces", lines, 0644);
	labstate_file(dir, "agents.tsv", "", 0644);
}

/* labstate_starttime: field 22 of /proc/PID/stat */
static inline unsigned long long labstate_starttime(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fp = fopen(path, "r");
	if (fp == NULL || fgets(buf, sizeof(buf), fp) == NULL)
		fail_msg("%s: %s", path, strerror(errno));
	fclose(fp);
	/* after the command's ')', the space before each field from the
	 * third (state) to the 22nd */
	p = strrchr(buf, ')');
	for (int field = 3; p && field <= 22; field++)
		p = strchr(p + 1, ' ');
	if (p == NULL || sscanf(p + 1, "%llu", &start) != 1)
		fail_msg("%s: no start time", path);
	return start;
}

/* labstate_agent: a line for the agent label of node, pid and start, in
 * LAB's agents.tsv */
static inline void labstate_agent(const char *lab, pid_t pid, unsigned long long start,
				  const char *node, const char *label)
{
	char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "/run/steerlab/%s/agents.tsv", lab);
	fp = fopen(path, "a");
	if (fp == NULL)
		fail_msg("%s: %s", path, strerror(errno));
	fprintf(fp, "%d\t%llu\t%s\t%s\n", (int)pid, start, node, label);
	fclose(fp);
}

/* labstate_spawn: BINDIR/LABEL (a copy of sleep, made if missing) running,
 * once it has been executed (the pipe closes at its exec); its pid */
static inline pid_t labstate_spawn(const char *bindir, const char *label)
{
	char path[512], *sleep_bin;
	int p[2];
	pid_t pid;
	char c;

	snprintf(path, sizeof(path), "%s/%s", bindir, label);
	if (access(path, X_OK) == -1) {
		sleep_bin = test_read_file("/bin/sleep");
		FILE *fp = fopen(path, "w");
		struct stat st;

		if (fp == NULL || stat("/bin/sleep", &st) == -1)
			fail_msg("%s: %s", path, strerror(errno));
		fwrite(sleep_bin, 1, (size_t)st.st_size, fp);
		fclose(fp);
		free(sleep_bin);
		chmod(path, 0755);
	}
	if (pipe2(p, O_CLOEXEC) == -1 || (pid = fork()) == -1)
		fail_msg("spawn %s: %s", path, strerror(errno));
	if (pid == 0) {
		close(p[0]);
		execl(path, label, "600", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	while (read(p[0], &c, 1) == -1 && errno == EINTR)
		;
	close(p[0]);
	return pid;
}

/* labstate_reap: pid (a child of the test) killed if alive, and waited
 * for; its status */
static inline int labstate_reap(pid_t pid)
{
	int status = 0;

	kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	return status;
}

#endif
