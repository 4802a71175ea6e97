/*
 * The DNS clients followed query by query (docs/model.md, "DNS outages"):
 * used when the timeline takes the authoritative server or a resolver out
 * (dns-down, resolver-down), or a cache prefetches, where the closed forms
 * of model_dns.c no longer hold. Each client's queries, each cache's lookups, walks,
 * attempts, timeouts and answers are played in time order, as the client
 * agent (agents/client/dns.c) and resolverd (agents/resolverd/cache.c,
 * resolver.c) do them:
 *
 *   - a client asks at the start, then as its hold runs out (the answer's
 *     TTL, or its stickiness, at least 0.1 s, from the answer's arrival),
 *     a little late each time (sim_late);
 *     an unanswered query, or one answered SERVFAIL, is asked again 1 s
 *     after it was sent, the client meanwhile keeping its address;
 *   - a cache answers a live entry with its whole seconds left (and, with
 *     prefetch, refreshes it in the background, once, when less than its
 *     share of the TTL is left: a failed prefetch leaves it as it was); an expired
 *     one stale at once within stale_recheck of a failed refresh (and
 *     max_stale of its expiry); otherwise the query waits for a walk, one
 *     at a time per cache, the others joining it;
 *   - a walk's attempt is answered if the server is reachable when it
 *     arrives, else it times out (resolverd's timer ticks every 10 ms, at
 *     a phase of the draw's), up to retries times more; then the waiting
 *     clients get the expired entry stale (serve_stale, within max_stale:
 *     TTL stale_ttl) or SERVFAIL;
 *   - an answer leaves the failed site when its query reached the
 *     authoritative server at or after the steer.
 *
 * See model.h.
 */
#include "model.h"

#include <math.h>
#include <stdlib.h>

/* resolverd's timeout check (agents/resolverd: every 10 ms) */
#define SIM_TICK_S 0.010
/* the client's least hold and its retry of a query (agents/client/dns.h) */
#define SIM_MIN_HOLD_S 0.1
#define SIM_RETRY_S 1.0
/* the clients' first queries after the first one's, up to so late
 * (sim_first_ask) */
#define SIM_LATER_S 0.002
/* each query after its hold, up to this late; a share of them up to a
 * slow one's (sim_late) */
#define SIM_LATE_S 0.0006
#define SIM_LATE_SLOW 0.05
#define SIM_LATE_SLOW_S 0.004

enum sim_kind { SIM_NONE, SIM_ADDR, SIM_SERVFAIL };

struct sim_client {
	int pending;
	long seq;
	double sent, next;
	double q_at;  /* its query's arrival at its cache (or the server); INFINITY: none */
	long q_seq;   /* that query's */
	double a_at;  /* an answer's arrival at it; INFINITY: none */
	long a_seq;   /* which query it answers */
	int a_kind;   /* enum sim_kind */
	int a_new;    /* it leaves the failed site */
	double a_ttl; /* its TTL, s */
	int addr_new; /* the address it sends to is not the failed site's */
	double moved; /* when it took one that is not; INFINITY: never */
	long waiting; /* the query it waits with on its cache's walk; -1: none */
};

struct sim_cache {
	int have, entry_new, failed, prefetched;
	double expires, failed_at;
	int walking;
	unsigned attempt;
	double att_at;	/* the walk's next attempt's send; INFINITY: none */
	double fill_at; /* its answer's arrival at the cache */
	int fill_new;
	double fail_at; /* the walk gives up */
	double tick;	/* the phase of its timeout timer, s */
};

struct sim {
	const struct model_input *in;
	double steer_at;
	struct sim_client cl[MODEL_MAX_CLIENTS];
	struct sim_cache ca[MODEL_MAX_CACHES];
	double upstream;
	uint64_t late; /* sim_late's generator */
};

/* model_dns_down: whether the cache c (-1: the authoritative server) is
 * unreachable at instant x */
int model_dns_down(const struct model_input *in, int c, double x)
{
	for (int o = 0; o < in->noutages; o++)
		if (in->outages[o].cache == c && x >= in->outages[o].from_s &&
		    x < in->outages[o].to_s)
			return 1;
	return 0;
}

