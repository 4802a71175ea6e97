/* What a resolver does with a query and with the upstream's answer; see
 * resolver.h. */
#include "resolver.h"

#include <stdlib.h>
#include <string.h>

#include "ctx.h"
#include "iter.h"
#include "log.h"
#include "msg.h"

/* rsv_answer_from: the answer to q from the stored message of e. */
static int rsv_answer_from(const knot_pkt_t *q, const struct rsv_entry *e, uint32_t ttl, int stale,
			   uint8_t *out, size_t max)
{
	knot_pkt_t *src = rsv_msg_parse(e->msg, e->msg_len);
	int n;

	if (src == NULL)
		return -1;
	n = rsv_msg_answer(q, src, ttl, stale, out, max);
	knot_pkt_free(src);
	return n;
}

/* rsv_reply_error: SERVFAIL & co to q; 0 if even that failed. */
static size_t rsv_reply_error(const knot_pkt_t *q, int rcode, uint8_t *out, size_t max)
{
	int n = rsv_msg_error(q, q->wire, q->size, rcode, out, max);

	return n > 0 ? (size_t)n : 0;
}

/* rsv_overloaded: no upstream query possible for q (key k; when
 * iterating, of a client of subnet ecs): stale if allowed. */
static size_t rsv_overloaded(struct rsv_inst *in, const knot_pkt_t *q, const struct rsv_key *k,
			     const struct rsv_ecs *ecs, uint8_t *out, size_t max)
{
	struct rsv_entry *e = rsv_cache_fail(&in->cache, k, in->ctx->now);
	struct rsv_key plain;
	int n;

	in->n.overloaded++;
	if (in->ctx->conf->mode == RSV_MODE_ITERATE)
		n = rsv_msg_key(q, &plain) == 0 ? rsv_iter_cached(in, q, &plain, 1, ecs, out, max)
						: 0;
	else if (e)
		n = rsv_answer_from(q, e, in->cache.cfg.stale_ttl, 1, out, max);
	else
		n = 0;
	if (n > 0) {
		in->n.stale_answers++;
		return (size_t)n;
	}
	in->n.servfail++;
	return rsv_reply_error(q, KNOT_RCODE_SERVFAIL, out, max);
}

/* rsv_miss: q is not answered from the cache: wait for the upstream. */
static size_t rsv_miss(struct rsv_inst *in, const knot_pkt_t *q, const struct rsv_key *k,
		       const struct rsv_ecs *ecs, const struct rsv_client *who, uint8_t *out,
		       size_t max)
{
	struct rsv_pending *p = rsv_up_find(in, k);

	in->n.misses++;
	if (p)
		in->n.coalesced++;
	else if ((p = rsv_up_start(in, k, RSV_REASON_MISS)) == NULL)
		return rsv_overloaded(in, q, k, ecs, out, max);
	if (rsv_up_wait(p, who, q->wire, q->size) == -1)
		return rsv_overloaded(in, q, k, ecs, out, max);
	return 0;
}

size_t rsv_client_query(struct rsv_inst *in, const uint8_t *wire, size_t len,
			const struct rsv_client *who, uint8_t *out, size_t max)
{
	struct rsv_lookup l;
	struct rsv_key k, lk, pk;
	const struct rsv_key *kp, *hk; /* the key to resolve under; of the entry found */
	struct rsv_ecs ecs, *e = NULL;
	uint8_t *copy;
	knot_pkt_t *q = rsv_msg_parse_query(wire, len, &copy);
	size_t n = 0;
	int rc, iter;

	if (q == NULL) {
		in->n.bad++;
		/* a header that is a query gets FORMERR; anything else nothing */
		if (len >= KNOT_WIRE_HEADER_SIZE && !knot_wire_get_qr(wire))
			rc = rsv_msg_error(NULL, wire, len, KNOT_RCODE_FORMERR, out, max);
		else
			rc = 0;
		return rc > 0 ? (size_t)rc : 0;
	}
	if ((rc = rsv_msg_check_query(q)) != 0 || rsv_msg_key(q, &k) == -1) {
		in->n.bad++;
		if (rc != -1)
			n = rsv_reply_error(q, rc ? rc : KNOT_RCODE_FORMERR, out, max);
		goto out;
	}
	max = rsv_msg_max_size(q, who->tcp) < max ? rsv_msg_max_size(q, who->tcp) : max;
	iter = in->ctx->conf->mode == RSV_MODE_ITERATE;
	if (iter && k.cls != KNOT_CLASS_IN) {
		in->n.bad++; /* the walk knows the IN tree only */
		n = rsv_reply_error(q, KNOT_RCODE_REFUSED, out, max);
		goto out;
	}
	in->n.queries++;
	if (iter) {
		if (in->ctx->conf->ecs && rsv_iter_client_ecs(q, who, &ecs))
			e = &ecs;
		rsv_iter_lookup(in, &k, e, &l, &lk);
		if (e == NULL || rsv_iter_ecs_key(&k, e, e->source, &pk) == -1)
			pk = k;
		kp = &pk;
		hk = &lk;
	} else {
		rsv_cache_lookup(&in->cache, &k, in->ctx->now, &l);
		kp = hk = &k;
	}
	switch (l.result) {
	case RSV_HIT:
		/* iterating, the answer is the chain from k, every link fresh */
		rc = iter ? rsv_iter_cached(in, q, &k, 0, e, out, max)
			  : rsv_answer_from(q, l.entry, l.ttl, 0, out, max);
		if (rc <= 0) {
			n = rsv_miss(in, q, kp, e, who, out, max);
			break;
		}
		in->n.hits++;
		if (l.entry->kind != RSV_POSITIVE)
			in->n.negative_hits++;
		n = (size_t)rc;
		if (l.prefetch && rsv_up_find(in, hk) == NULL &&
		    rsv_up_start(in, hk, RSV_REASON_PREFETCH) != NULL)
			in->n.prefetches++;
		break;
	case RSV_STALE:
		rc = iter ? rsv_iter_cached(in, q, &k, 1, e, out, max)
			  : rsv_answer_from(q, l.entry, l.ttl, 1, out, max);
		if (rc <= 0) {
			n = rsv_miss(in, q, kp, e, who, out, max);
			break;
		}
		in->n.stale_answers++;
		n = (size_t)rc;
		break;
	case RSV_MISS:
	case RSV_EXPIRED:
		n = rsv_miss(in, q, kp, e, who, out, max);
		break;
	}
out:
	knot_pkt_free(q);
	free(copy);
	return n;
}

