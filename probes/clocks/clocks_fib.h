/*
 * The FIB clocks (clocks_fib.c; docs/clocks.md, "FIB clocks"): what every
 * router's route to the service did after t0, from its collector's route
 * events, whatever the protocol that installed it; and the catchments
 * (clocks_catch.c, clocks_catch_pop.c; "Catchments"): which site each
 * anycast client reached before t0 and after the routers converged.
 */
#ifndef STEERLAB_CLOCKS_FIB_H
#define STEERLAB_CLOCKS_FIB_H

#include <stdint.h>

#include "clocks_input.h"

#define CLOCKS_MAX_ROUTERS 64
#define CLOCKS_CATCH_LAST 20 /* the requests before t0 a catchment is taken from */

/* a router's route to the service as the kernel uses it: the one of the
 * lowest metric; present = 0 when it has none */
struct clocks_fib_route {
	int present;
	int64_t metric;
	int protocol;
	int nnh;
	struct clocks_nexthop nh[CLOCKS_MAX_NEXTHOPS];
	char site[CLOCKS_NAME_MAX]; /* where its first next hop leads; "" unknown */
};

struct clocks_router_fib {
	char router[CLOCKS_NAME_MAX];
	int64_t changes;		  /* route events of the service prefix in the episode that
					   * changed the FIB */
	int64_t path_changes;		  /* of those, the ones that changed the route used */
	int64_t first_at_ns, final_at_ns; /* CLOCKS_NONE: no change */
	struct clocks_fib_route before, after; /* at the episode's start; at its end */
	/* a lab over several hosts: its stamps' uncertainty, its host's
	 * (clocks_hosts_u.c); CLOCKS_NONE in a lab of one host */
	int64_t u_ns;
};

struct clocks_fib {
	/* the episode: the failure, from t0 until the timeline brought the
	 * site back (or the end); its fail-back, from then to the end */
	int64_t from_ns, until_ns;
	int nrouters;
	struct clocks_router_fib routers[CLOCKS_MAX_ROUTERS];
	int lost_routers;		 /* past CLOCKS_MAX_ROUTERS */
	int64_t first_at_ns, last_at_ns; /* CLOCKS_NONE: no router changed */
	char first_router[CLOCKS_NAME_MAX], last_router[CLOCKS_NAME_MAX];
	int routers_changed, exploring; /* routers with a change, with more than one */
	int64_t left_at_ns;		/* a route via the failed site's link left a FIB (steer) */
	/* the uncertainty of first_at_ns and last_at_ns (the convergence),
	 * their routers' hosts'; CLOCKS_NONE in a lab of one host */
	int64_t u_first_ns, u_last_ns;
	/* the fail-back's, when the timeline recovered the site (else NULL):
	 * the same from the recovery to the end of the run */
	struct clocks_fib *failback;
};

/* an anycast client's catchment: the site that answered most of its last
 * CLOCKS_CATCH_LAST requests sent before t0, and of its requests sent
 * after the last FIB change; "" with n = 0 when there are none. When the
 * timeline recovered the site, during: of those sent after the failure's
 * last FIB change and before the recovery; after: after the fail-back's
 * (or the recovery, if no FIB changed then) */
struct clocks_catchment {
	uint32_t client;
	char node[CLOCKS_NAME_MAX]; /* from its client_started; "" if unknown */
	char before[CLOCKS_NAME_MAX], during[CLOCKS_NAME_MAX], after[CLOCKS_NAME_MAX];
	int64_t before_n, before_of, during_n, during_of, after_n, after_of;
};

/* a population's catchments (clocks_catch_pop.c): its logical clients
 * counted by the pair (before, after), each client's before the site that
 * answered its last answered request sent before t0, its after as a
 * process client's; "" for none */
#define CLOCKS_CATCH_POPS 16
#define CLOCKS_CATCH_PAIRS 32

struct clocks_catch_pop {
	uint32_t base;		    /* the population's base id */
	char node[CLOCKS_NAME_MAX]; /* from its agent's client_started; "" if unknown */
	int64_t clients, moved;	    /* moved: before and after (during, if recovered) differ */
	int npairs;
	int lost_pairs; /* past CLOCKS_CATCH_PAIRS (more than 5 sites) */
	struct clocks_catch_pair {
		/* during: "" unless the site was recovered (episodes 2) */
		char before[CLOCKS_NAME_MAX], during[CLOCKS_NAME_MAX], after[CLOCKS_NAME_MAX];
		int64_t clients;
	} pairs[CLOCKS_CATCH_PAIRS];
};

struct clocks_catchments {
	int known; /* 0: no FIB change, so no "after convergence" */
	/* 2: the timeline recovered the site, so a catchment has a during (the
	 * failure's, known if its FIB changed: during_known) and an after (the
	 * fail-back's, always known); 1: before and after */
	int episodes, during_known;
	int n; /* process clients (a population's logical clients are in pops) */
	struct clocks_catchment c[CLOCKS_MAX_CLIENTS];
	int npops;
	int lost_pops; /* past CLOCKS_CATCH_POPS or a pair past CLOCKS_CATCH_PAIRS, or out
			* of memory: not counted */
	struct clocks_catch_pop pops[CLOCKS_CATCH_POPS];
};

/* clocks_fib: the FIB clocks of in into *fib, the failure's, and the
 * fail-back's into fib->failback (malloc'd; NULL when the site was not
 * recovered, or out of memory); pure computation. clocks_fib_free frees a
 * malloc'd fib and its fail-back. */
void clocks_fib(const struct clocks_input *in, struct clocks_fib *fib);
void clocks_fib_free(struct clocks_fib *fib);

/* clocks_catchments: the anycast clients' catchments, after the FIB's
 * last change (fib), per episode when the site was recovered */
void clocks_catchments(const struct clocks_input *in, const struct clocks_fib *fib,
		       struct clocks_catchments *c);

/* clocks_catch_moved: did the failure move a client (before to during when
 * the site was recovered, else to after)? 1, 0, or -1 if unknown.
 * clocks_catch_back: did the fail-back bring it back (after = before)? 1,
 * 0, or -1 if unknown or the site was not recovered. */
int clocks_catch_moved(const struct clocks_catchments *cs, const char *before, const char *during,
		       const char *after);
int clocks_catch_back(const struct clocks_catchments *cs, const char *before, const char *after);

#endif
