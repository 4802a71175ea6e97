/*
 * One lab over several hosts (topology.h, docs/topology.md, "Hosts"): the
 * [host NAME] sections, each node's `host`, which links are VXLAN tunnels,
 * and what `steerlab check` prints of them.
 */
#include "topology.h"

#include <arpa/inet.h>
#include <string.h>

#include "topology_int.h"

#define TOPO_HOST_SSH_RULE                                                                         \
	"only simulated hosts are implemented: leave ssh out or write ssh = simulated "            \
	"(docs/topology.md, \"Hosts\")"

void topo_host_header(struct topo_parse *p, const char *name, const char *extra)
{
	struct topology *t = p->t;
	struct topo_host *h;
	int other;

	p->sect = TOPO_SECT_SKIP;
	if (name == NULL || extra) {
		topo_error(p, p->in.lineno, "expected one name: [host NAME]");
		return;
	}
	if (topo_check_name(name) < 0) {
		topo_error(p, p->in.lineno, "[host %s]: %s, got '%s'", name, TOPO_NAME_RULE, name);
		return;
	}
	if ((other = topo_find_host(t, name)) >= 0) {
		topo_error(p, p->in.lineno, "duplicate host name '%s' (first defined at line %d)",
			   name, t->hosts[other].line);
		return;
	}
	/* the host of the nodes without one may be added (TOPO_HOST_LOCAL) */
	if (t->nhosts == TOPO_MAX_HOSTS - 1) {
		topo_error(p, p->in.lineno, "too many [host] sections (at most %d)",
			   TOPO_MAX_HOSTS - 1);
		return;
	}
	h = &t->hosts[t->nhosts];
	memset(h, 0, sizeof(*h));
	snprintf(h->name, sizeof(h->name), "%s", name);
	h->line = p->in.lineno;
	p->host = t->nhosts++;
	p->sect = TOPO_SECT_HOST;
}

void topo_host_key(struct topo_parse *p, const char *name, const char *value)
{
	struct topo_host *h = &p->t->hosts[p->host];
	int line = p->in.lineno;

	if (strcmp(name, "address") == 0) {
		if (h->address_line) {
			topo_error(p, line, "[host %s] address: set twice (first at line %d)",
				   h->name, h->address_line);
			return;
		}
		if (inet_pton(AF_INET, value, &h->address) != 1 || !addrplan_in_lab(h->address)) {
			topo_error(
			    p, line,
			    "[host %s] address: expected an IPv4 address in " ADDRPLAN_NET_TEXT
			    " (a simulated host's underlay), got '%s'",
			    h->name, value);
			return;
		}
		h->address_line = line;
	} else if (strcmp(name, "ssh") == 0) {
		if (h->ssh_line) {
			topo_error(p, line, "[host %s] ssh: set twice (first at line %d)", h->name,
				   h->ssh_line);
			return;
		}
		if (strlen(value) >= sizeof(h->ssh)) {
			topo_error(p, line, "[host %s] ssh: value too long (at most %d characters)",
				   h->name, (int)sizeof(h->ssh) - 1);
			return;
		}
		snprintf(h->ssh, sizeof(h->ssh), "%s", value);
		h->ssh_line = line;
	} else {
		topo_error(p, line, "unknown key '%s' in [host %s] (expected: address, ssh)", name,
			   h->name);
	}
}

int topo_find_host(const struct topology *t, const char *name)
{
	for (int i = 0; i < t->nhosts; i++)
		if (strcmp(t->hosts[i].name, name) == 0)
			return i;
	return -1;
}

/* topo_host_where: where node i's `host` was set (0: not) */
static int topo_host_where(struct topo_parse *p, int i)
{
	const struct topo_key *keys;
	int n;

	keys = topo_sect_keys(p, i, &n);
	for (int k = 0; k < n; k++)
		if (strcmp(keys[k].name, "host") == 0)
			return *topo_where(p, i, k);
	return 0;
}

/* topo_hosts_nodes: each node's host resolved; how many have none */
static int topo_hosts_nodes(struct topo_parse *p)
{
	struct topology *t = p->t;
	int local = 0;

	for (int i = 0; i < t->nnodes; i++) {
		struct topo_node *node = &t->nodes[i];

		if (node->host_name[0] == '\0') {
			local++;
			continue;
		}
		node->host = topo_find_host(t, node->host_name);
		if (node->host < 0 && t->nhosts == 0)
			topo_error(p, topo_host_where(p, i),
				   "[%s %s] host: no [host %s] (expected the name of a [host] "
				   "section; the lab has none)",
				   topo_kind_name(node->kind), node->name, node->host_name);
		else if (node->host < 0)
			topo_error(p, topo_host_where(p, i),
				   "[%s %s] host: no [host %s] (expected the name of a [host] "
				   "section, such as %s)",
				   topo_kind_name(node->kind), node->name, node->host_name,
				   t->hosts[0].name);
	}
	return local;
}

