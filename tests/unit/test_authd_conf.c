/* authd's configuration (conf.h, rdata.h): what loads, and file:line
 * errors for what does not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <arpa/inet.h>
#include <cmocka.h>
#include <unistd.h>

#include "agents/authd/rdata.h"
#include "test_authd_util.h"
#include "timeutil.h"

#define ZONE "[zone lab.example]\nsoa = ns1 hostmaster 1 3600 600 86400 30\n"
#define SITES "[site a]\naddress = 198.19.1.1\n[site b]\naddress = 198.19.2.1\n"

/* expect: loading text fails with exactly these messages */
static void expect(const char *text, const char *errors)
{
	char *got = test_load_errors(text);

	if (got == NULL)
		fail_msg("loaded, expected:\n%s", errors);
	if (strcmp(got, errors) != 0)
		fail_msg("got:\n%s\nexpected:\n%s", got, errors);
	free(got);
}

static void test_minimal_and_defaults(void **state)
{
	struct authd_db *db = test_load(ZONE);
	struct sockaddr_in *sin;

	(void)state;
	assert_non_null(db);
	assert_int_equal(db->nzones, 1);
	assert_int_equal(db->server.nlisten, 1);
	sin = (struct sockaddr_in *)&db->server.listen[0];
	assert_int_equal(ntohs(sin->sin_port), 53);
	assert_int_equal(sin->sin_addr.s_addr, htonl(INADDR_ANY));
	assert_int_equal(db->server.has_control, 1);
	assert_int_equal(ntohs(((struct sockaddr_in *)&db->server.control)->sin_port), 5353);
	assert_true(db->server.quorum == 0.5);
	assert_int_equal(db->server.all_dead, AUTHD_FAIL_OPEN);
	assert_int_equal(db->server.udp_max, 1232);
	assert_int_equal(db->zones[0]->ttl, 30);
	/* negative TTL: min(SOA TTL 30, MINIMUM 30) */
	assert_int_equal(db->zones[0]->soa_neg.ttl, 30);
	authd_db_free(db);
}

static void test_full(void **state)
{
	const char *text = "; a comment\n"
			   "# another\n"
			   "[server]\n"
			   "listen = 127.0.0.1:5300\n"
			   "listen = [::1]:5300\n"
			   "control = none\n"
			   "quorum = 0.3\n"
			   "all_dead = fail-closed\n"
			   "udp_max = 1400\n"
			   "tcp_idle = 2s\n"
			   "tcp_max = 10\n"
			   "[name w.lab.example.]\n" /* before its zone and sites: order is free */
			   "policy = weighted\n"
			   "weight = a 3\n"
			   "weight = b 1\n"
			   "ttl = 1m\n"
			   "all_dead = fail-open\n" ZONE "ttl = 1h\n"
			   "record = @ NS ns1\n"
			   "record = ns1 A 198.18.0.53\n"
			   "record = ns1.lab.example AAAA 2001:db8::53\n"
			   "record = www 300 IN CNAME w\n" SITES;
	struct authd_db *db = test_load(text);
	struct authd_name *nm;

	(void)state;
	assert_non_null(db);
	assert_int_equal(db->server.nlisten, 2);
	assert_int_equal(db->server.listen[1].ss_family, AF_INET6);
	assert_int_equal(db->server.has_control, 0);
	assert_true(db->server.quorum > 0.29 && db->server.quorum < 0.31);
	assert_int_equal(db->server.all_dead, AUTHD_FAIL_CLOSED);
	assert_int_equal(db->server.udp_max, 1400);
	assert_int_equal(db->server.tcp_idle_ns, 2000000000LL);
	assert_int_equal(db->server.tcp_max, 10);
	nm = test_name(db, "w.lab.example.");
	assert_non_null(nm);
	assert_int_equal(nm->policy, AUTHD_WEIGHTED);
	assert_int_equal(nm->ttl, 60);
	assert_int_equal(nm->all_dead, AUTHD_FAIL_OPEN);
	assert_int_equal(nm->nsites, 2);
	assert_int_equal(nm->weight[0], 3);
	assert_int_equal(db->zones[0]->soa_neg.ttl, 30); /* MINIMUM 30 < TTL 3600 */
	authd_db_free(db);
}

