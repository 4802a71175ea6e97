/* The configuration keys and their values; see config_int.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "addr.h"
#include "config_int.h"
#include "strtonum.h"
#include "timeutil.h"

#define CK(field) offsetof(struct rsv_cache_cfg, field)
#define PK(field) offsetof(struct rsv_conf, field)
#define SK(field) offsetof(struct rsv_sect, field)

static const struct rsv_ckey rsv_keys[] = {
    {"mode", RSV_K_MODE, RSV_KS_PROCESS, PK(mode), 0, 0},
    {"upstream", RSV_K_UPSTREAMS, RSV_KS_PROCESS, 0, 0, 0},
    {"root", RSV_K_ROOTS, RSV_KS_PROCESS, 0, 0, 0},
    {"qname_minimisation", RSV_K_BOOL, RSV_KS_PROCESS, PK(qname_minimisation), 0, 1},
    {"ecs", RSV_K_BOOL, RSV_KS_PROCESS, PK(ecs), 0, 1},
    {"transport", RSV_K_TRANSPORT, RSV_KS_PROCESS, PK(transport), 0, 0},
    {"timeout", RSV_K_DURATION, RSV_KS_PROCESS, PK(timeout_ns), NSEC_PER_MSEC, 0},
    {"retries", RSV_K_UINT, RSV_KS_PROCESS, PK(retries), 0, 10},
    {"port", RSV_K_PORT, RSV_KS_PROCESS, PK(port), 1, 65535},
    {"tcp", RSV_K_BOOL, RSV_KS_PROCESS, PK(tcp), 0, 1},
    {"stats_interval", RSV_K_DURATION, RSV_KS_PROCESS, PK(stats_ns), 10 * NSEC_PER_MSEC, 0},
    {"max_pending", RSV_K_UINT, RSV_KS_PROCESS, PK(max_pending), 1, 1000000},
    {"address", RSV_K_ADDR, RSV_KS_ONE, SK(addr), 0, 0},
    {"address6", RSV_K_ADDR6, RSV_KS_ONE, SK(addr6), 0, 0},
    {"count", RSV_K_UINT, RSV_KS_GROUP, SK(count), 1, RSV_INST_MAX},
    {"first_address", RSV_K_ADDR, RSV_KS_GROUP, SK(addr), 0, 0},
    {"first_address6", RSV_K_ADDR6, RSV_KS_GROUP, SK(addr6), 0, 0},
    {"min_ttl", RSV_K_TTL, RSV_KS_CACHE, CK(min_ttl), 0, 0},
    {"max_ttl", RSV_K_TTL, RSV_KS_CACHE, CK(max_ttl), 0, 0},
    {"neg_max_ttl", RSV_K_TTL, RSV_KS_CACHE, CK(neg_max_ttl), 0, 0},
    {"serve_stale", RSV_K_BOOL, RSV_KS_CACHE, CK(serve_stale), 0, 1},
    {"stale_ttl", RSV_K_TTL, RSV_KS_CACHE, CK(stale_ttl), 0, 0},
    {"max_stale", RSV_K_DURATION, RSV_KS_CACHE, CK(max_stale_ns), 0, 0},
    {"stale_recheck", RSV_K_DURATION, RSV_KS_CACHE, CK(stale_recheck_ns), 0, 0},
    {"prefetch", RSV_K_PREFETCH, RSV_KS_CACHE, CK(prefetch_pct), 0, 99},
    {"phase", RSV_K_PHASE, RSV_KS_CACHE, 0, 0, 0},
    {"max_entries", RSV_K_UINT, RSV_KS_CACHE, CK(max_entries), 1, 10000000},
};

const struct rsv_ckey *rsv_conf_keys(int *n)
{
	*n = (int)(sizeof(rsv_keys) / sizeof(rsv_keys[0]));
	return rsv_keys;
}

void rsv_conf_defaults(struct rsv_cache_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->min_ttl = 0;
	cfg->max_ttl = 86400;
	cfg->neg_max_ttl = 3600;
	cfg->serve_stale = 0;
	cfg->stale_ttl = 30;
	cfg->max_stale_ns = 86400 * NSEC_PER_SEC;
	cfg->stale_recheck_ns = 30 * NSEC_PER_SEC;
	cfg->prefetch_pct = 0;
	cfg->phase = RSV_PHASE_NONE;
	cfg->max_entries = 10000;
}

static int rsv_parse_bool(const char *s, int *v)
{
	static const char *const yes[] = {"yes", "true", "on", "1"};
	static const char *const no[] = {"no", "false", "off", "0"};

	for (int i = 0; i < 4; i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*v = 1;
			return 0;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*v = 0;
			return 0;
		}
	}
	return -1;
}

static int rsv_parse_uint(const char *s, long long min, long long max, unsigned *v)
{
	const char *errstr;
	long long u = strtonum(s, min, max, &errstr);

	if (errstr)
		return -1;
	*v = (unsigned)u;
	return 0;
}

/* rsv_parse_percent: "N%" with 0 <= N < 100. */
static int rsv_parse_percent(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (errno || end == s || !isfinite(*v) || *v < 0 || *v >= 100 || s[0] == '-')
		return -1;
	return strcmp(end, "%") == 0 ? 0 : -1;
}

