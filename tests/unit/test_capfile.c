/* probes/collector/capfile.c: the pcap writer that counts only what reached the file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "probes/collector/capfile.h"

#define BUF (CAPFILE_RECORD_HDR + CAPFILE_MAX_CAPLEN)

/* a nanosecond pcap header, as libpcap writes it on a little-endian host */
static const unsigned char hdr[24] = {0x4d, 0x3c, 0xb2, 0xa1, 2,   0, 4, 0, 0, 0, 0, 0,
				      0,    0,	  0,	0,    128, 0, 0, 0, 1, 0, 0, 0};

static char dir[64], path[128];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_capfile.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/capture-a.pcap", dir);
	return 0;
}

static int teardown(void **state)
{
	char other[160];

	(void)state;
	unlink(path);
	snprintf(other, sizeof(other), "%s/target", dir);
	unlink(other);
	rmdir(dir);
	return 0;
}

static off_t size_of(const char *p)
{
	struct stat st;

	assert_int_equal(stat(p, &st), 0);
	return st.st_size;
}

static int add(struct capfile *f, uint32_t seq, uint32_t caplen)
{
	unsigned char data[CAPFILE_MAX_CAPLEN];

	memset(data, (int)(seq & 0xff), caplen);
	return capfile_add(f, 1796000000 + seq, 123456789, caplen, caplen + 10, data);
}

static void test_records_as_pcap(void **state)
{
	struct capfile *f = capfile_open(path, hdr, sizeof(hdr), BUF);
	unsigned char got[24 + 16 + 60 + 16 + 1];
	uint32_t h[4];
	FILE *fp;
	int err = -1;

	(void)state;
	assert_non_null(f);
	/* the header is in the file at once: an empty capture is valid */
	assert_int_equal(size_of(path), 24);
	assert_int_equal(add(f, 1, 60), 0);
	assert_int_equal(add(f, 2, 1), 0);
	assert_int_equal(capfile_written(f), 0); /* buffered */
	assert_int_equal(capfile_buffered(f), 2);
	assert_int_equal(capfile_flush(f), 0);
	assert_int_equal(capfile_written(f), 2);
	assert_int_equal(capfile_close(f, &err), 0);
	assert_int_equal(err, 0);

	fp = fopen(path, "r");
	assert_non_null(fp);
	assert_int_equal(fread(got, 1, sizeof(got) + 1, fp), sizeof(got));
	fclose(fp);
	assert_memory_equal(got, hdr, 24);
	memcpy(h, got + 24, 16);
	assert_int_equal(h[0], 1796000001);
	assert_int_equal(h[1], 123456789);
	assert_int_equal(h[2], 60);
	assert_int_equal(h[3], 70);
	assert_int_equal(got[24 + 16], 1);
	memcpy(h, got + 24 + 16 + 60, 16);
	assert_int_equal(h[2], 1);
	assert_int_equal(got[sizeof(got) - 1], 2);
}

static void test_full_buffer_is_written(void **state)
{
	struct capfile *f = capfile_open(path, hdr, sizeof(hdr), BUF);
	const uint32_t caplen = 100000;
	uint64_t n = 0;

	(void)state;
	assert_non_null(f);
	/* two records fill the buffer, the third one writes them out */
	for (; n < 3; n++)
		assert_int_equal(add(f, (uint32_t)n, caplen), 0);
	assert_int_equal(capfile_written(f), 2);
	assert_int_equal(capfile_buffered(f), 1);
	assert_int_equal(size_of(path), 24 + 2 * (16 + caplen));
	assert_int_equal(capfile_close(f, NULL), 0);
	assert_int_equal(size_of(path), 24 + 3 * (16 + caplen));
}

/* /dev/full: every write fails with ENOSPC, as a full disk does */
static void test_dev_full_header(void **state)
{
	struct capfile *f;

	(void)state;
	if (access("/dev/full", W_OK) != 0)
		fail_msg("/dev/full: not writable: this test needs it (every Linux has it)");
	errno = 0;
	f = capfile_open("/dev/full", hdr, sizeof(hdr), BUF);
	assert_null(f);
	assert_int_equal(errno, ENOSPC);
	assert_string_equal(strerror(errno), "No space left on device");
}

