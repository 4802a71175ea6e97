/* authd's health state (health.h) and what names hand out (handout.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <arpa/inet.h>
#include <cmocka.h>
#include <jansson.h>

#include "agents/authd/allow.h"
#include "agents/authd/handout.h"
#include "agents/authd/health.h"
#include "test_authd_util.h"

static const char *health_conf = "[server]\n"
				 "quorum = 0.5\n"
				 "[zone lab.example]\n"
				 "soa = ns1 hostmaster 1 3600 600 86400 30\n"
				 "[site a]\n"
				 "address = 198.19.1.1\n"
				 "[site b]\n"
				 "address = 198.19.2.1\n"
				 "address = 2001:db8:2::1\n"
				 "[name fo.lab.example]\n"
				 "policy = failover\n"
				 "primary = a\n"
				 "secondary = b\n"
				 "[name geo.lab.example]\n"
				 "policy = geolocation\n"
				 "geo = 198.18.1.0/24 a\n"
				 "geo = 198.18.2.0/24 b\n"
				 "[name lat.lab.example]\n"
				 "policy = latency\n"
				 "sites = a b\n"
				 "vantage = 198.18.1.0/24 v1\n";

static void test_report_parse(void **state)
{
	struct health_report r;

	(void)state;
	assert_int_equal(health_report_parse("HEALTH p1 a up 1234\n", 20, &r), 0);
	assert_string_equal(r.prober, "p1");
	assert_string_equal(r.site, "a");
	assert_int_equal(r.up, 1);
	assert_int_equal(r.rtt_us, 1234);
	assert_int_equal(health_report_parse("HEALTH  east-1.x   site_b down 0", 32, &r), 0);
	assert_string_equal(r.prober, "east-1.x");
	assert_string_equal(r.site, "site_b");
	assert_int_equal(r.up, 0);
	assert_int_equal(health_report_parse("HEALTH p1 a up 5\r\n", 18, &r), 0);
	assert_int_equal(health_report_parse("HEALTH p1 a up 4294967294", 25, &r), 0);

	static const char *bad[] = {
	    "",
	    "HEALTH",
	    "HEALTH p1 a up",
	    "HEALTH p1 a maybe 5",
	    "health p1 a up 5",
	    "HEALTH p1 a up 5 extra",
	    "HEALTH p1 a up -5",
	    "HEALTH p1 a up 5x",
	    "HEALTH p1 a up 4294967295",
	    "HEALTH p1 a up 99999999999999999999",
	    "HEALTH p/1 a up 5",
	    "HEALTH p1 toolongsitename_17 up 5",
	    "HEALTH 123456789012345678901234567890123 a up 5",
	    "HEALTH p1 a up 5\nHEALTH p2 a up 5",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (health_report_parse(bad[i], strlen(bad[i]), &r) != -1)
			fail_msg("accepted '%s'", bad[i]);
	/* a NUL inside */
	assert_int_equal(health_report_parse("HEALTH p1 a\0 up 5", 17, &r), -1);
}

