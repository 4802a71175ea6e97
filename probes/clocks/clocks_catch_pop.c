/*
 * A population's catchments (docs/clocks.md, "Catchments"), from the
 * clients' records with no I/O: each of its logical clients' before (the
 * site that answered its last answered request sent before t0) and after
 * (the site that answered most of its answered requests sent after the
 * routers converged), counted by the pair (by the triple, with during, when
 * the site was recovered: clocks_catch.c); see clocks_fib.h (struct
 * clocks_catch_pop). A logical client sends about a request a second, so
 * its last one before t0 stands for the process client's last 20.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clocks_int.h"

#define CLOCKS_CATCH_POP_SITES 8 /* sites told apart; more are one, "(other)" */
#define CLOCKS_CATCH_NONE CLOCKS_CATCH_POP_SITES

/* one logical client's records, in one pass */
struct clocks_catch_lc {
	int64_t before_ns; /* its last answered request before t0; 0: none */
	uint8_t before;	   /* its site, CLOCKS_CATCH_NONE: none */
	uint32_t during[CLOCKS_CATCH_POP_SITES], after[CLOCKS_CATCH_POP_SITES];
};

struct clocks_catch_acc_pop {
	uint32_t base;
	uint32_t nlc; /* logical clients 0 .. nlc - 1 have room */
	struct clocks_catch_lc *lc;
};

/* clocks_catch_site: the index of site among names (added if new), the
 * last one for all past CLOCKS_CATCH_POP_SITES - 1 */
static int clocks_catch_site(char names[][CLOCKS_NAME_MAX], int *n, const char *site)
{
	for (int i = 0; i < *n; i++)
		if (strcmp(names[i], site) == 0)
			return i;
	if (*n == CLOCKS_CATCH_POP_SITES - 1) {
		snprintf(names[*n], CLOCKS_NAME_MAX, "(other)");
		return (*n)++;
	}
	if (*n == CLOCKS_CATCH_POP_SITES)
		return CLOCKS_CATCH_POP_SITES - 1;
	snprintf(names[*n], CLOCKS_NAME_MAX, "%s", site);
	return (*n)++;
}

/* clocks_catch_find: the accumulator of base among acc[0..*n), added if
 * new and there is room; NULL if not */
static struct clocks_catch_acc_pop *clocks_catch_find(struct clocks_catch_acc_pop *acc, int *n,
						      uint32_t base)
{
	for (int i = 0; i < *n; i++)
		if (acc[i].base == base)
			return &acc[i];
	if (*n == CLOCKS_CATCH_POPS)
		return NULL;
	acc[*n].base = base;
	return &acc[(*n)++];
}

/* clocks_catch_pair: count one logical client under (before, during,
 * after) */
static void clocks_catch_pair(struct clocks_catch_pop *p, const char *before, const char *during,
			      const char *after)
{
	int k;

	for (k = 0; k < p->npairs; k++)
		if (strcmp(p->pairs[k].before, before) == 0 &&
		    strcmp(p->pairs[k].during, during) == 0 &&
		    strcmp(p->pairs[k].after, after) == 0)
			break;
	if (k == p->npairs) {
		if (p->npairs == CLOCKS_CATCH_PAIRS) {
			p->lost_pairs++;
			return;
		}
		/* names of at most CLOCKS_NAME_MAX - 1 characters */
		snprintf(p->pairs[k].before, CLOCKS_NAME_MAX, "%.*s", CLOCKS_NAME_MAX - 1, before);
		snprintf(p->pairs[k].during, CLOCKS_NAME_MAX, "%.*s", CLOCKS_NAME_MAX - 1, during);
		snprintf(p->pairs[k].after, CLOCKS_NAME_MAX, "%.*s", CLOCKS_NAME_MAX - 1, after);
		p->npairs++;
	}
	p->pairs[k].clients++;
}

/* clocks_catch_most: the site of most requests in counts[], "" if none */
static const char *clocks_catch_most(const uint32_t *counts, char names[][CLOCKS_NAME_MAX],
				     int known)
{
	const char *site = "";
	uint32_t most = 0;

	for (int k = 0; known && k < CLOCKS_CATCH_POP_SITES; k++)
		if (counts[k] > most) {
			most = counts[k];
			site = names[k];
		}
	return site;
}

/* the pairs of most clients first */
static int clocks_catch_pair_cmp(const void *a, const void *b)
{
	const struct clocks_catch_pair *x = a, *y = b;

	return x->clients > y->clients ? -1 : x->clients < y->clients;
}

