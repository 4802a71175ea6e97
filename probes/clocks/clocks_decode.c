/*
 * Telling request datagrams and DNS queries in captured frames: the UDP
 * datagram or TCP segment (lib/ipframe.h: link header, IPv4 or IPv6, UDP
 * or TCP, every length checked), then the lib/wire.h request or the HTTP one
 * (lib/httpwire.h), or a DNS header. Pure: no I/O, a fuzz target.
 */
#include <libknot/libknot.h>
#include <string.h>

#include "clocks_int.h"
#include "ipframe.h"

int clocks_decode_request(int dlt, const uint8_t *frame, size_t caplen, uint16_t port,
			  struct wire_msg *msg, struct in_addr *dst)
{
	struct ipframe u;

	if (ipframe_message(dlt, frame, caplen, &u, msg) == -1 || u.dport != port ||
	    msg->type != WIRE_REQUEST)
		return -1;
	/* an IPv6 request is one still, the same test as clocks_request_of's;
	 * its destination has no IPv4 address here */
	if (dst)
		*dst = u.family == AF_INET ? u.dst : (struct in_addr){0};
	return 0;
}

int clocks_request_of(int dlt, const uint8_t *frame, size_t caplen, uint16_t port, uint32_t *client,
		      uint64_t *seq, struct ipframe *u)
{
	return ipframe_request(dlt, frame, caplen, port, client, seq, u);
}

int clocks_decode_tcpseg(int dlt, const uint8_t *frame, size_t caplen, uint16_t port,
			 struct clocks_tcpseg *seg)
{
	struct ipframe u;

	/* IPv4 only for now: what it fills keeps IPv4 addresses */
	if (ipframe_decode_any(dlt, frame, caplen, &u) == -1 || u.family != AF_INET ||
	    u.proto != IPFRAME_TCP || !(u.tcpflags & (IPFRAME_SYN | IPFRAME_FIN | IPFRAME_RST)))
		return -1;
	if (u.dport == port) {
		seg->client = u.src;
		seg->server = u.dst;
		seg->cport = u.sport;
		seg->from_server = 0;
	} else if (u.sport == port) {
		seg->client = u.dst;
		seg->server = u.src;
		seg->cport = u.dport;
		seg->from_server = 1;
	} else {
		return -1;
	}
	seg->flags = u.tcpflags;
	return 0;
}

#define CLOCKS_DNS_PORT 53
#define CLOCKS_DNS_HEADER 12

int clocks_decode_query_name(int dlt, const uint8_t *frame, size_t caplen, struct in_addr *src,
			     struct in6_addr *src6, const uint8_t **qname, size_t *qlen)
{
	struct ipframe u;

	if (ipframe_decode(dlt, frame, caplen, &u) == -1 || (u.family != AF_INET && src6 == NULL) ||
	    u.dport != CLOCKS_DNS_PORT || u.have < CLOCKS_DNS_HEADER ||
	    (u.payload[2] & 0x80) /* QR: a response */)
		return -1;
	*src = u.src;
	if (src6)
		*src6 = u.src6;
	*qname = u.payload + CLOCKS_DNS_HEADER;
	*qlen = u.have - CLOCKS_DNS_HEADER;
	return 0;
}

int clocks_decode_query(int dlt, const uint8_t *frame, size_t caplen, struct in_addr *src)
{
	const uint8_t *qname;
	size_t qlen;

	/* IPv4 only: what it fills keeps IPv4 addresses */
	return clocks_decode_query_name(dlt, frame, caplen, src, NULL, &qname, &qlen);
}

int clocks_decode_dnsmsg(int dlt, const uint8_t *frame, size_t caplen, struct clocks_dnsmsg *m)
{
	struct ipframe u;

	/* IPv4 only for now: what it fills keeps IPv4 addresses */
	if (ipframe_decode(dlt, frame, caplen, &u) == -1 || u.family != AF_INET ||
	    (u.dport != CLOCKS_DNS_PORT && u.sport != CLOCKS_DNS_PORT) ||
	    u.have < CLOCKS_DNS_HEADER)
		return -1;
	m->src = u.src;
	m->dst = u.dst;
	m->sport = u.sport;
	m->dport = u.dport;
	m->id = (uint16_t)(u.payload[0] << 8 | u.payload[1]);
	m->qr = (u.payload[2] & 0x80) != 0;
	m->rcode = u.payload[3] & 0x0f;
	return 0;
}

int clocks_decode_response(int dlt, const uint8_t *frame, size_t caplen, struct clocks_response *r,
			   const uint8_t **qname, size_t *qlen)
{
	struct ipframe u;
	knot_pkt_t *pkt;
	uint8_t cut[512];
	const uint8_t *payload;
	int rc = -1, ret;

	if (ipframe_decode(dlt, frame, caplen, &u) == -1 || u.sport != CLOCKS_DNS_PORT ||
	    u.have < CLOCKS_DNS_HEADER || !(u.payload[2] & 0x80))
		return -1;
	payload = u.payload;
	/* a response cut by the capture's snaplen (128 bytes: an IPv6
	 * AAAA's, 134, loses its OPT record) is read up to its answers: a
	 * copy without its authority and additional sections */
	if (u.have < u.ulen && u.have <= sizeof(cut)) {
		memcpy(cut, u.payload, u.have);
		memset(cut + 8, 0, 4); /* NSCOUNT, ARCOUNT */
		payload = cut;
	}
	/* parsed in place: the packet only points into the frame */
	if ((pkt = knot_pkt_new((void *)payload, u.have, NULL)) == NULL)
		return -1;
	/* (the cut copy keeps the cut record's bytes after its answers) */
	if ((ret = knot_pkt_parse(pkt, 0)) != KNOT_EOK && !(ret == KNOT_ETRAIL && payload == cut))
		goto out;
	if (knot_pkt_qname(pkt) == NULL)
		goto out;
	r->src = u.src;
	r->src6 = u.src6;
	r->naddr = 0;
	r->naddr6 = 0;
	*qname = u.payload + CLOCKS_DNS_HEADER;
	*qlen = u.have - CLOCKS_DNS_HEADER;
	{
		const knot_pktsection_t *an = knot_pkt_section(pkt, KNOT_ANSWER);

		for (uint16_t i = 0; i < an->count; i++) {
			const knot_rrset_t *rr = knot_pkt_rr(an, i);
			knot_rdata_t *rd = rr->rrs.rdata;

			for (uint16_t k = 0; k < rr->rrs.count; k++, rd = knot_rdataset_next(rd))
				if (rr->type == KNOT_RRTYPE_A && rd->len == 4 &&
				    r->naddr < CLOCKS_RESPONSE_ADDRS)
					memcpy(&r->addr[r->naddr++], rd->data, 4);
				else if (rr->type == KNOT_RRTYPE_AAAA && rd->len == 16 &&
					 r->naddr6 < CLOCKS_RESPONSE_ADDRS)
					memcpy(&r->addr6[r->naddr6++], rd->data, 16);
		}
	}
	rc = 0;
out:
	knot_pkt_free(pkt);
	return rc;
}
