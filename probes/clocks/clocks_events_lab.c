/* The lab's events (lab.events.jsonl): lab_up, site_failed, the timeline's
 * steps, traffic, lab_stopping, agent_exited, host_clock; see
 * clocks_events_int.h. */
#include "clocks_events.h"

#include <arpa/inet.h>
#include <jansson.h>
#include <string.h>

#include "clocks_events_int.h"
#include "clocks_int.h"
#include "events.h"

/* clocks_exit_event: agent_exited {node, agent, pid, exit_code, signal,
 * expected} */
static int clocks_exit_event(struct clocks_input *in, const struct clocks_line *l)
{
	struct clocks_exit *x;
	int64_t v;
	int has;
	json_t *e;

	if (clocks_grow((void **)&in->exits, &in->capexits, in->nexits, sizeof(*in->exits)) == -1)
		return clocks_line_fail(l, "cannot be stored:", "out of memory");
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
		return clocks_line_fail(l, "has no boolean", "expected");
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
		return clocks_line_fail(l, "cannot be stored:", "out of memory");
	h = &in->hits[in->nhits];
	memset(h, 0, sizeof(*h));
	h->t_ns = l->t;
	if (clocks_get_name(l, "name", h->name) == -1 ||
	    clocks_get_name(l, "action", h->action) == -1 ||
	    clocks_get_addrs(in, l, "vias", h->vias, &h->nvias) == -1)
		return -1;
	const char *step = json_string_value(json_object_get(l->obj, "step"));
	const char *kind = json_string_value(json_object_get(l->obj, "kind"));
	/* an impair changes a link, cuts none */
	h->link = kind && strcmp(kind, "link") == 0 && strcmp(h->action, "impair") != 0;
	h->up = strcmp(h->action, "recover") == 0 || strcmp(h->action, "undrain") == 0 ||
		strcmp(h->action, "undegrade") == 0 || strcmp(h->action, "unslow") == 0 ||
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
	const char *change = json_string_value(json_object_get(l->obj, "change"));
	if (change && strlen(change) < sizeof(h->change))
		snprintf(h->change, sizeof(h->change), "%s", change);
	v = json_object_get(l->obj, "serial");
	h->serial = json_is_integer(v) ? json_integer_value(v) : CLOCKS_NONE;
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
		return clocks_line_fail(l, "has no object in", "addresses");
	json_object_foreach(v, addr, o)
	{
		json_t *node = json_object_get(o, "node"), *kind = json_object_get(o, "kind");
		struct clocks_addr_node *a;

		if (clocks_grow((void **)&in->addrs, &in->capaddrs, in->naddrs,
				sizeof(*in->addrs)) == -1)
			return clocks_line_fail(l, "cannot be stored:", "out of memory");
		a = &in->addrs[in->naddrs];
		memset(a, 0, sizeof(*a));
		if (inet_pton(AF_INET, addr, &a->addr) != 1 || !json_is_string(node) ||
		    json_string_length(node) == 0 || json_string_length(node) >= sizeof(a->node) ||
		    !json_is_string(kind))
			return clocks_line_fail(
			    l, "has an entry that is not ADDRESS: {node, kind} in", "addresses");
		memcpy(a->node, json_string_value(node), json_string_length(node) + 1);
		a->is_site = strcmp(json_string_value(kind), "site") == 0;
		a->is_router = strcmp(json_string_value(kind), "router") == 0;
		in->naddrs++;
	}
	return 0;
}

/* clocks_lab_twins: lab_up's {IPV6: IPV4}, if there */
static int clocks_lab_twins(struct clocks_input *in, const struct clocks_line *l)
{
	json_t *v = json_object_get(l->obj, "twins"), *o;
	const char *addr;

	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_object(v))
		return clocks_line_fail(l, "has no object in", "twins");
	json_object_foreach(v, addr, o)
	{
		struct clocks_twin *tw;

		if (clocks_grow((void **)&in->twins, &in->captwins, in->ntwins,
				sizeof(*in->twins)) == -1)
			return clocks_line_fail(l, "cannot be stored:", "out of memory");
		tw = &in->twins[in->ntwins];
		if (inet_pton(AF_INET6, addr, &tw->v6) != 1 || !json_is_string(o) ||
		    inet_pton(AF_INET, json_string_value(o), &tw->v4) != 1)
			return clocks_line_fail(l, "has an entry that is not IPV6: IPV4 in",
						"twins");
		in->ntwins++;
	}
	return 0;
}

