/* The anycast address on lo through netlink; see loaddr.h. */
#include "loaddr.h"

#include <arpa/inet.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>

#include "log.h"
#include "nladdr.h"

#define LO_IFINDEX 1 /* the loopback of every namespace */

int prober_lo_open(struct prober_lo *l, struct in_addr addr, int prefixlen)
{
	int err;

	l->addr = addr;
	l->prefixlen = prefixlen;
	if ((l->sk = nl_socket_alloc()) == NULL) {
		log_warnx("%s: netlink socket: out of memory", __func__);
		return -1;
	}
	if ((err = nl_connect(l->sk, NETLINK_ROUTE)) < 0) {
		log_warnx("%s: netlink: %s", __func__, nl_geterror(err));
		nl_socket_free(l->sk);
		l->sk = NULL;
		return -1;
	}
	return 0;
}

int prober_lo_set(struct prober_lo *l, int present)
{
	char a[INET_ADDRSTRLEN];
	int err = nladdr_change(l->sk, LO_IFINDEX, l->addr, l->prefixlen, present);

	if (err == 0)
		return 1;
	if ((present && err == -NLE_EXIST) || (!present && err == -NLE_NOADDR))
		return 0;
	/* a delete of an address that is not there may also say "not found" */
	if (!present && (err == -NLE_OBJ_NOTFOUND || err == -NLE_NODEV))
		return 0;
	inet_ntop(AF_INET, &l->addr, a, sizeof(a));
	log_warnx("%s %s/%d on lo: %s", present ? "adding" : "removing", a, l->prefixlen,
		  nl_geterror(err));
	return -1;
}

void prober_lo_close(struct prober_lo *l)
{
	if (l->sk)
		nl_socket_free(l->sk);
	l->sk = NULL;
}
