/* Formatting and parsing of announce/withdraw messages; see announce.h. */
#include "announce.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strtonum.h"

int parse_prefix(const char *s, struct in_addr *addr, int *prefixlen)
{
	char buf[INET_ADDRSTRLEN + 4];
	const char *slash = strchr(s, '/');
	size_t alen = slash ? (size_t)(slash - s) : strlen(s);
	const char *errstr;
	long long plen = 32;

	if (alen == 0 || alen >= INET_ADDRSTRLEN)
		return -1;
	memcpy(buf, s, alen);
	buf[alen] = '\0';
	if (inet_pton(AF_INET, buf, addr) != 1)
		return -1;
	if (slash) {
		/* digits only: strtonum alone would take a sign or a space */
		if (slash[1] < '0' || slash[1] > '9')
			return -1;
		plen = strtonum(slash + 1, 0, 32, &errstr);
		if (errstr != NULL)
			return -1;
	}
	*prefixlen = (int)plen;
	return 0;
}

int announce_prefix_parse(const char *s, struct in6_addr *prefix, int *len)
{
	struct addr_prefix p;

	if (addr_parse_prefix(s, &p) == -1)
		return -1;
	if (p.family == AF_INET) {
		struct in_addr a4;

		memcpy(&a4, p.addr, sizeof(a4));
		*prefix = addr_map4(a4);
	} else {
		memcpy(prefix, p.addr, sizeof(*prefix));
		if (addr_is4(prefix))
			return -1;
	}
	*len = p.len;
	return 0;
}

const char *announce_prefix_str(const struct in6_addr *prefix, int len, char *buf, size_t buflen)
{
	char addr[INET6_ADDRSTRLEN];

	snprintf(buf, buflen, "%s/%d", addr_ip_str(prefix, addr, sizeof(addr)), len);
	return buf;
}

int announce_format(const struct announce_msg *m, char *buf, size_t len)
{
	char prefix[ANNOUNCE_PREFIX_STRLEN];
	int n;

	announce_prefix_str(&m->prefix, m->prefixlen, prefix, sizeof(prefix));
	if (m->withdraw)
		n = snprintf(buf, len, "WITHDRAW %s %s\n", m->site, prefix);
	else
		n = snprintf(buf, len, "ANNOUNCE %s %s %u\n", m->site, prefix, m->metric);
	if (n < 0 || (size_t)n >= len)
		return -1;
	return n;
}

int announce_parse(const char *buf, size_t len, struct announce_msg *m)
{
	char line[ANNOUNCE_MAX], verb[16], prefix[ANNOUNCE_PREFIX_STRLEN];
	unsigned metric = 0;
	int n, site_end = 0, consumed = 0;

	if (len == 0 || len >= sizeof(line))
		return -1;
	memcpy(line, buf, len);
	line[len] = '\0';
	line[strcspn(line, "\r\n")] = '\0';
	memset(m, 0, sizeof(*m));
	n = sscanf(line, "%15s %31s%n %49s %n", verb, m->site, &site_end, prefix, &consumed);
	/* a site name longer than the field must not run on into the prefix */
	if (n != 3 || (line[site_end] != ' ' && line[site_end] != '\t'))
		return -1;
	if (strcmp(verb, "WITHDRAW") == 0) {
		m->withdraw = 1;
		if (line[consumed] != '\0')
			return -1;
	} else if (strcmp(verb, "ANNOUNCE") == 0) {
		const char *errstr, *s = line + consumed;

		if (*s < '0' || *s > '9')
			return -1;
		metric = (unsigned)strtonum(s, 0, UINT32_MAX, &errstr);
		if (errstr != NULL)
			return -1;
	} else {
		return -1;
	}
	m->metric = metric;
	return announce_prefix_parse(prefix, &m->prefix, &m->prefixlen);
}
