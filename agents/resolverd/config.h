/*
 * resolverd's configuration file (docs/resolverd.md): an INI file read
 * with the lab's INI front-end (lib/inifile.h).
 *
 *   [resolverd]            the process: mode, upstream (forward) or root,
 *                          qname_minimisation and ecs (iterate), timeout,
 *                          retries, port, tcp, stats_interval, max_pending;
 *                          and the default of every cache key
 *   [resolver NAME]        one cache: address, and any cache key
 *   [resolvers PREFIX]     count caches PREFIX1..PREFIXcount at
 *                          first_address and the addresses after it
 *
 * Cache keys: min_ttl, max_ttl, neg_max_ttl, serve_stale, stale_ttl,
 * max_stale, stale_recheck, prefetch, phase, max_entries. A key set in a
 * resolver's section wins over [resolverd], which wins over the built-in
 * default, wherever the sections are in the file.
 *
 * Errors name the file and line ("resolverd.ini:7: max_ttl: expected a TTL
 * such as 300 or 5m, got 'x'"); all of them are reported, not just the
 * first.
 */
#ifndef STEERLAB_RESOLVERD_CONFIG_H
#define STEERLAB_RESOLVERD_CONFIG_H

#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>

#include "cache.h"

#define RSV_NAME_MAX 32
#define RSV_UPSTREAM_MAX 8
#define RSV_INST_MAX 4096

struct rsv_inst_conf {
	char name[RSV_NAME_MAX + 1];
	struct in_addr addr;
	struct rsv_cache_cfg cache; /* phase spread already resolved */
	int line;		    /* its section header */
};

enum rsv_mode {
	RSV_MODE_FORWARD, /* every miss asked of the upstream(s) */
	RSV_MODE_ITERATE, /* every miss walked from the root hints (iter.h) */
};

struct rsv_conf {
	enum rsv_mode mode;
	struct sockaddr_in upstream[RSV_UPSTREAM_MAX]; /* forward */
	int nupstream;
	struct sockaddr_in root[RSV_UPSTREAM_MAX]; /* iterate: the root hints */
	int nroot;
	int qname_minimisation; /* iterate: RFC 9156 */
	int ecs;		/* iterate: pass the client's subnet on (RFC 7871) */
	int64_t timeout_ns;	/* one upstream attempt */
	unsigned retries;	/* attempts after the first */
	uint16_t port;		/* the resolvers listen on */
	int tcp;		/* also listen on TCP */
	int64_t stats_ns;	/* resolver_stats period */
	unsigned max_pending;
	struct rsv_cache_cfg defaults;
	struct rsv_inst_conf *inst;
	int ninst;
};

/* rsv_conf_load: reads path into c, writing every error to err as
 * "path:line: message". 0, or -1 (c holds nothing to free). */
int rsv_conf_load(struct rsv_conf *c, const char *path, FILE *err);

/* rsv_conf_load_stream: the same from an open stream named name. */
int rsv_conf_load_stream(struct rsv_conf *c, FILE *f, const char *name, FILE *err);

void rsv_conf_free(struct rsv_conf *c);

/* rsv_conf_print: c as a configuration file with every value explicit and
 * one [resolver NAME] per cache (groups expanded, phases resolved), which
 * reads back as the same configuration. */
void rsv_conf_print(const struct rsv_conf *c, FILE *out);

/* rsv_conf_defaults: the built-in cache defaults. */
void rsv_conf_defaults(struct rsv_cache_cfg *cfg);

#endif
