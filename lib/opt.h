/*
 * The command-line errors every agent reports the same way, after getopt
 * with a leading ':' in its option string (so a missing argument is ':').
 */
#ifndef STEERLAB_OPT_H
#define STEERLAB_OPT_H

/* opt_fail: for getopt's ':' (missing argument) or anything else (unknown
 * flag), "PROG: -X: missing argument" or "PROG: unknown flag -X", then the
 * usage text, and exit 1. */
void opt_fail(const char *prog, const char *usage, int ch) __attribute__((noreturn));

/* opt_bad: "PROG: FLAG: expected WHAT, got 'ARG'", then the usage text, and
 * exit 1: a flag's argument that does not parse. */
void opt_bad(const char *prog, const char *usage, const char *flag, const char *what,
	     const char *arg) __attribute__((noreturn));

/* opt_no_operands: exit 1 with "PROG: unexpected argument 'A'" and the usage
 * text if an operand follows the flags. */
void opt_no_operands(const char *prog, const char *usage, int argc, char **argv);

#endif
