/* The prober's remote mode: targets, RTT, and health reports that authd
 * reads (agents/prober/target.h, report.h; agents/authd/health.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <arpa/inet.h>
#include <cmocka.h>
#include <sys/socket.h>
#include <unistd.h>

#include "addr.h"
#include "agents/authd/health.h"
#include "agents/prober/fsm.h"
#include "agents/prober/authds.h"
#include "health_report.h"
#include "agents/prober/target.h"

static void test_target_parse(void **state)
{
	char site[WIRE_SITE_LEN + 1];
	struct sockaddr_storage ss;
	const struct sockaddr_in *sin = (const struct sockaddr_in *)&ss;
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)&ss;
	char buf[INET6_ADDRSTRLEN];

	(void)state;
	assert_int_equal(prober_target_parse("a=198.19.1.1", site, &ss), 0);
	assert_string_equal(site, "a");
	assert_int_equal(ss.ss_family, AF_INET);
	assert_int_equal(ntohs(sin->sin_port), WIRE_PORT_DEFAULT);
	assert_int_equal(ntohl(sin->sin_addr.s_addr), 0xc6130101);
	assert_int_equal(prober_target_parse("site_b.x-1=198.19.2.1:7001", site, &ss), 0);
	assert_string_equal(site, "site_b.x-1");
	assert_int_equal(ntohs(sin->sin_port), 7001);
	assert_int_equal(prober_target_parse("1234567890123456=198.19.2.1", site, &ss), 0);
	/* IPv6: bare, or bracketed with a port */
	assert_int_equal(prober_target_parse("a=2001:2:0:ff01::1", site, &ss), 0);
	assert_int_equal(ss.ss_family, AF_INET6);
	assert_int_equal(ntohs(sin6->sin6_port), WIRE_PORT_DEFAULT);
	assert_string_equal(inet_ntop(AF_INET6, &sin6->sin6_addr, buf, sizeof(buf)),
			    "2001:2:0:ff01::1");
	assert_int_equal(prober_target_parse("b=[2001:2:0:ff01::2]:7001", site, &ss), 0);
	assert_string_equal(site, "b");
	assert_int_equal(ntohs(sin6->sin6_port), 7001);

	static const char *bad[] = {
	    "a",
	    "=198.19.1.1",
	    "a=",
	    "a=host",
	    "a=198.19.1.1:0",
	    "a=198.19.1.1:70000",
	    "a/b=198.19.1.1",
	    "12345678901234567=198.19.1.1",
	    "a=198.19.1.1=x",
	    "a=[2001:2::1",
	    "a=[2001:2::1]:0",
	    "a=2001:2::1:7001:x",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (prober_target_parse(bad[i], site, &ss) != -1)
			fail_msg("accepted '%s'", bad[i]);
}

static void test_srtt(void **state)
{
	uint32_t srtt = 0;

	(void)state;
	/* the first sample as is */
	assert_int_equal(prober_srtt_feed(&srtt, 800000), 800);
	/* then 7/8 old + 1/8 new */
	assert_int_equal(prober_srtt_feed(&srtt, 1600000), 900);
	assert_int_equal(prober_srtt_feed(&srtt, 900000), 900);
	/* it converges */
	for (int i = 0; i < 100; i++)
		prober_srtt_feed(&srtt, 100000);
	assert_in_range(srtt, 100, 102);
	/* a sub-microsecond sample is still a sample */
	srtt = 0;
	assert_int_equal(prober_srtt_feed(&srtt, 10), 1);
}

/* health_report_format with the given fields, as the prober sends it */
static int report(const char *id, const char *site, int up, uint32_t rtt, char *line, size_t len)
{
	struct health_report r = {.up = up, .rtt_us = rtt};

	snprintf(r.prober, sizeof(r.prober), "%s", id);
	snprintf(r.site, sizeof(r.site), "%s", site);
	return health_report_format(&r, line, len);
}

static void test_report_format_is_what_authd_reads(void **state)
{
	char line[PROBER_REPORT_MAX];
	struct health_report r;
	int n;

	(void)state;
	n = report("east-1", "a", 1, 2345, line, sizeof(line));
	assert_string_equal(line, "HEALTH east-1 a up 2345\n");
	assert_int_equal(health_report_parse(line, (size_t)n, &r), 0);
	assert_string_equal(r.prober, "east-1");
	assert_string_equal(r.site, "a");
	assert_int_equal(r.up, 1);
	assert_int_equal(r.rtt_us, 2345);
	/* a down report carries no RTT */
	n = report("east-1", "a", 0, 2345, line, sizeof(line));
	assert_string_equal(line, "HEALTH east-1 a down 0\n");
	assert_int_equal(health_report_parse(line, (size_t)n, &r), 0);
	assert_int_equal(r.up, 0);
	/* the longest ids fit */
	n = report("12345678901234567890123456789012", "1234567890123456", 1, UINT32_MAX - 1, line,
		   sizeof(line));
	assert_true(n > 0);
	assert_int_equal(health_report_parse(line, (size_t)n, &r), 0);
	assert_int_equal(report("p", "a", 1, 1, line, 10), -1);
	/* ids that are not ids are refused on both sides */
	assert_int_equal(report("p 1", "a", 1, 1, line, sizeof(line)), -1);
	assert_int_equal(health_report_parse("HEALTH p/1 a up 1\n", 18, &r), -1);
}

