/*
 * The timeline's DNS changes (topology.h, docs/topology.md, "DNS changes"):
 * set-ttl, set-weight, add-record and remove-record, each sent by the lab to
 * a [dns] node's authd as one CHANGE line (lib/zone_change.h).
 *
 * Each action takes its own keys and no other: set-ttl a name and a ttl,
 * set-weight a name, a site and a weight, add-record and remove-record a
 * name and a record. The target is the [dns] node serving the zone the
 * name is in; `target` may name it, and must when several serve the zone
 * (one event per server, as an operator updates each). What only authd
 * knows -- a [name]'s policy, a record's data, a record there to remove --
 * is checked by authd's own code at `check` (lab/build/dnsconf.c), the
 * timeline's changes applied in order as authd will apply them.
 */
#include "topology_int.h"

#include <stdio.h>
#include <string.h>

#include "timeutil.h"
#include "zone_change.h"

/* the keys each DNS change takes, by action (TOPO_A_SET_TTL on) */
static const struct {
	int action;
	unsigned keys; /* 1 << TOPO_EV_* */
	const char *list;
} topo_dnsev_keys[] = {
    {TOPO_A_SET_TTL, 1u << TOPO_EV_NAME | 1u << TOPO_EV_TTL, "name and ttl"},
    {TOPO_A_SET_WEIGHT, 1u << TOPO_EV_NAME | 1u << TOPO_EV_SITE | 1u << TOPO_EV_WEIGHT,
     "name, site and weight"},
    {TOPO_A_ADD_RECORD, 1u << TOPO_EV_NAME | 1u << TOPO_EV_RECORD, "name and record"},
    {TOPO_A_REMOVE_RECORD, 1u << TOPO_EV_NAME | 1u << TOPO_EV_RECORD, "name and record"},
};

static const char *const topo_dnsev_key_names[] = {
    [TOPO_EV_NAME] = "name",	 [TOPO_EV_TTL] = "ttl",	      [TOPO_EV_SITE] = "site",
    [TOPO_EV_WEIGHT] = "weight", [TOPO_EV_RECORD] = "record",
};

static const char *const topo_dnsev_expected[] = {
    [TOPO_EV_NAME] = "the DNS name it changes, such as www.lab.example",
    [TOPO_EV_TTL] = "the new TTL, in whole seconds, such as 1s",
    [TOPO_EV_SITE] = "the [site] whose weight changes",
    [TOPO_EV_WEIGHT] = "the site's new weight, 0 (handed out to no one) to 1000000",
    [TOPO_EV_RECORD] = "the record: [TTL] TYPE DATA for add-record (A 198.19.9.1), TYPE "
		       "[DATA] for remove-record",
};

int topo_event_dns(int action)
{
	return action == TOPO_A_SET_TTL || action == TOPO_A_SET_WEIGHT ||
	       action == TOPO_A_ADD_RECORD || action == TOPO_A_REMOVE_RECORD;
}

/* topo_dnsev_where: where event ev's key k was set, else its header */
static int topo_dnsev_where(const struct topo_parse *p, int ev, int k)
{
	return p->evm[ev].where[k] ? p->evm[ev].where[k] : p->t->events[ev].line;
}

/* topo_dnsev_takes: the keys action takes (0: not a DNS change), and
 * their list in words */
static unsigned topo_dnsev_takes(int action, const char **list)
{
	for (size_t i = 0; i < sizeof(topo_dnsev_keys) / sizeof(topo_dnsev_keys[0]); i++)
		if (topo_dnsev_keys[i].action == action) {
			*list = topo_dnsev_keys[i].list;
			return topo_dnsev_keys[i].keys;
		}
	*list = "";
	return 0;
}

