/*
 * The routers of a topology once the file is read: their index, AS number
 * and router id, the [link R1 R2] sections resolved to routers with their
 * addresses and interface names, and the checks on the graph: a link names
 * two different routers of the file, once (either order), and the routers
 * form one connected graph (an island is named with its routers).
 */
#include "topology_int.h"

#include <arpa/inet.h>
#include <string.h>

/* topo_rlink_resolve: the j-th [link] section as written; 0, -1 (said: a
 * name that is not a router, which may be the link missing) or -2 (said: a
 * duplicate or a loop, which links nothing new) */
static int topo_rlink_resolve(struct topo_parse *p, int j)
{
	struct topology *t = p->t;
	const char *names[2] = {p->rl[j].a, p->rl[j].b};
	int ends[2], line = p->rl[j].line;
	struct topo_rlink *rl;

	for (int e = 0; e < 2; e++) {
		ends[e] = topo_find(t, names[e]);
		if (ends[e] < 0) {
			topo_error(p, line,
				   "[link %s %s]: '%s' is not a node in this file; expected the "
				   "names of two [router] nodes",
				   names[0], names[1], names[e]);
			return -1;
		}
	}
	if (t->nodes[ends[0]].kind != TOPO_ROUTER && t->nodes[ends[1]].kind != TOPO_ROUTER) {
		topo_error(p, line,
			   "[link %s %s]: neither is a router; expected two [router] nodes, or a "
			   "node and the router of its link = ROUTER",
			   names[0], names[1]);
		return -1;
	}
	/* a node's own link: resolved with the links (topology_impair.c) */
	if (t->nodes[ends[0]].kind != TOPO_ROUTER || t->nodes[ends[1]].kind != TOPO_ROUTER)
		return 0;
	if (ends[0] == ends[1]) {
		topo_error(p, line, "[link %s %s]: a router cannot be linked to itself", names[0],
			   names[1]);
		return -2;
	}
	for (int l = 0; l < t->nrlinks; l++) {
		const struct topo_rlink *o = &t->rlinks[l];

		if ((o->a == ends[0] && o->b == ends[1]) || (o->a == ends[1] && o->b == ends[0])) {
			topo_error(p, line,
				   "[link %s %s]: duplicate: %s and %s are already linked at line "
				   "%d ([link %s %s])",
				   names[0], names[1], names[0], names[1], o->line,
				   t->nodes[o->a].name, t->nodes[o->b].name);
			return -2;
		}
	}
	rl = &t->rlinks[t->nrlinks];
	memset(rl, 0, sizeof(*rl));
	rl->a = ends[0];
	rl->b = ends[1];
	rl->line = line;
	rl->a_addr = addrplan_rlink((unsigned)t->nrlinks, 0);
	rl->b_addr = addrplan_rlink((unsigned)t->nrlinks, 1);
	rl->a_addr6 = addrplan6_rlink((unsigned)t->nrlinks, 0);
	rl->b_addr6 = addrplan6_rlink((unsigned)t->nrlinks, 1);
	rl->prefixlen = 30;
	rl->bgp_keepalive_ns = rl->bgp_hold_ns = rl->bgp_mrai_ns = -1;
	rl->bfd = -1;
	p->rl[j].rlink = t->nrlinks;
	/* each end is named after its peer, as a router's link to a node is:
	 * names are unique across the file, so are the names in a namespace */
	_Static_assert(sizeof(t->nodes[0].name) <= sizeof(rl->a_ifname), "ifname too short");
	memcpy(rl->a_ifname, t->nodes[rl->b].name, sizeof(t->nodes[0].name));
	memcpy(rl->b_ifname, t->nodes[rl->a].name, sizeof(t->nodes[0].name));
	t->nrlinks++;
	return 0;
}

/* topo_check_islands: every router reaches the first one. Each island
 * (routers reaching each other but not the first) is one error, at its
 * first router's header, naming its routers. */
static void topo_check_islands(struct topo_parse *p)
{
	const struct topology *t = p->t;
	static struct topo_path path[TOPO_MAX_NODES], ipath[TOPO_MAX_NODES];
	unsigned char seen[TOPO_MAX_NODES] = {0};
	int first = -1;

	for (int i = 0; i < t->nnodes && first < 0; i++)
		if (t->nodes[i].kind == TOPO_ROUTER)
			first = i;
	if (first < 0)
		return;
	topo_paths(t, first, path);
	for (int i = 0; i < t->nnodes; i++) {
		char list[200] = "";
		size_t used = 0;
		int n = 0;

		if (t->nodes[i].kind != TOPO_ROUTER || path[i].hops >= 0 || seen[i])
			continue;
		topo_paths(t, i, ipath);
		for (int j = 0; j < t->nnodes; j++) {
			if (t->nodes[j].kind != TOPO_ROUTER || ipath[j].hops < 0)
				continue;
			seen[j] = 1;
			if (used < sizeof(list) - 20)
				used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s",
							 n ? ", " : "", t->nodes[j].name);
			else if (used < sizeof(list) - 4)
				used += (size_t)snprintf(list + used, sizeof(list) - used, ", ...");
			n++;
		}
		if (n == 1)
			topo_error(p, t->nodes[i].line,
				   "[router %s]: not connected to router '%s' (line %d): no [link] "
				   "names it; expected a [link] section such as [link %s %s]",
				   t->nodes[i].name, t->nodes[first].name, t->nodes[first].line,
				   t->nodes[first].name, t->nodes[i].name);
		else
			topo_error(p, t->nodes[i].line,
				   "[router %s]: not connected to router '%s' (line %d): routers "
				   "%s form an island; expected a [link] section joining it to the "
				   "rest, such as [link %s %s]",
				   t->nodes[i].name, t->nodes[first].name, t->nodes[first].line,
				   list, t->nodes[first].name, t->nodes[i].name);
	}
}

void topo_check_routers(struct topo_parse *p)
{
	struct topology *t = p->t;
	int k = 0, bad = 0;

	for (int i = 0; i < t->nnodes; i++) {
		struct topo_node *r = &t->nodes[i];

		if (r->kind != TOPO_ROUTER)
			continue;
		r->router_index = k;
		r->router_id = addrplan_router_id((unsigned)k);
		r->address6 = addrplan6_router_id((unsigned)k);
		if (p->meta[i].where[0] == 0) /* asn, its first key */
			r->asn = TOPO_ASN_BASE + (unsigned)k;
		k++;
	}
	t->nrouters = k;
	t->nrlinks = 0;
	for (int j = 0; j < p->nrl; j++)
		bad |= topo_rlink_resolve(p, j) == -1;
	/* a refused [link] may be the one missing; a line lost, the header */
	if (!bad && !p->in.lost)
		topo_check_islands(p);
}
