/*
 * The events' one table (lib/events.c) against docs/events.md: every event
 * of the table is a row of the document, in the section of the program
 * that writes it, with each of its fields named there; every event the
 * document lists is in the table; and events_find finds each by name.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "events.h"
#include "test_file.h"

#define DOC "docs/events.md"

/* test_events_row: the next row of doc (after *row, if not NULL) whose
 * first cell names the event name in backquotes, and its section (the "## "
 * heading above it), or -1 */
static int test_events_row(const char *doc, const char *name, const char **row, size_t *rowlen,
			   const char **sec, size_t *seclen)
{
	char want[128];
	const char *p = *row ? *row + *rowlen : doc, *heading = *row ? *sec : NULL;

	snprintf(want, sizeof(want), "`%s`", name);
	while (*p) {
		const char *eol = strchr(p, '\n'), *bar;
		size_t len = eol ? (size_t)(eol - p) : strlen(p);

		if (strncmp(p, "## ", 3) == 0)
			heading = p + 3;
		bar = len > 2 && p[0] == '|' ? memchr(p + 1, '|', len - 1) : NULL;
		if (bar && heading && memmem(p, (size_t)(bar - p), want, strlen(want))) {
			*row = p;
			*rowlen = len;
			*sec = heading;
			*seclen = strcspn(heading, "\n");
			return 0;
		}
		p += len + (eol != NULL);
	}
	return -1;
}

/* test_events_section: the text of the section that begins at sec */
static size_t test_events_section(const char *sec)
{
	const char *next = strstr(sec, "\n## ");

	return next ? (size_t)(next - sec) : strlen(sec);
}

static void test_table_documented(void **state)
{
	char *doc = test_read_file(DOC);

	(void)state;
	for (size_t i = 0; i < events_count; i++) {
		const struct events_def *e = &events_table[i];
		const char *row = NULL, *sec = NULL, *f;
		size_t rowlen = 0, seclen = 0, body;
		int rows = 0, placed = e->agent == NULL;

		while (test_events_row(doc, e->name, &row, &rowlen, &sec, &seclen) == 0) {
			rows++;
			if (e->agent && seclen >= strlen(e->agent) &&
			    strncmp(sec, e->agent, strlen(e->agent)) == 0)
				placed = 1;
		}
		if (rows == 0)
			fail_msg("%s: no row for event %s", DOC, e->name);
		if (!placed)
			fail_msg("%s: %s not in the section of %s", DOC, e->name, e->agent);
		/* a field is named in one of the event's rows, or in its
		 * section's text (resolverd's counts, shared by three events) */
		for (f = e->fields; *f;) {
			size_t n = strcspn(f, " ");
			char want[128];
			int found = 0;

			snprintf(want, sizeof(want), "`%.*s`", (int)n, f);
			row = NULL;
			while (!found &&
			       test_events_row(doc, e->name, &row, &rowlen, &sec, &seclen) == 0) {
				body = test_events_section(sec);
				found = memmem(row, rowlen, want, strlen(want)) ||
					memmem(sec, body, want, strlen(want));
			}
			if (!found)
				fail_msg("%s: event %s: field %s not documented", DOC, e->name,
					 want);
			f += n;
			f += strspn(f, " ");
		}
	}
	free(doc);
}

static void test_documented_in_table(void **state)
{
	char *doc = test_read_file(DOC);
	const char *p = doc;
	int sections = 0, rows = 0;

	(void)state;
	/* the rows of the sections of programs: the first cell's names */
	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);

		if (strncmp(p, "## ", 3) == 0)
			sections++;
		if (sections > 0 && len > 3 && strncmp(p, "| `", 3) == 0) {
			const char *cell = p + 1, *end = memchr(cell, '|', len - 1);

			assert_non_null(end);
			for (const char *q = cell; (q = memchr(q, '`', (size_t)(end - q)));) {
				const char *close = memchr(q + 1, '`', (size_t)(end - q - 1));
				char name[128];

				assert_non_null(close);
				snprintf(name, sizeof(name), "%.*s", (int)(close - q - 1), q + 1);
				if (events_find(name) == NULL)
					fail_msg(
					    "%s: event %s is documented but not in lib/events.c",
					    DOC, name);
				rows++;
				q = close + 1;
			}
		}
		p += len + (eol != NULL);
	}
	/* every event of the table has its row (the other test) */
	assert_true(rows >= (int)events_count);
	free(doc);
}

static void test_find(void **state)
{
	(void)state;
	assert_ptr_equal(events_find(EVENTS_SITE_FAILED), &events_table[2]);
	assert_string_equal(events_find("lab_up")->agent, "steerlab");
	assert_null(events_find("control_rejected")->agent);
	assert_null(events_find("site_fail"));
	assert_null(events_find(""));
	for (size_t i = 0; i < events_count; i++)
		for (size_t j = i + 1; j < events_count; j++)
			assert_string_not_equal(events_table[i].name, events_table[j].name);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_table_documented),
	    cmocka_unit_test(test_documented_in_table),
	    cmocka_unit_test(test_find),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
