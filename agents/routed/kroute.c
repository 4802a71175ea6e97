/* IPv4 routes in the kernel FIB through libnl-route-3; see kroute.h. */
#include "kroute.h"

#include <errno.h>
#include <linux/rtnetlink.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/route.h>
#include <stdio.h>
#include <stdlib.h>

#include "log.h"

struct kroute_ctx {
	struct nl_sock *sk;
	uint32_t table;
};

struct kroute_ctx *kroute_open(uint32_t table)
{
	struct kroute_ctx *k = calloc(1, sizeof(*k));
	int err;

	if (k == NULL) {
		log_warn("%s: calloc", __func__);
		return NULL;
	}
	k->table = table;
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
	free(k);
}

/* kroute_build: the libnl route for r, or NULL (out of memory). */
static struct rtnl_route *kroute_build(const struct kroute_ctx *k, const struct kroute *r,
				       int with_metric)
{
	struct rtnl_route *route = rtnl_route_alloc();
	struct rtnl_nexthop *nh = NULL;
	struct nl_addr *dst = NULL, *gw = NULL;

	if (route == NULL)
		goto fail;
	if ((dst = nl_addr_build(AF_INET, &r->prefix, sizeof(r->prefix))) == NULL ||
	    (gw = nl_addr_build(AF_INET, &r->via, sizeof(r->via))) == NULL ||
	    (nh = rtnl_route_nh_alloc()) == NULL)
		goto fail;
	nl_addr_set_prefixlen(dst, r->prefixlen);
	rtnl_route_set_family(route, AF_INET);
	if (rtnl_route_set_dst(route, dst) < 0)
		goto fail;
	rtnl_route_set_table(route, k->table);
	rtnl_route_set_protocol(route, KROUTE_PROTO);
	rtnl_route_set_scope(route, RT_SCOPE_UNIVERSE);
	rtnl_route_set_type(route, RTN_UNICAST);
	if (with_metric)
		rtnl_route_set_priority(route, r->metric);
	rtnl_route_nh_set_gateway(nh, gw);
	rtnl_route_add_nexthop(route, nh); /* the route owns nh from here */
	nl_addr_put(dst);
	nl_addr_put(gw);
	return route;
fail:
	if (nh)
		rtnl_route_nh_free(nh);
	nl_addr_put(dst);
	nl_addr_put(gw);
	rtnl_route_put(route);
	return NULL;
}

int kroute_change(struct kroute_ctx *k, const struct kroute *r, char *err, size_t errlen)
{
	struct rtnl_route *route = kroute_build(k, r, 1);
	int rc;

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
	struct rtnl_route *route = kroute_build(k, r, !r->any_metric);
	int rc;

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