static void test_proximity_report(void **state)
{
	static const char *bad[] = {
	    "PROXIMITY px-a a 198.18.128.1",	       "PROXIMITY px-a a 198.18.128 900",
	    "PROXIMITY px-a a 2001:db8::1 900",	       "PROXIMITY px-a a 198.18.128.1 up",
	    "PROXIMITY px-a a 198.18.128.1 900 extra", "proximity px-a a 198.18.128.1 900",
	};
	struct health_report r, back;
	char line[HEALTH_REPORT_MAX];
	int n;

	(void)state;
	assert_int_equal(health_report_parse("PROXIMITY px-a a 198.18.128.1 900\n", 34, &r), 0);
	assert_int_equal(r.proximity, 1);
	assert_string_equal(r.prober, "px-a");
	assert_string_equal(r.site, "a");
	assert_int_equal(r.querier.s_addr, inet_addr("198.18.128.1"));
	assert_int_equal(r.rtt_us, 900);
	assert_int_equal(r.up, 1);
	/* 0: unanswered */
	assert_int_equal(health_report_parse("PROXIMITY px-a a 198.18.128.1 0", 31, &r), 0);
	assert_int_equal(r.up, 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (health_report_parse(bad[i], strlen(bad[i]), &r) != -1)
			fail_msg("accepted '%s'", bad[i]);
	/* and back */
	assert_int_equal(health_report_parse("PROXIMITY px-a a 198.18.128.1 0", 31, &r), 0);
	r.rtt_us = 41000;
	n = health_report_format(&r, line, sizeof(line));
	assert_string_equal(line, "PROXIMITY px-a a 198.18.128.1 41000\n");
	assert_int_equal(health_report_parse(line, (size_t)n, &back), 0);
	assert_int_equal(back.rtt_us, 41000);
	assert_int_equal(back.proximity, 1);
}

static void test_report_format_round_trip(void **state)
{
	struct health_report r = {.up = 1, .rtt_us = 777}, back;
	char buf[AUTHD_REPORT_MAX];
	int n;

	(void)state;
	strcpy(r.prober, "p1");
	strcpy(r.site, "a");
	n = health_report_format(&r, buf, sizeof(buf));
	assert_string_equal(buf, "HEALTH p1 a up 777\n");
	assert_int_equal(health_report_parse(buf, (size_t)n, &back), 0);
	assert_memory_equal(&r, &back, sizeof(r));
	assert_int_equal(health_report_format(&r, buf, 5), -1);
}

struct fixture {
	struct authd_db *db;
	struct authd_health h;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	f->db = test_load(health_conf);
	assert_non_null(f->db);
	authd_health_init(&f->h, f->db);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	authd_db_free(f->db);
	free(f);
	return 0;
}

static struct authd_health_change apply(struct fixture *f, const char *prober, const char *site,
					int up, uint32_t rtt)
{
	struct health_report r = {.up = up, .rtt_us = rtt};
	struct authd_health_change c;

	strcpy(r.prober, prober);
	strcpy(r.site, site);
	assert_int_equal(authd_health_apply(&f->h, &r, &c), 0);
	return c;
}

static void test_no_reports_is_healthy(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(f->h.healthy[0], 1);
	assert_int_equal(f->h.healthy[1], 1);
	assert_int_equal(f->h.reports[0], 0);
	/* the vantage probers are registered first, in order */
	assert_int_equal(f->h.nprobers, 1);
	assert_string_equal(f->h.prober[0], "v1");
	assert_int_equal(authd_health_rtt(&f->h, 0, 0), AUTHD_RTT_NONE);
}

static void test_quorum_is_more_than(void **state)
{
	struct fixture *f = *state;
	struct authd_health_change c;

	c = apply(f, "p1", "a", 0, 0);
	assert_int_equal(c.health_changed, 1);
	assert_int_equal(f->h.healthy[0], 0); /* 0 of 1 */
	c = apply(f, "p2", "a", 1, 100);
	assert_int_equal(c.health_changed, 0);
	assert_int_equal(f->h.healthy[0], 0); /* 1 of 2 is not more than half */
	assert_int_equal(f->h.up[0], 1);
	assert_int_equal(f->h.reports[0], 2);
	c = apply(f, "p3", "a", 1, 100);
	assert_int_equal(c.health_changed, 1);
	assert_int_equal(f->h.healthy[0], 1); /* 2 of 3 */
	/* a report stands until the same prober reports again */
	c = apply(f, "p1", "a", 1, 100);
	assert_int_equal(c.state_changed, 1);
	assert_int_equal(c.health_changed, 0);
	assert_int_equal(f->h.up[0], 3);
	assert_int_equal(f->h.reports[0], 3);
	c = apply(f, "p1", "a", 1, 100);
	assert_int_equal(c.state_changed, 0);
	assert_int_equal(c.rtt_changed, 0);
	/* other sites are untouched */
	assert_int_equal(f->h.healthy[1], 1);
}

static void test_quorum_zero(void **state)
{
	struct fixture *f = *state;

	f->h.quorum = 0; /* any up report keeps a site */
	apply(f, "p1", "b", 0, 0);
	apply(f, "p2", "b", 0, 0);
	assert_int_equal(f->h.healthy[1], 0);
	apply(f, "p3", "b", 1, 10);
	assert_int_equal(f->h.healthy[1], 1);
}

static void test_rtt(void **state)
{
	struct fixture *f = *state;
	struct authd_health_change c;

	c = apply(f, "v1", "b", 1, 2500);
	assert_int_equal(c.prober, 0);
	assert_int_equal(c.rtt_changed, 1);
	assert_int_equal(authd_health_rtt(&f->h, 0, 1), 2500);
	c = apply(f, "v1", "b", 1, 2600);
	assert_int_equal(c.rtt_changed, 1);
	assert_int_equal(c.state_changed, 0);
	/* a down report has no RTT */
	c = apply(f, "v1", "b", 0, 0);
	assert_int_equal(authd_health_rtt(&f->h, 0, 1), AUTHD_RTT_NONE);
	assert_int_equal(authd_health_rtt(&f->h, 5, 1), AUTHD_RTT_NONE);
}

static void test_unknown_site_and_full_table(void **state)
{
	struct fixture *f = *state;
	struct health_report r = {.up = 1};
	struct authd_health_change c;
	char id[16];

	strcpy(r.prober, "p1");
	strcpy(r.site, "zz");
	assert_int_equal(authd_health_apply(&f->h, &r, &c), -1);
	strcpy(r.site, "a");
	for (int i = f->h.nprobers; i < AUTHD_MAX_PROBERS; i++) {
		snprintf(id, sizeof(id), "p%d", i);
		strcpy(r.prober, id);
		assert_int_equal(authd_health_apply(&f->h, &r, &c), 0);
	}
	strcpy(r.prober, "one-too-many");
	assert_int_equal(authd_health_apply(&f->h, &r, &c), -1);
}

static const char *addresses(const struct authd_db *db, const uint64_t mask[2])
{
	static char buf[512];
	json_t *a = authd_handout_addresses(db, mask);
	char *s = json_dumps(a, JSON_COMPACT);

	snprintf(buf, sizeof(buf), "%s", s);
	free(s);
	json_decref(a);
	return buf;
}

static void test_handout_changes(void **state)
{
	struct fixture *f = *state;
	struct authd_handouts hs;
	uint64_t before[2], after[2];
	json_t *nets;
	char *s;

	assert_int_equal(authd_handouts_init(&hs, f->db), 0);
	/* the first computation is a change */
	for (int i = 0; i < f->db->nnames; i++)
		assert_int_equal(authd_handout_update(&hs, f->db, &f->h, i, before, after), 1);
	/* fo: a, and b's AAAA */
	authd_handout_update(&hs, f->db, &f->h, 0, before, after);
	assert_string_equal(addresses(f->db, after), "[\"198.19.1.1\",\"2001:db8:2::1\"]");
	/* nothing changed: no change */
	for (int i = 0; i < f->db->nnames; i++)
		assert_int_equal(authd_handout_update(&hs, f->db, &f->h, i, before, after), 0);
	apply(f, "p1", "a", 0, 0);
	assert_int_equal(authd_handout_update(&hs, f->db, &f->h, 0, before, after), 1);
	assert_string_equal(addresses(f->db, before), "[\"198.19.1.1\",\"2001:db8:2::1\"]");
	assert_string_equal(addresses(f->db, after), "[\"198.19.2.1\",\"2001:db8:2::1\"]");
	/* geolocation: the 198.18.1.0/24 class moves to b */
	assert_int_equal(authd_handout_update(&hs, f->db, &f->h, 1, before, after), 1);
	nets = authd_handout_networks(&hs, f->db, 1);
	s = json_dumps(nets, JSON_COMPACT);
	assert_string_equal(s, "{\"198.18.1.0/24\":[\"198.19.2.1\",\"2001:db8:2::1\"],"
			       "\"198.18.2.0/24\":[\"198.19.2.1\",\"2001:db8:2::1\"],\"*\":[]}");
	free(s);
	json_decref(nets);
	assert_null(authd_handout_networks(&hs, f->db, 0));
	/* latency: a dead, b alive: b for everyone */
	assert_int_equal(authd_handout_update(&hs, f->db, &f->h, 2, before, after), 1);
	apply(f, "p1", "a", 1, 10);
	apply(f, "v1", "a", 1, 900);
	apply(f, "v1", "b", 1, 100);
	assert_int_equal(authd_handout_update(&hs, f->db, &f->h, 2, before, after), 1);
	nets = authd_handout_networks(&hs, f->db, 2);
	s = json_dumps(nets, JSON_COMPACT);
	assert_string_equal(s, "{\"198.18.1.0/24\":[\"198.19.2.1\",\"2001:db8:2::1\"],"
			       "\"*\":[\"198.19.1.1\",\"2001:db8:2::1\"]}");
	free(s);
	json_decref(nets);
	/* the RTTs swap: the vantage class moves */
	apply(f, "v1", "a", 1, 50);
	assert_int_equal(authd_handout_update(&hs, f->db, &f->h, 2, before, after), 1);
	authd_handouts_free(&hs);
}

static struct sockaddr_storage src(const char *a)
{
	struct sockaddr_storage ss;

	memset(&ss, 0, sizeof(ss));
	if (strchr(a, ':')) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
		s6->sin6_family = AF_INET6;
		assert_int_equal(inet_pton(AF_INET6, a, &s6->sin6_addr), 1);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
		s4->sin_family = AF_INET;
		s4->sin_port = htons(40000);
		assert_int_equal(inet_pton(AF_INET, a, &s4->sin_addr), 1);
	}
	return ss;
}

