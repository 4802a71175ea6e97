/*
 * The DNS scheme's clocks in one draw of the phases (docs/model.md, "DNS"):
 * the probers' verdicts and the authoritative server's quorum, then each
 * client's last request to the failed site: when the answer it uses next
 * was fetched after the steer, through its cache's expiries (counted from
 * the start of the traffic, when the clients' first queries fill the
 * caches) or its own stickiness. See model.h.
 */
#include "model.h"

#include <math.h>
#include <stdlib.h>

static int dns_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* dns_polled: whether a client of cache c honours TTLs: it asks again the
 * moment the cache's entry expires (the cache gives it what is left), so
 * the cache fetches at every expiry */
static int dns_polled(const struct model_input *in, int c)
{
	for (int i = 0; i < in->nclients; i++)
		if (in->clients[i].scheme == MODEL_DNS &&
		    (in->clients[i].cache == c || in->clients[i].cache2 == c + 1) &&
		    in->clients[i].sticky_s <= 0)
			return 1;
	return 0;
}

/* dns_used: whether a DNS client asks cache c (an entry of it) */
static int dns_used(const struct model_input *in, int c)
{
	for (int i = 0; i < in->nclients; i++)
		if (in->clients[i].scheme == MODEL_DNS &&
		    (in->clients[i].cache == c || in->clients[i].cache2 == c + 1))
			return 1;
	return 0;
}

/* dns_next_sticky: the first query instant > after of a sticky client of
 * cache c (its resolutions at n * sticky from the start); INFINITY if none */
static double dns_next_sticky(const struct model_input *in, int c, double after)
{
	double next = INFINITY;

	for (int i = 0; i < in->nclients; i++) {
		const struct model_client *cl = &in->clients[i];
		double x;

		if (cl->scheme != MODEL_DNS || (cl->cache != c && cl->cache2 != c + 1) ||
		    cl->sticky_s <= 0)
			continue;
		x = (floor(after / cl->sticky_s) + 1) * cl->sticky_s;
		if (x <= after) /* after / sticky rounded down past a whole number */
			x += cl->sticky_s;
		if (x < next)
			next = x;
	}
	return next;
}

/* a client that honours TTLs asks again this long after an answer of TTL
 * 0 (agents/client: its hold at least 0.1 s) */
#define DNS_MIN_HOLD_S 0.1

/* the wall clock's phases the upstream count of a cache of whole seconds
 * is averaged over */
#define DNS_WALL_STEPS 20

int model_dns_whole(const struct model_input *in)
{
	for (int c = 0; c < in->ncaches; c++)
		if (in->caches[c].whole)
			return 1;
	return 0;
}

/* dns_expiry: when cache k stops answering an entry fetched at f, the wall
 * clock's fraction of a second at the traffic's start w */
static double dns_expiry(const struct model_cache *k, double f, double w)
{
	if (k->whole == 0)
		return f + k->ttl_s;
	return floor(f + w) + k->ttl_s + (k->whole > 0 ? 1 : 0) - w;
}

/* dns_refill: a polled cache of whole seconds' next fetch after the one at
 * f: its clients' copies expire the TTL after it, and while the cache still
 * answers (TTL 0) they ask every DNS_MIN_HOLD_S, the first query after its
 * expiry fetching */
static double dns_refill(const struct model_cache *k, double f, double w)
{
	double q = f + k->ttl_s + k->drift_s, e = dns_expiry(k, f, w);

	if (q < e)
		q += ceil((e - q) / DNS_MIN_HOLD_S - 1e-9) * DNS_MIN_HOLD_S;
	return q;
}

/* dns_fetched: when cache c fetched the entry it answers from at instant x
 * (its first fill at 0, the start of the traffic); *count, if not NULL,
 * the fetches in [0, x] */
static double dns_fetched(const struct model_input *in, int c, double x, double w, long *count)
{
	const struct model_cache *k = &in->caches[c];
	double first = k->ttl_s - k->phase_s, fetch = 0;
	double exp = k->whole ? dns_expiry(k, 0, w) : first;
	long n = 1;

	if (dns_polled(in, c) && k->whole) {
		for (double f = dns_refill(k, 0, w); f <= x; f = dns_refill(k, f, w)) {
			fetch = f;
			n++;
		}
	} else if (dns_polled(in, c)) {
		/* a fetch at every expiry: first, first + period, ... (a
		 * period: the TTL and the refill's way, dns_period) */
		double p = k->ttl_s + k->drift_s;

		first += k->drift_s;
		if (x >= first) {
			long m = (long)floor((x - first) / p);

			fetch = first + m * p;
			n += m + 1;
		}
	} else {
		/* only when a sticky client asks once the entry has expired */
		for (double y = dns_next_sticky(in, c, -1); y <= x; y = dns_next_sticky(in, c, y)) {
			if (y >= exp) {
				fetch = y;
				exp = dns_expiry(k, y, w);
				n++;
			}
		}
	}
	if (count)
		*count = n;
	return fetch;
}

