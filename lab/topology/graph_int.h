/*
 * The topology as a graph (graph.c, graph_run.c, graph_write.c): what
 * `steerlab graph` draws (docs/topology.md, "The graph"). The nodes by kind,
 * the links with their impairments per direction, the BGP sessions with
 * their ASNs, all from a loaded topology, nothing built; with a run
 * directory, what the run measured on them (clocks.json): each anycast
 * client's catchment before and after the failure, each router's FIB
 * changes. Private to lab/topology and its unit tests; the rooms above call
 * topo_graph_write (topology.h).
 */
#ifndef STEERLAB_GRAPH_INT_H
#define STEERLAB_GRAPH_INT_H

#include <stdio.h>

#include "topology.h"

#define GRAPH_IMPAIR_LEN 160

struct graph_node {
	const struct topo_node *n;
	unsigned asn; /* a BGP speaker's AS, 0 if none */
	int site;     /* a site: its index among the sites (its colour) */
	/* --run: an anycast client's catchment (site indexes, -1 none) */
	int catch_known, before, after, moved;
	/* --run: a router's FIB changes of the service's route */
	int fib_known, changes, fib_before, fib_after;
	double first_s, final_s; /* -1: none */
};

struct graph_edge {
	int a, b;    /* node indexes: a link's router and node, an [link]'s a and b */
	int rlink;   /* 1: [link R1 R2] between routers */
	int session; /* 1: an eBGP session rides it (routing = bgp) */
	char impair[2][GRAPH_IMPAIR_LEN]; /* [0] a to b, [1] b to a: "delay=15ms loss=1%" or "" */
};

struct graph {
	const struct topology *t;
	int nnodes;
	struct graph_node nodes[TOPO_MAX_NODES];
	int nedges;
	struct graph_edge edges[TOPO_MAX_NODES + TOPO_MAX_RLINKS];
	int nsites;
	int sites[TOPO_MAX_NODES]; /* node index of each site */
	/* --run */
	int run;
	char rundir[4096];
	double convergence_s; /* -1: none */
};

/* graph_build: g from t (no run). */
void graph_build(struct graph *g, const struct topology *t);

/* graph_run_load: rundir's clocks.json onto g. 0, or -1 with err naming
 * the file and what is wrong (not a run directory, a node t has not). */
int graph_run_load(struct graph *g, const char *rundir, char *err, size_t errlen);

/* graph_colour: the colour of site index i (-1: grey), "#rrggbb" */
const char *graph_colour(int site);

/* graph_site_name: site index i's name, "none" for -1 */
const char *graph_site_name(const struct graph *g, int site);

/* the writers: dot (Graphviz), mermaid (graph LR), json (docs/topology.md,
 * "The graph", its schema). 0, or -1 (out of memory: json). */
void graph_write_dot(const struct graph *g, FILE *out);
void graph_write_mermaid(const struct graph *g, FILE *out);
int graph_write_json(const struct graph *g, FILE *out);

#endif
