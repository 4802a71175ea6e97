/*
 * `steerlab nodes`: what each node of a lab that is up is made of, as text
 * and as JSON, from a loaded state (lab.h). The addresses are the plan
 * the topology implies (docs/man/steerlab.ini.5, ADDRESSES; what `steerlab
 * check` prints as comments); the agents are those of agents.tsv, each
 * alive or not.
 */
#include "cli.h"

#include <arpa/inet.h>
#include <string.h>

#include "strfmt.h"

/* One address of a node, on one of its interfaces. */
struct nodes_addr {
	const char *ifname;
	struct in_addr addr;
	int prefixlen;
	const char *role; /* link, rlink, id, service, site, cache */
};

#define NODES_MAX_ADDRS (TOPO_MAX_NODES + TOPO_MAX_RLINKS + TOPO_RESOLVER_COUNT_MAX + 3)

/* nodes_addrs: node n's addresses, in the order lab_up configures them */
static int nodes_addrs(const struct topology *t, int n, struct nodes_addr *out)
{
	const struct topo_node *node = &t->nodes[n];
	int k = 0;

	if (!topo_v4(t)) /* ip = 6: none on an interface */
		return 0;
	if (node->kind == TOPO_ROUTER) {
		for (int i = 0; i < t->nlinks; i++)
			if (t->links[i].router == n)
				out[k++] = (struct nodes_addr){t->links[i].router_ifname,
							       t->links[i].router_addr,
							       t->links[i].prefixlen, "link"};
		for (int i = 0; i < t->nrlinks; i++) {
			const struct topo_rlink *rl = &t->rlinks[i];

			if (rl->a == n)
				out[k++] = (struct nodes_addr){rl->a_ifname, rl->a_addr,
							       rl->prefixlen, "rlink"};
			else if (rl->b == n)
				out[k++] = (struct nodes_addr){rl->b_ifname, rl->b_addr,
							       rl->prefixlen, "rlink"};
		}
		out[k++] = (struct nodes_addr){"lo", node->router_id, 32, "id"};
		return k;
	}
	if (node->link >= 0)
		out[k++] = (struct nodes_addr){t->links[node->link].node_ifname,
					       t->links[node->link].node_addr,
					       t->links[node->link].prefixlen, "link"};
	if (node->kind == TOPO_SITE) {
		/* the service, or its region's front door */
		out[k++] = (struct nodes_addr){"lo", topo_site_service(t, n), 32, "service"};
		out[k++] = (struct nodes_addr){"lo", node->address, 32, "site"};
	}
	/* an anycast name server's address */
	if (node->kind == TOPO_DNS && node->anycast.s_addr != 0)
		out[k++] = (struct nodes_addr){"lo", node->anycast, 32, "anycast"};
	for (unsigned i = 1; node->kind == TOPO_RESOLVER && i <= node->count; i++)
		out[k++] = (struct nodes_addr){"lo", topo_resolver_addr(t, n, (int)i), 32, "cache"};
	return k;
}

/* One IPv6 address of a node ([lab] ip = dual). */
struct nodes_addr6 {
	const char *ifname;
	struct in6_addr addr;
	int prefixlen;
	const char *role; /* link, rlink, id, service, site, cache */
};

/* nodes_addrs6: node n's IPv6 addresses (ip = dual or 6; none else), in
 * the order lab/build/addr6.c configures them */
static int nodes_addrs6(const struct topology *t, int n, struct nodes_addr6 *out)
{
	const struct topo_node *node = &t->nodes[n];
	int k = 0;

	if (!topo_v6(t))
		return 0;
	if (node->kind == TOPO_ROUTER) {
		out[k++] = (struct nodes_addr6){"lo", node->address6, 128, "id"};
		for (int i = 0; i < t->nlinks; i++)
			if (t->links[i].router == n)
				out[k++] =
				    (struct nodes_addr6){t->links[i].router_ifname,
							 t->links[i].router_addr6, 64, "link"};
		for (int i = 0; i < t->nrlinks; i++) {
			const struct topo_rlink *rl = &t->rlinks[i];

			if (rl->a == n || rl->b == n)
				out[k++] = (struct nodes_addr6){
				    rl->a == n ? rl->a_ifname : rl->b_ifname,
				    rl->a == n ? rl->a_addr6 : rl->b_addr6, 64, "rlink"};
		}
		return k;
	}
	if (node->link >= 0)
		out[k++] = (struct nodes_addr6){t->links[node->link].node_ifname,
						t->links[node->link].node_addr6, 64, "link"};
	/* the service's (routing = static, no front door), as the IPv4 one */
	if (node->kind == TOPO_SITE && t->routing != TOPO_ROUTING_BGP &&
	    node->front_door.s_addr == 0)
		out[k++] = (struct nodes_addr6){"lo", t->service6, 128, "service"};
	if (node->kind == TOPO_SITE)
		out[k++] = (struct nodes_addr6){"lo", node->address6, 128, "site"};
	for (unsigned i = 1; node->kind == TOPO_RESOLVER && i <= node->count; i++)
		out[k++] =
		    (struct nodes_addr6){"lo", topo_resolver_addr6(t, n, (int)i), 128, "cache"};
	return k;
}

