/* The UDP datagram or TCP segment of a captured frame; see ipframe.h. */
#include "ipframe.h"

#include <pcap/dlt.h>
#include <string.h>

#include "httpwire.h"
#include "wire.h"

#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_IPV6 0x86dd
#define ETHERTYPE_VLAN 0x8100
#define ETHERTYPE_QINQ 0x88a8

/* IPv6 next headers walked to the transport (RFC 8200, 4) */
#define IPFRAME_HOPOPTS 0
#define IPFRAME_ROUTING 43
#define IPFRAME_FRAGMENT 44
#define IPFRAME_DSTOPTS 60

static uint16_t ipframe_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* ipframe_link: the offset of the network header and its ethertype. */
static int ipframe_link(int dlt, const uint8_t *f, size_t caplen, size_t *off, uint16_t *type)
{
	switch (dlt) {
	case DLT_EN10MB:
		if (caplen < 14)
			return -1;
		*type = ipframe_be16(f + 12);
		*off = 14;
		for (int tags = 0; tags < 2 && (*type == ETHERTYPE_VLAN || *type == ETHERTYPE_QINQ);
		     tags++) {
			if (caplen < *off + 4)
				return -1;
			*type = ipframe_be16(f + *off + 2);
			*off += 4;
		}
		return 0;
	case DLT_LINUX_SLL:
		if (caplen < 16)
			return -1;
		*type = ipframe_be16(f + 14);
		*off = 16;
		return 0;
	case DLT_LINUX_SLL2:
		if (caplen < 20)
			return -1;
		*type = ipframe_be16(f);
		*off = 20;
		return 0;
	case DLT_RAW:
		/* either version: only the header's first nibble tells */
		if (caplen < 1)
			return -1;
		if (f[0] >> 4 == 4)
			*type = ETHERTYPE_IPV4;
		else if (f[0] >> 4 == 6)
			*type = ETHERTYPE_IPV6;
		else
			return -1;
		*off = 0;
		return 0;
	case DLT_IPV4:
		*type = ETHERTYPE_IPV4;
		*off = 0;
		return 0;
#ifdef DLT_IPV6
	case DLT_IPV6:
		*type = ETHERTYPE_IPV6;
		*off = 0;
		return 0;
#endif
	}
	return -1;
}

/* ipframe_udp: the datagram at l4 (avail bytes captured of the IP
 * datagram's l4len) into *u */
static int ipframe_udp(const uint8_t *l4, size_t avail, size_t l4len, struct ipframe *u)
{
	size_t ulen;

	if (l4len < 8 || avail < 8)
		return -1;
	ulen = ipframe_be16(l4 + 4);
	if (ulen < 8 || ulen > l4len)
		return -1;
	u->sport = ipframe_be16(l4);
	u->dport = ipframe_be16(l4 + 2);
	u->proto = IPFRAME_UDP;
	u->tcpflags = 0;
	u->ulen = ulen - 8;
	u->payload = l4 + 8;
	u->have = avail - 8;
	if (u->have > u->ulen)
		u->have = u->ulen;
	return 0;
}

/* ipframe_tcp: the segment at l4, as ipframe_udp */
static int ipframe_tcp(const uint8_t *l4, size_t avail, size_t l4len, struct ipframe *u)
{
	size_t doff;

	if (l4len < 20 || avail < 20)
		return -1;
	doff = (size_t)(l4[12] >> 4) * 4;
	if (doff < 20 || doff > l4len || doff > avail)
		return -1;
	u->sport = ipframe_be16(l4);
	u->dport = ipframe_be16(l4 + 2);
	u->proto = IPFRAME_TCP;
	u->tcpflags = l4[13];
	u->ulen = l4len - doff;
	u->payload = l4 + doff;
	u->have = avail - doff;
	return 0;
}

/* ipframe_ip4: the IPv4 header at ip (*avail bytes captured from it): its
 * transport's start (*l4), what was captured of the transport (*avail) and
 * what the datagram claims (*l4len); the protocol, or -1 */
