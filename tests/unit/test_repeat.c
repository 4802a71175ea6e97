/*
 * fail_jitter and `steerlab run --repeat` (lab/topology/topology.h, lab/run/repeat.h): the
 * jittered instant (the same for a seed, inside its window, uniform, the
 * nominal one without a window), the repetitions' seeds, the arguments of a
 * repeat and their errors, the fail_jitter and seed keys of a topology, the
 * median and p95 on known vectors, and the tables of a repeat built here
 * from clocks.json files: an invalid repetition is listed and left out of
 * the statistics, a lower bound is marked, and the runs' models (written
 * here by hand) beside the spread, judged within, outside, or not at all.
 */
#include <math.h>
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

#include "lab/topology/topology.h"
#include "lab/run/repeat.h"
#include "lab/topology/topology.h"
#include "test_rundir.h"

#define MS 1000000LL

static void test_jitter_no_window(void **state)
{
	(void)state;
	for (uint32_t seed = 0; seed < 100; seed++) {
		assert_int_equal(jitter_offset_ns(0, seed, 0), 0);
		assert_int_equal(jitter_instant_ns(3000 * MS, 0, seed, 0), 3000 * MS);
		assert_int_equal(jitter_instant_ns(3000 * MS, -5, seed, 7), 3000 * MS);
	}
}

/* the same (seed, index) gives the same instant; another seed or another
 * event index, another one */
static void test_jitter_deterministic(void **state)
{
	int64_t a = jitter_instant_ns(1000 * MS, 100 * MS, 669, 0);
	int same = 0;

	(void)state;
	assert_int_equal(jitter_instant_ns(1000 * MS, 100 * MS, 669, 0), a);
	assert_true(a >= 1000 * MS && a < 1100 * MS);
	/* a known value: the draw must not change under a user's recorded seed */
	assert_int_equal(jitter_offset_ns(100 * MS, 1, 0), jitter_offset_ns(100 * MS, 1, 0));
	for (uint32_t s = 0; s < 1000; s++) {
		same += jitter_offset_ns(100 * MS, s, 0) == jitter_offset_ns(100 * MS, s + 1, 0);
		same += jitter_offset_ns(100 * MS, s, 0) == jitter_offset_ns(100 * MS, s, 1);
	}
	assert_true(same <= 1);
}

/* over many seeds, the offsets fill the window evenly: ten bins of a
 * 100 ms window, 20000 draws, each bin within 10 % of its 2000 (a
 * generator off by that much would be biased in the phase it samples) */
static void test_jitter_uniform(void **state)
{
	int bins[10] = {0};
	int64_t lo = INT64_MAX, hi = -1;

	(void)state;
	for (uint32_t s = 0; s < 20000; s++) {
		int64_t o = jitter_offset_ns(100 * MS, s * 2654435761u, 0);
		assert_true(o >= 0 && o < 100 * MS);
		bins[o / (10 * MS)]++;
		lo = o < lo ? o : lo;
		hi = o > hi ? o : hi;
	}
	for (int b = 0; b < 10; b++) {
		assert_true(bins[b] > 1800);
		assert_true(bins[b] < 2200);
	}
	/* the whole window is reached, up to its end */
	assert_true(lo < 1 * MS);
	assert_true(hi > 99 * MS);
	/* a window of one nanosecond: always at the nominal instant */
	for (uint32_t s = 0; s < 100; s++)
		assert_int_equal(jitter_offset_ns(1, s, 3), 0);
}

/* the repetitions of one repeat have different seeds, and so do the same
 * repetition of two repeats */
static void test_rep_seeds(void **state)
{
	(void)state;
	for (uint32_t base = 0; base < 50; base++)
		for (unsigned i = 1; i <= REPEAT_MAX; i++) {
			assert_int_not_equal(jitter_rep_seed(base, i),
					     jitter_rep_seed(base + 1, i));
			for (unsigned j = 1; j < i; j++)
				assert_int_not_equal(jitter_rep_seed(base, i),
						     jitter_rep_seed(base, j));
		}
}

