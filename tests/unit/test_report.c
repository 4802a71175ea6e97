/*
 * probes/report: the report, and what it draws on from probes/clocks (the
 * decay curve, the budget arithmetic). The decay curve, the budget and the
 * upstream series on inputs built by hand (struct clocks_input, no files);
 * then the whole report of a small recorded run (tests/unit/data/report/run/,
 * a 3 s run of topology/compare.ini at low rates), copied to a temporary
 * directory: its report.md (all but the machine section) and decay.csv
 * must match the golden files beside it, with or without gnuplot (without
 * it, everything but the PNGs is compared), and without gnuplot everything
 * but the PNGs is still written. A stand-in gnuplot shows that one gnuplot
 * draws both plots and gives report.md its version, each PNG through its own
 * descriptor, and what a failing one leaves; --times prints each stage's
 * time and changes nothing else.
 *
 * UPDATE_GOLDEN=1 writes a golden file that differs to FILE.new (test_assert_golden, test_file.h).
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <jansson.h>
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

#include "report.h"
#include "test_rundir.h"
#include "test_file.h"

#define T0 1700000000000000000LL
#define MS 1000000LL
#define S 1000000000LL
#define DATA "tests/unit/data/report/"
#define ANY "198.19.0.1"
#define ADDR_A "198.19.1.1"
#define ADDR_B "198.19.1.2"
#define DNS_ID(n) (WIRE_DNS_CLIENT_BASE + (n))

static struct in_addr addr(const char *s)
{
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a;
}

/* input: site a (ADDR_A) fails at T0; the clients send for 10 s from
 * T0 - 3 s */
static void input(struct clocks_input *in)
{
	clocks_input_init(in);
	snprintf(in->lab, sizeof(in->lab), "t");
	in->port = 7000;
	in->failure.t0_ns = T0;
	snprintf(in->failure.site, sizeof(in->failure.site), "a");
	in->failure.via = addr("198.18.0.2");
	in->failure.prefix = addr(ANY);
	in->failure.prefixlen = 32;
	in->failure.has_address = 1;
	in->failure.address = addr(ADDR_A);
	in->traffic_start_ns = T0 - 3 * S;
	in->traffic_duration_ns = 10 * S;
	in->have_requests = 1;
}

static void capture(struct clocks_input *in, const char *label)
{
	struct clocks_capture *c;

	in->captures = realloc(in->captures, (in->ncaptures + 1) * sizeof(*in->captures));
	assert_non_null(in->captures);
	c = &in->captures[in->ncaptures++];
	memset(c, 0, sizeof(*c));
	snprintf(c->label, sizeof(c->label), "%s", label);
}

/* pkt: a request of client to dst at t in the capture called label */
static void pkt(struct clocks_input *in, const char *label, int64_t t, uint32_t client,
		const char *dst)
{
	for (size_t i = 0; i < in->ncaptures; i++) {
		struct clocks_capture *c = &in->captures[i];

		if (strcmp(c->label, label) != 0)
			continue;
		c->packets = realloc(c->packets, (c->n + 1) * sizeof(*c->packets));
		assert_non_null(c->packets);
		c->packets[c->n++] = (struct clocks_packet){t, client, 0, addr(dst)};
		return;
	}
	fail_msg("no capture %s", label);
}

static void record(struct clocks_input *in, uint32_t client, int64_t sent,
		   enum clocks_status status)
{
	in->requests = realloc(in->requests, (in->nrequests + 1) * sizeof(*in->requests));
	assert_non_null(in->requests);
	in->requests[in->nrequests++] = (struct clocks_request){
	    .client = client, .sent_ns = sent, .status = status, .site = "a"};
}

static void test_bucket_of(void **state)
{
	(void)state;
	/* bucket k holds (t0 + k w, t0 + (k+1) w] */
	assert_int_equal(clocks_bucket_of(1, 100), 0);
	assert_int_equal(clocks_bucket_of(100, 100), 0);
	assert_int_equal(clocks_bucket_of(101, 100), 1);
	assert_int_equal(clocks_bucket_of(0, 100), -1);
	assert_int_equal(clocks_bucket_of(-99, 100), -1);
	assert_int_equal(clocks_bucket_of(-100, 100), -2);
	assert_int_equal(clocks_bucket_of(-3 * S - 1, S), -4);
}

static void test_auto_bucket(void **state)
{
	(void)state;
	assert_int_equal(clocks_decay_auto_bucket(30 * 60 * S), S);
	assert_int_equal(clocks_decay_auto_bucket(50 * S), S);
	assert_int_equal(clocks_decay_auto_bucket(49 * S), 100 * MS);
	assert_int_equal(clocks_decay_auto_bucket(7 * S), 100 * MS);
	assert_int_equal(clocks_decay_auto_bucket(2 * S), 10 * MS);
	assert_int_equal(clocks_decay_auto_bucket(100 * MS), 10 * MS);
	assert_int_equal(clocks_decay_auto_bucket(0), 10 * MS);
}

/*
 * decay_input: buckets of 100 ms. In capture a, after t0:
 *
 *   bucket 0 (0, 100 ms]    anycast 1, 2 to ANY; DNS 100001 to ADDR_A
 *   bucket 1 (100, 200]     anycast 1 to ANY; DNS 100001 to ADDR_A, at 200 ms
 *   bucket 3 (300, 400]     DNS 100002 to ADDR_A; a probe (id 0) to ADDR_A;
 *                           DNS 100001 to ANY (not to the dead site's address);
 *                           anycast 1 to ADDR_A (not an anycast flow)
 *
 * and before it (not counted): anycast 1 at t0 - 50 ms, DNS 100001 at t0.
 * In capture b: anycast 1 and 2 in bucket 1, anycast 1 in 2 and 3; DNS
 * 100001 to ADDR_B in bucket 2 and 3, a probe in 3.
 */
