/*
 * Inside the topology parser, private to lab/topology/:
 *
 *   topology.c        reading the file: lines, headers, key = value pairs
 *   topology_set.c    one key's value set (the file's pairs and --set)
 *   topology_util.c   errors with file:line, a section's keys and label
 *   topology_check.c  after the file: --set, defaults, links, checks
 *   topology_keys.c   the keys and their value types
 *   topology_events.c the timeline: [event] sections and their checks
 *   topology_dnsev.c  the timeline's DNS changes: their keys and checks
 *   topology_print.c  topo_print
 *   topology_capture.c the kernel ring of each captured link (topology.h)
 *
 * The keys are one table per section kind, each key with its type, where its
 * value lives, and the [lab] key a node inherits it from. Adding a key is
 * adding a row (and an entry in docs/man/steerlab.ini.5); the parser, --set
 * and topo_print follow the tables.
 *
 * Every key remembers where it was set ("where"): a line of the file (> 0),
 * a --set argument (-1 - its index) or nowhere (0: the default). Checks made
 * after the whole file is read point there.
 *
 * [zone NAME] and [name NAME] sections are not nodes and have no table:
 * their pairs are kept as written (topology.h) for authd's own parser. A
 * [resolver] node has a table (link, count) and, besides, resolverd's keys,
 * kept as written (t->rsv_pairs) for resolverd's own parser.
 */
#ifndef STEERLAB_TOPOLOGY_INT_H
#define STEERLAB_TOPOLOGY_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "inifile.h"
#include "topology.h"

#define TOPO_KEYS_MAX 64
/* Shares (TOPO_T_SHARE, TOPO_T_FRACTION) are written back to 15 decimal
 * places, and counted in units of 10^-15 where floors must be exact. */
#define TOPO_SHARE_PLACES 15
#define TOPO_SHARE_ONE 1000000000000000ull /* 10^TOPO_SHARE_PLACES */
#define TOPO_DNAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"
#define TOPO_DNAME_RULE                                                                            \
	"expected a DNS name such as www.lab.example: labels of 1 to 63 characters from a-z, "     \
	"A-Z, 0-9, '-' and '_', separated by dots, at most 253 characters"

struct topo_key {
	const char *name;
	enum topo_type type;
	size_t off;	    /* in struct topology ([lab]) or struct topo_node */
	long long min, max; /* TOPO_T_UINT; TOPO_T_DURATION (min only) */
	long lab_off;	    /* node keys: the [lab] default in struct topology, or -1 */
	/* TOPO_T_CHOICE: the words, NULL-terminated; the value is an index */
	const char *const *choices;
};

/* Indexes of the keys the checks name, in the tables of topology_keys.c. */
enum {
	TOPO_K_NAME = 0, /* [lab] */
	TOPO_K_SERVICE = 1,
	TOPO_K_FAIL_AT = 3,
	TOPO_K_DURATION = 4,
	TOPO_K_SETTLE = 5,
	TOPO_K_LAB_PROBE_INTERVAL = 9,
	TOPO_K_LAB_PROBE_TIMEOUT = 10,
	TOPO_K_TARGET_SHARE = 16,
	TOPO_K_STATIC_REFRESH = 18,
	TOPO_K_STATIC_HOLD = 19,
	TOPO_K_FAIL_JITTER = 20,
	TOPO_K_ECMP = 34,
	TOPO_K_LAB_CHECK = 39,
	TOPO_K_LAB_ADDRESSES = 40,
	TOPO_K_HTTP_PATH = 43,
	TOPO_K_HTTP_STATUS = 44,
	TOPO_K_HTTP_BODY = 45,
	TOPO_K_PROBE_CONNECT_TIMEOUT = 46,

	TOPO_K_LINK = 0, /* every node kind but [router] */

	TOPO_K_IP = 49, /* [lab] */
	TOPO_K_LAB_FAMILY = 50,

	TOPO_K_ADDRESS = 1, /* [site] */
	TOPO_K_METRIC = 2,
	TOPO_K_FAIL = 3,
	TOPO_K_PROBE_INTERVAL = 4,
	TOPO_K_PROBE_TIMEOUT = 5,
	TOPO_K_SITE_CHECK = 8,
	TOPO_K_SITE_IMPL = 16,
	TOPO_K_ASN = 9,
	TOPO_K_FRONT_DOOR = 18,