static void test_random_seed(void **state)
{
	uint32_t a, b;

	(void)state;
	assert_int_equal(jitter_random_seed(&a), 0);
	assert_int_equal(jitter_random_seed(&b), 0);
	/* 2^-32 to fail by chance */
	assert_int_not_equal(a, b);
}

/* rparse: repeat_parse of the sets, its messages in *errs (malloc'd) */
static int rparse(struct sweep *sw, char **errs, int n, int nsets, ...)
{
	char *sets[16];
	size_t len;
	va_list ap;
	FILE *err = open_memstream(errs, &len);
	int rc;

	assert_non_null(err);
	va_start(ap, nsets);
	for (int i = 0; i < nsets; i++)
		sets[i] = va_arg(ap, char *);
	va_end(ap);
	rc = repeat_parse(sw, "topology/anycast.ini", n, sets, nsets, err);
	fclose(err);
	return rc;
}

static void test_repeat_parse(void **state)
{
	static struct sweep sw;
	char *errs, buf[64], *sets[TOPO_MAX_SETS + 1];

	(void)state;
	assert_int_equal(rparse(&sw, &errs, 5, 3, "fail_jitter=100ms", " seed = 669 ", "name=x"),
			 0);
	assert_string_equal(errs, "");
	free(errs);
	assert_int_equal(sw.repeat, 5);
	assert_int_equal(sw.nvalues, 5);
	assert_int_equal(sw.seed, 669);
	assert_true(sw.seed_given);
	assert_int_equal(sw.nfixed, 2);
	assert_string_equal(sw.fixed[0], "fail_jitter=100ms");
	assert_string_equal(sw.fixed[1], "name=x");
	for (int i = 0; i < 5; i++) {
		char name[16], seed[16];
		snprintf(name, sizeof(name), "rep-%d", i + 1);
		snprintf(seed, sizeof(seed), "%u", jitter_rep_seed(669, (unsigned)i + 1));
		assert_string_equal(sw.names[i], name);
		assert_string_equal(sw.values[i], seed);
	}
	/* each repetition runs with its own seed */
	assert_int_equal(sweep_point_sets(&sw, 2, sets, buf, sizeof(buf)), 3);
	snprintf(buf + 32, 32, "seed=%u", jitter_rep_seed(669, 3));
	assert_string_equal(sets[2], buf + 32);
	/* no seed: one is drawn, and is not "given" (a resume reads it back) */
	assert_int_equal(rparse(&sw, &errs, 3, 1, "seed=random"), 0);
	free(errs);
	assert_false(sw.seed_given);
	assert_int_equal(sw.nvalues, 3);
	/* a resume takes the directory's seed: the repetitions follow it */
	repeat_seeds(&sw, 669);
	snprintf(buf, sizeof(buf), "%u", jitter_rep_seed(669, 2));
	assert_string_equal(sw.values[1], buf);
}

static void expect_repeat_error(int n, const char *set, const char *expected)
{
	static struct sweep sw;
	char *errs;

	assert_int_equal(rparse(&sw, &errs, n, set ? 1 : 0, set), -1);
	assert_string_equal(errs, expected);
	free(errs);
}

static void test_repeat_parse_errors(void **state)
{
	(void)state;
	expect_repeat_error(0, NULL, "steerlab: run: --repeat 0: expected from 1 to 64 runs\n");
	expect_repeat_error(65, NULL, "steerlab: run: --repeat 65: expected from 1 to 64 runs\n");
	expect_repeat_error(3, "ttl=1,2",
			    "steerlab: run: --repeat runs one scenario, but --set ttl=1,2 has "
			    "several values: to vary a parameter, use steerlab sweep\n");
	expect_repeat_error(3, "seed=-1",
			    "steerlab: run: --set seed=-1: expected random or a whole number "
			    "from 0 to 4294967295 (the repeat's seed)\n");
	expect_repeat_error(3, "seed=4294967296",
			    "steerlab: run: --set seed=4294967296: expected random or a whole "
			    "number from 0 to 4294967295 (the repeat's seed)\n");
}

