/* The iterative walk from the root hints; see iter.h. */
#include "iter.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"
#include "deleg.h"
#include "iter_msg.h"
#include "log.h"
#include "msg.h"
#include "upstream_int.h"

struct rsv_walk {
	struct rsv_key client;			 /* the client's question, unscoped */
	struct rsv_ecs ecs;			 /* the client's subnet, */
	int has_ecs;				 /* if passed on */
	uint8_t scope;				 /* the answer's: its most specific link's */
	struct rsv_key goal[RSV_ITER_DEPTH];	 /* [0] the client's (then CNAME targets) */
	int depth;				 /* the goal being resolved */
	struct rsv_key ask;			 /* the question of the current query */
	knot_dname_storage_t zone;		 /* the cut asked */
	struct sockaddr_in srv[RSV_ITER_NS_MAX]; /* its servers (IPv6: srv6, config.h) */
	struct sockaddr_in6 srv6[RSV_ITER_NS_MAX];
	int nsrv, first;
	unsigned qlabels; /* minimising: the labels asked; 0: the full name */
	unsigned queries;
	int nlinks; /* the chain so far, each link as stored */
	uint8_t *link[RSV_ITER_CHAIN_MAX + 1];
	size_t link_len[RSV_ITER_CHAIN_MAX + 1];
	uint32_t link_ttl[RSV_ITER_CHAIN_MAX + 1];
	knot_dname_storage_t bad[RSV_ITER_NS_MAX]; /* NS names that did not resolve */
	knot_dname_storage_t climbed;		   /* the last cut left for its parent */
	int nbad;
};

enum { RSV_ITER_GOING, RSV_ITER_DONE };

static int rsv_iter_step(struct rsv_pending *p);

void rsv_iter_free(struct rsv_pending *p)
{
	struct rsv_walk *w = p->walk;

	if (w == NULL)
		return;
	for (int i = 0; i < w->nlinks; i++)
		free(w->link[i]);
	free(w);
	p->walk = NULL;
}

const char *rsv_iter_zone(const struct rsv_pending *p, char *buf, size_t len)
{
	if (p->walk == NULL || knot_dname_to_str(buf, p->walk->zone, len) == NULL)
		snprintf(buf, len, "?");
	return buf;
}

/* rsv_iter_add_link: a copy of a stored chain link and its TTL left. */
static int rsv_iter_add_link(struct rsv_walk *w, const uint8_t *msg, size_t len, uint32_t ttl)
{
	if (w->nlinks > RSV_ITER_CHAIN_MAX || (w->link[w->nlinks] = malloc(len)) == NULL)
		return -1;
	memcpy(w->link[w->nlinks], msg, len);
	w->link_len[w->nlinks] = len;
	w->link_ttl[w->nlinks++] = ttl;
	return 0;
}

/* rsv_iter_answer_waiters: every waiter of p answered from links (parsed
 * messages) with their TTLs; or with SERVFAIL if n is 0. */
static void rsv_iter_answer_waiters(struct rsv_pending *p, knot_pkt_t *const *links,
				    const uint32_t *ttls, int n, int stale)
{
	struct rsv_inst *in = p->inst;
	uint8_t *buf = rsv_srv_scratch(in->ctx);

	for (struct rsv_waiter *wt = p->waiters; wt; wt = wt->next) {
		knot_pkt_t *q = rsv_msg_parse(wt->query, wt->len);
		size_t max;
		int rc;

		if (q == NULL)
			continue;
		max = rsv_msg_max_size(q, wt->who.tcp);
		if (n > 0) {
			struct rsv_msg_ecs echo;
			int e = rsv_iter_echo(q, &echo, p->walk->scope);

			rc = rsv_msg_answer_chain(q, links, ttls, n, stale, e ? &echo : NULL, buf,
						  max);
		} else {
			rc = rsv_msg_error(q, q->wire, q->size, KNOT_RCODE_SERVFAIL, buf, max);
		}
		if (rc > 0)
			rsv_srv_reply(in, &wt->who, buf, (size_t)rc);
		if (n == 0)
			in->n.servfail++;
		else if (stale)
			in->n.stale_answers++;
		knot_pkt_free(q);
	}
}

