/*
 * prober: health of the local service, and the announcement
 * (docs/agents.md).
 *
 * Every INTERVAL one probe to the site's sited; DOWN failures in a row make
 * the site dead and withdraw its prefix from every router, UP successes
 * make it alive and announce it. The current verdict is repeated every
 * REFRESH so that a restarted router relearns it. With -L (routing = bgp)
 * the announcement is the prefix on the node's lo instead, added while
 * the site is alive and removed when it is dead (loaddr.h); the site's
 * bgpd announces what is there.
 *
 * Remote mode (-T SITE=ADDR, -A AUTHD, -I ID) probes any number of sites'
 * unicast addresses from afar with the same thresholds, measures their RTT,
 * and reports each verdict to authd as a health report (report.h). Both
 * modes can run in one prober: -A then also reports the local site.
 *
 * Proximity mode (-Y SITE with remote mode) stands at SITE and probes the
 * queriers of authd (-T NAME=ADDR: resolvers, clients asking authd
 * directly) instead of sites: each report is a PROXIMITY line, the smoothed
 * RTT from SITE to the querier, 0 while it does not answer (the seed's
 * data centres probing the local DNS servers; docs/authd.md, "Proximity").
 *
 * -C picks the check for every site (probe.h): udp, the request answered
 * by sited (deep), tcp, a connection established (shallow), http, a GET
 * answered 200 (deep), or icmp, an echo answered by the host (shallowest);
 * what follows a probe's verdict is the same for all.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "addrplan.h"
#include "announce.h"
#include "event.h"
#include "events.h"
#include "fsm.h"
#include "addr.h"
#include "log.h"
#include "opt.h"
#include "strfmt.h"
#include "loaddr.h"
#include "loop.h"
#include "probe.h"
#include "prober_signals.h"
#include "authds.h"
#include "routers.h"
#include "target.h"
#include "timeutil.h"

#define PROBER_MAX_TARGETS 64

#define PROBER_USAGE                                                                               \
	"usage: prober -s SITE -t ADDR:PORT -P PREFIX -m METRIC -R ROUTER[:PORT] [-R ...]\n"       \
	"       prober -s SITE -t ADDR:PORT -P PREFIX -L [-6 ADDRESS6]\n"                          \
	"       prober -I ID -A AUTHD[:PORT] [-A ...] -T SITE=ADDR[:PORT] [-T ...]\n"              \
	"              [-n NODE] [-e FILE] [-i INTERVAL] [-w TIMEOUT] [-d DOWN] [-u UP]\n"         \
	"              [-k REFRESH] [-C udp|tcp|http|icmp] [-W CONNECT] [-Y SITE]\n"               \
	"              [-U PATH [-X STATUS] [-b BODY]] [-v] [-h]\n"

struct prober_opts {
	const char *node;
	const char *events;
	const char *site;
	struct sockaddr_storage target;
	int has_prefix, has_target, has_metric;
	int lo; /* -L: the prefix on lo while alive, not announcements */
	int has_addr6;
	struct in6_addr addr6; /* -6: with -L, this IPv6 address on lo too */
	struct prober_lo loaddr;
	struct announce_msg msg; /* site, prefix, metric */
	struct prober_routers routers;
	int64_t interval_ns, timeout_ns, refresh_ns;
	unsigned down, up;
	const struct prober_check *check;  /* -C */
	const char *http_path, *http_body; /* -U, -b */
	const char *dns_zone;		   /* -Q */
	int64_t connect_timeout_ns;	   /* -W */
	unsigned http_status;		   /* -X */
	int has_status;
	int verbose;
	/* remote mode */
	const char *id;
	const char *prox_site; /* -Y: the -T targets are queriers, measured from it */
	struct prober_authds authds;
	int nremote;
	char remote_site[PROBER_MAX_TARGETS][WIRE_SITE_LEN + 1];
	struct sockaddr_storage remote_addr[PROBER_MAX_TARGETS];
};

/* one site probed: the local one (announced to routers), or a remote one */
struct prober_target {
	struct prober *p;
	const char *site;
	struct sockaddr_storage addr; /* IPv4 or IPv6 */
	int local;
	struct prober_fsm fsm;
	struct prober_probe probe;
	struct loop_handler reply;
	uint32_t srtt_us;
	unsigned long long probes, failed;
};

struct prober {
	struct prober_opts *o;
	struct loop *loop;
	struct event_log *ev;
	int ntargets;
	struct prober_target t[PROBER_MAX_TARGETS];
	struct loop_handler sig, phase_sig, withhold_sig, timeout_timer, probe_timer, refresh_timer;
	int64_t timeout_at; /* when timeout_timer fires (0: not armed) */
};

