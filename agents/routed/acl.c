/* Who may announce what to routed; see acl.h. */
#include "acl.h"

#include "addr.h"
#include "strtonum.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

/* the characters of a site name (docs/agents.md) */
#define ROUTED_SITE_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"

/* routed_acl_route_opts: "ADDR[,via=NEXTHOP][,hops=N]" into s */
static int routed_acl_route_opts(struct routed_sender *s, const char *arg)
{
	char buf[160], *save, *w;
	int first = 1, seen_via = 0, seen_hops = 0;

	if (strlen(arg) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%s", arg);
	if (buf[0] == '\0' || buf[strlen(buf) - 1] == ',')
		return -1;
	for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save), first = 0) {
		if (first) {
			if (addr_ip_parse(w, &s->addr) == -1)
				return -1;
		} else if (strncmp(w, "via=", 4) == 0 && !seen_via++) {
			if (addr_ip_parse(w + 4, &s->via) == -1 ||
			    addr_is4(&s->via) != addr_is4(&s->addr) ||
			    (addr_is4(&s->via) ? addr_unmap4(&s->via).s_addr == 0
					       : IN6_IS_ADDR_UNSPECIFIED(&s->via)))
				return -1;
			s->has_via = 1;
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
	if (!eq && addr_ip_parse(a, &s->addr) == -1)
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
	if (announce_prefix_parse(arg, &p->prefix, &p->prefixlen) == -1)
		return -1;
	acl->nprefixes++;
	return 0;
}

/* routed_acl_sender_ok: whether src may speak for site */
static int routed_acl_sender_ok(const struct routed_acl *acl, const char *site,
				const struct in6_addr *src, char *reason, size_t len)
{
	int known = 0;

	if (!acl->senders_set)
		return 1;
	for (int i = 0; i < acl->nsenders; i++) {
		const struct routed_sender *s = &acl->senders[i];

		if (!IN6_ARE_ADDR_EQUAL(&s->addr, src))
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

int routed_acl_check(const struct routed_acl *acl, const struct announce_msg *m,
		     const struct in6_addr *src, char *reason, size_t len)
{
	char prefix[ANNOUNCE_PREFIX_STRLEN];

	if (!routed_acl_sender_ok(acl, m->site, src, reason, len))
		return -1;
	if (acl->nprefixes == 0)
		return 0;
	for (int i = 0; i < acl->nprefixes; i++)
		if (IN6_ARE_ADDR_EQUAL(&acl->prefixes[i].prefix, &m->prefix) &&
		    acl->prefixes[i].prefixlen == m->prefixlen)
			return 0;
	snprintf(reason, len, "prefix %s not allowed",
		 announce_prefix_str(&m->prefix, m->prefixlen, prefix, sizeof(prefix)));
	return -1;
}

int routed_acl_route(const struct routed_acl *acl, const char *site, const struct in6_addr *src,
		     unsigned metric, struct in6_addr *via, unsigned *out, char *reason, size_t len)
{
	*via = *src;
	*out = metric;
	for (int i = 0; i < acl->nsenders; i++) {
		const struct routed_sender *s = &acl->senders[i];
		unsigned long long m;

		if (!IN6_ARE_ADDR_EQUAL(&s->addr, src) ||
		    (s->site[0] && strcmp(s->site, site) != 0))
			continue;
		m = (unsigned long long)s->hops * ROUTED_HOPS_METRIC + metric;
		if (m > 0xFFFFFFFFull) {
			snprintf(reason, len,
				 "metric %u of site %s, %u hops away, does not fit (at most %u)",
				 metric, site, s->hops, ROUTED_HOPS_METRIC - 1);
			return -1;
		}
		if (s->has_via)
			*via = s->via;
		*out = (unsigned)m;
		return 0;
	}
	return 0;
}
