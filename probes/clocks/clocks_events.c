/*
 * Reading the events the clocks need from the JSON Lines files of a run
 * directory, NODE.AGENT.events.jsonl: the lab's lab_up, site_failed,
 * traffic_started and traffic_stopped; the probers' declared_dead (with the
 * NODE of the file, which tells a site's own prober from a remote one); the
 * collectors' (NODE.collector and NODE.collector-dns) route_added /
 * route_deleted, capture_ready, capture_stats and capture_error; authd's health_changed,
 * answer_changed and control_rejected; routed's control_rejected and
 * route_expired; the
 * clients' client_started and client_summary; the lab's lab_stopping and
 * agent_exited, for the verdict. Other events are skipped. Every line must be a JSON object
 * with an integer "t" and a string "event"; an event the clocks use must
 * carry its fields, or the read fails naming the file and line.
 */
#include "clocks_events.h"

#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "announce.h"
#include "clocks_int.h"
#include "events.h"

/* where a line came from, for error messages */
struct clocks_line {
	const char *path;
	const char *node;  /* the NODE of NODE.AGENT.events.jsonl */
	const char *agent; /* its AGENT */
	int line;
	const char *event;
	json_t *obj;
	int64_t t;
	char *err;
	size_t errlen;
};

typedef int (*clocks_event_fn)(struct clocks_input *in, const struct clocks_line *l);

static int clocks_fail_routes(const struct clocks_line *l, struct clocks_failure *f);

static int clocks_fail(const struct clocks_line *l, const char *what, const char *key)
{
	snprintf(l->err, l->errlen, "%s:%d: %s %s \"%s\"", l->path, l->line, l->event, what, key);
	return -1;
}

/* clocks_get_string: a non-empty string field that fits out[size]. */
static int clocks_get_string(const struct clocks_line *l, const char *key, char *out, size_t size)
{
	json_t *v = json_object_get(l->obj, key);

	if (!json_is_string(v))
		return clocks_fail(l, "has no string", key);
	if (json_string_length(v) == 0 || json_string_length(v) >= size)
		return clocks_fail(l, "has an empty or too long", key);
	memcpy(out, json_string_value(v), json_string_length(v) + 1);
	return 0;
}

/* clocks_get_name: a string field that fits CLOCKS_NAME_MAX. */
static int clocks_get_name(const struct clocks_line *l, const char *key, char *out)
{
	return clocks_get_string(l, key, out, CLOCKS_NAME_MAX);
}

static int clocks_get_addr(const struct clocks_line *l, const char *key, struct in_addr *addr)
{
	json_t *v = json_object_get(l->obj, key);

	if (!json_is_string(v))
		return clocks_fail(l, "has no string", key);
	if (inet_pton(AF_INET, json_string_value(v), addr) != 1)
		return clocks_fail(l, "has no IPv4 address in", key);
	return 0;
}

static int clocks_get_prefix(const struct clocks_line *l, const char *key, struct in_addr *addr,
			     int *len)
{
	json_t *v = json_object_get(l->obj, key);

	if (!json_is_string(v))
		return clocks_fail(l, "has no string", key);
	if (parse_prefix(json_string_value(v), addr, len) == -1)
		return clocks_fail(l, "has no IPv4 prefix in", key);
	return 0;
}

/* clocks_get_addrs: a list of address strings; the IPv4 ones go to addrs
 * (at most CLOCKS_MAX_ADDRS), the IPv6 ones are skipped. */
static int clocks_get_addrs(const struct clocks_line *l, const char *key, struct in_addr *addrs,
			    int *n)
{
	json_t *v = json_object_get(l->obj, key), *a;
	struct in6_addr a6;
	size_t i;

	if (!json_is_array(v))
		return clocks_fail(l, "has no address list in", key);
	*n = 0;
	json_array_foreach(v, i, a)
	{
		const char *s = json_string_value(a);

		if (s == NULL)
			return clocks_fail(l, "has a non-string address in", key);
		if (inet_pton(AF_INET6, s, &a6) == 1)
			continue;
		if (*n == CLOCKS_MAX_ADDRS)
			return clocks_fail(l, "has too many IPv4 addresses in", key);
		if (inet_pton(AF_INET, s, &addrs[*n]) != 1)
			return clocks_fail(l, "has a bad address in", key);
		(*n)++;
	}
	return 0;
}

/* clocks_get_count: a non-negative integer, or null (*known = 0). */
static int clocks_get_count(const struct clocks_line *l, const char *key, int64_t *out, int *known)
{
	json_t *v = json_object_get(l->obj, key);

	if (json_is_null(v)) {
		*known = 0;
		*out = 0;
		return 0;
	}
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return clocks_fail(l, "has no count (integer or null) in", key);
	*out = json_integer_value(v);
	return 0;
}

/* clocks_get_opt_int: an integer field that may be absent or null (*has =
 * 0); anything else there is an error */
static int clocks_get_opt_int(const struct clocks_line *l, const char *key, int64_t *out, int *has)
{
	json_t *v = json_object_get(l->obj, key);

	*has = 0;
	*out = 0;
	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_integer(v))
		return clocks_fail(l, "has no integer (or null) in", key);
	*out = json_integer_value(v);
	*has = 1;
	return 0;
}

