/*
 * Fail-back clocks: how a scheme came back to the failed site S once the
 * timeline recovered it (clocks_result.h, struct clocks_failback; docs/clocks.md,
 * "Fail-back"). Pure computation on the input, no I/O.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "clocks_int.h"

/* clocks_failback_first: the earliest t >= from of the scheme's "back"
 * signal: S's own prober's declared_alive, or authd's health_changed of S
 * to healthy. CLOCKS_NONE if none. */
static int64_t clocks_failback_healthy(const struct clocks_input *in, int dns, int64_t from)
{
	const struct clocks_failure *f = &in->failure;
	int64_t best = CLOCKS_NONE;

	if (!dns) {
		for (size_t i = 0; i < in->nalive; i++) {
			const struct clocks_dead *a = &in->alive[i];
			if (a->t_ns >= from && strcmp(a->site, f->site) == 0 &&
			    strcmp(a->node, f->site) == 0 &&
			    (best == CLOCKS_NONE || a->t_ns < best))
				best = a->t_ns;
		}
		return best;
	}
	for (size_t i = 0; i < in->nhealth; i++) {
		const struct clocks_health *h = &in->health[i];
		if (h->healthy && h->t_ns >= from && strcmp(h->site, f->site) == 0 &&
		    (best == CLOCKS_NONE || h->t_ns < best))
			best = h->t_ns;
	}
	return best;
}

/* clocks_failback_steer: S's route via its link back in a router's FIB
 * (anycast), or S's address handed out again (dns), at or after from */
static int64_t clocks_failback_steer(const struct clocks_input *in, int dns, int64_t from)
{
	const struct clocks_failure *f = &in->failure;
	int64_t best = CLOCKS_NONE;

	if (!dns) {
		for (size_t i = 0; i < in->nroutes; i++) {
			const struct clocks_route *rt = &in->routes[i];
			if (rt->deleted || rt->t_ns < from || !rt->has_via ||
			    rt->prefix.s_addr != f->prefix.s_addr || rt->prefixlen != f->prefixlen)
				continue;
			int ours = rt->via.s_addr == f->via.s_addr;
			for (int k = 0; !ours && k < f->nroutes; k++)
				ours = strcmp(f->routes[k].router, rt->node) == 0 &&
				       f->routes[k].via.s_addr == rt->via.s_addr;
			if (ours && (best == CLOCKS_NONE || rt->t_ns < best))
				best = rt->t_ns;
		}
		return best;
	}
	if (!f->has_address)
		return CLOCKS_NONE;
	for (size_t i = 0; i < in->nanswers; i++) {
		const struct clocks_answer *a = &in->answers[i];
		if (a->t_ns < from || (best != CLOCKS_NONE && a->t_ns >= best))
			continue;
		for (int k = 0; k < a->nafter; k++)
			if (a->after[k].s_addr == f->address.s_addr)
				best = a->t_ns;
	}
	return best;
}

static int clocks_failback_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

void clocks_failback(const struct clocks_input *in, const struct clocks_flows *fl,
		     struct clocks_result *r)
{
	const struct clocks_failure *f = &in->failure;
	struct clocks_failback *b = &r->failback;
	const struct clocks_capture *c = NULL;
	int64_t rec = f->recovered_ns, *first = NULL;
	int dns = fl->scheme == CLOCKS_SCHEME_DNS;
	uint32_t *ids = NULL;
	size_t nids = 0;

	r->has_failback = 0;
	if (rec == 0 || r->noflows)
		return;
	r->has_failback = 1;
	b->recovered_ns = rec - f->t0_ns;
	b->healthy_ns = clocks_failback_healthy(in, dns, rec);
	b->steer_ns = clocks_failback_steer(in, dns, rec);
	if (b->healthy_ns != CLOCKS_NONE)
		b->healthy_ns -= rec;
	if (b->steer_ns != CLOCKS_NONE)
		b->steer_ns -= rec;
	b->first_ns = b->last_ns = CLOCKS_NONE;
	b->back = b->clients = 0;
	for (size_t i = 0; i < in->ncaptures; i++)
		if (strcmp(in->captures[i].label, f->site) == 0)
			c = &in->captures[i];
	if (clocks_clients(in, fl, &ids, &nids) == -1 ||
	    (nids && (first = malloc(nids * sizeof(*first))) == NULL)) {
		clocks_warn(&r->notes, "limit", "%s: fail-back clients: out of memory", r->scheme);
		free(ids);
		return;
	}
	b->clients = (int64_t)nids;
	for (size_t i = 0; i < nids; i++)
		first[i] = CLOCKS_NONE;
	/* each client's first request to S after the recovery */
	for (size_t k = 0; c && k < c->n; k++) {
		const struct clocks_packet *p = &c->packets[k];
		uint32_t *hit;

		if (p->t_ns < rec || !clocks_is_flow(in, fl, p) ||
		    (fl->to_dead && !fl->to_dead(in, p)))
			continue;
		hit =
		    nids ? bsearch(&p->client, ids, nids, sizeof(*ids), clocks_failback_cmp) : NULL;
		if (hit && first[hit - ids] == CLOCKS_NONE)
			first[hit - ids] = p->t_ns;
	}
	for (size_t i = 0; i < nids; i++) {
		if (first[i] == CLOCKS_NONE)
			continue;
		b->back++;
		if (b->first_ns == CLOCKS_NONE || first[i] - rec < b->first_ns)
			b->first_ns = first[i] - rec;
		if (b->last_ns == CLOCKS_NONE || first[i] - rec > b->last_ns)
			b->last_ns = first[i] - rec;
	}
	free(first);
	free(ids);
}
