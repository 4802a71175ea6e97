/* One resolver's cache, on a clock passed in; see cache.h. */
#include "cache.h"

#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "timeutil.h"

#define RSV_CACHE_BUCKETS_MIN 16u

static uint32_t rsv_cache_hash(const struct rsv_key *k)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	for (unsigned i = 0; i < k->len; i++)
		h = (h ^ k->name[i]) * 16777619u;
	h = (h ^ (k->type >> 8)) * 16777619u;
	h = (h ^ (k->type & 0xff)) * 16777619u;
	h = (h ^ (k->cls >> 8)) * 16777619u;
	h = (h ^ (k->cls & 0xff)) * 16777619u;
	return h;
}

int rsv_cache_init(struct rsv_cache *c, const struct rsv_cache_cfg *cfg)
{
	memset(c, 0, sizeof(*c));
	c->cfg = *cfg;
	if (c->cfg.max_entries == 0)
		c->cfg.max_entries = 1;
	return hmap_init(&c->map, RSV_CACHE_BUCKETS_MIN);
}

void rsv_cache_free(struct rsv_cache *c)
{
	struct rsv_entry *e, *next;

	for (e = c->newest; e; e = next) {
		next = e->older;
		free(e->msg);
		free(e);
	}
	hmap_free(&c->map);
	memset(c, 0, sizeof(*c));
}

int rsv_cache_key(struct rsv_key *k, const uint8_t *name, size_t len, uint16_t type, uint16_t cls)
{
	if (len == 0 || len > RSV_DNAME_MAX)
		return -1;
	memset(k, 0, sizeof(*k));
	k->type = type;
	k->cls = cls;
	k->len = (uint8_t)len;
	for (size_t i = 0; i < len; i++) {
		uint8_t ch = name[i];
		k->name[i] = ch >= 'A' && ch <= 'Z' ? (uint8_t)(ch + 32) : ch;
	}
	return 0;
}

/* rsv_cache_match: e is k's (hmap_first and hmap_next gave one of its hash) */
static int rsv_cache_match(const struct rsv_entry *e, const struct rsv_key *k)
{
	return e->type == k->type && e->cls == k->cls && e->name_len == k->len &&
	       memcmp(e->name, k->name, k->len) == 0;
}

static struct rsv_entry *rsv_cache_find(struct rsv_cache *c, const struct rsv_key *k, uint32_t h)
{
	for (struct hmap_node *n = hmap_first(&c->map, h); n; n = hmap_next(n)) {
		struct rsv_entry *e = HMAP_ENTRY(n, struct rsv_entry, node);

		if (rsv_cache_match(e, k))
			return e;
	}
	return NULL;
}

static void rsv_cache_lru_unlink(struct rsv_cache *c, struct rsv_entry *e)
{
	if (e->newer)
		e->newer->older = e->older;
	else
		c->newest = e->older;
	if (e->older)
		e->older->newer = e->newer;
	else
		c->oldest = e->newer;
	e->newer = e->older = NULL;
}

static void rsv_cache_lru_front(struct rsv_cache *c, struct rsv_entry *e)
{
	e->older = c->newest;
	e->newer = NULL;
	if (c->newest)
		c->newest->newer = e;
	c->newest = e;
	if (c->oldest == NULL)
		c->oldest = e;
}

static void rsv_cache_touch(struct rsv_cache *c, struct rsv_entry *e)
{
	if (c->newest == e)
		return;
	rsv_cache_lru_unlink(c, e);
	rsv_cache_lru_front(c, e);
}

static void rsv_cache_remove(struct rsv_cache *c, struct rsv_entry *e)
{
	hmap_remove(&c->map, &e->node);
	rsv_cache_lru_unlink(c, e);
	c->count--;
	free(e->msg);
	free(e);
}

uint32_t rsv_cache_clamp(const struct rsv_cache_cfg *cfg, enum rsv_kind kind, uint32_t ttl)
{
	if (ttl > RSV_TTL_MAX)
		ttl = 0;
	if (kind != RSV_POSITIVE)
		return ttl < cfg->neg_max_ttl ? ttl : cfg->neg_max_ttl;
	if (ttl < cfg->min_ttl)
		ttl = cfg->min_ttl;
	if (ttl > cfg->max_ttl)
		ttl = cfg->max_ttl;
	return ttl;
}

