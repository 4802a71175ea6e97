/*
 * libFuzzer target: authd's response function (agents/authd/respond.h) and
 * its health-report parser, the two things that read bytes from the
 * network. Every input is answered as a UDP and as a TCP query; a response
 * must parse with libknot, fit the transport's size limit, and echo the
 * query's ID, opcode and RD bit, and its question when it has one (the
 * name byte for byte, its case kept). The same bytes are read as a
 * health report: one that parses is written again by the prober's
 * health_report_format and parses as the same report. And as a zone change
 * (lib/zone_change.h): one that parses is written again and parses as the
 * same change, and is applied to a database of its own (agents/authd/
 * change.h), which must still answer a query for the changed name as any
 * query must be answered.
 *
 *   make fuzz       # build/fuzz/fuzz_authd
 *   make fuzz-run   # 60 s from the seed corpus tests/fuzz/corpus/authd/
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <libknot/libknot.h>

#include "agents/authd/change.h"
#include "agents/authd/conf.h"
#include "agents/authd/health.h"
#include "agents/authd/respond.h"
#include "zone_change.h"

static const char *fuzz_conf =
    "[server]\n"
    "udp_max = 1232\n"
    "[zone lab.example]\n"
    "soa = ns1 hostmaster 1 3600 600 86400 20\n"
    "record = @ NS ns1\n"
    "record = ns1 A 198.18.0.53\n"
    "record = @ MX 10 mail\n"
    "record = mail A 198.18.0.25\n"
    "record = @ TXT \"hello\" world\n"
    "record = alias CNAME www\n"
    "record = chain CNAME alias\n"
    "record = dangling CNAME nothere\n"
    "record = ext CNAME www.example.com.\n"
    "record = loop1 CNAME loop2\n"
    "record = loop2 CNAME loop1\n"
    "record = tosub CNAME x.sub\n"
    "record = deep.ent A 198.18.9.9\n"
    "record = sub NS ns.sub\n"
    "record = sub NS ns.other.example.\n"
    "record = ns.sub A 198.18.5.53\n"
    "record = ns.sub AAAA 2001:db8::53\n"
    "record = _s._tcp SRV 0 1 7000 www\n"
    "record = big TXT \"0123456789012345678901234567890123456789012345678901234567890123456789\"\n"
    "record = big TXT \"1123456789012345678901234567890123456789012345678901234567890123456789\"\n"
    "record = big TXT \"2123456789012345678901234567890123456789012345678901234567890123456789\"\n"
    "record = big TXT \"3123456789012345678901234567890123456789012345678901234567890123456789\"\n"
    "record = big TXT \"4123456789012345678901234567890123456789012345678901234567890123456789\"\n"
    "record = big TXT \"5123456789012345678901234567890123456789012345678901234567890123456789\"\n"
    "record = big TXT \"6123456789012345678901234567890123456789012345678901234567890123456789\"\n"
    "record = big TXT \"7123456789012345678901234567890123456789012345678901234567890123456789\"\n"
    "[zone other.example]\n"
    "soa = ns hostmaster 1 3600 600 86400 300\n"
    "record = x A 198.18.7.7\n"
    "[site a]\naddress = 198.19.1.1\naddress = 2001:db8:1::1\n"
    "[site b]\naddress = 198.19.2.1\n"
    "[site c]\naddress = 198.19.3.1\naddress = 198.19.3.2\n"
    "[name www.lab.example]\npolicy = simple\nsites = a b c\n"
    "[name mv.lab.example]\npolicy = multivalue\nsites = a b c\n"
    "[name fo.lab.example]\npolicy = failover\nprimary = a\nsecondary = b c\n"
    "[name w.lab.example]\npolicy = weighted\nweight = a 70\nweight = b 30\n"
    "[name wr.lab.example]\npolicy = weighted\nweighted_mode = random\nweight = a 1\n"
    "weight = c 2\n"
    "[name geo.lab.example]\npolicy = geolocation\ngeo = 198.18.1.0/24 a\n"
    "geo = 198.18.0.0/16 b\ngeo = 2001:db8::/32 c\ndefault = c\n"
    "[name geo2.lab.example]\npolicy = geolocation\ngeo = 10.0.0.0/8 a\n"
    "[name lat.lab.example]\npolicy = latency\nsites = a b c\n"
    "vantage = 198.18.1.0/24 east\nvantage = 0.0.0.0/0 west\n"
    "[name lab.example]\npolicy = failover\nprimary = b\nsecondary = a\n"
    "all_dead = fail-closed\n";

static struct authd_db *fuzz_db;
static struct authd_health fuzz_health;
static struct authd_respond_ctx fuzz_rc;
static uint8_t fuzz_out[AUTHD_MSG_MAX];

static void fuzz_report(const char *line)
{
	struct health_report r;
	struct authd_health_change c;

	if (health_report_parse(line, strlen(line), &r) == 0)
		(void)authd_health_apply(&fuzz_health, &r, &c);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	FILE *f = fmemopen((void *)fuzz_conf, strlen(fuzz_conf), "r");

	(void)argc;
	(void)argv;
	fuzz_db = authd_conf_load_stream(f, "fuzz.ini", stderr);
	fclose(f);
	if (fuzz_db == NULL)
		abort();
	authd_health_init(&fuzz_health, fuzz_db);
	fuzz_report("HEALTH east a down 0");
	fuzz_report("HEALTH east b up 900");
	fuzz_report("HEALTH east c up 300");
	fuzz_report("HEALTH west c up 100");
	if (authd_respond_init(&fuzz_rc, fuzz_db, &fuzz_health, 1) == -1)
		abort();
	return 0;
}

static void fuzz_fail(const char *what)
{
	fprintf(stderr, "authd fuzz: %s\n", what);
	abort();
}

/* fuzz_question: the question of q (len bytes) if it parses as a message
 * with one: its wire length (name, type, class) from offset 12, else 0 */