static int allowed(struct authd_allow *al, const char *from, const char *id, char *reason)
{
	struct sockaddr_storage ss = src(from);

	reason[0] = '\0';
	return authd_allow_check(al, &ss, id, reason, 128);
}

static void test_allow_parse(void **state)
{
	struct authd_allow al;
	char err[160];

	(void)state;
	memset(&al, 0, sizeof(al));
	assert_int_equal(authd_allow_add(&al, "none"), 0);
	assert_int_equal(al.set, 1);
	assert_int_equal(al.n, 0);
	assert_int_equal(authd_allow_add(&al, "p1=198.18.0.14"), 0);
	assert_string_equal(al.senders[0].id, "p1");
	assert_int_equal(al.senders[0].id_given, 1);
	assert_int_equal(authd_allow_add(&al, "2001:db8::7"), 0);
	assert_int_equal(al.senders[1].family, AF_INET6);
	assert_int_equal(al.senders[1].id_given, 0);
	static const char *bad[] = {"",
				    "p1=",
				    "=198.18.0.14",
				    "p/1=198.18.0.14",
				    "p1=x",
				    "198.18.0.14:5353",
				    "123456789012345678901234567890123=198.18.0.14"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (authd_allow_add(&al, bad[i]) != -1)
			fail_msg("-a '%s' accepted", bad[i]);
	assert_int_equal(al.n, 2);
	/* the table bound: at most AUTHD_MAX_PROBERS slots in all */
	memset(&al, 0, sizeof(al));
	for (int i = 0; i < AUTHD_MAX_PROBERS; i++) {
		char arg[64];
		snprintf(arg, sizeof(arg), "p%d=198.18.1.%d", i, i);
		assert_int_equal(authd_allow_add(&al, arg), 0);
	}
	assert_int_equal(authd_allow_add(&al, "p64=198.18.2.1"), -1);
	assert_int_equal(authd_allow_fits(&al, NULL, 0, err, sizeof(err)), 0);
	/* a vantage id that is also an -a id shares its slot; another does not */
	{
		char *vantage[] = {"p3", "v9"};
		assert_int_equal(authd_allow_fits(&al, vantage, 1, err, sizeof(err)), 0);
		assert_int_equal(authd_allow_fits(&al, vantage, 2, err, sizeof(err)), -1);
		assert_string_equal(err, "2 prober ids named by vantage lines and 64 -a senders "
					 "need 65 slots; authd has 64");
	}
}

static void test_allow_check(void **state)
{
	struct authd_allow al;
	char reason[128];

	(void)state;
	/* without -a: anyone, as authd started by hand */
	memset(&al, 0, sizeof(al));
	assert_int_equal(allowed(&al, "198.18.0.10", "x", reason), 0);
	assert_int_equal(authd_allow_add(&al, "p1=198.18.0.14"), 0);
	assert_int_equal(authd_allow_add(&al, "198.18.0.18"), 0);
	assert_int_equal(allowed(&al, "198.18.0.14", "p1", reason), 0);
	/* a client node */
	assert_int_equal(allowed(&al, "198.18.0.10", "p1", reason), -1);
	assert_string_equal(reason, "sender not allowed");
	/* the prober's address under another id */
	assert_int_equal(allowed(&al, "198.18.0.14", "p2", reason), -1);
	assert_string_equal(reason, "prober id p2 not allowed from this sender");
	/* an address-only entry: the first id it uses is its one */
	assert_int_equal(allowed(&al, "198.18.0.18", "q", reason), 0);
	assert_int_equal(allowed(&al, "198.18.0.18", "q", reason), 0);
	assert_int_equal(allowed(&al, "198.18.0.18", "q2", reason), -1);
	assert_string_equal(reason, "prober id q2 not allowed from this sender");
	/* a v4-mapped source on a dual-stack socket is the v4 address */
	assert_int_equal(allowed(&al, "::ffff:198.18.0.14", "p1", reason), 0);
	assert_int_equal(allowed(&al, "::ffff:198.18.0.10", "p1", reason), -1);
	/* -a none */
	memset(&al, 0, sizeof(al));
	assert_int_equal(authd_allow_add(&al, "none"), 0);
	assert_int_equal(allowed(&al, "198.18.0.14", "p1", reason), -1);
}

/* The lab's authd: what authd_on_report does with each report (allow, then
 * health). 70 invented ids, from a client and from a real prober's address,
 * create no entry; the real probers still get theirs. */
static void test_invented_ids_cannot_fill_table(void **state)
{
	struct fixture *f = *state;
	struct authd_allow al;
	struct health_report r = {.up = 0};
	struct authd_health_change c;
	char reason[128];
	int rejected = 0;

	memset(&al, 0, sizeof(al));
	assert_int_equal(authd_allow_add(&al, "v1=198.18.0.14"), 0);
	assert_int_equal(authd_allow_add(&al, "p2=198.18.0.18"), 0);
	strcpy(r.site, "a");
	for (int i = 0; i < 70; i++) {
		snprintf(r.prober, sizeof(r.prober), "fake%d", i);
		if (allowed(&al, i % 2 ? "198.18.0.10" : "198.18.0.14", r.prober, reason) == 0)
			assert_int_equal(authd_health_apply(&f->h, &r, &c), 0);
		else
			rejected++;
	}
	assert_int_equal(rejected, 70);
	/* nothing changed: the vantage prober only, site a healthy */
	assert_int_equal(f->h.nprobers, 1);
	assert_int_equal(f->h.reports[0], 0);
	assert_int_equal(f->h.healthy[0], 1);
	/* the real probers report */
	strcpy(r.prober, "p2");
	assert_int_equal(allowed(&al, "198.18.0.18", "p2", reason), 0);
	assert_int_equal(authd_health_apply(&f->h, &r, &c), 0);
	assert_int_equal(c.prober, 1);
	strcpy(r.prober, "v1");
	assert_int_equal(allowed(&al, "198.18.0.14", "v1", reason), 0);
	assert_int_equal(authd_health_apply(&f->h, &r, &c), 0);
	assert_int_equal(c.prober, 0);
	assert_int_equal(f->h.nprobers, 2);
	assert_int_equal(f->h.healthy[0], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_report_parse),
	    cmocka_unit_test(test_report_format_round_trip),
	    cmocka_unit_test(test_proximity_report),
	    cmocka_unit_test_setup_teardown(test_no_reports_is_healthy, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_quorum_is_more_than, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_quorum_zero, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rtt, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unknown_site_and_full_table, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_handout_changes, setup, teardown),
	    cmocka_unit_test(test_allow_parse),
	    cmocka_unit_test(test_allow_check),
	    cmocka_unit_test_setup_teardown(test_invented_ids_cannot_fill_table, setup, teardown),
	};

	return cmocka_run_group_tests_name("authd health", tests, NULL, NULL);
}
