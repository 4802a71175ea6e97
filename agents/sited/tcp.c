/* sited over TCP: listener, connections, request stream; see tcp.h. */
#include "tcp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "timeutil.h"

#define SITED_TCP_READS 16   /* reads per event, so other sockets get a turn */
#define SITED_TCP_ACCEPTS 64 /* accepts per event, likewise */

static void sited_tcp_free(struct loop_handler *h)
{
	struct sited_tcp_conn *c = (struct sited_tcp_conn *)h;

	free(c->out);
	free(c);
}

/* sited_tcp_end: closes c, counted in *why (NULL: not counted, at exit);
 * c is freed after the event being handled. */
static void sited_tcp_end(struct sited_tcp_conn *c, uint64_t *why)
{
	struct sited_tcp *t = c->tcp;

	if (c->fd == -1)
		return;
	loop_del(t->loop, &c->h);
	close(c->fd);
	c->fd = -1;
	TAILQ_REMOVE(&t->conns, c, entry);
	/* its replies held by slowness go nowhere now */
	if (t->srv->slow)
		sited_slow_forget(t->srv->slow, c);
	if (why) {
		(*why)++;
		t->counts.open--;
	}
	loop_del_finalize(t->loop, &c->h, sited_tcp_free);
}

/* sited_tcp_failed: closes c after a socket error err, counted by it. */
static void sited_tcp_failed(struct sited_tcp_conn *c, int err, const char *call)
{
	struct sited_tcp_counts *n = &c->tcp->counts;

	if (err == ECONNRESET || err == EPIPE) {
		sited_tcp_end(c, &n->reset);
		return;
	}
	log_debug("%s: %s: %s", __func__, call, strerror(err));
	sited_tcp_end(c, &n->aborted);
}

/* sited_tcp_taken: the kernel took n more bytes of c's replies */
static void sited_tcp_taken(struct sited_tcp_conn *c, size_t n)
{
	c->tcp->counts.replies += (c->out_part + n) / WIRE_LEN;
	c->out_part = (c->out_part + n) % WIRE_LEN;
}

/* sited_tcp_watch: EPOLLIN until the peer closed, EPOLLOUT while replies
 * wait. 0, or -1 (c is closed). */
static int sited_tcp_watch(struct sited_tcp_conn *c)
{
	uint32_t ev = (c->eof ? 0 : EPOLLIN) | (c->out_len > c->out_off ? EPOLLOUT : 0);

	if (loop_mod(c->tcp->loop, &c->h, ev) == -1) {
		log_warn("%s: loop_mod", __func__);
		sited_tcp_end(c, &c->tcp->counts.aborted);
		return -1;
	}
	return 0;
}

/* sited_tcp_flush: writes what the kernel takes of the replies kept. 0, or
 * -1 (c is closed). */
static int sited_tcp_flush(struct sited_tcp_conn *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n == -1) {
			sited_tcp_failed(c, errno, "send");
			return -1;
		}
		sited_tcp_taken(c, (size_t)n);
		c->out_off += (size_t)n;
	}
	/* written out: the buffer goes, a slow reader is the exception */
	free(c->out);
	c->out = NULL;
	c->out_len = c->out_off = c->out_cap = 0;
	return 0;
}

/* sited_tcp_keep: appends len bytes of replies to those c keeps. 0, or -1
 * (c is closed: more than SITED_TCP_OUT_MAX, or out of memory). */
static int sited_tcp_keep(struct sited_tcp_conn *c, const uint8_t *buf, size_t len)
{
	size_t have = c->out_len - c->out_off;

	if (have + len > SITED_TCP_OUT_MAX) {
		log_debug("%s: %zu reply bytes unsent: closing", __func__, have + len);
		sited_tcp_end(c, &c->tcp->counts.aborted);
		return -1;
	}
	if (c->out_off > 0) {
		memmove(c->out, c->out + c->out_off, have);
		c->out_off = 0;
		c->out_len = have;
	}
	if (have + len > c->out_cap) {
		size_t cap = c->out_cap ? c->out_cap : 4096;
		uint8_t *o;

		while (cap < have + len)
			cap *= 2;
		if ((o = realloc(c->out, cap)) == NULL) {
			log_warn("%s: realloc", __func__);
			sited_tcp_end(c, &c->tcp->counts.aborted);
			return -1;
		}
		c->out = o;
		c->out_cap = cap;
	}
	memcpy(c->out + c->out_len, buf, len);
	c->out_len += len;
	return 0;
}

