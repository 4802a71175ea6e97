/* What the steerlab commands share; see cli.h. */
#include "cli.h"

#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "lab.h"
#include "run.h"

struct topology cli_topo;

/* the usage text, steerlab --help (main.c) and exec --help (cmd_lab.c) */
static const char usage_text[] =
    "usage: steerlab COMMAND [ARGS]\n"
    "\n"
    "commands:\n"
    "  check FILE [--set KEY=VALUE ...]   validate a topology and print it back (with\n"
    "        [--frr DIR] [--json]         routing = bgp, FRR's configurations too,\n"
    "                                     checked by FRR's dry run); with --frr, write\n"
    "                                     each router's (and site's) bgpd configuration\n"
    "                                     into DIR, each dry-run by FRR; --json: the\n"
    "                                     topology as checked (docs/analysis.md)\n"
    "  up FILE [--out DIR] [--set ...]    build the lab and start its agents, but no\n"
    "         [--traffic | --no-agents]    traffic (root); with --traffic, the clients\n"
    "                                     too, sending until down (the run directory\n"
    "                                     grows: up says how fast); with --no-agents,\n"
    "                                     the network only\n"
    "  down LAB                           stop a lab's agents, remove its namespaces (root)\n"
    "  status [LAB] [--json]              list the labs that are up and their dead\n"
    "                                     agents (root)\n"
    "  nodes LAB [--json]                 each node of a lab that is up: kind,\n"
    "                                     namespace, addresses, links, agents (root)\n"
    "  exec LAB NODE [-- CMD ...]         run CMD (default: a shell) in NODE's\n"
    "                                     namespace; exits with CMD's status (root)\n"
    "  fail LAB SITE                      kill SITE's sited as a run's failure does,\n"
    "                                     recorded in lab.events.jsonl (root)\n"
    "  recover LAB SITE                   start SITE's sited again (root)\n"
    "  impair LAB A B KEY=VALUE ...       change the impairment of link A B now\n"
    "                                     (delay=80ms loss=2%; A>B.KEY for one\n"
    "                                     direction), recorded in lab.events.jsonl\n"
    "                                     (root)\n"
    "  run FILE [--out DIR] [--set ...]   up, warm-up, failure, observation, down and\n"
    "        [--merge] [--json]           analysis; results in DIR (default\n"
    "                                     runs/LAB-YYYYmmdd-HHMMSS) (root); --merge:\n"
    "                                     then steerlab merge DIR; --json:\n"
    "                                     clocks.json on stdout, progress on stderr\n"
    "  run FILE --repeat N [--set ...]    the same run N times, into DIR/rep-1 ..\n"
    "        [--out DIR]                  rep-N, each with its own seed, then each\n"
    "                                     clock's n, min, median, p95 and max beside\n"
    "                                     the model's and whether they lie within it\n"
    "                                     (DIR/stats.csv, repeat.csv, spread.png);\n"
    "                                     rerun with the same --out to resume (root)\n"
    "  sweep FILE --set KEY=V1,V2,...     one run per value of KEY, then a table of\n"
    "        [--set ...] [--out DIR]      the clocks beside the model's (DIR/sweep.csv,\n"
    "        [--check] [--json]           sweep.md, sweep.png); rerun with the same\n"
    "                                     --out to resume (root); with --check, every\n"
    "                                     point's topology checked and the points\n"
    "                                     listed, nothing run; --json (sweep, run\n"
    "                                     --repeat): the table's rows as JSON on\n"
    "                                     stdout, the runs' output on stderr\n"
    "  sweep, run --repeat: --jobs N      N points at once on this machine, each a\n"
    "                                     steerlab run of lab LAB-i\n"
    "  sweep, run --repeat: --via slurm   one Slurm array task per point not done, an\n"
    "        [--partition P]              exclusive node each, on a filesystem the\n"
    "                                     nodes share; progress from squeue, Ctrl-C\n"
    "                                     cancels the job (docs/sweeps.md)\n"
    "  report RUN_DIR [--bucket D]        rebuild a finished run's clocks.json, decay.csv,\n"
    "         [--slo PCT] [--times]        upstream.csv, shares.csv, plots and report.md\n"
    "         [--json]                    from its captures and events (decay bucket,\n"
    "                                     e.g. 100ms; SLO of the error budget, default\n"
    "                                     99.9); with --times, how long each stage took\n"
    "                                     (stderr); --json: clocks.json on stdout, not\n"
    "                                     the tables\n"
    "  graph FILE [--set ...]             the topology as a graph, nothing built: nodes\n"
    "        [--format dot|mermaid|json|svg] by kind, links with their impairments, BGP\n"
    "        [--run RUN]                  sessions with their ASNs (default dot; svg runs\n"
    "                                     Graphviz's dot); --run: the run's catchments\n"
    "                                     before and after and each router's FIB\n"
    "                                     changes, coloured by site (docs/topology.md,\n"
    "                                     \"The graph\"):\n"
    "  steerlab graph topology/bgp.ini --format dot | dot -Tsvg > bgp.svg\n"
    "  merge RUN                          every capture of run directory RUN in one\n"
    "                                     RUN/run.pcapng, in time order, one interface\n"
    "                                     per capture, the lab's events as packet\n"
    "                                     comments (docs/clocks.md, \"One capture per\n"
    "                                     run\")\n"
    "  model FILE [--set ...] [--json]    the clocks a run should measure, predicted\n"
    "                                     from the topology alone, nothing built: each\n"
    "                                     scheme's detect, steer, window, losses as p50\n"
    "                                     (p5-p95), then the steering's steady state per\n"
    "                                     scheme and [name] (shares, deviation, RTT per\n"
    "                                     request, upstream queries; a lab without a\n"
    "                                     failure: that alone), with the model's\n"
    "                                     assumptions and limits (docs/model.md);\n"
    "                                     --json: clocks.json's keys\n"
    "  model FILE --target T [--vary ...] the settings that meet target T, cheapest\n"
    "        [--set ...] [--json]         first: each point of the --vary grid modelled,\n"
    "                                     with its upstream DNS queries and probes a\n"
    "                                     second; T is SCHEME.CLOCK[.STAT] OP VALUE,\n"
    "                                     STAT p95 unless given (docs/model.md,\n"
    "                                     \"Inverse design\"):\n"
    "  steerlab model topology/compare.ini --target 'dns.window<=30s' \\\n"
    "      --vary ttl=5..300,probe_interval=1s..30s\n"
    "\n"
    "--set KEY=VALUE sets a [lab] key; --set NODE.KEY=VALUE a node's key; --set ttl=V\n"
    "the TTL of every [name] section. In a sweep, the one --set with commas is swept:\n"
    "  sudo steerlab sweep topology/compare.ini --set ttl=2,5,10 --set probe_interval=250ms\n"
    "[lab] fail_jitter = D moves the failure to an instant in [fail_at, fail_at + D)\n"
    "drawn from seed (random unless --set seed=N; recorded in clocks.json):\n"
    "  sudo steerlab run topology/compare.ini --repeat 5 --set fail_jitter=100ms\n"
    "options: -q/--quiet (run, sweep: no progress line), -v (debug logging), -h/--help\n"
    "environment: STEERLAB_SET=\"KEY=VALUE ...\" more --set, after the command line's\n"
    "(e.g. duration=3s fail_at=1s); STEERLAB_RUNS=DIR instead of runs/ for the default\n"
    "run directories\n"
    "\n"
    "exit status: 0 done (for run and report: a valid run); 1 error (nothing\n"
    "measured, or the lab not taken down completely); 2 usage; 3 (run, report,\n"
    "sweep) a run, a sweep's point or a repetition was measured but cannot be\n"
    "trusted: an agent ended during it, a self-check failed, or it was interrupted\n"
    "(clocks.json says \"valid\": false and why); 4 (run, report) the tables and the\n"
    "verdict were printed but a file could not be written in the run directory (the\n"
    "error names it); exec: its command's status.\n"
    "See README.md and docs/ for the topology format and the clocks.\n";

void cli_usage(FILE *fp)
{
	fputs(usage_text, fp);
}

static void cli_on_signal(int sig)
{
	(void)sig;
	run_interrupted = 1;
}

void cli_catch_signals(void)
{
	struct sigaction sa = {.sa_handler = cli_on_signal};

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