static int rsv_parse_ttl(const char *s, uint32_t *ttl)
{
	int64_t ns;

	if (parse_duration_ns(s, &ns) == -1 || ns % NSEC_PER_SEC != 0 ||
	    ns / NSEC_PER_SEC > RSV_TTL_MAX)
		return -1;
	*ttl = (uint32_t)(ns / NSEC_PER_SEC);
	return 0;
}

static int rsv_parse_phase(const char *s, struct rsv_cache_cfg *cfg)
{
	double pct;
	int64_t ns;

	if (strcmp(s, "none") == 0) {
		cfg->phase = RSV_PHASE_NONE;
	} else if (strcmp(s, "spread") == 0) {
		cfg->phase = RSV_PHASE_SPREAD;
	} else if (strchr(s, '%')) {
		if (rsv_parse_percent(s, &pct) == -1)
			return -1;
		cfg->phase = RSV_PHASE_FRACTION;
		cfg->phase_frac = pct / 100.0;
	} else {
		/* a bare number would be ambiguous: seconds or a fraction? */
		size_t len = strlen(s);
		if (len == 0 || !strchr("smhd", s[len - 1]) || parse_duration_ns(s, &ns) == -1)
			return -1;
		cfg->phase = RSV_PHASE_OFFSET;
		cfg->phase_ns = ns;
	}
	return 0;
}

static int rsv_parse_prefetch(const char *s, unsigned *pct)
{
	double v;

	if (strcasecmp(s, "no") == 0 || strcasecmp(s, "off") == 0 || strcmp(s, "0") == 0) {
		*pct = 0;
		return 0;
	}
	if (strcasecmp(s, "yes") == 0 || strcasecmp(s, "on") == 0) {
		*pct = 10;
		return 0;
	}
	if (rsv_parse_percent(s, &v) == -1 || v != floor(v) || v < 1)
		return -1;
	*pct = (unsigned)v;
	return 0;
}

/* rsv_parse_addrs: 1 to RSV_UPSTREAM_MAX servers, each ADDR[:PORT], IPV6
 * or [IPV6]:PORT, into the pairs of list and list6 (config.h), *n. */
static int rsv_parse_addrs(const char *s, struct sockaddr_in *list, struct sockaddr_in6 *list6,
			   int *n)
{
	char buf[512], *save, *tok;
	struct sockaddr_storage ss;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	*n = 0;
	for (tok = strtok_r(buf, " \t,", &save); tok; tok = strtok_r(NULL, " \t,", &save)) {
		if (*n == RSV_UPSTREAM_MAX || addr_parse_sockaddr(tok, 53, &ss) == -1 ||
		    (tok[0] == '[' && ss.ss_family != AF_INET6))
			return -1;
		memset(&list6[*n], 0, sizeof(list6[*n]));
		rsv_sa_set(&list[*n], &list6[*n], (const struct sockaddr *)&ss);
		(*n)++;
	}
	return *n ? 0 : -1;
}

