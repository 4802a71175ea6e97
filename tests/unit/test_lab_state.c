/*
 * What `steerlab down` accepts from a lab's state directory (lab/build/lab.h):
 * namespace names of the lab's own form only, agents.tsv lines of the form
 * `up` writes, labels of steerlab's own agents. The rest is refused, since a
 * state file that was tampered with must not turn `down` against the
 * machine (issue 8).
 *
 * A lab that is up, read back by a later process (lab/build/state.c: `nodes`,
 * `exec`, `fail`, `recover`, `status`): a state directory written as `up`
 * writes it, in the sandbox of tests/unit/test_sandbox.h, with fake agents
 * alive and agents gone; each agent found alive or not, the one a later
 * line supersedes left out; every refusal said as the user reads it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lab/build/lab.h"
#include "test_sandbox.h"
#include "test_topology_util.h"

static void test_ns_valid(void **state)
{
	(void)state;
	assert_true(lab_ns_valid("l-x", "l-x-core"));
	assert_true(lab_ns_valid("l-x", "l-x-c1"));
	assert_true(lab_ns_valid("anycast", "anycast-a"));
	/* another lab's, or no lab's */
	assert_false(lab_ns_valid("l-x", "l-foreign"));
	assert_false(lab_ns_valid("l-x", "l-xy-core"));
	assert_false(lab_ns_valid("l-x", "l-x"));
	assert_false(lab_ns_valid("l-x", "l-x-"));
	/* paths */
	assert_false(lab_ns_valid("l-x", "../../tmp/victim"));
	assert_false(lab_ns_valid("l-x", "l-x-../../etc"));
	assert_false(lab_ns_valid("l-x", "l-x-a/b"));
	assert_false(lab_ns_valid("l-x", "l-x-.."));
	/* the node name charset and length */
	assert_false(lab_ns_valid("l-x", "l-x-Core"));
	assert_false(lab_ns_valid("l-x", "l-x-a b"));
	assert_false(lab_ns_valid("l-x", "l-x-abcdefghijklm"));
	assert_true(lab_ns_valid("l-x", "l-x-abcdefghijkl"));
	/* a lab name that is not one */
	assert_false(lab_ns_valid("", "-core"));
	assert_false(lab_ns_valid("../x", "../x-core"));
}

static void test_agent_prog(void **state)
{
	(void)state;
	assert_string_equal(lab_agent_prog("sited"), "sited");
	assert_string_equal(lab_agent_prog("client"), "client");
	assert_string_equal(lab_agent_prog("client-dns"), "client");
	assert_string_equal(lab_agent_prog("collector-dns"), "collector");
	assert_string_equal(lab_agent_prog("resolverd"), "resolverd");
	assert_null(lab_agent_prog("sleep"));
	assert_null(lab_agent_prog("sh"));
	assert_null(lab_agent_prog("clientx"));
	assert_null(lab_agent_prog("client-"));
	assert_null(lab_agent_prog("client-../x"));
	assert_null(lab_agent_prog(""));
	/* FRR's daemons: exactly these labels, their programs FRR's */
	assert_string_equal(lab_agent_prog("zebra"), "zebra");
	assert_string_equal(lab_agent_prog("bgpd"), "bgpd");
	assert_string_equal(lab_agent_prog("bfdd"), "bfdd");
	assert_null(lab_agent_prog("bgpd-x"));
	assert_null(lab_agent_prog("ospfd"));
	assert_string_equal(lab_frr_prog("zebra"), "/usr/lib/frr/zebra");
	assert_string_equal(lab_frr_prog("bgpd"), "/usr/lib/frr/bgpd");
	assert_string_equal(lab_frr_prog("bfdd"), "/usr/lib/frr/bfdd");
	assert_null(lab_frr_prog("routed"));
	assert_null(lab_frr_prog("sited"));
}

