/*
 * The delay line's logic, without the kernel: what happens to each packet
 * (dropped, or released at a time) and the packets held, by release time.
 *
 * A packet arriving at t is lost with the link's loss draw; else it is
 * released at t + delay + a jitter draw (lib/impair, as netem draws them).
 * Order is kept per flow (the 5-tuple's hash, DLINE_FLOWS buckets): a packet
 * is never released before the last one of its flow, so jitter delays a
 * flow's packets without reordering them; a bucket shared by two flows only
 * ties them closer. Only `reorder` sends a packet ahead: at once.
 *
 * The held packets are a binary min-heap on (release time, arrival order),
 * so equal times leave in arrival order: O(log n) per packet, which at
 * 100,000 packets/s and 10 ms is a heap of 1,000.
 */
#ifndef STEERLAB_LINKD_DLINE_H
#define STEERLAB_LINKD_DLINE_H

#include <net/if.h>
#include <stddef.h>
#include <stdint.h>

#include "impair.h"

#define DLINE_FLOWS 4096

struct dline_pkt {
	int64_t release_ns; /* CLOCK_MONOTONIC */
	uint64_t seq;	    /* arrival order */
	uint32_t id;	    /* the kernel's packet id in its queue */
	uint16_t link;	    /* index of its dline_link */
};

struct dline_heap {
	struct dline_pkt *v;
	size_t n, cap;
	uint64_t seq;
};

/* dline_heap_push: hold a packet until release_ns. 0, or -1 (out of
 * memory: the caller releases it at once). */
int dline_heap_push(struct dline_heap *h, int64_t release_ns, uint32_t id, uint16_t link);
/* dline_heap_peek: the packet due first, or NULL if none is held */
const struct dline_pkt *dline_heap_peek(const struct dline_heap *h);
/* dline_heap_pop: takes the packet due first into *out; 0, or -1 if none */
int dline_heap_pop(struct dline_heap *h, struct dline_pkt *out);
void dline_heap_free(struct dline_heap *h);

struct dline_counts {
	uint64_t queued;   /* packets the kernel gave us */
	uint64_t released; /* accepted back (reordered and flushed included) */
	uint64_t dropped;  /* dropped by a loss draw */
	uint64_t reordered;
	uint64_t flushed;   /* released early, at exit */
	uint64_t unstamped; /* without the kernel's time stamp: timed from their reading */
};

/* one impaired interface: its queue, impairment and draws */
struct dline_link {
	char ifname[IFNAMSIZ];
	uint16_t queue;
	struct impair im;
	struct impair_sampler s;
	int64_t flow_last[DLINE_FLOWS]; /* release time of each flow's last packet */
	struct dline_counts counts;
};

/* dline_link_init: l for ifname with im, its draws seeded with seed */
void dline_link_init(struct dline_link *l, const char *ifname, uint16_t queue,
		     const struct impair *im, uint64_t seed);

/* dline_link_set: l's impairment changed to im, its draws seeded again
 * with seed; its flows keep their order (a packet is still not released
 * before its flow's last), its counts go on. */
void dline_link_set(struct dline_link *l, const struct impair *im, uint64_t seed);

enum dline_verdict { DLINE_RELEASE, DLINE_DROP };

/* dline_decide: the fate of a packet of flow (dline_flow_hash) arriving at
 * arrival_ns: DLINE_DROP, or DLINE_RELEASE at *release_ns. Counts it. */
enum dline_verdict dline_decide(struct dline_link *l, int64_t arrival_ns, uint32_t flow,
				int64_t *release_ns);

/* dline_flow_hash: the bucket of an IPv4 or IPv6 packet's addresses,
 * protocol and (TCP, UDP, SCTP) ports; len bytes of it are at pkt */
uint32_t dline_flow_hash(const uint8_t *pkt, size_t len);

#endif
