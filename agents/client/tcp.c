/* The client's requests over one long-lived TCP connection; see tcp.h. */
#include "tcp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dns.h"
#include "event.h"
#include "events.h"
#include "log.h"
#include "timeutil.h"
#include "traffic.h"

/* requests written and not yet taken by the kernel (a site that reads
 * nothing: its window and our send buffer full) are kept up to this many
 * bytes; beyond, a request is recorded as an error (blocked) */
#define CLIENT_TCP_TX_MAX (4 << 20)
/* a request written this long after it fell due waited (counted waited):
 * for the pipeline, or for a connection replacing one closed on purpose */
#define CLIENT_TCP_WAITED_NS (1 * 1000000LL)

enum client_tcp_state {
	CLIENT_TCP_WAITING,    /* for the next attempt, at due_ns */
	CLIENT_TCP_CONNECTING, /* until due_ns at most */
	CLIENT_TCP_CONNECTED,  /* idle from due_ns, if it has an idle timeout */
	CLIENT_TCP_IDLE,       /* closed for idleness: the next request opens one */
};

struct client_tcp {
	struct client *c;
	struct event_log *ev;
	int fd;
	enum client_tcp_state state;
	struct loop_handler conn, timer;
	uint32_t watched;	/* conn's events */
	int64_t due_ns;		/* CLOCK_MONOTONIC: the connect's deadline, or the next attempt */
	unsigned attempts;	/* connections tried, from 1 */
	unsigned failures;	/* failed in a row since one carried a reply */
	int replied;		/* the connection carried a reply */
	uint16_t port;		/* its local port */
	union client_addr addr; /* the connection's (or the attempt's) peer */
	unsigned tried;		/* try-next: the answer's address it is at */
	struct client_tcp_rx rx;
	uint8_t *tx; /* bytes to write: tx[txoff .. txlen) */
	size_t txoff, txlen, txcap;
	size_t txpart; /* of the request at txoff, the bytes already written */
	/* the requests of the ring from next_seq on wait to be written (the
	 * pipeline full, or a planned connection not up yet); written and
	 * answered count those of this connection */
	uint64_t next_seq;
	uint64_t written, answered;
	int retiring; /* written its requests_per_conn: closed once answered */
	int planned;  /* the attempt under way replaces a connection closed on
		       * purpose: requests falling due meanwhile wait for it */
	int stall;    /* a request written on it timed out */
	uint64_t connects, unconnected, blocked;
	uint64_t failed[CLIENT_TCP_NCAUSES];
	uint64_t rotated, idled, waited;
	/* Happy Eyeballs (RFC 8305, family dual): the IPv4 attempt racing the
	 * IPv6 one (fd the IPv6 attempt's until one connects), started when
	 * race_ns passes or the IPv6 attempt fails; -1, 0: none */
	int fd4;
	struct loop_handler conn4;
	int64_t race_ns;
	union client_addr addr4; /* its peer: the fallback, or a try-next's step */
};

static const struct {
	const char *name;  /* tcp_failed's cause */
	const char *count; /* client_summary's tcp count */
} client_tcp_causes[CLIENT_TCP_NCAUSES] = {
    [CLIENT_TCP_REFUSED] = {"refused", "refused"},
    [CLIENT_TCP_RESET] = {"reset", "resets"},
    [CLIENT_TCP_EOF] = {"eof", "eofs"},
    [CLIENT_TCP_TIMEOUT] = {"timeout", "timeouts"},
    [CLIENT_TCP_PIPE] = {"pipe", "pipes"},
    [CLIENT_TCP_UNREACHABLE] = {"unreachable", "unreachable"},
    [CLIENT_TCP_BAD] = {"bad", "bad"},
    [CLIENT_TCP_OTHER] = {"other", "other"},
    [CLIENT_TCP_STALLED] = {"stalled", "stalls"},
};

enum client_tcp_cause client_tcp_cause_of(int err)
{
	switch (err) {
	case ECONNREFUSED:
		return CLIENT_TCP_REFUSED;
	case ECONNRESET:
	case ECONNABORTED:
		return CLIENT_TCP_RESET;
	case ETIMEDOUT:
		return CLIENT_TCP_TIMEOUT;
	case EPIPE:
		return CLIENT_TCP_PIPE;
	case EHOSTUNREACH:
	case ENETUNREACH:
	case EHOSTDOWN:
	case ENETDOWN:
		return CLIENT_TCP_UNREACHABLE;
	default:
		return CLIENT_TCP_OTHER;
	}
}

const char *client_tcp_cause_name(enum client_tcp_cause cause)
{
	if ((unsigned)cause >= CLIENT_TCP_NCAUSES)
		return "other";
	return client_tcp_causes[cause].name;
}

