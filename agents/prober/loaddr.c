/* The anycast addresses on lo through netlink; see loaddr.h. */
#include "loaddr.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>

#include "log.h"
#include "nladdr.h"

#define LO_IFINDEX 1 /* the loopback of every namespace */

int prober_lo_open(struct prober_lo *l, struct in_addr addr, int prefixlen,
		   const struct in6_addr *addr6)
{
	int err;

	l->addr = addr;
	l->prefixlen = prefixlen;
	l->has6 = addr6 != NULL;
	if (addr6)
		l->addr6 = *addr6;
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

/* prober_lo_said: what netlink said (err) to setting the address text:
 * 1 if it changed lo, 0 if it already was so, -1 on error (logged) */
static int prober_lo_said(int err, int present, const char *text)
{
	if (err == 0)
		return 1;
	if ((present && err == -NLE_EXIST) || (!present && err == -NLE_NOADDR))
		return 0;
	/* a delete of an address that is not there may also say "not found" */
	if (!present && (err == -NLE_OBJ_NOTFOUND || err == -NLE_NODEV))
		return 0;
	log_warnx("%s %s on lo: %s", present ? "adding" : "removing", text, nl_geterror(err));
	return -1;
}

int prober_lo_set(struct prober_lo *l, int present)
{
	char a[INET6_ADDRSTRLEN], text[INET6_ADDRSTRLEN + 8];
	int rc4 = 0, rc6 = 0;
	int present4 = present && l->withheld != 4, present6 = present && l->withheld != 6;

	if (l->prefixlen > 0) {
		inet_ntop(AF_INET, &l->addr, a, sizeof(a));
		snprintf(text, sizeof(text), "%s/%d", a, l->prefixlen);
		rc4 = prober_lo_said(
		    nladdr_change(l->sk, LO_IFINDEX, l->addr, l->prefixlen, present4), present4,
		    text);
	}
	if (l->has6) {
		inet_ntop(AF_INET6, &l->addr6, a, sizeof(a));
		snprintf(text, sizeof(text), "%s/128", a);
		rc6 = prober_lo_said(nladdr_change6(l->sk, LO_IFINDEX, &l->addr6, 128, present6),
				     present6, text);
	}
	if (rc4 == -1 || rc6 == -1)
		return -1;
	return (rc4 ? PROBER_LO_CHANGED4 : 0) | (rc6 ? PROBER_LO_CHANGED6 : 0);
}

void prober_lo_close(struct prober_lo *l)
{
	if (l->sk)
		nl_socket_free(l->sk);
	l->sk = NULL;
}
