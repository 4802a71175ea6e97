/*
 * The model beside the measurement (docs/model.md): what each failover clock
 * should be, computed from the settings alone, before anything is built.
 *
 * Pure functions, no I/O: the time is a number of seconds, the randomness a
 * seed. Files by job:
 *
 *   model_seed000.c  seed 000's name-layer simulation (policies, TTL,
 *                    detection, resolver shares 1/(j+1)), ported as printed
 *   model_decay.c    seed 002's decay of the traffic still sent to a failed
 *                    region, with a sticky share of clients
 *   model_detect.c   the detect clock of probers: interval, the failure of a
 *                    probe, a threshold, the failure's phase in the probe
 *                    cycle, a quorum across probers
 *   model_anycast.c  the anycast scheme's clocks of one draw of the phases
 *   model_dns.c      the DNS scheme's clocks of one draw, and its queries
 *   model_dns_sim.c  the DNS clients followed query by query through an
 *                    outage of the authoritative server or a resolver
 *   model_lab.c      the lab's clocks: draws of every random phase, their
 *                    p5 / p50 / p95
 *   model_curve.c    the lab's decay curve: the share still sent to the
 *                    failed site per bucket after t0, over the draws
 *   model_topo.c     the lab's model input from a loaded topology, with the
 *                    assumptions it makes and what it does not model
 *   model_write.c    the predictions as a table and as JSON (clocks.json's
 *                    keys)
 *   model_steer*.c   the steady state of the steering: shares, deviation,
 *                    RTT per request and upstream queries per name and
 *                    scheme (model_steer.h)
 */
#ifndef STEERLAB_MODEL_H
#define STEERLAB_MODEL_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Seed 000 (../shared/seeds/000_b77c620cc6e702da.txt, name/model.mjs): one
 * authoritative server, 40 resolvers, three zones b34 b35 b06, four client
 * groups at an abstract distance, 514 requests a second divided among the
 * resolvers by shares 1/(j+1) (the remainder to the largest fractional
 * parts), each resolver's cache phase (j * 13) mod TTL, a health check that
 * marks a dead zone 10 s after it fails. One step a second, as the seed's
 * run() does; every rule is the seed's, in its order.
 */
#define MODEL_S0_ZONES 3
#define MODEL_S0_GROUPS 4
#define MODEL_S0_RESOLVERS 40
#define MODEL_S0_RPS 514      /* K01's 513.89 requests/s, rounded up */
#define MODEL_S0_DETECTION 10 /* T5, seconds */

enum model_s0_zone { MODEL_S0_B34, MODEL_S0_B35, MODEL_S0_B06 };

enum model_s0_policy {
	MODEL_S0_GEOLOCATION,
	MODEL_S0_LATENCY,
	MODEL_S0_WEIGHTED,
};

/* the seed's names of its zones and policies */
extern const char *const model_s0_zone_name[MODEL_S0_ZONES];
extern const char *const model_s0_policy_name[3];
/* T3: each zone's target share */
extern const double model_s0_weight[MODEL_S0_ZONES];

struct model_s0_result {
	long long accepted, dropped, upstream, distance;
	int window; /* seconds from the outage to the last dropped second, inclusive */
	double share[MODEL_S0_ZONES];
	double deviation;     /* half the sum of |share - target| */
	double unit_distance; /* distance units per accepted request */
};

/* model_s0_requests: T4, the requests a second of each resolver: 514
 * divided by shares 1/(j+1), floored, the remainder one each to the largest
 * fractional parts. model_s0_equal_requests: the seed's sensitivity case,
 * 13 each to the first 34 and 12 to the rest (514 in all). */
void model_s0_requests(int req[MODEL_S0_RESOLVERS]);
void model_s0_equal_requests(int req[MODEL_S0_RESOLVERS]);

/* model_s0_run: the seed's run(): policy, ttl (s), the outage of b34 at
 * outage_start (s; -1: none), for duration seconds counted from t = 1, the
 * resolvers' requests a second req. 0, or -1 if ttl or duration is not
 * positive. */
int model_s0_run(int policy, int ttl, int outage_start, int duration,
		 const int req[MODEL_S0_RESOLVERS], struct model_s0_result *r);

/*
 * Seed 002 (../shared/seeds/002_54385d33805160d4.txt): after a region fails,
 * nothing moves until the health check notices (detect_s); then the caches'
 * old answers, fetched at uniformly random moments of the last TTL, run out
 * in a straight line over one TTL, and a sticky share of the clients keeps
 * the address max(TTL, sticky_s) from detection.
 */
struct model_decay {
	double detect_s;     /* until the health check notices */
	double sticky_share; /* of the clients, 0..1 */
	double sticky_s;     /* how long they keep an address at least */
};

