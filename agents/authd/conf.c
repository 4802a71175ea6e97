/* authd's configuration file; see conf.h and docs/authd.md. */
#include "conf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ini_lines.h"
#include "rdata.h"
#include "timeutil.h"

enum conf_kind {
	CONF_SERVER,
	CONF_ZONE,
	CONF_SITE,
	CONF_NAME,
	CONF_NKINDS,
};

static const char *conf_kind_names[CONF_NKINDS] = {"server", "zone", "site", "name"};

static const char *conf_section_kinds =
    "expected [server], [zone NAME], [site NAME] or [name NAME]";

struct conf_key {
	const char *name;
	int repeat;
};

static const struct conf_key conf_server_keys[] = {
    {"listen", 1},  {"control", 0},  {"quorum", 0},  {"all_dead", 0},
    {"udp_max", 0}, {"tcp_idle", 0}, {"tcp_max", 0}, {NULL, 0},
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
    {"policy", 0},    {"ttl", 0},     {"sites", 0},	    {"primary", 0},
    {"secondary", 0}, {"weight", 1},  {"weighted_mode", 0}, {"geo", 1},
    {"default", 0},   {"vantage", 1}, {"all_dead", 0},	    {NULL, 0},
};
static const struct conf_key *conf_keys[CONF_NKINDS] = {conf_server_keys, conf_zone_keys,
							conf_site_keys, conf_name_keys};

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
	const char *path;
	FILE *err;
	int nerrors;
	struct ini_lines in; /* the file, and the line being read */
	int sect_pairs;
	int cur;
	int nsects, cap;
	struct conf_sect *sects;
	struct authd_db *db;
};

