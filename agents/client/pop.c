/* A client population: rates, phases, the schedule heap, DNS state; see
 * pop.h. */
#include "pop.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "timeutil.h"

#define POP_QIDS 65536

int pop_rates_parse(const char *s, struct pop_rates *r)
{
	char *end;

	memset(r, 0, sizeof(*r));
	if (strcmp(s, "equal") == 0) {
		r->skew = POP_EQUAL;
		return 0;
	}
	if (strcmp(s, "harmonic") == 0) {
		r->skew = POP_HARMONIC;
		r->exponent = 1;
		return 0;
	}
	if (strncmp(s, "zipf:", 5) == 0) {
		errno = 0;
		r->skew = POP_ZIPF;
		r->exponent = strtod(s + 5, &end);
		if (errno || end == s + 5 || *end || !isfinite(r->exponent) || r->exponent <= 0 ||
		    r->exponent > 10)
			return -1;
		return 0;
	}
	if (strncmp(s, "list:", 5) == 0) {
		const char *p = s + 5;

		r->skew = POP_LIST;
		for (;;) {
			double w;

			if (r->nweights == POP_MAX_WEIGHTS)
				return -1;
			errno = 0;
			w = strtod(p, &end);
			if (errno || end == p || !isfinite(w) || w <= 0 || (*end && *end != ','))
				return -1;
			r->weights[r->nweights++] = w;
			if (*end == '\0')
				return 0;
			p = end + 1;
		}
	}
	return -1;
}

void pop_rates_fill(const struct pop_rates *r, uint32_t n, double total, double *rate)
{
	double sum = 0;

	for (uint32_t j = 0; j < n; j++) {
		double w = 1;

		if (r->skew == POP_HARMONIC || r->skew == POP_ZIPF)
			w = pow((double)j + 1, -r->exponent);
		else if (r->skew == POP_LIST)
			w = r->weights[j % (uint32_t)r->nweights];
		rate[j] = w;
		sum += w;
	}
	for (uint32_t j = 0; j < n; j++)
		rate[j] = total * rate[j] / sum;
}

uint64_t pop_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

int64_t pop_exp_ns(uint64_t *state, double rate)
{
	/* u in (0, 1]: 53 random bits */
	double u = ((double)(pop_rand(state) >> 11) + 1) / 9007199254740992.0;
	double ns = -log(u) / rate * NSEC_PER_SEC;

	if (ns < 1)
		return 1;
	if (ns > 9e18)
		return INT64_MAX / 4;
	return (int64_t)ns;
}

/* ---- the heap ---- */

/* pop_down: e into the heap of n entries from the hole at i down, below
 * none of its children that is due earlier. The earliest of four children
 * is chosen without a branch: which one it is is a coin toss the branch
 * predictor loses, and that, not the memory, was most of the time. */
static void pop_down(struct pop_entry *h, uint32_t n, uint32_t i, struct pop_entry e)
{
	for (;;) {
		uint32_t first = 4 * i + 1, m = first;
		int64_t due;

		if (first >= n)
			break;
		due = h[first].due_ns;
		if (n - first >= 4) {
			uint32_t a = h[first + 1].due_ns < h[first].due_ns ? first + 1 : first;
			uint32_t b =
			    h[first + 3].due_ns < h[first + 2].due_ns ? first + 3 : first + 2;

			m = h[b].due_ns < h[a].due_ns ? b : a;
			due = h[m].due_ns;
		} else {
			for (uint32_t k = first + 1; k < n; k++) {
				m = h[k].due_ns < due ? k : m;
				due = h[m].due_ns;
			}
		}
		if (due >= e.due_ns)
			break;
		h[i] = h[m];
		i = m;
	}
	h[i] = e;
}

