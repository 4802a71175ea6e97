/* lib/dnstcp.c over loopback TCP, no root: framing and pipelining, partial
 * writes to a slow reader, a slow reader closed, a message cut by the
 * peer's close, the connection cap both ways, idle connections. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <cmocka.h>
#include <netinet/in.h>
#include <poll.h>

#include "dnstcp.h"
#include "loop.h"

#define BIG 60000

struct fx {
	struct loop *loop;
	struct dnstcp_server srv;
	struct dnstcp_listener l;
	struct sockaddr_in addr;
	int lfd;
	int messages;
	size_t answer_len; /* 0: echo */
	uint8_t *big;
};

static int64_t fake_now;
static int64_t fake_clock(void)
{
	return fake_now;
}

/* answer each message: an echo, or answer_len bytes of its first byte */
static void on_message(void *arg, struct dnstcp_conn *c, const uint8_t *msg, size_t len)
{
	struct fx *f = arg;

	f->messages++;
	if (f->answer_len == 0) {
		dnstcp_send(c, msg, len);
		return;
	}
	memset(f->big, msg[0], f->answer_len);
	dnstcp_send(c, f->big, f->answer_len);
}

static struct fx *fx_open(unsigned max, enum dnstcp_cap cap, size_t out_max, int sndbuf)
{
	struct fx *f = calloc(1, sizeof(*f));
	socklen_t len = sizeof(f->addr);
	struct dnstcp_conf conf = {.max_conns = max,
				   .cap = cap,
				   .idle_ns = 10,
				   .out_max = out_max,
				   .nfd = 1024,
				   .clock = fake_clock,
				   .message = on_message};

	assert_non_null(f);
	f->big = malloc(DNSTCP_MSG_MAX);
	f->loop = loop_new();
	f->lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	f->addr =
	    (struct sockaddr_in){.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	if (sndbuf) /* inherited by the accepted sockets */
		setsockopt(f->lfd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	assert_int_equal(bind(f->lfd, (struct sockaddr *)&f->addr, sizeof(f->addr)), 0);
	assert_int_equal(listen(f->lfd, 16), 0);
	assert_int_equal(getsockname(f->lfd, (struct sockaddr *)&f->addr, &len), 0);
	assert_int_equal(dnstcp_open(&f->srv, f->loop, &conf), 0);
	assert_int_equal(dnstcp_listen(&f->srv, &f->l, f->lfd, f), 0);
	return f;
}

static void fx_close(struct fx *f)
{
	dnstcp_close_all(&f->srv);
	dnstcp_unlisten(&f->l);
	close(f->lfd);
	loop_free(f->loop);
	free(f->big);
	free(f);
}

static void pump(struct fx *f)
{
	for (int i = 0; i < 20; i++)
		loop_once(f->loop, 2);
}

static int client(struct fx *f, int rcvbuf)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (rcvbuf)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	assert_int_equal(connect(fd, (struct sockaddr *)&f->addr, sizeof(f->addr)), 0);
	return fd;
}

static void put(int fd, const void *buf, size_t len)
{
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
}

/* get: exactly len bytes, pumping the server meanwhile */
static void get(struct fx *f, int fd, uint8_t *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		ssize_t n;

		loop_once(f->loop, 0);
		if (poll(&p, 1, 5) <= 0)
			continue;
		n = read(fd, buf + got, len - got);
		assert_true(n > 0);
		got += (size_t)n;
	}
}

/* closed_by_server: the server's end is gone (EOF or reset) */
static int closed_by_server(struct fx *f, int fd)
{
	uint8_t buf[4096];

	for (int i = 0; i < 200; i++) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		ssize_t n;

		loop_once(f->loop, 0);
		if (poll(&p, 1, 5) <= 0)
			continue;
		n = read(fd, buf, sizeof(buf));
		if (n <= 0)
			return 1;
	}
	return 0;
}

static void test_pipelined_and_split(void **state)
{
	struct fx *f = fx_open(8, DNSTCP_CAP_REFUSE, 0, 0);
	int fd = client(f, 0);
	/* three messages in one write, then one in three pieces */
	const uint8_t three[] = {0, 1, 'a', 0, 2, 'b', 'b', 0, 3, 'c', 'c', 'c'};
	uint8_t got[32];

	(void)state;
	put(fd, three, sizeof(three));
	pump(f);
	put(fd, "\0", 1);
	pump(f);
	put(fd, "\4dd", 3);
	pump(f);
	assert_int_equal(f->messages, 3);
	put(fd, "dd", 2);
	get(f, fd, got, sizeof(three) + 6);
	assert_int_equal(f->messages, 4);
	assert_memory_equal(got, three, sizeof(three));
	assert_memory_equal(got + sizeof(three), "\0\4dddd", 6);
	assert_int_equal(f->srv.counts.answers, 4);
	close(fd);
	pump(f);
	assert_int_equal(f->srv.nconns, 0);
	fx_close(f);
}

/* out_max 0: answers bigger than the socket buffers wait, nothing more
 * is read meanwhile, and every byte arrives in order */
