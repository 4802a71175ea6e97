/*
 * probes/clocks: the failover clocks of a run directory (docs/clocks.md):
 * loading a run, the clocks of each scheme, the verdict on whether the run
 * is to be trusted, and clocks.json. What a person reads around them (the
 * report: report.md, CSV, plots) is probes/report, on this interface.
 *
 * The analysis runs in three stages, so that the arithmetic can be tested
 * without files and a new scheme is one more function beside the others:
 *
 *   clocks_load()      reads the run directory (clocks_events.c, clocks_csv.c,
 *                      clocks_pcap.c) into a struct clocks_input: the failure
 *                      (t0, site, via, prefix, the site's own address), the
 *                      events that matter, the request packets of every
 *                      capture with their destination, the DNS queries that
 *                      reached authd, the client records. A malformed file is
 *                      an error naming the file and line.
 *   clocks_anycast(),  compute one scheme's struct clocks_result from the
 *   clocks_dns()       input, with no I/O (clocks_anycast.c, clocks_dns.c; what
 *                      the two share is in clocks_scheme.c).
 *   clocks_write_json(), clocks_print()
 *                      write clocks.json and the table (clocks_write.c).
 *
 *   clocks_verdict()   the self-checks (verdict.c): is the run to be trusted?
 *                      Each finding is a coded warning; some invalidate the
 *                      run (docs/clocks.md, "Verdict").
 *   clocks_budget(),   the error budget of the failed requests
 *   clocks_decay()     (clocks_budget.c), the decay curve (clocks_decay.c):
 *                      pure computations on a loaded run.
 *
 * clocks_analyse() does all of it, for `steerlab run` and `steerlab report`.
 *
 * The same clients send both kinds of flow, so every request is given to one
 * scheme by its client id (clocks_scheme_of): the anycast flow of client N
 * carries id N, its DNS-steered flow CLOCKS_DNS_CLIENT_BASE + N, and the
 * probers' probes carry 0 and belong to no scheme.
 *
 * Every time is in ns of CLOCK_REALTIME, the base that events and pcap
 * timestamps share. A clock that did not happen (the prober never declared
 * the site dead, ...) is CLOCKS_NONE: JSON null, "-" in the table, and a
 * warning; never a made-up number.
 */
#ifndef STEERLAB_CLOCKS_H
#define STEERLAB_CLOCKS_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "wire.h"

#define CLOCKS_NONE INT64_MIN
#define CLOCKS_NA (INT64_MIN + 1) /* not a measure of this scheme: no JSON key, "n/a" */
#define CLOCKS_NAME_MAX 64
#define CLOCKS_DNS_NAME_MAX 256 /* a DNS name in text, with its final dot */
#define CLOCKS_MAX_WARNINGS 64
#define CLOCKS_WARNING_LEN 512
#define CLOCKS_CODE_LEN 32
#define CLOCKS_MAX_SITES 64
#define CLOCKS_MAX_CLIENTS 256
#define CLOCKS_MAX_ADDRS 64		     /* IPv4 addresses in one answer_changed list */
#define CLOCKS_CLIENT_TIMEOUT_NS 500000000LL /* the topology's default timeout */

/*
 * The client ids of the two schemes. The lab gives a client node's
 * DNS-steered flow the id LAB_DNS_CLIENT_ID(N) = 100000 + N (lab/build/lab.h) and
 * its anycast flow N, counting from 1; this mirrors it, and the unit tests
 * check that the two agree. Id 0 is the probers' (docs/agents.md). A
 * population's logical clients have ids with the top bit set (lib/wire.h,
 * WIRE_POP_ID), their flow in bit 30.
 */
#define CLOCKS_DNS_CLIENT_BASE 100000u
#define CLOCKS_PROBE_CLIENT 0u

enum clocks_scheme {
	CLOCKS_SCHEME_NONE, /* a prober's probe */
	CLOCKS_SCHEME_ANYCAST,
	CLOCKS_SCHEME_DNS,
};

/* clocks_scheme_of: the scheme whose flow carries client id client. (Inline:
 * the analysis asks it of every captured request, several times.) */
static inline enum clocks_scheme clocks_scheme_of(uint32_t client)
{
	if (client == CLOCKS_PROBE_CLIENT)
		return CLOCKS_SCHEME_NONE;
	return wire_is_dns(client) ? CLOCKS_SCHEME_DNS : CLOCKS_SCHEME_ANYCAST;
}

/*
 * Notes for the reader of the results: what is missing, what a self-check
 * found, and why. Each has a code (docs/clocks.md lists them) and
 * invalidates the run or not; a run with one invalidating note is not valid.
 */
struct clocks_warning {
	char code[CLOCKS_CODE_LEN];
	int invalidates;
	char msg[CLOCKS_WARNING_LEN];
};

struct clocks_notes {
	struct clocks_warning w[CLOCKS_MAX_WARNINGS];
	int n;
	int lost;    /* warnings past CLOCKS_MAX_WARNINGS */
	int invalid; /* invalidating ones, kept or lost */
};

/* clocks_warn: a note that does not invalidate the run; clocks_invalid: one
 * that does */
