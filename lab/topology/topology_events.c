/*
 * The timeline of a topology: [event NAME] sections, their checks, and the
 * fail = yes shorthand desugared into one kill (topology.h, docs/topology.md).
 *
 * An event is `at` (from the traffic's start), an `action` and a `target`:
 * a node, or a link named by its two ends in either order ("a core",
 * "r1 r2"). A non-router node has one link, so a link action may name the
 * node alone. Targets are resolved once the whole file and the --set
 * overrides are in; then the timeline is sorted by at (file order among
 * equals) and walked once per target: a failing action on a target that is
 * already out, a recover with nothing to recover, or anything during a flap
 * of the same target is refused at the line that caused it.
 */
#include "topology_int.h"

#include <stdlib.h>
#include <string.h>

#include "timeutil.h"
#include "zone_change.h"

#define EV(f) offsetof(struct topo_event, f)
#define TOPO_FLAP_PERIOD_MIN (20 * NSEC_PER_MSEC)

static const char *const topo_ev_family_words[] = {"both", "4", "6", NULL}; /* topo_ev_family */

static const struct topo_key topo_event_keys[TOPO_EV_KEYS] = {
    {"at", TOPO_T_DURATION, EV(at_ns), 0, 0, -1, NULL},
    {"action", TOPO_T_NAME, 0, 0, 0, -1, NULL},
    {"target", TOPO_T_NAME, 0, 0, 0, -1, NULL},
    {"count", TOPO_T_UINT, EV(count), 1, 1000, -1, NULL},
    {"period", TOPO_T_DURATION, EV(period_ns), 1, 0, -1, NULL},
    {"instance", TOPO_T_UINT, EV(instance), 1, TOPO_RESOLVER_COUNT_MAX, -1, NULL},
    {"name", TOPO_T_DNAME, EV(dns_name), 0, 0, -1, NULL},
    {"ttl", TOPO_T_DURATION, EV(dns_ttl_ns), 0, 0, -1, NULL},
    {"site", TOPO_T_NAME, EV(dns_site), 0, 0, -1, NULL},
    {"weight", TOPO_T_UINT, EV(dns_weight), 0, ZONE_CHANGE_WEIGHT_MAX, -1, NULL},
    {"record", TOPO_T_TEXT, EV(dns_record), 0, 0, -1, NULL},
    {"family", TOPO_T_CHOICE, EV(family), 0, 0, -1, topo_ev_family_words},
};

static const char *const topo_action_names[TOPO_A_COUNT] = {
    "kill",    "crash",	     "freeze",	   "drain",	    "undrain",	   "link-down",
    "link-up", "dns-down",   "dns-up",	   "resolver-down", "resolver-up", "recover",
    "flap",    "impair",     "degrade",	   "undegrade",	    "slow",	   "unslow",
    "set-ttl", "set-weight", "add-record", "remove-record", "icmp-down",   "icmp-up"};

#define TOPO_ACTIONS                                                                               \
	"kill, crash, freeze, drain, undrain, degrade, undegrade, slow, unslow, link-down, "       \
	"link-up, dns-down, dns-up, resolver-down, resolver-up, recover, flap, impair, set-ttl, "  \
	"set-weight, add-record, remove-record, icmp-down or icmp-up"

const char *topo_action_name(int action)
{
	return action >= 0 && action < TOPO_A_COUNT ? topo_action_names[action] : "?";
}

static int topo_action_find(const char *s)
{
	for (int i = 0; i < TOPO_A_COUNT; i++)
		if (strcmp(s, topo_action_names[i]) == 0)
			return i;
	return -1;
}

int topo_event_failing(int action)
{
	switch (action) {
	case TOPO_A_KILL:
	case TOPO_A_CRASH:
	case TOPO_A_FREEZE:
	case TOPO_A_DRAIN:
	case TOPO_A_DEGRADE:
	case TOPO_A_SLOW:
	case TOPO_A_LINK_DOWN:
	case TOPO_A_DNS_DOWN:
	case TOPO_A_RESOLVER_DOWN:
	case TOPO_A_ICMP_DOWN:
	case TOPO_A_FLAP:
		return 1;
	}
	return 0;
}

/* topo_action_up: the action an *-up undoes (link-up: link-down), or -1. */
static int topo_action_up(int action)
{
	switch (action) {
	case TOPO_A_UNDRAIN:
		return TOPO_A_DRAIN;
	case TOPO_A_UNDEGRADE:
		return TOPO_A_DEGRADE;
	case TOPO_A_UNSLOW:
		return TOPO_A_SLOW;
	case TOPO_A_LINK_UP:
		return TOPO_A_LINK_DOWN;
	case TOPO_A_DNS_UP:
		return TOPO_A_DNS_DOWN;
	case TOPO_A_RESOLVER_UP:
		return TOPO_A_RESOLVER_DOWN;
	case TOPO_A_ICMP_UP:
		return TOPO_A_ICMP_DOWN;
	}
	return -1;
}

