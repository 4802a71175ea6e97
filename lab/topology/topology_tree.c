/*
 * The lab's own DNS tree (topology.h, docs/topology.md "The lab's DNS
 * tree"): which [dns] node serves which [zone] (`zones =`), the root and
 * TLD zones and their [dns] nodes [lab] dns_tree adds, the delegations
 * with glue and the apex NS the lab writes, and each [resolver] node's
 * mode. Nothing here reads a record's data: only the owner and type of
 * the records the user wrote, to leave alone what they wrote themselves.
 */
#include "topology.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "topology_int.h"

void topo_zone_norm(const char *name, char *out)
{
	size_t n = strlen(name), i;

	if (n > TOPO_DNS_NAME_MAX)
		n = TOPO_DNS_NAME_MAX;
	for (i = 0; i < n; i++)
		out[i] = (char)tolower((unsigned char)name[i]);
	if (n == 0 || out[n - 1] != '.')
		out[n++] = '.';
	out[n] = '\0';
}

/* topo_labels: how many labels a normalised name has: "." 0, "example." 1 */
static int topo_labels(const char *apex)
{
	int n = 0;

	if (strcmp(apex, ".") == 0)
		return 0;
	for (const char *c = apex; *c; c++)
		n += *c == '.';
	return n;
}

/* topo_in_zone: normalised name is apex or below it */
static int topo_in_zone(const char *name, const char *apex)
{
	size_t n = strlen(name), a = strlen(apex);

	if (strcmp(apex, ".") == 0)
		return 1;
	if (n < a || strcmp(name + n - a, apex) != 0)
		return 0;
	return n == a || name[n - a - 1] == '.';
}

static int topo_is_zone(const struct topology *t, int z)
{
	return strcmp(t->raw_sections[z].kind, "zone") == 0;
}

/* topo_zone_find: the [zone] whose normalised apex is apex, or -1 */
static int topo_zone_find(const struct topology *t, const char *apex)
{
	for (int z = 0; z < t->nraw_sections; z++)
		if (topo_is_zone(t, z) && strcmp(t->raw_sections[z].apex, apex) == 0)
			return z;
	return -1;
}

int topo_name_zone(const struct topology *t, const char *name)
{
	char norm[TOPO_DNS_NAME_MAX + 2];
	int best = -1;

	topo_zone_norm(name, norm);
	for (int z = 0; z < t->nraw_sections; z++) {
		const char *apex = t->raw_sections[z].apex;

		if (!topo_is_zone(t, z) || !topo_in_zone(norm, apex))
			continue;
		if (best < 0 || topo_labels(apex) > topo_labels(t->raw_sections[best].apex))
			best = z;
	}
	return best;
}

int topo_dns_serves(const struct topology *t, int n, int z)
{
	return t->nodes[n].kind == TOPO_DNS && z >= 0 && z < 64 && (t->nodes[n].zone_set >> z & 1u);
}

int topo_dns_roots(const struct topology *t, struct in_addr *out, int max)
{
	int root = topo_zone_find(t, "."), k = 0;

	for (int n = 0; root >= 0 && n < t->nnodes && k < max; n++)
		if (topo_dns_serves(t, n, root) && t->nodes[n].link >= 0)
			out[k++] = t->links[t->nodes[n].link].node_addr;
	return k;
}

int topo_dns_roots6(const struct topology *t, struct in6_addr *out, int max)
{
	int root = topo_zone_find(t, "."), k = 0;

	for (int n = 0; root >= 0 && n < t->nnodes && k < max; n++)
		if (topo_dns_serves(t, n, root) && t->nodes[n].link >= 0)
			out[k++] = t->links[t->nodes[n].link].node_addr6;
	return k;
}

/* topo_rsv_answers: [dns] node n is neither the root's nor one dns_tree
 * adds: it answers rather than refers */
static int topo_rsv_answers(const struct topology *t, int n)
{
	int root = topo_zone_find(t, ".");

	return t->nodes[n].kind == TOPO_DNS && !t->nodes[n].generated &&
	       !(root >= 0 && topo_dns_serves(t, n, root));
}

