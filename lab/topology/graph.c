/* The topology as a graph: nodes, links, BGP sessions; see graph_int.h. */
#include "graph_int.h"

#include <stdio.h>
#include <string.h>

static const char *const graph_palette[] = {
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#76b7b2", "#edc948", "#9c755f",
};

const char *graph_colour(int site)
{
	if (site < 0)
		return "#bab0ac";
	return graph_palette[site % (int)(sizeof(graph_palette) / sizeof(graph_palette[0]))];
}

const char *graph_site_name(const struct graph *g, int site)
{
	if (site < 0 || site >= g->nsites)
		return "none";
	return g->t->nodes[g->sites[site]].name;
}

/* graph_impair_text: the keys im sets, "delay=15ms loss=1%" */
static void graph_impair_text(const struct impair *im, char *buf, size_t len)
{
	char v[64];
	size_t n = 0;

	buf[0] = '\0';
	for (int k = 0; topo_impair_key_name(k) != NULL; k++) {
		int w;

		if (topo_impair_value(im, k, v, sizeof(v)) == NULL)
			continue;
		w = snprintf(buf + n, len - n, "%s%s=%s", n ? " " : "", topo_impair_key_name(k), v);
		if (w < 0 || (size_t)w >= len - n)
			return;
		n += (size_t)w;
	}
}

void graph_build(struct graph *g, const struct topology *t)
{
	int bgp = t->routing == TOPO_ROUTING_BGP;

	memset(g, 0, sizeof(*g));
	g->t = t;
	g->convergence_s = -1;
	g->nnodes = t->nnodes;
	for (int i = 0; i < t->nnodes; i++) {
		struct graph_node *gn = &g->nodes[i];

		gn->n = &t->nodes[i];
		gn->site = -1;
		gn->before = gn->after = gn->fib_before = gn->fib_after = -1;
		gn->first_s = gn->final_s = -1;
		if (bgp && topo_bgp_speaker(t, i))
			gn->asn = topo_node_asn(t, i);
		if (t->nodes[i].kind == TOPO_SITE) {
			gn->site = g->nsites;
			g->sites[g->nsites++] = i;
		}
	}
	for (int l = 0; l < t->nlinks; l++) {
		const struct topo_link *k = &t->links[l];
		struct graph_edge *e = &g->edges[g->nedges++];

		e->a = k->router;
		e->b = k->node;
		e->session = bgp && topo_bgp_speaker(t, k->router) && topo_bgp_speaker(t, k->node);
		/* impair[0] leaves the node, [1] the router */
		graph_impair_text(&k->impair[1], e->impair[0], sizeof(e->impair[0]));
		graph_impair_text(&k->impair[0], e->impair[1], sizeof(e->impair[1]));
	}
	for (int l = 0; l < t->nrlinks; l++) {
		const struct topo_rlink *k = &t->rlinks[l];
		struct graph_edge *e = &g->edges[g->nedges++];

		e->a = k->a;
		e->b = k->b;
		e->rlink = 1;
		e->session = bgp;
		graph_impair_text(&k->impair[0], e->impair[0], sizeof(e->impair[0]));
		graph_impair_text(&k->impair[1], e->impair[1], sizeof(e->impair[1]));
	}
}

int topo_graph_write(const struct topology *t, const char *rundir, enum topo_graph_format fmt,
		     FILE *out, char *err, size_t errlen)
{
	static struct graph g;

	graph_build(&g, t);
	if (rundir && graph_run_load(&g, rundir, err, errlen) == -1)
		return -1;
	switch (fmt) {
	case TOPO_GRAPH_DOT:
		graph_write_dot(&g, out);
		break;
	case TOPO_GRAPH_MERMAID:
		graph_write_mermaid(&g, out);
		break;
	case TOPO_GRAPH_JSON:
		if (graph_write_json(&g, out) == -1) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		break;
	}
	return 0;
}
