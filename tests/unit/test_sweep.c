/*
 * `steerlab sweep` (lab/run/run.h) and `--set ttl=` (lab/build/lab.h): which
 * --set is swept and the errors with their exact messages, the point
 * directories and their overrides, the x axis, the ttl override on the
 * [name] sections' raw pairs, and the combined table from fixture
 * clocks.json files against golden sweep.csv, sweep.md and sweep.gp (a
 * valid point with a lower bound, an invalid one, one not run), and a
 * sweep of an anycast-only lab, whose DNS scheme is absent. Run
 * from the repository root: the fixtures are under tests/unit/data/sweep/.
 * UPDATE_GOLDEN=1 writes a golden file that differs to FILE.new (test_assert_golden, test_file.h).
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

#include "lab/build/lab.h"
#include "lab/run/run.h"
#include "lab/topology/topology.h"
#include "test_file.h"

#define DATA "tests/unit/data/sweep/"

/* parse: sweep_parse of the sets, its messages in *errs (malloc'd) */
static int parse(struct sweep *sw, char **errs, int nsets, ...)
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
	rc = sweep_parse(sw, "topology/compare.ini", sets, nsets, err);
	fclose(err);
	return rc;
}

static void expect_error(const char *expected, int nsets, ...)
{
	static struct sweep sw;
	char *sets[16], *errs;
	size_t len;
	va_list ap;
	FILE *err = open_memstream(&errs, &len);

	assert_non_null(err);
	va_start(ap, nsets);
	for (int i = 0; i < nsets; i++)
		sets[i] = va_arg(ap, char *);
	va_end(ap);
	assert_int_equal(sweep_parse(&sw, "topology/compare.ini", sets, nsets, err), -1);
	fclose(err);
	assert_string_equal(errs, expected);
	free(errs);
}

/* the one --set with commas is swept, wherever it is; the others are fixed */
static void test_parse_swept_and_fixed(void **state)
{
	static struct sweep sw;
	char *errs, *sets[TOPO_MAX_SETS + 1], buf[128];

	(void)state;
	assert_int_equal(parse(&sw, &errs, 3, "duration=4s", "ttl=30, 60 ,300,900", "c1.rate=50"),
			 0);
	assert_string_equal(errs, "");
	free(errs);
	assert_string_equal(sw.key, "ttl");
	assert_int_equal(sw.nvalues, 4);
	assert_string_equal(sw.values[0], "30");
	assert_string_equal(sw.values[1], "60");
	assert_string_equal(sw.values[3], "900");
	assert_string_equal(sw.names[1], "ttl-60");
	assert_int_equal(sw.nfixed, 2);
	assert_string_equal(sw.fixed[0], "duration=4s");
	assert_string_equal(sw.fixed[1], "c1.rate=50");

	/* a point's overrides: the fixed ones, then its value */
	assert_int_equal(sweep_point_sets(&sw, 2, sets, buf, sizeof(buf)), 3);
	assert_string_equal(sets[0], "duration=4s");
	assert_string_equal(sets[1], "c1.rate=50");
	assert_string_equal(sets[2], "ttl=300");
	assert_int_equal(sweep_point_sets(&sw, 2, sets, buf, 5), -1);
}

/* node keys and values that are not directory names */
static void test_parse_point_names(void **state)
{
	static struct sweep sw;
	char *errs, cmd[512];

	(void)state;
	assert_int_equal(parse(&sw, &errs, 2, "c1.rate=100,1e3", "name=sw"), 0);
	free(errs);
	assert_string_equal(sw.key, "c1.rate");
	assert_string_equal(sw.names[0], "c1.rate-100");
	assert_string_equal(sw.names[1], "c1.rate-1e3");
	assert_int_equal(parse(&sw, &errs, 1, "dns_name=a/b.example,..x"), 0);
	free(errs);
	assert_string_equal(sw.names[0], "dns_name-a_b.example");
	assert_string_equal(sw.names[1], "dns_name-..x");
	sweep_command(&sw, "runs/x", cmd, sizeof(cmd));
	assert_string_equal(cmd,
			    "steerlab sweep topology/compare.ini --set dns_name=a/b.example,..x "
			    "--out runs/x");
}

