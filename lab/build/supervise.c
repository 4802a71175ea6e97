/*
 * The agent supervisor, while the process that started the agents lives
 * (`up`, `run`): start each agent inside its node's namespace, record it,
 * watch it, signal it, wait for it. Taking a lab down (lab_down, and from
 * its recorded state, whether this process or an earlier `steerlab up`
 * made it) is down.c's; what both do to one agent, supervise_agent.c's.
 *
 * Each agent this process starts is held by a pidfd, so an agent that ends
 * is noticed by poll() the moment it ends, wherever the run is waiting
 * (lab_watch), and no PID is ever signalled after it was reused.
 */
#include "supervise.h"

#include "lab.h"

#include <errno.h>
#include <grp.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
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
#include "events.h"
#include "log.h"
#include "strfmt.h"
#include "timeutil.h"

/* What a child that could not exec tells its parent, through its batch's
 * report pipe (its copy closed by exec): the step that failed and its
 * errno. Smaller than PIPE_BUF: written at once, never interleaved. */
enum agent_step { STEP_LOG, STEP_STDIN, STEP_NETNS, STEP_FDS, STEP_SCHED, STEP_USER, STEP_EXEC };

/* how an agent runs: its SCHED_FIFO priority (0: none), its user (uid 0:
 * root's, as forked) */
struct agent_spawn {
	int rtprio;
	uid_t uid;
	gid_t gid;
};
struct agent_start_err {
	pid_t pid;
	int step;
	int err;
};

static void __attribute__((noreturn)) agent_child_fail(int fd, enum agent_step step)
{
	struct agent_start_err e = {.pid = getpid(), .step = step, .err = errno};

	if (write(fd, &e, sizeof(e)) != (ssize_t)sizeof(e))
		_exit(126);
	_exit(127);
}

/* agent_child: in the forked child; never returns. It does nothing until
 * its parent says go (a byte on gofd), having recorded it in agents.tsv:
 * if the parent dies first (EOF), it exits in the root namespace, so no
 * agent runs that `down` does not know. gowfd is the go pipe's other end,
 * which the child must not hold: the EOF would never come. */
