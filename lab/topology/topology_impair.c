/*
 * Impairments in a topology: the keys of [link] sections (delay, jitter,
 * loss, duplicate, reorder, rate, lib/impair.h), per direction; [link NODE
 * ROUTER] for a node's own link; the configured delay of a path, and the
 * timeouts checked against it. See topology.h.
 *
 * A key applies to both directions of its link unless written A>B.KEY, which
 * sets the direction leaving A only, whatever the order of the lines: the
 * plain keys are applied first.
 *
 * `delay = auto` (or A>B.delay = auto) takes the direction's delay from the
 * ends' locations (topo_auto_delay_ns); a delay written as a duration for
 * a direction overrides it, the way a network's path disagrees with the map.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "strfmt.h"
#include "timeutil.h"
#include "topology_int.h"

static const char *const topo_impair_names[] = {"delay",     "jitter",	"loss",
						"duplicate", "reorder", "rate"};
#define TOPO_IMPAIR_NKEYS ((int)(sizeof(topo_impair_names) / sizeof(topo_impair_names[0])))

/* topo_impair_split: a key as written, "KEY" or "A>B.KEY": its impairment
 * key's index (-1: not one), and the direction as written into dir ("" if
 * none). */
static int topo_impair_split(const char *key, char *dir, size_t dirlen)
{
	const char *dot = strrchr(key, '.'), *name = dot ? dot + 1 : key;

	if (dir && dirlen)
		dir[0] = '\0';
	for (int k = 0; k < TOPO_IMPAIR_NKEYS; k++) {
		if (strcmp(name, topo_impair_names[k]) != 0)
			continue;
		if (dot && dir && (size_t)(dot - key) < dirlen) {
			memcpy(dir, key, (size_t)(dot - key));
			dir[dot - key] = '\0';
		}
		return k;
	}
	return -1;
}

int topo_impair_key(const char *key)
{
	return topo_impair_split(key, NULL, 0) >= 0;
}

int topo_impair_none(const struct impair *im)
{
	return im->delay_ns == 0 && im->jitter_ns == 0 && im->loss_pct == 0 &&
	       im->duplicate_pct == 0 && im->reorder_pct == 0 && im->rate_bps == 0;
}

/* A [link] section resolved: its two directions, the ends' names in the
 * order of the directions ([0] sends on impair[0]) */
struct topo_impair_link {
	struct impair *impair;
	const char *from[2];
	int end[2];	 /* node indexes of from[] */
	int *delay_auto; /* [2] */
	double *distance_km;
};

/* topo_impair_node_link: [link A B] j, one of which is not a router, to
 * the node's own link. Its index in t->links, or -1 (said). */
static int topo_impair_node_link(struct topo_parse *p, int j, const int *seen)
{
	struct topology *t = p->t;
	const char *a = p->rl[j].a, *b = p->rl[j].b;
	int ia = topo_find(t, a), ib = topo_find(t, b), node, router, l;

	if (ia < 0 || ib < 0)
		return -1; /* said by topo_check_routers */
	node = t->nodes[ia].kind == TOPO_ROUTER ? ib : ia;
	router = node == ia ? ib : ia;
	l = t->nodes[node].link;
	if (l < 0)
		return -1; /* its link = is missing or wrong: said */
	if (t->links[l].router != router) {
		topo_error(p, p->rl[j].line,
			   "[link %s %s]: %s's link is to router '%s' (line %d), not '%s'; "
			   "expected [link %s %s]",
			   a, b, t->nodes[node].name, t->nodes[t->links[l].router].name,
			   t->links[l].line, t->nodes[router].name, t->nodes[node].name,
			   t->nodes[t->links[l].router].name);
		return -1;
	}
	if (seen[l] >= 0) {
		topo_error(p, p->rl[j].line,
			   "[link %s %s]: duplicate: %s's link is already described at line %d", a,
			   b, t->nodes[node].name, p->rl[seen[l]].line);
		return -1;
	}
	return l;
}

/* topo_impair_set: pair i into its link's directions (dirs: 3 for both,
 * 1 for [0], 2 for [1]). */
