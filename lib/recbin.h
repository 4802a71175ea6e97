/*
 * Binary request records (docs/agents.md, "Binary records"): what a
 * client's CSV says, in fixed 32-byte records, for runs at rates where
 * formatting and parsing text costs too much. Written by the client
 * (-B FILE), read by the analysis (requests-NODE.bin).
 *
 * A 16-byte header, then records. All integers little-endian.
 *
 *   header: off len
 *             0   4  magic "SLRB"
 *             4   2  version (RECBIN_VERSION)
 *             6   2  record length (RECBIN_LEN)
 *             8   8  reserved (0)
 *
 *   record:   0   4  client id
 *             4   1  kind: 0 ok, 1 timeout, 2 error, 255 a site's name
 *             5   1  site index (kind ok: the site that answered; kind 255:
 *                    the index being named)
 *             6   2  reserved (0)
 *             8   8  sequence number       | kind 255: the site's name,
 *            16   8  sent_ns (CLOCK_REALTIME)| 16 bytes NUL-padded, at 8
 *            24   8  rtt_ns (ok; else 0)
 *
 * A site is named (kind 255) before the first record that uses its index;
 * 255 sites at most. A reader rejects another version or record length,
 * and a record of an unknown kind or an unnamed site.
 */
#ifndef STEERLAB_RECBIN_H
#define STEERLAB_RECBIN_H

#include <stddef.h>
#include <stdint.h>

#include "wire.h"

#define RECBIN_MAGIC "SLRB"
#define RECBIN_VERSION 1
#define RECBIN_HDR_LEN 16
#define RECBIN_LEN 32
#define RECBIN_MAX_SITES 255

enum recbin_kind {
	RECBIN_OK = 0,
	RECBIN_TIMEOUT = 1,
	RECBIN_ERROR = 2,
	RECBIN_SITE = 255,
};

struct recbin_rec {
	uint32_t client;
	uint8_t kind;
	uint8_t site;
	uint64_t seq;
	int64_t sent_ns;
	int64_t rtt_ns;
	char name[WIRE_SITE_LEN + 1]; /* kind RECBIN_SITE */
};

void recbin_header(uint8_t buf[RECBIN_HDR_LEN]);
/* recbin_check_header: 0, or -1 with what is wrong in why */
int recbin_check_header(const uint8_t *buf, size_t len, char *why, size_t whylen);
void recbin_encode(const struct recbin_rec *r, uint8_t buf[RECBIN_LEN]);
/* recbin_decode: 0, or -1 if the kind is unknown or a site name too long */
int recbin_decode(const uint8_t buf[RECBIN_LEN], struct recbin_rec *r);

#endif
