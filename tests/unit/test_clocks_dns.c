/*
 * probes/clocks: both schemes side by side in synthetic run directories:
 * the split of the requests by client id and destination, each DNS clock,
 * the distribution over clients, the upstream queries, the golden table in
 * tests/unit/data/clocks/; DNS clocks missing without authd's events or an
 * older site_failed; the pure DNS computation.
 *
 * UPDATE_GOLDEN=1 writes a golden table that differs to FILE.new (test_assert_golden, test_file.h).
 */
#include "test_clocks_util.h"

#define DATA "tests/unit/data/clocks/"

/*
 * both: a run with both schemes. Site a fails at T0; anycast clients 1 and
 * 2, DNS clients 100001-100003 (their flows' ids), probes of client id 0.
 * In capture-a, after t0:
 *
 *   anycast 1 to ANY at 100 and 150 ms, anycast 2 at 120 ms   anycast: 3
 *   DNS 100001 to ADDR_A at 200 and 900 ms, 100002 at 1500 ms DNS: 3
 *   100003 to ADDR_A only before t0                           DNS: its last is 0
 *   a probe (id 0) to ADDR_A at 5 s                           neither
 *   DNS 100001 to ANY at 3 s, anycast 1 to ADDR_A at 4 s      neither's dead site
 *
 * The probers: a's own at 250 ms (the anycast detect), p2 at 200 ms and p1
 * at 290 ms (remote: the first is p2). authd: a unhealthy at 300 ms (after
 * an unhealthy before t0, a healthy, and another site's); it stops handing
 * out ADDR_A at 350 ms (after changes that keep it or never had it). The
 * route via a goes at 260 ms. Six queries reach authd from three resolvers,
 * and one response that is not a query.
 */
