/*
 * The steering model beside the steering table (probes/clocks/
 * clocks_model_steer.c, clocks_steering_write.c, verdict_model.c) on a table
 * and a model built by hand: a share, the deviation or a name's upstream
 * queries outside the model's bounds widened by their tolerance is named in
 * the row's "outside", marked NO under the measured row and raised as
 * model_disagrees; one inside, to the tolerance's edge, is not.
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

#include "clocks.h"

static struct clocks_input in;
static struct clocks_steering st;
static struct clocks_model md;

static void iv(struct clocks_model_iv *v, double lo, double p50, double hi)
{
	*v = (struct clocks_model_iv){
	    .known = 1, .p5 = lo, .p50 = p50, .p95 = hi, .min = lo, .max = hi};
}

/* build: one dns group c1 asking w.lab.example, measured share a (b the
 * rest) against 50/50, upstream queries up; the model's shares 0.45-0.55,
 * deviation 0-0.05, 10 upstream queries (tolerance 1) */
static void build(double a, int64_t up)
{
	struct clocks_steer_total *t[2] = {&st.total[CLOCKS_SCHEME_DNS], &st.names[0]};

	memset(&in, 0, sizeof(in));
	memset(&st, 0, sizeof(st));
	for (int k = 0; k < md.steer.nrows; k++)
		json_decref(md.steer.rows[k].json);
	memset(&md, 0, sizeof(md));
	in.steady = 1;
	in.steering = &st;
	in.model = &md;
	st.nsites = 2;
	snprintf(st.sites[0], sizeof(st.sites[0]), "a");
	snprintf(st.sites[1], sizeof(st.sites[1]), "b");
	st.nrows = 1;
	st.rows[0].scheme = CLOCKS_SCHEME_DNS;
	snprintf(st.rows[0].group, sizeof(st.rows[0].group), "c1");
	snprintf(st.rows[0].name, sizeof(st.rows[0].name), "w.lab.example");
	st.nnames = 1;
	st.upstream_queries = up;
	for (int i = 0; i < 2; i++) {
		t[i]->scheme = CLOCKS_SCHEME_DNS;
		t[i]->n = 1000;
		t[i]->share[0] = a;
		t[i]->share[1] = 1 - a;
		t[i]->target[0] = t[i]->target[1] = 0.5;
		t[i]->has_target = 1;
		t[i]->deviation = fabs(a - 0.5);
		t[i]->rtt_mean_ns = 20000000;
		t[i]->upstream = CLOCKS_NONE;
	}
	snprintf(st.names[0].name, sizeof(st.names[0].name), "w.lab.example");
	st.names[0].upstream = up;
	md.steer.known = 1;
	md.steer.samples = 1000;
	md.steer.nrows = 2;
	for (int i = 0; i < 2; i++) {
		struct clocks_model_steer_row *w = &md.steer.rows[i];

		w->scheme = CLOCKS_SCHEME_DNS;
		snprintf(w->name, sizeof(w->name), "%s", i ? "w.lab.example" : "");
		w->known = 1;
		w->requests = 1000;
		w->nsites = 2;
		snprintf(w->site[0], sizeof(w->site[0]), "b"); /* not the table's order */
		snprintf(w->site[1], sizeof(w->site[1]), "a");
		iv(&w->share[0], 0.45, 0.5, 0.55);
		iv(&w->share[1], 0.45, 0.5, 0.55);
		w->has_target = 1;
		iv(&w->deviation, 0, 0.02, 0.05);
		iv(&w->rtt_ms, 20, 20, 20);
		if (i)
			iv(&w->upstream, 10, 10, 10);
		w->upstream_tol = 1;
		w->json = json_object();
	}
}

static char *print(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	clocks_steering_print(f, &in);
	fclose(f);
	return text;
}

