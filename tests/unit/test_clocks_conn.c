/*
 * probes/clocks/clocks_conn.c: the connection clocks of a synthetic run
 * whose client speaks TCP: the SYNs, FINs and RSTs of each site link's
 * capture counted per scheme (the anycast address, or site a's own: DNS),
 * a retransmitted SYN opening nothing new, the connections open on the
 * failed site at t0, the last SYN that reached it after t0, and a reset by
 * another site told apart by whether its link ever opened that connection
 * (RFC 7094's catchment change) or not, and of those the ones a third,
 * healthy site had opened (ECMP's collateral), and the requests a capture
 * holds more than once (the request segments sent again: all, and those
 * to the failed site after t0), counted for the clients over TCP alone,
 * within one capture, a probe's never; also on inputs built by hand,
 * against a count by hand over 200,000 requests. A run without TCP has no
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

/* treq: a client's segment carrying request seq of client id client at t,
 * on its connection from cport to server */
struct treq {
	int64_t t;
	uint16_t cport;
	const char *server;
	uint32_t client;
	uint64_t seq;
};

/* tcp_frame: s's frame, carrying request seq of client id client (lib/wire.h)
 * if client is not 0 */
static size_t tcp_frame(uint8_t *f, const struct tseg *s, uint32_t client, uint64_t seq)
{
	uint8_t *ip = f + 14, *tcp = ip + 20;
	size_t len = client ? WIRE_LEN : 0;

	memset(f, 0, FRAME_MAX);
	put16(f + 12, 0x0800);
	ip[0] = 0x45;
	put16(ip + 2, (unsigned)(20 + 20 + len));
	ip[8] = 64;
	ip[9] = IPFRAME_TCP;
	assert_int_equal(inet_pton(AF_INET, s->from_server ? s->server : CLIENT, ip + 12), 1);
	assert_int_equal(inet_pton(AF_INET, s->from_server ? CLIENT : s->server, ip + 16), 1);
	put16(tcp, s->from_server ? 7000 : s->cport);
	put16(tcp + 2, s->from_server ? s->cport : 7000);
	tcp[12] = 5 << 4;
	tcp[13] = s->flags;
	if (client) {
		struct wire_msg m = {
		    .type = WIRE_REQUEST, .client_id = client, .seq = seq, .sent_ns = 1};

		assert_int_equal(wire_encode(&m, tcp + 20, WIRE_LEN), WIRE_LEN);
	}
	return 14 + 20 + 20 + len;
}

