/* The cache as the walk leaves it: chains link by link, ECS scopes; see iter.h. */
#include "iter.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "ctx.h"
#include "iter_msg.h"
#include "msg.h"

int rsv_iter_echo(const knot_pkt_t *q, struct rsv_msg_ecs *echo, uint8_t scope)
{
	uint8_t qscope;

	if (!rsv_iter_ecs(q, &echo->addr, &echo->source, &qscope))
		return 0;
	echo->scope = scope;
	return 1;
}

int rsv_iter_cached(struct rsv_inst *in, const knot_pkt_t *q, const struct rsv_key *k, int stale,
		    const struct rsv_ecs *ecs, uint8_t *out, size_t max)
{
	knot_pkt_t *links[RSV_ITER_CHAIN_MAX + 1];
	uint32_t ttls[RSV_ITER_CHAIN_MAX + 1];
	knot_dname_storage_t target;
	struct rsv_key cur = *k;
	struct rsv_msg_ecs echo = {0};
	int n = 0, any_stale = 0, rc = 0;

	for (;;) {
		struct rsv_lookup l;
		struct rsv_entry *e = NULL;
		struct rsv_key lk;

		if (n > RSV_ITER_CHAIN_MAX)
			goto out;
		rsv_iter_lookup(in, &cur, ecs, &l, &lk);
		if (l.result == RSV_HIT) {
			e = l.entry;
			ttls[n] = l.ttl;
		} else if (stale && l.result == RSV_STALE) {
			e = l.entry;
		} else if (stale && l.result == RSV_EXPIRED) {
			e = rsv_cache_fail(&in->cache, &lk, in->ctx->now);
		}
		if (e == NULL)
			goto out;
		if (l.result != RSV_HIT) {
			ttls[n] = in->cache.cfg.stale_ttl;
			any_stale = 1;
		}
		if ((links[n] = rsv_msg_parse(e->msg, e->msg_len)) == NULL) {
			rc = -1;
			goto out;
		}
		/* the answer's scope: its most specific link's */
		if ((lk.cls & 0xff00) == RSV_ITER_ECS_CLASS && (lk.cls & 0xff) > echo.scope)
			echo.scope = (uint8_t)(lk.cls & 0xff);
		if (!rsv_iter_chain_next(links[n++], &cur, target))
			break;
		rsv_cache_key(&cur, target, knot_dname_size(target), k->type, k->cls);
	}
	rc = rsv_msg_answer_chain(q, links, ttls, n, any_stale,
				  rsv_iter_echo(q, &echo, echo.scope) ? &echo : NULL, out, max);
	if (rc == 0)
		rc = -1;
out:
	while (n-- > 0)
		knot_pkt_free(links[n]);
	return rc;
}

int rsv_iter_client_ecs(const knot_pkt_t *q, const struct rsv_client *who, struct rsv_ecs *e)
{
	struct in_addr addr;
	uint8_t source, scope;
	uint32_t mask;

	if (rsv_iter_ecs(q, &addr, &source, &scope)) {
		if (source == 0)
			return 0; /* RFC 7871 7.1.2: the client opts out */
	} else if (!who->tcp) {
		addr = who->addr.sin_addr;
		source = RSV_ITER_ECS_MAX;
	} else {
		return 0;
	}
	e->source = source < RSV_ITER_ECS_MAX ? source : RSV_ITER_ECS_MAX;
	mask = ~(0xffffffffu >> e->source);
	e->addr.s_addr = htonl(ntohl(addr.s_addr) & mask);
	return 1;
}

int rsv_iter_scoped_key(const struct rsv_key *k, struct in_addr addr, uint8_t scope,
			struct rsv_key *out)
{
	uint32_t a = scope == 0 ? 0 : ntohl(addr.s_addr) & ~(0xffffffffu >> scope);
	char hex[9];

	if ((size_t)k->len + 9 > RSV_DNAME_MAX || scope == 0 || scope > 32)
		return -1;
	snprintf(hex, sizeof(hex), "%08x", a);
	*out = *k;
	out->name[0] = 8;
	memcpy(out->name + 1, hex, 8);
	memcpy(out->name + 9, k->name, k->len);
	out->len = (uint8_t)(k->len + 9);
	out->cls = (uint16_t)(RSV_ITER_ECS_CLASS | scope);
	return 0;
}

void rsv_iter_lookup(struct rsv_inst *in, const struct rsv_key *k, const struct rsv_ecs *e,
		     struct rsv_lookup *l, struct rsv_key *lk)
{
	struct rsv_key expired;
	int have_expired = 0;

	for (int s = e ? e->source : 0; s > 0; s--) {
		if (!(in->ecs_scopes & (1u << s)) ||
		    rsv_iter_scoped_key(k, e->addr, (uint8_t)s, lk))
			continue;
		rsv_cache_lookup(&in->cache, lk, in->ctx->now, l);
		if (l->result == RSV_HIT || l->result == RSV_STALE)
			return;
		if (l->result == RSV_EXPIRED && !have_expired) {
			expired = *lk; /* refreshed, or answered stale, under its scope */
			have_expired = 1;
		}
	}
	rsv_cache_lookup(&in->cache, k, in->ctx->now, l);
	*lk = *k;
	if (l->result == RSV_HIT || l->result == RSV_STALE)
		return;
	if (l->result == RSV_MISS && have_expired) {
		*lk = expired;
		rsv_cache_lookup(&in->cache, lk, in->ctx->now, l);
	}
}
