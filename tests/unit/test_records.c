/* Binary request records (lib/recbin.h): the format's round trip, and the
 * same synthetic traffic written as CSV and as binary records gives the
 * analysis the same requests and the same counts per scheme. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "agents/client/record.h"
#include "clocks_int.h"
#include "lab.h"
#include "recbin.h"

static void test_format_round_trip(void **state)
{
	struct recbin_rec r = {.client = 0xC0020005u,
			       .kind = RECBIN_OK,
			       .site = 3,
			       .seq = 0x0102030405060708ull,
			       .sent_ns = 1796085339808958216LL,
			       .rtt_ns = 123456},
			  back;
	uint8_t hdr[RECBIN_HDR_LEN], buf[RECBIN_LEN];
	char why[160];

	(void)state;
	recbin_header(hdr);
	assert_memory_equal(hdr, "SLRB\x01\x00\x20\x00", 8);
	assert_int_equal(recbin_check_header(hdr, sizeof(hdr), why, sizeof(why)), 0);
	hdr[4] = 2;
	assert_int_equal(recbin_check_header(hdr, sizeof(hdr), why, sizeof(why)), -1);
	assert_string_equal(why,
			    "version 2 with records of 32 bytes; expected version 1, 32 bytes");
	assert_int_equal(recbin_check_header((const uint8_t *)"client,seq", 10, why, sizeof(why)),
			 -1);

	recbin_encode(&r, buf);
	/* little-endian, at the documented offsets */
	assert_int_equal(buf[0], 0x05);
	assert_int_equal(buf[3], 0xC0);
	assert_int_equal(buf[8], 0x08);
	assert_int_equal(buf[15], 0x01);
	assert_int_equal(recbin_decode(buf, &back), 0);
	assert_int_equal(back.client, r.client);
	assert_int_equal(back.kind, RECBIN_OK);
	assert_int_equal(back.site, 3);
	assert_true(back.seq == r.seq && back.sent_ns == r.sent_ns && back.rtt_ns == r.rtt_ns);

	memset(&r, 0, sizeof(r));
	r.kind = RECBIN_SITE;
	r.site = 7;
	strcpy(r.name, "sixteen-chars-ab");
	recbin_encode(&r, buf);
	assert_int_equal(recbin_decode(buf, &back), 0);
	assert_string_equal(back.name, "sixteen-chars-ab");
	buf[4] = 9; /* no such kind */
	assert_int_equal(recbin_decode(buf, &back), -1);
}

/* synthetic traffic: a population's DNS flow and a single anycast client,
 * ok at three sites, timeouts, errors */
static void write_traffic(FILE *csv, struct client_recbin *bin)
{
	static const char *const sites[] = {"a", "b", "site-c"};
	uint32_t dns = LAB_POP_ID(1, 1), any = 2;

	/* the '#' lines first, as the client writes them (lib/csvmeta.h) */
	client_record_meta(csv, "runs/x-1/requests-x.csv", "topology/compare.ini");
	fputs(CLIENT_CSV_HEADER, csv);
	for (uint64_t i = 0; i < 5000; i++) {
		uint32_t client = i % 3 == 2 ? any : dns + (uint32_t)(i % 1000);
		enum client_status st = i % 17 == 0    ? CLIENT_TIMEOUT
					: i % 101 == 0 ? CLIENT_ERROR
						       : CLIENT_OK;
		const char *site = st == CLIENT_OK ? sites[(i / 7) % 3] : NULL;
		int64_t sent = 1796085000000000000LL + (int64_t)i * 100000;
		int64_t rtt = st == CLIENT_OK ? 20000 + (int64_t)(i % 5000) : 0;
		char line[128];
		int n = client_record_format(line, sizeof(line), client, i, sent, st, site, rtt);

		assert_true(n > 0);
		fwrite(line, 1, (size_t)n, csv);
		assert_int_equal(client_recbin_write(bin, client, i, sent, st, site, rtt), 0);
	}
}