/* nodes_peer: link l seen from node n: its interface there, the peer node
 * and the peer's interface */
static void nodes_peer(const struct topology *t, int n, const struct topo_link *l,
		       const char **ifname, const char **peer, const char **peer_ifname)
{
	int mine = l->router == n;

	*ifname = mine ? l->router_ifname : l->node_ifname;
	*peer = t->nodes[mine ? l->node : l->router].name;
	*peer_ifname = mine ? l->node_ifname : l->router_ifname;
}

static void nodes_print_addrs(const struct topology *t, int n, FILE *out)
{
	static struct nodes_addr addrs[NODES_MAX_ADDRS];
	int k = nodes_addrs(t, n, addrs);
	char a[INET_ADDRSTRLEN + 4], last[INET_ADDRSTRLEN], desc[64];

	for (int i = 0; i < k; i++) {
		inet_ntop(AF_INET, &addrs[i].addr, a, INET_ADDRSTRLEN);
		strfmt(a + strlen(a), sizeof(a) - strlen(a), "/%d", addrs[i].prefixlen);
		if (strcmp(addrs[i].role, "link") == 0) {
			const char *ifname, *peer, *peer_ifname;

			for (int l = 0; l < t->nlinks; l++) {
				if ((t->links[l].router != n && t->links[l].node != n) ||
				    strcmp(addrs[i].ifname, t->links[l].router == n
								? t->links[l].router_ifname
								: t->links[l].node_ifname) != 0)
					continue;
				nodes_peer(t, n, &t->links[l], &ifname, &peer, &peer_ifname);
				strfmt(desc, sizeof(desc), "link to %s (%s)", peer, peer_ifname);
			}
		} else if (strcmp(addrs[i].role, "rlink") == 0) {
			for (int l = 0; l < t->nrlinks; l++) {
				const struct topo_rlink *rl = &t->rlinks[l];

				if (rl->a == n && strcmp(addrs[i].ifname, rl->a_ifname) == 0)
					strfmt(desc, sizeof(desc), "link to router %s (%s)",
					       t->nodes[rl->b].name, rl->b_ifname);
				else if (rl->b == n && strcmp(addrs[i].ifname, rl->b_ifname) == 0)
					strfmt(desc, sizeof(desc), "link to router %s (%s)",
					       t->nodes[rl->a].name, rl->a_ifname);
			}
		} else if (strcmp(addrs[i].role, "id") == 0) {
			strfmt(desc, sizeof(desc), "the router's id");
		} else if (strcmp(addrs[i].role, "service") == 0) {
			strfmt(desc, sizeof(desc), "the service (anycast)");
		} else if (strcmp(addrs[i].role, "site") == 0) {
			strfmt(desc, sizeof(desc), "the site's own (what DNS hands out)");
		} else if (strcmp(addrs[i].role, "anycast") == 0) {
			strfmt(desc, sizeof(desc), "the name server's anycast address");
		} else {
			/* a resolver's caches: one line for the block */
			const struct topo_node *node = &t->nodes[n];

			inet_ntop(AF_INET, &addrs[k - 1].addr, last, sizeof(last));
			if (node->count == 1)
				strfmt(desc, sizeof(desc), "cache %s1", node->name);
			else
				strfmt(desc, sizeof(desc), "caches %s1 .. %s%u, to %s", node->name,
				       node->name, node->count, last);
			fprintf(out, "  iface %-12s %-18s %s\n", addrs[i].ifname, a, desc);
			break;
		}
		fprintf(out, "  iface %-12s %-18s %s\n", addrs[i].ifname, a, desc);
	}
	{
		static struct nodes_addr6 addrs6[NODES_MAX_ADDRS];
		int k6 = nodes_addrs6(t, n, addrs6);
		char a6[INET6_ADDRSTRLEN + 5];

		for (int i = 0; i < k6; i++) {
			inet_ntop(AF_INET6, &addrs6[i].addr, a6, INET6_ADDRSTRLEN);
			strfmt(a6 + strlen(a6), sizeof(a6) - strlen(a6), "/%d",
			       addrs6[i].prefixlen);
			fprintf(out, "  iface %-12s %-18s IPv6, %s\n", addrs6[i].ifname, a6,
				addrs6[i].role);
		}
	}
}