/* clocks_get_opt_string: a string field that may be absent or null ("") */
static int clocks_get_opt_string(const struct clocks_line *l, const char *key, char *out,
				 size_t size)
{
	json_t *v = json_object_get(l->obj, key);

	out[0] = '\0';
	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return clocks_fail(l, "has no string (or null) in", key);
	snprintf(out, size, "%s", json_string_value(v));
	return 0;
}

/* clocks_exit_event: agent_exited {node, agent, pid, exit_code, signal,
 * expected} */
static int clocks_exit_event(struct clocks_input *in, const struct clocks_line *l)
{
	struct clocks_exit *x;
	int64_t v;
	int has;
	json_t *e;

	if (clocks_grow((void **)&in->exits, &in->capexits, in->nexits, sizeof(*in->exits)) == -1)
		return clocks_fail(l, "cannot be stored:", "out of memory");
	x = &in->exits[in->nexits];
	memset(x, 0, sizeof(*x));
	x->t_ns = l->t;
	if (clocks_get_name(l, "node", x->node) == -1 ||
	    clocks_get_name(l, "agent", x->agent) == -1 ||
	    clocks_get_opt_int(l, "pid", &x->pid, &has) == -1 ||
	    clocks_get_opt_int(l, "exit_code", &v, &x->has_code) == -1)
		return -1;
	x->code = (int)v;
	if (clocks_get_opt_int(l, "signal", &v, &x->has_signal) == -1)
		return -1;
	x->sig = (int)v;
	e = json_object_get(l->obj, "expected");
	if (!json_is_boolean(e))
		return clocks_fail(l, "has no boolean", "expected");
	x->expected = json_is_true(e);
	in->nexits++;
	return 0;
}

/* clocks_hit_event: event_applied, a step of the timeline */
static int clocks_hit_event(struct clocks_input *in, const struct clocks_line *l)
{
	struct clocks_hit *h;
	const char *site;

	if (clocks_grow((void **)&in->hits, &in->caphits, in->nhits, sizeof(*in->hits)) == -1)
		return clocks_fail(l, "cannot be stored:", "out of memory");
	h = &in->hits[in->nhits];
	memset(h, 0, sizeof(*h));
	h->t_ns = l->t;
	if (clocks_get_name(l, "name", h->name) == -1 ||
	    clocks_get_name(l, "action", h->action) == -1 ||
	    clocks_get_addrs(l, "vias", h->vias, &h->nvias) == -1)
		return -1;
	const char *step = json_string_value(json_object_get(l->obj, "step"));
	const char *kind = json_string_value(json_object_get(l->obj, "kind"));
	h->link = kind && strcmp(kind, "link") == 0;
	h->up = strcmp(h->action, "recover") == 0 || strcmp(h->action, "undrain") == 0 ||
		(strlen(h->action) > 3 && strcmp(h->action + strlen(h->action) - 3, "-up") == 0) ||
		(step && strcmp(step, "up") == 0);
	site = json_string_value(json_object_get(l->obj, "site"));
	if (site && strlen(site) < sizeof(h->site))
		snprintf(h->site, sizeof(h->site), "%s", site);
	const char *target = json_string_value(json_object_get(l->obj, "target"));
	if (target && strlen(target) < sizeof(h->target))
		snprintf(h->target, sizeof(h->target), "%s", target);
	if (kind && strlen(kind) < sizeof(h->kind))
		snprintf(h->kind, sizeof(h->kind), "%s", kind);
	json_t *v = json_object_get(l->obj, "cycle");
	if (json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) <= 1000000)
		h->cycle = (int)json_integer_value(v);
	v = json_object_get(l->obj, "at_ns");
	h->at_ns = json_is_integer(v) ? json_integer_value(v) : CLOCKS_NONE;
	v = json_object_get(l->obj, "nominal_at_ns");
	h->nominal_at_ns = json_is_integer(v) ? json_integer_value(v) : CLOCKS_NONE;
	v = json_object_get(l->obj, "done_ns");
	h->done_ns = json_is_integer(v) && json_integer_value(v) >= h->t_ns ? json_integer_value(v)
									    : CLOCKS_NONE;
	in->nhits++;
	return 0;
}

/* clocks_lab_addresses: lab_up's {ADDR: {node, kind}}, if there */
static int clocks_lab_addresses(struct clocks_input *in, const struct clocks_line *l)
{
	json_t *v = json_object_get(l->obj, "addresses"), *o;
	const char *addr;

	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_object(v))
		return clocks_fail(l, "has no object in", "addresses");
	json_object_foreach(v, addr, o)
	{
		json_t *node = json_object_get(o, "node"), *kind = json_object_get(o, "kind");
		struct clocks_addr_node *a;

		if (clocks_grow((void **)&in->addrs, &in->capaddrs, in->naddrs,
				sizeof(*in->addrs)) == -1)
			return clocks_fail(l, "cannot be stored:", "out of memory");
		a = &in->addrs[in->naddrs];
		memset(a, 0, sizeof(*a));
		if (inet_pton(AF_INET, addr, &a->addr) != 1 || !json_is_string(node) ||
		    json_string_length(node) == 0 || json_string_length(node) >= sizeof(a->node) ||
		    !json_is_string(kind))
			return clocks_fail(l, "has an entry that is not ADDRESS: {node, kind} in",
					   "addresses");
		memcpy(a->node, json_string_value(node), json_string_length(node) + 1);
		a->is_site = strcmp(json_string_value(kind), "site") == 0;
		a->is_router = strcmp(json_string_value(kind), "router") == 0;
		in->naddrs++;
	}
	return 0;
}

