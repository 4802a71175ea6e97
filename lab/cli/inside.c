/* Inside a running lab: nodes, exec, fail, recover; see inside.h. */
#include "inside.h"

#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/pidfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "event.h"
#include "events.h"
#include "hint.h"
#include "lab.h"
#include "run.h"
#include "strfmt.h"
#include "timeutil.h"

#define INSIDE_READY_NS (5 * 1000000000LL) /* recover: sited says sited_ready */

static struct lab_state inside_state;

/* inside_load: the lab's state, or the reason on stderr */
static int inside_load(const char *cmd, const char *lab)
{
	char err[1024];

	if (lab_state_load(&inside_state, lab, err, sizeof(err)) == 0)
		return 0;
	fprintf(stderr, "steerlab: %s: %s\n", cmd, err);
	return -1;
}

/* inside_site: node name of the loaded lab, which must be a site: its
 * index, or -1 (said). */
static int inside_site(const char *cmd, const char *name)
{
	const struct topology *t = &inside_state.t;
	char err[1024], sites[512] = "";
	int n, len = 0;

	if ((n = lab_state_node(&inside_state, name, err, sizeof(err))) == -1) {
		fprintf(stderr, "steerlab: %s: %s\n", cmd, err);
		return -1;
	}
	if (t->nodes[n].kind == TOPO_SITE)
		return n;
	for (int i = 0; i < t->nnodes && len >= 0 && (size_t)len < sizeof(sites); i++)
		if (t->nodes[i].kind == TOPO_SITE)
			len += snprintf(sites + len, sizeof(sites) - (size_t)len, "%s%s",
					len ? ", " : "", t->nodes[i].name);
	fprintf(stderr, "steerlab: %s: node %s of lab %s is a %s, not a site (its sites: %s)\n",
		cmd, name, inside_state.name, topo_kind_name(t->nodes[n].kind),
		sites[0] ? sites : "none");
	return -1;
}

/* inside_events: the lab's lab.events.jsonl, appended; NULL (said) */
static struct event_log *inside_events(const char *cmd)
{
	char path[PATH_MAX];

	if (inside_state.rundir[0] == '\0') {
		fprintf(stderr, "steerlab: %s: lab %s has no run directory recorded in %s/rundir\n",
			cmd, inside_state.name, inside_state.dir);
		return NULL;
	}
	strfmt(path, sizeof(path), "%s/lab.events.jsonl", inside_state.rundir);
	return event_open(path, "lab", "steerlab");
}

int inside_nodes(const char *lab, int json, FILE *out)
{
	json_t *doc;

	if (inside_load("nodes", lab) == -1)
		return 1;
	if (!json) {
		lab_nodes_print(&inside_state, out);
		return 0;
	}
	if ((doc = lab_nodes_json(&inside_state)) == NULL) {
		fprintf(stderr, "steerlab: nodes: out of memory\n");
		return 1;
	}
	json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', out);
	json_decref(doc);
	return 0;
}

/* inside_exec_frr: a node that runs FRR has its daemons' sockets in
 * STATEDIR/frr/NODE; mounted over /run/frr (where FRR's package keeps
 * them, and vtysh looks) in exec's own mount namespace, vtysh reaches them
 * as on a router of its own, without --vty_socket. Nothing else sees it. */
static void inside_exec_frr(const char *node)
{
	char dir[PATH_MAX];

	if (strfmt(dir, sizeof(dir), "%s/frr/%s", inside_state.dir, node) == -1 ||
	    access(dir, F_OK) == -1 || access(INSIDE_FRR_RUNDIR, F_OK) == -1)
		return;
	if (mount(dir, INSIDE_FRR_RUNDIR, NULL, MS_BIND, NULL) == -1)
		fprintf(stderr, "steerlab: exec: %s over %s: %s (vtysh needs --vty_socket %s)\n",
			dir, INSIDE_FRR_RUNDIR, strerror(errno), dir);
}

