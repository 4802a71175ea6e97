/* The CHANGE line and its reply; see zone_change.h. */
#include "zone_change.h"

#include <stdio.h>
#include <string.h>

#include "strfmt.h"
#include "strtonum.h"

static const char *const zone_change_ops[ZONE_NOPS] = {"set-ttl", "set-weight", "add-record",
						       "remove-record"};

const char *zone_change_op_name(int op)
{
	return op >= 0 && op < ZONE_NOPS ? zone_change_ops[op] : "?";
}

int zone_change_op_find(const char *name)
{
	for (int i = 0; i < ZONE_NOPS; i++)
		if (strcmp(name, zone_change_ops[i]) == 0)
			return i;
	return -1;
}

/* zone_line: [line, *end) without its '\n' (and '\r'); -1 if a NUL or a
 * line break is inside */
static int zone_line(const char *line, size_t len, const char **end)
{
	const char *e = line + len;

	if (len > 0 && e[-1] == '\n')
		e--;
	if (e > line && e[-1] == '\r')
		e--;
	if (memchr(line, '\0', (size_t)(e - line)) || memchr(line, '\n', (size_t)(e - line)))
		return -1;
	*end = e;
	return 0;
}

int zone_change_is(const char *line, size_t len)
{
	return len >= 7 && memcmp(line, "CHANGE", 6) == 0 && (line[6] == ' ' || line[6] == '\t');
}

/* zone_number: a whole number from 0 to max, digits only. 0 or -1. */
static int zone_number(const char *s, uint32_t max, uint32_t *out)
{
	const char *errstr;
	long long v;

	if (s[0] < '0' || s[0] > '9' || strspn(s, "0123456789") != strlen(s))
		return -1;
	v = strtonum(s, 0, max, &errstr);
	if (errstr)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* zone_name_ok: a domain name as written: 1 to ZONE_CHANGE_NAME_LEN
 * printable characters, no space */
static int zone_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > ZONE_CHANGE_NAME_LEN)
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] <= ' ' || (unsigned char)s[i] >= 0x7f)
			return 0;
	return 1;
}

/* zone_record_ok: a record's text: 1 to ZONE_CHANGE_RECORD_LEN printable
 * characters, not starting or ending with a space */
static int zone_record_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > ZONE_CHANGE_RECORD_LEN || s[0] == ' ' || s[n - 1] == ' ')
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < ' ' || (unsigned char)s[i] >= 0x7f)
			return 0;
	return 1;
}

int zone_change_format(const struct zone_change *c, char *buf, size_t len)
{
	int n;

	if (!health_id_ok(c->id, ZONE_CHANGE_ID_LEN) || !zone_name_ok(c->name))
		return -1;
	switch (c->op) {
	case ZONE_SET_TTL:
		if (c->value > ZONE_CHANGE_TTL_MAX)
			return -1;
		n = snprintf(buf, len, "CHANGE %s set-ttl %s %u\n", c->id, c->name, c->value);
		break;
	case ZONE_SET_WEIGHT:
		if (c->value > ZONE_CHANGE_WEIGHT_MAX || !health_id_ok(c->site, HEALTH_SITE_LEN))
			return -1;
		n = snprintf(buf, len, "CHANGE %s set-weight %s %s %u\n", c->id, c->name, c->site,
			     c->value);
		break;
	case ZONE_ADD_RECORD:
	case ZONE_REMOVE_RECORD:
		if (!zone_record_ok(c->record))
			return -1;
		n = snprintf(buf, len, "CHANGE %s %s %s %s\n", c->id, zone_change_op_name(c->op),
			     c->name, c->record);
		break;
	default:
		return -1;
	}
	return n < 0 || (size_t)n >= len || n > ZONE_CHANGE_LINE_MAX ? -1 : n;
}

