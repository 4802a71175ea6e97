/*
 * Topology files, what shapes catchments with routing = bgp (docs/topology.md,
 * "Shaping catchments"): the keys of [link R1 R2] sections (prepend and
 * local_pref per end, the link's own BGP timers and BFD), a site's
 * `prepend`, and the units of the routers' and sites' own timers, which
 * topology_keys.c parses as durations.
 *
 * A [link]'s keys are kept as written while the file is read (its routers
 * may come later), and resolved once the routers are: `prepend = t1:2`
 * names the end by its router.
 */
#include "topology_int.h"

#include <stdlib.h>
#include <string.h>

#include "strtonum.h"
#include "timeutil.h"

#define RL(f) offsetof(struct topo_rlink, f)
#define LOCAL_PREF_MAX 4294967295LL

/* the keys of a [link], in the order docs/man/steerlab.ini.5 and topo_print
 * have them; prepend and local_pref (TOPO_T_NAME here) are ROUTER:N lists */
static const struct topo_key topo_rlink_keys[] = {
    {"prepend", TOPO_T_NAME, RL(prepend), 0, TOPO_PREPEND_MAX, -1, NULL},
    {"local_pref", TOPO_T_NAME, RL(local_pref), 1, LOCAL_PREF_MAX, -1, NULL},
    {"bgp_keepalive", TOPO_T_DURATION, RL(bgp_keepalive_ns), 1, 0, -1, NULL},
    {"bgp_hold", TOPO_T_DURATION, RL(bgp_hold_ns), 0, 0, -1, NULL},
    {"bgp_mrai", TOPO_T_DURATION, RL(bgp_mrai_ns), 0, 0, -1, NULL},
    {"bfd", TOPO_T_BOOL, RL(bfd), 0, 0, -1, NULL},
};
#define NKEYS ((int)(sizeof(topo_rlink_keys) / sizeof(topo_rlink_keys[0])))
#define KEY_NAMES                                                                                  \
	"prepend, local_pref, bgp_keepalive, bgp_hold, bgp_mrai, bfd; delay, jitter, loss, "       \
	"duplicate, reorder, rate, each also as A>B.KEY for one direction"

void topo_rlink_key(struct topo_parse *p, const char *name, const char *value)
{
	int j = p->nrl - 1, k;

	for (k = 0; k < NKEYS && strcmp(topo_rlink_keys[k].name, name) != 0; k++)
		;
	if (k == NKEYS && !topo_impair_key(name)) {
		topo_error(p, p->in.lineno, "unknown key '%s' in [link %s %s] (expected: %s)", name,
			   p->rl[j].a, p->rl[j].b, KEY_NAMES);
		return;
	}
	for (int i = 0; i < p->nrlkeys; i++) {
		if (p->rlkeys[i].rl != j || strcmp(p->rlkeys[i].key, name) != 0)
			continue;
		topo_error(p, p->in.lineno, "[link %s %s] %s: set twice (first at line %d)",
			   p->rl[j].a, p->rl[j].b, name, p->rlkeys[i].line);
		return;
	}
	if (strlen(value) >= sizeof(p->rlkeys[0].value)) {
		topo_error(p, p->in.lineno,
			   "[link %s %s] %s: value too long (at most %d characters)", p->rl[j].a,
			   p->rl[j].b, name, (int)sizeof(p->rlkeys[0].value) - 1);
		return;
	}
	if (p->nrlkeys == TOPO_MAX_RLINK_KEYS) {
		topo_error(p, p->in.lineno, "too many keys in [link] sections (at most %d)",
			   TOPO_MAX_RLINK_KEYS);
		return;
	}
	p->rlkeys[p->nrlkeys].rl = j;
	snprintf(p->rlkeys[p->nrlkeys].key, sizeof(p->rlkeys[0].key), "%s", name);
	snprintf(p->rlkeys[p->nrlkeys].value, sizeof(p->rlkeys[0].value), "%s", value);
	p->rlkeys[p->nrlkeys].line = p->in.lineno;
	p->nrlkeys++;
}

/* topo_rlink_ends: value "ROUTER:N[ ROUTER:N]" of key k of link rl into
 * v[0] (rl's a end) and v[1] (b). 0, or -1 (said). */
