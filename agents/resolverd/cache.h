/*
 * One resolver's cache: a pure module, no sockets and no clock. Every call
 * that needs the time takes it as `now` (ns, CLOCK_MONOTONIC in resolverd,
 * any fake clock in the tests).
 *
 * An entry is one answer, keyed by (qname, qtype, qclass) with the name in
 * lower-case wire form. It holds the upstream's message as received (the
 * caller rewrites its TTLs when answering, msg.h) and the times that decide
 * its fate:
 *
 *   stored_at   when the answer was stored
 *   expires_at  stored_at + ttl, minus the phase offset on a first fill
 *   ttl         the answer's TTL after the clamps, in seconds
 *
 * TTL clamps (RFC 1035 7.3 lets a resolver bound them): a positive answer's
 * TTL is raised to min_ttl and cut to max_ttl; a negative one (NXDOMAIN or
 * NODATA, its TTL from the SOA, RFC 2308) is only cut to neg_max_ttl. A TTL
 * of 2^31 or more counts as 0 (RFC 2181 8). An answer whose TTL is 0 after
 * the clamps is not stored, and an older entry for its key is removed.
 *
 * An entry is fresh while now < expires_at: exactly at expires_at it has
 * expired. It is answered with the whole seconds left, rounded down, so a
 * client's copy never outlives the resolver's. An expired entry stays in
 * the table: with serve_stale it may be answered (with stale_ttl) after a
 * refresh failed, until expires_at + max_stale (RFC 8767), and for
 * stale_recheck after such a failure every lookup is answered stale without
 * asking upstream again (RFC 8767 5, "failure recheck"). A successful store
 * replaces the entry in place.
 *
 * Prefetch: a hit that finds less than prefetch_pct percent of ttl left
 * asks the caller, once per stored answer, to refresh it in the background.
 *
 * Phase (the first fill): the first time a key is stored in this cache
 * (that is, when the table holds no entry for it), its expiry is brought
 * forward by an offset, as if the cache had fetched it that much earlier:
 * a fraction f of the TTL (offset = f * ttl) or a fixed duration d
 * (offset = d mod ttl). Every later store of the key uses the full TTL, so
 * the cache keeps the phase it was given. resolverd turns `phase = spread`
 * into the fraction k/M for the k-th of the M resolvers so configured.
 *
 * Bounded size: at most max_entries entries; storing a new key into a full
 * table evicts the least recently used entry (lookups and stores count as
 * uses, whatever they find). An evicted key that comes back is a first
 * fill again.
 */
#ifndef STEERLAB_RESOLVERD_CACHE_H
#define STEERLAB_RESOLVERD_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "hmap.h"

#define RSV_DNAME_MAX 255
#define RSV_TTL_MAX 0x7fffffffu

enum rsv_kind {
	RSV_POSITIVE, /* NOERROR with an answer */
	RSV_NXDOMAIN, /* NXDOMAIN with a SOA */
	RSV_NODATA,   /* NOERROR, no answer, a SOA */
};

enum rsv_phase {
	RSV_PHASE_NONE,
	RSV_PHASE_FRACTION, /* phase_frac of the TTL, [0, 1) */
	RSV_PHASE_OFFSET,   /* phase_ns modulo the TTL */
	RSV_PHASE_SPREAD,   /* configuration only: resolved to a fraction */
};

struct rsv_cache_cfg {
	uint32_t min_ttl, max_ttl; /* seconds, positive answers */
	uint32_t neg_max_ttl;	   /* seconds, negative answers */
	int serve_stale;
	uint32_t stale_ttl; /* seconds, the TTL of a stale answer */
	int64_t max_stale_ns;
	int64_t stale_recheck_ns;
	unsigned prefetch_pct; /* 0: no prefetch; else 1..99 */
	enum rsv_phase phase;
	double phase_frac;
	int64_t phase_ns;
	unsigned max_entries;
};

