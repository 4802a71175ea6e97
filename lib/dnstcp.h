/*
 * DNS over TCP (RFC 1035 4.2.2, RFC 7766): the one place the 2-byte length
 * prefix is read and written.
 *
 * A struct dnstcp_server owns the connections of one or more listening
 * sockets (dnstcp_listen), with one cap over all of them: it accepts them,
 * reads every whole message (several may come in one segment,
 * pipelined, or one message across many reads) and hands each to the
 * caller's callback, which answers with dnstcp_send() at once or later
 * (resolverd answers when the upstream does: dnstcp_find() turns a saved
 * struct dnstcp_ref back into the connection, or NULL if it has gone).
 * Answers are queued and written as the socket takes them (partial writes),
 * with the loop watching EPOLLOUT only while some are pending.
 *
 * Two policies, both from the agents that use the module:
 *  - out_max 0: answers go in order and a connection is not read while an
 *    answer waits to be written, so a slow reader slows only itself
 *    (authd); out_max > 0: reading goes on and a connection with more than
 *    out_max bytes of unsent answers is closed (resolverd, whose answers
 *    may come out of order).
 *  - beyond max_conns connections a new one is closed at once
 *    (DNSTCP_CAP_REFUSE, authd) or the least recently active one is closed
 *    to make room (DNSTCP_CAP_EVICT, resolverd).
 * A connection without activity (a message read, an answer queued or
 * written) for idle_ns is closed by dnstcp_idle(); one whose peer closed is
 * closed once its queued answers are written; a zero-length message closes
 * it. A message cut by the peer's close is dropped.
 *
 * The connections are caller-owned handlers of the caller's loop
 * (lib/loop.h); a closed one is freed once the event being handled is done,
 * so the callback may close its own connection.
 */
#ifndef STEERLAB_DNSTCP_H
#define STEERLAB_DNSTCP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/socket.h>

#include "loop.h"

#define DNSTCP_MSG_MAX 65535

struct dnstcp_server;
struct dnstcp_conn;

/* dnstcp_msg_cb: one whole message of c (len > 0 bytes, valid during the
 * call); arg is the one given to dnstcp_listen() for c's listener. */
typedef void (*dnstcp_msg_cb)(void *arg, struct dnstcp_conn *c, const uint8_t *msg, size_t len);

enum dnstcp_cap { DNSTCP_CAP_REFUSE, DNSTCP_CAP_EVICT };

struct dnstcp_conf {
	unsigned max_conns;
	enum dnstcp_cap cap;
	int64_t idle_ns;
	size_t out_max;		/* 0: no reading while an answer waits */
	int nfd;		/* > 0: dnstcp_find() for fds below nfd */
	int64_t (*clock)(void); /* CLOCK_MONOTONIC ns; NULL: now_mono_ns */
	dnstcp_msg_cb message;
};

struct dnstcp_counts {
	uint64_t accepted, rejected, evicted, idle_closed, slow_closed, messages, answers;
};

/* a listening socket's handler, the caller's */
struct dnstcp_listener {
	struct loop_handler h;
	struct dnstcp_server *srv;
	int fd; /* the caller's to close */
	void *arg;
};

struct dnstcp_conn {
	struct loop_handler h;
	struct dnstcp_server *srv;
	struct dnstcp_listener *listener;
	int fd;
	uint64_t serial;
	struct sockaddr_storage peer;
	int64_t active;
	uint8_t *in;
	size_t in_len, in_cap;
	uint8_t *out;
	size_t out_len, out_off, out_cap;
	int eof;
	TAILQ_ENTRY(dnstcp_conn) entry; /* oldest activity first */
};

struct dnstcp_server {
	struct loop *loop;
	struct dnstcp_conf conf;
	unsigned nconns;
	uint64_t serial;
	TAILQ_HEAD(dnstcp_conns, dnstcp_conn) conns;
	struct dnstcp_conn **by_fd;
	struct dnstcp_counts counts;
};

/* dnstcp_ref: a connection named by value, for an answer given later. */
struct dnstcp_ref {
	int fd;
	uint64_t serial;
};

/* dnstcp_open: no connections yet, on loop with conf. 0, or -1 (out of
 * memory). */
int dnstcp_open(struct dnstcp_server *s, struct loop *loop, const struct dnstcp_conf *conf);
/* dnstcp_listen: accepts connections on the listening socket fd with l;
 * their messages go to the callback with arg. 0, or -1 (loop_add). */
int dnstcp_listen(struct dnstcp_server *s, struct dnstcp_listener *l, int fd, void *arg);
/* dnstcp_unlisten: l out of the loop (its fd is not closed). */
void dnstcp_unlisten(struct dnstcp_listener *l);
/* dnstcp_close_all: every connection closed. */
void dnstcp_close_all(struct dnstcp_server *s);

/* dnstcp_send: queues msg (len <= DNSTCP_MSG_MAX) with its length and
 * writes what the socket takes. 0, or -1 if c is closed (by this call: a
 * write error, or more than out_max pending). */
int dnstcp_send(struct dnstcp_conn *c, const uint8_t *msg, size_t len);
/* dnstcp_conn_close: closes c (freed after the event being handled). */
void dnstcp_conn_close(struct dnstcp_conn *c);
static inline int dnstcp_conn_closed(const struct dnstcp_conn *c)
{
	return c->fd == -1;
}

struct dnstcp_ref dnstcp_ref(const struct dnstcp_conn *c);
/* dnstcp_find: the connection ref names, or NULL if it has closed. */
struct dnstcp_conn *dnstcp_find(struct dnstcp_server *s, struct dnstcp_ref ref);

/* dnstcp_idle: closes the connections inactive since before now - idle_ns. */
void dnstcp_idle(struct dnstcp_server *s);

/* The length prefix for a client (resolverd's upstream queries). */
static inline void dnstcp_put_len(uint8_t *p, size_t len)
{
	p[0] = (uint8_t)(len >> 8);
	p[1] = (uint8_t)len;
}
/* dnstcp_framed: with have bytes read into p, the bytes of the whole
 * framed message (2 + its length), or 2 while the prefix is incomplete. */
static inline size_t dnstcp_framed(const uint8_t *p, size_t have)
{
	return have < 2 ? 2 : 2 + ((size_t)p[0] << 8 | p[1]);
}

#endif