static void test_syntax_errors(void **state)
{
	(void)state;
	expect("key = value\n" ZONE,
	       "test.ini:1: 'key = value' outside any section (expected [server], [zone NAME], "
	       "[site NAME] or [name NAME] first)\n");
	expect(ZONE "[bogus x]\n",
	       "test.ini:3: unknown section kind 'bogus' (expected [server], [zone NAME], "
	       "[site NAME] or [name NAME])\n");
	expect(ZONE "[site]\n", "test.ini:3: expected one name: [site NAME]\n");
	expect(ZONE "[server x]\n", "test.ini:3: [server] takes no name (expected [server])\n");
	expect(ZONE "[site a\n",
	       "test.ini:3: expected ']' to close the section header '[site a'\n");
	expect(ZONE "just words\n",
	       "test.ini:3: expected 'key = value', a [section] or a comment, got 'just words'\n");
	expect(ZONE "ttl = 5\n  ttl = 6\n",
	       "test.ini:4: unexpected indentation: values do not continue on the next line\n");
	expect(ZONE "ttl = 5\nttl = 6\n",
	       "test.ini:4: [zone lab.example] ttl: set twice (first at line 3)\n");
	expect(ZONE "colour = red\n",
	       "test.ini:3: unknown key 'colour' in [zone lab.example] (expected: soa, ttl, "
	       "record)\n");
	expect(ZONE ZONE, "test.ini:3: duplicate [zone lab.example] (first at line 1)\n");
	expect("[server]\n", "test.ini: no [zone NAME] section: authd would answer nothing\n");
}

static void test_server_errors(void **state)
{
	(void)state;
	expect(
	    "[server]\nlisten = 1.2.3:53\n" ZONE,
	    "test.ini:2: [server] listen: expected ADDR[:PORT] or [IPV6]:PORT, got '1.2.3:53'\n");
	expect("[server]\nquorum = 1\n" ZONE,
	       "test.ini:2: [server] quorum: expected a share from 0 to below 1 (e.g. 0.5), got "
	       "'1'\n");
	expect("[server]\nall_dead = maybe\n" ZONE,
	       "test.ini:2: [server] all_dead: expected fail-open or fail-closed, got 'maybe'\n");
	expect("[server]\nudp_max = 100\n" ZONE,
	       "test.ini:2: [server] udp_max: expected a size from 512 to 4096, got '100'\n");
	expect("[server]\ntcp_idle = soon\n" ZONE,
	       "test.ini:2: [server] tcp_idle: expected a duration such as 10s, got 'soon'\n");
}