static void test_parse_errors(void **state)
{
	(void)state;
	expect_error("steerlab: sweep: --set ttl=30,60 and --set probe_interval=100ms,1s both "
		     "have several values: a sweep varies one parameter (run one sweep per "
		     "parameter)\n",
		     3, "ttl=30,60", "rate=10", "probe_interval=100ms,1s");
	expect_error("steerlab: sweep: which parameter? give one --set KEY=V1,V2,... with "
		     "comma-separated values (e.g. --set ttl=30,60,300)\n",
		     2, "ttl=30", "rate=10");
	expect_error("steerlab: sweep: which parameter? give one --set KEY=V1,V2,... with "
		     "comma-separated values (e.g. --set ttl=30,60,300)\n",
		     0);
	expect_error("steerlab: sweep: --set ttl=30,,60: value 2 is empty\n", 1, "ttl=30,,60");
	expect_error("steerlab: sweep: --set ttl=30,60,: value 3 is empty\n", 1, "ttl=30,60,");
	expect_error("steerlab: sweep: --set ttl= ,60: value 1 is empty\n", 1, "ttl= ,60");
	expect_error("steerlab: sweep: --set ttl30,60: expected KEY=V1,V2,...\n", 1, "ttl30,60");
	expect_error("steerlab: sweep: --set =30,60: expected KEY=V1,V2,... with a key of 1 to 63 "
		     "characters\n",
		     1, "=30,60");
	expect_error("steerlab: sweep: --set ttl=30,60,30: 30 and 30 are the same point\n", 1,
		     "ttl=30,60,30");
	expect_error("steerlab: sweep: --set dns_name=a/b,a_b: a/b and a_b are the same point\n", 1,
		     "dns_name=a/b,a_b");
	expect_error("steerlab: sweep: ttl is swept (--set ttl=30,60) and fixed (--set ttl = 5): "
		     "give it once\n",
		     2, "ttl=30,60", "ttl = 5");
}

/* the unit of the x axis follows the key's type */
static void test_axis(void **state)
{
	static struct sweep sw;
	static struct topology t;
	char *errs;

	(void)state;
	assert_int_equal(topo_load(&t, "tests/unit/data/topology/dns.ini", NULL, 0, stderr), 0);

	assert_int_equal(parse(&sw, &errs, 1, "ttl=30,5m,1h"), 0);
	free(errs);
	sweep_axis(&sw, &t);
	assert_true(sw.numeric);
	assert_string_equal(sw.xlabel, "ttl of the DNS names (s)");
	assert_true(sw.x[1] == 300 && sw.x[2] == 3600);

	assert_int_equal(parse(&sw, &errs, 1, "probe_interval=250ms,1s,2"), 0);
	free(errs);
	sweep_axis(&sw, &t);
	assert_true(sw.numeric);
	assert_string_equal(sw.xlabel, "probe_interval (s)");
	assert_true(sw.x[0] == 0.25 && sw.x[1] == 1 && sw.x[2] == 2);

	assert_int_equal(parse(&sw, &errs, 1, "c1.rate=100,2000"), 0);
	free(errs);
	sweep_axis(&sw, &t);
	assert_string_equal(sw.xlabel, "c1.rate (requests/s)");
	assert_true(sw.x[1] == 2000);

	assert_int_equal(parse(&sw, &errs, 1, "probe_down=1,3"), 0);
	free(errs);
	sweep_axis(&sw, &t);
	assert_string_equal(sw.xlabel, "probe_down");

	/* not numbers: the points are evenly spaced, labelled with the values */
	assert_int_equal(parse(&sw, &errs, 1, "capture_buffer=1M,64M"), 0);
	free(errs);
	sweep_axis(&sw, &t);
	assert_false(sw.numeric);
	assert_true(sw.x[0] == 0 && sw.x[1] == 1);
	assert_string_equal(sw.xlabel, "capture_buffer");
}

/* gp: the plot script of a sweep of the values in set, with no point run */
static char *gp(struct sweep *sw, const char *set)
{
	static struct sweep_table tb;
	char *errs, *text;
	size_t len;
	FILE *out;

	assert_int_equal(parse(sw, &errs, 1, set), 0);
	free(errs);
	sweep_axis(sw, NULL);
	memset(&tb, 0, sizeof(tb));
	assert_non_null(out = open_memstream(&text, &len));
	sweep_write_gp(sw, &tb, out);
	fclose(out);
	return text;
}

/* the x axis is logarithmic when the values span a decade, as
 * docs/sweeps.md says, and only then */
static void test_logx(void **state)
{
	static struct sweep sw;
	static const struct {
		const char *set;
		int logx;
	} cases[] = {
	    {"ttl=30,60,300,900", 1},		     /* docs/sweeps.md's: 30 */
	    {"ttl=1,10", 1},			     /* a decade exactly */
	    {"ttl=2,5,10", 0},			     /* README's: 5 */
	    {"probe_interval=100ms,250ms,990ms", 0}, /* 9.9 */
	    {"probe_interval=100ms,1s", 1},
	    {"sticky_share=0,0.1,0.5", 0}, /* 0 is not on a log axis */
	    {"capture_buffer=1M,64M", 0},  /* not numbers */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = gp(&sw, cases[i].set);

		if (sweep_logx(&sw) != cases[i].logx ||
		    (strstr(text, "\nset logscale x\n") != NULL) != cases[i].logx)
			fail_msg("%s: expected %s", cases[i].set,
				 cases[i].logx ? "set logscale x" : "a linear axis");
		free(text);
	}
}

