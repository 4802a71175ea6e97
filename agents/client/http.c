/* The client's requests as HTTP/1.1 through libcurl's multi interface; see http.h. */
#include "http.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/queue.h>

#include "event.h"
#include "events.h"
#include "httpwire.h"
#include "log.h"
#include "strfmt.h"
#include "timeutil.h"
#include "traffic.h"

/* one of libcurl's sockets, watched by the loop */
struct client_http_sock {
	struct loop_handler h; /* first: the finalizer gets it */
	struct client_http *t;
	LIST_ENTRY(client_http_sock) entry;
};

/* the name a Happy Eyeballs client connects to (its two addresses given
 * to libcurl, CURLOPT_RESOLVE): the URL keeps the service's */
#define CLIENT_HTTP_RACE "happy-eyeballs.steerlab"

/* one request's transfer */
struct client_http_xfer {
	CURL *easy;
	struct client_http *t;
	uint64_t seq;
	int header; /* 1: the X-Steerlab header decoded into reply, -1: one did not */
	struct wire_msg reply;
	char server[48];	       /* the response's Server header, "" if none */
	struct curl_slist *connect_to; /* the address pinned for it */
	struct curl_slist *resolve;    /* Happy Eyeballs: the two addresses it races */
	char url[sizeof("http://") + 256 + sizeof(":65535") + HTTPWIRE_PATH_MAX];
	TAILQ_ENTRY(client_http_xfer) entry;
};

TAILQ_HEAD(client_http_xfers, client_http_xfer);

struct client_http {
	struct client *c;
	struct event_log *ev;
	CURLM *multi;
	struct loop_handler timer;
	char host[256]; /* the URL's: the service name, or the target's address */
	struct client_http_xfers running, spare;
	LIST_HEAD(, client_http_sock) socks; /* watched now */
	char server[48];		     /* the first Server header of a reply: who answered */
	long dns_cache_s;		     /* -1: the address pinned; else libcurl resolves */
	char address[48];		     /* libcurl resolving: the last transfer's peer */
	uint64_t transfers, connects, reused;
	uint64_t failed[CLIENT_HTTP_NCAUSES];
};

static const struct {
	const char *name;  /* http_failed's cause */
	const char *count; /* client_summary's http count */
} client_http_causes[CLIENT_HTTP_NCAUSES] = {
    [CLIENT_HTTP_REFUSED] = {"refused", "refused"},
    [CLIENT_HTTP_RESET] = {"reset", "resets"},
    [CLIENT_HTTP_EOF] = {"eof", "eofs"},
    [CLIENT_HTTP_TIMEOUT] = {"timeout", "timeouts"},
    [CLIENT_HTTP_UNREACHABLE] = {"unreachable", "unreachable"},
    [CLIENT_HTTP_UNAVAILABLE] = {"unavailable", "unavailable"},
    [CLIENT_HTTP_STATUS] = {"status", "status"},
    [CLIENT_HTTP_BAD] = {"bad", "bad"},
    [CLIENT_HTTP_OTHER] = {"other", "other"},
};

/* client_http_errno: the cause an errno of the connection stands for */
static enum client_http_cause client_http_errno(long err, enum client_http_cause otherwise)
{
	switch (err) {
	case ECONNREFUSED:
		return CLIENT_HTTP_REFUSED;
	case ECONNRESET:
	case ECONNABORTED:
	case EPIPE:
		return CLIENT_HTTP_RESET;
	case ETIMEDOUT:
		return CLIENT_HTTP_TIMEOUT;
	case EHOSTUNREACH:
	case ENETUNREACH:
	case EHOSTDOWN:
	case ENETDOWN:
		return CLIENT_HTTP_UNREACHABLE;
	default:
		return otherwise;
	}
}

enum client_http_cause client_http_cause_of(int curlcode, long os_errno, long status)
{
	switch ((CURLcode)curlcode) {
	case CURLE_OK:
		if (status == HTTPWIRE_OK)
			return CLIENT_HTTP_NCAUSES;
		return status == HTTPWIRE_UNAVAILABLE ? CLIENT_HTTP_UNAVAILABLE
						      : CLIENT_HTTP_STATUS;
	case CURLE_OPERATION_TIMEDOUT:
		return CLIENT_HTTP_TIMEOUT;
	case CURLE_COULDNT_CONNECT:
		return client_http_errno(os_errno, CLIENT_HTTP_OTHER);
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
		/* an error on the connection without its errno: the peer's RST is
		 * what ends a connection so here */
		return client_http_errno(os_errno,
					 os_errno ? CLIENT_HTTP_OTHER : CLIENT_HTTP_RESET);
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
		return CLIENT_HTTP_EOF;
	case CURLE_WEIRD_SERVER_REPLY:
	case CURLE_UNSUPPORTED_PROTOCOL:
		return CLIENT_HTTP_BAD;
	default:
		return CLIENT_HTTP_OTHER;
	}
}

