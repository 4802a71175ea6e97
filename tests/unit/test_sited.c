/* sited's pure parts: building a reply (the address it leaves from is
 * lib/udpbatch's rule: tests/unit/test_udpbatch.c); and over loopback, the
 * local prober's probes answered before the requests waiting; a request to
 * [::1] answered from ::1, drained, degraded and held alike, by the
 * wildcard's [::] socket or by ::1 given alone; and a host without IPv6
 * (socket(AF_INET6) refused, under a seccomp filter in a child) served in
 * IPv4, said once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <cmocka.h>
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "agents/sited/serve.h"
#include "agents/sited/tcp.h"
#include "loop.h"
#include "udpbatch.h"
#include "test_child.h"
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

/* sited_ask6: request seq from fd to [::1]:port */
static void sited_ask6(int fd, uint16_t port, uint64_t seq)
{
	struct sockaddr_in6 to = {
	    .sin6_family = AF_INET6, .sin6_port = htons(port), .sin6_addr = IN6ADDR_LOOPBACK_INIT};
	struct wire_msg m = {.type = WIRE_REQUEST, .client_id = 6, .seq = seq};
	uint8_t buf[WIRE_LEN];

	wire_encode(&m, buf, sizeof(buf));
	assert_int_equal(sendto(fd, buf, sizeof(buf), 0, (struct sockaddr *)&to, sizeof(to)),
			 WIRE_LEN);
}

/* sited_reply6: the reply on fd, waited for 1 s: 1 with it in *m, from
 * ::1:port; 0 if none came */
static int sited_reply6(int fd, uint16_t port, struct wire_msg *m)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	struct sockaddr_in6 from;
	socklen_t len = sizeof(from);
	uint8_t buf[WIRE_LEN];

	if (poll(&p, 1, 1000) == 0)
		return 0;
	assert_int_equal(recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &len),
			 WIRE_LEN);
	assert_int_equal(len, sizeof(from));
	assert_true(IN6_IS_ADDR_LOOPBACK(&from.sin6_addr));
	assert_int_equal(ntohs(from.sin6_port), port);
	assert_int_equal(wire_decode(buf, sizeof(buf), m), 0);
	assert_int_equal(m->type, WIRE_REPLY);
	return 1;
}

/* the IPv6 requests of a server: answered from ::1 in the site's name,
 * drained, degraded (read and dropped), held while slow and sent from ::1
 * when due, all in the server's counts */
static void sited_serve6(struct sited_server *srv, uint16_t port)
{
	int cl = socket(AF_INET6, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	struct sited_slow_item it;
	struct wire_msg m;

	assert_true(cl != -1);
	sited_ask6(cl, port, 1);
	assert_int_equal(sited_server_serve(srv), 0);
	assert_int_equal(sited_reply6(cl, port, &m), 1);
	assert_int_equal(m.seq, 1);
	assert_int_equal(m.client_id, 6);
	assert_int_equal(m.flags, 0);
	assert_string_equal(m.site, "six");
	srv->draining = 1;
	sited_ask6(cl, port, 2);
	assert_int_equal(sited_server_serve(srv), 0);
	assert_int_equal(sited_reply6(cl, port, &m), 1);
	assert_int_equal(m.seq, 2);
	assert_int_equal(m.flags, WIRE_F_DRAINING);
	srv->draining = 0;
	srv->degraded = 1;
	sited_ask6(cl, port, 3);
	assert_int_equal(sited_server_serve(srv), 0);
	assert_int_equal(srv->counts.degraded_dropped, 1);
	srv->degraded = 0;
	srv->slow_ns = 1;
	sited_ask6(cl, port, 4);
	assert_int_equal(sited_server_serve(srv), 0);
	assert_int_equal(sited_reply6(cl, port, &m), 0); /* held */
	assert_int_equal(sited_slow_pop(srv->slow, INT64_MAX, &it), 1);
	assert_int_equal(it.to.sa.sa_family, AF_INET6);
	assert_true(IN6_IS_ADDR_LOOPBACK(&it.src.v6.ipi6_addr));
	assert_int_equal(sited_slow_send(&it), 0);
	assert_int_equal(sited_reply6(cl, port, &m), 1);
	assert_int_equal(m.seq, 4);
	srv->slow_ns = 0;
	assert_int_equal(srv->counts.requests, 4);
	assert_int_equal(srv->counts.replies, 2); /* the held one is state.c's to count */
	assert_int_equal(srv->counts.bad, 0);
	close(cl);
}

/* bound to the wildcard, sited listens on [::] too, beside 0.0.0.0; given
 * ::1, on that alone */
static void test_ipv6(void **state)
{
	struct sockaddr_in any = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
	struct sockaddr_in6 lo6 = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT};
	struct sited_server srv;

	(void)state;
	any.sin_port = htons(sited_free_port());
	assert_int_equal(sited_server_open(&srv, &any, "six"), 0);
	assert_true(srv.fd != -1 && srv.fd6 != -1 && srv.local_fd != -1);
	assert_false(srv.no_ipv6);
	sited_serve6(&srv, ntohs(any.sin_port));
	sited_server_close(&srv);

	lo6.sin6_port = htons(sited_free_port());
	assert_int_equal(sited_server_open(&srv, &lo6, "six"), 0);
	assert_true(srv.fd != -1);
	assert_int_equal(srv.fd6, -1);
	assert_int_equal(srv.local_fd, -1);
	sited_serve6(&srv, ntohs(lo6.sin6_port));
	sited_server_close(&srv);
}

