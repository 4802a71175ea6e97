/*
 * The steady state of the steering (docs/model.md, "Steady state: shares,
 * deviation, distance"): per [name] and per scheme, each site's share of the
 * requests, the deviation from the target (half the L1 distance, seed
 * 000's), the mean RTT per request over the links' configured delays, and
 * a name's upstream queries, as the steering table of a run measures them
 * (docs/clocks.md, "Steering"), predicted from the topology alone.
 *
 * What binds requests to a site is a unit: a cache (one name's entry in one
 * [resolver] cache) or a client asking authd itself. Each fill of a unit
 * (its query reaching authd) gets authd's answer for the unit's querier
 * (its address: geolocation and latency tell networks apart), and the
 * unit's clients send to that site until its next fill. Geolocation,
 * latency and failover answer every fill alike, so their shares are the
 * groups' request shares; a weighted name answers the fills in the order
 * they reach authd with its rotation (an explicit pattern, smooth weighted
 * round robin, or independent draws), so which unit gets which site depends
 * on that order: the model draws the fills' timing (each refetch waits for
 * the first of the unit's clients to ask after the entry expired) and gives
 * each clock p5, p50, p95 and bounds over the draws. Pure: no I/O, the
 * randomness a seed. Files: model_steer.c (the draws), model_steer_topo.c
 * (the input from a topology), model_steer_write.c (table and JSON).
 */
#ifndef STEERLAB_MODEL_STEER_H
#define STEERLAB_MODEL_STEER_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "model.h"

#define MODEL_STEER_SITES 16
#define MODEL_STEER_NAMES 16
#define MODEL_STEER_GROUPS 64
#define MODEL_STEER_UNITS 8192
#define MODEL_STEER_USERS 65536
#define MODEL_STEER_PATTERN 256
#define MODEL_STEER_SAMPLES 1000
#define MODEL_STEER_SEED 26
#define MODEL_STEER_DNAME 256
/* latency: sites whose RTTs from the vantage prober are within this of the
 * lowest (the larger of the two) are a tie the lab's own time decides: the
 * analysis's tolerance of a measured RTT (docs/clocks.md, "Impairments") */
#define MODEL_STEER_TIE_S 0.0005
#define MODEL_STEER_TIE_SHARE 0.05
/* the upstream queries' tolerance: the fills within this of the period's
 * end, in or out as the run's own time moves them */
#define MODEL_STEER_EDGE_S 0.1
/* each group's start, drawn within this of the model's (or of the run's,
 * from its client_started: the lab's clients start 0.4 to 2.8 ms after
 * their common start on a quiet host; how long a population's first asks
 * took is known to a few ms, 11 ms off on topology/policies.ini's g4 under
 * load) */
#define MODEL_STEER_START_JITTER_S 0.01
/* a request due this little before a cache's entry expires (the one that
 * refilled it, due again TTL later: the margin is the cache's upstream RTT)
 * may come after it on a busy host: with a chance drawn per draw from 0 to 1
 * (a quarter of them at load 13 on topology/policies.ini's g1, a 0.2 ms
 * margin), then within the rest of this */
#define MODEL_STEER_SEND_JITTER_S 0.002
/* fills that reach authd this close together come in either order (each
 * fill's place drawn within it): the model's instants match a run's to a
 * few ms for most caches, but a request due within a fraction of a ms of an
 * expiry refills it then or a request later, and a population's start is
 * known to ~10 ms; one fill out of place reshuffles every later place of a
 * rotation (topology/policies.ini's run replayed with one fill left out:
 * b34 anywhere from 44.7 to 57.3 %) */
#define MODEL_STEER_ORDER_S 0.05
/* a query's way through a host: a cache's entry expires this much after a
 * client's request sent TTL after the one that refilled it */
#define MODEL_STEER_HOST_S 0.0002

#define MODEL_STEER_NO_NAME                                                                        \
	"it asks a name of no [name] (a CNAME to a steered name, a static record)"

/* authd's policies (docs/authd.md, "Policies") */
enum model_policy {
	MODEL_P_SIMPLE,
	MODEL_P_MULTIVALUE,
	MODEL_P_FAILOVER,
	MODEL_P_WEIGHTED,
	MODEL_P_GEOLOCATION,
	MODEL_P_LATENCY,
	MODEL_P_PROXIMITY,
};