/* STEERLAB_SET: its items after the command line's, and a bad one refused
 * under the variable's name */
static void test_env(void **state)
{
	static struct topology t;
	char buf[256], *sets[TOPO_MAX_SETS] = {"fail_at=1s"}, *errs;
	int nsets = 1, nenv;
	size_t len;
	FILE *err;

	(void)state;
	assert_int_equal(overrides_env(" duration=3s\tfail_at=2s ", buf, sizeof(buf), sets, &nsets,
				       TOPO_MAX_SETS, &nenv, stderr),
			 0);
	assert_int_equal(nenv, 2);
	assert_int_equal(nsets, 3);
	assert_string_equal(sets[1], "duration=3s");
	assert_string_equal(sets[2], "fail_at=2s");
	/* the variable's fail_at wins over the command line's */
	assert_int_equal(
	    overrides_load(&t, "tests/unit/data/topology/dns.ini", sets, nsets, stderr), 0);
	assert_int_equal(t.fail_at_ns, 2000000000LL);
	assert_int_equal(
	    overrides_env_check(&t, "tests/unit/data/topology/dns.ini", sets, nsets, nenv, stderr),
	    0);

	static const struct {
		const char *value, *want;
	} bad[] = {
	    {"duration", "STEERLAB_SET: 'duration': expected KEY=VALUE items separated by spaces"},
	    {"=3s", "STEERLAB_SET: '=3s': expected KEY=VALUE"},
	    {"ttl=30,60", "STEERLAB_SET: 'ttl=30,60': one value per key"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		nsets = 1;
		assert_non_null(err = open_memstream(&errs, &len));
		assert_int_equal(overrides_env(bad[i].value, buf, sizeof(buf), sets, &nsets,
					       TOPO_MAX_SETS, &nenv, err),
				 -1);
		fclose(err);
		if (strstr(errs, bad[i].want) == NULL)
			fail_msg("%s: got '%s'", bad[i].value, errs);
		free(errs);
	}

	/* a value refused: named as the variable's */
	nsets = 1;
	assert_int_equal(overrides_env("duration=forever", buf, sizeof(buf), sets, &nsets,
				       TOPO_MAX_SETS, &nenv, stderr),
			 0);
	assert_non_null(err = open_memstream(&errs, &len));
	assert_int_equal(
	    overrides_env_check(&t, "tests/unit/data/topology/dns.ini", sets, nsets, nenv, err),
	    -1);
	fclose(err);
	assert_string_equal(errs, "STEERLAB_SET: --set duration=forever: expected a duration such "
				  "as 100ms or 2s\n");
	free(errs);
}

/* load: overrides_load with its messages in *errs */
static int load(struct topology *t, const char *path, char **errs, int nsets, ...)
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
	rc = overrides_load(t, path, sets, nsets, err);
	fclose(err);
	return rc;
}

/* the value of key in raw section named name, or NULL; *count of them */
static const char *raw_value(const struct topology *t, const char *name, const char *key,
			     int *count)
{
	const char *v = NULL;

	*count = 0;
	for (int i = 0; i < t->nraw_pairs; i++) {
		const struct topo_raw_pair *p = &t->raw_pairs[i];
		if (strcmp(t->raw_sections[p->section].name, name) == 0 &&
		    strcmp(p->key, key) == 0) {
			v = p->value;
			(*count)++;
		}
	}
	return v;
}

static void test_ttl_override(void **state)
{
	static struct topology t;
	char *errs;
	int n;

	(void)state;
	/* without --set ttl: as written */
	assert_int_equal(load(&t, DATA "names.ini", &errs, 0), 0);
	free(errs);
	assert_null(raw_value(&t, "api.lab.example", "ttl", &n));
	assert_string_equal(raw_value(&t, "www.lab.example", "ttl", &n), "5");
	int before = t.nraw_pairs;

	/* every [name] gets it, the [zone] keeps its own; the other --set
	 * still reach the topology parser */
	assert_int_equal(load(&t, DATA "names.ini", &errs, 3, "duration=4s", "ttl = 90 ", "rate=7"),
			 0);
	assert_string_equal(errs, "");
	free(errs);
	assert_string_equal(raw_value(&t, "www.lab.example", "ttl", &n), "90");
	assert_int_equal(n, 1);
	assert_string_equal(raw_value(&t, "api.lab.example", "ttl", &n), "90");
	assert_int_equal(n, 1);
	assert_string_equal(raw_value(&t, "lab.example", "ttl", &n), "60");
	assert_true(t.duration_ns == 4000000000LL && t.rate == 7);
	assert_int_equal(t.nraw_pairs, before + 1);
	/* the added pair stays with its section, in section order, at its
	 * section's last line */
	for (int i = 1; i < t.nraw_pairs; i++)
		assert_true(t.raw_pairs[i - 1].section <= t.raw_pairs[i].section);
	for (int i = 0; i < t.nraw_pairs; i++) {
		const struct topo_raw_pair *p = &t.raw_pairs[i];
		if (strcmp(p->key, "ttl") == 0 &&
		    strcmp(t.raw_sections[p->section].name, "api.lab.example") == 0) {
			assert_int_equal(p->line, t.raw_pairs[i - 1].line);
			assert_string_equal(t.raw_pairs[i + 1].key, "policy");
		}
	}

	/* the last --set ttl wins; units as authd takes them */
	assert_int_equal(load(&t, DATA "names.ini", &errs, 2, "ttl=1", "ttl=5m"), 0);
	free(errs);
	assert_string_equal(raw_value(&t, "www.lab.example", "ttl", &n), "5m");
}

