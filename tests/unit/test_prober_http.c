/*
 * The prober's http check (agents/prober/probe_http.c): a response head
 * classified (200 in the site's name passes; another site, a drained site,
 * a 503, another status, a stale or foreign answer fail), then against
 * sited's HTTP service (agents/sited/http.c) on loopback, turned by the
 * test: passes while the site is healthy, fails "unavailable" while it is
 * degraded and "drained" while drained, where the tcp check passes all
 * three; a closed port is refused. No root.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <cmocka.h>
#include <sys/socket.h>

#include "agents/prober/probe.h"
#include "agents/sited/http.h"
#include "loop.h"
#include "timeutil.h"

#define HEAD(status, value)                                                                        \
	(const uint8_t *)("HTTP/1.1 " status "\r\nX-Steerlab: " value "\r\n\r\n"),                 \
	    sizeof("HTTP/1.1 " status "\r\nX-Steerlab: " value "\r\n\r\n") - 1

static void test_classify(void **state)
{
	(void)state;
	assert_int_equal(
	    prober_http_check(HEAD("200 OK", "site=a client=0 seq=4 sent=1 flags=0"), 4, "a"),
	    PROBER_REPLY_OK);
	assert_int_equal(
	    prober_http_check(HEAD("200 OK", "site=b client=0 seq=4 sent=1 flags=0"), 4, "a"),
	    PROBER_REPLY_WRONG_SITE);
	assert_int_equal(
	    prober_http_check(HEAD("200 OK", "site=a client=0 seq=4 sent=1 flags=1"), 4, "a"),
	    PROBER_REPLY_DRAINING);
	assert_int_equal(
	    prober_http_check(HEAD("200 OK", "site=a client=0 seq=3 sent=1 flags=0"), 4, "a"),
	    PROBER_REPLY_STALE);
	assert_int_equal(
	    prober_http_check(HEAD("200 OK", "site=a client=7 seq=4 sent=1 flags=0"), 4, "a"),
	    PROBER_REPLY_BAD);
	assert_int_equal(
	    prober_http_check(
		HEAD("503 Service Unavailable", "site=a client=0 seq=4 sent=1 flags=0"), 4, "a"),
	    PROBER_REPLY_UNAVAILABLE);
	assert_int_equal(prober_http_check(HEAD("404 Not Found", "x"), 4, "a"),
			 PROBER_REPLY_UNAVAILABLE);
	assert_int_equal(prober_http_check((const uint8_t *)"SLRQ", 4, 4, "a"), PROBER_REPLY_BAD);
	assert_ptr_equal(prober_check_find("http"), &prober_check_http);
}

/* verdict: the check's outcome once there is one, sited's loop turned
 * meanwhile (5 s at most): the classification, or -errno */
static int verdict(struct loop *loop, const struct prober_check *check, struct prober_probe *p)
{
	int64_t end = now_mono_ns() + 5 * NSEC_PER_SEC;

	while (now_mono_ns() < end) {
		int r;

		assert_true(loop_once(loop, 5) >= 0);
		r = check->read(p);
		if (r != -1)
			return r;
		if (errno != EAGAIN)
			return -errno;
	}
	fail_msg("no outcome in 5 s");
	return 0;
}

