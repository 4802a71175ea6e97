/*
 * The run's decisions that need no lab (lab/run/run.c): when the warm-up is
 * over (run_ready, run_wait_ready), read from the agents' event files of a
 * recorded run (tests/unit/data/report/run) and of hand-made BGP labs:
 * captures ready, every site's route in every router, authd and resolverd
 * ready, BGP converged and quiet; what a run refuses before it makes
 * anything (run_preflight); where its directory goes; its seed. Run from
 * the repository root.
 */
#include <arpa/inet.h>
#include <ftw.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "lab/build/lab.h"
#include "lab/run/run.h"
#include "test_capture.h"
#include "test_file.h"
#include "test_rundir.h"
#include "timeutil.h"

#define RECORDED "tests/unit/data/report/run"

static struct topology *topo;
static char *dir;

static int setup(void **state)
{
	(void)state;
	topo = calloc(1, sizeof(*topo));
	assert_non_null(topo);
	dir = rundir_new("test_lab_run");
	assert_non_null(dir);
	return 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static int teardown(void **state)
{
	(void)state;
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
	free(topo);
	return 0;
}

/* load: the topology at path, without a message */
static void load(const char *path)
{
	char *errs;
	size_t len;
	FILE *err = open_memstream(&errs, &len);

	assert_non_null(err);
	if (topo_load(topo, path, NULL, 0, err) != 0) {
		fclose(err);
		fail_msg("%s: %s", path, errs);
	}
	fclose(err);
	assert_string_equal(errs, "");
	free(errs);
}

/* load_text: a topology from text (written in dir as topology.ini) */
static void load_text(const char *text)
{
	char path[512];

	test_write_file(dir, "topology.ini", text);
	snprintf(path, sizeof(path), "%s/topology.ini", dir);
	load(path);
}

/* append: a line to dir/name */
static void append(const char *name, const char *line)
{
	char path[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "a");
	assert_non_null(fp);
	fprintf(fp, "%s\n", line);
	assert_int_equal(fclose(fp), 0);
}

/* without: dir/name without its lines holding every one of the strings
 * a and b (b may be NULL); the file as it was, to put back */
static char *without(const char *name, const char *a, const char *b)
{
	char path[512], *was, *now, *p;
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	was = test_read_file(path);
	now = calloc(1, strlen(was) + 1);
	assert_non_null(now);
	for (p = was; *p;) {
		size_t len = strcspn(p, "\n") + (p[strcspn(p, "\n")] == '\n');
		char line[8192];

		snprintf(line, sizeof(line), "%.*s", (int)len, p);
		if (!(strstr(line, a) && (b == NULL || strstr(line, b)))) {
			memcpy(now + n, p, len);
			n += len;
		}
		p += len;
	}
	assert_true(n < strlen(was)); /* something was taken out */
	test_write_file(dir, name, now);
	free(now);
	return was;
}

static void put_back(const char *name, char *was)
{
	test_write_file(dir, name, was);
	free(was);
}

/* the recorded run of topology/compare.ini: one router, two sites, a dns
 * node, a resolver of four caches, two remote probers */
static void recorded(void)
{
	char path[512];

	assert_int_equal(rundir_copy(dir, RECORDED), 0);
	snprintf(path, sizeof(path), "%s/topology.ini", dir);
	load(path);
}

/* what the recorded run lacks to be ready (it predates the resolver's
 * capture and routed's events): once added, ready; without any one of the
 * events warm-up waits for, not */
static void test_ready_recorded(void **state)
{
	static const struct {
		const char *file, *a, *b;
	} needed[] = {
	    {"ns.authd.events.jsonl", "\"authd_ready\"", NULL},
	    {"r.resolverd.events.jsonl", "\"resolverd_ready\"", NULL},
	    {"core.collector.events.jsonl", "\"capture_ready\"", "\"label\":\"a\""},
	    {"core.collector.events.jsonl", "\"capture_ready\"", "\"label\":\"b\""},
	    {"core.collector-dns.events.jsonl", "\"capture_ready\"", "\"label\":\"dns-ns\""},
	    {"core.collector-dns.events.jsonl", "\"capture_ready\"", "\"label\":\"resolver-r\""},
	    {"core.routed.events.jsonl", "\"route_applied\"", "\"site\":\"a\""},
	    {"core.routed.events.jsonl", "\"route_applied\"", "\"site\":\"b\""},
	};

	(void)state;
	recorded();
	assert_int_equal(run_ready(topo, dir), 0);
	append("r.resolverd.events.jsonl", "{\"t\":1,\"node\":\"r\",\"agent\":\"resolverd\","
					   "\"event\":\"resolverd_ready\",\"caches\":4}");
	assert_int_equal(run_ready(topo, dir), 0);
	append("core.collector-dns.events.jsonl",
	       "{\"t\":1,\"node\":\"core\",\"agent\":\"collector\",\"event\":\"capture_ready\","
	       "\"label\":\"resolver-r\",\"iface\":\"r\"}");
	assert_int_equal(run_ready(topo, dir), 0);
	/* routed: a's route, then b's; a route of a site elsewhere counts not */
	append("core.routed.events.jsonl", "{\"t\":1,\"node\":\"core\",\"agent\":\"routed\","
					   "\"event\":\"route_applied\",\"site\":\"a\"}");
	append("core.routed.events.jsonl", "{\"t\":1,\"node\":\"core\",\"agent\":\"routed\","
					   "\"event\":\"route_withdrawn\",\"site\":\"b\"}");
	assert_int_equal(run_ready(topo, dir), 0);
	append("core.routed.events.jsonl", "{\"t\":1,\"node\":\"core\",\"agent\":\"routed\","
					   "\"event\":\"route_applied\",\"site\":\"b\"}");
	assert_int_equal(run_ready(topo, dir), 1);

	for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++) {
		char *was = without(needed[i].file, needed[i].a, needed[i].b);

		if (run_ready(topo, dir) != 0)
			fail_msg("ready without %s %s in %s", needed[i].a,
				 needed[i].b ? needed[i].b : "", needed[i].file);
		put_back(needed[i].file, was);
		assert_int_equal(run_ready(topo, dir), 1);
	}
}

