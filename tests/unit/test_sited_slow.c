/*
 * sited's held replies (agents/sited/slow.c): released in order once due,
 * not before; a ring that grows and wraps keeps the order; a connection
 * that ends drops its own held replies and no other's; a UDP reply held is
 * sent from the address its request was sent to, in IPv4 and in IPv6.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <cmocka.h>
#include <sys/socket.h>

#include "agents/sited/slow.h"

static struct sited_slow_item item(int64_t due, int tag, struct sited_tcp_conn *conn)
{
	struct sited_slow_item it = {.due_ns = due, .fd = conn ? -1 : 3, .conn = conn};

	it.msg[0] = (uint8_t)tag;
	return it;
}

static void test_order_and_due(void **state)
{
	struct sited_slow s = {0};
	struct sited_slow_item it;

	(void)state;
	assert_int_equal(sited_slow_due(&s), INT64_MAX);
	assert_int_equal(sited_slow_pop(&s, 100, &it), 0);
	/* enough to grow the ring twice, popped as it goes so that it wraps */
	for (int i = 0; i < 3000; i++) {
		struct sited_slow_item x = item(1000 + i, i & 0xff, NULL);

		assert_int_equal(sited_slow_push(&s, &x), 0);
		if (i % 3 == 2)
			assert_int_equal(sited_slow_pop(&s, 1000 + i, &it), 1);
	}
	assert_int_equal(s.held, 3000);
	/* what is left comes out in order, none before its time */
	for (int64_t want = sited_slow_due(&s); s.len;) {
		assert_int_equal(sited_slow_pop(&s, want - 1, &it), 0);
		assert_int_equal(sited_slow_pop(&s, want, &it), 1);
		assert_int_equal(it.due_ns, want);
		assert_int_equal(it.msg[0], (uint8_t)(want - 1000));
		want = sited_slow_due(&s);
	}
	sited_slow_free(&s);
}

static void test_forget(void **state)
{
	struct sited_slow s = {0};
	struct sited_slow_item it;
	struct sited_tcp_conn *a = (struct sited_tcp_conn *)&s, *b = (struct sited_tcp_conn *)&it;

	(void)state;
	assert_int_equal(
	    sited_slow_push(&s, &(struct sited_slow_item){.due_ns = 1, .fd = -1, .conn = a}), 0);
	assert_int_equal(
	    sited_slow_push(&s, &(struct sited_slow_item){.due_ns = 2, .fd = -1, .conn = b}), 0);
	assert_int_equal(
	    sited_slow_push(&s, &(struct sited_slow_item){.due_ns = 3, .fd = -1, .conn = a}), 0);
	sited_slow_forget(&s, a);
	assert_int_equal(s.dropped_closed, 2);
	assert_int_equal(sited_slow_pop(&s, 10, &it), 1);
	assert_ptr_equal(it.conn, b);
	assert_int_equal(sited_slow_pop(&s, 10, &it), 0);
	sited_slow_free(&s);
}

/* a UDP reply held and sent: it leaves from the address given (here
 * 127.0.0.1 of a socket bound to the wildcard) to the requester */
static void test_send(void **state)
{
	struct sockaddr_in any = {.sin_family = AF_INET}, peer = {.sin_family = AF_INET}, from;
	socklen_t len = sizeof(peer);
	struct sited_slow_item it = {.due_ns = 0};
	int one = 1, tx = socket(AF_INET, SOCK_DGRAM, 0), rx = socket(AF_INET, SOCK_DGRAM, 0);
	uint8_t buf[64];

	(void)state;
	peer.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(setsockopt(tx, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one)), 0);
	assert_int_equal(bind(tx, (struct sockaddr *)&any, sizeof(any)), 0);
	assert_int_equal(bind(rx, (struct sockaddr *)&peer, sizeof(peer)), 0);
	assert_int_equal(getsockname(rx, (struct sockaddr *)&peer, &len), 0);
	it.fd = tx;
	it.to.sin = peer;
	it.src.v4.ipi_spec_dst.s_addr = htonl(INADDR_LOOPBACK);
	memset(it.msg, 0x5a, sizeof(it.msg));
	assert_int_equal(sited_slow_send(&it), 0);
	len = sizeof(from);
	assert_int_equal(recvfrom(rx, buf, sizeof(buf), 0, (struct sockaddr *)&from, &len),
			 WIRE_LEN);
	assert_int_equal(buf[0], 0x5a);
	assert_int_equal(from.sin_addr.s_addr, htonl(INADDR_LOOPBACK));
	close(tx);
	close(rx);
}

/* the same in IPv6: from ::1, through a socket bound to [::] */
static void test_send6(void **state)
{
	struct sockaddr_in6 any = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT},
			    peer = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT},
			    from;
	socklen_t len = sizeof(peer);
	struct sited_slow_item it = {.due_ns = 0};
	int one = 1, tx = socket(AF_INET6, SOCK_DGRAM, 0), rx = socket(AF_INET6, SOCK_DGRAM, 0);
	uint8_t buf[64];

	(void)state;
	assert_true(tx != -1 && rx != -1);
	assert_int_equal(setsockopt(tx, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)), 0);
	assert_int_equal(bind(tx, (struct sockaddr *)&any, sizeof(any)), 0);
	assert_int_equal(bind(rx, (struct sockaddr *)&peer, sizeof(peer)), 0);
	assert_int_equal(getsockname(rx, (struct sockaddr *)&peer, &len), 0);
	it.fd = tx;
	it.to.sin6 = peer;
	it.src.v6.ipi6_addr = in6addr_loopback;
	memset(it.msg, 0xa5, sizeof(it.msg));
	assert_int_equal(sited_slow_send(&it), 0);
	len = sizeof(from);
	assert_int_equal(recvfrom(rx, buf, sizeof(buf), 0, (struct sockaddr *)&from, &len),
			 WIRE_LEN);
	assert_int_equal(buf[0], 0xa5);
	assert_int_equal(len, sizeof(from));
	assert_true(IN6_IS_ADDR_LOOPBACK(&from.sin6_addr));
	close(tx);
	close(rx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_order_and_due),
	    cmocka_unit_test(test_forget),
	    cmocka_unit_test(test_send),
	    cmocka_unit_test(test_send6),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
