/* A population's connections, one a logical client; see poptcp.h. */
#include "poptcp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "httpwire.h"
#include "log.h"
#include "pop.h"
#include "ring.h"
#include "timeutil.h"
#include "traffic.h"

/* descriptors besides the connections: the agent's own sockets, timers,
 * files */
#define POPTCP_FDS_OTHER 64
/* HTTP: the requests a connection may hold behind the one on the wire;
 * beyond, a request is an error (blocked) */
#define POPTCP_HTTP_QUEUE 8
#define POPTCP_HTTP_RX 2048

enum poptcp_state {
	POPTCP_WAITING, /* for the next attempt, at due_ns */
	POPTCP_CONNECTING,
	POPTCP_CONNECTED,
};

struct poptcp_conn {
	struct loop_handler h;
	struct poptcp *t;
	int fd;
	uint32_t j;
	uint8_t state;
	uint8_t gen;	  /* bumped when a connection ends */
	uint8_t failures; /* attempts failed in a row since one carried a reply */
	uint8_t replied;  /* this connection carried a reply */
	uint8_t rxlen;	  /* bytes of a reply read so far */
	uint8_t rx[WIRE_LEN];
	int64_t due_ns; /* CONNECTING: the deadline; WAITING: the next attempt */
	/* HTTP: one request on the wire at a time (no pipelining), the ones
	 * that fall due meanwhile queued; the response read so far */
	uint8_t busy, qn;
	uint64_t inflight;
	uint64_t q[POPTCP_HTTP_QUEUE];
	uint8_t *hrx;
	uint16_t hlen;
};

struct poptcp {
	struct client *c;
	int http;	/* HTTP/1.1 requests and responses (lib/httpwire.h) */
	char host[256]; /* their Host header */
	struct poptcp_conn *conn;
	uint32_t n;
	uint32_t down; /* connections not up */
	int stale;     /* a connection ended since the last sweep */
	struct loop_handler tick;
	int ticking;
	struct client_tcp_counts counts;
};

/* poptcp_fds: the soft descriptor limit raised for n connections, as far
 * as the hard one allows. 0, or -1 (logged) when they do not fit. */
static int poptcp_fds(uint32_t n)
{
	rlim_t need = (rlim_t)n + POPTCP_FDS_OTHER;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1) {
		log_warn("%s: getrlimit", __func__);
		return -1;
	}
	if (rl.rlim_cur >= need)
		return 0;
	if (rl.rlim_max < need) {
		log_warnx("a population of %u connections needs %llu file descriptors; the hard "
			  "limit is %llu (ulimit -Hn)",
			  n, (unsigned long long)need, (unsigned long long)rl.rlim_max);
		return -1;
	}
	rl.rlim_cur = need;
	if (setrlimit(RLIMIT_NOFILE, &rl) == -1) {
		log_warn("%s: setrlimit", __func__);
		return -1;
	}
	return 0;
}

static void poptcp_on_conn(struct loop *loop, int fd, uint32_t events, void *arg);

/* poptcp_arm: the tick runs while a connection is down */
static void poptcp_arm(struct poptcp *t)
{
	if (t->ticking || t->down == 0)
		return;
	if (loop_timer_set(&t->tick, now_mono_ns() + POPTCP_TICK_NS, POPTCP_TICK_NS) == -1)
		log_warn("%s: timerfd", __func__);
	else
		t->ticking = 1;
}

/* poptcp_fail: k's connection (or attempt) is over, for cause: aborted,
 * its outstanding requests left to the next sweep, the next attempt
 * scheduled */
static void poptcp_fail(struct poptcp *t, struct poptcp_conn *k, enum client_tcp_cause cause)
{
	if (k->fd != -1) {
		struct linger abort_now = {.l_onoff = 1, .l_linger = 0};

		(void)setsockopt(k->fd, SOL_SOCKET, SO_LINGER, &abort_now, sizeof(abort_now));
		loop_del(t->c->loop, &k->h);
		close(k->fd);
		k->fd = -1;
	}
	if (k->state == POPTCP_CONNECTED) {
		t->down++;
		t->stale = 1;
	}
	/* HTTP: the queued requests are the connection's: swept with it */
	k->busy = k->qn = 0;
	k->hlen = 0;
	t->counts.failed[cause]++;
	if (k->replied)
		k->failures = 0;
	k->replied = 0;
	if (k->failures < UINT8_MAX)
		k->failures++;
	k->gen++;
	k->rxlen = 0;
	k->state = POPTCP_WAITING;
	k->due_ns = now_mono_ns() + client_tcp_retry_ns(k->failures, t->c->cfg.reconnect_now);
	poptcp_arm(t);
}

