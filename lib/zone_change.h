/*
 * DNS changes during a run (docs/authd.md, "Changes"): one UDP datagram of
 * one text line per change, to authd's control socket, from a sender
 * authd's -A entitles; authd answers each with one line to its sender.
 *
 *   CHANGE <id> set-ttl <name> <ttl>
 *   CHANGE <id> set-weight <name> <site> <weight>
 *   CHANGE <id> add-record <owner> [<ttl>] <type> <data ...>
 *   CHANGE <id> remove-record <owner> <type> [<data ...>]
 *
 *   OK <id> <serial>
 *   ERR <id> <reason ...>
 *
 * id is 1 to ZONE_CHANGE_ID_LEN characters of [A-Za-z0-9._-] (the lab's
 * event name), the reply's "-" when the change was too malformed to have
 * one. Names are absolute, the final dot optional; ttl a whole number of
 * seconds (RFC 2181: at most 2^31 - 1), weight 0 to ZONE_CHANGE_WEIGHT_MAX.
 * A record is written as in a zone file (authd's `record` lines), its
 * owner's text apart. The lab writes the changes (lab/run/actions.c) and
 * authd reads them (agents/authd/authd.c): this is the one definition.
 */
#ifndef STEERLAB_ZONE_CHANGE_H
#define STEERLAB_ZONE_CHANGE_H

#include <stddef.h>
#include <stdint.h>

#include "health_report.h"

#define ZONE_CHANGE_PORT HEALTH_PORT /* authd's control socket's */
#define ZONE_CHANGE_ID_LEN 32
#define ZONE_CHANGE_NAME_LEN 254
#define ZONE_CHANGE_RECORD_LEN 400
#define ZONE_CHANGE_REASON_LEN 200
#define ZONE_CHANGE_WEIGHT_MAX 1000000
#define ZONE_CHANGE_TTL_MAX 2147483647u
#define ZONE_CHANGE_LINE_MAX 800 /* the longest change or reply line */
/* where the lab sends its changes from: loopback, inside the [dns] node's
 * own namespace, the one place such a datagram can come from; it gives
 * authd -A with it (lab/build/agents.c, lab/run/actions.c) */
#define ZONE_CHANGE_FROM "127.0.0.1"

enum zone_change_op {
	ZONE_SET_TTL,
	ZONE_SET_WEIGHT,
	ZONE_ADD_RECORD,
	ZONE_REMOVE_RECORD,
	ZONE_NOPS,
};

struct zone_change {
	char id[ZONE_CHANGE_ID_LEN + 1];
	enum zone_change_op op;
	char name[ZONE_CHANGE_NAME_LEN + 1];
	char site[HEALTH_SITE_LEN + 1]; /* set-weight */
	uint32_t value;			/* set-ttl: seconds; set-weight: the weight */
	/* add-record: "[TTL] TYPE DATA", remove-record: "TYPE [DATA]" */
	char record[ZONE_CHANGE_RECORD_LEN + 1];
};

struct zone_change_reply {
	char id[ZONE_CHANGE_ID_LEN + 1];
	int ok;
	uint32_t serial;			 /* ok: the zone's serial after the change */
	char reason[ZONE_CHANGE_REASON_LEN + 1]; /* not ok: why */
};

/* zone_change_op_name: "set-ttl", ...; zone_change_op_find: the op of a
 * name, or -1. */
const char *zone_change_op_name(int op);
int zone_change_op_find(const char *name);

/* zone_change_is: whether line (len bytes) is a CHANGE line, not another
 * kind of control message. */
int zone_change_is(const char *line, size_t len);

/* zone_change_format: the line for c, with '\n'. Its length, or -1 if it
 * does not fit or a field is not valid. */
int zone_change_format(const struct zone_change *c, char *buf, size_t len);

/* zone_change_parse: one CHANGE line, without or with its '\n'. 0, or -1
 * with what was expected in why (c->id set if the id could be read). */
int zone_change_parse(const char *line, size_t len, struct zone_change *c, char *why, size_t wlen);

/* zone_change_reply_format, zone_change_reply_parse: the same for replies;
 * a reason is cut to ZONE_CHANGE_REASON_LEN and its line breaks become
 * spaces. */
int zone_change_reply_format(const struct zone_change_reply *r, char *buf, size_t len);
int zone_change_reply_parse(const char *line, size_t len, struct zone_change_reply *r);

#endif
