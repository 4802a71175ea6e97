/* The lab's INI front-end; see inifile.h for the grammar and why not inih. */
#include "inifile.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

enum { INI_NONE, INI_TAKEN, INI_DROPPED };

void inifile_verror(struct inifile *in, int line, const char *prefix, const char *fmt, va_list ap)
{
	if (in->error_line == 0 && in->nerrors == 0 && prefix == NULL)
		in->error_line = line;
	if (in->err == NULL) {
		in->nerrors++;
		return;
	}
	if (++in->nerrors > in->max_errors) {
		if (in->nerrors == in->max_errors + 1)
			fprintf(in->err, "%s: too many errors, stopping\n", in->path);
		return;
	}
	if (prefix)
		fprintf(in->err, "%s: ", prefix);
	else if (line > 0)
		fprintf(in->err, "%s:%d: ", in->path, line);
	else
		fprintf(in->err, "%s: ", in->path);
	vfprintf(in->err, fmt, ap);
	fputc('\n', in->err);
}

void inifile_error(struct inifile *in, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	inifile_verror(in, line, NULL, fmt, ap);
	va_end(ap);
}

/* inifile_header: a "[...]" line, s at the '['. */
static void inifile_header(struct inifile *in, char *s)
{
	char *end = strchr(s, ']'), *kind, *name, *extra, *save;
	const char *rest;

	in->state = INI_DROPPED;
	in->sect_pairs = 0;
	in->prev_key[0] = '\0';
	if (end == NULL) {
		inifile_error(in, in->lineno, "expected ']' to close the section header '%s'", s);
		return;
	}
	rest = end + 1 + strspn(end + 1, " \t");
	if (in->flags & INI_HEADER_STRICT) {
		if (*rest != '\0') {
			inifile_error(in, in->lineno, "unexpected '%s' after the section header",
				      end + 1);
			return;
		}
	} else if (*rest != '\0' && *rest != ';' && *rest != '#') {
		inifile_error(in, in->lineno, "unexpected '%s' after the section header", rest);
		return;
	}
	*end = '\0';
	kind = strtok_r(s + 1, " \t", &save);
	name = kind ? strtok_r(NULL, " \t", &save) : NULL;
	extra = name ? strtok_r(NULL, " \t", &save) : NULL;
	in->header_words = (kind != NULL) + (name != NULL) + (extra != NULL);
	while (extra && strtok_r(NULL, " \t", &save))
		in->header_words++;
	if (kind == NULL) {
		inifile_error(in, in->lineno, "empty section header (%s)", in->kinds);
		return;
	}
	if (in->section(in->arg, kind, name, extra) == 0)
		in->state = INI_TAKEN;
}

/* inifile_pair: the prelude every user had: indentation, pairs before any
 * section or in a dropped one, an empty key. */
static void inifile_pair(struct inifile *in, const char *key, const char *value)
{
	if ((in->flags & INI_INDENT) && in->indented && in->sect_pairs > 0) {
		inifile_error(in, in->lineno,
			      "unexpected indentation: values do not continue on the next line");
		return;
	}
	if (*key && (in->flags & INI_INDENT))
		in->sect_pairs++;
	if (in->state == INI_DROPPED)
		return;
	if (in->state == INI_NONE)
		inifile_error(in, in->lineno, "'%s' outside any section (%s first)", in->text,
			      in->kinds);
	else if (*key == '\0')
		inifile_error(in, in->lineno, "expected a key name before '='");
	else
		in->pair(in->arg, key, value);
}