static void prober_usage(FILE *fp)
{
	fprintf(fp,
		PROBER_USAGE
		"  -s SITE          the site probed and announced\n"
		"  -t ADDR:PORT     its service, usually 127.0.0.1:%d ([IPV6]:PORT for IPv6)\n"
		"  -P PREFIX        the prefix announced, e.g. " ADDRPLAN_SERVICE_TEXT "/32, or\n"
		"                   with -R an IPv6 one (2001:2:0:ff00::1/128) to routers of\n"
		"                   IPv6 alone (every -R of PREFIX's family)\n"
		"  -m METRIC        route priority of the announcement (lower wins)\n"
		"  -R ROUTER[:PORT] a router's routed (port default %d), [IPV6]:PORT over\n"
		"                   IPv6; repeatable\n"
		"  -L               instead of -m and -R: keep PREFIX on lo while the site is\n"
		"                   alive, remove it when it is dead (routing = bgp: bgpd\n"
		"                   announces what is there)\n"
		"  -6 ADDRESS6      with -L: ADDRESS6/128 on lo beside PREFIX (the service's\n"
		"                   IPv6 address in a dual-stack lab)\n"
		"  -i INTERVAL      time between probes (default 100ms)\n"
		"  -w TIMEOUT       a probe unanswered this long fails (default 50ms)\n"
		"  -d DOWN          failures in a row that mean dead (default 3)\n"
		"  -u UP            successes in a row that mean alive (default 3)\n"
		"  -k REFRESH       the verdict is repeated this often (default 1s)\n"
		"  -C CHECK         the check: udp, a request sited must answer (deep, the\n"
		"                   default); tcp, a TCP connection established and aborted\n"
		"                   at once (shallow: the kernel's handshake, not sited's\n"
		"                   answer; blind to a drain); http, a GET sited -H must\n"
		"                   answer 200 in the site's name (deep); icmp, an echo\n"
		"                   request the site's host answers (root; blind to sited);\n"
		"                   dns, a name server answers the SOA of ZONE (-Q)\n"
		"  -Q ZONE          -C dns: the zone asked (default: the root)\n"
		"  -W CONNECT       -C tcp or http: the connection within CONNECT; http's\n"
		"                   response then within TIMEOUT of it (default: TIMEOUT\n"
		"                   for the whole probe)\n"
		"  -U PATH          -C http: GET PATH instead of the lab's target, passed on\n"
		"                   STATUS (-X, default 200) and, with -b, BODY in the first\n"
		"                   5,120 bytes of the body (Route 53's string matching)\n"
		"  -I ID            remote mode: this prober's id in health reports\n"
		"  -A AUTHD[:PORT]  an authd's control socket (port default %d); repeatable;\n"
		"                   IPv6 as [IPV6]:PORT or a bare IPV6\n"
		"  -T SITE=ADDR[:PORT] a site's service address (port default %d); repeatable;\n"
		"                   IPv6 as SITE=[IPV6]:PORT (probed over IPv6, icmp by ICMPv6)\n"
		"  -Y SITE          proximity: this prober stands at SITE and each -T is a\n"
		"                   querier of authd's (NAME=ADDR); it reports the RTT from\n"
		"                   SITE to each (PROXIMITY lines, 0 while unanswered)\n"
		"  -n NODE          lab node, written into every event (default: prober)\n"
		"  -e FILE          JSON Lines event file (default: standard output)\n"
		"  -v               debug logging\n"
		"  -h               this help\n"
		"SIGUSR1 sets the phase: the next probe half an interval later, then one\n"
		"every interval; the next refresh half a refresh later (the lab sends it\n"
		"when its traffic starts, so that probes come at a known phase of it;\n"
		"sigqueue'd with a value, the phase counts from the CLOCK_MONOTONIC\n"
		"microseconds it gives, modulo 2^31, not from when it is read).\n"
		"SIGUSR2, sigqueue'd with 6 or 4 (-L): that family's address kept off lo\n"
		"whatever the verdict, so bgpd withdraws its announcement alone; 0: both\n"
		"as the verdict says again.\n",
		WIRE_PORT_DEFAULT, ANNOUNCE_PORT, PROBER_AUTHD_PORT, WIRE_PORT_DEFAULT);
}

static int prober_opt_router(const char *arg, void *dst, const char **what)
{
	struct sockaddr_storage ss;

	if (addr_parse_sockaddr(arg, ANNOUNCE_PORT, &ss) == -1)
		return -1;
	if (prober_routers_add(dst, &ss) == -1) {
		*what = "at most 256 routers";
		return -1;
	}
	return 0;
}

