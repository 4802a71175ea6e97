/*
 * A sweep's and a repeat's directory as sweep_run keeps it (lab/run/sweep.c,
 * lab/run/repeat.c): its args file, made once and checked on every rerun; the
 * points that are done (clocks.json, traffic not interrupted) skipped, an
 * unfinished one removed and run again; a point that fails counted; the
 * tables and plots once every point is done; a repeat resumed with the
 * seed its directory was started with. No point runs a lab: the agent
 * programs' directory is empty, so run_scenario refuses each one before it
 * makes anything, and the points "done" are recorded ones
 * (tests/unit/data/sweep). Run from the repository root.
 */
#include <ftw.h>
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

#include "lab/run/repeat.h"
#include "lab/run/run.h"
#include "test_capture.h"
#include "test_file.h"
#include "test_rundir.h"

#define TOPO "tests/integration/data/compare.ini"
#define DATA "tests/unit/data/sweep/"

static char *dir;	 /* the test's own */
static char sdir[256];	 /* the sweep's: dir/sw */
static char bindir[256]; /* empty: no point can run */
static struct sweep sw;
static struct capture cap;

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static int setup(void **state)
{
	(void)state;
	dir = rundir_new("test_sweep_run");
	assert_non_null(dir);
	snprintf(sdir, sizeof(sdir), "%s/sw", dir);
	snprintf(bindir, sizeof(bindir), "%s/bin", dir);
	assert_int_equal(mkdir(bindir, 0755), 0);
	run_interrupted = 0;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	capture_free(&cap);
	run_interrupted = 0;
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
	return 0;
}

/* check: sweep_check, as the command does before sweep_run: the axis */
static void check(void)
{
	char lab[TOPO_NAME_MAX + 1];
	struct capture c;
	int rc;

	capture_start(&c);
	rc = sweep_check(&sw, lab, NULL);
	capture_end(&c);
	assert_int_equal(rc, 0);
	assert_string_equal(lab, "tswr");
	capture_free(&c);
}

/* parse: a sweep of TOPO with sets (lab tswr), checked */
static void parse(const char *swept)
{
	char *sets[] = {"name=tswr", (char *)swept};

	assert_int_equal(sweep_parse(&sw, TOPO, sets, 2, stderr), 0);
	check();
}

/* run: sweep_run of sw into sdir (NULL: the default), what it printed in
 * cap; its return */
static int run(const char *out)
{
	struct sweep_opts o = {.out = out, .bindir = bindir, .quiet = 1};
	int rc;

	capture_free(&cap);
	capture_start(&cap);
	rc = sweep_run(&sw, "tswr", &o);
	capture_end(&cap);
	return rc;
}

/* subst: text with every D standing for sdir (at most 4096 bytes) */
static const char *subst(const char *text)
{
	static char buf[8192];
	size_t n = 0;

	for (const char *p = text; *p && n + strlen(sdir) + 1 < sizeof(buf); p++) {
		if (*p == 'D' && (p == text || p[-1] == ' ' || p[-1] == '\n')) {
			memcpy(buf + n, sdir, strlen(sdir));
			n += strlen(sdir);
		} else {
			buf[n++] = *p;
		}
	}
	buf[n] = '\0';
	return buf;
}

/* refused: what run_scenario says of one point it refuses (no program) */
static const char *refused(const char *point, const char *name)
{
	static const char *const progs[] = {"routed", "collector", "sited",    "prober",
					    "client", "authd",	   "resolverd"};
	static char buf[4096];
	size_t n = 0;

	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n,
				      "steerlab: run: agent program %s/%s (make builds it): No "
				      "such file or directory\n",
				      bindir, progs[i]);
	snprintf(buf + n, sizeof(buf) - n, "steerlab: point %s failed: see %s/%s\n", point, sdir,
		 name);
	return buf;
}

/* done: the point's run directory as a finished run leaves it: the
 * recorded clocks.json of from, its traffic stopped (interrupted or not) */
