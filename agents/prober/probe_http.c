/* The prober's http check: a GET answered 200 in the site's name; see probe.h. */
#include "probe.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "httpwire.h"
#include "log.h"
#include "strfmt.h"
#include "timeutil.h"

enum prober_reply prober_http_check(const uint8_t *head, size_t len, uint64_t seq, const char *site)
{
	struct wire_msg m;
	int status = httpwire_status(head, len);

	if (status == -1)
		return PROBER_REPLY_BAD;
	if (status != HTTPWIRE_OK)
		return PROBER_REPLY_UNAVAILABLE;
	if (httpwire_reply_decode(head, len, &m) == -1 || m.client_id != PROBER_CLIENT_ID)
		return PROBER_REPLY_BAD;
	if (m.seq != seq)
		return PROBER_REPLY_STALE;
	if (strcmp(m.site, site) != 0)
		return PROBER_REPLY_WRONG_SITE;
	if (m.flags & WIRE_F_DRAINING)
		return PROBER_REPLY_DRAINING;
	return PROBER_REPLY_OK;
}

/* prober_http_length: the Content-Length of the head (its first len bytes,
 * the blank line included), or -1 if it gives none */
static long prober_http_length(const char *head, size_t len)
{
	static const char name[] = "\r\ncontent-length:";

	for (size_t i = 0; i + sizeof(name) - 1 <= len; i++) {
		char *end;
		long n;

		if (strncasecmp(head + i, name, sizeof(name) - 1) != 0)
			continue;
		n = strtol(head + i + sizeof(name) - 1, &end, 10);
		return end == head + i + sizeof(name) - 1 || n < 0 ? -1 : n;
	}
	return -1;
}

enum prober_reply prober_http_match(const uint8_t *resp, size_t len, int status, const char *body,
				    int *more)
{
	const char *text = (const char *)resp, *end;
	size_t head, have, want;
	long length;
	int got = httpwire_status(resp, len);

	*more = 0;
	if (got == -1 || (end = memmem(text, len, "\r\n\r\n", 4)) == NULL)
		return PROBER_REPLY_BAD;
	if (got != status)
		return PROBER_REPLY_UNAVAILABLE;
	if (body == NULL)
		return PROBER_REPLY_OK;
	head = (size_t)(end - text) + 4;
	have = len - head;
	length = prober_http_length(text, head);
	want = length < 0 || length > PROBER_HTTP_BODY_MAX ? PROBER_HTTP_BODY_MAX : (size_t)length;
	if (have > want)
		have = want;
	if (memmem(text + head, have, body, strlen(body)) != NULL)
		return PROBER_REPLY_OK;
	*more = have < want;
	return PROBER_REPLY_UNAVAILABLE;
}

/* prober_http_abort: closes the connection in flight with an RST */
static void prober_http_abort(struct prober_probe *p)
{
	if (p->conn == -1)
		return;
	close(p->conn); /* leaves p->fd's interest list with it */
	p->conn = -1;
}

/* prober_http_request: the GET of the probe in flight, written at once
 * (a few dozen bytes: the socket takes them whole). 0 or -1 (errno). */