int64_t client_tcp_retry_ns(unsigned failures, int immediate)
{
	if (immediate)
		return failures <= 1 ? 0 : CLIENT_TCP_BACKOFF_NS;
	return client_tcp_backoff_ns(failures);
}

int64_t client_tcp_backoff_ns(unsigned failures)
{
	int64_t wait = CLIENT_TCP_BACKOFF_NS;

	if (failures <= 1)
		return 0;
	for (unsigned i = 2; i < failures && wait < CLIENT_TCP_BACKOFF_MAX_NS; i++)
		wait *= 2;
	return wait < CLIENT_TCP_BACKOFF_MAX_NS ? wait : CLIENT_TCP_BACKOFF_MAX_NS;
}

int client_tcp_rx_take(struct client_tcp_rx *rx, client_tcp_msg_fn fn, void *arg)
{
	size_t off = 0;
	int n = 0;

	for (; rx->len - off >= WIRE_LEN; off += WIRE_LEN, n++) {
		struct wire_msg m;

		if (wire_decode(rx->buf + off, WIRE_LEN, &m) == -1 || m.type != WIRE_REPLY) {
			rx->len = 0;
			return -1;
		}
		fn(&m, arg);
	}
	memmove(rx->buf, rx->buf + off, rx->len - off);
	rx->len -= off;
	return n;
}

static void client_tcp_on_conn(struct loop *loop, int fd, uint32_t events, void *arg);
static void client_tcp_connected(struct client_tcp *t);
static unsigned client_tcp_walk(const struct client_tcp *t);
static void client_tcp_step(const struct client_dns *d, unsigned k, union client_addr *a);
static void client_tcp_fail(struct client_tcp *t, enum client_tcp_cause cause);

/* client_tcp_race_end: the IPv4 attempt of a race closed, if any */
static void client_tcp_race_end(struct client_tcp *t)
{
	t->race_ns = 0;
	if (t->fd4 == -1)
		return;
	loop_del(t->c->loop, &t->conn4);
	close(t->fd4);
	t->fd4 = -1;
}

/* client_tcp_race_won: the IPv4 attempt connected first: it is the
 * connection, the IPv6 one abandoned */
static void client_tcp_race_won(struct client_tcp *t)
{
	loop_del(t->c->loop, &t->conn4);
	if (t->fd != -1) {
		if (t->conn.added)
			loop_del(t->c->loop, &t->conn);
		close(t->fd);
	}
	t->fd = t->fd4;
	t->fd4 = -1;
	t->race_ns = 0;
	t->watched = 0;
	t->addr = t->addr4;
	client_tcp_connected(t);
}

static void client_tcp_on_conn4(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct client_tcp *t = arg;
	int err = 0;
	socklen_t len = sizeof(err);

	(void)loop;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == -1)
		err = errno;
	if (err == 0 && (events & EPOLLOUT)) {
		client_tcp_race_won(t);
		return;
	}
	if (err == 0 && !(events & (EPOLLERR | EPOLLHUP)))
		return;
	/* the IPv4 attempt failed: the IPv6 one, if still under way, goes on;
	 * else the race is lost, the IPv4 attempt the last (tcp_failed's) */
	client_tcp_race_end(t);
	if (t->fd == -1) {
		t->addr = t->addr4;
		client_tcp_fail(t, err ? client_tcp_cause_of(err) : CLIENT_TCP_OTHER);
	}
}

/* client_tcp_race: Happy Eyeballs' IPv4 attempt, beside the IPv6 one
 * still connecting (or after it failed): to the fallback address. 0, or
 * -1 if it could not start. */
