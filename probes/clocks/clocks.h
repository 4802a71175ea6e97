/*
 * probes/clocks: the failover clocks of a run directory (docs/clocks.md):
 * the run loaded, each scheme's clocks, the verdict on whether the run is
 * to be trusted, clocks.json and the table. This is the module's one
 * public header: the part headers it includes state each part's contract;
 * docs/architecture.md, "The analysis", says which file holds what.
 */
#ifndef STEERLAB_CLOCKS_H
#define STEERLAB_CLOCKS_H

#include <stdio.h>

#include "clocks_base.h"
#include "clocks_budget.h"
#include "clocks_conn.h"
#include "clocks_captures.h"
#include "clocks_decay.h"
#include "clocks_events.h"
#include "clocks_explain.h"
#include "clocks_fib.h"
#include "clocks_flap.h"
#include "clocks_impair.h"
#include "clocks_input.h"
#include "clocks_model.h"
#include "clocks_multi.h"
#include "clocks_outage.h"
#include "clocks_pop.h"
#include "clocks_resolvers.h"
#include "clocks_result.h"
#include "clocks_shares.h"
#include "clocks_steering.h"
#include "clocks_topo.h"
#include "clocks_write.h"
#include "verdict.h"

/*
 * clocks_analyse: read the run directory rundir, compute the clocks and the
 * verdict, write rundir/clocks.json and print a table to out. Returns 0 for
 * a valid run, CLOCKS_INVALID for a run the verdict invalidates, or -1
 * after logging an error that names the file and what is wrong.
 */
#define CLOCKS_INVALID 1
int clocks_analyse(const char *rundir, FILE *out);

#endif
