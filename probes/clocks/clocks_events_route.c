/* The routing side's events: the probers' verdicts, the collectors' route
 * changes and captures, routed's; see clocks_events_int.h. */
#include "clocks_events.h"

#include <arpa/inet.h>
#include <jansson.h>
#include <string.h>

#include "addr.h"
#include "clocks_events_int.h"
#include "clocks_int.h"
#include "events.h"

int clocks_prober_event(struct clocks_input *in, const struct clocks_line *l)
{
	struct clocks_dead **arr, *d;
	size_t *n, *cap;

	if (strcmp(l->event, EVENTS_DECLARED_DEAD) == 0) {
		arr = &in->dead, n = &in->ndead, cap = &in->capdead;
	} else if (strcmp(l->event, EVENTS_DECLARED_ALIVE) == 0) { /* for fail-back */
		arr = &in->alive, n = &in->nalive, cap = &in->capalive;
	} else if (strcmp(l->event, EVENTS_ROUTE_EXPIRED) == 0) { /* routed's hold timer */
		arr = &in->expired, n = &in->nexpired, cap = &in->capexpired;
	} else {
		return 0;
	}
	if (clocks_grow((void **)arr, cap, *n, sizeof(**arr)) == -1)
		return clocks_line_fail(l, "cannot be stored:", "out of memory");
	d = &(*arr)[*n];
	d->t_ns = l->t;
	if (clocks_get_name(l, "site", d->site) == -1)
		return -1;
	snprintf(d->node, sizeof(d->node), "%s", l->node);
	(*n)++;
	return 0;
}

/* clocks_route_op: route_added's "op" (absent: an older collector, add,
 * or replace if it says "replace": true) */
static int clocks_route_op(const struct clocks_line *l, struct clocks_route *r)
{
	static const char *const ops[] = {
	    [CLOCKS_OP_ADD] = "add", [CLOCKS_OP_REPLACE] = "replace", [CLOCKS_OP_APPEND] = "append",
	    [CLOCKS_OP_DEL] = "del", [CLOCKS_OP_PRESENT] = "present",
	};
	json_t *v = json_object_get(l->obj, "op");

	r->op = r->deleted ? CLOCKS_OP_DEL : CLOCKS_OP_ADD;
	/* a collector that said only "replace": true (no op) */
	if (v == NULL && !r->deleted && json_is_true(json_object_get(l->obj, "replace")))
		r->op = CLOCKS_OP_REPLACE;
	if (v == NULL)
		return 0;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (json_is_string(v) && strcmp(json_string_value(v), ops[i]) == 0 &&
		    (i == CLOCKS_OP_DEL) == (r->deleted != 0)) {
			r->op = (enum clocks_route_op)i;
			return 0;
		}
	return clocks_line_fail(
	    l, r->deleted ? "has no \"del\" in" : "has no add, replace, append or present in",
	    "op");
}

/* clocks_nexthop: {via, dev} (via and dev strings or null) into *nh; an
 * IPv6 route's (v6) via as its IPv4 twin (none if it has no twin: a
 * link-local next hop, which names no site) */
static int clocks_nexthop(const struct clocks_input *in, const struct clocks_line *l, json_t *o,
			  int v6, struct clocks_nexthop *nh)
{
	json_t *via = json_object_get(o, "via"), *dev = json_object_get(o, "dev");
	struct in6_addr a6;

	memset(nh, 0, sizeof(*nh));
	if (via != NULL && !json_is_null(via) && v6) {
		if (!json_is_string(via) || inet_pton(AF_INET6, json_string_value(via), &a6) != 1)
			return clocks_line_fail(l, "has no IPv6 address in", "via");
		nh->has_via = clocks_twin_of(in, &a6, &nh->via) == 0;
	} else if (via != NULL && !json_is_null(via)) {
		if (!json_is_string(via) ||
		    inet_pton(AF_INET, json_string_value(via), &nh->via) != 1)
			return clocks_line_fail(l, "has no IPv4 address in", "via");
		nh->has_via = 1;
	}
	if (dev != NULL && !json_is_null(dev)) {
		if (!json_is_string(dev) || json_string_length(dev) >= sizeof(nh->dev))
			return clocks_line_fail(l, "has no interface name in", "dev");
		memcpy(nh->dev, json_string_value(dev), json_string_length(dev) + 1);
	}
	return 0;
}

/* clocks_route_prefix: the route's "prefix" into r; an IPv6 one (a dual
 * lab's service) as its IPv4 twin's, *v6 set. 0 or -1 (said). */
static int clocks_route_prefix(const struct clocks_input *in, const struct clocks_line *l,
			       struct clocks_route *r, int *v6)
{
	json_t *v = json_object_get(l->obj, "prefix");
	struct addr_prefix p;

