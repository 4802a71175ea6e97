/*
 * One scheme's clocks (docs/clocks.md, "The anycast clocks", "The DNS
 * clocks"): clocks_anycast() and clocks_dns() compute them from the loaded
 * run with no I/O (clocks_anycast.c, clocks_dns.c, what they share in
 * clocks_scheme.c), so a new scheme is one more function beside them.
 */
#ifndef STEERLAB_CLOCKS_RESULT_H
#define STEERLAB_CLOCKS_RESULT_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#include "clocks_base.h"
#include "clocks_budget.h"
#include "clocks_input.h"

struct clocks_fib;
struct clocks_catchments;
struct clocks_pop;

#define CLOCKS_MAX_SITES 64

/* A count per name (site or capture label). */
struct clocks_count {
	char name[CLOCKS_NAME_MAX];
	int64_t n;
};

/* A count per address (the resolvers that queried authd). */
struct clocks_addr_count {
	struct in_addr addr;
	int64_t n;
};

/* A distribution over clients, relative to t0. lb_*: the value is a lower
 * bound, because a client whose last request it may be was cut short by
 * the end of the observation (docs/clocks.md, window_cut). */
struct clocks_dist {
	int64_t n; /* clients */
	int64_t p50_ns, p99_ns, max_ns;
	int lb_p50, lb_p99, lb_max;
};

/* a client's last request to the dead site after t0 (0: none) */
struct clocks_client_last {
	uint32_t client;
	int64_t last_ns;
	int cut; /* still sending to the dead site when the observation ended */
};

/* One scheme's clocks. Times relative to t0 unless named _at_ns. A field
 * that is not a measure of the scheme is CLOCKS_NA. */
struct clocks_result {
	const char *scheme; /* "anycast", "dns" */
	int64_t detect_ns, detect_at_ns;
	int detect_by_hold; /* anycast: detect is a routed's route_expired */
	int undetected;	    /* a gray failure (how impair) no prober detected in the run */
	int64_t steer_ns, steer_at_ns;
	int64_t window_ns;
	int64_t sent, ok, lost_client, errors; /* CLOCKS_NONE: no CSV */
	int64_t lost_capture;		       /* CLOCKS_NONE: no capture */
	/* a dual lab's Happy Eyeballs clients: their requests that reached the
	 * dead site after t0 and were answered all the same, sent again over
	 * IPv4 (not in lost_capture); CLOCKS_NONE: no client fell back */
	int64_t rescued;
	int64_t capture_drops;		    /* CLOCKS_NONE: no capture_stats */
	struct clocks_dist last_packet;	    /* clients that sent to the dead site after t0 */
	struct clocks_dist last_per_client; /* every client of the scheme, 0 if none */
	/* each client's last request to the dead site after t0 (0 if none),
	 * every client of the scheme, by client id (malloc'd; NULL with a
	 * "limit" note when out of memory) */
	struct clocks_client_last *by_client;
	size_t nby_client;
	/* the populations among them, each summarised (clocks_pop.c) */
	struct clocks_pop *pops;
	int npops;
	/* the window is a lower bound: a client was still sending to the dead
	 * site when the observation ended (window_cut); ncut clients were */
	int window_lb;
	int ncut;
	struct clocks_count replies[CLOCKS_MAX_SITES]; /* ok records per site */
	int nreplies;
	struct clocks_count after_t0[CLOCKS_MAX_SITES]; /* requests per capture after t0 */
	int nafter_t0;
	/* dns only (CLOCKS_NA for anycast) */
	int64_t remote_dead_ns, remote_dead_at_ns; /* the first remote prober's verdict */
	char remote_prober[CLOCKS_NAME_MAX];	   /* its node */
	char steer_name[CLOCKS_DNS_NAME_MAX];	   /* the name whose answer changed */
	/* a front door's failure while another site of its region served it
	 * (clocks_dns.c): that site; DNS kept handing the front door out, and
	 * steer is routing's, the first FIB change away from the failed site;
	 * "" otherwise */
	char kept_by[CLOCKS_NAME_MAX];
	int64_t upstream_queries;	     /* CLOCKS_NONE: no query capture */
	int64_t traffic_ns;		     /* for per second; CLOCKS_NONE: unknown */
	struct clocks_addr_count *resolvers; /* queries per source address, by address */
	size_t nresolvers;
	/* anycast only (NULL for dns): the FIB clocks and the catchments */
	struct clocks_fib *fib;
	struct clocks_fib *fib6; /* a dual lab's: the service's IPv6 routes (NULL: none) */
	struct clocks_catchments *catchments;
	int noflows; /* the run has no flows of this scheme: it is absent from
		      * every table, plot and JSON object */
	/* filled by the report (clocks_budget); clocks.json has a "budget"
	 * object only when has_budget is set */
	int has_budget;
	struct clocks_budget budget;
	/* fail-back: the timeline brought S back (failure.recovered_ns), and
	 * how the scheme came back to it, each from that recovery (clocks.json
	 * has a "failback" object only when has_failback is set):
	 *   healthy  anycast: S's own prober's declared_alive; dns: authd's
	 *            health_changed of S to healthy
	 *   steer    anycast: S's route (via its link) back in a FIB; dns:
	 *            authd hands out S's address again
	 *   first, last  the first and the last of the scheme's clients to send
	 *            to S again (captured on S's link); back of clients did */
	int has_failback;
	struct clocks_failback {
		int64_t recovered_ns; /* after t0 */
		int64_t healthy_ns, steer_ns, first_ns, last_ns;
		int64_t back, clients;
		/* a lab over several hosts: each clock's uncertainty
		 * (clocks_hosts_u.c; CLOCKS_NONE: one host, or not measured) */
		int64_t u_healthy_ns, u_steer_ns, u_first_ns, u_last_ns;
	} failback;
	/* a lab over several hosts (clocks_hosts.c): each main clock's
	 * uncertainty, its stamp's host's (0: the reference's); CLOCKS_NONE
	 * in a lab of one host or for a clock not measured */
	int64_t u_detect_ns, u_steer_ns, u_window_ns, u_last_packet_ns;
	int64_t u_remote_dead_ns; /* dns: the remote prober's node's host's */
	struct clocks_notes notes;
};

/* clocks_anycast, clocks_dns: one scheme's clocks of in into *r; pure
 * computation. Free *r with clocks_result_free. */
void clocks_anycast(const struct clocks_input *in, struct clocks_result *r);
void clocks_dns(const struct clocks_input *in, struct clocks_result *r);
void clocks_result_free(struct clocks_result *r);

#endif