static void topo_impair_set(struct topo_parse *p, int i, const struct topo_impair_link *tl)
{
	const char *key = p->rlkeys[i].key, *value = p->rlkeys[i].value, *what;
	int k = topo_impair_split(key, NULL, 0), j = p->rlkeys[i].rl;
	char dir[64], why[200], want[2 * TOPO_NAME_MAX + 8], other[2 * TOPO_NAME_MAX + 8];
	int dirs = 3;

	topo_impair_split(key, dir, sizeof(dir));
	if (dir[0]) {
		strfmt(want, sizeof(want), "%s>%s", tl->from[0], tl->from[1]);
		strfmt(other, sizeof(other), "%s>%s", tl->from[1], tl->from[0]);
		if (strcmp(dir, want) == 0) {
			dirs = 1;
		} else if (strcmp(dir, other) == 0) {
			dirs = 2;
		} else {
			topo_error(p, p->rlkeys[i].line,
				   "[link %s %s] %s: expected %s.%s or %s.%s (the direction: from "
				   "one end of the link to the other), got '%s'",
				   p->rl[j].a, p->rl[j].b, key, want, topo_impair_names[k], other,
				   topo_impair_names[k], dir);
			return;
		}
	}
	for (int d = 0; d < 2; d++) {
		if (!(dirs & (1 << d)))
			continue;
		if (k == 0) /* delay: auto, or a duration that overrides it */
			tl->delay_auto[d] = strcmp(value, "auto") == 0;
		if (k == 0 && tl->delay_auto[d]) {
			tl->impair[d].delay_ns = 0;
			continue;
		}
		if (impair_parse(&tl->impair[d], topo_impair_names[k], value, &what) == -1) {
			if (k == 0)
				what = "a duration such as 15ms, or auto (from the ends' "
				       "locations)";
			impair_error(why, sizeof(why), key, value, what);
			topo_error(p, p->rlkeys[i].line, "[link %s %s] %s", p->rl[j].a, p->rl[j].b,
				   why);
			return;
		}
	}
}

/* topo_impair_where: where key name of section sect was set (0: not) */
static int topo_impair_where(struct topo_parse *p, int sect, const char *name)
{
	const struct topo_key *keys;
	int n;

	keys = topo_sect_keys(p, sect, &n);
	for (int k = 0; k < n; k++)
		if (strcmp(keys[k].name, name) == 0)
			return *topo_where(p, sect, k);
	return 0;
}

/* topo_check_timeout: node i's timeout key name (value v) against the
 * configured RTT of its path to every site: the longest that exceeds it is
 * said, where the timeout was set (the node's, the lab's, or the node's
 * header for the default). */
static void topo_check_timeout(struct topo_parse *p, int i, const char *name, int64_t v)
{
	const struct topology *t = p->t;
	int64_t worst = -1;
	int site = -1, where;
	char label[TOPO_NAME_MAX + 16], vt[32], rt[32], path[200];

	for (int s = 0; s < t->nnodes; s++) {
		int64_t rtt;

		if (t->nodes[s].kind != TOPO_SITE || (rtt = topo_rtt_ns(t, i, s)) <= v)
			continue;
		if (rtt > worst) {
			worst = rtt;
			site = s;
		}
	}
	if (site < 0)
		return;
	if ((where = topo_impair_where(p, i, name)) == 0 &&
	    (where = topo_impair_where(p, TOPO_SECT_LAB, name)) == 0)
		where = t->nodes[i].line;
	topo_error(p, where,
		   "%s %s: %s is shorter than the configured RTT of its path to site '%s', %s "
		   "(%s); expected at least %s",
		   topo_label(p, i, label, sizeof(label)), name,
		   topo_format_duration(v, vt, sizeof(vt)), t->nodes[site].name,
		   topo_format_duration(worst, rt, sizeof(rt)),
		   topo_path_text(t, i, site, path, sizeof(path)), rt);
}

double topo_distance_km(const struct topo_location *a, const struct topo_location *b)
{
	const double rad = M_PI / 180;
	double dlat = (b->lat - a->lat) * rad, dlon = (b->lon - a->lon) * rad;
	double h = sin(dlat / 2) * sin(dlat / 2) +
		   cos(a->lat * rad) * cos(b->lat * rad) * sin(dlon / 2) * sin(dlon / 2);

	/* haversine: well conditioned for short distances; h rounds above 1
	 * only at the antipodes */
	return 2 * TOPO_EARTH_RADIUS_KM * asin(sqrt(fmin(1, h)));
}

