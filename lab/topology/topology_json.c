/* The topology as checked, as JSON (steerlab check --json); see topology.h. */
#include "topology.h"

#include <string.h>

#include "topology_int.h"

/* topo_json_keys: every key of the table (keys, n) with its value as
 * topo_print writes it, base the struct topology or struct topo_node; the
 * link, the resolver and the zones are plan.json's (topo_json) */
static json_t *topo_json_keys(const struct topo_key *keys, int n, const void *base)
{
	json_t *o = json_object();
	char buf[TOPO_TARGET_SHARE_LEN];

	for (int k = 0; o && k < n; k++) {
		const char *src = (const char *)base + keys[k].off;

		if (keys[k].type == TOPO_T_LINK || keys[k].type == TOPO_T_RESOLVER ||
		    keys[k].type == TOPO_T_ZONES ||
		    (keys[k].type == TOPO_T_LOCATION && !((const struct topo_location *)src)->set))
			continue;
		json_object_set_new(
		    o, keys[k].name,
		    json_string(topo_format_value(&keys[k], src, buf, sizeof(buf))));
	}
	return o;
}

json_t *topo_json(const struct topology *t)
{
	json_t *o = planjson_build(t), *nodes, *keys;
	const struct topo_key *table;
	int n;

	if (o == NULL)
		return NULL;
	table = topo_keys(-1, &n);
	json_object_set_new(o, "file", json_string(t->path));
	json_object_set_new(o, "lab_keys", topo_json_keys(table, n, t));
	nodes = json_object_get(o, "nodes");
	for (size_t i = 0; i < json_array_size(nodes) && i < (size_t)t->nnodes; i++) {
		const struct topo_node *node = &t->nodes[i];

		table = topo_keys((int)node->kind, &n);
		keys = topo_json_keys(table, n, node);
		json_object_set_new(json_array_get(nodes, i), "keys", keys);
	}
	return o;
}
