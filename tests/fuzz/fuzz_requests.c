/*
 * libFuzzer target: the clocks' reader of the clients' requests CSV
 * (probes/clocks/clocks_csv.c) on one file. A failure must name the file
 * ("PATH:LINE: ..." or "PATH: ..."); a record read has a status and a
 * site that fits; and the records read, written again by the client's own
 * writer (agents/client/record.c, client_record_format), read as the same
 * records (the RTT of an ok request only: the client writes 0 for the
 * others).
 *
 *   make fuzz-run-requests   # from tests/fuzz/corpus/requests/
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/client/record.h"
#include "clocks_int.h"

#define PATH "requests-c1.csv"

static void fuzz_fail(const char *what, const char *err) __attribute__((noreturn));

static void fuzz_fail(const char *what, const char *err)
{
	fprintf(stderr, "requests fuzz: %s%s\n", what, err);
	abort();
}

/* fuzz_again: in's records written by the client's writer into a file
 * read again into *out */
static void fuzz_again(const struct clocks_input *in, struct clocks_input *out)
{
	char *buf = NULL, err[512] = "";
	size_t len = 0;
	FILE *w = open_memstream(&buf, &len), *r;

	if (w == NULL || fputs(CLIENT_CSV_HEADER, w) == EOF)
		fuzz_fail("open_memstream", "");
	for (size_t i = 0; i < in->nrequests; i++) {
		static const enum client_status status[] = {[CLOCKS_OK] = CLIENT_OK,
							    [CLOCKS_TIMEOUT] = CLIENT_TIMEOUT,
							    [CLOCKS_ERROR] = CLIENT_ERROR};
		const struct clocks_request *q = &in->requests[i];
		char line[256];

		if (client_record_format(line, sizeof(line), q->client, q->seq, q->sent_ns,
					 status[q->status], q->site, q->rtt_ns) <= 0 ||
		    fputs(line, w) == EOF)
			fuzz_fail("a record read that the client cannot write", "");
	}
	if (fclose(w) != 0 || (r = fmemopen(buf, len, "r")) == NULL)
		fuzz_fail("fmemopen", "");
	clocks_input_init(out);
	if (clocks_read_requests_stream(r, PATH, out, err, sizeof(err)) == -1)
		fuzz_fail("the records written do not read: ", err);
	fclose(r);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *fp = size ? fmemopen((void *)data, size, "r") : fopen("/dev/null", "r");
	struct clocks_input in, again;
	char err[512] = "";

	if (fp == NULL)
		abort();
	clocks_input_init(&in);
	if (clocks_read_requests_stream(fp, PATH, &in, err, sizeof(err)) == -1) {
		if (strncmp(err, PATH ":", strlen(PATH ":")) != 0)
			fuzz_fail("an error that does not name the file: ", err);
		goto out;
	}
	for (size_t i = 0; i < in.nrequests; i++) {
		const struct clocks_request *r = &in.requests[i];

		if ((r->status != CLOCKS_OK && r->status != CLOCKS_TIMEOUT &&
		     r->status != CLOCKS_ERROR) ||
		    strnlen(r->site, sizeof(r->site)) == sizeof(r->site))
			abort();
	}
	fuzz_again(&in, &again);
	if (again.nrequests != in.nrequests)
		fuzz_fail("the records written read as another number of records", "");
	for (size_t i = 0; i < in.nrequests; i++) {
		const struct clocks_request *a = &in.requests[i], *b = &again.requests[i];

		if (a->client != b->client || a->seq != b->seq || a->sent_ns != b->sent_ns ||
		    a->status != b->status || strcmp(a->site, b->site) != 0 ||
		    (a->status == CLOCKS_OK && a->rtt_ns != b->rtt_ns))
			fuzz_fail("a record written and read again is another record", "");
	}
	clocks_input_free(&again);
out:
	fclose(fp);
	clocks_input_free(&in);
	return 0;
}
