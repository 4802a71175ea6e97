/*
 * libFuzzer target: resolverd's handling of a client's query
 * (agents/resolverd/resolver.c, msg.c, cache.c, upstream.c), in
 * resolverd_env.h's socketless resolver. The cache holds a positive, a
 * negative, a large (truncated over UDP) and a stale answer, and one due
 * for prefetch, for names under lab.example; the input is asked over UDP and over TCP; a miss
 * gets an upstream answer for its question. Every answer is checked
 * (resolverd_env.c): at most its size limit, a message libknot parses,
 * the client's ID and question.
 *
 *   make fuzz-run-resolverd-query   # from tests/fuzz/corpus/resolverd-query/
 */
#include <stdint.h>
#include <stdlib.h>

#include "agents/resolverd/msg.h"
#include "resolverd_env.h"
#include "timeutil.h"

static uint8_t answer[KNOT_WIRE_MAX_PKTSIZE];

/* fill: the cache as every input finds it */
static void fill(void)
{
	struct rsv_key k;

	fenv_key(&k, "pre.lab.example.", KNOT_RRTYPE_A);
	fenv_ask_key(0, 0, &k, 1, 0);
	fenv_upstream(&k, answer, fenv_answer(&k, 8, 0, 0, answer));
	fenv_key(&k, "stale.lab.example.", KNOT_RRTYPE_A);
	fenv_ask_key(0, 0, &k, 1, 0);
	fenv_upstream(&k, answer, fenv_answer(&k, 1, 0, 0, answer));
	fenv_advance(3 * NSEC_PER_SEC); /* pre: 3.5 s of 8 left, after the settling */
	fenv_ask_key(0, 0, &k, 2, 0);
	fenv_settle(); /* the refresh failed: stale for stale_recheck */
	fenv_key(&k, "www.lab.example.", KNOT_RRTYPE_A);
	fenv_ask_key(0, 0, &k, 3, 0);
	fenv_upstream(&k, answer, fenv_answer(&k, 300, 0, 0, answer));
	fenv_key(&k, "nx.lab.example.", KNOT_RRTYPE_A);
	fenv_ask_key(0, 0, &k, 4, 0);
	fenv_upstream(&k, answer, fenv_answer(&k, 60, 1, 0, answer));
	fenv_key(&k, "big.lab.example.", KNOT_RRTYPE_TXT);
	fenv_ask_key(0, 1, &k, 5, 0);
	fenv_upstream(&k, answer, fenv_answer(&k, 300, 0, 1, answer));
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fenv_init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	knot_pkt_t *q;
	struct rsv_key k;

	fenv_reset();
	fill();
	fenv_ask(1, 0, data, size);
	fenv_ask(2, 1, data, size);
	/* a miss waits on the upstream: answer it */
	q = rsv_msg_parse(data, size);
	if (q != NULL && rsv_msg_key(q, &k) == 0)
		fenv_upstream(&k, answer, fenv_answer(&k, 60, 0, 0, answer));
	knot_pkt_free(q);
	fenv_settle();
	return 0;
}
