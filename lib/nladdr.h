/*
 * An address on an interface, added or removed through netlink
 * (libnl's rtnl_addr): the lab's addresses (lab/build/kernel.c) and, with
 * routing = bgp, the anycast address a site's prober keeps on lo while the
 * service is healthy (agents/prober/loaddr.c).
 */
#ifndef STEERLAB_NLADDR_H
#define STEERLAB_NLADDR_H

#include <netinet/in.h>

struct nl_sock;

/* nladdr_change: add (add = 1) or delete addr/prefixlen on ifindex through
 * sk, a connected NETLINK_ROUTE socket. 0, or libnl's negative error
 * (nl_geterror); adding an address already there is -NLE_EXIST, deleting
 * one that is not -NLE_NOADDR. */
int nladdr_change(struct nl_sock *sk, int ifindex, struct in_addr addr, int prefixlen, int add);

/* nladdr_change6: the same for an IPv6 address (routing = bgp in a lab of
 * ip = dual: the service's IPv6 address beside the IPv4 one) */
int nladdr_change6(struct nl_sock *sk, int ifindex, const struct in6_addr *addr, int prefixlen,
		   int add);

#endif
