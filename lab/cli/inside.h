/*
 * Inside a running lab (issue 10), the way containerlab's inspect and exec
 * and Mininet's CLI work, from a process other than the `up` that made the
 * lab: `steerlab nodes`, `exec`, `fail`, `recover`, and the events `down`
 * adds to a lab's lab.events.jsonl so that an `up --traffic` lab failed by
 * hand can be analysed by `steerlab report` (docs/inside.md).
 *
 * Each command loads the lab's state (lab.h) and refuses, with a message
 * on standard error naming what it expected, an unknown lab, an unknown
 * node, a node that is not a site (fail, recover), a site already failed
 * (fail) or still running (recover). Each returns the exit status of
 * steerlab: 0 done, 1 refused or failed.
 */
#ifndef STEERLAB_INSIDE_H
#define STEERLAB_INSIDE_H

#include <stdio.h>

/* inside_nodes: the nodes of lab, as text or one JSON document, to out. */
int inside_nodes(const char *lab, int json, FILE *out);

/* inside_exec: cmd[0..ncmd) (ncmd 0: $SHELL -i, else /bin/sh -i, with
 * PS1 "LAB:NODE# ") in node's network namespace, with a /sys of its own
 * as `ip netns exec` does, and, for a node that runs FRR, its daemons'
 * directory over INSIDE_FRR_RUNDIR so that vtysh finds them. Returns only
 * on failure: 1 (refused), 126 (the command cannot be run) or 127 (not
 * found). */
#define INSIDE_FRR_RUNDIR "/run/frr"
int inside_exec(const char *lab, const char *node, char *const cmd[], int ncmd);

/* inside_fail: SIGKILL the site's sited, as a run's failure does, and
 * record site_failed (with "by": "hand") in the lab's lab.events.jsonl. */
int inside_fail(const char *lab, const char *site);

/* inside_recover: start the site's sited again, with the command line
 * lab_up gave it, recorded in agents.tsv; wait for it to be ready; record
 * site_recovered. */
int inside_recover(const char *lab, const char *site);

/* inside_impair: `steerlab impair LAB A B KEY=VALUE ...`: the link's
 * impairment changed while the lab is up (lab_impair_change: netem, or its
 * linkd's SIGHUP), link_impaired in lab.events.jsonl, the new impairment of
 * each direction changed on stdout. */
int inside_impair(const char *lab, const char *a, const char *b, int n, char *const kv[]);

/* inside_down: lab_down_state(statedir, out), with traffic_stopped (if the
 * traffic `up --traffic` started has not stopped), lab_stopping and
 * lab_down appended to the lab's lab.events.jsonl, as a run writes them.
 * 0, or -1 as lab_down_state. */
int inside_down(const char *statedir, FILE *out);

/* inside_which_node: cmd was given lab but no node (sites: no site): the
 * lab's nodes (or sites) on stderr, as the fix. Returns 2 (usage). */
int inside_which_node(const char *cmd, const char *lab, int sites);

#endif
