/*
 * The client's HTTP transport (-H): the same paced requests as HTTP/1.1 GETs
 * through libcurl's multi interface (docs/agents.md, client, "HTTP").
 *
 * Each request is a transfer of lib/httpwire.h's target; libcurl keeps the
 * connections alive and reuses an idle one, and opens another (up to
 * CLIENT_HTTP_HOST_CONNS to an address, as a browser's six) when a request
 * falls due while every open one is busy (HTTP/1.1 has no pipelining left
 * in libcurl). Connections go to the address the client has now, pinned
 * with CURLOPT_CONNECT_TO so that libcurl resolves nothing of its own and
 * the capture and the client agree: the anycast target, or the DNS answer
 * the client's own resolution (dns.h) holds; a new answer is used by the
 * next transfer, the connections to the old address are left to finish.
 * The connect timeout and the transfer timeout are the client's timeout.
 *
 * Requests enter the outstanding ring (ring.h) as UDP ones do. A 200 whose
 * X-Steerlab header decodes is a reply, matched by its sequence number
 * (client_take_reply). A transfer that times out is lost, as the ring's
 * expiry says (a transfer still running when the ring expires its request
 * is aborted, its connection closed); any other end is an error recorded at
 * once with its cause (client_http_cause_of), and an http_failed event. A
 * 503 (a degraded site) is an answer but not a reply: an error, cause
 * "unavailable". A transfer that made a new connection writes an
 * http_connected event once it ends.
 *
 * libcurl's sockets and timer are handlers of the client's loop
 * (lib/loop.h, CURLMOPT_SOCKETFUNCTION and CURLMOPT_TIMERFUNCTION): there
 * is no thread. The causes are a pure function, unit-tested
 * (tests/unit/test_client_http.c).
 */
#ifndef STEERLAB_CLIENT_HTTP_H
#define STEERLAB_CLIENT_HTTP_H

#include <jansson.h>
#include <stdint.h>

/* connections to one address at most, as a browser's per-host limit;
 * further transfers wait in libcurl for one to be free */
#define CLIENT_HTTP_HOST_CONNS 6

/* why a transfer did not end in a reply */
enum client_http_cause {
	CLIENT_HTTP_REFUSED,	 /* the connect was refused: an RST to the SYN */
	CLIENT_HTTP_RESET,	 /* an RST on the connection (ECONNRESET, EPIPE) */
	CLIENT_HTTP_EOF,	 /* the connection closed before a whole response */
	CLIENT_HTTP_TIMEOUT,	 /* no response within the timeout (recorded lost) */
	CLIENT_HTTP_UNREACHABLE, /* an ICMP error: no route, host unreachable */
	CLIENT_HTTP_UNAVAILABLE, /* 503: the site is degraded */
	CLIENT_HTTP_STATUS,	 /* another status than 200 or 503 */
	CLIENT_HTTP_BAD,	 /* a 200 without an X-Steerlab header of this request */
	CLIENT_HTTP_OTHER,	 /* any other libcurl error */
	CLIENT_HTTP_NCAUSES,
};

/* client_http_cause_of: the cause of a transfer's end: curlcode (a
 * CURLcode), os_errno (CURLINFO_OS_ERRNO) and status (the response code, 0
 * if none); CLIENT_HTTP_NCAUSES for a 200 (not an error). */
enum client_http_cause client_http_cause_of(int curlcode, long os_errno, long status);

/* client_http_cause_name: "refused", "reset", "eof", "timeout",
 * "unreachable", "unavailable", "status", "bad", "other": the http_failed
 * event's cause */
const char *client_http_cause_name(enum client_http_cause cause);

struct client;
struct client_http;
struct event_log;

/* client_http_open: the transport of c (c->cfg.target, c->cfg.timeout_ns),
 * its URLs naming host (the service name in DNS mode, else NULL: the
 * target's address); events to ev. The transport, or NULL (logged). */
struct client_http *client_http_open(struct client *c, const char *host, struct event_log *ev);

/* client_http_resolve: from now on libcurl resolves the URL's host itself
 * (through the system's resolver: client.c gives the client a resolv.conf
 * of its own), keeping each answer cache_s seconds in its DNS cache,
 * whatever the TTL (CURLOPT_DNS_CACHE_TIMEOUT; libcurl's default is 60),
 * instead of connecting to the address the client pins; it connects over
 * the target's family, or with a fallback (family dual) over both, racing
 * them itself (CURLOPT_HAPPY_EYEBALLS_TIMEOUT_MS, the attempt delay). Each
 * change of the address it connects to is an http_address event. */
void client_http_resolve(struct client_http *t, long cache_s);

/* client_http_send: the next n requests (seq c->ring.head on), each a
 * transfer started now. 0, or -1 if the ring or libcurl cannot take them
 * (logged). */
int client_http_send(struct client_http *t, unsigned n);

/* client_http_expired: the transfers whose request the ring no longer
 * holds (expired: recorded lost) are aborted. */
void client_http_expired(struct client_http *t);

/* client_http_json: the counts for client_summary: {library, server (the
 * Server header of the first reply, null if none), transfers (ended or
 * aborted), connects (connections established), reused (transfers on a
 * kept-alive connection),
 * and one count per cause: refused, resets, eofs,
 * timeouts, unreachable, unavailable, status, bad, other}, or NULL if out
 * of memory */
json_t *client_http_json(const struct client_http *t);

/* client_http_log: the same in one log line */
void client_http_log(const struct client_http *t);

/* client_http_library: "libcurl/7.88.1": the library and its version */
const char *client_http_library(void);

/* client_http_close: aborts the transfers still running and frees t (NULL:
 * nothing). */
void client_http_close(struct client_http *t);

#endif
