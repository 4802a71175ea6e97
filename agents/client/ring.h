/*
 * The client's outstanding-request table: a ring indexed by sequence number.
 *
 * Requests are added in sequence order (seq == head), so slot seq & mask
 * holds request seq while tail <= seq < head. A request leaves the table
 * when its reply arrives (any order) or when it times out; timeouts happen
 * in sequence order because send times rise with seq, so the oldest
 * pending request is always at the tail. tail skips resolved slots, so
 * head - tail is the window of sequence numbers still in play; when it
 * reaches the capacity the ring doubles (a late wake-up that sends a burst
 * must not overwrite requests still waiting).
 */
#ifndef STEERLAB_CLIENT_RING_H
#define STEERLAB_CLIENT_RING_H

#include <stddef.h>
#include <stdint.h>

enum client_slot_state {
	CLIENT_SLOT_FREE = 0,
	CLIENT_SLOT_PENDING,
	CLIENT_SLOT_DONE,
};

struct client_slot {
	uint64_t seq;
	int64_t sent_real_ns; /* CLOCK_REALTIME, as put on the wire */
	int64_t sent_mono_ns; /* CLOCK_MONOTONIC, for rtt and timeout */
	uint32_t client;      /* its client id (a population's differ) */
	uint8_t state;	      /* enum client_slot_state */
	uint8_t gen;	      /* a population over TCP: its connection's (poptcp.h) */
	uint8_t fell_back;    /* Happy Eyeballs: sent again over IPv4 (traffic.h) */
	uint8_t family;	      /* AF_INET or AF_INET6: its reply's (0: none yet) */
};

struct client_ring {
	struct client_slot *slots;
	uint64_t mask;	  /* capacity - 1, capacity a power of two */
	uint64_t tail;	  /* oldest seq still pending, or head if none */
	uint64_t head;	  /* the next seq to add */
	uint64_t pending; /* slots in state PENDING */
};

/* client_ring_init: capacity for at least min_capacity requests (rounded
 * up to a power of two). 0, or -1 if out of memory. */
int client_ring_init(struct client_ring *r, size_t min_capacity);
void client_ring_free(struct client_ring *r);

/* client_ring_capacity: the current number of slots. */
uint64_t client_ring_capacity(const struct client_ring *r);

/* client_ring_push: adds request r->head (the caller's next seq) as pending,
 * doubling the ring if it is full. The slot, or NULL if out of memory. */
struct client_slot *client_ring_push(struct client_ring *r, int64_t sent_real_ns,
				     int64_t sent_mono_ns);

/* client_ring_find: the pending slot of seq, or NULL if seq was never sent,
 * is already resolved (answered, timed out) or is out of the window. */
struct client_slot *client_ring_find(struct client_ring *r, uint64_t seq);

/* client_ring_resolve: marks a pending slot done and advances the tail. */
void client_ring_resolve(struct client_ring *r, struct client_slot *s);

/* client_ring_oldest: the oldest pending slot, or NULL if none. */
struct client_slot *client_ring_oldest(struct client_ring *r);

#endif