static int prober_opt_authd(const char *arg, void *dst, const char **what)
{
	struct sockaddr_storage ss;

	if (addr_parse_sockaddr(arg, PROBER_AUTHD_PORT, &ss) == -1)
		return -1;
	if (prober_authds_add(dst, &ss) == -1) {
		*what = "at most 16 authds";
		return -1;
	}
	return 0;
}

static int prober_opt_remote(const char *arg, void *dst, const char **what)
{
	struct prober_opts *o = dst;

	if (o->nremote == PROBER_MAX_TARGETS - 1) {
		*what = "at most 63 remote sites";
		return -1;
	}
	if (prober_target_parse(arg, o->remote_site[o->nremote], &o->remote_addr[o->nremote]) == -1)
		return -1;
	o->nremote++;
	return 0;
}

static int prober_opt_target(const char *arg, void *dst, const char **what)
{
	(void)what;
	return addr_parse_sockaddr(arg, WIRE_PORT_DEFAULT, dst);
}

static int prober_opt_prefix(const char *arg, void *dst, const char **what)
{
	struct announce_msg *m = dst;

	(void)what;
	return announce_prefix_parse(arg, &m->prefix, &m->prefixlen);
}

static int prober_opt_addr6(const char *arg, void *dst, const char **what)
{
	(void)what;
	return inet_pton(AF_INET6, arg, dst) == 1 ? 0 : -1;
}

static int prober_opt_check(const char *arg, void *dst, const char **what)
{
	const struct prober_check **check = dst;

	(void)what;
	return (*check = prober_check_find(arg)) == NULL ? -1 : 0;
}

