/*
 * report.html's topology (report_int.h): the run's plan.json drawn as an SVG
 * graph by the report itself. A layered layout a person reads left to
 * right: the clients, the routers in columns by their hops from the
 * clients' routers, the sites; the DNS nodes, resolvers and probers in a
 * row below. Each client is a box split in two, coloured by the site of
 * its catchment before the failure (left) and after it (right); each
 * router is labelled with its FIB's last change after t0; the failed site
 * is struck through.
 */
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "html.h"
#include "report_int.h"
#include "timeutil.h"

#define SVG_MAX_NODES 512
#define SVG_COL_W 190
#define SVG_ROW_H 46
#define SVG_BOX_W 120
#define SVG_BOX_H 30

static const char *const report_svg_site_colors[] = {"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1",
						     "#edc948", "#76b7b2", "#ff9da7", "#9c755f"};
#define SVG_NSITE_COLORS (sizeof(report_svg_site_colors) / sizeof(report_svg_site_colors[0]))

struct svg_node {
	const char *name, *kind;
	int col, row; /* column and row, before the coordinates */
	int x, y;
	int layer; /* a router's hops from the clients' routers; -1: not reached */
};

struct svg_graph {
	struct svg_node n[SVG_MAX_NODES];
	int nn;
	int edge_a[2 * SVG_MAX_NODES], edge_b[2 * SVG_MAX_NODES];
	int ne;
	const char *sites[SVG_NSITE_COLORS];
	int nsites;
};

static int report_svg_find(const struct svg_graph *g, const char *name)
{
	for (int i = 0; name && i < g->nn; i++)
		if (strcmp(g->n[i].name, name) == 0)
			return i;
	return -1;
}

static void report_svg_edge(struct svg_graph *g, int a, int b)
{
	if (a < 0 || b < 0 || g->ne >= 2 * SVG_MAX_NODES)
		return;
	g->edge_a[g->ne] = a;
	g->edge_b[g->ne++] = b;
}

/* report_svg_color: a site's colour (its index among the sites); grey for
 * none or unknown */
static const char *report_svg_color(const struct svg_graph *g, const char *site)
{
	for (int i = 0; site && site[0] && i < g->nsites; i++)
		if (strcmp(g->sites[i], site) == 0)
			return report_svg_site_colors[i];
	return "#cccccc";
}

/* report_svg_layers: each router's hops from the routers the clients hang
 * on (breadth first over the router links) */
static void report_svg_layers(struct svg_graph *g)
{
	int changed = 1;

	for (int i = 0; i < g->nn; i++)
		g->n[i].layer = -1;
	for (int e = 0; e < g->ne; e++) {
		struct svg_node *a = &g->n[g->edge_a[e]], *b = &g->n[g->edge_b[e]];

		if (strcmp(a->kind, "router") == 0 && strcmp(b->kind, "client") == 0)
			a->layer = 0;
	}
	for (int i = 0, any = 0; i < g->nn; i++) /* no client: from the first router */
		if (strcmp(g->n[i].kind, "router") == 0) {
			if (g->n[i].layer == 0)
				break;
			if (!any++)
				g->n[i].layer = 0;
		}
	while (changed) {
		changed = 0;
		for (int e = 0; e < g->ne; e++) {
			struct svg_node *a = &g->n[g->edge_a[e]], *b = &g->n[g->edge_b[e]];

			if (strcmp(a->kind, "router") || strcmp(b->kind, "router"))
				continue;
			if (a->layer >= 0 && (b->layer == -1 || b->layer > a->layer + 1)) {
				b->layer = a->layer + 1;
				changed = 1;
			}
			if (b->layer >= 0 && (a->layer == -1 || a->layer > b->layer + 1)) {
				a->layer = b->layer + 1;
				changed = 1;
			}
		}
	}
}

/* report_svg_place: the columns (clients, router layers, sites) and the
 * row below; the coordinates; the picture's size */
static void report_svg_place(struct svg_graph *g, int *width, int *height)
{
	int maxlayer = 0, count[64] = {0}, below = 0, rows = 1;

	report_svg_layers(g);
	for (int i = 0; i < g->nn; i++)
		if (g->n[i].layer > maxlayer)
			maxlayer = g->n[i].layer;
	if (maxlayer > 60)
		maxlayer = 60;
	for (int i = 0; i < g->nn; i++) {
		struct svg_node *n = &g->n[i];

		if (strcmp(n->kind, "client") == 0)
			n->col = 0;
		else if (strcmp(n->kind, "router") == 0)
			n->col = 1 + (n->layer < 0 ? maxlayer : n->layer > 60 ? 60 : n->layer);
		else if (strcmp(n->kind, "site") == 0)
			n->col = maxlayer + 2;
		else {
			n->col = -1; /* the row below */
			continue;
		}
		n->row = count[n->col]++;
		if (count[n->col] > rows)
			rows = count[n->col];
	}
	*width = (maxlayer + 3) * SVG_COL_W + 20;
	for (int i = 0; i < g->nn; i++) {
		struct svg_node *n = &g->n[i];

		if (n->col >= 0) {
			n->x = 20 + n->col * SVG_COL_W;
			n->y = 40 + n->row * SVG_ROW_H;
		} else {
			int per = *width / (SVG_BOX_W + 20);

			n->x = 20 + (below % (per > 0 ? per : 1)) * (SVG_BOX_W + 20);
			n->y = 40 + (rows + 1 + below / (per > 0 ? per : 1)) * SVG_ROW_H;
			below++;
		}
	}
	*height = 40 + (rows + 2) * SVG_ROW_H;
	if (below)
		*height +=
		    (below / (*width / (SVG_BOX_W + 20) > 0 ? *width / (SVG_BOX_W + 20) : 1)) *
		    SVG_ROW_H;
}

