/*
 * The catchments (docs/clocks.md, "Catchments"), from the clients' records
 * with no I/O: for each anycast client (client ids 1-99999), the site that
 * answered
 *
 *   before   most of its last CLOCKS_CATCH_LAST answered requests sent
 *            before t0
 *   after    most of its answered requests sent after the routers
 *            converged: after the last FIB change of any router (a request
 *            sent then is forwarded by every router's final route)
 *
 * When the timeline recovered the site, the failure and the fail-back are
 * two episodes (clocks_fib.c): during is the site of the requests sent
 * after the failure's last FIB change and before the recovery, after that
 * of those sent after the fail-back's last (or after the recovery, if no
 * FIB changed then).
 *
 * Counted from the records' site column (the site named in the reply), so
 * a request that was lost has no site and does not count. A population's
 * logical clients are counted together (clocks_catch_pop.c).
 */
#include <stdlib.h>
#include <string.h>

#include "clocks_int.h"

#define CLOCKS_CATCH_SITES 16

struct clocks_tally {
	int n;
	struct clocks_count c[CLOCKS_CATCH_SITES];
	int64_t of;
};

static void clocks_tally_add(struct clocks_tally *t, const char *site)
{
	t->of++;
	for (int i = 0; i < t->n; i++)
		if (strcmp(t->c[i].name, site) == 0) {
			t->c[i].n++;
			return;
		}
	if (t->n == CLOCKS_CATCH_SITES)
		return;
	snprintf(t->c[t->n].name, sizeof(t->c[0].name), "%s", site);
	t->c[t->n++].n = 1;
}

/* clocks_tally_top: the site of most replies (the first seen on a tie) */
static void clocks_tally_top(const struct clocks_tally *t, char *site, int64_t *n, int64_t *of)
{
	int best = -1;

	for (int i = 0; i < t->n; i++)
		if (best == -1 || t->c[i].n > t->c[best].n)
			best = i;
	site[0] = '\0';
	*n = 0;
	*of = t->of;
	if (best >= 0) {
		snprintf(site, CLOCKS_NAME_MAX, "%s", t->c[best].name);
		*n = t->c[best].n;
	}
}

static int clocks_catch_cmp(const void *a, const void *b)
{
	const struct clocks_catchment *x = a, *y = b;

	return x->client < y->client ? -1 : x->client > y->client;
}

/* what one client's records say, in one pass over every record */
struct clocks_catch_acc {
	const struct clocks_request *last[CLOCKS_CATCH_LAST]; /* before t0 */
	int nlast;
	struct clocks_tally during, after;
};

/* clocks_catch_keep: q, sent before t0, among a's last CLOCKS_CATCH_LAST
 * (whatever the records' order) */
static void clocks_catch_keep(struct clocks_catch_acc *a, const struct clocks_request *q)
{
	int min = 0;

	if (a->nlast < CLOCKS_CATCH_LAST) {
		a->last[a->nlast++] = q;
		return;
	}
	for (int k = 1; k < a->nlast; k++)
		if (a->last[k]->sent_ns < a->last[min]->sent_ns)
			min = k;
	if (q->sent_ns > a->last[min]->sent_ns)
		a->last[min] = q;
}

static int clocks_catch_index(const struct clocks_catchments *cs, uint32_t id)
{
	struct clocks_catchment key = {.client = id};
	const struct clocks_catchment *c =
	    bsearch(&key, cs->c, (size_t)cs->n, sizeof(cs->c[0]), clocks_catch_cmp);

	return c ? (int)(c - cs->c) : -1;
}

void clocks_catch_windows(const struct clocks_fib *fib, struct clocks_catchments *cs,
			  int64_t *during_from, int64_t *during_until, int64_t *after_from)
{
	cs->episodes = fib->failback ? 2 : 1;
	cs->during_known = 0;
	*during_from = *during_until = 0;
	if (fib->failback == NULL) {
		cs->known = fib->last_at_ns != CLOCKS_NONE;
		*after_from = fib->last_at_ns;
		return;
	}
	cs->during_known = fib->last_at_ns != CLOCKS_NONE;
	*during_from = fib->last_at_ns;
	*during_until = fib->until_ns;
	cs->known = 1;
	*after_from = fib->failback->last_at_ns != CLOCKS_NONE &&
			      fib->failback->last_at_ns > fib->failback->from_ns
			  ? fib->failback->last_at_ns
			  : fib->failback->from_ns;
}

