/*
 * Which agents each node runs, and their command lines (docs/agents.md):
 *
 *   router   routed (routes to every site's announcement); a collector
 *            watching its FIB's route to the service, capturing every link
 *            to a site of its own and the [link]s it is the first end of
 *            (BGP, TCP port 179: capture-link-R1-R2.pcap)
 *   site     sited; a prober announcing the anycast address while healthy,
 *            to every router
 *   dns      authd, configured from the topology (dnsconf.c)
 *   prober   a prober in remote mode: every site's address, to every authd
 *   resolver resolverd, its caches configured from the topology (resolvconf.c);
 *            or, with impl, unbound, kresd or named (realres.c, realres_run.c)
 *
 * With routing = bgp, routers and sites run FRR (zebra, bgpd; lab/build/frr.c),
 * routers no routed, and a site's prober keeps the anycast address on the
 * site's lo while healthy (-L) for bgpd to announce. Every node's agents
 * are started at once, in steps (agents_start, below).
 *   client   a client per flow: anycast, DNS-steered, or both
 */
#include "lab.h"

#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "announce.h"
#include "authority.h"
#include "dnsconf.h"
#include "log.h"
#include "resolvconf.h"
#include "strfmt.h"
#include "zone_change.h"

/* An argument vector and the strings it points into. Room for a few
 * arguments per node of the largest lab: a router's collector and routed, and
 * authd, take one or two per site or prober (a few hundred bytes each). */
#define LAB_ARGV_MAX (4 * TOPO_MAX_NODES + 32)
struct lab_argv {
	char *argv[LAB_ARGV_MAX];
	int n;
	char store[LAB_ARGV_MAX * 64];
	size_t used;
	int overflow;
};