/* clocks_lab_impairments: the lab's impairments, its configured paths */
static int clocks_lab_impairments(struct clocks_input *in, const struct clocks_line *l)
{
	json_t *paths = json_object_get(l->obj, "paths"), *p;
	size_t i;

	if (clocks_get_name(l, "mechanism", in->impair_mech) == -1)
		return -1;
	if (!json_is_array(paths))
		return clocks_fail(l, "has no array", "paths");
	in->nimpair = 0;
	json_array_foreach(paths, i, p)
	{
		json_t *c = json_object_get(p, "client"), *s = json_object_get(p, "site");
		json_t *rtt = json_object_get(p, "rtt_ns"), *loss = json_object_get(p, "loss_pct");
		struct clocks_impair_path *ip;

		if (!json_is_string(c) || json_string_length(c) == 0 ||
		    json_string_length(c) >= CLOCKS_NAME_MAX || !json_is_string(s) ||
		    json_string_length(s) == 0 || json_string_length(s) >= CLOCKS_NAME_MAX ||
		    !json_is_integer(rtt) || json_integer_value(rtt) < 0 || !json_is_number(loss) ||
		    json_number_value(loss) < 0 || json_number_value(loss) > 100)
			return clocks_fail(l,
					   "has an entry that is not {client, site, rtt_ns, "
					   "loss_pct} in",
					   "paths");
		if (clocks_grow((void **)&in->impair, &in->capimpair, in->nimpair,
				sizeof(*in->impair)) == -1)
			return clocks_fail(l, "cannot be stored:", "out of memory");
		ip = &in->impair[in->nimpair++];
		memset(ip, 0, sizeof(*ip));
		memcpy(ip->client, json_string_value(c), json_string_length(c) + 1);
		memcpy(ip->site, json_string_value(s), json_string_length(s) + 1);
		ip->rtt_ns = json_integer_value(rtt);
		ip->loss_pct = json_number_value(loss);
		ip->p50_ns = CLOCKS_NONE;
	}
	return 0;
}

