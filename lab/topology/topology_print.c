/*
 * topo_print: the parsed topology back as a topology file, every value
 * explicit. `steerlab check` shows it, `steerlab run` keeps it in the run
 * directory, and topo_load reads it back to the same topology. Link
 * addresses are comments (they follow from the link order, they are not
 * keys). A [resolver] node's resolverd keys follow its own, as written;
 * [zone] and [name] sections come last, their pairs as written. A client
 * of a [resolver] node names the cache it was given (NAME.N), and every
 * client its sticky, the one [lab] sticky_share gave it included: read
 * back, it is the client's own, which the share leaves alone. What the
 * lab's DNS tree adds (topology_tree.c) is printed as comments: the [dns]
 * nodes and zones of [lab] dns_tree, which reading the output back adds
 * again, and after each zone who serves it and the records generated in it.
 * The output depends only on the topology: it is golden-tested.
 */
#include "topology.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "topology_int.h"

static void topo_print_link(const struct topology *t, int i, FILE *out)
{
	const struct topo_link *l = &t->links[i];
	char ra[INET_ADDRSTRLEN], na[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &l->router_addr, ra, sizeof(ra));
	inet_ntop(AF_INET, &l->node_addr, na, sizeof(na));
	fprintf(out, "# link %d: %s:%s %s/%d <-> %s:%s %s/%d\n", i, t->nodes[l->router].name,
		l->router_ifname, ra, l->prefixlen, t->nodes[l->node].name, l->node_ifname, na,
		l->prefixlen);
	if (topo_v6(t)) {
		char ra6[INET6_ADDRSTRLEN], na6[INET6_ADDRSTRLEN];

		inet_ntop(AF_INET6, &l->router_addr6, ra6, sizeof(ra6));
		inet_ntop(AF_INET6, &l->node_addr6, na6, sizeof(na6));
		fprintf(out, "#   IPv6: %s/64 <-> %s/64\n", ra6, na6);
	}
}

/* topo_print_zones: a [dns] node's zones, every one by name as written */
static void topo_print_zones(const struct topology *t, const struct topo_node *node, FILE *out)
{
	fprintf(out, "zones =");
	for (int z = 0; z < t->nraw_sections; z++)
		if (topo_dns_serves(t, (int)(node - t->nodes), z))
			fprintf(out, " %s", t->raw_sections[z].name);
	fprintf(out, "\n");
}

/* topo_print_record: a record the lab generates, as a comment */
static void topo_print_record(void *arg, const char *record, int line)
{
	(void)line;
	fprintf(arg, "# generated: record = %s\n", record);
}

/* topo_print_servers: which [dns] nodes serve zone z, as a comment */
static void topo_print_servers(const struct topology *t, int z, FILE *out)
{
	const struct topo_raw_section *zone = &t->raw_sections[z];
	char a[INET_ADDRSTRLEN];

	fprintf(out, "# served by");
	for (int s = 0; s < zone->nservers; s++) {
		const struct topo_node *d = &t->nodes[zone->servers[s]];

		inet_ntop(AF_INET, &t->links[d->link].node_addr, a, sizeof(a));
		fprintf(out, "%s %s (%s)", s ? "," : "", d->name, a);
	}
	if (zone->parent >= 0)
		fprintf(out, "; delegated from %s%s", t->raw_sections[zone->parent].apex,
			zone->deleg_written ? " as written there" : "");
	fprintf(out, "\n");
}

/* topo_print_tree_node: a [dns] node [lab] dns_tree adds, as comments: it
 * is added again when the output is read back */
static void topo_print_tree_node(const struct topology *t, int i, FILE *out)
{
	const struct topo_node *node = &t->nodes[i];

	fprintf(out, "\n# [dns %s]: added by [lab] dns_tree (a comment: added again when read)\n",
		node->name);
	if (node->link >= 0) {
		topo_print_link(t, node->link, out);
		fprintf(out, "# link = %s\n# ", t->nodes[t->links[node->link].router].name);
	}
	topo_print_zones(t, node, out);
}

