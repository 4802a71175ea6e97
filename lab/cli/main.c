/*
 * steerlab: build a network lab of namespaces from a topology file, run a
 * failover experiment in it, and measure the failover clocks on the packets.
 *
 * This file reads the command line and hands it to one command (lab/cli/cli.h):
 * which options and arguments each command takes is the table below.
 */
#include "cli.h"

#include <dirent.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hint.h"
#include "lab.h"
#include "log.h"

/* main_std_fds_open: 0, 1 and 2 open (on /dev/null if they were closed), so
 * that nothing steerlab opens (a state file, an agent's start-up pipe)
 * takes the place of a standard stream. */
static void main_std_fds_open(void)
{
	int fd;

	while ((fd = open("/dev/null", O_RDWR | O_NOCTTY)) >= 0 && fd <= 2)
		;
	if (fd > 2)
		close(fd);
}

/* main_bad_option: the option getopt_long refused just now (optopt: its letter,
 * or 0 for a long option it does not know), with the fix when hint.c knows
 * one */
static void main_bad_option(int argc, char **argv, int opt)
{
	const char *arg = argv[optind - 1];
	char hint[512];

	if (opt == 0 &&
	    hint_option(arg, optind < argc ? argv[optind] : NULL, hint, sizeof(hint)) == 0)
		fprintf(stderr, "steerlab: %s\n", hint);
	else if (opt == 0)
		fprintf(stderr, "steerlab: unknown option '%s' (steerlab --help lists them)\n",
			arg);
	else if (strncmp(arg, "--", 2) == 0)
		fprintf(stderr, "steerlab: option '%s' takes no value (steerlab --help)\n", arg);
	else
		fprintf(stderr, "steerlab: unknown option '-%c' (steerlab --help lists them)\n",
			opt);
}