static void decay_input(struct clocks_input *in)
{
	input(in);
	capture(in, "a");
	capture(in, "b");
	pkt(in, "a", T0 - 50 * MS, 1, ANY);
	pkt(in, "a", T0, DNS_ID(1), ADDR_A);
	pkt(in, "a", T0 + 10 * MS, 1, ANY);
	pkt(in, "a", T0 + 20 * MS, 2, ANY);
	pkt(in, "a", T0 + 100 * MS, DNS_ID(1), ADDR_A);
	pkt(in, "a", T0 + 150 * MS, 1, ANY);
	pkt(in, "a", T0 + 200 * MS, DNS_ID(1), ADDR_A);
	pkt(in, "a", T0 + 310 * MS, DNS_ID(2), ADDR_A);
	pkt(in, "a", T0 + 320 * MS, WIRE_PROBE_CLIENT, ADDR_A);
	pkt(in, "a", T0 + 330 * MS, DNS_ID(1), ANY);
	pkt(in, "a", T0 + 340 * MS, 1, ADDR_A);
	pkt(in, "b", T0 + 160 * MS, 1, ANY);
	pkt(in, "b", T0 + 170 * MS, 2, ANY);
	pkt(in, "b", T0 + 250 * MS, 1, ANY);
	pkt(in, "b", T0 + 260 * MS, DNS_ID(1), ADDR_B);
	pkt(in, "b", T0 + 350 * MS, 1, ANY);
	pkt(in, "b", T0 + 360 * MS, DNS_ID(1), ADDR_B);
	pkt(in, "b", T0 + 370 * MS, WIRE_PROBE_CLIENT, ADDR_B);
	/* the observation ends at 400 ms: traffic_started + duration */
	in->traffic_duration_ns = 3 * S + 400 * MS;
}

static void assert_bucket(const struct clocks_decay_series *s, size_t k, int64_t dead, int64_t all)
{
	assert_int_equal(s->dead[k], dead);
	assert_int_equal(s->all[k], all);
}

static void test_decay(void **state)
{
	struct clocks_input in;
	struct clocks_decay d;
	struct clocks_result r;
	char err[256];
	int64_t sum = 0;

	(void)state;
	decay_input(&in);
	assert_int_equal(clocks_observation_end(&in), T0 + 400 * MS);
	assert_int_equal(clocks_decay(&in, 100 * MS, &d, err, sizeof(err)), 0);
	assert_int_equal(d.n, 4);
	assert_int_equal(d.end_ns, 400 * MS);
	assert_true(d.s[0].known && d.s[1].known);
	/* anycast */
	assert_bucket(&d.s[0], 0, 2, 2);
	assert_bucket(&d.s[0], 1, 1, 3);
	assert_bucket(&d.s[0], 2, 0, 1);
	assert_bucket(&d.s[0], 3, 0, 1);
	/* dns: the 100001 to ANY in a is the scheme's, not to the dead site */
	assert_bucket(&d.s[1], 0, 1, 1);
	assert_bucket(&d.s[1], 1, 1, 1);
	assert_bucket(&d.s[1], 2, 0, 1);
	assert_bucket(&d.s[1], 3, 1, 3);
	/* the buckets add up to what the clocks count */
	clocks_dns(&in, &r);
	for (size_t k = 0; k < d.n; k++)
		sum += d.s[1].dead[k];
	assert_int_equal(sum, r.lost_capture);
	clocks_result_free(&r);
	clocks_decay_free(&d);

	/* a bucket that does not divide the observation: the last is short */
	assert_int_equal(clocks_decay(&in, 150 * MS, &d, err, sizeof(err)), 0);
	assert_int_equal(d.n, 3);
	assert_bucket(&d.s[0], 2, 0, 1);
	clocks_decay_free(&d);
	clocks_input_free(&in);
}

static void test_decay_limits(void **state)
{
	struct clocks_input in;
	struct clocks_decay d;
	char err[256];

	(void)state;
	decay_input(&in);
	/* a late request stretches the observation */
	pkt(&in, "b", T0 + 1234 * MS, 2, ANY);
	assert_int_equal(clocks_observation_end(&in), T0 + 1234 * MS);
	assert_int_equal(clocks_decay(&in, 100 * MS, &d, err, sizeof(err)), 0);
	assert_int_equal(d.n, 13);
	assert_bucket(&d.s[0], 12, 0, 1);
	clocks_decay_free(&d);

	/* too many buckets is an error, not a gigabyte */
	assert_int_equal(clocks_decay(&in, 1, &d, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "choose a longer one"));
	clocks_decay_free(&d);

	/* without traffic_started, traffic_stopped ends it */
	in.traffic_duration_ns = CLOCKS_NONE;
	in.traffic_stop_ns = T0 + 5 * S;
	assert_int_equal(clocks_observation_end(&in), T0 + 5 * S);

	/* dns cannot be told without the site's address; neither without
	 * the failed site's capture */
	in.failure.has_address = 0;
	assert_int_equal(clocks_decay(&in, 100 * MS, &d, err, sizeof(err)), 0);
	assert_true(d.s[0].known);
	assert_false(d.s[1].known);
	clocks_decay_free(&d);
	snprintf(in.captures[0].label, sizeof(in.captures[0].label), "x");
	assert_int_equal(clocks_decay(&in, 100 * MS, &d, err, sizeof(err)), 0);
	assert_false(d.s[0].known);
	clocks_decay_free(&d);
	clocks_input_free(&in);

	/* nothing after t0: no buckets */
	input(&in);
	in.traffic_duration_ns = 2 * S; /* ends before t0 */
	assert_int_equal(clocks_decay(&in, 100 * MS, &d, err, sizeof(err)), 0);
	assert_int_equal(d.n, 0);
	clocks_decay_free(&d);
	clocks_input_free(&in);
}

