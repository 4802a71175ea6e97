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
	int prefixlen;
};

/* prober_lo_open: the netlink socket of this namespace. 0, or -1 (logged). */
int prober_lo_open(struct prober_lo *l, struct in_addr addr, int prefixlen);

/* prober_lo_set: the address on lo (present = 1) or not. 1 if that changed
 * lo, 0 if it already was so, -1 on error (logged). */
int prober_lo_set(struct prober_lo *l, int present);

void prober_lo_close(struct prober_lo *l);

#endif
