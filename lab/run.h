/*
 * The scenario runner behind `steerlab run`: up, warm-up, failure,
 * observation, down, analysis, in one run directory.
 */
#ifndef STEERLAB_RUN_H
#define STEERLAB_RUN_H

#include <signal.h>

#include "topology.h"

/* Set by SIGINT/SIGTERM: the run stops early, keeps what was captured,
 * tears the lab down and analyses what it has. */
extern volatile sig_atomic_t run_interrupted;

struct run_opts {
	const char *rundir; /* NULL: runs/LAB-YYYYmmdd-HHMMSS */
	const char *bindir;
	int quiet;
	const char *label; /* before the progress line: a sweep's point */
};

/* run_scenario: 0 if the run and its analysis completed, -1 otherwise. */
int run_scenario(const struct topology *t, const struct run_opts *o);

/* run_default_dir: runs/LAB-YYYYmmdd-HHMMSS into buf. */
void run_default_dir(char *buf, size_t len, const char *lab);

/* run_chown: give dir, its entries and its parent to the user who ran
 * sudo (SUDO_UID, SUDO_GID), if any. */
void run_chown(const char *dir);

/* run_count_events: lines of the JSON Lines file path whose "event" is
 * event (and, if key is not NULL, whose key equals value). */
int run_count_events(const char *path, const char *event, const char *key, const char *value);

#endif