/* sited_tcp_send: the replies to one read, len bytes: one send, what the
 * kernel does not take kept behind those already waiting. 0, or -1 (c is
 * closed). */
static int sited_tcp_send(struct sited_tcp_conn *c, const uint8_t *buf, size_t len)
{
	ssize_t n;

	if (c->out_len > c->out_off) {
		if (sited_tcp_keep(c, buf, len) == -1)
			return -1;
		return sited_tcp_flush(c);
	}
	do
		n = send(c->fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
	while (n == -1 && errno == EINTR);
	if (n == -1 && errno != EAGAIN && errno != EWOULDBLOCK) {
		sited_tcp_failed(c, errno, "send");
		return -1;
	}
	if (n < 0)
		n = 0;
	sited_tcp_taken(c, (size_t)n);
	if ((size_t)n == len)
		return 0;
	return sited_tcp_keep(c, buf + n, len - (size_t)n);
}

/* sited_tcp_answer: answers the whole requests of t->rx (have bytes, c's
 * kept start first) and keeps the start of the next. 0, or -1 (c is
 * closed: a message that was not a request, or a send). */
static int sited_tcp_answer(struct sited_tcp_conn *c, size_t have)
{
	struct sited_tcp *t = c->tcp;
	uint16_t flags = t->srv->draining ? WIRE_F_DRAINING : 0;
	int64_t slow = t->srv->slow_ns, now = slow > 0 ? now_mono_ns() : 0;
	size_t off = 0, out = 0;
	int bad = 0;

	for (; have - off >= WIRE_LEN; off += WIRE_LEN) {
		if (sited_reply_build(t->rx + off, WIRE_LEN, t->srv->site, flags, t->tx + out,
				      WIRE_LEN) == -1) {
			t->counts.bad++;
			bad = 1;
			break;
		}
		t->counts.requests++;
		if (t->srv->degraded) { /* read, and left unanswered */
			t->counts.degraded_dropped++;
		} else if (slow > 0) { /* held, and sent in order later */
			struct sited_slow_item it = {.due_ns = now + slow, .fd = -1, .conn = c};

			memcpy(it.msg, t->tx + out, WIRE_LEN);
			(void)sited_slow_push(t->srv->slow, &it);
		} else {
			out += WIRE_LEN;
		}
	}
	if (!bad) {
		c->in_len = have - off;
		memcpy(c->in, t->rx + off, c->in_len);
	}
	/* the requests before a bad message are answered */
	if (out > 0 && sited_tcp_send(c, t->tx, out) == -1)
		return -1;
	if (bad) {
		sited_tcp_end(c, &t->counts.aborted);
		return -1;
	}
	return 0;
}

/* sited_tcp_read: reads and answers. 0, or -1 (c is closed). */
static int sited_tcp_read(struct sited_tcp_conn *c)
{
	struct sited_tcp *t = c->tcp;

	for (int i = 0; i < SITED_TCP_READS && !c->eof; i++) {
		ssize_t n;

		memcpy(t->rx, c->in, c->in_len);
		n = recv(c->fd, t->rx + c->in_len, SITED_TCP_RX, MSG_DONTWAIT);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n == -1) {
			sited_tcp_failed(c, errno, "recv");
			return -1;
		}
		if (n == 0) {
			c->eof = 1; /* a request cut by the close is dropped */
			return 0;
		}
		if (sited_tcp_answer(c, c->in_len + (size_t)n) == -1)
			return -1;
		if (n < SITED_TCP_RX) /* the queue is read: no read for EAGAIN */
			return 0;
	}
	return 0;
}

static void sited_tcp_on_conn(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct sited_tcp_conn *c = arg;

	(void)loop, (void)fd;
	/* an error on a connection waiting to write is the send's to say */
	if ((events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) && c->out_len > c->out_off &&
	    sited_tcp_flush(c) == -1)
		return;
	if ((events & (EPOLLIN | EPOLLERR | EPOLLHUP)) && !c->eof && sited_tcp_read(c) == -1)
		return;
	if (c->eof && c->out_len == c->out_off) {
		sited_tcp_end(c, &c->tcp->counts.closed);
		return;
	}
	sited_tcp_watch(c);
}

