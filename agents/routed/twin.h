/*
 * The IPv6 twins of routed's IPv4 routes (routed -6, a lab of ip = dual).
 *
 * The lab's probers announce the service prefix over IPv4 (lib/announce.h)
 * and routed keeps one table of it (rib.c). In a dual lab the service has
 * an IPv6 address too, and every next hop an IPv6 one: routed is told the
 * pairs (-6 198.19.0.1/32=2001:2:0:ff00::1/128, -6 198.18.0.2=2001:2:0:3::2)
 * and installs and deletes each IPv4 route's twin beside it, at the same
 * metric, each next hop's twin as its next hop. Both families' routes
 * follow the one announcement: a withdrawal moves both at once.
 */
#ifndef STEERLAB_ROUTED_TWIN_H
#define STEERLAB_ROUTED_TWIN_H

#include <netinet/in.h>

#include "kroute.h"

#define TWIN_MAX 256

struct twin {
	struct in_addr v4;
	int len4; /* a prefix's length; -1: a next hop */
	struct in6_addr v6;
	int len6;
};

struct twins {
	struct twin t[TWIN_MAX];
	int n;
};

/* twin_add: "A.B.C.D/LEN=IPV6/LEN" (a prefix) or "A.B.C.D=IPV6" (a next
 * hop) into tw. 0, or -1 (malformed, a family mixed up, or full). */
int twin_add(struct twins *tw, const char *arg);

/* twin_route: the IPv6 twin of the IPv4 route r into *r6: 1; 0 if r's
 * prefix has no twin (nothing to do); -1 if a next hop of it has none. */
int twin_route(const struct twins *tw, const struct kroute *r, struct kroute *r6);

#endif
