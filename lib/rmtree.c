/* Removing a directory the lab made; see rmtree.h. */
#include "rmtree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int rmtree_at(int parent, const char *name, int depth)
{
	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), rc = 0;
	struct dirent *de;
	DIR *d;

	if (fd == -1)
		return errno == ENOENT ? 0 : -1;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		struct stat st;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1)
			continue;
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