/* report_svg_catch: the catchment of the client node name (the first of
 * its process clients, else its population's largest pair) */
static void report_svg_catch(const struct report *r, const char *name, const char **before,
			     const char **after)
{
	const struct clocks_catchments *cs = r->res[0].catchments;

	*before = *after = NULL;
	for (int k = 0; cs && k < cs->n; k++)
		if (strcmp(cs->c[k].node, name) == 0) {
			*before = cs->c[k].before;
			*after = cs->known
				     ? (cs->episodes == 2 && cs->during_known ? cs->c[k].during
									      : cs->c[k].after)
				     : NULL;
			return;
		}
	for (int i = 0; cs && i < cs->npops; i++) {
		const struct clocks_catch_pop *p = &cs->pops[i];
		int best = -1;

		if (strcmp(p->node, name) != 0)
			continue;
		for (int k = 0; k < p->npairs; k++)
			if (best == -1 || p->pairs[k].clients > p->pairs[best].clients)
				best = k;
		if (best >= 0) {
			*before = p->pairs[best].before;
			*after = cs->known ? p->pairs[best].after : NULL;
		}
		return;
	}
}

/* report_svg_router_fib: the router's FIB's last change after t0, or NULL */
static const struct clocks_router_fib *report_svg_router_fib(const struct report *r,
							     const char *name)
{
	const struct clocks_fib *fib = r->res[0].fib;

	for (int i = 0; fib && i < fib->nrouters; i++)
		if (strcmp(fib->routers[i].router, name) == 0)
			return &fib->routers[i];
	return NULL;
}

static void report_svg_label(FILE *fp, int x, int y, const char *cls, const char *text)
{
	fprintf(fp, "<text x=\"%d\" y=\"%d\" class=\"%s\">", x, y, cls);
	html_escape(fp, text);
	fputs("</text>\n", fp);
}

static void report_svg_node(const struct report *r, const struct svg_graph *g, FILE *fp,
			    const struct svg_node *n)
{
	int x = n->x, y = n->y, failed = strcmp(n->name, r->in.failure.site) == 0;
	char label[96];

	fputs("<g class=\"node\" data-node=\"", fp);
	html_escape(fp, n->name);
	fputs("\" data-kind=\"", fp);
	html_escape(fp, n->kind);
	fputs("\"", fp);
	if (strcmp(n->kind, "client") == 0) {
		const char *before, *after;

		report_svg_catch(r, n->name, &before, &after);
		fputs(" data-before=\"", fp);
		html_escape(fp, before ? before : "");
		fputs("\" data-after=\"", fp);
		html_escape(fp, after ? after : "");
		fprintf(fp,
			"\"><title>%s: before t0 %s, after %s</title>\n"
			"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>"
			"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>"
			"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" class=\"frame\"/>\n",
			n->name, before && before[0] ? before : "-",
			after && after[0] ? after : "-", x, y, SVG_BOX_W / 2, SVG_BOX_H,
			report_svg_color(g, before), x + SVG_BOX_W / 2, y, SVG_BOX_W / 2, SVG_BOX_H,
			report_svg_color(g, after), x, y, SVG_BOX_W, SVG_BOX_H);
		report_svg_label(fp, x + SVG_BOX_W / 2, y + 19, "name", n->name);
	} else if (strcmp(n->kind, "router") == 0) {
		const struct clocks_router_fib *rf = report_svg_router_fib(r, n->name);
		int changed = rf && rf->final_at_ns != CLOCKS_NONE;

		fprintf(fp,
			"><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"12\" "
			"class=\"router%s\"/>\n",
			x, y, SVG_BOX_W, SVG_BOX_H, changed ? " changed" : "");
		report_svg_label(fp, x + SVG_BOX_W / 2, y + 19, "name", n->name);
		if (changed) {
			snprintf(label, sizeof(label), "FIB %.3f s",
				 (double)(rf->final_at_ns - r->in.failure.t0_ns) / 1e9);
			report_svg_label(fp, x + SVG_BOX_W / 2, y + SVG_BOX_H + 11, "fib", label);
		}
	} else {
		const char *fill =
		    strcmp(n->kind, "site") == 0 ? report_svg_color(g, n->name) : "#eeeeee";

		fprintf(fp,
			"><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" "
			"class=\"box\"/>\n",
			x, y, SVG_BOX_W, SVG_BOX_H, fill);
		snprintf(label, sizeof(label), "%s (%s)", n->name, n->kind);
		report_svg_label(fp, x + SVG_BOX_W / 2, y + 19, "name", label);
		if (failed)
			fprintf(fp,
				"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"dead\"/>"
				"<text x=\"%d\" y=\"%d\" class=\"fib\">failed at t0</text>\n",
				x, y, x + SVG_BOX_W, y + SVG_BOX_H, x + SVG_BOX_W / 2,
				y + SVG_BOX_H + 11);
	}
	fputs("</g>\n", fp);
}