static int client_tcp_race(struct client_tcp *t)
{
	int one = 1;

	t->race_ns = 0;
	t->addr4 = t->c->cfg.fallback;
	if (client_tcp_walk(t) > 0)
		client_tcp_step(t->c->dns4, t->tried, &t->addr4);
	t->fd4 = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (t->fd4 == -1)
		return -1;
	(void)setsockopt(t->fd4, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	(void)setsockopt(t->fd4, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
	if ((connect(t->fd4, &t->addr4.sa, client_addr_len(&t->addr4)) == -1 &&
	     errno != EINPROGRESS) ||
	    loop_add(t->c->loop, &t->conn4, t->fd4, EPOLLOUT, client_tcp_on_conn4, t) == -1) {
		close(t->fd4);
		t->fd4 = -1;
		return -1;
	}
	return 0;
}

/* client_tcp_watch: conn watched for events. 0 or -1 (logged, the client
 * stopped: its loop no longer works). */
static int client_tcp_watch(struct client_tcp *t, uint32_t events)
{
	int rc;

	if (t->conn.added && t->watched == events)
		return 0;
	rc = t->conn.added ? loop_mod(t->c->loop, &t->conn, events)
			   : loop_add(t->c->loop, &t->conn, t->fd, events, client_tcp_on_conn, t);
	if (rc == -1) {
		log_warn("%s: epoll", __func__);
		t->c->failed = 1;
		loop_stop(t->c->loop);
		return -1;
	}
	t->watched = events;
	return 0;
}

/* client_tcp_walk: how many addresses a try-next client walks (its DNS
 * answer's; a dual-stack client's the longer of its AAAA and A answers:
 * each step a pair, RFC 8305's interleaving), or 0: it connects to the
 * target alone */
static unsigned client_tcp_walk(const struct client_tcp *t)
{
	const struct client_dns *d = t->c->dns, *d4 = t->c->dns4;
	unsigned n;

	if (d == NULL || d->pick != CLIENT_PICK_NEXT || !d->have)
		return 0;
	n = d->naddrs;
	if (d4 && d4->have && d4->naddrs > n)
		n = d4->naddrs;
	return n;
}

/* client_tcp_step: the walk's address at step k of d's answer into a
 * (its family's: an AAAA answer's IPv6 one), the answer's last once it has
 * no more (a dual-stack client's shorter list) */
static void client_tcp_step(const struct client_dns *d, unsigned k, union client_addr *a)
{
	if (d == NULL || !d->have || d->naddrs == 0)
		return;
	if (k >= d->naddrs)
		k = d->naddrs - 1;
	if (a->sa.sa_family == AF_INET6)
		a->sin6.sin6_addr = d->addrs6[k];
	else
		a->sin.sin_addr = d->addrs[k];
}

/* client_tcp_retry: the next attempt at due_ns. */
static void client_tcp_retry(struct client_tcp *t, int64_t due_ns)
{
	t->state = CLIENT_TCP_WAITING;
	t->due_ns = due_ns;
	if (loop_timer_set(&t->timer, due_ns, 0) == -1)
		log_warn("%s: timerfd", __func__);
}

/* client_tcp_fail: the connection (or the attempt) is over, for cause:
 * every request outstanding on it recorded as an error now, and the next
 * attempt scheduled */
static void client_tcp_fail(struct client_tcp *t, enum client_tcp_cause cause)
{
	struct client *c = t->c;
	struct client_slot *s;
	uint64_t outstanding = 0;
	int was_connected = t->state == CLIENT_TCP_CONNECTED, next = 0;
	char addr[INET6_ADDRSTRLEN];
	int64_t wait;

	client_tcp_race_end(t);
	if (t->fd != -1) {
		/* aborted (an RST), not closed: the kernel would otherwise go
		 * on retransmitting its unanswered requests to a silent site,
		 * and the capture would count them as the client's */
		struct linger abort_now = {.l_onoff = 1, .l_linger = 0};

		(void)setsockopt(t->fd, SOL_SOCKET, SO_LINGER, &abort_now, sizeof(abort_now));
		loop_del(c->loop, &t->conn);
		close(t->fd);
		t->fd = -1;
	}
	t->rx.len = 0;
	t->txoff = t->txlen = t->txpart = 0;
	t->written = t->answered = 0;
	t->retiring = t->planned = t->stall = 0;
	/* one connection at a time: whatever is outstanding was sent on it, or
	 * waited for it */
	while ((s = client_ring_oldest(&c->ring))) {
		client_record(c, s, CLIENT_ERROR, NULL, 0);
		client_ring_resolve(&c->ring, s);
		outstanding++;
	}
	c->stats.errors += outstanding;
	t->next_seq = c->ring.head;
	t->failed[cause]++;
	if (t->replied)
		t->failures = 0;
	t->replied = 0;
	if (!was_connected && t->tried + 1 < client_tcp_walk(t)) {
		/* try-next: the answer's next address, at once */
		next = 1;
		t->tried++;
		wait = 0;
	} else {
		t->tried = 0;
		t->failures++;
		wait = client_tcp_retry_ns(t->failures, c->cfg.reconnect_now);
	}
	client_addr_text(&t->addr, addr, sizeof(addr));
	event_emit(t->ev, EVENTS_TCP_FAILED, "{s:I, s:s, s:s, s:I, s:I, s:b, s:I, s:b}", "client",
		   (json_int_t)c->cfg.id, "cause", client_tcp_cause_name(cause), "address", addr,
		   "outstanding", (json_int_t)outstanding, "attempt", (json_int_t)t->attempts,
		   "connected", was_connected, "retry_ns", (json_int_t)wait, "next", next);
	if (was_connected)
		log_info("connection to %s from port %u broken: %s, %llu outstanding recorded as "
			 "errors",
			 addr, t->port, client_tcp_cause_name(cause),
			 (unsigned long long)outstanding);
	else if (next)
		log_info("connection %u to %s failed: %s; trying the answer's next address",
			 t->attempts, addr, client_tcp_cause_name(cause));
	else
		log_debug("connection %u to %s failed: %s; next in %lldms", t->attempts, addr,
			  client_tcp_cause_name(cause), (long long)(wait / NSEC_PER_MSEC));
	client_tcp_retry(t, now_mono_ns() + wait);
	client_maybe_done(c);
}

void client_tcp_expired(struct client_tcp *t, const struct client_slot *s)
{
	/* below next_seq and still pending: written on this connection (a
	 * failure or a rotation leaves none from an earlier one) */
	if (s->seq < t->next_seq)
		t->stall = 1;
}

void client_tcp_stalled(struct client_tcp *t)
{
	int stall = t->stall;

	t->stall = 0;
	if (t->state == CLIENT_TCP_CONNECTED && stall)
		client_tcp_fail(t, CLIENT_TCP_STALLED);
}

static void client_tcp_pump(struct client_tcp *t);
static void client_tcp_idle_check(struct client_tcp *t);

static void client_tcp_connected(struct client_tcp *t)
{
	struct sockaddr_storage local;
	socklen_t len = sizeof(local);
	char addr[INET6_ADDRSTRLEN];

	if (client_tcp_watch(t, EPOLLIN) == -1)
		return;
	t->state = CLIENT_TCP_CONNECTED;
	t->planned = 0;
	t->written = t->answered = 0;
	t->retiring = 0;
	t->due_ns = INT64_MAX;
	t->connects++;
	/* the port sits at one offset in both families' sockaddr */
	t->port = getsockname(t->fd, (struct sockaddr *)&local, &len) == 0
		      ? ntohs(((struct sockaddr_in *)&local)->sin_port)
		      : 0;
	client_addr_text(&t->addr, addr, sizeof(addr));
	event_emit(t->ev, EVENTS_TCP_CONNECTED, "{s:I, s:s, s:i, s:I}", "client",
		   (json_int_t)t->c->cfg.id, "address", addr, "local_port", (int)t->port, "attempt",
		   (json_int_t)t->attempts);
	log_info("connected to %s from port %u (attempt %u)", addr, t->port, t->attempts);
	client_tcp_pump(t);
}

/* client_tcp_arrival: a message's arrival, the kernel's time stamp of the
 * last segment read (SO_TIMESTAMPNS), or now */
static int64_t client_tcp_arrival(struct msghdr *h)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(h); c; c = CMSG_NXTHDR(h, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
			struct timespec ts;

			memcpy(&ts, CMSG_DATA(c), sizeof(ts));
			return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
		}
	}
	return now_real_ns();
}

