/* The UDP datagram of a captured frame; see udpframe.h. */
#include "udpframe.h"

#include <pcap/dlt.h>
#include <string.h>

#include "wire.h"

#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_VLAN 0x8100
#define ETHERTYPE_QINQ 0x88a8

static uint16_t udpframe_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* udpframe_link: the offset of the network header and its ethertype. */
static int udpframe_link(int dlt, const uint8_t *f, size_t caplen, size_t *off, uint16_t *type)
{
	switch (dlt) {
	case DLT_EN10MB:
		if (caplen < 14)
			return -1;
		*type = udpframe_be16(f + 12);
		*off = 14;
		for (int tags = 0; tags < 2 && (*type == ETHERTYPE_VLAN || *type == ETHERTYPE_QINQ);
		     tags++) {
			if (caplen < *off + 4)
				return -1;
			*type = udpframe_be16(f + *off + 2);
			*off += 4;
		}
		return 0;
	case DLT_LINUX_SLL:
		if (caplen < 16)
			return -1;
		*type = udpframe_be16(f + 14);
		*off = 16;
		return 0;
	case DLT_LINUX_SLL2:
		if (caplen < 20)
			return -1;
		*type = udpframe_be16(f);
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

int udpframe_decode(int dlt, const uint8_t *frame, size_t caplen, struct udpframe *u)
{
	const uint8_t *ip, *udp;
	size_t off, avail, ihl, totlen, ulen;
	uint16_t type;

	if (frame == NULL || udpframe_link(dlt, frame, caplen, &off, &type) == -1 ||
	    type != ETHERTYPE_IPV4 || caplen < off)
		return -1;
	ip = frame + off;
	avail = caplen - off;
	if (avail < 20 || ip[0] >> 4 != 4)
		return -1;
	ihl = (size_t)(ip[0] & 0x0f) * 4;
	totlen = udpframe_be16(ip + 2);
	if (ihl < 20 || totlen < ihl + 8 || ip[9] != 17 /* UDP */)
		return -1;
	if (udpframe_be16(ip + 6) & 0x3fff) /* more fragments, or an offset */
		return -1;
	/* what was captured of the datagram; a frame may be padded past it */
	if (avail > totlen)
		avail = totlen;
	if (avail < ihl + 8)
		return -1;
	udp = ip + ihl;
	ulen = udpframe_be16(udp + 4);
	if (ulen < 8 || ulen > totlen - ihl)
		return -1;
	memcpy(&u->src, ip + 12, 4);
	memcpy(&u->dst, ip + 16, 4);
	u->sport = udpframe_be16(udp);
	u->dport = udpframe_be16(udp + 2);
	u->ulen = ulen - 8;
	u->payload = udp + 8;
	u->have = avail - ihl - 8;
	if (u->have > u->ulen)
		u->have = u->ulen;
	return 0;
}

/* the first bytes of a request as wire_encode writes them: magic, version
 * and type, what wire_decode checks of a request */
#define UDPFRAME_REQUEST_HEAD 6
static uint8_t udpframe_request_head[UDPFRAME_REQUEST_HEAD];

int udpframe_request(int dlt, const uint8_t *frame, size_t caplen, uint16_t port, uint32_t *client,
		     uint64_t *seq, struct in_addr *dst)
{
	struct udpframe u;
	const uint8_t *m;

	if (udpframe_request_head[0] == 0) {
		struct wire_msg req = {.type = WIRE_REQUEST};
		uint8_t buf[WIRE_LEN];

		wire_encode(&req, buf, sizeof(buf));
		memcpy(udpframe_request_head, buf, UDPFRAME_REQUEST_HEAD);
	}
	if (udpframe_decode(dlt, frame, caplen, &u) == -1 || (port != 0 && u.dport != port) ||
	    u.ulen < WIRE_LEN || u.have < WIRE_LEN ||
	    memcmp(u.payload, udpframe_request_head, UDPFRAME_REQUEST_HEAD) != 0)
		return -1;
	m = u.payload;
	*client = (uint32_t)m[8] << 24 | (uint32_t)m[9] << 16 | (uint32_t)m[10] << 8 | m[11];
	if (seq) {
		*seq = 0;
		for (int i = 16; i < 24; i++)
			*seq = *seq << 8 | m[i];
	}
	if (dst)
		*dst = u.dst;
	return 0;
}
