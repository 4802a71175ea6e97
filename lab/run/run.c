/* The scenario runner; see run.h. */
#include "run.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lab.h"
#include "clocks.h"
#include "event.h"
#include "events.h"
#include "topology.h"
#include "log.h"
#include "progress.h"
#include "report.h"
#include "strfmt.h"
#include "strtonum.h"
#include "timeutil.h"

volatile sig_atomic_t run_interrupted;

static struct lab run_lab;
static struct action_step run_steps[ACTION_MAX_STEPS];
static struct progress run_progress;

const char *run_runs_dir(void)
{
	const char *d = getenv(RUN_RUNS_ENV);

	return d && *d ? d : "runs";
}

void run_default_dir(char *buf, size_t len, const char *lab)
{
	time_t now = time(NULL);
	struct tm tm;
	char when[32];

	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y%m%d-%H%M%S", &tm);
	strfmt(buf, len, "%s/%s-%s", run_runs_dir(), lab, when);
}

/* run_jsonl_each: events_each on the JSON Lines file path; nothing if the
 * file is not there (not written yet) */
static void run_jsonl_each(const char *path, void (*fn)(json_t *obj, const char *ev, void *arg),
			   void *arg)
{
	FILE *fp = fopen(path, "r");

	if (fp == NULL)
		return;
	events_each(fp, fn, arg);
	fclose(fp);
}

struct run_count {
	const char *event, *key, *value;
	int n;
};

static void run_count_one(json_t *obj, const char *ev, void *arg)
{
	struct run_count *c = arg;
	const char *v;

	if (strcmp(ev, c->event) != 0)
		return;
	v = c->key ? json_string_value(json_object_get(obj, c->key)) : NULL;
	if (c->key == NULL || (v && strcmp(v, c->value) == 0))
		c->n++;
}

int run_count_events(const char *path, const char *event, const char *key, const char *value)
{
	struct run_count c = {event, key, value, 0};

	run_jsonl_each(path, run_count_one, &c);
	return c.n;
}

struct run_fib {
	const struct topology *t;
	const char *prefix;
	struct in_addr *via;
	int64_t *last;
	int have;
};

/* run_twin4: the IPv4 twin of a dual lab's link address v6 (a FIB's IPv6
 * next hop, BGP's global one); 0 if it is none */
static int run_twin4(const struct topology *t, const struct in6_addr *v6, struct in_addr *v4)
{
	for (int i = 0; i < t->nlinks; i++)
		for (int e = 0; e < 2; e++)
			if (memcmp(e ? &t->links[i].node_addr6 : &t->links[i].router_addr6, v6,
				   sizeof(*v6)) == 0) {
				*v4 = e ? t->links[i].node_addr : t->links[i].router_addr;
				return 1;
			}
	for (int j = 0; j < t->nrlinks; j++)
		for (int e = 0; e < 2; e++)
			if (memcmp(e ? &t->rlinks[j].b_addr6 : &t->rlinks[j].a_addr6, v6,
				   sizeof(*v6)) == 0) {
				*v4 = e ? t->rlinks[j].b_addr : t->rlinks[j].a_addr;
				return 1;
			}
	return 0;
}

static void run_fib_one(json_t *obj, const char *ev, void *arg)
{
	struct run_fib *f = arg;
	const char *p = json_string_value(json_object_get(obj, "prefix"));
	const char *v = json_string_value(json_object_get(obj, "via"));

	if (p == NULL || strcmp(p, f->prefix) != 0)
		return;
	if (strcmp(ev, EVENTS_ROUTE_DELETED) == 0)
		f->have = 0;
	else if (strcmp(ev, EVENTS_ROUTE_ADDED) == 0 && v && strchr(v, ':')) {
		struct in6_addr v6;

		f->have = inet_pton(AF_INET6, v, &v6) == 1 && run_twin4(f->t, &v6, f->via);
	} else if (strcmp(ev, EVENTS_ROUTE_ADDED) == 0)
		f->have = v && inet_pton(AF_INET, v, f->via) == 1;
	*f->last = json_integer_value(json_object_get(obj, "t"));
}

/* run_fib_via: the next hop of the last route change to prefix the
 * collector at path saw: 1 and *via if it was an addition with one (an
 * IPv6 one as its IPv4 twin), 0 if none (or a deletion); *last, that
 * change's t (0: none). */
static int run_fib_via(const struct topology *t, const char *path, const char *prefix,
		       struct in_addr *via, int64_t *last)
{
	struct run_fib f = {t, prefix, via, last, 0};

	*last = 0;
	run_jsonl_each(path, run_fib_one, &f);
	return f.have;
}

/* run_local_pref: router r sets a local preference on what one of its
 * [link]s brings (it may then prefer a route from afar to its own site's). */
static int run_local_pref(const struct topology *t, int r)
{
	for (int j = 0; j < t->nrlinks; j++)
		if ((t->rlinks[j].a == r && t->rlinks[j].local_pref[0]) ||
		    (t->rlinks[j].b == r && t->rlinks[j].local_pref[1]))
			return 1;
	return 0;
}

/* run_own_site_ok: without a model of the lab's BGP (bgpx_compute: iBGP),
 * router r's route via one of its own sites of the lowest metric among
 * those that do not prepend; any route if it has none such, or prefers
 * what a [link] brings (local_pref). */
