/*
 * libFuzzer target: the clocks' reader of the clients' requests CSV
 * (probes/clocks/clocks_csv.c) on one file. A failure must name the file
 * ("PATH:LINE: ..." or "PATH: ..."); a record read has a status and a
 * site that fits.
 *
 *   make fuzz-run-requests   # from tests/fuzz/corpus/requests/
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clocks_int.h"

#define PATH "requests-c1.csv"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *fp = size ? fmemopen((void *)data, size, "r") : fopen("/dev/null", "r");
	struct clocks_input in;
	char err[512] = "";

	if (fp == NULL)
		abort();
	clocks_input_init(&in);
	if (clocks_read_requests_stream(fp, PATH, &in, err, sizeof(err)) == -1 &&
	    strncmp(err, PATH ":", strlen(PATH ":")) != 0) {
		fprintf(stderr, "an error that does not name the file: %s\n", err);
		abort();
	}
	for (size_t i = 0; i < in.nrequests; i++) {
		const struct clocks_request *r = &in.requests[i];

		if ((r->status != CLOCKS_OK && r->status != CLOCKS_TIMEOUT &&
		     r->status != CLOCKS_ERROR) ||
		    strnlen(r->site, sizeof(r->site)) == sizeof(r->site))
			abort();
	}
	fclose(fp);
	clocks_input_free(&in);
	return 0;
}
