/*
 * Control messages refused because their sender is not entitled to send
 * them (docs/agents.md, "Control channels"): routed's ANNOUNCE/WITHDRAW,
 * authd's HEALTH reports.
 *
 * Every drop is counted. The drops are reported as `control_rejected`
 * {from, reason, count} events and one log line each, at most one a second
 * per agent, so a flood of forged messages cannot flood the log or the
 * event file: the first drop is reported at once, the drops of the next
 * second together when it ends (a one-shot timer on the agent's loop), and
 * whatever is still pending at exit by ctl_reject_close(). count is the
 * number of drops since the previous event; from and reason are those of
 * the latest drop (every drop is logged at debug level).
 */
#ifndef STEERLAB_CTLREJECT_H
#define STEERLAB_CTLREJECT_H

#include <stdint.h>

#include "event.h"
#include "loop.h"

#define CTL_REJECT_INTERVAL_NS 1000000000LL

struct ctl_reject {
	struct loop *loop;    /* NULL: no timer, pending drops wait for the next one */
	struct event_log *ev; /* NULL: log only */
	const char *what;     /* "announcement", "health report": for the log */
	uint64_t total;	      /* every drop */
	uint64_t pending;     /* drops not yet reported */
	int64_t last_ns;      /* CLOCK_MONOTONIC of the last report; 0: none yet */
	int timer_fd;	      /* -1 until the first deferred report */
	int timer_armed;
	char from[64];	  /* the latest drop's sender */
	char reason[160]; /* and why it was dropped */
};

/* ctl_reject_init: no drops yet. loop and ev may be NULL. */
void ctl_reject_init(struct ctl_reject *r, struct loop *loop, struct event_log *ev,
		     const char *what);

/* ctl_reject_drop: counts one dropped message from `from`, dropped for
 * `reason`, at now_ns (CLOCK_MONOTONIC); reports it now if the last report
 * is a second old or more, else arms the timer that reports it then. */
void ctl_reject_drop(struct ctl_reject *r, int64_t now_ns, const char *from, const char *reason);

/* ctl_reject_flush: reports the pending drops now, if any. */
void ctl_reject_flush(struct ctl_reject *r, int64_t now_ns);

/* ctl_reject_close: ctl_reject_flush, then releases the timer. */
void ctl_reject_close(struct ctl_reject *r);

#endif
