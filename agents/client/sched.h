/*
 * The client's absolute send schedule: request k is due at
 * start + k / rate (ns of CLOCK_MONOTONIC). Times are computed from k, never
 * accumulated, so there is no drift; a late wake-up finds several requests
 * due at once and sends them all (catch-up).
 */
#ifndef STEERLAB_CLIENT_SCHED_H
#define STEERLAB_CLIENT_SCHED_H

#include <stdint.h>

struct client_sched {
	int64_t start_ns; /* CLOCK_MONOTONIC time request 0 is due */
	double rate;	  /* requests per second, > 0 */
	uint64_t total;	  /* requests in the run; UINT64_MAX: no end */
};

/* client_sched_init: total from duration_ns (0: no end): the requests due
 * strictly before start + duration. */
void client_sched_init(struct client_sched *s, int64_t start_ns, double rate, int64_t duration_ns);

/* client_sched_due_at: the time request k is due. */
int64_t client_sched_due_at(const struct client_sched *s, uint64_t k);

/* client_sched_due_by: how many requests (0, 1, ... ) are due at or before
 * now_ns, capped at total. */
uint64_t client_sched_due_by(const struct client_sched *s, int64_t now_ns);

#endif