static void done(const char *name, const char *from, int interrupted)
{
	char path[400], *clocks;

	assert_true(snprintf(path, sizeof(path), "%s/%s", sdir, name) < (int)sizeof(path));
	mkdir(sdir, 0755);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), DATA "%s/clocks.json", from);
	clocks = test_read_file(path);
	assert_true(snprintf(path, sizeof(path), "%s/%s", sdir, name) < (int)sizeof(path));
	test_write_file(path, "clocks.json", clocks);
	free(clocks);
	test_write_file(path, "lab.events.jsonl",
			interrupted ? "{\"event\":\"traffic_stopped\",\"interrupted\":true}\n"
				    : "{\"event\":\"traffic_stopped\",\"interrupted\":false}\n");
}

static int exists(const char *name)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", sdir, name);
	return access(path, F_OK) == 0;
}

/* a sweep from its start to its end: its directory made with sweep.args,
 * each point tried (refused here), then resumed: a finished point skipped,
 * an interrupted one removed and run again, and once all are done the
 * table, its files and the plot */
static void test_sweep_resume(void **state)
{
	char want[16384], path[1024], *args;

	(void)state;
	parse("ttl=1,2,5");
	assert_int_equal(run(sdir), -1);
	/* nothing measured: the table says so, no plot (nothing to plot) */
	assert_string_equal(
	    cap.out,
	    subst("steerlab: sweep of ttl over 3 values in D\n"
		  "steerlab: if it is interrupted, resume it with: steerlab sweep " TOPO
		  " --set name=tswr --set ttl=1,2,5 --out D\n"
		  "steerlab: point ttl=1 (1 of 3): D/ttl-1\n"
		  "steerlab: point ttl=2 (2 of 3): D/ttl-2\n"
		  "steerlab: point ttl=5 (3 of 3): D/ttl-5\n"
		  "\n"
		  "# Sweep of ttl, lab tswr\n"
		  "\n"
		  "    steerlab sweep " TOPO " --set name=tswr --set ttl=1,2,5\n"
		  "\n"
		  "One run per value of ttl, in the directory ttl-VALUE beside this file. Times "
		  "in seconds\n"
		  "after t0 (the failure), lost in requests; docs/clocks.md defines each column.\n"
		  "\n"
		  "Not measured (no clocks.json): ttl=1 (ttl-1/), ttl=2 (ttl-2/), ttl=5 "
		  "(ttl-5/).\n"
		  "\n"
		  "steerlab: sweep results in D/: sweep.csv, sweep.md, report.html\n"
		  "steerlab: 3 of 3 points failed; rerun the same command to run them again\n"));
	snprintf(want, sizeof(want), "%s", refused("ttl=1", "ttl-1"));
	snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s", refused("ttl=2", "ttl-2"));
	snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s", refused("ttl=5", "ttl-5"));
	assert_string_equal(cap.err, want);
	assert_false(exists("sweep.png"));
	snprintf(path, sizeof(path), "%s/sweep.args", sdir);
	args = test_read_file(path);
	assert_string_equal(args, "# steerlab sweep: what this directory is a sweep of "
				  "(docs/sweeps.md)\n"
				  "file = " TOPO "\n"
				  "swept = ttl\n"
				  "fixed = name=tswr\n");
	free(args);

	/* ttl=1 and ttl=5 finished; ttl=2 was interrupted: removed, run again */
	done("ttl-1", "ttl-1", 0);
	done("ttl-2", "ttl-2", 1);
	done("ttl-5", "ttl-1", 0);
	assert_int_equal(run(sdir), -1);
	assert_non_null(strstr(cap.out, subst("steerlab: point ttl=1: done, skipped\n"
					      "steerlab: point ttl=2: removing the unfinished run "
					      "in D/ttl-2\n"
					      "steerlab: point ttl=2 (2 of 3): D/ttl-2\n"
					      "steerlab: point ttl=5: done, skipped\n")));
	assert_non_null(strstr(cap.out, subst("steerlab: sweep results in D/: sweep.csv, "
					      "sweep.md, report.html, sweep.png\n"
					      "steerlab: 1 of 3 points failed; rerun the same "
					      "command to run them again\n")));
	assert_false(exists("ttl-2"));
	assert_true(exists("ttl-1/clocks.json"));
	assert_string_equal(cap.err, refused("ttl=2", "ttl-2"));

	/* all done (ttl=2's run is invalid): the results, nothing run */
	done("ttl-2", "ttl-2", 0);
	assert_int_equal(run(sdir), SWEEP_INVALID);
	assert_string_equal(cap.err, "");
	assert_non_null(strstr(cap.out, "steerlab: point ttl=1: done, skipped\n"
					"steerlab: point ttl=2: done, skipped\n"
					"steerlab: point ttl=5: done, skipped\n"));
	assert_non_null(strstr(cap.out, subst("steerlab: sweep results in D/: sweep.csv, "
					      "sweep.md, report.html, sweep.png\n"
					      "steerlab: sweep: 1 point is INVALID (see sweep.md "
					      "and each point's report.md): their clocks must not "
					      "be quoted\n")));
	assert_true(exists("sweep.csv") && exists("sweep.md") && exists("sweep.gp") &&
		    exists("sweep.png") && exists("report.html"));
	/* what it printed is sweep.md */
	snprintf(path, sizeof(path), "%s/sweep.md", sdir);
	args = test_read_file(path);
	assert_non_null(strstr(cap.out, args));
	free(args);
}

