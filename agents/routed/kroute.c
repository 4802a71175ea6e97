/* IPv4 and IPv6 routes in the kernel FIB through libnl-route-3; see kroute.h. */
#include "kroute.h"

#include <errno.h>
#include <linux/rtnetlink.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/route.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "knh.h"
#include "log.h"

struct kroute_ctx {
	struct nl_sock *sk;
	uint32_t table;
	enum kroute_ecmp ecmp;
	struct knh *nh; /* resilient: its nexthop objects */
};

struct kroute_ctx *kroute_open(uint32_t table, enum kroute_ecmp ecmp)
{
	struct kroute_ctx *k = calloc(1, sizeof(*k));
	int err;

	if (k == NULL) {
		log_warn("%s: calloc", __func__);
		return NULL;
	}
	k->table = table;
	k->ecmp = ecmp;
	if (ecmp == KROUTE_ECMP_RESILIENT && (k->nh = knh_open(table)) == NULL)
		goto fail;
	if ((k->sk = nl_socket_alloc()) == NULL) {
		log_warnx("%s: netlink: cannot allocate a socket", __func__);
		goto fail;
	}
	if ((err = nl_connect(k->sk, NETLINK_ROUTE)) < 0) {
		log_warnx("%s: netlink: %s", __func__, nl_geterror(err));
		goto fail;
	}
	return k;
fail:
	kroute_close(k);
	return NULL;
}

void kroute_close(struct kroute_ctx *k)
{
	if (k == NULL)
		return;
	if (k->sk)
		nl_socket_free(k->sk);
	knh_close(k->nh);
	free(k);
}

/* kroute_nexthop: a next hop via gw (an address of family, len bytes)
 * added to route. 0, or -1 (out of memory). */
static int kroute_nexthop(struct rtnl_route *route, int family, const void *gw, size_t len)
{
	struct rtnl_nexthop *nh = rtnl_route_nh_alloc();
	struct nl_addr *a = nl_addr_build(family, gw, len);

	if (nh == NULL || a == NULL) {
		if (nh)
			rtnl_route_nh_free(nh);
		nl_addr_put(a);
		return -1;
	}
	rtnl_route_nh_set_gateway(nh, a);
	rtnl_route_add_nexthop(route, nh); /* the route owns nh from here */
	nl_addr_put(a);
	return 0;
}

/* kroute_build: the libnl route for r, or NULL (out of memory): its next
 * hops r->vias (ECMP: one multipath route), else r->via, else none (a
 * delete of whatever next hops the route has) */
static struct rtnl_route *kroute_build(const struct kroute_ctx *k, const struct kroute *r,
				       int with_metric)
{
	struct rtnl_route *route = rtnl_route_alloc();
	struct nl_addr *dst = NULL;
	int v6 = r->family == AF_INET6, family = v6 ? AF_INET6 : AF_INET;
	size_t alen = v6 ? sizeof(struct in6_addr) : sizeof(struct in_addr);
	static const struct in6_addr any6;

	if (route == NULL)
		goto fail;
	if ((dst = nl_addr_build(family, v6 ? (const void *)&r->prefix6 : (const void *)&r->prefix,
				 alen)) == NULL)
		goto fail;
	nl_addr_set_prefixlen(dst, r->prefixlen);
	rtnl_route_set_family(route, (uint8_t)family);
	if (rtnl_route_set_dst(route, dst) < 0)
		goto fail;
	rtnl_route_set_table(route, k->table);
	rtnl_route_set_protocol(route, KROUTE_PROTO);
	rtnl_route_set_scope(route, RT_SCOPE_UNIVERSE);
	rtnl_route_set_type(route, RTN_UNICAST);
	if (with_metric)
		rtnl_route_set_priority(route, r->metric);
	for (int i = 0; i < r->nvia; i++)
		if (kroute_nexthop(route, family,
				   v6 ? (const void *)&r->vias6[i] : (const void *)&r->vias[i],
				   alen) == -1)
			goto fail;
	if (r->nvia == 0 && (v6 ? memcmp(&r->via6, &any6, alen) != 0 : r->via.s_addr != 0) &&
	    kroute_nexthop(route, family, v6 ? (const void *)&r->via6 : (const void *)&r->via,
			   alen) == -1)
		goto fail;
	nl_addr_put(dst);
	return route;
fail:
	nl_addr_put(dst);
	rtnl_route_put(route);
	return NULL;
}

int kroute_change(struct kroute_ctx *k, const struct kroute *r, char *err, size_t errlen)
{
	struct rtnl_route *route;
	int rc;

	if (k->nh && r->family == AF_INET6) {
		snprintf(err, errlen, "resilient nexthop groups are IPv4 only here");
		return -1;
	}
	if (k->nh)
		return knh_change(k->nh, r, err, errlen);
	route = kroute_build(k, r, 1);
	if (route == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	rc = rtnl_route_add(k->sk, route, NLM_F_CREATE | NLM_F_REPLACE);
	rtnl_route_put(route);
	if (rc < 0) {
		snprintf(err, errlen, "%s", nl_geterror(rc));
		return -1;
	}
	return 0;
}

int kroute_delete(struct kroute_ctx *k, const struct kroute *r, char *err, size_t errlen)
{
	struct rtnl_route *route;
	int rc;

	if (k->nh && r->family == AF_INET6) {
		snprintf(err, errlen, "resilient nexthop groups are IPv4 only here");
		return -1;
	}
	if (k->nh)
		return knh_delete(k->nh, r, err, errlen);
	route = kroute_build(k, r, !r->any_metric);
	if (route == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	rc = rtnl_route_delete(k->sk, route, 0);
	rtnl_route_put(route);
	if (rc == -NLE_OBJ_NOTFOUND)
		return 1;
	if (rc < 0) {
		snprintf(err, errlen, "%s", nl_geterror(rc));
		return -1;
	}
	return 0;
}
