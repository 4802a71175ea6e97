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

/* rsv_check_mode: the keys of the mode are there, those of the other mode
 * are not (main: the [resolverd] section, or NULL). */
static void rsv_check_mode(struct rsv_parse *p, const struct rsv_sect *main)
{
	static const char *const iterate_only[] = {"root", "qname_minimisation", "ecs"};
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
}

/* rsv_add: one resolver from section s. 0, or -1 (reported). */
static int rsv_add(struct rsv_parse *p, const struct rsv_sect *s, const char *name,
		   struct in_addr addr, const struct rsv_cache_cfg *cfg)
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
	in->addr = addr;
	in->cache = *cfg;
	in->line = s->line;
	return 0;
}

static int rsv_expand_group(struct rsv_parse *p, const struct rsv_sect *s,
			    const struct rsv_cache_cfg *cfg)
{
	int kcount = rsv_key_index("count"), kfirst = rsv_key_index("first_address");
	char label[RSV_NAME_MAX + 32], name[64];
	uint32_t first = ntohl(s->addr.s_addr);

	rsv_conf_sect_label(s, label, sizeof(label));
	if (!s->where[kcount] || !s->where[kfirst]) {
		rsv_conf_error(p, s->line, "%s: 'count' and 'first_address' are required", label);
		return -1;
	}
	if ((uint64_t)first + s->count - 1 >= 0xffffffffu) {
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
		if (rsv_add(p, s, name, a, cfg) == -1)
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

	if (ax != ay)
		return ax < ay ? -1 : 1;
	return *(const int *)a - *(const int *)b;
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
		if (x->addr.s_addr == y->addr.s_addr)
			rsv_conf_error(p, y->line, "%s: address %s already used by %s (line %d)",
				       y->name, inet_ntop(AF_INET, &y->addr, a, sizeof(a)), x->name,
				       x->line);
	}
	free(idx);
	for (int i = 0; i < c->ninst; i++) {
		for (int u = 0; u < c->nroot; u++)
			if (c->inst[i].addr.s_addr == c->root[u].sin_addr.s_addr &&
			    ntohs(c->root[u].sin_port) == c->port)
				rsv_conf_error(
				    p, c->inst[i].line,
				    "%s: listens on a root server's address and port %s:%u",
				    c->inst[i].name,
				    inet_ntop(AF_INET, &c->inst[i].addr, a, sizeof(a)), c->port);
		for (int u = 0; u < c->nupstream; u++)
			if (c->inst[i].addr.s_addr == c->upstream[u].sin_addr.s_addr &&
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

void rsv_conf_finish(struct rsv_parse *p)
{
	struct rsv_conf *c = p->c;
	struct rsv_cache_cfg builtin, cfg;
	int kaddr = rsv_key_index("address"), any = 0;
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
		} else if (!s->where[kaddr]) {
			rsv_conf_error(p, s->line, "%s: 'address' is required",
				       rsv_conf_sect_label(s, label, sizeof(label)));
		} else if (rsv_add(p, s, s->name, s->addr, &cfg) == -1) {
			break;
		}
	}
	if (!any)
		rsv_conf_error(p, 0,
			       "no resolvers: add [resolver NAME] with an address, or [resolvers "
			       "PREFIX] with count and first_address");
	if (c->ninst > 1)
		rsv_check_unique(p);
	rsv_spread(c);
}