static void assert_near(double got, double want)
{
	if (fabs(got - want) > 1e-9 * (fabs(want) > 1 ? fabs(want) : 1))
		fail_msg("%.12g, want %.12g", got, want);
}

/*
 * budget_input: anycast client 1 sends 100 requests over the 10 s (10 a
 * second); 4 of them, sent at t0 + 10, 20, 30, 40 ms, time out, one more
 * at t0 + 45 ms fails to send; one ok request is sent at t0 + 48 ms. Its
 * window is 50 ms: the 6 requests sent in it, 5 failed. Before t0, one
 * more timeout: failures of any cause count.
 */
static void budget_input(struct clocks_input *in, struct clocks_result *r)
{
	input(in);
	for (int i = 0; i < 93; i++)
		record(in, 1, T0 - 3 * S + i * MS, CLOCKS_OK);
	record(in, 1, T0 - 1 * S, CLOCKS_TIMEOUT);
	for (int i = 1; i <= 4; i++)
		record(in, 1, T0 + i * 10 * MS, CLOCKS_TIMEOUT);
	record(in, 1, T0 + 45 * MS, CLOCKS_ERROR);
	record(in, 1, T0 + 48 * MS, CLOCKS_OK);
	/* a DNS record: not anycast's */
	record(in, DNS_ID(1), T0 + 20 * MS, CLOCKS_TIMEOUT);
	memset(r, 0, sizeof(*r));
	r->scheme = "anycast";
	r->sent = 100;
	r->lost_client = 5;
	r->errors = 1;
	r->window_ns = 50 * MS;
}

static void test_budget(void **state)
{
	struct clocks_input in;
	struct clocks_result r;
	struct clocks_budget b;

	(void)state;
	budget_input(&in, &r);
	clocks_budget(&in, &r, 99.9, &b);
	/* 0.1 % of 30 days: 43.2 minutes */
	assert_near(b.budget_s, 43.2 * 60);
	assert_int_equal(b.failed, 6);
	assert_int_equal(b.traffic_ns, 10 * S);
	assert_near(b.rate_per_s, 10);
	assert_near(b.downtime_s, 0.6);
	assert_int_equal(b.window_sent, 6);
	assert_int_equal(b.window_failed, 5);
	assert_near(b.window_lost, 5.0 / 6);
	assert_near(b.share_downtime, 0.6 / 2592);
	assert_near(b.share_window, 0.05 / 2592);

	/* another SLO: 99.95 % is half the budget */
	clocks_budget(&in, &r, 99.95, &b);
	assert_near(b.budget_s, 21.6 * 60);
	assert_near(b.share_downtime, 0.6 / 1296);

	/* the traffic time from traffic_stopped when there is no duration */
	in.traffic_duration_ns = 0;
	in.traffic_stop_ns = T0 + 2 * S; /* 5 s after the start */
	clocks_budget(&in, &r, 99.9, &b);
	assert_near(b.rate_per_s, 20);
	assert_near(b.downtime_s, 0.3);

	/* unknown: no traffic time, so no rate and no downtime */
	in.traffic_stop_ns = CLOCKS_NONE;
	clocks_budget(&in, &r, 99.9, &b);
	assert_true(b.rate_per_s < 0 && b.downtime_s < 0 && b.share_downtime < 0);
	assert_near(b.share_window, 0.05 / 2592);

	/* no records: nothing failed is known */
	r.lost_client = r.sent = CLOCKS_NONE;
	in.have_requests = 0;
	in.traffic_duration_ns = 10 * S;
	clocks_budget(&in, &r, 99.9, &b);
	assert_int_equal(b.failed, CLOCKS_NONE);
	assert_int_equal(b.window_sent, CLOCKS_NONE);
	assert_true(b.window_lost < 0 && b.downtime_s < 0);
	clocks_input_free(&in);
}

static void test_parse_slo(void **state)
{
	double p = 0;

	(void)state;
	assert_int_equal(report_parse_slo("99.95", &p), 0);
	assert_near(p, 99.95);
	assert_int_equal(report_parse_slo("99%", &p), 0);
	assert_near(p, 99);
	assert_int_equal(report_parse_slo("100", &p), -1);
	assert_int_equal(report_parse_slo("0", &p), -1);
	assert_int_equal(report_parse_slo("-5", &p), -1);
	assert_int_equal(report_parse_slo("99.9x", &p), -1);
	assert_int_equal(report_parse_slo("", &p), -1);
}

static void query(struct clocks_input *in, int64_t t, const char *src)
{
	struct clocks_query_capture *c = &in->qcaptures[0];

	c->queries = realloc(c->queries, (c->n + 1) * sizeof(*c->queries));
	assert_non_null(c->queries);
	c->queries[c->n++] = (struct clocks_query){t, addr(src), 0};
}

