/*
 * lib/ipframe.c: the transport payload of captured IPv4 frames. A request
 * in a UDP datagram and at the start of a TCP segment (with the options a
 * Linux segment carries) is a request; a SYN, a RST and a segment that
 * starts mid-request are TCP segments but not requests; ipframe_decode
 * keeps to UDP (its callers read DNS); every truncation of a TCP frame is
 * refused or decoded within what was captured. HTTP (lib/httpwire.h): a
 * request line at a segment's start is a request, and ipframe_message reads
 * it and a reply's head as lib/wire.h messages; a 503, a request cut before
 * its target's end, one mid-segment and one over UDP are not. IPv6: a
 * request over each link type, through a chain of extension headers and an
 * atomic fragment header; a real fragment, a jumbogram, ICMPv6, a chain too
 * long and every truncation of the headers or of the payload length are
 * refused.
 */
#include <arpa/inet.h>
#include <pcap/dlt.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "httpwire.h"
#include "ipframe.h"
#include "wire.h"

#define TCP_OPTS 12 /* a Linux data segment's: NOP NOP timestamps */

/* ip_frame: a raw IPv4 datagram (DLT_RAW) from 198.18.0.10:40000 to
 * 198.19.0.1:7000 of protocol proto, its transport header hdr (hlen bytes)
 * and payload (plen bytes): the frame's length */
static size_t ip_frame(uint8_t *f, uint8_t proto, const uint8_t *hdr, size_t hlen,
		       const uint8_t *payload, size_t plen)
{
	size_t tot = 20 + hlen + plen;

	memset(f, 0, 20);
	f[0] = 0x45;
	f[2] = (uint8_t)(tot >> 8);
	f[3] = (uint8_t)tot;
	f[6] = 0x40; /* DF */
	f[8] = 64;
	f[9] = proto;
	inet_pton(AF_INET, "198.18.0.10", f + 12);
	inet_pton(AF_INET, "198.19.0.1", f + 16);
	memcpy(f + 20, hdr, hlen);
	if (plen)
		memcpy(f + 20 + hlen, payload, plen);
	return tot;
}

/* tcp_frame: a segment with flags and payload */
static size_t tcp_frame(uint8_t *f, uint8_t flags, const uint8_t *payload, size_t plen)
{
	uint8_t h[20 + TCP_OPTS] = {0x9c, 0x40, 0x1b, 0x58}; /* 40000 -> 7000 */

	h[12] = (uint8_t)(sizeof(h) / 4) << 4;
	h[13] = flags;
	h[20] = 1;
	h[21] = 1;
	h[22] = 8;
	h[23] = 10;
	return ip_frame(f, IPFRAME_TCP, h, sizeof(h), payload, plen);
}

static void request(uint8_t *buf, uint32_t client, uint64_t seq)
{
	struct wire_msg m = {.type = WIRE_REQUEST, .client_id = client, .seq = seq};

	assert_int_equal(wire_encode(&m, buf, WIRE_LEN), WIRE_LEN);
}

