/*
 * The steerlab command's parts (lab/cli/main.c): the arguments as parsed, what
 * every command shares (the topology it loaded, the checks of root, a file,
 * a lab name), and the commands, one function each:
 *
 *   lab/cli/cmd_lab.c   a lab's life and what is inside it: check, up, down,
 *                   status, nodes, exec, fail, recover
 *   lab/cli/cmd_run.c   experiments and their analysis: run (and run --repeat),
 *                   sweep, report
 *   lab/cli/cmd_model.c the clocks predicted from the topology alone (probes/model)
 *   lab/cli/cmd_design.c the settings that meet a target on them, cheapest
 *                   first (model --target, --vary)
 *
 * A command returns the process's exit status (README.md, "Exit status").
 */
#ifndef STEERLAB_CLI_H
#define STEERLAB_CLI_H

#include <stdio.h>

#include "lab.h"
#include "topology.h"

struct cmd_args {
	const char *file; /* the topology, the lab's name or the run directory */
	const char *arg2; /* fail, recover: the site */
	const char *out;
	char *sets[TOPO_MAX_SETS];
	int nsets;
	int nenv;	/* the last nenv of sets are STEERLAB_SET's */
	char env[1024]; /* STEERLAB_SET's items */
	int quiet;
	int no_agents;
	int traffic;		  /* up: start the clients */
	int json;		  /* check, status, nodes, run, sweep, report, model */
	const char *bucket, *slo; /* report's options */
	int times;		  /* report: --times */
	const char *frr;	  /* check: where to write FRR's configuration */
	const char *repeat;	  /* run: --repeat N */
	int check;		  /* sweep: check every point, run nothing */
	/* sweep, run --repeat: where the points run (lab/run/sweep_via.c) */
	const char *via, *partition, *jobs;
	/* model: inverse design (lab/cli/cmd_design.c) */
	const char *targets[8]; /* --target, as given */
	int ntargets;
	const char *varies[8]; /* --vary, as given */
	int nvaries;
	const char *format; /* graph: dot, mermaid, json or svg */
	const char *run;    /* graph: a run directory's catchments and FIB changes */
	int merge;	    /* run: steerlab merge at its end */
};

/* The topology a command loaded (cli_load), and the usage text. */
extern struct topology cli_topo;
void cli_usage(FILE *fp);

/* cli_need_root, cli_need_file: 0, or -1 having said why the command
 * cannot go on. cli_load: the topology a->file with its overrides, its DNS
 * sections parsed and FRR's dry run passed (frrconf_load); 0 or -1 (said). */
int cli_need_root(const char *cmd);
int cli_need_file(const struct cmd_args *a, const char *cmd);
int cli_load(const struct cmd_args *a, const char *cmd);

/* cli_catch_signals: SIGINT, SIGTERM and SIGHUP end a run cleanly (they
 * set run_interrupted: the lab is taken down, the captures kept). */
void cli_catch_signals(void);

int cmd_check(const struct cmd_args *a, const char *bindir);
int cmd_up(const struct cmd_args *a, const char *bindir);
int cmd_down(const struct cmd_args *a, const char *bindir);
int cmd_status(const struct cmd_args *a, const char *bindir);
int cmd_nodes(const struct cmd_args *a, const char *bindir);
int cmd_fail(const struct cmd_args *a, const char *bindir);
int cmd_recover(const struct cmd_args *a, const char *bindir);
int cmd_exec(int argc, char **argv);   /* the arguments after "exec" */
int cmd_impair(int argc, char **argv); /* the arguments after "impair" */

/* lab_nodes_print: the `steerlab nodes` text of a lab that is up, one
 * block per node (nodes.c). */
void lab_nodes_print(const struct lab_state *s, FILE *out);

/* lab_nodes_json: the same as a JSON document (docs/inside.md has its
 * shape). NULL: out of memory. */
json_t *lab_nodes_json(const struct lab_state *s);

int cmd_run(const struct cmd_args *a, const char *bindir);
int cmd_sweep(const struct cmd_args *a, const char *bindir);
int cmd_report(const struct cmd_args *a, const char *bindir);
int cmd_model(const struct cmd_args *a, const char *bindir);
/* cmd_graph, cmd_merge: steerlab graph FILE, steerlab merge RUN (cmd_graph.c) */
int cmd_graph(const struct cmd_args *a, const char *bindir);
int cmd_merge(const struct cmd_args *a, const char *bindir);

/* cmd_design: steerlab model --target ... [--vary ...]: the settings of a
 * grid that meet the targets, cheapest first (docs/model.md, "Inverse
 * design"). The command's exit status. */
int cmd_design(const struct cmd_args *a);

#endif
