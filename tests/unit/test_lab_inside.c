/*
 * Inside a running lab (lab/cli/inside.c), from a process other than the one
 * that brought it up: what `down` appends to an `up` lab's
 * lab.events.jsonl (the traffic's end, lab_stopping, lab_down) so that
 * `steerlab report` can analyse a lab failed by hand; `fail` and `recover`
 * on a lab's state (tests/unit/test_labstate.h): sited killed through its
 * pidfd and site_failed by hand, sited started again (a fake of the lab's
 * side, lab/run/run.h) and site_recovered once it says sited_ready; and
 * each command's refusals and exit status. Run from the repository root.
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

#include "event.h"
#include "lab/run/run.h"
#include "lab/cli/inside.h"
#include "lab/build/lab.h"
#include "lab/topology/topology_int.h"
#include "test_capture.h"
#include "test_file.h"
#include "test_labstate.h"
#include "test_rundir.h"

/* a lab "tlin": a and b sites, b up without agents (no sited line) */
static const char topology[] = "[lab]\nname = tlin\n"
			       "[router core]\n"
			       "[site a]\nlink = core\nfail = yes\n"
			       "[site b]\nlink = core\n"
			       "[client c1]\nlink = core\n";

static char *tmp;	   /* the test's: rundir and bin/ under it */
static char rundir[256];   /* the lab's run directory */
static char statedir[256]; /* for inside_down: tmp/state/tlin */
static char bindir[256];   /* the agents' programs (fake) */
static struct capture cap;
static int private_run = -1; /* 0: /run is the test's own */
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
	tmp = rundir_new("test_lab_inside");
	assert_non_null(tmp);
	snprintf(rundir, sizeof(rundir), "%s/run", tmp);
	snprintf(bindir, sizeof(bindir), "%s/bin", tmp);
	snprintf(statedir, sizeof(statedir), "%s/state/tlin", tmp);
	assert_int_equal(mkdir(rundir, 0755), 0);
	assert_int_equal(mkdir(bindir, 0755), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	capture_free(&cap);
	action_set_ops(NULL);
	nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(tmp);
	return 0;
}

/* the lab's events so far: each line's "event", comma-separated, with
 * "interrupted" and "by" of traffic_stopped in brackets */
static const char *events(void)
{
	static char buf[2048];
	char path[512], line[4096];
	size_t n = 0;
	FILE *fp;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/lab.events.jsonl", rundir);
	if ((fp = fopen(path, "r")) == NULL)
		return "(none)";
	while (fgets(line, sizeof(line), fp)) {
		json_t *o = json_loads(line, 0, NULL);
		const char *ev = json_string_value(json_object_get(o, "event"));

		n +=
		    (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", n ? "," : "", ev ? ev : "?");
		if (ev && strcmp(ev, "traffic_stopped") == 0) {
			const char *by = json_string_value(json_object_get(o, "by"));
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "[%s%s%s]",
					      json_is_true(json_object_get(o, "interrupted"))
						  ? "interrupted"
						  : "finished",
					      by ? " by " : "", by ? by : "");
		}
		json_decref(o);
	}
	fclose(fp);
	return buf;
}

/* a state directory for inside_down (tmp/state/tlin, mode) whose rundir
 * line says where its lab.events.jsonl is */
static void down_state(mode_t mode, const char *rundir_line)
{
	char dir[300];

	snprintf(dir, sizeof(dir), "%s/state", tmp);
	mkdir(dir, 0755);
	assert_int_equal(mkdir(statedir, 0700), 0);
	assert_int_equal(chmod(statedir, mode), 0);
	test_write_file(statedir, "rundir", rundir_line);
	test_write_file(statedir, "topology.ini", topology);
}

static int down(void)
{
	int rc;

	capture_free(&cap);
	capture_start(&cap);
	rc = inside_down(statedir, stdout);
	capture_end(&cap);
	return rc;
}

static void lab_events(const char *text)
{
	test_write_file(rundir, "lab.events.jsonl", text);
}

/* `down` of an `up --traffic` lab: the traffic (sent until down) ends
 * there, not interrupted; then lab_stopping and, once down, lab_down; the
 * state directory removed (root's: as root only) */
static void test_down_up_traffic(void **state)
{
	char line[300];

	(void)state;
	if (geteuid() != 0) {
		print_message("test_down_up_traffic: needs root (a state directory of "
			      "root's)\n");
		skip();
	}
	snprintf(line, sizeof(line), "%s\n", rundir);
	down_state(0700, line);
	lab_events("{\"event\":\"lab_up\"}\n{\"event\":\"traffic_started\",\"duration_ns\":0}\n");
	assert_int_equal(down(), 0);
	assert_string_equal(cap.out, "steerlab: tlin down: 0 agents stopped, 0 namespaces "
				     "removed\n");
	assert_string_equal(cap.err, "");
	assert_string_equal(
	    events(), "lab_up,traffic_started,traffic_stopped[finished],lab_stopping,lab_down");
	assert_int_equal(access(statedir, F_OK), -1);
}

