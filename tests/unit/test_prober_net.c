/*
 * The prober's sockets on loopback: its probes (agents/prober/probe.c)
 * against sited's own service code (agents/sited/serve.h) on 127.0.0.1,
 * judged as the prober judges them: the answer from our site, from another
 * site, to an earlier probe, from a draining site; nothing yet; a closed
 * service port seen as ECONNREFUSED. The tcp check (probe_tcp.c): a
 * connection established and aborted, a closed port refused, a listener
 * whose queue is full silent. Its announcements (routers.c): the
 * ANNOUNCE and WITHDRAW lines each router receives from the prober's
 * address, and a router the kernel will not send to logged once, then at
 * debug level, then said reachable again. No root.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "agents/prober/probe.h"
#include "agents/prober/routers.h"
#include "agents/sited/serve.h"
#include "log.h"
#include "test_child.h"
#include "timeutil.h"

#define WAIT_MS 5000 /* the longest a datagram on loopback may take */

static struct sockaddr_in loopback(uint16_t port)
{
	struct sockaddr_in s = {.sin_family = AF_INET, .sin_port = htons(port)};

	s.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return s;
}

/* site: sited serving site on 127.0.0.1, a port of the kernel's choice */
static struct sockaddr_in site(struct sited_server *s, const char *name)
{
	struct sockaddr_in any = loopback(0), at;
	socklen_t len = sizeof(at);

	assert_int_equal(sited_server_open(s, &any, name), 0);
	assert_int_equal(getsockname(s->fd, (struct sockaddr *)&at, &len), 0);
	return at;
}

/* wait_in: fd has something to read (or an error) within WAIT_MS */
static void wait_in(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	if (poll(&p, 1, WAIT_MS) != 1)
		fail_msg("nothing to read on fd %d within %d ms", fd, WAIT_MS);
}

/* serve: the site answers the probes waiting for it */
static void serve(struct sited_server *s, uint64_t requests)
{
	while (s->counts.requests < requests) {
		wait_in(s->fd);
		assert_int_equal(sited_server_serve(s), 0);
	}
}

static void test_probe_answered(void **state)
{
	struct sited_server s;
	struct sockaddr_in at = site(&s, "a");
	struct prober_probe p;
	int64_t before = now_mono_ns();

	(void)state;
	assert_int_equal(prober_probe_open(&p, (const struct sockaddr *)&at, "a"), 0);
	/* nothing sent, nothing to read */
	assert_int_equal(prober_probe_read(&p), -1);
	assert_int_equal(errno, EAGAIN);

	assert_int_equal(prober_probe_send(&p, 300 * NSEC_PER_MSEC), 0);
	assert_int_equal(p.seq, 1);
	assert_true(p.in_flight);
	assert_true(p.sent >= before && p.sent <= now_mono_ns());
	assert_int_equal(p.deadline - p.sent, 300 * NSEC_PER_MSEC);
	serve(&s, 1);
	wait_in(p.fd);
	assert_int_equal(prober_probe_read(&p), PROBER_REPLY_OK);

	/* two probes before a read: the first answer is stale */
	assert_int_equal(prober_probe_send(&p, NSEC_PER_SEC), 0);
	assert_int_equal(prober_probe_send(&p, NSEC_PER_SEC), 0);
	assert_int_equal(p.seq, 3);
	serve(&s, 3);
	wait_in(p.fd);
	assert_int_equal(prober_probe_read(&p), PROBER_REPLY_STALE);
	wait_in(p.fd);
	assert_int_equal(prober_probe_read(&p), PROBER_REPLY_OK);

	/* a drained site answers, flagged: a failure to the prober */
	s.draining = 1;
	assert_int_equal(prober_probe_send(&p, NSEC_PER_SEC), 0);
	serve(&s, 4);
	wait_in(p.fd);
	assert_int_equal(prober_probe_read(&p), PROBER_REPLY_DRAINING);
	assert_int_equal(s.counts.replies, 4);
	prober_probe_close(&p);
	assert_int_equal(p.fd, -1);
	prober_probe_close(&p);
	sited_server_close(&s);
}

/* over IPv6: sited on ::1 answers the udp check, and the tcp check
 * connects to a listener there */