/* topo_print_site_shares: "SITE:W ..." as the shares they mean, a comment:
 * "# target shares: b34 50.0%, b35 30.0%, b06 20.0% (W / sum W)" */
static void topo_print_site_shares(const char *value, FILE *out)
{
	char buf[TOPO_TARGET_SHARE_LEN], *save = NULL, *tok;
	double sum = 0;

	snprintf(buf, sizeof(buf), "%s", value);
	for (const char *c = strchr(value, ':'); c; c = strchr(c + 1, ':'))
		sum += strtod(c + 1, NULL);
	fprintf(out, "# target shares:");
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char *colon = strchr(tok, ':');

		*colon = '\0';
		fprintf(out, "%s %s %.1f%%", tok == buf ? "" : ",", tok,
			100 * strtod(colon + 1, NULL) / sum);
	}
	fprintf(out, " (W / sum W)\n");
}

/* topo_print_keys' buffer holds the longest value: a list of weights or
 * target shares */
_Static_assert(TOPO_TARGET_SHARE_LEN >= TOPO_WEIGHTS_LEN &&
		   TOPO_TARGET_SHARE_LEN >= TOPO_DNS_NAME_MAX + 2,
	       "topo_print_keys: buf too short");

static void topo_print_keys(const struct topology *t, const struct topo_node *node,
			    const struct topo_key *keys, int n, FILE *out)
{
	const char *base = node ? (const char *)node : (const char *)t;
	char buf[TOPO_TARGET_SHARE_LEN];
	struct in_addr cache;

	for (int k = 0; k < n; k++) {
		if (topo_bgp_only(t, node, keys[k].name) ||
		    (!node && t->routing == TOPO_ROUTING_BGP &&
		     strncmp(keys[k].name, "static_", 7) == 0))
			continue;
		if (node && node->kind == TOPO_CLIENT && node->skew != TOPO_SKEW_ZIPF &&
		    strcmp(keys[k].name, "zipf_exponent") == 0)
			continue;
		if (node && node->kind == TOPO_CLIENT && node->resolver_weights[0] == '\0' &&
		    strcmp(keys[k].name, "resolver_weights") == 0)
			continue;
		if (node && node->kind == TOPO_CLIENT && node->source_block.len == 0 &&
		    strcmp(keys[k].name, "source_block") == 0)
			continue;
		if (node && node->kind == TOPO_CLIENT && node->population == 0 &&
		    (strcmp(keys[k].name, "population") == 0 || strcmp(keys[k].name, "skew") == 0 ||
		     strcmp(keys[k].name, "zipf_exponent") == 0 ||
		     strcmp(keys[k].name, "arrivals") == 0))
			continue;
		if (node && node->kind == TOPO_RESOLVER && node->impl == TOPO_IMPL_RESOLVERD &&
		    strcmp(keys[k].name, "impl") == 0)
			continue;
		if (node && node->kind == TOPO_SITE && node->site_impl == TOPO_SITE_SITED &&
		    strcmp(keys[k].name, "impl") == 0)
			continue;
		if (node && node->kind == TOPO_DNS && node->dns_impl == TOPO_DNS_AUTHD &&
		    (strcmp(keys[k].name, "impl") == 0 || strncmp(keys[k].name, "check_", 6) == 0))
			continue;
		if (node && node->kind == TOPO_DNS && node->anycast.s_addr == 0 &&
		    strcmp(keys[k].name, "anycast") == 0)
			continue;
		if (node && node->kind == TOPO_SITE && node->front_door.s_addr == 0 &&
		    strcmp(keys[k].name, "front_door") == 0)
			continue;
		if (node == NULL && t->records == TOPO_RECORDS_CSV &&
		    strcmp(keys[k].name, "records") == 0)
			continue;
		if (node == NULL && !t->dns_tree && strcmp(keys[k].name, "dns_tree") == 0)
			continue;
		/* a site's or prober's check likewise */
		if (t->check == TOPO_CHECK_UDP && (node == NULL || node->check == TOPO_CHECK_UDP) &&
		    strcmp(keys[k].name, "check") == 0)
			continue;
		if (t->probe_phase == TOPO_PROBE_PHASE_START &&
		    (node == NULL || node->probe_phase == TOPO_PROBE_PHASE_START) &&
		    strcmp(keys[k].name, "probe_phase") == 0)
			continue;
		/* every client's when the lab's is not udp: what it reads back */
		if (t->proto == TOPO_PROTO_UDP && (node == NULL || node->proto == TOPO_PROTO_UDP) &&
		    strcmp(keys[k].name, "proto") == 0)
			continue;
		if (node == NULL && t->http_path[0] == '\0' &&
		    (strcmp(keys[k].name, "http_path") == 0 ||
		     strcmp(keys[k].name, "http_status") == 0 ||
		     strcmp(keys[k].name, "http_body") == 0))
			continue;
		if (node == NULL && t->http_body[0] == '\0' &&
		    strcmp(keys[k].name, "http_body") == 0)
			continue;
		if (node == NULL && t->probe_connect_timeout_ns == 0 &&
		    strcmp(keys[k].name, "probe_connect_timeout") == 0)
			continue;
		if (node == NULL && t->reconnect == 0 && strcmp(keys[k].name, "reconnect") == 0)
			continue;
		if (node == NULL && t->ip == TOPO_IP_4 && strcmp(keys[k].name, "ip") == 0)
			continue;
		if ((t->family == TOPO_FAMILY_4 || (node && node->kind == TOPO_PROBER)) &&
		    (node == NULL || node->family == TOPO_FAMILY_4) &&
		    strcmp(keys[k].name, "family") == 0)
			continue;
		/* printed when on: both routings read them */
		if (node == NULL && t->ecmp == TOPO_ECMP_NO &&
		    (strcmp(keys[k].name, "ecmp") == 0 || strcmp(keys[k].name, "ecmp_hash") == 0))
			continue;
		if (t->addresses == TOPO_ADDRESSES_FIRST &&
		    (node == NULL || node->addresses == TOPO_ADDRESSES_FIRST) &&
		    strcmp(keys[k].name, "addresses") == 0)
			continue;
		if (t->connect_timeout_ns == 0 && (node == NULL || node->connect_timeout_ns == 0) &&
		    strcmp(keys[k].name, "connect_timeout") == 0)
			continue;
		if (node && node->kind == TOPO_CLIENT &&
		    ((node->requests_per_conn == 0 &&
		      strcmp(keys[k].name, "requests_per_connection") == 0) ||
		     (node->idle_timeout_ns == 0 && strcmp(keys[k].name, "idle_timeout") == 0) ||
		     (node->pipeline == 0 && strcmp(keys[k].name, "pipeline") == 0)))
			continue;
		if (node && node->kind == TOPO_CLIENT && node->resolve != TOPO_RESOLVE_LIBCURL &&
		    (strcmp(keys[k].name, "resolve") == 0 ||
		     strcmp(keys[k].name, "dns_cache") == 0))
			continue;
		if (node && node->host_name[0] == '\0' && strcmp(keys[k].name, "host") == 0)
			continue;
		/* what only distance uses: printed when it is */
		if (keys[k].type == TOPO_T_LOCATION && !node->location.set)
			continue;
		if (node == NULL && !topo_delay_auto(t) && strcmp(keys[k].name, "hop_delay") == 0)
			continue;
		/* what only the analysis reads: printed when set */
		if (keys[k].type == TOPO_T_SITE_SHARES) {
			if (base[keys[k].off] == '\0')
				continue;
			topo_print_site_shares(base + keys[k].off, out);
		}
		if (keys[k].type == TOPO_T_ZONES) {
			topo_print_zones(t, node, out);
			continue;
		}
		if (node && node->resolver_all && keys[k].type == TOPO_T_RESOLVER) {
			fprintf(out, "# its logical clients ask the %u caches %s\nresolver = %s\n",
				t->nodes[node->resolver].count,
				node->resolver_weights[0] ? "by resolver_weights" : "in turn",
				t->nodes[node->resolver].name);
			continue;
		}
		if (keys[k].type == TOPO_T_LINK) {
			if (node->link < 0)
				continue;
			topo_print_link(t, node->link, out);
			fprintf(out, "link = %s\n", t->nodes[t->links[node->link].router].name);
			continue;
		}
		if (keys[k].type == TOPO_T_RESOLVER) {
			if (node->resolver < 0) /* not used, in anycast mode */
				continue;
			if (node->resolver_instance == 0) {
				fprintf(out, "resolver = %s\n", t->nodes[node->resolver].name);
				continue;
			}
			cache = topo_client_resolver(t, (int)(node - t->nodes));
			inet_ntop(AF_INET, &cache, buf, sizeof(buf));
			fprintf(out, "# asks cache %s%d at %s\nresolver = %s.%d\n",
				t->nodes[node->resolver].name, node->resolver_instance, buf,
				t->nodes[node->resolver].name, node->resolver_instance);
			continue;
		}
		fprintf(out, "%s = %s\n", keys[k].name,
			topo_format_value(&keys[k], base + keys[k].off, buf, sizeof(buf)));
	}
}

