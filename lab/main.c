/*
 * steerlab: build a network lab of namespaces from a topology file, run a
 * failover experiment in it, and measure the failover clocks on the packets.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clocks.h"
#include "event.h"
#include "frrconf.h"
#include "hint.h"
#include "inside.h"
#include "lab.h"
#include "log.h"
#include "overrides.h"
#include "repeat.h"
#include "report.h"
#include "run.h"
#include "strfmt.h"
#include "strtonum.h"
#include "sweep.h"
#include "strfmt.h"
#include "timeutil.h"
#include "topology.h"
#include "topology_int.h"

static const char usage_text[] =
	"usage: steerlab COMMAND [ARGS]\n"
	"\n"
	"commands:\n"
	"  check FILE [--set KEY=VALUE ...]   validate a topology and print it back (with\n"
	"        [--frr DIR]                  routing = bgp, FRR's configurations too,\n"
	"                                     checked by FRR's dry run); with --frr, write\n"
	"                                     each router's (and site's) bgpd configuration\n"
	"                                     into DIR, each dry-run by FRR\n"
	"  up FILE [--out DIR] [--set ...]    build the lab and start its agents, but no\n"
	"         [--traffic | --no-agents]    traffic (root); with --traffic, the clients\n"
	"                                     too, sending until down (the run directory\n"
	"                                     grows: up says how fast); with --no-agents,\n"
	"                                     the network only\n"
	"  down LAB                           stop a lab's agents, remove its namespaces (root)\n"
	"  status [LAB] [--json]              list the labs that are up and their dead\n"
	"                                     agents (root)\n"
	"  nodes LAB [--json]                 each node of a lab that is up: kind,\n"
	"                                     namespace, addresses, links, agents (root)\n"
	"  exec LAB NODE [-- CMD ...]         run CMD (default: a shell) in NODE's\n"
	"                                     namespace; exits with CMD's status (root)\n"
	"  fail LAB SITE                      kill SITE's sited as a run's failure does,\n"
	"                                     recorded in lab.events.jsonl (root)\n"
	"  recover LAB SITE                   start SITE's sited again (root)\n"
	"  run FILE [--out DIR] [--set ...]   up, warm-up, failure, observation, down and\n"
	"                                     analysis; results in DIR (default\n"
	"                                     runs/LAB-YYYYmmdd-HHMMSS) (root)\n"
	"  run FILE --repeat N [--set ...]    the same run N times, into DIR/rep-1 ..\n"
	"        [--out DIR]                  rep-N, each with its own seed, then each\n"
	"                                     clock's n, min, median, p95 and max\n"
	"                                     (DIR/stats.csv, repeat.csv, spread.png);\n"
	"                                     rerun with the same --out to resume (root)\n"
	"  sweep FILE --set KEY=V1,V2,...     one run per value of KEY, then a table\n"
	"        [--set ...] [--out DIR]      (DIR/sweep.csv, sweep.md, sweep.png); rerun\n"
	"                                     with the same --out to resume (root)\n"
	"  report RUN_DIR [--bucket D]        rebuild a finished run's clocks.json, decay.csv,\n"
	"         [--slo PCT]                  upstream.csv, plots and report.md from its\n"
	"                                     captures and events (decay bucket, e.g. 100ms;\n"
	"                                     SLO of the error budget, default 99.9)\n"
	"\n"
	"--set KEY=VALUE sets a [lab] key; --set NODE.KEY=VALUE a node's key; --set ttl=V\n"
	"the TTL of every [name] section. In a sweep, the one --set with commas is swept:\n"
	"  sudo steerlab sweep topology/compare.ini --set ttl=2,5,10 --set probe_interval=250ms\n"
	"[lab] fail_jitter = D moves the failure to an instant in [fail_at, fail_at + D)\n"
	"drawn from seed (random unless --set seed=N; recorded in clocks.json):\n"
	"  sudo steerlab run topology/compare.ini --repeat 5 --set fail_jitter=100ms\n"
	"options: -q/--quiet (run, sweep: no progress line), -v (debug logging), -h/--help\n"
	"environment: STEERLAB_SET=\"KEY=VALUE ...\" more --set, after the command line's\n"
	"(e.g. duration=3s fail_at=1s); STEERLAB_RUNS=DIR instead of runs/ for the default\n"
	"run directories\n"
	"\n"
	"exit status: 0 done (for run and report: a valid run); 1 error (nothing\n"
	"measured, or the lab not taken down completely); 2 usage; 3 (run, report,\n"
	"sweep) a run, a sweep's point or a repetition was measured but cannot be\n"
	"trusted: an agent ended during it, a self-check failed, or it was interrupted\n"
	"(clocks.json says \"valid\": false and why); 4 (report) the tables and the\n"
	"verdict were printed but a file could not be written in the run directory (the\n"
	"error names it).\n"
	"See README.md and docs/ for the topology format and the clocks.\n";

/* std_fds_open: 0, 1 and 2 open (on /dev/null if they were closed), so
 * that nothing steerlab opens (a state file, an agent's start-up pipe)
 * takes the place of a standard stream. */
