/* Binary request records; see recbin.h. */
#include "recbin.h"

#include <stdio.h>
#include <string.h>

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v = 0;

	for (int i = 3; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

void recbin_header(uint8_t buf[RECBIN_HDR_LEN])
{
	memset(buf, 0, RECBIN_HDR_LEN);
	memcpy(buf, RECBIN_MAGIC, 4);
	put16(buf + 4, RECBIN_VERSION);
	put16(buf + 6, RECBIN_LEN);
}

int recbin_check_header(const uint8_t *buf, size_t len, char *why, size_t whylen)
{
	if (len < RECBIN_HDR_LEN || memcmp(buf, RECBIN_MAGIC, 4) != 0) {
		snprintf(why, whylen, "not a binary record file (expected the magic %s)",
			 RECBIN_MAGIC);
		return -1;
	}
	if (get16(buf + 4) != RECBIN_VERSION || get16(buf + 6) != RECBIN_LEN) {
		snprintf(why, whylen,
			 "version %u with records of %u bytes; expected version %d, %d bytes",
			 get16(buf + 4), get16(buf + 6), RECBIN_VERSION, RECBIN_LEN);
		return -1;
	}
	return 0;
}

void recbin_encode(const struct recbin_rec *r, uint8_t buf[RECBIN_LEN])
{
	memset(buf, 0, RECBIN_LEN);
	put32(buf, r->client);
	buf[4] = r->kind;
	buf[5] = r->site;
	if (r->kind == RECBIN_SITE) {
		memcpy(buf + 8, r->name, strnlen(r->name, WIRE_SITE_LEN));
		return;
	}
	put64(buf + 8, r->seq);
	put64(buf + 16, (uint64_t)r->sent_ns);
	put64(buf + 24, (uint64_t)r->rtt_ns);
}

int recbin_decode(const uint8_t buf[RECBIN_LEN], struct recbin_rec *r)
{
	memset(r, 0, sizeof(*r));
	r->client = get32(buf);
	r->kind = buf[4];
	r->site = buf[5];
	switch (r->kind) {
	case RECBIN_SITE:
		memcpy(r->name, buf + 8, WIRE_SITE_LEN);
		r->name[WIRE_SITE_LEN] = '\0';
		return r->name[0] == '\0' ? -1 : 0;
	case RECBIN_OK:
	case RECBIN_TIMEOUT:
	case RECBIN_ERROR:
		r->seq = get64(buf + 8);
		r->sent_ns = (int64_t)get64(buf + 16);
		r->rtt_ns = (int64_t)get64(buf + 24);
		return 0;
	default:
		return -1;
	}
}