void clocks_warn(struct clocks_notes *notes, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void clocks_invalid(struct clocks_notes *notes, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define CLOCKS_MAX_FAIL_ROUTES 256 /* a lab's routers */

/* The injected failure: lab.events.jsonl's site_failed (or, for a site
 * taken out again after its recovery, that step's event_applied). */
struct clocks_failure {
	int64_t t0_ns;
	char site[CLOCKS_NAME_MAX];
	char name[CLOCKS_NAME_MAX]; /* the [event] (site_failed's cause); "" if not said */
	struct in_addr via;	    /* the site's link address: the route's next hop */
	struct in_addr prefix;	    /* the service prefix */
	int prefixlen;
	int has_address;	/* 0: a run from before site_failed had it */
	struct in_addr address; /* the site's own (unicast) address */
	int64_t killed_ns;	/* when kill() returned; CLOCKS_NONE: not recorded */
	/* how the site failed: sigkill (also before the timeline), crash,
	 * freeze, drain (it goes on answering), link-down (its link cut) */
	char how[CLOCKS_NAME_MAX];
	/* when the timeline brought the site back (its first recover, undrain,
	 * link-up or flap up after t0); 0: it did not. Requests that reach it
	 * from then on are answered: not the failure's. */
	int64_t recovered_ns;
	/* how far fail_jitter moved the failure past fail_at (nominal_at_ns,
	 * from the traffic's start); CLOCKS_NONE: not recorded (a run from
	 * before the jitter) */
	int64_t jitter_offset_ns, nominal_at_ns;
	/* site_failed's "routes": the failed site's anycast route in every
	 * router (runs of several routers; none before them) */
	int nroutes;
	struct clocks_fail_route {
		char router[CLOCKS_NAME_MAX];
		struct in_addr via;
		int64_t metric;
	} routes[CLOCKS_MAX_FAIL_ROUTES];
};

/* A step of the run's timeline (lab.events.jsonl's event_applied): the
 * site it acts on ("" if none) and the next hops whose routes it may take
 * away. The verdict does not call what the timeline did a failure. */
struct clocks_hit {
	int64_t t_ns;
	char name[CLOCKS_NAME_MAX];   /* the [event] */
	char action[CLOCKS_NAME_MAX]; /* kill, crash, ..., recover */
	char site[CLOCKS_NAME_MAX];
	char target[2 * CLOCKS_NAME_MAX]; /* a node, or a link "R1 R2"; "" if not said */
	char kind[16];			  /* site, dns, resolver, link; "" if not said */
	int up;	   /* it brings its target back: recover, undrain, *-up, a flap's up */
	int link;  /* its target is a link (kind "link") */
	int cycle; /* a flap's cycle, from 1; 0 otherwise */
	/* the step's instant as applied (fail_jitter included) and as written,
	 * from the clients' start; CLOCKS_NONE: not recorded */
	int64_t at_ns, nominal_at_ns;
	int nvias;
	struct in_addr vias[CLOCKS_MAX_ADDRS];
};

/* declared_dead, from the probers' events; node is the prober's node (the
 * NODE of NODE.prober.events.jsonl): the site itself for a site's prober */
struct clocks_dead {
	int64_t t_ns;
	char site[CLOCKS_NAME_MAX];
	char node[CLOCKS_NAME_MAX];
};

/* route_deleted (deleted = 1) and route_added, from the collectors' events:
 * one kernel notification of the route (every next hop of a multipath one) */
#define CLOCKS_MAX_NEXTHOPS 16
#define CLOCKS_DEV_MAX 16

enum clocks_route_op {
	CLOCKS_OP_ADD, /* route_added without "op" (an older collector) too */
	CLOCKS_OP_REPLACE,
	CLOCKS_OP_APPEND,
	CLOCKS_OP_DEL,	   /* route_deleted */
	CLOCKS_OP_PRESENT, /* in the FIB when the collector started */
};

struct clocks_nexthop {
	int has_via;
	struct in_addr via;
	char dev[CLOCKS_DEV_MAX]; /* "" if not said */
};

struct clocks_route {
	int64_t t_ns;
	char node[CLOCKS_NAME_MAX]; /* the router whose collector saw it */
	int has_metric;
	int64_t metric;
	int deleted;
	enum clocks_route_op op;
	int protocol; /* RTPROT_*; -1 if not said */
	struct in_addr prefix;
	int prefixlen;
	int has_via; /* the first next hop's */
	struct in_addr via;
	int nnh; /* next hops: 1, or a multipath route's */
	struct clocks_nexthop nh[CLOCKS_MAX_NEXTHOPS];
	/* read after the collector's loop had not run for this long: the
	 * change may be that much older than t_ns (0: not said) */
	int64_t stalled_ns;
};

/* lab_up's "addresses": which node has each link address and router id,
 * so a FIB's next hop leads to a site or to the next router */
struct clocks_addr_node {
	struct in_addr addr;
	char node[CLOCKS_NAME_MAX];
	int is_site, is_router;
};

/* capture_stats of one link; known = 0 when the collector had no counts;
 * written (the packets the collector wrote to the pcap) is CLOCKS_NONE
 * when the collector did not say */
struct clocks_link_stats {
	char label[CLOCKS_NAME_MAX];
	char node[CLOCKS_NAME_MAX]; /* the collector's */
	int known;
	int64_t packets, received, dropped, if_dropped;
	int64_t written;
};

/* a collector's capture_error: a pcap write failed, the capture stopped */
struct clocks_capture_error {
	int64_t t_ns;
	char node[CLOCKS_NAME_MAX];
	char label[CLOCKS_NAME_MAX];
	char file[2 * CLOCKS_NAME_MAX]; /* "" if not said */
	int err;			/* errno; 0 if not said */
	char error[128];		/* strerror's text */
};

/* a router's collector lost route notifications (route_monitor_overrun:
 * the kernel dropped some, ENOBUFS) or stopped reading them
 * (route_monitor_error): the FIB's changes from then on are incomplete */
struct clocks_monitor_loss {
	int64_t t_ns;
	char node[CLOCKS_NAME_MAX];
	int stopped; /* route_monitor_error; else an overrun */
};

/* lab.events.jsonl's agent_exited: an agent ended before the teardown */
struct clocks_exit {
	int64_t t_ns;
	char node[CLOCKS_NAME_MAX];
	char agent[CLOCKS_NAME_MAX]; /* its label: sited, client-dns, collector-dns */
	int64_t pid;
	int has_code, code;  /* exit status, if it exited */
	int has_signal, sig; /* the signal that ended it, if one did */
	int expected;
};

/* routed's or authd's control_rejected: control messages dropped */
struct clocks_rejected {
	int64_t t_ns;
	char node[CLOCKS_NAME_MAX];
	char agent[CLOCKS_NAME_MAX];
	char from[64];
	char reason[128];
	int64_t count;
};

/* a client flow, from its NODE.client*.events.jsonl: client_started (what
 * it was told) and client_summary (what it did) */
struct clocks_client {
	char node[CLOCKS_NAME_MAX];
	char agent[CLOCKS_NAME_MAX]; /* client, client-dns */
	uint32_t id;
	double rate;	    /* requests per second it was told; 0: unknown */
	int64_t started_ns; /* CLOCKS_NONE: no client_started */
	int64_t summary_ns; /* CLOCKS_NONE: no client_summary (it was killed) */
	int64_t sent, lost, late;
	int64_t sending_ns;		/* how long its sends took (client_summary); 0: unknown */
	char resolver[CLOCKS_NAME_MAX]; /* client_started's; "" for none */
	int64_t population;		/* client_started's: its logical clients; 0: one user */
	/* client_started's: how long it keeps an address whatever the TTL
	 * (0: not sticky), and the share of a population that does */
	int64_t sticky_ns;
	double sticky_share;
};

/* a DNS client's resolution (its dns_resolution event): the outcome of one
 * query, at the instant the query left (the event's t - latency_ns) */
enum clocks_dns_outcome {
	CLOCKS_DNS_FRESH,
	CLOCKS_DNS_STALE,
	CLOCKS_DNS_SERVFAIL,
	CLOCKS_DNS_RCODE, /* another response without an address */
	CLOCKS_DNS_TIMEOUT,
	CLOCKS_DNS_OUTCOMES,
};

struct clocks_resolution {
	int64_t sent_ns;
	uint32_t client;
	enum clocks_dns_outcome outcome;
};

/* a DNS client's dns_answer: from t_ns on it sends to addr, which it keeps
 * for ttl_s (or its sticky time); stale: the resolution that brought it
 * was a serve-stale answer (EDE 3) */
struct clocks_dns_answer {
	int64_t t_ns;
	uint32_t client;
	struct in_addr addr;
	int64_t ttl_s;
	int stale;
};

/* authd's health_changed: its verdict on a site */
struct clocks_health {
	int64_t t_ns;
	char site[CLOCKS_NAME_MAX];
	int healthy;
};

/* authd's answer_changed: what a name hands out, before and after; only
 * the IPv4 addresses of the lists are kept */
struct clocks_answer {
	int64_t t_ns;
	char name[CLOCKS_DNS_NAME_MAX];
	int nbefore, nafter;
	struct in_addr before[CLOCKS_MAX_ADDRS];
	struct in_addr after[CLOCKS_MAX_ADDRS];
};

/* one request datagram seen in a capture. A capture holds millions and the
 * analysis goes over them several times: 20 bytes each, packed to 4-byte
 * alignment (the 64-bit time is then read unaligned, at no cost on x86 and
 * arm64), and of the 64-bit sequence number only the low 32 bits, which the
 * clocks do not use. */
struct clocks_packet {
	int64_t t_ns;
	uint32_t client;
	uint32_t seq;	    /* low 32 bits */
	struct in_addr dst; /* the anycast address, or a site's own address */
} __attribute__((packed, aligned(4)));

/* the request packets of capture-LABEL.pcap, in file order */
struct clocks_capture {
	char label[CLOCKS_NAME_MAX];
	struct clocks_packet *packets;
	size_t n, cap;
	size_t other;	/* captured packets that are not requests */
	size_t records; /* every packet record of the file */
	int truncated;	/* the file ends cut short or damaged */
	/* the latest time of a scheme's request (not a probe's) among
	 * packets[0 .. last_of_n), noted by the reader as it keeps them, so
	 * that clocks_observation_end makes no pass over millions of packets;
	 * a capture filled otherwise (last_of_n != n) is looked through */
	int64_t last_request_ns;
	size_t last_of_n;
};

/* one DNS query that reached an authd link */
struct clocks_query {
	int64_t t_ns;
	struct in_addr src; /* who asked: a resolver, or a client asking directly */
};

/* the queries of capture-dns-NODE.pcap (label dns-NODE), in file order */
struct clocks_query_capture {
	char label[CLOCKS_NAME_MAX];
	struct clocks_query *queries;
	size_t n, cap;
	size_t other; /* captured packets that are not UDP DNS queries */
	size_t records;
	int truncated;
};

/* capture-link-R1-R2.pcap (label link-R1-R2): a router-to-router link,
 * captured for BGP (TCP port 179); its packets are not requests and are
 * only counted, for the verdict's checks of the file */
struct clocks_link_capture {
	char label[CLOCKS_NAME_MAX];
	size_t records;
	int truncated;
};

/* one DNS message over UDP seen on a router's link to a [resolver] node:
 * a client's query to a cache, the cache's answer, or a query of the cache
 * to the servers above it and their answer */
struct clocks_dnsmsg {
	int64_t t_ns;
	struct in_addr src, dst;
	uint16_t sport, dport;
	uint16_t id;   /* the DNS header's */
	uint8_t qr;    /* 1: a response */
	uint8_t rcode; /* the header's (4 bits) */
};

/* capture-resolver-NODE.pcap (label resolver-NODE): the DNS messages of
 * [resolver] node NODE's link, in file order */
struct clocks_rsv_capture {
	char label[CLOCKS_NAME_MAX];
	struct clocks_dnsmsg *msgs;
	size_t n, cap;
	size_t other; /* captured packets that are not UDP DNS messages */
	size_t records;
	int truncated;
};

/*
 * The DNS side of the run's recorded topology (topology.ini, read by
 * clocks_topo.c): the [resolver] nodes in file order (the k-th has
 * 198.18.(128 + k).0/24, cache i at .i: CLOCKS_RSV_BLOCK), their impl when
 * the topology says one; the [dns] nodes with their level in the DNS tree
 * (clocks_dns_level); the clients and the [resolver] node each asks.
 */
#define CLOCKS_MAX_RSV_NODES 128 /* 198.18.128.0/24 .. 198.18.255.0/24 */
#define CLOCKS_MAX_DNS_NODES 64
#define CLOCKS_MAX_TOPO_CLIENTS 256
#define CLOCKS_RSV_BLOCK(k)                                                                        \
	(0xc6128000u + ((uint32_t)(k) << 8)) /* 198.18.(128+k).0, host order                       \
					      */

enum clocks_level {
	CLOCKS_LEVEL_ROOT, /* serves "." */
	CLOCKS_LEVEL_TLD,  /* a zone of one label */
	CLOCKS_LEVEL_ZONE, /* any other */
	CLOCKS_LEVELS,
};

extern const char *const clocks_level_names[CLOCKS_LEVELS]; /* "root", "tld", "zone" */

struct clocks_topo_dns {
	int nrsv;
	struct clocks_rsv_node {
		char name[CLOCKS_NAME_MAX];
		char impl[CLOCKS_NAME_MAX]; /* its impl key; "" when the topology has none */
		int count;		    /* caches; 0 if not said */
	} rsv[CLOCKS_MAX_RSV_NODES];
	int ndns;
	struct clocks_dns_node {
		char name[CLOCKS_NAME_MAX];
		enum clocks_level level;
	} dns[CLOCKS_MAX_DNS_NODES];
	int nclients;
	struct clocks_topo_client {
		char name[CLOCKS_NAME_MAX];
		int rsv;		      /* the [resolver] node it asks (index), -1: none */
		char router[CLOCKS_NAME_MAX]; /* its link key: its router; "" unknown */
	} clients[CLOCKS_MAX_TOPO_CLIENTS];
	/* the [name] sections: each steered name and its TTL (-1: not said) */
	int nnames;
	struct clocks_topo_name {
		char name[CLOCKS_DNS_NAME_MAX];
		int64_t ttl_s;
	} names[CLOCKS_MAX_DNS_NODES];
};

/* clocks_dns_level: the level of a [dns] node serving the n zones (names
 * in text, final dot or not): root if one is ".", else tld if one has a
 * single label, else zone (also for n = 0). A node serving several levels
 * is given the highest. */
enum clocks_level clocks_dns_level(const char *const *zones, int n);

struct clocks_input;

/* clocks_rsv_of_addr: the [resolver] node (index) whose block holds a,
 * -1 if none does */
int clocks_rsv_of_addr(const struct clocks_input *in, struct in_addr a);

/* clocks_rsv_of_client: the [resolver] node (index) that DNS client id
 * client asks: its node's [client] resolver key, else its client_started
 * resolver address; -1 if none */
int clocks_rsv_of_client(const struct clocks_input *in, uint32_t client);

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
	/* measured (clocks_impair_measure): its requests answered by site
	 * before t0, and their RTT's p50 (CLOCKS_NONE: none) */
	int64_t n;
	int64_t p50_ns;
	int mismatch; /* p50 and rtt differ by more than the tolerance */
};

struct clocks_input {
	char lab[CLOCKS_NAME_MAX];
	uint16_t port; /* the request port, for telling requests in captures */
	struct clocks_failure failure;
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
	/* traffic_started's seed and fail_jitter_ns (lab/topology/jitter.h):
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
	struct clocks_addr_node *addrs; /* lab_up's addresses; none before them */
	size_t naddrs, capaddrs;
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
	size_t nauthd_files; /* *.authd.events.jsonl read */
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

	struct clocks_notes notes; /* from loading: truncated files, ... */
	/* every failure's clocks when there are several, computed once for
	 * the verdict, clocks.json and the table (clocks_multi_prepare); NULL:
	 * each of them computes its own */
	struct clocks_multi *multi;
};

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

/*
 * What a scheme's failure costs against an error budget (clocks_budget.c): the
 * failed requests as an equivalent downtime (failed / the scheme's mean
 * request rate), beside the window, each as a share of the monthly budget
 * of a stated SLO (99.9 %: 43.2 min in a 30-day month). A count that is
 * unknown is CLOCKS_NONE; a ratio that is unknown is negative.
 */
#define CLOCKS_MONTH_S (30.0 * 86400.0)
#define CLOCKS_SLO_DEFAULT 99.9

struct clocks_budget {
	double slo_pct;			    /* e.g. 99.9 */
	double budget_s;		    /* (100 - slo_pct) % of CLOCKS_MONTH_S */
	int64_t sent, failed;		    /* records; failed = lost (client) + errors */
	int64_t traffic_ns;		    /* how long the clients sent */
	double rate_per_s;		    /* sent / traffic time */
	double downtime_s;		    /* failed / rate_per_s */
	int64_t window_ns;		    /* the scheme's window */
	int64_t window_sent, window_failed; /* records sent in (t0, t0 + window] */
	double window_lost;		    /* window_failed / window_sent */
	double share_downtime;		    /* downtime_s / budget_s */
	double share_window;		    /* window / budget_s */
};

/*
 * The FIB clocks (clocks_fib.c; docs/clocks.md, "FIB clocks"): what every
 * router's route to the service did after t0, from its collector's route
 * events, whatever the protocol that installed it; and the catchments
 * (clocks_catch.c): which site each anycast client reached before t0 and
 * after the routers converged.
 */
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

/*
 * The flap clocks (clocks_flap.c; docs/clocks.md, "Flap clocks"): for each
 * flap of the timeline, per router, its route changes of the service prefix
 * from the flap's first down to the end of the run, and, for a flap of a
 * site (or of a site's link), after each up whether the router's route
 * came back to the site within CLOCKS_FLAP_NORMAL_NS (the normal
 * convergence time) or was suppressed until later (route-flap damping).
 */
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

/*
 * The DNS outage clocks (clocks_outage.c; docs/clocks.md, "DNS outage
 * clocks"): for each dns-down and resolver-down of the timeline, from it to
 * the end of the observation, per resolver (the DNS clients' resolver, from
 * client_started), the clients' resolutions by outcome, in buckets of
 * CLOCKS_OUTAGE_BUCKET_NS from the outage, and in total while it lasted
 * (until its dns-up, resolver-up or recover; else the end).
 */
#define CLOCKS_MAX_OUTAGES 8
#define CLOCKS_MAX_OUTAGE_RESOLVERS 16
#define CLOCKS_OUTAGE_BUCKET_NS 1000000000LL
#define CLOCKS_OUTAGE_BUCKETS 120

struct clocks_outage_resolver {
	char resolver[CLOCKS_NAME_MAX]; /* "" when the clients did not say */
	int64_t during[CLOCKS_DNS_OUTCOMES];
	int64_t b[CLOCKS_OUTAGE_BUCKETS][CLOCKS_DNS_OUTCOMES];
};

struct clocks_outage {
	char name[CLOCKS_NAME_MAX];
	char action[CLOCKS_NAME_MAX];
	char target[2 * CLOCKS_NAME_MAX];
	int64_t from_ns, until_ns; /* until: CLOCKS_NONE, not over before the end */
	int nbuckets;		   /* from from_ns to the end of the observation */
	int nresolvers;
	struct clocks_outage_resolver r[CLOCKS_MAX_OUTAGE_RESOLVERS];
};

struct clocks_outages {
	int n;
	struct clocks_outage o[CLOCKS_MAX_OUTAGES];
};

extern const char *const clocks_dns_outcome_names[CLOCKS_DNS_OUTCOMES];

/* clocks_outages: the DNS outage clocks of in into *out (a large struct:
 * allocate it); pure computation */
void clocks_outages(const struct clocks_input *in, struct clocks_outages *out);

/* a client's last request to the dead site after t0 (0: none) */
struct clocks_client_last {
	uint32_t client;
	int64_t last_ns;
	int cut; /* still sending to the dead site when the observation ended */
};

/*
 * A population's per-client clocks, summarised (clocks_pop.c; docs/clocks.md,
 * "Populations"): its logical clients' last request to the dead site after
 * t0, over all of them (0 for those that sent none, as last_per_client), as
 * quantiles, counts and the slowest CLOCKS_POP_SLOWEST named. clocks.json
 * lists a process client's value by its id; a population of 10,000 is this
 * instead: the summary is intended, not a loss.
 */
#define CLOCKS_POP_SLOWEST 10
#define CLOCKS_MAX_POPS 64

struct clocks_pop {
	uint32_t base;		    /* WIRE_POP_ID(node, flow, 0): its agent's id */
	char node[CLOCKS_NAME_MAX]; /* from its agent's client_started; "" if unknown */
	int64_t clients, sent_after_t0, cut;
	/* nearest-rank quantiles over the logical clients (p999: 99.9 %) */
	int64_t p50_ns, p90_ns, p99_ns, p999_ns, max_ns;
	/* each a lower bound: a cut client's value is at or below it */
	int lb_p50, lb_p90, lb_p99, lb_p999, lb_max;
	int nslowest;
	struct clocks_client_last slowest[CLOCKS_POP_SLOWEST]; /* the largest first */
};

/* clocks_pop_of: whether client is a population's logical client */
static inline int clocks_pop_of(uint32_t client)
{
	return (client & WIRE_POP_BIT) != 0;
}

/* clocks_pops: summarise the populations among by[0..n) (sorted by client
 * id) into pops[0..max), node names from in's clients. The number of
 * populations (at most max; more are counted in *lost), or -1 when out of
 * memory. Pure computation. */
int clocks_pops(const struct clocks_input *in, const struct clocks_client_last *by, size_t n,
		struct clocks_pop *pops, int max, int *lost);

/* One scheme's clocks. Times relative to t0 unless named _at_ns. A field
 * that is not a measure of the scheme is CLOCKS_NA. */
struct clocks_result {
	const char *scheme; /* "anycast", "dns" */
	int64_t detect_ns, detect_at_ns;
	int detect_by_hold; /* anycast: detect is a routed's route_expired */
	int64_t steer_ns, steer_at_ns;
	int64_t window_ns;
	int64_t sent, ok, lost_client, errors; /* CLOCKS_NONE: no CSV */
	int64_t lost_capture;		       /* CLOCKS_NONE: no capture */
	int64_t capture_drops;		       /* CLOCKS_NONE: no capture_stats */
	struct clocks_dist last_packet;	       /* clients that sent to the dead site after t0 */
	struct clocks_dist last_per_client;    /* every client of the scheme, 0 if none */
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
	int64_t upstream_queries;		   /* CLOCKS_NONE: no query capture */
	int64_t traffic_ns;			   /* for per second; CLOCKS_NONE: unknown */
	struct clocks_addr_count *resolvers;	   /* queries per source address, by address */
	size_t nresolvers;
	/* anycast only (NULL for dns): the FIB clocks and the catchments */
	struct clocks_fib *fib;
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
	} failback;
	struct clocks_notes notes;
};

