/*
 * Reading resolverd's configuration file (config.h): lines, section
 * headers and key = value pairs.
 *
 * inih splits the pairs; the rest is ours. As in lab/topology.c, the file
 * reaches ini_parse_stream() through lib/ini_lines.h, which counts lines,
 * gives us the section headers (Debian's inih never calls the handler for
 * a header) and notices a pair line inih rejected. Pair lines go to inih
 * without their indentation (so inih never joins continuation lines), and
 * a long comment is fine. p->in.lineno is the line of the pair handled.
 */
#include "config.h"

#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "config_int.h"
#include "timeutil.h"

static const char *rsv_sect_kinds = "expected [resolverd], [resolver NAME] or [resolvers PREFIX]";

void rsv_conf_error(struct rsv_parse *p, int line, const char *fmt, ...)
{
	va_list ap;

	if (++p->nerrors > RSV_MAX_ERRORS) {
		if (p->nerrors == RSV_MAX_ERRORS + 1)
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

static int rsv_name_ok(const char *s)
{
	size_t n = strlen(s);

	return n >= 1 && n <= RSV_NAME_MAX &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

static struct rsv_sect *rsv_sect_new(struct rsv_parse *p, enum rsv_sect_kind kind, const char *name)
{
	struct rsv_sect *s;
	int nkeys;

	rsv_conf_keys(&nkeys);
	if (p->nsects == p->cap) {
		int cap = p->cap ? p->cap * 2 : 16;
		struct rsv_sect *n = realloc(p->sects, (size_t)cap * sizeof(*n));

		if (n == NULL)
			return NULL;
		p->sects = n;
		p->cap = cap;
	}
	s = &p->sects[p->nsects];
	memset(s, 0, sizeof(*s));
	if ((s->where = calloc((size_t)nkeys, sizeof(int))) == NULL)
		return NULL;
	s->kind = kind;
	snprintf(s->name, sizeof(s->name), "%s", name ? name : "");
	s->line = p->in.lineno;
	p->cur = p->nsects++;
	return s;
}

/* rsv_conf_header: a "[...]" line, s at the '['. Sets p->cur. */
static void rsv_conf_header(void *arg, char *s)
{
	struct rsv_parse *p = arg;
	char *end = strchr(s, ']'), *kind, *name, *extra, *save;
	const char *rest;

	p->cur = RSV_CUR_SKIP;
	if (end == NULL) {
		rsv_conf_error(p, p->in.lineno, "expected ']' to close the section header '%s'", s);
		return;
	}
	rest = end + 1 + strspn(end + 1, " \t");
	if (*rest != '\0' && *rest != ';' && *rest != '#') {
		rsv_conf_error(p, p->in.lineno, "unexpected '%s' after the section header", rest);
		return;
	}
	*end = '\0';
	kind = strtok_r(s + 1, " \t", &save);
	name = kind ? strtok_r(NULL, " \t", &save) : NULL;
	extra = name ? strtok_r(NULL, " \t", &save) : NULL;
	if (kind == NULL) {
		rsv_conf_error(p, p->in.lineno, "empty section header (%s)", rsv_sect_kinds);
		return;
	}
	if (strcmp(kind, "resolverd") == 0) {
		for (int i = 0; i < p->nsects; i++) {
			if (p->sects[i].kind == RSV_SECT_MAIN) {
				rsv_conf_error(p, p->in.lineno,
					       "duplicate [resolverd] section (first at line %d)",
					       p->sects[i].line);
				return;
			}
		}
		if (name)
			rsv_conf_error(p, p->in.lineno, "[resolverd] takes no name");
		else if (rsv_sect_new(p, RSV_SECT_MAIN, NULL) == NULL)
			rsv_conf_error(p, p->in.lineno, "out of memory");
		return;
	}
	if (strcmp(kind, "resolver") == 0 || strcmp(kind, "resolvers") == 0) {
		int group = kind[8] == 's';

		if (name == NULL || extra) {
			rsv_conf_error(p, p->in.lineno, "expected one name: [%s %s]", kind,
				       group ? "PREFIX" : "NAME");
			return;
		}
		if (!rsv_name_ok(name)) {
			rsv_conf_error(p, p->in.lineno,
				       "[%s %s]: expected a name of 1 to %d letters, digits, '.', "
				       "'_' or '-'",
				       kind, name, RSV_NAME_MAX);
			return;
		}
		if (rsv_sect_new(p, group ? RSV_SECT_GROUP : RSV_SECT_ONE, name) == NULL)
			rsv_conf_error(p, p->in.lineno, "out of memory");
		return;
	}
	rsv_conf_error(p, p->in.lineno, "unknown section '[%s]' (%s)", kind, rsv_sect_kinds);
}

/* rsv_conf_line_error: what ini_lines found wrong with a line. */
static void rsv_conf_line_error(void *arg, int line, const char *msg)
{
	rsv_conf_error(arg, line, "%s", msg);
}

static int rsv_conf_pair(void *user, const char *section, const char *name, const char *value)
{
	struct rsv_parse *p = user;

	(void)section; /* p->cur says more */
	p->in.handled = 1;
	if (p->cur == RSV_CUR_SKIP)
		return 1;
	if (p->cur == RSV_CUR_NONE)
		rsv_conf_error(p, p->in.lineno, "'%s' outside any section (%s first)", p->in.text,
			       rsv_sect_kinds);
	else if (*name == '\0')
		rsv_conf_error(p, p->in.lineno, "expected a key name before '='");
	else
		rsv_conf_set(p, &p->sects[p->cur], name, value, p->in.lineno);
	return 1;
}

static void rsv_conf_process_defaults(struct rsv_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->timeout_ns = 500 * NSEC_PER_MSEC;
	c->retries = 2;
	c->port = 53;
	c->tcp = 1;
	c->stats_ns = NSEC_PER_SEC;
	c->max_pending = 10000;
	rsv_conf_defaults(&c->defaults);
}

int rsv_conf_load_stream(struct rsv_conf *c, FILE *f, const char *name, FILE *err)
{
	struct rsv_parse p = {.c = c, .path = name, .err = err, .cur = RSV_CUR_NONE};
	int rc;

	p.in = (struct ini_lines){.f = f,
				  .flags = INI_LINES_LONG_BLANK,
				  .error = rsv_conf_line_error,
				  .header = rsv_conf_header,
				  .arg = &p,
				  .nerrors = &p.nerrors,
				  .max_errors = RSV_MAX_ERRORS};

	rsv_conf_process_defaults(c);
	rc = ini_parse_stream(ini_lines_read, &p.in, rsv_conf_pair, &p);
	if (rc == -2)
		rsv_conf_error(&p, 0, "out of memory");
	else if (rc > 0 && p.nerrors == 0) /* inih saw what the reader did not */
		rsv_conf_error(&p, rc, "malformed line");
	if (p.nerrors <= RSV_MAX_ERRORS)
		rsv_conf_finish(&p);
	for (int i = 0; i < p.nsects; i++)
		free(p.sects[i].where);
	free(p.sects);
	ini_lines_free(&p.in);
	if (p.nerrors) {
		rsv_conf_free(c);
		return -1;
	}
	return 0;
}

int rsv_conf_load(struct rsv_conf *c, const char *path, FILE *err)
{
	FILE *f = fopen(path, "r");
	int rc;

	if (f == NULL) {
		fprintf(err, "%s: %s\n", path, strerror(errno));
		memset(c, 0, sizeof(*c));
		return -1;
	}
	rc = rsv_conf_load_stream(c, f, path, err);
	fclose(f);
	return rc;
}

void rsv_conf_free(struct rsv_conf *c)
{
	free(c->inst);
	c->inst = NULL;
	c->ninst = 0;
}
