/*
 * Running a helper program and waiting for it: gnuplot for the report's and
 * the sweep's plots, the version queries of the report's machine section,
 * FRR's dry runs and the real resolvers' checks (their output read).
 *
 * posix_spawn, not fork: the analysis may hold a few hundred MB of
 * packets, whose page tables fork would copy for nothing. The child gets
 * exactly three descriptors (standard input, output and error) and the
 * program is looked up in PATH. A script for the child is best given on
 * its standard input from a memory file (subproc_memfd), so that no file of
 * a directory it works in, planted or swapped, is read as its script.
 */
#ifndef STEERLAB_SUBPROC_H
#define STEERLAB_SUBPROC_H

#include <stdio.h>
#include <sys/types.h>

/* subproc_run: run argv[0] (searched in PATH) with argv, in directory dir
 * (NULL: this one), its standard input from in (-1: /dev/null), its output
 * to out and its error to err, and wait for it. Returns its exit status,
 * 128 + N if signal N ended it, 127 if it could not be run (not found, not
 * executable), or -1 (errno set) if it could not be started. */
int subproc_run(const char *dir, char *const argv[], int in, int out, int err);

/* subproc_run_fds: subproc_run with more descriptors than three: the
 * child's descriptor i is fds[i], for i below nfds (3 to SUBPROC_MAX_FDS;
 * fds[0] -1: /dev/null), for a helper that writes files besides its
 * standard output (gnuplot, a PNG to /proc/self/fd/3). Returns as
 * subproc_run (-1 with EINVAL for another nfds). */
#define SUBPROC_MAX_FDS 8
int subproc_run_fds(const char *dir, char *const argv[], const int *fds, int nfds);

/* subproc_capture: run argv[0] with argv, its standard input from in (-1:
 * /dev/null), and what it prints on both streams into *text (malloc'd,
 * NUL-terminated; NULL on -1), for a program whose output is read: a check
 * tool's, a dry run's. Its environment is PATH=/usr/bin:/bin alone, so
 * that the user's locale or settings do not change what it says. The
 * child's pid in *pidp if pidp is not NULL (0 if it never ran). Returns as
 * subproc_run. */
int subproc_capture(char *const argv[], int in, char **text, pid_t *pidp);

/* One program of subproc_capture_all: argv and in as subproc_capture takes
 * them; status, text and pid as it gives them back (errnum: the errno of
 * a status -1). */
struct subproc_job {
	char *const *argv;
	int in;
	int keep_env; /* 1: the caller's environment (a Slurm client's SLURM_CONF), not PATH alone
		       */
	int status;
	int errnum;
	char *text;
	pid_t pid;
};

/* subproc_capture_all: jobs[0..n), each run as subproc_capture runs one,
 * at most parallel (at least 1) at a time, a job started as soon as
 * another ends: the dry runs of a lab's FRR nodes, side by side on every
 * CPU. Returns once every one has ended, its results in its job (the
 * caller frees each text). Waits for its own children only (pidfds), never
 * for another of the caller's. 0. */
int subproc_capture_all(struct subproc_job *jobs, int n, int parallel);

/* subproc_start_bg: start argv[0] (searched in PATH) with argv in the
 * caller's environment, its input from /dev/null, its output and error to
 * out, without waiting: a run of a sweep's point beside others. Its pid in
 * *pidp; returns as subproc_run does before it waits (0 once it runs). The
 * caller waits with subproc_wait. */
int subproc_start_bg(char *const argv[], int out, pid_t *pidp);

/* subproc_wait: wait for pid, a child subproc_start_bg started; returns as
 * subproc_run. */
int subproc_wait(pid_t pid);

/* subproc_memfd: a memory file named name holding what fill(fp, arg) writes,
 * rewound, to pass to subproc_run as in. The descriptor, or -1 (errno set). */
int subproc_memfd(const char *name, void (*fill)(FILE *fp, const void *arg), const void *arg);

#endif