	TOPO_K_MODE = 3, /* [client] */
	TOPO_K_RESOLVER = 4,
	TOPO_K_STICKY = 6,
	TOPO_K_POPULATION = 7,
	TOPO_K_SKEW = 8,
	TOPO_K_ZIPF_EXPONENT = 9,
	TOPO_K_ARRIVALS = 10,
	TOPO_K_SOURCE_BLOCK = 11,
	TOPO_K_RESOLVER_WEIGHTS = 12,
	TOPO_K_PROTO = 13,
	TOPO_K_ADDRESSES = 15,
	TOPO_K_RESOLVE = 17,
	TOPO_K_DNS_CACHE = 18,
	TOPO_K_REQUESTS_PER_CONN = 19,
	TOPO_K_IDLE_TIMEOUT = 20,
	TOPO_K_PIPELINE = 21,
	TOPO_K_FAMILY = 22,

	TOPO_K_PROBER_PROBE_INTERVAL = 1, /* [prober] */
	TOPO_K_PROBER_PROBE_TIMEOUT = 2,
	TOPO_K_PROBER_FAMILY = 8,

	TOPO_K_COUNT = 1, /* [resolver] */
	TOPO_K_IMPL = 2,
	TOPO_K_RSV_MODE = 3,

	TOPO_K_ZONES = 3, /* [dns] */
	TOPO_K_DNS_ANYCAST = 10,
};

/* A client's `resolver = NAME` or `resolver = NAME.N` as written. */
struct topo_resolver_ref {
	char name[TOPO_NAME_MAX + 1];
	unsigned instance; /* N, 1..TOPO_RESOLVER_COUNT_MAX; 0 if not written */
};

/* topo_check_anycast: each [dns] node's anycast address: not the
 * service's or a site's, routing = static, the same zones as the nodes it
 * shares it with (topology_anycast.c); after the zones are known */
struct topo_parse;
void topo_check_anycast(struct topo_parse *p);

/* topo_ip6_defaults: ip = 6: the [lab]'s family and every [prober]'s 6
 * unless written; topo_check_ip6: what ip = 6 cannot have yet refused by
 * name, and a client or prober of another family (topology_ip6.c) */
void topo_ip6_defaults(struct topo_parse *p);
void topo_check_ip6(struct topo_parse *p);

/* topo_check_front_doors: each [site]'s front_door: not
 * the service's, a site's or an anycast name server's address, authd
 * beside it, at most 8 anycast prefixes, no anycast client left without
 * the service (topology_anycast.c) */
void topo_check_front_doors(struct topo_parse *p);

/* topo_keys: the keys of [lab] (kind -1) or of a node kind, in the order
 * they are printed; *n is set to their number. */
const struct topo_key *topo_keys(int kind, int *n);

/* topo_parse_value: parses s as k's type into dst (unchanged on error).
 * Returns NULL, or what was expected ("expected a ..."), possibly written
 * into why. */
const char *topo_parse_value(const struct topo_key *k, const char *s, void *dst, char *why,
			     size_t whylen);

/* topo_format_value: the value at src as topo_parse_value reads it back. */
const char *topo_format_value(const struct topo_key *k, const void *src, char *buf, size_t len);

size_t topo_value_size(enum topo_type type);

/* topo_resolverd_key: 1 if name is one of resolverd's keys a [resolver]
 * node passes on as written (min_ttl, phase, timeout, ...); -1 if it is one
 * the lab writes itself (upstream, port, ...); 0 if neither. */
int topo_resolverd_key(const char *name);
/* topo_resolverd_keys: those keys, ", "-separated, for messages. */
const char *topo_resolverd_keys(void);

/* topo_check_dname: 0 if s is a DNS name (TOPO_DNAME_RULE); a final dot is
 * allowed. */
int topo_check_dname(const char *s);

/* The state of one topo_load. */
#define TOPO_MAX_ERRORS 20
#define TOPO_MAX_RLINK_KEYS 1024

enum {
	TOPO_SECT_NONE = -1, /* before the first header */
	TOPO_SECT_SKIP = -2, /* after a bad header: its keys are ignored */
	TOPO_SECT_LAB = -3,
	TOPO_SECT_RAW = -4,
	TOPO_SECT_LINK = -5,  /* [link R1 R2]: no keys yet */
	TOPO_SECT_EVENT = -6, /* [event NAME]: p->event is its index */
	TOPO_SECT_HOST = -7,  /* [host NAME]: p->host is its index */
			      /* >= 0: index of the node; TOPO_SECT_RAW: [zone] or [name] p->raw */
};

#define TOPO_NKINDS 6 /* enum topo_kind */