static void test_agent_line(void **state)
{
	struct lab_agent a;

	(void)state;
	assert_int_equal(lab_parse_agent_line("1234\t567890\tc1\tclient-dns\n", &a), 0);
	assert_int_equal(a.pid, 1234);
	assert_true(a.starttime == 567890ull);
	assert_string_equal(a.name, "client-dns");
	assert_int_equal(a.pidfd, -1);
	assert_int_equal(a.reaped, 0);
	assert_int_equal(lab_parse_agent_line("99\t1\tcore\trouted", &a), 0);
	assert_int_equal(lab_parse_agent_line("99\t1\tcore\tbgpd\n", &a), 0);
	assert_int_equal(lab_parse_agent_line("99\t1\tcore\tzebra-x\n", &a), -1);

	assert_int_equal(lab_parse_agent_line("garbage line\n", &a), -1);
	assert_int_equal(lab_parse_agent_line("1\t5\tc1\tclient\n", &a), -1);  /* init */
	assert_int_equal(lab_parse_agent_line("0\t5\tc1\tclient\n", &a), -1);  /* a group */
	assert_int_equal(lab_parse_agent_line("-5\t5\tc1\tclient\n", &a), -1); /* a group */
	assert_int_equal(lab_parse_agent_line("1234\t5\tc1\tsleep\n", &a), -1);
	assert_int_equal(lab_parse_agent_line("1234\t5\t../c1\tclient\n", &a), -1);
	assert_int_equal(lab_parse_agent_line("1234\t5\tc1\tclient\textra\n", &a), -1);
	assert_int_equal(lab_parse_agent_line("1234\tx\tc1\tclient\n", &a), -1);
	assert_int_equal(lab_parse_agent_line("1234\t5\tc1\n", &a), -1);
}

#define BIN "/run/t20/bin"
#define SDIR "/run/steerlab/t20st"

static struct topology *topo;
static pid_t sited, client, gone_sited, gone_prober;

/* gone: the pid of a process that has ended */
static pid_t gone(void)
{
	pid_t pid = fork();

	assert_true(pid != -1);
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	return pid;
}

/* the state of lab t20st as up writes it: a sited restarted by recover (its
 * first line superseded), a prober that has died, a client alive, a line
 * refused; one of its namespaces still there */
static int setup(void **state)
{
	char tsv[512], *text;

	(void)state;
	if (!sandbox_ok)
		return 0;
	topo = new_topology();
	load_ok(topo, "tests/unit/data/lab/state.ini", NULL, 0);
	if ((mkdir("/run/t20", 0755) == -1 && errno != EEXIST) || sandbox_bindir(BIN) == -1 ||
	    (mkdir(LAB_STATE_DIR, 0711) == -1 && errno != EEXIST) || mkdir(SDIR, 0700) == -1)
		return -1;
	text = print_to_string(topo);
	test_write_file(SDIR, "topology.ini", text);
	free(text);
	test_write_file(SDIR, "rundir", "/run/t20/run\n");
	test_write_file(SDIR, "bindir", BIN "\n");
	test_write_file(SDIR, "namespaces", "t20st-core\nt20st-a\nt20st-b\nt20st-c1\n");
	if (netns_create("t20st-a") == -1)
		return -1;
	gone_sited = gone();
	gone_prober = gone();
	unlink("/run/t20/st-sited.log");
	unlink("/run/t20/st-client.log");
	sited = sandbox_spawn(BIN "/sited", (char *[]){"sited", NULL}, "/run/t20/st-sited.log");
	client = sandbox_spawn(BIN "/client", (char *[]){"client", NULL}, "/run/t20/st-client.log");
	/* running their programs, as agents do once started */
	if (sandbox_wait_file("/run/t20/st-sited.log", "argv:") == -1 ||
	    sandbox_wait_file("/run/t20/st-client.log", "argv:") == -1)
		return -1;
	snprintf(tsv, sizeof(tsv),
		 "%d\t1\ta\tsited\n%d\t1\ta\tprober\n%d\t%llu\tc1\tclient\n%d\t%llu\ta\tsited\n"
		 "no tabs here\n",
		 (int)gone_sited, (int)gone_prober, (int)client, sandbox_proc_start(client),
		 (int)sited, sandbox_proc_start(sited));
	test_write_file(SDIR, "agents.tsv", tsv);
	return 0;
}

static int teardown(void **state)
{
	static const char *const files[] = {"topology.ini", "rundir", "bindir", "namespaces",
					    "agents.tsv"};
	char path[PATH_MAX];

	(void)state;
	if (!sandbox_ok)
		return 0;
	kill(sited, SIGKILL);
	kill(client, SIGKILL);
	waitpid(sited, NULL, 0);
	waitpid(client, NULL, 0);
	netns_delete("t20st-a");
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", SDIR, files[i]);
		unlink(path);
	}
	rmdir(SDIR);
	unlink("/run/steerlab/t20other/topology.ini");
	rmdir("/run/steerlab/t20other");
	rmdir("/run/steerlab/Not-A-Lab");
	chmod(LAB_STATE_DIR, 0711);
	free(topo);
	return 0;
}

