/*
 * What every part of probes/clocks shares: the marks of a missing value,
 * the bounds of names, the schemes and the client ids that tell them
 * apart, and the notes (coded warnings) a part leaves for the reader.
 * Times are ns of CLOCK_REALTIME (docs/clocks.md).
 */
#ifndef STEERLAB_CLOCKS_BASE_H
#define STEERLAB_CLOCKS_BASE_H

#include <stdint.h>

#include "wire.h"

#define CLOCKS_NONE INT64_MIN
#define CLOCKS_NA (INT64_MIN + 1) /* not a measure of this scheme: no JSON key, "n/a" */
#define CLOCKS_NAME_MAX 64
#define CLOCKS_DNS_NAME_MAX 256 /* a DNS name in text, with its final dot */
#define CLOCKS_MAX_WARNINGS 64
#define CLOCKS_WARNING_LEN 512
#define CLOCKS_CODE_LEN 32
#define CLOCKS_MAX_CLIENTS 256
#define CLOCKS_NSCHEMES 2 /* anycast, dns: the order of every per-scheme array */

/*
 * The schemes, told apart by the client ids of lib/wire.h (defined there
 * once, for the lab, the agents and the analysis): WIRE_PROBE_CLIENT the
 * probers', a client node's anycast flow its number N, its DNS-steered flow
 * WIRE_DNS_CLIENT_ID(N); a population's logical clients WIRE_POP_ID.
 */

enum clocks_scheme {
	CLOCKS_SCHEME_NONE, /* a prober's probe */
	CLOCKS_SCHEME_ANYCAST,
	CLOCKS_SCHEME_DNS,
};

/* clocks_scheme_of: the scheme whose flow carries client id client. (Inline:
 * the analysis asks it of every captured request, several times.) */
static inline enum clocks_scheme clocks_scheme_of(uint32_t client)
{
	if (client == WIRE_PROBE_CLIENT)
		return CLOCKS_SCHEME_NONE;
	return wire_is_dns(client) ? CLOCKS_SCHEME_DNS : CLOCKS_SCHEME_ANYCAST;
}

/* clocks_pop_of: whether client is a population's logical client */
static inline int clocks_pop_of(uint32_t client)
{
	return (client & WIRE_POP_BIT) != 0;
}

/*
 * Notes for the reader of the results: what is missing, what a self-check
 * found, and why. Each has a code (docs/clocks.md lists them) and
 * invalidates the run or not; a run with one invalidating note is not valid.
 */
struct clocks_warning {
	char code[CLOCKS_CODE_LEN];
	int invalidates;
	char msg[CLOCKS_WARNING_LEN];
};

struct clocks_notes {
	struct clocks_warning w[CLOCKS_MAX_WARNINGS];
	int n;
	int lost;    /* warnings past CLOCKS_MAX_WARNINGS */
	int invalid; /* invalidating ones, kept or lost */
};

/* clocks_warn: a note that does not invalidate the run; clocks_invalid: one
 * that does */
void clocks_warn(struct clocks_notes *notes, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void clocks_invalid(struct clocks_notes *notes, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