/* rsv_iter_complete: the chain is whole: p's waiters get it. */
static int rsv_iter_complete(struct rsv_pending *p)
{
	struct rsv_walk *w = p->walk;
	knot_pkt_t *links[RSV_ITER_CHAIN_MAX + 1];
	int n = 0;

	for (; n < w->nlinks; n++)
		if ((links[n] = rsv_msg_parse(w->link[n], w->link_len[n])) == NULL)
			break;
	if (n == w->nlinks)
		rsv_iter_answer_waiters(p, links, w->link_ttl, n, 0);
	else
		rsv_iter_answer_waiters(p, NULL, NULL, 0, 0);
	while (n-- > 0)
		knot_pkt_free(links[n]);
	return RSV_ITER_DONE;
}

/* rsv_iter_fail: the walk cannot go on. A goal resolving an NS name gives
 * way to the next; the client's own goal fails: stale or SERVFAIL. */
static int rsv_iter_fail(struct rsv_pending *p)
{
	struct rsv_walk *w = p->walk;
	struct rsv_inst *in = p->inst;
	char key[300];

	if (w->depth > 0 && w->queries < RSV_ITER_MAX_QUERIES) {
		if (w->nbad < RSV_ITER_NS_MAX &&
		    knot_dname_store(w->bad[w->nbad], w->goal[w->depth].name) > 0)
			w->nbad++;
		w->depth--;
		return rsv_iter_step(p);
	}
	log_debug("%s: %s: the walk failed after %u queries", in->conf->name,
		  rsv_msg_key_str(&p->key, key, sizeof(key)), w->queries);
	if (p->nwait == 0)
		return RSV_ITER_DONE; /* a prefetch: the entry is left as it is */
	for (struct rsv_waiter *wt = p->waiters; wt; wt = wt->next) {
		knot_pkt_t *q = rsv_msg_parse(wt->query, wt->len);
		uint8_t *buf = rsv_srv_scratch(in->ctx);
		int rc;

		if (q == NULL)
			continue;
		rc = rsv_iter_cached(in, q, &w->client, 1, w->has_ecs ? &w->ecs : NULL, buf,
				     rsv_msg_max_size(q, wt->who.tcp));
		if (rc > 0) {
			in->n.stale_answers++;
		} else {
			rc = rsv_msg_error(q, q->wire, q->size, KNOT_RCODE_SERVFAIL, buf,
					   rsv_msg_max_size(q, wt->who.tcp));
			in->n.servfail++;
		}
		if (rc > 0)
			rsv_srv_reply(in, &wt->who, buf, (size_t)rc);
		knot_pkt_free(q);
	}
	return RSV_ITER_DONE;
}

/* rsv_iter_send: the current attempt of the step, to its server. */
static void rsv_iter_send(struct rsv_pending *p)
{
	struct rsv_walk *w = p->walk;
	int i = (w->first + (int)p->attempt - 1) % w->nsrv;

	p->to = w->srv[i];
	p->to6 = w->srv6[i];
	w->queries++;
	rsv_up_send(p);
}

static int rsv_iter_is_bad(const struct rsv_walk *w, const knot_dname_t *name)
{
	for (int i = 0; i < w->nbad; i++)
		if (knot_dname_is_equal(w->bad[i], name))
			return 1;
	for (int i = 0; i <= w->depth; i++)
		if (knot_dname_is_equal(w->goal[i].name, name))
			return 1; /* resolving it already: a loop */
	return 0;
}

/* rsv_iter_addr_type: the type of the server addresses the walk follows:
 * AAAA with transport = 6, else A. */
static uint16_t rsv_iter_addr_type(const struct rsv_conf *conf)
{
	return conf->transport == 6 ? KNOT_RRTYPE_AAAA : KNOT_RRTYPE_A;
}

/* rsv_iter_servers: the cut to ask for the current goal, and its servers;
 * an NS name without an address becomes the goal first. A cut none of
 * whose servers can be reached (glue expired, or their names inside it
 * or being resolved) gives way to its parent, which refers again; no cut
 * known: the root hints. */
