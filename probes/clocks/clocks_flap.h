/*
 * The flap clocks (clocks_flap.c; docs/clocks.md, "Flap clocks"): per flap
 * of the timeline and router, its route changes of the service prefix from
 * the flap's first down on, and for a site's flap whether the route came
 * back within CLOCKS_FLAP_NORMAL_NS of each up or was suppressed (damping).
 */
#ifndef STEERLAB_CLOCKS_FLAP_H
#define STEERLAB_CLOCKS_FLAP_H

#include <stdint.h>

#include "clocks_fib.h"
#include "clocks_input.h"

#define CLOCKS_MAX_FLAPS 8
#define CLOCKS_FLAP_CYCLES 64
#define CLOCKS_FLAP_TIMES 64		   /* change times kept per router */
#define CLOCKS_FLAP_NORMAL_NS 2000000000LL /* 2 s */

struct clocks_flap_up {
	int cycle;
	int64_t up_at_ns;   /* the up step applied */
	int64_t back_at_ns; /* the route back to the site; CLOCKS_NONE: not before
			     * the next down or the end of the run */
	int judged;	    /* the site stayed up CLOCKS_FLAP_NORMAL_NS after it */
	int suppressed;	    /* judged, and not back within CLOCKS_FLAP_NORMAL_NS */
};

struct clocks_flap_router {
	char router[CLOCKS_NAME_MAX];
	int to_site; /* its route led to the site just before the first down */
	int64_t changes;
	int64_t times_ns[CLOCKS_FLAP_TIMES]; /* the first CLOCKS_FLAP_TIMES changes */
	int nups;
	struct clocks_flap_up ups[CLOCKS_FLAP_CYCLES];
	int suppressed; /* ups suppressed */
};

struct clocks_flap {
	char name[CLOCKS_NAME_MAX];
	char target[2 * CLOCKS_NAME_MAX];
	char site[CLOCKS_NAME_MAX]; /* "" for a link between routers */
	int link;
	int cycles;
	int64_t first_down_ns, last_up_ns; /* last_up: CLOCKS_NONE if none */
	int64_t end_ns;			   /* the end of the FIB's observation */
	int nrouters;
	struct clocks_flap_router routers[CLOCKS_MAX_ROUTERS];
};

struct clocks_flaps {
	int n;
	int lost; /* flaps past CLOCKS_MAX_FLAPS */
	struct clocks_flap f[CLOCKS_MAX_FLAPS];
};

/* clocks_flaps: the flap clocks of in into *fl (a large struct: allocate
 * it); pure computation */
void clocks_flaps(const struct clocks_input *in, struct clocks_flaps *fl);

#endif
