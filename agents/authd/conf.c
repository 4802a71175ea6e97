/* authd's configuration file; see conf.h and docs/authd.md. */
#include "conf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf_int.h"
#include "strtonum.h"
#include "timeutil.h"

const char *conf_kind_names[CONF_NKINDS] = {"server", "zone", "site", "name"};

static const char *conf_section_kinds =
    "expected [server], [zone NAME], [site NAME] or [name NAME]";

struct conf_key {
	const char *name;
	int repeat;
};

static const struct conf_key conf_server_keys[] = {
    {"listen", 1},   {"control", 0}, {"quorum", 0},	     {"all_dead", 0}, {"udp_max", 0},
    {"tcp_idle", 0}, {"tcp_max", 0}, {"proximity_stale", 0}, {NULL, 0},
};
static const struct conf_key conf_zone_keys[] = {
    {"soa", 0},
    {"ttl", 0},
    {"record", 1},
    {NULL, 0},
};
static const struct conf_key conf_site_keys[] = {
    {"address", 1},
    {NULL, 0},
};
static const struct conf_key conf_name_keys[] = {
    {"policy", 0},   {"ttl", 0},	   {"sites", 0},   {"primary", 0}, {"secondary", 0},
    {"weight", 1},   {"weighted_mode", 0}, {"geo", 1},	   {"default", 0}, {"vantage", 1},
    {"all_dead", 0}, {"fallback", 0},	   {"pattern", 0}, {"tier", 1},	   {NULL, 0},
};
static const struct conf_key *conf_keys[CONF_NKINDS] = {conf_server_keys, conf_zone_keys,
							conf_site_keys, conf_name_keys};

void conf_error(struct conf_parse *p, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	inifile_verror(&p->in, line, NULL, fmt, ap);
	va_end(ap);
}

/*
 * Reading: sections of (key, value, line).
 */

static int conf_add_sect(struct conf_parse *p, enum conf_kind kind, const char *name)
{
	struct conf_sect *s;

	for (int i = 0; i < p->nsects; i++) {
		s = &p->sects[i];
		if (s->kind == kind && ((name == NULL && s->name == NULL) ||
					(name && s->name && strcmp(s->name, name) == 0))) {
			conf_error(p, p->in.lineno, "duplicate [%s%s%s] (first at line %d)",
				   conf_kind_names[kind], name ? " " : "", name ? name : "",
				   s->line);
			return CONF_SECT_SKIP;
		}
	}
	if (p->nsects == p->cap) {
		int cap = p->cap ? p->cap * 2 : 16;
		struct conf_sect *v = realloc(p->sects, (size_t)cap * sizeof(*v));

		if (v == NULL)
			return CONF_SECT_SKIP;
		p->sects = v;
		p->cap = cap;
	}
	s = &p->sects[p->nsects];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->line = p->in.lineno;
	if (name && (s->name = strdup(name)) == NULL)
		return CONF_SECT_SKIP;
	return p->nsects++;
}

/* conf_header: a header's words. Sets p->cur. */
static void conf_header(struct conf_parse *p, const char *kind, const char *name, const char *extra)
{
	int k;

	p->cur = CONF_SECT_SKIP;
	for (k = 0; k < CONF_NKINDS && strcmp(kind, conf_kind_names[k]) != 0; k++)
		;
	if (k == CONF_NKINDS) {
		conf_error(p, p->in.lineno, "unknown section kind '%s' (%s)", kind,
			   conf_section_kinds);
		return;
	}
	if (k == CONF_SERVER && name) {
		conf_error(p, p->in.lineno, "[server] takes no name (expected [server])");
		return;
	}
	if (k != CONF_SERVER && (name == NULL || extra)) {
		conf_error(p, p->in.lineno, "expected one name: [%s NAME]", kind);
		return;
	}
	p->cur = conf_add_sect(p, (enum conf_kind)k, name);
}

static int conf_section(void *arg, const char *kind, const char *name, const char *extra)
{
	struct conf_parse *p = arg;

	conf_header(p, kind, name, extra);
	return p->cur == CONF_SECT_SKIP ? -1 : 0;
}

