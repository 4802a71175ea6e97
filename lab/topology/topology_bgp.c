/*
 * Topology files, the BGP part: FRR's knobs, the sites' `asn`, the nodes'
 * `frr = LINE`, and the ASNs and router ids the FRR configurations are
 * written with (lab/build/frrconf.c). [lab] routing and the routers' `asn` and
 * [link]s are topology_routers.c's.
 *
 * The knobs are durations and counts in the key tables (topology_keys.c);
 * FRR takes whole seconds (timers, MRAI), whole milliseconds (BFD) and
 * whole minutes (damping): checked here, each at the line that set it.
 * Their defaults are FRR's datacenter profile (`frr defaults datacenter`,
 * as FRR 8.4 shows it in `show bgp neighbors`): keepalive 3 s, hold 9 s,
 * connect-retry 10 s, MRAI 0; BFD at FRR's own defaults (300 ms, x3);
 * damping off as RIPE-580 advises, its values RIPE-580's when on.
 */
#include "topology_int.h"

#include <string.h>

#include "timeutil.h"

#define MIN_NS (60 * NSEC_PER_SEC)

void topo_bgp_defaults(struct topology *t)
{
	t->routing = TOPO_ROUTING_STATIC;
	t->bgp_keepalive_ns = 3 * NSEC_PER_SEC;
	t->bgp_hold_ns = 9 * NSEC_PER_SEC;
	t->bgp_connect_retry_ns = 10 * NSEC_PER_SEC;
	t->bgp_mrai_ns = 0;
	t->bfd = 0;
	t->bfd_interval_ns = 300 * NSEC_PER_MSEC;
	t->bfd_multiplier = 3;
	t->damping = 0;
	t->damping_half_life_ns = 15 * MIN_NS;
	t->damping_reuse = 750;
	t->damping_suppress = 6000;
	t->damping_max_suppress_ns = 60 * MIN_NS;
	t->ecmp = 0;
}

int topo_bgp_only(const struct topology *t, const struct topo_node *node, const char *key)
{
	static const char *const keys[] = {
	    "bgp_keepalive",
	    "bgp_hold",
	    "bgp_connect_retry",
	    "bgp_mrai",
	    "bfd",
	    "bfd_interval",
	    "bfd_multiplier",
	    "damping",
	    "damping_half_life",
	    "damping_reuse",
	    "damping_suppress",
	    "damping_max_suppress",
	    "prepend",
	    NULL,
	};

	if (t->routing == TOPO_ROUTING_BGP)
		return 0;
	/* a router's asn is its own (its [link]s' iBGP or eBGP), a site's
	 * only BGP's */
	if (node && node->kind == TOPO_SITE && strcmp(key, "asn") == 0)
		return 1;
	for (int i = 0; keys[i]; i++)
		if (strcmp(key, keys[i]) == 0)
			return 1;
	return 0;
}

void topo_frr_line(struct topo_parse *p, int sect, const char *value, int where)
{
	struct topology *t = p->t;
	char label[TOPO_NAME_MAX + 16];
	struct topo_frr_line *l;

	topo_label(p, sect, label, sizeof(label));
	if (sect < 0 || (t->nodes[sect].kind != TOPO_ROUTER && t->nodes[sect].kind != TOPO_SITE)) {
		topo_error(p, where,
			   "%s frr: FRR runs in [router] and [site] nodes only (routing = bgp); "
			   "expected it there",
			   label);
		return;
	}
	if (*value == '\0' || strlen(value) > TOPO_FRR_LINE_MAX) {
		topo_error(p, where,
			   "%s frr: expected one line of FRR configuration of 1 to %d "
			   "characters",
			   label, TOPO_FRR_LINE_MAX);
		return;
	}
	for (const char *c = value; *c; c++) {
		if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e) {
			topo_error(p, where, "%s frr: expected printable ASCII, got byte 0x%02x",
				   label, (unsigned char)*c);
			return;
		}
	}
	if (t->nfrr_lines == TOPO_MAX_FRR_LINES) {
		topo_error(p, where, "too many frr lines (at most %d)", TOPO_MAX_FRR_LINES);
		return;
	}
	l = &t->frr_lines[t->nfrr_lines++];
	l->node = sect;
	l->where = where;
	memcpy(l->text, value, strlen(value) + 1);
}

