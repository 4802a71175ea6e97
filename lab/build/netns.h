/*
 * Named network namespaces, made the way iproute2's `ip netns add` makes
 * them: /run/netns is a shared mount point, each namespace is a file there
 * with the namespace bind-mounted on it, so `ip netns exec NAME ...` works
 * for the user beside the lab.
 *
 * This is the only file that unshares, mounts and unmounts. Like kernel.h,
 * this header is a seam: tests/unit/test_lab_build.c links a fake of every
 * function here in place of netns.c; tests/unit/test_lab_netns.c checks
 * netns.c itself, in mount and network namespaces of its own.
 */
#ifndef STEERLAB_NETNS_H
#define STEERLAB_NETNS_H

#define NETNS_DIR "/run/netns"

/* netns_create: make namespace name. Fails (-1, errno EEXIST) if a file
 * of that name already exists. The caller's namespace is unchanged. */
int netns_create(const char *name);

/* netns_delete: unmount and remove it. 0, or -1 (errno ENOENT if absent). */
int netns_delete(const char *name);

int netns_exists(const char *name);

/* netns_open: an O_RDONLY fd on the namespace, for setns(), or -1. */
int netns_open(const char *name);

/* netns_enter: setns() into fd. netns_enter_root(): back to the namespace
 * the process started in. 0 or -1. */
int netns_enter(int fd);
int netns_enter_root(void);

/* netns_enter_exec: what `ip netns exec` does before it runs a command:
 * setns() into fd, then a mount namespace of the process's own in which
 * /sys is a fresh sysfs of that network namespace (so /sys/class/net lists
 * its interfaces). 0, or -1 with errno; the caller then exits, its
 * namespaces half changed. */
int netns_enter_exec(int fd);

/* A process found inside a named namespace (netns_members). */
struct netns_member {
	int pid;
	int pidfd;     /* holds it: signal it through this */
	char comm[16]; /* /proc/PID/comm, for the messages */
	int ns;	       /* the index of its namespace in names[] */
};

/* netns_members: every process but this one whose network namespace is one
 * of names[0..n) (NETNS_DIR/NAME), matched by the namespace's device and
 * inode, never by a process's name. Each is held by a pidfd opened before
 * its namespace is checked, so the process checked is the one held (the
 * caller closes each pidfd). How many were found, at most max, into m; -1
 * (errno) if /proc cannot be read. A namespace that is not there matches
 * nothing. */
int netns_members(const char *const names[], int n, struct netns_member *m, int max);

#endif