static int main_parse_args(int argc, char **argv, struct cmd_args *a)
{
	static const struct option opts[] = {
	    {"out", required_argument, NULL, 'o'},    {"set", required_argument, NULL, 's'},
	    {"quiet", no_argument, NULL, 'q'},	      {"no-agents", no_argument, NULL, 'N'},
	    {"traffic", no_argument, NULL, 'T'},      {"bucket", required_argument, NULL, 'B'},
	    {"slo", required_argument, NULL, 'S'},    {"json", no_argument, NULL, 'J'},
	    {"frr", required_argument, NULL, 'F'},    {"repeat", required_argument, NULL, 'R'},
	    {"check", no_argument, NULL, 'C'},	      {"times", no_argument, NULL, 'M'},
	    {"target", required_argument, NULL, 'G'}, {"vary", required_argument, NULL, 'V'},
	    {"via", required_argument, NULL, 'Y'},    {"partition", required_argument, NULL, 'P'},
	    {"jobs", required_argument, NULL, 'j'},   {"format", required_argument, NULL, 'f'},
	    {"run", required_argument, NULL, 'r'},    {"merge", no_argument, NULL, 'm'},
	    {"help", no_argument, NULL, 'h'},	      {NULL, 0, NULL, 0},
	};
	int c;

	memset(a, 0, sizeof(*a));
	optind = 1;
	opterr = 0; /* the errors are steerlab's own, with a hint when there is one */
	while ((c = getopt_long(argc, argv, ":o:s:qvh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			a->out = optarg;
			break;
		case 's':
			if (a->nsets == TOPO_MAX_SETS) {
				fprintf(stderr, "steerlab: at most %d --set options\n",
					TOPO_MAX_SETS);
				return -1;
			}
			a->sets[a->nsets++] = optarg;
			break;
		case 'q':
			a->quiet = 1;
			break;
		case 'N':
			a->no_agents = 1;
			break;
		case 'T':
			a->traffic = 1;
			break;
		case 'J':
			a->json = 1;
			break;
		case 'B':
			a->bucket = optarg;
			break;
		case 'S':
			a->slo = optarg;
			break;
		case 'F':
			a->frr = optarg;
			break;
		case 'R':
			a->repeat = optarg;
			break;
		case 'C':
			a->check = 1;
			break;
		case 'Y':
			a->via = optarg;
			break;
		case 'P':
			a->partition = optarg;
			break;
		case 'j':
			a->jobs = optarg;
			break;
		case 'M':
			a->times = 1;
			break;
		case 'f':
			a->format = optarg;
			break;
		case 'r':
			a->run = optarg;
			break;
		case 'm':
			a->merge = 1;
			break;
		case 'G':
		case 'V':
			if ((c == 'G' ? a->ntargets : a->nvaries) == 8) {
				fprintf(stderr, "steerlab: at most 8 %s options\n",
					c == 'G' ? "--target" : "--vary");
				return -1;
			}
			if (c == 'G')
				a->targets[a->ntargets++] = optarg;
			else
				a->varies[a->nvaries++] = optarg;
			break;
		case 'v':
			log_init("steerlab", 1);
			break;
		case 'h':
			cli_usage(stdout);
			exit(0);
		case ':':
			fprintf(stderr, "steerlab: option '%s' needs a value (steerlab --help)\n",
				argv[optind - 1]);
			return -1;
		default:
			main_bad_option(argc, argv, optopt);
			return -1;
		}
	}
	if (optind < argc)
		a->file = argv[optind++];
	if (optind < argc)
		a->arg2 = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "steerlab: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	return 0;
}

/* main_env_sets: STEERLAB_SET's overrides after the command line's (they win);
 * when the topology loads with the command line's alone, a refusal of
 * theirs is told under the variable's name, not as if it were a --set */
static int main_env_sets(struct cmd_args *a)
{
	static struct topology scratch;

	if (overrides_env(getenv(OVERRIDES_ENV), a->env, sizeof(a->env), a->sets, &a->nsets,
			  TOPO_MAX_SETS, &a->nenv, stderr) == -1)
		return -1;
	if (a->file == NULL)
		return 0;
	return overrides_env_check(&scratch, a->file, a->sets, a->nsets, a->nenv, stderr);
}

/* main_dir_hint: -1 (and the hint) when the topology given is a directory */
static int main_ini_name(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return d->d_name[0] != '.' && n > 4 && strcmp(d->d_name + n - 4, ".ini") == 0;
}

static int main_dir_hint(const char *file)
{
	struct dirent **ents = NULL;
	char *names[64];
	char hint[4096];
	struct stat st;
	int n, i;

	if (file == NULL || stat(file, &st) == -1 || !S_ISDIR(st.st_mode))
		return 0;
	n = scandir(file, &ents, main_ini_name, alphasort);
	for (i = 0; i < n && i < (int)(sizeof(names) / sizeof(names[0])); i++)
		names[i] = ents[i]->d_name;
	if (hint_directory(file, names, i, hint, sizeof(hint)) == 0)
		fprintf(stderr, "steerlab: %s\n", hint);
	else
		fprintf(stderr, "steerlab: %s: is a directory; expected a topology file\n", file);
	for (i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	return -1;
}

/* What each command takes beyond its first argument and --set, --out,
 * --quiet, -v: the options below, a second argument (SITE), and whether its
 * first argument is a topology file (a directory is answered with a hint,
 * STEERLAB_SET applies). */
enum {
	TAKES_TOPOLOGY = 1 << 0,
	TAKES_ARG2 = 1 << 1,
	TAKES_TRAFFIC = 1 << 2, /* --traffic, --no-agents */
	TAKES_JSON = 1 << 3,
	TAKES_FRR = 1 << 4,
	TAKES_REPEAT = 1 << 5,
	TAKES_REPORT = 1 << 6, /* --bucket, --slo, --times */
	TAKES_CHECK = 1 << 7,
	TAKES_DESIGN = 1 << 8, /* --target, --vary */
	TAKES_VIA = 1 << 11,   /* --via, --partition, --jobs */
	TAKES_GRAPH = 1 << 9,  /* --format, --run */
	TAKES_MERGE = 1 << 10, /* --merge */
};

static const struct command {
	const char *name;
	int (*run)(const struct cmd_args *, const char *bindir);
	unsigned takes;
} commands[] = {
    {"check", cmd_check, TAKES_TOPOLOGY | TAKES_FRR | TAKES_JSON},
    {"up", cmd_up, TAKES_TOPOLOGY | TAKES_TRAFFIC},
    {"down", cmd_down, 0},
    {"status", cmd_status, TAKES_JSON},
    {"nodes", cmd_nodes, TAKES_JSON},
    {"fail", cmd_fail, TAKES_ARG2},
    {"recover", cmd_recover, TAKES_ARG2},
    {"run", cmd_run, TAKES_TOPOLOGY | TAKES_REPEAT | TAKES_MERGE | TAKES_VIA | TAKES_JSON},
    {"sweep", cmd_sweep, TAKES_TOPOLOGY | TAKES_CHECK | TAKES_VIA | TAKES_JSON},
    {"report", cmd_report, TAKES_REPORT | TAKES_JSON},
    {"model", cmd_model, TAKES_TOPOLOGY | TAKES_JSON | TAKES_DESIGN},
    {"graph", cmd_graph, TAKES_TOPOLOGY | TAKES_GRAPH},
    {"merge", cmd_merge, 0},
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

/* main_refuse_option: an option the command does not take; names the commands
 * that do. 2 (usage), or 0 if it takes it or it was not given. */
static int main_refuse_option(const struct command *c, int given, unsigned bit, const char *opt)
{
	char who[128] = "";
	size_t i, n = 0;

	if (!given || (c->takes & bit))
		return 0;
	for (i = 0; i < NCOMMANDS; i++)
		if (commands[i].takes & bit)
			n += (size_t)snprintf(who + n, n < sizeof(who) ? sizeof(who) - n : 0,
					      "%s%s", n ? " and " : "", commands[i].name);
	fprintf(stderr, "steerlab: %s is an option of %s, not of %s\n", opt, who, c->name);
	return 2;
}

int main(int argc, char **argv)
{
	const struct command *c = NULL;
	char bindir[PATH_MAX];
	static struct cmd_args a;
	const char *cmd;
	int rc;

	log_init("steerlab", 0);
	/* what steerlab writes (state, run directories, captures) is never
	 * writable by others, whatever umask sudo passed on */
	umask(022);
	main_std_fds_open();
	if (argc < 2) {
		cli_usage(stderr);
		return 2;
	}
	cmd = argv[1];
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
		cli_usage(stdout);
		return 0;
	}
	if (cmd[0] == '-') {
		char hint[1024];

		if (hint_options_first(argc - 1, argv + 1, hint, sizeof(hint)) == 0)
			fprintf(stderr, "steerlab: %s\n", hint);
		else
			fprintf(stderr, "steerlab: options go after the command (steerlab "
					"--help)\n");
		return 2;
	}
	if (strcmp(cmd, "exec") == 0)
		return cmd_exec(argc - 2, argv + 2);
	if (strcmp(cmd, "impair") == 0)
		return cmd_impair(argc - 2, argv + 2);
	for (size_t i = 0; i < NCOMMANDS && c == NULL; i++)
		if (strcmp(cmd, commands[i].name) == 0)
			c = &commands[i];
	if (c == NULL) {
		fprintf(stderr, "steerlab: unknown command '%s'\n", cmd);
		cli_usage(stderr);
		return 2;
	}
	if (main_parse_args(argc - 1, argv + 1, &a) == -1)
		return 2;
	if (a.arg2 && !(c->takes & TAKES_ARG2)) {
		fprintf(stderr, "steerlab: unexpected argument '%s'\n", a.arg2);
		return 2;
	}
	if ((rc = main_refuse_option(c, a.json, TAKES_JSON, "--json")) ||
	    (rc = main_refuse_option(c, a.traffic, TAKES_TRAFFIC, "--traffic")) ||
	    (rc = main_refuse_option(c, a.no_agents, TAKES_TRAFFIC, "--no-agents")) ||
	    (rc = main_refuse_option(c, a.frr != NULL, TAKES_FRR, "--frr")) ||
	    (rc = main_refuse_option(c, a.repeat != NULL, TAKES_REPEAT, "--repeat")) ||
	    (rc = main_refuse_option(c, a.check, TAKES_CHECK, "--check")) ||
	    (rc = main_refuse_option(c, a.bucket != NULL, TAKES_REPORT, "--bucket")) ||
	    (rc = main_refuse_option(c, a.slo != NULL, TAKES_REPORT, "--slo")) ||
	    (rc = main_refuse_option(c, a.times, TAKES_REPORT, "--times")) ||
	    (rc = main_refuse_option(c, a.ntargets, TAKES_DESIGN, "--target")) ||
	    (rc = main_refuse_option(c, a.nvaries, TAKES_DESIGN, "--vary")) ||
	    (rc = main_refuse_option(c, a.via != NULL, TAKES_VIA, "--via")) ||
	    (rc = main_refuse_option(c, a.partition != NULL, TAKES_VIA, "--partition")) ||
	    (rc = main_refuse_option(c, a.jobs != NULL, TAKES_VIA, "--jobs")) ||
	    (rc = main_refuse_option(c, a.format != NULL, TAKES_GRAPH, "--format")) ||
	    (rc = main_refuse_option(c, a.run != NULL, TAKES_GRAPH, "--run")) ||
	    (rc = main_refuse_option(c, a.merge, TAKES_MERGE, "--merge")))
		return rc;
	if (a.traffic && a.no_agents) {
		fprintf(stderr, "steerlab: up: --traffic needs the agents: not with --no-agents\n");
		return 2;
	}
	/* a command line without its topology is a usage error, for every
	 * command that takes one (README.md, "Exit status") */
	if ((c->takes & TAKES_TOPOLOGY) && cli_need_file(&a, c->name) == -1)
		return 2;
	if ((c->takes & TAKES_TOPOLOGY) && main_dir_hint(a.file) == -1)
		return 2;
	if ((c->takes & TAKES_TOPOLOGY) && main_env_sets(&a) == -1)
		return 1;
	lab_agent_dir(bindir, sizeof(bindir));
	log_debug("agents: %s", bindir);
	return c->run(&a, bindir);
}
