/* resolver_stats events, summaries and the upstream CSV; see stats.h. */
#include "stats.h"

#include <arpa/inet.h>
#include <jansson.h>
#include <string.h>

#include "ctx.h"
#include "events.h"
#include "iter.h"
#include "log.h"
#include "msg.h"

#define RSV_NCOUNTS (sizeof(struct rsv_counts) / sizeof(uint64_t))

/* the names of struct rsv_counts' fields, in order */
static const char *const rsv_count_names[] = {
    "queries",		 "hits",
    "negative_hits",	 "misses",
    "coalesced",	 "upstream_queries",
    "upstream_timeouts", "stale_answers",
    "prefetches",	 "servfail",
    "overloaded",	 "bad",
};

_Static_assert(sizeof(rsv_count_names) / sizeof(rsv_count_names[0]) == RSV_NCOUNTS,
	       "a name for every count");

static const uint64_t *rsv_counts_array(const struct rsv_counts *c)
{
	return (const uint64_t *)c;
}

/* rsv_counts_json: adds {name: value, ...} of a - b (b may be NULL) to o. */
static json_t *rsv_counts_json(json_t *o, const struct rsv_counts *a, const struct rsv_counts *b)
{
	const uint64_t *x = rsv_counts_array(a), *y = b ? rsv_counts_array(b) : NULL;

	for (size_t i = 0; o && i < RSV_NCOUNTS; i++)
		json_object_set_new(o, rsv_count_names[i],
				    json_integer((json_int_t)(x[i] - (y ? y[i] : 0))));
	return o;
}

static void rsv_stats_one(struct rsv_ctx *ctx, struct rsv_inst *in, const char *event,
			  const struct rsv_counts *since)
{
	char addr[INET6_ADDRSTRLEN];
	json_t *o = json_object();

	if (o == NULL)
		return;
	rsv_inst_addr_str(in->conf, addr, sizeof(addr));
	json_object_set_new(o, "resolver", json_string(in->conf->name));
	json_object_set_new(o, "address", json_string(addr));
	rsv_counts_json(o, &in->n, since);
	json_object_set_new(o, "entries", json_integer(in->cache.count));
	json_object_set_new(o, "evictions", json_integer((json_int_t)in->cache.evictions));
	json_object_set_new(o, "pending", json_integer(in->pending));
	event_emit(ctx->stats.ev, event, "o", o);
}

void rsv_stats_period(struct rsv_ctx *ctx)
{
	for (int i = 0; i < ctx->ninst; i++) {
		struct rsv_inst *in = &ctx->inst[i];

		if (memcmp(&in->n, &in->last, sizeof(in->n)) == 0)
			continue; /* a quiet period */
		rsv_stats_one(ctx, in, EVENTS_RESOLVER_STATS, &in->last);
		in->last = in->n;
	}
	rsv_stats_flush(ctx);
}

void rsv_stats_summary(struct rsv_ctx *ctx)
{
	struct rsv_counts total = {0};
	uint64_t *t = (uint64_t *)&total;
	json_int_t entries = 0;
	json_t *o;

	for (int i = 0; i < ctx->ninst; i++) {
		const uint64_t *x = rsv_counts_array(&ctx->inst[i].n);

		rsv_stats_one(ctx, &ctx->inst[i], EVENTS_RESOLVER_SUMMARY, NULL);
		for (size_t k = 0; k < RSV_NCOUNTS; k++)
			t[k] += x[k];
		entries += ctx->inst[i].cache.count;
	}
	log_info("%d resolvers: %llu queries, %llu hits, %llu misses, %llu upstream queries, "
		 "%llu timeouts, %llu stale answers, %llu prefetches, %llu SERVFAIL",
		 ctx->ninst, (unsigned long long)total.queries, (unsigned long long)total.hits,
		 (unsigned long long)total.misses, (unsigned long long)total.upstream_queries,
		 (unsigned long long)total.upstream_timeouts,
		 (unsigned long long)total.stale_answers, (unsigned long long)total.prefetches,
		 (unsigned long long)total.servfail);
	if ((o = json_object()) == NULL)
		return;
	json_object_set_new(o, "resolvers", json_integer(ctx->ninst));
	rsv_counts_json(o, &total, NULL);
	json_object_set_new(o, "entries", json_integer(entries));
	event_emit(ctx->stats.ev, EVENTS_RESOLVERD_SUMMARY, "o", o);
}

void rsv_stats_attempt(struct rsv_ctx *ctx, const struct rsv_pending *p, const char *result,
		       int rcode, int64_t rtt_ns)
{
	char name[4 * RSV_DNAME_MAX + 8], type[32], rc[32] = "", up[RSV_SA_STRLEN];
	char ask[4 * RSV_DNAME_MAX + 8], atype[32], zone[4 * RSV_DNAME_MAX + 8] = "";
	const char *src = p->tcp ? p->tcp_src : rsv_sa_is6(&p->to) ? p->inst->src6 : p->inst->src;
	socklen_t len;

	if (ctx->stats.csv == NULL)
		return;
	rsv_msg_name_csv(&p->key, name, sizeof(name), type, sizeof(type));
	rsv_msg_name_csv(p->ask, ask, sizeof(ask), atype, sizeof(atype));
	if (p->walk) {
		struct rsv_key z;
		char ztype[32], txt[KNOT_DNAME_TXT_MAXLEN + 1];

		/* the zone's text through the same escaping as the names */
		rsv_iter_zone(p, txt, sizeof(txt));
		if (knot_dname_from_str(z.name, txt, sizeof(z.name)) != NULL) {
			z.len = (uint8_t)knot_dname_size(z.name);
			z.type = KNOT_RRTYPE_NS;
			rsv_msg_name_csv(&z, zone, sizeof(zone), ztype, sizeof(ztype));
		}
	}
	if (rcode >= 0)
		rsv_msg_rcode_name(rcode, rc, sizeof(rc));
	rsv_sa_str(rsv_sa(&p->to, &p->to6, &len), up, sizeof(up));
	fprintf(ctx->stats.csv, "%lld,%s,%s,%s,%s,%u,%s,%s,%s,%u,%s,%s,%lld,%s,%s,%s\n",
		(long long)p->sent_real, p->inst->conf->name, src, up, p->tcp ? "tcp" : "udp",
		p->id, name, type, p->reason == RSV_REASON_PREFETCH ? "prefetch" : "miss",
		p->attempt, result, rc, (long long)rtt_ns, zone, ask, atype);
}

const char *rsv_stats_servers(const struct rsv_conf *c, char *buf, size_t len)
{
	int iter = c->mode == RSV_MODE_ITERATE, n = iter ? c->nroot : c->nupstream;
	const struct sockaddr_in *list = iter ? c->root : c->upstream;
	const struct sockaddr_in6 *list6 = iter ? c->root6 : c->upstream6;
	char sa[RSV_SA_STRLEN];
	size_t o = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && o < len; i++) {
		socklen_t slen;

		rsv_sa_str(rsv_sa(&list[i], &list6[i], &slen), sa, sizeof(sa));
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? " " : "", sa);
	}
	return buf;
}

int rsv_stats_flush(struct rsv_ctx *ctx)
{
	if (ctx->stats.csv == NULL || ctx->stats.csv_failed)
		return ctx->stats.csv_failed ? -1 : 0;
	if (fflush(ctx->stats.csv) != 0 || ferror(ctx->stats.csv)) {
		log_warn("%s: upstream CSV", __func__);
		ctx->stats.csv_failed = 1;
		return -1;
	}
	return 0;
}