static void test_tcp_request(void **state)
{
	uint8_t f[256], req[2 * WIRE_LEN];
	struct ipframe u, r;
	uint32_t client;
	uint64_t seq;
	size_t n;

	(void)state;
	request(req, 7, 42);
	request(req + WIRE_LEN, 7, 43);
	n = tcp_frame(f, IPFRAME_ACK | 0x08 /* PSH */, req, WIRE_LEN);
	assert_int_equal(ipframe_decode_any(DLT_RAW, f, n, &u), 0);
	assert_int_equal(u.proto, IPFRAME_TCP);
	assert_int_equal(u.sport, 40000);
	assert_int_equal(u.dport, 7000);
	assert_int_equal(u.tcpflags, IPFRAME_ACK | 0x08);
	assert_int_equal(u.ulen, WIRE_LEN);
	assert_int_equal(u.have, WIRE_LEN);
	assert_int_equal(ipframe_request(DLT_RAW, f, n, 7000, &client, &seq, &r), 0);
	assert_int_equal(client, 7);
	assert_int_equal(seq, 42);
	assert_int_equal(r.family, AF_INET);
	assert_string_equal(inet_ntoa(r.dst), "198.19.0.1");
	assert_string_equal(inet_ntoa(r.src), "198.18.0.10");
	assert_true(IN6_IS_ADDR_UNSPECIFIED(&r.dst6));
	assert_int_equal(r.proto, IPFRAME_TCP);
	assert_int_equal(r.dport, 7000);
	/* UDP only: not a datagram */
	assert_int_equal(ipframe_decode(DLT_RAW, f, n, &u), -1);
	/* another port */
	assert_int_equal(ipframe_request(DLT_RAW, f, n, 7001, &client, NULL, NULL), -1);
	/* two requests in one segment: the first */
	n = tcp_frame(f, IPFRAME_ACK, req, 2 * WIRE_LEN);
	assert_int_equal(ipframe_request(DLT_RAW, f, n, 0, &client, &seq, NULL), 0);
	assert_int_equal(seq, 42);
	/* a segment that starts mid-request is not one */
	n = tcp_frame(f, IPFRAME_ACK, req + 8, WIRE_LEN);
	assert_int_equal(ipframe_request(DLT_RAW, f, n, 0, &client, NULL, NULL), -1);
	/* a request cut by the snaplen is not one; the segment still decodes */
	n = tcp_frame(f, IPFRAME_ACK, req, WIRE_LEN);
	assert_int_equal(ipframe_request(DLT_RAW, f, n - 1, 0, &client, NULL, NULL), -1);
	assert_int_equal(ipframe_decode_any(DLT_RAW, f, n - 1, &u), 0);
	assert_int_equal(u.ulen, WIRE_LEN);
	assert_int_equal(u.have, WIRE_LEN - 1);
}

static void test_tcp_control(void **state)
{
	uint8_t f[256];
	struct ipframe u;
	uint32_t client;
	size_t n;

	(void)state;
	n = tcp_frame(f, IPFRAME_SYN, NULL, 0);
	assert_int_equal(ipframe_decode_any(DLT_RAW, f, n, &u), 0);
	assert_int_equal(u.tcpflags, IPFRAME_SYN);
	assert_int_equal(u.ulen, 0);
	assert_int_equal(u.have, 0);
	assert_int_equal(ipframe_request(DLT_RAW, f, n, 0, &client, NULL, NULL), -1);
	n = tcp_frame(f, IPFRAME_RST | IPFRAME_ACK, NULL, 0);
	assert_int_equal(ipframe_decode_any(DLT_RAW, f, n, &u), 0);
	assert_int_equal(u.tcpflags, IPFRAME_RST | IPFRAME_ACK);
	/* every cut of the header is refused: the flags and the data offset are needed */
	for (size_t cut = 0; cut < 20 + 20 + TCP_OPTS; cut++)
		assert_int_equal(ipframe_decode_any(DLT_RAW, f, cut, &u), -1);
	/* a data offset under 20 bytes, or past the segment */
	f[20 + 12] = 4 << 4;
	assert_int_equal(ipframe_decode_any(DLT_RAW, f, n, &u), -1);
	f[20 + 12] = 15 << 4;
	assert_int_equal(ipframe_decode_any(DLT_RAW, f, n, &u), -1);
}

static void test_udp_unchanged(void **state)
{
	uint8_t f[256], d[8 + WIRE_LEN] = {0x9c, 0x40, 0x1b, 0x58, 0, 8 + WIRE_LEN};
	struct ipframe u;
	uint32_t client;
	size_t n;

	(void)state;
	request(d + 8, WIRE_DNS_CLIENT_ID(3), 9);
	n = ip_frame(f, IPFRAME_UDP, d, sizeof(d), NULL, 0);
	assert_int_equal(ipframe_decode(DLT_RAW, f, n, &u), 0);
	assert_int_equal(u.proto, IPFRAME_UDP);
	assert_int_equal(u.tcpflags, 0);
	assert_int_equal(u.have, WIRE_LEN);
	assert_int_equal(ipframe_request(DLT_RAW, f, n, 7000, &client, NULL, NULL), 0);
	assert_int_equal(client, WIRE_DNS_CLIENT_ID(3));
	/* neither UDP nor TCP: ICMP */
	f[9] = 1;
	assert_int_equal(ipframe_decode_any(DLT_RAW, f, n, &u), -1);
}

