/*
 * lib/pcapng.c: a file written by the pcapng writer, read back by libpcap
 * (which reads pcapng): the interfaces' link types and snaplens, every
 * packet's time stamp to the nanosecond, its bytes and lengths, with and
 * without comments, odd lengths padded; and the values the format cannot
 * carry refused.
 */
#include <errno.h>
#include <pcap/pcap.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "pcapng.h"

#define T0 1700000000123456789ULL

static void test_pcapng_read_back(void **state)
{
	char path[] = "/tmp/test_pcapng-XXXXXX", ebuf[PCAP_ERRBUF_SIZE];
	const char *two[] = {"t0 + 0.000000 s: t0", "second, with a comma"};
	uint8_t data[3][61];
	struct pcap_pkthdr *h;
	struct pcapng_writer w;
	const uint8_t *p;
	pcap_t *pc;
	FILE *fp;
	int fd;

	(void)state;
	for (int i = 0; i < 3; i++)
		for (size_t k = 0; k < sizeof(data[i]); k++)
			data[i][k] = (uint8_t)(i * 31 + k);
	assert_true((fd = mkstemp(path)) >= 0);
	assert_non_null(fp = fdopen(fd, "w"));
	assert_int_equal(pcapng_begin(&w, fp, "steerlab test"), 0);
	assert_int_equal(pcapng_interface(&w, "a", 1, 262144, 9), 0);
	/* libpcap wants one snaplen and link type of every interface */
	assert_int_equal(pcapng_interface(&w, "link-core-a", 1, 262144, 9), 1);
	assert_int_equal(pcapng_packet(&w, 0, T0, data[0], 61, 61, NULL, 0), 0);
	assert_int_equal(pcapng_packet(&w, 1, T0 + 1, data[1], 58, 61, two, 2), 0);
	assert_int_equal(pcapng_packet(&w, 0, T0 + 1000000001ULL, data[2], 1, 1, two, 1), 0);
	/* what the format cannot carry */
	assert_int_equal(pcapng_packet(&w, 2, T0, data[0], 1, 1, NULL, 0), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(pcapng_packet(&w, 0, T0, data[0], 2, 1, NULL, 0), -1);
	assert_int_equal(pcapng_interface(&w, "x", 70000, 10, 9), -1);
	assert_int_equal(fclose(fp), 0);

	pc = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, ebuf);
	if (pc == NULL)
		fail_msg("%s", ebuf);
	assert_int_equal(pcap_datalink(pc), 1);
	if (pcap_next_ex(pc, &h, &p) != 1)
		fail_msg("%s", pcap_geterr(pc));
	assert_int_equal(h->ts.tv_sec, T0 / 1000000000ULL);
	assert_int_equal(h->ts.tv_usec, T0 % 1000000000ULL);
	assert_int_equal(h->caplen, 61);
	assert_memory_equal(p, data[0], 61);
	assert_int_equal(pcap_next_ex(pc, &h, &p), 1);
	assert_int_equal(h->ts.tv_usec, T0 % 1000000000ULL + 1);
	assert_int_equal(h->caplen, 58);
	assert_int_equal(h->len, 61);
	assert_memory_equal(p, data[1], 58);
	assert_int_equal(pcap_next_ex(pc, &h, &p), 1);
	assert_int_equal(h->ts.tv_sec, T0 / 1000000000ULL + 1);
	assert_int_equal(h->ts.tv_usec, T0 % 1000000000ULL + 1);
	assert_int_equal(h->caplen, 1);
	assert_int_equal(p[0], data[2][0]);
	assert_int_equal(pcap_next_ex(pc, &h, &p), PCAP_ERROR_BREAK);
	pcap_close(pc);
	unlink(path);
}

/* a writer that cannot write says so */
static void test_pcapng_write_error(void **state)
{
	struct pcapng_writer w;
	FILE *fp = fopen("/dev/full", "w");

	(void)state;
	assert_non_null(fp);
	setvbuf(fp, NULL, _IONBF, 0);
	assert_int_equal(pcapng_begin(&w, fp, "steerlab"), -1);
	assert_int_equal(errno, ENOSPC);
	fclose(fp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pcapng_read_back),
	    cmocka_unit_test(test_pcapng_write_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
