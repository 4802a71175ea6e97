/*
 * Inside the configuration parser, private to config*.c:
 *
 *   config.c       reading the file: lines, section headers, key = value
 *   config_keys.c  the keys, their value types, parsing and printing values
 *   config_check.c after the file: defaults, groups, phases, checks
 *
 * Every section read is kept as a struct rsv_sect with the line each key
 * was set at (0: not set), so the checks made once the whole file is read
 * can point at the right line, and defaults can be applied whatever the
 * order of the sections.
 */
#ifndef STEERLAB_RESOLVERD_CONFIG_INT_H
#define STEERLAB_RESOLVERD_CONFIG_INT_H

#include <stddef.h>
#include <stdio.h>

#include "config.h"
#include "inifile.h"

#define RSV_MAX_ERRORS 20

enum rsv_ktype {
	RSV_K_TTL,	 /* uint32_t seconds */
	RSV_K_DURATION,	 /* int64_t ns, >= min ns */
	RSV_K_BOOL,	 /* int */
	RSV_K_UINT,	 /* unsigned, min..max */
	RSV_K_PREFETCH,	 /* unsigned percent, 0 = off */
	RSV_K_PHASE,	 /* enum rsv_phase + phase_frac / phase_ns */
	RSV_K_UPSTREAMS, /* struct rsv_conf's upstream list */
	RSV_K_ROOTS,	 /* struct rsv_conf's root hints */
	RSV_K_MODE,	 /* enum rsv_mode */
	RSV_K_PORT,	 /* uint16_t */
	RSV_K_ADDR,	 /* struct in_addr */
	RSV_K_ADDR6,	 /* struct in6_addr */
	RSV_K_TRANSPORT, /* int, 4 or 6 */
};

enum rsv_kscope {
	RSV_KS_PROCESS, /* [resolverd] only; off is in struct rsv_conf */
	RSV_KS_CACHE,	/* any section; off is in struct rsv_cache_cfg */
	RSV_KS_ONE,	/* [resolver NAME] only; off is in struct rsv_sect */
	RSV_KS_GROUP,	/* [resolvers PREFIX] only; off is in struct rsv_sect */
};

struct rsv_ckey {
	const char *name;
	enum rsv_ktype type;
	enum rsv_kscope scope;
	size_t off;
	long long min, max;
};

enum rsv_sect_kind {
	RSV_SECT_MAIN,	/* [resolverd] */
	RSV_SECT_ONE,	/* [resolver NAME] */
	RSV_SECT_GROUP, /* [resolvers PREFIX] */
};

struct rsv_sect {
	enum rsv_sect_kind kind;
	char name[RSV_NAME_MAX + 1];
	int line;
	struct rsv_cache_cfg cache;
	struct in_addr addr;
	struct in6_addr addr6;
	unsigned count;
	int *where; /* per key of rsv_conf_keys: the line it was set at, or 0 */
};

struct rsv_parse {
	struct rsv_conf *c;
	struct inifile in; /* the file, the line being read, the errors */
	struct rsv_sect *sects;
	int nsects, cap;
	int cur; /* index into sects, or RSV_CUR_NONE / RSV_CUR_SKIP */
};

#define RSV_CUR_NONE (-1) /* before any section */
#define RSV_CUR_SKIP (-2) /* in a section with a bad header */

/* rsv_conf_keys: the table of keys; *n is set to their number. */
const struct rsv_ckey *rsv_conf_keys(int *n);

/* rsv_conf_error: "path:line: message" (line 0: "path: message"). */
void rsv_conf_error(struct rsv_parse *p, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* rsv_conf_set: applies name = value in section s at line. */
void rsv_conf_set(struct rsv_parse *p, struct rsv_sect *s, const char *name, const char *value,
		  int line);

/* rsv_conf_sect_label: "[resolver r1]" etc. in buf. */
const char *rsv_conf_sect_label(const struct rsv_sect *s, char *buf, size_t len);

/* rsv_conf_addr6_ok: is a an IPv6 address a resolver may listen on (not
 * ::, link-local, multicast or IPv4-mapped)? */
int rsv_conf_addr6_ok(const struct in6_addr *a);

/* rsv_conf_format_duration: ns as the largest unit it is a whole number of
 * ("1d", "30s", "250ms", "0"). */
const char *rsv_conf_format_duration(int64_t ns, char *buf, size_t len);

/* rsv_conf_finish: defaults, groups, phases and checks once the file is
 * read; fills p->c->inst. Errors go through rsv_conf_error. */
void rsv_conf_finish(struct rsv_parse *p);

#endif
