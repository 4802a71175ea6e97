/*
 * libFuzzer target: resolverd's walk when iterating (agents/resolverd/iter.c,
 * iter_msg.c, iter_cache.c, deleg.c), in resolverd_env.h's socketless
 * resolver. The first byte sets qname minimisation (bit 0) and ECS (bit 1);
 * three clients (UDP, UDP with EDNS, TCP) ask www.lab.example A; the rest
 * of the input is a sequence of answers, each a 2-byte length and the
 * message, given in turn to the query in flight as if the server it was
 * sent to had answered (its question replaced by the one asked, so that
 * referrals, CNAMEs and glue lead the walk anywhere). Then time runs out
 * on what is still in flight, the cache answers the question again, and
 * once everything has expired, stale. Every answer a client gets is checked
 * (resolverd_env.c).
 *
 *   make fuzz-run-resolverd-walk   # from tests/fuzz/corpus/resolverd-walk/
 */
#include <stdint.h>
#include <stdlib.h>

#include "resolverd_env.h"
#include "timeutil.h"

#define WALK_ANSWERS 40 /* more than a walk's 32 queries */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fenv_init();
	fenv_iterate(0, 0);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rsv_key k;

	if (size < 1)
		return 0;
	fenv_reset();
	fenv_iterate(data[0] & 1, (data[0] >> 1) & 1);
	data++, size--;
	fenv_key(&k, "www.lab.example.", KNOT_RRTYPE_A);
	fenv_ask_key(0, 0, &k, 1, 0);
	fenv_ask_key(1, 0, &k, 2, 1232);
	fenv_ask_key(2, 1, &k, 3, 0);
	for (int n = 0; n < WALK_ANSWERS && size >= 2; n++) {
		size_t len = (size_t)data[0] << 8 | data[1];

		data += 2, size -= 2;
		if (len > size)
			len = size;
		if (!fenv_server(data, len))
			break;
		data += len, size -= len;
	}
	fenv_settle();
	fenv_ask_key(3, 0, &k, 4, 0); /* from the cache, chain and all */
	fenv_settle();
	fenv_advance(86401 * NSEC_PER_SEC); /* past any TTL the cache keeps */
	fenv_ask_key(4, 0, &k, 5, 1232);
	fenv_settle(); /* the walk fails: stale, or SERVFAIL */
	return 0;
}