int topo_find_event(const struct topology *t, const char *name)
{
	for (int i = 0; i < t->nevents; i++)
		if (strcmp(t->events[i].name, name) == 0)
			return i;
	return -1;
}

const char *topo_event_target(const struct topology *t, const struct topo_event *e, char *buf,
			      size_t len)
{
	if (e->node >= 0)
		snprintf(buf, len, "%s", t->nodes[e->node].name);
	else if (e->link >= 0)
		snprintf(buf, len, "%s %s", t->nodes[t->links[e->link].node].name,
			 t->nodes[t->links[e->link].router].name);
	else if (e->rlink >= 0)
		snprintf(buf, len, "%s %s", t->nodes[t->rlinks[e->rlink].a].name,
			 t->nodes[t->rlinks[e->rlink].b].name);
	else
		snprintf(buf, len, "?");
	return buf;
}

void topo_event_header(struct topo_parse *p, const char *name, const char *extra)
{
	struct topology *t = p->t;
	struct topo_event *e;
	int other;

	if (name == NULL || extra) {
		topo_error(p, p->in.lineno, "expected one name: [event NAME]");
		return;
	}
	if (topo_check_name(name) < 0) {
		topo_error(p, p->in.lineno, "[event %s]: %s, got '%s'", name, TOPO_NAME_RULE, name);
		return;
	}
	if ((other = topo_find_event(t, name)) >= 0) {
		topo_error(p, p->in.lineno, "duplicate event name '%s' (first defined at line %d)",
			   name, t->events[other].line);
		return;
	}
	if (t->nevents == TOPO_MAX_EVENTS) {
		topo_error(p, p->in.lineno, "too many [event] sections (at most %d)",
			   TOPO_MAX_EVENTS);
		return;
	}
	e = &t->events[t->nevents];
	memset(e, 0, sizeof(*e));
	memset(&p->evm[t->nevents], 0, sizeof(p->evm[0]));
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->line = p->in.lineno;
	e->action = -1;
	e->node = e->link = e->rlink = e->undoes = -1;
	e->count = 3;
	e->period_ns = NSEC_PER_SEC;
	p->event = t->nevents++;
	p->sect = TOPO_SECT_EVENT;
}

static int topo_event_where(const struct topo_parse *p, int ev, int k);

/* topo_event_impair_key: an impairment key of event ev, kept as written
 * until its target is known (topo_event_impair); a --set replaces the
 * file's */
static void topo_event_impair_key(struct topo_parse *p, int ev, const char *key, const char *value,
				  int where)
{
	struct topo_ev_meta *m = &p->evm[ev];
	int i;

	for (i = 0; i < m->nik && strcmp(m->ik[i].key, key) != 0; i++)
		;
	if (i < m->nik && where > 0 && m->ik[i].where > 0) {
		topo_error(p, where, "[event %s] %s: set twice (first at line %d)",
			   p->t->events[ev].name, key, m->ik[i].where);
		return;
	}
	if (i == m->nik && m->nik == TOPO_EV_IMPAIR_KEYS) {
		topo_error(p, where, "[event %s] %s: too many impairment keys (at most %d)",
			   p->t->events[ev].name, key, TOPO_EV_IMPAIR_KEYS);
		return;
	}
	if (strlen(key) >= sizeof(m->ik[0].key) || strlen(value) >= sizeof(m->ik[0].value)) {
		topo_error(p, where,
			   "[event %s] %s: expected a key of at most %zu and a value of at most "
			   "%zu characters",
			   p->t->events[ev].name, key, sizeof(m->ik[0].key) - 1,
			   sizeof(m->ik[0].value) - 1);
		return;
	}
	if (i == m->nik)
		m->nik++;
	snprintf(m->ik[i].key, sizeof(m->ik[i].key), "%s", key);
	snprintf(m->ik[i].value, sizeof(m->ik[i].value), "%s", value);
	m->ik[i].where = where;
}

/* topo_event_impair: event ev's impairment keys into its im and imset,
 * now that its link is known: both directions first, then each one's own,
 * as in [link]. An impair takes at least one key, and only an impair
 * takes them. 0, or -1 (said). */