static void conf_error(struct conf_parse *p, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void conf_error(struct conf_parse *p, int line, const char *fmt, ...)
{
	va_list ap;

	if (++p->nerrors > AUTHD_MAX_ERRORS) {
		if (p->nerrors == AUTHD_MAX_ERRORS + 1)
			fprintf(p->err, "%s: too many errors, stopping\n", p->path);
		return;
	}
	if (line > 0)
		fprintf(p->err, "%s:%d: ", p->path, line);
	else
		fprintf(p->err, "%s: ", p->path);
	va_start(ap, fmt);
	vfprintf(p->err, fmt, ap);
	va_end(ap);
	fputc('\n', p->err);
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

/* conf_header: a "[...]" line, s at the '['. Sets p->cur. */
static void conf_header(void *arg, char *s)
{
	struct conf_parse *p = arg;
	char *end = strchr(s, ']'), *kind, *name, *extra;
	int k;

	p->cur = CONF_SECT_SKIP;
	p->sect_pairs = 0;
	if (end == NULL) {
		conf_error(p, p->in.lineno, "expected ']' to close the section header '%s'", s);
		return;
	}
	if (end[1 + strspn(end + 1, " \t")] != '\0') {
		conf_error(p, p->in.lineno, "unexpected '%s' after the section header", end + 1);
		return;
	}
	*end = '\0';
	kind = strtok(s + 1, " \t");
	name = kind ? strtok(NULL, " \t") : NULL;
	extra = name ? strtok(NULL, " \t") : NULL;
	if (kind == NULL) {
		conf_error(p, p->in.lineno, "empty section header (%s)", conf_section_kinds);
		return;
	}
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

/* conf_line_error: what ini_lines found wrong with a line. */
static void conf_line_error(void *arg, int line, const char *msg)
{
	conf_error(arg, line, "%s", msg);
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

static int conf_pair(void *user, const char *section, const char *name, const char *value)
{
	struct conf_parse *p = user;

	(void)section; /* p->cur says more */
	p->in.handled = 1;
	if (p->in.indented && p->sect_pairs > 0) {
		conf_error(p, p->in.lineno,
			   "unexpected indentation: values do not continue on the next line");
		return 1;
	}
	if (*name)
		p->sect_pairs++;
	if (p->cur == CONF_SECT_SKIP)
		return 1;
	if (p->cur == CONF_SECT_NONE)
		conf_error(p, p->in.lineno, "'%s' outside any section (%s first)", p->in.text,
			   conf_section_kinds);
	else if (*name == '\0')
		conf_error(p, p->in.lineno, "expected a key name before '='");
	else
		conf_set(p, name, value);
	return 1;
}

/*
 * Values.
 */

static const struct conf_entry *conf_get(const struct conf_sect *s, const char *key)
{
	for (int i = 0; i < s->n; i++)
		if (strcmp(s->e[i].key, key) == 0)
			return &s->e[i];
	return NULL;
}

int authd_parse_sockaddr(const char *s, uint16_t default_port, struct sockaddr_storage *ss)
{
	char host[INET6_ADDRSTRLEN + 8];
	const char *port = NULL, *colon;
	unsigned long v = default_port;
	char *end;

	memset(ss, 0, sizeof(*ss));
	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		if (close == NULL || (size_t)(close - s - 1) >= sizeof(host))
			return -1;
		memcpy(host, s + 1, (size_t)(close - s - 1));
		host[close - s - 1] = '\0';
		if (close[1] == ':')
			port = close + 2;
		else if (close[1] != '\0')
			return -1;
	} else if ((colon = strchr(s, ':')) != NULL && strchr(colon + 1, ':') == NULL) {
		if ((size_t)(colon - s) >= sizeof(host))
			return -1;
		memcpy(host, s, (size_t)(colon - s));
		host[colon - s] = '\0';
		port = colon + 1;
	} else {
		if (strlen(s) >= sizeof(host))
			return -1;
		strcpy(host, s);
	}
	if (port) {
		errno = 0;
		v = strtoul(port, &end, 10);
		if (errno || end == port || *end || v == 0 || v > 65535 || port[0] == '-')
			return -1;
	}
	if (inet_pton(AF_INET, host, &((struct sockaddr_in *)ss)->sin_addr) == 1) {
		((struct sockaddr_in *)ss)->sin_family = AF_INET;
		((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)v);
		return 0;
	}
	if (inet_pton(AF_INET6, host, &((struct sockaddr_in6 *)ss)->sin6_addr) == 1) {
		((struct sockaddr_in6 *)ss)->sin6_family = AF_INET6;
		((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)v);
		return 0;
	}
	return -1;
}

const char *authd_sockaddr_str(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	char addr[INET6_ADDRSTRLEN];

	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;

		inet_ntop(AF_INET6, &s6->sin6_addr, addr, sizeof(addr));
		snprintf(buf, len, "[%s]:%u", addr, ntohs(s6->sin6_port));
	} else {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;

		inet_ntop(AF_INET, &s4->sin_addr, addr, sizeof(addr));
		snprintf(buf, len, "%s:%u", addr, ntohs(s4->sin_port));
	}
	return buf;
}

int authd_parse_prefix(const char *s, struct authd_prefix *p)
{
	char host[INET6_ADDRSTRLEN];
	const char *slash = strchr(s, '/');
	size_t n = slash ? (size_t)(slash - s) : strlen(s);
	unsigned long len;
	struct authd_prefix copy;
	char *end;

	memset(p, 0, sizeof(*p));
	if (n == 0 || n >= sizeof(host))
		return -1;
	memcpy(host, s, n);
	host[n] = '\0';
	if (inet_pton(AF_INET, host, p->addr) == 1)
		p->family = AF_INET;
	else if (inet_pton(AF_INET6, host, p->addr) == 1)
		p->family = AF_INET6;
	else
		return -1;
	len = p->family == AF_INET ? 32 : 128;
	if (slash) {
		unsigned long max = len;

		errno = 0;
		len = strtoul(slash + 1, &end, 10);
		if (errno || end == slash + 1 || *end || len > max || slash[1] == '-')
			return -1;
	}
	p->len = (uint8_t)len;
	/* no bits past the length: "198.18.0.1/24" is probably a mistake */
	copy = *p;
	memset(copy.addr, 0, sizeof(copy.addr));
	memcpy(copy.addr, p->addr, p->len / 8);
	if (p->len % 8)
		copy.addr[p->len / 8] = p->addr[p->len / 8] & (uint8_t)(0xff << (8 - p->len % 8));
	return memcmp(copy.addr, p->addr, sizeof(p->addr)) == 0 ? 0 : -1;
}

static int conf_id_ok(const char *s, size_t max)
{
	size_t n = strlen(s);

	return n > 0 && n <= max &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

static int conf_all_dead(const char *v, enum authd_all_dead *out)
{
	if (strcmp(v, "fail-open") == 0)
		*out = AUTHD_FAIL_OPEN;
	else if (strcmp(v, "fail-closed") == 0)
		*out = AUTHD_FAIL_CLOSED;
	else
		return -1;
	return 0;
}

static int conf_ulong(const char *v, unsigned long min, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(v, &end, 10);
	return errno || end == v || *end || v[0] == '-' || *out < min || *out > max ? -1 : 0;
}

/*
 * Interpreting.
 */

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
			else if (authd_parse_sockaddr(e->value, AUTHD_PORT,
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
			else if (authd_parse_sockaddr(e->value, AUTHD_CONTROL_PORT, &sv->control) ==
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
		} else if (strcmp(e->key, "tcp_idle") == 0) {
			int64_t ns;

			if (parse_duration_ns(e->value, &ns) == -1 || ns <= 0)
				conf_error(p, e->line,
					   "[server] tcp_idle: expected a duration such as 10s, "
					   "got '%s'",
					   e->value);
			else
				sv->tcp_idle_ns = ns;
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

static void conf_zone_new(struct conf_parse *p, const struct conf_sect *s)
{
	uint8_t apex[KNOT_DNAME_MAXLEN];
	struct authd_zone *z, **v;
	const struct conf_entry *e;

	if (authd_name_parse(s->name, NULL, apex) == -1) {
		conf_error(p, s->line, "[zone %s]: expected a domain name", s->name);
		return;
	}
	for (int i = 0; i < p->db->nzones; i++)
		if (knot_dname_is_equal(p->db->zones[i]->apex, apex)) {
			conf_error(p, s->line, "[zone %s]: the same zone as [zone %s] at line %d",
				   s->name, p->db->zones[i]->text, p->db->zones[i]->line);
			return;
		}
	v = realloc(p->db->zones, (size_t)(p->db->nzones + 1) * sizeof(*v));
	if (v == NULL)
		return;
	p->db->zones = v;
	z = calloc(1, sizeof(*z));
	if (z == NULL || (z->apex = knot_dname_copy(apex, NULL)) == NULL) {
		free(z);
		return;
	}
	snprintf(z->text, sizeof(z->text), "%s", s->name); /* as written, for messages */
	z->line = s->line;
	z->ttl = 30;
	if ((e = conf_get(s, "ttl")) && authd_ttl_parse(e->value, &z->ttl) == -1)
		conf_error(p, e->line, "[zone %s] ttl: expected a TTL such as 30 or 5m, got '%s'",
			   s->name, e->value);
	v[p->db->nzones++] = z;
}

static struct authd_zone *conf_zone_named(struct conf_parse *p, const char *name)
{
	uint8_t apex[KNOT_DNAME_MAXLEN];

	if (authd_name_parse(name, NULL, apex) == -1)
		return NULL;
	for (int i = 0; i < p->db->nzones; i++)
		if (knot_dname_is_equal(p->db->zones[i]->apex, apex))
			return p->db->zones[i];
	return NULL;
}

/* conf_add_record: one record at owner. */
static void conf_add_record(struct conf_parse *p, const knot_dname_t *owner, uint16_t type,
			    uint32_t ttl, const uint8_t *rd, int len, int line)
{
	struct authd_node *n = authd_db_node(p->db, owner, 1);
	int first = 0, ret;

	if (n == NULL) {
		conf_error(p, line, "out of memory");
		return;
	}
	if (n->line == 0)
		n->line = line;
	ret = authd_db_add_rdata(n, type, ttl, rd, (uint16_t)len, line, &first);
	if (ret == -2)
		conf_error(p, line,
			   "this record's TTL %u differs from its RRset's, set at line %d (RFC "
			   "2181: one TTL per RRset)",
			   ttl, first);
	else if (ret == -1)
		conf_error(p, line, "out of memory");
}

/* conf_record: "OWNER [TTL] [IN] TYPE RDATA" in zone z. */
static void conf_record(struct conf_parse *p, struct authd_zone *z, const struct conf_entry *e)
{
	char owner_txt[KNOT_DNAME_TXT_MAXLEN + 1], word[64], why[200];
	uint8_t owner[KNOT_DNAME_MAXLEN], rd[4096];
	const char *s = e->value, *rest;
	uint32_t ttl = z->ttl;
	uint16_t type;
	struct authd_zone *in;
	size_t n;
	int len;

	n = strcspn(s, " \t");
	if (n >= sizeof(owner_txt)) {
		conf_error(p, e->line, "[zone %s] record: owner name too long", z->text);
		return;
	}
	memcpy(owner_txt, s, n);
	owner_txt[n] = '\0';
	s += n;
	for (int i = 0; i < 3; i++) {
		s += strspn(s, " \t");
		n = strcspn(s, " \t");
		if (n == 0 || n >= sizeof(word))
			break;
		memcpy(word, s, n);
		word[n] = '\0';
		rest = s + n;
		if (i == 0 && word[0] >= '0' && word[0] <= '9') {
			if (authd_ttl_parse(word, &ttl) == -1) {
				conf_error(p, e->line, "[zone %s] record: expected a TTL, got '%s'",
					   z->text, word);
				return;
			}
			s = rest;
			continue;
		}
		if (strcasecmp(word, "IN") == 0) {
			s = rest;
			continue;
		}
		break;
	}
	s += strspn(s, " \t");
	n = strcspn(s, " \t");
	if (n == 0 || n >= sizeof(word)) {
		conf_error(p, e->line, "[zone %s] record: expected OWNER [TTL] TYPE DATA, got '%s'",
			   z->text, e->value);
		return;
	}
	memcpy(word, s, n);
	word[n] = '\0';
	rest = s + n;
	if (authd_type_parse(word, &type) == -1) {
		conf_error(p, e->line,
			   "[zone %s] record: unsupported type '%s' (expected A, AAAA, CNAME, NS, "
			   "PTR, MX, SRV or TXT)",
			   z->text, word);
		return;
	}
	if (type == KNOT_RRTYPE_SOA) {
		conf_error(p, e->line,
			   "[zone %s] record: the SOA comes from the zone's 'soa' key, not from a "
			   "record",
			   z->text);
		return;
	}
	if (authd_name_parse(owner_txt, z->apex, owner) == -1) {
		conf_error(p, e->line, "[zone %s] record: expected an owner name, got '%s'",
			   z->text, owner_txt);
		return;
	}
	in = authd_db_zone_of(p->db, owner);
	if (in != z) {
		char txt[KNOT_DNAME_TXT_MAXLEN + 1];

		knot_dname_to_str(txt, owner, sizeof(txt));
		if (in)
			conf_error(p, e->line,
				   "[zone %s] record: %s is in [zone %s] (line %d): put the record "
				   "there",
				   z->text, txt, in->text, in->line);
		else
			conf_error(p, e->line, "[zone %s] record: %s is not in the zone", z->text,
				   txt);
		return;
	}
	rest += strspn(rest, " \t");
	len = authd_rdata_parse(type, rest, z->apex, rd, sizeof(rd), why, sizeof(why));
	if (len < 0) {
		conf_error(p, e->line, "[zone %s] record: %s %s", z->text, word, why);
		return;
	}
	conf_add_record(p, owner, type, ttl, rd, len, e->line);
}

static void conf_zone_data(struct conf_parse *p, const struct conf_sect *s)
{
	struct authd_zone *z = conf_zone_named(p, s->name);
	const struct conf_entry *e = conf_get(s, "soa");
	uint8_t rd[1024];
	char why[200];
	int len;

	if (z == NULL || z->line != s->line)
		return; /* reported by conf_zone_new */
	if (e == NULL) {
		conf_error(p, s->line,
			   "[zone %s]: expected 'soa = MNAME RNAME SERIAL REFRESH RETRY EXPIRE "
			   "MINIMUM'",
			   s->name);
	} else if ((len = authd_rdata_parse(KNOT_RRTYPE_SOA, e->value, z->apex, rd, sizeof(rd), why,
					    sizeof(why))) < 0) {
		conf_error(p, e->line, "[zone %s] soa: %s", s->name, why);
	} else {
		conf_add_record(p, z->apex, KNOT_RRTYPE_SOA, z->ttl, rd, len, e->line);
	}
	for (int i = 0; i < s->n; i++)
		if (strcmp(s->e[i].key, "record") == 0)
			conf_record(p, z, &s->e[i]);
}

static int conf_site_index(const struct authd_db *db, const char *name)
{
	for (int i = 0; i < db->nsites; i++)
		if (strcmp(db->sites[i].name, name) == 0)
			return i;
	return -1;
}

/* conf_slot: the slot of site (by db index) in nm, added if add. */
static int conf_slot(struct authd_name *nm, int site, int add)
{
	for (int i = 0; i < nm->nsites; i++)
		if (nm->sites[i] == site)
			return i;
	if (!add || nm->nsites == AUTHD_MAX_SITES)
		return -1;
	nm->sites[nm->nsites] = site;
	return nm->nsites++;
}

/* conf_site_ref: a site named in [name] key; -1 (reported) if unknown. */
static int conf_site_ref(struct conf_parse *p, const char *label, const struct conf_entry *e,
			 const char *name)
{
	char list[256] = "";
	size_t used = 0;
	int i = conf_site_index(p->db, name);

	if (i != -1)
		return i;
	for (int k = 0; k < p->db->nsites && used < sizeof(list); k++)
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", k ? ", " : "",
					 p->db->sites[k].name);
	conf_error(p, e->line, "%s %s: unknown site '%s' (sites: %s)", label, e->key, name,
		   p->db->nsites ? list : "none defined");
	return -1;
}

/* conf_site_list: "a b c" into nm's slots, in order. */
static void conf_site_list(struct conf_parse *p, const char *label, const struct conf_entry *e,
			   struct authd_name *nm)
{
	char *copy = strdup(e->value), *save = NULL;

	if (copy == NULL)
		return;
	for (char *w = strtok_r(copy, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
		int s = conf_site_ref(p, label, e, w);

		if (s == -1)
			continue;
		if (conf_slot(nm, s, 0) != -1)
			conf_error(p, e->line, "%s %s: site '%s' listed twice", label, e->key, w);
		else
			conf_slot(nm, s, 1);
	}
	free(copy);
}

static int conf_prober_index(struct authd_db *db, const char *id)
{
	char **v;

	for (int i = 0; i < db->nprobers; i++)
		if (strcmp(db->probers[i], id) == 0)
			return i;
	v = realloc(db->probers, (size_t)(db->nprobers + 1) * sizeof(*v));
	if (v == NULL)
		return -1;
	db->probers = v;
	if ((v[db->nprobers] = strdup(id)) == NULL)
		return -1;
	return db->nprobers++;
}

/* conf_two: "A B" into two words; 0 or -1. */
static int conf_two(const char *v, char *a, size_t alen, char *b, size_t blen)
{
	size_t n = strcspn(v, " \t");

	if (n == 0 || n >= alen)
		return -1;
	memcpy(a, v, n);
	a[n] = '\0';
	v += n;
	v += strspn(v, " \t");
	n = strcspn(v, " \t");
	if (n == 0 || n >= blen || v[n + strspn(v + n, " \t")] != '\0')
		return -1;
	memcpy(b, v, n);
	b[n] = '\0';
	return 0;
}

static const char *conf_policy_keys[] = {
    [AUTHD_SIMPLE] = "sites",
    [AUTHD_MULTIVALUE] = "sites",
    [AUTHD_FAILOVER] = "primary secondary",
    [AUTHD_WEIGHTED] = "weight weighted_mode",
    [AUTHD_GEOLOCATION] = "geo default sites",
    [AUTHD_LATENCY] = "sites vantage",
};

/* conf_key_allowed: does the policy take this key? */
static int conf_key_allowed(enum authd_policy_kind k, const char *key)
{
	const char *list = conf_policy_keys[k];
	size_t n = strlen(key);

	if (strcmp(key, "policy") == 0 || strcmp(key, "ttl") == 0 || strcmp(key, "all_dead") == 0)
		return 1;
	for (const char *w = list; (w = strstr(w, key)) != NULL; w += n)
		if ((w == list || w[-1] == ' ') && (w[n] == '\0' || w[n] == ' '))
			return 1;
	return 0;
}

static void conf_name_geo(struct conf_parse *p, const char *label, const struct conf_entry *e,
			  struct authd_name *nm)
{
	char net[64], site[64];
	struct authd_prefix pf;
	struct authd_geo *v;
	int s;

	if (conf_two(e->value, net, sizeof(net), site, sizeof(site)) == -1 ||
	    authd_parse_prefix(net, &pf) == -1) {
		conf_error(p, e->line,
			   "%s geo: expected NETWORK/LEN SITE (no bits set past LEN), got '%s'",
			   label, e->value);
		return;
	}
	if ((s = conf_site_ref(p, label, e, site)) == -1)
		return;
	v = realloc(nm->geo, (size_t)(nm->ngeo + 1) * sizeof(*v));
	if (v == NULL)
		return;
	nm->geo = v;
	v[nm->ngeo].net = pf;
	v[nm->ngeo].site = s; /* a db index until conf_name_slots */
	v[nm->ngeo].line = e->line;
	nm->ngeo++;
}

static void conf_name_vantage(struct conf_parse *p, const char *label, const struct conf_entry *e,
			      struct authd_name *nm)
{
	char net[64], id[64];
	struct authd_prefix pf;
	struct authd_vantage *v;
	int idx;

	if (conf_two(e->value, net, sizeof(net), id, sizeof(id)) == -1 ||
	    authd_parse_prefix(net, &pf) == -1 || !conf_id_ok(id, 32)) {
		conf_error(p, e->line,
			   "%s vantage: expected NETWORK/LEN PROBER_ID (an id of 1 to 32 letters, "
			   "digits, '.', '_' or '-'), got '%s'",
			   label, e->value);
		return;
	}
	idx = conf_prober_index(p->db, id);
	v = realloc(nm->vantage, (size_t)(nm->nvantage + 1) * sizeof(*v));
	if (v == NULL || idx == -1)
		return;
	nm->vantage = v;
	v[nm->nvantage].net = pf;
	v[nm->nvantage].prober = idx;
	v[nm->nvantage].line = e->line;
	nm->nvantage++;
}

static void conf_name_weight(struct conf_parse *p, const char *label, const struct conf_entry *e,
			     struct authd_name *nm)
{
	char site[64], w[32];
	unsigned long v;
	int s, slot;

	if (conf_two(e->value, site, sizeof(site), w, sizeof(w)) == -1 ||
	    conf_ulong(w, 1, 1000000, &v) == -1) {
		conf_error(p, e->line, "%s weight: expected SITE WEIGHT (1-1000000), got '%s'",
			   label, e->value);
		return;
	}
	if ((s = conf_site_ref(p, label, e, site)) == -1)
		return;
	if (conf_slot(nm, s, 0) != -1) {
		conf_error(p, e->line, "%s weight: site '%s' weighted twice", label, site);
		return;
	}
	slot = conf_slot(nm, s, 1);
	if (slot != -1)
		nm->weight[slot] = (uint32_t)v;
}

/* conf_name_policy: the keys of one policy into nm. */
static void conf_name_policy(struct conf_parse *p, const struct conf_sect *s, const char *label,
			     struct authd_name *nm)
{
	const struct conf_entry *e;
	int site;

	for (int i = 0; i < s->n; i++) {
		e = &s->e[i];
		if (!conf_key_allowed(nm->policy, e->key))
			conf_error(p, e->line, "%s %s: not a key of policy %s (its keys: %s)",
				   label, e->key, authd_policy_name(nm->policy),
				   conf_policy_keys[nm->policy]);
	}
	switch (nm->policy) {
	case AUTHD_SIMPLE:
	case AUTHD_MULTIVALUE:
	case AUTHD_LATENCY:
		if ((e = conf_get(s, "sites")) == NULL)
			conf_error(p, s->line, "%s: policy %s needs 'sites = SITE ...'", label,
				   authd_policy_name(nm->policy));
		else
			conf_site_list(p, label, e, nm);
		if (nm->policy != AUTHD_LATENCY)
			break;
		for (int i = 0; i < s->n; i++)
			if (strcmp(s->e[i].key, "vantage") == 0)
				conf_name_vantage(p, label, &s->e[i], nm);
		if (conf_get(s, "vantage") == NULL)
			conf_error(
			    p, s->line,
			    "%s: policy latency needs 'vantage = NETWORK/LEN PROBER_ID' lines",
			    label);
		break;
	case AUTHD_FAILOVER:
		if ((e = conf_get(s, "primary")) == NULL) {
			conf_error(p, s->line, "%s: policy failover needs 'primary = SITE'", label);
		} else if (strpbrk(e->value, " \t,")) {
			conf_error(p, e->line, "%s primary: expected one site, got '%s'", label,
				   e->value);
		} else if ((site = conf_site_ref(p, label, e, e->value)) != -1) {
			conf_slot(nm, site, 1);
		}
		if ((e = conf_get(s, "secondary")) == NULL)
			conf_error(
			    p, s->line,
			    "%s: policy failover needs 'secondary = SITE ...' (tried in order)",
			    label);
		else
			conf_site_list(p, label, e, nm);
		break;
	case AUTHD_WEIGHTED:
		for (int i = 0; i < s->n; i++)
			if (strcmp(s->e[i].key, "weight") == 0)
				conf_name_weight(p, label, &s->e[i], nm);
		if (conf_get(s, "weight") == NULL)
			conf_error(p, s->line,
				   "%s: policy weighted needs 'weight = SITE WEIGHT' lines", label);
		if ((e = conf_get(s, "weighted_mode"))) {
			if (strcmp(e->value, "random") == 0)
				nm->weighted_random = 1;
			else if (strcmp(e->value, "swrr") != 0)
				conf_error(p, e->line,
					   "%s weighted_mode: expected swrr or random, got '%s'",
					   label, e->value);
		}
		break;
	case AUTHD_GEOLOCATION:
		if ((e = conf_get(s, "sites")))
			conf_site_list(p, label, e, nm);
		for (int i = 0; i < s->n; i++)
			if (strcmp(s->e[i].key, "geo") == 0)
				conf_name_geo(p, label, &s->e[i], nm);
		/* geo and default sites are candidates too (fallback order after sites) */
		for (int i = 0; i < nm->ngeo; i++)
			nm->geo[i].site = conf_slot(nm, nm->geo[i].site, 1);
		if ((e = conf_get(s, "default")) &&
		    (site = conf_site_ref(p, label, e, e->value)) != -1)
			nm->default_site = conf_slot(nm, site, 1);
		if (conf_get(s, "geo") == NULL && conf_get(s, "default") == NULL)
			conf_error(
			    p, s->line,
			    "%s: policy geolocation needs 'geo = NETWORK/LEN SITE' lines or a "
			    "'default = SITE'",
			    label);
		break;
	}
}

static void conf_name(struct conf_parse *p, const struct conf_sect *s)
{
	static const char *policies = "simple, multivalue, failover, weighted, geolocation or "
				      "latency";
	uint8_t owner[KNOT_DNAME_MAXLEN];
	char label[KNOT_DNAME_TXT_MAXLEN + 16];
	const struct conf_entry *e;
	struct authd_name *nm, **v;
	struct authd_zone *z;
	struct authd_node *node;
	int k;

	snprintf(label, sizeof(label), "[name %s]", s->name);
	if (authd_name_parse(s->name, NULL, owner) == -1) {
		conf_error(p, s->line, "%s: expected a domain name", label);
		return;
	}
	if ((z = authd_db_zone_of(p->db, owner)) == NULL) {
		conf_error(p, s->line, "%s: not in any [zone]", label);
		return;
	}
	for (int i = 0; i < p->db->nnames; i++)
		if (knot_dname_is_equal(p->db->names[i]->owner, owner)) {
			conf_error(p, s->line, "%s: the same name as [name %s] at line %d", label,
				   p->db->names[i]->text, p->db->names[i]->line);
			return;
		}
	if ((e = conf_get(s, "policy")) == NULL) {
		conf_error(p, s->line, "%s: expected 'policy = %s'", label, policies);
		return;
	}
	for (k = AUTHD_SIMPLE; k <= AUTHD_LATENCY; k++)
		if (strcmp(e->value, authd_policy_name((enum authd_policy_kind)k)) == 0)
			break;
	if (k > AUTHD_LATENCY) {
		conf_error(p, e->line, "%s policy: expected %s, got '%s'", label, policies,
			   e->value);
		return;
	}
	v = realloc(p->db->names, (size_t)(p->db->nnames + 1) * sizeof(*v));
	if (v == NULL)
		return;
	p->db->names = v;
	nm = calloc(1, sizeof(*nm));
	if (nm == NULL || (nm->owner = knot_dname_copy(owner, NULL)) == NULL) {
		free(nm);
		return;
	}
	v[p->db->nnames++] = nm;
	knot_dname_to_str(nm->text, owner, sizeof(nm->text));
	nm->line = s->line;
	nm->policy = (enum authd_policy_kind)k;
	nm->ttl = z->ttl;
	nm->all_dead = AUTHD_FAIL_DEFAULT;
	nm->default_site = -1;
	if ((e = conf_get(s, "ttl")) && authd_ttl_parse(e->value, &nm->ttl) == -1)
		conf_error(p, e->line, "%s ttl: expected a TTL such as 30 or 5m, got '%s'", label,
			   e->value);
	if ((e = conf_get(s, "all_dead")) && conf_all_dead(e->value, &nm->all_dead) == -1)
		conf_error(p, e->line, "%s all_dead: expected fail-open or fail-closed, got '%s'",
			   label, e->value);
	conf_name_policy(p, s, label, nm);
	node = authd_db_node(p->db, owner, 1);
	if (node == NULL) {
		conf_error(p, s->line, "out of memory");
		return;
	}
	node->name = nm;
	if (node->line == 0)
		node->line = s->line;
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

/* conf_soa: each zone's SOA, for negative answers. */
static void conf_soa(struct authd_db *db)
{
	for (int i = 0; i < db->nzones; i++) {
		struct authd_zone *z = db->zones[i];
		const struct authd_rrset *soa;
		uint32_t min;

		if (z->apex_node == NULL ||
		    (soa = authd_node_rrset(z->apex_node, KNOT_RRTYPE_SOA)) == NULL)
			continue;
		z->soa = soa->rr;
		z->soa_neg = soa->rr;
		/* read unchecked: authd_rdata_parse wrote this rdata, two names
		 * and the five fields, never a packet */
		min = knot_soa_minimum(soa->rr.rrs.rdata);
		if (min < z->soa_neg.ttl)
			z->soa_neg.ttl = min;
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
	ini_lines_free(&p->in);
}

struct authd_db *authd_conf_load_stream(FILE *f, const char *path, FILE *err)
{
	struct conf_parse p = {.path = path, .err = err, .cur = CONF_SECT_NONE};
	int rc, fin;

	p.in = (struct ini_lines){.f = f,
				  .flags = INI_LINES_INDENT,
				  .error = conf_line_error,
				  .header = conf_header,
				  .arg = &p,
				  .nerrors = &p.nerrors,
				  .max_errors = AUTHD_MAX_ERRORS};

	p.db = authd_db_new();
	if (p.db == NULL) {
		fprintf(err, "%s: out of memory\n", path);
		return NULL;
	}
	rc = ini_parse_stream(ini_lines_read, &p.in, conf_pair, &p);
	if (rc == -2)
		conf_error(&p, 0, "out of memory");
	else if (rc > 0 && p.nerrors == 0) /* inih saw what the reader did not */
		conf_error(&p, rc, "malformed line");
	if (p.nerrors == 0) {
		conf_build(&p);
		conf_control_default(p.db, &p);
	}
	if (p.nerrors == 0) {
		fin = authd_db_finalize(p.db, path, err);
		if (fin < 0)
			conf_error(&p, 0, "out of memory");
		else
			p.nerrors += fin;
		conf_soa(p.db);
	}
	conf_parse_free(&p);
	if (p.nerrors) {
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