static void __attribute__((noreturn))
agent_child(const struct lab *lab, int node, const char *prog, const char *logpath,
	    char *const argv[], const struct agent_spawn *sp, int errfd, int gofd, int gowfd)
{
	sigset_t none;
	char go;
	ssize_t n;
	int fd;

	close(gowfd);
	do
		n = read(gofd, &go, 1);
	while (n == -1 && errno == EINTR);
	if (n != 1)
		_exit(126);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	/* its own session: Ctrl-C reaches the lab, which stops agents in order */
	setsid();
	/* appended, never through a symbolic link planted in the run directory */
	fd = open(logpath, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0644);
	if (fd == -1)
		agent_child_fail(errfd, STEP_LOG);
	if (dup2(fd, STDOUT_FILENO) == -1 || dup2(fd, STDERR_FILENO) == -1)
		agent_child_fail(errfd, STEP_LOG);
	close(fd);
	if ((fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1 || dup2(fd, STDIN_FILENO) == -1)
		agent_child_fail(errfd, STEP_STDIN);
	close(fd);
	if (netns_enter(lab->nsfd[node]) == -1)
		agent_child_fail(errfd, STEP_NETNS);
	/* nothing of steerlab's (events file, namespace fds, pidfds, the go
	 * pipe) but the report pipe, which exec closes */
	if ((errfd > 3 && close_range(3, (unsigned)errfd - 1, 0) == -1) ||
	    close_range((unsigned)errfd + 1, ~0U, 0) == -1)
		agent_child_fail(errfd, STEP_FDS);
	/* exec keeps the policy, and the program's threads inherit it */
	if (sp->rtprio > 0 &&
	    sched_setscheduler(0, SCHED_FIFO,
			       &(struct sched_param){.sched_priority = sp->rtprio}) == -1)
		agent_child_fail(errfd, STEP_SCHED);
	/* a program that does not drop root itself (gdnsd) runs as its user */
	if (sp->uid != 0 &&
	    (setgroups(0, NULL) == -1 || setgid(sp->gid) == -1 || setuid(sp->uid) == -1))
		agent_child_fail(errfd, STEP_USER);
	execv(prog, argv);
	agent_child_fail(errfd, STEP_EXEC);
}

/* agent_start_said: what agent a's child could not do before running
 * prog, said as the supervisor has always said it. */
static void agent_start_said(const struct lab *lab, const struct lab_agent *a, const char *prog)
{
	static const char *const steps[] = {
	    "its log",	  "/dev/null", "its namespace", "its descriptors",
	    "SCHED_FIFO", "its user",  "exec"};
	const char *nodename = lab->t->nodes[a->node].name;
	char logpath[PATH_MAX];

	strfmt(logpath, sizeof(logpath), "%s/%s.%s.log", lab->rundir, nodename, a->name);
	if (a->start_step < 0 || a->start_step > STEP_EXEC)
		log_warnx("agent %s of node %s: did not start (no report)", a->name, nodename);
	else if (a->start_step == STEP_LOG && a->start_errno == ELOOP)
		log_warnx("agent %s of node %s: %s is a symbolic link: not followed; remove it or "
			  "choose another --out",
			  a->name, nodename, logpath);
	else if (a->start_step == STEP_LOG)
		log_warnx("agent %s of node %s: %s: %s", a->name, nodename, logpath,
			  strerror(a->start_errno));
	else if (a->start_step == STEP_EXEC)
		log_warnx("agent %s of node %s: exec %s: %s", a->name, nodename, prog,
			  strerror(a->start_errno));
	else
		log_warnx("agent %s of node %s: %s: %s", a->name, nodename, steps[a->start_step],
			  strerror(a->start_errno));
}

/* batch_close: the batch's descriptors that are still open */
static void batch_close(struct lab_batch *b)
{
	for (int i = 0; i < 2; i++) {
		if (b->go[i] >= 0)
			close(b->go[i]);
		if (b->report[i] >= 0)
			close(b->report[i]);
		b->go[i] = b->report[i] = -1;
	}
	b->open = 0;
}

/* batch_open: the go and report pipes of a new batch. 0 or -1 (said). */
static int batch_open(struct lab *lab)
{
	struct lab_batch *b = &lab->batch;

	memset(b, 0, sizeof(*b));
	b->go[0] = b->go[1] = b->report[0] = b->report[1] = -1;
	b->first = lab->nagents;
	/* a pipe: a go written to children that died meanwhile stays unread
	 * (MSG_NOSIGNAL is not needed: SIGPIPE needs no reader at all, and
	 * the batch's read end is ours until the end) */
	if (pipe2(b->go, O_CLOEXEC) == -1 || pipe2(b->report, O_CLOEXEC) == -1) {
		log_warn("%s: pipe", __func__);
		batch_close(b);
		return -1;
	}
	b->open = 1;
	return 0;
}

void lab_start_batch(struct lab *lab)
{
	if (!lab->batch.open)
		batch_open(lab);
}

/* batch_drop: agent i of the batch, which never ran (its child waited for),
 * out of lab->agents */
static void batch_drop(struct lab *lab, int i)
{
	supervise_close(&lab->agents[i]);
	memmove(&lab->agents[i], &lab->agents[i + 1],
		(size_t)(lab->nagents - i - 1) * sizeof(lab->agents[0]));
	lab->nagents--;
}

int lab_start_wait(struct lab *lab)
{
	static char go[LAB_MAX_AGENTS];
	struct lab_batch *b = &lab->batch;
	struct agent_start_err e;
	int n, rc = b->failed ? -1 : 0;
	char line[128];
	ssize_t got;

	if (!b->open)
		return 0;
	/* every agent of the batch is recorded: each may run (a byte each;
	 * far less than a pipe holds) */
	n = lab->nagents - b->first;
	memset(go, 'g', (size_t)n);
	if (n > 0 && write(b->go[1], go, (size_t)n) != (ssize_t)n)
		log_warn("%s: go", __func__);
	close(b->go[1]);
	close(b->go[0]);
	close(b->report[1]);
	b->go[0] = b->go[1] = b->report[1] = -1;
	/* EOF once every child has exec'd or exited */
	while ((got = read(b->report[0], &e, sizeof(e))) != 0) {
		if (got == -1 && errno == EINTR)
			continue;
		if (got != (ssize_t)sizeof(e))
			break;
		for (int i = b->first; i < lab->nagents; i++)
			if (lab->agents[i].pid == e.pid) {
				lab->agents[i].start_step = e.step;
				lab->agents[i].start_errno = e.err;
			}
	}
	batch_close(b);
	for (int i = b->first; i < lab->nagents;) {
		struct lab_agent *a = &lab->agents[i];

		if (a->start_step < 0) {
			/* the run directory's copy lists the agents that run */
			strfmt(line, sizeof(line), "%d\t%llu\t%s\t%s", (int)a->pid, a->starttime,
			       lab->t->nodes[a->node].name, a->name);
			lab_append(lab->rundir, "agents.tsv", line);
			log_debug("started %s in %s: pid %d", a->name, lab->t->nodes[a->node].name,
				  (int)a->pid);
			free(a->prog);
			a->prog = NULL;
			i++;
			continue;
		}
		agent_start_said(lab, a, a->prog ? a->prog : "?");
		waitpid(a->pid, NULL, 0);
		free(a->prog);
		batch_drop(lab, i);
		rc = -1;
	}
	b->failed = 0;
	return rc;
}

/* agent_fork: agent `name` of node into the open batch: forked, waiting
 * for the batch's go, and recorded in the state's agents.tsv. Its index,
 * or -1 (said): not forked, or forked and ended unrecorded. */
static int agent_fork(struct lab *lab, int node, const char *prog, const char *name,
		      char *const argv[], const struct agent_spawn *sp)
{
	const char *nodename = lab->t->nodes[node].name;
	struct lab_batch *b = &lab->batch;
	char logpath[PATH_MAX], line[128], state;
	struct lab_agent *a;
	pid_t pid;

	strfmt(logpath, sizeof(logpath), "%s/%s.%s.log", lab->rundir, nodename, name);
	fflush(NULL);
	if ((pid = fork()) == -1) {
		log_warn("%s: fork", __func__);
		return -1;
	}
	if (pid == 0) {
		close(b->report[0]);
		agent_child(lab, node, prog, logpath, argv, sp, b->report[1], b->go[0], b->go[1]);
	}
	a = &lab->agents[lab->nagents];
	memset(a, 0, sizeof(*a));
	a->pid = pid;
	a->node = node;
	a->child = 1;
	a->start_step = -1;
	a->prog = strdup(prog); /* for what its start says, if it fails */
	strfmt(a->name, sizeof(a->name), "%s", name);
	/* our unreaped child: the PID cannot be anyone else's yet */
	if ((a->pidfd = pidfd_open(pid, 0)) == -1)
		log_debug("pidfd_open %d: %s (polling instead)", (int)pid, strerror(errno));
	/* its start time is the forked child's: exec keeps it */
	if (supervise_starttime(pid, &a->starttime, &state) == -1)
		a->starttime = 0;
	strfmt(line, sizeof(line), "%d\t%llu\t%s\t%s", (int)pid, a->starttime, nodename, name);
	/* recorded before it may run: the state directory's copy serves
	 * `down` (a line whose process never ran is skipped there as gone) */
	if (lab_append(lab->statedir, "agents.tsv", line) == -1) {
		log_warnx("%s/agents.tsv: the agent cannot be recorded; not starting it",
			  lab->statedir);
		/* no go is written for it: it ends without running anything */
		if (a->pidfd >= 0)
			pidfd_send_signal(a->pidfd, SIGKILL, NULL, 0);
		else
			kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		supervise_close(a);
		free(a->prog);
		a->prog = NULL;
		return -1;
	}
	return lab->nagents++;
}

static int agent_start(struct lab *lab, int node, const char *prog_name, const char *name,
		       char *const argv[], const struct agent_spawn *sp)
{
	const char *nodename = lab->t->nodes[node].name;
	int alone = !lab->batch.open, i;
	char prog[PATH_MAX];

	if (lab->nagents >= LAB_MAX_AGENTS) {
		log_warnx("too many agents");
		goto fail;
	}
	if (prog_name[0] == '/')
		strfmt(prog, sizeof(prog), "%s", prog_name);
	else
		strfmt(prog, sizeof(prog), "%s/%s", lab->bindir, prog_name);
	if (access(prog, X_OK) == -1) {
		log_warn("agent %s of node %s: %s", name, nodename, prog);
		goto fail;
	}
	if (lab->interrupt && *lab->interrupt) {
		log_warnx("interrupted: agent %s of node %s not started", name, nodename);
		goto fail;
	}
	/* alone: a batch of one */
	if (alone && batch_open(lab) == -1)
		return -1;
	if ((i = agent_fork(lab, node, prog, name, argv, sp)) == -1)
		lab->batch.failed = 1;
	if (alone)
		return lab_start_wait(lab) == -1 ? -1 : i;
	return i;
fail:
	if (lab->batch.open)
		lab->batch.failed = 1;
	return -1;
}

int lab_rt_permitted(struct lab *lab)
{
	pid_t pid;
	int status = 0;

	if (lab->rt != 0)
		return lab->rt == 1;
	lab->rt = 1;
	if ((pid = fork()) == -1) {
		log_warn("SCHED_FIFO: fork");
		return 1; /* not known: each agent's own start says */
	}
	if (pid == 0)
		_exit(sched_setscheduler(0, SCHED_FIFO,
					 &(struct sched_param){.sched_priority = 1}) == -1
			  ? errno == EPERM ? 1 : 2
			  : 0);
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
		lab->rt = -1;
		log_warnx("SCHED_FIFO is refused here (%s): bfdd and linkd run at the default "
			  "policy, and a busy machine may make BFD and the delay line late (the "
			  "verdict checks both on the packets); a cgroup with no real-time budget "
			  "(cpu.rt_runtime_us), as in many containers, refuses it",
			  WEXITSTATUS(status) == 1 ? "EPERM" : "an error");
	}
	return lab->rt == 1;
}

