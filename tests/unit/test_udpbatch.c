/* lib/udpbatch.c: batched receive and send over loopback, the reply source
 * rule (a wildcard listener answers from the address it was reached at, in
 * IPv4 and in IPv6), refused datagrams skipped, truncation. No root:
 * 127.0.0.0/8 and ::1 are local. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <cmocka.h>

#include "udpbatch.h"
#include "test_tstamp.h"

static struct in_pktinfo pktinfo(const char *dst, const char *local)
{
	struct in_pktinfo pi = {.ipi_ifindex = 3};

	inet_pton(AF_INET, dst, &pi.ipi_addr);
	inet_pton(AF_INET, local, &pi.ipi_spec_dst);
	return pi;
}

static const char *source(const char *dst, const char *local)
{
	static char buf[INET_ADDRSTRLEN];
	struct in_pktinfo pi = pktinfo(dst, local);
	struct in_addr a = udp_reply_source(&pi);

	return inet_ntop(AF_INET, &a, buf, sizeof(buf));
}

static void test_reply_source(void **state)
{
	(void)state;
	/* anycast on lo, arriving on a veth whose address is .2: from anycast */
	assert_string_equal(source("198.19.200.1", "198.18.200.2"), "198.19.200.1");
	/* broadcast, multicast, unspecified cannot be a source: the local one */
	assert_string_equal(source("255.255.255.255", "198.18.200.2"), "198.18.200.2");
	assert_string_equal(source("239.1.2.3", "198.18.200.2"), "198.18.200.2");
	assert_string_equal(source("0.0.0.0", "198.18.200.2"), "198.18.200.2");
}

/* udp_socket: a UDP socket bound to addr:port (port 0: any). */
static int udp_socket(const char *addr, uint16_t port, struct sockaddr_in *bound)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(port)};
	socklen_t len = sizeof(sin);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);

	assert_true(fd != -1);
	inet_pton(AF_INET, addr, &sin.sin_addr);
	assert_int_equal(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	if (bound)
		*bound = sin;
	return fd;
}

static void send_to(int fd, const char *addr, uint16_t port, const void *buf, size_t len)
{
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = port};

	inet_pton(AF_INET, addr, &to.sin_addr);
	assert_int_equal(sendto(fd, buf, len, 0, (struct sockaddr *)&to, sizeof(to)), (ssize_t)len);
}

/* settle: nothing to wait for: a datagram sent on loopback is in the
 * receiver's queue when sendto returns (the test says so where it waits) */
static void settle(void)
{
}

static void test_wildcard_listener_replies_from_destination(void **state)
{
	struct sockaddr_in srv, from;
	socklen_t flen = sizeof(from);
	int s = udp_socket("0.0.0.0", 0, &srv), c = udp_socket("127.0.0.1", 0, NULL);
	struct udp_batch *b = udp_batch_new(8, 64, 64);
	char got[64], a[INET_ADDRSTRLEN];

	(void)state;
	assert_non_null(b);
	assert_int_equal(udp_pktinfo_on(s, AF_INET), 0);
	assert_int_equal(udp_recv(s, b), 0); /* nothing yet */
	send_to(c, "127.0.0.2", srv.sin_port, "ping", 4);
	send_to(c, "127.0.0.3", srv.sin_port, "pong", 4);
	settle();
	assert_int_equal(udp_recv(s, b), 2);
	for (unsigned i = 0; i < 2; i++) {
		assert_non_null(udp_rx_pktinfo(b, i));
		assert_int_equal(udp_rx_len(b, i), 4);
		memcpy(udp_tx_buf(b), udp_rx_data(b, i), 4);
		udp_tx_reply(b, i, 4);
	}
	assert_int_equal(udp_send(s, b, NULL, NULL), 2);
	assert_int_equal(b->ntx, 0);
	settle();
	/* each from the address it was sent to, not 127.0.0.1 */
	assert_int_equal(recvfrom(c, got, sizeof(got), 0, (struct sockaddr *)&from, &flen), 4);
	assert_memory_equal(got, "ping", 4);
	assert_string_equal(inet_ntop(AF_INET, &from.sin_addr, a, sizeof(a)), "127.0.0.2");
	assert_int_equal(recvfrom(c, got, sizeof(got), 0, (struct sockaddr *)&from, &flen), 4);
	assert_memory_equal(got, "pong", 4);
	assert_string_equal(inet_ntop(AF_INET, &from.sin_addr, a, sizeof(a)), "127.0.0.3");
	udp_batch_free(b);
	close(s);
	close(c);
}

