/*
 * Who may tell routed what (docs/agents.md, "Control channels").
 *
 * In a lab only the prober of a site attached to this router may announce
 * or withdraw, from the site's address on the link, and only the lab's
 * service prefix: any node can send a datagram to routed's port, and an
 * `ANNOUNCE x 0.0.0.0/0` from a client would otherwise take the router's
 * traffic. The lab passes both lists (-a SITE=ADDR, -P PREFIX); a sender
 * given as SITE=ADDR may speak only for SITE, so one site's prober cannot
 * withdraw another site's route either.
 *
 * Without -a every sender is allowed, without -P every prefix (a routed
 * started by hand; it says so in its log). `-a none` allows no sender at
 * all (a router with no site).
 *
 * Addresses and prefixes are of either family (a lab of ip = 6 gives
 * -a a=2001:2:0:3::2 -P 2001:2:0:ff00::1/128), kept as lib/addr.h's one
 * struct in6_addr for both; a sender matches only in its own family.
 */
#ifndef STEERLAB_ROUTED_ACL_H
#define STEERLAB_ROUTED_ACL_H

#include <netinet/in.h>
#include <stddef.h>

#include "announce.h"

#define ROUTED_ACL_MAX 256
/* an announcement from a site `hops` routers away is installed at
 * hops * ROUTED_HOPS_METRIC + its metric: hops first (routing = static) */
#define ROUTED_HOPS_METRIC 16777216u

struct routed_sender {
	struct in6_addr addr;				     /* addr_map4 for IPv4 */
	char site[sizeof(((struct announce_msg *)0)->site)]; /* "": any site */
	struct in6_addr via; /* the route's next hop (addr's family); :: addr itself */
	int has_via;
	unsigned hops; /* routers between us and the site */
};

struct routed_prefix {
	struct in6_addr prefix; /* announce_msg's form */
	int prefixlen;
};

struct routed_acl {
	int senders_set; /* -a was given: only these senders */
	int nsenders;
	struct routed_sender senders[ROUTED_ACL_MAX];
	int nprefixes; /* 0: any prefix */
	struct routed_prefix prefixes[ROUTED_ACL_MAX];
};

/* routed_acl_add_sender: one -a argument, "ADDR", "SITE=ADDR" or "none";
 * SITE=ADDR may go on with ",via=NEXTHOP" (the route goes there instead of
 * to ADDR: a site behind another router) and ",hops=N" (0 to 255: the
 * route's metric is N * 2^24 + the announced one). 0, or -1 if malformed
 * or the list is full; NEXTHOP in ADDR's family. */
int routed_acl_add_sender(struct routed_acl *acl, const char *arg);

/* routed_acl_add_prefix: one -P argument, "ADDR/LEN" or "ADDR" (a host
 * prefix), of either family. */
int routed_acl_add_prefix(struct routed_acl *acl, const char *arg);

/* routed_acl_check: 0 if m, received from src, may be applied; -1 if not,
 * with the reason in reason ("sender not allowed", "site b not allowed from
 * this sender", "prefix 0.0.0.0/0 not allowed"). */
int routed_acl_check(const struct routed_acl *acl, const struct announce_msg *m,
		     const struct in6_addr *src, char *reason, size_t len);

/* routed_acl_route: where an accepted announcement of site from src goes:
 * *via (src, or the sender's via=) and *metric (hops * 2^24 + metric).
 * -1, reason said, if that metric does not fit in 32 bits. */
int routed_acl_route(const struct routed_acl *acl, const char *site, const struct in6_addr *src,
		     unsigned metric, struct in6_addr *via, unsigned *out, char *reason,
		     size_t len);

#endif
