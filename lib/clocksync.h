/*
 * Two hosts' clocks compared by timestamped probes, as NTP does (RFC 5905,
 * 8): the reference sends at t1 (its clock), the host receives at t2 and
 * answers at t3 (its clock), the reference receives at t4. The host's
 * offset (its clock less the reference's) is ((t2 - t1) + (t3 - t4)) / 2,
 * exact when the two ways take as long; however they split the round
 * trip (t4 - t1) - (t3 - t2), the true offset is within half of it. Of N
 * probes the one of the smallest round trip is kept (the least queued),
 * and half its round trip is the offset's uncertainty. Pure functions: the
 * probes themselves are lab/build/hostclock.c's.
 */
#ifndef STEERLAB_CLOCKSYNC_H
#define STEERLAB_CLOCKSYNC_H

#include <stdint.h>

struct clocksync_probe {
	int64_t t1, t4; /* sent, answer received: the reference's clock, ns */
	int64_t t2, t3; /* received, answered: the host's clock, ns */
};

/* clocksync_offset_ns: probe p's offset, the host's clock less the
 * reference's; clocksync_rtt_ns: its round trip less the host's time */
int64_t clocksync_offset_ns(const struct clocksync_probe *p);
int64_t clocksync_rtt_ns(const struct clocksync_probe *p);

/* clocksync_estimate: of the n probes, the one of the smallest round trip
 * (a probe whose round trip is negative, broken, is skipped): its offset
 * into *offset_ns and half its round trip into *uncertainty_ns. 0, or -1
 * if no probe was usable. */
int clocksync_estimate(const struct clocksync_probe *p, int n, int64_t *offset_ns,
		       int64_t *uncertainty_ns);

/* clocksync_too_uncertain: whether an uncertainty of uncertainty_ns is
 * more than share (such as 0.1) of a clock of clock_ns that compares two
 * hosts' time stamps */
int clocksync_too_uncertain(int64_t uncertainty_ns, int64_t clock_ns, double share);

#endif
