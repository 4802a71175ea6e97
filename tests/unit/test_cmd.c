/*
 * The steerlab commands (lab/cli/cmd_lab.c, lab/cli/cmd_run.c, lab/cli/cli.c) called
 * as lab/cli/main.c calls them, with a struct cmd_args: what each refuses, what
 * it prints, and its exit status (README.md, "Exit status": 0 done, 1
 * failed or refused, 2 usage, 3 an invalid run). The labs they see are in a
 * /run of the test's own (tests/unit/test_labstate.h; root); without root,
 * a command that needs it says so, and that is what is checked. No lab is
 * ever brought up: the agents' directory given is empty, and every command
 * that would start one refuses first. Run from the repository root.
 */
#include <errno.h>
#include <ftw.h>
#include <jansson.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "lab/cli/cli.h"
#include "lab/run/run.h"
#include "lab/topology/topology_int.h"
#include "test_capture.h"
#include "test_file.h"
#include "test_labstate.h"
#include "test_rundir.h"

#define NEEDS_ROOT(cmd)                                                                            \
	"steerlab: " cmd " needs root (network namespaces): try sudo steerlab " cmd " ...\n"

static const char topology[] = "[lab]\nname = tcmd\n"
			       "[router core]\n"
			       "[site a]\nlink = core\nfail = yes\n"
			       "[site b]\nlink = core\n"
			       "[client c1]\nlink = core\n";

static char *tmp;
static char topo_path[256]; /* topology above */
static char bindir[256];    /* empty: nothing can be started */
static char rundir[256];
static struct capture cap;
static int root; /* /run is the test's own */
static char why[256];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static int setup(void **state)
{
	(void)state;
	tmp = rundir_new("test_cmd");
	assert_non_null(tmp);
	snprintf(bindir, sizeof(bindir), "%s/bin", tmp);
	snprintf(rundir, sizeof(rundir), "%s/run", tmp);
	snprintf(topo_path, sizeof(topo_path), "%s/tcmd.ini", tmp);
	assert_int_equal(mkdir(bindir, 0755), 0);
	assert_int_equal(mkdir(rundir, 0755), 0);
	test_write_file(tmp, "tcmd.ini", topology);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	capture_free(&cap);
	if (root) {
		/* only what the tests made: other labs may be up */
		nftw("/run/steerlab/tcmd", rm_entry, 16, FTW_DEPTH | FTW_PHYS);
		unlink("/run/netns/tcmd-a");
	}
	nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(tmp);
	return 0;
}

/* cmd: a command's exit status, its output in cap */
#define cmd(call)                                                                                  \
	({                                                                                         \
		int rc_;                                                                           \
		capture_free(&cap);                                                                \
		capture_start(&cap);                                                               \
		rc_ = (call);                                                                      \
		capture_end(&cap);                                                                 \
		rc_;                                                                               \
	})

/* sub: text with every "T" word standing for tmp (as "T/") */
static const char *sub(const char *text)
{
	static char buf[8192];
	size_t n = 0;

	for (const char *p = text; *p && n + strlen(tmp) + 2 < sizeof(buf); p++) {
		if (p[0] == 'T' && p[1] == '/' && (p == text || p[-1] == ' ' || p[-1] == '(')) {
			memcpy(buf + n, tmp, strlen(tmp));
			n += strlen(tmp);
		} else {
			buf[n++] = *p;
		}
	}
	buf[n] = '\0';
	return buf;
}

/* check: the topology printed back, its timeline, "configuration OK"; a
 * file that does not load: its errors, exit 1; no file: which? */
static void test_check(void **state)
{
	struct cmd_args a = {.file = NULL};

	(void)state;
	assert_int_equal(cmd(cmd_check(&a, bindir)), 1);
	assert_string_equal(cap.err,
			    "steerlab: check: which topology file? (e.g. topology/anycast.ini)\n");
	a.file = topo_path;
	assert_int_equal(cmd(cmd_check(&a, bindir)), 0);
	assert_string_equal(cap.err, "");
	assert_non_null(strstr(cap.out, "[lab]\nname = tcmd\n"));
	assert_non_null(strstr(cap.out, "[site a]\n"));
	assert_int_equal(strcmp(cap.out + strlen(cap.out) - strlen("# configuration OK\n"),
				"# configuration OK\n"),
			 0);
	/* an override that does not apply */
	char *sets[] = {"zz.rate=1"};
	a.nsets = 1;
	memcpy(a.sets, sets, sizeof(sets));
	assert_int_equal(cmd(cmd_check(&a, bindir)), 1);
	assert_string_equal(cap.err, "--set zz.rate=1: no node or event named 'zz'\n");
	assert_string_equal(cap.out, "");
}

