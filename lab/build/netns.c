/* Named network namespaces, as iproute2 makes them; see lab.h. */
#include "lab.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <sys/mount.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"

static int netns_root_fd = -1;

static int netns_root(void)
{
	if (netns_root_fd == -1)
		netns_root_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	return netns_root_fd;
}

/* Make /run/netns a shared mount point so that bind mounts made here are
 * seen by other mount namespaces, as `ip netns add` does. */
static int netns_prepare_dir(void)
{
	static int done;

	if (done)
		return 0;
	if (mkdir(NETNS_DIR, 0755) == -1 && errno != EEXIST) {
		log_warn("%s: mkdir %s", __func__, NETNS_DIR);
		return -1;
	}
	while (mount("", NETNS_DIR, "none", MS_SHARED | MS_REC, NULL) == -1) {
		if (errno != EINVAL) {
			log_warn("%s: mount --make-shared %s", __func__, NETNS_DIR);
			return -1;
		}
		/* not a mount point yet: bind it onto itself, then retry */
		if (mount(NETNS_DIR, NETNS_DIR, "none", MS_BIND | MS_REC, NULL) == -1) {
			log_warn("%s: mount --bind %s", __func__, NETNS_DIR);
			return -1;
		}
	}
	done = 1;
	return 0;
}

static int netns_path(char *buf, size_t len, const char *name)
{
	int n = snprintf(buf, len, "%s/%s", NETNS_DIR, name);

	return (n < 0 || (size_t)n >= len) ? -1 : 0;
}

int netns_exists(const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	return netns_path(path, sizeof(path), name) == 0 && stat(path, &st) == 0;
}

int netns_create(const char *name)
{
	char path[PATH_MAX];
	int fd, saved;

	if (netns_root() == -1 || netns_prepare_dir() == -1)
		return -1;
	if (netns_path(path, sizeof(path), name) == -1) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = open(path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
	if (fd == -1)
		return -1;
	close(fd);
	if (unshare(CLONE_NEWNET) == -1)
		goto out_delete;
	if (mount("/proc/self/ns/net", path, "none", MS_BIND, NULL) == -1)
		goto out_restore;
	if (netns_enter_root() == -1)
		goto out_umount;
	return 0;

out_umount:
	saved = errno;
	umount2(path, MNT_DETACH);
	errno = saved;
out_restore:
	saved = errno;
	netns_enter_root();
	errno = saved;
out_delete:
	saved = errno;
	unlink(path);
	errno = saved;
	return -1;
}

int netns_delete(const char *name)
{
	char path[PATH_MAX];

	if (netns_path(path, sizeof(path), name) == -1) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (umount2(path, MNT_DETACH) == -1 && errno != EINVAL && errno != ENOENT)
		return -1;
	return unlink(path);
}

int netns_open(const char *name)
{
	char path[PATH_MAX];

	if (netns_path(path, sizeof(path), name) == -1) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return open(path, O_RDONLY | O_CLOEXEC);
}

int netns_enter(int fd)
{
	if (netns_root() == -1)
		return -1;
	return setns(fd, CLONE_NEWNET);
}

int netns_enter_root(void)
{
	int fd = netns_root();

	return fd == -1 ? -1 : setns(fd, CLONE_NEWNET);
}

int netns_enter_exec(int fd)
{
	if (setns(fd, CLONE_NEWNET) == -1 || unshare(CLONE_NEWNS) == -1)
		return -1;
	/* nothing mounted from here on reaches the other namespaces */
	if (mount("", "/", "none", MS_SLAVE | MS_REC, NULL) == -1)
		return -1;
	if (umount2("/sys", MNT_DETACH) == -1 && errno != EINVAL)
		return -1;
	return mount("sysfs", "/sys", "sysfs", 0, NULL);
}

/* netns_of: the device and inode of pid's network namespace */
static int netns_of(int pid, dev_t *dev, ino_t *ino)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/ns/net", pid);
	if (stat(path, &st) == -1)
		return -1;
	*dev = st.st_dev;
	*ino = st.st_ino;
	return 0;
}

int netns_members(const char *const names[], int n, struct netns_member *m, int max)
{
	dev_t *devs = calloc(n > 0 ? (size_t)n : 1, sizeof(*devs));
	ino_t *inos = calloc(n > 0 ? (size_t)n : 1, sizeof(*inos));
	int *have = calloc(n > 0 ? (size_t)n : 1, sizeof(*have));
	int found = -1, self = (int)getpid(), any = 0;
	char path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d = NULL;

	if (devs == NULL || inos == NULL || have == NULL)
		goto out;
	for (int i = 0; i < n; i++) {
		if (netns_path(path, sizeof(path), names[i]) == 0 && stat(path, &st) == 0) {
			devs[i] = st.st_dev;
			inos[i] = st.st_ino;
			have[i] = any = 1;
		}
	}
	found = 0;
	if (!any)
		goto out;
	if ((d = opendir("/proc")) == NULL) {
		found = -1;
		goto out;
	}
	while ((de = readdir(d)) != NULL && found < max) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		dev_t dev;
		ino_t ino;
		int fd, i;

		if (*end != '\0' || pid <= 0 || pid == self)
			continue;
		/* held first: from here /proc/PID is that process */
		if ((fd = pidfd_open((pid_t)pid, 0)) == -1)
			continue;
		i = n;
		if (netns_of((int)pid, &dev, &ino) == 0)
			for (i = 0; i < n; i++)
				if (have[i] && dev == devs[i] && ino == inos[i])
					break;
		if (i == n) {
			close(fd);
			continue;
		}
		m[found].pid = (int)pid;
		m[found].pidfd = fd;
		m[found].ns = i;
		m[found].comm[0] = '\0';
		snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
		FILE *fp = fopen(path, "re");
		if (fp) {
			if (fgets(m[found].comm, sizeof(m[found].comm), fp) == NULL)
				m[found].comm[0] = '\0';
			m[found].comm[strcspn(m[found].comm, "\n")] = '\0';
			fclose(fp);
		}
		found++;
	}
out:
	if (d)
		closedir(d);
	free(devs);
	free(inos);
	free(have);
	return found;
}
