/* Who may announce what to routed; see acl.h. */
#include "acl.h"

#include "strtonum.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

/* the characters of a site name (docs/agents.md) */
#define ROUTED_SITE_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"

/* routed_acl_route_opts: "ADDR[,via=NEXTHOP][,hops=N]" into s */
static int routed_acl_route_opts(struct routed_sender *s, const char *arg)
{
	char buf[96], *save, *w;
	int first = 1, seen_via = 0, seen_hops = 0;

	if (strlen(arg) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%s", arg);
	if (buf[0] == '\0' || buf[strlen(buf) - 1] == ',')
		return -1;
	for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save), first = 0) {
		if (first) {
			if (inet_pton(AF_INET, w, &s->addr) != 1)
				return -1;
		} else if (strncmp(w, "via=", 4) == 0 && !seen_via++) {
			if (inet_pton(AF_INET, w + 4, &s->via) != 1 || s->via.s_addr == 0)
				return -1;
		} else if (strncmp(w, "hops=", 5) == 0 && !seen_hops++) {
			const char *errstr;
			long long v = strtonum(w + 5, 0, 255, &errstr);

			if (errstr || w[5] < '0' || w[5] > '9')
				return -1;
			s->hops = (unsigned)v;
		} else {
			return -1;
		}
	}
	return 0;
}

int routed_acl_add_sender(struct routed_acl *acl, const char *arg)
{
	struct routed_sender *s;
	const char *eq = strchr(arg, '='), *a = eq ? eq + 1 : arg;
	size_t slen = eq ? (size_t)(eq - arg) : 0;

	acl->senders_set = 1;
	if (strcmp(arg, "none") == 0)
		return 0;
	if (acl->nsenders == ROUTED_ACL_MAX)
		return -1;
	s = &acl->senders[acl->nsenders];
	memset(s, 0, sizeof(*s));
	if (eq && (slen == 0 || slen > 16 || strspn(arg, ROUTED_SITE_CHARS) != slen))
		return -1;
	if (eq && routed_acl_route_opts(s, a) == -1)
		return -1;
	if (!eq && inet_pton(AF_INET, a, &s->addr) != 1)
		return -1;
	memcpy(s->site, arg, slen);
	acl->nsenders++;
	return 0;
}

int routed_acl_add_prefix(struct routed_acl *acl, const char *arg)
{
	struct routed_prefix *p;

	if (acl->nprefixes == ROUTED_ACL_MAX)
		return -1;
	p = &acl->prefixes[acl->nprefixes];
	if (parse_prefix(arg, &p->prefix, &p->prefixlen) == -1)
		return -1;
	acl->nprefixes++;
	return 0;
}

/* routed_acl_sender_ok: whether src may speak for site */
static int routed_acl_sender_ok(const struct routed_acl *acl, const char *site, struct in_addr src,
				char *reason, size_t len)
{
	int known = 0;

	if (!acl->senders_set)
		return 1;
	for (int i = 0; i < acl->nsenders; i++) {
		const struct routed_sender *s = &acl->senders[i];

		if (s->addr.s_addr != src.s_addr)
			continue;
		if (s->site[0] == '\0' || strcmp(s->site, site) == 0)
			return 1;
		known = 1;
	}
	if (known)
		snprintf(reason, len, "site %s not allowed from this sender", site);
	else
		snprintf(reason, len, "sender not allowed");
	return 0;
}

int routed_acl_check(const struct routed_acl *acl, const struct announce_msg *m, struct in_addr src,
		     char *reason, size_t len)
{
	char addr[INET_ADDRSTRLEN];

	if (!routed_acl_sender_ok(acl, m->site, src, reason, len))
		return -1;
	if (acl->nprefixes == 0)
		return 0;
	for (int i = 0; i < acl->nprefixes; i++)
		if (acl->prefixes[i].prefix.s_addr == m->prefix.s_addr &&
		    acl->prefixes[i].prefixlen == m->prefixlen)
			return 0;
	inet_ntop(AF_INET, &m->prefix, addr, sizeof(addr));
	snprintf(reason, len, "prefix %s/%d not allowed", addr, m->prefixlen);
	return -1;
}

int routed_acl_route(const struct routed_acl *acl, const char *site, struct in_addr src,
		     unsigned metric, struct in_addr *via, unsigned *out, char *reason, size_t len)
{
	*via = src;
	*out = metric;
	for (int i = 0; i < acl->nsenders; i++) {
		const struct routed_sender *s = &acl->senders[i];
		unsigned long long m;

		if (s->addr.s_addr != src.s_addr || (s->site[0] && strcmp(s->site, site) != 0))
			continue;
		m = (unsigned long long)s->hops * ROUTED_HOPS_METRIC + metric;
		if (m > 0xFFFFFFFFull) {
			snprintf(reason, len,
				 "metric %u of site %s, %u hops away, does not fit (at most %u)",
				 metric, site, s->hops, ROUTED_HOPS_METRIC - 1);
			return -1;
		}
		if (s->via.s_addr)
			*via = s->via;
		*out = (unsigned)m;
		return 0;
	}
	return 0;
}
