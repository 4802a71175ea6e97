/*
 * The lab's IPv6 network ([lab] ip = dual, or 6: then alone, build.c adding
 * no IPv4 address; docs/topology.md, "Addresses"):
 * every link, node and route of the IPv4 plan again in 2001:2::/48
 * (lib/addrplan.h). The routers forward IPv6; each node has its link's ::2
 * and a default route to the router's ::1; a site's own address and a
 * [resolver] node's caches on lo, routed by their router via the node. A
 * router's loopback, its router links' addresses and its routes along the
 * paths are build.c's, beside their IPv4 twins (lab_route_via). The anycast
 * service's IPv6 address is on each site's lo (routing = static), routed
 * installing the IPv6 twin of each route to the service.
 */
#include "lab.h"

#include <unistd.h>

#include "kernel.h"
#include "log.h"
#include "timeutil.h"

int lab_router_link6(struct lab *lab, struct kern *k, const struct topo_link *l, int ifindex)
{
	const struct topology *t = lab->t;
	const struct topo_node *node = &t->nodes[l->node];

	if (!topo_v6(t))
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
	if (!topo_v6(lab->t))
		return 0;
	if (kern_sysctl(lab->nsfd[n], "net/ipv6/conf/default/accept_dad", "0", 0) == -1 ||
	    kern_sysctl(lab->nsfd[n], "net/ipv6/conf/all/accept_dad", "0", 0) == -1)
		return -1;
	/* a router forwards IPv6 */
	if (lab->t->nodes[n].kind == TOPO_ROUTER &&
	    kern_sysctl(lab->nsfd[n], "net/ipv6/conf/all/forwarding", "1", 0) == -1)
		return -1;
	/* routing = bgp: a site answers from the service's IPv6 address after
	 * its prober took it off lo (its local route, lab_configure_node6): an
	 * IPv6 reply from an address the node does not have needs it (IPv4's
	 * AnyIP needs nothing), or the requests the withdrawal still brought
	 * were lost (measured: a drain of IPv6, 123 of them) */
	if (lab->t->nodes[n].kind == TOPO_SITE && lab->t->routing == TOPO_ROUTING_BGP &&
	    kern_sysctl(lab->nsfd[n], "net/ipv6/ip_nonlocal_bind", "1", 0) == -1)
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
	if (!topo_v6(t) || node->kind == TOPO_ROUTER)
		return 0;
	l = &t->links[node->link];
	if ((ifindex = kern_ifindex(k, l->node_ifname)) == -1 ||
	    kern_addr6_add(k, ifindex, &l->node_addr6, 64) == -1 ||
	    kern_route6_add(k, &(struct in6_addr){0}, 0, &l->router_addr6, ifindex) == -1)
		return -1;
	/* the anycast service's IPv6 address, its routes routed's twins of
	 * the IPv4 ones (routing = static; a front door has none) */
	if (node->kind == TOPO_SITE && t->routing != TOPO_ROUTING_BGP &&
	    node->front_door.s_addr == 0 && kern_addr6_add(k, 1, &t->service6, 128) == -1)
		return -1;
	/* routing = bgp: the prober puts it on lo while healthy; what still
	 * reaches the site after it took it off (the withdrawal travelling)
	 * is delivered by a local route of its own, as the IPv4 one's
	 * (build.c): a drain loses none */
	if (node->kind == TOPO_SITE && t->routing == TOPO_ROUTING_BGP &&
	    node->front_door.s_addr == 0 && kern_local6_add(k, &t->service6, 1) == -1)
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

/* how long lab_wait_ipv6 waits at most, and how often it looks */
#define LAB_IPV6_WAIT_NS (3 * NSEC_PER_SEC)
#define LAB_IPV6_POLL_US 10000

int lab_wait_ipv6(struct lab *lab)
{
	const struct topology *t = lab->t;
	int64_t deadline = now_mono_ns() + LAB_IPV6_WAIT_NS;
	int missing;

	if (!topo_v6(t))
		return 0;
	/* a node sends no neighbour solicitation before its link has a
	 * link-local address, which the kernel makes once it has seen the
	 * link's carrier, up to a second after the link came up: IPv6
	 * packets to or through it waited that long (measured: a site's
	 * first second of IPv6 requests lost) */
	do {
		missing = 0;
		for (int n = 0; n < t->nnodes && missing == 0; n++) {
			struct kern *k = kern_open(lab->nsfd[n]);

			if (k == NULL)
				return -1;
			missing = kern_linklocal_missing(k);
			kern_close(k);
			if (missing == -1)
				return -1;
			if (missing)
				log_debug("%s: %d links without a link-local address yet",
					  t->nodes[n].name, missing);
		}
		if (missing == 0)
			return 0;
		usleep(LAB_IPV6_POLL_US);
	} while (now_mono_ns() < deadline);
	log_warnx("lab %s: a link still has no IPv6 link-local address after %lld s: IPv6 "
		  "packets through it wait",
		  t->name, (long long)(LAB_IPV6_WAIT_NS / NSEC_PER_SEC));
	return 0;
}
