/*
 * Topology files: what a lab is made of, parsed from INI (lib/inifile.h).
 *
 *   [lab]            name and lab-wide parameters (defaults for the nodes)
 *   [router core]    a router: forwards, runs routed and the collector
 *   [site a]         a site: runs sited and its prober, announces the service
 *   [client c1]      a client node: runs one client agent
 *   [dns ns]         runs authd, the authoritative server of the [zone]s
 *   [prober p1]      a vantage point: probes every site, reports to authd
 *   [resolver r]     caching resolvers: resolverd runs `count` caches
 *   [zone Z], [name N]  authd's, not nodes: kept as written (raw_sections)
 *   [event E]        the timeline: an action on a node or a link at an
 *                    instant of the traffic (struct topo_event)
 *
 * Every node but a router has `link = ROUTER`: one veth to that router.
 * Routers are linked to routers by [link R1 R2] sections, and must form one
 * connected graph; with [lab] routing = static, every router has static
 * routes along shortest paths (topology_paths.c); with routing = bgp, FRR
 * runs in every router and site (topology_bgp.c, lab/build/frrconf.c).
 * Addresses are assigned by lib/addrplan.h in link order
 * (docs/man/steerlab.ini.5, ADDRESSES): link i's router end and node end,
 * the k-th [resolver] node's block, whose caches listen on .1 .. .count on
 * the node's loopback.
 *
 * The parser checks everything before anything is built: an error names the
 * file, the line and what was expected, and the parse returns -1.
 */
#ifndef STEERLAB_TOPOLOGY_H
#define STEERLAB_TOPOLOGY_H

#include <netinet/in.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "addrplan.h"
#include "impair.h"

#define TOPO_NAME_MAX 12 /* lab and node names: [a-z0-9-], keeps ifnames short */
#define TOPO_MAX_NODES 256
#define TOPO_MAX_SETS 64

enum topo_kind {
	TOPO_ROUTER,
	TOPO_SITE,
	TOPO_CLIENT,
	TOPO_DNS,      /* runs authd, the authoritative server */
	TOPO_PROBER,   /* a vantage point: probes every site, reports to authd */
	TOPO_RESOLVER, /* caching resolvers: resolverd, one cache per address */
};

/* what a client's flows are steered by */
enum topo_mode {
	TOPO_MODE_ANYCAST, /* requests to [lab] service */
	TOPO_MODE_DNS,	   /* requests to what `resolver` answers for `name` */
	TOPO_MODE_BOTH,	   /* one flow of each, at `rate` each */
};

#define TOPO_DNS_NAME_MAX 253
#define TOPO_MAX_RAW 512
#define TOPO_TEXT_LEN 128

/* the [resolver] nodes' blocks (lib/addrplan.h): no site or service
 * address may be in them */
#define TOPO_MAX_RESOLVERS ADDRPLAN_RESOLVERS_MAX
#define TOPO_RESOLVER_COUNT_MAX 250
#define TOPO_MAX_RSV_PAIRS 1024

/* the routers' block (lib/addrplan.h): router link j ([link] sections in
 * file order) and the k-th [router]'s id, a /32 on its loopback. No site
 * or service address may be in it. */
#define TOPO_MAX_RLINKS 512
#define TOPO_MAX_ROUTERS 254
/* a router's default AS number: TOPO_ASN_BASE + its index (file order) */
#define TOPO_ASN_BASE 65001u
/* with several routers, a router installs a site's anycast route at
 * hops * TOPO_HOPS_METRIC + the site's metric: hops first */
#define TOPO_HOPS_METRIC 16777216u
#define TOPO_METRIC_MAX_MULTI (TOPO_HOPS_METRIC - 1)

/*
 * The timeline: [event NAME] sections (topology_events.c, docs/topology.md),
 * each an action on a target at an instant of the traffic. `fail = yes` on
 * a site with [lab] fail_at is the shorthand for one kill, desugared by the
 * parser into an event (shorthand set) so the lab sees only events.
 */
enum topo_action {
	TOPO_A_KILL,	      /* site: SIGKILL its sited */
	TOPO_A_CRASH,	      /* site: SIGKILL every process the lab runs there */
	TOPO_A_FREEZE,	      /* site: nftables drops all but loopback in its namespace */
	TOPO_A_DRAIN,	      /* site: sited answers, asks probers to take it out */
	TOPO_A_UNDRAIN,	      /* site: back in */
	TOPO_A_LINK_DOWN,     /* link: both veth ends down */
	TOPO_A_LINK_UP,	      /* link: both ends up */
	TOPO_A_DNS_DOWN,      /* [dns]: nftables drops DNS (53) to it */
	TOPO_A_DNS_UP,	      /* [dns]: the drop removed */
	TOPO_A_RESOLVER_DOWN, /* [resolver]: drops DNS to its caches (all, or instance) */
	TOPO_A_RESOLVER_UP,   /* [resolver]: the drop removed */
	TOPO_A_RECOVER,	      /* whatever the last action on the target stopped */
	TOPO_A_FLAP,	      /* site or link: count down/up cycles, period apart */
	TOPO_A_IMPAIR,	      /* link: its impairment changed to the event's keys */
	TOPO_A_DEGRADE,	      /* site: sited reads requests and answers none, accepts connections */
	TOPO_A_UNDEGRADE,     /* site: answering again */
	TOPO_A_SLOW,	      /* site: sited answers each request slow_ns late */
	TOPO_A_UNSLOW,	      /* site: answering at once again */
	/* [dns]: a change to authd's zones through its control channel
	 * (topology_dnsev.c, lib/zone_change.h) */
	TOPO_A_SET_TTL,	      /* a [name]'s TTL */
	TOPO_A_SET_WEIGHT,    /* a site's weight in a weighted [name] */
	TOPO_A_ADD_RECORD,    /* a record into a zone */
	TOPO_A_REMOVE_RECORD, /* a record, or an RRset, out of it */
	TOPO_A_ICMP_DOWN,     /* [resolver]: drops the echo requests to its caches (proximity) */
	TOPO_A_ICMP_UP,	      /* [resolver]: the drop removed */
	TOPO_A_COUNT,
};

#define TOPO_MAX_EVENTS 64

struct topo_event {
	char name[TOPO_NAME_MAX + 1];
	int line;	   /* of the [event NAME] header (the site's fail key for the shorthand) */
	int shorthand;	   /* desugared from fail = yes: printed as that, not as a section */
	int64_t at_ns;	   /* from the traffic's start */
	int action;	   /* enum topo_action */
	int node;	   /* the target node, or -1 for a link */
	int link;	   /* a link target: index in links (a node's) or -1 */
	int rlink;	   /* or in rlinks (two routers'), or -1 */
	unsigned count;	   /* flap: down/up cycles (default 3) */
	int64_t period_ns; /* flap: from one down to the next (default 1s); up at half */
	unsigned instance; /* resolver-down/up: one cache (1..count), 0 all */
	int undoes;	   /* recover and the *-up actions: the event it undoes, -1 */
	/* impair: the keys the event sets, per direction of its link ([0]
	 * leaving its first end: the node of links, a of rlinks), each key
	 * a bit (1 << its topo_impair_key_name index); the others keep the
	 * value in force */
	struct impair im[2];
	unsigned imset[2];
	int64_t slow_ns; /* slow: the delay of every reply (its key delay) */
	/* a DNS change (topo_event_dns): its keys name, ttl, site, weight and
	 * record; the target is the [dns] node serving the name's zone
	 * unless the event says which */
	char dns_name[TOPO_DNS_NAME_MAX + 2];
	int64_t dns_ttl_ns;
	char dns_site[TOPO_NAME_MAX + 1];
	unsigned dns_weight;
	char dns_record[TOPO_TEXT_LEN];
	/* freeze: the address family it takes out (enum topo_ev_family) */
	int family;
};