int topo_rsv_upstream(const struct topology *t, int n)
{
	int steers = 0, any = 0;

	if (!topo_rsv_answers(t, n))
		return 0;
	/* the servers of the steered names, if any answering node has one */
	for (int s = 0; s < t->nraw_sections; s++) {
		int z;

		if (strcmp(t->raw_sections[s].kind, "name") != 0)
			continue;
		z = topo_name_zone(t, t->raw_sections[s].name);
		steers |= topo_dns_serves(t, n, z);
		for (int m = 0; m < t->nnodes && !any; m++)
			any = topo_rsv_answers(t, m) && topo_dns_serves(t, m, z);
	}
	return steers || !any;
}

/* topo_ns_name: the name the lab gives [dns] node n as a server of the zone
 * at apex: ns-NODE.APEX ("ns-root." for the root zone) */
static void topo_ns_name(const struct topology *t, int n, const char *apex, char *out, size_t len)
{
	snprintf(out, len, "ns-%s.%s", t->nodes[n].name, strcmp(apex, ".") == 0 ? "" : apex);
}

/* topo_anycast_twin: server s of zone section sec shares its anycast
 * address with an earlier server of it: one NS name stands for them all */
static int topo_anycast_twin(const struct topology *t, const struct topo_raw_section *sec, int s)
{
	const struct topo_node *d = &t->nodes[sec->servers[s]];

	for (int e = 0; e < s && d->anycast.s_addr; e++)
		if (t->nodes[sec->servers[e]].anycast.s_addr == d->anycast.s_addr)
			return 1;
	return 0;
}

/* topo_zone_servers: the servers of zone section sec as records at its
 * line: their NS records at its apex if ns, then each one's address */
static void topo_zone_servers(const struct topology *t, const struct topo_raw_section *sec, int ns,
			      void (*emit)(void *arg, const char *record, int line), void *arg)
{
	char name[TOPO_DNS_NAME_MAX + 24], rec[2 * TOPO_DNS_NAME_MAX + 64], a[INET6_ADDRSTRLEN];

	for (int s = 0; s < sec->nservers && ns; s++) {
		if (topo_anycast_twin(t, sec, s))
			continue;
		topo_ns_name(t, sec->servers[s], sec->apex, name, sizeof(name));
		snprintf(rec, sizeof(rec), "%s NS %s", sec->apex, name);
		emit(arg, rec, sec->line);
	}
	for (int s = 0; s < sec->nservers; s++) {
		const struct topo_node *d = &t->nodes[sec->servers[s]];

		if (topo_anycast_twin(t, sec, s))
			continue;
		topo_ns_name(t, sec->servers[s], sec->apex, name, sizeof(name));
		/* an anycast server by its anycast address (docs/topology.md,
		 * "Anycast name servers") */
		if (topo_v4(t)) {
			inet_ntop(AF_INET,
				  d->anycast.s_addr ? &d->anycast : &t->links[d->link].node_addr, a,
				  sizeof(a));
			snprintf(rec, sizeof(rec), "%s A %s", name, a);
			emit(arg, rec, sec->line);
		}
		/* ip = 6: its link's IPv6 address (an anycast server is
		 * refused there) */
		if (t->ip == TOPO_IP_6) {
			inet_ntop(AF_INET6, &t->links[d->link].node_addr6, a, sizeof(a));
			snprintf(rec, sizeof(rec), "%s AAAA %s", name, a);
			emit(arg, rec, sec->line);
		}
	}
}

