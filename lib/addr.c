/* "ADDR[:PORT]" parsing; see addr.h. */
#include "addr.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int parse_addr_port(const char *s, uint16_t default_port, struct sockaddr_in *sin)
{
	char buf[INET_ADDRSTRLEN];
	const char *colon = strchr(s, ':');
	size_t alen = colon ? (size_t)(colon - s) : strlen(s);
	unsigned long port = default_port;
	char *end;

	if (alen == 0 || alen >= sizeof(buf))
		return -1;
	memcpy(buf, s, alen);
	buf[alen] = '\0';
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	if (inet_pton(AF_INET, buf, &sin->sin_addr) != 1)
		return -1;
	if (colon) {
		errno = 0;
		port = strtoul(colon + 1, &end, 10);
		if (errno || end == colon + 1 || *end || port == 0 || port > 65535 ||
		    colon[1] == '-')
			return -1;
	}
	sin->sin_port = htons((uint16_t)port);
	return 0;
}
