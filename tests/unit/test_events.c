/*
 * The events' one table (lib/events.c) against docs/events.md: every event
 * of the table is a row of the document, in the section of the program
 * that writes it, with each of its fields named there; every event the
 * document lists is in the table; and events_find finds each by name. And
 * the writer holds to the table (lib/event.c): an event that is not in it,
 * written by another program than its row's, or with a field its row does
 * not name, is not written, and the log says why.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "event.h"
#include "events.h"
#include "log.h"
#include "test_capture.h"
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

static void test_has_field(void **state)
{
	const struct events_def *e = events_find(EVENTS_SITE_FAILED);

	(void)state;
	assert_int_equal(events_has_field(e, "site"), 1);
	assert_int_equal(events_has_field(e, "jitter_offset_ns"), 1);
	assert_int_equal(events_has_field(e, "via"), 1);
	assert_int_equal(events_has_field(e, "vi"), 0);
	assert_int_equal(events_has_field(e, "sites"), 0);
	assert_int_equal(events_has_field(e, ""), 0);
	assert_int_equal(events_has_field(events_find(EVENTS_LAB_DOWN), "lab"), 0);
}

/* test_events_emit: what writing event with one string field (field NULL:
 * none) as agent wrote to the file, and the log's text; the return value */
static int test_events_emit(const char *agent, const char *event, const char *field, char **file,
			    char **log)
{
	char path[] = "/tmp/steerlab-test-events.XXXXXX";
	int fd = mkstemp(path), rc;
	struct event_log *ev;
	struct capture c;

	assert_int_not_equal(fd, -1);
	close(fd);
	assert_non_null(ev = event_open(path, "n1", agent));
	capture_start(&c);
	if (field)
		rc = event_emit(ev, event, "{s:s}", field, "x");
	else
		rc = event_emit(ev, event, NULL);
	capture_end(&c);
	event_close(ev);
	*file = test_read_file(path);
	*log = c.err;
	free(c.out);
	unlink(path);
	return rc;
}

static void test_emit_contract(void **state)
{
	char *file, *log;

	(void)state;
	log_init("steerlab", 0);
	assert_int_equal(test_events_emit("prober", EVENTS_DECLARED_DEAD, "site", &file, &log), 0);
	assert_non_null(strstr(file, "\"event\":\"declared_dead\",\"site\":\"x\"}\n"));
	assert_string_equal(log, "");
	free(file);
	free(log);

	assert_int_equal(test_events_emit("steerlab", EVENTS_LAB_DOWN, NULL, &file, &log), 0);
	assert_non_null(strstr(file, "\"event\":\"lab_down\"}\n"));
	free(file);
	free(log);

	assert_int_equal(test_events_emit("prober", "declared_gone", "site", &file, &log), -1);
	assert_string_equal(file, "");
	assert_string_equal(log, "steerlab: event declared_gone: not an event of lib/events.c "
				 "(docs/events.md): not written\n");
	free(file);
	free(log);

	assert_int_equal(test_events_emit("sited", EVENTS_DECLARED_DEAD, "site", &file, &log), -1);
	assert_string_equal(file, "");
	assert_string_equal(log, "steerlab: event declared_dead: lib/events.c has prober write it, "
				 "not sited: not written\n");
	free(file);
	free(log);

	assert_int_equal(test_events_emit("prober", EVENTS_DECLARED_DEAD, "prefix", &file, &log),
			 -1);
	assert_string_equal(file, "");
	assert_string_equal(log,
			    "steerlab: event declared_dead: prefix is not one of its fields in "
			    "lib/events.c (docs/events.md): not written\n");
	free(file);
	free(log);

	/* control_rejected: any program with a control channel */
	assert_int_equal(test_events_emit("routed", EVENTS_CONTROL_REJECTED, "from", &file, &log),
			 0);
	assert_string_equal(log, "");
	free(file);
	free(log);
}

static void test_each_one(json_t *obj, const char *event, void *arg)
{
	char *seen = arg;
	size_t len = strlen(seen);

	snprintf(seen + len, 256 - len, "%s%s:%zu", len ? " " : "", event,
		 strlen(json_string_value(json_object_get(obj, "pad")) ?: ""));
}

/* events_each: the objects with an event, a long line whole, a line cut
 * short and one without an event passed over */
static void test_each(void **state)
{
	char seen[256] = "", pad[10001];
	FILE *fp = tmpfile();

	(void)state;
	assert_non_null(fp);
	memset(pad, 'x', sizeof(pad) - 1);
	pad[sizeof(pad) - 1] = '\0';
	fprintf(fp, "{\"event\":\"lab_up\",\"pad\":\"%s\"}\n", pad);
	fprintf(fp, "{\"t\":1}\n");
	fprintf(fp, "{\"event\":\"traffic_started\"}\n");
	fprintf(fp, "{\"event\":\"traffic_stop");
	rewind(fp);
	events_each(fp, test_each_one, seen);
	fclose(fp);
	assert_string_equal(seen, "lab_up:10000 traffic_started:0");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_table_documented),
	    cmocka_unit_test(test_documented_in_table),
	    cmocka_unit_test(test_find),
	    cmocka_unit_test(test_has_field),
	    cmocka_unit_test(test_emit_contract),
	    cmocka_unit_test(test_each),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