int64_t topo_auto_delay_ns(double km, int64_t hop_ns)
{
	int64_t us = llround(km / TOPO_FIBRE_KM_PER_S * 1e6);

	return us * NSEC_PER_USEC + hop_ns;
}

int topo_delay_auto(const struct topology *t)
{
	int n = 0;

	for (int l = 0; l < t->nlinks; l++)
		n += t->links[l].delay_auto[0] + t->links[l].delay_auto[1];
	for (int j = 0; j < t->nrlinks; j++)
		n += t->rlinks[j].delay_auto[0] + t->rlinks[j].delay_auto[1];
	return n;
}

/* topo_impair_auto: [link] j's delay = auto directions from its ends'
 * locations; both ends are needed, and named when one lacks it */
static void topo_impair_auto(struct topo_parse *p, int j, const struct topo_impair_link *tl)
{
	struct topology *t = p->t;
	const struct topo_node *a = &t->nodes[tl->end[0]], *b = &t->nodes[tl->end[1]];
	int64_t ns;

	if (!tl->delay_auto[0] && !tl->delay_auto[1])
		return;
	if (!a->location.set || !b->location.set) {
		topo_error(p, p->rl[j].line,
			   "[link %s %s] delay = auto: expected location = LAT,LON on both "
			   "ends, %s (line %d) and %s (line %d); %s%s%s %s none",
			   p->rl[j].a, p->rl[j].b, a->name, a->line, b->name, b->line,
			   a->location.set ? "" : a->name,
			   !a->location.set && !b->location.set ? " and " : "",
			   b->location.set ? "" : b->name,
			   !a->location.set && !b->location.set ? "have" : "has");
		return;
	}
	*tl->distance_km = topo_distance_km(&a->location, &b->location);
	ns = topo_auto_delay_ns(*tl->distance_km, t->hop_delay_ns);
	for (int d = 0; d < 2; d++)
		if (tl->delay_auto[d])
			tl->impair[d].delay_ns = ns;
}

