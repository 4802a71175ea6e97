/*
 * The collector's captures (probes/collector/capture.c) on lo, in a network
 * namespace of the test's own (test_netns.h; root, else skipped): opened
 * and activated with the kernel ring asked for (its mapping in
 * /proc/self/maps), nanosecond time stamps and the filter; the datagrams
 * sent are read, counted by what they carry (lib/wire.h requests: probe,
 * anycast, DNS-steered; anything else), written, and read back with
 * libpcap (count, lengths, snaplen, time stamps); the kernel dropped none;
 * a file that stops taking records (a file size limit) stops the file, not
 * the capture; the errors (no such interface, a bad filter, a directory
 * that is not there) with the exact message. Nothing is waited for by a
 * guess: each read follows a poll, bounded, for packets that must come.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <pcap/pcap.h>

#include "log.h"
#include "probes/collector/capture.h"
#include "rmtree.h"
#include "test_child.h"
#include "test_netns.h"
#include "timeutil.h"
#include "wire.h"

#define PORT 7000
#define RING (4 << 20)
#define WAIT_MS 2000
/* a request on lo: Ethernet, IPv4, UDP headers and the message */
#define REQ_FRAME (14 + 20 + 8 + WIRE_LEN)
#define OTHER_LEN 200
#define OTHER_FRAME (14 + 20 + 8 + OTHER_LEN)
#define SNAPLEN 128

struct fixture {
	char dir[64];
	struct capture *c;
	int64_t t0, t1; /* before the first datagram sent, after the last */
};

static int teardown(void **state)
{
	struct fixture *f = *state;

	capture_close(f->c);
	if (f->dir[0])
		assert_int_equal(rmtree_at(AT_FDCWD, f->dir, 2), 0);
	memset(f, 0, sizeof(*f));
	return 0;
}

/* lab: the namespace (lo up) and a directory for the files */
static void lab(struct fixture *f)
{
	TEST_NETNS_ENTER();
	log_init("collector", 0);
	snprintf(f->dir, sizeof(f->dir), "/tmp/steerlab-capture.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
}

static struct capture *open_lo(struct fixture *f, const char *label, const char *filter)
{
	struct capture_config cfg = {
	    .iface = "lo",
	    .label = label,
	    .dir = f->dir,
	    .filter = filter,
	    .buffer_bytes = RING,
	    .snaplen = SNAPLEN,
	};
	int file_errno = -1;
	struct capture *c = capture_open(&cfg, &file_errno);

	assert_non_null(c);
	assert_int_equal(file_errno, 0);
	return c;
}

static void send_to(int fd, uint16_t port, const void *buf, size_t len)
{
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(port)};

	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(sendto(fd, buf, len, 0, (struct sockaddr *)&to, sizeof(to)), (ssize_t)len);
}

static void send_request(int fd, uint32_t client, uint64_t seq)
{
	struct wire_msg m = {.type = WIRE_REQUEST, .client_id = client, .seq = seq};
	uint8_t buf[WIRE_LEN];

	assert_int_equal(wire_encode(&m, buf, sizeof(buf)), WIRE_LEN);
	send_to(fd, PORT, buf, sizeof(buf));
}

/* send: 1 probe, 2 anycast and 3 DNS-steered requests, 1 other datagram
 * longer than the snaplen, to PORT; and 1 request to another port, which
 * the filter leaves out: 7 packets to capture */
static void send_all(struct fixture *f)
{
	uint8_t other[OTHER_LEN];
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	assert_true(fd != -1);
	memset(other, 'x', sizeof(other));
	f->t0 = now_real_ns();
	send_request(fd, WIRE_PROBE_CLIENT, 1);
	send_request(fd, 1, 1);
	send_request(fd, WIRE_DNS_CLIENT_ID(1), 1);
	send_request(fd, 1, 2);
	send_request(fd, WIRE_DNS_CLIENT_ID(1), 2);
	send_to(fd, PORT, other, sizeof(other));
	send_request(fd, WIRE_DNS_CLIENT_ID(2), 1);
	send_to(fd, PORT + 1, other, WIRE_LEN);
	f->t1 = now_real_ns();
	close(fd);
}

/* read_until: poll and read until n packets were taken (WAIT_MS at most);
 * the first read takes one only (max 1) */
static void read_until(struct capture *c, uint64_t n)
{
	int64_t deadline = now_real_ns() + (int64_t)WAIT_MS * 1000000;
	struct capture_stats st;
	int first = 1;

	for (;;) {
		struct pollfd p = {.fd = capture_fd(c), .events = POLLIN};
		int64_t left = deadline - now_real_ns();
		int r;

		assert_int_equal(capture_stats(c, &st), 0);
		if (st.packets >= n)
			break;
		if (left <= 0)
			fail_msg("%llu packet(s) read in %d ms, %llu expected",
				 (unsigned long long)st.packets, WAIT_MS, (unsigned long long)n);
		assert_true(poll(&p, 1, (int)(left / 1000000) + 1) >= 0);
		if (!(p.revents & POLLIN))
			continue;
		r = capture_read(c, first ? 1 : 0);
		if (first && r > 0) {
			assert_int_equal(r, 1);
			first = 0;
		}
		assert_true(r >= 0);
	}
	assert_int_equal(st.packets, n);
}