/* the response head sited writes through libmicrohttpd, to the client */
static const char http_reply[] = "HTTP/1.1 200 OK\r\n"
				 "X-Steerlab: site=b client=100001 seq=9 sent=1796204504123456789 "
				 "flags=1\r\n"
				 "Content-Length: 3\r\n"
				 "Date: Wed, 02 Dec 2026 09:41:44 GMT\r\n\r\nok\n";

static void test_http(void **state)
{
	static const char req[] = "GET /steerlab/100001/9/1796204504123456789 HTTP/1.1\r\n"
				  "Host: 198.19.0.1:7000\r\nAccept: */*\r\n\r\n";
	uint8_t f[512], d[8 + sizeof(req)] = {0x9c, 0x40, 0x1b, 0x58, 0, 8 + sizeof(req) - 1};
	const size_t rlen = sizeof(req) - 1,
		     cut = strlen("GET /steerlab/100001/9/1796204504123456789 ");
	struct ipframe u, r;
	struct wire_msg m;
	uint32_t client;
	uint64_t seq;
	size_t n;

	(void)state;
	n = tcp_frame(f, IPFRAME_ACK | 0x08, (const uint8_t *)req, rlen);
	assert_int_equal(ipframe_request(DLT_RAW, f, n, 7000, &client, &seq, &r), 0);
	assert_int_equal(client, WIRE_DNS_CLIENT_ID(1));
	assert_int_equal(seq, 9);
	assert_string_equal(inet_ntoa(r.dst), "198.19.0.1");
	assert_int_equal(ipframe_message(DLT_RAW, f, n, &u, &m), IPFRAME_MSG_HTTP);
	assert_int_equal(m.type, WIRE_REQUEST);
	assert_int_equal(m.client_id, WIRE_DNS_CLIENT_ID(1));
	assert_true(m.sent_ns == 1796204504123456789ULL);
	assert_int_equal(u.dport, 7000);
	/* cut by the snaplen: a request while its target's end was captured */
	assert_int_equal(ipframe_request(DLT_RAW, f, n - rlen + cut, 0, &client, NULL, NULL), 0);
	assert_int_equal(ipframe_request(DLT_RAW, f, n - rlen + cut - 1, 0, &client, NULL, NULL),
			 -1);
	/* a segment that continues a request is not one */
	n = tcp_frame(f, IPFRAME_ACK, (const uint8_t *)req + 4, rlen - 4);
	assert_int_equal(ipframe_request(DLT_RAW, f, n, 0, &client, NULL, NULL), -1);
	assert_int_equal(ipframe_message(DLT_RAW, f, n, &u, &m), -1);
	/* over UDP the same bytes are not a request */
	memcpy(d + 8, req, rlen);
	n = ip_frame(f, IPFRAME_UDP, d, 8 + rlen, NULL, 0);
	assert_int_equal(ipframe_decode(DLT_RAW, f, n, &u), 0);
	assert_int_equal(ipframe_request(DLT_RAW, f, n, 0, &client, NULL, NULL), -1);
	assert_int_equal(ipframe_message(DLT_RAW, f, n, &u, &m), -1);
}

