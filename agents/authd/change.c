/* DNS changes during a run, applied to the database; see change.h. */
#include "change.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "policy.h"
#include "rdata.h"
#include "strfmt.h"
#include "timeutil.h"

#define CHANGE_RDATA_MAX 4096

/* change_bump: z's SOA serial plus one (RFC 1982: modulo 2^32); the
 * negative answers' SOA shares the rdata */
static uint32_t change_bump(const struct authd_zone *z)
{
	const struct authd_rrset *soa = authd_node_rrset(z->apex_node, KNOT_RRTYPE_SOA);
	uint32_t serial;

	if (soa == NULL)
		return 0;
	serial = knot_soa_serial(soa->rr.rrs.rdata) + 1;
	knot_soa_serial_set(soa->rr.rrs.rdata, serial);
	return serial;
}

/* change_owner: text as an absolute name into owner, and its zone. 0, or
 * -1 (said) */
static int change_owner(const struct authd_db *db, const char *text, knot_dname_t *owner,
			const struct authd_zone **z, char *why, size_t len)
{
	if (authd_name_parse(text, NULL, owner) == -1) {
		strfmt(why, len, "'%s': expected a domain name", text);
		return -1;
	}
	if ((*z = authd_db_zone_of(db, owner)) == NULL) {
		strfmt(why, len, "%s: not in a zone of this server", text);
		return -1;
	}
	return 0;
}

/* change_steered: the index of the [name] at owner, or -1 (said) */
static int change_steered(const struct authd_db *db, const knot_dname_t *owner, const char *text,
			  const char *op, char *why, size_t len)
{
	for (int i = 0; i < db->nnames; i++)
		if (knot_dname_is_equal(db->names[i]->owner, owner))
			return i;
	strfmt(why, len, "%s: not a [name] (%s changes a steered name's)", text, op);
	return -1;
}

static int change_set_weight(struct authd_db *db, struct authd_name *nm,
			     const struct zone_change *c, struct authd_change_result *r, char *why,
			     size_t len)
{
	char list[256] = "";
	size_t used = 0;
	int site = -1, slot = -1, others = 0;

	if (nm->policy != AUTHD_WEIGHTED) {
		strfmt(why, len,
		       "%s: policy %s has no weights (set-weight changes a weighted name's)",
		       nm->text, authd_policy_name(nm->policy));
		return -1;
	}
	for (int i = 0; i < db->nsites; i++)
		if (strcmp(db->sites[i].name, c->site) == 0)
			site = i;
	for (int i = 0; i < nm->nsites; i++) {
		if (nm->sites[i] == site)
			slot = i;
		else
			others += nm->weight[i] > 0;
		if (used < sizeof(list))
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s",
						 i ? ", " : "", db->sites[nm->sites[i]].name);
	}
	if (slot == -1) {
		strfmt(why, len, "%s: site '%s' is not one of its weighted sites (%s)", nm->text,
		       c->site, list);
		return -1;
	}
	if (c->value == 0 && others == 0) {
		strfmt(why, len,
		       "%s: a weight of 0 for %s would leave no site above 0 (expected another "
		       "site's weight raised first)",
		       nm->text, c->site);
		return -1;
	}
	r->before = json_integer(nm->weight[slot]);
	r->after = json_integer(c->value);
	nm->weight[slot] = c->value;
	/* smooth weighted round robin starts over on the new weights */
	memset(nm->swrr, 0, sizeof(nm->swrr));
	return 0;
}

/* A record as a change writes it, parsed. */
struct change_record {
	uint32_t ttl;
	int has_ttl;
	uint16_t type;
	char type_text[16];
	knot_rdata_t *rdata; /* NULL: none given (remove-record: the whole RRset) */
	uint8_t buf[CHANGE_RDATA_MAX + 4];
};

/* change_record_parse: "[TTL] [IN] TYPE DATA" (add) or "TYPE [DATA]"
 * (remove), names relative to z. 0, or -1 (said) */
static int change_record_parse(const struct authd_zone *z, const struct zone_change *c,
			       struct change_record *rec, char *why, size_t len)
{
	const char *s = c->record;
	char word[32], reason[200];
	uint8_t rd[CHANGE_RDATA_MAX];
	size_t n;
	int rdlen;

