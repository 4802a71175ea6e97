/*
 * probes/clocks/clocks_pcap.c: the reader of classic pcap files against
 * libpcap's pcap_next_ex, which reads every other file. Each case writes
 * captures into a run directory, loads it both ways (clocks_load with
 * clocks_pcap_via set to each) and wants the same
 * requests, the same count of other packets and the same warnings: nanosecond and
 * microsecond files, files of the other byte order, every link type the
 * decoders know, records that straddle the reader's blocks, the longest
 * record libpcap accepts, records past the snaplen, files cut in a record
 * header or in a packet, a damaged capture length, a fraction of a second
 * of a second or more, seconds past 2038; pcapng, which only
 * libpcap reads; a link type the clocks do not read. Then the reader's
 * request test, clocks_request_of, against clocks_decode_request on every
 * single-byte change of a request.
 */
#include <arpa/inet.h>
#include <dirent.h>
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

#include "clocks_int.h"
#include "test_rundir.h"
#include "test_file.h"

#define T0 1700000000123456789LL
#define MS 1000000LL
#define FRAME_MAX 300000
#define REQ_LEN (20 + 8 + WIRE_LEN) /* an IPv4 request datagram */

/* link-layer headers, ahead of the IPv4 datagram */
enum link { L_ETH, L_VLAN, L_SLL, L_SLL2, L_RAW, L_IPV4 };

static const int link_dlt[] = {DLT_EN10MB,     DLT_EN10MB, DLT_LINUX_SLL,
			       DLT_LINUX_SLL2, DLT_RAW,	   DLT_IPV4};

static void put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* link_header: the link header of type l for an IPv4 datagram; its length */
static size_t link_header(uint8_t *f, enum link l)
{
	switch (l) {
	case L_ETH:
		memset(f, 0, 14);
		put16(f + 12, 0x0800);
		return 14;
	case L_VLAN:
		memset(f, 0, 18);
		put16(f + 12, 0x8100);
		put16(f + 14, 7);
		put16(f + 16, 0x0800);
		return 18;
	case L_SLL:
		memset(f, 0, 16);
		put16(f + 14, 0x0800);
		return 16;
	case L_SLL2:
		memset(f, 0, 20);
		put16(f, 0x0800);
		return 20;
	default:
		return 0;
	}
}

/* request: a frame of link l holding a request of client to dst, seq 7 */
static size_t request(uint8_t *f, enum link l, uint32_t client, const char *dst, uint8_t type)
{
	struct wire_msg m = {.type = type, .client_id = client, .seq = 7, .sent_ns = 1};
	size_t off = link_header(f, l);
	uint8_t *ip = f + off, *udp = ip + 20;

	memset(ip, 0, REQ_LEN);
	ip[0] = 0x45;
	put16(ip + 2, REQ_LEN);
	ip[8] = 64;
	ip[9] = 17;
	assert_int_equal(inet_pton(AF_INET, "198.18.0.22", ip + 12), 1);
	assert_int_equal(inet_pton(AF_INET, dst, ip + 16), 1);
	put16(udp, 40000);
	put16(udp + 2, 7000);
	put16(udp + 4, 8 + WIRE_LEN);
	assert_int_equal(wire_encode(&m, udp + 8, WIRE_LEN), WIRE_LEN);
	return off + REQ_LEN;
}

/*
 * A pcap written by hand, so that anything can be in it: the byte order,
 * microseconds or nanoseconds, any link type and snaplen, records whose
 * captured length is a lie.
 */
struct wpcap {
	FILE *fp;
	int swap, nano;
};

static void w32(struct wpcap *w, uint32_t v)
{
	uint8_t b[4];

	for (int i = 0; i < 4; i++)
		b[i] = (uint8_t)(w->swap ? v >> (8 * (3 - i)) : v >> (8 * i));
	assert_int_equal(fwrite(b, 1, 4, w->fp), 4);
}

static void w16(struct wpcap *w, uint16_t v)
{
	uint8_t b[2] = {(uint8_t)(w->swap ? v >> 8 : v), (uint8_t)(w->swap ? v : v >> 8)};

	assert_int_equal(fwrite(b, 1, 2, w->fp), 2);
}

/* wopen: dir/capture-NAME.pcap; swap: big-endian (this machine's other
 * order, on x86 and arm64) */