/* dns_first_fetch: cache c's first fetch of the name at or after instant
 * at (> 0), before the traffic ends; INFINITY if none */
static double dns_first_fetch(const struct model_input *in, int c, double at, double w)
{
	const struct model_cache *k = &in->caches[c];
	double first = k->ttl_s - k->phase_s;
	double exp = k->whole ? dns_expiry(k, 0, w) : first;

	if (dns_polled(in, c) && k->whole) {
		double f = dns_refill(k, 0, w);

		while (f < at)
			f = dns_refill(k, f, w);
		return f;
	}
	if (dns_polled(in, c)) {
		double p = k->ttl_s + k->drift_s;

		first += k->drift_s;
		if (at <= first || p <= 0)
			return at <= first ? first : at;
		return first + ceil((at - first) / p) * p;
	}
	/* from one fetch to the next: the first sticky query at or after
	 * the expiry (not every query between: a TTL may be a day) */
	for (double y = dns_next_sticky(in, c, -1); y <= in->duration_s;
	     y = dns_next_sticky(in, c, fmax(y, nextafter(exp, -INFINITY))))
		if (y >= exp) {
			if (y >= at)
				return y;
			exp = dns_expiry(k, y, w);
		}
	return INFINITY;
}

/* model_dns_client_take: client i's last request to the failed site, from the
 * start of the traffic: when it next takes an answer fetched at or after
 * the steer (steer_at, from the start) */
double model_dns_client_take(const struct model_input *in, int i, double t0, double steer_at,
			     double wall)
{
	const struct model_client *cl = &in->clients[i];
	double ttl = cl->cache >= 0 ? in->caches[cl->cache].ttl_s : in->ttl_s;

	if (cl->sticky_s > 0) {
		/* a sticky client resolves at n * sticky whatever the TTL: the
		 * first time after t0 that its cache answers from an entry
		 * fetched after the steer (or the first after the traffic) */
		double s = cl->sticky_s, x = (floor(t0 / s) + 1) * s;
		double want =
		    cl->cache < 0 ? steer_at : dns_first_fetch(in, cl->cache, steer_at, wall);

		if (want < steer_at)
			want = steer_at;
		if (x < want) {
			double k = fmin(ceil(want / s), floor(in->duration_s / s) + 1);

			/* want / s rounded up past a whole number */
			if ((k - 1) * s >= want && (k - 1) * s > t0)
				k--;
			x = k * s;
			if (x < want && x <= in->duration_s)
				x += s;
		}
		return x;
	}
	if (cl->cache < 0) /* its own hold: it asks every TTL from the start */
		return ceil(steer_at / ttl) * ttl;
	{
		/* it asks as its cache's entry expires: the first of its
		 * refilling queries at or after the steer (less its way to
		 * authd: the caller's); with link delays each refill comes
		 * the query's way there and back and the fill's after the
		 * expiry, the period that much longer, and its requests go to
		 * the old address until the answer is back */
		const struct model_cache *k = &in->caches[cl->cache];
		double first = k->ttl_s - k->phase_s + k->drift_s, p = k->ttl_s + k->drift_s;

		if (k->whole)
			return dns_first_fetch(in, cl->cache, steer_at, wall) + k->drift_s;
		if (steer_at <= first)
			return first + k->drift_s;
		return first + ceil((steer_at - first) / p) * p + k->drift_s;
	}
}