	*v6 = 0;
	if (!json_is_string(v) || addr_parse_prefix(json_string_value(v), &p) == -1)
		return clocks_line_fail(l, "has no prefix in", "prefix");
	if (p.family == AF_INET)
		return clocks_get_prefix(l, "prefix", &r->prefix, &r->prefixlen);
	*v6 = 1;
	if (p.len != 128 || clocks_twin_of(in, (const struct in6_addr *)p.addr, &r->prefix) == -1)
		return clocks_line_fail(
		    l, "has an IPv6 prefix that is no address of lab_up's twins in", "prefix");
	r->prefixlen = 32;
	return 0;
}

static int clocks_route_event(struct clocks_input *in, const struct clocks_line *l)
{
	json_t *metric, *proto, *nhs, *o;
	struct clocks_route *r, one;
	size_t i;
	int v6;

	/* IPv6 routes apart (routes6), the IPv4 ones' clocks unchanged */
	memset(&one, 0, sizeof(one));
	if (clocks_route_prefix(in, l, &one, &v6) == -1)
		return -1;
	if (clocks_grow(v6 ? (void **)&in->routes6 : (void **)&in->routes,
			v6 ? &in->caproutes6 : &in->caproutes, v6 ? in->nroutes6 : in->nroutes,
			sizeof(*in->routes)) == -1)
		return clocks_line_fail(l, "cannot be stored:", "out of memory");
	r = v6 ? &in->routes6[in->nroutes6] : &in->routes[in->nroutes];
	*r = one;
	r->t_ns = l->t;
	r->deleted = strcmp(l->event, EVENTS_ROUTE_DELETED) == 0;
	snprintf(r->node, sizeof(r->node), "%s", l->node);
	metric = json_object_get(l->obj, "metric");
	if (json_is_integer(metric)) {
		r->has_metric = 1;
		r->metric = json_integer_value(metric);
	}
	proto = json_object_get(l->obj, "protocol");
	r->protocol = json_is_integer(proto) ? (int)json_integer_value(proto) : -1;
	if (clocks_route_op(l, r) == -1)
		return -1;
	/* a route without a gateway has "via": null */
	if (clocks_nexthop(in, l, l->obj, v6, &r->nh[0]) == -1)
		return -1;
	r->nnh = 1;
	/* a multipath route: every next hop (the first is also via, dev) */
	nhs = json_object_get(l->obj, "nexthops");
	if (nhs != NULL && !json_is_null(nhs)) {
		if (!json_is_array(nhs) || json_array_size(nhs) == 0)
			return clocks_line_fail(l, "has no list of next hops in", "nexthops");
		r->nnh = 0;
		json_array_foreach(nhs, i, o)
		{
			if (r->nnh == CLOCKS_MAX_NEXTHOPS)
				break;
			if (!json_is_object(o))
				return clocks_line_fail(l, "has a next hop that is no object in",
							"nexthops");
			if (clocks_nexthop(in, l, o, v6, &r->nh[r->nnh++]) == -1)
				return -1;
		}
	}
	r->has_via = r->nh[0].has_via;
	r->via = r->nh[0].via;
	/* "stalled_ns" came with issue 19: older collectors did not say */
	int has;
	if (clocks_get_opt_int(l, "stalled_ns", &r->stalled_ns, &has) == -1)
		return -1;
	if (!has || r->stalled_ns < 0)
		r->stalled_ns = 0;
	if (v6)
		in->nroutes6++;
	else
		in->nroutes++;
	return 0;
}

/* clocks_mloss_event: route_monitor_overrun or route_monitor_error */
static int clocks_mloss_event(struct clocks_input *in, const struct clocks_line *l)
{
	struct clocks_monitor_loss *m;

	if (clocks_grow((void **)&in->mlosses, &in->capmlosses, in->nmlosses,
			sizeof(*in->mlosses)) == -1)
		return clocks_line_fail(l, "cannot be stored:", "out of memory");
	m = &in->mlosses[in->nmlosses++];
	memset(m, 0, sizeof(*m));
	m->t_ns = l->t;
	m->stopped = strcmp(l->event, EVENTS_ROUTE_MONITOR_ERROR) == 0;
	snprintf(m->node, sizeof(m->node), "%s", l->node);
	return 0;
}

static int clocks_stats_event(struct clocks_input *in, const struct clocks_line *l)
{
	struct clocks_link_stats *s;
	int dummy = 1;

	if (clocks_grow((void **)&in->stats, &in->capstats, in->nstats, sizeof(*in->stats)) == -1)
		return clocks_line_fail(l, "cannot be stored:", "out of memory");
	s = &in->stats[in->nstats];
	memset(s, 0, sizeof(*s));
	s->known = 1;
	s->written = CLOCKS_NONE;
	snprintf(s->node, sizeof(s->node), "%s", l->node);
	if (clocks_get_name(l, "label", s->label) == -1 ||
	    clocks_get_count(l, "packets", &s->packets, &dummy) == -1 ||
	    clocks_get_count(l, "received", &s->received, &dummy) == -1 ||
	    clocks_get_count(l, "dropped", &s->dropped, &s->known) == -1 ||
	    clocks_get_count(l, "if_dropped", &s->if_dropped, &s->known) == -1)
		return -1;
	/* "written" came with issue 8: older collectors did not say */
	if (json_object_get(l->obj, "written") != NULL) {
		int known = 1;

		if (clocks_get_count(l, "written", &s->written, &known) == -1)
			return -1;
		if (!known)
			s->written = CLOCKS_NONE;
	}
	in->nstats++;
	return 0;
}

