/*
 * libFuzzer target: the clocks' events reader (probes/clocks/
 * clocks_events.c) on one JSON Lines file, read as the events of each
 * agent whose events the clocks use (steerlab's lab.events.jsonl, prober,
 * collector, authd, routed, client), then the FIB clocks and the catchments
 * of what was read. A failure must name the file ("PATH:LINE: ..." or
 * "PATH: ...").
 *
 *   make fuzz-run-events   # from tests/fuzz/corpus/events/
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clocks_int.h"

#define PATH "n1.agent.events.jsonl"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const agents[] = {"steerlab", "prober", "collector", "collector-dns",
					     "authd",	 "routed", "client1"};
	static struct clocks_fib fib;
	static struct clocks_catchments cs;
	struct clocks_input in;
	char err[512];

	for (size_t i = 0; i < sizeof(agents) / sizeof(agents[0]); i++) {
		FILE *fp = size ? fmemopen((void *)data, size, "r") : fopen("/dev/null", "r");

		if (fp == NULL)
			abort();
		clocks_input_init(&in);
		err[0] = '\0';
		if (clocks_read_events_stream(fp, PATH, "n1", agents[i], &in, err, sizeof(err)) ==
			-1 &&
		    strncmp(err, PATH ":", strlen(PATH ":")) != 0) {
			fprintf(stderr, "an error that does not name the file: %s\n", err);
			abort();
		}
		fclose(fp);
		/* whatever was read: the FIB replay and the catchments on it */
		clocks_fib(&in, &fib);
		clocks_catchments(&in, &fib, &cs);
		clocks_input_free(&in);
	}
	return 0;
}
