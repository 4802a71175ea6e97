/* The answer to one DNS query; see respond.h. */
#include "respond.h"

#include <stdlib.h>
#include <string.h>

#include "edns.h"
#include "policy.h"

#define AUTHD_ARENA_SIZE (2u << 20) /* a 64 KiB query of minimal RRs fits */
#define AUTHD_EXTRA_MAX 32	    /* additional RRsets collected */
#define AUTHD_RECORDS_MAX (AUTHD_MAX_SITES * AUTHD_SITE_ADDRS)

/*
 * The arena: bump allocation, freed all at once before each query.
 */

static void *authd_arena_alloc(void *ctx, size_t len)
{
	struct authd_arena *a = ctx;
	size_t at = (a->used + 15) & ~(size_t)15;

	if (at > a->size || len > a->size - at)
		return NULL;
	a->used = at + len;
	return a->buf + at;
}

static void authd_arena_free(void *p)
{
	(void)p; /* everything goes at the next reset */
}

int authd_respond_init(struct authd_respond_ctx *c, struct authd_db *db,
		       const struct authd_health *health, uint64_t seed)
{
	memset(c, 0, sizeof(*c));
	c->db = db;
	c->health = health;
	c->rng = seed ? seed : 1;
	c->arena.size = AUTHD_ARENA_SIZE;
	c->arena.buf = malloc(c->arena.size);
	c->qbuf = malloc(AUTHD_MSG_MAX);
	if (c->arena.buf == NULL || c->qbuf == NULL) {
		authd_respond_free(c);
		return -1;
	}
	c->mm.ctx = &c->arena;
	c->mm.alloc = authd_arena_alloc;
	c->mm.free = authd_arena_free;
	return 0;
}

void authd_respond_free(struct authd_respond_ctx *c)
{
	free(c->arena.buf);
	free(c->qbuf);
	c->arena.buf = NULL;
	c->qbuf = NULL;
}

/* one query being answered */
struct authd_query {
	struct authd_respond_ctx *c;
	knot_pkt_t *q, *r;
	const knot_dname_t *qname; /* lowercased */
	knot_dname_t *wire_qname;  /* as the querier spelled it: answers at the qname use it */
	uint16_t qtype;
	struct authd_client client;
	int has_ecs;
	knot_edns_client_subnet_t ecs;
	uint8_t scope;
	uint16_t rcode; /* may be extended (BADVERS) */
	int aa;
	int nextra;
	const knot_rrset_t *extra[AUTHD_EXTRA_MAX];
	uint16_t reserved; /* bytes kept for the OPT record */
};

/* authd_put: one RRset into the current section. 0, or -1 if it does not
 * fit (the answer must be truncated), or -2 on another error. */
static int authd_put(struct authd_query *x, const knot_rrset_t *rr, uint16_t hint)
{
	int ret = knot_pkt_put(x->r, hint, rr, KNOT_PF_NOTRUNC);

	if (ret == KNOT_EOK)
		return 0;
	return ret == KNOT_ESPACE ? -1 : -2;
}

/* authd_put_at: an RRset owned by node n; at the qname, spelled as asked. */
static int authd_put_at(struct authd_query *x, const knot_rrset_t *rr, int at_qname)
{
	knot_rrset_t copy;

	if (!at_qname)
		return authd_put(x, rr, KNOT_COMPR_HINT_NONE);
	copy = *rr;
	copy.owner = x->wire_qname;
	return authd_put(x, &copy, KNOT_COMPR_HINT_QNAME);
}

static void authd_add_extra(struct authd_query *x, const struct authd_rrset *rs)
{
	for (int i = 0; i < rs->nextra && x->nextra < AUTHD_EXTRA_MAX; i++) {
		int dup = 0;

		for (int j = 0; j < x->nextra; j++)
			dup |= x->extra[j] == rs->extra[i];
		if (!dup)
			x->extra[x->nextra++] = rs->extra[i];
	}
}

/* authd_policy_rrset: the A or AAAA answer of a steered name; 0 if it
 * has no record for the querier, -1 out of arena. */
