/* Command lines from a table, and their errors; see opt.h. */
#include "opt.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "addr.h"
#include "announce.h"
#include "strtonum.h"
#include "timeutil.h"

/* a letter, and ':' after it for an argument, for each of 52 letters and
 * -h; the leading ':' and the NUL */
#define OPT_STRING_MAX (2 * 53 + 2)

#define OPT_NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"

void opt_refuse(const struct opt_cmd *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", cmd->prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n%s", cmd->usage);
	exit(1);
}

/* opt_error: the error, in cmd's words or the usual ones, and exit 1 */
static void __attribute__((noreturn))
opt_error(const struct opt_cmd *cmd, enum opt_error e, int flag, const char *what, const char *arg)
{
	if (cmd->error)
		cmd->error(cmd, e, flag, what, arg);
	else if (e == OPT_ERR_MISSING)
		fprintf(stderr, "%s: -%c: missing argument\n%s", cmd->prog, flag, cmd->usage);
	else if (e == OPT_ERR_UNKNOWN)
		fprintf(stderr, "%s: unknown flag -%c\n%s", cmd->prog, flag, cmd->usage);
	else if (e == OPT_ERR_BAD)
		fprintf(stderr, "%s: -%c: expected %s, got '%s'\n%s", cmd->prog, flag, what, arg,
			cmd->usage);
	else
		fprintf(stderr, "%s: unexpected argument '%s'\n%s", cmd->prog, arg, cmd->usage);
	exit(1);
}

/* opt_string: getopt's option string for the table */
static void opt_string(const struct opt_cmd *cmd, const struct opt *opts, char *s)
{
	size_t n = 0;

	s[n++] = ':';
	for (const struct opt *o = opts; o->flag; o++) {
		/* a table this long, or a flag no letter, is the program's bug */
		if (n + 3 > OPT_STRING_MAX || strchr(":?", o->flag))
			abort();
		s[n++] = (char)o->flag;
		if (o->type != OPT_T_FLAG && o->type != OPT_T_COUNT)
			s[n++] = ':';
	}
	if (cmd->help)
		s[n++] = 'h';
	s[n] = '\0';
}

/* opt_store_int: v into an integer of size bytes; v is within its bounds */
static void opt_store_int(void *dst, size_t size, long long v)
{
	uint8_t u8 = (uint8_t)v;
	uint16_t u16 = (uint16_t)v;
	uint32_t u32 = (uint32_t)v;
	uint64_t u64 = (uint64_t)v;

	switch (size) {
	case 1:
		memcpy(dst, &u8, 1);
		break;
	case 2:
		memcpy(dst, &u16, 2);
		break;
	case 4:
		memcpy(dst, &u32, 4);
		break;
	case 8:
		memcpy(dst, &u64, 8);
		break;
	default:
		abort();
	}
}

/* opt_take: one flag's argument into its destination; 0, or -1 and *what
 * (NULL: said already) */
static int opt_take(const struct opt *o, const char *arg, const char **what)
{
	struct opt_prefix *p = o->dst;
	const char *errstr;
	long long v;
	int64_t ns;
	size_t n;

	*what = o->what;
	switch (o->type) {
	case OPT_T_FLAG:
		*(int *)o->dst = 1;
		return 0;
	case OPT_T_COUNT:
		(*(int *)o->dst)++;
		return 0;
	case OPT_T_STR:
		*(const char **)o->dst = arg;
		return 0;
	case OPT_T_INT:
		v = strtonum(arg, o->min, o->max, &errstr);
		if (errstr)
			return -1;
		opt_store_int(o->dst, o->size, v);
		return 0;
	case OPT_T_DURATION:
		if (parse_duration_ns(arg, &ns) == -1 || ns < o->min || ns > o->max)
			return -1;
		*(int64_t *)o->dst = ns;
		return 0;
	case OPT_T_ADDR:
		return parse_addr_port(arg, o->port, o->dst);
	case OPT_T_PREFIX:
		return parse_prefix(arg, &p->addr, &p->len);
	case OPT_T_NAME:
		n = strlen(arg);
		if (n == 0 || n > (size_t)o->max || strspn(arg, OPT_NAME_CHARS) != n)
			return -1;
		*(const char **)o->dst = arg;
		return 0;
	case OPT_T_CALL:
		return o->parse(arg, o->dst, what);
	}
	abort();
}

void opt_parse(const struct opt_cmd *cmd, const struct opt *opts, int argc, char **argv)
{
	char optstring[OPT_STRING_MAX];
	const struct opt *o;
	const char *what;
	int ch;

	opt_string(cmd, opts, optstring);
	opterr = 0;
	optind = 0; /* glibc: from the start, so that a test may parse again */
	while ((ch = getopt(argc, argv, optstring)) != -1) {
		if (ch == 'h' && cmd->help) {
			cmd->help(stdout);
			exit(0);
		}
		for (o = opts; o->flag && o->flag != ch; o++)
			;
		if (ch == ':' || !o->flag)
			opt_error(cmd, ch == ':' ? OPT_ERR_MISSING : OPT_ERR_UNKNOWN, optopt, NULL,
				  NULL);
		if (opt_take(o, optarg, &what) == -1) {
			if (what == NULL)
				exit(1);
			opt_error(cmd, OPT_ERR_BAD, ch, what, optarg);
		}
		if (o->seen)
			*o->seen = 1;
	}
	if (optind < argc)
		opt_error(cmd, OPT_ERR_OPERAND, 0, NULL, argv[optind]);
}