static void test_ttl_override_errors(void **state)
{
	static struct topology t;
	char *errs;

	(void)state;
	assert_int_equal(load(&t, DATA "names.ini", &errs, 1, "ttl=soon"), -1);
	assert_string_equal(errs, "--set ttl=soon: expected a TTL such as 30 or 5m (the TTL of the "
				  "[name] sections)\n");
	free(errs);
	assert_int_equal(load(&t, DATA "names.ini", &errs, 1, "ttl="), -1);
	assert_string_equal(errs, "--set ttl=: expected a TTL such as 30 or 5m (the TTL of the "
				  "[name] sections)\n");
	free(errs);
	assert_int_equal(load(&t, "tests/unit/data/topology/minimal.ini", &errs, 1, "ttl=30"), -1);
	assert_string_equal(errs,
			    "--set ttl=30: the topology has no [name] section (ttl is the TTL "
			    "a [name] hands out: docs/topology.md)\n");
	free(errs);
	/* a node's key called ttl is the topology parser's to refuse */
	assert_int_equal(load(&t, DATA "names.ini", &errs, 1, "c1.ttl=30"), -1);
	assert_non_null(strstr(errs, "--set c1.ttl=30: "));
	free(errs);
}

static void golden(const char *name, const struct sweep *sw, const struct sweep_table *tb,
		   void (*fn)(const struct sweep *, const struct sweep_table *, FILE *))
{
	char path[256], *got;
	size_t len;
	FILE *out = open_memstream(&got, &len);

	assert_non_null(out);
	fn(sw, tb, out);
	fclose(out);
	snprintf(path, sizeof(path), DATA "%s", name);
	test_assert_golden(path, got);
	free(got);
}

/* two points measured (one with a null clock), one not run; the DNS
 * windows of both are lower bounds (the observation was 3 s, and a
 * client still sent to the dead site then), and ttl=2 is invalid (its
 * clocks.json was given an agent_exited for this test) */
static void test_table_golden(void **state)
{
	static struct sweep sw;
	static struct sweep_table tb;
	char *errs;

	(void)state;
	assert_int_equal(parse(&sw, &errs, 3, "name=swp2", "duration=4s", "ttl=1,2,5"), 0);
	free(errs);
	sw.file = "tests/integration/data/compare.ini";
	sweep_axis(&sw, NULL);
	assert_int_equal(sweep_table_load(&sw, DATA, &tb, stderr), 0);
	assert_string_equal(tb.lab, "swp2");
	assert_int_equal(tb.nschemes, 2);
	assert_string_equal(tb.schemes[0], "anycast");
	assert_string_equal(tb.schemes[1], "dns");
	assert_false(tb.has_upstream[0]);
	assert_true(tb.has_upstream[1]);
	assert_true(tb.done[0] && tb.done[1] && !tb.done[2]);
	assert_true(isnan(tb.clocks[1][1].detect));
	assert_int_equal(tb.clocks[0][1].upstream, 19);
	/* the steering's deviation: DNS's only (anycast has no steering there) */
	assert_false(tb.has_deviation[0]);
	assert_true(tb.has_deviation[1]);
	assert_true(fabs(tb.clocks[0][1].deviation - 0.022) < 1e-9);
	assert_true(fabs(tb.clocks[1][1].deviation - 0.195) < 1e-9);
	assert_int_equal(tb.valid[0], 1);
	assert_int_equal(tb.valid[1], 0);
	assert_string_equal(tb.invalid[1], "agent_exited");
	assert_int_equal(sweep_invalid(&sw, &tb), 1);
	assert_true(tb.clocks[0][1].lb_window && !tb.clocks[0][0].lb_window);
	golden("sweep.csv", &sw, &tb, sweep_write_csv);
	golden("sweep.md", &sw, &tb, sweep_write_md);
	golden("sweep.gp", &sw, &tb, sweep_write_gp);
}