/* write_tcp_pcap: the n segments of s, then the nq requests of q */
static void write_tcp_pcap(const char *dir, const char *name, const struct tseg *s, size_t n,
			   const struct treq *q, size_t nq)
{
	struct dumper w;
	uint8_t f[FRAME_MAX];

	dump_open(&w, dir, name, PCAP_TSTAMP_PRECISION_NANO);
	for (size_t i = 0; i < n; i++)
		dump_frame(&w, s[i].t, f, tcp_frame(f, &s[i], 0, 0));
	for (size_t i = 0; i < nq; i++) {
		struct tseg r = {q[i].t, q[i].cport, q[i].server, IPFRAME_ACK | 0x08 /* PSH */, 0};

		dump_frame(&w, r.t, f, tcp_frame(f, &r, q[i].client, q[i].seq));
	}
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
	/* the header, after the '#' lines (lib/csvmeta.h) */
	do
		assert_non_null(fgets(line, sizeof(line), fp));
	while (line[0] == '#');
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
	    /* anycast, open at t0, closed on purpose by the client after it
	     * (requests_per_connection): a's FIN answers, no failure's */
	    {T0 - 500 * MS, 40007, ANY, SYN, 0},
	    {T0 + 300 * MS, 40007, ANY, FIN, 0},
	    {T0 + 301 * MS, 40007, ANY, FIN, 1},
	};
	/* anycast's request 5 sent again before t0 and after it, its 6 once at
	 * a and once at b (no capture holds it twice); DNS's 9 after t0 three
	 * times: retransmitted to the failed site */
	const struct treq qa[] = {
	    {T0 - 300 * MS, 40001, ANY, 1, 5},
	    {T0 - 100 * MS, 40001, ANY, 1, 5},
	    {T0 + 10 * MS, 40001, ANY, 1, 5},
	    {T0 + 20 * MS, 40001, ANY, 1, 6},
	    {T0 + 30 * MS, 40002, ADDR_A, DNS_ID(1), 9},
	    {T0 + 250 * MS, 40002, ADDR_A, DNS_ID(1), 9},
	    {T0 + 650 * MS, 40002, ADDR_A, DNS_ID(1), 9},
	};
	const struct treq qb[] = {{T0 + 1400 * MS, 40001, ANY, 1, 6}};
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
	write_tcp_pcap(dir, "capture-a.pcap", a, sizeof(a) / sizeof(a[0]), qa,
		       sizeof(qa) / sizeof(qa[0]));
	write_tcp_pcap(dir, "capture-b.pcap", b, sizeof(b) / sizeof(b[0]), qb, 1);
	write_tcp_pcap(dir, "capture-c.pcap", c3, sizeof(c3) / sizeof(c3[0]), NULL, 0);
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
	/* both flows over TCP: their requests' copies are read */
	put(dir, "c1.client.events.jsonl",
	    "{\"t\":%lld,\"event\":\"client_started\",\"client\":1,\"rate\":100,"
	    "\"proto\":\"tcp\"}\n",
	    (long long)(T0 - 3000 * MS));
	put(dir, "c1.client-dns.events.jsonl",
	    "{\"t\":%lld,\"event\":\"client_started\",\"client\":100001,\"rate\":100,"
	    "\"proto\":\"http\"}\n",
	    (long long)(T0 - 3000 * MS));
	root = analyse(dir, &table);
	c = json_object_get(root, "connections");
	assert_non_null(c);
	o = json_object_get(c, "anycast");
	assert_int_equal(json_integer_value(json_object_get(o, "opened")), 4);
	assert_int_equal(json_integer_value(json_object_get(o, "syns")), 4);
	assert_int_equal(json_integer_value(json_object_get(o, "open_at_t0")), 2);
	assert_int_equal(json_integer_value(json_object_get(o, "syns_to_failed")), 0);
	assert_json_null(o, "last_syn_to_failed_s");
	assert_int_equal(json_integer_value(json_object_get(o, "fins_from_failed")), 0);
	assert_int_equal(json_integer_value(json_object_get(o, "resets_from_failed")), 0);
	assert_int_equal(json_integer_value(json_object_get(o, "resets_unknown_flow")), 2);
	assert_int_equal(json_integer_value(json_object_get(o, "resets_collateral")), 1);
	assert_int_equal(json_integer_value(json_object_get(o, "resets_other")), 1);
	assert_count(o, "retransmits", 2);
	assert_count(o, "retransmits_to_failed", 1);
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
	assert_count(o, "retransmits", 2);
	assert_count(o, "retransmits_to_failed", 2);
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
			       "\nconnections (anycast): 4 opened (4 SYNs), 2 open on a at t0; "
			       "after t0: 0 SYNs reached a (the last at -), a closed 0 and "
			       "reset 0, other sites reset 2 they never opened (RFC 7094; "
			       "connections moved off sites that did not fail: 1) and 1 of their "
			       "own; 2 request segments sent again (1 to a after t0)\n"));
	assert_non_null(strstr(table,
			       "\nconnections (dns): 3 opened (4 SYNs), 1 open on a at t0; "
			       "after t0: 2 SYNs reached a (the last at 1.200 s), a closed 1 "
			       "and reset 1, other sites reset 0 they never opened (RFC 7094; "
			       "connections moved off sites that did not fail: 0) and 0 of their "
			       "own; 2 request segments sent again (2 to a after t0)\n"));
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

/*
 * The request segments sent again, on a clocks_input built by hand: site a
 * failed at T0 and recovered at T0 + 1 s; client 1 (anycast) and 100001
 * (DNS) over TCP, a population over TCP (node 3, anycast), client 2 over
 * UDP; the captures of a and b.
 */
#define RETX_POP WIRE_POP_ID(3, 0, 0)

/* retx_input: in with a's and b's captures (caps[0], caps[1]) and the
 * clients, the failure as said (steady: none) */
static void retx_input(struct clocks_input *in, struct clocks_capture caps[2],
		       struct clocks_client clients[4], int steady)
{
	static struct clocks_tcpseg syn = {.flags = IPFRAME_SYN};

