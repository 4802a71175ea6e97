/*
 * ECMP over a resilient nexthop group (routed -E resilient): what
 * kroute.c does with kernel nexthop objects, through libmnl (libnl-route
 * 3.7 has no nexthop objects, and no RTA_NH_ID on a route).
 *
 * Every gateway is a nexthop object of its own (id KNH_GW_BASE + n, its
 * device the one the FIB reaches it by), and each route (prefix, metric) a
 * resilient group of KNH_BUCKETS buckets over its gateways (id
 * KNH_GROUP_BASE + n), the route pointing at the group (RTA_NH_ID). When
 * the set of gateways changes, the group is replaced in place: the kernel
 * hands a removed gateway's buckets to the others and leaves every other
 * bucket where it is, so only the flows of the gateway that left move
 * (RFC 2992's disruption, bounded). Its idle and unbalanced timers are the
 * kernel's defaults (120 s, 0: a gateway that comes back takes buckets
 * only as they fall idle).
 *
 * The objects carry protocol KROUTE_PROTO, as the routes do; they stay in
 * the kernel when routed exits (as its routes do) and leave with the
 * router's namespace.
 */
#ifndef STEERLAB_ROUTED_KNH_H
#define STEERLAB_ROUTED_KNH_H

#include <stddef.h>
#include <stdint.h>

#include "kroute.h"

#define KNH_GW_BASE 0x5e100000u
#define KNH_GROUP_BASE 0x5e200000u
#define KNH_BUCKETS 64
#define KNH_MAX 64 /* gateways, and routes */

struct knh;

/* knh_open: a netlink socket for table's routes. NULL (logged). */
struct knh *knh_open(uint32_t table);
void knh_close(struct knh *k);

/* knh_change: r (its vias, nvia >= 1) installed as a route to a resilient
 * group of them. 0, or -1 with the kernel's reason in err. */
int knh_change(struct knh *k, const struct kroute *r, char *err, size_t errlen);

/* knh_delete: r's route (prefix and metric, any metric with any_metric)
 * and its group deleted. 0, 1 if there was no such route, or -1 with the
 * kernel's reason in err. */
int knh_delete(struct knh *k, const struct kroute *r, char *err, size_t errlen);

#endif
