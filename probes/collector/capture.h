/*
 * One libpcap capture of one link, written to DIR/capture-LABEL.pcap.
 *
 * The capture is opened with pcap_create so that the kernel ring can be
 * sized (the default 2 MiB drops packets at a few hundred thousand per
 * second), asks for nanosecond timestamps, and runs non-blocking: the
 * collector's lib/loop.h epoll loop watches pcap_get_selectable_fd() and
 * calls capture_read() when the ring has packets. It is not in immediate
 * mode: libpcap then uses TPACKET_V3, whose blocks the kernel hands over
 * when full or after CAPRING_TIMEOUT_MS (lib/capring.h, which says what a
 * ring holds), which costs far fewer wake-ups at high rates. Latency does not
 * matter here: every packet carries its kernel timestamp.
 *
 * The packets go to the file through capfile.h, which knows what reached
 * it: a write error (ENOSPC, EIO, ...) stops the file, the capture goes on
 * (its packets are still counted, and pcap_stats still says what the
 * kernel dropped), and capture_write_error() says why.
 *
 * All pcap calls live in this file (docs/style.md: kernel-facing code behind a
 * small interface).
 */
#ifndef STEERLAB_CAPTURE_H
#define STEERLAB_CAPTURE_H

#include <stdint.h>

#define CAPTURE_BUFFER_DEFAULT (64 << 20)
#define CAPTURE_SNAPLEN_DEFAULT 128

struct capture;

struct capture_config {
	const char *iface; /* interface in the current namespace */
	const char *label; /* names the file: DIR/capture-LABEL.pcap */
	const char *dir;
	const char *filter; /* BPF expression */
	int buffer_bytes;   /* kernel ring size */
	int snaplen;
};

struct capture_stats {
	uint64_t packets;    /* handed to us by libpcap */
	uint64_t written;    /* of those, in the file: packets unless it failed */
	uint64_t received;   /* pcap_stats ps_recv */
	uint64_t dropped;    /* ps_drop: the ring was full */
	uint64_t if_dropped; /* ps_ifdrop: dropped by the interface */
};

/* The packets of one capture so far, by what they carry: lib/wire.h
 * requests by their client id (a prober's probe, an anycast flow's, a
 * DNS-steered flow's), and anything else; counted as they are read, so
 * that a few milliseconds after the kernel hands a block over. */
struct capture_requests {
	uint64_t probe, anycast, dns, other;
	/* pcap time of the latest request of each scheme; 0: none yet */
	int64_t anycast_last_ns, dns_last_ns;
};

/* capture_open: create, configure and activate the capture, compile and set
 * the filter, and open its dump file. Returns NULL (and logs why) on
 * failure; *file_errno is then the errno of the dump file's creation or
 * header write if that is what failed (else 0). */
struct capture *capture_open(const struct capture_config *cfg, int *file_errno);

/* capture_fd: the descriptor to watch for EPOLLIN. */
int capture_fd(const struct capture *c);
const char *capture_label(const struct capture *c);
const char *capture_iface(const struct capture *c);
/* capture_path: DIR/capture-LABEL.pcap */
const char *capture_path(const struct capture *c);
/* capture_linktype: the DLT name, e.g. "EN10MB". */
const char *capture_linktype(const struct capture *c);

/* capture_read: take up to max packets waiting in the ring (max <= 0: all
 * of them) and write them to the file (unless it has failed). Returns the
 * number taken, or -1 on a capture error. A write error is not a capture
 * error: see capture_write_error. */
int capture_read(struct capture *c, int max);

/* capture_write_error: the errno of the dump file's first write error
 * (ENOSPC, EIO, ...), 0 if none; from then on nothing more is written. */
int capture_write_error(const struct capture *c);

/* capture_written: packets in the file so far (final once it is closed). */
uint64_t capture_written(const struct capture *c);

/* capture_requests: the counts so far into *r. */
void capture_requests(const struct capture *c, struct capture_requests *r);

/* capture_stats: the kernel's counters and our own. 0 or -1 (then the
 * kernel's are 0, ours are right). */
int capture_stats(struct capture *c, struct capture_stats *st);

/* capture_flush: write out what is buffered. 0, or -1 if the file has
 * failed (capture_write_error). */
int capture_flush(struct capture *c);

/* capture_close_file: write out and close the dump file (written is then
 * final). 0, or -1 if the file failed at any time (capture_write_error). */
int capture_close_file(struct capture *c);

/* capture_close: capture_close_file if not done, then close the capture
 * and free c. Returns 0, or -1 if the file could not be written
 * completely. c may be NULL. */
int capture_close(struct capture *c);

#endif