static int topo_rlink_ends(struct topo_parse *p, const struct topo_key *k, int rl,
			   const char *value, int line, unsigned v[2])
{
	const struct topology *t = p->t;
	const struct topo_rlink *l = &t->rlinks[rl];
	const char *a = t->nodes[l->a].name, *b = t->nodes[l->b].name;
	char buf[64], *save = NULL, *item;
	unsigned seen[2] = {0, 0};
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", value);
	for (item = strtok_r(buf, " \t,", &save); item; item = strtok_r(NULL, " \t,", &save)) {
		char *colon = strchr(item, ':');
		const char *errstr = NULL;
		long long u = 0;
		int end;

		if (colon)
			*colon = '\0';
		end = strcmp(item, a) == 0 ? 0 : strcmp(item, b) == 0 ? 1 : -1;
		if (colon)
			u = strtonum(colon + 1, k->min, k->max, &errstr);
		if (colon == NULL || end < 0 || seen[end] || errstr)
			goto bad;
		seen[end] = 1;
		v[end] = (unsigned)u;
		n++;
	}
	if (n == 0)
		goto bad;
	return 0;
bad:
	topo_error(p, line,
		   "[link %s %s] %s: expected ROUTER:N for one end or both (ROUTER %s or %s, once "
		   "each; N a whole number from %lld to %lld), got '%s'",
		   a, b, k->name, a, b, k->min, k->max, value);
	return -1;
}

/* topo_check_secs: a timer value v (ns) of label's key name, set at where,
 * is a whole number of seconds from min to max (FRR's range). */
static void topo_check_secs(struct topo_parse *p, int where, const char *label, const char *name,
			    int64_t v, long long min, long long max)
{
	char buf[32];

	if (v % NSEC_PER_SEC == 0 && v / NSEC_PER_SEC >= min && v / NSEC_PER_SEC <= max)
		return;
	topo_error(p, where,
		   "%s %s: expected whole seconds from %lld to %lld (FRR's range), got %s", label,
		   name, min, max, topo_format_duration(v, buf, sizeof(buf)));
}

/* topo_check_timers: keepalive, hold and MRAI of label, each checked if
 * written (wk, wh, wm: where, 0 if not). 0 if their units are right. */
static int topo_check_timers(struct topo_parse *p, const char *label, int wk, int64_t ka, int wh,
			     int64_t hold, int wm, int64_t mrai)
{
	int bad = 0;

	if (wk) {
		topo_check_secs(p, wk, label, "bgp_keepalive", ka, 1, 65535);
		bad |= ka % NSEC_PER_SEC != 0;
	}
	if (wh && hold != 0 && hold < 3 * NSEC_PER_SEC) {
		topo_error(p, wh,
			   "%s bgp_hold: expected 0 (no hold timer) or at least 3s (RFC 4271)",
			   label);
		bad = 1;
	} else if (wh) {
		topo_check_secs(p, wh, label, "bgp_hold", hold, 0, 65535);
		bad |= hold % NSEC_PER_SEC != 0;
	}
	if (wm)
		topo_check_secs(p, wm, label, "bgp_mrai", mrai, 0, 600);
	return bad ? -1 : 0;
}

/* topo_check_less: keepalive below hold (hold 0: none), said at where. */
static int topo_check_less(struct topo_parse *p, const char *label, int where, int64_t ka,
			   int64_t hold)
{
	if (hold == 0 || ka < hold)
		return 0;
	topo_error(p, where,
		   "%s bgp_keepalive: expected less than bgp_hold (the hold timer would expire "
		   "between two keepalives)",
		   label);
	return -1;
}

/* topo_node_key_where: where node i's key name was set (0: inherited). */
static int topo_node_key_where(struct topo_parse *p, int i, const char *name)
{
	const struct topo_key *keys;
	int n;

	keys = topo_sect_keys(p, i, &n);
	for (int k = 0; k < n; k++)
		if (strcmp(keys[k].name, name) == 0)
			return p->meta[i].where[k];
	return 0;
}

/* topo_rlink_value: pair i's value into its link. */
static void topo_rlink_value(struct topo_parse *p, int i)
{
	struct topology *t = p->t;
	const char *key = p->rlkeys[i].key, *value = p->rlkeys[i].value;
	int rl = p->rl[p->rlkeys[i].rl].rlink, line = p->rlkeys[i].line, k;
	struct topo_rlink *l = &t->rlinks[rl];
	char why[200];
	const char *expected;

	for (k = 0; strcmp(topo_rlink_keys[k].name, key) != 0; k++)
		;
	if (k < 2) {
		topo_rlink_ends(p, &topo_rlink_keys[k], rl, value, line,
				k == 0 ? l->prepend : l->local_pref);
		return;
	}
	expected = topo_parse_value(&topo_rlink_keys[k], value, (char *)l + topo_rlink_keys[k].off,
				    why, sizeof(why));
	if (expected)
		topo_error(p, line, "[link %s %s] %s: %s, got '%s'", t->nodes[l->a].name,
			   t->nodes[l->b].name, key, expected, value);
}

