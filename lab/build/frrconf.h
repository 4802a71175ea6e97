/*
 * FRR's configuration for a lab's routers and sites when [lab] routing =
 * bgp (docs/topology.md, "Routing"), made from the topology, and FRR's own
 * dry run on it.
 *
 * Every router and every site runs zebra and bgpd (and bfdd with bfd =
 * yes). Each site is an AS of its own, each router in its `asn`
 * (topo_node_asn), with a BGP session over each of its links to another
 * BGP speaker: its BGP neighbours (frrconf_neighbors), computed from the
 * links: a site's link to its router, a router's [link]s to routers (eBGP,
 * or iBGP with next-hop-self between routers of one AS). A site announces
 * the anycast service /32 by `redistribute connected` filtered to it (the
 * prober keeps it on the site's lo only while the local service answers),
 * with its metric as the MED, and its own unicast address; routers compare
 * MEDs across ASes (`bgp always-compare-med`) so the lower metric wins as
 * with routing = static. The node's `frr = LINE`s come last, as written.
 *
 * Nothing here runs FRR's daemons; frrconf_check runs FRR's dry run
 * (`vtysh -C` and `bgpd -C`) before anything is built: every node's at
 * once, as many side by side as there are CPUs, what steerlab wrote alone
 * checked by one vtysh.
 */
#ifndef STEERLAB_FRRCONF_H
#define STEERLAB_FRRCONF_H

#include <netinet/in.h>
#include <stdio.h>

#include "topology.h"

#define FRR_DIR "/usr/lib/frr" /* Debian's frr package */
#define FRR_ZEBRA FRR_DIR "/zebra"
#define FRR_BGPD FRR_DIR "/bgpd"
#define FRR_BFDD FRR_DIR "/bfdd"
#define FRR_VTYSH "/usr/bin/vtysh"
#define FRR_USER "frr" /* FRR's daemons run as frr:frr, never root */

/* which configuration file of a node */
enum frrconf_daemon {
	FRRCONF_BGPD,
	FRRCONF_BFDD,
};

struct frrconf_neighbor {
	int node;	      /* the peer's node index */
	struct in_addr addr;  /* the peer's address on the shared link */
	struct in_addr local; /* ours on it */
	unsigned asn;	      /* the peer's AS */
	int rlink;	      /* the [link] to it, or -1 (a site's link) */
};

/* frrconf_node: 1 if node n runs FRR (routing = bgp, a router or a site). */
int frrconf_node(const struct topology *t, int n);

/* frrconf_bfd: 1 if node n runs bfdd: one of its BGP sessions has BFD
 * (frrconf_session_bfd). */
int frrconf_bfd(const struct topology *t, int n);

/* frrconf_session_bfd: whether node n's session with neighbour nb runs
 * BFD: its [link]'s bfd if the link sets it, else yes if either end's bfd
 * (its own, or the [lab]'s) says so. */
int frrconf_session_bfd(const struct topology *t, int n, const struct frrconf_neighbor *nb);

/* frrconf_neighbors: node n's BGP neighbours into nb (at most max): a
 * router's [link]s first, then its sites (routing = bgp), in file order; a
 * site's router. Their number. A router has its [link] neighbours with
 * routing = static too: what check --frr writes. */
int frrconf_neighbors(const struct topology *t, int n, struct frrconf_neighbor *nb, int max);

/* frrconf_write: daemon d's configuration of node n to out. *raw_from, if
 * not NULL, is set to the line number of its first `frr =` line (0 if it
 * has none; bgpd only). 0 or -1. */
int frrconf_write(const struct topology *t, int n, enum frrconf_daemon d, FILE *out, int *raw_from);

/* frrconf_check: FRR's dry run on every FRR node's configuration, all at
 * once. A line FRR rejects is an error on err, each node's first in node
 * order: "steerlab: node a: FRR rejected its configuration (bgpd line 40:
 * ...)". 0 if every one passed (or the lab runs no FRR), else -1. Writes
 * no file. */
int frrconf_check(const struct topology *t, FILE *err);

/* frrconf_check_node: FRR's dry run on node n's bgpd configuration, in
 * any routing (a router's, with routing = static, as check --frr writes
 * it). 0, or -1 said on err as frrconf_check says it. */
int frrconf_check_node(const struct topology *t, int n, FILE *err);

/* frrconf_load: overrides_load (lab/build/overrides.h), then, if it loaded,
 * frrconf_check and realres_check (lab/build/realres.h): what check, up, run and
 * sweep load. 0 or -1 (said). */
int frrconf_load(struct topology *t, const char *path, char *const sets[], int nsets, FILE *err);

/* frrconf_print: every FRR node's configurations as comments (what
 * `steerlab check` adds). */
void frrconf_print(const struct topology *t, FILE *out);

#endif
