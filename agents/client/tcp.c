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

enum client_tcp_state {
	CLIENT_TCP_WAITING,    /* for the next attempt, at due_ns */
	CLIENT_TCP_CONNECTING, /* until due_ns at most */
	CLIENT_TCP_CONNECTED,
};

struct client_tcp {
	struct client *c;
	struct event_log *ev;
	int fd;
	enum client_tcp_state state;
	struct loop_handler conn, timer;
	uint32_t watched;	 /* conn's events */
	int64_t due_ns;		 /* CLOCK_MONOTONIC: the connect's deadline, or the next attempt */
	unsigned attempts;	 /* connections tried, from 1 */
	unsigned failures;	 /* failed in a row since one carried a reply */
	int replied;		 /* the connection carried a reply */
	uint16_t port;		 /* its local port */
	struct sockaddr_in addr; /* the connection's (or the attempt's) peer */
	unsigned tried;		 /* try-next: the answer's address it is at */
	struct client_tcp_rx rx;
	uint8_t *tx; /* bytes to write: tx[txoff .. txlen) */
	size_t txoff, txlen, txcap;
	uint64_t connects, unconnected, blocked;
	uint64_t failed[CLIENT_TCP_NCAUSES];
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

static void client_tcp_connect(struct client_tcp *t);
static void client_tcp_on_conn(struct loop *loop, int fd, uint32_t events, void *arg);

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
 * answer's), or 0: it connects to the target alone */
static unsigned client_tcp_walk(const struct client_tcp *t)
{
	const struct client_dns *d = t->c->dns;

	return d && d->pick == CLIENT_PICK_NEXT && d->have ? d->naddrs : 0;
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
	char addr[INET_ADDRSTRLEN];
	int64_t wait;

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
	t->txoff = t->txlen = 0;
	/* one connection at a time: whatever is outstanding was sent on it */
	while ((s = client_ring_oldest(&c->ring))) {
		client_record(c, s, CLIENT_ERROR, NULL, 0);
		client_ring_resolve(&c->ring, s);
		outstanding++;
	}
	c->stats.errors += outstanding;
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
	inet_ntop(AF_INET, &t->addr.sin_addr, addr, sizeof(addr));
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

void client_tcp_stalled(struct client_tcp *t)
{
	if (t->state == CLIENT_TCP_CONNECTED)
		client_tcp_fail(t, CLIENT_TCP_STALLED);
}

static void client_tcp_connected(struct client_tcp *t)
{
	struct sockaddr_in local;
	socklen_t len = sizeof(local);

	if (client_tcp_watch(t, EPOLLIN) == -1)
		return;
	t->state = CLIENT_TCP_CONNECTED;
	t->connects++;
	t->port =
	    getsockname(t->fd, (struct sockaddr *)&local, &len) == 0 ? ntohs(local.sin_port) : 0;
	event_emit(t->ev, EVENTS_TCP_CONNECTED, "{s:I, s:s, s:i, s:I}", "client",
		   (json_int_t)t->c->cfg.id, "address", inet_ntoa(t->addr.sin_addr), "local_port",
		   (int)t->port, "attempt", (json_int_t)t->attempts);
	log_info("connected to %s from port %u (attempt %u)", inet_ntoa(t->addr.sin_addr), t->port,
		 t->attempts);
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
	client_take_reply(a->t->c, m, a->at);
}

void client_tcp_read(struct client_tcp *t)
{
	while (t->state == CLIENT_TCP_CONNECTED) {
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
		if (client_tcp_rx_take(&t->rx, client_tcp_on_msg, &a) == -1) {
			log_warnx("connection to %s: a reply that is not one of lib/wire.h",
				  inet_ntoa(t->addr.sin_addr));
			client_tcp_fail(t, CLIENT_TCP_BAD);
			return;
		}
		if ((size_t)r < iov.iov_len)
			return;
	}
}

/* client_tcp_flush: writes what the kernel takes; the rest waits for
 * EPOLLOUT */
static void client_tcp_flush(struct client_tcp *t)
{
	while (t->txoff < t->txlen) {
		ssize_t w =
		    send(t->fd, t->tx + t->txoff, t->txlen - t->txoff, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (w >= 0) {
			t->txoff += (size_t)w;
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
	t->txoff = t->txlen = 0;
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

int client_tcp_send(struct client_tcp *t, unsigned n)
{
	struct client *c = t->c;
	int64_t real = now_real_ns(), mono = now_mono_ns();

	for (unsigned i = 0; i < n; i++) {
		struct wire_msg m = {.type = WIRE_REQUEST, .client_id = c->cfg.id};
		struct client_slot *s = client_ring_push(&c->ring, real, mono);
		uint64_t *refused = &t->unconnected;

		if (s == NULL) {
			log_warnx("%s: out of memory for %llu outstanding requests", __func__,
				  (unsigned long long)c->ring.pending);
			return -1;
		}
		s->client = c->cfg.id;
		c->stats.sent++;
		if (t->state == CLIENT_TCP_CONNECTED && client_tcp_room(t) == 0) {
			m.seq = s->seq;
			m.sent_ns = (uint64_t)real;
			wire_encode(&m, t->tx + t->txlen, WIRE_LEN);
			t->txlen += WIRE_LEN;
			continue;
		}
		if (t->state == CLIENT_TCP_CONNECTED)
			refused = &t->blocked;
		if ((*refused)++ == 0)
			log_warnx("requests to %s recorded as errors while %s (counted %s)",
				  inet_ntoa(t->addr.sin_addr),
				  refused == &t->blocked ? "the connection takes no more"
							 : "not connected",
				  refused == &t->blocked ? "blocked" : "unconnected");
		c->stats.errors++;
		client_record(c, s, CLIENT_ERROR, NULL, 0);
		client_ring_resolve(&c->ring, s);
	}
	if (t->state == CLIENT_TCP_CONNECTED && t->txlen > t->txoff && !(t->watched & EPOLLOUT))
		client_tcp_flush(t);
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
		if (err != 0)
			client_tcp_fail(t, client_tcp_cause_of(err));
		else if (events & EPOLLOUT)
			client_tcp_connected(t);
		else if (events & (EPOLLERR | EPOLLHUP))
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

static void client_tcp_on_timer(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct client_tcp *t = arg;

	(void)loop;
	(void)events;
	loop_timer_read(fd);
	if (now_mono_ns() < t->due_ns)
		return;
	if (t->state == CLIENT_TCP_CONNECTING)
		client_tcp_fail(t, CLIENT_TCP_TIMEOUT);
	else if (t->state == CLIENT_TCP_WAITING && !t->c->draining)
		client_tcp_connect(t);
}

/* client_tcp_connect: a new attempt, non-blocking: connected, connecting
 * until the connect timeout, or failed (and retried); to the target, or
 * for a try-next client to its answer's address it is at */
static void client_tcp_connect(struct client_tcp *t)
{
	struct client *c = t->c;
	int one = 1;

	t->attempts++;
	t->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
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
	t->addr = c->cfg.target;
	if (client_tcp_walk(t) > 0)
		t->addr.sin_addr = c->dns->addrs[t->tried % client_tcp_walk(t)];
	if (connect(t->fd, (const struct sockaddr *)&t->addr, sizeof(t->addr)) == 0) {
		client_tcp_connected(t);
		return;
	}
	if (errno != EINPROGRESS) {
		client_tcp_fail(t, client_tcp_cause_of(errno));
		return;
	}
	if (client_tcp_watch(t, EPOLLOUT) == -1)
		return;
	t->state = CLIENT_TCP_CONNECTING;
	t->due_ns = now_mono_ns() +
		    (c->cfg.connect_timeout_ns > 0 ? c->cfg.connect_timeout_ns : c->cfg.timeout_ns);
	if (loop_timer_set(&t->timer, t->due_ns, 0) == -1)
		log_warn("%s: timerfd", __func__);
}

/* client_tcp_first: waits up to the timeout for the first attempt's
 * outcome, so that the first request finds the connection up */
static void client_tcp_first(struct client_tcp *t)
{
	struct pollfd p = {.events = POLLOUT};
	int64_t left;

	client_tcp_connect(t);
	p.fd = t->fd;
	while (t->state == CLIENT_TCP_CONNECTING && (left = t->due_ns - now_mono_ns()) > 0) {
		int r = poll(&p, 1, (int)((left + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC));

		if (r == -1 && errno != EINTR)
			break;
		/* poll's POLLOUT, POLLERR and POLLHUP are epoll's */
		if (r > 0)
			client_tcp_on_conn(t->c->loop, t->fd, (uint32_t)p.revents, t);
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
	t->fd = -1;
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
	return o;
}

void client_tcp_counts_log(const struct client_tcp_counts *n)
{
	log_info("tcp: %llu connects; failed: %llu refused, %llu resets, %llu eofs, %llu "
		 "timeouts, %llu stalled, %llu other; %llu requests unconnected, %llu blocked",
		 (unsigned long long)n->connects, (unsigned long long)n->failed[CLIENT_TCP_REFUSED],
		 (unsigned long long)n->failed[CLIENT_TCP_RESET],
		 (unsigned long long)n->failed[CLIENT_TCP_EOF],
		 (unsigned long long)n->failed[CLIENT_TCP_TIMEOUT],
		 (unsigned long long)n->failed[CLIENT_TCP_STALLED],
		 (unsigned long long)(n->failed[CLIENT_TCP_PIPE] +
				      n->failed[CLIENT_TCP_UNREACHABLE] +
				      n->failed[CLIENT_TCP_BAD] + n->failed[CLIENT_TCP_OTHER]),
		 (unsigned long long)n->unconnected, (unsigned long long)n->blocked);
}

/* client_tcp_counts: t's counts */
static struct client_tcp_counts client_tcp_counts(const struct client_tcp *t)
{
	struct client_tcp_counts n = {t->connects, t->unconnected, t->blocked, {0}};

	memcpy(n.failed, t->failed, sizeof(n.failed));
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
	if (t->fd != -1) {
		loop_del(t->c->loop, &t->conn);
		close(t->fd);
	}
	loop_timer_del(t->c->loop, &t->timer);
	free(t->tx);
	free(t);
}
