/* sited's HTTP/1.1 service through libmicrohttpd; see http.h. */
#include "http.h"

#include <microhttpd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "state.h"
#include "strfmt.h"
#include "timeutil.h"

void sited_http_answer(const struct sited_server *srv, const char *method, const char *url,
		       struct sited_http_reply *r, struct sited_http_counts *counts)
{
	struct wire_msg m;

	r->header[0] = '\0';
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0) {
		counts->bad++;
		r->status = MHD_HTTP_METHOD_NOT_ALLOWED;
		r->body = "GET only\n";
		return;
	}
	if (httpwire_path_decode(url, strlen(url), &m) == -1) {
		counts->other++;
		r->status = srv->degraded ? MHD_HTTP_SERVICE_UNAVAILABLE : MHD_HTTP_OK;
		r->body = srv->degraded ? "degraded\n" : "ok\n";
		return;
	}
	counts->requests++;
	m.type = WIRE_REPLY;
	m.flags = srv->draining ? WIRE_F_DRAINING : 0;
	memcpy(m.site, srv->site, sizeof(m.site));
	(void)httpwire_value(&m, r->header, sizeof(r->header));
	if (srv->degraded) {
		counts->unavailable++;
		r->status = MHD_HTTP_SERVICE_UNAVAILABLE;
		r->body = "degraded\n";
		return;
	}
	counts->replies++;
	r->status = MHD_HTTP_OK;
	r->body = "ok\n";
}

static void sited_http_tick(struct sited_http *h);
static void sited_http_run(struct sited_http *h);

static enum MHD_Result sited_http_on_request(void *cls, struct MHD_Connection *conn,
					     const char *url, const char *method,
					     const char *version, const char *upload_data,
					     size_t *upload_data_size, void **req_cls)
{
	struct sited_http *h = cls;
	struct sited_http_reply r;
	struct MHD_Response *resp;
	enum MHD_Result rc;

	struct sited_http_req *q = *req_cls;

	(void)version;
	(void)upload_data;
	/* answered once the whole request is in: a response queued at the
	 * first call, before libmicrohttpd knows there is no body, closes the
	 * connection (no keep-alive) */
	if (q == NULL) {
		if ((q = calloc(1, sizeof(*q))) == NULL)
			return MHD_NO;
		q->conn = conn;
		*req_cls = q;
		return MHD_YES;
	}
	if (*upload_data_size != 0) {
		*upload_data_size = 0; /* a body is read and ignored */
		return MHD_YES;
	}
	/* slow: held, and answered when resumed (slow.h's HTTP side) */
	if (h->srv->slow_ns > 0 && !q->held) {
		q->held = 1;
		q->due_ns = now_mono_ns() + h->srv->slow_ns;
		TAILQ_INSERT_TAIL(&h->held, q, entry);
		MHD_suspend_connection(conn);
		sited_http_tick(h);
		return MHD_YES;
	}
	sited_http_answer(h->srv, method, url, &r, &h->counts);
	resp =
	    MHD_create_response_from_buffer(strlen(r.body), (void *)r.body, MHD_RESPMEM_PERSISTENT);
	if (resp == NULL)
		return MHD_NO;
	/* added first: right after the Date libmicrohttpd writes */
	if ((r.header[0] && MHD_add_response_header(resp, HTTPWIRE_HEADER, r.header) == MHD_NO) ||
	    MHD_add_response_header(resp, MHD_HTTP_HEADER_SERVER, h->product) == MHD_NO ||
	    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain") == MHD_NO) {
		MHD_destroy_response(resp);
		return MHD_NO;
	}
	rc = MHD_queue_response(conn, r.status, resp);
	MHD_destroy_response(resp);
	return rc;
}

/* sited_http_on_done: a request's life over: its context freed (out of
 * the held ones, should it be there) */
static void sited_http_on_done(void *cls, struct MHD_Connection *conn, void **req_cls,
			       enum MHD_RequestTerminationCode toe)
{
	struct sited_http *h = cls;
	struct sited_http_req *q = *req_cls;

	(void)conn;
	(void)toe;
	if (q == NULL)
		return;
	if (q->due_ns != 0)
		TAILQ_REMOVE(&h->held, q, entry);
	free(q);
	*req_cls = NULL;
}

