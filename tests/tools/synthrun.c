/*
 * synthrun: write a synthetic run directory with large captures, for timing
 * `steerlab report` (bench/analysis) without running a lab for minutes.
 *
 *   synthrun [-n PACKETS] DIR
 *
 * DIR must not exist. The run is compare.ini's failure at a high rate: 8
 * anycast clients (ids 1-8, to the service address 198.19.0.1) and 8 DNS
 * clients (ids 100001-100008, to site a's address 198.19.1.1) send 12 s of
 * requests, interleaved at a fixed spacing; site a fails 10 s in (t0). The
 * anycast flows leave a when the route is deleted (t0 + 264 ms), DNS client
 * j when its cached answer expires (t0 + 262 ms + j * 250 ms), for site b
 * (198.19.0.1 on b's link, or b's address 198.19.1.2). Three probes (client
 * id 0) reach each site's address every 100 ms. The spacing is chosen so
 * that capture-a.pcap holds at least PACKETS requests (default 10,000,000:
 * about 1.1 GB; capture-b.pcap about a sixth of it).
 *
 * The captures are what the collector writes: nanosecond pcaps, Ethernet,
 * snaplen 128, only the requests (its filter is "udp dst port PORT"), each
 * an Ethernet/IPv4/UDP frame of a lib/wire.h request. capture-dns-ns.pcap
 * holds 24 resolver queries. The events (lab, probers, collector, authd),
 * topology.ini and a requests-c1.csv with its header only (no records: the
 * bench times the captures, not the CSV reader) complete the directory.
 *
 * Prints the counts the clocks must find, as KEY=VALUE on one line: t0_ns,
 * a and b (requests in each capture), queries, and for each scheme and site
 * its requests after t0 (anycast_a, anycast_b, dns_a, dns_b). The DNS
 * requests on a's link all go to a's address: dns_a is dns's lost_capture,
 * as anycast_a is anycast's.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "timeutil.h"
#include "wire.h"

#define SYN_T 1796000000000000000LL /* traffic_started: 2026-11-30 */
#define SYN_DURATION (12 * NSEC_PER_SEC)
#define SYN_FAIL_AT (10 * NSEC_PER_SEC)
#define SYN_T0 (SYN_T + SYN_FAIL_AT)
#define SYN_STEER (264242000LL)	 /* route_deleted after t0 */
#define SYN_DETECT (264090000LL) /* a's prober declares it dead */
#define SYN_DNS_STEER (262339000LL)
#define SYN_TTL_STEP (250 * NSEC_PER_MSEC)
#define SYN_FLOWS 16 /* 8 anycast, then 8 DNS */
#define SYN_PROBE_EVERY (100 * NSEC_PER_MSEC)
#define SYN_PROBES 3
#define SYN_PORT 7000
#define SYN_FRAME (14 + 20 + 8 + WIRE_LEN)
#define SYN_SNAPLEN 128

struct syn_pcap {
	FILE *fp;
	uint64_t n;
};

static void syn_put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void syn_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static int syn_open(struct syn_pcap *w, const char *dir, const char *name)
{
	uint8_t h[24];
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	w->fp = fopen(path, "w");
	w->n = 0;
	if (w->fp == NULL) {
		fprintf(stderr, "synthrun: %s: %s\n", path, strerror(errno));
		return -1;
	}
	setvbuf(w->fp, NULL, _IOFBF, 1 << 22);
	syn_le32(h, 0xa1b23c4d); /* nanosecond pcap, written little-endian */
	h[4] = 2, h[5] = 0, h[6] = 4, h[7] = 0;
	syn_le32(h + 8, 0);
	syn_le32(h + 12, 0);
	syn_le32(h + 16, SYN_SNAPLEN);
	syn_le32(h + 20, 1); /* LINKTYPE_ETHERNET */
	fwrite(h, 1, sizeof(h), w->fp);
	return 0;
}

static int syn_close(struct syn_pcap *w)
{
	int bad = ferror(w->fp);

	if (fclose(w->fp) != 0 || bad) {
		perror("synthrun: write");
		return -1;
	}
	return 0;
}

/* syn_frame: Ethernet, IPv4 src > dst (with its checksum), UDP to dport,
 * the payload; returns the frame's length */
