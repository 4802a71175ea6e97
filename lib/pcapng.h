/*
 * pcapng: a small writer of the pcapng format (draft-ietf-opsawg-pcapng,
 * "PCAP Next Generation (pcapng) Capture File Format"), for `steerlab
 * merge` (docs/clocks.md, "One capture per run"): one section (a Section
 * Header Block naming the application), one Interface Description Block per
 * capture merged (its if_name, link type, snaplen and if_tsresol), then
 * Enhanced Packet Blocks, each with any number of opt_comment options,
 * which Wireshark and tshark show as the packet's comments (frame.comment).
 *
 * Everything is written in the host's byte order, as the format allows (a
 * reader tells it from the SHB's byte-order magic); the section length is
 * left unspecified (-1), so the file is written in one pass as a stream.
 * libpcap reads the result (pcap_open_offline), which the unit tests use.
 * Errors: -1 with errno set (a write error, or EINVAL for a value the
 * format cannot carry); the caller names the file.
 */
#ifndef STEERLAB_PCAPNG_H
#define STEERLAB_PCAPNG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct pcapng_writer {
	FILE *fp; /* not owned */
	uint32_t nifs;
};

/* pcapng_begin: the Section Header Block, shb_userappl appl (may be NULL),
 * into fp. 0, or -1 with errno. */
int pcapng_begin(struct pcapng_writer *w, FILE *fp, const char *appl);

/* pcapng_interface: an Interface Description Block: if_name name, link
 * type linktype (a LINKTYPE_/DLT_ value), snaplen, time stamps in units of
 * 10^-tsresol s (6: microseconds, 9: nanoseconds). Its interface id (0, 1,
 * ... in the order of the calls), or -1 with errno. */
int pcapng_interface(struct pcapng_writer *w, const char *name, int linktype, uint32_t snaplen,
		     int tsresol);

/* pcapng_packet: an Enhanced Packet Block of interface ifid: the time
 * stamp ts in the interface's units, caplen bytes of data captured of a
 * packet of origlen bytes, and ncomments comments (each an opt_comment,
 * UTF-8, in order; comments may be NULL when ncomments is 0). 0, or -1 with
 * errno. */
int pcapng_packet(struct pcapng_writer *w, uint32_t ifid, uint64_t ts, const uint8_t *data,
		  uint32_t caplen, uint32_t origlen, const char *const *comments, int ncomments);

#endif
