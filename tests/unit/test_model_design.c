/*
 * Inverse design (probes/model/model_design.h): the --target and --vary
 * parsers with their errors, the grid's values and points, a target
 * checked against a model's result, the ranking (cheapest first), what a
 * point costs in probes, and topology/compare.ini's points modelled over a
 * day of traffic (the TTL alone sets its DNS window once detect is short).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model.h"
#include "lab.h"
#include "model_design.h"
#include "topology.h"

#define NEAR(x, want, tol) assert_true(fabs((x) - (want)) <= (tol))

/* target_ok: spec parsed into one target */
static struct design_target target_ok(const char *spec)
{
	struct design_target t[DESIGN_MAX_TARGETS];
	char err[512] = "";
	int n = 0;

	if (design_targets_parse(spec, t, &n, DESIGN_MAX_TARGETS, err, sizeof(err)) == -1)
		fail_msg("%s: %s", spec, err);
	assert_int_equal(n, 1);
	return t[0];
}

/* target_err: spec refused with exactly want */
static void target_err(const char *spec, const char *want)
{
	struct design_target t[DESIGN_MAX_TARGETS];
	char err[512] = "";
	int n = 0;

	assert_int_equal(design_targets_parse(spec, t, &n, DESIGN_MAX_TARGETS, err, sizeof(err)),
			 -1);
	assert_string_equal(err, want);
}

static void test_target_parse(void **state)
{
	struct design_target t[DESIGN_MAX_TARGETS], x;
	char err[512];
	int n = 0;

	(void)state;
	x = target_ok("dns.window<=30s");
	assert_int_equal(x.scheme, MODEL_DNS);
	assert_string_equal(design_clock_name(x.clock), "window");
	assert_int_equal(x.stat, DESIGN_P95); /* the default: 95 % of the failures */
	assert_int_equal(x.op, DESIGN_LE);
	NEAR(x.value, 30, 0);
	assert_string_equal(x.text, "dns.window p95 <= 30 s");
	x = target_ok(" dns.window.p50 < 500ms ");
	assert_int_equal(x.stat, DESIGN_P50);
	assert_int_equal(x.op, DESIGN_LT);
	NEAR(x.value, 0.5, 0);
	/* the JSON's keys and the table's rows name the clocks too */
	x = target_ok("anycast.window_s>=1m");
	assert_int_equal(x.scheme, MODEL_ANYCAST);
	assert_int_equal(x.op, DESIGN_GE);
	NEAR(x.value, 60, 0);
	x = target_ok("dns.last packet p99 > 2");
	assert_string_equal(design_clock_name(x.clock), "last_p99");
	assert_int_equal(x.op, DESIGN_GT);
	x = target_ok("dns.last_per_client_s.max.min<=10s");
	assert_string_equal(design_clock_name(x.clock), "last_max");
	assert_int_equal(x.stat, DESIGN_MIN);
	x = target_ok("dns.Equivalent-Downtime.max<=2s");
	assert_string_equal(design_clock_name(x.clock), "equivalent_downtime");
	assert_int_equal(x.stat, DESIGN_MAX);
	x = target_ok("dns.budget_share_downtime<=5%");
	NEAR(x.value, 0.05, 1e-15);
	assert_string_equal(x.text, "dns.budget_share p95 <= 5 %");
	x = target_ok("dns.upstream_queries_per_s<=0.5/s");
	NEAR(x.value, 0.5, 0);
	x = target_ok("dns.lost<1000");
	assert_string_equal(x.text, "dns.lost p95 < 1000");
	/* several in one option, appended */
	assert_int_equal(design_targets_parse("dns.window<=30s, dns.detect.p50<=10s", t, &n,
					      DESIGN_MAX_TARGETS, err, sizeof(err)),
			 0);
	assert_int_equal(
	    design_targets_parse("dns.lost<1000", t, &n, DESIGN_MAX_TARGETS, err, sizeof(err)), 0);
	assert_int_equal(n, 3);
	assert_string_equal(t[1].text, "dns.detect p50 <= 10 s");
	assert_int_equal(design_targets_parse("dns.lost<1,dns.lost<2", t, &n, 4, err, sizeof(err)),
			 -1);
	assert_string_equal(err, "--target 'dns.lost<2': at most 4 targets");
}

