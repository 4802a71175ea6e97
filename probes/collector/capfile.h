/*
 * A pcap file writer that knows what reached the file.
 *
 * libpcap's pcap_dump() writes through stdio and reports nothing: after a
 * full disk the collector counted packets it never wrote, and logged a stale
 * errno (EAGAIN, EINVAL) instead of ENOSPC. This writer keeps its own
 * buffer and writes it with write(2), so that it knows, record by record,
 * what the file holds:
 *
 *   - the file header is written at open, so an empty capture is a valid
 *     file and a file that cannot be written fails at once;
 *   - records are copied to the buffer and written when it is full, at
 *     capfile_flush() and at capfile_close();
 *   - a write that fails (ENOSPC, EIO, EFBIG, ...) after writing part of
 *     the buffer leaves whole records in the file: the file is cut after
 *     the last complete one (ftruncate; a file that cannot be cut keeps a
 *     partial last record, which the readers reject as truncated), and
 *     capfile_written() counts exactly the records before the cut;
 *   - after the first error nothing more is written, capfile_error() keeps
 *     its errno, and every call returns -1.
 *
 * The records are pcap's (host byte order, as the header's magic says):
 * seconds, fraction (micro- or nanoseconds, as the header says), caplen,
 * len, then caplen bytes. The header comes from the caller (capture.c asks
 * libpcap for it), so this file has no libpcap dependency and is
 * unit-tested against /dev/full and a file size limit.
 */
#ifndef STEERLAB_CAPFILE_H
#define STEERLAB_CAPFILE_H

#include <stddef.h>
#include <stdint.h>

#define CAPFILE_RECORD_HDR 16
/* the largest snaplen the collector takes, so any record fits the buffer */
#define CAPFILE_MAX_CAPLEN 262144
#define CAPFILE_BUFFER_DEFAULT (1 << 20)

struct capfile;

/* capfile_open: creates path (truncating an existing file, never through a
 * symlink: O_NOFOLLOW) and writes the hdrlen bytes of hdr to it. bufsize
 * must hold the largest record (CAPFILE_RECORD_HDR + CAPFILE_MAX_CAPLEN).
 * Returns NULL with errno set on failure (a file created but whose header
 * could not be written is left as it is: empty or cut, which the readers
 * reject). */
struct capfile *capfile_open(const char *path, const void *hdr, size_t hdrlen, size_t bufsize);

/* capfile_add: appends one record. 0, or -1 if the file has failed (now or
 * before: see capfile_error). caplen above CAPFILE_MAX_CAPLEN is refused
 * (EINVAL) without failing the file. */
int capfile_add(struct capfile *f, uint32_t sec, uint32_t frac, uint32_t caplen, uint32_t len,
		const unsigned char *data);

/* capfile_flush: writes the buffer out. 0, or -1 if the file has failed. */
int capfile_flush(struct capfile *f);

/* capfile_close: flushes, closes the descriptor (its error counts too) and
 * frees f. 0, or -1 if the file failed at any time; *err (may be NULL) is
 * then its errno. f may be NULL. */
int capfile_close(struct capfile *f, int *err);

/* capfile_written: records in the file (flushed). */
uint64_t capfile_written(const struct capfile *f);

/* capfile_buffered: records added but not yet written. */
uint64_t capfile_buffered(const struct capfile *f);

/* capfile_error: the errno of the first failure, 0 if none. */
int capfile_error(const struct capfile *f);

#endif
