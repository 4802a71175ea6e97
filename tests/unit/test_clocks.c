/*
 * probes/clocks: the failover clocks of synthetic run directories (event
 * files, pcaps written with pcap_dump, client CSVs) in a temporary
 * directory: anycast alone, both schemes side by side (the split of the
 * requests by client id and destination, each DNS clock, the distribution
 * over clients, the upstream queries, the golden table in
 * tests/unit/data/clocks/), DNS clocks missing without authd's events or an
 * older site_failed; the pure computations, the packet decoders, and the
 * errors on malformed files, which must name the file and the line.
 *
 * UPDATE_GOLDEN=1 rewrites the golden table instead of comparing with it.
 */
#include "test_clocks_util.h"

#define DATA "tests/unit/data/clocks/"

static void test_full_run(void **state)
{
	const char *dir = *state;
	const struct tpkt a[] = {
	    {T0 - 1000 * MS, 7000, WIRE_REQUEST, 1, ANY}, /* before t0 */
	    {T0, 7000, WIRE_REQUEST, 2, ANY},		  /* at t0: not after it */
	    {T0 + 100 * MS, 7000, WIRE_REQUEST, 1, ANY},
	    {T0 + 200 * MS, 7000, WIRE_REQUEST, 2, ANY},
	    {T0 + 450 * MS, 7000, WIRE_REQUEST, 1, ANY},
	    {T0 + 500 * MS, 7000, WIRE_REPLY, 1, ANY},	 /* not a request */
	    {T0 + 600 * MS, 7001, WIRE_REQUEST, 1, ANY}, /* another port */
	    {T0 + 700 * MS, 7000, 0, 1, ANY},		 /* not a wire message */
	};
	const struct tpkt b[] = {{T0 + 1000 * MS, 7000, WIRE_REQUEST, 1, ANY},
				 {T0 + 2000 * MS, 7000, WIRE_REQUEST, 2, ANY}};
	const char *dead = "a.prober.events.jsonl", *col = "core.collector.events.jsonl";
	const char *route = ",\"prefix\":\"198.19.0.1/32\",\"via\":\"198.18.0.2\",\"metric\":10";
	char *table;
	json_t *root, *o;

	lab(dir);
	ev(dir, dead, T0 - 5000 * MS, "declared_dead", ",\"site\":\"a\",\"failures\":3");
	ev(dir, dead, T0 + 100 * MS, "probe_failed", ",\"site\":\"a\",\"consecutive\":1");
	ev(dir, "b.prober.events.jsonl", T0 + 200 * MS, "declared_dead", ",\"site\":\"b\"");
	ev(dir, dead, T0 + 1300 * MS, "declared_dead", ",\"site\":\"a\",\"failures\":3");
	ev(dir, dead, T0 + 300 * MS, "declared_dead", ",\"site\":\"a\",\"failures\":3");
	/* a remote prober's verdict is not the anycast detect, even if earlier */
	ev(dir, "p1.prober.events.jsonl", T0 + 50 * MS, "declared_dead", ",\"site\":\"a\"");
	ev(dir, col, T0 - 1000 * MS, "route_deleted", route);
	ev(dir, col, T0 + 200 * MS, "route_deleted",
	   ",\"prefix\":\"198.19.0.2/32\",\"via\":\"198.18.0.2\"");
	ev(dir, col, T0 + 250 * MS, "route_deleted",
	   ",\"prefix\":\"198.19.0.1/32\",\"via\":\"198.18.0.6\"");
	ev(dir, col, T0 + 300 * MS, "route_added", route);
	ev(dir, col, T0 + 350 * MS, "route_deleted", ",\"prefix\":\"198.19.0.1/32\",\"via\":null");
	ev(dir, col, T0 + 400 * MS, "route_deleted", route);
	ev(dir, col, T0 + 800 * MS, "route_deleted", route);
	ev(dir, col, T0 + 9000 * MS, "capture_stats",
	   ",\"label\":\"a\",\"packets\":5,\"received\":8,\"dropped\":2,\"if_dropped\":1");
	ev(dir, col, T0 + 9000 * MS, "capture_stats",
	   ",\"label\":\"b\",\"packets\":5,\"received\":5,\"dropped\":0,\"if_dropped\":0");
	write_pcap(dir, "capture-a.pcap", a, 8, PCAP_TSTAMP_PRECISION_NANO);
	write_pcap(dir, "capture-b.pcap", b, 2, PCAP_TSTAMP_PRECISION_NANO);
	put(dir, "requests-c1.csv",
	    "client,seq,sent_ns,status,site,rtt_ns\n"
	    "1,0,1,ok,a,10\n1,1,2,ok,b,10\n1,2,3,timeout,,0\n"
	    "1,3,4,timeout,,0\n1,4,5,error,,0\n");
	put(dir, "requests-c2.csv",
	    "client,seq,sent_ns,status,site,rtt_ns\n2,0,1,ok,b,9\n"
	    "2,1,2,ok,b,9\n");

	root = analyse(dir, &table);
	assert_string_equal(json_string_value(json_object_get(root, "lab")), "t");
	assert_count(root, "t0_ns", T0);
	o = anycast(root);
	assert_seconds(o, "detect_s", 0.3);
	assert_seconds(o, "steer_s", 0.4);
	assert_seconds(o, "window_s", 0.45);
	assert_count(o, "sent", 7);
	assert_count(o, "lost_client", 2);
	assert_count(o, "errors", 1);
	assert_count(o, "ok", 4);
	assert_count(o, "lost_capture", 3);
	assert_count(o, "capture_drops", 3);
	assert_count(o, "detect_at_ns", T0 + 300 * MS);
	assert_count(o, "steer_at_ns", T0 + 400 * MS);
	assert_count(json_object_get(o, "last_packet_s"), "clients", 2);
	assert_seconds(json_object_get(o, "last_packet_s"), "p50", 0.2);
	assert_seconds(json_object_get(o, "last_packet_s"), "max", 0.45);
	assert_count(json_object_get(o, "replies"), "b", 3);
	assert_count(json_object_get(o, "captured_after_t0"), "a", 3);
	assert_count(json_object_get(o, "captured_after_t0"), "b", 2);
	assert_count(json_object_get(o, "last_per_client_s"), "clients", 2);
	assert_count(json_object_get(o, "last_per_client_s"), "sent_after_t0", 2);
	assert_seconds(json_object_get(o, "last_per_client_s"), "p50", 0.2);
	assert_seconds(json_object_get(o, "last_per_client_s"), "max", 0.45);
	/* no upstream queries for anycast: the key is not there */
	assert_true(json_object_get(o, "upstream_queries") == NULL);
	/* the run has no DNS flows: the dns scheme is absent (no object, no
	 * column), not zeros, and none of its clocks is warned about */
	assert_null(json_object_get(json_object_get(root, "schemes"), "dns"));
	assert_string_equal(
	    json_string_value(json_array_get(json_object_get(root, "schemes_absent"), 0)), "dns");
	assert_int_equal(count_code(root, "clock_missing"), 0);
	assert_non_null(strstr(table, "detect (s)"));
	assert_non_null(strstr(table, "0.450000"));
	assert_non_null(strstr(table, "\n                                  anycast\n"));
	assert_non_null(strstr(table, "dns: absent: the run has no DNS-steered flows"));
	/* what the clocks ignore the verdict does not: the capture dropped,
	 * b was declared dead, other routes withdrawn, losses before t0 */
	assert_false(is_valid(root));
	assert_code(root, "capture_drops", "dropped 3 packets of link a", 1);
	assert_code(root, "healthy_site_dead", "declared site b dead once", 1);
	assert_code(root, "healthy_route_withdrawn", "via 198.18.0.6", 1);
	assert_code(root, "healthy_route_withdrawn", "via no gateway", 1);
	assert_code(root, "healthy_route_withdrawn",
		    "via 198.18.0.2 left the router's FIB once, "
		    "first at t0 - 1.000 s, before the site failed",
		    1);
	assert_code(root, "unexplained_loss", "anycast: 2 of the 2 requests", 1);
	assert_non_null(strstr(table, "*** INVALID RUN"));
	free(table);
	json_decref(root);
}

