/* The commands of a lab's life and of what is inside it; see cli.h. */
#include "cli.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "event.h"
#include "events.h"
#include "lab.h"
#include "hint.h"
#include "inside.h"
#include "log.h"
#include "run.h"
#include "strfmt.h"
#include "timeutil.h"
#include "topology.h"

/* cmd_check_frr: every router's bgpd configuration into dir (and every
 * site's, with routing = bgp), each dry-run by FRR when it is installed.
 * With routing = static a router's has its [link]s only: a preview. 0, or
 * -1 (said). */
static int cmd_check_frr(const char *dir, FILE *out)
{
	char file[TOPO_NAME_MAX + 16], path[PATH_MAX];
	int have = access(FRR_BGPD, X_OK) == 0 && access(FRR_VTYSH, X_OK) == 0, rc = 0;
	FILE *fp;

	if (mkdir(dir, 0755) == -1 && errno != EEXIST) {
		fprintf(stderr, "steerlab: check: --frr %s: %s\n", dir, strerror(errno));
		return -1;
	}
	for (int n = 0; n < cli_topo.nnodes; n++) {
		if (cli_topo.nodes[n].kind != TOPO_ROUTER && !frrconf_node(&cli_topo, n))
			continue;
		strfmt(file, sizeof(file), "%s.bgpd.conf", cli_topo.nodes[n].name);
		if (strfmt(path, sizeof(path), "%s/%s", dir, file) == -1 ||
		    (fp = lab_fopen_write(dir, file)) == NULL)
			return -1;
		if ((frrconf_write(&cli_topo, n, FRRCONF_BGPD, fp, NULL) == -1) |
		    (fclose(fp) == EOF)) {
			fprintf(stderr, "steerlab: check: %s: %s\n", path, strerror(errno));
			return -1;
		}
		if (!have)
			fprintf(out, "# frr: %s (not checked: no %s; sudo make deps)\n", path,
				FRR_BGPD);
		else if (frrconf_check_node(&cli_topo, n, stderr) == -1)
			rc = -1;
		else
			fprintf(out, "# frr: %s (FRR's dry run: OK)\n", path);
	}
	return rc;
}

/* check_impair: the impaired links and the paths' RTT, with the mechanism
 * that will apply them (not known without root: said). 0, or -1 (said) if
 * one cannot be applied by it. */
static int check_impair(FILE *out)
{
	enum impair_mech mech;
	char why[256], text[320];
	int rc;

	if (!topo_impaired(&cli_topo) && !topo_impair_events(&cli_topo))
		return 0;
	fflush(out);
	rc = lab_impair_mech(&cli_topo, &mech, why, sizeof(why), stderr);
	if (rc == -2) {
		strfmt(text, sizeof(text), "netem or delayline (linkd), not known here (%s)", why);
		topo_print_impair(&cli_topo, text, out);
		return 0;
	}
	topo_print_impair(&cli_topo, lab_impair_mech_text(mech), out);
	if (mech == IMPAIR_MECH_DELAYLINE && why[0])
		fprintf(out, "# (no netem: %s)\n", why);
	return rc;
}

/* cmd_check_json: the topology as checked on stdout (topo_json), after
 * the same checks as the text's, their text to null; the exit status */
static int cmd_check_json(const struct cmd_args *a, FILE *null)
{
	json_t *j;
	int rc = 1;

	if (check_impair(null) == -1 || (a->frr && cmd_check_frr(a->frr, null) == -1))
		return 1;
	if ((j = topo_json(&cli_topo)) == NULL) {
		fprintf(stderr, "steerlab: check: out of memory\n");
		return 1;
	}
	json_object_set_new(j, "ok", json_true());
	if (json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0 &&
	    fputc('\n', stdout) != EOF)
		rc = 0;
	json_decref(j);
	return rc;
}

