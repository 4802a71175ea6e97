/* DNS messages through libknot; see msg.h. */
#include "msg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edns.h"

knot_pkt_t *rsv_msg_parse(const uint8_t *wire, size_t len)
{
	knot_pkt_t *p;
	int ret;

	if (len < KNOT_WIRE_HEADER_SIZE || len > KNOT_WIRE_MAX_PKTSIZE)
		return NULL;
	/* KEEPWIRE: the wire is never changed (a cached message stays as it
	 * was received) */
	p = knot_pkt_new((void *)wire, (uint16_t)len, NULL);
	if (p == NULL)
		return NULL;
	ret = knot_pkt_parse(p, KNOT_PF_KEEPWIRE);
	if (ret != KNOT_EOK && ret != KNOT_ETRAIL) {
		knot_pkt_free(p);
		return NULL;
	}
	return p;
}

knot_pkt_t *rsv_msg_parse_query(const uint8_t *wire, size_t len, uint8_t **copy)
{
	knot_pkt_t *q = rsv_msg_parse(wire, len);

	*copy = NULL;
	if (q != NULL || len < KNOT_WIRE_HEADER_SIZE || len > KNOT_WIRE_MAX_PKTSIZE)
		return q;
	if ((*copy = malloc(len)) == NULL)
		return NULL;
	memcpy(*copy, wire, len);
	if (edns_payload_floor(*copy, len) > 0 && (q = rsv_msg_parse(*copy, len)) != NULL)
		return q;
	free(*copy);
	*copy = NULL;
	return NULL;
}

int rsv_msg_check_query(const knot_pkt_t *q)
{
	uint16_t qtype;

	if (knot_wire_get_qr(q->wire))
		return -1;
	if (knot_wire_get_opcode(q->wire) != KNOT_OPCODE_QUERY)
		return KNOT_RCODE_NOTIMPL;
	if (knot_wire_get_qdcount(q->wire) != 1 || q->qname_size == 0)
		return KNOT_RCODE_FORMERR;
	qtype = knot_pkt_qtype(q);
	if (qtype == KNOT_RRTYPE_AXFR || qtype == KNOT_RRTYPE_IXFR || qtype == KNOT_RRTYPE_OPT ||
	    qtype == KNOT_RRTYPE_TSIG)
		return KNOT_RCODE_REFUSED;
	return 0;
}

int rsv_msg_key(const knot_pkt_t *q, struct rsv_key *k)
{
	const knot_dname_t *name = knot_pkt_qname(q);

	if (name == NULL)
		return -1;
	return rsv_cache_key(k, name, q->qname_size, knot_pkt_qtype(q), knot_pkt_qclass(q));
}

size_t rsv_msg_max_size(const knot_pkt_t *q, int tcp)
{
	uint16_t pl;

	if (tcp)
		return RSV_TCP_MAX;
	if (!knot_pkt_has_edns(q))
		return KNOT_WIRE_MIN_PKTSIZE;
	pl = knot_edns_get_payload(q->opt_rr);
	if (pl < KNOT_WIRE_MIN_PKTSIZE)
		return KNOT_WIRE_MIN_PKTSIZE;
	return pl < RSV_UDP_MAX ? pl : RSV_UDP_MAX;
}

/* rsv_msg_opt: our OPT for an answer to q, with EDE 3 if stale. */
static int rsv_msg_opt(knot_rrset_t *opt, int stale)
{
	uint8_t ede[2] = {0, KNOT_EDNS_EDE_STALE};

	if (knot_edns_init(opt, RSV_EDNS_PAYLOAD, 0, 0, NULL) != KNOT_EOK)
		return -1;
	if (stale &&
	    knot_edns_add_option(opt, KNOT_EDNS_OPTION_EDE, sizeof(ede), ede, NULL) != KNOT_EOK) {
		knot_rrset_clear(opt, NULL);
		return -1;
	}
	return 0;
}

/* rsv_msg_begin: a response to q over out: header and question. */
static knot_pkt_t *rsv_msg_begin(const knot_pkt_t *q, uint8_t *out, size_t max)
{
	knot_pkt_t *r;

	if (max > KNOT_WIRE_MAX_PKTSIZE)
		max = KNOT_WIRE_MAX_PKTSIZE;
	r = knot_pkt_new(out, (uint16_t)max, NULL);
	if (r == NULL)
		return NULL;
	if (knot_pkt_init_response(r, q) != KNOT_EOK) {
		knot_pkt_free(r);
		return NULL;
	}
	knot_wire_clear_aa(r->wire);
	knot_wire_set_ra(r->wire);
	return r;
}

