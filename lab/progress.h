/*
 * The live progress of `steerlab run` (docs/sweeps.md, "Progress"): on a
 * terminal one status line, rewritten in place and cleared at the end; when
 * standard output is not a terminal a plain line every PROGRESS_PLAIN_NS of
 * traffic; with --quiet nothing.
 *
 *   [observing] 6.2/10.0 s  sent 31200  to a (last 1 s): anycast 0% dns 34%
 *
 * The counts come from the clients' client_progress events (docs/agents.md:
 * every second, the cumulative sent, ok, lost, errors and replies per site
 * of one flow), read incrementally from their event files: no CSV is
 * parsed and the clients keep their large CSV buffers. "To a" is, among the
 * requests whose fate became known between a flow's last two events, the
 * share answered by the failing site a, plus, once a has failed (t0), the
 * share that timed out: after t0 a request that gets no answer went to the
 * dead site. Before t0 it shows where the traffic goes; after, how much
 * still goes to the dead site.
 *
 * The run calls progress_phase() as it goes and progress_tick() often (it
 * reads new events and redraws at most every PROGRESS_TTY_NS). The
 * formatting and the arithmetic are pure functions, for the unit tests.
 */
#ifndef STEERLAB_PROGRESS_H
#define STEERLAB_PROGRESS_H

#include <stdint.h>
#include <stdio.h>

#include "topology.h"

struct lab;

#define PROGRESS_TTY_NS (100 * 1000000LL)    /* terminal redraw, at most */
#define PROGRESS_PLAIN_NS (2 * 1000000000LL) /* plain lines, during traffic */
#define PROGRESS_STALE_NS (2500 * 1000000LL) /* a flow silent this long has stopped */

enum progress_mode {
	PROGRESS_QUIET,
	PROGRESS_PLAIN,
	PROGRESS_TTY,
};

enum progress_phase {
	PROGRESS_IDLE,	    /* before the lab is up: nothing to show */
	PROGRESS_WARMUP,    /* lab up, waiting for captures, routes and DNS servers */
	PROGRESS_TRAFFIC,   /* clients sending, before the failure */
	PROGRESS_OBSERVING, /* after the failure (t0) */
	PROGRESS_DRAINING,  /* past the duration: clients waiting for their last replies */
	PROGRESS_DONE,	    /* traffic over: the line is cleared */
};

/* One flow's cumulative counts, from one client_progress event. */
struct progress_sample {
	int64_t t_ns; /* the event's t, CLOCK_REALTIME; 0: none yet */
	int64_t sent, ok, lost, errors;
	int64_t dead; /* replies from the failing site */
};

enum { PROGRESS_ANYCAST, PROGRESS_DNS, PROGRESS_NSCHEMES };

/* What one status line shows. */
struct progress_view {
	const char *label; /* e.g. "ttl=30 1/4" for a sweep's point, or NULL */
	enum progress_phase phase;
	int64_t elapsed_ns; /* warm-up: time in it; else since the traffic started */
	int64_t total_ns;   /* the traffic's duration */
	int64_t fail_at_ns; /* from the traffic's start to the failure */
	int64_t sent;	    /* requests sent by every flow; -1: no count yet */
	const char *dead;   /* the failing site */
	/* per scheme: requests resolved in the last interval, and of those the
	 * ones to the dead site; present = 0: the lab has no such flow */
	struct {
		int present;
		int64_t to_dead, resolved;
	} scheme[PROGRESS_NSCHEMES];
};

struct progress_flow;

struct progress {
	enum progress_mode mode;
	FILE *out;
	const char *label;
	enum progress_phase phase;
	char dead[TOPO_NAME_MAX + 1];
	int64_t phase_start_ns;	  /* CLOCK_MONOTONIC */
	int64_t traffic_start_ns; /* CLOCK_MONOTONIC; 0: not yet */
	int64_t total_ns, fail_at_ns;
	int64_t t0_ns; /* CLOCK_REALTIME of the failure; 0: not yet */
	int64_t next_draw_ns;
	int shown; /* a status line is on the terminal */
	struct progress_flow *flows;
	int nflows;
};

/* progress_init: for the run of t, writing to out. label may be NULL. */
void progress_init(struct progress *p, const struct topology *t, enum progress_mode mode, FILE *out,
		   const char *label);

/* progress_mode_for: QUIET if quiet, else TTY if out is a terminal, else PLAIN. */
enum progress_mode progress_mode_for(FILE *out, int quiet);

/* progress_phase: the run enters phase (WARMUP, or DONE: clears the line). */
void progress_phase(struct progress *p, enum progress_phase phase);

/* progress_traffic: the lab's clients started at start_ns (CLOCK_MONOTONIC);
 * their flows are its agents labelled client (anycast) and client-dns. */
void progress_traffic(struct progress *p, int64_t start_ns, const struct lab *lab);

/* progress_failed: the failing site was killed at t0_ns (CLOCK_REALTIME). */
void progress_failed(struct progress *p, int64_t t0_ns);

/* progress_tick: read what the clients wrote since the last tick and
 * redraw if it is time. Cheap: call it every 20-100 ms. */
void progress_tick(struct progress *p);

/* progress_clear: take the status line off the terminal before another
 * line is printed (the next tick draws it again). */
void progress_clear(struct progress *p);

/* progress_free: close the event files (and clear the line). */
void progress_free(struct progress *p);

/* progress_format: the status line of v into buf (no newline). Its length. */
int progress_format(char *buf, size_t len, const struct progress_view *v);

/* progress_parse: if line is a client_progress event, its counts into *s
 * (dead: the replies from site dead) and 0; else -1. */
int progress_parse(const char *line, const char *dead, struct progress_sample *s);

/* progress_share: add the requests resolved between prev and cur to
 * *resolved, and those to the dead site (its replies; after t0_ns, 0 if
 * not yet, its timeouts too) to *to_dead. Nothing if prev has no time. */
void progress_share(const struct progress_sample *prev, const struct progress_sample *cur,
		    int64_t t0_ns, int64_t *to_dead, int64_t *resolved);

#endif
