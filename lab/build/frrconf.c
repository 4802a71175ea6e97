/*
 * FRR's configurations of a lab's routers and sites, and FRR's dry run on
 * them; see lab.h.
 */
#include "lab.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "authority.h"
#include "realres.h"
#include "strfmt.h"
#include "subproc.h"
#include "timeutil.h"

#define FRRCONF_PROFILE "steerlab" /* the BFD profile */
#define FRRCONF_PREFIX "STEERLAB"
#define FRRCONF_MAP FRRCONF_PREFIX "-ANNOUNCE"

/* the configuration being written, and its line count */
struct frrconf_out {
	FILE *fp;
	int lines;
	int err;
};

static void frrconf_put(struct frrconf_out *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void frrconf_put(struct frrconf_out *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (vfprintf(o->fp, fmt, ap) < 0 || fputc('\n', o->fp) == EOF)
		o->err = 1;
	va_end(ap);
	o->lines++;
}

static const char *frrconf_ip(struct in_addr a, char *buf)
{
	return inet_ntop(AF_INET, &a, buf, INET_ADDRSTRLEN);
}

static const char *frrconf_ip6(const struct in6_addr *a, char *buf)
{
	return inet_ntop(AF_INET6, a, buf, INET6_ADDRSTRLEN);
}

int frrconf_node(const struct topology *t, int n)
{
	return t->routing == TOPO_ROUTING_BGP && topo_bgp_speaker(t, n);
}

int frrconf_neighbors(const struct topology *t, int n, struct frrconf_neighbor *nb, int max)
{
	int k = 0;

	if (t->nodes[n].kind != TOPO_ROUTER && !frrconf_node(t, n))
		return 0;
	/* a router's [link]s: another router on each (routing = bgp, or the
	 * preview of check --frr) */
	for (int j = 0; j < t->nrlinks && k < max; j++) {
		const struct topo_rlink *rl = &t->rlinks[j];

		if (rl->a != n && rl->b != n)
			continue;
		nb[k].node = rl->a == n ? rl->b : rl->a;
		topo_rlink_end(t, j, n, &nb[k].local, &nb[k].addr, NULL);
		nb[k].addr6 = rl->a == n ? rl->b_addr6 : rl->a_addr6;
		nb[k].local6 = rl->a == n ? rl->a_addr6 : rl->b_addr6;
		nb[k].asn = topo_node_asn(t, nb[k].node);
		nb[k].rlink = j;
		k++;
	}
	/* a node's link to its router: both speak BGP with routing = bgp */
	for (int i = 0; i < t->nlinks && k < max; i++) {
		const struct topo_link *l = &t->links[i];
		int peer;

		if (l->router == n)
			peer = l->node;
		else if (l->node == n)
			peer = l->router;
		else
			continue;
		if (!frrconf_node(t, peer))
			continue;
		nb[k].node = peer;
		nb[k].addr = peer == l->router ? l->router_addr : l->node_addr;
		nb[k].local = peer == l->router ? l->node_addr : l->router_addr;
		nb[k].addr6 = peer == l->router ? l->router_addr6 : l->node_addr6;
		nb[k].local6 = peer == l->router ? l->node_addr6 : l->router_addr6;
		nb[k].asn = topo_node_asn(t, peer);
		nb[k].rlink = -1;
		k++;
	}
	return k;
}

int frrconf_session_bfd(const struct topology *t, int n, const struct frrconf_neighbor *nb)
{
	if (nb->rlink >= 0 && t->rlinks[nb->rlink].bfd >= 0)
		return t->rlinks[nb->rlink].bfd;
	return t->nodes[n].bfd || t->nodes[nb->node].bfd;
}

int frrconf_bfd(const struct topology *t, int n)
{
	static struct frrconf_neighbor nb[FRRCONF_MAX_NEIGHBORS];
	int nn;

	if (!frrconf_node(t, n))
		return 0;
	nn = frrconf_neighbors(t, n, nb, FRRCONF_MAX_NEIGHBORS);
	for (int i = 0; i < nn; i++)
		if (frrconf_session_bfd(t, n, &nb[i]))
			return 1;
	return 0;
}

/* frrconf_end: node n's end of neighbour nb's [link] (0: its a, 1: its b),
 * or -1 if nb is not over a [link]. */
static int frrconf_end(const struct topology *t, int n, const struct frrconf_neighbor *nb)
{
	if (nb->rlink < 0)
		return -1;
	return t->rlinks[nb->rlink].a == n ? 0 : 1;
}

/* frrconf_prepend: how many more times node n adds its AS to what it
 * announces to nb: a site's `prepend`, a router's end of the [link]. */
static unsigned frrconf_prepend(const struct topology *t, int n, const struct frrconf_neighbor *nb)
{
	int e = frrconf_end(t, n, nb);

	if (t->nodes[n].kind == TOPO_SITE)
		return t->nodes[n].prepend;
	if (t->nodes[n].kind == TOPO_DNS)
		return 0;
	return e < 0 ? 0 : t->rlinks[nb->rlink].prepend[e];
}

/* frrconf_local_pref: the local preference node n sets on what it
 * receives from nb (its end of the [link]), 0 if none. */
static unsigned frrconf_local_pref(const struct topology *t, int n,
				   const struct frrconf_neighbor *nb)
{
	int e = frrconf_end(t, n, nb);

	return e < 0 ? 0 : t->rlinks[nb->rlink].local_pref[e];
}

static long long frrconf_secs(int64_t ns)
{
	return (long long)(ns / NSEC_PER_SEC);
}

/* frrconf_policy: the route-maps of node n's sessions: TO-PEER prepends
 * n's AS to what it announces to that peer, FROM-PEER sets the local
 * preference of what it receives from it. Before router bgp, which names
 * them (see frrconf_write). */
static void frrconf_policy(struct frrconf_out *o, const struct topology *t, int n,
			   const struct frrconf_neighbor *nb, int nn)
{
	char path[TOPO_PREPEND_MAX * 11 + 1];

	for (int i = 0; i < nn; i++) {
		unsigned prepend = frrconf_prepend(t, n, &nb[i]);
		unsigned lp = frrconf_local_pref(t, n, &nb[i]);
		size_t used = 0;

		if (prepend) {
			for (unsigned k = 0; k < prepend; k++)
				used += (size_t)snprintf(path + used, sizeof(path) - used, "%s%u",
							 k ? " " : "", topo_node_asn(t, n));
			frrconf_put(o, "route-map %s-TO-%s permit 10", FRRCONF_PREFIX,
				    t->nodes[nb[i].node].name);
			frrconf_put(o, " set as-path prepend %s", path);
			frrconf_put(o, "exit");
		}
		if (lp) {
			frrconf_put(o, "route-map %s-FROM-%s permit 10", FRRCONF_PREFIX,
				    t->nodes[nb[i].node].name);
			frrconf_put(o, " set local-preference %u", lp);
			frrconf_put(o, "exit");
		}
		/* IPv6: the peer's global address as the next hop, not its
		 * link-local one, so that the FIB names the IPv4 next hop's
		 * twin (run_bgp_ready, the clocks) */
		if (topo_v6(t)) {
			frrconf_put(o, "route-map %s-FROM6-%s permit 10", FRRCONF_PREFIX,
				    t->nodes[nb[i].node].name);
			frrconf_put(o, " set ipv6 next-hop prefer-global");
			if (lp)
				frrconf_put(o, " set local-preference %u", lp);
			frrconf_put(o, "exit");
		}
	}
}

/* frrconf_session: the lines of node n's session with neighbour nb, at
 * its address a (IPv4, or IPv6 in a lab of ip = dual) */
static void frrconf_session(struct frrconf_out *o, const struct topology *t, int n,
			    const struct frrconf_neighbor *nb, const char *a)
{
	const struct topo_node *node = &t->nodes[n];
	const struct topo_rlink *rl = nb->rlink >= 0 ? &t->rlinks[nb->rlink] : NULL;

	frrconf_put(o, " neighbor %s remote-as %u", a, nb->asn);
	frrconf_put(o, " neighbor %s description %s %s", a, topo_kind_name(t->nodes[nb->node].kind),
		    t->nodes[nb->node].name);
	frrconf_put(o, " neighbor %s timers connect %lld", a,
		    frrconf_secs(t->bgp_connect_retry_ns));
	/* a [link]'s own timers, for its session only */
	if (rl && (rl->bgp_keepalive_ns >= 0 || rl->bgp_hold_ns >= 0))
		frrconf_put(
		    o, " neighbor %s timers %lld %lld", a,
		    frrconf_secs(rl->bgp_keepalive_ns >= 0 ? rl->bgp_keepalive_ns
							   : node->bgp_keepalive_ns),
		    frrconf_secs(rl->bgp_hold_ns >= 0 ? rl->bgp_hold_ns : node->bgp_hold_ns));
	frrconf_put(o, " neighbor %s advertisement-interval %lld", a,
		    frrconf_secs(rl && rl->bgp_mrai_ns >= 0 ? rl->bgp_mrai_ns : node->bgp_mrai_ns));
	/* iBGP between routers of one AS: the routes they pass on leave by
	 * the router that passes them */
	if (nb->asn == topo_node_asn(t, n))
		frrconf_put(o, " neighbor %s next-hop-self", a);
	if (frrconf_session_bfd(t, n, nb))
		frrconf_put(o, " neighbor %s bfd profile %s", a, FRRCONF_PROFILE);
}

/* frrconf_family: the address family block of node n (v6: IPv6 unicast,
 * over the IPv6 sessions; else IPv4 unicast, over the IPv4 ones) */
static void frrconf_family(struct frrconf_out *o, const struct topology *t, int n,
			   const struct frrconf_neighbor *nb, int nn, int v6)
{
	const struct topo_node *node = &t->nodes[n];
	char a[INET6_ADDRSTRLEN];

	frrconf_put(o, " address-family %s unicast", v6 ? "ipv6" : "ipv4");
	if (node->kind == TOPO_SITE || node->kind == TOPO_DNS)
		frrconf_put(o, "  redistribute connected route-map %s", FRRCONF_MAP);
	for (int i = 0; i < nn; i++) {
		const char *name = t->nodes[nb[i].node].name;

		if (v6)
			frrconf_put(o, "  neighbor %s activate", frrconf_ip6(&nb[i].addr6, a));
		else
			frrconf_ip(nb[i].addr, a);
		if (frrconf_prepend(t, n, &nb[i]))
			frrconf_put(o, "  neighbor %s route-map %s-TO-%s out", a, FRRCONF_PREFIX,
				    name);
		if (v6)
			frrconf_put(o, "  neighbor %s route-map %s-FROM6-%s in", a, FRRCONF_PREFIX,
				    name);
		else if (frrconf_local_pref(t, n, &nb[i]))
			frrconf_put(o, "  neighbor %s route-map %s-FROM-%s in", a, FRRCONF_PREFIX,
				    name);
	}
	/* the IPv6 sessions carry IPv6 alone */
	for (int i = 0; !v6 && topo_v6(t) && i < nn; i++)
		frrconf_put(o, "  no neighbor %s activate", frrconf_ip6(&nb[i].addr6, a));
	frrconf_put(o, "  maximum-paths %d", t->ecmp ? 64 : 1);
	if (t->damping)
		frrconf_put(o, "  bgp dampening %lld %u %u %lld",
			    frrconf_secs(t->damping_half_life_ns) / 60, t->damping_reuse,
			    t->damping_suppress, frrconf_secs(t->damping_max_suppress_ns) / 60);
	frrconf_put(o, " exit-address-family");
}

/* frrconf_bgp: router bgp, its neighbours and the IPv4 unicast family; in
 * a lab of ip = dual, a session over IPv6 beside each, for IPv6 unicast
 * (the service's IPv6 address); of ip = 6, those alone (the router id is
 * the IPv4 plan's, a number on no interface) */
static void frrconf_bgp(struct frrconf_out *o, const struct topology *t, int n,
			const struct frrconf_neighbor *nb, int nn)
{
	const struct topo_node *node = &t->nodes[n];
	char a[INET6_ADDRSTRLEN];

	frrconf_put(o, "router bgp %u", topo_node_asn(t, n));
	frrconf_put(o, " bgp router-id %s", frrconf_ip(topo_router_id(t, n), a));
	/* announcements are filtered where they start (a site's route-map) */
	frrconf_put(o, " no bgp ebgp-requires-policy");
	/* the sites' metrics are MEDs, compared across their ASes */
	frrconf_put(o, " bgp always-compare-med");
	if (t->ecmp)
		frrconf_put(o, " bgp bestpath as-path multipath-relax");
	frrconf_put(o, " timers bgp %lld %lld", frrconf_secs(node->bgp_keepalive_ns),
		    frrconf_secs(node->bgp_hold_ns));
	/* ip = 6: no IPv4 unicast, which bgpd activates each neighbour in by
	 * default (said before the neighbours) */
	if (!topo_v4(t))
		frrconf_put(o, " no bgp default ipv4-unicast");
	for (int i = 0; topo_v4(t) && i < nn; i++)
		frrconf_session(o, t, n, &nb[i], frrconf_ip(nb[i].addr, a));
	for (int i = 0; topo_v6(t) && i < nn; i++)
		frrconf_session(o, t, n, &nb[i], frrconf_ip6(&nb[i].addr6, a));
	if (topo_v4(t))
		frrconf_family(o, t, n, nb, nn, 0);
	if (topo_v6(t))
		frrconf_family(o, t, n, nb, nn, 1);
	frrconf_put(o, "exit");
}

/* frrconf_permit: the announcing route-map's entry seq, for prefix-list
 * list, with metric (the MED; -1: none) */
static void frrconf_permit(struct frrconf_out *o, int seq, const char *list, long long metric)
{
	frrconf_put(o, "route-map %s permit %d", FRRCONF_MAP, seq);
	frrconf_put(o, " match %s address prefix-list %s", strstr(list, "6") ? "ipv6" : "ip", list);
	if (metric >= 0)
		frrconf_put(o, " set metric %lld", metric);
	frrconf_put(o, "exit");
}

/* frrconf_announce: what a site announces of its connected routes: the
 * anycast service while the prober keeps it on lo, with the metric as
 * MED; its own unicast address, always there. */
static void frrconf_announce(struct frrconf_out *o, const struct topology *t, int n)
{
	const struct topo_node *node = &t->nodes[n];
	char a[INET_ADDRSTRLEN];

	/* an anycast name server: its anycast address alone, its rank among
	 * the instances as MED (as routing = static's metric) */
	if (node->kind == TOPO_DNS) {
		frrconf_put(o, "ip prefix-list STEERLAB-ANYCAST-NS seq 5 permit %s/32",
			    frrconf_ip(node->anycast, a));
		frrconf_permit(o, 10, "STEERLAB-ANYCAST-NS", node->metric);
		return;
	}
	if (topo_v4(t)) {
		frrconf_put(o, "ip prefix-list STEERLAB-SERVICE seq 5 permit %s/32",
			    frrconf_ip(topo_site_service(t, n), a)); /* or its front door */
		frrconf_put(o, "ip prefix-list STEERLAB-UNICAST seq 5 permit %s/32",
			    frrconf_ip(node->address, a));
		frrconf_permit(o, 10, "STEERLAB-SERVICE", node->metric);
		frrconf_permit(o, 20, "STEERLAB-UNICAST", -1);
	}
	/* the service's IPv6 address while the prober keeps it on lo (its own
	 * IPv6 address is routed statically, by path) */
	if (topo_v6(t) && node->front_door.s_addr == 0) {
		char a6[INET6_ADDRSTRLEN];

		frrconf_put(o, "ipv6 prefix-list STEERLAB-SERVICE6 seq 5 permit %s/128",
			    frrconf_ip6(&t->service6, a6));
		frrconf_permit(o, 30, "STEERLAB-SERVICE6", node->metric);
	}
}

int frrconf_write(const struct topology *t, int n, enum frrconf_daemon d, FILE *out, int *raw_from)
{
	struct frrconf_out o = {.fp = out};
	int raw = 0;

	frrconf_put(&o, "! FRR %s configuration of %s %s, lab %s: written by steerlab from %s",
		    d == FRRCONF_BGPD ? "bgpd" : "bfdd", topo_kind_name(t->nodes[n].kind),
		    t->nodes[n].name, t->name, t->path);
	frrconf_put(&o, "frr defaults datacenter");
	frrconf_put(&o, "hostname %s", t->nodes[n].name);
	if (d == FRRCONF_BFDD) {
		frrconf_put(&o, "bfd");
		frrconf_put(&o, " profile %s", FRRCONF_PROFILE);
		frrconf_put(&o, "  receive-interval %lld",
			    (long long)(t->bfd_interval_ns / NSEC_PER_MSEC));
		frrconf_put(&o, "  transmit-interval %lld",
			    (long long)(t->bfd_interval_ns / NSEC_PER_MSEC));
		frrconf_put(&o, "  detect-multiplier %u", t->bfd_multiplier);
		frrconf_put(&o, " exit");
		frrconf_put(&o, "exit");
	} else {
		static struct frrconf_neighbor nb[FRRCONF_MAX_NEIGHBORS];
		int nn = frrconf_neighbors(t, n, nb, FRRCONF_MAX_NEIGHBORS);

		/* the route-maps before the redistribute and neighbours that
		 * name them: named first and defined later, they would wait
		 * for bgpd's route-map delay timer (5 s) before the first
		 * announcement */
		if (t->nodes[n].kind == TOPO_SITE || t->nodes[n].kind == TOPO_DNS)
			frrconf_announce(&o, t, n);
		frrconf_policy(&o, t, n, nb, nn);
		frrconf_bgp(&o, t, n, nb, nn);
		for (int i = 0; i < t->nfrr_lines; i++) {
			if (t->frr_lines[i].node != n)
				continue;
			if (raw == 0)
				raw = o.lines + 1;
			frrconf_put(&o, "%s", t->frr_lines[i].text);
		}
	}
	if (raw_from)
		*raw_from = raw;
	return o.err ? -1 : 0;
}

/* frrconf_rejected: the first line of FRR's output that rejects a line of
 * the configuration, as "DAEMON line N: TEXT", into buf. 1 if there was
 * one. vtysh says "line N: % Unknown command...", bgpd "No such command on
 * config line N: TEXT"; any other "[EC ...]" error of a daemon counts too. */
static int frrconf_rejected(const char *daemon, const char *text, char *buf, size_t len)
{
	static const char bgpd_says[] = "No such command on config line ";
	const char *line = text;

	while (line && *line) {
		size_t n = strcspn(line, "\n");
		const char *p;
		int lineno;

		if ((p = memmem(line, n, bgpd_says, sizeof(bgpd_says) - 1)) != NULL) {
			p += sizeof(bgpd_says) - 1;
			strfmt(buf, len, "%s line %.*s", daemon, (int)(n - (size_t)(p - line)), p);
			return 1;
		}
		if (sscanf(line, "line %d:", &lineno) == 1 || memmem(line, n, "[EC ", 4)) {
			p = memmem(line, n, "[EC ", 4);
			if (p && (p = memchr(p, ']', n - (size_t)(p - line))) != NULL)
				strfmt(buf, len, "%s: %.*s", daemon,
				       (int)(n - (size_t)(p + 2 - line)), p + 2);
			else
				strfmt(buf, len, "%s %.*s", daemon, (int)n, line);
			return 1;
		}
		line = line[n] ? line + n + 1 : NULL;
	}
	return 0;
}

/* frrconf_source: for a rejection of line lineno of node n's bgpd
 * configuration that comes from an `frr =` line, where that was written. */
static void frrconf_source(const struct topology *t, int n, int lineno, int raw, char *buf,
			   size_t len)
{
	int k = 0;

	buf[0] = '\0';
	if (raw == 0 || lineno < raw)
		return;
	for (int i = 0; i < t->nfrr_lines; i++) {
		const struct topo_frr_line *l = &t->frr_lines[i];

		if (l->node != n || k++ != lineno - raw)
			continue;
		if (l->where > 0)
			strfmt(buf, len, "; from %s:%d frr = %s", t->path, l->where, l->text);
		else
			strfmt(buf, len, "; from --set %s.frr=%s", t->nodes[n].name, l->text);
		return;
	}
}

/* frrconf_said: why daemon d's configuration of node n (whose first `frr =`
 * line is line raw, 0: none) did not pass who's dry run, which ended as job
 * says, said on err. 0 if it passed, else -1. */
static int frrconf_said(const struct topology *t, int n, enum frrconf_daemon d, int raw,
			const struct subproc_job *job, const char *who, FILE *err)
{
	const char *prog = job->argv[0], *text = job->text ? job->text : "";
	char why[600], from[400];
	int lineno = 0;

	if (job->status == 127 && job->pid == 0) {
		fprintf(
		    err,
		    "steerlab: FRR dry run: %s: cannot run it (is FRR installed? sudo make deps)\n",
		    prog);
		return -1;
	}
	if (job->status == -1) {
		fprintf(err, "steerlab: FRR dry run: %s: %s\n", prog, strerror(job->errnum));
		return -1;
	}
	if (!frrconf_rejected(who, text, why, sizeof(why)) && job->status == 0)
		return 0;
	if (!frrconf_rejected(who, text, why, sizeof(why)))
		strfmt(why, sizeof(why), "%s exited with status %d: %.*s", who, job->status,
		       (int)strcspn(text, "\n"), text);
	if (sscanf(strstr(why, "line ") ? strstr(why, "line ") : "", "line %d", &lineno) != 1)
		lineno = 0;
	frrconf_source(t, n, lineno, d == FRRCONF_BGPD ? raw : 0, from, sizeof(from));
	fprintf(err, "steerlab: node %s: FRR rejected its configuration (%s%s)\n", t->nodes[n].name,
		why, from);
	return -1;
}

static char *frrconf_vtysh[] = {FRR_VTYSH, "-C", "-f", "/dev/stdin", NULL};
static char *frrconf_bgpd[] = {FRR_BGPD, "-C", "-f", "/dev/stdin", "-Z",     "-S", "-p",
			       "0",	 "-P", "0",  "--log",	   "stdout", NULL};

/*
 * The dry runs of several nodes at once. bgpd -C checks one configuration
 * a process (one `router bgp` each), as many side by side as there are
 * CPUs; each costs about 0.1 s of CPU here, nearly all of it bgpd building
 * its command tree, whatever the configuration. The configurations
 * steerlab wrote alone differ from node to node mostly in their numbers,
 * addresses and names (a ring's routers: only in those): one bgpd checks
 * each shape (frrconf_shape), and only if it rejects that shape does every
 * other node of it run a bgpd of its own, so that each node's message
 * names its own line. vtysh -C, a parser
 * that names every line it rejects, checks all the configurations steerlab
 * wrote alone (every bfdd's, and every bgpd's without `frr =` lines: each
 * ends where it began, at the top of the configuration) in one process;
 * a node's configuration with `frr =` lines, which may end anywhere, in a
 * process of its own. Only if the one vtysh rejects something are those
 * configurations run again one a process, for each node's own message.
 */
struct frrconf_conf {
	char *text;  /* malloc'd; NULL: none to check */
	char *shape; /* bgpd's without `frr =` lines: frrconf_shape, malloc'd */
	int raw;     /* its first `frr =` line, 0: none (bgpd only) */
	int vtysh;   /* its vtysh job, -1: in the one of them all */
	int bgpd;    /* its bgpd job (bgpd only), else -1 */
	int like;    /* the node whose bgpd job checked this shape, -1: its own */
};

struct frrconf_checks {
	struct frrconf_conf (*conf)[2]; /* [node][daemon] */
	struct subproc_job *jobs;
	int *in; /* each job's standard input */
	int njobs;
	int failed; /* a job could not be made (said) */
};

static void frrconf_fill_text(FILE *fp, const void *arg)
{
	fputs(arg, fp);
}

/* frrconf_job: argv on text as job c->njobs; its index, or -1 (said) */
static int frrconf_job(struct frrconf_checks *c, char **argv, const char *text, FILE *err)
{
	int j = c->njobs;

	if ((c->in[j] = subproc_memfd("frr-conf", frrconf_fill_text, text)) == -1) {
		fprintf(err, "steerlab: FRR dry run: memfd: %s\n", strerror(errno));
		c->failed = 1;
		return -1;
	}
	memset(&c->jobs[j], 0, sizeof(c->jobs[j]));
	c->jobs[j].argv = argv;
	c->jobs[j].in = c->in[j];
	return c->njobs++;
}

/* frrconf_run_jobs: jobs [from, njobs), all at once on every CPU */
static void frrconf_run_jobs(struct frrconf_checks *c, int from)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	subproc_capture_all(c->jobs + from, c->njobs - from, cpus > 0 ? (int)cpus : 1);
	for (int j = from; j < c->njobs; j++) {
		close(c->in[j]);
		c->in[j] = -1;
	}
}

