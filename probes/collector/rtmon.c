/* Route notifications over NETLINK_ROUTE; see rtmon.h. */
#include "rtmon.h"

#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "timeutil.h"

/* room for a burst of route changes while the loop is busy with captures */
#define RTMON_SOCKBUF (8 << 20)
#define RTMON_MSGBUF 65536

/* the sequence number of our dump request: its replies carry it */
#define RTMON_DUMP_SEQ 0x5eed

struct rtmon {
	int fd;
	uint32_t portid; /* our netlink address, for telling our dump's replies */
	int ipv6;	 /* the IPv6 routes too */
	rtmon_cb cb;
	void *arg;
	/* netlink messages are 4-byte aligned; keep the buffer so */
	uint32_t buf[RTMON_MSGBUF / sizeof(uint32_t)];
};

const char *rtmon_type_name(uint8_t type)
{
	static const char *const names[] = {
	    [RTN_UNSPEC] = "unspec",
	    [RTN_UNICAST] = "unicast",
	    [RTN_LOCAL] = "local",
	    [RTN_BROADCAST] = "broadcast",
	    [RTN_ANYCAST] = "anycast",
	    [RTN_MULTICAST] = "multicast",
	    [RTN_BLACKHOLE] = "blackhole",
	    [RTN_UNREACHABLE] = "unreachable",
	    [RTN_PROHIBIT] = "prohibit",
	    [RTN_THROW] = "throw",
	    [RTN_NAT] = "nat",
	    [RTN_XRESOLVE] = "xresolve",
	};

	if (type < sizeof(names) / sizeof(names[0]) && names[type])
		return names[type];
	return "other";
}

const char *rtmon_op_name(enum rtmon_op op)
{
	switch (op) {
	case RTMON_ADD:
		return "add";
	case RTMON_REPLACE:
		return "replace";
	case RTMON_APPEND:
		return "append";
	case RTMON_DEL:
		return "del";
	case RTMON_PRESENT:
		return "present";
	}
	return "other";
}

struct rtmon *rtmon_open(rtmon_cb cb, void *arg, int ipv6)
{
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK,
				 .nl_groups = RTMGRP_IPV4_ROUTE | (ipv6 ? RTMGRP_IPV6_ROUTE : 0)};
	int size = RTMON_SOCKBUF;
	struct rtmon *m;

	m = calloc(1, sizeof(*m));
	if (m == NULL)
		return NULL;
	m->cb = cb;
	m->arg = arg;
	m->ipv6 = ipv6;
	m->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (m->fd == -1) {
		log_warn("%s: netlink socket", __func__);
		goto fail;
	}
	/* FORCE needs CAP_NET_ADMIN; without it, take what rmem_max allows */
	if (setsockopt(m->fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) == -1 &&
	    setsockopt(m->fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size)) == -1)
		log_warn("%s: netlink receive buffer", __func__);
	if (bind(m->fd, (struct sockaddr *)&sa, sizeof(sa)) == -1) {
		log_warn("%s: netlink bind", __func__);
		goto fail;
	}
	{
		struct sockaddr_nl me;
		socklen_t len = sizeof(me);

		if (getsockname(m->fd, (struct sockaddr *)&me, &len) == -1) {
			log_warn("%s: netlink getsockname", __func__);
			goto fail;
		}
		m->portid = me.nl_pid;
	}
	return m;
fail:
	rtmon_close(m);
	return NULL;
}

void rtmon_close(struct rtmon *m)
{
	if (m == NULL)
		return;
	if (m->fd != -1)
		close(m->fd);
	free(m);
}

int rtmon_fd(const struct rtmon *m)
{
	return m->fd;
}

int rtmon_dump(struct rtmon *m)
{
	struct {
		struct nlmsghdr nlh;
		struct rtmsg rtm;
	} req;
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK};

	memset(&req, 0, sizeof(req));
	req.nlh.nlmsg_len = NLMSG_LENGTH(sizeof(req.rtm));
	req.nlh.nlmsg_type = RTM_GETROUTE;
	req.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.nlh.nlmsg_seq = RTMON_DUMP_SEQ;
	req.nlh.nlmsg_pid = m->portid;
	/* one dump at a time per socket: both families in one (AF_UNSPEC) */
	req.rtm.rtm_family = m->ipv6 ? AF_UNSPEC : AF_INET;
	if (sendto(m->fd, &req, req.nlh.nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) == -1) {
		log_warn("%s: netlink route dump", __func__);
		return -1;
	}
	return 0;
}

/* rtmon_addr: an address attribute of the route's family (4 or 16 bytes,
 * into addr or addr6); anything else is ignored. */
static int rtmon_addr(const struct rtattr *rta, int family, struct in_addr *addr,
		      struct in6_addr *addr6)
{
	if (family == AF_INET && RTA_PAYLOAD(rta) == sizeof(*addr))
		memcpy(addr, RTA_DATA(rta), sizeof(*addr));
	else if (family == AF_INET6 && RTA_PAYLOAD(rta) == sizeof(*addr6))
		memcpy(addr6, RTA_DATA(rta), sizeof(*addr6));
	else
		return -1;
	return 0;
}

static uint32_t rtmon_u32(const struct rtattr *rta, uint32_t dflt)
{
	uint32_t v;

	if (RTA_PAYLOAD(rta) != sizeof(v))
		return dflt;
	memcpy(&v, RTA_DATA(rta), sizeof(v));
	return v;
}