/* model_decay_still_sent: the share of requests still sent to the failed
 * region t seconds after it failed, with TTL ttl_s. */
double model_decay_still_sent(const struct model_decay *d, double t, double ttl_s);

/* model_decay_failed_requests: the requests sent to the failed region in
 * the whole seconds 0 .. horizon_s - 1 at rate_per_s: the sum of the
 * shares, times the rate (the seed's order of operations). */
double model_decay_failed_requests(const struct model_decay *d, double ttl_s, int horizon_s,
				   double rate_per_s);

/* model_query_rate: the queries a second at the authoritative servers of
 * resolvers that keep a name warm: each asks once per TTL. */
double model_query_rate(double resolvers, double ttl_s);

/*
 * Detection (model_detect.c). A prober sends a probe every interval_s; a
 * probe of a failed service fails fail_s after it was sent (the probe's
 * round trip for a refusal, its timeout for silence); down failures in a
 * row declare the service dead. The failure falls at a uniformly random
 * phase u of the probe cycle: the first probe after it goes u * interval_s
 * later, so
 *
 *   detect = fail_s + (down - 1) * interval_s + u * interval_s,  u ~ U[0, 1)
 *
 * from fail_s + (down - 1) * interval_s to fail_s + down * interval_s.
 * With n probers of the same settings and independent phases, the verdict
 * that counts is the k-th (model_quorum_needed): the k-th order statistic
 * of n uniform phases, a Beta(k, n - k + 1).
 */
struct model_probe {
	double interval_s;
	double fail_s;	 /* from a probe's send to its failure */
	unsigned down;	 /* failures in a row that declare the site dead */
	unsigned up;	 /* successes in a row that declare it alive again */
	double report_s; /* a [prober]'s verdict's way to authd (its link delays) */
	/* probe_phase = random: its cycle phase_s later than the traffic's
	 * start's (the lab draws it from the lab's seed: known when the
	 * topology sets seed), or, the seed drawn per run, at a phase of its
	 * own in each draw (free_phase) */
	int free_phase;
	double phase_s;
};

/* model_detect_sample: the detect clock for phase u in [0, 1) */
double model_detect_sample(const struct model_probe *p, double u);

/* model_detect_min, model_detect_max: its bounds (u = 0, u = 1) */
double model_detect_min(const struct model_probe *p);
double model_detect_max(const struct model_probe *p);

/* model_quorum_needed: how many of n probers must say down before a site
 * is unhealthy when it stays healthy while more than quorum * n say up
 * (authd's rule, docs/authd.md "Health"): the least k with n - k <= quorum
 * * n. 0 if n is 0 (no prober: never). */
unsigned model_quorum_needed(unsigned n, double quorum);

/* model_order_cdf: P(the k-th smallest of n independent U[0, 1) <= x) */
double model_order_cdf(unsigned n, unsigned k, double x);

/* model_detect_quantile: the q-quantile (0 <= q <= 1) of the k-th verdict
 * of n probers of settings p: fail_s + (down - 1) * interval + interval *
 * the q-quantile of the k-th order statistic (by bisection, to 1e-12). */
double model_detect_quantile(const struct model_probe *p, unsigned n, unsigned k, double q);

/*
 * The lab's model (model_lab.c, model_anycast.c, model_dns.c): the input is
 * plain numbers (model_topo.c makes it from a topology), the result each
 * clock's p5, p50, p95 and bounds over draws of every random phase: the
 * failure's phase in each prober's cycle, and the failure's instant within
 * fail_jitter. The phases the topology fixes (the caches' fills and the
 * clients' resolutions, counted from the start of the traffic) are not
 * drawn.
 */
#define MODEL_MAX_PROBERS 64
#define MODEL_MAX_CACHES 256
#define MODEL_MAX_CLIENTS 256
/* routing = bgp with an advertisement interval: the withdrawal played at
 * this many phases of the monotonic clock's second, each both ways of
 * FRR's choice among equal paths */
#define MODEL_BGP_PHASES 10
#define MODEL_BGP_PLAYS (2 * MODEL_BGP_PHASES)
#define MODEL_NAME_MAX 32
#define MODEL_NOTE_MAX 320
#define MODEL_MAX_NOTES 48

enum model_scheme { MODEL_ANYCAST, MODEL_DNS, MODEL_SCHEMES };

/* how the failed site fails: the timeline's kill, crash, freeze, drain
 * (it answers, flagged draining), degrade (it reads requests and answers
 * none) and link-down (its link to its router cut); MODEL_HOW_OTHER: an
 * action the model does not follow (slow, flap, impair) */
enum model_how {
	MODEL_KILL,
	MODEL_CRASH,
	MODEL_FREEZE,
	MODEL_DRAIN,
	MODEL_DEGRADE,
	MODEL_LINK_DOWN,
	MODEL_HOW_OTHER
};