/* frrconf_shape: text with each run of digits as one '#', the names after
 * `hostname` and `description` and each comment (a line of '!') as '*':
 * what a dry run of it says depends on the lines, not on the AS numbers,
 * addresses and node names in them. NULL if out of memory. */
static char *frrconf_shape(const char *text)
{
	static const char *const named[] = {"hostname ", " description ", NULL};
	/* at most two bytes a byte of text: "!*" for a bare '!' */
	char *shape = malloc(2 * strlen(text) + 1), *o = shape;
	const char *p = text;

	if (shape == NULL)
		return NULL;
	while (*p) {
		const char *word = NULL;

		for (int i = 0; named[i] && word == NULL; i++)
			if (strncmp(p, named[i], strlen(named[i])) == 0)
				word = named[i];
		if (*p == '!' && (p == text || p[-1] == '\n'))
			word = "!";
		if (word) {
			/* the name, to the end of its line */
			o = stpcpy(o, word);
			*o++ = '*';
			p += strlen(word) + strcspn(p + strlen(word), "\n");
		} else if (*p >= '0' && *p <= '9') {
			*o++ = '#';
			while (*p >= '0' && *p <= '9')
				p++;
		} else {
			*o++ = *p++;
		}
	}
	*o = '\0';
	return shape;
}

