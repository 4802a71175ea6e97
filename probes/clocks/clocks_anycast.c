/*
 * The anycast clocks (docs/clocks.md), computed from a loaded run with no
 * I/O. Every time is compared with t0, the t of site_failed:
 *
 *   detect   first declared_dead of the failed site at or after t0
 *   steer    first route_deleted of the service prefix via the failed site's
 *            link address at or after t0
 *   window   last request packet in the failed site's capture after t0
 *
 * plus the request counts of the clients' records and of the captures.
 * A clock whose event never came stays CLOCKS_NONE, with a warning.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "clocks.h"

struct clocks_last {
	uint32_t client;
	int64_t t_ns;
};

static int clocks_cmp_last(const void *a, const void *b)
{
	const struct clocks_last *x = a, *y = b;

	if (x->client != y->client)
		return x->client < y->client ? -1 : 1;
	return x->t_ns < y->t_ns ? -1 : x->t_ns > y->t_ns;
}

static int clocks_cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* clocks_rank: nearest-rank percentile p (0 < p <= 100) of sorted v[n]. */
static int64_t clocks_rank(const int64_t *v, size_t n, int p)
{
	size_t k = ((size_t)p * n + 99) / 100;

	return v[k ? k - 1 : 0];
}

/* clocks_count_add: one more for name in a count list. */
static void clocks_count_add(struct clocks_count *list, int *n, const char *name, int64_t add,
			     struct clocks_notes *notes)
{
	for (int i = 0; i < *n; i++) {
		if (strcmp(list[i].name, name) == 0) {
			list[i].n += add;
			return;
		}
	}
	if (*n == CLOCKS_MAX_SITES) {
		clocks_warn(notes, "more than %d sites: %s not counted", CLOCKS_MAX_SITES, name);
		return;
	}
	snprintf(list[*n].name, sizeof(list[*n].name), "%s", name);
	list[(*n)++].n = add;
}

static void clocks_detect(const struct clocks_input *in, struct clocks_result *r)
{
	const struct clocks_failure *f = &in->failure;

	for (size_t i = 0; i < in->ndead; i++) {
		const struct clocks_dead *d = &in->dead[i];
		if (d->t_ns >= f->t0_ns && strcmp(d->site, f->site) == 0 &&
		    (r->detect_at_ns == CLOCKS_NONE || d->t_ns < r->detect_at_ns))
			r->detect_at_ns = d->t_ns;
	}
	if (r->detect_at_ns == CLOCKS_NONE)
		clocks_warn(&r->notes,
			    "detect: no declared_dead of site %s at or after t0 in "
			    "*.prober.events.jsonl",
			    f->site);
	else
		r->detect_ns = r->detect_at_ns - f->t0_ns;
}

static void clocks_steer(const struct clocks_input *in, struct clocks_result *r)
{
	const struct clocks_failure *f = &in->failure;
	char via[INET_ADDRSTRLEN], prefix[INET_ADDRSTRLEN];

	for (size_t i = 0; i < in->nroutes; i++) {
		const struct clocks_route *rt = &in->routes[i];
		if (rt->deleted && rt->t_ns >= f->t0_ns && rt->prefixlen == f->prefixlen &&
		    rt->prefix.s_addr == f->prefix.s_addr && rt->has_via &&
		    rt->via.s_addr == f->via.s_addr &&
		    (r->steer_at_ns == CLOCKS_NONE || rt->t_ns < r->steer_at_ns))
			r->steer_at_ns = rt->t_ns;
	}
	if (r->steer_at_ns == CLOCKS_NONE) {
		inet_ntop(AF_INET, &f->via, via, sizeof(via));
		inet_ntop(AF_INET, &f->prefix, prefix, sizeof(prefix));
		clocks_warn(&r->notes,
			    "steer: no route_deleted of %s/%d via %s at or after t0 "
			    "in *.collector.events.jsonl",
			    prefix, f->prefixlen, via);
	} else {
		r->steer_ns = r->steer_at_ns - f->t0_ns;
	}
}

/* clocks_last_packets: per client, its last request to the dead site after
 * t0; then their distribution over clients. */
