/*
 * The answer to one DNS query: bytes in, bytes out (docs/authd.md).
 *
 * authd_respond() is the whole server apart from the sockets: given the
 * database, the health state and the querier's address, it turns a query
 * message into a response message. It touches no socket and no clock, so
 * the unit tests and the fuzzer (tests/fuzz/fuzz_authd.c) call it directly.
 * Its only state is the random generator and the weighted-round-robin
 * counters, both deterministic given the seed.
 *
 * Wire format is libknot's: knot_pkt_parse() reads the query (and its OPT
 * and EDNS Client Subnet), knot_pkt_put() writes the answer. Nothing is
 * allocated per query: libknot's allocations come from an arena that is
 * reset at each query, and the response is written into the caller's
 * buffer.
 */
#ifndef STEERLAB_AUTHD_RESPOND_H
#define STEERLAB_AUTHD_RESPOND_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "db.h"
#include "health.h"

#define AUTHD_UDP_MIN 512    /* a UDP response without EDNS */
#define AUTHD_MSG_MAX 65535  /* a TCP message */
#define AUTHD_CNAME_CHAIN 16 /* CNAMEs followed in one answer */

struct authd_stats {
	uint64_t queries;   /* messages given to authd_respond */
	uint64_t responses; /* responses made */
	uint64_t dropped;   /* not answered: short, or a response (QR set) */
	uint64_t truncated; /* TC set */
	uint64_t referrals;
	uint64_t nodata;
	uint64_t ecs;	    /* queries with a valid ECS option */
	uint64_t rcode[24]; /* by (extended) RCODE */
};

struct authd_arena {
	uint8_t *buf;
	size_t size, used;
};

struct authd_respond_ctx {
	struct authd_db *db;
	const struct authd_health *health; /* NULL: every site healthy */
	uint64_t rng;
	struct authd_arena arena;
	knot_mm_t mm;
	uint8_t *qbuf; /* the query, copied: libknot parses in place */
	struct authd_stats stats;
};

/* authd_respond_init: seed non-zero. 0, or -1 out of memory. */
int authd_respond_init(struct authd_respond_ctx *c, struct authd_db *db,
		       const struct authd_health *health, uint64_t seed);
void authd_respond_free(struct authd_respond_ctx *c);

/* authd_respond: the response to the query q of qlen bytes from `from`
 * (NULL: unknown) over UDP (tcp 0) or TCP, written to out (outmax bytes;
 * give at least the [server] udp_max for UDP, AUTHD_MSG_MAX for TCP).
 * Returns its length, or 0 when the message gets no answer. */
size_t authd_respond(struct authd_respond_ctx *c, const uint8_t *q, size_t qlen,
		     const struct sockaddr *from, int tcp, uint8_t *out, size_t outmax);

#endif