const char *clocks_addr_name(const struct clocks_input *in, struct in_addr v4, char *buf,
			     size_t len)
{
	for (size_t i = 0; in->ip6 && i < in->ntwins; i++)
		if (in->twins[i].v4.s_addr == v4.s_addr)
			return inet_ntop(AF_INET6, &in->twins[i].v6, buf, (socklen_t)len);
	return inet_ntop(AF_INET, &v4, buf, (socklen_t)len);
}

int clocks_twin_of(const struct clocks_input *in, const struct in6_addr *v6, struct in_addr *v4)
{
	for (size_t i = 0; i < in->ntwins; i++)
		if (memcmp(&in->twins[i].v6, v6, sizeof(*v6)) == 0) {
			*v4 = in->twins[i].v4;
			return 0;
		}
	return -1;
}

/* clocks_lab_paths: the configured paths of l's "paths", in force from
 * from_ns (0: bring-up's impairments, which replace all); a path whose
 * RTT and loss are those in force already is no new entry */
static int clocks_lab_paths(struct clocks_input *in, const struct clocks_line *l, int64_t from_ns)
{
	json_t *paths = json_object_get(l->obj, "paths"), *p;
	size_t i;

	if (!json_is_array(paths))
		return clocks_line_fail(l, "has no array", "paths");
	if (from_ns == 0)
		in->nimpair = 0;
	json_array_foreach(paths, i, p)
	{
		json_t *c = json_object_get(p, "client"), *s = json_object_get(p, "site");
		json_t *rtt = json_object_get(p, "rtt_ns"), *loss = json_object_get(p, "loss_pct");
		struct clocks_impair_path *ip, *last = NULL;

		if (!json_is_string(c) || json_string_length(c) == 0 ||
		    json_string_length(c) >= CLOCKS_NAME_MAX || !json_is_string(s) ||
		    json_string_length(s) == 0 || json_string_length(s) >= CLOCKS_NAME_MAX ||
		    !json_is_integer(rtt) || json_integer_value(rtt) < 0 || !json_is_number(loss) ||
		    json_number_value(loss) < 0 || json_number_value(loss) > 100)
			return clocks_line_fail(l,
						"has an entry that is not {client, site, rtt_ns, "
						"loss_pct} in",
						"paths");
		for (size_t k = 0; k < in->nimpair; k++)
			if (strcmp(in->impair[k].client, json_string_value(c)) == 0 &&
			    strcmp(in->impair[k].site, json_string_value(s)) == 0)
				last = &in->impair[k];
		if (last && last->rtt_ns == json_integer_value(rtt) &&
		    last->loss_pct == json_number_value(loss))
			continue;
		if (clocks_grow((void **)&in->impair, &in->capimpair, in->nimpair,
				sizeof(*in->impair)) == -1)
			return clocks_line_fail(l, "cannot be stored:", "out of memory");
		ip = &in->impair[in->nimpair++];
		memset(ip, 0, sizeof(*ip));
		memcpy(ip->client, json_string_value(c), json_string_length(c) + 1);
		memcpy(ip->site, json_string_value(s), json_string_length(s) + 1);
		ip->rtt_ns = json_integer_value(rtt);
		ip->loss_pct = json_number_value(loss);
		ip->p50_ns = CLOCKS_NONE;
		ip->from_ns = from_ns;
	}
	return 0;
}

