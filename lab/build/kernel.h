/*
 * The lab's kernel-facing code: links, addresses, routes and forwarding of the
 * lab's namespaces, through libnl (no shelling out to `ip`), as bgpd keeps
 * its kernel code in kroute.c. Everything else in lab/ is kernel-free.
 *
 * A kernel socket (struct kern) is bound to the namespace it was opened in:
 * kern_open(nsfd) enters the namespace, opens the socket and comes back.
 *
 * This header is the seam of the lab's tests: tests/unit/test_lab_build.c
 * links a fake of every function declared here (and of netns.c, lab.h) in place
 * of kernel.c, and checks what a bring-up asks of the kernel without one;
 * tests/unit/test_lab_kernel.c checks kernel.c itself on the kernel, in a
 * network namespace of its own.
 */
#ifndef STEERLAB_KERNEL_H
#define STEERLAB_KERNEL_H

#include <netinet/in.h>

struct kern;

/* kern_open: nsfd -1 for the caller's namespace. NULL on failure (logged). */
struct kern *kern_open(int nsfd);
void kern_close(struct kern *k);

/* kern_veth: create a veth pair, end a named name_a in namespace nsfd_a and
 * end b in nsfd_b (down: the kernel refuses IFF_UP on a peer created in
 * another namespace). k is any socket (the kernel places the ends). */
int kern_veth(struct kern *k, const char *name_a, int nsfd_a, const char *name_b, int nsfd_b);

/* kern_vxlan: a VXLAN device called name (VXLAN id vni, UDP port
 * TOPO_VXLAN_PORT, from local to remote, MTU mtu) made in k's namespace,
 * whose underlay it uses for ever, and placed down in namespace nsfd:
 * a link between two hosts (lab/build/hosts.c). 0 or -1 (logged). */
int kern_vxlan(struct kern *k, const char *name, int nsfd, unsigned vni, struct in_addr local,
	       struct in_addr remote, int mtu);

/* kern_bridge: a bridge called name in k's namespace (down). 0 or -1. */
int kern_bridge(struct kern *k, const char *name);

/* kern_enslave: the link ifindex a port of the bridge master. 0 or -1. */
int kern_enslave(struct kern *k, int master, int ifindex);

/* kern_ifindex: index of the link called name in k's namespace, or -1. */
int kern_ifindex(struct kern *k, const char *name);

/* kern_link_up: set IFF_UP on ifindex. */
int kern_link_up(struct kern *k, int ifindex);

/* kern_link_set: set (up) or clear IFF_UP on ifindex: link-down and
 * link-up of the timeline (the kernel drops the routes through a link that
 * goes down; kern_again lets them be added back). */
int kern_link_set(struct kern *k, int ifindex, int up);

/* kern_again: from now on, kern_addr_add and kern_route_add on k take an
 * address or route that is already there as done (configuring a node a
 * second time, after a link came back up). */
void kern_again(struct kern *k);

/* kern_sysctl: writes value to /proc/sys/NAME (NAME with slashes, such as
 * net/ipv4/fib_multipath_hash_policy) in the network namespace nsfd. 0, 1
 * if this kernel has no such setting (and optional: nothing logged), or
 * -1 (logged). */
int kern_sysctl(int nsfd, const char *name, const char *value, int optional);

/* kern_link_forwarding: IPv4 forwarding on ifindex (the per-link
 * net.ipv4.conf.IF.forwarding, set through IFLA_AF_SPEC as libnl does). */
int kern_link_forwarding(struct kern *k, int ifindex);

/* kern_addr6_add: add the IPv6 addr/prefixlen on ifindex, usable at once
 * (no duplicate address detection: the lab's plan gives each address
 * once). */
int kern_addr6_add(struct kern *k, int ifindex, const struct in6_addr *addr, int prefixlen);

/* kern_route6_add: the IPv6 dst/prefixlen via gw on ifindex (gw NULL:
 * directly on it). */
int kern_route6_add(struct kern *k, const struct in6_addr *dst, int prefixlen,
		    const struct in6_addr *gw, int ifindex);

/* kern_linklocal_missing: how many of k's links that are up (not lo)
 * have no link-local IPv6 address yet (the kernel makes it once it has
 * seen the link's carrier), or -1 (netlink failed) */
int kern_linklocal_missing(struct kern *k);

/* kern_addr_add: add addr/prefixlen on ifindex. */
int kern_addr_add(struct kern *k, int ifindex, struct in_addr addr, int prefixlen);

/* kern_local_add: dst/32 delivered to this node (a local route on lo in
 * the local table, at metric, with no address: AnyIP), so that it keeps
 * being answered whatever addresses come and go. */
int kern_local_add(struct kern *k, struct in_addr dst, unsigned metric);
/* kern_local6_add: the same of an IPv6 dst/128 */
int kern_local6_add(struct kern *k, const struct in6_addr *dst, unsigned metric);

/* kern_route_add: dst/prefixlen via gw (gw.s_addr 0: directly on ifindex)
 * with the given priority (metric). */
int kern_route_add(struct kern *k, struct in_addr dst, int prefixlen, struct in_addr gw,
		   int ifindex, unsigned metric);

#endif
