/*
 * blast: a fast UDP sender of steerlab request datagrams, to test that the
 * collector drops nothing at high rates.
 *
 *   blast -t ADDR:PORT [-r RATE] [-d DURATION] [-b BATCH] [-i ID] [-f FLOWS]
 *
 * Sends RATE requests per second (default 200000) for DURATION (default 3s)
 * with sendmmsg(2), BATCH datagrams per call (default 64), on an absolute
 * schedule: batch k is due at start + k * BATCH / RATE, so a late wake-up
 * catches up. Each datagram is a lib/wire.h request with client id ID,
 * sequence 0, 1, ... and the send time, so the clocks can decode the capture.
 * With -f FLOWS, datagram k goes to PORT + (k mod FLOWS): as many flows
 * (bench/links, whose delay line keeps each flow's order). Prints what it
 * sent and how many sends the kernel refused.
 *
 * Build without the Makefile:
 *   cc -O2 -D_GNU_SOURCE -Ilib -o build/release/tools/blast tests/tools/blast.c \
 *      lib/wire.c lib/timeutil.c -lm
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "timeutil.h"
#include "wire.h"

#define BLAST_BATCH_MAX 1024

static void blast_usage(void)
{
	fprintf(
	    stderr,
	    "usage: blast -t ADDR:PORT [-r RATE] [-d DURATION] [-b BATCH] [-i ID] [-f FLOWS]\n");
	exit(2);
}

static int blast_target(const char *s, struct sockaddr_in *sa)
{
	char host[INET_ADDRSTRLEN];
	const char *colon = strrchr(s, ':');
	char *end;
	long port;

	if (colon == NULL || (size_t)(colon - s) >= sizeof(host))
		return -1;
	memcpy(host, s, (size_t)(colon - s));
	host[colon - s] = '\0';
	port = strtol(colon + 1, &end, 10);
	if (*end || end == colon + 1 || port < 1 || port > 65535)
		return -1;
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)port);
	return inet_pton(AF_INET, host, &sa->sin_addr) == 1 ? 0 : -1;
}

int main(int argc, char *argv[])
{
	static uint8_t bufs[BLAST_BATCH_MAX][WIRE_LEN];
	static struct mmsghdr msgs[BLAST_BATCH_MAX];
	static struct iovec iovs[BLAST_BATCH_MAX];
	static struct sockaddr_in sas[BLAST_BATCH_MAX];
	struct sockaddr_in sa;
	struct wire_msg m = {.type = WIRE_REQUEST, .client_id = 1};
	double rate = 200000;
	int64_t duration = 3 * NSEC_PER_SEC, start, elapsed;
	uint64_t total, sent = 0, refused = 0, calls = 0;
	int batch = 64, have_target = 0, ch, fd, sndbuf = 4 << 20, flows = 1;

	while ((ch = getopt(argc, argv, "t:r:d:b:i:f:")) != -1) {
		switch (ch) {
		case 't':
			if (blast_target(optarg, &sa) == -1)
				blast_usage();
			have_target = 1;
			break;
		case 'r':
			rate = strtod(optarg, NULL);
			break;
		case 'd':
			if (parse_duration_ns(optarg, &duration) == -1)
				blast_usage();
			break;
		case 'b':
			batch = atoi(optarg);
			break;
		case 'i':
			m.client_id = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'f':
			flows = atoi(optarg);
			break;
		default:
			blast_usage();
		}
	}
	if (!have_target || rate <= 0 || batch < 1 || batch > BLAST_BATCH_MAX || flows < 1 ||
	    flows > 65535 - ntohs(sa.sin_port) + 1)
		blast_usage();
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	/* not connected: ICMP errors from the far end are not reported to us */
	if (fd == -1) {
		perror("blast: socket");
		return 1;
	}
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	for (int i = 0; i < batch; i++) {
		iovs[i].iov_base = bufs[i];
		iovs[i].iov_len = WIRE_LEN;
		msgs[i].msg_hdr.msg_iov = &iovs[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
		sas[i] = sa;
		msgs[i].msg_hdr.msg_name = &sas[i];
		msgs[i].msg_hdr.msg_namelen = sizeof(sa);
	}
	total = (uint64_t)(rate * (double)duration / 1e9);
	start = now_mono_ns();
	while (sent + refused < total) {
		uint64_t done = sent + refused;
		uint64_t due = (uint64_t)((double)(now_mono_ns() - start) * rate / 1e9);
		int n, k;

		if (due > total)
			due = total;
		if (due <= done) {
			/* sleep until the next batch is due */
			int64_t next =
			    start + (int64_t)((double)(done + (uint64_t)batch) * 1e9 / rate);
			sleep_until_mono(next, NULL);
			continue;
		}
		n = due - done > (uint64_t)batch ? batch : (int)(due - done);
		int64_t t = now_real_ns();
		for (int i = 0; i < n; i++) {
			m.seq = done + (uint64_t)i;
			m.sent_ns = (uint64_t)t;
			sas[i].sin_port =
			    htons((uint16_t)(ntohs(sa.sin_port) + m.seq % (uint64_t)flows));
			wire_encode(&m, bufs[i], WIRE_LEN);
		}
		k = sendmmsg(fd, msgs, (unsigned)n, 0);
		calls++;
		if (k == -1) {
			if (errno != ENOBUFS && errno != EAGAIN) {
				perror("blast: sendmmsg");
				return 1;
			}
			/* the whole first datagram was refused; the rest are retried */
			refused++;
			continue;
		}
		sent += (uint64_t)k;
	}
	elapsed = now_mono_ns() - start;
	printf("blast: sent %llu requests in %.3f s (%.0f/s), %llu refused, %llu sendmmsg calls\n",
	       (unsigned long long)sent, (double)elapsed / 1e9,
	       (double)sent * 1e9 / (double)elapsed, (unsigned long long)refused,
	       (unsigned long long)calls);
	close(fd);
	return 0;
}