static void test_zone_errors(void **state)
{
	(void)state;
	expect("[zone lab.example]\n",
	       "test.ini:1: [zone lab.example]: expected 'soa = MNAME RNAME SERIAL REFRESH RETRY "
	       "EXPIRE MINIMUM'\n");
	expect("[zone lab.example]\nsoa = ns1 hostmaster 1 2 3\n",
	       "test.ini:2: [zone lab.example] soa: expected MNAME RNAME SERIAL REFRESH RETRY "
	       "EXPIRE MINIMUM, got 'ns1 hostmaster 1 2 3'\n");
	expect(ZONE "record = www A 198.19.1\n",
	       "test.ini:3: [zone lab.example] record: A expected an IPv4 address, got "
	       "'198.19.1'\n");
	expect(ZONE "record = www HINFO x y\n",
	       "test.ini:3: [zone lab.example] record: unsupported type 'HINFO' (expected A, "
	       "AAAA, CNAME, NS, PTR, MX, SRV or TXT)\n");
	expect(ZONE "record = www\n",
	       "test.ini:3: [zone lab.example] record: expected OWNER [TTL] TYPE DATA, got "
	       "'www'\n");
	expect(ZONE "record = www.example.com. A 1.2.3.4\n",
	       "test.ini:3: [zone lab.example] record: www.example.com. is not in the zone\n");
	expect(ZONE "record = @ SOA ns1 hm 1 1 1 1 1\n",
	       "test.ini:3: [zone lab.example] record: the SOA comes from the zone's 'soa' key, "
	       "not from a record\n");
	expect(ZONE "record = t TXT \"unterminated\n",
	       "test.ini:3: [zone lab.example] record: TXT unterminated \"string\"\n");
	expect(ZONE "record = www A 1.2.3.4\nrecord = www 60 A 1.2.3.5\n",
	       "test.ini:4: this record's TTL 60 differs from its RRset's, set at line 3 (RFC "
	       "2181: one TTL per RRset)\n");
	expect(ZONE "record = www CNAME x\nrecord = www A 1.2.3.4\n",
	       "test.ini:3: www.lab.example. has a CNAME and other records: a CNAME must be "
	       "alone\n");
	expect(ZONE "record = sub NS ns.sub\nrecord = x.sub TXT hi\n",
	       "test.ini:4: x.sub.lab.example. is below a delegation: only A and AAAA glue may "
	       "be there\n");
	expect(ZONE "record = sub NS ns.sub\nrecord = sub MX 1 mx\n",
	       "test.ini:4: sub.lab.example. is a delegation (it has NS records): only NS, DS "
	       "and glue may be there\n");
	expect(ZONE "[zone sub.lab.example]\nsoa = ns hm 1 1 1 1 1\n[zone lab.example.]\n"
		    "soa = ns hm 1 1 1 1 1\n",
	       "test.ini:5: [zone lab.example.]: the same zone as [zone lab.example] at line 1\n");
	expect(ZONE "record = x.sub A 1.2.3.4\n[zone sub.lab.example]\nsoa = ns hm 1 1 1 1 1\n",
	       "test.ini:3: [zone lab.example] record: x.sub.lab.example. is in [zone "
	       "sub.lab.example] (line 4): put the record there\n");
}

static void test_site_errors(void **state)
{
	(void)state;
	expect(ZONE "[site a]\n", "test.ini:3: [site a]: expected at least one 'address = ADDR'\n");
	expect(ZONE "[site a]\naddress = somewhere\n",
	       "test.ini:4: [site a] address: expected an IPv4 or IPv6 address, got "
	       "'somewhere'\n");
	expect(ZONE "[site a/b]\naddress = 1.2.3.4\n",
	       "test.ini:3: [site a/b]: expected a site name of 1 to 16 letters, digits, '.', "
	       "'_' or '-'\n");
	expect(ZONE "[site a]\naddress = 1.2.3.4\n[site a]\naddress = 1.2.3.5\n",
	       "test.ini:5: duplicate [site a] (first at line 3)\n");
}

