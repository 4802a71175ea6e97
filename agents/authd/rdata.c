/* Record data from configuration text; see rdata.h. */
#include "rdata.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "strtonum.h"
#include "timeutil.h"

int authd_name_parse(const char *text, const knot_dname_t *origin, knot_dname_t *out)
{
	char buf[KNOT_DNAME_TXT_MAXLEN + 2];
	uint8_t abs[KNOT_DNAME_MAXLEN];
	size_t n = strlen(text), olen;
	char *txt;

	if (n == 0 || n > KNOT_DNAME_TXT_MAXLEN)
		return -1;
	if (strcmp(text, "@") == 0) {
		if (origin == NULL)
			return -1;
		memcpy(out, origin, knot_dname_size(origin));
		return 0;
	}
	if (text[n - 1] == '.' || origin == NULL) {
		if (knot_dname_from_str(out, text, KNOT_DNAME_MAXLEN) == NULL)
			return -1;
		knot_dname_to_lower(out);
		return 0;
	}
	/* "x.zone" without the dot is absolute; "x" is relative */
	snprintf(buf, sizeof(buf), "%s.", text);
	if (knot_dname_from_str(abs, buf, sizeof(abs)) == NULL)
		return -1;
	knot_dname_to_lower(abs);
	if (knot_dname_in_bailiwick(abs, origin) >= 0) {
		memcpy(out, abs, knot_dname_size(abs));
		return 0;
	}
	txt = knot_dname_to_str(NULL, origin, 0);
	if (txt == NULL)
		return -1;
	olen = strlen(txt);
	if (n + 1 + olen + 1 > sizeof(buf)) {
		free(txt);
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s.%s", text, strcmp(txt, ".") == 0 ? "" : txt);
	free(txt);
	if (knot_dname_from_str(out, buf, KNOT_DNAME_MAXLEN) == NULL)
		return -1;
	knot_dname_to_lower(out);
	return 0;
}

static const struct {
	const char *name;
	uint16_t type;
} authd_types[] = {
    {"A", KNOT_RRTYPE_A},     {"AAAA", KNOT_RRTYPE_AAAA}, {"CNAME", KNOT_RRTYPE_CNAME},
    {"NS", KNOT_RRTYPE_NS},   {"PTR", KNOT_RRTYPE_PTR},	  {"MX", KNOT_RRTYPE_MX},
    {"SRV", KNOT_RRTYPE_SRV}, {"TXT", KNOT_RRTYPE_TXT},	  {"SOA", KNOT_RRTYPE_SOA},
};

int authd_type_parse(const char *s, uint16_t *type)
{
	for (size_t i = 0; i < sizeof(authd_types) / sizeof(authd_types[0]); i++)
		if (strcasecmp(s, authd_types[i].name) == 0) {
			*type = authd_types[i].type;
			return 0;
		}
	return -1;
}

/* the words of an rdata text, for the types made of plain words */
#define AUTHD_RDATA_WORDS 8

static int authd_words(const char *text, char words[][KNOT_DNAME_TXT_MAXLEN + 2], int max)
{
	int n = 0;
	const char *p = text;

	for (;;) {
		size_t len;

		p += strspn(p, " \t");
		if (*p == '\0')
			return n;
		len = strcspn(p, " \t");
		if (n == max || len > KNOT_DNAME_TXT_MAXLEN)
			return -1;
		memcpy(words[n], p, len);
		words[n][len] = '\0';
		n++;
		p += len;
	}
}

static int authd_u16(const char *s, uint16_t *v)
{
	const char *errstr;
	long long x = strtonum(s, 0, 65535, &errstr);

	if (errstr)
		return -1;
	*v = (uint16_t)x;
	return 0;
}

/* authd_put_name: a name at buf + *off. 0 or -1. */
static int authd_put_name(const char *text, const knot_dname_t *origin, uint8_t *buf, size_t len,
			  size_t *off)
{
	uint8_t name[KNOT_DNAME_MAXLEN];
	size_t n;

	if (authd_name_parse(text, origin, name) == -1)
		return -1;
	n = knot_dname_size(name);
	if (*off + n > len)
		return -1;
	memcpy(buf + *off, name, n);
	*off += n;
	return 0;
}

/* authd_txt: character-strings: "quoted" (with \" \\ \DDD) or bare words,
 * each at most 255 bytes. */
static int authd_txt(const char *p, uint8_t *buf, size_t len, char *why, size_t whylen)
{
	size_t off = 0;

	for (;;) {
		size_t lenpos, n = 0;

		p += strspn(p, " \t");
		if (*p == '\0')
			break;
		if (off + 1 > len)
			goto long_rdata;
		lenpos = off++;
		if (*p == '"') {
			for (p++; *p && *p != '"'; n++) {
				uint8_t ch = (uint8_t)*p++;

				if (ch == '\\') {
					if (isdigit((unsigned char)p[0]) &&
					    isdigit((unsigned char)p[1]) &&
					    isdigit((unsigned char)p[2])) {
						int v = (p[0] - '0') * 100 + (p[1] - '0') * 10 +
							(p[2] - '0');

						if (v > 255) {
							snprintf(why, whylen, "bad escape \\%.3s",
								 p);
							return -1;
						}
						ch = (uint8_t)v;
						p += 3;
					} else if (*p) {
						ch = (uint8_t)*p++;
					} else {
						break;
					}
				}
				if (n == 255) {
					snprintf(why, whylen,
						 "a TXT string is at most 255 bytes: split it into "
						 "several \"...\" strings");
					return -1;
				}
				if (off + 1 > len)
					goto long_rdata;
				buf[off++] = ch;
			}
			if (*p != '"') {
				snprintf(why, whylen, "unterminated \"string\"");
				return -1;
			}
			p++;
			if (*p && *p != ' ' && *p != '\t') {
				snprintf(why, whylen, "expected a space after a \"string\"");
				return -1;
			}
		} else {
			for (; *p && *p != ' ' && *p != '\t'; n++) {
				if (n == 255) {
					snprintf(why, whylen, "a TXT string is at most 255 bytes");
					return -1;
				}
				if (off + 1 > len)
					goto long_rdata;
				buf[off++] = (uint8_t)*p++;
			}
		}
		buf[lenpos] = (uint8_t)n;
	}
	if (off == 0) {
		snprintf(why, whylen, "expected one or more \"strings\"");
		return -1;
	}
	return (int)off;
long_rdata:
	snprintf(why, whylen, "record data too long");
	return -1;
}

int authd_rdata_parse(uint16_t type, const char *text, const knot_dname_t *origin, uint8_t *buf,
		      size_t len, char *why, size_t whylen)
{
	char w[AUTHD_RDATA_WORDS][KNOT_DNAME_TXT_MAXLEN + 2];
	size_t off = 0;
	uint16_t v16;
	uint32_t v32;
	int n;

	if (type == KNOT_RRTYPE_TXT)
		return authd_txt(text, buf, len, why, whylen);
	n = authd_words(text, w, AUTHD_RDATA_WORDS);
	switch (type) {
	case KNOT_RRTYPE_A:
		if (n != 1 || len < 4 || inet_pton(AF_INET, w[0], buf) != 1)
			goto bad;
		return 4;
	case KNOT_RRTYPE_AAAA:
		if (n != 1 || len < 16 || inet_pton(AF_INET6, w[0], buf) != 1)
			goto bad;
		return 16;
	case KNOT_RRTYPE_CNAME:
	case KNOT_RRTYPE_NS:
	case KNOT_RRTYPE_PTR:
		if (n != 1 || authd_put_name(w[0], origin, buf, len, &off) == -1)
			goto bad;
		return (int)off;
	case KNOT_RRTYPE_MX:
		if (n != 2 || authd_u16(w[0], &v16) == -1 || len < 2)
			goto bad;
		knot_wire_write_u16(buf, v16);
		off = 2;
		if (authd_put_name(w[1], origin, buf, len, &off) == -1)
			goto bad;
		return (int)off;
	case KNOT_RRTYPE_SRV:
		if (n != 4 || len < 6)
			goto bad;
		for (int i = 0; i < 3; i++) {
			if (authd_u16(w[i], &v16) == -1)
				goto bad;
			knot_wire_write_u16(buf + 2 * i, v16);
		}
		off = 6;
		if (authd_put_name(w[3], origin, buf, len, &off) == -1)
			goto bad;
		return (int)off;
	case KNOT_RRTYPE_SOA:
		if (n != 7 || authd_put_name(w[0], origin, buf, len, &off) == -1 ||
		    authd_put_name(w[1], origin, buf, len, &off) == -1 || off + 20 > len)
			goto bad;
		for (int i = 2; i < 7; i++) {
			if (i == 2) {
				const char *errstr;

				v32 = (uint32_t)strtonum(w[i], 0, UINT32_MAX, &errstr);
				if (errstr)
					goto bad;
			} else if (parse_ttl(w[i], &v32) == -1) {
				goto bad;
			}
			knot_wire_write_u32(buf + off, v32);
			off += 4;
		}
		return (int)off;
	default:
		snprintf(why, whylen, "unsupported type");
		return -1;
	}
bad:
	switch (type) {
	case KNOT_RRTYPE_A:
		snprintf(why, whylen, "expected an IPv4 address, got '%s'", text);
		break;
	case KNOT_RRTYPE_AAAA:
		snprintf(why, whylen, "expected an IPv6 address, got '%s'", text);
		break;
	case KNOT_RRTYPE_MX:
		snprintf(why, whylen, "expected PREFERENCE NAME, got '%s'", text);
		break;
	case KNOT_RRTYPE_SRV:
		snprintf(why, whylen, "expected PRIORITY WEIGHT PORT TARGET, got '%s'", text);
		break;
	case KNOT_RRTYPE_SOA:
		snprintf(why, whylen,
			 "expected MNAME RNAME SERIAL REFRESH RETRY EXPIRE MINIMUM, got '%s'",
			 text);
		break;
	default:
		snprintf(why, whylen, "expected one domain name, got '%s'", text);
		break;
	}
	return -1;
}
