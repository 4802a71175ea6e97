/*
 * The decay curve (docs/clocks.md, "Decay"): for each scheme, per time
 * bucket after t0, how many of its requests were captured on the dead site's
 * link (to the dead site, exactly the requests the window and lost_capture
 * count) and how many on every site link. Their ratio is the share of the
 * scheme's traffic still sent to the dead site. The buckets of a scheme add
 * up to its captured_after_t0 and lost_capture. Pure computation, no I/O.
 */
#include "clocks_decay.h"

#include <stdlib.h>
#include <string.h>

#include "clocks_conn.h"
#include "clocks_int.h"
#include "timeutil.h"

#define CLOCKS_DECAY_MIN_BUCKETS 50

int64_t clocks_bucket_of(int64_t rel_ns, int64_t width_ns)
{
	int64_t x = rel_ns - 1;

	/* floor division: C's rounds toward zero */
	return x >= 0 ? x / width_ns : -((-x + width_ns - 1) / width_ns);
}

int64_t clocks_decay_auto_bucket(int64_t obs_ns)
{
	static const int64_t widths[] = {NSEC_PER_SEC, 100 * NSEC_PER_MSEC, 10 * NSEC_PER_MSEC};

	for (size_t i = 0; i < sizeof(widths) / sizeof(widths[0]); i++)
		if (obs_ns / widths[i] >= CLOCKS_DECAY_MIN_BUCKETS)
			return widths[i];
	return 10 * NSEC_PER_MSEC;
}

static const struct clocks_flows *const clocks_decay_flows[CLOCKS_NSCHEMES] = {
    &clocks_anycast_flows,
    &clocks_dns_flows,
};

/* clocks_decay_fill: one scheme's counts over every site capture; with xs, each
 * request to the dead site given its cause */
static void clocks_decay_fill(const struct clocks_input *in, const struct clocks_flows *fl,
			      struct clocks_decay *d, struct clocks_decay_series *s,
			      struct clocks_explain_scheme *xs)
{
	int64_t t0 = in->failure.t0_ns;

	for (size_t i = 0; i < in->ncaptures; i++) {
		const struct clocks_capture *c = &in->captures[i];
		int dead = strcmp(c->label, in->failure.site) == 0;

		for (size_t k = 0; k < c->n; k++) {
			const struct clocks_packet *p = &c->packets[k];
			int64_t b;

			if (p->t_ns <= t0 || !clocks_is_flow(in, fl, p))
				continue;
			b = clocks_bucket_of(p->t_ns - t0, d->bucket_ns);
			if (b >= (int64_t)d->n)
				continue; /* not after clocks_observation_end */
			s->all[b]++;
			if (dead && clocks_is_dead(in, fl, c, k)) {
				s->dead[b]++;
				/* the explanation's one lookup, of these only */
				if (xs)
					s->cause[clocks_explain_count(xs, p, t0)][b]++;
			}
			/* fail-back: back at S since the timeline recovered it */
			if (dead && s->back && p->t_ns >= in->failure.recovered_ns &&
			    (fl->to_dead == NULL || fl->to_dead(in, p)))
				s->back[b]++;
		}
	}
}

/* clocks_decay_fill_syn: the connection attempts' curves of both schemes:
 * a SYN to the anycast address is the anycast flows', one to a site's own
 * address the DNS flows' (clocks_conn's split) */
static void clocks_decay_fill_syn(const struct clocks_input *in, struct clocks_decay *d)
{
	int64_t t0 = in->failure.t0_ns;

	for (size_t i = 0; i < in->ncaptures; i++) {
		const struct clocks_capture *c = &in->captures[i];
		int dead = strcmp(c->label, in->failure.site) == 0;

		for (size_t k = 0; k < c->ntcp; k++) {
			const struct clocks_tcpseg *seg = &c->tcp[k];
			/* d->s[] in clocks_decay_flows' order: anycast, dns */
			struct clocks_decay_series *s =
			    &d->s[seg->server.s_addr == in->failure.prefix.s_addr ? 0 : 1];
			int64_t b;

			if (seg->t_ns <= t0 || !s->known || !clocks_conn_attempt(in, seg))
				continue;
			b = clocks_bucket_of(seg->t_ns - t0, d->bucket_ns);
			if (b >= (int64_t)d->n)
				continue;
			s->syn_all[b]++;
			s->syn_dead[b] += dead;
		}
	}
}