int pop_init(struct pop *p, uint32_t n, uint32_t base, const struct pop_rates *r, double total,
	     int poisson, uint64_t seed)
{
	double *rate;

	memset(p, 0, sizeof(*p));
	p->n = n;
	p->base = base;
	p->poisson = poisson;
	p->rng = seed ? seed : 0x9E3779B97F4A7C15ULL;
	p->end_ns = INT64_MAX;
	p->c = calloc(n, sizeof(*p->c));
	/* entry k at heap_mem[k + 3]: the children of k, 4k+1 to 4k+4, start
	 * at byte 64 (k + 1), a cache line of their own */
	p->heap_mem = aligned_alloc(64, ((size_t)n + 3 + 3) / 4 * 4 * sizeof(*p->heap));
	rate = calloc(n, sizeof(*rate));
	if (p->heap_mem)
		p->heap = p->heap_mem + 3;
	if (p->c == NULL || p->heap == NULL || rate == NULL) {
		free(rate);
		pop_free(p);
		return -1;
	}
	pop_rates_fill(r, n, total, rate);
	for (uint32_t j = 0; j < n; j++) {
		struct pop_client *c = &p->c[j];
		double gap = NSEC_PER_SEC / rate[j];

		c->rate = rate[j];
		c->gap_ns = gap < 1 ? 1 : gap > 9e18 ? INT64_MAX / 4 : (int64_t)llround(gap);
	}
	free(rate);
	return 0;
}

/* pop_entry_cmp: by due time, then client index (qsort's order of equal
 * ones is its own) */
static int pop_entry_cmp(const void *a, const void *b)
{
	const struct pop_entry *x = a, *y = b;

	if (x->due_ns != y->due_ns)
		return x->due_ns < y->due_ns ? -1 : 1;
	return x->j < y->j ? -1 : x->j > y->j;
}

void pop_start(struct pop *p, int64_t start_ns, int64_t duration_ns)
{
	int ring = !p->poisson;

	p->end_ns = duration_ns > 0 ? start_ns + duration_ns : INT64_MAX;
	p->nheap = 0;
	p->head = 0;
	p->ring = 0;
	for (uint32_t j = 0; j < p->n; j++) {
		struct pop_client *c = &p->c[j];
		struct pop_entry e = {.j = j};

		if (p->poisson)
			e.due_ns = start_ns + pop_exp_ns(&p->rng, c->rate);
		else
			e.due_ns = start_ns + (int64_t)(pop_phase(j) * (double)c->gap_ns);
		if (e.due_ns < p->end_ns)
			p->heap[p->nheap++] = e;
		if (c->gap_ns != p->c[0].gap_ns)
			ring = 0;
	}
	if (ring) {
		/* each first request within one interval of the start: in due
		 * order, each next one after all the others' */
		qsort(p->heap, p->nheap, sizeof(*p->heap), pop_entry_cmp);
		p->ring = p->nheap;
		p->ring_gap_ns = p->c[0].gap_ns;
		return;
	}
	/* the nodes with children, the last first */
	for (uint32_t i = (p->nheap + 2) / 4; i-- > 0;)
		pop_down(p->heap, p->nheap, i, p->heap[i]);
}

void pop_free(struct pop *p)
{
	free(p->c);
	free(p->heap_mem);
	free(p->byqid);
	free(p->addr6);
	free(p->c4);
	p->c = p->c4 = NULL;
	p->heap = p->heap_mem = NULL;
	p->byqid = NULL;
	p->addr6 = NULL;
	p->n = p->nheap = p->head = p->ring = 0;
}

int64_t pop_due(struct pop *p, int64_t now)
{
	struct pop_entry e;

	if (p->nheap == 0 || p->heap[p->head].due_ns > now)
		return -1;
	if (p->ring) {
		e = p->heap[p->head];
		p->due_ns = e.due_ns;
		p->head = p->head + 1 == p->ring ? 0 : p->head + 1;
		e.due_ns += p->ring_gap_ns;
		if (e.due_ns < p->end_ns) {
			uint32_t tail = p->head + p->nheap - 1;

			p->heap[tail >= p->ring ? tail - p->ring : tail] = e;
		} else {
			/* done: the ring is one shorter */
			p->nheap--;
		}
		return e.j;
	}
	e = p->heap[0];
	p->due_ns = e.due_ns;
	e.due_ns += p->poisson ? pop_exp_ns(&p->rng, p->c[e.j].rate) : p->c[e.j].gap_ns;
	if (e.due_ns >= p->end_ns) {
		/* done: the last of the heap takes its place */
		if (--p->nheap > 0)
			pop_down(p->heap, p->nheap, 0, p->heap[p->nheap]);
	} else {
		pop_down(p->heap, p->nheap, 0, e);
	}
	return e.j;
}