/* load: topology/anycast.ini with the overrides; the messages in *errs */
static int load(struct topology *t, char **errs, int nsets, ...)
{
	char *sets[8];
	size_t len;
	va_list ap;
	FILE *err = open_memstream(errs, &len);
	int rc;

	va_start(ap, nsets);
	for (int i = 0; i < nsets; i++)
		sets[i] = va_arg(ap, char *);
	va_end(ap);
	rc = topo_load(t, "topology/anycast.ini", sets, nsets, err);
	fclose(err);
	return rc;
}

static void test_topology_keys(void **state)
{
	static struct topology t;
	char *errs, *text;
	size_t len;
	FILE *out;

	(void)state;
	/* by default: no jitter, a random seed */
	assert_int_equal(load(&t, &errs, 0), 0);
	free(errs);
	assert_int_equal(t.fail_jitter_ns, 0);
	assert_int_equal(t.seed, -1);
	out = open_memstream(&text, &len);
	topo_print(&t, out);
	fclose(out);
	assert_non_null(strstr(text, "\nfail_jitter = 0s\nseed = random\n"));
	free(text);
	assert_int_equal(load(&t, &errs, 2, "fail_jitter=250ms", "seed=4294967295"), 0);
	free(errs);
	assert_int_equal(t.fail_jitter_ns, 250 * MS);
	assert_int_equal(t.seed, 4294967295LL);
	/* the latest failure, fail_at + fail_jitter, before the traffic ends */
	assert_int_equal(load(&t, &errs, 3, "fail_at=3s", "duration=4s", "fail_jitter=1s"), -1);
	assert_string_equal(errs, "--set fail_jitter=1s: [lab] fail_jitter: expected fail_at + "
				  "fail_jitter before duration (4s), got 3s + 1s: the failure "
				  "could fall after the traffic ends\n");
	free(errs);
	assert_int_equal(load(&t, &errs, 1, "seed=12a"), -1);
	assert_string_equal(
	    errs, "--set seed=12a: expected random or a whole number from 0 to 4294967295\n");
	free(errs);
}

static void expect_near(double got, double want)
{
	if (fabs(got - want) > 1e-12)
		fail_msg("got %.15g, expected %.15g", got, want);
}

/* the median and p95, interpolated between ranks (as numpy.percentile) */
static void test_quantiles(void **state)
{
	double five[] = {5, 3, 1, 4, 2}, four[] = {4, 1, 3, 2}, one[] = {0.25};
	double twenty[20];
	struct repeat_stat st;

	(void)state;
	repeat_stat(five, 5, &st);
	assert_int_equal(st.n, 5);
	expect_near(st.min, 1);
	expect_near(st.median, 3);
	expect_near(st.p95, 4.8);
	expect_near(st.max, 5);
	repeat_stat(four, 4, &st);
	expect_near(st.median, 2.5);
	expect_near(st.p95, 3.85);
	repeat_stat(one, 1, &st);
	expect_near(st.min, 0.25);
	expect_near(st.median, 0.25);
	expect_near(st.p95, 0.25);
	expect_near(st.max, 0.25);
	for (int i = 0; i < 20; i++)
		twenty[i] = 19 - i; /* 0 .. 19 */
	repeat_stat(twenty, 20, &st);
	expect_near(st.median, 9.5);
	expect_near(st.p95, 18.05);
	repeat_stat(twenty, 0, &st);
	assert_int_equal(st.n, 0);
	assert_true(isnan(st.median) && isnan(st.p95) && isnan(st.min) && isnan(st.max));
	expect_near(repeat_quantile((const double[]){1, 2}, 2, 0), 1);
	expect_near(repeat_quantile((const double[]){1, 2}, 2, 1), 2);
}

/* put_clocks: DIR/rep-I/clocks.json */
static void put_clocks(const char *dir, int i, const char *json)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/rep-%d", dir, i);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/rep-%d/clocks.json", dir, i);
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(json, fp);
	fclose(fp);
}

static char *to_string(const struct sweep *sw, const struct sweep_table *tb,
		       void (*fn)(const struct sweep *, const struct sweep_table *, FILE *))
{
	char *s;
	size_t len;
	FILE *out = open_memstream(&s, &len);

	fn(sw, tb, out);
	fclose(out);
	return s;
}

static void gp(const struct sweep *sw, const struct sweep_table *tb, FILE *out)
{
	repeat_gp_text(sw, tb, out, 1);
}

