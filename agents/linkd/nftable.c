/* linkd's nftables table through libnftnl; see nftable.h. */
#include "nftable.h"

#include <errno.h>
#include <libmnl/libmnl.h>
#include <libnftnl/chain.h>
#include <libnftnl/common.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <libnftnl/table.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/xt_NFQUEUE.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "log.h"

#define NFTABLE_FAMILY NFPROTO_INET
#define NFTABLE_CHAIN "postrouting"
/* after source NAT (100): the delay line sees the packet as it leaves */
#define NFTABLE_PRIO 300
#define NFTABLE_BUF (64 * 1024)

struct nftable_batch {
	struct mnl_nlmsg_batch *b;
	uint32_t seq;
	int acks; /* messages that will be acknowledged */
	char buf[2 * NFTABLE_BUF];
};

static struct nlmsghdr *nftable_hdr(struct nftable_batch *nb, int type, uint16_t flags)
{
	nb->acks++;
	return nftnl_nlmsg_build_hdr(mnl_nlmsg_batch_current(nb->b), (uint16_t)type, NFTABLE_FAMILY,
				     flags | NLM_F_ACK, nb->seq++);
}

static struct nftnl_table *nftable_table(const char *name)
{
	struct nftnl_table *t = nftnl_table_alloc();

	if (t) {
		nftnl_table_set_u32(t, NFTNL_TABLE_FAMILY, NFTABLE_FAMILY);
		nftnl_table_set_str(t, NFTNL_TABLE_NAME, name);
	}
	return t;
}

/* nftable_add_table: NEWTABLE (or DELTABLE) of name into the batch */
static int nftable_add_table(struct nftable_batch *nb, const char *name, int type, uint16_t flags)
{
	struct nftnl_table *t = nftable_table(name);

	if (t == NULL)
		return -1;
	nftnl_table_nlmsg_build_payload(nftable_hdr(nb, type, flags), t);
	nftnl_table_free(t);
	mnl_nlmsg_batch_next(nb->b);
	return 0;
}

static int nftable_add_chain(struct nftable_batch *nb, const char *name)
{
	struct nftnl_chain *c = nftnl_chain_alloc();

	if (c == NULL)
		return -1;
	nftnl_chain_set_str(c, NFTNL_CHAIN_TABLE, name);
	nftnl_chain_set_str(c, NFTNL_CHAIN_NAME, NFTABLE_CHAIN);
	nftnl_chain_set_str(c, NFTNL_CHAIN_TYPE, "filter");
	nftnl_chain_set_u32(c, NFTNL_CHAIN_HOOKNUM, NF_INET_POST_ROUTING);
	nftnl_chain_set_s32(c, NFTNL_CHAIN_PRIO, NFTABLE_PRIO);
	nftnl_chain_nlmsg_build_payload(nftable_hdr(nb, NFT_MSG_NEWCHAIN, NLM_F_CREATE), c);
	nftnl_chain_free(c);
	mnl_nlmsg_batch_next(nb->b);
	return 0;
}

/* nftable_add_rule: oifname IF -> xt NFQUEUE num QUEUE */
static int nftable_add_rule(struct nftable_batch *nb, const char *name,
			    const struct nftable_rule *r)
{
	struct nftnl_rule *rule = nftnl_rule_alloc();
	struct nftnl_expr *meta = nftnl_expr_alloc("meta"), *cmp = nftnl_expr_alloc("cmp");
	struct nftnl_expr *tg = nftnl_expr_alloc("target");
	struct xt_NFQ_info_v3 *info = calloc(1, sizeof(*info));
	char ifname[IFNAMSIZ] = {0};

	if (rule == NULL || meta == NULL || cmp == NULL || tg == NULL || info == NULL) {
		free(info);
		if (meta)
			nftnl_expr_free(meta);
		if (cmp)
			nftnl_expr_free(cmp);
		if (tg)
			nftnl_expr_free(tg);
		if (rule)
			nftnl_rule_free(rule);
		return -1;
	}
	strncpy(ifname, r->ifname, sizeof(ifname) - 1);
	nftnl_rule_set_u32(rule, NFTNL_RULE_FAMILY, NFTABLE_FAMILY);
	nftnl_rule_set_str(rule, NFTNL_RULE_TABLE, name);
	nftnl_rule_set_str(rule, NFTNL_RULE_CHAIN, NFTABLE_CHAIN);
	nftnl_expr_set_u32(meta, NFTNL_EXPR_META_KEY, NFT_META_OIFNAME);
	nftnl_expr_set_u32(meta, NFTNL_EXPR_META_DREG, NFT_REG_1);
	nftnl_rule_add_expr(rule, meta);
	nftnl_expr_set_u32(cmp, NFTNL_EXPR_CMP_SREG, NFT_REG_1);
	nftnl_expr_set_u32(cmp, NFTNL_EXPR_CMP_OP, NFT_CMP_EQ);
	nftnl_expr_set(cmp, NFTNL_EXPR_CMP_DATA, ifname, sizeof(ifname));
	nftnl_rule_add_expr(rule, cmp);
	/* no bypass: without linkd the packets wait, and are dropped when the
	 * queue is unbound; linkd removes the table first */
	info->queuenum = r->queue;
	info->queues_total = 1;
	nftnl_expr_set_str(tg, NFTNL_EXPR_TG_NAME, "NFQUEUE");
	nftnl_expr_set_u32(tg, NFTNL_EXPR_TG_REV, 3);
	/* the expression takes info and frees it */
	nftnl_expr_set(tg, NFTNL_EXPR_TG_INFO, info, sizeof(*info));
	nftnl_rule_add_expr(rule, tg);
	nftnl_rule_nlmsg_build_payload(
	    nftable_hdr(nb, NFT_MSG_NEWRULE, NLM_F_CREATE | NLM_F_APPEND), rule);
	nftnl_rule_free(rule);
	mnl_nlmsg_batch_next(nb->b);
	return 0;
}