struct topo_meta {
	int where[TOPO_KEYS_MAX];
	unsigned char bad[TOPO_KEYS_MAX];
	char link[TOPO_NAME_MAX + 1];
	struct topo_resolver_ref resolver;
};

/* An [event NAME] section as written: where each key was set (the keys of
 * topology_events.c, in order: at, action, target, count, period,
 * instance), and the target as written, resolved once the file is read. */
#define TOPO_EV_KEYS 12
#define TOPO_EV_IMPAIR_KEYS 12
/* the keys of an [event], in topology_events.c's table */
enum {
	TOPO_EV_AT,
	TOPO_EV_ACTION,
	TOPO_EV_TARGET,
	TOPO_EV_COUNT,
	TOPO_EV_PERIOD,
	TOPO_EV_INSTANCE,
	TOPO_EV_NAME, /* a DNS change's (topology_dnsev.c) */
	TOPO_EV_TTL,
	TOPO_EV_SITE,
	TOPO_EV_WEIGHT,
	TOPO_EV_RECORD,
	TOPO_EV_FAMILY, /* a freeze of one address family (a dual lab) */
};

struct topo_ev_meta {
	int where[TOPO_EV_KEYS];
	unsigned char bad[TOPO_EV_KEYS]; /* its value was refused (said) */
	char target[2 * TOPO_NAME_MAX + 2];
	/* action = impair: its impairment keys as written, resolved with the
	 * target (the direction needs the link's ends) */
	int nik;
	struct {
		char key[40]; /* the longest: NODE>NODE.duplicate */
		char value[64];
		int where;
	} ik[TOPO_EV_IMPAIR_KEYS];
};

struct topo_parse {
	struct topology *t;
	char *const *sets;
	struct inifile in; /* the file, the line being read, the errors */
	int sect;

	int lab_line;
	int lab_where[TOPO_KEYS_MAX];
	unsigned char lab_bad[TOPO_KEYS_MAX];
	int headers[TOPO_NKINDS]; /* node headers by kind, good or bad */
	int zone_headers;	  /* [zone] headers, good or bad */
	int raw;		  /* the raw section being read */
	int raw_full;		  /* "too many" was said: 1 sections, 2 pairs, 4 resolverd keys */
	int raw_line;		  /* of the first [zone] or [name] header */
	/* and its "[zone lab.example]", for a message after the file */
	char raw_label[TOPO_DNS_NAME_MAX + 16];
	struct topo_meta meta[TOPO_MAX_NODES];
	/* [link A B] sections as written, resolved once the file is read */
	int nrl;
	struct {
		char a[TOPO_NAME_MAX + 1], b[TOPO_NAME_MAX + 1];
		int line;
		int rlink; /* its index in t->rlinks once resolved, else -1 */
	} rl[TOPO_MAX_RLINKS];
	int event; /* the [event] section being read */
	int host;  /* the [host] section being read */
	struct topo_ev_meta evm[TOPO_MAX_EVENTS];
	/* their keys as written, resolved with them (topology_policy.c) */
	int nrlkeys;
	struct {
		int rl;	      /* index in rl */
		char key[40]; /* the longest: NODE>NODE.duplicate */
		char value[64];
		int line;
	} rlkeys[TOPO_MAX_RLINK_KEYS];
};

/* topo_error: prints "path:line: ", "--set ARG: " or "path: " (by where),
 * then the message, and counts the error. */
__attribute__((format(printf, 3, 4))) void topo_error(struct topo_parse *p, int where,
						      const char *fmt, ...);

/* topo_set: sets key name of section sect (a node index or TOPO_SECT_LAB)
 * to value, as written at where; reports what is wrong with it. */
void topo_set(struct topo_parse *p, int sect, const char *name, const char *value, int where);

const struct topo_key *topo_sect_keys(const struct topo_parse *p, int sect, int *n);
/* topo_label: "[lab]" or "[site a]" for messages; returns buf or a constant. */
const char *topo_label(const struct topo_parse *p, int sect, char *buf, size_t len);
/* topo_where: where key (an index in topo_sect_keys) of sect was set. */
int *topo_where(struct topo_parse *p, int sect, int key);
/* topo_bad: whether its last value was rejected (nothing more to say). */
unsigned char *topo_bad(struct topo_parse *p, int sect, int key);

/* topo_apply_set: applies the override p->sets[i]. */
void topo_apply_set(struct topo_parse *p, int i);
/* topo_check_routers: [link] sections to routers, their addresses, AS
 * numbers and router ids, and one connected graph (topology_routers.c). */