/* a sweep of steady-state runs (tests/integration/data/steady.ini behind a
 * [resolver] node of 8 caches, 6 s, ttl 1, 2, 5): no clocks, the steering's
 * deviation beside the upstream queries, seed 000's TTL trade-off; the plot
 * draws those two */
static void test_table_steady(void **state)
{
	static struct sweep sw;
	static struct sweep_table tb;
	char *errs;

	(void)state;
	assert_int_equal(parse(&sw, &errs, 3, "name=stqttl", "duration=6s", "ttl=1,2,5"), 0);
	free(errs);
	sw.file = DATA "steady/steady-resolver.ini";
	sweep_axis(&sw, NULL);
	assert_int_equal(sweep_table_load(&sw, DATA "steady", &tb, stderr), 0);
	assert_true(tb.steady);
	assert_int_equal(tb.nschemes, 1);
	assert_true(tb.has_deviation[0] && tb.has_upstream[0]);
	assert_int_equal(tb.clocks[0][0].upstream, 53);
	assert_true(isnan(tb.clocks[0][0].window));
	golden("steady/sweep.md", &sw, &tb, sweep_write_md);
	golden("steady/sweep.gp", &sw, &tb, sweep_write_gp);
}

/* what a user reads in the golden files: the lower bound, the invalid point */
static void test_table_marks(void **state)
{
	static struct sweep sw;
	static struct sweep_table tb;
	char *errs, *md, *csv, *gp;
	size_t len;
	FILE *out;

	(void)state;
	assert_int_equal(parse(&sw, &errs, 3, "name=swp2", "duration=4s", "ttl=1,2,5"), 0);
	free(errs);
	sweep_axis(&sw, NULL);
	assert_int_equal(sweep_table_load(&sw, DATA, &tb, stderr), 0);
	out = open_memstream(&md, &len);
	sweep_write_md(&sw, &tb, out);
	fclose(out);
	/* "≥" is one column: the lower bounds line up with the numbers */
	assert_non_null(strstr(
	    md,
	    "|           1 |               0.271 |               0.271 |          \u2265 3.002 |"));
	assert_non_null(strstr(
	    md,
	    "| 2 (invalid) |                   - |               0.291 |          \u2265 3.006 |"));
	assert_non_null(strstr(md, "\n|         ttl | detect (s) |"));
	assert_non_null(strstr(md, "\n|------------:|-----------:|"));
	assert_non_null(strstr(md, "**Invalid runs**"));
	assert_non_null(strstr(md, "- ttl=2 (ttl-2/): agent_exited\n"));
	out = open_memstream(&csv, &len);
	sweep_write_csv(&sw, &tb, out);
	fclose(out);
	assert_non_null(strstr(csv, ",dns_last_max_s,dns_window_lower_bound,"));
	assert_non_null(strstr(csv, ",1,,ttl-1\n"));
	assert_non_null(strstr(csv, ",0,agent_exited,ttl-2\n"));
	out = open_memstream(&gp, &len);
	sweep_gp_text(&sw, &tb, out, 1);
	fclose(out);
	/* the invalid point is not drawn; the lower bounds are, as triangles */
	assert_non_null(strstr(gp, "\n2 ? ? ? ? ? ? ? ? ? ? ? ? ? ? ? ? ? ?\n"));
	assert_non_null(
	    strstr(gp, "with points lt 2 pt 9 ps 2 title \"dns: lower bound (window_cut)\""));
	assert_non_null(strstr(gp, "(invalid runs left out: ttl=2)"));
	/* what the sweep runs writes to gnuplot's standard output */
	assert_non_null(strstr(gp, "\nset output\n"));
	free(gp);
	free(csv);
	free(md);
}

/* csv_cell: the cell of column col in the line of sweep.csv whose last
 * field is run, into buf; NULL if there is no such column or line (the
 * fields here are never quoted) */
static const char *csv_cell(const char *csv, const char *col, const char *run, char *buf,
			    size_t len)
{
	const char *line = csv, *end;
	char head[8192], row[8192], *h, *r, *hs, *rs;
	size_t n;

	end = strchr(csv, '\n');
	if (end == NULL || (size_t)(end - csv) >= sizeof(head))
		return NULL;
	memcpy(head, csv, (size_t)(end - csv));
	head[end - csv] = '\0';
	for (line = end + 1; *line; line = end + 1) {
		if ((end = strchr(line, '\n')) == NULL)
			return NULL;
		n = (size_t)(end - line);
		if (n >= sizeof(row))
			return NULL;
		memcpy(row, line, n);
		row[n] = '\0';
		r = strrchr(row, ',');
		if (r && strcmp(r + 1, run) == 0)
			break;
	}
	if (*line == '\0')
		return NULL;
	/* strsep keeps the empty fields */
	hs = head;
	rs = row;
	while ((h = strsep(&hs, ",")) != NULL) {
		r = strsep(&rs, ",");
		if (r == NULL)
			return NULL;
		if (strcmp(h, col) == 0) {
			snprintf(buf, len, "%s", r);
			return buf;
		}
	}
	return NULL;
}

