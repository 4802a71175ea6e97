/* The request segments the TCP clients sent again, from the site links' captures; see
 * clocks_conn.h. */
#include "clocks_conn.h"

#include <stdlib.h>
#include <string.h>

#include "clocks_int.h"

/*
 * A capture holds millions of requests and only a few copies, so no sort
 * of them all: a client's requests carry rising sequence numbers (its
 * agent numbers them in the order it sends them, a population's logical
 * clients from one counter), so a request whose sequence is above every
 * one its client had on the capture so far is a first copy. One pass keeps
 * each client's highest, and notes the others (the candidates: a copy, or
 * a request overtaken on another of the client's connections); a second
 * pass, only when there are candidates, gathers every copy of their keys,
 * which are then few enough to sort.
 */

/* one client id of a capture: the highest sequence it had so far, and the
 * range of its candidates' */
struct clocks_retx_client {
	uint32_t id; /* 0: an empty slot (a probe's id, never kept) */
	uint32_t max;
	uint32_t lo, hi; /* its candidates' lowest and highest; lo > hi: none */
};

/* the client ids of a capture: open addressing, linear probing, at most
 * half full */
struct clocks_retx_ids {
	struct clocks_retx_client *slot;
	size_t cap, n; /* cap a power of two */
};

/* one copy of a candidate's key: client id << 32 | the low 32 bits of its
 * sequence, when its link carried it, and its place in the capture */
struct clocks_retx_copy {
	uint64_t key;
	int64_t t_ns;
	size_t at;
};

/* clocks_retx_find: id's slot, added (its max the sequence seq) if new;
 * NULL out of memory. *added: whether it was. */
static struct clocks_retx_client *clocks_retx_find(struct clocks_retx_ids *s, uint32_t id,
						   uint32_t seq, int *added)
{
	size_t k;

	*added = 0;
	if (2 * (s->n + 1) > s->cap) {
		struct clocks_retx_ids g = {calloc(s->cap ? 2 * s->cap : 64, sizeof(*g.slot)),
					    s->cap ? 2 * s->cap : 64, s->n};

		if (g.slot == NULL)
			return NULL;
		for (size_t i = 0; i < s->cap; i++) {
			if (s->slot[i].id == 0)
				continue;
			for (k = (s->slot[i].id * 2654435761u) & (g.cap - 1); g.slot[k].id;
			     k = (k + 1) & (g.cap - 1))
				;
			g.slot[k] = s->slot[i];
		}
		free(s->slot);
		*s = g;
	}
	for (k = (id * 2654435761u) & (s->cap - 1); s->slot[k].id; k = (k + 1) & (s->cap - 1))
		if (s->slot[k].id == id)
			return &s->slot[k];
	s->slot[k] = (struct clocks_retx_client){id, seq, 1, 0};
	s->n++;
	*added = 1;
	return &s->slot[k];
}

static int clocks_retx_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static int clocks_retx_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* clocks_retx_copy_cmp: by key, then by place in the capture */
static int clocks_retx_copy_cmp(const void *a, const void *b)
{
	const struct clocks_retx_copy *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->at > y->at) - (x->at < y->at);
}

/* clocks_retx_agents: the ids of the client agents that spoke TCP
 * (client_started's proto), sorted, in *ids (NULL when none). Their count,
 * or -1 out of memory. */
static ssize_t clocks_retx_agents(const struct clocks_input *in, uint32_t **ids)
{
	size_t n = 0;

	*ids = NULL;
	for (size_t i = 0; i < in->nclients; i++)
		n += in->clients[i].tcp != 0;
	if (n == 0)
		return 0;
	if ((*ids = malloc(n * sizeof(**ids))) == NULL)
		return -1;
	n = 0;
	for (size_t i = 0; i < in->nclients; i++)
		if (in->clients[i].tcp)
			(*ids)[n++] = in->clients[i].id;
	qsort(*ids, n, sizeof(**ids), clocks_retx_u32);
	return (ssize_t)n;
}

/* the state of one count: the TCP agents, and what a capture's passes keep */
struct clocks_retx {
	const uint32_t *agents;
	size_t nagents;
	uint32_t last; /* the last agent looked up, and whether it spoke TCP */
	int last_tcp;
	struct clocks_retx_ids ids;
	uint64_t *cand; /* the candidates' keys */
	size_t ncand, capcand;
	struct clocks_retx_copy *copies;
	size_t ncopies, capcopies;
};

/* clocks_retx_tcp: whether p is a request of a client over TCP (a
 * population's logical client is its agent's) */
static int clocks_retx_tcp(struct clocks_retx *r, const struct clocks_packet *p)
{
	uint32_t agent = wire_agent_of(p->client);

	if (p->client == WIRE_PROBE_CLIENT)
		return 0;
	if (agent != r->last) {
		r->last = agent;
		r->last_tcp = bsearch(&agent, r->agents, r->nagents, sizeof(*r->agents),
				      clocks_retx_u32) != NULL;
	}
	return r->last_tcp;
}

