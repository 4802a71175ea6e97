/*
 * The resolver measurements (clocks_resolvers.c; docs/clocks.md,
 * "Resolvers"), per [resolver] node of the recorded topology, from the
 * captures: its queries upstream per level of the DNS tree, the share of
 * its clients' queries it answered from its cache, and how its DNS clients
 * left the dead site.
 */
#ifndef STEERLAB_CLOCKS_RESOLVERS_H
#define STEERLAB_CLOCKS_RESOLVERS_H

#include <stddef.h>
#include <stdint.h>

#include "clocks_captures.h"
#include "clocks_input.h"
#include "clocks_topo.h"

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

/* one client query answered, as clocks_cache_classify saw it: when it
 * reached the node, how long its answer took, who asked, and whether an
 * upstream answer reached its cache between (upstream: a cache miss) or it
 * was a SERVFAIL with none (servfail); else a cache hit */
struct clocks_cache_txn {
	int64_t t_ns, latency_ns;
	struct in_addr client;
	int upstream, servfail;
};
typedef void (*clocks_cache_fn)(void *arg, const struct clocks_cache_txn *tx);

/* clocks_cache_each: fn(arg, tx) for every client query of m[0..n) that
 * arrived after from_ns and was answered, classified as
 * clocks_cache_classify does. 0, or -1 (out of memory). */
int clocks_cache_each(const struct clocks_dnsmsg *m, size_t n, uint32_t block, int64_t from_ns,
		      clocks_cache_fn fn, void *arg);

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

#endif
