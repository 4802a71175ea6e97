/* Resilient nexthop groups through libmnl; see knh.h. */
#include "knh.h"

#include <arpa/inet.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"

struct knh_gw {
	struct in_addr via;
	uint32_t id;
};

struct knh_route {
	struct in_addr prefix;
	int prefixlen;
	unsigned metric;
	uint32_t gid;
	uint32_t members[KROUTE_VIAS_MAX]; /* gateway ids, in the group */
	int n;
};

struct knh {
	struct mnl_socket *nl;
	uint32_t portid, seq, table;
	struct knh_gw gw[KNH_MAX];
	int ngw;
	struct knh_route rt[KNH_MAX];
	int nrt;
	uint32_t next_gid;
};

struct knh *knh_open(uint32_t table)
{
	struct knh *k = calloc(1, sizeof(*k));

	if (k == NULL) {
		log_warn("%s: calloc", __func__);
		return NULL;
	}
	k->table = table;
	k->seq = (uint32_t)time(NULL);
	if ((k->nl = mnl_socket_open(NETLINK_ROUTE)) == NULL ||
	    mnl_socket_bind(k->nl, 0, MNL_SOCKET_AUTOPID) == -1) {
		log_warn("%s: netlink", __func__);
		knh_close(k);
		return NULL;
	}
	k->portid = mnl_socket_get_portid(k->nl);
	return k;
}

void knh_close(struct knh *k)
{
	if (k == NULL)
		return;
	if (k->nl)
		mnl_socket_close(k->nl);
	free(k);
}

/* knh_talk: nlh sent, with an ack asked for, and the answer read: each
 * message of it to cb (may be NULL). 0, or -1 with errno the kernel's. */
static int knh_talk(struct knh *k, struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	int rc;

	nlh->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = ++k->seq;
	if (mnl_socket_sendto(k->nl, nlh, nlh->nlmsg_len) < 0)
		return -1;
	do {
		ssize_t n = mnl_socket_recvfrom(k->nl, buf, sizeof(buf));

		if (n < 0)
			return -1;
		rc = mnl_cb_run(buf, (size_t)n, nlh->nlmsg_seq, k->portid, cb, data);
	} while (rc > MNL_CB_STOP);
	return rc < 0 ? -1 : 0;
}

static int knh_oif_attr(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == RTA_OIF && mnl_attr_validate(a, MNL_TYPE_U32) == 0)
		*(uint32_t *)data = mnl_attr_get_u32(a);
	return MNL_CB_OK;
}

static int knh_oif_cb(const struct nlmsghdr *nlh, void *data)
{
	if (nlh->nlmsg_type == RTM_NEWROUTE)
		mnl_attr_parse(nlh, sizeof(struct rtmsg), knh_oif_attr, data);
	return MNL_CB_OK;
}

/* knh_oif: the device the FIB reaches via by (RTM_GETROUTE). Its index,
 * or 0 with errno set. */
static uint32_t knh_oif(struct knh *k, struct in_addr via)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct rtmsg *rtm;
	uint32_t oif = 0;

	nlh->nlmsg_type = RTM_GETROUTE;
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = AF_INET;
	rtm->rtm_dst_len = 32;
	mnl_attr_put(nlh, RTA_DST, sizeof(via), &via);
	if (knh_talk(k, nlh, knh_oif_cb, &oif) == -1)
		return 0;
	if (oif == 0)
		errno = ENETUNREACH;
	return oif;
}

/* knh_nhmsg: an RTM_NEWNEXTHOP (or DEL) header for id in buf: of a
 * gateway (family AF_INET), or of a group (the kernel wants AF_UNSPEC) */
static struct nlmsghdr *knh_nhmsg(char *buf, int type, uint32_t id, int group)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nhmsg *nhm;

	nlh->nlmsg_type = (uint16_t)type;
	if (type == RTM_NEWNEXTHOP)
		nlh->nlmsg_flags = NLM_F_CREATE | NLM_F_REPLACE;
	nhm = mnl_nlmsg_put_extra_header(nlh, sizeof(*nhm));
	nhm->nh_family = type == RTM_NEWNEXTHOP && !group ? AF_INET : AF_UNSPEC;
	/* a delete names the id alone: the kernel refuses anything else */
	nhm->nh_protocol = type == RTM_NEWNEXTHOP ? KROUTE_PROTO : 0;
	mnl_attr_put_u32(nlh, NHA_ID, id);
	return nlh;
}

/* knh_gateway: the id of via's nexthop object, made if it is new. The
 * id, or 0 with errno set. */
static uint32_t knh_gateway(struct knh *k, struct in_addr via)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	uint32_t oif, id;

	for (int i = 0; i < k->ngw; i++)
		if (k->gw[i].via.s_addr == via.s_addr)
			return k->gw[i].id;
	if (k->ngw == KNH_MAX) {
		errno = ENOSPC;
		return 0;
	}
	if ((oif = knh_oif(k, via)) == 0)
		return 0;
	id = KNH_GW_BASE + (uint32_t)k->ngw + 1;
	nlh = knh_nhmsg(buf, RTM_NEWNEXTHOP, id, 0);
	mnl_attr_put(nlh, NHA_GATEWAY, sizeof(via), &via);
	mnl_attr_put_u32(nlh, NHA_OIF, oif);
	if (knh_talk(k, nlh, NULL, NULL) == -1)
		return 0;
	k->gw[k->ngw].via = via;
	k->gw[k->ngw++].id = id;
	return id;
}

/* knh_group: group gid over the n gateways ids, resilient, made or
 * replaced in place. 0, or -1 with errno set. */
