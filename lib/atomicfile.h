/*
 * atomicfile: write a file of a directory so that a reader sees the old
 * file or the new one, never half of one, and so that nothing planted in
 * the directory is followed.
 *
 * The directory is opened once (atomicfile_dir) and every name is relative
 * to that descriptor: a directory renamed or swapped meanwhile does not
 * redirect the writes. The data goes to a new temporary file beside the
 * target, NAME.tmp-XXXXXX with a random suffix, created with
 * O_CREAT | O_EXCL | O_NOFOLLOW, so a symbolic link planted under any name
 * (NAME.tmp, NAME itself) is never opened; then it is flushed, fsync'd and
 * renamed onto NAME with renameat, which replaces a link planted as NAME
 * instead of writing through it. On any failure the temporary file is
 * removed and NAME is left as it was.
 *
 * Errors are written to err as "DIR/NAME: what: strerror (ENAME)", so that
 * a full disk says ENOSPC and names the file.
 */
#ifndef STEERLAB_ATOMICFILE_H
#define STEERLAB_ATOMICFILE_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

struct atomicfile {
	int dirfd;	 /* not owned */
	const char *dir; /* for messages */
	char name[NAME_MAX + 1];
	char tmp[NAME_MAX + 1];
	FILE *fp;   /* write to this */
	int fd;	    /* the temporary file, under fp */
	void *sink; /* fp's cookie: fd and the first write error */
};

/* atomicfile_dir: open directory dir for the files to come: a descriptor
 * (O_DIRECTORY, O_CLOEXEC), or -1 with err set. */
int atomicfile_dir(const char *dir, char *err, size_t errlen);

/* atomicfile_open: start writing name (a plain name, no '/') in the
 * directory dirfd (opened by atomicfile_dir; dir is its path, for
 * messages), mode 0644 less the umask. 0, or -1 with err set. */
int atomicfile_open(struct atomicfile *af, int dirfd, const char *dir, const char *name, char *err,
		    size_t errlen);

/* atomicfile_fd: the temporary file's descriptor, for a child process to
 * write to (flush af->fp first if it has been written to). */
int atomicfile_fd(const struct atomicfile *af);

/* atomicfile_size: the bytes written so far (af->fp flushed); -1 on error */
long long atomicfile_size(struct atomicfile *af);

/* atomicfile_commit: flush, fsync, close and rename the file into place.
 * 0, or -1 with err set (a write error of any earlier fprintf is reported
 * here, by its errno) and the temporary file removed. */
int atomicfile_commit(struct atomicfile *af, char *err, size_t errlen);

/* atomicfile_abort: close and remove the temporary file; name is untouched. */
void atomicfile_abort(struct atomicfile *af);

/* atomicfile_errname: "ENOSPC" for ENOSPC, "errno 1234" if unknown, into
 * buf; for messages that name an error by both its text and its name */
const char *atomicfile_errname(int err, char *buf, size_t len);

#endif
