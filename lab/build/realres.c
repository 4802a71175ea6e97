/* A real resolver's configuration from a [resolver] node's knobs; see realres.h. */
#include "realres.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "agents/resolverd/resolverd_check.h"
#include "lab.h"
#include "resolvconf.h"
#include "timeutil.h"

static const char *const realres_progs[] = {NULL, "/usr/sbin/unbound", "/usr/sbin/kresd",
					    "/usr/sbin/named"};
static const char *const realres_labels[] = {NULL, "unbound", "kresd", "named"};
static const char *const realres_users[] = {NULL, "unbound", "knot-resolver", "bind"};

const char *realres_prog(int impl)
{
	return impl > TOPO_IMPL_RESOLVERD && impl <= TOPO_IMPL_BIND ? realres_progs[impl] : NULL;
}

const char *realres_label(int impl)
{
	return impl > TOPO_IMPL_RESOLVERD && impl <= TOPO_IMPL_BIND ? realres_labels[impl] : NULL;
}

const char *realres_user(int impl)
{
	return impl > TOPO_IMPL_RESOLVERD && impl <= TOPO_IMPL_BIND ? realres_users[impl] : NULL;
}

const char *realres_prog_of_label(const char *label)
{
	for (int i = TOPO_IMPL_UNBOUND; i <= TOPO_IMPL_BIND; i++)
		if (strcmp(label, realres_labels[i]) == 0)
			return realres_progs[i];
	return NULL;
}

int realres_inputs(const struct topology *t, int node, const char *dir, struct realres_in *in)
{
	memset(in, 0, sizeof(*in));
	if (strlen(dir) >= sizeof(in->dir))
		return -1;
	strcpy(in->dir, dir);
	in->addr = topo_resolver_addr(t, node, 1);
	/* a dual lab's IPv6 clients ask it over IPv6; it asks over IPv4 (ip =
	 * 6: over IPv6 alone, below) */
	if (topo_v6(t)) {
		in->has6 = 1;
		in->addr6 = topo_resolver_addr6(t, node, 1);
		in->v6only = !topo_v4(t);
	}
	/* iterate from the lab's root servers, or forward to the [dns]
	 * nodes that answer, as resolverd does (lab/build/resolvconf.c) */
	if (t->nodes[node].rsv_mode == TOPO_RSV_ITERATE) {
		in->iterate = 1;
		in->nservers = topo_dns_roots(t, in->servers, REALRES_SERVERS_MAX);
	} else {
		for (int n = 0; n < t->nnodes && in->nservers < REALRES_SERVERS_MAX; n++)
			if (t->nodes[n].kind == TOPO_DNS && topo_rsv_upstream(t, n))
				in->servers[in->nservers++] = t->links[t->nodes[n].link].node_addr;
	}
	/* each server's IPv6 twin: its link's */
	for (int i = 0; in->v6only && i < in->nservers; i++)
		for (int l = 0; l < t->nlinks; l++)
			if (t->links[l].node_addr.s_addr == in->servers[i].s_addr)
				in->servers6[i] = t->links[l].node_addr6;
	return in->nservers > 0 ? 0 : -1;
}

/* The knobs as the configuration needs them: resolverd's, and the two that
 * only the real resolvers read (qname_minimisation, ecs). */
struct realres_knobs {
	struct resolverd_knobs r;
	int qname_min, ecs;
};

/* realres_bool: yes/no as resolverd writes booleans; -1 if neither */
static int realres_bool(const char *v)
{
	static const char *const yes[] = {"yes", "true", "on", "1"}, *const no[] = {"no", "false",
										    "off", "0"};

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strcmp(v, yes[i]) == 0)
			return 1;
		if (strcmp(v, no[i]) == 0)
			return 0;
	}
	return -1;
}

/* realres_whole_s: a duration as whole seconds, or -1 if it is not one
 * (or is under one second) */