/* topo_print_rlink: a [link]'s addresses, as a comment. */
static void topo_print_rlink(const struct topology *t, int j, FILE *out)
{
	const struct topo_rlink *rl = &t->rlinks[j];
	char aa[INET_ADDRSTRLEN], ba[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &rl->a_addr, aa, sizeof(aa));
	inet_ntop(AF_INET, &rl->b_addr, ba, sizeof(ba));
	fprintf(out, "# router link %d: %s:%s %s/%d <-> %s:%s %s/%d\n", j, t->nodes[rl->a].name,
		rl->a_ifname, aa, rl->prefixlen, t->nodes[rl->b].name, rl->b_ifname, ba,
		rl->prefixlen);
	if (topo_v6(t)) {
		char aa6[INET6_ADDRSTRLEN], ba6[INET6_ADDRSTRLEN];

		inet_ntop(AF_INET6, &rl->a_addr6, aa6, sizeof(aa6));
		inet_ntop(AF_INET6, &rl->b_addr6, ba6, sizeof(ba6));
		fprintf(out, "#   IPv6: %s/64 <-> %s/64\n", aa6, ba6);
	}
}

/* topo_print_mib: bytes as MiB, to the hundredth, no trailing zeros */
static const char *topo_print_mib(uint64_t bytes, char *buf, size_t len)
{
	size_t n;

	snprintf(buf, len, "%.2f", (double)bytes / (1 << 20));
	n = strlen(buf);
	while (buf[n - 1] == '0')
		buf[--n] = '\0';
	if (buf[n - 1] == '.')
		buf[--n] = '\0';
	snprintf(buf + n, len - n, " MiB");
	return buf;
}

