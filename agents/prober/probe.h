/*
 * The prober's probe: one at a time to a service, of one of several kinds
 * behind the same calls (struct prober_check, picked by prober -C).
 *
 * udp (probe.c), the deep check: a request of lib/wire.h, passed when
 * sited answers it in the site's name, unflagged. The socket is connected
 * to the service, unlike the client's, precisely so that the ICMP port
 * unreachable a dead sited leaves behind comes back as ECONNREFUSED: the
 * fastest sign that the service is gone.
 *
 * tcp (probe_tcp.c), the shallow check: a non-blocking TCP connect to the
 * same ADDR:PORT, passed when the connection is established, and aborted
 * at once (SO_LINGER 0: an RST, no TIME_WAIT left by ten probes a second);
 * an RST to the SYN (ECONNREFUSED), an ICMP error, or no connection
 * before the timeout fails it. The kernel completes the handshake, not
 * the application: a site that accepts and never answers (a degraded
 * sited) passes, and a drain, which only flags replies, is not seen. Its
 * fd is an epoll descriptor watching the connection in flight, so that the
 * caller watches one descriptor for the probe's life whichever the kind.
 *
 * http (probe_http.c), the deep check over HTTP/1.1, for sites serving it
 * (sited -H): on a connection made as tcp's, a GET of a lab target
 * (lib/httpwire.h, client id 0), passed when the answer is a 200 whose
 * X-Steerlab header echoes the probe in the site's name, unflagged; a 503
 * (a degraded site) or another status fails it (unavailable), and the
 * connection is aborted once the response head is in.
 *
 * dns (probe_dns.c), a name server's: a query for the SOA of a zone (-Q)
 * on a socket connected to the server's port 53, passed when the answer
 * is its own (the probe's id, the zone asked), authoritative, NOERROR,
 * with the SOA: a [dns] node's own prober, which announces its anycast
 * address while it passes (docs/topology.md, "Anycast name servers").
 *
 * icmp (probe_icmp.c), the shallowest: an ICMP echo request to the site's
 * address on a raw socket (root), passed when its echo reply comes back:
 * the host and the path to it are up, whatever runs there. A killed sited
 * passes it; a frozen host or a cut link does not. Every raw ICMP socket
 * of the namespace sees every echo reply: a probe's own are told apart by
 * an id of its own, and the sequence number in the payload.
 */
#ifndef STEERLAB_PROBER_PROBE_H
#define STEERLAB_PROBER_PROBE_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#include "wire.h"

/* what an http check with a body to match reads of the body, as Route 53
 * does */
#define PROBER_HTTP_BODY_MAX 5120

/* the client id of probe requests: lab clients count from 1 */
#define PROBER_CLIENT_ID 0

enum prober_reply {
	PROBER_REPLY_OK,	  /* the answer to the probe in flight, from our site */
	PROBER_REPLY_WRONG_SITE,  /* the answer to the probe in flight, from another site */
	PROBER_REPLY_STALE,	  /* an answer to an earlier probe */
	PROBER_REPLY_BAD,	  /* not a reply to a probe */
	PROBER_REPLY_DRAINING,	  /* the answer to the probe in flight, from our site,
				     which is being drained (WIRE_F_DRAINING): a failure */
	PROBER_REPLY_UNAVAILABLE, /* http: a status other than 200 (a 503: degraded) */
};

struct prober_probe {
	int fd;	  /* what the caller watches for EPOLLIN: the socket, or tcp's epoll */
	int conn; /* tcp: the connection in flight, -1 if none */
	struct sockaddr_storage target; /* IPv4 or IPv6 */
	socklen_t target_len;
	char site[WIRE_SITE_LEN + 1];
	uint64_t seq; /* the probe in flight, or the last one sent */
	int in_flight;
	int64_t deadline; /* CLOCK_MONOTONIC: the probe in flight fails after */
	int64_t sent;	  /* CLOCK_MONOTONIC: when it was sent (its RTT) */
	/* http: the request written yet, and the response head read so far */
	int http_sent;
	uint8_t http_head[1024 + PROBER_HTTP_BODY_MAX];
	size_t http_len;
	/* http: a path of the caller's (NULL: the lab's target), the status
	 * that passes it and a string its body must hold (NULL: none) */
	const char *http_path;
	int http_status;
	const char *http_body;
	/* tcp, http: the connection's own timeout (0: the probe's timeout
	 * covers all); http's response then has the probe's timeout from the
	 * connection on, as Route 53 times its two steps */
	int64_t connect_timeout_ns;
	int64_t response_timeout_ns;
	uint16_t echo_id;     /* icmp: the echo's identifier */
	const char *dns_zone; /* dns: the zone whose SOA is asked (NULL: the root) */
};

/* prober_reply_check: classifies a datagram against the probe seq expected
 * from site. */
enum prober_reply prober_reply_check(const uint8_t *buf, size_t len, uint64_t seq,
				     const char *site);

/* The checks take a target of either family (a sockaddr_in or a
 * sockaddr_in6): the socket is of its family, ICMPv6 for icmp. */

/* prober_probe_init: p zeroed, for site at target, without descriptors.
 * 0, or -1 (logged: a site name longer than WIRE_SITE_LEN). */
int prober_probe_init(struct prober_probe *p, const struct sockaddr *target, const char *site);