/* an [event]'s family: a freeze of one family (docs/topology.md, "IPv6") */
enum topo_ev_family {
	TOPO_EV_FAMILY_BOTH,
	TOPO_EV_FAMILY_4,
	TOPO_EV_FAMILY_6,
};

/* [lab] routing: how the anycast service is routed (docs/topology.md) */
enum topo_routing {
	TOPO_ROUTING_STATIC, /* routes computed from the graph, routed on every router */
	TOPO_ROUTING_BGP,    /* FRR (zebra, bgpd) in every router and site: eBGP */
};

/* With routing = bgp a site is an AS too: by default TOPO_SITE_ASN_BASE +
 * its index among the sites (file order), unless its `asn` says otherwise
 * (topo_node_asn). */
#define TOPO_SITE_ASN_BASE 65101u
#define TOPO_MAX_FRR_LINES 256
#define TOPO_FRR_LINE_MAX 200

/* A node's `frr = LINE`: appended, as written, to its FRR configuration. */
struct topo_frr_line {
	int node;
	char text[TOPO_FRR_LINE_MAX + 1];
	int where; /* a line of the file (> 0) or a --set (-1 - its index) */
};

/*
 * [zone NAME] and [name NAME] sections are authd's (docs/authd.md): the
 * topology parser keeps their key = value pairs as written, with their
 * lines, and the lab hands them to authd's own parser, which reports errors
 * against this file's lines.
 */
struct topo_raw_section {
	char kind[8]; /* "zone" or "name" */
	char name[TOPO_DNS_NAME_MAX + 2];
	int line; /* of the header ([lab] dns_tree's for a generated zone) */
	/* a zone, once the file is read (lab/topology/topology_tree.c): its name
	 * lower-cased with a final dot ("lab.example.", "."), the [dns] nodes
	 * serving it, the closest enclosing zone of the lab (-1: none), and
	 * what the user wrote: NS records at its apex, a delegation of it in
	 * its parent. generated: added by [lab] dns_tree (the root and TLD
	 * zones), printed as comments. */
	char apex[TOPO_DNS_NAME_MAX + 2];
	int generated;
	int nservers;
	int servers[TOPO_MAX_NODES];
	int parent;
	int apex_ns;
	int deleg_written;
};

struct topo_raw_pair {
	int section; /* index into raw_sections */
	char key[32];
	char value[512];
	int line;
};

/*
 * The keys of a [resolver] node that are resolverd's (min_ttl, phase,
 * timeout, ...): kept as written, with their lines, like [zone] pairs;
 * the lab hands them to resolverd's own parser (lab/build/resolvconf.c).
 */
struct topo_rsv_pair {
	int node;     /* index of its [resolver] node */
	char key[24]; /* the longest: qname_minimisation */
	char value[64];
	int line;
};

enum topo_skew {
	TOPO_SKEW_EQUAL,
	TOPO_SKEW_HARMONIC,
	TOPO_SKEW_ZIPF,
};

/* what a [resolver] node runs (docs/resolvers.md) */
enum topo_impl {
	TOPO_IMPL_RESOLVERD, /* resolverd: count caches in one process */
	TOPO_IMPL_UNBOUND,   /* Debian's unbound, one cache */
	TOPO_IMPL_KRESD,     /* Debian's knot-resolver (kresd), one cache */
	TOPO_IMPL_BIND,	     /* Debian's bind9 (named), one cache */
};

enum topo_records {
	TOPO_RECORDS_CSV,
	TOPO_RECORDS_BINARY,
	TOPO_RECORDS_BOTH,
};

/* how a prober judges a site (docs/topology.md, "Shallow and deep checks") */
/* [lab] settle's default with routing = bgp (5 s otherwise) */
#define TOPO_SETTLE_BGP_NS (10 * 1000000000LL)
/* and at least bgp_connect_retry and this: a session closed at bring-up
 * comes back at its connect retry */
#define TOPO_SETTLE_BGP_MARGIN_NS (5 * 1000000000LL)

/* a prober's cycle (docs/topology.md, "Probe phases"): its first probe
 * half an interval after the traffic's start (start), or at a phase of its
 * own, uniform within its interval and drawn from the lab's seed (random:
 * checkers that do not coordinate, as Route 53's) */
enum topo_probe_phase {
	TOPO_PROBE_PHASE_START,
	TOPO_PROBE_PHASE_RANDOM,
};

enum topo_check {
	TOPO_CHECK_UDP,	 /* deep: a request, answered by the site's sited */
	TOPO_CHECK_TCP,	 /* shallow: a TCP connection to it, accepted by its kernel */
	TOPO_CHECK_HTTP, /* deep: an HTTP GET, answered 200 by its sited (serving HTTP) */
	TOPO_CHECK_ICMP, /* shallowest: an echo its host answers ([prober] only) */
};

/* what a DNS-steered client does with an answer of several addresses
 * (docs/topology.md, "Several addresses"): the client's -m, in its order */
enum topo_addresses {
	TOPO_ADDRESSES_FIRST,
	TOPO_ADDRESSES_RANDOM,
	TOPO_ADDRESSES_SORTED,
	TOPO_ADDRESSES_NEXT, /* try the next one when a connection fails (TCP) */
};

/* how the anycast sites behind one router share its route (docs/topology.md,
 * "ECMP"): routed's -E, in its order */
enum topo_ecmp {
	TOPO_ECMP_NO,	     /* one best path: the latest announcement's site alone */
	TOPO_ECMP_YES,	     /* hash, as the key was first written (a boolean) */
	TOPO_ECMP_HASH,	     /* one multipath route, hash-threshold */
	TOPO_ECMP_RESILIENT, /* a resilient nexthop group (static routing) */
};

/* what the routers' multipath hash reads (fib_multipath_hash_policy) */
enum topo_ecmp_hash {
	TOPO_ECMP_HASH_L4, /* addresses, ports and protocol: per connection */
	TOPO_ECMP_HASH_L3, /* addresses only: per client address */
};

/* [lab] ip (docs/topology.md, "Addresses") */
enum topo_ip {
	TOPO_IP_4,    /* IPv4 only */
	TOPO_IP_6,    /* IPv6 only: the IPv4 plan's addresses are the nodes'
		       * names to the clocks (lab_up's twins), on no interface */
	TOPO_IP_DUAL, /* both: every node, link and route in both families */
};

/* Happy Eyeballs' connection attempt delay (RFC 8305's recommended
 * value): a family = dual client's requests go over IPv4 that long after
 * they left over IPv6 unanswered (agents/client -Y) */
#define TOPO_ATTEMPT_DELAY_NS (250 * 1000000LL)

/* a client's address family (docs/topology.md, "IPv6") */
enum topo_family {
	TOPO_FAMILY_4,	  /* its requests over IPv4 */
	TOPO_FAMILY_6,	  /* over IPv6: the service's, or the name's AAAA, address */
	TOPO_FAMILY_DUAL, /* over IPv6, each request sent again over IPv4 when
			   * unanswered after 250 ms (Happy Eyeballs, RFC 8305) */
};

/* what answers at a site (docs/topology.md, "nginx at a site") */
enum topo_site_impl {
	TOPO_SITE_SITED,
	TOPO_SITE_NGINX, /* Debian's nginx, its configuration the lab's */
};