/* report_svg_load: plan.json's nodes and links into g; -1 if none */
static int report_svg_load(const struct report *r, json_t *plan, struct svg_graph *g)
{
	json_t *nodes = json_object_get(plan, "nodes"), *links = json_object_get(plan, "links");
	json_t *it;
	size_t k;

	memset(g, 0, sizeof(*g));
	json_array_foreach(nodes, k, it)
	{
		const char *name = json_string_value(json_object_get(it, "name"));
		const char *kind = json_string_value(json_object_get(it, "kind"));

		if (!name || !kind || g->nn >= SVG_MAX_NODES)
			continue;
		g->n[g->nn].name = name;
		g->n[g->nn++].kind = kind;
		if (strcmp(kind, "site") == 0 && g->nsites < (int)SVG_NSITE_COLORS)
			g->sites[g->nsites++] = name;
	}
	json_array_foreach(nodes, k, it)
	{
		json_t *link = json_object_get(it, "link");

		report_svg_edge(
		    g, report_svg_find(g, json_string_value(json_object_get(link, "router"))),
		    report_svg_find(g, json_string_value(json_object_get(it, "name"))));
	}
	json_array_foreach(links, k, it)
	    report_svg_edge(g, report_svg_find(g, json_string_value(json_object_get(it, "a"))),
			    report_svg_find(g, json_string_value(json_object_get(it, "b"))));
	(void)r;
	return g->nn > 0 ? 0 : -1;
}

void report_html_topology(const struct report *r, FILE *fp)
{
	struct svg_graph *g;
	int width, height, fd;
	json_t *plan;

	if ((fd = openat(r->dirfd, "plan.json", O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1)
		return;
	plan = json_loadfd(fd, 0, NULL);
	close(fd);
	if (plan == NULL)
		return;
	if ((g = malloc(sizeof(*g))) == NULL || report_svg_load(r, plan, g) == -1)
		goto out;
	report_svg_place(g, &width, &height);
	fputs("<h2 id=\"topology\">Topology</h2>\n<p>plan.json as the lab ran it: the clients "
	      "left, the routers by hops from them, the sites right, the other nodes below. "
	      "Each client is coloured by the site of its anycast catchment before t0 (left "
	      "half) and after the routers converged (right half; grey: unknown); each router "
	      "with its FIB's last change after t0.</p>\n<p class=\"toggles\">",
	      fp);
	for (int i = 0; i < g->nsites; i++) {
		fprintf(fp, "<span style=\"background:%s\">&nbsp;&nbsp;&nbsp;</span> ",
			report_svg_site_colors[i]);
		html_escape(fp, g->sites[i]);
		fputs(" &nbsp; ", fp);
	}
	fputs("</p>\n", fp);
	fprintf(fp,
		"<svg id=\"topology-svg\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d "
		"%d\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">\n"
		"<style>.frame{stroke:#333;fill:none}.box{stroke:#333}.router{fill:#fff;stroke:#"
		"333}.router.changed{stroke:#d62728;stroke-"
		"width:2.5}.name{text-anchor:middle}.fib{text-anchor:middle;font-size:10px;"
		"fill:#d62728}.dead{stroke:#d62728;stroke-width:3}.edge{stroke:#999}</style>\n",
		width, height, width, height);
	for (int e = 0; e < g->ne; e++) {
		const struct svg_node *a = &g->n[g->edge_a[e]], *b = &g->n[g->edge_b[e]];

		fprintf(fp, "<line class=\"edge\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n",
			a->x + SVG_BOX_W / 2, a->y + SVG_BOX_H / 2, b->x + SVG_BOX_W / 2,
			b->y + SVG_BOX_H / 2);
	}
	for (int i = 0; i < g->nn; i++)
		report_svg_node(r, g, fp, &g->n[i]);
	fputs("</svg>\n", fp);
out:
	free(g);
	json_decref(plan);
}