void topo_check_routers(struct topo_parse *p);

/* The timeline (topology_events.c): an [event NAME] header; one of its
 * keys (from the file or --set); the index of the event called name or -1;
 * the checks once the file and the overrides are in (after the nodes and
 * links: targets, kinds, instants, what each recover undoes), sorting the
 * timeline; and its sections for topo_print. */
void topo_event_header(struct topo_parse *p, const char *name, const char *extra);
void topo_event_set(struct topo_parse *p, int ev, const char *key, const char *value, int where);
int topo_find_event(const struct topology *t, const char *name);
void topo_check_events(struct topo_parse *p);
void topo_print_events(const struct topology *t, FILE *out);

/* The timeline's DNS changes (topology_dnsev.c): topo_dnsev_check, a DNS
 * change's keys there (and only there), each its action's; topo_dnsev_resolve,
 * its [dns] node, the name's zone's, as target says or found; both 0, or
 * -1 (said). topo_dnsev_print: its keys for topo_print. */
int topo_dnsev_check(struct topo_parse *p, int ev);
int topo_dnsev_resolve(struct topo_parse *p, int ev);
void topo_dnsev_print(const struct topo_event *e, FILE *out);

/* topo_check: once the file and the overrides are in: defaults into the
 * nodes, links and addresses, and the checks that span keys. */
void topo_check(struct topo_parse *p);

/* topology_bgp.c: routing and FRR's knobs. topo_bgp_defaults: their
 * defaults into t. topo_frr_line: a node's `frr = value`, kept as written.
 * topo_check_bgp: the knobs' units and ranges, the sites' default ASNs,
 * an AS of its own for each site. topo_bgp_only: key (of node, NULL for
 * [lab]) is one that matters only when routing = bgp, and t's routing is
 * not (topo_print leaves it out). */
void topo_bgp_defaults(struct topology *t);
void topo_frr_line(struct topo_parse *p, int sect, const char *value, int where);
void topo_check_bgp(struct topo_parse *p);
int topo_bgp_only(const struct topology *t, const struct topo_node *node, const char *key);

/* topology_tree.c: the lab's DNS tree. topo_tree_nodes: with [lab]
 * dns_tree, the root and TLD zones and their [dns] nodes, before the links
 * are numbered. topo_tree_zones: once the links are, which [dns] node
 * serves which zone (zones =), the parents, what the user wrote, and the
 * [resolver] nodes' mode. topo_zone_norm: a zone or DNS name lower-cased
 * with a final dot ("." for the root) into out (TOPO_DNS_NAME_MAX + 2). */
void topo_tree_nodes(struct topo_parse *p);
void topo_tree_zones(struct topo_parse *p);
void topo_zone_norm(const char *name, char *out);

/* topology_policy.c: what shapes catchments and the per-node and per-link
 * timers. topo_rlink_key: a key of the [link] being read, kept as written.
 * topo_check_policy: once the routers are resolved, the [link]s' keys into
 * t->rlinks, and the units of the nodes' and links' timers.
 * topo_print_rlink_keys: a [link]'s keys as topo_load reads them back. */
void topo_rlink_key(struct topo_parse *p, const char *name, const char *value);
void topo_check_policy(struct topo_parse *p);
void topo_print_rlink_keys(const struct topology *t, int j, FILE *out);

/* topology_hosts.c: one lab over several hosts. topo_host_header: a [host
 * NAME] header; topo_host_key: one of its keys (address, ssh);
 * topo_check_hosts: once the nodes are read, each node's `host` resolved,
 * the host TOPO_HOST_LOCAL added if a node has none, the addresses, and
 * what only simulated hosts allow. */
void topo_host_header(struct topo_parse *p, const char *name, const char *extra);
void topo_host_key(struct topo_parse *p, const char *name, const char *value);
void topo_check_hosts(struct topo_parse *p);

/* topology_impair.c: the impairment keys of [link] sections.
 * topo_impair_key: 1 if a [link]'s key as written ("delay",
 * "c1>core.delay") is one. topo_check_impair: once the links are made,
 * [link NODE ROUTER] sections resolved to the node's link, every
 * impairment key into its link's directions, and each client's and
 * prober's timeout against its paths' configured RTT.
 * topo_print_impair_keys: [link]'s impairment keys (rlink j, or node link
 * l if j is -1) as topo_load reads them back. */
int topo_impair_key(const char *key);
void topo_check_impair(struct topo_parse *p);
void topo_print_impair_keys(const struct topology *t, int j, int l, FILE *out);

#endif