static void test_http_reply(void **state)
{
	uint8_t f[512], bin[WIRE_LEN];
	char unavailable[sizeof(http_reply)];
	struct ipframe u;
	struct wire_msg m;
	uint32_t client;
	size_t n;

	(void)state;
	n = tcp_frame(f, IPFRAME_ACK | 0x08, (const uint8_t *)http_reply, sizeof(http_reply) - 1);
	assert_int_equal(ipframe_message(DLT_RAW, f, n, &u, &m), IPFRAME_MSG_HTTP);
	assert_int_equal(m.type, WIRE_REPLY);
	assert_string_equal(m.site, "b");
	assert_int_equal(m.client_id, WIRE_DNS_CLIENT_ID(1));
	assert_int_equal(m.seq, 9);
	assert_int_equal(m.flags, WIRE_F_DRAINING);
	/* a reply is not a request */
	assert_int_equal(ipframe_request(DLT_RAW, f, n, 0, &client, NULL, NULL), -1);
	/* a 503 is not a reply */
	memcpy(unavailable, http_reply, sizeof(http_reply));
	memcpy(unavailable + 9, "503", 3);
	n = tcp_frame(f, IPFRAME_ACK, (const uint8_t *)unavailable, sizeof(unavailable) - 1);
	assert_int_equal(ipframe_message(DLT_RAW, f, n, &u, &m), -1);
	/* the binary messages beside them */
	request(bin, 7, 42);
	n = tcp_frame(f, IPFRAME_ACK, bin, WIRE_LEN);
	assert_int_equal(ipframe_message(DLT_RAW, f, n, &u, &m), IPFRAME_MSG_BINARY);
	assert_int_equal(m.type, WIRE_REQUEST);
	assert_int_equal(m.seq, 42);
}

/* IPv6 */

#define IP6_SRC "2001:2::10"
#define IP6_DST "2001:2:0:1::1"
#define NH_HOPOPTS 0
#define NH_ROUTING 43
#define NH_FRAGMENT 44
#define NH_ESP 50
#define NH_ICMPV6 58
#define NH_NONE 59
#define NH_DSTOPTS 60

/* ip6_frame: a raw IPv6 packet (DLT_RAW) from IP6_SRC to IP6_DST whose
 * first next header is next, its extension headers ext (elen bytes, their
 * chain already linked) and its transport l4 (llen bytes): its length */
static size_t ip6_frame(uint8_t *f, uint8_t next, const uint8_t *ext, size_t elen,
			const uint8_t *l4, size_t llen)
{
	size_t plen = elen + llen;

	memset(f, 0, 40);
	f[0] = 0x60;
	f[4] = (uint8_t)(plen >> 8);
	f[5] = (uint8_t)plen;
	f[6] = next;
	f[7] = 64;
	inet_pton(AF_INET6, IP6_SRC, f + 8);
	inet_pton(AF_INET6, IP6_DST, f + 24);
	if (elen)
		memcpy(f + 40, ext, elen);
	memcpy(f + 40 + elen, l4, llen);
	return 40 + plen;
}

/* udp_request: a datagram 40000 -> 7000 holding a request of client and
 * seq into d (8 + WIRE_LEN bytes) */
static void udp_request(uint8_t *d, uint32_t client, uint64_t seq)
{
	static const uint8_t h[8] = {0x9c, 0x40, 0x1b, 0x58, 0, 8 + WIRE_LEN};

	memcpy(d, h, sizeof(h));
	request(d + 8, client, seq);
}

/* udp6_frame: that datagram in an IPv6 packet, behind ext */
static size_t udp6_frame(uint8_t *f, uint8_t next, const uint8_t *ext, size_t elen)
{
	uint8_t d[8 + WIRE_LEN];

	udp_request(d, 5, 77);
	return ip6_frame(f, next, ext, elen, d, sizeof(d));
}

/* assert_udp6: f (n bytes, link type dlt) is the request of udp6_frame */
static void assert_udp6(int dlt, const uint8_t *f, size_t n)
{
	struct in6_addr src, dst;
	struct ipframe u, r;
	uint32_t client;
	uint64_t seq;

	inet_pton(AF_INET6, IP6_SRC, &src);
	inet_pton(AF_INET6, IP6_DST, &dst);
	assert_int_equal(ipframe_decode(dlt, f, n, &u), 0);
	assert_int_equal(u.family, AF_INET6);
	assert_int_equal(u.proto, IPFRAME_UDP);
	assert_memory_equal(&u.src6, &src, sizeof(src));
	assert_memory_equal(&u.dst6, &dst, sizeof(dst));
	assert_int_equal(u.src.s_addr, 0);
	assert_int_equal(u.dst.s_addr, 0);
	assert_int_equal(u.sport, 40000);
	assert_int_equal(u.dport, 7000);
	assert_int_equal(u.ulen, WIRE_LEN);
	assert_int_equal(u.have, WIRE_LEN);
	assert_int_equal(ipframe_request(dlt, f, n, 7000, &client, &seq, &r), 0);
	assert_int_equal(client, 5);
	assert_int_equal(seq, 77);
	assert_int_equal(r.family, AF_INET6);
	assert_memory_equal(&r.dst6, &dst, sizeof(dst));
	assert_int_equal(r.dst.s_addr, 0);
	assert_int_equal(ipframe_request(dlt, f, n, 0, &client, NULL, NULL), 0);
}