static int topo_event_impair(struct topo_parse *p, int ev)
{
	struct topology *t = p->t;
	struct topo_event *e = &t->events[ev];
	const struct topo_ev_meta *m = &p->evm[ev];
	const struct impair *base[2];
	const char *from[2], *ifname[2];
	int node[2], rc = 0;
	char why[256];

	if (e->action == TOPO_A_SLOW) {
		/* one key, delay: how late sited answers */
		for (int i = 0; i < m->nik; i++) {
			if (strcmp(m->ik[i].key, "delay") != 0 ||
			    parse_duration_ns(m->ik[i].value, &e->slow_ns) == -1 ||
			    e->slow_ns <= 0 || e->slow_ns > 3600 * NSEC_PER_SEC) {
				topo_error(p, m->ik[i].where,
					   "[event %s] %s: slow takes delay alone, a duration from "
					   "1us to 1h (how late sited answers), got %s = %s",
					   e->name, m->ik[i].key, m->ik[i].key, m->ik[i].value);
				rc = -1;
			}
		}
		if (m->nik == 0) {
			topo_error(
			    p, topo_event_where(p, ev, TOPO_EV_ACTION),
			    "[event %s]: slow takes delay = DURATION (how late sited answers "
			    "each request), got none",
			    e->name);
			rc = -1;
		}
		return rc;
	}
	if (e->action != TOPO_A_IMPAIR) {
		for (int i = 0; i < m->nik; i++) {
			topo_error(p, m->ik[i].where,
				   "[event %s] %s: only an impair takes it (action is %s)", e->name,
				   m->ik[i].key, topo_action_name(e->action));
			rc = -1;
		}
		return rc;
	}
	if (m->nik == 0) {
		topo_error(p, topo_event_where(p, ev, TOPO_EV_ACTION),
			   "[event %s]: impair takes the new values as keys (delay, jitter, loss, "
			   "duplicate, reorder, rate; A>B.KEY for one direction), got none",
			   e->name);
		return -1;
	}
	topo_link_dirs(t, e->link, e->rlink, node, ifname, base);
	from[0] = t->nodes[node[0]].name;
	from[1] = t->nodes[node[1]].name;
	memset(e->im, 0, sizeof(e->im));
	e->imset[0] = e->imset[1] = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < m->nik; i++) {
			if ((strchr(m->ik[i].key, '.') != NULL) != pass)
				continue;
			if (topo_impair_change(from, m->ik[i].key, m->ik[i].value, e->im, e->imset,
					       why, sizeof(why)) == -1) {
				topo_error(p, m->ik[i].where, "[event %s] %s", e->name, why);
				rc = -1;
			}
		}
	}
	return rc;
}

void topo_event_set(struct topo_parse *p, int ev, const char *key, const char *value, int where)
{
	struct topo_event *e = &p->t->events[ev];
	struct topo_ev_meta *m = &p->evm[ev];
	const char *expected;
	char why[128];
	int k, a;

	for (k = 0; k < TOPO_EV_KEYS && strcmp(topo_event_keys[k].name, key) != 0; k++)
		;
	if (k == TOPO_EV_KEYS && topo_impair_key(key)) {
		topo_event_impair_key(p, ev, key, value, where);
		return;
	}
	if (k == TOPO_EV_KEYS) {
		topo_error(p, where,
			   "unknown key '%s' in [event %s] (expected: at, action, target, count, "
			   "period, instance, family; with action = impair: delay, jitter, loss, "
			   "duplicate, reorder, rate; with action = slow: delay; with a DNS "
			   "change: name, ttl, site, weight, record)",
			   key, e->name);
		return;
	}
	if (where > 0 && m->where[k] > 0) {
		topo_error(p, where, "[event %s] %s: set twice (first at line %d)", e->name, key,
			   m->where[k]);
		return;
	}
	if (k == TOPO_EV_ACTION) {
		if ((a = topo_action_find(value)) < 0) {
			m->bad[k] = 1;
			topo_error(p, where, "[event %s] action: expected %s, got '%s'", e->name,
				   TOPO_ACTIONS, value);
			return;
		}
		e->action = a;
	} else if (k == TOPO_EV_TARGET) {
		char copy[sizeof(m->target) + 8], *w1, *w2, *w3, *save = NULL;

		if (strlen(value) >= sizeof(copy)) {
			m->bad[k] = 1;
			topo_error(p, where, "[event %s] target: expected a node or two node names",
				   e->name);
			return;
		}
		snprintf(copy, sizeof(copy), "%s", value);
		w1 = strtok_r(copy, " \t", &save);
		w2 = w1 ? strtok_r(NULL, " \t", &save) : NULL;
		w3 = w2 ? strtok_r(NULL, " \t", &save) : NULL;
		if (w1 == NULL || w3 || topo_check_name(w1) < 0 ||
		    (w2 && topo_check_name(w2) < 0)) {
			m->bad[k] = 1;
			topo_error(p, where,
				   "[event %s] target: expected a node name, or a link as its two "
				   "ends ('a core', 'r1 r2'), got '%s'",
				   e->name, value);
			return;
		}
		snprintf(m->target, sizeof(m->target), "%s%s%s", w1, w2 ? " " : "", w2 ? w2 : "");
	} else {
		expected = topo_parse_value(&topo_event_keys[k], value,
					    (char *)e + topo_event_keys[k].off, why, sizeof(why));
		if (expected) {
			m->bad[k] = 1;
			if (where > 0)
				topo_error(p, where, "[event %s] %s: %s, got '%s'", e->name, key,
					   expected, value);
			else
				topo_error(p, where, "%s", expected);
			return;
		}
	}
	m->where[k] = where;
	m->bad[k] = 0;
}

