/*
 * Taking a lab down from its recorded state (lab.h: the state directory,
 * agents.tsv), whether this process or an earlier `steerlab up` made it:
 * `down`, and what `status`, `nodes`, `fail` and `recover` read of a lab
 * that is up. `down` opens a pidfd on each recorded PID, then checks that it
 * is the recorded process (start time) running one of the lab's programs,
 * and only then signals it through that pidfd; it deletes only namespaces
 * of the lab's own form, and stops any process still inside them.
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
#include "events.h"
#include "log.h"
#include "strfmt.h"
#include "timeutil.h"

const char *lab_agent_prog(const char *label)
{
	static const char *const progs[] = {"routed", "collector", "sited",	"prober",
					    "client", "authd",	   "resolverd", "linkd"};
	size_t len = strcspn(label, "-");

	if (lab_frr_prog(label) || lab_realres_prog(label) || lab_authority_prog(label) ||
	    strcmp(label, "nginx") == 0)
		return label; /* exactly; its program is FRR's, a real resolver's or
			       * authoritative server's, nginx */
	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++)
		if (strlen(progs[i]) == len && strncmp(progs[i], label, len) == 0)
			return label[len] == '\0' || topo_check_name(label + len + 1) == 0
				   ? progs[i]
				   : NULL;
	return NULL;
}

int lab_ns_valid(const char *lab, const char *name)
{
	size_t len = strlen(lab);

	return topo_check_name(lab) == 0 && strncmp(name, lab, len) == 0 && name[len] == '-' &&
	       topo_check_name(name + len + 1) == 0;
}

int lab_parse_agent_line(const char *line, struct lab_agent *a)
{
	char node[TOPO_NAME_MAX + 2], name[sizeof(a->name) + 1];
	unsigned long long start;
	int pid, end = 0;

	if (sscanf(line, "%d\t%llu\t%13[^\t\n]\t%16[^\t\n]%n", &pid, &start, node, name, &end) !=
		4 ||
	    (line[end] != '\0' && strcmp(line + end, "\n") != 0) || pid <= 1 ||
	    topo_check_name(node) == -1 || strlen(name) >= sizeof(a->name) ||
	    lab_agent_prog(name) == NULL)
		return -1;
	memset(a, 0, sizeof(*a));
	a->pid = pid;
	a->starttime = start;
	a->node = -1;
	a->pidfd = -1;
	strfmt(a->name, sizeof(a->name), "%s", name);
	strfmt(a->nodename, sizeof(a->nodename), "%s", node);
	return 0;
}

/* state_each_line: fn on each line of statedir's file name, with the
 * file's path and the line's number, until fn returns 1; nothing if the
 * file cannot be read (said by lab_fopen_read unless it is not there) */
static void state_each_line(const char *statedir, const char *name,
			    int (*fn)(const char *path, int lineno, char *line, void *arg),
			    void *arg)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0;
	int lineno = 0;
	FILE *fp;

	strfmt(path, sizeof(path), "%s/%s", statedir, name);
	if ((fp = lab_fopen_read(path)) == NULL)
		return;
	while (getline(&line, &cap, fp) != -1)
		if (fn(path, ++lineno, line, arg) == 1)
			break;
	free(line);
	fclose(fp);
}

struct state_agents {
	struct lab_agent *agents;
	int n, max, warn, *refused;
};

static int state_agent_line(const char *path, int lineno, char *line, void *arg)
{
	struct state_agents *r = arg;

	if (lab_parse_agent_line(line, &r->agents[r->n]) == 0) {
		r->agents[r->n++].line = lineno;
		return r->n >= r->max;
	}
	(*r->refused)++;
	if (r->warn)
		log_warnx("%s:%d: refused: expected PID, start time, node and agent label "
			  "separated by tabs, got '%.*s'",
			  path, lineno, (int)strcspn(line, "\n"), line);
	return 0;
}

int lab_state_read_agents(const char *statedir, struct lab_agent *agents, int max, int warn,
			  int *refused)
{
	struct state_agents r = {agents, 0, max, warn, refused};

	if (max > 0)
		state_each_line(statedir, "agents.tsv", state_agent_line, &r);
	return r.n;
}

