/*
 * The kernel's packet queues (NFQUEUE) through libmnl and libnetfilter_queue's
 * message helpers: one netlink socket bound to the queues of every impaired
 * interface, packets read in batches and verdicts sent in batches (one
 * sendto for all the packets a timer releases).
 *
 * Each queue copies the first NFQUEUE_COPY bytes of a packet (enough for its
 * flow's addresses and ports), holds up to maxlen packets and is not
 * fail-open: a packet the queue cannot hold is dropped by the kernel and
 * counted there (queue_dropped), as is one the socket could not take
 * (user_dropped); nfqueue_stats() reads both, so an overflow is reported,
 * never silent. GSO packets are queued whole.
 */
#ifndef STEERLAB_LINKD_NFQUEUE_H
#define STEERLAB_LINKD_NFQUEUE_H

#include <stddef.h>
#include <stdint.h>

#define NFQUEUE_COPY 128

/* the verdicts (linux/netfilter.h's NF_DROP and NF_ACCEPT, which that
 * header's clash with netinet/in.h keeps out of the callers) */
enum nfqueue_verdict { NFQUEUE_DROP = 0, NFQUEUE_ACCEPT = 1 };

struct mnl_socket;
struct mnl_nlmsg_batch;

struct nfqueue {
	struct mnl_socket *nl;
	unsigned portid;
	char *rbuf;
	size_t rlen;
	char *vbuf;
	struct mnl_nlmsg_batch *vb;
	uint64_t enobufs; /* reads that lost messages */
	uint64_t errors;  /* error messages from the kernel (e.g. a verdict refused) */
};

/* nfqueue_open: the socket, its receive buffer rcvbuf bytes. 0, or -1 logged. */
int nfqueue_open(struct nfqueue *q, int rcvbuf);
/* nfqueue_bind: queue num, holding up to maxlen packets. 0, or -1 logged. */
int nfqueue_bind(struct nfqueue *q, uint16_t num, uint32_t maxlen);
/* nfqueue_nonblock: reads from now on never wait. 0, or -1 logged. */
int nfqueue_nonblock(struct nfqueue *q);
int nfqueue_fd(const struct nfqueue *q);

/* nfqueue_pkt_fn: a packet of queue num with the kernel's id, queued at
 * queued_ns (NFQA_TIMESTAMP: CLOCK_REALTIME to the microsecond, which the
 * kernel gives only for a packet that has a time stamp already, i.e. rarely
 * on egress; else 0); len bytes (at most NFQUEUE_COPY) of it at pkt */
typedef void (*nfqueue_pkt_fn)(void *arg, uint16_t num, uint32_t id, int64_t queued_ns,
			       const uint8_t *pkt, size_t len);
/* nfqueue_read: the packets waiting, at most max reads of the socket, each
 * given to fn. The number of packets, or -1 (logged) on a socket error. */
int nfqueue_read(struct nfqueue *q, int max, nfqueue_pkt_fn fn, void *arg);
/* nfqueue_verdict: NFQUEUE_ACCEPT or NFQUEUE_DROP for packet id of queue num, added
 * to the batch (sent when full). 0, or -1 logged. */
int nfqueue_verdict(struct nfqueue *q, uint16_t num, uint32_t id, enum nfqueue_verdict verdict);
/* nfqueue_flush: sends the verdicts batched. 0, or -1 logged. */
int nfqueue_flush(struct nfqueue *q);
void nfqueue_close(struct nfqueue *q);

/* nfqueue_stats: the kernel's drops on queue num in this network namespace
 * (/proc/net/netfilter/nfnetlink_queue): full queue, and messages the
 * socket could not take. 0, or -1 if the queue is not listed. */
int nfqueue_stats(uint16_t num, uint64_t *queue_dropped, uint64_t *user_dropped);

#endif