/* what answers at a [dns] node (docs/authorities.md) */
enum topo_dns_impl {
	TOPO_DNS_AUTHD, /* authd, told by the lab's probers */
	TOPO_DNS_PDNS,	/* Debian's PowerDNS (pdns_server), LUA records, its own checks */
	TOPO_DNS_GDNSD, /* Debian's gdnsd, its plugins and tcp_connect monitors */
};
/* each one's own defaults for its checks, where the node does not say
 * (topology_check.c): PowerDNS's lua-health-checks-interval and ifportup's
 * timeout, one failure and one success (4.7 counts no more); gdnsd's
 * service_types interval, timeout (half the interval), down_thresh and
 * up_thresh */
#define TOPO_PDNS_CHECK_INTERVAL_NS (5 * NSEC_PER_SEC)
#define TOPO_PDNS_CHECK_TIMEOUT_NS (2 * NSEC_PER_SEC)
#define TOPO_GDNSD_CHECK_INTERVAL_NS (10 * NSEC_PER_SEC)
#define TOPO_GDNSD_CHECK_DOWN 10
#define TOPO_GDNSD_CHECK_UP 20

/* who resolves an HTTP client's name (docs/topology.md, "libcurl's DNS
 * cache"): the client, pinning libcurl to its answer, or libcurl itself */
enum topo_resolve {
	TOPO_RESOLVE_CLIENT,
	TOPO_RESOLVE_LIBCURL,
};

/* what a client's requests travel on (docs/topology.md, "Connections") */
enum topo_proto {
	TOPO_PROTO_UDP,	 /* one datagram a request */
	TOPO_PROTO_TCP,	 /* a long-lived connection, requests back to back */
	TOPO_PROTO_HTTP, /* HTTP/1.1 GETs through libcurl, connections kept alive */
};

enum topo_arrivals {
	TOPO_ARRIVALS_PACED,
	TOPO_ARRIVALS_POISSON,
};

/* a [resolver] node's mode: resolverd asks the [dns] nodes of the
 * service zones (forward), or walks the lab's tree from its root (iterate) */
enum topo_rsv_mode {
	TOPO_RSV_FORWARD,
	TOPO_RSV_ITERATE,
};

#define TOPO_ZONES_LEN 512
/* [lab] dns_tree's nodes: the root zone's and the TLD zones' */
#define TOPO_TREE_ROOT "root"
#define TOPO_TREE_TLD "tld"
/* the TTL of the zones dns_tree generates (their records, SOA, NS) */
#define TOPO_TREE_TTL 86400

/* the largest population of a node: lib/wire.h, WIRE_POP_INDEX_MASK + 1 */
#define TOPO_POPULATION_MAX 131072
#define TOPO_WEIGHTS_LEN 512
#define TOPO_TARGET_SHARE_LEN 512

/* A node's `location = LAT,LON`, in degrees (set: written); [link]s with
 * `delay = auto` take their delay from their ends' (topology_impair.c) */
struct topo_location {
	double lat, lon;
	int set;
};

struct topo_node {
	enum topo_kind kind;
	char name[TOPO_NAME_MAX + 1];
	int line; /* line of the [kind name] header */
	int link; /* index into topology.links, -1 for routers */
	/* `host = NAME` as written ("": the machine steerlab runs on), and its
	 * index in topology.hosts (-1: a lab without [host] sections) */
	char host_name[TOPO_NAME_MAX + 1];
	int host;
	struct topo_location location;

	/* router (and, with routing = bgp, site) */
	unsigned asn;		  /* its AS number (topo_node_asn) */
	int router_index;	  /* 0, 1, ... among the routers, in file order */
	struct in_addr router_id; /* on its loopback: addrplan_router_id(router_index) */
	/* its BGP timers and BFD, the [lab]'s unless set (routing = bgp) */
	int64_t bgp_keepalive_ns, bgp_hold_ns, bgp_mrai_ns;
	int bfd;
	/* a site: its own AS this many more times in its announcements */
	unsigned prepend;

	/* site */
	unsigned metric; /* route priority of its announcement (lower wins); an
			  * anycast name server's: 10 x its rank among the
			  * instances of its address */
	int fail;	 /* killed at fail_at */
	int64_t probe_interval_ns, probe_timeout_ns;
	unsigned probe_down, probe_up;
	int check;	 /* a site's own prober's, or a [prober]'s (enum topo_check) */
	int probe_phase; /* its prober's cycle (enum topo_probe_phase) */

	struct in_addr address; /* unicast service address: what DNS answers */
	/* ip = dual: a site's own IPv6 address, a router's loopback, a
	 * [resolver] node's /64 (cache i on ::i) */
	struct in6_addr address6;
	/* [dns]: the anycast address it also serves on, announced by its own
	 * prober while it answers (0.0.0.0: none) */
	struct in_addr anycast;
	/* [site]: the anycast address it announces instead of the [lab]
	 * service, and that DNS hands out for it instead of its own address:
	 * its region's front door, shared with the sites of its region
	 * (0.0.0.0: none; topology_anycast.c) */
	struct in_addr front_door;

	/* client */
	enum topo_mode mode;
	int resolver;	       /* node index of the [dns] or [resolver] node it asks, -1 if none */
	int resolver_instance; /* of a [resolver] node: its cache 1..count; 0 for [dns] */
	char dns_name[TOPO_DNS_NAME_MAX + 2]; /* the DNS name it resolves (key `name`) */
	int64_t sticky_ns;	    /* > 0: keeps each address this long whatever the TTL */
	double rate;		    /* requests per second */
	int64_t timeout_ns;	    /* a request unanswered this long is lost */
	uint32_t client_id;	    /* 1, 2, ... in file order */
	int proto;		    /* enum topo_proto: UDP datagrams, a TCP connection or HTTP */
	int family;		    /* enum topo_family: its requests' */
	int addresses;		    /* enum topo_addresses */
	int64_t connect_timeout_ns; /* TCP: 0, its timeout */
	int resolve;		    /* enum topo_resolve: who resolves its name over HTTP */
	int site_impl;		    /* a site's server: enum topo_site_impl */
	int64_t dns_cache_ns;	    /* resolve = libcurl: its DNS cache (default 60 s) */
	/* proto = tcp, one client: 0 none; a connection closed after this
	 * many requests, or this long idle; requests outstanding at most */
	unsigned requests_per_conn;
	int64_t idle_timeout_ns;
	unsigned pipeline;
	/* a population (docs/topology.md, "Populations"): population logical
	 * clients (0: one client) sharing rate by skew, arrivals paced or
	 * poisson; resolver_all: they ask every cache of the [resolver] node
	 * in turn (resolver = NAME without .N) */
	unsigned population;
	int skew;	      /* enum topo_skew */
	double zipf_exponent; /* skew = zipf */
	int arrivals;	      /* enum topo_arrivals */
	int resolver_all;
	/* resolver_weights: the caches' weights, "W1,W2,..." as written (one
	 * per cache of the [resolver] node; "" in turn) */
	char resolver_weights[TOPO_WEIGHTS_LEN];
	/* source_block: logical client j sends from source_net + (j mod 2^(32 -
	 * source_len)); source_len 0: from the link address */
	struct topo_block {
		struct in_addr net;
		int len;
	} source_block;