static void test_state_load(void **state)
{
	static struct lab_state s;
	char err[256] = "", line[64];
	int a = -1, n;

	(void)state;
	SANDBOX_REQUIRE();
	assert_int_equal(lab_state_load(&s, "t20st", err, sizeof(err)), 0);
	assert_string_equal(err, "");
	assert_string_equal(s.name, "t20st");
	assert_string_equal(s.dir, SDIR);
	assert_string_equal(s.rundir, "/run/t20/run");
	assert_string_equal(s.bindir, BIN);
	assert_int_equal(s.t.nnodes, 4);
	/* four lines taken, one refused; each agent's node and life */
	assert_int_equal(s.nagents, 4);
	assert_int_equal(s.refused, 1);
	a = topo_find(&s.t, "a");
	assert_int_equal(s.agents[0].node, a);
	assert_int_equal(s.agents[2].node, topo_find(&s.t, "c1"));
	assert_int_equal(s.agents[0].reaped, 1); /* gone */
	assert_int_equal(s.agents[1].reaped, 1); /* gone */
	assert_int_equal(s.agents[2].reaped, 0); /* alive */
	assert_int_equal(s.agents[3].reaped, 0); /* alive: recover's sited */
	for (int i = 0; i < s.nagents; i++)
		assert_int_equal(s.agents[i].pidfd, -1); /* nothing held */
	/* the first sited is superseded by recover's */
	assert_false(lab_state_current(&s, 0));
	for (int i = 1; i < 4; i++)
		assert_true(lab_state_current(&s, i));
	assert_int_equal(lab_state_find_agent(&s, a, "sited"), 3);
	assert_int_equal(lab_state_find_agent(&s, a, "prober"), 1);
	assert_int_equal(lab_state_find_agent(&s, a, "client"), -1);
	/* nodes and namespaces by name */
	assert_int_equal(lab_state_node(&s, "b", err, sizeof(err)), topo_find(&s.t, "b"));
	assert_int_equal(lab_state_node(&s, "zz", err, sizeof(err)), -1);
	assert_string_equal(err, "lab t20st has no node 'zz' (its nodes: core, a, b, c1)");
	n = lab_state_node(&s, "zz", err, 24);
	assert_int_equal(n, -1);
	assert_string_equal(err, "lab t20st has no node '");
	assert_true(lab_state_has_ns(&s, "t20st-c1"));
	assert_false(lab_state_has_ns(&s, "t20st-c"));
	assert_false(lab_state_has_ns(&s, "other-a"));
	lab_state_line(SDIR, "rundir", line, sizeof(line));
	assert_string_equal(line, "/run/t20/run");
	lab_state_line(SDIR, "nothing", line, sizeof(line));
	assert_string_equal(line, "");
}

static void test_state_refused(void **state)
{
	static struct lab_state s;
	char err[512], *said;

	(void)state;
	SANDBOX_REQUIRE();
	assert_int_equal(lab_state_load(&s, "Bad", err, sizeof(err)), -1);
	assert_string_equal(err, "'Bad' is not a lab name (expected a name of 1 to 12 characters "
				 "from a-z, 0-9 and '-', starting with a letter or digit)");
	assert_int_equal(lab_state_load(&s, "t20none", err, sizeof(err)), -1);
	assert_string_equal(err, "no lab named 't20none' is up (steerlab status lists them)");
	/* a state nobody but root may write, or the load stops */
	assert_int_equal(chmod(LAB_STATE_DIR, 0777), 0);
	capture_begin();
	assert_int_equal(lab_state_load(&s, "t20st", err, sizeof(err)), -1);
	said = capture_end();
	assert_int_equal(chmod(LAB_STATE_DIR, 0711), 0);
	assert_string_equal(err, "the state of lab t20st is refused (above)");
	assert_string_equal(said, "steerlab: /run/steerlab: refused: expected a directory owned by "
				  "root and writable only by it, got a directory owned by uid 0, "
				  "mode 0777\n");
	free(said);
	/* a topology.ini of another lab */
	assert_int_equal(mkdir("/run/steerlab/t20other", 0700), 0);
	assert_int_equal(link(SDIR "/topology.ini", "/run/steerlab/t20other/topology.ini"), 0);
	assert_int_equal(lab_state_load(&s, "t20other", err, sizeof(err)), -1);
	assert_string_equal(err, "/run/steerlab/t20other/topology.ini: the lab is named 't20st', "
				 "not 't20other': refused");
	/* one that does not load: its first error */
	unlink("/run/steerlab/t20other/topology.ini");
	test_write_file("/run/steerlab/t20other", "topology.ini", "[lab]\nname = t20other\n");
	assert_int_equal(lab_state_load(&s, "t20other", err, sizeof(err)), -1);
	assert_string_equal(
	    err, "/run/steerlab/t20other/topology.ini: no [router] section: a lab needs at "
		 "least one router");
	unlink("/run/steerlab/t20other/topology.ini");
	rmdir("/run/steerlab/t20other");
}

