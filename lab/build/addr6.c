/*
 * The lab's IPv6 network ([lab] ip = dual; docs/topology.md, "Addresses"):
 * every link, node and route of the IPv4 plan again in 2001:2::/48
 * (lib/addrplan.h). The routers forward IPv6; each node has its link's ::2
 * and a default route to the router's ::1; a site's own address and a
 * [resolver] node's caches on lo, routed by their router via the node. A
 * router's loopback, its router links' addresses and its routes along the
 * paths are build.c's, beside their IPv4 twins (lab_route_via). The anycast service stays IPv4: the
 * agents speak IPv4 yet.
 */
#include "lab.h"

#include "kernel.h"

int lab_router_link6(struct lab *lab, struct kern *k, const struct topo_link *l, int ifindex)
{
	const struct topology *t = lab->t;
	const struct topo_node *node = &t->nodes[l->node];

	if (t->ip != TOPO_IP_DUAL)
		return 0;
	if (kern_addr6_add(k, ifindex, &l->router_addr6, 64) == -1)
		return -1;
	/* a site's own address, a resolver node's caches: via the node */
	if (node->kind == TOPO_SITE || node->kind == TOPO_RESOLVER)
		return kern_route6_add(k, &node->address6, node->kind == TOPO_SITE ? 128 : 64,
				       &l->node_addr6, ifindex);
	return 0;
}

int lab_namespace6(struct lab *lab, int n)
{
	/* the links made in it from now on (their link-local addresses too)
	 * usable at once: a router whose link-local address is still
	 * tentative sends no neighbour solicitation, and the first packets
	 * through it were lost */
	if (lab->t->ip != TOPO_IP_DUAL)
		return 0;
	if (kern_sysctl(lab->nsfd[n], "net/ipv6/conf/default/accept_dad", "0", 0) == -1 ||
	    kern_sysctl(lab->nsfd[n], "net/ipv6/conf/all/accept_dad", "0", 0) == -1)
		return -1;
	/* a router forwards IPv6 */
	if (lab->t->nodes[n].kind == TOPO_ROUTER &&
	    kern_sysctl(lab->nsfd[n], "net/ipv6/conf/all/forwarding", "1", 0) == -1)
		return -1;
	return 0;
}

int lab_configure_node6(struct lab *lab, struct kern *k, int n)
{
	const struct topology *t = lab->t;
	const struct topo_node *node = &t->nodes[n];
	const struct topo_link *l;
	int ifindex;

	/* a router's: lab_router_link6 and build.c's routes, by path */
	if (t->ip != TOPO_IP_DUAL || node->kind == TOPO_ROUTER)
		return 0;
	l = &t->links[node->link];
	if ((ifindex = kern_ifindex(k, l->node_ifname)) == -1 ||
	    kern_addr6_add(k, ifindex, &l->node_addr6, 64) == -1 ||
	    kern_route6_add(k, &(struct in6_addr){0}, 0, &l->router_addr6, ifindex) == -1)
		return -1;
	if (node->kind == TOPO_SITE && kern_addr6_add(k, 1, &node->address6, 128) == -1)
		return -1;
	for (unsigned i = 1; node->kind == TOPO_RESOLVER && i <= node->count; i++) {
		struct in6_addr cache = topo_resolver_addr6(t, n, (int)i);

		if (kern_addr6_add(k, 1, &cache, 128) == -1)
			return -1;
	}
	return 0;
}