static void test_upstream_series(void **state)
{
	struct report_upstream_series u;
	struct clocks_input in;
	char err[256];

	(void)state;
	input(&in);
	in.traffic_duration_ns = 5 * S; /* ends at t0 + 2 s */
	assert_int_equal(report_upstream_series(&in, &u, err, sizeof(err)), 0);
	assert_false(u.known);
	report_upstream_series_free(&u);

	in.qcaptures = calloc(1, sizeof(*in.qcaptures));
	assert_non_null(in.qcaptures);
	in.nqcaptures = 1;
	query(&in, T0 - 2500 * MS, "198.18.128.2"); /* second -3: (-3 s, -2 s] */
	query(&in, T0 - 2400 * MS, "198.18.128.1");
	query(&in, T0, "198.18.128.10"); /* at t0: second -1, before */
	query(&in, T0 + 1, "198.18.128.2");
	query(&in, T0 + 1500 * MS, "198.18.128.2");
	assert_int_equal(report_upstream_series(&in, &u, err, sizeof(err)), 0);
	assert_true(u.known);
	/* from the first query's second to the end of the observation's */
	assert_int_equal(u.first, -3);
	assert_int_equal(u.n, 5);
	/* sources in address order, not text order */
	assert_int_equal(u.nsrc, 3);
	assert_int_equal(u.src[0].s_addr, addr("198.18.128.1").s_addr);
	assert_int_equal(u.src[1].s_addr, addr("198.18.128.2").s_addr);
	assert_int_equal(u.src[2].s_addr, addr("198.18.128.10").s_addr);
	assert_int_equal(u.total[0], 2);
	assert_int_equal(u.total[1], 0);
	assert_int_equal(u.total[2], 1);
	assert_int_equal(u.total[3], 1);
	assert_int_equal(u.total[4], 1);
	assert_int_equal(u.count[0 * 3 + 0], 1);
	assert_int_equal(u.count[0 * 3 + 1], 1);
	assert_int_equal(u.count[2 * 3 + 2], 1);
	assert_int_equal(u.count[4 * 3 + 1], 1);
	assert_int_equal(u.before[1], 1);
	assert_int_equal(u.after[1], 2);
	assert_int_equal(u.before[2], 1);
	assert_int_equal(u.after[2], 0);
	report_upstream_series_free(&u);
	clocks_input_free(&in);
}

/* The recorded run, copied to a temporary directory for each test. */

static int setup_run(void **state)
{
	char *dir = rundir_new("test_report");

	/* run the tests from the repository root */
	if (dir == NULL || rundir_copy(dir, DATA "run") == -1)
		return -1;
	*state = dir;
	return 0;
}

static int teardown_run(void **state)
{
	rundir_free(*state);
	return 0;
}

static int exists(const char *dir, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

/* report: report_run on dir with opts; the terminal output */
static char *report(const char *dir, const struct report_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(out);
	assert_int_equal(report_run(dir, o, out), 0);
	fclose(out);
	return buf;
}

/* golden: compare text with DATA name (test_assert_golden, test_file.h) */
static void golden(const char *text, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), DATA "%s", name);
	test_assert_golden(path, text);
}

static int have_gnuplot(void)
{
	return system("gnuplot --version >/dev/null 2>&1") == 0;
}

static void test_golden_report(void **state)
{
	const char *dir = *state;
	char path[512], *md, *machine, *csv, *out, *png;
	int plots = have_gnuplot();
	/* without gnuplot, "true" stands in for it: it draws nothing and
	 * succeeds, so everything but the PNGs is still compared */
	struct report_opts o = {.gnuplot = plots ? NULL : "true"};

	if (!plots)
		print_message("gnuplot is not installed (make deps): the golden report "
			      "is checked without its PNGs\n");
	out = report(dir, &o);
	assert_non_null(strstr(out, "report: "));
	snprintf(path, sizeof(path), "%s/report.md", dir);
	md = test_read_file(path);
	/* the machine section is the last, and the only one that differs
	 * from machine to machine */
	machine = strstr(md, "\n## Machine\n");
	assert_non_null(machine);
	assert_non_null(strstr(machine, "\n- steerlab: "));
	assert_non_null(strstr(machine, "\n- libpcap: "));
	assert_non_null(strstr(machine, "\n- libknot: "));
	assert_non_null(strstr(machine, "\n- kernel: "));
	assert_non_null(strstr(machine, "\n- link delays: none configured; sch_netem: "));
	machine[1] = '\0';
	golden(md, "report.md.golden");
	snprintf(path, sizeof(path), "%s/decay.csv", dir);
	csv = test_read_file(path);
	golden(test_mask_csvmeta(csv), "decay.csv.golden");
	/* and the other files */
	assert_true(exists(dir, "clocks.json") && exists(dir, "upstream.csv"));
	assert_true(exists(dir, "decay.gp") && exists(dir, "upstream.gp"));
	assert_false(exists(dir, "gnuplot.log"));
	if (plots) {
		snprintf(path, sizeof(path), "%s/decay.png", dir);
		png = test_read_file(path);
		assert_memory_equal(png, "\x89PNG", 4);
		free(png);
	}
	free(csv);
	free(md);
	free(out);
}

/* count: the occurrences of needle in text */
static int count(const char *text, const char *needle)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	return n;
}