static void test_probe_ipv6(void **state)
{
	struct sockaddr_in6 any = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT}, at;
	socklen_t len = sizeof(at);
	struct sited_server s;
	struct prober_probe p;
	int l;

	(void)state;
	assert_int_equal(sited_server_open(&s, &any, "a"), 0);
	assert_int_equal(getsockname(s.fd, (struct sockaddr *)&at, &len), 0);
	assert_int_equal(at.sin6_family, AF_INET6);
	assert_int_equal(prober_probe_open(&p, (const struct sockaddr *)&at, "a"), 0);
	assert_int_equal(p.target_len, sizeof(struct sockaddr_in6));
	assert_int_equal(prober_probe_send(&p, NSEC_PER_SEC), 0);
	serve(&s, 1);
	wait_in(p.fd);
	assert_int_equal(prober_probe_read(&p), PROBER_REPLY_OK);
	prober_probe_close(&p);
	sited_server_close(&s);

	l = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(l >= 0);
	len = sizeof(at);
	assert_int_equal(bind(l, (struct sockaddr *)&any, sizeof(any)), 0);
	assert_int_equal(getsockname(l, (struct sockaddr *)&at, &len), 0);
	assert_int_equal(listen(l, 4), 0);
	assert_int_equal(prober_check_tcp.open(&p, (const struct sockaddr *)&at, "a"), 0);
	assert_int_equal(prober_check_tcp.send(&p, NSEC_PER_SEC), 0);
	wait_in(p.fd);
	assert_int_equal(prober_check_tcp.read(&p), PROBER_REPLY_OK);
	prober_check_tcp.close(&p);
	close(l);
}

static void test_probe_wrong_site(void **state)
{
	struct sited_server s;
	struct sockaddr_in at = site(&s, "b");
	struct prober_probe p;

	(void)state;
	assert_int_equal(prober_probe_open(&p, (const struct sockaddr *)&at, "a"), 0);
	assert_int_equal(prober_probe_send(&p, NSEC_PER_SEC), 0);
	serve(&s, 1);
	wait_in(p.fd);
	assert_int_equal(prober_probe_read(&p), PROBER_REPLY_WRONG_SITE);
	prober_probe_close(&p);
	sited_server_close(&s);
}

static void test_probe_refused(void **state)
{
	struct sited_server s;
	struct sockaddr_in at = site(&s, "a");
	struct prober_probe p;

	(void)state;
	assert_int_equal(prober_probe_open(&p, (const struct sockaddr *)&at, "a"), 0);
	/* the service gone: its port closed */
	sited_server_close(&s);
	assert_int_equal(prober_probe_send(&p, NSEC_PER_SEC), 0);
	wait_in(p.fd);
	assert_int_equal(prober_probe_read(&p), -1);
	assert_int_equal(errno, ECONNREFUSED);
	/* unread, the next refusal fails the send itself */
	assert_int_equal(prober_probe_send(&p, NSEC_PER_SEC), 0);
	wait_in(p.fd);
	assert_int_equal(prober_probe_send(&p, NSEC_PER_SEC), -1);
	assert_int_equal(errno, ECONNREFUSED);
	prober_probe_close(&p);
}

static void long_name(void *arg)
{
	struct sockaddr_in at = loopback(7000);
	struct prober_probe p;

	(void)arg;
	log_init("prober", 0);
	fprintf(stderr, "open: %d\n",
		prober_probe_open(&p, (const struct sockaddr *)&at, "a-site-name-of-17"));
	fprintf(stderr, "fd: %d\n", p.fd);
	/* 16 characters fit */
	fprintf(stderr, "open: %d\n",
		prober_probe_open(&p, (const struct sockaddr *)&at, "site-name-of-16c"));
	prober_probe_close(&p);
}

static void test_probe_site_name_too_long(void **state)
{
	int status;
	char *err = test_child_stderr(long_name, NULL, &status), *text;

	(void)state;
	test_assert_exit(status, 0);
	text = test_strip_stamps(err);
	assert_string_equal(text,
			    "prober: site name 'a-site-name-of-17' longer than 16 characters\n"
			    "open: -1\n"
			    "fd: -1\n"
			    "open: 0\n");
	free(text);
	free(err);
}

/* listener: a TCP socket on 127.0.0.1, a port of the kernel's choice,
 * listening with backlog (-1: bound, not listening: a closed port) */
static int listener(struct sockaddr_in *at, int backlog)
{
	struct sockaddr_in any = loopback(0);
	socklen_t len = sizeof(*at);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&any, sizeof(any)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)at, &len), 0);
	if (backlog >= 0)
		assert_int_equal(listen(fd, backlog), 0);
	return fd;
}

/* tcp_verdict: reads p once something is there, within WAIT_MS */
static int tcp_verdict(struct prober_probe *p)
{
	wait_in(p->fd);
	return prober_check_tcp.read(p);
}

/* the tcp check: a connection established passes, with its connect time
 * as the RTT, and is aborted at once (the listener's end is reset: no
 * TIME_WAIT); the next probe is a new connection */