static int authd_policy_rrset(struct authd_query *x, struct authd_name *nm, uint16_t type,
			      const knot_dname_t *owner, knot_rrset_t *rr)
{
	struct authd_respond_ctx *c = x->c;
	int fam = type == KNOT_RRTYPE_AAAA ? AUTHD_V6 : AUTHD_V4;
	const knot_rdata_t *recs[AUTHD_RECORDS_MAX];
	struct authd_pick pick;
	size_t size = 0;
	uint8_t *p;
	int n;

	authd_policy_select(nm, fam, &x->client, c->health, c->db->sites, c->db->server.all_dead,
			    &pick);
	if (nm->policy == AUTHD_GEOLOCATION || nm->policy == AUTHD_LATENCY ||
	    nm->policy == AUTHD_PROXIMITY)
		x->scope = pick.scope > x->scope ? pick.scope : x->scope;
	n = authd_policy_records(nm, fam, &pick, c->db->sites, &c->rng, recs, AUTHD_RECORDS_MAX);
	if (n == 0)
		return 0;
	for (int i = 0; i < n; i++)
		size += knot_rdata_size(recs[i]->len);
	p = authd_arena_alloc(&c->arena, size);
	if (p == NULL)
		return -1;
	knot_rrset_init(rr, (knot_dname_t *)owner, type, KNOT_CLASS_IN, nm->ttl);
	rr->rrs.rdata = (knot_rdata_t *)p;
	rr->rrs.count = (uint16_t)n;
	rr->rrs.size = (uint32_t)size;
	for (int i = 0; i < n; i++) {
		size_t each = knot_rdata_size(recs[i]->len);

		memcpy(p, recs[i], each);
		p += each;
	}
	return 1;
}

/* authd_tier_rrset: a tiered proximity name's answer, whatever the type
 * asked: a CNAME to the tier chosen for the querier (the resolver follows
 * it to the level-2 zone's servers). 0 if none (NODATA), 1. */
static int authd_tier_rrset(struct authd_query *x, struct authd_name *nm, const knot_dname_t *owner,
			    knot_rrset_t *rr)
{
	struct authd_respond_ctx *c = x->c;
	struct authd_pick pick;
	int t;

	authd_policy_select(nm, AUTHD_V4, &x->client, c->health, c->db->sites,
			    c->db->server.all_dead, &pick);
	x->scope = pick.scope > x->scope ? pick.scope : x->scope;
	if ((t = authd_policy_tier(nm, AUTHD_V4, &pick)) == -1)
		return 0;
	knot_rrset_init(rr, (knot_dname_t *)owner, KNOT_RRTYPE_CNAME, KNOT_CLASS_IN, nm->ttl);
	rr->rrs.rdata = nm->tiers[t].cname;
	rr->rrs.count = 1;
	rr->rrs.size = (uint32_t)knot_rdata_size(nm->tiers[t].cname->len);
	return 1;
}

/* authd_answer_type: the node's RRset(s) of qtype into the answer.
 * Returns the number of RRsets written, -1 truncated, -2 error. */
static int authd_answer_type(struct authd_query *x, const struct authd_node *n, int at_qname)
{
	const knot_dname_t *owner = at_qname ? x->wire_qname : n->owner;
	int written = 0, ret;

	if (n->name && n->name->ntiers) {
		knot_rrset_t rr;

		if (authd_tier_rrset(x, n->name, owner, &rr) == 0)
			return 0;
		ret = authd_put(x, &rr, at_qname ? KNOT_COMPR_HINT_QNAME : KNOT_COMPR_HINT_NONE);
		return ret < 0 ? ret : 1;
	}
	if (n->name && (x->qtype == KNOT_RRTYPE_A || x->qtype == KNOT_RRTYPE_AAAA ||
			x->qtype == KNOT_RRTYPE_ANY)) {
		static const uint16_t types[2] = {KNOT_RRTYPE_A, KNOT_RRTYPE_AAAA};

		for (int i = 0; i < 2; i++) {
			knot_rrset_t rr;

			if (x->qtype != KNOT_RRTYPE_ANY && x->qtype != types[i])
				continue;
			ret = authd_policy_rrset(x, n->name, types[i], owner, &rr);
			if (ret < 0)
				return -2;
			if (ret == 0)
				continue;
			ret = authd_put(x, &rr,
					at_qname ? KNOT_COMPR_HINT_QNAME : KNOT_COMPR_HINT_NONE);
			if (ret < 0)
				return ret;
			written++;
		}
	}
	for (int i = 0; i < n->nrrsets; i++) {
		const struct authd_rrset *rs = &n->rrsets[i];

		if (x->qtype != KNOT_RRTYPE_ANY && rs->rr.type != x->qtype)
			continue;
		if ((ret = authd_put_at(x, &rs->rr, at_qname)) < 0)
			return ret;
		authd_add_extra(x, rs);
		written++;
	}
	return written;
}