/* topo_print_item: one item of a comment list, the line wrapped at 100
 * columns; *col is where the line is (0: nothing on it yet) */
static void topo_print_item(FILE *out, int *col, const char *first, const char *item)
{
	int len = (int)strlen(item);

	if (*col == 0)
		*col = fprintf(out, "%s", first);
	else if (*col + 2 + len > 100)
		*col = fprintf(out, ",\n#   ");
	else
		*col += fprintf(out, ", ");
	*col += fprintf(out, "%s", item);
}

/* topo_print_captures: the kernel ring of each of router i's captures
 * (topo_capture_ring) and their sum */
static void topo_print_captures(const struct topology *t, int i, FILE *out)
{
	char item[TOPO_NAME_MAX * 2 + 48], size[32];
	uint64_t sum;
	int col = 0, n;

	for (int l = 0; l < t->nlinks; l++) {
		enum topo_kind kind = t->nodes[t->links[l].node].kind;

		if (t->links[l].router != i || !topo_captured(t, l))
			continue;
		snprintf(item, sizeof(item), "%s%s %s",
			 kind == TOPO_SITE ? "" : (kind == TOPO_DNS ? "dns-" : "resolver-"),
			 t->nodes[t->links[l].node].name,
			 topo_print_mib(topo_capture_ring(t, l), size, sizeof(size)));
		topo_print_item(out, &col, "# captures: ", item);
	}
	for (int l = 0; l < t->nlinks; l++) {
		if (t->links[l].router != i || !topo_captured_bgp(t, l))
			continue;
		snprintf(item, sizeof(item), "link-%s-%s %s", t->nodes[i].name,
			 t->nodes[t->links[l].node].name,
			 topo_print_mib(topo_capture_ring_rlink(t, -1), size, sizeof(size)));
		topo_print_item(out, &col, "# captures: ", item);
	}
	for (int j = 0; j < t->nrlinks; j++) {
		if (t->rlinks[j].a != i)
			continue;
		snprintf(item, sizeof(item), "link-%s-%s %s", t->nodes[t->rlinks[j].a].name,
			 t->nodes[t->rlinks[j].b].name,
			 topo_print_mib(topo_capture_ring_rlink(t, j), size, sizeof(size)));
		topo_print_item(out, &col, "# captures: ", item);
	}
	if (col == 0)
		return;
	sum = topo_capture_total(t, i, &n);
	fprintf(out, ": %s of kernel memory\n", topo_print_mib(sum, size, sizeof(size)));
}

