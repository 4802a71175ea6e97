/*
 * DNS messages for resolverd, all through libknot (no parser of our own):
 * checking a client's query, building the upstream query, judging the
 * upstream's answer, and building the answer a client gets.
 *
 * Upstream queries carry the question in lower case, RD clear (the
 * upstream is authoritative: resolverd is a forwarding cache for the lab's
 * zones, not a recursor) and EDNS with a 1232-byte payload. A client's
 * answer is built afresh from the upstream's message: the client's ID,
 * question (in the client's case) and RD/CD bits, RA set, AA clear, the
 * upstream's rcode, and its answer, authority and additional records
 * (not its OPT) with every TTL set to the TTL the cache gives (what is left
 * of the entry, or the stale TTL). A stale answer to a client that sent
 * EDNS carries Extended DNS Error 3, "Stale Answer" (RFC 8914).
 */
#ifndef STEERLAB_RESOLVERD_MSG_H
#define STEERLAB_RESOLVERD_MSG_H

#include <libknot/libknot.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#include "cache.h"

#define RSV_EDNS_PAYLOAD 1232
#define RSV_UDP_MAX RSV_EDNS_PAYLOAD
#define RSV_TCP_MAX 65535
#define RSV_TTL_KEEP UINT32_MAX /* rsv_msg_answer: leave the TTLs alone */

enum rsv_class {
	RSV_CLASS_POSITIVE,    /* NOERROR with an answer */
	RSV_CLASS_NXDOMAIN,    /* NXDOMAIN with a SOA */
	RSV_CLASS_NODATA,      /* NOERROR, empty answer, a SOA */
	RSV_CLASS_UNCACHEABLE, /* passed on, not stored: a referral, negative without SOA */
	RSV_CLASS_FAILURE,     /* SERVFAIL, REFUSED, ...: the refresh failed */
};

/* rsv_msg_parse: a packet over wire (not copied: wire must outlive it),
 * parsed. NULL if it is malformed. Free with knot_pkt_free(). */
knot_pkt_t *rsv_msg_parse(const uint8_t *wire, size_t len);

/* rsv_msg_parse_query: a client's query, parsed as rsv_msg_parse() does;
 * one that does not parse, if an EDNS payload size in it is below 512, is
 * parsed again from a copy (*copy, malloc'd; NULL when none was needed) in
 * which it is 512 (RFC 6891 6.2.5, lib/edns.h). Free the packet, then
 * *copy. */
knot_pkt_t *rsv_msg_parse_query(const uint8_t *wire, size_t len, uint8_t **copy);

/* rsv_msg_check_query: is the parsed packet q a query resolverd answers?
 * 0 yes; an rcode (FORMERR, NOTIMPL, REFUSED) to answer it with; or -1 to
 * drop it (a response). */
int rsv_msg_check_query(const knot_pkt_t *q);

/* rsv_msg_key: the cache key of q's question. 0, or -1. */
int rsv_msg_key(const knot_pkt_t *q, struct rsv_key *k);

/* rsv_msg_max_size: how large an answer to q may be: 65535 over TCP; over
 * UDP the client's EDNS payload, at least 512, at most RSV_UDP_MAX; 512
 * without EDNS. */
size_t rsv_msg_max_size(const knot_pkt_t *q, int tcp);

/* rsv_msg_answer: the answer to query q from the upstream message src
 * (parsed), every record with ttl (RSV_TTL_KEEP: src's own), written to
 * out (at most max bytes; what does not fit sets TC, except in the
 * additional section, which is cut silently). Returns its length, or -1.
 * A chain of one link (rsv_msg_answer_chain, without ECS). */
int rsv_msg_answer(const knot_pkt_t *q, const knot_pkt_t *src, uint32_t ttl, int stale,
		   uint8_t *out, size_t max);

/* an EDNS Client Subnet option (RFC 7871): an address and its source
 * prefix, and a scope (to echo, 7.2.2: the client's address and source,
 * the answer's scope); FAMILY 1 (addr) or 2 (v6: addr6) */
struct rsv_msg_ecs {
	struct in_addr addr;
	uint8_t source, scope;
	uint8_t v6;
	struct in6_addr addr6;
};

/* rsv_msg_answer_chain: the answer to q from the n links of a CNAME chain
 * (parsed stored messages, iter.h): every link's answer records, each with
 * its own ttls[i] (RSV_TTL_KEEP: the link's own), then the last link's
 * authority and additional records with its TTL, and the last link's rcode; with ecs (NULL: none)
 * in the OPT if q has one. As rsv_msg_answer otherwise. */
int rsv_msg_answer_chain(const knot_pkt_t *q, knot_pkt_t *const *links, const uint32_t *ttls, int n,
			 int stale, const struct rsv_msg_ecs *ecs, uint8_t *out, size_t max);

/* rsv_msg_soa_minimum: the MINIMUM of rd in *min, if rd is a whole SOA rdata
 * (two names and five 32-bit fields, nothing more). 0, or -1. */
int rsv_msg_soa_minimum(const knot_rdata_t *rd, uint32_t *min);

/* rsv_msg_error: an answer with rcode and no records to q (parsed), or,
 * if q is NULL, to the raw query qwire/qlen (its header only). Returns its
 * length, or -1 (not even a header to answer). */
int rsv_msg_error(const knot_pkt_t *q, const uint8_t *qwire, size_t qlen, int rcode, uint8_t *out,
		  size_t max);

/* rsv_msg_query: the upstream query for k with this id, RD clear, EDNS,
 * and ecs as its Client Subnet option (NULL: none; its address bits past
 * the source prefix must be zero). Returns its length, or -1. */
int rsv_msg_query(const struct rsv_key *k, uint16_t id, const struct rsv_msg_ecs *ecs, uint8_t *out,
		  size_t max);

/* rsv_msg_matches: is the parsed packet r a response to (id, k)? */
int rsv_msg_matches(const knot_pkt_t *r, const struct rsv_key *k, uint16_t id);

/* rsv_msg_classify: what an upstream response means for the cache; the
 * TTL to store it with in *ttl: the smallest TTL of the answer section, or
 * for a negative answer min(SOA TTL, SOA MINIMUM) (RFC 2308 5) of the first
 * SOA of the question's class whose rdata is whole; a negative answer
 * without one is uncacheable. */
enum rsv_class rsv_msg_classify(const knot_pkt_t *r, uint32_t *ttl);

/* rsv_msg_key_str: "name TYPE" of k for logs, in buf. */
const char *rsv_msg_key_str(const struct rsv_key *k, char *buf, size_t len);

/* rsv_msg_name_csv: k's name as text with ',', '"' and anything
 * unprintable escaped as \DDD, so it is one CSV field; its type in type. */
void rsv_msg_name_csv(const struct rsv_key *k, char *name, size_t nlen, char *type, size_t tlen);

/* rsv_msg_rcode_name: "NOERROR", "NXDOMAIN", ... or the number. */
const char *rsv_msg_rcode_name(int rcode, char *buf, size_t len);

#endif
