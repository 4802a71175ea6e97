/*
 * The client's TCP transport (agents/client/tcp.c): the reply stream's
 * decoding (a reply split over two reads, three in one, a message that is
 * not a reply), the reconnection backoff, the causes an errno stands for;
 * and over loopback against a site the test plays in the client's own
 * loop: requests answered on one connection, the requests outstanding when
 * the site resets or closes the connection recorded as errors at once
 * (tcp_failed says how many and why) and the client back on a new
 * connection for the next ones; a target that refuses recorded as errors
 * without a connection, retried with the backoff. No root.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <cmocka.h>
#include <jansson.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "agents/client/dns.h"
#include "agents/client/tcp.h"
#include "agents/client/traffic.h"
#include "event.h"
#include "loop.h"
#include "timeutil.h"
#include "wire.h"

#define MS NSEC_PER_MSEC

/* ---- the reply stream ---- */

struct taken {
	uint64_t seq[8];
	char site[8][WIRE_SITE_LEN + 1];
	int n;
};

static void take(const struct wire_msg *m, void *arg)
{
	struct taken *t = arg;

	assert_true(t->n < 8);
	t->seq[t->n] = m->seq;
	strcpy(t->site[t->n], m->site);
	t->n++;
}

/* reply: message seq (type 2, site "s") appended to rx */
static void reply(struct client_tcp_rx *rx, uint64_t seq, uint8_t type)
{
	struct wire_msg m = {.type = type, .client_id = 1, .seq = seq, .sent_ns = 5};

	strcpy(m.site, "s");
	assert_int_equal(wire_encode(&m, rx->buf + rx->len, sizeof(rx->buf) - rx->len), WIRE_LEN);
	rx->len += WIRE_LEN;
}

static void test_rx_split(void **state)
{
	struct client_tcp_rx rx = {0}, whole = {0};
	struct taken t = {0};

	(void)state;
	reply(&whole, 7, WIRE_REPLY);
	/* 20 bytes, then the other 28: one message, taken at the second */
	memcpy(rx.buf, whole.buf, 20);
	rx.len = 20;
	assert_int_equal(client_tcp_rx_take(&rx, take, &t), 0);
	assert_int_equal(rx.len, 20);
	memcpy(rx.buf + rx.len, whole.buf + 20, WIRE_LEN - 20);
	rx.len += WIRE_LEN - 20;
	assert_int_equal(client_tcp_rx_take(&rx, take, &t), 1);
	assert_int_equal(rx.len, 0);
	assert_int_equal(t.n, 1);
	assert_int_equal(t.seq[0], 7);
	assert_string_equal(t.site[0], "s");
}

static void test_rx_coalesced(void **state)
{
	struct client_tcp_rx rx = {0}, next = {0};
	struct taken t = {0};

	(void)state;
	reply(&rx, 1, WIRE_REPLY);
	reply(&rx, 2, WIRE_REPLY);
	reply(&rx, 3, WIRE_REPLY);
	/* and the first 10 bytes of a fourth */
	reply(&next, 4, WIRE_REPLY);
	memcpy(rx.buf + rx.len, next.buf, 10);
	rx.len += 10;
	assert_int_equal(client_tcp_rx_take(&rx, take, &t), 3);
	assert_int_equal(t.n, 3);
	assert_int_equal(t.seq[0], 1);
	assert_int_equal(t.seq[1], 2);
	assert_int_equal(t.seq[2], 3);
	/* the partial fourth kept, at the start */
	assert_int_equal(rx.len, 10);
	assert_memory_equal(rx.buf, next.buf, 10);
	memcpy(rx.buf + rx.len, next.buf + 10, WIRE_LEN - 10);
	rx.len += WIRE_LEN - 10;
	assert_int_equal(client_tcp_rx_take(&rx, take, &t), 1);
	assert_int_equal(t.seq[3], 4);
}

static void test_rx_bad(void **state)
{
	struct client_tcp_rx rx = {0};
	struct taken t = {0};

	(void)state;
	/* a good reply, then one whose magic is wrong, then a good one: the
	 * first is taken, the stream is lost at the second */
	reply(&rx, 1, WIRE_REPLY);
	reply(&rx, 2, WIRE_REPLY);
	rx.buf[WIRE_LEN] = 'X';
	reply(&rx, 3, WIRE_REPLY);
	assert_int_equal(client_tcp_rx_take(&rx, take, &t), -1);
	assert_int_equal(t.n, 1);
	assert_int_equal(rx.len, 0);
	/* a request where a reply should be is not one either */
	t.n = 0;
	reply(&rx, 4, WIRE_REQUEST);
	assert_int_equal(client_tcp_rx_take(&rx, take, &t), -1);
	assert_int_equal(t.n, 0);
}

/* ---- backoff and causes ---- */

