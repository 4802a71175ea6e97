/*
 * FRR's configuration of a lab's routers, made from the topology: what
 * `routing = bgp` will run (issue 11). Not started yet: `steerlab check
 * FILE --frr DIR` writes it and has FRR's own bgpd check it (-C, a dry
 * run), so it can be read and judged before anything uses it.
 *
 * One bgpd configuration per router (DIR/ROUTER.bgpd.conf): its AS
 * ([router] asn), its router id (its id, 198.18.40.(k + 1)), one neighbour
 * per [link] at the address of the other end, in the other router's AS
 * (eBGP, or iBGP when they share one), and its connected networks
 * redistributed, so that the lab's addresses reach every router.
 * Datacenter defaults (frr defaults datacenter: short timers); no policy
 * is required between eBGP peers.
 */
#ifndef STEERLAB_FRRCONF_H
#define STEERLAB_FRRCONF_H

#include <stddef.h>
#include <stdio.h>

#include "topology.h"

#define FRRCONF_BGPD "/usr/lib/frr/bgpd"

/* frrconf_write: the bgpd configuration of router `router` to out. 0 or
 * -1 (a write error). */
int frrconf_write(const struct topology *t, int router, FILE *out);

/* frrconf_check: FRR's dry run, `bgpd -C -f path` (bgpd: FRRCONF_BGPD,
 * or another for the tests). bgpd exits 0 even when it rejects lines, so
 * what it prints is the verdict: 0 if it printed nothing, else -1 with its
 * first complaint in why; -1 too if it cannot be run, and why says so. */
int frrconf_check(const char *bgpd, const char *path, char *why, size_t len);

#endif