static void wopen(struct wpcap *w, const char *dir, const char *name, int swap, int nano,
		  uint32_t snaplen, uint32_t linktype)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	w->fp = fopen(path, "w");
	assert_non_null(w->fp);
	w->swap = swap;
	w->nano = nano;
	w32(w, nano ? 0xa1b23c4d : 0xa1b2c3d4);
	w16(w, 2);
	w16(w, 4);
	w32(w, 0);
	w32(w, 0);
	w32(w, snaplen);
	w32(w, linktype);
}

/* wrec: a record at t of caplen bytes of f (len on the wire) */
static void wrec(struct wpcap *w, int64_t t, const uint8_t *f, uint32_t caplen)
{
	w32(w, (uint32_t)(t / 1000000000LL));
	w32(w, (uint32_t)(w->nano ? t % 1000000000LL : t % 1000000000LL / 1000));
	w32(w, caplen);
	w32(w, caplen);
	assert_int_equal(fwrite(f, 1, caplen, w->fp), caplen);
}

/* wrec_raw: a record with these seconds and fraction fields as they are */
static void wrec_raw(struct wpcap *w, uint32_t sec, uint32_t frac, const uint8_t *f,
		     uint32_t caplen)
{
	w32(w, sec);
	w32(w, frac);
	w32(w, caplen);
	w32(w, caplen);
	assert_int_equal(fwrite(f, 1, caplen, w->fp), caplen);
}

static void wclose(struct wpcap *w)
{
	assert_int_equal(fclose(w->fp), 0);
}

static int setup(void **state)
{
	char *dir = rundir_new("test_clocks_pcap");

	if (dir == NULL)
		return -1;
	test_write_file(
	    dir, "lab.events.jsonl",
	    "{\"t\":1700000000000000000,\"event\":\"lab_up\",\"lab\":\"t\",\"port\":7000}\n"
	    "{\"t\":1700000000123456789,\"event\":\"site_failed\",\"site\":\"a\","
	    "\"via\":\"198.18.0.2\",\"prefix\":\"198.19.0.1/32\",\"address\":\"198.19.1.1\"}\n");
	*state = dir;
	return 0;
}

static int teardown(void **state)
{
	rundir_free(*state);
	clocks_pcap_via = CLOCKS_PCAP_VIA_OWN;
	return 0;
}

/* the warnings of a load that are about captures: "PATH: after packet N:
 * MESSAGE; read up to there" */
static int capture_warnings(const struct clocks_input *in, char out[][CLOCKS_WARNING_LEN])
{
	int n = 0;

	for (int i = 0; i < in->notes.n; i++)
		if (strstr(in->notes.w[i].msg, ".pcap: ") != NULL)
			snprintf(out[n++], CLOCKS_WARNING_LEN, "%s", in->notes.w[i].msg);
	return n;
}

/* compare: b, loaded another way, has a's captures and capture warnings */
static void compare(const struct clocks_input *a, const struct clocks_input *b)
{
	char w1[CLOCKS_MAX_WARNINGS][CLOCKS_WARNING_LEN],
	    w2[CLOCKS_MAX_WARNINGS][CLOCKS_WARNING_LEN];
	int n1, n2;

	assert_int_equal(a->ncaptures, b->ncaptures);
	for (size_t i = 0; i < a->ncaptures; i++) {
		const struct clocks_capture *x = &a->captures[i], *y = &b->captures[i];

		assert_string_equal(x->label, y->label);
		assert_int_equal(x->n, y->n);
		assert_int_equal(x->other, y->other);
		assert_true(x->last_request_ns == y->last_request_ns);
		assert_int_equal(x->last_of_n, y->last_of_n);
		for (size_t k = 0; k < x->n; k++) {
			assert_true(x->packets[k].t_ns == y->packets[k].t_ns);
			assert_int_equal(x->packets[k].client, y->packets[k].client);
			assert_int_equal(x->packets[k].seq, y->packets[k].seq);
			assert_int_equal(x->packets[k].dst.s_addr, y->packets[k].dst.s_addr);
		}
	}
	assert_int_equal(a->nqcaptures, b->nqcaptures);
	for (size_t i = 0; i < a->nqcaptures; i++) {
		assert_int_equal(a->qcaptures[i].n, b->qcaptures[i].n);
		assert_int_equal(a->qcaptures[i].other, b->qcaptures[i].other);
		for (size_t k = 0; k < a->qcaptures[i].n; k++) {
			assert_true(a->qcaptures[i].queries[k].t_ns ==
				    b->qcaptures[i].queries[k].t_ns);
			assert_int_equal(a->qcaptures[i].queries[k].src.s_addr,
					 b->qcaptures[i].queries[k].src.s_addr);
		}
	}
	/* the same text: the own reader words its warnings as libpcap does */
	n1 = capture_warnings(a, w1);
	n2 = capture_warnings(b, w2);
	assert_int_equal(n1, n2);
	for (int i = 0; i < n1; i++)
		assert_string_equal(w1[i], w2[i]);
}