static int rsv_iter_servers(struct rsv_pending *p)
{
	struct rsv_walk *w = p->walk;
	struct rsv_inst *in = p->inst;
	const struct rsv_conf *conf = in->ctx->conf;
	uint16_t type = rsv_iter_addr_type(conf);
	struct rsv_deleg_servers s;
	knot_dname_storage_t from;

	memcpy(from, w->goal[w->depth].name, w->goal[w->depth].len);
	for (;;) {
		int pushed = 0;

		if (!rsv_deleg_closest_type(&in->deleg, from, type, in->ctx->now, &s))
			break;
		if (s.naddr > 0) {
			memcpy(w->zone, s.cut, knot_dname_size(s.cut));
			w->nsrv = s.naddr;
			for (int i = 0; i < s.naddr; i++) {
				struct sockaddr_in6 sin6 = {.sin6_family = AF_INET6,
							    .sin6_port = htons(53),
							    .sin6_addr = s.addr6[i]};

				if (type == KNOT_RRTYPE_AAAA)
					rsv_sa_set(&w->srv[i], &w->srv6[i],
						   (const struct sockaddr *)&sin6);
				else
					w->srv[i] = (struct sockaddr_in){.sin_family = AF_INET,
									 .sin_port = htons(53),
									 .sin_addr = s.addr[i]};
			}
			return 0;
		}
		/* no glue: resolve a server's name, unless it is inside the
		 * cut (it cannot be without glue) */
		for (int i = 0; i < s.nmissing && !pushed; i++) {
			if (rsv_iter_under(s.missing[i], s.cut) ||
			    rsv_iter_is_bad(w, s.missing[i]) || w->depth + 1 >= RSV_ITER_DEPTH)
				continue;
			w->depth++;
			rsv_cache_key(&w->goal[w->depth], s.missing[i],
				      knot_dname_size(s.missing[i]), type, KNOT_CLASS_IN);
			memcpy(from, s.missing[i], knot_dname_size(s.missing[i]));
			pushed = 1;
		}
		if (!pushed) {
			const knot_dname_t *parent = knot_wire_next_label(s.cut, NULL);

			/* the parent referred here again, to no avail: a loop */
			if (w->climbed[0] != 0 && knot_dname_is_equal(w->climbed, s.cut))
				return -1;
			memcpy(w->climbed, s.cut, knot_dname_size(s.cut));
			memmove(from, parent, knot_dname_size(parent));
		}
	}
	w->zone[0] = 0;
	w->nsrv = conf->nroot;
	memcpy(w->srv, conf->root, (size_t)conf->nroot * sizeof(conf->root[0]));
	memcpy(w->srv6, conf->root6, (size_t)conf->nroot * sizeof(conf->root6[0]));
	return 0;
}

/* rsv_iter_set_ask: the question of the step: the goal, or with
 * qname_minimisation one label more than asked so far (QTYPE A). */
static void rsv_iter_set_ask(struct rsv_pending *p)
{
	struct rsv_walk *w = p->walk;
	const struct rsv_key *g = &w->goal[w->depth];
	unsigned gl = (unsigned)knot_dname_labels(g->name, NULL);
	knot_dname_storage_t n;

	if (!p->inst->ctx->conf->qname_minimisation || w->qlabels == 0 || w->qlabels >= gl) {
		w->qlabels = 0;
		w->ask = *g;
		return;
	}
	rsv_iter_qmin_name(g->name, w->qlabels, n);
	rsv_cache_key(&w->ask, n, knot_dname_size(n), KNOT_RRTYPE_A, KNOT_CLASS_IN);
}

/* rsv_iter_step: the next step of the walk: a new query to the closest
 * cut's servers. */
static int rsv_iter_step(struct rsv_pending *p)
{
	struct rsv_walk *w = p->walk;

	if (w->queries >= RSV_ITER_MAX_QUERIES)
		return rsv_iter_fail(p);
	if (rsv_iter_servers(p) == -1)
		return rsv_iter_fail(p);
	w->qlabels = (unsigned)knot_dname_labels(w->zone, NULL) + 1;
	rsv_iter_set_ask(p);
	rsv_up_new_id(p);
	w->first = (int)(p->id % (unsigned)w->nsrv);
	p->attempt = 1;
	p->tcp = 0;
	rsv_iter_send(p);
	return RSV_ITER_GOING;
}

int rsv_iter_start(struct rsv_pending *p)
{
	struct rsv_inst *in = p->inst;
	struct rsv_walk *w = calloc(1, sizeof(*w));
	knot_dname_storage_t target;

	if (w == NULL)
		return -1;
	p->walk = w;
	p->ask = &w->ask;
	w->client = p->key;
	/* a scoped key: the subnet in its first label */
	w->has_ecs = rsv_iter_key_ecs(&p->key, &w->client, &w->ecs);
	w->goal[0] = w->client;
	/* the links of the chain still fresh are not asked again; a
	 * prefetch refreshes the first one */
	while (p->reason != RSV_REASON_PREFETCH && w->nlinks < RSV_ITER_CHAIN_MAX) {
		struct rsv_lookup l;
		knot_pkt_t *m;
		int more;

		struct rsv_key lk;

		rsv_iter_lookup(in, &w->goal[0], w->has_ecs ? &w->ecs : NULL, &l, &lk);
		if (l.result != RSV_HIT ||
		    (m = rsv_msg_parse(l.entry->msg, l.entry->msg_len)) == NULL)
			break;
		more = rsv_iter_chain_next(m, &w->goal[0], target);
		knot_pkt_free(m);
		if (!more || rsv_iter_add_link(w, l.entry->msg, l.entry->msg_len, l.ttl) == -1)
			break;
		rsv_cache_key(&w->goal[0], target, knot_dname_size(target), w->client.type,
			      w->client.cls);
	}
	if (rsv_iter_step(p) == RSV_ITER_DONE) {
		/* no server to ask: failed at the next tick, once the client
		 * waits on it */
		w->depth = 0;
		rsv_up_fail_soon(p);
	}
	return 0;
}