static void test_backoff(void **state)
{
	static const int64_t want[] = {0,	 100 * MS,  200 * MS, 400 * MS,
				       800 * MS, 1000 * MS, 1000 * MS};

	(void)state;
	for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_int_equal(client_tcp_backoff_ns(i + 1), want[i]);
	assert_int_equal(client_tcp_backoff_ns(100), 1000 * MS);
	assert_int_equal(client_tcp_backoff_ns(UINT32_MAX), 1000 * MS);
	assert_int_equal(client_tcp_backoff_ns(0), 0);
	/* the policies: backoff's, or immediate's at once then 100 ms */
	for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		assert_int_equal(client_tcp_retry_ns(i + 1, 0), want[i]);
		assert_int_equal(client_tcp_retry_ns(i + 1, 1), i == 0 ? 0 : 100 * MS);
	}
}

static void test_causes(void **state)
{
	static const struct {
		int err;
		const char *name;
	} cases[] = {
	    {ECONNREFUSED, "refused"},	  {ECONNRESET, "reset"}, {ECONNABORTED, "reset"},
	    {ETIMEDOUT, "timeout"},	  {EPIPE, "pipe"},	 {EHOSTUNREACH, "unreachable"},
	    {ENETUNREACH, "unreachable"}, {EINVAL, "other"},	 {0, "other"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(client_tcp_cause_name(client_tcp_cause_of(cases[i].err)),
				    cases[i].name);
	assert_string_equal(client_tcp_cause_name(CLIENT_TCP_EOF), "eof");
	assert_string_equal(client_tcp_cause_name(CLIENT_TCP_BAD), "bad");
	assert_string_equal(client_tcp_cause_name(CLIENT_TCP_NCAUSES), "other");
}

/* ---- over loopback ---- */

/* a site on 127.0.0.1 in the client's loop: it answers every request as
 * site "t", but on its first connection none from seq silent_from on, and
 * when seq break_at arrives there it resets the connection (RST) or closes
 * it (FIN) */
struct site {
	struct loop *loop;
	int lfd, cfd;
	struct loop_handler lh, ch;
	struct sockaddr_in addr;
	uint64_t silent_from, break_at;
	int reset; /* 1: RST, 0: FIN */
	int accepted, broken, answered;
	uint8_t buf[4096];
	size_t len;
	/* replace: a new connection may come before the old one's FIN is
	 * read (the client closed it on purpose); hold: replies held and
	 * written every 30 ms by the timer th, the most held at once noted */
	int replace, hold;
	struct loop_handler th;
	struct wire_msg held[256];
	size_t nheld, most_held;
};

static void site_reply(struct site *s, int fd, struct wire_msg *m)
{
	uint8_t out[WIRE_LEN];

	m->type = WIRE_REPLY;
	strcpy(m->site, "t");
	wire_encode(m, out, sizeof(out));
	assert_int_equal(write(fd, out, WIRE_LEN), WIRE_LEN);
	s->answered++;
}

static void site_on_tick(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct site *s = arg;

	(void)loop;
	(void)events;
	loop_timer_read(fd);
	for (size_t i = 0; i < s->nheld && s->cfd != -1; i++)
		site_reply(s, s->cfd, &s->held[i]);
	s->nheld = 0;
}

static void site_drop(struct site *s)
{
	loop_del(s->loop, &s->ch);
	close(s->cfd);
	s->cfd = -1;
	s->len = 0;
}

static void site_on_conn(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct site *s = arg;
	ssize_t r = read(fd, s->buf + s->len, sizeof(s->buf) - s->len);
	size_t off = 0;

	(void)loop;
	(void)events;
	if (r <= 0) {
		site_drop(s);
		return;
	}
	s->len += (size_t)r;
	for (; s->len - off >= WIRE_LEN; off += WIRE_LEN) {
		struct wire_msg m;

		assert_int_equal(wire_decode(s->buf + off, WIRE_LEN, &m), 0);
		assert_int_equal(m.type, WIRE_REQUEST);
		if (!s->broken && m.seq == s->break_at) {
			struct linger l = {.l_onoff = 1, .l_linger = 0};

			if (s->reset)
				assert_int_equal(
				    setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l)), 0);
			s->broken = 1;
			site_drop(s);
			return;
		}
		if (!s->broken && m.seq >= s->silent_from)
			continue;
		if (s->hold) {
			assert_true(s->nheld < sizeof(s->held) / sizeof(s->held[0]));
			s->held[s->nheld++] = m;
			if (s->nheld > s->most_held)
				s->most_held = s->nheld;
			continue;
		}
		site_reply(s, fd, &m);
	}
	memmove(s->buf, s->buf + off, s->len - off);
	s->len -= off;
}

static void site_on_listen(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct site *s = arg;
	int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	(void)events;
	assert_true(cfd != -1);
	if (s->replace && s->cfd != -1)
		site_drop(s);
	assert_int_equal(s->cfd, -1); /* one connection at a time */
	s->cfd = cfd;
	/* a new connection is answered throughout */
	if (++s->accepted > 1)
		s->broken = 1;
	assert_int_equal(loop_add(loop, &s->ch, cfd, EPOLLIN, site_on_conn, s), 0);
}

