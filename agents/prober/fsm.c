/* The prober's up/down state machine; see fsm.h. */
#include "fsm.h"

#include <limits.h>

void prober_fsm_init(struct prober_fsm *f, unsigned down, unsigned up)
{
	f->down = down ? down : 1;
	f->up = up ? up : 1;
	f->failures = 0;
	f->successes = 0;
	f->state = PROBER_UNKNOWN;
}

enum prober_verdict prober_fsm_feed(struct prober_fsm *f, int ok)
{
	if (ok) {
		f->failures = 0;
		if (f->successes < UINT_MAX)
			f->successes++;
		if (f->successes >= f->up && f->state != PROBER_ALIVE) {
			f->state = PROBER_ALIVE;
			return PROBER_BECAME_ALIVE;
		}
	} else {
		f->successes = 0;
		if (f->failures < UINT_MAX)
			f->failures++;
		if (f->failures >= f->down && f->state != PROBER_DEAD) {
			f->state = PROBER_DEAD;
			return PROBER_BECAME_DEAD;
		}
	}
	return PROBER_NO_CHANGE;
}

const char *prober_state_name(enum prober_state s)
{
	switch (s) {
	case PROBER_ALIVE:
		return "alive";
	case PROBER_DEAD:
		return "dead";
	default:
		return "unknown";
	}
}
