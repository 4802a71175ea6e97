/*
 * probes/clocks: loading a run directory. Malformed files are errors that
 * name the file and the line (lab, probers, collector, clients, captures,
 * authd); a last line cut short is a warning, not an error; and the packet
 * decoders, requests and DNS queries, refuse what is not theirs and never
 * read past a short frame.
 */
#include "clocks_int.h"
#include "test_clocks_util.h"

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

static void test_decode_query(void **state)
{
	struct tquery q = {0, "198.18.0.26", 53, 0};
	uint8_t f[FRAME_MAX];
	struct in_addr src, want;
	struct wire_msg m;
	size_t n = qframe(f, &q);

	(void)state;
	inet_pton(AF_INET, "198.18.0.26", &want);
	assert_int_equal(clocks_decode_query(NULL, DLT_EN10MB, f, n, &src), 0);
	assert_int_equal(src.s_addr, want.s_addr);
	/* not a request */
	assert_int_equal(clocks_decode_request(DLT_EN10MB, f, n, 53, &m, NULL), -1);
	/* cut short of the DNS header: refused, never read past */
	for (size_t len = 0; len < 14 + 20 + 8 + 12; len++)
		assert_int_equal(clocks_decode_query(NULL, DLT_EN10MB, f, len, &src), -1);
	assert_int_equal(clocks_decode_query(NULL, DLT_EN10MB, f, 14 + 20 + 8 + 12, &src), 0);
	q.response = 1;
	n = qframe(f, &q);
	assert_int_equal(clocks_decode_query(NULL, DLT_EN10MB, f, n, &src), -1);
	q.response = 0;
	q.port = 5353;
	n = qframe(f, &q);
	assert_int_equal(clocks_decode_query(NULL, DLT_EN10MB, f, n, &src), -1);
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

/* authd's zone_changed: a set-weight's site and weight, a record change's
 * none; a set-weight without its weight names its line */
/* a dual lab's records (docs/clocks.md, "IPv6"): the family columns
 * parse, a bad one is an error naming the line; clocks.json's families
 * group the client flows by client_started's family: the requests after
 * t0, those lost, those rescued over IPv4 and their round trip, the
 * flows that lost nothing */
static void test_families(void **state)
{
	const char *dir = *state;
	json_t *root, *fam, *row;
	char path[512];
	size_t i;

	lab(dir);
	put(dir, "requests-c1.csv",
	    "client,seq,sent_ns,status,site,rtt_ns,family,fallback\n1,0,5,ok,a,1,5,0\n");
	expect_error(dir, "requests-c1.csv:2:", "bad family \"5\"");
	snprintf(path, sizeof(path), "%s/requests-c1.csv", dir);
	unlink(path);
	put(dir, "requests-c1.csv",
	    "client,seq,sent_ns,status,site,rtt_ns,family,fallback\n"
	    "1,0,%lld,ok,a,100000,6,0\n1,1,%lld,ok,a,250000000,4,1\n"
	    "1,2,%lld,ok,a,251000000,4,1\n",
	    (long long)(T0 - 10 * MS), (long long)(T0 + 10 * MS), (long long)(T0 + 20 * MS));
	put(dir, "requests-c2.csv",
	    "client,seq,sent_ns,status,site,rtt_ns,family,fallback\n"
	    "2,0,%lld,ok,a,100000,6,0\n2,1,%lld,timeout,,0,6,0\n",
	    (long long)(T0 - 10 * MS), (long long)(T0 + 10 * MS));
	ev(dir, "c1.client.events.jsonl", T0 - 100 * MS, "client_started",
	   ",\"client\":1,\"rate\":100,\"family\":\"dual\"");
	ev(dir, "c2.client.events.jsonl", T0 - 100 * MS, "client_started",
	   ",\"client\":2,\"rate\":100,\"family\":\"6\"");
	root = analyse(dir, NULL);
	fam = json_object_get(root, "families");
	assert_true(json_is_array(fam));
	assert_int_equal(json_array_size(fam), 2);
	json_array_foreach(fam, i, row)
	{
		const char *f = json_string_value(json_object_get(row, "family"));

		assert_count(row, "clients", 1);
		if (strcmp(f, "dual") == 0) {
			assert_count(row, "sent_after_t0", 2);
			assert_count(row, "lost_after_t0", 0);
			assert_count(row, "rescued", 2);
			assert_seconds(row, "rescued_rtt_p50_s", 0.251);
			assert_count(row, "unnoticed_clients", 1);
		} else {
			assert_string_equal(f, "6");
			assert_count(row, "sent_after_t0", 1);
			assert_count(row, "lost_after_t0", 1);
			assert_count(row, "rescued", 0);
			assert_json_null(row, "rescued_rtt_p50_s");
			assert_count(row, "unnoticed_clients", 0);
		}
	}
	json_decref(root);
}

/* a population of family dual (docs/clocks.md, "IPv6"): its records carry
 * its logical clients' ids, each a client of its family: 3 users, user 1
 * lost a request after t0, user 0 was rescued over IPv4, user 2 sent
 * nothing after t0: 2 of 3 never noticed */
static void test_families_population(void **state)
{
	const char *dir = *state;
	uint32_t base = WIRE_POP_ID(2, 1, 0);
	json_t *root, *fam, *row;
	char extra[128];

	lab(dir);
	put(dir, "requests-p.csv",
	    "client,seq,sent_ns,status,site,rtt_ns,family,fallback\n"
	    "%u,0,%lld,ok,a,100000,6,0\n%u,1,%lld,ok,a,250000000,4,1\n"
	    "%u,2,%lld,timeout,,0,4,1\n%u,3,%lld,ok,a,100000,6,0\n",
	    base + 2, (long long)(T0 - 10 * MS), base, (long long)(T0 + 10 * MS), base + 1,
	    (long long)(T0 + 20 * MS), base + 1, (long long)(T0 + 30 * MS));
	snprintf(extra, sizeof(extra),
		 ",\"client\":%u,\"rate\":100,\"family\":\"dual\",\"population\":3", base);
	ev(dir, "p.client-dns.events.jsonl", T0 - 100 * MS, "client_started", extra);
	root = analyse(dir, NULL);
	fam = json_object_get(root, "families");
	assert_true(json_is_array(fam));
	assert_int_equal(json_array_size(fam), 1);
	row = json_array_get(fam, 0);
	assert_string_equal(json_string_value(json_object_get(row, "family")), "dual");
	assert_count(row, "clients", 3);
	assert_count(row, "sent_after_t0", 3);
	assert_count(row, "lost_after_t0", 1);
	assert_count(row, "rescued", 1);
	assert_seconds(row, "rescued_rtt_p50_s", 0.25);
	assert_count(row, "unnoticed_clients", 2);
	json_decref(root);
}

static void test_zone_changed(void **state)
{
	const char *dir = *state, *authd = "ns.authd.events.jsonl";
	struct clocks_input in;
	char path[512], err[1024];

	lab(dir);
	ev(dir, authd, T0, "zone_changed",
	   ",\"zone\":\"lab.example.\",\"name\":\"w.lab.example.\",\"what\":\"set-weight\","
	   "\"site\":\"a\",\"type\":null,\"before\":90,\"after\":50,\"serial\":7,\"id\":\"e1\"");
	ev(dir, authd, T0 + 1, "zone_changed",
	   ",\"zone\":\"lab.example.\",\"name\":\"n.lab.example.\",\"what\":\"add-record\","
	   "\"site\":null,\"type\":\"A\",\"before\":[],\"after\":[\"198.19.9.1\"],\"serial\":8,"
	   "\"id\":\"e2\"");
	if (clocks_load(dir, &in, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_int_equal(in.nzchanges, 2);
	assert_string_equal(in.zchanges[0].name, "w.lab.example.");
	assert_string_equal(in.zchanges[0].site, "a");
	assert_int_equal(in.zchanges[0].after, 50);
	assert_int_equal(in.zchanges[0].serial, 7);
	assert_string_equal(in.zchanges[1].what, "add-record");
	assert_true(in.zchanges[1].after == CLOCKS_NONE);
	clocks_input_free(&in);
	snprintf(path, sizeof(path), "%s/%s", dir, authd);
	unlink(path);
	ev(dir, authd, T0, "zone_changed",
	   ",\"name\":\"w.lab.example.\",\"what\":\"set-weight\",\"site\":\"a\"");
	expect_error(dir, "ns.authd.events.jsonl:1:", "set-weight");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_cut_last_lines_are_warnings, setup, teardown),
	    cmocka_unit_test(test_decode),
	    cmocka_unit_test(test_decode_query),
	    cmocka_unit_test_setup_teardown(test_dns_errors, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_zone_changed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_families, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_families_population, setup, teardown),
	};

	return cmocka_run_group_tests_name("clocks load", tests, NULL, NULL);
}
