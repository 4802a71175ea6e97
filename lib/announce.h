/*
 * Route announcements from sites to routers: the lab's small stand-in for a
 * routing protocol (BGP with BIRD is where it is going; docs/architecture.md).
 *
 * One UDP datagram per message, one line of text, to routed on
 * ANNOUNCE_PORT of the router:
 *
 *   ANNOUNCE <site> <prefix>/<len> <metric>
 *   WITHDRAW <site> <prefix>/<len>
 *
 * <prefix> is of either family (198.19.0.1/32, 2001:2:0:ff00::1/128; a
 * bare address is a host prefix), sent over either family. The next hop
 * is the datagram's source address (as BGP's next-hop-self): routed
 * installs <prefix> via the sender, with the given metric as the route
 * priority, and removes exactly that route on WITHDRAW.
 */
#ifndef STEERLAB_ANNOUNCE_H
#define STEERLAB_ANNOUNCE_H

#include <netinet/in.h>
#include <stddef.h>

#include "addr.h"

#define ANNOUNCE_PORT 7179
#define ANNOUNCE_MAX 128

struct announce_msg {
	int withdraw; /* 0 ANNOUNCE, 1 WITHDRAW */
	char site[32];
	/* an IPv4 prefix as its IPv4-mapped form (lib/addr.h addr_map4),
	 * its length the family's own (32 for one IPv4 address) */
	struct in6_addr prefix;
	int prefixlen;
	unsigned metric; /* ANNOUNCE only */
};

/* announce_format: writes the text line (with '\n') to buf. Returns its
 * length, or -1 if it does not fit. */
int announce_format(const struct announce_msg *m, char *buf, size_t len);

/* announce_parse: parses one datagram. Returns 0, or -1 if malformed. */
int announce_parse(const char *buf, size_t len, struct announce_msg *m);

/* announce_prefix_parse: "198.19.0.1/32", "2001:2:0:ff00::1/128" or an
 * address (a host prefix), through addr_parse_prefix, into the message's
 * form (*prefix, *len). 0, or -1 (malformed, host bits set, or an
 * IPv4-mapped IPv6 prefix). */
int announce_prefix_parse(const char *s, struct in6_addr *prefix, int *len);

/* announce_prefix_str: "198.19.0.1/32" or "2001:2:0:ff00::1/128" in buf
 * (ANNOUNCE_PREFIX_STRLEN); returns buf. */
#define ANNOUNCE_PREFIX_STRLEN (INET6_ADDRSTRLEN + 4)
const char *announce_prefix_str(const struct in6_addr *prefix, int len, char *buf, size_t buflen);

/* parse_prefix: IPv4 "198.19.0.1/32" or "198.19.0.1" (a /32). 0 or -1. */
int parse_prefix(const char *s, struct in_addr *addr, int *prefixlen);

#endif