int topo_dnsev_check(struct topo_parse *p, int ev)
{
	struct topo_event *e = &p->t->events[ev];
	const struct topo_ev_meta *m = &p->evm[ev];
	const char *list;
	unsigned takes = topo_dnsev_takes(e->action, &list);
	char ttl[32];
	int rc = 0;

	if (e->action < 0)
		return 0; /* said */
	for (int k = TOPO_EV_NAME; k <= TOPO_EV_RECORD; k++) {
		if (m->where[k] && !(takes & 1u << k)) {
			if (takes)
				topo_error(p, m->where[k], "[event %s] %s: %s takes %s, not %s",
					   e->name, topo_dnsev_key_names[k],
					   topo_action_name(e->action), list,
					   topo_dnsev_key_names[k]);
			else
				topo_error(p, m->where[k],
					   "[event %s] %s: only a DNS change takes it (set-ttl, "
					   "set-weight, add-record, remove-record; action is %s)",
					   e->name, topo_dnsev_key_names[k],
					   topo_action_name(e->action));
			rc = -1;
		} else if (!m->where[k] && !m->bad[k] && (takes & 1u << k)) {
			topo_error(p, e->line, "[event %s] %s: missing: %s takes it: expected %s",
				   e->name, topo_dnsev_key_names[k], topo_action_name(e->action),
				   topo_dnsev_expected[k]);
			rc = -1;
		}
	}
	if (m->where[TOPO_EV_TTL] && (takes & 1u << TOPO_EV_TTL) &&
	    e->dns_ttl_ns % NSEC_PER_SEC != 0) {
		topo_error(p, m->where[TOPO_EV_TTL],
			   "[event %s] ttl: expected whole seconds (a DNS TTL), such as 1s or 30s, "
			   "got %s",
			   e->name, topo_format_duration(e->dns_ttl_ns, ttl, sizeof(ttl)));
		rc = -1;
	}
	return rc;
}

/* topo_dnsev_named: a [name] section of that name, or -1 */
static int topo_dnsev_named(const struct topology *t, const char *name)
{
	char want[TOPO_DNS_NAME_MAX + 2], have[TOPO_DNS_NAME_MAX + 2];

	topo_zone_norm(name, want);
	for (int s = 0; s < t->nraw_sections; s++) {
		if (strcmp(t->raw_sections[s].kind, "name") != 0)
			continue;
		topo_zone_norm(t->raw_sections[s].name, have);
		if (strcmp(want, have) == 0)
			return s;
	}
	return -1;
}

/* topo_dnsev_servers: the [dns] nodes serving zone z, by name ("ns1,
 * ns2"), into buf; their number, the first into *first */
static int topo_dnsev_servers(const struct topology *t, int z, int *first, char *buf, size_t len)
{
	size_t used = 0;
	int n = 0;

	buf[0] = '\0';
	for (int i = 0; i < t->nnodes; i++) {
		if (!topo_dns_serves(t, i, z))
			continue;
		if (n++ == 0)
			*first = i;
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", n > 1 ? ", " : "",
						 t->nodes[i].name);
	}
	return n;
}

