/*
 * The DNS side of the run's recorded topology (plan.json, or topology.ini
 * in a run directory from before it; read by clocks_topo.c): the [resolver] nodes in file order
 * (the k-th has the k-th block of lib/addrplan.h, cache i at .i: CLOCKS_RSV_BLOCK) and their impl,
 * the [dns] nodes with their level in the DNS tree, the clients and the [resolver] node each asks,
 * the steered names and their TTLs.
 */
#ifndef STEERLAB_CLOCKS_TOPO_H
#define STEERLAB_CLOCKS_TOPO_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>

#include "addrplan.h"
#include "clocks_base.h"

#define CLOCKS_MAX_RSV_NODES ADDRPLAN_RESOLVERS_MAX
#define CLOCKS_MAX_DNS_NODES 64
#define CLOCKS_MAX_TOPO_CLIENTS 256
/* the k-th [resolver] node's /24, host order */
#define CLOCKS_RSV_BLOCK(k) ntohl(addrplan_resolver_block((unsigned)(k)).s_addr)

enum clocks_level {
	CLOCKS_LEVEL_ROOT, /* serves "." */
	CLOCKS_LEVEL_TLD,  /* a zone of one label */
	CLOCKS_LEVEL_ZONE, /* any other */
	CLOCKS_LEVELS,
};

extern const char *const clocks_level_names[CLOCKS_LEVELS]; /* "root", "tld", "zone" */

#define CLOCKS_TOPO_WEIGHTS 16

struct clocks_topo_dns {
	int nrsv;
	struct clocks_rsv_node {
		char name[CLOCKS_NAME_MAX];
		char impl[CLOCKS_NAME_MAX]; /* its impl key; "" when the topology has none */
		int count;		    /* caches; 0 if not said */
	} rsv[CLOCKS_MAX_RSV_NODES];
	int ndns;
	int nown; /* of them, those that check the sites themselves (own_checks) */
	struct clocks_dns_node {
		char name[CLOCKS_NAME_MAX];
		enum clocks_level level;
		/* impl = pdns or gdnsd: it checks the sites itself (gdnsd:
		 * its failure counter too, reset by CLOCKS_GDNSD_OK in a row) */
		int own_checks, gdnsd;
		struct in_addr addr;	  /* its link address (plan.json; 0: not said) */
		int64_t check_timeout_ns; /* its checks' timeout */
		int check_down, check_up; /* failures that take a site out, successes back */
	} dns[CLOCKS_MAX_DNS_NODES];
	int nclients;
	struct clocks_topo_client {
		char name[CLOCKS_NAME_MAX];
		int rsv;		      /* the [resolver] node it asks (index), -1: none */
		char router[CLOCKS_NAME_MAX]; /* its link key: its router; "" unknown */
		char dns_name[CLOCKS_DNS_NAME_MAX]; /* its name key: what it asks; "" unknown */
		int proto; /* its proto key: 0 not said (the [lab]'s), 1 udp, 2 tcp */
	} clients[CLOCKS_MAX_TOPO_CLIENTS];
	/* a client sends over TCP ([lab] or [client] proto = tcp): the
	 * verdict's checks that take one datagram for one request stand aside */
	int tcp;
	/* the [name] sections: each steered name and its TTL (-1: not said) */
	int nnames;
	struct clocks_topo_name {
		char name[CLOCKS_DNS_NAME_MAX];
		int64_t ttl_s;
		/* its policy, failover's primary and weighted's weights (the
		 * steering's targets: clocks_steering.c); "" and 0 if not said */
		char policy[16];
		char primary[CLOCKS_NAME_MAX];
		int nweights;
		char wsite[CLOCKS_TOPO_WEIGHTS][CLOCKS_NAME_MAX];
		int64_t weight[CLOCKS_TOPO_WEIGHTS];
		/* the name in wire form, to tell its queries on the authd
		 * links (clocks_topo_name_of); wire[0] 0: none */
		uint8_t wire[CLOCKS_DNS_NAME_MAX];
		/* the [dns] node (index in dns[]) that serves it: the one
		 * with the closest enclosing zone (plan.json); -1: none */
		int server;
	} names[CLOCKS_MAX_DNS_NODES];
	/* [lab] dns_name: what a client without a name key asks */
	char lab_name[CLOCKS_DNS_NAME_MAX];
	/* [lab] target_share: the shares the operator intends each site to
	 * carry (seed 000's T3), the target of a name whose policy defines
	 * none; ntarget 0: not said */
	int ntarget;
	char tsite[CLOCKS_TOPO_WEIGHTS][CLOCKS_NAME_MAX];
	double tweight[CLOCKS_TOPO_WEIGHTS];
	/* the sites with a front_door (plan.json): the anycast address each
	 * announces and DNS hands out for it, shared with its region's */
	int nfront;
	struct clocks_front_door {
		char site[CLOCKS_NAME_MAX];
		struct in_addr addr;
	} front[CLOCKS_MAX_DNS_NODES];
};

/* clocks_dns_level: the level of a [dns] node serving the n zones (names
 * in text, final dot or not): root if one is ".", else tld if one has a
 * single label, else zone (also for n = 0). A node serving several levels
 * is given the highest. */
enum clocks_level clocks_dns_level(const char *const *zones, int n);

struct clocks_input;

/* clocks_topo_name_of: 1 + the index of the [name] whose name the n
 * captured bytes at qname start with (a query's question), 0 if none
 * does or they hold no name */
int clocks_topo_name_of(const struct clocks_topo_dns *t, const uint8_t *qname, size_t n);

/* clocks_rsv_of_addr: the [resolver] node (index) whose block holds a,
 * -1 if none does */
int clocks_rsv_of_addr(const struct clocks_input *in, struct in_addr a);

/* clocks_rsv_of_client: the [resolver] node (index) that DNS client id
 * client asks: its node's [client] resolver key, else its client_started
 * resolver address; -1 if none */
int clocks_rsv_of_client(const struct clocks_input *in, uint32_t client);

#endif