struct client_tcp_arrived {
	struct client_tcp *t;
	int64_t at;
};

static void client_tcp_on_msg(const struct wire_msg *m, void *arg)
{
	struct client_tcp_arrived *a = arg;

	a->t->replied = 1;
	a->t->answered++;
	a->t->c->rx_family = a->t->addr.sa.sa_family;
	client_take_reply(a->t->c, m, a->at);
	a->t->c->rx_family = 0;
}

static void client_tcp_connect(struct client_tcp *t);
static void client_tcp_first_wait(struct client_tcp *t);

/* client_tcp_done_with: the connection closed on purpose (reason "requests"
 * or "idle"), nothing outstanding on it: a FIN, not an RST */
static void client_tcp_done_with(struct client_tcp *t, const char *reason)
{
	char addr[INET6_ADDRSTRLEN];

	client_addr_text(&t->addr, addr, sizeof(addr));
	event_emit(t->ev, EVENTS_TCP_CLOSED, "{s:I, s:s, s:s, s:i, s:I}", "client",
		   (json_int_t)t->c->cfg.id, "reason", reason, "address", addr, "local_port",
		   (int)t->port, "requests", (json_int_t)t->written);
	log_debug("connection to %s from port %u closed after %llu requests (%s)", addr, t->port,
		  (unsigned long long)t->written, reason);
	loop_del(t->c->loop, &t->conn);
	close(t->fd);
	t->fd = -1;
	t->rx.len = 0;
	t->txoff = t->txlen = t->txpart = 0;
	t->written = t->answered = 0;
	t->retiring = 0;
	if (t->replied)
		t->failures = 0;
	t->replied = 0;
	t->tried = 0;
}

/* client_tcp_answered: after replies: a connection that wrote its
 * requests_per_conn and has them all answered is replaced (the requests
 * falling due meanwhile wait for the new one); else the waiting ones go
 * out, and one with nothing outstanding counts its idle time from now */