static void test_target_errors(void **state)
{
	(void)state;
	target_err("dns.windo<=30s",
		   "--target 'dns.windo<=30s': unknown clock 'windo' (expected detect, steer, "
		   "window, last_p50, last_p99, last_max, lost, equivalent_downtime, budget_share, "
		   "upstream_queries, upstream_per_s)");
	target_err("dns.window=30s", "--target 'dns.window=30s': expected SCHEME.CLOCK[.STAT] OP "
				     "VALUE with OP <=, <, >= or > (e.g. 'dns.window<=30s')");
	target_err("window<=30s", "--target 'window<=30s': expected SCHEME.CLOCK before <= "
				  "(SCHEME anycast or dns, e.g. 'dns.window<=30s')");
	target_err("bgp.window<30s",
		   "--target 'bgp.window<30s': unknown scheme 'bgp' (expected anycast or dns)");
	target_err("dns.window.p99<=3s", "--target 'dns.window.p99<=3s': unknown statistic 'p99' "
					 "(expected p5, p50, p95, min or max; p95 if none)");
	target_err("dns.window<=soon", "--target 'dns.window<=soon': value 'soon': expected a "
				       "duration such as 30s, 500ms or 2m (a bare number is "
				       "seconds)");
	target_err("dns.window<=", "--target 'dns.window<=': value '': expected a duration such "
				   "as 30s, 500ms or 2m (a bare number is seconds)");
	target_err("dns.lost<=5%",
		   "--target 'dns.lost<=5%': value '5%': expected a number such as 1000");
	target_err(" , ", "--target ' , ': expected SCHEME.CLOCK[.STAT] OP VALUE (e.g. "
			  "'dns.window<=30s')");
}

/* iv: a known interval */
static struct model_iv iv(double p5, double p50, double p95)
{
	struct model_iv v = {.known = 1, .p5 = p5, .p50 = p50, .p95 = p95, .min = p5, .max = p95};

	return v;
}

static void test_target_check(void **state)
{
	static struct model_result r;
	struct design_target t;
	const char *why = NULL;
	double got;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.s[MODEL_DNS].present = 1;
	r.s[MODEL_DNS].window = iv(10, 20, 30);
	t = target_ok("dns.window<=30s");
	assert_int_equal(design_target_check(&t, &r, &got, &why), 1);
	NEAR(got, 30, 0); /* p95 */
	t = target_ok("dns.window<30s");
	assert_int_equal(design_target_check(&t, &r, &got, &why), 0);
	t = target_ok("dns.window.p50<30s");
	assert_int_equal(design_target_check(&t, &r, &got, &why), 1);
	NEAR(got, 20, 0);
	t = target_ok("dns.window.p5>=10s");
	assert_int_equal(design_target_check(&t, &r, &got, &why), 1);
	t = target_ok("dns.window.p5>10s");
	assert_int_equal(design_target_check(&t, &r, &got, &why), 0);
	/* a nanosecond's rounding is not a miss */
	r.s[MODEL_DNS].window.p95 = 30 + 1e-12;
	t = target_ok("dns.window<=30s");
	assert_int_equal(design_target_check(&t, &r, &got, &why), 1);
	/* not modelled: the model's reason, never a pass */
	snprintf(r.s[MODEL_DNS].steer.why, sizeof(r.s[MODEL_DNS].steer.why), "no prober");
	t = target_ok("dns.steer<=1s");
	assert_int_equal(design_target_check(&t, &r, &got, &why), -1);
	assert_string_equal(why, "no prober");
	assert_true(isnan(got));
	t = target_ok("anycast.window<=1s");
	assert_int_equal(design_target_check(&t, &r, &got, &why), -1);
	assert_string_equal(why, "the lab has no anycast clients (mode = anycast or both)");
	r.s[MODEL_ANYCAST].present = 1;
	t = target_ok("anycast.upstream_queries<=10");
	assert_int_equal(design_target_check(&t, &r, &got, &why), -1);
	assert_string_equal(why, "upstream DNS queries are not a measure of anycast");
}

/* vary_ok: opt parsed into v[0..*n) */
static void vary_ok(const char *opt, struct design_vary *v, int *n)
{
	char err[512] = "";

	*n = 0;
	if (design_vary_parse(opt, v, n, DESIGN_MAX_KEYS, err, sizeof(err)) == -1)
		fail_msg("%s: %s", opt, err);
}