static int authd_put_soa(struct authd_query *x, const struct authd_zone *z)
{
	int ret = knot_pkt_begin(x->r, KNOT_AUTHORITY);

	if (ret != KNOT_EOK)
		return -2;
	return authd_put(x, &z->soa_neg, KNOT_COMPR_HINT_NONE);
}

/* authd_referral: the delegation at cut. */
static int authd_referral(struct authd_query *x, const struct authd_node *cut)
{
	const struct authd_rrset *ns = authd_node_rrset(cut, KNOT_RRTYPE_NS);
	int ret;

	x->aa = 0;
	x->c->stats.referrals++;
	if (knot_pkt_begin(x->r, KNOT_AUTHORITY) != KNOT_EOK)
		return -2;
	if ((ret = authd_put(x, &ns->rr, KNOT_COMPR_HINT_NONE)) < 0)
		return ret;
	if (knot_pkt_begin(x->r, KNOT_ADDITIONAL) != KNOT_EOK)
		return -2;
	/* glue that does not fit truncates the referral (RFC 9471) */
	for (int i = 0; i < ns->nextra; i++)
		if ((ret = authd_put(x, ns->extra[i], KNOT_COMPR_HINT_NONE)) < 0)
			return ret;
	return 0;
}

/* authd_target_of: the name a CNAME RRset points to. */
static const knot_dname_t *authd_target_of(const struct authd_rrset *cname)
{
	return cname->rr.rrs.rdata->data;
}

/* authd_resolve: the answer for a well-formed QUERY, written into x->r
 * from the ANSWER section on. 0, -1 truncated, -2 error. */
static int authd_resolve(struct authd_query *x)
{
	const struct authd_db *db = x->c->db;
	const struct authd_node *n;
	const struct authd_zone *zone;
	int exact, at_qname = 1, ret;

	if (knot_pkt_qclass(x->q) != KNOT_CLASS_IN) {
		x->rcode = KNOT_RCODE_REFUSED;
		return 0;
	}
	switch (x->qtype) {
	case KNOT_RRTYPE_AXFR:
	case KNOT_RRTYPE_IXFR:
		x->rcode = KNOT_RCODE_REFUSED; /* no zone transfers */
		return 0;
	case KNOT_RRTYPE_OPT:
	case KNOT_RRTYPE_TSIG:
	case KNOT_RRTYPE_TKEY:
		x->rcode = KNOT_RCODE_FORMERR;
		return 0;
	default:
		break;
	}
	n = authd_db_encloser(db, x->qname, &exact);
	if (n == NULL || n->zone == NULL) {
		x->rcode = KNOT_RCODE_REFUSED; /* not ours: never recurse */
		return 0;
	}
	zone = n->zone;
	if (n->cut && !(exact && n->cut == n && x->qtype == KNOT_RRTYPE_DS))
		return authd_referral(x, n->cut);
	x->aa = 1;
	if (!exact) {
		x->rcode = KNOT_RCODE_NXDOMAIN;
		return authd_put_soa(x, zone);
	}
	for (int chain = 0;; chain++) {
		const struct authd_rrset *cname = authd_node_rrset(n, KNOT_RRTYPE_CNAME);
		const struct authd_node *t;

		if (cname && x->qtype != KNOT_RRTYPE_CNAME && x->qtype != KNOT_RRTYPE_ANY) {
			if ((ret = authd_put_at(x, &cname->rr, at_qname)) < 0)
				return ret;
			if (chain + 1 >= AUTHD_CNAME_CHAIN)
				return 0;
			/* follow it inside this zone only, and not into a
			 * delegation: the resolver asks for the rest */
			t = authd_db_encloser(db, authd_target_of(cname), &exact);
			if (t == NULL || t->zone != zone || t->cut)
				return 0;
			if (!exact) {
				x->rcode = KNOT_RCODE_NXDOMAIN;
				return authd_put_soa(x, zone);
			}
			n = t;
			at_qname = 0;
			continue;
		}
		ret = authd_answer_type(x, n, at_qname);
		if (ret < 0)
			return ret;
		if (ret == 0) {
			x->c->stats.nodata++;
			return authd_put_soa(x, zone);
		}
		return 0;
	}
}

