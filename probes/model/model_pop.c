/*
 * A population followed client by client (docs/model.md, "Populations"):
 * each logical client laid out as the client agent lays it (lib/popseq.h,
 * agents/client/pop.c and popdns.c) and its DNS queries played through its
 * cache in time order, once; a draw then only asks, for each client, the
 * first query whose answer its cache fetched after the steer. See model.h.
 */
#include "model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "popseq.h"

/* a client whose hold ran out asks at most this often (CLIENT_DNS_MIN_TTL_NS) */
#define POP_MIN_HOLD_S 0.1
/* a fill's entry lives its TTL from the authoritative answer's arrival: the
 * query's way to the cache and from it to authd and back, about 0.2 ms over
 * the lab's links without delay; so the client whose request filled it,
 * holding its answer a whole TTL from that request, asks again just before
 * it expires and gets what is left (0 s), not a fill */
#define POP_FILL_S 0.0002

struct model_pop_plan {
	int scheme;
	unsigned n;
	double end;	      /* no request at or after it */
	double *rate, *first; /* client j's requests at first + m / rate */
	/* dns: client j's queries whose answer was fetched later than its
	 * previous one's, x[q0[j] .. q0[j] + nq[j]), each answer's fetch f[] */
	unsigned *q0, *nq;
	double *x, *f;
	unsigned char *off; /* dns: client j's cache was never on the failed site */
	long fetches;
};

/* a query of a client, as the cache's play makes it */
struct pop_q {
	unsigned j;
	double x, f;
};

struct pop_heap {
	unsigned n;
	double *at;
	unsigned *who;
};

static void heap_push(struct pop_heap *h, double at, unsigned who)
{
	unsigned i = h->n++;

	while (i > 0) {
		unsigned p = (i - 1) / 2;

		if (h->at[p] < at || (h->at[p] == at && h->who[p] < who))
			break;
		h->at[i] = h->at[p];
		h->who[i] = h->who[p];
		i = p;
	}
	h->at[i] = at;
	h->who[i] = who;
}

static void heap_pop(struct pop_heap *h)
{
	double at = h->at[--h->n];
	unsigned who = h->who[h->n], i = 0;

	for (;;) {
		unsigned c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && (h->at[c + 1] < h->at[c] ||
				     (h->at[c + 1] == h->at[c] && h->who[c + 1] < h->who[c])))
			c++;
		if (at < h->at[c] || (at == h->at[c] && who < h->who[c]))
			break;
		h->at[i] = h->at[c];
		h->who[i] = h->who[c];
		i = c;
	}
	h->at[i] = at;
	h->who[i] = who;
}

/* pop_next_send: client j's first request at or after t; INFINITY if none
 * before the end */
double model_pop_next_send(const struct model_pop_plan *pl, unsigned j, double t)
{
	double m = ceil((t - pl->first[j]) * pl->rate[j] - 1e-9), x;

	if (m < 0)
		m = 0;
	x = pl->first[j] + m / pl->rate[j];
	return x < pl->end ? x : INFINITY;
}

/* pop_last_send: client j's last request at or before t; -INFINITY if none */
static double pop_last_send(const struct model_pop_plan *pl, unsigned j, double t)
{
	double m;

	if (t >= pl->end)
		t = nextafter(pl->end, -INFINITY);
	m = floor((t - pl->first[j]) * pl->rate[j] + 1e-9);
	return m < 0 ? -INFINITY : pl->first[j] + m / pl->rate[j];
}

double model_pop_sends(const struct model_pop_plan *pl, unsigned j, double a, double b)
{
	double x = model_pop_next_send(pl, j, nextafter(a, INFINITY)), y = pop_last_send(pl, j, b);

	return isfinite(x) && isfinite(y) && y >= x ? round((y - x) * pl->rate[j]) + 1 : 0;
}

/* pop_rates: each client's rate by the population's skew (as pop_init) */
static void pop_rates(const struct model_pop *p, double *r)
{
	double sum = 0;

	for (unsigned j = 0; j < p->n; j++) {
		r[j] = p->skew == MODEL_SKEW_HARMONIC ? 1.0 / (j + 1)
		       : p->skew == MODEL_SKEW_ZIPF   ? pow(j + 1.0, -p->zipf_s)
						      : 1;
		sum += r[j];
	}
	for (unsigned j = 0; j < p->n; j++)
		r[j] *= p->rate_per_s / sum;
}

