/*
 * Reading resolverd's configuration file (config.h): its sections and
 * key = value pairs, through lib/inifile.h. Indentation is ignored and a long
 * comment is fine. p->in.lineno is the line of the header or pair handled.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "config_int.h"
#include "timeutil.h"

static const char *rsv_sect_kinds = "expected [resolverd], [resolver NAME] or [resolvers PREFIX]";

void rsv_conf_error(struct rsv_parse *p, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	inifile_verror(&p->in, line, NULL, fmt, ap);
	va_end(ap);
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

/* rsv_conf_header: a header's words. Sets p->cur. */
static void rsv_conf_header(struct rsv_parse *p, const char *kind, const char *name,
			    const char *extra)
{
	p->cur = RSV_CUR_SKIP;
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

static int rsv_conf_section(void *arg, const char *kind, const char *name, const char *extra)
{
	struct rsv_parse *p = arg;

	rsv_conf_header(p, kind, name, extra);
	return p->cur == RSV_CUR_SKIP ? -1 : 0;
}

static void rsv_conf_pair(void *arg, const char *name, const char *value)
{
	struct rsv_parse *p = arg;

	rsv_conf_set(p, &p->sects[p->cur], name, value, p->in.lineno);
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
	c->transport = 4;
	rsv_conf_defaults(&c->defaults);
}

int rsv_conf_load_stream(struct rsv_conf *c, FILE *f, const char *name, FILE *err)
{
	struct rsv_parse p = {.c = c, .cur = RSV_CUR_NONE};

	p.in = (struct inifile){.path = name,
				.err = err,
				.max_errors = RSV_MAX_ERRORS,
				.flags = INI_LONG_BLANK | INI_LINE_MARKS,
				.kinds = rsv_sect_kinds,
				.section = rsv_conf_section,
				.pair = rsv_conf_pair,
				.arg = &p};

	rsv_conf_process_defaults(c);
	inifile_read(&p.in, f);
	if (p.in.nerrors <= RSV_MAX_ERRORS)
		rsv_conf_finish(&p);
	for (int i = 0; i < p.nsects; i++)
		free(p.sects[i].where);
	free(p.sects);
	if (p.in.nerrors) {
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