/* check --frr DIR: the router's bgpd configuration written there */
static void test_check_frr(void **state)
{
	struct cmd_args a = {.file = NULL};
	char frr[300], path[400];

	(void)state;
	snprintf(frr, sizeof(frr), "%s/frr", tmp);
	a.file = topo_path;
	a.frr = frr;
	assert_int_equal(cmd(cmd_check(&a, bindir)), 0);
	snprintf(path, sizeof(path), "%s/core.bgpd.conf", frr);
	assert_int_equal(access(path, F_OK), 0);
	assert_non_null(strstr(cap.out, sub("# frr: T/frr/core.bgpd.conf (")));
	/* a file where the directory should be */
	snprintf(frr, sizeof(frr), "%s/tcmd.ini/frr", tmp);
	assert_int_equal(cmd(cmd_check(&a, bindir)), 1);
	assert_string_equal(cap.err, sub("steerlab: check: --frr T/tcmd.ini/frr: Not a "
					 "directory\n"));
}

/* check --json: the topology as checked, one JSON document on stdout with
 * "ok": true and the lab's nodes, nothing on stderr; a topology that does
 * not load: its error on stderr, nothing on stdout, exit 1 */
static void test_check_json(void **state)
{
	struct cmd_args a = {.file = NULL};
	json_error_t jerr;
	json_t *j;

	(void)state;
	a.file = topo_path;
	a.json = 1;
	assert_int_equal(cmd(cmd_check(&a, bindir)), 0);
	assert_string_equal(cap.err, "");
	j = json_loads(cap.out, 0, &jerr);
	assert_non_null(j);
	assert_true(json_is_true(json_object_get(j, "ok")));
	assert_non_null(strstr(cap.out, "\"tcmd\""));
	assert_non_null(strstr(cap.out, "\"core\""));
	json_decref(j);
	test_write_file(tmp, "bad.ini", "[lab]\nname = tcmd\n[site a]\nlink = nowhere\n");
	snprintf(topo_path, sizeof(topo_path), "%s/bad.ini", tmp);
	assert_int_equal(cmd(cmd_check(&a, bindir)), 1);
	assert_string_equal(cap.out, "");
	assert_non_null(strstr(cap.err, "bad.ini"));
	snprintf(topo_path, sizeof(topo_path), "%s/tcmd.ini", tmp);
}

/* up: which file?; needs root; what lab_up would refuse, refused first:
 * the agents missing, the lab up already, a namespace of its name, a run
 * directory refused */
static void test_up(void **state)
{
	struct cmd_args a = {.file = NULL};
	char want[4096];

	(void)state;
	assert_int_equal(cmd(cmd_up(&a, bindir)), 1);
	assert_string_equal(cap.err,
			    "steerlab: up: which topology file? (e.g. topology/anycast.ini)\n");
	a.file = topo_path;
	a.out = topo_path; /* a file */
	if (!root) {
		assert_int_equal(cmd(cmd_up(&a, bindir)), 1);
		assert_string_equal(cap.err, NEEDS_ROOT("up"));
		return;
	}
	assert_int_equal(cmd(cmd_up(&a, bindir)), 1);
	snprintf(want, sizeof(want),
		 "steerlab: up: agent program %s/routed (make builds it): No such file or "
		 "directory\n"
		 "steerlab: up: agent program %s/collector (make builds it): No such file or "
		 "directory\n"
		 "steerlab: up: agent program %s/sited (make builds it): No such file or "
		 "directory\n"
		 "steerlab: up: agent program %s/prober (make builds it): No such file or "
		 "directory\n"
		 "steerlab: up: agent program %s/client (make builds it): No such file or "
		 "directory\n"
		 "steerlab: up: %s exists and is not a directory: choose another --out\n",
		 bindir, bindir, bindir, bindir, bindir, topo_path);
	assert_string_equal(cap.err, want);
	assert_string_equal(cap.out, "");

	/* --no-agents: no program needed; the lab up already */
	a.no_agents = 1;
	mkdir("/run/steerlab/tcmd", 0700);
	assert_int_equal(cmd(cmd_up(&a, bindir)), 1);
	assert_string_equal(cap.err, sub("steerlab: up: lab 'tcmd' is already up "
					 "(/run/steerlab/tcmd): take it down first with: steerlab "
					 "down tcmd\n"
					 "steerlab: up: T/tcmd.ini exists and is not a directory: "
					 "choose another --out\n"));
	rmdir("/run/steerlab/tcmd");
	/* a namespace of its name (and, as above, --out a file: two reasons,
	 * so that no lab can come up here) */
	labstate_file("/run/netns", "tcmd-a", "", 0444);
	assert_int_equal(cmd(cmd_up(&a, bindir)), 1);
	assert_string_equal(cap.err, sub("steerlab: up: namespace tcmd-a already exists: remove it "
					 "or rename the lab (--set name=...)\n"
					 "steerlab: up: T/tcmd.ini exists and is not a directory: "
					 "choose another --out\n"));
}

