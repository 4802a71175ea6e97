/* Removing a directory the lab made; see rmtree.h. */
#include "rmtree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

DIR *rmtree_opendir(int parent, const char *name)
{
	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d;

	if (fd == -1)
		return NULL;
	if ((d = fdopendir(fd)) == NULL)
		close(fd);
	return d;
}

struct dirent *rmtree_next(DIR *d, struct stat *st)
{
	struct dirent *de;

	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(dirfd(d), de->d_name, st, AT_SYMLINK_NOFOLLOW) == 0)
			return de;
	}
	return NULL;
}

int rmtree_at(int parent, const char *name, int depth)
{
	struct dirent *de;
	struct stat st;
	int rc = 0;
	DIR *d;

	if ((d = rmtree_opendir(parent, name)) == NULL)
		return errno == ENOENT ? 0 : -1;
	while ((de = rmtree_next(d, &st)) != NULL) {
		if (S_ISDIR(st.st_mode)) {
			if (depth <= 0) {
				errno = EISDIR;
				rc = -1;
			} else if (rmtree_at(dirfd(d), de->d_name, depth - 1) == -1) {
				rc = -1;
			}
		} else if (unlinkat(dirfd(d), de->d_name, 0) == -1 && errno != ENOENT) {
			rc = -1;
		}
	}
	closedir(d);
	if (unlinkat(parent, name, AT_REMOVEDIR) == -1 && errno != ENOENT)
		rc = -1;
	return rc;
}

int rmtree_mkdtemp(char *buf, size_t len, const char *name)
{
	const char *tmp = getenv("TMPDIR");
	int n;

	if (tmp == NULL || tmp[0] == '\0')
		tmp = "/tmp";
	n = snprintf(buf, len, "%s/%s.XXXXXX", tmp, name);
	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return mkdtemp(buf) == NULL ? -1 : 0;
}
