/* DNS over TCP: framing, pipelining, write queue, idle, cap; see dnstcp.h. */
#include "dnstcp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "timeutil.h"

#define DNSTCP_IN_FIRST 1024
#define DNSTCP_READS 16 /* reads per event, so other sockets get a turn */

static int64_t dnstcp_now(const struct dnstcp_server *s)
{
	return s->conf.clock ? s->conf.clock() : now_mono_ns();
}

static void dnstcp_active(struct dnstcp_conn *c)
{
	struct dnstcp_server *s = c->srv;

	c->active = dnstcp_now(s);
	if (TAILQ_LAST(&s->conns, dnstcp_conns) != c) {
		TAILQ_REMOVE(&s->conns, c, entry);
		TAILQ_INSERT_TAIL(&s->conns, c, entry);
	}
}

static void dnstcp_free(struct loop_handler *h)
{
	struct dnstcp_conn *c = (struct dnstcp_conn *)h;

	free(c->in);
	free(c->out);
	free(c);
}

void dnstcp_conn_close(struct dnstcp_conn *c)
{
	struct dnstcp_server *s = c->srv;

	if (c->fd == -1)
		return;
	loop_del(s->loop, &c->h);
	if (s->by_fd)
		s->by_fd[c->fd] = NULL;
	close(c->fd);
	c->fd = -1;
	TAILQ_REMOVE(&s->conns, c, entry);
	s->nconns--;
	loop_del_finalize(s->loop, &c->h, dnstcp_free);
}

/* dnstcp_watch: EPOLLOUT while answers wait; EPOLLIN unless the peer has
 * closed or (out_max 0) answers wait. 0, or -1 (c is closed). */
static int dnstcp_watch(struct dnstcp_conn *c)
{
	int pending = c->out_off < c->out_len;
	uint32_t ev = pending ? EPOLLOUT : 0;

	if (!c->eof && (c->srv->conf.out_max > 0 || !pending))
		ev |= EPOLLIN;
	if (loop_mod(c->srv->loop, &c->h, ev) == -1) {
		dnstcp_conn_close(c);
		return -1;
	}
	return 0;
}

/* dnstcp_flush: writes what the socket takes. 0, or -1 (c is closed). */
static int dnstcp_flush(struct dnstcp_conn *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n > 0) {
			c->out_off += (size_t)n;
			continue;
		}
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		dnstcp_conn_close(c);
		return -1;
	}
	if (c->out_off == c->out_len)
		c->out_off = c->out_len = 0;
	return 0;
}

int dnstcp_send(struct dnstcp_conn *c, const uint8_t *msg, size_t len)
{
	struct dnstcp_server *s = c->srv;
	size_t need;

	if (c->fd == -1)
		return -1;
	if (c->out_off > 0 && c->out_off == c->out_len)
		c->out_off = c->out_len = 0;
	need = c->out_len + 2 + len;
	if (s->conf.out_max > 0 && need - c->out_off > s->conf.out_max) {
		s->counts.slow_closed++;
		dnstcp_conn_close(c);
		return -1;
	}
	if (need > c->out_cap) {
		size_t cap = need < 4096 ? 4096 : need * 2;
		uint8_t *o = realloc(c->out, cap);

		if (o == NULL) {
			dnstcp_conn_close(c);
			return -1;
		}
		c->out = o;
		c->out_cap = cap;
	}
	dnstcp_put_len(c->out + c->out_len, len);
	memcpy(c->out + c->out_len + 2, msg, len);
	c->out_len += 2 + len;
	s->counts.answers++;
	dnstcp_active(c);
	if (dnstcp_flush(c) == -1)
		return -1;
	return dnstcp_watch(c);
}

/* dnstcp_paused: out_max 0 and an answer waits: nothing more is read or
 * handed over until it is written. */
static int dnstcp_paused(const struct dnstcp_conn *c)
{
	return c->srv->conf.out_max == 0 && c->out_off < c->out_len;
}

/* dnstcp_messages: hands every whole message read to the callback, in
 * order; with out_max 0, stops while an answer waits. */
static void dnstcp_messages(struct dnstcp_conn *c)
{
	struct dnstcp_server *s = c->srv;
	size_t off = 0;

	while (c->fd != -1 && c->in_len - off >= 2) {
		size_t whole = dnstcp_framed(c->in + off, c->in_len - off);

		if (dnstcp_paused(c))
			break;
		if (whole == 2) {
			dnstcp_conn_close(c); /* a zero-length message */
			return;
		}
		if (c->in_len - off < whole)
			break;
		s->counts.messages++;
		dnstcp_active(c);
		s->conf.message(c->listener->arg, c, c->in + off + 2, whole - 2);
		off += whole;
	}
	if (c->fd != -1 && off) {
		memmove(c->in, c->in + off, c->in_len - off);
		c->in_len -= off;
	}
}

