/*
 * Removing a directory the lab made under its state directory (an FRR
 * node's, a real resolver's), by descriptor, never following a link.
 */
#ifndef STEERLAB_RMTREE_H
#define STEERLAB_RMTREE_H

/* rmtree_at: remove the directory name in parent (a descriptor) and what
 * it holds, with at most depth levels of directories below it (0: files
 * only; a deeper directory is left and is an error). A link is removed,
 * never followed. A missing name is not an error. 0, or -1 (errno of the
 * last failure; the rest is removed anyway). */
int rmtree_at(int parent, const char *name, int depth);

#endif