static void prober_parse(int argc, char **argv, struct prober_opts *o)
{
	static const struct opt_cmd cmd = {"prober", PROBER_USAGE, prober_usage, NULL};
	const char *duration = "a duration such as 100ms", *count = "a count of probes (1-1000000)";
	const struct opt opts[] = {
	    {OPT_STR('n', &o->node)},
	    {OPT_STR('e', &o->events)},
	    {OPT_NAME('s', &o->site, WIRE_SITE_LEN,
		      "a site name of 1 to 16 letters, digits, '.', '_' or '-'")},
	    {OPT_CALL('t', prober_opt_target, &o->target, "ADDR:PORT or [IPV6]:PORT"),
	     .seen = &o->has_target},
	    {OPT_CALL('P', prober_opt_prefix, &o->msg,
		      "a prefix such as " ADDRPLAN_SERVICE_TEXT "/32 or 2001:2:0:ff00::1/128"),
	     .seen = &o->has_prefix},
	    {OPT_INT('m', &o->msg.metric, 0, UINT32_MAX, "a metric (0-4294967295)"),
	     .seen = &o->has_metric},
	    {OPT_CALL('R', prober_opt_router, &o->routers,
		      "a router's ADDR[:PORT] or [IPV6]:PORT (at most 256)")},
	    {OPT_FLAG('L', &o->lo)},
	    {OPT_CALL('6', prober_opt_addr6, &o->addr6, "an IPv6 address such as 2001:2:0:ff00::1"),
	     .seen = &o->has_addr6},
	    {OPT_DURATION('i', &o->interval_ns, 1, INT64_MAX, duration)},
	    {OPT_DURATION('w', &o->timeout_ns, 1, INT64_MAX, duration)},
	    {OPT_INT('d', &o->down, 1, 1000000, count)},
	    {OPT_INT('u', &o->up, 1, 1000000, count)},
	    {OPT_DURATION('k', &o->refresh_ns, 1, INT64_MAX, duration)},
	    {OPT_CALL('C', prober_opt_check, &o->check, "a check, udp, tcp, http, icmp or dns")},
	    {OPT_NAME('I', &o->id, HEALTH_ID_LEN,
		      "a prober id of 1 to 32 letters, digits, '.', '_' or '-'")},
	    {OPT_CALL('A', prober_opt_authd, &o->authds, "an authd's ADDR[:PORT] or [IPV6]:PORT")},
	    {OPT_CALL('T', prober_opt_remote, o,
		      "SITE=ADDR[:PORT] or SITE=[IPV6]:PORT, a site name of 1 to 16 letters, "
		      "digits, '.', '_' or '-' and an address")},
	    {OPT_NAME('Y', &o->prox_site, WIRE_SITE_LEN,
		      "a site name of 1 to 16 letters, digits, '.', '_' or '-'")},
	    {OPT_STR('U', &o->http_path)},
	    {OPT_STR('Q', &o->dns_zone)},
	    {OPT_DURATION('W', &o->connect_timeout_ns, 1, INT64_MAX, duration)},
	    {OPT_INT('X', &o->http_status, 100, 599, "an HTTP status (100-599)"),
	     .seen = &o->has_status},
	    {OPT_STR('b', &o->http_body)},
	    {OPT_COUNT('v', &o->verbose)},
	    {0},
	};

	memset(o, 0, sizeof(*o));
	o->node = "prober";
	o->routers.fd = o->routers.fd6 = -1;
	o->authds.fd = o->authds.fd6 = -1;
	o->interval_ns = 100 * NSEC_PER_MSEC;
	o->timeout_ns = 50 * NSEC_PER_MSEC;
	o->refresh_ns = NSEC_PER_SEC;
	o->down = o->up = 3;
	o->check = &prober_check_udp;
	opt_parse(&cmd, opts, argc, argv);
	if (o->lo && (o->has_metric || o->routers.n))
		opt_refuse(&cmd, "-L replaces -m and -R: give one or the other");
	if (o->has_addr6 && !o->lo)
		opt_refuse(&cmd, "-6 goes with -L (an address kept on lo)");
	if ((o->http_path || o->has_status || o->http_body) && o->check != &prober_check_http)
		opt_refuse(&cmd, "-U, -X and -b go with -C http");
	if (o->connect_timeout_ns && o->check != &prober_check_http &&
	    o->check != &prober_check_tcp)
		opt_refuse(&cmd, "-W goes with -C tcp or -C http (a connection)");
	if (o->dns_zone && o->check != &prober_check_dns)
		opt_refuse(&cmd, "-Q goes with -C dns");
	if (o->dns_zone && strlen(o->dns_zone) > 253)
		opt_refuse(&cmd, "-Q: expected a zone's name, got '%s'", o->dns_zone);
	if ((o->has_status || o->http_body) && o->http_path == NULL)
		opt_refuse(&cmd, "-X and -b go with -U PATH (the lab's target passes on 200)");
	if (o->http_path && (o->http_path[0] != '/' || strpbrk(o->http_path, " \r\n") ||
			     strlen(o->http_path) > 200))
		opt_refuse(&cmd,
			   "-U: expected a path from /, without blanks, of at most 200 "
			   "characters, got '%s'",
			   o->http_path);
	if (o->http_body && (strpbrk(o->http_body, "\r\n") || strlen(o->http_body) > 200))
		opt_refuse(&cmd, "-b: expected one line of at most 200 characters");
	if (o->http_path && !o->has_status)
		o->http_status = 200;
	if (o->site || o->has_target || o->has_prefix || o->has_metric || o->routers.n || o->lo ||
	    !o->nremote) {
		/* -L -6 alone: an IPv6-only lab's service (no IPv4 prefix) */
		if (!o->site || !o->has_target || (!o->has_prefix && !(o->lo && o->has_addr6)) ||
		    (!o->lo && (!o->has_metric || !o->routers.n)))
			opt_refuse(&cmd,
				   "-s, -t, -P, and -m with at least one -R or -L, are required "
				   "(-L -6 ADDRESS6 may go without -P; in remote mode, -I, -A "
				   "and -T)");
		strcpy(o->msg.site, o->site);
	}
	if (o->lo && o->has_prefix && !addr_is4(&o->msg.prefix))
		opt_refuse(&cmd, "-L: PREFIX is IPv4 (the IPv6 address on lo is -6 ADDRESS6)");
	for (int i = 0; o->has_prefix && i < o->routers.n; i++)
		if ((o->routers.addr[i].ss_family == AF_INET6) == addr_is4(&o->msg.prefix))
			opt_refuse(&cmd,
				   "-R %s: a router of PREFIX's family (an announcement's next hop "
				   "is its sender, of the prefix's family)",
				   o->routers.name[i]);
	if ((o->nremote || o->authds.n || o->id) && (!o->id || !o->authds.n))
		opt_refuse(&cmd, "remote mode needs -I ID and at least one -A AUTHD");
	if (o->prox_site && (o->site || !o->nremote))
		opt_refuse(&cmd, "-Y goes with remote mode (-I, -A, -T), without -s");
	for (int i = 0; o->prox_site && i < o->nremote; i++)
		if (o->remote_addr[i].ss_family != AF_INET)
			opt_refuse(&cmd, "-Y: the queriers (-T) are IPv4 addresses (authd's "
					 "proximity table is IPv4's)");
}

