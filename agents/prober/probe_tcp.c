/* The prober's tcp check: a connection established, then aborted; see probe.h. */
#include "probe.h"

#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "timeutil.h"

int prober_tcp_open(struct prober_probe *p, const struct sockaddr *target, const char *site)
{
	if (prober_probe_init(p, target, site) == -1)
		return -1;
	if ((p->fd = epoll_create1(EPOLL_CLOEXEC)) == -1) {
		log_warn("%s: epoll_create1", __func__);
		return -1;
	}
	return 0;
}

/* prober_tcp_abort: closes the connection in flight with an RST (or, not
 * yet connected, at once): nothing left in TIME_WAIT */
static void prober_tcp_abort(struct prober_probe *p)
{
	if (p->conn == -1)
		return;
	close(p->conn); /* leaves p->fd's interest list with it */
	p->conn = -1;
}

int prober_tcp_send(struct prober_probe *p, int64_t timeout_ns)
{
	struct linger abort_on_close = {.l_onoff = 1, .l_linger = 0};
	struct epoll_event ev = {.events = EPOLLOUT};
	int err;

	prober_tcp_abort(p);
	p->seq++;
	p->in_flight = 1;
	p->sent = now_mono_ns();
	p->deadline = p->sent + (p->connect_timeout_ns > 0 ? p->connect_timeout_ns : timeout_ns);
	p->conn = socket(p->target.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (p->conn == -1)
		return -1;
	if (setsockopt(p->conn, SOL_SOCKET, SO_LINGER, &abort_on_close, sizeof(abort_on_close)) ==
		-1 ||
	    (connect(p->conn, (const struct sockaddr *)&p->target, p->target_len) == -1 &&
	     errno != EINPROGRESS) ||
	    epoll_ctl(p->fd, EPOLL_CTL_ADD, p->conn, &ev) == -1) {
		err = errno;
		prober_tcp_abort(p);
		errno = err;
		return -1;
	}
	return 0;
}

int prober_tcp_read(struct prober_probe *p)
{
	struct epoll_event ev;
	int err = 0, n;
	socklen_t len = sizeof(err);

	if ((n = epoll_wait(p->fd, &ev, 1, 0)) == -1)
		return -1;
	if (n == 0 || p->conn == -1) {
		errno = EAGAIN;
		return -1;
	}
	if (getsockopt(p->conn, SOL_SOCKET, SO_ERROR, &err, &len) == -1)
		err = errno;
	else if (err == 0 && (ev.events & (EPOLLERR | EPOLLHUP)))
		err = ECONNRESET; /* an error without its number: not a connection */
	prober_tcp_abort(p);
	if (err != 0) {
		errno = err;
		return -1;
	}
	return PROBER_REPLY_OK;
}

void prober_tcp_close(struct prober_probe *p)
{
	prober_tcp_abort(p);
	if (p->fd != -1)
		close(p->fd);
	p->fd = -1;
}

const struct prober_check prober_check_tcp = {"tcp", prober_tcp_open, prober_tcp_send,
					      prober_tcp_read, prober_tcp_close};