static void test_name_errors(void **state)
{
	(void)state;
	expect(ZONE SITES "[name www.other.example]\npolicy = simple\nsites = a\n",
	       "test.ini:7: [name www.other.example]: not in any [zone]\n");
	expect(ZONE SITES "[name www.lab.example]\nsites = a\n",
	       "test.ini:7: [name www.lab.example]: expected 'policy = simple, multivalue, "
	       "failover, weighted, geolocation, latency or proximity'\n");
	expect(ZONE SITES "[name www.lab.example]\npolicy = best\n",
	       "test.ini:8: [name www.lab.example] policy: expected simple, multivalue, failover, "
	       "weighted, geolocation, latency or proximity, got 'best'\n");
	expect(ZONE SITES "[name www.lab.example]\npolicy = proximity\ntier = www.us.example a\n"
			  "sites = b\n",
	       "test.ini:10: [name www.lab.example] sites: a tiered name's sites are its tiers' "
	       "(tier = TARGET SITE ...): expected one or the other\n");
	expect(ZONE SITES "[name www.lab.example]\npolicy = proximity\ntier = www.us.example a\n"
			  "tier = www.eu.example a\n",
	       "test.ini:10: [name www.lab.example] tier: site 'a' is already in tier "
	       "www.us.example.\n");
	expect(ZONE SITES "[name www.lab.example]\npolicy = proximity\ntier = www.us.example\n",
	       "test.ini:9: [name www.lab.example] tier www.us.example.: expected the sites it "
	       "stands for after it\n");
	expect(ZONE SITES "[name www.lab.example]\npolicy = simple\n",
	       "test.ini:7: [name www.lab.example]: policy simple needs 'sites = SITE ...'\n");
	expect(ZONE SITES "[name www.lab.example]\npolicy = simple\nsites = a c\n",
	       "test.ini:9: [name www.lab.example] sites: unknown site 'c' (sites: a, b)\n");
	expect(ZONE SITES "[name www.lab.example]\npolicy = simple\nsites = a a\n",
	       "test.ini:9: [name www.lab.example] sites: site 'a' listed twice\n");
	expect(ZONE SITES "[name www.lab.example]\npolicy = simple\nsites = a\nweight = a 5\n",
	       "test.ini:10: [name www.lab.example] weight: not a key of policy simple (its keys: "
	       "sites)\n");
	expect(ZONE SITES "[name w.lab.example]\npolicy = weighted\nweight = a x\n",
	       "test.ini:9: [name w.lab.example] weight: expected SITE WEIGHT (0-1000000), got "
	       "'a x'\n");
	expect(ZONE SITES "[name w.lab.example]\npolicy = weighted\nweight = a 1000001\n",
	       "test.ini:9: [name w.lab.example] weight: expected SITE WEIGHT (0-1000000), got "
	       "'a 1000001'\n");
	/* a site of weight 0 is drained by weight: not every one */
	expect(ZONE SITES "[name w.lab.example]\npolicy = weighted\nweight = a 0\nweight = b 0\n",
	       "test.ini:7: [name w.lab.example]: expected a weight above 0 for at least one site "
	       "(a site of weight 0 is handed out to no one)\n");
	expect(ZONE SITES "[name w.lab.example]\npolicy = weighted\nweighted_mode = fair\n",
	       "test.ini:7: [name w.lab.example]: policy weighted needs 'weight = SITE WEIGHT' "
	       "lines\n"
	       "test.ini:9: [name w.lab.example] weighted_mode: expected swrr or random, got "
	       "'fair'\n");
	expect(ZONE SITES "[name f.lab.example]\npolicy = failover\nprimary = a b\nsecondary = b\n",
	       "test.ini:9: [name f.lab.example] primary: expected one site, got 'a b'\n");
	expect(ZONE SITES "[name f.lab.example]\npolicy = failover\nprimary = a\n",
	       "test.ini:7: [name f.lab.example]: policy failover needs 'secondary = SITE ...' "
	       "(tried in order)\n");
	expect(ZONE SITES "[name g.lab.example]\npolicy = geolocation\n",
	       "test.ini:7: [name g.lab.example]: policy geolocation needs 'geo = NETWORK/LEN "
	       "SITE' lines or a 'default = SITE'\n");
	expect(ZONE SITES "[name g.lab.example]\npolicy = geolocation\ngeo = 198.18.1.1/24 a\n",
	       "test.ini:9: [name g.lab.example] geo: expected NETWORK/LEN SITE (no bits set past "
	       "LEN), got '198.18.1.1/24 a'\n");
	expect(ZONE SITES "[name l.lab.example]\npolicy = latency\nsites = a b\n",
	       "test.ini:7: [name l.lab.example]: policy latency needs 'vantage = NETWORK/LEN "
	       "PROBER_ID' lines\n");
	expect(ZONE SITES "[name l.lab.example]\npolicy = latency\nsites = a\n"
			  "vantage = 198.18.0.0/16 p/1\n",
	       "test.ini:10: [name l.lab.example] vantage: expected NETWORK/LEN PROBER_ID (an id "
	       "of 1 to 32 letters, digits, '.', '_' or '-'), got '198.18.0.0/16 p/1'\n");
	expect(ZONE SITES "[name www.lab.example]\npolicy = simple\nsites = a\n"
			  "[zone x]\nsoa = ns hm 1 1 1 1 1\nrecord = www.lab.example. A 1.2.3.4\n",
	       "test.ini:12: [zone x] record: www.lab.example. is in [zone lab.example] (line 1): "
	       "put the record there\n");
	expect(
	    ZONE "record = www A 1.2.3.4\n" SITES "[name www.lab.example]\npolicy = simple\n"
		 "sites = a\n",
	    "test.ini:3: www.lab.example. is a [name] with a policy: its A and AAAA records come "
	    "from its sites, not from 'record'\n");
	expect(ZONE "record = sub NS ns.sub\n" SITES "[name x.sub.lab.example]\npolicy = simple\n"
		    "sites = a\n",
	       "test.ini:8: [name x.sub.lab.example.] is at or below a delegation (NS records at a "
	       "name below the zone apex)\n");
}

