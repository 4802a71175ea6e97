/*
 * The records of a run's event files (docs/events.md) that the clocks
 * keep: the failure and the timeline's steps (lab.events.jsonl), the
 * probers', routers', collectors', clients' and authd's events. Read by
 * clocks_events.c into the loaded run (clocks_input.h); docs/clocks.md,
 * "Inputs", says which fields each takes.
 */
#ifndef STEERLAB_CLOCKS_EVENTS_H
#define STEERLAB_CLOCKS_EVENTS_H

#include <netinet/in.h>
#include <stdint.h>

#include "clocks_base.h"

#define CLOCKS_MAX_ADDRS 64 /* IPv4 addresses in one answer_changed list */

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
	/* the address family the failure took out (a dual lab's freeze of
	 * family = 6 or 4, site_failed's family): 6 or 4; 0 both, every
	 * other failure */
	int family;
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
	/* when the step was in place (event_applied's done_ns: a rule loaded,
	 * a process gone), t_ns being when it began; CLOCKS_NONE: not recorded */
	int64_t done_ns;
	int nvias;
	struct in_addr vias[CLOCKS_MAX_ADDRS];
	/* a DNS change: what it changed ("www.lab.example ttl 1s"; "": not one)
	 * and the serial authd answered (CLOCKS_NONE: not said) */
	char change[160];
	int64_t serial;
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

/* lab_up's "twins" (a lab of ip = dual): the service's and each site's
 * IPv6 address, and its IPv4 twin: the clocks count what went to the one
 * as what went to the other (docs/clocks.md, "IPv6") */
struct clocks_twin {
	struct in6_addr v6;
	struct in_addr v4;
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

#define CLOCKS_HTTP_NAME_MAX 48

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
	int tcp;			/* client_started's proto: tcp or http (a connection) */
	/* client_summary's family (a dual lab): requests answered over IPv6,
	 * over IPv4, and sent again over IPv4 (Happy Eyeballs: a request
	 * may reach a site's link twice) */
	int64_t ok6, ok4, fell_back;
	char family[8];	    /* client_started's: "4", "6", "dual" (a dual lab); "" */
	int64_t population; /* client_started's: its logical clients; 0: one user */
	/* client_started's: how long it keeps an address whatever the TTL
	 * (0: not sticky), and the share of a population that does */
	int64_t sticky_ns;
	double sticky_share;
	/* over HTTP, client_summary's: the client library ("libcurl/7.88.1")
	 * and the server that answered its first reply (a Server header); ""
	 * when not said */
	char http_library[CLOCKS_HTTP_NAME_MAX];
	char http_server[CLOCKS_HTTP_NAME_MAX];
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
	int64_t latency_ns; /* its latency_ns: from the query to the response */
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
	char node[CLOCKS_NAME_MAX]; /* the [dns] node whose verdict it is */
};

/* authd's answer_changed: what a name hands out, before and after; only
 * the IPv4 addresses of the lists are kept */
struct clocks_answer {
	int64_t t_ns;
	char node[CLOCKS_NAME_MAX]; /* the [dns] node that answers so */
	char name[CLOCKS_DNS_NAME_MAX];
	int nbefore, nafter;
	struct in_addr before[CLOCKS_MAX_ADDRS];
	struct in_addr after[CLOCKS_MAX_ADDRS];
};

/* authd's zone_changed: a DNS change of the timeline (docs/authd.md,
 * "Changes"); after: a set-ttl's or set-weight's new value, else
 * CLOCKS_NONE */
struct clocks_zone_change {
	int64_t t_ns;
	char name[CLOCKS_DNS_NAME_MAX];
	char what[16]; /* set-ttl, set-weight, add-record, remove-record */
	char site[CLOCKS_NAME_MAX];
	int64_t after;
	int64_t serial;
};

#endif