/*
 * same: dir loads to the same captures and capture warnings through the
 * own reader and through libpcap; returns the first input (to
 * clocks_input_free)
 */
static void same(const char *dir, struct clocks_input *own)
{
	struct clocks_input lib;
	char err[1024] = "";

	clocks_pcap_via = CLOCKS_PCAP_VIA_OWN;
	if (clocks_load(dir, own, err, sizeof(err)) == -1)
		fail_msg("own reader: %s", err);
	clocks_pcap_via = CLOCKS_PCAP_VIA_LIBPCAP;
	if (clocks_load(dir, &lib, err, sizeof(err)) == -1)
		fail_msg("libpcap: %s", err);
	clocks_pcap_via = CLOCKS_PCAP_VIA_OWN;
	compare(own, &lib);
	clocks_input_free(&lib);
}

static const struct clocks_capture *capture_of(const struct clocks_input *in, const char *label)
{
	for (size_t i = 0; i < in->ncaptures; i++)
		if (strcmp(in->captures[i].label, label) == 0)
			return &in->captures[i];
	fail_msg("no capture %s", label);
	return NULL;
}

/* a few requests and other packets in each byte order and time unit */
static void test_orders_and_units(void **state)
{
	const char *dir = *state;
	static uint8_t f[FRAME_MAX];
	struct clocks_input in;
	char name[64];

	for (int v = 0; v < 4; v++) {
		struct wpcap w;

		snprintf(name, sizeof(name), "capture-s%d.pcap", v);
		wopen(&w, dir, name, v & 1, v & 2, 65535, 1);
		for (int k = 0; k < 50; k++) {
			size_t n =
			    request(f, L_ETH, (uint32_t)k % 7, k % 3 ? "198.19.0.1" : "198.19.1.1",
				    k % 5 ? WIRE_REQUEST : WIRE_REPLY);
			wrec(&w, T0 + (k - 25) * MS + k * 1001, f, (uint32_t)n);
		}
		wclose(&w);
	}
	same(dir, &in);
	assert_int_equal(in.ncaptures, 4);
	for (int v = 0; v < 4; v++) {
		const struct clocks_capture *c;

		snprintf(name, sizeof(name), "s%d", v);
		c = capture_of(&in, name);
		assert_int_equal(c->n, 40);
		assert_int_equal(c->other, 10);
		/* k = 1, in a microsecond file to the microsecond */
		assert_true(c->packets[0].t_ns ==
			    (v & 2 ? T0 - 24 * MS + 1001 : (T0 - 24 * MS + 1001) / 1000 * 1000));
		assert_int_equal(c->packets[0].client, 1);
		assert_int_equal(c->packets[0].seq, 7);
	}
	clocks_input_free(&in);
}

/* every link type the decoders know, in the header's LINKTYPE_ numbering,
 * written by libpcap from the DLT_ */
static void test_link_types(void **state)
{
	const char *dir = *state;
	uint8_t f[256];
	struct clocks_input in;
	char name[64];

	for (int l = L_ETH; l <= L_IPV4; l++) {
		pcap_t *pd = pcap_open_dead_with_tstamp_precision(link_dlt[l], 262144,
								  PCAP_TSTAMP_PRECISION_NANO);
		pcap_dumper_t *d;
		char path[512];

		assert_non_null(pd);
		snprintf(name, sizeof(name), "capture-l%d.pcap", l);
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		d = pcap_dump_open(pd, path);
		assert_non_null(d);
		for (int k = 0; k < 10; k++) {
			struct pcap_pkthdr h = {.ts = {1700000000, k * 1000}};

			h.caplen = h.len =
			    (bpf_u_int32)request(f, (enum link)l, 3, "198.19.0.1", WIRE_REQUEST);
			pcap_dump((u_char *)d, &h, f);
		}
		pcap_dump_close(d);
		pcap_close(pd);
	}
	same(dir, &in);
	for (int l = L_ETH; l <= L_IPV4; l++) {
		snprintf(name, sizeof(name), "l%d", l);
		assert_int_equal(capture_of(&in, name)->n, 10);
	}
	clocks_input_free(&in);
}

