/* DNS changes during a run: the CHANGE line (lib/zone_change.h), applied to
 * authd's database (agents/authd/change.h), who may send one
 * (agents/authd/allow.h), and the lab's check of a timeline's changes
 * (agents/authd/authd_check.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <arpa/inet.h>
#include <cmocka.h>
#include <jansson.h>

#include "agents/authd/allow.h"
#include "agents/authd/authd_check.h"
#include "agents/authd/authd_export.h"
#include "agents/authd/change.h"
#include "agents/authd/health.h"
#include "agents/authd/policy.h"
#include "agents/authd/respond.h"
#include "test_authd_util.h"
#include "zone_change.h"

static const char *change_conf = "[zone lab.example]\n"
				 "soa = ns1 hostmaster 2024010101 1h 10m 1d 20\n"
				 "ttl = 30\n"
				 "record = @ NS ns1\n"
				 "record = ns1 A 198.18.0.53\n"
				 "record = @ MX 10 mail\n"
				 "record = mail A 198.18.0.25\n"
				 "record = alias CNAME www\n"
				 "record = sub NS ns.sub\n"
				 "record = ns.sub A 198.18.5.53\n"
				 "[site a]\n"
				 "address = 198.19.1.1\n"
				 "[site b]\n"
				 "address = 198.19.2.1\n"
				 "[site c]\n"
				 "address = 198.19.3.1\n"
				 "[name www.lab.example]\n"
				 "policy = failover\n"
				 "primary = a\n"
				 "secondary = b\n"
				 "ttl = 10\n"
				 "[name w.lab.example]\n"
				 "policy = weighted\n"
				 "weight = a 90\n"
				 "weight = b 10\n"
				 "weight = c 0\n"
				 "ttl = 5\n";

/* change: line parsed (it must be well formed) */
static struct zone_change change(const char *line)
{
	struct zone_change c;
	char why[256];

	if (zone_change_parse(line, strlen(line), &c, why, sizeof(why)) == -1)
		fail_msg("'%s': %s", line, why);
	return c;
}

/* apply: line applied to db: 0 with *r, or -1 with why */
static int apply(struct authd_db *db, const char *line, struct authd_change_result *r, char *why,
		 size_t len)
{
	struct zone_change c = change(line);

	return authd_change_apply(db, &c, r, why, len);
}

/* applied: line applied, its serial returned, its before/after dropped */
static uint32_t applied(struct authd_db *db, const char *line)
{
	struct authd_change_result r;
	char why[256];

	if (apply(db, line, &r, why, sizeof(why)) == -1)
		fail_msg("'%s' refused: %s", line, why);
	json_decref(r.before);
	json_decref(r.after);
	return r.serial;
}

/* refused: line refused with exactly this reason, and the serial unmoved */
static void refused(struct authd_db *db, const char *line, const char *expected)
{
	struct authd_change_result r;
	uint32_t serial = knot_soa_serial(db->zones[0]->soa.rrs.rdata);
	char why[256];

	if (apply(db, line, &r, why, sizeof(why)) == 0)
		fail_msg("'%s' applied", line);
	assert_string_equal(why, expected);
	assert_null(r.before);
	assert_int_equal(knot_soa_serial(db->zones[0]->soa.rrs.rdata), serial);
}