/* down, status, nodes, fail, recover, exec: which lab?; a topology file
 * given for a lab's name: its lab named; not a name; no such lab */
static void test_lab_names(void **state)
{
	struct cmd_args a = {.file = NULL};
	char *none[] = {NULL}, *ex[] = {"tcmd-none", "a", "--", "ip", "route"};

	(void)state;
	assert_int_equal(cmd(cmd_down(&a, bindir)), 2);
	assert_string_equal(cap.err, "steerlab: down: which lab? (steerlab status lists them)\n");
	assert_int_equal(cmd(cmd_nodes(&a, bindir)), 2);
	assert_string_equal(cap.err, "steerlab: nodes: which lab? (steerlab status lists them)\n");
	assert_int_equal(cmd(cmd_fail(&a, bindir)), 2);
	assert_string_equal(cap.err, "steerlab: fail: which lab? (steerlab status lists them)\n");
	assert_int_equal(cmd(cmd_exec(0, none)), 2);
	assert_string_equal(cap.err, "steerlab: exec: which lab? (steerlab status lists them)\n");

	/* a topology file: its lab's name is what down takes */
	a.file = topo_path;
	assert_int_equal(cmd(cmd_down(&a, bindir)), 2);
	assert_string_equal(
	    cap.err, "steerlab: down takes the lab's name, not its file: steerlab down tcmd\n");
	assert_int_equal(cmd(cmd_status(&a, bindir)), 2);
	assert_string_equal(cap.err, "steerlab: status takes the lab's name, not its file: "
				     "steerlab status tcmd\n");

	/* not a name: the lab commands say so before they need root; down
	 * needs root first */
	a.file = "Bad_Name";
	assert_int_equal(cmd(cmd_recover(&a, bindir)), 2);
	assert_string_equal(cap.err, "steerlab: recover: 'Bad_Name' is not a lab name "
				     "(" TOPO_NAME_RULE ")\n");
	if (!root) {
		assert_int_equal(cmd(cmd_down(&a, bindir)), 1);
		assert_string_equal(cap.err, NEEDS_ROOT("down"));
		a.file = "tcmd-none";
		assert_int_equal(cmd(cmd_recover(&a, bindir)), 1);
		assert_string_equal(cap.err, NEEDS_ROOT("recover"));
		return;
	}
	assert_int_equal(cmd(cmd_down(&a, bindir)), 2);
	assert_string_equal(cap.err,
			    "steerlab: down: 'Bad_Name' is not a lab name (" TOPO_NAME_RULE ")\n");
	a.file = "tcmd-none";
	assert_int_equal(cmd(cmd_down(&a, bindir)), 1);
	assert_string_equal(cap.err, "steerlab: down: no lab named 'tcmd-none' is up (steerlab "
				     "status lists them)\n");
	assert_int_equal(cmd(cmd_nodes(&a, bindir)), 1);
	assert_string_equal(cap.err, "steerlab: nodes: no lab named 'tcmd-none' is up (steerlab "
				     "status lists them)\n");
	assert_int_equal(cmd(cmd_status(&a, bindir)), 1);
	assert_string_equal(cap.err, "steerlab: status: no lab named 'tcmd-none' is up\n");
	assert_int_equal(cmd(cmd_exec(5, ex)), 1);
	assert_string_equal(cap.err, "steerlab: exec: no lab named 'tcmd-none' is up (steerlab "
				     "status lists them)\n");
	/* no labs at all: status says so, and is done */
	a.file = NULL;
	assert_int_equal(cmd(cmd_status(&a, bindir)), 0);
	assert_string_equal(cap.out, "no labs\n");
	a.json = 1;
	assert_int_equal(cmd(cmd_status(&a, bindir)), 0);
	assert_string_equal(cap.out, "{\n  \"labs\": []\n}\n");
}