static int rsv_parse_mode(const char *s, enum rsv_mode *m)
{
	if (strcmp(s, "forward") == 0)
		*m = RSV_MODE_FORWARD;
	else if (strcmp(s, "iterate") == 0)
		*m = RSV_MODE_ITERATE;
	else
		return -1;
	return 0;
}

static int rsv_parse_addr(const char *s, struct in_addr *a)
{
	uint32_t h;

	if (inet_pton(AF_INET, s, a) != 1)
		return -1;
	h = ntohl(a->s_addr);
	if (h == 0 || h == 0xffffffffu || IN_MULTICAST(h))
		return -1;
	return 0;
}

int rsv_conf_addr6_ok(const struct in6_addr *a)
{
	return !IN6_IS_ADDR_UNSPECIFIED(a) && !IN6_IS_ADDR_MULTICAST(a) &&
	       !IN6_IS_ADDR_LINKLOCAL(a) && !IN6_IS_ADDR_V4MAPPED(a);
}

static int rsv_parse_addr6(const char *s, struct in6_addr *a)
{
	if (inet_pton(AF_INET6, s, a) != 1 || !rsv_conf_addr6_ok(a))
		return -1;
	return 0;
}

static int rsv_parse_transport(const char *s, int *t)
{
	if (strcmp(s, "4") != 0 && strcmp(s, "6") != 0)
		return -1;
	*t = s[0] - '0';
	return 0;
}

/* rsv_expected: what a key of type t takes, for error messages. */
static const char *rsv_expected(const struct rsv_ckey *k, char *buf, size_t len)
{
	switch (k->type) {
	case RSV_K_TTL:
		return "a TTL in whole seconds such as 300 or 5m";
	case RSV_K_DURATION:
		if (k->min > 0) {
			char d[32];
			snprintf(buf, len, "a duration of at least %s such as 30s",
				 rsv_conf_format_duration(k->min, d, sizeof(d)));
			return buf;
		}
		return "a duration such as 30s";
	case RSV_K_BOOL:
		return "yes or no";
	case RSV_K_UINT:
		snprintf(buf, len, "a whole number from %lld to %lld", k->min, k->max);
		return buf;
	case RSV_K_PREFETCH:
		return "no, yes (10%) or a percentage of the TTL from 1% to 99%";
	case RSV_K_PHASE:
		return "none, spread, a percentage of the TTL below 100% such as 25%, "
		       "or a duration with its unit such as 7s";
	case RSV_K_UPSTREAMS:
	case RSV_K_ROOTS:
		snprintf(buf, len,
			 "1 to %d servers separated by spaces, each ADDR[:PORT], IPV6 or "
			 "[IPV6]:PORT",
			 RSV_UPSTREAM_MAX);
		return buf;
	case RSV_K_MODE:
		return "forward or iterate";
	case RSV_K_PORT:
		return "a port from 1 to 65535";
	case RSV_K_ADDR:
		return "a unicast IPv4 address (a.b.c.d)";
	case RSV_K_ADDR6:
		return "a unicast IPv6 address such as 2001:2::1 (not ::, link-local, multicast "
		       "or IPv4-mapped)";
	case RSV_K_TRANSPORT:
		return "4 or 6";
	}
	return "?";
}