int lab_start_agent_rt(struct lab *lab, int node, const char *prog_name, const char *name,
		       char *const argv[], int rtprio)
{
	if (rtprio > 0 && !lab_rt_permitted(lab))
		rtprio = 0;
	return agent_start(lab, node, prog_name, name, argv,
			   &(struct agent_spawn){.rtprio = rtprio});
}

int lab_start_agent_user(struct lab *lab, int node, const char *prog_name, const char *name,
			 char *const argv[], uid_t uid, gid_t gid)
{
	return agent_start(lab, node, prog_name, name, argv,
			   &(struct agent_spawn){.uid = uid, .gid = gid});
}

int lab_start_agent_as(struct lab *lab, int node, const char *prog_name, const char *name,
		       char *const argv[])
{
	return lab_start_agent_rt(lab, node, prog_name, name, argv, 0);
}

/* agent_exit_text: "died (signal 9)", "exited (status 1)" */
static void agent_exit_text(const struct lab_agent *a, char *buf, size_t len)
{
	if (a->exit.si_code == CLD_EXITED)
		strfmt(buf, len, "exited (status %d)", a->exit.si_status);
	else if (a->exit.si_code == CLD_KILLED || a->exit.si_code == CLD_DUMPED)
		strfmt(buf, len, "died (signal %d)", a->exit.si_status);
	else
		strfmt(buf, len, "ended (how is not known)");
}