static const struct conf_key *conf_find_key(enum conf_kind kind, const char *name)
{
	for (const struct conf_key *k = conf_keys[kind]; k->name; k++)
		if (strcmp(k->name, name) == 0)
			return k;
	return NULL;
}

static void conf_label(const struct conf_sect *s, char *buf, size_t len)
{
	snprintf(buf, len, "[%s%s%s]", conf_kind_names[s->kind], s->name ? " " : "",
		 s->name ? s->name : "");
}

static void conf_set(struct conf_parse *p, const char *name, const char *value)
{
	struct conf_sect *s = &p->sects[p->cur];
	const struct conf_key *k = conf_find_key(s->kind, name);
	char label[300], list[256] = "";
	size_t used = 0;

	conf_label(s, label, sizeof(label));
	if (k == NULL) {
		for (k = conf_keys[s->kind]; k->name && used < sizeof(list); k++)
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s",
						 used ? ", " : "", k->name);
		conf_error(p, p->in.lineno, "unknown key '%s' in %s (expected: %s)", name, label,
			   list);
		return;
	}
	if (!k->repeat)
		for (int i = 0; i < s->n; i++)
			if (strcmp(s->e[i].key, name) == 0) {
				conf_error(p, p->in.lineno, "%s %s: set twice (first at line %d)",
					   label, name, s->e[i].line);
				return;
			}
	if (*value == '\0') {
		conf_error(p, p->in.lineno, "%s %s: expected a value", label, name);
		return;
	}
	if (s->n == s->cap) {
		int cap = s->cap ? s->cap * 2 : 8;
		struct conf_entry *v = realloc(s->e, (size_t)cap * sizeof(*v));

		if (v == NULL)
			return;
		s->e = v;
		s->cap = cap;
	}
	s->e[s->n].key = strdup(name);
	s->e[s->n].value = strdup(value);
	s->e[s->n].line = p->in.lineno;
	if (s->e[s->n].key && s->e[s->n].value)
		s->n++;
}

static void conf_pair(void *arg, const char *name, const char *value)
{
	conf_set(arg, name, value);
}

/*
 * Values.
 */

const struct conf_entry *conf_get(const struct conf_sect *s, const char *key)
{
	for (int i = 0; i < s->n; i++)
		if (strcmp(s->e[i].key, key) == 0)
			return &s->e[i];
	return NULL;
}

