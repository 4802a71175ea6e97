/*
 * What held each scheme at the dead site, and which left it first
 * (clocks_explain.h, struct clocks_explain; docs/clocks.md, "Explain"). Before the
 * pass over the requests, each client's causes are laid out in time, a
 * list of segments (until when, which cause and who) built from the run's
 * events alone: the anycast clients' from the detect clock and their
 * router's route (clocks_fib_left_site), the DNS clients' from their
 * dns_answer events (each answer, its TTL, the client's stickiness, the
 * cache it came from). The pass (the decay's, clocks_decay.c) then looks
 * each request to the dead site up in its client's segments: one small
 * table lookup and a cursor, for those requests only. Pure computation,
 * no I/O. The causes in words, and which scheme left first, are in
 * clocks_explain_words.c.
 */
#include "clocks_explain.h"

#include <arpa/inet.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "clocks_int.h"
#include "popseq.h"
#include "timeutil.h"

const char *const clocks_cause_names[CLOCKS_CAUSES] = {
    "detection",    "hold_timer", "routing",   "resolver_cache", "serve_stale",
    "client_cache", "sticky",	  "no_answer", "other",
};

const char *const clocks_cause_labels[CLOCKS_CAUSES] = {
    "probes counting to their threshold", "a router's hold timer", "route still to the site",
    "resolver cache inside its TTL",	  "serve-stale answer",	   "client's own cache",
    "sticky client past its TTL",	  "query unanswered",	   "not told",
};

/* one stretch of a client's time: until until_ns (exclusive), the cause
 * of entry (an index of the scheme's entries) */
struct clocks_seg {
	int64_t until_ns;
	int entry;
};

/* a client's segments, in time; a population's (pop) stand for all its
 * logical clients, those a sticky share holds (sticky_entry, -1: none) */
struct clocks_xclient {
	uint32_t id; /* a process client's id, a population's base */
	int pop;
	double sticky_share;
	int sticky_entry;
	int nseg, cap, cur;
	struct clocks_seg *seg;
};

struct clocks_explain_map {
	size_t n, cap;
	struct clocks_xclient *c; /* by id */
	int other;		  /* the entry of a request of no known client */
	struct {
		uint32_t id;
		int32_t at; /* -1: empty */
	} hot[256];
};

/* clocks_explain_entry: the entry (cause, who) of xs, added if new; the "other"
 * one when full */
static int clocks_explain_entry(struct clocks_explain_scheme *xs, enum clocks_cause cause,
				const char *who)
{
	for (int i = 0; i < xs->n; i++)
		if (xs->e[i].cause == cause && strcmp(xs->e[i].who, who) == 0)
			return i;
	if (xs->n == CLOCKS_EXPLAIN_MAX) {
		if (cause == CLOCKS_CAUSE_OTHER)
			return xs->n - 1;
		return clocks_explain_entry(xs, CLOCKS_CAUSE_OTHER, "(more)");
	}
	xs->e[xs->n].cause = cause;
	snprintf(xs->e[xs->n].who, sizeof(xs->e[0].who), "%s", who);
	xs->e[xs->n].requests = 0;
	xs->e[xs->n].first_ns = xs->e[xs->n].last_ns = CLOCKS_NONE;
	xs->e[xs->n].untold = 0;
	return xs->n++;
}

/* clocks_explain_client: the map's client of id (pop: a population's base), added */
static struct clocks_xclient *clocks_explain_client(struct clocks_explain_map *m, uint32_t id,
						    int pop)
{
	struct clocks_xclient *c;

	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 16;
		struct clocks_xclient *nc = realloc(m->c, cap * sizeof(*nc));

		if (nc == NULL)
			return NULL;
		m->c = nc;
		m->cap = cap;
	}
	c = &m->c[m->n++];
	memset(c, 0, sizeof(*c));
	c->id = id;
	c->pop = pop;
	c->sticky_entry = -1;
	return c;
}

/* clocks_explain_seg: the client's time up to until_ns held by entry (a segment
 * that ends no later than the previous one is dropped) */