static void test_errors_from_a_file(void **state)
{
	char path[] = "/tmp/test_authd_conf_XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w"), *err;
	char *buf = NULL;
	size_t len = 0;

	(void)state;
	fputs(ZONE "record = www A 1.2.3.4.5\n", f);
	fclose(f);
	err = open_memstream(&buf, &len);
	assert_null(authd_conf_load(path, err));
	fclose(err);
	assert_true(strncmp(buf, path, strlen(path)) == 0);
	assert_string_equal(buf + strlen(path), ":3: [zone lab.example] record: A expected an IPv4 "
						"address, got '1.2.3.4.5'\n");
	free(buf);
	unlink(path);
	err = open_memstream(&buf, &len);
	assert_null(authd_conf_load("/nonexistent/authd.ini", err));
	fclose(err);
	assert_string_equal(buf, "/nonexistent/authd.ini: No such file or directory\n");
	free(buf);
}

static void test_parse_helpers(void **state)
{
	struct addr_prefix p;
	struct sockaddr_storage ss;
	uint32_t ttl;

	(void)state;
	assert_int_equal(addr_parse_prefix("198.18.0.0/15", &p), 0);
	assert_int_equal(p.family, AF_INET);
	assert_int_equal(p.len, 15);
	assert_int_equal(addr_parse_prefix("198.18.1.1", &p), 0);
	assert_int_equal(p.len, 32);
	assert_int_equal(addr_parse_prefix("2001:db8::/32", &p), 0);
	assert_int_equal(p.family, AF_INET6);
	assert_int_equal(addr_parse_prefix("0.0.0.0/0", &p), 0);
	assert_int_equal(addr_parse_prefix("198.19.0.0/15", &p), -1); /* a bit past 15 */
	assert_int_equal(addr_parse_prefix("198.18.0.0/33", &p), -1);
	assert_int_equal(addr_parse_prefix("198.18.0.0/", &p), -1);
	assert_int_equal(addr_parse_prefix("/8", &p), -1);
	assert_int_equal(addr_parse_sockaddr("127.0.0.1", 53, &ss), 0);
	assert_int_equal(ntohs(((struct sockaddr_in *)&ss)->sin_port), 53);
	assert_int_equal(addr_parse_sockaddr("127.0.0.1:5300", 53, &ss), 0);
	assert_int_equal(ntohs(((struct sockaddr_in *)&ss)->sin_port), 5300);
	assert_int_equal(addr_parse_sockaddr("::1", 53, &ss), 0);
	assert_int_equal(ss.ss_family, AF_INET6);
	assert_int_equal(addr_parse_sockaddr("[::1]:5300", 53, &ss), 0);
	assert_int_equal(ntohs(((struct sockaddr_in6 *)&ss)->sin6_port), 5300);
	assert_int_equal(addr_parse_sockaddr("[::1]5300", 53, &ss), -1);
	assert_int_equal(addr_parse_sockaddr("127.0.0.1:0", 53, &ss), -1);
	assert_int_equal(addr_parse_sockaddr("localhost:53", 53, &ss), -1);
	assert_int_equal(parse_ttl("30", &ttl), 0);
	assert_int_equal(ttl, 30);
	assert_int_equal(parse_ttl("1h30m", &ttl), 0);
	assert_int_equal(ttl, 5400);
	assert_int_equal(parse_ttl("1w1d1h1m1s", &ttl), 0);
	assert_int_equal(ttl, 604800 + 86400 + 3600 + 60 + 1);
	assert_int_equal(parse_ttl("2147483648", &ttl), -1);
	assert_int_equal(parse_ttl("5x", &ttl), -1);
	assert_int_equal(parse_ttl("", &ttl), -1);
	assert_int_equal(parse_ttl("h", &ttl), -1);
}

