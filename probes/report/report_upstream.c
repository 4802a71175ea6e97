/*
 * The upstream load as a series (docs/clocks.md, "Upstream load"): the
 * queries captured on the authd links per second after t0 and per source
 * address (each resolver, or a client asking authd itself), from the first
 * query (or t0) to the end of the observation (or the last query). Pure
 * computation, no I/O.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "timeutil.h"

static int report_upstream_cmp_addr(const void *a, const void *b)
{
	uint32_t x = ntohl(((const struct in_addr *)a)->s_addr);
	uint32_t y = ntohl(((const struct in_addr *)b)->s_addr);

	return x < y ? -1 : x > y;
}

/* report_upstream_sources: the distinct source addresses, sorted */
static int report_upstream_sources(const struct clocks_input *in, struct report_upstream_series *u,
				   size_t total)
{
	size_t k = 0;

	u->src = malloc((total ? total : 1) * sizeof(*u->src));
	if (u->src == NULL)
		return -1;
	for (size_t i = 0; i < in->nqcaptures; i++)
		for (size_t j = 0; j < in->qcaptures[i].n; j++)
			u->src[k++] = in->qcaptures[i].queries[j].src;
	qsort(u->src, total, sizeof(*u->src), report_upstream_cmp_addr);
	for (size_t i = 0; i < total; i++)
		if (u->nsrc == 0 || u->src[u->nsrc - 1].s_addr != u->src[i].s_addr)
			u->src[u->nsrc++] = u->src[i];
	return 0;
}

/* report_upstream_level: the level of the [dns] node of query capture label
 * ("dns-NODE"); zone for one the topology does not name */
static enum clocks_level report_upstream_level(const struct clocks_input *in, const char *label)
{
	const char *node = strncmp(label, "dns-", 4) == 0 ? label + 4 : label;

	for (int i = 0; i < in->dnstopo.ndns; i++)
		if (strcmp(in->dnstopo.dns[i].name, node) == 0)
			return in->dnstopo.dns[i].level;
	return CLOCKS_LEVEL_ZONE;
}

/* report_upstream_span: the first and last second of the series, relative to t0:
 * every query, and t0 to the end of the observation */
static void report_upstream_span(const struct clocks_input *in, int64_t *lo, int64_t *hi)
{
	int64_t t0 = in->failure.t0_ns, end = clocks_observation_end(in);

	*lo = clocks_bucket_of(1, NSEC_PER_SEC); /* (t0, t0 + 1 s] */
	*hi = end != CLOCKS_NONE && end > t0 ? clocks_bucket_of(end - t0, NSEC_PER_SEC) : *lo;
	for (size_t i = 0; i < in->nqcaptures; i++) {
		for (size_t j = 0; j < in->qcaptures[i].n; j++) {
			int64_t b =
			    clocks_bucket_of(in->qcaptures[i].queries[j].t_ns - t0, NSEC_PER_SEC);
			if (b < *lo)
				*lo = b;
			if (b > *hi)
				*hi = b;
		}
	}
}

int report_upstream_series(const struct clocks_input *in, struct report_upstream_series *u,
			   char *err, size_t errlen)
{
	int64_t t0 = in->failure.t0_ns, lo, hi;
	size_t total = 0;

	memset(u, 0, sizeof(*u));
	if (in->nqcaptures == 0)
		return 0;
	u->known = 1;
	for (size_t i = 0; i < in->nqcaptures; i++)
		total += in->qcaptures[i].n;
	report_upstream_span(in, &lo, &hi);
	if (hi - lo + 1 > CLOCKS_MAX_BUCKETS) {
		snprintf(err, errlen, "upstream: the queries span %lld s (at most %d)",
			 (long long)(hi - lo + 1), CLOCKS_MAX_BUCKETS);
		return -1;
	}
	u->first = lo;
	u->n = (size_t)(hi - lo + 1);
	if (report_upstream_sources(in, u, total) == -1)
		goto nomem;
	u->count = calloc(u->n * (u->nsrc ? u->nsrc : 1), sizeof(*u->count));
	u->total = calloc(u->n, sizeof(*u->total));
	u->before = calloc(u->nsrc ? u->nsrc : 1, sizeof(*u->before));
	u->after = calloc(u->nsrc ? u->nsrc : 1, sizeof(*u->after));
	u->nrsv = in->dnstopo.nrsv;
	u->level =
	    calloc(u->n * (size_t)(u->nrsv ? u->nrsv : 1) * CLOCKS_LEVELS, sizeof(*u->level));
	if (u->count == NULL || u->total == NULL || u->before == NULL || u->after == NULL ||
	    u->level == NULL)
		goto nomem;
	for (size_t i = 0; i < in->nqcaptures; i++) {
		enum clocks_level l = report_upstream_level(in, in->qcaptures[i].label);

		for (size_t j = 0; j < in->qcaptures[i].n; j++) {
			const struct clocks_query *q = &in->qcaptures[i].queries[j];
			const struct in_addr *s = bsearch(&q->src, u->src, u->nsrc, sizeof(*u->src),
							  report_upstream_cmp_addr);
			size_t b = (size_t)(clocks_bucket_of(q->t_ns - t0, NSEC_PER_SEC) - lo);
			size_t k = (size_t)(s - u->src);

			int node = clocks_rsv_of_addr(in, q->src);

			u->count[b * u->nsrc + k]++;
			u->total[b]++;
			if (node >= 0)
				u->level[(b * (size_t)u->nrsv + (size_t)node) * CLOCKS_LEVELS +
					 l]++;
			if (q->t_ns > t0)
				u->after[k]++;
			else
				u->before[k]++;
		}
	}
	return 0;
nomem:
	snprintf(err, errlen, "upstream: out of memory");
	return -1;
}

void report_upstream_series_free(struct report_upstream_series *u)
{
	free(u->src);
	free(u->count);
	free(u->total);
	free(u->before);
	free(u->after);
	free(u->level);
	memset(u, 0, sizeof(*u));
}