	/* dns */
	double quorum;	 /* healthy while more than this share of probers say so */
	int fail_closed; /* all candidates dead: 0 hand out all, 1 empty answer */
	/* zones = Z1 Z2 ..., as written ("": every zone no other node claims) */
	char zones[TOPO_ZONES_LEN];
	uint64_t zone_set;	   /* the [zone] sections it serves: bit i, raw_sections[i] */
	int generated;		   /* added by [lab] dns_tree (root, tld): printed as comments */
	int dns_impl;		   /* enum topo_dns_impl */
	int64_t check_interval_ns; /* impl = pdns, gdnsd: its checks' interval and timeout, */
	int64_t check_timeout_ns;
	unsigned check_down, check_up; /* the failures that take a site out, the successes back */

	/* resolver */
	int rsv_mode;		     /* enum topo_rsv_mode */
	unsigned count;		     /* caches NAME1 .. NAMEcount */
	int impl;		     /* enum topo_impl */
	struct in_addr resolver_net; /* its /24: cache i listens on .i */
};

struct topo_link {
	int router; /* node index of the router end */
	int node;   /* node index of the other end */
	int line;   /* line of the `link =` key */
	struct in_addr router_addr, node_addr;
	int prefixlen;				  /* 30 */
	struct in6_addr router_addr6, node_addr6; /* its /64 (ip = dual) */
	char router_ifname[16];			  /* in the router's namespace: the peer's name */
	char node_ifname[16];			  /* in the node's namespace: "eth0" */
	/* [link NODE ROUTER]'s impairments (topology_impair.c): [0] leaving the
	 * node (its eth0), [1] leaving the router; impair_line: the section's
	 * header, 0 if none */
	struct impair impair[2];
	int impair_line;
	/* `delay = auto` per direction: impair[d].delay_ns computed from the
	 * ends' locations, distance_km apart (topo_auto_delay_ns) */
	int delay_auto[2];
	double distance_km;
};

/* A [link R1 R2] section: a veth between two routers. */
#define TOPO_PREPEND_MAX 10
struct topo_rlink {
	int a, b; /* node indexes of the routers, as written: [link a b] */
	int line; /* of the header */
	/* routing = bgp (docs/topology.md, "Shaping catchments"): [0] a's
	 * end, [1] b's. prepend: the end adds its own AS this many more times
	 * to what it announces over the link; local_pref: the end sets this
	 * local preference on what it receives over it (0: not set) */
	unsigned prepend[2];
	unsigned local_pref[2];
	/* this link's sessions' timers and BFD; -1: the ends' own */
	int64_t bgp_keepalive_ns, bgp_hold_ns, bgp_mrai_ns;
	int bfd;
	struct in_addr a_addr, b_addr;
	struct in6_addr a_addr6, b_addr6; /* its /64 (ip = dual) */
	int prefixlen;			  /* 30 */
	char a_ifname[16];		  /* a's end, in a's namespace: named after b */
	char b_ifname[16];		  /* b's end: named after a */
	/* impairments: [0] leaving a (a to b), [1] leaving b; delay_auto and
	 * distance_km as in struct topo_link */
	struct impair impair[2];
	int delay_auto[2];
	double distance_km;
};

/*
 * One lab over several hosts (docs/topology.md, "Hosts"): [host NAME]
 * sections, `host = NAME` on the nodes. Each host has an underlay address;
 * a link whose ends are on two hosts is a VXLAN tunnel between them (VNI
 * topo_link_vni, topo_rlink_vni; MTU TOPO_VXLAN_MTU), every other link a
 * veth as on one host. Only simulated hosts are implemented: each a
 * namespace LAB-NAME of this machine, joined to the others by an
 * underlay of veths and a bridge (lab/build/hosts.c). The nodes without
 * `host` are on the host TOPO_HOST_LOCAL, the machine steerlab runs on,
 * which topo_load adds when a [host] section exists and it has nodes.
 */
#define TOPO_MAX_HOSTS 16
#define TOPO_HOST_LOCAL "local"
#define TOPO_UNDERLAY_MTU 1500
#define TOPO_VXLAN_OVERHEAD 50 /* outer Ethernet, IPv4, UDP and VXLAN headers */
#define TOPO_VXLAN_MTU (TOPO_UNDERLAY_MTU - TOPO_VXLAN_OVERHEAD)
#define TOPO_VXLAN_PORT 4789
#define TOPO_VNI_LINKS 4096u  /* node link i: VNI 4096 + i */
#define TOPO_VNI_RLINKS 8192u /* router link j: VNI 8192 + j */
#define TOPO_SSH_LEN 128

struct topo_host {
	char name[TOPO_NAME_MAX + 1];
	int line;		/* of its [host] header; 0: added (TOPO_HOST_LOCAL) */
	struct in_addr address; /* its underlay address (addrplan_host by default) */
	int address_line;	/* where address was written; 0: the plan's */
	char ssh[TOPO_SSH_LEN]; /* how it is reached; "simulated" */
	int ssh_line;
};

struct topology {
	char path[4096];
	char name[TOPO_NAME_MAX + 1];

	struct in_addr service;	 /* the anycast service address, /32 */
	uint16_t port;		 /* request port */
	int64_t fail_at_ns;	 /* from the clients' start to t0 */
	int64_t duration_ns;	 /* clients' total sending time */
	int64_t settle_ns;	 /* max wait for the lab to be ready */
	uint64_t capture_buffer; /* bytes, per captured link; 0 (auto): topo_capture_ring */
	/* the failure falls uniformly in [fail_at, fail_at + fail_jitter),
	 * drawn from seed (lab/topology/topology.h); seed -1: random, drawn by the run */
	int64_t fail_jitter_ns;
	int64_t seed;
	/* added to every `delay = auto` link's propagation delay: the
	 * forwarding and queueing of a hop (TOPO_HOP_DELAY_NS by default) */
	int64_t hop_delay_ns;

	/* lab-wide defaults, copied into nodes that do not override them */
	double rate;
	int64_t timeout_ns;
	int64_t probe_interval_ns, probe_timeout_ns;
	unsigned probe_down, probe_up;
	char dns_name[TOPO_DNS_NAME_MAX + 2]; /* default name DNS clients resolve */
	/* this share of the DNS clients without a sticky of their own keep each
	 * address sticky_ns (docs/man/steerlab.ini.5, CLIENTS: which ones) */
	double sticky_share; /* 0 <= q <= 1 */
	int64_t sticky_ns;   /* > 0 */
	/* target_share: the share of the requests the operator intends each
	 * site to carry, "SITE:W SITE:W ..." as written, single spaces (shares
	 * W / sum W; "": none). Only the analysis reads it: the steering
	 * table's target where a [name]'s policy defines none
	 * (docs/topology.md, "Steady-state runs") */
	char target_share[TOPO_TARGET_SHARE_LEN];
	/* the clients' records: requests-NODE.csv, .bin or both (enum topo_records) */
	int records;
	/* the clients' transport unless a [client] says (enum topo_proto) */
	int proto;
	/* the clients' choice among several addresses (enum topo_addresses)
	 * and connect timeout (0: their timeout), unless a [client] says */
	int addresses;
	int64_t connect_timeout_ns;
	/* the routers' multipath hash (enum topo_ecmp_hash), with ecmp */
	int ecmp_hash;
	/* the probers' check unless a [site] or [prober] says (enum topo_check) */
	int check;
	/* the probers' cycles unless a [site] or [prober] says (enum
	 * topo_probe_phase) */
	int probe_phase;
	/* [lab] ip: the network's address families (enum topo_ip) */
	int ip;
	/* the clients' address family unless a [client] says (enum topo_family) */
	int family;
	struct in6_addr service6; /* the service's IPv6 address (ip = dual) */
	/* an http check's GET and what passes it (docs/topology.md, "Shallow
	 * and deep checks"): http_path "" is the lab's own target, answered
	 * 200 in the site's name; else the status and, if not "", a string
	 * in the first 5,120 bytes of the body */
	char http_path[TOPO_TEXT_LEN];
	unsigned http_status;
	char http_body[TOPO_TEXT_LEN];
	/* tcp and http checks: the connection within this (0: probe_timeout
	 * covers the whole probe); http's response then within probe_timeout */
	int64_t probe_connect_timeout_ns;
	/* the TCP clients' reconnections: 0 backoff, 1 immediate */
	int reconnect;
	/* the lab's own DNS tree: the root and TLD zones and their [dns] nodes
	 * generated, every delegation with glue (lab/topology/topology_tree.c) */
	int dns_tree;
	int dns_tree_line; /* where dns_tree was set (0: --set or not) */

