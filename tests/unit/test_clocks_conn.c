/*
 * probes/clocks/clocks_conn.c: the connection clocks of a synthetic run
 * whose client speaks TCP: the SYNs, FINs and RSTs of each site link's
 * capture counted per scheme (the anycast address, or site a's own: DNS),
 * a retransmitted SYN opening nothing new, the connections open on the
 * failed site at t0, the last SYN that reached it after t0, and a reset by
 * another site told apart by whether its link ever opened that connection
 * (RFC 7094's catchment change) or not, and of those the ones a third,
 * healthy site had opened (ECMP's collateral). A run without TCP has no
 * "connections" at all.
 */
#include "test_clocks_util.h"

#include "ipframe.h"
#include "report.h"

#define CLIENT "198.18.0.22"

/* tseg: one TCP segment of a capture: at t, between the client's port cport
 * and server (the anycast address or a site's own) port 7000, flags, sent
 * by the server if from_server */
struct tseg {
	int64_t t;
	uint16_t cport;
	const char *server;
	uint8_t flags;
	int from_server;
};

static size_t tcp_frame(uint8_t *f, const struct tseg *s)
{
	uint8_t *ip = f + 14, *tcp = ip + 20;

	memset(f, 0, FRAME_MAX);
	put16(f + 12, 0x0800);
	ip[0] = 0x45;
	put16(ip + 2, 20 + 20);
	ip[8] = 64;
	ip[9] = IPFRAME_TCP;
	assert_int_equal(inet_pton(AF_INET, s->from_server ? s->server : CLIENT, ip + 12), 1);
	assert_int_equal(inet_pton(AF_INET, s->from_server ? CLIENT : s->server, ip + 16), 1);
	put16(tcp, s->from_server ? 7000 : s->cport);
	put16(tcp + 2, s->from_server ? s->cport : 7000);
	tcp[12] = 5 << 4;
	tcp[13] = s->flags;
	return 14 + 20 + 20;
}

static void write_tcp_pcap(const char *dir, const char *name, const struct tseg *s, size_t n)
{
	struct dumper w;
	uint8_t f[FRAME_MAX];

	dump_open(&w, dir, name, PCAP_TSTAMP_PRECISION_NANO);
	for (size_t i = 0; i < n; i++)
		dump_frame(&w, s[i].t, f, tcp_frame(f, &s[i]));
	dump_close(&w);
}

#define SYN IPFRAME_SYN
#define SYNACK (IPFRAME_SYN | IPFRAME_ACK)
#define FIN (IPFRAME_FIN | IPFRAME_ACK)
#define RST (IPFRAME_RST | IPFRAME_ACK)

/* syn_sums: the totals of decay.csv's connection attempts' columns
 * (anycast_syn_dead, anycast_syn_all, dns_syn_dead, dns_syn_all: the last
 * four), each bucket's cells numbers */
static void syn_sums(const char *dir, long long sum[4])
{
	char path[512], line[1024];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/decay.csv", dir);
	assert_non_null(fp = fopen(path, "r"));
	assert_non_null(fgets(line, sizeof(line), fp));
	assert_non_null(
	    strstr(line, ",anycast_syn_dead,anycast_syn_all,dns_syn_dead,dns_syn_all\n"));
	memset(sum, 0, 4 * sizeof(sum[0]));
	while (fgets(line, sizeof(line), fp)) {
		char *cell[64];
		int n = 0;

		for (char *p = line, *c; n < 64 && (c = strsep(&p, ",\n")) != NULL;)
			cell[n++] = c;
		/* the line's end leaves one empty cell after the last */
		assert_true(n >= 5);
		for (int k = 0; k < 4; k++)
			sum[k] += atoll(cell[n - 5 + k]);
	}
	fclose(fp);
}

/* the connection attempts' decay of test_connections' run (report_run,
 * buckets of 100 ms): the DNS flow's two SYNs to a after t0, at 200 ms and
 * 1.2 s, both to the dead site; the anycast flow's one, at 1.6 s, to b; the
 * terminal's table counts them up to each mark */
static void conn_decay(const char *dir)
{
	struct report_opts o = {.bucket_ns = 100 * MS, .gnuplot = "true"};
	long long sum[4];
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(out);
	assert_true(report_run(dir, &o, out) >= 0);
	fclose(out);
	syn_sums(dir, sum);
	assert_int_equal(sum[0], 0);
	assert_int_equal(sum[1], 1);
	assert_int_equal(sum[2], 2);
	assert_int_equal(sum[3], 2);
	assert_non_null(strstr(buf, "\nconnection attempts: SYNs each scheme's clients sent to a"));
	assert_non_null(strstr(buf, "\n0.5 s       0 of 0  1 of 1\n1 s         0 of 0  1 of 1\n"
				    "2 s         0 of 1  2 of 2\n"));
	free(buf);
}