static size_t fuzz_question(const uint8_t *q, size_t len)
{
	static uint8_t copy[AUTHD_MSG_MAX];
	knot_pkt_t *p;
	size_t n = 0;

	if (len < KNOT_WIRE_HEADER_SIZE || len > sizeof(copy))
		return 0;
	memcpy(copy, q, len);
	if ((p = knot_pkt_new(copy, (uint16_t)len, NULL)) == NULL)
		fuzz_fail("knot_pkt_new");
	if (knot_pkt_parse(p, KNOT_PF_NOCANON) == KNOT_EOK && knot_pkt_qname(p) != NULL)
		n = p->qname_size + 4;
	knot_pkt_free(p);
	return n;
}

/* fuzz_check: the response (len bytes) to q (qlen) must be a DNS message
 * that fits, and echo q's ID, opcode, RD, and question (qsize bytes, 0 if
 * q has none that parses). */
static void fuzz_check(const uint8_t *q, size_t qlen, size_t qsize, size_t len, size_t limit)
{
	knot_pkt_t *p;

	if (len == 0)
		return;
	if (len > limit || len < KNOT_WIRE_HEADER_SIZE)
		fuzz_fail("a response larger than its limit, or shorter than a header");
	p = knot_pkt_new(fuzz_out, (uint16_t)len, NULL);
	if (p == NULL)
		fuzz_fail("knot_pkt_new");
	if (knot_pkt_parse(p, 0) != KNOT_EOK || !knot_wire_get_qr(fuzz_out))
		fuzz_fail("a response that does not parse, or without QR");
	if (qlen < KNOT_WIRE_HEADER_SIZE || knot_wire_get_id(fuzz_out) != knot_wire_get_id(q) ||
	    knot_wire_get_opcode(fuzz_out) != knot_wire_get_opcode(q) ||
	    knot_wire_get_rd(fuzz_out) != knot_wire_get_rd(q))
		fuzz_fail("the response's ID, opcode or RD is not the query's");
	if (qsize > 0 &&
	    (knot_wire_get_qdcount(fuzz_out) != 1 || len < KNOT_WIRE_HEADER_SIZE + qsize ||
	     memcmp(fuzz_out + KNOT_WIRE_HEADER_SIZE, q + KNOT_WIRE_HEADER_SIZE, qsize) != 0))
		fuzz_fail("the response's question is not the query's");
	knot_pkt_free(p);
}

/* fuzz_report_again: a report that parses is written by the prober's
 * writer and parses as the same report (the RTT of an up site only: a
 * down one is written with 0) */