const char *client_http_cause_name(enum client_http_cause cause)
{
	if ((unsigned)cause >= CLIENT_HTTP_NCAUSES)
		return "other";
	return client_http_causes[cause].name;
}

const char *client_http_library(void)
{
	static char lib[64];

	if (lib[0] == '\0') {
		const char *v = curl_version(); /* "libcurl/7.88.1 OpenSSL/3.0 ..." */
		size_t n = strcspn(v, " ");

		if (n >= sizeof(lib))
			n = sizeof(lib) - 1;
		memcpy(lib, v, n);
		lib[n] = '\0';
	}
	return lib;
}

static void client_http_check(struct client_http *t);

static void client_http_sock_free(struct loop_handler *h)
{
	free((struct client_http_sock *)h);
}

static void client_http_on_fd(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct client_http_sock *s = arg;
	struct client_http *t = s->t;
	int flags = 0, running;

	(void)loop;
	if (events & EPOLLIN)
		flags |= CURL_CSELECT_IN;
	if (events & EPOLLOUT)
		flags |= CURL_CSELECT_OUT;
	if (events & (EPOLLERR | EPOLLHUP))
		flags |= CURL_CSELECT_ERR;
	curl_multi_socket_action(t->multi, fd, flags, &running);
	client_http_check(t);
}

/* client_http_on_socket: libcurl's CURLMOPT_SOCKETFUNCTION: the loop
 * watches socket fd for what libcurl wants */
static int client_http_on_socket(CURL *easy, curl_socket_t fd, int what, void *userp, void *socketp)
{
	struct client_http *t = userp;
	struct client_http_sock *s = socketp;
	uint32_t events = 0;

	(void)easy;
	if (what == CURL_POLL_REMOVE) {
		if (s) {
			curl_multi_assign(t->multi, fd, NULL);
			LIST_REMOVE(s, entry);
			/* it may be the handler being dispatched */
			loop_del_finalize(t->c->loop, &s->h, client_http_sock_free);
		}
		return 0;
	}
	if (what & CURL_POLL_IN)
		events |= EPOLLIN;
	if (what & CURL_POLL_OUT)
		events |= EPOLLOUT;
	if (s) {
		if (loop_mod(t->c->loop, &s->h, events) == -1)
			log_warn("%s: epoll", __func__);
		return 0;
	}
	if ((s = calloc(1, sizeof(*s))) == NULL) {
		log_warn("%s: calloc", __func__);
		return -1;
	}
	s->t = t;
	if (loop_add(t->c->loop, &s->h, fd, events, client_http_on_fd, s) == -1) {
		log_warn("%s: epoll", __func__);
		free(s);
		return -1;
	}
	curl_multi_assign(t->multi, fd, s);
	LIST_INSERT_HEAD(&t->socks, s, entry);
	return 0;
}

/* client_http_on_curl_timer: libcurl's CURLMOPT_TIMERFUNCTION: its timer
 * due in timeout_ms (0: at once; -1: none) */
static int client_http_on_curl_timer(CURLM *multi, long timeout_ms, void *userp)
{
	struct client_http *t = userp;
	int64_t at = timeout_ms < 0 ? INT64_MAX : now_mono_ns() + timeout_ms * NSEC_PER_MSEC;

	(void)multi;
	if (loop_timer_set(&t->timer, at, 0) == -1) {
		log_warn("%s: timerfd", __func__);
		return -1;
	}
	return 0;
}

static void client_http_on_timer(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct client_http *t = arg;
	int running;

	(void)loop;
	(void)events;
	loop_timer_read(fd);
	curl_multi_socket_action(t->multi, CURL_SOCKET_TIMEOUT, 0, &running);
	client_http_check(t);
}

/* client_http_on_header: each header line of a response; X-Steerlab's
 * value decoded, a new status line (libcurl retrying on a fresh
 * connection) forgetting what came before */