/* rtmon_multipath: the next hops of an RTA_MULTIPATH into r->nh */
static void rtmon_multipath(struct rtmon_route *r, const struct rtattr *mp)
{
	const struct rtnexthop *nh = RTA_DATA(mp);
	int len = (int)RTA_PAYLOAD(mp);

	r->multipath = 1;
	r->nnh = r->nnh_total = 0;
	while (len >= (int)sizeof(*nh) && nh->rtnh_len >= sizeof(*nh) && nh->rtnh_len <= len) {
		const struct rtattr *rta = RTNH_DATA(nh);
		int alen = nh->rtnh_len - (int)RTNH_LENGTH(0);

		if (r->nnh < RTMON_MAX_NEXTHOPS) {
			struct rtmon_nexthop *h = &r->nh[r->nnh++];

			h->oif = nh->rtnh_ifindex;
			h->has_gateway = 0;
			for (; RTA_OK(rta, alen); rta = RTA_NEXT(rta, alen))
				if (rta->rta_type == RTA_GATEWAY &&
				    rtmon_addr(rta, r->family, &h->gateway, &h->gateway6) == 0)
					h->has_gateway = 1;
		}
		r->nnh_total++;
		len -= RTNH_ALIGN(nh->rtnh_len);
		nh = RTNH_NEXT(nh);
	}
	/* the first next hop is also the route's own */
	if (r->nnh > 0) {
		r->has_gateway = r->nh[0].has_gateway;
		r->gateway = r->nh[0].gateway;
		r->gateway6 = r->nh[0].gateway6;
		r->oif = r->nh[0].oif;
	}
}

static void rtmon_route(struct rtmon *m, const struct nlmsghdr *nlh, int64_t t_ns)
{
	const struct rtmsg *rtm = NLMSG_DATA(nlh);
	const struct rtattr *rta, *mp = NULL;
	struct rtmon_route r;
	int len;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*rtm)))
		return;
	len = (int)(nlh->nlmsg_len - NLMSG_LENGTH(sizeof(*rtm)));
	if ((rtm->rtm_family != AF_INET && (rtm->rtm_family != AF_INET6 || !m->ipv6)) ||
	    (rtm->rtm_flags & RTM_F_CLONED))
		return;
	memset(&r, 0, sizeof(r));
	r.family = rtm->rtm_family;
	r.t_ns = t_ns;
	r.deleted = nlh->nlmsg_type == RTM_DELROUTE;
	if (r.deleted)
		r.op = RTMON_DEL;
	else if ((nlh->nlmsg_flags & NLM_F_MULTI) && nlh->nlmsg_seq == RTMON_DUMP_SEQ &&
		 nlh->nlmsg_pid == m->portid)
		r.op = RTMON_PRESENT; /* a reply to our dump */
	else if (nlh->nlmsg_flags & NLM_F_REPLACE)
		r.op = RTMON_REPLACE;
	else if (nlh->nlmsg_flags & NLM_F_APPEND)
		r.op = RTMON_APPEND;
	else
		r.op = RTMON_ADD;
	r.dst_len = rtm->rtm_dst_len;
	r.table = rtm->rtm_table;
	r.protocol = rtm->rtm_protocol;
	r.type = rtm->rtm_type;
	for (rta = RTM_RTA(rtm); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		switch (rta->rta_type) {
		case RTA_DST:
			rtmon_addr(rta, r.family, &r.dst, &r.dst6);
			break;
		case RTA_GATEWAY:
			if (rtmon_addr(rta, r.family, &r.gateway, &r.gateway6) == 0)
				r.has_gateway = 1;
			break;
		case RTA_OIF:
			r.oif = (int)rtmon_u32(rta, 0);
			break;
		case RTA_PRIORITY:
			r.metric = rtmon_u32(rta, 0);
			break;
		case RTA_TABLE:
			r.table = rtmon_u32(rta, r.table);
			break;
		case RTA_MULTIPATH:
			mp = rta;
			break;
		case RTA_NH_ID:
			r.nhid = rtmon_u32(rta, 0);
			break;
		}
	}
	if (mp) {
		rtmon_multipath(&r, mp);
	} else {
		r.nnh = r.nnh_total = 1;
		r.nh[0].has_gateway = r.has_gateway;
		r.nh[0].gateway = r.gateway;
		r.nh[0].gateway6 = r.gateway6;
		r.nh[0].oif = r.oif;
	}
	m->cb(&r, m->arg);
}

int rtmon_read(struct rtmon *m)
{
	int overrun = 0;

	for (;;) {
		struct sockaddr_nl sa;
		struct iovec iov = {.iov_base = m->buf, .iov_len = sizeof(m->buf)};
		struct msghdr msg = {
		    .msg_name = &sa, .msg_namelen = sizeof(sa), .msg_iov = &iov, .msg_iovlen = 1};
		const struct nlmsghdr *nlh;
		ssize_t n = recvmsg(m->fd, &msg, 0);
		int len;
		int64_t t;

		if (n == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			if (errno == ENOBUFS) {
				overrun = 1;
				continue;
			}
			log_warn("%s: netlink receive", __func__);
			return -1;
		}
		t = now_real_ns();
		if (msg.msg_flags & MSG_TRUNC) {
			log_warnx("%s: netlink message truncated", __func__);
			overrun = 1;
			continue;
		}
		if (msg.msg_namelen != sizeof(sa) || sa.nl_pid != 0)
			continue; /* not from the kernel */
		len = (int)n;
		for (nlh = (const struct nlmsghdr *)m->buf; NLMSG_OK(nlh, len);
		     nlh = NLMSG_NEXT(nlh, len)) {
			if (nlh->nlmsg_type == RTM_NEWROUTE || nlh->nlmsg_type == RTM_DELROUTE)
				rtmon_route(m, nlh, t);
		}
	}
	return overrun;
}