/* rsv_iter_echoes: does a server's option got echo the subnet e asked
 * (family, source and address)? */
static int rsv_iter_echoes(const struct rsv_msg_ecs *got, const struct rsv_ecs *e)
{
	if (got->v6 != e->v6 || got->source != e->source)
		return 0;
	return got->v6 ? memcmp(&got->addr6, &e->addr6, sizeof(got->addr6)) == 0
		       : got->addr.s_addr == e->addr.s_addr;
}

/* rsv_iter_store: the link the verdict v makes of r, stored under the
 * goal's key and added to the chain. 0, or -1. */
static int rsv_iter_store(struct rsv_pending *p, const knot_pkt_t *r,
			  const struct rsv_iter_verdict *v)
{
	struct rsv_walk *w = p->walk;
	struct rsv_inst *in = p->inst;
	const struct rsv_key *g = &w->goal[0];
	static const enum rsv_kind kinds[] = {
	    [RSV_ITER_ANSWER] = RSV_POSITIVE,
	    [RSV_ITER_CNAME] = RSV_POSITIVE,
	    [RSV_ITER_NXDOMAIN] = RSV_NXDOMAIN,
	    [RSV_ITER_NODATA] = RSV_NODATA,
	};
	uint8_t buf[KNOT_WIRE_MAX_PKTSIZE];
	struct rsv_entry *e = NULL;
	struct rsv_key key = *g;
	struct rsv_msg_ecs got;
	uint8_t scope;
	uint32_t ttl = 0;
	int n = rsv_iter_synth(r, w->zone, g, v, buf, sizeof(buf));

	if (n <= 0)
		return -1;
	/* RFC 7871 7.3.1: cached for the scope the server gave, at most the
	 * source sent */
	scope = w->has_ecs && rsv_iter_ecs_opt(r, &got) && rsv_iter_echoes(&got, &w->ecs)
		    ? (got.scope < got.source ? got.scope : got.source)
		    : 0;
	if (scope > 0 && rsv_iter_ecs_key(g, &w->ecs, scope, &key) == 0) {
		if (w->ecs.v6)
			in->ecs_scopes6 |= 1ull << scope;
		else
			in->ecs_scopes |= 1u << scope;
		if (scope > w->scope)
			w->scope = scope;
	}
	if (v->kind != RSV_ITER_NOSOA) {
		if (rsv_cache_store(&in->cache, &key, kinds[v->kind], v->ttl, buf, (size_t)n,
				    in->ctx->now, &e) == -1)
			log_warnx("%s: out of memory storing an answer", in->conf->name);
		ttl = e ? rsv_cache_ttl_left(e, in->ctx->now) : 0;
	}
	return rsv_iter_add_link(w, buf, (size_t)n, ttl);
}

/* rsv_iter_ns_resolved: an NS name's goal is answered: its addresses go
 * to the delegation cache and the walk goes back to the goal below. */
static int rsv_iter_ns_resolved(struct rsv_pending *p, const knot_pkt_t *r,
				const struct rsv_iter_verdict *v)
{
	struct rsv_walk *w = p->walk;
	const struct rsv_key *g = &w->goal[w->depth];
	const knot_pktsection_t *an = knot_pkt_section(r, KNOT_ANSWER);
	int stored = 0;

	for (uint16_t i = 0; v->kind == RSV_ITER_ANSWER && v->links == 0 && i < an->count; i++) {
		const knot_rrset_t *rr = knot_pkt_rr(an, i);

		/* the type asked: A, or AAAA with transport = 6 */
		if (rr->type == g->type && knot_dname_is_case_equal(rr->owner, g->name) &&
		    rsv_deleg_store_addr(&p->inst->deleg, r, KNOT_ANSWER, rr, p->inst->ctx->now) ==
			0)
			stored = 1;
		if (stored)
			break;
	}
	if (!stored)
		return rsv_iter_fail(p);
	w->depth--;
	return rsv_iter_step(p);
}