static void agents_argv_add(struct lab_argv *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void agents_argv_add(struct lab_argv *a, const char *fmt, ...)
{
	size_t room = sizeof(a->store) - a->used;
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(a->store + a->used, room, fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= room ||
	    a->n + 1 >= (int)(sizeof(a->argv) / sizeof(a->argv[0]))) {
		a->overflow = 1;
		return;
	}
	a->argv[a->n++] = a->store + a->used;
	a->argv[a->n] = NULL;
	a->used += (size_t)len + 1;
}

/* agents_argv_start: PROG -n NODE -e RUNDIR/NODE.LABEL.events.jsonl */
static void agents_argv_start(struct lab_argv *a, const struct lab *lab, int node, const char *prog,
			      const char *label)
{
	/* not a memset of its 70 kB: each page written after a fork is a
	 * page copied (the agents forked before it share it until they exec) */
	a->n = 0;
	a->used = 0;
	a->overflow = 0;
	a->argv[0] = NULL;
	agents_argv_add(a, "%s", prog);
	agents_argv_add(a, "-n");
	agents_argv_add(a, "%s", lab->t->nodes[node].name);
	agents_argv_add(a, "-e");
	agents_argv_add(a, "%s/%s.%s.events.jsonl", lab->rundir, lab->t->nodes[node].name, label);
}

static int agents_argv_run(struct lab *lab, int node, const char *prog, const char *label,
			   struct lab_argv *a)
{
	if (a->overflow) {
		log_warnx("%s of %s: command line too long", label, lab->t->nodes[node].name);
		return -1;
	}
	return lab_start_agent_as(lab, node, prog, label, a->argv) == -1 ? -1 : 0;
}

static const char *agents_ip(struct in_addr a, char *buf)
{
	return inet_ntop(AF_INET, &a, buf, INET_ADDRSTRLEN);
}

static const char *agents_ip6(const struct in6_addr *a, char *buf)
{
	return inet_ntop(AF_INET6, a, buf, INET6_ADDRSTRLEN);
}

/* agents_authds: -A for every authd's control socket, where a prober's
 * reports go (PowerDNS and gdnsd check the sites themselves: none); at its
 * link's IPv6 address for a prober of family 6 */
static void agents_authds(struct lab_argv *a, const struct topology *t, int v6)
{
	char buf[INET6_ADDRSTRLEN];

	for (int i = 0; i < t->nnodes; i++) {
		const struct topo_link *l;

		if (t->nodes[i].kind != TOPO_DNS || t->nodes[i].dns_impl != TOPO_DNS_AUTHD)
			continue;
		l = &t->links[t->nodes[i].link]; /* a router's link is -1 */
		agents_argv_add(a, "-A");
		if (v6)
			agents_argv_add(a, "[%s]:%d",
					inet_ntop(AF_INET6, &l->node_addr6, buf, sizeof(buf)),
					DNSCONF_CONTROL_PORT);
		else
			agents_argv_add(a, "%s:%d", agents_ip(l->node_addr, buf),
					DNSCONF_CONTROL_PORT);
	}
}

/* agents_probers6: whether a [prober] reports over IPv6 (family = 6) */
static int agents_probers6(const struct topology *t)
{
	for (int i = 0; i < t->nnodes; i++)
		if (t->nodes[i].kind == TOPO_PROBER && t->nodes[i].family == TOPO_FAMILY_6)
			return 1;
	return 0;
}

/* agents_service_prefixes: -P ADDRESS/32 for every anycast address the
 * sites announce: the [lab] service, the front doors (topo_services) */
static void agents_service_prefixes(struct lab_argv *a, const struct topology *t)
{
	struct in_addr svc[TOPO_MAX_NODES];
	char buf[INET_ADDRSTRLEN];
	int nsvc = topo_services(t, svc, TOPO_MAX_NODES);

	if (nsvc == 0) /* no site: the service all the same */
		svc[nsvc++] = t->service;
	for (int i = 0; i < nsvc; i++) {
		agents_argv_add(a, "-P");
		agents_argv_add(a, "%s/32", agents_ip(svc[i], buf));
	}
}

/* agents_anycast_prefixes: -P ADDRESS/32 for every anycast name server's
 * address, each once */
static void agents_anycast_prefixes(struct lab_argv *a, const struct topology *t)
{
	struct in_addr any[TOPO_MAX_NODES];
	char buf[INET_ADDRSTRLEN];
	int n = topo_anycast_ns_addrs(t, any, TOPO_MAX_NODES);

	for (int i = 0; i < n; i++) {
		agents_argv_add(a, "-P");
		agents_argv_add(a, "%s/32", agents_ip(any[i], buf));
	}
}

/* lab_start_collectors: a router's collector, in every router: its FIB's
 * route to the service, its site links (the requests and their replies;
 * with routing = bgp, the site's BGP session apart, whole), the [link]s it
 * is the first end of; and collector-dns if it has authd or [resolver]
 * links; each capture with the kernel ring its link needs
 * (topo_capture_ring) */
static int lab_start_collectors(struct lab *lab, int n)
{
	const struct topology *t = lab->t;
	char capdir[PATH_MAX];
	struct lab_argv a;
	int ncap = 0;

	if (lab_host_capdir(lab, n, capdir, sizeof(capdir)) == -1)
		return -1;
	agents_argv_start(&a, lab, n, "collector", "collector");
	agents_argv_add(&a, "-o");
	agents_argv_add(&a, "%s", capdir);
	agents_argv_add(&a, "-f");
	/* a client of proto = tcp or http: its connections' segments too;
	 * PowerDNS's checks: their SYN, SYN-ACK, RST and FIN
	 * (probes/clocks/clocks_pdns.c) */
	if (topo_has_proximity(t)) /* and the sites' echoes to the queriers */
		agents_argv_add(&a, "udp port %u or tcp port %u or icmp", t->port, t->port);
	else if (topo_has_tcp(t))
		agents_argv_add(&a, "udp port %u or tcp port %u", t->port, t->port);
	else if (authority_any(t) && !topo_v4(t))
		/* ip = 6: their checks' segments all (BPF reads no TCP flags
		 * behind an IPv6 header) */
		agents_argv_add(&a, "udp port %u or (ip6 and tcp port %u)", t->port, t->port);
	else if (authority_any(t))
		agents_argv_add(&a,
				"udp port %u or (tcp port %u and "
				"tcp[tcpflags] & (tcp-syn|tcp-fin|tcp-rst) != 0)",
				t->port, t->port);
	else
		agents_argv_add(&a, "udp port %u", t->port);
	if (topo_v4(t))
		agents_service_prefixes(&a, t);
	/* and the service's IPv6 address: its routes (routed's twins, or
	 * BGP's) are in the same FIB (the IPv6 FIB clocks) */
	if (topo_v6(t)) {
		char buf6[INET6_ADDRSTRLEN];

		agents_argv_add(&a, "-P");
		agents_argv_add(&a, "%s/128",
				inet_ntop(AF_INET6, &t->service6, buf6, sizeof(buf6)));
	}
	/* routing = bgp: the anycast name servers' routes too (the warm-up
	 * waits for them, run_anycast_ns_ready) */
	if (t->routing == TOPO_ROUTING_BGP)
		agents_anycast_prefixes(&a, t);
	for (int i = 0; i < t->nlinks; i++) {
		const struct topo_link *l = &t->links[i];
		if (l->router != n || t->nodes[l->node].kind != TOPO_SITE)
			continue;
		agents_argv_add(&a, "-c");
		agents_argv_add(&a, "%s=%s:%llu", l->router_ifname, t->nodes[l->node].name,
				(unsigned long long)topo_capture_ring(t, i));
		if (!topo_captured_bgp(t, i))
			continue;
		agents_argv_add(&a, "-b");
		agents_argv_add(&a, "%s=link-%s-%s:%llu", l->router_ifname, t->nodes[n].name,
				t->nodes[l->node].name,
				(unsigned long long)topo_capture_ring_rlink(t, -1));
	}
	/* a [link R1 R2] is captured once, by R1: its BGP (the requests that
	 * cross it are counted on the site links) */
	for (int i = 0; i < t->nrlinks; i++) {
		const struct topo_rlink *rl = &t->rlinks[i];
		if (rl->a != n)
			continue;
		agents_argv_add(&a, "-b");
		agents_argv_add(&a, "%s=link-%s-%s:%llu", rl->a_ifname, t->nodes[rl->a].name,
				t->nodes[rl->b].name,
				(unsigned long long)topo_capture_ring_rlink(t, i));
	}
	/* in every router, sites or not: every FIB's route to the service
	 * is recorded (with -P, the collector runs with no capture too) */
	if (agents_argv_run(lab, n, "collector", "collector", &a) == -1)
		return -1;
	/* the DNS of each authd's link (the queries that reach it: the upstream
	 * load of DNS steering) and of each [resolver]'s (its clients' queries,
	 * its answers, its own queries upstream: what it answered from cache) */
	ncap = 0;
	agents_argv_start(&a, lab, n, "collector", "collector-dns");
	agents_argv_add(&a, "-o");
	agents_argv_add(&a, "%s", capdir);
	agents_argv_add(&a, "-f");
	agents_argv_add(&a, "udp port 53");
	for (int i = 0; i < t->nlinks; i++) {
		const struct topo_link *l = &t->links[i];
		enum topo_kind kind = t->nodes[l->node].kind;
		if (l->router != n || (kind != TOPO_DNS && kind != TOPO_RESOLVER))
			continue;
		agents_argv_add(&a, "-c");
		agents_argv_add(&a, "%s=%s-%s:%llu", l->router_ifname,
				kind == TOPO_DNS ? "dns" : "resolver", t->nodes[l->node].name,
				(unsigned long long)topo_capture_ring(t, i));
		ncap++;
	}
	return ncap ? agents_argv_run(lab, n, "collector", "collector-dns", &a) : 0;
}

/* agents_twins: whether routed installs the service's IPv6 twins (a dual
 * lab; not with resilient ECMP, whose nexthop groups are IPv4 only here:
 * its IPv6 clients are refused at check) */
static int agents_twins(const struct topology *t)
{
	return t->ip == TOPO_IP_DUAL && t->ecmp != TOPO_ECMP_RESILIENT;
}

/* lab_start_routed: routing = static, router n's routed */
static int lab_start_routed(struct lab *lab, int n)
{
	const struct topology *t = lab->t;
	struct lab_argv a;
	static struct topo_path path[TOPO_MAX_NODES];
	char addr[INET_ADDRSTRLEN], nh[INET_ADDRSTRLEN];
	int nsites = 0;
	struct in_addr via;
	const char *ifname;

	if (t->routing == TOPO_ROUTING_BGP) /* zebra installs the routes */
		return 0;
	/* routed takes announcements only from the sites' probers, each from
	 * its site's link address and for its site, and only of the service
	 * prefix (agents/routed/acl.h). A site of another router is routed
	 * via the next hop toward it, hops * 2^24 above its metric:
	 * routing = static, every router told at once */
	agents_argv_start(&a, lab, n, "routed", "routed");
	if (topo_v4(t)) {
		agents_service_prefixes(&a, t);
		/* and every anycast name server's address */
		agents_anycast_prefixes(&a, t);
	} else {
		/* ip = 6: the service's IPv6 address, from the sites' IPv6
		 * link addresses, on every IPv6 address of the router */
		char buf6[INET6_ADDRSTRLEN];

		agents_argv_add(&a, "-l");
		agents_argv_add(&a, "[::]:%u", ANNOUNCE_PORT);
		agents_argv_add(&a, "-P");
		agents_argv_add(&a, "%s/128", agents_ip6(&t->service6, buf6));
	}
	topo_paths(t, n, path);
	for (int i = 0; i < t->nlinks; i++) {
		const struct topo_link *l = &t->links[i];
		int hops;

		if (t->nodes[l->node].kind != TOPO_SITE &&
		    !(t->nodes[l->node].kind == TOPO_DNS && t->nodes[l->node].anycast.s_addr))
			continue;
		hops = topo_route_to(t, n, path, l->node, &via, &ifname);
		if (hops < 0)
			continue;
		if (!topo_v4(t)) {
			struct in6_addr via6;
			char a6[INET6_ADDRSTRLEN], nh6[INET6_ADDRSTRLEN];

			topo_route_to6(t, n, path, l->node, &via6);
			agents_argv_add(&a, "-a");
			if (hops == 0)
				agents_argv_add(&a, "%s=%s", t->nodes[l->node].name,
						agents_ip6(&l->node_addr6, a6));
			else
				agents_argv_add(&a, "%s=%s,via=%s,hops=%d", t->nodes[l->node].name,
						agents_ip6(&l->node_addr6, a6),
						agents_ip6(&via6, nh6), hops);
			nsites++;
			continue;
		}
		agents_argv_add(&a, "-a");
		if (hops == 0)
			agents_argv_add(&a, "%s=%s", t->nodes[l->node].name,
					agents_ip(l->node_addr, addr));
		else
			agents_argv_add(&a, "%s=%s,via=%s,hops=%d", t->nodes[l->node].name,
					agents_ip(l->node_addr, addr), agents_ip(via, nh), hops);
		nsites++;
		/* a dual lab: the next hop's IPv6 twin, for the service's */
		if (agents_twins(t) && t->nodes[l->node].kind == TOPO_SITE) {
			struct in6_addr via6;
			char buf6[INET6_ADDRSTRLEN];

			topo_route_to6(t, n, path, l->node, &via6);
			agents_argv_add(&a, "-6");
			agents_argv_add(&a, "%s=%s", agents_ip(hops ? via : l->node_addr, addr),
					inet_ntop(AF_INET6, &via6, buf6, sizeof(buf6)));
		}
	}
	if (agents_twins(t)) {
		char buf6[INET6_ADDRSTRLEN];

		agents_argv_add(&a, "-6");
		agents_argv_add(&a, "%s/32=%s/128", agents_ip(t->service, addr),
				inet_ntop(AF_INET6, &t->service6, buf6, sizeof(buf6)));
	}
	if (nsites == 0) {
		agents_argv_add(&a, "-a");
		agents_argv_add(&a, "none");
	}
	/* the hold timer: a site that stops announcing (crashed, frozen) is
	 * withdrawn after static_hold */
	agents_argv_add(&a, "-H");
	agents_argv_add(&a, "%lldus", (long long)t->static_hold_ns / 1000);
	if (t->ecmp != TOPO_ECMP_NO) {
		agents_argv_add(&a, "-E");
		agents_argv_add(&a, "%s", t->ecmp == TOPO_ECMP_RESILIENT ? "resilient" : "hash");
	}
	return agents_argv_run(lab, n, "routed", "routed", &a);
}

/* agents_probe_counts: a prober's interval, timeout and thresholds */
static void agents_probe_counts(struct lab_argv *a, int64_t interval_ns, int64_t timeout_ns,
				unsigned down, unsigned up)
{
	agents_argv_add(a, "-i");
	agents_argv_add(a, "%lldus", (long long)interval_ns / 1000);
	agents_argv_add(a, "-w");
	agents_argv_add(a, "%lldus", (long long)timeout_ns / 1000);
	agents_argv_add(a, "-d");
	agents_argv_add(a, "%u", down);
	agents_argv_add(a, "-u");
	agents_argv_add(a, "%u", up);
}

static void agents_probe_timing(struct lab_argv *a, const struct topology *t,
				const struct topo_node *node)
{
	agents_probe_counts(a, node->probe_interval_ns, node->probe_timeout_ns, node->probe_down,
			    node->probe_up);
	/* a shallow check: a TCP connect, not a request answered; or a deep
	 * one over HTTP */
	if (node->check != TOPO_CHECK_UDP) {
		static const char *const check[] = {"udp", "tcp", "http", "icmp"};

		agents_argv_add(a, "-C");
		agents_argv_add(a, "%s", check[node->check]);
	}
	/* a connection's own timeout, for the checks that make one */
	if ((node->check == TOPO_CHECK_TCP || node->check == TOPO_CHECK_HTTP) &&
	    t->probe_connect_timeout_ns > 0) {
		agents_argv_add(a, "-W");
		agents_argv_add(a, "%lldus", (long long)t->probe_connect_timeout_ns / 1000);
	}
	/* an http check of the lab's own path */
	if (node->check == TOPO_CHECK_HTTP && t->http_path[0]) {
		agents_argv_add(a, "-U");
		agents_argv_add(a, "%s", t->http_path);
		agents_argv_add(a, "-X");
		agents_argv_add(a, "%u", t->http_status);
		if (t->http_body[0]) {
			agents_argv_add(a, "-b");
			agents_argv_add(a, "%s", t->http_body);
		}
	}
}

int lab_start_sited(struct lab *lab, int n)
{
	struct lab_argv a;

	if (lab->t->nodes[n].site_impl == TOPO_SITE_NGINX)
		return lab_start_nginx(lab, n);
	agents_argv_start(&a, lab, n, "sited", "sited");
	agents_argv_add(&a, "-s");
	agents_argv_add(&a, "%s", lab->t->nodes[n].name);
	agents_argv_add(&a, "-p");
	agents_argv_add(&a, "%u", lab->t->port);
	/* HTTP on the TCP port when a client speaks it (one listener kind a run) */
	if (topo_has_http(lab->t))
		agents_argv_add(&a, "-H");
	if (a.overflow) {
		log_warnx("sited of %s: command line too long", lab->t->nodes[n].name);
		return -1;
	}
	return lab_start_agent_as(lab, n, "sited", "sited", a.argv);
}

/* agents_prober_routers: a prober's routeds (routing = static): its own
 * router's, then every other router's at its id (one withdrawal, every
 * FIB), and its verdict repeated every static_refresh, so that the
 * routers' hold timers keep it */
static void agents_prober_routers(struct lab_argv *a, const struct topology *t,
				  const struct topo_node *node)
{
	char buf[INET6_ADDRSTRLEN];
	int v4 = topo_v4(t);

	/* ip = 6: over IPv6, to the link's and the loopbacks' IPv6 addresses */
	agents_argv_add(a, "-R");
	if (v4)
		agents_argv_add(a, "%s", agents_ip(t->links[node->link].router_addr, buf));
	else
		agents_argv_add(a, "[%s]:%u", agents_ip6(&t->links[node->link].router_addr6, buf),
				ANNOUNCE_PORT);
	for (int r = 0; r < t->nnodes; r++) {
		if (t->nodes[r].kind != TOPO_ROUTER || r == t->links[node->link].router)
			continue;
		agents_argv_add(a, "-R");
		if (v4)
			agents_argv_add(a, "%s", agents_ip(t->nodes[r].router_id, buf));
		else
			agents_argv_add(a, "[%s]:%u", agents_ip6(&t->nodes[r].address6, buf),
					ANNOUNCE_PORT);
	}
	agents_argv_add(a, "-k");
	agents_argv_add(a, "%lldus", (long long)t->static_refresh_ns / 1000);
}

/* lab_start_site_prober: site n's prober, probing its sited */
static int lab_start_site_prober(struct lab *lab, int n)
{
	const struct topology *t = lab->t;
	const struct topo_node *node = &t->nodes[n];
	struct lab_argv a;
	char buf[INET_ADDRSTRLEN];

	agents_argv_start(&a, lab, n, "prober", "prober");
	agents_argv_add(&a, "-s");
	agents_argv_add(&a, "%s", node->name);
	agents_argv_add(&a, "-t");
	agents_argv_add(&a, "127.0.0.1:%u", t->port);
	if (topo_v4(t)) {
		agents_argv_add(&a, "-P"); /* the service, or its front door */
		agents_argv_add(&a, "%s/32", agents_ip(topo_site_service(t, n), buf));
	}
	if (t->routing == TOPO_ROUTING_BGP) {
		/* the address on lo while healthy; bgpd announces it (and
		 * the service's IPv6 address beside it, or alone: ip = 6) */
		agents_argv_add(&a, "-L");
		if (topo_v6(t) && node->front_door.s_addr == 0) {
			char buf6[INET6_ADDRSTRLEN];

			agents_argv_add(&a, "-6");
			agents_argv_add(&a, "%s",
					inet_ntop(AF_INET6, &t->service6, buf6, sizeof(buf6)));
		}
	} else {
		if (!topo_v4(t)) { /* ip = 6: the service's IPv6 address, over IPv6 */
			char buf6[INET6_ADDRSTRLEN];

			agents_argv_add(&a, "-P");
			agents_argv_add(&a, "%s/128", agents_ip6(&t->service6, buf6));
		}
		agents_argv_add(&a, "-m");
		agents_argv_add(&a, "%u", node->metric);
		agents_prober_routers(&a, t, node);
	}
	agents_probe_timing(&a, t, node);
	return agents_argv_run(lab, n, "prober", "prober", &a);
}

/* lab_start_prox_prober: site n's proximity prober (a [name] of policy =
 * proximity): an echo to every querier of the lab's authds, from the site,
 * each RTT reported to every authd as the site's (docs/authd.md,
 * "Proximity") */
static int lab_start_prox_prober(struct lab *lab, int n)
{
	const struct topology *t = lab->t;
	const struct topo_node *node = &t->nodes[n];
	struct in_addr q[63];
	char label[63][17], buf[INET_ADDRSTRLEN];
	struct lab_argv a;
	int nq, more;

	nq = topo_proximity_queriers(t, q, label, NULL, 63, &more);
	if (nq == 0)
		return 0;
	if (more)
		log_warnx("site %s measures %d queriers, not the %d others", node->name, nq, more);
	agents_argv_start(&a, lab, n, "prober", "prober-px");
	agents_argv_add(&a, "-I");
	agents_argv_add(&a, "px-%s", node->name);
	agents_argv_add(&a, "-Y");
	agents_argv_add(&a, "%s", node->name);
	agents_authds(&a, t, 0);
	for (int i = 0; i < nq; i++) {
		agents_argv_add(&a, "-T");
		agents_argv_add(&a, "%s=%s", label[i], agents_ip(q[i], buf));
	}
	agents_argv_add(&a, "-C");
	agents_argv_add(&a, "icmp");
	agents_probe_counts(&a, t->probe_interval_ns, t->probe_timeout_ns, t->probe_down,
			    t->probe_up);
	agents_argv_add(&a, "-k");
	agents_argv_add(&a, "%lldus", (long long)t->static_refresh_ns / 1000);
	return agents_argv_run(lab, n, "prober", "prober-px", &a);
}

/* lab_start_anycast_prober: anycast name server n's prober, asking its
 * server for its first zone's SOA on its link address, announcing its
 * anycast address to every router while it answers (routing = static),
 * at a metric of its rank among the instances sharing the address */
static int lab_start_anycast_prober(struct lab *lab, int n)
{
	const struct topology *t = lab->t;
	const struct topo_node *node = &t->nodes[n];
	struct lab_argv a;
	char buf[INET_ADDRSTRLEN];
	int z = -1;

	for (int i = 0; i < t->nraw_sections && z < 0; i++)
		if (node->zone_set >> i & 1)
			z = i;
	agents_argv_start(&a, lab, n, "prober", "prober");
	agents_argv_add(&a, "-s");
	agents_argv_add(&a, "%s", node->name);
	agents_argv_add(&a, "-C");
	agents_argv_add(&a, "dns");
	agents_argv_add(&a, "-Q");
	agents_argv_add(&a, "%s", z >= 0 ? t->raw_sections[z].apex : ".");
	agents_argv_add(&a, "-t");
	agents_argv_add(&a, "%s:53", agents_ip(t->links[node->link].node_addr, buf));
	agents_argv_add(&a, "-P");
	agents_argv_add(&a, "%s/32", agents_ip(node->anycast, buf));
	if (t->routing == TOPO_ROUTING_BGP) {
		/* the address on lo while it answers; its bgpd announces it */
		agents_argv_add(&a, "-L");
	} else {
		agents_argv_add(&a, "-m");
		agents_argv_add(&a, "%u", node->metric); /* 10 x its rank (topo_check_bgp) */
		agents_prober_routers(&a, t, node);
	}
	/* the [lab]'s probe settings ([dns] nodes have none of their own) */
	agents_probe_counts(&a, t->probe_interval_ns, t->probe_timeout_ns, t->probe_down,
			    t->probe_up);
	return agents_argv_run(lab, n, "prober", "prober", &a);
}

static int lab_start_dns(struct lab *lab, int n)
{
	const struct topo_node *node = &lab->t->nodes[n];
	char conf[PATH_MAX], addr[INET_ADDRSTRLEN];
	struct lab_argv a;
	int rc, nprobers = 0;
	FILE *fp;

	if (node->dns_impl != TOPO_DNS_AUTHD) /* PowerDNS: lab/build/authority_run.c */
		return lab_authority_start(lab, n);
	if (strfmt(conf, sizeof(conf), "%s/%s.authd.ini", lab->rundir, node->name) == -1)
		return -1;
	/* not through a link planted in an --out directory */
	if ((fp = lab_fopen_write(lab->rundir, conf + strlen(lab->rundir) + 1)) == NULL)
		return -1;
	rc = dnsconf_write(lab->t, n, fp);
	if (fclose(fp) == EOF || rc == -1) {
		log_warn("%s: %s", __func__, conf);
		return -1;
	}
	agents_argv_start(&a, lab, n, "authd", "authd");
	agents_argv_add(&a, "-c");
	agents_argv_add(&a, "%s", conf);
	/* health reports only from the [prober] nodes, each under its own id
	 * from its link address (agents/authd/allow.h), its IPv6 one for a
	 * prober of family 6, whose reports come to the control socket on
	 * [::], which takes both families (agents/authd/net.c) */
	for (int i = 0; i < lab->t->nnodes; i++) {
		const struct topo_link *l;
		char addr6[INET6_ADDRSTRLEN];

		if (lab->t->nodes[i].kind != TOPO_PROBER)
			continue;
		l = &lab->t->links[lab->t->nodes[i].link]; /* a router's link is -1 */
		agents_argv_add(&a, "-a");
		if (lab->t->nodes[i].family == TOPO_FAMILY_6)
			agents_argv_add(&a, "%s=%s", lab->t->nodes[i].name,
					inet_ntop(AF_INET6, &l->node_addr6, addr6, sizeof(addr6)));
		else
			agents_argv_add(&a, "%s=%s", lab->t->nodes[i].name,
					agents_ip(l->node_addr, addr));
		nprobers++;
	}
	if (agents_probers6(lab->t)) {
		agents_argv_add(&a, "-C");
		agents_argv_add(&a, "[::]:%d", DNSCONF_CONTROL_PORT);
	}
	/* and the sites' proximity probers (lab_start_prox_prober) */
	for (int i = 0; topo_has_proximity(lab->t) && i < lab->t->nnodes; i++) {
		if (lab->t->nodes[i].kind != TOPO_SITE)
			continue;
		agents_argv_add(&a, "-a");
		agents_argv_add(&a, "px-%s=%s", lab->t->nodes[i].name,
				agents_ip(lab->t->links[lab->t->nodes[i].link].node_addr, addr));
		nprobers++;
	}
	if (nprobers == 0) {
		agents_argv_add(&a, "-a");
		agents_argv_add(&a, "none");
	}
	/* the timeline's DNS changes come from loopback, inside this node's
	 * namespace (lib/zone_change.h) */
	agents_argv_add(&a, "-A");
	agents_argv_add(&a, "%s", ZONE_CHANGE_FROM);
	return agents_argv_run(lab, n, "authd", "authd", &a);
}

/* resolverd: the node's caches, forwarding to every authd; or the real
 * resolver the node names (lab/build/realres_run.c). */
static int lab_start_resolver(struct lab *lab, int n)
{
	const struct topo_node *node = &lab->t->nodes[n];
	char conf[PATH_MAX];
	struct lab_argv a;
	FILE *fp;
	int rc;

	if (node->impl != TOPO_IMPL_RESOLVERD) /* unbound, kresd, named */
		return lab_realres_start(lab, n);
	if (strfmt(conf, sizeof(conf), "%s/%s.resolverd.ini", lab->rundir, node->name) == -1)
		return -1;
	/* not through a link planted in an --out directory */
	if ((fp = lab_fopen_write(lab->rundir, conf + strlen(lab->rundir) + 1)) == NULL)
		return -1;
	rc = resolvconf_write(lab->t, n, fp);
	if (fclose(fp) == EOF || rc == -1) {
		log_warn("%s: %s", __func__, conf);
		return -1;
	}
	agents_argv_start(&a, lab, n, "resolverd", "resolverd");
	agents_argv_add(&a, "-c");
	agents_argv_add(&a, "%s", conf);
	agents_argv_add(&a, "-o");
	agents_argv_add(&a, "%s/upstream-%s.csv", lab->rundir, node->name);
	return agents_argv_run(lab, n, "resolverd", "resolverd", &a);
}

/* A vantage point: probes every site's own address, tells every authd. */
static int lab_start_remote_prober(struct lab *lab, int n)
{
	const struct topology *t = lab->t;
	const struct topo_node *node = &t->nodes[n];
	int v6 = node->family == TOPO_FAMILY_6;
	struct lab_argv a;
	char buf[INET6_ADDRSTRLEN];

	agents_argv_start(&a, lab, n, "prober", "prober");
	agents_argv_add(&a, "-I");
	agents_argv_add(&a, "%s", node->name);
	agents_authds(&a, t, v6);
	for (int i = 0; i < t->nnodes; i++) {
		if (t->nodes[i].kind != TOPO_SITE)
			continue;
		agents_argv_add(&a, "-T");
		if (v6) /* its own IPv6 address */
			agents_argv_add(
			    &a, "%s=[%s]:%u", t->nodes[i].name,
			    inet_ntop(AF_INET6, &t->nodes[i].address6, buf, sizeof(buf)), t->port);
		else
			agents_argv_add(&a, "%s=%s:%u", t->nodes[i].name,
					agents_ip(t->nodes[i].address, buf), t->port);
	}
	agents_probe_timing(&a, t, node);
	return agents_argv_run(lab, n, "prober", "prober", &a);
}

/*
 * The agents of nodes [from, to) in steps; each step's agents of every
 * node are started at once (lab_start_batch: forked and recorded one after
 * the other, then let run together), and each step begins once the one
 * before has exec'd:
 *
 *   1. authd: the remote probers report to it from their first probe
 *   2. the resolvers: resolverd asks authd from the first client query
 *   3. in file order, a router's collectors (first: the route monitor sees
 *      every route come, the router links' captures the BGP sessions open),
 *      its zebra (routing = bgp) or routed; a site's zebra, sited and
 *      prober (which starts UNKNOWN: a probe before sited listens only
 *      delays its first verdict); a remote prober
 *   3b. PowerDNS and gdnsd, which check the sites themselves: at bring-up
 *      left to the warm-up (lab_authority_start_later), once every site's
 *      route is in, or they would find the sites unreachable and gdnsd
 *      start them DOWN, for up_thresh intervals
 *   4. every zebra of step 3 listening on its zserv.api, then bfdd and bgpd
 *      of every FRR node (bfdd that finds no zebra may never register)
 */
static int agents_step_dns(struct lab *lab, int n)
{
	return lab->t->nodes[n].kind == TOPO_DNS && lab->t->nodes[n].dns_impl == TOPO_DNS_AUTHD
		   ? lab_start_dns(lab, n)
		   : 0;
}

/* a server that checks the sites itself (pdns, gdnsd) starts once they
 * have, and at bring-up once they are reachable (lab_authority_start_later) */
static int agents_step_authority(struct lab *lab, int n)
{
	return lab->t->nodes[n].kind == TOPO_DNS && lab->t->nodes[n].dns_impl != TOPO_DNS_AUTHD &&
		       !lab->authority_later
		   ? lab_start_dns(lab, n)
		   : 0;
}

static int agents_step_resolver(struct lab *lab, int n)
{
	return lab->t->nodes[n].kind == TOPO_RESOLVER ? lab_start_resolver(lab, n) : 0;
}

static int agents_step_node(struct lab *lab, int n)
{
	switch (lab->t->nodes[n].kind) {
	case TOPO_ROUTER:
		if (lab_start_collectors(lab, n) == -1 || lab_frr_start_zebra(lab, n) == -1)
			return -1;
		return lab_start_routed(lab, n);
	case TOPO_SITE:
		if (lab_frr_start_zebra(lab, n) == -1 || lab_start_sited(lab, n) == -1 ||
		    lab_start_site_prober(lab, n) == -1)
			return -1;
		return topo_has_proximity(lab->t) ? lab_start_prox_prober(lab, n) : 0;
	case TOPO_PROBER:
		return lab_start_remote_prober(lab, n);
	case TOPO_DNS:
		if (lab->t->nodes[n].anycast.s_addr == 0)
			return 0;
		if (lab_frr_start_zebra(lab, n) == -1)
			return -1;
		return lab_start_anycast_prober(lab, n);
	default:
		return 0;
	}
}

/* agents_step: step's agents of nodes [from, to), as one batch */
static int agents_step(struct lab *lab, int from, int to, int (*step)(struct lab *, int))
{
	int rc = 0;

	lab_start_batch(lab);
	for (int n = from; n < to && rc == 0; n++)
		rc = step(lab, n);
	if (lab_start_wait(lab) == -1)
		rc = -1;
	return rc;
}

static int agents_start(struct lab *lab, int from, int to)
{
	if (agents_step(lab, from, to, agents_step_dns) == -1 ||
	    agents_step(lab, from, to, agents_step_resolver) == -1 ||
	    agents_step(lab, from, to, agents_step_node) == -1 ||
	    agents_step(lab, from, to, agents_step_authority) == -1 ||
	    lab_frr_wait_zebra(lab, from, to) == -1 ||
	    agents_step(lab, from, to, lab_frr_start_bgp) == -1)
		return -1;
	return 0;
}

int lab_start_node(struct lab *lab, int n)
{
	return agents_start(lab, n, n + 1);
}

int lab_start_infra(struct lab *lab)
{
	lab->authority_later = 1;
	return agents_start(lab, 0, lab->t->nnodes);
}

int lab_authority_start_later(struct lab *lab)
{
	if (!lab->authority_later)
		return 0;
	lab->authority_later = 0;
	return agents_step(lab, 0, lab->t->nnodes, agents_step_authority);
}

/* lab_population_args: a population's -P, -k, -a (docs/agents.md) */
static void lab_population_args(struct lab_argv *a, const struct topo_node *node)
{
	agents_argv_add(a, "-P");
	agents_argv_add(a, "%u", node->population);
	agents_argv_add(a, "-k");
	if (node->skew == TOPO_SKEW_HARMONIC)
		agents_argv_add(a, "harmonic");
	else if (node->skew == TOPO_SKEW_ZIPF)
		agents_argv_add(a, "zipf:%.15g", node->zipf_exponent);
	else
		agents_argv_add(a, "equal");
	agents_argv_add(a, "-a");
	agents_argv_add(a, "%s", node->arrivals == TOPO_ARRIVALS_POISSON ? "poisson" : "paced");
	if (node->source_block.len > 0) {
		char net[INET_ADDRSTRLEN];

		agents_argv_add(a, "-A");
		agents_argv_add(a, "%s/%d",
				inet_ntop(AF_INET, &node->source_block.net, net, sizeof(net)),
				node->source_block.len);
	}
}

/* One client flow: -t for anycast, -R/-q for DNS steering. */
static int lab_start_flow(struct lab *lab, int n, int dns, int64_t duration_ns, int64_t go_base_ns)
{
	const struct topology *t = lab->t;
	const struct topo_node *node = &t->nodes[n];
	const char *label = dns ? "client-dns" : "client";
	struct lab_argv a;
	char buf[INET_ADDRSTRLEN];
	struct in6_addr res6;

	agents_argv_start(&a, lab, n, "client", label);
	agents_argv_add(&a, "-i");
	if (node->population)
		agents_argv_add(&a, "%u", LAB_POP_ID(node->client_id, dns));
	else
		agents_argv_add(&a, "%u",
				dns ? LAB_DNS_CLIENT_ID(node->client_id) : node->client_id);
	if (node->population)
		lab_population_args(&a, node);
	if (dns) {
		/* the [dns] node itself, or its cache of a [resolver] node; a
		 * population's clients every cache of it in turn */
		if (node->resolver_all) {
			/* of family 6 or dual: at the caches' IPv6 addresses */
			int v6 = topo_client_resolver6(t, n, &res6);

			for (unsigned k = 1; k <= t->nodes[node->resolver].count; k++) {
				char buf6[INET6_ADDRSTRLEN];

				res6 = topo_resolver_addr6(t, node->resolver, (int)k);
				agents_argv_add(&a, "-R");
				agents_argv_add(
				    &a, "%s",
				    v6 ? inet_ntop(AF_INET6, &res6, buf6, sizeof(buf6))
				       : agents_ip(topo_resolver_addr(t, node->resolver, (int)k),
						   buf));
			}
			if (node->resolver_weights[0]) {
				agents_argv_add(&a, "-W");
				agents_argv_add(&a, "%s", node->resolver_weights);
			}
		} else if (topo_client_resolver6(t, n, &res6)) {
			/* an IPv6 client asks over IPv6 (Happy Eyeballs' too) */
			char buf6[INET6_ADDRSTRLEN];

			agents_argv_add(&a, "-R");
			agents_argv_add(&a, "%s", inet_ntop(AF_INET6, &res6, buf6, sizeof(buf6)));
		} else {
			agents_argv_add(&a, "-R");
			agents_argv_add(&a, "%s", agents_ip(topo_client_resolver(t, n), buf));
		}
		agents_argv_add(&a, "-q");
		agents_argv_add(&a, "%s", node->dns_name);
		agents_argv_add(&a, "-p");
		agents_argv_add(&a, "%u", t->port);
		if (node->sticky_ns > 0) {
			agents_argv_add(&a, "-S");
			agents_argv_add(&a, "%lldus", (long long)node->sticky_ns / 1000);
		} else if (node->population && t->sticky_share > 0) {
			/* [lab] sticky_share within the population */
			agents_argv_add(&a, "-S");
			agents_argv_add(&a, "%lldus", (long long)t->sticky_ns / 1000);
			agents_argv_add(&a, "-Q");
			agents_argv_add(&a, "%.15g", t->sticky_share);
		}
	} else {
		char buf6[INET6_ADDRSTRLEN];

		/* the service's IPv6 address (6), and its IPv4 one (4; dual:
		 * both, Happy Eyeballs' fallback) */
		if (node->family != TOPO_FAMILY_4) {
			agents_argv_add(&a, "-t");
			agents_argv_add(&a, "[%s]:%u",
					inet_ntop(AF_INET6, &t->service6, buf6, sizeof(buf6)),
					t->port);
		}
		if (node->family != TOPO_FAMILY_6) {
			agents_argv_add(&a, "-t");
			agents_argv_add(&a, "%s:%u", agents_ip(t->service, buf), t->port);
		}
	}
	/* a lab of IPv6: each client told its family (its records say which
	 * family each request used) */
	if (topo_v6(t)) {
		agents_argv_add(&a, "-F");
		agents_argv_add(&a, "%s",
				node->family == TOPO_FAMILY_DUAL ? "dual"
				: node->family == TOPO_FAMILY_6	 ? "6"
								 : "4");
	}
	if (node->proto == TOPO_PROTO_TCP)
		agents_argv_add(&a, "-T");
	else if (node->proto == TOPO_PROTO_HTTP)
		agents_argv_add(&a, "-H");
	if (dns && node->addresses != TOPO_ADDRESSES_FIRST) {
		static const char *const pick[] = {"first", "random", "sorted", "next"};

		agents_argv_add(&a, "-m");
		agents_argv_add(&a, "%s", pick[node->addresses]);
	}
	if (dns && node->resolve == TOPO_RESOLVE_LIBCURL) {
		agents_argv_add(&a, "-L");
		agents_argv_add(&a, "%llds", (long long)(node->dns_cache_ns / 1000000000));
	}
	if (t->reconnect &&
	    (node->proto == TOPO_PROTO_TCP || (node->proto == TOPO_PROTO_HTTP && node->population)))
		agents_argv_add(&a, "-b");
	if (node->proto == TOPO_PROTO_TCP && node->requests_per_conn > 0) {
		agents_argv_add(&a, "-N");
		agents_argv_add(&a, "%u", node->requests_per_conn);
	}
	if (node->proto == TOPO_PROTO_TCP && node->idle_timeout_ns > 0) {
		agents_argv_add(&a, "-I");
		agents_argv_add(&a, "%lldus", (long long)node->idle_timeout_ns / 1000);
	}
	if (node->proto == TOPO_PROTO_TCP && node->pipeline > 0) {
		agents_argv_add(&a, "-D");
		agents_argv_add(&a, "%u", node->pipeline);
	}
	if (node->proto == TOPO_PROTO_TCP && node->connect_timeout_ns > 0) {
		agents_argv_add(&a, "-c");
		agents_argv_add(&a, "%lldus", (long long)node->connect_timeout_ns / 1000);
	}
	agents_argv_add(&a, "-r");
	agents_argv_add(&a, "%g", node->rate);
	agents_argv_add(&a, "-w");
	agents_argv_add(&a, "%lldus", (long long)node->timeout_ns / 1000);
	if (t->records != TOPO_RECORDS_BINARY) {
		agents_argv_add(&a, "-o");
		agents_argv_add(&a, "%s/requests-%s%s.csv", lab->rundir, node->name,
				dns ? "-dns" : "");
		agents_argv_add(&a, "-M");
		agents_argv_add(&a, "%s", t->path);
	}
	if (t->records != TOPO_RECORDS_CSV) {
		agents_argv_add(&a, "-B");
		agents_argv_add(&a, "%s/requests-%s%s.bin", lab->rundir, node->name,
				dns ? "-dns" : "");
	}
	if (duration_ns) {
		agents_argv_add(&a, "-d");
		agents_argv_add(&a, "%lldus", (long long)duration_ns / 1000);
	}
	if (go_base_ns) {
		agents_argv_add(&a, "-Z");
		agents_argv_add(&a, "%lld", (long long)go_base_ns);
	}
	return agents_argv_run(lab, n, "client", label, &a);
}

int lab_start_clients(struct lab *lab, int64_t duration_ns, int64_t go_base_ns)
{
	const struct topology *t = lab->t;

	for (int n = 0; n < t->nnodes; n++) {
		const struct topo_node *node = &t->nodes[n];
		if (node->kind != TOPO_CLIENT)
			continue;
		if (node->mode != TOPO_MODE_DNS &&
		    lab_start_flow(lab, n, 0, duration_ns, go_base_ns) == -1)
			return -1;
		if (node->mode != TOPO_MODE_ANYCAST &&
		    lab_start_flow(lab, n, 1, duration_ns, go_base_ns) == -1)
			return -1;
	}
	return 0;
}