static long long realres_whole_s(int64_t ns)
{
	return ns >= NSEC_PER_SEC && ns % NSEC_PER_SEC == 0 ? ns / NSEC_PER_SEC : -1;
}

/* realres_cannot: why impl cannot express knob `key` as the node set it,
 * or NULL if it can. */
static const char *realres_cannot(int impl, const char *key, const struct realres_knobs *k)
{
	const int ub = impl == TOPO_IMPL_UNBOUND, kr = impl == TOPO_IMPL_KRESD,
		  bi = impl == TOPO_IMPL_BIND;

	if (strcmp(key, "min_ttl") == 0)
		return bi && k->r.min_ttl > 90 ? "its min-cache-ttl is at most 90 s" : NULL;
	if (strcmp(key, "neg_max_ttl") == 0)
		return kr ? "it has no cap of its own on negative answers' TTL" : NULL;
	if (strcmp(key, "stale_ttl") == 0)
		return kr ? "its stale answers carry TTL 0, whatever serve_stale's callback "
			    "returns "
			    "(measured with kresd 5.6)"
			  : NULL;
	if (strcmp(key, "max_stale") == 0)
		return k->r.serve_stale && realres_whole_s(k->r.max_stale_ns) < 0
			   ? "it takes whole seconds, at least 1"
			   : NULL;
	if (strcmp(key, "stale_recheck") == 0) {
		if (bi)
			return realres_whole_s(k->r.stale_recheck_ns) < 0 && k->r.stale_recheck_ns
				   ? "its stale-refresh-time takes whole seconds"
				   : NULL;
		return ub ? "it has no failure recheck timer: serve-expired asks upstream on "
			    "every query past serve-expired-client-timeout"
			  : "it has no failure recheck timer";
	}
	if (strcmp(key, "prefetch") == 0) {
		if (ub)
			return k->r.prefetch_pct && k->r.prefetch_pct != 10
				   ? "its prefetch is at 10 % of the TTL left, only (yes or 10%)"
				   : NULL;
		if (bi)
			return k->r.prefetch_pct
				   ? "its prefetch trigger is in seconds left (at most "
				     "10), not a share of the TTL"
				   : NULL;
		return "its prefetching of expiring records is built in and has no setting";
	}
	if (strcmp(key, "phase") == 0)
		return k->r.phase_zero ? NULL
				       : "its cache has no phase: a first fill is kept for the "
					 "whole TTL";
	if (strcmp(key, "max_entries") == 0)
		return "its cache is sized in bytes, not entries";
	if (strcmp(key, "timeout") == 0 || strcmp(key, "retries") == 0)
		return "its upstream timeouts and retries follow its own measured round-trip "
		       "times";
	if (strcmp(key, "stats_interval") == 0)
		return "it writes no resolver_stats events";
	if (strcmp(key, "max_pending") == 0)
		return kr ? "it has no limit on queries in flight" : NULL;
	if (strcmp(key, "ecs") == 0)
		return k->ecs && !ub ? "it sends no EDNS Client Subnet" : NULL;
	return NULL; /* max_ttl, serve_stale, qname_minimisation */
}

/* realres_knobs: node's knobs, every one checked for impl; errors on err.
 * 0 or -1. */