static int sim_used(const struct model_input *in, int i)
{
	const struct model_client *m = &in->clients[i];

	return m->scheme == MODEL_DNS && !m->pop;
}

/* sim_answer: client i's query seq answered at x */
static void sim_answer(struct sim *s, int i, long seq, double x, int kind, int fresh, double ttl)
{
	struct sim_client *c = &s->cl[i];

	c->a_at = x;
	c->a_seq = seq;
	c->a_kind = kind;
	c->a_new = fresh;
	c->a_ttl = ttl;
}

/* sim_tick: the instant resolverd's 10 ms timer, ticking at its phase
 * k->tick, sees deadline x */
static double sim_tick(const struct sim_cache *k, double x)
{
	return model_tick_after(x, SIM_TICK_S, k->tick - SIM_TICK_S / 2);
}

/* sim_waiting: whether a client waits on cache c's walk */
static int sim_waiting(const struct sim *s, int c)
{
	for (int i = 0; i < s->in->nclients; i++)
		if (sim_used(s->in, i) && s->in->clients[i].cache == c && s->cl[i].waiting >= 0)
			return 1;
	return 0;
}

/* sim_waiters: every client waiting on cache c's walk answered at x */
static void sim_waiters(struct sim *s, int c, double x, int kind, int fresh, double ttl)
{
	for (int i = 0; i < s->in->nclients; i++)
		if (sim_used(s->in, i) && s->in->clients[i].cache == c && s->cl[i].waiting >= 0) {
			sim_answer(s, i, s->cl[i].waiting, x + s->in->clients[i].from_cache_s, kind,
				   fresh, ttl);
			s->cl[i].waiting = -1;
		}
}

/* sim_lookup: client i's query seq reaches its cache at x */
static void sim_lookup(struct sim *s, int i, long seq, double x)
{
	const struct model_client *m = &s->in->clients[i];
	const struct model_cache *mk = &s->in->caches[m->cache];
	struct sim_cache *k = &s->ca[m->cache];
	double back = x + m->from_cache_s;

	if (k->have && x < k->expires) {
		sim_answer(s, i, seq, back, SIM_ADDR, k->entry_new, floor(k->expires - x + 1e-9));
		/* prefetch: little left, a refresh in the background */
		if (mk->prefetch > 0 && !k->prefetched &&
		    k->expires - x < mk->prefetch * mk->ttl_s) {
			k->prefetched = 1;
			if (!k->walking) {
				k->walking = 1;
				k->attempt = 1;
				k->att_at = x;
			}
		}
		return;
	}
	if (k->have && mk->serve_stale && k->failed && x - k->failed_at < mk->stale_recheck_s &&
	    x - k->expires < mk->max_stale_s) {
		sim_answer(s, i, seq, back, SIM_ADDR, k->entry_new, mk->stale_ttl_s);
		return;
	}
	s->cl[i].waiting = seq;
	if (!k->walking) {
		k->walking = 1;
		k->attempt = 1;
		k->att_at = x;
	}
}

/* sim_attempt: cache c's walk sends an attempt at x */
static void sim_attempt(struct sim *s, int c, double x)
{
	const struct model_cache *mk = &s->in->caches[c];
	struct sim_cache *k = &s->ca[c];
	double there = x + mk->up_s;

	k->att_at = INFINITY;
	/* the server's link sees it, reachable or not (its capture), while
	 * the traffic runs */
	if (there < s->in->duration_s)
		s->upstream++;
	if (!model_dns_down(s->in, -1, there)) {
		k->fill_at = x + mk->fill_s;
		k->fill_new = there >= s->steer_at;
		return;
	}
	if (k->attempt <= mk->retries) {
		k->attempt++;
		k->att_at = sim_tick(k, x + mk->timeout_s);
	} else {
		k->fail_at = sim_tick(k, x + mk->timeout_s);
	}
}

