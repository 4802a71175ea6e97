/*
 * Helpers shared by the clocks' unit tests that feed event lines from
 * memory to the readers, with no run directory (test_clocks_fib.c,
 * test_clocks_flap.c, test_clocks_outage.c, test_clocks_multi.c): reading
 * a text as one agent's events file, and the cmocka fixture's setup and
 * teardown around the struct clocks_input the readers fill. (Directories of
 * synthetic runs are test_clocks_util.h's.)
 */
#ifndef STEERLAB_TEST_EVENTS_H
#define STEERLAB_TEST_EVENTS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clocks.h"
#include "clocks_int.h"

/* test_read_events: text as the events file RUN/NODE.AGENT.events.jsonl,
 * read into in; the reader's return value (its error in err). */
static inline int test_read_events(struct clocks_input *in, char *err, size_t errlen,
				   const char *node, const char *agent, const char *text)
{
	FILE *fp = fmemopen((void *)text, strlen(text), "r");
	char path[128];
	int rc;

	assert_non_null(fp);
	snprintf(path, sizeof(path), "RUN/%s.%s.events.jsonl", node, agent);
	rc = clocks_read_events_stream(fp, path, node, agent, in, err, errlen);
	fclose(fp);
	return rc;
}

/* TEST_EVENTS_FIXTURE(type, cleanup): setup() and teardown() for a cmocka
 * fixture of that type, which has a struct clocks_input called in: zeroed,
 * the input initialised; at the end cleanup(f) (what else the test
 * computed; a macro or function of type *), the input freed. */
#define TEST_EVENTS_FIXTURE(type, cleanup)                                                         \
	static int setup(void **state)                                                             \
	{                                                                                          \
		type *f = calloc(1, sizeof(*f));                                                   \
                                                                                                   \
		assert_non_null(f);                                                                \
		clocks_input_init(&f->in);                                                         \
		*state = f;                                                                        \
		return 0;                                                                          \
	}                                                                                          \
                                                                                                   \
	static int teardown(void **state)                                                          \
	{                                                                                          \
		type *f = *state;                                                                  \
                                                                                                   \
		cleanup(f);                                                                        \
		clocks_input_free(&f->in);                                                         \
		free(f);                                                                           \
		return 0;                                                                          \
	}

/* TEST_EVENTS_NOTHING: a cleanup with nothing to do */
#define TEST_EVENTS_NOTHING(f) ((void)(f))

#endif
