/* The UDP datagram or TCP segment of a captured frame; see ipframe.h. */
#include "ipframe.h"

#include <pcap/dlt.h>
#include <string.h>

#include "httpwire.h"
#include "wire.h"

#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_VLAN 0x8100
#define ETHERTYPE_QINQ 0x88a8

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
	case DLT_IPV4:
		*type = ETHERTYPE_IPV4;
		*off = 0;
		return 0;
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

/* ipframe_ip: the IPv4 header of frame: its transport's offset into the
 * frame, the protocol, what was captured of the transport (*avail) and
 * what the datagram claims (*l4len) */
static int ipframe_ip(int dlt, const uint8_t *frame, size_t caplen, struct ipframe *u,
		      const uint8_t **l4, size_t *avail, size_t *l4len)
{
	const uint8_t *ip;
	size_t off, ihl, totlen;
	uint16_t type;

	if (frame == NULL || ipframe_link(dlt, frame, caplen, &off, &type) == -1 ||
	    type != ETHERTYPE_IPV4 || caplen < off)
		return -1;
	ip = frame + off;
	*avail = caplen - off;
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
	memcpy(&u->src, ip + 12, 4);
	memcpy(&u->dst, ip + 16, 4);
	return ip[9];
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
		    uint64_t *seq, struct in_addr *dst)
{
	struct ipframe u;
	const uint8_t *m;

	if (ipframe_request_head[0] == 0) {
		struct wire_msg req = {.type = WIRE_REQUEST};
		uint8_t buf[WIRE_LEN];

		wire_encode(&req, buf, sizeof(buf));
		memcpy(ipframe_request_head, buf, IPFRAME_REQUEST_HEAD);
	}
	if (ipframe_decode_any(dlt, frame, caplen, &u) == -1 || (port != 0 && u.dport != port))
		return -1;
	if (u.ulen < WIRE_LEN || u.have < WIRE_LEN ||
	    memcmp(u.payload, ipframe_request_head, IPFRAME_REQUEST_HEAD) != 0) {
		if (ipframe_http_request(&u, client, seq) == -1)
			return -1;
	} else {
		m = u.payload;
		*client =
		    (uint32_t)m[8] << 24 | (uint32_t)m[9] << 16 | (uint32_t)m[10] << 8 | m[11];
		if (seq) {
			*seq = 0;
			for (int i = 16; i < 24; i++)
				*seq = *seq << 8 | m[i];
		}
	}
	if (dst)
		*dst = u.dst;
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
