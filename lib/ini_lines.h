/*
 * ini_lines: the line reader our INI parsers hand to inih.
 *
 * inih splits "key = value"; the rest is ours. Debian's inih is built
 * without INI_HANDLER_LINENO and never calls the handler for a section
 * header, so a parser that wants "file:line:" in its messages, or a
 * [section] without keys, cannot use ini_parse_file(). Instead each parser
 * (agents/authd/conf.c, agents/resolverd/config.c, lab/topology.c) fills a
 * struct ini_lines and calls
 *
 *	ini_parse_stream(ini_lines_read, &lines, handler, user);
 *
 * ini_lines_read() is an ini_reader that:
 *
 *   - reads a line with getline() and counts it (l->lineno), dropping a
 *     UTF-8 BOM on line 1;
 *   - refuses a line with a NUL byte or one too long for inih's buffer;
 *   - trims it (l->text) and notes whether it was indented (l->indented);
 *   - gives "[...]" headers to l->header, not to inih, and hands inih
 *     "[-]" instead so that it forgets the last key;
 *   - notices a pair line that inih rejected: the handler was not called
 *     for it (the handler sets l->handled) before the next read.
 *
 * inih calls the handler right after the reader returns a line, so
 * l->lineno is the line of the pair being handled. What is wrong with a
 * line is reported through l->error with the line and the message; the
 * parser prints it its own way and counts it.
 */
#ifndef STEERLAB_INI_LINES_H
#define STEERLAB_INI_LINES_H

#include <stddef.h>
#include <stdio.h>

/*
 * flags:
 *   INI_LINES_INDENT      an indented pair line goes to inih indented (one
 *                         space), so that it joins it to the pair before;
 *                         the handler sees l->indented and can refuse it
 *   INI_LINES_LONG_BLANK  a long blank or comment line is fine: only the
 *                         trimmed text of other lines must fit inih's buffer
 */
#define INI_LINES_INDENT 1
#define INI_LINES_LONG_BLANK 2

struct ini_lines {
	/* set by the caller */
	FILE *f;
	int flags;
	void (*error)(void *arg, int line, const char *msg); /* line 0: the file */
	void (*header)(void *arg, char *s);		     /* a "[...]" line, s at the '[' */
	void *arg;
	const int *nerrors; /* the caller's error count: reading stops past max_errors */
	int max_errors;

	/* the line just read */
	int lineno;
	char *text;   /* trimmed */
	int indented; /* it started with white space */
	int lost;     /* lines not read (NUL byte, too long): what is missing may be there */

	char *buf; /* getline's */
	size_t bufsz;
	int want_pair; /* inih should call the handler for it */
	int handled;   /* set to 1 by the inih handler */
};

/* ini_lines_read: an ini_reader; stream is a struct ini_lines. Reads the
 * next line of its file and fills str (num bytes, inih's buffer) with what
 * inih should see of it. Returns str, or NULL at the end of the file, on a
 * read error (reported, line 0) or once *nerrors passed max_errors. */
char *ini_lines_read(char *str, int num, void *stream);

/* ini_lines_free: frees l's buffer (not l->f). */
void ini_lines_free(struct ini_lines *l);

#endif
