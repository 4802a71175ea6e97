/* The scenario runner; see run.h. */
#include "run.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clocks.h"
#include "event.h"
#include "lab.h"
#include "log.h"
#include "progress.h"
#include "report.h"
#include "strfmt.h"
#include "timeutil.h"

volatile sig_atomic_t run_interrupted;

static struct lab run_lab;
static struct progress run_progress;

void run_default_dir(char *buf, size_t len, const char *lab)
{
	time_t now = time(NULL);
	struct tm tm;
	char when[32];

	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y%m%d-%H%M%S", &tm);
	strfmt(buf, len, "runs/%s-%s", lab, when);
}

int run_count_events(const char *path, const char *event, const char *key, const char *value)
{
	char line[4096];
	int n = 0;
	FILE *fp = fopen(path, "r");

	if (fp == NULL)
		return 0;
	while (fgets(line, sizeof(line), fp)) {
		json_t *obj = json_loads(line, 0, NULL);
		const char *ev = json_string_value(json_object_get(obj, "event"));
		if (ev && strcmp(ev, event) == 0) {
			const char *v = key ? json_string_value(json_object_get(obj, key)) : NULL;
			if (key == NULL || (v && strcmp(v, value) == 0))
				n++;
		}
		json_decref(obj);
	}
	fclose(fp);
	return n;
}

/* The lab is ready when every site link is being captured, every site's
 * route has been applied by its router, and every authd and resolverd
 * answers. */
static int run_ready(const struct topology *t, const char *rundir)
{
	char path[PATH_MAX];

	for (int n = 0; n < t->nnodes; n++) {
		if (t->nodes[n].kind == TOPO_DNS) {
			strfmt(path, sizeof(path), "%s/%s.authd.events.jsonl", rundir,
			       t->nodes[n].name);
			if (run_count_events(path, "authd_ready", NULL, NULL) == 0)
				return 0;
		} else if (t->nodes[n].kind == TOPO_RESOLVER) {
			strfmt(path, sizeof(path), "%s/%s.resolverd.events.jsonl", rundir,
			       t->nodes[n].name);
			if (run_count_events(path, "resolverd_ready", NULL, NULL) == 0)
				return 0;
		}
	}

	for (int i = 0; i < t->nlinks; i++) {
		const struct topo_link *l = &t->links[i];
		const char *router = t->nodes[l->router].name, *site = t->nodes[l->node].name;
		if (t->nodes[l->node].kind == TOPO_DNS) {
			char label[TOPO_NAME_MAX + 8];
			strfmt(label, sizeof(label), "dns-%s", site);
			strfmt(path, sizeof(path), "%s/%s.collector-dns.events.jsonl", rundir, router);
			if (run_count_events(path, "capture_ready", "label", label) == 0)
				return 0;
		}
		if (t->nodes[l->node].kind != TOPO_SITE)
			continue;
		strfmt(path, sizeof(path), "%s/%s.collector.events.jsonl", rundir, router);
		if (run_count_events(path, "capture_ready", "label", site) == 0)
			return 0;
		strfmt(path, sizeof(path), "%s/%s.routed.events.jsonl", rundir, router);
		if (run_count_events(path, "route_applied", "site", site) == 0)
			return 0;
	}
	return 1;
}

/* run_sleep_until: sleep, keeping the progress line going. */
static int run_sleep_until(int64_t deadline)
{
	int64_t next;

	while ((next = now_mono_ns() + PROGRESS_TTY_NS) < deadline) {
		if (sleep_until_mono(next, (volatile int *)&run_interrupted) == -1)
			return -1;
		progress_tick(&run_progress);
	}
	return sleep_until_mono(deadline, (volatile int *)&run_interrupted);
}

static void run_say(const struct run_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void run_say(const struct run_opts *o, const char *fmt, ...)
{
	va_list ap;

	if (o->quiet)
		return;
	progress_clear(&run_progress);
	va_start(ap, fmt);
	printf("steerlab: ");
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
	va_end(ap);
}

/* Give the run directory to the user who ran sudo, so they keep it. */
void run_chown(const char *rundir)
{
	const char *uid = getenv("SUDO_UID"), *gid = getenv("SUDO_GID");
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;

	if (uid == NULL || gid == NULL || (d = opendir(rundir)) == NULL)
		return;
	uid_t u = (uid_t)strtoul(uid, NULL, 10);
	gid_t g = (gid_t)strtoul(gid, NULL, 10);
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, "..") == 0)
			continue;
		strfmt(path, sizeof(path), "%s/%s", rundir, de->d_name);
		if (chown(path, u, g) == -1)
			log_debug("chown %s: %s", path, strerror(errno));
	}
	closedir(d);
	/* runs/ itself, if sudo made it */
	strfmt(path, sizeof(path), "%s/..", rundir);
	if (chown(path, u, g) == -1)
		log_debug("chown %s: %s", path, strerror(errno));
}

static int run_find_agent(const struct lab *lab, int node, const char *name)
{
	for (int i = 0; i < lab->nagents; i++)
		if (lab->agents[i].node == node && strcmp(lab->agents[i].name, name) == 0)
			return i;
	return -1;
}

