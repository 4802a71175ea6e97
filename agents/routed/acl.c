/* Who may announce what to routed; see acl.h. */
#include "acl.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

/* the characters of a site name (docs/agents.md) */
#define ROUTED_SITE_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"

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
	if (inet_pton(AF_INET, a, &s->addr) != 1)
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