int zone_change_parse(const char *line, size_t len, struct zone_change *c, char *why, size_t wlen)
{
	const char *p = line, *end;
	char word[24], num[16];
	int op;

	memset(c, 0, sizeof(*c));
	if (zone_line(line, len, &end) == -1) {
		strfmt(why, wlen, "expected one line of text");
		return -1;
	}
	if (health_next_word(&p, end, word, sizeof(word) - 1) == -1 ||
	    strcmp(word, "CHANGE") != 0) {
		strfmt(why, wlen, "expected CHANGE ID OP ...");
		return -1;
	}
	if (health_next_word(&p, end, c->id, ZONE_CHANGE_ID_LEN) == -1 ||
	    !health_id_ok(c->id, ZONE_CHANGE_ID_LEN)) {
		c->id[0] = '\0';
		strfmt(why, wlen, "expected an id of 1 to %d letters, digits, '.', '_' or '-'",
		       ZONE_CHANGE_ID_LEN);
		return -1;
	}
	if (health_next_word(&p, end, word, sizeof(word) - 1) == -1 ||
	    (op = zone_change_op_find(word)) < 0) {
		strfmt(why, wlen, "expected set-ttl, set-weight, add-record or remove-record");
		return -1;
	}
	c->op = (enum zone_change_op)op;
	if (health_next_word(&p, end, c->name, ZONE_CHANGE_NAME_LEN) == -1 ||
	    !zone_name_ok(c->name)) {
		strfmt(why, wlen, "%s: expected a domain name", word);
		return -1;
	}
	switch (c->op) {
	case ZONE_SET_TTL:
		if (health_next_word(&p, end, num, sizeof(num) - 1) == -1 ||
		    zone_number(num, ZONE_CHANGE_TTL_MAX, &c->value) == -1) {
			strfmt(why, wlen, "set-ttl NAME TTL: expected a TTL in seconds (0 to %u)",
			       ZONE_CHANGE_TTL_MAX);
			return -1;
		}
		break;
	case ZONE_SET_WEIGHT:
		if (health_next_word(&p, end, c->site, HEALTH_SITE_LEN) == -1 ||
		    !health_id_ok(c->site, HEALTH_SITE_LEN) ||
		    health_next_word(&p, end, num, sizeof(num) - 1) == -1 ||
		    zone_number(num, ZONE_CHANGE_WEIGHT_MAX, &c->value) == -1) {
			strfmt(why, wlen,
			       "set-weight NAME SITE WEIGHT: expected a site and a weight "
			       "(0 to %d)",
			       ZONE_CHANGE_WEIGHT_MAX);
			return -1;
		}
		break;
	default: {
		size_t n;

		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		n = (size_t)(end - p);
		if (n == 0 || n > ZONE_CHANGE_RECORD_LEN) {
			strfmt(why, wlen, "%s: expected %s (at most %d characters)", word,
			       c->op == ZONE_ADD_RECORD ? "OWNER [TTL] TYPE DATA"
							: "OWNER TYPE [DATA]",
			       ZONE_CHANGE_RECORD_LEN);
			return -1;
		}
		memcpy(c->record, p, n);
		c->record[n] = '\0';
		for (size_t i = 0; i < n; i++)
			if (c->record[i] == '\t')
				c->record[i] = ' ';
		if (!zone_record_ok(c->record)) {
			strfmt(why, wlen, "%s: expected printable text", word);
			return -1;
		}
		return 0;
	}
	}
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p != end) {
		strfmt(why, wlen, "%s: unexpected text after the change", word);
		return -1;
	}
	return 0;
}

int zone_change_reply_format(const struct zone_change_reply *r, char *buf, size_t len)
{
	char reason[ZONE_CHANGE_REASON_LEN + 1];
	const char *id = r->id[0] ? r->id : "-";
	int n;

	if (r->id[0] && !health_id_ok(r->id, ZONE_CHANGE_ID_LEN))
		return -1;
	if (r->ok) {
		n = snprintf(buf, len, "OK %s %u\n", id, r->serial);
	} else {
		snprintf(reason, sizeof(reason), "%s", r->reason[0] ? r->reason : "refused");
		for (char *s = reason; *s; s++)
			if ((unsigned char)*s < ' ')
				*s = ' ';
		n = snprintf(buf, len, "ERR %s %s\n", id, reason);
	}
	return n < 0 || (size_t)n >= len ? -1 : n;
}

int zone_change_reply_parse(const char *line, size_t len, struct zone_change_reply *r)
{
	const char *p = line, *end;
	char word[8], num[16];
	size_t n;

	memset(r, 0, sizeof(*r));
	if (zone_line(line, len, &end) == -1 ||
	    health_next_word(&p, end, word, sizeof(word) - 1) == -1 ||
	    health_next_word(&p, end, r->id, ZONE_CHANGE_ID_LEN) == -1)
		return -1;
	if (strcmp(r->id, "-") == 0)
		r->id[0] = '\0';
	else if (!health_id_ok(r->id, ZONE_CHANGE_ID_LEN))
		return -1;
	if (strcmp(word, "OK") == 0) {
		r->ok = 1;
		if (health_next_word(&p, end, num, sizeof(num) - 1) == -1 ||
		    zone_number(num, UINT32_MAX, &r->serial) == -1)
			return -1;
		while (p < end && *p == ' ')
			p++;
		return p == end ? 0 : -1;
	}
	if (strcmp(word, "ERR") != 0)
		return -1;
	while (p < end && *p == ' ')
		p++;
	n = (size_t)(end - p);
	if (n > ZONE_CHANGE_REASON_LEN)
		n = ZONE_CHANGE_REASON_LEN;
	memcpy(r->reason, p, n);
	r->reason[n] = '\0';
	return 0;
}
