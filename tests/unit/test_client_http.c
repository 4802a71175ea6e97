/*
 * The client's HTTP transport (agents/client/http.c): the cause each
 * libcurl outcome stands for; then over loopback, libcurl in the client's
 * own loop against sited's HTTP service (agents/sited/http.c) in the same
 * loop: requests answered 200 by the site over kept-alive connections,
 * matched by sequence; a degraded site's 503s recorded as errors
 * (unavailable), each an http_failed event with its status; a port nothing
 * listens on refused; a listener that never answers: the requests lost at
 * the timeout, their transfers aborted. No root.
 */
#include <errno.h>
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
#include <curl/curl.h>
#include <jansson.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "agents/client/http.h"
#include "agents/client/traffic.h"
#include "agents/sited/http.h"
#include "event.h"
#include "loop.h"
#include "timeutil.h"

#define MS NSEC_PER_MSEC

static void test_causes(void **state)
{
	(void)state;
	assert_int_equal(client_http_cause_of(CURLE_OK, 0, 200), CLIENT_HTTP_NCAUSES);
	assert_int_equal(client_http_cause_of(CURLE_OK, 0, 503), CLIENT_HTTP_UNAVAILABLE);
	assert_int_equal(client_http_cause_of(CURLE_OK, 0, 404), CLIENT_HTTP_STATUS);
	assert_int_equal(client_http_cause_of(CURLE_COULDNT_CONNECT, ECONNREFUSED, 0),
			 CLIENT_HTTP_REFUSED);
	assert_int_equal(client_http_cause_of(CURLE_COULDNT_CONNECT, EHOSTUNREACH, 0),
			 CLIENT_HTTP_UNREACHABLE);
	assert_int_equal(client_http_cause_of(CURLE_COULDNT_CONNECT, ENETUNREACH, 0),
			 CLIENT_HTTP_UNREACHABLE);
	assert_int_equal(client_http_cause_of(CURLE_COULDNT_CONNECT, 0, 0), CLIENT_HTTP_OTHER);
	assert_int_equal(client_http_cause_of(CURLE_OPERATION_TIMEDOUT, 0, 0), CLIENT_HTTP_TIMEOUT);
	assert_int_equal(client_http_cause_of(CURLE_RECV_ERROR, ECONNRESET, 0), CLIENT_HTTP_RESET);
	assert_int_equal(client_http_cause_of(CURLE_SEND_ERROR, EPIPE, 0), CLIENT_HTTP_RESET);
	assert_int_equal(client_http_cause_of(CURLE_RECV_ERROR, 0, 0), CLIENT_HTTP_RESET);
	assert_int_equal(client_http_cause_of(CURLE_RECV_ERROR, EIO, 0), CLIENT_HTTP_OTHER);
	assert_int_equal(client_http_cause_of(CURLE_GOT_NOTHING, 0, 0), CLIENT_HTTP_EOF);
	assert_int_equal(client_http_cause_of(CURLE_PARTIAL_FILE, 0, 200), CLIENT_HTTP_EOF);
	assert_int_equal(client_http_cause_of(CURLE_WEIRD_SERVER_REPLY, 0, 0), CLIENT_HTTP_BAD);
	assert_int_equal(client_http_cause_of(CURLE_OUT_OF_MEMORY, 0, 0), CLIENT_HTTP_OTHER);
	assert_string_equal(client_http_cause_name(CLIENT_HTTP_REFUSED), "refused");
	assert_string_equal(client_http_cause_name(CLIENT_HTTP_UNAVAILABLE), "unavailable");
	assert_string_equal(client_http_cause_name(CLIENT_HTTP_NCAUSES), "other");
	assert_int_equal(strncmp(client_http_library(), "libcurl/", 8), 0);
}