static void std_fds_open(void)
{
	int fd;

	while ((fd = open("/dev/null", O_RDWR | O_NOCTTY)) >= 0 && fd <= 2)
		;
	if (fd > 2)
		close(fd);
}

static void usage(FILE *fp)
{
	fputs(usage_text, fp);
}

static void on_signal(int sig)
{
	(void)sig;
	run_interrupted = 1;
}

static int need_root(const char *cmd)
{
	if (geteuid() == 0)
		return 0;
	fprintf(stderr, "steerlab: %s needs root (network namespaces): try sudo steerlab %s ...\n",
		cmd, cmd);
	return -1;
}

struct cmd_args {
	const char *file;
	const char *arg2; /* fail, recover: the site */
	const char *out;
	char *sets[TOPO_MAX_SETS];
	int nsets;
	int nenv;	/* the last nenv of sets are STEERLAB_SET's */
	char env[1024]; /* STEERLAB_SET's items */
	int quiet;
	int no_agents;
	int traffic; /* up: start the clients */
	int json; /* nodes, status */
	const char *bucket, *slo; /* report's options */
	const char *frr;	  /* check: where to write FRR's configuration */
	const char *repeat;	  /* run: --repeat N */
};

/* bad_option: the option getopt_long refused just now (optopt: its letter,
 * or 0 for a long option it does not know), with the fix when hint.c knows
 * one */
static void bad_option(int argc, char **argv, int opt)
{
	const char *arg = argv[optind - 1];
	char hint[512];

	if (opt == 0 && hint_option(arg, optind < argc ? argv[optind] : NULL, hint,
				    sizeof(hint)) == 0)
		fprintf(stderr, "steerlab: %s\n", hint);
	else if (opt == 0)
		fprintf(stderr, "steerlab: unknown option '%s' (steerlab --help lists them)\n",
			arg);
	else if (strncmp(arg, "--", 2) == 0)
		fprintf(stderr, "steerlab: option '%s' takes no value (steerlab --help)\n", arg);
	else
		fprintf(stderr, "steerlab: unknown option '-%c' (steerlab --help lists them)\n",
			opt);
}

