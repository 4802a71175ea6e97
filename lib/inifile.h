/*
 * inifile: the one INI front-end of the lab's files (lab/topology/topology.c,
 * agents/authd/conf.c, agents/resolverd/config.c).
 *
 * It reads a file line by line and hands its user three things: section
 * headers split into words, key = value pairs with the line they are on,
 * and one error printer, "file:line: message", that counts and stops at a
 * cap ("file: too many errors, stopping").
 *
 * Why not inih. Debian 12's libinih-dev (r55-1) installs an ini.h that
 * says INI_HANDLER_LINENO 0 and INI_CALL_HANDLER_ON_NEW_SECTION 0: both
 * are compile-time options of the library itself. Probed on this machine
 * (2026-11): a [section] without keys never reaches the handler, and the
 * shared library does pass a fifth argument, the line, to the handler
 * (objdump: %r8d at every call) although its own header declares a
 * four-argument handler; code that defines INI_HANDLER_LINENO to get it
 * works on this build of inih and reads garbage on another. Getting
 * "file:line:" otherwise meant relying on when inih calls back relative
 * to its reader (the old lib/ini_lines), an implementation detail. What
 * we used of inih, splitting "key = value", is a few lines, so the parser
 * is here, with its tests (tests/unit/test_inifile.c). The grammar is the
 * one the files had under inih, byte for byte in what is accepted and
 * what is said:
 *
 *   - a line is at most INI_MAX_LINE - 2 characters once its end of line
 *     is gone (with INI_LONG_BLANK, once trimmed, and comments may be any
 *     length); a UTF-8 BOM on line 1 is dropped; a NUL byte is refused;
 *   - blank lines and lines starting with ';' or '#' are comments;
 *   - "[kind name ...]" is a header, words split on blanks; a ';' or '#'
 *     comment may follow the ']' (not with INI_HEADER_STRICT);
 *   - any other line is "key = value" or "key: value" split at the first
 *     '=' or ':'; a ';' after white space starts a comment; key and value
 *     are trimmed;
 *   - an indented line after a pair continues it (the key is the previous
 *     one); with INI_INDENT the user is told (in->indented) and refuses it
 *     with "unexpected indentation", without it indentation is ignored;
 *   - with INI_LINE_MARKS, a line "#line N" (N >= 1) is a comment that
 *     numbers the line after it N.
 */
#ifndef STEERLAB_INIFILE_H
#define STEERLAB_INIFILE_H

#include <stdarg.h>
#include <stdio.h>

/* inih's default line buffer: the longest line is INI_MAX_LINE - 2. */
#define INI_MAX_LINE 200

/* flags */
#define INI_INDENT 1	    /* an indented line continues the pair before; refused */
#define INI_LONG_BLANK 2    /* only the trimmed text of a non-comment line must fit */
#define INI_HEADER_STRICT 4 /* nothing, not even a comment, after a header's ']' */
/* a comment line "#line N" numbers the next line N: a file another file
 * was made from (authd's from a topology) names that file's lines, and a
 * generated line the line it was generated from (lab/build/dnsconf.h) */
#define INI_LINE_MARKS 8

struct inifile {
	/* set by the caller */
	const char *path; /* in every message */
	FILE *err;	  /* NULL: say nothing, count */
	int max_errors;	  /* past it: "too many errors, stopping", reading stops */
	int flags;
	const char *kinds; /* "expected [a] or [b NAME]", for the messages */
	/* a header's words (name, extra NULL if absent); returns 0 to take
	 * the pairs that follow, -1 to drop them (it said why) */
	int (*section)(void *arg, const char *kind, const char *name, const char *extra);
	/* a pair of a section taken, key not empty */
	void (*pair)(void *arg, const char *key, const char *value);
	void *arg;

	/* kept by inifile_read */
	int nerrors;
	int error_line;	   /* of the first error, if it was on a line */
	int lineno;	   /* the line of the header or pair handled */
	const char *text;  /* that line, trimmed */
	int indented;	   /* it started with a blank */
	int lost;	   /* lines not read (NUL byte, too long) */
	int state;	   /* before any section, in one taken, in one dropped */
	int sect_pairs;	   /* pairs since the last header */
	int header_words;  /* words of the header handled: 1 for [lab], 3 for [a b c] */
	char prev_key[50]; /* what an indented line continues */
};

/* The largest file inifile_open reads: a topology of TOPO_MAX_NODES nodes
 * is a few hundred KB; this bounds what a mistaken path can cost. */
#define INI_MAX_FILE (64L << 20)

/* inifile_open: path for reading, if it is a regular file of at most
 * INI_MAX_FILE bytes: not a FIFO (which would block for a writer), a device
 * (/dev/zero never ends) or a directory. Opened without blocking, then
 * checked on the descriptor. The stream, or NULL with the reason in why
 * (errno's text, or "not a regular file (a FIFO)", "larger than 64 MB"). */
FILE *inifile_open(const char *path, char *why, size_t len);

/* inifile_read: reads f to its end (or past in->max_errors), calling
 * in->section and in->pair. Returns in->nerrors. */
int inifile_read(struct inifile *in, FILE *f);

/* inifile_scan: reads the file at path silently (flags INI_LONG_BLANK),
 * calling section and pair with arg, for a program that reads a file the
 * lab wrote (the analysis, a run's topology.ini). Returns 0, the line of
 * the first error (-1 if not on a line), or -1 if it cannot be opened. */
int inifile_scan(const char *path,
		 int (*section)(void *arg, const char *kind, const char *name, const char *extra),
		 void (*pair)(void *arg, const char *key, const char *value), void *arg);

/* inifile_error: "path:line: message" on in->err (line 0: "path: message"),
 * counted; past in->max_errors only "path: too many errors, stopping",
 * once. */
void inifile_error(struct inifile *in, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* inifile_verror: the same, with prefix ("--set x=y") in place of path:line
 * when not NULL. */
void inifile_verror(struct inifile *in, int line, const char *prefix, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));

#endif
