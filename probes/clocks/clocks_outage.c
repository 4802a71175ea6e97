/*
 * The DNS outage clocks (clocks_outage.h, struct clocks_outages; docs/clocks.md,
 * "DNS outage clocks"), computed from the timeline's dns-down and
 * resolver-down steps and the DNS clients' dns_resolution events, with no
 * I/O; and clocks.json's "dns_outages".
 *
 * Each resolution is counted at the instant its query left, under the
 * resolver its client asks (client_started's resolver): fresh, stale
 * (flagged by the resolver, EDE 3), servfail, rcode (another response
 * without an address), timeout (no response before the client asked again).
 */
#include "clocks_outage.h"

#include <jansson.h>
#include <string.h>

#include "clocks_int.h"

const char *const clocks_dns_outcome_names[CLOCKS_DNS_OUTCOMES] = {
    "fresh", "stale", "servfail", "rcode", "timeout",
};

/* clocks_outage_effect: when step h was in effect: its done_ns (the rule
 * loaded), else when it began. A query sent while the rule was being
 * loaded may still be answered: it is not the outage's. */
static int64_t clocks_outage_effect(const struct clocks_hit *h)
{
	return h->done_ns != CLOCKS_NONE ? h->done_ns : h->t_ns;
}

/* clocks_outage_until: when the first step after down that undoes the
 * outage of its target (its dns-up, resolver-up or recover) was in
 * effect; CLOCKS_NONE if none */
static int64_t clocks_outage_until(const struct clocks_input *in, const struct clocks_hit *down)
{
	const struct clocks_hit *best = NULL;

	for (size_t i = 0; i < in->nhits; i++) {
		const struct clocks_hit *h = &in->hits[i];

		if (!h->up || h->t_ns <= down->t_ns || strcmp(h->target, down->target) != 0)
			continue;
		if (best == NULL || h->t_ns < best->t_ns)
			best = h;
	}
	return best ? clocks_outage_effect(best) : CLOCKS_NONE;
}

static const char *clocks_outage_resolver_of(const struct clocks_input *in, uint32_t client)
{
	for (size_t i = 0; i < in->nclients; i++)
		if (in->clients[i].id == client)
			return in->clients[i].resolver;
	return "";
}

static struct clocks_outage_resolver *clocks_outage_res(struct clocks_outage *o, const char *name)
{
	struct clocks_outage_resolver *r;

	for (int i = 0; i < o->nresolvers; i++)
		if (strcmp(o->r[i].resolver, name) == 0)
			return &o->r[i];
	if (o->nresolvers == CLOCKS_MAX_OUTAGE_RESOLVERS)
		return NULL;
	r = &o->r[o->nresolvers++];
	memset(r, 0, sizeof(*r));
	snprintf(r->resolver, sizeof(r->resolver), "%s", name);
	return r;
}

void clocks_outages(const struct clocks_input *in, struct clocks_outages *out)
{
	int64_t end = clocks_observation_end(in);

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < in->nhits && out->n < CLOCKS_MAX_OUTAGES; i++) {
		const struct clocks_hit *h = &in->hits[i];
		struct clocks_outage *o;
		int64_t span;

		if (strcmp(h->action, "dns-down") != 0 && strcmp(h->action, "resolver-down") != 0)
			continue;
		o = &out->o[out->n++];
		snprintf(o->name, sizeof(o->name), "%s", h->name);
		snprintf(o->action, sizeof(o->action), "%s", h->action);
		snprintf(o->target, sizeof(o->target), "%s", h->target);
		o->from_ns = clocks_outage_effect(h);
		o->until_ns = clocks_outage_until(in, h);
		span = end != CLOCKS_NONE && end > o->from_ns ? end - o->from_ns : 0;
		o->nbuckets = (int)((span + CLOCKS_OUTAGE_BUCKET_NS - 1) / CLOCKS_OUTAGE_BUCKET_NS);
		if (o->nbuckets > CLOCKS_OUTAGE_BUCKETS)
			o->nbuckets = CLOCKS_OUTAGE_BUCKETS;
		/* every resolver of the DNS clients, in the order they started */
		for (size_t k = 0; k < in->nclients; k++)
			if (in->clients[k].resolver[0])
				clocks_outage_res(o, in->clients[k].resolver);
		for (size_t k = 0; k < in->nresolutions; k++) {
			const struct clocks_resolution *rs = &in->resolutions[k];
			struct clocks_outage_resolver *r;
			int64_t b;

			if (rs->sent_ns < o->from_ns)
				continue;
			r = clocks_outage_res(o, clocks_outage_resolver_of(in, rs->client));
			if (r == NULL)
				continue;
			if (o->until_ns == CLOCKS_NONE || rs->sent_ns < o->until_ns) {
				r->during[rs->outcome]++;
				if (rs->outcome != CLOCKS_DNS_TIMEOUT &&
				    rs->latency_ns >= CLOCKS_OUTAGE_SLOW_NS)
					r->slow++;
				if (rs->outcome != CLOCKS_DNS_TIMEOUT &&
				    rs->latency_ns > r->slowest_ns)
					r->slowest_ns = rs->latency_ns;
			}
			b = (rs->sent_ns - o->from_ns) / CLOCKS_OUTAGE_BUCKET_NS;
			if (b < o->nbuckets)
				r->b[b][rs->outcome]++;
		}
	}
}

static json_t *clocks_outage_counts(const int64_t *c)
{
	json_t *o = json_object();

	for (int k = 0; k < CLOCKS_DNS_OUTCOMES; k++)
		json_object_set_new(o, clocks_dns_outcome_names[k], json_integer(c[k]));
	return o;
}

json_t *clocks_json_outages(const struct clocks_input *in, const struct clocks_outages *out)
{
	json_t *a = json_array();
	int64_t t0 = in->failure.t0_ns;

	for (int i = 0; i < out->n; i++) {
		const struct clocks_outage *o = &out->o[i];
		json_t *jo = json_object(), *rs = json_object();

		json_object_set_new(jo, "name", json_string(o->name));
		json_object_set_new(jo, "action", json_string(o->action));
		json_object_set_new(jo, "target", json_string(o->target));
		json_object_set_new(jo, "from_s", json_real((double)(o->from_ns - t0) / 1e9));
		json_object_set_new(jo, "until_s",
				    o->until_ns == CLOCKS_NONE
					? json_null()
					: json_real((double)(o->until_ns - t0) / 1e9));
		json_object_set_new(jo, "bucket_s", json_real(CLOCKS_OUTAGE_BUCKET_NS / 1e9));
		for (int j = 0; j < o->nresolvers; j++) {
			const struct clocks_outage_resolver *r = &o->r[j];
			json_t *jr = json_object(), *bs = json_array();

			json_object_set_new(jr, "during", clocks_outage_counts(r->during));
			json_object_set_new(jr, "slow", json_integer(r->slow));
			json_object_set_new(jr, "slowest_s",
					    json_real((double)r->slowest_ns / 1e9));
			for (int b = 0; b < o->nbuckets; b++) {
				json_t *jb = clocks_outage_counts(r->b[b]);

				json_object_set_new(
				    jb, "t_s",
				    json_real((double)(o->from_ns - t0 +
						       (int64_t)b * CLOCKS_OUTAGE_BUCKET_NS) /
					      1e9));
				json_array_append_new(bs, jb);
			}
			json_object_set_new(jr, "buckets", bs);
			json_object_set_new(rs, r->resolver[0] ? r->resolver : "unknown", jr);
		}
		json_object_set_new(jo, "resolvers", rs);
		json_array_append_new(a, jo);
	}
	return a;
}
