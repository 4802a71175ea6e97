/*
 * The links' impairments in a lab (lab/build/linkimpair.c), in the sandbox
 * of tests/unit/test_sandbox.h: the mechanism this kernel gets (no
 * sch_netem: the delay line, the kernel's refusal said as why), and what it
 * refuses (duplicate) at its [link]'s line; then lab_impair_apply with a
 * fake linkd (this program, which says linkd_ready as the real one does):
 * one linkd per namespace with impaired egress interfaces, each with its
 * interfaces and keys on its command line, the event impairments with every
 * client's paths, and a linkd that never gets ready said after settle.
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
#include "impair.h"
#include "lab/build/lab.h"
#include "lab/topology/topology.h"
#include "test_sandbox.h"
#include "test_topology_util.h"

#define INI "tests/unit/data/lab/impair.ini"
#define DUP_INI "tests/unit/data/lab/impair-dup.ini"
#define BIN "/run/t20/bin"
#define STATE "/run/steerlab/t20imp"
/* the fake linkd's: leave out linkd_ready */
#define MUTE_ENV "STEERLAB_TEST_LINKD_MUTE"

static const char no_netem[] =
    "lo: the kernel has no sch_netem (netem qdisc: Object not found); impairments need the "
    "delay line (linkd) on this kernel";

/* REQUIRE_ROOT: the machine's root, which impair_detect's probe and the
 * namespaces' fds of a lab take; else skipped, saying so */
#define REQUIRE_ROOT()                                                                             \
	do {                                                                                       \
		SANDBOX_REQUIRE();                                                                 \
		if (!sandbox_root) {                                                               \
			print_message(                                                             \
			    "skipped: needs root (the netem probe, a lab's namespaces)\n");        \
			skip();                                                                    \
		}                                                                                  \
	} while (0)

/* kernel_netem: whether this kernel takes a netem qdisc, asked of
 * iproute2's tc in a namespace of its own, not of the code under test */
static int kernel_netem(void)
{
	return system("unshare -n sh -c 'tc qdisc add dev lo root netem delay 1ms' "
		      ">/dev/null 2>&1") == 0;
}

static struct topology *topo;
static struct lab lab;
static char run[64];

static const char *fake_events; /* the fake linkd's -e file */

/* fake_linkd_hup: linkd_impaired into the events, as linkd once it has
 * read its -c file again on SIGHUP */
static void fake_linkd_hup(int sig)
{
	static const char line[] = "{\"event\": \"linkd_impaired\"}\n";
	int fd = open(fake_events, O_WRONLY | O_APPEND);

	(void)sig;
	if (fd == -1 || write(fd, line, sizeof(line) - 1) != (ssize_t)sizeof(line) - 1)
		_exit(5);
	close(fd);
}

/* fake_linkd_ready: linkd_ready into the file after -e, as linkd once its
 * table is in place; after the sandbox's block (argv_of reads it once the
 * lab saw linkd ready) */
static void fake_linkd_ready(int argc, char **argv)
{
	for (int i = 1; i + 1 < argc && !getenv(MUTE_ENV); i++) {
		FILE *fp;

		if (strcmp(argv[i], "-e") != 0)
			continue;
		fake_events = argv[i + 1];
		signal(SIGHUP, fake_linkd_hup);
		if ((fp = fopen(argv[i + 1], "a")) == NULL ||
		    fputs("{\"event\": \"linkd_ready\"}\n", fp) == EOF || fclose(fp) == EOF)
			_exit(4);
	}
}

/* fake_linkd: the sandbox's fake agent, which says linkd_ready */
static int fake_linkd(int argc, char **argv)
{
	sandbox_agent_then = fake_linkd_ready;
	return sandbox_agent_main(argc, argv);
}

/* lab_of: a lab of impair.ini (with sets), a fake linkd in its bindir,
 * every node's namespace the test's own */
static void lab_of(const char *ini, char *const sets[], int nsets)
{
	static int seq;

	topo = new_topology();
	load_ok(topo, ini, sets, nsets);
	snprintf(run, sizeof(run), "/run/t20/run%d", ++seq);
	assert_true(mkdir("/run/t20", 0755) == 0 || errno == EEXIST);
	assert_int_equal(sandbox_bindir(BIN), 0);
	assert_int_equal(sandbox_copy("/proc/self/exe", BIN "/linkd"), 0);
	assert_int_equal(lab_init(&lab, topo, run, BIN), 0);
	assert_true(mkdir(LAB_STATE_DIR, 0711) == 0 || errno == EEXIST);
	assert_int_equal(mkdir(lab.statedir, 0700), 0);
	for (int i = 0; i < topo->nnodes; i++)
		lab.nsfd[i] = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	setenv(SANDBOX_STATEDIR_ENV, STATE, 1);
}

/* lab_done: the lab down (every linkd stopped, the state gone) */
static void lab_done(void)
{
	assert_int_equal(lab_down(&lab), 0);
	assert_int_equal(access(lab.statedir, F_OK), -1);
}

