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
 * The next hop is the datagram's source address (as BGP's next-hop-self):
 * routed installs <prefix> via the sender, with the given metric as the
 * route priority, and removes exactly that route on WITHDRAW.
 */
#ifndef STEERLAB_ANNOUNCE_H
#define STEERLAB_ANNOUNCE_H

#include <netinet/in.h>
#include <stddef.h>

#define ANNOUNCE_PORT 7179
#define ANNOUNCE_MAX 128

struct announce_msg {
	int withdraw; /* 0 ANNOUNCE, 1 WITHDRAW */
	char site[32];
	struct in_addr prefix;
	int prefixlen;
	unsigned metric; /* ANNOUNCE only */
};

/* announce_format: writes the text line (with '\n') to buf. Returns its
 * length, or -1 if it does not fit. */
int announce_format(const struct announce_msg *m, char *buf, size_t len);

/* announce_parse: parses one datagram. Returns 0, or -1 if malformed. */
int announce_parse(const char *buf, size_t len, struct announce_msg *m);

/* parse_prefix: "198.19.0.1/32" or "198.19.0.1" (a /32). 0 or -1. */
int parse_prefix(const char *s, struct in_addr *addr, int *prefixlen);

#endif