/* authd_read_ecs: the query's EDNS Client Subnet, if any. 0, or -1 if
 * malformed (RFC 7871 7.1.2: FORMERR). */
static int authd_read_ecs(struct authd_query *x)
{
	uint8_t *opt = knot_pkt_edns_option(x->q, KNOT_EDNS_OPTION_CLIENT_SUBNET);
	uint16_t len;
	uint8_t *data;
	size_t bytes;

	if (opt == NULL)
		return 0;
	len = knot_edns_opt_get_length(opt);
	data = knot_edns_opt_get_data(opt);
	if (knot_edns_client_subnet_parse(&x->ecs, data, len) != KNOT_EOK)
		return -1;
	bytes = (x->ecs.source_len + 7u) / 8u;
	/* no extra address bytes, no bits set past the source prefix */
	if (len != 4 + bytes || memcmp(data + 4, x->ecs.address, bytes) != 0)
		return -1;
	x->has_ecs = 1;
	x->c->stats.ecs++;
	memset(&x->client, 0, sizeof(x->client));
	x->client.family = x->ecs.family == KNOT_ADDR_FAMILY_IPV6 ? AF_INET6 : AF_INET;
	memcpy(x->client.addr, x->ecs.address, sizeof(x->client.addr));
	x->client.source_len = x->ecs.source_len;
	return 0;
}

/* authd_opt_size: the OPT record the response will carry. */
static uint16_t authd_opt_size(const struct authd_query *x)
{
	uint16_t size = KNOT_EDNS_MIN_SIZE;

	if (x->has_ecs)
		size += KNOT_EDNS_OPTION_HDRLEN + knot_edns_client_subnet_size(&x->ecs);
	return size;
}

/* authd_put_opt: the response's OPT record, with the ECS echo. */
static int authd_put_opt(struct authd_query *x)
{
	knot_rrset_t opt;
	uint8_t *w;

	if (knot_edns_init(&opt, x->c->db->server.udp_max, 0, 0, &x->c->mm) != KNOT_EOK)
		return -2;
	if (x->rcode > 15)
		knot_edns_set_ext_rcode(&opt, (uint8_t)KNOT_EDNS_RCODE_HI(x->rcode));
	if (x->has_ecs) {
		uint16_t size;

		/* a querier that gave no bits gets a global answer (RFC 7871 7.2.1) */
		x->ecs.scope_len = x->ecs.source_len ? x->scope : 0;
		size = knot_edns_client_subnet_size(&x->ecs);
		if (knot_edns_reserve_option(&opt, KNOT_EDNS_OPTION_CLIENT_SUBNET, size, &w,
					     &x->c->mm) != KNOT_EOK ||
		    knot_edns_client_subnet_write(w, size, &x->ecs) != KNOT_EOK)
			return -2;
	}
	if (knot_pkt_begin(x->r, KNOT_ADDITIONAL) != KNOT_EOK)
		return -2;
	return authd_put(x, &opt, KNOT_COMPR_HINT_NONE);
}

/* authd_finish: flags, RCODE, the additional section and the OPT record.
 * On truncation everything after the question goes and TC is set. */
static int authd_finish(struct authd_query *x, int ret, int with_opt)
{
	if (ret == 0 && x->nextra > 0) {
		if (knot_pkt_begin(x->r, KNOT_ADDITIONAL) != KNOT_EOK)
			return -2;
		for (int i = 0; i < x->nextra; i++) /* best effort: these may be left out */
			if (authd_put(x, x->extra[i], KNOT_COMPR_HINT_NONE) == -2)
				return -2;
	}
	if (ret == -1) {
		if (knot_pkt_init_response(x->r, x->q) != KNOT_EOK)
			return -2;
		knot_wire_set_tc(x->r->wire);
		x->c->stats.truncated++;
	} else if (ret < 0) {
		return -2;
	} else if (x->reserved && knot_pkt_reclaim(x->r, x->reserved) != KNOT_EOK) {
		return -2;
	}
	if (x->aa)
		knot_wire_set_aa(x->r->wire);
	knot_wire_set_rcode(x->r->wire, (short)KNOT_EDNS_RCODE_LO(x->rcode));
	if (with_opt)
		return authd_put_opt(x) == 0 ? 0 : -2;
	return 0;
}