static int realres_knobs(const struct topology *t, int node, struct realres_knobs *k, FILE *err)
{
	const int impl = t->nodes[node].impl;
	char *text = NULL;
	size_t len = 0;
	int rc = 0, wrc;
	FILE *f;

	memset(k, 0, sizeof(*k));
	/* resolverd's parser reads its knobs as it would run them */
	if ((f = open_memstream(&text, &len)) == NULL)
		return -1;
	wrc = resolvconf_write(t, node, f);
	if (fclose(f) == EOF || wrc == -1 || (f = fmemopen(text, len, "r")) == NULL) {
		free(text);
		return -1;
	}
	rc = resolverd_knobs_stream(f, t->path, err, &k->r);
	fclose(f);
	free(text);
	if (rc == -1)
		return -1;
	/* in line order: a boolean's value, then whether impl can have it */
	for (int p = 0; p < t->nrsv_pairs; p++) {
		const struct topo_rsv_pair *pair = &t->rsv_pairs[p];
		const char *why;
		int b;

		if (pair->node != node)
			continue;
		if (strcmp(pair->key, "qname_minimisation") == 0 || strcmp(pair->key, "ecs") == 0) {
			if ((b = realres_bool(pair->value)) == -1) {
				fprintf(err, "%s:%d: %s: expected yes or no, got '%s'\n", t->path,
					pair->line, pair->key, pair->value);
				rc = -1;
				continue;
			}
			*(pair->key[0] == 'e' ? &k->ecs : &k->qname_min) = b;
		}
		if ((why = realres_cannot(impl, pair->key, k)) != NULL) {
			fprintf(err, "%s:%d: %s: %s cannot express this (%s)\n", t->path,
				pair->line, pair->key, topo_impl_name(impl), why);
			rc = -1;
		}
	}
	return rc;
}

static const char *realres_ip6(const struct in6_addr *a, char *buf)
{
	return inet_ntop(AF_INET6, a, buf, INET6_ADDRSTRLEN);
}

static const char *realres_ip(struct in_addr a, char *buf)
{
	return inet_ntop(AF_INET, &a, buf, INET_ADDRSTRLEN);
}

/* realres_server: server i as it is asked: its IPv6 address in a lab of
 * ip = 6, else its IPv4 one; into buf (INET6_ADDRSTRLEN) */
static const char *realres_server(const struct realres_in *in, int i, char *buf)
{
	return in->v6only ? realres_ip6(&in->servers6[i], buf) : realres_ip(in->servers[i], buf);
}

