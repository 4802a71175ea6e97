/*
 * The anycast scheme's clocks in one draw of the phases (docs/model.md,
 * "Anycast"): the failed site's own prober, or when the prober cannot tell
 * (crash, freeze) with routing = static the routers' hold timer, with
 * routing = bgp the router's session with the site (closed by a crash,
 * timed out by BFD or the hold timer on a freeze); a cut link at t0, by the
 * router's kernel (static) or bgpd's session (bgp); the withdrawal in every
 * FIB at once (static), or through the site's and its router's FRR daemons
 * (bgp: MODEL_BGP_FLOOR_S). See model.h.
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
	} else if (in->how == MODEL_LINK_DOWN) {
		/* the link's end: the router's kernel drops the routes through
		 * it (static), bgpd the session (bgp), at t0 */
		c->detect = 0;
	} else if (in->routing == MODEL_BGP &&
		   (in->how == MODEL_CRASH || in->how == MODEL_FREEZE)) {
		/* the session's end at the router: at t0 for a crash, else
		 * bgp_down_s after the site's last message */
		c->detect = in->bgp_down_s - d->u_session * in->bgp_period_s;
		if (c->detect < 0)
			c->detect = 0;
	} else if (in->routing == MODEL_STATIC && in->static_hold_s > 0 &&
		   (in->how == MODEL_CRASH || in->how == MODEL_FREEZE)) {
		/* the last refresh came u_refresh of a refresh before t0; the
		 * route goes at the first check more than the hold after it */
		c->detect = in->static_hold_s - d->u_refresh * in->static_refresh_s +
			    d->u_check * anycast_check_s(in->static_hold_s);
		if (c->detect < 0)
			c->detect = 0;
	} else {
		return -1;
	}
	if (in->anycast_limit[0])
		return 0;
	/* static: the verdict is one netlink call in every router's FIB; bgp:
	 * the withdrawal through the site's FRR and its router's (the
	 * prober's verdict), or the router's alone (the session's end) */
	c->steer = in->routing == MODEL_STATIC && in->how == MODEL_LINK_DOWN ? c->detect
		   : in->routing == MODEL_STATIC  ? c->detect + in->withdraw_s
		   : in->anycast_detect_by_prober ? c->detect + MODEL_BGP_FLOOR_S + in->withdraw_s
						  : c->detect + MODEL_BGP_ROUTER_S;
	/* through the site's FRR and the router's: four queues to retry */
	if (in->routing == MODEL_BGP && in->anycast_detect_by_prober &&
	    d->u_frr > 1 - MODEL_BGP_RETRY_SHARE)
		c->steer += MODEL_BGP_RETRY_S;
	if (in->clients_limit[0])
		return 0;
	for (int i = 0; i < in->nclients; i++) {
		const struct model_client *cl = &in->clients[i];

		if (cl->scheme == MODEL_ANYCAST && cl->to_failed)
			/* its last request through the change at the router, at
			 * the site its way later */
			c->last[i] =
			    c->steer + model_client_after(cl, d->u_tie) - cl->ask_s + cl->arrive_s;
	}
	return 0;
}

/* client_play: the play of m that a draw of u_tie u takes (-1: none, the
 * two of after_s and alt_after_s) */
static int client_play(const struct model_client *m, double u)
{
	int p;

	if (m->nplays <= 0)
		return -1;
	p = (int)(u * m->nplays);
	return p < 0 ? 0 : p >= m->nplays ? m->nplays - 1 : p;
}

double model_client_after(const struct model_client *m, double u)
{
	int p = client_play(m, u);

	return p >= 0 ? m->play_after_s[p] : u < 0.5 ? m->after_s : m->alt_after_s;
}

double model_client_lost_extra(const struct model_client *m, double u)
{
	int p = client_play(m, u);

	return p >= 0 ? m->play_lost_extra_s[p] : u < 0.5 ? m->lost_extra_s : m->alt_lost_extra_s;
}
