/*
 * The flap clocks (clocks_flap.h, struct clocks_flaps; docs/clocks.md, "Flap
 * clocks"), computed from the timeline's event_applied steps and the
 * routers' route events, with no I/O; and clocks.json's "timeline" and
 * "flaps".
 *
 * For each flap of the timeline (its event_applied steps, grouped by the
 * [event]'s name), per router with route events of the service prefix:
 *
 *   changes      its route events at or after the flap's first down that
 *                changed its FIB (as the FIB clocks count them), and when
 *   to_site      its route used just before the first down led to the
 *                flapping site (its link's site, for a link's flap): only
 *                such a router can be seen to lose and get back the site
 *   ups          after each up step U: back, the first instant from U, and
 *                before the next down (or the end), at which its route
 *                leads to the site again (U itself when it never left);
 *                judged when the site stayed up at least
 *                CLOCKS_FLAP_NORMAL_NS, and then suppressed when it was not
 *                back within that: the route withheld although the site
 *                was up, as route-flap damping does, until back (reuse)
 */
#include "clocks_flap.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "clocks_int.h"

static int clocks_flap_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* clocks_flap_of: the flap named name, added if new; NULL when full */
static struct clocks_flap *clocks_flap_of(struct clocks_flaps *fl, const struct clocks_hit *h)
{
	struct clocks_flap *f;

	for (int i = 0; i < fl->n; i++)
		if (strcmp(fl->f[i].name, h->name) == 0)
			return &fl->f[i];
	if (fl->n == CLOCKS_MAX_FLAPS) {
		fl->lost++;
		return NULL;
	}
	f = &fl->f[fl->n++];
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", h->name);
	snprintf(f->target, sizeof(f->target), "%s", h->target);
	snprintf(f->site, sizeof(f->site), "%s", h->site);
	f->link = h->link;
	f->first_down_ns = f->last_up_ns = CLOCKS_NONE;
	return f;
}

/* the service prefix's route event rt, before the teardown? */
static int clocks_flap_route(const struct clocks_input *in, const struct clocks_route *rt)
{
	return rt->prefixlen == in->failure.prefixlen &&
	       rt->prefix.s_addr == in->failure.prefix.s_addr &&
	       (in->lab_stopping_ns == CLOCKS_NONE || rt->t_ns < in->lab_stopping_ns);
}

/* clocks_flap_next_down: the flap's first down step after t; INT64_MAX */
static int64_t clocks_flap_next_down(const struct clocks_input *in, const char *name, int64_t t)
{
	int64_t best = INT64_MAX;

	for (size_t i = 0; i < in->nhits; i++) {
		const struct clocks_hit *h = &in->hits[i];
		if (!h->up && h->t_ns > t && h->t_ns < best && strcmp(h->action, "flap") == 0 &&
		    strcmp(h->name, name) == 0)
			best = h->t_ns;
	}
	return best;
}

/* clocks_flap_back: the first instant in [up, until) at which router's
 * route leads to site: up, or a route event's (times: the sorted route
 * event times); CLOCKS_NONE if none */
static int64_t clocks_flap_back(const struct clocks_input *in, const char *router, const char *site,
				int64_t up, int64_t until, const int64_t *times, size_t ntimes)
{
	char now[CLOCKS_NAME_MAX];

	clocks_fib_site_at(in, router, up, now);
	if (strcmp(now, site) == 0)
		return up;
	for (size_t i = 0; i < ntimes; i++) {
		if (times[i] < up)
			continue;
		if (times[i] >= until)
			break;
		/* the route as the event at times[i] left it */
		clocks_fib_site_at(in, router, times[i] + 1, now);
		if (strcmp(now, site) == 0)
			return times[i];
	}
	return CLOCKS_NONE;
}

static void clocks_flap_router(const struct clocks_input *in, struct clocks_flap *f,
			       struct clocks_flap_router *r, const int64_t *times, size_t ntimes)
{
	char before[CLOCKS_NAME_MAX];

