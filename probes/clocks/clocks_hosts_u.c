/* A lab over several hosts: the uncertainty each clock carries, its JSON
 * and the verdict on it (clocks_hosts.h; docs/clocks.md, "Several hosts").
 * A clock compares a stamp with an instant of the reference host (t0, a
 * recovery: the lab's own events); the stamp's host's uncertainty is the
 * clock's. */
#include <jansson.h>
#include <string.h>

#include "clocks_hosts.h"
#include "clocksync.h"
#include "clocks_fib.h"
#include "clocks_int.h"
#include "clocks_result.h"

int64_t clocks_hosts_max_uncertainty(const struct clocks_input *in)
{
	int64_t u = 0;

	for (size_t i = 0; i < in->nhosts; i++)
		if (in->hosts[i].uncertainty_ns > u)
			u = in->hosts[i].uncertainty_ns;
	return u;
}

int64_t clocks_node_uncertainty(const struct clocks_input *in, const char *node)
{
	const struct clocks_host *h;

	if (!clocks_multi_host(in))
		return CLOCKS_NONE;
	/* a node of no host is on the reference (the lab's own events) */
	h = clocks_node_host(in, node);
	return h ? h->uncertainty_ns : 0;
}

/*
 * A clock's stamp found by its instant: the clock took at_ns from one
 * event of these (the first of some kind at or after t0), so the events
 * stamped at_ns are where it came from; of several (one instant on two
 * hosts) the largest uncertainty. None found (a stamp from elsewhere):
 * the largest of the lab's, as a bound.
 */
struct clocks_stamp {
	const struct clocks_input *in;
	int64_t at_ns;
	int64_t u_ns; /* CLOCKS_NONE: no event found yet */
};

static void clocks_stamp_node(struct clocks_stamp *s, int64_t t_ns, const char *node)
{
	int64_t u;

	if (t_ns != s->at_ns)
		return;
	u = clocks_node_uncertainty(s->in, node);
	if (s->u_ns == CLOCKS_NONE || u > s->u_ns)
		s->u_ns = u;
}

static int64_t clocks_stamp_u(const struct clocks_stamp *s)
{
	return s->u_ns != CLOCKS_NONE ? s->u_ns : clocks_hosts_max_uncertainty(s->in);
}

/* clocks_u_detect: a prober's declared_dead, a routed's route_expired, or
 * a [dns] node's health_changed */
static int64_t clocks_u_detect(const struct clocks_input *in, int64_t at_ns)
{
	struct clocks_stamp s = {in, at_ns, CLOCKS_NONE};

	for (size_t i = 0; i < in->ndead; i++)
		clocks_stamp_node(&s, in->dead[i].t_ns, in->dead[i].node);
	for (size_t i = 0; i < in->nexpired; i++)
		clocks_stamp_node(&s, in->expired[i].t_ns, in->expired[i].node);
	for (size_t i = 0; i < in->nhealth; i++)
		clocks_stamp_node(&s, in->health[i].t_ns, in->health[i].node);
	return clocks_stamp_u(&s);
}

/* clocks_u_alive: a prober's declared_alive or a [dns] node's
 * health_changed (the fail-back's healthy) */
static int64_t clocks_u_alive(const struct clocks_input *in, int64_t at_ns)
{
	struct clocks_stamp s = {in, at_ns, CLOCKS_NONE};

	for (size_t i = 0; i < in->nalive; i++)
		clocks_stamp_node(&s, in->alive[i].t_ns, in->alive[i].node);
	for (size_t i = 0; i < in->nhealth; i++)
		clocks_stamp_node(&s, in->health[i].t_ns, in->health[i].node);
	return clocks_stamp_u(&s);
}

/* clocks_u_steer: a router's FIB change (its collector's), or a [dns]
 * node's answer change */
static int64_t clocks_u_steer(const struct clocks_input *in, int64_t at_ns)
{
	struct clocks_stamp s = {in, at_ns, CLOCKS_NONE};

	for (size_t i = 0; i < in->nroutes; i++)
		clocks_stamp_node(&s, in->routes[i].t_ns, in->routes[i].node);
	for (size_t i = 0; i < in->nroutes6; i++)
		clocks_stamp_node(&s, in->routes6[i].t_ns, in->routes6[i].node);
	for (size_t i = 0; i < in->nanswers; i++)
		clocks_stamp_node(&s, in->answers[i].t_ns, in->answers[i].node);
	return clocks_stamp_u(&s);
}

/* clocks_u_capture: the capture of label's collector's host's (its node
 * not known: the largest of the lab's) */
static int64_t clocks_u_capture(const struct clocks_input *in, const char *label)
{
	const char *node = clocks_label_node(in, label);

	return node ? clocks_node_uncertainty(in, node) : clocks_hosts_max_uncertainty(in);
}

/* clocks_u_fib: an episode's FIB clocks, each router's its own host's;
 * the first and the last change (convergence) their routers' */
