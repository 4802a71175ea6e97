/* The lab's request and reply as HTTP/1.1; see httpwire.h. */
#include "httpwire.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define HTTPWIRE_LIT(s) s, sizeof(s) - 1

/* httpwire_number: the decimal number at p[*off .. len) (digits only, no
 * leading zero but "0", at most max) into *v, *off past it: 0 or -1 */
static int httpwire_number(const char *p, size_t len, size_t *off, uint64_t max, uint64_t *v)
{
	size_t i = *off;
	uint64_t n = 0;

	if (i >= len || p[i] < '0' || p[i] > '9')
		return -1;
	if (p[i] == '0' && i + 1 < len && p[i + 1] >= '0' && p[i + 1] <= '9')
		return -1;
	for (; i < len && p[i] >= '0' && p[i] <= '9'; i++) {
		unsigned d = (unsigned)(p[i] - '0');

		if (n > (max - d) / 10)
			return -1;
		n = n * 10 + d;
	}
	*off = i;
	*v = n;
	return 0;
}

int httpwire_path(const struct wire_msg *m, char *buf, size_t len)
{
	int n = snprintf(buf, len, HTTPWIRE_PREFIX "%" PRIu32 "/%" PRIu64 "/%" PRIu64, m->client_id,
			 m->seq, m->sent_ns);

	return n < 0 || (size_t)n >= len ? -1 : n;
}

/* httpwire_path_at: the target at p[0 .. len) into *m, *end past its
 * last digit */
static int httpwire_path_at(const char *p, size_t len, struct wire_msg *m, size_t *end)
{
	size_t off = sizeof(HTTPWIRE_PREFIX) - 1;
	uint64_t client, seq, sent;

	if (len < off || memcmp(p, HTTPWIRE_PREFIX, off) != 0 ||
	    httpwire_number(p, len, &off, UINT32_MAX, &client) == -1 || off >= len ||
	    p[off++] != '/' || httpwire_number(p, len, &off, UINT64_MAX, &seq) == -1 ||
	    off >= len || p[off++] != '/' || httpwire_number(p, len, &off, UINT64_MAX, &sent) == -1)
		return -1;
	memset(m, 0, sizeof(*m));
	m->type = WIRE_REQUEST;
	m->client_id = (uint32_t)client;
	m->seq = seq;
	m->sent_ns = sent;
	*end = off;
	return 0;
}

int httpwire_path_decode(const char *target, size_t len, struct wire_msg *m)
{
	size_t end;

	if (httpwire_path_at(target, len, m, &end) == -1 || end != len)
		return -1;
	return 0;
}

int httpwire_request_decode(const uint8_t *p, size_t have, struct wire_msg *m)
{
	const size_t mlen = sizeof(HTTPWIRE_METHOD) - 1;
	size_t end;

	if (have < mlen || memcmp(p, HTTPWIRE_METHOD, mlen) != 0 ||
	    httpwire_path_at((const char *)p + mlen, have - mlen, m, &end) == -1 ||
	    mlen + end >= have || p[mlen + end] != ' ')
		return -1;
	return 0;
}

int httpwire_value(const struct wire_msg *m, char *buf, size_t len)
{
	size_t sitelen = strnlen(m->site, sizeof(m->site));
	int n;

	if (sitelen == 0 || sitelen > WIRE_SITE_LEN)
		return -1;
	n = snprintf(buf, len,
		     "site=%s client=%" PRIu32 " seq=%" PRIu64 " sent=%" PRIu64 " flags=%u",
		     m->site, m->client_id, m->seq, m->sent_ns, (unsigned)m->flags);
	return n < 0 || (size_t)n >= len ? -1 : n;
}

/* the value's fields, by the bit each sets once seen */
enum {
	HTTPWIRE_F_SITE = 1,
	HTTPWIRE_F_CLIENT = 2,
	HTTPWIRE_F_SEQ = 4,
	HTTPWIRE_F_SENT = 8,
	HTTPWIRE_F_FLAGS = 16,
	HTTPWIRE_F_ALL = 31,
};

static const struct {
	const char *key;
	size_t keylen;
	int bit;
	uint64_t max;
} httpwire_keys[] = {
    {HTTPWIRE_LIT("site="), HTTPWIRE_F_SITE, 0},
    {HTTPWIRE_LIT("client="), HTTPWIRE_F_CLIENT, UINT32_MAX},
    {HTTPWIRE_LIT("seq="), HTTPWIRE_F_SEQ, UINT64_MAX},
    {HTTPWIRE_LIT("sent="), HTTPWIRE_F_SENT, UINT64_MAX},
    {HTTPWIRE_LIT("flags="), HTTPWIRE_F_FLAGS, UINT16_MAX},
};

/* httpwire_site_char: what lib/opt.h's site names are made of */
static int httpwire_site_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == '-';
}

/* httpwire_field: the field at v[*off ..) into *m, *off past it, its bit
 * into *seen: 0, or -1 (unknown, repeated, malformed) */