/* link types, each ahead of an IPv6 packet */
enum link6 { L6_ETH, L6_VLAN, L6_QINQ, L6_SLL, L6_SLL2, L6_RAW, L6_IPV6, L6_END };

/* link6_frame: ip (n bytes) behind a link header of type l into f: its
 * length; its DLT_ in *dlt */
static size_t link6_frame(uint8_t *f, enum link6 l, const uint8_t *ip, size_t n, int *dlt)
{
	size_t h = 0;

	switch (l) {
	case L6_ETH:
	case L6_VLAN:
	case L6_QINQ:
		*dlt = DLT_EN10MB;
		memset(f, 0x02, 12);
		h = 12;
		if (l == L6_QINQ) {
			f[h++] = 0x88, f[h++] = 0xa8, f[h++] = 0, f[h++] = 3;
		}
		if (l != L6_ETH) {
			f[h++] = 0x81, f[h++] = 0x00, f[h++] = 0, f[h++] = 5;
		}
		f[h++] = 0x86, f[h++] = 0xdd;
		break;
	case L6_SLL:
		*dlt = DLT_LINUX_SLL;
		memset(f, 0, 16);
		f[3] = 1; /* ARPHRD_ETHER */
		f[5] = 6;
		f[14] = 0x86, f[15] = 0xdd;
		h = 16;
		break;
	case L6_SLL2:
		*dlt = DLT_LINUX_SLL2;
		memset(f, 0, 20);
		f[0] = 0x86, f[1] = 0xdd;
		f[7] = 2; /* ifindex */
		f[9] = 1; /* ARPHRD_ETHER */
		f[11] = 6;
		h = 20;
		break;
	case L6_RAW:
		*dlt = DLT_RAW;
		break;
	case L6_IPV6:
	case L6_END:
#ifdef DLT_IPV6
		*dlt = DLT_IPV6;
#else
		*dlt = DLT_RAW;
#endif
		break;
	}
	memcpy(f + h, ip, n);
	return h + n;
}

static void test_ipv6_links(void **state)
{
	uint8_t ip[256], f[256];
	struct ipframe u;
	size_t n = udp6_frame(ip, IPFRAME_UDP, NULL, 0), fn;
	int dlt;

	(void)state;
	for (int l = L6_ETH; l < L6_END; l++) {
		fn = link6_frame(f, (enum link6)l, ip, n, &dlt);
		assert_udp6(dlt, f, fn);
		/* every capture cut before the request's end: never a request,
		 * and refused before the UDP header's end */
		for (size_t cut = 0; cut < fn; cut++) {
			uint32_t client;

			assert_int_equal(ipframe_request(dlt, f, cut, 0, &client, NULL, NULL), -1);
			if (cut < fn - WIRE_LEN)
				assert_int_equal(ipframe_decode(dlt, f, cut, &u), -1);
		}
	}
	/* Ethernet padding past the packet is not payload */
	fn = link6_frame(f, L6_ETH, ip, n, &dlt);
	memset(f + fn, 0, 16);
	assert_int_equal(ipframe_decode(dlt, f, fn + 16, &u), 0);
	assert_int_equal(u.have, WIRE_LEN);
	/* an IPv4 header behind the IPv6 ethertype, and the other way round */
	f[14] = 0x45;
	assert_int_equal(ipframe_decode(dlt, f, fn, &u), -1);
	fn = link6_frame(f, L6_ETH, ip, n, &dlt);
	f[12] = 0x08, f[13] = 0x00;
	assert_int_equal(ipframe_decode(dlt, f, fn, &u), -1);
	/* raw IP of neither version */
	memcpy(f, ip, n);
	f[0] = 0x50;
	assert_int_equal(ipframe_decode(DLT_RAW, f, n, &u), -1);
	assert_int_equal(ipframe_decode(DLT_RAW, f, 0, &u), -1);
}