static void clocks_last_packets(const struct clocks_capture *c, int64_t t0, struct clocks_result *r)
{
	struct clocks_last *last = NULL;
	int64_t *lasts = NULL;
	size_t n = 0, nclients = 0;

	if (c->n > 0 && ((last = malloc(c->n * sizeof(*last))) == NULL ||
			 (lasts = malloc(c->n * sizeof(*lasts))) == NULL)) {
		clocks_warn(&r->notes, "last packet per client: out of memory");
		goto out;
	}
	for (size_t i = 0; i < c->n; i++)
		if (c->packets[i].t_ns > t0)
			last[n++] = (struct clocks_last){c->packets[i].client, c->packets[i].t_ns};
	qsort(last, n, sizeof(*last), clocks_cmp_last);
	for (size_t i = 0; i < n; i++)
		if (i + 1 == n || last[i + 1].client != last[i].client)
			lasts[nclients++] = last[i].t_ns - t0;
	r->last_packet.n = (int64_t)nclients;
	if (nclients > 0) {
		qsort(lasts, nclients, sizeof(*lasts), clocks_cmp_i64);
		r->last_packet.p50_ns = clocks_rank(lasts, nclients, 50);
		r->last_packet.p99_ns = clocks_rank(lasts, nclients, 99);
		r->last_packet.max_ns = lasts[nclients - 1];
	}
out:
	free(last);
	free(lasts);
}

static void clocks_window(const struct clocks_input *in, struct clocks_result *r)
{
	const struct clocks_failure *f = &in->failure;
	const struct clocks_capture *dead = NULL;

	for (size_t i = 0; i < in->ncaptures; i++) {
		const struct clocks_capture *c = &in->captures[i];
		int64_t after = 0;

		for (size_t k = 0; k < c->n; k++)
			after += c->packets[k].t_ns > f->t0_ns;
		clocks_count_add(r->after_t0, &r->nafter_t0, c->label, after, &r->notes);
		if (strcmp(c->label, f->site) == 0)
			dead = c;
	}
	if (dead == NULL) {
		clocks_warn(&r->notes, "window: no capture-%s.pcap of the failed site", f->site);
		return;
	}
	r->window_ns = 0;
	r->lost_capture = 0;
	for (size_t k = 0; k < dead->n; k++) {
		int64_t dt = dead->packets[k].t_ns - f->t0_ns;
		if (dt > 0) {
			r->lost_capture++;
			if (dt > r->window_ns)
				r->window_ns = dt;
		}
	}
	clocks_last_packets(dead, f->t0_ns, r);
}

static void clocks_requests(const struct clocks_input *in, struct clocks_result *r)
{
	if (!in->have_requests) {
		clocks_warn(&r->notes, "requests: no requests-*.csv with records");
		return;
	}
	r->sent = r->ok = r->lost_client = r->errors = 0;
	for (size_t i = 0; i < in->nrequests; i++) {
		const struct clocks_request *q = &in->requests[i];

		r->sent++;
		if (q->status == CLOCKS_OK) {
			r->ok++;
			clocks_count_add(r->replies, &r->nreplies, q->site, 1, &r->notes);
		} else if (q->status == CLOCKS_TIMEOUT) {
			r->lost_client++;
		} else {
			r->errors++;
		}
	}
}

static void clocks_drops(const struct clocks_input *in, struct clocks_result *r)
{
	if (in->nstats == 0) {
		clocks_warn(&r->notes, "capture_drops: no capture_stats in "
				       "*.collector.events.jsonl (was the collector killed?)");
		return;
	}
	r->capture_drops = 0;
	for (size_t i = 0; i < in->nstats; i++) {
		const struct clocks_link_stats *s = &in->stats[i];
		if (!s->known) {
			clocks_warn(&r->notes, "capture_drops: no drop counts for link %s",
				    s->label);
			r->capture_drops = CLOCKS_NONE;
			return;
		}
		r->capture_drops += s->dropped + s->if_dropped;
	}
}

void clocks_anycast(const struct clocks_input *in, struct clocks_result *r)
{
	memset(r, 0, sizeof(*r));
	r->scheme = "anycast";
	r->detect_ns = r->detect_at_ns = r->steer_ns = r->steer_at_ns = CLOCKS_NONE;
	r->window_ns = r->lost_capture = r->capture_drops = CLOCKS_NONE;
	r->sent = r->ok = r->lost_client = r->errors = CLOCKS_NONE;
	r->last_packet.p50_ns = r->last_packet.p99_ns = r->last_packet.max_ns = CLOCKS_NONE;
	clocks_detect(in, r);
	clocks_steer(in, r);
	clocks_window(in, r);
	clocks_requests(in, r);
	clocks_drops(in, r);
}