int topo_dnsev_resolve(struct topo_parse *p, int ev)
{
	struct topology *t = p->t;
	struct topo_event *e = &t->events[ev];
	const struct topo_ev_meta *m = &p->evm[ev];
	int where = topo_dnsev_where(p, ev, TOPO_EV_NAME), z, n, first = -1, x;
	const char *zone;
	char servers[256];

	e->node = e->link = e->rlink = -1;
	if (!m->where[TOPO_EV_NAME])
		return -1; /* said */
	if ((z = topo_name_zone(t, e->dns_name)) < 0) {
		topo_error(p, where,
			   "[event %s] name: %s is in no [zone] of the lab: expected a name of "
			   "one",
			   e->name, e->dns_name);
		return -1;
	}
	zone = t->raw_sections[z].apex;
	if ((e->action == TOPO_A_SET_TTL || e->action == TOPO_A_SET_WEIGHT) &&
	    topo_dnsev_named(t, e->dns_name) < 0) {
		topo_error(p, where,
			   "[event %s] name: no [name %s] section: %s changes a steered name's",
			   e->name, e->dns_name, topo_action_name(e->action));
		return -1;
	}
	if (e->action == TOPO_A_SET_WEIGHT && m->where[TOPO_EV_SITE] &&
	    ((x = topo_find(t, e->dns_site)) < 0 || t->nodes[x].kind != TOPO_SITE)) {
		topo_error(p, m->where[TOPO_EV_SITE], "[event %s] site: no [site] named '%s'",
			   e->name, e->dns_site);
		return -1;
	}
	n = topo_dnsev_servers(t, z, &first, servers, sizeof(servers));
	if (m->target[0]) {
		where = topo_dnsev_where(p, ev, TOPO_EV_TARGET);
		if (strchr(m->target, ' ') || (x = topo_find(t, m->target)) < 0 ||
		    t->nodes[x].kind != TOPO_DNS) {
			topo_error(p, where, "[event %s] target: %s acts on a [dns] node, got '%s'",
				   e->name, topo_action_name(e->action), m->target);
			return -1;
		}
		if (!topo_dns_serves(t, x, z)) {
			topo_error(p, where,
				   "[event %s] target: %s does not serve zone %s (%s): expected %s",
				   e->name, m->target, zone, e->dns_name,
				   n ? servers : "a [dns] node with that zone");
			return -1;
		}
		e->node = x;
		return 0;
	}
	if (n != 1) {
		topo_error(p, e->line,
			   n ? "[event %s]: zone %s (of %s) is served by %s: expected target = one "
			       "of them (an event per server)"
			     : "[event %s]: zone %s (of %s) is served by no [dns] node%s",
			   e->name, zone, e->dns_name, servers);
		return -1;
	}
	e->node = first;
	return 0;
}

void topo_dnsev_print(const struct topo_event *e, FILE *out)
{
	char buf[32];

	if (!topo_event_dns(e->action))
		return;
	fprintf(out, "name = %s\n", e->dns_name);
	if (e->action == TOPO_A_SET_TTL)
		fprintf(out, "ttl = %s\n", topo_format_duration(e->dns_ttl_ns, buf, sizeof(buf)));
	if (e->action == TOPO_A_SET_WEIGHT)
		fprintf(out, "site = %s\nweight = %u\n", e->dns_site, e->dns_weight);
	if (e->action == TOPO_A_ADD_RECORD || e->action == TOPO_A_REMOVE_RECORD)
		fprintf(out, "record = %s\n", e->dns_record);
}

void topo_event_change(const struct topo_event *e, struct zone_change *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->id, sizeof(c->id), "%s", e->name);
	snprintf(c->name, sizeof(c->name), "%s", e->dns_name);
	switch (e->action) {
	case TOPO_A_SET_TTL:
		c->op = ZONE_SET_TTL;
		c->value = (uint32_t)(e->dns_ttl_ns / NSEC_PER_SEC);
		break;
	case TOPO_A_SET_WEIGHT:
		c->op = ZONE_SET_WEIGHT;
		snprintf(c->site, sizeof(c->site), "%s", e->dns_site);
		c->value = e->dns_weight;
		break;
	case TOPO_A_ADD_RECORD:
	case TOPO_A_REMOVE_RECORD:
		c->op = e->action == TOPO_A_ADD_RECORD ? ZONE_ADD_RECORD : ZONE_REMOVE_RECORD;
		snprintf(c->record, sizeof(c->record), "%s", e->dns_record);
		break;
	}
}

const char *topo_event_change_text(const struct topo_event *e, char *buf, size_t len)
{
	char d[32];

	switch (e->action) {
	case TOPO_A_SET_TTL:
		snprintf(buf, len, "%s ttl %s", e->dns_name,
			 topo_format_duration(e->dns_ttl_ns, d, sizeof(d)));
		break;
	case TOPO_A_SET_WEIGHT:
		snprintf(buf, len, "%s %s weight %u", e->dns_name, e->dns_site, e->dns_weight);
		break;
	case TOPO_A_ADD_RECORD:
	case TOPO_A_REMOVE_RECORD:
		snprintf(buf, len, "%s %s", e->dns_name, e->dns_record);
		break;
	default:
		snprintf(buf, len, "-");
	}
	return buf;
}
