/* The graph written as Graphviz dot, Mermaid and JSON; see graph_int.h. */
#include "graph_int.h"

#include <arpa/inet.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

static const char *graph_dot_shape(enum topo_kind k)
{
	switch (k) {
	case TOPO_ROUTER:
		return "box";
	case TOPO_SITE:
		return "doubleoctagon";
	case TOPO_DNS:
		return "hexagon";
	case TOPO_PROBER:
		return "diamond";
	case TOPO_RESOLVER:
		return "cylinder";
	case TOPO_CLIENT:
	default:
		return "ellipse";
	}
}

/* graph_run_text: what the run measured at node gn, "" if nothing; sep
 * between lines */
static const char *graph_run_text(const struct graph *g, const struct graph_node *gn,
				  const char *sep, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	if (gn->catch_known)
		n += (size_t)snprintf(buf, len, "%scatchment %s -> %s%s", sep,
				      graph_site_name(g, gn->before), graph_site_name(g, gn->after),
				      gn->moved ? " (moved)" : "");
	if (gn->fib_known && n < len) {
		n += (size_t)snprintf(buf + n, len - n, "%sFIB: %d change%s", sep, gn->changes,
				      gn->changes == 1 ? "" : "s");
		if (gn->first_s >= 0 && n < len)
			n += (size_t)snprintf(buf + n, len - n, " at t0+%.3f", gn->first_s);
		if (gn->final_s > gn->first_s && n < len)
			n += (size_t)snprintf(buf + n, len - n, "..%.3f s", gn->final_s);
		else if (gn->first_s >= 0 && n < len)
			n += (size_t)snprintf(buf + n, len - n, " s");
		if (n < len)
			snprintf(buf + n, len - n, "%sroute %s -> %s", sep,
				 graph_site_name(g, gn->fib_before),
				 graph_site_name(g, gn->fib_after));
	}
	return buf;
}

/* graph_fill: a node's colour with a run: a site its own, a client its
 * catchment after, a router where its route led at the end; NULL if none */
static const char *graph_fill(const struct graph_node *gn)
{
	if (gn->n->kind == TOPO_SITE)
		return graph_colour(gn->site);
	if (gn->catch_known)
		return graph_colour(gn->after);
	if (gn->fib_known)
		return graph_colour(gn->fib_after);
	return NULL;
}

static void graph_edge_label(const struct graph *g, const struct graph_edge *e, const char *sep,
			     char *buf, size_t len)
{
	const struct topology *t = g->t;
	size_t n = 0;

	buf[0] = '\0';
	if (e->session)
		n += (size_t)snprintf(buf, len, "eBGP AS%u-AS%u", g->nodes[e->a].asn,
				      g->nodes[e->b].asn);
	for (int d = 0; d < 2 && n < len; d++)
		if (e->impair[d][0])
			n += (size_t)snprintf(buf + n, len - n, "%s%s>%s %s", n ? sep : "",
					      t->nodes[d ? e->b : e->a].name,
					      t->nodes[d ? e->a : e->b].name, e->impair[d]);
}

void graph_write_dot(const struct graph *g, FILE *out)
{
	char run[256], label[512];

	fprintf(out, "graph \"%s\" {\n", g->t->name);
	fprintf(out, "\tlabel=\"%s: routing %s%s%s\";\n", g->t->name,
		g->t->routing == TOPO_ROUTING_BGP ? "bgp" : "static", g->run ? ", run " : "",
		g->run ? g->rundir : "");
	fprintf(out, "\tnode [fontname=\"Helvetica\" fontsize=10];\n"
		     "\tedge [fontname=\"Helvetica\" fontsize=8];\n");
	for (int i = 0; i < g->nnodes; i++) {
		const struct graph_node *gn = &g->nodes[i];
		const char *fill = graph_fill(gn);

		fprintf(out, "\t\"%s\" [shape=%s label=\"%s\\n%s", gn->n->name,
			graph_dot_shape(gn->n->kind), gn->n->name, topo_kind_name(gn->n->kind));
		if (gn->asn)
			fprintf(out, " AS%u", gn->asn);
		fprintf(out, "%s\"", graph_run_text(g, gn, "\\n", run, sizeof(run)));
		if (fill)
			fprintf(out, " style=filled fillcolor=\"%s\"", fill);
		if (gn->catch_known && gn->before >= 0)
			fprintf(out, " color=\"%s\" penwidth=3", graph_colour(gn->before));
		fprintf(out, "];\n");
	}
	for (int i = 0; i < g->nedges; i++) {
		const struct graph_edge *e = &g->edges[i];

		graph_edge_label(g, e, "\\n", label, sizeof(label));
		fprintf(out, "\t\"%s\" -- \"%s\" [label=\"%s\"%s];\n", g->t->nodes[e->a].name,
			g->t->nodes[e->b].name, label, e->session ? " style=bold" : "");
	}
	fprintf(out, "}\n");
}

static const char *graph_mermaid_shape(enum topo_kind k, int open)
{
	switch (k) {
	case TOPO_ROUTER:
		return open ? "[" : "]";
	case TOPO_SITE:
		return open ? "((" : "))";
	case TOPO_DNS:
		return open ? "{{" : "}}";
	case TOPO_PROBER:
		return open ? "{" : "}";
	case TOPO_RESOLVER:
		return open ? "[(" : ")]";
	case TOPO_CLIENT:
	default:
		return open ? "(" : ")";
	}
}