int cmd_check(const struct cmd_args *a, const char *bindir)
{
	FILE *null;
	int rc;

	(void)bindir;
	if (cli_load(a, "check") == -1)
		return 1;
	if (a->json) {
		if ((null = fopen("/dev/null", "w")) == NULL) {
			fprintf(stderr, "steerlab: check: /dev/null: %s\n", strerror(errno));
			return 1;
		}
		rc = cmd_check_json(a, null);
		fclose(null);
		return rc;
	}
	topo_print(&cli_topo, stdout);
	printf("\n");
	topo_print_timeline(&cli_topo, stdout);
	topo_print_proximity(&cli_topo, stdout);
	if (check_impair(stdout) == -1)
		return 1;
	frrconf_print(&cli_topo, stdout);
	realres_print(&cli_topo, stdout);
	if (a->frr && cmd_check_frr(a->frr, stdout) == -1)
		return 1;
	printf("# configuration OK\n");
	return 0;
}

/* cmd_dir_bytes: the size of the files under a directory, summed by nftw */
static long long dir_total;

static int cmd_dir_add(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	if (type == FTW_F)
		dir_total += st->st_size;
	return 0;
}

static long long cmd_dir_bytes(const char *path)
{
	dir_total = 0;
	if (nftw(path, cmd_dir_add, 16, FTW_PHYS) == -1)
		return -1;
	return dir_total;
}

/* cmd_up_traffic: start the clients, then measure over 1 s how fast the run
 * directory grows (their captures and logs), watching the agents. Returns
 * the number of client nodes sending, or -1. */
static int cmd_up_traffic(struct lab *lab, const char *rundir, double *mb_min)
{
	const struct topology *t = lab->t;
	int64_t t0, t1, deadline;
	long long s0, s1;
	int n, clients = 0;

	for (n = 0; n < t->nnodes; n++)
		clients += t->nodes[n].kind == TOPO_CLIENT;
	if (lab_start_clients(lab, 0, 0) == -1)
		return -1;
	/* until down (duration 0), which writes traffic_stopped: a lab failed
	 * by hand can then be analysed (docs/inside.md) */
	event_emit(lab->ev, EVENTS_TRAFFIC_STARTED, "{s:i}", "duration_ns", 0);
	s0 = cmd_dir_bytes(rundir);
	t0 = now_mono_ns();
	deadline = t0 + 1000000000LL;
	while ((t1 = now_mono_ns()) < deadline && !lab->unexpected && !run_interrupted)
		lab_watch(lab, deadline - t1);
	lab_watch(lab, 0);
	if (lab->unexpected || run_interrupted)
		return -1;
	s1 = cmd_dir_bytes(rundir);
	*mb_min =
	    s0 < 0 || s1 < s0 || t1 <= t0 ? 0 : (double)(s1 - s0) / 1e6 * 60e9 / (double)(t1 - t0);
	return clients;
}

