/*
 * authd's data: everything the configuration says, in the shape the query
 * path wants it (docs/authd.md).
 *
 * A zone is a set of nodes, one per owner name, each holding static RRsets
 * and, for a [name] section, a steering policy. All nodes of all zones are
 * in one open-addressing hash table keyed by the lowercased wire name, so an
 * exact lookup is one hash and usually one compare. Every ancestor of an
 * owner up to its zone's apex is a node too (an empty non-terminal when it
 * holds nothing), so the closest encloser of any name is found by stripping
 * labels until a lookup hits. Each node knows the delegation it lies at or
 * below (cut), so a referral needs no walk at query time, and each NS, MX or
 * SRV RRset knows the address RRsets of its in-zone targets (glue).
 *
 * The database is built once by conf.c and then only read, apart from the
 * per-name smooth-weighted-round-robin counters that policy.c updates and
 * the changes of a run (change.h: a TTL, a weight, a record added or
 * removed, the SOA serial), after which authd_db_refresh() computes again
 * what the nodes imply.
 */
#ifndef STEERLAB_AUTHD_DB_H
#define STEERLAB_AUTHD_DB_H

#include <libknot/libknot.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#include "addr.h"

#define AUTHD_MAX_SITES 64     /* site sets are uint64_t masks */
#define AUTHD_PATTERN_MAX 256  /* weighted pattern: its entries */
#define AUTHD_SITE_LEN 16      /* the wire's site field (lib/wire.h) */
#define AUTHD_SITE_ADDRS 8     /* addresses of one family per site */
#define AUTHD_MAX_LISTEN 8     /* listen addresses */
#define AUTHD_MULTIVALUE_MAX 8 /* records in a multivalue answer */

enum authd_policy_kind {
	AUTHD_SIMPLE,
	AUTHD_MULTIVALUE,
	AUTHD_FAILOVER,
	AUTHD_WEIGHTED,
	AUTHD_GEOLOCATION,
	AUTHD_LATENCY,
	AUTHD_PROXIMITY,
};

enum authd_all_dead {
	AUTHD_FAIL_DEFAULT = -1, /* a [name]: the [server]'s choice */
	AUTHD_FAIL_OPEN = 0,	 /* the policy runs as if every candidate were healthy */
	AUTHD_FAIL_CLOSED = 1,	 /* nothing is handed out (NODATA) */
};

/* an address family index: answers are built per family */
enum authd_family {
	AUTHD_V4 = 0,
	AUTHD_V6 = 1,
};

struct authd_site {
	char name[AUTHD_SITE_LEN + 1];
	int line;
	int naddr[2];
	uint8_t addr[2][AUTHD_SITE_ADDRS][16];
	/* the site's addresses as one rdataset per family, for one-site answers */
	knot_rdataset_t rrs[2];
};

struct authd_geo {
	struct addr_prefix net;
	int site; /* a slot: an index into the name's sites[] */
	int line;
};

struct authd_vantage {
	struct addr_prefix net;
	int prober; /* index in the health table (health.h) */
	int line;
};

/* a proximity tier (`tier = TARGET SITE ...`): a level-2 name, handed out as
 * a CNAME to it, standing for its sites (seed 003's tiered zones) */
struct authd_tier {
	knot_rdata_t *cname; /* the CNAME's rdata: TARGET in wire form */
	char text[KNOT_DNAME_TXT_MAXLEN + 1];
	int line;
};

struct authd_name {
	knot_dname_t *owner;
	char text[KNOT_DNAME_TXT_MAXLEN + 1];
	int line;
	enum authd_policy_kind policy;
	uint32_t ttl;
	enum authd_all_dead all_dead;
	/* candidates in order: simple, multivalue and latency hand these out;
	 * failover: [0] primary, then the secondaries; weighted: the sites
	 * with a weight; geolocation: the fallback order */
	int nsites;
	int sites[AUTHD_MAX_SITES];
	uint32_t weight[AUTHD_MAX_SITES]; /* weighted: parallel to sites */
	int weighted_random;		  /* weighted_mode = random */
	int ngeo;
	struct authd_geo *geo;
	int default_site; /* geolocation: a slot, or -1 if none */
	int nvantage;
	struct authd_vantage *vantage;
	/* weighted, swrr: current weights, per family, parallel to sites */
	int64_t swrr[2][AUTHD_MAX_SITES];
	/* geolocation `fallback = A:B ...`: slot + 1 of the site that takes a
	 * dead slot's users (0: none), parallel to sites */
	int fallback[AUTHD_MAX_SITES];
	/* weighted `pattern = A B ...`: the rotation, slots, answered in turn
	 * (per family: pattern_pos) instead of smooth weighted round robin */
	int npattern;
	int pattern[AUTHD_PATTERN_MAX];
	unsigned pattern_pos[2];
	/* proximity: the round robin's next turn when the querier is not
	 * measured, per family */
	unsigned rr_pos[2];
	/* proximity with tiers: the candidates are the tiers; each slot
	 * (site) belongs to tier_of[slot]; ntiers 0: no tiers */
	int ntiers;
	struct authd_tier *tiers;
	int8_t tier_of[AUTHD_MAX_SITES];
};

