/* routed's table of installed routes and its decisions; see rib.h. */
#include "rib.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"

void rib_init(struct rib *rib)
{
	rib->n = 0;
}

struct rib_entry *rib_find(struct rib *rib, const char *site, const struct in6_addr *prefix,
			   int prefixlen)
{
	for (size_t i = 0; i < rib->n; i++) {
		struct rib_entry *e = &rib->entries[i];
		if (IN6_ARE_ADDR_EQUAL(&e->prefix, prefix) && e->prefixlen == prefixlen &&
		    strcmp(e->site, site) == 0)
			return e;
	}
	return NULL;
}

static void rib_remove(struct rib *rib, struct rib_entry *e)
{
	*e = rib->entries[--rib->n];
}

/* the address order of next hops (an IPv4 one's mapped form sorts as it) */
static int rib_via_cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct in6_addr));
}

/* rib_kroute: into kr, the kernel's route of prefix/len at metric via
 * vias[0..n) (n 0: no gateway, a delete of any; n 1 and !multi: via,
 * else the multipath vias), in the prefix's family */
static void rib_kroute(const struct in6_addr *prefix, int len, unsigned metric,
		       const struct in6_addr *vias, int n, int multi, struct kroute *kr)
{
	int v6 = !addr_is4(prefix);

	memset(kr, 0, sizeof(*kr));
	kr->family = v6 ? AF_INET6 : 0;
	kr->prefixlen = len;
	kr->metric = metric;
	if (v6)
		kr->prefix6 = *prefix;
	else
		kr->prefix = addr_unmap4(prefix);
	if (n > 0 && v6)
		kr->via6 = vias[0];
	else if (n > 0)
		kr->via = addr_unmap4(&vias[0]);
	if (!multi)
		return;
	kr->nvia = n;
	for (int i = 0; i < n; i++) {
		if (v6)
			kr->vias6[i] = vias[i];
		else
			kr->vias[i] = addr_unmap4(&vias[i]);
	}
}

/* rib_group: into kr, ECMP's route of prefix/len at metric: the next hops
 * of every entry there but skip (NULL: none), and add (NULL: none), each
 * once, in address order. How many. */
static int rib_group(const struct rib *rib, const struct in6_addr *prefix, int len, unsigned metric,
		     const struct rib_entry *skip, const struct in6_addr *add, struct kroute *kr)
{
	struct in6_addr vias[KROUTE_VIAS_MAX];
	int n = 0;

	if (add)
		vias[n++] = *add;
	for (size_t i = 0; i < rib->n; i++) {
		const struct rib_entry *e = &rib->entries[i];
		int k;

		if (e == skip || !IN6_ARE_ADDR_EQUAL(&e->prefix, prefix) || e->prefixlen != len ||
		    e->metric != metric)
			continue;
		for (k = 0; k < n && !IN6_ARE_ADDR_EQUAL(&vias[k], &e->via); k++)
			;
		if (k == n && n < KROUTE_VIAS_MAX)
			vias[n++] = e->via;
	}
	qsort(vias, (size_t)n, sizeof(vias[0]), rib_via_cmp);
	rib_kroute(prefix, len, metric, vias, n, 1, kr);
	return n;
}

/* rib_group_set: kr (rib_group's) in the kernel: installed, or deleted
 * when it has no next hop left. 0, 1 if there was nothing to delete, -1
 * with the kernel's reason in err. */
static int rib_group_set(const struct rib_kernel *k, const struct kroute *kr, char *err,
			 size_t errlen)
{
	if (kr->nvia > 0)
		return k->change(k->ctx, kr, err, errlen);
	return k->remove(k->ctx, kr, err, errlen);
}

/* rib_drop: entry e's route out of the kernel: deleted, or with ECMP its
 * prefix's route at e's metric installed again without e's next hop (or
 * deleted if it was the last). remove()'s 0, 1 or -1. */
static int rib_drop(const struct rib *rib, const struct rib_kernel *k, const struct rib_entry *e,
		    char *err, size_t errlen)
{
	struct kroute old;

	if (rib->ecmp) {
		rib_group(rib, &e->prefix, e->prefixlen, e->metric, e, NULL, &old);
		return rib_group_set(k, &old, err, errlen);
	}
	rib_kroute(&e->prefix, e->prefixlen, e->metric, &e->via, 1, 0, &old);
	return k->remove(k->ctx, &old, err, errlen);
}

/* rib_holds: whether some entry holds prefix/len */
static int rib_holds(const struct rib *rib, const struct in6_addr *prefix, int len)
{
	for (size_t i = 0; i < rib->n; i++)
		if (IN6_ARE_ADDR_EQUAL(&rib->entries[i].prefix, prefix) &&
		    rib->entries[i].prefixlen == len)
			return 1;
	return 0;
}

/* rib_nexthop_bad: why src is no next hop for prefix, or NULL */
static const char *rib_nexthop_bad(const struct in6_addr *prefix, const struct in6_addr *src)
{
	if (addr_is4(src) != addr_is4(prefix))
		return "not of the prefix's family";
	if (addr_is4(src)) {
		uint32_t a = ntohl(addr_unmap4(src).s_addr);

		return (a >> 24) == 127 || a == INADDR_ANY ? "not usable" : NULL;
	}
	return IN6_IS_ADDR_LOOPBACK(src) || IN6_IS_ADDR_UNSPECIFIED(src) ? "not usable" : NULL;
}

