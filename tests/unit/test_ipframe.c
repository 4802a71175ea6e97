/*
 * lib/ipframe.c: the transport payload of captured IPv4 frames. A request
 * in a UDP datagram and at the start of a TCP segment (with the options a
 * Linux segment carries) is a request; a SYN, a RST and a segment that
 * starts mid-request are TCP segments but not requests; ipframe_decode
 * keeps to UDP (its callers read DNS); every truncation of a TCP frame is
 * refused or decoded within what was captured. HTTP (lib/httpwire.h): a
 * request line at a segment's start is a request, and ipframe_message reads
 * it and a reply's head as lib/wire.h messages; a 503, a request cut before
 * its target's end, one mid-segment and one over UDP are not.
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
	struct ipframe u;
	struct in_addr dst;
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
	assert_int_equal(ipframe_request(DLT_RAW, f, n, 7000, &client, &seq, &dst), 0);
	assert_int_equal(client, 7);
	assert_int_equal(seq, 42);
	assert_string_equal(inet_ntoa(dst), "198.19.0.1");
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
	struct ipframe u;
	struct wire_msg m;
	struct in_addr dst;
	uint32_t client;
	uint64_t seq;
	size_t n;

	(void)state;
	n = tcp_frame(f, IPFRAME_ACK | 0x08, (const uint8_t *)req, rlen);
	assert_int_equal(ipframe_request(DLT_RAW, f, n, 7000, &client, &seq, &dst), 0);
	assert_int_equal(client, WIRE_DNS_CLIENT_ID(1));
	assert_int_equal(seq, 9);
	assert_string_equal(inet_ntoa(dst), "198.19.0.1");
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tcp_request),	  cmocka_unit_test(test_tcp_control),
	    cmocka_unit_test(test_udp_unchanged), cmocka_unit_test(test_http),
	    cmocka_unit_test(test_http_reply),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