/* run_count_events: the lines of one event (and key = value), a line that
 * is not JSON skipped, a missing file none */
static void test_count_events(void **state)
{
	char path[512];

	(void)state;
	append("x.events.jsonl", "{\"event\":\"capture_ready\",\"label\":\"a\"}");
	append("x.events.jsonl", "not json");
	append("x.events.jsonl", "{\"event\":\"capture_ready\",\"label\":\"b\"}");
	append("x.events.jsonl", "{\"event\":\"capture_ready\",\"label\":2}");
	append("x.events.jsonl", "{\"event\":\"route_added\",\"label\":\"a\"}");
	snprintf(path, sizeof(path), "%s/x.events.jsonl", dir);
	assert_int_equal(run_count_events(path, "capture_ready", NULL, NULL), 3);
	assert_int_equal(run_count_events(path, "capture_ready", "label", "a"), 1);
	assert_int_equal(run_count_events(path, "capture_ready", "label", "c"), 0);
	assert_int_equal(run_count_events(path, "route_added", NULL, NULL), 1);
	snprintf(path, sizeof(path), "%s/none.events.jsonl", dir);
	assert_int_equal(run_count_events(path, "capture_ready", NULL, NULL), 0);
}

/* BGP with one router and two sites: a (MED 10) is where BGP converges */
static const char bgp_lab[] = "[lab]\n"
			      "name = tb\n"
			      "routing = bgp\n"
			      "[router core]\n"
			      "[site a]\n"
			      "link = core\n"
			      "metric = 10\n"
			      "fail = yes\n"
			      "[site b]\n"
			      "link = core\n"
			      "metric = 20\n"
			      "[client c1]\n"
			      "link = core\n";