static void test_connections(void **state)
{
	const char *dir = *state;
	const struct tseg a[] = {
	    {T0 - 2000 * MS, 40001, ANY, SYN, 0},    /* anycast, open at t0 */
	    {T0 - 1999 * MS, 40001, ANY, SYNACK, 1}, /* the site's: not a client's SYN */
	    {T0 - 2000 * MS, 40002, ADDR_A, SYN, 0}, /* DNS, open at t0 */
	    {T0 - 1500 * MS, 40005, ADDR_A, SYN, 0}, /* DNS, closed before t0 */
	    {T0 - 1400 * MS, 40005, ADDR_A, FIN, 0},
	    {T0 + 100 * MS, 40002, ADDR_A, FIN, 1},  /* a's kernel closes it */
	    {T0 + 200 * MS, 40003, ADDR_A, SYN, 0},  /* reconnecting to a */
	    {T0 + 201 * MS, 40003, ADDR_A, RST, 1},  /* nothing listens */
	    {T0 + 1200 * MS, 40003, ADDR_A, SYN, 0}, /* the same SYN again */
	};
	const struct tseg b[] = {
	    {T0 + 1500 * MS, 40001, ANY, RST, 1}, /* a flow b never opened: RFC 7094 */
	    {T0 + 1600 * MS, 40004, ANY, SYN, 0},
	    {T0 + 1700 * MS, 40004, ANY, RST, 1}, /* one of b's own */
	    {T0 + 1800 * MS, 40006, ANY, RST, 1}, /* c's, moved off c: collateral */
	};
	const struct tseg c3[] = {
	    {T0 - 1000 * MS, 40006, ANY, SYN, 0}, /* anycast at c, which did not fail */
	};
	char *table;
	json_t *root, *c, *o;

	lab(dir);
	write_tcp_pcap(dir, "capture-a.pcap", a, sizeof(a) / sizeof(a[0]));
	write_tcp_pcap(dir, "capture-b.pcap", b, sizeof(b) / sizeof(b[0]));
	write_tcp_pcap(dir, "capture-c.pcap", c3, sizeof(c3) / sizeof(c3[0]));
	/* c1's anycast flow: an error and a timeout after t0, then b answers
	 * (sent 500 ms after t0, 1 ms of RTT); its DNS flow: a answers once
	 * after t0 (no failure), then an error, then only a again */
	put(dir, "requests-c1.csv",
	    "client,seq,sent_ns,status,site,rtt_ns\n"
	    "1,0,%lld,ok,a,1000000\n1,1,%lld,error,,0\n1,2,%lld,timeout,,0\n"
	    "1,3,%lld,ok,b,1000000\n1,4,%lld,ok,b,1000000\n",
	    (long long)(T0 - 100 * MS), (long long)(T0 + 10 * MS), (long long)(T0 + 20 * MS),
	    (long long)(T0 + 500 * MS), (long long)(T0 + 600 * MS));
	put(dir, "requests-c1-dns.csv",
	    "client,seq,sent_ns,status,site,rtt_ns\n"
	    "100001,0,%lld,ok,a,1000000\n100001,1,%lld,error,,0\n100001,2,%lld,ok,a,1000000\n",
	    (long long)(T0 + 50 * MS), (long long)(T0 + 100 * MS), (long long)(T0 + 200 * MS));
	root = analyse(dir, &table);
	c = json_object_get(root, "connections");
	assert_non_null(c);
	o = json_object_get(c, "anycast");
	assert_int_equal(json_integer_value(json_object_get(o, "opened")), 3);
	assert_int_equal(json_integer_value(json_object_get(o, "syns")), 3);
	assert_int_equal(json_integer_value(json_object_get(o, "open_at_t0")), 1);
	assert_int_equal(json_integer_value(json_object_get(o, "syns_to_failed")), 0);
	assert_json_null(o, "last_syn_to_failed_s");
	assert_int_equal(json_integer_value(json_object_get(o, "fins_from_failed")), 0);
	assert_int_equal(json_integer_value(json_object_get(o, "resets_from_failed")), 0);
	assert_int_equal(json_integer_value(json_object_get(o, "resets_unknown_flow")), 2);
	assert_int_equal(json_integer_value(json_object_get(o, "resets_collateral")), 1);
	assert_int_equal(json_integer_value(json_object_get(o, "resets_other")), 1);
	o = json_object_get(c, "dns");
	assert_int_equal(json_integer_value(json_object_get(o, "opened")), 3);
	assert_int_equal(json_integer_value(json_object_get(o, "syns")), 4);
	assert_int_equal(json_integer_value(json_object_get(o, "open_at_t0")), 1);
	assert_int_equal(json_integer_value(json_object_get(o, "syns_to_failed")), 2);
	assert_seconds(o, "last_syn_to_failed_s", 1.2);
	assert_int_equal(json_integer_value(json_object_get(o, "fins_from_failed")), 1);
	assert_int_equal(json_integer_value(json_object_get(o, "resets_from_failed")), 1);
	assert_int_equal(json_integer_value(json_object_get(o, "resets_unknown_flow")), 0);
	assert_int_equal(json_integer_value(json_object_get(o, "resets_collateral")), 0);
	assert_int_equal(json_integer_value(json_object_get(o, "resets_other")), 0);
	o = json_object_get(json_object_get(c, "anycast"), "clients");
	assert_int_equal(json_integer_value(json_object_get(o, "clients")), 1);
	assert_int_equal(json_integer_value(json_object_get(o, "hit")), 1);
	assert_int_equal(json_integer_value(json_object_get(o, "recovered")), 1);
	assert_seconds(json_object_get(o, "first_error_s"), "max", 0.010);
	assert_seconds(json_object_get(o, "recovered_s"), "p50", 0.501);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(o, "failed"), "max")),
			 2);
	o = json_object_get(json_object_get(c, "dns"), "clients");
	assert_int_equal(json_integer_value(json_object_get(o, "hit")), 1);
	assert_int_equal(json_integer_value(json_object_get(o, "recovered")), 0);
	assert_seconds(json_object_get(o, "first_error_s"), "p50", 0.100);
	assert_json_null(json_object_get(o, "recovered_s"), "p50");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(o, "failed"), "p50")),
			 1);
	assert_non_null(strstr(table,
			       "\nclients (anycast): 1 of 1 hit; after t0, their first failed "
			       "request at 0.010 s (p50; max 0.010 s), their first reply from a "
			       "site other than a at 0.501 s (p50; max 0.501 s; 0 never had "
			       "one), failed requests before it 2 (p50; max 2)\n"));
	assert_non_null(strstr(table,
			       "\nclients (dns): 1 of 1 hit; after t0, their first failed "
			       "request at 0.100 s (p50; max 0.100 s), their first reply from a "
			       "site other than a at - (p50; max -; 1 never had one), failed "
			       "requests before it 1 (p50; max 1)\n"));
	assert_non_null(strstr(table,
			       "\nconnections (anycast): 3 opened (3 SYNs), 1 open on a at t0; "
			       "after t0: 0 SYNs reached a (the last at -), a closed 0 and "
			       "reset 0, other sites reset 2 they never opened (RFC 7094; "
			       "connections moved off sites that did not fail: 1) and 1 of their "
			       "own\n"));
	assert_non_null(strstr(table,
			       "\nconnections (dns): 3 opened (4 SYNs), 1 open on a at t0; "
			       "after t0: 2 SYNs reached a (the last at 1.200 s), a closed 1 "
			       "and reset 1, other sites reset 0 they never opened (RFC 7094; "
			       "connections moved off sites that did not fail: 0) and 0 of their "
			       "own\n"));
	free(table);
	json_decref(root);
	conn_decay(dir);
}

/* UDP only: no "connections", no line */
static void test_no_tcp(void **state)
{
	const char *dir = *state;
	const struct tpkt a[] = {{T0 - 1000 * MS, 7000, WIRE_REQUEST, 1, ANY}};
	char *table;
	json_t *root;

	lab(dir);
	write_pcap(dir, "capture-a.pcap", a, 1, PCAP_TSTAMP_PRECISION_NANO);
	put(dir, "requests-c1.csv", "client,seq,sent_ns,status,site,rtt_ns\n1,0,1,ok,a,10\n");
	root = analyse(dir, &table);
	assert_null(json_object_get(root, "connections"));
	assert_null(strstr(table, "connections ("));
	free(table);
	json_decref(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_connections, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_no_tcp, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