/* a run's traffic that never said traffic_stopped (its steerlab was
 * killed): marked interrupted, by down, and said; a traffic that stopped:
 * nothing more; a state directory refused: no lab_down */
static void test_down_refused_state(void **state)
{
	char line[300], want[1024];

	(void)state;
	snprintf(line, sizeof(line), "%s\n", rundir);
	down_state(0777, line);
	lab_events("{\"event\":\"lab_up\"}\n"
		   "{\"event\":\"traffic_started\",\"duration_ns\":10000000000}\n");
	assert_int_equal(down(), -1);
	snprintf(want, sizeof(want),
		 "steerlab: the run in %s never finished (its steerlab run was killed?): marked "
		 "interrupted\n",
		 rundir);
	assert_string_equal(cap.out, want);
	snprintf(want, sizeof(want),
		 "steerlab: %s: refused: expected a directory owned by root and writable only by "
		 "it, got a directory owned by uid %u, mode 0777\n",
		 statedir, (unsigned)geteuid());
	assert_string_equal(cap.err, want);
	assert_string_equal(events(), "lab_up,traffic_started,traffic_stopped[interrupted by "
				      "down],lab_stopping");

	/* down again: the traffic has stopped now */
	assert_int_equal(down(), -1);
	assert_string_equal(cap.out, "");
	assert_string_equal(events(), "lab_up,traffic_started,traffic_stopped[interrupted by "
				      "down],lab_stopping,lab_stopping");
}

/* events go only to a lab's own events file: none if the recorded
 * rundir is not absolute, or has none */
static void test_down_no_events_file(void **state)
{
	(void)state;
	down_state(0777, "run\n");
	assert_int_equal(down(), -1);
	assert_string_equal(events(), "(none)");
	test_write_file(statedir, "rundir", "/nonexistent/run\n");
	assert_int_equal(down(), -1);
	assert_int_equal(access("/nonexistent/run/lab.events.jsonl", F_OK), -1);
	assert_string_equal(cap.out, "");
}

/* a state directory that is not there: said */
static void test_down_missing(void **state)
{
	char want[512];

	(void)state;
	assert_int_equal(down(), -1);
	snprintf(want, sizeof(want), "steerlab: down: %s: No such file or directory\n", statedir);
	assert_string_equal(cap.err, want);
}

/* inside_cmd: one of the commands, its stdout and stderr in cap */
#define inside_cmd(call)                                                                           \
	({                                                                                         \
		int rc_;                                                                           \
		capture_free(&cap);                                                                \
		capture_start(&cap);                                                               \
		rc_ = (call);                                                                      \
		capture_end(&cap);                                                                 \
		rc_;                                                                               \
	})

/* each command refuses a lab that is not up, or a name that is none */
static void test_no_such_lab(void **state)
{
	char *cmd[] = {"ip", "route"};

	(void)state;
	assert_int_equal(inside_cmd(inside_nodes("tlin-none", 0, stdout)), 1);
	assert_string_equal(cap.err, "steerlab: nodes: no lab named 'tlin-none' is up (steerlab "
				     "status lists them)\n");
	assert_int_equal(inside_cmd(inside_exec("tlin-none", "a", cmd, 2)), 1);
	assert_string_equal(cap.err, "steerlab: exec: no lab named 'tlin-none' is up (steerlab "
				     "status lists them)\n");
	assert_int_equal(inside_cmd(inside_fail("tlin-none", "a")), 1);
	assert_string_equal(cap.err, "steerlab: fail: no lab named 'tlin-none' is up (steerlab "
				     "status lists them)\n");
	assert_int_equal(inside_cmd(inside_recover("tlin-none", "a")), 1);
	assert_string_equal(cap.err, "steerlab: recover: no lab named 'tlin-none' is up "
				     "(steerlab status lists them)\n");
	assert_int_equal(inside_cmd(inside_which_node("fail", "tlin-none", 1)), 2);
	assert_string_equal(cap.err, "steerlab: fail: which site? (no lab named 'tlin-none' is "
				     "up (steerlab status lists them))\n");
	assert_int_equal(inside_cmd(inside_fail("Bad_Name", "a")), 1);
	assert_string_equal(cap.err,
			    "steerlab: fail: 'Bad_Name' is not a lab name (" TOPO_NAME_RULE ")\n");
	assert_string_equal(cap.out, "");
}