/* more than the reader's block of a MiB, in records of every length, a few
 * of the longest libpcap accepts (262144 bytes), so that records straddle
 * the block's end anywhere */
static void test_blocks(void **state)
{
	const char *dir = *state;
	static uint8_t f[FRAME_MAX];
	char w[CLOCKS_MAX_WARNINGS][CLOCKS_WARNING_LEN];
	struct clocks_input in;
	size_t requests = 0, others = 0;
	struct wpcap wp;

	wopen(&wp, dir, "capture-a.pcap", 0, 1, 262144, 1);
	memset(f, 0xab, sizeof(f));
	for (int k = 0; k < 40000; k++) {
		int64_t t = T0 - 1000 * MS + k * 50000;

		if (k % 10000 == 5000) {
			wrec(&wp, t, f, 262144); /* junk of the longest length */
			others++;
		} else if (k % 3) {
			wrec(&wp, t, f,
			     (uint32_t)request(f, L_ETH, 100001, "198.19.1.1", WIRE_REQUEST));
			requests++;
		} else {
			wrec(&wp, t, f, (uint32_t)(k % 97)); /* frames too short to be anything */
			others++;
		}
		memset(f, 0xab, 128);
	}
	wclose(&wp);
	same(dir, &in);
	assert_int_equal(capture_of(&in, "a")->n, requests);
	assert_int_equal(capture_of(&in, "a")->other, others);
	assert_int_equal(capture_warnings(&in, w), 0);
	clocks_input_free(&in);
}

/* records longer than the file's snaplen: libpcap cuts them to it, and so
 * does the reader; a snaplen of 60 cuts every request short. Cut files of
 * such records: libpcap reads the snaplen's bytes first, and says so. */
static void test_snaplen(void **state)
{
	const char *dir = *state;
	uint8_t f[256];
	struct clocks_input in;
	struct wpcap w;

	char warn[CLOCKS_MAX_WARNINGS][CLOCKS_WARNING_LEN];

	wopen(&w, dir, "capture-a.pcap", 0, 1, 60, 1);
	for (int k = 0; k < 5; k++)
		wrec(&w, T0 + k, f, (uint32_t)request(f, L_ETH, 2, "198.19.0.1", WIRE_REQUEST));
	wclose(&w);
	wopen(&w, dir, "capture-b.pcap", 0, 1, 0, 1); /* 0: no limit */
	for (int k = 0; k < 5; k++)
		wrec(&w, T0 + k, f, (uint32_t)request(f, L_ETH, 2, "198.19.0.1", WIRE_REQUEST));
	wclose(&w);
	/* cut in the last record: within its first 60 bytes, and past them */
	for (int c = 0; c < 2; c++) {
		char name[64], path[512];

		snprintf(name, sizeof(name), "capture-%c.pcap", 'c' + c);
		wopen(&w, dir, name, 0, 1, 60, 1);
		for (int k = 0; k < 3; k++)
			wrec(&w, T0 + k, f,
			     (uint32_t)request(f, L_ETH, 2, "198.19.0.1", WIRE_REQUEST));
		wclose(&w);
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		assert_int_equal(truncate(path, 24 + 2 * (16 + 14 + REQ_LEN) + 16 + (c ? 70 : 30)),
				 0);
	}
	same(dir, &in);
	assert_int_equal(capture_of(&in, "a")->n, 0);
	assert_int_equal(capture_of(&in, "a")->other, 5);
	assert_int_equal(capture_of(&in, "b")->n, 5);
	assert_int_equal(capture_of(&in, "c")->other, 2);
	assert_int_equal(capture_warnings(&in, warn), 2);
	assert_non_null(strstr(warn[0], "tried to read 60 captured bytes, only got 30"));
	assert_non_null(strstr(warn[1], "tried to read 90 captured bytes, only got 70"));
	clocks_input_free(&in);
}

/* cut_file: dir/name of n requests, cut to its first len bytes */
static void cut_file(const char *dir, const char *name, int n, long cut)
{
	uint8_t f[256];
	char path[512];
	struct wpcap w;

	wopen(&w, dir, name, 0, 1, 262144, 1);
	for (int k = 0; k < n; k++)
		wrec(&w, T0 + k, f, (uint32_t)request(f, L_ETH, 2, "198.19.0.1", WIRE_REQUEST));
	wclose(&w);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(truncate(path, cut), 0);
}

/* a killed collector: files cut in a record header, in a packet, right after
 * the file header; each read up to there with a warning, as libpcap does */