/* teardown: what a test left, also a failed one's */
static int teardown(void **state)
{
	(void)state;
	if (topo == NULL)
		return 0;
	if (lab.t == topo) {
		if (access(lab.statedir, F_OK) == 0)
			lab_down(&lab);
		for (int i = 0; i < topo->nnodes; i++)
			if (lab.nsfd[i] >= 0)
				close(lab.nsfd[i]);
		event_close(lab.ev);
		memset(&lab, 0, sizeof(lab));
	}
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	free(topo);
	topo = NULL;
	unsetenv(MUTE_ENV);
	return 0;
}

/* argv_of: the command line NODE's linkd was started with (its log's) */
static char *argv_of(const char *node)
{
	char path[PATH_MAX], *text, *at, *end;

	snprintf(path, sizeof(path), "%s/%s.linkd.log", run, node);
	if ((text = sandbox_read(path)) == NULL)
		return NULL;
	assert_non_null(at = strstr(text, "argv: "));
	at += strlen("argv: ");
	if ((end = strchr(at, '\n')) != NULL)
		*end = '\0';
	memmove(text, at, strlen(at) + 1);
	return text;
}

static void assert_argv(const char *node, const char *want)
{
	char *got = argv_of(node);

	if (got == NULL)
		fail_msg("%s: no linkd log in %s", node, run);
	assert_string_equal(got, want);
	free(got);
}

static void test_mech(void **state)
{
	char why[256], *err;
	enum impair_mech mech = IMPAIR_MECH_NETEM;

	(void)state;
	REQUIRE_ROOT();
	assert_string_equal(lab_impair_mech_text(IMPAIR_MECH_NETEM), "netem");
	assert_string_equal(lab_impair_mech_text(IMPAIR_MECH_DELAYLINE), "delayline (linkd)");

	topo = new_topology();
	load_ok(topo, INI, NULL, 0);
	capture_begin();
	assert_int_equal(lab_impair_mech(topo, &mech, why, sizeof(why), stderr), 0);
	err = capture_end();
	assert_string_equal(err, "");
	free(err);
	if (kernel_netem()) {
		assert_int_equal(mech, IMPAIR_MECH_NETEM);
	} else {
		assert_int_equal(mech, IMPAIR_MECH_DELAYLINE);
		assert_string_equal(why, no_netem);
	}
	free(topo);
	/* the delay line from here on, on any kernel */
	lab_impair_mech_pin(IMPAIR_MECH_DELAYLINE, no_netem);

	/* the delay line cannot duplicate: said at the [link]'s line */
	topo = new_topology();
	load_ok(topo, DUP_INI, NULL, 0);
	capture_begin();
	assert_int_equal(lab_impair_mech(topo, &mech, why, sizeof(why), stderr), -1);
	err = capture_end();
	free(topo);
	topo = NULL;
	assert_string_equal(err, DUP_INI
			    ":13: c1>core: duplicate: the delay line (linkd) cannot "
			    "duplicate packets; only netem can (mechanism: delayline (linkd))\n");
	free(err);
}

static void test_apply(void **state)
{
	char path[PATH_MAX];
	json_t *ev, *e, *paths;

	(void)state;
	REQUIRE_ROOT();
	lab_impair_mech_pin(IMPAIR_MECH_DELAYLINE, no_netem);
	lab_of(INI, NULL, 0);
	assert_int_equal(lab_impair_apply(&lab), 0);
	/* one linkd for each namespace with an impaired egress: c1 (towards
	 * core) and core (towards c1 and a); none for a, b (nothing leaves
	 * them impaired) */
	assert_argv("c1", "linkd -n c1 -e /run/t20/run1/c1.linkd.events.jsonl -p 50 -c "
			  "/run/t20/run1/c1.impair -s 4 "
			  "-i eth0 -d 15ms -j 1ms normal");
	assert_argv("core", "linkd -n core -e /run/t20/run1/core.linkd.events.jsonl -p 50 -c "
			    "/run/t20/run1/core.impair -s 1 "
			    "-i a -r 100mbit -i c1 -d 15ms -j 1ms normal -l 1%");
	assert_null(argv_of("a"));
	assert_null(argv_of("b"));
	snprintf(path, sizeof(path), "%s/lab.events.jsonl", run);
	ev = sandbox_events(path, "impairments");
	assert_int_equal(json_array_size(ev), 1);
	e = json_array_get(ev, 0);
	assert_string_equal(json_string_value(json_object_get(e, "mechanism")), "delayline");
	assert_string_equal(json_string_value(json_object_get(e, "why")), no_netem);
	/* c1's path to each site: 15 ms each way, 1 % lost on the way back */
	paths = json_object_get(e, "paths");
	assert_int_equal(json_array_size(paths), 2);
	for (size_t i = 0; i < 2; i++) {
		const char *client, *site;
		json_int_t rtt;
		double loss;

		assert_int_equal(json_unpack(json_array_get(paths, i), "{s:s, s:s, s:I, s:F}",
					     "client", &client, "site", &site, "rtt_ns", &rtt,
					     "loss_pct", &loss),
				 0);
		assert_string_equal(client, "c1");
		assert_string_equal(site, i == 0 ? "a" : "b");
		assert_int_equal(rtt, 30000000);
		assert_float_equal(loss, 1.0, 1e-9);
	}
	json_decref(ev);
	lab_done();
}

