/* sited over TCP (agents/sited/tcp.h), on 127.0.0.1 with a port the kernel
 * picks, the test playing the client and turning the loop: a request split
 * across reads, several in one, a bad message closing, the drain flag,
 * what the peer's close and reset count, the cap on connections, the
 * descriptors running out, and a reader too slow for its replies; on the
 * wildcard, requests over [::1] served as over 127.0.0.1, and on ::1
 * alone. */
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
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>

#include "agents/sited/tcp.h"
#include "loop.h"
#include "timeutil.h"

struct tcp_fix {
	struct loop *loop;
	struct sited_server srv;
	struct sited_tcp t;
	uint16_t port;
};

/* tcp_fix_new_at: sited's TCP side on addr (port 0) */
static struct tcp_fix *tcp_fix_new_at(union sited_addr addr, unsigned max_conns)
{
	struct tcp_fix *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	assert_non_null(f->loop = loop_new());
	f->srv.fd = f->srv.fd6 = f->srv.local_fd = -1;
	strcpy(f->srv.site, "tcp-a");
	assert_int_equal(sited_tcp_open(&f->t, f->loop, &f->srv, addr, max_conns), 0);
	f->port = sited_tcp_port(&f->t);
	assert_true(f->port != 0);
	return f;
}

/* tcp_fix_new: on 127.0.0.1 */
static struct tcp_fix *tcp_fix_new(unsigned max_conns)
{
	struct sockaddr_in addr = {.sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};

	return tcp_fix_new_at(&addr, max_conns);
}

static void tcp_fix_free(struct tcp_fix *f)
{
	const struct sited_tcp_counts *n = &f->t.counts;

	/* every connection is counted once, however it ended */
	assert_true(n->accepted == n->closed + n->reset + n->aborted + n->open);
	sited_tcp_close(&f->t);
	loop_free(f->loop);
	free(f);
}

/* tcp_turn: turns f's loop once, waiting at most 10 ms */
static void tcp_turn(struct tcp_fix *f)
{
	assert_true(loop_once(f->loop, 10) >= 0);
}

#define TCP_DEADLINE_NS (5 * 1000000000LL)

/* tcp_until: turns the loop until *v (a count) is at least want; fails
 * after 5 s */
static void tcp_until(struct tcp_fix *f, const uint64_t *v, uint64_t want)
{
	int64_t end = now_mono_ns() + TCP_DEADLINE_NS;

	while (*v < want && now_mono_ns() < end)
		tcp_turn(f);
	assert_true(*v >= want);
}

/* tcp_connect_to: a client connected to f at to, once f has accepted it */
static int tcp_connect_to(struct tcp_fix *f, union sited_addr to, int rcvbuf)
{
	uint64_t had = f->t.counts.accepted + f->t.counts.refused;
	int fd = socket(to.sa->sa_family, SOCK_STREAM, 0);

	assert_true(fd != -1);
	if (rcvbuf > 0)
		assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)), 0);
	assert_int_equal(connect(fd, to.sa, sited_addr_len(to)), 0);
	while (f->t.counts.accepted + f->t.counts.refused == had)
		tcp_turn(f);
	return fd;
}

/* tcp_connect: the same at 127.0.0.1 */
static int tcp_connect(struct tcp_fix *f, int rcvbuf)
{
	struct sockaddr_in to = {.sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				 .sin_port = htons(f->port)};

	return tcp_connect_to(f, &to, rcvbuf);
}

/* tcp_connect6: the same at [::1] */
static int tcp_connect6(struct tcp_fix *f)
{
	struct sockaddr_in6 to = {.sin6_family = AF_INET6,
				  .sin6_addr = IN6ADDR_LOOPBACK_INIT,
				  .sin6_port = htons(f->port)};

	return tcp_connect_to(f, &to, 0);
}

/* tcp_request: request seq of client 9 into buf (WIRE_LEN bytes) */
static void tcp_request(uint8_t *buf, uint64_t seq)
{
	struct wire_msg m = {.type = WIRE_REQUEST, .client_id = 9, .seq = seq};

	assert_int_equal(wire_encode(&m, buf, WIRE_LEN), WIRE_LEN);
}

