/*
 * sited's state between its start and its end, changed by signals: drain
 * (replies flagged WIRE_F_DRAINING) and degradation (requests read and
 * left unanswered, connections still accepted: the application broken,
 * not the host). The signals are lib/sited_signals.h's, which the lab
 * sends; each comes through the loop's signalfd (lib/loop.h) and sets a
 * flag of the server that the UDP (serve.h) and TCP (tcp.h) paths read
 * at every request. A change is logged and written as an event
 * (sited_draining, sited_undrained, sited_degraded, sited_restored:
 * docs/events.md); a signal that changes nothing writes nothing. The
 * slow signal (a value: microseconds) sets srv->slow_ns, written as
 * sited_slowed; while it is on, or replies are still held, a tick sends
 * the held replies that are due (slow.h; TCP's through tcp.h).
 */
#ifndef STEERLAB_SITED_STATE_H
#define STEERLAB_SITED_STATE_H

#include "event.h"
#include "loop.h"
#include "serve.h"

struct sited_tcp;

struct sited_state {
	struct sited_server *srv; /* whose draining, degraded and slow_ns */
	struct event_log *ev;
	const char *site;
	struct loop_handler h;
	struct loop_handler tick; /* every SITED_SLOW_TICK_NS while replies are held */
	int ticking;
	uint64_t slow_sent, slow_errors;
};

/* the held replies are sent to the millisecond */
#define SITED_SLOW_TICK_NS 1000000LL

/* sited_state_open: blocks the signals of sited_signals.h and takes them
 * in loop, setting srv's flags and writing the events to ev in site's
 * name. 0, or -1 (logged). */
int sited_state_open(struct sited_state *d, struct loop *loop, struct sited_server *srv,
		     struct event_log *ev, const char *site);

#endif