/* rsv_parse_value: parses v as k into the right place. 0, or -1. */
static int rsv_parse_value(struct rsv_conf *c, struct rsv_sect *s, const struct rsv_ckey *k,
			   const char *v)
{
	char *base = k->scope == RSV_KS_PROCESS ? (char *)c
		     : k->scope == RSV_KS_CACHE ? (char *)&s->cache
						: (char *)s;
	void *dst = base + k->off;
	int64_t ns;
	unsigned u;

	switch (k->type) {
	case RSV_K_TTL:
		return rsv_parse_ttl(v, dst);
	case RSV_K_DURATION:
		if (parse_duration_ns(v, &ns) == -1 || ns < k->min)
			return -1;
		*(int64_t *)dst = ns;
		return 0;
	case RSV_K_BOOL:
		return rsv_parse_bool(v, dst);
	case RSV_K_UINT:
		return rsv_parse_uint(v, k->min, k->max, dst);
	case RSV_K_PREFETCH:
		return rsv_parse_prefetch(v, dst);
	case RSV_K_PHASE:
		return rsv_parse_phase(v, &s->cache);
	case RSV_K_UPSTREAMS:
		return rsv_parse_addrs(v, c->upstream, c->upstream6, &c->nupstream);
	case RSV_K_ROOTS:
		return rsv_parse_addrs(v, c->root, c->root6, &c->nroot);
	case RSV_K_MODE:
		return rsv_parse_mode(v, dst);
	case RSV_K_PORT:
		if (rsv_parse_uint(v, 1, 65535, &u) == -1)
			return -1;
		*(uint16_t *)dst = (uint16_t)u;
		return 0;
	case RSV_K_ADDR:
		return rsv_parse_addr(v, dst);
	case RSV_K_ADDR6:
		return rsv_parse_addr6(v, dst);
	case RSV_K_TRANSPORT:
		return rsv_parse_transport(v, dst);
	}
	return -1;
}

static int rsv_key_allowed(const struct rsv_ckey *k, enum rsv_sect_kind kind)
{
	switch (k->scope) {
	case RSV_KS_PROCESS:
		return kind == RSV_SECT_MAIN;
	case RSV_KS_CACHE:
		return 1;
	case RSV_KS_ONE:
		return kind == RSV_SECT_ONE;
	case RSV_KS_GROUP:
		return kind == RSV_SECT_GROUP;
	}
	return 0;
}

void rsv_conf_set(struct rsv_parse *p, struct rsv_sect *s, const char *name, const char *value,
		  int line)
{
	char label[RSV_NAME_MAX + 32], list[512], why[128];
	int n, i;
	const struct rsv_ckey *keys = rsv_conf_keys(&n);
	size_t o = 0;

	for (i = 0; i < n; i++)
		if (strcmp(keys[i].name, name) == 0 && rsv_key_allowed(&keys[i], s->kind))
			break;
	if (i == n) {
		for (int j = 0; j < n; j++)
			if (rsv_key_allowed(&keys[j], s->kind) && o < sizeof(list))
				o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s",
						      o ? ", " : "", keys[j].name);
		rsv_conf_error(p, line, "%s: unknown key '%s' (expected one of: %s)",
			       rsv_conf_sect_label(s, label, sizeof(label)), name, list);
		return;
	}
	if (s->where[i]) {
		rsv_conf_error(p, line, "%s: duplicate key '%s' (first set at line %d)",
			       rsv_conf_sect_label(s, label, sizeof(label)), name, s->where[i]);
		return;
	}
	if (rsv_parse_value(p->c, s, &keys[i], value) == -1) {
		rsv_conf_error(p, line, "%s: expected %s, got '%s'", name,
			       rsv_expected(&keys[i], why, sizeof(why)), value);
		return;
	}
	s->where[i] = line;
}

const char *rsv_conf_sect_label(const struct rsv_sect *s, char *buf, size_t len)
{
	if (s->kind == RSV_SECT_MAIN)
		snprintf(buf, len, "[resolverd]");
	else
		snprintf(buf, len, "[%s %s]", s->kind == RSV_SECT_ONE ? "resolver" : "resolvers",
			 s->name);
	return buf;
}

const char *rsv_conf_format_duration(int64_t ns, char *buf, size_t len)
{
	static const struct {
		const char *unit;
		int64_t ns;
	} units[] = {
	    {"d", 86400 * NSEC_PER_SEC}, {"h", 3600 * NSEC_PER_SEC}, {"m", 60 * NSEC_PER_SEC},
	    {"s", NSEC_PER_SEC},	 {"ms", NSEC_PER_MSEC},	     {"us", NSEC_PER_USEC},
	};

	if (ns == 0) {
		snprintf(buf, len, "0s");
		return buf;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (ns % units[i].ns == 0) {
			snprintf(buf, len, "%lld%s", (long long)(ns / units[i].ns), units[i].unit);
			return buf;
		}
	}
	snprintf(buf, len, "%lldns", (long long)ns);
	return buf;
}

