/*
 * The '#' lines that open every CSV file steerlab writes (docs/analysis.md,
 * "CSV files"): which steerlab wrote it, of which run, from which topology,
 * and the units of its columns. The header line follows them, then the
 * rows, so pandas.read_csv(path, comment='#'), gnuplot and R read the file
 * as before, and a reader of its own skips the lines that start with '#'
 * (csvmeta_is_meta). Apart from the version, every value is fixed by the
 * run, so that a report rebuilt from the same run writes the same lines:
 *
 *   # steerlab VERSION
 *   # run RUNID
 *   # topology FILE
 *   # units: COLUMN=UNIT, ...
 */
#ifndef STEERLAB_CSVMETA_H
#define STEERLAB_CSVMETA_H

#include <stddef.h>
#include <stdio.h>

/* csvmeta_version: the steerlab that is running (git describe at build
 * time: the Makefile's STEERLAB_VERSION; "unknown" without it). */
const char *csvmeta_version(void);

/* csvmeta_write: the '#' lines into fp: run (the run directory's name,
 * csvmeta_run_id), topology (the file the run was given; "-" when NULL or
 * empty) and units ("COLUMN=UNIT, ...": NULL writes no units line). No
 * value may hold a newline (one that does is cut there). fp's error
 * indicator tells a failed write, as for the rows after them. */
void csvmeta_write(FILE *fp, const char *run, const char *topology, const char *units);

/* csvmeta_run_id: the run id of the run directory dir: its last path
 * component ("runs/lab-20270101-120000/" -> "lab-20270101-120000"), into
 * buf of len; "-" if it has none. Returns buf. */
const char *csvmeta_run_id(const char *dir, char *buf, size_t len);

/* csvmeta_is_meta: whether line is one of the '#' lines (a reader skips
 * every line that starts with '#', before the header). */
int csvmeta_is_meta(const char *line);

#endif