int64_t rsv_cache_phase_offset(const struct rsv_cache_cfg *cfg, int64_t ttl_ns)
{
	int64_t off = 0;

	if (ttl_ns <= 0)
		return 0;
	if (cfg->phase == RSV_PHASE_FRACTION && cfg->phase_frac > 0)
		off = (int64_t)(cfg->phase_frac * (double)ttl_ns);
	else if (cfg->phase == RSV_PHASE_OFFSET && cfg->phase_ns > 0)
		off = cfg->phase_ns % ttl_ns;
	if (off < 0 || off >= ttl_ns) /* a fraction rounded up to 1 */
		off = ttl_ns - 1;
	return off;
}

uint32_t rsv_cache_ttl_left(const struct rsv_entry *e, int64_t now)
{
	if (now >= e->expires_at)
		return 0;
	return (uint32_t)((e->expires_at - now) / NSEC_PER_SEC);
}

void rsv_cache_lookup(struct rsv_cache *c, const struct rsv_key *k, int64_t now,
		      struct rsv_lookup *out)
{
	uint32_t h = rsv_cache_hash(k);
	struct rsv_entry *e = rsv_cache_find(c, k, h);
	const struct rsv_cache_cfg *cfg = &c->cfg;

	memset(out, 0, sizeof(*out));
	if (e == NULL) {
		out->result = RSV_MISS;
		return;
	}
	rsv_cache_touch(c, e);
	out->entry = e;
	if (now < e->expires_at) {
		int64_t left = e->expires_at - now;

		out->result = RSV_HIT;
		out->ttl = rsv_cache_ttl_left(e, now);
		/* left < pct% of ttl, in integers: left * 100 < pct * ttl */
		if (cfg->prefetch_pct && !e->prefetched &&
		    (double)left * 100.0 < (double)cfg->prefetch_pct * e->ttl * NSEC_PER_SEC) {
			e->prefetched = 1;
			out->prefetch = 1;
		}
		return;
	}
	out->result = RSV_EXPIRED;
	if (cfg->serve_stale && e->failed && now - e->failed_at < cfg->stale_recheck_ns &&
	    now - e->expires_at < cfg->max_stale_ns) {
		out->result = RSV_STALE;
		out->ttl = cfg->stale_ttl;
	}
}

struct rsv_entry *rsv_cache_fail(struct rsv_cache *c, const struct rsv_key *k, int64_t now)
{
	struct rsv_entry *e = rsv_cache_find(c, k, rsv_cache_hash(k));

	if (e == NULL || !c->cfg.serve_stale || now < e->expires_at ||
	    now - e->expires_at >= c->cfg.max_stale_ns)
		return NULL;
	e->failed = 1;
	e->failed_at = now;
	return e;
}

static struct rsv_entry *rsv_cache_new_entry(struct rsv_cache *c, const struct rsv_key *k,
					     uint32_t h)
{
	struct rsv_entry *e;

	if (c->count >= c->cfg.max_entries && c->oldest) {
		rsv_cache_remove(c, c->oldest);
		c->evictions++;
	}
	e = calloc(1, sizeof(*e) + k->len);
	if (e == NULL)
		return NULL;
	e->type = k->type;
	e->cls = k->cls;
	e->name_len = k->len;
	memcpy(e->name, k->name, k->len);
	hmap_insert(&c->map, &e->node, h);
	rsv_cache_lru_front(c, e);
	c->count++;
	return e;
}

int rsv_cache_store(struct rsv_cache *c, const struct rsv_key *k, enum rsv_kind kind, uint32_t ttl,
		    const uint8_t *msg, size_t len, int64_t now, struct rsv_entry **out)
{
	uint32_t h = rsv_cache_hash(k);
	struct rsv_entry *e = rsv_cache_find(c, k, h);
	int64_t ttl_ns, off = 0;
	uint8_t *copy;

	if (out)
		*out = NULL;
	ttl = rsv_cache_clamp(&c->cfg, kind, ttl);
	if (ttl == 0) {
		if (e)
			rsv_cache_remove(c, e);
		return 1;
	}
	copy = malloc(len ? len : 1);
	if (copy == NULL)
		return -1;
	memcpy(copy, msg, len);
	ttl_ns = (int64_t)ttl * NSEC_PER_SEC;
	if (e == NULL) {
		if ((e = rsv_cache_new_entry(c, k, h)) == NULL) {
			free(copy);
			return -1;
		}
		off = rsv_cache_phase_offset(&c->cfg, ttl_ns);
	} else {
		rsv_cache_touch(c, e);
	}
	free(e->msg);
	e->msg = copy;
	e->msg_len = len;
	e->kind = kind;
	e->ttl = ttl;
	e->stored_at = now;
	e->expires_at = now + ttl_ns - off;
	e->failed = 0;
	e->failed_at = 0;
	e->prefetched = 0;
	if (out)
		*out = e;
	return 0;
}
