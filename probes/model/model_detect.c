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

/* detect_next: the time from the failure, off after a timer of period
 * interval started, to its next tick, over the period, in (0, 1] */
static double detect_next(double off, double interval)
{
	return 1 - fmod(off, interval) / interval;
}

void model_draw_in_phase(const struct model_input *in, struct model_draw *d)
{
	double span = in->site_probe.interval_s, off;

	if (in->static_refresh_s > span)
		span = in->static_refresh_s;
	for (int p = 0; p < in->nprobers; p++)
		if (isfinite(in->probers[p].interval_s) && in->probers[p].interval_s > span)
			span = in->probers[p].interval_s;
	if (!(span > 0))
		return;
	/* many of the longest cycle: each shorter one's phase as uniform */
	off = d->u_site * span * 4096;
	if (in->site_probe.interval_s > 0)
		d->u_site = detect_next(off, in->site_probe.interval_s);
	for (int p = 0; p < in->nprobers; p++)
		if (isfinite(in->probers[p].interval_s) && in->probers[p].interval_s > 0)
			d->u_probers[p] = detect_next(off, in->probers[p].interval_s);
	/* the refreshes of a static announcement: the site's prober's timer */
	if (in->static_refresh_s > 0)
		d->u_refresh = fmod(off, in->static_refresh_s) / in->static_refresh_s;
}