static void site_open(struct site *s, struct loop *loop, int listen_too)
{
	socklen_t len = sizeof(s->addr);

	s->loop = loop;
	s->cfd = -1;
	s->addr.sin_family = AF_INET;
	s->addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_true((s->lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0)) != -1);
	assert_int_equal(bind(s->lfd, (struct sockaddr *)&s->addr, sizeof(s->addr)), 0);
	assert_int_equal(getsockname(s->lfd, (struct sockaddr *)&s->addr, &len), 0);
	if (!listen_too) {
		/* a port of the kernel's choice that nothing listens on */
		close(s->lfd);
		s->lfd = -1;
		return;
	}
	assert_int_equal(listen(s->lfd, 16), 0);
	assert_int_equal(loop_add(loop, &s->lh, s->lfd, EPOLLIN, site_on_listen, s), 0);
	if (s->hold)
		assert_int_equal(
		    loop_timer_add(loop, &s->th, now_mono_ns() + 30 * MS, 30 * MS, site_on_tick, s),
		    0);
}

static void site_close(struct site *s)
{
	if (s->cfd != -1)
		site_drop(s);
	if (s->lfd != -1) {
		loop_del(s->loop, &s->lh);
		close(s->lfd);
	}
	if (s->hold)
		loop_timer_del(s->loop, &s->th);
}

/* tcp_count: a count of the summary's tcp object */
static json_int_t tcp_count(struct client *c, const char *name)
{
	json_t *o = client_tcp_json(c->tcp);
	json_int_t v;

	assert_non_null(o);
	assert_non_null(json_object_get(o, name));
	v = json_integer_value(json_object_get(o, name));
	json_decref(o);
	return v;
}

/* events_of: the events named name in the file, in order, as an array */
static json_t *events_of(const char *path, const char *name)
{
	FILE *fp = fopen(path, "r");
	json_t *all = json_array();
	char line[1024];

	assert_non_null(fp);
	while (fgets(line, sizeof(line), fp)) {
		json_t *o = json_loads(line, 0, NULL);

		assert_non_null(o);
		if (strcmp(json_string_value(json_object_get(o, "event")), name) == 0)
			json_array_append(all, o);
		json_decref(o);
	}
	fclose(fp);
	return all;
}

/* a watch on the loop itself: a timer every 10 ms, and the longest gap
 * between two of its firings: more than a request interval (50 ms) is a
 * process that stalled (a loaded gate's sanitizer build), whose requests
 * then go out in a burst, before it sees what the site did meanwhile */
struct stall_watch {
	struct loop_handler h;
	int64_t last, worst;
};

static void stall_on_tick(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct stall_watch *w = arg;
	int64_t now = now_mono_ns();

	(void)loop;
	(void)events;
	loop_timer_read(fd);
	if (now - w->last > w->worst)
		w->worst = now - w->last;
	w->last = now;
}

/* break_run: 10 requests 50 ms apart to a site that answers seq 0 to 2,
 * not 3, and breaks the connection (reset or not) when seq 4 arrives */
static void break_run(int reset, const char *cause)
{
	struct loop *loop = loop_new();
	struct site s = {.silent_from = 3, .break_at = 4, .reset = reset};
	struct client c;
	struct client_cfg cfg = {
	    .id = 1, .rate = 20, .timeout_ns = 400 * MS, .duration_ns = 500 * MS};
	char path[] = "/tmp/test_client_tcpXXXXXX";
	struct stall_watch w = {.worst = 0};
	struct event_log *ev;
	json_t *failed, *connected, *f;
	int fd;

	assert_non_null(loop);
	assert_true((fd = mkstemp(path)) != -1);
	close(fd);
	assert_non_null(ev = event_open(path, "c1", "client"));
	site_open(&s, loop, 1);
	cfg.target.sin = s.addr;
	/* the first connection is up before the first request falls due */
	assert_int_equal(client_start_tcp(&c, loop, &cfg, NULL, ev, NULL, NULL), 0);
	w.last = now_mono_ns();
	assert_int_equal(loop_timer_add(loop, &w.h, w.last + 10 * MS, 10 * MS, stall_on_tick, &w),
			 0);
	assert_int_equal(loop_run(loop), 0);
	loop_timer_del(loop, &w.h);
	client_finish(&c);
	event_close(ev);
	assert_int_equal(c.stats.sent, 10);
	if (w.worst > 50 * MS) {
		/* a stall: more of the requests may have gone on the connection
		 * before the client saw it break, each an error with 3 and 4 */
		print_message("the loop stalled %lld ms: the run's shape not checked\n",
			      (long long)(w.worst / MS));
		assert_int_equal(c.stats.lost, 0);
		assert_true(c.stats.errors >= 2);
		assert_int_equal(c.stats.ok + c.stats.errors, 10);
		assert_int_equal(s.answered, c.stats.ok);
		assert_int_equal(tcp_count(&c, reset ? "resets" : "eofs"), 1);
		unlink(path);
		client_close(&c);
		site_close(&s);
		loop_free(loop);
		return;
	}
	/* 3 and 4 were outstanding on the broken connection: errors at once,
	 * not timeouts; 5 to 9 went on the next one */
	assert_int_equal(c.stats.ok, 8);
	assert_int_equal(c.stats.errors, 2);
	assert_int_equal(c.stats.lost, 0);
	assert_int_equal(s.accepted, 2);
	assert_int_equal(s.answered, 8);
	assert_int_equal(tcp_count(&c, "connects"), 2);
	assert_int_equal(tcp_count(&c, reset ? "resets" : "eofs"), 1);
	assert_int_equal(tcp_count(&c, "unconnected"), 0);
	connected = events_of(path, "tcp_connected");
	assert_int_equal(json_array_size(connected), 2);
	assert_int_equal(
	    json_integer_value(json_object_get(json_array_get(connected, 1), "attempt")), 2);
	failed = events_of(path, "tcp_failed");
	assert_int_equal(json_array_size(failed), 1);
	f = json_array_get(failed, 0);
	assert_string_equal(json_string_value(json_object_get(f, "cause")), cause);
	assert_int_equal(json_integer_value(json_object_get(f, "outstanding")), 2);
	assert_true(json_is_true(json_object_get(f, "connected")));
	/* the connection had carried replies: the next attempt at once */
	assert_int_equal(json_integer_value(json_object_get(f, "retry_ns")), 0);
	json_decref(connected);
	json_decref(failed);
	unlink(path);
	client_close(&c);
	site_close(&s);
	loop_free(loop);
}

