/*
 * The agent supervisor: start each agent inside its node's namespace, record
 * it, signal it, wait for it; and taking a lab down from its recorded state,
 * whether this process or an earlier `steerlab up` made it.
 */
#include "lab.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "event.h"
#include "log.h"
#include "strfmt.h"
#include "netns.h"
#include "timeutil.h"

#define LAB_GRACE_NS (3 * NSEC_PER_SEC)

/* proc_starttime: field 22 of /proc/PID/stat, and its state letter. */
static int proc_starttime(pid_t pid, unsigned long long *start, char *state)
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
	if (sscanf(p + 2, "%c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s "
			  "%*s %*s %llu",
		   state, start) != 2)
		return -1;
	return 0;
}

/* agent_alive: reaps it if it is our child; else checks /proc, with the
 * start time guarding against a reused PID. */
static int agent_alive(struct lab_agent *a)
{
	unsigned long long start;
	char state;
	int status;

	if (a->reaped)
		return 0;
	pid_t r = waitpid(a->pid, &status, WNOHANG);
	if (r == a->pid) {
		a->reaped = 1;
		return 0;
	}
	if (proc_starttime(a->pid, &start, &state) == -1 || start != a->starttime ||
	    state == 'Z' || state == 'X') {
		if (r == -1)
			a->reaped = 1;
		return 0;
	}
	return 1;
}

int lab_start_agent_as(struct lab *lab, int node, const char *prog_name, const char *name,
		       char *const argv[])
{
	const char *nodename = lab->t->nodes[node].name;
	char prog[PATH_MAX], logpath[PATH_MAX], line[128], state;
	struct lab_agent *a;
	pid_t pid;
	int fd;

	if (lab->nagents >= LAB_MAX_AGENTS) {
		log_warnx("too many agents");
		return -1;
	}
	strfmt(prog, sizeof(prog), "%s/%s", lab->bindir, prog_name);
	strfmt(logpath, sizeof(logpath), "%s/%s.%s.log", lab->rundir, nodename, name);
	if (access(prog, X_OK) == -1) {
		log_warn("agent %s", prog);
		return -1;
	}
	fflush(NULL);
	if ((pid = fork()) == -1) {
		log_warn("fork");
		return -1;
	}
	if (pid == 0) {
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		/* its own session: Ctrl-C reaches the lab, which stops agents in order */
		setsid();
		if ((fd = open(logpath, O_WRONLY | O_CREAT | O_APPEND, 0644)) != -1) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
			close(fd);
		}
		if ((fd = open("/dev/null", O_RDONLY)) != -1) {
			dup2(fd, STDIN_FILENO);
			close(fd);
		}
		if (netns_enter(lab->nsfd[node]) == -1) {
			fprintf(stderr, "steerlab: setns into %s: %s\n", nodename, strerror(errno));
			_exit(127);
		}
		execv(prog, argv);
		fprintf(stderr, "steerlab: exec %s: %s\n", prog, strerror(errno));
		_exit(127);
	}
	a = &lab->agents[lab->nagents];
	memset(a, 0, sizeof(*a));
	a->pid = pid;
	a->node = node;
	strfmt(a->name, sizeof(a->name), "%s", name);
	if (proc_starttime(pid, &a->starttime, &state) == -1)
		a->starttime = 0;
	strfmt(line, sizeof(line), "%d\t%llu\t%s\t%s", (int)pid, a->starttime, nodename, name);
	/* the state directory's copy serves `down`; the run directory's stays */
	const char *dirs[] = {lab->statedir, lab->rundir};
	for (int i = 0; i < 2; i++) {
		char path[PATH_MAX];
		strfmt(path, sizeof(path), "%s/agents.tsv", dirs[i]);
		FILE *fp = fopen(path, "a");
		if (fp) {
			fprintf(fp, "%s\n", line);
			fclose(fp);
		} else if (i == 0) {
			log_warn("%s: the agent cannot be recorded; stopping it", path);
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			return -1;
		}
	}
	log_debug("started %s in %s: pid %d", name, nodename, (int)pid);
	return lab->nagents++;
}

/* agent_matches: name NULL matches all; "client*" every label it begins. */
static int agent_matches(const struct lab_agent *a, const char *name)
{
	size_t len;

	if (name == NULL)
		return 1;
	len = strlen(name);
	if (len > 0 && name[len - 1] == '*')
		return strncmp(a->name, name, len - 1) == 0;
	return strcmp(a->name, name) == 0;
}

void lab_signal_agents(struct lab *lab, const char *name, int sig)
{
	for (int i = 0; i < lab->nagents; i++) {
		struct lab_agent *a = &lab->agents[i];
		if (agent_matches(a, name) && agent_alive(a))
			kill(a->pid, sig);
	}
}

static int agents_wait(struct lab_agent *agents, int n, const char *name, int64_t timeout_ns)
{
	int64_t deadline = now_mono_ns() + timeout_ns;
	int alive;

	for (;;) {
		alive = 0;
		for (int i = 0; i < n; i++)
			if (agent_matches(&agents[i], name) && agent_alive(&agents[i]))
				alive++;
		if (alive == 0 || now_mono_ns() >= deadline)
			return alive;
		usleep(5000);
	}
}

int lab_wait_agents(struct lab *lab, const char *name, int64_t timeout_ns)
{
	return agents_wait(lab->agents, lab->nagents, name, timeout_ns);
}

/* Stop agents: clients first (so their last requests are still captured),
 * then the rest; SIGKILL whatever outlives the grace period. */