int model_dns_draw(const struct model_input *in, const struct model_draw *d, struct model_clocks *c)
{
	double v[MODEL_MAX_PROBERS];
	unsigned k = model_quorum_needed((unsigned)in->nprobers, in->quorum);

	c->detect = c->steer = -1;
	for (int i = 0; i < in->nclients; i++)
		c->last[i] = 0;
	if (in->nprobers == 0 || k == 0)
		return -1;
	/* each verdict counts once it reached authd */
	for (int i = 0; i < in->nprobers; i++)
		v[i] =
		    model_detect_sample(&in->probers[i], d->u_probers[i]) + in->probers[i].report_s;
	qsort(v, (size_t)in->nprobers, sizeof(v[0]), dns_cmp);
	c->detect = v[k - 1];
	if (!isfinite(c->detect)) /* the quorum needs a verdict that never comes */
		return -1;
	/* the authoritative server answers from its next verdict on */
	c->steer = c->detect + in->answer_lag_s;
	if (in->dns_limit[0] || in->clients_limit[0])
		return 0;
	if (in->dns_sim) {
		/* through the outages or prefetches, query by query: when each took an
		 * answer whose query reached authd after the steer */
		double moved[MODEL_MAX_CLIENTS];

		if (model_dns_sim(in, d->t0_s + c->steer, d, moved, NULL) == -1)
			return -1;
		for (int i = 0; i < in->nclients; i++) {
			const struct model_client *cl = &in->clients[i];

			if (cl->scheme == MODEL_DNS && cl->to_failed && !cl->pop)
				c->last[i] = moved[i] - d->t0_s + cl->arrive_s;
		}
		return 0;
	}
	for (int i = 0; i < in->nclients; i++) {
		const struct model_client *cl = &in->clients[i];

		/* a population's logical clients: model_pop.c, by the caller */
		/* an answer after the steer: its query reached authd after it;
		 * the last request reached the site its way later */
		if (cl->scheme == MODEL_DNS && cl->to_failed && !cl->pop)
			c->last[i] =
			    model_dns_client_take(in, i, d->t0_s, d->t0_s + c->steer - cl->ask_s,
						  d->u_wall) -
			    d->t0_s + cl->arrive_s;
	}
	return 0;
}

double model_dns_upstream(const struct model_input *in)
{
	double total = 0;
	/* the instant just before the traffic ends */
	double end = nextafter(in->duration_s, 0);
	double moved[MODEL_MAX_CLIENTS];

	/* through outages: the attempts the sim sends (what they answer
	 * does not change when they go) */
	if (in->dns_sim) {
		struct model_draw d = {.u_tick = 0.5};

		return model_dns_sim(in, INFINITY, &d, moved, &total) == -1 ? -1 : total;
	}

	for (int c = 0; c < in->ncaches; c++) {
		long n = 0;
		int used = dns_used(in, c), walk = in->caches[c].walk;

		if (!used)
			continue;
		/* an AAAA entry beside a used A one: the walk above the zone
		 * is the resolver's, made once */
		if (in->caches[c].aaaa_of && dns_used(in, in->caches[c].aaaa_of - 1))
			walk = 0;
		if (in->caches[c].whole) {
			/* the fetches of whole seconds depend on the wall
			 * clock's phase: their mean over it */
			double sum = 0;

			for (int j = 0; j < DNS_WALL_STEPS; j++) {
				dns_fetched(in, c, end, (j + 0.5) / DNS_WALL_STEPS, &n);
				sum += (double)n;
			}
			total += sum / DNS_WALL_STEPS + walk;
			continue;
		}
		dns_fetched(in, c, end, 0, &n);
		total += (double)n + walk;
	}
	for (int i = 0; i < in->nclients; i++) {
		const struct model_client *cl = &in->clients[i];
		double every = cl->sticky_s > 0 ? cl->sticky_s : in->ttl_s;

		if (cl->scheme == MODEL_DNS && cl->cache < 0 && every > 0 && !cl->pop)
			total += ceil(in->duration_s / every);
	}
	/* a population's caches (its own: model_topo gives a cache shared
	 * with other clients no upstream model), their fills played through */
	for (int i = 0; i < in->nclients; i++) {
		const struct model_client *cl = &in->clients[i];
		const struct model_pop *p = &in->pops[cl->pop ? cl->pop - 1 : 0];
		struct model_pop_plan *pl;

		if (cl->scheme != MODEL_DNS || !cl->pop)
			continue;
		if ((pl = model_pop_plan(in, i)) == NULL)
			return -1;
		total += (double)model_pop_fetches(pl);
		model_pop_plan_free(pl);
		for (int k = 0; k < p->nres; k++)
			if (p->cache[k] >= 0)
				total += in->caches[p->cache[k]].walk;
	}
	return total;
}