int inside_exec(const char *lab, const char *node, char *const cmd[], int ncmd)
{
	char err[1024], ns[64], prompt[64], *sh[3];
	const char *shell = getenv("SHELL");
	int n, fd;

	if (inside_load("exec", lab) == -1)
		return 1;
	if ((n = lab_state_node(&inside_state, node, err, sizeof(err))) == -1) {
		fprintf(stderr, "steerlab: exec: %s\n", err);
		return 1;
	}
	lab_nsname(ns, sizeof(ns), &inside_state.t, n);
	if (!lab_state_has_ns(&inside_state, ns)) {
		fprintf(stderr,
			"steerlab: exec: namespace %s is not one lab %s made (%s/namespaces)\n", ns,
			lab, inside_state.dir);
		return 1;
	}
	if ((fd = netns_open(ns)) == -1) {
		fprintf(stderr, "steerlab: exec: namespace %s: %s\n", ns, strerror(errno));
		return 1;
	}
	if (netns_enter_exec(fd) == -1) {
		fprintf(stderr, "steerlab: exec: entering namespace %s: %s\n", ns, strerror(errno));
		return 1;
	}
	close(fd);
	inside_exec_frr(node);
	if (ncmd == 0) {
		/* the prompt says where the shell is; Debian's bash.bashrc sets
		 * PS1 itself, with debian_chroot in it */
		strfmt(prompt, sizeof(prompt), "%s:%s# ", lab, node);
		setenv("PS1", prompt, 1);
		strfmt(prompt, sizeof(prompt), "%s:%s", lab, node);
		setenv("debian_chroot", prompt, 1);
		sh[0] = (char *)(shell && shell[0] == '/' && access(shell, X_OK) == 0 ? shell
										      : "/bin/sh");
		sh[1] = "-i";
		sh[2] = NULL;
		cmd = sh;
	}
	fflush(NULL);
	execvp(cmd[0], cmd);
	fprintf(stderr, "steerlab: exec: %s: %s\n", cmd[0], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}

/* inside_wait_gone: wait up to timeout_ns for the process of pidfd to end.
 * 0 when it has. */
static int inside_wait_gone(int pidfd, int64_t timeout_ns)
{
	struct pollfd p = {.fd = pidfd, .events = POLLIN};
	int r;

	do
		r = poll(&p, 1, (int)(timeout_ns / 1000000));
	while (r == -1 && errno == EINTR);
	return r == 1 ? 0 : -1;
}

/* inside_lab: the lab as lab_up knew it, enough to act on node n with the
 * timeline's actions (lab/run/actions.c): its topology, directories, the
 * node's namespace if ns, and the events file */
static void inside_lab(struct lab *l, struct event_log *ev)
{
	struct lab_state *s = &inside_state;

	memset(l, 0, sizeof(*l));
	l->t = &s->t;
	for (int k = 0; k < TOPO_MAX_NODES; k++)
		l->nsfd[k] = -1;
	strfmt(l->rundir, sizeof(l->rundir), "%s", s->rundir);
	strfmt(l->statedir, sizeof(l->statedir), "%s", s->dir);
	strfmt(l->bindir, sizeof(l->bindir), "%s", s->bindir);
	l->ev = ev;
	l->phase = LAB_UP;
}

/* inside_event: an event of the loaded topology for a hand command
 * (called "hand"), action on site n, undoing the event undoes (-1): the
 * timeline's own actions apply it. Its index. */
static int inside_event(int action, int n, int undoes)
{
	struct topology *t = &inside_state.t;
	struct topo_event *e;

	if (t->nevents == TOPO_MAX_EVENTS)
		t->nevents--; /* the lab's own timeline is not run here */
	e = &t->events[t->nevents];
	memset(e, 0, sizeof(*e));
	strfmt(e->name, sizeof(e->name), "hand");
	e->action = action;
	e->node = n;
	e->link = e->rlink = -1;
	e->undoes = undoes;
	return t->nevents++;
}

int inside_fail(const char *lab, const char *site)
{
	struct lab_state *s = &inside_state;
	char path[PATH_MAX];
	struct event_log *ev;
	struct lab_agent *a;
	int n, i;

	if (inside_load("fail", lab) == -1 || (n = inside_site("fail", site)) == -1)
		return 1;
	if ((i = lab_state_find_agent(s, n, "sited")) == -1) {
		fprintf(stderr,
			"steerlab: fail: site %s of lab %s has no sited (was it up with "
			"--no-agents?)\n",
			site, lab);
		return 1;
	}
	a = &s->agents[i];
	strfmt(path, sizeof(path), "%s/agents.tsv", s->dir);
	/* held by a pidfd from here: the kill cannot reach a reused PID */
	if (lab_agent_claim(a, s->bindir, path, 1) != 1) {
		fprintf(stderr,
			"steerlab: fail: site %s of lab %s has already failed: its sited "
			"(pid %d) is not running (steerlab recover %s %s starts it again)\n",
			site, lab, (int)a->pid, lab, site);
		return 1;
	}
	if ((ev = inside_events("fail")) == NULL) {
		lab_agent_release(a);
		return 1;
	}
	/* the timeline's kill (lab/run/actions.c): site_failed stamped t0 before
	 * the SIGKILL, through the pidfd that holds sited */
	static struct lab l;
	struct action_step step = {.event = inside_event(TOPO_A_KILL, n, -1)};
	char said[256];

	inside_lab(&l, ev);
	l.agents[0] = *a;
	l.agents[0].child = 0;
	l.nagents = 1;
	action_reset();
	if (action_apply(&l, &step, "hand", said, sizeof(said)) == -1) {
		fprintf(stderr, "steerlab: fail: %s\n", said);
		lab_agent_release(a);
		event_close(ev);
		return 1;
	}
	event_close(ev);
	if (inside_wait_gone(a->pidfd, LAB_GRACE_NS) == -1)
		fprintf(stderr,
			"steerlab: fail: sited of site %s (pid %d) was sent SIGKILL but "
			"has not ended yet\n",
			site, (int)a->pid);
	lab_agent_release(a);
	printf("steerlab: site %s of lab %s failed: sited (pid %d) killed; site_failed in "
	       "%s/lab.events.jsonl\n",
	       site, lab, (int)a->pid, s->rundir);
	return 0;
}

/* inside_ready: the count of sited_ready in site's events file */
static int inside_ready(const char *site)
{
	char path[PATH_MAX];

	strfmt(path, sizeof(path), "%s/%s.sited.events.jsonl", inside_state.rundir, site);
	return run_count_events(path, EVENTS_SITED_READY, NULL, NULL);
}

int inside_recover(const char *lab, const char *site)
{
	static struct lab l;
	struct lab_state *s = &inside_state;
	struct event_log *ev;
	char ns[64];
	int n, i, ready, rc = 1;

	if (inside_load("recover", lab) == -1 || (n = inside_site("recover", site)) == -1)
		return 1;
	if ((i = lab_state_find_agent(s, n, "sited")) >= 0 && !s->agents[i].reaped) {
		fprintf(stderr,
			"steerlab: recover: site %s of lab %s has not failed: its sited "
			"(pid %d) is running\n",
			site, lab, (int)s->agents[i].pid);
		return 1;
	}
	lab_nsname(ns, sizeof(ns), &s->t, n);
	if (!lab_state_has_ns(s, ns)) {
		fprintf(stderr, "steerlab: recover: namespace %s is not one lab %s made\n", ns,
			lab);
		return 1;
	}
	if ((ev = inside_events("recover")) == NULL)
		return 1;
	/* the timeline's recover of a kill (lab/run/actions.c): sited started
	 * again with up's command line */
	inside_lab(&l, ev);
	if ((l.nsfd[n] = netns_open(ns)) == -1) {
		fprintf(stderr, "steerlab: recover: namespace %s: %s\n", ns, strerror(errno));
		goto out;
	}
	ready = inside_ready(site);
	struct action_step step = {
	    .event = inside_event(TOPO_A_RECOVER, n, inside_event(TOPO_A_KILL, n, -1))};
	char said[256];
	if (action_apply(&l, &step, "hand", said, sizeof(said)) == -1) {
		fprintf(stderr, "steerlab: recover: %s\n", said);
		goto out;
	}
	i = l.nagents - 1;
	struct lab_agent *a = &l.agents[i];
	int64_t deadline = now_mono_ns() + INSIDE_READY_NS;
	int ended = 0;
	while (inside_ready(site) == ready && now_mono_ns() < deadline) {
		siginfo_t si = {0};

		if (waitid(P_PID, (id_t)a->pid, &si, WEXITED | WNOHANG) == 0 && si.si_pid != 0) {
			ended = 1;
			break;
		}
		usleep(20000);
	}
	if (ended || inside_ready(site) == ready) {
		fprintf(stderr,
			"steerlab: recover: sited of site %s (pid %d) %s (see %s/%s.sited.log)\n",
			site, (int)a->pid,
			ended ? "ended at once" : "did not say it was ready within 5 s", s->rundir,
			site);
		if (!ended)
			event_emit(ev, EVENTS_SITE_RECOVERED, "{s:s, s:i, s:b, s:s}", "site", site,
				   "pid", (int)a->pid, "ready", 0, "by", "hand");
		goto out;
	}
	event_emit(ev, EVENTS_SITE_RECOVERED, "{s:s, s:i, s:b, s:s}", "site", site, "pid",
		   (int)a->pid, "ready", 1, "by", "hand");
	printf("steerlab: site %s of lab %s recovered: sited started again (pid %d), ready\n", site,
	       lab, (int)a->pid);
	rc = 0;
out:
	for (int k = 0; k < l.nagents; k++)
		if (l.agents[k].pidfd >= 0)
			close(l.agents[k].pidfd);
	if (l.nsfd[n] >= 0)
		close(l.nsfd[n]);
	event_close(ev);
	return rc;
}

int inside_impair(const char *lab, const char *a, const char *b, int n, char *const kv[])
{
	static struct lab l;
	struct lab_state *s = &inside_state;
	struct impair chg[2];
	unsigned set[2];
	const struct impair *base[2];
	const char *ifname[2];
	enum impair_mech mech = IMPAIR_MECH_DELAYLINE;
	char err[1024], path[PATH_MAX];
	struct event_log *ev = NULL;
	int node[2], link, rlink, rc = 1, linkd = 0;

	if (inside_load("impair", lab) == -1)
		return 1;
	if (topo_impair_args(&s->t, a, b, n, kv, &link, &rlink, chg, set, err, sizeof(err)) == -1) {
		fprintf(stderr, "steerlab: impair: %s\n", err);
		return 1;
	}
	topo_link_dirs(&s->t, link, rlink, node, ifname, base);
	inside_lab(&l, NULL);
	strfmt(path, sizeof(path), "%s/agents.tsv", s->dir);
	/* each end's linkd, held by a pidfd (SIGHUP cannot reach a reused
	 * PID), and namespace (netem) */
	for (int d = 0; d < 2; d++) {
		char ns[64];
		int i = lab_state_find_agent(s, node[d], "linkd");

		if (i >= 0 && lab_agent_claim(&s->agents[i], s->bindir, path, 1) == 1) {
			l.agents[l.nagents] = s->agents[i];
			l.agents[l.nagents].child = 0;
			l.nagents++;
			linkd = 1;
		}
		lab_nsname(ns, sizeof(ns), &s->t, node[d]);
		if (!lab_state_has_ns(s, ns) || (l.nsfd[node[d]] = netns_open(ns)) == -1) {
			fprintf(stderr, "steerlab: impair: namespace %s of lab %s: %s\n", ns, lab,
				lab_state_has_ns(s, ns) ? strerror(errno) : "not one it made");
			goto out;
		}
	}
	/* the mechanism bring-up used: a lab with a linkd delays by linkd;
	 * else this kernel's */
	if (!linkd && lab_impair_mech(&s->t, &mech, err, sizeof(err), stderr) == -2) {
		fprintf(stderr, "steerlab: impair: impairments: %s\n", err);
		goto out;
	}
	if ((ev = inside_events("impair")) == NULL)
		goto out;
	l.ev = ev;
	if (lab_impair_change(&l, mech, link, rlink, chg, set, "hand", "hand", err, sizeof(err)) ==
	    -1) {
		fprintf(stderr, "steerlab: impair: %s\n", err);
		goto out;
	}
	for (int d = 0; d < 2; d++) {
		struct impair im = *base[d];
		char desc[256];
		int found;

		if (!set[d])
			continue;
		strfmt(path, sizeof(path), "%s/%s.impair", s->rundir, s->t.nodes[node[d]].name);
		(void)impair_file_read(path, ifname[d], &im, &found, err, sizeof(err));
		impair_format(&im, desc, sizeof(desc));
		printf("steerlab: %s>%s of lab %s: %s (%s); link_impaired in %s/lab.events.jsonl\n",
		       s->t.nodes[node[d]].name, s->t.nodes[node[1 - d]].name, lab, desc,
		       lab_impair_mech_text(mech), s->rundir);
	}
	rc = 0;
out:
	for (int k = 0; k < l.nagents; k++)
		if (l.agents[k].pidfd >= 0)
			close(l.agents[k].pidfd);
	for (int d = 0; d < 2; d++)
		if (l.nsfd[node[d]] >= 0)
			close(l.nsfd[node[d]]);
	if (ev)
		event_close(ev);
	return rc;
}

/* inside_traffic: the traffic of lab.events.jsonl at path still running
 * when down came: 0 none (never started, or stopped), 1 an `up --traffic`'s
 * (until down: duration 0), 2 a run's that never said traffic_stopped (its
 * steerlab died, or is being cut short by this down) */
static void inside_traffic_one(json_t *obj, const char *event, void *arg)
{
	int *state = arg;

	if (strcmp(event, EVENTS_TRAFFIC_STARTED) == 0)
		*state = json_integer_value(json_object_get(obj, "duration_ns")) > 0 ? 2 : 1;
	else if (strcmp(event, EVENTS_TRAFFIC_STOPPED) == 0)
		*state = 0;
}

static int inside_traffic(const char *path)
{
	int state = 0;
	FILE *fp = lab_fopen_read(path);

	if (fp == NULL)
		return 0;
	events_each(fp, inside_traffic_one, &state);
	fclose(fp);
	return state;
}

int inside_down(const char *statedir, FILE *out)
{
	char path[PATH_MAX], rundir[PATH_MAX];
	struct event_log *ev = NULL;
	int rc, lock;

	/* one takedown at a time: a second `down` waits, then finds it gone */
	if ((lock = lab_state_lock(statedir)) == -2) {
		fprintf(stderr, "steerlab: down: %s was taken down meanwhile, by another process\n",
			statedir);
		return -1;
	}
	if (lock == -1) {
		fprintf(stderr, "steerlab: down: %s: %s\n", statedir, strerror(errno));
		return -1;
	}
	lab_state_line(statedir, "rundir", rundir, sizeof(rundir));
	strfmt(path, sizeof(path), "%s/lab.events.jsonl", rundir);
	/* only a lab's own events file: never one made here */
	if (rundir[0] == '/' && access(path, F_OK) == 0 &&
	    (ev = event_open(path, "lab", "steerlab")) != NULL) {
		int traffic = inside_traffic(path);

		/* up --traffic sends until down: its end; a run's traffic that
		 * never stopped was cut short, and nobody watched it to the end */
		if (traffic == 1)
			event_emit(ev, EVENTS_TRAFFIC_STOPPED, "{s:b}", "interrupted", 0);
		else if (traffic == 2)
			event_emit(ev, EVENTS_TRAFFIC_STOPPED, "{s:b, s:s}", "interrupted", 1, "by",
				   "down");
		if (traffic == 2 && out)
			fprintf(out,
				"steerlab: the run in %s never finished (its steerlab run was "
				"killed?): marked interrupted\n",
				rundir);
		event_emit(ev, EVENTS_LAB_STOPPING, NULL);
	}
	rc = lab_down_state_locked(statedir, out);
	if (rc == 0)
		event_emit(ev, EVENTS_LAB_DOWN, NULL);
	event_close(ev);
	lab_state_unlock(lock);
	return rc;
}

int inside_which_node(const char *cmd, const char *lab, int sites)
{
	static char *names[TOPO_MAX_NODES];
	const struct topology *t = &inside_state.t;
	const char *what = sites ? "site" : "node";
	char err[1024], hint[4096];
	int n = 0;

	if (lab_state_load(&inside_state, lab, err, sizeof(err)) == -1) {
		fprintf(stderr, "steerlab: %s: which %s? (%s)\n", cmd, what, err);
		return 2;
	}
	for (int i = 0; i < t->nnodes; i++)
		if (!sites || t->nodes[i].kind == TOPO_SITE)
			names[n++] = (char *)t->nodes[i].name;
	if (hint_which_node(cmd, lab, what, names, n, hint, sizeof(hint)) == 0)
		fprintf(stderr, "steerlab: %s\n", hint);
	else
		fprintf(stderr, "steerlab: %s: which %s? lab %s has none\n", cmd, what, lab);
	return 2;
}
