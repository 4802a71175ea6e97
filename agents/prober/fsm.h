/*
 * The prober's verdict on the local service: a small state machine fed one
 * probe result at a time.
 *
 * It starts UNKNOWN, so nothing is announced before the service has
 * proved itself. DOWN consecutive failures make it DEAD, UP consecutive
 * successes make it ALIVE; a result of the other kind resets the run. A
 * verdict is reported once, on the transition; staying in a state reports
 * nothing.
 */
#ifndef STEERLAB_PROBER_FSM_H
#define STEERLAB_PROBER_FSM_H

enum prober_state {
	PROBER_UNKNOWN,
	PROBER_ALIVE,
	PROBER_DEAD,
};

enum prober_verdict {
	PROBER_NO_CHANGE,
	PROBER_BECAME_ALIVE,
	PROBER_BECAME_DEAD,
};

struct prober_fsm {
	unsigned down;	    /* consecutive failures that mean dead (>= 1) */
	unsigned up;	    /* consecutive successes that mean alive (>= 1) */
	unsigned failures;  /* current run of failures */
	unsigned successes; /* current run of successes */
	enum prober_state state;
};

void prober_fsm_init(struct prober_fsm *f, unsigned down, unsigned up);

/* prober_fsm_feed: one probe result (ok non-zero: success). Returns the
 * transition it caused, if any. */
enum prober_verdict prober_fsm_feed(struct prober_fsm *f, int ok);

const char *prober_state_name(enum prober_state s);

#endif
