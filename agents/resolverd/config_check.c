/*
 * After the configuration file is read: cache defaults applied whatever the
 * order of the sections, groups expanded, phases spread, and the checks
 * that need the whole file (see config_int.h).
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "config_int.h"

/* rsv_copy_key: copies cache key k from src to dst. */
static void rsv_copy_key(struct rsv_cache_cfg *dst, const struct rsv_cache_cfg *src,
			 const struct rsv_ckey *k)
{
	size_t size = 0;

	switch (k->type) {
	case RSV_K_PHASE:
		dst->phase = src->phase;
		dst->phase_frac = src->phase_frac;
		dst->phase_ns = src->phase_ns;
		return;
	case RSV_K_TTL:
		size = sizeof(uint32_t);
		break;
	case RSV_K_DURATION:
		size = sizeof(int64_t);
		break;
	case RSV_K_BOOL:
		size = sizeof(int);
		break;
	case RSV_K_UINT:
	case RSV_K_PREFETCH:
		size = sizeof(unsigned);
		break;
	default:
		return;
	}
	memcpy((char *)dst + k->off, (const char *)src + k->off, size);
}

/* rsv_effective: defaults overridden by the cache keys s sets. */
static void rsv_effective(const struct rsv_sect *s, const struct rsv_cache_cfg *defaults,
			  struct rsv_cache_cfg *out)
{
	int n;
	const struct rsv_ckey *keys = rsv_conf_keys(&n);

	*out = *defaults;
	for (int i = 0; i < n; i++)
		if (keys[i].scope == RSV_KS_CACHE && s->where[i])
			rsv_copy_key(out, &s->cache, &keys[i]);
}

static int rsv_key_index(const char *name)
{
	int n;
	const struct rsv_ckey *keys = rsv_conf_keys(&n);

	for (int i = 0; i < n; i++)
		if (strcmp(keys[i].name, name) == 0)
			return i;
	return -1;
}

/* rsv_check_ttls: min_ttl <= max_ttl where s sets either (or s is
 * [resolverd]). */
static void rsv_check_ttls(struct rsv_parse *p, const struct rsv_sect *s,
			   const struct rsv_cache_cfg *cfg)
{
	int kmin = rsv_key_index("min_ttl"), kmax = rsv_key_index("max_ttl");
	char label[RSV_NAME_MAX + 32];
	int line;

	if (cfg->min_ttl <= cfg->max_ttl)
		return;
	if (s->kind != RSV_SECT_MAIN && !s->where[kmin] && !s->where[kmax])
		return; /* reported at [resolverd] */
	line = s->where[kmin] > s->where[kmax] ? s->where[kmin] : s->where[kmax];
	rsv_conf_error(p, line ? line : s->line, "%s: min_ttl (%u) is above max_ttl (%u)",
		       rsv_conf_sect_label(s, label, sizeof(label)), cfg->min_ttl, cfg->max_ttl);
}

/* rsv_check_transport: with mode = iterate, every root hint is of the
 * family the walk asks over (transport). */
static void rsv_check_transport(struct rsv_parse *p, const struct rsv_sect *main)
{
	const struct rsv_conf *c = p->c;
	int line = main ? main->where[rsv_key_index("root")] : 0;
	char sa[RSV_SA_STRLEN];

	for (int i = 0; i < c->nroot; i++) {
		socklen_t len;

		rsv_sa_str(rsv_sa(&c->root[i], &c->root6[i], &len), sa, sizeof(sa));
		if (c->transport == 6 && !rsv_sa_is6(&c->root[i]))
			rsv_conf_error(p, line,
				       "[resolverd]: root %s is IPv4, but transport = 6 asks every "
				       "server at its IPv6 address",
				       sa);
		else if (c->transport != 6 && rsv_sa_is6(&c->root[i]))
			rsv_conf_error(p, line,
				       "[resolverd]: root %s is IPv6, but the walk asks over IPv4 "
				       "(transport = 4): set transport = 6",
				       sa);
	}
}

/* rsv_check_mode: the keys of the mode are there, those of the other mode
 * are not (main: the [resolverd] section, or NULL). */
