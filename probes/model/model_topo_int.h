/*
 * What the model's readers of a topology share (model_topo.c): a [name]'s
 * and a [resolver]'s keys as written, a cache's TTL and phase as resolverd
 * makes them, and the anycast catchment of the lab's static routes. Not
 * exported: the model's own files only.
 */
#ifndef STEERLAB_MODEL_TOPO_INT_H
#define STEERLAB_MODEL_TOPO_INT_H

#include <stddef.h>
#include "model.h"

struct topology;

/* model_topo_seconds: "300", "300s", "5m", "1500ms", "1d" in seconds; -1
 * if not one of those */
double model_topo_seconds(const char *v);

/* model_topo_rsv: the value of [resolver] node n's key (the last one set),
 * or NULL (a raw section's: topo_raw) */
const char *model_topo_rsv(const struct topology *t, int n, const char *key);

/* model_topo_same_name: DNS names equal, case and a final dot aside */
int model_topo_same_name(const char *a, const char *b);

/* model_topo_name_section: the [name] section of name, or -1 */
int model_topo_name_section(const struct topology *t, const char *name);

/* model_topo_catchment: 1 if client node c's router routes the anycast
 * service to site s alone (the fewest router hops, then the lowest
 * metric), 0 if to another site, -1 if s ties with another */
int model_topo_catchment(const struct topology *t, int c, int s);

/* model_topo_bgp: routing = bgp, site s's withdrawal played through every
 * speaker (model_topo_bgp.c); for each client node n in out[n]: on, its
 * traffic reached s before the failure; after_s, how long after s's
 * router's FIB change (the scheme's steer) it last reaches s; lost_extra_s,
 * the time beyond that its packets reach no site (no route, a loop) until
 * they reach another; alt_ the same with every tie among equal paths that
 * the model cannot break by age decided the other way. 0, or -1 with why
 * said (the model cannot: iBGP, an advertisement interval the warm-up's
 * updates may still hold, a catchment that depends on a tie) */
struct model_topo_bgp_client {
	int on;
	double after_s, lost_extra_s;
	/* the same when FRR's choice among equal paths goes the other way */
	double alt_after_s, alt_lost_extra_s;
	/* every play: FRR's choice (the first half one way, the second the
	 * other), and within each half the monotonic clock's phase when an
	 * advertisement interval is set (model.h MODEL_BGP_PHASES) */
	int nplays;
	double play_after_s[MODEL_BGP_PLAYS], play_lost_extra_s[MODEL_BGP_PLAYS];
};
int model_topo_bgp(const struct topology *t, int s, struct model_topo_bgp_client *out, char *why,
		   size_t len);

/* model_topo_bgp_sites: routing = bgp, in the routes as the warm-up
 * leaves them: the site node each client node's anycast packets reach
 * (site_of[n]; -1 none, or not a client). 0, or -1 with why said (a site
 * that depends on which of equal paths FRR kept, iBGP) */
int model_topo_bgp_sites(const struct topology *t, int *site_of, char *why, size_t len);

/* model_topo_cache_ttl: a TTL as [resolver] node n's caches keep it
 * (raised to min_ttl, cut to max_ttl, whole seconds); model_topo_cache_phase:
 * cache k's first-fill phase f (its first entry lives (1 - f) x ttl) */
double model_topo_cache_ttl(const struct topology *t, int n, double ttl);
double model_topo_cache_phase(const struct topology *t, int n, unsigned k, double ttl);

/* The timeline (model_topo_timeline.c). model_topo_failure_site: the site
 * event e takes out, as topo_first_failure counts failures (-1: none);
 * model_topo_nth_failure: the event of the k-th failure, in time order (-1:
 * none); model_topo_set_dead: the sites of the failures before the k-th,
 * not recovered by its t0, out; model_topo_dead: whether site node n is
 * (model_topo_catchment and a failover name skip it) */
struct model_input;
struct model_notes;
int model_topo_failure_site(const struct topology *t, int e);
int model_topo_nth_failure(const struct topology *t, int k);
void model_topo_set_dead(const struct topology *t, int k);
int model_topo_dead(int n);

/* model_topo_outages: the timeline's dns-down (of the name's server,
 * node server) and resolver-down events as in->outages (caches from
 * base), or why they cannot be followed in in's limits;
 * model_topo_other_events: how many events the model does not follow */
void model_topo_outages(const struct topology *t, struct model_input *in, const int base[],
			const char *name, int server, struct model_notes *notes);
int model_topo_other_events(const struct topology *t, const struct model_input *in);

/* model_topo_probe: a prober's settings against the failure how of site s:
 * the probe fails its configured RTT after its send when refused, its
 * timeout after when unanswered. 0, or -1 if its check cannot see that
 * failure. model_topo_failback: the k-th failure's recovery by the
 * timeline into in (its fail-back), said in notes or in its limit. */
struct model_probe;
int model_topo_probe(const struct topology *t, int prober, int s, int how, struct model_probe *p);
void model_topo_failback(const struct topology *t, int k, struct model_input *in, int site,
			 struct model_notes *notes);

/* The DNS side (model_topo_dns.c). model_topo_dns: the name the DNS
 * clients resolve (its TTL; on_failed[node], whether its policy had DNS
 * client node on the failed site at t0), its server's quorum, with probers the
 * [prober]s reporting to it, and every [resolver] node's caches (base[n]
 * the index of node n's first); the [dns] node serving the name returned,
 * -1 if none. model_topo_real_limits: what the model does not follow
 * through a real resolver, in in's limits (after the outages are read).
 * model_topo_owd: the configured one-way delay from node a to node b, in
 * seconds (0 from a node to itself or to none) */
int model_topo_dns(const struct topology *t, struct model_input *in, int site, const char *name,
		   int probers, int base[], int on_failed[], struct model_notes *notes);
/* model_topo_pop_off: after model_topo_dns, population node n's cache slot
 * k never sent its clients to the failed site (a policy other than
 * failover) */
int model_topo_pop_off(int node, int k);
void model_topo_real_limits(const struct topology *t, struct model_input *in,
			    struct model_notes *notes);
double model_topo_owd(const struct topology *t, int a, int b);

/* model_topo_input: the model's input for the timeline's k-th failure,
 * the sites of the earlier ones out (model_from_topology_failure checks
 * they settled); 0, or -1 with why in err */
int model_topo_input(const struct topology *t, int k, struct model_input *in,
		     struct model_notes *notes, char *err, size_t errlen);

#endif
