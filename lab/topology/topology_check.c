/*
 * Topology files after the file is read: the --set overrides, the lab-wide
 * defaults copied into the nodes, the links and their addresses, and the
 * checks that span keys (a link names a router, fail_at before duration,
 * at most one failing site, a resolver names a [dns] or [resolver] node and
 * one of its caches, site addresses differ, every client has a path to a
 * site, [lab] target_share names sites; the routers and their [link]s are
 * topology_routers.c's), and which clients [lab] sticky_share makes sticky.
 * Each error points where the key was set.
 */
#include "topology_int.h"

#include <arpa/inet.h>
#include <math.h>
#include <string.h>

#include "timeutil.h"

/* topo_later: of two places a key was set, the one that took effect last
 * (--set after the file, later lines after earlier ones; 0 never). */
static int topo_later(int a, int b)
{
	long ra = a > 0 ? a : a < 0 ? 2147483647L - a : 0;
	long rb = b > 0 ? b : b < 0 ? 2147483647L - b : 0;

	return ra >= rb ? a : b;
}

static char *topo_trim(char *s)
{
	char *e;

	s += strspn(s, " \t");
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
	return s;
}

/* topo_find_raw: index of the [zone] or [name] section called name, or -1. */
static int topo_find_raw(const struct topology *t, const char *name)
{
	for (int i = 0; i < t->nraw_sections; i++)
		if (strcmp(t->raw_sections[i].name, name) == 0)
			return i;
	return -1;
}

/* topo_apply_set: sets[i] is "key=value" ([lab]) or "node.key=value". Node
 * names have no dots; DNS names do, so the node is what precedes the last
 * dot, and a [zone]/[name] section there gets a message of its own. */
void topo_apply_set(struct topo_parse *p, int i)
{
	char arg[512], *eq, *key, *value, *dot; /* "c1.name=" and a 253-character name */
	int raw;
	int where = -1 - i, sect = TOPO_SECT_LAB;

	if (strlen(p->sets[i]) >= sizeof(arg)) {
		topo_error(p, where, "too long (at most %zu characters)", sizeof(arg) - 1);
		return;
	}
	snprintf(arg, sizeof(arg), "%s", p->sets[i]);
	eq = strchr(arg, '=');
	if (eq == NULL) {
		topo_error(p, where, "expected key=value or node.key=value");
		return;
	}
	*eq = '\0';
	key = topo_trim(arg);
	value = topo_trim(eq + 1);
	dot = strrchr(key, '.');
	if (dot) {
		*dot = '\0';
		sect = topo_find(p->t, key);
		raw = sect < 0 ? topo_find_raw(p->t, key) : -1;
		if (raw >= 0) {
			topo_error(p, where,
				   "[%s %s]: [zone]/[name] keys cannot be overridden (they go to "
				   "authd as written)",
				   p->t->raw_sections[raw].kind, key);
			return;
		}
		if (sect < 0 && strchr(key, '.')) {
			topo_error(
			    p, where,
			    "no node named '%s' (node names have no dots; [zone]/[name] keys "
			    "cannot be overridden)",
			    key);
			return;
		}
		if (sect < 0 && topo_find_event(p->t, key) >= 0) {
			topo_event_set(p, topo_find_event(p->t, key), dot + 1, value, where);
			return;
		}
		if (sect < 0) {
			topo_error(p, where, "no node or event named '%s'", key);
			return;
		}
		key = dot + 1;
	}
	topo_set(p, sect, key, value, where);
}

/* topo_check_before: value a of key ka must be less than value b of kb;
 * otherwise blames whichever of the two was set last. */
static void topo_check_before(struct topo_parse *p, int sect, int ka, int64_t a, int kb, int64_t b)
{
	const struct topo_key *keys;
	char label[TOPO_NAME_MAX + 16], va[32], vb[32];
	int n, wa = *topo_where(p, sect, ka), wb = *topo_where(p, sect, kb);

	if (a < b || (wa == 0 && wb == 0))
		return;
	keys = topo_sect_keys(p, sect, &n);
	topo_label(p, sect, label, sizeof(label));
	topo_format_duration(a, va, sizeof(va));
	topo_format_duration(b, vb, sizeof(vb));
	if (topo_later(wa, wb) == wa)
		topo_error(p, wa, "%s %s: expected less than %s (%s), got %s", label, keys[ka].name,
			   keys[kb].name, vb, va);
	else
		topo_error(p, wb, "%s %s: expected more than %s (%s), got %s", label, keys[kb].name,
			   keys[ka].name, va, vb);
}

/* topo_check_ecmp: resilient nexthop groups are routed's (static routing):
 * FRR's zebra installs BGP's multipath as a hash-threshold route */
static void topo_check_ecmp(struct topo_parse *p)
{
	if (p->t->ecmp == TOPO_ECMP_RESILIENT && p->t->routing == TOPO_ROUTING_BGP)
		topo_error(p, p->lab_where[TOPO_K_ECMP],
			   "[lab] ecmp = resilient: routed's resilient nexthop groups are static "
			   "routing's (routing = static); with routing = bgp, ecmp = hash");
}

/* topo_has_fail_shorthand: whether a [site] says fail = yes */
static int topo_has_fail_shorthand(const struct topology *t)
{
	for (int i = 0; i < t->nnodes; i++)
		if (t->nodes[i].kind == TOPO_SITE && t->nodes[i].fail)
			return 1;
	return 0;
}

/* topo_check_jitter: the latest instant the failure may fall at,
 * fail_at + fail_jitter, is before the end of the traffic (with a site's
 * fail = yes; the [event] sections' instants are topology_events.c's) */
