/*
 * probes/clocks: the failover clocks of synthetic run directories (event
 * files, pcaps written with pcap_dump, client CSVs) in a temporary
 * directory, the pure anycast computation, the packet decoder, and the
 * errors on malformed files, which must name the file and the line.
 */
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <pcap/pcap.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "clocks.h"

#define T0 1700000000123456789LL
#define MS 1000000LL
#define FRAME_LEN (14 + 20 + 8 + WIRE_LEN)

struct tpkt {
	int64_t t;
	uint16_t port;
	uint8_t type; /* WIRE_REQUEST, WIRE_REPLY, or 0: not a wire message */
	uint32_t client;
};

static void put(const char *dir, const char *name, const char *fmt, ...)
{
	char path[512];
	va_list ap;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "a");
	assert_non_null(fp);
	va_start(ap, fmt);
	vfprintf(fp, fmt, ap);
	va_end(ap);
	assert_int_equal(fclose(fp), 0);
}

/* ev: one event line; extra is the rest of the object, e.g. ,"site":"a" */
static void ev(const char *dir, const char *name, int64_t t, const char *event, const char *extra)
{
	put(dir, name, "{\"t\":%lld,\"node\":\"n\",\"agent\":\"x\",\"event\":\"%s\"%s}\n",
	    (long long)t, event, extra);
}

static void put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* frame: Ethernet, IPv4, UDP to port, then a wire message of type. */
static size_t frame(uint8_t *f, const struct tpkt *p)
{
	struct wire_msg m = {.type = p->type, .client_id = p->client, .seq = 7, .sent_ns = 1};
	uint8_t *ip = f + 14, *udp = ip + 20;

	memset(f, 0, FRAME_LEN);
	put16(f + 12, 0x0800);
	ip[0] = 0x45;
	put16(ip + 2, 20 + 8 + WIRE_LEN);
	ip[8] = 64;
	ip[9] = 17;
	memcpy(ip + 12, "\xc6\x12\x00\x02\xc6\x13\x00\x01", 8);
	put16(udp, 40000);
	put16(udp + 2, p->port);
	put16(udp + 4, 8 + WIRE_LEN);
	if (p->type)
		assert_int_equal(wire_encode(&m, udp + 8, WIRE_LEN), WIRE_LEN);
	else
		memset(udp + 8, 'x', WIRE_LEN);
	return FRAME_LEN;
}

static void write_pcap(const char *dir, const char *name, const struct tpkt *p, size_t n,
		       int precision)
{
	pcap_t *pd = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 262144, precision);
	int64_t div = precision == PCAP_TSTAMP_PRECISION_NANO ? 1 : 1000;
	pcap_dumper_t *d;
	uint8_t f[FRAME_LEN];
	char path[512];

	assert_non_null(pd);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	d = pcap_dump_open(pd, path);
	assert_non_null(d);
	for (size_t i = 0; i < n; i++) {
		struct pcap_pkthdr h = {.caplen = (bpf_u_int32)frame(f, &p[i]), .len = FRAME_LEN};
		h.ts.tv_sec = p[i].t / 1000000000LL;
		h.ts.tv_usec = (p[i].t % 1000000000LL) / div;
		pcap_dump((u_char *)d, &h, f);
	}
	pcap_dump_close(d);
	pcap_close(pd);
}

static int setup(void **state)
{
	char *dir = strdup("/tmp/test_clocks.XXXXXX");

	if (dir == NULL || mkdtemp(dir) == NULL)
		return -1;
	*state = dir;
	return 0;
}

static int teardown(void **state)
{
	char *dir = *state, path[512];
	struct dirent *de;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
	free(dir);
	return 0;
}

/* lab: the lab's events with site a failing at T0; the topology as used */
static void lab_port(const char *dir, int port)
{
	put(dir, "topology.ini", "[lab]\nname = t\nport = %d\n\n[router core]\n", port);
	ev(dir, "lab.events.jsonl", T0 - 5000 * MS, "lab_up",
	   ",\"lab\":\"t\",\"topology\":\"x.ini\"");
	ev(dir, "lab.events.jsonl", T0, "site_failed",
	   ",\"site\":\"a\",\"via\":\"198.18.0.2\",\"prefix\":\"198.19.0.1/32\"");
	ev(dir, "lab.events.jsonl", T0 + 9000 * MS, "lab_down", "");
}

static void lab(const char *dir)
{
	lab_port(dir, 7000);
}

/* analyse: run clocks_analyse and return clocks.json parsed, and the table */
static json_t *analyse(const char *dir, char **table)
{
	char path[512], *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	json_error_t jerr;
	json_t *root;

	assert_non_null(out);
	assert_int_equal(clocks_analyse(dir, out), 0);
	fclose(out);
	snprintf(path, sizeof(path), "%s/clocks.json", dir);
	root = json_load_file(path, 0, &jerr);
	assert_non_null(root);
	if (table)
		*table = buf;
	else
		free(buf);
	return root;
}

static json_t *anycast(json_t *root)
{
	json_t *a = json_object_get(json_object_get(root, "schemes"), "anycast");

	assert_non_null(a);
	return a;
}

static void assert_seconds(json_t *o, const char *key, double want)
{
	json_t *v = json_object_get(o, key);

	assert_true(json_is_real(v));
	assert_true(fabs(json_real_value(v) - want) < 1e-9);
}

static void assert_count(json_t *o, const char *key, json_int_t want)
{
	json_t *v = json_object_get(o, key);

	assert_true(json_is_integer(v));
	assert_int_equal(json_integer_value(v), want);
}

