/*
 * Inside the clocks module: the readers clocks_load() runs and their small
 * helpers. Not for other modules; clocks.h is the interface.
 */
#ifndef STEERLAB_CLOCKS_INT_H
#define STEERLAB_CLOCKS_INT_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "clocks.h"

/* clocks_grow: make room for one more element in *arr (n used of *cap,
 * elements of size bytes). 0, or -1 when out of memory. */
int clocks_grow(void **arr, size_t *cap, size_t n, size_t size);

/* clocks_list_dir: the sorted names in dir that start with prefix and end
 * with suffix (and have something between). *names is a malloc'd array of
 * malloc'd strings, freed with clocks_free_names. 0, or -1 with err set. */
int clocks_list_dir(const char *dir, const char *prefix, const char *suffix, char ***names,
		    size_t *n, char *err, size_t errlen);
void clocks_free_names(char **names, size_t n);

/* clocks_read_line: the next line of fp into *line (getline's buffer),
 * without its end of line. Returns its length, or -1 at the end of the file
 * or on a read error (ferror tells). *complete is 0 if the line had no '\n':
 * the last line of a file whose writer was killed mid-line. */
ssize_t clocks_read_line(FILE *fp, char **line, size_t *cap, int *complete);

/* The readers: each fills its part of *in; 0, or -1 with "FILE:LINE: why"
 * in err. */
int clocks_read_events(const char *rundir, struct clocks_input *in, char *err, size_t errlen);
int clocks_read_requests(const char *rundir, struct clocks_input *in, char *err, size_t errlen);
int clocks_read_captures(const char *rundir, struct clocks_input *in, char *err, size_t errlen);

#endif
