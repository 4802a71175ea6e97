/* Command-line errors; see opt.h. */
#include "opt.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void opt_fail(const char *prog, const char *usage, int ch)
{
	if (ch == ':')
		fprintf(stderr, "%s: -%c: missing argument\n%s", prog, optopt, usage);
	else
		fprintf(stderr, "%s: unknown flag -%c\n%s", prog, optopt, usage);
	exit(1);
}

void opt_bad(const char *prog, const char *usage, const char *flag, const char *what,
	     const char *arg)
{
	fprintf(stderr, "%s: %s: expected %s, got '%s'\n%s", prog, flag, what, arg, usage);
	exit(1);
}

void opt_no_operands(const char *prog, const char *usage, int argc, char **argv)
{
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n%s", prog, argv[optind], usage);
		exit(1);
	}
}
