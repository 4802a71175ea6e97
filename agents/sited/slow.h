/*
 * sited's slowness (the timeline's `slow`: the application answers late,
 * the host does not): a FIFO of replies held until their time.
 *
 * While srv->slow_ns is above 0 each reply, UDP or TCP, is built when its
 * request is read, as always, and held slow_ns before it is sent: UDP's
 * from the address its request was sent to (IPv4 or IPv6, the source
 * udp_reply_pktinfo gives), TCP's on its connection, in order. The delay
 * is one for all, so the FIFO is in the order of the replies' times; a
 * new delay applies to the requests read from then on (a shorter one
 * waits behind the replies already held). A connection that ends drops
 * its held replies (counted). The line holds at most
 * SITED_SLOW_MAX replies: beyond, a reply is dropped (counted), as an
 * application's full queue would.
 *
 * The FIFO is pure (sited_slow_push, _due, _pop: unit-tested with times
 * given); sited_slow_send sends a UDP one.
 */
#ifndef STEERLAB_SITED_SLOW_H
#define STEERLAB_SITED_SLOW_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#include "udpbatch.h"
#include "wire.h"

#define SITED_SLOW_MAX (1u << 20)

struct sited_tcp_conn;

struct sited_slow_item {
	int64_t due_ns; /* CLOCK_MONOTONIC */
	int fd;		/* UDP: the socket it came in on; -1: TCP */
	union {
		struct sockaddr sa;
		struct sockaddr_in sin;
		struct sockaddr_in6 sin6;
	} to;			     /* UDP: the requester, of the socket's family */
	union udp_pktinfo src;	     /* UDP: the reply's source, of to's (udp_reply_pktinfo) */
	struct sited_tcp_conn *conn; /* TCP: its connection */
	uint8_t msg[WIRE_LEN];
};

struct sited_slow {
	struct sited_slow_item *q;
	size_t cap, head, len; /* a ring: q[head .. head + len) mod cap */
	uint64_t held, dropped_full, dropped_closed;
};

/* sited_slow_push: item held; 0, or -1 when the line is full or out of
 * memory (counted dropped_full). */
int sited_slow_push(struct sited_slow *s, const struct sited_slow_item *item);

/* sited_slow_due: the first held reply's time, INT64_MAX when none */
int64_t sited_slow_due(const struct sited_slow *s);

/* sited_slow_pop: the first held reply into *item if it is due at now. 1,
 * or 0 when none is. */
int sited_slow_pop(struct sited_slow *s, int64_t now, struct sited_slow_item *item);

/* sited_slow_forget: the held replies of conn dropped (it ended), counted */
void sited_slow_forget(struct sited_slow *s, const struct sited_tcp_conn *conn);

/* sited_slow_send: a UDP item sent from its address. 0, or -1 (errno). */
int sited_slow_send(const struct sited_slow_item *item);

void sited_slow_free(struct sited_slow *s);

#endif