void lab_state_bindir(const char *statedir, char *buf, size_t len)
{
	char path[PATH_MAX], *nl;
	FILE *fp;

	strfmt(path, sizeof(path), "%s/bindir", statedir);
	if ((fp = lab_fopen_read(path)) != NULL) {
		if (fgets(buf, (int)len, fp) && buf[0] == '/') {
			if ((nl = strchr(buf, '\n')) != NULL)
				*nl = '\0';
			fclose(fp);
			return;
		}
		fclose(fp);
	}
	lab_agent_dir(buf, len);
}

void lab_agent_release(struct lab_agent *a)
{
	supervise_close(a);
}

int lab_agent_claim(struct lab_agent *a, const char *bindir, const char *path, int warn)
{
	char link[64], exe[PATH_MAX], want[PATH_MAX], state;
	unsigned long long start;
	ssize_t n;

	a->reaped = 1;
	if ((a->pidfd = pidfd_open(a->pid, 0)) == -1 && errno == ESRCH)
		return 0;
	/* with the pidfd held, what /proc says from now on is that process's */
	if (supervise_starttime(a->pid, &start, &state) == -1 || start != a->starttime ||
	    state == 'Z' || state == 'X') {
		supervise_close(a);
		return 0;
	}
	if (lab_frr_prog(a->name))
		strfmt(want, sizeof(want), "%s", lab_frr_prog(a->name));
	else if (lab_realres_prog(a->name))
		strfmt(want, sizeof(want), "%s", lab_realres_prog(a->name));
	else if (lab_authority_prog(a->name))
		strfmt(want, sizeof(want), "%s", lab_authority_prog(a->name));
	else
		strfmt(want, sizeof(want), "%s/%s", bindir, lab_agent_prog(a->name));
	strfmt(link, sizeof(link), "/proc/%d/exe", (int)a->pid);
	n = readlink(link, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	/* a program rebuilt while the lab was up reads "PATH (deleted)" */
	if (n > 0 && (strcmp(exe, want) == 0 || (strncmp(exe, want, strlen(want)) == 0 &&
						 strcmp(exe + strlen(want), " (deleted)") == 0))) {
		a->reaped = 0;
		return 1;
	}
	if (warn)
		log_warnx("%s:%d: refused: pid %d runs %s, not %s (the %s agent of the lab); not "
			  "signalled",
			  path, a->line, (int)a->pid, n > 0 ? exe : "(unknown)", want, a->name);
	supervise_close(a);
	return -1;
}

static void state_remove(const char *statedir)
{
	static const char *files[] = {"agents.tsv", "namespaces", "rundir", "bindir",
				      "topology.ini"};
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		strfmt(path, sizeof(path), "%s/%s", statedir, files[i]);
		unlink(path);
	}
	lab_frr_remove(statedir);
	lab_realres_remove(statedir);
	lab_authority_remove(statedir);
	if (rmdir(statedir) == -1 && errno != ENOENT)
		log_warn("%s: rmdir %s", __func__, statedir);
}

struct state_namespaces {
	const char *lab;
	int *removed, *refused, rc;
};

static int state_namespace_line(const char *path, int lineno, char *line, void *arg)
{
	struct state_namespaces *r = arg;

	line[strcspn(line, "\n")] = '\0';
	if (line[0] == '\0')
		return 0;
	if (!lab_ns_valid(r->lab, line)) {
		log_warnx("%s:%d: refused: '%s' is not a namespace of lab %s (expected "
			  "%s-NODE, NODE from a-z, 0-9 and '-'); not removed",
			  path, lineno, line, r->lab, r->lab);
		(*r->refused)++;
		return 0;
	}
	if (netns_delete(line) == 0) {
		(*r->removed)++;
	} else if (errno != ENOENT) {
		log_warn("%s: namespace %s", "state_remove_namespaces", line);
		r->rc = -1;
	}
	return 0;
}

/* state_remove_namespaces: delete the namespaces named in statedir's
 * namespaces file that are of the lab's own form; refuse the other lines. */
static int state_remove_namespaces(const char *statedir, const char *lab, int *removed,
				   int *refused)
{
	struct state_namespaces r = {lab, removed, refused, 0};

	state_each_line(statedir, "namespaces", state_namespace_line, &r);
	return r.rc;
}

