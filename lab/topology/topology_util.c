/*
 * What every file of the topology room shares (topology_int.h): the
 * parser's errors with their file:line, a section's keys and label, where
 * a key was set; and the lookups of a parsed topology (topology.h): a node
 * by name, a kind's name, a resolver's address. Below the parser's driver
 * (topology.c) and every file it calls, so none of them calls back up.
 */
#include "topology.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "timeutil.h"
#include "topology_int.h"

void topo_error(struct topo_parse *p, int where, const char *fmt, ...)
{
	char *set = NULL;
	va_list ap;

	if (where < 0 && asprintf(&set, "--set %s", p->sets[-where - 1]) < 0)
		set = NULL;
	va_start(ap, fmt);
	inifile_verror(&p->in, where, where < 0 ? (set ? set : "--set") : NULL, fmt, ap);
	va_end(ap);
	free(set);
}

const struct topo_key *topo_sect_keys(const struct topo_parse *p, int sect, int *n)
{
	if (sect == TOPO_SECT_LAB)
		return topo_keys(-1, n);
	return topo_keys((int)p->t->nodes[sect].kind, n);
}

const char *topo_label(const struct topo_parse *p, int sect, char *buf, size_t len)
{
	const struct topo_node *node;

	if (sect == TOPO_SECT_LAB) {
		snprintf(buf, len, "[lab]");
		return buf;
	}
	node = &p->t->nodes[sect];
	snprintf(buf, len, "[%s %s]", topo_kind_name(node->kind), node->name);
	return buf;
}

int *topo_where(struct topo_parse *p, int sect, int key)
{
	return sect == TOPO_SECT_LAB ? &p->lab_where[key] : &p->meta[sect].where[key];
}

unsigned char *topo_bad(struct topo_parse *p, int sect, int key)
{
	return sect == TOPO_SECT_LAB ? &p->lab_bad[key] : &p->meta[sect].bad[key];
}

int topo_find(const struct topology *t, const char *name)
{
	for (int i = 0; i < t->nnodes; i++)
		if (strcmp(t->nodes[i].name, name) == 0)
			return i;
	return -1;
}

const char *topo_kind_name(enum topo_kind kind)
{
	switch (kind) {
	case TOPO_ROUTER:
		return "router";
	case TOPO_SITE:
		return "site";
	case TOPO_CLIENT:
		return "client";
	case TOPO_DNS:
		return "dns";
	case TOPO_PROBER:
		return "prober";
	case TOPO_RESOLVER:
		return "resolver";
	}
	return "?";
}

struct in_addr topo_resolver_addr(const struct topology *t, int node, int instance)
{
	struct in_addr a;

	a.s_addr = htonl(ntohl(t->nodes[node].resolver_net.s_addr) + (uint32_t)instance);
	return a;
}

struct in6_addr topo_resolver_addr6(const struct topology *t, int node, int instance)
{
	struct in6_addr a = t->nodes[node].address6; /* its /64 (ip = dual) */

	a.s6_addr[15] = (uint8_t)instance; /* at most TOPO_RESOLVER_COUNT_MAX */
	return a;
}

const char *topo_raw(const struct topology *t, int s, const char *key)
{
	const char *v = NULL;

	for (int i = 0; i < t->nraw_pairs; i++)
		if (t->raw_pairs[i].section == s && strcmp(t->raw_pairs[i].key, key) == 0)
			v = t->raw_pairs[i].value;
	return v;
}

int topo_has_proximity(const struct topology *t)
{
	for (int i = 0; i < t->nraw_pairs; i++) {
		const struct topo_raw_pair *rp = &t->raw_pairs[i];

		if (strcmp(t->raw_sections[rp->section].kind, "name") == 0 &&
		    strcmp(rp->key, "policy") == 0 && strcmp(rp->value, "proximity") == 0)
			return 1;
	}
	return 0;
}

/* the queriers written so far, and where */
struct topo_queriers {
	struct in_addr *out;
	char (*label)[17];
	int *node;
	int max, n, left;
};

/* topo_querier_add: querier k (0: the node's only one) of node i, if there
 * is room */
static void topo_querier_add(const struct topology *t, struct topo_queriers *q, int i, unsigned k,
			     struct in_addr a)
{
	const char *name = t->nodes[i].name;

	if (q->n == q->max) {
		q->left++;
		return;
	}
	q->out[q->n] = a;
	if (q->label && (k ? snprintf(q->label[q->n], 17, "%s.%u", name, k)
			   : snprintf(q->label[q->n], 17, "%s", name)) >= 17)
		snprintf(q->label[q->n], 17, "q%d", q->n + 1);
	if (q->node)
		q->node[q->n] = i;
	q->n++;
}

int topo_proximity_queriers(const struct topology *t, struct in_addr *out, char (*label)[17],
			    int *node, int max, int *more)
{
	struct topo_queriers q = {out, label, node, max, 0, 0};

	for (int i = 0; i < t->nnodes; i++)
		for (unsigned k = 1; t->nodes[i].kind == TOPO_RESOLVER && k <= t->nodes[i].count;
		     k++)
			topo_querier_add(t, &q, i, k, topo_resolver_addr(t, i, (int)k));
	for (int i = 0; i < t->nnodes; i++) {
		const struct topo_node *c = &t->nodes[i];

		if (c->kind == TOPO_CLIENT && c->population == 0 && c->resolver >= 0 &&
		    t->nodes[c->resolver].kind == TOPO_DNS)
			topo_querier_add(t, &q, i, 0, t->links[c->link].node_addr);
	}
	if (more)
		*more = q.left;
	return q.n;
}

void topo_print_proximity(const struct topology *t, FILE *out)
{
	struct in_addr q[63];
	char label[63][17], a[INET_ADDRSTRLEN];
	int n, more;

	if (!topo_has_proximity(t))
		return;
	n = topo_proximity_queriers(t, q, label, NULL, 63, &more);
	fprintf(
	    out,
	    "# proximity: every site sends an echo request to each of these queriers every "
	    "%lld ms and reports its round trips every %lld ms (prober -Y, SITE.prober-px.*):\n",
	    (long long)(t->probe_interval_ns / 1000000),
	    (long long)(t->static_refresh_ns / 1000000));
	for (int i = 0; i < n; i++)
		fprintf(out, "#   %s %s\n", label[i], inet_ntop(AF_INET, &q[i], a, sizeof(a)));
	if (n == 0)
		fprintf(out, "#   none: no [resolver] and no client asking a [dns] node itself "
			     "(every answer is round robin)\n");
	if (more)
		fprintf(out, "#   and %d more, not measured (at most 63)\n", more);
}

int topo_client_resolver6(const struct topology *t, int node, struct in6_addr *a)
{
	const struct topo_node *c = &t->nodes[node];
	const struct topo_node *r = c->resolver >= 0 ? &t->nodes[c->resolver] : NULL;

	if (!topo_v6(t) || c->family == TOPO_FAMILY_4 || r == NULL)
		return 0;
	if (r->kind == TOPO_RESOLVER) {
		*a = topo_resolver_addr6(t, c->resolver, c->resolver_instance);
		return 1;
	}
	if (r->kind != TOPO_DNS || r->anycast.s_addr)
		return 0;
	*a = t->links[r->link].node_addr6;
	return 1;
}

struct in_addr topo_client_resolver(const struct topology *t, int node)
{
	const struct topo_node *c = &t->nodes[node];

	if (t->nodes[c->resolver].kind == TOPO_RESOLVER)
		return topo_resolver_addr(t, c->resolver, c->resolver_instance);
	return t->links[t->nodes[c->resolver].link].node_addr;
}