static size_t client_http_on_header(char *buf, size_t size, size_t n, void *arg)
{
	struct client_http_xfer *x = arg;
	const size_t name = sizeof(HTTPWIRE_HEADER) - 1;
	size_t len = size * n, vlen;

	if (len >= 5 && memcmp(buf, "HTTP/", 5) == 0) {
		x->header = 0;
		x->server[0] = '\0';
		return len;
	}
	if (len > 7 && strncasecmp(buf, "Server:", 7) == 0) {
		size_t from = 7, to = len;

		while (from < to && (buf[from] == ' ' || buf[from] == '\t'))
			from++;
		while (to > from &&
		       (buf[to - 1] == '\r' || buf[to - 1] == '\n' || buf[to - 1] == ' '))
			to--;
		if (to - from < sizeof(x->server)) {
			memcpy(x->server, buf + from, to - from);
			x->server[to - from] = '\0';
		}
		return len;
	}
	if (len <= name || buf[name] != ':' || strncasecmp(buf, HTTPWIRE_HEADER, name) != 0)
		return len;
	for (vlen = len - name - 1;
	     vlen > 0 && (buf[name + vlen] == '\r' || buf[name + vlen] == '\n'); vlen--)
		;
	x->header = httpwire_value_decode(buf + name + 1, vlen, &x->reply) == 0 ? 1 : -1;
	return len;
}

/* client_http_on_body: the body is not read */
static size_t client_http_on_body(char *buf, size_t size, size_t n, void *arg)
{
	(void)buf;
	(void)arg;
	return size * n;
}

/* client_http_finish: x's transfer out of the multi handle, x kept for the
 * next request */
static void client_http_finish(struct client_http *t, struct client_http_xfer *x)
{
	curl_multi_remove_handle(t->multi, x->easy);
	curl_slist_free_all(x->connect_to);
	x->connect_to = NULL;
	curl_slist_free_all(x->resolve);
	x->resolve = NULL;
	TAILQ_REMOVE(&t->running, x, entry);
	TAILQ_INSERT_HEAD(&t->spare, x, entry);
}

/* client_http_failed: x ended without a reply, for cause: its request
 * recorded (lost for a timeout, else an error) unless the ring has already
 * expired it, and the event */
static void client_http_failed(struct client_http *t, struct client_http_xfer *x,
			       enum client_http_cause cause, long status, int reused)
{
	struct client *c = t->c;
	struct client_slot *s = client_ring_find(&c->ring, x->seq);
	char *ip = NULL;
	long port = 0;

	t->failed[cause]++;
	if (s != NULL && s->client == c->cfg.id) {
		if (cause == CLIENT_HTTP_TIMEOUT) {
			c->stats.lost++;
			client_record(c, s, CLIENT_TIMEOUT, NULL, 0);
		} else {
			c->stats.errors++;
			client_record(c, s, CLIENT_ERROR, NULL, 0);
		}
		client_ring_resolve(&c->ring, s);
	}
	curl_easy_getinfo(x->easy, CURLINFO_PRIMARY_IP, &ip);
	curl_easy_getinfo(x->easy, CURLINFO_LOCAL_PORT, &port);
	event_emit(t->ev, EVENTS_HTTP_FAILED, "{s:I, s:I, s:s, s:o?, s:s?, s:i, s:b}", "client",
		   (json_int_t)c->cfg.id, "seq", (json_int_t)x->seq, "cause",
		   client_http_cause_name(cause), "status", status ? json_integer(status) : NULL,
		   "address", ip && *ip ? ip : NULL, "local_port", (int)port, "reused", reused);
}

/* client_http_account: x's transfer, ended or aborted, counted: the
 * connections it made (an http_connected event for the one it ended on),
 * or the kept-alive one it used. Whether it went on a kept-alive one. */