static size_t syn_frame(uint8_t *f, uint32_t src, uint32_t dst, uint16_t dport, uint16_t id,
			const uint8_t *payload, size_t len)
{
	uint8_t *ip = f + 14, *udp = ip + 20;
	uint32_t sum = 0;

	memset(f, 0, 14 + 20 + 8);
	memcpy(f, "\x02\x00\x00\x00\x00\x01\x02\x00\x00\x00\x00\x02", 12);
	syn_put16(f + 12, 0x0800);
	ip[0] = 0x45;
	syn_put16(ip + 2, (unsigned)(20 + 8 + len));
	syn_put16(ip + 4, id);
	syn_put16(ip + 6, 0x4000); /* DF */
	ip[8] = 63;
	ip[9] = 17;
	memcpy(ip + 12, &src, 4);
	memcpy(ip + 16, &dst, 4);
	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t)(ip[i] << 8 | ip[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	syn_put16(ip + 10, ~sum & 0xffff);
	syn_put16(udp, 40000 + (id & 0xff));
	syn_put16(udp + 2, dport);
	syn_put16(udp + 4, (unsigned)(8 + len));
	memcpy(udp + 8, payload, len);
	return 14 + 20 + 8 + len;
}

static void syn_record(struct syn_pcap *w, int64_t t, const uint8_t *f, size_t len)
{
	uint8_t h[16];

	syn_le32(h, (uint32_t)(t / NSEC_PER_SEC));
	syn_le32(h + 4, (uint32_t)(t % NSEC_PER_SEC));
	syn_le32(h + 8, (uint32_t)len);
	syn_le32(h + 12, (uint32_t)len);
	fwrite(h, 1, sizeof(h), w->fp);
	fwrite(f, 1, len, w->fp);
	w->n++;
}

static void syn_request(struct syn_pcap *w, int64_t t, uint32_t client, uint64_t seq, uint32_t src,
			uint32_t dst)
{
	struct wire_msg m = {.type = WIRE_REQUEST, .client_id = client, .seq = seq};
	uint8_t payload[WIRE_LEN], f[SYN_FRAME];

	m.sent_ns = (uint64_t)t - 20000; /* 20 us on the way */
	wire_encode(&m, payload, sizeof(payload));
	syn_record(w, t, f, syn_frame(f, src, dst, SYN_PORT, (uint16_t)seq, payload, WIRE_LEN));
}

static uint32_t syn_addr(const char *s)
{
	struct in_addr a;

	inet_pton(AF_INET, s, &a);
	return a.s_addr;
}

static int syn_text(const char *dir, const char *name, const char *text)
{
	char path[4096];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "w");
	if (fp == NULL || fputs(text, fp) == EOF || fclose(fp) != 0) {
		fprintf(stderr, "synthrun: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* syn_events: every file but the captures */
static int syn_events(const char *dir, uint64_t na, uint64_t nb, uint64_t nq)
{
	char buf[8192];
	long long t = SYN_T, t0 = SYN_T0;

	snprintf(
	    buf, sizeof(buf),
	    "{\"t\":%lld,\"node\":\"lab\",\"agent\":\"steerlab\",\"event\":\"lab_up\","
	    "\"lab\":\"bench\",\"topology\":\"synthrun\",\"nodes\":5,\"links\":4,\"port\":%d}\n"
	    "{\"t\":%lld,\"node\":\"lab\",\"agent\":\"steerlab\",\"event\":\"traffic_started\","
	    "\"fail_at_ns\":%lld,\"duration_ns\":%lld}\n"
	    "{\"t\":%lld,\"node\":\"lab\",\"agent\":\"steerlab\",\"event\":\"site_failed\","
	    "\"site\":\"a\",\"via\":\"198.18.0.2\",\"prefix\":\"198.19.0.1/32\","
	    "\"address\":\"198.19.1.1\",\"how\":\"sigkill\",\"pid\":1}\n"
	    "{\"t\":%lld,\"node\":\"lab\",\"agent\":\"steerlab\",\"event\":\"traffic_stopped\","
	    "\"interrupted\":false}\n"
	    "{\"t\":%lld,\"node\":\"lab\",\"agent\":\"steerlab\",\"event\":\"lab_down\"}\n",
	    t - NSEC_PER_SEC, SYN_PORT, t, (long long)SYN_FAIL_AT, (long long)SYN_DURATION, t0,
	    t + SYN_DURATION + 1000000, t + SYN_DURATION + 200000000);
	if (syn_text(dir, "lab.events.jsonl", buf) == -1)
		return -1;
	snprintf(buf, sizeof(buf),
		 "{\"t\":%lld,\"node\":\"a\",\"agent\":\"prober\",\"event\":\"declared_dead\","
		 "\"site\":\"a\",\"failures\":3}\n",
		 t0 + SYN_DETECT);
	if (syn_text(dir, "a.prober.events.jsonl", buf) == -1)
		return -1;
	snprintf(buf, sizeof(buf),
		 "{\"t\":%lld,\"node\":\"p1\",\"agent\":\"prober\",\"event\":\"declared_dead\","
		 "\"site\":\"a\",\"failures\":3}\n",
		 t0 + SYN_DNS_STEER - 88000);
	if (syn_text(dir, "p1.prober.events.jsonl", buf) == -1)
		return -1;
	snprintf(
	    buf, sizeof(buf),
	    "{\"t\":%lld,\"node\":\"core\",\"agent\":\"collector\",\"event\":\"route_deleted\","
	    "\"prefix\":\"198.19.0.1/32\",\"via\":\"198.18.0.2\",\"metric\":10,\"protocol\":186,"
	    "\"table\":254,\"type\":\"unicast\",\"dev\":\"a\",\"multipath\":false}\n"
	    "{\"t\":%lld,\"node\":\"core\",\"agent\":\"collector\",\"event\":\"capture_stats\","
	    "\"label\":\"a\",\"iface\":\"a\",\"packets\":%llu,\"received\":%llu,\"dropped\":0,"
	    "\"if_dropped\":0}\n"
	    "{\"t\":%lld,\"node\":\"core\",\"agent\":\"collector\",\"event\":\"capture_stats\","
	    "\"label\":\"b\",\"iface\":\"b\",\"packets\":%llu,\"received\":%llu,\"dropped\":0,"
	    "\"if_dropped\":0}\n",
	    t0 + SYN_STEER, t + SYN_DURATION + 100000000, (unsigned long long)na,
	    (unsigned long long)na, t + SYN_DURATION + 100000000, (unsigned long long)nb,
	    (unsigned long long)nb);
	if (syn_text(dir, "core.collector.events.jsonl", buf) == -1)
		return -1;
	snprintf(
	    buf, sizeof(buf),
	    "{\"t\":%lld,\"node\":\"core\",\"agent\":\"collector\",\"event\":\"capture_stats\","
	    "\"label\":\"dns-ns\",\"iface\":\"ns\",\"packets\":%llu,\"received\":%llu,"
	    "\"dropped\":0,\"if_dropped\":0}\n",
	    t + SYN_DURATION + 100000000, (unsigned long long)nq, (unsigned long long)nq);
	if (syn_text(dir, "core.collector-dns.events.jsonl", buf) == -1)
		return -1;
	snprintf(
	    buf, sizeof(buf),
	    "{\"t\":%lld,\"node\":\"ns\",\"agent\":\"authd\",\"event\":\"answer_changed\","
	    "\"name\":\"www.lab.example.\",\"before\":[],\"after\":[\"198.19.1.1\"],"
	    "\"reason\":\"start\",\"policy\":\"failover\"}\n"
	    "{\"t\":%lld,\"node\":\"ns\",\"agent\":\"authd\",\"event\":\"health_changed\","
	    "\"site\":\"a\",\"healthy\":false,\"up_reports\":0,\"reports\":1,\"prober\":\"p1\"}\n"
	    "{\"t\":%lld,\"node\":\"ns\",\"agent\":\"authd\",\"event\":\"answer_changed\","
	    "\"name\":\"www.lab.example.\",\"before\":[\"198.19.1.1\"],"
	    "\"after\":[\"198.19.1.2\"],\"reason\":\"site a unhealthy\",\"policy\":\"failover\"}\n",
	    t - 2 * NSEC_PER_SEC, t0 + SYN_DNS_STEER - 20000, t0 + SYN_DNS_STEER);
	if (syn_text(dir, "ns.authd.events.jsonl", buf) == -1)
		return -1;
	if (syn_text(dir, "requests-c1.csv", "client,seq,sent_ns,status,site,rtt_ns\n") == -1)
		return -1;
	/* a topology steerlab check accepts, for report.md; the traffic is
	 * synthrun's, not c1's */
	return syn_text(dir, "topology.ini",
			"# synthrun: a synthetic run (tests/tools/synthrun.c)\n"
			"[lab]\nname = bench\ndns_name = www.lab.example\nport = 7000\n"
			"duration = 12s\nfail_at = 10s\n\n[router core]\n\n"
			"[site a]\nlink = core\nfail = yes\n\n[site b]\nlink = core\n\n"
			"[dns ns]\nlink = core\n\n[prober p1]\nlink = core\n\n"
			"[client c1]\nlink = core\nmode = both\nresolver = ns\n\n"
			"[zone lab.example]\n"
			"soa = ns.lab.example. hostmaster.lab.example. 1 3600 600 86400 5\n"
			"ttl = 60\nrecord = @ NS ns.lab.example.\nrecord = ns A 198.18.0.10\n\n"
			"[name www.lab.example]\npolicy = failover\nprimary = a\nsecondary = b\n"
			"ttl = 2\n");
}

/* syn_queries: 4 resolvers asking authd for www every 2 s (the TTL) */
static int syn_queries(const char *dir, uint64_t *nq)
{
	static const uint8_t q[] = "\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00"
				   "\x03www\x03lab\x07example\x00\x00\x01\x00\x01";
	uint8_t f[SYN_SNAPLEN];
	struct syn_pcap w;
	char src[32];

	if (syn_open(&w, dir, "capture-dns-ns.pcap") == -1)
		return -1;
	for (int k = 0; k < 6; k++) {
		for (int r = 0; r < 4; r++) {
			snprintf(src, sizeof(src), "198.18.128.%d", r + 1);
			syn_record(&w, SYN_T + k * 2 * NSEC_PER_SEC + r * 500 * NSEC_PER_MSEC, f,
				   syn_frame(f, syn_addr(src), syn_addr("198.18.0.10"), 53,
					     (uint16_t)(k * 4 + r), q, sizeof(q) - 1));
		}
	}
	*nq = w.n;
	return syn_close(&w);
}

int main(int argc, char *argv[])
{
	uint64_t want = 10000000, seq, k, nq;
	uint64_t after[2][2] = {{0}}; /* [anycast, dns][a, b] */
	uint32_t service = syn_addr("198.19.0.1"), addr_a = syn_addr("198.19.1.1");
	uint32_t addr_b = syn_addr("198.19.1.2"), src[SYN_FLOWS];
	struct syn_pcap a, b;
	int64_t dt, t, next_probe = SYN_T;
	const char *dir;
	char s[32];
	int ch;

	while ((ch = getopt(argc, argv, "n:")) != -1) {
		switch (ch) {
		case 'n':
			want = strtoull(optarg, NULL, 10);
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1 || want == 0)
		goto usage;
	dir = argv[optind];
	if (mkdir(dir, 0755) == -1) {
		fprintf(stderr, "synthrun: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	/* every flow sends to a until t0: 10 s of it are at least want */
	dt = SYN_FAIL_AT / (int64_t)want;
	if (dt < 1) {
		fprintf(stderr, "synthrun: at most %lld packets\n", (long long)SYN_FAIL_AT);
		return 1;
	}
	for (int f = 0; f < SYN_FLOWS; f++) {
		snprintf(s, sizeof(s), "10.0.%d.%d", f / 8, 10 + f % 8);
		src[f] = syn_addr(s);
	}
	if (syn_open(&a, dir, "capture-a.pcap") == -1 || syn_open(&b, dir, "capture-b.pcap") == -1)
		return 1;
	for (k = 0, t = SYN_T; t < SYN_T + SYN_DURATION; k++, t = SYN_T + (int64_t)k * dt) {
		int f = (int)(k % SYN_FLOWS), dns = f >= SYN_FLOWS / 2, on_a;
		uint32_t client =
		    dns ? WIRE_DNS_CLIENT_ID(f - SYN_FLOWS / 2 + 1) : (uint32_t)(f + 1);
		uint32_t dst;

		/* the probes due before this request: client 0 to each site's address */
		while (next_probe <= t) {
			for (int p = 0; p < SYN_PROBES; p++) {
				syn_request(&a, next_probe + p, 0, 0, src[p], addr_a);
				syn_request(&b, next_probe + p, 0, 0, src[p], addr_b);
			}
			next_probe += SYN_PROBE_EVERY;
		}
		seq = k / SYN_FLOWS;
		if (dns)
			on_a = t < SYN_T0 + SYN_DNS_STEER + (f - SYN_FLOWS / 2) * SYN_TTL_STEP;
		else
			on_a = t < SYN_T0 + SYN_STEER;
		dst = dns ? (on_a ? addr_a : addr_b) : service;
		syn_request(on_a ? &a : &b, t, client, seq, src[f], dst);
		if (t > SYN_T0)
			after[dns][!on_a]++;
	}
	if (syn_close(&a) == -1 || syn_close(&b) == -1 || syn_queries(dir, &nq) == -1 ||
	    syn_events(dir, a.n, b.n, nq) == -1)
		return 1;
	printf("t0_ns=%lld a=%llu b=%llu queries=%llu anycast_a=%llu anycast_b=%llu dns_a=%llu "
	       "dns_b=%llu\n",
	       (long long)SYN_T0, (unsigned long long)a.n, (unsigned long long)b.n,
	       (unsigned long long)nq, (unsigned long long)after[0][0],
	       (unsigned long long)after[0][1], (unsigned long long)after[1][0],
	       (unsigned long long)after[1][1]);
	return 0;
usage:
	fprintf(stderr, "usage: synthrun [-n PACKETS] DIR\n");
	return 2;
}