static void realres_unbound(const struct topology *t, int node, const struct realres_in *in,
			    const struct realres_knobs *k, FILE *out)
{
	char a[INET6_ADDRSTRLEN], a6[INET6_ADDRSTRLEN];

	fprintf(out,
		"# unbound's configuration of [resolver %s] (%s), written by steerlab\n"
		"# (docs/resolvers.md); unbound-control -c THIS_FILE reaches it\n"
		"server:\n"
		"\tverbosity: 1\n"
		"\tnum-threads: 1\n"
		"\tusername: \"unbound\"\n"
		"\tchroot: \"\"\n"
		"\tdirectory: \"%s\"\n"
		"\tpidfile: \"%s/unbound.pid\"\n"
		"\tuse-syslog: no\n"
		"\tlogfile: \"\"\n"
		"\tlog-time-ascii: yes\n"
		"\tdo-daemonize: no\n",
		t->nodes[node].name, t->path, in->dir, in->dir);
	/* ip = 6: on its IPv6 address alone, asking over IPv6 */
	if (in->v6only)
		fprintf(out,
			"\tinterface: %s@53\n"
			"\toutgoing-interface: %s\n"
			"\tip-freebind: yes\n"
			"\tdo-ip4: no\n"
			"\tdo-ip6: yes\n"
			"\taccess-control: ::/0 refuse\n"
			"\taccess-control: " ADDRPLAN6_NET_TEXT " allow\n",
			realres_ip6(&in->addr6, a6), a6);
	else
		fprintf(out,
			"\tinterface: %s@53\n"
			"\toutgoing-interface: %s\n"
			"\tip-freebind: yes\n",
			realres_ip(in->addr, a), a);
	/* a dual lab: its IPv6 clients' too; upstream stays IPv4 (the
	 * lab's servers and glue are IPv4: prefer-ip4) */
	if (in->v6only)
		;
	else if (in->has6)
		fprintf(out,
			"\tinterface: %s@53\n"
			"\tdo-ip6: yes\n"
			"\tprefer-ip4: yes\n"
			"\taccess-control: ::/0 refuse\n"
			"\taccess-control: " ADDRPLAN6_NET_TEXT " allow\n",
			realres_ip6(&in->addr6, a6));
	else
		fprintf(out, "\tdo-ip6: no\n");
	if (!in->v6only)
		fprintf(out, "\taccess-control: 0.0.0.0/0 refuse\n"
			     "\taccess-control: " ADDRPLAN_NET_TEXT " allow\n");
	fprintf(out, "\tdo-not-query-localhost: yes\n"
		     "\tede: yes\n");
	/* no validator: the lab's zones are unsigned */
	fprintf(out, "\tmodule-config: \"%s\"\n", k->ecs ? "subnetcache iterator" : "iterator");
	if (k->ecs)
		fprintf(out, "\tclient-subnet-always-forward: yes\n"
			     "\tmax-client-subnet-ipv4: 24\n"
			     "\tmax-client-subnet-ipv6: 56\n");
	fprintf(out,
		"\troot-hints: \"%s/root.hints\"\n"
		"\tcache-min-ttl: %u\n"
		"\tcache-max-ttl: %u\n"
		"\tcache-max-negative-ttl: %u\n"
		"\tserve-expired: %s\n",
		in->dir, k->r.min_ttl, k->r.max_ttl, k->r.neg_max_ttl,
		k->r.serve_stale ? "yes" : "no");
	if (k->r.serve_stale)
		fprintf(out,
			"\tserve-expired-reply-ttl: %u\n"
			"\tserve-expired-ttl: %lld\n"
			"\tserve-expired-client-timeout: 1800\n"
			"\tede-serve-expired: yes\n",
			k->r.stale_ttl, realres_whole_s(k->r.max_stale_ns));
	fprintf(out,
		"\tprefetch: %s\n"
		"\tqname-minimisation: %s\n"
		"\tnum-queries-per-thread: %u\n",
		k->r.prefetch_pct ? "yes" : "no", k->qname_min ? "yes" : "no", k->r.max_pending);
	for (int i = 0; k->ecs && i < in->nservers; i++)
		fprintf(out, "\tsend-client-subnet: %s\n", realres_server(in, i, a));
	fprintf(out,
		"remote-control:\n"
		"\tcontrol-enable: yes\n"
		"\tcontrol-interface: \"%s/unbound.ctl\"\n"
		"\tcontrol-use-cert: no\n",
		in->dir);
	if (!in->iterate) {
		fprintf(out, "forward-zone:\n\tname: \".\"\n");
		for (int i = 0; i < in->nservers; i++)
			fprintf(out, "\tforward-addr: %s\n", realres_server(in, i, a));
	}
}

