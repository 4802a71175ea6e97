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

double pop_phase(uint32_t j)
{
	/* (sqrt(5) - 1) / 2 */
	double x = (double)j * 0.6180339887498949;

	return x - floor(x);
}

double pop_hold_phase(uint32_t j)
{
	double x = (double)j * 0.41421356237309503;

	return x - floor(x);
}

int pop_sticky(uint32_t j, double q)
{
	return floor((double)(j + 1) * q + 1e-9) > floor((double)j * q + 1e-9);
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

static int pop_before(const struct pop *p, uint32_t a, uint32_t b)
{
	return p->c[a].due_ns < p->c[b].due_ns;
}

static void pop_set(struct pop *p, uint32_t i, uint32_t j)
{
	p->heap[i] = j;
	p->c[j].heap = i;
}

static void pop_down(struct pop *p, uint32_t i)
{
	uint32_t j = p->heap[i];

	for (;;) {
		uint32_t l = 2 * i + 1, m;

		if (l >= p->nheap)
			break;
		m = l + 1 < p->nheap && pop_before(p, p->heap[l + 1], p->heap[l]) ? l + 1 : l;
		if (!pop_before(p, p->heap[m], j))
			break;
		pop_set(p, i, p->heap[m]);
		i = m;
	}
	pop_set(p, i, j);
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
	p->heap = calloc(n, sizeof(*p->heap));
	rate = calloc(n, sizeof(*rate));
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

void pop_start(struct pop *p, int64_t start_ns, int64_t duration_ns)
{
	p->end_ns = duration_ns > 0 ? start_ns + duration_ns : INT64_MAX;
	p->nheap = 0;
	for (uint32_t j = 0; j < p->n; j++) {
		struct pop_client *c = &p->c[j];

		if (p->poisson)
			c->due_ns = start_ns + pop_exp_ns(&p->rng, c->rate);
		else
			c->due_ns = start_ns + (int64_t)(pop_phase(j) * (double)c->gap_ns);
		if (c->due_ns < p->end_ns)
			pop_set(p, p->nheap++, j);
	}
	for (uint32_t i = p->nheap / 2; i-- > 0;)
		pop_down(p, i);
}

void pop_free(struct pop *p)
{
	free(p->c);
	free(p->heap);
	free(p->byqid);
	p->c = NULL;
	p->heap = NULL;
	p->byqid = NULL;
	p->n = p->nheap = 0;
}

int64_t pop_due(struct pop *p, int64_t now)
{
	uint32_t j;
	struct pop_client *c;

	if (p->nheap == 0 || p->c[p->heap[0]].due_ns > now)
		return -1;
	j = p->heap[0];
	c = &p->c[j];
	c->due_ns += p->poisson ? pop_exp_ns(&p->rng, c->rate) : c->gap_ns;
	if (c->due_ns >= p->end_ns) {
		/* done: the last of the heap takes its place */
		if (--p->nheap > 0) {
			pop_set(p, 0, p->heap[p->nheap]);
			pop_down(p, 0);
		}
	} else {
		pop_down(p, 0);
	}
	return j;
}

/* ---- DNS ---- */

double pop_resolver_point(uint32_t j)
{
	double x = (double)j * 0.7320508075688772;

	return x - floor(x);
}

/* pop_weighted: the resolver whose share of [0, 1) holds x */
static int pop_weighted(const double *w, int n, double x)
{
	double sum = 0, acc = 0;

	for (int k = 0; k < n; k++)
		sum += w[k];
	for (int k = 0; k < n - 1; k++) {
		acc += w[k] / sum;
		if (x < acc)
			return k;
	}
	return n - 1;
}

int pop_dns_init(struct pop *p, int nresolvers, const double *weights, double q)
{
	if ((p->byqid = calloc(POP_QIDS, sizeof(*p->byqid))) == NULL)
		return -1;
	for (uint32_t j = 0; j < p->n; j++) {
		p->c[j].resolver =
		    (uint8_t)(weights ? pop_weighted(weights, nresolvers, pop_resolver_point(j))
				      : (int)(j % (uint32_t)nresolvers));
		if (pop_sticky(j, q))
			p->c[j].flags |= POP_F_STICKY;
	}
	return 0;
}

void pop_dns_first(struct pop *p, int k, struct in_addr addr, int64_t ttl_ns, int64_t sticky_ns,
		   int64_t now)
{
	for (uint32_t j = 0; j < p->n; j++) {
		struct pop_client *c = &p->c[j];
		int64_t hold = c->flags & POP_F_STICKY ? sticky_ns : ttl_ns;

		if (c->resolver != k)
			continue;
		c->addr = addr;
		/* a phase in (0, 1]: never due at once */
		c->refresh_ns = now + (int64_t)((1 - pop_hold_phase(j)) * (double)hold);
	}
}

int pop_dns_take_qid(struct pop *p, uint32_t j, uint16_t hint, int64_t now)
{
	for (uint32_t i = 0; i < POP_QIDS; i++) {
		uint16_t qid = (uint16_t)(hint + i);

		if (p->byqid[qid])
			continue;
		p->byqid[qid] = j + 1;
		p->c[j].qid = qid;
		p->c[j].flags |= POP_F_ASKING;
		p->c[j].asked_ns = now;
		p->asking++;
		return qid;
	}
	return -1;
}

int64_t pop_dns_client(const struct pop *p, uint16_t qid)
{
	return p->byqid && p->byqid[qid] ? (int64_t)p->byqid[qid] - 1 : -1;
}

void pop_dns_done(struct pop *p, uint32_t j)
{
	struct pop_client *c = &p->c[j];

	if (!(c->flags & POP_F_ASKING))
		return;
	p->byqid[c->qid] = 0;
	c->flags &= (uint8_t)~POP_F_ASKING;
	p->asking--;
}