void topo_check_hosts(struct topo_parse *p)
{
	struct topology *t = p->t;
	int local = topo_hosts_nodes(p), l;

	if (t->nhosts == 0)
		return;
	/* the nodes without `host` are on the machine steerlab runs on */
	if (local && (l = topo_find_host(t, TOPO_HOST_LOCAL)) < 0) {
		/* first: the host the others' clocks are measured against */
		memmove(&t->hosts[1], &t->hosts[0], (size_t)t->nhosts * sizeof(t->hosts[0]));
		t->nhosts++;
		for (int i = 0; i < t->nnodes; i++)
			if (t->nodes[i].host >= 0)
				t->nodes[i].host++;
		l = 0;
		memset(&t->hosts[l], 0, sizeof(t->hosts[l]));
		snprintf(t->hosts[l].name, sizeof(t->hosts[l].name), "%s", TOPO_HOST_LOCAL);
	}
	for (int i = 0; local && i < t->nnodes; i++)
		if (t->nodes[i].host_name[0] == '\0')
			t->nodes[i].host = l;
	for (int h = 0; h < t->nhosts; h++) {
		struct topo_host *host = &t->hosts[h];
		int node = topo_find(t, host->name);

		/* hosts' namespaces are LAB-NAME, as the nodes' */
		if (node >= 0)
			topo_error(p, host->line,
				   "[host %s]: %s %s has that name (expected a host name no node "
				   "has: both name a namespace %s-NAME)",
				   host->name, topo_kind_name(t->nodes[node].kind), host->name,
				   t->name);
		if (host->ssh_line && strcmp(host->ssh, "simulated") != 0)
			topo_error(p, host->ssh_line, "[host %s] ssh = %s: %s", host->name,
				   host->ssh, TOPO_HOST_SSH_RULE);
		if (!host->ssh_line)
			snprintf(host->ssh, sizeof(host->ssh), "simulated");
		if (!host->address_line)
			host->address = addrplan_host((unsigned)h);
		for (int o = 0; o < h; o++)
			if (t->hosts[o].address.s_addr == host->address.s_addr) {
				char a[INET_ADDRSTRLEN];

				topo_error(p, host->address_line ? host->address_line : host->line,
					   "[host %s] address: %s is host %s's too (expected an "
					   "address of its own)",
					   host->name,
					   inet_ntop(AF_INET, &host->address, a, sizeof(a)),
					   t->hosts[o].name);
			}
	}
}

uint32_t topo_link_vni(const struct topology *t, int l)
{
	const struct topo_link *link = &t->links[l];

	if (t->nhosts == 0 || t->nodes[link->router].host == t->nodes[link->node].host)
		return 0;
	return TOPO_VNI_LINKS + (uint32_t)l;
}

uint32_t topo_rlink_vni(const struct topology *t, int j)
{
	const struct topo_rlink *rl = &t->rlinks[j];

	if (t->nhosts == 0 || t->nodes[rl->a].host == t->nodes[rl->b].host)
		return 0;
	return TOPO_VNI_RLINKS + (uint32_t)j;
}

/* topo_print_vxlan: one VXLAN link, as a comment */
static void topo_print_vxlan(const struct topology *t, uint32_t vni, int a, int b, FILE *out)
{
	const struct topo_host *ha = &t->hosts[t->nodes[a].host], *hb = &t->hosts[t->nodes[b].host];
	char la[INET_ADDRSTRLEN], lb[INET_ADDRSTRLEN];

	fprintf(out, "#   %s (%s) - %s (%s): VXLAN id %u, %s to %s, MTU %d\n", t->nodes[a].name,
		ha->name, t->nodes[b].name, hb->name, (unsigned)vni,
		inet_ntop(AF_INET, &ha->address, la, sizeof(la)),
		inet_ntop(AF_INET, &hb->address, lb, sizeof(lb)), TOPO_VXLAN_MTU);
}

void topo_print_hosts(const struct topology *t, FILE *out)
{
	char a[INET_ADDRSTRLEN];
	int nvxlan = 0;

	if (t->nhosts == 0)
		return;
	for (int h = 0; h < t->nhosts; h++) {
		const struct topo_host *host = &t->hosts[h];
		int nodes = 0;

		fprintf(out, "\n[host %s]\n", host->name);
		if (strcmp(host->name, TOPO_HOST_LOCAL) == 0)
			fprintf(out, "# the machine steerlab runs on: the nodes without host\n");
		fprintf(out, "# simulated: namespace %s-%s, underlay %s (MTU %d), nodes:", t->name,
			host->name, inet_ntop(AF_INET, &host->address, a, sizeof(a)),
			TOPO_UNDERLAY_MTU);
		for (int i = 0; i < t->nnodes; i++)
			if (t->nodes[i].host == h) {
				fprintf(out, "%s%s", nodes && nodes % 8 == 0 ? "\n#  " : " ",
					t->nodes[i].name);
				nodes++;
			}
		fprintf(out, "%s\n", nodes ? "" : " none");
		fprintf(out, "address = %s\nssh = %s\n", a, host->ssh);
	}
	for (int l = 0; l < t->nlinks; l++)
		nvxlan += topo_link_vni(t, l) != 0;
	for (int j = 0; j < t->nrlinks; j++)
		nvxlan += topo_rlink_vni(t, j) != 0;
	fprintf(out, "# %d link%s between hosts, VXLAN over the underlay (UDP port %d)%s\n", nvxlan,
		nvxlan == 1 ? "" : "s", TOPO_VXLAN_PORT, nvxlan ? ":" : "");
	for (int l = 0; l < t->nlinks; l++)
		if (topo_link_vni(t, l))
			topo_print_vxlan(t, topo_link_vni(t, l), t->links[l].node,
					 t->links[l].router, out);
	for (int j = 0; j < t->nrlinks; j++)
		if (topo_rlink_vni(t, j))
			topo_print_vxlan(t, topo_rlink_vni(t, j), t->rlinks[j].a, t->rlinks[j].b,
					 out);
}