	/* FRR's knobs, used when routing = bgp (docs/topology.md, "Routing"),
	 * their defaults FRR's datacenter profile */
	int64_t bgp_keepalive_ns, bgp_hold_ns, bgp_connect_retry_ns, bgp_mrai_ns;
	int bfd;
	int64_t bfd_interval_ns;
	unsigned bfd_multiplier;
	int damping; /* RFC 2439, off by default (RIPE-580) */
	int64_t damping_half_life_ns, damping_max_suppress_ns;
	unsigned damping_reuse, damping_suppress;
	int ecmp;	/* enum topo_ecmp: BGP's multipath, or routed's -E */
	int nfrr_lines; /* in file order, then --set */
	struct topo_frr_line frr_lines[TOPO_MAX_FRR_LINES];

	int nraw_sections;
	struct topo_raw_section raw_sections[64];
	int nraw_pairs;
	struct topo_raw_pair raw_pairs[TOPO_MAX_RAW];
	int nrsv_pairs; /* in file order, every [resolver] node's */
	struct topo_rsv_pair rsv_pairs[TOPO_MAX_RSV_PAIRS];

	int nnodes;
	struct topo_node nodes[TOPO_MAX_NODES];
	int nlinks;
	struct topo_link links[TOPO_MAX_NODES];
	int routing; /* enum topo_routing */
	/* routing = static: how often a site's prober repeats its verdict to
	 * the routers (prober -k), and how long a router keeps a route its
	 * site stopped announcing (routed -H; 0: for ever) */
	int64_t static_refresh_ns, static_hold_ns;
	int nrouters;
	int nrlinks;
	struct topo_rlink rlinks[TOPO_MAX_RLINKS];

	int nevents; /* the timeline, sorted by at (then file order) */
	struct topo_event events[TOPO_MAX_EVENTS];

	int nhosts; /* 0: one host, the machine steerlab runs on */
	struct topo_host hosts[TOPO_MAX_HOSTS];
};

/* topo_link_vni: node link l's VXLAN id if its ends are on two hosts, else
 * 0 (a veth); topo_rlink_vni: the same of router link j. */
uint32_t topo_link_vni(const struct topology *t, int l);
uint32_t topo_rlink_vni(const struct topology *t, int j);
/* topo_find_host: the index of the host called name, or -1 */
int topo_find_host(const struct topology *t, const char *name);
/* topo_print_hosts: the [host] sections as topo_load reads them back, and
 * what they make (namespaces, underlay, VXLAN links), for topo_print */
void topo_print_hosts(const struct topology *t, FILE *out);

/*
 * topo_load: parse path into *t, then apply the overrides in sets[0..nsets)
 * ("key=value" sets a [lab] key; "node.key=value" a node's key), then check
 * the whole. On error, prints "path:line: what was expected" (or
 * "--set ...: ..." for an override) to err, and returns -1.
 */
int topo_load(struct topology *t, const char *path, char *const sets[], int nsets, FILE *err);

/* topo_print: print the parsed topology back as an INI file with every
 * value explicit, defaults included (what `steerlab check` shows). */
void topo_print(const struct topology *t, FILE *out);

/* topo_find: index of the node with that name, or -1. */
int topo_find(const struct topology *t, const char *name);

const char *topo_kind_name(enum topo_kind kind);

/* topo_action_name: "kill", "link-down", ...; topo_event_target: the
 * event's target as written back ("a", "core a"), into buf (32 bytes). */
const char *topo_action_name(int action);
const char *topo_event_target(const struct topology *t, const struct topo_event *e, char *buf,
			      size_t len);
/* topo_event_failing: the action takes its target out (kill, crash,
 * freeze, drain, link-down, dns-down, resolver-down, flap). */
int topo_event_failing(int action);
/* topo_event_dns: the action is a DNS change (set-ttl, set-weight,
 * add-record, remove-record). */
int topo_event_dns(int action);
struct zone_change;
/* topo_event_change: the CHANGE line's fields of DNS change e
 * (lib/zone_change.h), its id the event's name. */
void topo_event_change(const struct topo_event *e, struct zone_change *c);
/* topo_event_change_text: what DNS change e does, for a person
 * ("www.lab.example ttl 1s", "w.lab.example b weight 50",
 * "new.lab.example A 198.19.1.9"), into buf. */
const char *topo_event_change_text(const struct topo_event *e, char *buf, size_t len);
/* topo_first_failure: the site the timeline takes out first (killed,
 * crashed, frozen, drained, its link down or flapping), and that event's
 * at into *at_ns (if not NULL); -1 if no event takes a site out. */
int topo_first_failure(const struct topology *t, int64_t *at_ns);
/* topo_print_timeline: the timeline, one "# at 3s: crash site a (e1)"
 * line per event, in order (what `steerlab check` shows). */
void topo_print_timeline(const struct topology *t, FILE *out);

/* topo_resolver_addr: the address cache `instance` (1..count) of
 * [resolver] node `node` listens on. */
struct in_addr topo_resolver_addr(const struct topology *t, int node, int instance);
/* topo_resolver_addr6: the same cache's IPv6 address (ip = dual): ::instance
 * of the node's /64 */
struct in6_addr topo_resolver_addr6(const struct topology *t, int node, int instance);

/* topo_impl_name: what `impl` of a [resolver] node is written as
 * ("resolverd", "unbound", "knot-resolver", "bind9"). */
const char *topo_impl_name(int impl);

/* topo_dns_impl_name: what `impl` of a [dns] node is written as
 * ("authd", "pdns", "gdnsd"). */
const char *topo_dns_impl_name(int impl);

/* topo_client_resolver: where client node `node`'s DNS flow sends its
 * queries: the [dns] node's link address, or its cache of a [resolver]
 * node. Only for a client whose resolver is not -1. */
struct in_addr topo_client_resolver(const struct topology *t, int node);

/* topo_client_resolver6: the same over IPv6, for a client of family = 6
 * or dual in a lab of IPv6: the cache's IPv6 address, or the [dns] node's
 * on its link (authd's, PowerDNS's, gdnsd's; not an anycast name server,
 * whose address is IPv4 alone). 1 and *a, or 0 (it asks over IPv4). A
 * population asking every cache of a [resolver] node (resolver_all) asks
 * each at topo_resolver_addr6 when this says 1. */
int topo_client_resolver6(const struct topology *t, int node, struct in6_addr *a);

/* topo_raw: the value of key in raw section s ([zone] or [name], an index
 * in raw_sections; the last one set), or NULL */
const char *topo_raw(const struct topology *t, int s, const char *key);

/* topo_has_proximity: whether a [name] of the lab has policy = proximity
 * (every site then measures its round trips to the queriers). */
