/*
 * Seed 002's decay (../shared/seeds/002_54385d33805160d4.txt): the share of
 * requests still sent to a failed region over time, with a sticky share of
 * clients, and the query load of a TTL. See model.h.
 */
#include "model.h"

#include <math.h>

double model_decay_still_sent(const struct model_decay *d, double t, double ttl_s)
{
	double since, obeying, sticky;

	if (t < d->detect_s)
		return 1.0; /* the record still names the failed region */
	since = t - d->detect_s;
	/* each cached answer was fetched at a uniformly random moment of the
	 * last TTL: the caches still holding it fall in a line over one TTL */
	obeying = fmax(0.0, 1 - since / ttl_s);
	sticky = fmax(0.0, 1 - since / fmax(ttl_s, d->sticky_s));
	return (1 - d->sticky_share) * obeying + d->sticky_share * sticky;
}

double model_decay_failed_requests(const struct model_decay *d, double ttl_s, int horizon_s,
				   double rate_per_s)
{
	double sum = 0;

	for (int t = 0; t < horizon_s; t++)
		sum += model_decay_still_sent(d, t, ttl_s);
	return sum * rate_per_s;
}

double model_query_rate(double resolvers, double ttl_s)
{
	return resolvers / ttl_s;
}
