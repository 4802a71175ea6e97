/*
 * Helpers shared by the clocks' unit tests (test_clocks_anycast.c,
 * test_clocks_dns.c, test_clocks_load.c, test_verdict.c):
 * synthetic run directories in a temporary directory (event lines, pcaps
 * written with pcap_dump, client CSVs), clocks_analyse on them, and
 * assertions on clocks.json. Each test binary includes its own copy, as
 * the Makefile builds every tests/unit/test_*.c alone; static inline keeps
 * the unused ones quiet.
 */
#ifndef STEERLAB_TEST_CLOCKS_UTIL_H
#define STEERLAB_TEST_CLOCKS_UTIL_H

#include <arpa/inet.h>
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
#include "lab.h"
#include "test_rundir.h"
#include "test_file.h"

#define T0 1700000000123456789LL
#define MS 1000000LL
#define FRAME_LEN (14 + 20 + 8 + WIRE_LEN)
#define FRAME_MAX 192

/* the anycast address, site a's and site b's own addresses */
#define ANY "198.19.0.1"
#define ADDR_A "198.19.1.1"
#define ADDR_B "198.19.1.2"
#define DNS_ID(n) (WIRE_DNS_CLIENT_BASE + (n))

struct tpkt {
	int64_t t;
	uint16_t port;
	uint8_t type; /* WIRE_REQUEST, WIRE_REPLY, or 0: not a wire message */
	uint32_t client;
	const char *dst;
};

/* a packet to an authd link */
struct tquery {
	int64_t t;
	const char *src;
	uint16_t port;
	int response; /* QR set */
};

static inline void put(const char *dir, const char *name, const char *fmt, ...)
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
static inline void ev(const char *dir, const char *name, int64_t t, const char *event,
		      const char *extra)
{
	put(dir, name, "{\"t\":%lld,\"node\":\"n\",\"agent\":\"x\",\"event\":\"%s\"%s}\n",
	    (long long)t, event, extra);
}

static inline void put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* udp6_frame: Ethernet, IPv6 from src to dst, UDP to port, the payload. */
static inline size_t udp6_frame(uint8_t *f, const char *src, const char *dst, uint16_t port,
				const uint8_t *payload, size_t len)
{
	uint8_t *ip = f + 14, *udp = ip + 40;

	assert_true(14 + 40 + 8 + len <= FRAME_MAX);
	memset(f, 0, FRAME_MAX);
	put16(f + 12, 0x86dd);
	ip[0] = 0x60;
	put16(ip + 4, (unsigned)(8 + len));
	ip[6] = 17;
	ip[7] = 64;
	assert_int_equal(inet_pton(AF_INET6, src, ip + 8), 1);
	assert_int_equal(inet_pton(AF_INET6, dst, ip + 24), 1);
	put16(udp, 40000);
	put16(udp + 2, port);
	put16(udp + 4, (unsigned)(8 + len));
	memcpy(udp + 8, payload, len);
	return 14 + 40 + 8 + len;
}

/* udp_frame: Ethernet, IPv4 from src to dst, UDP to port, the payload;
 * IPv6 (udp6_frame) if src is an IPv6 address. */
static inline size_t udp_frame(uint8_t *f, const char *src, const char *dst, uint16_t port,
			       const uint8_t *payload, size_t len)
{
	uint8_t *ip = f + 14, *udp = ip + 20;

	if (strchr(src, ':'))
		return udp6_frame(f, src, dst, port, payload, len);
	assert_true(14 + 20 + 8 + len <= FRAME_MAX);
	memset(f, 0, FRAME_MAX);
	put16(f + 12, 0x0800);
	ip[0] = 0x45;
	put16(ip + 2, (unsigned)(20 + 8 + len));
	ip[8] = 64;
	ip[9] = 17;
	assert_int_equal(inet_pton(AF_INET, src, ip + 12), 1);
	assert_int_equal(inet_pton(AF_INET, dst, ip + 16), 1);
	put16(udp, 40000);
	put16(udp + 2, port);
	put16(udp + 4, (unsigned)(8 + len));
	memcpy(udp + 8, payload, len);
	return 14 + 20 + 8 + len;
}

/* frame_seq: a client's datagram to p->dst: a wire message of type, its
 * sequence number seq. */