/* topo_print_capture_total: what every capture's ring takes */
static void topo_print_capture_total(const struct topology *t, FILE *out)
{
	char size[32];
	uint64_t sum;
	int n;

	sum = topo_capture_total(t, -1, &n);
	if (n == 0)
		return;
	fprintf(out,
		"# The captures' rings: %d link%s, %s of kernel memory, %s;\n"
		"# each router's captures are under it.\n",
		n, n == 1 ? "" : "s", topo_print_mib(sum, size, sizeof(size)),
		t->capture_buffer ? "capture_buffer each" : "each sized by what it carries");
}

/* topo_print_router: a router's id, and its links to routers. */
static void topo_print_router(const struct topology *t, int i, FILE *out)
{
	static struct topo_path path[TOPO_MAX_NODES];
	char id[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &t->nodes[i].router_id, id, sizeof(id));
	fprintf(out, "# router %d, id %s/32 on lo\n", t->nodes[i].router_index, id);
	if (topo_v6(t)) {
		char id6[INET6_ADDRSTRLEN];

		inet_ntop(AF_INET6, &t->nodes[i].address6, id6, sizeof(id6));
		fprintf(out, "#   IPv6: %s/128 on lo\n", id6);
	}
	for (int j = 0; j < t->nrlinks; j++)
		if (t->rlinks[j].a == i || t->rlinks[j].b == i)
			topo_print_rlink(t, j, out);
	/* routing = static: the route to each site's anycast announcement
	 * (with BGP, bgpd chooses; FRR's configuration is printed apart) */
	if (t->nrouters < 2 || t->routing == TOPO_ROUTING_BGP)
		return;
	topo_paths(t, i, path);
	for (int s = 0; s < t->nnodes; s++) {
		struct in_addr via;
		const char *ifname;
		int hops;

		if (t->nodes[s].kind != TOPO_SITE || t->nodes[s].link < 0)
			continue;
		hops = topo_route_to(t, i, path, s, &via, &ifname);
		if (hops < 0)
			continue;
		inet_ntop(AF_INET, &via, id, sizeof(id));
		fprintf(out, "# to site %s: %d hop%s, via %s dev %s, anycast metric %llu\n",
			t->nodes[s].name, hops, hops == 1 ? "" : "s", id, ifname,
			(unsigned long long)hops * TOPO_HOPS_METRIC + t->nodes[s].metric);
	}
}

/* topo_print_weighted: a weighted [name] section seen through fewer caches
 * than it has sites: each cache hands out one site per TTL, so the shares
 * its clients see are the caches', not the weights (docs/authd.md) */