/* model_how_name: its name as the timeline spells it ("other" for
 * MODEL_HOW_OTHER) */
const char *model_how_name(int how);

enum model_routing { MODEL_STATIC, MODEL_BGP };

/* a DNS cache between clients and the authoritative server */
struct model_cache {
	char name[MODEL_NAME_MAX];
	double ttl_s;	/* the name's TTL after the cache's clamps */
	double phase_s; /* its first fill expires ttl_s - phase_s after it */
	int walk;	/* queries of its first fill above the name's zone (iterating: the
			   root's, a TLD's), cached longer than the run */
	int aaaa_of;	/* the AAAA entry of cache aaaa_of - 1 (model_topo.c), whose
			   walk it shares; 0: a cache of its own */
	double fill_s;	/* a fill's way to authd and back (its link delays): its entry
			   lives its TTL from the answer's arrival */
	double drift_s; /* each fill later than the last expiry by a client's query's
			   way to it and back and the fill's: its clients' least */
	double up_s;	/* of fill_s, the query's way to authd */
	/* resolverd's upstream attempts and serve-stale (docs/resolverd.md),
	 * for the DNS outages (model_dns_sim.c) */
	double timeout_s;
	unsigned retries;
	int serve_stale;
	double stale_ttl_s, max_stale_s, stale_recheck_s;
	/* prefetch: a hit that finds less than this share of the TTL left
	 * refreshes the entry in the background (0: none) */
	double prefetch;
	/* its clock in whole seconds (docs/model.md, "Real resolvers"): 1, an
	 * entry fetched in wall second s is answered until second s + TTL
	 * ends (unbound, kresd: up to a second past its TTL, TTL 0 in that
	 * last part); -1, until second s + TTL begins (bind9: up to a second
	 * short of it); 0, its TTL to the instant (resolverd) */
	int whole;
};

/* a DNS outage of the timeline (dns-down, resolver-down): the name's
 * authoritative server (cache -1) or a cache's resolver (its index)
 * unreachable on port 53 from from_s to to_s (from the start of the
 * traffic; INFINITY: to the end) */
#define MODEL_MAX_OUTAGES 32
struct model_outage {
	int cache;
	double from_s, to_s;
};

/* a client's flow of one scheme */
struct model_client {
	char name[MODEL_NAME_MAX];
	int scheme;	   /* enum model_scheme */
	double rate_per_s; /* requests a second */
	int to_failed;	   /* at t0 its requests go to the failed site */
	int cache;	   /* dns: its cache (index), -1: it asks the authoritative server */
	double sticky_s;   /* dns: > 0, it keeps each address this long whatever the TTL */
	int pop;	   /* a population: 1 + its index in model_input.pops; 0: none */
	/* anycast over BGP: its traffic last reaches the failed site this long
	 * after the steer (the failed site's router's FIB; the withdrawal's
	 * travel over AS hops), then reaches no site this much longer */
	double after_s, lost_extra_s;
	/* the same when FRR keeps the other of equal paths (the older, which the
	 * model cannot know): each draw takes one of the two (u_tie) */
	double alt_after_s, alt_lost_extra_s;
	/* every play of the withdrawal (nplays > 2: an advertisement interval,
	 * played at phases of the monotonic clock; model_topo_bgp.c): each
	 * draw takes one (u_tie); 0 plays: after_s or alt_after_s as above */
	int nplays;
	double play_after_s[MODEL_BGP_PLAYS], play_lost_extra_s[MODEL_BGP_PLAYS];
	/* the configured link delays (docs/model.md, "Link delays"): ask_s,
	 * how long before the change a client's deciding packet leaves it
	 * (anycast: a request's way to the failed site's router; dns: a fill
	 * query's way to the authoritative server through its cache);
	 * arrive_s, a request's way to the failed site's link */
	double arrive_s, ask_s;
	/* dns: its query's way to its cache and the answer's back */
	double to_cache_s, from_cache_s;
	/* what its requests travel on (docs/model.md, "Connections"): enum
	 * model_proto; tcp_now, a TCP client that reconnects every 100 ms
	 * rather than backing off */
	int proto;
	int tcp_now;
	/* Happy Eyeballs (family = dual, over UDP): each request unanswered
	 * this long after it left over IPv6 goes again over IPv4, so one sent
	 * to the dead site is lost only if its copy also goes there: those
	 * sent up to attempt_s before its last request to it (0: none) */
	double attempt_s;
	/* a failure of the other address family (fail_family): its requests
	 * to the failed site still answered, none lost */
	int unharmed;
	/* a dual client's second entry of its cache (the A beside its cache's
	 * AAAA, model_topo.c), fetched apart as its own clients ask it: its
	 * index + 1; 0 none (a zeroed client asks one entry) */
	int cache2;
};