void topo_check_impair(struct topo_parse *p)
{
	struct topology *t = p->t;
	static struct topo_impair_link tl[TOPO_MAX_RLINKS];
	static int seen[TOPO_MAX_NODES];
	int bad = 0;

	for (int l = 0; l < TOPO_MAX_NODES; l++)
		seen[l] = -1;
	for (int j = 0; j < p->nrl; j++) {
		tl[j].impair = NULL;
		if (p->rl[j].rlink >= 0) {
			const struct topo_rlink *rl = &t->rlinks[p->rl[j].rlink];

			tl[j].impair = t->rlinks[p->rl[j].rlink].impair;
			tl[j].from[0] = t->nodes[rl->a].name;
			tl[j].from[1] = t->nodes[rl->b].name;
			tl[j].end[0] = rl->a;
			tl[j].end[1] = rl->b;
			tl[j].delay_auto = t->rlinks[p->rl[j].rlink].delay_auto;
			tl[j].distance_km = &t->rlinks[p->rl[j].rlink].distance_km;
			continue;
		}
		int ia = topo_find(t, p->rl[j].a), ib = topo_find(t, p->rl[j].b), l;

		/* a [link] of two routers refused, or one of a node */
		if (ia < 0 || ib < 0 ||
		    (t->nodes[ia].kind == TOPO_ROUTER) == (t->nodes[ib].kind == TOPO_ROUTER))
			continue;
		if ((l = topo_impair_node_link(p, j, seen)) < 0)
			continue;
		seen[l] = j;
		t->links[l].impair_line = p->rl[j].line;
		tl[j].impair = t->links[l].impair;
		tl[j].from[0] = t->nodes[t->links[l].node].name;
		tl[j].from[1] = t->nodes[t->links[l].router].name;
		tl[j].end[0] = t->links[l].node;
		tl[j].end[1] = t->links[l].router;
		tl[j].delay_auto = t->links[l].delay_auto;
		tl[j].distance_km = &t->links[l].distance_km;
	}
	/* both directions first, then each direction's own */
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < p->nrlkeys; i++) {
			const char *key = p->rlkeys[i].key;
			int j = p->rlkeys[i].rl;

			if (tl[j].impair == NULL)
				continue;
			if (!topo_impair_key(key)) {
				if (pass == 0 && p->rl[j].rlink < 0)
					topo_error(p, p->rlkeys[i].line,
						   "[link %s %s] %s: a node's link takes only "
						   "the impairment keys (delay, jitter, loss, "
						   "duplicate, reorder, rate)",
						   p->rl[j].a, p->rl[j].b, key);
				continue;
			}
			if ((strchr(key, '.') != NULL) == pass)
				topo_impair_set(p, i, &tl[j]);
		}
	}
	for (int j = 0; j < p->nrl; j++)
		if (tl[j].impair)
			topo_impair_auto(p, j, &tl[j]);
	/* what no mechanism does: a reorder with no delay to send ahead of */
	for (int j = 0; j < p->nrl; j++) {
		char why[200];

		for (int d = 0; tl[j].impair && d < 2; d++) {
			if (impair_check(&tl[j].impair[d], IMPAIR_MECH_NETEM, why, sizeof(why)) ==
			    0)
				continue;
			topo_error(p, p->rl[j].line, "[link %s %s] %s>%s: %s", p->rl[j].a,
				   p->rl[j].b, tl[j].from[d], tl[j].from[1 - d], why);
			bad = 1;
		}
	}
	if (bad || p->in.nerrors || !topo_impaired(t))
		return;
	for (int i = 0; i < t->nnodes; i++) {
		if (t->nodes[i].kind == TOPO_CLIENT)
			topo_check_timeout(p, i, "timeout", t->nodes[i].timeout_ns);
		else if (t->nodes[i].kind == TOPO_PROBER)
			topo_check_timeout(p, i, "probe_timeout", t->nodes[i].probe_timeout_ns);
	}
}

int topo_impaired(const struct topology *t)
{
	int n = 0;

	for (int l = 0; l < t->nlinks; l++)
		for (int d = 0; d < 2; d++)
			n += !topo_impair_none(&t->links[l].impair[d]);
	for (int j = 0; j < t->nrlinks; j++)
		for (int d = 0; d < 2; d++)
			n += !topo_impair_none(&t->rlinks[j].impair[d]);
	return n;
}

int topo_impair_events(const struct topology *t)
{
	int n = 0;

	for (int i = 0; i < t->nevents; i++)
		n += t->events[i].action == TOPO_A_IMPAIR;
	return n;
}

int topo_node_egress(const struct topology *t, int n, struct topo_egress *e, int max)
{
	int k = 0;

#define TOPO_EGRESS(name, imp, other)                                                              \
	do {                                                                                       \
		if (!topo_impair_none(imp)) {                                                      \
			if (k < max)                                                               \
				e[k] = (struct topo_egress){(name), (imp), (other)};               \
			k++;                                                                       \
		}                                                                                  \
	} while (0)
	if (t->nodes[n].kind != TOPO_ROUTER && t->nodes[n].link >= 0) {
		const struct topo_link *l = &t->links[t->nodes[n].link];

		TOPO_EGRESS(l->node_ifname, &l->impair[0], l->router);
	}
	for (int i = 0; t->nodes[n].kind == TOPO_ROUTER && i < t->nlinks; i++) {
		const struct topo_link *l = &t->links[i];

		if (l->router == n)
			TOPO_EGRESS(l->router_ifname, &l->impair[1], l->node);
	}
	for (int j = 0; j < t->nrlinks; j++) {
		const struct topo_rlink *rl = &t->rlinks[j];

		if (rl->a == n)
			TOPO_EGRESS(rl->a_ifname, &rl->impair[0], rl->b);
		else if (rl->b == n)
			TOPO_EGRESS(rl->b_ifname, &rl->impair[1], rl->a);
	}
#undef TOPO_EGRESS
	return k;
}

/* topo_impair_walk: the path from node from to node to, each hop's
 * direction given to hop(arg, impair, next node), the first hop's from
 * `from`. 0, or -1 if there is none. */