static void client_tcp_answered(struct client_tcp *t)
{
	struct client *c = t->c;

	if (t->retiring && t->answered >= t->written) {
		client_tcp_done_with(t, "requests");
		t->rotated++;
		t->planned = 1;
		client_tcp_connect(t);
		return;
	}
	client_tcp_pump(t);
	if (t->state == CLIENT_TCP_CONNECTED && c->cfg.idle_timeout_ns > 0 &&
	    t->answered >= t->written && t->next_seq >= c->ring.head) {
		t->due_ns = now_mono_ns() + c->cfg.idle_timeout_ns;
		if (loop_timer_set(&t->timer, t->due_ns, 0) == -1)
			log_warn("%s: timerfd", __func__);
	}
}

void client_tcp_read(struct client_tcp *t)
{
	while (t->state == CLIENT_TCP_CONNECTED) {
		int n;

		union {
			char buf[CMSG_SPACE(sizeof(struct timespec))];
			struct cmsghdr align;
		} cmsg;
		struct iovec iov = {t->rx.buf + t->rx.len, sizeof(t->rx.buf) - t->rx.len};
		struct msghdr h = {.msg_iov = &iov,
				   .msg_iovlen = 1,
				   .msg_control = cmsg.buf,
				   .msg_controllen = sizeof(cmsg.buf)};
		struct client_tcp_arrived a = {.t = t};
		ssize_t r = recvmsg(t->fd, &h, MSG_DONTWAIT);

		if (r == 0) {
			client_tcp_fail(t, CLIENT_TCP_EOF);
			return;
		}
		if (r == -1) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				client_tcp_fail(t, client_tcp_cause_of(errno));
			return;
		}
		a.at = client_tcp_arrival(&h);
		t->rx.len += (size_t)r;
		n = client_tcp_rx_take(&t->rx, client_tcp_on_msg, &a);
		if (n == -1) {
			char addr[INET6_ADDRSTRLEN];

			log_warnx("connection to %s: a reply that is not one of lib/wire.h",
				  client_addr_text(&t->addr, addr, sizeof(addr)));
			client_tcp_fail(t, CLIENT_TCP_BAD);
			return;
		}
		if (n > 0)
			client_tcp_answered(t);
		if ((size_t)r < iov.iov_len)
			return;
	}
}

/* client_tcp_flush: writes what the kernel takes, a request a send with
 * MSG_EOR, so that the kernel never puts two in one segment, sending or
 * retransmitting (a capture reads a segment's first request only:
 * lib/ipframe.h); the rest waits for EPOLLOUT */
static void client_tcp_flush(struct client_tcp *t)
{
	while (t->txoff < t->txlen) {
		size_t chunk = WIRE_LEN - t->txpart;
		ssize_t w;

		if (chunk > t->txlen - t->txoff)
			chunk = t->txlen - t->txoff;
		w = send(t->fd, t->tx + t->txoff, chunk, MSG_NOSIGNAL | MSG_DONTWAIT | MSG_EOR);
		if (w >= 0) {
			t->txoff += (size_t)w;
			t->txpart = (t->txpart + (size_t)w) % WIRE_LEN;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			client_tcp_watch(t, EPOLLIN | EPOLLOUT);
			return;
		}
		client_tcp_fail(t, client_tcp_cause_of(errno));
		return;
	}
	t->txoff = t->txlen = t->txpart = 0;
	client_tcp_watch(t, EPOLLIN);
}

/* client_tcp_room: room for one more request in tx (compacted or grown);
 * 0, or -1 if it holds CLIENT_TCP_TX_MAX bytes already or cannot grow */
static int client_tcp_room(struct client_tcp *t)
{
	size_t cap;
	uint8_t *tx;

	if (t->txlen + WIRE_LEN <= t->txcap)
		return 0;
	if (t->txoff > 0) {
		memmove(t->tx, t->tx + t->txoff, t->txlen - t->txoff);
		t->txlen -= t->txoff;
		t->txoff = 0;
		if (t->txlen + WIRE_LEN <= t->txcap)
			return 0;
	}
	if (t->txcap >= CLIENT_TCP_TX_MAX)
		return -1;
	cap = t->txcap ? 2 * t->txcap : WIRE_LEN * 1024;
	if ((tx = realloc(t->tx, cap)) == NULL)
		return -1;
	t->tx = tx;
	t->txcap = cap;
	return 0;
}

/* client_tcp_blocked: s recorded as an error at once: no connection
 * (counted unconnected) or one that takes no more (blocked) */
static void client_tcp_refuse(struct client_tcp *t, struct client_slot *s, int blocked)
{
	struct client *c = t->c;
	uint64_t *count = blocked ? &t->blocked : &t->unconnected;
	char addr[INET6_ADDRSTRLEN];

	if ((*count)++ == 0)
		log_warnx("requests to %s recorded as errors while %s (counted %s)",
			  client_addr_text(&t->addr, addr, sizeof(addr)),
			  blocked ? "the connection takes no more" : "not connected",
			  blocked ? "blocked" : "unconnected");
	c->stats.errors++;
	client_record(c, s, CLIENT_ERROR, NULL, 0);
	client_ring_resolve(&c->ring, s);
}