/* clocks_cerror_event: capture_error {label, file, errno, error}; older
 * collectors wrote only the label (and the interface) */
static int clocks_cerror_event(struct clocks_input *in, const struct clocks_line *l)
{
	struct clocks_capture_error *e;
	int64_t v;
	int has;

	if (clocks_grow((void **)&in->cerrors, &in->capcerrors, in->ncerrors,
			sizeof(*in->cerrors)) == -1)
		return clocks_line_fail(l, "cannot be stored:", "out of memory");
	e = &in->cerrors[in->ncerrors];
	memset(e, 0, sizeof(*e));
	e->t_ns = l->t;
	snprintf(e->node, sizeof(e->node), "%s", l->node);
	if (clocks_get_name(l, "label", e->label) == -1 ||
	    clocks_get_opt_string(l, "file", e->file, sizeof(e->file)) == -1 ||
	    clocks_get_opt_string(l, "error", e->error, sizeof(e->error)) == -1 ||
	    clocks_get_opt_int(l, "errno", &v, &has) == -1)
		return -1;
	e->err = has ? (int)v : 0;
	in->ncerrors++;
	return 0;
}

/* clocks_ready_event: capture_ready {label, buffer}: what each capture's
 * ring takes of the kernel's memory, and (several hosts) which node's
 * collector captured the label */
static int clocks_ready_event(struct clocks_input *in, const struct clocks_line *l)
{
	int64_t bytes;
	int has;

	if (clocks_get_opt_int(l, "buffer", &bytes, &has) == -1)
		return -1;
	if (clocks_hosts_capture_ready(in, l) == -1)
		return -1;
	in->ncaptures_ready++;
	if (!has || bytes < 0)
		in->capture_ring_bytes = CLOCKS_NONE;
	else if (in->capture_ring_bytes != CLOCKS_NONE)
		in->capture_ring_bytes += bytes;
	return 0;
}

int clocks_collector_event(struct clocks_input *in, const struct clocks_line *l)
{
	/* a router's FIB is its collector's (with -P, the service prefix);
	 * collector-dns, beside it, watches the same FIB */
	if ((strcmp(l->event, EVENTS_ROUTE_DELETED) == 0 ||
	     strcmp(l->event, EVENTS_ROUTE_ADDED) == 0) &&
	    strcmp(l->agent, "collector") == 0)
		return clocks_route_event(in, l);
	if (strcmp(l->event, EVENTS_CAPTURE_STATS) == 0)
		return clocks_stats_event(in, l);
	if (strcmp(l->event, EVENTS_CAPTURE_READY) == 0)
		return clocks_ready_event(in, l);
	if (strcmp(l->event, EVENTS_CAPTURE_ERROR) == 0)
		return clocks_cerror_event(in, l);
	if ((strcmp(l->event, EVENTS_ROUTE_MONITOR_OVERRUN) == 0 ||
	     strcmp(l->event, EVENTS_ROUTE_MONITOR_ERROR) == 0) &&
	    strcmp(l->agent, "collector") == 0)
		return clocks_mloss_event(in, l);
	return 0;
}

/* clocks_rejected_event: control_rejected {from, reason, count}, of routed
 * or authd (agent) */
int clocks_rejected_event(struct clocks_input *in, const struct clocks_line *l, const char *agent)
{
	struct clocks_rejected *r;
	int known = 1;

	if (clocks_grow((void **)&in->rejected, &in->caprejected, in->nrejected,
			sizeof(*in->rejected)) == -1)
		return clocks_line_fail(l, "cannot be stored:", "out of memory");
	r = &in->rejected[in->nrejected];
	memset(r, 0, sizeof(*r));
	r->t_ns = l->t;
	snprintf(r->node, sizeof(r->node), "%s", l->node);
	snprintf(r->agent, sizeof(r->agent), "%s", agent);
	if (clocks_get_string(l, "from", r->from, sizeof(r->from)) == -1 ||
	    clocks_get_opt_string(l, "reason", r->reason, sizeof(r->reason)) == -1 ||
	    clocks_get_count(l, "count", &r->count, &known) == -1)
		return -1;
	if (!known)
		r->count = 1;
	in->nrejected++;
	return 0;
}

int clocks_routed_event(struct clocks_input *in, const struct clocks_line *l)
{
	if (strcmp(l->event, EVENTS_CONTROL_REJECTED) == 0)
		return clocks_rejected_event(in, l, "routed");
	if (strcmp(l->event, EVENTS_ROUTE_EXPIRED) == 0) {
		json_t *d = json_object_get(l->obj, "deleted");

		if (!json_is_boolean(d))
			return clocks_line_fail(l, "has no boolean", "deleted");
		/* only an expiry that took the route out of the FIB: after a
		 * link-down the kernel had dropped it already */
		return json_is_true(d) ? clocks_prober_event(in, l) : 0;
	}
	return 0;
}
