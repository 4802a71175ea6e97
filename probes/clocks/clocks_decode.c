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

/* clocks_frame_addrs: u's source and destination as IPv4 addresses: an
 * IPv6 frame's by lab_up's twins (docs/clocks.md, "IPv6"), so a query, a
 * response or a connection over IPv6 is one between the same nodes as its
 * IPv4 twin. 0, or -1 for an IPv6 frame with an address of no twin (or no
 * in: the twins unknown) */
static int clocks_frame_addrs(const struct clocks_input *in, const struct ipframe *u,
			      struct in_addr *src, struct in_addr *dst)
{
	if (u->family == AF_INET) {
		*src = u->src;
		*dst = u->dst;
		return 0;
	}
	if (in == NULL || clocks_twin_of(in, &u->src6, src) == -1 ||
	    clocks_twin_of(in, &u->dst6, dst) == -1)
		return -1;
	return 0;
}

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

int clocks_decode_tcpseg(const struct clocks_input *in, int dlt, const uint8_t *frame,
			 size_t caplen, uint16_t port, struct clocks_tcpseg *seg)
{
	struct in_addr src, dst;
	struct ipframe u;

	if (ipframe_decode_any(dlt, frame, caplen, &u) == -1 || u.proto != IPFRAME_TCP ||
	    !(u.tcpflags & (IPFRAME_SYN | IPFRAME_FIN | IPFRAME_RST)) ||
	    clocks_frame_addrs(in, &u, &src, &dst) == -1)
		return -1;
	if (u.dport == port) {
		seg->client = src;
		seg->server = dst;
		seg->cport = u.sport;
		seg->from_server = 0;
	} else if (u.sport == port) {
		seg->client = dst;
		seg->server = src;
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

int clocks_decode_query_name(const struct clocks_input *in, int dlt, const uint8_t *frame,
			     size_t caplen, struct in_addr *src, const uint8_t **qname,
			     size_t *qlen)
{
	struct in_addr dst;
	struct ipframe u;

	if (ipframe_decode(dlt, frame, caplen, &u) == -1 || u.dport != CLOCKS_DNS_PORT ||
	    u.have < CLOCKS_DNS_HEADER || (u.payload[2] & 0x80) /* QR: a response */ ||
	    clocks_frame_addrs(in, &u, src, &dst) == -1)
		return -1;
	*qname = u.payload + CLOCKS_DNS_HEADER;
	*qlen = u.have - CLOCKS_DNS_HEADER;
	return 0;
}

int clocks_decode_query(const struct clocks_input *in, int dlt, const uint8_t *frame, size_t caplen,
			struct in_addr *src)
{
	const uint8_t *qname;
	size_t qlen;

	return clocks_decode_query_name(in, dlt, frame, caplen, src, &qname, &qlen);
}

int clocks_decode_dnsmsg(const struct clocks_input *in, int dlt, const uint8_t *frame,
			 size_t caplen, struct clocks_dnsmsg *m)
{
	struct ipframe u;

	if (ipframe_decode(dlt, frame, caplen, &u) == -1 ||
	    (u.dport != CLOCKS_DNS_PORT && u.sport != CLOCKS_DNS_PORT) ||
	    u.have < CLOCKS_DNS_HEADER || clocks_frame_addrs(in, &u, &m->src, &m->dst) == -1)
		return -1;
	m->sport = u.sport;
	m->dport = u.dport;
	m->id = (uint16_t)(u.payload[0] << 8 | u.payload[1]);
	m->qr = (u.payload[2] & 0x80) != 0;
	m->rcode = u.payload[3] & 0x0f;
	return 0;
}

int clocks_decode_response(const struct clocks_input *in, int dlt, const uint8_t *frame,
			   size_t caplen, struct clocks_response *r, const uint8_t **qname,
			   size_t *qlen)
{
	struct in_addr src, dst;
	struct ipframe u;
	knot_pkt_t *pkt;
	uint8_t cut[512];
	const uint8_t *payload;
	int rc = -1, ret;

	if (ipframe_decode(dlt, frame, caplen, &u) == -1 || u.sport != CLOCKS_DNS_PORT ||
	    u.have < CLOCKS_DNS_HEADER || !(u.payload[2] & 0x80) ||
	    clocks_frame_addrs(in, &u, &src, &dst) == -1)
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
	r->src = src;
	r->naddr = 0;
	*qname = u.payload + CLOCKS_DNS_HEADER;
	*qlen = u.have - CLOCKS_DNS_HEADER;
	{
		const knot_pktsection_t *an = knot_pkt_section(pkt, KNOT_ANSWER);

		for (uint16_t i = 0; i < an->count; i++) {
			const knot_rrset_t *rr = knot_pkt_rr(an, i);
			knot_rdata_t *rd = rr->rrs.rdata;

			if (rr->type != KNOT_RRTYPE_A && rr->type != KNOT_RRTYPE_AAAA)
				continue;
			/* an AAAA's address as its IPv4 twin: the site it names */
			for (uint16_t k = 0; k < rr->rrs.count; k++, rd = knot_rdataset_next(rd))
				if (r->naddr == CLOCKS_RESPONSE_ADDRS)
					break;
				else if (rr->type == KNOT_RRTYPE_A && rd->len == 4)
					memcpy(&r->addr[r->naddr++], rd->data, 4);
				else if (rr->type == KNOT_RRTYPE_AAAA && rd->len == 16 && in &&
					 clocks_twin_of(in, (const struct in6_addr *)rd->data,
							&r->addr[r->naddr]) == 0)
					r->naddr++;
		}
	}
	rc = 0;
out:
	knot_pkt_free(pkt);
	return rc;
}
