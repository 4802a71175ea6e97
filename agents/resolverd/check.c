/* resolverd's declared configuration check; see resolverd_check.h. */
#include "resolverd_check.h"

#include "config.h"

int resolverd_check_stream(FILE *f, const char *path, FILE *err)
{
	struct rsv_conf conf;

	if (rsv_conf_load_stream(&conf, f, path, err) == -1)
		return -1;
	rsv_conf_free(&conf);
	return 0;
}

int resolverd_knobs_stream(FILE *f, const char *path, FILE *err, struct resolverd_knobs *k)
{
	const struct rsv_cache_cfg *c;
	struct rsv_conf conf;

	if (rsv_conf_load_stream(&conf, f, path, err) == -1)
		return -1;
	c = conf.ninst > 0 ? &conf.inst[0].cache : &conf.defaults;
	k->min_ttl = c->min_ttl;
	k->max_ttl = c->max_ttl;
	k->neg_max_ttl = c->neg_max_ttl;
	k->stale_ttl = c->stale_ttl;
	k->serve_stale = c->serve_stale;
	k->max_stale_ns = c->max_stale_ns;
	k->stale_recheck_ns = c->stale_recheck_ns;
	k->prefetch_pct = c->prefetch_pct;
	k->phase_zero = c->phase == RSV_PHASE_NONE ||
			(c->phase == RSV_PHASE_FRACTION && c->phase_frac == 0) ||
			(c->phase == RSV_PHASE_OFFSET && c->phase_ns == 0);
	k->max_entries = c->max_entries;
	k->timeout_ns = conf.timeout_ns;
	k->retries = conf.retries;
	k->max_pending = conf.max_pending;
	k->stats_ns = conf.stats_ns;
	rsv_conf_free(&conf);
	return 0;
}
