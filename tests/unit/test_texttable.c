/* lib/texttable.c: the terminal and Markdown tables of the report and the sweep. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "texttable.h"

static char *print(const struct texttable *t, int markdown)
{
	char *s;
	size_t len;
	FILE *out = open_memstream(&s, &len);

	assert_non_null(out);
	texttable_print(t, out, markdown);
	fclose(out);
	return s;
}

static void fill(struct texttable *t)
{
	texttable_init(t, 3);
	texttable_row(t);
	texttable_cell(t, "scheme");
	texttable_cell(t, "window (s)");
	texttable_cell(t, "n");
	texttable_row(t);
	texttable_cell(t, "dns");
	texttable_cell(t, "\u2265 %.3f", 4.003);
	texttable_cell(t, "%d", 12);
	texttable_row(t);
	texttable_cell(t, "a|b");
	texttable_cell(t, "0.250");
	texttable_cell(t, "7");
}

/* "≥" is one column: the lower bound lines up with the numbers */
static void test_terminal(void **state)
{
	struct texttable t;
	char *s;

	(void)state;
	fill(&t);
	s = print(&t, 0);
	assert_string_equal(s, "scheme  window (s)   n\n"
			       "dns        \u2265 4.003  12\n"
			       "a|b          0.250   7\n");
	free(s);
	texttable_free(&t);
}

static void test_markdown(void **state)
{
	struct texttable t;
	char *s;

	(void)state;
	fill(&t);
	s = print(&t, 1);
	assert_string_equal(s, "| scheme | window (s) |  n |\n"
			       "|:-------|-----------:|---:|\n"
			       "| dns    |    \u2265 4.003 | 12 |\n"
			       "| a\\|b   |      0.250 |  7 |\n");
	free(s);
	texttable_align(&t, 0, 0);
	texttable_align(&t, 2, 1);
	s = print(&t, 1);
	assert_string_equal(s, "| scheme | window (s) | n  |\n"
			       "|-------:|-----------:|:---|\n"
			       "|    dns |    \u2265 4.003 | 12 |\n"
			       "|   a\\|b |      0.250 | 7  |\n");
	free(s);
	texttable_free(&t);
}

/* titles are taken as they are, not as formats; a row of titles longer
 * than the table is cut at its columns */
static void test_titles(void **state)
{
	struct texttable t;
	char *s;

	(void)state;
	texttable_init(&t, 2);
	texttable_titles(&t, "share %", "n", "dropped", NULL);
	texttable_titles(&t, "a", NULL);
	texttable_cell(&t, "%d", 3);
	s = print(&t, 0);
	assert_string_equal(s, "share %  n\n"
			       "a        3\n");
	free(s);
	texttable_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_terminal),
	    cmocka_unit_test(test_markdown),
	    cmocka_unit_test(test_titles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
