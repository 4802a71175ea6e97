/*
 * The lab's request and reply as HTTP/1.1 (proto = http: docs/agents.md,
 * "HTTP"), written so that one captured segment says what lib/wire.h's
 * message says, and decoded into the same struct wire_msg, so the
 * collector and the clocks read HTTP traffic as they read the binary one.
 *
 * A request is a GET whose target carries the client id, the sequence
 * number and the send time (ns of CLOCK_REALTIME), in decimal:
 *
 *   GET /steerlab/3/17/1796204504123456789 HTTP/1.1\r\n
 *
 * at the start of the TCP payload (Host and what the client library adds
 * follow). A reply is a status line and, among its headers (which a server
 * writes in its first segment), HTTPWIRE_HEADER with the site, the
 * request's fields echoed and the flags (lib/wire.h's WIRE_F_DRAINING):
 *
 *   HTTP/1.1 200 OK\r\n
 *   X-Steerlab: site=a client=3 seq=17 sent=1796204504123456789 flags=0\r\n
 *
 * Only a 200 carrying the header is a reply: a 503 (a degraded site,
 * docs/topology.md "degrade") is an answer but not a reply, as a UDP
 * request left unanswered is not one. Decimal fields are digits only, no
 * sign, no leading zeros but "0", bounded by their type; every length is
 * checked against the bytes given. Pure: no I/O, a fuzz target
 * (tests/fuzz/fuzz_httpwire.c).
 */
#ifndef STEERLAB_HTTPWIRE_H
#define STEERLAB_HTTPWIRE_H

#include <stddef.h>
#include <stdint.h>

#include "wire.h"

#define HTTPWIRE_PREFIX "/steerlab/"
#define HTTPWIRE_METHOD "GET "
#define HTTPWIRE_HEADER "X-Steerlab"
/* the longest target: the prefix, three numbers and two slashes */
#define HTTPWIRE_PATH_MAX (sizeof(HTTPWIRE_PREFIX) - 1 + 10 + 1 + 20 + 1 + 20)
/* the longest header value: site, client, seq, sent and flags */
#define HTTPWIRE_VALUE_MAX (5 + WIRE_SITE_LEN + 8 + 10 + 5 + 20 + 6 + 20 + 7 + 5)
#define HTTPWIRE_OK 200
#define HTTPWIRE_UNAVAILABLE 503

/* httpwire_path: the request target of m (client_id, seq, sent_ns) into
 * buf (len bytes, NUL-terminated): its length, or -1 if it does not fit. */
int httpwire_path(const struct wire_msg *m, char *buf, size_t len);

/* httpwire_path_decode: target (len bytes, no NUL needed) as
 * httpwire_path writes it into *m, a WIRE_REQUEST without a site: 0, or -1
 * if it is not one (a query string or anything after the time included). */
int httpwire_path_decode(const char *target, size_t len, struct wire_msg *m);

/* httpwire_request_decode: the start of a TCP payload (have bytes of it)
 * as a request line whose target is one of httpwire_path's, into *m: 0, or
 * -1 if it is not one or was cut before the target's end (the space after
 * it). Cheap enough for every captured segment. */
int httpwire_request_decode(const uint8_t *p, size_t have, struct wire_msg *m);

/* httpwire_value: HTTPWIRE_HEADER's value for reply m (site, client_id,
 * seq, sent_ns, flags) into buf (len bytes, NUL-terminated): its length,
 * or -1 if it does not fit or the site is empty or too long. */
int httpwire_value(const struct wire_msg *m, char *buf, size_t len);

/* httpwire_value_decode: a header value (len bytes, no NUL needed; spaces
 * and tabs around it ignored) as httpwire_value writes it, its fields in
 * any order, each once, into *m, a WIRE_REPLY: 0, or -1. */
int httpwire_value_decode(const char *v, size_t len, struct wire_msg *m);

/* httpwire_status: the status code of the status line at the start of p
 * ("HTTP/1.x NNN"), or -1 if it does not start with one. */
int httpwire_status(const uint8_t *p, size_t have);

/* httpwire_response_len: the length of the whole response at the start of
 * p (have bytes): its head, to the blank line, and the Content-Length
 * bytes of body it announces (none: no body); 0 while it is not all
 * there, -1 if it is no HTTP response or its Content-Length is not a
 * number of at most HTTPWIRE_BODY_MAX. */
#define HTTPWIRE_BODY_MAX (1 << 20)
long httpwire_response_len(const uint8_t *p, size_t have);

/* httpwire_reply_decode: the start of a TCP payload (have bytes) as a
 * response head: a 200 with HTTPWIRE_HEADER among the headers captured
 * (before the blank line, or the end of what was captured), into *m: 0;
 * else -1 (another status, no such header in what was captured, a header
 * that does not decode). */
int httpwire_reply_decode(const uint8_t *p, size_t have, struct wire_msg *m);

#endif