/* tcp_send: writes up to len bytes to fd, turning the loop while the
 * socket is full, until they are written or the site reset the
 * connection. The bytes written. */
static size_t tcp_send(struct tcp_fix *f, int fd, const uint8_t *buf, size_t len)
{
	int64_t end = now_mono_ns() + TCP_DEADLINE_NS;
	size_t sent = 0;

	while (sent < len && now_mono_ns() < end) {
		ssize_t n = send(fd, buf + sent, len - sent, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n > 0) {
			sent += (size_t)n;
			continue;
		}
		if (n == -1 && (errno == ECONNRESET || errno == EPIPE))
			break;
		assert_true(n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK));
		tcp_turn(f);
	}
	return sent;
}

/* tcp_write: writes len bytes to fd, all of them */
static void tcp_write(struct tcp_fix *f, int fd, const uint8_t *buf, size_t len)
{
	assert_int_equal(tcp_send(f, fd, buf, len), len);
}

/* tcp_read: reads up to len bytes from fd, turning the loop until they
 * came or fd was closed (*eof set). The bytes read. */
static size_t tcp_read(struct tcp_fix *f, int fd, uint8_t *buf, size_t len, int *eof)
{
	int64_t end = now_mono_ns() + TCP_DEADLINE_NS;
	size_t got = 0;

	*eof = 0;
	while (got < len && now_mono_ns() < end) {
		ssize_t n = recv(fd, buf + got, len - got, MSG_DONTWAIT);

		if (n > 0) {
			got += (size_t)n;
			continue;
		}
		if (n == 0 || (n == -1 && errno == ECONNRESET)) {
			*eof = 1;
			break;
		}
		assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
		tcp_turn(f);
	}
	return got;
}

/* tcp_expect: the next reply on fd answers seq, in the site's name */
static void tcp_expect(struct tcp_fix *f, int fd, uint64_t seq, uint16_t flags)
{
	uint8_t buf[WIRE_LEN];
	struct wire_msg m;
	int eof;

	assert_int_equal(tcp_read(f, fd, buf, sizeof(buf), &eof), WIRE_LEN);
	assert_int_equal(wire_decode(buf, sizeof(buf), &m), 0);
	assert_int_equal(m.type, WIRE_REPLY);
	assert_int_equal(m.client_id, 9);
	assert_int_equal(m.seq, seq);
	assert_int_equal(m.flags, flags);
	assert_string_equal(m.site, "tcp-a");
}

/* tcp_closed_by_site: fd is closed by the other end with nothing more */
static void tcp_closed_by_site(struct tcp_fix *f, int fd)
{
	uint8_t buf[WIRE_LEN];
	int eof;

	assert_int_equal(tcp_read(f, fd, buf, sizeof(buf), &eof), 0);
	assert_true(eof);
}

/* one request across two reads, and one across a read's end: each is
 * answered once whole, not before, whatever another connection sent
 * meanwhile */
static void test_tcp_split(void **state)
{
	struct tcp_fix *f = tcp_fix_new(16);
	int fd = tcp_connect(f, 0), other = tcp_connect(f, 0);
	uint8_t buf[2 * WIRE_LEN], obuf[WIRE_LEN];

	(void)state;
	tcp_request(buf, 1);
	tcp_request(buf + WIRE_LEN, 2);
	tcp_write(f, fd, buf, 20);
	/* sited has read the 20 bytes, and answered nothing */
	while (TAILQ_FIRST(&f->t.conns)->in_len != 20)
		tcp_turn(f);
	assert_int_equal(f->t.counts.requests, 0);
	/* its first 20 bytes differ from the kept ones (the sequence's high half) */
	tcp_request(obuf, 50ULL << 32);
	tcp_write(f, other, obuf, WIRE_LEN);
	tcp_expect(f, other, 50ULL << 32, 0);
	tcp_write(f, fd, buf + 20, WIRE_LEN - 20 + 10);
	tcp_expect(f, fd, 1, 0);
	while (TAILQ_FIRST(&f->t.conns)->in_len != 10)
		tcp_turn(f);
	assert_int_equal(f->t.counts.requests, 2);
	tcp_write(f, fd, buf + WIRE_LEN + 10, WIRE_LEN - 10);
	tcp_expect(f, fd, 2, 0);
	assert_int_equal(f->t.counts.requests, 3);
	assert_int_equal(f->t.counts.replies, 3);
	assert_int_equal(f->t.counts.bad, 0);
	close(fd);
	close(other);
	tcp_until(f, &f->t.counts.closed, 2);
	tcp_fix_free(f);
}

