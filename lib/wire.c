/* Encoding and decoding of the request wire format; see wire.h. */
#include "wire.h"

#include <string.h>

static const uint8_t wire_magic[4] = {'S', 'L', 'R', 'Q'};

static void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	for (int i = 3; i >= 0; i--, v >>= 8)
		p[i] = v;
}

static void put_be64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = v;
}

static uint64_t get_be(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

int wire_encode(const struct wire_msg *msg, uint8_t *buf, size_t len)
{
	size_t sitelen = strnlen(msg->site, sizeof(msg->site));

	if (len < WIRE_LEN || sitelen > WIRE_SITE_LEN)
		return -1;
	memset(buf, 0, WIRE_LEN);
	memcpy(buf, wire_magic, 4);
	buf[4] = WIRE_VERSION;
	buf[5] = msg->type;
	put_be16(buf + 6, msg->flags);
	put_be32(buf + 8, msg->client_id);
	put_be64(buf + 16, msg->seq);
	put_be64(buf + 24, msg->sent_ns);
	memcpy(buf + 32, msg->site, sitelen);
	return WIRE_LEN;
}

int wire_decode(const uint8_t *buf, size_t len, struct wire_msg *msg)
{
	if (len < WIRE_LEN || memcmp(buf, wire_magic, 4) != 0 || buf[4] != WIRE_VERSION)
		return -1;
	if (buf[5] != WIRE_REQUEST && buf[5] != WIRE_REPLY)
		return -1;
	memset(msg, 0, sizeof(*msg));
	msg->type = buf[5];
	msg->flags = get_be(buf + 6, 2);
	msg->client_id = get_be(buf + 8, 4);
	msg->seq = get_be(buf + 16, 8);
	msg->sent_ns = get_be(buf + 24, 8);
	memcpy(msg->site, buf + 32, WIRE_SITE_LEN);
	msg->site[WIRE_SITE_LEN] = '\0';
	return 0;
}
