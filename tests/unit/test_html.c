/*
 * lib/html: the escaping of steerlab's HTML pages. Text and attribute
 * values escape & < > " '; a JSON block cannot be ended by a string of its
 * data ("</script>", "<!--") and stays the same JSON; a texttable is an
 * HTML table with its header row, its cells escaped and its left-aligned
 * columns marked.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "html.h"

/* what a test wrote to mem_open()'s stream */
static char *mem_text;
static size_t mem_len;

static FILE *mem_open(void)
{
	FILE *fp = open_memstream(&mem_text, &mem_len);

	assert_non_null(fp);
	return fp;
}

static void test_escape(void **state)
{
	FILE *fp = mem_open();

	(void)state;
	html_escape(fp, "a<b>&\"c\" 'd' </script>");
	fclose(fp);
	assert_string_equal(mem_text, "a&lt;b&gt;&amp;&quot;c&quot; &#39;d&#39; &lt;/script&gt;");
	free(mem_text);
	fp = mem_open();
	html_escape_n(fp, "<<x", 2);
	fclose(fp);
	assert_string_equal(mem_text, "&lt;&lt;");
	free(mem_text);
}

static void test_json_block(void **state)
{
	const char *json = "{\"m\":\"</script><script>alert(1)</script><!-- x\"}";
	FILE *fp = mem_open();

	(void)state;
	html_json_block(fp, "d\"x", json, strlen(json));
	fclose(fp);
	assert_string_equal(mem_text, "<script type=\"application/json\" id=\"d&quot;x\">"
				      "{\"m\":\"<\\/script><script>alert(1)<\\/script><\\!-- "
				      "x\"}</script>\n");
	/* the one "</script" left is the block's own end */
	assert_ptr_equal(strstr(mem_text, "</script"), strrchr(mem_text, '<'));
	free(mem_text);
}

static void test_table(void **state)
{
	struct texttable t;
	FILE *fp = mem_open();

	(void)state;
	texttable_init(&t, 2);
	texttable_titles(&t, "router", "after <t0>", NULL);
	texttable_row(&t);
	texttable_cell(&t, "r&1");
	texttable_cell(&t, "%d", 3);
	html_table(fp, &t, "fib");
	texttable_free(&t);
	fclose(fp);
	assert_string_equal(mem_text,
			    "<table class=\"fib\">\n"
			    "<tr><th class=\"l\">router</th><th>after &lt;t0&gt;</th></tr>\n"
			    "<tr><td class=\"l\">r&amp;1</td><td>3</td></tr>\n"
			    "</table>\n");
	free(mem_text);
}

static void test_page(void **state)
{
	FILE *fp = mem_open();

	(void)state;
	html_page_begin(fp, "lab <x>");
	html_page_end(fp);
	fclose(fp);
	assert_non_null(strstr(mem_text, "<title>lab &lt;x&gt;</title>"));
	assert_non_null(strstr(mem_text, "<meta charset=\"utf-8\">"));
	/* nothing fetched: no link, no src */
	assert_null(strstr(mem_text, "<link"));
	assert_null(strstr(mem_text, "src="));
	assert_non_null(strstr(mem_text, "</body>\n</html>\n"));
	free(mem_text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_escape),
	    cmocka_unit_test(test_json_block),
	    cmocka_unit_test(test_table),
	    cmocka_unit_test(test_page),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
