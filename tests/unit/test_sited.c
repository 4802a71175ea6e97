/* sited's pure parts: building a reply (the address it leaves from is
 * lib/udpbatch's rule: tests/unit/test_udpbatch.c); and over loopback, the
 * local prober's probes answered before the requests waiting. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <cmocka.h>

#include "agents/sited/serve.h"
#include "udpbatch.h"
#include "test_tstamp.h"

static void test_reply_echoes_request(void **state)
{
	struct wire_msg req = {.type = WIRE_REQUEST,
			       .flags = 0,
			       .client_id = 77,
			       .seq = 123456,
			       .sent_ns = 1700000000000000001ULL};
	uint8_t in[WIRE_LEN], out[WIRE_LEN];
	struct wire_msg got;

	(void)state;
	wire_encode(&req, in, sizeof(in));
	assert_int_equal(sited_reply_build(in, sizeof(in), "site-a", 0, out, sizeof(out)),
			 WIRE_LEN);
	assert_int_equal(wire_decode(out, sizeof(out), &got), 0);
	assert_int_equal(got.type, WIRE_REPLY);
	assert_int_equal(got.client_id, 77);
	assert_int_equal(got.seq, 123456);
	assert_true(got.sent_ns == 1700000000000000001ULL);
	assert_string_equal(got.site, "site-a");
}

static void test_reply_site_of_sixteen(void **state)
{
	struct wire_msg req = {.type = WIRE_REQUEST, .seq = 1};
	uint8_t in[WIRE_LEN], out[WIRE_LEN];
	struct wire_msg got;

	(void)state;
	strcpy(req.site, "junk"); /* whatever a request carries, the reply names us */
	wire_encode(&req, in, sizeof(in));
	assert_int_equal(sited_reply_build(in, sizeof(in), "0123456789abcdef", 0, out, sizeof(out)),
			 WIRE_LEN);
	wire_decode(out, sizeof(out), &got);
	assert_string_equal(got.site, "0123456789abcdef");
}

static void test_reply_rejects(void **state)
{
	struct wire_msg m = {.type = WIRE_REPLY, .seq = 1};
	uint8_t in[WIRE_LEN], out[WIRE_LEN];

	(void)state;
	wire_encode(&m, in, sizeof(in));
	/* a reply is never answered: two sites must not ping-pong */
	assert_int_equal(sited_reply_build(in, sizeof(in), "a", 0, out, sizeof(out)), -1);
	m.type = WIRE_REQUEST;
	wire_encode(&m, in, sizeof(in));
	assert_int_equal(sited_reply_build(in, WIRE_LEN - 1, "a", 0, out, sizeof(out)), -1);
	assert_int_equal(sited_reply_build((const uint8_t *)"hello", 5, "a", 0, out, sizeof(out)),
			 -1);
	assert_int_equal(sited_reply_build(in, sizeof(in), "a", 0, out, WIRE_LEN - 1), -1);
}

/* sited_free_port: a UDP port free on the wildcard address just now */
static uint16_t sited_free_port(void)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	socklen_t len = sizeof(sin);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	assert_true(fd != -1);
	assert_int_equal(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	close(fd);
	return ntohs(sin.sin_port);
}

/* sited_send: a request from fd to addr:port */
static void sited_send(int fd, const char *addr, uint16_t port, uint64_t seq)
{
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(port)};
	struct wire_msg m = {.type = WIRE_REQUEST, .client_id = 5, .seq = seq};
	uint8_t buf[WIRE_LEN];

	inet_pton(AF_INET, addr, &to.sin_addr);
	wire_encode(&m, buf, sizeof(buf));
	assert_int_equal(sendto(fd, buf, sizeof(buf), 0, (struct sockaddr *)&to, sizeof(to)),
			 WIRE_LEN);
}

/* sited_reply_at: the arrival time of the next reply on fd (SO_TIMESTAMPNS) */
static int64_t sited_reply_at(int fd, struct udp_batch *b)
{
	assert_true(udp_recv(fd, b) >= 1);
	return udp_rx_time_ns(b, 0);
}

/* bound to the wildcard, sited answers the local prober on 127.0.0.1 from
 * a socket of its own, before the requests queued on the first: 200
 * requests to 127.0.0.2 (the wildcard's) wait, one probe to 127.0.0.1
 * comes after them, and its reply leaves first */
static void test_local_probe_first(void **state)
{
	struct sited_server srv;
	struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
	int cl = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	int pr = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	struct udp_batch *b = udp_batch_new(1, 64, 64);
	int64_t probe_at, first_at;

	(void)state;
	assert_true(cl != -1 && pr != -1 && b != NULL);
	assert_int_equal(udp_timestamp_on(cl), 0);
	assert_int_equal(udp_timestamp_on(pr), 0);
	test_wait_tstamps();
	addr.sin_port = htons(sited_free_port());
	assert_int_equal(sited_server_open(&srv, &addr, "a"), 0);
	assert_true(srv.local_fd != -1);
	for (int i = 0; i < 200; i++)
		sited_send(cl, "127.0.0.2", ntohs(addr.sin_port), (uint64_t)i);
	sited_send(pr, "127.0.0.1", ntohs(addr.sin_port), 1000);
	assert_int_equal(sited_server_serve(&srv), 0);
	assert_int_equal(srv.counts.requests, 201);
	assert_int_equal(srv.counts.replies, 201);
	/* the client's read first: were the stamps the reads', the probe's
	 * would come later */
	first_at = sited_reply_at(cl, b);
	probe_at = sited_reply_at(pr, b);
	assert_true(probe_at > 0 && first_at > 0);
	assert_true(probe_at < first_at);
	sited_server_close(&srv);
	/* bound to one address, no second socket */
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	addr.sin_port = htons(sited_free_port());
	assert_int_equal(sited_server_open(&srv, &addr, "a"), 0);
	assert_int_equal(srv.local_fd, -1);
	sited_server_close(&srv);
	udp_batch_free(b);
	close(cl);
	close(pr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reply_echoes_request),
	    cmocka_unit_test(test_reply_site_of_sixteen),
	    cmocka_unit_test(test_reply_rejects),
	    cmocka_unit_test(test_local_probe_first),
	};

	return cmocka_run_group_tests_name("sited", tests, NULL, NULL);
}
