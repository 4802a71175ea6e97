/*
 * The lab's decay curve (docs/model.md, "The decay of a run"): the share of
 * a scheme's requests still sent to the failed site in each bucket after t0,
 * from each client's last packet and rate, averaged over draws of the
 * random phases drawn as model_lab.c draws them. See model.h.
 */
#include "model.h"

#include <math.h>
#include <stdlib.h>

/* SplitMix64 (Steele, Lea and Flood, OOPSLA 2014), as model_lab.c */
static uint64_t curve_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* curve_uniform: in [0, 1), 53 bits */
static double curve_uniform(uint64_t *s)
{
	return (double)(curve_next(s) >> 11) / 9007199254740992.0;
}

/* curve_add: rate x the length of (k w, (k + 1) w] within (0, until] into
 * the buckets of v: whole buckets as a difference (v[0] up, v[k] down; the
 * prefix sums make them), the last part bucket as itself into part */
static void curve_add(double *v, double *part, size_t n, double w, double rate, double until)
{
	size_t whole;

	if (until <= 0 || rate <= 0)
		return;
	whole = until / w >= (double)n ? n : (size_t)(until / w);
	v[0] += rate * w;
	if (whole < n)
		v[whole] -= rate * w;
	if (whole < n)
		part[whole] += rate * (until - (double)whole * w);
}

/* curve_pop: population client m's logical clients in draw dr: each
 * one's rate until the traffic's end into v[0] (v[1] its part bucket), and
 * each of its requests to the failed site into its bucket of v[3]: one by
 * one, for a client's last request is one of its sends (the first after
 * its cache's expiry), so the requests of a bucket are not its clients'
 * rates over their last packets (at one request a second, the share of
 * requests lags the share of clients gone by up to a second) */
static void curve_pop(const struct model_pop_plan *pl, const struct model_client *m,
		      const struct model_draw *dr, double steer, double end, double effect,
		      double w, size_t n, double *const v[4])
{
	for (unsigned u = 0; u < model_pop_users(pl); u++) {
		double r = model_pop_rate(pl, u), x = -1, until;

		curve_add(v[0], v[1], n, w, r, end + effect);
		if (m->to_failed && steer >= 0 && !model_pop_off(pl, u))
			x = model_pop_last(pl, u, dr->t0_s - m->arrive_s,
					   dr->t0_s + steer - m->ask_s +
					       model_client_after(m, dr->u_tie));
		if (x < 0)
			continue;
		/* each request in the bucket of its arrival at the site */
		until = fmin(x, dr->t0_s + end - m->arrive_s);
		for (double y =
			 model_pop_next_send(pl, u, nextafter(dr->t0_s - m->arrive_s, INFINITY));
		     y <= until; y = model_pop_next_send(pl, u, y + 0.5 / r)) {
			double b = (y + m->arrive_s - dr->t0_s + effect) / w;

			if (b < (double)n)
				v[3][(size_t)b]++;
		}
	}
}