static int parse_args(int argc, char **argv, struct cmd_args *a)
{
	static const struct option opts[] = {
		{"out", required_argument, NULL, 'o'},
		{"set", required_argument, NULL, 's'},
		{"quiet", no_argument, NULL, 'q'},
		{"no-agents", no_argument, NULL, 'N'},
		{"traffic", no_argument, NULL, 'T'},
		{"bucket", required_argument, NULL, 'B'},
		{"slo", required_argument, NULL, 'S'},
		{"json", no_argument, NULL, 'J'},
		{"frr", required_argument, NULL, 'F'},
		{"repeat", required_argument, NULL, 'R'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;

	memset(a, 0, sizeof(*a));
	optind = 1;
	opterr = 0; /* the errors are steerlab's own, with a hint when there is one */
	while ((c = getopt_long(argc, argv, ":o:s:qvh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			a->out = optarg;
			break;
		case 's':
			if (a->nsets == TOPO_MAX_SETS) {
				fprintf(stderr, "steerlab: at most %d --set options\n",
					TOPO_MAX_SETS);
				return -1;
			}
			a->sets[a->nsets++] = optarg;
			break;
		case 'q':
			a->quiet = 1;
			break;
		case 'N':
			a->no_agents = 1;
			break;
		case 'T':
			a->traffic = 1;
			break;
		case 'J':
			a->json = 1;
			break;
		case 'B':
			a->bucket = optarg;
			break;
		case 'S':
			a->slo = optarg;
			break;
		case 'F':
			a->frr = optarg;
			break;
		case 'R':
			a->repeat = optarg;
			break;
		case 'v':
			log_init("steerlab", 1);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case ':':
			fprintf(stderr, "steerlab: option '%s' needs a value (steerlab --help)\n",
				argv[optind - 1]);
			return -1;
		default:
			bad_option(argc, argv, optopt);
			return -1;
		}
	}
	if (optind < argc)
		a->file = argv[optind++];
	if (optind < argc)
		a->arg2 = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "steerlab: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	return 0;
}

static struct topology topo;

/* env_sets: STEERLAB_SET's overrides after the command line's (they win);
 * when the topology loads with the command line's alone, a refusal of
 * theirs is told under the variable's name, not as if it were a --set */
static int env_sets(struct cmd_args *a)
{
	static struct topology scratch;

	if (overrides_env(getenv(OVERRIDES_ENV), a->env, sizeof(a->env), a->sets, &a->nsets,
			  TOPO_MAX_SETS, &a->nenv, stderr) == -1)
		return -1;
	if (a->file == NULL)
		return 0;
	return overrides_env_check(&scratch, a->file, a->sets, a->nsets, a->nenv, stderr);
}

static int need_file(const struct cmd_args *a, const char *cmd)
{
	if (a->file)
		return 0;
	fprintf(stderr, "steerlab: %s: which topology file? (e.g. topology/anycast.ini)\n", cmd);
	return -1;
}

static int load(const struct cmd_args *a, const char *cmd)
{
	if (need_file(a, cmd) == -1)
		return -1;
	/* the parsers of the DNS sections, then FRR's dry run */
	return frrconf_load(&topo, a->file, a->sets, a->nsets, stderr);
}

/* check_frr: every router's bgpd configuration into dir (and every
 * site's, with routing = bgp), each dry-run by FRR when it is installed.
 * With routing = static a router's has its [link]s only: a preview. 0, or
 * -1 (said). */
static int check_frr(const char *dir)
{
	char file[TOPO_NAME_MAX + 16], path[PATH_MAX];
	int have = access(FRR_BGPD, X_OK) == 0 && access(FRR_VTYSH, X_OK) == 0, rc = 0;
	FILE *fp;

	if (mkdir(dir, 0755) == -1 && errno != EEXIST) {
		fprintf(stderr, "steerlab: check: --frr %s: %s\n", dir, strerror(errno));
		return -1;
	}
	for (int n = 0; n < topo.nnodes; n++) {
		if (topo.nodes[n].kind != TOPO_ROUTER && !frrconf_node(&topo, n))
			continue;
		strfmt(file, sizeof(file), "%s.bgpd.conf", topo.nodes[n].name);
		if (strfmt(path, sizeof(path), "%s/%s", dir, file) == -1 ||
		    (fp = lab_fopen_write(dir, file)) == NULL)
			return -1;
		if ((frrconf_write(&topo, n, FRRCONF_BGPD, fp, NULL) == -1) | (fclose(fp) == EOF)) {
			fprintf(stderr, "steerlab: check: %s: %s\n", path, strerror(errno));
			return -1;
		}
		if (!have)
			printf("# frr: %s (not checked: no %s; sudo make deps)\n", path, FRR_BGPD);
		else if (frrconf_check_node(&topo, n, stderr) == -1)
			rc = -1;
		else
			printf("# frr: %s (FRR's dry run: OK)\n", path);
	}
	return rc;
}

static int cmd_check(const struct cmd_args *a)
{
	if (load(a, "check") == -1)
		return 1;
	topo_print(&topo, stdout);
	frrconf_print(&topo, stdout);
	if (a->frr && check_frr(a->frr) == -1)
		return 1;
	printf("# configuration OK\n");
	return 0;
}

/* dir_bytes: the size of the files under a directory, summed by nftw */
static long long dir_total;

static int dir_add(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	if (type == FTW_F)
		dir_total += st->st_size;
	return 0;
}

static long long dir_bytes(const char *path)
{
	dir_total = 0;
	if (nftw(path, dir_add, 16, FTW_PHYS) == -1)
		return -1;
	return dir_total;
}

/* up_traffic: start the clients, then measure over 1 s how fast the run
 * directory grows (their captures and logs), watching the agents. Returns
 * the number of client nodes sending, or -1. */
static int up_traffic(struct lab *lab, const char *rundir, double *mb_min)
{
	const struct topology *t = lab->t;
	int64_t t0, t1, deadline;
	long long s0, s1;
	int n, clients = 0;

	for (n = 0; n < t->nnodes; n++)
		clients += t->nodes[n].kind == TOPO_CLIENT;
	if (lab_start_clients(lab, 0) == -1)
		return -1;
	/* until down (duration 0), which writes traffic_stopped: a lab failed
	 * by hand can then be analysed (docs/inside.md) */
	event_emit(lab->ev, "traffic_started", "{s:i}", "duration_ns", 0);
	s0 = dir_bytes(rundir);
	t0 = now_mono_ns();
	deadline = t0 + 1000000000LL;
	while ((t1 = now_mono_ns()) < deadline && !lab->unexpected)
		lab_watch(lab, deadline - t1);
	lab_watch(lab, 0);
	if (lab->unexpected)
		return -1;
	s1 = dir_bytes(rundir);
	*mb_min = s0 < 0 || s1 < s0 || t1 <= t0 ? 0 : (double)(s1 - s0) / 1e6 * 60e9 / (double)(t1 - t0);
	return clients;
}

static int cmd_up(const struct cmd_args *a, const char *bindir)
{
	static struct lab lab;
	char rundir[PATH_MAX], path[PATH_MAX];
	FILE *fp;
	double mb_min = 0;
	int clients = -1;

	if (load(a, "up") == -1 || need_root("up") == -1)
		return 1;
	if (a->out)
		snprintf(rundir, sizeof(rundir), "%s", a->out);
	else
		run_default_dir(rundir, sizeof(rundir), topo.name);
	if (lab_init(&lab, &topo, rundir, bindir) == -1)
		return 1;
	lab.no_agents = a->no_agents;
	if (lab_up(&lab) == -1)
		goto fail;
	/* the topology as used, for report (a run writes it too) */
	strfmt(path, sizeof(path), "%s/topology.ini", rundir);
	if (access(path, F_OK) == -1 && (fp = lab_fopen_new(rundir, "topology.ini")) != NULL) {
		topo_print(&topo, fp);
		fclose(fp);
	}
	/* watched while this process lives: up to ready, and the clients' start
	 * when asked (they send until the lab is taken down) */
	if (!a->no_agents) {
		if (run_wait_ready(&lab) == -1 && lab.unexpected)
			goto down;
		lab.phase = LAB_UP;
		if (a->traffic && (clients = up_traffic(&lab, rundir, &mb_min)) == -1)
			goto down;
		lab_watch(&lab, 0);
		if (lab.unexpected)
			goto down;
	}
	printf("steerlab: lab %s is up: %d namespaces, %d links, %d agents\n", topo.name,
	       topo.nnodes, topo.nlinks, lab.nagents);
	printf("  run directory: %s (events, logs, captures)\n", rundir);
	if (clients >= 0)
		printf("  traffic: %d client%s sending; the run directory grows about %.1f "
		       "MB/min\n",
		       clients, clients == 1 ? "" : "s", mb_min);
	else if (!a->no_agents)
		printf("  clients not started: add --traffic to send requests\n");
	printf("  its nodes:     sudo steerlab nodes %s\n", topo.name);
	printf("  look inside:   sudo steerlab exec %s %s -- ip route\n", topo.name,
	       topo.nodes[0].name);
	for (int n = 0; topo.routing == TOPO_ROUTING_BGP && !a->no_agents && n < topo.nnodes; n++) {
		if (topo.nodes[n].kind != TOPO_ROUTER)
			continue;
		/* FRR's own shell on a router's daemons (docs/topology.md) */
		printf("                 sudo ip netns exec %s-%s vtysh --vty_socket %s/%s/frr/%s "
		       "-c 'show bgp summary'\n",
		       topo.name, topo.nodes[n].name, LAB_STATE_DIR, topo.name, topo.nodes[n].name);
		break;
	}
	printf("  take it down:  sudo steerlab down %s\n", topo.name);
	event_close(lab.ev);
	return 0;

down:
	fprintf(stderr, "steerlab: lab %s: an agent could not start or ended (above): taking "
			"the lab down; its logs stay in %s\n",
		topo.name, rundir);
	lab_down(&lab);
fail:
	event_close(lab.ev);
	return 1;
}

/* lab_file_hint: cmd (down, nodes, ...) was given a topology file: name
 * its lab */
static void lab_file_hint(const char *cmd, const char *file)
{
	FILE *null = fopen("/dev/null", "w");
	char hint[512];
	int ok = null && topo_load(&topo, file, NULL, 0, null) == 0;

	if (null)
		fclose(null);
	if (hint_lab_file(cmd, file, ok ? topo.name : NULL, hint, sizeof(hint)) == 0)
		fprintf(stderr, "steerlab: %s\n", hint);
}

/* dir_hint: -1 (and the hint) when the topology given is a directory */
static int ini_name(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return d->d_name[0] != '.' && n > 4 && strcmp(d->d_name + n - 4, ".ini") == 0;
}

static int dir_hint(const char *file)
{
	struct dirent **ents = NULL;
	char *names[64];
	char hint[4096];
	struct stat st;
	int n, i;

	if (file == NULL || stat(file, &st) == -1 || !S_ISDIR(st.st_mode))
		return 0;
	n = scandir(file, &ents, ini_name, alphasort);
	for (i = 0; i < n && i < (int)(sizeof(names) / sizeof(names[0])); i++)
		names[i] = ents[i]->d_name;
	if (hint_directory(file, names, i, hint, sizeof(hint)) == 0)
		fprintf(stderr, "steerlab: %s\n", hint);
	else
		fprintf(stderr, "steerlab: %s: is a directory; expected a topology file\n", file);
	for (i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	return -1;
}

static int cmd_down(const char *name)
{
	char statedir[PATH_MAX];

	if (name == NULL) {
		fprintf(stderr, "steerlab: down: which lab? (steerlab status lists them)\n");
		return 2;
	}
	if (strchr(name, '/') || (strlen(name) > 4 && strcmp(name + strlen(name) - 4, ".ini") == 0) ||
	    (topo_check_name(name) == -1 && access(name, F_OK) == 0)) {
		lab_file_hint("down", name);
		return 2;
	}
	if (need_root("down") == -1)
		return 1;
	if (topo_check_name(name) == -1) {
		fprintf(stderr, "steerlab: down: '%s' is not a lab name (%s)\n", name,
			TOPO_NAME_RULE);
		return 2;
	}
	if (lab_statedir(statedir, sizeof(statedir), name) == -1 ||
	    access(statedir, F_OK) == -1) {
		fprintf(stderr, "steerlab: down: no lab named '%s' is up (steerlab status lists "
				"them)\n",
			name);
		return 1;
	}
	if (lab_state_check(LAB_STATE_DIR) == -1)
		return 1;
	return inside_down(statedir, stdout) == 0 ? 0 : 1;
}

/* need_lab: cmd was given a lab name that is one (a file is answered with
 * its lab's name); 0, or the exit status */
static int need_lab(const char *cmd, const char *name)
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
	return need_root(cmd) == -1 ? 1 : 0;
}

static int cmd_status(const struct cmd_args *a)
{
	int rc;

	if (a->file && (rc = need_lab("status", a->file)) != 0)
		return rc;
	return lab_status(stdout, a->json, a->file) == 0 ? 0 : 1;
}

static int cmd_nodes(const struct cmd_args *a)
{
	int rc;

	if ((rc = need_lab("nodes", a->file)) != 0)
		return rc;
	return inside_nodes(a->file, a->json, stdout);
}

/* cmd_fail: fail or recover LAB SITE */
static int cmd_fail(const char *cmd, const struct cmd_args *a)
{
	int rc;

	if ((rc = need_lab(cmd, a->file)) != 0)
		return rc;
	if (a->arg2 == NULL)
		return inside_which_node(cmd, a->file, 1);
	if (strcmp(cmd, "fail") == 0)
		return inside_fail(a->file, a->arg2);
	return inside_recover(a->file, a->arg2);
}

/* cmd_exec: exec LAB NODE [--] [CMD ...]; args are those after "exec" */
static int cmd_exec(int n, char **args)
{
	int rc;

	if (n > 0 && (strcmp(args[0], "-h") == 0 || strcmp(args[0], "--help") == 0)) {
		usage(stdout);
		return 0;
	}
	if ((rc = need_lab("exec", n > 0 ? args[0] : NULL)) != 0)
		return rc;
	if (n < 2)
		return inside_which_node("exec", args[0], 0);
	if (n > 2 && strcmp(args[2], "--") == 0)
		return inside_exec(args[0], args[1], args + 3, n - 3);
	return inside_exec(args[0], args[1], args + 2, n - 2);
}

/* cmd_repeat: run --repeat N, on the sweep's machinery (lab/repeat.h) */
static int cmd_repeat(const struct cmd_args *a, const char *bindir)
{
	static struct sweep sw;
	struct sweep_opts o = {.out = a->out, .bindir = bindir, .quiet = a->quiet};
	struct sigaction sa = {.sa_handler = on_signal};
	char lab[TOPO_NAME_MAX + 1];
	const char *errstr;
	int n;

	n = (int)strtonum(a->repeat, 1, REPEAT_MAX, &errstr);
	if (errstr != NULL) {
		fprintf(stderr,
			"steerlab: run: --repeat %s: expected a number of runs from 1 to %d\n",
			a->repeat, REPEAT_MAX);
		return 2;
	}
	if (need_file(a, "run") == -1 ||
	    repeat_parse(&sw, a->file, n, a->sets, a->nsets, stderr) == -1)
		return 2;
	if (sweep_check(&sw, lab) == -1 || need_root("run") == -1)
		return 1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	switch (sweep_run(&sw, lab, &o)) {
	case 0:
		return 0;
	case SWEEP_INVALID:
		return 3; /* an invalid run (docs/clocks.md, "Verdict") */
	default:
		return 1;
	}
}

static int cmd_run(const struct cmd_args *a, const char *bindir)
{
	struct run_opts o = {.rundir = a->out, .bindir = bindir, .quiet = a->quiet};
	struct sigaction sa = {.sa_handler = on_signal};

	if (load(a, "run") == -1 || need_root("run") == -1)
		return 1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	switch (run_scenario(&topo, &o)) {
	case 0:
		return 0;
	case RUN_INVALID:
		return 3;
	default:
		return 1;
	}
}

static int cmd_sweep(const struct cmd_args *a, const char *bindir)
{
	static struct sweep sw;
	struct sweep_opts o = {.out = a->out, .bindir = bindir, .quiet = a->quiet};
	struct sigaction sa = {.sa_handler = on_signal};
	char lab[TOPO_NAME_MAX + 1];

	if (need_file(a, "sweep") == -1 ||
	    sweep_parse(&sw, a->file, a->sets, a->nsets, stderr) == -1)
		return 2;
	if (sweep_check(&sw, lab) == -1 || need_root("sweep") == -1)
		return 1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	switch (sweep_run(&sw, lab, &o)) {
	case 0:
		return 0;
	case SWEEP_INVALID:
		return 3; /* an invalid point (docs/clocks.md, "Verdict") */
	default:
		return 1;
	}
}

static int cmd_report(const struct cmd_args *a)
{
	struct report_opts o = {0};
	int rc;

	if (a->file == NULL) {
		fprintf(stderr, "steerlab: report: which run directory?\n");
		return 2;
	}
	if (a->bucket && (parse_duration_ns(a->bucket, &o.bucket_ns) == -1 || o.bucket_ns <= 0)) {
		fprintf(stderr, "steerlab: report: --bucket: expected a duration such as 100ms or "
				"1s, got '%s'\n",
			a->bucket);
		return 2;
	}
	if (a->slo && report_parse_slo(a->slo, &o.slo_pct) == -1) {
		fprintf(stderr, "steerlab: report: --slo: expected a percentage between 0 and 100 "
				"such as 99.9, got '%s'\n",
			a->slo);
		return 2;
	}
	rc = report_run(a->file, &o, stdout);
	/* what root wrote in the user's run directory stays the user's */
	run_chown(a->file);
	if (rc == -1)
		return 1;
	if (rc & REPORT_UNSAVED)
		return 4; /* printed, not saved: the error names the file */
	return rc == REPORT_INVALID ? 3 : 0; /* docs/clocks.md, "Verdict" */
}

int main(int argc, char **argv)
{
	char bindir[PATH_MAX];
	struct cmd_args a;
	const char *cmd;

	log_init("steerlab", 0);
	/* what steerlab writes (state, run directories, captures) is never
	 * writable by others, whatever umask sudo passed on */
	umask(022);
	std_fds_open();
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	cmd = argv[1];
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (cmd[0] == '-') {
		char hint[1024];

		if (hint_options_first(argc - 1, argv + 1, hint, sizeof(hint)) == 0)
			fprintf(stderr, "steerlab: %s\n", hint);
		else
			fprintf(stderr, "steerlab: options go after the command (steerlab "
					"--help)\n");
		return 2;
	}
	if (strcmp(cmd, "exec") == 0)
		return cmd_exec(argc - 2, argv + 2);
	if (parse_args(argc - 1, argv + 1, &a) == -1)
		return 2;
	if (a.arg2 && strcmp(cmd, "fail") != 0 && strcmp(cmd, "recover") != 0) {
		fprintf(stderr, "steerlab: unexpected argument '%s'\n", a.arg2);
		return 2;
	}
	if (a.json && strcmp(cmd, "nodes") != 0 && strcmp(cmd, "status") != 0) {
		fprintf(stderr, "steerlab: --json is an option of nodes and status\n");
		return 2;
	}
	if ((strcmp(cmd, "check") == 0 || strcmp(cmd, "up") == 0 || strcmp(cmd, "run") == 0 ||
	     strcmp(cmd, "sweep") == 0) &&
	    dir_hint(a.file) == -1)
		return 2;
	if ((strcmp(cmd, "check") == 0 || strcmp(cmd, "up") == 0 || strcmp(cmd, "run") == 0 ||
	     strcmp(cmd, "sweep") == 0) &&
	    env_sets(&a) == -1)
		return 1;
	if (a.traffic && strcmp(cmd, "up") != 0) {
		fprintf(stderr, "steerlab: --traffic is an option of up\n");
		return 2;
	}
	if (a.traffic && a.no_agents) {
		fprintf(stderr, "steerlab: up: --traffic needs the agents: not with --no-agents\n");
		return 2;
	}
	if (a.frr && strcmp(cmd, "check") != 0) {
		fprintf(stderr, "steerlab: --frr is an option of check\n");
		return 2;
	}
	if (a.repeat && strcmp(cmd, "run") != 0) {
		fprintf(stderr, "steerlab: --repeat is an option of run\n");
		return 2;
	}
	if ((a.bucket || a.slo) && strcmp(cmd, "report") != 0) {
		fprintf(stderr, "steerlab: --bucket and --slo are options of report\n");
		return 2;
	}
	lab_agent_dir(bindir, sizeof(bindir));
	log_debug("agents: %s", bindir);
	if (strcmp(cmd, "check") == 0)
		return cmd_check(&a);
	if (strcmp(cmd, "up") == 0)
		return cmd_up(&a, bindir);
	if (strcmp(cmd, "down") == 0)
		return cmd_down(a.file);
	if (strcmp(cmd, "status") == 0)
		return cmd_status(&a);
	if (strcmp(cmd, "nodes") == 0)
		return cmd_nodes(&a);
	if (strcmp(cmd, "fail") == 0 || strcmp(cmd, "recover") == 0)
		return cmd_fail(cmd, &a);
	if (strcmp(cmd, "run") == 0)
		return a.repeat ? cmd_repeat(&a, bindir) : cmd_run(&a, bindir);
	if (strcmp(cmd, "sweep") == 0)
		return cmd_sweep(&a, bindir);
	if (strcmp(cmd, "report") == 0)
		return cmd_report(&a);
	fprintf(stderr, "steerlab: unknown command '%s'\n", cmd);
	usage(stderr);
	return 2;
}