static void poptcp_connected(struct poptcp *t, struct poptcp_conn *k)
{
	if (loop_mod(t->c->loop, &k->h, EPOLLIN) == -1) {
		poptcp_fail(t, k, client_tcp_cause_of(errno));
		return;
	}
	k->state = POPTCP_CONNECTED;
	t->down--;
	t->counts.connects++;
}

/* poptcp_connect: a new attempt of k, non-blocking, from j's source to
 * j's address */
static void poptcp_connect(struct poptcp *t, struct poptcp_conn *k)
{
	struct client *c = t->c;
	struct sockaddr_in to = c->cfg.target.sin;
	struct in_addr src = pop_source(c->pop, k->j);
	int one = 1;

	if (c->popdns)
		to.sin_addr = c->pop->c[k->j].addr;
	k->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (k->fd == -1) {
		poptcp_fail(t, k, client_tcp_cause_of(errno));
		return;
	}
	(void)setsockopt(k->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (src.s_addr != 0) {
		struct sockaddr_in from = {.sin_family = AF_INET, .sin_addr = src};

		if (bind(k->fd, (const struct sockaddr *)&from, sizeof(from)) == -1) {
			poptcp_fail(t, k, client_tcp_cause_of(errno));
			return;
		}
	}
	if (connect(k->fd, (const struct sockaddr *)&to, sizeof(to)) == -1 &&
	    errno != EINPROGRESS) {
		poptcp_fail(t, k, client_tcp_cause_of(errno));
		return;
	}
	if (loop_add(c->loop, &k->h, k->fd, EPOLLOUT, poptcp_on_conn, k) == -1) {
		poptcp_fail(t, k, client_tcp_cause_of(errno));
		return;
	}
	k->state = POPTCP_CONNECTING;
	k->due_ns = now_mono_ns() + c->cfg.timeout_ns;
}

/* poptcp_http_write: the GET of request seq (sent at sent_ns) on k's
 * connection, the one on the wire. 0, or -1 (the connection given up). */
static int poptcp_http_write(struct poptcp *t, struct poptcp_conn *k, uint64_t seq, int64_t sent_ns)
{
	struct wire_msg m = {.type = WIRE_REQUEST,
			     .client_id = t->c->pop->base + k->j,
			     .seq = seq,
			     .sent_ns = (uint64_t)sent_ns};
	char path[HTTPWIRE_PATH_MAX + 1], req[HTTPWIRE_PATH_MAX + 320];
	ssize_t w;
	int n;

	if (httpwire_path(&m, path, sizeof(path)) == -1 ||
	    (n = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", path, t->host)) <
		0 ||
	    (size_t)n >= sizeof(req)) {
		poptcp_fail(t, k, CLIENT_TCP_OTHER);
		return -1;
	}
	do
		w = send(k->fd, req, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL);
	while (w == -1 && errno == EINTR);
	if (w != n) {
		t->counts.blocked += w >= 0 || errno == EAGAIN;
		poptcp_fail(t, k,
			    w == -1 && errno != EAGAIN ? client_tcp_cause_of(errno)
						       : CLIENT_TCP_OTHER);
		return -1;
	}
	k->busy = 1;
	k->inflight = seq;
	return 0;
}

/* poptcp_http_next: the next queued request of k still pending, on the wire */
static void poptcp_http_next(struct poptcp *t, struct poptcp_conn *k)
{
	while (!k->busy && k->qn > 0 && k->state == POPTCP_CONNECTED) {
		uint64_t seq = k->q[0];
		struct client_slot *s;

		memmove(k->q, k->q + 1, (size_t)(k->qn - 1) * sizeof(k->q[0]));
		k->qn--;
		if ((s = client_ring_find(&t->c->ring, seq)) != NULL)
			(void)poptcp_http_write(t, k, seq, s->sent_real_ns);
	}
}

/* poptcp_http_read: the responses waiting on k's connection: a 200 of the
 * request's is its reply, anything else an error of the request on the
 * wire */
static void poptcp_http_read(struct poptcp *t, struct poptcp_conn *k)
{
	struct client *c = t->c;

	if (k->hrx == NULL && (k->hrx = malloc(POPTCP_HTTP_RX)) == NULL) {
		poptcp_fail(t, k, CLIENT_TCP_OTHER);
		return;
	}
	while (k->state == POPTCP_CONNECTED) {
		ssize_t r = recv(k->fd, k->hrx + k->hlen, POPTCP_HTTP_RX - k->hlen, MSG_DONTWAIT);
		int64_t at = now_real_ns();
		long len;

		if (r == 0) {
			poptcp_fail(t, k, CLIENT_TCP_EOF);
			return;
		}
		if (r == -1) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				poptcp_fail(t, k, client_tcp_cause_of(errno));
			return;
		}
		k->hlen += (uint16_t)r;
		while ((len = httpwire_response_len(k->hrx, k->hlen)) > 0) {
			struct wire_msg m;
			struct client_slot *s;

			if (!k->busy) { /* a response to nothing: the stream is lost */
				poptcp_fail(t, k, CLIENT_TCP_BAD);
				return;
			}
			k->busy = 0;
			if (httpwire_reply_decode(k->hrx, (size_t)len, &m) == 0 &&
			    m.seq == k->inflight) {
				k->replied = 1;
				client_take_reply(c, &m, at);
			} else if ((s = client_ring_find(&c->ring, k->inflight)) != NULL) {
				c->stats.errors++;
				client_record(c, s, CLIENT_ERROR, NULL, 0);
				client_ring_resolve(&c->ring, s);
			}
			memmove(k->hrx, k->hrx + len, (size_t)(k->hlen - len));
			k->hlen -= (uint16_t)len;
			poptcp_http_next(t, k);
			if (k->state != POPTCP_CONNECTED)
				return;
		}
		if (len == -1 || k->hlen == POPTCP_HTTP_RX) {
			poptcp_fail(t, k, CLIENT_TCP_BAD);
			return;
		}
	}
}

/* poptcp_read: the replies waiting on k's connection */
static void poptcp_read(struct poptcp *t, struct poptcp_conn *k)
{
	uint8_t buf[WIRE_LEN * 64];

	if (t->http) {
		poptcp_http_read(t, k);
		return;
	}

	while (k->state == POPTCP_CONNECTED) {
		ssize_t r = recv(k->fd, buf, sizeof(buf), MSG_DONTWAIT);
		int64_t at = now_real_ns();
		size_t off = 0;

		if (r == 0) {
			poptcp_fail(t, k, CLIENT_TCP_EOF);
			return;
		}
		if (r == -1) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				poptcp_fail(t, k, client_tcp_cause_of(errno));
			return;
		}
		while (off < (size_t)r) {
			size_t take = WIRE_LEN - k->rxlen;
			struct wire_msg m;

			if (take > (size_t)r - off)
				take = (size_t)r - off;
			memcpy(k->rx + k->rxlen, buf + off, take);
			k->rxlen += (uint8_t)take;
			off += take;
			if (k->rxlen < WIRE_LEN)
				break;
			k->rxlen = 0;
			if (wire_decode(k->rx, WIRE_LEN, &m) == -1 || m.type != WIRE_REPLY) {
				poptcp_fail(t, k, CLIENT_TCP_BAD);
				return;
			}
			k->replied = 1;
			client_take_reply(t->c, &m, at);
		}
		if ((size_t)r < sizeof(buf))
			return;
	}
}

