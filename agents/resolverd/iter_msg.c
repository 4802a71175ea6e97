/* An authoritative server's answer judged for the walk; see iter_msg.h. */
#include "iter_msg.h"

#include <string.h>

#include "msg.h"

#define RSV_ITER_INZONE_MAX 16 /* CNAMEs followed inside one answer */

/* rsv_iter_copy: src into dst; the root name if src is not a name */
static void rsv_iter_copy(knot_dname_storage_t dst, const knot_dname_t *src)
{
	if (src == NULL || knot_dname_store(dst, src) == 0)
		dst[0] = 0;
}

int rsv_iter_under(const knot_dname_t *name, const knot_dname_t *zone)
{
	knot_dname_storage_t a, b;

	if (knot_dname_store(a, name) == 0 || knot_dname_store(b, zone) == 0)
		return 0;
	knot_dname_to_lower(a);
	knot_dname_to_lower(b);
	return knot_dname_in_bailiwick(a, b) >= 0;
}

static int rsv_iter_same(const knot_dname_t *a, const knot_dname_t *b)
{
	return knot_dname_is_case_equal(a, b);
}

/* rsv_iter_find: the RRset of section sec at owner of type, or NULL. */
static const knot_rrset_t *rsv_iter_find(const knot_pkt_t *r, knot_section_t sec,
					 const knot_dname_t *owner, uint16_t type)
{
	const knot_pktsection_t *s = knot_pkt_section(r, sec);

	for (uint16_t i = 0; i < s->count; i++) {
		const knot_rrset_t *rr = knot_pkt_rr(s, i);

		if (rr->type == type && rr->rclass == KNOT_CLASS_IN && rr->rrs.count > 0 &&
		    rsv_iter_same(rr->owner, owner))
			return rr;
	}
	return NULL;
}

/* rsv_iter_soa: the SOA of r's authority section at or below zone and at or
 * above name, with a whole rdata; its negative TTL in *ttl. */
static const knot_rrset_t *rsv_iter_soa(const knot_pkt_t *r, const knot_dname_t *zone,
					const knot_dname_t *name, uint32_t *ttl)
{
	const knot_pktsection_t *s = knot_pkt_section(r, KNOT_AUTHORITY);

	for (uint16_t i = 0; i < s->count; i++) {
		const knot_rrset_t *rr = knot_pkt_rr(s, i);
		uint32_t min;

		if (rr->type != KNOT_RRTYPE_SOA || rr->rclass != KNOT_CLASS_IN ||
		    rr->rrs.count == 0 || !rsv_iter_under(rr->owner, zone) ||
		    !rsv_iter_under(name, rr->owner) ||
		    rsv_msg_soa_minimum(rr->rrs.rdata, &min) == -1)
			continue;
		*ttl = rr->ttl < min ? rr->ttl : min;
		return rr;
	}
	return NULL;
}

/* rsv_iter_referral: the NS RRset of r's authority section that is a cut
 * strictly below zone and at or above name; NULL if none. */
static const knot_rrset_t *rsv_iter_referral(const knot_pkt_t *r, const knot_dname_t *zone,
					     const knot_dname_t *name)
{
	const knot_pktsection_t *s = knot_pkt_section(r, KNOT_AUTHORITY);

	for (uint16_t i = 0; i < s->count; i++) {
		const knot_rrset_t *rr = knot_pkt_rr(s, i);

		if (rr->type == KNOT_RRTYPE_NS && rr->rclass == KNOT_CLASS_IN &&
		    rr->rrs.count > 0 && rsv_iter_under(rr->owner, zone) &&
		    !rsv_iter_same(rr->owner, zone) && rsv_iter_under(name, rr->owner))
			return rr;
	}
	return NULL;
}

