/*
 * The route monitor: IPv4 route notifications from the kernel of the
 * current network namespace, read from a plain NETLINK_ROUTE socket joined
 * to RTNLGRP_IPV4_ROUTE.
 *
 * Each RTM_NEWROUTE / RTM_DELROUTE becomes one struct rtmon_route handed to
 * a callback, one per next hop for a multipath route. Which routes matter
 * (table, prefix) is the caller's business; this file only speaks netlink
 * (docs/style.md: kernel-facing code in its own file, as agents/routed/kroute.c).
 *
 * If the kernel drops notifications because the socket buffer overflowed
 * (ENOBUFS), rtmon_read() says so: the caller cannot know what it missed,
 * and must report it rather than pretend the event stream is complete.
 */
#ifndef STEERLAB_RTMON_H
#define STEERLAB_RTMON_H

#include <netinet/in.h>
#include <stdint.h>

struct rtmon;

struct rtmon_route {
	int64_t t_ns; /* CLOCK_REALTIME when the notification was read */
	int deleted;  /* RTM_DELROUTE */
	struct in_addr dst;
	int dst_len;
	int has_gateway;
	struct in_addr gateway; /* the next hop ("via") */
	int oif;		/* output interface index, 0 if none */
	uint32_t metric;	/* RTA_PRIORITY */
	uint32_t table;
	uint8_t protocol; /* RTPROT_*; KROUTE_PROTO (252) for routed's */
	uint8_t type;	  /* RTN_* */
	int multipath;	  /* one of several next hops of one route */
	int replace;	  /* an RTM_NEWROUTE that replaced a route (NLM_F_REPLACE):
			   * zebra moves a route to a new next hop so, without
			   * an RTM_DELROUTE of the old one */
};

typedef void (*rtmon_cb)(const struct rtmon_route *route, void *arg);

/* rtmon_open: the socket, non-blocking, with a receive buffer large enough
 * for bursts of route changes. Returns NULL (and logs) on failure. */
struct rtmon *rtmon_open(rtmon_cb cb, void *arg);
void rtmon_close(struct rtmon *m);

int rtmon_fd(const struct rtmon *m);

/* rtmon_read: read every pending notification, calling cb for each route.
 * Returns 0, 1 if the kernel reported lost notifications (ENOBUFS), or -1
 * on a socket error. */
int rtmon_read(struct rtmon *m);

/* rtmon_type_name: "unicast", "blackhole", ... for RTN_* values. */
const char *rtmon_type_name(uint8_t type);

#endif