static void test_dev_full_records(void **state)
{
	struct capfile *f;
	int err = 0;

	(void)state;
	if (access("/dev/full", W_OK) != 0)
		fail_msg("/dev/full: not writable: this test needs it (every Linux has it)");
	/* no header, so that the first failure is a records' write */
	f = capfile_open("/dev/full", hdr, 0, BUF);
	assert_non_null(f);
	assert_int_equal(add(f, 1, 60), 0);
	assert_int_equal(add(f, 2, 60), 0);
	assert_int_equal(capfile_flush(f), -1);
	assert_int_equal(capfile_error(f), ENOSPC);
	assert_int_equal(capfile_written(f), 0); /* counted only when written */
	/* once failed, nothing more is taken */
	assert_int_equal(add(f, 3, 60), -1);
	assert_int_equal(capfile_buffered(f), 0);
	assert_int_equal(capfile_flush(f), -1);
	assert_int_equal(capfile_close(f, &err), -1);
	assert_int_equal(err, ENOSPC);
}

/* a write cut in the middle of a record (the disk filled up there): the
 * file keeps the whole records before it, and written counts those */
static void test_partial_write_cut_to_whole_records(void **state)
{
	struct rlimit old, lim;
	struct capfile *f;
	void (*old_handler)(int);
	int err = 0;

	(void)state;
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	f = capfile_open(path, hdr, sizeof(hdr), BUF);
	assert_non_null(f);
	for (uint32_t i = 0; i < 5; i++)
		assert_int_equal(add(f, i, 100), 0);
	/* room for the header, two records of 116 bytes and 50 bytes more */
	lim = old;
	lim.rlim_cur = 24 + 2 * 116 + 50;
	old_handler = signal(SIGXFSZ, SIG_IGN); /* EFBIG instead of the signal */
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	assert_int_equal(capfile_flush(f), -1);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, old_handler);
	assert_int_equal(capfile_error(f), EFBIG);
	assert_int_equal(capfile_written(f), 2);
	assert_int_equal(size_of(path), 24 + 2 * 116); /* the partial record cut */
	assert_int_equal(add(f, 9, 100), -1);
	assert_int_equal(capfile_close(f, &err), -1);
	assert_int_equal(err, EFBIG);
	assert_int_equal(size_of(path), 24 + 2 * 116);
}

static void test_no_symlink_followed(void **state)
{
	char target[160];
	FILE *fp;

	(void)state;
	snprintf(target, sizeof(target), "%s/target", dir);
	fp = fopen(target, "w");
	assert_non_null(fp);
	fputs("precious", fp);
	fclose(fp);
	assert_int_equal(symlink(target, path), 0);
	errno = 0;
	assert_null(capfile_open(path, hdr, sizeof(hdr), BUF));
	assert_int_equal(errno, ELOOP);
	assert_int_equal(size_of(target), 8);
}

static void test_bad_sizes(void **state)
{
	struct capfile *f;
	unsigned char data[1] = {0};

	(void)state;
	errno = 0;
	assert_null(capfile_open(path, hdr, sizeof(hdr), 4096));
	assert_int_equal(errno, EINVAL);
	f = capfile_open(path, hdr, sizeof(hdr), BUF);
	assert_non_null(f);
	/* a record larger than any snaplen is refused, the file goes on */
	assert_int_equal(capfile_add(f, 1, 2, CAPFILE_MAX_CAPLEN + 1, 1, data), -1);
	assert_int_equal(capfile_error(f), 0);
	assert_int_equal(add(f, 1, 1), 0);
	assert_int_equal(capfile_close(f, NULL), 0);
	assert_int_equal(size_of(path), 24 + 17);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_records_as_pcap, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_full_buffer_is_written, setup, teardown),
	    cmocka_unit_test(test_dev_full_header),
	    cmocka_unit_test(test_dev_full_records),
	    cmocka_unit_test_setup_teardown(test_partial_write_cut_to_whole_records, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_no_symlink_followed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bad_sizes, setup, teardown),
	};

	return cmocka_run_group_tests_name("capfile", tests, NULL, NULL);
}