static void realres_kresd(const struct topology *t, int node, const struct realres_in *in,
			  const struct realres_knobs *k, FILE *out)
{
	char a[INET6_ADDRSTRLEN], a6[INET6_ADDRSTRLEN];

	fprintf(out,
		"-- kresd's configuration of [resolver %s] (%s), written by steerlab\n"
		"-- (docs/resolvers.md)\n",
		t->nodes[node].name, t->path);
	/* ip = 6: on its IPv6 address alone, asking over IPv6 */
	if (in->v6only)
		fprintf(out,
			"net.ipv4 = false\n"
			"net.listen('%s', 53, { kind = 'dns', freebind = true })\n"
			"net.outgoing_v6('%s')\n",
			realres_ip6(&in->addr6, a6), a6);
	else
		fprintf(out,
			"net.ipv6 = false\n"
			"net.listen('%s', 53, { kind = 'dns', freebind = true })\n"
			"net.outgoing_v4('%s')\n",
			realres_ip(in->addr, a), a);
	/* a dual lab: its IPv6 clients' too (net.ipv6 = false: upstream
	 * stays IPv4, as the lab's servers and glue are) */
	if (in->has6 && !in->v6only)
		fprintf(out, "net.listen('%s', 53, { kind = 'dns', freebind = true })\n",
			realres_ip6(&in->addr6, a6));
	fprintf(out, "-- bound: from here on as knot-resolver\n"
		     "user('knot-resolver', 'knot-resolver')\n");
	/* nothing that asks the real root or validates (unsigned zones) */
	fprintf(out, "modules.unload('priming')\n"
		     "modules.unload('detect_time_skew')\n"
		     "modules.unload('detect_time_jump')\n"
		     "modules.unload('ta_signal_query')\n"
		     "modules.unload('ta_sentinel')\n"
		     "trust_anchors.remove('.')\n"
		     "modules.load('view')\n");
	if (!in->v6only)
		fprintf(out, "view:addr('" ADDRPLAN_NET_TEXT "', policy.all(policy.PASS))\n"
			     "view:addr('0.0.0.0/0', policy.all(policy.REFUSE))\n");
	if (in->has6)
		fprintf(out, "view:addr('" ADDRPLAN6_NET_TEXT "', policy.all(policy.PASS))\n"
			     "view:addr('::/0', policy.all(policy.REFUSE))\n");
	fprintf(out,
		"cache.open(64 * MB, 'lmdb://%s')\n"
		"cache.min_ttl(%u)\n"
		"cache.max_ttl(%u)\n"
		"option('NO_MINIMIZE', %s)\n",
		in->dir, k->r.min_ttl, k->r.max_ttl, k->qname_min ? "false" : "true");
	fprintf(out, "modules.load('hints > iterate')\nhints.root({");
	for (int i = 0; i < in->nservers; i++)
		fprintf(out, "%s['r%d.lab-roots.'] = { '%s' }", i ? ", " : " ", i + 1,
			realres_server(in, i, a));
	fprintf(out, " })\n");
	if (k->r.serve_stale)
		/* serve_stale's callback refuses (-1) an entry expired
		 * longer than max_stale; what else it returns is not the
		 * answer's TTL (kresd 5.6 answers stale with TTL 0) */
		fprintf(out,
			"modules.load('serve_stale < cache')\n"
			"serve_stale.timeout = 1800 -- ms\n"
			"serve_stale.callback = require('ffi').cast('kr_stale_cb', function(ttl)\n"
			"\tif ttl + %lld > 0 then return 1 end\n"
			"\treturn -1\n"
			"end)\n",
			realres_whole_s(k->r.max_stale_ns));
	if (!in->iterate) {
		fprintf(out, "policy.add(policy.all(policy.STUB({");
		for (int i = 0; i < in->nservers; i++)
			fprintf(out, "%s'%s'", i ? ", " : " ", realres_server(in, i, a));
		fprintf(out, " })))\n");
	}
}