void topo_zone_records(const struct topology *t, int z, int n,
		       void (*emit)(void *arg, const char *record, int line), void *arg)
{
	const struct topo_raw_section *zone = &t->raw_sections[z];

	/* the apex: in a zone of the tree, and in any zone that names no
	 * server of its own (a zone without NS answers NODATA to NS queries
	 * and refers nobody anywhere); a lab of zones with their own NS and
	 * no tree is as it was */
	if (zone->generated || zone->parent >= 0 || !zone->apex_ns)
		topo_zone_servers(t, zone, !zone->apex_ns, emit, arg);
	/* each child zone's delegation, with its glue (in its bailiwick) */
	for (int c = 0; c < t->nraw_sections; c++) {
		const struct topo_raw_section *child = &t->raw_sections[c];

		if (!topo_is_zone(t, c) || child->parent != z || child->deleg_written ||
		    (n >= 0 && topo_dns_serves(t, n, c)))
			continue;
		topo_zone_servers(t, child, 1, emit, arg);
	}
}

/* topo_tree_zone: a zone dns_tree generates, with its soa and ttl */
static int topo_tree_zone(struct topo_parse *p, const char *apex, const char *server)
{
	struct topology *t = p->t;
	struct topo_raw_section *r;
	char pair[256];
	const int max = (int)(sizeof(t->raw_sections) / sizeof(t->raw_sections[0]));
	const char *dot = strcmp(apex, ".") == 0 ? "" : apex;

	if (t->nraw_sections == max || t->nraw_pairs + 2 > TOPO_MAX_RAW) {
		topo_error(p, t->dns_tree_line,
			   "[lab] dns_tree: no room for [zone %s] (at most %d [zone]/[name] "
			   "sections and %d of their keys)",
			   apex, max, TOPO_MAX_RAW);
		return -1;
	}
	r = &t->raw_sections[t->nraw_sections];
	memset(r, 0, sizeof(*r));
	snprintf(r->kind, sizeof(r->kind), "zone");
	snprintf(r->name, sizeof(r->name), "%s", apex);
	snprintf(r->apex, sizeof(r->apex), "%s", apex);
	r->line = t->dns_tree_line;
	r->generated = 1;
	r->parent = -1;
	/* a TLD is one label (at most 63 characters): no truncation */
	snprintf(pair, sizeof(pair), "ns-%s.%.64s hostmaster.%.64s 1 3600 600 86400 3600", server,
		 dot, dot);
	for (int k = 0; k < 2; k++) {
		struct topo_raw_pair *rp = &t->raw_pairs[t->nraw_pairs++];

		rp->section = t->nraw_sections;
		rp->line = t->dns_tree_line;
		snprintf(rp->key, sizeof(rp->key), "%s", k == 0 ? "soa" : "ttl");
		if (k == 0)
			snprintf(rp->value, sizeof(rp->value), "%s", pair);
		else
			snprintf(rp->value, sizeof(rp->value), "%d", TOPO_TREE_TTL);
	}
	return t->nraw_sections++;
}

/* topo_tree_node: a [dns] node dns_tree adds, linked to the first router */
static void topo_tree_node(struct topo_parse *p, const char *name, const char *zones)
{
	struct topology *t = p->t;
	struct topo_node *node;
	int router = -1;

	for (int i = 0; i < t->nnodes && router < 0; i++)
		if (t->nodes[i].kind == TOPO_ROUTER)
			router = i;
	node = &t->nodes[t->nnodes];
	memset(node, 0, sizeof(*node));
	memset(&p->meta[t->nnodes], 0, sizeof(p->meta[0]));
	node->kind = TOPO_DNS;
	snprintf(node->name, sizeof(node->name), "%s", name);
	node->line = t->dns_tree_line;
	node->link = -1;
	node->resolver = -1;
	node->quorum = 0.5;
	node->count = 1;
	node->generated = 1;
	snprintf(node->zones, sizeof(node->zones), "%s", zones);
	snprintf(p->meta[t->nnodes].link, sizeof(p->meta[0].link), "%s", t->nodes[router].name);
	p->meta[t->nnodes].where[TOPO_K_LINK] = t->dns_tree_line;
	p->meta[t->nnodes].where[TOPO_K_ZONES] = t->dns_tree_line;
	t->nnodes++;
}