/* rsv_answer_waiters: each waiter of p answered from src with ttl; or, if
 * src is NULL, with rcode. */
static void rsv_answer_waiters(struct rsv_pending *p, const knot_pkt_t *src, uint32_t ttl,
			       int stale, int rcode)
{
	struct rsv_inst *in = p->inst;
	uint8_t *buf = rsv_srv_scratch(in->ctx);

	for (struct rsv_waiter *w = p->waiters; w; w = w->next) {
		knot_pkt_t *q = rsv_msg_parse(w->query, w->len);
		size_t max;
		int n;

		if (q == NULL)
			continue;
		max = rsv_msg_max_size(q, w->who.tcp);
		if (src)
			n = rsv_msg_answer(q, src, ttl, stale, buf, max);
		else
			n = rsv_msg_error(q, q->wire, q->size, rcode, buf, max);
		if (n > 0)
			rsv_srv_reply(in, &w->who, buf, (size_t)n);
		if (stale)
			in->n.stale_answers++;
		else if (src == NULL)
			in->n.servfail++;
		knot_pkt_free(q);
	}
}

void rsv_failed(struct rsv_pending *p)
{
	struct rsv_inst *in = p->inst;
	struct rsv_entry *e;
	knot_pkt_t *src;
	char key[300];

	if (p->nwait == 0)
		return; /* a prefetch: the entry is left as it is */
	e = rsv_cache_fail(&in->cache, &p->key, in->ctx->now);
	if (e && (src = rsv_msg_parse(e->msg, e->msg_len)) != NULL) {
		log_debug("%s: %s: upstream failed, %u stale answers", in->conf->name,
			  rsv_msg_key_str(&p->key, key, sizeof(key)), p->nwait);
		rsv_answer_waiters(p, src, in->cache.cfg.stale_ttl, 1, 0);
		knot_pkt_free(src);
		return;
	}
	log_debug("%s: %s: upstream failed, %u SERVFAIL", in->conf->name,
		  rsv_msg_key_str(&p->key, key, sizeof(key)), p->nwait);
	rsv_answer_waiters(p, NULL, 0, 0, KNOT_RCODE_SERVFAIL);
}

void rsv_resolved(struct rsv_pending *p, const knot_pkt_t *r, const uint8_t *wire, size_t len)
{
	struct rsv_inst *in = p->inst;
	static const enum rsv_kind kinds[] = {
	    [RSV_CLASS_POSITIVE] = RSV_POSITIVE,
	    [RSV_CLASS_NXDOMAIN] = RSV_NXDOMAIN,
	    [RSV_CLASS_NODATA] = RSV_NODATA,
	};
	enum rsv_class cls;
	struct rsv_entry *e = NULL;
	uint32_t ttl;
	int rc;

	cls = rsv_msg_classify(r, &ttl);
	switch (cls) {
	case RSV_CLASS_FAILURE: /* RFC 8767 4: not a refresh */
		rsv_failed(p);
		return;
	case RSV_CLASS_UNCACHEABLE:
		rsv_answer_waiters(p, r, RSV_TTL_KEEP, 0, 0);
		return;
	case RSV_CLASS_POSITIVE:
	case RSV_CLASS_NXDOMAIN:
	case RSV_CLASS_NODATA:
		break;
	}
	rc = rsv_cache_store(&in->cache, &p->key, kinds[cls], ttl, wire, len, in->ctx->now, &e);
	if (rc == -1)
		log_warnx("%s: out of memory storing an answer", in->conf->name);
	rsv_answer_waiters(p, r, e ? rsv_cache_ttl_left(e, in->ctx->now) : 0, 0, 0);
}