/* ring_bytes: the size of fd's mappings (a packet socket's ring) */
static long ring_bytes(int fd)
{
	struct stat st;
	char want[64], line[512];
	long total = 0;
	FILE *maps = fopen("/proc/self/maps", "r");

	assert_non_null(maps);
	assert_int_equal(fstat(fd, &st), 0);
	snprintf(want, sizeof(want), "socket:[%lu]", (unsigned long)st.st_ino);
	while (fgets(line, sizeof(line), maps)) {
		unsigned long lo, hi;

		if (strstr(line, want) && sscanf(line, "%lx-%lx", &lo, &hi) == 2)
			total += (long)(hi - lo);
	}
	fclose(maps);
	return total;
}

/* read_back: the file through libpcap, "N packets, LEN bytes, CAPLEN
 * captured", every time stamp within t0..t1 */
static const char *read_back(struct fixture *f, const char *path)
{
	static char out[128];
	char errbuf[PCAP_ERRBUF_SIZE];
	pcap_t *p =
	    pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	struct pcap_pkthdr *h;
	const u_char *data;
	unsigned long n = 0, len = 0, caplen = 0;
	int rc;

	if (p == NULL)
		fail_msg("%s: %s", path, errbuf);
	assert_int_equal(pcap_datalink(p), DLT_EN10MB);
	assert_int_equal(pcap_snapshot(p), SNAPLEN);
	while ((rc = pcap_next_ex(p, &h, &data)) == 1) {
		int64_t t = (int64_t)h->ts.tv_sec * 1000000000 + h->ts.tv_usec;

		assert_true(t >= f->t0 && t <= f->t1);
		n++;
		len += h->len;
		caplen += h->caplen;
	}
	assert_int_equal(rc, PCAP_ERROR_BREAK);
	pcap_close(p);
	snprintf(out, sizeof(out), "%lu packets, %lu bytes, %lu captured", n, len, caplen);
	return out;
}

static void test_capture_lo(void **state)
{
	struct fixture *f = *state;
	struct capture_stats st;
	struct capture_requests rq;
	char path[128], want[128];

	lab(f);
	f->c = open_lo(f, "lo", "udp and dst port 7000");
	snprintf(path, sizeof(path), "%s/capture-lo.pcap", f->dir);
	assert_string_equal(capture_path(f->c), path);
	assert_string_equal(capture_label(f->c), "lo");
	assert_string_equal(capture_iface(f->c), "lo");
	assert_string_equal(capture_linktype(f->c), "EN10MB");
	/* the kernel ring asked for */
	assert_int_equal(ring_bytes(capture_fd(f->c)), RING);
	/* nothing yet; the file is valid already, its header written */
	assert_int_equal(capture_read(f->c, 0), 0);
	assert_string_equal(read_back(f, path), "0 packets, 0 bytes, 0 captured");

	send_all(f);
	read_until(f->c, 7);
	capture_requests(f->c, &rq);
	assert_int_equal(rq.probe, 1);
	assert_int_equal(rq.anycast, 2);
	assert_int_equal(rq.dns, 3);
	assert_int_equal(rq.other, 1);
	assert_true(rq.anycast_last_ns >= f->t0 && rq.anycast_last_ns <= rq.dns_last_ns);
	assert_true(rq.dns_last_ns <= f->t1);
	assert_int_equal(capture_flush(f->c), 0);
	assert_int_equal(capture_written(f->c), 7);
	snprintf(want, sizeof(want), "7 packets, %d bytes, %d captured",
		 6 * REQ_FRAME + OTHER_FRAME, 6 * REQ_FRAME + SNAPLEN);
	assert_string_equal(read_back(f, path), want);

	assert_int_equal(capture_close_file(f->c), 0);
	assert_int_equal(capture_close_file(f->c), 0); /* once is enough */
	assert_int_equal(capture_flush(f->c), 0);
	assert_int_equal(capture_stats(f->c, &st), 0);
	assert_int_equal(st.packets, 7);
	assert_int_equal(st.written, 7);
	/* the kernel counts a packet on lo twice, sent and received; libpcap
	 * hands over the received one only */
	assert_int_equal(st.received, 2 * 7);
	assert_int_equal(st.dropped, 0);
	assert_int_equal(st.if_dropped, 0);
	assert_int_equal(capture_write_error(f->c), 0);
	assert_string_equal(read_back(f, path), want);
	assert_int_equal(capture_close(f->c), 0);
	f->c = NULL;
	assert_int_equal(capture_close(NULL), 0);
}