static void sited_http_on_conn(void *cls, struct MHD_Connection *conn, void **socket_context,
			       enum MHD_ConnectionNotificationCode toe)
{
	struct sited_http *h = cls;

	(void)conn;
	(void)socket_context;
	if (toe == MHD_CONNECTION_NOTIFY_STARTED)
		h->counts.accepted++;
	else if (toe == MHD_CONNECTION_NOTIFY_CLOSED)
		h->counts.closed++;
}

static void sited_http_log(void *cls, const char *fmt, va_list ap)
{
	char msg[256];

	(void)cls;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	msg[strcspn(msg, "\n")] = '\0';
	log_warnx("libmicrohttpd: %s", msg);
}

/* sited_http_rearm: m's timer at what MHD_get_timeout says: now when it
 * has data pending, never when it has nothing to time */
static void sited_http_rearm(struct sited_http_mhd *m)
{
	MHD_UNSIGNED_LONG_LONG ms;
	int64_t at = INT64_MAX;

	if (MHD_get_timeout(m->daemon, &ms) == MHD_YES)
		at = now_mono_ns() + (int64_t)(ms > 3600000 ? 3600000 : ms) * NSEC_PER_MSEC;
	if (loop_timer_set(&m->timer, at, 0) == -1)
		log_warn("%s: timerfd", __func__);
}

static void sited_http_run_one(struct sited_http_mhd *m)
{
	if (MHD_run(m->daemon) == MHD_NO)
		log_warnx("%s: MHD_run failed", __func__);
	sited_http_rearm(m);
}

/* sited_http_run: every daemon run, as after resuming requests held: a
 * connection is one of them, which one is not kept */
static void sited_http_run(struct sited_http *h)
{
	for (int i = 0; i < SITED_LISTENERS; i++)
		if (h->mhd[i].daemon)
			sited_http_run_one(&h->mhd[i]);
}

static void sited_http_on_epoll(struct loop *loop, int fd, uint32_t events, void *arg)
{
	(void)loop;
	(void)fd;
	(void)events;
	sited_http_run_one(arg);
}

/* sited_http_resume: the held requests due at now (all: INT64_MAX) let go */
static int sited_http_resume(struct sited_http *h, int64_t now)
{
	struct sited_http_req *q;
	int n = 0;

	while ((q = TAILQ_FIRST(&h->held)) != NULL && q->due_ns <= now) {
		TAILQ_REMOVE(&h->held, q, entry);
		q->due_ns = 0;
		MHD_resume_connection(q->conn);
		n++;
	}
	return n;
}

static void sited_http_on_slow(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct sited_http *h = arg;

	(void)loop;
	(void)events;
	loop_timer_read(fd);
	if (sited_http_resume(h, now_mono_ns()) > 0)
		sited_http_run(h);
	if (TAILQ_EMPTY(&h->held)) {
		(void)loop_timer_set(&h->slow, INT64_MAX, 0);
		h->ticking = 0;
	}
}

static void sited_http_tick(struct sited_http *h)
{
	if (h->ticking)
		return;
	if (loop_timer_set(&h->slow, now_mono_ns() + SITED_SLOW_TICK_NS, SITED_SLOW_TICK_NS) == -1)
		log_warn("%s: timerfd", __func__);
	else
		h->ticking = 1;
}

static void sited_http_on_timer(struct loop *loop, int fd, uint32_t events, void *arg)
{
	(void)loop;
	(void)events;
	loop_timer_read(fd);
	sited_http_run_one(arg);
}

/* sited_http_start: m's daemon serving h on the listening socket fd (its
 * own from then on, closed by MHD_stop_daemon), in h's loop. 0, or -1
 * (logged). */