static void poptcp_on_conn(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct poptcp_conn *k = arg;
	struct poptcp *t = k->t;
	socklen_t len = sizeof(int);
	int err = 0;

	(void)loop;
	if (k->state == POPTCP_CONNECTING) {
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == -1)
			err = errno;
		if (err != 0)
			poptcp_fail(t, k, client_tcp_cause_of(err));
		else if (events & EPOLLOUT)
			poptcp_connected(t, k);
		else if (events & (EPOLLERR | EPOLLHUP))
			poptcp_fail(t, k, CLIENT_TCP_OTHER);
		return;
	}
	if (events & (EPOLLIN | EPOLLERR | EPOLLHUP))
		poptcp_read(t, k);
}

/* poptcp_on_tick: attempts past their deadline failed, attempts due made;
 * the tick stops once every connection is up */
static void poptcp_on_tick(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct poptcp *t = arg;
	int64_t now = now_mono_ns();

	(void)loop;
	(void)events;
	loop_timer_read(fd);
	for (uint32_t j = 0; j < t->n && t->down > 0; j++) {
		struct poptcp_conn *k = &t->conn[j];

		if (k->state == POPTCP_CONNECTING && now >= k->due_ns)
			poptcp_fail(t, k, CLIENT_TCP_TIMEOUT);
		else if (k->state == POPTCP_WAITING && now >= k->due_ns && !t->c->draining)
			poptcp_connect(t, k);
	}
	if (t->down == 0 || t->c->draining) {
		(void)loop_timer_set(&t->tick, INT64_MAX, 0);
		t->ticking = 0;
	}
}

struct poptcp *poptcp_open(struct client *c, int http, const char *host)
{
	struct poptcp *t = calloc(1, sizeof(*t));
	int64_t deadline;

