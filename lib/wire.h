/*
 * The request wire format: what clients send to sites and sites answer.
 *
 * One UDP datagram of WIRE_LEN bytes, all integers big-endian:
 *
 *   off len  field
 *     0   4  magic "SLRQ"
 *     4   1  version (1)
 *     5   1  type: 1 request, 2 reply
 *     6   2  flags: 0 in a request; in a reply WIRE_F_DRAINING, or 0
 *     8   4  client id
 *    12   4  reserved (0)
 *    16   8  sequence number
 *    24   8  send time, ns of CLOCK_REALTIME, set by the client
 *    32  16  site name, NUL-padded (a reply names the site that answered;
 *            zero in a request)
 *
 * The client id says whose the request is: 0 a prober's probe, from 1 to
 * WIRE_DNS_CLIENT_BASE - 1 the anycast flow of a client node, from
 * WIRE_DNS_CLIENT_BASE its DNS-steered flow (lab/lab.h gives them, the
 * analysis and the collector read them).
 *
 * A reply echoes the request's client id, sequence and send time. The
 * collector reads the same fields from captured packets, so client-side and
 * capture-side counts cross-check each other.
 */
#ifndef STEERLAB_WIRE_H
#define STEERLAB_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define WIRE_LEN 48
#define WIRE_VERSION 1
#define WIRE_SITE_LEN 16
#define WIRE_PORT_DEFAULT 7000
#define WIRE_PROBE_CLIENT 0u
#define WIRE_DNS_CLIENT_BASE 100000u
/* flags of a reply: the site is being drained (the timeline's drain): it
 * answers, and asks the probers to take it out of service */
#define WIRE_F_DRAINING 0x0001u

enum wire_type {
	WIRE_REQUEST = 1,
	WIRE_REPLY = 2,
};

struct wire_msg {
	uint8_t type;
	uint16_t flags;
	uint32_t client_id;
	uint64_t seq;
	uint64_t sent_ns;
	char site[WIRE_SITE_LEN + 1];
};

/* wire_encode: writes WIRE_LEN bytes to buf. Returns WIRE_LEN, or -1 if len
 * is too small or the site name too long. */
int wire_encode(const struct wire_msg *msg, uint8_t *buf, size_t len);

/* wire_decode: parses a datagram. Returns 0, or -1 if it is not a steerlab
 * message (short, bad magic, version or type). */
int wire_decode(const uint8_t *buf, size_t len, struct wire_msg *msg);

#endif