/* Kill the failing site's service and record t0. */
static int run_fail(struct lab *lab, const struct run_opts *o)
{
	const struct topology *t = lab->t;
	char via[INET_ADDRSTRLEN], prefix[32], service[INET_ADDRSTRLEN];

	for (int n = 0; n < t->nnodes; n++) {
		const struct topo_node *node = &t->nodes[n];
		int a;
		if (node->kind != TOPO_SITE || !node->fail)
			continue;
		if ((a = run_find_agent(lab, n, "sited")) == -1) {
			log_warnx("site %s has no sited to kill", node->name);
			return -1;
		}
		char address[INET_ADDRSTRLEN];
		inet_ntop(AF_INET, &node->address, address, sizeof(address));
		inet_ntop(AF_INET, &t->links[node->link].node_addr, via, sizeof(via));
		inet_ntop(AF_INET, &t->service, service, sizeof(service));
		strfmt(prefix, sizeof(prefix), "%s/32", service);
		if (kill(lab->agents[a].pid, SIGKILL) == -1) {
			log_warn("kill sited of site %s", node->name);
			return -1;
		}
		int64_t t0 = now_real_ns();
		event_emit_at(lab->ev, t0, "site_failed", "{s:s, s:s, s:s, s:s, s:s, s:i}", "site",
			      node->name, "via", via, "prefix", prefix, "address", address, "how",
			      "sigkill", "pid", (int)lab->agents[a].pid);
		progress_failed(&run_progress, t0);
		run_say(o, "failure: killed sited at site %s (t0)", node->name);
		return 0;
	}
	log_warnx("no site has fail = yes: nothing to fail over");
	return -1;
}

int run_scenario(const struct topology *t, const struct run_opts *o)
{
	struct lab *lab = &run_lab;
	char rundir[PATH_MAX], path[PATH_MAX];
	int64_t start, ready_by;
	int failed = 0, rc = -1;
	FILE *fp;

	if (o->rundir)
		strfmt(rundir, sizeof(rundir), "%s", o->rundir);
	else
		run_default_dir(rundir, sizeof(rundir), t->name);
	if (lab_init(lab, t, rundir, o->bindir) == -1)
		return -1;
	strfmt(path, sizeof(path), "%s/topology.ini", rundir);
	if ((fp = fopen(path, "w")) != NULL) {
		topo_print(t, fp);
		fclose(fp);
	}
	run_say(o, "run directory %s", rundir);
	progress_init(&run_progress, t, progress_mode_for(stdout, o->quiet), stdout, o->label);

	start = now_mono_ns();
	if (lab_up(lab) == -1)
		goto out;
	run_say(o, "lab %s up: %d namespaces, %d links, %d agents in %.2f s", t->name, t->nnodes,
		t->nlinks, lab->nagents, (double)(now_mono_ns() - start) / NSEC_PER_SEC);

	run_say(o, "warm-up: waiting for captures and routes (at most %.1f s)",
		(double)t->settle_ns / NSEC_PER_SEC);
	ready_by = now_mono_ns() + t->settle_ns;
	progress_phase(&run_progress, PROGRESS_WARMUP);
	while (!run_ready(t, rundir)) {
		if (run_interrupted)
			goto down;
		if (now_mono_ns() >= ready_by) {
			log_warnx("the lab was not ready within %.1f s (settle): see the "
				  "*.log files in %s",
				  (double)t->settle_ns / NSEC_PER_SEC, rundir);
			goto down;
		}
		usleep(20000);
		progress_tick(&run_progress);
	}

	if (lab_start_clients(lab, t->duration_ns) == -1)
		goto down;
	start = now_mono_ns();
	progress_traffic(&run_progress, start, lab);
	event_emit(lab->ev, "traffic_started", "{s:I, s:I}", "fail_at_ns",
		   (json_int_t)t->fail_at_ns, "duration_ns", (json_int_t)t->duration_ns);
	run_say(o, "traffic: clients sending for %.1f s; failure at %.1f s",
		(double)t->duration_ns / NSEC_PER_SEC, (double)t->fail_at_ns / NSEC_PER_SEC);
	if (run_sleep_until(start + t->fail_at_ns) == -1)
		goto stop;
	if (run_fail(lab, o) == -1)
		goto stop;
	failed = 1;
	run_say(o, "observing for %.1f s", (double)(t->duration_ns - t->fail_at_ns) / NSEC_PER_SEC);
	/* clients stop by themselves after duration, then wait out their timeout */
	while (lab_wait_agents(lab, "client*", PROGRESS_TTY_NS) > 0) {
		progress_tick(&run_progress);
		if (run_interrupted)
			break;
		if (now_mono_ns() > start + t->duration_ns + 2 * 5 * NSEC_PER_SEC) {
			log_warnx("clients did not finish in time");
			break;
		}
	}
stop:
	event_emit(lab->ev, "traffic_stopped", "{s:b}", "interrupted", run_interrupted != 0);
down:
	progress_free(&run_progress);
	if (run_interrupted)
		run_say(o, "interrupted: taking the lab down and keeping what was captured");
	if (lab_down(lab) == -1)
		log_warnx("lab %s: take-down incomplete; try: steerlab down %s", t->name, t->name);
	else
		run_say(o, "lab %s down", t->name);
	if (failed)
		run_say(o, "analysing the captures, events and records");
	if (failed) {
		if (report_run(rundir, NULL, stdout) == 0)
			rc = run_interrupted ? -1 : 0;
		run_say(o, "results in %s (report.md, clocks.json)", rundir);
	}
out:
	progress_free(&run_progress);
	event_close(lab->ev);
	lab->ev = NULL;
	run_chown(rundir);
	return rc;
}
