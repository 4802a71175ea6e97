/*
 * The announcement with routing = bgp: the anycast address on the site's
 * lo while the local service is healthy, removed when it is not, through
 * netlink (lib/nladdr.h). The site's bgpd announces what is there
 * (`redistribute connected`), so a withdrawal still starts with this
 * netlink call and everything after it is BGP.
 */
#ifndef STEERLAB_PROBER_LOADDR_H
#define STEERLAB_PROBER_LOADDR_H

#include <netinet/in.h>

struct prober_lo {
	struct nl_sock *sk;
	struct in_addr addr;
	int prefixlen; /* 0: no IPv4 address (an IPv6-only lab's) */
	int has6;
	struct in6_addr addr6; /* with has6: kept beside addr, a /128 */
	int withheld;	       /* 4 or 6: that family's address kept off lo; 0 none */
};

/* prober_lo_open: the netlink socket of this namespace, for addr/prefixlen
 * (none if prefixlen is 0) and, if addr6 is not NULL, addr6/128. 0, or -1
 * (logged). */
int prober_lo_open(struct prober_lo *l, struct in_addr addr, int prefixlen,
		   const struct in6_addr *addr6);

/* what prober_lo_set changed */
#define PROBER_LO_CHANGED4 1
#define PROBER_LO_CHANGED6 2

/* prober_lo_set: the addresses on lo (present = 1: but the withheld
 * family's) or not. Which of them
 * that changed (PROBER_LO_CHANGED4 | 6; 0 if they already were so), -1 on
 * error (logged). */
int prober_lo_set(struct prober_lo *l, int present);

void prober_lo_close(struct prober_lo *l);

#endif
