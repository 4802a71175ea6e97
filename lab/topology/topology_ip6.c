/*
 * [lab] ip = 6 (docs/topology.md, "Addresses: IPv4 and dual stack"): the
 * lab's network in IPv6 alone. The address plan is the dual lab's; the
 * IPv4 addresses are on no interface and only name the nodes to the
 * clocks (lab_up's twins). Every client and prober is of family 6 unless
 * its section says otherwise, which is refused; what does not run over
 * IPv6 alone yet is refused by name.
 */
#include "topology_int.h"

void topo_ip6_defaults(struct topo_parse *p)
{
	struct topology *t = p->t;

	if (t->ip != TOPO_IP_6 || p->lab_bad[TOPO_K_IP])
		return;
	/* the [lab]'s family, every client's unless its own */
	if (p->lab_where[TOPO_K_LAB_FAMILY] == 0)
		t->family = TOPO_FAMILY_6;
	for (int i = 0; i < t->nnodes; i++)
		if (t->nodes[i].kind == TOPO_PROBER && p->meta[i].where[TOPO_K_PROBER_FAMILY] == 0)
			t->nodes[i].family = TOPO_FAMILY_6;
}

/* topo_ip6_without: what a lab of ip = 6 cannot have yet, or NULL */
static const char *topo_ip6_without(const struct topology *t)
{
	if (t->ecmp == TOPO_ECMP_RESILIENT)
		return "ecmp = resilient (its nexthop groups are IPv4)";
	if (topo_has_proximity(t))
		return "a [name] of policy = proximity (its probers' queriers are IPv4)";
	for (int i = 0; i < t->nnodes; i++) {
		const struct topo_node *n = &t->nodes[i];

		if (n->kind == TOPO_SITE && n->front_door.s_addr)
			return "front doors (an address of IPv4)";
		if (n->kind == TOPO_DNS && n->anycast.s_addr)
			return "an anycast [dns] node (its address is IPv4)";
		if (n->kind == TOPO_CLIENT && n->source_block.len > 0)
			return "a population's source_block (an IPv4 block)";
	}
	return NULL;
}

void topo_check_ip6(struct topo_parse *p)
{
	const struct topology *t = p->t;
	const char *without;

	if (t->ip != TOPO_IP_6 || p->lab_bad[TOPO_K_IP])
		return;
	if ((without = topo_ip6_without(t)) != NULL)
		topo_error(p, p->lab_where[TOPO_K_IP], "[lab] ip = 6: not yet with %s", without);
	for (int i = 0; i < t->nnodes; i++) {
		const struct topo_node *n = &t->nodes[i];
		int where;

		if ((n->kind != TOPO_CLIENT && n->kind != TOPO_PROBER) ||
		    n->family == TOPO_FAMILY_6)
			continue;
		where =
		    p->meta[i].where[n->kind == TOPO_CLIENT ? TOPO_K_FAMILY : TOPO_K_PROBER_FAMILY];
		topo_error(
		    p, where ? where : p->lab_where[TOPO_K_LAB_FAMILY],
		    "[%s %s] family = %s: the lab's network has no IPv4 (ip = 6); expected 6",
		    topo_kind_name(n->kind), n->name, n->family == TOPO_FAMILY_DUAL ? "dual" : "4");
	}
}
