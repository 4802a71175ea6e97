/*
 * Inside authd's configuration reader (conf.h), shared by its files:
 *
 *   conf.c       reading: sections of (key, value, line) through
 *                lib/inifile; [server] and [site]; the order of the build
 *   conf_zone.c  [zone]: the apex, SOA, TTL and records
 *   conf_name.c  [name]: the policies and their keys
 *
 * The file is read whole first (struct conf_sect per section), then built
 * into the database section kind by section kind (conf_build in conf.c).
 */
#ifndef STEERLAB_AUTHD_CONF_INT_H
#define STEERLAB_AUTHD_CONF_INT_H

#include <stddef.h>

#include "conf.h"
#include "inifile.h"

enum conf_kind {
	CONF_SERVER,
	CONF_ZONE,
	CONF_SITE,
	CONF_NAME,
	CONF_NKINDS,
};

/* conf_kind_names: "server", "zone", "site", "name". */
extern const char *conf_kind_names[CONF_NKINDS];

struct conf_entry {
	char *key, *value;
	int line;
};

struct conf_sect {
	enum conf_kind kind;
	char *name;
	int line;
	int n, cap;
	struct conf_entry *e;
};

enum {
	CONF_SECT_NONE = -1, /* before the first header */
	CONF_SECT_SKIP = -2, /* inside a header that was wrong */
};

struct conf_parse {
	struct inifile in; /* the file, the line being read, the errors */
	int cur;
	int nsects, cap;
	struct conf_sect *sects;
	struct authd_db *db;
};

/* conf_error: "path:line: message" (line 0: "path: message"), counted. */
void conf_error(struct conf_parse *p, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* conf_get: the first entry of key in s, or NULL. */
const struct conf_entry *conf_get(const struct conf_sect *s, const char *key);

/* conf_id_ok: 1 to max letters, digits, '.', '_' or '-'. */
int conf_id_ok(const char *s, size_t max);

/* conf_all_dead: "fail-open" or "fail-closed". 0 or -1. */
int conf_all_dead(const char *v, enum authd_all_dead *out);

/* conf_ulong: a whole number from min to max. 0 or -1. */
int conf_ulong(const char *v, unsigned long min, unsigned long max, unsigned long *out);

/* conf_zone_new: the zone of a [zone] section (its apex, TTL), once every
 * zone is known to the others. conf_zone_data: its SOA and records. */
void conf_zone_new(struct conf_parse *p, const struct conf_sect *s);
void conf_zone_data(struct conf_parse *p, const struct conf_sect *s);

/* conf_soa: each zone's SOA, for negative answers. */
void conf_soa(struct authd_db *db);

/* conf_name: a [name] section: its policy and the sites it hands out. */
void conf_name(struct conf_parse *p, const struct conf_sect *s);

#endif