static void test_full_run(void **state)
{
	const char *dir = *state;
	const struct tpkt a[] = {
	    {T0 - 1000 * MS, 7000, WIRE_REQUEST, 1}, /* before t0 */
	    {T0, 7000, WIRE_REQUEST, 2},	     /* at t0: not after it */
	    {T0 + 100 * MS, 7000, WIRE_REQUEST, 1},
	    {T0 + 200 * MS, 7000, WIRE_REQUEST, 2},
	    {T0 + 450 * MS, 7000, WIRE_REQUEST, 1},
	    {T0 + 500 * MS, 7000, WIRE_REPLY, 1},   /* not a request */
	    {T0 + 600 * MS, 7001, WIRE_REQUEST, 1}, /* another port */
	    {T0 + 700 * MS, 7000, 0, 1},	    /* not a wire message */
	};
	const struct tpkt b[] = {{T0 + 1000 * MS, 7000, WIRE_REQUEST, 1},
				 {T0 + 2000 * MS, 7000, WIRE_REQUEST, 2}};
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
	assert_int_equal(json_array_size(json_object_get(root, "warnings")), 0);
	assert_non_null(strstr(table, "detect_s"));
	assert_non_null(strstr(table, "0.450000"));
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
	snprintf(row, sizeof(row), "\n%-26s %14s\n", "detect_s", "-");
	assert_non_null(strstr(table, row));
	assert_non_null(strstr(table, "warning: detect:"));
	free(table);
	json_decref(root);
}

static void test_window_zero_and_micro_pcap(void **state)
{
	const char *dir = *state;
	/* a microsecond pcap, requests only before t0, on port 7001 */
	const struct tpkt a[] = {{T0 - 2000 * MS, 7001, WIRE_REQUEST, 1},
				 {T0 - 1000 * MS, 7001, WIRE_REQUEST, 1}};
	const struct tpkt b[] = {{T0 + 1500 * MS + 3000, 7001, WIRE_REQUEST, 1},
				 {T0 + 1600 * MS, 7000, WIRE_REQUEST, 1}};
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
	memset(&in, 0, sizeof(in));
	memset(&cap, 0, sizeof(cap));
	in.failure.t0_ns = T0;
	strcpy(in.failure.site, "a");
	strcpy(cap.label, "a");
	/* client k sends at t0 + k/2 ms and t0 + k ms: its last is k ms */
	for (int k = 1; k <= 100; k++) {
		pk[2 * k - 2] = (struct clocks_packet){T0 + k * MS, (uint32_t)k, 1};
		pk[2 * k - 1] = (struct clocks_packet){T0 + k * MS / 2, (uint32_t)k, 0};
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
	const struct tpkt a[] = {{T0 + 10 * MS, 7000, WIRE_REQUEST, 1}};
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
	assert_int_equal(json_array_size(json_object_get(root, "warnings")), 3 + 2);
	json_decref(root);
}

static void test_decode(void **state)
{
	struct tpkt p = {0, 7000, WIRE_REQUEST, 42};
	uint8_t f[FRAME_LEN + 64], g[FRAME_LEN + 64];
	struct wire_msg m;
	size_t n = frame(f, &p);

	(void)state;
	assert_int_equal(clocks_decode_request(DLT_EN10MB, f, n, 7000, &m), 0);
	assert_int_equal(m.client_id, 42);
	assert_int_equal(m.seq, 7);
	/* every shorter capture is refused, never read past */
	for (size_t len = 0; len < n; len++)
		assert_int_equal(clocks_decode_request(DLT_EN10MB, f, len, 7000, &m), -1);
	assert_int_equal(clocks_decode_request(DLT_EN10MB, f, n, 7001, &m), -1);
	assert_int_equal(clocks_decode_request(DLT_PPP, f, n, 7000, &m), -1);
	/* Ethernet padding past the IP datagram is fine */
	memset(f + n, 0, 16);
	assert_int_equal(clocks_decode_request(DLT_EN10MB, f, n + 16, 7000, &m), 0);
	/* raw IP */
	assert_int_equal(clocks_decode_request(DLT_RAW, f + 14, n - 14, 7000, &m), 0);
	/* a VLAN tag */
	memcpy(g, f, 12);
	put16(g + 12, 0x8100);
	put16(g + 14, 5);
	memcpy(g + 16, f + 12, n - 12);
	assert_int_equal(clocks_decode_request(DLT_EN10MB, g, n + 4, 7000, &m), 0);
	/* a fragment; UDP longer than IP; a reply; IPv6 */
	f[14 + 6] = 0x20;
	assert_int_equal(clocks_decode_request(DLT_EN10MB, f, n, 7000, &m), -1);
	f[14 + 6] = 0;
	put16(f + 14 + 20 + 4, 8 + WIRE_LEN + 1);
	assert_int_equal(clocks_decode_request(DLT_EN10MB, f, n, 7000, &m), -1);
	p.type = WIRE_REPLY;
	n = frame(f, &p);
	assert_int_equal(clocks_decode_request(DLT_EN10MB, f, n, 7000, &m), -1);
	p.type = WIRE_REQUEST;
	n = frame(f, &p);
	f[14] = 0x65;
	assert_int_equal(clocks_decode_request(DLT_EN10MB, f, n, 7000, &m), -1);
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
	};

	return cmocka_run_group_tests_name("clocks", tests, NULL, NULL);
}
