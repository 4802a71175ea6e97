/*
 * The FIB clocks and the catchments in clocks.json (docs/clocks.md, "FIB
 * clocks", "Catchments"): schemes.anycast.fib and schemes.anycast.catchments.
 */
#include <arpa/inet.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "clocks_hosts.h"
#include "clocks_int.h"

static json_t *clocks_fib_s(const struct clocks_input *in, int64_t at_ns)
{
	return at_ns == CLOCKS_NONE ? json_null()
				    : json_real((double)(at_ns - in->failure.t0_ns) / 1e9);
}

static json_t *clocks_fib_str(const char *s)
{
	return s[0] ? json_string(s) : json_null();
}

/* clocks_fib_route_json: {via: [..], dev: [..], metric, protocol, site}, or
 * null when the router had no route */
static json_t *clocks_fib_route_json(const struct clocks_input *in,
				     const struct clocks_fib_route *r)
{
	json_t *o, *via, *dev;

	if (!r->present)
		return json_null();
	via = json_array();
	dev = json_array();
	for (int i = 0; i < r->nnh; i++) {
		char a[INET6_ADDRSTRLEN];

		clocks_addr_name(in, r->nh[i].via, a, sizeof(a));
		json_array_append_new(via, r->nh[i].has_via ? json_string(a) : json_null());
		json_array_append_new(dev, clocks_fib_str(r->nh[i].dev));
	}
	o = json_object();
	json_object_set_new(o, "via", via);
	json_object_set_new(o, "dev", dev);
	json_object_set_new(o, "metric", json_integer(r->metric));
	json_object_set_new(o, "protocol",
			    r->protocol < 0 ? json_null() : json_integer(r->protocol));
	json_object_set_new(o, "site", clocks_fib_str(r->site));
	return o;
}

/* clocks_json_fib_episode: one episode's FIB clocks; convergence from
 * since_ns (t0 for the failure, the recovery for the fail-back) */
static json_t *clocks_json_fib_episode(const struct clocks_input *in, const struct clocks_fib *fib,
				       int64_t since_ns)
{
	json_t *o = json_object(), *routers = json_object(), *exploring = json_array(), *u;

	json_object_set_new(o, "first_s", clocks_fib_s(in, fib->first_at_ns));
	json_object_set_new(o, "first_router", clocks_fib_str(fib->first_router));
	json_object_set_new(o, "last_s", clocks_fib_s(in, fib->last_at_ns));
	json_object_set_new(o, "last_router", clocks_fib_str(fib->last_router));
	/* the last router's final change, from the episode's start (t0: the
	 * same instant as last_s) */
	json_object_set_new(o, "convergence_s",
			    fib->last_at_ns == CLOCKS_NONE
				? json_null()
				: json_real((double)(fib->last_at_ns - since_ns) / 1e9));
	json_object_set_new(o, "routers_changed", json_integer(fib->routers_changed));
	if ((u = clocks_hosts_json_fib_u(fib)))
		json_object_set_new(o, "uncertainty_s", u);
	for (int i = 0; i < fib->nrouters; i++) {
		const struct clocks_router_fib *r = &fib->routers[i];
		json_t *ro = json_object();

		if (r->changes > 1)
			json_array_append_new(exploring, json_string(r->router));
		json_object_set_new(ro, "changes", json_integer(r->changes));
		json_object_set_new(ro, "path_changes", json_integer(r->path_changes));
		json_object_set_new(ro, "first_s", clocks_fib_s(in, r->first_at_ns));
		json_object_set_new(ro, "final_s", clocks_fib_s(in, r->final_at_ns));
		json_object_set_new(ro, "before", clocks_fib_route_json(in, &r->before));
		json_object_set_new(ro, "after", clocks_fib_route_json(in, &r->after));
		/* a lab over several hosts: its stamps' uncertainty, its host's */
		if (r->u_ns != CLOCKS_NONE && r->first_at_ns != CLOCKS_NONE)
			json_object_set_new(ro, "uncertainty_s", json_real((double)r->u_ns / 1e9));
		json_object_set_new(routers, r->router, ro);
	}
	json_object_set_new(o, "path_exploration", exploring);
	json_object_set_new(o, "routers", routers);
	json_object_set_new(o, "first_at_ns",
			    fib->first_at_ns == CLOCKS_NONE ? json_null()
							    : json_integer(fib->first_at_ns));
	json_object_set_new(o, "last_at_ns",
			    fib->last_at_ns == CLOCKS_NONE ? json_null()
							   : json_integer(fib->last_at_ns));
	return o;
}