int model_lab_decay(const struct model_input *in, int s, double bucket_s, size_t n, double *share)
{
	int (*draw)(const struct model_input *, const struct model_draw *, struct model_clocks *) =
	    s == MODEL_ANYCAST ? model_anycast_draw : model_dns_draw;
	const char *limit = s == MODEL_ANYCAST ? in->anycast_limit : in->dns_limit;

	if (!limit[0])
		limit = in->clients_limit;
	unsigned draws = model_draws(in);
	int present = s == MODEL_ANYCAST ? in->anycast_present : in->dns_present;
	double *dead = NULL, *all = NULL, *dpart = NULL, *apart = NULL, dsum = 0, asum = 0;
	struct model_clocks *c = NULL;
	uint64_t seed = in->seed ^ (uint64_t)(s + 1) * 0x9e3779b97f4a7c15ULL;
	int rc = -1;
	struct model_pop_plan *plan[MODEL_MAX_CLIENTS] = {0};

	if (!present || limit[0] || bucket_s <= 0 || n == 0)
		return -1;
	for (int i = 0; i < in->nclients; i++)
		if (in->clients[i].scheme == s && in->clients[i].pop) {
			if ((plan[i] = model_pop_plan(in, i)) == NULL)
				goto out;
		}
	if ((c = calloc(1, sizeof(*c))) == NULL || (dead = calloc(n, sizeof(double))) == NULL ||
	    (all = calloc(n, sizeof(double))) == NULL ||
	    (dpart = calloc(n, sizeof(double))) == NULL ||
	    (apart = calloc(n, sizeof(double))) == NULL)
		goto out;
	for (unsigned d = 0; d < draws; d++) {
		struct model_draw dr;
		double end, effect;

		dr.u_site = curve_uniform(&seed);
		dr.u_refresh = curve_uniform(&seed);
		dr.u_check = curve_uniform(&seed);
		/* bgp's own, drawn only there (the other labs' draws unchanged) */
		dr.u_session = in->routing == MODEL_BGP ? curve_uniform(&seed) : 0;
		dr.u_tie = in->bgp_ties ? curve_uniform(&seed) : 0;
		dr.u_tick = in->dns_sim ? curve_uniform(&seed) : 0;
		dr.u_first = in->dns_sim ? curve_uniform(&seed) : 0;
		dr.u_order = in->dns_sim ? curve_uniform(&seed) : 0;
		dr.u_wall = !model_dns_whole(in) ? 0
			    : in->wall_known	 ? in->wall_s
						 : curve_uniform(&seed);
		for (int p = 0; p < in->nprobers; p++)
			dr.u_probers[p] = curve_uniform(&seed);
		dr.t0_s = in->fail_at_s + in->fail_jitter_s * curve_uniform(&seed);
		/* in effect so long after t0 (model_lab's rule) */
		effect = in->effect_s > 0 ? in->effect_s * curve_uniform(&seed) : 0;
		dr.t0_s += effect;
		dr.u_frr = 0; /* the curve: FRR without its retry */
		dr.u_lag = 0;
		model_draw_phases(in, &dr);
		if (draw(in, &dr, c) == -1 || c->steer < 0)
			goto out;
		/* the traffic ends duration after its start: nothing is sent
		 * later (the buckets count from t0, before the effect) */
		end = in->duration_s - dr.t0_s;
		for (int i = 0; i < in->nclients; i++) {
			const struct model_client *m = &in->clients[i];
			double x = c->last[i] < end ? c->last[i] : end;

			if (m->scheme != s)
				continue;
			if (plan[i]) {
				curve_pop(plan[i], m, &dr, c->steer, end, effect, bucket_s, n,
					  (double *[]){all, apart, dead, dpart});
				continue;
			}
			curve_add(all, apart, n, bucket_s, m->rate_per_s, end + effect);
			curve_add(dead, dpart, n, bucket_s, m->rate_per_s, x > 0 ? x + effect : x);
		}
	}
	for (size_t k = 0; k < n; k++) {
		dsum += dead[k];
		asum += all[k];
		/* a bucket's whole part, the partial one added */
		share[k] = asum + apart[k] > 1e-9 ? (dsum + dpart[k]) / (asum + apart[k]) : -1;
		/* a cut link: the requests sent its way reach no site, the
		 * captures count the others' alone */
		if (in->how == MODEL_LINK_DOWN)
			share[k] = asum + apart[k] - dsum - dpart[k] > 1e-9 ? 0 : -1;
		/* the sums' rounding is no share: to 1e-9; a population's
		 * requests to the failed site counted one by one against its
		 * rates' continuous count may pass 1 by a request: 1 */
		if (share[k] >= 0)
			share[k] = fmin(1, round(share[k] * 1e9) / 1e9);
	}
	rc = 0;
out:
	for (int i = 0; i < in->nclients; i++)
		model_pop_plan_free(plan[i]);
	free(c);
	free(dead);
	free(all);
	free(dpart);
	free(apart);
	return rc;
}