static inline size_t frame_seq(uint8_t *f, const struct tpkt *p, uint64_t seq)
{
	struct wire_msg m = {.type = p->type, .client_id = p->client, .seq = seq, .sent_ns = 1};
	uint8_t payload[WIRE_LEN];

	if (p->type)
		assert_int_equal(wire_encode(&m, payload, WIRE_LEN), WIRE_LEN);
	else
		memset(payload, 'x', WIRE_LEN);
	return udp_frame(f, "198.18.0.22", p->dst, p->port, payload, WIRE_LEN);
}

/* frame: the same, sequence number 7 */
static inline size_t frame(uint8_t *f, const struct tpkt *p)
{
	return frame_seq(f, p, 7);
}

/* qframe: a DNS query for www.lab.example A from q->src to authd */
static inline size_t qframe(uint8_t *f, const struct tquery *q)
{
	static const uint8_t query[] = "\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00"
				       "\x03www\x03lab\x07example\x00\x00\x01\x00\x01";
	uint8_t payload[sizeof(query)];

	memcpy(payload, query, sizeof(query));
	if (q->response)
		payload[2] |= 0x80;
	return udp_frame(f, q->src, "198.18.0.10", q->port, payload, sizeof(query) - 1);
}

/* dumper: a pcap file in dir to write frames to */
struct dumper {
	pcap_t *pd;
	pcap_dumper_t *d;
	int64_t div;
};

static inline void dump_open(struct dumper *w, const char *dir, const char *name, int precision)
{
	char path[512];

	w->pd = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 262144, precision);
	assert_non_null(w->pd);
	w->div = precision == PCAP_TSTAMP_PRECISION_NANO ? 1 : 1000;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	w->d = pcap_dump_open(w->pd, path);
	assert_non_null(w->d);
}

static inline void dump_frame(struct dumper *w, int64_t t, const uint8_t *f, size_t len)
{
	struct pcap_pkthdr h = {.caplen = (bpf_u_int32)len, .len = (bpf_u_int32)len};

	h.ts.tv_sec = t / 1000000000LL;
	h.ts.tv_usec = (t % 1000000000LL) / w->div;
	pcap_dump((u_char *)w->d, &h, f);
}

static inline void dump_close(struct dumper *w)
{
	pcap_dump_close(w->d);
	pcap_close(w->pd);
}

static inline void write_pcap(const char *dir, const char *name, const struct tpkt *p, size_t n,
			      int precision)
{
	struct dumper w;
	uint8_t f[FRAME_MAX];

	dump_open(&w, dir, name, precision);
	for (size_t i = 0; i < n; i++)
		dump_frame(&w, p[i].t, f, frame(f, &p[i]));
	dump_close(&w);
}

static inline void write_query_pcap(const char *dir, const char *name, const struct tquery *q,
				    size_t n)
{
	struct dumper w;
	uint8_t f[FRAME_MAX];

	dump_open(&w, dir, name, PCAP_TSTAMP_PRECISION_NANO);
	for (size_t i = 0; i < n; i++)
		dump_frame(&w, q[i].t, f, qframe(f, &q[i]));
	dump_close(&w);
}

static inline int setup(void **state)
{
	char *dir = rundir_new("test_clocks");

	if (dir == NULL)
		return -1;
	*state = dir;
	return 0;
}

static inline int teardown(void **state)
{
	rundir_free(*state);
	return 0;
}

/* lab: the lab's events with site a (its own address ADDR_A) failing at
 * T0; the topology as used. address 0: a site_failed from before the DNS
 * scheme, without "address". */
static inline void lab_as(const char *dir, int port, int address)
{
	put(dir, "topology.ini", "[lab]\nname = t\nport = %d\n\n[router core]\n", port);
	ev(dir, "lab.events.jsonl", T0 - 5000 * MS, "lab_up",
	   ",\"lab\":\"t\",\"topology\":\"x.ini\"");
	ev(dir, "lab.events.jsonl", T0 - 3000 * MS, "traffic_started",
	   ",\"fail_at_ns\":3000000000,\"duration_ns\":10000000000");
	ev(dir, "lab.events.jsonl", T0, "site_failed",
	   address ? ",\"site\":\"a\",\"via\":\"198.18.0.2\",\"prefix\":\"198.19.0.1/32\","
		     "\"address\":\"" ADDR_A "\",\"how\":\"sigkill\""
		   : ",\"site\":\"a\",\"via\":\"198.18.0.2\",\"prefix\":\"198.19.0.1/32\"");
	ev(dir, "lab.events.jsonl", T0 + 7500 * MS, "traffic_stopped", ",\"interrupted\":false");
	ev(dir, "lab.events.jsonl", T0 + 9000 * MS, "lab_down", "");
}

