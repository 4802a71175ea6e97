/*
 * Where BGP should converge: each router's best path to the anycast
 * service in a lab of routing = bgp, computed from the topology as BGP's
 * decision process picks it (RFC 4271 9.1.2.2, FRR's order): the highest
 * local preference (a [link]'s local_pref at the receiving end, else 100),
 * the shortest AS path (the sites' and the [link]s' prepends included; a
 * path through the router's own AS is a loop, dropped), the lowest MED (a
 * site's metric, from the site to its router only: MED is not passed on
 * to another AS; missing counts as 0). Further ties are broken by FRR on
 * the routes' age, which the topology does not know: a tie between next
 * hops that bring the same AS path leaves either acceptable; one between
 * different AS paths makes the whole "not known".
 *
 * Local preferences can give BGP more than one stable state (RFC 4264's
 * wedgies): the computation finds the one reached when every announcement
 * travels in step. A lab that settles in another fails its warm-up ("BGP
 * had not converged within settle"), which says so.
 *
 * `run` waits for every router's FIB to route the service as computed
 * before it starts the traffic (lab/run/run.c, run_bgp_ready): BGP has
 * converged. Labs with iBGP (two linked routers in one AS) are not
 * modelled either: bgpx_compute says so, and the caller falls back.
 */
#ifndef STEERLAB_BGPEXPECT_H
#define STEERLAB_BGPEXPECT_H

#include <netinet/in.h>

#include "topology.h"

#define BGPX_MAX_VIA 16

struct bgpx_router {
	int have;     /* a route to the service at all */
	unsigned lp;  /* its local preference */
	unsigned len; /* its AS path length */
	unsigned med; /* its MED (0: none) */
	int nvia;     /* the next hops it may use (ties), at most BGPX_MAX_VIA */
	int via_node[BGPX_MAX_VIA];
	struct in_addr via[BGPX_MAX_VIA];
};

struct bgpx {
	int known; /* 0: not modelled (iBGP) or did not settle; the rest unset */
	struct bgpx_router r[TOPO_MAX_NODES]; /* by node index; routers only */
};

/* bgpx_compute: into x, every router's best routes to the service once
 * BGP has converged, with site `without` (a node index, or -1) not
 * announcing it. 0, or -1 if out of memory. */
int bgpx_compute(const struct topology *t, int without, struct bgpx *x);

/* bgpx_via_ok: router r may route the service via `via` (x known). */
int bgpx_via_ok(const struct bgpx *x, int r, struct in_addr via);

#endif
