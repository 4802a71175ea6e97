/*
 * capring: the kernel ring a collector's capture reads, a contract between
 * the lab, which sizes each ring by what its link carries
 * (lab/topology/topology_capture.c), and the collector, which opens it
 * (probes/collector/capture.c).
 *
 * A capture that is not in immediate mode gets libpcap's TPACKET_V3 ring:
 * blocks of CAPRING_BLOCK bytes, each handed to the collector when it is
 * full or CAPRING_TIMEOUT_MS after its first packet, whichever is first.
 * A collector kept from the CPU loses nothing until every block is handed
 * over and unread. On a busy link that is the ring's bytes at the link's
 * rate; on a quiet link each block goes out by the timeout holding a few
 * packets, so the ring holds only its number of blocks times the timeout,
 * whatever its size in bytes (4 blocks of 10 ms held 40 ms, and a loaded
 * gate's collector dropped 6 packets of a 800 packets/s link).
 */
#ifndef STEERLAB_CAPRING_H
#define STEERLAB_CAPRING_H

/* how long a block is filled before it is handed over: what a quiet link's
 * packets wait for the collector, and what the collector's live counts
 * (capture_progress) lag the link by */
#define CAPRING_TIMEOUT_MS 50
/* libpcap's TPACKET_V3 block: its frame of MAXIMUM_SNAPLEN (262144 bytes)
 * rounded up to pages */
#define CAPRING_BLOCK (256u << 10)
/* the fewest blocks of a ring: 4 (1 MiB), which hold a quiet link for
 * 4 x 50 ms = 200 ms of a stalled collector; a site link's, whose requests
 * the failover clocks count, 8 (2 MiB, libpcap's own default): 400 ms. A lab
 * of 40 [resolver] nodes has 43 captures, allocated by one collector: 1 MiB
 * each keeps it ready within its settle on a loaded machine */
#define CAPRING_MIN_BLOCKS 4
#define CAPRING_SITE_MIN_BLOCKS 8

#endif