static void rsv_check_mode(struct rsv_parse *p, const struct rsv_sect *main)
{
	static const char *const iterate_only[] = {"root", "qname_minimisation", "ecs",
						   "transport"};
	const char *mode = p->c->mode == RSV_MODE_ITERATE ? "iterate" : "forward";
	int line = main ? main->line : 0, k;

	if (p->c->mode == RSV_MODE_FORWARD) {
		for (size_t i = 0; i < sizeof(iterate_only) / sizeof(iterate_only[0]); i++)
			if (main && main->where[k = rsv_key_index(iterate_only[i])])
				rsv_conf_error(p, main->where[k],
					       "[resolverd]: '%s' applies only with mode = iterate",
					       iterate_only[i]);
		if (p->c->nupstream == 0)
			rsv_conf_error(p, line,
				       "[resolverd]: 'upstream' is required: the authoritative "
				       "server(s), ADDR[:PORT] ...");
		return;
	}
	if (main && main->where[k = rsv_key_index("upstream")])
		rsv_conf_error(p, main->where[k],
			       "[resolverd]: 'upstream' applies only with mode = forward (mode = "
			       "%s walks from 'root')",
			       mode);
	if (p->c->nroot == 0)
		rsv_conf_error(p, line,
			       "[resolverd]: 'root' is required with mode = iterate: the lab's "
			       "root server(s), ADDR[:PORT] ...");
	rsv_check_transport(p, main);
}

/* rsv_add: one resolver from section s, with addr if not NULL and addr6
 * if not NULL (one of them at least). 0, or -1 (reported). */
static int rsv_add(struct rsv_parse *p, const struct rsv_sect *s, const char *name,
		   const struct in_addr *addr, const struct in6_addr *addr6,
		   const struct rsv_cache_cfg *cfg)
{
	struct rsv_conf *c = p->c;
	struct rsv_inst_conf *in;

	if (c->ninst == RSV_INST_MAX) {
		rsv_conf_error(p, s->line, "too many resolvers (at most %d)", RSV_INST_MAX);
		return -1;
	}
	if (c->inst == NULL && (c->inst = calloc(RSV_INST_MAX, sizeof(*c->inst))) == NULL) {
		rsv_conf_error(p, 0, "out of memory");
		return -1;
	}
	in = &c->inst[c->ninst++];
	snprintf(in->name, sizeof(in->name), "%s", name);
	if (addr)
		in->addr = *addr;
	else
		in->v6only = 1;
	if (addr6) {
		in->addr6 = *addr6;
		in->has_addr6 = 1;
	}
	in->cache = *cfg;
	in->line = s->line;
	return 0;
}

/* rsv_addr6_add: a + n, 128 bits big-endian, in out; -1 if it wraps. */
static int rsv_addr6_add(const struct in6_addr *a, unsigned n, struct in6_addr *out)
{
	unsigned carry = n;

	*out = *a;
	for (int i = 15; i >= 0 && carry; i--) {
		carry += out->s6_addr[i];
		out->s6_addr[i] = (uint8_t)carry;
		carry >>= 8;
	}
	return carry ? -1 : 0;
}

static int rsv_expand_group(struct rsv_parse *p, const struct rsv_sect *s,
			    const struct rsv_cache_cfg *cfg)
{
	int kcount = rsv_key_index("count"), kfirst = rsv_key_index("first_address");
	int kfirst6 = rsv_key_index("first_address6");
	char label[RSV_NAME_MAX + 32], name[64], a6[INET6_ADDRSTRLEN];
	uint32_t first = ntohl(s->addr.s_addr);
	struct in6_addr addr6;

	rsv_conf_sect_label(s, label, sizeof(label));
	if (!s->where[kcount] || (!s->where[kfirst] && !s->where[kfirst6])) {
		rsv_conf_error(p, s->line,
			       "%s: 'count' and 'first_address' (or 'first_address6', or both) "
			       "are required",
			       label);
		return -1;
	}
	if (s->where[kfirst] && (uint64_t)first + s->count - 1 >= 0xffffffffu) {
		rsv_conf_error(p, s->where[kcount],
			       "%s: %u addresses from first_address run past 255.255.255.254",
			       label, s->count);
		return -1;
	}
	for (unsigned i = 0; i < s->count; i++) {
		struct in_addr a = {.s_addr = htonl(first + i)};

		snprintf(name, sizeof(name), "%s%u", s->name, i + 1);
		if (strlen(name) > RSV_NAME_MAX) {
			rsv_conf_error(p, s->line, "%s: the name %s is longer than %d characters",
				       label, name, RSV_NAME_MAX);
			return -1;
		}
		if (s->where[kfirst6] &&
		    (rsv_addr6_add(&s->addr6, i, &addr6) == -1 || !rsv_conf_addr6_ok(&addr6))) {
			rsv_conf_error(p, s->where[kcount],
				       "%s: %u addresses from first_address6 run into %s, not a "
				       "unicast address",
				       label, s->count,
				       inet_ntop(AF_INET6, &addr6, a6, sizeof(a6)));
			return -1;
		}
		if (rsv_add(p, s, name, s->where[kfirst] ? &a : NULL,
			    s->where[kfirst6] ? &addr6 : NULL, cfg) == -1)
			return -1;
	}
	return 0;
}

