/* The delegation cache: zone cuts and their servers; see deleg.h. */
#include "deleg.h"

#include <string.h>

#include "msg.h"

void rsv_deleg_cfg(struct rsv_cache_cfg *out, const struct rsv_cache_cfg *in)
{
	*out = *in;
	out->serve_stale = 0;
	out->prefetch_pct = 0;
	out->phase = RSV_PHASE_NONE;
	out->phase_frac = 0;
	out->phase_ns = 0;
}

/* rsv_deleg_put: msg (one RRset answering (name, type)) under that key */
static int rsv_deleg_put(struct rsv_cache *c, const knot_dname_t *name, uint16_t type, uint32_t ttl,
			 const uint8_t *msg, size_t len, int64_t now)
{
	struct rsv_key k;

	if (rsv_cache_key(&k, name, knot_dname_size(name), type, KNOT_CLASS_IN) == -1)
		return -1;
	return rsv_cache_store(c, &k, RSV_POSITIVE, ttl, msg, len, now, NULL) == -1 ? -1 : 0;
}

int rsv_deleg_store_addr(struct rsv_cache *c, const knot_pkt_t *r, knot_section_t sec,
			 const knot_rrset_t *a, int64_t now)
{
	uint8_t buf[KNOT_WIRE_MAX_PKTSIZE];
	uint32_t ttl;
	int n = rsv_iter_rrset_msg(r, sec, a, &ttl, buf, sizeof(buf));

	if (n <= 0)
		return -1;
	return rsv_deleg_put(c, a->owner, a->type, ttl, buf, (size_t)n, now);
}

static uint32_t rsv_deleg_min_ttl(const knot_pktsection_t *s)
{
	uint32_t min = UINT32_MAX;

	for (uint16_t i = 0; i < s->count; i++)
		if (knot_pkt_rr(s, i)->ttl < min)
			min = knot_pkt_rr(s, i)->ttl;
	return min;
}

int rsv_deleg_store(struct rsv_cache *c, const uint8_t *msg, size_t len, int64_t now)
{
	knot_pkt_t *m = rsv_msg_parse(msg, len);
	const knot_pktsection_t *an, *ad;
	const knot_rrset_t *ns;
	int rc = -1;

	if (m == NULL)
		return -1;
	an = knot_pkt_section(m, KNOT_ANSWER);
	ad = knot_pkt_section(m, KNOT_ADDITIONAL);
	if (an->count < 1 || (ns = knot_pkt_rr(an, 0))->type != KNOT_RRTYPE_NS)
		goto out;
	if (rsv_deleg_put(c, ns->owner, KNOT_RRTYPE_NS, rsv_deleg_min_ttl(an), msg, len, now) == -1)
		goto out;
	rc = 0;
	for (uint16_t i = 0; i < ad->count; i++) {
		const knot_rrset_t *a = knot_pkt_rr(ad, i);
		int seen = 0;

		/* one entry per name and type, with all its addresses */
		for (uint16_t j = 0; j < i && !seen; j++)
			seen = knot_pkt_rr(ad, j)->type == a->type &&
			       knot_dname_is_case_equal(knot_pkt_rr(ad, j)->owner, a->owner);
		if ((a->type == KNOT_RRTYPE_A || a->type == KNOT_RRTYPE_AAAA) && !seen &&
		    rsv_deleg_store_addr(c, m, KNOT_ADDITIONAL, a, now) == -1)
			rc = -1;
	}
out:
	knot_pkt_free(m);
	return rc;
}

/* rsv_deleg_fresh: the fresh entry of (name, type), or NULL */
static struct rsv_entry *rsv_deleg_fresh(struct rsv_cache *c, const knot_dname_t *name,
					 uint16_t type, int64_t now)
{
	struct rsv_lookup l;
	struct rsv_key k;

	if (rsv_cache_key(&k, name, knot_dname_size(name), type, KNOT_CLASS_IN) == -1)
		return NULL;
	rsv_cache_lookup(c, &k, now, &l);
	return l.result == RSV_HIT ? l.entry : NULL;
}

/* rsv_deleg_addrs: the fresh addresses of type (A or AAAA) of ns into s;
 * 0 if there are none */
static int rsv_deleg_addrs(struct rsv_cache *c, const knot_dname_t *ns, uint16_t type, int64_t now,
			   struct rsv_deleg_servers *s)
{
	struct rsv_entry *e = rsv_deleg_fresh(c, ns, type, now);
	size_t alen = type == KNOT_RRTYPE_AAAA ? 16 : 4;
	const knot_pktsection_t *an;
	knot_pkt_t *m;
	int found = 0;

	if (e == NULL || (m = rsv_msg_parse(e->msg, e->msg_len)) == NULL)
		return 0;
	an = knot_pkt_section(m, KNOT_ANSWER);
	for (uint16_t i = 0; i < an->count; i++) {
		const knot_rrset_t *rr = knot_pkt_rr(an, i);

		if (rr->type != type)
			continue;
		for (uint16_t j = 0; j < rr->rrs.count && s->naddr < RSV_ITER_NS_MAX; j++) {
			const knot_rdata_t *rd = knot_rdataset_at(&rr->rrs, j);

			if (rd->len != alen)
				continue;
			if (type == KNOT_RRTYPE_AAAA)
				memcpy(&s->addr6[s->naddr++], rd->data, 16);
			else
				memcpy(&s->addr[s->naddr++], rd->data, 4);
			found = 1;
		}
	}
	knot_pkt_free(m);
	return found;
}

int rsv_deleg_closest(struct rsv_cache *c, const knot_dname_t *name, int64_t now,
		      struct rsv_deleg_servers *s)
{
	return rsv_deleg_closest_type(c, name, KNOT_RRTYPE_A, now, s);
}

int rsv_deleg_closest_type(struct rsv_cache *c, const knot_dname_t *name, uint16_t type,
			   int64_t now, struct rsv_deleg_servers *s)
{
	const knot_dname_t *cut;

	memset(s, 0, sizeof(*s));
	for (cut = name; cut[0] != 0; cut = knot_wire_next_label(cut, NULL)) {
		struct rsv_entry *e = rsv_deleg_fresh(c, cut, KNOT_RRTYPE_NS, now);
		const knot_pktsection_t *an;
		knot_pkt_t *m;

		if (e == NULL || (m = rsv_msg_parse(e->msg, e->msg_len)) == NULL)
			continue;
		if (knot_dname_store(s->cut, cut) == 0) {
			knot_pkt_free(m);
			continue;
		}
		knot_dname_to_lower(s->cut);
		an = knot_pkt_section(m, KNOT_ANSWER);
		for (uint16_t i = 0; i < an->count; i++) {
			const knot_rrset_t *ns = knot_pkt_rr(an, i);

			for (uint16_t j = 0; ns->type == KNOT_RRTYPE_NS && j < ns->rrs.count; j++) {
				const knot_dname_t *n = knot_ns_name(knot_rdataset_at(&ns->rrs, j));

				if (!rsv_deleg_addrs(c, n, type, now, s) &&
				    s->nmissing < RSV_ITER_NS_MAX &&
				    knot_dname_store(s->missing[s->nmissing], n) > 0)
					knot_dname_to_lower(s->missing[s->nmissing++]);
			}
		}
		knot_pkt_free(m);
		return 1;
	}
	s->cut[0] = 0;
	return 0;
}
