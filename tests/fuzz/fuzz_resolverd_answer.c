/*
 * libFuzzer target: resolverd's handling of an upstream answer
 * (agents/resolverd/upstream.c, resolver.c, msg.c, cache.c), in
 * resolverd_env.h's socketless resolver. Three clients (UDP, UDP with
 * EDNS, TCP) wait on one upstream query; the input comes back as its
 * answer, again over the other upstream or TCP while the query is in
 * flight; then the cache answers the same question fresh, 30 s later
 * (a prefetch, for a TTL below 60 s), and, after it expired and a refresh
 * failed, stale. Every answer a client gets is
 * checked (resolverd_env.c).
 *
 *   make fuzz-run-resolverd-answer   # from tests/fuzz/corpus/resolverd-answer/
 */
#include <stdint.h>
#include <stdlib.h>

#include "agents/resolverd/msg.h"
#include "resolverd_env.h"
#include "timeutil.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fenv_init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	knot_pkt_t *p = rsv_msg_parse(data, size);
	struct rsv_key k;

	fenv_reset();
	/* the answer's own question, so that it can match */
	if (p == NULL || rsv_msg_key(p, &k) == -1)
		fenv_key(&k, "www.lab.example.", KNOT_RRTYPE_A);
	knot_pkt_free(p);
	fenv_ask_key(0, 0, &k, 1, 0);
	fenv_ask_key(1, 0, &k, 2, 1232);
	fenv_ask_key(2, 1, &k, 3, 0);
	fenv_upstream(&k, data, size);
	fenv_settle();
	fenv_ask_key(3, 0, &k, 4, 0);
	fenv_advance(30 * NSEC_PER_SEC); /* a TTL of 31..59 s: prefetch */
	fenv_ask_key(6, 0, &k, 7, 0);
	fenv_settle();
	fenv_advance(86401 * NSEC_PER_SEC); /* past any TTL the cache keeps */
	fenv_ask_key(4, 0, &k, 5, 1232);
	fenv_settle(); /* the refresh fails: stale */
	fenv_ask_key(5, 1, &k, 6, 0);
	fenv_settle();
	return 0;
}