static void test_reset_mid_run(void **state)
{
	(void)state;
	break_run(1, "reset");
}

static void test_eof_mid_run(void **state)
{
	(void)state;
	break_run(0, "eof");
}

/* a site that stops answering on its first connection from seq 3 on,
 * keeping it open: when 3 has gone unanswered for the timeout it is lost,
 * and the client gives the connection up (an HTTP client's request
 * timeout): cause stalled, what was sent after 3 recorded as errors, and
 * the requests after it go on a new connection, answered */
static void test_stalled(void **state)
{
	struct loop *loop = loop_new();
	struct site s = {.silent_from = 3, .break_at = UINT64_MAX};
	struct client c;
	/* 100 ms apart, a timeout of 250 ms: 3's expiry may come up to 100 ms
	 * late (a loaded gate's sanitizer run beside four labs: at 50 ms apart
	 * and 120 ms, 4 expired with it, two lost) before 4's is due */
	struct client_cfg cfg = {
	    .id = 1, .rate = 10, .timeout_ns = 250 * MS, .duration_ns = 1000 * MS};
	char path[] = "/tmp/test_client_tcpXXXXXX";
	struct event_log *ev;
	json_t *failed, *f;
	int fd;

	(void)state;
	assert_non_null(loop);
	assert_true((fd = mkstemp(path)) != -1);
	close(fd);
	assert_non_null(ev = event_open(path, "c1", "client"));
	site_open(&s, loop, 1);
	cfg.target.sin = s.addr;
	assert_int_equal(client_start_tcp(&c, loop, &cfg, NULL, ev, NULL, NULL), 0);
	assert_int_equal(loop_run(loop), 0);
	client_finish(&c);
	event_close(ev);
	assert_int_equal(c.stats.sent, 10);
	/* 3 lost; 4 and 5 (sent 100 and 200 ms after it) outstanding on the
	 * connection given up, errors (4 alone if 5 was not sent yet), and one
	 * falling due while the client connects again, if the expiry came late
	 * (6 unconnected); the rest answered on the second connection. An
	 * expiry more than 100 ms late (the sanitizers' build beside four
	 * labs) finds 4 past its timeout too: lost with 3, as a user would
	 * count it, and one error fewer */
	assert_true(c.stats.lost >= 1 && c.stats.lost <= 2);
	assert_true(c.stats.errors + c.stats.lost >= 2 && c.stats.errors + c.stats.lost <= 4);
	assert_true(c.stats.ok >= 1);
	assert_int_equal(c.stats.ok + c.stats.errors + c.stats.lost, 10);
	assert_int_equal(s.accepted, 2);
	assert_int_equal(tcp_count(&c, "stalls"), 1);
	assert_int_equal(tcp_count(&c, "connects"), 2);
	failed = events_of(path, "tcp_failed");
	assert_int_equal(json_array_size(failed), 1);
	f = json_array_get(failed, 0);
	assert_string_equal(json_string_value(json_object_get(f, "cause")), "stalled");
	assert_int_equal(json_integer_value(json_object_get(f, "outstanding")) +
			     tcp_count(&c, "unconnected"),
			 (json_int_t)c.stats.errors);
	assert_true(json_integer_value(json_object_get(f, "outstanding")) >= 1);
	assert_true(json_is_true(json_object_get(f, "connected")));
	json_decref(failed);
	unlink(path);
	client_close(&c);
	site_close(&s);
	loop_free(loop);
}

/* a target nothing listens on: every request an error (unconnected), the
 * attempts refused at 0, at once, then after 100 ms, and none more before
 * the run's 200 ms are over (the next is 200 ms after that) */