/* sim_fill: cache c's walk answered at x */
static void sim_fill(struct sim *s, int c, double x)
{
	const struct model_cache *mk = &s->in->caches[c];
	struct sim_cache *k = &s->ca[c];

	k->fill_at = INFINITY;
	k->walking = 0;
	/* the first entry lives its phase less (resolverd's phase) */
	k->expires = x + mk->ttl_s - (k->have ? 0 : mk->phase_s);
	k->have = 1;
	k->entry_new = k->fill_new;
	k->failed = k->prefetched = 0;
	sim_waiters(s, c, x, SIM_ADDR, k->entry_new, floor(k->expires - x + 1e-9));
}

/* sim_give_up: cache c's walk failed at x: stale or SERVFAIL */
static void sim_give_up(struct sim *s, int c, double x)
{
	const struct model_cache *mk = &s->in->caches[c];
	struct sim_cache *k = &s->ca[c];

	k->fail_at = INFINITY;
	k->walking = 0;
	if (!sim_waiting(s, c))
		return; /* a prefetch: the entry is left as it is */
	if (k->have && mk->serve_stale && x >= k->expires && x - k->expires < mk->max_stale_s) {
		k->failed = 1;
		k->failed_at = x;
		sim_waiters(s, c, x, SIM_ADDR, k->entry_new, mk->stale_ttl_s);
	} else {
		sim_waiters(s, c, x, SIM_SERVFAIL, 0, 0);
	}
}

/* sim_send: client i asks at x */
static void sim_send(struct sim *s, int i, double x)
{
	const struct model_client *m = &s->in->clients[i];
	struct sim_client *c = &s->cl[i];

	c->pending = 1;
	c->seq++;
	c->sent = x;
	c->next = x + SIM_RETRY_S;
	if (m->cache >= 0) {
		if (model_dns_down(s->in, m->cache, x + m->to_cache_s))
			return; /* its resolver unreachable: dropped */
		c->q_at = x + m->to_cache_s;
		c->q_seq = c->seq;
		return;
	}
	/* it asks the name's server itself */
	if (x + m->ask_s < s->in->duration_s)
		s->upstream++;
	if (!model_dns_down(s->in, -1, x + m->ask_s))
		sim_answer(s, i, c->seq, x + 2 * m->ask_s, SIM_ADDR, x + m->ask_s >= s->steer_at,
			   s->in->ttl_s);
}

/* sim_late: how late a query comes after its hold. In the lab the
 * client's timer and the answer's way make each query 0.1 to 0.6 ms late
 * at rest, and about one in twenty 3 to 4 ms on a loaded machine (two busy
 * programs beside a run), added up query after query. Two clients' queries
 * that the holds bring to the same instant (c2 every 0.7 s, c1 every 1 s
 * from 0.1 s: both at 2.1 s) then reach their cache in either order, and
 * which goes first can decide who prefetches, and so every later answer:
 * the draws play both. */
static double sim_late(struct sim *s)
{
	double u = model_uniform(&s->late);

	if (u < SIM_LATE_SLOW)
		return SIM_LATE_SLOW_S * u / SIM_LATE_SLOW;
	return SIM_LATE_S * (u - SIM_LATE_SLOW) / (1 - SIM_LATE_SLOW);
}

/* sim_receive: client i's answer arrives at x */
static void sim_receive(struct sim *s, int i, double x)
{
	const struct model_client *m = &s->in->clients[i];
	struct sim_client *c = &s->cl[i];
	double hold;

	c->a_at = INFINITY;
	if (!c->pending || c->a_seq != c->seq || c->a_kind != SIM_ADDR)
		return; /* a SERVFAIL: asked again 1 s after it was sent */
	c->pending = 0;
	if (c->a_new && !c->addr_new) {
		c->addr_new = 1;
		c->moved = x;
	}
	hold = m->sticky_s > 0 ? m->sticky_s : c->a_ttl;
	c->next = x + fmax(hold, SIM_MIN_HOLD_S) + sim_late(s);
}

/* sim_min: the earliest of the next events: *who the client or cache,
 * *what which event */
enum { EV_RECEIVE, EV_FILL, EV_GIVE_UP, EV_LOOKUP, EV_ATTEMPT, EV_SEND, EV_NONE };