static const struct rsv_inst_conf *rsv_sort_base;

static int rsv_by_name(const void *a, const void *b)
{
	const struct rsv_inst_conf *x = &rsv_sort_base[*(const int *)a];
	const struct rsv_inst_conf *y = &rsv_sort_base[*(const int *)b];
	int r = strcmp(x->name, y->name);

	return r ? r : *(const int *)a - *(const int *)b;
}

static int rsv_by_addr(const void *a, const void *b)
{
	const struct rsv_inst_conf *x = &rsv_sort_base[*(const int *)a];
	const struct rsv_inst_conf *y = &rsv_sort_base[*(const int *)b];
	uint32_t ax = ntohl(x->addr.s_addr), ay = ntohl(y->addr.s_addr);

	if (x->v6only != y->v6only) /* those without an IPv4 address first */
		return x->v6only ? -1 : 1;
	if (ax != ay)
		return ax < ay ? -1 : 1;
	return *(const int *)a - *(const int *)b;
}

static int rsv_by_addr6(const void *a, const void *b)
{
	const struct rsv_inst_conf *x = &rsv_sort_base[*(const int *)a];
	const struct rsv_inst_conf *y = &rsv_sort_base[*(const int *)b];
	int r = memcmp(&x->addr6, &y->addr6, sizeof(x->addr6));

	return r ? r : *(const int *)a - *(const int *)b;
}

/* rsv_check_listen6: no resolver listens on an IPv6 server's address and
 * port (list/list6, n: the upstreams or the root hints). */
static void rsv_check_listen6(struct rsv_parse *p, const struct sockaddr_in *list,
			      const struct sockaddr_in6 *list6, int n, const char *what)
{
	const struct rsv_conf *c = p->c;
	char a[INET6_ADDRSTRLEN];

	for (int i = 0; i < c->ninst; i++)
		for (int u = 0; c->inst[i].has_addr6 && u < n; u++)
			if (rsv_sa_is6(&list[u]) && ntohs(list6[u].sin6_port) == c->port &&
			    memcmp(&c->inst[i].addr6, &list6[u].sin6_addr,
				   sizeof(struct in6_addr)) == 0)
				rsv_conf_error(p, c->inst[i].line,
					       "%s: listens on %s address and port [%s]:%u",
					       c->inst[i].name, what,
					       inet_ntop(AF_INET6, &c->inst[i].addr6, a, sizeof(a)),
					       c->port);
}

/* rsv_check_unique6: the IPv6 addresses are each used once, and none is
 * an IPv6 server's on the same port; idx: room for ninst indices. */
static void rsv_check_unique6(struct rsv_parse *p, int *idx)
{
	struct rsv_conf *c = p->c;
	char a[INET6_ADDRSTRLEN];
	int n = 0;

	for (int i = 0; i < c->ninst; i++)
		if (c->inst[i].has_addr6)
			idx[n++] = i;
	qsort(idx, (size_t)n, sizeof(int), rsv_by_addr6);
	for (int i = 1; i < n; i++) {
		const struct rsv_inst_conf *x = &c->inst[idx[i - 1]], *y = &c->inst[idx[i]];
		if (memcmp(&x->addr6, &y->addr6, sizeof(x->addr6)) == 0)
			rsv_conf_error(p, y->line, "%s: address6 %s already used by %s (line %d)",
				       y->name, inet_ntop(AF_INET6, &y->addr6, a, sizeof(a)),
				       x->name, x->line);
	}
	rsv_check_listen6(p, c->root, c->root6, c->nroot, "a root server's");
	rsv_check_listen6(p, c->upstream, c->upstream6, c->nupstream, "the upstream's");
}

/* rsv_check_unique: names and addresses are each used once; an address
 * is not the upstream's (on the same port). */
