/*
 * The supervisor (lab/build/supervise.c), run for real in a sandbox of the test's
 * own (tests/unit/test_sandbox.h) on fake agents that say what they were
 * given: an agent is recorded in agents.tsv before it may run, and never
 * runs if it cannot be; it gets its log, /dev/null, its namespace, a
 * session of its own and no descriptor of steerlab's; a start that fails
 * says which step failed. An agent that ends is noticed through its pidfd
 * and reported once as agent_exited, with a terminal line for the phase
 * the lab is in, unless the run meant it to end (the timeline's SIGKILL, a
 * client done after its duration). Signals go by label; `down` stops the
 * clients first, refuses a state line it cannot trust and leaves its
 * process alone, stops a process nobody recorded in the lab's namespaces,
 * and two takedowns of one lab take it down once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "event.h"
#include "lab/build/lab.h"
#include "lab/topology/topology.h"
#include "test_sandbox.h"
#include "test_topology_util.h"
#include "timeutil.h"

#define BIN "/run/t20/bin"
#define STATE "/run/steerlab/t20sup"
#define WAIT_NS (10 * NSEC_PER_SEC) /* bounds for a loaded machine: not waited out */

static struct topology *topo;
static struct lab lab;
static char run[64], stops[80];
static int nodea, nodec;

static int group_setup(void **state)
{
	(void)state;
	topo = new_topology();
	load_ok(topo, "tests/unit/data/lab/supervise.ini", NULL, 0);
	nodea = topo_find(topo, "a");
	nodec = topo_find(topo, "c1");
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	free(topo);
	return 0;
}

/* a lab bound to the topology with a new run directory and an empty state
 * directory, every node's namespace the test's own */
static int setup(void **state)
{
	static int seq;

	(void)state;
	if (!sandbox_ok)
		return 0;
	snprintf(run, sizeof(run), "/run/t20/run%d", ++seq);
	snprintf(stops, sizeof(stops), "%s/stops", run);
	if (mkdir("/run/t20", 0755) == -1 && errno != EEXIST)
		return -1;
	if (sandbox_bindir(BIN) == -1 || lab_init(&lab, topo, run, BIN) == -1)
		return -1;
	if ((mkdir(LAB_STATE_DIR, 0711) == -1 && errno != EEXIST) || mkdir(STATE, 0700) == -1)
		return -1;
	for (int i = 0; i < topo->nnodes; i++)
		lab.nsfd[i] = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	setenv(SANDBOX_STATEDIR_ENV, STATE, 1);
	setenv(SANDBOX_STOPS_ENV, stops, 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (!sandbox_ok)
		return 0;
	if (access(STATE, F_OK) == 0)
		lab_down(&lab);
	for (int i = 0; i < TOPO_MAX_NODES; i++)
		if (lab.nsfd[i] >= 0)
			close(lab.nsfd[i]);
	event_close(lab.ev);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	return 0;
}

static char *file_text(const char *dir, const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return sandbox_read(path);
}

static void assert_file(const char *dir, const char *name, const char *want)
{
	char *text = file_text(dir, name);

	if (text == NULL)
		fail_msg("%s/%s: not there", dir, name);
	assert_string_equal(text, want);
	free(text);
}

static void assert_no_file(const char *dir, const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (access(path, F_OK) == 0)
		fail_msg("%s is there", path);
}

/* wait_ready: the agent of node n called label has written its block */
static void wait_ready(int n, const char *label)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s.%s.log", run, topo->nodes[n].name, label);
	if (sandbox_wait_file(path, "argv:") == -1)
		fail_msg("%s: no argv line within 10 s", path);
}

static int start(int n, const char *label, const char *arg)
{
	char *argv[] = {(char *)label, (char *)arg, NULL};

	return lab_start_agent_as(&lab, n, lab_agent_prog(label), label, argv);
}

