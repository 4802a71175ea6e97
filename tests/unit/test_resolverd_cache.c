/*
 * resolverd's cache (agents/resolverd/cache.h) on a fake clock: expiry at
 * exactly the TTL, the TTL clamps, negative caching, serve-stale and its
 * failure recheck, prefetch, the first-fill phases, and LRU eviction.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "agents/resolverd/cache.h"
#include "agents/resolverd/config.h"
#include "timeutil.h"

#define S NSEC_PER_SEC
#define T0 (1000 * S) /* the fake clock starts here */

static const uint8_t msg[] = "an upstream message";

static struct rsv_cache_cfg cfg_default(void)
{
	struct rsv_cache_cfg cfg;

	rsv_conf_defaults(&cfg);
	return cfg;
}

/* key: "www.lab.test" and friends in wire form, type A, class IN. */
static struct rsv_key key_of(const char *label, uint16_t type)
{
	uint8_t wire[64];
	size_t n = strlen(label);
	struct rsv_key k;

	wire[0] = (uint8_t)n;
	memcpy(wire + 1, label, n);
	memcpy(wire + 1 + n, "\3lab\4test", 10);
	assert_int_equal(rsv_cache_key(&k, wire, n + 11, type, 1), 0);
	return k;
}

static void store(struct rsv_cache *c, const struct rsv_key *k, enum rsv_kind kind, uint32_t ttl,
		  int64_t now)
{
	assert_int_equal(rsv_cache_store(c, k, kind, ttl, msg, sizeof(msg), now, NULL), 0);
}

static enum rsv_result look(struct rsv_cache *c, const struct rsv_key *k, int64_t now,
			    uint32_t *ttl)
{
	struct rsv_lookup l;

	rsv_cache_lookup(c, k, now, &l);
	if (ttl)
		*ttl = l.ttl;
	return l.result;
}

static void test_miss_then_hit_with_decreasing_ttl(void **state)
{
	struct rsv_cache_cfg cfg = cfg_default();
	struct rsv_key k = key_of("www", 1);
	struct rsv_cache c;
	struct rsv_lookup l;
	uint32_t ttl;

	(void)state;
	assert_int_equal(rsv_cache_init(&c, &cfg), 0);
	assert_int_equal(look(&c, &k, T0, NULL), RSV_MISS);
	store(&c, &k, RSV_POSITIVE, 30, T0);
	rsv_cache_lookup(&c, &k, T0, &l);
	assert_int_equal(l.result, RSV_HIT);
	assert_int_equal(l.ttl, 30);
	assert_int_equal(l.entry->msg_len, sizeof(msg));
	assert_memory_equal(l.entry->msg, msg, sizeof(msg));
	/* whole seconds left, rounded down */
	assert_int_equal(look(&c, &k, T0 + S / 2, &ttl), RSV_HIT);
	assert_int_equal(ttl, 29);
	assert_int_equal(look(&c, &k, T0 + 10 * S, &ttl), RSV_HIT);
	assert_int_equal(ttl, 20);
	/* another type, another class, another case of the same name */
	{
		struct rsv_key aaaa = key_of("www", 28), upper = key_of("WwW", 1), ch = k;

		ch.cls = 3;
		assert_int_equal(look(&c, &aaaa, T0, NULL), RSV_MISS);
		assert_int_equal(look(&c, &ch, T0, NULL), RSV_MISS);
		assert_int_equal(look(&c, &upper, T0 + S, &ttl), RSV_HIT);
		assert_int_equal(ttl, 29);
	}
	rsv_cache_free(&c);
}

static void test_expiry_at_exactly_ttl(void **state)
{
	struct rsv_cache_cfg cfg = cfg_default();
	struct rsv_key k = key_of("www", 1);
	struct rsv_cache c;
	uint32_t ttl;

	(void)state;
	assert_int_equal(rsv_cache_init(&c, &cfg), 0);
	store(&c, &k, RSV_POSITIVE, 30, T0);
	assert_int_equal(look(&c, &k, T0 + 30 * S - 1, &ttl), RSV_HIT);
	assert_int_equal(ttl, 0);
	assert_int_equal(look(&c, &k, T0 + 30 * S, NULL), RSV_EXPIRED);
	assert_int_equal(look(&c, &k, T0 + 31 * S, NULL), RSV_EXPIRED);
	/* a refresh stores it anew, with the full TTL from then */
	store(&c, &k, RSV_POSITIVE, 30, T0 + 31 * S);
	assert_int_equal(look(&c, &k, T0 + 31 * S, &ttl), RSV_HIT);
	assert_int_equal(ttl, 30);
	assert_int_equal(look(&c, &k, T0 + 61 * S, NULL), RSV_EXPIRED);
	assert_int_equal(c.count, 1);
	rsv_cache_free(&c);
}