enum rsv_iter_kind rsv_iter_judge(const knot_pkt_t *r, const knot_dname_t *zone,
				  const struct rsv_key *ask, struct rsv_iter_verdict *v)
{
	uint16_t rcode = knot_pkt_ext_rcode(r);
	knot_dname_storage_t cur;
	const knot_rrset_t *rr;
	uint32_t min = UINT32_MAX;

	memset(v, 0, sizeof(*v));
	if (rcode != KNOT_RCODE_NOERROR && rcode != KNOT_RCODE_NXDOMAIN)
		return v->kind = RSV_ITER_FAILURE;
	rsv_iter_copy(cur, ask->name);
	/* the chain from the name asked, inside the zone */
	for (unsigned hop = 0; hop <= RSV_ITER_INZONE_MAX; hop++) {
		if ((rr = rsv_iter_find(r, KNOT_ANSWER, cur, ask->type)) != NULL) {
			v->ttl = rr->ttl < min ? rr->ttl : min;
			v->links = hop;
			return v->kind = RSV_ITER_ANSWER;
		}
		if (ask->type == KNOT_RRTYPE_CNAME ||
		    (rr = rsv_iter_find(r, KNOT_ANSWER, cur, KNOT_RRTYPE_CNAME)) == NULL)
			break;
		if (rr->ttl < min)
			min = rr->ttl;
		rsv_iter_copy(cur, knot_cname_name(rr->rrs.rdata));
		knot_dname_to_lower(cur);
		v->links = hop + 1;
		if (!rsv_iter_under(cur, zone))
			break; /* out of bailiwick: its own servers say */
	}
	if (v->links > 0) {
		/* a chain that ends without the data: denied in the zone, or
		 * to be followed from the target's own cut */
		if (rsv_iter_under(cur, zone) && rsv_iter_soa(r, zone, cur, &v->ttl) != NULL) {
			if (min < v->ttl)
				v->ttl = min;
			return v->kind = rcode == KNOT_RCODE_NXDOMAIN ? RSV_ITER_NXDOMAIN
								      : RSV_ITER_NODATA;
		}
		if (v->links > RSV_ITER_INZONE_MAX)
			return v->kind = RSV_ITER_LAME; /* a loop inside the zone */
		rsv_iter_copy(v->target, cur);
		v->ttl = min;
		return v->kind = RSV_ITER_CNAME;
	}
	if (rsv_iter_soa(r, zone, ask->name, &v->ttl) != NULL)
		return v->kind = rcode == KNOT_RCODE_NXDOMAIN ? RSV_ITER_NXDOMAIN : RSV_ITER_NODATA;
	if (rcode == KNOT_RCODE_NOERROR && (rr = rsv_iter_referral(r, zone, ask->name)) != NULL) {
		rsv_iter_copy(v->cut, rr->owner);
		knot_dname_to_lower(v->cut);
		v->ttl = rr->ttl;
		return v->kind = RSV_ITER_REFERRAL;
	}
	if (rcode == KNOT_RCODE_NXDOMAIN)
		return v->kind = RSV_ITER_NOSOA;
	return v->kind = RSV_ITER_LAME;
}

/* rsv_iter_begin: a response over out with question (name, type). */
static knot_pkt_t *rsv_iter_begin(const knot_dname_t *name, uint16_t type, uint16_t rcode,
				  uint8_t *out, size_t max)
{
	knot_pkt_t *m;

	if (max > KNOT_WIRE_MAX_PKTSIZE)
		max = KNOT_WIRE_MAX_PKTSIZE;
	if ((m = knot_pkt_new(out, (uint16_t)max, NULL)) == NULL)
		return NULL;
	knot_pkt_clear(m);
	knot_wire_set_qr(m->wire);
	knot_wire_set_rcode(m->wire, rcode);
	if (knot_pkt_put_question(m, name, KNOT_CLASS_IN, type) != KNOT_EOK ||
	    knot_pkt_begin(m, KNOT_ANSWER) != KNOT_EOK) {
		knot_pkt_free(m);
		return NULL;
	}
	return m;
}

/* rsv_iter_put: every record of r's section sec at owner of rr's type
 * (libknot parses a message into one RRset per record) */
static int rsv_iter_put(knot_pkt_t *m, const knot_pkt_t *r, knot_section_t sec,
			const knot_rrset_t *rr)
{
	const knot_pktsection_t *s = knot_pkt_section(r, sec);

	for (uint16_t i = 0; i < s->count; i++) {
		const knot_rrset_t *x = knot_pkt_rr(s, i);

		if (x->type == rr->type && x->rclass == rr->rclass &&
		    rsv_iter_same(x->owner, rr->owner) &&
		    knot_pkt_put(m, KNOT_COMPR_HINT_NONE, x, 0) != KNOT_EOK)
			return -1;
	}
	return 0;
}

/* rsv_iter_is_ns: is name the target of one of the NS records at cut? */
static int rsv_iter_is_ns(const knot_pkt_t *r, const knot_dname_t *cut, const knot_dname_t *name)
{
	const knot_pktsection_t *s = knot_pkt_section(r, KNOT_AUTHORITY);

	for (uint16_t i = 0; i < s->count; i++) {
		const knot_rrset_t *x = knot_pkt_rr(s, i);

		for (uint16_t j = 0;
		     x->type == KNOT_RRTYPE_NS && rsv_iter_same(x->owner, cut) && j < x->rrs.count;
		     j++)
			if (rsv_iter_same(name, knot_ns_name(knot_rdataset_at(&x->rrs, j))))
				return 1;
	}
	return 0;
}