struct authd_zone;

/* an RRset with the address RRsets of its in-zone targets */
struct authd_rrset {
	knot_rrset_t rr;
	int line;
	int nextra;
	const knot_rrset_t **extra;
};

struct authd_node {
	knot_dname_t *owner; /* lowercased wire form */
	size_t owner_len;
	uint32_t hash;
	struct authd_zone *zone;
	struct authd_node *cut;	 /* the delegation this node is at or below, or NULL */
	struct authd_name *name; /* a steered name, or NULL */
	int nrrsets;
	struct authd_rrset *rrsets;
	int line;
};

struct authd_zone {
	knot_dname_t *apex;
	char text[KNOT_DNAME_TXT_MAXLEN + 1];
	int line;
	uint32_t ttl;
	struct authd_node *apex_node;
	knot_rrset_t soa;     /* TTL = the zone's ttl */
	knot_rrset_t soa_neg; /* the same rdata, TTL = min(SOA TTL, MINIMUM) (RFC 2308) */
};

struct authd_server_conf {
	int nlisten;
	struct sockaddr_storage listen[AUTHD_MAX_LISTEN];
	int has_control;
	struct sockaddr_storage control;
	double quorum;
	enum authd_all_dead all_dead;
	uint16_t udp_max; /* the largest UDP response, with EDNS */
	int64_t tcp_idle_ns;
	int tcp_max; /* concurrent TCP connections */
	/* a proximity measurement older than this stands for nothing */
	int64_t proximity_stale_ns;
};

struct authd_db {
	struct authd_server_conf server;
	int nzones;
	struct authd_zone **zones;
	int nsites;
	struct authd_site sites[AUTHD_MAX_SITES];
	int nnames;
	struct authd_name **names;
	int nprobers; /* prober ids named by vantage lines, in order */
	char **probers;
	/* nodes */
	size_t nnodes, nodes_cap;
	struct authd_node **nodes;
	size_t hash_mask;
	struct authd_node **hash;
};

struct authd_db *authd_db_new(void);
void authd_db_free(struct authd_db *db);

/* authd_db_hash: the hash of a lowercased wire name of len bytes. */
uint32_t authd_db_hash(const uint8_t *name, size_t len);

/* authd_db_node: the node of a lowercased wire name, creating it (and
 * nothing else) if create. NULL if absent (or out of memory). */
struct authd_node *authd_db_node(struct authd_db *db, const knot_dname_t *name, int create);

/* authd_db_find: lookup only; the query path. */
const struct authd_node *authd_db_find(const struct authd_db *db, const knot_dname_t *name);

/* authd_db_encloser: the node of name or of its closest ancestor that is a
 * node; *exact is set when it is name itself. NULL outside every zone. */
const struct authd_node *authd_db_encloser(const struct authd_db *db, const knot_dname_t *name,
					   int *exact);

/* authd_db_zone_of: the configured zone name lies in, the most specific
 * one, or NULL. Used while loading, before the nodes exist. */
struct authd_zone *authd_db_zone_of(const struct authd_db *db, const knot_dname_t *name);

/* authd_node_rrset: the node's RRset of type, or NULL. */
const struct authd_rrset *authd_node_rrset(const struct authd_node *n, uint16_t type);

/* authd_db_add_rdata: adds one record to the node's RRset of its type,
 * creating the RRset. A different TTL from the RRset's is refused:
 * returns -2 and sets *first_line to the line that set it. 0, or -1 out
 * of memory. */
int authd_db_add_rdata(struct authd_node *n, uint16_t type, uint32_t ttl, const uint8_t *rdata,
		       uint16_t len, int line, int *first_line);

/* authd_db_finalize: empty non-terminals, delegations, glue, the one-site
 * rdatasets. Problems (CNAME beside other data, data below a delegation
 * other than glue) are written to err as "path:line: ..." and counted;
 * returns their number, or -1 out of memory. */
int authd_db_finalize(struct authd_db *db, const char *path, FILE *err);

/* authd_db_refresh: what the nodes imply, computed again after a change
 * (change.h): every ancestor of a node a node (empty non-terminals), each
 * node's zone and delegation, the glue of every NS, MX and SRV RRset.
 * 0, or -1 out of memory. */
int authd_db_refresh(struct authd_db *db);

/* authd_db_remove_node: n out of the database and freed (the caller
 * refreshes). 0, or -1 if n is not one of its nodes or out of memory
 * (then it stays). */
int authd_db_remove_node(struct authd_db *db, struct authd_node *n);

/* authd_prefix_match: does p contain the first p->len bits of addr (a
 * family address)? */
int authd_prefix_match(const struct addr_prefix *p, int family, const uint8_t *addr);

/* authd_family_index: AUTHD_V4 for AF_INET, AUTHD_V6 for AF_INET6. */
static inline int authd_family_index(int family)
{
	return family == AF_INET6 ? AUTHD_V6 : AUTHD_V4;
}

const char *authd_policy_name(enum authd_policy_kind k);

#endif