/* a client's requests: datagrams (each one sent to a dead site lost), one
 * TCP connection (reconnecting with a backoff), HTTP through libcurl (a
 * connection for a request when none is open) */
enum model_proto { MODEL_UDP, MODEL_TCP, MODEL_HTTP };

/* model_tcp_reconnect: a TCP client whose connection broke at 0 (a
 * killed site's kernel closed it) and whose connections are refused until
 * `moved`: the attempt that is not, its first at once, then after 100 ms,
 * 200 ms, 400 ms ... up to 1 s between them (agents/client/tcp.c;
 * every 100 ms with now) */
double model_tcp_reconnect(double moved, int now);

/* a population (docs/agents.md, "Populations"): n logical clients of one
 * client node, each laid out as the client agent lays it (lib/popseq.h):
 * its rate by skew, its send phase, its first hold's phase, its cache, its
 * stickiness; model_pop.c follows every one of them through the run */
#define MODEL_MAX_POPS 8
#define MODEL_POP_RES_MAX 250

enum model_skew { MODEL_SKEW_EQUAL, MODEL_SKEW_HARMONIC, MODEL_SKEW_ZIPF };

struct model_pop {
	unsigned n;	   /* logical clients */
	int skew;	   /* enum model_skew */
	double zipf_s;	   /* skew = zipf: the exponent */
	double rate_per_s; /* all of them */
	double from_s;	   /* their requests' schedule starts then (the lab's start: 0) */
	/* dns: the caches it asks (cache[k] an index into model_input.caches,
	 * -1: the authoritative server itself, each answer fresh), weights
	 * (nweights == nres) or in turn; sticky: every client (all_sticky) or
	 * the share sticky_share, keeping an address sticky_s */
	int nres;
	int cache[MODEL_POP_RES_MAX];
	/* off[k]: cache slot k's answers never sent its clients to the failed
	 * site (a policy other than failover: model_topo_dns.c) */
	int off[MODEL_POP_RES_MAX];
	int nweights;
	double weight[MODEL_POP_RES_MAX];
	int all_sticky;
	double sticky_share, sticky_s;
};

/* what the model cannot say, and what it assumes: one line each */
struct model_notes {
	int n;
	int not_modelled[MODEL_MAX_NOTES]; /* 1: a limit, 0: an assumption */
	char text[MODEL_MAX_NOTES][MODEL_NOTE_MAX];
};

/* model_note: a line into notes (dropped past MODEL_MAX_NOTES, cut at
 * MODEL_NOTE_MAX) */