/* ---- DNS ---- */

int pop_dns_init(struct pop *p, int nresolvers, const double *weights, double q, int family)
{
	if ((p->byqid = calloc(POP_QIDS, sizeof(*p->byqid))) == NULL)
		return -1;
	if (family != AF_INET && (p->addr6 = calloc(p->n, sizeof(*p->addr6))) == NULL)
		return -1;
	if (family == AF_UNSPEC && (p->c4 = calloc(p->n, sizeof(*p->c4))) == NULL)
		return -1;
	for (uint32_t j = 0; j < p->n; j++) {
		p->c[j].resolver = (uint8_t)pop_resolver_of(weights, nresolvers, j);
		if (pop_sticky(j, q))
			p->c[j].flags |= POP_F_STICKY;
		if (p->c4)
			p->c4[j].resolver = p->c[j].resolver;
	}
	return 0;
}

int pop_dns_set(struct pop *p, uint32_t j, int lookup, const void *addr)
{
	void *at = pop_dns_addr(p, j, lookup);
	size_t len = pop_lookup_family(p, lookup) == AF_INET6 ? sizeof(struct in6_addr)
							      : sizeof(struct in_addr);

	if (memcmp(at, addr, len) == 0)
		return 0;
	memcpy(at, addr, len);
	return 1;
}

void pop_dns_first(struct pop *p, int k, int lookup, const void *addr, int64_t ttl_ns,
		   int64_t sticky_ns, int64_t now)
{
	for (uint32_t j = 0; j < p->n; j++) {
		struct pop_client *c = pop_lookup(p, j, lookup);
		int64_t hold = p->c[j].flags & POP_F_STICKY ? sticky_ns : ttl_ns;

		if (c->resolver != k)
			continue;
		pop_dns_set(p, j, lookup, addr);
		/* a phase in (0, 1]: never due at once */
		c->refresh_ns = now + (int64_t)((1 - pop_hold_phase(j)) * (double)hold);
	}
}

int pop_dns_take_qid(struct pop *p, uint32_t j, int lookup, uint16_t hint, int64_t now)
{
	struct pop_client *c = pop_lookup(p, j, lookup);

	for (uint32_t i = 0; i < POP_QIDS; i++) {
		uint16_t qid = (uint16_t)(hint + i);

		if (p->byqid[qid])
			continue;
		p->byqid[qid] = j + 1 + (lookup == POP_LOOKUP_A ? POP_MAX : 0);
		c->qid = qid;
		c->flags |= POP_F_ASKING;
		c->asked_ns = now;
		p->asking++;
		return qid;
	}
	return -1;
}

int64_t pop_dns_client(const struct pop *p, uint16_t qid, int *lookup)
{
	uint32_t v;

	if (p->byqid == NULL || (v = p->byqid[qid]) == 0)
		return -1;
	*lookup = v > POP_MAX ? POP_LOOKUP_A : POP_LOOKUP;
	return (int64_t)(v > POP_MAX ? v - POP_MAX : v) - 1;
}

void pop_dns_done(struct pop *p, uint32_t j, int lookup)
{
	struct pop_client *c = pop_lookup(p, j, lookup);

	if (!(c->flags & POP_F_ASKING))
		return;
	p->byqid[c->qid] = 0;
	c->flags &= (uint8_t)~POP_F_ASKING;
	p->asking--;
}