static void test_missing_clocks_are_null(void **state)
{
	const char *dir = *state;
	char *table, row[64];
	json_t *root, *o;

	lab(dir);
	/* the prober saw the failure only before t0; no route was deleted; no
	 * capture of a, no capture_stats, no client records */
	ev(dir, "a.prober.events.jsonl", T0 - 1, "declared_dead", ",\"site\":\"a\"");
	ev(dir, "core.collector.events.jsonl", T0 + MS, "route_added",
	   ",\"prefix\":\"198.19.0.1/32\",\"via\":\"198.18.0.2\"");
	root = analyse(dir, &table);
	o = anycast(root);
	for (const char **k =
		 (const char *[]){"detect_s", "steer_s", "window_s", "sent", "lost_client",
				  "lost_capture", "capture_drops", NULL};
	     *k; k++)
		assert_true(json_is_null(json_object_get(o, *k)));
	assert_true(json_array_size(json_object_get(root, "warnings")) >= 5);
	snprintf(row, sizeof(row), "\n%-26s %14s %14s\n", "detect (s)", "-", "-");
	assert_non_null(strstr(table, row));
	assert_non_null(strstr(table, "warning (clock_missing): anycast: detect:"));
	free(table);
	json_decref(root);
}

static void test_window_zero_and_micro_pcap(void **state)
{
	const char *dir = *state;
	/* a microsecond pcap, requests only before t0, on port 7001 */
	const struct tpkt a[] = {{T0 - 2000 * MS, 7001, WIRE_REQUEST, 1, ANY},
				 {T0 - 1000 * MS, 7001, WIRE_REQUEST, 1, ANY}};
	const struct tpkt b[] = {{T0 + 1500 * MS + 3000, 7001, WIRE_REQUEST, 1, ANY},
				 {T0 + 1600 * MS, 7000, WIRE_REQUEST, 1, ANY}};
	json_t *root, *o;

	lab_port(dir, 7001);
	write_pcap(dir, "capture-a.pcap", a, 2, PCAP_TSTAMP_PRECISION_MICRO);
	write_pcap(dir, "capture-b.pcap", b, 2, PCAP_TSTAMP_PRECISION_MICRO);
	root = analyse(dir, NULL);
	o = anycast(root);
	assert_count(root, "port", 7001);
	assert_seconds(o, "window_s", 0.0);
	assert_count(o, "lost_capture", 0);
	assert_count(json_object_get(o, "captured_after_t0"), "b", 1);
	json_decref(root);
}