static void rib_announce(struct rib *rib, const struct rib_kernel *k, const struct announce_msg *m,
			 const struct in6_addr *src, int64_t now_ns, struct rib_result *res)
{
	struct rib_entry *e = rib_find(rib, m->site, &m->prefix, m->prefixlen);
	struct kroute want;
	const char *bad = rib_nexthop_bad(&m->prefix, src);
	char a[INET6_ADDRSTRLEN];

	/* the kernel takes a loopback gateway, and loops the traffic */
	if (bad) {
		res->outcome = RIB_ERROR;
		snprintf(res->error, sizeof(res->error), "next hop %s is %s",
			 addr_ip_str(src, a, sizeof(a)), bad);
		return;
	}
	if (e == NULL && rib->n == RIB_MAX) {
		res->outcome = RIB_ERROR;
		snprintf(res->error, sizeof(res->error), "table full (%d routes)", RIB_MAX);
		return;
	}
	if (rib->ecmp)
		rib_group(rib, &m->prefix, m->prefixlen, m->metric, e, src, &want);
	else
		rib_kroute(&m->prefix, m->prefixlen, m->metric, src, 1, 0, &want);
	if (k->change(k->ctx, &want, res->error, sizeof(res->error)) == -1) {
		res->outcome = RIB_ERROR;
		return;
	}
	if (e && IN6_ARE_ADDR_EQUAL(&e->via, src) && e->metric == m->metric) {
		e->last_ns = now_ns;
		res->outcome = RIB_UNCHANGED;
		return;
	}
	if (e && e->metric != m->metric) {
		/* another metric is another kernel route: take the old one out */
		char err[128];

		(void)rib_drop(rib, k, e, err, sizeof(err));
	}
	if (e == NULL) {
		e = &rib->entries[rib->n++];
		memset(e, 0, sizeof(*e));
		strcpy(e->site, m->site);
		e->prefix = m->prefix;
		e->prefixlen = m->prefixlen;
	}
	e->via = *src;
	e->metric = m->metric;
	e->last_ns = now_ns;
	res->outcome = RIB_APPLIED;
}

static void rib_withdraw(struct rib *rib, const struct rib_kernel *k, const struct announce_msg *m,
			 const struct in6_addr *src, struct rib_result *res)
{
	struct rib_entry *e = rib_find(rib, m->site, &m->prefix, m->prefixlen);
	struct kroute old;
	int rc;

	/* unknown: whatever route of ours the sender left, at any metric */
	rib_kroute(&m->prefix, m->prefixlen, 0, src, 1, 0, &old);
	old.any_metric = 1;
	res->via = e ? e->via : *src;
	res->metric = e ? e->metric : 0;
	if (e)
		rc = rib_drop(rib, k, e, res->error, sizeof(res->error));
	else if (rib->ecmp && rib_holds(rib, &m->prefix, m->prefixlen))
		rc = 1; /* other sites' route: not this unknown one's to delete */
	else if (addr_is4(src) != addr_is4(&m->prefix))
		rc = 1; /* never installed: no next hop of the other family */
	else
		rc = k->remove(k->ctx, &old, res->error, sizeof(res->error));
	if (rc == -1) {
		/* keep the entry: the next refresh of the withdrawal retries */
		res->outcome = RIB_ERROR;
		return;
	}
	if (e)
		rib_remove(rib, e);
	res->outcome = rc == 0 ? RIB_WITHDRAWN : RIB_UNCHANGED;
}

void rib_apply(struct rib *rib, const struct rib_kernel *k, const struct announce_msg *m,
	       const struct in6_addr *src, int64_t now_ns, struct rib_result *res)
{
	memset(res, 0, sizeof(*res));
	res->via = *src;
	res->metric = m->metric;
	if (m->withdraw)
		rib_withdraw(rib, k, m, src, res);
	else
		rib_announce(rib, k, m, src, now_ns, res);
}

size_t rib_expire(struct rib *rib, const struct rib_kernel *k, int64_t now_ns, int64_t hold_ns,
		  rib_expire_cb cb, void *arg)
{
	size_t gone = 0, i = 0;

	if (hold_ns <= 0)
		return 0;
	while (i < rib->n) {
		struct rib_entry e = rib->entries[i];
		struct rib_result res;
		int rc;

		if (now_ns - e.last_ns <= hold_ns) {
			i++;
			continue;
		}
		memset(&res, 0, sizeof(res));
		res.via = e.via;
		res.metric = e.metric;
		rc = rib_drop(rib, k, &rib->entries[i], res.error, sizeof(res.error));
		if (rc == -1) {
			res.outcome = RIB_ERROR;
			i++; /* kept: tried again at the next check */
		} else {
			res.outcome = rc == 0 ? RIB_WITHDRAWN : RIB_UNCHANGED;
			rib_remove(rib, &rib->entries[i]); /* the last one moves to i */
			gone++;
		}
		if (cb)
			cb(arg, &e, &res);
	}
	return gone;
}