int conf_id_ok(const char *s, size_t max)
{
	size_t n = strlen(s);

	return n > 0 && n <= max &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

int conf_all_dead(const char *v, enum authd_all_dead *out)
{
	if (strcmp(v, "fail-open") == 0)
		*out = AUTHD_FAIL_OPEN;
	else if (strcmp(v, "fail-closed") == 0)
		*out = AUTHD_FAIL_CLOSED;
	else
		return -1;
	return 0;
}

int conf_ulong(const char *v, unsigned long min, unsigned long max, unsigned long *out)
{
	const char *errstr;

	*out = (unsigned long)strtonum(v, (long long)min, (long long)max, &errstr);
	return errstr ? -1 : 0;
}

/*
 * Interpreting.
 */

/* conf_duration: [server] KEY = a duration above 0 into *out, else an
 * error naming an example */
static void conf_duration(struct conf_parse *p, const struct conf_entry *e, const char *example,
			  int64_t *out)
{
	int64_t ns;

	if (parse_duration_ns(e->value, &ns) == -1 || ns <= 0)
		conf_error(p, e->line, "[server] %s: expected a duration such as %s, got '%s'",
			   e->key, example, e->value);
	else
		*out = ns;
}

static void conf_server(struct conf_parse *p, const struct conf_sect *s)
{
	struct authd_server_conf *sv = &p->db->server;
	unsigned long v;

	for (int i = 0; i < s->n; i++) {
		const struct conf_entry *e = &s->e[i];

		if (strcmp(e->key, "listen") == 0) {
			if (sv->nlisten == AUTHD_MAX_LISTEN)
				conf_error(p, e->line, "[server] listen: at most %d addresses",
					   AUTHD_MAX_LISTEN);
			else if (addr_parse_sockaddr(e->value, AUTHD_PORT,
						     &sv->listen[sv->nlisten]) == -1)
				conf_error(p, e->line,
					   "[server] listen: expected ADDR[:PORT] or [IPV6]:PORT, "
					   "got '%s'",
					   e->value);
			else
				sv->nlisten++;
		} else if (strcmp(e->key, "control") == 0) {
			if (strcmp(e->value, "none") == 0)
				sv->has_control = 0;
			else if (addr_parse_sockaddr(e->value, AUTHD_CONTROL_PORT, &sv->control) ==
				 -1)
				conf_error(p, e->line,
					   "[server] control: expected ADDR[:PORT], [IPV6]:PORT or "
					   "none, got '%s'",
					   e->value);
			else
				sv->has_control = 2; /* set: no default */
		} else if (strcmp(e->key, "quorum") == 0) {
			char *end;
			double q;

			errno = 0;
			q = strtod(e->value, &end);
			if (errno || end == e->value || *end || !(q >= 0 && q < 1))
				conf_error(p, e->line,
					   "[server] quorum: expected a share from 0 to below 1 "
					   "(e.g. 0.5), got '%s'",
					   e->value);
			else
				sv->quorum = q;
		} else if (strcmp(e->key, "all_dead") == 0) {
			if (conf_all_dead(e->value, &sv->all_dead) == -1)
				conf_error(p, e->line,
					   "[server] all_dead: expected fail-open or fail-closed, "
					   "got '%s'",
					   e->value);
		} else if (strcmp(e->key, "udp_max") == 0) {
			if (conf_ulong(e->value, 512, 4096, &v) == -1)
				conf_error(p, e->line,
					   "[server] udp_max: expected a size from 512 to 4096, "
					   "got '%s'",
					   e->value);
			else
				sv->udp_max = (uint16_t)v;
		} else if (strcmp(e->key, "proximity_stale") == 0) {
			conf_duration(p, e, "3s", &sv->proximity_stale_ns);
		} else if (strcmp(e->key, "tcp_idle") == 0) {
			conf_duration(p, e, "10s", &sv->tcp_idle_ns);
		} else if (strcmp(e->key, "tcp_max") == 0) {
			if (conf_ulong(e->value, 1, 65536, &v) == -1)
				conf_error(p, e->line,
					   "[server] tcp_max: expected a number of connections "
					   "(1-65536), got '%s'",
					   e->value);
			else
				sv->tcp_max = (int)v;
		}
	}
}

static void conf_site(struct conf_parse *p, const struct conf_sect *s)
{
	struct authd_site *site;

	if (!conf_id_ok(s->name, AUTHD_SITE_LEN)) {
		conf_error(p, s->line,
			   "[site %s]: expected a site name of 1 to %d letters, digits, '.', '_' "
			   "or '-'",
			   s->name, AUTHD_SITE_LEN);
		return;
	}
	if (p->db->nsites == AUTHD_MAX_SITES) {
		conf_error(p, s->line, "too many sites (at most %d)", AUTHD_MAX_SITES);
		return;
	}
	site = &p->db->sites[p->db->nsites++];
	strcpy(site->name, s->name);
	site->line = s->line;
	for (int i = 0; i < s->n; i++) {
		const struct conf_entry *e = &s->e[i];
		uint8_t addr[16];
		int f;

		if (inet_pton(AF_INET, e->value, addr) == 1) {
			f = AUTHD_V4;
		} else if (inet_pton(AF_INET6, e->value, addr) == 1) {
			f = AUTHD_V6;
		} else {
			conf_error(p, e->line,
				   "[site %s] address: expected an IPv4 or IPv6 address, got '%s'",
				   s->name, e->value);
			continue;
		}
		if (site->naddr[f] == AUTHD_SITE_ADDRS) {
			conf_error(p, e->line, "[site %s] address: at most %d of each family",
				   s->name, AUTHD_SITE_ADDRS);
			continue;
		}
		memcpy(site->addr[f][site->naddr[f]++], addr, 16);
	}
	if (conf_get(s, "address") == NULL)
		conf_error(p, s->line, "[site %s]: expected at least one 'address = ADDR'",
			   s->name);
}

/* conf_build: the sections into p->db, in dependency order. */
static void conf_build(struct conf_parse *p)
{
	for (int i = 0; i < p->nsects; i++)
		if (p->sects[i].kind == CONF_SERVER)
			conf_server(p, &p->sects[i]);
	if (p->db->server.nlisten == 0) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&p->db->server.listen[0];

		sin->sin_family = AF_INET;
		sin->sin_port = htons(AUTHD_PORT);
		p->db->server.nlisten = 1;
	}
	for (int i = 0; i < p->nsects; i++)
		if (p->sects[i].kind == CONF_SITE)
			conf_site(p, &p->sects[i]);
	for (int i = 0; i < p->nsects; i++)
		if (p->sects[i].kind == CONF_ZONE)
			conf_zone_new(p, &p->sects[i]);
	for (int i = 0; i < p->nsects; i++)
		if (p->sects[i].kind == CONF_ZONE)
			conf_zone_data(p, &p->sects[i]);
	for (int i = 0; i < p->nsects; i++)
		if (p->sects[i].kind == CONF_NAME)
			conf_name(p, &p->sects[i]);
	if (p->db->nzones == 0)
		conf_error(p, 0, "no [zone NAME] section: authd would answer nothing");
}