/* topo_lab_key: the index of [lab] key name. */
static int topo_lab_key(const char *name)
{
	const struct topo_key *keys;
	int n;

	keys = topo_keys(-1, &n);
	for (int i = 0; i < n; i++)
		if (strcmp(keys[i].name, name) == 0)
			return i;
	return -1;
}

/* topo_check_unit: [lab] key name is a whole number of unit (ns), from min
 * to max units. */
static void topo_check_unit(struct topo_parse *p, const char *name, int64_t v, int64_t unit,
			    const char *uname, long long min, long long max)
{
	int k = topo_lab_key(name), where = *topo_where(p, TOPO_SECT_LAB, k);
	char buf[32];

	if (*topo_bad(p, TOPO_SECT_LAB, k) || (v % unit == 0 && v / unit >= min && v / unit <= max))
		return;
	topo_error(p, where, "[lab] %s: expected whole %s from %lld to %lld (FRR's range), got %s",
		   name, uname, min, max, topo_format_duration(v, buf, sizeof(buf)));
}

/* topo_check_less: [lab] key a's value below key b's; the error points at
 * whichever of the two was written (b if both were). */
static void topo_check_less(struct topo_parse *p, const char *a, long long va, const char *b,
			    long long vb, const char *what)
{
	int ka = topo_lab_key(a), kb = topo_lab_key(b);
	int wa = *topo_where(p, TOPO_SECT_LAB, ka), wb = *topo_where(p, TOPO_SECT_LAB, kb);

	if (va < vb || *topo_bad(p, TOPO_SECT_LAB, ka) || *topo_bad(p, TOPO_SECT_LAB, kb))
		return;
	topo_error(p, wb ? wb : wa, "[lab] %s: expected less than %s (%s)", a, b, what);
}

/* topo_check_asns: every site's AS is its own, no router's and no other
 * site's (eBGP on every site link). Routers may share one (iBGP between
 * linked routers of one AS). */
static void topo_check_asns(struct topo_parse *p)
{
	const struct topology *t = p->t;

	for (int i = 0; i < t->nnodes; i++) {
		unsigned asn = topo_node_asn(t, i);

		for (int j = 0; asn && j < t->nnodes; j++) {
			if (j == i || topo_node_asn(t, j) != asn ||
			    (t->nodes[j].kind == TOPO_SITE && j > i) ||
			    (t->nodes[i].kind == TOPO_ROUTER && t->nodes[j].kind == TOPO_ROUTER))
				continue;
			if (t->nodes[i].kind != TOPO_SITE)
				continue; /* said at the site */
			topo_error(
			    p,
			    p->meta[i].where[TOPO_K_ASN] ? p->meta[i].where[TOPO_K_ASN]
							 : t->nodes[i].line,
			    "[site %s]: AS %u is also [%s %s]'s: expected an AS of its own for "
			    "each site (sites are AS %u + their index unless asn says "
			    "otherwise, routers %u + theirs)",
			    t->nodes[i].name, asn, topo_kind_name(t->nodes[j].kind),
			    t->nodes[j].name, TOPO_SITE_ASN_BASE, TOPO_ASN_BASE);
			break;
		}
	}
}