/* a directory that is another sweep's, or no sweep's, is refused, and
 * left as it was */
static void test_sweep_other_dir(void **state)
{
	(void)state;
	parse("ttl=1,2");
	run_interrupted = 1; /* make the directory, run nothing */
	assert_int_equal(run(sdir), -1);
	run_interrupted = 0;
	assert_string_equal(
	    cap.out, subst("steerlab: sweep of ttl over 2 values in D\n"
			   "steerlab: if it is interrupted, resume it with: steerlab sweep " TOPO
			   " --set name=tswr --set ttl=1,2 --out D\n"
			   "steerlab: sweep interrupted: 0 of 2 points done; resume with: "
			   "steerlab sweep " TOPO " --set name=tswr --set ttl=1,2 --out D\n"));

	/* the same directory for a sweep of another parameter */
	parse("rate=10,20");
	assert_int_equal(run(sdir), -1);
	assert_string_equal(cap.out, "");
	assert_string_equal(cap.err, subst("steerlab: sweep: D holds another sweep; its "
					   "sweep.args:\n"
					   "    file = " TOPO "\n"
					   "    swept = ttl\n"
					   "    fixed = name=tswr\n"
					   "this command's:\n"
					   "    file = " TOPO "\n"
					   "    swept = rate\n"
					   "    fixed = name=tswr\n"
					   "to resume that sweep, give its arguments; else choose "
					   "another --out\n"));
	assert_false(exists("rate-10"));

	/* a directory with something else in it */
	snprintf(sdir, sizeof(sdir), "%s/bin", dir);
	test_write_file(bindir, "notes.txt", "mine\n");
	assert_int_equal(run(sdir), -1);
	assert_string_equal(cap.err, subst("steerlab: sweep: D exists and is not a sweep "
					   "directory (it has no sweep.args): choose another "
					   "--out\n"));
}

/* without --out: runs/sweep-LAB-KEY-DATE under STEERLAB_RUNS */
static void test_sweep_default_dir(void **state)
{
	char runs[128], *args;
	struct dirent *de;
	DIR *d;
	int n = 0;

	(void)state;
	parse("c1.rate=10,20");
	snprintf(runs, sizeof(runs), "%s/runs", dir);
	setenv("STEERLAB_RUNS", runs, 1);
	run_interrupted = 1;
	assert_int_equal(run(NULL), -1);
	unsetenv("STEERLAB_RUNS");
	d = opendir(runs);
	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		n++;
		/* sweep-tswr-c1.rate-20261201-163000 */
		assert_int_equal(strncmp(de->d_name, "sweep-tswr-c1.rate-", 19), 0);
		assert_int_equal(strlen(de->d_name), 19 + 15);
		assert_true(snprintf(sdir, sizeof(sdir), "%s/%s", runs, de->d_name) <
			    (int)sizeof(sdir));
	}
	closedir(d);
	assert_int_equal(n, 1);
	char path[1024];
	snprintf(path, sizeof(path), "%s/sweep.args", sdir);
	args = test_read_file(path);
	assert_non_null(strstr(args, "swept = c1.rate\n"));
	free(args);
}

