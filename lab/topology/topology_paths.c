/*
 * Paths between routers ([link R1 R2] sections): what `routing = static`
 * installs, and what the checks need (one connected graph).
 *
 * Breadth-first from one router, the neighbours taken in file order: every
 * router is reached at its least number of hops, and its first hop is that
 * of the first router (in queue order) to reach it, so among shortest paths
 * the first hop is the neighbour that comes first in the file (the queue of
 * each level stays sorted by first hop). The lab's tie rule, documented in
 * docs/man/steerlab.ini.5, ROUTING.
 */
#include "topology.h"

#include <string.h>

void topo_paths(const struct topology *t, int from, struct topo_path path[TOPO_MAX_NODES])
{
	int queue[TOPO_MAX_NODES], head = 0, tail = 0;

	for (int i = 0; i < t->nnodes; i++)
		path[i] = (struct topo_path){-1, -1};
	path[from].hops = 0;
	/* the neighbours of `from`, in file order: the first hops */
	for (int n = 0; n < t->nnodes; n++) {
		for (int l = 0; l < t->nrlinks && n != from; l++) {
			const struct topo_rlink *rl = &t->rlinks[l];

			if ((rl->a == from && rl->b == n) || (rl->b == from && rl->a == n)) {
				path[n] = (struct topo_path){1, l};
				queue[tail++] = n;
				break;
			}
		}
	}
	while (head < tail) {
		int u = queue[head++];

		for (int l = 0; l < t->nrlinks; l++) {
			const struct topo_rlink *rl = &t->rlinks[l];
			int v = rl->a == u ? rl->b : rl->b == u ? rl->a : -1;

			if (v < 0 || path[v].hops >= 0)
				continue;
			path[v] = (struct topo_path){path[u].hops + 1, path[u].rlink};
			queue[tail++] = v;
		}
	}
}

int topo_node_router(const struct topology *t, int node)
{
	if (t->nodes[node].kind == TOPO_ROUTER)
		return node;
	return t->nodes[node].link < 0 ? -1 : t->links[t->nodes[node].link].router;
}

void topo_rlink_end(const struct topology *t, int rlink, int r, struct in_addr *local,
		    struct in_addr *peer, const char **ifname)
{
	const struct topo_rlink *rl = &t->rlinks[rlink];
	int a = rl->a == r;

	if (local)
		*local = a ? rl->a_addr : rl->b_addr;
	if (peer)
		*peer = a ? rl->b_addr : rl->a_addr;
	if (ifname)
		*ifname = a ? rl->a_ifname : rl->b_ifname;
}

int topo_route_to(const struct topology *t, int r, const struct topo_path *path, int node,
		  struct in_addr *via, const char **ifname)
{
	int o = topo_node_router(t, node);

	memset(via, 0, sizeof(*via));
	*ifname = NULL;
	if (o < 0 || path[o].hops < 0)
		return -1;
	if (o == r) {
		if (node != r) {
			*via = t->links[t->nodes[node].link].node_addr;
			*ifname = t->links[t->nodes[node].link].router_ifname;
		}
		return 0;
	}
	topo_rlink_end(t, path[o].rlink, r, NULL, via, ifname);
	return path[o].hops;
}

int topo_route_to6(const struct topology *t, int r, const struct topo_path *path, int node,
		   struct in6_addr *via6)
{
	struct in_addr via;
	const char *ifname;
	int hops = topo_route_to(t, r, path, node, &via, &ifname);
	const struct topo_rlink *rl;

	memset(via6, 0, sizeof(*via6));
	if (hops < 0 || (hops == 0 && node == r))
		return hops;
	if (hops == 0) {
		*via6 = t->links[t->nodes[node].link].node_addr6;
		return 0;
	}
	rl = &t->rlinks[path[topo_node_router(t, node)].rlink];
	*via6 = rl->a == r ? rl->b_addr6 : rl->a_addr6;
	return hops;
}