/*
 * Every failure of the timeline (clocks_multi.c; docs/clocks.md, "Every
 * failure"): the clocks of each of in->failures, per scheme, computed by
 * clocks_anycast and clocks_dns on a copy of the input whose failure is
 * that one, so each is relative to its own t0 and its window ends at its
 * site's recovery. lost_client is the failure's own: the scheme's requests
 * the clients lost that were captured on its site's link while it was out.
 */
#define CLOCKS_MAX_FAILURES 16

struct clocks_failure_clocks {
	const struct clocks_failure *f;
	struct clocks_result res[2]; /* anycast, dns */
};

struct clocks_multi {
	int n;
	int lost; /* failures past CLOCKS_MAX_FAILURES */
	struct clocks_failure_clocks fc[CLOCKS_MAX_FAILURES];
};

/* clocks_multi: the clocks of every failure of in into *m (a large struct:
 * allocate it); pure computation. 0, or -1 (out of memory). Free with
 * clocks_multi_free. */
int clocks_multi(const struct clocks_input *in, struct clocks_multi *m);
void clocks_multi_free(struct clocks_multi *m);

/* clocks_multi_prepare: with several failures, their clocks computed once
 * into in->multi (freed by clocks_input_free), for every later reader: each
 * is a full pass of both schemes over the captures. Call it once the input
 * is loaded and before the verdict. Nothing for a single failure (its clocks
 * are the run's), nor when out of memory (each reader computes its own). */