static double sim_next(const struct sim *s, int *who, int *what)
{
	double t = INFINITY;

	*what = EV_NONE;
#define SIM_TAKE(x, w, e)                                                                          \
	do {                                                                                       \
		if ((x) < t) {                                                                     \
			t = (x);                                                                   \
			*who = (w);                                                                \
			*what = (e);                                                               \
		}                                                                                  \
	} while (0)
	for (int i = 0; i < s->in->nclients; i++) {
		if (!sim_used(s->in, i))
			continue;
		SIM_TAKE(s->cl[i].a_at, i, EV_RECEIVE);
		SIM_TAKE(s->cl[i].q_at, i, EV_LOOKUP);
		SIM_TAKE(s->cl[i].next, i, EV_SEND);
	}
	for (int c = 0; c < s->in->ncaches; c++) {
		SIM_TAKE(s->ca[c].fill_at, c, EV_FILL);
		SIM_TAKE(s->ca[c].fail_at, c, EV_GIVE_UP);
		SIM_TAKE(s->ca[c].att_at, c, EV_ATTEMPT);
	}
#undef SIM_TAKE
	return t;
}

/* sim_first_ask: client i's first query: every one asks at the start, and
 * which reaches its cache first the lab does not say (the clients' first
 * queries come within a few ms): the draw's u_first picks one of each
 * cache's clients, the others asking up to SIM_LATER_S later, so that they
 * join its fill when it takes longer, else find its entry a little less
 * than a TTL left (a whole second less, in whole seconds) */
static double sim_first_ask(struct sim *s, int i, double u_first)
{
	const struct model_input *in = s->in;
	int n = 0, k = 0, c = in->clients[i].cache;

	if (c < 0)
		return 0;
	for (int j = 0; j < in->nclients; j++)
		if (sim_used(in, j) && in->clients[j].cache == c) {
			if (j == i)
				k = n;
			n++;
		}
	return k == (int)(u_first * n) ? 0 : SIM_LATER_S * model_uniform(&s->late);
}

int model_dns_sim(const struct model_input *in, double steer_at, const struct model_draw *d,
		  double *moved, double *upstream)
{
	struct sim *s = calloc(1, sizeof(*s));
	int who = 0, what;
	double t;

	if (s == NULL)
		return -1;
	s->in = in;
	s->steer_at = steer_at;
	s->late = (uint64_t)(d->u_order * 9007199254740992.0) ^ 0x9e3779b97f4a7c15ULL;
	for (int i = 0; i < in->nclients; i++) {
		struct sim_client *c = &s->cl[i];

		c->q_at = c->a_at = c->moved = INFINITY;
		c->waiting = -1;
		c->next = sim_used(in, i) ? sim_first_ask(s, i, d->u_first) : INFINITY;
	}
	for (int c = 0; c < in->ncaches; c++) {
		struct sim_cache *k = &s->ca[c];

		k->att_at = k->fill_at = k->fail_at = INFINITY;
		/* each resolver's timer at a phase of its own */
		k->tick = fmod(d->u_tick + c * 0.6180339887498949, 1.0) * SIM_TICK_S;
	}
	while ((t = sim_next(s, &who, &what)) < in->duration_s) {
		switch (what) {
		case EV_RECEIVE:
			sim_receive(s, who, t);
			break;
		case EV_FILL:
			sim_fill(s, who, t);
			break;
		case EV_GIVE_UP:
			sim_give_up(s, who, t);
			break;
		case EV_LOOKUP:
			s->cl[who].q_at = INFINITY;
			sim_lookup(s, who, s->cl[who].q_seq, t);
			break;
		case EV_ATTEMPT:
			sim_attempt(s, who, t);
			break;
		default:
			sim_send(s, who, t);
			break;
		}
	}
	for (int i = 0; i < in->nclients; i++)
		moved[i] = s->cl[i].moved;
	if (upstream) {
		*upstream = s->upstream;
		for (int c = 0; c < in->ncaches; c++)
			if (s->ca[c].have || s->ca[c].walking)
				*upstream += in->caches[c].walk;
	}
	free(s);
	return 0;
}