static void topo_check_jitter(struct topo_parse *p)
{
	const struct topology *t = p->t;
	int wj = p->lab_where[TOPO_K_FAIL_JITTER], shorthand = 0;
	char va[32], vj[32], vd[32];

	for (int i = 0; i < t->nnodes; i++)
		shorthand |= t->nodes[i].kind == TOPO_SITE && t->nodes[i].fail;
	if (!shorthand || t->fail_jitter_ns == 0 || t->fail_at_ns >= t->duration_ns ||
	    t->fail_at_ns + t->fail_jitter_ns < t->duration_ns)
		return;
	topo_error(p, wj,
		   "[lab] fail_jitter: expected fail_at + fail_jitter before duration (%s), got "
		   "%s + %s: the failure could fall after the traffic ends",
		   topo_format_duration(t->duration_ns, vd, sizeof(vd)),
		   topo_format_duration(t->fail_at_ns, va, sizeof(va)),
		   topo_format_duration(t->fail_jitter_ns, vj, sizeof(vj)));
}

static void topo_link_node(struct topo_parse *p, int i)
{
	struct topology *t = p->t;
	struct topo_node *node = &t->nodes[i];
	struct topo_link *l;
	int where = p->meta[i].where[TOPO_K_LINK], r;
	char label[TOPO_NAME_MAX + 16];

	topo_label(p, i, label, sizeof(label));
	if (where == 0 && (p->meta[i].bad[TOPO_K_LINK] || p->in.lost))
		return;
	if (where == 0) {
		topo_error(p, node->line, "%s link: missing: expected the name of a router", label);
		return;
	}
	r = topo_find(t, p->meta[i].link);
	if (r < 0) {
		topo_error(p, where, "%s link: '%s' is not a router in this file", label,
			   p->meta[i].link);
		return;
	}
	if (t->nodes[r].kind != TOPO_ROUTER) {
		topo_error(p, where, "%s link: '%s' is a %s, not a router", label, p->meta[i].link,
			   topo_kind_name(t->nodes[r].kind));
		return;
	}
	node->link = t->nlinks++;
	l = &t->links[node->link];
	memset(l, 0, sizeof(*l));
	l->router = r;
	l->node = i;
	l->line = where > 0 ? where : 0;
	l->router_addr = addrplan_link((unsigned)node->link, 0);
	l->node_addr = addrplan_link((unsigned)node->link, 1);
	l->router_addr6 = addrplan6_link((unsigned)node->link, 0);
	l->node_addr6 = addrplan6_link((unsigned)node->link, 1);
	l->prefixlen = 30;
	_Static_assert(sizeof(node->name) <= sizeof(l->router_ifname), "ifname too short");
	memcpy(l->router_ifname, node->name, sizeof(node->name));
	snprintf(l->node_ifname, sizeof(l->node_ifname), "eth0");
}

/* topo_where_text: where a value came from, for a message that names two. */
static const char *topo_where_text(const struct topo_parse *p, int where, int line, char *buf,
				   size_t len)
{
	if (where > 0)
		snprintf(buf, len, "line %d", where);
	else if (where < 0)
		snprintf(buf, len, "--set %s", p->sets[-where - 1]);
	else
		snprintf(buf, len, "its default, line %d", line);
	return buf;
}

/* topo_instance: which cache of [resolver] node d client i asks: the one
 * written (NAME.N), else the next in turn among the clients that name d
 * without a number, in file order. 0 after an error. */
static int topo_instance(struct topo_parse *p, int i, int d)
{
	const struct topology *t = p->t;
	const struct topo_meta *m = &p->meta[i];
	const struct topo_node *r = &t->nodes[d];
	char label[TOPO_NAME_MAX + 16], w[540];
	int k = 0;

	if (p->meta[d].bad[TOPO_K_COUNT]) /* said; which caches there are is unknown */
		return m->resolver.instance ? (int)m->resolver.instance : 1;
	if (m->resolver.instance > r->count) {
		topo_label(p, i, label, sizeof(label));
		topo_error(
		    p, m->where[TOPO_K_RESOLVER],
		    "%s resolver: '%s.%u': [resolver %s] has %u cache%s (count = %u, %s)", label,
		    r->name, m->resolver.instance, r->name, r->count, r->count == 1 ? "" : "s",
		    r->count,
		    topo_where_text(p, p->meta[d].where[TOPO_K_COUNT], r->line, w, sizeof(w)));
		return 0;
	}
	if (m->resolver.instance)
		return (int)m->resolver.instance;
	for (int j = 0; j < i; j++)
		if (t->nodes[j].kind == TOPO_CLIENT && t->nodes[j].resolver == d &&
		    p->meta[j].resolver.instance == 0)
			k++;
	return (int)((unsigned)k % r->count) + 1;
}

/* topo_resolve: a client's resolver, the name of a [dns] or [resolver]
 * node; -1 in anycast mode, where it is not used (but still checked when
 * written). */
static void topo_resolve(struct topo_parse *p, int i)
{
	struct topology *t = p->t;
	struct topo_node *node = &t->nodes[i];
	struct topo_meta *m = &p->meta[i];
	int where = m->where[TOPO_K_RESOLVER], d = -1, instance = 0;
	char label[TOPO_NAME_MAX + 16];

	topo_label(p, i, label, sizeof(label));
	node->resolver = -1;
	node->resolver_instance = 0;
	if (where != 0) {
		d = topo_find(t, m->resolver.name);
		if (d < 0) {
			topo_error(p, where,
				   "%s resolver: '%s' is not a [dns] or [resolver] node in this "
				   "file",
				   label, m->resolver.name);
			return;
		}
		if (t->nodes[d].kind != TOPO_DNS && t->nodes[d].kind != TOPO_RESOLVER) {
			topo_error(p, where,
				   "%s resolver: '%s' is a %s, not a [dns] or [resolver] node",
				   label, m->resolver.name, topo_kind_name(t->nodes[d].kind));
			return;
		}
		if (t->nodes[d].kind == TOPO_DNS && m->resolver.instance) {
			topo_error(p, where,
				   "%s resolver: '%s.%u': '%s' is a [dns] node; only the caches of "
				   "a [resolver] node are numbered",
				   label, m->resolver.name, m->resolver.instance, m->resolver.name);
			return;
		}
		if (t->nodes[d].kind == TOPO_RESOLVER && (instance = topo_instance(p, i, d)) == 0)
			return;
	}
	if (node->mode == TOPO_MODE_ANYCAST)
		return;
	if (d < 0 && !m->bad[TOPO_K_RESOLVER] && !p->in.lost)
		topo_error(p, m->where[TOPO_K_MODE],
			   "%s mode = %s needs resolver = NAME of a [dns] or [resolver] node",
			   label, node->mode == TOPO_MODE_DNS ? "dns" : "both");
	node->resolver = d;
	node->resolver_instance = instance;
	node->resolver_all = node->population > 0 && d >= 0 && t->nodes[d].kind == TOPO_RESOLVER &&
			     m->resolver.instance == 0;
}

