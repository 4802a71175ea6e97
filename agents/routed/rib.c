/* routed's table of installed routes and its decisions; see rib.h. */
#include "rib.h"

#include <arpa/inet.h>
#include <stdio.h>
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
		struct kroute old = {.prefix = e->prefix,
				     .prefixlen = e->prefixlen,
				     .via = e->via,
				     .metric = e->metric};
		char err[128];

		(void)k->remove(k->ctx, &old, err, sizeof(err));
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
		struct kroute old = {
		    .prefix = e.prefix, .prefixlen = e.prefixlen, .via = e.via, .metric = e.metric};
		struct rib_result res;
		int rc;

		if (now_ns - e.last_ns <= hold_ns) {
			i++;
			continue;
		}
		memset(&res, 0, sizeof(res));
		res.via = e.via;
		res.metric = e.metric;
		rc = k->remove(k->ctx, &old, res.error, sizeof(res.error));
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