static int disagrees(void)
{
	struct clocks_notes v;
	int n = 0;

	memset(&v, 0, sizeof(v));
	clocks_model_verdict(&in, NULL, 0, &v);
	for (int i = 0; i < v.n; i++) {
		assert_string_equal(v.w[i].code, "model_disagrees");
		assert_false(v.w[i].invalidates);
		n++;
	}
	return n;
}

/* within: 0.56 is the bounds' 0.55 and the tolerance 0.01; 11 queries
 * 10 and one */
static void test_within(void **state)
{
	const struct clocks_model_steer_row *w;
	char text[512], *out;

	(void)state;
	build(0.56, 11);
	assert_int_equal(
	    clocks_model_steer_outside(&in, &st.names[0], &w, text, sizeof(text), NULL), 0);
	assert_non_null(w);
	assert_int_equal(disagrees(), 0);
	out = print();
	assert_non_null(
	    strstr(out, "  model  w.lab.example    |   50.0%   50.0% |     0.020 |     1000"));
	assert_non_null(strstr(out, "upstream queries 10   agrees: yes"));
	free(out);
}

/* outside: a share of 0.6, the deviation 0.1, 12 queries: each named */
static void test_outside(void **state)
{
	const struct clocks_model_steer_row *w;
	char text[1024], *out;
	json_t *keys = json_array(), *o, *mo;

	(void)state;
	build(0.6, 12);
	assert_int_equal(
	    clocks_model_steer_outside(&in, &st.names[0], &w, text, sizeof(text), keys), 4);
	assert_string_equal(json_string_value(json_array_get(keys, 0)), "share.a");
	assert_string_equal(json_string_value(json_array_get(keys, 1)), "share.b");
	assert_string_equal(json_string_value(json_array_get(keys, 2)), "deviation");
	assert_string_equal(json_string_value(json_array_get(keys, 3)), "upstream_queries");
	assert_non_null(strstr(text, "share of a: measured 0.600, the model 0.500 (p5-p95 "
				     "0.450-0.550, bounds 0.450-0.550, tolerance 0.010)"));
	json_decref(keys);
	/* the scheme's row (no upstream queries of its own) and the name's */
	assert_int_equal(disagrees(), 2);
	out = print();
	assert_non_null(strstr(out, "upstream queries 10   agrees: NO"));
	assert_non_null(strstr(out, "model w.lab.example: disagrees: share of a"));
	/* the intervals in the table's order of the sites */
	assert_non_null(strstr(out, "model w.lab.example: p50 (p5-p95): a 50.0 (45.0-55.0) %, b "));
	free(out);
	o = clocks_steering_json(&in);
	mo = json_object_get(
	    json_object_get(
		json_object_get(json_object_get(json_object_get(o, "schemes"), "dns"), "names"),
		"w.lab.example"),
	    "model");
	assert_non_null(mo);
	assert_int_equal(json_array_size(json_object_get(mo, "outside")), 4);
	json_decref(o);
}

/* the judgement alone: the bounds widened by the tolerance, both sides */
static void test_judge(void **state)
{
	struct clocks_model_iv v;

	(void)state;
	iv(&v, 0.4, 0.5, 0.6);
	assert_int_equal(clocks_model_steer_judge(&v, 0.39, -1), CLOCKS_MODEL_WITHIN);
	assert_int_equal(clocks_model_steer_judge(&v, 0.385, -1), CLOCKS_MODEL_OUTSIDE);
	assert_int_equal(clocks_model_steer_judge(&v, 0.615, -1), CLOCKS_MODEL_OUTSIDE);
	assert_int_equal(clocks_model_steer_judge(&v, 0.7, 0.2), CLOCKS_MODEL_WITHIN);
	v.known = 0;
	assert_int_equal(clocks_model_steer_judge(&v, 0.5, -1), CLOCKS_MODEL_UNKNOWN);
	assert_int_equal(clocks_model_steer_judge(NULL, 0.5, -1), CLOCKS_MODEL_UNKNOWN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_within),
	    cmocka_unit_test(test_outside),
	    cmocka_unit_test(test_judge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
