/*
 * The report's resolver tables (docs/clocks.md, "Resolvers"): a row per
 * [resolver] node, its implementation beside its name, with its upstream
 * load per level, the share of its clients' queries it answered from its
 * cache and how its clients left the dead site; and the decay of each
 * node's clients at the marks of the decay table. The numbers are the
 * clocks module's (clocks_resolvers, clocks_decay).
 */
#include <string.h>

#include "report_int.h"
#include "timeutil.h"

int report_has_resolvers(const struct report *r)
{
	return r->rsv != NULL && r->rsv->n > 0;
}

const char *report_rsv_name(char *buf, size_t len, const struct clocks_rsv_node *n)
{
	snprintf(buf, len, "%s (%s)", n->name, n->impl[0] ? n->impl : "resolverd");
	return buf;
}

/* rsv_level_present: does a [dns] node of the run serve level l? (zone
 * always: the queries of a node the topology does not name count there) */
int report_rsv_level_present(const struct report *r, int l)
{
	if (l == CLOCKS_LEVEL_ZONE)
		return 1;
	for (int i = 0; i < r->in.dnstopo.ndns; i++)
		if ((int)r->in.dnstopo.dns[i].level == l)
			return 1;
	return 0;
}

/* report_rsv_rate_cell: "N (X/s)" after t0, per second of the time after t0 */
static void report_rsv_rate_cell(struct texttable *t, int64_t all, int64_t after, int64_t after_ns)
{
	if (all == CLOCKS_NONE)
		texttable_cell(t, "-");
	else if (after_ns == CLOCKS_NONE || after_ns <= 0)
		texttable_cell(t, "%lld (-)", (long long)after);
	else
		texttable_cell(t, "%lld (%.2f/s)", (long long)after,
			       (double)after / ((double)after_ns / NSEC_PER_SEC));
}

void report_resolver_table(const struct report *r, struct texttable *t)
{
	const struct clocks_resolvers *rs = r->rsv;
	int ncol = 6;
	char name[2 * CLOCKS_NAME_MAX + 4], pct[32];

	for (int l = 0; l < CLOCKS_LEVELS; l++)
		ncol += report_rsv_level_present(r, l);
	texttable_init(t, ncol);
	texttable_row(t);
	texttable_cell(t, "resolver");
	texttable_cell(t, "users");
	for (int l = 0; l < CLOCKS_LEVELS; l++)
		if (report_rsv_level_present(r, l))
			texttable_cell(t, "to %s after t0", clocks_level_names[l]);
	texttable_cell(t, "from cache");
	texttable_cell(t, "after t0");
	texttable_cell(t, "to dead after t0");
	texttable_cell(t, "window (s)");
	for (int k = 0; k < rs->n; k++) {
		const struct clocks_rsv_result *x = &rs->r[k];

		texttable_row(t);
		texttable_cell(t, "%s", report_rsv_name(name, sizeof(name), x->node));
		texttable_cell(t, "%lld", (long long)x->users);
		for (int l = 0; l < CLOCKS_LEVELS; l++)
			if (report_rsv_level_present(r, l))
				report_rsv_rate_cell(t, x->up[l], x->up_after[l], rs->after_ns);
		if (!x->has_capture) {
			texttable_cell(t, "-");
			texttable_cell(t, "-");
		} else {
			texttable_cell(t, "%s (%lld of %lld)",
				       report_fmt_pct(pct, sizeof(pct),
						      x->cache.answered ? (double)x->cache.cache /
									      x->cache.answered
									: -1),
				       (long long)x->cache.cache, (long long)x->cache.answered);
			texttable_cell(t, "%s",
				       report_fmt_pct(pct, sizeof(pct),
						      x->cache_after.answered
							  ? (double)x->cache_after.cache /
								x->cache_after.answered
							  : -1));
		}
		if (x->dead_after == CLOCKS_NONE)
			texttable_cell(t, "-");
		else
			texttable_cell(t, "%lld of %lld", (long long)x->dead_after,
				       (long long)x->all_after);
		if (x->window_ns == CLOCKS_NONE)
			texttable_cell(t, "-");
		else
			texttable_cell(t, "%.3f", (double)x->window_ns / NSEC_PER_SEC);
	}
}

/* the decay table's marks, one column per node */
static void report_rsv_decay_row(const struct report *r, struct texttable *t, int64_t at_ns,
				 const char *label)
{
	const struct clocks_decay *d = &r->decay;
	int64_t k = clocks_bucket_of(at_ns, d->bucket_ns);

	texttable_row(t);
	texttable_cell(t, "%s", label);
	for (int i = 0; i < d->nrsv; i++) {
		report_decay_cell(t, &d->rsv[i], d->rsv[i].dead, k);
	}
}

void report_resolver_decay_table(const struct report *r, struct texttable *t)
{
	const struct clocks_decay *d = &r->decay;
	char name[2 * CLOCKS_NAME_MAX + 4];
	int64_t marks[REPORT_MAX_MARKS];
	char labels[REPORT_MAX_MARKS][REPORT_MARK_LABEL_LEN];
	int n = report_decay_marks(r, marks, labels);

	texttable_init(t, 1 + d->nrsv);
	texttable_row(t);
	texttable_cell(t, "after t0");
	for (int i = 0; i < d->nrsv; i++)
		texttable_cell(t, "%s", report_rsv_name(name, sizeof(name), &r->in.dnstopo.rsv[i]));
	for (int i = 0; i < n; i++)
		report_rsv_decay_row(r, t, marks[i], labels[i]);
}