json_t *clocks_json_fib(const struct clocks_input *in, const struct clocks_fib *fib)
{
	json_t *o = clocks_json_fib_episode(in, fib, in->failure.t0_ns), *b;

	/* the fail-back, its own episode: from the recovery (from_s, after
	 * t0), its convergence counted from there */
	if (fib->failback) {
		b = clocks_json_fib_episode(in, fib->failback, fib->failback->from_ns);
		json_object_set_new(b, "from_s", clocks_fib_s(in, fib->failback->from_ns));
		json_object_set_new(o, "failback", b);
	}
	return o;
}

static json_t *clocks_catch_side(const char *site, int64_t n, int64_t of)
{
	return json_pack("{s:o, s:I, s:I}", "site", clocks_fib_str(site), "replies", (json_int_t)n,
			 "of", (json_int_t)of);
}

json_t *clocks_json_catchments(const struct clocks_catchments *cs)
{
	json_t *o = json_object();

	for (int k = 0; k < cs->n; k++) {
		const struct clocks_catchment *c = &cs->c[k];
		json_t *co;
		char id[16];

		snprintf(id, sizeof(id), "%u", c->client);
		co = json_pack("{s:o, s:o}", "node", clocks_fib_str(c->node), "before",
			       clocks_catch_side(c->before, c->before_n, c->before_of));
		/* a recovered site: during the failure, then after the fail-back */
		if (cs->episodes == 2)
			json_object_set_new(
			    co, "during",
			    cs->during_known
				? clocks_catch_side(c->during, c->during_n, c->during_of)
				: json_null());
		json_object_set_new(co, "after",
				    cs->known ? clocks_catch_side(c->after, c->after_n, c->after_of)
					      : json_null());
		json_object_set_new(
		    co, "moved",
		    json_boolean(clocks_catch_moved(cs, c->before, c->during, c->after) == 1));
		if (cs->episodes == 2)
			json_object_set_new(
			    co, "back",
			    json_boolean(clocks_catch_back(cs, c->before, c->after) == 1));
		json_object_set_new(o, id, co);
	}
	return o;
}

json_t *clocks_json_catch_pops(const struct clocks_catchments *cs)
{
	json_t *o = json_object();

	for (int i = 0; i < cs->npops; i++) {
		const struct clocks_catch_pop *p = &cs->pops[i];
		json_t *pairs = json_array();
		char id[16];

		for (int k = 0; k < p->npairs; k++) {
			json_t *po =
			    json_pack("{s:o}", "before", clocks_fib_str(p->pairs[k].before));

			if (cs->episodes == 2)
				json_object_set_new(po, "during",
						    cs->during_known
							? clocks_fib_str(p->pairs[k].during)
							: json_null());
			json_object_set_new(po, "after",
					    cs->known ? clocks_fib_str(p->pairs[k].after)
						      : json_null());
			json_object_set_new(po, "clients", json_integer(p->pairs[k].clients));
			json_array_append_new(pairs, po);
		}
		snprintf(id, sizeof(id), "%u", p->base);
		json_object_set_new(o, id,
				    json_pack("{s:o, s:I, s:o, s:o}", "node",
					      clocks_fib_str(p->node), "clients",
					      (json_int_t)p->clients, "moved",
					      (cs->episodes == 2 ? cs->during_known : cs->known)
						  ? json_integer(p->moved)
						  : json_null(),
					      "pairs", pairs));
	}
	return o;
}