/* three requests in one write: three replies, in order */
static void test_tcp_three_in_one(void **state)
{
	struct tcp_fix *f = tcp_fix_new(16);
	int fd = tcp_connect(f, 0);
	uint8_t buf[3 * WIRE_LEN];

	(void)state;
	for (int i = 0; i < 3; i++)
		tcp_request(buf + i * WIRE_LEN, 100 + (uint64_t)i);
	tcp_write(f, fd, buf, sizeof(buf));
	for (int i = 0; i < 3; i++)
		tcp_expect(f, fd, 100 + (uint64_t)i, 0);
	assert_int_equal(f->t.counts.requests, 3);
	assert_int_equal(f->t.counts.replies, 3);
	close(fd);
	tcp_until(f, &f->t.counts.closed, 1);
	tcp_fix_free(f);
}

/* a message that is not a request closes its connection, after the
 * replies to the requests before it; a reply is not a request */
static void test_tcp_bad_closes(void **state)
{
	struct tcp_fix *f = tcp_fix_new(16);
	int fd = tcp_connect(f, 0), fd2;
	uint8_t buf[3 * WIRE_LEN];
	struct wire_msg reply = {.type = WIRE_REPLY, .client_id = 9, .seq = 5};

	(void)state;
	tcp_request(buf, 1);
	memset(buf + WIRE_LEN, 'X', WIRE_LEN);
	tcp_request(buf + 2 * WIRE_LEN, 3);
	tcp_write(f, fd, buf, sizeof(buf));
	tcp_expect(f, fd, 1, 0);
	tcp_closed_by_site(f, fd);
	assert_int_equal(f->t.counts.requests, 1);
	assert_int_equal(f->t.counts.bad, 1);
	assert_int_equal(f->t.counts.aborted, 1);
	assert_int_equal(f->t.counts.open, 0);
	close(fd);

	fd2 = tcp_connect(f, 0);
	wire_encode(&reply, buf, WIRE_LEN);
	tcp_write(f, fd2, buf, WIRE_LEN);
	tcp_closed_by_site(f, fd2);
	assert_int_equal(f->t.counts.bad, 2);
	assert_int_equal(f->t.counts.aborted, 2);
	assert_int_equal(f->t.counts.requests, 1);
	close(fd2);
	tcp_fix_free(f);
}

/* a drained site's replies over TCP are flagged as over UDP */
static void test_tcp_draining(void **state)
{
	struct tcp_fix *f = tcp_fix_new(16);
	int fd = tcp_connect(f, 0);
	uint8_t buf[WIRE_LEN];

	(void)state;
	tcp_request(buf, 1);
	tcp_write(f, fd, buf, WIRE_LEN);
	tcp_expect(f, fd, 1, 0);
	f->srv.draining = 1;
	tcp_request(buf, 2);
	tcp_write(f, fd, buf, WIRE_LEN);
	tcp_expect(f, fd, 2, WIRE_F_DRAINING);
	close(fd);
	tcp_until(f, &f->t.counts.closed, 1);
	tcp_fix_free(f);
}

/* the peer's close counts as closed, its reset as reset; a request cut by
 * the close is dropped, not bad */