	r->changes =
	    clocks_fib_changes(in, r->router, f->first_down_ns, r->times_ns, CLOCKS_FLAP_TIMES);
	if (!f->site[0])
		return;
	clocks_fib_site_at(in, r->router, f->first_down_ns, before);
	r->to_site = strcmp(before, f->site) == 0;
	if (!r->to_site)
		return;
	for (size_t i = 0; i < in->nhits && r->nups < CLOCKS_FLAP_CYCLES; i++) {
		const struct clocks_hit *h = &in->hits[i];
		struct clocks_flap_up *u;
		int64_t until;

		if (!h->up || strcmp(h->action, "flap") != 0 || strcmp(h->name, f->name) != 0)
			continue;
		u = &r->ups[r->nups++];
		u->cycle = h->cycle;
		u->up_at_ns = h->t_ns;
		until = clocks_flap_next_down(in, f->name, h->t_ns);
		if (until > f->end_ns)
			until = f->end_ns;
		u->back_at_ns =
		    clocks_flap_back(in, r->router, f->site, h->t_ns, until, times, ntimes);
		u->judged = until - h->t_ns >= CLOCKS_FLAP_NORMAL_NS;
		u->suppressed = u->judged && (u->back_at_ns == CLOCKS_NONE ||
					      u->back_at_ns - h->t_ns > CLOCKS_FLAP_NORMAL_NS);
		r->suppressed += u->suppressed;
	}
}

void clocks_flaps(const struct clocks_input *in, struct clocks_flaps *fl)
{
	int64_t end = in->lab_stopping_ns, *times = NULL;
	size_t ntimes = 0;

	memset(fl, 0, sizeof(*fl));
	if (end == CLOCKS_NONE)
		end = clocks_observation_end(in);
	if (end == CLOCKS_NONE)
		end = INT64_MAX;
	for (size_t i = 0; i < in->nhits; i++) {
		const struct clocks_hit *h = &in->hits[i];
		struct clocks_flap *f;

		if (strcmp(h->action, "flap") != 0 || (f = clocks_flap_of(fl, h)) == NULL)
			continue;
		if (h->up) {
			if (f->last_up_ns == CLOCKS_NONE || h->t_ns > f->last_up_ns)
				f->last_up_ns = h->t_ns;
		} else {
			f->cycles++;
			if (f->first_down_ns == CLOCKS_NONE || h->t_ns < f->first_down_ns)
				f->first_down_ns = h->t_ns;
		}
		f->end_ns = end;
	}
	if (fl->n == 0)
		return;
	/* every route event's time, sorted: the instants a route can come back */
	if (in->nroutes && (times = malloc(in->nroutes * sizeof(*times))) != NULL)
		for (size_t i = 0; i < in->nroutes; i++)
			if (clocks_flap_route(in, &in->routes[i]))
				times[ntimes++] = in->routes[i].t_ns;
	if (ntimes)
		qsort(times, ntimes, sizeof(*times), clocks_flap_cmp);
	for (int k = 0; k < fl->n; k++) {
		struct clocks_flap *f = &fl->f[k];

		if (f->first_down_ns == CLOCKS_NONE)
			continue; /* only up steps: nothing flapped */
		for (size_t i = 0; i < in->nroutes; i++) {
			const struct clocks_route *rt = &in->routes[i];
			int seen = 0;

			if (!clocks_flap_route(in, rt))
				continue;
			for (int j = 0; j < f->nrouters && !seen; j++)
				seen = strcmp(f->routers[j].router, rt->node) == 0;
			if (seen || f->nrouters == CLOCKS_MAX_ROUTERS)
				continue;
			snprintf(f->routers[f->nrouters++].router, CLOCKS_NAME_MAX, "%s", rt->node);
		}
		for (int j = 0; j < f->nrouters; j++)
			clocks_flap_router(in, f, &f->routers[j], times, ntimes);
	}
	free(times);
}

static json_t *clocks_flap_s(const struct clocks_input *in, int64_t at_ns)
{
	return at_ns == CLOCKS_NONE ? json_null()
				    : json_real((double)(at_ns - in->failure.t0_ns) / 1e9);
}