static int ipframe_ip4(const uint8_t *ip, struct ipframe *u, const uint8_t **l4, size_t *avail,
		       size_t *l4len)
{
	size_t ihl, totlen;

	if (*avail < 20 || ip[0] >> 4 != 4)
		return -1;
	ihl = (size_t)(ip[0] & 0x0f) * 4;
	totlen = ipframe_be16(ip + 2);
	if (ihl < 20 || totlen < ihl)
		return -1;
	if (ipframe_be16(ip + 6) & 0x3fff) /* more fragments, or an offset */
		return -1;
	/* what was captured of the datagram; a frame may be padded past it */
	if (*avail > totlen)
		*avail = totlen;
	if (*avail < ihl)
		return -1;
	*avail -= ihl;
	*l4len = totlen - ihl;
	*l4 = ip + ihl;
	u->family = AF_INET;
	memcpy(&u->src, ip + 12, 4);
	memcpy(&u->dst, ip + 16, 4);
	memset(&u->src6, 0, sizeof(u->src6));
	memset(&u->dst6, 0, sizeof(u->dst6));
	return ip[9];
}

/* ipframe_ip6: the IPv6 header at ip and its extension headers, as
 * ipframe_ip4: the transport's protocol, or -1 */
static int ipframe_ip6(const uint8_t *ip, struct ipframe *u, const uint8_t **l4, size_t *avail,
		       size_t *l4len)
{
	size_t totlen, off = 40, hlen;
	uint8_t next;

	if (*avail < 40 || ip[0] >> 4 != 6)
		return -1;
	/* 0: a jumbogram (RFC 2675), whose length is in an option; never ours */
	if (ipframe_be16(ip + 4) == 0)
		return -1;
	totlen = 40 + (size_t)ipframe_be16(ip + 4);
	if (*avail > totlen)
		*avail = totlen;
	next = ip[6];
	for (int n = 0; next != IPFRAME_UDP && next != IPFRAME_TCP; n++) {
		if (n == IPFRAME_EXT_MAX)
			return -1;
		/* every extension header is at least 8 bytes, its next header
		 * first; each is read whole from what was captured */
		if (*avail < off + 8)
			return -1;
		switch (next) {
		case IPFRAME_HOPOPTS:
			/* only right after the fixed header (RFC 8200, 4.1) */
			if (n != 0)
				return -1;
			/* fall through */
		case IPFRAME_ROUTING:
		case IPFRAME_DSTOPTS:
			hlen = 8 * ((size_t)ip[off + 1] + 1);
			break;
		case IPFRAME_FRAGMENT:
			/* an offset or more fragments: a real fragment, not
			 * decoded as IPv4's are not; offset 0 without M is
			 * an atomic fragment (RFC 6946), the whole datagram */
			if (ipframe_be16(ip + off + 2) & 0xfff9)
				return -1;
			hlen = 8;
			break;
		default: /* ICMPv6, ESP, no next header ... */
			return -1;
		}
		if (off + hlen > *avail)
			return -1;
		next = ip[off];
		off += hlen;
	}
	*avail -= off;
	*l4len = totlen - off;
	*l4 = ip + off;
	u->family = AF_INET6;
	memset(&u->src, 0, sizeof(u->src));
	memset(&u->dst, 0, sizeof(u->dst));
	memcpy(&u->src6, ip + 8, 16);
	memcpy(&u->dst6, ip + 24, 16);
	return next;
}

/* ipframe_ip: the IPv4 or IPv6 header of frame: the transport's start
 * (*l4), the protocol, what was captured of the transport (*avail) and what
 * the datagram claims (*l4len) */
static int ipframe_ip(int dlt, const uint8_t *frame, size_t caplen, struct ipframe *u,
		      const uint8_t **l4, size_t *avail, size_t *l4len)
{
	size_t off;
	uint16_t type;

	if (frame == NULL || ipframe_link(dlt, frame, caplen, &off, &type) == -1 || caplen < off)
		return -1;
	*avail = caplen - off;
	switch (type) {
	case ETHERTYPE_IPV4:
		return ipframe_ip4(frame + off, u, l4, avail, l4len);
	case ETHERTYPE_IPV6:
		return ipframe_ip6(frame + off, u, l4, avail, l4len);
	}
	return -1;
}

