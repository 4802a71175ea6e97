/*
 * What the live supervisor (supervise.c) and the teardown from recorded
 * state (down.c) share: an agent held by a pidfd, looked at, signalled,
 * waited for and stopped the same way (supervise_agent.c), and the
 * supervisor's report of the agents that ended. Private to lab/build.
 */
#ifndef STEERLAB_SUPERVISE_H
#define STEERLAB_SUPERVISE_H

#include <stdint.h>
#include <sys/types.h>

#include "lab.h"

/* supervise_starttime: field 22 of /proc/PID/stat, and its state letter.
 * 0, or -1 if the process is gone. */
int supervise_starttime(pid_t pid, unsigned long long *start, char *state);

/* supervise_close: a's pidfd, if open. */
void supervise_close(struct lab_agent *a);

/* supervise_reap: if a, our child, has ended, wait for it and keep how it
 * ended. 1 if it has ended. */
int supervise_reap(struct lab_agent *a);

/* supervise_alive: our child is reaped when it ends; another process's
 * agent is checked through its pidfd, else /proc with the start time
 * guarding against a reused PID. 1 if it runs. */
int supervise_alive(struct lab_agent *a);

/* supervise_stop: agents[0..n): clients first (so their last requests are
 * still captured), then the rest; SIGKILL whatever outlives the grace
 * period, and wait for that too, bounded. How many were running and ended;
 * *left: how many could not be stopped. */
int supervise_stop(struct lab_agent *agents, int n, int *left);

/* supervise_signal: sig to a, through its pidfd when there is one (no
 * reused PID can be signalled then). 0, or -1 (errno). */
int supervise_signal(struct lab_agent *a, int sig);
/* supervise_signal_value: sig with value, as sigqueue(3) sends it */
int supervise_signal_value(struct lab_agent *a, int sig, int value);

/* supervise_matches: name NULL matches all; "client*" every label it
 * begins. */
int supervise_matches(const struct lab_agent *a, const char *name);

/* supervise_wait: up to timeout_ns for the agents called name to end; how
 * many are left. */
int supervise_wait(struct lab_agent *agents, int n, const char *name, int64_t timeout_ns);

/* supervise_report_exits: agent_exited for each agent of the lab newly
 * found ended, and a terminal line if unexpected (supervise.c). */
void supervise_report_exits(struct lab *lab);

#endif