/* client_tcp_pump: the waiting requests written, as many as the pipeline
 * and requests_per_conn let; the bytes flushed */
static void client_tcp_pump(struct client_tcp *t)
{
	struct client *c = t->c;

	if (t->state != CLIENT_TCP_CONNECTED)
		return;
	while (t->next_seq < c->ring.head && !t->retiring &&
	       (c->cfg.pipeline == 0 || t->written - t->answered < c->cfg.pipeline)) {
		struct client_slot *s = client_ring_find(&c->ring, t->next_seq++);
		struct wire_msg m = {.type = WIRE_REQUEST, .client_id = c->cfg.id};

		if (s == NULL) /* timed out while it waited */
			continue;
		if (client_tcp_room(t) == -1) {
			client_tcp_refuse(t, s, 1);
			continue;
		}
		m.seq = s->seq;
		m.sent_ns = (uint64_t)s->sent_real_ns;
		wire_encode(&m, t->tx + t->txlen, WIRE_LEN);
		t->txlen += WIRE_LEN;
		t->written++;
		if (now_mono_ns() - s->sent_mono_ns >= CLIENT_TCP_WAITED_NS)
			t->waited++;
		if (c->cfg.requests_per_conn && t->written >= c->cfg.requests_per_conn)
			t->retiring = 1;
	}
	if (t->txlen > t->txoff && !(t->watched & EPOLLOUT))
		client_tcp_flush(t);
}

int client_tcp_send(struct client_tcp *t, unsigned n)
{
	struct client *c = t->c;
	int64_t real = now_real_ns(), mono = now_mono_ns();

	client_tcp_idle_check(t);
	for (unsigned i = 0; i < n; i++) {
		struct client_slot *s = client_ring_push(&c->ring, real, mono);

		if (s == NULL) {
			log_warnx("%s: out of memory for %llu outstanding requests", __func__,
				  (unsigned long long)c->ring.pending);
			return -1;
		}
		s->client = c->cfg.id;
		c->stats.sent++;
		/* up, idle or replaced on purpose: it waits for its turn */
		if (t->state == CLIENT_TCP_CONNECTED || t->state == CLIENT_TCP_IDLE || t->planned)
			continue;
		client_tcp_refuse(t, s, 0);
		if (t->next_seq == s->seq)
			t->next_seq++;
	}
	if (t->state == CLIENT_TCP_IDLE && t->next_seq < c->ring.head) {
		t->planned = 1;
		client_tcp_connect(t);
		return 0;
	}
	client_tcp_pump(t);
	return 0;
}

static void client_tcp_on_conn(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct client_tcp *t = arg;
	int err = 0;
	socklen_t len = sizeof(err);

	(void)loop;
	if (t->state == CLIENT_TCP_CONNECTING) {
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == -1)
			err = errno;
		if (err != 0 && t->c->cfg.fallback.sa.sa_family &&
		    (t->fd4 != -1 || client_tcp_race(t) == 0)) {
			/* Happy Eyeballs: the IPv6 attempt failed; the IPv4 one
			 * goes on, or starts at once */
			loop_del(t->c->loop, &t->conn);
			close(t->fd);
			t->fd = -1;
			return;
		}
		if (err != 0)
			client_tcp_fail(t, client_tcp_cause_of(err));
		else if (events & EPOLLOUT) {
			client_tcp_race_end(t); /* IPv6 won */
			client_tcp_connected(t);
		} else if (events & (EPOLLERR | EPOLLHUP))
			/* no error to say why, but epoll would say it again */
			client_tcp_fail(t, CLIENT_TCP_OTHER);
		return;
	}
	if (events & (EPOLLIN | EPOLLERR | EPOLLHUP))
		client_tcp_read(t);
	if (t->state == CLIENT_TCP_CONNECTED && (events & EPOLLOUT))
		client_tcp_flush(t);
	client_maybe_done(t->c);
}

/* client_tcp_idle_check: a connection idle for idle_timeout closed
 * (client_tcp_answered set due_ns); asked by the timer and by a new
 * request, so a request falling due in the same turn as a late timer
 * never rides a connection past its idle timeout */
static void client_tcp_idle_check(struct client_tcp *t)
{
	if (t->state != CLIENT_TCP_CONNECTED || t->c->cfg.idle_timeout_ns <= 0 ||
	    t->answered < t->written || t->next_seq < t->c->ring.head || now_mono_ns() < t->due_ns)
		return;
	client_tcp_done_with(t, "idle");
	t->idled++;
	t->state = CLIENT_TCP_IDLE;
	t->due_ns = INT64_MAX;
}

