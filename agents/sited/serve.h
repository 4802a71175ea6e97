/*
 * The service socket of sited.
 *
 * One UDP socket bound to ADDR:PORT with IP_PKTINFO. Requests are read in
 * batches and answered in batches (lib/udpbatch.h); each reply leaves
 * from the address its request was sent to, so a request to an anycast
 * address on lo is answered from that anycast address, whatever the
 * interface it came in on (udp_reply_source).
 *
 * The site's own prober asks 127.0.0.1:PORT. When ADDR is the wildcard,
 * a second socket bound to 127.0.0.1:PORT takes those probes (the kernel
 * gives a datagram to the socket of the most specific address; both set
 * SO_REUSEADDR to share the port), and it is served first at every
 * wake-up, ahead of at most 1,024 requests: a probe is not queued behind
 * 100,000 requests a second of a client, which on a busy machine are a
 * backlog of hundreds of ms in the first socket, and
 * the prober does not declare a site dead that only has a queue (docs/
 * agents.md, "sited"). A site that is killed, crashed or frozen answers
 * neither socket, a drained one flags the replies of both and a degraded
 * one answers neither, so the probers judge it as before. Probes from afar (remote probers, to the
 * site's own address) share the first socket with the requests.
 */
#ifndef STEERLAB_SITED_SERVE_H
#define STEERLAB_SITED_SERVE_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#include "slow.h"
#include "wire.h"

struct sited_counts {
	uint64_t requests;	   /* well-formed requests received */
	uint64_t replies;	   /* replies the kernel accepted */
	uint64_t bad;		   /* datagrams that were not requests */
	uint64_t send_errors;	   /* replies the kernel refused */
	uint64_t degraded_dropped; /* requests left unanswered while degraded */
};

struct sited_server {
	int fd;
	int local_fd; /* 127.0.0.1:PORT, the local prober's; -1 if ADDR is not the wildcard */
	char site[WIRE_SITE_LEN + 1];
	struct sited_counts counts;
	struct udp_batch *batch;
	int draining; /* SIGUSR1 to SIGUSR2: replies carry WIRE_F_DRAINING */
	int degraded; /* SITED_SIG_DEGRADE to _RESTORE: requests go unanswered (sited_signals.h) */
	int64_t slow_ns;	 /* SITED_SIG_SLOW: each reply held this long (slow.h) */
	struct sited_slow *slow; /* the held replies, UDP's and TCP's: &slow_line */
	struct sited_slow slow_line;
};

/* sited_reply_build: req/len is a received datagram. If it is a request,
 * writes the reply naming site to out (outlen >= WIRE_LEN) and returns
 * WIRE_LEN, with flags (WIRE_F_DRAINING or 0); returns -1 for anything else (short, bad magic, a
 * reply, ...). */
int sited_reply_build(const uint8_t *req, size_t len, const char *site, uint16_t flags,
		      uint8_t *out, size_t outlen);

/* sited_server_open: binds addr with IP_PKTINFO for site (at most
 * WIRE_SITE_LEN characters), and 127.0.0.1 on its port if addr is the
 * wildcard. 0, or -1 (logged). */
int sited_server_open(struct sited_server *s, const struct sockaddr_in *addr, const char *site);

/* sited_server_serve: reads and answers what is waiting, without blocking,
 * the local prober's probes before the requests; while s->degraded, reads
 * the requests and drops them (counted in degraded_dropped). 0, or -1 on a
 * socket error other than "nothing more to read". */
int sited_server_serve(struct sited_server *s);

void sited_server_close(struct sited_server *s);

#endif