/* route: a line of core's collector: the service's route added via via
 * (NULL: deleted), ago_ns before now */
static void route(const char *router, const char *via, int64_t ago_ns)
{
	char line[512], name[64];

	if (via)
		snprintf(line, sizeof(line),
			 "{\"t\":%lld,\"event\":\"route_added\",\"prefix\":\"198.19.0.1/32\","
			 "\"via\":\"%s\"}",
			 (long long)(now_real_ns() - ago_ns), via);
	else
		snprintf(line, sizeof(line),
			 "{\"t\":%lld,\"event\":\"route_deleted\",\"prefix\":\"198.19.0.1/32\"}",
			 (long long)(now_real_ns() - ago_ns));
	snprintf(name, sizeof(name), "%s.collector.events.jsonl", router);
	append(name, line);
}

static void captures_and_addresses(const char *router, const char *const sites[], int n)
{
	char name[64], line[256];

	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%s.collector.events.jsonl", router);
		snprintf(line, sizeof(line), "{\"event\":\"capture_ready\",\"label\":\"%s\"}",
			 sites[i]);
		append(name, line);
		snprintf(name, sizeof(name), "%s.prober.events.jsonl", sites[i]);
		snprintf(line, sizeof(line), "{\"event\":\"address_added\",\"site\":\"%s\"}",
			 sites[i]);
		append(name, line);
	}
}

/* routing = bgp: ready once every site's prober has put the service on
 * its lo and the router's FIB routes it as BGP will (via a, the lower
 * MED), unchanged for half a second; the routed events do not count */
static void test_ready_bgp(void **state)
{
	static const char *const sites[] = {"a", "b"};
	char *was;

	(void)state;
	load_text(bgp_lab);
	captures_and_addresses("core", sites, 2);
	assert_int_equal(run_ready(topo, dir), 0); /* no route yet */
	route("core", "198.18.0.6", 2 * NSEC_PER_SEC);
	assert_int_equal(run_ready(topo, dir), 0); /* via b: BGP is not done */
	route("core", "198.18.0.2", 2 * NSEC_PER_SEC);
	assert_int_equal(run_ready(topo, dir), 1);

	/* a site whose prober has not put the service on lo */
	was = without("b.prober.events.jsonl", "address_added", NULL);
	assert_int_equal(run_ready(topo, dir), 0);
	put_back("b.prober.events.jsonl", was);
	/* the route gone again */
	route("core", NULL, NSEC_PER_SEC);
	assert_int_equal(run_ready(topo, dir), 0);
	/* back, but just now: BGP may still be moving */
	route("core", "198.18.0.2", 0);
	assert_int_equal(run_ready(topo, dir), 0);
}

/* an anycast name server (topology/dns-anycast.ini) under routing = bgp:
 * ready once its prober has put the anycast address on its lo and every
 * router's FIB routes that address; what is missing said in why */
static void test_anycast_ns_ready(void **state)
{
	char why[256] = "", line[256];

	(void)state;
	load_text("[lab]\nname = tn\nrouting = bgp\ndns_name = www.any.example\n"
		  "[router core]\n[site a]\nlink = core\n[site b]\nlink = core\n"
		  "[dns ns1]\nlink = core\nzones = any.example\nanycast = 198.19.53.1\n"
		  "[client c1]\nlink = core\nmode = dns\nresolver = ns1\n"
		  "[zone any.example]\nsoa = ns.any.example. h.any.example. 1 3600 600 86400 5\n"
		  "[name www.any.example]\npolicy = failover\nsites = a b\n");
	assert_int_equal(run_anycast_ns_ready(topo, dir, why, sizeof(why)), 0);
	assert_string_equal(why, "ns1 has not put its anycast address on lo");
	append("ns1.prober.events.jsonl", "{\"event\":\"address_added\",\"site\":\"ns1\"}");
	assert_int_equal(run_anycast_ns_ready(topo, dir, why, sizeof(why)), 0);
	assert_string_equal(why, "router core has no route to 198.19.53.1/32");
	snprintf(line, sizeof(line),
		 "{\"t\":%lld,\"event\":\"route_added\",\"prefix\":\"198.19.53.1/32\","
		 "\"via\":\"198.18.0.10\"}",
		 (long long)now_real_ns());
	append("core.collector.events.jsonl", line);
	assert_int_equal(run_anycast_ns_ready(topo, dir, why, sizeof(why)), 1);
}

