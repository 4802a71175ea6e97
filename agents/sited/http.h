/*
 * sited over HTTP/1.1 (-H): the TCP port served by libmicrohttpd instead of
 * the lab's binary stream (tcp.h), for clients of proto = http
 * (docs/agents.md, "sited", "HTTP").
 *
 * A GET of a lab target (lib/httpwire.h, /steerlab/CLIENT/SEQ/SENT) is
 * answered 200 with the X-Steerlab header naming the site and echoing the
 * request's fields, its flags WIRE_F_DRAINING while the site is drained;
 * while it is degraded (srv->degraded, state.h) the answer is 503 Service
 * Unavailable, with the same header, and connections are still accepted:
 * the application broken, not the host. A GET of any other target is the
 * site's health page (200 "ok", 503 while degraded), for HTTP health checks;
 * another method is 405. Every answer names the server in a Server header
 * (RFC 9110), so the clients can say which server answered them. Connections are kept alive
 * (HTTP/1.1) and never timed out by the server: the client decides.
 *
 * libmicrohttpd runs in its "external epoll" mode: its epoll descriptor is
 * one handler of the loop (lib/loop.h) and a timerfd follows
 * MHD_get_timeout, so there is no thread. It listens on a socket sited
 * binds (sited_listen, serve.h), one a daemon: beside the IPv4 wildcard a
 * second daemon takes [::]'s, with the same callbacks and counts. What to
 * answer is sited_http_answer, pure and unit-tested without a socket.
 */
#ifndef STEERLAB_SITED_HTTP_H
#define STEERLAB_SITED_HTTP_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>

#include "httpwire.h"
#include "loop.h"
#include "serve.h"

#define SITED_HTTP_BACKLOG 1024

struct sited_http_counts {
	uint64_t accepted;    /* connections opened */
	uint64_t closed;      /* connections closed, by either side */
	uint64_t requests;    /* GETs of a lab target */
	uint64_t replies;     /* of them answered 200 */
	uint64_t unavailable; /* of them answered 503: degraded */
	uint64_t other;	      /* GETs of another target (the health page) */
	uint64_t bad;	      /* other methods: 405 */
};

struct MHD_Daemon;

/* a request held while the site is slow (suspended in libmicrohttpd) */
struct sited_http_req {
	int64_t due_ns; /* CLOCK_MONOTONIC; 0: not held */
	int held;	/* it was (answered once resumed) */
	struct MHD_Connection *conn;
	TAILQ_ENTRY(sited_http_req) entry;
};

/* one libmicrohttpd daemon: one listener's (it takes one socket) */
struct sited_http_mhd {
	struct MHD_Daemon *daemon; /* NULL: none */
	struct loop_handler h, timer;
};

struct sited_http {
	struct loop *loop;
	const struct sited_server *srv; /* the site's name, drain, degradation, slowness */
	/* ADDR's daemon, and [::]'s beside the IPv4 wildcard: the same
	 * callbacks, requests, held list and counts */
	struct sited_http_mhd mhd[SITED_LISTENERS];
	/* slow (srv->slow_ns): the requests held, in order, and their tick */
	TAILQ_HEAD(sited_http_held, sited_http_req) held;
	struct loop_handler slow;
	int ticking;
	struct sited_http_counts counts;
	char server[48];  /* "libmicrohttpd 0.9.75": who answered, for the summary */
	char product[48]; /* the same as a Server header's product: "libmicrohttpd/0.9.75" */
};

/* what sited_http_answer decided */
struct sited_http_reply {
	unsigned status;		     /* 200, 503, 405 */
	char header[HTTPWIRE_VALUE_MAX + 1]; /* X-Steerlab's value; "" for none */
	const char *body;		     /* static text */
};

/* sited_http_answer: the answer to method and url (the request target, no
 * query string) by srv (its site, draining, degraded): into *r, and counted
 * in *counts. */
void sited_http_answer(const struct sited_server *srv, const char *method, const char *url,
		       struct sited_http_reply *r, struct sited_http_counts *counts);

/* sited_http_open: serves HTTP on TCP addr, IPv4 or IPv6 (port 0: one the
 * kernel picks), and on [::] beside the IPv4 wildcard unless srv->no_ipv6
 * (sited_listen), in loop, in srv's name, with at most max_conns
 * connections a listener. 0, or -1 (logged). */
int sited_http_open(struct sited_http *h, struct loop *loop, const struct sited_server *srv,
		    union sited_addr addr, unsigned max_conns);

/* sited_http_port: the port h listens on (host order), 0 if unknown. */
uint16_t sited_http_port(const struct sited_http *h);

/* sited_http_close: stops the daemon (its connections closed); the counts
 * stay. Nothing if it was not opened. */
void sited_http_close(struct sited_http *h);

#endif
