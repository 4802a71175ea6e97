/*
 * The anycast scheme's clocks in one draw of the phases (docs/model.md,
 * "Anycast"): the failed site's own prober, or with routing = static the
 * routers' hold timer when the prober cannot tell (crash, freeze); the
 * withdrawal in every FIB at once (static). See model.h.
 */
#include "model.h"

/* routed's hold check: a tenth of the hold, at most 100 ms, at least 1 ms
 * (agents/routed/routed.c, routed_check_ns) */
static double anycast_check_s(double hold_s)
{
	double c = hold_s / 10;

	if (c > 0.1)
		c = 0.1;
	return c < 0.001 ? 0.001 : c;
}

int model_anycast_draw(const struct model_input *in, const struct model_draw *d,
		       struct model_clocks *c)
{
	c->detect = c->steer = -1;
	for (int i = 0; i < in->nclients; i++)
		c->last[i] = 0;
	if (in->anycast_detect_by_prober) {
		c->detect = model_detect_sample(&in->site_probe, d->u_site);
	} else if (in->routing == MODEL_STATIC && in->static_hold_s > 0) {
		/* the last refresh came u_refresh of a refresh before t0; the
		 * route goes at the first check more than the hold after it */
		c->detect = in->static_hold_s - d->u_refresh * in->static_refresh_s +
			    d->u_check * anycast_check_s(in->static_hold_s);
		if (c->detect < 0)
			c->detect = 0;
	} else {
		return -1;
	}
	if (in->anycast_limit[0] || in->routing != MODEL_STATIC)
		return 0;
	/* static: the verdict is one netlink call in every router's FIB */
	c->steer = c->detect;
	for (int i = 0; i < in->nclients; i++) {
		const struct model_client *cl = &in->clients[i];

		if (cl->scheme == MODEL_ANYCAST && cl->to_failed)
			c->last[i] = c->steer;
	}
	return 0;
}