static void assert_no_child_left(void)
{
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

static void test_start_records(void **state)
{
	char *argv[] = {"sited", "-s", "a", NULL}, line[128], log[256];
	struct lab_agent *a = &lab.agents[0];
	int inherited;

	(void)state;
	SANDBOX_REQUIRE();
	/* a descriptor steerlab was given without close-on-exec */
	assert_true((inherited = open("/dev/null", O_RDONLY)) > 2);
	assert_int_equal(lab_start_agent_as(&lab, nodea, "sited", "sited", argv), 0);
	close(inherited);
	assert_int_equal(lab.nagents, 1);
	assert_true(a->pid > 1);
	assert_true(a->pidfd >= 0);
	assert_int_equal(a->child, 1);
	assert_int_equal(a->node, nodea);
	assert_string_equal(a->name, "sited");
	assert_true(a->starttime == sandbox_proc_start(a->pid));
	/* the state's copy for down, the run directory's for the analysis */
	snprintf(line, sizeof(line), "%d\t%llu\ta\tsited\n", (int)a->pid, a->starttime);
	assert_file(STATE, "agents.tsv", line);
	assert_file(run, "agents.tsv", line);
	/* it ran once recorded, with its log as output, /dev/null as input,
	 * in a session of its own, holding nothing of steerlab's */
	wait_ready(nodea, "sited");
	snprintf(log, sizeof(log), "%s/a.sited.log", run);
	assert_file(
	    run, "a.sited.log",
	    "recorded: yes\nfds: 0 1 2\nstdin: /dev/null\nsession: own\nargv: sited -s a\n");
	assert_int_equal(lab_signal_agent(&lab, 0, 0), 0);
}

static void test_unrecorded_never_runs(void **state)
{
	char *err;

	(void)state;
	SANDBOX_REQUIRE();
	/* agents.tsv cannot be written: the agent must not run (were it to,
	 * it would exit at once, and its log would say so) */
	assert_int_equal(symlink("/run/t20/planted", STATE "/agents.tsv"), 0);
	capture_begin();
	assert_int_equal(start(nodea, "sited", "exit=0"), -1);
	err = capture_end();
	assert_string_equal(err, "steerlab: " STATE "/agents.tsv is a symbolic link: not followed\n"
				 "steerlab: " STATE "/agents.tsv: the agent cannot be recorded; "
				 "not starting it\n");
	free(err);
	assert_int_equal(lab.nagents, 0);
	/* its child exited before opening its log, and was waited for */
	assert_no_file(run, "a.sited.log");
	assert_no_file("/run/t20", "planted");
	assert_no_child_left();
	unlink(STATE "/agents.tsv");
}

static void test_start_failures(void **state)
{
	static volatile sig_atomic_t stop = 1;
	char *err, want[1024];
	int nsfd = lab.nsfd[nodea];

	(void)state;
	SANDBOX_REQUIRE();
	capture_begin();
	/* no such program */
	assert_int_equal(
	    lab_start_agent_as(&lab, nodea, "nosuch", "sited", (char *[]){"nosuch", NULL}), -1);
	/* a log planted as a symbolic link */
	{
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s/a.sited.log", run);
		assert_int_equal(symlink("/run/t20/planted", path), 0);
		assert_int_equal(start(nodea, "sited", NULL), -1);
		unlink(path);
	}
	/* a namespace that is none */
	lab.nsfd[nodea] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_int_equal(start(nodea, "sited", NULL), -1);
	close(lab.nsfd[nodea]);
	lab.nsfd[nodea] = nsfd;
	/* a program that is none */
	test_write_file(BIN, "bad", "not a program\n");
	assert_int_equal(chmod(BIN "/bad", 0755), 0);
	assert_int_equal(lab_start_agent_as(&lab, nodea, "bad", "sited", (char *[]){"bad", NULL}),
			 -1);
	/* a real-time priority the kernel refuses (SCHED_FIFO's are 1-99) */
	assert_int_equal(
	    lab_start_agent_rt(&lab, nodea, "sited", "sited", (char *[]){"sited", NULL}, 100), -1);
	/* interrupted: nothing forked, nothing recorded */
	lab.interrupt = &stop;
	assert_int_equal(start(nodea, "prober", NULL), -1);
	lab.interrupt = NULL;
	err = capture_end();
	snprintf(want, sizeof(want),
		 "steerlab: agent sited of node a: " BIN "/nosuch: No such file or directory\n"
		 "steerlab: agent sited of node a: %s/a.sited.log is a symbolic link: not "
		 "followed; remove it or choose another --out\n"
		 "steerlab: agent sited of node a: its namespace: Invalid argument\n"
		 "steerlab: agent sited of node a: exec " BIN "/bad: Exec format error\n"
		 "steerlab: agent sited of node a: SCHED_FIFO: Invalid argument\n"
		 "steerlab: interrupted: agent prober of node a not started\n",
		 run);
	assert_string_equal(err, want);
	free(err);
	assert_int_equal(lab.nagents, 0);
	assert_no_file("/run/t20", "planted");
	/* the run directory lists the agents that started: none */
	assert_no_file(run, "agents.tsv");
	assert_no_child_left();
}

/* exe_of: where /proc/PID/exe points (malloc'd) */
static char *exe_of(pid_t pid)
{
	char path[64], buf[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	n = readlink(path, buf, sizeof(buf) - 1);
	assert_true(n > 0);
	buf[n] = '\0';
	return strdup(buf);
}

/* lines: how many lines text has */
static int lines(const char *text)
{
	int n = 0;

	for (const char *p = text; (p = strchr(p, '\n')) != NULL; p++)
		n++;
	return n;
}

/* a batch: every agent forked and recorded first, none of them run (each
 * still this program, waiting), then all let go at once, each recorded
 * before it ran */
static void test_batch(void **state)
{
	static const char *const labels[] = {"collector", "sited", "prober", "client"};
	char *self = exe_of(getpid()), *exe, *text, want[PATH_MAX];
	int nodes[] = {topo_find(topo, "core"), nodea, nodea, nodec};

	(void)state;
	SANDBOX_REQUIRE();
	lab_start_batch(&lab);
	for (int i = 0; i < 4; i++)
		assert_int_equal(start(nodes[i], labels[i], NULL), i);
	assert_int_equal(lab.nagents, 4);
	/* recorded for down, and not one has exec'd nor opened its log */
	text = file_text(STATE, "agents.tsv");
	assert_non_null(text);
	assert_int_equal(lines(text), 4);
	free(text);
	for (int i = 0; i < 4; i++) {
		char log[PATH_MAX];

		exe = exe_of(lab.agents[i].pid);
		assert_string_equal(exe, self);
		free(exe);
		snprintf(log, sizeof(log), "%s.%s.log", topo->nodes[nodes[i]].name, labels[i]);
		assert_no_file(run, log);
	}
	assert_no_file(run, "agents.tsv");
	assert_int_equal(lab_start_wait(&lab), 0);
	/* once it returns, every one has exec'd its program */
	for (int i = 0; i < 4; i++) {
		exe = exe_of(lab.agents[i].pid);
		snprintf(want, sizeof(want), BIN "/%s", lab_agent_prog(labels[i]));
		assert_string_equal(exe, want);
		free(exe);
		wait_ready(nodes[i], labels[i]);
	}
	assert_file(run, "a.sited.log",
		    "recorded: yes\nfds: 0 1 2\nstdin: /dev/null\nsession: own\nargv: sited\n");
	text = file_text(run, "agents.tsv");
	assert_non_null(text);
	assert_int_equal(lines(text), 4);
	free(text);
	free(self);
	/* a batch of none */
	lab_start_batch(&lab);
	assert_int_equal(lab_start_wait(&lab), 0);
	assert_int_equal(lab.nagents, 4);
}

/* agents of a batch that cannot start: each said in the order of the batch,
 * none left in the lab; the others run; an agent that cannot be forked
 * ends the batch there, as it ended the starts one by one */
static void test_batch_failures(void **state)
{
	char *err, want[1024], path[128], *text;

	(void)state;
	SANDBOX_REQUIRE();
	test_write_file(BIN, "bad", "not a program\n");
	assert_int_equal(chmod(BIN "/bad", 0755), 0);
	snprintf(path, sizeof(path), "%s/a.prober.log", run);
	assert_int_equal(symlink("/run/t20/planted", path), 0);
	capture_begin();
	lab_start_batch(&lab);
	assert_int_equal(start(nodea, "sited", NULL), 0);
	assert_int_equal(lab_start_agent_as(&lab, nodea, "bad", "routed", (char *[]){"bad", NULL}),
			 1);
	assert_int_equal(start(nodea, "prober", NULL), 2);
	assert_int_equal(start(nodec, "client", NULL), 3);
	assert_int_equal(
	    lab_start_agent_as(&lab, nodea, "nosuch", "sited", (char *[]){"nosuch", NULL}), -1);
	assert_int_equal(lab_start_wait(&lab), -1);
	err = capture_end();
	snprintf(want, sizeof(want),
		 "steerlab: agent sited of node a: " BIN "/nosuch: No such file or directory\n"
		 "steerlab: agent routed of node a: exec " BIN "/bad: Exec format error\n"
		 "steerlab: agent prober of node a: %s is a symbolic link: not followed; remove "
		 "it or choose another --out\n",
		 path);
	assert_string_equal(err, want);
	free(err);
	unlink(path);
	/* the two that run, in their order, and only they */
	assert_int_equal(lab.nagents, 2);
	assert_string_equal(lab.agents[0].name, "sited");
	assert_string_equal(lab.agents[1].name, "client");
	wait_ready(nodea, "sited");
	wait_ready(nodec, "client");
	text = file_text(run, "agents.tsv");
	assert_non_null(text);
	assert_int_equal(lines(text), 2);
	assert_non_null(strstr(text, "\ta\tsited\n"));
	assert_non_null(strstr(text, "\tc1\tclient\n"));
	free(text);
	assert_no_file("/run/t20", "planted");
	/* the next batch starts clean */
	lab_start_batch(&lab);
	assert_int_equal(start(nodea, "prober", NULL), 2);
	assert_int_equal(lab_start_wait(&lab), 0);
	wait_ready(nodea, "prober");
	assert_int_equal(lab_down(&lab), 0);
	assert_no_child_left();
}

/* a batch whose agent cannot be recorded: it never runs, those recorded
 * before it do; an interrupt stops the batch the same way */
static void test_batch_unrecorded(void **state)
{
	static volatile sig_atomic_t stop;
	char *err, *text;

	(void)state;
	SANDBOX_REQUIRE();
	lab_start_batch(&lab);
	assert_int_equal(start(nodea, "sited", NULL), 0);
	text = file_text(STATE, "agents.tsv");
	assert_non_null(text);
	assert_int_equal(rename(STATE "/agents.tsv", "/run/t20/agents.tsv"), 0);
	assert_int_equal(symlink("/run/t20/planted", STATE "/agents.tsv"), 0);
	capture_begin();
	assert_int_equal(start(nodea, "prober", "exit=0"), -1);
	assert_int_equal(lab_start_wait(&lab), -1);
	err = capture_end();
	assert_string_equal(err, "steerlab: " STATE "/agents.tsv is a symbolic link: not followed\n"
				 "steerlab: " STATE "/agents.tsv: the agent cannot be recorded; "
				 "not starting it\n");
	free(err);
	unlink(STATE "/agents.tsv");
	assert_int_equal(rename("/run/t20/agents.tsv", STATE "/agents.tsv"), 0);
	assert_file(STATE, "agents.tsv", text);
	free(text);
	assert_int_equal(lab.nagents, 1);
	wait_ready(nodea, "sited");
	assert_no_file(run, "a.prober.log");
	assert_no_file("/run/t20", "planted");

	lab.interrupt = &stop;
	lab_start_batch(&lab);
	assert_int_equal(start(nodec, "client", NULL), 1);
	stop = 1;
	capture_begin();
	assert_int_equal(start(nodea, "prober", NULL), -1);
	assert_int_equal(lab_start_wait(&lab), -1);
	err = capture_end();
	assert_string_equal(err, "steerlab: interrupted: agent prober of node a not started\n");
	free(err);
	lab.interrupt = NULL;
	assert_int_equal(lab.nagents, 2);
	wait_ready(nodec, "client");
	assert_no_file(run, "a.prober.log");
	assert_int_equal(lab_down(&lab), 0);
	assert_no_child_left();
}

/* the one agent_exited event, checked against what is expected of it */
static void assert_exited(const char *node, const char *agent, pid_t pid, int code, int sig,
			  int expected)
{
	char path[PATH_MAX];
	json_t *evs, *ev;

	snprintf(path, sizeof(path), "%s/lab.events.jsonl", run);
	evs = sandbox_events(path, "agent_exited");
	assert_int_equal(json_array_size(evs), 1);
	ev = json_array_get(evs, 0);
	assert_string_equal(json_string_value(json_object_get(ev, "node")), node);
	assert_string_equal(json_string_value(json_object_get(ev, "agent")), agent);
	assert_int_equal(json_integer_value(json_object_get(ev, "pid")), pid);
	if (code >= 0)
		assert_int_equal(json_integer_value(json_object_get(ev, "exit_code")), code);
	else
		assert_true(json_is_null(json_object_get(ev, "exit_code")));
	if (sig > 0)
		assert_int_equal(json_integer_value(json_object_get(ev, "signal")), sig);
	else
		assert_true(json_is_null(json_object_get(ev, "signal")));
	assert_true(json_is_boolean(json_object_get(ev, "expected")));
	assert_int_equal(json_is_true(json_object_get(ev, "expected")), expected);
	json_decref(evs);
}

static void test_exit_reported(void **state)
{
	struct lab_agent *a = &lab.agents[0];
	char *err, want[512];

	(void)state;
	SANDBOX_REQUIRE();
	assert_int_equal(start(nodea, "sited", "exit=3"), 0);
	capture_begin();
	/* seen through its pidfd when it ends: no polling, no guessed time */
	assert_int_equal(lab_wait_agents(&lab, "sited", WAIT_NS), 0);
	err = capture_end();
	snprintf(want, sizeof(want),
		 "steerlab: agent sited of node a exited (status 3) while the lab came up: the "
		 "lab is incomplete (see %s/a.sited.log)\n",
		 run);
	assert_string_equal(err, want);
	free(err);
	assert_exited("a", "sited", a->pid, 3, 0, 0);
	assert_int_equal(lab.unexpected, 1);
	assert_int_equal(a->reaped, 1);
	assert_int_equal(a->pidfd, -1);
	assert_no_child_left();
	/* reported once; nothing signalled after it ended */
	assert_int_equal(lab_watch(&lab, 0), 0);
	assert_int_equal(lab_signal_agent(&lab, 0, SIGTERM), -1);
	assert_int_equal(errno, ESRCH);
	assert_int_equal(lab_kill_agent(&lab, 0), -1);
	assert_int_equal(errno, ESRCH);
	assert_exited("a", "sited", a->pid, 3, 0, 0);
	assert_int_equal(lab.unexpected, 1);
}

static void test_exit_phases(void **state)
{
	const char *prefix = "steerlab: agent client of node c1 died (signal 9) at ";
	char *err, want[512];

	(void)state;
	SANDBOX_REQUIRE();
	lab.phase = LAB_WARMUP;
	assert_int_equal(start(nodea, "sited", "exit=1"), 0);
	capture_begin();
	assert_int_equal(lab_wait_agents(&lab, NULL, WAIT_NS), 0);
	err = capture_end();
	snprintf(want, sizeof(want),
		 "steerlab: agent sited of node a exited (status 1) during the warm-up: the lab "
		 "is not ready (see %s/a.sited.log)\n",
		 run);
	assert_string_equal(err, want);
	free(err);

	/* killed from outside while the clients send: the run is invalid */
	lab.phase = LAB_TRAFFIC;
	lab.traffic_start = now_mono_ns();
	assert_int_equal(start(nodec, "client", NULL), 1);
	assert_int_equal(kill(lab.agents[1].pid, SIGKILL), 0);
	capture_begin();
	assert_int_equal(lab_wait_agents(&lab, "client", WAIT_NS), 0);
	err = capture_end();
	snprintf(want, sizeof(want), " s: this run is invalid (see %s/c1.client.log)\n", run);
	assert_true(strncmp(err, prefix, strlen(prefix)) == 0);
	assert_true(strlen(err) > strlen(want) &&
		    strcmp(err + strlen(err) - strlen(want), want) == 0);
	free(err);
	assert_int_equal(lab.unexpected, 2);

	{
		char path[PATH_MAX];
		json_t *evs, *ev;

		snprintf(path, sizeof(path), "%s/lab.events.jsonl", run);
		evs = sandbox_events(path, "agent_exited");
		assert_int_equal(json_array_size(evs), 2);
		ev = json_array_get(evs, 1);
		assert_string_equal(json_string_value(json_object_get(ev, "agent")), "client");
		assert_true(json_is_null(json_object_get(ev, "exit_code")));
		assert_int_equal(json_integer_value(json_object_get(ev, "signal")), SIGKILL);
		assert_true(json_is_false(json_object_get(ev, "expected")));
		json_decref(evs);
	}
}

static void test_expected_ends(void **state)
{
	char *err, path[PATH_MAX];
	json_t *evs;

	(void)state;
	SANDBOX_REQUIRE();
	snprintf(path, sizeof(path), "%s/lab.events.jsonl", run);
	capture_begin();
	/* the timeline's SIGKILL */
	assert_int_equal(start(nodea, "sited", NULL), 0);
	assert_int_equal(lab_kill_agent(&lab, 0), 0);
	assert_int_equal(lab_wait_agents(&lab, NULL, WAIT_NS), 0);
	/* a client done at most one interval (0.5 s at 2/s) before its end */
	lab.clients_until = now_mono_ns() + 400 * 1000000LL;
	assert_int_equal(start(nodec, "client-dns", "exit=0"), 1);
	assert_int_equal(lab_wait_agents(&lab, NULL, WAIT_NS), 0);
	err = capture_end();
	assert_string_equal(err, "");
	free(err);
	assert_int_equal(lab.unexpected, 0);
	evs = sandbox_events(path, "agent_exited");
	assert_int_equal(json_array_size(evs), 2);
	for (size_t i = 0; i < 2; i++)
		assert_true(json_is_true(json_object_get(json_array_get(evs, i), "expected")));
	assert_int_equal(json_integer_value(json_object_get(json_array_get(evs, 0), "signal")),
			 SIGKILL);
	json_decref(evs);

	/* a client done long before its end, or failing after it: not */
	capture_begin();
	lab.clients_until = now_mono_ns() + 100 * NSEC_PER_SEC;
	assert_int_equal(start(nodec, "client", "exit=0"), 2);
	assert_int_equal(lab_wait_agents(&lab, NULL, WAIT_NS), 0);
	lab.clients_until = now_mono_ns() - NSEC_PER_SEC;
	assert_int_equal(start(nodec, "client", "exit=1"), 3);
	assert_int_equal(lab_wait_agents(&lab, NULL, WAIT_NS), 0);
	/* nor a SIGKILL the timeline did not send */
	assert_int_equal(start(nodea, "sited", NULL), 4);
	lab.agents[4].expect_kill = 1;
	assert_int_equal(kill(lab.agents[4].pid, SIGTERM), 0);
	assert_int_equal(lab_wait_agents(&lab, NULL, WAIT_NS), 0);
	free(capture_end());
	assert_int_equal(lab.unexpected, 3);
	evs = sandbox_events(path, "agent_exited");
	assert_int_equal(json_array_size(evs), 5);
	for (size_t i = 2; i < 5; i++)
		assert_true(json_is_false(json_object_get(json_array_get(evs, i), "expected")));
	json_decref(evs);
}

static void test_signal_by_label(void **state)
{
	char *text;

	(void)state;
	SANDBOX_REQUIRE();
	assert_int_equal(start(nodec, "client", NULL), 0);
	assert_int_equal(start(nodec, "client-dns", NULL), 1);
	assert_int_equal(start(nodea, "sited", NULL), 2);
	wait_ready(nodec, "client");
	wait_ready(nodec, "client-dns");
	wait_ready(nodea, "sited");
	capture_begin();
	lab_signal_agents(&lab, "client*", SIGTERM);
	assert_int_equal(lab_wait_agents(&lab, "client*", WAIT_NS), 0);
	free(capture_end());
	assert_int_equal(lab.agents[2].reaped, 0);
	text = sandbox_read(stops);
	assert_non_null(text);
	assert_non_null(strstr(text, "c1.client.log stopped\n"));
	assert_non_null(strstr(text, "c1.client-dns.log stopped\n"));
	assert_null(strstr(text, "sited"));
	free(text);
	/* by name, exactly */
	lab_signal_agents(&lab, "site", SIGTERM);
	assert_int_equal(lab_wait_agents(&lab, "sited", 0), 1);
	assert_int_equal(lab_signal_agent(&lab, 2, SIGTERM), 0);
	capture_begin();
	assert_int_equal(lab_wait_agents(&lab, "sited", WAIT_NS), 0);
	free(capture_end());
	assert_non_null(text = sandbox_read(stops));
	assert_non_null(strstr(text, "a.sited.log stopped\n"));
	free(text);
}

static void test_down_clients_first(void **state)
{
	char path[PATH_MAX], *text;
	json_t *evs;

	(void)state;
	SANDBOX_REQUIRE();
	assert_int_equal(start(topo_find(topo, "core"), "collector", NULL), 0);
	assert_int_equal(start(nodea, "sited", NULL), 1);
	assert_int_equal(start(nodec, "client", NULL), 2);
	wait_ready(topo_find(topo, "core"), "collector");
	wait_ready(nodea, "sited");
	wait_ready(nodec, "client");
	assert_int_equal(lab_down(&lab), 0);
	/* the client is stopped, and gone, before the others are told */
	text = sandbox_read(stops);
	assert_non_null(text);
	assert_true(strncmp(text, "c1.client.log stopped\n", 22) == 0);
	assert_non_null(strstr(text, "core.collector.log stopped\n"));
	assert_non_null(strstr(text, "a.sited.log stopped\n"));
	free(text);
	/* stopped on purpose: no agent_exited */
	snprintf(path, sizeof(path), "%s/lab.events.jsonl", run);
	evs = sandbox_events(path, "agent_exited");
	assert_int_equal(json_array_size(evs), 0);
	json_decref(evs);
	evs = sandbox_events(path, "lab_down");
	assert_int_equal(json_array_size(evs), 1);
	json_decref(evs);
	for (int i = 0; i < lab.nagents; i++)
		assert_int_equal(lab.agents[i].pidfd, -1);
	assert_no_file(LAB_STATE_DIR, "t20sup");
	assert_no_child_left();
}

static void test_down_state(void **state)
{
	char agents[512], want[8192], sleepexe[PATH_MAX], path[64], *err, *out;
	pid_t sited, sleeper, stray, dead;
	size_t outlen;
	FILE *outf;
	int status, nsfd;
	ssize_t n;

	(void)state;
	SANDBOX_REQUIRE();
	/* another process's lab: its namespace, its agent, a process it did
	 * not record in its namespace, and state lines not to be trusted */
	assert_int_equal(netns_create("t20sup-a"), 0);
	sited = sandbox_spawn(BIN "/sited", (char *[]){"sited", NULL}, "/run/t20/other.sited.log");
	sleeper = sandbox_spawn("/bin/sleep", (char *[]){"sleep", "60", NULL}, "/dev/null");
	assert_true((dead = fork()) != -1);
	if (dead == 0)
		_exit(0);
	assert_int_equal(waitpid(dead, NULL, 0), dead);
	nsfd = netns_open("t20sup-a");
	assert_true((stray = fork()) != -1);
	if (stray == 0) {
		if (netns_enter(nsfd) == -1)
			_exit(126);
		execl("/bin/sleep", "sleep", "60", (char *)NULL);
		_exit(127);
	}
	close(nsfd);
	assert_int_equal(sandbox_wait_file("/run/t20/other.sited.log", "argv:"), 0);
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)stray);
	assert_int_equal(sandbox_wait_file(path, "sleep"), 0);
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)sleeper);
	assert_int_equal(sandbox_wait_file(path, "sleep"), 0);
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)sleeper);
	n = readlink(path, sleepexe, sizeof(sleepexe) - 1);
	assert_true(n > 0);
	sleepexe[n] = '\0';

	snprintf(agents, sizeof(agents),
		 "%d\t%llu\ta\tsited\n"
		 "%d\t%llu\ta\tprober\n"  /* another program */
		 "%d\t%llu\tc1\tclient\n" /* another start time: not that process */
		 "garbage\n"
		 "%d\t1\ta\trouted\n", /* gone */
		 (int)sited, sandbox_proc_start(sited), (int)sleeper, sandbox_proc_start(sleeper),
		 (int)sited, sandbox_proc_start(sited) + 1, (int)dead);
	test_write_file(STATE, "agents.tsv", agents);
	test_write_file(STATE, "namespaces", "t20sup-a\n../etc\n");
	test_write_file(STATE, "bindir", BIN "\n");

	outf = open_memstream(&out, &outlen);
	capture_begin();
	assert_int_equal(lab_down_state(STATE, outf), -1);
	err = capture_end();
	fclose(outf);
	snprintf(want, sizeof(want),
		 "steerlab: %s/agents.tsv:4: refused: expected PID, start time, node and agent "
		 "label separated by tabs, got 'garbage'\n"
		 "steerlab: %s/agents.tsv:2: refused: pid %d runs %s, not " BIN
		 "/prober (the prober agent of the lab); not signalled\n"
		 "steerlab: t20sup: pid %d (sleep) is in namespace t20sup-a but not in "
		 "agents.tsv: stopping it\n"
		 "steerlab: %s/namespaces:2: refused: '../etc' is not a namespace of lab t20sup "
		 "(expected t20sup-NODE, NODE from a-z, 0-9 and '-'); not removed\n",
		 STATE, STATE, (int)sleeper, sleepexe, (int)stray, STATE);
	assert_string_equal(err, want);
	snprintf(want, sizeof(want),
		 "steerlab: t20sup down: 1 agent stopped, 1 namespace removed; 1 process it had "
		 "not recorded stopped (sleep %d); 3 lines of its state refused (above)\n",
		 (int)stray);
	assert_string_equal(out, want);
	free(err);
	free(out);

	/* the recorded agent stopped by SIGTERM, the stray too; the refused
	 * line's process untouched */
	assert_int_equal(waitpid(sited, &status, 0), sited);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_file(run, "stops", "other.sited.log stopped\n");
	assert_int_equal(waitpid(stray, &status, 0), stray);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	assert_int_equal(waitpid(sleeper, &status, WNOHANG), 0);
	assert_int_equal(kill(sleeper, SIGKILL), 0);
	assert_int_equal(waitpid(sleeper, &status, 0), sleeper);
	/* the namespace and the state are gone */
	assert_int_equal(netns_exists("t20sup-a"), 0);
	assert_no_file(LAB_STATE_DIR, "t20sup");
}

