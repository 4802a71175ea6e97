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
 * WIRE_DNS_CLIENT_BASE its DNS-steered flow (defined here once: the lab
 * gives them, the analysis and the collector read them). A population (a
 * client node with population = N, docs/agents.md) has ids with the top
 * bit set:
 *
 *   bit 31     1: a logical client of a population
 *   bit 30     its flow: 1 DNS-steered, 0 anycast
 *   bits 29-17 the node (its client number, 1 to 8191)
 *   bits 16-0  the logical client within the node (0 to 131071)
 *
 * so WIRE_POP_ID(node, dns, 0) is the population's base, the id its agent
 * reports its counts under, and logical client j sends base + j.
 *
 * Over TCP (sited's, agents/sited/tcp.h) the same messages go back to
 * back on a connection, one reply per request, in order.
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
#define WIRE_DNS_CLIENT_BASE_N 100000 /* a number for the text below */
#define WIRE_DNS_CLIENT_BASE ((uint32_t)WIRE_DNS_CLIENT_BASE_N)
#define WIRE_STR_(x) #x
#define WIRE_STR(x) WIRE_STR_(x)
#define WIRE_DNS_CLIENT_BASE_TEXT WIRE_STR(WIRE_DNS_CLIENT_BASE_N) /* "100000" */
/* the id of client node N's DNS-steered flow (its anycast flow's is N) */
#define WIRE_DNS_CLIENT_ID(n) (WIRE_DNS_CLIENT_BASE + (uint32_t)(n))
#define WIRE_POP_BIT 0x80000000u
#define WIRE_POP_DNS_BIT 0x40000000u
#define WIRE_POP_NODE_SHIFT 17
#define WIRE_POP_NODE_MAX 8191u
#define WIRE_POP_INDEX_MASK 0x1ffffu /* logical clients 0 .. 131071 */
#define WIRE_POP_ID(node, dns, j)                                                                  \
	(WIRE_POP_BIT | ((dns) ? WIRE_POP_DNS_BIT : 0u) |                                          \
	 ((uint32_t)(node) << WIRE_POP_NODE_SHIFT) | (uint32_t)(j))
/* flags of a reply: the site is being drained (the timeline's drain): it
 * answers, and asks the probers to take it out of service */
#define WIRE_F_DRAINING 0x0001u

enum wire_type {
	WIRE_REQUEST = 1,
	WIRE_REPLY = 2,
};

/* wire_is_dns: whether client id (not 0) is of a DNS-steered flow */
static inline int wire_is_dns(uint32_t client)
{
	if (client & WIRE_POP_BIT)
		return (client & WIRE_POP_DNS_BIT) != 0;
	return client >= WIRE_DNS_CLIENT_BASE;
}

/* wire_agent_of: the id the agent that sent client's requests reports its
 * counts under: a population's base, or client itself */
static inline uint32_t wire_agent_of(uint32_t client)
{
	return client & WIRE_POP_BIT ? client & ~WIRE_POP_INDEX_MASK : client;
}

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