/* the pure computation, without files: percentiles over 100 clients */
static void test_compute_percentiles(void **state)
{
	struct clocks_input in;
	struct clocks_capture cap;
	struct clocks_packet pk[200];
	struct clocks_result *r = calloc(1, sizeof(*r));

	(void)state;
	assert_non_null(r);
	clocks_input_init(&in);
	memset(&cap, 0, sizeof(cap));
	in.failure.t0_ns = T0;
	strcpy(in.failure.site, "a");
	inet_pton(AF_INET, ANY, &in.failure.prefix);
	in.failure.prefixlen = 32;
	strcpy(cap.label, "a");
	/* client k sends at t0 + k/2 ms and t0 + k ms: its last is k ms */
	for (int k = 1; k <= 100; k++) {
		pk[2 * k - 2] =
		    (struct clocks_packet){T0 + k * MS, (uint32_t)k, 1, in.failure.prefix};
		pk[2 * k - 1] =
		    (struct clocks_packet){T0 + k * MS / 2, (uint32_t)k, 0, in.failure.prefix};
	}
	cap.packets = pk;
	cap.n = 200;
	in.captures = &cap;
	in.ncaptures = 1;
	clocks_anycast(&in, r);
	assert_int_equal(r->last_packet.n, 100);
	assert_int_equal(r->last_packet.p50_ns, 50 * MS);
	assert_int_equal(r->last_packet.p99_ns, 99 * MS);
	assert_int_equal(r->last_packet.max_ns, 100 * MS);
	assert_int_equal(r->window_ns, 100 * MS);
	assert_int_equal(r->lost_capture, 200);
	assert_true(r->detect_ns == CLOCKS_NONE && r->steer_ns == CLOCKS_NONE);
	assert_true(r->sent == CLOCKS_NONE && r->capture_drops == CLOCKS_NONE);
	clocks_result_free(r);
	free(r);
}

/* expect_error: clocks_load fails and the error contains every needle */
static void expect_error(const char *dir, const char *needle1, const char *needle2)
{
	struct clocks_input in;
	char err[1024] = "";

	assert_int_equal(clocks_load(dir, &in, err, sizeof(err)), -1);
	clocks_input_free(&in);
	if (strstr(err, needle1) == NULL || (needle2 && strstr(err, needle2) == NULL))
		fail_msg("error \"%s\" lacks \"%s\" / \"%s\"", err, needle1, needle2);
}