/* agent_expected: the run meant it to end: the failure's SIGKILL of the
 * failing site's sited, or a client done after its duration. A client
 * sends its last request up to one request interval before the end of its
 * duration and exits once it is answered: at 100 requests/s, 10 ms early
 * (a client whose interval is longer than its duration is never early). */
static int agent_expected(const struct lab *lab, const struct lab_agent *a, int64_t now)
{
	int64_t early = 0;

	if (a->expect_kill && a->exit.si_code == CLD_KILLED && a->exit.si_status == SIGKILL)
		return 1;
	/* an instance that handed over to its replacement (gdnsd -R) */
	if (a->replaced && a->exit.si_code == CLD_EXITED && a->exit.si_status == 0)
		return 1;
	if (strncmp(a->name, "client", 6) != 0 || a->exit.si_code != CLD_EXITED ||
	    a->exit.si_status != 0 || lab->clients_until <= 0)
		return 0;
	if (a->node >= 0 && a->node < lab->t->nnodes && lab->t->nodes[a->node].rate > 0)
		early = (int64_t)(NSEC_PER_SEC / lab->t->nodes[a->node].rate);
	return now >= lab->clients_until - early;
}

/* supervise_report_exits: agent_exited for each agent newly found ended, and a
 * terminal line for each that was not meant to end. Not once the lab is
 * stopping them on purpose. */
