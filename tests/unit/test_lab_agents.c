/*
 * Which agents each node runs and the command line each gets (lab/build/agents.c),
 * as the agents themselves see it: the lab starts fake agents
 * (tests/unit/test_sandbox.h) that write their argv to their logs, and the
 * lines, in the order the agents were started, are compared with a golden
 * file (tests/unit/data/lab/agents*.golden; UPDATE_GOLDEN=1 writes FILE.new). The
 * configurations authd and resolverd are pointed at are dnsconf's and
 * resolvconf's; a node started again (recover) gets the same lines; an
 * agent that cannot start stops the bring-up there.
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
#include "lab/build/dnsconf.h"
#include "lab/build/lab.h"
#include "lab/build/resolvconf.h"
#include "lab/topology/topology.h"
#include "test_sandbox.h"
#include "test_topology_util.h"
#include "timeutil.h"

#define LDATA "tests/unit/data/lab/"
#define BIN "/run/t20/bin"

static struct topology *topo;
static struct lab lab;
static char run[64];

/* up: a lab of the topology in ini with an empty state directory, every
 * node's namespace the test's own, nothing started */
static void up(const char *ini)
{
	char statedir[PATH_MAX];

	topo = new_topology();
	load_ok(topo, ini, NULL, 0);
	snprintf(run, sizeof(run), "/run/t20/run-%s", topo->name);
	assert_true(mkdir("/run/t20", 0755) == 0 || errno == EEXIST);
	assert_int_equal(sandbox_bindir(BIN), 0);
	assert_int_equal(lab_init(&lab, topo, run, BIN), 0);
	assert_true(mkdir(LAB_STATE_DIR, 0711) == 0 || errno == EEXIST);
	lab_statedir(statedir, sizeof(statedir), topo->name);
	assert_int_equal(mkdir(statedir, 0700), 0);
	for (int i = 0; i < topo->nnodes; i++)
		lab.nsfd[i] = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	setenv(SANDBOX_STATEDIR_ENV, lab.statedir, 1);
}

static void down(void)
{
	assert_int_equal(lab_down(&lab), 0);
	event_close(lab.ev);
	free(topo);
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
}

/* argv_of: the argv agent i wrote to its log (malloc'd), waiting for it */
static char *argv_of(int i)
{
	const struct lab_agent *a = &lab.agents[i];
	char path[PATH_MAX], *text, *line, *end;

	snprintf(path, sizeof(path), "%s/%s.%s.log", run, topo->nodes[a->node].name, a->name);
	if (sandbox_wait_file(path, "argv:") == -1)
		fail_msg("%s: no argv line within 10 s", path);
	text = sandbox_read(path);
	assert_non_null(text);
	line = strstr(text, "argv: ");
	assert_non_null(line);
	line += 6;
	end = strchr(line, '\n');
	assert_non_null(end);
	*end = '\0';
	line = strdup(line);
	free(text);
	return line;
}

/* command_lines: "NODE LABEL: ARGV" of agents [from, to), one a line */
static char *command_lines(int from, int to)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	for (int i = from; i < to; i++) {
		char *argv = argv_of(i);
		fprintf(out, "%s %s: %s\n", topo->nodes[lab.agents[i].node].name,
			lab.agents[i].name, argv);
		free(argv);
	}
	fclose(out);
	return text;
}

/* the configuration the lab wrote for node n is what conf writes */
static void assert_conf(const char *file, int (*conf)(const struct topology *, int, FILE *), int n)
{
	char path[PATH_MAX], *want = NULL, *got;
	size_t len = 0;
	FILE *out = open_memstream(&want, &len);

	assert_non_null(out);
	assert_int_equal(conf(topo, n, out), 0);
	fclose(out);
	snprintf(path, sizeof(path), "%s/%s", run, file);
	got = sandbox_read(path);
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
	free(want);
}

static void test_command_lines(void **state)
{
	char *text;
	int n;

	(void)state;
	SANDBOX_REQUIRE();
	up(LDATA "agents.ini");
	assert_int_equal(lab_start_infra(&lab), 0);
	n = lab.nagents;
	assert_int_equal(lab_start_clients(&lab, 5 * NSEC_PER_SEC, 123456789), 0);
	text = command_lines(0, lab.nagents);
	test_assert_golden(LDATA "agents.golden", text);
	free(text);
	/* authd first (the probers report to it from their first probe),
	 * then resolverd (it asks authd), then the routers' */
	assert_string_equal(lab.agents[0].name, "authd");
	assert_string_equal(lab.agents[1].name, "resolverd");
	assert_string_equal(lab.agents[2].name, "collector");
	/* the clients after everything else */
	for (int i = n; i < lab.nagents; i++)
		assert_true(strncmp(lab.agents[i].name, "client", 6) == 0);
	assert_conf("ns.authd.ini", dnsconf_write, topo_find(topo, "ns"));
	assert_conf("r.resolverd.ini", resolvconf_write, topo_find(topo, "r"));
	down();
}

