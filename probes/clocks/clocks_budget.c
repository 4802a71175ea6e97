/*
 * The error budget (docs/clocks.md, "Budget"): what a scheme's failover cost
 * in the terms of an SLO. Two measures that a person might take for the
 * same thing, side by side:
 *
 *   equivalent downtime   the failed requests (client timeouts + errors)
 *                         divided by the scheme's mean request rate: how
 *                         long a total outage would have cost as many
 *   window                from t0 to the last request reaching the dead
 *                         site: how long any of the traffic still failed
 *
 * and the share of the traffic sent during the window that failed, which
 * links the two. Each is a share of the monthly budget of the SLO. Pure
 * arithmetic, no I/O.
 */
#include "clocks_budget.h"

#include <math.h>
#include <string.h>

#include "clocks_input.h"
#include "clocks_result.h"
#include "timeutil.h"

static double clocks_budget_ratio(double num, double den)
{
	return den > 0 ? num / den : -1;
}

/* clocks_budget_window_records: the scheme's records sent in (t0, t0 + window],
 * and the failed ones among them */
static void clocks_budget_window_records(const struct clocks_input *in,
					 const struct clocks_result *r, struct clocks_budget *b)
{
	int64_t t0 = in->failure.t0_ns;
	enum clocks_scheme scheme =
	    strcmp(r->scheme, "dns") == 0 ? CLOCKS_SCHEME_DNS : CLOCKS_SCHEME_ANYCAST;

	if (!in->have_requests || b->window_ns == CLOCKS_NONE)
		return;
	b->window_sent = b->window_failed = 0;
	for (size_t i = 0; i < in->nrequests; i++) {
		const struct clocks_request *q = &in->requests[i];

		if (clocks_scheme_of(q->client) != scheme || q->sent_ns <= t0 ||
		    q->sent_ns > t0 + b->window_ns)
			continue;
		b->window_sent++;
		b->window_failed += q->status != CLOCKS_OK;
	}
}

void clocks_budget(const struct clocks_input *in, const struct clocks_result *r, double slo_pct,
		   struct clocks_budget *b)
{
	memset(b, 0, sizeof(*b));
	b->slo_pct = slo_pct;
	/* to the microsecond: 99.9 % is 2592 s, not 2591.99999999985 */
	b->budget_s = round((100.0 - slo_pct) / 100.0 * CLOCKS_MONTH_S * 1e6) / 1e6;
	b->sent = r->sent;
	b->failed = r->lost_client == CLOCKS_NONE || r->errors == CLOCKS_NONE
			? CLOCKS_NONE
			: r->lost_client + r->errors;
	b->traffic_ns = clocks_traffic_ns(in);
	b->window_ns = r->window_ns;
	b->window_sent = b->window_failed = CLOCKS_NONE;
	b->rate_per_s = b->downtime_s = b->window_lost = -1;
	b->share_downtime = b->share_window = -1;

	if (b->sent != CLOCKS_NONE && b->traffic_ns != CLOCKS_NONE)
		b->rate_per_s =
		    clocks_budget_ratio((double)b->sent, (double)b->traffic_ns / NSEC_PER_SEC);
	if (b->failed != CLOCKS_NONE && b->rate_per_s > 0)
		b->downtime_s = (double)b->failed / b->rate_per_s;
	if (b->downtime_s >= 0)
		b->share_downtime = clocks_budget_ratio(b->downtime_s, b->budget_s);
	if (b->window_ns != CLOCKS_NONE)
		b->share_window =
		    clocks_budget_ratio((double)b->window_ns / NSEC_PER_SEC, b->budget_s);
	clocks_budget_window_records(in, r, b);
	if (b->window_sent != CLOCKS_NONE)
		b->window_lost =
		    clocks_budget_ratio((double)b->window_failed, (double)b->window_sent);
}