void supervise_report_exits(struct lab *lab)
{
	int64_t now = now_mono_ns();

	for (int i = 0; i < lab->nagents; i++) {
		struct lab_agent *a = &lab->agents[i];
		const char *node = a->node >= 0 ? lab->t->nodes[a->node].name : "?";
		json_t *code = json_null(), *sig = json_null();
		char how[64];
		int expected;

		if (!a->reaped || a->reported || !a->child)
			continue;
		a->reported = 1;
		if (lab->stopping)
			continue;
		if (a->exit.si_code == CLD_EXITED)
			code = json_integer(a->exit.si_status);
		else if (a->exit.si_code == CLD_KILLED || a->exit.si_code == CLD_DUMPED)
			sig = json_integer(a->exit.si_status);
		expected = agent_expected(lab, a, now);
		event_emit(lab->ev, EVENTS_AGENT_EXITED, "{s:s, s:s, s:i, s:o, s:o, s:b}", "node",
			   node, "agent", a->name, "pid", (int)a->pid, "exit_code", code, "signal",
			   sig, "expected", expected);
		if (expected)
			continue;
		lab->unexpected++;
		agent_exit_text(a, how, sizeof(how));
		if (lab->before_say)
			lab->before_say();
		fflush(stdout);
		switch (lab->phase) {
		case LAB_TRAFFIC:
			fprintf(stderr,
				"steerlab: agent %s of node %s %s at %.1f s: this run is invalid "
				"(see %s/%s.%s.log)\n",
				a->name, node, how,
				(double)(now - lab->traffic_start) / NSEC_PER_SEC, lab->rundir,
				node, a->name);
			break;
		case LAB_WARMUP:
			fprintf(stderr,
				"steerlab: agent %s of node %s %s during the warm-up: the lab is "
				"not ready (see %s/%s.%s.log)\n",
				a->name, node, how, lab->rundir, node, a->name);
			break;
		case LAB_BRINGUP:
		case LAB_UP:
			fprintf(stderr,
				"steerlab: agent %s of node %s %s while the lab came up: the lab "
				"is incomplete (see %s/%s.%s.log)\n",
				a->name, node, how, lab->rundir, node, a->name);
			break;
		}
		fflush(stderr);
	}
}

int lab_watch(struct lab *lab, int64_t timeout_ns)
{
	static struct pollfd pfd[LAB_MAX_AGENTS];
	int n = 0, unwatched = 0, ended = 0, r;
	struct timespec ts;

	for (int i = 0; i < lab->nagents; i++) {
		const struct lab_agent *a = &lab->agents[i];
		if (!a->child || a->reaped)
			continue;
		if (a->pidfd >= 0)
			pfd[n++] = (struct pollfd){.fd = a->pidfd, .events = POLLIN};
		else
			unwatched++;
	}
	/* without a pidfd an agent is looked at every 10 ms */
	if (unwatched && timeout_ns > 10 * 1000000LL)
		timeout_ns = 10 * 1000000LL;
	ts = ns_to_timespec(timeout_ns > 0 ? timeout_ns : 0);
	/* to the nanosecond: run_sleep_until's deadline is the failure's */
	r = ppoll(pfd, (nfds_t)n, &ts, NULL);
	if (r == -1 && errno != EINTR)
		log_warn("%s: poll", __func__);
	if (r > 0 || unwatched || timeout_ns <= 0) {
		for (int i = 0; i < lab->nagents; i++) {
			struct lab_agent *a = &lab->agents[i];
			if (a->child && !a->reaped && supervise_reap(a))
				ended++;
		}
	}
	supervise_report_exits(lab);
	if (r == -1 && errno == EINTR && ended == 0)
		return -1;
	return ended;
}

int lab_agent_find(const struct lab *lab, int node, const char *label)
{
	for (int i = lab->nagents - 1; i >= 0; i--)
		if (lab->agents[i].node == node && !lab->agents[i].reaped &&
		    strcmp(lab->agents[i].name, label) == 0)
			return i;
	return -1;
}