static void realres_bind(const struct topology *t, int node, const struct realres_in *in,
			 const struct realres_knobs *k, FILE *out)
{
	char a[INET6_ADDRSTRLEN], a6[INET6_ADDRSTRLEN];

	fprintf(out,
		"// named's configuration of [resolver %s] (%s), written by steerlab\n"
		"// (docs/resolvers.md)\n"
		"options {\n"
		"\tdirectory \"%s\";\n"
		"\tpid-file \"%s/named.pid\";\n"
		"\tsession-keyfile \"%s/session.key\";\n",
		t->nodes[node].name, t->path, in->dir, in->dir, in->dir);
	if (in->v6only) /* ip = 6: its IPv6 address alone, asking over IPv6 */
		fprintf(out,
			"\tlisten-on { none; };\n"
			"\tlisten-on-v6 port 53 { %s; };\n"
			"\tquery-source-v6 address %s;\n"
			"\trecursion yes;\n"
			"\tallow-query { " ADDRPLAN6_NET_TEXT "; };\n"
			"\tallow-recursion { " ADDRPLAN6_NET_TEXT "; };\n",
			realres_ip6(&in->addr6, a6), a6);
	else {
		fprintf(out, "\tlisten-on port 53 { %s; };\n", realres_ip(in->addr, a));
		/* a dual lab: its IPv6 clients' too (upstream stays IPv4) */
		if (in->has6)
			fprintf(out, "\tlisten-on-v6 port 53 { %s; };\n",
				realres_ip6(&in->addr6, a6));
		else
			fprintf(out, "\tlisten-on-v6 { none; };\n");
		fprintf(out,
			"\tquery-source address %s;\n"
			"\trecursion yes;\n"
			"\tallow-query { " ADDRPLAN_NET_TEXT ";%s };\n"
			"\tallow-recursion { " ADDRPLAN_NET_TEXT ";%s };\n",
			a, in->has6 ? " " ADDRPLAN6_NET_TEXT ";" : "",
			in->has6 ? " " ADDRPLAN6_NET_TEXT ";" : "");
	}
	fprintf(out, "\tdnssec-validation no;\n"
		     "\tnotify no;\n");
	fprintf(out, "\tmax-cache-size 64m;\n");
	if (!in->iterate) {
		fprintf(out, "\tforward only;\n\tforwarders {");
		for (int i = 0; i < in->nservers; i++)
			fprintf(out, " %s;", realres_server(in, i, a));
		fprintf(out, " };\n");
	}
	fprintf(out,
		"\tmin-cache-ttl %u;\n"
		"\tmax-cache-ttl %u;\n"
		"\tmax-ncache-ttl %u;\n"
		"\tstale-answer-enable %s;\n"
		"\tstale-cache-enable %s;\n",
		k->r.min_ttl, k->r.max_ttl, k->r.neg_max_ttl, k->r.serve_stale ? "yes" : "no",
		k->r.serve_stale ? "yes" : "no");
	if (k->r.serve_stale)
		fprintf(out,
			"\tstale-answer-ttl %u;\n"
			"\tmax-stale-ttl %lld;\n"
			"\tstale-refresh-time %lld;\n"
			"\tstale-answer-client-timeout 1800;\n",
			k->r.stale_ttl, realres_whole_s(k->r.max_stale_ns),
			(long long)(k->r.stale_recheck_ns / NSEC_PER_SEC));
	fprintf(out,
		"\tprefetch 0;\n"
		"\tqname-minimization %s;\n"
		"\trecursive-clients %u;\n"
		"};\n"
		"controls { };\n"
		"zone \".\" { type hint; file \"%s/root.hints\"; };\n",
		k->qname_min ? "relaxed" : "off", k->r.max_pending, in->dir);
}

int realres_write(const struct topology *t, int node, const struct realres_in *in, FILE *out,
		  FILE *err)
{
	struct realres_knobs k;

	if (realres_knobs(t, node, &k, err) == -1)
		return -1;
	switch (t->nodes[node].impl) {
	case TOPO_IMPL_UNBOUND:
		realres_unbound(t, node, in, &k, out);
		break;
	case TOPO_IMPL_KRESD:
		realres_kresd(t, node, in, &k, out);
		break;
	case TOPO_IMPL_BIND:
		realres_bind(t, node, in, &k, out);
		break;
	default:
		return -1;
	}
	return ferror(out) ? -1 : 0;
}

int realres_write_hints(const struct realres_in *in, FILE *out)
{
	char a[INET6_ADDRSTRLEN];

	fprintf(out, "; the lab's root servers (steerlab, docs/resolvers.md)\n");
	for (int i = 0; i < in->nservers; i++)
		fprintf(out, ".\t3600000\tNS\tr%d.lab-roots.\n", i + 1);
	for (int i = 0; i < in->nservers; i++)
		fprintf(out, "r%d.lab-roots.\t3600000\t%s\t%s\n", i + 1, in->v6only ? "AAAA" : "A",
			realres_server(in, i, a));
	return ferror(out) ? -1 : 0;
}
