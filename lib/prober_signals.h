/*
 * The signals the prober takes besides SIGTERM, defined once: the prober
 * acts on them (agents/prober/prober.c) and the lab sends them.
 *
 *   phase     SIGUSR1, sigqueue'd with the traffic's start: the probe and
 *             refresh cycles from then (docs/agents.md, prober, "Phase")
 *   withhold  SIGUSR2, sigqueue'd with 4 or 6: with -L, that family's
 *             address kept off lo whatever the verdict, so bgpd withdraws
 *             that family's announcement alone (the timeline's drain of one
 *             family, docs/topology.md); 0: both kept by the verdict again
 */
#ifndef STEERLAB_PROBER_SIGNALS_H
#define STEERLAB_PROBER_SIGNALS_H

#include <signal.h>

#define PROBER_SIG_PHASE SIGUSR1
#define PROBER_SIG_WITHHOLD SIGUSR2

#endif