/* values: v's values joined by spaces */
static const char *values(const struct design_vary *v)
{
	static char buf[1024];
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < v->n; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", i ? " " : "", v->value[i]);
	return buf;
}

static void vary_err(const char *opt, const char *want)
{
	struct design_vary v[DESIGN_MAX_KEYS];
	char err[512] = "";
	int n = 0;

	assert_int_equal(design_vary_parse(opt, v, &n, DESIGN_MAX_KEYS, err, sizeof(err)), -1);
	assert_string_equal(err, want);
}

static void test_vary_parse(void **state)
{
	struct design_vary v[DESIGN_MAX_KEYS];
	char buf[256];
	int n;

	(void)state;
	vary_ok("ttl=5..300,probe_interval= 1s..30s", v, &n);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].key, "ttl");
	assert_string_equal(v[1].spec, "probe_interval=1s..30s");
	assert_string_equal(values(&v[0]), "5 7 10 15 20 30 50 70 100 150 200 300");
	NEAR(v[0].x[3], 15, 0);
	assert_string_equal(values(&v[1]), "1s 1.5s 2s 3s 5s 7s 10s 15s 20s 30s");
	NEAR(v[1].x[1], 1.5, 1e-12);
	assert_string_equal(design_series_text(&v[0], buf, sizeof(buf)),
			    "5, 300 and the series 1, 1.5, 2, 3, 5, 7 x 10^k between");
	vary_ok("a.probe_interval=250ms..2s", v, &n);
	assert_string_equal(v[0].key, "a.probe_interval");
	assert_string_equal(values(&v[0]), "250ms 300ms 500ms 700ms 1s 1.5s 2s");
	/* whole numbers close together: every one */
	vary_ok("probe_down=1..5", v, &n);
	assert_string_equal(values(&v[0]), "1 2 3 4 5");
	assert_string_equal(design_series_text(&v[0], buf, sizeof(buf)),
			    "every whole number from 1 to 5");
	/* :N log-spaced, to two significant digits, whole for whole bounds */
	vary_ok("ttl=5..300:5", v, &n);
	assert_string_equal(values(&v[0]), "5 14 39 110 300");
	vary_ok("probe_interval=1s..30s:4", v, &n);
	assert_string_equal(values(&v[0]), "1s 3.1s 9.7s 30s");
	assert_string_equal(design_series_text(&v[0], buf, sizeof(buf)),
			    "4 log-spaced from 1s to 30s, to 2 significant digits");
	vary_ok("sticky_share=0.1..0.9", v, &n);
	assert_string_equal(values(&v[0]), "0.1 0.15 0.2 0.3 0.5 0.7 0.9");
	/* lists as written, a key's values running on over the commas */
	vary_ok("ttl=5,10 , 30,routing=static,bgp", v, &n);
	assert_int_equal(n, 2);
	assert_string_equal(values(&v[0]), "5 10 30");
	assert_string_equal(values(&v[1]), "static bgp");
	assert_string_equal(v[0].spec, "ttl=5,10,30");
	assert_string_equal(v[1].spec, "routing=static,bgp");
	assert_true(isnan(v[1].x[0]));
	NEAR(v[0].x[2], 30, 0);
	/* more keys in a second option */
	vary_ok("ttl=2", v, &n);
	assert_int_equal(
	    design_vary_parse("probe_interval=1s,2s", v, &n, DESIGN_MAX_KEYS, buf, sizeof(buf)), 0);
	assert_int_equal(n, 2);
}