int lab_state_lock(const char *statedir)
{
	struct stat st;
	int fd = open(statedir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd == -1)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
		if (errno != EWOULDBLOCK) {
			close(fd);
			return -1;
		}
		fprintf(stderr,
			"steerlab: %s is held by another steerlab (bringing the lab up or "
			"taking it down): waiting for it\n",
			statedir);
		while (flock(fd, LOCK_EX) == -1) {
			if (errno != EINTR) {
				close(fd);
				return -1;
			}
		}
	}
	/* the other one removed it while we waited */
	if (fstat(fd, &st) == -1 || st.st_nlink == 0) {
		close(fd);
		return -2;
	}
	return fd;
}

void lab_state_unlock(int fd)
{
	if (fd >= 0)
		close(fd); /* the lock goes with it */
}

int lab_down_state(const char *statedir, FILE *out)
{
	int fd = lab_state_lock(statedir), rc;

	if (fd == -2)
		return 0; /* taken down by the other holder: nothing left */
	if (fd == -1) {
		log_warn("%s: %s", __func__, statedir);
		return -1;
	}
	rc = lab_down_state_locked(statedir, out);
	lab_state_unlock(fd);
	return rc;
}

/* state_namespaces: the namespace names of statedir's namespaces file of
 * the lab's own form, malloc'd into names[0..max) (the caller frees them);
 * how many */
static int state_namespaces(const char *statedir, const char *lab, char *names[], int max)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0;
	int n = 0;
	FILE *fp;

	strfmt(path, sizeof(path), "%s/namespaces", statedir);
	if ((fp = lab_fopen_read(path)) == NULL)
		return 0;
	while (n < max && getline(&line, &cap, fp) != -1) {
		line[strcspn(line, "\n")] = '\0';
		if (lab_ns_valid(lab, line) && (names[n] = strdup(line)) != NULL)
			n++;
	}
	free(line);
	fclose(fp);
	return n;
}

/* state_stop_strays: every process still inside the lab's namespaces after
 * its recorded agents were stopped (one it never recorded: an agent started
 * by an `up` killed before it wrote its line, a daemon's child, a shell of
 * `steerlab exec`), found by its namespace (netns_members), stopped as the
 * agents are; what they were said in said. How many were stopped; *left:
 * how many could not be. */
static int state_stop_strays(const char *statedir, const char *lab, int *left, char *said,
			     size_t len)
{
	static struct netns_member m[LAB_MAX_AGENTS];
	static struct lab_agent strays[LAB_MAX_AGENTS];
	char *names[TOPO_MAX_NODES];
	int nnames = state_namespaces(statedir, lab, names, TOPO_MAX_NODES), n, stopped;
	size_t off = 0;

	*left = 0;
	said[0] = '\0';
	n = netns_members((const char *const *)names, nnames, m, LAB_MAX_AGENTS);
	if (n == -1)
		log_warn("%s: /proc", __func__);
	for (int i = 0; i < n; i++) {
		memset(&strays[i], 0, sizeof(strays[i]));
		strays[i].pid = m[i].pid;
		strays[i].pidfd = m[i].pidfd;
		strays[i].node = -1;
		strfmt(strays[i].name, sizeof(strays[i].name), "%s", m[i].comm);
		log_warnx("%s: pid %d (%s) is in namespace %s but not in agents.tsv: stopping it",
			  lab, m[i].pid, m[i].comm, names[m[i].ns]);
		if (off < len)
			off += (size_t)snprintf(said + off, len - off, "%s%s %d", i ? ", " : "",
						m[i].comm, m[i].pid);
	}
	for (int i = 0; i < nnames; i++)
		free(names[i]);
	if (n <= 0)
		return 0;
	stopped = supervise_stop(strays, n, left);
	for (int i = 0; i < n; i++)
		supervise_close(&strays[i]);
	return stopped;
}