void topo_check_bgp(struct topo_parse *p)
{
	struct topology *t = p->t;
	unsigned sites = 0;

	topo_check_unit(p, "bgp_keepalive", t->bgp_keepalive_ns, NSEC_PER_SEC, "seconds", 1, 65535);
	topo_check_unit(p, "bgp_hold", t->bgp_hold_ns, NSEC_PER_SEC, "seconds", 0, 65535);
	if (t->bgp_hold_ns != 0 && t->bgp_hold_ns < 3 * NSEC_PER_SEC)
		topo_error(p, *topo_where(p, TOPO_SECT_LAB, topo_lab_key("bgp_hold")),
			   "[lab] bgp_hold: expected 0 (no hold timer) or at least 3s (RFC 4271)");
	else if (t->bgp_hold_ns != 0)
		topo_check_less(p, "bgp_keepalive", t->bgp_keepalive_ns, "bgp_hold", t->bgp_hold_ns,
				"the hold timer would expire between two keepalives");
	topo_check_unit(p, "bgp_connect_retry", t->bgp_connect_retry_ns, NSEC_PER_SEC, "seconds", 1,
			65535);
	topo_check_unit(p, "bgp_mrai", t->bgp_mrai_ns, NSEC_PER_SEC, "seconds", 0, 600);
	topo_check_unit(p, "bfd_interval", t->bfd_interval_ns, NSEC_PER_MSEC, "milliseconds", 10,
			60000);
	topo_check_unit(p, "damping_half_life", t->damping_half_life_ns, MIN_NS, "minutes", 1, 45);
	topo_check_unit(p, "damping_max_suppress", t->damping_max_suppress_ns, MIN_NS, "minutes", 1,
			255);
	topo_check_less(
	    p, "damping_reuse", t->damping_reuse, "damping_suppress", t->damping_suppress,
	    "a route is suppressed above damping_suppress and reused below damping_reuse");
	topo_check_less(p, "damping_half_life", t->damping_half_life_ns - 1, "damping_max_suppress",
			t->damping_max_suppress_ns,
			"or equal: a route is suppressed at most max_suppress");

	for (int i = 0; i < t->nnodes; i++) {
		struct topo_node *node = &t->nodes[i];

		if (node->kind != TOPO_SITE)
			continue;
		if (p->meta[i].where[TOPO_K_ASN] == 0)
			node->asn = TOPO_SITE_ASN_BASE + sites;
		sites++;
	}
	/* an anycast name server: an AS after the sites', the [lab]'s BGP
	 * timers, and its rank among the instances of its address as MED */
	for (int i = 0; i < t->nnodes; i++) {
		struct topo_node *node = &t->nodes[i];

		if (node->kind != TOPO_DNS || node->anycast.s_addr == 0)
			continue;
		node->asn = TOPO_SITE_ASN_BASE + sites++;
		node->bgp_keepalive_ns = t->bgp_keepalive_ns;
		node->bgp_hold_ns = t->bgp_hold_ns;
		node->bgp_mrai_ns = t->bgp_mrai_ns;
		node->metric = 10;
		for (int j = 0; j < i; j++)
			node->metric += t->nodes[j].kind == TOPO_DNS &&
						t->nodes[j].anycast.s_addr == node->anycast.s_addr
					    ? 10
					    : 0;
	}
	if (t->routing != TOPO_ROUTING_BGP) {
		if (t->nfrr_lines)
			topo_error(p, t->frr_lines[0].where,
				   "[%s %s] frr: FRR runs only with [lab] routing = bgp",
				   topo_kind_name(t->nodes[t->frr_lines[0].node].kind),
				   t->nodes[t->frr_lines[0].node].name);
		return;
	}
	topo_check_asns(p);
}

int topo_bgp_speaker(const struct topology *t, int n)
{
	return t->nodes[n].kind == TOPO_ROUTER || t->nodes[n].kind == TOPO_SITE ||
	       (t->nodes[n].kind == TOPO_DNS && t->nodes[n].anycast.s_addr != 0);
}

unsigned topo_node_asn(const struct topology *t, int n)
{
	return topo_bgp_speaker(t, n) ? t->nodes[n].asn : 0;
}

struct in_addr topo_router_id(const struct topology *t, int n)
{
	struct in_addr none = {0};

	if (t->nodes[n].kind == TOPO_ROUTER)
		return t->nodes[n].router_id;
	return t->nodes[n].link >= 0 ? t->links[t->nodes[n].link].node_addr : none;
}

int64_t topo_bgp_mrai_max_ns(const struct topology *t)
{
	int64_t m = 0;

	for (int n = 0; n < t->nnodes; n++)
		if (topo_bgp_speaker(t, n) && t->nodes[n].bgp_mrai_ns > m)
			m = t->nodes[n].bgp_mrai_ns;
	for (int l = 0; l < t->nrlinks; l++)
		if (t->rlinks[l].bgp_mrai_ns > m)
			m = t->rlinks[l].bgp_mrai_ns;
	return m / NSEC_PER_SEC * NSEC_PER_SEC;
}