/* pop_is_sticky: whether client j keeps each address sticky_s (as the
 * agent picks them: every one, or the share spread evenly) */
static int pop_is_sticky(const struct model_pop *p, unsigned j)
{
	return p->all_sticky || (p->sticky_share > 0 && pop_sticky(j, p->sticky_share));
}

/* pop_play: the DNS queries of population p's clients of cache slot k, in
 * time order through the cache, appended to *q (*nq of *cap) */
static int pop_play(const struct model_input *in, const struct model_pop *p,
		    struct model_pop_plan *pl, int k, const int *slot, struct pop_q **q, size_t *nq,
		    size_t *cap, struct pop_heap *h)
{
	int c = p->cache[k];
	double ttl = c >= 0 ? in->caches[c].ttl_s : in->ttl_s;
	/* the entry: its first fill at the start, expiring (1 - phase) TTL on */
	double fill = POP_FILL_S + (c >= 0 ? in->caches[c].fill_s : 0);
	double exp = c >= 0 ? fill + in->caches[c].ttl_s - in->caches[c].phase_s : ttl, fetch = 0;
	double first = floor(exp + 1e-9), hold;

	h->n = 0;
	if (c >= 0)
		pl->fetches++; /* its first fill, at the start */
	for (unsigned j = 0; j < p->n; j++) {
		int sticky;

		if (slot[j] != k)
			continue;
		sticky = pop_is_sticky(p, j);
		hold = sticky ? fmax(p->sticky_s, POP_MIN_HOLD_S) : fmax(first, POP_MIN_HOLD_S);
		/* its first answer, held a fraction of a whole hold */
		heap_push(h, model_pop_next_send(pl, j, (1 - pop_hold_phase(j)) * hold), j);
	}
	while (h->n > 0 && isfinite(h->at[0])) {
		unsigned j = h->who[0];
		double x = h->at[0], left;

		heap_pop(h);
		if (c < 0 || x >= exp) {
			/* a fill: the authoritative server's answer now */
			fetch = x;
			exp = c < 0 ? INFINITY : x + fill + ttl;
			pl->fetches++;
			left = floor(ttl + 1e-9);
		} else {
			left = floor(exp - x);
		}
		if (*nq == *cap) {
			struct pop_q *m =
			    realloc(*q, (*cap = *cap ? 2 * *cap : 4096) * sizeof(**q));

			if (m == NULL)
				return -1;
			*q = m;
		}
		(*q)[(*nq)++] = (struct pop_q){.j = j, .x = x, .f = fetch};
		hold = pop_is_sticky(p, j) ? fmax(p->sticky_s, POP_MIN_HOLD_S)
					   : fmax(left, POP_MIN_HOLD_S);
		heap_push(h, model_pop_next_send(pl, j, x + hold), j);
	}
	return 0;
}

/* pop_by_client: the queries q[0..n) (each client's in time order) into
 * pl's per-client lists, only those whose answer was fetched later than
 * the client's previous one's */
static int pop_by_client(struct model_pop_plan *pl, const struct pop_q *q, size_t n)
{
	double *last = malloc(pl->n * sizeof(double));
	unsigned *at = calloc(pl->n, sizeof(unsigned)), total = 0;

	if (last == NULL || at == NULL)
		goto fail;
	for (unsigned j = 0; j < pl->n; j++)
		last[j] = 0; /* the first answer's fetch */
	for (size_t i = 0; i < n; i++)
		if (q[i].f > last[q[i].j]) {
			last[q[i].j] = q[i].f;
			pl->nq[q[i].j]++;
			total++;
		}
	pl->x = malloc((total ? total : 1) * sizeof(double));
	pl->f = malloc((total ? total : 1) * sizeof(double));
	if (pl->x == NULL || pl->f == NULL)
		goto fail;
	for (unsigned j = 0, o = 0; j < pl->n; j++) {
		pl->q0[j] = at[j] = o;
		o += pl->nq[j];
		last[j] = 0;
	}
	for (size_t i = 0; i < n; i++)
		if (q[i].f > last[q[i].j]) {
			last[q[i].j] = q[i].f;
			pl->x[at[q[i].j]] = q[i].x;
			pl->f[at[q[i].j]++] = q[i].f;
		}
	free(last);
	free(at);
	return 0;
fail:
	free(last);
	free(at);
	return -1;
}