static int topo_impair_walk(const struct topology *t, int from, int to,
			    void (*hop)(void *arg, const struct impair *im, int next), void *arg)
{
	static struct topo_path path[TOPO_MAX_NODES];
	int cur = topo_node_router(t, from), last = topo_node_router(t, to);

	if (cur < 0 || last < 0)
		return -1;
	if (from != cur)
		hop(arg, &t->links[t->nodes[from].link].impair[0], cur);
	while (cur != last) {
		const struct topo_rlink *rl;

		topo_paths(t, cur, path);
		if (path[last].hops < 0)
			return -1;
		rl = &t->rlinks[path[last].rlink];
		hop(arg, &rl->impair[rl->a == cur ? 0 : 1], rl->a == cur ? rl->b : rl->a);
		cur = rl->a == cur ? rl->b : rl->a;
	}
	if (to != last)
		hop(arg, &t->links[t->nodes[to].link].impair[1], to);
	return 0;
}

static void topo_impair_add_delay(void *arg, const struct impair *im, int next)
{
	(void)next;
	*(int64_t *)arg += im->delay_ns;
}

int64_t topo_owd_ns(const struct topology *t, int from, int to)
{
	int64_t sum = 0;

	return topo_impair_walk(t, from, to, topo_impair_add_delay, &sum) == -1 ? -1 : sum;
}

int64_t topo_rtt_ns(const struct topology *t, int a, int b)
{
	int64_t there = topo_owd_ns(t, a, b), back = topo_owd_ns(t, b, a);

	return there < 0 || back < 0 ? -1 : there + back;
}

static void topo_impair_add_loss(void *arg, const struct impair *im, int next)
{
	(void)next;
	*(double *)arg *= 1 - im->loss_pct / 100;
}

double topo_loss_pct(const struct topology *t, int from, int to)
{
	double delivered = 1;

	if (topo_impair_walk(t, from, to, topo_impair_add_loss, &delivered) == -1)
		return -1;
	return 100 * (1 - delivered);
}

struct topo_impair_text {
	const struct topology *t;
	char *buf;
	size_t len, used;
};

static void topo_impair_add_name(void *arg, const struct impair *im, int next)
{
	struct topo_impair_text *x = arg;

	(void)im;
	if (x->used < x->len)
		x->used += (size_t)snprintf(x->buf + x->used, x->len - x->used, " %s",
					    x->t->nodes[next].name);
}

const char *topo_path_text(const struct topology *t, int from, int to, char *buf, size_t len)
{
	struct topo_impair_text x = {t, buf, len, 0};

	x.used = (size_t)snprintf(buf, len, "%s", t->nodes[from].name);
	if (topo_impair_walk(t, from, to, topo_impair_add_name, &x) == -1)
		snprintf(buf, len, "%s, no path to %s", t->nodes[from].name, t->nodes[to].name);
	return buf;
}

const char *topo_impair_key_name(int k)
{
	return k >= 0 && k < TOPO_IMPAIR_NKEYS ? topo_impair_names[k] : NULL;
}

const char *topo_impair_value(const struct impair *im, int k, char *buf, size_t len)
{
	struct impair one = {0};
	char all[128];
	const char *sp;

	switch (k) {
	case 0:
		one.delay_ns = im->delay_ns;
		break;
	case 1:
		one.jitter_ns = im->jitter_ns;
		one.dist = im->dist;
		break;
	case 2:
		one.loss_pct = im->loss_pct;
		one.loss_corr_pct = im->loss_corr_pct;
		break;
	case 3:
		one.duplicate_pct = im->duplicate_pct;
		one.duplicate_corr_pct = im->duplicate_corr_pct;
		break;
	case 4:
		one.reorder_pct = im->reorder_pct;
		one.reorder_corr_pct = im->reorder_corr_pct;
		break;
	default:
		one.rate_bps = im->rate_bps;
		break;
	}
	if (topo_impair_none(&one))
		return NULL;
	impair_format(&one, all, sizeof(all));
	sp = strchr(all, ' ');
	snprintf(buf, len, "%s", sp ? sp + 1 : all);
	return buf;
}

