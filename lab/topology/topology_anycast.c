/*
 * Anycast name servers (docs/topology.md, "Anycast name servers"): a [dns]
 * node's `anycast` address, announced by its own prober while it answers
 * its zone (routing = static: to every router's routed; routing = bgp: the
 * address on lo while it answers, the node's own bgpd announcing it), the
 * lab's tree naming it as the zone's server. Several nodes
 * may share one address (the instances of one server); they then serve the
 * same zones.
 */
#include <arpa/inet.h>
#include <string.h>

#include "topology_int.h"

void topo_check_anycast(struct topo_parse *p)
{
	struct topology *t = p->t;
	char a[INET_ADDRSTRLEN];

	for (int i = 0; i < t->nnodes; i++) {
		const struct topo_node *n = &t->nodes[i];
		int w = p->meta[i].where[TOPO_K_DNS_ANYCAST];

		if (n->kind != TOPO_DNS || n->anycast.s_addr == 0 ||
		    p->meta[i].bad[TOPO_K_DNS_ANYCAST])
			continue;
		inet_ntop(AF_INET, &n->anycast, a, sizeof(a));
		if (t->routing == TOPO_ROUTING_BGP && n->dns_impl != TOPO_DNS_AUTHD) {
			topo_error(
			    p, w,
			    "[dns %s] anycast: with routing = bgp the prober takes the address "
			    "off lo while the server fails, and %s binds its addresses once, "
			    "at its start: expected impl = authd, or routing = static",
			    n->name, topo_dns_impl_name(n->dns_impl));
			continue;
		}
		if (n->anycast.s_addr == t->service.s_addr) {
			topo_error(p, w, "[dns %s] anycast: %s is the [lab] service's address",
				   n->name, a);
			continue;
		}
		for (int j = 0; j < t->nnodes; j++) {
			const struct topo_node *o = &t->nodes[j];

			if (o->kind == TOPO_SITE && o->address.s_addr == n->anycast.s_addr) {
				topo_error(p, w, "[dns %s] anycast: %s is [site %s]'s address",
					   n->name, a, o->name);
				break;
			}
			if (j < i && o->kind == TOPO_DNS &&
			    o->anycast.s_addr == n->anycast.s_addr && o->zone_set != n->zone_set) {
				topo_error(p, w,
					   "[dns %s] anycast: %s is also [dns %s]'s, which serves "
					   "other zones: expected the instances of one server to "
					   "serve the same zones",
					   n->name, a, o->name);
				break;
			}
		}
	}
}