	clocks_input_init(in);
	memset(caps, 0, 2 * sizeof(caps[0]));
	memset(clients, 0, 4 * sizeof(clients[0]));
	snprintf(caps[0].label, sizeof(caps[0].label), "a");
	snprintf(caps[1].label, sizeof(caps[1].label), "b");
	/* a client's SYN: the connections are measured */
	syn.t_ns = T0 - 3000 * MS;
	inet_pton(AF_INET, CLIENT, &syn.client);
	inet_pton(AF_INET, ANY, &syn.server);
	caps[0].tcp = &syn;
	caps[0].ntcp = 1;
	in->captures = caps;
	in->ncaptures = 2;
	clients[0] = (struct clocks_client){.id = 1, .tcp = 1};
	clients[1] = (struct clocks_client){.id = DNS_ID(1), .tcp = 1};
	clients[2] = (struct clocks_client){.id = RETX_POP, .tcp = 1};
	clients[3] = (struct clocks_client){.id = 2, .tcp = 0};
	in->clients = clients;
	in->nclients = 4;
	in->steady = steady;
	in->failure.t0_ns = T0;
	inet_pton(AF_INET, ANY, &in->failure.prefix);
	if (!steady) {
		snprintf(in->failure.site, sizeof(in->failure.site), "a");
		in->failure.recovered_ns = T0 + 1000 * MS;
	}
}

/* the requests of a's capture and b's, {t, client, seq, dst} */
static struct clocks_packet retx_a[] = {
    /* 1/3 again before t0, 1/10 again after it; 1/11 once here, once at b */
    {T0 - 500 * MS, 1, 3, {0}},
    {T0 - 300 * MS, 1, 3, {0}},
    {T0 - 100 * MS, 1, 10, {0}},
    {T0 + 200 * MS, 1, 10, {0}},
    {T0 + 100 * MS, 1, 11, {0}},
    /* DNS's 10 four times, the last after a recovered */
    {T0 + 10 * MS, DNS_ID(1), 10, {0}},
    {T0 + 400 * MS, DNS_ID(1), 10, {0}},
    {T0 + 800 * MS, DNS_ID(1), 10, {0}},
    {T0 + 1200 * MS, DNS_ID(1), 10, {0}},
    /* probes, and UDP client 2's datagram duplicated by the network */
    {T0 + 20 * MS, WIRE_PROBE_CLIENT, 7, {0}},
    {T0 + 30 * MS, WIRE_PROBE_CLIENT, 7, {0}},
    {T0 + 40 * MS, 2, 1, {0}},
    {T0 + 50 * MS, 2, 1, {0}},
    /* two logical clients of the population, a request each */
    {T0 + 60 * MS, RETX_POP + 4, 20, {0}},
    {T0 + 70 * MS, RETX_POP + 5, 21, {0}},
};
static struct clocks_packet retx_b[] = {
    {T0 + 900 * MS, 1, 11, {0}},
    /* a logical client's request sent again at b */
    {T0 + 300 * MS, RETX_POP + 4, 30, {0}},
    {T0 + 600 * MS, RETX_POP + 4, 30, {0}},
};

static void test_retx(void **state)
{
	struct clocks_capture caps[2];
	struct clocks_client clients[4];
	struct clocks_input in;
	struct clocks_conn c;
	json_t *o;

	(void)state;
	retx_input(&in, caps, clients, 0);
	caps[0].packets = retx_a;
	caps[0].n = sizeof(retx_a) / sizeof(retx_a[0]);
	caps[1].packets = retx_b;
	caps[1].n = sizeof(retx_b) / sizeof(retx_b[0]);
	assert_int_equal(clocks_conn(&in, &c), 0);
	assert_true(c.present);
	/* anycast: 1/3 before t0, 1/10 after it at a, the population's
	 * 30 at b; 1/11 at a and b is no copy of one capture's */
	assert_int_equal(c.anycast.retransmits, 3);
	assert_int_equal(c.anycast.retransmits_failed, 1);
	/* DNS: three copies after the first, the last after a recovered */
	assert_int_equal(c.dns.retransmits, 3);
	assert_int_equal(c.dns.retransmits_failed, 2);
	in.conn = &c;
	o = clocks_conn_json(&in);
	assert_count(json_object_get(o, "anycast"), "retransmits", 3);
	assert_count(json_object_get(o, "anycast"), "retransmits_to_failed", 1);
	assert_count(json_object_get(o, "dns"), "retransmits_to_failed", 2);
	json_decref(o);

	/* no client over TCP: nothing counted (the UDP duplicate neither) */
	clients[0].tcp = clients[1].tcp = clients[2].tcp = 0;
	assert_int_equal(clocks_conn(&in, &c), 0);
	assert_int_equal(c.anycast.retransmits + c.dns.retransmits, 0);
}