void topo_print_impair_keys(const struct topology *t, int j, int l, FILE *out)
{
	const struct impair *im;
	const int *autod;
	const char *from[2];
	char v[2][128];

	if (j >= 0) {
		im = t->rlinks[j].impair;
		autod = t->rlinks[j].delay_auto;
		from[0] = t->nodes[t->rlinks[j].a].name;
		from[1] = t->nodes[t->rlinks[j].b].name;
	} else {
		im = t->links[l].impair;
		autod = t->links[l].delay_auto;
		from[0] = t->nodes[t->links[l].node].name;
		from[1] = t->nodes[t->links[l].router].name;
	}
	for (int k = 0; k < TOPO_IMPAIR_NKEYS; k++) {
		const char *a = topo_impair_value(&im[0], k, v[0], sizeof(v[0]));
		const char *b = topo_impair_value(&im[1], k, v[1], sizeof(v[1]));

		/* computed again when read back: auto, not its value */
		if (k == 0 && autod[0])
			a = "auto";
		if (k == 0 && autod[1])
			b = "auto";

		if (a && b && strcmp(a, b) == 0) {
			fprintf(out, "%s = %s\n", topo_impair_names[k], a);
			continue;
		}
		if (a)
			fprintf(out, "%s>%s.%s = %s\n", from[0], from[1], topo_impair_names[k], a);
		if (b)
			fprintf(out, "%s>%s.%s = %s\n", from[1], from[0], topo_impair_names[k], b);
	}
}

/* topo_print_dir: one direction of a link, if impaired; a delay = auto
 * one says what it was computed from */
static void topo_print_dir(const struct topology *t, const struct impair *im, int autod, double km,
			   const char *from, const char *to, FILE *out)
{
	char buf[256], d[32], h[32];

	if (topo_impair_none(im) && !autod)
		return;
	impair_format(im, buf, sizeof(buf));
	fprintf(out, "#   %s>%s: %s\n", from, to, topo_impair_none(im) ? "delay 0s" : buf);
	if (autod)
		fprintf(out,
			"#     delay = auto: %.1f km between the locations at 2/3 c, %s, plus "
			"hop_delay %s\n",
			km, topo_format_duration(im->delay_ns - t->hop_delay_ns, d, sizeof(d)),
			topo_format_duration(t->hop_delay_ns, h, sizeof(h)));
}

void topo_print_impair(const struct topology *t, const char *mech, FILE *out)
{
	char rtt[32], path[256];

	/* every delay = auto link, even one that comes to 0 */
	if (!topo_impaired(t) && !topo_delay_auto(t))
		return;
	fprintf(out, "# impaired links, per direction, applied by %s:\n", mech);
	for (int l = 0; l < t->nlinks; l++) {
		const struct topo_link *k = &t->links[l];
		const char *n = t->nodes[k->node].name, *r = t->nodes[k->router].name;

		if (topo_impair_none(&k->impair[0]) && topo_impair_none(&k->impair[1]) &&
		    !k->delay_auto[0] && !k->delay_auto[1])
			continue;
		fprintf(out, "# link %s %s\n", n, r);
		topo_print_dir(t, &k->impair[0], k->delay_auto[0], k->distance_km, n, r, out);
		topo_print_dir(t, &k->impair[1], k->delay_auto[1], k->distance_km, r, n, out);
	}
	for (int j = 0; j < t->nrlinks; j++) {
		const struct topo_rlink *rl = &t->rlinks[j];
		const char *a = t->nodes[rl->a].name, *b = t->nodes[rl->b].name;

		if (topo_impair_none(&rl->impair[0]) && topo_impair_none(&rl->impair[1]) &&
		    !rl->delay_auto[0] && !rl->delay_auto[1])
			continue;
		fprintf(out, "# link %s %s\n", a, b);
		topo_print_dir(t, &rl->impair[0], rl->delay_auto[0], rl->distance_km, a, b, out);
		topo_print_dir(t, &rl->impair[1], rl->delay_auto[1], rl->distance_km, b, a, out);
	}
	fprintf(out, "# configured RTT of each path (the links' delays, there and back):\n");
	for (int i = 0; i < t->nnodes; i++) {
		if (t->nodes[i].kind != TOPO_CLIENT && t->nodes[i].kind != TOPO_PROBER)
			continue;
		for (int s = 0; s < t->nnodes; s++) {
			int64_t v;

			if (t->nodes[s].kind != TOPO_SITE || (v = topo_rtt_ns(t, i, s)) < 0)
				continue;
			fprintf(out, "#   rtt %s %s: %s (%s)\n", t->nodes[i].name, t->nodes[s].name,
				topo_format_duration(v, rtt, sizeof(rtt)),
				topo_path_text(t, i, s, path, sizeof(path)));
		}
	}
}

