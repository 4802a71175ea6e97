/*
 * The client's traffic: paced requests out, replies in, timeouts.
 *
 * Sending runs off one timerfd armed at the absolute due time of the next
 * request (sched.h), or at high rates ticking every CLIENT_TICK_NS. Each
 * wake-up sends every request due by then, in batches of up to
 * CLIENT_BATCH per system call (lib/udpbatch.h), so a late wake-up catches
 * up instead of drifting; nothing is held back to fill a batch. The socket
 * is unconnected (sendto), so ICMP errors from a dead site never surface
 * as socket errors. Replies are read in batches with recvmmsg and matched
 * to the outstanding ring (ring.h) by sequence number: at high rates by
 * each tick, after its sends (the socket is not in the loop until the
 * sends are over: a wake-up costs more than a tick's requests), else as
 * they come. A second timerfd expires requests that have waited longer
 * than the timeout. Every request ends as one record.
 *
 * A population (pop.h) sends the same way, but each request is the due
 * logical client's: its id, its DNS answer's address (its A, or its AAAA;
 * a dual one's copy after the attempt delay to its A); the ring's slot
 * keeps the id, and a reply must echo it.
 *
 * With client_start_tcp the requests go over one TCP connection instead
 * (tcp.h): the same schedule, ring, timeouts and records; the connection is
 * in the loop all the time. With client_start_http they are HTTP/1.1
 * transfers through libcurl (http.h), libcurl's sockets in the loop.
 */
#ifndef STEERLAB_CLIENT_TRAFFIC_H
#define STEERLAB_CLIENT_TRAFFIC_H

#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#include "loop.h"
#include "record.h"
#include "ring.h"
#include "sched.h"

#define CLIENT_BATCH 64
/* above 1 / CLIENT_TICK_NS requests per second, the send timer ticks
 * periodically and each tick sends what is due (a request leaves at most
 * one tick after its due time); below, it is armed at each due time */
#define CLIENT_TICK_NS 100000

/* where the requests go: an IPv4 or an IPv6 address and port (sa_family
 * says which) */
union client_addr {
	struct sockaddr sa;
	struct sockaddr_in sin;
	struct sockaddr_in6 sin6;
};

/* client_addr_len: the sockaddr length of a's family */
static inline socklen_t client_addr_len(const union client_addr *a)
{
	return a->sa.sa_family == AF_INET6 ? sizeof(a->sin6) : sizeof(a->sin);
}

/* client_addr_str: "ADDR:PORT" or "[IPV6]:PORT" in buf (CLIENT_ADDR_STRLEN
 * bytes are enough); returns buf */
#define CLIENT_ADDR_STRLEN (INET6_ADDRSTRLEN + 8)
const char *client_addr_str(const union client_addr *a, char *buf, size_t len);
/* client_addr_text: its address alone (INET6_ADDRSTRLEN bytes are enough) */
const char *client_addr_text(const union client_addr *a, char *buf, size_t len);

struct client_cfg {
	uint32_t id;
	union client_addr target;
	/* Happy Eyeballs (RFC 8305; a UDP client or population of family
	 * dual): target is IPv6, and a request still unanswered
	 * attempt_delay_ns after it left is sent again, the same request, to
	 * fallback's IPv4 address (a DNS population's: its logical client's
	 * A, fallback giving the port); the first reply counts. fallback's
	 * family 0: none */
	union client_addr fallback;
	int64_t attempt_delay_ns;
	/* the records' family column (record.h): a client told its family */
	int family_column;
	double rate;		    /* requests per second */
	int64_t timeout_ns;	    /* a request unanswered this long is lost */
	int64_t duration_ns;	    /* 0: until client_drain() */
	int64_t connect_timeout_ns; /* TCP: a connection not made this long failed */
	int reconnect_now;	    /* TCP: every reconnection at once, no backoff (-b) */
	/* TCP (tcp.h): 0 unlimited; a connection closed after this many
	 * requests (-N), or this long idle (-I); at most this many requests
	 * outstanding on it, the rest waiting (-D) */
	uint64_t requests_per_conn;
	int64_t idle_timeout_ns;
	unsigned pipeline;
	/* the schedule's start (CLOCK_MONOTONIC), when it is not the moment
	 * the traffic is set up: a DNS population's, the lab's common start,
	 * however long its first answers took (requests due meanwhile go at
	 * once); 0: that moment */
	int64_t sched_start_ns;
};