static void test_refused_backoff(void **state)
{
	struct loop *loop = loop_new();
	struct site s = {0};
	struct client c;
	struct client_cfg cfg = {
	    .id = 2, .rate = 20, .timeout_ns = 400 * MS, .duration_ns = 250 * MS};

	(void)state;
	assert_non_null(loop);
	site_open(&s, loop, 0);
	cfg.target.sin = s.addr;
	assert_int_equal(client_start_tcp(&c, loop, &cfg, NULL, NULL, NULL, NULL), 0);
	assert_int_equal(loop_run(loop), 0);
	client_finish(&c);
	assert_int_equal(c.stats.sent, 5);
	assert_int_equal(c.stats.errors, 5);
	assert_int_equal(c.stats.ok + c.stats.lost, 0);
	assert_int_equal(tcp_count(&c, "unconnected"), 5);
	assert_int_equal(tcp_count(&c, "connects"), 0);
	assert_int_equal(tcp_count(&c, "refused"), 3);
	client_close(&c);
	loop_free(loop);
}

/* try_next_run: 10 requests to a DNS answer of two addresses whose first,
 * 127.0.0.2, refuses (nothing listens there on the site's port) and whose
 * second is the site; pick says what the client does with them. Its stats
 * to *st, its tcp counts returned. */
static json_t *try_next_run(enum client_pick pick, struct client_stats *st, const char *path)
{
	struct loop *loop = loop_new();
	struct site s = {.silent_from = UINT64_MAX, .break_at = UINT64_MAX};
	struct client_cfg cfg = {.id = 3,
				 .rate = 20,
				 .timeout_ns = 400 * MS,
				 .connect_timeout_ns = 100 * MS,
				 .duration_ns = 500 * MS};
	struct client_dns d = {.pick = pick, .have = 1, .naddrs = 2};
	struct event_log *ev;
	struct client c;
	json_t *counts;

	assert_non_null(loop);
	assert_non_null(ev = event_open(path, "c1", "client"));
	site_open(&s, loop, 1);
	d.addrs[0].s_addr = htonl(INADDR_LOOPBACK + 1);
	d.addrs[1] = s.addr.sin_addr;
	d.addr = d.addrs[0];
	cfg.target.sin = s.addr;
	cfg.target.sin.sin_addr = d.addr;
	assert_int_equal(client_start_tcp(&c, loop, &cfg, NULL, ev, &d, NULL), 0);
	assert_int_equal(loop_run(loop), 0);
	client_finish(&c);
	event_close(ev);
	assert_int_equal(c.stats.sent, 10);
	*st = c.stats;
	assert_non_null(counts = client_tcp_json(c.tcp));
	client_close(&c);
	site_close(&s);
	loop_free(loop);
	return counts;
}

static json_int_t count_of(json_t *counts, const char *name)
{
	assert_non_null(json_object_get(counts, name));
	return json_integer_value(json_object_get(counts, name));
}

/* try-next: the refused first address, then the second at once, which
 * answers the run; first only: refused throughout, every request an error */
static void test_try_next(void **state)
{
	char path[] = "/tmp/test_client_tcpXXXXXX";
	json_t *failed, *connected, *f, *counts;
	struct client_stats st;
	int fd;

	(void)state;
	assert_true((fd = mkstemp(path)) != -1);
	close(fd);
	counts = try_next_run(CLIENT_PICK_NEXT, &st, path);
	assert_int_equal(st.ok, 10);
	assert_int_equal(count_of(counts, "connects"), 1);
	assert_int_equal(count_of(counts, "refused"), 1);
	json_decref(counts);
	failed = events_of(path, "tcp_failed");
	assert_int_equal(json_array_size(failed), 1);
	f = json_array_get(failed, 0);
	assert_string_equal(json_string_value(json_object_get(f, "address")), "127.0.0.2");
	assert_true(json_is_true(json_object_get(f, "next")));
	assert_int_equal(json_integer_value(json_object_get(f, "retry_ns")), 0);
	connected = events_of(path, "tcp_connected");
	assert_int_equal(json_array_size(connected), 1);
	assert_string_equal(
	    json_string_value(json_object_get(json_array_get(connected, 0), "address")),
	    "127.0.0.1");
	json_decref(failed);
	json_decref(connected);

	assert_true((fd = open(path, O_WRONLY | O_TRUNC)) != -1);
	close(fd);
	counts = try_next_run(CLIENT_PICK_FIRST, &st, path);
	assert_int_equal(st.ok, 0);
	assert_int_equal(st.errors, 10);
	assert_int_equal(count_of(counts, "connects"), 0);
	assert_true(count_of(counts, "refused") >= 3);
	json_decref(counts);
	failed = events_of(path, "tcp_failed");
	assert_true(json_array_size(failed) >= 3);
	f = json_array_get(failed, 0);
	assert_string_equal(json_string_value(json_object_get(f, "address")), "127.0.0.2");
	assert_false(json_is_true(json_object_get(f, "next")));
	json_decref(failed);
	unlink(path);
}

/* try-next over IPv6: the AAAA answer's addresses walked as the A's are
 * (IPv4-mapped ones, so that 127.0.0.2 refuses and the site answers
 * without a second IPv6 address on lo): the refused first, then the
 * second at once */