int lab_kill_agent(struct lab *lab, int i)
{
	struct lab_agent *a = &lab->agents[i];

	/* an agent that already ended is reported as such, not as killed */
	lab_watch(lab, 0);
	if (a->reaped) {
		errno = ESRCH;
		return -1;
	}
	a->expect_kill = 1;
	if (supervise_signal(a, SIGKILL) == -1) {
		a->expect_kill = 0;
		return -1;
	}
	return 0;
}

int lab_signal_agent(struct lab *lab, int i, int sig)
{
	struct lab_agent *a = &lab->agents[i];

	lab_watch(lab, 0);
	if (a->reaped) {
		errno = ESRCH;
		return -1;
	}
	return supervise_signal(a, sig);
}

int lab_signal_agent_value(struct lab *lab, int i, int sig, int value)
{
	struct lab_agent *a = &lab->agents[i];

	lab_watch(lab, 0);
	if (a->reaped) {
		errno = ESRCH;
		return -1;
	}
	return supervise_signal_value(a, sig, value);
}

void lab_signal_agents(struct lab *lab, const char *name, int sig)
{
	for (int i = 0; i < lab->nagents; i++) {
		struct lab_agent *a = &lab->agents[i];
		if (supervise_matches(a, name) && supervise_alive(a))
			supervise_signal(a, sig);
	}
	supervise_report_exits(lab);
}

/* lab_signal_value: sig with a sigqueue value to the live agents called
 * name (supervise_matches), each refusal said */
static void lab_signal_value(struct lab *lab, const char *name, int sig, int value)
{
	for (int i = 0; i < lab->nagents; i++) {
		struct lab_agent *a = &lab->agents[i];
		if (supervise_matches(a, name) && supervise_alive(a) &&
		    supervise_signal_value(a, sig, value) == -1)
			log_warn("%s: %s of %s", __func__, a->name, lab->t->nodes[a->node].name);
	}
	supervise_report_exits(lab);
}

void lab_clients_go(struct lab *lab, int64_t go_base_ns, int64_t start_ns)
{
	int64_t us = (start_ns - go_base_ns) / NSEC_PER_USEC;
	int value = us < 0 ? 0 : us > INT_MAX ? INT_MAX : (int)us;

	lab_signal_value(lab, "client*", SIGUSR2, value);
}

void lab_probers_phase(struct lab *lab, int64_t start_ns)
{
	for (int i = 0; i < lab->nagents; i++) {
		struct lab_agent *a = &lab->agents[i];
		int64_t at = start_ns;
		int value;

		if (!supervise_matches(a, "prober") || !supervise_alive(a) || a->node < 0)
			continue;
		/* probe_phase = random: its cycle offset within its interval,
		 * an interval back so that the instant is not after now */
		if (lab->t->nodes[a->node].probe_phase == TOPO_PROBE_PHASE_RANDOM)
			at = start_ns + topo_probe_offset_ns(lab->t, a->node) -
			     lab->t->nodes[a->node].probe_interval_ns;
		/* the instant's CLOCK_MONOTONIC microseconds, modulo 2^31 (35
		 * minutes): the prober takes the latest such instant not after
		 * its own now */
		value = (int)((at / NSEC_PER_USEC) & 0x7fffffff);
		if (supervise_signal_value(a, SIGUSR1, value) == -1)
			log_warn("%s: %s of %s", __func__, a->name, lab->t->nodes[a->node].name);
	}
	supervise_report_exits(lab);
}

int lab_wait_agents(struct lab *lab, const char *name, int64_t timeout_ns)
{
	int64_t deadline = now_mono_ns() + timeout_ns;
	int alive;

	for (;;) {
		alive = 0;
		for (int i = 0; i < lab->nagents; i++)
			if (supervise_matches(&lab->agents[i], name) && !lab->agents[i].reaped)
				alive++;
		int64_t left = deadline - now_mono_ns();
		if (alive == 0 || left <= 0)
			return alive;
		if (lab_watch(lab, left) == -1)
			return alive; /* a signal: the caller looks at why */
	}
}