/* topo_check_family: a client of family = 6 or dual needs the lab's IPv6
 * (ip = dual), dual a timeout past the attempt delay; what it does not do
 * over IPv6 yet is refused by name (a population: over UDP, without a
 * source_block) */
static void topo_check_family(struct topo_parse *p, int i)
{
	const struct topology *t = p->t;
	const struct topo_node *node = &t->nodes[i];
	int where = p->meta[i].where[TOPO_K_FAMILY] ? p->meta[i].where[TOPO_K_FAMILY]
						    : p->lab_where[TOPO_K_LAB_FAMILY];
	const char *without = NULL;

	const char *family = node->family == TOPO_FAMILY_DUAL ? "dual" : "6";

	if (node->family == TOPO_FAMILY_4 || p->lab_bad[TOPO_K_IP])
		return;
	if (!topo_v6(t)) {
		topo_error(p, where,
			   "[client %s] family = %s: the lab's network has no IPv6; set [lab] ip "
			   "= dual",
			   node->name, family);
		return;
	}
	if (node->family == TOPO_FAMILY_DUAL && node->timeout_ns <= TOPO_ATTEMPT_DELAY_NS)
		topo_error(p, where,
			   "[client %s] family = dual: its timeout (%lld ms) must be longer than "
			   "Happy Eyeballs' attempt delay, 250 ms: a request is sent again over "
			   "IPv4 that long after it left over IPv6",
			   node->name, (long long)(node->timeout_ns / 1000000));
	if (node->population > 0 && node->proto != TOPO_PROTO_UDP)
		without = "a population over TCP or HTTP (proto = tcp or http with population = "
			  "N)";
	else if (node->population > 0 && node->source_block.len > 0)
		without = "a population's source_block (its block is IPv4)";
	else if (t->ecmp == TOPO_ECMP_RESILIENT)
		without = "ecmp = resilient (its nexthop groups are IPv4 only here)";
	for (int k = 0; without == NULL && k < t->nnodes; k++)
		if (t->nodes[k].kind == TOPO_SITE && t->nodes[k].front_door.s_addr)
			without = "front doors";
	if (without)
		topo_error(p, where ? where : node->line,
			   "[client %s] family = %s: not yet with %s; IPv6 clients send over "
			   "UDP or, one client, TCP and HTTP",
			   node->name, family, without);
}

/* topo_check_prober_family: a [prober] of family = 6 probes the sites'
 * own IPv6 addresses and reports to authd over IPv6: the lab's IPv6 (ip =
 * dual); one family a prober */
static void topo_check_prober_family(struct topo_parse *p, int i)
{
	const struct topo_node *node = &p->t->nodes[i];
	int where = p->meta[i].where[TOPO_K_PROBER_FAMILY];

	if (node->family == TOPO_FAMILY_4 || p->lab_bad[TOPO_K_IP])
		return;
	if (node->family == TOPO_FAMILY_DUAL)
		topo_error(p, where,
			   "[prober %s] family = dual: a prober probes over one family; expected "
			   "4 or 6 (two [prober] nodes probe both)",
			   node->name);
	else if (!topo_v6(p->t))
		topo_error(p, where,
			   "[prober %s] family = 6: the lab's network has no IPv6; set [lab] ip "
			   "= dual",
			   node->name);
}

/* topo_check_population: the population keys go with population, the
 * exponent with skew = zipf; a node's id fits the id scheme (lib/wire.h) */
