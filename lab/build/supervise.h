/*
 * What the live supervisor (supervise.c) and the teardown from recorded
 * state (down.c) share: an agent held by a pidfd, looked at, closed and
 * stopped the same way. Private to lab/build.
 */
#ifndef STEERLAB_SUPERVISE_H
#define STEERLAB_SUPERVISE_H

#include <sys/types.h>

#include "lab.h"

/* supervise_starttime: field 22 of /proc/PID/stat, and its state letter.
 * 0, or -1 if the process is gone. */
int supervise_starttime(pid_t pid, unsigned long long *start, char *state);

/* supervise_close: a's pidfd, if open. */
void supervise_close(struct lab_agent *a);

/* supervise_alive: our child is reaped when it ends; another process's
 * agent is checked through its pidfd, else /proc with the start time
 * guarding against a reused PID. 1 if it runs. */
int supervise_alive(struct lab_agent *a);

/* supervise_stop: agents[0..n): clients first (so their last requests are
 * still captured), then the rest; SIGKILL whatever outlives the grace
 * period, and wait for that too, bounded. How many were running and ended;
 * *left: how many could not be stopped. */
int supervise_stop(struct lab_agent *agents, int n, int *left);

#endif