/* frrconf_passed: job passed its dry run (no line rejected, status 0) */
static int frrconf_passed(const struct subproc_job *job)
{
	char why[600];

	return job->status == 0 &&
	       !frrconf_rejected("vtysh", job->text ? job->text : "", why, sizeof(why));
}

/* frrconf_dry_runs: FRR's dry run of the bgpd configuration of every node n
 * with want[n] set, and of its bfdd configuration if bfdd and it runs bfdd;
 * each node's first rejection said on err, in node order, as one dry run
 * after the other said it. 0 if every one passed, else -1. */
static int frrconf_dry_runs(const struct topology *t, const char *want, int bfdd, FILE *err)
{
	struct frrconf_checks c = {0};
	char *all = NULL;
	size_t alllen = 0;
	int rc = 0, together = -1, max = 4 * t->nnodes + 1, from;
	FILE *fp;

	c.conf = calloc((size_t)t->nnodes, sizeof(*c.conf));
	c.jobs = calloc((size_t)max, sizeof(*c.jobs));
	c.in = calloc((size_t)max, sizeof(*c.in));
	if (c.conf == NULL || c.jobs == NULL || c.in == NULL ||
	    (fp = open_memstream(&all, &alllen)) == NULL) {
		fprintf(err, "steerlab: FRR dry run: %s\n", strerror(ENOMEM));
		rc = -1;
		goto out;
	}
	for (int n = 0; n < t->nnodes; n++) {
		for (int d = FRRCONF_BGPD; d <= FRRCONF_BFDD; d++) {
			struct frrconf_conf *cf = &c.conf[n][d];
			size_t len = 0;
			FILE *one;

			cf->vtysh = cf->bgpd = cf->like = -1;
			if (!want[n] || (d == FRRCONF_BFDD && !(bfdd && frrconf_bfd(t, n))))
				continue;
			if ((one = open_memstream(&cf->text, &len)) == NULL) {
				fprintf(err, "steerlab: FRR dry run: %s\n", strerror(errno));
				c.failed = 1;
				continue;
			}
			frrconf_write(t, n, (enum frrconf_daemon)d, one, &cf->raw);
			fclose(one);
			if (d == FRRCONF_BGPD && cf->raw)
				cf->vtysh = frrconf_job(&c, frrconf_vtysh, cf->text, err);
			else
				fputs(cf->text, fp);
			if (d != FRRCONF_BGPD)
				continue;
			/* a shape checked already: that node's bgpd says for this one */
			if (!cf->raw && (cf->shape = frrconf_shape(cf->text)) != NULL)
				for (int m = 0; m < n && cf->like < 0; m++)
					if (c.conf[m][d].shape && c.conf[m][d].like < 0 &&
					    strcmp(c.conf[m][d].shape, cf->shape) == 0)
						cf->like = m;
			if (cf->like >= 0)
				cf->bgpd = c.conf[cf->like][d].bgpd;
			else
				cf->bgpd = frrconf_job(&c, frrconf_bgpd, cf->text, err);
		}
	}
	fclose(fp);
	if (alllen > 0)
		together = frrconf_job(&c, frrconf_vtysh, all, err);
	frrconf_run_jobs(&c, 0);
	/* rejected together: each alone, for its node's own message */
	from = c.njobs;
	if (together >= 0 && !frrconf_passed(&c.jobs[together])) {
		for (int n = 0; n < t->nnodes; n++)
			for (int d = FRRCONF_BGPD; d <= FRRCONF_BFDD; d++)
				if (c.conf[n][d].text && c.conf[n][d].vtysh < 0 &&
				    !(d == FRRCONF_BGPD && c.conf[n][d].raw))
					c.conf[n][d].vtysh =
					    frrconf_job(&c, frrconf_vtysh, c.conf[n][d].text, err);
	}
	/* a shape bgpd rejected: each of its other nodes by a bgpd of its own */
	for (int n = 0; n < t->nnodes; n++) {
		struct frrconf_conf *b = &c.conf[n][FRRCONF_BGPD];

		if (b->like >= 0 && b->bgpd >= 0 && !frrconf_passed(&c.jobs[b->bgpd]))
			b->bgpd = frrconf_job(&c, frrconf_bgpd, b->text, err);
	}
	if (c.njobs > from)
		frrconf_run_jobs(&c, from);
	if (c.failed)
		rc = -1;
	for (int n = 0; n < t->nnodes; n++) {
		struct frrconf_conf *b = &c.conf[n][FRRCONF_BGPD], *f = &c.conf[n][FRRCONF_BFDD];
		int bad = 0;

		if (!want[n] || b->bgpd < 0)
			continue;
		/* vtysh's parser first: it names the line as the file has it;
		 * then bgpd's; then bfdd's configuration (bfdd's own -C drops
		 * to user frr before it reads the file, and cannot read it
		 * from our descriptor: vtysh checks it) */
		if (b->vtysh >= 0 &&
		    frrconf_said(t, n, FRRCONF_BGPD, b->raw, &c.jobs[b->vtysh], "vtysh", err))
			bad = 1;
		else if (frrconf_said(t, n, FRRCONF_BGPD, b->raw, &c.jobs[b->bgpd], "bgpd", err))
			bad = 1;
		else if (f->vtysh >= 0 &&
			 frrconf_said(t, n, FRRCONF_BFDD, 0, &c.jobs[f->vtysh], "vtysh", err))
			bad = 1;
		if (bad)
			rc = -1;
	}
out:
	for (int j = 0; c.jobs && j < c.njobs; j++) {
		const char *base = strrchr(c.jobs[j].argv[0], '/');

		/* FRR's daemons make /var/tmp/frr/DAEMON.PID even for a dry run
		 * and leave it: removed (lab_frr_forget) */
		if (c.jobs[j].pid > 0)
			lab_frr_forget(base ? base + 1 : c.jobs[j].argv[0], c.jobs[j].pid);
		free(c.jobs[j].text);
		if (c.in[j] >= 0)
			close(c.in[j]);
	}
	for (int n = 0; c.conf && n < t->nnodes; n++) {
		free(c.conf[n][FRRCONF_BGPD].text);
		free(c.conf[n][FRRCONF_BGPD].shape);
		free(c.conf[n][FRRCONF_BFDD].text);
	}
	free(c.conf);
	free(c.jobs);
	free(c.in);
	free(all);
	return rc;
}

