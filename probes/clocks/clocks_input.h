/*
 * A run directory loaded (clocks.c, clocks_load(); docs/clocks.md, "Inputs"): the
 * failure and the timeline, every event the clocks use, the captures, the
 * clients' records and the topology's DNS side, in one struct
 * clocks_input that every computation of the clocks reads. A malformed
 * file is an error naming the file and the line.
 */
#ifndef STEERLAB_CLOCKS_INPUT_H
#define STEERLAB_CLOCKS_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "clocks_base.h"
#include "clocks_captures.h"
#include "clocks_events.h"
#include "clocks_hosts.h"
#include "clocks_topo.h"
#include "wire.h"

#define CLOCKS_CLIENT_TIMEOUT_NS 500000000LL /* the topology's default timeout */

enum clocks_status {
	CLOCKS_OK,
	CLOCKS_TIMEOUT,
	CLOCKS_ERROR,
};

/* one line of a requests-NODE.csv */
struct clocks_request {
	uint32_t client;
	uint64_t seq;
	int64_t sent_ns;
	int64_t rtt_ns;
	enum clocks_status status;
	char site[WIRE_SITE_LEN + 1];
	uint8_t family;	   /* a dual lab's record: 4 or 6 (its reply's, else its last try's); 0 */
	uint8_t fell_back; /* sent again over IPv4 (Happy Eyeballs) */
};

/*
 * A client's path to a site as the lab configured its links (lab.events.jsonl's
 * impairments: docs/events.md) and as the run measured it (clocks_impair.c;
 * docs/clocks.md, "Impairments"): the p50 of the RTT of the client's
 * requests the site answered before t0.
 */
#define CLOCKS_IMPAIR_TOL_NS 500000LL /* impairment_mismatch: max(0.5 ms, */
#define CLOCKS_IMPAIR_TOL_SHARE 0.05  /* 5 % of the configured RTT) */

struct clocks_impair_path {
	char client[CLOCKS_NAME_MAX]; /* the client node */
	char site[CLOCKS_NAME_MAX];
	int64_t rtt_ns;	 /* configured: the links' delays there and back */
	double loss_pct; /* configured: lost there or back, percent */
	/* in force from (a link_impaired's t; 0: from bring-up) until the
	 * next entry of the same client and site (clocks_impair_measure:
	 * INT64_MAX if none) */
	int64_t from_ns, until_ns;
	/* measured (clocks_impair_measure): its requests answered by site
	 * while it was in force, sent and answered, before t0 (after it too
	 * when the failure is a gray one, until the timeline's next step
	 * that is no impair), and their RTT's p50 (CLOCKS_NONE: none) */
	int64_t n;
	int64_t p50_ns;
	int mismatch; /* p50 and rtt differ by more than the tolerance */
};

struct clocks_input {
	char lab[CLOCKS_NAME_MAX];
	/* lab_up's topology: the file the run was given ("" in a run from
	 * before lab_up said it), for the CSV files' metadata (lib/csvmeta.h) */
	char topology[256];
	uint16_t port; /* the request port, for telling requests in captures */
	struct clocks_failure failure;
	/* no site_failed: a steady-state run (docs/clocks.md, "Steady state"):
	 * failure.t0_ns is then the end of the traffic, so that every request
	 * is "before t0" and no failover clock is computed or written */
	int steady;
	/* every failure of the timeline, by t0, the first being failure
	 * (clocks_load): each site_failed, and each step that took a site
	 * out again after its recovery (a flap's downs are the flap clocks') */
	struct clocks_failure *failures;
	size_t nfailures, capfailures;
	/* lab.events.jsonl's traffic_started (t, duration_ns, fail_at_ns) and
	 * traffic_stopped (t); CLOCKS_NONE when absent. interrupted: -1 if
	 * traffic_stopped did not say, else its "interrupted". lab_stopping:
	 * when the teardown began (CLOCKS_NONE: not recorded). */
	int64_t traffic_start_ns, traffic_duration_ns, traffic_stop_ns, fail_at_ns;
	int traffic_interrupted;
	/* traffic_stopped was written by `steerlab down` ("by": "down") for a
	 * run whose steerlab never finished it: nobody watched it to the end */
	int traffic_stopped_by_down;
	/* traffic_started's seed and fail_jitter_ns (lab/jitter.h):
	 * CLOCKS_NONE when absent (a run from before them) */
	int64_t seed, fail_jitter_ns;
	int64_t lab_stopping_ns;
	/* the longest client timeout of topology.ini ([lab] and [client]
	 * timeout; 500 ms if neither says) */
	int64_t client_timeout_ns;