static void clocks_u_fib(const struct clocks_input *in, struct clocks_fib *fib)
{
	for (; fib; fib = fib->failback) {
		for (int i = 0; i < fib->nrouters; i++)
			fib->routers[i].u_ns = clocks_node_uncertainty(in, fib->routers[i].router);
		fib->u_first_ns = fib->first_at_ns == CLOCKS_NONE
				      ? CLOCKS_NONE
				      : clocks_node_uncertainty(in, fib->first_router);
		fib->u_last_ns = fib->last_at_ns == CLOCKS_NONE
				     ? CLOCKS_NONE
				     : clocks_node_uncertainty(in, fib->last_router);
	}
}

/* the fail-back's: each from the recovery (the lab's event, on the
 * reference) to a stamp; first and last at the recovered site's capture */
static void clocks_u_failback(const struct clocks_input *in, struct clocks_result *r)
{
	struct clocks_failback *b = &r->failback;
	int64_t rec = in->failure.t0_ns + b->recovered_ns, u;

	if (b->healthy_ns != CLOCKS_NONE)
		b->u_healthy_ns = clocks_u_alive(in, rec + b->healthy_ns);
	if (b->steer_ns != CLOCKS_NONE)
		b->u_steer_ns = clocks_u_steer(in, rec + b->steer_ns);
	u = clocks_u_capture(in, in->failure.site);
	if (b->first_ns != CLOCKS_NONE)
		b->u_first_ns = u;
	if (b->last_ns != CLOCKS_NONE)
		b->u_last_ns = u;
}

void clocks_hosts_uncertainty(const struct clocks_input *in, struct clocks_result *r)
{
	int64_t u;

	/* CLOCKS_NONE until here (clocks_scheme_init, clocks_fib) */
	if (!clocks_multi_host(in) || in->steady)
		return;
	clocks_u_fib(in, r->fib);
	clocks_u_fib(in, r->fib6);
	if (r->detect_ns != CLOCKS_NONE && r->detect_ns != CLOCKS_NA &&
	    r->detect_at_ns != CLOCKS_NONE)
		r->u_detect_ns = clocks_u_detect(in, r->detect_at_ns);
	if (r->steer_ns != CLOCKS_NONE && r->steer_ns != CLOCKS_NA && r->steer_at_ns != CLOCKS_NONE)
		r->u_steer_ns = clocks_u_steer(in, r->steer_at_ns);
	/* the remote prober's verdict: its own node's host */
	if (r->remote_dead_ns != CLOCKS_NONE && r->remote_dead_ns != CLOCKS_NA)
		r->u_remote_dead_ns = clocks_node_uncertainty(in, r->remote_prober);
	/* the window and the last packets: the dead site's capture (a window
	 * of no packet after t0 is 0 by absence, of no stamp) */
	u = clocks_u_capture(in, in->failure.site);
	if (r->last_packet.n > 0 && r->last_packet.max_ns != CLOCKS_NONE) {
		if (r->window_ns != CLOCKS_NONE)
			r->u_window_ns = u;
		r->u_last_packet_ns = u;
	}
	if (r->has_failback)
		clocks_u_failback(in, r);
}

/* every clock of a result with an uncertainty, by its name in clocks.json,
 * the main ones first (the table's ±, the verdict) */
#define CLOCKS_U_MAX 12

struct clocks_u_clock {
	const char *name;
	int64_t ns, u_ns;
};

static int clocks_u_clocks(const struct clocks_result *r, struct clocks_u_clock *c)
{
	const struct clocks_failback *b = &r->failback;
	int n = 0;

	c[n++] = (struct clocks_u_clock){"detect", r->detect_ns, r->u_detect_ns};
	c[n++] = (struct clocks_u_clock){"steer", r->steer_ns, r->u_steer_ns};
	c[n++] = (struct clocks_u_clock){"window", r->window_ns, r->u_window_ns};
	c[n++] = (struct clocks_u_clock){"last_packet", r->last_packet.max_ns, r->u_last_packet_ns};
	c[n++] = (struct clocks_u_clock){"remote_dead", r->remote_dead_ns, r->u_remote_dead_ns};
	if (r->fib) {
		c[n++] = (struct clocks_u_clock){"fib_convergence",
						 r->fib->last_at_ns == CLOCKS_NONE
						     ? CLOCKS_NONE
						     : r->fib->last_at_ns - r->fib->from_ns,
						 r->fib->u_last_ns};
		if (r->fib->failback)
			c[n++] = (struct clocks_u_clock){"failback_fib_convergence",
							 r->fib->failback->last_at_ns == CLOCKS_NONE
							     ? CLOCKS_NONE
							     : r->fib->failback->last_at_ns -
								   r->fib->failback->from_ns,
							 r->fib->failback->u_last_ns};
	}
	if (r->has_failback) {
		c[n++] =
		    (struct clocks_u_clock){"failback_healthy", b->healthy_ns, b->u_healthy_ns};
		c[n++] = (struct clocks_u_clock){"failback_steer", b->steer_ns, b->u_steer_ns};
		c[n++] =
		    (struct clocks_u_clock){"failback_first_client", b->first_ns, b->u_first_ns};
		c[n++] = (struct clocks_u_clock){"failback_last_client", b->last_ns, b->u_last_ns};
	}
	return n;
}