void clocks_multi_prepare(struct clocks_input *in);

/* clocks_multi_print: the table "every failure of the timeline", when the
 * run has more than one failure */
void clocks_multi_print(FILE *out, const struct clocks_input *in, const struct clocks_multi *m);

/*
 * clocks_analyse: read the run directory rundir, compute the clocks and the
 * verdict, write rundir/clocks.json and print a table to out. Returns 0 for
 * a valid run, CLOCKS_INVALID for a run the verdict invalidates, or -1
 * after logging an error that names the file and what is wrong.
 */
#define CLOCKS_INVALID 1
int clocks_analyse(const char *rundir, FILE *out);

/* clocks_load: read rundir into *in (which it initialises). Returns 0, or
 * -1 with "FILE:LINE: what is wrong" in err. Free with clocks_input_free
 * either way. */
int clocks_load(const char *rundir, struct clocks_input *in, char *err, size_t errlen);
void clocks_input_free(struct clocks_input *in);

/* clocks_input_init: an empty input (what clocks_load starts from), for
 * building one by hand. */
void clocks_input_init(struct clocks_input *in);

/* clocks_anycast, clocks_dns: one scheme's clocks of in into *r; pure
 * computation. Free *r with clocks_result_free. */
void clocks_anycast(const struct clocks_input *in, struct clocks_result *r);
void clocks_dns(const struct clocks_input *in, struct clocks_result *r);
void clocks_result_free(struct clocks_result *r);

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