static void both(const char *dir)
{
	const struct tpkt a[] = {
	    {T0 - 800 * MS, 7000, WIRE_REQUEST, 1, ANY},
	    {T0 - 500 * MS, 7000, WIRE_REQUEST, DNS_ID(3), ADDR_A},
	    {T0 - 400 * MS, 7000, WIRE_REQUEST, DNS_ID(1), ADDR_A},
	    {T0 + 100 * MS, 7000, WIRE_REQUEST, 1, ANY},
	    {T0 + 120 * MS, 7000, WIRE_REQUEST, 2, ANY},
	    {T0 + 150 * MS, 7000, WIRE_REQUEST, 1, ANY},
	    {T0 + 200 * MS, 7000, WIRE_REQUEST, DNS_ID(1), ADDR_A},
	    {T0 + 900 * MS, 7000, WIRE_REQUEST, DNS_ID(1), ADDR_A},
	    {T0 + 1500 * MS, 7000, WIRE_REQUEST, DNS_ID(2), ADDR_A},
	    {T0 + 3000 * MS, 7000, WIRE_REQUEST, DNS_ID(1), ANY},
	    {T0 + 4000 * MS, 7000, WIRE_REQUEST, 1, ADDR_A},
	    {T0 + 5000 * MS, 7000, WIRE_REQUEST, WIRE_PROBE_CLIENT, ADDR_A},
	};
	const struct tpkt b[] = {
	    {T0 + 300 * MS, 7000, WIRE_REQUEST, 1, ANY},
	    {T0 + 310 * MS, 7000, WIRE_REQUEST, 2, ANY},
	    {T0 + 1000 * MS, 7000, WIRE_REQUEST, DNS_ID(1), ADDR_B},
	    {T0 + 1600 * MS, 7000, WIRE_REQUEST, DNS_ID(2), ADDR_B},
	    {T0 + 2000 * MS, 7000, WIRE_REQUEST, DNS_ID(3), ADDR_B},
	    {T0 + 2100 * MS, 7000, WIRE_REQUEST, WIRE_PROBE_CLIENT, ADDR_B},
	};
	const struct tquery q[] = {
	    {T0 - 2900 * MS, "198.18.0.22", 53, 0}, {T0 - 2900 * MS, "198.18.0.26", 53, 0},
	    {T0 - 2900 * MS, "198.18.0.30", 53, 0}, {T0 - 900 * MS, "198.18.0.22", 53, 0},
	    {T0 + 1100 * MS, "198.18.0.22", 53, 0}, {T0 + 1100 * MS, "198.18.0.26", 53, 0},
	    {T0 + 1200 * MS, "198.18.0.30", 53, 1}, /* a response */
	    {T0 + 1300 * MS, "198.18.0.30", 54, 0}, /* another port */
	};
	const char *authd = "ns.authd.events.jsonl", *col = "core.collector.events.jsonl";
	const char *name = ",\"name\":\"www.lab.example.\",\"policy\":\"failover\"";
	char extra[512];

	lab(dir);
	ev(dir, "a.prober.events.jsonl", T0 + 250 * MS, "declared_dead", ",\"site\":\"a\"");
	ev(dir, "p1.prober.events.jsonl", T0 - 100 * MS, "declared_dead", ",\"site\":\"a\"");
	ev(dir, "p1.prober.events.jsonl", T0 + 290 * MS, "declared_dead", ",\"site\":\"a\"");
	ev(dir, "p2.prober.events.jsonl", T0 + 200 * MS, "declared_dead", ",\"site\":\"a\"");
	ev(dir, "p2.prober.events.jsonl", T0 + 210 * MS, "declared_dead", ",\"site\":\"b\"");
	ev(dir, col, T0 + 260 * MS, "route_deleted",
	   ",\"prefix\":\"198.19.0.1/32\",\"via\":\"198.18.0.2\",\"metric\":10");
	ev(dir, col, T0 + 9000 * MS, "capture_stats",
	   ",\"label\":\"a\",\"packets\":12,\"received\":12,\"dropped\":0,\"if_dropped\":0");
	ev(dir, col, T0 + 9000 * MS, "capture_stats",
	   ",\"label\":\"b\",\"packets\":6,\"received\":6,\"dropped\":0,\"if_dropped\":0");
	/* the query capture's collector: its drops count too */
	ev(dir, "core.collector-dns.events.jsonl", T0 + 9000 * MS, "capture_stats",
	   ",\"label\":\"dns-ns\",\"packets\":8,\"received\":9,\"dropped\":1,\"if_dropped\":0");
	ev(dir, authd, T0 - 5000 * MS, "authd_ready", ",\"zones\":1");
	snprintf(extra, sizeof(extra), "%s,\"before\":[],\"after\":[\"%s\"],\"reason\":\"start\"",
		 name, ADDR_A);
	ev(dir, authd, T0 - 5000 * MS, "answer_changed", extra);
	ev(dir, authd, T0 - 1000 * MS, "health_changed", ",\"site\":\"a\",\"healthy\":false");
	ev(dir, authd, T0 - 900 * MS, "health_changed", ",\"site\":\"a\",\"healthy\":true");
	ev(dir, authd, T0 + 100 * MS, "health_changed", ",\"site\":\"b\",\"healthy\":false");
	ev(dir, authd, T0 + 200 * MS, "health_changed",
	   ",\"site\":\"a\",\"healthy\":true,\"up_reports\":2,\"reports\":2,\"prober\":\"p1\"");
	ev(dir, authd, T0 + 300 * MS, "health_changed",
	   ",\"site\":\"a\",\"healthy\":false,\"up_reports\":1,\"reports\":2,\"prober\":\"p2\"");
	snprintf(extra, sizeof(extra),
		 "%s,\"before\":[\"%s\",\"2001:db8::1\"],\"after\":[\"%s\",\"%s\"]", name, ADDR_A,
		 ADDR_A, ADDR_B);
	ev(dir, authd, T0 + 310 * MS, "answer_changed", extra);
	snprintf(extra, sizeof(extra), "%s,\"before\":[\"%s\"],\"after\":[]", name, ADDR_B);
	ev(dir, authd, T0 + 320 * MS, "answer_changed", extra);
	snprintf(extra, sizeof(extra),
		 "%s,\"before\":[\"%s\",\"%s\",\"2001:db8::1\"],\"after\":[\"%s\",\"2001:db8::1\"]",
		 name, ADDR_A, ADDR_B, ADDR_B);
	ev(dir, authd, T0 + 400 * MS, "answer_changed", extra);
	ev(dir, authd, T0 + 350 * MS, "answer_changed", extra);
	write_pcap(dir, "capture-a.pcap", a, sizeof(a) / sizeof(a[0]), PCAP_TSTAMP_PRECISION_NANO);
	write_pcap(dir, "capture-b.pcap", b, sizeof(b) / sizeof(b[0]), PCAP_TSTAMP_PRECISION_NANO);
	write_query_pcap(dir, "capture-dns-ns.pcap", q, sizeof(q) / sizeof(q[0]));
	put(dir, "requests-c1.csv",
	    "client,seq,sent_ns,status,site,rtt_ns\n"
	    "1,0,1,ok,a,10\n1,1,2,timeout,,0\n1,2,3,timeout,,0\n1,3,4,ok,b,10\n");
	put(dir, "requests-c2.csv", "client,seq,sent_ns,status,site,rtt_ns\n2,0,1,timeout,,0\n");
	put(dir, "requests-c1-dns.csv",
	    "client,seq,sent_ns,status,site,rtt_ns\n"
	    "100001,0,1,ok,a,10\n100001,1,2,timeout,,0\n100001,2,3,timeout,,0\n"
	    "100001,3,4,error,,0\n100001,4,5,ok,b,10\n");
	put(dir, "requests-c2-dns.csv",
	    "client,seq,sent_ns,status,site,rtt_ns\n100002,0,1,timeout,,0\n100002,1,2,ok,b,9\n");
	put(dir, "requests-c3-dns.csv",
	    "client,seq,sent_ns,status,site,rtt_ns\n100003,0,1,ok,a,9\n100003,1,2,ok,b,9\n");
}