/* clocks_decay_fill_rsv: the DNS curve of each [resolver] node's clients */
static int clocks_decay_fill_rsv(const struct clocks_input *in, struct clocks_decay *d)
{
	const struct clocks_flows *fl = &clocks_dns_flows;
	int64_t t0 = in->failure.t0_ns;
	struct clocks_rsv_map map;

	if (clocks_rsv_map(in, &map) == -1)
		return -1;
	for (size_t i = 0; i < in->ncaptures; i++) {
		const struct clocks_capture *c = &in->captures[i];
		int dead = strcmp(c->label, in->failure.site) == 0;

		for (size_t k = 0; k < c->n; k++) {
			const struct clocks_packet *p = &c->packets[k];
			int64_t b;
			int r;

			if (p->t_ns <= t0 || !clocks_is_flow(in, fl, p) ||
			    (r = clocks_rsv_map_of(&map, p->client)) < 0)
				continue;
			b = clocks_bucket_of(p->t_ns - t0, d->bucket_ns);
			if (b >= (int64_t)d->n)
				continue;
			d->rsv[r].all[b]++;
			if (dead && clocks_is_dead(in, fl, c, k))
				d->rsv[r].dead[b]++;
		}
	}
	clocks_rsv_map_free(&map);
	return 0;
}

static int clocks_decay_has_capture(const struct clocks_input *in)
{
	for (size_t i = 0; i < in->ncaptures; i++)
		if (strcmp(in->captures[i].label, in->failure.site) == 0)
			return 1;
	return 0;
}

int clocks_decay(const struct clocks_input *in, int64_t bucket_ns, struct clocks_decay *d,
		 char *err, size_t errlen)
{
	return clocks_decay_explain(in, bucket_ns, d, NULL, NULL, 0, err, errlen);
}

