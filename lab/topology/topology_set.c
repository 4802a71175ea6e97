/*
 * One key's value set into the topology, for the parser (topology.c) and
 * the --set overrides (topology_check.c, topo_apply_set): the tables'
 * keys, a [resolver] node's keys that are resolverd's, an [event]'s or a
 * [link]'s. An unknown key is an error naming the keys of its section.
 */
#include "topology.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "timeutil.h"
#include "topology_int.h"

static void topo_unknown_key(struct topo_parse *p, int where, const char *name, const char *label,
			     const struct topo_key *keys, int n, const char *more)
{
	/* every key of the longest table (names of at most 22 characters) and
	 * resolverd's (topo_resolverd_keys) */
	char list[TOPO_KEYS_MAX * 24 + 256] = "";
	size_t used = 0;

	if (n == 0) {
		topo_error(p, where, "unknown key '%s' in %s (a %s takes no keys)", name, label,
			   topo_kind_name(TOPO_ROUTER));
		return;
	}
	for (int i = 0; i < n && used < sizeof(list); i++)
		used +=
		    snprintf(list + used, sizeof(list) - used, "%s%s", i ? ", " : "", keys[i].name);
	if (more && used < sizeof(list))
		snprintf(list + used, sizeof(list) - used, ", %s", more);
	topo_error(p, where, "unknown key '%s' in %s (expected: %s)", name, label, list);
}

/* topo_rsv_pair: one of resolverd's keys in a [resolver] node, kept as
 * written for resolverd's parser, which judges the value. */
static void topo_rsv_pair(struct topo_parse *p, int sect, const char *name, const char *value,
			  int where, const char *label)
{
	struct topology *t = p->t;
	struct topo_rsv_pair *pair;

	if (topo_resolverd_key(name) < 0) {
		topo_error(p, where,
			   "%s %s: the lab writes this one (the upstreams are the [dns] nodes; "
			   "the caches listen on port 53 at the node's addresses)",
			   label, name);
		return;
	}
	if (where < 0) {
		topo_error(p, where,
			   "%s %s: resolverd's keys cannot be overridden (they go to resolverd "
			   "as written)",
			   label, name);
		return;
	}
	for (int i = 0; i < t->nrsv_pairs; i++) {
		if (t->rsv_pairs[i].node == sect && strcmp(t->rsv_pairs[i].key, name) == 0) {
			topo_error(p, where, "%s %s: set twice (first at line %d)", label, name,
				   t->rsv_pairs[i].line);
			return;
		}
	}
	if (strlen(value) >= sizeof(pair->value)) {
		topo_error(p, where, "%s %s: value too long (at most %d characters)", label, name,
			   (int)sizeof(pair->value) - 1);
		return;
	}
	if (t->nrsv_pairs == TOPO_MAX_RSV_PAIRS) {
		if (!(p->raw_full & 4))
			topo_error(p, where,
				   "too many resolverd keys in [resolver] sections (at "
				   "most %d)",
				   TOPO_MAX_RSV_PAIRS);
		p->raw_full |= 4;
		return;
	}
	pair = &t->rsv_pairs[t->nrsv_pairs++];
	pair->node = sect;
	snprintf(pair->key, sizeof(pair->key), "%s", name);
	snprintf(pair->value, sizeof(pair->value), "%s", value);
	pair->line = where;
}

void topo_set(struct topo_parse *p, int sect, const char *name, const char *value, int where)
{
	char label[TOPO_NAME_MAX + 16], why[128];
	const struct topo_key *keys;
	const char *expected;
	int n, i, *wherep;
	char *obj;

	if (strcmp(name, "frr") == 0) {
		topo_frr_line(p, sect, value, where);
		return;
	}
	keys = topo_sect_keys(p, sect, &n);
	topo_label(p, sect, label, sizeof(label));
	for (i = 0; i < n && strcmp(keys[i].name, name) != 0; i++)
		;
	if (i == n && sect >= 0 && p->t->nodes[sect].kind == TOPO_RESOLVER) {
		if (topo_resolverd_key(name) != 0)
			topo_rsv_pair(p, sect, name, value, where, label);
		else
			topo_unknown_key(p, where, name, label, keys, n, topo_resolverd_keys());
		return;
	}
	if (i == n) {
		topo_unknown_key(p, where, name, label, keys, n, NULL);
		return;
	}
	wherep = topo_where(p, sect, i);
	if (where > 0 && *wherep > 0) {
		topo_error(p, where, "%s %s: set twice (first at line %d)", label, name, *wherep);
		return;
	}
	if (keys[i].type == TOPO_T_LINK)
		obj = p->meta[sect].link;
	else if (keys[i].type == TOPO_T_RESOLVER)
		obj = (char *)&p->meta[sect].resolver;
	else if (sect == TOPO_SECT_LAB)
		obj = (char *)p->t + keys[i].off;
	else
		obj = (char *)&p->t->nodes[sect] + keys[i].off;
	expected = topo_parse_value(&keys[i], value, obj, why, sizeof(why));
	*topo_bad(p, sect, i) = expected != NULL;
	if (expected == NULL)
		*wherep = where;
	else if (where > 0)
		topo_error(p, where, "%s %s: %s, got '%s'", label, name, expected, value);
	else
		topo_error(p, where, "%s", expected);
}