static int clocks_explain_seg(struct clocks_xclient *c, int64_t until_ns, int entry)
{
	if (c->nseg && c->seg[c->nseg - 1].until_ns >= until_ns)
		return 0;
	if (c->nseg && c->seg[c->nseg - 1].entry == entry) {
		c->seg[c->nseg - 1].until_ns = until_ns;
		return 0;
	}
	if (c->nseg == c->cap) {
		int cap = c->cap ? 2 * c->cap : 4;
		struct clocks_seg *ns = realloc(c->seg, (size_t)cap * sizeof(*ns));

		if (ns == NULL)
			return -1;
		c->seg = ns;
		c->cap = cap;
	}
	c->seg[c->nseg++] = (struct clocks_seg){until_ns, entry};
	return 0;
}

static int clocks_explain_cmp(const void *a, const void *b)
{
	const struct clocks_xclient *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* explain_node: the node of client id (its agent's client_started) */
static const struct clocks_client *clocks_explain_info(const struct clocks_input *in, uint32_t id)
{
	uint32_t agent = wire_agent_of(id);

	for (size_t i = 0; i < in->nclients; i++)
		if (in->clients[i].id == agent)
			return &in->clients[i];
	return NULL;
}

/* clocks_explain_router: the router the client node is linked to (topology.ini's
 * link key), or the only router with FIB clocks; "" unknown */
static const char *clocks_explain_router(const struct clocks_input *in,
					 const struct clocks_fib *fib, const char *node)
{
	for (int k = 0; node && k < in->dnstopo.nclients; k++)
		if (strcmp(in->dnstopo.clients[k].name, node) == 0 &&
		    in->dnstopo.clients[k].router[0])
			return in->dnstopo.clients[k].router;
	if (fib && fib->nrouters == 1)
		return fib->routers[0].router;
	return "";
}

/* the routers' times the route stopped leading to the site, asked once */
struct clocks_explain_left {
	int n;
	char router[CLOCKS_MAX_ROUTERS][CLOCKS_NAME_MAX];
	int64_t at[CLOCKS_MAX_ROUTERS];
};

static int64_t clocks_explain_left_of(const struct clocks_input *in, const struct clocks_fib *fib,
				      struct clocks_explain_left *l, const char *router)
{
	for (int i = 0; i < l->n; i++)
		if (strcmp(l->router[i], router) == 0)
			return l->at[i];
	if (l->n == CLOCKS_MAX_ROUTERS)
		return INT64_MAX;
	snprintf(l->router[l->n], CLOCKS_NAME_MAX, "%s", router);
	l->at[l->n] = clocks_fib_left_site(in, router, in->failure.t0_ns, fib->until_ns);
	return l->at[l->n++];
}

/* clocks_explain_ids: the scheme's clients, sorted: the result's own list (its
 * last request to the dead site per client: no pass over the captures
 * again), else clocks_clients'. 0, or -1 (out of memory); free *ids */
static int clocks_explain_ids(const struct clocks_input *in, const struct clocks_flows *fl,
			      const struct clocks_result *r, uint32_t **ids, size_t *n)
{
	if (r->by_client == NULL)
		return clocks_clients(in, fl, ids, n);
	*n = r->nby_client;
	if ((*ids = malloc((*n ? *n : 1) * sizeof(**ids))) == NULL)
		return -1;
	for (size_t i = 0; i < *n; i++)
		(*ids)[i] = r->by_client[i].client;
	return 0;
}

/* clocks_explain_anycast: each anycast client's segments: detection (the site's
 * prober, or a router's hold timer), then its router's route still to the
 * site, then other (in flight). Also a DNS client's at a front door another
 * site kept serving (r->kept_by): routing moved it, detection the routers'
 * hold timer's when it was what withdrew the route. */
static int clocks_explain_anycast(const struct clocks_input *in, const struct clocks_result *r,
				  struct clocks_explain_scheme *xs)
{
	const struct clocks_flows *fl = r->kept_by[0] ? &clocks_dns_flows : &clocks_anycast_flows;
	struct clocks_explain_left *left = calloc(1, sizeof(*left));
	int64_t det_at = r->kept_by[0] ? CLOCKS_NONE : r->detect_at_ns;
	const char *who = in->failure.site;
	int hold = !r->kept_by[0] && r->detect_by_hold;
	uint32_t *ids = NULL;
	size_t nids = 0;
	int det = -1, rc = -1;

	if (left == NULL || clocks_explain_ids(in, fl, r, &ids, &nids) == -1)
		goto out;
	/* the router whose hold timer noticed it first */
	for (size_t i = 0; (hold || r->kept_by[0]) && i < in->nexpired; i++) {
		const struct clocks_dead *d = &in->expired[i];

		if (hold ? d->t_ns == det_at
			 : d->t_ns >= in->failure.t0_ns && strcmp(d->site, in->failure.site) == 0 &&
			       (det_at == CLOCKS_NONE || d->t_ns < det_at)) {
			who = d->node;
			det_at = d->t_ns;
			hold = 1;
		}
	}
	if (det_at != CLOCKS_NONE)
		det = clocks_explain_entry(xs, hold ? CLOCKS_CAUSE_HOLD : CLOCKS_CAUSE_DETECT, who);
	for (size_t i = 0; i < nids; i++) {
		const struct clocks_client *info = clocks_explain_info(in, ids[i]);
		const char *router = clocks_explain_router(in, r->fib, info ? info->node : NULL);
		int pop = clocks_pop_of(ids[i]);
		struct clocks_xclient *c;
		int64_t until;

		if (pop && i && clocks_pop_of(ids[i - 1]) &&
		    wire_agent_of(ids[i - 1]) == wire_agent_of(ids[i]))
			continue; /* the population has its segments */
		if ((c = clocks_explain_client(xs->map, pop ? wire_agent_of(ids[i]) : ids[i],
					       pop)) == NULL)
			goto out;
		if (det >= 0 && clocks_explain_seg(c, det_at, det) == -1)
			goto out;
		until = router[0] && r->fib ? clocks_explain_left_of(in, r->fib, left, router)
					    : INT64_MAX;
		if (until == CLOCKS_NONE)
			until = in->failure.t0_ns; /* its router did not lead there */
		if (clocks_explain_seg(c, until,
				       clocks_explain_entry(xs, CLOCKS_CAUSE_ROUTING,
							    router[0] ? router : "?")) == -1 ||
		    clocks_explain_seg(
			c, INT64_MAX,
			clocks_explain_entry(xs, CLOCKS_CAUSE_OTHER,
					     info && info->node[0] ? info->node : "?")) == -1)
			goto out;
	}
	rc = 0;
out:
	free(left);
	free(ids);
	return rc;
}

/* clocks_explain_cache: the name of the cache the client asks ("r1": its
 * [resolver] node and the cache's index), or "" when it asks no
 * [resolver] node (authd itself) */
static void clocks_explain_cache(const struct clocks_input *in, const struct clocks_client *info,
				 char *out, size_t len)
{
	struct in_addr a;
	int k;

	out[0] = '\0';
	if (info == NULL || inet_pton(AF_INET, info->resolver, &a) != 1 ||
	    (k = clocks_rsv_of_addr(in, a)) < 0)
		return;
	snprintf(out, len, "%s%u", in->dnstopo.rsv[k].name, (unsigned)(ntohl(a.s_addr) & 0xff));
}

/* clocks_explain_name_ttl: the steered name's TTL (topology.ini's [name]), -1 */
static int64_t clocks_explain_name_ttl(const struct clocks_input *in, const struct clocks_result *r)
{
	const struct clocks_topo_dns *t = &in->dnstopo;

	for (int i = 0; i < t->nnames; i++) {
		size_t n = strlen(t->names[i].name);

		if (strncmp(t->names[i].name, r->steer_name, n) == 0 &&
		    (r->steer_name[n] == '\0' || strcmp(r->steer_name + n, ".") == 0))
			return t->names[i].ttl_s;
	}
	return t->nnames == 1 ? t->names[0].ttl_s : -1;
}

/* a re-query's answer takes this long at most and the client still sends
 * to the address it has meanwhile (agents/client/dns.h): the cause before
 * it holds on; longer, the query went unanswered */
#define CLOCKS_EXPLAIN_REQUERY_NS (200 * NSEC_PER_MSEC)

/* clocks_explain_dns_source: why the client got answer b, the dead site's
 * address: a serve-stale answer; fresh from authd after t0 and before it
 * stopped handing the site out (detection: a full TTL, or no cache between);
 * else from its resolver's cache within the TTL, or (asking authd itself)
 * its own cache */
static int clocks_explain_dns_source(const struct clocks_input *in, const struct clocks_result *r,
				     struct clocks_explain_scheme *xs,
				     const struct clocks_dns_answer *b, const char *cache,
				     const char *node, int det, int64_t name_ttl)
{
	int64_t steer = r->steer_at_ns == CLOCKS_NONE ? INT64_MAX : r->steer_at_ns;

	if (b->stale)
		return clocks_explain_entry(xs, CLOCKS_CAUSE_STALE, cache[0] ? cache : node);
	if (det >= 0 && b->t_ns > in->failure.t0_ns && b->t_ns < steer &&
	    (!cache[0] || name_ttl < 0 || b->ttl_s >= name_ttl))
		return det;
	if (cache[0])
		return clocks_explain_entry(xs, CLOCKS_CAUSE_RESOLVER, cache);
	return clocks_explain_entry(xs, CLOCKS_CAUSE_CLIENT, node);
}

int64_t clocks_steer_ttl_s(const struct clocks_input *in, const struct clocks_result *dns)
{
	return clocks_explain_name_ttl(in, dns);
}

/* clocks_explain_dns_client: a DNS process client's segments, answer by answer:
 * each answer of the dead site's address held by its source for the TTL,
 * then (a sticky client) by its stickiness, then by the query that went
 * unanswered; another site's answer ends it (a request to the dead site
 * just after is one in flight, under the cause before) */
static int clocks_explain_dns_client(const struct clocks_input *in, const struct clocks_result *r,
				     struct clocks_explain_scheme *xs, struct clocks_xclient *c,
				     const struct clocks_client *info, int det, int64_t name_ttl)
{
	const char *node = info && info->node[0] ? info->node : "?";
	int64_t sticky = info ? info->sticky_ns : 0, hold_end = 0;
	int other = clocks_explain_entry(xs, CLOCKS_CAUSE_OTHER, node), last = other, dead = 0;
	char cache[CLOCKS_NAME_MAX + 8];
	int noanswer;

	clocks_explain_cache(in, info, cache, sizeof(cache));
	noanswer = clocks_explain_entry(xs, CLOCKS_CAUSE_NOANSWER, cache[0] ? cache : node);
	for (size_t i = 0; i <= in->ndanswers; i++) {
		const struct clocks_dns_answer *b = i < in->ndanswers ? &in->danswers[i] : NULL;
		int64_t next = b ? b->t_ns : INT64_MAX, ttl_end, hold;
		int src;

		if (b && b->client != c->id)
			continue;
		/* the time up to this answer, under the one before */
		if (dead) {
			if (clocks_explain_seg(c,
					       hold_end + CLOCKS_EXPLAIN_REQUERY_NS < next
						   ? hold_end + CLOCKS_EXPLAIN_REQUERY_NS
						   : next,
					       last) == -1 ||
			    clocks_explain_seg(c, next, noanswer) == -1)
				return -1;
		} else if (clocks_explain_seg(c, next, other) == -1) {
			return -1;
		}
		if (b == NULL)
			break;
		if (b->addr.s_addr != in->failure.address.s_addr) {
			/* in flight, a moment, then none to the dead site */
			if (dead &&
			    clocks_explain_seg(c, b->t_ns + CLOCKS_EXPLAIN_REQUERY_NS, last) == -1)
				return -1;
			dead = 0;
			continue;
		}
		src = clocks_explain_dns_source(in, r, xs, b, cache, node, det, name_ttl);
		/* as the client keeps it (agents/client/dns.c): its TTL, or
		 * its sticky time, at least 100 ms */
		ttl_end = b->t_ns + (b->ttl_s * NSEC_PER_SEC > 100 * NSEC_PER_MSEC
					 ? b->ttl_s * NSEC_PER_SEC
					 : 100 * NSEC_PER_MSEC);
		hold = sticky > 0 ? sticky : b->ttl_s * NSEC_PER_SEC;
		hold_end = b->t_ns + (hold > 100 * NSEC_PER_MSEC ? hold : 100 * NSEC_PER_MSEC);
		if (clocks_explain_seg(c, ttl_end < hold_end ? ttl_end : hold_end, src) == -1)
			return -1;
		last = src;
		if (sticky > 0 && hold_end > ttl_end) {
			last = clocks_explain_entry(xs, CLOCKS_CAUSE_STICKY, node);
			if (clocks_explain_seg(c, hold_end, last) == -1)
				return -1;
		}
		dead = 1;
	}
	/* no answer of the client's recorded: nothing to tell its time by */
	for (int k = 0; k < c->nseg; k++)
		if (c->seg[k].entry == other && c->nseg == 1)
			xs->e[other].untold = 1;
	return 0;
}

/* clocks_explain_dns: each DNS client's segments; a population's by its agent:
 * its sticky share sticky, the others its resolver's cache (their own
 * answers are not recorded one by one) */
static int clocks_explain_dns(const struct clocks_input *in, const struct clocks_result *r,
			      struct clocks_explain_scheme *xs)
{
	int64_t name_ttl = clocks_explain_name_ttl(in, r);
	uint32_t *ids = NULL;
	size_t nids = 0;
	int det = -1, rc = -1;

	if (clocks_explain_ids(in, &clocks_dns_flows, r, &ids, &nids) == -1)
		return -1;
	if (r->steer_at_ns != CLOCKS_NONE || r->detect_at_ns != CLOCKS_NONE)
		det = clocks_explain_entry(xs, CLOCKS_CAUSE_DETECT,
					   r->remote_prober[0] ? r->remote_prober : "authd");
	for (size_t i = 0; i < nids; i++) {
		const struct clocks_client *info = clocks_explain_info(in, ids[i]);
		int pop = clocks_pop_of(ids[i]);
		struct clocks_xclient *c;
		char cache[CLOCKS_NAME_MAX + 8];
		const char *node = info && info->node[0] ? info->node : "?";
		int rsv;

		if (pop && i && clocks_pop_of(ids[i - 1]) &&
		    wire_agent_of(ids[i - 1]) == wire_agent_of(ids[i]))
			continue;
		if ((c = clocks_explain_client(xs->map, pop ? wire_agent_of(ids[i]) : ids[i],
					       pop)) == NULL)
			goto out;
		if (!pop) {
			if (clocks_explain_dns_client(in, r, xs, c, info, det, name_ttl) == -1)
				goto out;
			continue;
		}
		rsv = clocks_rsv_of_client(in, ids[i]);
		snprintf(cache, sizeof(cache), "%s", rsv >= 0 ? in->dnstopo.rsv[rsv].name : "");
		if (info && info->sticky_ns > 0 && info->sticky_share > 0) {
			c->sticky_share = info->sticky_share;
			c->sticky_entry = clocks_explain_entry(xs, CLOCKS_CAUSE_STICKY, node);
		}
		if (clocks_explain_seg(
			c, INT64_MAX,
			cache[0] ? clocks_explain_entry(xs, CLOCKS_CAUSE_RESOLVER, cache)
				 : clocks_explain_entry(xs, CLOCKS_CAUSE_CLIENT, node)) == -1)
			goto out;
	}
	rc = 0;
out:
	free(ids);
	return rc;
}

int clocks_explain_init(const struct clocks_input *in, const struct clocks_result *res, int nres,
			struct clocks_explain *ex)
{
	memset(ex, 0, sizeof(*ex));
	ex->first = ex->back_first = -1;
	ex->recovered_ns =
	    in->failure.recovered_ns ? in->failure.recovered_ns - in->failure.t0_ns : CLOCKS_NONE;
	for (int i = 0; i < nres && i < CLOCKS_NSCHEMES; i++) {
		struct clocks_explain_scheme *xs = &ex->s[i];
		int dns = i == 1;

		xs->held = -1;
		xs->window_ns = res[i].window_ns;
		xs->lost = res[i].lost_capture;
		xs->without_ns = CLOCKS_NONE;
		xs->detect_ns = res[i].detect_ns;
		/* no requests to the dead site can be told without its
		 * capture, nor DNS ones without its address */
		if (res[i].noflows || res[i].window_ns == CLOCKS_NONE ||
		    (dns && !in->failure.has_address))
			continue;
		if ((xs->map = calloc(1, sizeof(*xs->map))) == NULL)
			return -1;
		for (int k = 0; k < 256; k++)
			xs->map->hot[k].at = -1;
		if ((dns && !res[i].kept_by[0] ? clocks_explain_dns(in, &res[i], xs)
					       : clocks_explain_anycast(in, &res[i], xs)) == -1)
			return -1;
		xs->map->other = clocks_explain_entry(xs, CLOCKS_CAUSE_OTHER, "?");
		qsort(xs->map->c, xs->map->n, sizeof(*xs->map->c), clocks_explain_cmp);
		xs->present = 1;
	}
	return 0;
}

void clocks_explain_free(struct clocks_explain *ex)
{
	for (int i = 0; i < CLOCKS_NSCHEMES; i++) {
		struct clocks_explain_map *m = ex->s[i].map;

		for (size_t k = 0; m && k < m->n; k++)
			free(m->c[k].seg);
		if (m)
			free(m->c);
		free(m);
		ex->s[i].map = NULL;
	}
}

/* clocks_explain_find: the client a request of id belongs to (a population's
 * logical client: its agent), through a small table of the last ones */
static struct clocks_xclient *clocks_explain_find(struct clocks_explain_map *m, uint32_t id)
{
	uint32_t key = wire_agent_of(id);
	unsigned h = (key ^ key >> 17) & 0xff;
	struct clocks_xclient k = {.id = key}, *c;

	if (m->hot[h].at >= 0 && m->hot[h].id == key)
		return &m->c[m->hot[h].at];
	c = bsearch(&k, m->c, m->n, sizeof(*m->c), clocks_explain_cmp);
	if (c) {
		m->hot[h].id = key;
		m->hot[h].at = (int32_t)(c - m->c);
	}
	return c;
}

enum clocks_cause clocks_explain_count(struct clocks_explain_scheme *xs,
				       const struct clocks_packet *p, int64_t t0)
{
	struct clocks_xclient *c = clocks_explain_find(xs->map, p->client);
	int64_t t = p->t_ns, rel = t - t0;
	struct clocks_cause_entry *e;
	int at = xs->map->other;

	if (c && c->sticky_entry >= 0 &&
	    pop_sticky(p->client & WIRE_POP_INDEX_MASK, c->sticky_share)) {
		at = c->sticky_entry;
	} else if (c && c->nseg) {
		/* a client's requests come in time order: its cursor moves on */
		if (c->pop || (c->cur > 0 && t < c->seg[c->cur - 1].until_ns))
			c->cur = 0;
		while (c->cur < c->nseg - 1 && t >= c->seg[c->cur].until_ns)
			c->cur++;
		at = c->seg[c->cur].entry;
	}
	e = &xs->e[at];
	e->requests++;
	if (e->first_ns == CLOCKS_NONE || rel < e->first_ns)
		e->first_ns = rel;
	if (e->last_ns == CLOCKS_NONE || rel > e->last_ns)
		e->last_ns = rel;
	return e->cause;
}