static void test_truncated(void **state)
{
	const char *dir = *state;
	const long rec = 16 + 14 + REQ_LEN;
	char w[CLOCKS_MAX_WARNINGS][CLOCKS_WARNING_LEN], expect[256];
	struct clocks_input in;

	cut_file(dir, "capture-a.pcap", 5, 24 + 3 * rec + 9);	    /* in the 4th header */
	cut_file(dir, "capture-b.pcap", 5, 24 + 3 * rec + 16 + 40); /* in the 4th packet */
	cut_file(dir, "capture-c.pcap", 5, 24);			    /* no packet at all */
	cut_file(dir, "capture-d.pcap", 5, 24 + 5 * rec);	    /* whole */
	same(dir, &in);
	assert_int_equal(capture_of(&in, "a")->n, 3);
	assert_int_equal(capture_of(&in, "b")->n, 3);
	assert_int_equal(capture_of(&in, "c")->n, 0);
	assert_int_equal(capture_of(&in, "d")->n, 5);
	assert_int_equal(capture_warnings(&in, w), 2);
	/* what follows a cut is unknown: the run is not to be trusted */
	assert_true(capture_of(&in, "a")->truncated && capture_of(&in, "b")->truncated);
	assert_false(capture_of(&in, "c")->truncated || capture_of(&in, "d")->truncated);
	assert_int_equal(capture_of(&in, "d")->records, 5);
	assert_int_equal(in.notes.invalid, 2);
	for (int i = 0; i < in.notes.n; i++)
		if (strstr(in.notes.w[i].msg, ".pcap: "))
			assert_string_equal(in.notes.w[i].code, "capture_truncated");
	snprintf(expect, sizeof(expect),
		 "%s/capture-a.pcap: after packet 3: truncated dump file; tried to read 16 header "
		 "bytes, only got 9; read up to there",
		 (const char *)*state);
	assert_string_equal(w[0], expect);
	snprintf(
	    expect, sizeof(expect),
	    "%s/capture-b.pcap: after packet 3: truncated dump file; tried to read %d captured "
	    "bytes, only got 40; read up to there",
	    (const char *)*state, 14 + REQ_LEN);
	assert_string_equal(w[1], expect);
	clocks_input_free(&in);
}

/* a capture length past libpcap's maximum is damage: read up to there */
static void test_bad_caplen(void **state)
{
	const char *dir = *state;
	uint8_t f[256];
	char warn[CLOCKS_MAX_WARNINGS][CLOCKS_WARNING_LEN];
	struct clocks_input in;
	struct wpcap w;

	wopen(&w, dir, "capture-a.pcap", 1, 1, 262144, 1);
	for (int k = 0; k < 3; k++)
		wrec(&w, T0 + k, f, (uint32_t)request(f, L_ETH, 2, "198.19.0.1", WIRE_REQUEST));
	w32(&w, 1700000000);
	w32(&w, 0);
	w32(&w, 262145);
	w32(&w, 262145);
	memset(f, 0, sizeof(f));
	fwrite(f, 1, sizeof(f), w.fp);
	wclose(&w);
	/* a snaplen past the maximum stays the file's for libpcap, which then
	 * words the same damage otherwise (found by tests/fuzz/fuzz_pcap.c) */
	wopen(&w, dir, "capture-b.pcap", 0, 1, 300000, 1);
	wrec(&w, T0, f, (uint32_t)request(f, L_ETH, 2, "198.19.0.1", WIRE_REQUEST));
	w32(&w, 1700000000);
	w32(&w, 0);
	w32(&w, 262145);
	w32(&w, 262145);
	wclose(&w);
	same(dir, &in);
	assert_int_equal(capture_of(&in, "a")->n, 3);
	assert_int_equal(capture_of(&in, "b")->n, 1);
	assert_int_equal(capture_warnings(&in, warn), 2);
	assert_non_null(strstr(warn[0], "after packet 3: invalid packet capture length 262145, "
					"bigger than snaplen of 262144"));
	assert_non_null(strstr(warn[1], "after packet 1: invalid packet capture length 262145, "
					"bigger than maximum of 262144"));
	clocks_input_free(&in);
}

/* a fraction of a second of a second or more (10^9 ns, 10^6 us): libpcap
 * passes it on; both readers end the file there, naming the record, in each
 * byte order and unit; the largest valid fraction is read */
