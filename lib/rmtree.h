/*
 * Removing a directory the lab made under its state directory (an FRR
 * node's, a real resolver's), by descriptor, never following a link; and
 * making a temporary one.
 */
#ifndef STEERLAB_RMTREE_H
#define STEERLAB_RMTREE_H

#include <dirent.h>
#include <sys/stat.h>

/* rmtree_at: remove the directory name in parent (a descriptor) and what
 * it holds, with at most depth levels of directories below it (0: files
 * only; a deeper directory is left and is an error). A link is removed,
 * never followed. A missing name is not an error. 0, or -1 (errno of the
 * last failure; the rest is removed anyway). */
int rmtree_at(int parent, const char *name, int depth);

/* rmtree_opendir: the directory name in parent, opened following no link
 * (a link is ENOTDIR), for rmtree_next; closedir closes it. NULL with
 * errno set. rmtree_next: its next entry but "." and "..", with its
 * lstat in *st (an entry gone meanwhile is skipped); NULL at the end.
 * rmtree_at's walk, and lab/build/frr.c's, which removes only nodes'. */
DIR *rmtree_opendir(int parent, const char *name);
struct dirent *rmtree_next(DIR *d, struct stat *st);

/* rmtree_mkdtemp: a new directory "$TMPDIR/NAME.XXXXXX" (/tmp when TMPDIR
 * is unset or empty) into buf of len bytes, for the checks' scratch files
 * (rmtree_at removes it). 0, or -1 with errno set (ENAMETOOLONG: buf too
 * short). */
#include <stddef.h>
int rmtree_mkdtemp(char *buf, size_t len, const char *name);

#endif
