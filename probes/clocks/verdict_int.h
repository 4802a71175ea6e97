/*
 * What the verdict's files share (probes/clocks/verdict.c, verdict_loss.c,
 * verdict_health.c): times told from t0, the measured part of the run,
 * what the timeline acted on, and each file's checks.
 */
#ifndef STEERLAB_VERDICT_INT_H
#define STEERLAB_VERDICT_INT_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#include "clocks_int.h"

/* clocks_verdict_at: t as "t0 + 1.234 s" (or "t0 - 0.500 s") in buf */
const char *clocks_verdict_at(char *buf, size_t len, const struct clocks_input *in, int64_t t);

/* clocks_verdict_cutoff: when the teardown began (INT64_MAX: not recorded) */
int64_t clocks_verdict_cutoff(const struct clocks_input *in);

/* clocks_verdict_measured: t is from the traffic's start to the teardown */
int clocks_verdict_measured(const struct clocks_input *in, int64_t t);

/* clocks_verdict_hit_site: the timeline acted on site at or before t_ns */
int clocks_verdict_hit_site(const struct clocks_input *in, const char *site, int64_t t_ns);

/* clocks_verdict_hit_via: the timeline acted at or before t_ns on a target whose
 * link address is via */
int clocks_verdict_hit_via(const struct clocks_input *in, struct in_addr via, int64_t t_ns);

/* clocks_verdict_losses: unexplained_loss, lost_in_transit, lost_queued and
 * loss_mismatch of scheme result r (its flows fl) into v (verdict_loss.c) */
void clocks_verdict_losses(const struct clocks_input *in, const struct clocks_flows *fl,
			   const struct clocks_result *r, struct clocks_notes *v);

/* clocks_verdict_healthy: healthy_site_failed into v (verdict_health.c) */
void clocks_verdict_healthy(const struct clocks_input *in, struct clocks_notes *v);

/* clocks_verdict_pop_stalled: client_stalled of a population, a 100 ms
 * of its requests after t0 under 50 % of its rate (verdict_pop.c) */
void clocks_verdict_pop_stalled(const struct clocks_input *in, struct clocks_notes *v);

/* A route change read after the collector's loop stalled longer than this
 * may be that much older than its time stamp (the collector reports such
 * stalls from this length: COLLECTOR_STALL_NS) */
#define CLOCKS_MONITOR_STALL_NS (50 * 1000000LL)
/* steer_after_window's slack beyond the clients' request interval: the
 * capture's and the route monitor's delays, a client's usual lateness */
#define CLOCKS_STEER_SLACK_NS (50 * 1000000LL)

/* clocks_verdict_routes: route_events_lost, route_monitor_stalled and
 * steer_after_window into v (verdict_route.c); anycast: the anycast
 * scheme's result (NULL: none) */
void clocks_verdict_routes(const struct clocks_input *in, const struct clocks_result *anycast,
			   struct clocks_notes *v);

#endif
