/*
 * What routed has installed, and what an announcement changes.
 *
 * One entry per (site, prefix): the next hop (the announcing datagram's
 * source) and the metric. rib_apply() turns one message into kernel calls
 * through a small table of function pointers (BIRD style), so the
 * decisions are unit-tested against a fake kernel:
 *
 *   ANNOUNCE, new or changed  -> change(prefix via src metric); if the
 *                                metric moved, delete the old route
 *   ANNOUNCE, same as before  -> change() again (idempotent in the kernel,
 *                                repairs a route deleted behind our back),
 *                                reported as unchanged
 *   WITHDRAW, known           -> delete(prefix via old-via metric)
 *   WITHDRAW, unknown         -> delete(prefix via src, any metric): a route
 *                                a previous routed left behind
 *
 * An announcement from a loopback or unspecified source is refused: it is
 * not a next hop (the kernel would accept it and loop the traffic).
 *
 * Prefixes and next hops are of either family, as lib/addr.h's one struct
 * in6_addr (IPv4 ones mapped): an IPv4 prefix's route is installed as an
 * IPv4 kroute, an IPv6 prefix's as an IPv6 one (kroute.family AF_INET6,
 * its prefix6 and via6/vias6), each via next hops of its own family only
 * (a next hop of the other family is refused: the lab has no RFC 5549).
 *
 * Every entry keeps the time of its last announcement the kernel took.
 * rib_expire() is the hold timer (BGP's, RFC 4271 6.5, for a protocol
 * without sessions): an entry not announced again within the hold time is
 * deleted as a WITHDRAW deletes it, so that a site that went silent
 * (crashed, frozen, cut off) loses its route; an announcement after that
 * installs it again, as a new one.
 *
 * Two sites announcing one prefix at the same metric share one kernel slot
 * (an IPv4 route is keyed by prefix and metric): the later announcement
 * wins it. With ECMP (rib->ecmp, routed -E), they share it as next hops:
 * every change of the sites at a prefix and metric installs the whole set
 * again (change() with kroute.vias, in address order, the same set a
 * refresh), and the last one's withdrawal deletes the route (remove()
 * with no gateway); a withdrawal of a site the table does not know leaves
 * a prefix other sites hold alone.
 */
#ifndef STEERLAB_ROUTED_RIB_H
#define STEERLAB_ROUTED_RIB_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#include "announce.h"
#include "kroute.h"

#define RIB_MAX 1024

struct rib_kernel {
	int (*change)(void *ctx, const struct kroute *r, char *err, size_t errlen);
	int (*remove)(void *ctx, const struct kroute *r, char *err, size_t errlen);
	void *ctx;
};

struct rib_entry {
	char site[sizeof(((struct announce_msg *)0)->site)];
	struct in6_addr prefix; /* announce_msg's form */
	int prefixlen;
	struct in6_addr via;
	unsigned metric;
	int64_t last_ns; /* the last announcement taken, CLOCK_MONOTONIC */
};

struct rib {
	struct rib_entry entries[RIB_MAX];
	size_t n;
	int ecmp; /* the sites of a prefix and metric share its route (kroute.h) */
};

enum rib_outcome {
	RIB_UNCHANGED, /* a refresh, or a withdrawal of nothing */
	RIB_APPLIED,   /* a route installed or changed */
	RIB_WITHDRAWN, /* a route deleted */
	RIB_ERROR,     /* the kernel refused; see error */
};

struct rib_result {
	enum rib_outcome outcome;
	struct in6_addr via; /* the route's next hop */
	unsigned metric;
	char error[128];
};

void rib_init(struct rib *rib);

/* rib_find: the entry of (site, prefix), or NULL. */
struct rib_entry *rib_find(struct rib *rib, const char *site, const struct in6_addr *prefix,
			   int prefixlen);

/* rib_apply: applies m, received from src at now_ns, to the kernel and the
 * table. */
void rib_apply(struct rib *rib, const struct rib_kernel *k, const struct announce_msg *m,
	       const struct in6_addr *src, int64_t now_ns, struct rib_result *res);

/* rib_expire_cb: entry e (a copy: it has left the table unless res says
 * RIB_ERROR) was silent longer than the hold time; res is the deletion's
 * outcome: RIB_WITHDRAWN, RIB_UNCHANGED (the kernel no longer had it, e.g.
 * its link went down) or RIB_ERROR (the kernel refused: the entry stays and
 * the next check tries again). */
typedef void (*rib_expire_cb)(void *arg, const struct rib_entry *e, const struct rib_result *res);

/* rib_expire: deletes every entry whose last announcement is more than
 * hold_ns before now_ns, calling cb (may be NULL) for each. hold_ns 0:
 * nothing ever expires. The number of entries that left the table. */
size_t rib_expire(struct rib *rib, const struct rib_kernel *k, int64_t now_ns, int64_t hold_ns,
		  rib_expire_cb cb, void *arg);

#endif