void model_note(struct model_notes *notes, int not_modelled, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

struct model_input {
	char lab[MODEL_NAME_MAX];
	char site[MODEL_NAME_MAX];  /* the failed site */
	char event[MODEL_NAME_MAX]; /* the [event] that fails it */
	int how;		    /* enum model_how */
	int fail_family;	    /* 4 or 6: a failure of that family alone (0: both) */
	double fail_at_s;	    /* from the start of the traffic */
	double fail_jitter_s;	    /* t0 uniform in [fail_at, fail_at + jitter) */
	double effect_s;	    /* the failure in effect uniformly within [t0, t0 +
				     * effect_s]: a run's action took so long (a freeze's
				     * table loaded); clocks still from t0. 0: at t0 */
	double duration_s;	    /* of the traffic */
	double slo_pct;		    /* for the budget: 99.9 */

	/* anycast: the failed site's own prober, and how its verdict is routed */
	int anycast_present;
	int anycast_detect_by_prober; /* the site's prober sees the failure */
	struct model_probe site_probe;
	int routing; /* enum model_routing */
	double static_refresh_s, static_hold_s;
	/* the site's prober's refreshes begin this much later than the
	 * traffic's start's cycle (probe_phase = random: its cycle's offset
	 * less an interval, as the lab sets it; 0 otherwise) */
	double refresh_shift_s;
	double withdraw_s; /* the prober's withdrawal's way to the site's router */
	/* routing = bgp, a failure the site's prober cannot see: its router's
	 * session with it ends bgp_down_s after the last message the router
	 * received from it, which came at a uniformly random phase of
	 * bgp_period_s before t0 (BFD: multiplier x interval, interval; else
	 * the hold time, the keepalive); a crash closes it at t0 (both 0) */
	double bgp_down_s, bgp_period_s;
	int bgp_bfd;
	/* why anycast's steer, window and losses are not modelled ("": they are) */
	char anycast_limit[MODEL_NOTE_MAX];
	/* why the clients' clocks (window, last packets, losses) of both
	 * schemes are not, their detect and steer being ("": they are) */
	char clients_limit[MODEL_NOTE_MAX];

	/* dns: the probers reporting to the authoritative server, its quorum */
	int dns_present;
	int nprobers;
	struct model_probe probers[MODEL_MAX_PROBERS];
	double quorum;
	double ttl_s; /* the name's TTL as the authoritative server gives it */
	char dns_limit[MODEL_NOTE_MAX];
	/* why the scheme's detect and steer are not modelled ("": they are):
	 * its DNS clients' names are served by several [dns] nodes, each
	 * with a verdict of its own (the first of any is measured) */
	char dns_detect_limit[MODEL_NOTE_MAX];
	/* why its upstream queries are not modelled ("": they are) */
	char upstream_limit[MODEL_NOTE_MAX];

	int ncaches;
	struct model_cache caches[MODEL_MAX_CACHES];
	int nclients;
	struct model_client clients[MODEL_MAX_CLIENTS];
	int npops;
	struct model_pop pops[MODEL_MAX_POPS];
	int bgp_ties; /* a client's clocks differ as FRR keeps one of equal paths or another */
	/* the notes of the advertisement interval and of equal paths are in
	 * (model_topo.c) */
	int bgp_mrai_note, bgp_tie_note;
	/* the name's server checks the sites itself (impl = pdns, gdnsd): its
	 * one prober; its steer is measured on the wire, at the first answer
	 * a resolver asks for after it decided, which the model does not draw */
	int own_checks;
	/* how long after its verdict the name's server answers by it: gdnsd
	 * hands its monitors' changes to its DNS threads a second later
	 * (measured 0.9 to 1.06 s); 0 for authd and PowerDNS */
	double answer_lag_s;
	/* the timeline's DNS outages: the DNS clients followed query by query
	 * (model_dns_sim.c) rather than by model_dns.c's closed forms */
	int noutages;
	struct model_outage outages[MODEL_MAX_OUTAGES];
	/* the fail-back (model_failback.c): the first failure's recovery by
	 * the timeline, from the start of the traffic (< 0: none); whether it
	 * started the site's agents again (a crash's: its prober's cycle at a
	 * phase of its own); the site's own prober; why not modelled ("": it
	 * is) */
	double recover_at_s;
	int recover_restart;
	struct model_probe back_probe;
	char failback_limit[MODEL_NOTE_MAX];
	/* 1: the DNS clients followed query by query (model_dns_sim.c): a
	 * DNS outage, or a cache that prefetches */
	int dns_sim;
	/* the caches of whole seconds (model_cache.whole): 1, the wall
	 * clock's fraction of a second at the start of the traffic known,
	 * wall_s (a run's); 0, drawn in each draw (u_wall) */
	int wall_known;
	double wall_s;

	/* 1: every prober's phase drawn on its own (the seeds' assumption: a
	 * failure at a random instant of every cycle, checkers that do not
	 * coordinate); 0: the lab's, each following from t0 (model_draw) */
	int free_phases;
	unsigned samples; /* draws (MODEL_SAMPLES) */
	uint64_t seed;	  /* of the draws */
};

/* FRR's withdrawal, measured in bench/bgp (docs/benchmarks.md, "What sets
 * the floor"): from the service address leaving the site's loopback to its
 * router's FIB, the site's zebra and bgpd work-queue holds (10 + 50 ms),
 * the router's bgpd and zebra holds (50 + 10 ms), and 1-3 ms of work
 * (121-123 ms); from a session's end at the router, its bgpd clearing the
 * peer's routes (a work queue held 10 ms), then its bgpd's and zebra's
 * holds: 72 ms measured three times after a crash (docs/model.md) */
#define MODEL_BGP_FLOOR_S 0.122
#define MODEL_BGP_ROUTER_S 0.072
/* and on a loaded machine, once in a while, a work queue's retry on top
 * (FRR reschedules a queue that yielded 100 ms later): a drain's steer
 * measured 0.472 s against the floor's 0.372 (test_bgp_drain, a gate with
 * four labs at once). MODEL_BGP_RETRY_SHARE of the draws take it
 * (model_anycast.c): the bounds hold such a run, p5-p95 does not move. */
#define MODEL_BGP_RETRY_SHARE 0.04
#define MODEL_BGP_RETRY_S 0.1

#define MODEL_SAMPLES 4000
/* the draws when a population's every logical client is followed in each */
#define MODEL_POP_SAMPLES 400
/* gdnsd's delay from a monitor's change to its answers (model_topo_dns.c) */
#define MODEL_GDNSD_LAG_S 1.0
/* the share of draws whose populations lag behind their schedule, by up
 * to MODEL_POP_LAG_S (model_lab.c, lab_pop_lag) */
#define MODEL_POP_LAG_SHARE 0.04
#define MODEL_POP_LAG_S 0.1
#define MODEL_SEED 26

/* A predicted clock: known (or why not), and its distribution over the
 * draws: nearest-rank p5, p50, p95, and min and max. */
struct model_iv {
	int known;
	double p5, p50, p95, min, max;
	char why[MODEL_NOTE_MAX]; /* not known: why */
};

struct model_scheme_result {
	int present;
	int clients;	   /* the scheme's client flows */
	double rate_per_s; /* their requests a second */
	struct model_iv detect, steer, window;
	struct model_iv last_p50, last_p99, last_max; /* last packet per client */
	struct model_iv lost, equivalent_downtime, budget_share;
	/* of lost, those sent to the failed site (the capture's count there):
	 * not those lost on the way while BGP's routers disagree */
	struct model_iv lost_site;
	/* requests that failed at once rather than being lost (a TCP or HTTP
	 * client's, refused or with no connection); tcp: the scheme has TCP or
	 * HTTP clients (else the row is not drawn) */
	struct model_iv errors;
	int tcp;
	struct model_iv upstream_queries, upstream_per_s; /* dns only */
	/* the fail-back, after the recovery (in->recover_at_s >= 0): the site
	 * declared alive again, the route or the answer back, the first and
	 * the last of its clients back */
	struct model_iv fb_healthy, fb_steer, fb_first, fb_last;
	struct model_iv client_last[MODEL_MAX_CLIENTS]; /* per client, input order */
	int client_index[MODEL_MAX_CLIENTS];		/* into model_input.clients */
};

struct model_result {
	struct model_scheme_result s[MODEL_SCHEMES];
	double budget_s; /* the SLO's monthly budget */
};

/*
 * One draw (model_anycast.c, model_dns.c): t0_s the failure's instant from
 * the start of the traffic (random within fail_jitter); u_site the
 * failure's phase in the site prober's cycle, u_probers[i] in remote prober
 * i's, u_refresh in the refresh cycle of a static announcement, each
 * following from t0_s, since the lab sets every prober's cycle at the
 * traffic's start (a probe and a refresh half an interval after it:
 * prober's SIGUSR1); random: u_check in routed's hold check, u_session the
 * BGP session's keepalive or BFD cycle. Each clock in seconds after t0;
 * < 0: none.
 */
struct model_draw {
	double u_site, u_refresh, u_check;
	double u_session; /* bgp: the site's last message before t0, in its period */
	double u_tie;	  /* bgp: each client's play of the withdrawal (model_client_after) */
	double u_tick;	  /* dns_sim: the phase of resolverd's timeout timer */
	double u_first;	  /* dns_sim: which of a cache's clients asks it first */
	double u_order;	  /* dns_sim: the seed of each query's lateness after its hold */
	double u_lag;	  /* a population's lag behind its schedule (model_lab.c) */
	double u_frr;	  /* bgp: above 1 - MODEL_BGP_RETRY_SHARE, FRR's retry */
	double u_back;	  /* a recovery: when the site's restarted agents answer */
	double u_edge;	  /* a recovery: < 0.5, a client that moved with it had not */
	double u_wall;	  /* a cache of whole seconds: the wall clock's fraction of a
			     second at the start of the traffic */
	double u_probers[MODEL_MAX_PROBERS];
	double t0_s;
};

struct model_clocks {
	double detect, steer;
	double last[MODEL_MAX_CLIENTS]; /* per client of the scheme, input order */
};

/* model_draw_phases: the phases of draw d that follow from its t0_s (set)
 * in the lab: every prober probes half an interval after the traffic's start
 * and every interval after, and refreshes likewise (the lab's SIGUSR1), so
 * u_site, u_probers and u_refresh are set from t0_s; with in->free_phases
 * (the seeds' independent phases) d is left as drawn */
void model_draw_phases(const struct model_input *in, struct model_draw *d);

/* model_anycast_draw: anycast's clocks in one draw; last[i] for every
 * client of the input (0 for one that is not anycast's or not on the
 * failed site). -1 if its detect is not modelled. */
int model_anycast_draw(const struct model_input *in, const struct model_draw *d,
		       struct model_clocks *c);

/* model_dns_draw: the DNS scheme's, likewise. -1 if its detect is not
 * modelled (no prober reports to the authoritative server). */
int model_dns_draw(const struct model_input *in, const struct model_draw *d,
		   struct model_clocks *c);

/* model_failback_draw: scheme s's fail-back clocks in draw d (seconds after
 * the recovery), the failure's clocks of the draw c: fb[0] healthy, fb[1]
 * steer, fb[2] the first client back, fb[3] the last (-1: none of its
 * clients was on the site); a client whose last packet to the site came
 * after the recovery never left, and is back with its first request after
 * it. -1 if not modelled (in->failback_limit says why). */
int model_failback_draw(const struct model_input *in, int s, const struct model_draw *d,
			const struct model_clocks *c, double fb[4]);

/* model_dns_client_take: when DNS client i (not a population's, no
 * outage) takes an answer fetched after steer_at, the first after t0 (both
 * from the start of the traffic), by model_dns.c's closed forms (a cache of
 * whole seconds: its fetches one by one, the wall clock's fraction of a
 * second at the traffic's start wall) */
double model_dns_client_take(const struct model_input *in, int i, double t0, double steer_at,
			     double wall);

/* model_dns_whole: whether a cache of the input keeps whole seconds (its
 * expiries then depend on the draw's u_wall) */
int model_dns_whole(const struct model_input *in);

/* model_tick_after: the first tick at or after x of a cycle whose ticks
 * come at (k + 1/2) iv + phase after the start of the traffic */
double model_tick_after(double x, double iv, double phase);

/* model_dns_upstream: the queries that reach the lab's authoritative
 * servers while the traffic runs: each used cache's fills of the name (the
 * first, at the start of the traffic, and one each time a client asks it
 * once its entry has expired) and its first walk's referrals (walk), and
 * each query of a client that asks the name's server itself; a
 * population's caches' fills as model_pop.c plays them. -1 if out of
 * memory. */
double model_dns_upstream(const struct model_input *in);

/* model_dns_sim: with DNS outages or prefetch (in->dns_sim), every DNS
 * client (not a population's)
 * followed query by query (model_dns_sim.c): moved[i], when client i took
 * an answer whose query reached authd at or after steer_at (an instant
 * from the start of the traffic; INFINITY: never within the traffic);
 * from draw d: u_tick the phase of the resolvers' timeout timers, u_first
 * which of each cache's clients asks first (the others up to 2 ms later),
 * u_order each query's lateness after its hold; *upstream, if not
 * NULL, the queries that reached the authoritative server's link (its
 * capture: those it dropped too) and the first walks' referrals. 0, or -1
 * (out of memory). model_dns_down: whether cache c (-1: the
 * authoritative server) is unreachable at instant x. */
int model_dns_sim(const struct model_input *in, double steer_at, const struct model_draw *d,
		  double *moved, double *upstream);
int model_dns_down(const struct model_input *in, int c, double x);

/* model_pop_plan: the population of client i (clients[i].pop) followed
 * through the run (model_pop.c): each logical client's requests and, for
 * DNS, each query whose answer its cache fetched later than the one before
 * (played through the cache in time order: a hit's TTL is what the entry
 * has left, in whole seconds, a hold at least 0.1 s). NULL if out of
 * memory. model_pop_plan_free frees it. */
struct model_pop_plan;
struct model_pop_plan *model_pop_plan(const struct model_input *in, int i);
void model_pop_plan_free(struct model_pop_plan *pl);
unsigned model_pop_users(const struct model_pop_plan *pl);
/* model_client_after: anycast over BGP, client m's after_s in a draw whose
 * u_tie is u (the play it takes: model_client.nplays); and its
 * lost_extra_s */
double model_client_after(const struct model_client *m, double u);
double model_client_lost_extra(const struct model_client *m, double u);
/* model_pop_off: logical client j's cache never sent it to the failed site
 * (model_pop.off); 0 for an anycast population */
int model_pop_off(const struct model_pop_plan *pl, unsigned j);
double model_pop_rate(const struct model_pop_plan *pl, unsigned j);
/* model_pop_fetches: its caches' fills of the name over the run */
long model_pop_fetches(const struct model_pop_plan *pl);
/* model_pop_last: logical client j's last request to the failed site (an
 * instant from the start of the traffic) when t0 is the failure and
 * steer_at the instant the answers (dns) or the route (anycast) change; -1
 * if it sent none after t0 */
double model_pop_last(const struct model_pop_plan *pl, unsigned j, double t0, double steer_at);
/* model_pop_next_send: logical client j's first request at or after t;
 * INFINITY if none before the traffic's end */
double model_pop_next_send(const struct model_pop_plan *pl, unsigned j, double t);
/* model_pop_sends: logical client j's requests in (a, b] */
double model_pop_sends(const struct model_pop_plan *pl, unsigned j, double a, double b);

/* model_draws: the draws model_lab makes: in->samples (MODEL_SAMPLES when
 * 0), at most MODEL_POP_SAMPLES when a population is in the input or
 * the DNS clients are followed query by query (dns_sim) */
unsigned model_draws(const struct model_input *in);

/* model_lab: every clock of both schemes over in->samples draws. 0, or -1
 * (out of memory). */
int model_lab(const struct model_input *in, struct model_result *r);

/* model_lab_decay: scheme s's decay curve (model_curve.c): in share[k]
 * (k < n), the share of its requests sent to the failed site in the bucket
 * (k bucket_s, (k + 1) bucket_s] after t0, each client's requests to it
 * those it sends until its last packet, averaged over in->samples draws; -1
 * for a bucket after the traffic's end. 0, or -1 if the scheme's last
 * packets are not modelled (or out of memory). */
int model_lab_decay(const struct model_input *in, int s, double bucket_s, size_t n, double *share);

/* model_uniform: the next draw in [0, 1) of the model's generator
 * (SplitMix64, 53 bits) from *state */
double model_uniform(uint64_t *state);

/* model_iv_of: the distribution of the n (> 0) draws v (sorted here) into
 * *iv: nearest-rank p5, p50, p95, and min and max */
void model_iv_of(double *v, size_t n, struct model_iv *iv);

/* model_budget_s: the monthly error budget at slo_pct (30 days) */
double model_budget_s(double slo_pct);

/*
 * From a topology (model_topo.c): the lab's failure (its first), its
 * sites, probers, caches and clients as model_input, with what that
 * assumes and what it leaves out in notes. 0, or -1 with why in err (the
 * timeline fails no site).
 */
struct topology;
int model_from_topology(const struct topology *t, struct model_input *in, struct model_notes *notes,
			char *err, size_t errlen);

/* model_topo_authorities: how many [dns] nodes serve the names the lab's
 * DNS clients ask (each name's zone's first server), and for each, in
 * node order, the first client asking one of its names (its node index)
 * into name_of[0..max) (NULL: not wanted). Two or more: the authorities
 * side by side (docs/clocks.md, "Authorities"). */
int model_topo_authorities(const struct topology *t, int *name_of, int max);

/* model_from_topology_authority: model_from_topology for authority a (0
 * .. model_topo_authorities - 1) alone: the lab with every DNS client
 * asking a name of a's (its detect and steer are a's; its clients' clocks
 * every DNS client's, as if they all asked it). 0, or -1 with why in err. */
int model_from_topology_authority(const struct topology *t, int a, struct model_input *in,
				  struct model_notes *notes, char *err, size_t errlen);

/* model_authority: authority a's model into *r, its input in *in, its
 * [dns] node's name into *node; the failure's instant, the traffic and the
 * wall clock those of run (a run's own: clocks_model.c), NULL: the
 * topology's. 0, or -1 with why in err. model_print_authorities,
 * model_json_authorities: every authority's detect and steer for `steerlab
 * model` (nothing, NULL, when fewer than two). */
int model_authority(const struct topology *t, int a, const struct model_input *run,
		    struct model_input *in, struct model_result *r, const char **node, char *err,
		    size_t errlen);
void model_print_authorities(const struct topology *t, const struct model_input *run, FILE *out);
json_t *model_json_authorities(const struct topology *t, const struct model_input *run);

/* model_failures: how many failures the timeline has (events that take a
 * site out, as topo_first_failure counts them); model_from_topology_failure:
 * the input of the k-th (from 0, in time order; 0: model_from_topology's),
 * each site failed before it and not recovered by its t0 out, the clients
 * where those failures left them (said: the earlier ones settled first,
 * else its clocks not modelled). 0, or -1 with why in err. */
int model_failures(const struct topology *t);
int model_from_topology_failure(const struct topology *t, int k, struct model_input *in,
				struct model_notes *notes, char *err, size_t errlen);

/* model_iv_text: "0.250 s (0.205-0.295)", "-" if not known, into buf */
const char *model_iv_text(const struct model_iv *v, const char *unit, int decimals, char *buf,
			  size_t len);

/* model_print: the predictions as a table shaped as a run's (rows detect,
 * steer, window, ... columns anycast and dns), then each client's last
 * packet, the assumptions and what is not modelled. */
void model_print(const struct model_input *in, const struct model_result *r,
		 const struct model_notes *notes, FILE *out);

/* model_print_failures: with several failures on the timeline, the table
 * "every failure of the timeline" of the n failures' inputs and results
 * (in[k], r[k]: model_from_topology_failure's k-th), in the shape of a
 * run's, and why a later one is not modelled; model_json_failures: the
 * failures after the first as JSON, each {name, site, how, at_s, schemes}
 * with the keys of model_json's schemes (clocks.json's failures). */
void model_print_failures(const struct model_input *in, const struct model_result *r, int n,
			  FILE *out);
json_t *model_json_failures(const struct model_input *in, const struct model_result *r, int n);

/* model_json: the same as JSON, each scheme's keys those of clocks.json's
 * schemes, each interval {p5, p50, p95, min, max} or null. NULL: out of
 * memory. */
json_t *model_json(const struct model_input *in, const struct model_result *r,
		   const struct model_notes *notes);

#endif
