/* Which sources may send health reports, under which prober ids, and zone
 * changes; see allow.h. */
#include "allow.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "health_report.h"

/* authd_allow_addr: from's address as (family, 16 bytes), a v4-mapped v6
 * address as v4. */
static int authd_allow_addr(const struct sockaddr_storage *from, unsigned char addr[16])
{
	memset(addr, 0, 16);
	if (from->ss_family == AF_INET) {
		memcpy(addr, &((const struct sockaddr_in *)from)->sin_addr, 4);
		return AF_INET;
	}
	if (from->ss_family == AF_INET6) {
		const struct in6_addr *a6 = &((const struct sockaddr_in6 *)from)->sin6_addr;

		if (IN6_IS_ADDR_V4MAPPED(a6)) {
			memcpy(addr, a6->s6_addr + 12, 4);
			return AF_INET;
		}
		memcpy(addr, a6, 16);
		return AF_INET6;
	}
	return -1;
}

const char *authd_allow_addr_str(const struct sockaddr_storage *from, char *buf, size_t len)
{
	unsigned char addr[16];
	int family = authd_allow_addr(from, addr);

	if (family == -1 || inet_ntop(family, addr, buf, (socklen_t)len) == NULL)
		snprintf(buf, len, "(unknown)");
	return buf;
}

int authd_allow_add(struct authd_allow *a, const char *arg)
{
	struct authd_sender *s;
	const char *eq = strchr(arg, '='), *addr = eq ? eq + 1 : arg;
	size_t idlen = eq ? (size_t)(eq - arg) : 0;

	a->set = 1;
	if (strcmp(arg, "none") == 0)
		return 0;
	if (a->n == AUTHD_MAX_PROBERS || (eq && idlen > AUTHD_PROBER_LEN))
		return -1;
	s = &a->senders[a->n];
	memset(s, 0, sizeof(*s));
	if (eq) {
		memcpy(s->id, arg, idlen);
		if (!health_id_ok(s->id, AUTHD_PROBER_LEN))
			return -1;
		s->id_given = 1;
	}
	if (inet_pton(AF_INET, addr, s->addr) == 1)
		s->family = AF_INET;
	else if (inet_pton(AF_INET6, addr, s->addr) == 1)
		s->family = AF_INET6;
	else
		return -1;
	a->n++;
	return 0;
}

static int authd_allow_in(char *const *ids, int n, const char *id)
{
	for (int i = 0; i < n; i++)
		if (strcmp(ids[i], id) == 0)
			return 1;
	return 0;
}

int authd_allow_fits(const struct authd_allow *a, char *const *vantage, int nvantage, char *err,
		     size_t len)
{
	int need = nvantage;

	/* a given id that a vantage line names already has its slot */
	for (int i = 0; i < a->n; i++)
		if (!a->senders[i].id_given || !authd_allow_in(vantage, nvantage, a->senders[i].id))
			need++;
	if (need <= AUTHD_MAX_PROBERS)
		return 0;
	snprintf(err, len,
		 "%d prober ids named by vantage lines and %d -a senders need %d "
		 "slots; authd has %d",
		 nvantage, a->n, need, AUTHD_MAX_PROBERS);
	return -1;
}

int authd_allow_check(struct authd_allow *a, const struct sockaddr_storage *from, const char *id,
		      char *reason, size_t len)
{
	unsigned char addr[16];
	int family, known = 0;

	if (!a->set)
		return 0;
	family = authd_allow_addr(from, addr);
	for (int i = 0; i < a->n; i++) {
		struct authd_sender *s = &a->senders[i];

		if (s->family != family || memcmp(s->addr, addr, 16) != 0)
			continue;
		if (s->id[0] == '\0') {
			/* the first id an address-only entry reports under is its one */
			snprintf(s->id, sizeof(s->id), "%s", id);
			return 0;
		}
		if (strcmp(s->id, id) == 0)
			return 0;
		known = 1;
	}
	if (known)
		snprintf(reason, len, "prober id %s not allowed from this sender", id);
	else
		snprintf(reason, len, "sender not allowed");
	return -1;
}

int authd_allow_changer(struct authd_allow *a, const char *arg)
{
	struct authd_sender *s;

	if (a->nchangers == AUTHD_MAX_CHANGERS)
		return -1;
	s = &a->changers[a->nchangers];
	memset(s, 0, sizeof(*s));
	if (inet_pton(AF_INET, arg, s->addr) == 1)
		s->family = AF_INET;
	else if (inet_pton(AF_INET6, arg, s->addr) == 1)
		s->family = AF_INET6;
	else
		return -1;
	a->nchangers++;
	return 0;
}

int authd_allow_change(const struct authd_allow *a, const struct sockaddr_storage *from,
		       char *reason, size_t len)
{
	unsigned char addr[16];
	int family = authd_allow_addr(from, addr);

	for (int i = 0; i < a->nchangers; i++)
		if (a->changers[i].family == family && memcmp(a->changers[i].addr, addr, 16) == 0)
			return 0;
	snprintf(reason, len, "%s",
		 a->nchangers ? "sender not allowed to change the zones"
			      : "no -A: zone changes from nobody");
	return -1;
}