/* two routers of one AS (iBGP), which bgpexpect does not model: each
 * router's route via its own site of the lowest metric, any route for a
 * router without a site of its own */
static void test_ready_ibgp(void **state)
{
	static const char *const core_sites[] = {"a", "b"};
	char *was;

	(void)state;
	load_text("[lab]\nname = ti\nrouting = bgp\n"
		  "[router core]\nasn = 65001\n[router edge]\nasn = 65001\n"
		  "[router far]\nasn = 65002\n"
		  "[link core edge]\n[link edge far]\n"
		  "[site a]\nlink = core\nmetric = 10\nfail = yes\n"
		  "[site b]\nlink = core\nmetric = 20\n"
		  "[client c1]\nlink = edge\n");
	captures_and_addresses("core", core_sites, 2);
	route("core", "198.18.0.6", 2 * NSEC_PER_SEC); /* via b */
	route("edge", "198.18.32.1", 2 * NSEC_PER_SEC);
	route("far", "198.18.32.5", 2 * NSEC_PER_SEC);
	assert_int_equal(run_ready(topo, dir), 0);
	route("core", "198.18.0.2", 2 * NSEC_PER_SEC); /* via a */
	assert_int_equal(run_ready(topo, dir), 1);
	/* every router must have a route, not only those with sites */
	was = without("far.collector.events.jsonl", "route_added", NULL);
	assert_int_equal(run_ready(topo, dir), 0);
	put_back("far.collector.events.jsonl", was);
	assert_int_equal(run_ready(topo, dir), 1);
}

/* the warm-up: over at once when ready; an agent ended, the run
 * interrupted or settle passed, each said */
static void test_wait_ready(void **state)
{
	static struct lab lab;
	struct capture c;
	char want[1024];
	int rc;

	(void)state;
	recorded();
	memset(&lab, 0, sizeof(lab));
	lab.t = topo;
	lab.lockfd = -1;
	for (int i = 0; i < TOPO_MAX_NODES; i++)
		lab.nsfd[i] = -1;
	snprintf(lab.rundir, sizeof(lab.rundir), "%s", dir);

	/* not ready (no resolverd_ready), settle 0: said at once */
	topo->settle_ns = 0;
	capture_start(&c);
	rc = run_wait_ready(&lab);
	capture_end(&c);
	assert_int_equal(rc, -1);
	snprintf(want, sizeof(want),
		 "steerlab: the lab was not ready within 0.0 s (settle): resolverd on r is not "
		 "ready; see the *.log files in %s, or raise settle\n",
		 dir);
	assert_string_equal(c.err, want);
	assert_string_equal(c.out, "");
	capture_free(&c);

	/* interrupted: no wait for settle, nothing said (the run says it) */
	topo->settle_ns = 60 * NSEC_PER_SEC;
	run_interrupted = 1;
	capture_start(&c);
	rc = run_wait_ready(&lab);
	capture_end(&c);
	run_interrupted = 0;
	assert_int_equal(rc, -1);
	assert_string_equal(c.err, "");
	capture_free(&c);

	/* an agent ended */
	lab.unexpected = 1;
	capture_start(&c);
	rc = run_wait_ready(&lab);
	capture_end(&c);
	lab.unexpected = 0;
	assert_int_equal(rc, -1);
	assert_string_equal(c.err,
			    "steerlab: the lab is not ready: an agent ended during the warm-up "
			    "(above)\n");
	capture_free(&c);

	/* ready */
	append("r.resolverd.events.jsonl", "{\"event\":\"resolverd_ready\"}");
	append("core.collector-dns.events.jsonl",
	       "{\"event\":\"capture_ready\",\"label\":\"resolver-r\"}");
	append("core.routed.events.jsonl", "{\"event\":\"route_applied\",\"site\":\"a\"}");
	append("core.routed.events.jsonl", "{\"event\":\"route_applied\",\"site\":\"b\"}");
	capture_start(&c);
	rc = run_wait_ready(&lab);
	capture_end(&c);
	assert_int_equal(rc, 0);
	assert_string_equal(c.err, "");
	capture_free(&c);
}