/* topo_event_where: where the event's key k was set, else its header */
static int topo_event_where(const struct topo_parse *p, int ev, int k)
{
	return p->evm[ev].where[k] ? p->evm[ev].where[k] : p->t->events[ev].line;
}

/* topo_event_link: the link between nodes x and y (either order): sets
 * e->link or e->rlink. 0, or -1 if there is none. */
static int topo_event_link(const struct topology *t, struct topo_event *e, int x, int y)
{
	for (int i = 0; i < t->nlinks; i++) {
		const struct topo_link *l = &t->links[i];
		if ((l->node == x && l->router == y) || (l->node == y && l->router == x)) {
			e->link = i;
			return 0;
		}
	}
	for (int i = 0; i < t->nrlinks; i++) {
		const struct topo_rlink *l = &t->rlinks[i];
		if ((l->a == x && l->b == y) || (l->a == y && l->b == x)) {
			e->rlink = i;
			return 0;
		}
	}
	return -1;
}

/* topo_event_resolve: the target of event ev, of the right kind for its
 * action. 0, or -1 (said). */
static int topo_event_resolve(struct topo_parse *p, int ev)
{
	struct topology *t = p->t;
	struct topo_event *e = &t->events[ev];
	char copy[sizeof(p->evm[0].target)], *sp;
	int where = topo_event_where(p, ev, TOPO_EV_TARGET), x, y = -1, link;
	int a = e->action;

	e->node = e->link = e->rlink = -1;
	snprintf(copy, sizeof(copy), "%s", p->evm[ev].target);
	if ((sp = strchr(copy, ' ')) != NULL)
		*sp++ = '\0';
	if ((x = topo_find(t, copy)) < 0 || (sp && (y = topo_find(t, sp)) < 0)) {
		topo_error(p, where, "[event %s] target: no node named '%s'", e->name,
			   x < 0 ? copy : sp);
		return -1;
	}
	link = a == TOPO_A_LINK_DOWN || a == TOPO_A_LINK_UP || a == TOPO_A_IMPAIR;
	if (sp) {
		if (!link && a != TOPO_A_FLAP && a != TOPO_A_RECOVER) {
			topo_error(p, where,
				   "[event %s] target: %s acts on a node, got the link '%s %s'",
				   e->name, topo_action_name(a), copy, sp);
			return -1;
		}
		if (topo_event_link(t, e, x, y) == -1) {
			topo_error(p, where,
				   "[event %s] target: no link between '%s' and '%s' (a node's "
				   "link = ROUTER, or a [link %s %s] section)",
				   e->name, copy, sp, copy, sp);
			return -1;
		}
		return 0;
	}
	/* a node; a link action on a non-router node means its one link */
	if (link && t->nodes[x].kind != TOPO_ROUTER && t->nodes[x].link >= 0) {
		e->link = t->nodes[x].link;
		return 0;
	}
	e->node = x;
	enum topo_kind want = TOPO_SITE;
	const char *what = "a [site]";
	switch (a) {
	case TOPO_A_LINK_DOWN:
	case TOPO_A_LINK_UP:
	case TOPO_A_IMPAIR:
		topo_error(p, where,
			   "[event %s] target: %s acts on a link ('%s ROUTER', or two routers), "
			   "and router '%s' has several",
			   e->name, topo_action_name(a), copy, copy);
		return -1;
	case TOPO_A_DNS_DOWN:
	case TOPO_A_DNS_UP:
		want = TOPO_DNS;
		what = "a [dns] node";
		break;
	case TOPO_A_RESOLVER_DOWN:
	case TOPO_A_RESOLVER_UP:
	case TOPO_A_ICMP_DOWN:
	case TOPO_A_ICMP_UP:
		want = TOPO_RESOLVER;
		what = "a [resolver] node";
		break;
	case TOPO_A_RECOVER:
		return 0; /* whatever the earlier action acted on */
	case TOPO_A_FLAP:
		what = "a [site] or a link";
		break;
	}
	if (t->nodes[x].kind != want) {
		topo_error(p, where, "[event %s] target: %s acts on %s, and '%s' is a %s", e->name,
			   topo_action_name(a), what, copy, topo_kind_name(t->nodes[x].kind));
		return -1;
	}
	return 0;
}

