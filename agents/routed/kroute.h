/*
 * The kernel FIB, as routed sees it: add-or-replace and delete one IPv4
 * or IPv6 route through libnl-route-3 (after bgpd's kroute.c: everything that
 * talks netlink is here, so the logic in rib.c is testable without root).
 *
 * Every route carries protocol KROUTE_PROTO, so steerlab's routes can be
 * told apart (ip route show proto 252) and only ours are ever deleted.
 * 252 is a number of its own: neither <linux/rtnetlink.h> (RTPROT_*, up to
 * RTPROT_EIGRP 192) nor iproute2's rt_protos nor a routing daemon's
 * rt_protos.d (FRR's go to 198) gives it a name, so our routes are not
 * mistaken for a BGP daemon's (186 is RTPROT_BGP).
 */
#ifndef STEERLAB_ROUTED_KROUTE_H
#define STEERLAB_ROUTED_KROUTE_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#define KROUTE_PROTO 252

#define KROUTE_VIAS_MAX 32

/* how the next hops of one prefix and metric are installed (routed -E) */
enum kroute_ecmp {
	KROUTE_ECMP_NO,	       /* one gateway a route: the latest announcement's */
	KROUTE_ECMP_HASH,      /* one multipath route (hash-threshold) */
	KROUTE_ECMP_RESILIENT, /* a route to a resilient nexthop group */
};

struct kroute {
	/* 0 (AF_INET): the IPv4 fields; AF_INET6: the *6 ones (routed -6's
	 * twins, twin.h), at the same metric */
	int family;
	struct in_addr prefix;
	int prefixlen;
	struct in_addr via; /* the gateway (0.0.0.0 in a delete: any) */
	unsigned metric;    /* route priority */
	int any_metric;	    /* delete only: match whatever the priority */
	/* ECMP (nvia > 0): every next hop of the prefix at this metric, in
	 * the order of their addresses; via unused */
	struct in_addr vias[KROUTE_VIAS_MAX];
	int nvia;
	struct in6_addr prefix6, via6, vias6[KROUTE_VIAS_MAX];
};

struct kroute_ctx;

/* kroute_open: a netlink route socket for table (RT_TABLE_MAIN: 254),
 * installing ECMP's routes as ecmp says. NULL on failure (logged). */
struct kroute_ctx *kroute_open(uint32_t table, enum kroute_ecmp ecmp);
void kroute_close(struct kroute_ctx *k);

/* kroute_change: installs r, replacing a route of the same prefix and
 * metric (NLM_F_CREATE | NLM_F_REPLACE). 0, or -1 with the kernel's
 * reason in err. */
int kroute_change(struct kroute_ctx *k, const struct kroute *r, char *err, size_t errlen);

/* kroute_delete: deletes our route r (prefix, gateway, metric unless
 * any_metric). 0 if deleted, 1 if there was no such route, -1 with the
 * reason in err. */
int kroute_delete(struct kroute_ctx *k, const struct kroute *r, char *err, size_t errlen);

#endif