static int knh_group(struct knh *k, uint32_t gid, const uint32_t *ids, int n)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nexthop_grp grp[KROUTE_VIAS_MAX];
	struct nlmsghdr *nlh = knh_nhmsg(buf, RTM_NEWNEXTHOP, gid, 1);
	struct nlattr *res;

	memset(grp, 0, sizeof(grp));
	for (int i = 0; i < n; i++)
		grp[i].id = ids[i]; /* weight 0: 1, every one alike */
	mnl_attr_put(nlh, NHA_GROUP, (size_t)n * sizeof(grp[0]), grp);
	mnl_attr_put_u16(nlh, NHA_GROUP_TYPE, NEXTHOP_GRP_TYPE_RES);
	res = mnl_attr_nest_start(nlh, NHA_RES_GROUP);
	mnl_attr_put_u16(nlh, NHA_RES_GROUP_BUCKETS, KNH_BUCKETS);
	mnl_attr_nest_end(nlh, res);
	return knh_talk(k, nlh, NULL, NULL);
}

/* knh_rtmsg: an RTM_NEWROUTE (or DEL) of r's prefix and metric (none
 * with any_metric) in buf */
static struct nlmsghdr *knh_rtmsg(struct knh *k, char *buf, int type, const struct kroute *r)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct rtmsg *rtm;

	nlh->nlmsg_type = (uint16_t)type;
	if (type == RTM_NEWROUTE)
		nlh->nlmsg_flags = NLM_F_CREATE | NLM_F_REPLACE;
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = AF_INET;
	rtm->rtm_dst_len = (unsigned char)r->prefixlen;
	rtm->rtm_table = k->table < 256 ? (unsigned char)k->table : RT_TABLE_UNSPEC;
	rtm->rtm_protocol = KROUTE_PROTO;
	rtm->rtm_scope = type == RTM_NEWROUTE ? RT_SCOPE_UNIVERSE : RT_SCOPE_NOWHERE;
	rtm->rtm_type = RTN_UNICAST;
	mnl_attr_put(nlh, RTA_DST, sizeof(r->prefix), &r->prefix);
	mnl_attr_put_u32(nlh, RTA_TABLE, k->table);
	if (!r->any_metric)
		mnl_attr_put_u32(nlh, RTA_PRIORITY, r->metric);
	return nlh;
}

/* knh_slot: the route of r (any metric with any_metric), or NULL */
static struct knh_route *knh_slot(struct knh *k, const struct kroute *r)
{
	for (int i = 0; i < k->nrt; i++)
		if (k->rt[i].prefix.s_addr == r->prefix.s_addr &&
		    k->rt[i].prefixlen == r->prefixlen &&
		    (r->any_metric || k->rt[i].metric == r->metric))
			return &k->rt[i];
	return NULL;
}

static int knh_fail(char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "%s: %s", what, strerror(errno));
	return -1;
}

int knh_change(struct knh *k, const struct kroute *r, char *err, size_t errlen)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct knh_route *s = knh_slot(k, r);
	uint32_t ids[KROUTE_VIAS_MAX];
	struct nlmsghdr *nlh;

	if (r->nvia < 1 || r->nvia > KROUTE_VIAS_MAX) {
		snprintf(err, errlen, "a resilient group needs 1 to %d gateways", KROUTE_VIAS_MAX);
		return -1;
	}
	for (int i = 0; i < r->nvia; i++)
		if ((ids[i] = knh_gateway(k, r->vias[i])) == 0)
			return knh_fail(err, errlen, "nexthop");
	if (s == NULL) {
		if (k->nrt == KNH_MAX) {
			snprintf(err, errlen, "more than %d routes", KNH_MAX);
			return -1;
		}
		s = &k->rt[k->nrt++];
		memset(s, 0, sizeof(*s));
		s->prefix = r->prefix;
		s->prefixlen = r->prefixlen;
		s->metric = r->metric;
		s->gid = KNH_GROUP_BASE + ++k->next_gid;
	}
	/* the group again only when its gateways changed: the same set
	 * replaced would be the same buckets, but why ask */
	if (s->n != r->nvia || memcmp(s->members, ids, (size_t)r->nvia * sizeof(ids[0])) != 0) {
		if (knh_group(k, s->gid, ids, r->nvia) == -1) {
			if (s->n == 0)
				*s = k->rt[--k->nrt];
			return knh_fail(err, errlen, "nexthop group");
		}
		memcpy(s->members, ids, (size_t)r->nvia * sizeof(ids[0]));
		s->n = r->nvia;
	}
	/* the route each time: a refresh repairs one deleted behind our back */
	nlh = knh_rtmsg(k, buf, RTM_NEWROUTE, r);
	mnl_attr_put_u32(nlh, RTA_NH_ID, s->gid);
	if (knh_talk(k, nlh, NULL, NULL) == -1)
		return knh_fail(err, errlen, "route");
	return 0;
}

int knh_delete(struct knh *k, const struct kroute *r, char *err, size_t errlen)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct knh_route *s = knh_slot(k, r);
	int rc = 0;

	if (knh_talk(k, knh_rtmsg(k, buf, RTM_DELROUTE, r), NULL, NULL) == -1) {
		if (errno != ESRCH && errno != ENOENT)
			return knh_fail(err, errlen, "route");
		rc = 1;
	}
	if (s) {
		/* the group the route pointed at, now unused */
		if (knh_talk(k, knh_nhmsg(buf, RTM_DELNEXTHOP, s->gid, 1), NULL, NULL) == -1 &&
		    errno != ENOENT)
			log_warn("nexthop group %u", s->gid);
		*s = k->rt[--k->nrt];
	}
	return rc;
}