static int run_own_site_ok(const struct topology *t, int r, struct in_addr door, struct in_addr via)
{
	unsigned best = UINT_MAX;
	int own = 0;

	for (int j = 0; j < t->nlinks; j++)
		if (t->links[j].router == r && t->nodes[t->links[j].node].kind == TOPO_SITE &&
		    topo_site_service(t, t->links[j].node).s_addr == door.s_addr &&
		    t->nodes[t->links[j].node].prepend == 0 &&
		    t->nodes[t->links[j].node].metric <= best) {
			best = t->nodes[t->links[j].node].metric;
			own = 1;
		}
	if (!own || run_local_pref(t, r))
		return 1;
	for (int j = 0; j < t->nlinks; j++)
		if (t->links[j].router == r && t->nodes[t->links[j].node].kind == TOPO_SITE &&
		    topo_site_service(t, t->links[j].node).s_addr == door.s_addr &&
		    t->nodes[t->links[j].node].prepend == 0 &&
		    t->nodes[t->links[j].node].metric == best &&
		    t->links[j].node_addr.s_addr == via.s_addr)
			return 1;
	return 0;
}

/* BGP is still settling while a route to the service changed this
 * recently in some router's FIB */
#define RUN_BGP_QUIET_NS (500 * 1000000LL)

/* run_bgp_quiet_ns: how long every router's route must have stayed put:
 * RUN_BGP_QUIET_NS, or with an advertisement interval (bgp_mrai) the
 * longest of the lab's and a second more: FRR holds an update up to the
 * interval of whole seconds of its clock after the last one, so a route
 * quiet for less may still have a held update on its way (bgp-explore.ini
 * with 2 s: b's route left t3's FIB 1.5 s into the traffic, after a
 * warm-up of 500 ms quiet) */
static int64_t run_bgp_quiet_ns(const struct topology *t)
{
	int64_t mrai = topo_bgp_mrai_max_ns(t);

	return mrai > 0 ? mrai + NSEC_PER_SEC : RUN_BGP_QUIET_NS;
}

/* run_bgp_ready: routing = bgp: every site's prober has put the service on
 * its lo; the FIB of every router routes it, the routers with sites as
 * BGP's decision process will once every announcement is in
 * (lab/build/bgpexpect.c: local preference, AS path length with the prepends,
 * MED; any of the next hops that tie); and no router's route to it has
 * changed for run_bgp_quiet_ns (a tie between different AS paths, or a
 * lab bgpexpect does not model, would otherwise let a router still moving
 * pass): BGP has converged. */
/* run_bgp_door_ready: every router's route to prefix, the anycast address
 * door (or the service's IPv6 address, its twin), as BGP will have it
 * (x: bgpx_compute_door's, known or not) and quiet since run_bgp_quiet_ns
 * before now */
static int run_bgp_door_ready(const struct topology *t, const char *rundir, struct in_addr door,
			      const char *prefix, const struct bgpx *x, int64_t now)
{
	static struct in_addr via[TOPO_MAX_NODES];
	char path[PATH_MAX];
	int64_t last;

	/* each router's route to the door: every router has one that has not
	 * changed for run_bgp_quiet_ns, and a router with sites has the one
	 * BGP will choose */
	for (int r = 0; r < t->nnodes; r++) {
		if (t->nodes[r].kind != TOPO_ROUTER)
			continue;
		strfmt(path, sizeof(path), "%s/%s.collector.events.jsonl", rundir,
		       t->nodes[r].name);
		if (!run_fib_via(t, path, prefix, &via[r], &last) ||
		    now - last < run_bgp_quiet_ns(t))
			return 0;
	}
	for (int i = 0; i < t->nlinks; i++) {
		const struct topo_link *l = &t->links[i];

		if (t->nodes[l->node].kind != TOPO_SITE ||
		    topo_site_service(t, l->node).s_addr != door.s_addr)
			continue;
		if (x->known ? !bgpx_via_ok(x, l->router, via[l->router])
			     : !run_own_site_ok(t, l->router, door, via[l->router]))
			return 0;
	}
	return 1;
}

static int run_bgp_ready(const struct topology *t, const char *rundir)
{
	static struct bgpx x;
	static struct in_addr doors[TOPO_MAX_NODES];
	char path[PATH_MAX], prefix[INET6_ADDRSTRLEN + 4], svc[INET6_ADDRSTRLEN];
	int64_t now = now_real_ns();
	int ndoors = topo_services(t, doors, TOPO_MAX_NODES);

	for (int n = 0; n < t->nnodes; n++) {
		if (t->nodes[n].kind != TOPO_SITE)
			continue;
		strfmt(path, sizeof(path), "%s/%s.prober.events.jsonl", rundir, t->nodes[n].name);
		if (run_count_events(path, EVENTS_ADDRESS_ADDED, "site", t->nodes[n].name) == 0)
			return 0;
	}
	/* each anycast address the sites announce: the service, the front
	 * doors (docs/topology.md, "Front doors"); in a dual lab the
	 * service's IPv6 address too, over BGP's IPv6 sessions */
	for (int d = 0; d < ndoors; d++) {
		inet_ntop(AF_INET, &doors[d], svc, sizeof(svc));
		strfmt(prefix, sizeof(prefix), "%s/32", svc);
		if (bgpx_compute_door(t, -1, doors[d], &x) == -1)
			x.known = 0;
		/* ip = 6: the IPv6 routes alone */
		if (topo_v4(t) && !run_bgp_door_ready(t, rundir, doors[d], prefix, &x, now))
			return 0;
		if (!topo_v6(t) || doors[d].s_addr != t->service.s_addr)
			continue;
		inet_ntop(AF_INET6, &t->service6, svc, sizeof(svc));
		strfmt(prefix, sizeof(prefix), "%s/128", svc);
		if (!run_bgp_door_ready(t, rundir, doors[d], prefix, &x, now))
			return 0;
	}
	return 1;
}