static void test_rdata(void **state)
{
	uint8_t origin[KNOT_DNAME_MAXLEN], name[KNOT_DNAME_MAXLEN], buf[1024];
	char why[200], txt[KNOT_DNAME_TXT_MAXLEN + 1];
	int n;

	(void)state;
	authd_name_parse("lab.example.", NULL, origin);
	assert_int_equal(authd_name_parse("@", origin, name), 0);
	assert_true(knot_dname_is_equal(name, origin));
	authd_name_parse("WWW", origin, name);
	assert_string_equal(knot_dname_to_str(txt, name, sizeof(txt)), "www.lab.example.");
	authd_name_parse("ns1.lab.example", origin, name);
	assert_string_equal(knot_dname_to_str(txt, name, sizeof(txt)), "ns1.lab.example.");
	authd_name_parse("www.example.com", origin, name); /* relative, as in a zone file */
	assert_string_equal(knot_dname_to_str(txt, name, sizeof(txt)),
			    "www.example.com.lab.example.");
	authd_name_parse("www.example.com.", origin, name);
	assert_string_equal(knot_dname_to_str(txt, name, sizeof(txt)), "www.example.com.");
	n = authd_rdata_parse(KNOT_RRTYPE_TXT, "\"a \\\"b\\\"\" c \"\\065\"", origin, buf,
			      sizeof(buf), why, sizeof(why));
	assert_int_equal(n, 1 + 5 + 1 + 1 + 1 + 1);
	assert_memory_equal(buf,
			    "\x05"
			    "a \"b\""
			    "\x01"
			    "c"
			    "\x01"
			    "A",
			    (size_t)n);
	n = authd_rdata_parse(KNOT_RRTYPE_MX, "10 mail", origin, buf, sizeof(buf), why,
			      sizeof(why));
	assert_int_equal(n, 2 + 18);
	assert_memory_equal(buf,
			    "\x00\x0a\x04mail\x03lab\x07"
			    "example\x00",
			    (size_t)n);
	n = authd_rdata_parse(KNOT_RRTYPE_SRV, "1 2 7000 www", origin, buf, sizeof(buf), why,
			      sizeof(why));
	assert_int_equal(n, 6 + 17);
	assert_memory_equal(buf, "\x00\x01\x00\x02\x1b\x58", 6);
	n = authd_rdata_parse(KNOT_RRTYPE_SOA, "ns1 hm 7 1h 10m 1d 30", origin, buf, sizeof(buf),
			      why, sizeof(why));
	assert_true(n > 20);
	assert_memory_equal(buf + n - 20,
			    "\x00\x00\x00\x07\x00\x00\x0e\x10\x00\x00\x02\x58\x00\x01\x51\x80"
			    "\x00\x00\x00\x1e",
			    20);
	memset(txt, 'x', 257); /* a quote, 256 x, a quote */
	txt[0] = '"';
	txt[257] = '"';
	txt[258] = '\0';
	n = authd_rdata_parse(KNOT_RRTYPE_TXT, txt, origin, buf, sizeof(buf), why, sizeof(why));
	assert_int_equal(n, -1);
	assert_string_equal(why, "a TXT string is at most 255 bytes: split it into several "
				 "\"...\" strings");
	assert_int_equal(authd_rdata_parse(KNOT_RRTYPE_AAAA, "1.2.3.4", origin, buf, sizeof(buf),
					   why, sizeof(why)),
			 -1);
	assert_int_equal(authd_rdata_parse(KNOT_RRTYPE_MX, "70000 mail", origin, buf, sizeof(buf),
					   why, sizeof(why)),
			 -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_minimal_and_defaults), cmocka_unit_test(test_full),
	    cmocka_unit_test(test_syntax_errors),	 cmocka_unit_test(test_server_errors),
	    cmocka_unit_test(test_zone_errors),		 cmocka_unit_test(test_site_errors),
	    cmocka_unit_test(test_name_errors),		 cmocka_unit_test(test_errors_from_a_file),
	    cmocka_unit_test(test_parse_helpers),	 cmocka_unit_test(test_rdata),
	};

	return cmocka_run_group_tests_name("authd conf", tests, NULL, NULL);
}