	memset(rec, 0, offsetof(struct change_record, buf));
	for (int i = 0;; i++) {
		s += strspn(s, " ");
		n = strcspn(s, " ");
		if (n == 0 || n >= sizeof(word)) {
			strfmt(why, len, "'%s': expected %s", c->record,
			       c->op == ZONE_ADD_RECORD ? "[TTL] TYPE DATA" : "TYPE [DATA]");
			return -1;
		}
		memcpy(word, s, n);
		word[n] = '\0';
		s += n;
		if (i == 0 && c->op == ZONE_ADD_RECORD && word[0] >= '0' && word[0] <= '9') {
			if (parse_ttl(word, &rec->ttl) == -1) {
				strfmt(why, len, "'%s': expected a TTL such as 30 or 5m, got '%s'",
				       c->record, word);
				return -1;
			}
			rec->has_ttl = 1;
			continue;
		}
		if (strcasecmp(word, "IN") != 0)
			break;
	}
	if (authd_type_parse(word, &rec->type) == -1) {
		strfmt(why, len,
		       "'%s': unsupported type '%s' (expected A, AAAA, CNAME, PTR, MX, SRV "
		       "or TXT)",
		       c->record, word);
		return -1;
	}
	knot_rrtype_to_string(rec->type, rec->type_text, sizeof(rec->type_text));
	if (rec->type == KNOT_RRTYPE_SOA || rec->type == KNOT_RRTYPE_NS) {
		strfmt(why, len, "%s records are not changed at run time (%s)", rec->type_text,
		       rec->type == KNOT_RRTYPE_SOA ? "the serial moves with every change"
						    : "the zone's delegations stay");
		return -1;
	}
	s += strspn(s, " ");
	if (*s == '\0') {
		if (c->op == ZONE_REMOVE_RECORD)
			return 0;
		strfmt(why, len, "'%s': expected the %s record's data", c->record, rec->type_text);
		return -1;
	}
	rdlen = authd_rdata_parse(rec->type, s, z->apex, rd, sizeof(rd), reason, sizeof(reason));
	if (rdlen < 0) {
		strfmt(why, len, "%s %s", rec->type_text, reason);
		return -1;
	}
	rec->rdata = (knot_rdata_t *)rec->buf;
	knot_rdata_init(rec->rdata, (uint16_t)rdlen, rd);
	return 0;
}

/* change_records_json: the data of rs's records, as zone-file text */
static json_t *change_records_json(const struct authd_rrset *rs)
{
	json_t *a = json_array();
	char buf[1024];

	for (uint16_t i = 0; a && rs && i < rs->rr.rrs.count; i++)
		if (knot_rrset_txt_dump_data(&rs->rr, i, buf, sizeof(buf),
					     &KNOT_DUMP_STYLE_DEFAULT) >= 0)
			json_array_append_new(a, json_string(buf));
	return a;
}

/* change_below_cut: the delegation owner is at or below, or NULL */
static const struct authd_node *
change_below_cut(const struct authd_db *db, const struct authd_zone *z, const knot_dname_t *owner)
{
	for (const knot_dname_t *name = owner; !knot_dname_is_equal(name, z->apex);
	     name += *name + 1) {
		const struct authd_node *n = authd_db_find(db, name);

		if (n && authd_node_rrset(n, KNOT_RRTYPE_NS))
			return n;
	}
	return NULL;
}

static int change_add(struct authd_db *db, const struct authd_zone *z, const knot_dname_t *owner,
		      const struct change_record *rec, struct authd_change_result *r, char *why,
		      size_t len)
{
	struct authd_node *node = authd_db_node(db, owner, 0);
	const struct authd_rrset *rs = node ? authd_node_rrset(node, rec->type) : NULL;
	const struct authd_node *cut = change_below_cut(db, z, owner);
	uint32_t ttl = rec->has_ttl ? rec->ttl : z->ttl;
	char txt[KNOT_DNAME_TXT_MAXLEN + 1];
	int first = 0;

	if (cut) {
		knot_dname_to_str(txt, cut->owner, sizeof(txt));
		strfmt(why, len, "%s is at or below the delegation %s: the child zone's", r->owner,
		       txt);
		return -1;
	}
	if (node && node->name &&
	    (rec->type == KNOT_RRTYPE_A || rec->type == KNOT_RRTYPE_AAAA ||
	     rec->type == KNOT_RRTYPE_CNAME)) {
		strfmt(why, len, "%s is a [name]: its addresses come from its sites", r->owner);
		return -1;
	}
	if (node && rec->type == KNOT_RRTYPE_CNAME && node->nrrsets > 0) {
		strfmt(why, len, "%s has other records: a CNAME must be alone", r->owner);
		return -1;
	}
	if (node && rec->type != KNOT_RRTYPE_CNAME && authd_node_rrset(node, KNOT_RRTYPE_CNAME)) {
		strfmt(why, len, "%s has a CNAME: a CNAME must be alone", r->owner);
		return -1;
	}
	if (rs && rec->has_ttl && rec->ttl != rs->rr.ttl) {
		strfmt(why, len,
		       "%s %s: its RRset's TTL is %u, got %u (RFC 2181: one TTL per RRset)",
		       r->owner, rec->type_text, rs->rr.ttl, rec->ttl);
		return -1;
	}
	if (rs && knot_rdataset_member(&rs->rr.rrs, rec->rdata)) {
		strfmt(why, len, "%s %s: that record is there already", r->owner, rec->type_text);
		return -1;
	}
	if (rs)
		ttl = rs->rr.ttl;
	r->before = change_records_json(rs);
	if ((node = authd_db_node(db, owner, 1)) == NULL ||
	    authd_db_add_rdata(node, rec->type, ttl, rec->rdata->data, rec->rdata->len, 0,
			       &first) != 0 ||
	    authd_db_refresh(db) == -1) {
		strfmt(why, len, "out of memory");
		return -1;
	}
	r->after = change_records_json(authd_node_rrset(node, rec->type));
	return 0;
}

