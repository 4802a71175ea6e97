/*
 * The fail-back (docs/model.md, "Fail-back"): when the timeline recovers
 * the failed site at R, its probers' next probes find it answering, probe_up
 * of them in a row declare it alive, the route comes back (static: the
 * announcement's way to the router) or authd answers it again (the quorum
 * of the [prober]s' verdicts), and the clients return: the anycast ones at
 * the route, the DNS ones as they take an answer fetched after it (the
 * caches' refills, model_dns.c). Seconds after R. See model.h.
 */
#include "model.h"

#include <math.h>
#include <stdlib.h>

double model_tick_after(double x, double iv, double phase)
{
	return phase + (ceil((x - phase) / iv - 0.5 - 1e-9) + 0.5) * iv;
}

static int back_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* a client that moved this close to the recovery, either way: whether
 * before it or after, the lab's order of microseconds, each draw decides */
#define BACK_EDGE_S 0.01

/* the site's agents started again (sited after a kill, every agent after a
 * crash) answer within this of the recovery: 18 ms measured on
 * recovery.ini alone, more than 48 ms on a loaded gate */
#define BACK_START_S 0.1

/* back_alive: when prober p declares the site alive again after r: its
 * first probe once the site answers, u x BACK_START_S after r (a draw's),
 * succeeds, then probe_up - 1 more. A prober started again with the site
 * (a crash's recovery) probes at its own start, when sited, started beside
 * it, may not listen yet: its first success anywhere from r to one
 * interval after the site's start */
static double back_alive(const struct model_probe *p, double r, int restart, double u)
{
	double first = restart ? r + u * (p->interval_s + BACK_START_S)
			       : model_tick_after(r + u * BACK_START_S, p->interval_s, p->phase_s);

	return first + (p->up > 0 ? p->up - 1 : 0) * p->interval_s;
}

int model_failback_draw(const struct model_input *in, int s, const struct model_draw *d,
			const struct model_clocks *c, double fb[4])
{
	double r = in->recover_at_s, healthy, steer, lo = INFINITY, hi = -INFINITY;
	/* when the site's restarted agents answer (a frozen, drained or degraded
	 * site's never stopped) */
	double u = in->how == MODEL_FREEZE || in->how == MODEL_DRAIN || in->how == MODEL_DEGRADE
		       ? 0
		       : d->u_back;

	if (r < 0 || in->failback_limit[0])
		return -1;
	if (s == MODEL_ANYCAST) {
		if (in->routing != MODEL_STATIC || in->back_probe.interval_s <= 0)
			return -1;
		healthy = back_alive(&in->back_probe, r, in->recover_restart, u);
		/* the announcement's way to the router, every FIB at once */
		steer = healthy + in->withdraw_s;
	} else {
		double v[MODEL_MAX_PROBERS];
		unsigned n = 0, need;

		for (int p = 0; p < in->nprobers; p++)
			if (isfinite(in->probers[p].interval_s) && in->probers[p].interval_s > 0)
				v[n++] =
				    back_alive(&in->probers[p], r, 0, u) + in->probers[p].report_s;
		/* healthy while more than quorum x n say up */
		need = (unsigned)floor(in->quorum * in->nprobers + 1e-9) + 1;
		if (n < need || need == 0)
			return -1;
		qsort(v, n, sizeof(v[0]), back_cmp);
		steer = healthy = v[need - 1];
	}
	for (int i = 0; i < in->nclients; i++) {
		const struct model_client *cl = &in->clients[i];
		double x, left;

		if (cl->scheme != s || !cl->to_failed || cl->pop)
			continue;
		/* its last packet to the site after the recovery: it never left */
		left = d->t0_s + c->last[i] - cl->arrive_s;
		if (left >= r + BACK_EDGE_S || (left > r - BACK_EDGE_S && d->u_edge < 0.5))
			x = r + cl->arrive_s;
		else if (s == MODEL_ANYCAST)
			x = steer - cl->ask_s + cl->arrive_s;
		else
			x = model_dns_client_take(in, i, r, steer - cl->ask_s, d->u_wall) +
			    cl->arrive_s;
		lo = fmin(lo, x);
		hi = fmax(hi, x);
	}
	fb[0] = healthy - r;
	fb[1] = steer - r;
	fb[2] = isfinite(lo) ? lo - r : -1;
	fb[3] = isfinite(hi) ? hi - r : -1;
	return 0;
}
