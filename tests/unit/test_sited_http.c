/* sited over HTTP/1.1 (agents/sited/http.h): what sited_http_answer decides
 * (a lab target answered 200 naming the site, the drain flag, 503 while
 * degraded, the health page, another method), then libmicrohttpd on
 * 127.0.0.1 with a port the kernel picks, the test playing the client on one
 * kept-alive connection and turning the loop; and on the wildcard, a GET
 * over [::1] answered as one over 127.0.0.1, in the same counts. */
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
#include <errno.h>
#include <sys/socket.h>

#include "agents/sited/http.h"
#include "httpwire.h"
#include "loop.h"
#include "timeutil.h"

static void test_answer(void **state)
{
	struct sited_server srv = {.site = "http-a"};
	struct sited_http_counts n = {0};
	struct sited_http_reply r;
	struct wire_msg m;

	(void)state;
	sited_http_answer(&srv, "GET", "/steerlab/3/17/123", &r, &n);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.header, "site=http-a client=3 seq=17 sent=123 flags=0");
	assert_int_equal(httpwire_value_decode(r.header, strlen(r.header), &m), 0);
	srv.draining = 1;
	sited_http_answer(&srv, "GET", "/steerlab/3/18/124", &r, &n);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.header, "site=http-a client=3 seq=18 sent=124 flags=1");
	srv.draining = 0;
	srv.degraded = 1;
	sited_http_answer(&srv, "GET", "/steerlab/3/19/125", &r, &n);
	assert_int_equal(r.status, 503);
	assert_string_equal(r.header, "site=http-a client=3 seq=19 sent=125 flags=0");
	sited_http_answer(&srv, "GET", "/", &r, &n);
	assert_int_equal(r.status, 503);
	assert_string_equal(r.header, "");
	srv.degraded = 0;
	sited_http_answer(&srv, "GET", "/health", &r, &n);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.body, "ok\n");
	sited_http_answer(&srv, "POST", "/steerlab/3/20/126", &r, &n);
	assert_int_equal(r.status, 405);
	assert_int_equal(n.requests, 3);
	assert_int_equal(n.replies, 2);
	assert_int_equal(n.unavailable, 1);
	assert_int_equal(n.other, 2);
	assert_int_equal(n.bad, 1);
}

/* http_exchange: request on fd, the loop turned until the whole response
 * (head and a Content-Length body) is read into buf: its length */