static void test_csv_and_binary_agree(void **state)
{
	struct clocks_input a, b;
	struct client_recbin bin;
	char *cbuf = NULL, *bbuf = NULL, err[256];
	size_t clen = 0, blen = 0;
	FILE *csv = open_memstream(&cbuf, &clen), *bfp = open_memstream(&bbuf, &blen);
	const struct clocks_flows *flows[] = {&clocks_anycast_flows, &clocks_dns_flows};

	(void)state;
	assert_int_equal(client_recbin_start(&bin, bfp), 0);
	write_traffic(csv, &bin);
	fclose(csv);
	fclose(bfp);
	assert_true(strncmp(cbuf, "# steerlab ", 11) == 0);
	assert_non_null(strstr(cbuf, "\n# run x-1\n# topology topology/compare.ini\n# units: "
				     "sent_ns=ns since the epoch (CLOCK_REALTIME), rtt_ns=ns"));
	/* 32 bytes a record and three site names: about 60 % of the CSV */
	assert_int_equal(blen, RECBIN_HDR_LEN + (5000 + 3) * RECBIN_LEN);
	assert_true(blen < clen);

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	csv = fmemopen(cbuf, clen, "r");
	bfp = fmemopen(bbuf, blen, "r");
	assert_int_equal(clocks_read_requests_stream(csv, "requests-x.csv", &a, err, sizeof(err)),
			 0);
	assert_int_equal(
	    clocks_read_requests_bin_stream(bfp, "requests-x.bin", &b, err, sizeof(err)), 0);
	fclose(csv);
	fclose(bfp);
	assert_int_equal(a.nrequests, 5000);
	assert_int_equal(b.nrequests, 5000);
	assert_true(a.have_requests && b.have_requests);
	for (size_t i = 0; i < a.nrequests; i++) {
		const struct clocks_request *x = &a.requests[i], *y = &b.requests[i];

		assert_int_equal(x->client, y->client);
		assert_true(x->seq == y->seq && x->sent_ns == y->sent_ns && x->rtt_ns == y->rtt_ns);
		assert_int_equal(x->status, y->status);
		assert_string_equal(x->site, y->site);
	}
	/* the counts of each scheme, from either */
	for (int s = 0; s < 2; s++) {
		struct clocks_result *ra = calloc(1, sizeof(*ra)), *rb = calloc(1, sizeof(*rb));

		clocks_scheme_init(&a, flows[s], ra);
		clocks_scheme_init(&b, flows[s], rb);
		clocks_scheme_measure(&a, flows[s], ra);
		clocks_scheme_measure(&b, flows[s], rb);
		assert_true(ra->sent > 0);
		assert_true(ra->sent == rb->sent && ra->ok == rb->ok &&
			    ra->lost_client == rb->lost_client && ra->errors == rb->errors);
		assert_int_equal(ra->nreplies, rb->nreplies);
		for (int k = 0; k < ra->nreplies; k++) {
			assert_string_equal(ra->replies[k].name, rb->replies[k].name);
			assert_int_equal(ra->replies[k].n, rb->replies[k].n);
		}
		clocks_result_free(ra);
		clocks_result_free(rb);
		free(ra);
		free(rb);
	}
	clocks_input_free(&a);
	clocks_input_free(&b);
	free(cbuf);
	free(bbuf);
}

/* bad files: the error names the file and the record */
static void test_bad_binary(void **state)
{
	struct clocks_input in;
	uint8_t file[RECBIN_HDR_LEN + 2 * RECBIN_LEN + 5];
	struct recbin_rec r = {.client = 1, .kind = RECBIN_OK, .site = 4, .seq = 1};
	char err[256];
	FILE *fp;

	(void)state;
	recbin_header(file);
	recbin_encode(&r, file + RECBIN_HDR_LEN);
	memset(&in, 0, sizeof(in));
	fp = fmemopen(file, RECBIN_HDR_LEN + RECBIN_LEN, "r");
	assert_int_equal(
	    clocks_read_requests_bin_stream(fp, "requests-x.bin", &in, err, sizeof(err)), -1);
	fclose(fp);
	assert_string_equal(err, "requests-x.bin: record 1: site index 4 was not named before");
	clocks_input_free(&in);

	/* a timeout, then a record cut short: a warning, the whole one kept */
	r.kind = RECBIN_TIMEOUT;
	recbin_encode(&r, file + RECBIN_HDR_LEN);
	memset(&in, 0, sizeof(in));
	fp = fmemopen(file, RECBIN_HDR_LEN + RECBIN_LEN + 5, "r");
	assert_int_equal(
	    clocks_read_requests_bin_stream(fp, "requests-x.bin", &in, err, sizeof(err)), 0);
	fclose(fp);
	assert_int_equal(in.nrequests, 1);
	assert_int_equal(in.notes.n, 1);
	assert_string_equal(in.notes.w[0].code, "file_cut");
	clocks_input_free(&in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_format_round_trip),
	    cmocka_unit_test(test_csv_and_binary_agree),
	    cmocka_unit_test(test_bad_binary),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
