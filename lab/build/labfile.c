/*
 * The files of a lab's state and run directories, for every file of the
 * room that writes or reads them (build.c, agents.c, frr.c, realres_run.c,
 * supervise.c, state.c): their paths, and opening them never through a
 * symbolic link. Below them all, so none of them calls into bring-up for a
 * file.
 */
#include "lab.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "strfmt.h"

int lab_statedir(char *buf, size_t len, const char *name)
{
	return strfmt(buf, len, "%s/%s", LAB_STATE_DIR, name);
}

int lab_nsname(char *buf, size_t len, const struct topology *t, int node)
{
	return strfmt(buf, len, "%s-%s", t->name, t->nodes[node].name);
}

/* lab_fopen_flags: DIR/FILE opened for writing with flags, never through a
 * symbolic link. The descriptor, or -1 (said). */
static int lab_fopen_flags(const char *dir, const char *file, int flags)
{
	char path[PATH_MAX];
	int fd;

	if (strfmt(path, sizeof(path), "%s/%s", dir, file) == -1) {
		log_warnx("%s/%s: path too long", dir, file);
		return -1;
	}
	fd = open(path, flags | O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0644);
	if (fd == -1) {
		if (errno == ELOOP)
			log_warnx("%s is a symbolic link: not followed", path);
		else if (errno == EEXIST)
			log_warnx("%s already exists: not overwritten", path);
		else
			log_warn("%s: %s", __func__, path);
	}
	return fd;
}

static FILE *lab_fopen_stream(const char *dir, const char *file, int flags, const char *mode)
{
	FILE *fp;
	int fd = lab_fopen_flags(dir, file, flags);

	if (fd == -1)
		return NULL;
	if ((fp = fdopen(fd, mode)) == NULL) {
		log_warn("%s: %s/%s", __func__, dir, file);
		close(fd);
	}
	return fp;
}

FILE *lab_fopen_new(const char *dir, const char *file)
{
	return lab_fopen_stream(dir, file, O_EXCL, "w");
}

FILE *lab_fopen_write(const char *dir, const char *file)
{
	return lab_fopen_stream(dir, file, O_TRUNC, "w");
}

FILE *lab_fopen_read(const char *path)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	FILE *fp;

	if (fd == -1)
		return NULL;
	if ((fp = fdopen(fd, "r")) == NULL)
		close(fd);
	return fp;
}

int lab_append(const char *dir, const char *file, const char *line)
{
	char buf[512];
	size_t len = strlen(line);
	int fd, rc = 0;

	/* one write, no stdio: the supervisor appends a line between two
	 * forks, and every page it writes then is a page copied */
	if (len + 1 > sizeof(buf)) {
		log_warnx("%s/%s: line too long", dir, file);
		return -1;
	}
	memcpy(buf, line, len);
	buf[len++] = '\n';
	if ((fd = lab_fopen_flags(dir, file, O_APPEND)) == -1)
		return -1;
	if (write(fd, buf, len) != (ssize_t)len)
		rc = -1;
	if (close(fd) == -1)
		rc = -1;
	if (rc == -1)
		log_warn("%s: %s/%s", __func__, dir, file);
	return rc;
}
