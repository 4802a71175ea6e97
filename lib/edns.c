/* EDNS payload sizes below 512 raised to 512; see edns.h. */
#include "edns.h"

#define EDNS_HEADER 12
#define EDNS_RR_FIXED 10 /* TYPE, CLASS, TTL, RDLENGTH */
#define EDNS_TYPE_OPT 41

static unsigned edns_u16(const uint8_t *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

/* edns_skip_name: *off past the name there. 0, or -1 if it runs past len
 * or has a label type other than a length or a pointer. A pointer is not
 * followed: the name ends with it. */
static int edns_skip_name(const uint8_t *wire, size_t len, size_t *off)
{
	size_t o = *off;

	for (;;) {
		uint8_t b;

		if (o >= len)
			return -1;
		b = wire[o];
		if ((b & 0xc0) == 0xc0) {
			if (len - o < 2)
				return -1;
			*off = o + 2;
			return 0;
		}
		if (b & 0xc0)
			return -1;
		o += 1 + (size_t)b;
		if (b == 0) {
			*off = o;
			return 0;
		}
	}
}

int edns_payload_floor(uint8_t *wire, size_t len)
{
	unsigned qd, an, ns, ar;
	size_t off = EDNS_HEADER;
	int changed = 0;

	if (len < EDNS_HEADER)
		return -1;
	qd = edns_u16(wire + 4);
	an = edns_u16(wire + 6);
	ns = edns_u16(wire + 8);
	ar = edns_u16(wire + 10);
	for (unsigned i = 0; i < qd; i++) {
		if (edns_skip_name(wire, len, &off) == -1 || len - off < 4)
			return -1;
		off += 4;
	}
	for (unsigned i = 0; i < an + ns + ar; i++) {
		size_t rdlen;

		if (edns_skip_name(wire, len, &off) == -1 || len - off < EDNS_RR_FIXED)
			return -1;
		rdlen = edns_u16(wire + off + 8);
		if (i >= an + ns && edns_u16(wire + off) == EDNS_TYPE_OPT &&
		    edns_u16(wire + off + 2) < EDNS_PAYLOAD_MIN) {
			wire[off + 2] = EDNS_PAYLOAD_MIN >> 8;
			wire[off + 3] = EDNS_PAYLOAD_MIN & 0xff;
			changed++;
		}
		off += EDNS_RR_FIXED;
		if (len - off < rdlen)
			return -1;
		off += rdlen;
	}
	return changed;
}