static int clocks_lab_event(struct clocks_input *in, const struct clocks_line *l)
{
	struct clocks_failure f;
	json_t *port, *v;

	if (strcmp(l->event, EVENTS_IMPAIRMENTS) == 0)
		return clocks_lab_impairments(in, l);
	if (strcmp(l->event, EVENTS_LAB_UP) == 0) {
		if (in->lab[0] != '\0')
			return 0;
		if (clocks_get_name(l, "lab", in->lab) == -1 || clocks_lab_addresses(in, l) == -1)
			return -1;
		port = json_object_get(l->obj, "port");
		if (port == NULL)
			return 0;
		if (!json_is_integer(port) || json_integer_value(port) < 1 ||
		    json_integer_value(port) > 65535)
			return clocks_fail(l, "has no port number in", "port");
		in->port = (uint16_t)json_integer_value(port);
	} else if (strcmp(l->event, EVENTS_SITE_FAILED) == 0) {
		memset(&f, 0, sizeof(f));
		f.t0_ns = l->t;
		if (clocks_get_name(l, "site", f.site) == -1 ||
		    clocks_get_addr(l, "via", &f.via) == -1 ||
		    clocks_get_prefix(l, "prefix", &f.prefix, &f.prefixlen) == -1)
			return -1;
		/* runs from before the DNS scheme have no "address" */
		if (json_object_get(l->obj, "address") != NULL) {
			if (clocks_get_addr(l, "address", &f.address) == -1)
				return -1;
			f.has_address = 1;
		}
		/* nor, before the timeline, "how" but sigkill */
		const char *how = json_string_value(json_object_get(l->obj, "how"));
		snprintf(f.how, sizeof(f.how), "%s",
			 how && strlen(how) < sizeof(f.how) ? how : "sigkill");
		/* nor, before issue 8, "killed_ns" */
		int has_killed;
		if (clocks_get_opt_int(l, "killed_ns", &f.killed_ns, &has_killed) == -1)
			return -1;
		if (!has_killed)
			f.killed_ns = CLOCKS_NONE;
		/* nor, before fail_jitter, "jitter_offset_ns" and "nominal_at_ns" */
		if (clocks_get_opt_int(l, "jitter_offset_ns", &f.jitter_offset_ns, &has_killed) ==
		    -1)
			return -1;
		if (!has_killed)
			f.jitter_offset_ns = CLOCKS_NONE;
		if (clocks_get_opt_int(l, "nominal_at_ns", &f.nominal_at_ns, &has_killed) == -1)
			return -1;
		if (!has_killed)
			f.nominal_at_ns = CLOCKS_NONE;
		/* nor, before routers linked to routers, "routes" */
		if (clocks_fail_routes(l, &f) == -1)
			return -1;
		const char *cause = json_string_value(json_object_get(l->obj, "cause"));
		if (cause && strlen(cause) < sizeof(f.name))
			snprintf(f.name, sizeof(f.name), "%s", cause);
		/* every site_failed is a failure (clocks_multi.c); the first is
		 * the run's t0 */
		if (in->nfailures == CLOCKS_MAX_FAILURES) {
			clocks_warn(&in->notes, "limit",
				    "%s:%d: site_failed of %s: more than %d failures, not "
				    "analysed",
				    l->path, l->line, f.site, CLOCKS_MAX_FAILURES);
			return 0;
		}
		if (clocks_grow((void **)&in->failures, &in->capfailures, in->nfailures,
				sizeof(*in->failures)) == -1)
			return clocks_fail(l, "cannot be stored:", "out of memory");
		in->failures[in->nfailures++] = f;
		if (in->failure.site[0] == '\0')
			in->failure = f;
	} else if (strcmp(l->event, EVENTS_TRAFFIC_STARTED) == 0) {
		v = json_object_get(l->obj, "duration_ns");
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return clocks_fail(l, "has no duration (integer >= 0) in", "duration_ns");
		if (in->traffic_start_ns == CLOCKS_NONE) {
			int64_t fail_at;
			int has;

			in->traffic_start_ns = l->t;
			in->traffic_duration_ns = json_integer_value(v);
			if (clocks_get_opt_int(l, "fail_at_ns", &fail_at, &has) == -1)
				return -1;
			in->fail_at_ns = has ? fail_at : CLOCKS_NONE;
			/* seed and fail_jitter_ns: runs from before them have neither */
			if (clocks_get_opt_int(l, "seed", &in->seed, &has) == -1)
				return -1;
			if (!has)
				in->seed = CLOCKS_NONE;
			if (clocks_get_opt_int(l, "fail_jitter_ns", &in->fail_jitter_ns, &has) ==
			    -1)
				return -1;
			if (!has)
				in->fail_jitter_ns = CLOCKS_NONE;
		}
	} else if (strcmp(l->event, EVENTS_TRAFFIC_STOPPED) == 0) {
		if (in->traffic_stop_ns == CLOCKS_NONE) {
			v = json_object_get(l->obj, "interrupted");
			in->traffic_stop_ns = l->t;
			if (json_is_boolean(v))
				in->traffic_interrupted = json_is_true(v);
			else if (v != NULL)
				return clocks_fail(l, "has no boolean", "interrupted");
			v = json_object_get(l->obj, "by");
			in->traffic_stopped_by_down =
			    json_is_string(v) && strcmp(json_string_value(v), "down") == 0;
		}
	} else if (strcmp(l->event, EVENTS_LAB_STOPPING) == 0) {
		if (in->lab_stopping_ns == CLOCKS_NONE)
			in->lab_stopping_ns = l->t;
	} else if (strcmp(l->event, EVENTS_AGENT_EXITED) == 0) {
		return clocks_exit_event(in, l);
	} else if (strcmp(l->event, EVENTS_EVENT_APPLIED) == 0) {
		return clocks_hit_event(in, l);
	}
	return 0;
}

static int clocks_prober_event(struct clocks_input *in, const struct clocks_line *l)
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
		return clocks_fail(l, "cannot be stored:", "out of memory");
	d = &(*arr)[*n];
	d->t_ns = l->t;
	if (clocks_get_name(l, "site", d->site) == -1)
		return -1;
	snprintf(d->node, sizeof(d->node), "%s", l->node);
	(*n)++;
	return 0;
}

/* clocks_fail_routes: site_failed's "routes", [{router, via, metric}],
 * if there */
static int clocks_fail_routes(const struct clocks_line *l, struct clocks_failure *f)
{
	json_t *v = json_object_get(l->obj, "routes"), *r;
	size_t i;

	f->nroutes = 0;
	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_array(v))
		return clocks_fail(l, "has no list in", "routes");
	json_array_foreach(v, i, r)
	{
		struct clocks_fail_route *fr;
		json_t *router = json_object_get(r, "router"), *via = json_object_get(r, "via"),
		       *metric = json_object_get(r, "metric");

		if (f->nroutes == CLOCKS_MAX_FAIL_ROUTES)
			return clocks_fail(l, "has too many entries in", "routes");
		fr = &f->routes[f->nroutes];
		if (!json_is_string(router) || json_string_length(router) == 0 ||
		    json_string_length(router) >= sizeof(fr->router) || !json_is_string(via) ||
		    inet_pton(AF_INET, json_string_value(via), &fr->via) != 1 ||
		    !json_is_integer(metric) || json_integer_value(metric) < 0)
			return clocks_fail(l, "has an entry without router, via and metric in",
					   "routes");
		memcpy(fr->router, json_string_value(router), json_string_length(router) + 1);
		fr->metric = json_integer_value(metric);
		f->nroutes++;
	}
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
	return clocks_fail(
	    l, r->deleted ? "has no \"del\" in" : "has no add, replace, append or present in",
	    "op");
}