static void test_bad_time(void **state)
{
	const char *dir = *state;
	const long rec = 16 + 14 + REQ_LEN;
	static const uint32_t bad[] = {0, 1, 0x7fffffff, 0x80000000, 0xffffffff};
	char warn[CLOCKS_MAX_WARNINGS][CLOCKS_WARNING_LEN], expect[CLOCKS_WARNING_LEN];
	uint8_t f[256];
	struct clocks_input in;
	char name[64];

	for (int v = 0; v < 4; v++) {
		int nano = v & 2;
		uint32_t one = nano ? 1000000000u : 1000000u;

		for (size_t b = 0; b < sizeof(bad) / sizeof(bad[0]); b++) {
			uint32_t frac = b == 0 ? one : b == 1 ? one + 1 : bad[b];
			struct wpcap w;

			snprintf(name, sizeof(name), "capture-v%db%zu.pcap", v, b);
			wopen(&w, dir, name, v & 1, nano, 262144, 1);
			for (int k = 0; k < 3; k++)
				wrec_raw(
				    &w, 1700000000, one - 1 - (uint32_t)k, f,
				    (uint32_t)request(f, L_ETH, 2, "198.19.0.1", WIRE_REQUEST));
			wrec_raw(&w, 1700000000, frac, f,
				 (uint32_t)request(f, L_ETH, 2, "198.19.0.1", WIRE_REQUEST));
			wrec_raw(&w, 1700000001, 0, f,
				 (uint32_t)request(f, L_ETH, 2, "198.19.0.1", WIRE_REQUEST));
			wclose(&w);
		}
	}
	same(dir, &in);
	assert_int_equal(capture_warnings(&in, warn), 20);
	for (int v = 0; v < 4; v++) {
		int nano = v & 2;
		uint32_t one = nano ? 1000000000u : 1000000u;

		for (size_t b = 0; b < sizeof(bad) / sizeof(bad[0]); b++) {
			const struct clocks_capture *c;

			snprintf(name, sizeof(name), "v%db%zu", v, b);
			c = capture_of(&in, name);
			assert_int_equal(c->n, 3);
			assert_true(c->packets[0].t_ns ==
				    1700000000 * 1000000000LL +
					(int64_t)(one - 1) * (nano ? 1 : 1000));
			snprintf(expect, sizeof(expect),
				 "%s/capture-%s.pcap: after packet 3: invalid time stamp in the "
				 "record at byte %ld: %u %s past the second; read up to there",
				 dir, name, 24 + 3 * rec,
				 b == 0	  ? one
				 : b == 1 ? one + 1
					  : bad[b],
				 nano ? "nanoseconds" : "microseconds");
			assert_string_equal(warn[v * 5 + (int)b], expect);
		}
	}
	clocks_input_free(&in);
}

/* seconds from 2038 on (2^31 and above): unsigned, as pcap-savefile(5)
 * has them, through either reader */
static void test_seconds_unsigned(void **state)
{
	const char *dir = *state;
	uint8_t f[256];
	struct clocks_input in;
	struct wpcap w;

	for (int swap = 0; swap < 2; swap++) {
		wopen(&w, dir, swap ? "capture-b.pcap" : "capture-a.pcap", swap, 1, 262144, 1);
		wrec_raw(&w, 0x80000000u, 5, f,
			 (uint32_t)request(f, L_ETH, 2, "198.19.0.1", WIRE_REQUEST));
		wrec_raw(&w, 0xffffffffu, 6, f,
			 (uint32_t)request(f, L_ETH, 2, "198.19.0.1", WIRE_REQUEST));
		wclose(&w);
	}
	same(dir, &in);
	for (int c = 0; c < 2; c++) {
		const struct clocks_capture *cap = capture_of(&in, c ? "b" : "a");

		assert_int_equal(cap->n, 2);
		assert_true(cap->packets[0].t_ns == 0x80000000LL * 1000000000LL + 5);
		assert_true(cap->packets[1].t_ns == 0xffffffffLL * 1000000000LL + 6);
	}
	clocks_input_free(&in);
}

/* a pcapng file: libpcap reads it for the clocks (section header, one
 * Ethernet interface in nanoseconds, enhanced packet blocks) */