int topo_has_proximity(const struct topology *t);

/* topo_site_service: the anycast address site n announces: its front_door,
 * else the [lab] service */
struct in_addr topo_site_service(const struct topology *t, int n);

/* topo_site_answer: the address DNS hands out for site n: its front_door,
 * else its own */
struct in_addr topo_site_answer(const struct topology *t, int n);

/* topo_anycast_ns_addrs: the distinct anycast addresses of the [dns]
 * nodes, in file order, into out (max); their number */
int topo_anycast_ns_addrs(const struct topology *t, struct in_addr *out, int max);

/* topo_services: the distinct anycast addresses the sites announce (the
 * [lab] service first when a site announces it), into out (max); their
 * number */
int topo_services(const struct topology *t, struct in_addr *out, int max);

/* topo_proximity_queriers: the addresses that ask the lab's [dns] nodes,
 * which the sites measure for the proximity policy (docs/authd.md,
 * "Proximity"): every cache of every [resolver] node, then every client
 * (not a population) whose resolver is a [dns] node itself; at most max,
 * each with a label ("ra.1", "c1") of at most 16 characters and (node not
 * NULL) its node. The number written; *more the number left out (if not
 * NULL). */
int topo_proximity_queriers(const struct topology *t, struct in_addr *out, char (*label)[17],
			    int *node, int max, int *more);

/* topo_print_proximity: with a proximity [name], what each site's prober
 * will measure (topo_proximity_queriers), as comments (`steerlab check`). */
void topo_print_proximity(const struct topology *t, FILE *out);

/* topo_dns_roots: the link addresses of the [dns] nodes serving the root
 * zone `.`, at most max of them into out, in file order (the generated
 * root last); the number written, 0 if the lab has no root zone. The root
 * hints of a resolver that walks the lab's tree. */
int topo_dns_roots(const struct topology *t, struct in_addr *out, int max);

/* topo_dns_roots6: the same servers' IPv6 link addresses (a lab of
 * ip = 6 walks its tree over IPv6). */
int topo_dns_roots6(const struct topology *t, struct in6_addr *out, int max);

/* topo_dns_serves: whether [dns] node n serves zone z (an index in
 * raw_sections). */
int topo_dns_serves(const struct topology *t, int n, int z);

/* topo_name_zone: the closest zone of the lab enclosing DNS name `name`
 * (an index in raw_sections), or -1. */
int topo_name_zone(const struct topology *t, const char *name);

/* topo_zone_records: the records the lab generates in zone z (an index in
 * raw_sections) as [dns] node n serves it (n = -1: every one, as `check`
 * prints them): the apex NS and the servers' addresses (ns-NODE.ZONE.),
 * unless the zone's own NS are written, and the delegation of each child
 * zone with its glue, unless written by hand or n serves the child too.
 * Each is passed to emit as "OWNER TYPE DATA" with the line of the file it
 * comes from (the child's header, or [lab] dns_tree's). */
void topo_zone_records(const struct topology *t, int z, int n,
		       void (*emit)(void *arg, const char *record, int line), void *arg);

/* topo_rsv_upstream: whether forwarding [resolver] nodes ask [dns] node n:
 * of the nodes that answer (neither the root zone's servers nor the nodes
 * dns_tree adds, which answer with referrals), those serving the zone of a
 * [name] section (the steered names), or all of them if none does. */
int topo_rsv_upstream(const struct topology *t, int n);

/* A route from a router: how many router hops, and the first one. */
struct topo_path {
	int hops;  /* router-to-router links on the shortest path; -1: unreachable */
	int rlink; /* the first hop's [link]; -1 at the router itself or unreachable */
};

/* topo_paths: the shortest paths (by hops) from router `from` to every
 * router, indexed by node (path[i] for a router i; others are -1). Among
 * shortest paths, the first hop is the neighbour that comes first in the
 * file. */
void topo_paths(const struct topology *t, int from, struct topo_path path[TOPO_MAX_NODES]);

/* topo_node_router: the router node `node` hangs from (itself, for a
 * router). */
int topo_node_router(const struct topology *t, int node);

/* topo_rlink_end: router r's end of [link] rlink: its address and
 * interface name, and the address of the other end (the next hop). */
void topo_rlink_end(const struct topology *t, int rlink, int r, struct in_addr *local,
		    struct in_addr *peer, const char **ifname);

/* topo_route_to: how router r reaches node `node` (any kind): the next hop
 * (*via: the node's link address if it hangs from r, else the neighbour
 * router's address on the first hop), the interface, and the router hops
 * (0: node is r's own or r itself; *via is then 0.0.0.0 for r). -1 if
 * unreachable. path: topo_paths(t, r, path). */
int topo_route_to(const struct topology *t, int r, const struct topo_path *path, int node,
		  struct in_addr *via, const char **ifname);

/* topo_route_to6: the same next hop in IPv6 ([lab] ip = dual): the node's
 * link ::2, or the neighbour router's end of the first router link; the
 * hops as topo_route_to's (the interface is its *ifname). */
int topo_route_to6(const struct topology *t, int r, const struct topo_path *path, int node,
		   struct in6_addr *via6);

/* topo_node_asn: the AS of BGP speaker n (topo_bgp_speaker): its `asn` (a
 * router's default TOPO_ASN_BASE + its index among the routers, a site's
 * TOPO_SITE_ASN_BASE + its index among the sites, both in file order; an
 * anycast name server's the next after the sites', in file order). 0 for
 * the other kinds. */
unsigned topo_node_asn(const struct topology *t, int n);

/* topo_bgp_speaker: whether node n runs FRR's bgpd with routing = bgp: a
 * router, a site, or an anycast name server ([dns] anycast), which
 * announces its anycast address while its prober keeps it on lo. */
int topo_bgp_speaker(const struct topology *t, int n);

/* topo_bgp_mrai_max_ns: routing = bgp, the longest advertisement interval
 * (bgp_mrai) of the lab's routers, sites and [link]s, in the whole seconds
 * FRR takes (lab/build/frrconf.c); 0: none */
int64_t topo_bgp_mrai_max_ns(const struct topology *t);

/* topo_router_id: n's BGP router id: a router's id (on its loopback), a
 * site's its own end of its link. */
struct in_addr topo_router_id(const struct topology *t, int n);

/*
 * The kernel ring of each captured link (lab/topology/topology_capture.c): with
 * [lab] capture_buffer = auto (the default), what the link will carry held
 * for a second (at 256 bytes a packet, in libpcap's blocks of 256 KiB,
 * from 1 MiB, a site link's 2 MiB, to 64 MiB: lib/capring.h): a site link every client flow's rate
 * (any may end there) and the [prober]s' probes, each request and its reply (with routing = bgp the
 * site's BGP session is a capture of its own, of 1 MiB, labelled link-ROUTER-SITE); a [resolver]'s
 * link four packets for each DNS request of its clients (their query and its answer, its own query
 * upstream and that answer: at most one resolution a request); a [dns] node's link two for each DNS
 * request of the lab; a router link (BGP) 1 MiB. capture_buffer set: that, for every capture.
 *
 * topo_capture_ring: the ring of link (an index of t->links) as its
 * router's collector captures it; topo_capture_ring_rlink: of the [link]
 * rlink, captured by its first router; topo_captured: whether link is
 * captured (a site, [dns] or [resolver] node's); topo_captured_bgp:
 * whether link's BGP is captured apart (a site's, with routing = bgp);
 * topo_capture_total: the rings of router's captures (every router's:
 * -1), their count in *nlinks (may be NULL).
 */
