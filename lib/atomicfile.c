/*
 * atomicfile: a file written beside its target and renamed onto it, inside
 * a directory opened once, following no link; see atomicfile.h.
 *
 * The FILE the caller writes to is a fopencookie stream over the temporary
 * file's descriptor, so that the errno of the first failed write(2) (ENOSPC,
 * EIO, EDQUOT) is kept and reported at commit, by name, instead of the
 * stream's bare error flag.
 */
#include "atomicfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ATOMICFILE_TRIES 16 /* random names tried before giving up */

/* what the cookie stream needs: the descriptor and the first error */
struct atomicfile_sink {
	int fd;
	int err;
};

const char *atomicfile_errname(int err, char *buf, size_t len)
{
	const char *name = strerrorname_np(err);

	if (name)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "errno %d", err);
	return buf;
}

static void atomicfile_fail(char *err, size_t errlen, const char *dir, const char *name,
			    const char *what, int e)
{
	char ename[32];

	snprintf(err, errlen, "%s/%s: %s: %s (%s)", dir, name, what, strerror(e),
		 atomicfile_errname(e, ename, sizeof(ename)));
}

int atomicfile_dir(const char *dir, char *err, size_t errlen)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char ename[32];

	if (fd == -1)
		snprintf(err, errlen, "%s: cannot open the directory: %s (%s)", dir,
			 strerror(errno), atomicfile_errname(errno, ename, sizeof(ename)));
	return fd;
}

static ssize_t atomicfile_write(void *cookie, const char *buf, size_t size)
{
	struct atomicfile_sink *s = cookie;
	size_t off = 0;

	if (s->err)
		return 0;
	while (off < size) {
		ssize_t n = write(s->fd, buf + off, size - off);

		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			s->err = n == -1 ? errno : EIO;
			errno = s->err;
			return 0; /* fopencookie(3): 0 is the error */
		}
		off += (size_t)n;
	}
	return (ssize_t)size;
}

static int atomicfile_close_sink(void *cookie)
{
	struct atomicfile_sink *s = cookie;
	int rc = 0;

	if (s->fd != -1 && close(s->fd) == -1 && s->err == 0)
		s->err = errno;
	if (s->err) {
		errno = s->err;
		rc = -1;
	}
	free(s);
	return rc;
}

/* atomicfile_suffix: six random hex digits; getrandom, or the clock if it
 * has no entropy yet (the name only has to be unlikely, O_EXCL does the rest) */
static unsigned atomicfile_suffix(void)
{
	struct timespec ts;
	unsigned r;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) == (ssize_t)sizeof(r))
		return r & 0xffffff;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned)(ts.tv_nsec ^ (getpid() << 8)) & 0xffffff;
}

int atomicfile_open(struct atomicfile *af, int dirfd, const char *dir, const char *name, char *err,
		    size_t errlen)
{
	static const cookie_io_functions_t io = {.write = atomicfile_write,
						 .close = atomicfile_close_sink};
	struct atomicfile_sink *s;
	int fd = -1;

	memset(af, 0, sizeof(*af));
	af->fd = -1;
	af->dirfd = dirfd;
	af->dir = dir;
	if (name[0] == '\0' || strchr(name, '/') || strcmp(name, ".") == 0 ||
	    strcmp(name, "..") == 0 || strlen(name) + 12 > NAME_MAX) {
		snprintf(err, errlen, "%s/%s: not a plain file name", dir, name);
		return -1;
	}
	snprintf(af->name, sizeof(af->name), "%s", name);
	for (int i = 0; i < ATOMICFILE_TRIES && fd == -1; i++) {
		snprintf(af->tmp, sizeof(af->tmp), "%s.tmp-%06x", name, atomicfile_suffix());
		fd = openat(dirfd, af->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0644);
		if (fd == -1 && errno != EEXIST)
			break;
	}
	if (fd == -1) {
		atomicfile_fail(err, errlen, dir, af->name, "cannot create", errno);
		return -1;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL || (af->fp = fopencookie(s, "w", io)) == NULL) {
		free(s);
		close(fd);
		unlinkat(dirfd, af->tmp, 0);
		snprintf(err, errlen, "%s/%s: out of memory", dir, name);
		return -1;
	}
	s->fd = af->fd = fd;
	af->sink = s;
	/* the cookie stream owns s and fd from here */
	return 0;
}

int atomicfile_fd(const struct atomicfile *af)
{
	return af->fd;
}

long long atomicfile_size(struct atomicfile *af)
{
	struct stat st;

	if (fflush(af->fp) == EOF || fstat(af->fd, &st) == -1)
		return -1;
	return (long long)st.st_size;
}

int atomicfile_commit(struct atomicfile *af, char *err, size_t errlen)
{
	struct atomicfile_sink *s = af->sink;
	int e = 0;

	/* the first write's errno, which the stream's error flag has lost */
	errno = 0;
	if (fflush(af->fp) == EOF || ferror(af->fp))
		e = s->err ? s->err : errno ? errno : EIO;
	if (e == 0 && fsync(af->fd) == -1)
		e = errno;
	if (fclose(af->fp) == EOF && e == 0)
		e = errno ? errno : EIO;
	af->fp = NULL;
	af->sink = NULL;
	af->fd = -1;
	if (e) {
		atomicfile_fail(err, errlen, af->dir, af->name, "cannot write", e);
		unlinkat(af->dirfd, af->tmp, 0);
		return -1;
	}
	if (renameat(af->dirfd, af->tmp, af->dirfd, af->name) == -1) {
		atomicfile_fail(err, errlen, af->dir, af->name, "cannot rename into place", errno);
		unlinkat(af->dirfd, af->tmp, 0);
		return -1;
	}
	return 0;
}

void atomicfile_abort(struct atomicfile *af)
{
	if (af->fp) {
		fclose(af->fp);
		af->fp = NULL;
		af->sink = NULL;
		af->fd = -1;
	}
	if (af->tmp[0])
		unlinkat(af->dirfd, af->tmp, 0);
}