static void test_vary_errors(void **state)
{
	(void)state;
	vary_err("5..300", "--vary '5..300': expected KEY=LO..HI[:N] or KEY=V1,V2,... (e.g. "
			   "ttl=5..300, probe_interval=1s..30s)");
	vary_err("ttl=300..5",
		 "--vary 'ttl=300..5': expected KEY=LO..HI[:N] with numbers or "
		 "durations 0 < LO < HI (e.g. ttl=5..300, probe_interval=1s..30s:10), "
		 "or KEY=V1,V2,...");
	vary_err("ttl=0..5",
		 "--vary 'ttl=0..5': expected KEY=LO..HI[:N] with numbers or "
		 "durations 0 < LO < HI (e.g. ttl=5..300, probe_interval=1s..30s:10), or "
		 "KEY=V1,V2,...");
	vary_err("ttl=5..soon",
		 "--vary 'ttl=5..soon': expected KEY=LO..HI[:N] with numbers or "
		 "durations 0 < LO < HI (e.g. ttl=5..300, probe_interval=1s..30s:10), "
		 "or KEY=V1,V2,...");
	vary_err("ttl=5..300:1",
		 "--vary 'ttl=5..300:1': ':1': expected :N, N the number of values, 2 to 64");
	vary_err("ttl=5..300,10", "--vary 'ttl=5..300,10': a range LO..HI is the key's only "
				  "value (a list is KEY=V1,V2,...)");
	vary_err("ttl=5,,10",
		 "--vary 'ttl=5,,10': an empty item (two commas in a row, or one at an end)");
	vary_err("ttl=5,5", "--vary 'ttl=5,5': 5 twice");
	vary_err("ttl=5..30,ttl=2", "--vary 'ttl=5..30,ttl=2': ttl is varied twice");
	vary_err("=5", "--vary '=5': expected KEY=LO..HI[:N] or KEY=V1,V2,... with a key as --set "
		       "takes it (ttl, probe_interval, NODE.probe_interval)");
	vary_err("a=1,b=2,c=3,d=4,e=5", "--vary 'a=1,b=2,c=3,d=4,e=5': at most 4 keys varied");
	vary_err("ttl=1..1e300", "--vary 'ttl=1..1e300': more than 64 values (fewer with :N)");
}

static void test_grid(void **state)
{
	struct design_vary v[DESIGN_MAX_KEYS];
	int n, vi[DESIGN_MAX_KEYS];

	(void)state;
	vary_ok("ttl=5..300,probe_interval=1s..30s", v, &n);
	assert_int_equal(design_grid_size(v, n), 120);
	/* the last key fastest */
	design_grid_point(v, n, 0, vi);
	assert_int_equal(vi[0], 0);
	assert_int_equal(vi[1], 0);
	design_grid_point(v, n, 13, vi);
	assert_int_equal(vi[0], 1);
	assert_int_equal(vi[1], 3);
	design_grid_point(v, n, 119, vi);
	assert_int_equal(vi[0], 11);
	assert_int_equal(vi[1], 9);
	assert_int_equal(design_grid_size(v, 0), 1);
	vary_ok("a=1s..1000s:20,b=1s..1000s:20,c=1s..1000s:20", v, &n);
	assert_int_equal(v[2].n, 20);
	assert_int_equal(design_grid_size(v, 2), 400);
	assert_int_equal(design_grid_size(v, n), -1); /* 8000 > DESIGN_MAX_POINTS */
}

static void test_rank(void **state)
{
	struct design_point p[7];
	struct design_target le = target_ok("dns.window<=30s"), ge = target_ok("dns.lost>=1");
	int order[7], m;

	(void)state;
	memset(p, 0, sizeof(p));
	for (int i = 0; i < 7; i++) {
		p[i].index = i;
		p[i].status = 1;
		p[i].dns = p[i].upstream_known = 1;
	}
	/* index: upstream, probes, the first target's statistic */
	p[0].upstream_per_s = 0.2, p[0].probes_per_s = 1, p[0].got[0] = 20;
	p[1].upstream_per_s = 0.1, p[1].probes_per_s = 6, p[1].got[0] = 27;
	p[2].upstream_per_s = 0.1, p[2].probes_per_s = 2, p[2].got[0] = 29;
	p[3].upstream_per_s = 0.1, p[3].probes_per_s = 2, p[3].got[0] = 25;
	p[4].upstream_per_s = 0.05, p[4].status = 0; /* misses: never listed */
	p[5].upstream_known = 0, p[5].upstream_per_s = NAN;
	p[6].upstream_per_s = 0.1, p[6].probes_per_s = 2, p[6].got[0] = 25;
	m = design_rank(p, 7, &le, order);
	assert_int_equal(m, 6);
	/* cheapest first; equal cost: nearer the target's better side, then grid order; a
	 * cost not modelled last */
	assert_int_equal(order[0], 3);
	assert_int_equal(order[1], 6);
	assert_int_equal(order[2], 2);
	assert_int_equal(order[3], 1);
	assert_int_equal(order[4], 0);
	assert_int_equal(order[5], 5);
	/* >=: the highest statistic first */
	m = design_rank(p, 7, &ge, order);
	assert_int_equal(order[0], 2);
	assert_int_equal(order[1], 3);
	/* no DNS clients: no upstream cost, probes alone */
	for (int i = 0; i < 7; i++)
		p[i].dns = 0;
	m = design_rank(p, 7, &le, order);
	assert_int_equal(order[0], 5);
	assert_int_equal(order[1], 0);
	(void)m;
}