/*
 * The verdict (verdict.c): the self-checks of docs/clocks.md, "Verdict",
 * computed from the loaded run and its schemes' results, with no I/O. Each
 * finding goes to *v as a coded warning, invalidating or not. The run is
 * valid when no note of in, of any result or of *v invalidates it
 * (clocks_valid).
 */
#define CLOCKS_LOSS_SHARE 0.01	/* loss_mismatch: 1 % of the larger count */
#define CLOCKS_LOSS_ABS 10	/* ... and more than this many requests */
#define CLOCKS_RATE_BEHIND 0.02 /* client_behind: more than 2 % behind */
/* client_stalled: a gap in a client's sends around t0 or its switch of
 * more than this many of its request intervals, and more than this long */
#define CLOCKS_GAP_INTERVALS 2.0
#define CLOCKS_GAP_MIN_NS 100000000LL
#define CLOCKS_CUT_GUARD_NS 100000000LL /* window_cut: at least 100 ms */

void clocks_verdict(const struct clocks_input *in, const struct clocks_result *res, int nres,
		    struct clocks_notes *v);

/* clocks_impair_measure: in's configured paths (in->impair) into out
 * (in->nimpair of them), each with its measure: the requests of the
 * client's flows (both schemes, a population's too) the site answered
 * (status ok) sent before t0, their RTT's p50, and mismatch when it
 * differs from the configured RTT by more than max(CLOCKS_IMPAIR_TOL_NS,
 * CLOCKS_IMPAIR_TOL_SHARE of it); a path configured at 0 is not judged.
 * 0, or -1 (out of memory). clocks_impair_verdict: impairment_mismatch
 * (invalidating) for each such path into v. */