static void test_try_next6(void **state)
{
	struct loop *loop = loop_new();
	struct site s = {.silent_from = UINT64_MAX, .break_at = UINT64_MAX};
	struct client_cfg cfg = {.id = 3,
				 .rate = 20,
				 .timeout_ns = 400 * MS,
				 .connect_timeout_ns = 100 * MS,
				 .duration_ns = 500 * MS,
				 .family_column = 1};
	struct client_dns d = {.pick = CLIENT_PICK_NEXT, .have = 1, .naddrs = 2};
	char path[] = "/tmp/test_client_tcpXXXXXX";
	struct event_log *ev;
	struct client c;
	json_t *failed, *connected;
	int fd;

	(void)state;
	assert_non_null(loop);
	assert_true((fd = mkstemp(path)) != -1);
	close(fd);
	assert_non_null(ev = event_open(path, "c1", "client"));
	site_open(&s, loop, 1);
	assert_int_equal(inet_pton(AF_INET6, "::ffff:127.0.0.2", &d.addrs6[0]), 1);
	assert_int_equal(inet_pton(AF_INET6, "::ffff:127.0.0.1", &d.addrs6[1]), 1);
	d.addr6 = d.addrs6[0];
	cfg.target.sin6.sin6_family = AF_INET6;
	cfg.target.sin6.sin6_port = s.addr.sin_port;
	cfg.target.sin6.sin6_addr = d.addr6;
	assert_int_equal(client_start_tcp(&c, loop, &cfg, NULL, ev, &d, NULL), 0);
	assert_int_equal(loop_run(loop), 0);
	client_finish(&c);
	event_close(ev);
	assert_int_equal(c.stats.sent, 10);
	assert_int_equal(c.stats.ok, 10);
	assert_int_equal(c.stats.ok6, c.stats.ok);
	assert_int_equal(tcp_count(&c, "connects"), 1);
	assert_int_equal(tcp_count(&c, "refused"), 1);
	failed = events_of(path, "tcp_failed");
	assert_int_equal(json_array_size(failed), 1);
	assert_string_equal(
	    json_string_value(json_object_get(json_array_get(failed, 0), "address")),
	    "::ffff:127.0.0.2");
	assert_true(json_is_true(json_object_get(json_array_get(failed, 0), "next")));
	connected = events_of(path, "tcp_connected");
	assert_int_equal(json_array_size(connected), 1);
	assert_string_equal(
	    json_string_value(json_object_get(json_array_get(connected, 0), "address")),
	    "::ffff:127.0.0.1");
	json_decref(failed);
	json_decref(connected);
	unlink(path);
	client_close(&c);
	site_close(&s);
	loop_free(loop);
}

/* try-next, family dual: each step of the walk a Happy Eyeballs race of
 * the AAAA answer's address and the A answer's at the same place (RFC
 * 8305's interleaving, a pair at a time). Step 0: [::1] refuses, the IPv4
 * attempt starts at once, 127.0.0.2 refuses: the race lost, the next step
 * at once; step 1: [::1] refuses again, 127.0.0.1 (the site) connects and
 * carries every request, each recorded as fallen back to IPv4 */
static void test_try_next_dual(void **state)
{
	struct site s = {.silent_from = UINT64_MAX, .break_at = UINT64_MAX};
	struct client_cfg cfg = {.id = 1,
				 .rate = 20,
				 .timeout_ns = 2000 * MS,
				 .duration_ns = 200 * MS,
				 .attempt_delay_ns = 1000 * MS,
				 .family_column = 1};
	struct client_dns d6 = {.pick = CLIENT_PICK_NEXT, .have = 1, .naddrs = 2},
			  d4 = {.pick = CLIENT_PICK_NEXT, .have = 1, .naddrs = 2};
	struct loop *loop = loop_new();
	char path[] = "/tmp/test_client_tcpXXXXXX";
	struct sockaddr_in6 dead = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT};
	socklen_t len = sizeof(dead);
	struct event_log *ev;
	struct client c;
	json_t *failed, *connected;
	int fd, probe;

	(void)state;
	assert_non_null(loop);
	/* a free port on ::1: bound, then closed */
	assert_true((probe = socket(AF_INET6, SOCK_STREAM, 0)) != -1);
	assert_int_equal(bind(probe, (struct sockaddr *)&dead, sizeof(dead)), 0);
	assert_int_equal(getsockname(probe, (struct sockaddr *)&dead, &len), 0);
	close(probe);
	assert_true((fd = mkstemp(path)) != -1);
	close(fd);
	assert_non_null(ev = event_open(path, "c1", "client"));
	site_open(&s, loop, 1);
	d6.addrs6[0] = d6.addrs6[1] = d6.addr6 = in6addr_loopback;
	d4.addrs[0].s_addr = htonl(INADDR_LOOPBACK + 1);
	d4.addrs[1] = s.addr.sin_addr;
	d4.addr = d4.addrs[0];
	cfg.target.sin6 = dead;
	cfg.fallback.sin = s.addr;
	cfg.fallback.sin.sin_addr = d4.addr;
	assert_int_equal(client_start_tcp(&c, loop, &cfg, NULL, ev, &d6, &d4), 0);
	assert_int_equal(loop_run(loop), 0);
	client_finish(&c);
	event_close(ev);
	assert_int_equal(c.stats.sent, 4);
	assert_int_equal(c.stats.ok, 4);
	assert_int_equal(c.stats.ok4, 4);
	assert_int_equal(c.stats.fell_back, 4);
	assert_int_equal(s.accepted, 1);
	failed = events_of(path, "tcp_failed");
	assert_int_equal(json_array_size(failed), 1);
	assert_string_equal(
	    json_string_value(json_object_get(json_array_get(failed, 0), "address")), "127.0.0.2");
	assert_true(json_is_true(json_object_get(json_array_get(failed, 0), "next")));
	connected = events_of(path, "tcp_connected");
	assert_int_equal(json_array_size(connected), 1);
	assert_string_equal(
	    json_string_value(json_object_get(json_array_get(connected, 0), "address")),
	    "127.0.0.1");
	json_decref(failed);
	json_decref(connected);
	unlink(path);
	client_close(&c);
	site_close(&s);
	loop_free(loop);
}

