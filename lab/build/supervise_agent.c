/*
 * An agent held by a pidfd, for the live supervisor (supervise.c) and the
 * teardown from recorded state (down.c): its start time, whether it still
 * runs, a signal through its pidfd, waiting for agents to end and stopping
 * them in order. Below both, so neither calls into the other for these.
 */
#include "supervise.h"

#include "lab.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/pidfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "event.h"
#include "log.h"
#include "strfmt.h"
#include "timeutil.h"

/* supervise_starttime: field 22 of /proc/PID/stat, and its state letter. */
int supervise_starttime(pid_t pid, unsigned long long *start, char *state)
{
	char path[64], buf[1024], *p;
	ssize_t n;
	int fd;

	strfmt(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if ((p = strrchr(buf, ')')) == NULL)
		return -1;
	/* after ") ": field 3 is the state; field 22 is 19 fields further */
	if (sscanf(p + 2,
		   "%c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s "
		   "%*s %*s %llu",
		   state, start) != 2)
		return -1;
	return 0;
}

void supervise_close(struct lab_agent *a)
{
	if (a->pidfd >= 0)
		close(a->pidfd);
	a->pidfd = -1;
}

/* supervise_reap: if a, our child, has ended, wait for it and keep how it
 * ended. 1 if it has ended. */
int supervise_reap(struct lab_agent *a)
{
	siginfo_t si;
	int r;

	memset(&si, 0, sizeof(si));
	if (a->pidfd >= 0)
		r = waitid(P_PIDFD, (id_t)a->pidfd, &si, WEXITED | WNOHANG);
	else
		r = waitid(P_PID, (id_t)a->pid, &si, WEXITED | WNOHANG);
	if (r == 0 && si.si_pid == 0)
		return 0; /* still running */
	if (r == 0)
		a->exit = si;
	else if (errno != ECHILD)
		return 0;
	/* ECHILD: waited for elsewhere; how it ended is not known */
	a->reaped = 1;
	supervise_close(a);
	return 1;
}

/* supervise_alive: our child is reaped when it ends; another process's agent
 * is checked through its pidfd, else /proc with the start time guarding
 * against a reused PID. */
int supervise_alive(struct lab_agent *a)
{
	unsigned long long start;
	char state;

	if (a->reaped)
		return 0;
	if (a->child)
		return !supervise_reap(a);
	if (a->pidfd >= 0) {
		struct pollfd p = {.fd = a->pidfd, .events = POLLIN};
		if (poll(&p, 1, 0) == 0)
			return 1;
		a->reaped = 1;
		supervise_close(a);
		return 0;
	}
	if (supervise_starttime(a->pid, &start, &state) == -1 || start != a->starttime ||
	    state == 'Z' || state == 'X') {
		a->reaped = 1;
		return 0;
	}
	return 1;
}

/* supervise_signal: through the pidfd when there is one (no reused PID can be
 * hit), else kill(). */
int supervise_signal_value(struct lab_agent *a, int sig, int value)
{
	siginfo_t info;

	memset(&info, 0, sizeof(info));
	info.si_signo = sig;
	info.si_code = SI_QUEUE; /* as sigqueue(3) sends it: the value is read */
	info.si_pid = getpid();
	info.si_uid = getuid();
	info.si_value.sival_int = value;
	if (a->pidfd >= 0)
		return pidfd_send_signal(a->pidfd, sig, &info, 0);
	return sigqueue(a->pid, sig, info.si_value);
}

int supervise_signal(struct lab_agent *a, int sig)
{
	if (a->pidfd >= 0)
		return pidfd_send_signal(a->pidfd, sig, NULL, 0);
	return kill(a->pid, sig);
}

/* supervise_matches: name NULL matches all; "client*" every label it begins. */
int supervise_matches(const struct lab_agent *a, const char *name)
{
	size_t len;

	if (name == NULL)
		return 1;
	len = strlen(name);
	if (len > 0 && name[len - 1] == '*')
		return strncmp(a->name, name, len - 1) == 0;
	return strcmp(a->name, name) == 0;
}

/* supervise_wait: up to timeout_ns for the agents called name to end; how many
 * are left. Polls their pidfds; agents without one every 5 ms. */
int supervise_wait(struct lab_agent *agents, int n, const char *name, int64_t timeout_ns)
{
	static struct pollfd pfd[LAB_MAX_AGENTS];
	int64_t deadline = now_mono_ns() + timeout_ns;

	for (;;) {
		int alive = 0, nfd = 0, unwatched = 0;
		for (int i = 0; i < n; i++) {
			if (!supervise_matches(&agents[i], name) || !supervise_alive(&agents[i]))
				continue;
			alive++;
			if (agents[i].pidfd >= 0)
				pfd[nfd++] =
				    (struct pollfd){.fd = agents[i].pidfd, .events = POLLIN};
			else
				unwatched++;
		}
		int64_t left = deadline - now_mono_ns();
		if (alive == 0 || left <= 0)
			return alive;
		int ms = (int)((left + 999999) / 1000000);
		if (unwatched && ms > 5)
			ms = 5;
		if (poll(pfd, (nfds_t)nfd, ms) == -1 && errno == EINTR)
			return alive;
	}
}

/* Stop agents: clients first (so their last requests are still captured),
 * then the rest; SIGKILL whatever outlives the grace period, and wait for
 * that too, bounded. How many were running and ended; *left: how many
 * could not be stopped. */
int supervise_stop(struct lab_agent *agents, int n, int *left)
{
	int running = 0;

	for (int i = 0; i < n; i++)
		running += supervise_alive(&agents[i]);
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < n; i++) {
			int is_client = strncmp(agents[i].name, "client", 6) == 0;
			if (is_client == (pass == 0) && supervise_alive(&agents[i]))
				supervise_signal(&agents[i], SIGTERM);
		}
		supervise_wait(agents, n, pass == 0 ? "client*" : NULL, LAB_GRACE_NS);
	}
	for (int i = 0; i < n; i++) {
		if (supervise_alive(&agents[i])) {
			log_warnx("%s (pid %d) did not stop in time: killing it", agents[i].name,
				  (int)agents[i].pid);
			supervise_signal(&agents[i], SIGKILL);
		}
	}
	*left = supervise_wait(agents, n, NULL, LAB_GRACE_NS);
	for (int i = 0; i < n; i++)
		if (supervise_alive(&agents[i]))
			log_warnx("%s (pid %d) could not be stopped", agents[i].name,
				  (int)agents[i].pid);
	return running - *left;
}