/* prober_announce: sends the local verdict to every router; on a change
 * (not a refresh) also writes one event per router. */
static void prober_announce(struct prober *p, struct prober_target *t, int change)
{
	struct prober_opts *o = p->o;
	char prefix[ANNOUNCE_PREFIX_STRLEN];

	o->msg.withdraw = t->fsm.state == PROBER_DEAD;
	announce_prefix_str(&o->msg.prefix, o->msg.prefixlen, prefix, sizeof(prefix));
	for (int i = 0; i < o->routers.n; i++) {
		if (prober_routers_send(&o->routers, i, &o->msg) == -1 || !change)
			continue;
		log_info("%s %s %s to %s", o->msg.withdraw ? "withdrew" : "announced", o->site,
			 prefix, o->routers.name[i]);
		event_emit(p->ev, o->msg.withdraw ? EVENTS_WITHDRAW_SENT : EVENTS_ANNOUNCE_SENT,
			   "{s:s, s:s, s:s}", "site", o->site, "prefix", prefix, "router",
			   o->routers.name[i]);
	}
}

/* prober_lo: the local verdict as the prefix on lo (-L); on a change of
 * lo (the verdict's, or someone else's between refreshes) an event. */
static void prober_lo(struct prober *p, struct prober_target *t)
{
	struct prober_opts *o = p->o;
	int alive = t->fsm.state == PROBER_ALIVE;
	char prefix[INET6_ADDRSTRLEN + 8], addr[INET6_ADDRSTRLEN];
	int changed = prober_lo_set(&o->loaddr, alive);

	if (changed <= 0)
		return;
	for (int f = 0; f < 2; f++) {
		/* the family withheld (SIGUSR2) goes off lo, whatever the verdict */
		int on = alive && o->loaddr.withheld != (f ? 6 : 4);

		if (!(changed & (f ? PROBER_LO_CHANGED6 : PROBER_LO_CHANGED4)))
			continue;
		if (f) {
			inet_ntop(AF_INET6, &o->loaddr.addr6, addr, sizeof(addr));
			snprintf(prefix, sizeof(prefix), "%s/128", addr);
		} else {
			announce_prefix_str(&o->msg.prefix, o->msg.prefixlen, prefix,
					    sizeof(prefix));
		}
		log_info("%s %s %s lo", on ? "added" : "removed", prefix, on ? "to" : "from");
		event_emit(p->ev, on ? EVENTS_ADDRESS_ADDED : EVENTS_ADDRESS_REMOVED,
			   "{s:s, s:s, s:s}", "site", o->site, "prefix", prefix, "dev", "lo");
	}
}

/* prober_report: sends the target's verdict to every authd; on a change
 * (not a refresh) also writes one event per authd. */
static void prober_report(struct prober *p, struct prober_target *t, int change)
{
	struct prober_opts *o = p->o;
	int up = t->fsm.state == PROBER_ALIVE;
	char line[PROBER_REPORT_MAX];
	struct health_report r = {.up = up, .rtt_us = t->srtt_us};
	int n;

	strfmt(r.prober, sizeof(r.prober), "%s", o->id);
	strfmt(r.site, sizeof(r.site), "%s", o->prox_site ? o->prox_site : t->site);
	if (o->prox_site) { /* the RTT from our site to querier t */
		r.proximity = 1;
		r.querier = ((const struct sockaddr_in *)&t->addr)->sin_addr;
		r.rtt_us = up ? (t->srtt_us ? t->srtt_us : 1) : 0;
	}
	n = health_report_format(&r, line, sizeof(line));

	if (n == -1)
		return;
	for (int i = 0; i < o->authds.n; i++) {
		if (prober_authds_send(&o->authds, i, line, (size_t)n) == -1 || !change)
			continue;
		log_info("reported %s %s to authd %s", t->site, up ? "up" : "down",
			 o->authds.name[i]);
		event_emit(p->ev, EVENTS_HEALTH_SENT, "{s:s, s:s, s:i, s:s}", "site", t->site,
			   "state", up ? "up" : "down", "rtt_us", up ? (int)t->srtt_us : 0, "authd",
			   o->authds.name[i]);
	}
}

/* prober_tell: the target's verdict to whoever hears it: routers for the
 * local site, authds for every site. Nothing before the first verdict. */
static void prober_tell(struct prober *p, struct prober_target *t, int change)
{
	if (t->fsm.state == PROBER_UNKNOWN)
		return;
	if (t->local && p->o->lo)
		prober_lo(p, t);
	else if (t->local)
		prober_announce(p, t, change);
	if (p->o->authds.n)
		prober_report(p, t, change);
}