static size_t http_exchange(struct loop *loop, int fd, const char *request, char *buf, size_t len)
{
	int64_t end = now_mono_ns() + 5 * NSEC_PER_SEC;
	size_t have = 0;

	assert_int_equal(send(fd, request, strlen(request), 0), (ssize_t)strlen(request));
	while (now_mono_ns() < end) {
		const char *blank, *cl;
		ssize_t r;

		assert_true(loop_once(loop, 10) >= 0);
		r = recv(fd, buf + have, len - 1 - have, MSG_DONTWAIT);
		if (r == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			continue;
		assert_true(r > 0);
		have += (size_t)r;
		buf[have] = '\0';
		if ((blank = strstr(buf, "\r\n\r\n")) && (cl = strstr(buf, "Content-Length: ")) &&
		    have >= (size_t)(blank + 4 - buf) + strtoul(cl + 16, NULL, 10))
			return have;
	}
	fail_msg("no whole response in 5 s: '%s'", buf);
	return 0;
}

static void test_served(void **state)
{
	struct sockaddr_in addr = {.sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct sited_server srv = {.fd = -1, .local_fd = -1, .site = "http-b"};
	struct loop *loop = loop_new();
	struct sited_http h;
	struct wire_msg m;
	char buf[2048];
	size_t n;
	int fd;

	(void)state;
	assert_non_null(loop);
	assert_int_equal(sited_http_open(&h, loop, &srv, &addr, 16), 0);
	assert_int_equal(strncmp(h.server, "libmicrohttpd 0.", 16), 0);
	addr.sin_port = htons(sited_http_port(&h));
	assert_true(addr.sin_port != 0);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
	n = http_exchange(loop, fd, "GET /steerlab/7/1/99 HTTP/1.1\r\nHost: x\r\n\r\n", buf,
			  sizeof(buf));
	assert_int_equal(httpwire_reply_decode((const uint8_t *)buf, n, &m), 0);
	assert_string_equal(m.site, "http-b");
	assert_int_equal(m.client_id, 7);
	assert_int_equal(m.seq, 1);
	assert_int_equal(m.sent_ns, 99);
	assert_null(strstr(buf, "Connection: close"));
	assert_non_null(strstr(buf, "\r\nServer: libmicrohttpd/0."));
	/* the same connection, kept alive: degraded, a 503 naming the site */
	srv.degraded = 1;
	n = http_exchange(loop, fd, "GET /steerlab/7/2/100 HTTP/1.1\r\nHost: x\r\n\r\n", buf,
			  sizeof(buf));
	assert_int_equal(httpwire_status((const uint8_t *)buf, n), 503);
	assert_int_equal(httpwire_reply_decode((const uint8_t *)buf, n, &m), -1);
	assert_non_null(strstr(buf, "X-Steerlab: site=http-b client=7 seq=2 sent=100 flags=0"));
	assert_int_equal(h.counts.accepted, 1);
	assert_int_equal(h.counts.requests, 2);
	assert_int_equal(h.counts.replies, 1);
	assert_int_equal(h.counts.unavailable, 1);
	close(fd);
	for (int i = 0; i < 100 && h.counts.closed == 0; i++)
		assert_true(loop_once(loop, 10) >= 0);
	assert_int_equal(h.counts.closed, 1);
	sited_http_close(&h);
	sited_http_close(&h); /* twice: nothing */
	loop_free(loop);
}

/* http_get: a GET of the lab's target on a new connection to `to`: the
 * site the answer names */
static void http_get(struct loop *loop, union sited_addr to, uint64_t seq, const char *site)
{
	char req[128], buf[2048];
	struct wire_msg m;
	size_t n;
	int fd = socket(to.sa->sa_family, SOCK_STREAM, 0);

	assert_true(fd != -1);
	assert_int_equal(connect(fd, to.sa, sited_addr_len(to)), 0);
	snprintf(req, sizeof(req), "GET /steerlab/7/%llu/99 HTTP/1.1\r\nHost: x\r\n\r\n",
		 (unsigned long long)seq);
	n = http_exchange(loop, fd, req, buf, sizeof(buf));
	assert_int_equal(httpwire_status((const uint8_t *)buf, n), 200);
	assert_int_equal(httpwire_reply_decode((const uint8_t *)buf, n, &m), 0);
	assert_string_equal(m.site, site);
	assert_int_equal(m.seq, seq);
	close(fd);
}

/* on the wildcard, a second daemon listens on [::]: a GET over [::1] is
 * answered as one over 127.0.0.1, both in one count */
static void test_served6(void **state)
{
	struct sockaddr_in any = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)},
			   lo = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct sockaddr_in6 lo6 = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT};
	struct sited_server srv = {.fd = -1, .fd6 = -1, .local_fd = -1, .site = "http-6"};
	struct loop *loop = loop_new();
	struct sited_http h;

	(void)state;
	assert_non_null(loop);
	assert_int_equal(sited_http_open(&h, loop, &srv, &any, 16), 0);
	assert_non_null(h.mhd[1].daemon);
	lo.sin_port = lo6.sin6_port = htons(sited_http_port(&h));
	assert_true(lo.sin_port != 0);
	http_get(loop, &lo6, 1, "http-6");
	http_get(loop, &lo, 2, "http-6");
	http_get(loop, &lo6, 3, "http-6");
	assert_int_equal(h.counts.accepted, 3);
	assert_int_equal(h.counts.requests, 3);
	assert_int_equal(h.counts.replies, 3);
	for (int i = 0; i < 100 && h.counts.closed < 3; i++)
		assert_true(loop_once(loop, 10) >= 0);
	assert_int_equal(h.counts.closed, 3);
	sited_http_close(&h);
	loop_free(loop);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_answer),
	    cmocka_unit_test(test_served),
	    cmocka_unit_test(test_served6),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