	struct clocks_dead *dead;
	size_t ndead, capdead;
	struct clocks_dead *alive; /* declared_alive, as dead */
	size_t nalive, capalive;
	struct clocks_dead *expired; /* routed's route_expired; node: the router */
	size_t nexpired, capexpired;
	struct clocks_hit *hits; /* the timeline's steps, in file order */
	size_t nhits, caphits;
	struct clocks_route *routes;
	size_t nroutes, caproutes;
	/* a dual lab's routes to the service's IPv6 address, each as its
	 * IPv4 twin's (prefix and next hops): the IPv6 FIB clocks */
	struct clocks_route *routes6;
	size_t nroutes6, caproutes6;
	struct clocks_addr_node *addrs; /* lab_up's addresses; none before them */
	size_t naddrs, capaddrs;
	struct clocks_twin *twins; /* lab_up's twins (a dual lab): IPv6 to IPv4 */
	int ip6;		   /* lab_up's ip = 6: its addresses are the twins' IPv6 */
	size_t ntwins, captwins;
	struct clocks_link_stats *stats;
	size_t nstats, capstats;
	/* the collectors' capture_ready: the links captured, and the kernel
	 * memory of their rings (the sum of each one's buffer; CLOCKS_NONE
	 * if one did not say) */
	int ncaptures_ready;
	int64_t capture_ring_bytes;
	struct clocks_health *health;
	size_t nhealth, caphealth;
	struct clocks_answer *answers;
	size_t nanswers, capanswers;
	struct clocks_zone_change *zchanges; /* authd's zone_changed, in file order */
	size_t nzchanges, capzchanges;
	size_t nauthd_files; /* *.authd.events.jsonl read */
	size_t nauthority;   /* [dns] nodes of impl = pdns: their health and
			answers from the captures (clocks_authority.c) */
	struct clocks_exit *exits;
	size_t nexits, capexits;
	struct clocks_capture_error *cerrors;
	size_t ncerrors, capcerrors;
	struct clocks_monitor_loss *mlosses;
	size_t nmlosses, capmlosses;
	struct clocks_rejected *rejected;
	size_t nrejected, caprejected;
	struct clocks_client *clients;
	size_t nclients, capclients;
	struct clocks_resolution *resolutions; /* in file order */
	size_t nresolutions, capresolutions;
	struct clocks_dns_answer *danswers; /* in file order: each client's in time order */
	size_t ndanswers, capdanswers;
	size_t nclient_files; /* NODE.client*.events.jsonl read */
	struct clocks_capture *captures;
	size_t ncaptures, capcaptures;
	struct clocks_query_capture *qcaptures;
	size_t nqcaptures, capqcaptures;
	struct clocks_link_capture *lcaptures;
	size_t nlcaptures, caplcaptures;
	struct clocks_rsv_capture *rcaptures;
	size_t nrcaptures, caprcaptures;
	struct clocks_topo_dns dnstopo; /* topology.ini's DNS side */
	struct clocks_request *requests;
	size_t nrequests, caprequests;
	int have_requests; /* at least one requests-*.csv was read */
	/* lab.events.jsonl's impairments: the mechanism ("" when the lab
	 * impaired no link) and every client's path as configured */
	char impair_mech[CLOCKS_NAME_MAX];
	struct clocks_impair_path *impair;
	size_t nimpair, capimpair;

	/* a lab over several hosts (clocks_hosts.h): lab_up's hosts and
	 * each one's host_clock, each node's host, and the node of each
	 * capture label's collector (capture_ready); none in a lab of one */
	struct clocks_host *hosts;
	size_t nhosts, caphosts;
	struct clocks_node_host *node_hosts;
	size_t nnode_hosts, capnode_hosts;
	struct clocks_label_node *label_nodes;
	size_t nlabel_nodes, caplabel_nodes;

	struct clocks_notes notes; /* from loading: truncated files, ... */
	/* every failure's clocks when there are several, computed once for
	 * the verdict, clocks.json and the table (clocks_multi_prepare); NULL:
	 * each of them computes its own */
	struct clocks_multi *multi;
	/* the steering's shares and distances (clocks_steering_prepare), for
	 * clocks.json, the table and the report; NULL: not measured */
	struct clocks_steering *steering;
	/* the shares of the weighted names whose weights changed, per second
	 * and per period (clocks_shares_prepare); NULL: no weight changed */
	struct clocks_shares *shares;
	/* the authorities side by side (clocks_auths_prepare); NULL: fewer
	 * than two [dns] nodes serve the DNS clients' names */
	struct clocks_auths *auths;
	/* the connection clocks (clocks_conn_prepare), for the same three;
	 * NULL: no client spoke TCP, or not measured */
	struct clocks_conn *conn;
	/* the model of the run beside its clocks (clocks_model_prepare), for
	 * the same three and the decay; NULL: not computed */
	struct clocks_model *model;
};

/* clocks_load: read rundir into *in (which it initialises). Returns 0, or
 * -1 with "FILE:LINE: what is wrong" in err. Free with clocks_input_free
 * either way. */
int clocks_load(const char *rundir, struct clocks_input *in, char *err, size_t errlen);
void clocks_input_free(struct clocks_input *in);

/* clocks_addr_name: the address v4 as the lab has it: in a lab of ip = 6
 * (lab_up's "ip"), its IPv6 twin, the one on an interface; else itself.
 * Into buf (INET6_ADDRSTRLEN), which it returns (clocks_events_lab.c). */
const char *clocks_addr_name(const struct clocks_input *in, struct in_addr v4, char *buf,
			     size_t len);

/* clocks_input_init: an empty input (what clocks_load starts from), for
 * building one by hand. */
void clocks_input_init(struct clocks_input *in);

/* clocks_traffic_ns: how long the clients sent: traffic_started's
 * duration_ns, or traffic_started to traffic_stopped if the run was
 * interrupted before that (or duration_ns is 0 or absent); CLOCKS_NONE if
 * neither is known. */
int64_t clocks_traffic_ns(const struct clocks_input *in);

/* clocks_traffic_end: when the clients stopped sending (traffic_started +
 * clocks_traffic_ns), as an absolute time; CLOCKS_NONE if unknown. */
int64_t clocks_traffic_end(const struct clocks_input *in);

/* clocks_observation_end: the end of the observation as an absolute time:
 * clocks_traffic_end, or the last request captured on a site link if later;
 * CLOCKS_NONE if none of these is known. */
int64_t clocks_observation_end(const struct clocks_input *in);

#endif