int clocks_hosts_any_u(const struct clocks_result *r)
{
	struct clocks_u_clock c[CLOCKS_U_MAX];
	int n = clocks_u_clocks(r, c);

	for (int k = 0; k < n; k++)
		if (c[k].u_ns != CLOCKS_NONE && c[k].u_ns > 0)
			return 1;
	return 0;
}

json_t *clocks_hosts_json(const struct clocks_input *in)
{
	json_t *o = json_object();

	for (size_t i = 0; i < in->nhosts; i++) {
		const struct clocks_host *h = &in->hosts[i];
		json_t *ho = json_object();

		json_object_set_new(ho, "reference", json_boolean(h->reference));
		json_object_set_new(ho, "offset_s",
				    h->measured ? json_real((double)h->offset_ns / 1e9)
						: json_null());
		json_object_set_new(ho, "uncertainty_s",
				    h->measured ? json_real((double)h->uncertainty_ns / 1e9)
						: json_null());
		json_object_set_new(ho, "probes", json_integer(h->probes > 0 ? h->probes : 0));
		json_object_set_new(o, h->name, ho);
	}
	return o;
}

json_t *clocks_hosts_json_u(const struct clocks_result *r)
{
	struct clocks_u_clock c[CLOCKS_U_MAX];
	int n = clocks_u_clocks(r, c);
	json_t *o = json_object();

	for (int k = 0; k < n; k++)
		if (c[k].u_ns != CLOCKS_NONE && c[k].ns != CLOCKS_NONE && c[k].ns != CLOCKS_NA)
			json_object_set_new(o, c[k].name, json_real((double)c[k].u_ns / 1e9));
	if (json_object_size(o) == 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *clocks_hosts_json_fib_u(const struct clocks_fib *fib)
{
	json_t *o = json_object();

	if (fib->u_first_ns != CLOCKS_NONE)
		json_object_set_new(o, "first", json_real((double)fib->u_first_ns / 1e9));
	if (fib->u_last_ns != CLOCKS_NONE) {
		json_object_set_new(o, "last", json_real((double)fib->u_last_ns / 1e9));
		json_object_set_new(o, "convergence", json_real((double)fib->u_last_ns / 1e9));
	}
	if (json_object_size(o) == 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* clocks_hosts_verdict_result: r's clocks whose uncertainty is too large a
 * share of them; what names the failure (NULL: the run's first) */
static void clocks_hosts_verdict_result(const struct clocks_result *r, const char *what,
					struct clocks_notes *v)
{
	struct clocks_u_clock c[CLOCKS_U_MAX];
	int n = clocks_u_clocks(r, c);

	if (r->noflows)
		return;
	for (int k = 0; k < n; k++)
		if (c[k].u_ns != CLOCKS_NONE && c[k].ns != CLOCKS_NONE && c[k].ns != CLOCKS_NA &&
		    c[k].u_ns > 0 && clocksync_too_uncertain(c[k].u_ns, c[k].ns, CLOCKS_SYNC_SHARE))
			clocks_invalid(v, "clock_sync_uncertain",
				       "%s%s%s: %s %.6f s ± %.3f ms: its stamp's host's clock is "
				       "known to %.3f ms only, more than %.0f %% of the clock",
				       what ? what : "", what ? " " : "", r->scheme, c[k].name,
				       (double)c[k].ns / 1e9, (double)c[k].u_ns / 1e6,
				       (double)c[k].u_ns / 1e6, CLOCKS_SYNC_SHARE * 100);
}

void clocks_hosts_verdict(const struct clocks_input *in, const struct clocks_result *res, int nres,
			  struct clocks_notes *v)
{
	if (!clocks_multi_host(in))
		return;
	for (size_t i = 0; i < in->nhosts; i++) {
		const struct clocks_host *h = &in->hosts[i];

		if (h->measured)
			continue;
		clocks_invalid(v, "clock_sync_unmeasured",
			       "host %s: its clock was not measured against the reference's (%s): "
			       "its nodes' stamps are taken as they are, and a clock that compares "
			       "them with t0 has no known error",
			       h->name,
			       h->said ? "its host_clock has no offset" : "no host_clock event");
	}
	for (int i = 0; i < nres; i++)
		clocks_hosts_verdict_result(&res[i], NULL, v);
}

void clocks_hosts_verdict_failure(const struct clocks_input *in, const char *name,
				  const struct clocks_result *res, int nres, struct clocks_notes *v)
{
	if (!clocks_multi_host(in))
		return;
	for (int i = 0; i < nres; i++)
		clocks_hosts_verdict_result(&res[i], name, v);
}