/* knobs_run: requests at rate for duration to a site s (opened here),
 * the client configured by cfg (target set here); the event file at path */
static void knobs_run(struct site *s, struct client *c, struct client_cfg *cfg, const char *path)
{
	struct loop *loop = loop_new();
	struct event_log *ev;

	assert_non_null(loop);
	assert_non_null(ev = event_open(path, "c1", "client"));
	site_open(s, loop, 1);
	cfg->target.sin = s->addr;
	assert_int_equal(client_start_tcp(c, loop, cfg, NULL, ev, NULL, NULL), 0);
	assert_int_equal(loop_run(loop), 0);
	client_finish(c);
	event_close(ev);
}

/* knobs_done: what knobs_run left */
static void knobs_done(struct site *s, struct client *c, const char *path)
{
	struct loop *loop = c->loop;

	unlink(path);
	client_close(c);
	site_close(s);
	loop_free(loop);
}

/* Happy Eyeballs (family dual): the IPv6 attempt refused at once (no
 * listener on [::1]'s port), the IPv4 one starts without waiting for the
 * attempt delay and carries every request, each recorded as over IPv4,
 * fallen back; tcp_connected names the IPv4 address */
static void test_happy_eyeballs(void **state)
{
	struct site s = {.silent_from = UINT64_MAX, .break_at = UINT64_MAX};
	struct client_cfg cfg = {.id = 1,
				 .rate = 20,
				 .timeout_ns = 2000 * MS,
				 .duration_ns = 200 * MS,
				 .attempt_delay_ns = 1000 * MS,
				 .family_column = 1};
	struct loop *loop = loop_new();
	char path[] = "/tmp/test_client_tcpXXXXXX";
	struct sockaddr_in6 dead = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT};
	socklen_t len = sizeof(dead);
	struct event_log *ev;
	struct client c;
	json_t *connected;
	int fd, probe;

	(void)state;
	assert_non_null(loop);
	/* a free port on ::1: bound, then closed */
	assert_true((probe = socket(AF_INET6, SOCK_STREAM, 0)) != -1);
	assert_int_equal(bind(probe, (struct sockaddr *)&dead, sizeof(dead)), 0);
	assert_int_equal(getsockname(probe, (struct sockaddr *)&dead, &len), 0);
	close(probe);
	assert_true((fd = mkstemp(path)) != -1);
	close(fd);
	assert_non_null(ev = event_open(path, "c1", "client"));
	site_open(&s, loop, 1);
	cfg.target.sin6 = dead;
	cfg.fallback.sin = s.addr;
	assert_int_equal(client_start_tcp(&c, loop, &cfg, NULL, ev, NULL, NULL), 0);
	assert_int_equal(loop_run(loop), 0);
	client_finish(&c);
	event_close(ev);
	assert_int_equal(c.stats.sent, 4);
	assert_int_equal(c.stats.ok, 4);
	assert_int_equal(c.stats.ok4, 4);
	assert_int_equal(c.stats.fell_back, 4);
	assert_int_equal(c.stats.errors + c.stats.lost, 0);
	assert_int_equal(s.accepted, 1);
	connected = events_of(path, "tcp_connected");
	assert_int_equal(json_array_size(connected), 1);
	assert_string_equal(
	    json_string_value(json_object_get(json_array_get(connected, 0), "address")),
	    "127.0.0.1");
	json_decref(connected);
	unlink(path);
	client_close(&c);
	site_close(&s);
	loop_free(loop);
}

/* -N 3: ten requests on four connections of 3, 3, 3 and 1, each closed
 * (a FIN, tcp_closed "requests") once its three were answered; none lost,
 * none an error: the requests falling due meanwhile waited for the next */
