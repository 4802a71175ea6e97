/*
 * Batched UDP: the one place the agents call recvmmsg(2) and sendmmsg(2).
 *
 * A struct udp_batch holds cap datagrams each way: received ones (rx) with
 * their sender and their IP_PKTINFO / IPV6_PKTINFO, and queued ones (tx)
 * with their destination and source. A server reads with udp_recv(),
 * answers datagram i by writing into udp_tx_buf() and queueing it with
 * udp_tx_reply(), then sends the queue with udp_send(); a client queues
 * with udp_tx_to().
 *
 * The rule for a reply's source address is one function,
 * udp_reply_pktinfo(), which udp_reply_cmsg() puts into a reply's control
 * data (and a program that holds a reply keeps for later, as sited's
 * slowness does), in the manner of Knot's cmsg_handle(): the reply
 * leaves from the address the query was sent to, so that a query to an
 * anycast or secondary address, or to a wildcard (INADDR_ANY) listener, is
 * answered from that address; for a broadcast, multicast or unspecified
 * destination the kernel's choice (ipi_spec_dst) is used; an IPv6
 * multicast destination gets no source at all (the kernel picks one).
 * Without pktinfo on the socket (udp_pktinfo_on) replies carry no source.
 *
 * udp_send() retries sendmmsg until every queued datagram has been taken
 * or refused: sendmmsg stops at the first datagram the kernel refuses, that
 * one is reported to the caller's callback (errno still set) and skipped.
 */
#ifndef STEERLAB_UDPBATCH_H
#define STEERLAB_UDPBATCH_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>

/* room for a pktinfo and a receive time stamp (udp_timestamp_on) */
union udp_cmsg {
	char buf[CMSG_SPACE(sizeof(struct in6_pktinfo)) + CMSG_SPACE(sizeof(struct timespec))];
	struct cmsghdr align;
};

struct udp_batch {
	unsigned cap; /* datagrams each way */
	size_t rxlen; /* bytes per received datagram; longer ones are truncated */
	size_t txlen; /* bytes per queued datagram */
	unsigned ntx; /* queued */
	struct mmsghdr *rx, *tx;
	struct iovec *rx_iov, *tx_iov;
	struct sockaddr_storage *rx_from, *tx_to;
	union udp_cmsg *rx_cmsg, *tx_cmsg;
	uint8_t *rx_buf, *tx_buf;
};

/* udp_batch_new: a batch of cap datagrams each way. NULL if out of memory. */
struct udp_batch *udp_batch_new(unsigned cap, size_t rxlen, size_t txlen);
void udp_batch_free(struct udp_batch *b);

/* udp_pktinfo_on: ask fd (of family AF_INET or AF_INET6) for each
 * datagram's destination address, for udp_tx_reply(). 0 or -1. */
int udp_pktinfo_on(int fd, int family);

/* udp_timestamp_on: ask fd for each datagram's arrival time (SO_TIMESTAMPNS,
 * CLOCK_REALTIME, stamped by the kernel as the datagram is received, not
 * when the program reads it), for udp_rx_time_ns(). 0 or -1. */
int udp_timestamp_on(int fd);

/* udp_recv: up to b->cap datagrams waiting on fd, without blocking. Their
 * number; 0 if none was waiting (EAGAIN, EINTR), -1 on another error. */
int udp_recv(int fd, struct udp_batch *b);

static inline uint8_t *udp_rx_data(const struct udp_batch *b, unsigned i)
{
	return b->rx_buf + (size_t)i * b->rxlen;
}
static inline size_t udp_rx_len(const struct udp_batch *b, unsigned i)
{
	return b->rx[i].msg_len;
}
/* udp_rx_truncated: longer than b->rxlen, cut. */
static inline int udp_rx_truncated(const struct udp_batch *b, unsigned i)
{
	return (b->rx[i].msg_hdr.msg_flags & MSG_TRUNC) != 0;
}
static inline const struct sockaddr *udp_rx_from(const struct udp_batch *b, unsigned i)
{
	return (const struct sockaddr *)&b->rx_from[i];
}
static inline socklen_t udp_rx_fromlen(const struct udp_batch *b, unsigned i)
{
	return b->rx[i].msg_hdr.msg_namelen;
}
/* udp_rx_pktinfo: the IPv4 destination of datagram i, or NULL. */
const struct in_pktinfo *udp_rx_pktinfo(const struct udp_batch *b, unsigned i);

/* udp_rx_time_ns: the kernel's arrival time of datagram i (CLOCK_REALTIME
 * ns), or -1 when it came without one (udp_timestamp_on not asked). */
int64_t udp_rx_time_ns(const struct udp_batch *b, unsigned i);

/* udp_tx_buf: where the next queued datagram is written (b->txlen bytes),
 * or NULL when the queue is full. */
static inline uint8_t *udp_tx_buf(const struct udp_batch *b)
{
	return b->ntx < b->cap ? b->tx_buf + (size_t)b->ntx * b->txlen : NULL;
}

/* udp_tx_reply: queues the len bytes written at udp_tx_buf() as the reply
 * to received datagram i, from the address i was sent to. */
void udp_tx_reply(struct udp_batch *b, unsigned i, size_t len);
/* udp_tx_to: queues the len bytes written at udp_tx_buf() to `to`. */
void udp_tx_to(struct udp_batch *b, const struct sockaddr *to, socklen_t tolen, size_t len);
/* udp_tx_to_from: the same from the IPv4 source `from` (IP_PKTINFO), an
 * address local to the sender's namespace. */
void udp_tx_to_from(struct udp_batch *b, const struct sockaddr_in *to, struct in_addr from,
		    size_t len);

/* a datagram's source, as the pktinfo of its family sets it */
union udp_pktinfo {
	struct in_pktinfo v4;  /* ipi_spec_dst */
	struct in6_pktinfo v6; /* ipi6_addr, and ipi6_ifindex for a link-local one */
};

/* udp_reply_cmsg: the reply source rule (see above): fills tx's control
 * data from rx's pktinfo, in buf; none if rx has no pktinfo. */
void udp_reply_cmsg(const struct msghdr *rx, struct msghdr *tx, union udp_cmsg *buf);
/* udp_reply_pktinfo: the same rule for a reply sent later (one held): the
 * source of a reply to rx into *out. Its family (AF_INET, AF_INET6), or 0
 * when the reply carries none (rx has no pktinfo, or an IPv6 multicast
 * one). */
int udp_reply_pktinfo(const struct msghdr *rx, union udp_pktinfo *out);
/* udp_pktinfo_cmsg: tx's control data, in buf: the source pi of family
 * (udp_reply_pktinfo's); none for family 0. */
void udp_pktinfo_cmsg(struct msghdr *tx, union udp_cmsg *buf, int family,
		      const union udp_pktinfo *pi);
/* udp_reply_source: the IPv4 part of the rule: the source for a reply to
 * a datagram that arrived with pi. */
struct in_addr udp_reply_source(const struct in_pktinfo *pi);

/* udp_refused_cb: queued datagram index (of the queue udp_send sends) was
 * refused by the kernel; errno says why. */
typedef void (*udp_refused_cb)(void *arg, unsigned index);

/* udp_send: sends b's queue on fd and empties it. Returns the number of
 * datagrams the kernel took; refused(arg, index) for each other one (may
 * be NULL). */
unsigned udp_send(int fd, struct udp_batch *b, udp_refused_cb refused, void *arg);

#endif