static void test_ipv6_ext_chain(void **state)
{
	/* hop-by-hop (8 bytes: PadN), then destination options (16 bytes) */
	uint8_t ext[8 * (IPFRAME_EXT_MAX + 1)] = {NH_DSTOPTS, 0, 1,	      4, 0, 0,
						  0,	      0, IPFRAME_UDP, 1, 1, 12};
	uint8_t f[512];
	struct ipframe u;
	size_t n;

	(void)state;
	n = udp6_frame(f, NH_HOPOPTS, ext, 24);
	assert_udp6(DLT_RAW, f, n);
	/* every cut within the extension headers */
	for (size_t cut = 40; cut < 40 + 24 + 8; cut++)
		assert_int_equal(ipframe_decode(DLT_RAW, f, cut, &u), -1);
	/* a routing header after them */
	ext[8] = NH_ROUTING;
	memset(ext + 24, 0, 8);
	ext[24] = IPFRAME_UDP;
	n = udp6_frame(f, NH_HOPOPTS, ext, 32);
	assert_udp6(DLT_RAW, f, n);
	/* hop-by-hop is the first or nothing */
	n = udp6_frame(f, NH_DSTOPTS, ext + 8, 24);
	assert_udp6(DLT_RAW, f, n);
	ext[24] = NH_HOPOPTS;
	memcpy(ext + 32, ext, 8);
	ext[32] = IPFRAME_UDP;
	n = udp6_frame(f, NH_DSTOPTS, ext + 8, 32);
	assert_int_equal(ipframe_decode(DLT_RAW, f, n, &u), -1);
	/* IPFRAME_EXT_MAX of them, and one more */
	memset(ext, 0, sizeof(ext));
	for (int i = 0; i <= IPFRAME_EXT_MAX; i++)
		ext[8 * i] = NH_DSTOPTS;
	ext[8 * (IPFRAME_EXT_MAX - 1)] = IPFRAME_UDP;
	n = udp6_frame(f, NH_DSTOPTS, ext, 8 * IPFRAME_EXT_MAX);
	assert_udp6(DLT_RAW, f, n);
	ext[8 * (IPFRAME_EXT_MAX - 1)] = NH_DSTOPTS;
	ext[8 * IPFRAME_EXT_MAX] = IPFRAME_UDP;
	n = udp6_frame(f, NH_DSTOPTS, ext, 8 * (IPFRAME_EXT_MAX + 1));
	assert_int_equal(ipframe_decode(DLT_RAW, f, n, &u), -1);
}

static void test_ipv6_fragment(void **state)
{
	uint8_t frag[8] = {IPFRAME_UDP, 0, 0, 0, 0x12, 0x34, 0x56, 0x78};
	uint8_t f[256];
	struct ipframe u;
	size_t n;

	(void)state;
	/* atomic: offset 0, M 0, the whole datagram */
	n = udp6_frame(f, NH_FRAGMENT, frag, sizeof(frag));
	assert_udp6(DLT_RAW, f, n);
	/* a first fragment (M), and a later one (offset 8 bytes) */
	f[40 + 3] = 1;
	assert_int_equal(ipframe_decode(DLT_RAW, f, n, &u), -1);
	f[40 + 3] = 8;
	assert_int_equal(ipframe_decode(DLT_RAW, f, n, &u), -1);
	f[40 + 2] = 0x80, f[40 + 3] = 0;
	assert_int_equal(ipframe_decode(DLT_RAW, f, n, &u), -1);
	/* the fragment header cut short */
	f[40 + 2] = 0;
	for (size_t cut = 40; cut < 48; cut++)
		assert_int_equal(ipframe_decode(DLT_RAW, f, cut, &u), -1);
}