static int agents_stop(struct lab_agent *agents, int n)
{
	int stopped = 0;

	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < n; i++) {
			int is_client = strncmp(agents[i].name, "client", 6) == 0;
			if (is_client == (pass == 0) && agent_alive(&agents[i])) {
				kill(agents[i].pid, SIGTERM);
				stopped++;
			}
		}
		agents_wait(agents, n, pass == 0 ? "client*" : NULL, LAB_GRACE_NS);
	}
	for (int i = 0; i < n; i++) {
		if (agent_alive(&agents[i])) {
			log_warnx("%s (pid %d) did not stop in time: killing it", agents[i].name,
				  (int)agents[i].pid);
			kill(agents[i].pid, SIGKILL);
		}
	}
	agents_wait(agents, n, NULL, LAB_GRACE_NS);
	return stopped;
}

static int state_read_agents(const char *statedir, struct lab_agent *agents, int max)
{
	char path[PATH_MAX], node[64], name[16];
	unsigned long long start;
	int pid, n = 0;
	FILE *fp;

	strfmt(path, sizeof(path), "%s/agents.tsv", statedir);
	if ((fp = fopen(path, "r")) == NULL)
		return 0;
	while (n < max && fscanf(fp, "%d %llu %63s %15s", &pid, &start, node, name) == 4) {
		memset(&agents[n], 0, sizeof(agents[n]));
		agents[n].pid = pid;
		agents[n].starttime = start;
		agents[n].node = -1;
		strfmt(agents[n].name, sizeof(agents[n].name), "%s", name);
		n++;
	}
	fclose(fp);
	return n;
}

static void state_remove(const char *statedir)
{
	static const char *files[] = {"agents.tsv", "namespaces", "rundir", "topology.ini"};
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		strfmt(path, sizeof(path), "%s/%s", statedir, files[i]);
		unlink(path);
	}
	if (rmdir(statedir) == -1 && errno != ENOENT)
		log_warn("rmdir %s", statedir);
}

int lab_down_state(const char *statedir, FILE *out)
{
	static struct lab_agent agents[LAB_MAX_AGENTS];
	char path[PATH_MAX], ns[256];
	int nagents, stopped, removed = 0, rc = 0;
	FILE *fp;

	nagents = state_read_agents(statedir, agents, LAB_MAX_AGENTS);
	stopped = agents_stop(agents, nagents);
	strfmt(path, sizeof(path), "%s/namespaces", statedir);
	if ((fp = fopen(path, "r")) != NULL) {
		while (fgets(ns, sizeof(ns), fp)) {
			ns[strcspn(ns, "\n")] = '\0';
			if (ns[0] == '\0')
				continue;
			if (netns_delete(ns) == 0)
				removed++;
			else if (errno != ENOENT) {
				log_warn("namespace %s", ns);
				rc = -1;
			}
		}
		fclose(fp);
	}
	if (rc == 0)
		state_remove(statedir);
	if (out)
		fprintf(out, "steerlab: %s down: %d agent%s stopped, %d namespace%s removed\n",
			strrchr(statedir, '/') + 1, stopped, stopped == 1 ? "" : "s", removed,
			removed == 1 ? "" : "s");
	return rc;
}

int lab_down(struct lab *lab)
{
	agents_stop(lab->agents, lab->nagents);
	for (int i = 0; i < TOPO_MAX_NODES; i++) {
		if (lab->nsfd[i] != -1)
			close(lab->nsfd[i]);
		lab->nsfd[i] = -1;
	}
	int rc = lab_down_state(lab->statedir, NULL);
	event_emit(lab->ev, "lab_down", NULL);
	return rc;
}

int lab_status(FILE *out)
{
	static struct lab_agent agents[LAB_MAX_AGENTS];
	DIR *d = opendir(LAB_STATE_DIR);
	struct dirent *de;
	int labs = 0;

	if (d == NULL) {
		fprintf(out, "no labs\n");
		return 0;
	}
	while ((de = readdir(d)) != NULL) {
		char dir[PATH_MAX], path[PATH_MAX], rundir[PATH_MAX] = "-", ns[256];
		int nns = 0, nexist = 0, alive = 0, n;
		FILE *fp;

		if (de->d_name[0] == '.')
			continue;
		strfmt(dir, sizeof(dir), "%s/%s", LAB_STATE_DIR, de->d_name);
		strfmt(path, sizeof(path), "%s/rundir", dir);
		if ((fp = fopen(path, "r")) != NULL) {
			if (fgets(rundir, sizeof(rundir), fp))
				rundir[strcspn(rundir, "\n")] = '\0';
			fclose(fp);
		}
		strfmt(path, sizeof(path), "%s/namespaces", dir);
		if ((fp = fopen(path, "r")) != NULL) {
			while (fgets(ns, sizeof(ns), fp)) {
				ns[strcspn(ns, "\n")] = '\0';
				nns++;
				nexist += netns_exists(ns);
			}
			fclose(fp);
		}
		n = state_read_agents(dir, agents, LAB_MAX_AGENTS);
		for (int i = 0; i < n; i++)
			alive += agent_alive(&agents[i]);
		if (labs++ == 0)
			fprintf(out, "%-14s %-11s %-11s %s\n", "LAB", "NAMESPACES", "AGENTS",
				"RUN DIRECTORY");
		char nsbuf[24], agbuf[24];
		strfmt(nsbuf, sizeof(nsbuf), "%d/%d", nexist, nns);
		strfmt(agbuf, sizeof(agbuf), "%d/%d", alive, n);
		fprintf(out, "%-14s %-11s %-11s %s\n", de->d_name, nsbuf, agbuf, rundir);
	}
	closedir(d);
	if (labs == 0)
		fprintf(out, "no labs\n");
	return 0;
}
