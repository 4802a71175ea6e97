/* Addresses and prefixes of both families; see addr.h. */
#include "addr.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "strtonum.h"

int parse_addr_port(const char *s, uint16_t default_port, struct sockaddr_in *sin)
{
	char buf[INET_ADDRSTRLEN];
	const char *colon = strchr(s, ':');
	size_t alen = colon ? (size_t)(colon - s) : strlen(s);
	long long port = default_port;
	const char *errstr;

	if (alen == 0 || alen >= sizeof(buf))
		return -1;
	memcpy(buf, s, alen);
	buf[alen] = '\0';
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	if (inet_pton(AF_INET, buf, &sin->sin_addr) != 1)
		return -1;
	if (colon) {
		port = strtonum(colon + 1, 1, 65535, &errstr);
		if (errstr)
			return -1;
	}
	sin->sin_port = htons((uint16_t)port);
	return 0;
}

int addr_parse_sockaddr(const char *s, uint16_t default_port, struct sockaddr_storage *ss)
{
	char host[INET6_ADDRSTRLEN + 8];
	const char *port = NULL, *colon;
	unsigned long v = default_port;
	const char *errstr;

	memset(ss, 0, sizeof(*ss));
	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		if (close == NULL || (size_t)(close - s - 1) >= sizeof(host))
			return -1;
		memcpy(host, s + 1, (size_t)(close - s - 1));
		host[close - s - 1] = '\0';
		if (close[1] == ':')
			port = close + 2;
		else if (close[1] != '\0')
			return -1;
	} else if ((colon = strchr(s, ':')) != NULL && strchr(colon + 1, ':') == NULL) {
		if ((size_t)(colon - s) >= sizeof(host))
			return -1;
		memcpy(host, s, (size_t)(colon - s));
		host[colon - s] = '\0';
		port = colon + 1;
	} else {
		if (strlen(s) >= sizeof(host))
			return -1;
		strcpy(host, s);
	}
	if (port) {
		v = strtonum(port, 1, 65535, &errstr);
		if (errstr)
			return -1;
	}
	if (inet_pton(AF_INET, host, &((struct sockaddr_in *)ss)->sin_addr) == 1) {
		((struct sockaddr_in *)ss)->sin_family = AF_INET;
		((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)v);
		return 0;
	}
	if (inet_pton(AF_INET6, host, &((struct sockaddr_in6 *)ss)->sin6_addr) == 1) {
		((struct sockaddr_in6 *)ss)->sin6_family = AF_INET6;
		((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)v);
		return 0;
	}
	return -1;
}

const char *addr_sa_str(const struct sockaddr *sa, char *buf, size_t len)
{
	char addr[INET6_ADDRSTRLEN];

	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)(const void *)sa;

		inet_ntop(AF_INET6, &s6->sin6_addr, addr, sizeof(addr));
		snprintf(buf, len, "[%s]:%u", addr, ntohs(s6->sin6_port));
	} else {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)(const void *)sa;

		inet_ntop(AF_INET, &s4->sin_addr, addr, sizeof(addr));
		snprintf(buf, len, "%s:%u", addr, ntohs(s4->sin_port));
	}
	return buf;
}

socklen_t addr_sa_len(const struct sockaddr *sa)
{
	return sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
}

const char *addr_sockaddr_str(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	return addr_sa_str((const struct sockaddr *)ss, buf, len);
}

int addr_parse_prefix(const char *s, struct addr_prefix *p)
{
	char host[INET6_ADDRSTRLEN];
	const char *slash = strchr(s, '/');
	size_t n = slash ? (size_t)(slash - s) : strlen(s);
	unsigned long len;
	struct addr_prefix copy;
	const char *errstr;

	memset(p, 0, sizeof(*p));
	if (n == 0 || n >= sizeof(host))
		return -1;
	memcpy(host, s, n);
	host[n] = '\0';
	if (inet_pton(AF_INET, host, p->addr) == 1)
		p->family = AF_INET;
	else if (inet_pton(AF_INET6, host, p->addr) == 1)
		p->family = AF_INET6;
	else
		return -1;
	len = p->family == AF_INET ? 32 : 128;
	if (slash) {
		unsigned long max = len;

		/* digits only: strtonum alone would take a sign or a space */
		if (slash[1] < '0' || slash[1] > '9')
			return -1;

		len = (unsigned long)strtonum(slash + 1, 0, (long long)max, &errstr);
		if (errstr)
			return -1;
	}
	p->len = (uint8_t)len;
	/* no bits past the length: "198.18.0.1/24" is probably a mistake */
	copy = *p;
	memset(copy.addr, 0, sizeof(copy.addr));
	memcpy(copy.addr, p->addr, p->len / 8);
	if (p->len % 8)
		copy.addr[p->len / 8] = p->addr[p->len / 8] & (uint8_t)(0xff << (8 - p->len % 8));
	return memcmp(copy.addr, p->addr, sizeof(p->addr)) == 0 ? 0 : -1;
}

int addr_ip_parse(const char *s, struct in6_addr *a)
{
	struct in_addr a4;

	if (inet_pton(AF_INET, s, &a4) == 1) {
		*a = addr_map4(a4);
		return 0;
	}
	if (inet_pton(AF_INET6, s, a) != 1 || addr_is4(a))
		return -1;
	return 0;
}

struct in6_addr addr_map4(struct in_addr a)
{
	struct in6_addr m;

	memset(&m, 0, sizeof(m));
	m.s6_addr[10] = m.s6_addr[11] = 0xff;
	memcpy(&m.s6_addr[12], &a, 4);
	return m;
}

int addr_is4(const struct in6_addr *a)
{
	return IN6_IS_ADDR_V4MAPPED(a);
}

struct in_addr addr_unmap4(const struct in6_addr *a)
{
	struct in_addr v4;

	memcpy(&v4, &a->s6_addr[12], 4);
	return v4;
}

const char *addr_ip_str(const struct in6_addr *a, char *buf, size_t len)
{
	if (addr_is4(a))
		return inet_ntop(AF_INET, &a->s6_addr[12], buf, (socklen_t)len) ? buf : "?";
	return inet_ntop(AF_INET6, a, buf, (socklen_t)len) ? buf : "?";
}