int cmd_up(const struct cmd_args *a, const char *bindir)
{
	static struct lab lab;
	char rundir[PATH_MAX], path[PATH_MAX], err[PATH_MAX + 128];
	FILE *fp;
	double mb_min = 0;
	int clients = -1;

	if (cli_load(a, "up") == -1 || cli_need_root("up") == -1)
		return 1;
	if (a->out)
		snprintf(rundir, sizeof(rundir), "%s", a->out);
	else
		run_default_dir(rundir, sizeof(rundir), cli_topo.name);
	/* what lab_up would refuse is refused before anything is made */
	if ((run_preflight_lab("up", &cli_topo, a->no_agents ? NULL : bindir) == -1) |
	    (rundir_check("up", rundir, NULL, a->out != NULL, stderr) == -1))
		return 1;
	/* Ctrl-C, SIGTERM, SIGHUP: what was made is taken down, as run does */
	cli_catch_signals();
	if (lab_init(&lab, &cli_topo, rundir, bindir) == -1)
		return 1;
	lab.no_agents = a->no_agents;
	lab.interrupt = &run_interrupted;
	if (lab_up(&lab) == -1)
		goto fail;
	/* the topology as used, for report (a run writes it too) */
	strfmt(path, sizeof(path), "%s/topology.ini", rundir);
	if (access(path, F_OK) == -1 && (fp = lab_fopen_new(rundir, "topology.ini")) != NULL) {
		topo_print(&cli_topo, fp);
		fclose(fp);
		if (planjson_write(&cli_topo, rundir, err, sizeof(err)) == -1)
			log_warnx("%s", err);
	}
	/* watched while this process lives: up to ready, and the clients' start
	 * when asked (they send until the lab is taken down) */
	if (!a->no_agents) {
		if (run_wait_ready(&lab) == -1 && (lab.unexpected || run_interrupted))
			goto down;
		lab.phase = LAB_UP;
		if (a->traffic && (clients = cmd_up_traffic(&lab, rundir, &mb_min)) == -1)
			goto down;
		lab_watch(&lab, 0);
		if (lab.unexpected)
			goto down;
	}
	if (run_interrupted)
		goto down;
	printf("steerlab: lab %s is up: %d namespaces, %d links, %d agents\n", cli_topo.name,
	       cli_topo.nnodes, cli_topo.nlinks, lab.nagents);
	printf("  run directory: %s (events, logs, captures)\n", rundir);
	if (clients >= 0)
		printf("  traffic: %d client%s sending; the run directory grows about %.1f "
		       "MB/min\n",
		       clients, clients == 1 ? "" : "s", mb_min);
	else if (!a->no_agents)
		printf("  clients not started: add --traffic to send requests\n");
	printf("  its nodes:     sudo steerlab nodes %s\n", cli_topo.name);
	printf("  look inside:   sudo steerlab exec %s %s -- ip route\n", cli_topo.name,
	       cli_topo.nodes[0].name);
	for (int n = 0;
	     cli_topo.routing == TOPO_ROUTING_BGP && !a->no_agents && n < cli_topo.nnodes; n++) {
		if (cli_topo.nodes[n].kind != TOPO_ROUTER)
			continue;
		/* FRR's own shell on a router's daemons (docs/topology.md) */
		printf("                 sudo steerlab exec %s %s -- vtysh -c 'show bgp summary'\n",
		       cli_topo.name, cli_topo.nodes[n].name);
		break;
	}
	printf("  take it down:  sudo steerlab down %s\n", cli_topo.name);
	event_close(lab.ev);
	return 0;

down:
	if (run_interrupted)
		fprintf(stderr,
			"steerlab: lab %s: interrupted: taking the lab down; its logs stay in "
			"%s\n",
			cli_topo.name, rundir);
	else
		fprintf(stderr,
			"steerlab: lab %s: an agent could not start or ended (above): taking "
			"the lab down; its logs stay in %s\n",
			cli_topo.name, rundir);
	if (lab_down(&lab) == -1)
		fprintf(stderr, "steerlab: lab %s: take-down incomplete; try: steerlab down %s\n",
			cli_topo.name, cli_topo.name);
fail:
	if (run_interrupted)
		fprintf(stderr, "steerlab: up: interrupted: lab %s is not up\n", cli_topo.name);
	event_close(lab.ev);
	return 1;
}

/* lab_file_hint: cmd (down, nodes, ...) was given a topology file: name
 * its lab */
static void lab_file_hint(const char *cmd, const char *file)
{
	FILE *null = fopen("/dev/null", "w");
	char hint[512];
	int ok = null && topo_load(&cli_topo, file, NULL, 0, null) == 0;

	if (null)
		fclose(null);
	if (hint_lab_file(cmd, file, ok ? cli_topo.name : NULL, hint, sizeof(hint)) == 0)
		fprintf(stderr, "steerlab: %s\n", hint);
}

int cmd_down(const struct cmd_args *a, const char *bindir)
{
	const char *name = a->file;
	char statedir[PATH_MAX];

	(void)bindir;

	if (name == NULL) {
		fprintf(stderr, "steerlab: down: which lab? (steerlab status lists them)\n");
		return 2;
	}
	if (strchr(name, '/') ||
	    (strlen(name) > 4 && strcmp(name + strlen(name) - 4, ".ini") == 0) ||
	    (topo_check_name(name) == -1 && access(name, F_OK) == 0)) {
		lab_file_hint("down", name);
		return 2;
	}
	if (cli_need_root("down") == -1)
		return 1;
	if (topo_check_name(name) == -1) {
		fprintf(stderr, "steerlab: down: '%s' is not a lab name (%s)\n", name,
			TOPO_NAME_RULE);
		return 2;
	}
	if (lab_statedir(statedir, sizeof(statedir), name) == -1 || access(statedir, F_OK) == -1) {
		fprintf(stderr,
			"steerlab: down: no lab named '%s' is up (steerlab status lists "
			"them)\n",
			name);
		return 1;
	}
	if (lab_state_check(LAB_STATE_DIR) == -1)
		return 1;
	return inside_down(statedir, stdout) == 0 ? 0 : 1;
}