	if (t == NULL || (t->conn = calloc(c->pop->n, sizeof(*t->conn))) == NULL) {
		log_warnx("%s: out of memory for %u connections", __func__, c->pop->n);
		free(t);
		return NULL;
	}
	t->c = c;
	t->n = c->pop->n;
	t->down = t->n;
	t->http = http;
	if (http) {
		char addr[INET_ADDRSTRLEN];

		snprintf(t->host, sizeof(t->host), "%s",
			 host
			     ? host
			     : inet_ntop(AF_INET, &c->cfg.target.sin.sin_addr, addr, sizeof(addr)));
	}
	if (poptcp_fds(t->n) == -1 ||
	    loop_timer_add(c->loop, &t->tick, INT64_MAX, 0, poptcp_on_tick, t) == -1) {
		free(t->conn);
		free(t);
		return NULL;
	}
	for (uint32_t j = 0; j < t->n; j++) {
		t->conn[j].t = t;
		t->conn[j].j = j;
		t->conn[j].fd = -1;
		poptcp_connect(t, &t->conn[j]);
	}
	/* every first connection up, or its attempt over, before the first
	 * request: as one client waits for its own */
	deadline = now_mono_ns() + c->cfg.timeout_ns;
	while (now_mono_ns() < deadline) {
		uint32_t pending = 0;

		for (uint32_t j = 0; j < t->n; j++)
			pending += t->conn[j].state == POPTCP_CONNECTING;
		if (pending == 0)
			break;
		if (loop_once(c->loop, 10) == -1)
			break;
	}
	for (uint32_t j = 0; j < t->n; j++)
		if (t->conn[j].state == POPTCP_CONNECTING)
			poptcp_fail(t, &t->conn[j], CLIENT_TCP_TIMEOUT);
	log_info("population over TCP: %u of %u connections up", t->n - t->down, t->n);
	return t;
}

void poptcp_send(struct poptcp *t, uint32_t j, const struct wire_msg *m, struct client_slot *s)
{
	struct poptcp_conn *k = &t->conn[j];
	struct client *c = t->c;
	uint8_t buf[WIRE_LEN];
	ssize_t w;

	s->gen = k->gen;
	if (t->http && k->state == POPTCP_CONNECTED) {
		/* one on the wire, the others queued behind it */
		if (!k->busy) {
			if (poptcp_http_write(t, k, m->seq, (int64_t)m->sent_ns) == 0)
				return;
		} else if (k->qn < POPTCP_HTTP_QUEUE) {
			k->q[k->qn++] = m->seq;
			return;
		} else {
			t->counts.blocked++; /* its queue full */
		}
		/* else written badly: the connection given up (counted) */
	} else if (k->state == POPTCP_CONNECTED) {
		wire_encode(m, buf, sizeof(buf));
		do
			w = send(k->fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_NOSIGNAL);
		while (w == -1 && errno == EINTR);
		if (w == (ssize_t)sizeof(buf))
			return;
		if (w == -1 && errno != EAGAIN && errno != EWOULDBLOCK) {
			poptcp_fail(t, k, client_tcp_cause_of(errno));
			t->counts.unconnected++;
		} else {
			/* the site takes nothing more, or half of this: the
			 * stream is lost either way */
			t->counts.blocked++;
			if (w > 0)
				poptcp_fail(t, k, CLIENT_TCP_OTHER);
		}
	} else {
		t->counts.unconnected++;
	}
	c->stats.errors++;
	client_record(c, s, CLIENT_ERROR, NULL, 0);
	client_ring_resolve(&c->ring, s);
}

void poptcp_expired(struct poptcp *t, const struct client_slot *s)
{
	uint32_t j = s->client - t->c->pop->base;
	struct poptcp_conn *k;

	if (j >= t->n)
		return;
	k = &t->conn[j];
	if (k->state == POPTCP_CONNECTED && k->gen == s->gen)
		poptcp_fail(t, k, CLIENT_TCP_STALLED);
}

void poptcp_sweep(struct poptcp *t)
{
	struct client *c = t->c;
	struct client_ring *r = &c->ring;

	if (!t->stale)
		return;
	t->stale = 0;
	for (uint64_t seq = r->tail; seq < r->head; seq++) {
		struct client_slot *s = &r->slots[seq & r->mask];
		uint32_t j = s->client - c->pop->base;

		if (s->state != CLIENT_SLOT_PENDING || s->seq != seq || j >= t->n ||
		    t->conn[j].gen == s->gen)
			continue;
		c->stats.errors++;
		client_record(c, s, CLIENT_ERROR, NULL, 0);
		client_ring_resolve(r, s);
	}
}

const struct client_tcp_counts *poptcp_counts(const struct poptcp *t)
{
	return &t->counts;
}

void poptcp_close(struct poptcp *t)
{
	if (t == NULL)
		return;
	for (uint32_t j = 0; j < t->n; j++) {
		if (t->conn[j].fd != -1) {
			loop_del(t->c->loop, &t->conn[j].h);
			close(t->conn[j].fd);
		}
		free(t->conn[j].hrx);
	}
	loop_timer_del(t->c->loop, &t->tick);
	free(t->conn);
	free(t);
}