static void test_tcp_connected(void **state)
{
	struct sockaddr_in at;
	int l = listener(&at, 16), a;
	struct prober_probe p;
	uint8_t b;

	(void)state;
	assert_ptr_equal(prober_check_find("tcp"), &prober_check_tcp);
	assert_ptr_equal(prober_check_find("udp"), &prober_check_udp);
	assert_ptr_equal(prober_check_find("icmp"), &prober_check_icmp);
	assert_null(prober_check_find("arp"));
	assert_int_equal(prober_check_tcp.open(&p, (const struct sockaddr *)&at, "a"), 0);
	assert_int_equal(prober_check_tcp.read(&p), -1);
	assert_int_equal(errno, EAGAIN);
	for (uint64_t i = 1; i <= 2; i++) {
		assert_int_equal(prober_check_tcp.send(&p, NSEC_PER_SEC), 0);
		assert_int_equal(p.seq, i);
		assert_true(p.in_flight && p.conn != -1);
		assert_int_equal(tcp_verdict(&p), PROBER_REPLY_OK);
		/* the RTT prober.c takes: SYN to established, on loopback well under WAIT_MS */
		assert_true(now_mono_ns() - p.sent > 0);
		assert_true(now_mono_ns() - p.sent < WAIT_MS * NSEC_PER_MSEC);
		assert_int_equal(p.conn, -1);
		assert_true((a = accept(l, NULL, NULL)) != -1);
		assert_int_equal(recv(a, &b, 1, 0), -1);
		assert_int_equal(errno, ECONNRESET);
		close(a);
	}
	/* read, nothing more: the connection is gone from the epoll set */
	assert_int_equal(prober_check_tcp.read(&p), -1);
	assert_int_equal(errno, EAGAIN);
	prober_check_tcp.close(&p);
	assert_int_equal(p.fd, -1);
	prober_check_tcp.close(&p);
	close(l);
}

/* a closed port: the RST to the SYN is ECONNREFUSED, the prober's
 * "refused" */
static void test_tcp_refused(void **state)
{
	struct sockaddr_in at;
	int l = listener(&at, -1);
	struct prober_probe p;

	(void)state;
	assert_int_equal(prober_check_tcp.open(&p, (const struct sockaddr *)&at, "a"), 0);
	assert_int_equal(prober_check_tcp.send(&p, NSEC_PER_SEC), 0);
	assert_int_equal(tcp_verdict(&p), -1);
	assert_int_equal(errno, ECONNREFUSED);
	assert_int_equal(p.conn, -1);
	prober_check_tcp.close(&p);
	close(l);
}

/* a listener that never accepts, its queue full: the kernel drops the SYN,
 * nothing comes before the timeout (prober.c's "timeout"); the next probe
 * gives the connection up */
static void test_tcp_not_connected(void **state)
{
	struct sockaddr_in at;
	int l = listener(&at, 1), fill[16], n = 0, full = 0;
	struct prober_probe p;
	struct pollfd pf;

	(void)state;
	/* connections until one is not established within 200 ms */
	while (!full && n < 16) {
		fill[n] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
		assert_true(fill[n] >= 0);
		assert_true(connect(fill[n], (struct sockaddr *)&at, sizeof(at)) == 0 ||
			    errno == EINPROGRESS);
		pf = (struct pollfd){.fd = fill[n++], .events = POLLOUT};
		full = poll(&pf, 1, 200) == 0;
	}
	assert_true(full);
	assert_int_equal(prober_check_tcp.open(&p, (const struct sockaddr *)&at, "a"), 0);
	assert_int_equal(prober_check_tcp.send(&p, 200 * NSEC_PER_MSEC), 0);
	pf = (struct pollfd){.fd = p.fd, .events = POLLIN};
	assert_int_equal(poll(&pf, 1, 300), 0);
	assert_int_equal(prober_check_tcp.read(&p), -1);
	assert_int_equal(errno, EAGAIN);
	assert_true(p.conn != -1);
	assert_int_equal(prober_check_tcp.send(&p, 200 * NSEC_PER_MSEC), 0);
	assert_int_equal(p.seq, 2);
	prober_check_tcp.close(&p);
	assert_int_equal(p.conn, -1);
	while (n > 0)
		close(fill[--n]);
	close(l);
}

/* router: a UDP socket on 127.0.0.1 standing for routed */
static int router(struct sockaddr_in *at)
{
	struct sockaddr_in any = loopback(0);
	socklen_t len = sizeof(*at);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&any, sizeof(any)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)at, &len), 0);
	return fd;
}

/* received: the next datagram of fd as text, its source in from */
static const char *received(int fd, struct sockaddr_in *from)
{
	static char buf[256];
	socklen_t len = sizeof(*from);
	ssize_t n;

	wait_in(fd);
	n = recvfrom(fd, buf, sizeof(buf) - 1, 0, (struct sockaddr *)from, &len);
	assert_true(n >= 0);
	buf[n] = '\0';
	return buf;
}