/* Each warning is said once, in one line, after the title, with their
 * count: the terminal's table and report.md alike (issue 22). The golden
 * run has one, window_cut. */
static void test_warnings_once(void **state)
{
	const char *dir = *state;
	struct report_opts o = {.gnuplot = "true"};
	char path[512], *out, *md, *title, *after;

	out = report(dir, &o);
	/* the title (two lines), then the count, then the warning */
	title = strstr(out, "lab golden: site a failed at t0 = ");
	assert_ptr_equal(title, out);
	after = strchr(strchr(title, '\n') + 1, '\n') + 1;
	assert_memory_equal(after,
			    "1 warning (the run is valid; docs/clocks.md, \"Verdict\"):\n"
			    "warning (window_cut): dns: the window (>= 1.972 s) is a lower "
			    "bound",
			    110);
	assert_int_equal(count(out, "(window_cut): "), 1);
	assert_int_equal(count(out, "the window (>= 1.972 s) is a lower bound"), 1);
	/* the last line counts it, and does not say it again */
	assert_null(strstr(out, "valid run, with warnings: window_cut"));
	assert_non_null(strstr(out, "\nvalid run, with 1 warning (above; docs/clocks.md, "
				    "\"Verdict\")\n"));
	snprintf(path, sizeof(path), "%s/report.md", dir);
	md = test_read_file(path);
	assert_memory_equal(md, "# Run report: lab golden\n\n**1 warning** (the run is valid", 54);
	assert_int_equal(count(md, "`window_cut`"), 1);
	assert_int_equal(count(md, "the window (>= 1.972 s) is a lower bound"), 1);
	assert_int_equal(count(md, "window_cut"), 2); /* and the legend's "≥" */
	free(md);
	free(out);
}

/* clocks.json keeps every field of the clocks and gains each budget */
static void test_report_json(void **state)
{
	const char *dir = *state;
	struct report_opts o = {.slo_pct = 99.95, .bucket_ns = 100 * MS, .gnuplot = "true"};
	json_t *root, *any, *b;
	char path[512], *out, *csv;
	json_error_t jerr;
	size_t lines = 0;

	out = report(dir, &o);
	snprintf(path, sizeof(path), "%s/clocks.json", dir);
	root = json_load_file(path, 0, &jerr);
	assert_non_null(root);
	any = json_object_get(json_object_get(root, "schemes"), "anycast");
	assert_non_null(json_object_get(any, "window_s"));
	assert_non_null(json_object_get(any, "last_per_client_s"));
	b = json_object_get(any, "budget");
	assert_non_null(b);
	assert_near(json_real_value(json_object_get(b, "slo_pct")), 99.95);
	assert_near(json_real_value(json_object_get(b, "budget_s")), 1296);
	assert_true(json_is_real(json_object_get(b, "equivalent_downtime_s")));
	assert_true(json_is_integer(json_object_get(b, "window_failed")));
	assert_non_null(json_object_get(json_object_get(json_object_get(root, "schemes"), "dns"),
					"upstream_resolvers"));
	json_decref(root);
	/* the run observed about 2 s after t0: 20 buckets of 100 ms */
	snprintf(path, sizeof(path), "%s/decay.csv", dir);
	csv = test_read_file(path);
	for (char *p = csv; p != NULL && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		lines += *p != '#';
	/* the '#' lines (lib/csvmeta.h), the header, 20 buckets */
	assert_true(strncmp(csv, "# steerlab ", 11) == 0);
	assert_int_equal(lines, 1 + 20);
	assert_non_null(strstr(out, "SLO 99.95 %: 21.6 min"));
	free(csv);
	free(out);
}

/* without gnuplot: every file but the PNGs, and report.md says why */
static void test_report_without_gnuplot(void **state)
{
	const char *dir = *state;
	struct report_opts o = {.gnuplot = "steerlab-test-no-such-gnuplot"};
	char path[512], *md, *out;

	out = report(dir, &o);
	assert_non_null(strstr(out, "steerlab-test-no-such-gnuplot was not found"));
	snprintf(path, sizeof(path), "%s/report.md", dir);
	md = test_read_file(path);
	assert_non_null(strstr(md, "steerlab-test-no-such-gnuplot was not found"));
	assert_null(strstr(md, "(decay.png)"));
	assert_non_null(strstr(md, "- gnuplot: not found"));
	assert_true(exists(dir, "clocks.json") && exists(dir, "decay.csv") &&
		    exists(dir, "upstream.csv") && exists(dir, "decay.gp") &&
		    exists(dir, "upstream.gp"));
	assert_false(exists(dir, "decay.png"));
	free(md);
	free(out);
}

/* put_file: write text to dir/name */
static void put_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
}

static int is_link(const char *dir, const char *name)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

static int is_file(const char *dir, const char *name)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return lstat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* links planted in the run directory are not followed: not under the
 * names of the temporary files of old (NAME.tmp), not under the files'
 * own names; the report writes new files beside them and renames them
 * into place (lib/atomicfile.h), and gnuplot writes no file itself */
