/*
 * One libpcap capture of one link, written to DIR/capture-LABEL.pcap.
 *
 * The capture is opened with pcap_create so that the kernel ring can be
 * sized (the default 2 MiB drops packets at a few hundred thousand per
 * second), asks for nanosecond timestamps, and runs non-blocking: the
 * collector's lib/loop.h epoll loop watches pcap_get_selectable_fd() and
 * calls capture_read() when the ring has packets. It is not in immediate
 * mode: libpcap then uses TPACKET_V3, whose blocks the kernel hands over
 * when full or after CAPTURE_TIMEOUT_MS, which costs far fewer wake-ups at
 * high rates. Latency does not matter here: every packet carries its kernel
 * timestamp.
 *
 * All pcap calls live in this file (STYLE.md: kernel-facing code behind a
 * small interface).
 */
#ifndef STEERLAB_CAPTURE_H
#define STEERLAB_CAPTURE_H

#include <stdint.h>

#define CAPTURE_TIMEOUT_MS 10
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
	uint64_t packets;    /* written to the file by us */
	uint64_t received;   /* pcap_stats ps_recv */
	uint64_t dropped;    /* ps_drop: the ring was full */
	uint64_t if_dropped; /* ps_ifdrop: dropped by the interface */
};

/* capture_open: create, configure and activate the capture, compile and set
 * the filter, and open its dump file. Returns NULL (and logs why) on
 * failure. */
struct capture *capture_open(const struct capture_config *cfg);

/* capture_fd: the descriptor to watch for EPOLLIN. */
int capture_fd(const struct capture *c);
const char *capture_label(const struct capture *c);
const char *capture_iface(const struct capture *c);
/* capture_linktype: the DLT name, e.g. "EN10MB". */
const char *capture_linktype(const struct capture *c);

/* capture_read: write up to max packets waiting in the ring (max <= 0: all
 * of them) to the file. Returns the number written, or -1 on a capture
 * error. */
int capture_read(struct capture *c, int max);

/* capture_stats: the kernel's counters and our own. 0 or -1. */
int capture_stats(struct capture *c, struct capture_stats *st);

/* capture_close: flush and close the dump file and the capture. Returns 0,
 * or -1 if the file could not be written completely. c may be NULL. */
int capture_close(struct capture *c);

#endif