static void test_ttl_clamps(void **state)
{
	struct rsv_cache_cfg cfg = cfg_default();
	struct rsv_key k = key_of("www", 1);
	struct rsv_cache c;
	uint32_t ttl;

	(void)state;
	cfg.min_ttl = 60;
	cfg.max_ttl = 300;
	cfg.neg_max_ttl = 120;
	assert_int_equal(rsv_cache_clamp(&cfg, RSV_POSITIVE, 5), 60);
	assert_int_equal(rsv_cache_clamp(&cfg, RSV_POSITIVE, 0), 60);
	assert_int_equal(rsv_cache_clamp(&cfg, RSV_POSITIVE, 200), 200);
	assert_int_equal(rsv_cache_clamp(&cfg, RSV_POSITIVE, 86400), 300);
	/* RFC 2181 8: a TTL with the top bit set counts as 0 */
	assert_int_equal(rsv_cache_clamp(&cfg, RSV_POSITIVE, 0x80000000u), 60);
	/* negative answers: only the maximum */
	assert_int_equal(rsv_cache_clamp(&cfg, RSV_NXDOMAIN, 5), 5);
	assert_int_equal(rsv_cache_clamp(&cfg, RSV_NODATA, 3600), 120);

	assert_int_equal(rsv_cache_init(&c, &cfg), 0);
	store(&c, &k, RSV_POSITIVE, 5, T0);
	assert_int_equal(look(&c, &k, T0, &ttl), RSV_HIT);
	assert_int_equal(ttl, 60);
	assert_int_equal(look(&c, &k, T0 + 59 * S, NULL), RSV_HIT);
	assert_int_equal(look(&c, &k, T0 + 60 * S, NULL), RSV_EXPIRED);
	store(&c, &k, RSV_POSITIVE, 86400, T0 + 60 * S);
	assert_int_equal(look(&c, &k, T0 + 60 * S, &ttl), RSV_HIT);
	assert_int_equal(ttl, 300);
	assert_int_equal(look(&c, &k, T0 + 360 * S, NULL), RSV_EXPIRED);
	rsv_cache_free(&c);
}

static void test_ttl_zero_not_stored(void **state)
{
	struct rsv_cache_cfg cfg = cfg_default();
	struct rsv_key k = key_of("www", 1);
	struct rsv_cache c;
	struct rsv_entry *e = (struct rsv_entry *)1;

	(void)state;
	assert_int_equal(rsv_cache_init(&c, &cfg), 0);
	store(&c, &k, RSV_POSITIVE, 30, T0);
	/* a TTL 0 answer replaces the older one by nothing */
	assert_int_equal(rsv_cache_store(&c, &k, RSV_POSITIVE, 0, msg, sizeof(msg), T0 + S, &e), 1);
	assert_null(e);
	assert_int_equal(look(&c, &k, T0 + S, NULL), RSV_MISS);
	assert_int_equal(c.count, 0);
	/* min_ttl raises it */
	rsv_cache_free(&c);
	cfg.min_ttl = 1;
	assert_int_equal(rsv_cache_init(&c, &cfg), 0);
	store(&c, &k, RSV_POSITIVE, 0, T0);
	assert_int_equal(look(&c, &k, T0, NULL), RSV_HIT);
	rsv_cache_free(&c);
}

static void test_negative_caching(void **state)
{
	struct rsv_cache_cfg cfg = cfg_default();
	struct rsv_key nx = key_of("nope", 1), nodata = key_of("www", 15);
	struct rsv_cache c;
	struct rsv_lookup l;
	uint32_t ttl;

	(void)state;
	cfg.min_ttl = 600; /* does not apply to negative answers */
	cfg.neg_max_ttl = 900;
	assert_int_equal(rsv_cache_init(&c, &cfg), 0);
	/* the caller passes min(SOA TTL, SOA MINIMUM) (msg.c, RFC 2308 5) */
	store(&c, &nx, RSV_NXDOMAIN, 20, T0);
	store(&c, &nodata, RSV_NODATA, 3600, T0);
	rsv_cache_lookup(&c, &nx, T0 + 5 * S, &l);
	assert_int_equal(l.result, RSV_HIT);
	assert_int_equal(l.entry->kind, RSV_NXDOMAIN);
	assert_int_equal(l.ttl, 15);
	assert_int_equal(look(&c, &nx, T0 + 20 * S, NULL), RSV_EXPIRED);
	rsv_cache_lookup(&c, &nodata, T0, &l);
	assert_int_equal(l.entry->kind, RSV_NODATA);
	assert_int_equal(l.ttl, 900);
	assert_int_equal(look(&c, &nodata, T0 + 900 * S - 1, &ttl), RSV_HIT);
	assert_int_equal(look(&c, &nodata, T0 + 900 * S, NULL), RSV_EXPIRED);
	rsv_cache_free(&c);
}