static void test_report_symlinks(void **state)
{
	static const char *const tmp[] = {"clocks.json.tmp",  "report.md.tmp", "decay.csv.tmp",
					  "upstream.csv.tmp", "decay.gp.tmp",  "decay.png.tmp"};
	static const char *const own[] = {"clocks.json", "report.md",	 "decay.csv",
					  "decay.png",	 "upstream.png", "gnuplot.log"};
	struct report_opts o = {.gnuplot = have_gnuplot() ? NULL : "true"};
	const char *dir = *state;
	char path[512], *text;

	put_file(dir, "victim.txt", "untouched\n");
	for (size_t i = 0; i < sizeof(tmp) / sizeof(tmp[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, tmp[i]);
		assert_int_equal(symlink("victim.txt", path), 0);
	}
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, own[i]);
		assert_int_equal(symlink("victim.txt", path), 0);
	}
	free(report(dir, &o));
	snprintf(path, sizeof(path), "%s/victim.txt", dir);
	text = test_read_file(path);
	assert_string_equal(text, "untouched\n");
	free(text);
	/* the planted NAME.tmp links are left as they were */
	for (size_t i = 0; i < sizeof(tmp) / sizeof(tmp[0]); i++)
		assert_true(is_link(dir, tmp[i]));
	/* and the files are new files in place of the links */
	assert_true(is_file(dir, "clocks.json") && is_file(dir, "report.md") &&
		    is_file(dir, "decay.csv") && is_file(dir, "upstream.csv"));
	if (have_gnuplot())
		assert_true(is_file(dir, "decay.png") && is_file(dir, "upstream.png"));
	/* an empty log is removed, link or not */
	assert_false(is_link(dir, "gnuplot.log"));
}

/* decay.png explains itself (issue 22): the DNS curve is not drawn twice
 * (every DNS client of the golden run asks r: r's curve is the DNS curve,
 * named in its title); the timeline's labels sit above the plot, not on
 * the axis at x = 0 (the plot starts before t0); each scheme's detect and
 * steer are marked, and DNS's steer + TTL (the golden run's name given a
 * TTL of 1 s so that it falls in the 2 s observed) */
static void test_decay_plot(void **state)
{
	const char *dir = *state;
	struct report_opts o = {.gnuplot = "true"};
	char path[512], *topo, *ttl, *gp, *out;

	snprintf(path, sizeof(path), "%s/topology.ini", dir);
	topo = test_read_file(path);
	ttl = strstr(strstr(topo, "[name www.lab.example]"), "ttl = 2");
	assert_non_null(ttl);
	ttl[6] = '1';
	put_file(dir, "topology.ini", topo);
	free(topo);
	out = report(dir, &o);
	snprintf(path, sizeof(path), "%s/decay.gp", dir);
	gp = test_read_file(path);
	assert_null(strstr(gp, "title \"DNS via r (resolverd)\""));
	assert_non_null(strstr(gp, "title \"DNS steering (all via r (resolverd))\""));
	/* each scheme's curve, and its model's, dashed, from the last columns
	 * of decay.csv (12 and 13: after the resolver's) */
	assert_int_equal(count(gp, "\"decay.csv\" using"), 4);
	assert_non_null(strstr(gp, "\"decay.csv\" using 1:($12 * 100) with steps lw 2 dt 2 lc rgb "
				   "\"#08306b\" title \"anycast: the model (steerlab model)\""));
	assert_non_null(strstr(gp,
			       "\"decay.csv\" using 1:($13 * 100) with steps lw 2 dt 2 lc rgb "
			       "\"#67000d\" title \"DNS steering: the model (steerlab model)\""));
	assert_null(strstr(gp, "rotate by -90"));
	assert_non_null(strstr(gp, "\nset xrange [-0.049"));
	assert_non_null(strstr(gp, "\nset label \"fail: kill a\" at 0, graph 1 left offset"));
	assert_non_null(strstr(gp, "\nset label \"anycast detect, steer\" at 0.2840242, graph 1"));
	assert_non_null(strstr(gp, "\nset label \"dns detect, steer\" at 0.281383448, graph 1"));
	assert_non_null(strstr(gp, "\nset label \"dns steer + TTL\" at 1.281407333, graph 1"));
	free(gp);
	free(out);
}

/* A failure the timeline recovers (issue 22): the golden run with a's
 * recovery 1.2 s after t0 written into its timeline. The decay's table
 * stops before it (the share still sent to the dead site means nothing
 * once it is back), the fail-back's own table follows from it, and
 * report.md has both. */
static void test_report_failback(void **state)
{
	const char *dir = *state;
	struct report_opts o = {.gnuplot = "true"};
	char path[512], *events, *text, *md, *fb, *decay;
	size_t len;
	FILE *out;

	snprintf(path, sizeof(path), "%s/lab.events.jsonl", dir);
	events = test_read_file(path);
	events = realloc(events, strlen(events) + 512);
	assert_non_null(events);
	strcat(events, "{\"t\":1796004456489159598,\"node\":\"lab\",\"agent\":\"steerlab\","
		       "\"event\":\"event_applied\",\"name\":\"back\",\"action\":\"recover\","
		       "\"target\":\"a\",\"kind\":\"site\",\"site\":\"a\",\"step\":null,"
		       "\"cycle\":0,\"vias\":[\"198.18.0.2\"],\"by\":\"timeline\"}\n");
	put_file(dir, "lab.events.jsonl", events);
	free(events);
	out = open_memstream(&text, &len);
	assert_non_null(out);
	assert_true(report_run(dir, &o, out) >= 0);
	fclose(out);
	decay = strstr(text, "\ndecay: share of each scheme's requests sent to a while it was out");
	assert_non_null(decay);
	fb = strstr(text, "\nfail-back: share of each scheme's requests sent to a again after its "
			  "recovery at 1.200 s");
	assert_non_null(fb);
	assert_true(fb > decay);
	/* the failure's table ends before the recovery */
	assert_non_null(strstr(decay, "\n1.2 s (before recovery) "));
	assert_true(strstr(decay, "\n1.5 s") == NULL || strstr(decay, "\n1.5 s") > fb);
	assert_non_null(strstr(fb, "\nafter the recovery "));
	assert_non_null(strstr(fb, "\n0.5 s "));
	snprintf(path, sizeof(path), "%s/report.md", dir);
	md = test_read_file(path);
	assert_non_null(strstr(md, "| 1.2 s (before recovery) |"));
	assert_non_null(strstr(md, "The timeline brought a back 1.200 s after t0"));
	assert_non_null(strstr(md, "| after the recovery |"));
	free(md);
	/* the plot's solid and dashed curves on an axis that fits both */
	snprintf(path, sizeof(path), "%s/decay.gp", dir);
	md = test_read_file(path);
	assert_non_null(
	    strstr(md, "\nset ylabel \"share of the scheme's requests sent to a (%)\""));
	assert_non_null(strstr(md, "title \"anycast: to a while it was out\""));
	assert_non_null(strstr(md, "title \"anycast: to a again after its recovery\""));
	assert_non_null(strstr(md, "\nset label \"back: recover a\" at 1.2, graph 1 "));
	free(md);
	free(text);
}