static void test_claim(void **state)
{
	struct lab_agent a;
	char *err;
	pid_t pid;

	(void)state;
	SANDBOX_REQUIRE();
	assert_int_equal(sandbox_bindir("/run/t20/bin2"), 0);
	pid = sandbox_spawn("/run/t20/bin2/sited", (char *[]){"sited", NULL}, "/run/t20/claim.log");
	assert_int_equal(sandbox_wait_file("/run/t20/claim.log", "argv:"), 0);
	memset(&a, 0, sizeof(a));
	a.pid = pid;
	a.starttime = sandbox_proc_start(pid);
	strcpy(a.name, "sited");
	assert_int_equal(lab_agent_claim(&a, "/run/t20/bin2", "agents.tsv", 1), 1);
	assert_true(a.pidfd >= 0);
	assert_int_equal(a.reaped, 0);
	lab_agent_release(&a);
	assert_int_equal(a.pidfd, -1);
	/* rebuilt while the lab was up: still the lab's program */
	assert_int_equal(unlink("/run/t20/bin2/sited"), 0);
	assert_int_equal(sandbox_bindir("/run/t20/bin2"), 0);
	assert_int_equal(lab_agent_claim(&a, "/run/t20/bin2", "agents.tsv", 1), 1);
	lab_agent_release(&a);
	/* another label's program: refused, said only if asked */
	strcpy(a.name, "routed");
	capture_begin();
	assert_int_equal(lab_agent_claim(&a, "/run/t20/bin2", "agents.tsv", 0), -1);
	assert_int_equal(a.pidfd, -1);
	assert_int_equal(a.reaped, 1);
	err = capture_end();
	assert_string_equal(err, "");
	free(err);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	/* gone */
	strcpy(a.name, "sited");
	assert_int_equal(lab_agent_claim(&a, "/run/t20/bin2", "agents.tsv", 1), 0);
	assert_int_equal(a.reaped, 1);
}