/* cmd_need_lab: cmd was given a lab name that is one (a file is answered with
 * its lab's name); 0, or the exit status */
static int cmd_need_lab(const char *cmd, const char *name)
{
	if (name == NULL) {
		fprintf(stderr, "steerlab: %s: which lab? (steerlab status lists them)\n", cmd);
		return 2;
	}
	if (strchr(name, '/') ||
	    (strlen(name) > 4 && strcmp(name + strlen(name) - 4, ".ini") == 0) ||
	    (topo_check_name(name) == -1 && access(name, F_OK) == 0)) {
		lab_file_hint(cmd, name);
		return 2;
	}
	if (topo_check_name(name) == -1) {
		fprintf(stderr, "steerlab: %s: '%s' is not a lab name (%s)\n", cmd, name,
			TOPO_NAME_RULE);
		return 2;
	}
	return cli_need_root(cmd) == -1 ? 1 : 0;
}

int cmd_status(const struct cmd_args *a, const char *bindir)
{
	int rc;

	(void)bindir;

	if (a->file && (rc = cmd_need_lab("status", a->file)) != 0)
		return rc;
	return lab_status(stdout, a->json, a->file) == 0 ? 0 : 1;
}

int cmd_nodes(const struct cmd_args *a, const char *bindir)
{
	int rc;

	(void)bindir;

	if ((rc = cmd_need_lab("nodes", a->file)) != 0)
		return rc;
	return inside_nodes(a->file, a->json, stdout);
}

/* cmd_fail_or_recover: fail or recover LAB SITE */
static int cmd_fail_or_recover(const char *cmd, const struct cmd_args *a)
{
	int rc;

	if ((rc = cmd_need_lab(cmd, a->file)) != 0)
		return rc;
	if (a->arg2 == NULL)
		return inside_which_node(cmd, a->file, 1);
	if (strcmp(cmd, "fail") == 0)
		return inside_fail(a->file, a->arg2);
	return inside_recover(a->file, a->arg2);
}

int cmd_fail(const struct cmd_args *a, const char *bindir)
{
	(void)bindir;
	return cmd_fail_or_recover("fail", a);
}

int cmd_recover(const struct cmd_args *a, const char *bindir)
{
	(void)bindir;
	return cmd_fail_or_recover("recover", a);
}

/* cmd_impair: impair LAB A B KEY=VALUE ... */
int cmd_impair(int n, char **args)
{
	int rc;

	if (n > 0 && (strcmp(args[0], "-h") == 0 || strcmp(args[0], "--help") == 0)) {
		cli_usage(stdout);
		return 0;
	}
	if ((rc = cmd_need_lab("impair", n > 0 ? args[0] : NULL)) != 0)
		return rc;
	if (n < 3) {
		fprintf(stderr,
			"steerlab: impair: expected LAB A B KEY=VALUE ... (the link as its "
			"two ends, then delay, jitter, loss, duplicate, reorder or rate)\n");
		return 2;
	}
	return inside_impair(args[0], args[1], args[2], n - 3, args + 3);
}

/* cmd_exec: exec LAB NODE [--] [CMD ...] */
int cmd_exec(int n, char **args)
{
	int rc;

	if (n > 0 && (strcmp(args[0], "-h") == 0 || strcmp(args[0], "--help") == 0)) {
		cli_usage(stdout);
		return 0;
	}
	if ((rc = cmd_need_lab("exec", n > 0 ? args[0] : NULL)) != 0)
		return rc;
	if (n < 2)
		return inside_which_node("exec", args[0], 0);
	if (n > 2 && strcmp(args[2], "--") == 0)
		return inside_exec(args[0], args[1], args + 3, n - 3);
	return inside_exec(args[0], args[1], args + 2, n - 2);
}