uint64_t topo_capture_ring(const struct topology *t, int link);
uint64_t topo_capture_ring_rlink(const struct topology *t, int rlink);
int topo_captured(const struct topology *t, int link);
int topo_captured_bgp(const struct topology *t, int link);
uint64_t topo_capture_total(const struct topology *t, int router, int *nlinks);

/* topo_has_tcp: whether a [client] sends over TCP (proto = tcp or http):
 * the site links' captures then take the request port's TCP segments too */
int topo_has_tcp(const struct topology *t);

/* topo_has_http: whether a [client] speaks HTTP (proto = http) or a
 * prober checks with it (check = http): the sites then serve HTTP on their
 * TCP port (sited -H) */
int topo_has_http(const struct topology *t);

/* topo_format_duration, topo_format_size: a value as topo_print writes it
 * and topo_load reads it back ("1500ms", "64M": K, M, G are powers of
 * 1024). Return buf; 32 bytes are enough. */
const char *topo_format_duration(int64_t ns, char *buf, size_t len);
const char *topo_format_size(uint64_t bytes, char *buf, size_t len);

/* The types of the topology's keys (the tables of topology_keys.c). */
enum topo_type {
	TOPO_T_NAME,	 /* char[TOPO_NAME_MAX + 1] */
	TOPO_T_SERVICE,	 /* struct in_addr in the lab's /15, outside the plan's blocks */
	TOPO_T_PORT,	 /* uint16_t, 1..65535 */
	TOPO_T_UINT,	 /* unsigned, min..max */
	TOPO_T_DURATION, /* int64_t ns, min..24h */
	TOPO_T_SIZE,	 /* uint64_t bytes; "auto" is 0 */
	TOPO_T_RATE,	 /* double, requests per second */
	TOPO_T_BOOL,	 /* int, 0 or 1 */
	TOPO_T_LINK,	 /* a router's name, resolved once the file is read */
	TOPO_T_RESOLVER, /* struct topo_resolver_ref: a [dns] or [resolver] node, resolved
			    once the file is read */
	TOPO_T_SHARE,	 /* double, 0 <= q < 1 */
	TOPO_T_FRACTION, /* double, 0 <= q <= 1 */
	TOPO_T_CHOICE,	 /* int: the index of one of the words in choices */
	TOPO_T_DNAME,	 /* char[TOPO_DNS_NAME_MAX + 2], a DNS name */
	TOPO_T_SEED,	 /* int64_t: 0..JITTER_SEED_MAX, or -1 written "random" */
	TOPO_T_BLOCK,	 /* struct topo_block: NET/LEN in the lab's /15 outside the plan's blocks */
	TOPO_T_WEIGHTS,	 /* char[TOPO_WEIGHTS_LEN]: "W1,W2,...", each a decimal > 0 */
	TOPO_T_ZONES,	 /* char[TOPO_ZONES_LEN]: DNS names or ".", as written; resolved to
			    [zone] sections once the file is read (topology_tree.c) */
	TOPO_T_LOCATION, /* struct topo_location: LAT,LON in degrees */
	/* char[TOPO_TARGET_SHARE_LEN]: "SITE:W SITE:W ...", each W a decimal >
	   0; the names resolved to [site]s once the file is read */
	TOPO_T_SITE_SHARES,
	TOPO_T_TEXT, /* char[TOPO_TEXT_LEN]: printable ASCII, no blank at either end */
};

/* topo_key_type: the type of the key name (namelen bytes) of [lab] (kind
 * -1) or of a node kind, or -1 if it is not in the tables (ttl, a
 * resolver's key, ...). */
int topo_key_type(int kind, const char *name, size_t namelen);

#define TOPO_NAME_RULE                                                                             \
	"expected a name of 1 to 12 characters from a-z, 0-9 and '-', starting with a letter or "  \
	"digit"

/* topo_check_name: 0 if s is a valid lab or node name (TOPO_NAME_RULE). */
int topo_check_name(const char *s);

/*
 * Jittered event instants and the seeds they come from (jitter.c;
 * docs/repeat.md).
 *
 * A failure scheduled at a nominal instant always falls at the same phase
 * of the probers' cycle, so repeated runs of one topology give the same
 * detection time to a few milliseconds. `fail_jitter = W` moves each event
 * to an instant drawn uniformly from [at, at + W): the window opens at the
 * nominal instant rather than around it, so `fail_at` stays the earliest
 * the failure can happen and `fail_at + fail_jitter` its latest. Set W to
 * the probe interval and repeated runs sample every probe phase once over.
 *
 * The draw is a pure function of (seed, event index): the same seed gives
 * the same instants on any machine, so a run is reproduced with
 * `--set seed=N`. The generator is SplitMix64 (Steele, Lea and Flood,
 * "Fast splittable pseudorandom number generators", OOPSLA 2014) applied
 * twice, once to the seed and once to that mixed with the event's index,
 * which decorrelates events and neighbouring seeds. A seed is a whole
 * number from 0 to 2^32 - 1, short enough to type and exact in any JSON
 * reader; a run without one draws it from getrandom(2) and records it.
 *
 * A repetition of `steerlab run --repeat N` has a seed of its own, derived
 * from the repeat's seed and its number (jitter_rep_seed), so the whole
 * repeat is reproduced from one number and each repetition alone from its
 * own.
 */
#define JITTER_SEED_MAX UINT32_MAX

/* jitter_offset_ns: where event `index` (0 for today's single failure,
 * then the timeline's events in order) falls in a window of window_ns
 * for seed: a value in [0, window_ns), uniform; 0 if window_ns <= 0. */
int64_t jitter_offset_ns(int64_t window_ns, uint32_t seed, unsigned index);

/* jitter_instant_ns: the actual instant of an event nominally at at_ns:
 * at_ns + jitter_offset_ns(window_ns, seed, index). */
int64_t jitter_instant_ns(int64_t at_ns, int64_t window_ns, uint32_t seed, unsigned index);

/* topo_probe_offset_ns: with probe_phase = random, where node's prober's
 * cycle falls within its interval: its first probe that much plus half an
 * interval after the traffic's start (jitter_offset_ns of its interval for
 * the lab's seed, an index of its own past the timeline's events'); 0 with
 * probe_phase = start, or no seed yet (t->seed < 0: drawn per run) */
#define JITTER_PROBER_INDEX 100000u
int64_t topo_probe_offset_ns(const struct topology *t, int node);

/* jitter_rep_seed: the seed of repetition rep (1, 2, ...) of a repeat
 * whose seed is base. */
uint32_t jitter_rep_seed(uint32_t base, unsigned rep);

/* jitter_random_seed: a seed from getrandom(2) into *seed. 0, or -1 with
 * errno set. */
int jitter_random_seed(uint32_t *seed);

/*
 * plan.json: the resolved facts of a run, written into its run directory
 * beside topology.ini (docs/clocks.md, "Inputs"; docs/inside.md lists the
 * run directory's files): every node with its kind, its addresses (from
 * lib/addrplan.h, as the lab gave them), its ids, a [dns] node's zones and
 * level in the DNS tree, a client's [resolver] node, the router links and
 * the steered names' TTLs. The analysis reads it instead of working them
 * out again from topology.ini (probes/clocks/clocks_topo.c).
 */
#define PLANJSON_FILE "plan.json"
#define PLANJSON_VERSION 1

/* planjson_build: plan.json's object for t, or NULL (out of memory). */
json_t *planjson_build(const struct topology *t);