static void expect_cell(const char *csv, const char *col, const char *run, const char *want)
{
	char buf[256];
	const char *got = csv_cell(csv, col, run, buf, sizeof(buf));

	if (got == NULL || strcmp(got, want) != 0)
		fail_msg("sweep.csv %s at %s: got %s, expected '%s'", col, run,
			 got ? got : "(no such cell)", want);
}

/* the model beside the measurement: each point's clocks.json "model"
 * (hand-written in the fixtures: ttl-1 has one, the DNS side's detect a
 * p5-p95 and three clocks its run judged outside; ttl-2's run has none, and
 * says why), read into the table and written as sweep.csv's columns,
 * sweep.md's rows and sweep.gp's dashed lines */
static void test_table_model(void **state)
{
	static struct sweep sw;
	static struct sweep_table tb;
	const struct sweep_model *any, *dns;
	char *errs, *md, *csv, *gp;
	size_t len;
	FILE *out;

	(void)state;
	assert_int_equal(parse(&sw, &errs, 3, "name=swp2", "duration=4s", "ttl=1,2,5"), 0);
	free(errs);
	sweep_axis(&sw, NULL);
	assert_int_equal(sweep_table_load(&sw, DATA, &tb, stderr), 0);
	any = &tb.clocks[0][0].model;
	dns = &tb.clocks[0][1].model;
	assert_true(any->present && dns->present);
	assert_false(tb.clocks[1][0].model.present || tb.clocks[1][1].model.present);
	assert_string_equal(tb.model_none[0], "");
	assert_string_equal(tb.model_none[1],
			    "topology.ini: crafted for the sweep's unit test: no model");
	assert_true(dns->clock[SWEEP_MODEL_DETECT].known);
	assert_true(fabs(dns->clock[SWEEP_MODEL_DETECT].p5 - 0.205) < 1e-12);
	assert_true(fabs(dns->clock[SWEEP_MODEL_DETECT].max - 0.3) < 1e-12);
	assert_true(fabs(dns->clock[SWEEP_MODEL_LAST_P50].p50 - 0.75) < 1e-12);
	assert_true(fabs(dns->clock[SWEEP_MODEL_UPSTREAM].p50 - 19) < 1e-12);
	/* the widening: the scheme's own, per kind of clock */
	assert_true(fabs(dns->tol[SWEEP_MODEL_WINDOW] - 0.1) < 1e-12);
	assert_true(fabs(dns->tol[SWEEP_MODEL_LOST_CLIENT] - 151) < 1e-12);
	assert_true(fabs(dns->tol[SWEEP_MODEL_UPSTREAM] - 1) < 1e-12);
	assert_true(fabs(any->tol[SWEEP_MODEL_LOST_CAPTURE] - 61) < 1e-12);
	assert_int_equal(dns->outside, (1u << SWEEP_MODEL_WINDOW) | (1u << SWEEP_MODEL_LAST_P99) |
					   (1u << SWEEP_MODEL_LAST_MAX));
	assert_int_equal(any->outside, 0);
	assert_int_equal(dns->later_step, 0);

	out = open_memstream(&csv, &len);
	sweep_write_csv(&sw, &tb, out);
	fclose(out);
	expect_cell(csv, "anycast_model_detect_s_p50", "ttl-1", "0.250000");
	expect_cell(csv, "anycast_model_lost_client_p95", "ttl-1", "150.000");
	expect_cell(csv, "dns_model_detect_s_p5", "ttl-1", "0.205000");
	expect_cell(csv, "dns_model_detect_s_p50", "ttl-1", "0.250000");
	expect_cell(csv, "dns_model_detect_s_p95", "ttl-1", "0.295000");
	expect_cell(csv, "dns_model_last_p50_s_p50", "ttl-1", "0.750000");
	expect_cell(csv, "dns_model_lost_client_p5", "ttl-1", "1600.500");
	expect_cell(csv, "dns_model_lost_capture_p95", "ttl-1", "1700.000");
	expect_cell(csv, "dns_model_upstream_queries_p50", "ttl-1", "19.000");
	expect_cell(csv, "dns_model_outside", "ttl-1",
		    "window_s last_per_client_s.p99 last_per_client_s.max");
	expect_cell(csv, "anycast_model_outside", "ttl-1", "");
	/* no model, and a point not run: empty, not zero */
	expect_cell(csv, "dns_model_detect_s_p50", "ttl-2", "");
	expect_cell(csv, "dns_model_window_s_p95", "ttl-5", "");
	/* the measured columns where they were */
	expect_cell(csv, "dns_detect_s", "ttl-1", "0.270938");
	expect_cell(csv, "dns_deviation", "ttl-1", "0.022000");
	/* anycast has no upstream queries, measured or modelled */
	assert_null(strstr(csv, "anycast_model_upstream"));

	out = open_memstream(&md, &len);
	sweep_write_md(&sw, &tb, out);
	fclose(out);
	/* under ttl=1: the model, then measured - p50 (0.270938 - 0.25) */
	assert_non_null(strstr(md, "|       model | 0.250 (0.205-0.295) | 0.250 (0.205-0.295) |"
				   "            2.500 |        0.750 |"));
	assert_non_null(strstr(md, "|  difference |              +0.021 |              +0.021 | "
				   "\u2265 +0.502 outside |       +0.062 |"));
	/* 1691 - 1650, the p5-p95 of a count */
	assert_non_null(strstr(md, "| 1650 (1600-1700) | 1650 (1600-1700) |               19 |"
				   "         - |\n"));
	assert_non_null(strstr(md, "|              +41 |              +41 |               +0 |"));
	assert_non_null(strstr(md, "|       model |      0.250 |     0.250 |      0.250 |"));
	assert_non_null(strstr(md, "|  difference |     +0.027 |    +0.027 |     +0.026 |"));
	/* ttl=2 has none: a row of dashes, no difference; ttl=5 no rows */
	assert_non_null(strstr(md,
			       "| 2 (invalid) |      0.284 |     0.284 |      0.283 |        "
			       "0.283 |        0.283 |        0.283 |           171 |            "
			       "171 |\n|       model |          - |"));
	assert_non_null(strstr(md, "|           5 |          - |         - |          - |"));
	assert_non_null(strstr(md, "\nNo model:\n\n- ttl=2 (ttl-2/): topology.ini: crafted for "
				   "the sweep's unit test: no model\n"));

	out = open_memstream(&gp, &len);
	sweep_write_gp(&sw, &tb, out);
	fclose(out);
	/* the model's window and lost (client) p50, p5, p95 after the measured */
	assert_non_null(strstr(gp, "\n1 0.275540677 166 ? 0.25 0.25 0.25 150 150 150 3.00233528 "
				   "1691 3.00233528 2.5 2.5 2.5 1650 1600.5 1700\n"));
	assert_non_null(strstr(gp, "$points using 1:14 with linespoints lt 2 dt 2 pt 6 title "
				   "\"dns: the model (p50)\""));
	/* the p5-p95 drawn where it is not one value: dns's losses only */
	assert_non_null(strstr(gp, "$points using 1:17:18:19 with yerrorbars lt 2 ps 0 title "
				   "\"dns: the model's p5-p95\""));
	assert_null(strstr(gp, "anycast: the model's p5-p95"));
	free(gp);
	free(csv);
	free(md);
}