static int httpwire_field(const char *v, size_t len, size_t *off, struct wire_msg *m, int *seen)
{
	for (size_t k = 0; k < sizeof(httpwire_keys) / sizeof(httpwire_keys[0]); k++) {
		size_t i = *off, start;
		uint64_t n;

		if (len - i < httpwire_keys[k].keylen ||
		    memcmp(v + i, httpwire_keys[k].key, httpwire_keys[k].keylen) != 0)
			continue;
		if (*seen & httpwire_keys[k].bit)
			return -1;
		*seen |= httpwire_keys[k].bit;
		i += httpwire_keys[k].keylen;
		if (httpwire_keys[k].bit == HTTPWIRE_F_SITE) {
			for (start = i; i < len && httpwire_site_char(v[i]); i++)
				;
			if (i == start || i - start > WIRE_SITE_LEN)
				return -1;
			memcpy(m->site, v + start, i - start);
			m->site[i - start] = '\0';
			*off = i;
			return 0;
		}
		if (httpwire_number(v, len, &i, httpwire_keys[k].max, &n) == -1)
			return -1;
		switch (httpwire_keys[k].bit) {
		case HTTPWIRE_F_CLIENT:
			m->client_id = (uint32_t)n;
			break;
		case HTTPWIRE_F_SEQ:
			m->seq = n;
			break;
		case HTTPWIRE_F_SENT:
			m->sent_ns = n;
			break;
		default:
			m->flags = (uint16_t)n;
		}
		*off = i;
		return 0;
	}
	return -1;
}

int httpwire_value_decode(const char *v, size_t len, struct wire_msg *m)
{
	size_t off = 0;
	int seen = 0;

	memset(m, 0, sizeof(*m));
	while (len > 0 && (v[len - 1] == ' ' || v[len - 1] == '\t'))
		len--;
	while (off < len && (v[off] == ' ' || v[off] == '\t'))
		off++;
	while (off < len) {
		if (httpwire_field(v, len, &off, m, &seen) == -1)
			return -1;
		if (off < len && v[off++] != ' ')
			return -1;
	}
	if (seen != HTTPWIRE_F_ALL)
		return -1;
	m->type = WIRE_REPLY;
	return 0;
}

int httpwire_status(const uint8_t *p, size_t have)
{
	const char *s = (const char *)p;
	size_t off = sizeof("HTTP/1.x ") - 1;
	uint64_t code;

	if (have < off + 3 || memcmp(s, "HTTP/1.", 7) != 0 || (s[7] != '0' && s[7] != '1') ||
	    s[8] != ' ' || httpwire_number(s, off + 3, &off, 999, &code) == -1 ||
	    off != sizeof("HTTP/1.x NNN") - 1 || (off < have && s[off] != ' ' && s[off] != '\r'))
		return -1;
	return (int)code;
}

long httpwire_response_len(const uint8_t *p, size_t have)
{
	static const char cl[] = "\r\ncontent-length:";
	const char *s = (const char *)p, *end;
	size_t head;
	uint64_t body = 0;

	if (httpwire_status(p, have) == -1)
		return have < sizeof("HTTP/1.x NNN") - 1 ? 0 : -1;
	if ((end = memmem(s, have, "\r\n\r\n", 4)) == NULL)
		return 0;
	head = (size_t)(end - s) + 4;
	for (size_t i = 0; i + sizeof(cl) - 1 < head; i++) {
		size_t off;

		if (strncasecmp(s + i, cl, sizeof(cl) - 1) != 0)
			continue;
		off = i + sizeof(cl) - 1;
		while (off < head && (s[off] == ' ' || s[off] == '\t'))
			off++;
		if (httpwire_number(s, head, &off, HTTPWIRE_BODY_MAX, &body) == -1)
			return -1;
		break;
	}
	return head + body <= have ? (long)(head + body) : 0;
}

/* httpwire_header_is: whether line[0 .. len) is HTTPWIRE_HEADER's, the
 * offset of its value into *value (names are case-insensitive, RFC 9110) */
static int httpwire_header_is(const char *line, size_t len, size_t *value)
{
	const size_t n = sizeof(HTTPWIRE_HEADER) - 1;

	if (len <= n || line[n] != ':' || strncasecmp(line, HTTPWIRE_HEADER, n) != 0)
		return 0;
	*value = n + 1;
	return 1;
}

int httpwire_reply_decode(const uint8_t *p, size_t have, struct wire_msg *m)
{
	const char *s = (const char *)p;
	size_t off;

	if (httpwire_status(p, have) != HTTPWIRE_OK)
		return -1;
	for (off = 0; off < have && s[off] != '\n'; off++)
		;
	/* each header line whole, up to the blank line; a line cut by the
	 * capture is not read */
	while (++off < have) {
		const char *nl = memchr(s + off, '\n', have - off);
		size_t len, value;

		if (nl == NULL)
			return -1;
		len = (size_t)(nl - (s + off));
		if (len > 0 && s[off + len - 1] == '\r')
			len--;
		if (len == 0)
			return -1;
		if (httpwire_header_is(s + off, len, &value))
			return httpwire_value_decode(s + off + value, len - value, m);
		off += (size_t)(nl - (s + off));
	}
	return -1;
}