static void test_tcp_close_and_reset(void **state)
{
	struct tcp_fix *f = tcp_fix_new(16);
	int a = tcp_connect(f, 0), b = tcp_connect(f, 0);
	struct linger now = {.l_onoff = 1, .l_linger = 0};
	uint8_t buf[WIRE_LEN];

	(void)state;
	assert_int_equal(f->t.counts.open, 2);
	tcp_request(buf, 1);
	tcp_write(f, a, buf, 30);
	while (TAILQ_FIRST(&f->t.conns)->in_len != 30)
		tcp_turn(f);
	close(a);
	tcp_until(f, &f->t.counts.closed, 1);
	assert_int_equal(f->t.counts.bad, 0);
	assert_int_equal(f->t.counts.requests, 0);
	assert_int_equal(setsockopt(b, SOL_SOCKET, SO_LINGER, &now, sizeof(now)), 0);
	close(b); /* an RST */
	tcp_until(f, &f->t.counts.reset, 1);
	assert_int_equal(f->t.counts.closed, 1);
	assert_int_equal(f->t.counts.aborted, 0);
	assert_int_equal(f->t.counts.open, 0);
	assert_int_equal(f->t.counts.accepted, 2);
	tcp_fix_free(f);
}

/* beyond the cap a connection is accepted and closed at once; those open
 * are served as before */
static void test_tcp_cap(void **state)
{
	struct tcp_fix *f = tcp_fix_new(2);
	int a = tcp_connect(f, 0), b = tcp_connect(f, 0), c = tcp_connect(f, 0);
	uint8_t buf[WIRE_LEN];

	(void)state;
	assert_int_equal(f->t.counts.accepted, 2);
	assert_int_equal(f->t.counts.refused, 1);
	assert_int_equal(f->t.counts.open, 2);
	tcp_closed_by_site(f, c);
	tcp_request(buf, 7);
	tcp_write(f, b, buf, WIRE_LEN);
	tcp_expect(f, b, 7, 0);
	close(a);
	close(b);
	close(c);
	tcp_until(f, &f->t.counts.closed, 2);
	tcp_fix_free(f);
}

/* with no descriptor left, a connection waiting is accepted on the
 * spare's and closed, and the listener does not wake the loop again */
static void test_tcp_no_descriptors(void **state)
{
	struct tcp_fix *f = tcp_fix_new(16);
	struct sockaddr_in to = {.sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				 .sin_port = htons(f->port)};
	struct rlimit was, none;
	int fd = socket(AF_INET, SOCK_STREAM, 0), lowest;

	(void)state;
	assert_true(fd != -1);
	assert_int_equal(connect(fd, (struct sockaddr *)&to, sizeof(to)), 0);
	/* every descriptor below the limit taken: the lowest free is the limit */
	assert_true((lowest = dup(0)) != -1);
	close(lowest);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &was), 0);
	none = was;
	none.rlim_cur = (rlim_t)lowest;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &none), 0);
	tcp_until(f, &f->t.counts.refused, 1);
	assert_int_equal(loop_once(f->loop, 20), 0);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &was), 0);
	assert_true(f->t.spare != -1);
	assert_int_equal(f->t.counts.accepted, 0);
	tcp_closed_by_site(f, fd);
	close(fd);
	tcp_fix_free(f);
}

/* a reader slower than its requests: what the kernel does not take waits
 * for EPOLLOUT, in order; beyond SITED_TCP_OUT_MAX bytes the connection is
 * closed */
static void test_tcp_slow_reader(void **state)
{
	struct tcp_fix *f = tcp_fix_new(16);
	int small = 4096, fd, eof;
	size_t n = 1000, got;
	uint8_t *buf = malloc(3000 * WIRE_LEN);

	(void)state;
	assert_non_null(buf);
	/* the accepted socket takes the listener's send buffer */
	assert_int_equal(setsockopt(f->t.fd, SOL_SOCKET, SO_SNDBUF, &small, sizeof(small)), 0);
	fd = tcp_connect(f, small);
	for (size_t i = 0; i < n; i++)
		tcp_request(buf + i * WIRE_LEN, i);
	tcp_write(f, fd, buf, n * WIRE_LEN);
	tcp_until(f, &f->t.counts.requests, n);
	/* 48,000 bytes of replies: more than the two buffers hold */
	assert_true(TAILQ_FIRST(&f->t.conns)->out_len > TAILQ_FIRST(&f->t.conns)->out_off);
	assert_true(f->t.counts.replies < n);
	got = tcp_read(f, fd, buf, n * WIRE_LEN, &eof);
	assert_int_equal(got, n * WIRE_LEN);
	for (size_t i = 0; i < n; i++) {
		struct wire_msg m;

		assert_int_equal(wire_decode(buf + i * WIRE_LEN, WIRE_LEN, &m), 0);
		assert_int_equal(m.seq, i);
	}
	assert_int_equal(f->t.counts.replies, n);
	assert_null(TAILQ_FIRST(&f->t.conns)->out);

	/* 3,000 requests never read: 144,000 bytes of replies */
	for (size_t i = 0; i < 3000; i++)
		tcp_request(buf + i * WIRE_LEN, i);
	tcp_send(f, fd, buf, 3000 * WIRE_LEN);
	tcp_until(f, &f->t.counts.aborted, 1);
	assert_int_equal(f->t.counts.open, 0);
	assert_true(f->t.counts.requests < n + 3000);
	close(fd);
	free(buf);
	tcp_fix_free(f);
}