/* run_not_yet: say in why (if any) what the lab still waits for; 0 */
static int run_not_yet(char *why, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int run_not_yet(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (why == NULL || len == 0)
		return 0;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return 0;
}

/* run_routes_applied: every router's routed has applied node's route
 * (routing = static: a site's, an anycast name server's); else what is
 * missing in why */
static int run_routes_applied(const struct topology *t, const char *rundir, const char *node,
			      char *why, size_t len)
{
	char path[PATH_MAX];

	for (int r = 0; r < t->nnodes; r++) {
		if (t->nodes[r].kind != TOPO_ROUTER)
			continue;
		strfmt(path, sizeof(path), "%s/%s.routed.events.jsonl", rundir, t->nodes[r].name);
		if (run_count_events(path, EVENTS_ROUTE_APPLIED, "site", node) == 0)
			return run_not_yet(why, len, "router %s has not applied %s's route",
					   t->nodes[r].name, node);
	}
	return 1;
}

/* run_latency_ready: every name of policy = latency has its answer by its
 * RTTs: each of its vantage probers has told authd its verdict on each of
 * its sites (health_sent, with the smoothed RTT). Until then authd answers
 * the first site listed, and a run that began so would start from that
 * answer for a TTL, which is not the steady state (docs/topology.md,
 * "Latency steering on measured RTTs"); else why */
static int run_latency_ready(const struct topology *t, const char *rundir, char *why, size_t len)
{
	char path[PATH_MAX], prober[64], sites[512], *save, *site;

	for (int s = 0; s < t->nraw_sections; s++) {
		const char *policy = topo_raw(t, s, "policy"), *list = topo_raw(t, s, "sites");

		if (strcmp(t->raw_sections[s].kind, "name") != 0 || policy == NULL ||
		    strcmp(policy, "latency") != 0 || list == NULL)
			continue;
		for (int i = 0; i < t->nraw_pairs; i++) {
			int p;

			if (t->raw_pairs[i].section != s ||
			    strcmp(t->raw_pairs[i].key, "vantage") != 0 ||
			    sscanf(t->raw_pairs[i].value, "%*s %63s", prober) != 1 ||
			    (p = topo_find(t, prober)) < 0 || t->nodes[p].kind != TOPO_PROBER)
				continue;
			strfmt(path, sizeof(path), "%s/%s.prober.events.jsonl", rundir, prober);
			strfmt(sites, sizeof(sites), "%s", list);
			for (site = strtok_r(sites, " \t", &save); site;
			     site = strtok_r(NULL, " \t", &save))
				if (run_count_events(path, EVENTS_HEALTH_SENT, "site", site) == 0)
					return run_not_yet(
					    why, len,
					    "prober %s has not told authd its RTT to %s "
					    "(name %s, policy latency)",
					    prober, site, t->raw_sections[s].name);
		}
	}
	return 1;
}

/* The lab is ready when every site link is being captured, every site's
 * route has been applied by every router (routing = bgp: BGP has
 * converged, run_bgp_ready), and every authd and resolverd answers (the
 * real resolvers are asked by run_warm_up, lab_realres_ready), and every
 * latency name has its answer by its RTTs (run_latency_ready). What it
 * still waits for goes in why. */
int run_ready_why(const struct topology *t, const char *rundir, char *why, size_t len)
{
	char path[PATH_MAX];

	if (t->routing == TOPO_ROUTING_BGP && !run_bgp_ready(t, rundir))
		return run_not_yet(why, len, "BGP has not converged");

	for (int n = 0; n < t->nnodes; n++) {
		if (t->nodes[n].kind == TOPO_DNS && t->nodes[n].dns_impl == TOPO_DNS_AUTHD) {
			/* PowerDNS is asked instead (lab_authority_ready) */
			strfmt(path, sizeof(path), "%s/%s.authd.events.jsonl", rundir,
			       t->nodes[n].name);
			if (run_count_events(path, EVENTS_AUTHD_READY, NULL, NULL) == 0)
				return run_not_yet(why, len, "authd on %s is not ready",
						   t->nodes[n].name);
		} else if (t->nodes[n].kind == TOPO_RESOLVER &&
			   t->nodes[n].impl == TOPO_IMPL_RESOLVERD) {
			/* a real resolver is asked instead (lab_realres_ready) */
			strfmt(path, sizeof(path), "%s/%s.resolverd.events.jsonl", rundir,
			       t->nodes[n].name);
			if (run_count_events(path, EVENTS_RESOLVERD_READY, NULL, NULL) == 0)
				return run_not_yet(why, len, "resolverd on %s is not ready",
						   t->nodes[n].name);
		}
	}

	for (int i = 0; i < t->nlinks; i++) {
		const struct topo_link *l = &t->links[i];
		const char *router = t->nodes[l->router].name, *site = t->nodes[l->node].name;
		if (t->nodes[l->node].kind == TOPO_DNS || t->nodes[l->node].kind == TOPO_RESOLVER) {
			char label[TOPO_NAME_MAX + 16];
			strfmt(label, sizeof(label), "%s-%s",
			       t->nodes[l->node].kind == TOPO_DNS ? "dns" : "resolver", site);
			strfmt(path, sizeof(path), "%s/%s.collector-dns.events.jsonl", rundir,
			       router);
			if (run_count_events(path, EVENTS_CAPTURE_READY, "label", label) == 0)
				return run_not_yet(why, len, "%s's link to %s is not captured",
						   site, router);
		}
		if (t->nodes[l->node].kind != TOPO_SITE)
			continue;
		strfmt(path, sizeof(path), "%s/%s.collector.events.jsonl", rundir, router);
		if (run_count_events(path, EVENTS_CAPTURE_READY, "label", site) == 0)
			return run_not_yet(why, len, "site %s's link to %s is not captured", site,
					   router);
		if (t->routing == TOPO_ROUTING_BGP)
			continue;
		if (!run_routes_applied(t, rundir, site, why, len))
			return 0;
	}
	return run_latency_ready(t, rundir, why, len);
}

/* run_anycast_bgp_ready: routing = bgp: anycast name server n's prober has
 * put its address on lo, and every router's FIB routes the address (the
 * collectors' route monitors, lab_start_collectors); else why */
static int run_anycast_bgp_ready(const struct topology *t, const char *rundir, int n, char *why,
				 size_t len)
{
	char path[PATH_MAX], prefix[INET_ADDRSTRLEN + 4], a[INET_ADDRSTRLEN];
	struct in_addr via;
	int64_t last;

	strfmt(path, sizeof(path), "%s/%s.prober.events.jsonl", rundir, t->nodes[n].name);
	if (run_count_events(path, EVENTS_ADDRESS_ADDED, "site", t->nodes[n].name) == 0)
		return run_not_yet(why, len, "%s has not put its anycast address on lo",
				   t->nodes[n].name);
	strfmt(prefix, sizeof(prefix), "%s/32",
	       inet_ntop(AF_INET, &t->nodes[n].anycast, a, sizeof(a)));
	for (int r = 0; r < t->nnodes; r++) {
		if (t->nodes[r].kind != TOPO_ROUTER)
			continue;
		strfmt(path, sizeof(path), "%s/%s.collector.events.jsonl", rundir,
		       t->nodes[r].name);
		if (!run_fib_via(t, path, prefix, &via, &last))
			return run_not_yet(why, len, "router %s has no route to %s",
					   t->nodes[r].name, prefix);
	}
	return 1;
}

int run_anycast_ns_ready(const struct topology *t, const char *rundir, char *why, size_t len)
{
	for (int n = 0; n < t->nnodes; n++) {
		if (t->nodes[n].kind != TOPO_DNS || t->nodes[n].anycast.s_addr == 0)
			continue;
		if (t->routing == TOPO_ROUTING_BGP
			? !run_anycast_bgp_ready(t, rundir, n, why, len)
			: !run_routes_applied(t, rundir, t->nodes[n].name, why, len))
			return 0;
	}
	return 1;
}

int run_ready(const struct topology *t, const char *rundir)
{
	return run_ready_why(t, rundir, NULL, 0);
}

static int run_sleep_until(struct lab *lab, int64_t deadline);

/* the clients' go: how long after it their common start is (each is
 * blocked waiting for the signal, then sleeps until the start) */
#define RUN_GO_MARGIN_NS (20 * NSEC_PER_MSEC)
/* how long the clients may take to be ready, at most */
#define RUN_READY_NS (10 * NSEC_PER_SEC)

/* run_clients_ready: 1 once every client agent said client_ready (one
 * that ended never will: it is not waited for), else 0 */
static int run_clients_ready(struct lab *lab)
{
	char path[PATH_MAX];

	for (int i = 0; i < lab->nagents; i++) {
		const struct lab_agent *a = &lab->agents[i];

		if (strncmp(a->name, "client", 6) != 0 || a->reaped)
			continue;
		strfmt(path, sizeof(path), "%s/%s.%s.events.jsonl", lab->rundir,
		       lab->t->nodes[a->node].name, a->name);
		if (run_count_events(path, EVENTS_CLIENT_READY, NULL, NULL) == 0)
			return 0;
	}
	return 1;
}

/* run_sleep_until: wait until deadline (CLOCK_MONOTONIC), watching the
 * agents and keeping the progress line going. -1 if interrupted. */
static int run_sleep_until(struct lab *lab, int64_t deadline)
{
	int64_t now;

	while ((now = now_mono_ns()) < deadline && !run_interrupted) {
		lab_watch(lab, deadline - now < PROGRESS_TTY_NS ? deadline - now : PROGRESS_TTY_NS);
		progress_tick(&run_progress);
	}
	return run_interrupted ? -1 : 0;
}

static void run_before_say(void)
{
	progress_clear(&run_progress);
}

/* how often the warm-up asks bfdd (a vtysh each FRR node with BFD) */
#define RUN_BFD_ASK_NS (100 * 1000000LL)

/* run_bfd_ready: with the rest of the lab ready, every BFD session is up
 * (lab_frr_bfd_up), each node's asked at most every RUN_BFD_ASK_NS until
 * it has been seen with all of them up: a BFD session that went down at
 * bring-up (a loaded machine holding a bfdd back) and had not come back
 * at the failure would leave BGP's hold timer to notice it, and the run
 * would time the wrong thing. What is not up yet in why. */
static int run_bfd_ready(struct lab *lab, char *up, int64_t *asked, char *why, size_t len)
{
	int64_t now = now_mono_ns();
	int ready = 1;

	if (now - *asked < RUN_BFD_ASK_NS)
		return 0;
	*asked = now;
	for (int n = 0; n < lab->t->nnodes && ready; n++) {
		if (up[n])
			continue;
		if (lab_frr_bfd_up(lab, n, why, len) == 1)
			up[n] = 1;
		else
			ready = 0;
	}
	return ready;
}

/* run_warm_up: wait, at most settle, until the lab is ready (run_ready,
 * and every BFD session up: run_bfd_ready), watching its agents. 0 when
 * ready; -1 (said) if an agent ended, settle passed, or the run was
 * interrupted. */
static int run_warm_up(struct lab *lab)
{
	static char bfd_up[TOPO_MAX_NODES];
	const struct topology *t = lab->t;
	int64_t ready_by = now_mono_ns() + t->settle_ns, bfd_asked = 0;
	char bfd_why[512] = "", why[512] = "";
	int ready = 0;

	memset(bfd_up, 0, sizeof(bfd_up));
	lab->phase = LAB_WARMUP;
	progress_phase(&run_progress, PROGRESS_WARMUP);
	for (;;) {
		lab_watch(lab, 0);
		if (lab->unexpected) {
			log_warnx(
			    "the lab is not ready: an agent ended during the warm-up (above)");
			return -1;
		}
		/* PowerDNS and gdnsd check the sites from their start: they
		 * start once the sites' routes are in */
		if ((ready = run_ready_why(t, lab->rundir, why, sizeof(why))) &&
		    lab_authority_start_later(lab) == -1) {
			log_warnx("the lab is not ready: PowerDNS or gdnsd could not start "
				  "(above)");
			return -1;
		}
		if ((ready = ready && lab_realres_ready(lab, why, sizeof(why)) &&
			     lab_authority_ready(lab, why, sizeof(why)) &&
			     run_anycast_ns_ready(t, lab->rundir, why, sizeof(why))) &&
		    (t->routing != TOPO_ROUTING_BGP ||
		     run_bfd_ready(lab, bfd_up, &bfd_asked, bfd_why, sizeof(bfd_why))))
			return 0;
		if (run_interrupted)
			return -1;
		if (now_mono_ns() >= ready_by) {
			if (ready)
				log_warnx(
				    "BFD was not up within %.1f s (settle): %s (`vtysh -c "
				    "'show bfd peers'` through steerlab exec, on a lab "
				    "brought up with steerlab up, shows why), or raise settle",
				    (double)t->settle_ns / NSEC_PER_SEC, bfd_why);
			else if (t->routing == TOPO_ROUTING_BGP && !run_bgp_ready(t, lab->rundir))
				log_warnx("BGP had not converged within %.1f s (settle): the "
					  "router's FIB has no route to the service via the "
					  "preferred site; see the *.bgpd.log files in %s, or "
					  "raise settle",
					  (double)t->settle_ns / NSEC_PER_SEC, lab->rundir);
			else
				log_warnx("the lab was not ready within %.1f s (settle): %s; see "
					  "the *.log files in %s, or raise settle",
					  (double)t->settle_ns / NSEC_PER_SEC, why, lab->rundir);
			return -1;
		}
		lab_watch(lab, 20 * 1000000LL);
		progress_tick(&run_progress);
	}
}

int run_wait_ready(struct lab *lab)
{
	return run_warm_up(lab);
}

/* run_say_out: where the progress goes: stdout, but stderr with --json
 * (stdout holds clocks.json's document alone) */
static FILE *run_say_out(const struct run_opts *o)
{
	return o->json ? stderr : stdout;
}

static void run_say(const struct run_opts *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void run_say(const struct run_opts *o, const char *fmt, ...)
{
	va_list ap;

	if (o->quiet)
		return;
	progress_clear(&run_progress);
	va_start(ap, fmt);
	fprintf(run_say_out(o), "steerlab: ");
	vfprintf(run_say_out(o), fmt, ap);
	fprintf(run_say_out(o), "\n");
	fflush(run_say_out(o));
	va_end(ap);
}

/* run_timeline: every step of the timeline (steps[0..n), action_plan) at
 * its instant from start (CLOCK_MONOTONIC), each said on the terminal ("at 3.0 s: crash site a")
 * and written as event_applied. The steps applied into *applied. 0, or -1
 * if the run was interrupted or a step could not be applied (said). */
static int run_timeline(struct lab *lab, const struct run_opts *o, int64_t start,
			const struct action_step *steps, int n, int *applied)
{
	int failed = 0;
	char said[256];

	action_reset();
	for (int i = 0; i < n; i++) {
		const struct action_step *s = &steps[i];

		if (run_sleep_until(lab, start + s->at_ns) == -1)
			return -1;
		int64_t t0 = now_real_ns();
		if (action_apply(lab, s, "timeline", said, sizeof(said)) == -1) {
			run_before_say();
			log_warnx("at %.1f s: %s", (double)s->at_ns / NSEC_PER_SEC, said);
			return -1;
		}
		(*applied)++;
		if (!failed && action_sites_failed() > 0) {
			failed = 1;
			progress_failed(&run_progress, t0);
		}
		run_say(o, "at %.1f s: %s", (double)s->at_ns / NSEC_PER_SEC, said);
	}
	return 0;
}

int run_failing_site(const struct topology *t)
{
	return topo_first_failure(t, NULL);
}

/* run_programs: every agent program the topology needs is in bindir (else
 * said, for cmd). */
static int run_programs(const char *cmd, const struct topology *t, const char *bindir)
{
	const char *progs[8] = {"routed", "collector", "sited", "prober", "client"};
	char path[PATH_MAX];
	int rc = 0;

	for (int i = 0; i < t->nnodes; i++) {
		if (t->nodes[i].kind == TOPO_DNS && t->nodes[i].dns_impl == TOPO_DNS_AUTHD)
			progs[5] = "authd";
		else if (t->nodes[i].kind == TOPO_RESOLVER)
			progs[6] = "resolverd";
	}
	if (topo_impaired(t))
		progs[7] = "linkd"; /* when the kernel has no netem */
	for (int i = 0; i < t->nnodes; i++)
		if (t->nodes[i].kind == TOPO_SITE && t->nodes[i].site_impl == TOPO_SITE_NGINX &&
		    access(lab_nginx_prog(), X_OK) == -1) {
			log_warnx("%s: site %s: impl = nginx, and %s is not there (sudo make deps)",
				  cmd, t->nodes[i].name, lab_nginx_prog());
			rc = -1;
			break;
		}
	for (int i = 0; i < 8; i++) {
		if (progs[i] == NULL)
			continue;
		strfmt(path, sizeof(path), "%s/%s", bindir, progs[i]);
		if (access(path, X_OK) == -1) {
			log_warn("%s: agent program %s (make builds it)", cmd, path);
			rc = -1;
		}
	}
	return rc;
}

int run_preflight_lab(const char *cmd, const struct topology *t, const char *bindir)
{
	char statedir[PATH_MAX], ns[64];
	int rc = 0;

	lab_statedir(statedir, sizeof(statedir), t->name);
	if (access(statedir, F_OK) == 0) {
		fprintf(stderr,
			"steerlab: %s: lab '%s' is already up (%s): take it down first with: "
			"steerlab down %s\n",
			cmd, t->name, statedir, t->name);
		rc = -1;
	} else {
		for (int i = 0; i < t->nnodes; i++) {
			lab_nsname(ns, sizeof(ns), t, i);
			if (netns_exists(ns)) {
				fprintf(stderr,
					"steerlab: %s: namespace %s already exists: remove it or "
					"rename the lab (--set name=...)\n",
					cmd, ns);
				rc = -1;
				break;
			}
		}
	}
	if (bindir && run_programs(cmd, t, bindir) == -1)
		rc = -1;
	/* an impairment the mechanism of this kernel cannot apply (each said);
	 * telling the mechanism needs root, which a command that builds a lab
	 * needs anyway (sweep --check does not) */
	if (bindir && (topo_impaired(t) || topo_impair_events(t)) && geteuid() == 0) {
		enum impair_mech mech;
		char why[256];

		switch (lab_impair_mech(t, &mech, why, sizeof(why), stderr)) {
		case -2:
			fprintf(stderr, "steerlab: %s: impairments: %s\n", cmd, why);
			/* fall through */
		case -1:
			rc = -1;
		}
	}
	return rc;
}

int run_preflight(const struct topology *t, const char *bindir, const char *rundir,
		  int explicit_out)
{
	int rc = 0;

	/* no event takes a site out: a steady-state run (docs/topology.md,
	 * "Steady-state runs"), measured for its steering, not its clocks */
	if (run_preflight_lab("run", t, bindir) == -1)
		rc = -1;
	if (rundir_check("run", rundir, NULL, explicit_out, stderr) == -1)
		rc = -1;
	return rc;
}

/* The room kept in the run directory, from before the lab comes up to the
 * analysis, for the analysis's files: a disk the captures filled still
 * takes clocks.json, its verdict and the report (a few hundred KB). */
#define RUN_RESERVE_BYTES (1 << 20)
#define RUN_RESERVE_FILE ".analysis-reserve"

/* run_reserve: RUN_RESERVE_BYTES allocated in rundir (not on a disk already
 * full: then the analysis says what it could not write) */
static void run_reserve(const char *rundir)
{
	char path[PATH_MAX];
	int fd;

	if (strfmt(path, sizeof(path), "%s/%s", rundir, RUN_RESERVE_FILE) == -1)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd == -1)
		return;
	if (posix_fallocate(fd, 0, RUN_RESERVE_BYTES) != 0) {
		log_debug("%s: cannot reserve room for the analysis", path);
		unlink(path);
	}
	close(fd);
}

/* run_unreserve: that room given back, for the analysis to use */
static void run_unreserve(const char *rundir)
{
	char path[PATH_MAX];

	if (strfmt(path, sizeof(path), "%s/%s", rundir, RUN_RESERVE_FILE) == 0)
		unlink(path);
}

int run_seed(struct topology *t)
{
	uint32_t seed;

	if (t->seed >= 0)
		return 0;
	if (jitter_random_seed(&seed) == -1) {
		log_warn("%s: getrandom", __func__);
		return -1;
	}
	t->seed = seed;
	return 0;
}

/* run_merge: run --merge: every capture into RUN/run.pcapng with the lab's
 * events as comments (report_merge); a failure to write it makes a valid
 * run's *rc RUN_UNSAVED, as any file of the analysis not written */
static void run_merge(const struct topology *t, const struct run_opts *o, const char *rundir,
		      int *rc)
{
	struct report_merge_stats st;
	char err[4200] = "";

	if (report_merge(rundir, t->port, &st, stderr, err, sizeof(err)) == -1) {
		fprintf(stderr, "steerlab: merge: %s\n", err);
		if (*rc == 0)
			*rc = RUN_UNSAVED;
		return;
	}
	run_say(o, "merged %d captures into %s/%s: %llu packets, %d events as comments",
		st.captures, rundir, REPORT_MERGE_FILE, (unsigned long long)st.packets,
		st.comments);
}

int run_scenario(struct topology *t, const struct run_opts *o)
{
	struct lab *lab = &run_lab;
	char rundir[PATH_MAX], err[PATH_MAX + 128];
	int64_t start = 0, start_real, before, go_base, stopped = 0, fail_at, nominal;
	int failed = 0, applied = 0, rc = -1, r, nsteps, steady;
	FILE *fp;

	if (o->rundir)
		strfmt(rundir, sizeof(rundir), "%s", o->rundir);
	else
		run_default_dir(rundir, sizeof(rundir), t->name);
	/* what would be refused later is refused now, before anything is made */
	if (run_preflight(t, o->bindir, rundir, o->rundir != NULL) == -1)
		return -1;
	if (lab_init(lab, t, rundir, o->bindir) == -1)
		return -1;
	lab->interrupt = &run_interrupted;
	/* drawn before topology.ini is written, which then reproduces the run */
	if (run_seed(t) == -1)
		return -1;
	/* the timeline's steps, each event moved by its jitter */
	nsteps = action_plan(t, run_steps, ACTION_MAX_STEPS);
	fail_at = action_fail_at(t, run_steps, nsteps, &nominal);
	steady = run_failing_site(t) < 0;
	lab->before_say = run_before_say;
	if ((fp = lab_fopen_new(rundir, "topology.ini")) != NULL) {
		topo_print(t, fp);
		fclose(fp);
	}
	if (planjson_write(t, rundir, err, sizeof(err)) == -1)
		log_warnx("%s", err);
	run_reserve(rundir);
	run_say(o, "run directory %s", rundir);
	progress_init(&run_progress, t, progress_mode_for(run_say_out(o), o->quiet), run_say_out(o),
		      o->label);

	start = now_mono_ns();
	run_progress.fail_at_ns = steady ? -1 : fail_at;
	if (lab_up(lab) == -1)
		goto out;
	run_say(o, "lab %s up: %d namespaces, %d links, %d agents in %.2f s", t->name, t->nnodes,
		t->nlinks, lab->nagents, (double)(now_mono_ns() - start) / NSEC_PER_SEC);

	run_say(o, "warm-up: waiting for captures and routes (at most %.1f s)",
		(double)t->settle_ns / NSEC_PER_SEC);
	if (run_warm_up(lab) == -1)
		goto down;
	/* one kernel clock no longer holds: each host's against the first's
	 * (docs/topology.md, "Hosts") */
	if (t->nhosts > 1 && lab_hosts_clocks(lab) == 0)
		run_say(o, "hosts' clocks measured against %s's (host_clock events)",
			t->hosts[0].name);

	/* from here an agent that ends invalidates the run; clients may end
	 * once their duration is over */
	/* every client begins at one instant, the traffic's start, however
	 * long starting them one after the other takes: its first
	 * resolution, its first request, its schedule, so that the phases
	 * the topology states count from it (docs/model.md). A barrier: each
	 * says client_ready once set up and waits for the go (client -Z),
	 * sent when all are, the start 20 ms after it (a loaded machine once
	 * took 266 ms to fork and exec them against a start fixed before) */
	go_base = now_mono_ns();
	lab->phase = LAB_TRAFFIC;
	lab->traffic_start = go_base;
	lab->clients_until = go_base + RUN_READY_NS + t->duration_ns;
	if (lab_start_clients(lab, t->duration_ns, go_base) == -1)
		goto down;
	while (!run_clients_ready(lab) && !run_interrupted) {
		if (now_mono_ns() - go_base > RUN_READY_NS) {
			log_warnx("the clients were not all ready %.0f s after they were started "
				  "(client_ready): starting the traffic without the others",
				  (double)RUN_READY_NS / NSEC_PER_SEC);
			break;
		}
		lab_watch(lab, 2 * NSEC_PER_MSEC);
	}
	log_debug("the clients were ready %.1f ms after they began to be started",
		  (double)(now_mono_ns() - go_base) / NSEC_PER_MSEC);
	before = now_mono_ns() + RUN_GO_MARGIN_NS;
	lab->traffic_start = before;
	lab->clients_until = before + t->duration_ns;
	lab_clients_go(lab, go_base, before);
	if (now_mono_ns() > before)
		log_info("the clients' go took %.1f ms past their common start",
			 (double)(now_mono_ns() - before) / NSEC_PER_MSEC);
	(void)run_sleep_until(lab, before);
	start = before;
	/* the probers' cycles from the traffic's start: a probe half an
	 * interval after it, then every interval, so that a failure fail_at
	 * into the traffic falls at the phase the topology states, not at
	 * wherever the warm-up ended in the cycle (it ends just after a round
	 * of probes: the routes their verdicts carried) (docs/model.md); from
	 * the start itself, not from when a loaded prober reads the signal
	 * (a gate's seed002 run detected 78 ms early) */
	lab_probers_phase(lab, start);
	/* traffic_started is stamped with the instant the timeline counts
	 * from, not when it is written: a loaded machine wrote it 14 ms late */
	start_real = now_real_ns() - (now_mono_ns() - start);
	progress_traffic(&run_progress, start, lab);
	/* fail_at_ns: when the first failure of a site is due, jitter
	 * included */
	/* a steady-state run's fail_at_ns are null: it has no failure */
	event_emit_at(lab->ev, start_real, EVENTS_TRAFFIC_STARTED, "{s:o, s:I, s:o, s:I, s:I, s:i}",
		      "fail_at_ns", steady ? json_null() : json_integer(fail_at), "duration_ns",
		      (json_int_t)t->duration_ns, "nominal_fail_at_ns",
		      steady ? json_null() : json_integer(nominal), "fail_jitter_ns",
		      (json_int_t)t->fail_jitter_ns, "seed", (json_int_t)t->seed, "events",
		      t->nevents);
	if (steady)
		run_say(
		    o, "traffic: clients sending for %.1f s; %d event%s; steady state: no failure",
		    (double)t->duration_ns / NSEC_PER_SEC, t->nevents, t->nevents == 1 ? "" : "s");
	else if (t->fail_jitter_ns > 0)
		run_say(o,
			"traffic: clients sending for %.1f s; %d event%s, the first failure at "
			"%.3f s (%.3f s + %.3f s of jitter, seed %lld)",
			(double)t->duration_ns / NSEC_PER_SEC, t->nevents,
			t->nevents == 1 ? "" : "s", (double)fail_at / NSEC_PER_SEC,
			(double)nominal / NSEC_PER_SEC, (double)(fail_at - nominal) / NSEC_PER_SEC,
			(long long)t->seed);
	else
		run_say(
		    o,
		    "traffic: clients sending for %.1f s; %d event%s, the first failure at %.1f s",
		    (double)t->duration_ns / NSEC_PER_SEC, t->nevents, t->nevents == 1 ? "" : "s",
		    (double)fail_at / NSEC_PER_SEC);
	r = run_timeline(lab, o, start, run_steps, nsteps, &applied);
	failed = action_sites_failed() > 0;
	if (r == -1)
		goto stop;
	run_say(o, "observing until the traffic ends (%.1f s)",
		(double)t->duration_ns / NSEC_PER_SEC);
	/* clients stop by themselves after duration, then wait out their timeout */
	while (lab_wait_agents(lab, "client*", PROGRESS_TTY_NS) > 0) {
		progress_tick(&run_progress);
		if (run_interrupted)
			break;
		if (now_mono_ns() > start + t->duration_ns + 2 * 5 * NSEC_PER_SEC) {
			log_warnx("clients did not finish in time");
			break;
		}
	}
stop:
	stopped = now_mono_ns();
	event_emit(lab->ev, EVENTS_TRAFFIC_STOPPED, "{s:b}", "interrupted", run_interrupted != 0);
down:
	progress_free(&run_progress);
	if (run_interrupted)
		run_say(o, "interrupted: taking the lab down and keeping what was captured");
	if (lab_down(lab) == -1)
		log_warnx("lab %s: take-down incomplete; try: steerlab down %s", t->name, t->name);
	else
		run_say(o, "lab %s down", t->name);
	run_unreserve(rundir);
	/* a steady-state run is analysed once its traffic ran (stopped) */
	if (failed || (steady && stopped != 0)) {
		run_say(o, "analysing the captures, events and records");
		r = report_run(rundir, &(struct report_opts){.json = o->json}, stdout);
		if (r != -1 && !(r & REPORT_UNSAVED))
			run_say(o, "results in %s (report.md, clocks.json)", rundir);
		fflush(stdout);
		if (r == -1)
			rc = -1;
		else if (r & REPORT_UNSAVED)
			rc = RUN_UNSAVED; /* measured, printed, not all saved: said */
		else if (r == REPORT_INVALID || run_interrupted || lab->unexpected)
			rc = RUN_INVALID;
		else
			rc = 0;
		if (r != -1 && o->merge)
			run_merge(t, o, rundir, &rc);
		if (lab->unexpected)
			fprintf(
			    stderr,
			    "steerlab: %d agent%s ended during the run (above, and agent_exited "
			    "in %s/lab.events.jsonl): this run is invalid\n",
			    lab->unexpected, lab->unexpected == 1 ? "" : "s", rundir);
		if (run_interrupted)
			fprintf(stderr,
				"steerlab: the run was interrupted at %.1f s of %.1f s of traffic: "
				"its figures cover the traffic until then, not a full run\n",
				(double)(stopped - start) / NSEC_PER_SEC,
				(double)t->duration_ns / NSEC_PER_SEC);
	} else if (run_interrupted) {
		fprintf(stderr,
			"steerlab: interrupted before the failure: nothing to "
			"analyse (what was captured is in %s)\n",
			rundir);
	}
out:
	run_unreserve(rundir);
	progress_free(&run_progress);
	event_close(lab->ev);
	lab->ev = NULL;
	run_chown(rundir);
	return rc;
}