/* topo_event_key_of: one number per target for the walk */
static int topo_event_key_of(const struct topo_event *e)
{
	if (e->node >= 0)
		return e->node;
	if (e->link >= 0)
		return TOPO_MAX_NODES + e->link;
	return 2 * TOPO_MAX_NODES + e->rlink;
}

/* topo_event_cmp: by at, then file order (the shorthand is at its site's
 * fail line) */
static int topo_event_cmp(const void *a, const void *b, void *arg)
{
	const struct topology *t = arg;
	const struct topo_event *x = &t->events[*(const int *)a], *y = &t->events[*(const int *)b];

	if (x->at_ns != y->at_ns)
		return x->at_ns < y->at_ns ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* topo_event_shorthand: fail = yes on a site and [lab] fail_at: one kill */
static void topo_event_shorthand(struct topo_parse *p)
{
	struct topology *t = p->t;

	for (int i = 0; i < t->nnodes; i++) {
		struct topo_event *e;

		if (t->nodes[i].kind != TOPO_SITE || !t->nodes[i].fail)
			continue;
		if (topo_find_event(t, "fail") >= 0) {
			topo_error(
			    p, p->meta[i].where[TOPO_K_FAIL],
			    "[site %s] fail: its event is called 'fail', and an [event fail] "
			    "exists (line %d): rename that one",
			    t->nodes[i].name, t->events[topo_find_event(t, "fail")].line);
			return;
		}
		if (t->nevents == TOPO_MAX_EVENTS) {
			topo_error(p, p->meta[i].where[TOPO_K_FAIL], "too many events (at most %d)",
				   TOPO_MAX_EVENTS);
			return;
		}
		e = &t->events[t->nevents];
		memset(e, 0, sizeof(*e));
		memset(&p->evm[t->nevents], 0, sizeof(p->evm[0]));
		snprintf(e->name, sizeof(e->name), "fail");
		e->line = p->meta[i].where[TOPO_K_FAIL] > 0 ? p->meta[i].where[TOPO_K_FAIL]
							    : t->nodes[i].line;
		e->shorthand = 1;
		e->at_ns = t->fail_at_ns;
		e->action = TOPO_A_KILL;
		e->node = i;
		e->link = e->rlink = e->undoes = -1;
		p->evm[t->nevents].where[TOPO_EV_AT] = p->lab_where[TOPO_K_FAIL_AT];
		snprintf(p->evm[t->nevents].target, sizeof(p->evm[0].target), "%s",
			 t->nodes[i].name);
		t->nevents++;
		return; /* at most one site has fail = yes (topo_check) */
	}
}

/* topo_event_params: at within the traffic, count/period only for a flap
 * (which must end within it too), instance only for resolver-down */
static int topo_event_params(struct topo_parse *p, int ev)
{
	struct topology *t = p->t;
	struct topo_event *e = &t->events[ev];
	const struct topo_ev_meta *m = &p->evm[ev];
	char d[32], at[32], per[32];
	int rc = 0;

	if (!e->shorthand && t->fail_jitter_ns > 0 && e->at_ns < t->duration_ns &&
	    e->at_ns + t->fail_jitter_ns >= t->duration_ns) {
		topo_error(p, topo_event_where(p, ev, TOPO_EV_AT),
			   "[event %s] at: expected at + [lab] fail_jitter before duration (%s), "
			   "got %s + %s: the event could fall after the traffic ends",
			   e->name, topo_format_duration(t->duration_ns, d, sizeof(d)),
			   topo_format_duration(e->at_ns, at, sizeof(at)),
			   topo_format_duration(t->fail_jitter_ns, per, sizeof(per)));
		rc = -1;
	}
	if (e->at_ns >= t->duration_ns) {
		topo_error(p, topo_event_where(p, ev, TOPO_EV_AT),
			   "[event %s] at: expected less than [lab] duration (%s): the traffic's "
			   "time, got %s",
			   e->name, topo_format_duration(t->duration_ns, d, sizeof(d)),
			   topo_format_duration(e->at_ns, at, sizeof(at)));
		rc = -1;
	}
	if (e->action == TOPO_A_FLAP && e->period_ns < TOPO_FLAP_PERIOD_MIN) {
		topo_error(p, topo_event_where(p, ev, TOPO_EV_PERIOD),
			   "[event %s] period: expected at least %s (a flap's link or sited is "
			   "down half of it), got %s",
			   e->name, topo_format_duration(TOPO_FLAP_PERIOD_MIN, d, sizeof(d)),
			   topo_format_duration(e->period_ns, per, sizeof(per)));
		rc = -1;
	}
	if (e->action != TOPO_A_FLAP) {
		for (int k = TOPO_EV_COUNT; k <= TOPO_EV_PERIOD; k++)
			if (m->where[k]) {
				topo_error(p, m->where[k],
					   "[event %s] %s: only a flap takes it (action is %s)",
					   e->name, topo_event_keys[k].name,
					   topo_action_name(e->action));
				rc = -1;
			}
	} else if (e->at_ns + (int64_t)e->count * e->period_ns > t->duration_ns) {
		topo_error(
		    p, topo_event_where(p, ev, TOPO_EV_COUNT),
		    "[event %s]: a flap of %u cycles of %s from %s ends after [lab] "
		    "duration (%s): expected fewer cycles, a shorter period or an earlier at",
		    e->name, e->count, topo_format_duration(e->period_ns, per, sizeof(per)),
		    topo_format_duration(e->at_ns, at, sizeof(at)),
		    topo_format_duration(t->duration_ns, d, sizeof(d)));
		rc = -1;
	}
	if (m->where[TOPO_EV_FAMILY] && e->family != TOPO_EV_FAMILY_BOTH &&
	    ((e->action != TOPO_A_FREEZE && e->action != TOPO_A_LINK_DOWN &&
	      e->action != TOPO_A_DRAIN) ||
	     t->ip != TOPO_IP_DUAL)) {
		topo_error(p, m->where[TOPO_EV_FAMILY],
			   "[event %s] family: a freeze, a link-down or a drain of one address "
			   "family, in a lab of ip = dual (action is %s%s)",
			   e->name, topo_action_name(e->action),
			   t->ip != TOPO_IP_DUAL ? ", the lab's ip is not dual" : "");
		rc = -1;
	} else if (m->where[TOPO_EV_FAMILY] && e->family != TOPO_EV_FAMILY_BOTH &&
		   e->action == TOPO_A_DRAIN && t->routing != TOPO_ROUTING_BGP) {
		/* the site's prober takes that family's service address off
		 * its lo, which bgpd announces; routed's routes follow one
		 * announcement for both families */
		topo_error(p, m->where[TOPO_EV_FAMILY],
			   "[event %s] family: a drain of one address family withdraws that "
			   "family's announcement: routing = bgp (routed's routes follow one "
			   "announcement for both)",
			   e->name);
		rc = -1;
	}
	if (m->where[TOPO_EV_INSTANCE] && e->action != TOPO_A_RESOLVER_DOWN) {
		topo_error(p, m->where[TOPO_EV_INSTANCE],
			   "[event %s] instance: only resolver-down takes it (action is %s)",
			   e->name, topo_action_name(e->action));
		rc = -1;
	} else if (e->instance && e->node >= 0 && e->instance > t->nodes[e->node].count) {
		topo_error(p, m->where[TOPO_EV_INSTANCE],
			   "[event %s] instance: [resolver %s] has %u cache%s, got %u", e->name,
			   t->nodes[e->node].name, t->nodes[e->node].count,
			   t->nodes[e->node].count == 1 ? "" : "s", e->instance);
		rc = -1;
	}
	return rc;
}

/* topo_event_walk: the sorted timeline, target by target */
static void topo_event_walk(struct topo_parse *p)
{
	struct topology *t = p->t;
	static int out[3 * TOPO_MAX_NODES], busy[3 * TOPO_MAX_NODES];
	static int64_t busy_until[3 * TOPO_MAX_NODES];
	char at[32], tg[32];

	for (int k = 0; k < 3 * TOPO_MAX_NODES; k++)
		out[k] = busy[k] = -1;
	for (int i = 0; i < t->nevents; i++) {
		struct topo_event *e = &t->events[i];
		int key = topo_event_key_of(e), where = topo_event_where(p, i, TOPO_EV_ACTION);

		topo_event_target(t, e, tg, sizeof(tg));
		if (busy[key] >= 0 && e->at_ns < busy_until[key]) {
			topo_error(
			    p, where,
			    "[event %s]: %s of '%s' at %s falls during the flap %s (line %d): "
			    "expected it after the flap's last cycle",
			    e->name, topo_action_name(e->action), tg,
			    topo_format_duration(e->at_ns, at, sizeof(at)),
			    t->events[busy[key]].name, t->events[busy[key]].line);
			continue;
		}
		if (e->action == TOPO_A_IMPAIR || topo_event_dns(e->action))
			continue; /* changes the link or a zone, takes nothing out */
		if (topo_event_failing(e->action)) {
			if (out[key] >= 0) {
				const struct topo_event *o = &t->events[out[key]];
				topo_error(
				    p, where,
				    "[event %s]: %s of '%s' at %s, but %s (line %d) already "
				    "took it out with %s and nothing recovered it: expected a "
				    "recover between them",
				    e->name, topo_action_name(e->action), tg,
				    topo_format_duration(e->at_ns, at, sizeof(at)), o->name,
				    o->line, topo_action_name(o->action));
				continue;
			}
			if (e->action == TOPO_A_FLAP) {
				busy[key] = i;
				busy_until[key] = e->at_ns + (int64_t)e->count * e->period_ns;
			} else {
				out[key] = i;
			}
			continue;
		}
		/* recover, undrain, link-up, dns-up, resolver-up; a node's recover
		 * may bring back its one link */
		int up = topo_action_up(e->action);
		if (e->action == TOPO_A_RECOVER && e->node >= 0 && out[key] < 0 &&
		    t->nodes[e->node].link >= 0 &&
		    out[TOPO_MAX_NODES + t->nodes[e->node].link] >= 0) {
			e->link = t->nodes[e->node].link;
			e->node = -1;
			key = topo_event_key_of(e);
			topo_event_target(t, e, tg, sizeof(tg));
		}
		if (out[key] < 0 || (up >= 0 && t->events[out[key]].action != up)) {
			topo_error(p, where,
				   "[event %s]: %s of '%s' at %s: nothing to %s (expected an "
				   "earlier %s of it without a recover since)",
				   e->name, topo_action_name(e->action), tg,
				   topo_format_duration(e->at_ns, at, sizeof(at)),
				   up >= 0 ? "bring back" : "recover",
				   up >= 0 ? topo_action_name(up)
					   : "kill, crash, freeze, drain, link-down, dns-down, "
					     "resolver-down or icmp-down");
			continue;
		}
		e->undoes = out[key];
		out[key] = -1;
	}
}

void topo_check_events(struct topo_parse *p)
{
	struct topology *t = p->t;
	static struct topo_ev_meta evm[TOPO_MAX_EVENTS];
	static struct topo_event sorted[TOPO_MAX_EVENTS];
	static int order[TOPO_MAX_EVENTS];
	int bad = 0;

	topo_event_shorthand(p);
	for (int i = 0; i < t->nevents; i++) {
		struct topo_event *e = &t->events[i];

		if (topo_find(t, e->name) >= 0) {
			topo_error(p, e->line,
				   "[event %s]: a node has that name (line %d): --set %s.KEY would "
				   "be ambiguous; expected another name",
				   e->name, t->nodes[topo_find(t, e->name)].line, e->name);
			bad = 1;
		}
		if (e->shorthand)
			continue;
		for (int k = TOPO_EV_AT; k <= TOPO_EV_TARGET; k++) {
			/* a DNS change finds its [dns] node by its name's zone */
			if (k == TOPO_EV_TARGET && topo_event_dns(e->action))
				continue;
			if (p->evm[i].where[k] == 0 && !p->evm[i].bad[k]) {
				topo_error(p, e->line, "[event %s] %s: missing: expected %s",
					   e->name, topo_event_keys[k].name,
					   k == TOPO_EV_AT ? "a duration from the traffic's start"
					   : k == TOPO_EV_ACTION
					       ? "one of " TOPO_ACTIONS
					       : "a node, or a link as its two ends");
				bad = 1;
			}
		}
		if (topo_dnsev_check(p, i) == -1)
			bad = 1;
		if (e->action < 0 || p->evm[i].bad[TOPO_EV_TARGET] ||
		    (topo_event_dns(e->action)		    ? topo_dnsev_resolve(p, i)
		     : p->evm[i].where[TOPO_EV_TARGET] == 0 ? -1
							    : topo_event_resolve(p, i)) == -1) {
			bad = 1;
			continue;
		}
		if (topo_event_params(p, i) == -1 || topo_event_impair(p, i) == -1)
			bad = 1;
	}
	if (bad || p->in.nerrors)
		return;
	/* sort, keeping each event's meta with it */
	for (int i = 0; i < t->nevents; i++)
		order[i] = i;
	qsort_r(order, (size_t)t->nevents, sizeof(order[0]), topo_event_cmp, t);
	memcpy(evm, p->evm, sizeof(evm));
	memcpy(sorted, t->events, sizeof(sorted));
	for (int i = 0; i < t->nevents; i++) {
		t->events[i] = sorted[order[i]];
		p->evm[i] = evm[order[i]];
	}
	topo_event_walk(p);
}

const char *topo_event_impair_text(const struct topology *t, const struct topo_event *e,
				   const char *sep, char *buf, size_t len)
{
	const struct impair *base[2];
	const char *from[2], *ifname[2];
	int node[2];

	topo_link_dirs(t, e->link, e->rlink, node, ifname, base);
	from[0] = t->nodes[node[0]].name;
	from[1] = t->nodes[node[1]].name;
	return topo_impair_keys_text(from, e->im, e->imset, sep, buf, len);
}

void topo_print_events(const struct topology *t, FILE *out)
{
	char buf[32], tg[32], keys[512];

	for (int i = 0; i < t->nevents; i++) {
		const struct topo_event *e = &t->events[i];

		if (e->shorthand) /* printed as its site's fail = yes */
			continue;
		fprintf(out, "\n[event %s]\n", e->name);
		fprintf(out, "at = %s\n", topo_format_duration(e->at_ns, buf, sizeof(buf)));
		fprintf(out, "action = %s\n", topo_action_name(e->action));
		fprintf(out, "target = %s\n", topo_event_target(t, e, tg, sizeof(tg)));
		if (e->action == TOPO_A_FLAP) {
			fprintf(out, "count = %u\n", e->count);
			fprintf(out, "period = %s\n",
				topo_format_duration(e->period_ns, buf, sizeof(buf)));
		}
		if (e->action == TOPO_A_RESOLVER_DOWN && e->instance)
			fprintf(out, "instance = %u\n", e->instance);
		if (e->family != TOPO_EV_FAMILY_BOTH)
			fprintf(out, "family = %s\n", topo_ev_family_words[e->family]);
		if (e->action == TOPO_A_IMPAIR)
			fprintf(out, "%s\n",
				topo_event_impair_text(t, e, "\n", keys, sizeof(keys)));
		if (e->action == TOPO_A_SLOW)
			fprintf(out, "delay = %s\n",
				topo_format_duration(e->slow_ns, buf, sizeof(buf)));
		topo_dnsev_print(e, out);
	}
}

void topo_print_timeline(const struct topology *t, FILE *out)
{
	char tg[32], keys[512];

	fprintf(out, "# timeline (from the traffic's start; docs/topology.md):\n");
	if (t->nevents == 0)
		fprintf(out, "#   no events: nothing fails\n");
	for (int i = 0; i < t->nevents; i++) {
		const struct topo_event *e = &t->events[i];
		const char *kind = e->node >= 0 ? topo_kind_name(t->nodes[e->node].kind) : "link";

		fprintf(out, "#   at %.3f s: %s %s %s (%s", (double)e->at_ns / NSEC_PER_SEC,
			topo_action_name(e->action), kind, topo_event_target(t, e, tg, sizeof(tg)),
			e->name);
		if (e->action == TOPO_A_FLAP)
			fprintf(out, ", %u cycles of %.3f s", e->count,
				(double)e->period_ns / NSEC_PER_SEC);
		if (e->instance)
			fprintf(out, ", cache %u", e->instance);
		if (e->family != TOPO_EV_FAMILY_BOTH)
			fprintf(out, ", IPv%s only", topo_ev_family_words[e->family]);
		if (e->action == TOPO_A_IMPAIR)
			fprintf(out, ": %s",
				topo_event_impair_text(t, e, ", ", keys, sizeof(keys)));
		if (e->action == TOPO_A_SLOW)
			fprintf(out, ", %.3f s late", (double)e->slow_ns / NSEC_PER_SEC);
		if (topo_event_dns(e->action))
			fprintf(out, ": %s", topo_event_change_text(e, keys, sizeof(keys)));
		if (e->undoes >= 0)
			fprintf(out, ", undoes %s", t->events[e->undoes].name);
		if (e->shorthand)
			fprintf(out, ", from fail = yes");
		fprintf(out, ")\n");
	}
}

int topo_first_failure(const struct topology *t, int64_t *at_ns)
{
	for (int i = 0; i < t->nevents; i++) {
		const struct topo_event *e = &t->events[i];
		int site = -1;

		/* an impair of a site's own link is a gray failure: the site
		 * slow or lossy, not out (docs/clocks.md, "Gray failures") */
		if ((!topo_event_failing(e->action) && e->action != TOPO_A_IMPAIR) ||
		    e->action == TOPO_A_DNS_DOWN || e->action == TOPO_A_RESOLVER_DOWN ||
		    e->action == TOPO_A_ICMP_DOWN)
			continue;
		if (e->node >= 0 && t->nodes[e->node].kind == TOPO_SITE)
			site = e->node;
		else if (e->link >= 0 && t->nodes[t->links[e->link].node].kind == TOPO_SITE)
			site = t->links[e->link].node;
		if (site < 0)
			continue;
		if (at_ns)
			*at_ns = e->at_ns;
		return site;
	}
	return -1;
}
