/* What the steerlab commands share; see cli.h. */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "cli.h"
#include "frrconf.h"
#include "run.h"

struct topology cli_topo;

static void on_signal(int sig)
{
	(void)sig;
	run_interrupted = 1;
}

void cli_catch_signals(void)
{
	struct sigaction sa = {.sa_handler = on_signal};

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

int cli_need_root(const char *cmd)
{
	if (geteuid() == 0)
		return 0;
	fprintf(stderr, "steerlab: %s needs root (network namespaces): try sudo steerlab %s ...\n",
		cmd, cmd);
	return -1;
}

int cli_need_file(const struct cmd_args *a, const char *cmd)
{
	if (a->file)
		return 0;
	fprintf(stderr, "steerlab: %s: which topology file? (e.g. topology/anycast.ini)\n", cmd);
	return -1;
}

int cli_load(const struct cmd_args *a, const char *cmd)
{
	if (cli_need_file(a, cmd) == -1)
		return -1;
	/* the parsers of the DNS sections, then FRR's dry run */
	return frrconf_load(&cli_topo, a->file, a->sets, a->nsets, stderr);
}
