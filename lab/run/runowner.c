/* Run directories given back to the user who ran sudo; see run.h. */
#include "run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "strfmt.h"
#include "strtonum.h"

/* deeper than any run or sweep directory steerlab makes */
#define RUN_CHOWN_DEPTH 16

int run_sudo_owner(uid_t *uid, gid_t *gid)
{
	const char *su = getenv("SUDO_UID"), *sg = getenv("SUDO_GID"), *errstr;
	long long u, g;

	if (su == NULL || sg == NULL)
		return -1;
	/* (uid_t)-1 means "unchanged" to chown: not a user */
	u = strtonum(su, 0, (long long)(uid_t)-1 - 1, &errstr);
	if (errstr != NULL) {
		log_warnx("SUDO_UID=%s: %s user id; the run stays root's", su, errstr);
		return -1;
	}
	g = strtonum(sg, 0, (long long)(gid_t)-1 - 1, &errstr);
	if (errstr != NULL) {
		log_warnx("SUDO_GID=%s: %s group id; the run stays root's", sg, errstr);
		return -1;
	}
	*uid = (uid_t)u;
	*gid = (gid_t)g;
	return 0;
}

/* run_parent_is_default: rundir is runs/NAME or DIR/runs/NAME, where the
 * default run directories go. */
static int run_parent_is_default(const char *rundir)
{
	const char *slash = strrchr(rundir, '/');
	size_t plen;

	if (slash == NULL)
		return 0;
	plen = (size_t)(slash - rundir);
	return (plen == 4 && strncmp(rundir, "runs", 4) == 0) ||
	       (plen > 4 && strncmp(slash - 5, "/runs", 5) == 0);
}

/* run_chown_fd: give fd's file (path, for messages) to u:g if root made
 * it. A file with other links is left alone: its other names may be
 * outside the run (a link to /etc/shadow planted in the directory). */
static void run_chown_fd(int fd, const char *path, uid_t u, gid_t g)
{
	struct stat st;

	if (fstat(fd, &st) == -1) {
		log_debug("chown %s: %s", path, strerror(errno));
		return;
	}
	if (st.st_uid != 0 || (st.st_uid == u && st.st_gid == g))
		return;
	if (!S_ISDIR(st.st_mode) && st.st_nlink > 1) {
		log_debug("chown %s: %ju links: left to root", path, (uintmax_t)st.st_nlink);
		return;
	}
	/* fd may be an O_PATH descriptor (a link, a FIFO): AT_EMPTY_PATH */
	if (fchownat(fd, "", u, g, AT_EMPTY_PATH) == -1)
		log_debug("chown %s: %s", path, strerror(errno));
}

/* run_chown_dir: dirfd's directory (path) and, recursively, what it
 * holds. Every entry is opened relative to its directory with O_NOFOLLOW:
 * a symbolic link is changed itself, never what it points to, and a
 * directory swapped for a link meanwhile is not entered. Takes dirfd. */
static void run_chown_dir(int dirfd, const char *path, uid_t u, gid_t g, int depth)
{
	char sub[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int fd;

	run_chown_fd(dirfd, path, u, g);
	if (depth >= RUN_CHOWN_DEPTH || (fd = dup(dirfd)) == -1) {
		close(dirfd);
		return;
	}
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		close(dirfd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (strfmt(sub, sizeof(sub), "%s/%s", path, de->d_name) == -1)
			continue;
		fd = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd != -1) {
			run_chown_dir(fd, sub, u, g, depth + 1);
			continue;
		}
		fd = openat(dirfd, de->d_name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd == -1) {
			log_debug("chown %s: %s", sub, strerror(errno));
			continue;
		}
		run_chown_fd(fd, sub, u, g);
		close(fd);
	}
	closedir(d);
	close(dirfd);
}

void run_chown(const char *rundir)
{
	char path[PATH_MAX];
	struct stat st;
	uid_t u;
	gid_t g;
	int fd;

	if (geteuid() != 0 || run_sudo_owner(&u, &g) == -1)
		return;
	fd = open(rundir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1) {
		log_debug("chown %s: %s", rundir, strerror(errno));
		return;
	}
	run_chown_dir(fd, rundir, u, g, 0);
	/* The default parent, runs/, if sudo made it (still root's); never
	 * another parent: --out /tmp/r must not give /tmp away. */
	strfmt(path, sizeof(path), "%s/..", rundir);
	if (run_parent_is_default(rundir) && lstat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
	    st.st_uid == 0 && lchown(path, u, g) == -1)
		log_debug("chown %s: %s", path, strerror(errno));
}