static void test_near(void **state)
{
	struct design d;
	struct design_point p;

	(void)state;
	memset(&d, 0, sizeof(d));
	memset(&p, 0, sizeof(p));
	d.targets[0] = target_ok("dns.window<=30s");
	d.targets[1] = target_ok("dns.lost>=100");
	d.ntargets = 2;
	p.got[1] = 200;
	p.got[0] = 31.4; /* within 5 % of 30 */
	assert_true(design_near(&d, &p));
	p.got[0] = 31.6;
	assert_false(design_near(&d, &p));
	p.got[0] = 10;
	p.got[1] = 96;
	assert_true(design_near(&d, &p));
	p.got[1] = 94;
	assert_false(design_near(&d, &p));
	p.status = -1;
	p.got[1] = 200;
	assert_false(design_near(&d, &p));
}

/* compare.ini's points: the model over a day of traffic, the probes a
 * second of two [prober]s on two sites and the sites' own */
static void test_compare_points(void **state)
{
	static struct topology topo;
	static struct model_input in;
	static struct model_result r;
	static struct model_notes notes;
	char *sets[] = {"ttl=30", "probe_interval=2s"}, err[512];
	struct design_target t[2] = {target_ok("dns.window<=30s"), target_ok("dns.detect<=6s")};
	struct design_point p;

	(void)state;
	memset(&p, 0, sizeof(p));
	assert_int_equal(overrides_load(&topo, "topology/compare.ini", sets, 2, stderr), 0);
	design_probes(&topo, &p);
	NEAR(p.probes_remote_per_s, 2.0 * 2 / 2, 1e-12);
	NEAR(p.probes_per_s, 2.0 * 2 / 2 + 2.0 / 2, 1e-12);
	assert_int_equal(model_from_topology(&topo, &in, &notes, err, sizeof(err)), 0);
	design_input(&in, 0);
	NEAR(in.duration_s, DESIGN_HORIZON_S, 0);
	assert_int_equal(in.samples, MODEL_SAMPLES);
	assert_int_equal(model_lab(&in, &r), 0);
	design_evaluate(t, 2, &in, &r, &p);
	/* detect 2 x 2 s + u x 2 s: the probers probe 1 s into the traffic
	 * and every 2 s (the lab sets their cycles at its start), so the kill
	 * at 3 s meets a probe (u = 0): 4 s; then c1 on r1 (no phase) leaves
	 * at r1's first expiry, 30 s from the start: 27 s after the kill */
	assert_int_equal(p.status, 1);
	NEAR(p.got[0], 27, 1e-9);
	NEAR(p.got[1], 4, 1e-9);
	/* upstream over the day: r1 fills at 0 and refetches at 30, 60, ...
	 * (2880), r2 from 22.5 s (2881), r3 only when sticky c3 asks after an
	 * expiry, at 16 s then every 32 s (2701); each first fill's walk, 2 */
	NEAR(p.upstream_per_s, (2880 + 2881 + 2701 + 3 * 2) / DESIGN_HORIZON_S, 1e-12);
	t[0] = target_ok("dns.window<=26s");
	design_evaluate(t, 1, &in, &r, &p);
	assert_int_equal(p.status, 0);
	NEAR(p.got[0], 27, 1e-9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_target_parse),   cmocka_unit_test(test_target_errors),
	    cmocka_unit_test(test_target_check),   cmocka_unit_test(test_vary_parse),
	    cmocka_unit_test(test_vary_errors),	   cmocka_unit_test(test_grid),
	    cmocka_unit_test(test_rank),	   cmocka_unit_test(test_near),
	    cmocka_unit_test(test_compare_points),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