/* four repetitions: three valid (detect 0.2, 0.3, 0.25; the last one's DNS
 * window a lower bound), one invalid whose detect 9.0 must not count */
static void test_repeat_tables(void **state)
{
	static struct sweep sw;
	static struct sweep_table tb;
	char *errs, *dir = rundir_new("test_repeat"), *csv, *stats, *md, *plot;
	const char *fmt =
	    "{\"lab\": \"rpt\", \"valid\": %s, \"seed\": 1, \"fail_jitter_s\": 0.1, "
	    "\"failed\": {\"site\": \"a\", \"jitter_offset_s\": %s}, "
	    "\"schemes\": {\"anycast\": {\"detect_s\": %s, \"steer_s\": 0.3, \"window_s\": 0.3, "
	    "\"window_lower_bound\": false, \"lost_client\": %s, \"lost_capture\": 10, "
	    "\"model\": %s}, "
	    "\"dns\": {\"detect_s\": %s, \"remote_dead_s\": 0.4, \"window_s\": 3.5, "
	    "\"window_lower_bound\": %s, \"lost_client\": 100, \"upstream_queries\": 7, "
	    "\"model\": %s}}, "
	    "\"model\": {\"t0_s\": 1.0, \"tolerance_s\": 0.1}, "
	    "\"warnings\": [%s]}";
	/* each run's model: anycast's detect at the run's own failure instant
	 * (0.21, 0.28, the invalid run's 9, 0.26: they differ), its losses and
	 * the DNS clocks the same in every run; rep-2's anycast window not
	 * judged (a later step), its DNS window judged outside */
	const char *any_model =
	    "{\"detect_s\": {\"p5\": %s, \"p50\": %s, \"p95\": %s, \"min\": %s, \"max\": %s}, "
	    "\"window_s\": {\"p5\": 0.25, \"p50\": 0.25, \"p95\": 0.25, \"min\": 0.25, \"max\": "
	    "0.25}, \"lost_client\": {\"p5\": 11, \"p50\": 11, \"p95\": 11, \"min\": 11, \"max\": "
	    "11}, \"steer_s\": null, \"outside\": [], \"later_step\": [%s], "
	    "\"tolerance\": {\"seconds\": 0.1, \"lost\": 2}}";
	const char *dns_model =
	    "{\"detect_s\": {\"p5\": 0.205, \"p50\": 0.25, \"p95\": 0.295, \"min\": 0.2, \"max\": "
	    "0.3}, \"window_s\": {\"p5\": 3, \"p50\": 3, \"p95\": 3, \"min\": 3, \"max\": 3}, "
	    "\"lost_client\": {\"p5\": 100.4, \"p50\": 100.4, \"p95\": 100.4, \"min\": 100.4, "
	    "\"max\": 100.4}, \"upstream_queries\": {\"p5\": 7, \"p50\": 7, \"p95\": 7, \"min\": "
	    "7, \"max\": 7}, \"outside\": [%s], \"later_step\": [], "
	    "\"tolerance\": {\"seconds\": 0.1, \"lost\": 1, \"upstream_queries\": 0}}";
	const char *reps[4][10] = {
	    {"true", "0.01", "0.2", "10", "0.2", "false", "", "0.21", "", ""},
	    {"true", "0.07", "0.3", "11", "0.3", "false", "", "0.28", "\"window_s\"",
	     "\"window_s\""},
	    {"false", "0.05", "9.0", "500", "9.0", "false",
	     "{\"code\": \"agent_exited\", \"message\": \"x\", \"invalidates\": true}", "9.0", "",
	     ""},
	    {"true", "0.03", "0.25", "12", "0.25", "true", "", "0.26", "", ""},
	};
	char json[4096], am[1024], dm[1024];

	(void)state;
	assert_non_null(dir);
	assert_int_equal(rparse(&sw, &errs, 4, 1, "seed=7"), 0);
	free(errs);
	for (int i = 0; i < 4; i++) {
		const char *d = reps[i][7];

		snprintf(am, sizeof(am), any_model, d, d, d, d, d, reps[i][8]);
		snprintf(dm, sizeof(dm), dns_model, reps[i][9]);
		snprintf(json, sizeof(json), fmt, reps[i][0], reps[i][1], reps[i][2], reps[i][3],
			 am, reps[i][4], reps[i][5], dm, reps[i][6]);
		put_clocks(dir, i + 1, json);
	}
	assert_int_equal(sweep_table_load(&sw, dir, &tb, stderr), 0);
	assert_int_equal(sweep_invalid(&sw, &tb), 1);
	csv = to_string(&sw, &tb, repeat_write_csv);
	stats = to_string(&sw, &tb, repeat_write_stats_csv);
	md = to_string(&sw, &tb, repeat_write_md);
	plot = to_string(&sw, &tb, gp);
	if (getenv("SHOW"))
		printf("%s\n%s\n%s\n%s\n", csv, stats, md, plot);

	/* repeat.csv: every repetition, the invalid one too, with its seed */
	assert_non_null(strstr(csv, "rep,seed,jitter_offset_s,anycast_detect_s,anycast_steer_s,"));
	assert_non_null(strstr(csv, ",dns_remote_dead_s,"));
	assert_non_null(strstr(csv, ",dns_upstream_queries,dns_window_lower_bound,valid,"
				    "invalid_codes,run\n"));
	snprintf(json, sizeof(json), "\n3,%u,0.050000,9.000000,", jitter_rep_seed(7, 3));
	assert_non_null(strstr(csv, json));
	assert_non_null(strstr(csv, ",0,agent_exited,rep-3\n"));
	assert_non_null(strstr(csv, ",1,1,,rep-4\n"));
	/* no remote_dead for anycast: not a column of zeros */
	assert_null(strstr(csv, "anycast_remote_dead_s"));

	/* stats.csv: the valid three only */
	assert_non_null(strstr(stats, "scheme,clock,n,min,median,p95,max,lower_bound,model_p50,"
				      "model_p5,model_p95,model_min,model_max,model_tolerance,"
				      "model_same,model_within,model_runs_outside\n"));
	/* the model beside each: anycast's detect from models that differ (the
	 * median of 0.21, 0.28 and 0.26; their least and greatest), the
	 * spread 0.2-0.3 within 0.21-0.28 widened by 0.1 s */
	assert_non_null(strstr(stats, "\nanycast,detect_s,3,0.200000,0.250000,0.295000,0.300000,0,"
				      "0.260000,0.210000,0.280000,0.210000,0.280000,0.100000,0,"
				      "yes,0\n"));
	/* the same in every run: the first's; 10-12 within 11 +- 2 */
	assert_non_null(strstr(stats, "\nanycast,lost_client,3,10,11,11.900,12,0,11.000,11.000,"
				      "11.000,11.000,11.000,2.000,1,yes,0\n"));
	/* rep-2's later step: not judged */
	assert_non_null(strstr(stats, "\nanycast,window_s,3,0.300000,0.300000,0.300000,0.300000,0,"
				      "0.250000,0.250000,0.250000,0.250000,0.250000,0.100000,1,"
				      "later_step,0\n"));
	assert_non_null(strstr(stats, "\ndns,detect_s,3,0.200000,0.250000,0.295000,0.300000,0,"
				      "0.250000,0.205000,0.295000,0.200000,0.300000,0.100000,1,"
				      "yes,0\n"));
	/* 3.5 s, a lower bound, beyond 3 s + 0.1: outside, as rep-2 said */
	assert_non_null(strstr(stats, "\ndns,window_s,3,3.500000,3.500000,3.500000,3.500000,1,"
				      "3.000000,3.000000,3.000000,3.000000,3.000000,0.100000,1,no,"
				      "1\n"));
	assert_non_null(strstr(stats, "\ndns,upstream_queries,3,7,7,7,7,0,7.000,7.000,7.000,"
				      "7.000,7.000,0.000,1,yes,0\n"));
	/* no model of it: empty cells */
	assert_non_null(strstr(
	    stats, "\ndns,remote_dead_s,3,0.400000,0.400000,0.400000,0.400000,0,,,,,,,,,\n"));
	assert_non_null(strstr(stats, "\nanycast,steer_s,3,0.300000,0.300000,0.300000,0.300000,0,"
				      ",,,,,,,,\n"));
	assert_null(strstr(stats, "9.0"));

	/* the table: the statistics, the invalid run said loudly */
	assert_non_null(strstr(md, "| anycast detect (s)          | 3 |   0.200 |   0.250 |   "
				   "0.295 |   0.300 | 0.260 (0.210-0.280) * |           yes |\n"));
	/* the model column and whether the spread lies within it */
	assert_non_null(strstr(md, "|                 model |        within |\n"));
	assert_non_null(strstr(md, "| dns detect (s)              | 3 |   0.200 |   0.250 |   "
				   "0.295 |   0.300 |   0.250 (0.205-0.295) |           yes |\n"));
	/* outside, and rep-2's own model_disagrees said so too */
	assert_non_null(strstr(md, "| \u2265 3.500 |                 3.000 | NO (1 run NO) |\n"));
	assert_non_null(strstr(md, "|                 0.250 |    later step |\n"));
	assert_non_null(strstr(md, "| dns lost (client)           | 3 |     100 |     100 |     "
				   "100 |     100 |                   100 |           yes |\n"));
	assert_non_null(strstr(md, "| dns remote prober dead (s)  | 3 |   0.400 |   0.400 |   "
				   "0.400 |   0.400 |                     - |             - |\n"));
	assert_non_null(strstr(md, "\nRuns whose own model_disagrees named a clock:\n\n"
				   "- rep-2/: dns window_s\n"));
	/* a clock null in every run: no values, not zeros */
	assert_non_null(strstr(md, "| dns steer (s)               | 0 |       - |       - |"));
	assert_non_null(strstr(md, "| dns window (s)              | 3 | \u2265 3.500 |"));
	assert_non_null(strstr(md, "Statistics over the 3 valid runs"));
	assert_non_null(strstr(md, "**1 INVALID run, left out of the statistics**"));
	snprintf(json, sizeof(json), "- rep-3/ (seed %u): agent_exited\n", jitter_rep_seed(7, 3));
	assert_non_null(strstr(md, json));
	assert_non_null(strstr(md, "--repeat 4 --set seed=7\n"));

	/* the plot: the valid values, not the invalid one; a bar per median */
	assert_null(strstr(plot, " 9\n"));
	assert_non_null(strstr(plot, "\n0 0.25\n"));
	assert_non_null(strstr(plot, "\"anycast\\ndetect\" 0"));
	assert_non_null(strstr(plot, "(invalid runs left out)"));
	assert_non_null(strstr(plot, "\nset output\n"));
	/* the model beside each clock: p50, p5, p95, bounds -+ the tolerance */
	assert_non_null(strstr(plot, "$model0 << EOD\n0 0.26 0.21 0.28 0.11 0.38\n"
				     "2 0.25 0.205 0.295 0.1 0.4\nEOD\n"));
	assert_non_null(strstr(plot, "$model2 << EOD\n0 11 11 11 9 13\n"));
	assert_non_null(strstr(plot, ", $model1 using ($1 + 0.3):2:($1 + 0.25):($1 + 0.35):3:4 "
				     "with boxxyerror fs empty dt 2 lc 2, $model1 using ($1 + "
				     "0.3):2:5:6 with yerrorbars pt 6 lc 2\n"));

	free(csv);
	free(stats);
	free(md);
	free(plot);
	for (int i = 1; i <= 4; i++) {
		char path[512];
		snprintf(path, sizeof(path), "%s/rep-%d/clocks.json", dir, i);
		unlink(path);
		snprintf(path, sizeof(path), "%s/rep-%d", dir, i);
		rmdir(path);
	}
	rundir_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_jitter_no_window),	cmocka_unit_test(test_jitter_deterministic),
	    cmocka_unit_test(test_jitter_uniform),	cmocka_unit_test(test_rep_seeds),
	    cmocka_unit_test(test_random_seed),		cmocka_unit_test(test_repeat_parse),
	    cmocka_unit_test(test_repeat_parse_errors), cmocka_unit_test(test_topology_keys),
	    cmocka_unit_test(test_quantiles),		cmocka_unit_test(test_repeat_tables),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