static void test_errors(void **state)
{
	const char *dir = *state;
	char path[512];

	expect_error(dir, "lab.events.jsonl", "No such file");
	ev(dir, "lab.events.jsonl", T0 - 1, "lab_up", ",\"lab\":\"t\"");
	expect_error(dir, "lab.events.jsonl", "no site_failed");
	ev(dir, "lab.events.jsonl", T0, "site_failed", ",\"site\":\"a\",\"prefix\":\"198.19.0.1\"");
	expect_error(dir, "lab.events.jsonl:2:", "\"via\"");
	teardown(state);
	setup(state);
	dir = *state;
	lab(dir);
	put(dir, "a.prober.events.jsonl", "{\"t\":1,\"event\":\"probe_failed\"}\n{\"t\":2,\n");
	expect_error(dir, "a.prober.events.jsonl:2:", NULL);
	snprintf(path, sizeof(path), "%s/a.prober.events.jsonl", dir);
	unlink(path);
	ev(dir, "a.prober.events.jsonl", T0, "declared_dead", ",\"failures\":3");
	expect_error(dir, "a.prober.events.jsonl:1:", "declared_dead has no string \"site\"");
	unlink(path);
	put(dir, "r.collector.events.jsonl", "{\"t\":\"soon\",\"event\":\"route_deleted\"}\n");
	expect_error(dir, "r.collector.events.jsonl:1:", "integer \"t\"");
	snprintf(path, sizeof(path), "%s/r.collector.events.jsonl", dir);
	unlink(path);
	ev(dir, "r.collector.events.jsonl", T0, "capture_stats",
	   ",\"label\":\"a\",\"packets\":1,\"received\":1,\"dropped\":\"none\",\"if_dropped\":0");
	expect_error(dir, "r.collector.events.jsonl:1:", "\"dropped\"");
	unlink(path);
	put(dir, "requests-c1.csv", "client,seq,sent_ns,status,site\n");
	expect_error(dir, "requests-c1.csv:1:", "header");
	snprintf(path, sizeof(path), "%s/requests-c1.csv", dir);
	unlink(path);
	put(dir, "requests-c1.csv",
	    "client,seq,sent_ns,status,site,rtt_ns\n1,0,5,ok,a,1\n"
	    "1,1,6,lost,,0\n");
	expect_error(dir, "requests-c1.csv:3:", "bad status \"lost\"");
	unlink(path);
	put(dir, "requests-c1.csv", "client,seq,sent_ns,status,site,rtt_ns\n1,0,5,ok,a\n1,1,6,");
	expect_error(dir, "requests-c1.csv:2:", "5 fields");
	unlink(path);
	put(dir, "capture-a.pcap", "this is not a pcap file at all, no magic");
	expect_error(dir, "capture-a.pcap", NULL);
}

static void test_cut_last_lines_are_warnings(void **state)
{
	const char *dir = *state;
	const struct tpkt a[] = {{T0 + 10 * MS, 7000, WIRE_REQUEST, 1, ANY}};
	char path[512];
	json_t *root, *o;
	FILE *fp;

	lab(dir);
	put(dir, "a.prober.events.jsonl",
	    "{\"t\":%lld,\"event\":\"declared_dead\",\"site\":\"a\"}"
	    "\n{\"t\":12,\"ev",
	    (long long)(T0 + 5 * MS));
	put(dir, "requests-c1.csv",
	    "client,seq,sent_ns,status,site,rtt_ns\n1,0,5,timeout,,0\n1,1,6");
	write_pcap(dir, "capture-a.pcap", a, 1, PCAP_TSTAMP_PRECISION_NANO);
	/* a collector killed mid-write: half a packet record at the end */
	snprintf(path, sizeof(path), "%s/capture-a.pcap", dir);
	fp = fopen(path, "a");
	assert_non_null(fp);
	fwrite("\x01\x02\x03\x04\x05\x06\x07\x08\x30", 1, 9, fp);
	fclose(fp);
	root = analyse(dir, NULL);
	o = anycast(root);
	assert_seconds(o, "detect_s", 0.005);
	assert_count(o, "sent", 1);
	assert_count(o, "lost_client", 1);
	assert_count(o, "lost_capture", 1);
	/* 3 cut files, the capture's invalidating; anycast: no steer; no
	 * capture_stats; dns: no flows, absent, nothing said */
	assert_int_equal(count_code(root, "file_cut"), 2);
	assert_code(root, "capture_truncated", "capture-a.pcap: after packet 1", 1);
	assert_int_equal(count_code(root, "clock_missing"), 1);
	assert_code(root, "clock_missing", "anycast: steer", 0);
	assert_code(root, "capture_stats_missing", NULL, 1);
	assert_null(warning_of(root, NULL, "dns"));
	json_decref(root);
}

