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

/*
 * Front doors (docs/topology.md, "Front doors"; seed 002): a [site]'s
 * `front_door` is the anycast address it announces instead of the [lab]
 * service, shared with the other sites of its region, and the address DNS
 * hands out for it: routing moves a region's traffic among its sites, DNS
 * moves it between regions.
 */
struct in_addr topo_site_service(const struct topology *t, int n)
{
	return t->nodes[n].front_door.s_addr ? t->nodes[n].front_door : t->service;
}

struct in_addr topo_site_answer(const struct topology *t, int n)
{
	return t->nodes[n].front_door.s_addr ? t->nodes[n].front_door : t->nodes[n].address;
}

int topo_services(const struct topology *t, struct in_addr *out, int max)
{
	int k = 0;

	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < t->nnodes; i++) {
			struct in_addr s = topo_site_service(t, i);
			int seen = 0;

			if (t->nodes[i].kind != TOPO_SITE ||
			    (pass == 0) != (s.s_addr == t->service.s_addr))
				continue;
			for (int j = 0; j < k; j++)
				seen |= out[j].s_addr == s.s_addr;
			if (!seen && k < max)
				out[k++] = s;
		}
	return k;
}

int topo_anycast_ns_addrs(const struct topology *t, struct in_addr *out, int max)
{
	int k = 0;

	for (int i = 0; i < t->nnodes; i++) {
		int seen = 0;

		if (t->nodes[i].kind != TOPO_DNS || t->nodes[i].anycast.s_addr == 0)
			continue;
		for (int j = 0; j < k; j++)
			seen |= out[j].s_addr == t->nodes[i].anycast.s_addr;
		if (!seen && k < max)
			out[k++] = t->nodes[i].anycast;
	}
	return k;
}

/* topo_anycast_count: the distinct anycast prefixes the routers route
 * (the sites' services, the anycast name servers' addresses) */
static int topo_anycast_count(const struct topology *t)
{
	static struct in_addr s[TOPO_MAX_NODES];

	return topo_services(t, s, TOPO_MAX_NODES) + topo_anycast_ns_addrs(t, s, TOPO_MAX_NODES);
}

void topo_check_front_doors(struct topo_parse *p)
{
	struct topology *t = p->t;
	char a[INET_ADDRSTRLEN];
	int first = -1, lab_service = 0;

	for (int i = 0; i < t->nnodes; i++) {
		const struct topo_node *n = &t->nodes[i];
		int w = p->meta[i].where[TOPO_K_FRONT_DOOR];

		if (n->kind == TOPO_SITE && n->front_door.s_addr == 0)
			lab_service = 1;
		if (n->kind != TOPO_SITE || n->front_door.s_addr == 0 ||
		    p->meta[i].bad[TOPO_K_FRONT_DOOR])
			continue;
		if (first < 0)
			first = i;
		inet_ntop(AF_INET, &n->front_door, a, sizeof(a));
		if (n->front_door.s_addr == t->service.s_addr) {
			topo_error(p, w,
				   "[site %s] front_door: %s is the [lab] service's address, which "
				   "the site announces without one",
				   n->name, a);
			continue;
		}
		for (int j = 0; j < t->nnodes; j++) {
			const struct topo_node *o = &t->nodes[j];

			if ((o->kind == TOPO_SITE && o->address.s_addr == n->front_door.s_addr) ||
			    (o->kind == TOPO_DNS && o->anycast.s_addr == n->front_door.s_addr)) {
				topo_error(p, w, "[site %s] front_door: %s is [%s %s]'s %s",
					   n->name, a, topo_kind_name(o->kind), o->name,
					   o->kind == TOPO_SITE ? "address" : "anycast address");
				break;
			}
			if (o->kind == TOPO_DNS && o->dns_impl != TOPO_DNS_AUTHD) {
				topo_error(p, w,
					   "[site %s] front_door: [dns %s] is impl = %s, whose "
					   "checks and answers the lab writes from the sites' own "
					   "addresses: expected impl = authd beside front doors",
					   n->name, o->name, topo_dns_impl_name(o->dns_impl));
				break;
			}
		}
	}
	if (first < 0)
		return;
	if (topo_anycast_count(t) > 8)
		topo_error(
		    p, p->meta[first].where[TOPO_K_FRONT_DOOR],
		    "[site %s] front_door: the routers would watch %d anycast prefixes (the "
		    "front doors, the service, the anycast name servers): expected at most 8",
		    t->nodes[first].name, topo_anycast_count(t));
	for (int i = 0; i < t->nnodes && !lab_service; i++) {
		const struct topo_node *n = &t->nodes[i];

		if (n->kind == TOPO_CLIENT && n->mode != TOPO_MODE_DNS)
			topo_error(p,
				   p->meta[i].where[TOPO_K_MODE] ? p->meta[i].where[TOPO_K_MODE]
								 : n->line,
				   "[client %s] mode: its anycast requests go to the [lab] service "
				   "%s, which no site announces (every one has a front_door): "
				   "expected mode = dns",
				   n->name, inet_ntop(AF_INET, &t->service, a, sizeof(a)));
	}
}
