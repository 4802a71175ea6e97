/*
 * The detect clock of probers (docs/model.md, "Detect"): a threshold of
 * failed probes after a failure at a uniformly random phase of the probe
 * cycle, and the quorum across probers as an order statistic. See model.h.
 */
#include "model.h"

#include <math.h>

double model_detect_sample(const struct model_probe *p, double u)
{
	unsigned down = p->down ? p->down : 1;

	return p->fail_s + (down - 1) * p->interval_s + u * p->interval_s;
}

double model_detect_min(const struct model_probe *p)
{
	return model_detect_sample(p, 0);
}

double model_detect_max(const struct model_probe *p)
{
	return model_detect_sample(p, 1);
}

unsigned model_quorum_needed(unsigned n, double quorum)
{
	/* healthy while up > quorum * n: unhealthy once n - k <= quorum * n;
	 * the products compared as authd compares them, in double */
	for (unsigned k = 0; k <= n; k++)
		if (n > 0 && (double)(n - k) <= quorum * (double)n)
			return k ? k : 1;
	return 0;
}

double model_order_cdf(unsigned n, unsigned k, double x)
{
	double sum = 0;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	/* at least k of the n below x: a binomial tail */
	for (unsigned j = k; j <= n; j++) {
		double c = lgamma(n + 1.0) - lgamma(j + 1.0) - lgamma(n - j + 1.0);

		sum += exp(c + j * log(x) + (n - j) * log1p(-x));
	}
	return sum > 1 ? 1 : sum;
}

double model_detect_quantile(const struct model_probe *p, unsigned n, unsigned k, double q)
{
	double lo = 0, hi = 1;

	if (k == 0 || k > n)
		return NAN;
	for (int i = 0; i < 60 && hi - lo > 1e-12; i++) {
		double mid = (lo + hi) / 2;

		if (model_order_cdf(n, k, mid) < q)
			lo = mid;
		else
			hi = mid;
	}
	return model_detect_sample(p, (lo + hi) / 2);
}

/* phase_next: the failure's phase in a cycle of interval iv whose ticks come
 * at (k + 1/2) iv after the traffic's start: (the next tick after t0 - t0)
 * / iv, in [0, 1) */
static double phase_next(double t0, double iv)
{
	return fmod(1.5 - fmod(t0 / iv, 1.0), 1.0);
}

void model_draw_phases(const struct model_input *in, struct model_draw *d)
{
	double r;

	if (in->free_phases)
		return;
	/* a prober of probe_phase = random keeps its phase as drawn */
	if (in->site_probe.interval_s > 0 && !in->site_probe.free_phase)
		d->u_site = phase_next(d->t0_s - in->site_probe.phase_s, in->site_probe.interval_s);
	for (int p = 0; p < in->nprobers; p++)
		if (isfinite(in->probers[p].interval_s) && in->probers[p].interval_s > 0 &&
		    !in->probers[p].free_phase)
			d->u_probers[p] =
			    phase_next(d->t0_s - in->probers[p].phase_s, in->probers[p].interval_s);
	/* the last refresh before t0, refreshes at (k + 1/2) refresh after the
	 * site's prober's cycle began */
	if (in->static_refresh_s > 0 && !in->site_probe.free_phase) {
		r = fmod((d->t0_s - in->refresh_shift_s) / in->static_refresh_s - 0.5, 1.0);
		d->u_refresh = r < 0 ? r + 1 : r;
	}
}
