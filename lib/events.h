/*
 * Every event's name and fields, defined once (docs/events.md describes
 * them): the agents and the lab write them through lib/event.h under these
 * names, the analysis (probes/clocks/clocks_events.c) and `steerlab run`
 * read them under the same. A unit test checks docs/events.md against
 * events_table: every event documented with its fields, nothing documented
 * that is not in it. A new event is a name here, a row of events_table and
 * a row of docs/events.md, in one commit.
 */
#ifndef STEERLAB_EVENTS_H
#define STEERLAB_EVENTS_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#define EVENTS_LAB_UP "lab_up"
#define EVENTS_IMPAIRMENTS "impairments"
#define EVENTS_HOST_CLOCK "host_clock"
#define EVENTS_TRAFFIC_STARTED "traffic_started"
#define EVENTS_SITE_FAILED "site_failed"
#define EVENTS_EVENT_APPLIED "event_applied"
#define EVENTS_SITE_RECOVERED "site_recovered"
#define EVENTS_AGENT_EXITED "agent_exited"
#define EVENTS_TRAFFIC_STOPPED "traffic_stopped"
#define EVENTS_LAB_STOPPING "lab_stopping"
#define EVENTS_LAB_DOWN "lab_down"
#define EVENTS_SITED_READY "sited_ready"
#define EVENTS_SITED_DRAINING "sited_draining"
#define EVENTS_SITED_UNDRAINED "sited_undrained"
#define EVENTS_SITED_DEGRADED "sited_degraded"
#define EVENTS_SITED_RESTORED "sited_restored"
#define EVENTS_SITED_SLOWED "sited_slowed"
#define EVENTS_SITED_SUMMARY "sited_summary"
#define EVENTS_PROBER_STARTED "prober_started"
#define EVENTS_PROBE_FAILED "probe_failed"
#define EVENTS_DECLARED_DEAD "declared_dead"
#define EVENTS_DECLARED_ALIVE "declared_alive"
#define EVENTS_ADDRESS_ADDED "address_added"
#define EVENTS_ADDRESS_REMOVED "address_removed"
#define EVENTS_ANNOUNCE_SENT "announce_sent"
#define EVENTS_WITHDRAW_SENT "withdraw_sent"
#define EVENTS_HEALTH_SENT "health_sent"
#define EVENTS_PROBER_SUMMARY "prober_summary"
#define EVENTS_PROBER_PHASED "prober_phased"
#define EVENTS_PROBER_WITHHELD "prober_withheld"
#define EVENTS_ROUTE_APPLIED "route_applied"
#define EVENTS_ROUTE_WITHDRAWN "route_withdrawn"
#define EVENTS_ROUTE_EXPIRED "route_expired"
#define EVENTS_ROUTE_ERROR "route_error"
#define EVENTS_ROUTED_SUMMARY "routed_summary"
#define EVENTS_CONTROL_REJECTED "control_rejected"
#define EVENTS_CLIENT_READY "client_ready"
#define EVENTS_CLIENT_STARTED "client_started"
#define EVENTS_DNS_ANSWER "dns_answer"
#define EVENTS_DNS_RESOLUTION "dns_resolution"
#define EVENTS_CLIENT_PROGRESS "client_progress"
#define EVENTS_CLIENT_SUMMARY "client_summary"
#define EVENTS_DNS_SUMMARY "dns_summary"
#define EVENTS_TCP_CONNECTED "tcp_connected"
#define EVENTS_TCP_FAILED "tcp_failed"
#define EVENTS_TCP_CLOSED "tcp_closed"
#define EVENTS_HTTP_CONNECTED "http_connected"
#define EVENTS_HTTP_FAILED "http_failed"
#define EVENTS_HTTP_ADDRESS "http_address"
#define EVENTS_AUTHD_READY "authd_ready"
#define EVENTS_HEALTH_CHANGED "health_changed"
#define EVENTS_ANSWER_CHANGED "answer_changed"
#define EVENTS_ZONE_CHANGED "zone_changed"
#define EVENTS_AUTHORITY_CHANGED "authority_changed"
#define EVENTS_AUTHD_SUMMARY "authd_summary"
#define EVENTS_RESOLVERD_READY "resolverd_ready"
#define EVENTS_RESOLVER_STATS "resolver_stats"
#define EVENTS_RESOLVER_SUMMARY "resolver_summary"
#define EVENTS_RESOLVERD_SUMMARY "resolverd_summary"
#define EVENTS_CAPTURE_READY "capture_ready"
#define EVENTS_ROUTE_ADDED "route_added"
#define EVENTS_ROUTE_DELETED "route_deleted"
#define EVENTS_COLLECTOR_STALLED "collector_stalled"
#define EVENTS_ROUTE_MONITOR_OVERRUN "route_monitor_overrun"
#define EVENTS_ROUTE_MONITOR_ERROR "route_monitor_error"
#define EVENTS_CAPTURE_ERROR "capture_error"
#define EVENTS_CAPTURE_PROGRESS "capture_progress"
#define EVENTS_CAPTURE_STATS "capture_stats"
#define EVENTS_LINKD_INTERFACE "linkd_interface"
#define EVENTS_LINKD_READY "linkd_ready"
#define EVENTS_LINKD_SUMMARY "linkd_summary"
#define EVENTS_LINKD_IMPAIRED "linkd_impaired"
#define EVENTS_LINK_IMPAIRED "link_impaired"

/* one event: its name, the program that writes it (NULL: any agent with a
 * control channel, lib/ctlreject.h) and its fields besides t, node, agent
 * and event, each separated by a space */
struct events_def {
	const char *name;
	const char *agent;
	const char *fields;
};

extern const struct events_def events_table[];
extern const size_t events_count;

/* events_find: the entry of the event named name, or NULL (not an event). */
const struct events_def *events_find(const char *name);

/* events_has_field: whether field is one of e's fields (a word of
 * e->fields), 1 or 0 */
int events_has_field(const struct events_def *e, const char *field);

/* events_each: fn on each line of the JSON Lines file fp, from where it
 * is to its end, that is an object with an "event" (its name given);
 * other lines (a line cut short by a killed writer) are passed over. The
 * object is fn's to read, not to keep. */
void events_each(FILE *fp, void (*fn)(json_t *obj, const char *event, void *arg), void *arg);

#endif
