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
 * Two sites announcing one prefix at the same metric share one kernel slot
 * (an IPv4 route is keyed by prefix and metric): the later announcement
 * wins it.
 */
#ifndef STEERLAB_ROUTED_RIB_H
#define STEERLAB_ROUTED_RIB_H

#include <netinet/in.h>
#include <stddef.h>

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
	struct in_addr prefix;
	int prefixlen;
	struct in_addr via;
	unsigned metric;
};

struct rib {
	struct rib_entry entries[RIB_MAX];
	size_t n;
};

enum rib_outcome {
	RIB_UNCHANGED, /* a refresh, or a withdrawal of nothing */
	RIB_APPLIED,   /* a route installed or changed */
	RIB_WITHDRAWN, /* a route deleted */
	RIB_ERROR,     /* the kernel refused; see error */
};

struct rib_result {
	enum rib_outcome outcome;
	struct in_addr via; /* the route's next hop */
	unsigned metric;
	char error[128];
};

void rib_init(struct rib *rib);

/* rib_find: the entry of (site, prefix), or NULL. */
struct rib_entry *rib_find(struct rib *rib, const char *site, struct in_addr prefix, int prefixlen);

/* rib_apply: applies m, received from src, to the kernel and the table. */
void rib_apply(struct rib *rib, const struct rib_kernel *k, const struct announce_msg *m,
	       struct in_addr src, struct rib_result *res);

#endif