static void test_both_schemes(void **state)
{
	const char *dir = *state;
	json_t *root, *o, *last;
	char *table;

	both(dir);
	root = analyse(dir, &table);
	/* every clock is there: no warning of the clocks */
	assert_int_equal(count_code(root, "clock_missing"), 0);
	/* and the events the clocks rightly ignore make the run invalid: a
	 * healthy b declared dead and marked unhealthy, a declared dead and
	 * marked unhealthy before it failed, the query capture's drop, and
	 * records sent long before t0 that timed out */
	assert_false(is_valid(root));
	assert_code(root, "healthy_site_dead", "the prober on p2 declared site b dead once", 1);
	assert_code(root, "healthy_site_dead",
		    "the prober on p1 declared site a dead once, first at t0 - 0.100 s, before it "
		    "failed",
		    1);
	assert_code(root, "healthy_site_dead", "authd marked site b unhealthy", 1);
	assert_code(root, "healthy_site_dead",
		    "authd marked site a unhealthy once, first at t0 - "
		    "1.000 s, before it failed",
		    1);
	assert_code(root, "capture_drops", "link dns-ns", 1);
	assert_code(root, "unexplained_loss", "dns: 3 of the 3 requests", 1);
	assert_code(root, "client_rate_unchecked", NULL, 0);
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(root, "failed"), "address")), ADDR_A);

	/* anycast: ids below 100000 to the service prefix, its own prober */
	o = anycast(root);
	assert_seconds(o, "detect_s", 0.25);
	assert_seconds(o, "steer_s", 0.26);
	assert_seconds(o, "window_s", 0.15);
	assert_count(o, "lost_capture", 3);
	assert_count(o, "sent", 5);
	assert_count(o, "ok", 2);
	assert_count(o, "lost_client", 3);
	assert_count(o, "errors", 0);
	assert_count(o, "capture_drops", 1);
	last = json_object_get(o, "last_per_client_s");
	assert_count(last, "clients", 2);
	assert_count(last, "sent_after_t0", 2);
	assert_seconds(last, "p50", 0.12);
	assert_seconds(last, "max", 0.15);
	assert_count(json_object_get(o, "captured_after_t0"), "a", 3);
	assert_count(json_object_get(o, "captured_after_t0"), "b", 2);
	assert_true(json_object_get(json_object_get(o, "captured_after_t0"), "dns-ns") == NULL);

	/* dns: ids from 100000, to a's own address; authd's verdicts */
	o = dns(root);
	assert_seconds(o, "detect_s", 0.3);
	assert_count(o, "detect_at_ns", T0 + 300 * MS);
	assert_seconds(o, "remote_dead_s", 0.2);
	assert_string_equal(json_string_value(json_object_get(o, "remote_dead_prober")), "p2");
	assert_seconds(o, "steer_s", 0.35);
	assert_count(o, "steer_at_ns", T0 + 350 * MS);
	assert_string_equal(json_string_value(json_object_get(o, "steer_name")),
			    "www.lab.example.");
	assert_seconds(o, "window_s", 1.5);
	assert_count(o, "lost_capture", 3);
	assert_count(o, "sent", 9);
	assert_count(o, "ok", 5);
	assert_count(o, "lost_client", 3);
	assert_count(o, "errors", 1);
	assert_count(o, "capture_drops", 1);
	/* over the three DNS clients, 100003 at 0: {0, 0.9, 1.5} */
	last = json_object_get(o, "last_per_client_s");
	assert_count(last, "clients", 3);
	assert_count(last, "sent_after_t0", 2);
	assert_seconds(last, "p50", 0.9);
	assert_seconds(last, "p99", 1.5);
	assert_seconds(last, "max", 1.5);
	last = json_object_get(o, "last_packet_s");
	assert_count(last, "clients", 2);
	assert_seconds(last, "p50", 0.9);
	assert_count(json_object_get(o, "replies"), "a", 2);
	assert_count(json_object_get(o, "replies"), "b", 3);
	/* where the DNS flows went after t0, whatever the address */
	assert_count(json_object_get(o, "captured_after_t0"), "a", 4);
	assert_count(json_object_get(o, "captured_after_t0"), "b", 3);
	/* the queries: six, per 10 s of traffic, by source */
	assert_count(o, "upstream_queries", 6);
	assert_seconds(o, "upstream_queries_per_s", 0.6);
	assert_count(json_object_get(o, "upstream_resolvers"), "198.18.0.22", 3);
	assert_count(json_object_get(o, "upstream_resolvers"), "198.18.0.26", 2);
	assert_count(json_object_get(o, "upstream_resolvers"), "198.18.0.30", 1);
	assert_int_equal(json_object_size(json_object_get(o, "upstream_resolvers")), 3);
	free(table);
	json_decref(root);
}