static inline void lab_port(const char *dir, int port)
{
	lab_as(dir, port, 1);
}

static inline void lab(const char *dir)
{
	lab_port(dir, 7000);
}

/* analyse: run clocks_analyse and return clocks.json parsed, and the
 * table; the run may be valid or not, and clocks.json says which */
static inline json_t *analyse(const char *dir, char **table)
{
	char path[512], *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	json_error_t jerr;
	json_t *root;
	int rc;

	assert_non_null(out);
	rc = clocks_analyse(dir, out);
	assert_true(rc == 0 || rc == CLOCKS_INVALID);
	fclose(out);
	snprintf(path, sizeof(path), "%s/clocks.json", dir);
	root = json_load_file(path, 0, &jerr);
	assert_non_null(root);
	/* the exit status and clocks.json agree */
	assert_int_equal(json_is_true(json_object_get(root, "valid")), rc == 0);
	if (table)
		*table = buf;
	else
		free(buf);
	return root;
}

static inline json_t *scheme(json_t *root, const char *name)
{
	json_t *a = json_object_get(json_object_get(root, "schemes"), name);

	assert_non_null(a);
	return a;
}

static inline json_t *anycast(json_t *root)
{
	return scheme(root, "anycast");
}

static inline json_t *dns(json_t *root)
{
	return scheme(root, "dns");
}

/* warning_of: the first warning of clocks.json with code (NULL: any)
 * whose message contains needle (NULL: any), or NULL */
static inline json_t *warning_of(json_t *root, const char *code, const char *needle)
{
	json_t *w = json_object_get(root, "warnings"), *v;
	size_t i;

	json_array_foreach(w, i, v)
	{
		const char *c = json_string_value(json_object_get(v, "code"));
		const char *m = json_string_value(json_object_get(v, "message"));

		assert_non_null(c);
		assert_non_null(m);
		assert_true(json_is_boolean(json_object_get(v, "invalidates")));
		if ((code == NULL || strcmp(c, code) == 0) && (needle == NULL || strstr(m, needle)))
			return v;
	}
	return NULL;
}

/* assert_warning: some warning of clocks.json contains needle */
static inline void assert_warning(json_t *root, const char *needle)
{
	if (warning_of(root, NULL, needle) == NULL)
		fail_msg("no warning contains \"%s\"", needle);
}

/* assert_code: a warning of code whose message contains needle (NULL: any),
 * and it invalidates the run or not as said */
static inline void assert_code(json_t *root, const char *code, const char *needle, int invalidates)
{
	json_t *w = warning_of(root, code, needle);

	if (w == NULL)
		fail_msg("no warning %s contains \"%s\"", code, needle ? needle : "");
	assert_int_equal(json_is_true(json_object_get(w, "invalidates")), invalidates);
}

/* assert_no_code: no warning has code */
static inline void assert_no_code(json_t *root, const char *code)
{
	json_t *w = warning_of(root, code, NULL);

	if (w != NULL)
		fail_msg("unexpected warning %s: %s", code,
			 json_string_value(json_object_get(w, "message")));
}

/* count_code: the warnings of code (NULL: all) */
static inline size_t count_code(json_t *root, const char *code)
{
	json_t *w = json_object_get(root, "warnings"), *v;
	size_t i, n = 0;

	json_array_foreach(w, i, v)
	{
		const char *c = json_string_value(json_object_get(v, "code"));
		n += code == NULL || (c && strcmp(c, code) == 0);
	}
	return n;
}

static inline int is_valid(json_t *root)
{
	json_t *v = json_object_get(root, "valid");

	assert_true(json_is_boolean(v));
	return json_is_true(v);
}

static inline void assert_json_null(json_t *o, const char *key)
{
	if (!json_is_null(json_object_get(o, key)))
		fail_msg("\"%s\" is not null", key);
}

static inline void assert_seconds(json_t *o, const char *key, double want)
{
	json_t *v = json_object_get(o, key);

	assert_true(json_is_real(v));
	assert_true(fabs(json_real_value(v) - want) < 1e-9);
}

static inline void assert_count(json_t *o, const char *key, json_int_t want)
{
	json_t *v = json_object_get(o, key);

	assert_true(json_is_integer(v));
	assert_int_equal(json_integer_value(v), want);
}

#endif