/* a steady run: the copies over the whole run, no retransmits_to_failed */
static void test_retx_steady(void **state)
{
	struct clocks_capture caps[2];
	struct clocks_client clients[4];
	struct clocks_input in;
	struct clocks_conn c;
	char *text = NULL;
	size_t len = 0;
	FILE *mem;
	json_t *o;

	(void)state;
	retx_input(&in, caps, clients, 1);
	caps[0].packets = retx_a;
	caps[0].n = sizeof(retx_a) / sizeof(retx_a[0]);
	assert_int_equal(clocks_conn(&in, &c), 0);
	assert_int_equal(c.anycast.retransmits, 2);
	assert_int_equal(c.dns.retransmits, 3);
	assert_int_equal(c.anycast.retransmits_failed + c.dns.retransmits_failed, 0);
	in.conn = &c;
	o = clocks_conn_json(&in);
	assert_count(json_object_get(o, "dns"), "retransmits", 3);
	assert_null(json_object_get(json_object_get(o, "dns"), "retransmits_to_failed"));
	json_decref(o);
	assert_non_null(mem = open_memstream(&text, &len));
	clocks_conn_print(mem, &in);
	fclose(mem);
	assert_non_null(strstr(text, "connections (anycast): 1 opened (1 SYNs), 2 request "
				     "segments sent again\n"));
	free(text);
}

/* UDP only (no TCP segment, no client over TCP): no connections at all,
 * whatever the captures hold twice */
static void test_retx_udp(void **state)
{
	struct clocks_capture caps[2];
	struct clocks_client clients[4];
	struct clocks_input in;

	(void)state;
	retx_input(&in, caps, clients, 0);
	caps[0].packets = retx_a;
	caps[0].n = sizeof(retx_a) / sizeof(retx_a[0]);
	caps[0].ntcp = 0;
	in.nclients = 0;
	clocks_conn_prepare(&in);
	assert_null(in.conn);
	assert_null(clocks_conn_json(&in));
}

/* the radix sort against a count by hand: 200,000 copies of keys spread
 * over every byte (client ids of all shapes, sequences over 32 bits), a
 * quarter of them copied once or twice more, the later copies after every
 * first one in the capture (the keys' order scrambled, each key's kept) */
static void test_retx_many(void **state)
{
	enum { N = 200000 };
	struct clocks_capture caps[2];
	struct clocks_client clients[4];
	struct clocks_packet *p = calloc(N, sizeof(*p)), *later = calloc(N, sizeof(*later));
	struct clocks_input in;
	struct clocks_conn c;
	int64_t want_any = 0, want_dns = 0, want_failed = 0;
	uint64_t x = 88172645463325252ULL;
	size_t n = 0, nl = 0;

	(void)state;
	assert_non_null(p);
	assert_non_null(later);
	retx_input(&in, caps, clients, 0);
	in.failure.recovered_ns = 0;
	for (uint32_t g = 0; n + nl + 3 <= N; g++) {
		static const uint32_t ids[] = {1, DNS_ID(1), RETX_POP + 77, RETX_POP + 131071};
		uint32_t id, seq = g * 2654435761u; /* distinct for each g */
		int64_t t;
		int copies;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		id = ids[x % 4];
		copies = 1 + (int)((x >> 8) % 8 == 0) + (int)((x >> 12) % 8 == 0);
		t = T0 - 1000 * MS + (int64_t)((x >> 16) % 2000) * MS;
		p[n++] = (struct clocks_packet){t, id, seq, {0}};
		for (int k = 1; k < copies; k++) {
			later[nl++] = (struct clocks_packet){t + k * 10 * MS, id, seq, {0}};
			want_any += clocks_scheme_of(id) == CLOCKS_SCHEME_ANYCAST;
			want_dns += clocks_scheme_of(id) == CLOCKS_SCHEME_DNS;
			want_failed += t + k * 10 * MS > T0;
		}
	}
	memcpy(p + n, later, nl * sizeof(*p));
	caps[0].packets = p;
	caps[0].n = n + nl;
	assert_int_equal(clocks_conn(&in, &c), 0);
	assert_true(want_any > 1000 && want_dns > 1000 && want_failed > 1000);
	assert_int_equal(c.anycast.retransmits, want_any);
	assert_int_equal(c.dns.retransmits, want_dns);
	assert_int_equal(c.anycast.retransmits_failed + c.dns.retransmits_failed, want_failed);
	free(p);
	free(later);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_connections, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_no_tcp, setup, teardown),
	    cmocka_unit_test(test_retx),
	    cmocka_unit_test(test_retx_steady),
	    cmocka_unit_test(test_retx_udp),
	    cmocka_unit_test(test_retx_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
