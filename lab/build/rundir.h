/*
 * The run directory of a command that makes one (run, up, sweep, run
 * --repeat): one set of rules, checked by one function before anything is
 * created, so that no command writes where another would refuse to.
 *
 * A run directory is new, or an empty directory, or (a sweep, a repeat) one
 * of its own kind to resume. It is never reached through a symbolic link
 * (its last component: what the link points to is not a directory the lab
 * made, /etc for one), and its path has no control character (it is
 * written one a line in the lab's state, /run/steerlab/LAB/rundir, read
 * back by status and down, and into the events).
 */
#ifndef STEERLAB_RUNDIR_H
#define STEERLAB_RUNDIR_H

#include <stddef.h>
#include <stdio.h>

/* rundir_check: may cmd ("run", "up", "sweep", "repeat") make, or use, its
 * run directory dir? Refused, each said on err as "steerlab: CMD: ...": a
 * control character in dir; a dir that is a symbolic link, or not a
 * directory; a directory that is not empty, unless it holds the file
 * marker (a sweep's sweep.args, a repeat's repeat.args; NULL: none may).
 * explicit_out: dir was given with --out (the advice differs). Nothing is
 * created. 0, or -1. */
int rundir_check(const char *cmd, const char *dir, const char *marker, int explicit_out, FILE *err);

/* rundir_ctl: the first control character of s (a byte below 0x20, or
 * 0x7f), or NULL if it has none. */
const char *rundir_ctl(const char *s);

/* rundir_quote: s into buf as C would write it, its control characters
 * escaped (\n, \t, \xHH), so that a refusal shows where they are. buf. */
const char *rundir_quote(const char *s, char *buf, size_t len);

/* rundir_make: mkdir -p dir (0755), then dir must be a directory and not
 * a symbolic link (a link planted since rundir_check is refused). 0, or -1
 * (logged). */
int rundir_make(const char *dir);

#endif