/* change_prune: node and its ancestors gone while they hold nothing, are
 * no zone's apex and have nothing below them: their names are NXDOMAIN */
static int change_prune(struct authd_db *db, struct authd_node *node)
{
	while (node && node->nrrsets == 0 && node->name == NULL && *node->owner != 0) {
		uint8_t up[KNOT_DNAME_MAXLEN];
		const knot_dname_t *parent = node->owner + *node->owner + 1;

		for (int i = 0; i < db->nzones; i++)
			if (db->zones[i]->apex_node == node)
				return 0;
		for (size_t i = 0; i < db->nnodes; i++)
			if (db->nodes[i] != node &&
			    knot_dname_in_bailiwick(db->nodes[i]->owner, node->owner) > 0)
				return 0;
		/* the parent's name is a part of this one's: kept before it goes */
		memcpy(up, parent, knot_dname_size(parent));
		if (authd_db_remove_node(db, node) == -1)
			return -1;
		node = authd_db_node(db, up, 0);
	}
	return 0;
}

static int change_remove(struct authd_db *db, const knot_dname_t *owner,
			 const struct change_record *rec, struct authd_change_result *r, char *why,
			 size_t len)
{
	struct authd_node *node = authd_db_node(db, owner, 0);
	struct authd_rrset *rs =
	    node ? (struct authd_rrset *)authd_node_rrset(node, rec->type) : NULL;
	char data[512] = "";

	if (node && node->name && (rec->type == KNOT_RRTYPE_A || rec->type == KNOT_RRTYPE_AAAA)) {
		strfmt(why, len, "%s is a [name]: its addresses come from its sites", r->owner);
		return -1;
	}
	if (rs == NULL) {
		strfmt(why, len, "%s has no %s record", r->owner, rec->type_text);
		return -1;
	}
	if (rec->rdata && !knot_rdataset_member(&rs->rr.rrs, rec->rdata)) {
		knot_rrset_t one;

		knot_rrset_init(&one, node->owner, rec->type, KNOT_CLASS_IN, rs->rr.ttl);
		one.rrs = (knot_rdataset_t){1, knot_rdata_size(rec->rdata->len), rec->rdata};
		knot_rrset_txt_dump_data(&one, 0, data, sizeof(data), &KNOT_DUMP_STYLE_DEFAULT);
		strfmt(why, len, "%s has no %s record %s", r->owner, rec->type_text, data);
		return -1;
	}
	r->before = change_records_json(rs);
	if (rec->rdata && rs->rr.rrs.count > 1) {
		if (knot_rdataset_remove(&rs->rr.rrs, rec->rdata, NULL) != KNOT_EOK) {
			strfmt(why, len, "out of memory");
			return -1;
		}
		r->after = change_records_json(rs);
	} else {
		/* the whole RRset */
		knot_rdataset_clear(&rs->rr.rrs, NULL);
		free(rs->extra);
		memmove(rs, rs + 1, (size_t)(node->rrsets + node->nrrsets - rs - 1) * sizeof(*rs));
		node->nrrsets--;
		r->after = json_array();
	}
	if (change_prune(db, node) == -1 || authd_db_refresh(db) == -1) {
		strfmt(why, len, "out of memory");
		return -1;
	}
	return 0;
}

int authd_change_apply(struct authd_db *db, const struct zone_change *c,
		       struct authd_change_result *r, char *why, size_t len)
{
	uint8_t owner[KNOT_DNAME_MAXLEN];
	const struct authd_zone *z;
	struct change_record *rec = NULL;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	r->name = -1;
	if (change_owner(db, c->name, owner, &z, why, len) == -1)
		return -1;
	knot_dname_to_str(r->owner, owner, sizeof(r->owner));
	switch (c->op) {
	case ZONE_SET_TTL:
	case ZONE_SET_WEIGHT:
		if ((r->name = change_steered(db, owner, r->owner, zone_change_op_name(c->op), why,
					      len)) == -1)
			return -1;
		if (c->op == ZONE_SET_WEIGHT) {
			rc = change_set_weight(db, db->names[r->name], c, r, why, len);
			break;
		}
		r->before = json_integer(db->names[r->name]->ttl);
		r->after = json_integer(c->value);
		db->names[r->name]->ttl = c->value;
		rc = 0;
		break;
	case ZONE_ADD_RECORD:
	case ZONE_REMOVE_RECORD:
		if ((rec = malloc(sizeof(*rec))) == NULL) {
			strfmt(why, len, "out of memory");
			return -1;
		}
		if (change_record_parse(z, c, rec, why, len) == 0) {
			snprintf(r->type, sizeof(r->type), "%s", rec->type_text);
			rc = c->op == ZONE_ADD_RECORD ? change_add(db, z, owner, rec, r, why, len)
						      : change_remove(db, owner, rec, r, why, len);
		}
		free(rec);
		break;
	default:
		strfmt(why, len, "unknown change");
		return -1;
	}
	if (rc == -1) {
		json_decref(r->before);
		json_decref(r->after);
		r->before = r->after = NULL;
		return -1;
	}
	r->zone = z;
	r->serial = change_bump(z);
	return 0;
}
