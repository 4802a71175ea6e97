/*
 * A lab that is up, read back from its state directory by a later steerlab
 * process (`nodes`, `exec`, `fail`, `recover`, `status`): the topology as
 * used (topology.ini, printed by lab_up), where its run directory and agent
 * programs are, the namespaces it made and its recorded agents, each found
 * alive or not by the test `down` makes before it signals one
 * (lab_agent_claim: the PID, its start time, bindir's program for its
 * label). The `up` process has exited by then: nothing watches the agents,
 * they are looked at when asked.
 *
 * agents.tsv only grows: `recover` appends the sited it starts, so a
 * node's agent may have several lines. The last one is the agent; the
 * earlier ones are superseded (lab_state_current) and listed by nobody but
 * `down`, which still stops every line's process that is alive.
 *
 * Loading and checking are here; the formatting of `nodes` (text and JSON)
 * is in lab/cli/nodes.c, with no I/O of its own, so that it is unit-tested on
 * a topology and a hand-made agent list.
 */
#ifndef STEERLAB_STATE_H
#define STEERLAB_STATE_H

#include <jansson.h>
#include <limits.h>
#include <stdio.h>

#include "lab.h"
#include "topology.h"

struct lab_state {
	char name[TOPO_NAME_MAX + 1];
	char dir[PATH_MAX];    /* LAB_STATE_DIR/name */
	char rundir[PATH_MAX]; /* "" if not recorded */
	char bindir[PATH_MAX];
	struct topology t;
	/* each agent's node is its index in t (-1: a node t does not have);
	 * alive is !reaped */
	struct lab_agent agents[LAB_MAX_AGENTS];
	int nagents;
	int refused; /* agents.tsv lines not of the form */
};

/* lab_state_load: the state of lab name into *s: the topology, the run and
 * agent directories, the agents, each checked alive. -1 with the reason in
 * err (for "steerlab: CMD: " to precede): not a lab name, no such lab up,
 * a state directory refused, a topology.ini that does not load. */
int lab_state_load(struct lab_state *s, const char *name, char *err, size_t errlen);

/* lab_state_line: the first line of DIR/FILE, without its newline, into
 * buf ("" if there is none). */
void lab_state_line(const char *dir, const char *file, char *buf, size_t len);

/* lab_state_current: agent i is the last line of its node and label (not
 * superseded by a later start of the same agent). */
int lab_state_current(const struct lab_state *s, int i);

/* lab_state_find_agent: the index of the current agent called label of
 * node, or -1. */
int lab_state_find_agent(const struct lab_state *s, int node, const char *label);

/* lab_state_node: the index of node name in the lab's topology, or -1 with
 * "LAB has no node NAME (its nodes: a, b, ...)" in err. */
int lab_state_node(const struct lab_state *s, const char *name, char *err, size_t errlen);

/* lab_state_has_ns: nsname is a line of the lab's namespaces file. */
int lab_state_has_ns(const struct lab_state *s, const char *nsname);

/* lab_nodes_print: the `steerlab nodes` text, one block per node (lab/cli/nodes.c). */
void lab_nodes_print(const struct lab_state *s, FILE *out);

/* lab_nodes_json: the same as a JSON document (docs/inside.md has its
 * shape). NULL: out of memory. */
json_t *lab_nodes_json(const struct lab_state *s);

#endif