int clocks_impair_measure(const struct clocks_input *in, struct clocks_impair_path *out);
void clocks_impair_verdict(const struct clocks_input *in, struct clocks_notes *v);

/* clocks_impair_loss: the requests of scheme's flows a configured loss
 * may explain: the 99 % upper bound of a binomial count, each request of
 * a client node drawn with its paths' highest configured loss; 0 when no
 * path is lossy. */
int64_t clocks_impair_loss(const struct clocks_input *in, enum clocks_scheme scheme);

/* clocks_warnings: every note of v (may be NULL), in and the schemes
 * present in res, the invalidating ones first, each once, as pointers
 * into them: at most max in out, the others counted in *lost. The count. */
#define CLOCKS_MAX_SCHEMES 4
#define CLOCKS_MAX_LIST ((2 + CLOCKS_MAX_SCHEMES) * CLOCKS_MAX_WARNINGS)
int clocks_warnings(const struct clocks_input *in, const struct clocks_result *res, int nres,
		    const struct clocks_notes *v, const struct clocks_warning **out, int max,
		    int *lost);

/* clocks_valid: no note of in, res[0..nres) or v (may be NULL) invalidates */
int clocks_valid(const struct clocks_input *in, const struct clocks_result *res, int nres,
		 const struct clocks_notes *v);

/* clocks_budget: the error budget of scheme result r (computed from in)
 * at slo_pct (0 < slo_pct < 100) into *b; pure arithmetic. */
void clocks_budget(const struct clocks_input *in, const struct clocks_result *r, double slo_pct,
		   struct clocks_budget *b);

/* clocks_write_json: write the results (nres schemes), the verdict v and
 * the explanation ex (NULL: none; "explain", and each scheme's decay at
 * its marks) to name in the directory dirfd (dir its path, for messages), through a
 * temporary file renamed into place (lib/atomicfile.h). 0, or -1 with the
 * reason in err. */
struct clocks_explain;
int clocks_write_json(int dirfd, const char *dir, const char *name, const struct clocks_input *in,
		      const struct clocks_result *res, int nres, const struct clocks_notes *v,
		      const struct clocks_explain *ex, char *err, size_t errlen);

/* clocks_print: the readable table, one column per scheme present: its
 * title (the failure), the warnings (clocks_print_warnings), the table and
 * its legend, then the verdict (clocks_print_verdict). */
void clocks_print(FILE *out, const struct clocks_input *in, const struct clocks_result *res,
		  int nres, const struct clocks_notes *v);

/* clocks_print_table: as clocks_print, with the warnings only if flags has
 * CLOCKS_PRINT_WARNINGS and the verdict only if it has
 * CLOCKS_PRINT_VERDICT: each is said once, where the caller wants it */
#define CLOCKS_PRINT_WARNINGS 1
#define CLOCKS_PRINT_VERDICT 2
void clocks_print_table(FILE *out, const struct clocks_input *in, const struct clocks_result *res,
			int nres, const struct clocks_notes *v, int flags);

/* clocks_print_warnings: nothing for a valid run without warnings; else a
 * line with their count (an invalid run's: *** INVALID RUN: N self-checks
 * failed ... ***), then one line per warning, the invalidating ones first,
 * each once */
void clocks_print_warnings(FILE *out, const struct clocks_input *in,
			   const struct clocks_result *res, int nres, const struct clocks_notes *v);

/* clocks_print_verdict: the verdict in one line, the warnings counted, not
 * said again; an invalid run's names the codes that invalidate it */
void clocks_print_verdict(FILE *out, const struct clocks_input *in, const struct clocks_result *res,
			  int nres, const struct clocks_notes *v);

/* the causes that hold a client at the dead site (clocks_explain.c) */
enum clocks_cause {
	CLOCKS_CAUSE_DETECT,
	CLOCKS_CAUSE_HOLD,
	CLOCKS_CAUSE_ROUTING,
	CLOCKS_CAUSE_RESOLVER,
	CLOCKS_CAUSE_STALE,
	CLOCKS_CAUSE_CLIENT,
	CLOCKS_CAUSE_STICKY,
	CLOCKS_CAUSE_NOANSWER,
	CLOCKS_CAUSE_OTHER,
	CLOCKS_CAUSES,
};

/*
 * The decay curve (clocks_decay.c; docs/clocks.md, "Decay"): per time bucket
 * after t0, each scheme's requests still sent to the dead site. A clock's
 * computation, as it counts exactly the requests the window does; the report
 * draws and tabulates it.
 */