static void test_decode(void **state)
{
	struct tpkt p = {0, 7000, WIRE_REQUEST, 42, ADDR_B};
	uint8_t f[FRAME_MAX + 64], g[FRAME_MAX + 64];
	struct wire_msg m;
	struct in_addr dst, b;
	size_t n = frame(f, &p);

	(void)state;
	inet_pton(AF_INET, ADDR_B, &b);
	assert_int_equal(clocks_decode_request(DLT_EN10MB, f, n, 7000, &m, &dst), 0);
	assert_int_equal(m.client_id, 42);
	assert_int_equal(m.seq, 7);
	assert_int_equal(dst.s_addr, b.s_addr);
	/* every shorter capture is refused, never read past */
	for (size_t len = 0; len < n; len++)
		assert_int_equal(clocks_decode_request(DLT_EN10MB, f, len, 7000, &m, NULL), -1);
	assert_int_equal(clocks_decode_request(DLT_EN10MB, f, n, 7001, &m, NULL), -1);
	assert_int_equal(clocks_decode_request(DLT_PPP, f, n, 7000, &m, NULL), -1);
	/* Ethernet padding past the IP datagram is fine */
	memset(f + n, 0, 16);
	assert_int_equal(clocks_decode_request(DLT_EN10MB, f, n + 16, 7000, &m, NULL), 0);
	/* raw IP */
	assert_int_equal(clocks_decode_request(DLT_RAW, f + 14, n - 14, 7000, &m, NULL), 0);
	/* a VLAN tag */
	memcpy(g, f, 12);
	put16(g + 12, 0x8100);
	put16(g + 14, 5);
	memcpy(g + 16, f + 12, n - 12);
	assert_int_equal(clocks_decode_request(DLT_EN10MB, g, n + 4, 7000, &m, &dst), 0);
	/* a fragment; UDP longer than IP; a reply; IPv6 */
	f[14 + 6] = 0x20;
	assert_int_equal(clocks_decode_request(DLT_EN10MB, f, n, 7000, &m, &dst), -1);
	f[14 + 6] = 0;
	put16(f + 14 + 20 + 4, 8 + WIRE_LEN + 1);
	assert_int_equal(clocks_decode_request(DLT_EN10MB, f, n, 7000, &m, &dst), -1);
	p.type = WIRE_REPLY;
	n = frame(f, &p);
	assert_int_equal(clocks_decode_request(DLT_EN10MB, f, n, 7000, &m, &dst), -1);
	p.type = WIRE_REQUEST;
	n = frame(f, &p);
	f[14] = 0x65;
	assert_int_equal(clocks_decode_request(DLT_EN10MB, f, n, 7000, &m, &dst), -1);
}

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
	    {T0 + 5000 * MS, 7000, WIRE_REQUEST, CLOCKS_PROBE_CLIENT, ADDR_A},
	};
	const struct tpkt b[] = {
	    {T0 + 300 * MS, 7000, WIRE_REQUEST, 1, ANY},
	    {T0 + 310 * MS, 7000, WIRE_REQUEST, 2, ANY},
	    {T0 + 1000 * MS, 7000, WIRE_REQUEST, DNS_ID(1), ADDR_B},
	    {T0 + 1600 * MS, 7000, WIRE_REQUEST, DNS_ID(2), ADDR_B},
	    {T0 + 2000 * MS, 7000, WIRE_REQUEST, DNS_ID(3), ADDR_B},
	    {T0 + 2100 * MS, 7000, WIRE_REQUEST, CLOCKS_PROBE_CLIENT, ADDR_B},
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
	char *table, *want;
	json_t *root;
	FILE *fp;

	both(dir);
	root = analyse(dir, &table);
	if (getenv("UPDATE_GOLDEN")) {
		fp = fopen(DATA "both.golden", "w");
		assert_non_null(fp);
		fputs(table, fp);
		fclose(fp);
	}
	want = read_text(DATA "both.golden");
	assert_string_equal(table, want);
	free(want);
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
	assert_int_equal(LAB_DNS_CLIENT_ID(0), CLOCKS_DNS_CLIENT_BASE);
	assert_int_equal(LAB_DNS_CLIENT_ID(7), CLOCKS_DNS_CLIENT_BASE + 7);
	assert_int_equal(clocks_scheme_of(CLOCKS_PROBE_CLIENT), CLOCKS_SCHEME_NONE);
	assert_int_equal(clocks_scheme_of(1), CLOCKS_SCHEME_ANYCAST);
	assert_int_equal(clocks_scheme_of(CLOCKS_DNS_CLIENT_BASE - 1), CLOCKS_SCHEME_ANYCAST);
	assert_int_equal(clocks_scheme_of(LAB_DNS_CLIENT_ID(1)), CLOCKS_SCHEME_DNS);
	assert_int_equal(clocks_scheme_of(UINT32_MAX), CLOCKS_SCHEME_DNS);
}

