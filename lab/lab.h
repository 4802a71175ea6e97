/*
 * A running lab: its namespaces, links and agents, and the state directory
 * /run/steerlab/LAB/ that lets `steerlab down LAB` remove exactly what
 * `steerlab up` made, from another process:
 *
 *   rundir       the run directory (events, logs, captures)
 *   namespaces   one namespace name per line, appended as each is made
 *   agents.tsv   pid, start time (/proc/PID/stat field 22), node, agent
 *
 * Files are appended before the thing they record is relied upon, so a lab
 * that failed half-way up is still taken down completely.
 */
#ifndef STEERLAB_LAB_H
#define STEERLAB_LAB_H

#include <limits.h>
#include <stdio.h>
#include <sys/types.h>

#include "topology.h"

#define LAB_STATE_DIR "/run/steerlab"
#define LAB_MAX_AGENTS (4 * TOPO_MAX_NODES)

struct event_log;

struct lab_agent {
	pid_t pid;
	unsigned long long starttime;
	int node;           /* index into the topology, -1 if unknown */
	char name[16];      /* its label: sited, client, client-dns, ... */
	int reaped;
};

struct lab {
	const struct topology *t;
	char rundir[PATH_MAX];
	char statedir[PATH_MAX];
	char bindir[PATH_MAX];
	int nsfd[TOPO_MAX_NODES];
	struct lab_agent agents[LAB_MAX_AGENTS];
	int nagents;
	struct event_log *ev; /* lab.events.jsonl */
	int no_agents;        /* up: namespaces, links and routes only */
};

/* lab_init: bind a lab to a parsed topology and a run directory (created
 * if missing). bindir is where the agent programs are. */
int lab_init(struct lab *lab, const struct topology *t, const char *rundir, const char *bindir);

/* lab_up: state directory, namespaces, links, addresses, routes, sysctls,
 * then the agents of every node except clients. Refuses if the lab exists.
 * On failure, takes down whatever it made and returns -1. */
int lab_up(struct lab *lab);

/* lab_start_clients: start the client agent of every client node, sending
 * for duration_ns (0: until stopped). */
int lab_start_clients(struct lab *lab, int64_t duration_ns);

/* A client node's DNS-steered flow carries this id, its anycast flow the
 * node's client_id, so captures tell the two apart. */
#define LAB_DNS_CLIENT_ID(id) (100000u + (id))

/* lab_start_infra: every agent of every node but the clients. */
int lab_start_infra(struct lab *lab);

/* lab_start_agent_as: fork, enter the node's namespace, redirect output to
 * RUNDIR/NODE.LABEL.log and exec BINDIR/PROG with argv. Recorded in
 * agents.tsv under LABEL (e.g. "client-dns"). Returns the index in
 * lab->agents, or -1. */
int lab_start_agent_as(struct lab *lab, int node, const char *prog, const char *label,
		       char *const argv[]);

/* lab_signal_agents: send sig to the lab's agents called name (NULL: all;
 * "client*": every label that begins with client). */
void lab_signal_agents(struct lab *lab, const char *name, int sig);

/* lab_wait_agents: wait up to timeout_ns for the agents called name (NULL:
 * all) to exit. Returns how many are still running. */
int lab_wait_agents(struct lab *lab, const char *name, int64_t timeout_ns);

/* lab_down_state: take down the lab whose state is in statedir: stop its
 * agents (SIGTERM, then SIGKILL after a grace period), delete its
 * namespaces by their recorded names, remove statedir. 0 or -1. */
int lab_down_state(const char *statedir, FILE *out);

/* lab_down: the same for a lab this process brought up. */
int lab_down(struct lab *lab);

/* lab_status: print the labs under LAB_STATE_DIR. */
int lab_status(FILE *out);

/* lab_statedir: LAB_STATE_DIR/name into buf. */
int lab_statedir(char *buf, size_t len, const char *name);

/* lab_nsname: LAB-NODE into buf. */
int lab_nsname(char *buf, size_t len, const struct topology *t, int node);

#endif