/* rsv_iter_put_glue: the records of type glue (A or AAAA) of ns's NS
 * names, at or below zone. */
static int rsv_iter_put_glue(knot_pkt_t *m, const knot_pkt_t *r, const knot_rrset_t *ns,
			     const knot_dname_t *zone, uint16_t glue)
{
	const knot_pktsection_t *s = knot_pkt_section(r, KNOT_ADDITIONAL);

	for (uint16_t i = 0; i < s->count; i++) {
		const knot_rrset_t *rr = knot_pkt_rr(s, i);

		if (rr->type != glue || rr->rclass != KNOT_CLASS_IN ||
		    !rsv_iter_under(rr->owner, zone) || !rsv_iter_is_ns(r, ns->owner, rr->owner))
			continue;
		if (knot_pkt_put(m, KNOT_COMPR_HINT_NONE, rr, 0) != KNOT_EOK)
			return -1;
	}
	return 0;
}

int rsv_iter_synth(const knot_pkt_t *r, const knot_dname_t *zone, const struct rsv_key *ask,
		   const struct rsv_iter_verdict *v, uint8_t *out, size_t max)
{
	return rsv_iter_synth_glue(r, zone, ask, v, KNOT_RRTYPE_A, out, max);
}

int rsv_iter_synth_glue(const knot_pkt_t *r, const knot_dname_t *zone, const struct rsv_key *ask,
			const struct rsv_iter_verdict *v, uint16_t glue, uint8_t *out, size_t max)
{
	knot_dname_storage_t cur;
	const knot_rrset_t *rr, *soa;
	knot_pkt_t *m;
	uint32_t ttl;
	int rc = -1;

	if (v->kind == RSV_ITER_REFERRAL) {
		if ((rr = rsv_iter_referral(r, zone, ask->name)) == NULL ||
		    (m = rsv_iter_begin(v->cut, KNOT_RRTYPE_NS, KNOT_RCODE_NOERROR, out, max)) ==
			NULL)
			return -1;
		if (rsv_iter_put(m, r, KNOT_AUTHORITY, rr) == 0 &&
		    knot_pkt_begin(m, KNOT_ADDITIONAL) == KNOT_EOK &&
		    rsv_iter_put_glue(m, r, rr, zone, glue) == 0)
			rc = (int)m->size;
		knot_pkt_free(m);
		return rc;
	}
	m = rsv_iter_begin(ask->name, ask->type,
			   v->kind == RSV_ITER_NXDOMAIN || v->kind == RSV_ITER_NOSOA
			       ? KNOT_RCODE_NXDOMAIN
			       : KNOT_RCODE_NOERROR,
			   out, max);
	if (m == NULL)
		return -1;
	rsv_iter_copy(cur, ask->name);
	for (unsigned hop = 0; hop < v->links; hop++) {
		if ((rr = rsv_iter_find(r, KNOT_ANSWER, cur, KNOT_RRTYPE_CNAME)) == NULL ||
		    rsv_iter_put(m, r, KNOT_ANSWER, rr) == -1)
			goto out;
		rsv_iter_copy(cur, knot_cname_name(rr->rrs.rdata));
	}
	if (v->kind == RSV_ITER_ANSWER) {
		if ((rr = rsv_iter_find(r, KNOT_ANSWER, cur, ask->type)) == NULL ||
		    rsv_iter_put(m, r, KNOT_ANSWER, rr) == -1)
			goto out;
	} else if (v->kind == RSV_ITER_NXDOMAIN || v->kind == RSV_ITER_NODATA) {
		if ((soa = rsv_iter_soa(r, zone, cur, &ttl)) == NULL ||
		    knot_pkt_begin(m, KNOT_AUTHORITY) != KNOT_EOK ||
		    knot_pkt_put(m, KNOT_COMPR_HINT_NONE, soa, 0) != KNOT_EOK)
			goto out;
	}
	rc = (int)m->size;
out:
	knot_pkt_free(m);
	return rc;
}

int rsv_iter_rrset_msg(const knot_pkt_t *r, knot_section_t sec, const knot_rrset_t *rr,
		       uint32_t *ttl, uint8_t *out, size_t max)
{
	const knot_pktsection_t *s = knot_pkt_section(r, sec);
	knot_pkt_t *m = rsv_iter_begin(rr->owner, rr->type, KNOT_RCODE_NOERROR, out, max);
	int rc = -1;

	if (m == NULL)
		return -1;
	*ttl = UINT32_MAX;
	for (uint16_t i = 0; i < s->count; i++) {
		const knot_rrset_t *x = knot_pkt_rr(s, i);

		if (x->type == rr->type && x->rclass == rr->rclass &&
		    rsv_iter_same(x->owner, rr->owner) && x->ttl < *ttl)
			*ttl = x->ttl;
	}
	if (rsv_iter_put(m, r, sec, rr) == 0)
		rc = (int)m->size;
	knot_pkt_free(m);
	return rc;
}