static void prober_result(struct prober_target *t, int ok, const char *reason)
{
	struct prober *p = t->p;
	enum prober_verdict v;

	t->probe.in_flight = 0;
	if (!ok)
		t->failed++;
	v = prober_fsm_feed(&t->fsm, ok);
	if (!ok) {
		log_debug("probe %llu of %s failed: %s", (unsigned long long)t->probe.seq, t->site,
			  reason);
		event_emit(p->ev, EVENTS_PROBE_FAILED, "{s:s, s:s, s:i, s:s}", "site", t->site,
			   "check", p->o->check->name, "consecutive", (int)t->fsm.failures,
			   "reason", reason);
	}
	if (v == PROBER_BECAME_DEAD) {
		log_info("site %s declared dead after %u failures", t->site, t->fsm.failures);
		event_emit(p->ev, EVENTS_DECLARED_DEAD, "{s:s, s:i}", "site", t->site, "failures",
			   (int)t->fsm.failures);
		prober_tell(p, t, 1);
	} else if (v == PROBER_BECAME_ALIVE) {
		log_info("site %s declared alive after %u successes", t->site, t->fsm.successes);
		event_emit(p->ev, EVENTS_DECLARED_ALIVE, "{s:s, s:i}", "site", t->site, "successes",
			   (int)t->fsm.successes);
		prober_tell(p, t, 1);
	}
}

static const char *prober_errno_reason(int err)
{
	return err == ECONNREFUSED ? "refused" : strerror(err);
}

static void prober_on_probe_timer(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct prober *p = arg;
	int64_t deadline = 0;

	(void)loop;
	(void)events;
	loop_timer_read(fd);
	for (int i = 0; i < p->ntargets; i++) {
		struct prober_target *t = &p->t[i];

		if (t->probe.in_flight) /* TIMEOUT >= INTERVAL */
			prober_result(t, 0, "timeout");
		t->probes++;
		if (p->o->check->send(&t->probe, p->o->timeout_ns) == -1) {
			prober_result(t, 0, prober_errno_reason(errno));
			continue;
		}
		if (t->probe.deadline > deadline)
			deadline = t->probe.deadline;
	}
	if (deadline && loop_timer_set(&p->timeout_timer, deadline, 0) == -1)
		log_warn("%s: timerfd", __func__);
	p->timeout_at = deadline;
}

static void prober_on_timeout_timer(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct prober *p = arg;
	int64_t now = now_mono_ns();

	(void)loop;
	(void)events;
	loop_timer_read(fd);
	p->timeout_at = 0;
	for (int i = 0; i < p->ntargets; i++) {
		struct prober_target *t = &p->t[i];

		if (t->probe.in_flight && now >= t->probe.deadline)
			prober_result(t, 0, "timeout");
		else if (t->probe.in_flight && t->probe.deadline > p->timeout_at)
			p->timeout_at = t->probe.deadline; /* moved on: connected */
	}
	if (p->timeout_at && loop_timer_set(&p->timeout_timer, p->timeout_at, 0) == -1)
		log_warn("%s: timerfd", __func__);
}

