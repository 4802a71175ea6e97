/* routed's control channel: datagram to route; see control.h. */
#include "control.h"

#include <arpa/inet.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "addr.h"
#include "events.h"
#include "log.h"
#include "timeutil.h"

void routed_control_init(struct routed *rd, const struct rib_kernel *kernel, struct event_log *ev,
			 struct loop *loop)
{
	memset(rd, 0, sizeof(*rd));
	rd->ev = ev;
	rd->kernel = *kernel;
	rib_init(&rd->rib);
	ctl_reject_init(&rd->rejects, loop, ev, "announcement");
}

void routed_control_handle(struct routed *rd, const char *buf, size_t len,
			   const struct sockaddr *from, int64_t now_ns)
{
	struct announce_msg m;
	struct rib_result res;
	struct in6_addr sender, nexthop;
	char src[INET6_ADDRSTRLEN], via[INET6_ADDRSTRLEN];
	char prefix[ANNOUNCE_PREFIX_STRLEN], reason[128];

	if (from->sa_family == AF_INET6)
		sender = ((const struct sockaddr_in6 *)from)->sin6_addr;
	else
		sender = addr_map4(((const struct sockaddr_in *)from)->sin_addr);
	addr_ip_str(&sender, src, sizeof(src));
	if (announce_parse(buf, len, &m) == -1) {
		if (rd->bad++ == 0)
			log_warnx("malformed announcement from %s (more at debug level)", src);
		else
			log_debug("malformed announcement from %s", src);
		return;
	}
	/* before anything touches the table or the kernel */
	if (routed_acl_check(&rd->acl, &m, &sender, reason, sizeof(reason)) == -1) {
		rd->rejected++;
		ctl_reject_drop(&rd->rejects, now_ns, src, reason);
		return;
	}
	/* a site behind another router: via its next hop, hops first */
	if (routed_acl_route(&rd->acl, m.site, &sender, m.metric, &nexthop, &m.metric, reason,
			     sizeof(reason)) == -1) {
		rd->rejected++;
		ctl_reject_drop(&rd->rejects, now_ns, src, reason);
		return;
	}
	rd->messages++;
	announce_prefix_str(&m.prefix, m.prefixlen, prefix, sizeof(prefix));
	rib_apply(&rd->rib, &rd->kernel, &m, &nexthop, now_ns, &res);
	addr_ip_str(&res.via, via, sizeof(via));
	switch (res.outcome) {
	case RIB_UNCHANGED:
		log_debug("%s %s %s from %s: no change", m.withdraw ? "withdraw" : "announce",
			  m.site, prefix, src);
		break;
	case RIB_APPLIED:
		rd->applied++;
		log_info("route %s via %s metric %u for site %s", prefix, via, res.metric, m.site);
		event_emit(rd->ev, EVENTS_ROUTE_APPLIED, "{s:s, s:s, s:s, s:I}", "site", m.site,
			   "prefix", prefix, "via", via, "metric", (json_int_t)res.metric);
		break;
	case RIB_WITHDRAWN:
		rd->withdrawn++;
		log_info("route %s via %s withdrawn by site %s", prefix, via, m.site);
		event_emit(rd->ev, EVENTS_ROUTE_WITHDRAWN, "{s:s, s:s, s:s}", "site", m.site,
			   "prefix", prefix, "via", via);
		break;
	case RIB_ERROR:
		rd->errors++;
		log_warnx("%s %s %s from %s: %s", m.withdraw ? "withdraw" : "announce", m.site,
			  prefix, src, res.error);
		event_emit(rd->ev, EVENTS_ROUTE_ERROR, "{s:s, s:s, s:s}", "site", m.site, "prefix",
			   prefix, "error", res.error);
		break;
	}
}

struct routed_expiry {
	struct routed *rd;
	int64_t now_ns, real_ns; /* the same instant on both clocks */
};

static void routed_on_expired(void *arg, const struct rib_entry *e, const struct rib_result *res)
{
	struct routed_expiry *x = arg;
	struct routed *rd = x->rd;
	char via[INET6_ADDRSTRLEN], prefix[ANNOUNCE_PREFIX_STRLEN];
	int64_t silent_ns = x->now_ns - e->last_ns;

	addr_ip_str(&e->via, via, sizeof(via));
	announce_prefix_str(&e->prefix, e->prefixlen, prefix, sizeof(prefix));
	if (res->outcome == RIB_ERROR) {
		rd->errors++;
		log_warnx("expire %s %s via %s: %s", e->site, prefix, via, res->error);
		event_emit(rd->ev, EVENTS_ROUTE_ERROR, "{s:s, s:s, s:s}", "site", e->site, "prefix",
			   prefix, "error", res->error);
		return;
	}
	rd->expired++;
	log_info("route %s via %s of site %s expired: no announcement for %.3f s (hold %.3f s)%s",
		 prefix, via, e->site, (double)silent_ns / NSEC_PER_SEC,
		 (double)rd->hold_ns / NSEC_PER_SEC,
		 res->outcome == RIB_WITHDRAWN ? "" : ", already gone from the kernel");
	/* stamped when the timer decided, before the kernel call */
	event_emit_at(rd->ev, x->real_ns, EVENTS_ROUTE_EXPIRED,
		      "{s:s, s:s, s:s, s:I, s:I, s:f, s:b}", "site", e->site, "prefix", prefix,
		      "via", via, "metric", (json_int_t)e->metric, "last_t",
		      (json_int_t)(x->real_ns - silent_ns), "silent_s",
		      (double)silent_ns / NSEC_PER_SEC, "deleted", res->outcome == RIB_WITHDRAWN);
}

void routed_control_expire(struct routed *rd, int64_t now_ns)
{
	struct routed_expiry x = {rd, now_ns, now_real_ns()};

	(void)rib_expire(&rd->rib, &rd->kernel, now_ns, rd->hold_ns, routed_on_expired, &x);
}

void routed_control_close(struct routed *rd)
{
	ctl_reject_close(&rd->rejects);
}