static void fuzz_report_again(const uint8_t *data, size_t size)
{
	struct health_report r, again;
	char line[HEALTH_REPORT_MAX];
	int n;

	if (health_report_parse((const char *)data, size, &r) == -1)
		return;
	if ((n = health_report_format(&r, line, sizeof(line))) <= 0)
		fuzz_fail("a report read cannot be written in HEALTH_REPORT_MAX bytes");
	if (health_report_parse(line, (size_t)n, &again) == -1)
		fuzz_fail("a report written does not parse");
	if (strcmp(r.prober, again.prober) != 0 || strcmp(r.site, again.site) != 0 ||
	    r.up != again.up || (r.up && r.rtt_us != again.rtt_us))
		fuzz_fail("a report written and read again is another report");
}

/* fuzz_query: a query of name (text) and type into q; its length, 0 if
 * the name is not one */
static size_t fuzz_query(const char *name, uint16_t type, uint8_t *q, size_t len)
{
	uint8_t qname[KNOT_DNAME_MAXLEN];
	knot_pkt_t *p;
	size_t n = 0;

	if (knot_dname_from_str(qname, name, sizeof(qname)) == NULL)
		return 0;
	if ((p = knot_pkt_new(q, (uint16_t)len, NULL)) == NULL)
		fuzz_fail("knot_pkt_new");
	knot_pkt_clear(p);
	knot_wire_set_id(q, 0x1234);
	if (knot_pkt_put_question(p, qname, KNOT_CLASS_IN, type) == KNOT_EOK)
		n = p->size;
	knot_pkt_free(p);
	return n;
}

/* fuzz_change: a change that parses is written and read again as itself,
 * and applied to a database of its own, which still answers its name */
static void fuzz_change(const uint8_t *data, size_t size)
{
	static const uint16_t types[] = {KNOT_RRTYPE_A, KNOT_RRTYPE_ANY, KNOT_RRTYPE_MX};
	struct zone_change c, again;
	struct authd_change_result r;
	struct authd_health h;
	struct authd_respond_ctx rc;
	struct authd_db *db;
	char why[ZONE_CHANGE_REASON_LEN + 1], line[ZONE_CHANGE_LINE_MAX + 2];
	uint8_t q[512];
	FILE *f;
	int n;

	if (zone_change_parse((const char *)data, size, &c, why, sizeof(why)) == -1)
		return;
	if ((n = zone_change_format(&c, line, sizeof(line))) <= 0)
		fuzz_fail("a change read cannot be written");
	if (zone_change_parse(line, (size_t)n, &again, why, sizeof(why)) == -1 ||
	    strcmp(c.id, again.id) != 0 || c.op != again.op || strcmp(c.name, again.name) != 0 ||
	    strcmp(c.site, again.site) != 0 || c.value != again.value ||
	    strcmp(c.record, again.record) != 0)
		fuzz_fail("a change written and read again is another change");
	f = fmemopen((void *)fuzz_conf, strlen(fuzz_conf), "r");
	db = authd_conf_load_stream(f, "fuzz.ini", stderr);
	fclose(f);
	if (db == NULL)
		abort();
	authd_health_init(&h, db);
	if (authd_respond_init(&rc, db, &h, 1) == -1)
		abort();
	if (authd_change_apply(db, &c, &r, why, sizeof(why)) == 0) {
		json_decref(r.before);
		json_decref(r.after);
	}
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		size_t qlen = fuzz_query(c.name, types[i], q, sizeof(q)), len;

		if (qlen == 0)
			break;
		len = authd_respond(&rc, q, qlen, NULL, 1, fuzz_out, sizeof(fuzz_out));
		fuzz_check(q, qlen, fuzz_question(q, qlen), len, sizeof(fuzz_out));
	}
	authd_respond_free(&rc);
	authd_db_free(db);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sockaddr_in from = {.sin_family = AF_INET};
	size_t len, qsize = fuzz_question(data, size);

	from.sin_addr.s_addr = htonl(0xc6120114); /* 198.18.1.20 */
	len = authd_respond(&fuzz_rc, data, size, (struct sockaddr *)&from, 0, fuzz_out,
			    fuzz_db->server.udp_max);
	fuzz_check(data, size, qsize, len, fuzz_db->server.udp_max);
	len = authd_respond(&fuzz_rc, data, size, NULL, 1, fuzz_out, sizeof(fuzz_out));
	fuzz_check(data, size, qsize, len, sizeof(fuzz_out));
	/* the same bytes as a health report line (not applied: keep the state) */
	fuzz_report_again(data, size);
	fuzz_change(data, size);
	return 0;
}