/* authd_error_response: a bare response with rcode when the answer could
 * not be built (out of arena: a pathological query). */
static size_t authd_error_response(struct authd_query *x, uint16_t rcode)
{
	if (knot_pkt_init_response(x->r, x->q) != KNOT_EOK)
		return 0;
	knot_wire_set_rcode(x->r->wire, (short)rcode);
	return x->r->size;
}

size_t authd_respond(struct authd_respond_ctx *c, const uint8_t *query, size_t qlen,
		     const struct sockaddr *from, int tcp, uint8_t *out, size_t outmax)
{
	struct authd_query x = {.c = c};
	size_t limit = tcp ? AUTHD_MSG_MAX : AUTHD_UDP_MIN;
	int parsed, ret, with_opt = 0;
	uint16_t rc;

	c->stats.queries++;
	c->arena.used = 0;
	if (qlen < KNOT_WIRE_HEADER_SIZE || qlen > AUTHD_MSG_MAX || knot_wire_get_qr(query) ||
	    outmax < KNOT_WIRE_HEADER_SIZE) {
		c->stats.dropped++;
		return 0;
	}
	memcpy(c->qbuf, query, qlen);
	x.q = knot_pkt_new(c->qbuf, (uint16_t)qlen, &c->mm);
	if (x.q == NULL) {
		c->stats.dropped++;
		return 0;
	}
	parsed = knot_pkt_parse(x.q, KNOT_PF_NOCANON) == KNOT_EOK;
	if (!parsed && edns_payload_floor(c->qbuf, qlen) > 0) {
		/* an EDNS payload below 512 is 512 (RFC 6891 6.2.5), not a
		 * FORMERR (lib/edns.h); the first packet goes with the arena */
		x.q = knot_pkt_new(c->qbuf, (uint16_t)qlen, &c->mm);
		if (x.q == NULL) {
			c->stats.dropped++;
			return 0;
		}
		parsed = knot_pkt_parse(x.q, KNOT_PF_NOCANON) == KNOT_EOK;
	}
	if (parsed && x.q->opt_rr && !tcp) {
		uint16_t pl = knot_edns_get_payload(x.q->opt_rr);

		limit = pl < AUTHD_UDP_MIN ? AUTHD_UDP_MIN : pl;
		if (limit > c->db->server.udp_max)
			limit = c->db->server.udp_max;
	}
	if (limit > outmax)
		limit = outmax;
	x.r = knot_pkt_new(out, (uint16_t)limit, &c->mm);
	if (x.r == NULL || knot_pkt_init_response(x.r, x.q) != KNOT_EOK) {
		c->stats.dropped++;
		return 0;
	}
	authd_client_from_sockaddr(&x.client, from);
	with_opt = parsed && x.q->opt_rr != NULL;
	if (knot_wire_get_opcode(x.q->wire) != KNOT_OPCODE_QUERY) {
		x.rcode = KNOT_RCODE_NOTIMPL;
		ret = 0;
	} else if (!parsed || knot_pkt_qname(x.q) == NULL) {
		x.rcode = KNOT_RCODE_FORMERR;
		ret = 0;
	} else if (with_opt && knot_edns_get_version(x.q->opt_rr) != 0) {
		x.rcode = KNOT_RCODE_BADVERS;
		ret = 0;
	} else if (with_opt && authd_read_ecs(&x) == -1) {
		x.rcode = KNOT_RCODE_FORMERR;
		ret = 0;
	} else {
		x.qname = knot_pkt_qname(x.q);
		x.wire_qname = (knot_dname_t *)knot_pkt_wire_qname(x.q);
		x.qtype = knot_pkt_qtype(x.q);
		if (with_opt) {
			x.reserved = authd_opt_size(&x);
			if (knot_pkt_reserve(x.r, x.reserved) != KNOT_EOK)
				x.reserved = 0; /* cannot happen: limit >= 512 */
		}
		ret = authd_resolve(&x);
	}
	if (authd_finish(&x, ret, with_opt) != 0) {
		c->stats.rcode[KNOT_RCODE_SERVFAIL]++;
		c->stats.responses++;
		return authd_error_response(&x, KNOT_RCODE_SERVFAIL);
	}
	rc = x.rcode < sizeof(c->stats.rcode) / sizeof(c->stats.rcode[0]) ? x.rcode : 0;
	c->stats.rcode[rc]++;
	c->stats.responses++;
	return x.r->size;
}