static int client_http_account(struct client_http *t, struct client_http_xfer *x)
{
	long conns = 0, port = 0;
	char *ip = NULL;

	curl_easy_getinfo(x->easy, CURLINFO_NUM_CONNECTS, &conns);
	curl_easy_getinfo(x->easy, CURLINFO_LOCAL_PORT, &port);
	curl_easy_getinfo(x->easy, CURLINFO_PRIMARY_IP, &ip);
	t->transfers++;
	/* libcurl resolving: the address its DNS cache gave, said when it moves */
	if (t->dns_cache_s >= 0 && ip && *ip && strcmp(ip, t->address) != 0) {
		event_emit(t->ev, EVENTS_HTTP_ADDRESS, "{s:I, s:s, s:s?}", "client",
			   (json_int_t)t->c->cfg.id, "address", ip, "previous",
			   t->address[0] ? t->address : NULL);
		log_info("libcurl now connects to %s (was %s)", ip,
			 t->address[0] ? t->address : "none");
		snprintf(t->address, sizeof(t->address), "%s", ip);
	}
	if (conns > 0) {
		t->connects += (uint64_t)conns;
		if (port != 0 && ip && *ip)
			event_emit(t->ev, EVENTS_HTTP_CONNECTED, "{s:I, s:s, s:i}", "client",
				   (json_int_t)t->c->cfg.id, "address", ip, "local_port",
				   (int)port);
		return 0;
	}
	if (port == 0)
		return 0; /* never connected */
	t->reused++;
	return 1;
}

/* client_http_done: x's transfer ended with rc */
static void client_http_done(struct client_http *t, struct client_http_xfer *x, CURLcode rc)
{
	struct client *c = t->c;
	long status = 0, os_errno = 0;
	enum client_http_cause cause;
	int reused;

	curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_getinfo(x->easy, CURLINFO_OS_ERRNO, &os_errno);
	cause = client_http_cause_of(rc, os_errno, status);
	if (cause == CLIENT_HTTP_NCAUSES &&
	    (x->header != 1 || x->reply.seq != x->seq || x->reply.client_id != c->cfg.id))
		cause = CLIENT_HTTP_BAD;
	reused = client_http_account(t, x);
	if (cause == CLIENT_HTTP_NCAUSES) {
		char *ip = NULL;

		if (t->server[0] == '\0' && x->server[0] != '\0')
			memcpy(t->server, x->server, sizeof(t->server));
		/* the family of the connection it went on */
		curl_easy_getinfo(x->easy, CURLINFO_PRIMARY_IP, &ip);
		c->rx_family = ip && strchr(ip, ':') ? AF_INET6 : AF_INET;
		client_take_reply(c, &x->reply, now_real_ns());
		c->rx_family = 0;
	} else {
		if (t->failed[cause] == 0)
			log_info("a request to %s failed: %s (%s), the first so", x->url,
				 client_http_cause_name(cause),
				 rc == CURLE_OK ? "HTTP status" : curl_easy_strerror(rc));
		client_http_failed(t, x, cause, status, reused);
	}
	client_http_finish(t, x);
}

/* client_http_check: the transfers that ended */
static void client_http_check(struct client_http *t)
{
	CURLMsg *msg;
	int left;

	while ((msg = curl_multi_info_read(t->multi, &left))) {
		struct client_http_xfer *x = NULL;

		if (msg->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&x);
		if (x != NULL)
			client_http_done(t, x, msg->data.result);
	}
	client_maybe_done(t->c);
}

void client_http_expired(struct client_http *t)
{
	struct client_http_xfer *x, *next;

	for (x = TAILQ_FIRST(&t->running); x; x = next) {
		next = TAILQ_NEXT(x, entry);
		if (client_ring_find(&t->c->ring, x->seq) != NULL)
			continue;
		client_http_failed(t, x, CLIENT_HTTP_TIMEOUT, 0, client_http_account(t, x));
		client_http_finish(t, x);
	}
}

/* client_http_xfer_get: a transfer for the next request: a spare one, or
 * a new one; NULL (logged) */
