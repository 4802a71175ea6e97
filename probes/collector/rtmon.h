/*
 * The route monitor: route notifications from the kernel of the current
 * network namespace, read from a plain NETLINK_ROUTE socket joined to
 * RTNLGRP_IPV4_ROUTE, and RTNLGRP_IPV6_ROUTE if asked (a dual-stack lab).
 *
 * Each RTM_NEWROUTE / RTM_DELROUTE becomes one struct rtmon_route handed to
 * a callback, with every next hop of a multipath route (ECMP). What the
 * kernel did is its op: a new route, one replacing the route of the same
 * key (NLM_F_REPLACE: what a routing daemon does when a path changes), a
 * deletion; rtmon_dump() adds the routes already in the FIB, "present".
 * Which routes matter (table, prefix) is the caller's business; this file
 * only speaks netlink (docs/style.md: kernel-facing code in its own file,
 * as agents/routed/kroute.c).
 *
 * A route's t_ns is when it was read: netlink gives no time stamp of the
 * kernel's (SO_TIMESTAMPNS and SO_TIMESTAMPING on this socket yield no
 * control message; tried on Linux 6.18), so a reader that did not run is
 * late by that much; the collector watches for that (collector.c).
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

#define RTMON_MAX_NEXTHOPS 16

enum rtmon_op {
	RTMON_ADD,     /* RTM_NEWROUTE */
	RTMON_REPLACE, /* RTM_NEWROUTE with NLM_F_REPLACE */
	RTMON_APPEND,  /* RTM_NEWROUTE with NLM_F_APPEND */
	RTMON_DEL,     /* RTM_DELROUTE */
	RTMON_PRESENT, /* in the FIB when rtmon_dump() asked */
};

struct rtmon_nexthop {
	int has_gateway;
	struct in_addr gateway;	  /* family AF_INET */
	struct in6_addr gateway6; /* family AF_INET6 */
	int oif;
};

struct rtmon_route {
	int64_t t_ns; /* CLOCK_REALTIME when the notification was read */
	int deleted;  /* RTM_DELROUTE */
	enum rtmon_op op;
	int family; /* AF_INET: dst and gateway; AF_INET6: dst6 and gateway6 */
	struct in_addr dst;
	struct in6_addr dst6;
	int dst_len;
	int has_gateway;
	struct in_addr gateway; /* the next hop ("via") */
	struct in6_addr gateway6;
	int oif;	 /* output interface index, 0 if none */
	uint32_t metric; /* RTA_PRIORITY */
	uint32_t table;
	uint8_t protocol; /* RTPROT_*; KROUTE_PROTO (252) for routed's */
	uint8_t type;	  /* RTN_* */
	uint32_t nhid;	  /* RTA_NH_ID: a nexthop object's id (FRR's zebra); 0 none */
	int multipath;	  /* RTA_MULTIPATH: nh[] holds its next hops */
	/* every next hop: the one above alone, or a multipath route's (the
	 * first RTMON_MAX_NEXTHOPS; nnh_total says how many there were) */
	int nnh, nnh_total;
	struct rtmon_nexthop nh[RTMON_MAX_NEXTHOPS];
};

typedef void (*rtmon_cb)(const struct rtmon_route *route, void *arg);

/* rtmon_open: the socket, non-blocking, with a receive buffer large enough
 * for bursts of route changes; the IPv6 routes too if ipv6. Returns NULL
 * (and logs) on failure. */
struct rtmon *rtmon_open(rtmon_cb cb, void *arg, int ipv6);
void rtmon_close(struct rtmon *m);

int rtmon_fd(const struct rtmon *m);

/* rtmon_dump: ask the kernel for every route (of the families opened); they come back through
 * rtmon_read() as op RTMON_PRESENT, so a monitor started after a route was
 * installed still knows it. 0, or -1 (logged). */
int rtmon_dump(struct rtmon *m);

/* rtmon_op_name: "add", "replace", "append", "del", "present" */
const char *rtmon_op_name(enum rtmon_op op);

/* rtmon_read: read every pending notification, calling cb for each route.
 * Returns 0, 1 if the kernel reported lost notifications (ENOBUFS), or -1
 * on a socket error. */
int rtmon_read(struct rtmon *m);

/* rtmon_type_name: "unicast", "blackhole", ... for RTN_* values. */
const char *rtmon_type_name(uint8_t type);

#endif
