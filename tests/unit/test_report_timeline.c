/*
 * The report's timeline, flap and DNS outage tables
 * (probes/report/report_timeline.c), on the events of a recorded run read
 * as the report reads them (clocks_load): tests/unit/data/report/timeline/,
 * a site flapping three times (its route back at once, withheld by
 * damping, then never), a link flapping once, a DNS outage with three
 * resolvers' clients. The tables, as the terminal and report.md print
 * them, must match timeline.golden beside it (UPDATE_GOLDEN=1 writes
 * FILE.new: test_file.h). The recorded run of compare.ini has a timeline
 * of one step and neither flaps nor outages.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report_int.h"
#include "test_file.h"

#define DATA "tests/unit/data/report/"

struct fixture {
	struct report r;
	char err[512];
};

static void load(struct fixture *f, const char *run)
{
	if (clocks_load(run, &f->r.in, f->err, sizeof(f->err)) != 0)
		fail_msg("clocks_load %s: %s", run, f->err);
	assert_non_null(f->r.flaps = calloc(1, sizeof(*f->r.flaps)));
	assert_non_null(f->r.outages = calloc(1, sizeof(*f->r.outages)));
	clocks_flaps(&f->r.in, f->r.flaps);
	clocks_outages(&f->r.in, f->r.outages);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	clocks_input_free(&f->r.in);
	free(f->r.flaps);
	free(f->r.outages);
	free(f);
	return 0;
}

/* table: one of the tables, as the terminal (markdown 0) or report.md
 * prints it, after a line naming it */
static void table(FILE *out, const char *name, const struct report *r,
		  void (*fill)(const struct report *, struct texttable *), int markdown)
{
	struct texttable t;

	fprintf(out, "%s%s:\n", name, markdown ? " (report.md)" : "");
	fill(r, &t);
	texttable_print(&t, out, markdown);
	texttable_free(&t);
	fputc('\n', out);
}

static void test_tables(void **state)
{
	struct fixture *f = *state;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	load(f, DATA "timeline");
	assert_true(report_has_timeline(&f->r));
	assert_true(report_has_flaps(&f->r));
	assert_true(report_has_outages(&f->r));
	for (int md = 0; md < 2; md++) {
		table(out, "timeline", &f->r, report_timeline_table, md);
		table(out, "flaps", &f->r, report_flap_table, md);
		table(out, "outages", &f->r, report_outage_table, md);
	}
	table(out, "outages per second", &f->r, report_outage_buckets_table, 1);
	fclose(out);
	test_assert_golden(DATA "timeline.golden", text);
	free(text);
}

static void test_compare_run(void **state)
{
	struct fixture *f = *state;
	struct texttable t;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	load(f, DATA "run");
	assert_true(report_has_timeline(&f->r));
	assert_false(report_has_flaps(&f->r));
	assert_false(report_has_outages(&f->r));
	report_timeline_table(&f->r, &t);
	texttable_print(&t, out, 0);
	texttable_free(&t);
	fclose(out);
	/* the kill at t0, 1 s after the clients' start */
	assert_string_equal(text, "after t0 (s)  at (s)  event  action  target  step\n"
				  "0.000          1.000  fail   kill    a       -   \n");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_tables, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_compare_run, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
