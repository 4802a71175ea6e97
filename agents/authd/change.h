/*
 * DNS changes during a run (docs/authd.md, "Changes"): a [name]'s TTL, a
 * weighted site's weight, a record added to a zone or removed from it,
 * applied to the database as the control channel's CHANGE lines say
 * (lib/zone_change.h). Each change bumps its zone's SOA serial (RFC 1982
 * arithmetic), so a resolver or a secondary can tell the zone moved on.
 *
 * What a change may not do, it refuses whole, with the reason, before it
 * touches anything: a TTL or weight of a name that is not a [name] (or not
 * a weighted one), a weight that would leave no site above 0, a record
 * outside the server's zones, at or below a delegation, of type SOA or NS
 * (the zone's shape stays), an A or AAAA at a [name] (its sites answer
 * there), a CNAME beside other data, a record already there or one that is
 * not. After a record change authd_db_refresh() computes the empty
 * non-terminals, delegations and glue again, and a name left with nothing
 * below it is gone: NXDOMAIN again.
 */
#ifndef STEERLAB_AUTHD_CHANGE_H
#define STEERLAB_AUTHD_CHANGE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "db.h"
#include "zone_change.h"

/* what one change did */
struct authd_change_result {
	const struct authd_zone *zone;
	uint32_t serial; /* the zone's, after */
	int name;	 /* set-ttl, set-weight: the [name]'s index in db->names */
	json_t *before;	 /* the TTL or weight (integers), or the RRset's records */
	json_t *after;	 /* (arrays of "TYPE DATA" strings); owned by the caller */
	char owner[KNOT_DNAME_TXT_MAXLEN + 1]; /* the name, absolute, lowercased */
	char type[16];			       /* add/remove-record: the record's type */
};

/* authd_change_apply: c applied to db. 0 with *r filled (the caller
 * json_decref()s before and after), or -1 with the reason in why and db
 * unchanged (out of memory half-way excepted: then said so). */
int authd_change_apply(struct authd_db *db, const struct zone_change *c,
		       struct authd_change_result *r, char *why, size_t len);

#endif