static void test_requests_per_conn(void **state)
{
	struct site s = {.silent_from = UINT64_MAX, .break_at = UINT64_MAX, .replace = 1};
	struct client_cfg cfg = {.id = 1,
				 .rate = 20,
				 .timeout_ns = 2000 * MS,
				 .duration_ns = 500 * MS,
				 .requests_per_conn = 3};
	char path[] = "/tmp/test_client_tcpXXXXXX";
	struct client c;
	json_t *closed;
	int fd;

	(void)state;
	assert_true((fd = mkstemp(path)) != -1);
	close(fd);
	knobs_run(&s, &c, &cfg, path);
	assert_int_equal(c.stats.sent, 10);
	assert_int_equal(c.stats.ok, 10);
	assert_int_equal(c.stats.errors + c.stats.lost, 0);
	assert_int_equal(s.accepted, 4);
	assert_int_equal(tcp_count(&c, "connects"), 4);
	assert_int_equal(tcp_count(&c, "rotated"), 3);
	assert_int_equal(tcp_count(&c, "idled"), 0);
	closed = events_of(path, "tcp_closed");
	assert_int_equal(json_array_size(closed), 3);
	for (size_t i = 0; i < 3; i++) {
		json_t *e = json_array_get(closed, i);

		assert_string_equal(json_string_value(json_object_get(e, "reason")), "requests");
		assert_int_equal(json_integer_value(json_object_get(e, "requests")), 3);
	}
	json_decref(closed);
	knobs_done(&s, &c, path);
}

/* -I 40ms at 5 requests/s: each connection closed idle after its reply,
 * the next request opening a new one and waiting for it: five requests,
 * a connection each, every one answered. A stall of the test's process
 * past the 160 ms between a reply's idle close and the next request (the
 * sanitizers' build beside four labs stalled it 120 ms at 10 requests/s)
 * sends two requests on one new connection: one connection fewer, each
 * still closed idle */
static void test_idle_timeout(void **state)
{
	struct site s = {.silent_from = UINT64_MAX, .break_at = UINT64_MAX, .replace = 1};
	struct client_cfg cfg = {.id = 1,
				 .rate = 5,
				 .timeout_ns = 2000 * MS,
				 .duration_ns = 1000 * MS,
				 .idle_timeout_ns = 40 * MS};
	char path[] = "/tmp/test_client_tcpXXXXXX";
	struct client c;
	json_t *closed;
	int fd, conns;

	(void)state;
	assert_true((fd = mkstemp(path)) != -1);
	close(fd);
	knobs_run(&s, &c, &cfg, path);
	assert_int_equal(c.stats.sent, 5);
	assert_int_equal(c.stats.ok, 5);
	conns = tcp_count(&c, "connects");
	assert_true(conns >= 4 && conns <= 5);
	assert_int_equal(s.accepted, conns);
	/* the last connection may outlive the run */
	assert_true(tcp_count(&c, "idled") >= conns - 1);
	assert_int_equal(tcp_count(&c, "rotated"), 0);
	closed = events_of(path, "tcp_closed");
	assert_true((int)json_array_size(closed) >= conns - 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(closed, 0), "reason")),
			    "idle");
	json_decref(closed);
	knobs_done(&s, &c, path);
}

/* a site that answers every 30 ms what it holds, at 100 requests/s: with
 * no limit it holds three or so at once; -D 2 holds it to two, the others
 * waiting in the client (counted waited), all answered in the end */
static void test_pipeline(void **state)
{
	struct site s = {.silent_from = UINT64_MAX, .break_at = UINT64_MAX, .hold = 1};
	struct client_cfg cfg = {
	    .id = 1, .rate = 100, .timeout_ns = 2000 * MS, .duration_ns = 300 * MS};
	char path[] = "/tmp/test_client_tcpXXXXXX";
	struct client c;
	int fd;

	(void)state;
	assert_true((fd = mkstemp(path)) != -1);
	close(fd);
	knobs_run(&s, &c, &cfg, path);
	assert_int_equal(c.stats.ok, c.stats.sent);
	assert_true(s.most_held >= 3);
	/* no depth limit: none waits for one (the gate's sanitizer build once
	 * starved the connection past the first request's time: that one) */
	assert_true(tcp_count(&c, "waited") <= 1);
	knobs_done(&s, &c, path);

	memset(&s, 0, sizeof(s));
	s.silent_from = s.break_at = UINT64_MAX;
	s.hold = 1;
	cfg.pipeline = 2;
	knobs_run(&s, &c, &cfg, path);
	assert_int_equal(c.stats.sent, 30);
	assert_int_equal(c.stats.ok, 30);
	assert_int_equal(s.most_held, 2);
	assert_true(tcp_count(&c, "waited") >= 5);
	assert_int_equal(tcp_count(&c, "connects"), 1);
	knobs_done(&s, &c, path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rx_split),	   cmocka_unit_test(test_rx_coalesced),
	    cmocka_unit_test(test_rx_bad),	   cmocka_unit_test(test_backoff),
	    cmocka_unit_test(test_causes),	   cmocka_unit_test(test_reset_mid_run),
	    cmocka_unit_test(test_eof_mid_run),	   cmocka_unit_test(test_refused_backoff),
	    cmocka_unit_test(test_try_next),	   cmocka_unit_test(test_stalled),
	    cmocka_unit_test(test_try_next6),	   cmocka_unit_test(test_try_next_dual),
	    cmocka_unit_test(test_happy_eyeballs), cmocka_unit_test(test_requests_per_conn),
	    cmocka_unit_test(test_idle_timeout),   cmocka_unit_test(test_pipeline),
	};

	return cmocka_run_group_tests_name("client_tcp", tests, NULL, NULL);
}
