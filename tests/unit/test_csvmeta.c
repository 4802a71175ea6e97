/* The '#' lines of steerlab's CSV files (lib/csvmeta.h), and the requests
 * reader's handling of them (probes/clocks/clocks_csv.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clocks_int.h"
#include "csvmeta.h"

static void test_run_id(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(csvmeta_run_id("runs/lab-20270101-120000", buf, sizeof(buf)),
			    "lab-20270101-120000");
	assert_string_equal(csvmeta_run_id("/tmp/sw/ttl-2//", buf, sizeof(buf)), "ttl-2");
	assert_string_equal(csvmeta_run_id("rep-3", buf, sizeof(buf)), "rep-3");
	assert_string_equal(csvmeta_run_id("/", buf, sizeof(buf)), "-");
	assert_string_equal(csvmeta_run_id(".", buf, sizeof(buf)), "-");
	assert_string_equal(csvmeta_run_id("", buf, sizeof(buf)), "-");
}

static void test_write(void **state)
{
	char *text = NULL, want[512];
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	(void)state;
	csvmeta_write(fp, "r-1", NULL, "t_s=s, bad=cut\nhere");
	csvmeta_write(fp, "r-2", "topology/x.ini", NULL);
	fclose(fp);
	snprintf(want, sizeof(want),
		 "# steerlab %s\n# run r-1\n# topology -\n# units: t_s=s, bad=cut\n"
		 "# steerlab %s\n# run r-2\n# topology topology/x.ini\n",
		 csvmeta_version(), csvmeta_version());
	assert_string_equal(text, want);
	assert_true(csvmeta_is_meta("# run x"));
	assert_false(csvmeta_is_meta("client,seq"));
	free(text);
}

/* read_text: the requests CSV text through the analysis' reader; its return */
static int read_text(const char *text, struct clocks_input *in, char *err, size_t errlen)
{
	FILE *fp = fmemopen((void *)text, strlen(text), "r");
	int rc;

	memset(in, 0, sizeof(*in));
	rc = clocks_read_requests_stream(fp, "requests-c1.csv", in, err, errlen);
	fclose(fp);
	return rc;
}

static void test_requests_reader(void **state)
{
	struct clocks_input in;
	char err[256];

	(void)state;
	/* the '#' lines before the header are skipped; a file without them
	 * (from before them) reads as before */
	assert_int_equal(read_text("# steerlab v1\n# run r\n# topology t.ini\n"
				   "client,seq,sent_ns,status,site,rtt_ns\n1,0,100,ok,a,20\n",
				   &in, err, sizeof(err)),
			 0);
	assert_int_equal(in.nrequests, 1);
	assert_string_equal(in.requests[0].site, "a");
	clocks_input_free(&in);
	assert_int_equal(read_text("client,seq,sent_ns,status,site,rtt_ns\n1,0,100,ok,a,20\n", &in,
				   err, sizeof(err)),
			 0);
	assert_int_equal(in.nrequests, 1);
	clocks_input_free(&in);
	/* after the header, a '#' line is a record that does not parse, and
	 * a wrong header is named by its line */
	assert_int_equal(read_text("# run r\nclient,seq,sent_ns,status,site,rtt_ns\n# late\n", &in,
				   err, sizeof(err)),
			 -1);
	assert_string_equal(err, "requests-c1.csv:3: 1 fields, expected 6 "
				 "(client,seq,sent_ns,status,site,rtt_ns)");
	clocks_input_free(&in);
	assert_int_equal(read_text("# run r\nclient,seq\n", &in, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "requests-c1.csv:2: expected the header "));
	clocks_input_free(&in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_run_id),
	    cmocka_unit_test(test_write),
	    cmocka_unit_test(test_requests_reader),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
