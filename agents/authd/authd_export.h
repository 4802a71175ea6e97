/*
 * authd_export: what another program calls to read a configuration of
 * authd's as data, without authd's internals (conf.h, db.h): every zone's
 * static records as master-file text, and every steered name's policy, its
 * candidate sites in order and their addresses. The lab turns them into
 * another authoritative server's configuration (lab/build/authority.c:
 * PowerDNS's zone files and LUA records), so that a [zone] or [name] means
 * the same whatever serves it.
 */
#ifndef STEERLAB_AUTHD_EXPORT_H
#define STEERLAB_AUTHD_EXPORT_H

#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>

#include "zone_change.h"

#define AUTHD_EXPORT_SITES 64 /* AUTHD_MAX_SITES */
#define AUTHD_EXPORT_ADDRS 8  /* AUTHD_SITE_ADDRS */
#define AUTHD_EXPORT_GEO 64   /* geolocation entries exported */

enum authd_export_policy {
	AUTHD_EXPORT_SIMPLE,
	AUTHD_EXPORT_MULTIVALUE,
	AUTHD_EXPORT_FAILOVER,
	AUTHD_EXPORT_WEIGHTED,
	AUTHD_EXPORT_GEOLOCATION,
	AUTHD_EXPORT_LATENCY,
	AUTHD_EXPORT_PROXIMITY,
};

/* a candidate site of a name, in the policy's order */
struct authd_export_site {
	char name[17];
	uint32_t weight; /* weighted: its weight, else 0 */
	int naddr;	 /* its IPv4 addresses */
	struct in_addr addr[AUTHD_EXPORT_ADDRS];
	int naddr6; /* and its IPv6 ones (the lab's ip = dual) */
	struct in6_addr addr6[AUTHD_EXPORT_ADDRS];
};

/* a steered name */
struct authd_export_name {
	char owner[256]; /* absolute, with its final dot */
	int line;	 /* its [name] section's, in the configuration */
	enum authd_export_policy policy;
	const char *policy_name; /* "failover", ... as docs/authd.md writes it */
	uint32_t ttl;
	int fail_closed; /* every candidate dead: 1 nothing, 0 the policy as if all were up */
	int weighted_random;
	int pattern; /* weighted: an explicit rotation (`pattern`) */
	int nsites;
	struct authd_export_site sites[AUTHD_EXPORT_SITES];
	/* geolocation: its `geo` entries of both families in configuration
	 * order (ngeo of geo), each a network (AF_INET: net's first 4 bytes)
	 * and the slot (index in sites) it maps to; its `default` (a slot,
	 * -1: none); its `fallback` map (slot + 1 of the site taking a dead
	 * slot's users, 0: none). sites is its fallback order. */
	int ngeo;
	struct authd_export_geo {
		int family;
		uint8_t net[16];
		int len;
		int site;
	} geo[AUTHD_EXPORT_GEO];
	int default_site;
	int fallback[AUTHD_EXPORT_SITES];
};

/* authd_export_fn: zone apex (absolute, with its final dot) and its
 * records as master-file text, every owner absolute, one record a line,
 * its SOA first (with the delegations of the zones below it that this
 * configuration serves too, and their glue); then names[0..n), the
 * steered names in it. 0 to go on, -1 to stop. */
typedef int (*authd_export_fn)(void *arg, const char *apex, const char *records,
			       const struct authd_export_name *names, int n);

/* authd_export_stream: reads a configuration from f (named path in the
 * messages), and calls fn for each of its zones, in the configuration's
 * order. 0, or -1 if it is not valid (every problem on err as authd -t
 * writes them), out of memory, or fn stopped. */
int authd_export_stream(FILE *f, const char *path, FILE *err, authd_export_fn fn, void *arg);

/* the timeline's DNS changes (lib/zone_change.h) of a node, c[0..n) in
 * the order they came, applied by authd's own code (change.h) before the
 * export, as authd would hold its zones after them: ok 1 and the serial
 * of the last one's zone after it, or ok 0, the first one refused (its
 * index, failed) and why (the export then not made) */
struct authd_export_changes {
	const struct zone_change *c;
	int n;
	int ok;
	uint32_t serial;
	int failed;
	char reason[ZONE_CHANGE_REASON_LEN + 1];
};

/* authd_export_stream_changed: authd_export_stream of the configuration
 * with ch's changes applied (ch->ok 0: one refused, -1 returned, fn not
 * called) */
int authd_export_stream_changed(FILE *f, const char *path, FILE *err,
				struct authd_export_changes *ch, authd_export_fn fn, void *arg);

#endif