static struct client_http_xfer *client_http_xfer_get(struct client_http *t)
{
	struct client_http_xfer *x = TAILQ_FIRST(&t->spare);
	long timeout_ms = (long)((t->c->cfg.timeout_ns + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC);

	if (x) {
		TAILQ_REMOVE(&t->spare, x, entry);
		return x;
	}
	if ((x = calloc(1, sizeof(*x))) == NULL || (x->easy = curl_easy_init()) == NULL) {
		log_warnx("%s: out of memory for a transfer", __func__);
		free(x);
		return NULL;
	}
	x->t = t;
	if (curl_easy_setopt(x->easy, CURLOPT_PRIVATE, x) != CURLE_OK ||
	    curl_easy_setopt(x->easy, CURLOPT_NOSIGNAL, 1L) != CURLE_OK ||
	    curl_easy_setopt(x->easy, CURLOPT_PROXY, "") != CURLE_OK ||
	    curl_easy_setopt(x->easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1) !=
		CURLE_OK ||
	    curl_easy_setopt(x->easy, CURLOPT_TCP_NODELAY, 1L) != CURLE_OK ||
	    curl_easy_setopt(x->easy, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms) != CURLE_OK ||
	    curl_easy_setopt(x->easy, CURLOPT_TIMEOUT_MS, timeout_ms) != CURLE_OK ||
	    curl_easy_setopt(x->easy, CURLOPT_HEADERFUNCTION, client_http_on_header) != CURLE_OK ||
	    curl_easy_setopt(x->easy, CURLOPT_HEADERDATA, x) != CURLE_OK ||
	    curl_easy_setopt(x->easy, CURLOPT_WRITEFUNCTION, client_http_on_body) != CURLE_OK) {
		log_warnx("%s: curl_easy_setopt refused an option", __func__);
		curl_easy_cleanup(x->easy);
		free(x);
		return NULL;
	}
	return x;
}

/* client_http_ipresolve: the families libcurl resolving may use: a
 * dual-stack client's both (the target IPv6, a fallback), else the
 * target's */
static long client_http_ipresolve(const struct client *c)
{
	if (c->cfg.fallback.sa.sa_family)
		return CURL_IPRESOLVE_WHATEVER;
	return c->cfg.target.sa.sa_family == AF_INET6 ? CURL_IPRESOLVE_V6 : CURL_IPRESOLVE_V4;
}

/* client_http_start: request s as a transfer to the address the client has
 * now. 0 or -1 (logged). */
static int client_http_start(struct client_http *t, const struct client_slot *s)
{
	struct client *c = t->c;
	struct wire_msg m = {.type = WIRE_REQUEST, .client_id = c->cfg.id};
	struct client_http_xfer *x = client_http_xfer_get(t);
	char path[HTTPWIRE_PATH_MAX + 1], addr[INET6_ADDRSTRLEN + 2], addr4[INET_ADDRSTRLEN],
	    pin[sizeof("::") + INET6_ADDRSTRLEN + 8],
	    race[2 * sizeof(CLIENT_HTTP_RACE) + 2 * INET6_ADDRSTRLEN + 16];
	unsigned port = ntohs(c->cfg.target.sin.sin_port);
	int v6 = c->cfg.target.sa.sa_family == AF_INET6;

	if (x == NULL)
		return -1;
	m.seq = s->seq;
	m.sent_ns = (uint64_t)s->sent_real_ns;
	x->seq = s->seq;
	x->header = 0;
	x->server[0] = '\0';
	/* an IPv6 address in brackets, as a URL and CURLOPT_CONNECT_TO write it */
	if (v6) {
		addr[0] = '[';
		inet_ntop(AF_INET6, &c->cfg.target.sin6.sin6_addr, addr + 1, sizeof(addr) - 2);
		strcat(addr, "]");
	} else {
		inet_ntop(AF_INET, &c->cfg.target.sin.sin_addr, addr, sizeof(addr));
	}
	/* Happy Eyeballs (RFC 8305) is libcurl's own: the connection goes to a
	 * name of the client's, given both addresses (CURLOPT_RESOLVE, the
	 * IPv6 one first), and libcurl races the families, IPv4 once the
	 * attempt delay has passed (CURLOPT_HAPPY_EYEBALLS_TIMEOUT_MS) */
	if (c->cfg.fallback.sa.sa_family && t->dns_cache_s < 0) {
		inet_ntop(AF_INET, &c->cfg.fallback.sin.sin_addr, addr4, sizeof(addr4));
		if (strfmt(race, sizeof(race), "-" CLIENT_HTTP_RACE ":%u", port) == -1 ||
		    (x->resolve = curl_slist_append(NULL, race)) == NULL ||
		    strfmt(race, sizeof(race), CLIENT_HTTP_RACE ":%u:%s,%s", port, addr, addr4) ==
			-1 ||
		    curl_slist_append(x->resolve, race) == NULL ||
		    curl_easy_setopt(x->easy, CURLOPT_RESOLVE, x->resolve) != CURLE_OK ||
		    curl_easy_setopt(x->easy, CURLOPT_HAPPY_EYEBALLS_TIMEOUT_MS,
				     (long)(c->cfg.attempt_delay_ns / NSEC_PER_MSEC)) != CURLE_OK) {
			log_warnx("%s: a transfer could not be set up", __func__);
			goto fail;
		}
		snprintf(addr, sizeof(addr), "%s", CLIENT_HTTP_RACE);
	}
	if (httpwire_path(&m, path, sizeof(path)) == -1 ||
	    strfmt(x->url, sizeof(x->url), "http://%s:%u%s", t->host[0] ? t->host : addr, port,
		   path) == -1 ||
	    curl_easy_setopt(x->easy, CURLOPT_URL, x->url) != CURLE_OK) {
		log_warnx("%s: a transfer could not be set up", __func__);
		goto fail;
	}
	/* libcurl resolving: its own DNS cache, the client's family (dual:
	 * both, and libcurl's Happy Eyeballs between them); else the client's
	 * address pinned */
	if (t->dns_cache_s >= 0
		? curl_easy_setopt(x->easy, CURLOPT_DNS_CACHE_TIMEOUT, t->dns_cache_s) !=
			  CURLE_OK ||
		      curl_easy_setopt(x->easy, CURLOPT_IPRESOLVE, client_http_ipresolve(c)) !=
			  CURLE_OK ||
		      (c->cfg.fallback.sa.sa_family &&
		       curl_easy_setopt(x->easy, CURLOPT_HAPPY_EYEBALLS_TIMEOUT_MS,
					(long)(c->cfg.attempt_delay_ns / NSEC_PER_MSEC)) !=
			   CURLE_OK)
		: strfmt(pin, sizeof(pin), "::%s:%u", addr, port) == -1 ||
		      (x->connect_to = curl_slist_append(NULL, pin)) == NULL ||
		      curl_easy_setopt(x->easy, CURLOPT_CONNECT_TO, x->connect_to) != CURLE_OK) {
		log_warnx("%s: a transfer could not be set up", __func__);
		goto fail;
	}
	TAILQ_INSERT_TAIL(&t->running, x, entry);
	if (curl_multi_add_handle(t->multi, x->easy) != CURLM_OK) {
		log_warnx("%s: curl_multi_add_handle failed", __func__);
		TAILQ_REMOVE(&t->running, x, entry);
		goto fail;
	}
	return 0;
fail:
	curl_slist_free_all(x->connect_to);
	x->connect_to = NULL;
	curl_slist_free_all(x->resolve);
	x->resolve = NULL;
	TAILQ_INSERT_HEAD(&t->spare, x, entry);
	return -1;
}

int client_http_send(struct client_http *t, unsigned n)
{
	struct client *c = t->c;
	int64_t real = now_real_ns(), mono = now_mono_ns();
	int running;

	for (unsigned i = 0; i < n; i++) {
		struct client_slot *s = client_ring_push(&c->ring, real, mono);

		if (s == NULL) {
			log_warnx("%s: out of memory for %llu outstanding requests", __func__,
				  (unsigned long long)c->ring.pending);
			return -1;
		}
		s->client = c->cfg.id;
		c->stats.sent++;
		if (client_http_start(t, s) == -1) {
			c->stats.errors++;
			client_record(c, s, CLIENT_ERROR, NULL, 0);
			client_ring_resolve(&c->ring, s);
			return -1;
		}
	}
	/* started now, not at the next turn of the loop */
	curl_multi_socket_action(t->multi, CURL_SOCKET_TIMEOUT, 0, &running);
	client_http_check(t);
	return 0;
}

struct client_http *client_http_open(struct client *c, const char *host, struct event_log *ev)
{
	static int global;
	struct client_http *t;