static void test_ipv6_lengths(void **state)
{
	uint8_t dst[16] = {IPFRAME_UDP, 1};
	uint8_t f[256];
	struct ipframe u;
	size_t n;

	(void)state;
	n = udp6_frame(f, IPFRAME_UDP, NULL, 0);
	/* a payload length short of the UDP length, of the UDP header */
	f[5] = 8 + WIRE_LEN - 1;
	assert_int_equal(ipframe_decode(DLT_RAW, f, n, &u), -1);
	f[5] = 7;
	assert_int_equal(ipframe_decode(DLT_RAW, f, n, &u), -1);
	/* 0: a jumbogram */
	f[5] = 0;
	assert_int_equal(ipframe_decode(DLT_RAW, f, n, &u), -1);
	/* cut by the snaplen within the payload: decoded as captured */
	f[5] = 8 + WIRE_LEN;
	assert_int_equal(ipframe_decode(DLT_RAW, f, n - 10, &u), 0);
	assert_int_equal(u.ulen, WIRE_LEN);
	assert_int_equal(u.have, WIRE_LEN - 10);
	/* an extension header past the payload length, though captured */
	n = udp6_frame(f, NH_DSTOPTS, dst, sizeof(dst));
	assert_udp6(DLT_RAW, f, n);
	f[4] = 0, f[5] = 8;
	assert_int_equal(ipframe_decode(DLT_RAW, f, n, &u), -1);
	f[5] = 15;
	assert_int_equal(ipframe_decode(DLT_RAW, f, n, &u), -1);
	/* its length field past the capture */
	n = udp6_frame(f, NH_DSTOPTS, dst, sizeof(dst));
	f[40 + 1] = 200;
	assert_int_equal(ipframe_decode(DLT_RAW, f, n, &u), -1);
}

static void test_ipv6_not_transport(void **state)
{
	static const uint8_t nh[] = {NH_ICMPV6, NH_NONE, NH_ESP, 41 /* IPv6 in IPv6 */, 255};
	/* an echo request */
	uint8_t echo[8 + WIRE_LEN] = {128, 0, 0, 0, 0, 1, 0, 1};
	uint8_t f[256];
	struct ipframe u;
	uint32_t client;
	size_t n;

	(void)state;
	for (size_t i = 0; i < sizeof(nh); i++) {
		n = ip6_frame(f, nh[i], NULL, 0, echo, sizeof(echo));
		assert_int_equal(ipframe_decode_any(DLT_RAW, f, n, &u), -1);
		assert_int_equal(ipframe_request(DLT_RAW, f, n, 0, &client, NULL, NULL), -1);
	}
	/* nor behind an extension header */
	{
		uint8_t ext[8] = {NH_ICMPV6};

		n = udp6_frame(f, NH_HOPOPTS, ext, sizeof(ext));
		assert_int_equal(ipframe_decode_any(DLT_RAW, f, n, &u), -1);
	}
}

