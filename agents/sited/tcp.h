/*
 * sited over TCP: the UDP service (serve.h) as a stream, on the same
 * ADDR:PORT (and [::]:PORT beside the IPv4 wildcard, its connections the
 * same and counted with the others).
 *
 * A client writes requests of WIRE_LEN bytes back to back on a connection;
 * each whole request is answered with one reply of WIRE_LEN bytes
 * (sited_reply_build, the UDP path's: same site, same WIRE_F_DRAINING), in
 * order, on that connection. A request split across reads is kept until it
 * is whole; the replies to what one read brought are written with one
 * send. A message that is not a request closes its connection, after the
 * replies to the requests before it. While the site is degraded
 * (srv->degraded) whole requests are read and dropped unanswered, and the
 * listener goes on accepting. What the kernel does not take is kept
 * and written on EPOLLOUT while reading goes on, up to SITED_TCP_OUT_MAX
 * bytes a connection; beyond, the connection is closed (a client that
 * sends and never reads costs a bounded buffer).
 *
 * Beyond max_conns connections a new one is accepted and closed at once,
 * so a flood of connections cannot take every descriptor; should the
 * descriptors run out all the same, a spare one is closed to accept and
 * close the connection waiting, else the listener would wake the loop
 * forever. Every connection is a caller-owned handler of the loop
 * (lib/loop.h), freed once the event being handled is done.
 *
 * Counts: accepted = closed + reset + aborted + open at any time.
 */
#ifndef STEERLAB_SITED_TCP_H
#define STEERLAB_SITED_TCP_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>

#include "loop.h"
#include "serve.h"
#include "wire.h"

#define SITED_TCP_CONNS 16384	     /* connections at most, by default */
#define SITED_TCP_BACKLOG 1024	     /* listen(2)'s, before net.core.somaxconn */
#define SITED_TCP_OUT_MAX (64 << 10) /* unsent reply bytes a connection may hold */
#define SITED_TCP_RX (64 * WIRE_LEN) /* bytes one read asks for */

struct sited_tcp_counts {
	uint64_t accepted; /* connections served */
	uint64_t refused;  /* accepted beyond max_conns (or without a descriptor), closed at once */
	uint64_t closed;   /* closed by the peer (end of stream) */
	uint64_t reset;	   /* reset by the peer (ECONNRESET, EPIPE) */
	uint64_t aborted;  /* closed by sited: a bad message, SITED_TCP_OUT_MAX, another error */
	uint64_t open;	   /* connections open now */
	uint64_t requests; /* whole requests read */
	uint64_t replies;  /* whole replies the kernel took */
	uint64_t bad;	   /* messages that were not requests */
	uint64_t degraded_dropped; /* whole requests read and left unanswered: degraded */
};

struct sited_tcp_conn {
	struct loop_handler h;
	struct sited_tcp *tcp;
	int fd;
	uint8_t in[WIRE_LEN]; /* the start of a request not yet whole */
	size_t in_len;
	uint8_t *out; /* replies the kernel has not taken; NULL when none */
	size_t out_len, out_off, out_cap;
	size_t out_part; /* bytes of a reply already taken, 0 to WIRE_LEN - 1 */
	int eof;	 /* the peer closed: write what is left, then close */
	TAILQ_ENTRY(sited_tcp_conn) entry;
};

struct sited_tcp {
	struct loop *loop;
	const struct sited_server *srv; /* the site's name, drain and degradation */
	int fd;				/* the listener on ADDR */
	int fd6;			/* on [::] beside the IPv4 wildcard (serve.h); -1 if none */
	int spare;			/* a descriptor kept for when they run out */
	unsigned max_conns;
	struct loop_handler h, h6; /* fd's, fd6's */
	TAILQ_HEAD(sited_tcp_conns, sited_tcp_conn) conns;
	struct sited_tcp_counts counts;
	uint8_t rx[WIRE_LEN + SITED_TCP_RX]; /* one read, after a kept start */
	uint8_t tx[WIRE_LEN + SITED_TCP_RX]; /* the replies to one read */
};

/* sited_tcp_open: listens on TCP addr, IPv4 or IPv6 (port 0: one the
 * kernel picks), and on [::] beside the IPv4 wildcard unless srv->no_ipv6
 * (sited_listen), in loop, answering in srv's name as srv->draining and
 * srv->degraded say, with at most max_conns connections of both. 0, or -1
 * (logged). */
int sited_tcp_open(struct sited_tcp *t, struct loop *loop, const struct sited_server *srv,
		   union sited_addr addr, unsigned max_conns);

/* sited_tcp_deliver: a reply held by slowness (slow.h) written on c, kept
 * if the kernel does not take it all; nothing if c has ended. */
void sited_tcp_deliver(struct sited_tcp_conn *c, const uint8_t *msg);

/* sited_tcp_port: the port t listens on (host order), 0 if unknown. */
uint16_t sited_tcp_port(const struct sited_tcp *t);

/* sited_tcp_close: closes every connection and the listeners; the counts
 * stay. */
void sited_tcp_close(struct sited_tcp *t);

#endif