/* a point's clocks.json, for a sweep built here */
static void put_clocks(const char *dir, const char *point, const char *json)
{
	char path[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, point);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/%s/clocks.json", dir, point);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(json, fp);
	fclose(fp);
}

/* an anycast-only lab: no DNS column, section, curve, anywhere */
static void test_table_absent_scheme(void **state)
{
	static struct sweep sw;
	static struct sweep_table tb;
	char dir[] = "/tmp/test_sweep.XXXXXX", *errs, *md, *csv, *gp, path[512];
	const char *json = "{\"lab\": \"any\", \"valid\": true, \"schemes\": {\"anycast\": "
			   "{\"window_s\": 0.25, \"window_lower_bound\": false, "
			   "\"lost_client\": 7}}, \"schemes_absent\": [\"dns\"], \"warnings\": []}";
	size_t len;
	FILE *out;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(parse(&sw, &errs, 1, "probe_interval=100ms,200ms"), 0);
	free(errs);
	sweep_axis(&sw, NULL);
	put_clocks(dir, sw.names[0], json);
	put_clocks(dir, sw.names[1], json);
	assert_int_equal(sweep_table_load(&sw, dir, &tb, stderr), 0);
	assert_int_equal(tb.nschemes, 1);
	assert_int_equal(sweep_invalid(&sw, &tb), 0);
	out = open_memstream(&md, &len);
	sweep_write_md(&sw, &tb, out);
	fclose(out);
	out = open_memstream(&csv, &len);
	sweep_write_csv(&sw, &tb, out);
	fclose(out);
	out = open_memstream(&gp, &len);
	sweep_write_gp(&sw, &tb, out);
	fclose(out);
	assert_null(strstr(md, "dns"));
	assert_null(strstr(csv, "dns"));
	assert_null(strstr(gp, "dns"));
	assert_non_null(strstr(md, "## anycast"));
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s/clocks.json", dir, sw.names[i]);
		unlink(path);
		snprintf(path, sizeof(path), "%s/%s", dir, sw.names[i]);
		rmdir(path);
	}
	rmdir(dir);
	free(gp);
	free(csv);
	free(md);
}