static void rsv_check_unique(struct rsv_parse *p)
{
	struct rsv_conf *c = p->c;
	int *idx = malloc((size_t)c->ninst * sizeof(int));
	char a[INET_ADDRSTRLEN];

	if (idx == NULL) {
		rsv_conf_error(p, 0, "out of memory");
		return;
	}
	rsv_sort_base = c->inst;
	for (int i = 0; i < c->ninst; i++)
		idx[i] = i;
	qsort(idx, (size_t)c->ninst, sizeof(int), rsv_by_name);
	for (int i = 1; i < c->ninst; i++) {
		const struct rsv_inst_conf *x = &c->inst[idx[i - 1]], *y = &c->inst[idx[i]];
		if (strcmp(x->name, y->name) == 0)
			rsv_conf_error(p, y->line, "resolver name '%s' already used at line %d",
				       y->name, x->line);
	}
	qsort(idx, (size_t)c->ninst, sizeof(int), rsv_by_addr);
	for (int i = 1; i < c->ninst; i++) {
		const struct rsv_inst_conf *x = &c->inst[idx[i - 1]], *y = &c->inst[idx[i]];
		if (!x->v6only && x->addr.s_addr == y->addr.s_addr)
			rsv_conf_error(p, y->line, "%s: address %s already used by %s (line %d)",
				       y->name, inet_ntop(AF_INET, &y->addr, a, sizeof(a)), x->name,
				       x->line);
	}
	rsv_check_unique6(p, idx);
	free(idx);
	for (int i = 0; i < c->ninst; i++) {
		if (c->inst[i].v6only)
			continue;
		for (int u = 0; u < c->nroot; u++)
			if (!rsv_sa_is6(&c->root[u]) &&
			    c->inst[i].addr.s_addr == c->root[u].sin_addr.s_addr &&
			    ntohs(c->root[u].sin_port) == c->port)
				rsv_conf_error(
				    p, c->inst[i].line,
				    "%s: listens on a root server's address and port %s:%u",
				    c->inst[i].name,
				    inet_ntop(AF_INET, &c->inst[i].addr, a, sizeof(a)), c->port);
		for (int u = 0; u < c->nupstream; u++)
			if (!rsv_sa_is6(&c->upstream[u]) &&
			    c->inst[i].addr.s_addr == c->upstream[u].sin_addr.s_addr &&
			    ntohs(c->upstream[u].sin_port) == c->port)
				rsv_conf_error(
				    p, c->inst[i].line,
				    "%s: listens on the upstream's address and port %s:%u",
				    c->inst[i].name,
				    inet_ntop(AF_INET, &c->inst[i].addr, a, sizeof(a)), c->port);
	}
}

/* rsv_spread: phase = spread gives the k-th of the M resolvers so set the
 * fraction k/M. */
static void rsv_spread(struct rsv_conf *c)
{
	int m = 0, k = 0;

	for (int i = 0; i < c->ninst; i++)
		m += c->inst[i].cache.phase == RSV_PHASE_SPREAD;
	for (int i = 0; i < c->ninst; i++) {
		struct rsv_cache_cfg *cfg = &c->inst[i].cache;

		if (cfg->phase != RSV_PHASE_SPREAD)
			continue;
		cfg->phase = RSV_PHASE_FRACTION;
		cfg->phase_frac = (double)k++ / m;
	}
}

/* rsv_check_addr6: when IPv6 servers are asked (an IPv6 upstream, or
 * transport = 6), every resolver has an IPv6 address to ask from. */
static void rsv_check_addr6(struct rsv_parse *p)
{
	const struct rsv_conf *c = p->c;
	int kaddr6 = rsv_key_index("address6"), kfirst6 = rsv_key_index("first_address6");
	char why[RSV_SA_STRLEN + 64] = "", sa[RSV_SA_STRLEN], label[RSV_NAME_MAX + 32];

	if (!rsv_conf_up6(c))
		return;
	if (c->mode == RSV_MODE_ITERATE) {
		snprintf(why, sizeof(why), "transport = 6 asks every server from it");
	} else {
		for (int i = 0; i < c->nupstream; i++) {
			socklen_t len;

			if (!rsv_sa_is6(&c->upstream[i]))
				continue;
			snprintf(why, sizeof(why), "the upstream %s is asked from it",
				 rsv_sa_str(rsv_sa(&c->upstream[i], &c->upstream6[i], &len), sa,
					    sizeof(sa)));
			break;
		}
	}
	for (int i = 0; i < p->nsects; i++) {
		const struct rsv_sect *s = &p->sects[i];

		if (s->kind == RSV_SECT_ONE && !s->where[kaddr6])
			rsv_conf_error(p, s->line, "%s: 'address6' is required: %s",
				       rsv_conf_sect_label(s, label, sizeof(label)), why);
		else if (s->kind == RSV_SECT_GROUP && !s->where[kfirst6])
			rsv_conf_error(p, s->line, "%s: 'first_address6' is required: %s",
				       rsv_conf_sect_label(s, label, sizeof(label)), why);
	}
}