void lab_nodes_print(const struct lab_state *s, FILE *out)
{
	const struct topology *t = &s->t;
	char ns[64];

	fprintf(out, "lab %s: %d nodes, run directory %s\n", s->name, t->nnodes,
		s->rundir[0] ? s->rundir : "(not recorded)");
	for (int n = 0; n < t->nnodes; n++) {
		int nagents = 0;

		lab_nsname(ns, sizeof(ns), t, n);
		fprintf(out, "%s (%s), namespace %s", t->nodes[n].name,
			topo_kind_name(t->nodes[n].kind), ns);
		/* its agents run, and are supervised, where it lives */
		if (t->nhosts)
			fprintf(out, ", host %s", t->hosts[t->nodes[n].host].name);
		fprintf(out, "\n");
		nodes_print_addrs(t, n, out);
		for (int i = 0; i < s->nagents; i++) {
			const struct lab_agent *a = &s->agents[i];

			if (a->node != n || !lab_state_current(s, i))
				continue;
			fprintf(out, "  agent %-13s pid %-8d %s\n", a->name, (int)a->pid,
				a->reaped ? "dead" : "alive");
			nagents++;
		}
		if (nagents == 0)
			fprintf(out, "  no agent%s\n",
				t->nodes[n].kind == TOPO_CLIENT
				    ? " (up --traffic starts the clients)"
				    : "");
	}
}

static json_t *nodes_json_node(const struct lab_state *s, int n)
{
	static struct nodes_addr addrs[NODES_MAX_ADDRS];
	const struct topology *t = &s->t;
	json_t *node, *addrj = json_array(), *links = json_array(), *agents = json_array();
	char ns[64], a[INET_ADDRSTRLEN];
	int k = nodes_addrs(t, n, addrs);

	lab_nsname(ns, sizeof(ns), t, n);
	node = json_pack("{s:s, s:s, s:s, s:o*, s:o*, s:o*}", "name", t->nodes[n].name, "kind",
			 topo_kind_name(t->nodes[n].kind), "namespace", ns, "addresses", addrj,
			 "links", links, "agents", agents);
	if (node && t->nhosts)
		json_object_set_new(node, "host", json_string(t->hosts[t->nodes[n].host].name));
	if (node == NULL || addrj == NULL || links == NULL || agents == NULL) {
		json_decref(node);
		return NULL;
	}
	for (int i = 0; i < k; i++) {
		inet_ntop(AF_INET, &addrs[i].addr, a, sizeof(a));
		if (json_array_append_new(addrj, json_pack("{s:s, s:s, s:i, s:s, s:i}", "interface",
							   addrs[i].ifname, "address", a,
							   "prefixlen", addrs[i].prefixlen, "role",
							   addrs[i].role, "family", 4)) == -1)
			goto fail;
	}
	{
		static struct nodes_addr6 addrs6[NODES_MAX_ADDRS];
		int k6 = nodes_addrs6(t, n, addrs6);
		char a6[INET6_ADDRSTRLEN];

		for (int i = 0; i < k6; i++) {
			inet_ntop(AF_INET6, &addrs6[i].addr, a6, sizeof(a6));
			if (json_array_append_new(
				addrj, json_pack("{s:s, s:s, s:i, s:s, s:i}", "interface",
						 addrs6[i].ifname, "address", a6, "prefixlen",
						 addrs6[i].prefixlen, "role", addrs6[i].role,
						 "family", 6)) == -1)
				goto fail;
		}
	}
	for (int l = 0; l < t->nlinks; l++) {
		const char *ifname, *peer, *peer_ifname;

		if (t->links[l].router != n && t->links[l].node != n)
			continue;
		nodes_peer(t, n, &t->links[l], &ifname, &peer, &peer_ifname);
		if (json_array_append_new(links,
					  json_pack("{s:s, s:s, s:s}", "interface", ifname, "peer",
						    peer, "peer_interface", peer_ifname)) == -1)
			goto fail;
	}
	for (int l = 0; l < t->nrlinks; l++) {
		const struct topo_rlink *rl = &t->rlinks[l];
		int mine = rl->a == n;

		if (rl->a != n && rl->b != n)
			continue;
		if (json_array_append_new(
			links, json_pack("{s:s, s:s, s:s}", "interface",
					 mine ? rl->a_ifname : rl->b_ifname, "peer",
					 t->nodes[mine ? rl->b : rl->a].name, "peer_interface",
					 mine ? rl->b_ifname : rl->a_ifname)) == -1)
			goto fail;
	}
	for (int i = 0; i < s->nagents; i++) {
		const struct lab_agent *ag = &s->agents[i];

		if (ag->node != n || !lab_state_current(s, i))
			continue;
		if (json_array_append_new(agents,
					  json_pack("{s:s, s:i, s:b}", "agent", ag->name, "pid",
						    (int)ag->pid, "alive", !ag->reaped)) == -1)
			goto fail;
	}
	return node;
fail:
	json_decref(node);
	return NULL;
}

json_t *lab_nodes_json(const struct lab_state *s)
{
	json_t *nodes = json_array(), *doc;

	doc = json_pack("{s:s, s:s?, s:o*}", "lab", s->name, "rundir",
			s->rundir[0] ? s->rundir : NULL, "nodes", nodes);
	if (doc == NULL || nodes == NULL) {
		json_decref(doc);
		return NULL;
	}
	for (int n = 0; n < s->t.nnodes; n++)
		if (json_array_append_new(nodes, nodes_json_node(s, n)) == -1) {
			json_decref(doc);
			return NULL;
		}
	return doc;
}
