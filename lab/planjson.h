/*
 * plan.json: the resolved facts of a run, written into its run directory
 * beside topology.ini (docs/clocks.md, "Inputs"; docs/inside.md lists the
 * run directory's files): every node with its kind, its addresses (from
 * lib/addrplan.h, as the lab gave them), its ids, a [dns] node's zones and
 * level in the DNS tree, a client's [resolver] node, the router links and
 * the steered names' TTLs. The analysis reads it instead of working them
 * out again from topology.ini (probes/clocks/clocks_topo.c).
 */
#ifndef STEERLAB_PLANJSON_H
#define STEERLAB_PLANJSON_H

#include <jansson.h>
#include <stddef.h>

#include "topology.h"

#define PLANJSON_FILE "plan.json"
#define PLANJSON_VERSION 1

/* planjson_build: plan.json's object for t, or NULL (out of memory). */
json_t *planjson_build(const struct topology *t);

/* planjson_write: write rundir/plan.json for t through lib/atomicfile.h.
 * 0, or -1 with err set ("DIR/plan.json: what: why"). */
int planjson_write(const struct topology *t, const char *rundir, char *err, size_t errlen);

#endif