static void test_serve_stale_window(void **state)
{
	struct rsv_cache_cfg cfg = cfg_default();
	struct rsv_key k = key_of("www", 1);
	struct rsv_cache c;
	struct rsv_entry *e;
	uint32_t ttl;

	(void)state;
	cfg.serve_stale = 1;
	cfg.stale_ttl = 30;
	cfg.max_stale_ns = 100 * S;
	cfg.stale_recheck_ns = 10 * S;
	assert_int_equal(rsv_cache_init(&c, &cfg), 0);
	store(&c, &k, RSV_POSITIVE, 60, T0);
	/* fresh: a failed refresh (a prefetch) gives nothing stale */
	assert_null(rsv_cache_fail(&c, &k, T0 + 59 * S));
	assert_int_equal(look(&c, &k, T0 + 59 * S, NULL), RSV_HIT);
	/* expired: go upstream first; on failure the entry is stale-usable */
	assert_int_equal(look(&c, &k, T0 + 60 * S, NULL), RSV_EXPIRED);
	e = rsv_cache_fail(&c, &k, T0 + 62 * S);
	assert_non_null(e);
	assert_memory_equal(e->msg, msg, sizeof(msg));
	/* within stale_recheck of that failure: stale at once, TTL stale_ttl */
	assert_int_equal(look(&c, &k, T0 + 62 * S, &ttl), RSV_STALE);
	assert_int_equal(ttl, 30);
	assert_int_equal(look(&c, &k, T0 + 72 * S - 1, NULL), RSV_STALE);
	/* after it: try the upstream again */
	assert_int_equal(look(&c, &k, T0 + 72 * S, NULL), RSV_EXPIRED);
	assert_non_null(rsv_cache_fail(&c, &k, T0 + 80 * S));
	/* max_stale after expiry (T0 + 160 s) nothing stale any more */
	assert_non_null(rsv_cache_fail(&c, &k, T0 + 160 * S - 1));
	assert_int_equal(look(&c, &k, T0 + 160 * S - 1, NULL), RSV_STALE);
	assert_int_equal(look(&c, &k, T0 + 160 * S, NULL), RSV_EXPIRED);
	assert_null(rsv_cache_fail(&c, &k, T0 + 160 * S));
	/* a successful refresh clears the failure */
	store(&c, &k, RSV_POSITIVE, 60, T0 + 200 * S);
	assert_int_equal(look(&c, &k, T0 + 260 * S, NULL), RSV_EXPIRED);
	rsv_cache_free(&c);
}

static void test_serve_stale_off(void **state)
{
	struct rsv_cache_cfg cfg = cfg_default();
	struct rsv_key k = key_of("www", 1), other = key_of("other", 1);
	struct rsv_cache c;

	(void)state;
	cfg.serve_stale = 0;
	assert_int_equal(rsv_cache_init(&c, &cfg), 0);
	store(&c, &k, RSV_POSITIVE, 60, T0);
	assert_null(rsv_cache_fail(&c, &k, T0 + 61 * S));
	assert_int_equal(look(&c, &k, T0 + 61 * S, NULL), RSV_EXPIRED);
	assert_null(rsv_cache_fail(&c, &other, T0));
	rsv_cache_free(&c);
}