/* routing = bgp not converged within settle: said as such */
static void test_wait_ready_bgp(void **state)
{
	static const char *const sites[] = {"a", "b"};
	static struct lab lab;
	struct capture c;
	char want[1024];
	int rc;

	(void)state;
	load_text(bgp_lab);
	captures_and_addresses("core", sites, 2);
	route("core", "198.18.0.6", 2 * NSEC_PER_SEC);
	memset(&lab, 0, sizeof(lab));
	lab.t = topo;
	snprintf(lab.rundir, sizeof(lab.rundir), "%s", dir);
	topo->settle_ns = 0;
	capture_start(&c);
	rc = run_wait_ready(&lab);
	capture_end(&c);
	assert_int_equal(rc, -1);
	snprintf(want, sizeof(want),
		 "steerlab: BGP had not converged within 0.0 s (settle): the router's FIB has no "
		 "route to the service via the preferred site; see the *.bgpd.log files in %s, "
		 "or raise settle\n",
		 dir);
	assert_string_equal(c.err, want);
	capture_free(&c);
}

/* what run refuses before it makes anything, each said: no site fails,
 * an agent program missing, a run directory refused */
static void test_preflight(void **state)
{
	struct capture c;
	char want[4096], bindir[512], out[512], *d;
	int rc;

	(void)state;
	load_text("[lab]\nname = tpf\n[router core]\n[site a]\nlink = core\n"
		  "[site b]\nlink = core\n[client c1]\nlink = core\n"
		  "[dns ns]\nlink = core\n[resolver r]\nlink = core\n"
		  "[zone lab.example]\nttl = 60\n");
	snprintf(bindir, sizeof(bindir), "%s/bin", dir);
	assert_int_equal(mkdir(bindir, 0755), 0);
	snprintf(out, sizeof(out), "%s/topology.ini", dir); /* a file */
	capture_start(&c);
	rc = run_preflight(topo, bindir, out, 1);
	capture_end(&c);
	assert_int_equal(rc, -1);
	d = dir;
	snprintf(want, sizeof(want),
		 "steerlab: run: agent program %s/bin/routed (make builds it): No such file or "
		 "directory\n"
		 "steerlab: run: agent program %s/bin/collector (make builds it): No such file "
		 "or directory\n"
		 "steerlab: run: agent program %s/bin/sited (make builds it): No such file or "
		 "directory\n"
		 "steerlab: run: agent program %s/bin/prober (make builds it): No such file or "
		 "directory\n"
		 "steerlab: run: agent program %s/bin/client (make builds it): No such file or "
		 "directory\n"
		 "steerlab: run: agent program %s/bin/authd (make builds it): No such file or "
		 "directory\n"
		 "steerlab: run: agent program %s/bin/resolverd (make builds it): No such file or "
		 "directory\n"
		 "steerlab: run: %s/topology.ini exists and is not a directory: choose another "
		 "--out\n",
		 d, d, d, d, d, d, d, d);
	assert_string_equal(c.err, want);
	assert_int_equal(run_failing_site(topo), -1);
	capture_free(&c);

	/* run_scenario refuses the same before it makes anything: no run
	 * directory, no lab */
	struct run_opts o = {.rundir = out, .bindir = bindir, .quiet = 1};
	snprintf(out, sizeof(out), "%s/run", dir);
	capture_start(&c);
	rc = run_scenario(topo, &o);
	capture_end(&c);
	assert_int_equal(rc, -1);
	assert_int_equal(access(out, F_OK), -1);
	/* no site fails: a steady-state run, not refused for that */
	assert_null(strstr(c.err, "no event takes a site out"));
	assert_non_null(strstr(c.err, "steerlab: run: agent program "));
	capture_free(&c);
}