#if defined(__x86_64__)
#define SITED_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SITED_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

/* exit statuses of sited_no_ipv6_child */
#define SITED_CHILD_NO_SECCOMP 3

/* sited_no_ipv6_child: with socket(AF_INET6) refused EAFNOSUPPORT, as on a
 * host booted with ipv6.disable=1, sited's UDP and TCP open on the
 * wildcard in IPv4 alone. Exits 0, or the check that failed (no cmocka in
 * a child). */
static void sited_no_ipv6_child(void *arg)
{
#ifdef SITED_AUDIT_ARCH
	struct sock_filter code[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SITED_AUDIT_ARCH, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 0, 3),
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET6, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EAFNOSUPPORT),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof(code) / sizeof(code[0]), .filter = code};
	struct sockaddr_in any = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
	struct sited_server srv;
	struct sited_tcp tcp;
	struct loop *loop;

	any.sin_port = htons(*(const uint16_t *)arg);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == -1)
		_exit(SITED_CHILD_NO_SECCOMP);
	if (socket(AF_INET6, SOCK_DGRAM, 0) != -1 || errno != EAFNOSUPPORT)
		_exit(4);
	if (sited_server_open(&srv, &any, "a") == -1)
		_exit(5);
	if (srv.fd == -1 || srv.local_fd == -1 || srv.fd6 != -1 || !srv.no_ipv6)
		_exit(6);
	/* TCP knows from UDP, and says nothing more */
	if ((loop = loop_new()) == NULL || sited_tcp_open(&tcp, loop, &srv, &any, 16) == -1)
		_exit(7);
	if (tcp.fd == -1 || tcp.fd6 != -1)
		_exit(8);
	sited_tcp_close(&tcp);
	sited_server_close(&srv);
	loop_free(loop);
#else
	(void)arg;
	_exit(SITED_CHILD_NO_SECCOMP);
#endif
}

static void test_no_ipv6(void **state)
{
	uint16_t port = sited_free_port();
	char want[256], *err, *text;
	int status;

	(void)state;
	err = test_child_stderr(sited_no_ipv6_child, &port, &status);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == SITED_CHILD_NO_SECCOMP) {
		free(err);
		skip();
	}
	test_assert_exit(status, 0);
	text = test_strip_stamps(err);
	snprintf(want, sizeof(want),
		 "steerlab: no IPv6 on this host (socket UDP [::]:%u: Address family not "
		 "supported by protocol): IPv4 only\n",
		 port);
	assert_string_equal(text, want);
	free(text);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reply_echoes_request),
	    cmocka_unit_test(test_reply_site_of_sixteen),
	    cmocka_unit_test(test_reply_rejects),
	    cmocka_unit_test(test_local_probe_first),
	    cmocka_unit_test(test_ipv6),
	    cmocka_unit_test(test_no_ipv6),
	};

	return cmocka_run_group_tests_name("sited", tests, NULL, NULL);
}
