/* clocks.json's resolvers: the resolver measurements (clocks_resolvers.c) as JSON; see
 * clocks_int.h. */
#include <arpa/inet.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "clocks_int.h"
#include "timeutil.h"

static json_t *clocks_rsv_json_n(int64_t v)
{
	return v == CLOCKS_NONE ? json_null() : json_integer(v);
}

static json_t *clocks_rsv_json_s(int64_t ns)
{
	return ns == CLOCKS_NONE ? json_null() : json_real((double)ns / NSEC_PER_SEC);
}

/* clocks_rsv_json_rate: n per second of ns; null when either is unknown */
static json_t *clocks_rsv_json_rate(int64_t n, int64_t ns)
{
	if (n == CLOCKS_NONE || ns == CLOCKS_NONE || ns <= 0)
		return json_null();
	return json_real((double)n / ((double)ns / NSEC_PER_SEC));
}

static json_t *clocks_rsv_json_share(int64_t part, int64_t whole)
{
	return whole > 0 ? json_real((double)part / (double)whole) : json_null();
}

/* clocks_rsv_json_upstream: {queries, after_t0, per_s, after_t0_per_s} of one level,
 * or of all of them (l = CLOCKS_LEVELS) */
static json_t *clocks_rsv_json_upstream(const struct clocks_resolvers *rs, const int64_t *up,
					const int64_t *after, int l)
{
	int64_t q = 0, a = 0;

	for (int i = 0; i < CLOCKS_LEVELS; i++) {
		if (l != CLOCKS_LEVELS && i != l)
			continue;
		if (up[i] == CLOCKS_NONE) {
			q = a = CLOCKS_NONE;
			break;
		}
		q += up[i];
		a += after[i];
	}
	return json_pack("{s:o, s:o, s:o, s:o}", "queries", clocks_rsv_json_n(q), "after_t0",
			 clocks_rsv_json_n(a), "per_s", clocks_rsv_json_rate(q, rs->traffic_ns),
			 "after_t0_per_s", clocks_rsv_json_rate(a, rs->after_ns));
}

static json_t *clocks_rsv_json_levels(const struct clocks_resolvers *rs, const int64_t *up,
				      const int64_t *after)
{
	json_t *o = clocks_rsv_json_upstream(rs, up, after, CLOCKS_LEVELS), *lv = json_object();

	for (int l = 0; l < CLOCKS_LEVELS; l++)
		json_object_set_new(lv, clocks_level_names[l],
				    clocks_rsv_json_upstream(rs, up, after, l));
	json_object_set_new(o, "levels", lv);
	return o;
}

static json_t *clocks_rsv_json_cache_counts(const struct clocks_cache_counts *c)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:o}", "queries", (json_int_t)c->queries,
			 "answered", (json_int_t)c->answered, "from_cache", (json_int_t)c->cache,
			 "upstream", (json_int_t)c->upstream, "servfail", (json_int_t)c->servfail,
			 "unanswered", (json_int_t)c->unanswered, "share",
			 clocks_rsv_json_share(c->cache, c->answered));
}

/* clocks_rsv_json_by_cache: the node's counts per cache that had a query, by address */
static json_t *clocks_rsv_json_by_cache(const struct clocks_input *in, int k)
{
	struct clocks_cache_counts all, *by = calloc(CLOCKS_RSV_CACHES, sizeof(*by));
	const struct clocks_rsv_node *node = &in->dnstopo.rsv[k];
	json_t *o = json_object();
	char label[CLOCKS_NAME_MAX + 16], addr[INET6_ADDRSTRLEN];

	snprintf(label, sizeof(label), "resolver-%s", node->name);
	for (size_t i = 0; by && i < in->nrcaptures; i++) {
		const struct clocks_rsv_capture *c = &in->rcaptures[i];

		if (strcmp(c->label, label) != 0 ||
		    clocks_cache_classify(c->msgs, c->n, CLOCKS_RSV_BLOCK(k), CLOCKS_NONE, &all,
					  by) == -1)
			continue;
		for (int j = 0; j < CLOCKS_RSV_CACHES; j++) {
			struct in_addr a = {htonl(CLOCKS_RSV_BLOCK(k) | (uint32_t)j)};

			if (by[j].queries == 0)
				continue;
			clocks_addr_name(in, a, addr, sizeof(addr));
			json_object_set_new(o, addr, clocks_rsv_json_cache_counts(&by[j]));
		}
	}
	free(by);
	return o;
}