static void test_partial_writes_to_a_slow_reader(void **state)
{
	struct fx *f = fx_open(8, DNSTCP_CAP_REFUSE, 0, 4096);
	int fd = client(f, 4096);
	const uint8_t q[] = {0, 1, 'x', 0, 1, 'y', 0, 1, 'z'};
	uint8_t *got = malloc(3 * (2 + BIG));

	(void)state;
	f->answer_len = BIG;
	put(fd, q, sizeof(q));
	pump(f);
	/* the first answer does not fit: the others are not asked for yet */
	assert_int_equal(f->messages, 1);
	assert_int_equal(f->srv.nconns, 1);
	get(f, fd, got, 3 * (2 + BIG));
	assert_int_equal(f->messages, 3);
	for (int i = 0; i < 3; i++) {
		const uint8_t *a = got + i * (2 + BIG);

		assert_int_equal(a[0] << 8 | a[1], BIG);
		assert_int_equal(a[2], "xyz"[i]);
		assert_int_equal(a[1 + BIG], "xyz"[i]);
	}
	free(got);
	close(fd);
	fx_close(f);
}

/* out_max > 0: a reader that does not read is closed */
static void test_slow_reader_closed(void **state)
{
	struct fx *f = fx_open(8, DNSTCP_CAP_EVICT, 3 * BIG, 4096);
	int fd = client(f, 4096);
	uint8_t q[30];

	(void)state;
	f->answer_len = BIG;
	for (int i = 0; i < 10; i++)
		q[3 * i] = 0, q[3 * i + 1] = 1, q[3 * i + 2] = (uint8_t)('0' + i);
	put(fd, q, sizeof(q));
	pump(f);
	assert_int_equal(f->srv.counts.slow_closed, 1);
	assert_int_equal(f->srv.nconns, 0);
	assert_true(closed_by_server(f, fd));
	close(fd);
	fx_close(f);
}

static void test_closed_mid_message(void **state)
{
	struct fx *f = fx_open(8, DNSTCP_CAP_REFUSE, 0, 0);
	int fd = client(f, 0);
	uint8_t half[2 + 50] = {0, 100};

	(void)state;
	put(fd, half, sizeof(half));
	pump(f);
	assert_int_equal(f->srv.nconns, 1);
	close(fd);
	pump(f);
	assert_int_equal(f->messages, 0);
	assert_int_equal(f->srv.nconns, 0);
	/* a zero-length message closes too */
	fd = client(f, 0);
	put(fd, "\0\0", 2);
	pump(f);
	assert_int_equal(f->srv.nconns, 0);
	assert_true(closed_by_server(f, fd));
	close(fd);
	fx_close(f);
}

static void test_cap(void **state)
{
	struct fx *f = fx_open(2, DNSTCP_CAP_REFUSE, 0, 0);
	int a = client(f, 0), b, c;
	uint8_t got[3];

	(void)state;
	pump(f);
	fake_now = 5; /* a is older */
	b = client(f, 0);
	pump(f);
	c = client(f, 0);
	pump(f);
	/* refuse: the newcomer is closed */
	assert_int_equal(f->srv.counts.accepted, 2);
	assert_int_equal(f->srv.counts.rejected, 1);
	assert_true(closed_by_server(f, c));
	put(a, "\0\1a", 3);
	get(f, a, got, 3);
	close(a), close(b), close(c);
	pump(f);
	fx_close(f);

	/* evict: the least recently active makes room */
	f = fx_open(2, DNSTCP_CAP_EVICT, 0, 0);
	fake_now = 0;
	a = client(f, 0);
	pump(f);
	fake_now = 5;
	b = client(f, 0);
	pump(f);
	c = client(f, 0);
	pump(f);
	assert_int_equal(f->srv.counts.accepted, 3);
	assert_int_equal(f->srv.counts.evicted, 1);
	assert_true(closed_by_server(f, a));
	put(c, "\0\1c", 3);
	get(f, c, got, 3);
	assert_int_equal(got[2], 'c');
	close(a), close(b), close(c);
	fx_close(f);
}

static void test_idle(void **state)
{
	struct fx *f = fx_open(8, DNSTCP_CAP_REFUSE, 0, 0);
	int a, b;
	uint8_t got[3];

	(void)state;
	fake_now = 100;
	a = client(f, 0);
	b = client(f, 0);
	pump(f);
	fake_now = 108;
	put(b, "\0\1b", 3);
	get(f, b, got, 3);
	fake_now = 112; /* idle_ns 10: a since 100, b since 108 */
	dnstcp_idle(&f->srv);
	assert_int_equal(f->srv.counts.idle_closed, 1);
	assert_int_equal(f->srv.nconns, 1);
	assert_true(closed_by_server(f, a));
	close(a), close(b);
	fx_close(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pipelined_and_split),
	    cmocka_unit_test(test_partial_writes_to_a_slow_reader),
	    cmocka_unit_test(test_slow_reader_closed),
	    cmocka_unit_test(test_closed_mid_message),
	    cmocka_unit_test(test_cap),
	    cmocka_unit_test(test_idle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