/* a file that takes the header and two records, no more (RLIMIT_FSIZE):
 * the file stops with EFBIG, cut after its last whole record; the capture
 * goes on counting. In a child: the limit is its own. */
static void full_file(void *arg)
{
	struct fixture *f = arg;
	struct rlimit lim = {.rlim_cur = 24 + 2 * (16 + REQ_FRAME), .rlim_max = RLIM_INFINITY}, was;
	struct capture_stats st;
	int rc;

	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &was), 0);
	lim.rlim_max = was.rlim_max;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	f->c = open_lo(f, "full", "udp and dst port 7000");
	send_all(f);
	read_until(f->c, 7);
	rc = capture_flush(f->c);
	fprintf(stderr, "flush %d error %s\n", rc, strerror(capture_write_error(f->c)));
	rc = capture_close_file(f->c);
	fprintf(stderr, "close_file %d written %llu error %s\n", rc,
		(unsigned long long)capture_written(f->c), strerror(capture_write_error(f->c)));
	assert_int_equal(capture_stats(f->c, &st), 0);
	fprintf(stderr, "packets %llu written %llu dropped %llu\n", (unsigned long long)st.packets,
		(unsigned long long)st.written, (unsigned long long)st.dropped);
	rc = capture_flush(f->c);
	fprintf(stderr, "flush %d close %d\n", rc, capture_close(f->c));
	/* back, for what the exit writes (gcov's counts in a coverage build) */
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &was), 0);
	fprintf(stderr, "t %lld %lld\n", (long long)f->t0, (long long)f->t1);
}

static void test_file_full(void **state)
{
	struct fixture *f = *state;
	char *err, *text, *times, path[128], want[128];
	long long t0, t1;
	int status;

	lab(f);
	err = test_child_stderr(full_file, f, &status);
	test_assert_exit(status, 0);
	text = test_strip_stamps(err);
	/* the child's send times, its last line */
	assert_non_null(times = strstr(text, "\nt "));
	assert_int_equal(sscanf(times + 1, "t %lld %lld", &t0, &t1), 2);
	times[1] = '\0';
	assert_string_equal(text, "flush -1 error File too large\n"
				  "close_file -1 written 2 error File too large\n"
				  "packets 7 written 2 dropped 0\n"
				  "flush -1 close -1\n");
	f->t0 = t0;
	f->t1 = t1;
	snprintf(path, sizeof(path), "%s/capture-full.pcap", f->dir);
	snprintf(want, sizeof(want), "2 packets, %d bytes, %d captured", 2 * REQ_FRAME,
		 2 * REQ_FRAME);
	assert_string_equal(read_back(f, path), want);
	free(text);
	free(err);
}

/* open_fails: capture_open of cfg, what it logged and the file's errno */
static char *open_fails(const struct capture_config *cfg, int want_errno)
{
	int saved = test_stderr_begin(), file_errno = -1;
	struct capture *c = capture_open(cfg, &file_errno);
	char *err = test_stderr_end(saved), *text;

	assert_null(c);
	assert_int_equal(file_errno, want_errno);
	text = test_strip_stamps(err);
	free(err);
	return text;
}

static void test_errors(void **state)
{
	struct fixture *f = *state;
	struct capture_config cfg = {
	    .iface = "nosuch0",
	    .label = "x",
	    .filter = "udp",
	    .buffer_bytes = RING,
	    .snaplen = SNAPLEN,
	};
	char *text, want[256];

	lab(f);
	cfg.dir = f->dir;
	text = open_fails(&cfg, 0);
	assert_string_equal(text, "collector: capture_activate: nosuch0: cannot capture: "
				  "No such device exists\n");
	free(text);

	cfg.iface = "lo";
	cfg.filter = "udp port";
	text = open_fails(&cfg, 0);
	assert_string_equal(text, "collector: capture_activate: lo: filter \"udp port\": can't "
				  "parse filter expression: syntax error\n");
	free(text);

	cfg.filter = "udp";
	snprintf(want, sizeof(want), "%s/missing", f->dir);
	cfg.dir = want;
	text = open_fails(&cfg, ENOENT);
	snprintf(want, sizeof(want),
		 "collector: capture_open_file: %s/missing/capture-x.pcap: No such file or "
		 "directory\n",
		 f->dir);
	assert_string_equal(text, want);
	free(text);
}

int main(void)
{
	static struct fixture fx;
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_prestate_setup_teardown(test_capture_lo, NULL, teardown, &fx),
	    cmocka_unit_test_prestate_setup_teardown(test_file_full, NULL, teardown, &fx),
	    cmocka_unit_test_prestate_setup_teardown(test_errors, NULL, teardown, &fx),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