/* a lab up (its state; a's sited a live process): status, nodes, which
 * site, a refusal of fail and recover, exec's which node, and down: the
 * agent stopped, the namespaces removed, the state gone */
static void test_lab_up(void **state)
{
	static const char *const nss[] = {"core", "a", "b", "c1", NULL};
	struct cmd_args a = {.file = "tcmd"};
	char *ex1[] = {"tcmd"}, *ex2[] = {"tcmd", "zz", "--", "ip"}, *help[] = {"--help"};
	pid_t sited;
	json_t *doc;
	int status;

	(void)state;
	assert_int_equal(cmd(cmd_exec(1, help)), 0);
	/* the usage text of steerlab --help (lab/cli/cli.c) */
	assert_true(strncmp(cap.out, "usage: steerlab COMMAND [ARGS]\n", 31) == 0);
	if (!root) {
		print_message("%s\n", why);
		skip();
	}
	labstate_make("tcmd", topology, rundir, bindir, nss);
	/* up --traffic: its clients send until down */
	test_write_file(
	    rundir, "lab.events.jsonl",
	    "{\"event\":\"lab_up\"}\n{\"event\":\"traffic_started\",\"duration_ns\":0}\n");
	sited = labstate_spawn(bindir, "sited");
	labstate_agent("tcmd", sited, labstate_starttime(sited), "a", "sited");

	a.file = NULL;
	assert_int_equal(cmd(cmd_status(&a, bindir)), 0);
	assert_non_null(strstr(cap.out, sub("tcmd           4/4         1/1         T/run\n")));
	a.json = 1;
	assert_int_equal(cmd(cmd_status(&a, bindir)), 0);
	doc = json_loads(cap.out, 0, NULL);
	assert_non_null(doc);
	assert_string_equal(json_string_value(json_object_get(
				json_array_get(json_object_get(doc, "labs"), 0), "lab")),
			    "tcmd");
	json_decref(doc);
	a.json = 0;
	a.file = "tcmd";
	assert_int_equal(cmd(cmd_nodes(&a, bindir)), 0);
	assert_non_null(strstr(cap.out, sub("lab tcmd: 4 nodes, run directory T/run\n")));
	char alive[128];
	snprintf(alive, sizeof(alive), "  agent sited         pid %-8d alive\n", (int)sited);
	assert_non_null(strstr(cap.out, alive));

	assert_int_equal(cmd(cmd_fail(&a, bindir)), 2);
	assert_string_equal(cap.err,
			    "steerlab: fail: which site of lab tcmd? its sites: a, b (e.g. "
			    "steerlab fail tcmd a)\n");
	a.arg2 = "core";
	assert_int_equal(cmd(cmd_fail(&a, bindir)), 1);
	assert_string_equal(cap.err, "steerlab: fail: node core of lab tcmd is a router, not a "
				     "site (its sites: a, b)\n");
	a.arg2 = "a";
	assert_int_equal(cmd(cmd_recover(&a, bindir)), 1);
	char want[512];
	snprintf(want, sizeof(want),
		 "steerlab: recover: site a of lab tcmd has not failed: its sited (pid %d) is "
		 "running\n",
		 (int)sited);
	assert_string_equal(cap.err, want);
	assert_int_equal(cmd(cmd_exec(1, ex1)), 2);
	assert_string_equal(cap.err, "steerlab: exec: which node of lab tcmd? its nodes: core, a, "
				     "b, c1 (e.g. steerlab exec tcmd core -- ip route)\n");
	assert_int_equal(cmd(cmd_exec(4, ex2)), 1);
	assert_string_equal(cap.err, "steerlab: exec: lab tcmd has no node 'zz' (its nodes: core, "
				     "a, b, c1)\n");

	/* down */
	a.arg2 = NULL;
	assert_int_equal(cmd(cmd_down(&a, bindir)), 0);
	assert_string_equal(cap.out, "steerlab: tcmd down: 1 agent stopped, 4 namespaces "
				     "removed\n");
	status = labstate_reap(sited);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	assert_int_equal(access("/run/steerlab/tcmd", F_OK), -1);
	assert_int_equal(access("/run/netns/tcmd-a", F_OK), -1);
	/* the traffic's end, lab_stopping and lab_down appended */
	char path[512], *text;
	snprintf(path, sizeof(path), "%s/lab.events.jsonl", rundir);
	text = test_read_file(path);
	assert_non_null(strstr(text, "\"event\":\"traffic_stopped\",\"interrupted\":false}\n"));
	assert_non_null(strstr(text, "\"event\":\"lab_stopping\"}\n"));
	assert_non_null(strstr(text, "\"event\":\"lab_down\"}\n"));
	free(text);
}

