/* libnl links, addresses and routes in the lab's namespaces; see kernel.h. */
#include "kernel.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <linux/if_addr.h>
#include <linux/ip.h>
#include <netlink/route/link.h>
#include <netlink/route/link/inet.h>
#include <netlink/route/link/bridge.h>
#include <netlink/route/link/veth.h>
#include <netlink/route/link/vxlan.h>
#include <netlink/route/route.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "strfmt.h"
#include "nladdr.h"
#include "lab.h"

/* the links kern_ifindex has looked up: a router's routes name its few
 * links again and again, and a lookup is a netlink round trip (a handle
 * lives for one node's configuration or one action: no link is renamed
 * or replaced meanwhile) */
#define KERN_IFCACHE 16

struct kern {
	struct nl_sock *sk;
	int exist_ok; /* kern_again: an address or route already there is no error */
	int nifs;
	struct {
		char name[IFNAMSIZ];
		int ifindex;
	} ifs[KERN_IFCACHE];
};

struct kern *kern_open(int nsfd)
{
	struct kern *k = calloc(1, sizeof(*k));
	int err;

	if (k == NULL)
		return NULL;
	if (nsfd != -1 && netns_enter(nsfd) == -1) {
		log_warn("%s: setns", __func__);
		free(k);
		return NULL;
	}
	k->sk = nl_socket_alloc();
	if (k->sk == NULL) {
		log_warnx("%s: nl_socket_alloc failed", __func__);
		goto fail;
	}
	if ((err = nl_connect(k->sk, NETLINK_ROUTE)) < 0) {
		log_warnx("%s: netlink connect: %s", __func__, nl_geterror(err));
		goto fail;
	}
	if (nsfd != -1 && netns_enter_root() == -1)
		fatal("%s: setns back to the root namespace", __func__);
	return k;
fail:
	if (nsfd != -1 && netns_enter_root() == -1)
		fatal("%s: setns back to the root namespace", __func__);
	kern_close(k);
	return NULL;
}

void kern_close(struct kern *k)
{
	if (k == NULL)
		return;
	if (k->sk)
		nl_socket_free(k->sk);
	free(k);
}

int kern_veth(struct kern *k, const char *name_a, int nsfd_a, const char *name_b, int nsfd_b)
{
	struct rtnl_link *link = rtnl_link_veth_alloc(), *peer;
	int err, rc = -1;

	if (link == NULL)
		return -1;
	peer = rtnl_link_veth_get_peer(link);
	rtnl_link_set_name(link, name_a);
	rtnl_link_set_ns_fd(link, nsfd_a);
	rtnl_link_set_name(peer, name_b);
	rtnl_link_set_ns_fd(peer, nsfd_b);
	err = rtnl_link_add(k->sk, link, NLM_F_CREATE | NLM_F_EXCL);
	if (err < 0)
		log_warnx("%s: veth %s/%s: %s", __func__, name_a, name_b, nl_geterror(err));
	else
		rc = 0;
	rtnl_link_put(peer);
	rtnl_link_put(link);
	return rc;
}

int kern_vxlan(struct kern *k, const char *name, int nsfd, unsigned vni, struct in_addr local,
	       struct in_addr remote, int mtu)
{
	struct rtnl_link *link = rtnl_link_vxlan_alloc();
	struct nl_addr *lo = nl_addr_build(AF_INET, &local, sizeof(local)),
		       *re = nl_addr_build(AF_INET, &remote, sizeof(remote));
	int err = -NLE_NOMEM;

	if (link && lo && re) {
		rtnl_link_set_name(link, name);
		rtnl_link_set_ns_fd(link, nsfd);
		rtnl_link_set_mtu(link, (unsigned)mtu);
		rtnl_link_vxlan_set_id(link, vni);
		rtnl_link_vxlan_set_local(link, lo);
		rtnl_link_vxlan_set_group(link, re); /* a unicast group: the remote */
		rtnl_link_vxlan_set_port(link, TOPO_VXLAN_PORT);
		/* the kernel's socket is opened in k's namespace, where the
		 * device is made, and stays there when it moves */
		err = rtnl_link_add(k->sk, link, NLM_F_CREATE | NLM_F_EXCL);
	}
	if (err < 0)
		log_warnx("%s: vxlan %s (id %u): %s", __func__, name, vni, nl_geterror(err));
	nl_addr_put(lo);
	nl_addr_put(re);
	rtnl_link_put(link);
	return err < 0 ? -1 : 0;
}