static void test_pcapng(void **state)
{
	const char *dir = *state;
	uint8_t f[256], pad[4] = {0};
	struct clocks_input in;
	struct wpcap w = {0};
	char path[512];

	snprintf(path, sizeof(path), "%s/capture-a.pcap", dir);
	w.fp = fopen(path, "w");
	assert_non_null(w.fp);
	/* SHB: type, length, byte-order magic, version 1.0, section length -1 */
	w32(&w, 0x0a0d0d0a);
	w32(&w, 28);
	w32(&w, 0x1a2b3c4d);
	w16(&w, 1);
	w16(&w, 0);
	w32(&w, 0xffffffff);
	w32(&w, 0xffffffff);
	w32(&w, 28);
	/* IDB: Ethernet, snaplen 0, option if_tsresol = 9 (nanoseconds) */
	w32(&w, 1);
	w32(&w, 32);
	w16(&w, 1);
	w16(&w, 0);
	w32(&w, 0);
	w16(&w, 9);
	w16(&w, 1);
	fwrite("\x09\0\0\0", 1, 4, w.fp);
	w32(&w, 0); /* opt_endofopt */
	w32(&w, 32);
	for (int k = 0; k < 4; k++) {
		uint32_t n = (uint32_t)request(f, L_ETH, 5, "198.19.0.1", WIRE_REQUEST);
		uint32_t padded = (n + 3) & ~3u;
		uint64_t t = (uint64_t)T0 + (uint64_t)k * MS;

		w32(&w, 6);
		w32(&w, 32 + padded);
		w32(&w, 0);
		w32(&w, (uint32_t)(t >> 32));
		w32(&w, (uint32_t)t);
		w32(&w, n);
		w32(&w, n);
		fwrite(f, 1, n, w.fp);
		fwrite(pad, 1, padded - n, w.fp);
		w32(&w, 32 + padded);
	}
	wclose(&w);
	same(dir, &in);
	assert_int_equal(capture_of(&in, "a")->n, 4);
	assert_true(capture_of(&in, "a")->packets[3].t_ns == T0 + 3 * MS);
	clocks_input_free(&in);
}

/* a pcapng file whose interface counts time in seconds (if_tsresol 0):
 * a time stamp of 1.7e18 units is 1.7e18 s, which no 64-bit count of
 * nanoseconds holds; the file ends there (found by tests/fuzz/fuzz_pcap.c:
 * the multiplication overflowed) */
static void test_pcapng_far_seconds(void **state)
{
	const char *dir = *state;
	uint8_t f[256], pad[4] = {0};
	char warn[CLOCKS_MAX_WARNINGS][CLOCKS_WARNING_LEN];
	struct clocks_input in;
	struct wpcap w = {0};
	char path[512];

	snprintf(path, sizeof(path), "%s/capture-a.pcap", dir);
	w.fp = fopen(path, "w");
	assert_non_null(w.fp);
	w32(&w, 0x0a0d0d0a);
	w32(&w, 28);
	w32(&w, 0x1a2b3c4d);
	w16(&w, 1);
	w16(&w, 0);
	w32(&w, 0xffffffff);
	w32(&w, 0xffffffff);
	w32(&w, 28);
	w32(&w, 1);
	w32(&w, 32);
	w16(&w, 1);
	w16(&w, 0);
	w32(&w, 0);
	w16(&w, 9);
	w16(&w, 1);
	fwrite("\0\0\0\0", 1, 4, w.fp); /* if_tsresol 0: seconds */
	w32(&w, 0);
	w32(&w, 32);
	for (int k = 0; k < 2; k++) {
		uint32_t n = (uint32_t)request(f, L_ETH, 5, "198.19.0.1", WIRE_REQUEST);
		uint32_t padded = (n + 3) & ~3u;
		uint64_t t = k == 0 ? 1700000000 : (uint64_t)T0;

		w32(&w, 6);
		w32(&w, 32 + padded);
		w32(&w, 0);
		w32(&w, (uint32_t)(t >> 32));
		w32(&w, (uint32_t)t);
		w32(&w, n);
		w32(&w, n);
		fwrite(f, 1, n, w.fp);
		fwrite(pad, 1, padded - n, w.fp);
		w32(&w, 32 + padded);
	}
	wclose(&w);
	same(dir, &in);
	assert_int_equal(capture_of(&in, "a")->n, 1);
	assert_true(capture_of(&in, "a")->packets[0].t_ns == 1700000000 * 1000000000LL);
	assert_int_equal(capture_warnings(&in, warn), 1);
	assert_non_null(
	    strstr(warn[0], "after packet 1: invalid time stamp in the record at byte "));
	assert_non_null(strstr(warn[0], ": 1700000000123456789 seconds, not within 1970..2262"));
	clocks_input_free(&in);
}

/* a link type the clocks do not read, and a file too short for a header,
 * are errors through either reader */