int rsv_iter_chain_next(const knot_pkt_t *m, const struct rsv_key *k, knot_dname_storage_t target)
{
	const knot_rrset_t *rr;
	knot_dname_storage_t cur;

	if (knot_pkt_ext_rcode(m) != KNOT_RCODE_NOERROR ||
	    knot_pkt_section(m, KNOT_AUTHORITY)->count > 0 || k->type == KNOT_RRTYPE_CNAME)
		return 0; /* denied: the chain ends here */
	rsv_iter_copy(cur, k->name);
	for (unsigned hop = 0; hop <= RSV_ITER_INZONE_MAX; hop++) {
		if (rsv_iter_find(m, KNOT_ANSWER, cur, k->type) != NULL)
			return 0;
		if ((rr = rsv_iter_find(m, KNOT_ANSWER, cur, KNOT_RRTYPE_CNAME)) == NULL)
			break;
		rsv_iter_copy(cur, knot_cname_name(rr->rrs.rdata));
	}
	if (knot_dname_is_case_equal(cur, k->name))
		return 0; /* nothing at all: not a chain */
	rsv_iter_copy(target, cur);
	knot_dname_to_lower(target);
	return 1;
}

void rsv_iter_qmin_name(const knot_dname_t *name, unsigned labels, knot_dname_storage_t out)
{
	unsigned n = (unsigned)knot_dname_labels(name, NULL);

	while (n > labels) {
		name = knot_wire_next_label(name, NULL);
		n--;
	}
	rsv_iter_copy(out, name);
}

int rsv_iter_query(const struct rsv_key *ask, uint16_t id, const struct in_addr *addr,
		   uint8_t source_len, uint8_t *out, size_t max)
{
	struct rsv_msg_ecs e = {.source = source_len, .scope = 0};
	uint32_t mask;

	if (source_len == 0)
		return rsv_msg_query(ask, id, NULL, out, max);
	/* RFC 7871 6: the address cut to SOURCE bits */
	mask = source_len >= 32 ? 0xffffffffu : ~(0xffffffffu >> source_len);
	e.addr.s_addr = htonl(ntohl(addr->s_addr) & mask);
	return rsv_msg_query(ask, id, &e, out, max);
}

void rsv_iter_mask6(struct in6_addr *a, unsigned bits)
{
	for (unsigned i = 0; i < 16; i++) {
		unsigned b = i * 8;

		if (bits <= b)
			a->s6_addr[i] = 0;
		else if (bits < b + 8)
			a->s6_addr[i] &= (uint8_t)(0xff << (b + 8 - bits));
	}
}

int rsv_iter_ecs_opt(const knot_pkt_t *p, struct rsv_msg_ecs *e)
{
	uint8_t *opt;
	knot_edns_client_subnet_t o;
	uint32_t a = 0, mask;

	if (!knot_pkt_has_edns(p) ||
	    (opt = knot_pkt_edns_option(p, KNOT_EDNS_OPTION_CLIENT_SUBNET)) == NULL)
		return 0;
	if (knot_edns_client_subnet_parse(&o, knot_edns_opt_get_data(opt),
					  knot_edns_opt_get_length(opt)) != KNOT_EOK)
		return 0;
	memset(e, 0, sizeof(*e));
	e->source = o.source_len;
	e->scope = o.scope_len;
	if (o.family == KNOT_ADDR_FAMILY_IPV6) {
		if (o.source_len > 128 || o.scope_len > 128)
			return 0;
		e->v6 = 1;
		memcpy(&e->addr6, o.address, 16);
		rsv_iter_mask6(&e->addr6, o.source_len);
		return 1;
	}
	if (o.family != KNOT_ADDR_FAMILY_IPV4 || o.source_len > 32 || o.scope_len > 32)
		return 0;
	for (int i = 0; i < 4; i++)
		a = a << 8 | o.address[i];
	mask = o.source_len == 0    ? 0
	       : o.source_len >= 32 ? 0xffffffffu
				    : ~(0xffffffffu >> o.source_len);
	e->addr.s_addr = htonl(a & mask);
	return 1;
}

int rsv_iter_ecs(const knot_pkt_t *p, struct in_addr *addr, uint8_t *source, uint8_t *scope)
{
	struct rsv_msg_ecs e;

	if (!rsv_iter_ecs_opt(p, &e) || e.v6)
		return 0;
	*addr = e.addr;
	*source = e.source;
	*scope = e.scope;
	return 1;
}
