/*
 * The live progress of `steerlab run` (docs/sweeps.md, "Progress"): on a
 * terminal one status line, rewritten in place and cleared at the end; when
 * standard output is not a terminal a plain line every PROGRESS_PLAIN_NS of
 * traffic; with --quiet nothing.
 *
 *   [observing] 6.2/10.0 s  sent 31200  to a (last 0.5 s): anycast 0% dns 34%
 *
 * The line is made of fields (lab/run/progress_line.c) and never wider than the
 * terminal: when it would be, whole fields are shortened or dropped, in a
 * fixed order ("to a:", "any 0% dns 34%", ...), both schemes kept last;
 * nothing is ever cut inside a number or a word.
 *
 * "To a" comes from the collectors' capture_progress events (docs/events.md:
 * every 100 ms, each captured link's requests so far by flow), read
 * incrementally from their event files: among the requests of a scheme
 * captured on every site link in the last PROGRESS_WINDOW_NS, the share
 * captured on the failing site a's link. Before t0 it shows where the
 * traffic goes; after, how much still goes to the dead site, a few tenths
 * of a second behind the packets. A scheme whose traffic has stopped keeps
 * the share of its last window; once the traffic is over, a scheme that
 * still sent to a in its last PROGRESS_CUT_NS is marked "cut": its window
 * will be a lower bound (the verdict's window_cut, "≥" in the clocks).
 *
 * "Sent" comes from the clients' client_progress events (docs/agents.md:
 * every second, the cumulative sent, ok, lost, errors and replies per site
 * of one flow); when no collector counts have come (yet), the share does
 * too, as before: over a flow's last second, the replies from a plus, after
 * t0, the timeouts.
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
#define PROGRESS_WINDOW_NS (500 * 1000000LL) /* the share "to a" of the captures */
#define PROGRESS_CUT_NS (100 * 1000000LL)    /* window_cut's guard (CLOCKS_CUT_GUARD_NS) */
#define PROGRESS_RING 64		     /* capture samples kept: 6.4 s of them */

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

/* One collector's counts, from one capture_progress event: per scheme, the
 * requests captured on the failing site's link and on every link, and the
 * time of the latest on each (0: none yet). */
struct progress_capsample {
	int64_t t_ns;
	int64_t dead[PROGRESS_NSCHEMES], all[PROGRESS_NSCHEMES];
	int64_t dead_last_ns[PROGRESS_NSCHEMES], all_last_ns[PROGRESS_NSCHEMES];
};

/* What one status line shows. */
struct progress_view {
	const char *label; /* e.g. "ttl=30 1/4" for a sweep's point, or NULL */
	enum progress_phase phase;
	int64_t elapsed_ns; /* warm-up: time in it; else since the traffic started */
	int64_t total_ns;   /* the traffic's duration */
	int64_t fail_at_ns; /* from the traffic's start to the failure */
	int64_t sent;	    /* requests sent by every flow; -1: no count yet */
	const char *dead;   /* the failing site */
	int64_t window_ns;  /* what "last" the shares are of */
	/* per scheme: requests counted in the window, and of those the ones to
	 * the dead site; present = 0: the lab has no such flow; cut: the
	 * traffic ended while it still went to the dead site */
	struct {
		int present, cut;
		int64_t to_dead, resolved;
	} scheme[PROGRESS_NSCHEMES];
};

struct progress_flow;
struct progress_capture;

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
	struct progress_capture *caps;
	int ncaps;
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

/* progress_format: the status line of v into buf (no newline), at most
 * width columns (0: as long as it is; buf's len always bounds it). Its
 * length. (lab/run/progress_line.c) */
int progress_format(char *buf, size_t len, const struct progress_view *v, int width);

/* progress_parse_capture: if line is a capture_progress event, the counts
 * of its links into *s (dead: the failing site, whose link is labelled by
 * its name) and 0; else -1. */
int progress_parse_capture(const char *line, const char *dead, struct progress_capsample *s);

/* progress_capshare: add to *to_dead and *resolved the requests of scheme
 * in the window before the latest of the n samples s (oldest first) that
 * changed that scheme's count: the last window of a scheme that stopped.
 * The first sample is the base if none is a window older. Nothing if n < 2. */
void progress_capshare(const struct progress_capsample *s, int n, int scheme, int64_t window_ns,
		       int64_t *to_dead, int64_t *resolved);

/* progress_capcut: in sample s, the scheme's traffic last reached the dead
 * site after t0_ns and within PROGRESS_CUT_NS of its last request anywhere. */
int progress_capcut(const struct progress_capsample *s, int scheme, int64_t t0_ns);

/* progress_parse: if line is a client_progress event, its counts into *s
 * (dead: the replies from site dead) and 0; else -1. */
int progress_parse(const char *line, const char *dead, struct progress_sample *s);

/* progress_share: add the requests resolved between prev and cur to
 * *resolved, and those to the dead site (its replies; after t0_ns, 0 if
 * not yet, its timeouts too) to *to_dead. Nothing if prev has no time. */
void progress_share(const struct progress_sample *prev, const struct progress_sample *cur,
		    int64_t t0_ns, int64_t *to_dead, int64_t *resolved);

#endif
