/* routed's table of installed routes and its decisions; see rib.h. */
#include "rib.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rib_init(struct rib *rib)
{
	rib->n = 0;
}

struct rib_entry *rib_find(struct rib *rib, const char *site, struct in_addr prefix, int prefixlen)
{
	for (size_t i = 0; i < rib->n; i++) {
		struct rib_entry *e = &rib->entries[i];
		if (e->prefix.s_addr == prefix.s_addr && e->prefixlen == prefixlen &&
		    strcmp(e->site, site) == 0)
			return e;
	}
	return NULL;
}

static void rib_remove(struct rib *rib, struct rib_entry *e)
{
	*e = rib->entries[--rib->n];
}

static int rib_via_cmp(const void *a, const void *b)
{
	uint32_t x = ntohl(((const struct in_addr *)a)->s_addr);
	uint32_t y = ntohl(((const struct in_addr *)b)->s_addr);

	return (x > y) - (x < y);
}

/* rib_group: into kr, ECMP's route of prefix/len at metric: the next hops
 * of every entry there but skip (NULL: none), and add (0.0.0.0: none),
 * each once, in address order. How many. */
static int rib_group(const struct rib *rib, struct in_addr prefix, int len, unsigned metric,
		     const struct rib_entry *skip, struct in_addr add, struct kroute *kr)
{
	memset(kr, 0, sizeof(*kr));
	kr->prefix = prefix;
	kr->prefixlen = len;
	kr->metric = metric;
	if (add.s_addr != 0)
		kr->vias[kr->nvia++] = add;
	for (size_t i = 0; i < rib->n; i++) {
		const struct rib_entry *e = &rib->entries[i];
		int k;

		if (e == skip || e->prefix.s_addr != prefix.s_addr || e->prefixlen != len ||
		    e->metric != metric)
			continue;
		for (k = 0; k < kr->nvia && kr->vias[k].s_addr != e->via.s_addr; k++)
			;
		if (k == kr->nvia && kr->nvia < KROUTE_VIAS_MAX)
			kr->vias[kr->nvia++] = e->via;
	}
	qsort(kr->vias, (size_t)kr->nvia, sizeof(kr->vias[0]), rib_via_cmp);
	kr->via = kr->nvia ? kr->vias[0] : (struct in_addr){0};
	return kr->nvia;
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
	struct kroute old = {
	    .prefix = e->prefix, .prefixlen = e->prefixlen, .via = e->via, .metric = e->metric};

	if (rib->ecmp) {
		rib_group(rib, e->prefix, e->prefixlen, e->metric, e, (struct in_addr){0}, &old);
		return rib_group_set(k, &old, err, errlen);
	}
	return k->remove(k->ctx, &old, err, errlen);
}

/* rib_holds: whether some entry holds prefix/len */
static int rib_holds(const struct rib *rib, struct in_addr prefix, int len)
{
	for (size_t i = 0; i < rib->n; i++)
		if (rib->entries[i].prefix.s_addr == prefix.s_addr &&
		    rib->entries[i].prefixlen == len)
			return 1;
	return 0;
}

static void rib_announce(struct rib *rib, const struct rib_kernel *k, const struct announce_msg *m,
			 struct in_addr src, int64_t now_ns, struct rib_result *res)
{
	struct rib_entry *e = rib_find(rib, m->site, m->prefix, m->prefixlen);
	struct kroute want = {
	    .prefix = m->prefix, .prefixlen = m->prefixlen, .via = src, .metric = m->metric};

	/* the kernel takes a loopback gateway, and loops the traffic */
	if ((ntohl(src.s_addr) >> 24) == 127 || src.s_addr == htonl(INADDR_ANY)) {
		res->outcome = RIB_ERROR;
		snprintf(res->error, sizeof(res->error), "next hop %s is not usable",
			 inet_ntoa(src));
		return;
	}
	if (e == NULL && rib->n == RIB_MAX) {
		res->outcome = RIB_ERROR;
		snprintf(res->error, sizeof(res->error), "table full (%d routes)", RIB_MAX);
		return;
	}
	if (rib->ecmp)
		rib_group(rib, m->prefix, m->prefixlen, m->metric, e, src, &want);
	if (k->change(k->ctx, &want, res->error, sizeof(res->error)) == -1) {
		res->outcome = RIB_ERROR;
		return;
	}
	if (e && e->via.s_addr == src.s_addr && e->metric == m->metric) {
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
	e->via = src;
	e->metric = m->metric;
	e->last_ns = now_ns;
	res->outcome = RIB_APPLIED;
}

static void rib_withdraw(struct rib *rib, const struct rib_kernel *k, const struct announce_msg *m,
			 struct in_addr src, struct rib_result *res)
{
	struct rib_entry *e = rib_find(rib, m->site, m->prefix, m->prefixlen);
	struct kroute old = {
	    .prefix = m->prefix, .prefixlen = m->prefixlen, .via = src, .any_metric = 1};
	int rc;

	if (e) {
		old.via = e->via;
		old.metric = e->metric;
		old.any_metric = 0;
	}
	res->via = old.via;
	res->metric = old.metric;
	if (e)
		rc = rib_drop(rib, k, e, res->error, sizeof(res->error));
	else if (rib->ecmp && rib_holds(rib, m->prefix, m->prefixlen))
		rc = 1; /* other sites' route: not this unknown one's to delete */
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
	       struct in_addr src, int64_t now_ns, struct rib_result *res)
{
	memset(res, 0, sizeof(*res));
	res->via = src;
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