	if (!global && curl_global_init(CURL_GLOBAL_NOTHING) != CURLE_OK) {
		log_warnx("%s: curl_global_init failed", __func__);
		return NULL;
	}
	global = 1;
	if ((t = calloc(1, sizeof(*t))) == NULL) {
		log_warn("%s: calloc", __func__);
		return NULL;
	}
	t->c = c;
	t->ev = ev;
	t->timer.fd = -1;
	t->dns_cache_s = -1;
	TAILQ_INIT(&t->running);
	TAILQ_INIT(&t->spare);
	LIST_INIT(&t->socks);
	if (host && strfmt(t->host, sizeof(t->host), "%s", host) == -1) {
		log_warnx("%s: a host name too long for a URL: %s", __func__, host);
		goto fail;
	}
	if ((t->multi = curl_multi_init()) == NULL) {
		log_warnx("%s: curl_multi_init failed", __func__);
		goto fail;
	}
	if (loop_timer_add(c->loop, &t->timer, INT64_MAX, 0, client_http_on_timer, t) == -1) {
		log_warn("%s: timerfd", __func__);
		goto fail;
	}
	if (curl_multi_setopt(t->multi, CURLMOPT_SOCKETFUNCTION, client_http_on_socket) !=
		CURLM_OK ||
	    curl_multi_setopt(t->multi, CURLMOPT_SOCKETDATA, t) != CURLM_OK ||
	    curl_multi_setopt(t->multi, CURLMOPT_TIMERFUNCTION, client_http_on_curl_timer) !=
		CURLM_OK ||
	    curl_multi_setopt(t->multi, CURLMOPT_TIMERDATA, t) != CURLM_OK ||
	    curl_multi_setopt(t->multi, CURLMOPT_MAX_HOST_CONNECTIONS,
			      (long)CLIENT_HTTP_HOST_CONNS) != CURLM_OK ||
	    curl_multi_setopt(t->multi, CURLMOPT_MAXCONNECTS, (long)(4 * CLIENT_HTTP_HOST_CONNS)) !=
		CURLM_OK) {
		log_warnx("%s: curl_multi_setopt refused an option", __func__);
		goto fail;
	}
	return t;
fail:
	client_http_close(t);
	return NULL;
}

json_t *client_http_json(const struct client_http *t)
{
	json_t *o =
	    json_pack("{s:s, s:s?, s:I, s:I, s:I}", "library", client_http_library(), "server",
		      t->server[0] ? t->server : NULL, "transfers", (json_int_t)t->transfers,
		      "connects", (json_int_t)t->connects, "reused", (json_int_t)t->reused);

	for (int i = 0; o && i < CLIENT_HTTP_NCAUSES; i++)
		json_object_set_new(o, client_http_causes[i].count,
				    json_integer((json_int_t)t->failed[i]));
	return o;
}

void client_http_log(const struct client_http *t)
{
	log_info("http (%s, answered by %s): %llu transfers, %llu connects, %llu on a kept-alive "
		 "connection; "
		 "failed: %llu refused, %llu resets, %llu eofs, %llu timeouts, %llu unreachable, "
		 "%llu 503, %llu other status, %llu bad, %llu other",
		 client_http_library(), t->server[0] ? t->server : "no server",
		 (unsigned long long)t->transfers, (unsigned long long)t->connects,
		 (unsigned long long)t->reused, (unsigned long long)t->failed[CLIENT_HTTP_REFUSED],
		 (unsigned long long)t->failed[CLIENT_HTTP_RESET],
		 (unsigned long long)t->failed[CLIENT_HTTP_EOF],
		 (unsigned long long)t->failed[CLIENT_HTTP_TIMEOUT],
		 (unsigned long long)t->failed[CLIENT_HTTP_UNREACHABLE],
		 (unsigned long long)t->failed[CLIENT_HTTP_UNAVAILABLE],
		 (unsigned long long)t->failed[CLIENT_HTTP_STATUS],
		 (unsigned long long)t->failed[CLIENT_HTTP_BAD],
		 (unsigned long long)t->failed[CLIENT_HTTP_OTHER]);
}

void client_http_close(struct client_http *t)
{
	struct client_http_xfer *x;
	struct client_http_sock *s;

	if (t == NULL)
		return;
	while ((x = TAILQ_FIRST(&t->running)))
		client_http_finish(t, x);
	while ((x = TAILQ_FIRST(&t->spare))) {
		TAILQ_REMOVE(&t->spare, x, entry);
		curl_easy_cleanup(x->easy);
		free(x);
	}
	/* closes the connections; a socket libcurl did not say REMOVE of is
	 * out of the loop all the same */
	if (t->multi)
		curl_multi_cleanup(t->multi);
	while ((s = LIST_FIRST(&t->socks))) {
		LIST_REMOVE(s, entry);
		loop_del_finalize(t->c->loop, &s->h, client_http_sock_free);
	}
	loop_timer_del(t->c->loop, &t->timer);
	free(t);
}

void client_http_resolve(struct client_http *t, long cache_s)
{
	t->dns_cache_s = cache_s;
}
