/* The cache as the walk leaves it: chains link by link, ECS scopes; see iter.h. */
#include "iter.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"
#include "iter_msg.h"
#include "msg.h"

int rsv_iter_echo(const knot_pkt_t *q, struct rsv_msg_ecs *echo, uint8_t scope)
{
	if (!rsv_iter_ecs_opt(q, echo))
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
		if (rsv_iter_key_scope(&lk, NULL) > echo.scope)
			echo.scope = (uint8_t)rsv_iter_key_scope(&lk, NULL);
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
	struct rsv_msg_ecs opt;
	uint32_t mask;

	memset(e, 0, sizeof(*e));
	if (rsv_iter_ecs_opt(q, &opt)) {
		if (opt.source == 0)
			return 0; /* RFC 7871 7.1.2: the client opts out */
		e->v6 = opt.v6;
		e->addr = opt.addr;
		e->addr6 = opt.addr6;
		e->source = opt.source;
	} else if (!who->tcp && rsv_sa_is6(&who->addr)) {
		e->v6 = 1;
		e->addr6 = who->addr6.sin6_addr;
		e->source = RSV_ITER_ECS6_MAX;
	} else if (!who->tcp) {
		e->addr = who->addr.sin_addr;
		e->source = RSV_ITER_ECS_MAX;
	} else {
		return 0;
	}
	if (e->v6) {
		if (e->source > RSV_ITER_ECS6_MAX)
			e->source = RSV_ITER_ECS6_MAX;
		rsv_iter_mask6(&e->addr6, e->source);
		return 1;
	}
	e->source = e->source < RSV_ITER_ECS_MAX ? e->source : RSV_ITER_ECS_MAX;
	mask = ~(0xffffffffu >> e->source);
	e->addr.s_addr = htonl(ntohl(e->addr.s_addr) & mask);
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

int rsv_iter_ecs_key(const struct rsv_key *k, const struct rsv_ecs *e, uint8_t scope,
		     struct rsv_key *out)
{
	struct in6_addr a;
	char hex[17];

	if (!e->v6)
		return rsv_iter_scoped_key(k, e->addr, scope, out);
	/* the first 64 bits in hex: a scope is at most RSV_ITER_ECS6_MAX */
	if ((size_t)k->len + 17 > RSV_DNAME_MAX || scope == 0 || scope > 64)
		return -1;
	a = e->addr6;
	rsv_iter_mask6(&a, scope);
	for (int i = 0; i < 8; i++)
		snprintf(hex + 2 * i, 3, "%02x", a.s6_addr[i]);
	*out = *k;
	out->name[0] = 16;
	memcpy(out->name + 1, hex, 16);
	memcpy(out->name + 17, k->name, k->len);
	out->len = (uint8_t)(k->len + 17);
	out->cls = (uint16_t)(RSV_ITER_ECS6_CLASS + scope);
	return 0;
}

int rsv_iter_key_scope(const struct rsv_key *k, int *v6)
{
	int s4 = k->cls - RSV_ITER_ECS_CLASS, s6 = k->cls - RSV_ITER_ECS6_CLASS;

	if (v6)
		*v6 = 0;
	if (s4 >= 1 && s4 <= 32 && k->len > 9 && k->name[0] == 8)
		return s4;
	if (s6 >= 1 && s6 <= 64 && k->len > 17 && k->name[0] == 16) {
		if (v6)
			*v6 = 1;
		return s6;
	}
	return 0;
}

int rsv_iter_key_ecs(const struct rsv_key *k, struct rsv_key *plain, struct rsv_ecs *e)
{
	int v6, scope = rsv_iter_key_scope(k, &v6);
	unsigned hexlen = v6 ? 16 : 8;
	char hex[17];

	if (scope == 0)
		return 0;
	memset(e, 0, sizeof(*e));
	memcpy(hex, k->name + 1, hexlen);
	hex[hexlen] = 0;
	e->source = (uint8_t)scope;
	e->v6 = (uint8_t)v6;
	if (v6) {
		for (int i = 0; i < 8; i++) {
			char byte[3] = {hex[2 * i], hex[2 * i + 1], 0};

			e->addr6.s6_addr[i] = (uint8_t)strtoul(byte, NULL, 16);
		}
	} else {
		e->addr.s_addr = htonl((uint32_t)strtoul(hex, NULL, 16));
	}
	rsv_cache_key(plain, k->name + 1 + hexlen, (size_t)k->len - 1 - hexlen, k->type,
		      KNOT_CLASS_IN);
	return 1;
}

void rsv_iter_lookup(struct rsv_inst *in, const struct rsv_key *k, const struct rsv_ecs *e,
		     struct rsv_lookup *l, struct rsv_key *lk)
{
	struct rsv_key expired;
	int have_expired = 0;

	for (int s = e ? e->source : 0; s > 0; s--) {
		if (!(e->v6 ? in->ecs_scopes6 & (1ull << s) : in->ecs_scopes & (1u << s)) ||
		    rsv_iter_ecs_key(k, e, (uint8_t)s, lk))
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