static void topo_check_population(struct topo_parse *p, int i)
{
	static const int keys[] = {TOPO_K_SKEW, TOPO_K_ZIPF_EXPONENT, TOPO_K_ARRIVALS};
	static const char *const names[] = {"skew", "zipf_exponent", "arrivals"};
	const struct topo_node *node = &p->t->nodes[i];
	const struct topo_meta *m = &p->meta[i];

	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		if (m->where[keys[k]] != 0 && node->population == 0)
			topo_error(p, m->where[keys[k]],
				   "[client %s] %s: goes with population = N (a population of "
				   "N logical clients)",
				   node->name, names[k]);
	if (m->where[TOPO_K_ZIPF_EXPONENT] != 0 && node->skew != TOPO_SKEW_ZIPF)
		topo_error(p, m->where[TOPO_K_ZIPF_EXPONENT],
			   "[client %s] zipf_exponent: goes with skew = zipf", node->name);
	if (node->zipf_exponent > 10)
		topo_error(p, m->where[TOPO_K_ZIPF_EXPONENT],
			   "[client %s] zipf_exponent: expected at most 10, got %g", node->name,
			   node->zipf_exponent);
	if (m->where[TOPO_K_SOURCE_BLOCK] != 0 && node->population == 0)
		topo_error(p, m->where[TOPO_K_SOURCE_BLOCK],
			   "[client %s] source_block: goes with population = N (a population of "
			   "N logical clients)",
			   node->name);
	if (m->where[TOPO_K_RESOLVER_WEIGHTS] != 0) {
		int n = 1;

		for (const char *c = node->resolver_weights; *c; c++)
			n += *c == ',';
		if (!node->resolver_all)
			topo_error(p, m->where[TOPO_K_RESOLVER_WEIGHTS],
				   "[client %s] resolver_weights: goes with population = N and "
				   "resolver = NAME of a [resolver] node (without .N)",
				   node->name);
		else if ((unsigned)n != p->t->nodes[node->resolver].count)
			topo_error(p, m->where[TOPO_K_RESOLVER_WEIGHTS],
				   "[client %s] resolver_weights: %d weights for the %u caches of "
				   "[resolver %s]",
				   node->name, n, p->t->nodes[node->resolver].count,
				   p->t->nodes[node->resolver].name);
	}
	if (node->addresses == TOPO_ADDRESSES_NEXT && node->proto != TOPO_PROTO_TCP)
		topo_error(p,
			   m->where[TOPO_K_ADDRESSES] ? m->where[TOPO_K_ADDRESSES]
						      : p->lab_where[TOPO_K_LAB_ADDRESSES],
			   "[client %s] addresses = next: tries the next address when a "
			   "connection fails, so needs proto = tcp",
			   node->name);
	else if (node->population > 0 && node->addresses != TOPO_ADDRESSES_FIRST)
		topo_error(p,
			   m->where[TOPO_K_ADDRESSES] ? m->where[TOPO_K_ADDRESSES]
						      : p->lab_where[TOPO_K_LAB_ADDRESSES],
			   "[client %s] addresses: a population's logical clients take the first "
			   "address of each answer; leave addresses = first for it",
			   node->name);
	if (node->resolve == TOPO_RESOLVE_LIBCURL &&
	    (node->proto != TOPO_PROTO_HTTP || node->mode == TOPO_MODE_ANYCAST ||
	     node->population > 0 || node->sticky_ns > 0 ||
	     node->addresses != TOPO_ADDRESSES_FIRST))
		topo_error(p, m->where[TOPO_K_RESOLVE],
			   "[client %s] resolve = libcurl: libcurl resolves the name of an HTTP "
			   "client's DNS flow (proto = http, mode = dns or both), one client (no "
			   "population), keeping its answer as its DNS cache says (no sticky, "
			   "addresses = first)",
			   node->name);
	else if (m->where[TOPO_K_DNS_CACHE] && node->resolve != TOPO_RESOLVE_LIBCURL)
		topo_error(p, m->where[TOPO_K_DNS_CACHE],
			   "[client %s] dns_cache: libcurl's DNS cache, with resolve = libcurl",
			   node->name);
	{
		static const struct {
			int key;
			const char *name;
		} knobs[] = {{TOPO_K_REQUESTS_PER_CONN, "requests_per_connection"},
			     {TOPO_K_IDLE_TIMEOUT, "idle_timeout"},
			     {TOPO_K_PIPELINE, "pipeline"}};

		for (size_t k = 0; k < sizeof(knobs) / sizeof(knobs[0]); k++)
			if (m->where[knobs[k].key] &&
			    (node->proto != TOPO_PROTO_TCP || node->population > 0))
				topo_error(p, m->where[knobs[k].key],
					   "[client %s] %s: the lab's own client over TCP "
					   "(proto = tcp, one client, no population); libcurl "
					   "keeps its own connections",
					   node->name, knobs[k].name);
	}
	if (node->population > 0 && node->client_id > 8191)
		topo_error(p, m->where[TOPO_K_POPULATION],
			   "[client %s] population: only the first 8191 clients may be "
			   "populations (the id scheme, docs/agents.md); this one is client %u",
			   node->name, node->client_id);
}

/* topo_check_tcp_kind: one TCP service a lab: a client of proto = tcp
 * needs sited's stream on the port HTTP takes when a client speaks it or a
 * prober checks with it */
static void topo_check_tcp_kind(struct topo_parse *p)
{
	struct topology *t = p->t;

	if (!topo_has_http(t))
		return;
	for (int i = 0; i < t->nnodes; i++) {
		const struct topo_node *node = &t->nodes[i];

		if (node->kind != TOPO_CLIENT || node->proto != TOPO_PROTO_TCP)
			continue;
		topo_error(
		    p, p->meta[i].where[TOPO_K_PROTO] ? p->meta[i].where[TOPO_K_PROTO] : node->line,
		    "[client %s] proto = tcp: the sites serve HTTP on their TCP port in this "
		    "lab (a client with proto = http, or check = http); one TCP service a "
		    "lab: set proto = http or udp for it",
		    node->name);
	}
}

/* topo_check_http_keys: an http check's own GET: a path, and the status
 * and body that pass it, for a lab whose probers check over HTTP */
static void topo_check_http_keys(struct topo_parse *p)
{
	struct topology *t = p->t;
	int wp = p->lab_where[TOPO_K_HTTP_PATH], any = 0;

	for (int i = 0; i < t->nnodes; i++)
		any |= (t->nodes[i].kind == TOPO_SITE || t->nodes[i].kind == TOPO_PROBER) &&
		       t->nodes[i].check == TOPO_CHECK_HTTP;
	if (wp && (t->http_path[0] != '/' || strchr(t->http_path, ' ') != NULL))
		topo_error(p, wp,
			   "[lab] http_path: expected a path from /, without blanks, got '%s'",
			   t->http_path);
	else if (wp && !any)
		topo_error(p, wp,
			   "[lab] http_path: no prober checks over HTTP (check = http on a "
			   "[prober], [site] or the [lab])");
	if (!wp && (p->lab_where[TOPO_K_HTTP_STATUS] || p->lab_where[TOPO_K_HTTP_BODY]))
		topo_error(p,
			   p->lab_where[TOPO_K_HTTP_STATUS] ? p->lab_where[TOPO_K_HTTP_STATUS]
							    : p->lab_where[TOPO_K_HTTP_BODY],
			   "[lab] http_status and http_body go with http_path (the lab's own "
			   "target passes on 200 in the site's name)");
}

