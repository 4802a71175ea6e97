/* A population's per-client clocks, summarised; see clocks_pop.h (struct clocks_pop). */
#include "clocks_pop.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clocks_int.h"

static int clocks_pop_cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* clocks_pop_rank: the nearest-rank quantile of permille (1 to 1000) of
 * sorted v[n > 0] */
static int64_t clocks_pop_rank(const int64_t *v, size_t n, int permille)
{
	size_t k = ((size_t)permille * n + 999) / 1000;

	return v[k ? k - 1 : 0];
}

/* clocks_pop_keep: c among p's slowest, the largest first (ties: the lower
 * id first, as they come) */
static void clocks_pop_keep(struct clocks_pop *p, const struct clocks_client_last *c)
{
	int k = p->nslowest;

	if (k == CLOCKS_POP_SLOWEST) {
		if (c->last_ns <= p->slowest[k - 1].last_ns)
			return;
		k--;
	} else {
		p->nslowest++;
	}
	for (; k > 0 && p->slowest[k - 1].last_ns < c->last_ns; k--)
		p->slowest[k] = p->slowest[k - 1];
	p->slowest[k] = *c;
}

/* clocks_pop_node: the node of the agent whose id is base, or "" */
static void clocks_pop_node(const struct clocks_input *in, struct clocks_pop *p)
{
	for (size_t i = 0; i < in->nclients; i++) {
		if (in->clients[i].id == p->base) {
			snprintf(p->node, sizeof(p->node), "%s", in->clients[i].node);
			return;
		}
	}
}

/* clocks_pop_fill: p from its logical clients by[0..n); v: room for n */
static void clocks_pop_fill(struct clocks_pop *p, const struct clocks_client_last *by, size_t n,
			    int64_t *v)
{
	int64_t mincut = INT64_MAX;

	p->clients = (int64_t)n;
	for (size_t i = 0; i < n; i++) {
		v[i] = by[i].last_ns;
		p->sent_after_t0 += by[i].last_ns > 0;
		if (by[i].cut) {
			p->cut++;
			if (by[i].last_ns < mincut)
				mincut = by[i].last_ns;
		}
		if (by[i].last_ns > 0)
			clocks_pop_keep(p, &by[i]);
	}
	qsort(v, n, sizeof(*v), clocks_pop_cmp_i64);
	p->p50_ns = clocks_pop_rank(v, n, 500);
	p->p90_ns = clocks_pop_rank(v, n, 900);
	p->p99_ns = clocks_pop_rank(v, n, 990);
	p->p999_ns = clocks_pop_rank(v, n, 999);
	p->max_ns = v[n - 1];
	if (p->cut == 0)
		return;
	p->lb_p50 = mincut <= p->p50_ns;
	p->lb_p90 = mincut <= p->p90_ns;
	p->lb_p99 = mincut <= p->p99_ns;
	p->lb_p999 = mincut <= p->p999_ns;
	p->lb_max = mincut <= p->max_ns;
}

int clocks_pops(const struct clocks_input *in, const struct clocks_client_last *by, size_t n,
		struct clocks_pop *pops, int max, int *lost)
{
	int64_t *v = NULL;
	int npops = 0;

	*lost = 0;
	for (size_t i = 0; i < n;) {
		uint32_t base = wire_agent_of(by[i].client);
		size_t j = i;

		if (!clocks_pop_of(by[i].client)) {
			i++;
			continue;
		}
		/* sorted by id: a population's logical clients are one run */
		while (j < n && wire_agent_of(by[j].client) == base)
			j++;
		if (npops == max) {
			(*lost)++;
		} else {
			struct clocks_pop *p = &pops[npops];

			if (v == NULL && (v = malloc(n * sizeof(*v))) == NULL)
				return -1;
			memset(p, 0, sizeof(*p));
			p->base = base;
			clocks_pop_node(in, p);
			clocks_pop_fill(p, &by[i], j - i, v);
			npops++;
		}
		i = j;
	}
	free(v);
	return npops;
}
