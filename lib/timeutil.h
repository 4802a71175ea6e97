/*
 * Time in steerlab is nanoseconds in a uint64_t / int64_t.
 *
 * Events and captures use CLOCK_REALTIME (the clock pcap timestamps use), so
 * every timestamp in a run directory is on one time base. Pacing and
 * timeouts use CLOCK_MONOTONIC, which does not jump.
 */
#ifndef STEERLAB_TIMEUTIL_H
#define STEERLAB_TIMEUTIL_H

#include <stdint.h>
#include <time.h>

#define NSEC_PER_SEC 1000000000LL
#define NSEC_PER_MSEC 1000000LL
#define NSEC_PER_USEC 1000LL

int64_t now_real_ns(void);
int64_t now_mono_ns(void);
struct timespec ns_to_timespec(int64_t ns);
int64_t timespec_to_ns(const struct timespec *ts);

/* sleep_until_mono: absolute sleep on CLOCK_MONOTONIC, restarted on EINTR
 * unless *stop becomes non-zero (stop may be NULL). Returns 0, or -1 when
 * interrupted by *stop. */
int sleep_until_mono(int64_t deadline_ns, volatile int *stop);

/*
 * Durations: one grammar for every file and option of the lab (topology,
 * authd's TTLs, resolverd's keys, command lines):
 *
 *	DURATION := NUMBER | (NUMBER UNIT)+ [DIGITS]
 *	NUMBER   := (DIGITS ['.' [DIGITS]] | '.' DIGITS) [EXPONENT]
 *	EXPONENT := ('e' | 'E') ['+' | '-'] DIGITS
 *	UNIT     := ns | us | ms | s | m | h | d | w	(in any case)
 *
 * "1h30m", "1.5s", "250ms", "2". A bare number is seconds, which is what
 * it meant in every file before the grammars were one: the topology's and
 * resolverd's durations ("2" = 2s, lib/timeutil's parse_duration_ns) and
 * authd's TTLs ("30" = 30 s, authd_ttl_parse); so is a number after the
 * units ("1h30", authd's TTLs had it). Each grammar read before is a part
 * of this one with its meaning unchanged, except what strtod(3) let
 * through by accident: a sign, hexadecimal, leading blanks. (An exponent
 * stays: "timeout = 1e3" is 1000 s in tests/unit/data/topology.)
 */

/* parse_duration_ns: a DURATION in nanoseconds, rounded to the nearest.
 * Returns 0 and sets *ns, or -1 if malformed or past INT64_MAX ns. */
int parse_duration_ns(const char *s, int64_t *ns);

/* parse_ttl: a DURATION that is a whole number of seconds, at most
 * 2^31 - 1 (a DNS TTL, RFC 2181 section 8). 0 and *ttl, or -1. */
int parse_ttl(const char *s, uint32_t *ttl);

#endif