/* the lab tlin up in a /run of the test's own; a's sited alive (a real
 * process); b's sited never started */
static pid_t sited_a;

static int lab_setup(void **state)
{
	static const char *const nss[] = {"core", "a", "b", NULL}; /* not c1's */

	setup(state);
	if (private_run == -1)
		return 0;
	labstate_make("tlin", topology, rundir, bindir, nss);
	sited_a = labstate_spawn(bindir, "sited");
	labstate_agent("tlin", sited_a, labstate_starttime(sited_a), "a", "sited");
	return 0;
}

static int lab_teardown(void **state)
{
	char cmd[300];

	if (private_run == 0) {
		labstate_reap(sited_a);
		snprintf(cmd, sizeof(cmd), "/run/steerlab/tlin");
		nftw(cmd, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
		/* only what the tests made: other labs may be up */
		unlink("/run/netns/tlin-a");
	}
	return teardown(state);
}

static void need_private_run(void)
{
	if (private_run == -1) {
		print_message("%s\n", why);
		skip();
	}
}

/* the lab's nodes, and the refusals that need a lab: a node it does not
 * have, a node that is not a site, a site without sited, a namespace it
 * did not make or that cannot be entered */
static void test_lab_refusals(void **state)
{
	char *cmd[] = {"ip", "route"}, want[1024];
	json_t *doc;

	(void)state;
	need_private_run();
	assert_int_equal(inside_cmd(inside_nodes("tlin", 0, stdout)), 0);
	assert_non_null(strstr(cap.out, "a"));
	assert_int_equal(inside_cmd(inside_nodes("tlin", 1, stdout)), 0);
	doc = json_loads(cap.out, 0, NULL);
	assert_non_null(doc);
	json_decref(doc);

	assert_int_equal(inside_cmd(inside_exec("tlin", "zz", cmd, 2)), 1);
	assert_string_equal(cap.err, "steerlab: exec: lab tlin has no node 'zz' (its nodes: core, "
				     "a, b, c1)\n");
	/* a namespace the lab did not make (not in its list) */
	assert_int_equal(inside_cmd(inside_exec("tlin", "c1", cmd, 2)), 1);
	assert_string_equal(cap.err, "steerlab: exec: namespace tlin-c1 is not one lab tlin made "
				     "(/run/steerlab/tlin/namespaces)\n");
	/* entering a namespace that is not one: refused, the command not run */
	assert_int_equal(inside_cmd(inside_exec("tlin", "a", cmd, 2)), 1);
	assert_string_equal(cap.err, "steerlab: exec: entering namespace tlin-a: Invalid "
				     "argument\n");
	unlink("/run/netns/tlin-a");
	assert_int_equal(inside_cmd(inside_exec("tlin", "a", cmd, 2)), 1);
	assert_string_equal(cap.err, "steerlab: exec: namespace tlin-a: No such file or "
				     "directory\n");

	assert_int_equal(inside_cmd(inside_fail("tlin", "core")), 1);
	assert_string_equal(cap.err, "steerlab: fail: node core of lab tlin is a router, not a "
				     "site (its sites: a, b)\n");
	assert_int_equal(inside_cmd(inside_recover("tlin", "c1")), 1);
	assert_string_equal(cap.err, "steerlab: recover: node c1 of lab tlin is a client, not a "
				     "site (its sites: a, b)\n");
	assert_int_equal(inside_cmd(inside_fail("tlin", "b")), 1);
	assert_string_equal(cap.err, "steerlab: fail: site b of lab tlin has no sited (was it up "
				     "with --no-agents?)\n");
	/* a is not failed: nothing to recover */
	assert_int_equal(inside_cmd(inside_recover("tlin", "a")), 1);
	snprintf(want, sizeof(want),
		 "steerlab: recover: site a of lab tlin has not failed: its sited (pid %d) is "
		 "running\n",
		 (int)sited_a);
	assert_string_equal(cap.err, want);
	/* which site? the lab's sites */
	assert_int_equal(inside_cmd(inside_which_node("recover", "tlin", 1)), 2);
	assert_non_null(strstr(cap.err, "a"));
	assert_string_equal(events(), "(none)");
}

/* the fake lab side of recover: sited started, and (ready) its sited_ready
 * written, or (not) a sited that ended at once */
static int recover_ready = 1;
static pid_t started;

static int fake_start_sited(struct lab *l, int n)
{
	char path[512];
	struct lab_agent *a = &l->agents[l->nagents];

	memset(a, 0, sizeof(*a));
	a->node = n;
	a->pidfd = -1;
	snprintf(a->name, sizeof(a->name), "sited");
	if (recover_ready) {
		started = labstate_spawn(bindir, "sited");
		snprintf(path, sizeof(path), "%s/a.sited.events.jsonl", rundir);
		FILE *fp = fopen(path, "a");
		assert_non_null(fp);
		fprintf(fp, "{\"event\":\"sited_ready\"}\n");
		fclose(fp);
	} else if ((started = fork()) == 0) {
		_exit(1);
	}
	a->pid = started;
	return l->nagents++;
}

static const struct action_ops fake_ops = {.start_sited = fake_start_sited};

/* fail, then recover: site_failed by hand (sited killed through its
 * pidfd), a second fail refused; recover: sited started again, ready,
 * site_recovered; a sited that ends at once: said, no site_recovered */
static void test_fail_recover(void **state)
{
	char want[1024];
	int status;

	(void)state;
	need_private_run();
	assert_int_equal(inside_cmd(inside_fail("tlin", "a")), 0);
	snprintf(want, sizeof(want),
		 "steerlab: site a of lab tlin failed: sited (pid %d) killed; site_failed in "
		 "%s/lab.events.jsonl\n",
		 (int)sited_a, rundir);
	assert_string_equal(cap.out, want);
	assert_string_equal(cap.err, "");
	status = labstate_reap(sited_a);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	assert_string_equal(events(), "site_failed,event_applied");
	char path[512], *text;
	snprintf(path, sizeof(path), "%s/lab.events.jsonl", rundir);
	text = test_read_file(path);
	assert_non_null(strstr(text, "\"by\":\"hand\""));
	assert_non_null(strstr(text, "\"how\":\"sigkill\""));
	free(text);

	/* failed already: refused */
	assert_int_equal(inside_cmd(inside_fail("tlin", "a")), 1);
	snprintf(want, sizeof(want),
		 "steerlab: fail: site a of lab tlin has already failed: its sited (pid %d) is "
		 "not running (steerlab recover tlin a starts it again)\n",
		 (int)sited_a);
	assert_string_equal(cap.err, want);

	/* recover: a sited that ends at once */
	action_set_ops(&fake_ops);
	recover_ready = 0;
	assert_int_equal(inside_cmd(inside_recover("tlin", "a")), 1);
	snprintf(want, sizeof(want),
		 "steerlab: recover: sited of site a (pid %d) ended at once (see %s/a.sited.log)\n",
		 (int)started, rundir);
	assert_string_equal(cap.err, want);
	assert_string_equal(events(), "site_failed,event_applied,event_applied");

	/* recover: ready */
	recover_ready = 1;
	assert_int_equal(inside_cmd(inside_recover("tlin", "a")), 0);
	snprintf(want, sizeof(want),
		 "steerlab: site a of lab tlin recovered: sited started again (pid %d), ready\n",
		 (int)started);
	assert_string_equal(cap.out, want);
	assert_string_equal(events(), "site_failed,event_applied,event_applied,event_applied,"
				      "site_recovered");
	labstate_reap(started);
}

/* a lab with no run directory recorded: fail cannot write its events */
static void test_no_rundir(void **state)
{
	static const char *const nss[] = {"a", NULL};
	pid_t pid;

	(void)state;
	need_private_run();
	labstate_make("tlin2",
		      "[lab]\nname = tlin2\n[router core]\n[site a]\nlink = core\n"
		      "fail = yes\n[client c1]\nlink = core\n",
		      "", bindir, nss);
	pid = labstate_spawn(bindir, "sited");
	labstate_agent("tlin2", pid, labstate_starttime(pid), "a", "sited");
	assert_int_equal(inside_cmd(inside_fail("tlin2", "a")), 1);
	assert_string_equal(cap.err, "steerlab: fail: lab tlin2 has no run directory recorded in "
				     "/run/steerlab/tlin2/rundir\n");
	/* nothing was done to sited */
	assert_int_equal(kill(pid, 0), 0);
	labstate_reap(pid);
	nftw("/run/steerlab/tlin2", rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static int group_setup(void **state)
{
	(void)state;
	private_run = labstate_private_run(why, sizeof(why));
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_down_up_traffic, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_down_refused_state, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_down_no_events_file, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_down_missing, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_no_such_lab, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_lab_refusals, lab_setup, lab_teardown),
	    cmocka_unit_test_setup_teardown(test_fail_recover, lab_setup, lab_teardown),
	    cmocka_unit_test_setup_teardown(test_no_rundir, lab_setup, lab_teardown),
	};

	return cmocka_run_group_tests(tests, group_setup, NULL);
}