static void test_two_downs(void **state)
{
	int fd, p[2], status;
	char buf[512] = "", *err;
	size_t len = 0;
	pid_t pid;

	(void)state;
	SANDBOX_REQUIRE();
	fd = lab_state_lock(STATE);
	assert_true(fd >= 0);
	assert_int_equal(pipe(p), 0);
	assert_true((pid = fork()) != -1);
	if (pid == 0) {
		close(fd); /* its copy would hold the lock */
		dup2(p[1], STDERR_FILENO);
		exit(lab_down_state(STATE, NULL) == 0 ? 0 : 1);
	}
	close(p[1]);
	/* the other one says it waits, then waits */
	while (!strstr(buf, "waiting for it\n")) {
		ssize_t n = read(p[0], buf + len, sizeof(buf) - 1 - len);
		assert_true(n > 0);
		len += (size_t)n;
		buf[len] = '\0';
	}
	assert_string_equal(buf,
			    "steerlab: " STATE " is held by another steerlab (bringing the lab "
			    "up or taking it down): waiting for it\n");
	/* taken down meanwhile: the other one finds nothing left to do */
	assert_int_equal(rmdir(STATE), 0);
	lab_state_unlock(fd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(read(p[0], buf, sizeof(buf)), 0);
	close(p[0]);
	/* no lab: no lock, and down says why */
	assert_int_equal(lab_state_lock(STATE), -1);
	capture_begin();
	assert_int_equal(lab_down_state(STATE, NULL), -1);
	err = capture_end();
	assert_string_equal(err,
			    "steerlab: lab_down_state: " STATE ": No such file or directory\n");
	free(err);
}

static void test_state_check(void **state)
{
	char *err;

	(void)state;
	SANDBOX_REQUIRE();
	assert_int_equal(lab_state_check(STATE), 0);
	assert_int_equal(symlink(STATE, "/run/t20/link"), 0);
	assert_int_equal(mkdir("/run/t20/open", 0755), 0);
	assert_int_equal(chmod("/run/t20/open", 0777), 0);
	test_write_file("/run/t20", "file", "");
	assert_int_equal(chmod("/run/t20/file", 0644), 0);
	capture_begin();
	assert_int_equal(lab_state_check("/run/t20/link"), -1);
	assert_int_equal(lab_state_check("/run/t20/open"), -1);
	assert_int_equal(lab_state_check("/run/t20/file"), -1);
	assert_int_equal(lab_state_check("/run/t20/none"), -1);
	/* down trusts no state directory it refuses */
	assert_int_equal(lab_down_state("/run/t20/open", NULL), -1);
	err = capture_end();
	assert_string_equal(err,
			    "steerlab: /run/t20/link is a symbolic link: refused (expected a "
			    "directory of root's)\n"
			    "steerlab: /run/t20/open: refused: expected a directory owned by "
			    "root and writable only by it, got a directory owned by uid 0, "
			    "mode 0777\n"
			    "steerlab: /run/t20/file: refused: expected a directory owned by "
			    "root and writable only by it, got not a directory owned by uid 0, "
			    "mode 0644\n"
			    "steerlab: lab_state_check: /run/t20/none: No such file or "
			    "directory\n"
			    "steerlab: /run/t20/open: refused: expected a directory owned by "
			    "root and writable only by it, got a directory owned by uid 0, "
			    "mode 0777\n");
	free(err);
	assert_int_equal(access("/run/t20/open", F_OK), 0);
	unlink("/run/t20/link");
	unlink("/run/t20/file");
	rmdir("/run/t20/open");
}

static void test_state_bindir(void **state)
{
	char buf[PATH_MAX], dflt[PATH_MAX];

	(void)state;
	SANDBOX_REQUIRE();
	lab_agent_dir(dflt, sizeof(dflt));
	/* not recorded: where this steerlab finds them */
	lab_state_bindir(STATE, buf, sizeof(buf));
	assert_string_equal(buf, dflt);
	test_write_file(STATE, "bindir", "/opt/x/bin\n");
	lab_state_bindir(STATE, buf, sizeof(buf));
	assert_string_equal(buf, "/opt/x/bin");
	/* only an absolute path is taken */
	test_write_file(STATE, "bindir", "bin\n");
	lab_state_bindir(STATE, buf, sizeof(buf));
	assert_string_equal(buf, dflt);
	unlink(STATE "/bindir");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_start_records, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unrecorded_never_runs, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_start_failures, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_batch, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_batch_failures, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_batch_unrecorded, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_exit_reported, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_exit_phases, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_expected_ends, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_signal_by_label, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_down_clients_first, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_down_state, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_claim, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_two_downs, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_state_check, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_state_bindir, setup, teardown),
	};

	SANDBOX_MAIN(argc, argv);
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