/* status: text and JSON, every lab or one */
static char *status_of(int json, const char *only, int rc)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_int_equal(lab_status(out, json, only), rc);
	fclose(out);
	return text;
}

static void test_status(void **state)
{
	char want[512], *text, *said;
	json_t *doc, *lab, *dead;

	(void)state;
	SANDBOX_REQUIRE();
	/* a directory that is not a lab's is skipped, not listed */
	assert_int_equal(mkdir("/run/steerlab/Not-A-Lab", 0700), 0);
	text = status_of(0, NULL, 0);
	snprintf(want, sizeof(want),
		 "LAB            NAMESPACES  AGENTS      RUN DIRECTORY\n"
		 "t20st          1/4         2/3         /run/t20/run\n"
		 "  dead: prober of node a (pid %d)\n",
		 (int)gone_prober);
	assert_string_equal(text, want);
	free(text);
	rmdir("/run/steerlab/Not-A-Lab");

	text = status_of(1, "t20st", 0);
	doc = json_loads(text, 0, NULL);
	assert_non_null(doc);
	assert_int_equal(json_array_size(json_object_get(doc, "labs")), 1);
	lab = json_array_get(json_object_get(doc, "labs"), 0);
	assert_string_equal(json_string_value(json_object_get(lab, "lab")), "t20st");
	assert_string_equal(json_string_value(json_object_get(lab, "rundir")), "/run/t20/run");
	assert_int_equal(
	    json_integer_value(json_object_get(json_object_get(lab, "namespaces"), "present")), 1);
	assert_int_equal(
	    json_integer_value(json_object_get(json_object_get(lab, "namespaces"), "recorded")), 4);
	assert_int_equal(
	    json_integer_value(json_object_get(json_object_get(lab, "agents"), "alive")), 2);
	assert_int_equal(
	    json_integer_value(json_object_get(json_object_get(lab, "agents"), "recorded")), 3);
	dead = json_object_get(lab, "dead"); /* beside agents: docs/inside.md */
	assert_int_equal(json_array_size(dead), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(dead, 0), "node")),
			    "a");
	assert_string_equal(json_string_value(json_object_get(json_array_get(dead, 0), "agent")),
			    "prober");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(dead, 0), "pid")),
			 gone_prober);
	json_decref(doc);
	free(text);

	/* a lab that is not up, asked by name */
	capture_begin();
	text = status_of(0, "t20none", -1);
	said = capture_end();
	assert_string_equal(text, "");
	assert_string_equal(said, "steerlab: status: no lab named 't20none' is up\n");
	free(text);
	free(said);
	capture_begin();
	text = status_of(1, "t20none", -1);
	free(capture_end());
	assert_string_equal(text, "{\n  \"labs\": []\n}\n");
	free(text);
}

static void test_status_no_labs(void **state)
{
	char *text, *said;

	(void)state;
	SANDBOX_REQUIRE();
	teardown(NULL);
	text = status_of(0, NULL, 0);
	assert_string_equal(text, "no labs\n");
	free(text);
	/* no /run/steerlab at all */
	assert_int_equal(rmdir(LAB_STATE_DIR), 0);
	text = status_of(0, NULL, 0);
	assert_string_equal(text, "no labs\n");
	free(text);
	text = status_of(1, NULL, 0);
	assert_string_equal(text, "{\n  \"labs\": []\n}\n");
	free(text);
	/* one nobody but root may write is refused */
	assert_int_equal(mkdir(LAB_STATE_DIR, 0777), 0);
	assert_int_equal(chmod(LAB_STATE_DIR, 0777), 0);
	capture_begin();
	text = status_of(0, NULL, -1);
	said = capture_end();
	assert_string_equal(text, "");
	assert_string_equal(said, "steerlab: /run/steerlab: refused: expected a directory owned by "
				  "root and writable only by it, got a directory owned by uid 0, "
				  "mode 0777\n");
	free(text);
	free(said);
	assert_int_equal(chmod(LAB_STATE_DIR, 0711), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ns_valid),
	    cmocka_unit_test(test_agent_prog),
	    cmocka_unit_test(test_agent_line),
	    cmocka_unit_test_setup_teardown(test_state_load, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_state_refused, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_status, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_status_no_labs, setup, NULL),
	};

	SANDBOX_MAIN(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