void topo_tree_nodes(struct topo_parse *p)
{
	struct topology *t = p->t;
	char apex[TOPO_DNS_NAME_MAX + 2], tlds[TOPO_ZONES_LEN] = "";
	const struct topo_key *keys;
	int nuser = 0, root = 0, nkeys, bad = 0, router = 0;
	size_t len = 0;

	for (int z = 0; z < t->nraw_sections; z++)
		if (topo_is_zone(t, z))
			topo_zone_norm(t->raw_sections[z].name, t->raw_sections[z].apex);
	if (!t->dns_tree || p->in.lost)
		return;
	keys = topo_keys(-1, &nkeys);
	for (int k = 0; k < nkeys; k++)
		if (strcmp(keys[k].name, "dns_tree") == 0)
			t->dns_tree_line = p->lab_where[k];
	if (t->dns_tree_line <= 0)
		t->dns_tree_line = p->lab_line > 0 ? p->lab_line : 1;
	for (int z = 0; z < t->nraw_sections; z++)
		nuser += topo_is_zone(t, z);
	if (nuser == 0) {
		topo_error(p, t->dns_tree_line,
			   "[lab] dns_tree: expected a [zone] section (the service zone: the lab "
			   "writes the root and TLD zones above it)");
		return;
	}
	/* the names of the nodes it adds are free, and there is room */
	for (int k = 0; k < 2; k++) {
		const char *name = k == 0 ? TOPO_TREE_ROOT : TOPO_TREE_TLD;
		int other = topo_find(t, name);

		if (other >= 0)
			topo_error(p, t->dns_tree_line,
				   "[lab] dns_tree: the lab adds the [dns] node '%s', and [%s %s] "
				   "(line %d) has that name: expected another name for that node",
				   name, topo_kind_name(t->nodes[other].kind), name,
				   t->nodes[other].line);
		bad |= other >= 0;
	}
	for (int i = 0; i < t->nnodes; i++)
		router |= t->nodes[i].kind == TOPO_ROUTER;
	if (t->nnodes + 2 > TOPO_MAX_NODES) {
		topo_error(p, t->dns_tree_line,
			   "[lab] dns_tree: no room for the [dns] nodes root and tld (at most %d "
			   "nodes)",
			   TOPO_MAX_NODES);
		bad = 1;
	}
	if (bad || !router) /* no router: said, a lab needs one */
		return;
	/* the TLD of every zone written, unless written too; then the root */
	for (int z = 0, n = t->nraw_sections; z < n; z++) {
		const char *tld;

		if (!topo_is_zone(t, z) || strcmp(t->raw_sections[z].apex, ".") == 0)
			continue;
		tld = t->raw_sections[z].apex + strlen(t->raw_sections[z].apex) - 1;
		while (tld > t->raw_sections[z].apex && tld[-1] != '.')
			tld--;
		snprintf(apex, sizeof(apex), "%s", tld);
		if (topo_zone_find(t, apex) >= 0)
			continue;
		if (topo_tree_zone(p, apex, TOPO_TREE_TLD) < 0)
			return;
		if (len + strlen(apex) + 2 < sizeof(tlds))
			len += (size_t)snprintf(tlds + len, sizeof(tlds) - len, "%s%s",
						len ? " " : "", apex);
	}
	if (topo_zone_find(t, ".") < 0) {
		if (topo_tree_zone(p, ".", TOPO_TREE_ROOT) < 0)
			return;
		root = 1;
	}
	if (root)
		topo_tree_node(p, TOPO_TREE_ROOT, ".");
	if (len)
		topo_tree_node(p, TOPO_TREE_TLD, tlds);
}

/* topo_owner_type: the owner (normalised, absolute) and the type of a
 * `record = OWNER [TTL] [IN] TYPE DATA` of the zone at apex, as authd reads
 * them (docs/authd.md, "Names"); -1 if it is not one (authd says why). */
