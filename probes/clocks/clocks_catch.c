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
	struct clocks_tally after;
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

void clocks_catchments(const struct clocks_input *in, const struct clocks_fib *fib,
		       struct clocks_catchments *cs)
{
	const int64_t t0 = in->failure.t0_ns;
	struct clocks_catch_acc *acc;
	uint32_t prev = 0;
	int at = -1;

	memset(cs, 0, sizeof(*cs));
	cs->known = fib->last_at_ns != CLOCKS_NONE;
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
		else if (cs->known && q->sent_ns > fib->last_at_ns)
			clocks_tally_add(&acc[at].after, q->site);
	}
	for (int k = 0; k < cs->n; k++) {
		struct clocks_catchment *c = &cs->c[k];
		struct clocks_tally before;

		memset(&before, 0, sizeof(before));
		for (int j = 0; j < acc[k].nlast; j++)
			clocks_tally_add(&before, acc[k].last[j]->site);
		clocks_tally_top(&before, c->before, &c->before_n, &c->before_of);
		clocks_tally_top(&acc[k].after, c->after, &c->after_n, &c->after_of);
		for (size_t i = 0; i < in->nclients; i++)
			if (in->clients[i].id == c->client) {
				snprintf(c->node, sizeof(c->node), "%s", in->clients[i].node);
				break;
			}
	}
	free(acc);
}