static void test_against_sited(void **state)
{
	struct sockaddr_in addr = {.sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct sited_server srv = {.fd = -1, .local_fd = -1, .site = "a"};
	struct loop *loop = loop_new();
	struct prober_probe h, t;
	struct sited_http s;

	(void)state;
	assert_non_null(loop);
	assert_int_equal(sited_http_open(&s, loop, &srv, &addr, 16), 0);
	addr.sin_port = htons(sited_http_port(&s));
	assert_int_equal(prober_check_http.open(&h, (const struct sockaddr *)&addr, "a"), 0);
	assert_int_equal(prober_check_tcp.open(&t, (const struct sockaddr *)&addr, "a"), 0);
	for (int state_ = 0; state_ < 3; state_++) {
		static const int want_http[] = {PROBER_REPLY_OK, PROBER_REPLY_UNAVAILABLE,
						PROBER_REPLY_DRAINING};

		srv.degraded = state_ == 1;
		srv.draining = state_ == 2;
		assert_int_equal(prober_check_http.send(&h, NSEC_PER_SEC), 0);
		assert_int_equal(verdict(loop, &prober_check_http, &h), want_http[state_]);
		assert_int_equal(h.conn, -1);
		/* the shallow check sees a healthy host every time */
		assert_int_equal(prober_check_tcp.send(&t, NSEC_PER_SEC), 0);
		assert_int_equal(verdict(loop, &prober_check_tcp, &t), PROBER_REPLY_OK);
	}
	assert_int_equal(s.counts.requests, 3);
	assert_int_equal(s.counts.unavailable, 1);
	/* the site gone: refused */
	sited_http_close(&s);
	assert_int_equal(prober_check_http.send(&h, NSEC_PER_SEC), 0);
	assert_int_equal(verdict(loop, &prober_check_http, &h), -ECONNREFUSED);
	prober_check_http.close(&h);
	prober_check_tcp.close(&t);
	loop_free(loop);
}

/* a GET of the caller's path: its status, and a string in the body's first
 * 5,120 bytes, a body still coming said */
static void test_match(void **state)
{
	static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n";
	static const char gone[] = "HTTP/1.1 503 Service Unavailable\r\n\r\ndegraded\n";
	static const char part[] = "HTTP/1.1 200 OK\r\nContent-length: 9000\r\n\r\nnot yet";
	int more;

	(void)state;
	assert_int_equal(prober_http_match((const uint8_t *)ok, strlen(ok), 200, NULL, &more),
			 PROBER_REPLY_OK);
	assert_int_equal(prober_http_match((const uint8_t *)ok, strlen(ok), 200, "ok", &more),
			 PROBER_REPLY_OK);
	assert_int_equal(prober_http_match((const uint8_t *)ok, strlen(ok), 200, "ko", &more),
			 PROBER_REPLY_UNAVAILABLE);
	assert_int_equal(more, 0);
	assert_int_equal(prober_http_match((const uint8_t *)ok, strlen(ok), 204, NULL, &more),
			 PROBER_REPLY_UNAVAILABLE);
	assert_int_equal(prober_http_match((const uint8_t *)gone, strlen(gone), 200, NULL, &more),
			 PROBER_REPLY_UNAVAILABLE);
	assert_int_equal(
	    prober_http_match((const uint8_t *)gone, strlen(gone), 503, "degraded", &more),
	    PROBER_REPLY_OK);
	/* 9000 bytes announced: the first 5,120 may still hold it */
	assert_int_equal(
	    prober_http_match((const uint8_t *)part, strlen(part), 200, "ready", &more),
	    PROBER_REPLY_UNAVAILABLE);
	assert_int_equal(more, 1);
	/* no head yet, or no HTTP */
	assert_int_equal(prober_http_match((const uint8_t *)ok, 20, 200, NULL, &more),
			 PROBER_REPLY_BAD);
	assert_int_equal(
	    prober_http_match((const uint8_t *)"SSH-2.0\r\n\r\n", 11, 200, NULL, &more),
	    PROBER_REPLY_BAD);
}

/* the health page of sited -H: /health answered 200 "ok", 503 degraded,
 * late while slow */
static void test_path_against_sited(void **state)
{
	struct sockaddr_in addr = {.sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct sited_server srv = {.fd = -1, .local_fd = -1, .site = "a"};
	struct loop *loop = loop_new();
	struct prober_probe h;
	struct sited_http s;

	(void)state;
	assert_non_null(loop);
	assert_int_equal(sited_http_open(&s, loop, &srv, &addr, 16), 0);
	addr.sin_port = htons(sited_http_port(&s));
	assert_int_equal(prober_check_http.open(&h, (const struct sockaddr *)&addr, "a"), 0);
	h.http_path = "/health";
	h.http_status = 200;
	h.http_body = "ok";
	assert_int_equal(prober_check_http.send(&h, NSEC_PER_SEC), 0);
	assert_int_equal(verdict(loop, &prober_check_http, &h), PROBER_REPLY_OK);
	srv.degraded = 1;
	assert_int_equal(prober_check_http.send(&h, NSEC_PER_SEC), 0);
	assert_int_equal(verdict(loop, &prober_check_http, &h), PROBER_REPLY_UNAVAILABLE);
	/* a body string that is not there fails a 200 too */
	srv.degraded = 0;
	h.http_body = "ready";
	assert_int_equal(prober_check_http.send(&h, NSEC_PER_SEC), 0);
	assert_int_equal(verdict(loop, &prober_check_http, &h), PROBER_REPLY_UNAVAILABLE);
	/* slow: the answer held 100 ms (the request suspended in
	 * libmicrohttpd, resumed by sited's tick) */
	h.http_body = "ok";
	srv.slow_ns = 100 * 1000000LL;
	{
		int64_t sent = now_mono_ns();

		assert_int_equal(prober_check_http.send(&h, NSEC_PER_SEC), 0);
		assert_int_equal(verdict(loop, &prober_check_http, &h), PROBER_REPLY_OK);
		assert_true(now_mono_ns() - sent >= 100 * 1000000LL);
	}
	/* a connection's own timeout: the probe's deadline is the connect's
	 * until the request is written, then the response's from there */
	h.connect_timeout_ns = 20 * 1000000LL;
	assert_int_equal(prober_check_http.send(&h, 500 * 1000000LL), 0);
	assert_int_equal(h.deadline, h.sent + 20 * 1000000LL);
	assert_int_equal(verdict(loop, &prober_check_http, &h), PROBER_REPLY_OK);
	assert_true(h.deadline >= h.sent + 500 * 1000000LL);
	assert_int_equal(s.counts.other, 5);
	prober_check_http.close(&h);
	sited_http_close(&s);
	loop_free(loop);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_classify),
	    cmocka_unit_test(test_against_sited),
	    cmocka_unit_test(test_match),
	    cmocka_unit_test(test_path_against_sited),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