static void test_ipv6_tcp(void **state)
{
	uint8_t h[20 + TCP_OPTS] = {0x9c, 0x40, 0x1b, 0x58}, seg[sizeof(h) + WIRE_LEN];
	uint8_t ext[8] = {IPFRAME_TCP};
	uint8_t ip[256], f[256];
	struct in6_addr dst;
	struct ipframe u, r;
	struct wire_msg m;
	uint32_t client;
	uint64_t seq;
	size_t n, fn;
	int dlt;

	(void)state;
	inet_pton(AF_INET6, IP6_DST, &dst);
	h[12] = (uint8_t)(sizeof(h) / 4) << 4;
	h[13] = IPFRAME_SYN;
	n = ip6_frame(ip, IPFRAME_TCP, NULL, 0, h, sizeof(h));
	assert_int_equal(ipframe_decode_any(DLT_RAW, ip, n, &u), 0);
	assert_int_equal(u.family, AF_INET6);
	assert_int_equal(u.proto, IPFRAME_TCP);
	assert_int_equal(u.tcpflags, IPFRAME_SYN);
	assert_int_equal(u.ulen, 0);
	assert_int_equal(ipframe_decode(DLT_RAW, ip, n, &u), -1);
	assert_int_equal(ipframe_request(DLT_RAW, ip, n, 0, &client, NULL, NULL), -1);
	/* a request in a segment, behind a destination options header, over
	 * a VLAN tag */
	h[13] = IPFRAME_ACK | 0x08;
	memcpy(seg, h, sizeof(h));
	request(seg + sizeof(h), 9, 1234);
	n = ip6_frame(ip, NH_DSTOPTS, ext, sizeof(ext), seg, sizeof(seg));
	fn = link6_frame(f, L6_VLAN, ip, n, &dlt);
	assert_int_equal(ipframe_decode_any(dlt, f, fn, &u), 0);
	assert_int_equal(u.tcpflags, IPFRAME_ACK | 0x08);
	assert_int_equal(u.sport, 40000);
	assert_int_equal(u.dport, 7000);
	assert_int_equal(u.ulen, WIRE_LEN);
	assert_int_equal(u.have, WIRE_LEN);
	memset(&r, 0xa5, sizeof(r));
	assert_int_equal(ipframe_request(dlt, f, fn, 7000, &client, &seq, &r), 0);
	assert_int_equal(client, 9);
	assert_int_equal(seq, 1234);
	assert_int_equal(r.family, AF_INET6);
	assert_int_equal(r.proto, IPFRAME_TCP);
	assert_memory_equal(&r.dst6, &dst, sizeof(dst));
	assert_int_equal(r.dst.s_addr, 0);
	assert_int_equal(ipframe_message(dlt, f, fn, &u, &m), IPFRAME_MSG_BINARY);
	assert_int_equal(m.type, WIRE_REQUEST);
	assert_int_equal(m.seq, 1234);
	/* not a request: *u untouched */
	memset(&r, 0xa5, sizeof(r));
	assert_int_equal(ipframe_request(dlt, f, fn, 7001, &client, &seq, &r), -1);
	assert_int_equal(r.family, 0xa5);
	/* a data offset under 20 bytes; one past what was captured */
	f[fn - sizeof(seg) + 12] = 4 << 4;
	assert_int_equal(ipframe_decode_any(dlt, f, fn, &u), -1);
	f[fn - sizeof(seg) + 12] = 15 << 4;
	assert_int_equal(ipframe_decode_any(dlt, f, fn - sizeof(seg) + 40, &u), -1);
}

static void test_ipv6_http(void **state)
{
	uint8_t h[20] = {0x9c, 0x40, 0x1b, 0x58}, seg[20 + sizeof(http_reply)];
	uint8_t f[512];
	struct ipframe u;
	struct wire_msg m;
	size_t n;

	(void)state;
	h[12] = 5 << 4;
	h[13] = IPFRAME_ACK;
	memcpy(seg, h, 20);
	memcpy(seg + 20, http_reply, sizeof(http_reply) - 1);
	n = ip6_frame(f, IPFRAME_TCP, NULL, 0, seg, sizeof(seg) - 1);
	assert_int_equal(ipframe_message(DLT_RAW, f, n, &u, &m), IPFRAME_MSG_HTTP);
	assert_int_equal(u.family, AF_INET6);
	assert_int_equal(m.type, WIRE_REPLY);
	assert_int_equal(m.seq, 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tcp_request),	   cmocka_unit_test(test_tcp_control),
	    cmocka_unit_test(test_udp_unchanged),  cmocka_unit_test(test_http),
	    cmocka_unit_test(test_http_reply),	   cmocka_unit_test(test_ipv6_links),
	    cmocka_unit_test(test_ipv6_ext_chain), cmocka_unit_test(test_ipv6_fragment),
	    cmocka_unit_test(test_ipv6_lengths),   cmocka_unit_test(test_ipv6_not_transport),
	    cmocka_unit_test(test_ipv6_tcp),	   cmocka_unit_test(test_ipv6_http),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
