/*
 * The prober's probe socket: one request at a time to the local service.
 *
 * The socket is connected to the service, unlike the client's, precisely so
 * that the ICMP port unreachable a dead sited leaves behind comes back as
 * ECONNREFUSED: the fastest sign that the service is gone.
 */
#ifndef STEERLAB_PROBER_PROBE_H
#define STEERLAB_PROBER_PROBE_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#include "wire.h"

/* the client id of probe requests: lab clients count from 1 */
#define PROBER_CLIENT_ID 0

enum prober_reply {
	PROBER_REPLY_OK,	 /* the answer to the probe in flight, from our site */
	PROBER_REPLY_WRONG_SITE, /* the answer to the probe in flight, from another site */
	PROBER_REPLY_STALE,	 /* an answer to an earlier probe */
	PROBER_REPLY_BAD,	 /* not a reply to a probe */
	PROBER_REPLY_DRAINING,	 /* the answer to the probe in flight, from our site,
				    which is being drained (WIRE_F_DRAINING): a failure */
};

struct prober_probe {
	int fd;
	char site[WIRE_SITE_LEN + 1];
	uint64_t seq; /* the probe in flight, or the last one sent */
	int in_flight;
	int64_t deadline; /* CLOCK_MONOTONIC: the probe in flight fails after */
	int64_t sent;	  /* CLOCK_MONOTONIC: when it was sent (its RTT) */
};

/* prober_reply_check: classifies a datagram against the probe seq expected
 * from site. */
enum prober_reply prober_reply_check(const uint8_t *buf, size_t len, uint64_t seq,
				     const char *site);

/* prober_probe_open: a socket connected to target. 0, or -1 (logged). */
int prober_probe_open(struct prober_probe *p, const struct sockaddr_in *target, const char *site);

/* prober_probe_send: sends the next probe, in flight until timeout_ns from
 * now. 0, or -1 with errno set (e.g. ECONNREFUSED). */
int prober_probe_send(struct prober_probe *p, int64_t timeout_ns);

/* prober_probe_read: reads one datagram. Returns its classification, or -1
 * with errno set: EAGAIN when nothing is left, ECONNREFUSED when the
 * service port is closed, ... */
int prober_probe_read(struct prober_probe *p);

void prober_probe_close(struct prober_probe *p);

#endif