static void test_not_ready(void **state)
{
	char *const sets[] = {"settle=200ms"};
	char *err;

	(void)state;
	REQUIRE_ROOT();
	lab_impair_mech_pin(IMPAIR_MECH_DELAYLINE, no_netem);
	setenv(MUTE_ENV, "1", 1);
	lab_of(INI, sets, 1);
	capture_begin();
	assert_int_equal(lab_impair_apply(&lab), -1);
	err = capture_end();
	assert_string_equal(err,
			    "steerlab: impairments: 2 linkd not ready (linkd_ready) within 0.2 s "
			    "(settle); see NODE.linkd.log in /run/t20/run2\n");
	free(err);
	lab_done();
}

static void test_unimpaired(void **state)
{
	(void)state;
	SANDBOX_REQUIRE();
	lab_of("tests/unit/data/lab/supervise.ini", NULL, 0);
	/* nothing impaired: nothing detected, started, or said */
	assert_int_equal(lab_impair_apply(&lab), 0);
	assert_null(argv_of("c1"));
	lab_done();
}

/* lab_impair_change on the delay line: each direction's file of values in
 * force rewritten (its lines replaced, not added to), its linkd told
 * (SIGHUP) and heard (linkd_impaired), one link_impaired per direction;
 * and a direction no linkd delays refused before anything changes */
static void test_change(void **state)
{
	char *kv[] = {"delay=40ms", "c1>core.loss=2%"}, *kv_a[] = {"delay=5ms"};
	char path[PATH_MAX], said[512], err[256], *text;
	struct impair chg[2];
	unsigned set[2];
	int link, rlink;
	json_t *ev;

	(void)state;
	REQUIRE_ROOT();
	lab_impair_mech_pin(IMPAIR_MECH_DELAYLINE, no_netem);
	lab_of(INI, NULL, 0);
	assert_int_equal(lab_impair_apply(&lab), 0);
	assert_int_equal(
	    topo_impair_args(topo, "c1", "core", 2, kv, &link, &rlink, chg, set, err, sizeof(err)),
	    0);
	assert_int_equal(lab_impair_change(&lab, IMPAIR_MECH_DELAYLINE, link, rlink, chg, set,
					   "slow", "steerlab impair", said, sizeof(said)),
			 0);
	snprintf(path, sizeof(path), "%s/c1.impair", run);
	assert_non_null(text = sandbox_read(path));
	assert_string_equal(text, "eth0 delay 40ms\neth0 jitter 1ms normal\neth0 loss 2%\n");
	free(text);
	/* core's: c1's (its loss kept: only c1>core's changed) */
	snprintf(path, sizeof(path), "%s/core.impair", run);
	assert_non_null(text = sandbox_read(path));
	assert_string_equal(text, "c1 delay 40ms\nc1 jitter 1ms normal\nc1 loss 1%\n");
	free(text);
	/* a second change of core>c1 rewrites its lines, not adds to them */
	assert_int_equal(lab_impair_change(&lab, IMPAIR_MECH_DELAYLINE, link, rlink, chg, set,
					   "slow", "steerlab impair", said, sizeof(said)),
			 0);
	assert_non_null(text = sandbox_read(path));
	assert_string_equal(text, "c1 delay 40ms\nc1 jitter 1ms normal\nc1 loss 1%\n");
	free(text);
	snprintf(path, sizeof(path), "%s/lab.events.jsonl", run);
	ev = sandbox_events(path, "link_impaired");
	assert_int_equal(json_array_size(ev), 4);
	assert_string_equal(json_string_value(json_object_get(json_array_get(ev, 0), "impairment")),
			    "delay 40ms jitter 1ms normal loss 2%");
	assert_string_equal(json_string_value(json_object_get(json_array_get(ev, 1), "from")),
			    "core");
	json_decref(ev);

	/* a>core: delayed by nothing at bring-up */
	assert_int_equal(
	    topo_impair_args(topo, "a", "core", 1, kv_a, &link, &rlink, chg, set, err, sizeof(err)),
	    0);
	assert_int_equal(lab_impair_change(&lab, IMPAIR_MECH_DELAYLINE, link, rlink, chg, set,
					   "fast", "steerlab impair", said, sizeof(said)),
			 -1);
	assert_string_equal(said, "a>core: no linkd delays eth0 of a: the delay line (this kernel "
				  "has no sch_netem) changes only the directions impaired at "
				  "bring-up; expected the topology to impair it ([link a core] "
				  "a>core.delay = 1us, say)");
	lab_done();
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_mech, teardown),
	    cmocka_unit_test_teardown(test_apply, teardown),
	    cmocka_unit_test_teardown(test_not_ready, teardown),
	    cmocka_unit_test_teardown(test_unimpaired, teardown),
	    cmocka_unit_test_teardown(test_change, teardown),
	};

	if (getenv(SANDBOX_AGENT_ENV) && strcmp(argv[0], "linkd") == 0)
		return fake_linkd(argc, argv);
	SANDBOX_MAIN(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