static void test_prefetch_trigger(void **state)
{
	struct rsv_cache_cfg cfg = cfg_default();
	struct rsv_key k = key_of("www", 1);
	struct rsv_cache c;
	struct rsv_lookup l;

	(void)state;
	cfg.prefetch_pct = 10;
	assert_int_equal(rsv_cache_init(&c, &cfg), 0);
	store(&c, &k, RSV_POSITIVE, 100, T0);
	/* 10 s left is not less than 10% of 100 s */
	rsv_cache_lookup(&c, &k, T0 + 90 * S, &l);
	assert_int_equal(l.result, RSV_HIT);
	assert_false(l.prefetch);
	rsv_cache_lookup(&c, &k, T0 + 90 * S + 1, &l);
	assert_int_equal(l.result, RSV_HIT);
	assert_true(l.prefetch);
	/* asked once per stored answer */
	rsv_cache_lookup(&c, &k, T0 + 95 * S, &l);
	assert_false(l.prefetch);
	/* the prefetched answer restarts the clock and re-arms it */
	store(&c, &k, RSV_POSITIVE, 100, T0 + 95 * S);
	rsv_cache_lookup(&c, &k, T0 + 185 * S, &l);
	assert_false(l.prefetch);
	rsv_cache_lookup(&c, &k, T0 + 186 * S, &l);
	assert_true(l.prefetch);
	rsv_cache_free(&c);

	/* off by default */
	cfg = cfg_default();
	assert_int_equal(rsv_cache_init(&c, &cfg), 0);
	store(&c, &k, RSV_POSITIVE, 100, T0);
	rsv_cache_lookup(&c, &k, T0 + 100 * S - 1, &l);
	assert_int_equal(l.result, RSV_HIT);
	assert_false(l.prefetch);
	rsv_cache_free(&c);
}

/* expiry: when a cache with this phase expires an answer first filled at
 * T0 with ttl seconds. */
static int64_t first_expiry(struct rsv_cache_cfg cfg, uint32_t ttl)
{
	struct rsv_key k = key_of("www", 1);
	struct rsv_cache c;
	struct rsv_entry *e;
	int64_t at;

	assert_int_equal(rsv_cache_init(&c, &cfg), 0);
	assert_int_equal(rsv_cache_store(&c, &k, RSV_POSITIVE, ttl, msg, sizeof(msg), T0, &e), 0);
	at = e->expires_at;
	rsv_cache_free(&c);
	return at;
}

static void test_phase_fraction_and_offset(void **state)
{
	struct rsv_cache_cfg cfg = cfg_default();
	struct rsv_key k = key_of("www", 1);
	struct rsv_cache c;
	uint32_t ttl;

	(void)state;
	assert_int_equal(first_expiry(cfg, 300), T0 + 300 * S);
	cfg.phase = RSV_PHASE_FRACTION;
	cfg.phase_frac = 0.25;
	assert_int_equal(first_expiry(cfg, 300), T0 + 225 * S);
	assert_int_equal(first_expiry(cfg, 10), T0 + 7500 * NSEC_PER_MSEC);
	cfg.phase_frac = 0;
	assert_int_equal(first_expiry(cfg, 300), T0 + 300 * S);
	cfg.phase = RSV_PHASE_OFFSET;
	cfg.phase_ns = 7 * S;
	assert_int_equal(first_expiry(cfg, 300), T0 + 293 * S);
	/* the offset is taken modulo the TTL */
	assert_int_equal(first_expiry(cfg, 5), T0 + 3 * S);
	cfg.phase_ns = 10 * S;
	assert_int_equal(first_expiry(cfg, 5), T0 + 5 * S);

	/* only the first fill: the next store of the key uses the full TTL,
	 * so the cache keeps its phase */
	cfg.phase = RSV_PHASE_FRACTION;
	cfg.phase_frac = 0.5;
	assert_int_equal(rsv_cache_init(&c, &cfg), 0);
	store(&c, &k, RSV_POSITIVE, 60, T0);
	assert_int_equal(look(&c, &k, T0, &ttl), RSV_HIT);
	assert_int_equal(ttl, 30); /* the client sees the shortened TTL */
	assert_int_equal(look(&c, &k, T0 + 30 * S, NULL), RSV_EXPIRED);
	store(&c, &k, RSV_POSITIVE, 60, T0 + 30 * S);
	assert_int_equal(look(&c, &k, T0 + 30 * S, &ttl), RSV_HIT);
	assert_int_equal(ttl, 60);
	assert_int_equal(look(&c, &k, T0 + 90 * S - 1, NULL), RSV_HIT);
	assert_int_equal(look(&c, &k, T0 + 90 * S, NULL), RSV_EXPIRED);
	/* the phase applies after the clamps */
	rsv_cache_free(&c);
	cfg.max_ttl = 40;
	assert_int_equal(first_expiry(cfg, 300), T0 + 20 * S);
}