/* which site of an answer of several a unit's clients send to */
enum model_pick {
	MODEL_PICK_FIRST,  /* the first address (addresses = first) */
	MODEL_PICK_RANDOM, /* one client: one at random per answer */
	MODEL_PICK_SPREAD, /* a population choosing at random: evenly */
};

struct model_steer_name {
	char name[MODEL_STEER_DNAME];
	int policy; /* enum model_policy */
	/* weighted: each site's weight (0: not one of its sites), in the
	 * name's order (order[], nsites): smooth weighted round robin's; an
	 * explicit pattern; weighted_mode = random */
	double weight[MODEL_STEER_SITES];
	int norder, order[MODEL_STEER_SITES];
	int npattern, pattern[MODEL_STEER_PATTERN];
	int random;
	int has_target;
	double target[MODEL_STEER_SITES];
	char target_from[128];
	char why[MODEL_NOTE_MAX]; /* not modelled: why ("": modelled) */
	/* why its upstream queries are not modelled ("": they are) */
	char upstream_why[MODEL_NOTE_MAX];
};

/* something that holds one answer of a name at a time */
struct model_steer_unit {
	int name;
	int group; /* the client node that first asks it (its start's) */
	/* authd's answer to its querier, in authd's order (every site healthy);
	 * tie >= 0: the sites are a latency tie, class tie: one of them drawn
	 * per draw for every unit of the class */
	int nsites, site[MODEL_STEER_SITES];
	int tie;
	int pick;	     /* enum model_pick */
	double ttl_s;	     /* the entry's TTL (a cache's clamps applied); 0: never held */
	double first_s;	     /* the first entry's life from its answer ((1 - phase) x TTL) */
	double start_s;	     /* its first query leaves the unit, from the traffic's start */
	double owd_s, rtt_s; /* to the name's server: arrives owd later, answered rtt later */
	/* who asks it again once the entry expired: users user0 .. user0 +
	 * nusers - 1 of the input, each at its next request (paced: known);
	 * and nasking others, each asking every gap_s at a random phase (0:
	 * nobody else) */
	int user0, nusers;
	double gap_s;
	int nasking;
	int first_of;	    /* -1, or the unit whose first fill this one shares */
	uint32_t querier;   /* the address authd sees it ask from (host order) */
	double fills_per_s; /* ttl_s 0: its clients' queries a second, each a fill */
};

/* a logical client of a population, paced: it sends at first_s + k x
 * period_s (from the traffic's start, its group's lateness aside) */
struct model_steer_user {
	double first_s, period_s;
};

/* a client node's requests through a unit (unit -1: to site, anycast) */
struct model_steer_flow {
	int group, unit, site;
	double rate_per_s;
	double from_s;			 /* its first request, from the traffic's start */
	double rtt_s[MODEL_STEER_SITES]; /* from its node to each site, configured */
};

struct model_steer_group {
	char name[MODEL_NAME_MAX];
	/* how much later than the model's its clients started (a run's own,
	 * from its client_started events; 0 in `steerlab model`) */
	double late_s;
	int scheme;	/* enum model_scheme */
	int name_index; /* dns: its [name] (-1: none known) */
	/* the steering table's target: its name's; anycast: its catchment */
	int has_target;
	double target[MODEL_STEER_SITES];
};

struct model_steer_input {
	char lab[MODEL_NAME_MAX];
	double period_s;   /* measured: [0, period) from the traffic's start */
	int whole;	   /* the whole traffic (a steady state): in each draw, to the end of
			      its last flow, period_s or later */
	double duration_s; /* each flow sends this long from its first request */
	int nsites;
	char sites[MODEL_STEER_SITES][MODEL_NAME_MAX];
	int nnames;
	struct model_steer_name names[MODEL_STEER_NAMES];
	int ngroups;
	struct model_steer_group groups[MODEL_STEER_GROUPS];
	int nunits;
	struct model_steer_unit units[MODEL_STEER_UNITS];
	int nflows;
	struct model_steer_flow flows[MODEL_STEER_UNITS];
	int nusers;
	struct model_steer_user users[MODEL_STEER_USERS];
	/* each group's start, drawn in each draw within this of its late_s */
	double start_jitter_s;
	int ntie;			  /* latency tie classes */
	int nanycast_limit;		  /* anycast groups not modelled */
	char anycast_why[MODEL_NOTE_MAX]; /* why ("": modelled) */
	char dns_why[MODEL_NOTE_MAX];	  /* why no dns row ("": there is one) */
	unsigned samples;
	uint64_t seed;
};

