/* The IPv6 twins of IPv4 routes; see twin.h. */
#include "twin.h"

#include <string.h>

#include "addr.h"

int twin_add(struct twins *tw, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char left[64];
	struct addr_prefix a, b;
	struct twin *t;

	if (eq == NULL || (size_t)(eq - arg) >= sizeof(left) || tw->n == TWIN_MAX)
		return -1;
	memcpy(left, arg, (size_t)(eq - arg));
	left[eq - arg] = '\0';
	if (addr_parse_prefix(left, &a) == -1 || addr_parse_prefix(eq + 1, &b) == -1 ||
	    a.family != AF_INET || b.family != AF_INET6)
		return -1;
	/* both prefixes or both addresses */
	if ((strchr(left, '/') == NULL) != (strchr(eq + 1, '/') == NULL))
		return -1;
	t = &tw->t[tw->n++];
	memcpy(&t->v4, a.addr, 4);
	memcpy(&t->v6, b.addr, 16);
	t->len4 = strchr(left, '/') ? a.len : -1;
	t->len6 = b.len;
	return 0;
}

/* twin_of: the twin of v4 (a prefix of len4, or a next hop: -1), or NULL */
static const struct twin *twin_of(const struct twins *tw, struct in_addr v4, int len4)
{
	for (int i = 0; i < tw->n; i++)
		if (tw->t[i].v4.s_addr == v4.s_addr && tw->t[i].len4 == len4)
			return &tw->t[i];
	return NULL;
}

int twin_route(const struct twins *tw, const struct kroute *r, struct kroute *r6)
{
	const struct twin *p = twin_of(tw, r->prefix, r->prefixlen), *h;

	if (p == NULL)
		return 0;
	*r6 = *r;
	r6->family = AF_INET6;
	r6->prefix6 = p->v6;
	r6->prefixlen = p->len6;
	memset(&r6->via6, 0, sizeof(r6->via6));
	if (r->via.s_addr) {
		if ((h = twin_of(tw, r->via, -1)) == NULL)
			return -1;
		r6->via6 = h->v6;
	}
	for (int i = 0; i < r->nvia; i++) {
		if ((h = twin_of(tw, r->vias[i], -1)) == NULL)
			return -1;
		r6->vias6[i] = h->v6;
	}
	return 1;
}