/* topo_check_nginx: nginx answers HTTP and nothing else of sited's: every
 * client speaks HTTP, the probers that check it connect, and the timeline
 * does to it only what a host's processes can undergo */
static void topo_check_nginx(struct topo_parse *p)
{
	struct topology *t = p->t;

	for (int i = 0; i < t->nnodes; i++) {
		const struct topo_node *s = &t->nodes[i];
		int w = p->meta[i].where[TOPO_K_SITE_IMPL];

		if (s->kind != TOPO_SITE || s->site_impl != TOPO_SITE_NGINX)
			continue;
		for (int j = 0; j < t->nnodes; j++) {
			const struct topo_node *o = &t->nodes[j];

			if (o->kind == TOPO_CLIENT && o->proto != TOPO_PROTO_HTTP)
				topo_error(p, w,
					   "[site %s] impl = nginx: nginx answers HTTP only, and "
					   "client %s speaks %s; set proto = http",
					   s->name, o->name,
					   o->proto == TOPO_PROTO_TCP ? "tcp" : "udp");
			else if ((o == s || o->kind == TOPO_PROBER) &&
				 (o->check == TOPO_CHECK_UDP ||
				  (o == s && o->check == TOPO_CHECK_ICMP)))
				topo_error(p, w,
					   "[site %s] impl = nginx: %s checks it with a request of "
					   "sited's (check = udp); set check = http or tcp",
					   s->name, o == s ? "its own prober" : o->name);
		}
		for (int e = 0; e < t->nevents; e++) {
			int a = t->events[e].action;

			if (t->events[e].node == i &&
			    (a == TOPO_A_DRAIN || a == TOPO_A_UNDRAIN || a == TOPO_A_DEGRADE ||
			     a == TOPO_A_UNDEGRADE || a == TOPO_A_SLOW || a == TOPO_A_UNSLOW))
				topo_error(
				    p, p->evm[e].where[1] ? p->evm[e].where[1] : t->events[e].line,
				    "[event %s] action = %s: sited's, and site %s runs nginx "
				    "(kill, crash, freeze, a link or an impairment fail it)",
				    t->events[e].name, topo_action_name(a), s->name);
		}
	}
}

/* topo_check_icmp: an icmp check is a vantage point's: a site's own
 * prober would ping the site's own address, on its own lo */
static void topo_check_icmp(struct topo_parse *p)
{
	struct topology *t = p->t;

	for (int i = 0; i < t->nnodes; i++) {
		const struct topo_node *node = &t->nodes[i];
		int w = p->meta[i].where[TOPO_K_SITE_CHECK];

		if (node->kind != TOPO_SITE || node->check != TOPO_CHECK_ICMP)
			continue;
		topo_error(p, w ? w : p->lab_where[TOPO_K_LAB_CHECK],
			   "[site %s] check = icmp: its own prober would ping its own address, "
			   "always answered; an icmp check is a [prober]'s (a vantage point's): "
			   "set check = icmp there",
			   node->name);
	}
}

static int topo_in_block(const struct topo_block *b, struct in_addr a)
{
	uint32_t mask = b->len == 32 ? 0xFFFFFFFFu : ~(0xFFFFFFFFu >> b->len);

	return b->len > 0 && (ntohl(a.s_addr) & mask) == ntohl(b->net.s_addr);
}

/* topo_check_blocks: a client's source_block holds neither the service nor
 * a site's address, nor overlaps another client's */
static void topo_check_blocks(struct topo_parse *p)
{
	struct topology *t = p->t;
	char a[INET_ADDRSTRLEN];

	for (int i = 0; i < t->nnodes; i++) {
		const struct topo_node *n = &t->nodes[i];
		int w = p->meta[i].where[TOPO_K_SOURCE_BLOCK];

		if (n->kind != TOPO_CLIENT || n->source_block.len == 0)
			continue;
		if (topo_in_block(&n->source_block, t->service))
			topo_error(p, w, "[client %s] source_block: holds the service address %s",
				   n->name, inet_ntop(AF_INET, &t->service, a, sizeof(a)));
		for (int j = 0; j < t->nnodes; j++) {
			const struct topo_node *o = &t->nodes[j];

			if (o->kind == TOPO_SITE && topo_in_block(&n->source_block, o->address))
				topo_error(p, w,
					   "[client %s] source_block: holds site %s's address %s",
					   n->name, o->name,
					   inet_ntop(AF_INET, &o->address, a, sizeof(a)));
			if (j < i && o->kind == TOPO_CLIENT && o->source_block.len > 0 &&
			    (topo_in_block(&n->source_block, o->source_block.net) ||
			     topo_in_block(&o->source_block, n->source_block.net)))
				topo_error(
				    p, w,
				    "[client %s] source_block: overlaps client %s's (line %d)",
				    n->name, o->name, p->meta[j].where[TOPO_K_SOURCE_BLOCK]);
		}
	}
}

/* topo_check_addresses: every site's address differs from the service and
 * from every other site's. The one set last is blamed, the other named. */