/* clocks_nexthop: {via, dev} (via and dev strings or null) into *nh */
static int clocks_nexthop(const struct clocks_line *l, json_t *o, struct clocks_nexthop *nh)
{
	json_t *via = json_object_get(o, "via"), *dev = json_object_get(o, "dev");

	memset(nh, 0, sizeof(*nh));
	if (via != NULL && !json_is_null(via)) {
		if (!json_is_string(via) ||
		    inet_pton(AF_INET, json_string_value(via), &nh->via) != 1)
			return clocks_fail(l, "has no IPv4 address in", "via");
		nh->has_via = 1;
	}
	if (dev != NULL && !json_is_null(dev)) {
		if (!json_is_string(dev) || json_string_length(dev) >= sizeof(nh->dev))
			return clocks_fail(l, "has no interface name in", "dev");
		memcpy(nh->dev, json_string_value(dev), json_string_length(dev) + 1);
	}
	return 0;
}

static int clocks_route_event(struct clocks_input *in, const struct clocks_line *l)
{
	json_t *metric, *proto, *nhs, *o;
	struct clocks_route *r;
	size_t i;

	if (clocks_grow((void **)&in->routes, &in->caproutes, in->nroutes, sizeof(*in->routes)) ==
	    -1)
		return clocks_fail(l, "cannot be stored:", "out of memory");
	r = &in->routes[in->nroutes];
	memset(r, 0, sizeof(*r));
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
	if (clocks_get_prefix(l, "prefix", &r->prefix, &r->prefixlen) == -1 ||
	    clocks_route_op(l, r) == -1)
		return -1;
	/* a route without a gateway has "via": null */
	if (clocks_nexthop(l, l->obj, &r->nh[0]) == -1)
		return -1;
	r->nnh = 1;
	/* a multipath route: every next hop (the first is also via, dev) */
	nhs = json_object_get(l->obj, "nexthops");
	if (nhs != NULL && !json_is_null(nhs)) {
		if (!json_is_array(nhs) || json_array_size(nhs) == 0)
			return clocks_fail(l, "has no list of next hops in", "nexthops");
		r->nnh = 0;
		json_array_foreach(nhs, i, o)
		{
			if (r->nnh == CLOCKS_MAX_NEXTHOPS)
				break;
			if (!json_is_object(o))
				return clocks_fail(l, "has a next hop that is no object in",
						   "nexthops");
			if (clocks_nexthop(l, o, &r->nh[r->nnh++]) == -1)
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
	in->nroutes++;
	return 0;
}

/* clocks_mloss_event: route_monitor_overrun or route_monitor_error */
static int clocks_mloss_event(struct clocks_input *in, const struct clocks_line *l)
{
	struct clocks_monitor_loss *m;

	if (clocks_grow((void **)&in->mlosses, &in->capmlosses, in->nmlosses,
			sizeof(*in->mlosses)) == -1)
		return clocks_fail(l, "cannot be stored:", "out of memory");
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
		return clocks_fail(l, "cannot be stored:", "out of memory");
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
		return clocks_fail(l, "cannot be stored:", "out of memory");
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
 * ring takes of the kernel's memory */
static int clocks_ready_event(struct clocks_input *in, const struct clocks_line *l)
{
	int64_t bytes;
	int has;

	if (clocks_get_opt_int(l, "buffer", &bytes, &has) == -1)
		return -1;
	in->ncaptures_ready++;
	if (!has || bytes < 0)
		in->capture_ring_bytes = CLOCKS_NONE;
	else if (in->capture_ring_bytes != CLOCKS_NONE)
		in->capture_ring_bytes += bytes;
	return 0;
}

static int clocks_collector_event(struct clocks_input *in, const struct clocks_line *l)
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
static int clocks_rejected_event(struct clocks_input *in, const struct clocks_line *l,
				 const char *agent)
{
	struct clocks_rejected *r;
	int known = 1;

	if (clocks_grow((void **)&in->rejected, &in->caprejected, in->nrejected,
			sizeof(*in->rejected)) == -1)
		return clocks_fail(l, "cannot be stored:", "out of memory");
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

static int clocks_routed_event(struct clocks_input *in, const struct clocks_line *l)
{
	if (strcmp(l->event, EVENTS_CONTROL_REJECTED) == 0)
		return clocks_rejected_event(in, l, "routed");
	if (strcmp(l->event, EVENTS_ROUTE_EXPIRED) == 0) {
		json_t *d = json_object_get(l->obj, "deleted");

		if (!json_is_boolean(d))
			return clocks_fail(l, "has no boolean", "deleted");
		/* only an expiry that took the route out of the FIB: after a
		 * link-down the kernel had dropped it already */
		return json_is_true(d) ? clocks_prober_event(in, l) : 0;
	}
	return 0;
}

/* clocks_client_of: the client of id in the list, added if new */
static struct clocks_client *clocks_client_of(struct clocks_input *in, const struct clocks_line *l,
					      uint32_t id)
{
	struct clocks_client *c;

	for (size_t i = 0; i < in->nclients; i++)
		if (in->clients[i].id == id)
			return &in->clients[i];
	if (clocks_grow((void **)&in->clients, &in->capclients, in->nclients,
			sizeof(*in->clients)) == -1)
		return NULL;
	c = &in->clients[in->nclients++];
	memset(c, 0, sizeof(*c));
	c->id = id;
	c->started_ns = c->summary_ns = CLOCKS_NONE;
	c->sending_ns = 0;
	snprintf(c->node, sizeof(c->node), "%s", l->node);
	snprintf(c->agent, sizeof(c->agent), "%s", l->agent);
	return c;
}

/* clocks_client_event: client_started {client, rate} and client_summary
 * {client, sent, lost, late} */
static int clocks_resolution_event(struct clocks_input *in, const struct clocks_line *l)
{
	json_t *id = json_object_get(l->obj, "client"),
	       *lat = json_object_get(l->obj, "latency_ns");
	const char *o = json_string_value(json_object_get(l->obj, "outcome"));
	struct clocks_resolution *r;
	int k;

	if (!json_is_integer(id) || json_integer_value(id) < 0 ||
	    json_integer_value(id) > UINT32_MAX)
		return clocks_fail(l, "has no client id (integer) in", "client");
	for (k = 0; o && k < CLOCKS_DNS_OUTCOMES; k++)
		if (strcmp(o, clocks_dns_outcome_names[k]) == 0)
			break;
	if (o == NULL || k == CLOCKS_DNS_OUTCOMES)
		return clocks_fail(l, "has no outcome (fresh, stale, servfail, rcode, timeout) in",
				   "outcome");
	if (!json_is_integer(lat) || json_integer_value(lat) < 0)
		return clocks_fail(l, "has no latency (integer >= 0) in", "latency_ns");
	/* the query was sent at t - latency, after the epoch */
	if (json_integer_value(lat) > l->t)
		return clocks_fail(l, "has a latency longer than its time since the epoch in",
				   "latency_ns");
	if (clocks_grow((void **)&in->resolutions, &in->capresolutions, in->nresolutions,
			sizeof(*in->resolutions)) == -1)
		return clocks_fail(l, "cannot be stored:", "out of memory");
	r = &in->resolutions[in->nresolutions++];
	r->sent_ns = l->t - json_integer_value(lat);
	r->client = (uint32_t)json_integer_value(id);
	r->outcome = (enum clocks_dns_outcome)k;
	return 0;
}

/* clocks_answer_event: dns_answer {client, address, ttl}; stale when the
 * resolution just before it, the same client's, was (the client writes
 * the two together) */
static int clocks_answer_event(struct clocks_input *in, const struct clocks_line *l)
{
	json_t *id = json_object_get(l->obj, "client"), *ttl = json_object_get(l->obj, "ttl"), *v;
	const struct clocks_resolution *last =
	    in->nresolutions ? &in->resolutions[in->nresolutions - 1] : NULL;
	struct clocks_dns_answer *a;
	struct in_addr addr;

	if (!json_is_integer(id) || json_integer_value(id) < 0 ||
	    json_integer_value(id) > UINT32_MAX)
		return clocks_fail(l, "has no client id (integer) in", "client");
	v = json_object_get(l->obj, "address");
	if (!json_is_string(v))
		return clocks_fail(l, "has no string", "address");
	/* an IPv6 answer is not one the clocks follow */
	if (inet_pton(AF_INET, json_string_value(v), &addr) != 1)
		return 0;
	if (!json_is_integer(ttl) || json_integer_value(ttl) < 0)
		return clocks_fail(l, "has no ttl (integer >= 0) in", "ttl");
	if (clocks_grow((void **)&in->danswers, &in->capdanswers, in->ndanswers,
			sizeof(*in->danswers)) == -1)
		return clocks_fail(l, "cannot be stored:", "out of memory");
	a = &in->danswers[in->ndanswers++];
	a->t_ns = l->t;
	a->client = (uint32_t)json_integer_value(id);
	a->addr = addr;
	a->ttl_s = json_integer_value(ttl);
	a->stale = last && last->client == a->client && last->outcome == CLOCKS_DNS_STALE;
	return 0;
}

static int clocks_client_event(struct clocks_input *in, const struct clocks_line *l)
{
	int started = strcmp(l->event, EVENTS_CLIENT_STARTED) == 0, known = 1;
	struct clocks_client *c;
	json_t *id, *rate;

	if (strcmp(l->event, EVENTS_DNS_RESOLUTION) == 0)
		return clocks_resolution_event(in, l);
	if (strcmp(l->event, EVENTS_DNS_ANSWER) == 0)
		return clocks_answer_event(in, l);
	if (!started && strcmp(l->event, EVENTS_CLIENT_SUMMARY) != 0)
		return 0;
	id = json_object_get(l->obj, "client");
	if (!json_is_integer(id) || json_integer_value(id) < 0 ||
	    json_integer_value(id) > UINT32_MAX)
		return clocks_fail(l, "has no client id (integer) in", "client");
	c = clocks_client_of(in, l, (uint32_t)json_integer_value(id));
	if (c == NULL)
		return clocks_fail(l, "cannot be stored:", "out of memory");
	if (started) {
		rate = json_object_get(l->obj, "rate");
		if (!json_is_number(rate) || json_number_value(rate) < 0)
			return clocks_fail(l, "has no rate (number >= 0) in", "rate");
		c->rate = json_number_value(rate);
		c->started_ns = l->t;
		const char *rs = json_string_value(json_object_get(l->obj, "resolver"));
		if (rs && strlen(rs) < sizeof(c->resolver))
			snprintf(c->resolver, sizeof(c->resolver), "%s", rs);
		if (json_object_get(l->obj, "population") &&
		    clocks_get_count(l, "population", &c->population, &known) == -1)
			return -1;
		if (json_object_get(l->obj, "sticky_ns") &&
		    clocks_get_count(l, "sticky_ns", &c->sticky_ns, &known) == -1)
			return -1;
		if (json_is_number(json_object_get(l->obj, "sticky_share")))
			c->sticky_share =
			    json_number_value(json_object_get(l->obj, "sticky_share"));
		return 0;
	}
	c->summary_ns = l->t;
	if (clocks_get_count(l, "sent", &c->sent, &known) == -1)
		return -1;
	if (json_object_get(l->obj, "lost") && clocks_get_count(l, "lost", &c->lost, &known) == -1)
		return -1;
	if (json_object_get(l->obj, "late") && clocks_get_count(l, "late", &c->late, &known) == -1)
		return -1;
	if (json_object_get(l->obj, "sending_ns") &&
	    clocks_get_count(l, "sending_ns", &c->sending_ns, &known) == -1)
		return -1;
	return 0;
}

static int clocks_authd_event(struct clocks_input *in, const struct clocks_line *l)
{
	struct clocks_health *h;
	struct clocks_answer *a;
	json_t *v;

	if (strcmp(l->event, EVENTS_HEALTH_CHANGED) == 0) {
		if (clocks_grow((void **)&in->health, &in->caphealth, in->nhealth,
				sizeof(*in->health)) == -1)
			return clocks_fail(l, "cannot be stored:", "out of memory");
		h = &in->health[in->nhealth];
		memset(h, 0, sizeof(*h));
		h->t_ns = l->t;
		if (clocks_get_name(l, "site", h->site) == -1)
			return -1;
		v = json_object_get(l->obj, "healthy");
		if (!json_is_boolean(v))
			return clocks_fail(l, "has no boolean", "healthy");
		h->healthy = json_is_true(v);
		in->nhealth++;
	} else if (strcmp(l->event, EVENTS_CONTROL_REJECTED) == 0) {
		return clocks_rejected_event(in, l, "authd");
	} else if (strcmp(l->event, EVENTS_ANSWER_CHANGED) == 0) {
		if (clocks_grow((void **)&in->answers, &in->capanswers, in->nanswers,
				sizeof(*in->answers)) == -1)
			return clocks_fail(l, "cannot be stored:", "out of memory");
		a = &in->answers[in->nanswers];
		memset(a, 0, sizeof(*a));
		a->t_ns = l->t;
		if (clocks_get_string(l, "name", a->name, sizeof(a->name)) == -1 ||
		    clocks_get_addrs(l, "before", a->before, &a->nbefore) == -1 ||
		    clocks_get_addrs(l, "after", a->after, &a->nafter) == -1)
			return -1;
		in->nanswers++;
	}
	return 0;
}

/* clocks_read_jsonl_fp: call fn for every event of fp, read as path. */
static int clocks_read_jsonl_fp(FILE *fp, const char *path, const char *node, const char *agent,
				clocks_event_fn fn, struct clocks_input *in, char *err,
				size_t errlen)
{
	struct clocks_line l = {
	    .path = path, .node = node, .agent = agent, .err = err, .errlen = errlen};
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int complete, rc = -1;

	while ((len = clocks_read_line(fp, &line, &cap, &complete)) != -1) {
		json_error_t jerr;
		json_t *t, *ev;

		l.line++;
		if (strspn(line, " \t") == (size_t)len)
			continue;
		l.obj = json_loadb(line, (size_t)len, 0, &jerr);
		if (!json_is_object(l.obj)) {
			if (!complete) {
				/* a writer killed mid-line: what it wrote before stands */
				clocks_warn(&in->notes, "file_cut",
					    "%s:%d: last line cut short, ignored", path, l.line);
				break;
			}
			snprintf(err, errlen, "%s:%d: %s", path, l.line,
				 l.obj ? "not a JSON object" : jerr.text);
			goto out;
		}
		t = json_object_get(l.obj, "t");
		ev = json_object_get(l.obj, "event");
		if (!json_is_integer(t) || !json_is_string(ev)) {
			snprintf(err, errlen,
				 "%s:%d: an event needs an integer \"t\" and a string "
				 "\"event\"",
				 path, l.line);
			goto out;
		}
		l.t = json_integer_value(t);
		l.event = json_string_value(ev);
		if (fn(in, &l) == -1)
			goto out;
		json_decref(l.obj);
		l.obj = NULL;
	}
	if (ferror(fp)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	json_decref(l.obj);
	free(line);
	return rc;
}

/* clocks_read_jsonl: call fn for every event of the file. */
static int clocks_read_jsonl(const char *path, const char *node, const char *agent,
			     clocks_event_fn fn, struct clocks_input *in, char *err, size_t errlen)
{
	FILE *fp = fopen(path, "r");
	int rc;

	if (fp == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	rc = clocks_read_jsonl_fp(fp, path, node, agent, fn, in, err, errlen);
	fclose(fp);
	return rc;
}

#define CLOCKS_EVENTS_SUFFIX ".events.jsonl"

/* clocks_read_each: every NODE.AGENT.events.jsonl of the run directory
 * whose AGENT is agent, or (prefix set) begins with agent. *nfiles counts
 * the files read. */
static int clocks_read_each(const char *rundir, const char *agent, int prefix, clocks_event_fn fn,
			    struct clocks_input *in, size_t *nfiles, char *err, size_t errlen)
{
	char path[PATH_MAX], node[CLOCKS_NAME_MAX], label[CLOCKS_NAME_MAX], **names;
	size_t n, alen = strlen(agent);
	int rc = 0;

	if (clocks_list_dir(rundir, "", CLOCKS_EVENTS_SUFFIX, &names, &n, err, errlen) == -1)
		return -1;
	for (size_t i = 0; i < n && rc == 0; i++) {
		const char *dot = strchr(names[i], '.'), *label_of = dot ? dot + 1 : "";
		size_t llen = strlen(names[i]) - (size_t)(label_of - names[i]);

		/* node names have no dot (lab/topology/topology.c); the label is what
		 * lies between the node and CLOCKS_EVENTS_SUFFIX */
		if (dot == NULL || (size_t)(dot - names[i]) >= sizeof(node) ||
		    llen < strlen(CLOCKS_EVENTS_SUFFIX))
			continue;
		llen -= strlen(CLOCKS_EVENTS_SUFFIX);
		if (llen >= sizeof(label))
			continue;
		if (llen < alen || strncmp(label_of, agent, alen) != 0 || (!prefix && llen != alen))
			continue;
		memcpy(node, names[i], (size_t)(dot - names[i]));
		node[dot - names[i]] = '\0';
		memcpy(label, label_of, llen);
		label[llen] = '\0';
		snprintf(path, sizeof(path), "%s/%s", rundir, names[i]);
		rc = clocks_read_jsonl(path, node, label, fn, in, err, errlen);
		if (nfiles)
			(*nfiles)++;
	}
	clocks_free_names(names, n);
	return rc;
}

int clocks_read_events(const char *rundir, struct clocks_input *in, char *err, size_t errlen)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/lab.events.jsonl", rundir);
	if (clocks_read_jsonl(path, "lab", "steerlab", clocks_lab_event, in, err, errlen) == -1)
		return -1;
	if (in->lab[0] == '\0') {
		snprintf(err, errlen, "%s: no lab_up event", path);
		return -1;
	}
	if (in->failure.site[0] == '\0') {
		snprintf(err, errlen, "%s: no site_failed event: the run has no t0", path);
		return -1;
	}
	if (clocks_read_each(rundir, "prober", 0, clocks_prober_event, in, NULL, err, errlen) ==
		-1 ||
	    clocks_read_each(rundir, "collector", 1, clocks_collector_event, in, NULL, err,
			     errlen) == -1 ||
	    clocks_read_each(rundir, "authd", 0, clocks_authd_event, in, &in->nauthd_files, err,
			     errlen) == -1 ||
	    clocks_read_each(rundir, "routed", 0, clocks_routed_event, in, NULL, err, errlen) ==
		-1 ||
	    clocks_read_each(rundir, "client", 1, clocks_client_event, in, &in->nclient_files, err,
			     errlen) == -1)
		return -1;
	return 0;
}

int clocks_read_events_stream(FILE *fp, const char *path, const char *node, const char *agent,
			      struct clocks_input *in, char *err, size_t errlen)
{
	clocks_event_fn fn;

	if (strcmp(agent, "steerlab") == 0)
		fn = clocks_lab_event;
	else if (strcmp(agent, "prober") == 0)
		fn = clocks_prober_event;
	else if (strncmp(agent, "collector", strlen("collector")) == 0)
		fn = clocks_collector_event;
	else if (strcmp(agent, "authd") == 0)
		fn = clocks_authd_event;
	else if (strcmp(agent, "routed") == 0)
		fn = clocks_routed_event;
	else if (strncmp(agent, "client", strlen("client")) == 0)
		fn = clocks_client_event;
	else
		return 0; /* an agent whose events the clocks do not read */
	return clocks_read_jsonl_fp(fp, path, node, agent, fn, in, err, errlen);
}
