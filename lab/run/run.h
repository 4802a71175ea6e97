/*
 * The scenario runner behind `steerlab run`: up, warm-up, failure,
 * observation, down, analysis, in one run directory.
 */
#ifndef STEERLAB_RUN_H
#define STEERLAB_RUN_H

#include <signal.h>
#include <sys/types.h>

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

/* run_scenario returns RUN_INVALID for a run that was analysed but cannot
 * be trusted: its verdict is invalid (report_run), an agent ended during it,
 * or it was interrupted. `steerlab run` exits 3 for it. */
#define RUN_INVALID 1
/* RUN_UNSAVED: analysed and printed, but a file of the analysis could not
 * be written in the run directory (a full disk): `steerlab run` exits 4,
 * as `steerlab report` does */
#define RUN_UNSAVED 2

/* run_scenario: 0 if the run and its analysis completed and the run is
 * valid, RUN_INVALID if it is not, RUN_UNSAVED if its analysis could not
 * all be written, -1 on error (nothing to analyse). It
 * refuses first (run_preflight) what it would refuse later. A random seed
 * (t->seed -1) is drawn into t->seed (run_seed) before topology.ini is
 * written; the failure falls at fail_at plus its jitter (lab/topology/jitter.h). */
int run_scenario(struct topology *t, const struct run_opts *o);

/* run_seed: if t->seed is random (-1), a seed from getrandom into it. 0,
 * or -1 (logged). */
int run_seed(struct topology *t);

/* run_preflight: what run_scenario would refuse, checked before anything is
 * made: no failing site, the lab or one of its namespaces already there, an
 * agent program missing, a run directory lab/build/rundir.h refuses (explicit_out:
 * it was given with --out). Each said on stderr. 0 or -1. */
int run_preflight(const struct topology *t, const char *bindir, const char *rundir,
		  int explicit_out);

/* run_preflight_lab: what bringing the lab of t up would refuse, said on
 * stderr as "steerlab: CMD: ...": the lab already up, one of its namespaces
 * already there, an agent program missing from bindir (NULL: not checked).
 * 0 or -1. */
int run_preflight_lab(const char *cmd, const struct topology *t, const char *bindir);

/* run_failing_site: the site the timeline takes out first
 * (topo_first_failure), or -1: a run needs one. */
int run_failing_site(const struct topology *t);

struct lab;

/* run_ready: 1 when every site link is being captured, every site's route
 * applied, and every authd and resolverd answers (their events in rundir). */
int run_ready(const struct topology *t, const char *rundir);

/* run_wait_ready: wait, at most settle, until the lab is ready, watching its
 * agents. 0 when ready; -1 (said) if an agent ended or settle passed. */
int run_wait_ready(struct lab *lab);

/* run_runs_dir: where the default run directories go: $STEERLAB_RUNS if set
 * and not empty, else runs (under the current directory). */
#define RUN_RUNS_ENV "STEERLAB_RUNS"
const char *run_runs_dir(void);

/* run_default_dir: RUNS/LAB-YYYYmmdd-HHMMSS into buf (RUNS: run_runs_dir). */
void run_default_dir(char *buf, size_t len, const char *lab);

/* run_sudo_owner: the user and group who ran sudo (SUDO_UID, SUDO_GID)
 * into *uid and *gid: 0; -1 if either is unset, or not a number from 0
 * to 2^32 - 2 (said: never taken for uid 0). */
int run_sudo_owner(uid_t *uid, gid_t *gid);

/* run_chown: when root, give dir and everything under it that root made
 * (owned by uid 0) to the user who ran sudo (SUDO_UID, SUDO_GID), if any,
 * and the default parent runs/ if sudo made it; never any other parent.
 * No symbolic link is followed (each entry is opened O_NOFOLLOW relative to
 * its directory and changed through that descriptor), and a file with more
 * than one link stays root's. Errors are logged with -v only: a file that
 * cannot be given away is still there for root. (lab/run/runowner.c) */
void run_chown(const char *dir);

/* run_count_events: lines of the JSON Lines file path whose "event" is
 * event (and, if key is not NULL, whose key equals value). */
int run_count_events(const char *path, const char *event, const char *key, const char *value);

#endif