static int prober_http_request(struct prober_probe *p)
{
	struct wire_msg m = {.type = WIRE_REQUEST, .client_id = PROBER_CLIENT_ID};
	struct epoll_event ev = {.events = EPOLLIN};
	char path[HTTPWIRE_PATH_MAX + 1], req[HTTPWIRE_PATH_MAX + 128];
	size_t n;

	m.seq = p->seq;
	m.sent_ns = (uint64_t)now_real_ns();
	if (p->http_path)
		snprintf(path, sizeof(path), "%s", p->http_path);
	if ((p->http_path == NULL && httpwire_path(&m, path, sizeof(path)) == -1) ||
	    strfmt(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", path, p->site) == -1) {
		errno = EINVAL;
		return -1;
	}
	n = strlen(req);
	if (send(p->conn, req, n, MSG_NOSIGNAL) != (ssize_t)n)
		return -1;
	p->http_sent = 1;
	/* connected: the response has its own time from now */
	if (p->connect_timeout_ns > 0)
		p->deadline = now_mono_ns() + p->response_timeout_ns;
	return epoll_ctl(p->fd, EPOLL_CTL_MOD, p->conn, &ev);
}

int prober_http_send(struct prober_probe *p, int64_t timeout_ns)
{
	struct linger abort_on_close = {.l_onoff = 1, .l_linger = 0};
	struct epoll_event ev = {.events = EPOLLOUT};
	int one = 1, err;

	prober_http_abort(p);
	p->seq++;
	p->in_flight = 1;
	p->sent = now_mono_ns();
	p->deadline = p->sent + (p->connect_timeout_ns > 0 ? p->connect_timeout_ns : timeout_ns);
	p->response_timeout_ns = timeout_ns;
	p->http_sent = 0;
	p->http_len = 0;
	p->conn = socket(p->target.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (p->conn == -1)
		return -1;
	if (setsockopt(p->conn, SOL_SOCKET, SO_LINGER, &abort_on_close, sizeof(abort_on_close)) ==
		-1 ||
	    setsockopt(p->conn, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) == -1 ||
	    (connect(p->conn, (const struct sockaddr *)&p->target, p->target_len) == -1 &&
	     errno != EINPROGRESS) ||
	    epoll_ctl(p->fd, EPOLL_CTL_ADD, p->conn, &ev) == -1) {
		err = errno;
		prober_http_abort(p);
		errno = err;
		return -1;
	}
	return 0;
}

/* prober_http_fail: the probe over, for err */
static int prober_http_fail(struct prober_probe *p, int err)
{
	prober_http_abort(p);
	errno = err;
	return -1;
}

int prober_http_read(struct prober_probe *p)
{
	struct epoll_event ev;
	int err = 0, n, r;
	socklen_t len = sizeof(err);
	ssize_t got;

	if ((n = epoll_wait(p->fd, &ev, 1, 0)) == -1)
		return -1;
	if (n == 0 || p->conn == -1) {
		errno = EAGAIN;
		return -1;
	}
	if (!p->http_sent) {
		if (getsockopt(p->conn, SOL_SOCKET, SO_ERROR, &err, &len) == -1)
			err = errno;
		else if (err == 0 && (ev.events & (EPOLLERR | EPOLLHUP)))
			err = ECONNRESET;
		if (err != 0)
			return prober_http_fail(p, err);
		if (prober_http_request(p) == -1)
			return prober_http_fail(p, errno);
		errno = EAGAIN;
		return -1;
	}
	got = recv(p->conn, p->http_head + p->http_len, sizeof(p->http_head) - 1 - p->http_len,
		   MSG_DONTWAIT);
	if (got == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return -1;
	if (got == -1)
		return prober_http_fail(p, errno);
	if (got == 0 && (p->http_path == NULL || p->http_len == 0))
		return prober_http_fail(p, ECONNRESET); /* closed before a whole head */
	p->http_len += (size_t)got;
	p->http_head[p->http_len] = '\0';
	if (memmem(p->http_head, p->http_len, "\r\n\r\n", 4) == NULL) {
		if (got == 0)
			return prober_http_fail(p, ECONNRESET);
		if (p->http_len == sizeof(p->http_head) - 1)
			return prober_http_fail(p, EMSGSIZE);
		errno = EAGAIN;
		return -1;
	}
	if (p->http_path) {
		int more;

		r = (int)prober_http_match(p->http_head, p->http_len, p->http_status, p->http_body,
					   &more);
		/* the body still coming, while the string is not in it yet */
		if (more && got > 0 && p->http_len < sizeof(p->http_head) - 1) {
			errno = EAGAIN;
			return -1;
		}
	} else {
		r = (int)prober_http_check(p->http_head, p->http_len, p->seq, p->site);
	}
	prober_http_abort(p);
	return r;
}

const struct prober_check prober_check_http = {"http", prober_tcp_open, prober_http_send,
					       prober_http_read, prober_tcp_close};