/* rsv_msg_end: adds the OPT (space reserved before) if q had one. */
static int rsv_msg_end(knot_pkt_t *r, knot_rrset_t *opt, int has_opt)
{
	if (!has_opt)
		return 0;
	if (knot_pkt_reclaim(r, (uint16_t)knot_edns_wire_size(opt)) != KNOT_EOK)
		return -1;
	if (r->current < KNOT_ADDITIONAL && knot_pkt_begin(r, KNOT_ADDITIONAL) != KNOT_EOK)
		return -1;
	return knot_pkt_put(r, KNOT_COMPR_HINT_NONE, opt, 0) == KNOT_EOK ? 0 : -1;
}

/* rsv_msg_opt_ecs: the ECS option e added to opt */
static int rsv_msg_opt_ecs(knot_rrset_t *opt, const struct rsv_msg_ecs *e)
{
	uint8_t o[4 + 16];
	uint16_t len = (uint16_t)(4 + (e->source + 7) / 8);

	/* FAMILY 1: IPv4, 2: IPv6 */
	o[0] = 0, o[1] = e->v6 ? 2 : 1, o[2] = e->source, o[3] = e->scope;
	if (e->v6) {
		memcpy(o + 4, &e->addr6, 16);
	} else {
		uint32_t a = ntohl(e->addr.s_addr);

		for (int i = 0; i < 4; i++)
			o[4 + i] = (uint8_t)(a >> (24 - 8 * i));
	}
	if (len > 4 + (e->v6 ? 16 : 4))
		return -1;
	return knot_edns_add_option(opt, KNOT_EDNS_OPTION_CLIENT_SUBNET, len, o, NULL) == KNOT_EOK
		   ? 0
		   : -1;
}

int rsv_msg_answer_chain(const knot_pkt_t *q, knot_pkt_t *const *links, const uint32_t *ttls, int n,
			 int stale, const struct rsv_msg_ecs *ecs, uint8_t *out, size_t max)
{
	static const knot_section_t sections[] = {KNOT_ANSWER, KNOT_AUTHORITY, KNOT_ADDITIONAL};
	int has_opt = knot_pkt_has_edns(q), rc = -1, full = 0;
	knot_rrset_t opt;
	knot_pkt_t *r;

	if (n < 1)
		return -1;
	knot_rrset_init_empty(&opt);
	if ((r = rsv_msg_begin(q, out, max)) == NULL)
		return -1;
	knot_wire_set_rcode(r->wire, knot_wire_get_rcode(links[n - 1]->wire));
	if (has_opt &&
	    (rsv_msg_opt(&opt, stale) == -1 || (ecs != NULL && rsv_msg_opt_ecs(&opt, ecs) == -1) ||
	     knot_pkt_reserve(r, (uint16_t)knot_edns_wire_size(&opt)) != KNOT_EOK))
		goto out;
	for (int s = 0; s < 3 && !full; s++) {
		if (knot_pkt_begin(r, sections[s]) != KNOT_EOK)
			goto out;
		/* every link's answer records; the last link's others */
		for (int l = s == 0 ? 0 : n - 1; l < n && !full; l++) {
			const knot_pktsection_t *sec = knot_pkt_section(links[l], sections[s]);

			for (uint16_t i = 0; i < sec->count; i++) {
				knot_rrset_t rr = *knot_pkt_rr(sec, i);
				int ret;

				if (rr.type == KNOT_RRTYPE_OPT || rr.type == KNOT_RRTYPE_TSIG)
					continue;
				if (ttls[l] != RSV_TTL_KEEP)
					rr.ttl = ttls[l];
				ret = knot_pkt_put(r, KNOT_COMPR_HINT_NONE, &rr,
						   sections[s] == KNOT_ADDITIONAL ? KNOT_PF_NOTRUNC
										  : 0);
				if (ret == KNOT_ESPACE) {
					full = 1;
					break;
				}
				if (ret != KNOT_EOK)
					goto out;
			}
		}
	}
	if (rsv_msg_end(r, &opt, has_opt) == -1)
		goto out;
	rc = (int)r->size;
out:
	knot_rrset_clear(&opt, NULL);
	knot_pkt_free(r);
	return rc;
}