int ipframe_decode(int dlt, const uint8_t *frame, size_t caplen, struct ipframe *u)
{
	const uint8_t *l4;
	size_t avail, l4len;

	if (ipframe_ip(dlt, frame, caplen, u, &l4, &avail, &l4len) != IPFRAME_UDP)
		return -1;
	return ipframe_udp(l4, avail, l4len, u);
}

int ipframe_decode_any(int dlt, const uint8_t *frame, size_t caplen, struct ipframe *u)
{
	const uint8_t *l4;
	size_t avail, l4len;

	switch (ipframe_ip(dlt, frame, caplen, u, &l4, &avail, &l4len)) {
	case IPFRAME_UDP:
		return ipframe_udp(l4, avail, l4len, u);
	case IPFRAME_TCP:
		return ipframe_tcp(l4, avail, l4len, u);
	}
	return -1;
}

/* the first bytes of a request as wire_encode writes them: magic, version
 * and type, what wire_decode checks of a request */
#define IPFRAME_REQUEST_HEAD 6
static uint8_t ipframe_request_head[IPFRAME_REQUEST_HEAD];

/* ipframe_http_request: an HTTP request (httpwire.h) at the segment's
 * start: its client id and sequence */
static int ipframe_http_request(const struct ipframe *u, uint32_t *client, uint64_t *seq)
{
	struct wire_msg m;

	if (u->proto != IPFRAME_TCP || u->have < sizeof(HTTPWIRE_METHOD) - 1 ||
	    memcmp(u->payload, HTTPWIRE_METHOD, sizeof(HTTPWIRE_METHOD) - 1) != 0 ||
	    httpwire_request_decode(u->payload, u->have, &m) == -1)
		return -1;
	*client = m.client_id;
	if (seq)
		*seq = m.seq;
	return 0;
}

int ipframe_request(int dlt, const uint8_t *frame, size_t caplen, uint16_t port, uint32_t *client,
		    uint64_t *seq, struct ipframe *u)
{
	struct ipframe got; /* u only on success */
	const uint8_t *m;

	if (ipframe_request_head[0] == 0) {
		struct wire_msg req = {.type = WIRE_REQUEST};
		uint8_t buf[WIRE_LEN];

		wire_encode(&req, buf, sizeof(buf));
		memcpy(ipframe_request_head, buf, IPFRAME_REQUEST_HEAD);
	}
	if (ipframe_decode_any(dlt, frame, caplen, &got) == -1 || (port != 0 && got.dport != port))
		return -1;
	if (got.ulen < WIRE_LEN || got.have < WIRE_LEN ||
	    memcmp(got.payload, ipframe_request_head, IPFRAME_REQUEST_HEAD) != 0) {
		if (ipframe_http_request(&got, client, seq) == -1)
			return -1;
	} else {
		m = got.payload;
		*client =
		    (uint32_t)m[8] << 24 | (uint32_t)m[9] << 16 | (uint32_t)m[10] << 8 | m[11];
		if (seq) {
			*seq = 0;
			for (int i = 16; i < 24; i++)
				*seq = *seq << 8 | m[i];
		}
	}
	if (u)
		*u = got;
	return 0;
}

int ipframe_message(int dlt, const uint8_t *frame, size_t caplen, struct ipframe *u,
		    struct wire_msg *msg)
{
	if (ipframe_decode_any(dlt, frame, caplen, u) == -1)
		return -1;
	if (u->have >= WIRE_LEN && wire_decode(u->payload, u->have, msg) == 0)
		return IPFRAME_MSG_BINARY;
	if (u->proto != IPFRAME_TCP)
		return -1;
	if (httpwire_request_decode(u->payload, u->have, msg) == 0 ||
	    httpwire_reply_decode(u->payload, u->have, msg) == 0)
		return IPFRAME_MSG_HTTP;
	return -1;
}
