/*
 * linkd's nftables table, through libnftnl: one table of its own in the
 * namespace, a chain on the postrouting hook, one rule per impaired
 * interface sending its egress packets to that interface's queue.
 *
 * The rule's verdict is the xtables NFQUEUE target (nft_compat), not nft's
 * own `queue` statement: kernels built without nft_queue (this one and CI's)
 * have the target, as iptables-nft uses it. The table is replaced if a
 * crashed linkd left it, and removed on exit.
 */
#ifndef STEERLAB_LINKD_NFTABLE_H
#define STEERLAB_LINKD_NFTABLE_H

#include <stddef.h>
#include <stdint.h>

struct nftable_rule {
	const char *ifname;
	uint16_t queue;
};

/* nftable_create: the table name (family inet) with one rule per entry of
 * rules. 0, or -1 logged. */
int nftable_create(const char *name, const struct nftable_rule *rules, size_t n);
/* nftable_delete: removes the table name. 0, or -1 logged. */
int nftable_delete(const char *name);

#endif