static void topo_print_weighted(const struct topology *t, int s, FILE *out)
{
	unsigned caches = 0;
	int weighted = 0, sites = 0;

	for (int i = 0; i < t->nraw_pairs; i++) {
		const struct topo_raw_pair *p = &t->raw_pairs[i];

		if (p->section != s)
			continue;
		weighted |= strcmp(p->key, "policy") == 0 && strcmp(p->value, "weighted") == 0;
		sites += strcmp(p->key, "weight") == 0;
	}
	/* a [resolver] node's caches; a client that asks a [dns] node itself
	 * keeps its own copy (each logical client of a population its own) */
	for (int n = 0; n < t->nnodes; n++) {
		const struct topo_node *node = &t->nodes[n];

		if (node->kind == TOPO_RESOLVER)
			caches += node->count;
		else if (node->kind == TOPO_CLIENT && node->resolver >= 0 &&
			 t->nodes[node->resolver].kind == TOPO_DNS)
			caches += node->population ? node->population : 1;
	}
	if (!weighted || sites == 0 || caches >= (unsigned)sites)
		return;
	fprintf(out,
		"# note: weighted over %d sites, but the lab has %u cache%s: each hands out one "
		"site a TTL,\n# so the clients see the caches' picks, not the weights; a "
		"[client] with population = N over\n# a [resolver] with count = C >= %d shows "
		"them (docs/authd.md, \"Weights and caches\")\n",
		sites, caches, caches == 1 ? "" : "s", sites);
}

/* topo_print_caches: a [resolver] node's caches and their addresses. */
static void topo_print_caches(const struct topology *t, int i, FILE *out)
{
	const struct topo_node *node = &t->nodes[i];
	char first[INET_ADDRSTRLEN], last[INET_ADDRSTRLEN], net[INET_ADDRSTRLEN];
	struct in_addr a;

	a = topo_resolver_addr(t, i, 1);
	inet_ntop(AF_INET, &a, first, sizeof(first));
	a = topo_resolver_addr(t, i, (int)node->count);
	inet_ntop(AF_INET, &a, last, sizeof(last));
	inet_ntop(AF_INET, &node->resolver_net, net, sizeof(net));
	if (node->count == 1)
		fprintf(out, "# cache %s1 at %s (block %s/24)\n", node->name, first, net);
	else
		fprintf(out, "# caches %s1 .. %s%u at %s .. %s (block %s/24)\n", node->name,
			node->name, node->count, first, last, net);
}