/* run: --repeat's number; which file; needs root; run refuses what it
 * would refuse later (the agents missing) before it makes anything */
static void test_run(void **state)
{
	struct cmd_args a = {.file = NULL};
	char out[300];

	(void)state;
	a.repeat = "0";
	assert_int_equal(cmd(cmd_run(&a, bindir)), 2);
	assert_string_equal(cap.err, "steerlab: run: --repeat 0: expected a number of runs from 1 "
				     "to 64\n");
	a.repeat = "3";
	assert_int_equal(cmd(cmd_run(&a, bindir)), 2);
	assert_string_equal(cap.err,
			    "steerlab: run: which topology file? (e.g. topology/anycast.ini)\n");
	a.file = topo_path;
	char *sets[] = {"c1.rate=10,20"};
	memcpy(a.sets, sets, sizeof(sets));
	a.nsets = 1;
	assert_int_equal(cmd(cmd_run(&a, bindir)), 2);
	assert_string_equal(cap.err, "steerlab: run: --repeat runs one scenario, but --set "
				     "c1.rate=10,20 has several values: to vary a parameter, use "
				     "steerlab sweep\n");
	/* --check: every repetition loads; nothing run */
	a.nsets = 0;
	a.check = 1;
	char *seed[] = {"seed=5"};
	memcpy(a.sets, seed, sizeof(seed));
	a.nsets = 1;
	assert_int_equal(cmd(cmd_run(&a, NULL)), 0);
	assert_non_null(strstr(cap.out, "steerlab: run: the 3 points of seed load and check ("));
	assert_non_null(strstr(cap.out, "): nothing run (--check)\n"));
	/* the agents missing: refused before the root check (and --out a
	 * file: no repetition could run here) */
	a.check = 0;
	a.out = topo_path;
	assert_int_equal(cmd(cmd_run(&a, bindir)), 1);
	assert_non_null(strstr(cap.err, "steerlab: run: agent program "));

	/* one run; no site fails (and the agents are missing): refused twice */
	a.repeat = NULL;
	a.nsets = 0;
	a.file = "/nonexistent.ini";
	assert_int_equal(cmd(cmd_run(&a, bindir)), 1);
	assert_string_not_equal(cap.err, "");
	a.file = topo_path;
	char *nofail[] = {"a.fail=no"};
	memcpy(a.sets, nofail, sizeof(nofail));
	a.nsets = 1;
	snprintf(out, sizeof(out), "%s/one", rundir);
	a.out = out;
	if (!root) {
		assert_int_equal(cmd(cmd_run(&a, bindir)), 1);
		assert_string_equal(cap.err, NEEDS_ROOT("run"));
		return;
	}
	assert_int_equal(cmd(cmd_run(&a, bindir)), 1);
	/* no site fails: a steady-state run, refused only for its programs */
	assert_null(strstr(cap.err, "no event takes a site out"));
	assert_non_null(strstr(cap.err, "steerlab: run: agent program "));
	assert_int_equal(access(out, F_OK), -1);
	/* and a run directory refused, besides */
	a.out = topo_path;
	assert_int_equal(cmd(cmd_run(&a, bindir)), 1);
	assert_non_null(strstr(cap.err, sub("steerlab: run: T/tcmd.ini exists and is not a "
					    "directory: choose another --out\n")));
}