static int sited_http_start(struct sited_http *h, struct sited_http_mhd *m, int fd,
			    unsigned max_conns)
{
	const union MHD_DaemonInfo *info;

	m->daemon = MHD_start_daemon(
	    MHD_USE_EPOLL | MHD_USE_ERROR_LOG | MHD_ALLOW_SUSPEND_RESUME, 0, NULL, NULL,
	    sited_http_on_request, h, MHD_OPTION_EXTERNAL_LOGGER, sited_http_log, h,
	    MHD_OPTION_NOTIFY_COMPLETED, sited_http_on_done, h, MHD_OPTION_LISTEN_SOCKET, fd,
	    MHD_OPTION_CONNECTION_LIMIT, max_conns, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)0,
	    MHD_OPTION_NOTIFY_CONNECTION, sited_http_on_conn, h, MHD_OPTION_END);
	if (m->daemon == NULL) {
		/* fd not closed: libmicrohttpd closes it on some of its
		 * failures and not on others; better a descriptor left at a
		 * failed start than one closed twice */
		log_warnx("%s: libmicrohttpd did not start", __func__);
		return -1;
	}
	if ((info = MHD_get_daemon_info(m->daemon, MHD_DAEMON_INFO_EPOLL_FD)) == NULL ||
	    loop_add(h->loop, &m->h, info->epoll_fd, EPOLLIN, sited_http_on_epoll, m) == -1 ||
	    loop_timer_add(h->loop, &m->timer, INT64_MAX, 0, sited_http_on_timer, m) == -1) {
		log_warn("%s: loop", __func__);
		return -1;
	}
	sited_http_rearm(m);
	return 0;
}

int sited_http_open(struct sited_http *h, struct loop *loop, const struct sited_server *srv,
		    union sited_addr addr, unsigned max_conns)
{
	int fds[SITED_LISTENERS], no_ipv6 = srv->no_ipv6;

	memset(h, 0, sizeof(*h));
	h->loop = loop;
	h->srv = srv;
	h->slow.fd = -1;
	for (int i = 0; i < SITED_LISTENERS; i++)
		h->mhd[i].h.fd = h->mhd[i].timer.fd = -1;
	TAILQ_INIT(&h->held);
	if (strfmt(h->server, sizeof(h->server), "libmicrohttpd %s", MHD_get_version()) == -1 ||
	    strfmt(h->product, sizeof(h->product), "libmicrohttpd/%s", MHD_get_version()) == -1) {
		strfmt(h->server, sizeof(h->server), "libmicrohttpd");
		strfmt(h->product, sizeof(h->product), "libmicrohttpd");
	}
	if (sited_listen(addr, SOCK_STREAM, 0, SITED_HTTP_BACKLOG, fds, &no_ipv6) == -1)
		return -1;
	for (int i = 0; i < SITED_LISTENERS; i++) {
		if (fds[i] == -1)
			continue;
		if (sited_http_start(h, &h->mhd[i], fds[i], max_conns) == -1) {
			/* the sockets not yet given to a daemon */
			for (int j = i + 1; j < SITED_LISTENERS; j++)
				if (fds[j] != -1)
					close(fds[j]);
			sited_http_close(h);
			return -1;
		}
	}
	if (loop_timer_add(loop, &h->slow, INT64_MAX, 0, sited_http_on_slow, h) == -1) {
		log_warn("%s: loop", __func__);
		sited_http_close(h);
		return -1;
	}
	return 0;
}

uint16_t sited_http_port(const struct sited_http *h)
{
	const union MHD_DaemonInfo *info;

	if (h->mhd[0].daemon == NULL ||
	    (info = MHD_get_daemon_info(h->mhd[0].daemon, MHD_DAEMON_INFO_BIND_PORT)) == NULL)
		return 0;
	return info->port;
}

/* sited_http_opened: h has a daemon */
static int sited_http_opened(const struct sited_http *h)
{
	for (int i = 0; i < SITED_LISTENERS; i++)
		if (h->mhd[i].daemon)
			return 1;
	return 0;
}

void sited_http_close(struct sited_http *h)
{
	if (!sited_http_opened(h))
		return;
	if (h->slow.fd != -1)
		loop_timer_del(h->loop, &h->slow);
	/* libmicrohttpd stops only with no connection suspended */
	(void)sited_http_resume(h, INT64_MAX);
	for (int i = 0; i < SITED_LISTENERS; i++) {
		struct sited_http_mhd *m = &h->mhd[i];

		if (m->daemon == NULL)
			continue;
		loop_del(h->loop, &m->h);
		if (m->timer.fd != -1)
			loop_timer_del(h->loop, &m->timer);
		MHD_stop_daemon(m->daemon);
		m->daemon = NULL;
	}
}