static void topo_check_addresses(struct topo_parse *p)
{
	struct topology *t = p->t;
	char label[TOPO_NAME_MAX + 16], other[TOPO_NAME_MAX + 16], a[INET_ADDRSTRLEN], w[540];
	int lw = p->lab_where[TOPO_K_SERVICE];

	for (int i = 0; i < t->nnodes; i++) {
		const struct topo_node *n = &t->nodes[i];
		int wi = p->meta[i].where[TOPO_K_ADDRESS], wj, j;

		if (n->kind != TOPO_SITE || p->meta[i].bad[TOPO_K_ADDRESS])
			continue;
		inet_ntop(AF_INET, &n->address, a, sizeof(a));
		topo_label(p, i, label, sizeof(label));
		if (n->address.s_addr == t->service.s_addr && !p->lab_bad[TOPO_K_SERVICE]) {
			if (topo_later(wi, lw) == wi)
				topo_error(p, wi, "%s address: %s is also the [lab] service (%s)",
					   label, a,
					   topo_where_text(p, lw, p->lab_line, w, sizeof(w)));
			else
				topo_error(p, lw, "[lab] service: %s is also %s's address (%s)", a,
					   label, topo_where_text(p, wi, n->line, w, sizeof(w)));
			continue;
		}
		for (j = 0; j < i; j++) {
			const struct topo_node *o = &t->nodes[j];

			if (o->kind == TOPO_SITE && o->address.s_addr == n->address.s_addr &&
			    !p->meta[j].bad[TOPO_K_ADDRESS])
				break;
		}
		if (j == i)
			continue;
		wj = p->meta[j].where[TOPO_K_ADDRESS];
		topo_label(p, j, other, sizeof(other));
		if (topo_later(wi, wj) == wi)
			topo_error(p, wi, "%s address: %s is also %s's address (%s)", label, a,
				   other, topo_where_text(p, wj, t->nodes[j].line, w, sizeof(w)));
		else
			topo_error(p, wj, "%s address: %s is also %s's address (%s)", other, a,
				   label, topo_where_text(p, wi, n->line, w, sizeof(w)));
	}
}

/* topo_inherit: lab-wide defaults into the node's keys not set for it. */
static void topo_inherit(struct topo_parse *p, int i)
{
	const struct topo_key *keys;
	int n;

	keys = topo_sect_keys(p, i, &n);
	for (int k = 0; k < n; k++) {
		if (keys[k].lab_off < 0 || p->meta[i].where[k] != 0)
			continue;
		memcpy((char *)&p->t->nodes[i] + keys[k].off, (char *)p->t + keys[k].lab_off,
		       topo_value_size(keys[k].type));
	}
}

/* topo_check_dns: what the DNS kinds need of each other: a [dns] node
 * serves at least one [zone]; [zone]/[name] sections, probers and
 * resolvers need a [dns] node. (A client in dns mode needs one through its
 * resolver; which node serves which zone, and what a resolver asks, is
 * topology_tree.c's.) */
static void topo_check_dns(struct topo_parse *p)
{
	struct topology *t = p->t;
	int dns = p->headers[TOPO_DNS] > 0;

	if (p->in.lost)
		return; /* the missing header may be there */
	for (int i = 0; i < t->nnodes; i++) {
		if (t->nodes[i].kind == TOPO_DNS && p->zone_headers == 0) {
			topo_error(p, t->nodes[i].line,
				   "[dns %s]: a [dns] node needs at least one [zone] section",
				   t->nodes[i].name);
			break;
		}
	}
	if (!dns && p->raw_line)
		topo_error(p, p->raw_line, "%s has no [dns] node to serve it", p->raw_label);
	for (int i = 0; i < t->nnodes && !dns; i++) {
		if (t->nodes[i].kind == TOPO_PROBER) {
			topo_error(p, t->nodes[i].line,
				   "[prober %s] reports to a [dns] node; there is none",
				   t->nodes[i].name);
			break;
		}
	}
	for (int i = 0; i < t->nnodes; i++) {
		int wi = p->meta[i].where[TOPO_K_IMPL], wc = p->meta[i].where[TOPO_K_COUNT];
		char w[540];

		/* a real resolver is one cache per process (docs/resolvers.md) */
		if (t->nodes[i].kind != TOPO_RESOLVER || t->nodes[i].impl == TOPO_IMPL_RESOLVERD ||
		    t->nodes[i].count <= 1 || p->meta[i].bad[TOPO_K_COUNT])
			continue;
		/* blamed on whichever was set last: a --set after the file */
		topo_error(p, (wi < 0 || wc < 0) ? (wi < wc ? wi : wc) : (wi > wc ? wi : wc),
			   "[resolver %s] impl = %s runs one cache per process: expected count = 1 "
			   "(one node per cache), got count = %u (count: %s; impl: %s)",
			   t->nodes[i].name, topo_impl_name(t->nodes[i].impl), t->nodes[i].count,
			   topo_where_text(p, wc, t->nodes[i].line, w, sizeof(w)),
			   topo_where_text(p, wi, t->nodes[i].line, w + 270, 270));
	}
	for (int i = 0; i < t->nnodes; i++) {
		if (t->nodes[i].kind != TOPO_RESOLVER)
			continue;
		/* how many it asks is topology_tree.c's: forward or iterate */
		if (!dns)
			topo_error(p, t->nodes[i].line,
				   "[resolver %s] forwards to the [dns] nodes; there is none",
				   t->nodes[i].name);
		break;
	}
}

/* topo_dns_checks: a [dns] node's checks, where it does not say them: its
 * implementation's own defaults (authd has none: the probers check) */
static void topo_dns_checks(struct topo_parse *p)
{
	for (int i = 0; i < p->t->nnodes; i++) {
		struct topo_node *n = &p->t->nodes[i];
		int gdnsd = n->dns_impl == TOPO_DNS_GDNSD;

		if (n->kind != TOPO_DNS || n->dns_impl == TOPO_DNS_AUTHD)
			continue;
		if (n->check_interval_ns == 0)
			n->check_interval_ns =
			    gdnsd ? TOPO_GDNSD_CHECK_INTERVAL_NS : TOPO_PDNS_CHECK_INTERVAL_NS;
		/* gdnsd: half the interval, in whole seconds */
		if (n->check_timeout_ns == 0)
			n->check_timeout_ns =
			    gdnsd ? n->check_interval_ns / 2 / NSEC_PER_SEC * NSEC_PER_SEC
				  : TOPO_PDNS_CHECK_TIMEOUT_NS;
		if (n->check_down == 0)
			n->check_down = gdnsd ? TOPO_GDNSD_CHECK_DOWN : 1;
		if (n->check_up == 0)
			n->check_up = gdnsd ? TOPO_GDNSD_CHECK_UP : 1;
	}
}

