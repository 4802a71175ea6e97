/*
 * The client's TCP transport (-T): the same paced requests over one
 * long-lived connection to the target (docs/agents.md, client, "TCP").
 *
 * The stream is lib/wire.h's messages back to back, WIRE_LEN bytes each
 * way; the site answers each request with one reply, in order. Requests
 * enter the outstanding ring (ring.h) as UDP ones do and a reply is matched
 * by its sequence number (client_take_reply); a request that falls due
 * while there is no connection is recorded as an error at once, never
 * queued. When the connection breaks (a reset, the peer's close, a refused
 * or timed-out connect, a reply that does not decode), every request
 * outstanding on it is recorded as an error at that moment, and the client
 * reconnects: at once the first time, then after client_tcp_backoff_ns.
 * There is one connection at a time, so the requests outstanding are
 * exactly the ring's. A connection not made within the connect timeout
 * (cfg.connect_timeout_ns, else the request timeout) failed.
 *
 * A DNS client that tries the next address (dns.h, CLIENT_PICK_NEXT)
 * connects to its answer's addresses in turn, as getaddrinfo's callers
 * do: each new connection starts at the first, and an attempt that fails
 * (refused, unreachable, the connect timeout) goes on to the next at once;
 * only when every address failed does it back off. An IPv6 client walks
 * its AAAA answer; a dual-stack one both, each step a Happy Eyeballs race
 * of the AAAA answer's address and the A answer's at that place (RFC
 * 8305's interleaving, a pair at a time). The first connection's walk is
 * waited for before the first request.
 *
 * The stream's decoding, the backoff and the causes are pure functions,
 * unit-tested without a socket (tests/unit/test_client_tcp.c).
 */
#ifndef STEERLAB_CLIENT_TCP_H
#define STEERLAB_CLIENT_TCP_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "loop.h"
#include "wire.h"

/* why a connection ended, or an attempt failed */
enum client_tcp_cause {
	CLIENT_TCP_REFUSED,	/* ECONNREFUSED: an RST to the SYN, nothing listens */
	CLIENT_TCP_RESET,	/* ECONNRESET, ECONNABORTED: an RST on the connection */
	CLIENT_TCP_EOF,		/* the peer closed it (a killed site's kernel) */
	CLIENT_TCP_TIMEOUT,	/* not connected within the request timeout; ETIMEDOUT */
	CLIENT_TCP_PIPE,	/* EPIPE: a write after the connection was shut */
	CLIENT_TCP_UNREACHABLE, /* EHOSTUNREACH, ENETUNREACH, ... (an ICMP error) */
	CLIENT_TCP_BAD,		/* a reply that does not decode: the stream is lost */
	CLIENT_TCP_OTHER,	/* any other errno */
	CLIENT_TCP_STALLED,	/* a request on it went unanswered for the timeout */
	CLIENT_TCP_NCAUSES,
};

/* client_tcp_cause_of: the cause an errno (of connect, send, recv or
 * SO_ERROR) stands for */
enum client_tcp_cause client_tcp_cause_of(int err);

/* client_tcp_cause_name: "refused", "reset", "eof", "timeout", "pipe",
 * "unreachable", "bad", "other", "stalled": the tcp_failed event's cause */
const char *client_tcp_cause_name(enum client_tcp_cause cause);

/* the first retry waits nothing, the next CLIENT_TCP_BACKOFF_NS, doubling
 * up to CLIENT_TCP_BACKOFF_MAX_NS */
#define CLIENT_TCP_BACKOFF_NS (100 * 1000000LL)
#define CLIENT_TCP_BACKOFF_MAX_NS (1000 * 1000000LL)

/* client_tcp_backoff_ns: the wait before the next attempt after failures
 * (>= 1) failed connections in a row, counted since the last connection
 * that carried a reply: 0, 100 ms, 200 ms, 400 ms, 800 ms, then 1 s */
int64_t client_tcp_backoff_ns(unsigned failures);

/* client_tcp_retry_ns: the wait before the next attempt under the client's
 * policy: backoff's (client_tcp_backoff_ns), or immediate's (-b): at once
 * the first time, then every CLIENT_TCP_BACKOFF_NS, never longer (no
 * doubling; not at once, or a refusing site would get a SYN a loop turn) */
int64_t client_tcp_retry_ns(unsigned failures, int immediate);

/* The bytes read and not yet decoded: at most one partial message once
 * client_tcp_rx_take has run. */
#define CLIENT_TCP_RX_LEN (WIRE_LEN * 256)
struct client_tcp_rx {
	uint8_t buf[CLIENT_TCP_RX_LEN];
	size_t len;
};

typedef void (*client_tcp_msg_fn)(const struct wire_msg *m, void *arg);

/* client_tcp_rx_take: each complete message of rx, in order, to fn; the
 * partial one left is moved to the start. The number of messages, or -1 at
 * the first that is not a reply of lib/wire.h (rx is emptied: the stream
 * cannot be resynchronised). */
int client_tcp_rx_take(struct client_tcp_rx *rx, client_tcp_msg_fn fn, void *arg);

struct client;
struct client_tcp;
struct event_log;

/* client_tcp_open: the transport of c (c->cfg.target, c->cfg.timeout_ns),
 * its first connection tried at once, waiting for it up to the timeout
 * (as DNS mode resolves its first address before the first request);
 * whether it succeeds or not, the client goes on, and events go to ev. The
 * transport, or NULL (logged). */
struct client_tcp *client_tcp_open(struct client *c, struct event_log *ev);

/* client_tcp_send: the next n requests (seq c->ring.head on), on the
 * connection or, without one, recorded as errors. 0, or -1 if the ring
 * cannot grow (logged). */
int client_tcp_send(struct client_tcp *t, unsigned n);

/* client_tcp_read: the replies waiting on the connection, if any. */
void client_tcp_read(struct client_tcp *t);

struct client_slot;

/* client_tcp_expired: s is about to be recorded lost (the expiry pass):
 * noted if it was written on the connection, for client_tcp_stalled */
void client_tcp_expired(struct client_tcp *t, const struct client_slot *s);

/* client_tcp_stalled: after the expiry pass: if a request written on the
 * connection went unanswered for the timeout (client_tcp_expired; one that
 * waited to be written does not count), the connection is given up, as an HTTP
 * client gives up one whose request timed out, its other outstanding
 * requests recorded as errors (cause "stalled"), and a new one opened to
 * the target as it is now (a DNS client's latest answer). Nothing when not
 * connected. */
void client_tcp_stalled(struct client_tcp *t);

/* The counts of a TCP transport, one client's or a population's
 * (poptcp.h): client_summary's tcp object and the log line. */
struct client_tcp_counts {
	uint64_t connects, unconnected, blocked;
	uint64_t failed[CLIENT_TCP_NCAUSES];
	/* one client's only (0 for a population): connections closed after
	 * requests_per_conn (-N) and for idleness (-I), requests that waited
	 * to be written (the pipeline, -D, or such a connection's successor) */
	uint64_t rotated, idled, waited;
};
json_t *client_tcp_counts_json(const struct client_tcp_counts *n);
void client_tcp_counts_log(const struct client_tcp_counts *n);

/* client_tcp_json: the counts for client_summary: {connects, refused,
 * resets, eofs, timeouts, pipes, unreachable, bad, other, unconnected,
 * blocked}, or NULL if out of memory */
json_t *client_tcp_json(const struct client_tcp *t);

/* client_tcp_log: the same counts in one log line */
void client_tcp_log(const struct client_tcp *t);

/* client_tcp_close: closes the connection and frees t (NULL: nothing). */
void client_tcp_close(struct client_tcp *t);

#endif