/* a scheme one point has and another has not: "absent" there, in its
 * column, aligned as the numbers */
static void test_table_absent_at_a_point(void **state)
{
	static struct sweep sw;
	static struct sweep_table tb;
	char dir[] = "/tmp/test_sweep.XXXXXX", *errs, *md, path[512];
	const char *both =
	    "{\"lab\": \"x\", \"valid\": true, \"schemes\": {\"anycast\": "
	    "{\"window_s\": 0.25, \"window_lower_bound\": false, \"lost_client\": 7}, "
	    "\"dns\": {\"window_s\": 12.5, \"window_lower_bound\": true, "
	    "\"lost_client\": 1234}}, \"warnings\": []}";
	const char *one =
	    "{\"lab\": \"x\", \"valid\": true, \"schemes\": {\"anycast\": "
	    "{\"window_s\": 0.5, \"window_lower_bound\": false, \"lost_client\": 9}}, "
	    "\"schemes_absent\": [\"dns\"], \"warnings\": []}";
	size_t len;
	FILE *out;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(parse(&sw, &errs, 1, "probe_interval=100ms,200ms"), 0);
	free(errs);
	sweep_axis(&sw, NULL);
	put_clocks(dir, sw.names[0], both);
	put_clocks(dir, sw.names[1], one);
	assert_int_equal(sweep_table_load(&sw, dir, &tb, stderr), 0);
	assert_int_equal(tb.nschemes, 2);
	out = open_memstream(&md, &len);
	sweep_write_md(&sw, &tb, out);
	fclose(out);
	assert_non_null(strstr(md, "|   \u2265 12.500 |"));
	assert_non_null(strstr(md, "|     absent |"));
	assert_non_null(strstr(md, "|          1234 |"));
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s/clocks.json", dir, sw.names[i]);
		unlink(path);
		snprintf(path, sizeof(path), "%s/%s", dir, sw.names[i]);
		rmdir(path);
	}
	rmdir(dir);
	free(md);
}

static void test_table_bad_json(void **state)
{
	static struct sweep sw;
	static struct sweep_table tb;
	char *errs;
	size_t len;
	FILE *err;

	(void)state;
	assert_int_equal(parse(&sw, &errs, 1, "ttl=8,9"), 0);
	free(errs);
	err = open_memstream(&errs, &len);
	assert_int_equal(sweep_table_load(&sw, DATA "bad", &tb, err), -1);
	fclose(err);
	assert_non_null(strstr(errs, DATA "bad/ttl-9/clocks.json:"));
	free(errs);
}

/* the lab of a point run beside others (--jobs, --via slurm): LAB-N, cut
 * to fit 12 characters, never ending the cut on a '-' */
static void test_point_lab(void **state)
{
	char buf[TOPO_NAME_MAX + 1];

	(void)state;
	sweep_point_lab("compare", 0, buf, sizeof(buf));
	assert_string_equal(buf, "compare-1");
	sweep_point_lab("compare", 11, buf, sizeof(buf));
	assert_string_equal(buf, "compare-12");
	sweep_point_lab("abcdefghijkl", 2, buf, sizeof(buf));
	assert_string_equal(buf, "abcdefghij-3");
	sweep_point_lab("abcdefghijkl", 63, buf, sizeof(buf));
	assert_string_equal(buf, "abcdefghi-64");
	sweep_point_lab("it-slm", 0, buf, sizeof(buf));
	assert_string_equal(buf, "it-slm-1");
	sweep_point_lab("abcdefghi-kl", 9, buf, sizeof(buf));
	assert_string_equal(buf, "abcdefghi-10");
	sweep_point_lab("abcdefgh-jkl", 9, buf, sizeof(buf));
	assert_string_equal(buf, "abcdefgh-10");
	assert_true(strlen(buf) <= TOPO_NAME_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_swept_and_fixed),
	    cmocka_unit_test(test_parse_point_names),
	    cmocka_unit_test(test_parse_errors),
	    cmocka_unit_test(test_axis),
	    cmocka_unit_test(test_ttl_override),
	    cmocka_unit_test(test_ttl_override_errors),
	    cmocka_unit_test(test_logx),
	    cmocka_unit_test(test_env),
	    cmocka_unit_test(test_table_golden),
	    cmocka_unit_test(test_table_steady),
	    cmocka_unit_test(test_table_absent_at_a_point),
	    cmocka_unit_test(test_table_marks),
	    cmocka_unit_test(test_table_model),
	    cmocka_unit_test(test_table_absent_scheme),
	    cmocka_unit_test(test_table_bad_json),
	    cmocka_unit_test(test_point_lab),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