int rsv_msg_answer(const knot_pkt_t *q, const knot_pkt_t *src, uint32_t ttl, int stale,
		   uint8_t *out, size_t max)
{
	/* a chain of one link; the chain only reads its links */
	knot_pkt_t *const links[1] = {(knot_pkt_t *)src};

	return rsv_msg_answer_chain(q, links, &ttl, 1, stale, NULL, out, max);
}

int rsv_msg_error(const knot_pkt_t *q, const uint8_t *qwire, size_t qlen, int rcode, uint8_t *out,
		  size_t max)
{
	knot_rrset_t opt;
	knot_pkt_t *r;
	int rc = -1;

	if (q == NULL) {
		if (qlen < KNOT_WIRE_HEADER_SIZE || max < KNOT_WIRE_HEADER_SIZE)
			return -1;
		memcpy(out, qwire, KNOT_WIRE_HEADER_SIZE);
		knot_wire_set_qr(out);
		knot_wire_clear_aa(out);
		knot_wire_clear_tc(out);
		knot_wire_clear_ad(out);
		knot_wire_set_ra(out);
		knot_wire_set_rcode(out, (short)rcode);
		knot_wire_set_qdcount(out, 0);
		knot_wire_set_ancount(out, 0);
		knot_wire_set_nscount(out, 0);
		knot_wire_set_arcount(out, 0);
		return KNOT_WIRE_HEADER_SIZE;
	}
	knot_rrset_init_empty(&opt);
	if ((r = rsv_msg_begin(q, out, max)) == NULL)
		return -1;
	knot_wire_set_rcode(r->wire, (short)rcode);
	if (knot_pkt_has_edns(q) &&
	    (rsv_msg_opt(&opt, 0) == -1 ||
	     knot_pkt_reserve(r, (uint16_t)knot_edns_wire_size(&opt)) != KNOT_EOK ||
	     rsv_msg_end(r, &opt, 1) == -1))
		goto out;
	rc = (int)r->size;
out:
	knot_rrset_clear(&opt, NULL);
	knot_pkt_free(r);
	return rc;
}

int rsv_msg_query(const struct rsv_key *k, uint16_t id, const struct rsv_msg_ecs *ecs, uint8_t *out,
		  size_t max)
{
	knot_rrset_t opt;
	knot_pkt_t *q;
	int rc = -1;

	if (max > KNOT_WIRE_MAX_PKTSIZE)
		max = KNOT_WIRE_MAX_PKTSIZE;
	knot_rrset_init_empty(&opt);
	q = knot_pkt_new(out, (uint16_t)max, NULL);
	if (q == NULL)
		return -1;
	knot_pkt_clear(q);
	knot_wire_set_id(q->wire, id);
	if (knot_pkt_put_question(q, k->name, k->cls, k->type) != KNOT_EOK)
		goto out;
	if (knot_edns_init(&opt, RSV_EDNS_PAYLOAD, 0, 0, NULL) != KNOT_EOK ||
	    (ecs != NULL && rsv_msg_opt_ecs(&opt, ecs) == -1) ||
	    knot_pkt_begin(q, KNOT_ADDITIONAL) != KNOT_EOK ||
	    knot_pkt_put(q, KNOT_COMPR_HINT_NONE, &opt, 0) != KNOT_EOK)
		goto out;
	rc = (int)q->size;
out:
	knot_rrset_clear(&opt, NULL);
	knot_pkt_free(q);
	return rc;
}

int rsv_msg_matches(const knot_pkt_t *r, const struct rsv_key *k, uint16_t id)
{
	const knot_dname_t *name = knot_pkt_qname(r);

	return knot_wire_get_qr(r->wire) && knot_wire_get_id(r->wire) == id &&
	       knot_wire_get_opcode(r->wire) == KNOT_OPCODE_QUERY &&
	       knot_wire_get_qdcount(r->wire) == 1 && name && r->qname_size == k->len &&
	       memcmp(name, k->name, k->len) == 0 && knot_pkt_qtype(r) == k->type &&
	       knot_pkt_qclass(r) == k->cls;
}

/* libknot parses a record of a class other than IN with no rdata at all
 * (RDLENGTH 0 is how dynamic updates delete), and knot_soa_minimum() reads
 * at the field's offset whatever lies there: the rdata is checked whole. */
