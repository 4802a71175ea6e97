/*
 * Every agent's command line, as a table (after OpenBSD's and libnl's
 * tools): one struct opt per flag names the letter, the type, where the
 * value goes, its bounds and what is expected of it. opt_parse() builds
 * getopt's option string from the table (with a leading ':', so that a
 * missing argument is told apart), takes each flag in turn, and on an
 * error prints the same text every agent printed by hand before:
 *
 *   PROG: -X: missing argument
 *   PROG: unknown flag -X
 *   PROG: -X: expected WHAT, got 'ARG'
 *   PROG: unexpected argument 'ARG'
 *
 * each followed by the usage text, and exits 1. -h prints the help to
 * standard output and exits 0. Checks between flags ("-L replaces -m and
 * -R") stay in the agent, after opt_parse(), and fail with opt_refuse().
 */
#ifndef STEERLAB_OPT_H
#define STEERLAB_OPT_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum opt_type {
	OPT_T_FLAG,	/* int: 1 */
	OPT_T_COUNT,	/* int: one more each time (-v -v) */
	OPT_T_STR,	/* const char *: the argument itself */
	OPT_T_INT,	/* an integer of any width: strtonum(3) within min..max */
	OPT_T_DURATION, /* int64_t ns: lib/timeutil's parse_duration_ns within min..max */
	OPT_T_ADDR,	/* struct sockaddr_in: IPv4 ADDR[:PORT], port default .port */
	OPT_T_PREFIX,	/* struct opt_prefix: lib/announce's parse_prefix */
	OPT_T_NAME,	/* const char *: 1 to max of [A-Za-z0-9._-] */
	OPT_T_CALL,	/* .parse(arg, dst, &what), once per occurrence */
};

/* an IPv4 prefix (OPT_T_PREFIX) */
struct opt_prefix {
	struct in_addr addr;
	int len;
};

/* opt_parse_fn: arg into dst; 0, or -1 to fail with "expected WHAT",
 * WHAT being the table's unless the function sets *what to another. *what
 * NULL: the function has said why itself; exit 1 without a word more. */
typedef int (*opt_parse_fn)(const char *arg, void *dst, const char **what);

struct opt {
	int flag; /* the letter; 0 ends the table */
	enum opt_type type;
	void *dst;
	size_t size;	    /* OPT_T_INT: sizeof *dst */
	long long min, max; /* OPT_T_INT, OPT_T_DURATION (ns); OPT_T_NAME: max length */
	uint16_t port;	    /* OPT_T_ADDR: when none is given */
	const char *what;   /* "expected WHAT" */
	opt_parse_fn parse; /* OPT_T_CALL */
	int *seen;	    /* if not NULL, set to 1 when the flag is given */
};

/* The entries of a table, e.g. {OPT_INT('d', &o->down, 1, 1000000, "a count")},
 * with .seen added where needed. The destination's type is checked at
 * compile time (but OPT_INT's and OPT_CALL's). */
#define OPT_DST_(type, p) (1 ? (p) : (type *)0)
#define OPT_FLAG(c, p) .flag = (c), .type = OPT_T_FLAG, .dst = OPT_DST_(int, p)
#define OPT_COUNT(c, p) .flag = (c), .type = OPT_T_COUNT, .dst = OPT_DST_(int, p)
#define OPT_STR(c, p) .flag = (c), .type = OPT_T_STR, .dst = OPT_DST_(const char *, p)
#define OPT_INT(c, p, lo, hi, w)                                                                   \
	.flag = (c), .type = OPT_T_INT, .dst = (p), .size = sizeof(*(p)), .min = (lo),             \
	.max = (hi), .what = (w)
#define OPT_DURATION(c, p, lo, hi, w)                                                              \
	.flag = (c), .type = OPT_T_DURATION, .dst = OPT_DST_(int64_t, p), .min = (lo),             \
	.max = (hi), .what = (w)
#define OPT_ADDR(c, p, defport, w)                                                                 \
	.flag = (c), .type = OPT_T_ADDR, .dst = OPT_DST_(struct sockaddr_in, p),                   \
	.port = (defport), .what = (w)
#define OPT_PREFIX(c, p, w)                                                                        \
	.flag = (c), .type = OPT_T_PREFIX, .dst = OPT_DST_(struct opt_prefix, p), .what = (w)
#define OPT_NAME(c, p, maxlen, w)                                                                  \
	.flag = (c), .type = OPT_T_NAME, .dst = OPT_DST_(const char *, p), .max = (maxlen),        \
	.what = (w)
#define OPT_CALL(c, fn, p, w)                                                                      \
	.flag = (c), .type = OPT_T_CALL, .parse = (fn), .dst = (p), .what = (w)

enum opt_error {
	OPT_ERR_MISSING, /* flag: its argument is missing */
	OPT_ERR_UNKNOWN, /* flag: not in the table */
	OPT_ERR_BAD,	 /* flag's arg: expected what */
	OPT_ERR_OPERAND, /* arg: an operand after the flags */
};

struct opt_cmd;
/* opt_error_fn: reports the error in its own words and exits 1 */
typedef void (*opt_error_fn)(const struct opt_cmd *cmd, enum opt_error e, int flag,
			     const char *what, const char *arg);

/* An agent's command line: what is the same on every call. */
struct opt_cmd {
	const char *prog;	/* "PROG: " of every error */
	const char *usage;	/* printed after every error */
	void (*help)(FILE *fp); /* -h: the help, to fp */
	opt_error_fn error;	/* NULL: the texts above */
};

/* opt_parse: every flag of argv by the table opts (ending with {0}); -h
 * is cmd->help. No operand is accepted. Returns only if all is well. */
void opt_parse(const struct opt_cmd *cmd, const struct opt *opts, int argc, char **argv);

/* opt_refuse: "PROG: " and the message, a newline, the usage text, and
 * exit 1: a check between flags after opt_parse(). */
void opt_refuse(const struct opt_cmd *cmd, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 2, 3)));

#endif