static void client_tcp_on_timer(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct client_tcp *t = arg;

	(void)loop;
	(void)events;
	loop_timer_read(fd);
	if (t->state == CLIENT_TCP_CONNECTING && t->race_ns && now_mono_ns() >= t->race_ns &&
	    t->fd4 == -1) {
		/* the attempt delay passed: IPv4 joins the race */
		if (client_tcp_race(t) == -1)
			log_warn("%s: the IPv4 attempt", __func__);
		if (loop_timer_set(&t->timer, t->due_ns, 0) == -1)
			log_warn("%s: timerfd", __func__);
	}
	if (now_mono_ns() < t->due_ns)
		return;
	if (t->state == CLIENT_TCP_CONNECTING) {
		client_tcp_fail(t, CLIENT_TCP_TIMEOUT);
	} else if (t->state == CLIENT_TCP_WAITING && !t->c->draining) {
		client_tcp_connect(t);
	} else {
		client_tcp_idle_check(t);
	}
}

/* client_tcp_connect: a new attempt, non-blocking: connected, connecting
 * until the connect timeout, or failed (and retried); to the target, or
 * for a try-next client to its answer's address it is at */
static void client_tcp_connect(struct client_tcp *t)
{
	struct client *c = t->c;
	int one = 1;

	t->attempts++;
	t->addr = c->cfg.target;
	t->fd = socket(t->addr.sa.sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (t->fd == -1) {
		log_warn("%s: socket", __func__);
		client_tcp_fail(t, client_tcp_cause_of(errno));
		return;
	}
	/* a request leaves when it falls due, not when Nagle says */
	if (setsockopt(t->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) == -1)
		log_warn("%s: setsockopt TCP_NODELAY", __func__);
	/* a reply's rtt ends when it reaches the socket, as a UDP one's */
	if (setsockopt(t->fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) == -1)
		log_warn("%s: setsockopt SO_TIMESTAMPNS", __func__);
	t->watched = 0;
	if (client_tcp_walk(t) > 0)
		client_tcp_step(c->dns, t->tried, &t->addr);
	if (connect(t->fd, &t->addr.sa, client_addr_len(&t->addr)) == 0) {
		client_tcp_connected(t);
		return;
	}
	if (errno != EINPROGRESS && c->cfg.fallback.sa.sa_family) {
		/* Happy Eyeballs: the IPv6 attempt refused at once; the IPv4
		 * one starts now */
		close(t->fd);
		t->fd = -1;
		if (client_tcp_race(t) == -1) {
			client_tcp_fail(t, client_tcp_cause_of(errno));
			return;
		}
	} else if (errno != EINPROGRESS) {
		client_tcp_fail(t, client_tcp_cause_of(errno));
		return;
	} else if (client_tcp_watch(t, EPOLLOUT) == -1) {
		return;
	}
	t->state = CLIENT_TCP_CONNECTING;
	t->due_ns = now_mono_ns() +
		    (c->cfg.connect_timeout_ns > 0 ? c->cfg.connect_timeout_ns : c->cfg.timeout_ns);
	/* Happy Eyeballs: IPv4 joins the race after the attempt delay (at
	 * once if the IPv6 attempt was refused: under way already) */
	t->race_ns = c->cfg.fallback.sa.sa_family && t->fd4 == -1
			 ? now_mono_ns() + c->cfg.attempt_delay_ns
			 : 0;
	if (loop_timer_set(&t->timer, t->race_ns && t->race_ns < t->due_ns ? t->race_ns : t->due_ns,
			   0) == -1)
		log_warn("%s: timerfd", __func__);
}

/* client_tcp_first: waits up to the timeout for the first attempt's
 * outcome, so that the first request finds the connection up (a try-next
 * client's for each of its answer's addresses it walks) */
static void client_tcp_first(struct client_tcp *t)
{
	client_tcp_connect(t);
	client_tcp_first_wait(t);
	while (t->state == CLIENT_TCP_WAITING && t->tried > 0) {
		client_tcp_connect(t);
		client_tcp_first_wait(t);
	}
}

/* client_tcp_first_wait: the attempt under way's outcome, up to its
 * connect timeout */
static void client_tcp_first_wait(struct client_tcp *t)
{
	int64_t left;

	while (t->state == CLIENT_TCP_CONNECTING && (left = t->due_ns - now_mono_ns()) > 0) {
		/* the attempt, and Happy Eyeballs' IPv4 one racing it (poll
		 * skips a -1) */
		struct pollfd p[2] = {{.fd = t->fd, .events = POLLOUT},
				      {.fd = t->fd4, .events = POLLOUT}};
		int r;

		if (t->race_ns && t->fd4 == -1) {
			int64_t race = t->race_ns - now_mono_ns();

			if (race <= 0) {
				if (client_tcp_race(t) == -1)
					log_warn("%s: the IPv4 attempt", __func__);
				continue;
			}
			if (race < left)
				left = race;
		}
		r = poll(p, 2, (int)((left + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC));
		if (r == -1 && errno != EINTR)
			break;
		/* poll's POLLOUT, POLLERR and POLLHUP are epoll's */
		if (r > 0 && p[0].fd != -1 && p[0].revents)
			client_tcp_on_conn(t->c->loop, p[0].fd, (uint32_t)p[0].revents, t);
		else if (r > 0 && p[1].fd != -1 && p[1].revents && p[1].fd == t->fd4)
			client_tcp_on_conn4(t->c->loop, p[1].fd, (uint32_t)p[1].revents, t);
	}
	if (t->state == CLIENT_TCP_CONNECTING && now_mono_ns() >= t->due_ns)
		client_tcp_fail(t, CLIENT_TCP_TIMEOUT);
}

struct client_tcp *client_tcp_open(struct client *c, struct event_log *ev)
{
	struct client_tcp *t = calloc(1, sizeof(*t));

	if (t == NULL) {
		log_warn("%s: calloc", __func__);
		return NULL;
	}
	t->c = c;
	t->ev = ev;
	t->fd = t->fd4 = -1;
	t->state = CLIENT_TCP_WAITING;
	t->due_ns = INT64_MAX;
	if (loop_timer_add(c->loop, &t->timer, INT64_MAX, 0, client_tcp_on_timer, t) == -1) {
		log_warn("%s: timerfd", __func__);
		free(t);
		return NULL;
	}
	client_tcp_first(t);
	if (c->failed) {
		client_tcp_close(t);
		return NULL;
	}
	return t;
}

json_t *client_tcp_counts_json(const struct client_tcp_counts *n)
{
	json_t *o = json_pack("{s:I, s:I, s:I}", "connects", (json_int_t)n->connects, "unconnected",
			      (json_int_t)n->unconnected, "blocked", (json_int_t)n->blocked);

	for (int i = 0; o && i < CLIENT_TCP_NCAUSES; i++)
		json_object_set_new(o, client_tcp_causes[i].count,
				    json_integer((json_int_t)n->failed[i]));
	if (o) {
		json_object_set_new(o, "rotated", json_integer((json_int_t)n->rotated));
		json_object_set_new(o, "idled", json_integer((json_int_t)n->idled));
		json_object_set_new(o, "waited", json_integer((json_int_t)n->waited));
	}
	return o;
}

void client_tcp_counts_log(const struct client_tcp_counts *n)
{
	log_info("tcp: %llu connects; failed: %llu refused, %llu resets, %llu eofs, %llu "
		 "timeouts, %llu stalled, %llu other; %llu requests unconnected, %llu blocked; "
		 "closed %llu after their requests, %llu idle; %llu requests waited",
		 (unsigned long long)n->connects, (unsigned long long)n->failed[CLIENT_TCP_REFUSED],
		 (unsigned long long)n->failed[CLIENT_TCP_RESET],
		 (unsigned long long)n->failed[CLIENT_TCP_EOF],
		 (unsigned long long)n->failed[CLIENT_TCP_TIMEOUT],
		 (unsigned long long)n->failed[CLIENT_TCP_STALLED],
		 (unsigned long long)(n->failed[CLIENT_TCP_PIPE] +
				      n->failed[CLIENT_TCP_UNREACHABLE] +
				      n->failed[CLIENT_TCP_BAD] + n->failed[CLIENT_TCP_OTHER]),
		 (unsigned long long)n->unconnected, (unsigned long long)n->blocked,
		 (unsigned long long)n->rotated, (unsigned long long)n->idled,
		 (unsigned long long)n->waited);
}

/* client_tcp_counts: t's counts */
static struct client_tcp_counts client_tcp_counts(const struct client_tcp *t)
{
	struct client_tcp_counts n = {t->connects, t->unconnected, t->blocked, {0}, 0, 0, 0};

	memcpy(n.failed, t->failed, sizeof(n.failed));
	n.rotated = t->rotated;
	n.idled = t->idled;
	n.waited = t->waited;
	return n;
}

json_t *client_tcp_json(const struct client_tcp *t)
{
	struct client_tcp_counts n = client_tcp_counts(t);

	return client_tcp_counts_json(&n);
}

void client_tcp_log(const struct client_tcp *t)
{
	struct client_tcp_counts n = client_tcp_counts(t);

	client_tcp_counts_log(&n);
}

void client_tcp_close(struct client_tcp *t)
{
	if (t == NULL)
		return;
	client_tcp_race_end(t);
	if (t->fd != -1) {
		loop_del(t->c->loop, &t->conn);
		close(t->fd);
	}
	loop_timer_del(t->c->loop, &t->timer);
	free(t->tx);
	free(t);
}