int rsv_msg_soa_minimum(const knot_rdata_t *rd, uint32_t *min)
{
	const uint8_t *end = rd->data + rd->len;
	int mname, rname;

	if (rd->len < 2 + 20)
		return -1;
	mname = knot_dname_wire_check(rd->data, end, NULL);
	if (mname <= 0)
		return -1;
	rname = knot_dname_wire_check(rd->data + mname, end, NULL);
	if (rname <= 0 || (size_t)mname + (size_t)rname + 20 != rd->len)
		return -1;
	*min = knot_soa_minimum(rd);
	return 0;
}

/* rsv_msg_soa_ttl: min(TTL, MINIMUM) of the first SOA in r's authority
 * section of the question's class with a whole rdata; 0 and *found clear
 * if there is none. */
static uint32_t rsv_msg_soa_ttl(const knot_pkt_t *r, int *found)
{
	const knot_pktsection_t *ns = knot_pkt_section(r, KNOT_AUTHORITY);

	*found = 0;
	for (uint16_t i = 0; i < ns->count; i++) {
		const knot_rrset_t *rr = knot_pkt_rr(ns, i);
		uint32_t min;

		if (rr->type != KNOT_RRTYPE_SOA || rr->rclass != knot_pkt_qclass(r) ||
		    rr->rrs.count == 0 || rsv_msg_soa_minimum(rr->rrs.rdata, &min) == -1)
			continue;
		*found = 1;
		return rr->ttl < min ? rr->ttl : min;
	}
	return 0;
}

enum rsv_class rsv_msg_classify(const knot_pkt_t *r, uint32_t *ttl)
{
	const knot_pktsection_t *an = knot_pkt_section(r, KNOT_ANSWER);
	uint16_t rcode = knot_pkt_ext_rcode(r);
	int soa;

	*ttl = 0;
	if (rcode == KNOT_RCODE_NOERROR && an->count > 0) {
		uint32_t min = UINT32_MAX;

		for (uint16_t i = 0; i < an->count; i++) {
			const knot_rrset_t *rr = knot_pkt_rr(an, i);
			if (rr->ttl < min)
				min = rr->ttl;
		}
		*ttl = min;
		return RSV_CLASS_POSITIVE;
	}
	if (rcode != KNOT_RCODE_NOERROR && rcode != KNOT_RCODE_NXDOMAIN)
		return RSV_CLASS_FAILURE;
	*ttl = rsv_msg_soa_ttl(r, &soa);
	if (!soa) /* RFC 2308 5: no SOA, not cached */
		return RSV_CLASS_UNCACHEABLE;
	return rcode == KNOT_RCODE_NXDOMAIN ? RSV_CLASS_NXDOMAIN : RSV_CLASS_NODATA;
}

const char *rsv_msg_key_str(const struct rsv_key *k, char *buf, size_t len)
{
	char name[KNOT_DNAME_TXT_MAXLEN + 1], type[32];

	if (knot_dname_to_str(name, k->name, sizeof(name)) == NULL)
		snprintf(name, sizeof(name), "?");
	if (knot_rrtype_to_string(k->type, type, sizeof(type)) < 0)
		snprintf(type, sizeof(type), "TYPE%u", k->type);
	snprintf(buf, len, "%s %s", name, type);
	return buf;
}

void rsv_msg_name_csv(const struct rsv_key *k, char *name, size_t nlen, char *type, size_t tlen)
{
	char txt[KNOT_DNAME_TXT_MAXLEN + 1];
	size_t o = 0;

	if (knot_dname_to_str(txt, k->name, sizeof(txt)) == NULL)
		snprintf(txt, sizeof(txt), "?");
	for (const char *s = txt; *s && o + 5 < nlen; s++) {
		unsigned char ch = (unsigned char)*s;

		/* libknot writes a comma as "\,": \044 keeps the field whole */
		if (ch == '\\' && (s[1] == ',' || s[1] == '"'))
			ch = (unsigned char)*++s;
		if (ch == ',' || ch == '"' || ch < 0x21 || ch > 0x7e)
			o += (size_t)snprintf(name + o, nlen - o, "\\%03u", ch);
		else
			name[o++] = (char)ch;
	}
	name[o] = '\0';
	if (knot_rrtype_to_string(k->type, type, tlen) < 0)
		snprintf(type, tlen, "TYPE%u", k->type);
}

const char *rsv_msg_rcode_name(int rcode, char *buf, size_t len)
{
	const knot_lookup_t *l = knot_lookup_by_id(knot_rcode_names, rcode);

	if (l && l->name)
		snprintf(buf, len, "%s", l->name);
	else
		snprintf(buf, len, "RCODE%d", rcode);
	return buf;
}