/* repeat: parse a repeat of TOPO, n runs, seed given or not */
static void rparse(int n, const char *seed)
{
	char *sets[] = {"name=tswr", (char *)seed};

	assert_int_equal(repeat_parse(&sw, TOPO, n, sets, seed ? 2 : 1, stderr), 0);
	check();
}

/* a repeat's directory: repeat.args holds its seed; resumed without
 * --set seed, it takes that seed, so the repetitions are the same; with
 * another, refused; once every repetition is done, the statistics */
static void test_repeat_resume(void **state)
{
	char path[1024], *args, values[2][32];

	(void)state;
	rparse(2, "seed=7");
	snprintf(values[0], sizeof(values[0]), "%s", sw.values[0]);
	snprintf(values[1], sizeof(values[1]), "%s", sw.values[1]);
	assert_string_equal(sw.names[0], "rep-1");
	assert_string_equal(sw.names[1], "rep-2");
	run_interrupted = 1;
	assert_int_equal(run(sdir), -1);
	run_interrupted = 0;
	assert_string_equal(
	    cap.out,
	    subst("steerlab: 2 runs of " TOPO " (seed 7) in D\n"
		  "steerlab: if it is interrupted, resume it with: steerlab run " TOPO
		  " --repeat 2 --set name=tswr --set seed=7 --out D\n"
		  "steerlab: repeat interrupted: 0 of 2 repetitions done; resume "
		  "with: steerlab run " TOPO " --repeat 2 --set name=tswr --set seed=7 --out D\n"));
	snprintf(path, sizeof(path), "%s/repeat.args", sdir);
	args = test_read_file(path);
	assert_string_equal(args, "# steerlab run --repeat: what this directory is a repeat of "
				  "(docs/repeat.md)\n"
				  "file = " TOPO "\n"
				  "seed = 7\n"
				  "fixed = name=tswr\n");
	free(args);

	/* resumed without a seed: the directory's, the same repetitions */
	done("rep-1", "ttl-1", 0);
	done("rep-2", "ttl-2", 0);
	rparse(2, NULL);
	assert_int_equal(run(sdir), SWEEP_INVALID);
	assert_int_equal(sw.seed, 7);
	assert_string_equal(sw.values[0], values[0]);
	assert_string_equal(sw.values[1], values[1]);
	assert_string_equal(cap.err, "");
	char want[2048];
	snprintf(want, sizeof(want),
		 "steerlab: repetition 1 (seed %s): done, skipped\n"
		 "steerlab: repetition 2 (seed %s): done, skipped\n",
		 values[0], values[1]);
	assert_non_null(strstr(cap.out, want));
	assert_non_null(strstr(cap.out, subst("steerlab: repeat results in D/: repeat.csv, "
					      "stats.csv, stats.md, report.html, spread.png\n"
					      "steerlab: repeat: 1 of 2 runs INVALID, left out of "
					      "the statistics (see stats.md and each run's "
					      "report.md)\n")));
	assert_true(exists("repeat.csv") && exists("stats.csv") && exists("stats.md") &&
		    exists("spread.gp") && exists("spread.png"));

	/* another seed: another repeat */
	rparse(2, "seed=8");
	assert_int_equal(run(sdir), -1);
	assert_non_null(strstr(cap.err, subst("steerlab: repeat: D holds another repeat; its "
					      "repeat.args:\n")));
	assert_non_null(strstr(cap.err, "    seed = 7\n"));
	assert_non_null(strstr(cap.err, "    seed = 8\n"));
}

/* the line after each repetition: its failure's jitter offset, each
 * scheme's detect and window (a lower bound marked), INVALID if it is */
