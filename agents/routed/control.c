/* routed's control channel: datagram to route; see control.h. */
#include "control.h"

#include <arpa/inet.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "log.h"

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
			   const struct sockaddr_in *from, int64_t now_ns)
{
	struct announce_msg m;
	struct rib_result res;
	struct in_addr nexthop;
	char src[INET_ADDRSTRLEN], via[INET_ADDRSTRLEN], addr[INET_ADDRSTRLEN];
	char prefix[INET_ADDRSTRLEN + 4], reason[128];

	inet_ntop(AF_INET, &from->sin_addr, src, sizeof(src));
	if (announce_parse(buf, len, &m) == -1) {
		if (rd->bad++ == 0)
			log_warnx("malformed announcement from %s (more at debug level)", src);
		else
			log_debug("malformed announcement from %s", src);
		return;
	}
	/* before anything touches the table or the kernel */
	if (routed_acl_check(&rd->acl, &m, from->sin_addr, reason, sizeof(reason)) == -1) {
		rd->rejected++;
		ctl_reject_drop(&rd->rejects, now_ns, src, reason);
		return;
	}
	/* a site behind another router: via its next hop, hops first */
	if (routed_acl_route(&rd->acl, m.site, from->sin_addr, m.metric, &nexthop, &m.metric,
			     reason, sizeof(reason)) == -1) {
		rd->rejected++;
		ctl_reject_drop(&rd->rejects, now_ns, src, reason);
		return;
	}
	rd->messages++;
	inet_ntop(AF_INET, &m.prefix, addr, sizeof(addr));
	snprintf(prefix, sizeof(prefix), "%s/%d", addr, m.prefixlen);
	rib_apply(&rd->rib, &rd->kernel, &m, nexthop, &res);
	inet_ntop(AF_INET, &res.via, via, sizeof(via));
	switch (res.outcome) {
	case RIB_UNCHANGED:
		log_debug("%s %s %s from %s: no change", m.withdraw ? "withdraw" : "announce",
			  m.site, prefix, src);
		break;
	case RIB_APPLIED:
		rd->applied++;
		log_info("route %s via %s metric %u for site %s", prefix, via, res.metric, m.site);
		event_emit(rd->ev, "route_applied", "{s:s, s:s, s:s, s:I}", "site", m.site,
			   "prefix", prefix, "via", via, "metric", (json_int_t)res.metric);
		break;
	case RIB_WITHDRAWN:
		rd->withdrawn++;
		log_info("route %s via %s withdrawn by site %s", prefix, via, m.site);
		event_emit(rd->ev, "route_withdrawn", "{s:s, s:s, s:s}", "site", m.site, "prefix",
			   prefix, "via", via);
		break;
	case RIB_ERROR:
		rd->errors++;
		log_warnx("%s %s %s from %s: %s", m.withdraw ? "withdraw" : "announce", m.site,
			  prefix, src, res.error);
		event_emit(rd->ev, "route_error", "{s:s, s:s, s:s}", "site", m.site, "prefix",
			   prefix, "error", res.error);
		break;
	}
}

void routed_control_close(struct routed *rd)
{
	ctl_reject_close(&rd->rejects);
}
