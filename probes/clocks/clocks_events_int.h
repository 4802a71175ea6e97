/*
 * Inside the events reader (clocks_events.c, the driver and the fields of a
 * line; clocks_events_lab.c, clocks_events_route.c, clocks_events_dns.c, one
 * family of events each): a line being read, its field getters, and each
 * family's handler. Every getter and handler returns 0, or -1 with
 * "FILE:LINE: EVENT why" in the line's err.
 */
#ifndef STEERLAB_CLOCKS_EVENTS_INT_H
#define STEERLAB_CLOCKS_EVENTS_INT_H

#include <jansson.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#include "clocks_input.h"

/* where a line came from, for error messages */
struct clocks_line {
	const char *path;
	const char *node;  /* the NODE of NODE.AGENT.events.jsonl */
	const char *agent; /* its AGENT */
	int line;
	const char *event;
	json_t *obj;
	int64_t t;
	char *err;
	size_t errlen;
};

typedef int (*clocks_event_fn)(struct clocks_input *in, const struct clocks_line *l);

/* clocks_line_fail: "FILE:LINE: EVENT what "key"" in l's err; -1. */
int clocks_line_fail(const struct clocks_line *l, const char *what, const char *key);

/* The fields of l's object, named key: */
/* a non-empty string that fits out[size] */
int clocks_get_string(const struct clocks_line *l, const char *key, char *out, size_t size);
/* a string that fits CLOCKS_NAME_MAX */
int clocks_get_name(const struct clocks_line *l, const char *key, char *out);
/* an IPv4 address */
int clocks_get_addr(const struct clocks_line *l, const char *key, struct in_addr *addr);
/* an IPv4 prefix, ADDR/LEN */
int clocks_get_prefix(const struct clocks_line *l, const char *key, struct in_addr *addr,
		      int *prefixlen);
/* a list of address strings: the IPv4 ones in addrs[CLOCKS_MAX_ADDRS] */
int clocks_get_addrs(const struct clocks_input *in, const struct clocks_line *l, const char *key,
		     struct in_addr *addrs, int *n);
/* a non-negative integer, or null (*known = 0) */
int clocks_get_count(const struct clocks_line *l, const char *key, int64_t *out, int *known);
/* an integer that may be absent or null (*has = 0) */
int clocks_get_opt_int(const struct clocks_line *l, const char *key, int64_t *out, int *has);
/* a string that may be absent or null ("") */
int clocks_get_opt_string(const struct clocks_line *l, const char *key, char *out, size_t size);

/* Each family's events, into *in: the lab's (clocks_events_lab.c), the
 * probers', collectors' and routed's (clocks_events_route.c), the clients'
 * and authd's (clocks_events_dns.c); an event a family does not use is
 * skipped. */
int clocks_lab_event(struct clocks_input *in, const struct clocks_line *l);
int clocks_prober_event(struct clocks_input *in, const struct clocks_line *l);
int clocks_collector_event(struct clocks_input *in, const struct clocks_line *l);
int clocks_routed_event(struct clocks_input *in, const struct clocks_line *l);
int clocks_client_event(struct clocks_input *in, const struct clocks_line *l);
int clocks_authd_event(struct clocks_input *in, const struct clocks_line *l);
/* clocks_zone_change_event: authd's zone_changed, or the lab's
 * authority_changed (PowerDNS's and gdnsd's), into in->zchanges */
int clocks_zone_change_event(struct clocks_input *in, const struct clocks_line *l);
/* A lab over several hosts (clocks_hosts.c): lab_up's "hosts" {NODE:
 * HOST}; a host_clock; a capture_ready's label, captured by l's node */
int clocks_hosts_lab_up(struct clocks_input *in, const struct clocks_line *l);
int clocks_host_clock_event(struct clocks_input *in, const struct clocks_line *l);
int clocks_hosts_capture_ready(struct clocks_input *in, const struct clocks_line *l);
/* clocks_rejected_event: control_rejected {from, reason, count} of agent
 * (routed or authd) */
int clocks_rejected_event(struct clocks_input *in, const struct clocks_line *l, const char *agent);

#endif