/* on the wildcard, sited listens on [::] too: a request over [::1] is
 * answered as over 127.0.0.1, drained and degraded alike, the connections
 * of both families under one cap and in one count */
static void test_tcp_ipv6(void **state)
{
	struct sockaddr_in any = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
	struct tcp_fix *f = tcp_fix_new_at(&any, 2);
	int a = tcp_connect6(f), b = tcp_connect(f, 0), c = tcp_connect6(f);
	uint8_t buf[WIRE_LEN];

	(void)state;
	assert_true(f->t.fd6 != -1);
	assert_int_equal(f->t.counts.accepted, 2);
	assert_int_equal(f->t.counts.refused, 1);
	tcp_closed_by_site(f, c);
	tcp_request(buf, 1);
	tcp_write(f, a, buf, WIRE_LEN);
	tcp_expect(f, a, 1, 0);
	f->srv.draining = 1;
	tcp_request(buf, 2);
	tcp_write(f, a, buf, WIRE_LEN);
	tcp_expect(f, a, 2, WIRE_F_DRAINING);
	f->srv.draining = 0;
	f->srv.degraded = 1;
	tcp_request(buf, 3);
	tcp_write(f, a, buf, WIRE_LEN);
	tcp_until(f, &f->t.counts.degraded_dropped, 1);
	f->srv.degraded = 0;
	tcp_request(buf, 4);
	tcp_write(f, a, buf, WIRE_LEN);
	tcp_expect(f, a, 4, 0); /* 3 went unanswered */
	tcp_request(buf, 5);
	tcp_write(f, b, buf, WIRE_LEN);
	tcp_expect(f, b, 5, 0);
	assert_int_equal(f->t.counts.requests, 5);
	assert_int_equal(f->t.counts.replies, 4);
	close(a);
	close(b);
	close(c);
	tcp_until(f, &f->t.counts.closed, 2);
	tcp_fix_free(f);
}

/* given ::1, sited listens there alone */
static void test_tcp_ipv6_alone(void **state)
{
	struct sockaddr_in6 lo6 = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT};
	struct tcp_fix *f = tcp_fix_new_at(&lo6, 16);
	int fd = tcp_connect6(f);
	uint8_t buf[WIRE_LEN];

	(void)state;
	assert_int_equal(f->t.fd6, -1);
	tcp_request(buf, 6);
	tcp_write(f, fd, buf, WIRE_LEN);
	tcp_expect(f, fd, 6, 0);
	close(fd);
	tcp_until(f, &f->t.counts.closed, 1);
	tcp_fix_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tcp_split),
	    cmocka_unit_test(test_tcp_three_in_one),
	    cmocka_unit_test(test_tcp_bad_closes),
	    cmocka_unit_test(test_tcp_draining),
	    cmocka_unit_test(test_tcp_close_and_reset),
	    cmocka_unit_test(test_tcp_cap),
	    cmocka_unit_test(test_tcp_no_descriptors),
	    cmocka_unit_test(test_tcp_slow_reader),
	    cmocka_unit_test(test_tcp_ipv6),
	    cmocka_unit_test(test_tcp_ipv6_alone),
	};

	return cmocka_run_group_tests_name("sited_tcp", tests, NULL, NULL);
}