/* prober_probe_open: a socket connected to target. 0, or -1 (logged). */
int prober_probe_open(struct prober_probe *p, const struct sockaddr *target, const char *site);

/* prober_probe_send: sends the next probe, in flight until timeout_ns from
 * now. 0, or -1 with errno set (e.g. ECONNREFUSED). */
int prober_probe_send(struct prober_probe *p, int64_t timeout_ns);

/* prober_probe_read: reads one datagram. Returns its classification, or -1
 * with errno set: EAGAIN when nothing is left, ECONNREFUSED when the
 * service port is closed, ... */
int prober_probe_read(struct prober_probe *p);

void prober_probe_close(struct prober_probe *p);

/* prober_tcp_open, _send, _read, _close: the same for the tcp check.
 * prober_tcp_send fails the connection still in flight, if any, and
 * starts the next; -1 with errno if connect fails at once. prober_tcp_read
 * returns PROBER_REPLY_OK once the connection is established, or -1 with
 * errno: EAGAIN while it is not, else why it failed (ECONNREFUSED,
 * EHOSTUNREACH, ...); either way the connection is closed. */
int prober_tcp_open(struct prober_probe *p, const struct sockaddr *target, const char *site);
int prober_tcp_send(struct prober_probe *p, int64_t timeout_ns);
int prober_tcp_read(struct prober_probe *p);
void prober_tcp_close(struct prober_probe *p);

/* one kind of check: its name, as -C and the events say it, and its calls */
struct prober_check {
	const char *name;
	int (*open)(struct prober_probe *p, const struct sockaddr *target, const char *site);
	int (*send)(struct prober_probe *p, int64_t timeout_ns);
	int (*read)(struct prober_probe *p);
	void (*close)(struct prober_probe *p);
};

/* prober_http_send, _read: the http check's (its open and close are tcp's).
 * prober_http_read returns -1 with EAGAIN until the response head is in,
 * then its classification (prober_http_check); -1 with errno if the
 * connection failed or closed first. */
int prober_http_send(struct prober_probe *p, int64_t timeout_ns);
int prober_http_read(struct prober_probe *p);

/* prober_http_check: classifies a response head (len bytes, its blank
 * line included) against the probe seq expected from site. */
enum prober_reply prober_http_check(const uint8_t *head, size_t len, uint64_t seq,
				    const char *site);

/* prober_http_match: a response to a GET of the caller's path (len bytes:
 * its head, then as much of its body as came): OK when its status is
 * status and, if body is not NULL, body is in the first
 * PROBER_HTTP_BODY_MAX bytes of its body; UNAVAILABLE when not, BAD when
 * it is no HTTP response. *more: 1 when the body may still hold it
 * (Content-Length says more is coming, under PROBER_HTTP_BODY_MAX). */
enum prober_reply prober_http_match(const uint8_t *resp, size_t len, int status, const char *body,
				    int *more);

/* prober_icmp_open, _send, _read, _close: the icmp check's. _read returns
 * PROBER_REPLY_OK for the echo reply to the probe in flight, _STALE for an
 * earlier one's, or -1 with errno (EAGAIN: nothing of ours left). */
int prober_icmp_open(struct prober_probe *p, const struct sockaddr *target, const char *site);
int prober_icmp_send(struct prober_probe *p, int64_t timeout_ns);
int prober_icmp_read(struct prober_probe *p);
void prober_icmp_close(struct prober_probe *p);

/* prober_icmp_echo: an echo request of id carrying seq into buf (its
 * checksum set; ICMPv6's, v6, with no checksum: the kernel sets it on a
 * raw ICMPv6 socket, RFC 3542); its length, or 0 if len is too small.
 * prober_icmp_check: classifies a received IPv4 packet (its header first)
 * against the echo reply of id and seq expected; prober_icmp6_check the
 * same of an ICMPv6 message (a raw ICMPv6 socket gives no IPv6 header).
 * prober_icmp_sum: the Internet checksum (RFC 1071) of len bytes. */
size_t prober_icmp_echo(uint8_t *buf, size_t len, uint16_t id, uint64_t seq, int v6);
enum prober_reply prober_icmp_check(const uint8_t *pkt, size_t len, uint16_t id, uint64_t seq);
enum prober_reply prober_icmp6_check(const uint8_t *msg, size_t len, uint16_t id, uint64_t seq);
uint16_t prober_icmp_sum(const uint8_t *buf, size_t len);

/* prober_dns_send, _read: the dns check's (its open and close are udp's).
 * prober_dns_check: classifies a datagram against the answer to probe seq
 * (its id, seq's low 16 bits) for zone's SOA: OK, STALE (another id),
 * UNAVAILABLE (not an authoritative NOERROR answer), BAD (no answer to a
 * question of the zone). */
int prober_dns_send(struct prober_probe *p, int64_t timeout_ns);
int prober_dns_read(struct prober_probe *p);
enum prober_reply prober_dns_check(const uint8_t *buf, size_t len, uint64_t seq, const char *zone);

extern const struct prober_check prober_check_udp, prober_check_tcp, prober_check_http,
    prober_check_icmp, prober_check_dns;

/* prober_check_find: the check named name ("udp", "tcp", "http", "icmp",
 * "dns"), or NULL. */
const struct prober_check *prober_check_find(const char *name);

#endif