static void rsv_conf_print_cache(const struct rsv_cache_cfg *cfg, FILE *out)
{
	char d1[32], d2[32], d3[32];

	fprintf(out,
		"min_ttl = %u\nmax_ttl = %u\nneg_max_ttl = %u\nserve_stale = %s\n"
		"stale_ttl = %u\nmax_stale = %s\nstale_recheck = %s\n",
		cfg->min_ttl, cfg->max_ttl, cfg->neg_max_ttl, cfg->serve_stale ? "yes" : "no",
		cfg->stale_ttl, rsv_conf_format_duration(cfg->max_stale_ns, d1, sizeof(d1)),
		rsv_conf_format_duration(cfg->stale_recheck_ns, d2, sizeof(d2)));
	if (cfg->prefetch_pct)
		fprintf(out, "prefetch = %u%%\n", cfg->prefetch_pct);
	else
		fprintf(out, "prefetch = no\n");
	switch (cfg->phase) {
	case RSV_PHASE_NONE:
		fprintf(out, "phase = none\n");
		break;
	case RSV_PHASE_SPREAD:
		fprintf(out, "phase = spread\n");
		break;
	case RSV_PHASE_FRACTION:
		fprintf(out, "phase = %.17g%%\n", cfg->phase_frac * 100.0);
		break;
	case RSV_PHASE_OFFSET:
		fprintf(out, "phase = %s\n",
			rsv_conf_format_duration(cfg->phase_ns, d3, sizeof(d3)));
		break;
	}
	fprintf(out, "max_entries = %u\n", cfg->max_entries);
}

void rsv_conf_print(const struct rsv_conf *c, FILE *out)
{
	char d1[32], d2[32], addr[INET6_ADDRSTRLEN], sa[RSV_SA_STRLEN];
	int iter = c->mode == RSV_MODE_ITERATE;
	const struct sockaddr_in *list = iter ? c->root : c->upstream;
	const struct sockaddr_in6 *list6 = iter ? c->root6 : c->upstream6;
	int n = iter ? c->nroot : c->nupstream;

	fprintf(out, "[resolverd]\nmode = %s\n%s =", iter ? "iterate" : "forward",
		iter ? "root" : "upstream");
	for (int i = 0; i < n; i++) {
		socklen_t len;

		fprintf(out, " %s", rsv_sa_str(rsv_sa(&list[i], &list6[i], &len), sa, sizeof(sa)));
	}
	if (iter)
		fprintf(out, "\nqname_minimisation = %s\necs = %s",
			c->qname_minimisation ? "yes" : "no", c->ecs ? "yes" : "no");
	if (iter && c->transport == 6) /* printed when not the default: as before without */
		fprintf(out, "\ntransport = 6");
	fprintf(out,
		"\ntimeout = %s\nretries = %u\nport = %u\ntcp = %s\nstats_interval = %s\n"
		"max_pending = %u\n",
		rsv_conf_format_duration(c->timeout_ns, d1, sizeof(d1)), c->retries, c->port,
		c->tcp ? "yes" : "no", rsv_conf_format_duration(c->stats_ns, d2, sizeof(d2)),
		c->max_pending);
	rsv_conf_print_cache(&c->defaults, out);
	for (int i = 0; i < c->ninst; i++) {
		fprintf(out, "\n[resolver %s]\n", c->inst[i].name);
		if (!c->inst[i].v6only)
			fprintf(out, "address = %s\n",
				inet_ntop(AF_INET, &c->inst[i].addr, addr, sizeof(addr)));
		if (c->inst[i].has_addr6)
			fprintf(out, "address6 = %s\n",
				inet_ntop(AF_INET6, &c->inst[i].addr6, addr, sizeof(addr)));
		rsv_conf_print_cache(&c->inst[i].cache, out);
	}
}