/* topo_settle: [lab] settle's default, when it is not said, long enough
 * for every site's prober to declare it alive and announce its route: a
 * first probe lost (sited not yet listening), then probe_up good ones, and
 * a second for the rest of the lab (probe_interval = 2s took a lab past
 * the 5 s default) */
static void topo_settle(struct topo_parse *p)
{
	struct topology *t = p->t;

	if (p->lab_where[TOPO_K_SETTLE] != 0)
		return;
	for (int i = 0; i < t->nnodes; i++) {
		const struct topo_node *n = &t->nodes[i];
		int64_t need;

		if (n->kind != TOPO_SITE)
			continue;
		need = (int64_t)(n->probe_up + 1) * n->probe_interval_ns + NSEC_PER_SEC;
		if (need > t->settle_ns)
			t->settle_ns = need;
	}
}

/* topo_sticky: which clients [lab] sticky_share makes sticky. Of the
 * clients in mode dns or both without a sticky of their own (in the file or
 * by --set), in file order, the k-th (from 1) keeps each address [lab]
 * sticky long when floor(k q) > floor((k - 1) q): spread evenly, the same
 * ones every time. The floors are exact, q taken to TOPO_SHARE_PLACES
 * decimal places as topo_print writes it (k <= 256: no overflow). */
static void topo_sticky(struct topo_parse *p)
{
	struct topology *t = p->t;
	uint64_t q = (uint64_t)llround(t->sticky_share * (double)TOPO_SHARE_ONE), k = 0;

	for (int i = 0; i < t->nnodes; i++) {
		struct topo_node *node = &t->nodes[i];

		/* a population applies the share within (lab/build/agents.c) */
		if (node->kind != TOPO_CLIENT || node->mode == TOPO_MODE_ANYCAST ||
		    p->meta[i].where[TOPO_K_STICKY] != 0 || node->population > 0)
			continue;
		k++;
		if (k * q / TOPO_SHARE_ONE > (k - 1) * q / TOPO_SHARE_ONE)
			node->sticky_ns = t->sticky_ns;
	}
}

/* topo_check_target_share: each SITE of [lab] target_share names a [site],
 * at most once (the syntax is topology_keys.c's) */
static void topo_check_target_share(struct topo_parse *p)
{
	const struct topology *t = p->t;
	int where = p->lab_where[TOPO_K_TARGET_SHARE];
	char buf[TOPO_TARGET_SHARE_LEN], *save = NULL, *tok;
	char seen[TOPO_MAX_NODES] = {0};

	if (where == 0)
		return;
	snprintf(buf, sizeof(buf), "%s", t->target_share);
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		int s;

		*strchr(tok, ':') = '\0';
		s = topo_find(t, tok);
		if (s < 0)
			topo_error(p, where, "[lab] target_share: '%s' is not a site in this file",
				   tok);
		else if (t->nodes[s].kind != TOPO_SITE)
			topo_error(p, where, "[lab] target_share: '%s' is a %s, not a site", tok,
				   topo_kind_name(t->nodes[s].kind));
		else if (seen[s])
			topo_error(
			    p, where,
			    "[lab] target_share: site '%s' twice: expected each site at most "
			    "once",
			    tok);
		else
			seen[s] = 1;
	}
}

/* topo_check_paths: a client has somewhere to send: a site on its router
 * or on a router connected to it (the run would be 100 % loss). The
 * routers' graph itself is topology_routers.c's. */
static void topo_check_paths(struct topo_parse *p)
{
	const struct topology *t = p->t;
	static struct topo_path path[TOPO_MAX_NODES];
	char label[TOPO_NAME_MAX + 16];
	int unlinked = 0;

	if (p->in.lost)
		return; /* a missing line may be the link */
	for (int i = 0; i < t->nnodes; i++)
		unlinked += t->nodes[i].kind == TOPO_SITE && t->nodes[i].link < 0;
	for (int i = 0; i < t->nnodes; i++) {
		const struct topo_node *c = &t->nodes[i];
		int r, sites = 0;

		/* a site whose link was refused (said) may be the one it needs */
		if (c->kind != TOPO_CLIENT || c->link < 0 || p->headers[TOPO_SITE] == 0 || unlinked)
			continue;
		r = t->links[c->link].router;
		topo_paths(t, r, path);
		for (int j = 0; j < t->nlinks; j++)
			sites += path[t->links[j].router].hops >= 0 &&
				 t->nodes[t->links[j].node].kind == TOPO_SITE;
		if (sites)
			continue;
		topo_label(p, i, label, sizeof(label));
		topo_error(p, p->meta[i].where[TOPO_K_LINK],
			   "%s link: no path to any site: no [site] is linked to router '%s' or "
			   "to a router connected to it; expected the router of a site",
			   label, t->nodes[r].name);
	}
}

