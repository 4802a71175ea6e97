/*
 * ipframe: the transport payload of an IPv4 or IPv6 frame, for the analysis
 * (probes/clocks reads the pcap files) and the collector (which counts the
 * requests it captures as they come): a UDP datagram, or a TCP segment
 * (the lab's requests go over TCP too: lib/wire.h messages back to back on
 * a connection, or HTTP/1.1 requests and replies, lib/httpwire.h, each
 * read from the segment that starts it). Link headers: Ethernet with up to
 * two VLAN tags, Linux cooked v1/v2, raw IP (either version, by its first
 * nibble). Every length is checked against what was captured and against
 * what the headers claim; fragments are not decoded (a request is 48 bytes
 * and a query a few dozen: neither is ever fragmented). IPv6 (RFC 8200):
 * the extension headers before the transport are walked, at most
 * IPFRAME_EXT_MAX of them, each whole within the capture and the payload
 * length: hop-by-hop options (first only), routing and destination
 * options, and a fragment header only if it is atomic (offset 0, no more
 * fragments: RFC 6946); any other next header (ICMPv6, ESP, no next
 * header) and a jumbogram are not decoded. Pure: no I/O, a fuzz target
 * through clocks_decode.c.
 */
#ifndef STEERLAB_IPFRAME_H
#define STEERLAB_IPFRAME_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "wire.h"

#define IPFRAME_UDP 17
#define IPFRAME_TCP 6
/* IPv6 extension headers walked to the transport at most: the lab sends
 * none and a host a few; a longer chain is not decoded */
#define IPFRAME_EXT_MAX 8
/* TCP flags, as the header has them */
#define IPFRAME_FIN 0x01
#define IPFRAME_SYN 0x02
#define IPFRAME_RST 0x04
#define IPFRAME_ACK 0x10

/* a UDP datagram or a TCP segment: its addresses, ports, and the payload
 * bytes that were captured (at most what the headers claim) */
struct ipframe {
	uint8_t family;		    /* AF_INET or AF_INET6 */
	struct in_addr src, dst;    /* IPv4's; zero for IPv6 */
	struct in6_addr src6, dst6; /* IPv6's; zero for IPv4 */
	uint16_t sport, dport;
	uint8_t proto;	  /* IPFRAME_UDP or IPFRAME_TCP */
	uint8_t tcpflags; /* a segment's flags (IPFRAME_SYN, ...); 0 for UDP */
	size_t ulen;	  /* payload length the headers claim */
	const uint8_t *payload;
	size_t have; /* of it captured */
};

/* ipframe_decode: the UDP datagram of frame (caplen bytes captured, link
 * type dlt, a DLT_ value) into *u: 0, or -1 if it is not an unfragmented
 * IPv4 or IPv6 UDP datagram of a link type listed above (u->family says
 * which). */
int ipframe_decode(int dlt, const uint8_t *frame, size_t caplen, struct ipframe *u);

/* ipframe_decode_any: the same for a UDP datagram or a TCP segment (u->proto
 * says which). */
int ipframe_decode_any(int dlt, const uint8_t *frame, size_t caplen, struct ipframe *u);

/* ipframe_request: if frame is a lib/wire.h request to port port (0: any),
 * a UDP datagram's or the first of a TCP segment's payload, or an HTTP
 * request line of lib/httpwire.h at a TCP segment's start, its client id
 * into *client (and, if not NULL, its sequence into *seq and the decoded
 * datagram or segment, family, addresses and ports, into *u): 0; else -1,
 * *u untouched. Checks of a binary request only what
 * wire_decode checks (magic, version, type), of an HTTP one its method and
 * target: cheap enough for every packet. A TCP segment that starts
 * mid-request (a request split by the sender) is not one; the lab's client
 * sends each request in a segment of its own, and libcurl a request's head
 * in one write. */
int ipframe_request(int dlt, const uint8_t *frame, size_t caplen, uint16_t port, uint32_t *client,
		    uint64_t *seq, struct ipframe *u);

/* what ipframe_message found */
#define IPFRAME_MSG_BINARY 1 /* a lib/wire.h message */
#define IPFRAME_MSG_HTTP 2   /* an HTTP request, or a reply's head (lib/httpwire.h) */

/* ipframe_message: the segment or datagram of frame into *u and the
 * request or reply at its payload's start into *msg: IPFRAME_MSG_BINARY
 * or IPFRAME_MSG_HTTP, or -1 if the frame is not one or carries neither
 * (an HTTP 503 is an answer, not a reply: -1). */
int ipframe_message(int dlt, const uint8_t *frame, size_t caplen, struct ipframe *u,
		    struct wire_msg *msg);

#endif
