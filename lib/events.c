/* Every event's name and fields, in one table; see events.h. */
#include "events.h"

#include <stdlib.h>
#include <string.h>

const struct events_def events_table[] = {
    {EVENTS_LAB_UP, "steerlab", "lab topology nodes links port ip addresses twins hosts"},
    {EVENTS_TRAFFIC_STARTED, "steerlab",
     "duration_ns fail_at_ns nominal_fail_at_ns fail_jitter_ns seed events"},
    {EVENTS_SITE_FAILED, "steerlab",
     "site via prefix address how pid killed_ns routes cause by nominal_at_ns jitter_offset_ns "
     "family"},
    {EVENTS_EVENT_APPLIED, "steerlab",
     "name action target kind site step cycle vias done_ns by nominal_at_ns at_ns change "
     "serial"},
    {EVENTS_SITE_RECOVERED, "steerlab", "site pid ready by"},
    {EVENTS_AGENT_EXITED, "steerlab", "node agent pid exit_code signal expected"},
    {EVENTS_TRAFFIC_STOPPED, "steerlab", "interrupted by"},
    {EVENTS_LAB_STOPPING, "steerlab", ""},
    {EVENTS_LAB_DOWN, "steerlab", ""},
    {EVENTS_IMPAIRMENTS, "steerlab", "mechanism why paths"},
    {EVENTS_HOST_CLOCK, "steerlab", "host reference offset_ns uncertainty_ns probes"},
    {EVENTS_AUTHORITY_CHANGED, "steerlab", "server impl name what site after serial id"},
    {EVENTS_LINK_IMPAIRED, "steerlab",
     "name link from to interface impairment delay_ns jitter_ns loss_pct rate_bps mechanism by "
     "paths"},
    {EVENTS_SITED_READY, "sited", "site port"},
    {EVENTS_SITED_DRAINING, "sited", "site"},
    {EVENTS_SITED_UNDRAINED, "sited", "site"},
    {EVENTS_SITED_DEGRADED, "sited", "site"},
    {EVENTS_SITED_RESTORED, "sited", "site"},
    {EVENTS_SITED_SLOWED, "sited", "site delay_ns"},
    {EVENTS_SITED_SUMMARY, "sited",
     "site requests replies bad degraded_dropped tcp_requests tcp_accepted tcp_refused tcp_closed "
     "tcp_reset "
     "tcp_aborted tcp_open http"},
    {EVENTS_PROBER_STARTED, "prober", "site check target interval_ns timeout_ns"},
    {EVENTS_PROBE_FAILED, "prober", "site check consecutive reason"},
    {EVENTS_DECLARED_DEAD, "prober", "site failures"},
    {EVENTS_DECLARED_ALIVE, "prober", "site successes"},
    {EVENTS_ADDRESS_ADDED, "prober", "site prefix dev"},
    {EVENTS_ADDRESS_REMOVED, "prober", "site prefix dev"},
    {EVENTS_ANNOUNCE_SENT, "prober", "site prefix router"},
    {EVENTS_WITHDRAW_SENT, "prober", "site prefix router"},
    {EVENTS_HEALTH_SENT, "prober", "site state rtt_us authd"},
    {EVENTS_PROBER_SUMMARY, "prober", "site check probes failed"},
    {EVENTS_PROBER_PHASED, "prober", "interval_ns refresh_ns"},
    {EVENTS_PROBER_WITHHELD, "prober", "site family"},
    {EVENTS_ROUTE_APPLIED, "routed", "site prefix via metric"},
    {EVENTS_ROUTE_WITHDRAWN, "routed", "site prefix via"},
    {EVENTS_ROUTE_EXPIRED, "routed", "site prefix via metric last_t silent_s deleted"},
    {EVENTS_ROUTE_ERROR, "routed", "site prefix error"},
    {EVENTS_ROUTED_SUMMARY, "routed", "messages bad rejected applied withdrawn expired errors"},
    {EVENTS_CONTROL_REJECTED, NULL, "from reason count"},
    {EVENTS_CLIENT_READY, "client", "client"},
    {EVENTS_CLIENT_STARTED, "client",
     "client target rate resolver mode sticky_ns proto population arrivals sticky_share family"},
    {EVENTS_DNS_ANSWER, "client", "client name address previous ttl changed"},
    {EVENTS_DNS_RESOLUTION, "client", "client outcome rcode stale address latency_ns"},
    {EVENTS_CLIENT_PROGRESS, "client", "client sent ok lost errors sites"},
    {EVENTS_CLIENT_SUMMARY, "client",
     "client sent ok lost errors sites late sending_ns tcp http family"},
    {EVENTS_DNS_SUMMARY, "client", "client queries answers failures changes population"},
    {EVENTS_TCP_CONNECTED, "client", "client address local_port attempt"},
    {EVENTS_TCP_FAILED, "client",
     "client cause address outstanding attempt connected retry_ns next"},
    {EVENTS_TCP_CLOSED, "client", "client reason address local_port requests"},
    {EVENTS_HTTP_CONNECTED, "client", "client address local_port"},
    {EVENTS_HTTP_FAILED, "client", "client seq cause status address local_port reused"},
    {EVENTS_HTTP_ADDRESS, "client", "client address previous"},
    {EVENTS_AUTHD_READY, "authd", "listen control zones names sites"},
    {EVENTS_HEALTH_CHANGED, "authd", "site healthy up_reports reports prober"},
    {EVENTS_ANSWER_CHANGED, "authd", "name before after reason policy networks"},
    {EVENTS_ZONE_CHANGED, "authd", "zone name what site type before after serial id"},
    {EVENTS_AUTHD_SUMMARY, "authd",
     "queries responses dropped truncated referrals nodata ecs rcodes udp_queries tcp_queries "
     "tcp_connections tcp_rejected send_errors reports bad_reports proximity_reports "
     "unknown_site_reports "
     "rejected_reports changes bad_changes failed_changes rejected_changes"},
    {EVENTS_RESOLVERD_READY, "resolverd", "resolvers port tcp mode upstream root"},
    {EVENTS_RESOLVER_STATS, "resolverd",
     "resolver address queries hits negative_hits misses coalesced upstream_queries "
     "upstream_timeouts stale_answers prefetches servfail overloaded bad entries evictions "
     "pending"},
    {EVENTS_RESOLVER_SUMMARY, "resolverd",
     "resolver address queries hits negative_hits misses coalesced upstream_queries "
     "upstream_timeouts stale_answers prefetches servfail overloaded bad entries evictions "
     "pending"},
    {EVENTS_RESOLVERD_SUMMARY, "resolverd",
     "resolvers queries hits negative_hits misses coalesced upstream_queries upstream_timeouts "
     "stale_answers prefetches servfail overloaded bad entries"},
    {EVENTS_CAPTURE_READY, "collector", "label iface linktype snaplen buffer"},
    {EVENTS_ROUTE_ADDED, "collector",
     "prefix op replace via metric protocol table type dev multipath nexthops nhid stalled_ns"},
    {EVENTS_ROUTE_DELETED, "collector",
     "prefix op replace via metric protocol table type dev multipath nexthops nhid stalled_ns"},
    {EVENTS_COLLECTOR_STALLED, "collector", "stalled_ns from"},
    {EVENTS_ROUTE_MONITOR_OVERRUN, "collector", "overruns"},
    {EVENTS_ROUTE_MONITOR_ERROR, "collector", ""},
    {EVENTS_CAPTURE_ERROR, "collector", "label iface file errno error"},
    {EVENTS_CAPTURE_PROGRESS, "collector", "links"},
    {EVENTS_CAPTURE_STATS, "collector", "label iface packets written received dropped if_dropped"},
    {EVENTS_LINKD_INTERFACE, "linkd",
     "interface queue impairment delay_ns jitter_ns distribution loss_pct loss_corr_pct "
     "reorder_pct "
     "rate_bps"},
    {EVENTS_LINKD_READY, "linkd", "table interfaces"},
    {EVENTS_LINKD_SUMMARY, "linkd",
     "interface queue queued released dropped overflow reordered flushed"},
    {EVENTS_LINKD_IMPAIRED, "linkd",
     "interface impairment delay_ns jitter_ns loss_pct loss_corr_pct reorder_pct rate_bps"},
};

const size_t events_count = sizeof(events_table) / sizeof(events_table[0]);

const struct events_def *events_find(const char *name)
{
	for (size_t i = 0; i < events_count; i++)
		if (strcmp(events_table[i].name, name) == 0)
			return &events_table[i];
	return NULL;
}

int events_has_field(const struct events_def *e, const char *field)
{
	size_t len = strlen(field);

	for (const char *p = e->fields; *p;) {
		size_t word = strcspn(p, " ");

		if (word == len && strncmp(p, field, len) == 0)
			return 1;
		p += word;
		p += strspn(p, " ");
	}
	return 0;
}

void events_each(FILE *fp, void (*fn)(json_t *obj, const char *event, void *arg), void *arg)
{
	char *line = NULL;
	size_t cap = 0;

	while (getline(&line, &cap, fp) != -1) {
		json_t *obj = json_loads(line, 0, NULL);
		const char *event = json_string_value(json_object_get(obj, "event"));

		if (event)
			fn(obj, event, arg);
		json_decref(obj);
	}
	free(line);
}
