/*
 * resolverd's configuration file (docs/resolverd.md): an INI file read
 * with the lab's INI front-end (lib/inifile.h).
 *
 *   [resolverd]            the process: mode, upstream (forward) or root,
 *                          qname_minimisation, ecs and transport (iterate),
 *                          timeout, retries, port, tcp, stats_interval,
 *                          max_pending; and the default of every cache key
 *   [resolver NAME]        one cache: address, address6 (either or both),
 *                          and any cache key
 *   [resolvers PREFIX]     count caches PREFIX1..PREFIXcount at
 *                          first_address and the addresses after it, and/or
 *                          first_address6 and the IPv6 addresses after it
 *
 * A cache with an IPv6 address alone (v6only) listens, and asks every
 * server, on it alone: its servers must all be IPv6 (transport = 6).
 *
 * Cache keys: min_ttl, max_ttl, neg_max_ttl, serve_stale, stale_ttl,
 * max_stale, stale_recheck, prefetch, phase, max_entries. A key set in a
 * resolver's section wins over [resolverd], which wins over the built-in
 * default, wherever the sections are in the file.
 *
 * Errors name the file and line ("resolverd.ini:7: max_ttl: expected a TTL
 * such as 300 or 5m, got 'x'"); all of them are reported, not just the
 * first.
 *
 * A server (upstream, root) is IPv4 or IPv6. The lists keep an IPv4 one as
 * a struct sockaddr_in, as they always have (the IPv4 code, the unit tests
 * and tests/fuzz/resolverd_env.c read them so); an IPv6 one is an entry
 * of family AF_INET6 (and its port) whose twin of the same index in the
 * list's sockaddr_in6 array holds the whole address. A query's server and
 * a client's address are kept as such pairs too; rsv_sa() gives the
 * socket address a pair stands for.
 */
#ifndef STEERLAB_RESOLVERD_CONFIG_H
#define STEERLAB_RESOLVERD_CONFIG_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "addr.h"
#include "cache.h"

#define RSV_NAME_MAX 32
#define RSV_UPSTREAM_MAX 8
#define RSV_INST_MAX 4096

/* "[IPV6]:PORT" and its NUL */
#define RSV_SA_STRLEN (INET6_ADDRSTRLEN + 8)

struct rsv_inst_conf {
	char name[RSV_NAME_MAX + 1];
	struct in_addr addr;	    /* address: unless v6only */
	struct in6_addr addr6;	    /* address6: if has_addr6, */
	int has_addr6;		    /* it listens there too, and asks IPv6 servers from it */
	int v6only;		    /* no address: addr6 alone (addr is 0.0.0.0) */
	struct rsv_cache_cfg cache; /* phase spread already resolved */
	int line;		    /* its section header */
};

enum rsv_mode {
	RSV_MODE_FORWARD, /* every miss asked of the upstream(s) */
	RSV_MODE_ITERATE, /* every miss walked from the root hints (iter.h) */
};

struct rsv_conf {
	enum rsv_mode mode;
	struct sockaddr_in upstream[RSV_UPSTREAM_MAX];	 /* forward */
	struct sockaddr_in6 upstream6[RSV_UPSTREAM_MAX]; /* the IPv6 ones (above) */
	int nupstream;
	struct sockaddr_in root[RSV_UPSTREAM_MAX]; /* iterate: the root hints */
	struct sockaddr_in6 root6[RSV_UPSTREAM_MAX];
	int nroot;
	int qname_minimisation; /* iterate: RFC 9156 */
	int ecs;		/* iterate: pass the client's subnet on (RFC 7871) */
	int transport;		/* iterate: 6 asks every server at its IPv6 address; else 4 */
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

/* rsv_sa_is6: is the pair whose IPv4 half is a an IPv6 address? */
static inline int rsv_sa_is6(const struct sockaddr_in *a)
{
	return a->sin_family == AF_INET6;
}

/* rsv_conf_up6: do c's resolvers ask IPv6 servers (an IPv6 upstream, or
 * transport = 6)? */
static inline int rsv_conf_up6(const struct rsv_conf *c)
{
	if (c->mode == RSV_MODE_ITERATE)
		return c->transport == 6;
	for (int i = 0; i < c->nupstream; i++)
		if (rsv_sa_is6(&c->upstream[i]))
			return 1;
	return 0;
}

/* rsv_inst_addr_str: in's address as text, as log lines, events and the
 * CSV name it: its IPv4 address, or its IPv6 one if it has none. */
static inline const char *rsv_inst_addr_str(const struct rsv_inst_conf *in, char *buf, size_t len)
{
	if (in->v6only)
		return inet_ntop(AF_INET6, &in->addr6, buf, (socklen_t)len);
	return inet_ntop(AF_INET, &in->addr, buf, (socklen_t)len);
}

/* rsv_sa: the socket address the pair (a, a6) stands for: a, or a6 when a
 * is of family AF_INET6; its length in *len. */
static inline const struct sockaddr *rsv_sa(const struct sockaddr_in *a,
					    const struct sockaddr_in6 *a6, socklen_t *len)
{
	if (rsv_sa_is6(a)) {
		*len = sizeof(*a6);
		return (const struct sockaddr *)a6;
	}
	*len = sizeof(*a);
	return (const struct sockaddr *)a;
}

/* rsv_sa_set: the pair (a, a6) for sa, of either family (an IPv4 one: a,
 * byte for byte; an IPv6 one: a holds its family and port). */
static inline void rsv_sa_set(struct sockaddr_in *a, struct sockaddr_in6 *a6,
			      const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET6) {
		memcpy(a6, sa, sizeof(*a6));
		memset(a, 0, sizeof(*a));
		a->sin_family = AF_INET6;
		a->sin_port = a6->sin6_port;
	} else {
		memcpy(a, sa, sizeof(*a));
	}
}

/* rsv_sa_equal: x and y name the same address and port (an address not of
 * family AF_INET6 is taken as IPv4, as the IPv4 code always has). */
static inline int rsv_sa_equal(const struct sockaddr *x, const struct sockaddr *y)
{
	const struct sockaddr_in6 *x6 = (const struct sockaddr_in6 *)x;
	const struct sockaddr_in6 *y6 = (const struct sockaddr_in6 *)y;
	const struct sockaddr_in *x4 = (const struct sockaddr_in *)x;
	const struct sockaddr_in *y4 = (const struct sockaddr_in *)y;

	if ((x->sa_family == AF_INET6) != (y->sa_family == AF_INET6))
		return 0;
	if (x->sa_family == AF_INET6)
		return x6->sin6_port == y6->sin6_port &&
		       memcmp(&x6->sin6_addr, &y6->sin6_addr, sizeof(x6->sin6_addr)) == 0;
	return x4->sin_port == y4->sin_port && x4->sin_addr.s_addr == y4->sin_addr.s_addr;
}

/* rsv_sa_str: sa as "ADDR:PORT" or "[IPV6]:PORT" in buf (RSV_SA_STRLEN
 * bytes will do); returns buf. */
static inline const char *rsv_sa_str(const struct sockaddr *sa, char *buf, size_t len)
{
	return addr_sa_str(sa, buf, len);
}

#endif