static void prober_on_reply(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct prober_target *t = arg;

	(void)loop;
	(void)fd;
	(void)events;
	for (int i = 0; i < 64; i++) {
		int r = t->p->o->check->read(&t->probe);

		if (r == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (r == -1 && errno == EINTR)
			continue;
		if (!t->probe.in_flight)
			continue; /* an answer or an ICMP error for a probe already failed */
		if (r == -1) {
			prober_result(t, 0, prober_errno_reason(errno));
		} else if (r == PROBER_REPLY_OK) {
			prober_srtt_feed(&t->srtt_us, now_mono_ns() - t->probe.sent);
			prober_result(t, 1, NULL);
		} else if (r == PROBER_REPLY_WRONG_SITE) {
			prober_result(t, 0, "wrong_site");
		} else if (r == PROBER_REPLY_DRAINING) {
			prober_result(t, 0, "drained");
		} else if (r == PROBER_REPLY_UNAVAILABLE) {
			prober_result(t, 0, "unavailable");
		}
	}
}

/* prober_started: the event saying how target t is probed */
static void prober_started(struct prober *p, struct prober_target *t)
{
	char target[INET6_ADDRSTRLEN + 8];

	addr_sockaddr_str(&t->addr, target, sizeof(target));
	event_emit(p->ev, EVENTS_PROBER_STARTED, "{s:s, s:s, s:s, s:I, s:I}", "site", t->site,
		   "check", p->o->check->name, "target", target, "interval_ns",
		   (json_int_t)p->o->interval_ns, "timeout_ns", (json_int_t)p->o->timeout_ns);
}

/* prober_on_phase: SIGUSR1: the probes from now on half an interval from
 * now and every interval after, the refreshes likewise (docs/agents.md,
 * prober, "Phase"): the lab sends it as its traffic starts, so that a
 * failure fail_at into the traffic falls at a phase of the probe cycle the
 * topology states (docs/model.md, "Detect") */
static void prober_on_phase(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct prober *p = arg;
	int64_t now = now_mono_ns();
	int value;

	(void)loop;
	(void)events;
	if (loop_signal_read_value(fd, &value) == 0)
		return;
	/* a value: the start's CLOCK_MONOTONIC microseconds modulo 2^31,
	 * the latest such instant not after now (the lab's, however late this
	 * reads it); none (kill -USR1 by hand): now */
	if (value > 0) {
		int64_t us = now / NSEC_PER_USEC, back = (us - value) & 0x7fffffff;

		/* within 20 minutes: the lab may set a cycle up to an
		 * interval back (probe_phase = random); an instant ahead of now
		 * wraps to over 35 minutes back and is not taken */
		if (back < 20 * 60 * 1000000LL)
			now = (us - back) * NSEC_PER_USEC;
	}
	if (loop_timer_set(&p->probe_timer, now + p->o->interval_ns / 2, p->o->interval_ns) == -1 ||
	    loop_timer_set(&p->refresh_timer, now + p->o->refresh_ns / 2, p->o->refresh_ns) == -1) {
		log_warn("%s: timerfd", __func__);
		return;
	}
	event_emit(p->ev, EVENTS_PROBER_PHASED, "{s:I, s:I}", "interval_ns",
		   (json_int_t)p->o->interval_ns, "refresh_ns", (json_int_t)p->o->refresh_ns);
	log_debug("phase: probes from %lld ms on, every %lld ms",
		  (long long)(p->o->interval_ns / 2 / NSEC_PER_MSEC),
		  (long long)(p->o->interval_ns / NSEC_PER_MSEC));
}

/* prober_on_withhold: SIGUSR2 (lib/prober_signals.h), sigqueue'd with 4
 * or 6: that family's address kept off lo, whatever the verdict, so that
 * bgpd withdraws its announcement alone (the timeline's drain of one
 * family); 0: both as the verdict says again. At once, not at the next
 * verdict or refresh. */
static void prober_on_withhold(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct prober *p = arg;
	int value = 0;

	(void)loop;
	(void)events;
	if (loop_signal_read_value(fd, &value) == 0)
		return;
	if (value != 0 && value != 4 && value != 6) {
		log_warnx("SIGUSR2 with %d: expected 4, 6 or 0", value);
		return;
	}
	if (!p->o->lo) {
		log_warnx("SIGUSR2: nothing to withhold without -L");
		return;
	}
	p->o->loaddr.withheld = value;
	log_info("%s", value ? (value == 6 ? "IPv6 address withheld" : "IPv4 address withheld")
			     : "both addresses as the verdict says");
	event_emit(p->ev, EVENTS_PROBER_WITHHELD, "{s:s, s:o}", "site", p->o->site, "family",
		   value ? json_integer(value) : json_null());
	for (int i = 0; i < p->ntargets; i++)
		if (p->t[i].local && p->t[i].fsm.state != PROBER_UNKNOWN)
			prober_lo(p, &p->t[i]);
}

static void prober_on_refresh(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct prober *p = arg;

	(void)loop;
	(void)events;
	loop_timer_read(fd);
	for (int i = 0; i < p->ntargets; i++)
		prober_tell(p, &p->t[i], 0);
}

/* prober_targets: the local site first, then the remote ones. */
static void prober_targets(struct prober *p)
{
	struct prober_opts *o = p->o;

	if (o->site) {
		struct prober_target *t = &p->t[p->ntargets++];

		t->site = o->site;
		t->addr = o->target;
		t->local = 1;
	}
	for (int i = 0; i < o->nremote; i++) {
		struct prober_target *t = &p->t[p->ntargets++];

		t->site = o->remote_site[i];
		t->addr = o->remote_addr[i];
	}
	for (int i = 0; i < p->ntargets; i++) {
		p->t[i].p = p;
		p->t[i].probe.fd = p->t[i].probe.conn = -1;
		prober_fsm_init(&p->t[i].fsm, o->down, o->up);
	}
}

int main(int argc, char **argv)
{
	struct prober_opts o;
	struct prober p = {.o = &o};
	int64_t now;
	int rc = 1;

	prober_parse(argc, argv, &o);
	log_init("prober", o.verbose);
	prober_targets(&p);
	if ((p.ev = event_open(o.events, o.node, "prober")) == NULL)
		goto out;
	if ((p.loop = loop_new()) == NULL) {
		log_warn("%s: loop_new", __func__);
		goto out;
	}
	if (loop_signals(p.loop, &p.sig, loop_stop_on_signal, NULL) == -1) {
		log_warn("%s: signals", __func__);
		goto out;
	}
	{
		static const int phase[] = {PROBER_SIG_PHASE, 0};
		static const int withhold[] = {PROBER_SIG_WITHHOLD, 0};

		if (loop_add_signals(p.loop, &p.phase_sig, phase, prober_on_phase, &p) == -1 ||
		    loop_add_signals(p.loop, &p.withhold_sig, withhold, prober_on_withhold, &p) ==
			-1) {
			log_warn("%s: signals", __func__);
			goto out;
		}
	}
	for (int i = 0; i < p.ntargets; i++) {
		struct prober_target *t = &p.t[i];

		if (o.check->open(&t->probe, (const struct sockaddr *)&t->addr, t->site) == -1)
			goto out;
		t->probe.http_path = o.http_path;
		t->probe.dns_zone = o.dns_zone;
		t->probe.http_status = (int)o.http_status;
		t->probe.http_body = o.http_body;
		t->probe.connect_timeout_ns = o.connect_timeout_ns;
		if (loop_add(p.loop, &t->reply, t->probe.fd, EPOLLIN, prober_on_reply, t) == -1) {
			log_warn("%s: loop_add", __func__);
			goto out;
		}
	}
	/* -L: nothing is announced before the first verdict */
	if (o.lo && (prober_lo_open(&o.loaddr, addr_unmap4(&o.msg.prefix),
				    o.has_prefix ? o.msg.prefixlen : 0,
				    o.has_addr6 ? &o.addr6 : NULL) == -1 ||
		     prober_lo_set(&o.loaddr, 0) == -1))
		goto out;
	if ((o.routers.n && prober_routers_open(&o.routers) == -1) ||
	    (o.authds.n && prober_authds_open(&o.authds) == -1))
		goto out;
	now = now_mono_ns();
	/* a timer far in the future until the first probe arms it */
	if (loop_timer_add(p.loop, &p.timeout_timer, now + 3600 * NSEC_PER_SEC, 0,
			   prober_on_timeout_timer, &p) == -1 ||
	    loop_timer_add(p.loop, &p.probe_timer, now, o.interval_ns, prober_on_probe_timer, &p) ==
		-1 ||
	    loop_timer_add(p.loop, &p.refresh_timer, now + o.refresh_ns, o.refresh_ns,
			   prober_on_refresh, &p) == -1) {
		log_warn("%s: timerfd", __func__);
		goto out;
	}
	if (o.site) {
		char target[INET6_ADDRSTRLEN + 8];

		log_info("probing %s over %s for site %s every %lldms, %d router(s)",
			 addr_sockaddr_str(&o.target, target, sizeof(target)), o.check->name,
			 o.site, (long long)(o.interval_ns / NSEC_PER_MSEC), o.routers.n);
	}
	if (o.nremote)
		log_info("prober %s: probing %d remote site(s) over %s every %lldms, %d authd(s)",
			 o.id, o.nremote, o.check->name, (long long)(o.interval_ns / NSEC_PER_MSEC),
			 o.authds.n);
	for (int i = 0; i < p.ntargets; i++)
		prober_started(&p, &p.t[i]);
	if (loop_run(p.loop) == -1)
		goto out;
	rc = 0;
out:
	for (int i = 0; p.loop && i < p.ntargets; i++) {
		struct prober_target *t = &p.t[i];

		log_info("%s: %llu probes, %llu failed, state %s", t->site, t->probes, t->failed,
			 prober_state_name(t->fsm.state));
		event_emit(p.ev, EVENTS_PROBER_SUMMARY, "{s:s, s:s, s:I, s:I}", "site", t->site,
			   "check", o.check->name, "probes", (json_int_t)t->probes, "failed",
			   (json_int_t)t->failed);
	}
	for (int i = 0; i < p.ntargets; i++)
		o.check->close(&p.t[i].probe);
	prober_routers_close(&o.routers);
	prober_lo_close(&o.loaddr);
	prober_authds_close(&o.authds);
	loop_free(p.loop); /* the timer fds go with the process */
	event_close(p.ev);
	return rc;
}