/* the table of the two-scheme run, as a person reads it */
static void test_golden_table(void **state)
{
	const char *dir = *state;
	char *table;
	json_t *root;

	both(dir);
	root = analyse(dir, &table);
	test_assert_golden(DATA "both.golden", table);
	free(table);
	json_decref(root);
}

/* without authd's events the DNS clocks are null; without the query
 * capture, the upstream queries; the rest is still measured */
static void test_dns_without_authd(void **state)
{
	const char *dir = *state;
	char path[512], *table;
	json_t *root, *o;

	both(dir);
	snprintf(path, sizeof(path), "%s/ns.authd.events.jsonl", dir);
	assert_int_equal(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/capture-dns-ns.pcap", dir);
	assert_int_equal(unlink(path), 0);
	root = analyse(dir, &table);
	o = dns(root);
	assert_json_null(o, "detect_s");
	assert_json_null(o, "steer_s");
	assert_json_null(o, "detect_at_ns");
	assert_json_null(o, "steer_name");
	assert_json_null(o, "upstream_queries");
	assert_json_null(o, "upstream_queries_per_s");
	assert_json_null(o, "upstream_resolvers");
	assert_seconds(o, "remote_dead_s", 0.2);
	assert_seconds(o, "window_s", 1.5);
	assert_count(o, "sent", 9);
	assert_warning(root, "dns: detect, steer: no *.authd.events.jsonl");
	assert_warning(root, "dns: upstream queries: no capture-dns-*.pcap");
	/* anycast does not need them */
	assert_int_equal(count_code(root, "clock_missing"), 2);
	assert_seconds(anycast(root), "detect_s", 0.25);
	assert_non_null(strstr(table, "warning (clock_missing): dns: detect, steer:"));
	free(table);
	json_decref(root);
}

/* authd's events without the verdict or the change: each clock is null
 * with its own warning */
static void test_dns_events_missing(void **state)
{
	const char *dir = *state;
	char extra[256];
	json_t *root, *o;

	lab(dir);
	ev(dir, "ns.authd.events.jsonl", T0 + 10 * MS, "health_changed",
	   ",\"site\":\"a\",\"healthy\":true");
	snprintf(extra, sizeof(extra), ",\"name\":\"w.\",\"before\":[\"%s\"],\"after\":[\"%s\"]",
		 ADDR_A, ADDR_A);
	ev(dir, "ns.authd.events.jsonl", T0 + 20 * MS, "answer_changed", extra);
	put(dir, "requests-c1-dns.csv",
	    "client,seq,sent_ns,status,site,rtt_ns\n100001,0,1,timeout,,0\n");
	root = analyse(dir, NULL);
	o = dns(root);
	assert_json_null(o, "detect_s");
	assert_json_null(o, "steer_s");
	assert_json_null(o, "remote_dead_s");
	assert_json_null(o, "window_s");
	assert_count(o, "sent", 1);
	assert_count(json_object_get(o, "last_per_client_s"), "clients", 1);
	assert_warning(root, "dns: detect: no health_changed of site a to unhealthy");
	assert_warning(root, "dns: steer: no answer_changed at or after t0 that stops handing "
			     "out " ADDR_A);
	assert_warning(root, "dns: remote prober: no declared_dead of site a");
	assert_warning(root, "dns: window: no capture-a.pcap");
	/* the run has no anycast flow: absent, no warnings per clock */
	assert_null(json_object_get(json_object_get(root, "schemes"), "anycast"));
	assert_string_equal(
	    json_string_value(json_array_get(json_object_get(root, "schemes_absent"), 0)),
	    "anycast");
	assert_null(warning_of(root, "clock_missing", "anycast"));
	json_decref(root);
}

/* a run from before site_failed named the site's address: no DNS clocks,
 * one warning; anycast as before */
static void test_dns_without_address(void **state)
{
	const char *dir = *state;
	static const char *const keys[] = {
	    "detect_s",	    "steer_s",	     "window_s",	 "sent",	  "lost_client",
	    "lost_capture", "capture_drops", "upstream_queries", "remote_dead_s", NULL};
	char path[512];
	json_t *root, *o;

	both(dir);
	snprintf(path, sizeof(path), "%s/lab.events.jsonl", dir);
	assert_int_equal(unlink(path), 0);
	lab_as(dir, 7000, 0);
	root = analyse(dir, NULL);
	o = dns(root);
	for (const char *const *k = keys; *k; k++)
		assert_json_null(o, *k);
	assert_true(json_is_null(json_object_get(json_object_get(root, "failed"), "address")));
	assert_code(root, "old_run", "site_failed in lab.events.jsonl has no \"address\"", 0);
	assert_int_equal(count_code(root, "old_run"), 1);
	assert_int_equal(count_code(root, "clock_missing"), 0);
	assert_seconds(anycast(root), "window_s", 0.15);
	json_decref(root);
}

/* the pure DNS computation: 100 clients, half of them silent after t0 */
static void test_dns_percentiles(void **state)
{
	struct clocks_input in;
	struct clocks_capture cap;
	struct clocks_packet pk[100];
	struct clocks_result *r = calloc(1, sizeof(*r));

	(void)state;
	assert_non_null(r);
	clocks_input_init(&in);
	memset(&cap, 0, sizeof(cap));
	in.failure.t0_ns = T0;
	strcpy(in.failure.site, "a");
	inet_pton(AF_INET, ANY, &in.failure.prefix);
	in.failure.prefixlen = 32;
	inet_pton(AF_INET, ADDR_A, &in.failure.address);
	in.failure.has_address = 1;
	strcpy(cap.label, "a");
	/* client k <= 50 last sent before t0, k > 50 at t0 + (k - 50) ms */
	for (int k = 1; k <= 100; k++)
		pk[k - 1] = (struct clocks_packet){k <= 50 ? T0 - k * MS : T0 + (k - 50) * MS,
						   DNS_ID(k), 0, in.failure.address};
	cap.packets = pk;
	cap.n = 100;
	in.captures = &cap;
	in.ncaptures = 1;
	in.have_requests = 1; /* CSVs with their header only */
	clocks_dns(&in, r);
	assert_int_equal(r->last_per_client.n, 100);
	assert_int_equal(r->last_packet.n, 50);
	assert_int_equal(r->last_per_client.p50_ns, 0);
	assert_int_equal(r->last_per_client.p99_ns, 49 * MS);
	assert_int_equal(r->last_per_client.max_ns, 50 * MS);
	assert_int_equal(r->last_packet.p50_ns, 25 * MS);
	assert_int_equal(r->window_ns, 50 * MS);
	assert_int_equal(r->lost_capture, 50);
	assert_true(r->detect_ns == CLOCKS_NONE && r->steer_ns == CLOCKS_NONE);
	assert_true(r->upstream_queries == CLOCKS_NONE);
	clocks_result_free(r);
	/* the same packets are no anycast flow */
	clocks_anycast(&in, r);
	assert_true(r->noflows);
	assert_int_equal(r->lost_capture, 0);
	assert_int_equal(r->last_per_client.n, 0);
	clocks_result_free(r);
	free(r);
}

/* the split by client id, in one place, agrees with the lab's */
static void test_scheme_split(void **state)
{
	(void)state;
	assert_int_equal(LAB_DNS_CLIENT_ID(0), WIRE_DNS_CLIENT_BASE);
	assert_int_equal(LAB_DNS_CLIENT_ID(7), WIRE_DNS_CLIENT_BASE + 7);
	assert_int_equal(clocks_scheme_of(WIRE_PROBE_CLIENT), CLOCKS_SCHEME_NONE);
	assert_int_equal(clocks_scheme_of(1), CLOCKS_SCHEME_ANYCAST);
	assert_int_equal(clocks_scheme_of(WIRE_DNS_CLIENT_BASE - 1), CLOCKS_SCHEME_ANYCAST);
	assert_int_equal(clocks_scheme_of(LAB_DNS_CLIENT_ID(1)), CLOCKS_SCHEME_DNS);
	assert_int_equal(clocks_scheme_of(UINT32_MAX), CLOCKS_SCHEME_DNS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_both_schemes, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_golden_table, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_dns_without_authd, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_dns_events_missing, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_dns_without_address, setup, teardown),
	    cmocka_unit_test(test_dns_percentiles),
	    cmocka_unit_test(test_scheme_split),
	};

	return cmocka_run_group_tests_name("clocks dns", tests, NULL, NULL);
}