int lab_down_state_locked(const char *statedir, FILE *out)
{
	static struct lab_agent agents[LAB_MAX_AGENTS];
	const char *lab = strrchr(statedir, '/') ? strrchr(statedir, '/') + 1 : statedir;
	char bindir[PATH_MAX], path[PATH_MAX], strays[512], rundir[PATH_MAX];
	int nagents, stopped = 0, left = 0, removed = 0, refused = 0, rc = 0, nstrays, sleft;
	int fetched = 0, hosts = 0;

	if (lab_state_check(statedir) == -1)
		return -1;
	lab_state_bindir(statedir, bindir, sizeof(bindir));
	strfmt(path, sizeof(path), "%s/agents.tsv", statedir);
	nagents = lab_state_read_agents(statedir, agents, LAB_MAX_AGENTS, 1, &refused);
	for (int i = 0; i < nagents; i++)
		if (lab_agent_claim(&agents[i], bindir, path, 1) == -1)
			refused++;
	stopped = supervise_stop(agents, nagents, &left);
	for (int i = 0; i < nagents; i++) {
		if (!supervise_alive(&agents[i]))
			lab_frr_forget(agents[i].name, agents[i].pid);
		supervise_close(&agents[i]);
	}
	/* nothing may outlive the namespaces unseen, in a namespace nobody
	 * can name any more */
	nstrays = state_stop_strays(statedir, lab, &sleft, strays, sizeof(strays));
	left += sleft;
	/* the collectors have ended: their hosts' captures into the run */
	lab_state_line(statedir, "rundir", rundir, sizeof(rundir));
	if (lab_hosts_fetch(statedir, rundir, &fetched, &hosts) == -1)
		rc = -1;
	if (state_remove_namespaces(statedir, lab, &removed, &refused) == -1)
		rc = -1;
	if (rc == 0 && left == 0)
		state_remove(statedir);
	if (out) {
		fprintf(out, "steerlab: %s down: %d agent%s stopped, %d namespace%s removed", lab,
			stopped, stopped == 1 ? "" : "s", removed, removed == 1 ? "" : "s");
		if (hosts)
			fprintf(out, "; %d capture%s fetched from %d host%s", fetched,
				fetched == 1 ? "" : "s", hosts, hosts == 1 ? "" : "s");
		if (nstrays)
			fprintf(out, "; %d process%s it had not recorded stopped (%s)", nstrays,
				nstrays == 1 ? "" : "es", strays);
		if (left)
			fprintf(out, "; %d agent%s could not be stopped", left,
				left == 1 ? "" : "s");
		if (refused)
			fprintf(out, "; %d line%s of its state refused (above)", refused,
				refused == 1 ? "" : "s");
		fprintf(out, "\n");
	}
	return rc == 0 && left == 0 && refused == 0 ? 0 : -1;
}

int lab_state_check(const char *dir)
{
	struct stat st;

	if (lstat(dir, &st) == -1) {
		log_warn("%s: %s", __func__, dir);
		return -1;
	}
	if (S_ISLNK(st.st_mode)) {
		log_warnx("%s is a symbolic link: refused (expected a directory of root's)", dir);
		return -1;
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022)) {
		log_warnx("%s: refused: expected a directory owned by root and writable only by "
			  "it, got %s owned by uid %u, mode %04o",
			  dir, S_ISDIR(st.st_mode) ? "a directory" : "not a directory",
			  (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		return -1;
	}
	return 0;
}

int lab_down(struct lab *lab)
{
	int left, rc;

	if (!lab->stopping) {
		lab_watch(lab, 0); /* the last exits before the stop are still reported */
		lab->stopping = 1;
		event_emit(lab->ev, EVENTS_LAB_STOPPING, NULL);
	}
	supervise_stop(lab->agents, lab->nagents, &left);
	supervise_report_exits(lab);
	for (int i = 0; i < lab->nagents; i++)
		supervise_close(&lab->agents[i]);
	for (int i = 0; i < TOPO_MAX_NODES; i++) {
		if (lab->nsfd[i] != -1)
			close(lab->nsfd[i]);
		lab->nsfd[i] = -1;
	}
	for (int h = 0; h < TOPO_MAX_HOSTS; h++) {
		if (lab->hostfd[h] != -1)
			close(lab->hostfd[h]);
		lab->hostfd[h] = -1;
	}
	/* lab_up holds the state's lock until the lab is up */
	if (lab->lockfd >= 0) {
		rc = lab_down_state_locked(lab->statedir, NULL);
		lab_state_unlock(lab->lockfd);
		lab->lockfd = -1;
	} else {
		rc = lab_down_state(lab->statedir, NULL);
	}
	if (left)
		rc = -1;
	event_emit(lab->ev, EVENTS_LAB_DOWN, NULL);
	return rc;
}
