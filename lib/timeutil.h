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

/* parse_duration_ns: "100ms", "1.5s", "250us", "2" (seconds), "3m".
 * Returns 0 and sets *ns, or -1 on a malformed or negative value. */
int parse_duration_ns(const char *s, int64_t *ns);

#endif
