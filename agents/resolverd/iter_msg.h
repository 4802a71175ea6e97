/*
 * What an iterating resolver makes of an authoritative server's answer: a
 * pure module over libknot's parsed packets, no sockets and no clock.
 *
 * The walk (iter.h) asks the servers of one zone cut a question and hands
 * the answer to rsv_iter_judge() with the cut: the verdict says whether it
 * answers the question (possibly through CNAMEs inside the zone), leads
 * elsewhere by a CNAME, refers to a zone cut below (a referral), denies
 * the name or the type (RFC 2308, with the zone's SOA), or is of no use
 * (lame, or a failure rcode).
 *
 * Bailiwick: only records at or below the zone asked count. An answer
 * chain stops at a CNAME whose target is outside the zone (the walk asks
 * the target's own servers); a referral must name a cut strictly below the
 * zone asked and at or above the name asked, so every referral is
 * progress; glue counts only for the cut's NS names and only at or below
 * the zone asked; a SOA only at or below it and at or above the name.
 *
 * What is stored is rebuilt from what counted (rsv_iter_synth): a
 * message whose question is the one asked and which carries only the
 * in-bailiwick records, so nothing outside the zone asked reaches the
 * cache or a client.
 */
#ifndef STEERLAB_RESOLVERD_ITER_MSG_H
#define STEERLAB_RESOLVERD_ITER_MSG_H

#include <libknot/libknot.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#include "cache.h"
#include "msg.h"

#define RSV_ITER_CHAIN_MAX 8 /* CNAME links followed for one client query */
#define RSV_ITER_NS_MAX 8    /* servers of one zone cut tried */

enum rsv_iter_kind {
	RSV_ITER_ANSWER,   /* the question answered (through in-zone CNAMEs) */
	RSV_ITER_CNAME,	   /* a CNAME chain leaving the zone: go on at target */
	RSV_ITER_REFERRAL, /* a zone cut below: ask its servers */
	RSV_ITER_NXDOMAIN, /* the name does not exist, SOA in bailiwick */
	RSV_ITER_NODATA,   /* no record of the type, SOA in bailiwick */
	RSV_ITER_NOSOA,	   /* negative without a usable SOA: passed on, not cached */
	RSV_ITER_LAME,	   /* nothing usable: try another server */
	RSV_ITER_FAILURE,  /* SERVFAIL, REFUSED, ...: try another server */
};

struct rsv_iter_verdict {
	enum rsv_iter_kind kind;
	uint32_t ttl;		     /* ANSWER, CNAME: the chain's smallest TTL;
					NXDOMAIN, NODATA: min(SOA TTL, MINIMUM) */
	knot_dname_storage_t target; /* CNAME: where the chain goes on (lower case) */
	knot_dname_storage_t cut;    /* REFERRAL: the zone cut (lower case) */
	unsigned links;		     /* ANSWER, CNAME: the CNAMEs followed in the zone */
};

/* rsv_iter_under: is name at or below zone (case-insensitive)? */
int rsv_iter_under(const knot_dname_t *name, const knot_dname_t *zone);

/* rsv_iter_judge: what r, the answer of a server of zone to ask, means;
 * in v. Returns v->kind. */
enum rsv_iter_kind rsv_iter_judge(const knot_pkt_t *r, const knot_dname_t *zone,
				  const struct rsv_key *ask, struct rsv_iter_verdict *v);

/* rsv_iter_synth: the message stored for a verdict of ANSWER, CNAME,
 * NXDOMAIN, NODATA or NOSOA: question ask, r's rcode (NXDOMAIN only if the
 * verdict is), the in-bailiwick chain in the answer section, the SOA in
 * the authority section for negatives. For REFERRAL: question (cut, NS),
 * the cut's NS RRset in the answer section and its glue (A records of the
 * NS names, at or below zone) in the additional one. Written to out (at
 * most max bytes); returns its length, or -1. */
int rsv_iter_synth(const knot_pkt_t *r, const knot_dname_t *zone, const struct rsv_key *ask,
		   const struct rsv_iter_verdict *v, uint8_t *out, size_t max);

/* rsv_iter_synth_glue: rsv_iter_synth with the glue of type glue (A, or
 * AAAA for a walk over IPv6) in a referral; the other type is left out. */
int rsv_iter_synth_glue(const knot_pkt_t *r, const knot_dname_t *zone, const struct rsv_key *ask,
			const struct rsv_iter_verdict *v, uint16_t glue, uint8_t *out, size_t max);

/* rsv_iter_rrset_msg: a message answering (rr's owner, rr's type) with
 * every such record of r's section sec (libknot parses one RRset per
 * record), their smallest TTL in *ttl: a server's addresses, stored on
 * their own. Returns its length, or -1. */
int rsv_iter_rrset_msg(const knot_pkt_t *r, knot_section_t sec, const knot_rrset_t *rr,
		       uint32_t *ttl, uint8_t *out, size_t max);

/* rsv_iter_chain_next: if the stored message m (question name/type of k)
 * ends in a CNAME whose target it does not answer, writes the target to
 * target and returns 1; 0 if it is complete (answered or denied). */
int rsv_iter_chain_next(const knot_pkt_t *m, const struct rsv_key *k, knot_dname_storage_t target);

/* rsv_iter_qmin_name: the suffix of name with labels labels, in out. */
void rsv_iter_qmin_name(const knot_dname_t *name, unsigned labels, knot_dname_storage_t out);

/* rsv_iter_query: the query for ask with id, RD clear, EDNS 1232, and an
 * ECS option (RFC 7871) for addr/source if source_len > 0 (scope 0).
 * Returns its length, or -1. */
int rsv_iter_query(const struct rsv_key *ask, uint16_t id, const struct in_addr *addr,
		   uint8_t source_len, uint8_t *out, size_t max);

/* rsv_iter_ecs: the ECS option of a parsed packet, IPv4 only: 1 and the
 * address (masked to its source prefix), source and scope prefix lengths;
 * 0 without one or with another family. */
int rsv_iter_ecs(const knot_pkt_t *p, struct in_addr *addr, uint8_t *source, uint8_t *scope);

/* rsv_iter_ecs_opt: the ECS option of a parsed packet, IPv4 (FAMILY 1) or
 * IPv6 (2): 1 and e (the address masked to its source prefix, e->v6 for
 * IPv6); 0 without one, with another family or a prefix longer than the
 * address. */
int rsv_iter_ecs_opt(const knot_pkt_t *p, struct rsv_msg_ecs *e);

/* rsv_iter_mask6: a cut to its first bits bits (the rest zero). */
void rsv_iter_mask6(struct in6_addr *a, unsigned bits);

#endif