static void test_change_parse(void **state)
{
	struct zone_change c;
	struct zone_change_reply r;
	char buf[ZONE_CHANGE_LINE_MAX + 2], why[256];

	(void)state;
	c = change("CHANGE e1 set-ttl www.lab.example 1\n");
	assert_string_equal(c.id, "e1");
	assert_int_equal(c.op, ZONE_SET_TTL);
	assert_string_equal(c.name, "www.lab.example");
	assert_int_equal(c.value, 1);
	c = change("CHANGE canary-2 set-weight w.lab.example. b 50");
	assert_int_equal(c.op, ZONE_SET_WEIGHT);
	assert_string_equal(c.site, "b");
	assert_int_equal(c.value, 50);
	c = change("CHANGE e3 add-record new.lab.example  60\tA 198.19.3.1  ");
	assert_int_equal(c.op, ZONE_ADD_RECORD);
	assert_string_equal(c.name, "new.lab.example");
	assert_string_equal(c.record, "60 A 198.19.3.1");
	c = change("CHANGE e4 remove-record new.lab.example A");
	assert_int_equal(c.op, ZONE_REMOVE_RECORD);
	assert_string_equal(c.record, "A");
	/* the lab's line is the one authd reads */
	assert_int_equal(zone_change_format(&c, buf, sizeof(buf)), 42);
	assert_string_equal(buf, "CHANGE e4 remove-record new.lab.example A\n");
	assert_true(zone_change_is(buf, strlen(buf)));
	assert_false(zone_change_is("HEALTH p1 a up 5", 16));

	static const struct {
		const char *line, *why;
	} bad[] = {
	    {"CHANGE", "expected an id of 1 to 32 letters, digits, '.', '_' or '-'"},
	    {"CHANGE e/1 set-ttl x 1",
	     "expected an id of 1 to 32 letters, digits, '.', '_' or '-'"},
	    {"CHANGE e1 set-tll x 1", "expected set-ttl, set-weight, add-record or remove-record"},
	    {"CHANGE e1 set-ttl", "set-ttl: expected a domain name"},
	    {"CHANGE e1 set-ttl x",
	     "set-ttl NAME TTL: expected a TTL in seconds (0 to 2147483647)"},
	    {"CHANGE e1 set-ttl x 5s",
	     "set-ttl NAME TTL: expected a TTL in seconds (0 to 2147483647)"},
	    {"CHANGE e1 set-ttl x 2147483648",
	     "set-ttl NAME TTL: expected a TTL in seconds (0 to 2147483647)"},
	    {"CHANGE e1 set-ttl x 1 2", "set-ttl: unexpected text after the change"},
	    {"CHANGE e1 set-weight x a",
	     "set-weight NAME SITE WEIGHT: expected a site and a weight (0 to 1000000)"},
	    {"CHANGE e1 set-weight x a 1000001",
	     "set-weight NAME SITE WEIGHT: expected a site and a weight (0 to 1000000)"},
	    {"CHANGE e1 set-weight x a -1",
	     "set-weight NAME SITE WEIGHT: expected a site and a weight (0 to 1000000)"},
	    {"CHANGE e1 add-record x",
	     "add-record: expected OWNER [TTL] TYPE DATA (at most 400 characters)"},
	    {"CHANGE e1 remove-record x  ",
	     "remove-record: expected OWNER TYPE [DATA] (at most 400 characters)"},
	    {"HEALTH p1 a up 5", "expected CHANGE ID OP ..."},
	    {"CHANGE e1 set-ttl x 1\nCHANGE e2 set-ttl x 1", "expected one line of text"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (zone_change_parse(bad[i].line, strlen(bad[i].line), &c, why, sizeof(why)) != -1)
			fail_msg("accepted '%s'", bad[i].line);
		if (strcmp(why, bad[i].why) != 0)
			fail_msg("'%s': said '%s', expected '%s'", bad[i].line, why, bad[i].why);
	}
	/* the id is known once read, so that the refusal names it */
	assert_int_equal(zone_change_parse("CHANGE e7 bad", 13, &c, why, sizeof(why)), -1);
	assert_string_equal(c.id, "e7");
	/* a NUL inside */
	assert_int_equal(zone_change_parse("CHANGE e1\0set-ttl x 1", 21, &c, why, sizeof(why)), -1);

	/* replies */
	r = (struct zone_change_reply){.ok = 1, .serial = 2024010102};
	snprintf(r.id, sizeof(r.id), "e1");
	assert_true(zone_change_reply_format(&r, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "OK e1 2024010102\n");
	assert_int_equal(zone_change_reply_parse(buf, strlen(buf), &r), 0);
	assert_true(r.ok);
	assert_int_equal(r.serial, 2024010102);
	r = (struct zone_change_reply){.ok = 0};
	snprintf(r.reason, sizeof(r.reason), "x.: not a [name]\n(set-ttl ...)");
	assert_true(zone_change_reply_format(&r, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "ERR - x.: not a [name] (set-ttl ...)\n");
	assert_int_equal(zone_change_reply_parse(buf, strlen(buf), &r), 0);
	assert_false(r.ok);
	assert_string_equal(r.id, "");
	assert_string_equal(r.reason, "x.: not a [name] (set-ttl ...)");
	assert_int_equal(zone_change_reply_parse("OK e1 x", 7, &r), -1);
	assert_int_equal(zone_change_reply_parse("MAYBE e1", 8, &r), -1);
}

static void test_change_ttl(void **state)
{
	struct authd_db *db = test_load(change_conf);
	struct authd_change_result r;
	char why[256];

	(void)state;
	assert_non_null(db);
	assert_int_equal(apply(db, "CHANGE e1 set-ttl www.lab.example 1", &r, why, sizeof(why)), 0);
	assert_string_equal(r.owner, "www.lab.example.");
	assert_int_equal(json_integer_value(r.before), 10);
	assert_int_equal(json_integer_value(r.after), 1);
	assert_int_equal(r.serial, 2024010102);
	assert_ptr_equal(r.zone, db->zones[0]);
	assert_int_equal(test_name(db, "www.lab.example.")->ttl, 1);
	/* negative answers carry the new serial: the SOA's rdata is shared */
	assert_int_equal(knot_soa_serial(db->zones[0]->soa_neg.rrs.rdata), 2024010102);
	json_decref(r.before);
	json_decref(r.after);
	assert_int_equal(applied(db, "CHANGE e2 set-ttl www.lab.example. 3600"), 2024010103);
	refused(db, "CHANGE e3 set-ttl mail.lab.example 5",
		"mail.lab.example.: not a [name] (set-ttl changes a steered name's)");
	refused(db, "CHANGE e3 set-ttl www.example.com 5",
		"www.example.com: not in a zone of this server");
	refused(db, "CHANGE e3 set-ttl www..lab 5", "'www..lab': expected a domain name");
	authd_db_free(db);
}

/* shares: of 100 weighted answers, how many each site got */
static void shares(struct authd_db *db, int *a, int *b, int *c)
{
	struct authd_name *nm = test_name(db, "w.lab.example.");
	struct authd_client cl = {0};
	struct authd_pick p;
	uint64_t rng = 1;

	*a = *b = *c = 0;
	authd_policy_select(nm, AUTHD_V4, &cl, NULL, db->sites, AUTHD_FAIL_OPEN, &p);
	for (int i = 0; i < 100; i++) {
		int s = nm->sites[authd_policy_weighted_pick(nm, AUTHD_V4, &p, &rng)];

		*a += s == 0;
		*b += s == 1;
		*c += s == 2;
	}
}

static void test_change_weight(void **state)
{
	struct authd_db *db = test_load(change_conf);
	struct authd_change_result r;
	int a, b, c;
	char why[256];

	(void)state;
	assert_non_null(db);
	/* a site of weight 0 is in the name, and in no answer */
	shares(db, &a, &b, &c);
	assert_int_equal(a, 90);
	assert_int_equal(b, 10);
	assert_int_equal(c, 0);
	assert_int_equal(apply(db, "CHANGE e1 set-weight w.lab.example a 50", &r, why, sizeof(why)),
			 0);
	assert_int_equal(json_integer_value(r.before), 90);
	assert_int_equal(json_integer_value(r.after), 50);
	assert_int_equal(r.serial, 2024010102);
	json_decref(r.before);
	json_decref(r.after);
	applied(db, "CHANGE e2 set-weight w.lab.example b 50");
	shares(db, &a, &b, &c);
	assert_int_equal(a, 50);
	assert_int_equal(b, 50);
	applied(db, "CHANGE e3 set-weight w.lab.example b 100");
	applied(db, "CHANGE e4 set-weight w.lab.example a 0");
	shares(db, &a, &b, &c);
	assert_int_equal(a, 0);
	assert_int_equal(b, 100);
	refused(db, "CHANGE e5 set-weight w.lab.example b 0",
		"w.lab.example.: a weight of 0 for b would leave no site above 0 (expected another "
		"site's weight raised first)");
	refused(db, "CHANGE e5 set-weight w.lab.example d 5",
		"w.lab.example.: site 'd' is not one of its weighted sites (a, b, c)");
	refused(db, "CHANGE e5 set-weight www.lab.example b 5",
		"www.lab.example.: policy failover has no weights (set-weight changes a weighted "
		"name's)");
	refused(db, "CHANGE e5 set-weight ns1.lab.example a 5",
		"ns1.lab.example.: not a [name] (set-weight changes a steered name's)");
	authd_db_free(db);
	/* the configuration: a weight of 0, but not only weights of 0 */
	char *errors = test_load_errors("[zone lab.example]\nsoa = ns1 hostmaster 1 1h 10m 1d 20\n"
					"[site a]\naddress = 198.19.1.1\n"
					"[name w.lab.example]\npolicy = weighted\nweight = a 0\n");
	assert_non_null(errors);
	assert_string_equal(errors, "test.ini:5: [name w.lab.example]: expected a weight above 0 "
				    "for at least one site (a site of weight 0 is handed out to "
				    "no one)\n");
	free(errors);
}

/* fixture for answers */
struct answers {
	struct authd_db *db;
	struct authd_health h;
	struct authd_respond_ctx rc;
	uint8_t q[AUTHD_MSG_MAX], r[AUTHD_MSG_MAX];
};

/* answer: rcode, answer count and first TTL of name/type, and the
 * additional section's record count */
static void answer(struct answers *x, const char *name, uint16_t type, int *rcode, int *count,
		   uint32_t *ttl, int *additional)
{
	uint8_t qname[KNOT_DNAME_MAXLEN];
	knot_pkt_t *q = knot_pkt_new(x->q, sizeof(x->q), NULL), *resp;
	struct sockaddr_in from = {.sin_family = AF_INET};
	size_t qlen, rlen;

	knot_pkt_clear(q);
	assert_non_null(knot_dname_from_str(qname, name, sizeof(qname)));
	assert_int_equal(knot_pkt_put_question(q, qname, KNOT_CLASS_IN, type), KNOT_EOK);
	qlen = q->size;
	knot_pkt_free(q);
	rlen = authd_respond(&x->rc, x->q, qlen, (struct sockaddr *)&from, 0, x->r, 512);
	assert_true(rlen > 0);
	resp = knot_pkt_new(x->r, (uint16_t)rlen, NULL);
	assert_int_equal(knot_pkt_parse(resp, 0), KNOT_EOK);
	*rcode = knot_wire_get_rcode(x->r);
	*count = knot_pkt_section(resp, KNOT_ANSWER)->count;
	*ttl = *count ? knot_pkt_rr(knot_pkt_section(resp, KNOT_ANSWER), 0)->ttl
		      : knot_pkt_rr(knot_pkt_section(resp, KNOT_AUTHORITY), 0)->ttl;
	*additional = knot_pkt_section(resp, KNOT_ADDITIONAL)->count;
	knot_pkt_free(resp);
}

static void test_change_records(void **state)
{
	struct answers *x = calloc(1, sizeof(*x));
	struct authd_change_result r;
	int rcode, count, extra;
	uint32_t ttl;
	char why[256];

	(void)state;
	x->db = test_load(change_conf);
	assert_non_null(x->db);
	authd_health_init(&x->h, x->db);
	assert_int_equal(authd_respond_init(&x->rc, x->db, &x->h, 42), 0);

	/* seed 002's name that appears: NXDOMAIN with the SOA (negative TTL
	 * min(30, 20)), then the record */
	answer(x, "new.lab.example.", KNOT_RRTYPE_A, &rcode, &count, &ttl, &extra);
	assert_int_equal(rcode, KNOT_RCODE_NXDOMAIN);
	assert_int_equal(ttl, 20);
	assert_int_equal(apply(x->db, "CHANGE e1 add-record new.lab.example 60 A 198.19.9.1", &r,
			       why, sizeof(why)),
			 0);
	assert_string_equal(r.type, "A");
	assert_int_equal(json_array_size(r.before), 0);
	assert_string_equal(json_string_value(json_array_get(r.after, 0)), "198.19.9.1");
	json_decref(r.before);
	json_decref(r.after);
	answer(x, "new.lab.example.", KNOT_RRTYPE_A, &rcode, &count, &ttl, &extra);
	assert_int_equal(rcode, KNOT_RCODE_NOERROR);
	assert_int_equal(count, 1);
	assert_int_equal(ttl, 60);
	/* a second record takes the RRset's TTL */
	applied(x->db, "CHANGE e2 add-record new.lab.example A 198.19.9.2");
	answer(x, "new.lab.example.", KNOT_RRTYPE_A, &rcode, &count, &ttl, &extra);
	assert_int_equal(count, 2);
	assert_int_equal(ttl, 60);
	/* a deeper name makes an empty non-terminal, gone with it */
	applied(x->db, "CHANGE e3 add-record a.b.lab.example TXT \"hello\"");
	answer(x, "b.lab.example.", KNOT_RRTYPE_A, &rcode, &count, &ttl, &extra);
	assert_int_equal(rcode, KNOT_RCODE_NOERROR);
	assert_int_equal(count, 0);
	applied(x->db, "CHANGE e4 remove-record a.b.lab.example TXT");
	answer(x, "b.lab.example.", KNOT_RRTYPE_A, &rcode, &count, &ttl, &extra);
	assert_int_equal(rcode, KNOT_RCODE_NXDOMAIN);
	/* one record of two, then the last: NXDOMAIN again */
	applied(x->db, "CHANGE e5 remove-record new.lab.example A 198.19.9.1");
	answer(x, "new.lab.example.", KNOT_RRTYPE_A, &rcode, &count, &ttl, &extra);
	assert_int_equal(count, 1);
	assert_int_equal(applied(x->db, "CHANGE e6 remove-record new.lab.example A 198.19.9.2"),
			 2024010107);
	answer(x, "new.lab.example.", KNOT_RRTYPE_A, &rcode, &count, &ttl, &extra);
	assert_int_equal(rcode, KNOT_RCODE_NXDOMAIN);
	/* the MX's target gains an AAAA, then loses its A: the glue follows */
	answer(x, "lab.example.", KNOT_RRTYPE_MX, &rcode, &count, &ttl, &extra);
	assert_int_equal(extra, 1);
	applied(x->db, "CHANGE e7 add-record mail.lab.example AAAA 2001:db8::25");
	answer(x, "lab.example.", KNOT_RRTYPE_MX, &rcode, &count, &ttl, &extra);
	assert_int_equal(extra, 2);
	applied(x->db, "CHANGE e8 remove-record mail.lab.example A");
	answer(x, "lab.example.", KNOT_RRTYPE_MX, &rcode, &count, &ttl, &extra);
	assert_int_equal(extra, 1);

	refused(x->db, "CHANGE e9 add-record lab.example SOA ns1 h 1 1 1 1 1",
		"SOA records are not changed at run time (the serial moves with every change)");
	refused(x->db, "CHANGE e9 add-record other.lab.example NS ns1",
		"NS records are not changed at run time (the zone's delegations stay)");
	refused(x->db, "CHANGE e9 add-record x.sub.lab.example A 198.19.9.1",
		"x.sub.lab.example. is at or below the delegation sub.lab.example.: the child "
		"zone's");
	refused(x->db, "CHANGE e9 add-record www.lab.example A 198.19.9.1",
		"www.lab.example. is a [name]: its addresses come from its sites");
	refused(x->db, "CHANGE e9 remove-record www.lab.example A",
		"www.lab.example. is a [name]: its addresses come from its sites");
	refused(x->db, "CHANGE e9 add-record alias.lab.example TXT x",
		"alias.lab.example. has a CNAME: a CNAME must be alone");
	refused(x->db, "CHANGE e9 add-record ns1.lab.example CNAME www",
		"ns1.lab.example. has other records: a CNAME must be alone");
	refused(x->db, "CHANGE e9 add-record ns1.lab.example 60 A 198.18.0.54",
		"ns1.lab.example. A: its RRset's TTL is 30, got 60 (RFC 2181: one TTL per RRset)");
	refused(x->db, "CHANGE e9 add-record ns1.lab.example A 198.18.0.53",
		"ns1.lab.example. A: that record is there already");
	refused(x->db, "CHANGE e9 add-record ns1.lab.example A 198.18.0",
		"A expected an IPv4 address, got '198.18.0'");
	refused(x->db, "CHANGE e9 add-record ns1.lab.example HINFO a b",
		"'HINFO a b': unsupported type 'HINFO' (expected A, AAAA, CNAME, PTR, MX, SRV or "
		"TXT)");
	refused(x->db, "CHANGE e9 add-record ns1.lab.example A",
		"'A': expected the A record's data");
	refused(x->db, "CHANGE e9 remove-record nx.lab.example A",
		"nx.lab.example. has no A record");
	refused(x->db, "CHANGE e9 remove-record ns1.lab.example A 198.18.0.54",
		"ns1.lab.example. has no A record 198.18.0.54");
	authd_respond_free(&x->rc);
	authd_db_free(x->db);
	free(x);
}

static void test_change_serial_wraps(void **state)
{
	struct authd_db *db = test_load("[zone lab.example]\n"
					"soa = ns1 hostmaster 4294967295 1h 10m 1d 20\n"
					"record = x A 198.19.1.1\n");

	(void)state;
	assert_non_null(db);
	/* RFC 1982: the serial after 2^32 - 1 is 0 */
	assert_int_equal(applied(db, "CHANGE e1 add-record y.lab.example A 198.19.1.2"), 0);
	assert_int_equal(applied(db, "CHANGE e2 remove-record y.lab.example A"), 1);
	authd_db_free(db);
}

static void from4(struct sockaddr_storage *ss, const char *addr)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	sin->sin_family = AF_INET;
	inet_pton(AF_INET, addr, &sin->sin_addr);
}

static void test_change_entitled(void **state)
{
	struct authd_allow *al = calloc(1, sizeof(*al));
	struct sockaddr_storage from;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&from;
	char reason[160];

	(void)state;
	/* without -A, nobody */
	from4(&from, "127.0.0.1");
	assert_int_equal(authd_allow_change(al, &from, reason, sizeof(reason)), -1);
	assert_string_equal(reason, "no -A: zone changes from nobody");
	/* the lab's: a prober may report, only loopback may change */
	assert_int_equal(authd_allow_add(al, "p1=198.18.0.14"), 0);
	assert_int_equal(authd_allow_changer(al, "127.0.0.1"), 0);
	assert_int_equal(authd_allow_change(al, &from, reason, sizeof(reason)), 0);
	from4(&from, "198.18.0.14");
	assert_int_equal(authd_allow_change(al, &from, reason, sizeof(reason)), -1);
	assert_string_equal(reason, "sender not allowed to change the zones");
	from4(&from, "127.0.0.1");
	assert_int_equal(authd_allow_check(al, &from, "p1", reason, sizeof(reason)), -1);
	assert_string_equal(reason, "sender not allowed");
	/* an IPv4-mapped source is its IPv4 address */
	memset(&from, 0, sizeof(from));
	sin6->sin6_family = AF_INET6;
	inet_pton(AF_INET6, "::ffff:127.0.0.1", &sin6->sin6_addr);
	assert_int_equal(authd_allow_change(al, &from, reason, sizeof(reason)), 0);
	inet_pton(AF_INET6, "::1", &sin6->sin6_addr);
	assert_int_equal(authd_allow_change(al, &from, reason, sizeof(reason)), -1);
	assert_int_equal(authd_allow_changer(al, "::1"), 0);
	assert_int_equal(authd_allow_change(al, &from, reason, sizeof(reason)), 0);
	/* at most 8, each an address */
	assert_int_equal(authd_allow_changer(al, "localhost"), -1);
	for (int i = 2; i < AUTHD_MAX_CHANGERS; i++)
		assert_int_equal(authd_allow_changer(al, "198.18.0.1"), 0);
	assert_int_equal(authd_allow_changer(al, "198.18.0.1"), -1);
	free(al);
}

static void test_check_changes(void **state)
{
	struct authd_check_change c[3];
	char *out = NULL;
	size_t len = 0;
	FILE *f = fmemopen((void *)change_conf, strlen(change_conf), "r"), *err;

	(void)state;
	memset(c, 0, sizeof(c));
	c[0].change = change("CHANGE e1 set-weight w.lab.example a 0");
	c[0].line = 40;
	snprintf(c[0].label, sizeof(c[0].label), "[event e1]");
	/* the second applies to what the first left: b alone above 0 */
	c[1].change = change("CHANGE e2 set-weight w.lab.example b 0");
	c[1].line = 45;
	snprintf(c[1].label, sizeof(c[1].label), "[event e2]");
	c[2].change = change("CHANGE e3 remove-record gone.lab.example A");
	c[2].line = 50;
	snprintf(c[2].label, sizeof(c[2].label), "[event e3]");
	err = open_memstream(&out, &len);
	assert_int_equal(authd_check_changes(f, "t.ini", c, 3, err), -1);
	fclose(err);
	assert_string_equal(out,
			    "t.ini:45: [event e2]: w.lab.example.: a weight of 0 for b would leave "
			    "no site above 0 (expected another site's weight raised first)\n"
			    "t.ini:50: [event e3]: gone.lab.example. has no A record\n");
	free(out);
	rewind(f);
	err = open_memstream(&out, &len);
	assert_int_equal(authd_check_changes(f, "t.ini", c, 1, err), 0);
	fclose(err);
	assert_string_equal(out, "");
	free(out);
	fclose(f);
}

/* what authd_export_stream_changed handed on: the zone's records and its
 * names' TTLs and weights */
struct export_seen {
	int calls;
	char records[4096];
	uint32_t ttl[4], weight_b;
};

static int export_collect(void *arg, const char *apex, const char *records,
			  const struct authd_export_name *names, int n)
{
	struct export_seen *x = arg;

	(void)apex;
	x->calls++;
	snprintf(x->records, sizeof(x->records), "%s", records);
	for (int i = 0; i < n && i < 4; i++) {
		x->ttl[i] = names[i].ttl;
		if (strcmp(names[i].owner, "w.lab.example.") == 0)
			x->weight_b = names[i].sites[1].weight;
	}
	return 0;
}

/* the export PowerDNS's and gdnsd's files are written from, with the
 * timeline's changes applied in order (lab/build/authority_change.c): the
 * TTL, the weight, the record, the serial of the last; a change authd
 * would refuse refuses the whole, with its reason, and nothing is handed
 * on */
static void test_export_changed(void **state)
{
	struct zone_change c[3];
	struct authd_export_changes ch = {.c = c, .n = 3};
	struct export_seen x;
	FILE *f;

	(void)state;
	c[0] = change("CHANGE lower set-ttl www.lab.example 2");
	c[1] = change("CHANGE add add-record new.lab.example A 198.19.3.9");
	c[2] = change("CHANGE drain set-weight w.lab.example b 0");
	memset(&x, 0, sizeof(x));
	f = fmemopen((void *)change_conf, strlen(change_conf), "r");
	assert_int_equal(authd_export_stream_changed(f, "t.ini", stderr, &ch, export_collect, &x),
			 0);
	fclose(f);
	assert_int_equal(ch.ok, 1);
	assert_int_equal(ch.serial, 2024010104);
	assert_int_equal(x.calls, 1);
	assert_non_null(strstr(x.records, "new.lab.example."));
	assert_non_null(strstr(x.records, "198.19.3.9"));
	assert_non_null(strstr(x.records, "2024010104"));
	assert_int_equal(x.ttl[0], 2);
	assert_int_equal(x.weight_b, 0);
	c[1] = change("CHANGE gone remove-record new.lab.example A");
	memset(&x, 0, sizeof(x));
	f = fmemopen((void *)change_conf, strlen(change_conf), "r");
	assert_int_equal(authd_export_stream_changed(f, "t.ini", stderr, &ch, export_collect, &x),
			 -1);
	fclose(f);
	assert_int_equal(ch.ok, 0);
	assert_true(ch.reason[0] != '\0');
	assert_int_equal(x.calls, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_change_parse),	cmocka_unit_test(test_change_ttl),
	    cmocka_unit_test(test_change_weight),	cmocka_unit_test(test_change_records),
	    cmocka_unit_test(test_change_serial_wraps), cmocka_unit_test(test_change_entitled),
	    cmocka_unit_test(test_check_changes),	cmocka_unit_test(test_export_changed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