int topo_impair_change(const char *const from[2], const char *key, const char *value,
		       struct impair chg[2], unsigned set[2], char *why, size_t len)
{
	char dir[64], want[2][2 * TOPO_NAME_MAX + 8];
	const char *what;
	int k = topo_impair_split(key, dir, sizeof(dir)), dirs = 3;

	if (k < 0) {
		impair_error(why, len, key, value, NULL);
		return -1;
	}
	if (dir[0]) {
		strfmt(want[0], sizeof(want[0]), "%s>%s", from[0], from[1]);
		strfmt(want[1], sizeof(want[1]), "%s>%s", from[1], from[0]);
		if (strcmp(dir, want[0]) == 0) {
			dirs = 1;
		} else if (strcmp(dir, want[1]) == 0) {
			dirs = 2;
		} else {
			strfmt(why, len,
			       "%s: expected %s.%s or %s.%s (the direction: from one end of the "
			       "link to the other), got '%s'",
			       key, want[0], topo_impair_names[k], want[1], topo_impair_names[k],
			       dir);
			return -1;
		}
	}
	for (int d = 0; d < 2; d++) {
		if (!(dirs & (1 << d)))
			continue;
		if (impair_parse(&chg[d], topo_impair_names[k], value, &what) == -1) {
			impair_error(why, len, key, value, what);
			return -1;
		}
		set[d] |= 1u << k;
	}
	return 0;
}

void topo_impair_merge(struct impair *cur, const struct impair *chg, unsigned set)
{
	if (set & 1u << 0)
		cur->delay_ns = chg->delay_ns;
	if (set & 1u << 1) {
		cur->jitter_ns = chg->jitter_ns;
		cur->dist = chg->dist;
	}
	if (set & 1u << 2) {
		cur->loss_pct = chg->loss_pct;
		cur->loss_corr_pct = chg->loss_corr_pct;
	}
	if (set & 1u << 3) {
		cur->duplicate_pct = chg->duplicate_pct;
		cur->duplicate_corr_pct = chg->duplicate_corr_pct;
	}
	if (set & 1u << 4) {
		cur->reorder_pct = chg->reorder_pct;
		cur->reorder_corr_pct = chg->reorder_corr_pct;
	}
	if (set & 1u << 5)
		cur->rate_bps = chg->rate_bps;
}

/* topo_impair_value0: key k of im as written, a zero too ("0ms", "0%") */
static const char *topo_impair_value0(const struct impair *im, int k, char *buf, size_t len)
{
	if (topo_impair_value(im, k, buf, len))
		return buf;
	snprintf(buf, len, "%s", k <= 1 ? "0ms" : k == 5 ? "0bit" : "0%");
	return buf;
}

const char *topo_impair_keys_text(const char *const from[2], const struct impair chg[2],
				  const unsigned set[2], const char *sep, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
#define TOPO_KEYS_ADD(...)                                                                         \
	do {                                                                                       \
		if (used < len)                                                                    \
			used += (size_t)snprintf(buf + used, len - used, "%s", used ? sep : "");   \
		if (used < len)                                                                    \
			used += (size_t)snprintf(buf + used, len - used, __VA_ARGS__);             \
	} while (0)
	for (int k = 0; k < TOPO_IMPAIR_NKEYS; k++) {
		char v[2][128];
		int a = (set[0] >> k) & 1, b = (set[1] >> k) & 1;

		if (a)
			topo_impair_value0(&chg[0], k, v[0], sizeof(v[0]));
		if (b)
			topo_impair_value0(&chg[1], k, v[1], sizeof(v[1]));
		if (a && b && strcmp(v[0], v[1]) == 0) {
			TOPO_KEYS_ADD("%s = %s", topo_impair_names[k], v[0]);
			continue;
		}
		if (a)
			TOPO_KEYS_ADD("%s>%s.%s = %s", from[0], from[1], topo_impair_names[k],
				      v[0]);
		if (b)
			TOPO_KEYS_ADD("%s>%s.%s = %s", from[1], from[0], topo_impair_names[k],
				      v[1]);
	}
#undef TOPO_KEYS_ADD
	return buf;
}

