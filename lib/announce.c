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

int announce_format(const struct announce_msg *m, char *buf, size_t len)
{
	char addr[INET_ADDRSTRLEN];
	int n;

	inet_ntop(AF_INET, &m->prefix, addr, sizeof(addr));
	if (m->withdraw)
		n = snprintf(buf, len, "WITHDRAW %s %s/%d\n", m->site, addr, m->prefixlen);
	else
		n = snprintf(buf, len, "ANNOUNCE %s %s/%d %u\n", m->site, addr, m->prefixlen,
			     m->metric);
	if (n < 0 || (size_t)n >= len)
		return -1;
	return n;
}

int announce_parse(const char *buf, size_t len, struct announce_msg *m)
{
	char line[ANNOUNCE_MAX], verb[16], prefix[32];
	unsigned metric = 0;
	int n, site_end = 0, consumed = 0;

	if (len == 0 || len >= sizeof(line))
		return -1;
	memcpy(line, buf, len);
	line[len] = '\0';
	line[strcspn(line, "\r\n")] = '\0';
	memset(m, 0, sizeof(*m));
	n = sscanf(line, "%15s %31s%n %31s %n", verb, m->site, &site_end, prefix, &consumed);
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
	return parse_prefix(prefix, &m->prefix, &m->prefixlen);
}
