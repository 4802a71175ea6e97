/*
 * udpframe: the IPv4 UDP datagram in a captured frame, for the analysis
 * (probes/clocks reads the pcap files) and the collector (which counts the
 * requests it captures as they come). Link headers: Ethernet with up to two
 * VLAN tags, Linux cooked v1/v2, raw IP. Every length is checked against
 * what was captured and against what the headers claim; fragments are not
 * decoded (a request is 48 bytes and a query a few dozen: neither is ever
 * fragmented). Pure: no I/O, a fuzz target through clocks_decode.c.
 */
#ifndef STEERLAB_UDPFRAME_H
#define STEERLAB_UDPFRAME_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

/* a UDP datagram: its addresses, destination port, and the payload bytes
 * that were captured (at most what the UDP length claims) */
struct udpframe {
	struct in_addr src, dst;
	uint16_t sport, dport;
	size_t ulen; /* payload length the UDP header claims */
	const uint8_t *payload;
	size_t have; /* of it captured */
};

/* udpframe_decode: the datagram of frame (caplen bytes captured, link type
 * dlt, a DLT_ value) into *u: 0, or -1 if it is not an unfragmented IPv4
 * UDP datagram of a link type listed above. */
int udpframe_decode(int dlt, const uint8_t *frame, size_t caplen, struct udpframe *u);

/* udpframe_request: if frame is a lib/wire.h request to UDP port port (0:
 * any), its
 * client id into *client (and, if not NULL, its sequence into *seq and its
 * destination into *dst): 0; else -1. Checks only what wire_decode checks
 * of a request (magic, version, type): cheap enough for every packet. */
int udpframe_request(int dlt, const uint8_t *frame, size_t caplen, uint16_t port, uint32_t *client,
		     uint64_t *seq, struct in_addr *dst);

#endif