static void test_id(void **state)
{
	(void)state;
	assert_true(health_id_ok("p1", HEALTH_ID_LEN));
	assert_true(health_id_ok("vantage.east_1-b", HEALTH_ID_LEN));
	assert_true(health_id_ok("12345678901234567890123456789012", HEALTH_ID_LEN));
	assert_false(health_id_ok("", HEALTH_ID_LEN));
	assert_false(health_id_ok("123456789012345678901234567890123", HEALTH_ID_LEN));
	assert_false(health_id_ok("p 1", HEALTH_ID_LEN));
	assert_false(health_id_ok("p/1", HEALTH_ID_LEN));
}

static void test_authds_add(void **state)
{
	struct prober_authds a = {.fd = -1, .fd6 = -1};
	struct sockaddr_storage ss = {0};
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

	(void)state;
	sin->sin_family = AF_INET;
	sin->sin_port = htons(5353);
	inet_pton(AF_INET, "198.18.0.53", &sin->sin_addr);
	for (int i = 0; i < PROBER_MAX_AUTHDS - 1; i++)
		assert_int_equal(prober_authds_add(&a, &ss), 0);
	memset(&ss, 0, sizeof(ss));
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons(5353);
	inet_pton(AF_INET6, "2001:2::a", &sin6->sin6_addr);
	assert_int_equal(prober_authds_add(&a, &ss), 0);
	assert_int_equal(prober_authds_add(&a, &ss), -1);
	assert_string_equal(a.name[0], "198.18.0.53:5353");
	assert_string_equal(a.name[PROBER_MAX_AUTHDS - 1], "[2001:2::a]:5353");
}

/* test_reports_on_the_wire: a site that dies and comes back, probed from
 * afar: the reports sent on the verdict changes, read by a socket
 * standing for authd and fed to authd's health state. */
static void reports_on_the_wire(int family)
{
	struct sockaddr_storage sin = {.ss_family = (sa_family_t)family};
	socklen_t len = sizeof(sin);
	struct prober_authds a = {.fd = -1, .fd6 = -1};
	struct prober_fsm fsm;
	uint32_t srtt = 0;
	int rx;
	const char *results = "+++---+++";
	char got[512] = "";

	rx = socket(family, SOCK_DGRAM, 0);
	assert_true(rx >= 0);
	if (family == AF_INET6)
		((struct sockaddr_in6 *)&sin)->sin6_addr = in6addr_loopback;
	else
		inet_pton(AF_INET, "127.0.0.1", &((struct sockaddr_in *)&sin)->sin_addr);
	assert_int_equal(bind(rx, (struct sockaddr *)&sin, addr_sa_len((struct sockaddr *)&sin)),
			 0);
	assert_int_equal(getsockname(rx, (struct sockaddr *)&sin, &len), 0);
	assert_int_equal(prober_authds_add(&a, &sin), 0);
	assert_int_equal(prober_authds_open(&a), 0);
	prober_fsm_init(&fsm, 3, 3);
	for (const char *r = results; *r; r++) {
		enum prober_verdict v;
		char line[PROBER_REPORT_MAX];
		int n;

		if (*r == '+')
			prober_srtt_feed(&srtt, 500000);
		v = prober_fsm_feed(&fsm, *r == '+');
		if (v == PROBER_NO_CHANGE)
			continue;
		n = report("p1", "a", fsm.state == PROBER_ALIVE, srtt, line, sizeof(line));
		assert_int_equal(prober_authds_send(&a, 0, line, (size_t)n), 0);
	}
	for (int i = 0; i < 3; i++) {
		char buf[256];
		ssize_t n = recv(rx, buf, sizeof(buf) - 1, 0);
		struct health_report rep;

		assert_true(n > 0);
		buf[n] = '\0';
		strcat(got, buf);
		assert_int_equal(health_report_parse(buf, (size_t)n, &rep), 0);
	}
	assert_string_equal(got, "HEALTH p1 a up 500\nHEALTH p1 a down 0\nHEALTH p1 a up 500\n");
	assert_int_equal(family == AF_INET6 ? a.fd == -1 : a.fd6 == -1, 1);
	prober_authds_close(&a);
	close(rx);
}

/* ... to an authd on IPv4, and on IPv6 (its socket the IPv6 one alone) */
static void test_reports_on_the_wire(void **state)
{
	(void)state;
	reports_on_the_wire(AF_INET);
	reports_on_the_wire(AF_INET6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_target_parse),
	    cmocka_unit_test(test_srtt),
	    cmocka_unit_test(test_report_format_is_what_authd_reads),
	    cmocka_unit_test(test_id),
	    cmocka_unit_test(test_authds_add),
	    cmocka_unit_test(test_reports_on_the_wire),
	};

	return cmocka_run_group_tests_name("prober remote", tests, NULL, NULL);
}