/* rx6: a received datagram's control data holding only pktinfo pi */
static void rx6(struct msghdr *h, union udp_cmsg *buf, const struct in6_pktinfo *pi)
{
	struct cmsghdr *c;

	memset(h, 0, sizeof(*h));
	memset(buf, 0, sizeof(*buf));
	h->msg_control = buf->buf;
	h->msg_controllen = CMSG_SPACE(sizeof(*pi));
	c = CMSG_FIRSTHDR(h);
	c->cmsg_level = IPPROTO_IPV6;
	c->cmsg_type = IPV6_PKTINFO;
	c->cmsg_len = CMSG_LEN(sizeof(*pi));
	memcpy(CMSG_DATA(c), pi, sizeof(*pi));
}

/* the IPv6 rule: from the destination, its interface kept (a link-local
 * one needs it); none for a multicast one; and a [::] listener answers a
 * datagram to ::1 from ::1, through IPV6_PKTINFO */
static void test_reply_source6(void **state)
{
	struct in6_pktinfo pi = {.ipi6_ifindex = 3}, got;
	struct sockaddr_in6 srv = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT},
			    cli = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT},
			    from;
	socklen_t len = sizeof(srv);
	union udp_cmsg rbuf, tbuf;
	struct msghdr rh, th = {0};
	union udp_pktinfo out;
	struct udp_batch *b = udp_batch_new(2, 64, 64);
	int one = 1, s = socket(AF_INET6, SOCK_DGRAM | SOCK_NONBLOCK, 0),
	    c = socket(AF_INET6, SOCK_DGRAM, 0);
	char got_buf[8];

	(void)state;
	inet_pton(AF_INET6, "2001:2:0:ff00::1", &pi.ipi6_addr);
	rx6(&rh, &rbuf, &pi);
	assert_int_equal(udp_reply_pktinfo(&rh, &out), AF_INET6);
	assert_memory_equal(&out.v6, &pi, sizeof(pi));
	udp_reply_cmsg(&rh, &th, &tbuf);
	assert_non_null(th.msg_control);
	assert_int_equal(CMSG_FIRSTHDR(&th)->cmsg_level, IPPROTO_IPV6);
	assert_int_equal(CMSG_FIRSTHDR(&th)->cmsg_type, IPV6_PKTINFO);
	memcpy(&got, CMSG_DATA(CMSG_FIRSTHDR(&th)), sizeof(got));
	assert_memory_equal(&got, &pi, sizeof(pi));
	inet_pton(AF_INET6, "ff02::1", &pi.ipi6_addr);
	rx6(&rh, &rbuf, &pi);
	assert_int_equal(udp_reply_pktinfo(&rh, &out), 0);
	udp_reply_cmsg(&rh, &th, &tbuf);
	assert_null(th.msg_control);

	assert_true(s != -1 && c != -1 && b != NULL);
	assert_int_equal(setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)), 0);
	assert_int_equal(udp_pktinfo_on(s, AF_INET6), 0);
	assert_int_equal(bind(s, (struct sockaddr *)&srv, sizeof(srv)), 0);
	assert_int_equal(getsockname(s, (struct sockaddr *)&srv, &len), 0);
	cli.sin6_port = srv.sin6_port;
	assert_int_equal(sendto(c, "six", 3, 0, (struct sockaddr *)&cli, sizeof(cli)), 3);
	assert_int_equal(udp_recv(s, b), 1);
	assert_null(udp_rx_pktinfo(b, 0)); /* the IPv4 one */
	assert_int_equal(udp_reply_pktinfo(&b->rx[0].msg_hdr, &out), AF_INET6);
	assert_true(IN6_IS_ADDR_LOOPBACK(&out.v6.ipi6_addr));
	memcpy(udp_tx_buf(b), "xis", 3);
	udp_tx_reply(b, 0, 3);
	assert_int_equal(CMSG_FIRSTHDR(&b->tx[0].msg_hdr)->cmsg_type, IPV6_PKTINFO);
	assert_int_equal(udp_send(s, b, NULL, NULL), 1);
	len = sizeof(from);
	assert_int_equal(recvfrom(c, got_buf, sizeof(got_buf), 0, (struct sockaddr *)&from, &len),
			 3);
	assert_memory_equal(got_buf, "xis", 3);
	assert_true(IN6_IS_ADDR_LOOPBACK(&from.sin6_addr));
	udp_batch_free(b);
	close(s);
	close(c);
}

static unsigned refused_at[8], nrefused;

static void on_refused(void *arg, unsigned index)
{
	(void)arg;
	refused_at[nrefused++] = index;
}

/* udp_timestamp_on: each datagram's arrival time, stamped by the kernel
 * when it arrived, not when it was read; none without it */