int kern_bridge(struct kern *k, const char *name)
{
	struct rtnl_link *link = rtnl_link_bridge_alloc();
	int err = -NLE_NOMEM;

	if (link) {
		rtnl_link_set_name(link, name);
		err = rtnl_link_add(k->sk, link, NLM_F_CREATE | NLM_F_EXCL);
	}
	if (err < 0)
		log_warnx("%s: bridge %s: %s", __func__, name, nl_geterror(err));
	rtnl_link_put(link);
	return err < 0 ? -1 : 0;
}

int kern_enslave(struct kern *k, int master, int ifindex)
{
	int err = rtnl_link_enslave_ifindex(k->sk, master, ifindex);

	if (err < 0)
		log_warnx("%s: link %d into bridge %d: %s", __func__, ifindex, master,
			  nl_geterror(err));
	return err < 0 ? -1 : 0;
}

int kern_ifindex(struct kern *k, const char *name)
{
	struct rtnl_link *link;
	int err, ifindex;

	for (int i = 0; i < k->nifs; i++)
		if (strcmp(k->ifs[i].name, name) == 0)
			return k->ifs[i].ifindex;
	err = rtnl_link_get_kernel(k->sk, 0, name, &link);
	if (err < 0) {
		log_warnx("%s: link %s: %s", __func__, name, nl_geterror(err));
		return -1;
	}
	ifindex = rtnl_link_get_ifindex(link);
	rtnl_link_put(link);
	if (k->nifs < KERN_IFCACHE && strlen(name) < IFNAMSIZ) {
		strcpy(k->ifs[k->nifs].name, name);
		k->ifs[k->nifs++].ifindex = ifindex;
	}
	return ifindex;
}

int kern_link_up(struct kern *k, int ifindex)
{
	struct rtnl_link *orig = rtnl_link_alloc(), *change = rtnl_link_alloc();
	int err = -NLE_NOMEM;

	if (orig && change) {
		rtnl_link_set_ifindex(orig, ifindex);
		rtnl_link_set_flags(change, IFF_UP);
		err = rtnl_link_change(k->sk, orig, change, 0);
	}
	if (err < 0)
		log_warnx("%s: link %d up: %s", __func__, ifindex, nl_geterror(err));
	rtnl_link_put(orig);
	rtnl_link_put(change);
	return err < 0 ? -1 : 0;
}

int kern_link_set(struct kern *k, int ifindex, int up)
{
	struct rtnl_link *orig = rtnl_link_alloc(), *change = rtnl_link_alloc();
	int err = -NLE_NOMEM;

	if (orig && change) {
		rtnl_link_set_ifindex(orig, ifindex);
		if (up)
			rtnl_link_set_flags(change, IFF_UP);
		else
			rtnl_link_unset_flags(change, IFF_UP);
		err = rtnl_link_change(k->sk, orig, change, 0);
	}
	if (err < 0)
		log_warnx("%s: link %d %s: %s", __func__, ifindex, up ? "up" : "down",
			  nl_geterror(err));
	rtnl_link_put(orig);
	rtnl_link_put(change);
	return err < 0 ? -1 : 0;
}

void kern_again(struct kern *k)
{
	k->exist_ok = 1;
}

int kern_sysctl(int nsfd, const char *name, const char *value, int optional)
{
	char path[256];
	int fd, rc = -1, err = 0;
	size_t len = strlen(value);

	if (strfmt(path, sizeof(path), "/proc/sys/%s", name) == -1)
		return -1;
	if (netns_enter(nsfd) == -1) {
		log_warn("%s: setns", __func__);
		return -1;
	}
	/* /proc/sys/net is the namespace of whoever opens it */
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd == -1)
		err = errno;
	else if (write(fd, value, len) == (ssize_t)len)
		rc = 0;
	else
		err = errno;
	if (fd != -1)
		close(fd);
	if (netns_enter_root() == -1)
		fatal("%s: setns back to the root namespace", __func__);
	if (rc == 0)
		return 0;
	if (err == ENOENT && optional)
		return 1;
	log_warnx("%s = %s: %s", path, value, strerror(err));
	return -1;
}