static void test_not_ours(void **state)
{
	const char *dir = *state;
	struct clocks_input in;
	char err[1024];
	struct wpcap w;

	wopen(&w, dir, "capture-a.pcap", 0, 1, 262144, 0 /* LINKTYPE_NULL */);
	wclose(&w);
	for (int via = CLOCKS_PCAP_VIA_OWN; via <= CLOCKS_PCAP_VIA_LIBPCAP; via++) {
		clocks_pcap_via = (enum clocks_pcap_via)via;
		assert_int_equal(clocks_load(dir, &in, err, sizeof(err)), -1);
		clocks_input_free(&in);
		assert_non_null(strstr(err, "capture-a.pcap: link type NULL"));
	}
	test_write_file(dir, "capture-a.pcap", "\xd4\xc3\xb2\xa1\x02\x00");
	for (int via = CLOCKS_PCAP_VIA_OWN; via <= CLOCKS_PCAP_VIA_LIBPCAP; via++) {
		clocks_pcap_via = (enum clocks_pcap_via)via;
		assert_int_equal(clocks_load(dir, &in, err, sizeof(err)), -1);
		clocks_input_free(&in);
		assert_non_null(strstr(err, "capture-a.pcap: "));
	}
	clocks_pcap_via = CLOCKS_PCAP_VIA_OWN;
}

/* the reader notes the latest request of a scheme (not a probe's, client
 * 0) as it keeps them, so that the end of the observation is no pass over
 * the packets; the same time as a pass finds, by both readers, in a
 * capture out of time order; and room for every request at once */
static void test_latest_request(void **state)
{
	static const int64_t at[] = {5, 9, 2, 30, 7, 12}; /* ms after T0; 30 is a probe's */
	const char *dir = *state;
	const struct clocks_capture *c;
	struct clocks_input in;
	struct wpcap w;
	uint8_t f[256];
	int64_t end;

	wopen(&w, dir, "capture-a.pcap", 0, 1, 65535, 1);
	for (size_t k = 0; k < sizeof(at) / sizeof(at[0]); k++) {
		size_t n = request(f, L_ETH, at[k] == 30 ? 0 : 1 + (uint32_t)k, "198.19.0.1",
				   WIRE_REQUEST);

		wrec(&w, T0 + at[k] * MS, f, (uint32_t)n);
	}
	wclose(&w);
	same(dir, &in);
	c = capture_of(&in, "a");
	assert_int_equal(c->n, 6);
	assert_int_equal(c->last_of_n, 6);
	assert_true(c->last_request_ns == T0 + 12 * MS);
	end = clocks_observation_end(&in);
	assert_true(end == T0 + 12 * MS);
	/* a capture filled otherwise is looked through, to the same end */
	in.captures[0].last_of_n = 0;
	assert_true(clocks_observation_end(&in) == end);
	clocks_input_free(&in);
}

/* the reader's request test is clocks_decode_request's: on a request of
 * each link type and on every change of one byte of it */
static void test_request_of(void **state)
{
	static const uint8_t values[] = {0x00, 0x01, 0x02, 0x45, 0x7f, 0x80, 0xff};
	uint8_t f[256], g[256];

	(void)state;
	memset(f, 0, sizeof(f));
	for (int l = L_ETH; l <= L_IPV4; l++) {
		size_t n = request(f, (enum link)l, 100007, "198.19.1.1", WIRE_REQUEST);

		for (size_t len = 0; len <= n + 2; len++) {
			for (size_t i = 0; i < n; i++) {
				for (size_t v = 0; v < sizeof(values); v++) {
					struct wire_msg m;
					struct in_addr d1;
					struct ipframe u;
					uint32_t client;
					uint64_t seq;
					int a, b;

					memcpy(g, f, n + 2);
					g[i] = values[v];
					a = clocks_decode_request(link_dlt[l], g, len, 7000, &m,
								  &d1);
					b = clocks_request_of(link_dlt[l], g, len, 7000, &client,
							      &seq, &u);
					assert_int_equal(a, b);
					if (a == 0) {
						assert_int_equal(client, m.client_id);
						assert_true(seq == m.seq);
						assert_int_equal(u.family, AF_INET);
						assert_int_equal(d1.s_addr, u.dst.s_addr);
					}
				}
			}
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_orders_and_units, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_link_types, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_blocks, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_snaplen, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_truncated, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bad_caplen, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bad_time, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_seconds_unsigned, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pcapng, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pcapng_far_seconds, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_not_ours, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_latest_request, setup, teardown),
	    cmocka_unit_test(test_request_of),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