void graph_write_mermaid(const struct graph *g, FILE *out)
{
	char run[256], label[512];

	fprintf(out, "graph LR\n");
	for (int i = 0; i < g->nnodes; i++) {
		const struct graph_node *gn = &g->nodes[i];
		const char *fill = graph_fill(gn);

		/* ids: n_NAME ('-' is an edge in mermaid) */
		fprintf(out, "  n%d%s\"%s<br/>%s", i, graph_mermaid_shape(gn->n->kind, 1),
			gn->n->name, topo_kind_name(gn->n->kind));
		if (gn->asn)
			fprintf(out, " AS%u", gn->asn);
		fprintf(out, "%s\"%s\n", graph_run_text(g, gn, "<br/>", run, sizeof(run)),
			graph_mermaid_shape(gn->n->kind, 0));
		if (fill)
			fprintf(out, "  style n%d fill:%s\n", i, fill);
	}
	for (int i = 0; i < g->nedges; i++) {
		const struct graph_edge *e = &g->edges[i];

		graph_edge_label(g, e, "<br/>", label, sizeof(label));
		if (label[0])
			fprintf(out, "  n%d %s|\"%s\"| n%d\n", e->a, e->session ? "===" : "---",
				label, e->b);
		else
			fprintf(out, "  n%d %s n%d\n", e->a, e->session ? "===" : "---", e->b);
	}
}

static json_t *graph_json_site(const struct graph *g, int site)
{
	return site < 0 ? json_null() : json_string(graph_site_name(g, site));
}

static json_t *graph_json_s(double s)
{
	return s < 0 ? json_null() : json_real(s);
}

static json_t *graph_json_node(const struct graph *g, const struct graph_node *gn)
{
	const struct topology *t = g->t;
	json_t *o = json_object();
	char a[INET_ADDRSTRLEN];

	json_object_set_new(o, "name", json_string(gn->n->name));
	json_object_set_new(o, "kind", json_string(topo_kind_name(gn->n->kind)));
	json_object_set_new(o, "asn", gn->asn ? json_integer(gn->asn) : json_null());
	json_object_set_new(o, "router",
			    gn->n->link >= 0
				? json_string(t->nodes[t->links[gn->n->link].router].name)
				: json_null());
	json_object_set_new(
	    o, "address",
	    gn->n->link >= 0
		? json_string(inet_ntop(AF_INET, &t->links[gn->n->link].node_addr, a, sizeof(a)))
		: json_null());
	if (gn->catch_known)
		json_object_set_new(o, "catchment",
				    json_pack("{s:o, s:o, s:b}", "before",
					      graph_json_site(g, gn->before), "after",
					      graph_json_site(g, gn->after), "moved", gn->moved));
	if (gn->fib_known)
		json_object_set_new(o, "fib",
				    json_pack("{s:i, s:o, s:o, s:o, s:o}", "changes", gn->changes,
					      "first_s", graph_json_s(gn->first_s), "final_s",
					      graph_json_s(gn->final_s), "before",
					      graph_json_site(g, gn->fib_before), "after",
					      graph_json_site(g, gn->fib_after)));
	return o;
}

int graph_write_json(const struct graph *g, FILE *out)
{
	const struct topology *t = g->t;
	json_t *root = json_object(), *nodes = json_array(), *links = json_array(),
	       *sessions = json_array(), *run;
	int rc;

	for (int i = 0; i < g->nnodes; i++)
		json_array_append_new(nodes, graph_json_node(g, &g->nodes[i]));
	for (int i = 0; i < g->nedges; i++) {
		const struct graph_edge *e = &g->edges[i];
		const char *an = t->nodes[e->a].name, *bn = t->nodes[e->b].name;
		json_t *im = json_object();

		if (e->impair[0][0])
			json_object_set_new(im, "a>b", json_string(e->impair[0]));
		if (e->impair[1][0])
			json_object_set_new(im, "b>a", json_string(e->impair[1]));
		json_array_append_new(links,
				      json_pack("{s:s, s:s, s:s, s:o}", "a", an, "b", bn, "kind",
						e->rlink ? "routers" : "node", "impairment", im));
		if (e->session)
			json_array_append_new(sessions,
					      json_pack("{s:s, s:i, s:s, s:i}", "a", an, "a_asn",
							(json_int_t)g->nodes[e->a].asn, "b", bn,
							"b_asn", (json_int_t)g->nodes[e->b].asn));
	}
	run = g->run ? json_pack("{s:s, s:o}", "dir", g->rundir, "convergence_s",
				 graph_json_s(g->convergence_s))
		     : json_null();
	json_object_set_new(root, "version", json_integer(1));
	json_object_set_new(root, "lab", json_string(t->name));
	json_object_set_new(root, "routing",
			    json_string(t->routing == TOPO_ROUTING_BGP ? "bgp" : "static"));
	json_object_set_new(root, "nodes", nodes);
	json_object_set_new(root, "links", links);
	json_object_set_new(root, "sessions", sessions);
	json_object_set_new(root, "run", run);
	rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == -1 ? -1 : 0;
	fputc('\n', out);
	json_decref(root);
	return rc;
}
