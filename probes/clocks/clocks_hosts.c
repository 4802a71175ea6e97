/* A lab over several hosts: lab_up's hosts, the host_clock events, the
 * capture labels' collectors, and the offsets they give (clocks_hosts.h;
 * docs/clocks.md, "Several hosts"); the uncertainty each clock carries is
 * clocks_hosts_u.c's. */
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

const char *clocks_label_node(const struct clocks_input *in, const char *label)
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