/* rsv_check_addr4: a resolver with an IPv6 address alone asks nothing
 * over IPv4: every upstream is IPv6 (forward), transport = 6 (iterate).
 * Named at its section, with the line of what it could not ask. */
static void rsv_check_addr4(struct rsv_parse *p, const struct rsv_sect *main)
{
	const struct rsv_conf *c = p->c;
	int kaddr = rsv_key_index("address"), kfirst = rsv_key_index("first_address");
	int kaddr6 = rsv_key_index("address6"), kfirst6 = rsv_key_index("first_address6");
	int kup = rsv_key_index("upstream"), ktr = rsv_key_index("transport");
	char sa[RSV_SA_STRLEN], label[RSV_NAME_MAX + 32];

	for (int i = 0; i < p->nsects; i++) {
		const struct rsv_sect *s = &p->sects[i];
		const char *key = s->kind == RSV_SECT_ONE ? "address" : "first_address";
		socklen_t len;

		if (s->kind == RSV_SECT_MAIN ||
		    s->where[s->kind == RSV_SECT_ONE ? kaddr : kfirst] ||
		    !s->where[s->kind == RSV_SECT_ONE ? kaddr6 : kfirst6])
			continue; /* an IPv4 address, or none at all (reported) */
		rsv_conf_sect_label(s, label, sizeof(label));
		if (c->mode == RSV_MODE_ITERATE && c->transport != 6) {
			rsv_conf_error(p, s->line,
				       "%s: no '%s': transport = 4%s asks every server from the "
				       "IPv4 address: set transport = 6, or add '%s'",
				       label, key, main && main->where[ktr] ? "" : " (the default)",
				       key);
			continue;
		}
		for (int u = 0; c->mode == RSV_MODE_FORWARD && u < c->nupstream; u++) {
			if (rsv_sa_is6(&c->upstream[u]))
				continue;
			rsv_conf_error(
			    p, s->line,
			    "%s: no '%s': the upstream %s (line %d) is IPv4, and it has only an "
			    "IPv6 address to ask from",
			    label, key,
			    rsv_sa_str(rsv_sa(&c->upstream[u], &c->upstream6[u], &len), sa,
				       sizeof(sa)),
			    main ? main->where[kup] : 0);
			break;
		}
	}
}

void rsv_conf_finish(struct rsv_parse *p)
{
	struct rsv_conf *c = p->c;
	struct rsv_cache_cfg builtin, cfg;
	int kaddr = rsv_key_index("address"), kaddr6 = rsv_key_index("address6"), any = 0;
	const struct rsv_sect *main = NULL;
	char label[RSV_NAME_MAX + 32];

	rsv_conf_defaults(&builtin);
	c->defaults = builtin;
	for (int i = 0; i < p->nsects; i++) {
		if (p->sects[i].kind != RSV_SECT_MAIN)
			continue;
		main = &p->sects[i];
		rsv_effective(&p->sects[i], &builtin, &c->defaults);
		rsv_check_ttls(p, &p->sects[i], &c->defaults);
	}
	rsv_check_mode(p, main);
	for (int i = 0; i < p->nsects; i++) {
		const struct rsv_sect *s = &p->sects[i];

		if (s->kind == RSV_SECT_MAIN)
			continue;
		any = 1;
		rsv_effective(s, &c->defaults, &cfg);
		rsv_check_ttls(p, s, &cfg);
		if (s->kind == RSV_SECT_GROUP) {
			if (rsv_expand_group(p, s, &cfg) == -1)
				break;
		} else if (!s->where[kaddr] && !s->where[kaddr6]) {
			rsv_conf_error(p, s->line,
				       "%s: 'address' (or 'address6', or both) is required",
				       rsv_conf_sect_label(s, label, sizeof(label)));
		} else if (rsv_add(p, s, s->name, s->where[kaddr] ? &s->addr : NULL,
				   s->where[kaddr6] ? &s->addr6 : NULL, &cfg) == -1) {
			break;
		}
	}
	rsv_check_addr6(p);
	rsv_check_addr4(p, main);
	if (!any)
		rsv_conf_error(p, 0,
			       "no resolvers: add [resolver NAME] with an address, or [resolvers "
			       "PREFIX] with count and first_address (or address6, "
			       "first_address6)");
	if (c->ninst > 1)
		rsv_check_unique(p);
	rsv_spread(c);
}