#define CLOCKS_NSCHEMES 2 /* anycast, dns: the order of the decay's series */
#define CLOCKS_MAX_BUCKETS 1000000

/* bucket k of a series holds the times t with t0 + k w < t <= t0 + (k+1) w:
 * clocks_bucket_of gives k for rel = t - t0 (any sign) and width w > 0 */
int64_t clocks_bucket_of(int64_t rel_ns, int64_t width_ns);

/* One scheme's decay curve: per bucket, its requests captured on the dead
 * site's link (to the dead site, as in the window) and on every site link.
 * known = 0: it cannot be told (no capture of the failed site; for dns, no
 * site address in site_failed). */
struct clocks_decay_series {
	int known;
	int64_t *dead, *all;
	/* the fail-back curve, when the timeline recovered the failed site
	 * (failure.recovered_ns; else NULL): per bucket, the scheme's requests
	 * captured on the site's link (to it, as in the fail-back clocks) from
	 * the recovery on */
	int64_t *back;
	/* dead by cause, when the decay was computed with an explanation
	 * (clocks_decay_explain; else NULL): dead[k] = the sum over the causes
	 * of cause[c][k] */
	int64_t *cause[CLOCKS_CAUSES];
};

struct clocks_decay {
	int64_t bucket_ns;
	int64_t end_ns; /* the end of the observation, relative to t0 */
	size_t n;	/* buckets, covering (t0, t0 + end_ns] */
	struct clocks_decay_series s[CLOCKS_NSCHEMES];
	/* the DNS curve of the clients of each [resolver] node (k-th of
	 * in->dnstopo), known as the DNS curve is; no fail-back curve */
	int nrsv;
	struct clocks_decay_series *rsv;
};

/* clocks_decay_auto_bucket: the bucket for an observation of obs_ns: the
 * largest of 1 s, 100 ms and 10 ms that gives at least 50 buckets (10 ms if
 * none does). */
int64_t clocks_decay_auto_bucket(int64_t obs_ns);

/* clocks_decay: the decay curves of in with buckets of bucket_ns (> 0) into
 * *d. 0, or -1 with the reason in err (too many buckets, no memory). Free
 * with clocks_decay_free either way. */
int clocks_decay(const struct clocks_input *in, int64_t bucket_ns, struct clocks_decay *d,
		 char *err, size_t errlen);
void clocks_decay_free(struct clocks_decay *d);

/* clocks_decay_marks: the times a decay table shows, after its start, up
 * to limit (ns after the start): 0.5 s, 1 s, 2 s, 5 s, 10 s (for an
 * observation of at most 2 min), 15 s, 30 s, ... 30 min, no finer than the
 * bucket, then the end of the last whole bucket if no mark is there (*end
 * set: the last mark is that one). At most CLOCKS_MAX_MARKS; how many. */
#define CLOCKS_MAX_MARKS 16
int clocks_decay_marks(const struct clocks_decay *d, int64_t limit, int64_t *marks, int *end);

/*
 * What held each scheme (clocks_explain.c; docs/clocks.md, "Explain"):
 * every request of a scheme that reached the dead site after t0 (those the
 * window and the decay count) is given the cause that held its client at
 * the dead site when it was sent, and who (a node, by name):
 *
 *   detection   anycast: before the site's own prober declared it dead
 *               (its probes still counting to their threshold); dns: the
 *               client's answer came after t0 and before authd stopped
 *               handing the site out, fresh (the probers counting)
 *   hold_timer  anycast, routing = static: before a router's hold timer
 *               expired the route of a site that withdrew nothing
 *   routing     anycast: after detection, while the client's router's
 *               route (followed through routers) still led to the site
 *   resolver_cache  dns: an answer the client's resolver cache gave within
 *               its TTL (who: the cache, "r1")
 *   serve_stale dns: a serve-stale answer (EDE 3) of the client's cache
 *   client_cache dns: a client asking authd itself, within the answer's TTL
 *   sticky      dns: a sticky client past its answer's TTL
 *   no_answer   dns: past the client's hold, its query not yet answered
 *   other       none of these could be told (a request in flight, a run
 *               without the clients' dns_answer events)
 *
 * Then each scheme's window is held by the cause of its last request, and
 * the scheme whose window is the shorter left first. Pure computation on
 * the loaded run, its results and one pass over the requests to the dead
 * site (within the decay's own pass: clocks_decay_explain).
 */
#define CLOCKS_EXPLAIN_MAX 64 /* (cause, who) per scheme; more are "other" */

struct clocks_cause_entry {
	enum clocks_cause cause;
	char who[CLOCKS_NAME_MAX];
	int64_t requests;	   /* to the dead site after t0 */
	int64_t first_ns, last_ns; /* after t0; CLOCKS_NONE: none */
	int untold;		   /* other: the client's dns_answer events are not in the run */
};

struct clocks_explain_map; /* clocks_explain.c's: each client's causes in time */

struct clocks_explain_scheme {
	int present; /* the scheme has flows and a capture of the site */
	int n;
	struct clocks_cause_entry e[CLOCKS_EXPLAIN_MAX];
	int64_t window_ns, lost;
	int held;	    /* the entry of the window's request; -1: none */
	int64_t without_ns; /* the latest request of any other entry; CLOCKS_NONE: none */
	int64_t detect_ns;  /* the scheme's detect, for the words; CLOCKS_NONE */
	struct clocks_explain_map *map;
};

#define CLOCKS_EXPLAIN_WORDS 8
#define CLOCKS_EXPLAIN_LINE 512

struct clocks_explain {
	struct clocks_explain_scheme s[CLOCKS_NSCHEMES];
	int first;	/* the scheme that left the site first (index); -1: not told */
	int tie;	/* both left within a millisecond */
	int64_t by_ns;	/* how much sooner */
	int back_first; /* after a recovery, the scheme back first; -1 */
	int64_t back_by_ns;
	int nwords;
	char words[CLOCKS_EXPLAIN_WORDS][CLOCKS_EXPLAIN_LINE]; /* the verdict, a line each */
	const struct clocks_decay *decay; /* the curves it was computed with (by cause) */
	int64_t recovered_ns;		  /* after t0; CLOCKS_NONE: not recovered */
};

