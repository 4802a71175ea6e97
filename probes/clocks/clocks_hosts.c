/* A lab over several hosts: lab_up's hosts, the host_clock events, the
 * capture labels' collectors, and the uncertainty each clock carries
 * (clocks_hosts.h; docs/clocks.md, "Several hosts"). */
#include "clocks_hosts.h"

#include <jansson.h>
#include <string.h>

#include "clocks_events_int.h"
#include "clocksync.h"
#include "clocks_int.h"
#include "clocks_result.h"

/* clocks_host_find: the host called name, added if new (NULL: out of
 * memory) */
static struct clocks_host *clocks_host_find(struct clocks_input *in, const char *name)
{
	struct clocks_host *h;

	for (size_t i = 0; i < in->nhosts; i++)
		if (strcmp(in->hosts[i].name, name) == 0)
			return &in->hosts[i];
	if (clocks_grow((void **)&in->hosts, &in->caphosts, in->nhosts, sizeof(*in->hosts)) == -1)
		return NULL;
	h = &in->hosts[in->nhosts++];
	memset(h, 0, sizeof(*h));
	snprintf(h->name, sizeof(h->name), "%s", name);
	h->probes = 0;
	return h;
}

int clocks_hosts_lab_up(struct clocks_input *in, const struct clocks_line *l)
{
	json_t *v = json_object_get(l->obj, "hosts"), *o;
	const char *node;

	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_object(v))
		return clocks_line_fail(l, "has no object in", "hosts");
	json_object_foreach(v, node, o)
	{
		struct clocks_node_host *nh;
		struct clocks_host *h;

		if (strlen(node) == 0 || strlen(node) >= CLOCKS_NAME_MAX || !json_is_string(o) ||
		    json_string_length(o) == 0 || json_string_length(o) >= CLOCKS_NAME_MAX)
			return clocks_line_fail(l, "has an entry that is not NODE: HOST in",
						"hosts");
		if ((h = clocks_host_find(in, json_string_value(o))) == NULL ||
		    clocks_grow((void **)&in->node_hosts, &in->capnode_hosts, in->nnode_hosts,
				sizeof(*in->node_hosts)) == -1)
			return clocks_line_fail(l, "cannot be stored:", "out of memory");
		nh = &in->node_hosts[in->nnode_hosts++];
		snprintf(nh->node, sizeof(nh->node), "%s", node);
		nh->host = (size_t)(h - in->hosts);
	}
	return 0;
}

int clocks_host_clock_event(struct clocks_input *in, const struct clocks_line *l)
{
	char name[CLOCKS_NAME_MAX], ref[CLOCKS_NAME_MAX];
	int64_t offset, unc, probes;
	int has_offset, has_unc, has_probes;
	struct clocks_host *h;

	if (clocks_get_name(l, "host", name) == -1 || clocks_get_name(l, "reference", ref) == -1 ||
	    clocks_get_opt_int(l, "offset_ns", &offset, &has_offset) == -1 ||
	    clocks_get_opt_int(l, "uncertainty_ns", &unc, &has_unc) == -1 ||
	    clocks_get_opt_int(l, "probes", &probes, &has_probes) == -1)
		return -1;
	if (has_offset != has_unc || (has_unc && unc < 0))
		return clocks_line_fail(l,
					"has no uncertainty (integer >= 0, null with offset_ns) in",
					"uncertainty_ns");
	if (strcmp(name, ref) == 0)
		return clocks_line_fail(l, "measures a host against itself in", "reference");
	if ((h = clocks_host_find(in, ref)) == NULL)
		return clocks_line_fail(l, "cannot be stored:", "out of memory");
	h->reference = h->measured = h->said = 1;
	h->offset_ns = h->uncertainty_ns = 0;
	h->probes = -1;
	if ((h = clocks_host_find(in, name)) == NULL)
		return clocks_line_fail(l, "cannot be stored:", "out of memory");
	h->said = 1;
	h->measured = has_offset;
	h->offset_ns = has_offset ? offset : 0;
	h->uncertainty_ns = has_offset ? unc : 0;
	h->probes = has_probes ? probes : 0;
	return 0;
}

int clocks_hosts_capture_ready(struct clocks_input *in, const struct clocks_line *l)
{
	json_t *v = json_object_get(l->obj, "label");
	struct clocks_label_node *ln;

	/* a run of one host needs no label's node */
	if (!clocks_multi_host(in) || !json_is_string(v) ||
	    json_string_length(v) >= CLOCKS_NAME_MAX || strlen(l->node) >= CLOCKS_NAME_MAX)
		return 0;
	if (clocks_grow((void **)&in->label_nodes, &in->caplabel_nodes, in->nlabel_nodes,
			sizeof(*in->label_nodes)) == -1)
		return clocks_line_fail(l, "cannot be stored:", "out of memory");
	ln = &in->label_nodes[in->nlabel_nodes++];
	snprintf(ln->label, sizeof(ln->label), "%s", json_string_value(v));
	snprintf(ln->node, sizeof(ln->node), "%s", l->node);
	return 0;
}

