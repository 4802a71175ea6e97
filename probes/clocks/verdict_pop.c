/*
 * client_stalled for a population (docs/clocks.md, "Verdict"): its logical
 * clients' requests after t0, in 100 ms buckets of their send times,
 * against its rate. A population keeps its schedule unless the machine
 * cannot: one starved of CPU sends fewer in some buckets and its backlog in
 * a burst after (its total passes client_behind), and every clock read
 * from its clients' requests (their queries go out as their requests fall
 * due) moves with the gap. See verdict_int.h.
 */
#include "verdict_int.h"

#include <stdlib.h>

#include "timeutil.h"
#include "verdict.h"

/* a bucket of the population's requests with less than this share of what
 * its rate sends: a stall of 50 ms or more (paced, a sound run's buckets are
 * within 3 % of it; a loaded gate's showed 30 ms stalls, 65-70 %, without
 * moving the clocks beyond the model's tolerance, and one of 74 ms, 26 %,
 * that moved seed002's p50 by a second) */
#define POP_STALL_SHARE 0.5
#define POP_BUCKET_NS (100 * 1000000LL)
/* buckets expected to hold at least this many requests are checked */
#define POP_MIN_EXPECTED 20

void clocks_verdict_pop_stalled(const struct clocks_input *in, struct clocks_notes *v)
{
	int64_t traffic = clocks_traffic_ns(in), from, until;

	if (!in->have_requests || traffic == CLOCKS_NONE || traffic <= 0 ||
	    in->traffic_start_ns == CLOCKS_NONE || in->failure.t0_ns == CLOCKS_NONE)
		return;
	from = in->failure.t0_ns;
	/* the whole buckets before the traffic's end */
	until = in->traffic_start_ns + traffic;
	if (until - from < POP_BUCKET_NS)
		return;
	for (size_t i = 0; i < in->nclients; i++) {
		const struct clocks_client *c = &in->clients[i];
		size_t n = (size_t)((until - from) / POP_BUCKET_NS), worst = 0;
		double want = c->rate * POP_BUCKET_NS / NSEC_PER_SEC;
		uint64_t *count;
		char at[48];

		if (c->population <= 0 || c->rate <= 0 || want < POP_MIN_EXPECTED ||
		    (count = calloc(n, sizeof(*count))) == NULL)
			continue;
		for (size_t r = 0; r < in->nrequests; r++) {
			const struct clocks_request *q = &in->requests[r];

			if (q->client < c->id || q->client - c->id >= (uint64_t)c->population ||
			    q->sent_ns <= from || q->sent_ns >= from + (int64_t)n * POP_BUCKET_NS)
				continue;
			count[(q->sent_ns - from - 1) / POP_BUCKET_NS]++;
		}
		for (size_t k = 1; k < n; k++)
			if (count[k] < count[worst])
				worst = k;
		if ((double)count[worst] < POP_STALL_SHARE * want)
			clocks_invalid(
			    v, "client_stalled",
			    "population %u (%s on %s, %lld logical clients) sent %llu requests "
			    "from %s in 100 ms though its rate sends %.0f: it was not running on "
			    "schedule (starved of CPU), so when its clients asked and left %s "
			    "is not measured (fewer than %.0f %% in a bucket after t0 "
			    "invalidates)",
			    c->id, c->agent, c->node, (long long)c->population,
			    (unsigned long long)count[worst],
			    clocks_verdict_at(at, sizeof(at), in,
					      from + (int64_t)worst * POP_BUCKET_NS),
			    want, in->failure.site, 100 * POP_STALL_SHARE);
		free(count);
	}
}