static void test_small_lab(void **state)
{
	char *text;

	(void)state;
	SANDBOX_REQUIRE();
	up(LDATA "agents-small.ini");
	assert_int_equal(lab_start_infra(&lab), 0);
	assert_int_equal(lab_start_clients(&lab, 0, 0), 0);
	text = command_lines(0, lab.nagents);
	test_assert_golden(LDATA "agents-small.golden", text);
	free(text);
	down();
}

/* populations of IPv6 clients in a dual lab: every cache asked at its IPv6
 * address, the anycast flow to the service's IPv6 address (and a dual
 * one's IPv4 one beside it), -F said */
static void test_dual_populations(void **state)
{
	char *text;

	(void)state;
	SANDBOX_REQUIRE();
	up(LDATA "agents-dualpop.ini");
	assert_int_equal(lab_start_infra(&lab), 0);
	assert_int_equal(lab_start_clients(&lab, 0, 0), 0);
	text = command_lines(0, lab.nagents);
	test_assert_golden(LDATA "agents-dualpop.golden", text);
	assert_non_null(strstr(text, "-R 2001:2:0:8000::1 -R 2001:2:0:8000::2 -q www.lab.example"));
	free(text);
	down();
}

/* routing = static in a lab of ip = 6: routed and the probers over IPv6
 * alone, of the service's IPv6 address */
static void test_ip6_static(void **state)
{
	char *text;

	(void)state;
	SANDBOX_REQUIRE();
	up(LDATA "agents-ip6static.ini");
	assert_int_equal(lab_start_infra(&lab), 0);
	assert_int_equal(lab_start_clients(&lab, 0, 0), 0);
	text = command_lines(0, lab.nagents);
	test_assert_golden(LDATA "agents-ip6static.golden", text);
	assert_non_null(strstr(text, "-l [::]:7179 -P 2001:2:0:ff00::1/128 -a a=2001:2::2"));
	assert_null(strstr(text, "198.19.0.1"));
	free(text);
	down();
}

/* node_lines: the lines of golden for node's agents but its clients */
static char *node_lines(const char *golden, const char *node)
{
	char *text = NULL, prefix[32];
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	snprintf(prefix, sizeof(prefix), "%s ", node);
	for (const char *line = golden; *line;) {
		size_t n = strcspn(line, "\n");
		if (strncmp(line, prefix, strlen(prefix)) == 0 &&
		    strncmp(line + strlen(prefix), "client", 6) != 0)
			fprintf(out, "%.*s\n", (int)n, line);
		line += n + (line[n] == '\n');
	}
	fclose(out);
	return text;
}

/* a node started again (recover, a crashed node) gets what up gave it */
static void test_start_again(void **state)
{
	static const char *const nodes[] = {"r2", "a", "ns", "p1", "r", "c1"};
	char *golden, *got, *want;
	int n;

	(void)state;
	SANDBOX_REQUIRE();
	golden = test_read_file(LDATA "agents.golden");
	up(LDATA "agents.ini");
	for (size_t k = 0; k < sizeof(nodes) / sizeof(nodes[0]); k++) {
		int first = lab.nagents;

		assert_int_equal(lab_start_node(&lab, topo_find(topo, nodes[k])), 0);
		got = command_lines(first, lab.nagents);
		want = node_lines(golden, nodes[k]);
		assert_string_equal(got, want);
		/* a client node's agents are the clients': none here */
		if (strcmp(nodes[k], "c1") == 0)
			assert_string_equal(got, "");
		free(got);
		free(want);
	}
	/* sited alone, as recover starts it */
	n = lab_start_sited(&lab, topo_find(topo, "b"));
	assert_int_equal(n, lab.nagents - 1);
	got = command_lines(n, lab.nagents);
	want = node_lines(golden, "b");
	want[strcspn(want, "\n") + 1] = '\0';
	assert_string_equal(got, want);
	free(got);
	free(want);
	free(golden);
	down();
}

static void test_start_fails(void **state)
{
	char *err;

	(void)state;
	SANDBOX_REQUIRE();
	up(LDATA "agents-small.ini");
	assert_int_equal(rename(BIN "/sited", BIN "/sited.away"), 0);
	capture_begin();
	assert_int_equal(lab_start_infra(&lab), -1);
	err = capture_end();
	assert_int_equal(rename(BIN "/sited.away", BIN "/sited"), 0);
	assert_string_equal(err, "steerlab: agent sited of node a: " BIN
				 "/sited: No such file or directory\n");
	free(err);
	/* authd and the router's agents were started; nothing after sited */
	assert_int_equal(lab.nagents, 4);
	assert_string_equal(lab.agents[3].name, "routed");
	down();
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_command_lines),    cmocka_unit_test(test_small_lab),
	    cmocka_unit_test(test_dual_populations), cmocka_unit_test(test_start_again),
	    cmocka_unit_test(test_start_fails),	     cmocka_unit_test(test_ip6_static),
	};

	SANDBOX_MAIN(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
