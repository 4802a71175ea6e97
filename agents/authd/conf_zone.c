/* authd's [zone] sections: the apex, SOA, TTL and records; see conf_int.h. */
#include "conf_int.h"

#include <string.h>

#include "rdata.h"
#include "timeutil.h"

void conf_zone_new(struct conf_parse *p, const struct conf_sect *s)
{
	uint8_t apex[KNOT_DNAME_MAXLEN];
	struct authd_zone *z, **v;
	const struct conf_entry *e;

	if (authd_name_parse(s->name, NULL, apex) == -1) {
		conf_error(p, s->line, "[zone %s]: expected a domain name", s->name);
		return;
	}
	for (int i = 0; i < p->db->nzones; i++)
		if (knot_dname_is_equal(p->db->zones[i]->apex, apex)) {
			conf_error(p, s->line, "[zone %s]: the same zone as [zone %s] at line %d",
				   s->name, p->db->zones[i]->text, p->db->zones[i]->line);
			return;
		}
	v = realloc(p->db->zones, (size_t)(p->db->nzones + 1) * sizeof(*v));
	if (v == NULL)
		return;
	p->db->zones = v;
	z = calloc(1, sizeof(*z));
	if (z == NULL || (z->apex = knot_dname_copy(apex, NULL)) == NULL) {
		free(z);
		return;
	}
	snprintf(z->text, sizeof(z->text), "%s", s->name); /* as written, for messages */
	z->line = s->line;
	z->ttl = 30;
	if ((e = conf_get(s, "ttl")) && parse_ttl(e->value, &z->ttl) == -1)
		conf_error(p, e->line, "[zone %s] ttl: expected a TTL such as 30 or 5m, got '%s'",
			   s->name, e->value);
	v[p->db->nzones++] = z;
}

static struct authd_zone *conf_zone_named(struct conf_parse *p, const char *name)
{
	uint8_t apex[KNOT_DNAME_MAXLEN];

	if (authd_name_parse(name, NULL, apex) == -1)
		return NULL;
	for (int i = 0; i < p->db->nzones; i++)
		if (knot_dname_is_equal(p->db->zones[i]->apex, apex))
			return p->db->zones[i];
	return NULL;
}

/* conf_add_record: one record at owner. */
static void conf_add_record(struct conf_parse *p, const knot_dname_t *owner, uint16_t type,
			    uint32_t ttl, const uint8_t *rd, int len, int line)
{
	struct authd_node *n = authd_db_node(p->db, owner, 1);
	int first = 0, ret;

	if (n == NULL) {
		conf_error(p, line, "out of memory");
		return;
	}
	if (n->line == 0)
		n->line = line;
	ret = authd_db_add_rdata(n, type, ttl, rd, (uint16_t)len, line, &first);
	if (ret == -2)
		conf_error(p, line,
			   "this record's TTL %u differs from its RRset's, set at line %d (RFC "
			   "2181: one TTL per RRset)",
			   ttl, first);
	else if (ret == -1)
		conf_error(p, line, "out of memory");
}

