/*
 * libFuzzer target: the clocks' events reader (probes/clocks/
 * clocks_events.c) on one JSON Lines file, read as the events of each
 * agent whose events the clocks use (steerlab's lab.events.jsonl, prober,
 * collector, authd, routed, client), then the FIB clocks and the catchments
 * of what was read. A failure must name the file ("PATH:LINE: ..." or
 * "PATH: ..."). What was read is written back as events (events_write.h),
 * read again, and written again: the same text, so the reader reads every
 * field the agents write as they wrote it.
 *
 *   make fuzz-run-events   # from tests/fuzz/corpus/events/
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clocks_int.h"
#include "events_write.h"

#define PATH "n1.agent.events.jsonl"

static void fuzz_fail(const char *agent, const char *what, const char *err)
    __attribute__((noreturn));

static void fuzz_fail(const char *agent, const char *what, const char *err)
{
	fprintf(stderr, "events fuzz, as %s: %s%s\n", agent, what, err);
	abort();
}

/* fuzz_written: in written as events, in *buf (malloc'd), its length */
static size_t fuzz_written(const struct clocks_input *in, const char *agent, char **buf)
{
	size_t len = 0;
	FILE *w = open_memstream(buf, &len);

	if (w == NULL || evw_write(in, w) == -1 || fclose(w) != 0)
		fuzz_fail(agent, "the records cannot be written", "");
	return len;
}

/* fuzz_again: what agent read in in, written, read again and written
 * again: the same text */
static void fuzz_again(const struct clocks_input *in, const char *agent)
{
	struct clocks_input again;
	char *one = NULL, *two = NULL, err[512] = "";
	size_t n1 = fuzz_written(in, agent, &one), n2;
	FILE *r = fmemopen(one, n1 ? n1 : 1, "r");

	if (r == NULL)
		fuzz_fail(agent, "fmemopen", "");
	clocks_input_init(&again);
	if (n1 > 0 &&
	    clocks_read_events_stream(r, PATH, "n1", agent, &again, err, sizeof(err)) == -1)
		fuzz_fail(agent, "the events written do not read: ", err);
	fclose(r);
	n2 = fuzz_written(&again, agent, &two);
	if (n1 != n2 || memcmp(one, two, n1) != 0) {
		fprintf(stderr, "written:\n%.*s\nread and written again:\n%.*s\n", (int)n1, one,
			(int)n2, two);
		fuzz_fail(agent, "the records written and read again are other records", "");
	}
	clocks_input_free(&again);
	free(one);
	free(two);
}

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
		    -1) {
			if (strncmp(err, PATH ":", strlen(PATH ":")) != 0)
				fuzz_fail(agents[i], "an error that does not name the file: ", err);
		} else {
			fuzz_again(&in, agents[i]);
		}
		fclose(fp);
		/* whatever was read: the FIB replay and the catchments on it */
		clocks_fib(&in, &fib);
		clocks_catchments(&in, &fib, &cs);
		clocks_input_free(&in);
	}
	return 0;
}