/* conf_control_default: unless the file said otherwise (or none), probers
 * report to 0.0.0.0:5353. */
static void conf_control_default(struct authd_db *db, const struct conf_parse *p)
{
	int said = 0;

	for (int i = 0; i < p->nsects; i++)
		if (p->sects[i].kind == CONF_SERVER && conf_get(&p->sects[i], "control"))
			said = 1;
	if (!said) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&db->server.control;

		memset(&db->server.control, 0, sizeof(db->server.control));
		sin->sin_family = AF_INET;
		sin->sin_port = htons(AUTHD_CONTROL_PORT);
		db->server.has_control = 1;
	} else if (db->server.has_control) {
		db->server.has_control = 1;
	}
}

static void conf_parse_free(struct conf_parse *p)
{
	for (int i = 0; i < p->nsects; i++) {
		for (int j = 0; j < p->sects[i].n; j++) {
			free(p->sects[i].e[j].key);
			free(p->sects[i].e[j].value);
		}
		free(p->sects[i].e);
		free(p->sects[i].name);
	}
	free(p->sects);
}

struct authd_db *authd_conf_load_stream(FILE *f, const char *path, FILE *err)
{
	struct conf_parse p = {.cur = CONF_SECT_NONE};
	int fin;

	p.in = (struct inifile){.path = path,
				.err = err,
				.max_errors = AUTHD_MAX_ERRORS,
				.flags = INI_INDENT | INI_HEADER_STRICT | INI_LINE_MARKS,
				.kinds = conf_section_kinds,
				.section = conf_section,
				.pair = conf_pair,
				.arg = &p};

	p.db = authd_db_new();
	if (p.db == NULL) {
		fprintf(err, "%s: out of memory\n", path);
		return NULL;
	}
	inifile_read(&p.in, f);
	if (p.in.nerrors == 0) {
		conf_build(&p);
		conf_control_default(p.db, &p);
	}
	if (p.in.nerrors == 0) {
		fin = authd_db_finalize(p.db, path, err);
		if (fin < 0)
			conf_error(&p, 0, "out of memory");
		else
			p.in.nerrors += fin;
		conf_soa(p.db);
	}
	conf_parse_free(&p);
	if (p.in.nerrors) {
		authd_db_free(p.db);
		return NULL;
	}
	return p.db;
}

struct authd_db *authd_conf_load(const char *path, FILE *err)
{
	struct authd_db *db;
	FILE *f = fopen(path, "r");

	if (f == NULL) {
		fprintf(err, "%s: %s\n", path, strerror(errno));
		return NULL;
	}
	db = authd_conf_load_stream(f, path, err);
	fclose(f);
	return db;
}