void clocks_catchments(const struct clocks_input *in, const struct clocks_fib *fib,
		       struct clocks_catchments *cs)
{
	const int64_t t0 = in->failure.t0_ns;
	int64_t during_from, during_until, after_from;
	struct clocks_catch_acc *acc;
	uint32_t prev = 0;
	int at = -1;

	memset(cs, 0, sizeof(*cs));
	clocks_catch_windows(fib, cs, &during_from, &during_until, &after_from);
	/* every anycast client of the records, once (a file is one client's) */
	for (size_t i = 0; i < in->nrequests; i++) {
		uint32_t id = in->requests[i].client;
		int seen = id == prev && i > 0;

		if (clocks_scheme_of(id) != CLOCKS_SCHEME_ANYCAST || clocks_pop_of(id))
			continue;
		prev = id;
		for (int k = 0; k < cs->n && !seen; k++)
			seen = cs->c[k].client == id;
		if (seen || cs->n == CLOCKS_MAX_CLIENTS)
			continue;
		cs->c[cs->n++].client = id;
	}
	qsort(cs->c, (size_t)cs->n, sizeof(cs->c[0]), clocks_catch_cmp);
	clocks_catch_pops(in, fib, cs);
	if (cs->n == 0 || (acc = calloc((size_t)cs->n, sizeof(*acc))) == NULL) {
		cs->n = 0;
		return;
	}
	prev = 0;
	for (size_t i = 0; i < in->nrequests; i++) {
		const struct clocks_request *q = &in->requests[i];

		if (q->status != CLOCKS_OK || q->site[0] == '\0' ||
		    clocks_scheme_of(q->client) != CLOCKS_SCHEME_ANYCAST ||
		    clocks_pop_of(q->client))
			continue;
		if (at == -1 || q->client != prev)
			at = clocks_catch_index(cs, q->client);
		prev = q->client;
		if (at == -1)
			continue;
		if (q->sent_ns < t0)
			clocks_catch_keep(&acc[at], q);
		else if (cs->during_known && q->sent_ns > during_from && q->sent_ns < during_until)
			clocks_tally_add(&acc[at].during, q->site);
		else if (cs->known && q->sent_ns > after_from)
			clocks_tally_add(&acc[at].after, q->site);
	}
	for (int k = 0; k < cs->n; k++) {
		struct clocks_catchment *c = &cs->c[k];
		struct clocks_tally before;

		memset(&before, 0, sizeof(before));
		for (int j = 0; j < acc[k].nlast; j++)
			clocks_tally_add(&before, acc[k].last[j]->site);
		clocks_tally_top(&before, c->before, &c->before_n, &c->before_of);
		clocks_tally_top(&acc[k].during, c->during, &c->during_n, &c->during_of);
		clocks_tally_top(&acc[k].after, c->after, &c->after_n, &c->after_of);
		for (size_t i = 0; i < in->nclients; i++)
			if (in->clients[i].id == c->client) {
				snprintf(c->node, sizeof(c->node), "%s", in->clients[i].node);
				break;
			}
	}
	free(acc);
}

int clocks_catch_moved(const struct clocks_catchments *cs, const char *before, const char *during,
		       const char *after)
{
	const char *moved_to = cs->episodes == 2 ? during : after;
	int known = cs->episodes == 2 ? cs->during_known : cs->known;

	if (!known || !before[0] || !moved_to[0])
		return -1;
	return strcmp(before, moved_to) != 0;
}

int clocks_catch_back(const struct clocks_catchments *cs, const char *before, const char *after)
{
	if (cs->episodes != 2 || !before[0] || !after[0])
		return -1;
	return strcmp(before, after) == 0;
}