/* topo_json: the topology as checked (steerlab check --json;
 * docs/analysis.md, "JSON output"): plan.json's object, with "file" (the
 * path given), "lab_keys" (every [lab] key and its value as check prints
 * it) and, in each node, "keys" (its own likewise). NULL: out of memory. */
json_t *topo_json(const struct topology *t);

/* planjson_write: write rundir/plan.json for t through lib/atomicfile.h.
 * 0, or -1 with err set ("DIR/plan.json: what: why"). */
int planjson_write(const struct topology *t, const char *rundir, char *err, size_t errlen);

/*
 * Impairments (lab/topology/topology_impair.c; docs/man/steerlab.ini.5,
 * IMPAIRMENTS): a link's delay, jitter, loss, duplicate, reorder and rate,
 * per direction, from the keys of its [link] section: [link R1 R2] between
 * routers, [link NODE ROUTER] for a node's own link. The configured delay
 * of a path follows the static routes (topology_paths.c: the fewest hops,
 * the tie rule); with routing = bgp, BGP may choose another path.
 */

/* An interface that sends impaired packets, as bring-up applies it in its
 * node's namespace: its name there, the impairment, the node at the other
 * end. */
struct topo_egress {
	const char *ifname;
	const struct impair *im;
	int peer;
};

/* topo_impair_key_name: the k-th impairment key (from 0: delay, jitter,
 * loss, duplicate, reorder, rate), NULL past the last. topo_impair_value:
 * that key's value in im as a [link] writes it ("15ms", "2ms normal", "1%
 * 25%", "100mbit") into buf, or NULL if im does not set it. */
const char *topo_impair_key_name(int k);
const char *topo_impair_value(const struct impair *im, int k, char *buf, size_t len);

/* topo_impair_change: an impairment key as a [link] writes it ("delay",
 * "A>B.delay") = value, for a link whose directions leave from[0] and
 * from[1]: parsed into chg[d] and marked in set[d] for the directions it
 * names. 0, or -1 with why ("KEY: expected ..., got '...'"). */
int topo_impair_change(const char *const from[2], const char *key, const char *value,
		       struct impair chg[2], unsigned set[2], char *why, size_t len);

/* topo_impair_args: `steerlab impair LAB A B KEY=VALUE ...`'s arguments
 * after the lab: the link between nodes a and b (either order) into *link
 * or *rlink (the other -1), and the KEY=VALUE pairs (the keys of [link]:
 * both directions, or A>B.KEY for one; both directions first, as [link])
 * into chg and set. 0, or -1 with what was expected in err. */
int topo_impair_args(const struct topology *t, const char *a, const char *b, int n,
		     char *const kv[], int *link, int *rlink, struct impair chg[2], unsigned set[2],
		     char *err, size_t len);

/* topo_impair_merge: the keys set of chg into cur */
void topo_impair_merge(struct impair *cur, const struct impair *chg, unsigned set);

/* topo_impair_keys_text: the keys set, as a [link] writes them, joined by
 * sep ("delay = 80ms", "a>core.loss = 30%"), into buf; buf. */
const char *topo_impair_keys_text(const char *const from[2], const struct impair chg[2],
				  const unsigned set[2], const char *sep, char *buf, size_t len);

/* topo_event_impair_text: an impair event's keys (topo_impair_keys_text) */
const char *topo_event_impair_text(const struct topology *t, const struct topo_event *e,
				   const char *sep, char *buf, size_t len);

/* topo_link_dirs: the two directions of link (t->links) or rlink
 * (t->rlinks), whichever is >= 0: the node each leaves, its interface
 * there, and the impairment bring-up gave it. */
void topo_link_dirs(const struct topology *t, int link, int rlink, int node[2],
		    const char *ifname[2], const struct impair *im[2]);

/* topo_impair_none: 1 if im impairs nothing */
int topo_impair_none(const struct impair *im);

/* topo_impaired: how many directions of t's links are impaired */
int topo_impaired(const struct topology *t);

/* topo_impair_events: how many events of the timeline are impair */
int topo_impair_events(const struct topology *t);

/* topo_node_egress: node n's impaired interfaces into e[0..max), in link
 * order (its own link, then its [link]s); how many there are. */
int topo_node_egress(const struct topology *t, int n, struct topo_egress *e, int max);

/* topo_owd_ns: the configured one-way delay (the links' delay keys, jitter
 * left out) from node from to node to along the routes; -1 if there is no
 * path. topo_rtt_ns: there and back. */
int64_t topo_owd_ns(const struct topology *t, int from, int to);
int64_t topo_rtt_ns(const struct topology *t, int a, int b);

/*
 * Distance (topology_impair.c, docs/topology.md "Distance"): a link with
 * `delay = auto` is delayed one way by the great-circle distance between
 * its ends' locations (haversine on a sphere of TOPO_EARTH_RADIUS_KM)
 * travelled at 2/3 of the speed of light (light in fibre), rounded to the
 * microsecond, plus [lab] hop_delay. topo_distance_km: the distance;
 * topo_auto_delay_ns: the delay of km plus hop_ns.
 */
#define TOPO_EARTH_RADIUS_KM 6371.0		 /* the mean radius (IUGG) */
#define TOPO_FIBRE_KM_PER_S (299792.458 * 2 / 3) /* 2/3 of c */
#define TOPO_HOP_DELAY_NS 100000		 /* 0.1 ms */
double topo_distance_km(const struct topo_location *a, const struct topo_location *b);
int64_t topo_auto_delay_ns(double km, int64_t hop_ns);
/* topo_delay_auto: how many link directions have delay = auto */
int topo_delay_auto(const struct topology *t);

/* topo_loss_pct: the share of packets the links' loss keys drop on the
 * way from node from to node to (percent; each link's independently, the
 * correlations left out); -1 if there is no path. */
double topo_loss_pct(const struct topology *t, int from, int to);

/* topo_path_text: the nodes of the path from `from` to `to`, "c1 core a",
 * into buf; buf. */
const char *topo_path_text(const struct topology *t, int from, int to, char *buf, size_t len);

/* topo_print_impair: what `steerlab check` prints of the impairments, as
 * comments: each impaired link per direction and mech, the mechanism that
 * will apply it (its name, with why if it is not known); then the
 * configured RTT of every client-to-site and prober-to-site path. Nothing
 * if no link is impaired. */
void topo_print_impair(const struct topology *t, const char *mech, FILE *out);

/* topo_v4, topo_v6: whether the lab's network has IPv4, IPv6 ([lab] ip) */
static inline int topo_v4(const struct topology *t)
{
	return t->ip != TOPO_IP_6;
}

static inline int topo_v6(const struct topology *t)
{
	return t->ip != TOPO_IP_4;
}

/*
 * The topology as a graph (lab/topology/graph*.c; docs/topology.md, "The
 * graph"): what `steerlab graph` writes, nothing built. topo_graph_write:
 * t's nodes by kind, its links with their impairments, its BGP sessions
 * with their ASNs, in format fmt to out; with rundir (not NULL), what that
 * run measured on them, from its clocks.json: each anycast client's
 * catchment before and after the failure, each router's FIB changes, the
 * nodes coloured by site. 0, or -1 with err ("RUN/clocks.json: ...").
 */
enum topo_graph_format {
	TOPO_GRAPH_DOT,
	TOPO_GRAPH_MERMAID,
	TOPO_GRAPH_JSON,
};
int topo_graph_write(const struct topology *t, const char *rundir, enum topo_graph_format fmt,
		     FILE *out, char *err, size_t errlen);

#endif