json_t *clocks_json_timeline(const struct clocks_input *in)
{
	json_t *a = json_array();

	for (size_t i = 0; i < in->nhits; i++) {
		const struct clocks_hit *h = &in->hits[i];
		json_t *o = json_object();

		json_object_set_new(o, "name", json_string(h->name));
		json_object_set_new(o, "action", json_string(h->action));
		json_object_set_new(o, "target",
				    h->target[0] ? json_string(h->target) : json_null());
		json_object_set_new(o, "site", h->site[0] ? json_string(h->site) : json_null());
		json_object_set_new(o, "up", json_boolean(h->up));
		json_object_set_new(o, "cycle", json_integer(h->cycle));
		json_object_set_new(o, "t_s", clocks_flap_s(in, h->t_ns));
		json_object_set_new(o, "at_s",
				    h->at_ns == CLOCKS_NONE ? json_null()
							    : json_real((double)h->at_ns / 1e9));
		json_object_set_new(o, "nominal_at_s",
				    h->nominal_at_ns == CLOCKS_NONE
					? json_null()
					: json_real((double)h->nominal_at_ns / 1e9));
		/* a DNS change's, only where there is one */
		if (h->change[0])
			json_object_set_new(o, "change", json_string(h->change));
		if (h->serial != CLOCKS_NONE)
			json_object_set_new(o, "serial", json_integer(h->serial));
		json_array_append_new(a, o);
	}
	return a;
}

json_t *clocks_json_flaps(const struct clocks_input *in, const struct clocks_flaps *fl)
{
	json_t *a = json_array();

	for (int k = 0; k < fl->n; k++) {
		const struct clocks_flap *f = &fl->f[k];
		json_t *o = json_object(), *routers = json_object();

		json_object_set_new(o, "name", json_string(f->name));
		json_object_set_new(o, "target", json_string(f->target));
		json_object_set_new(o, "site", f->site[0] ? json_string(f->site) : json_null());
		json_object_set_new(o, "cycles", json_integer(f->cycles));
		json_object_set_new(o, "first_down_s", clocks_flap_s(in, f->first_down_ns));
		json_object_set_new(o, "last_up_s", clocks_flap_s(in, f->last_up_ns));
		json_object_set_new(o, "normal_s", json_real(CLOCKS_FLAP_NORMAL_NS / 1e9));
		for (int j = 0; j < f->nrouters; j++) {
			const struct clocks_flap_router *r = &f->routers[j];
			json_t *ro = json_object(), *t = json_array(), *ups = json_array(),
			       *supp = json_array();

			for (int64_t i = 0; i < r->changes && i < CLOCKS_FLAP_TIMES; i++)
				json_array_append_new(t, clocks_flap_s(in, r->times_ns[i]));
			for (int i = 0; i < r->nups; i++) {
				const struct clocks_flap_up *u = &r->ups[i];
				json_t *back =
				    u->back_at_ns == CLOCKS_NONE
					? json_null()
					: json_real((double)(u->back_at_ns - u->up_at_ns) / 1e9);

				json_array_append_new(
				    ups, json_pack("{s:i, s:o, s:o, s:b, s:b}", "cycle", u->cycle,
						   "up_s", clocks_flap_s(in, u->up_at_ns), "back_s",
						   back, "judged", u->judged, "suppressed",
						   u->suppressed));
				if (u->suppressed)
					json_array_append_new(
					    supp,
					    json_pack("{s:o, s:o}", "from_s",
						      clocks_flap_s(in, u->up_at_ns), "until_s",
						      clocks_flap_s(in, u->back_at_ns)));
			}
			json_object_set_new(ro, "changes", json_integer(r->changes));
			json_object_set_new(ro, "change_s", t);
			json_object_set_new(ro, "routed_to_site", json_boolean(r->to_site));
			json_object_set_new(ro, "ups", ups);
			json_object_set_new(ro, "suppressed", supp);
			json_object_set_new(routers, r->router, ro);
		}
		json_object_set_new(o, "routers", routers);
		json_array_append_new(a, o);
	}
	return a;
}