static void test_repeat_progress(void **state)
{
	char want[2048], path[400], *clocks, *at;

	(void)state;
	rparse(2, "seed=7");
	done("rep-1", "ttl-1", 0);
	done("rep-2", "ttl-2", 0);
	/* rep-1's failure moved 42 ms by fail_jitter */
	snprintf(path, sizeof(path), "%s/rep-1/clocks.json", sdir);
	clocks = test_read_file(path);
	at = strstr(clocks, "\"failed\": {");
	assert_non_null(at);
	at += strlen("\"failed\": {");
	snprintf(path, sizeof(path), "%s/rep-1", sdir);
	char *with;
	assert_true(asprintf(&with, "%.*s\"jitter_offset_s\": 0.042, %s", (int)(at - clocks),
			     clocks, at) > 0);
	test_write_file(path, "clocks.json", with);
	free(with);
	free(clocks);
	capture_free(&cap);
	capture_start(&cap);
	repeat_progress(&sw, sdir, 0);
	repeat_progress(&sw, sdir, 1);
	capture_end(&cap);
	snprintf(want, sizeof(want),
		 "steerlab: rep 1/2 done (seed %s, failure 0.042 s after fail_at), anycast: "
		 "detect 0.277 s window 0.276 s, dns: detect 0.271 s window \u2265 3.002 s\n"
		 "steerlab: rep 2/2 done (seed %s), anycast: detect 0.284 s window 0.283 s, dns: "
		 "detect - window \u2265 3.006 s; INVALID (its report.md says why)\n",
		 sw.values[0], sw.values[1]);
	assert_string_equal(cap.out, want);
}

/* sweep_check: every point loads and fails a site, the lab can come up;
 * the lab's name and the axis; each refusal said */
static void test_sweep_check(void **state)
{
	char lab[TOPO_NAME_MAX + 1] = "";
	int rc;

	(void)state;
	parse("ttl=1,2");
	capture_free(&cap);
	capture_start(&cap);
	rc = sweep_check(&sw, lab, NULL);
	capture_end(&cap);
	assert_int_equal(rc, 0);
	assert_string_equal(lab, "tswr");
	assert_string_equal(sw.xlabel, "ttl of the DNS names (s)");
	assert_string_equal(cap.err, "");

	/* the programs missing */
	capture_free(&cap);
	capture_start(&cap);
	rc = sweep_check(&sw, lab, bindir);
	capture_end(&cap);
	assert_int_equal(rc, -1);
	char want[1024];
	snprintf(want, sizeof(want),
		 "steerlab: sweep: agent program %s/routed (make builds it): No such file or "
		 "directory\n",
		 bindir);
	assert_int_equal(strncmp(cap.err, want, strlen(want)), 0);

	/* no site fails at any point: steady-state runs, accepted */
	char *sets[] = {"name=tswr", "a.fail=no", "ttl=1,2"};
	assert_int_equal(sweep_parse(&sw, TOPO, sets, 3, stderr), 0);
	capture_free(&cap);
	capture_start(&cap);
	rc = sweep_check(&sw, lab, NULL);
	capture_end(&cap);
	assert_int_equal(rc, 0);
	assert_string_equal(cap.err, "");

	/* a repeat: said once; and the note on fail_jitter */
	rparse(3, "seed=1");
	capture_free(&cap);
	capture_start(&cap);
	rc = sweep_check(&sw, lab, NULL);
	capture_end(&cap);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(cap.out, "steerlab: note: fail_jitter is 0: every run fails at the "
					"same instant of the probe cycle"));
	char *rsets[] = {"name=tswr", "a.fail=no"};
	assert_int_equal(repeat_parse(&sw, TOPO, 3, rsets, 2, stderr), 0);
	capture_free(&cap);
	capture_start(&cap);
	rc = sweep_check(&sw, lab, NULL);
	capture_end(&cap);
	assert_int_equal(rc, 0);
	assert_string_equal(cap.err, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_sweep_resume, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_sweep_other_dir, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_sweep_default_dir, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_repeat_resume, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_repeat_progress, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_sweep_check, setup, teardown),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	capture_free(&cap);
	return rc;
}