struct model_pop_plan *model_pop_plan(const struct model_input *in, int client)
{
	const struct model_client *cl = &in->clients[client];
	const struct model_pop *p = &in->pops[cl->pop - 1];
	struct model_pop_plan *pl = calloc(1, sizeof(*pl));
	struct pop_heap h = {0};
	struct pop_q *q = NULL;
	size_t nq = 0, cap = 0;
	int *slot = NULL;

	if (pl == NULL || p->n == 0)
		goto fail;
	pl->scheme = cl->scheme;
	pl->n = p->n;
	pl->end = p->from_s + in->duration_s;
	pl->rate = malloc(p->n * sizeof(double));
	pl->first = malloc(p->n * sizeof(double));
	pl->q0 = calloc(p->n, sizeof(unsigned));
	pl->nq = calloc(p->n, sizeof(unsigned));
	if (pl->rate == NULL || pl->first == NULL || pl->q0 == NULL || pl->nq == NULL)
		goto fail;
	pop_rates(p, pl->rate);
	for (unsigned j = 0; j < p->n; j++)
		pl->first[j] = p->from_s + pop_phase(j) / pl->rate[j];
	if (cl->scheme != MODEL_DNS)
		return pl;
	slot = malloc(p->n * sizeof(int));
	h.at = malloc(p->n * sizeof(double));
	h.who = malloc(p->n * sizeof(unsigned));
	if (slot == NULL || h.at == NULL || h.who == NULL)
		goto fail;
	if ((pl->off = calloc(p->n, 1)) == NULL)
		goto fail;
	for (unsigned j = 0; j < p->n; j++) {
		slot[j] = pop_resolver_of(p->nweights == p->nres ? p->weight : NULL, p->nres, j);
		pl->off[j] = p->off[slot[j]] != 0;
	}
	for (int k = 0; k < p->nres; k++)
		if (pop_play(in, p, pl, k, slot, &q, &nq, &cap, &h) == -1)
			goto fail;
	/* each client's queries are in time order within its cache's play */
	if (pop_by_client(pl, q, nq) == -1)
		goto fail;
	free(q);
	free(slot);
	free(h.at);
	free(h.who);
	return pl;
fail:
	free(q);
	free(slot);
	free(h.at);
	free(h.who);
	model_pop_plan_free(pl);
	return NULL;
}

void model_pop_plan_free(struct model_pop_plan *pl)
{
	if (pl == NULL)
		return;
	free(pl->rate);
	free(pl->first);
	free(pl->q0);
	free(pl->nq);
	free(pl->off);
	free(pl->x);
	free(pl->f);
	free(pl);
}

int model_pop_off(const struct model_pop_plan *pl, unsigned j)
{
	return pl->off != NULL && pl->off[j];
}

unsigned model_pop_users(const struct model_pop_plan *pl)
{
	return pl->n;
}

double model_pop_rate(const struct model_pop_plan *pl, unsigned j)
{
	return pl->rate[j];
}

long model_pop_fetches(const struct model_pop_plan *pl)
{
	return pl->fetches;
}

double model_pop_last(const struct model_pop_plan *pl, unsigned j, double t0, double steer_at)
{
	double x;

	if (pl->scheme == MODEL_DNS) {
		/* its first query answered from a fetch after the steer: the
		 * request it sends then still goes to the address it held */
		unsigned lo = pl->q0[j], hi = lo + pl->nq[j];

		while (lo < hi) {
			unsigned mid = lo + (hi - lo) / 2;

			if (pl->f[mid] >= steer_at)
				hi = mid;
			else
				lo = mid + 1;
		}
		x = lo < pl->q0[j] + pl->nq[j] ? pl->x[lo] : pop_last_send(pl, j, pl->end);
	} else {
		/* its last request before its route changed */
		x = pop_last_send(pl, j, steer_at);
	}
	return x > t0 ? x : -1;
}