void topo_print(const struct topology *t, FILE *out)
{
	const struct topo_key *keys;
	int n, resolvers = 0;

	for (int i = 0; i < t->nnodes; i++)
		resolvers += t->nodes[i].kind == TOPO_RESOLVER;
	fprintf(out, "# steerlab topology '%s', every value explicit (docs/topology.md).\n",
		t->name);
	fprintf(out, "# Link i is " ADDRPLAN_LINK_RULE_TEXT ": router end .1, node end .2.\n");
	if (t->nrouters > 1)
		fprintf(out,
			"# Router link j is " ADDRPLAN_RLINK_RULE_TEXT ": first router written .1, "
			"second .2;\n# router k (from 0) has the id " ADDRPLAN_ROUTER_ID_RULE_TEXT
			" and, by "
			"default, AS %u + k.\n",
			TOPO_ASN_BASE);
	if (resolvers)
		fprintf(out, "# The k-th [resolver] (from 0) has " ADDRPLAN_RESOLVER_RULE_TEXT
			     ": cache i "
			     "at .i.\n");
	if (t->ip == TOPO_IP_6)
		fprintf(out, "# ip = 6: the IPv4 addresses below are on no interface: they name "
			     "the nodes\n# to the clocks (each IPv6 address's twin); only the "
			     "IPv6 ones are configured.\n");
	if (topo_v6(t))
		fprintf(out,
			"# IPv6 (ip = %s): the same plan in " ADDRPLAN6_NET_TEXT
			", a /64 each: link i 2001:2:0:i::/64 (hex),\n"
			"# router link j 2001:2:0:1000+j::/64, router k 2001:2:0:2000::(k + 1), "
			"the k-th [resolver]\n# 2001:2:0:8000+k::/64, site N 2001:2:0:ff01::N, "
			"the service " ADDRPLAN6_SERVICE_TEXT "\n# (docs/topology.md, "
			"\"Addresses\").\n",
			t->ip == TOPO_IP_6 ? "6" : "dual");
	topo_print_capture_total(t, out);
	fprintf(out, "\n[lab]\n");
	keys = topo_keys(-1, &n);
	topo_print_keys(t, NULL, keys, n, out);
	topo_print_hosts(t, out);
	for (int i = 0; i < t->nnodes; i++) {
		const struct topo_node *node = &t->nodes[i];

		if (node->generated) {
			topo_print_tree_node(t, i, out);
			continue;
		}
		fprintf(out, "\n[%s %s]\n", topo_kind_name(node->kind), node->name);
		if (node->kind == TOPO_CLIENT)
			fprintf(out, "# client_id %u\n", node->client_id);
		if (topo_v6(t) && (node->kind == TOPO_SITE || node->kind == TOPO_RESOLVER)) {
			char a6[INET6_ADDRSTRLEN];

			inet_ntop(AF_INET6, &node->address6, a6, sizeof(a6));
			fprintf(out, "# IPv6: %s%s\n", a6,
				node->kind == TOPO_SITE ? " (its own, on lo)"
							: "/64 (cache i on ::i, on lo)");
		}
		if (node->kind == TOPO_RESOLVER)
			topo_print_caches(t, i, out);
		if (node->kind == TOPO_ROUTER)
			topo_print_router(t, i, out);
		if (node->kind == TOPO_ROUTER) {
			for (int l = 0; l < t->nlinks; l++)
				if (t->links[l].router == i)
					topo_print_link(t, l, out);
			topo_print_captures(t, i, out);
		}
		keys = topo_keys((int)node->kind, &n);
		topo_print_keys(t, node, keys, n, out);
		for (int f = 0; f < t->nfrr_lines; f++)
			if (t->frr_lines[f].node == i)
				fprintf(out, "frr = %s\n", t->frr_lines[f].text);
		for (int p = 0; p < t->nrsv_pairs; p++)
			if (t->rsv_pairs[p].node == i)
				fprintf(out, "%s =%s%s\n", t->rsv_pairs[p].key,
					*t->rsv_pairs[p].value ? " " : "", t->rsv_pairs[p].value);
	}
	for (int j = 0; j < t->nrlinks; j++) {
		fprintf(out, "\n[link %s %s]\n", t->nodes[t->rlinks[j].a].name,
			t->nodes[t->rlinks[j].b].name);
		topo_print_rlink(t, j, out);
		topo_print_rlink_keys(t, j, out);
		topo_print_impair_keys(t, j, -1, out);
	}
	for (int l = 0; l < t->nlinks; l++) {
		if (t->links[l].impair_line == 0)
			continue;
		fprintf(out, "\n[link %s %s]\n", t->nodes[t->links[l].node].name,
			t->nodes[t->links[l].router].name);
		topo_print_impair_keys(t, -1, l, out);
	}
	topo_print_events(t, out);
	for (int s = 0; s < t->nraw_sections; s++) {
		const struct topo_raw_section *r = &t->raw_sections[s];
		const char *c = r->generated ? "# " : "";

		if (s == 0)
			fprintf(out,
				"\n# [zone] and [name]: authd's, as written (docs/authd.md).\n");
		if (r->generated)
			fprintf(out,
				"\n# [zone %s]: added by [lab] dns_tree (a comment: added "
				"again when read)\n",
				r->name);
		else
			fprintf(out, "\n[%s %s]\n", r->kind, r->name);
		for (int i = 0; i < t->nraw_pairs; i++) {
			const struct topo_raw_pair *pair = &t->raw_pairs[i];

			if (pair->section != s)
				continue;
			fprintf(out, "%s%s =%s%s\n", c, pair->key, *pair->value ? " " : "",
				pair->value);
		}
		if (strcmp(r->kind, "zone") != 0) {
			topo_print_weighted(t, s, out);
			continue;
		}
		topo_print_servers(t, s, out);
		topo_zone_records(t, s, -1, topo_print_record, out);
	}
}