void topo_check_policy(struct topo_parse *p)
{
	struct topology *t = p->t;
	char label[2 * TOPO_NAME_MAX + 16];

	for (int i = 0; i < p->nrlkeys; i++)
		if (p->rl[p->rlkeys[i].rl].rlink >= 0 && !topo_impair_key(p->rlkeys[i].key))
			topo_rlink_value(p, i);
	/* a [link]'s timers, against each end's own where the link sets
	 * only one of keepalive and hold */
	for (int j = 0; j < t->nrlinks; j++) {
		const struct topo_rlink *l = &t->rlinks[j];
		int w[3] = {0, 0, 0};

		for (int i = 0; i < p->nrlkeys; i++) {
			if (p->rl[p->rlkeys[i].rl].rlink != j)
				continue;
			for (int k = 0; k < 3; k++)
				if (strcmp(p->rlkeys[i].key, topo_rlink_keys[2 + k].name) == 0)
					w[k] = p->rlkeys[i].line;
		}
		if (!w[0] && !w[1] && !w[2])
			continue;
		snprintf(label, sizeof(label), "[link %s %s]", t->nodes[l->a].name,
			 t->nodes[l->b].name);
		if (topo_check_timers(p, label, w[0], l->bgp_keepalive_ns, w[1], l->bgp_hold_ns,
				      w[2], l->bgp_mrai_ns) == -1)
			continue;
		for (int e = 0; e < 2 && (w[0] || w[1]); e++) {
			const struct topo_node *r = &t->nodes[e ? l->b : l->a];

			if (topo_check_less(p, label, w[1] ? w[1] : w[0],
					    l->bgp_keepalive_ns >= 0 ? l->bgp_keepalive_ns
								     : r->bgp_keepalive_ns,
					    l->bgp_hold_ns >= 0 ? l->bgp_hold_ns
								: r->bgp_hold_ns) == -1)
				break;
		}
	}
	/* a router's or site's own timers (inherited ones were the lab's) */
	for (int i = 0; i < t->nnodes; i++) {
		const struct topo_node *n = &t->nodes[i];
		int wk, wh;

		if (n->kind != TOPO_ROUTER && n->kind != TOPO_SITE)
			continue;
		snprintf(label, sizeof(label), "[%s %s]", topo_kind_name(n->kind), n->name);
		wk = topo_node_key_where(p, i, "bgp_keepalive");
		wh = topo_node_key_where(p, i, "bgp_hold");
		if (topo_check_timers(p, label, wk, n->bgp_keepalive_ns, wh, n->bgp_hold_ns,
				      topo_node_key_where(p, i, "bgp_mrai"), n->bgp_mrai_ns) == 0 &&
		    (wk || wh))
			topo_check_less(p, label, wh ? wh : wk, n->bgp_keepalive_ns,
					n->bgp_hold_ns);
	}
}

/* topo_print_ends: "a:N b:M" of the ends set. */
static void topo_print_ends(const struct topology *t, const struct topo_rlink *l, const char *key,
			    const unsigned v[2], FILE *out)
{
	if (v[0] == 0 && v[1] == 0)
		return;
	fprintf(out, "%s =", key);
	if (v[0])
		fprintf(out, " %s:%u", t->nodes[l->a].name, v[0]);
	if (v[1])
		fprintf(out, " %s:%u", t->nodes[l->b].name, v[1]);
	fputc('\n', out);
}

void topo_print_rlink_keys(const struct topology *t, int j, FILE *out)
{
	const struct topo_rlink *l = &t->rlinks[j];
	char buf[32];

	if (t->routing != TOPO_ROUTING_BGP)
		return;
	topo_print_ends(t, l, "prepend", l->prepend, out);
	topo_print_ends(t, l, "local_pref", l->local_pref, out);
	for (int k = 2; k < 5; k++) {
		int64_t v = *(const int64_t *)((const char *)l + topo_rlink_keys[k].off);

		if (v >= 0)
			fprintf(out, "%s = %s\n", topo_rlink_keys[k].name,
				topo_format_duration(v, buf, sizeof(buf)));
	}
	if (l->bfd >= 0)
		fprintf(out, "bfd = %s\n", l->bfd ? "yes" : "no");
}
