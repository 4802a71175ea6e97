/* The line reader our INI parsers hand to inih; see ini_lines.h. */
#include "ini_lines.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

static void ini_lines_error(struct ini_lines *l, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ini_lines_error: formats the message for l->error (the rejected line it
 * quotes may be as long as inih's buffer). */
static void ini_lines_error(struct ini_lines *l, int line, const char *fmt, ...)
{
	char *msg;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	l->error(l->arg, line, msg ? msg : "out of memory");
	free(msg);
}

char *ini_lines_read(char *str, int num, void *stream)
{
	struct ini_lines *l = stream;
	size_t len;
	ssize_t n;
	char *s;
	int blank;

	if (l->want_pair && !l->handled)
		ini_lines_error(l, l->lineno,
				"expected 'key = value', a [section] or a comment, got '%s'",
				l->text);
	l->want_pair = 0;
	if (l->nerrors && *l->nerrors > l->max_errors)
		return NULL;
	errno = 0;
	n = getline(&l->buf, &l->bufsz, l->f);
	if (n < 0) {
		if (ferror(l->f))
			ini_lines_error(l, 0, "%s", strerror(errno ? errno : EIO));
		return NULL;
	}
	l->lineno++;
	len = (size_t)n;
	while (len > 0 && (l->buf[len - 1] == '\n' || l->buf[len - 1] == '\r'))
		l->buf[--len] = '\0';
	s = l->buf;
	if (l->lineno == 1 && strncmp(s, "\xEF\xBB\xBF", 3) == 0) {
		s += 3;
		len -= 3;
	}
	snprintf(str, (size_t)num, "\n");
	if (strlen(s) != len) {
		ini_lines_error(l, l->lineno, "unexpected NUL byte");
		l->lost++;
		return str;
	}
	l->indented = *s == ' ' || *s == '\t';
	s += strspn(s, " \t");
	for (char *e = s + strlen(s); e > s && (e[-1] == ' ' || e[-1] == '\t');)
		*--e = '\0';
	l->text = s;
	blank = *s == '\0' || *s == ';' || *s == '#';
	if (l->flags & INI_LINES_LONG_BLANK)
		len = blank ? 0 : strlen(s);
	if (len + 2 > (size_t)num) {
		ini_lines_error(l, l->lineno, "line too long (at most %d characters)", num - 2);
		l->lost++;
		return str;
	}
	if (blank)
		return str;
	if (*s == '[') {
		l->header(l->arg, s);
		snprintf(str, (size_t)num, "[-]\n"); /* so that inih forgets the last key */
		return str;
	}
	snprintf(str, (size_t)num, "%s%s\n",
		 l->indented && (l->flags & INI_LINES_INDENT) ? " " : "", s);
	l->want_pair = 1;
	l->handled = 0;
	return str;
}

void ini_lines_free(struct ini_lines *l)
{
	free(l->buf);
	l->buf = NULL;
	l->bufsz = 0;
}