/* fake_gnuplot: an executable DIR/NAME (DIR made here, into dir) that
 * appends a line to DIR/runs each time it runs, keeps what it reads in
 * DIR/script and then runs body */
static void fake_gnuplot(char *dir, size_t len, const char *body, char *path, size_t plen)
{
	FILE *fp;

	snprintf(dir, len, "/tmp/steerlab-test-gnuplot.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, plen, "%s/gnuplot", dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fprintf(fp, "#!/bin/sh\necho run >>'%s/runs'\ncat >'%s/script'\n%s\n", dir, dir, body);
	assert_int_equal(fclose(fp), 0);
	assert_int_equal(chmod(path, 0755), 0);
}

static void fake_gnuplot_rm(const char *dir)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* one gnuplot for both plots and report.md's version line: the version it
 * prints first on its standard output, the k-th PNG to its descriptor 3 +
 * k, the script on its standard input with each plot's output there */
static void test_report_one_gnuplot(void **state)
{
	const char *dir = *state;
	char fake[64], gp[96], path[512], *text, *out;
	struct report_opts o = {.gnuplot = gp};

	fake_gnuplot(fake, sizeof(fake),
		     "echo 'gnuplot 9.9 patchlevel 9'; printf first >&3; printf second >&4; "
		     "printf third >&5",
		     gp, sizeof(gp));
	out = report(dir, &o);
	assert_non_null(strstr(out, "(plots: decay.png, decay-causes.png, upstream.png)"));
	snprintf(path, sizeof(path), "%s/runs", fake);
	text = test_read_file(path);
	assert_string_equal(text, "run\n");
	free(text);
	snprintf(path, sizeof(path), "%s/script", fake);
	text = test_read_file(path);
	assert_non_null(strstr(text, "GPVAL_VERSION"));
	assert_non_null(strstr(text, "set output \"/proc/self/fd/3\"\n"));
	assert_non_null(strstr(strstr(text, "/proc/self/fd/3"), "\nreset\n"));
	assert_non_null(strstr(text, "set output \"/proc/self/fd/4\"\n"));
	assert_non_null(strstr(text, "set output \"/proc/self/fd/5\"\n"));
	assert_null(strstr(text, "decay.png"));
	free(text);
	snprintf(path, sizeof(path), "%s/decay.png", dir);
	text = test_read_file(path);
	assert_string_equal(text, "first");
	free(text);
	snprintf(path, sizeof(path), "%s/decay-causes.png", dir);
	text = test_read_file(path);
	assert_string_equal(text, "second");
	free(text);
	snprintf(path, sizeof(path), "%s/upstream.png", dir);
	text = test_read_file(path);
	assert_string_equal(text, "third");
	free(text);
	/* the scripts kept for a person name their PNGs */
	snprintf(path, sizeof(path), "%s/decay.gp", dir);
	text = test_read_file(path);
	assert_non_null(strstr(text, "set output \"decay.png\"\n"));
	free(text);
	snprintf(path, sizeof(path), "%s/report.md", dir);
	text = test_read_file(path);
	assert_non_null(strstr(text, "\n- gnuplot: gnuplot 9.9 patchlevel 9\n"));
	free(text);
	free(out);
	fake_gnuplot_rm(fake);
}

/* a gnuplot that fails: no PNG, what it said kept, the summary says so */
static void test_report_gnuplot_fails(void **state)
{
	const char *dir = *state;
	char fake[64], gp[96], path[512], want[256], *text, *out;
	struct report_opts o = {.gnuplot = gp};

	fake_gnuplot(fake, sizeof(fake), "printf partial >&3; echo oops >&2; exit 1", gp,
		     sizeof(gp));
	out = report(dir, &o);
	snprintf(want, sizeof(want),
		 "plots: %s decay.gp, decay-causes.gp and upstream.gp failed (status 1): see "
		 "gnuplot.log",
		 gp);
	assert_non_null(strstr(out, want));
	assert_false(exists(dir, "decay.png") || exists(dir, "upstream.png"));
	snprintf(path, sizeof(path), "%s/gnuplot.log", dir);
	text = test_read_file(path);
	assert_string_equal(text, "oops\n");
	free(text);
	snprintf(path, sizeof(path), "%s/report.md", dir);
	text = test_read_file(path);
	snprintf(want, sizeof(want), "\n- gnuplot: unknown (%s printed no version)\n", gp);
	assert_non_null(strstr(text, want));
	free(text);
	free(out);
	fake_gnuplot_rm(fake);
}

/* --times: how long each stage took, on one line, and nothing else changes */
static void test_report_times(void **state)
{
	const char *dir = *state;
	struct report_opts o = {.gnuplot = "true"};
	double t[REPORT_NSTAGES];
	char *times = NULL, *out, *again;
	size_t len = 0;

	out = report(dir, &o);
	o.times = open_memstream(&times, &len);
	assert_non_null(o.times);
	again = report(dir, &o);
	fclose(o.times);
	assert_string_equal(out, again);
	assert_int_equal(sscanf(times,
				"report: stages: read %lf s, clocks %lf s, verdict %lf s, "
				"writers %lf s, plots %lf s\n",
				&t[0], &t[1], &t[2], &t[3], &t[4]),
			 REPORT_NSTAGES);
	for (int i = 0; i < REPORT_NSTAGES; i++)
		assert_true(t[i] >= 0 && t[i] < 60);
	assert_int_equal(strchr(times, '\n') - times + 1, (long)len);
	free(times);
	free(out);
	free(again);
}

/* an interrupted run: invalid, and its rates over the time that ran */
static void test_report_interrupted(void **state)
{
	const char *dir = *state;
	struct report_opts o = {.gnuplot = "true"};
	char path[512], *events, *hit, *text, *md;
	json_t *root, *b;
	json_error_t jerr;
	size_t len;
	FILE *out;

	/* Ctrl-C 2 s into the 3 s of traffic (t0 + 1 s) */
	snprintf(path, sizeof(path), "%s/lab.events.jsonl", dir);
	events = test_read_file(path);
	hit = strstr(events, "{\"t\":1796004457816915768,");
	assert_non_null(hit);
	strcpy(hit, "{\"t\":1796004456289112907,\"node\":\"lab\",\"agent\":\"steerlab\","
		    "\"event\":\"traffic_stopped\",\"interrupted\":true}\n");
	put_file(dir, "lab.events.jsonl", events);
	free(events);
	out = open_memstream(&text, &len);
	assert_non_null(out);
	assert_int_equal(report_run(dir, &o, out), REPORT_INVALID);
	fclose(out);
	/* traffic_started to traffic_stopped: 2 s, not the 3 s configured */
	assert_non_null(strstr(text,
			       "\nINVALID (interrupted): the run was interrupted 2.000 s after the "
			       "traffic started (t0 + 1.000 s), of the 3.000 s configured: the "
			       "observation after t0 lasted 1.000 s of the 2.000 s configured, "
			       "the last 1.000 s were never run"));
	assert_non_null(strstr(text, "(the run was interrupted: rates and budgets use the 2.000 s "
				     "of traffic actually run)"));
	assert_non_null(strstr(text, "\ntraffic time (s)  "));
	assert_non_null(strstr(strstr(text, "\ntraffic time (s)  "), "  2.000    2.000\n"));
	snprintf(path, sizeof(path), "%s/clocks.json", dir);
	root = json_load_file(path, 0, &jerr);
	assert_non_null(root);
	assert_true(json_is_false(json_object_get(root, "valid")));
	b = json_object_get(json_object_get(json_object_get(root, "schemes"), "anycast"), "budget");
	assert_near(json_real_value(json_object_get(b, "rate_per_s")), 450 / 2.0);
	json_decref(root);
	snprintf(path, sizeof(path), "%s/report.md", dir);
	md = test_read_file(path);
	assert_memory_equal(md,
			    "# Run report: lab golden (INVALID RUN)\n\n**INVALID RUN**: 1 "
			    "self-check failed, and 1 warning;",
			    80);
	assert_non_null(strstr(md, "The run was interrupted: the observation ends when the "
				   "traffic stopped."));
	free(md);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bucket_of),
	    cmocka_unit_test(test_auto_bucket),
	    cmocka_unit_test(test_decay),
	    cmocka_unit_test(test_decay_limits),
	    cmocka_unit_test(test_budget),
	    cmocka_unit_test(test_parse_slo),
	    cmocka_unit_test(test_upstream_series),
	    cmocka_unit_test_setup_teardown(test_golden_report, setup_run, teardown_run),
	    cmocka_unit_test_setup_teardown(test_warnings_once, setup_run, teardown_run),
	    cmocka_unit_test_setup_teardown(test_report_json, setup_run, teardown_run),
	    cmocka_unit_test_setup_teardown(test_report_without_gnuplot, setup_run, teardown_run),
	    cmocka_unit_test_setup_teardown(test_report_symlinks, setup_run, teardown_run),
	    cmocka_unit_test_setup_teardown(test_report_interrupted, setup_run, teardown_run),
	    cmocka_unit_test_setup_teardown(test_report_failback, setup_run, teardown_run),
	    cmocka_unit_test_setup_teardown(test_decay_plot, setup_run, teardown_run),
	    cmocka_unit_test_setup_teardown(test_report_one_gnuplot, setup_run, teardown_run),
	    cmocka_unit_test_setup_teardown(test_report_gnuplot_fails, setup_run, teardown_run),
	    cmocka_unit_test_setup_teardown(test_report_times, setup_run, teardown_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