/* storage: sin as the routers' struct sockaddr_storage */
static const struct sockaddr_storage *storage(const struct sockaddr_in *sin)
{
	static struct sockaddr_storage ss;

	memset(&ss, 0, sizeof(ss));
	memcpy(&ss, sin, sizeof(*sin));
	return &ss;
}

static void test_routers_told(void **state)
{
	struct prober_routers r = {.fd = -1, .fd6 = -1};
	struct sockaddr_in at[2], from;
	struct announce_msg m = {.site = "a", .prefixlen = 32, .metric = 10};
	int fd[2];

	(void)state;
	for (int i = 0; i < 2; i++) {
		fd[i] = router(&at[i]);
		assert_int_equal(prober_routers_add(&r, storage(&at[i])), 0);
	}
	assert_int_equal(prober_routers_open(&r), 0);
	assert_int_equal(announce_prefix_parse("198.19.0.1", &m.prefix, &m.prefixlen), 0);
	assert_int_equal(prober_routers_send(&r, 0, &m), 0);
	m.withdraw = 1;
	assert_int_equal(prober_routers_send(&r, 1, &m), 0);
	assert_string_equal(received(fd[0], &from), "ANNOUNCE a 198.19.0.1/32 10\n");
	/* the router takes the sender for the next hop */
	assert_int_equal(ntohl(from.sin_addr.s_addr), INADDR_LOOPBACK);
	assert_string_equal(received(fd[1], &from), "WITHDRAW a 198.19.0.1/32\n");
	prober_routers_close(&r);
	assert_int_equal(r.fd, -1);
	prober_routers_close(&r);
	for (int i = 0; i < 2; i++)
		close(fd[i]);
}

/* unreachable: a router the kernel refuses to send to (port 0: EINVAL),
 * three times, then the same router at a port it sends to */
static void unreachable(void *arg)
{
	struct prober_routers *r = arg;
	struct announce_msg m = {.site = "a", .prefixlen = 32, .metric = 10};
	struct sockaddr_in zero = loopback(0);

	log_init("prober", 1);
	assert_int_equal(announce_prefix_parse("198.19.0.1", &m.prefix, &m.prefixlen), 0);
	prober_routers_add(r, storage(&zero));
	if (prober_routers_open(r) == -1)
		return;
	for (int i = 0; i < 3; i++)
		fprintf(stderr, "send: %d\n", prober_routers_send(r, 1, &m));
	r->addr[1] = r->addr[0];
	fprintf(stderr, "send: %d\n", prober_routers_send(r, 1, &m));
	fprintf(stderr, "send: %d\n", prober_routers_send(r, 1, &m));
	prober_routers_close(r);
}

static void test_router_errors_logged(void **state)
{
	struct prober_routers r = {.fd = -1, .fd6 = -1};
	struct sockaddr_in at, from;
	int fd = router(&at), status;
	char *err, *text, want[1024];

	(void)state;
	assert_int_equal(prober_routers_add(&r, storage(&at)), 0);
	err = test_child_stderr(unreachable, &r, &status);
	test_assert_exit(status, 0);
	text = test_strip_stamps(err);
	snprintf(want, sizeof(want),
		 "prober: prober_routers_send: send to router 127.0.0.1:0: Invalid argument\n"
		 "send: -1\n"
		 "prober: debug: send to router 127.0.0.1:0: Invalid argument\n"
		 "send: -1\n"
		 "prober: debug: send to router 127.0.0.1:0: Invalid argument\n"
		 "send: -1\n"
		 "prober: router 127.0.0.1:0 reachable again after 3 send errors\n"
		 "send: 0\n"
		 "send: 0\n");
	assert_string_equal(text, want);
	/* the two that went out */
	assert_string_equal(received(fd, &from), "ANNOUNCE a 198.19.0.1/32 10\n");
	assert_string_equal(received(fd, &from), "ANNOUNCE a 198.19.0.1/32 10\n");
	free(text);
	free(err);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_probe_answered),
	    cmocka_unit_test(test_probe_ipv6),
	    cmocka_unit_test(test_probe_wrong_site),
	    cmocka_unit_test(test_probe_refused),
	    cmocka_unit_test(test_probe_site_name_too_long),
	    cmocka_unit_test(test_routers_told),
	    cmocka_unit_test(test_router_errors_logged),
	    cmocka_unit_test(test_tcp_connected),
	    cmocka_unit_test(test_tcp_refused),
	    cmocka_unit_test(test_tcp_not_connected),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