int frrconf_check_node(const struct topology *t, int n, FILE *err)
{
	char want[TOPO_MAX_NODES] = {0};

	want[n] = 1;
	return frrconf_dry_runs(t, want, 0, err);
}

int frrconf_check(const struct topology *t, FILE *err)
{
	char want[TOPO_MAX_NODES] = {0};
	int any = 0;

	for (int n = 0; n < t->nnodes; n++)
		any |= want[n] = (char)frrconf_node(t, n);
	return any ? frrconf_dry_runs(t, want, 1, err) : 0;
}

int frrconf_load(struct topology *t, const char *path, char *const sets[], int nsets, FILE *err)
{
	int rc;

	if (overrides_load(t, path, sets, nsets, err) == -1)
		return -1;
	rc = frrconf_check(t, err);
	/* the real resolvers' configurations, by their own tools */
	if (realres_check(t, err) == -1)
		rc = -1;
	/* the real authoritative servers' likewise */
	if (authority_check(t, err) == -1)
		rc = -1;
	return rc;
}

void frrconf_print(const struct topology *t, FILE *out)
{
	for (int n = 0; n < t->nnodes; n++) {
		for (int d = FRRCONF_BGPD; d <= FRRCONF_BFDD; d++) {
			char *mem = NULL, *line;
			size_t len = 0;
			FILE *fp;

			if (!frrconf_node(t, n) || (d == FRRCONF_BFDD && !frrconf_bfd(t, n)))
				continue;
			if ((fp = open_memstream(&mem, &len)) == NULL)
				return;
			frrconf_write(t, n, (enum frrconf_daemon)d, fp, NULL);
			fclose(fp);
			fprintf(out, "\n# %s of [%s %s] (%s/%s/frr/%s.%s.conf while it is up):\n",
				d == FRRCONF_BGPD ? "bgpd" : "bfdd",
				topo_kind_name(t->nodes[n].kind), t->nodes[n].name, LAB_STATE_DIR,
				t->name, t->nodes[n].name, d == FRRCONF_BGPD ? "bgpd" : "bfdd");
			for (line = strtok(mem, "\n"); line; line = strtok(NULL, "\n"))
				fprintf(out, "#   %s\n", line);
			free(mem);
		}
	}
}
