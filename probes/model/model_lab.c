/*
 * The lab's clocks (docs/model.md): in->samples draws of every random phase
 * (SplitMix64 from in->seed: the same input gives the same figures), each
 * scheme's clocks per draw (model_anycast.c, model_dns.c), then each
 * clock's nearest-rank p5, p50, p95 and bounds. See model.h.
 */
#include "model.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void model_note(struct model_notes *notes, int not_modelled, const char *fmt, ...)
{
	va_list ap;

	if (notes->n >= MODEL_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(notes->text[notes->n], MODEL_NOTE_MAX, fmt, ap);
	va_end(ap);
	notes->not_modelled[notes->n++] = not_modelled;
}

double model_budget_s(double slo_pct)
{
	return (100 - slo_pct) / 100 * 30 * 24 * 3600;
}

/* SplitMix64 (Steele, Lea and Flood, OOPSLA 2014), as lab/topology/jitter.c */
static uint64_t lab_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* lab_uniform: in [0, 1), 53 bits */
static double lab_uniform(uint64_t *s)
{
	return (double)(lab_next(s) >> 11) / 9007199254740992.0;
}

double model_uniform(uint64_t *state)
{
	return lab_uniform(state);
}

static int lab_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* lab_rank: the nearest-rank p-th percentile of sorted v[0..n): the
 * ceil(p n / 100)-th smallest (docs/clocks.md's rule) */
static double lab_rank(const double *v, size_t n, double p)
{
	size_t r = (size_t)ceil(p * (double)n / 100);

	return v[r ? r - 1 : 0];
}

/* lab_iv: the distribution of v[0..n) (sorted here) into *iv */
static void lab_iv(double *v, size_t n, struct model_iv *iv)
{
	qsort(v, n, sizeof(v[0]), lab_cmp);
	iv->known = 1;
	iv->why[0] = '\0';
	iv->p5 = lab_rank(v, n, 5);
	iv->p50 = lab_rank(v, n, 50);
	iv->p95 = lab_rank(v, n, 95);
	iv->min = v[0];
	iv->max = v[n - 1];
}

void model_iv_of(double *v, size_t n, struct model_iv *iv)
{
	lab_iv(v, n, iv);
}

static void lab_unknown(struct model_iv *iv, const char *why)
{
	memset(iv, 0, sizeof(*iv));
	snprintf(iv->why, sizeof(iv->why), "%s", why);
}

/* lab_pop: population client m's logical clients in draw dr (t0_s, the
 * scheme's steer after it): each one's last packet after t0 (0: none,
 * else plus the effect) into v, its requests to the failed site until then
 * added to *lost; the population's last of all returned */
/* lab_pop_lag: how late a population's requests, and so its caches'
 * fills, are in draw dr. On time at rest; on a loaded machine a
 * population falls behind its schedule, tens of ms in a run that is still
 * valid (a stall of 50 ms invalidates it, client_stalled, but a rate a
 * little short for a while lags as far without one): a fill that was to
 * come a few ms before the steer comes after it, and its cache's users
 * move a TTL early (seed002.ini in a gate: a fill 35 ms late, 15 ms after
 * the steer, 39 users 3 s early, the p50 a cache's step, 47 ms, early). A
 * few draws (MODEL_POP_LAG_SHARE) lag by up to MODEL_POP_LAG_S, the
 * judgment's tolerance of the lab's timing, so that the bounds cover such
 * runs while p5-p95 stays a run's at rest. */
static double lab_pop_lag(const struct model_draw *dr)
{
	if (dr->u_lag >= MODEL_POP_LAG_SHARE)
		return 0;
	return MODEL_POP_LAG_S * dr->u_lag / MODEL_POP_LAG_SHARE;
}

static double lab_pop(const struct model_pop_plan *pl, const struct model_client *m,
		      const struct model_draw *dr, double steer, double end, double effect,
		      double *lost, double *v)
{
	double max = 0, lag = lab_pop_lag(dr);
	/* the plan's instants: the lab's lag earlier */
	double t0 = dr->t0_s - m->arrive_s - lag;

	for (unsigned u = 0; u < model_pop_users(pl); u++) {
		/* dns: its answer after the steer if its query reached authd
		 * after it; anycast: its route at its router's change */
		double x = m->to_failed && steer >= 0 && !model_pop_off(pl, u)
			       ? model_pop_last(pl, u, t0,
						dr->t0_s + steer - m->ask_s - lag +
						    model_client_after(m, dr->u_tie))
			       : -1;

		if (x < 0) {
			v[u] = 0;
			continue;
		}
		/* the requests that reached the site after t0 */
		*lost += model_pop_sends(pl, u, t0, x);
		x += lag + m->arrive_s - dr->t0_s;
		if (x > end)
			x = end;
		v[u] = x + effect;
		if (v[u] > max)
			max = v[u];
	}
	return max;
}

double model_tcp_reconnect(double moved, int now)
{
	double at = 0, wait = 0.1;

	/* the first attempt at once, then the waits (agents/client/tcp.c,
	 * client_tcp_retry_ns) */
	while (at < moved) {
		at += wait;
		if (!now && wait < 1)
			wait = fmin(wait * 2, 1);
	}
	return at;
}

/* lab_has_pop: whether a client of in is a population */
static int lab_has_pop(const struct model_input *in)
{
	for (int i = 0; i < in->nclients; i++)
		if (in->clients[i].pop)
			return 1;
	return 0;
}

unsigned model_draws(const struct model_input *in)
{
	unsigned n = in->samples ? in->samples : MODEL_SAMPLES;

	if (lab_has_pop(in) && n > MODEL_POP_SAMPLES)
		n = MODEL_POP_SAMPLES;
	/* through DNS outages or prefetches each draw plays every query
	 * (model_dns_sim.c) */
	if (in->dns_sim && n > MODEL_POP_SAMPLES)
		n = MODEL_POP_SAMPLES;
	return n;
}

/* the clocks of a scheme, one array of draws each */
enum {
	K_DETECT,
	K_STEER,
	K_WINDOW,
	K_P50,
	K_P99,
	K_MAX,
	K_LOST,
	K_ERRORS,
	K_DOWN,
	K_BUDGET,
	K_SITE,
	K_FB_HEALTHY, /* the fail-back's, when modelled */
	K_FB_STEER,
	K_FB_FIRST,
	K_FB_LAST,
	K_COUNT
};

/* lab_scheme: scheme s's clocks over the draws */
static int lab_scheme(const struct model_input *in, int s, struct model_scheme_result *sr,
		      double budget_s)
{
	int (*draw)(const struct model_input *, const struct model_draw *, struct model_clocks *) =
	    s == MODEL_ANYCAST ? model_anycast_draw : model_dns_draw;
	const char *limit = s == MODEL_ANYCAST ? in->anycast_limit : in->dns_limit;
	unsigned n = model_draws(in);
	/* the clients' clocks alone (TCP): detect and steer are the scheme's */
	const char *clients = limit[0] ? limit : in->clients_limit;
	int nc = 0, rc = -1, detect_known = 1, rest_known = !clients[0];
	int fb_known = in->recover_at_s >= 0, fb_first = 0, whole = model_dns_whole(in);
	double *k[K_COUNT] = {0}, *cl = NULL, *last = NULL;
	char blind[MODEL_NOTE_MAX]; /* why detect is not known, the rest with it */
	struct model_clocks *c = calloc(1, sizeof(*c));
	uint64_t seed = in->seed ^ (uint64_t)(s + 1) * 0x2545f4914f6cdd1dULL;
	struct model_pop_plan *plan[MODEL_MAX_CLIENTS] = {0};
	size_t users = 0;

	for (int i = 0; i < in->nclients; i++)
		if (in->clients[i].scheme == s) {
			sr->client_index[nc++] = i;
			sr->rate_per_s += in->clients[i].rate_per_s;
			sr->tcp |= in->clients[i].proto != MODEL_UDP;
		}
	sr->clients = nc;
	/* a failure of one family: the site's own prober and the routes see
	 * neither (anycast_limit says why) */
	if (s == MODEL_ANYCAST && in->fail_family)
		detect_known = 0;
	/* a population's logical clients each count as one (the measured
	 * last packets are per logical client) */
	for (int j = 0; j < nc; j++) {
		if (in->clients[sr->client_index[j]].pop && rest_known) {
			if ((plan[j] = model_pop_plan(in, sr->client_index[j])) == NULL)
				goto out;
			users += model_pop_users(plan[j]);
		} else {
			users++;
		}
	}
	for (int j = 0; j < K_COUNT; j++)
		if ((k[j] = calloc(n, sizeof(double))) == NULL)
			goto out;
	if (c == NULL || (cl = calloc((size_t)n * (size_t)(nc ? nc : 1), sizeof(double))) == NULL ||
	    (last = calloc(users ? users : 1, sizeof(double))) == NULL)
		goto out;
	for (unsigned d = 0; d < n; d++) {
		struct model_draw dr;
		double lost = 0, window = 0, end, effect, site, errors = 0;

		dr.u_site = lab_uniform(&seed);
		dr.u_refresh = lab_uniform(&seed);
		dr.u_check = lab_uniform(&seed);
		dr.u_session = lab_uniform(&seed);
		/* drawn only when it decides something, so that the draws are
		 * otherwise the same */
		dr.u_tie = in->bgp_ties ? lab_uniform(&seed) : 0;
		dr.u_tick = in->dns_sim ? lab_uniform(&seed) : 0;
		dr.u_first = in->dns_sim ? lab_uniform(&seed) : 0;
		dr.u_order = in->dns_sim ? lab_uniform(&seed) : 0;
		dr.u_lag = lab_has_pop(in) ? lab_uniform(&seed) : 0;
		dr.u_back = in->recover_at_s >= 0 ? lab_uniform(&seed) : 0;
		dr.u_edge = in->recover_at_s >= 0 ? lab_uniform(&seed) : 0;
		dr.u_wall = !whole ? 0 : in->wall_known ? in->wall_s : lab_uniform(&seed);
		for (int p = 0; p < in->nprobers; p++)
			dr.u_probers[p] = lab_uniform(&seed);
		dr.t0_s = in->fail_at_s + in->fail_jitter_s * lab_uniform(&seed);
		/* the failure in effect e after t0 (a run's action took so
		 * long): the phases from then, the clocks still from t0; the
		 * requests of those e seconds were answered, none lost (drawn
		 * only when there is one, so that the draws are otherwise the
		 * same) */
		effect = in->effect_s > 0 ? in->effect_s * lab_uniform(&seed) : 0;
		dr.t0_s += effect;
		/* FRR's retry: bgp's anycast alone, drawn last (the other
		 * draws as they were) */
		dr.u_frr = in->routing == MODEL_BGP && s == MODEL_ANYCAST ? lab_uniform(&seed) : 0;
		/* the lab's phases follow from t0 (unless free_phases: the
		 * seeds' independent ones, as drawn) */
		model_draw_phases(in, &dr);
		if (draw(in, &dr, c) == -1) {
			detect_known = 0;
			break;
		}
		if (c->steer < 0)
			rest_known = 0;
		k[K_DETECT][d] = c->detect + effect;
		k[K_STEER][d] = c->steer >= 0 ? c->steer + effect : c->steer;
		/* the traffic ends duration after its start: nothing later */
		end = in->duration_s - dr.t0_s;
		users = 0;
		site = 0;
		for (int j = 0; j < nc; j++) {
			const struct model_client *m = &in->clients[sr->client_index[j]];
			double x = c->last[sr->client_index[j]], was_lost = lost, was_site = site;
			size_t first = users;

			if (plan[j]) {
				double was = lost;

				x = lab_pop(plan[j], m, &dr, c->steer, end, effect, &lost,
					    last + users);
				site += lost - was;
				users += model_pop_users(plan[j]);
			} else {
				double xl;

				if (x > end)
					x = end;
				/* Happy Eyeballs: the last attempt_s of them rescued
				 * over IPv4 (not counted at the site either) */
				xl = m->attempt_s > 0 ? fmax(0, x - m->attempt_s) : x;
				/* a failure of the other family loses it none: its
				 * requests are answered, at the site too */
				if (!m->unharmed) {
					site += m->rate_per_s * xl;
					/* and while its packets reach no site after that */
					lost += m->rate_per_s *
						(xl + fmin(model_client_lost_extra(m, dr.u_tie),
							   end - x));
				}
				if (x > 0)
					x += effect;
				last[users++] = x;
			}
			/* a drained site answers what reaches it; a cut link
			 * lets nothing reach it, every request sent its way lost
			 * on the way */
			if (in->how == MODEL_DRAIN)
				lost = was_lost;
			if (in->how == MODEL_LINK_DOWN) {
				site = was_site;
				x = 0;
				for (size_t u = first; u < users; u++)
					last[u] = 0;
			}
			/* over TCP or HTTP a killed site's kernel refuses every
			 * connection: the requests fail at once (errors) until
			 * the client connects elsewhere, none reaches the site */
			if (m->proto != MODEL_UDP && x > 0) {
				double until =
				    m->proto == MODEL_TCP
					? model_tcp_reconnect(x - effect, m->tcp_now) + effect
					: x;

				errors += m->rate_per_s * fmin(until, end + effect);
				lost = was_lost;
				site = was_site;
				x = 0;
				for (size_t u = first; u < users; u++)
					last[u] = 0;
			}
			cl[(size_t)j * n + d] = x;
			if (x > window)
				window = x;
		}
		if (fb_known) {
			double fb[4];

			if (model_failback_draw(in, s, &dr, c, fb) == -1) {
				fb_known = 0;
			} else {
				for (int j = 0; j < 4; j++)
					k[K_FB_HEALTHY + j][d] = fb[j];
				fb_first |= fb[2] >= 0;
			}
		}
		k[K_WINDOW][d] = window;
		qsort(last, users, sizeof(last[0]), lab_cmp);
		k[K_P50][d] = users ? lab_rank(last, users, 50) : 0;
		k[K_P99][d] = users ? lab_rank(last, users, 99) : 0;
		k[K_MAX][d] = window;
		k[K_LOST][d] = lost;
		k[K_ERRORS][d] = errors;
		k[K_SITE][d] = site;
		k[K_DOWN][d] = sr->rate_per_s > 0 ? (lost + errors) / sr->rate_per_s : 0;
		k[K_BUDGET][d] = k[K_DOWN][d] / budget_s;
	}
	if (!detect_known) {
		const char *why = blind;

		if (limit[0])
			why = limit;
		else if (s == MODEL_ANYCAST && in->how != MODEL_CRASH && in->how != MODEL_FREEZE)
			snprintf(blind, sizeof(blind),
				 "the failed site's prober cannot see a %s: it goes on announcing "
				 "the site, whose route nothing else takes out",
				 model_how_name(in->how));
		else if (s == MODEL_ANYCAST)
			snprintf(blind, sizeof(blind),
				 "the failed site's prober cannot see a %s, and no hold timer of "
				 "static routing deletes its route",
				 model_how_name(in->how));
		else if (in->own_checks)
			snprintf(blind, sizeof(blind),
				 "the name's server checks the sites with a TCP connection, which "
				 "a %s leaves "
				 "open: it never declares the site dead",
				 model_how_name(in->how));
		else
			snprintf(blind, sizeof(blind),
				 "no [prober] that reports to authd sees a %s (a site no prober "
				 "reported on stays healthy)",
				 model_how_name(in->how));

		lab_unknown(&sr->detect, why);
		lab_unknown(&sr->steer, why);
		rest_known = 0;
		clients = why;
	} else if (s == MODEL_DNS && in->dns_detect_limit[0]) {
		lab_unknown(&sr->detect, in->dns_detect_limit);
		lab_unknown(&sr->steer, in->dns_detect_limit);
	} else {
		lab_iv(k[K_DETECT], n, &sr->detect);
		if (s == MODEL_DNS && in->own_checks)
			lab_unknown(&sr->steer,
				    "the name's server decides at detect; its steer is measured on "
				    "the wire, at "
				    "the first answer asked for after that, not modelled");
		else if (k[K_STEER][0] >= 0)
			lab_iv(k[K_STEER], n, &sr->steer);
		else
			lab_unknown(&sr->steer, limit[0] ? limit : "not modelled");
	}
	if (fb_known && detect_known) {
		lab_iv(k[K_FB_HEALTHY], n, &sr->fb_healthy);
		lab_iv(k[K_FB_STEER], n, &sr->fb_steer);
		if (fb_first) {
			lab_iv(k[K_FB_FIRST], n, &sr->fb_first);
			lab_iv(k[K_FB_LAST], n, &sr->fb_last);
		} else {
			lab_unknown(&sr->fb_first, "none of its clients was on the site");
			lab_unknown(&sr->fb_last, "none of its clients was on the site");
		}
	} else {
		const char *why = in->recover_at_s < 0	  ? "no recovery on the timeline"
				  : in->failback_limit[0] ? in->failback_limit
				  : s == MODEL_ANYCAST
				      ? "the route's return with routing = bgp: not "
					"modelled"
				      : "no quorum of [prober]s sees the site again";

		lab_unknown(&sr->fb_healthy, why);
		lab_unknown(&sr->fb_steer, why);
		lab_unknown(&sr->fb_first, why);
		lab_unknown(&sr->fb_last, why);
	}
	if (rest_known) {
		lab_iv(k[K_WINDOW], n, &sr->window);
		lab_iv(k[K_P50], n, &sr->last_p50);
		lab_iv(k[K_P99], n, &sr->last_p99);
		lab_iv(k[K_MAX], n, &sr->last_max);
		lab_iv(k[K_LOST], n, &sr->lost);
		lab_iv(k[K_ERRORS], n, &sr->errors);
		lab_iv(k[K_SITE], n, &sr->lost_site);
		lab_iv(k[K_DOWN], n, &sr->equivalent_downtime);
		lab_iv(k[K_BUDGET], n, &sr->budget_share);
		for (int j = 0; j < nc; j++)
			lab_iv(cl + (size_t)j * n, n, &sr->client_last[j]);
	} else {
		const char *why = clients[0] ? clients : "not modelled";
		struct model_iv *rest[] = {
		    &sr->window,      &sr->last_p50, &sr->last_p99,  &sr->last_max,
		    &sr->lost,	      &sr->errors,   &sr->lost_site, &sr->equivalent_downtime,
		    &sr->budget_share};

		for (size_t j = 0; j < sizeof(rest) / sizeof(rest[0]); j++)
			lab_unknown(rest[j], why);
		for (int j = 0; j < nc; j++)
			lab_unknown(&sr->client_last[j], why);
	}
	rc = 0;
out:
	for (int j = 0; j < K_COUNT; j++)
		free(k[j]);
	for (int j = 0; j < nc; j++)
		model_pop_plan_free(plan[j]);
	free(last);
	free(cl);
	free(c);
	return rc;
}

/* lab_upstream_sim: the upstream queries of DNS clients followed query by
 * query, over as many choices of which client asks each cache first as
 * the draws (what they answer does not change when they go) */
static int lab_upstream_sim(const struct model_input *in, struct model_scheme_result *sr)
{
	unsigned n = model_draws(in);
	double *q = calloc(n, sizeof(double)), moved[MODEL_MAX_CLIENTS];

	if (q == NULL)
		return -1;
	for (unsigned d = 0; d < n; d++) {
		struct model_draw dr = {.u_tick = 0.5,
					.u_first = (d + 0.5) / n,
					.u_order = fmod((d + 0.5) * 0.6180339887498949, 1.0)};

		if (model_dns_sim(in, INFINITY, &dr, moved, &q[d]) == -1) {
			free(q);
			return -1;
		}
	}
	lab_iv(q, n, &sr->upstream_queries);
	for (unsigned d = 0; d < n; d++)
		q[d] = in->duration_s > 0 ? q[d] / in->duration_s : 0;
	lab_iv(q, n, &sr->upstream_per_s);
	free(q);
	return 0;
}

int model_lab(const struct model_input *in, struct model_result *r)
{
	memset(r, 0, sizeof(*r));
	r->budget_s = model_budget_s(in->slo_pct);
	for (int s = 0; s < MODEL_SCHEMES; s++) {
		struct model_scheme_result *sr = &r->s[s];
		int present = s == MODEL_ANYCAST ? in->anycast_present : in->dns_present;

		if (!present)
			continue;
		sr->present = 1;
		if (lab_scheme(in, s, sr, r->budget_s) == -1)
			return -1;
		if (s == MODEL_ANYCAST) {
			lab_unknown(&sr->upstream_queries, "not a measure of anycast");
			lab_unknown(&sr->upstream_per_s, "not a measure of anycast");
		} else if (in->upstream_limit[0]) {
			lab_unknown(&sr->upstream_queries, in->upstream_limit);
			lab_unknown(&sr->upstream_per_s, in->upstream_limit);
		} else if (in->dns_sim) {
			if (lab_upstream_sim(in, sr) == -1)
				return -1;
		} else {
			double q = model_dns_upstream(in);

			if (q < 0)
				return -1;
			struct model_iv *u = &sr->upstream_queries, *ups = &sr->upstream_per_s;

			u->known = ups->known = 1;
			u->p5 = u->p50 = u->p95 = u->min = u->max = q;
			q = in->duration_s > 0 ? q / in->duration_s : 0;
			ups->p5 = ups->p50 = ups->p95 = ups->min = ups->max = q;
		}
	}
	return 0;
}
