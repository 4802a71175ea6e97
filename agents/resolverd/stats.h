/*
 * What resolverd writes: events (lib/event.h) and one CSV line per
 * upstream query.
 *
 * Every stats_interval, one `resolver_stats` event per resolver that did
 * anything in the period (a quiet resolver writes nothing), with the
 * counts of that period (struct rsv_counts) and its cache size; on exit
 * the last period, then `resolver_summary` per resolver with its totals,
 * then `resolverd_summary` with the totals of the process.
 *
 * The CSV (docs/resolverd.md) has one line per upstream attempt, written
 * when its fate is known:
 *
 *   sent_ns,resolver,source,upstream,transport,id,qname,qtype,reason,attempt,result,rcode,rtt_ns,
 *   zone,ask_name,ask_type
 *
 * qname and qtype are the client's question the query is for; zone is the
 * cut it was sent to when iterating (empty when forwarding), ask_name and
 * ask_type the question it asked (the client's when forwarding; a CNAME
 * target, an NS name or a minimised name when iterating).
 */
#ifndef STEERLAB_RESOLVERD_STATS_H
#define STEERLAB_RESOLVERD_STATS_H

#include <stdio.h>

#include "event.h"
#include "upstream.h"

#define RSV_CSV_HEADER                                                                             \
	"sent_ns,resolver,source,upstream,transport,id,qname,qtype,reason,attempt,result,rcode,"   \
	"rtt_ns,zone,ask_name,ask_type\n"

struct rsv_stats {
	struct event_log *ev;
	FILE *csv;
	int csv_failed;
};

/* rsv_stats_period: resolver_stats for the period just ended. */
void rsv_stats_period(struct rsv_ctx *ctx);

/* rsv_stats_summary: resolver_summary per resolver, resolverd_summary. */
void rsv_stats_summary(struct rsv_ctx *ctx);

/* rsv_stats_attempt: the CSV line of p's current attempt. result is
 * answer, truncated, timeout, error or abandoned; rcode -1 if none;
 * rtt_ns 0 if none. */
void rsv_stats_attempt(struct rsv_ctx *ctx, const struct rsv_pending *p, const char *result,
		       int rcode, int64_t rtt_ns);

/* rsv_stats_servers: c's upstreams (forward) or root hints (iterate) as
 * "ADDR:PORT [IPV6]:PORT ..." in buf (RSV_UPSTREAM_MAX * RSV_SA_STRLEN
 * bytes hold them all; less cuts the list), for resolverd_ready and the
 * log. Returns buf. */
const char *rsv_stats_servers(const struct rsv_conf *c, char *buf, size_t len);

/* rsv_stats_flush: pushes the CSV out (each period, and at exit). -1 if
 * it could not be written. */
int rsv_stats_flush(struct rsv_ctx *ctx);

#endif