extern const char *const clocks_cause_names[CLOCKS_CAUSES];
extern const char *const clocks_cause_labels[CLOCKS_CAUSES];

/* clocks_explain_init: the causes of in's clients in time, from the
 * schemes' results res[0..nres) (anycast, dns) into *ex. 0, or -1 (out of
 * memory). Free with clocks_explain_free either way. */
int clocks_explain_init(const struct clocks_input *in, const struct clocks_result *res, int nres,
			struct clocks_explain *ex);
void clocks_explain_free(struct clocks_explain *ex);

/* clocks_decay_explain: clocks_decay, each request to the dead site also
 * given its cause in ex (from clocks_explain_init): its counts, and d's
 * per-cause curves; then the verdict in words (ex->words). */
int clocks_decay_explain(const struct clocks_input *in, int64_t bucket_ns, struct clocks_decay *d,
			 struct clocks_explain *ex, const struct clocks_result *res, int nres,
			 char *err, size_t errlen);

/* clocks_steer_ttl_s: the TTL in seconds of the name whose answer changed
 * at the DNS steer (dns, its result), from topology.ini's [name]; -1 if
 * unknown */
int64_t clocks_steer_ttl_s(const struct clocks_input *in, const struct clocks_result *dns);

/* clocks_explain_print: the words, then a table of the causes: scheme,
 * cause, who, requests, first and last after t0 */
void clocks_explain_print(FILE *out, const struct clocks_input *in,
			  const struct clocks_explain *ex);

/*
 * The resolver measurements (clocks_resolvers.c; docs/clocks.md,
 * "Resolvers"), per [resolver] node of the recorded topology, from the
 * captures: its queries upstream per level of the DNS tree (the [dns] node
 * whose link they reached, clocks_dns_level), the share of its clients'
 * queries it answered from its cache (clocks_cache_classify, on its own
 * link's capture), and how its DNS clients left the dead site (their
 * requests to it after t0, the window, the decay curve).
 */

/* client queries to a node's caches, by how they were answered: from the
 * cache when no answer from upstream reached the cache asked between the
 * query's arrival and its answer (the answer did not wait for one) */
struct clocks_cache_counts {
	int64_t queries;    /* client queries that reached the node */
	int64_t answered;   /* of those, answered: cache + upstream + servfail */
	int64_t cache;	    /* answered with no upstream answer to its cache between */
	int64_t upstream;   /* answered after an upstream answer reached its cache */
	int64_t servfail;   /* answered SERVFAIL with no upstream answer between */
	int64_t unanswered; /* no answer (CLOCKS_CACHE_WAIT_NS) */
};

#define CLOCKS_CACHE_WAIT_NS (5 * 1000000000LL) /* a query not answered within it never is */

/* clocks_cache_classify: the client queries of m[0..n) (one node's link,
 * in time order) that arrived after from_ns (CLOCKS_NONE: all), classified
 * into *c. block: the node's /24 (host order, CLOCKS_RSV_BLOCK): a query to
 * an address in it from one outside is a client's, and a response from
 * that address to the query's source, port and id answers it; a response
 * from port 53 outside to an address in it is an upstream answer to that
 * cache (a cache is told by its address's last octet). by_cache (NULL, or
 * CLOCKS_RSV_CACHES of them) gets the same per cache, by that octet. 0, or
 * -1 (out of memory). Pure. */
#define CLOCKS_RSV_CACHES 256
int clocks_cache_classify(const struct clocks_dnsmsg *m, size_t n, uint32_t block, int64_t from_ns,
			  struct clocks_cache_counts *c, struct clocks_cache_counts *by_cache);

struct clocks_rsv_result {
	const struct clocks_rsv_node *node;
	int nclients; /* DNS client ids asking it (the first CLOCKS_MAX_CLIENTS kept) */
	uint32_t clients[CLOCKS_MAX_CLIENTS];
	int64_t users; /* the users behind them: a population's logical clients, else 1 each */
	/* its queries upstream, by level: all, and after t0; CLOCKS_NONE when
	 * the run has no query capture */
	int64_t up[CLOCKS_LEVELS], up_after[CLOCKS_LEVELS];
	/* its link's capture: has_capture 0, no capture-resolver-NODE.pcap */
	int has_capture;
	struct clocks_cache_counts cache, cache_after;
	/* its DNS clients' requests after t0 (before a recovery) captured on
	 * the dead site's link (to its address) and on every site link; the
	 * last one to the dead site (0: none); CLOCKS_NONE: unknown */
	int64_t dead_after, all_after, window_ns;
	/* its clients' requests that reached the dead site in the second
	 * before t0: did they use it when it failed? (CLOCKS_NONE as above) */
	int64_t dead_before;
};

struct clocks_resolvers {
	int n;
	struct clocks_rsv_result r[CLOCKS_MAX_RSV_NODES];
	/* queries upstream from no [resolver] node (a client asking authd) */
	int64_t other_up[CLOCKS_LEVELS], other_up_after[CLOCKS_LEVELS];
	int64_t traffic_ns, after_ns; /* for per second: traffic time, t0 to its end */
};

/* clocks_resolvers: the resolver measurements of in into *rs (a large
 * struct: allocate it). 0, or -1 (out of memory). */
int clocks_resolvers(const struct clocks_input *in, struct clocks_resolvers *rs);

/* clocks_resolvers_verdict: resolver_no_failover (a node whose DNS clients
 * saw no failover) into v */
void clocks_resolvers_verdict(const struct clocks_input *in, const struct clocks_resolvers *rs,
			      struct clocks_notes *v);

/* clocks_decode_request: if the frame (link type dlt, caplen bytes) is an
 * IPv4 UDP datagram to port whose payload is a wire request, fill *msg and
 * *dst (its destination address; dst may be NULL) and return 0; otherwise
 * -1. Checks every length. */
int clocks_decode_request(int dlt, const uint8_t *frame, size_t caplen, uint16_t port,
			  struct wire_msg *msg, struct in_addr *dst);

/* clocks_decode_query: if the frame is an IPv4 UDP datagram to port 53
 * holding at least a DNS header with QR = 0 (a query), fill *src (its
 * source address) and return 0; otherwise -1. */
int clocks_decode_query(int dlt, const uint8_t *frame, size_t caplen, struct in_addr *src);

#endif