/* nftable_send: the batch, then its acknowledgements; -1 on the first error */
static int nftable_send(struct nftable_batch *nb, const char *what)
{
	struct mnl_socket *nl = mnl_socket_open(NETLINK_NETFILTER);
	struct timeval tv = {.tv_sec = 5};
	char rbuf[MNL_SOCKET_BUFFER_SIZE];
	int rc = -1, acked = 0;

	if (nl == NULL || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		log_warn("%s: %s: netlink", __func__, what);
		goto out;
	}
	setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (mnl_socket_sendto(nl, mnl_nlmsg_batch_head(nb->b), mnl_nlmsg_batch_size(nb->b)) < 0) {
		log_warn("%s: %s: sendto", __func__, what);
		goto out;
	}
	while (acked < nb->acks) {
		ssize_t n = mnl_socket_recvfrom(nl, rbuf, sizeof(rbuf));
		const struct nlmsghdr *nlh;
		int left;

		if (n < 0) {
			log_warn("%s: %s: waiting for the kernel's answer", __func__, what);
			goto out;
		}
		left = (int)n;
		for (nlh = (const struct nlmsghdr *)rbuf; mnl_nlmsg_ok(nlh, left);
		     nlh = mnl_nlmsg_next(nlh, &left)) {
			const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

			if (nlh->nlmsg_type != NLMSG_ERROR)
				continue;
			if (e->error) {
				errno = -e->error;
				log_warn("%s: %s", __func__, what);
				goto out;
			}
			acked++;
		}
	}
	rc = 0;
out:
	if (nl)
		mnl_socket_close(nl);
	return rc;
}

static struct nftable_batch *nftable_begin(void)
{
	struct nftable_batch *nb = calloc(1, sizeof(*nb));

	if (nb == NULL)
		return NULL;
	nb->seq = 1;
	nb->b = mnl_nlmsg_batch_start(nb->buf, NFTABLE_BUF);
	nftnl_batch_begin(mnl_nlmsg_batch_current(nb->b), nb->seq++);
	mnl_nlmsg_batch_next(nb->b);
	return nb;
}

static void nftable_end(struct nftable_batch *nb)
{
	nftnl_batch_end(mnl_nlmsg_batch_current(nb->b), nb->seq++);
	mnl_nlmsg_batch_next(nb->b);
}

static void nftable_free(struct nftable_batch *nb)
{
	if (nb) {
		mnl_nlmsg_batch_stop(nb->b);
		free(nb);
	}
}

int nftable_create(const char *name, const struct nftable_rule *rules, size_t n)
{
	struct nftable_batch *nb = nftable_begin();
	int rc = -1;

	if (nb == NULL) {
		log_warn("%s: calloc", __func__);
		return -1;
	}
	/* add, delete, add: a table left by a crashed linkd starts empty */
	if (nftable_add_table(nb, name, NFT_MSG_NEWTABLE, NLM_F_CREATE) == -1 ||
	    nftable_add_table(nb, name, NFT_MSG_DELTABLE, 0) == -1 ||
	    nftable_add_table(nb, name, NFT_MSG_NEWTABLE, NLM_F_CREATE) == -1 ||
	    nftable_add_chain(nb, name) == -1)
		goto nomem;
	for (size_t i = 0; i < n; i++)
		if (nftable_add_rule(nb, name, &rules[i]) == -1)
			goto nomem;
	nftable_end(nb);
	rc = nftable_send(nb, "creating the nftables table");
	goto out;
nomem:
	log_warnx("%s: out of memory", __func__);
out:
	nftable_free(nb);
	return rc;
}

int nftable_delete(const char *name)
{
	struct nftable_batch *nb = nftable_begin();
	int rc = -1;

	if (nb == NULL) {
		log_warn("%s: calloc", __func__);
		return -1;
	}
	if (nftable_add_table(nb, name, NFT_MSG_DELTABLE, 0) == 0) {
		nftable_end(nb);
		rc = nftable_send(nb, "removing the nftables table");
	}
	nftable_free(nb);
	return rc;
}