/* a row of the steering table: a group's, a name's or a scheme's */
struct model_steer_row {
	int scheme;		      /* enum model_scheme */
	char name[MODEL_STEER_DNAME]; /* a name's; "" a scheme's */
	char group[MODEL_NAME_MAX];   /* a group's; "" otherwise */
	int known;
	char why[MODEL_NOTE_MAX];
	const char *policy; /* a name's */
	double requests;    /* in the period */
	struct model_iv share[MODEL_STEER_SITES];
	int has_target;
	double target[MODEL_STEER_SITES];
	struct model_iv deviation;
	struct model_iv rtt_ms;	  /* the mean RTT per request */
	struct model_iv upstream; /* a name's queries at authd in the period */
	int upstream_known;
	char upstream_why[MODEL_NOTE_MAX]; /* a name's: why not */
	/* the most fills of a draw that reach authd within MODEL_STEER_EDGE_S
	 * of the period's end: in or out as the lab's own time shifts them */
	double upstream_edge;
};

#define MODEL_STEER_ROWS (2 + MODEL_STEER_NAMES + MODEL_STEER_GROUPS)

struct model_steer_result {
	int nrows; /* the schemes' (anycast, dns), the names', the groups' */
	struct model_steer_row rows[MODEL_STEER_ROWS];
	unsigned samples;
};

extern const char *const model_policy_name[7];

/* model_steer_from_topology: in from topology t, its traffic measured over
 * period_s seconds from its start (<= 0: the whole traffic of a steady
 * state, the failure's fail_at otherwise); what that assumes and leaves
 * out into notes. in is large: the caller's. */
struct topology;
void model_steer_from_topology(const struct topology *t, double period_s,
			       struct model_steer_input *in, struct model_notes *notes);

/* model_steer_on_site: for the failover clocks of a name whose policy is
 * not failover: on[n] = 1 for each DNS client node n whose answers before
 * the failure (every site healthy) send it to site node site_node, else 0;
 * and q_on[i] the same for the cache asking from querier address q[i]
 * (host order; i < nq), one of a population's. 0; or -1 with why when an
 * answer is not one site known in advance (a weighted rotation, a latency
 * tie, a pick at random among several). */
int model_steer_on_site(const struct topology *t, int site_node, int on[], const uint32_t *q,
			int nq, int *q_on, char *why, size_t len);

/* model_steer: the rows over in->samples draws. 0, or -1 (out of memory). */
int model_steer(const struct model_steer_input *in, struct model_steer_result *r);

/* model_steer_swrr: the first n answers of smooth weighted round robin over
 * weights w[0..k) (nginx's, authd's), as indexes into w, into out */
void model_steer_swrr(const double *w, int k, int n, int *out);

/* model_steer_print: the steering block, shaped as a run's steering table
 * (a row per scheme and name: each site's share, the deviation, the
 * requests, the mean RTT, a name's upstream queries) */
void model_steer_print(const struct model_steer_input *in, const struct model_steer_result *r,
		       FILE *out);

/* model_steer_json: {"period_s", "sites", "schemes": {SCHEME: ROW, "dns":
 * {..., "names": {NAME: ROW}}}, "groups": [...]}, each ROW with the keys of
 * clocks.json's steering names (requests, share {site: interval}, target,
 * deviation, rtt_mean_ms, upstream_queries) and not_modelled; NULL: out of
 * memory */
json_t *model_steer_json(const struct model_steer_input *in, const struct model_steer_result *r);

/* model_steer_row_json: one row as model_steer_json writes it */
json_t *model_steer_row_json(const struct model_steer_input *in, const struct model_steer_row *w);

#endif