int kern_link_forwarding(struct kern *k, int ifindex)
{
	struct rtnl_link *orig = rtnl_link_alloc(), *change = rtnl_link_alloc();
	int err = -NLE_NOMEM;

	if (orig && change) {
		rtnl_link_set_ifindex(orig, ifindex);
		err = rtnl_link_inet_set_conf(change, IPV4_DEVCONF_FORWARDING, 1);
		if (err >= 0)
			err = rtnl_link_change(k->sk, orig, change, 0);
	}
	if (err < 0)
		log_warnx("%s: link %d forwarding: %s", __func__, ifindex, nl_geterror(err));
	rtnl_link_put(orig);
	rtnl_link_put(change);
	return err < 0 ? -1 : 0;
}

/* kern_nladdr: a libnl address of family (AF_INET: a is a struct in_addr,
 * AF_INET6 a struct in6_addr) and prefixlen; NULL if out of memory */
static struct nl_addr *kern_nladdr(int family, const void *a, int prefixlen)
{
	struct nl_addr *na = nl_addr_build(
	    family, a, family == AF_INET6 ? sizeof(struct in6_addr) : sizeof(struct in_addr));

	if (na)
		nl_addr_set_prefixlen(na, prefixlen);
	return na;
}

int kern_addr_add(struct kern *k, int ifindex, struct in_addr addr, int prefixlen)
{
	int err = nladdr_change(k->sk, ifindex, addr, prefixlen, 1);

	if (err == -NLE_EXIST && k->exist_ok)
		err = 0;
	if (err < 0) {
		char buf[INET_ADDRSTRLEN];
		inet_ntop(AF_INET, &addr, buf, sizeof(buf));
		log_warnx("%s: address %s/%d on link %d: %s", __func__, buf, prefixlen, ifindex,
			  nl_geterror(err));
	}
	return err < 0 ? -1 : 0;
}

/* kern_route_put: dst/prefixlen of family (AF_INET, AF_INET6: dst and gw
 * point to its address) via gw on ifindex (gw NULL: directly), or (local)
 * delivered to this node through lo; errors logged as fn's */
static int kern_route_put(struct kern *k, const char *fn, int local, int family, const void *dst,
			  int prefixlen, const void *gw, int ifindex, unsigned metric)
{
	struct rtnl_route *route = rtnl_route_alloc();
	struct rtnl_nexthop *nh = rtnl_route_nh_alloc();
	struct nl_addr *ndst = kern_nladdr(family, dst, prefixlen), *ngw = NULL;
	int err = -NLE_NOMEM;

	if (route == NULL || nh == NULL || ndst == NULL)
		goto out;
	rtnl_route_set_family(route, (uint8_t)family);
	rtnl_route_set_dst(route, ndst);
	rtnl_route_set_priority(route, metric);
	rtnl_route_set_table(route, local ? RT_TABLE_LOCAL : RT_TABLE_MAIN);
	if (local)
		rtnl_route_set_type(route, RTN_LOCAL);
	rtnl_route_set_protocol(route, RTPROT_STATIC);
	rtnl_route_nh_set_ifindex(nh, ifindex);
	if (local) {
		rtnl_route_set_scope(route, RT_SCOPE_HOST);
	} else if (gw) {
		if ((ngw = kern_nladdr(family, gw, family == AF_INET6 ? 128 : 32)) == NULL)
			goto out;
		rtnl_route_nh_set_gateway(nh, ngw);
	} else {
		rtnl_route_set_scope(route, RT_SCOPE_LINK);
	}
	rtnl_route_add_nexthop(route, nh);
	nh = NULL; /* owned by the route now */
	err = rtnl_route_add(k->sk, route, NLM_F_CREATE | NLM_F_EXCL);
	if (err == -NLE_EXIST && k->exist_ok)
		err = 0;
out:
	if (err < 0) {
		char buf[INET6_ADDRSTRLEN];
		inet_ntop(family, dst, buf, sizeof(buf));
		log_warnx("%s: %sroute %s/%d: %s", fn, local ? "local " : "", buf, prefixlen,
			  nl_geterror(err));
	}
	if (nh)
		rtnl_route_nh_free(nh);
	nl_addr_put(ngw);
	nl_addr_put(ndst);
	rtnl_route_put(route);
	return err < 0 ? -1 : 0;
}