struct client_stats {
	uint64_t sent;	      /* requests attempted: ok + lost + errors at the end */
	uint64_t ok;	      /* answered within the timeout */
	uint64_t lost;	      /* not answered within the timeout */
	uint64_t errors;      /* refused by the kernel (no route, ...) */
	uint64_t late;	      /* replies to requests already counted lost, or duplicates */
	uint64_t stray;	      /* datagrams that were not replies to this client */
	uint64_t wakeups;     /* send timer wake-ups, for the batching log line */
	uint64_t busy_rounds; /* ticks run at once after a tick that took a whole one */
	uint64_t unrecorded;  /* binary records that could not be written */
	uint64_t ok6, ok4;    /* of ok, answered over IPv6, over IPv4 */
	uint64_t fell_back;   /* requests sent again over IPv4 (Happy Eyeballs) */
};

struct udp_batch;
struct pop;
struct popdns;
struct client_tcp;
struct client_dns;
struct client_http;
struct poptcp;
struct event_log;

struct client {
	struct client_cfg cfg;
	struct loop *loop;
	int fd;
	struct loop_handler reply, send_timer, expire_timer;
	/* Happy Eyeballs: the timer of the next request's attempt delay, and
	 * the first sequence number it has not passed yet */
	struct loop_handler fallback_timer;
	int fallback_armed;
	uint64_t fallback_seq;
	int rx_family; /* the reply being taken's: AF_INET or AF_INET6 (0: the target's) */
	int periodic;
	int draining;
	int64_t send_end_ns; /* CLOCK_MONOTONIC when sending stopped */
	int failed;
	struct client_sched sched;
	struct client_ring ring;
	struct client_tally tally;
	struct client_stats stats;
	FILE *csv;
	struct udp_batch *io;
	struct client_recbin *bin;     /* binary records (record.h), or NULL */
	struct pop *pop;	       /* a population (pop.h), or NULL: one client */
	struct popdns *popdns;	       /* its DNS steering, or NULL: anycast */
	struct client_tcp *tcp;	       /* the TCP transport (tcp.h), or NULL: UDP */
	const struct client_dns *dns;  /* one client's DNS steering (dns.h), or NULL */
	const struct client_dns *dns4; /* family dual: its A lookup's, or NULL */
	struct client_http *http;      /* the HTTP transport (http.h), or NULL */
	struct poptcp *poptcp;	       /* a population's connections (poptcp.h), or NULL */
};

/* client_start: opens the socket and timers and schedules request 0 now.
 * csv receives the records (the caller writes the header and closes it;
 * NULL: none), and c->bin, if the caller sets it after, the binary ones.
 * The loop stops by itself once a run with a duration has drained. 0 or
 * -1 (logged; call client_close). */
int client_start(struct client *c, struct loop *loop, const struct client_cfg *cfg, FILE *csv);

/* client_start_pop: the same for a population: pop (started at the same
 * time as its schedule) says who sends when; cfg->target is the anycast
 * target, or with popdns the port of the DNS-steered one; tcp: each
 * logical client over its own connection (poptcp.h), all of them opened
 * before the schedule starts; http: HTTP/1.1 on them, Host host. */
int client_start_pop(struct client *c, struct loop *loop, const struct client_cfg *cfg, FILE *csv,
		     struct pop *pop, struct popdns *popdns, int tcp, int http, const char *host);

/* client_start_tcp: the same for one client over TCP (tcp.h), its
 * connection's events to ev; dns: its DNS steering, whose answer's
 * addresses a try-next client walks (NULL: anycast); dns4: a dual-stack
 * client's A lookup, whose addresses its IPv4 attempts walk beside (NULL:
 * none). */
int client_start_tcp(struct client *c, struct loop *loop, const struct client_cfg *cfg, FILE *csv,
		     struct event_log *ev, const struct client_dns *dns,
		     const struct client_dns *dns4);

/* client_start_http: the same for one client over HTTP (http.h), its URLs
 * naming host (NULL: the target's address), its events to ev. */
int client_start_http(struct client *c, struct loop *loop, const struct client_cfg *cfg, FILE *csv,
		      const char *host, struct event_log *ev);

/* client_sending_ns: how long the sends took: up to when the next request
 * fell due, or sending stopped */
int64_t client_sending_ns(const struct client *c);

/* client_drain: stop sending; the loop stops once every outstanding
 * request is answered or timed out. */
void client_drain(struct client *c);

/* client_finish: counts requests still outstanding as lost. */
void client_finish(struct client *c);

void client_close(struct client *c);

/* For a transport (tcp.c). client_record: request s's record, once its
 * fate is known (site NULL unless ok). */
void client_record(struct client *c, const struct client_slot *s, enum client_status st,
		   const char *site, int64_t rtt_ns);

/* client_take_reply: a decoded message that arrived at arrived_ns
 * (CLOCK_REALTIME): the request it answers recorded, or counted stray or
 * late as a UDP one. */
void client_take_reply(struct client *c, const struct wire_msg *m, int64_t arrived_ns);

/* client_maybe_done: stops the loop if draining and nothing is
 * outstanding. */
void client_maybe_done(struct client *c);

#endif