static char *inifile_rstrip(char *s)
{
	char *e = s + strlen(s);

	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static char *inifile_lskip(char *s)
{
	while (*s && isspace((unsigned char)*s))
		s++;
	return s;
}

/* inifile_find: the first of chars in s, or a ';' after white space (a
 * comment), or the end. */
static char *inifile_find(char *s, const char *chars)
{
	int was_space = 0;

	while (*s && (chars == NULL || strchr(chars, *s) == NULL) && !(was_space && *s == ';')) {
		was_space = isspace((unsigned char)*s);
		s++;
	}
	return s;
}

/* inifile_split: a line that is not blank, a comment or a header. Returns 0
 * if it was a pair (handled), -1 if not. */
static int inifile_split(struct inifile *in, int blank_before)
{
	char line[INI_MAX_LINE], *start, *end, *value;

	snprintf(line, sizeof(line), "%s%s", blank_before ? " " : "", in->text);
	start = line;
	if (in->lineno == 1 && strncmp(start, "\xEF\xBB\xBF", 3) == 0)
		start += 3; /* a second one: inih dropped it too */
	start = inifile_lskip(inifile_rstrip(start));
	if (*start == ';' || *start == '#' || *start == '\0')
		return -1;
	if (in->prev_key[0] && start > line) {
		/* inih r55 kept a continuation's comment in its value */
		inifile_pair(in, in->prev_key, start);
		return 0;
	}
	if (*start == '[') {
		if (*inifile_find(start + 1, "]") == ']')
			in->prev_key[0] = '\0';
		return -1;
	}
	end = inifile_find(start, "=:");
	if (*end != '=' && *end != ':')
		return -1;
	*end = '\0';
	inifile_rstrip(start);
	value = end + 1;
	end = inifile_find(value, NULL);
	*end = '\0';
	value = inifile_rstrip(inifile_lskip(value));
	snprintf(in->prev_key, sizeof(in->prev_key), "%s", start);
	inifile_pair(in, start, value);
	return 0;
}

/* inifile_line_mark: "#line N" numbers the next line N (INI_LINE_MARKS) */
static void inifile_line_mark(struct inifile *in, const char *s)
{
	char *end;
	long n;

	if (!(in->flags & INI_LINE_MARKS) || strncmp(s, "#line ", 6) != 0 ||
	    !isdigit((unsigned char)s[6]))
		return;
	errno = 0;
	n = strtol(s + 6, &end, 10);
	if (errno == 0 && *end == '\0' && n >= 1 && n < INT_MAX)
		in->lineno = (int)n - 1;
}

int inifile_read(struct inifile *in, FILE *f)
{
	char *buf = NULL, *s;
	size_t bufsz = 0, len;
	ssize_t n;
	int blank;

	in->state = INI_NONE;
	in->lineno = 0;
	in->prev_key[0] = '\0';
	while (in->nerrors <= in->max_errors) {
		errno = 0;
		n = getline(&buf, &bufsz, f);
		if (n < 0) {
			if (ferror(f))
				inifile_error(in, 0, "%s", strerror(errno ? errno : EIO));
			break;
		}
		in->lineno++;
		len = (size_t)n;
		while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
			buf[--len] = '\0';
		s = buf;
		if (in->lineno == 1 && strncmp(s, "\xEF\xBB\xBF", 3) == 0) {
			s += 3;
			len -= 3;
		}
		if (strlen(s) != len) {
			inifile_error(in, in->lineno, "unexpected NUL byte");
			in->lost++;
			continue;
		}
		in->indented = *s == ' ' || *s == '\t';
		s += strspn(s, " \t");
		for (char *e = s + strlen(s); e > s && (e[-1] == ' ' || e[-1] == '\t');)
			*--e = '\0';
		in->text = s;
		blank = *s == '\0' || *s == ';' || *s == '#';
		if (in->flags & INI_LONG_BLANK)
			len = blank ? 0 : strlen(s);
		if (len + 2 > INI_MAX_LINE) {
			inifile_error(in, in->lineno, "line too long (at most %d characters)",
				      INI_MAX_LINE - 2);
			in->lost++;
			continue;
		}
		if (blank) {
			inifile_line_mark(in, s);
			continue;
		}
		if (*s == '[') {
			inifile_header(in, s);
			continue;
		}
		if (inifile_split(in, in->indented && (in->flags & INI_INDENT)) < 0)
			inifile_error(in, in->lineno,
				      "expected 'key = value', a [section] or a comment, got '%s'",
				      in->text);
	}
	free(buf);
	return in->nerrors;
}

/* inifile_kind: what a file that is not a regular one is */
static const char *inifile_kind(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a file";
}

FILE *inifile_open(const char *path, char *why, size_t len)
{
	struct stat st;
	FILE *f;
	int fd, flags;

	/* O_NONBLOCK: opening a FIFO with no writer must not wait for one */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd == -1) {
		snprintf(why, len, "%s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) == -1) {
		snprintf(why, len, "%s", strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, len, "not a regular file (%s): expected a file",
			 inifile_kind(st.st_mode));
		goto fail;
	}
	if (st.st_size > INI_MAX_FILE) {
		snprintf(why, len, "%lld bytes: larger than the %ld MB a file of the lab may be",
			 (long long)st.st_size, INI_MAX_FILE >> 20);
		goto fail;
	}
	if ((flags = fcntl(fd, F_GETFL)) == -1 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == -1 ||
	    (f = fdopen(fd, "r")) == NULL) {
		snprintf(why, len, "%s", strerror(errno));
		goto fail;
	}
	return f;
fail:
	close(fd);
	return NULL;
}

int inifile_scan(const char *path,
		 int (*section)(void *arg, const char *kind, const char *name, const char *extra),
		 void (*pair)(void *arg, const char *key, const char *value), void *arg)
{
	struct inifile in = {.path = path,
			     .max_errors = INT_MAX - 1,
			     .flags = INI_LONG_BLANK,
			     .kinds = "",
			     .section = section,
			     .pair = pair,
			     .arg = arg};
	char why[128];
	FILE *f = inifile_open(path, why, sizeof(why));

	if (f == NULL)
		return -1;
	inifile_read(&in, f);
	fclose(f);
	return in.nerrors == 0 ? 0 : in.error_line > 0 ? in.error_line : -1;
}