void topo_check(struct topo_parse *p)
{
	static const char *const names[] = {"router", "site", "client"};
	struct topology *t = p->t;
	int sites = 0, clients = 0, resolvers = 0, failing = -1;

	if (p->lab_where[TOPO_K_NAME] == 0 && !p->lab_bad[TOPO_K_NAME] && !p->in.lost) {
		if (p->lab_line)
			topo_error(p, p->lab_line, "[lab] name: missing: %s", TOPO_NAME_RULE);
		else
			topo_error(p, 0, "no [lab] section: a lab needs a name");
	}
	for (int k = 0; k < 3; k++)
		if (p->headers[k] == 0 && !p->in.lost)
			topo_error(p, 0, "no [%s] section: a lab needs at least one %s", names[k],
				   names[k]);
	topo_check_dns(p);
	topo_tree_nodes(p); /* before the links are numbered: root and tld take the last */
	/* fail_at is a site's fail = yes's: a timeline of [event]s alone may
	 * run shorter than its default */
	if (p->lab_where[TOPO_K_FAIL_AT] != 0 || topo_has_fail_shorthand(t))
		topo_check_before(p, TOPO_SECT_LAB, TOPO_K_FAIL_AT, t->fail_at_ns, TOPO_K_DURATION,
				  t->duration_ns);
	topo_check_jitter(p);
	/* BGP's convergence is the warm-up's longest wait: a loaded 2-core
	 * machine took several labs past 5 s, and a session closed at
	 * bring-up (a connection collision, RFC 4271 6.8, then BFD not yet
	 * up: FRR sends Cease/BFD Down) comes back only when the connect
	 * retry fires, so the bound is that timer and a margin; the wait ends
	 * as soon as BGP has converged, so a longer bound costs nothing when
	 * it is quick */
	if (t->routing == TOPO_ROUTING_BGP && p->lab_where[TOPO_K_SETTLE] == 0)
		p->t->settle_ns =
		    t->bgp_connect_retry_ns + TOPO_SETTLE_BGP_MARGIN_NS > TOPO_SETTLE_BGP_NS
			? t->bgp_connect_retry_ns + TOPO_SETTLE_BGP_MARGIN_NS
			: TOPO_SETTLE_BGP_NS;
	topo_check_ecmp(p);
	topo_check_before(p, TOPO_SECT_LAB, TOPO_K_LAB_PROBE_TIMEOUT, t->probe_timeout_ns,
			  TOPO_K_LAB_PROBE_INTERVAL, t->probe_interval_ns);
	topo_check_routers(p);
	/* the static mode's hold timer: three refreshes by default, and more
	 * than one, or every route would expire between two of them */
	if (*topo_where(p, TOPO_SECT_LAB, TOPO_K_STATIC_HOLD) == 0)
		t->static_hold_ns = 3 * t->static_refresh_ns;
	else if (t->static_hold_ns != 0)
		topo_check_before(p, TOPO_SECT_LAB, TOPO_K_STATIC_REFRESH, t->static_refresh_ns,
				  TOPO_K_STATIC_HOLD, t->static_hold_ns);

	t->nlinks = 0;
	topo_ip6_defaults(p);
	for (int i = 0; i < t->nnodes; i++) {
		struct topo_node *node = &t->nodes[i];
		struct topo_meta *m = &p->meta[i];

		topo_inherit(p, i);
		if (node->kind == TOPO_ROUTER)
			continue;
		topo_link_node(p, i);
		switch (node->kind) {
		case TOPO_CLIENT:
			node->client_id = (uint32_t)++clients;
			topo_resolve(p, i);
			topo_check_population(p, i);
			topo_check_family(p, i);
			break;
		case TOPO_PROBER:
			/* inherited values were checked as the lab's */
			topo_check_before(p, i, TOPO_K_PROBER_PROBE_TIMEOUT, node->probe_timeout_ns,
					  TOPO_K_PROBER_PROBE_INTERVAL, node->probe_interval_ns);
			topo_check_prober_family(p, i);
			break;
		case TOPO_SITE:
			sites++;
			if (m->where[TOPO_K_METRIC] == 0)
				node->metric = 10u * (unsigned)sites;
			else if (t->nrouters > 1 && node->metric > TOPO_METRIC_MAX_MULTI)
				topo_error(
				    p, m->where[TOPO_K_METRIC],
				    "[site %s] metric: expected at most %u in a lab of several "
				    "routers (a router installs hops x %u + metric), got %u",
				    node->name, TOPO_METRIC_MAX_MULTI, TOPO_HOPS_METRIC,
				    node->metric);
			if (m->where[TOPO_K_ADDRESS] == 0)
				node->address = addrplan_site((unsigned)sites);
			node->address6 = addrplan6_site((unsigned)sites);
			if (node->fail && failing >= 0)
				topo_error(p, m->where[TOPO_K_FAIL],
					   "[site %s] fail: at most one site may fail, and site "
					   "'%s' already does",
					   node->name, t->nodes[failing].name);
			else if (node->fail)
				failing = i;
			topo_check_before(p, i, TOPO_K_PROBE_TIMEOUT, node->probe_timeout_ns,
					  TOPO_K_PROBE_INTERVAL, node->probe_interval_ns);
			break;
		case TOPO_RESOLVER:
			if (resolvers == TOPO_MAX_RESOLVERS)
				topo_error(p, node->line,
					   "[resolver %s]: too many [resolver] nodes (at most "
					   "%d: " ADDRPLAN_RESOLVER_RANGE_TEXT ")",
					   node->name, TOPO_MAX_RESOLVERS);
			else
				node->resolver_net = addrplan_resolver_block((unsigned)resolvers);
			node->address6 = addrplan6_resolver_cache((unsigned)resolvers, 0);
			resolvers++;
			break;
		case TOPO_ROUTER:
		case TOPO_DNS:
			break;
		}
	}
	topo_tree_zones(p);
	topo_check_anycast(p);
	topo_check_front_doors(p);
	topo_check_ip6(p);
	topo_dns_checks(p);
	topo_settle(p);
	topo_sticky(p);
	topo_check_addresses(p);
	topo_check_tcp_kind(p);
	topo_check_icmp(p);
	topo_check_nginx(p);
	topo_check_http_keys(p);
	topo_check_blocks(p);
	topo_check_paths(p);
	topo_check_target_share(p);
	topo_check_bgp(p);
	topo_check_events(p);
	topo_check_policy(p);
	topo_check_impair(p);
	topo_check_hosts(p);
}