static void test_phase_spread_population(void **state)
{
	/* 40 caches with phase = spread (config.c turns it into k/40), all
	 * filled at T0 with TTL 300: their expiries are 7.5 s apart, covering
	 * (T0, T0 + 300 s] evenly */
	struct rsv_cache_cfg cfg = cfg_default();

	(void)state;
	cfg.phase = RSV_PHASE_FRACTION;
	for (int i = 0; i < 40; i++) {
		cfg.phase_frac = (double)i / 40;
		assert_int_equal(first_expiry(cfg, 300),
				 T0 + 300 * S - (int64_t)i * 7500 * NSEC_PER_MSEC);
	}
	assert_int_equal(rsv_cache_phase_offset(&cfg, 0), 0);
	cfg.phase_frac = 0.9999999999999999;
	assert_true(rsv_cache_phase_offset(&cfg, 10) < 10);
}

static void test_lru_eviction(void **state)
{
	struct rsv_cache_cfg cfg = cfg_default();
	struct rsv_key a = key_of("a", 1), b = key_of("b", 1), c3 = key_of("c", 1);
	struct rsv_cache c;

	(void)state;
	cfg.max_entries = 2;
	cfg.phase = RSV_PHASE_FRACTION;
	cfg.phase_frac = 0.5;
	assert_int_equal(rsv_cache_init(&c, &cfg), 0);
	store(&c, &a, RSV_POSITIVE, 100, T0);
	store(&c, &b, RSV_POSITIVE, 100, T0);
	/* a used after b: b is the least recently used */
	assert_int_equal(look(&c, &a, T0 + S, NULL), RSV_HIT);
	store(&c, &c3, RSV_POSITIVE, 100, T0 + S);
	assert_int_equal(c.count, 2);
	assert_int_equal(c.evictions, 1);
	assert_int_equal(look(&c, &b, T0 + S, NULL), RSV_MISS);
	assert_int_equal(look(&c, &a, T0 + S, NULL), RSV_HIT);
	assert_int_equal(look(&c, &c3, T0 + S, NULL), RSV_HIT);
	/* an evicted key that comes back is a first fill again */
	store(&c, &b, RSV_POSITIVE, 100, T0 + 2 * S);
	{
		uint32_t ttl;
		assert_int_equal(look(&c, &b, T0 + 2 * S, &ttl), RSV_HIT);
		assert_int_equal(ttl, 50);
	}
	/* a was used before c3 (above), so it made room */
	assert_int_equal(look(&c, &a, T0 + 2 * S, NULL), RSV_MISS);
	assert_int_equal(look(&c, &c3, T0 + 2 * S, NULL), RSV_HIT);
	rsv_cache_free(&c);
}

static void test_many_keys_grow(void **state)
{
	struct rsv_cache_cfg cfg = cfg_default();
	struct rsv_cache c;
	char label[16];

	(void)state;
	cfg.max_entries = 5000;
	assert_int_equal(rsv_cache_init(&c, &cfg), 0);
	for (int i = 0; i < 6000; i++) {
		snprintf(label, sizeof(label), "n%d", i);
		struct rsv_key k = key_of(label, 1);
		store(&c, &k, RSV_POSITIVE, 100 + (uint32_t)i, T0);
	}
	assert_int_equal(c.count, 5000);
	assert_int_equal(c.evictions, 1000);
	assert_true(c.map.nbuckets >= 4096);
	for (int i = 0; i < 6000; i++) {
		uint32_t ttl;

		snprintf(label, sizeof(label), "n%d", i);
		struct rsv_key k = key_of(label, 1);
		if (i < 1000) {
			assert_int_equal(look(&c, &k, T0, NULL), RSV_MISS);
		} else {
			assert_int_equal(look(&c, &k, T0, &ttl), RSV_HIT);
			assert_int_equal(ttl, 100 + (uint32_t)i);
		}
	}
	rsv_cache_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_miss_then_hit_with_decreasing_ttl),
	    cmocka_unit_test(test_expiry_at_exactly_ttl),
	    cmocka_unit_test(test_ttl_clamps),
	    cmocka_unit_test(test_ttl_zero_not_stored),
	    cmocka_unit_test(test_negative_caching),
	    cmocka_unit_test(test_serve_stale_window),
	    cmocka_unit_test(test_serve_stale_off),
	    cmocka_unit_test(test_prefetch_trigger),
	    cmocka_unit_test(test_phase_fraction_and_offset),
	    cmocka_unit_test(test_phase_spread_population),
	    cmocka_unit_test(test_lru_eviction),
	    cmocka_unit_test(test_many_keys_grow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