/* conf_record: "OWNER [TTL] [IN] TYPE RDATA" in zone z. */
static void conf_record(struct conf_parse *p, struct authd_zone *z, const struct conf_entry *e)
{
	char owner_txt[KNOT_DNAME_TXT_MAXLEN + 1], word[64], why[200];
	uint8_t owner[KNOT_DNAME_MAXLEN], rd[4096];
	const char *s = e->value, *rest;
	uint32_t ttl = z->ttl;
	uint16_t type;
	struct authd_zone *in;
	size_t n;
	int len;

	n = strcspn(s, " \t");
	if (n >= sizeof(owner_txt)) {
		conf_error(p, e->line, "[zone %s] record: owner name too long", z->text);
		return;
	}
	memcpy(owner_txt, s, n);
	owner_txt[n] = '\0';
	s += n;
	for (int i = 0; i < 3; i++) {
		s += strspn(s, " \t");
		n = strcspn(s, " \t");
		if (n == 0 || n >= sizeof(word))
			break;
		memcpy(word, s, n);
		word[n] = '\0';
		rest = s + n;
		if (i == 0 && word[0] >= '0' && word[0] <= '9') {
			if (parse_ttl(word, &ttl) == -1) {
				conf_error(p, e->line, "[zone %s] record: expected a TTL, got '%s'",
					   z->text, word);
				return;
			}
			s = rest;
			continue;
		}
		if (strcasecmp(word, "IN") == 0) {
			s = rest;
			continue;
		}
		break;
	}
	s += strspn(s, " \t");
	n = strcspn(s, " \t");
	if (n == 0 || n >= sizeof(word)) {
		conf_error(p, e->line, "[zone %s] record: expected OWNER [TTL] TYPE DATA, got '%s'",
			   z->text, e->value);
		return;
	}
	memcpy(word, s, n);
	word[n] = '\0';
	rest = s + n;
	if (authd_type_parse(word, &type) == -1) {
		conf_error(p, e->line,
			   "[zone %s] record: unsupported type '%s' (expected A, AAAA, CNAME, NS, "
			   "PTR, MX, SRV or TXT)",
			   z->text, word);
		return;
	}
	if (type == KNOT_RRTYPE_SOA) {
		conf_error(p, e->line,
			   "[zone %s] record: the SOA comes from the zone's 'soa' key, not from a "
			   "record",
			   z->text);
		return;
	}
	if (authd_name_parse(owner_txt, z->apex, owner) == -1) {
		conf_error(p, e->line, "[zone %s] record: expected an owner name, got '%s'",
			   z->text, owner_txt);
		return;
	}
	in = authd_db_zone_of(p->db, owner);
	if (in != z) {
		char txt[KNOT_DNAME_TXT_MAXLEN + 1];

		knot_dname_to_str(txt, owner, sizeof(txt));
		if (in)
			conf_error(p, e->line,
				   "[zone %s] record: %s is in [zone %s] (line %d): put the record "
				   "there",
				   z->text, txt, in->text, in->line);
		else
			conf_error(p, e->line, "[zone %s] record: %s is not in the zone", z->text,
				   txt);
		return;
	}
	rest += strspn(rest, " \t");
	len = authd_rdata_parse(type, rest, z->apex, rd, sizeof(rd), why, sizeof(why));
	if (len < 0) {
		conf_error(p, e->line, "[zone %s] record: %s %s", z->text, word, why);
		return;
	}
	conf_add_record(p, owner, type, ttl, rd, len, e->line);
}

void conf_zone_data(struct conf_parse *p, const struct conf_sect *s)
{
	struct authd_zone *z = conf_zone_named(p, s->name);
	const struct conf_entry *e = conf_get(s, "soa");
	uint8_t rd[1024];
	char why[200];
	int len;

	if (z == NULL || z->line != s->line)
		return; /* reported by conf_zone_new */
	if (e == NULL) {
		conf_error(p, s->line,
			   "[zone %s]: expected 'soa = MNAME RNAME SERIAL REFRESH RETRY EXPIRE "
			   "MINIMUM'",
			   s->name);
	} else if ((len = authd_rdata_parse(KNOT_RRTYPE_SOA, e->value, z->apex, rd, sizeof(rd), why,
					    sizeof(why))) < 0) {
		conf_error(p, e->line, "[zone %s] soa: %s", s->name, why);
	} else {
		conf_add_record(p, z->apex, KNOT_RRTYPE_SOA, z->ttl, rd, len, e->line);
	}
	for (int i = 0; i < s->n; i++)
		if (strcmp(s->e[i].key, "record") == 0)
			conf_record(p, z, &s->e[i]);
}

/* conf_soa: each zone's SOA, for negative answers. */
void conf_soa(struct authd_db *db)
{
	for (int i = 0; i < db->nzones; i++) {
		struct authd_zone *z = db->zones[i];
		const struct authd_rrset *soa;
		uint32_t min;

		if (z->apex_node == NULL ||
		    (soa = authd_node_rrset(z->apex_node, KNOT_RRTYPE_SOA)) == NULL)
			continue;
		z->soa = soa->rr;
		z->soa_neg = soa->rr;
		/* read unchecked: authd_rdata_parse wrote this rdata, two names
		 * and the five fields, never a packet */
		min = knot_soa_minimum(soa->rr.rrs.rdata);
		if (min < z->soa_neg.ttl)
			z->soa_neg.ttl = min;
	}
}