/* clocks_catch_sum: p from the logical clients of a that sent anything */
static void clocks_catch_sum(const struct clocks_input *in, const struct clocks_catch_acc_pop *a,
			     char names[][CLOCKS_NAME_MAX], const struct clocks_catchments *cs,
			     struct clocks_catch_pop *p)
{
	memset(p, 0, sizeof(*p));
	p->base = a->base;
	for (size_t i = 0; i < in->nclients; i++)
		if (in->clients[i].id == a->base) {
			snprintf(p->node, sizeof(p->node), "%s", in->clients[i].node);
			break;
		}
	for (uint32_t j = 0; j < a->nlc; j++) {
		const struct clocks_catch_lc *c = &a->lc[j];
		const char *before = c->before == CLOCKS_CATCH_NONE ? "" : names[c->before];
		const char *during = clocks_catch_most(c->during, names, cs->during_known);
		const char *after = clocks_catch_most(c->after, names, cs->known);

		if (c->before_ns == -1)
			continue; /* no record: not one of its clients */
		p->clients++;
		p->moved += clocks_catch_moved(cs, before, during, after) == 1;
		clocks_catch_pair(p, before, during, after);
	}
	qsort(p->pairs, (size_t)p->npairs, sizeof(p->pairs[0]), clocks_catch_pair_cmp);
}

void clocks_catch_pops(const struct clocks_input *in, const struct clocks_fib *fib,
		       struct clocks_catchments *cs)
{
	struct clocks_catch_acc_pop acc[CLOCKS_CATCH_POPS];
	char names[CLOCKS_CATCH_POP_SITES][CLOCKS_NAME_MAX];
	int nacc = 0, nnames = 0;
	const int64_t t0 = in->failure.t0_ns;
	int64_t during_from, during_until, after_from;

	memset(acc, 0, sizeof(acc));
	cs->npops = cs->lost_pops = 0;
	clocks_catch_windows(fib, cs, &during_from, &during_until, &after_from);
	/* the populations and how many logical clients each has room for */
	for (size_t i = 0; i < in->nrequests; i++) {
		uint32_t id = in->requests[i].client;
		struct clocks_catch_acc_pop *a;

		if (!clocks_pop_of(id) || clocks_scheme_of(id) != CLOCKS_SCHEME_ANYCAST)
			continue;
		if ((a = clocks_catch_find(acc, &nacc, wire_agent_of(id))) == NULL) {
			cs->lost_pops = 1;
			continue;
		}
		if ((id & WIRE_POP_INDEX_MASK) >= a->nlc)
			a->nlc = (id & WIRE_POP_INDEX_MASK) + 1;
	}
	for (int i = 0; i < nacc; i++) {
		if ((acc[i].lc = malloc(acc[i].nlc * sizeof(*acc[i].lc))) == NULL) {
			cs->lost_pops = 1;
			goto out;
		}
		for (uint32_t j = 0; j < acc[i].nlc; j++)
			acc[i].lc[j] =
			    (struct clocks_catch_lc){.before_ns = -1, .before = CLOCKS_CATCH_NONE};
	}
	for (size_t i = 0; i < in->nrequests; i++) {
		const struct clocks_request *q = &in->requests[i];
		struct clocks_catch_acc_pop *a;
		struct clocks_catch_lc *c;

		if (!clocks_pop_of(q->client) ||
		    clocks_scheme_of(q->client) != CLOCKS_SCHEME_ANYCAST)
			continue;
		if ((a = clocks_catch_find(acc, &nacc, wire_agent_of(q->client))) == NULL)
			continue;
		c = &a->lc[q->client & WIRE_POP_INDEX_MASK];
		if (c->before_ns == -1)
			c->before_ns = 0; /* it has records */
		if (q->status != CLOCKS_OK || q->site[0] == '\0')
			continue;
		if (q->sent_ns < t0 && q->sent_ns > c->before_ns) {
			c->before_ns = q->sent_ns;
			c->before = (uint8_t)clocks_catch_site(names, &nnames, q->site);
		} else if (cs->during_known && q->sent_ns > during_from &&
			   q->sent_ns < during_until) {
			c->during[clocks_catch_site(names, &nnames, q->site)]++;
		} else if (cs->known && q->sent_ns > after_from) {
			c->after[clocks_catch_site(names, &nnames, q->site)]++;
		}
	}
	for (int i = 0; i < nacc; i++) {
		clocks_catch_sum(in, &acc[i], names, cs, &cs->pops[cs->npops]);
		if (cs->pops[cs->npops++].lost_pairs)
			cs->lost_pops = 1;
	}
out:
	for (int i = 0; i < nacc; i++)
		free(acc[i].lc);
}