/* dnstcp_read: reads and answers. 0, or -1 (c is closed). */
static int dnstcp_read(struct dnstcp_conn *c)
{
	for (int i = 0; i < DNSTCP_READS && c->fd != -1 && !c->eof; i++) {
		/* room for the message whose length is known, or a start */
		size_t need = c->in_len + DNSTCP_IN_FIRST, whole = dnstcp_framed(c->in, c->in_len);
		ssize_t n;

		if (whole > need)
			need = whole;
		if (need > c->in_cap) {
			uint8_t *b = realloc(c->in, need);

			if (b == NULL) {
				dnstcp_conn_close(c);
				return -1;
			}
			c->in = b;
			c->in_cap = need;
		}
		n = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, MSG_DONTWAIT);
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			dnstcp_conn_close(c);
			return -1;
		}
		if (n == 0) {
			c->eof = 1; /* what is whole is answered; a cut message is not */
			break;
		}
		c->in_len += (size_t)n;
		dnstcp_messages(c);
		if (dnstcp_paused(c))
			break;
	}
	return c->fd == -1 ? -1 : 0;
}

static void dnstcp_conn_event(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct dnstcp_conn *c = arg;

	(void)loop, (void)fd;
	if (events & EPOLLOUT) {
		if (dnstcp_flush(c) == -1)
			return;
		dnstcp_active(c); /* a reader, however slow, is not idle */
	}
	/* written out: what was read while waiting is answered first */
	if (!dnstcp_paused(c))
		dnstcp_messages(c);
	if (c->fd == -1)
		return;
	if ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) && !dnstcp_paused(c) && dnstcp_read(c) == -1)
		return;
	if (c->eof && c->out_off == c->out_len) {
		dnstcp_conn_close(c);
		return;
	}
	dnstcp_watch(c);
}

static void dnstcp_accept(struct loop *loop, int lfd, uint32_t events, void *arg)
{
	struct dnstcp_listener *l = arg;
	struct dnstcp_server *s = l->srv;

	(void)loop, (void)events;
	for (int i = 0; i < 64; i++) {
		struct sockaddr_storage peer;
		socklen_t plen = sizeof(peer);
		struct dnstcp_conn *c;
		int fd =
		    accept4(lfd, (struct sockaddr *)&peer, &plen, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd == -1) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
			    errno != ECONNABORTED)
				log_warn("dnstcp_accept: accept");
			return;
		}
		if (s->nconns >= s->conf.max_conns && s->conf.cap == DNSTCP_CAP_EVICT &&
		    !TAILQ_EMPTY(&s->conns)) {
			s->counts.evicted++;
			dnstcp_conn_close(TAILQ_FIRST(&s->conns));
		}
		if (s->nconns >= s->conf.max_conns || (s->by_fd && fd >= s->conf.nfd) ||
		    (c = calloc(1, sizeof(*c))) == NULL) {
			s->counts.rejected++;
			close(fd);
			continue;
		}
		c->srv = s;
		c->listener = l;
		c->fd = fd;
		c->peer = peer;
		c->serial = ++s->serial;
		c->active = dnstcp_now(s);
		if (loop_add(s->loop, &c->h, fd, EPOLLIN, dnstcp_conn_event, c) == -1) {
			log_warn("dnstcp_accept: loop_add");
			close(fd);
			free(c);
			continue;
		}
		if (s->by_fd)
			s->by_fd[fd] = c;
		TAILQ_INSERT_TAIL(&s->conns, c, entry);
		s->nconns++;
		s->counts.accepted++;
	}
}

int dnstcp_open(struct dnstcp_server *s, struct loop *loop, const struct dnstcp_conf *conf)
{
	memset(s, 0, sizeof(*s));
	s->loop = loop;
	s->conf = *conf;
	TAILQ_INIT(&s->conns);
	if (conf->nfd > 0 && (s->by_fd = calloc((size_t)conf->nfd, sizeof(*s->by_fd))) == NULL)
		return -1;
	return 0;
}

int dnstcp_listen(struct dnstcp_server *s, struct dnstcp_listener *l, int fd, void *arg)
{
	l->srv = s;
	l->fd = fd;
	l->arg = arg;
	return loop_add(s->loop, &l->h, fd, EPOLLIN, dnstcp_accept, l);
}

void dnstcp_unlisten(struct dnstcp_listener *l)
{
	if (l->srv)
		loop_del(l->srv->loop, &l->h);
}

void dnstcp_close_all(struct dnstcp_server *s)
{
	while (!TAILQ_EMPTY(&s->conns))
		dnstcp_conn_close(TAILQ_FIRST(&s->conns));
	free(s->by_fd);
	s->by_fd = NULL;
}

struct dnstcp_ref dnstcp_ref(const struct dnstcp_conn *c)
{
	return (struct dnstcp_ref){.fd = c->fd, .serial = c->serial};
}

struct dnstcp_conn *dnstcp_find(struct dnstcp_server *s, struct dnstcp_ref ref)
{
	struct dnstcp_conn *c;

	if (s->by_fd == NULL || ref.fd < 0 || ref.fd >= s->conf.nfd)
		return NULL;
	c = s->by_fd[ref.fd];
	return c && c->serial == ref.serial ? c : NULL;
}

void dnstcp_idle(struct dnstcp_server *s)
{
	int64_t before = dnstcp_now(s) - s->conf.idle_ns;
	struct dnstcp_conn *c;

	while ((c = TAILQ_FIRST(&s->conns)) != NULL && c->active < before) {
		s->counts.idle_closed++;
		dnstcp_conn_close(c);
	}
}