static json_t *clocks_rsv_json_cache(const struct clocks_input *in,
				     const struct clocks_rsv_result *r, int k)
{
	json_t *o;

	if (!r->has_capture)
		return json_null();
	o = clocks_rsv_json_cache_counts(&r->cache);
	json_object_set_new(o, "after_t0", clocks_rsv_json_cache_counts(&r->cache_after));
	json_object_set_new(o, "by_cache", clocks_rsv_json_by_cache(in, k));
	return o;
}

/* clocks_rsv_json_decay: the node's clients' decay curve, at the default bucket */
static json_t *clocks_rsv_json_decay(const struct clocks_decay *d, int k)
{
	json_t *dead = json_array(), *all = json_array(), *share = json_array();

	if (d->nrsv <= k || !d->rsv[k].known) {
		json_decref(dead), json_decref(all), json_decref(share);
		return json_null();
	}
	for (size_t b = 0; b < d->n; b++) {
		json_array_append_new(dead, json_integer(d->rsv[k].dead[b]));
		json_array_append_new(all, json_integer(d->rsv[k].all[b]));
		json_array_append_new(share,
				      clocks_rsv_json_share(d->rsv[k].dead[b], d->rsv[k].all[b]));
	}
	return json_pack("{s:o, s:o, s:o, s:o}", "bucket_s", clocks_rsv_json_s(d->bucket_ns),
			 "share", share, "dead", dead, "all", all);
}

static json_t *clocks_rsv_json_node(const struct clocks_input *in,
				    const struct clocks_resolvers *rs, const struct clocks_decay *d,
				    int k)
{
	const struct clocks_rsv_result *r = &rs->r[k];
	json_t *o = json_object(), *clients = json_array();

	for (int i = 0; i < r->nclients; i++)
		json_array_append_new(clients, json_integer(r->clients[i]));
	json_object_set_new(o, "impl", r->node->impl[0] ? json_string(r->node->impl) : json_null());
	json_object_set_new(o, "caches",
			    r->node->count ? json_integer(r->node->count) : json_null());
	json_object_set_new(o, "client_flows", clients);
	json_object_set_new(o, "users", json_integer(r->users));
	json_object_set_new(o, "upstream", clocks_rsv_json_levels(rs, r->up, r->up_after));
	json_object_set_new(o, "cache", clocks_rsv_json_cache(in, r, k));
	json_object_set_new(o, "dead_after_t0", clocks_rsv_json_n(r->dead_after));
	json_object_set_new(o, "all_after_t0", clocks_rsv_json_n(r->all_after));
	json_object_set_new(o, "window_s", clocks_rsv_json_s(r->window_ns));
	json_object_set_new(o, "decay", clocks_rsv_json_decay(d, k));
	return o;
}

json_t *clocks_json_resolvers(const struct clocks_input *in)
{
	struct clocks_resolvers *rs;
	struct clocks_decay d;
	json_t *o = NULL, *nodes, *levels;
	int64_t end = clocks_observation_end(in);
	char err[256];

	memset(&d, 0, sizeof(d));
	if (in->dnstopo.nrsv == 0)
		return NULL;
	if ((rs = malloc(sizeof(*rs))) == NULL)
		return NULL;
	if (clocks_resolvers(in, rs) == -1 ||
	    clocks_decay(in,
			 clocks_decay_auto_bucket(end == CLOCKS_NONE ? 0 : end - in->failure.t0_ns),
			 &d, err, sizeof(err)) == -1)
		goto out;
	nodes = json_object();
	levels = json_object();
	for (int k = 0; k < rs->n; k++)
		json_object_set_new(nodes, rs->r[k].node->name,
				    clocks_rsv_json_node(in, rs, &d, k));
	for (int i = 0; i < in->dnstopo.ndns; i++)
		json_object_set_new(levels, in->dnstopo.dns[i].name,
				    json_string(clocks_level_names[in->dnstopo.dns[i].level]));
	o = json_pack("{s:o, s:o, s:o}", "nodes", nodes, "other_sources",
		      clocks_rsv_json_levels(rs, rs->other_up, rs->other_up_after), "dns_levels",
		      levels);
out:
	clocks_decay_free(&d);
	free(rs);
	return o;
}