int clocks_multi_host(const struct clocks_input *in)
{
	return in->nhosts > 1;
}

const struct clocks_host *clocks_node_host(const struct clocks_input *in, const char *node)
{
	for (size_t i = 0; i < in->nnode_hosts; i++)
		if (strcmp(in->node_hosts[i].node, node) == 0)
			return &in->hosts[in->node_hosts[i].host];
	return NULL;
}

int64_t clocks_node_offset(const struct clocks_input *in, const char *node)
{
	const struct clocks_host *h = clocks_node_host(in, node);

	return h && h->measured ? h->offset_ns : 0;
}

/* clocks_label_node: the node whose collector captured label, or NULL */
static const char *clocks_label_node(const struct clocks_input *in, const char *label)
{
	for (size_t i = 0; i < in->nlabel_nodes; i++)
		if (strcmp(in->label_nodes[i].label, label) == 0)
			return in->label_nodes[i].node;
	return NULL;
}

int64_t clocks_label_offset(const struct clocks_input *in, const char *label)
{
	const char *node = clocks_label_node(in, label);

	return node ? clocks_node_offset(in, node) : 0;
}

int64_t clocks_hosts_max_uncertainty(const struct clocks_input *in)
{
	int64_t u = 0;

	for (size_t i = 0; i < in->nhosts; i++)
		if (in->hosts[i].uncertainty_ns > u)
			u = in->hosts[i].uncertainty_ns;
	return u;
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
	const struct clocks_host *h;
	int64_t u;

	if (t_ns != s->at_ns)
		return;
	h = clocks_node_host(s->in, node);
	/* a node of no host is on the reference (the lab's own events) */
	u = h ? h->uncertainty_ns : 0;
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

void clocks_hosts_uncertainty(const struct clocks_input *in, struct clocks_result *r)
{
	const char *node;
	const struct clocks_host *h;
	int64_t u;

	if (!clocks_multi_host(in) || in->steady)
		return;
	if (r->detect_at_ns != CLOCKS_NONE)
		r->u_detect_ns = clocks_u_detect(in, r->detect_at_ns);
	if (r->steer_at_ns != CLOCKS_NONE)
		r->u_steer_ns = clocks_u_steer(in, r->steer_at_ns);
	/* the window and the last packets: the dead site's capture */
	node = clocks_label_node(in, in->failure.site);
	h = node ? clocks_node_host(in, node) : NULL;
	u = h ? h->uncertainty_ns : node ? 0 : clocks_hosts_max_uncertainty(in);
	if (r->window_ns != CLOCKS_NONE)
		r->u_window_ns = u;
	if (r->last_packet.n > 0 && r->last_packet.max_ns != CLOCKS_NONE)
		r->u_last_packet_ns = u;
}

/* the main clocks and their uncertainties, in the order of clocks.json */
struct clocks_u_clock {
	const char *name;
	int64_t ns, u_ns;
};

static int clocks_u_clocks(const struct clocks_result *r, struct clocks_u_clock *c)
{
	int n = 0;

	c[n++] = (struct clocks_u_clock){"detect", r->detect_ns, r->u_detect_ns};
	c[n++] = (struct clocks_u_clock){"steer", r->steer_ns, r->u_steer_ns};
	c[n++] = (struct clocks_u_clock){"window", r->window_ns, r->u_window_ns};
	c[n++] = (struct clocks_u_clock){"last_packet", r->last_packet.max_ns, r->u_last_packet_ns};
	return n;
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
	struct clocks_u_clock c[4];
	int n = clocks_u_clocks(r, c);
	json_t *o = json_object();

	for (int k = 0; k < n; k++)
		if (c[k].u_ns != CLOCKS_NONE)
			json_object_set_new(o, c[k].name, json_real((double)c[k].u_ns / 1e9));
	if (json_object_size(o) == 0) {
		json_decref(o);
		return NULL;
	}
	return o;
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
	for (int i = 0; i < nres; i++) {
		struct clocks_u_clock c[4];
		int n = clocks_u_clocks(&res[i], c);

		if (res[i].noflows)
			continue;
		for (int k = 0; k < n; k++)
			if (c[k].u_ns != CLOCKS_NONE && c[k].ns != CLOCKS_NONE && c[k].u_ns > 0 &&
			    clocksync_too_uncertain(c[k].u_ns, c[k].ns, CLOCKS_SYNC_SHARE))
				clocks_invalid(
				    v, "clock_sync_uncertain",
				    "%s: %s %.6f s ± %.3f ms: its stamp's host's clock is known "
				    "to %.3f ms only, more than %.0f %% of the clock",
				    res[i].scheme, c[k].name, (double)c[k].ns / 1e9,
				    (double)c[k].u_ns / 1e6, (double)c[k].u_ns / 1e6,
				    CLOCKS_SYNC_SHARE * 100);
	}
}