static int topo_owner_type(const char *value, const char *apex, char *owner, char *type,
			   size_t typelen)
{
	char word[TOPO_DNS_NAME_MAX + 2], abs[2 * TOPO_DNS_NAME_MAX + 4];
	const char *s = value;
	size_t n;

	n = strcspn(s, " \t");
	if (n == 0 || n >= sizeof(word))
		return -1;
	memcpy(word, s, n);
	word[n] = '\0';
	s += n;
	if (strcmp(word, "@") == 0) {
		snprintf(abs, sizeof(abs), "%s", apex);
	} else if (word[n - 1] == '.') {
		snprintf(abs, sizeof(abs), "%s", word);
	} else {
		snprintf(abs, sizeof(abs), "%s.", word);
		topo_zone_norm(abs, owner);
		if (!topo_in_zone(owner, apex))
			snprintf(abs, sizeof(abs), "%s.%s", word,
				 strcmp(apex, ".") == 0 ? "" : apex);
	}
	if (strlen(abs) > TOPO_DNS_NAME_MAX)
		return -1;
	topo_zone_norm(abs, owner);
	for (int i = 0; i < 3; i++) {
		s += strspn(s, " \t");
		n = strcspn(s, " \t");
		if (n == 0 || n >= typelen)
			return -1;
		memcpy(type, s, n);
		type[n] = '\0';
		s += n;
		if (isdigit((unsigned char)type[0]) || strcasecmp(type, "IN") == 0)
			continue;
		return 0;
	}
	return -1;
}

/* topo_tree_written: what the user wrote of the tree: NS at a zone's apex,
 * and NS at a child zone's apex in its parent (a delegation by hand) */
static void topo_tree_written(struct topology *t)
{
	char owner[TOPO_DNS_NAME_MAX + 2], type[16];

	for (int i = 0; i < t->nraw_pairs; i++) {
		const struct topo_raw_pair *rp = &t->raw_pairs[i];
		struct topo_raw_section *zone = &t->raw_sections[rp->section];
		int c;

		if (!topo_is_zone(t, rp->section) || zone->generated ||
		    strcmp(rp->key, "record") != 0 ||
		    topo_owner_type(rp->value, zone->apex, owner, type, sizeof(type)) < 0 ||
		    strcasecmp(type, "NS") != 0)
			continue;
		if (strcmp(owner, zone->apex) == 0)
			zone->apex_ns = 1;
		else if ((c = topo_zone_find(t, owner)) >= 0 &&
			 t->raw_sections[c].parent == rp->section)
			t->raw_sections[c].deleg_written = 1;
	}
}

/* topo_tree_assign: zones = of each [dns] node into its zone_set; a node
 * without it serves every zone no other node names */
static void topo_tree_assign(struct topo_parse *p)
{
	struct topology *t = p->t;
	char apex[TOPO_DNS_NAME_MAX + 2], buf[TOPO_ZONES_LEN], *save = NULL, *tok;
	uint64_t claimed = 0, all = 0;

	for (int z = 0; z < t->nraw_sections && z < 64; z++)
		if (topo_is_zone(t, z))
			all |= (uint64_t)1 << z;
	for (int n = 0; n < t->nnodes; n++) {
		struct topo_node *d = &t->nodes[n];
		int where = p->meta[n].where[TOPO_K_ZONES];

		d->zone_set = 0;
		if (d->kind != TOPO_DNS || where == 0)
			continue;
		snprintf(buf, sizeof(buf), "%s", d->zones);
		for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
			int z;

			topo_zone_norm(tok, apex);
			z = topo_zone_find(t, apex);
			if (z < 0 || z >= 64) {
				topo_error(p, where,
					   "[dns %s] zones: '%s' is not a [zone] of this file "
					   "(expected the name of a [zone] section)",
					   d->name, tok);
				continue;
			}
			d->zone_set |= (uint64_t)1 << z;
		}
		claimed |= d->zone_set;
	}
	for (int n = 0; n < t->nnodes; n++) {
		struct topo_node *d = &t->nodes[n];

		if (d->kind != TOPO_DNS || p->meta[n].where[TOPO_K_ZONES] != 0)
			continue;
		d->zone_set = all & ~claimed;
		if (d->zone_set == 0 && all != 0)
			topo_error(
			    p, d->line,
			    "[dns %s] serves no zone: every [zone] is named by another [dns] "
			    "node's zones; expected zones = NAME ... here",
			    d->name);
	}
}