/* sited_tcp_shed: the descriptors ran out with a connection waiting on
 * the listener lfd: the spare one makes room to accept and close it. 0, or
 * -1 if none could. */
static int sited_tcp_shed(struct sited_tcp *t, int lfd)
{
	int fd;

	if (t->spare == -1)
		return -1;
	close(t->spare);
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd != -1) {
		close(fd);
		t->counts.refused++;
	}
	t->spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
	return fd == -1 ? -1 : 0;
}

static void sited_tcp_on_accept(struct loop *loop, int lfd, uint32_t events, void *arg)
{
	struct sited_tcp *t = arg;
	int one = 1;

	(void)events;
	for (int i = 0; i < SITED_TCP_ACCEPTS; i++) {
		struct sited_tcp_conn *c;
		int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd == -1 && (errno == EINTR || errno == ECONNABORTED))
			continue;
		if (fd == -1 && (errno == EMFILE || errno == ENFILE) && sited_tcp_shed(t, lfd) == 0)
			continue;
		if (fd == -1) {
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				log_warn("%s: accept", __func__);
			return;
		}
		if (t->counts.open >= t->max_conns || (c = calloc(1, sizeof(*c))) == NULL) {
			close(fd);
			t->counts.refused++;
			continue;
		}
		/* a reply is one small segment: not held back for the next */
		if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) == -1)
			log_warn("%s: setsockopt TCP_NODELAY", __func__);
		c->tcp = t;
		c->fd = fd;
		if (loop_add(loop, &c->h, fd, EPOLLIN, sited_tcp_on_conn, c) == -1) {
			log_warn("%s: loop_add", __func__);
			close(fd);
			free(c);
			t->counts.refused++;
			continue;
		}
		TAILQ_INSERT_TAIL(&t->conns, c, entry);
		t->counts.accepted++;
		t->counts.open++;
	}
}

int sited_tcp_open(struct sited_tcp *t, struct loop *loop, const struct sited_server *srv,
		   union sited_addr addr, unsigned max_conns)
{
	int fds[SITED_LISTENERS], no_ipv6 = srv->no_ipv6;

	memset(t, 0, sizeof(*t));
	t->loop = loop;
	t->srv = srv;
	t->max_conns = max_conns;
	t->fd = t->fd6 = t->spare = -1;
	TAILQ_INIT(&t->conns);
	if (sited_listen(addr, SOCK_STREAM, 0, SITED_TCP_BACKLOG, fds, &no_ipv6) == -1)
		return -1;
	t->fd = fds[0];
	t->fd6 = fds[1];
	if ((t->spare = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1) {
		log_warn("%s: open /dev/null", __func__);
		goto fail;
	}
	/* one handler a listener, both the same */
	if (loop_add(loop, &t->h, t->fd, EPOLLIN, sited_tcp_on_accept, t) == -1 ||
	    (t->fd6 != -1 &&
	     loop_add(loop, &t->h6, t->fd6, EPOLLIN, sited_tcp_on_accept, t) == -1)) {
		log_warn("%s: loop_add", __func__);
		goto fail;
	}
	return 0;
fail:
	sited_tcp_close(t);
	return -1;
}

void sited_tcp_deliver(struct sited_tcp_conn *c, const uint8_t *msg)
{
	if (c->fd == -1)
		return;
	/* a connection that ends on it is closed and counted by the send */
	if (sited_tcp_send(c, msg, WIRE_LEN) == 0)
		sited_tcp_watch(c);
}

uint16_t sited_tcp_port(const struct sited_tcp *t)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (t->fd == -1 || getsockname(t->fd, (struct sockaddr *)&ss, &len) == -1)
		return 0;
	return ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
					      : ((struct sockaddr_in *)&ss)->sin_port);
}

void sited_tcp_close(struct sited_tcp *t)
{
	while (!TAILQ_EMPTY(&t->conns))
		sited_tcp_end(TAILQ_FIRST(&t->conns), NULL);
	if (t->fd != -1) {
		loop_del(t->loop, &t->h);
		close(t->fd);
	}
	if (t->fd6 != -1) {
		loop_del(t->loop, &t->h6);
		close(t->fd6);
	}
	if (t->spare != -1)
		close(t->spare);
	t->fd = t->fd6 = t->spare = -1;
}