/* clocks_retx_candidates: the first pass over cap: r->cand (sorted, each
 * once), each client's range of them in r->ids. 0, or -1 out of memory. */
static int clocks_retx_candidates(struct clocks_retx *r, const struct clocks_capture *cap)
{
	size_t w = 0;

	if (r->ids.slot)
		memset(r->ids.slot, 0, r->ids.cap * sizeof(*r->ids.slot));
	r->ids.n = 0;
	r->ncand = 0;
	for (size_t k = 0; k < cap->n; k++) {
		const struct clocks_packet *p = &cap->packets[k];
		struct clocks_retx_client *c;
		int added;

		if (!clocks_retx_tcp(r, p))
			continue;
		if ((c = clocks_retx_find(&r->ids, p->client, p->seq, &added)) == NULL)
			return -1;
		if (added)
			continue;
		if (p->seq > c->max) {
			c->max = p->seq;
			continue;
		}
		if (clocks_grow((void **)&r->cand, &r->capcand, r->ncand, sizeof(*r->cand)) == -1)
			return -1;
		r->cand[r->ncand++] = (uint64_t)p->client << 32 | p->seq;
		if (c->lo > c->hi)
			c->lo = c->hi = p->seq;
		else if (p->seq < c->lo)
			c->lo = p->seq;
		else if (p->seq > c->hi)
			c->hi = p->seq;
	}
	qsort(r->cand, r->ncand, sizeof(*r->cand), clocks_retx_u64);
	for (size_t k = 0; k < r->ncand; k++)
		if (w == 0 || r->cand[k] != r->cand[w - 1])
			r->cand[w++] = r->cand[k];
	r->ncand = w;
	return 0;
}

/* clocks_retx_gather: the second pass over cap: every copy of a
 * candidate's key into r->copies, sorted by key, each key's in the
 * capture's order. 0, or -1 out of memory. */
static int clocks_retx_gather(struct clocks_retx *r, const struct clocks_capture *cap)
{
	r->ncopies = 0;
	for (size_t k = 0; k < cap->n; k++) {
		const struct clocks_packet *p = &cap->packets[k];
		uint64_t key = (uint64_t)p->client << 32 | p->seq;
		struct clocks_retx_client *c;
		int added;

		if (!clocks_retx_tcp(r, p))
			continue;
		/* every client of the capture is in ids: none is added */
		c = clocks_retx_find(&r->ids, p->client, p->seq, &added);
		if (c == NULL || added)
			return -1;
		if (p->seq < c->lo || p->seq > c->hi ||
		    bsearch(&key, r->cand, r->ncand, sizeof(*r->cand), clocks_retx_u64) == NULL)
			continue;
		if (clocks_grow((void **)&r->copies, &r->capcopies, r->ncopies,
				sizeof(*r->copies)) == -1)
			return -1;
		r->copies[r->ncopies++] = (struct clocks_retx_copy){key, p->t_ns, k};
	}
	qsort(r->copies, r->ncopies, sizeof(*r->copies), clocks_retx_copy_cmp);
	return 0;
}

int clocks_conn_retx(const struct clocks_input *in, struct clocks_conn *c)
{
	const struct clocks_failure *f = &in->failure;
	struct clocks_retx r = {.last = WIRE_PROBE_CLIENT};
	uint32_t *agents;
	ssize_t nagents = clocks_retx_agents(in, &agents);
	int rc = -1;

	if (nagents <= 0)
		return (int)nagents;
	r.agents = agents;
	r.nagents = (size_t)nagents;
	for (size_t i = 0; i < in->ncaptures; i++) {
		const struct clocks_capture *cap = &in->captures[i];
		int failed = !in->steady && strcmp(cap->label, f->site) == 0;

		if (clocks_retx_candidates(&r, cap) == -1)
			goto out;
		if (r.ncand == 0)
			continue;
		if (clocks_retx_gather(&r, cap) == -1)
			goto out;
		/* a key's copies in the capture's order: each after the first
		 * is a segment sent again */
		for (size_t k = 1; k < r.ncopies; k++) {
			const struct clocks_retx_copy *s = &r.copies[k];
			struct clocks_conn_scheme *sch;

			if (s->key != s[-1].key)
				continue;
			sch = clocks_scheme_of((uint32_t)(s->key >> 32)) == CLOCKS_SCHEME_DNS
				  ? &c->dns
				  : &c->anycast;
			sch->retransmits++;
			sch->retransmits_failed += failed && clocks_conn_after(f, s->t_ns);
		}
	}
	rc = 0;
out:
	free(r.ids.slot);
	free(r.cand);
	free(r.copies);
	free(agents);
	return rc;
}
