/* Interface addresses through netlink; see nladdr.h. */
#include "nladdr.h"

#include <arpa/inet.h>
#include <netlink/errno.h>
#include <netlink/route/addr.h>

/* nladdr_set: the address of family (len bytes at addr) */
static int nladdr_set(struct nl_sock *sk, int ifindex, int family, const void *addr, size_t len,
		      int prefixlen, int add)
{
	struct rtnl_addr *ra = rtnl_addr_alloc();
	struct nl_addr *local = nl_addr_build(family, addr, len);
	int err = -NLE_NOMEM;

	if (ra && local) {
		nl_addr_set_prefixlen(local, prefixlen);
		rtnl_addr_set_ifindex(ra, ifindex);
		rtnl_addr_set_family(ra, family);
		rtnl_addr_set_prefixlen(ra, prefixlen);
		err = rtnl_addr_set_local(ra, local);
		if (err == 0)
			err = add ? rtnl_addr_add(sk, ra, NLM_F_EXCL) : rtnl_addr_delete(sk, ra, 0);
	}
	nl_addr_put(local);
	rtnl_addr_put(ra);
	return err < 0 ? err : 0;
}

int nladdr_change(struct nl_sock *sk, int ifindex, struct in_addr addr, int prefixlen, int add)
{
	return nladdr_set(sk, ifindex, AF_INET, &addr, sizeof(addr), prefixlen, add);
}

int nladdr_change6(struct nl_sock *sk, int ifindex, const struct in6_addr *addr, int prefixlen,
		   int add)
{
	return nladdr_set(sk, ifindex, AF_INET6, addr, sizeof(*addr), prefixlen, add);
}
