/*
 * Tests that read datagrams' arrival times (SO_TIMESTAMPNS, lib/udpbatch.h)
 * must wait for the kernel to stamp them: it turns its receive stamps on
 * for the first socket that asks through deferred work, and stamps at the
 * read until then. test_wait_tstamps waits for that, not a guessed time.
 */
#ifndef STEERLAB_TEST_TSTAMP_H
#define STEERLAB_TEST_TSTAMP_H

#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "udpbatch.h"

/* test_wait_tstamps: call it once a socket of the test has asked for
 * stamps (udp_timestamp_on), which keeps them on. A datagram to a socket
 * of its own, read 2 ms after it was sent, says it: its stamp is the
 * send's, not the read's, once they are on. Fails after 5 s. */
static inline void test_wait_tstamps(void)
{
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(to);
	int rx = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	int tx = socket(AF_INET, SOCK_DGRAM, 0);
	struct udp_batch *b = udp_batch_new(1, 64, 64);
	struct timespec ts;

	assert_true(rx != -1 && tx != -1 && b != NULL);
	assert_int_equal(bind(rx, (struct sockaddr *)&to, sizeof(to)), 0);
	assert_int_equal(getsockname(rx, (struct sockaddr *)&to, &len), 0);
	assert_int_equal(udp_timestamp_on(rx), 0);
	for (int i = 0; i < 2500; i++) {
		int64_t sent, at;

		clock_gettime(CLOCK_REALTIME, &ts);
		sent = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
		assert_int_equal(sendto(tx, "t", 1, 0, (struct sockaddr *)&to, sizeof(to)), 1);
		usleep(2000);
		assert_int_equal(udp_recv(rx, b), 1);
		at = udp_rx_time_ns(b, 0);
		if (at > 0 && at - sent < 1000000) {
			udp_batch_free(b);
			close(rx);
			close(tx);
			return;
		}
	}
	fail_msg("the kernel did not turn its receive time stamps on within 5 s");
}

#endif