/* sweep: which file; which parameter; --check; the agents missing */
static void test_sweep(void **state)
{
	struct cmd_args a = {.file = NULL};
	char *sets[] = {"c1.rate=10,20"};

	(void)state;
	assert_int_equal(cmd(cmd_sweep(&a, bindir)), 2);
	assert_string_equal(cap.err,
			    "steerlab: sweep: which topology file? (e.g. topology/anycast.ini)\n");
	a.file = topo_path;
	assert_int_equal(cmd(cmd_sweep(&a, bindir)), 2);
	assert_string_equal(cap.err, "steerlab: sweep: which parameter? give one --set "
				     "KEY=V1,V2,... with comma-separated values (e.g. --set "
				     "ttl=30,60,300)\n");
	memcpy(a.sets, sets, sizeof(sets));
	a.nsets = 1;
	a.check = 1;
	assert_int_equal(cmd(cmd_sweep(&a, NULL)), 0);
	assert_string_equal(cap.out, "steerlab: sweep: the 2 points of c1.rate load and check (10, "
				     "20): nothing run (--check)\n");
	a.check = 0;
	a.out = topo_path; /* no point could run here */
	assert_int_equal(cmd(cmd_sweep(&a, bindir)), 1);
	char want[512];
	snprintf(want, sizeof(want),
		 "steerlab: sweep: agent program %s/routed (make builds it): No such file or "
		 "directory\n",
		 bindir);
	assert_int_equal(strncmp(cap.err, want, strlen(want)), 0);
}

/* report: which directory; --bucket and --slo checked; a recorded run
 * analysed (exit 0, or 3 if its verdict is invalid); a directory that is
 * no run: 1 */
static void test_report(void **state)
{
	struct cmd_args a = {.file = NULL};
	int rc;

	(void)state;
	assert_int_equal(cmd(cmd_report(&a, bindir)), 2);
	assert_string_equal(cap.err, "steerlab: report: which run directory?\n");
	a.file = rundir;
	a.bucket = "soon";
	assert_int_equal(cmd(cmd_report(&a, bindir)), 2);
	assert_string_equal(cap.err, "steerlab: report: --bucket: expected a duration such as "
				     "100ms or 1s, got 'soon'\n");
	a.bucket = "0s";
	assert_int_equal(cmd(cmd_report(&a, bindir)), 2);
	a.bucket = "100ms";
	a.slo = "100.5";
	assert_int_equal(cmd(cmd_report(&a, bindir)), 2);
	assert_string_equal(cap.err, "steerlab: report: --slo: expected a percentage between 0 and "
				     "100 such as 99.9, got '100.5'\n");
	a.slo = "99.9";
	assert_int_equal(cmd(cmd_report(&a, bindir)), 1); /* an empty directory */
	assert_int_equal(rundir_copy(rundir, "tests/unit/data/report/run"), 0);
	rc = cmd(cmd_report(&a, bindir));
	assert_true(rc == 0 || rc == 3);
	assert_non_null(strstr(cap.out, "anycast"));
	struct stat st;
	char path[400];
	snprintf(path, sizeof(path), "%s/clocks.json", rundir);
	assert_int_equal(stat(path, &st), 0);
}

/* SIGINT, SIGTERM, SIGHUP during a run set run_interrupted */
static void test_signals(void **state)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};

	(void)state;
	cli_catch_signals();
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		run_interrupted = 0;
		raise(sigs[i]);
		assert_int_equal(run_interrupted, 1);
		signal(sigs[i], SIG_DFL);
	}
	run_interrupted = 0;
}

static int group_setup(void **state)
{
	(void)state;
	root = labstate_private_run(why, sizeof(why)) == 0;
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_check, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_check_frr, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_check_json, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_up, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_lab_names, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_lab_up, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_run, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_sweep, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_report, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_signals, setup, teardown),
	};

	return cmocka_run_group_tests(tests, group_setup, NULL);
}