/* http_count: a count of the summary's http object */
static json_int_t http_count(struct client *c, const char *name)
{
	json_t *o = client_http_json(c->http);
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

/* http_run: 10 requests 50 ms apart (timeout 150 ms) to target, libcurl
 * and whatever serves target turned by the same loop; its events in path */
static void http_run(struct loop *loop, struct client *c, const struct sockaddr_in *target,
		     char *path, int64_t timeout_ns)
{
	struct client_cfg cfg = {
	    .id = 5, .rate = 20, .timeout_ns = timeout_ns, .duration_ns = 500 * MS};
	struct event_log *ev;
	int fd;

	assert_true((fd = mkstemp(path)) != -1);
	close(fd);
	assert_non_null(ev = event_open(path, "c1", "client"));
	cfg.target.sin = *target;
	assert_int_equal(client_start_http(c, loop, &cfg, NULL, NULL, ev), 0);
	assert_int_equal(loop_run(loop), 0);
	client_finish(c);
	event_close(ev);
	assert_int_equal(c->stats.sent, 10);
}

/* served_run: a site (degraded or not) in a loop of its own, the client's
 * run against it; the site's counts into *counts, the client's http
 * summary into *summary */
static void served_run(int degraded, struct client *c, char *path, struct sited_http_counts *counts,
		       json_t **summary)
{
	struct sockaddr_in addr = {.sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct sited_server srv = {.fd = -1, .local_fd = -1, .site = "h1"};
	struct loop *loop = loop_new();
	struct sited_http h;

	assert_non_null(loop);
	srv.degraded = degraded;
	assert_int_equal(sited_http_open(&h, loop, &srv, &addr, 64), 0);
	addr.sin_port = htons(sited_http_port(&h));
	/* a reply within a second: the gate's sanitizer run beside four labs
	 * held this loop (client and site in one) past 150 ms, and 8 of 10
	 * requests timed out */
	http_run(loop, c, &addr, path, 1000 * MS);
	*counts = h.counts;
	*summary = client_http_json(c->http);
	client_close(c);
	sited_http_close(&h);
	loop_free(loop);
}

static void test_served(void **state)
{
	char path[] = "/tmp/test_client_httpXXXXXX", path2[] = "/tmp/test_client_httpXXXXXX";
	struct sited_http_counts n;
	struct client c;
	json_t *failed, *connected, *summary;

	(void)state;
	served_run(0, &c, path, &n, &summary);
	assert_int_equal(c.stats.ok, 10);
	assert_int_equal(c.stats.errors + c.stats.lost + c.stats.stray + c.stats.late, 0);
	assert_int_equal(c.tally.n, 1);
	assert_string_equal(c.tally.sites[0].site, "h1");
	/* one request at a time, 50 ms apart: one connection, kept alive; a
	 * machine starved by the gate's sanitizer build held a reply past the
	 * next request's time once, and libcurl opened a second: kept alive
	 * is far fewer connections than requests */
	assert_true(n.accepted >= 1 && n.accepted <= 3);
	assert_int_equal(n.replies, 10);
	/* who answered, from the replies' Server header */
	assert_int_equal(
	    strncmp(json_string_value(json_object_get(summary, "server")), "libmicrohttpd/0.", 16),
	    0);
	/* the client counts the connections the site accepted, and every
	 * other request went on one of them: a reply held past the next
	 * request's time (a gate's sanitizer unit tests beside four labs)
	 * makes libcurl open a second, as the site's count above allows */
	assert_int_equal(json_integer_value(json_object_get(summary, "connects")), n.accepted);
	assert_int_equal(json_integer_value(json_object_get(summary, "reused")), 10 - n.accepted);
	json_decref(summary);
	connected = events_of(path, "http_connected");
	assert_int_equal(json_array_size(connected), n.accepted);
	assert_string_equal(
	    json_string_value(json_object_get(json_array_get(connected, 0), "address")),
	    "127.0.0.1");
	json_decref(connected);
	unlink(path);

	/* degraded: every answer a 503, an error at once */
	served_run(1, &c, path2, &n, &summary);
	assert_int_equal(c.stats.ok, 0);
	assert_int_equal(c.stats.errors, 10);
	assert_int_equal(c.stats.lost, 0);
	assert_int_equal(n.unavailable, 10);
	assert_int_equal(json_integer_value(json_object_get(summary, "unavailable")), 10);
	/* a 503 is not a reply: no server said to have answered */
	assert_true(json_is_null(json_object_get(summary, "server")));
	json_decref(summary);
	failed = events_of(path2, "http_failed");
	assert_int_equal(json_array_size(failed), 10);
	assert_string_equal(json_string_value(json_object_get(json_array_get(failed, 0), "cause")),
			    "unavailable");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(failed, 0), "status")),
			 503);
	assert_true(json_is_true(json_object_get(json_array_get(failed, 9), "reused")));
	json_decref(failed);
	unlink(path2);
}

static void test_refused(void **state)
{
	struct sockaddr_in addr = {.sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(addr);
	struct loop *loop = loop_new();
	char path[] = "/tmp/test_client_httpXXXXXX";
	struct client c;
	int fd;

	(void)state;
	/* a port of the kernel's choice that nothing listens on */
	assert_true((fd = socket(AF_INET, SOCK_STREAM, 0)) != -1);
	assert_int_equal(bind(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&addr, &len), 0);
	close(fd);
	http_run(loop, &c, &addr, path, 150 * MS);
	assert_int_equal(c.stats.errors, 10);
	assert_int_equal(http_count(&c, "refused"), 10);
	unlink(path);
	client_close(&c);
	loop_free(loop);
}

static void test_silent(void **state)
{
	struct sockaddr_in addr = {.sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(addr);
	struct loop *loop = loop_new();
	char path[] = "/tmp/test_client_httpXXXXXX";
	struct client c;
	json_t *failed;
	int fd;

	(void)state;
	/* the kernel accepts, nobody answers */
	assert_true((fd = socket(AF_INET, SOCK_STREAM, 0)) != -1);
	assert_int_equal(bind(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&addr, &len), 0);
	assert_int_equal(listen(fd, 64), 0);
	http_run(loop, &c, &addr, path, 150 * MS);
	assert_int_equal(c.stats.lost, 10);
	assert_int_equal(c.stats.ok + c.stats.errors, 0);
	assert_int_equal(http_count(&c, "timeouts"), 10);
	/* each aborted transfer counted, its connection too */
	assert_int_equal(http_count(&c, "transfers"), 10);
	assert_true(http_count(&c, "connects") >= 1);
	failed = events_of(path, "http_failed");
	assert_int_equal(json_array_size(failed), 10);
	assert_string_equal(json_string_value(json_object_get(json_array_get(failed, 9), "cause")),
			    "timeout");
	json_decref(failed);
	unlink(path);
	client_close(&c);
	close(fd);
	loop_free(loop);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_causes),
	    cmocka_unit_test(test_served),
	    cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_silent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
