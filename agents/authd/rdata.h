/*
 * Record data from configuration text: what a `record = OWNER [TTL] TYPE
 * RDATA` line and the zone's `soa` say, in the presentation format of zone
 * files (RFC 1035 section 5), turned into RDATA wire bytes for libknot's
 * RRsets. The types: A, AAAA, CNAME, NS, PTR, MX, SRV, TXT and SOA.
 *
 * Names follow one rule: "@" is the zone apex; a name ending in '.' is
 * absolute; a name ending in the zone's own name is absolute too (so "ns1"
 * and "ns1.lab.example" are the same in zone lab.example); any other name
 * is relative to the zone, as in a zone file. Names are stored lowercased.
 */
#ifndef STEERLAB_AUTHD_RDATA_H
#define STEERLAB_AUTHD_RDATA_H

#include <libknot/libknot.h>
#include <stddef.h>
#include <stdint.h>

/* authd_name_parse: text as a name in zone origin (NULL: absolute) into out
 * (KNOT_DNAME_MAXLEN bytes). 0, or -1 if it is not a valid name. */
int authd_name_parse(const char *text, const knot_dname_t *origin, knot_dname_t *out);

/* authd_type_parse: a supported type name (case-insensitive). 0 or -1. */
int authd_type_parse(const char *s, uint16_t *type);

/* authd_rdata_parse: text as the RDATA of type, names relative to origin,
 * into buf. Returns its length, or -1 with the reason in why. */
int authd_rdata_parse(uint16_t type, const char *text, const knot_dname_t *origin, uint8_t *buf,
		      size_t len, char *why, size_t whylen);

#endif
