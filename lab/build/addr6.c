/*
 * The lab's IPv6 network ([lab] ip = dual; docs/topology.md, "Addresses"):
 * every link, node and route of the IPv4 plan again in 2001:2::/48
 * (lib/addrplan.h), by the same paths. The routers forward IPv6; each node
 * has its link's ::2 and a default route to the router's ::1; a site's own
 * address, a router's loopback and a [resolver] node's caches on lo, each
 * routed as its IPv4 twin. The anycast service stays IPv4: the agents
 * speak IPv4 yet.
 */
#include "lab.h"

#include "kernel.h"

/* addr6_next_hop: the IPv6 next hop of router r toward node `to` (its
 * IPv4 one, via, on the same link); 0 and *gw, or -1 if none matches */
static int addr6_next_hop(const struct topology *t, int r, int to, struct in_addr via,
			  struct in6_addr *gw)
{
	for (int i = 0; i < t->nlinks; i++)
		if (t->links[i].router == r && t->links[i].node == to &&
		    t->links[i].node_addr.s_addr == via.s_addr) {
			*gw = t->links[i].node_addr6;
			return 0;
		}
	for (int j = 0; j < t->nrlinks; j++) {
		const struct topo_rlink *rl = &t->rlinks[j];

		if (rl->a == r && rl->b_addr.s_addr == via.s_addr) {
			*gw = rl->b_addr6;
			return 0;
		}
		if (rl->b == r && rl->a_addr.s_addr == via.s_addr) {
			*gw = rl->a_addr6;
			return 0;
		}
	}
	return -1;
}

/* addr6_route_via: dst/prefixlen via router r's next hop toward node to */
static int addr6_route_via(struct kern *k, const struct topology *t, int r,
			   const struct topo_path *path, int to, const struct in6_addr *dst,
			   int prefixlen)
{
	struct in6_addr gw, net = *dst;
	struct in_addr via;
	const char *ifname;
	int ifindex;

	if (topo_route_to(t, r, path, to, &via, &ifname) <= 0)
		return 0; /* its own, or itself: connected */
	if (addr6_next_hop(t, r, to, via, &gw) == -1 || (ifindex = kern_ifindex(k, ifname)) == -1)
		return -1;
	/* the prefix: the host bits off */
	for (int b = prefixlen; b < 128; b++)
		net.s6_addr[b / 8] &= (uint8_t) ~(0x80u >> (b % 8));
	return kern_route6_add(k, &net, prefixlen, &gw, ifindex);
}

/* addr6_node_routes: router r's routes to node i's IPv6 addresses beyond
 * its link (a site's own, a resolver node's caches), by path */
static int addr6_node_routes(struct kern *k, const struct topology *t, int r,
			     const struct topo_path *path, int i)
{
	const struct topo_node *node = &t->nodes[i];

	if (node->kind == TOPO_SITE)
		return addr6_route_via(k, t, r, path, i, &node->address6, 128);
	if (node->kind == TOPO_RESOLVER)
		return addr6_route_via(k, t, r, path, i, &node->address6, 64);
	return 0;
}

static int addr6_router(struct lab *lab, struct kern *k, int r)
{
	static struct topo_path path[TOPO_MAX_NODES];
	const struct topology *t = lab->t;
	int ifindex;

	if (kern_sysctl(lab->nsfd[r], "net/ipv6/conf/all/forwarding", "1", 0) == -1 ||
	    kern_addr6_add(k, 1, &t->nodes[r].address6, 128) == -1)
		return -1;
	for (int i = 0; i < t->nlinks; i++) {
		const struct topo_link *l = &t->links[i];
		const struct topo_node *node = &t->nodes[l->node];

		if (l->router != r)
			continue;
		if ((ifindex = kern_ifindex(k, l->router_ifname)) == -1 ||
		    kern_addr6_add(k, ifindex, &l->router_addr6, 64) == -1)
			return -1;
		if (node->kind == TOPO_SITE &&
		    kern_route6_add(k, &node->address6, 128, &l->node_addr6, ifindex) == -1)
			return -1;
		if (node->kind == TOPO_RESOLVER &&
		    kern_route6_add(k, &node->address6, 64, &l->node_addr6, ifindex) == -1)
			return -1;
	}
	for (int j = 0; j < t->nrlinks; j++) {
		const struct topo_rlink *rl = &t->rlinks[j];
		struct in_addr local;
		const char *ifname;

		if (rl->a != r && rl->b != r)
			continue;
		topo_rlink_end(t, j, r, &local, NULL, &ifname);
		if ((ifindex = kern_ifindex(k, ifname)) == -1 ||
		    kern_addr6_add(k, ifindex, rl->a == r ? &rl->a_addr6 : &rl->b_addr6, 64) == -1)
			return -1;
	}
	if (t->nrouters < 2)
		return 0;
	topo_paths(t, r, path);
	for (int i = 0; i < t->nnodes; i++) {
		const struct topo_node *node = &t->nodes[i];
		int rc = 0;

		if (node->kind == TOPO_ROUTER) {
			rc = addr6_route_via(k, t, r, path, i, &node->address6, 128);
		} else if (node->link >= 0) {
			rc =
			    addr6_route_via(k, t, r, path, i, &t->links[node->link].node_addr6, 64);
			if (rc == 0)
				rc = addr6_node_routes(k, t, r, path, i);
		}
		if (rc == -1)
			return -1;
	}
	for (int j = 0; j < t->nrlinks; j++) {
		const struct topo_rlink *rl = &t->rlinks[j];
		int to = path[rl->b].hops < path[rl->a].hops ? rl->b : rl->a;

		if (rl->a == r || rl->b == r)
			continue;
		if (addr6_route_via(k, t, r, path, to, &rl->a_addr6, 64) == -1)
			return -1;
	}
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
	return 0;
}

int lab_configure_node6(struct lab *lab, struct kern *k, int n)
{
	const struct topology *t = lab->t;
	const struct topo_node *node = &t->nodes[n];
	const struct topo_link *l;
	int ifindex;

	if (t->ip != TOPO_IP_DUAL)
		return 0;
	if (node->kind == TOPO_ROUTER)
		return addr6_router(lab, k, n);
	l = &t->links[node->link];
	if ((ifindex = kern_ifindex(k, l->node_ifname)) == -1 ||
	    kern_addr6_add(k, ifindex, &l->node_addr6, 64) == -1 ||
	    kern_route6_add(k, &(struct in6_addr){0}, 0, &l->router_addr6, ifindex) == -1)
		return -1;
	if (node->kind == TOPO_SITE && kern_addr6_add(k, 1, &node->address6, 128) == -1)
		return -1;
	for (unsigned i = 1; node->kind == TOPO_RESOLVER && i <= node->count; i++) {
		struct in6_addr cache = node->address6;

		cache.s6_addr[15] = (uint8_t)i;
		if (kern_addr6_add(k, 1, &cache, 128) == -1)
			return -1;
	}
	return 0;
}