static void test_arrival_time_stamp(void **state)
{
	struct sockaddr_in to;
	int rx = udp_socket("127.0.0.1", 0, &to), tx = udp_socket("127.0.0.1", 0, NULL);
	struct udp_batch *b = udp_batch_new(4, 64, 64);
	struct timespec before, after;
	int64_t b_ns, a_ns, at;

	(void)state;
	assert_non_null(b);
	assert_int_equal(udp_timestamp_on(rx), 0);
	test_wait_tstamps();
	clock_gettime(CLOCK_REALTIME, &before);
	assert_int_equal(sendto(tx, "x", 1, 0, (struct sockaddr *)&to, sizeof(to)), 1);
	clock_gettime(CLOCK_REALTIME, &after);
	usleep(50000); /* read 50 ms later: the stamp is the arrival's */
	assert_int_equal(udp_recv(rx, b), 1);
	at = udp_rx_time_ns(b, 0);
	b_ns = (int64_t)before.tv_sec * 1000000000 + before.tv_nsec;
	a_ns = (int64_t)after.tv_sec * 1000000000 + after.tv_nsec;
	assert_true(at >= b_ns && at <= a_ns);
	/* without: -1 */
	close(rx);
	rx = udp_socket("127.0.0.1", 0, &to);
	assert_int_equal(sendto(tx, "x", 1, 0, (struct sockaddr *)&to, sizeof(to)), 1);
	assert_int_equal(udp_recv(rx, b), 1);
	assert_true(udp_rx_time_ns(b, 0) == -1);
	udp_batch_free(b);
	close(rx);
	close(tx);
}

static void test_refused_datagram_is_skipped(void **state)
{
	struct sockaddr_in dst, bad = {.sin_family = AF_INET, .sin_port = 0};
	int r = udp_socket("127.0.0.1", 0, &dst), s = udp_socket("127.0.0.1", 0, NULL);
	struct udp_batch *b = udp_batch_new(4, 64, 16);
	char got[64];

	(void)state;
	bad.sin_addr = dst.sin_addr; /* port 0: the kernel refuses it (EINVAL) */
	for (int i = 0; i < 4; i++) {
		uint8_t *p = udp_tx_buf(b);

		assert_non_null(p);
		p[0] = (uint8_t)('a' + i);
		udp_tx_to(b, (struct sockaddr *)(i == 1 ? &bad : &dst), sizeof(dst), 1);
	}
	assert_null(udp_tx_buf(b)); /* full */
	nrefused = 0;
	assert_int_equal(udp_send(s, b, on_refused, NULL), 3);
	assert_int_equal(nrefused, 1);
	assert_int_equal(refused_at[0], 1);
	settle();
	/* the others went, in order */
	assert_int_equal(recv(r, got, sizeof(got), 0), 1);
	assert_int_equal(got[0], 'a');
	assert_int_equal(recv(r, got, sizeof(got), 0), 1);
	assert_int_equal(got[0], 'c');
	assert_int_equal(recv(r, got, sizeof(got), 0), 1);
	assert_int_equal(got[0], 'd');
	udp_batch_free(b);
	close(r);
	close(s);
}

static void test_truncated_and_more_than_a_batch(void **state)
{
	struct sockaddr_in srv;
	int s = udp_socket("127.0.0.1", 0, &srv), c = udp_socket("127.0.0.1", 0, NULL);
	struct udp_batch *b = udp_batch_new(2, 8, 8);
	char big[20] = "0123456789abcdefghi";

	(void)state;
	send_to(c, "127.0.0.1", srv.sin_port, big, sizeof(big));
	send_to(c, "127.0.0.1", srv.sin_port, "ok", 2);
	send_to(c, "127.0.0.1", srv.sin_port, "3rd", 3);
	settle();
	assert_int_equal(udp_recv(s, b), 2);
	assert_true(udp_rx_truncated(b, 0));
	assert_memory_equal(udp_rx_data(b, 0), "01234567", 8);
	assert_false(udp_rx_truncated(b, 1));
	assert_int_equal(udp_rx_fromlen(b, 1), sizeof(struct sockaddr_in));
	assert_null(udp_rx_pktinfo(b, 1)); /* not asked for */
	assert_int_equal(udp_recv(s, b), 1);
	assert_memory_equal(udp_rx_data(b, 0), "3rd", 3);
	assert_int_equal(udp_recv(s, b), 0);
	/* a reply without pktinfo carries no source: from the bound address */
	memcpy(udp_tx_buf(b), "re", 2);
	udp_tx_reply(b, 0, 2);
	assert_null(b->tx[0].msg_hdr.msg_control);
	assert_int_equal(udp_send(s, b, NULL, NULL), 1);
	udp_batch_free(b);
	close(s);
	close(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reply_source),
	    cmocka_unit_test(test_reply_source6),
	    cmocka_unit_test(test_wildcard_listener_replies_from_destination),
	    cmocka_unit_test(test_arrival_time_stamp),
	    cmocka_unit_test(test_refused_datagram_is_skipped),
	    cmocka_unit_test(test_truncated_and_more_than_a_batch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