int kern_local_add(struct kern *k, struct in_addr dst, unsigned metric)
{
	return kern_route_put(k, __func__, 1, AF_INET, &dst, 32, NULL, 1 /* lo */, metric);
}

int kern_local6_add(struct kern *k, const struct in6_addr *dst, unsigned metric)
{
	return kern_route_put(k, __func__, 1, AF_INET6, dst, 128, NULL, 1 /* lo */, metric);
}

int kern_route_add(struct kern *k, struct in_addr dst, int prefixlen, struct in_addr gw,
		   int ifindex, unsigned metric)
{
	return kern_route_put(k, __func__, 0, AF_INET, &dst, prefixlen, gw.s_addr ? &gw : NULL,
			      ifindex, metric);
}

int kern_addr6_add(struct kern *k, int ifindex, const struct in6_addr *addr, int prefixlen)
{
	struct rtnl_addr *ra = rtnl_addr_alloc();
	struct nl_addr *local = kern_nladdr(AF_INET6, addr, prefixlen);
	int err = -NLE_NOMEM;

	if (ra && local) {
		rtnl_addr_set_ifindex(ra, ifindex);
		rtnl_addr_set_family(ra, AF_INET6);
		rtnl_addr_set_prefixlen(ra, prefixlen);
		rtnl_addr_set_flags(ra, IFA_F_NODAD);
		err = rtnl_addr_set_local(ra, local);
		if (err == 0)
			err = rtnl_addr_add(k->sk, ra, NLM_F_EXCL);
	}
	if (err == -NLE_EXIST && k->exist_ok)
		err = 0;
	if (err < 0) {
		char buf[INET6_ADDRSTRLEN];

		inet_ntop(AF_INET6, addr, buf, sizeof(buf));
		log_warnx("%s: address %s/%d on link %d: %s", __func__, buf, prefixlen, ifindex,
			  nl_geterror(err));
	}
	nl_addr_put(local);
	rtnl_addr_put(ra);
	return err < 0 ? -1 : 0;
}

int kern_route6_add(struct kern *k, const struct in6_addr *dst, int prefixlen,
		    const struct in6_addr *gw, int ifindex)
{
	return kern_route_put(k, __func__, 0, AF_INET6, dst, prefixlen, gw, ifindex, 0);
}

/* kern_has_linklocal: whether ifindex has a link-local IPv6 address that
 * is not tentative, in addrs */
static int kern_has_linklocal(struct nl_cache *addrs, int ifindex)
{
	for (struct nl_object *o = nl_cache_get_first(addrs); o; o = nl_cache_get_next(o)) {
		struct rtnl_addr *a = (struct rtnl_addr *)o;
		struct nl_addr *local = rtnl_addr_get_local(a);
		const uint8_t *b;

		if (rtnl_addr_get_ifindex(a) != ifindex || rtnl_addr_get_family(a) != AF_INET6 ||
		    local == NULL || nl_addr_get_len(local) != 16 ||
		    (rtnl_addr_get_flags(a) & IFA_F_TENTATIVE))
			continue;
		b = nl_addr_get_binary_addr(local);
		if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80)
			return 1;
	}
	return 0;
}

int kern_linklocal_missing(struct kern *k)
{
	struct nl_cache *links = NULL, *addrs = NULL;
	int missing = 0;

	if (rtnl_link_alloc_cache(k->sk, AF_UNSPEC, &links) < 0 ||
	    rtnl_addr_alloc_cache(k->sk, &addrs) < 0) {
		missing = -1;
		goto out;
	}
	for (struct nl_object *o = nl_cache_get_first(links); o; o = nl_cache_get_next(o)) {
		struct rtnl_link *l = (struct rtnl_link *)o;
		unsigned flags = rtnl_link_get_flags(l);

		if ((flags & IFF_LOOPBACK) || !(flags & IFF_UP))
			continue;
		if (!kern_has_linklocal(addrs, rtnl_link_get_ifindex(l)))
			missing++;
	}
out:
	nl_cache_free(addrs);
	nl_cache_free(links);
	return missing;
}