/* every program there: only what the lab itself refuses is left */
static void test_preflight_programs(void **state)
{
	static const char *const progs[] = {"routed", "collector", "sited", "prober", "client"};
	struct capture c;
	char bindir[256], path[256];
	int rc;

	(void)state;
	load_text("[lab]\nname = tpf2\n[router core]\n[site a]\nlink = core\nfail = yes\n"
		  "[client c1]\nlink = core\n");
	snprintf(bindir, sizeof(bindir), "%s/bin", dir);
	assert_int_equal(mkdir(bindir, 0755), 0);
	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		snprintf(path, sizeof(path), "bin/%s", progs[i]);
		test_write_file(dir, path, "#!/bin/sh\n");
		snprintf(path, sizeof(path), "%s/bin/%s", dir, progs[i]);
		assert_int_equal(chmod(path, 0755), 0);
	}
	assert_int_equal(run_failing_site(topo), topo_find(topo, "a"));
	capture_start(&c);
	rc = run_preflight_lab("up", topo, bindir);
	capture_end(&c);
	assert_int_equal(rc, 0);
	assert_string_equal(c.err, "");
	capture_free(&c);
	/* not executable (by anyone: root too), refused by the command that
	 * would start it */
	snprintf(path, sizeof(path), "%s/bin/client", dir);
	assert_int_equal(chmod(path, 0644), 0);
	capture_start(&c);
	rc = run_preflight_lab("up", topo, bindir);
	capture_end(&c);
	assert_int_equal(rc, -1);
	snprintf(path, sizeof(path),
		 "steerlab: up: agent program %s/bin/client (make builds it): Permission denied\n",
		 dir);
	assert_string_equal(c.err, path);
	capture_free(&c);
}

/* where runs go: STEERLAB_RUNS if set and not empty, else runs/;
 * RUNS/LAB-YYYYmmdd-HHMMSS */
static void test_runs_dir(void **state)
{
	char buf[512];
	regex_t re;

	(void)state;
	unsetenv(RUN_RUNS_ENV);
	assert_string_equal(run_runs_dir(), "runs");
	setenv(RUN_RUNS_ENV, "", 1);
	assert_string_equal(run_runs_dir(), "runs");
	setenv(RUN_RUNS_ENV, "/tmp/elsewhere", 1);
	assert_string_equal(run_runs_dir(), "/tmp/elsewhere");
	run_default_dir(buf, sizeof(buf), "compare");
	assert_int_equal(
	    regcomp(&re, "^/tmp/elsewhere/compare-20[0-9]{6}-[0-9]{6}$", REG_EXTENDED | REG_NOSUB),
	    0);
	if (regexec(&re, buf, 0, NULL, 0) != 0)
		fail_msg("run directory %s", buf);
	regfree(&re);
	unsetenv(RUN_RUNS_ENV);
}

/* the seed: kept if given, drawn if random (-1) */
static void test_seed(void **state)
{
	(void)state;
	topo->seed = 42;
	assert_int_equal(run_seed(topo), 0);
	assert_int_equal(topo->seed, 42);
	topo->seed = -1;
	assert_int_equal(run_seed(topo), 0);
	assert_true(topo->seed >= 0 && topo->seed <= (int64_t)UINT32_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_ready_recorded, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_count_events, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_ready_bgp, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_ready_ibgp, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_anycast_ns_ready, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_wait_ready, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_wait_ready_bgp, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_preflight, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_preflight_programs, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_runs_dir, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_seed, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