void topo_link_dirs(const struct topology *t, int link, int rlink, int node[2],
		    const char *ifname[2], const struct impair *im[2])
{
	if (link >= 0) {
		const struct topo_link *l = &t->links[link];

		node[0] = l->node;
		node[1] = l->router;
		ifname[0] = l->node_ifname;
		ifname[1] = l->router_ifname;
		im[0] = &l->impair[0];
		im[1] = &l->impair[1];
		return;
	}
	const struct topo_rlink *rl = &t->rlinks[rlink];

	node[0] = rl->a;
	node[1] = rl->b;
	ifname[0] = rl->a_ifname;
	ifname[1] = rl->b_ifname;
	im[0] = &rl->impair[0];
	im[1] = &rl->impair[1];
}

int topo_impair_args(const struct topology *t, const char *a, const char *b, int n,
		     char *const kv[], int *link, int *rlink, struct impair chg[2], unsigned set[2],
		     char *err, size_t len)
{
	int x = topo_find(t, a), y = b ? topo_find(t, b) : -1, node[2];
	const struct impair *base[2];
	const char *ifname[2], *from[2];
	char why[256];

	*link = *rlink = -1;
	memset(chg, 0, 2 * sizeof(chg[0]));
	set[0] = set[1] = 0;
	if (x < 0 || (b && y < 0)) {
		strfmt(err, len, "no node named '%s'", x < 0 ? a : b);
		return -1;
	}
	if (b == NULL) {
		strfmt(err, len,
		       "expected a link as its two ends after the lab ('%s ROUTER', 'r1 r2')", a);
		return -1;
	}
	for (int i = 0; i < t->nlinks && *link < 0; i++)
		if ((t->links[i].node == x && t->links[i].router == y) ||
		    (t->links[i].node == y && t->links[i].router == x))
			*link = i;
	for (int i = 0; i < t->nrlinks && *link < 0 && *rlink < 0; i++)
		if ((t->rlinks[i].a == x && t->rlinks[i].b == y) ||
		    (t->rlinks[i].a == y && t->rlinks[i].b == x))
			*rlink = i;
	if (*link < 0 && *rlink < 0) {
		strfmt(err, len,
		       "no link between '%s' and '%s' (a node's link = ROUTER, or a [link %s %s] "
		       "section)",
		       a, b, a, b);
		return -1;
	}
	if (n == 0) {
		strfmt(
		    err, len,
		    "expected KEY=VALUE after the link (delay, jitter, loss, duplicate, reorder, "
		    "rate; A>B.KEY for one direction), got none");
		return -1;
	}
	topo_link_dirs(t, *link, *rlink, node, ifname, base);
	from[0] = t->nodes[node[0]].name;
	from[1] = t->nodes[node[1]].name;
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < n; i++) {
			const char *eq = strchr(kv[i], '=');
			char key[64];

			if (eq == NULL || eq == kv[i] || (size_t)(eq - kv[i]) >= sizeof(key)) {
				strfmt(err, len,
				       "'%s': expected KEY=VALUE (delay, jitter, loss, duplicate, "
				       "reorder, rate; A>B.KEY for one direction)",
				       kv[i]);
				return -1;
			}
			memcpy(key, kv[i], (size_t)(eq - kv[i]));
			key[eq - kv[i]] = '\0';
			if ((strchr(key, '.') != NULL) != pass)
				continue;
			if (topo_impair_change(from, key, eq + 1, chg, set, why, sizeof(why)) ==
			    -1) {
				strfmt(err, len, "%s", why);
				return -1;
			}
		}
	}
	return 0;
}