/* rsv_iter_minimised: the answer to a minimised question. */
static int rsv_iter_minimised(struct rsv_pending *p, const knot_pkt_t *r,
			      const struct rsv_iter_verdict *v)
{
	struct rsv_walk *w = p->walk;
	struct rsv_iter_verdict full;

	if (v->kind == RSV_ITER_NXDOMAIN) {
		/* nothing below a name that does not exist (RFC 8020) */
		full = *v;
		if (w->depth > 0)
			return rsv_iter_fail(p);
		if (rsv_iter_store(p, r, &full) == -1)
			return rsv_iter_fail(p);
		return rsv_iter_complete(p);
	}
	/* no cut here: one label more, from the same servers */
	w->qlabels++;
	rsv_iter_set_ask(p);
	if (w->queries >= RSV_ITER_MAX_QUERIES)
		return rsv_iter_fail(p);
	rsv_up_new_id(p);
	p->attempt = 1;
	p->tcp = 0;
	rsv_iter_send(p);
	return RSV_ITER_GOING;
}

int rsv_iter_answer(struct rsv_pending *p, const knot_pkt_t *r, const uint8_t *wire, size_t len)
{
	struct rsv_walk *w = p->walk;
	struct rsv_inst *in = p->inst;
	struct rsv_iter_verdict v;
	uint8_t buf[KNOT_WIRE_MAX_PKTSIZE];
	int n;

	(void)wire, (void)len;
	switch (rsv_iter_judge(r, w->zone, &w->ask, &v)) {
	case RSV_ITER_FAILURE:
	case RSV_ITER_LAME:
		return rsv_iter_attempt_failed(p);
	case RSV_ITER_REFERRAL:
		n = rsv_iter_synth_glue(r, w->zone, &w->ask, &v, rsv_iter_addr_type(in->ctx->conf),
					buf, sizeof(buf));
		if (n <= 0 || rsv_deleg_store(&in->deleg, buf, (size_t)n, in->ctx->now) == -1)
			return rsv_iter_attempt_failed(p);
		return rsv_iter_step(p);
	default:
		break;
	}
	if (w->qlabels != 0)
		return rsv_iter_minimised(p, r, &v);
	if (w->depth > 0)
		return rsv_iter_ns_resolved(p, r, &v);
	if (rsv_iter_store(p, r, &v) == -1)
		return rsv_iter_fail(p);
	if (v.kind != RSV_ITER_CNAME)
		return rsv_iter_complete(p);
	if (w->nlinks > RSV_ITER_CHAIN_MAX)
		return rsv_iter_fail(p); /* too long, or a loop */
	/* the client's class, not p's key's: that is a scoped key's with ECS */
	rsv_cache_key(&w->goal[0], v.target, knot_dname_size(v.target), w->client.type,
		      w->client.cls);
	return rsv_iter_step(p);
}

int rsv_iter_attempt_failed(struct rsv_pending *p)
{
	struct rsv_walk *w = p->walk;
	const struct rsv_conf *conf = p->inst->ctx->conf;

	rsv_up_unqueue(p);
	if (p->doomed) {
		w->depth = 0;
		return rsv_iter_fail(p);
	}
	if (p->attempt <= conf->retries && w->queries < RSV_ITER_MAX_QUERIES) {
		p->attempt++;
		p->tcp = 0;
		rsv_iter_send(p);
		return RSV_ITER_GOING;
	}
	return rsv_iter_fail(p);
}

int rsv_iter_wire(const struct rsv_pending *p, uint8_t *out, size_t max)
{
	const struct rsv_walk *w = p->walk;
	int full = w->depth == 0 && w->qlabels == 0;
	struct rsv_msg_ecs e = {0};

	if (w->has_ecs && full && w->ecs.v6) {
		e.v6 = 1;
		e.addr6 = w->ecs.addr6;
		e.source = w->ecs.source;
		rsv_iter_mask6(&e.addr6, e.source);
		return rsv_msg_query(&w->ask, p->id, &e, out, max);
	}
	if (w->has_ecs && full)
		return rsv_iter_query(&w->ask, p->id, &w->ecs.addr, w->ecs.source, out, max);
	return rsv_iter_query(&w->ask, p->id, NULL, 0, out, max);
}
