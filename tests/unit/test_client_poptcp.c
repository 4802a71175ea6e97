/*
 * A population over TCP (agents/client/poptcp.c) against sited's TCP
 * service on loopback, in one loop: each logical client opens its own
 * connection before the schedule starts and its requests are answered on
 * it; a site that reads and answers nothing (degraded) has each
 * connection given up once a request on it waited the timeout (stalled),
 * and reopened; a port nothing listens on refuses every connection, and
 * every request is an error at once (unconnected).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <cmocka.h>
#include <jansson.h>

#include "agents/client/pop.h"
#include "agents/client/poptcp.h"
#include "agents/client/traffic.h"
#include "agents/sited/http.h"
#include "agents/sited/tcp.h"
#include "loop.h"
#include "timeutil.h"

#define MS (1000 * 1000LL)
#define N 40

struct run {
	struct loop *loop;
	int http; /* the site serves HTTP (sited -H), the population speaks it */
	struct sited_server srv;
	struct sited_tcp site;
	struct sited_http web;
	struct pop pop;
	struct client c;
	struct client_cfg cfg;
};

/* run_start: a site on loopback (listening unless refuse), and a
 * population of N over TCP sending rate requests/s for duration */
static void run_start(struct run *r, int refuse, double rate, int64_t timeout, int64_t duration)
{
	struct sockaddr_in addr = {.sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct pop_rates equal = {.skew = POP_EQUAL};
	int http = r->http;

	memset(r, 0, sizeof(*r));
	r->http = http;
	assert_non_null(r->loop = loop_new());
	r->srv.fd = r->srv.local_fd = -1;
	strcpy(r->srv.site, "p");
	if (http) {
		assert_int_equal(sited_http_open(&r->web, r->loop, &r->srv, &addr, 1024), 0);
		addr.sin_port = htons(sited_http_port(&r->web));
	} else {
		assert_int_equal(sited_tcp_open(&r->site, r->loop, &r->srv, &addr, 1024), 0);
		addr.sin_port = htons(sited_tcp_port(&r->site));
	}
	if (refuse)
		sited_tcp_close(&r->site);
	assert_int_equal(pop_init(&r->pop, N, WIRE_POP_ID(1, 0, 0), &equal, rate, 0, 1), 0);
	r->cfg = (struct client_cfg){.id = WIRE_POP_ID(1, 0, 0),
				     .target.sin = addr,
				     .rate = rate,
				     .timeout_ns = timeout,
				     .duration_ns = duration};
	assert_int_equal(
	    client_start_pop(&r->c, r->loop, &r->cfg, NULL, &r->pop, NULL, !r->http, r->http, NULL),
	    0);
}

/* run_end: the run to its end; the tcp counts returned (caller frees) */
static json_t *run_end(struct run *r, int refused)
{
	json_t *o;

	assert_int_equal(loop_run(r->loop), 0);
	client_finish(&r->c);
	assert_non_null(o = client_tcp_counts_json(poptcp_counts(r->c.poptcp)));
	client_close(&r->c);
	if (r->http)
		sited_http_close(&r->web);
	else if (!refused)
		sited_tcp_close(&r->site);
	pop_free(&r->pop);
	loop_free(r->loop);
	return o;
}

static json_int_t count(json_t *o, const char *k)
{
	assert_non_null(json_object_get(o, k));
	return json_integer_value(json_object_get(o, k));
}

/* every logical client its own connection, every request answered on it
 * (within a timeout of 2 s: the site answers in the same loop, and a
 * machine busy enough to keep this process off the CPU for the 200 ms of
 * a timeout the test does not judge would make late answers lost: 8 of
 * 120 answered in a gate that ran the unit tests beside four labs) */
static void test_answered(void **state)
{
	struct run *r = calloc(1, sizeof(*r));
	json_t *o;

	(void)state;
	run_start(r, 0, 400, 2000 * MS, 300 * MS);
	o = run_end(r, 0);
	assert_int_equal(r->c.stats.sent, 120);
	assert_int_equal(r->c.stats.ok, 120);
	assert_int_equal(r->c.stats.errors + r->c.stats.lost, 0);
	assert_int_equal(count(o, "connects"), N);
	assert_int_equal(count(o, "unconnected"), 0);
	json_decref(o);
	free(r);
}

/* a degraded site: each connection stalls (its first request lost at the
 * timeout), its later requests are errors, and it is opened again */
static void test_stalled(void **state)
{
	struct run *r = calloc(1, sizeof(*r));
	json_t *o;

	(void)state;
	run_start(r, 0, 400, 100 * MS, 400 * MS);
	r->srv.degraded = 1;
	o = run_end(r, 0);
	assert_int_equal(r->c.stats.sent, 160);
	assert_int_equal(r->c.stats.ok, 0);
	assert_true(count(o, "stalls") >= N);
	assert_true(count(o, "connects") > N);
	/* every request failed: lost at the timeout, or an error once its
	 * connection was given up or while it was down */
	assert_int_equal(r->c.stats.lost + r->c.stats.errors, 160);
	assert_true(r->c.stats.lost >= N);
	json_decref(o);
	free(r);
}

/* nothing listens: every connection refused, every request an error */
static void test_refused(void **state)
{
	struct run *r = calloc(1, sizeof(*r));
	json_t *o;

	(void)state;
	run_start(r, 1, 400, 200 * MS, 200 * MS);
	o = run_end(r, 1);
	assert_int_equal(r->c.stats.sent, 80);
	assert_int_equal(r->c.stats.errors, 80);
	assert_int_equal(count(o, "unconnected"), 80);
	assert_int_equal(count(o, "connects"), 0);
	assert_true(count(o, "refused") >= N);
	json_decref(o);
	free(r);
}

/* over HTTP: every request a GET answered 200 by sited -H on its logical
 * client's own connection; then the site degraded: every one a 503, an
 * error, the connections kept (timeouts of 2 s, as test_answered's) */
static void test_http(void **state)
{
	struct run *r = calloc(1, sizeof(*r));
	json_t *o;

	(void)state;
	r->http = 1;
	run_start(r, 0, 400, 2000 * MS, 300 * MS);
	o = run_end(r, 0);
	assert_int_equal(r->c.stats.sent, 120);
	assert_int_equal(r->c.stats.ok, 120);
	assert_int_equal(count(o, "connects"), N);
	json_decref(o);
	run_start(r, 0, 400, 2000 * MS, 300 * MS);
	r->srv.degraded = 1;
	o = run_end(r, 0);
	assert_int_equal(r->c.stats.ok, 0);
	assert_int_equal(r->c.stats.errors, 120);
	assert_int_equal(count(o, "connects"), N);
	json_decref(o);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_answered),
	    cmocka_unit_test(test_http),
	    cmocka_unit_test(test_stalled),
	    cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