/* topo_tree_mode: each [resolver] node's mode, and what it asks */
static void topo_tree_mode(struct topo_parse *p)
{
	struct topology *t = p->t;
	struct in_addr roots[TOPO_MAX_NODES];
	int nroots = topo_dns_roots(t, roots, TOPO_MAX_NODES), nup = 0;

	if (p->headers[TOPO_DNS] == 0)
		return; /* said: a [resolver] needs a [dns] node */
	for (int n = 0; n < t->nnodes; n++)
		nup += topo_rsv_upstream(t, n);
	for (int n = 0; n < t->nnodes; n++) {
		struct topo_node *r = &t->nodes[n];
		int where = p->meta[n].where[TOPO_K_RSV_MODE];

		if (r->kind != TOPO_RESOLVER || p->meta[n].bad[TOPO_K_RSV_MODE])
			continue;
		if (where == 0)
			r->rsv_mode = nroots ? TOPO_RSV_ITERATE : TOPO_RSV_FORWARD;
		if (r->rsv_mode == TOPO_RSV_ITERATE && nroots == 0)
			topo_error(
			    p, where,
			    "[resolver %s] mode = iterate needs the lab's root zone: expected "
			    "[lab] dns_tree = yes, or a [zone .] and its [dns] node",
			    r->name);
		else if (r->rsv_mode == TOPO_RSV_ITERATE && nroots > 8)
			topo_error(p, where ? where : r->line,
				   "[resolver %s] iterates from the root's %d [dns] nodes, and "
				   "resolverd takes at most 8",
				   r->name, nroots);
		else if (r->rsv_mode == TOPO_RSV_FORWARD && nup == 0)
			topo_error(
			    p, where ? where : r->line,
			    "[resolver %s] forwards to the [dns] nodes below the root; there is "
			    "none (the root and TLD servers answer with referrals): expected "
			    "mode = iterate",
			    r->name);
		else if (r->rsv_mode == TOPO_RSV_FORWARD && nup > 8)
			topo_error(p, where ? where : r->line,
				   "[resolver %s] forwards to every [dns] node%s, and resolverd "
				   "takes at most 8; there are %d",
				   r->name, nroots ? " below the root" : "", nup);
	}
}

void topo_tree_zones(struct topo_parse *p)
{
	struct topology *t = p->t;

	if (p->in.lost)
		return;
	topo_tree_assign(p);
	for (int z = 0; z < t->nraw_sections; z++) {
		struct topo_raw_section *zone = &t->raw_sections[z];

		zone->nservers = 0;
		zone->parent = -1;
		if (!topo_is_zone(t, z))
			continue;
		if (z >= 64) /* said: at most 64 sections */
			continue;
		for (int n = 0; n < t->nnodes; n++) {
			if (!topo_dns_serves(t, n, z))
				continue;
			zone->servers[zone->nservers++] = n;
		}
		if (zone->nservers == 0 && p->headers[TOPO_DNS] > 0)
			topo_error(p, zone->line,
				   "[zone %s] is served by no [dns] node: every [dns] node's zones "
				   "leaves it out; expected its name in one of them",
				   zone->name);
		for (int y = 0; y < t->nraw_sections; y++) {
			const char *apex = t->raw_sections[y].apex;

			if (y == z || !topo_is_zone(t, y) || strcmp(apex, zone->apex) == 0 ||
			    !topo_in_zone(zone->apex, apex))
				continue;
			if (zone->parent < 0 ||
			    topo_labels(apex) > topo_labels(t->raw_sections[zone->parent].apex))
				zone->parent = y;
		}
	}
	topo_tree_written(t);
	topo_tree_mode(p);
}