static void test_decode_query(void **state)
{
	struct tquery q = {0, "198.18.0.26", 53, 0};
	uint8_t f[FRAME_MAX];
	struct in_addr src, want;
	struct wire_msg m;
	size_t n = qframe(f, &q);

	(void)state;
	inet_pton(AF_INET, "198.18.0.26", &want);
	assert_int_equal(clocks_decode_query(DLT_EN10MB, f, n, &src), 0);
	assert_int_equal(src.s_addr, want.s_addr);
	/* not a request */
	assert_int_equal(clocks_decode_request(DLT_EN10MB, f, n, 53, &m, NULL), -1);
	/* cut short of the DNS header: refused, never read past */
	for (size_t len = 0; len < 14 + 20 + 8 + 12; len++)
		assert_int_equal(clocks_decode_query(DLT_EN10MB, f, len, &src), -1);
	assert_int_equal(clocks_decode_query(DLT_EN10MB, f, 14 + 20 + 8 + 12, &src), 0);
	q.response = 1;
	n = qframe(f, &q);
	assert_int_equal(clocks_decode_query(DLT_EN10MB, f, n, &src), -1);
	q.response = 0;
	q.port = 5353;
	n = qframe(f, &q);
	assert_int_equal(clocks_decode_query(DLT_EN10MB, f, n, &src), -1);
}

/* malformed DNS-side events are errors naming the file and the line */
static void test_dns_errors(void **state)
{
	const char *dir = *state;
	const char *authd = "ns.authd.events.jsonl";
	char path[512];

	lab(dir);
	snprintf(path, sizeof(path), "%s/%s", dir, authd);
	ev(dir, authd, T0, "answer_changed", ",\"name\":\"w.\",\"before\":\"x\",\"after\":[]");
	expect_error(
	    dir, "ns.authd.events.jsonl:1:", "answer_changed has no address list in \"before\"");
	unlink(path);
	ev(dir, authd, T0, "answer_changed", ",\"name\":\"w.\",\"before\":[],\"after\":[\"nope\"]");
	expect_error(dir, "ns.authd.events.jsonl:1:", "bad address in \"after\"");
	unlink(path);
	ev(dir, authd, T0, "authd_ready", "");
	ev(dir, authd, T0, "health_changed", ",\"site\":\"a\",\"healthy\":\"no\"");
	expect_error(dir, "ns.authd.events.jsonl:2:", "health_changed has no boolean \"healthy\"");
	unlink(path);
	snprintf(path, sizeof(path), "%s/lab.events.jsonl", dir);
	unlink(path);
	ev(dir, "lab.events.jsonl", T0 - 1, "lab_up", ",\"lab\":\"t\"");
	ev(dir, "lab.events.jsonl", T0, "site_failed",
	   ",\"site\":\"a\",\"via\":\"198.18.0.2\",\"prefix\":\"198.19.0.1/32\",\"address\":7");
	expect_error(dir, "lab.events.jsonl:2:", "site_failed has no string \"address\"");
	unlink(path);
	ev(dir, "lab.events.jsonl", T0 - 1, "lab_up", ",\"lab\":\"t\"");
	ev(dir, "lab.events.jsonl", T0 - 1, "traffic_started", ",\"fail_at_ns\":1");
	expect_error(dir, "lab.events.jsonl:2:", "\"duration_ns\"");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_full_run, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_missing_clocks_are_null, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_window_zero_and_micro_pcap, setup, teardown),
	    cmocka_unit_test(test_compute_percentiles),
	    cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_cut_last_lines_are_warnings, setup, teardown),
	    cmocka_unit_test(test_decode),
	    cmocka_unit_test_setup_teardown(test_both_schemes, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_golden_table, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_dns_without_authd, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_dns_events_missing, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_dns_without_address, setup, teardown),
	    cmocka_unit_test(test_dns_percentiles),
	    cmocka_unit_test(test_scheme_split),
	    cmocka_unit_test(test_decode_query),
	    cmocka_unit_test_setup_teardown(test_dns_errors, setup, teardown),
	};

	return cmocka_run_group_tests_name("clocks", tests, NULL, NULL);
}
