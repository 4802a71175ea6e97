/*
 * The service sockets of sited.
 *
 * A UDP socket bound to ADDR:PORT with IP_PKTINFO (IPV6_RECVPKTINFO for an
 * IPv6 ADDR). Requests are read in
 * batches and answered in batches (lib/udpbatch.h); each reply leaves
 * from the address its request was sent to, so a request to an anycast
 * address on lo is answered from that anycast address, whatever the
 * interface it came in on (udp_reply_source).
 *
 * The site's own prober asks 127.0.0.1:PORT. When ADDR is the IPv4 wildcard,
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
 *
 * Beside the IPv4 wildcard, every transport (UDP here, TCP in tcp.h, HTTP
 * in http.h) listens on [::]:PORT as well, IPV6_V6ONLY so that each family
 * has a socket of its own and IPv4 peers are never written as mapped IPv6
 * addresses: the lab's anycast service and each site's own address have an
 * IPv6 twin in a dual lab (lib/addrplan.h). Its requests go the IPv4
 * ones' way (sited_server_serve reads every socket; a reply leaves from the
 * address its request was sent to through IPV6_PKTINFO as IP_PKTINFO), and
 * drain, degradation, slowness and the counts are the server's, not a
 * socket's. A host without IPv6 (socket(AF_INET6) refused, [::] not
 * available) is said once in the log and served in IPv4 alone; an ADDR of
 * either family, given, is bound alone.
 */
#ifndef STEERLAB_SITED_SERVE_H
#define STEERLAB_SITED_SERVE_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "slow.h"
#include "wire.h"

struct sited_counts {
	uint64_t requests;	   /* well-formed requests received */
	uint64_t replies;	   /* replies the kernel accepted */
	uint64_t bad;		   /* datagrams that were not requests */
	uint64_t send_errors;	   /* replies the kernel refused */
	uint64_t degraded_dropped; /* requests left unanswered while degraded */
};

/* a transport's listeners: ADDR's, and [::]'s beside the IPv4 wildcard */
#define SITED_LISTENERS 2

/* an address to bind, of either family: a pointer to a struct sockaddr_in
 * or sockaddr_in6 passes as it is, as it does to bind(2) (a transparent
 * union, as glibc's __CONST_SOCKADDR_ARG; GCC and Clang) */
union sited_addr {
	const struct sockaddr *sa;
	const struct sockaddr_in *sin;
	const struct sockaddr_in6 *sin6;
	const struct sockaddr_storage *ss;
} __attribute__((transparent_union));

/* "[IPV6]:PORT" at most, and its NUL */
#define SITED_ADDRSTRLEN (INET6_ADDRSTRLEN + 8)

struct sited_server {
	int fd;	      /* ADDR's */
	int fd6;      /* [::]:PORT beside the IPv4 wildcard; -1 if none */
	int local_fd; /* 127.0.0.1:PORT, the local prober's; -1 if ADDR is not the IPv4 wildcard */
	int no_ipv6;  /* the host has no IPv6: [::] left out, logged once (TCP and HTTP too) */
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

/* sited_server_open: binds addr (IPv4 or IPv6) with pktinfo for site (at
 * most WIRE_SITE_LEN characters); if addr is the IPv4 wildcard, 127.0.0.1
 * and [::] (unless the host has no IPv6) on its port too. 0, or -1
 * (logged). */
int sited_server_open(struct sited_server *s, union sited_addr addr, const char *site);

/* sited_listen: the sockets of type (SOCK_DGRAM: with pktinfo, and rcvbuf
 * bytes of receive buffer if above 0; SOCK_STREAM: listening with backlog)
 * for addr into fds: fds[0] bound to addr, fds[1] to [::] on its port when
 * addr is the IPv4 wildcard, else -1. When the host has no IPv6, or
 * *no_ipv6 says so already, fds[1] is -1 and *no_ipv6 set, said in the
 * log the first time. 0, or -1 (logged; none open). */
int sited_listen(union sited_addr addr, int type, int rcvbuf, int backlog, int fds[SITED_LISTENERS],
		 int *no_ipv6);

/* sited_addr_str: "ADDR:PORT" or "[IPV6]:PORT" of addr in buf
 * (SITED_ADDRSTRLEN bytes); returns buf. */
const char *sited_addr_str(union sited_addr addr, char *buf, size_t len);

/* sited_addr_len: the length of addr, as bind(2) wants it. */
socklen_t sited_addr_len(union sited_addr addr);

/* sited_server_serve: reads and answers what is waiting on every socket,
 * without blocking, the local prober's probes before the requests; while s->degraded, reads
 * the requests and drops them (counted in degraded_dropped). 0, or -1 on a
 * socket error other than "nothing more to read". */
int sited_server_serve(struct sited_server *s);

void sited_server_close(struct sited_server *s);

#endif