/* clocks_lab_impairments: the lab's impairments, its configured paths */
static int clocks_lab_impairments(struct clocks_input *in, const struct clocks_line *l)
{
	if (clocks_get_name(l, "mechanism", in->impair_mech) == -1)
		return -1;
	return clocks_lab_paths(in, l, 0);
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
		return clocks_line_fail(l, "has no list in", "routes");
	json_array_foreach(v, i, r)
	{
		struct clocks_fail_route *fr;
		json_t *router = json_object_get(r, "router"), *via = json_object_get(r, "via"),
		       *metric = json_object_get(r, "metric");

		if (f->nroutes == CLOCKS_MAX_FAIL_ROUTES)
			return clocks_line_fail(l, "has too many entries in", "routes");
		fr = &f->routes[f->nroutes];
		if (!json_is_string(router) || json_string_length(router) == 0 ||
		    json_string_length(router) >= sizeof(fr->router) || !json_is_string(via) ||
		    inet_pton(AF_INET, json_string_value(via), &fr->via) != 1 ||
		    !json_is_integer(metric) || json_integer_value(metric) < 0)
			return clocks_line_fail(l, "has an entry without router, via and metric in",
						"routes");
		memcpy(fr->router, json_string_value(router), json_string_length(router) + 1);
		fr->metric = json_integer_value(metric);
		f->nroutes++;
	}
	return 0;
}

int clocks_lab_event(struct clocks_input *in, const struct clocks_line *l)
{
	struct clocks_failure f;
	json_t *port, *v;

	if (strcmp(l->event, EVENTS_IMPAIRMENTS) == 0)
		return clocks_lab_impairments(in, l);
	if (strcmp(l->event, EVENTS_HOST_CLOCK) == 0)
		return clocks_host_clock_event(in, l);
	/* a DNS change PowerDNS or gdnsd took, as the lab applied it: as
	 * authd's zone_changed */
	if (strcmp(l->event, EVENTS_AUTHORITY_CHANGED) == 0)
		return clocks_zone_change_event(in, l);
	/* a link's impairment changed: the paths in force from then on (a
	 * run from before them has none) */
	if (strcmp(l->event, EVENTS_LINK_IMPAIRED) == 0)
		return json_object_get(l->obj, "paths") ? clocks_lab_paths(in, l, l->t) : 0;
	if (strcmp(l->event, EVENTS_LAB_UP) == 0) {
		if (in->lab[0] != '\0')
			return 0;
		if (clocks_get_name(l, "lab", in->lab) == -1 || clocks_lab_addresses(in, l) == -1 ||
		    clocks_lab_twins(in, l) == -1 || clocks_hosts_lab_up(in, l) == -1)
			return -1;
		if (json_is_string(json_object_get(l->obj, "topology")))
			snprintf(in->topology, sizeof(in->topology), "%s",
				 json_string_value(json_object_get(l->obj, "topology")));
		/* "ip" came with ip = 6: older runs were of IPv4 (or dual) */
		in->ip6 = json_is_string(json_object_get(l->obj, "ip")) &&
			  strcmp(json_string_value(json_object_get(l->obj, "ip")), "6") == 0;
		port = json_object_get(l->obj, "port");
		if (port == NULL)
			return 0;
		if (!json_is_integer(port) || json_integer_value(port) < 1 ||
		    json_integer_value(port) > 65535)
			return clocks_line_fail(l, "has no port number in", "port");
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
		/* one family out (a dual lab's freeze of family = 6): its
		 * requests alone are the failure's */
		if (json_is_integer(json_object_get(l->obj, "family"))) {
			json_int_t fam = json_integer_value(json_object_get(l->obj, "family"));

			if (fam != 4 && fam != 6)
				return clocks_line_fail(l, "has no family 4 or 6 in", "family");
			f.family = (int)fam;
		}
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
			return clocks_line_fail(l, "cannot be stored:", "out of memory");
		in->failures[in->nfailures++] = f;
		if (in->failure.site[0] == '\0')
			in->failure = f;
	} else if (strcmp(l->event, EVENTS_TRAFFIC_STARTED) == 0) {
		v = json_object_get(l->obj, "duration_ns");
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return clocks_line_fail(l, "has no duration (integer >= 0) in",
						"duration_ns");
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
				return clocks_line_fail(l, "has no boolean", "interrupted");
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
