/* A pcap file writer that knows what reached the file; see capfile.h. */
#include "capfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

struct capfile {
	int fd;
	int err; /* errno of the first failure, 0 if none */
	unsigned char *buf;
	size_t len, size; /* bytes in buf, its capacity */
	uint64_t nbuf;	  /* records in buf */
	uint64_t written; /* records in the file */
	off_t offset;	  /* the file's length: where buf goes */
};

/* capfile_write_all: len bytes at fd's offset; returns how many were
 * written, which is len unless *err was set */
static size_t capfile_write_all(int fd, const unsigned char *p, size_t len, int *err)
{
	size_t off = 0;

	*err = 0;
	while (off < len) {
		ssize_t n = write(fd, p + off, len - off);

		if (n > 0) {
			off += (size_t)n;
		} else if (n == -1 && errno == EINTR) {
			continue;
		} else {
			/* write(2) of a regular file returns 0 only for 0 bytes */
			*err = n == 0 ? EIO : errno;
			break;
		}
	}
	return off;
}

/* capfile_whole: how many records, and their bytes, fit entirely in the
 * first n bytes of buf */
static uint64_t capfile_whole(const unsigned char *buf, size_t n, size_t *bytes)
{
	uint64_t records = 0;
	size_t pos = 0;

	while (pos + CAPFILE_RECORD_HDR <= n) {
		uint32_t caplen;

		memcpy(&caplen, buf + pos + 8, sizeof(caplen));
		if (pos + CAPFILE_RECORD_HDR + caplen > n)
			break;
		pos += CAPFILE_RECORD_HDR + caplen;
		records++;
	}
	*bytes = pos;
	return records;
}

struct capfile *capfile_open(const char *path, const void *hdr, size_t hdrlen, size_t bufsize)
{
	struct capfile *f;
	int err;

	if (bufsize < CAPFILE_RECORD_HDR + CAPFILE_MAX_CAPLEN) {
		errno = EINVAL;
		return NULL;
	}
	if ((f = calloc(1, sizeof(*f))) == NULL || (f->buf = malloc(bufsize)) == NULL) {
		free(f);
		errno = ENOMEM;
		return NULL;
	}
	f->size = bufsize;
	f->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (f->fd == -1) {
		err = errno;
		goto fail;
	}
	if (capfile_write_all(f->fd, hdr, hdrlen, &err) != hdrlen) {
		close(f->fd);
		goto fail;
	}
	f->offset = (off_t)hdrlen;
	return f;
fail:
	free(f->buf);
	free(f);
	errno = err;
	return NULL;
}

int capfile_flush(struct capfile *f)
{
	size_t done, whole;
	uint64_t records;
	int err;

	if (f->err)
		return -1;
	if (f->len == 0)
		return 0;
	done = capfile_write_all(f->fd, f->buf, f->len, &err);
	if (err == 0) {
		f->written += f->nbuf;
		f->offset += (off_t)f->len;
		f->len = 0;
		f->nbuf = 0;
		return 0;
	}
	/* what reached the file: its whole records, and the cut after them */
	records = capfile_whole(f->buf, done, &whole);
	f->written += records;
	f->offset += (off_t)whole;
	if (whole != done && ftruncate(f->fd, f->offset) == -1) {
		/* best effort (a full quota may refuse even this): see capfile.h */
	}
	f->err = err;
	f->len = 0;
	f->nbuf = 0;
	return -1;
}

int capfile_add(struct capfile *f, uint32_t sec, uint32_t frac, uint32_t caplen, uint32_t len,
		const unsigned char *data)
{
	uint32_t h[4] = {sec, frac, caplen, len};
	size_t need = CAPFILE_RECORD_HDR + (size_t)caplen;

	if (f->err)
		return -1;
	if (caplen > CAPFILE_MAX_CAPLEN) {
		errno = EINVAL;
		return -1;
	}
	if (f->size - f->len < need && capfile_flush(f) == -1)
		return -1;
	memcpy(f->buf + f->len, h, sizeof(h));
	memcpy(f->buf + f->len + CAPFILE_RECORD_HDR, data, caplen);
	f->len += need;
	f->nbuf++;
	return 0;
}

int capfile_close(struct capfile *f, int *err)
{
	int rc;

	if (f == NULL)
		return 0;
	capfile_flush(f);
	/* a deferred write error (NFS, quotas) shows at close */
	if (close(f->fd) == -1 && f->err == 0 && errno != EINTR)
		f->err = errno;
	rc = f->err ? -1 : 0;
	if (err)
		*err = f->err;
	free(f->buf);
	free(f);
	return rc;
}

uint64_t capfile_written(const struct capfile *f)
{
	return f->written;
}

uint64_t capfile_buffered(const struct capfile *f)
{
	return f->nbuf;
}

int capfile_error(const struct capfile *f)
{
	return f->err;
}