int clocks_decay_explain(const struct clocks_input *in, int64_t bucket_ns, struct clocks_decay *d,
			 struct clocks_explain *ex, const struct clocks_result *res, int nres,
			 char *err, size_t errlen)
{
	int64_t end = clocks_observation_end(in), nb;

	memset(d, 0, sizeof(*d));
	d->bucket_ns = bucket_ns;
	if (bucket_ns <= 0) {
		snprintf(err, errlen, "decay: the bucket must be longer than 0");
		return -1;
	}
	if (end == CLOCKS_NONE || end <= in->failure.t0_ns) {
		/* nothing observed after t0: no buckets */
		if (ex)
			clocks_explain_finish(in, res, nres, d, ex);
		return 0;
	}
	d->end_ns = end - in->failure.t0_ns;
	nb = d->end_ns / bucket_ns + (d->end_ns % bucket_ns != 0);
	if (nb > CLOCKS_MAX_BUCKETS) {
		snprintf(err, errlen,
			 "decay: a bucket of %lld ns makes %lld buckets of the %.3f s observed "
			 "(at most %d): choose a longer one",
			 (long long)bucket_ns, (long long)nb, (double)d->end_ns / NSEC_PER_SEC,
			 CLOCKS_MAX_BUCKETS);
		return -1;
	}
	d->n = (size_t)nb;
	for (int i = 0; i < CLOCKS_NSCHEMES; i++) {
		struct clocks_decay_series *s = &d->s[i];

		s->dead = calloc(d->n, sizeof(*s->dead));
		s->all = calloc(d->n, sizeof(*s->all));
		if (in->failure.recovered_ns != 0)
			s->back = calloc(d->n, sizeof(*s->back));
		if (s->dead == NULL || s->all == NULL ||
		    (in->failure.recovered_ns != 0 && s->back == NULL)) {
			snprintf(err, errlen, "decay: out of memory for %zu buckets", d->n);
			return -1;
		}
		s->known =
		    clocks_decay_has_capture(in) &&
		    (clocks_decay_flows[i]->scheme != CLOCKS_SCHEME_DNS || in->failure.has_address);
		if (ex && ex->s[i].present && s->known) {
			for (int k = 0; k < CLOCKS_CAUSES; k++)
				if ((s->cause[k] = calloc(d->n, sizeof(*s->cause[k]))) == NULL) {
					snprintf(err, errlen,
						 "decay: out of memory for %zu buckets", d->n);
					return -1;
				}
		}
		if (s->known)
			clocks_decay_fill(in, clocks_decay_flows[i], d, s,
					  ex && ex->s[i].present && s->cause[0] ? &ex->s[i] : NULL);
		if (in->conn && ((s->syn_dead = calloc(d->n, sizeof(*s->syn_dead))) == NULL ||
				 (s->syn_all = calloc(d->n, sizeof(*s->syn_all))) == NULL)) {
			snprintf(err, errlen, "decay: out of memory for %zu buckets", d->n);
			return -1;
		}
	}
	if (in->conn)
		clocks_decay_fill_syn(in, d);
	if (ex)
		clocks_explain_finish(in, res, nres, d, ex);
	if (in->dnstopo.nrsv == 0)
		return 0;
	d->rsv = calloc((size_t)in->dnstopo.nrsv, sizeof(*d->rsv));
	if (d->rsv == NULL)
		goto nomem;
	d->nrsv = in->dnstopo.nrsv;
	for (int k = 0; k < d->nrsv; k++) {
		d->rsv[k].dead = calloc(d->n, sizeof(*d->rsv[k].dead));
		d->rsv[k].all = calloc(d->n, sizeof(*d->rsv[k].all));
		if (d->rsv[k].dead == NULL || d->rsv[k].all == NULL)
			goto nomem;
		d->rsv[k].known = d->s[1].known;
	}
	if (d->s[1].known && clocks_decay_fill_rsv(in, d) == -1)
		goto nomem;
	return 0;
nomem:
	snprintf(err, errlen, "decay: out of memory for %zu buckets", d->n);
	return -1;
}

void clocks_decay_free(struct clocks_decay *d)
{
	for (int i = 0; i < CLOCKS_NSCHEMES; i++) {
		free(d->s[i].dead);
		free(d->s[i].all);
		free(d->s[i].back);
		free(d->s[i].syn_dead);
		free(d->s[i].syn_all);
		for (int k = 0; k < CLOCKS_CAUSES; k++)
			free(d->s[i].cause[k]);
	}
	for (int k = 0; k < d->nrsv; k++) {
		free(d->rsv[k].dead);
		free(d->rsv[k].all);
	}
	free(d->rsv);
	memset(d, 0, sizeof(*d));
}

#define CLOCKS_DECAY_SHORT_RUN (120 * NSEC_PER_SEC) /* marks under 15 s up to this */

int clocks_decay_marks(const struct clocks_decay *d, int64_t limit, int64_t *marks, int *end)
{
	static const int64_t marks_ms[] = {500,	  1000,	 2000,	 5000,	 10000,	 15000,	 30000,
					   45000, 60000, 120000, 300000, 600000, 1800000};
	int64_t last;
	int at_end = 0, n = 0;

	*end = 0;
	if (d->n == 0 || d->bucket_ns <= 0)
		return 0;
	for (size_t i = 0; i < sizeof(marks_ms) / sizeof(marks_ms[0]); i++) {
		int64_t m = marks_ms[i] * NSEC_PER_MSEC;

		if (m > limit || m < d->bucket_ns ||
		    (m < 15 * NSEC_PER_SEC && d->end_ns > CLOCKS_DECAY_SHORT_RUN))
			continue;
		marks[n++] = m;
		at_end |= m == limit / d->bucket_ns * d->bucket_ns;
	}
	/* and the last whole bucket, if no mark is there */
	last = limit / d->bucket_ns * d->bucket_ns;
	if (last > 0 && !at_end && n < CLOCKS_MAX_MARKS) {
		marks[n++] = last;
		*end = 1;
	}
	return n;
}