struct rsv_key {
	uint16_t type, cls;
	uint8_t len;			 /* of name, 1..255 */
	uint8_t name[RSV_DNAME_MAX + 1]; /* lower-case wire form */
};

struct rsv_entry {
	struct hmap_node node;		 /* in the cache's map, by key */
	struct rsv_entry *newer, *older; /* LRU list */
	enum rsv_kind kind;
	uint32_t ttl; /* seconds, after the clamps, before the phase */
	int64_t stored_at, expires_at;
	int64_t failed_at; /* last failed refresh once expired, if failed */
	int failed;
	int prefetched; /* a prefetch was asked for since stored_at */
	uint8_t *msg;
	size_t msg_len;
	uint16_t type, cls;
	uint8_t name_len;
	uint8_t name[];
};

enum rsv_result {
	RSV_MISS,    /* no entry: ask upstream */
	RSV_HIT,     /* fresh: answer with ttl */
	RSV_EXPIRED, /* expired: ask upstream; on failure see rsv_cache_fail() */
	RSV_STALE,   /* expired, refresh failed within stale_recheck: answer stale */
};

struct rsv_lookup {
	enum rsv_result result;
	struct rsv_entry *entry; /* HIT, EXPIRED, STALE */
	uint32_t ttl;		 /* HIT: seconds left; STALE: stale_ttl */
	int prefetch;		 /* HIT: refresh it in the background now */
};

struct rsv_cache {
	struct rsv_cache_cfg cfg;
	struct hmap map; /* the entries by key */
	unsigned count;
	struct rsv_entry *newest, *oldest;
	uint64_t evictions;
};

/* rsv_cache_init: an empty cache with cfg (copied). 0, or -1 (ENOMEM). */
int rsv_cache_init(struct rsv_cache *c, const struct rsv_cache_cfg *cfg);
void rsv_cache_free(struct rsv_cache *c);

/* rsv_cache_key: fills k from a wire name (lower-cased into k), type and
 * class. 0, or -1 if the name is longer than RSV_DNAME_MAX. */
int rsv_cache_key(struct rsv_key *k, const uint8_t *name, size_t len, uint16_t type, uint16_t cls);

/* rsv_cache_lookup: what the cache holds for k at now. */
void rsv_cache_lookup(struct rsv_cache *c, const struct rsv_key *k, int64_t now,
		      struct rsv_lookup *out);

/* rsv_cache_store: stores an answer of this kind and (unclamped) TTL,
 * copying msg. Returns 0 and sets *out (may be NULL) to the entry, 1 if the
 * TTL after the clamps is 0 (nothing stored, *out NULL), -1 on ENOMEM. */
int rsv_cache_store(struct rsv_cache *c, const struct rsv_key *k, enum rsv_kind kind, uint32_t ttl,
		    const uint8_t *msg, size_t len, int64_t now, struct rsv_entry **out);

/* rsv_cache_fail: a refresh of k failed at now (timeouts, SERVFAIL, ...).
 * Returns the entry if it may be answered stale (serve_stale, expired,
 * before expires_at + max_stale) and records the failure for
 * stale_recheck; NULL otherwise. */
struct rsv_entry *rsv_cache_fail(struct rsv_cache *c, const struct rsv_key *k, int64_t now);

/* rsv_cache_clamp: the TTL kind/ttl is stored with under cfg. */
uint32_t rsv_cache_clamp(const struct rsv_cache_cfg *cfg, enum rsv_kind kind, uint32_t ttl);

/* rsv_cache_phase_offset: how much earlier than ttl_ns a first fill
 * expires under cfg, in [0, ttl_ns). */
int64_t rsv_cache_phase_offset(const struct rsv_cache_cfg *cfg, int64_t ttl_ns);

/* rsv_cache_ttl_left: the whole seconds e has left at now (0 if expired). */
uint32_t rsv_cache_ttl_left(const struct rsv_entry *e, int64_t now);

#endif
