/* The client's pure parts: outstanding ring, absolute schedule, CSV records
 * and their file's buffer; and over loopback, replies that arrived in time
 * while the client was not running counted answered, and replies read by
 * the send tick at high rates. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <cmocka.h>
#include <sys/epoll.h>
#include <sys/stat.h>

#include "agents/client/pop.h"
#include "agents/client/popdns.h"
#include "agents/client/record.h"
#include "agents/client/traffic.h"
#include "loop.h"
#include "wire.h"
#include "agents/client/ring.h"
#include "agents/client/sched.h"
#include "timeutil.h"
#include "test_tstamp.h"

/* ---- ring ---- */

static void test_ring_push_find_resolve(void **state)
{
	struct client_ring r;

	(void)state;
	assert_int_equal(client_ring_init(&r, 10), 0);
	assert_int_equal(client_ring_capacity(&r), 16);
	for (int i = 0; i < 5; i++) {
		struct client_slot *s = client_ring_push(&r, 1000 + i, 2000 + i);
		assert_non_null(s);
		assert_int_equal(s->seq, i);
	}
	assert_int_equal(r.pending, 5);
	assert_null(client_ring_find(&r, 5)); /* never sent */
	assert_int_equal(client_ring_find(&r, 3)->sent_real_ns, 1003);

	/* replies out of order: the tail only moves past answered requests */
	client_ring_resolve(&r, client_ring_find(&r, 2));
	assert_null(client_ring_find(&r, 2)); /* a duplicate reply finds nothing */
	assert_int_equal(client_ring_oldest(&r)->seq, 0);
	client_ring_resolve(&r, client_ring_find(&r, 0));
	assert_int_equal(client_ring_oldest(&r)->seq, 1);
	client_ring_resolve(&r, client_ring_find(&r, 1));
	assert_int_equal(client_ring_oldest(&r)->seq, 3); /* skipped 2, already done */
	assert_int_equal(r.pending, 2);
	client_ring_resolve(&r, client_ring_find(&r, 4));
	client_ring_resolve(&r, client_ring_find(&r, 3));
	assert_null(client_ring_oldest(&r));
	assert_int_equal(r.pending, 0);
	assert_int_equal(r.tail, 5);
	client_ring_free(&r);
}

static void test_ring_wraps_without_growing(void **state)
{
	struct client_ring r;

	(void)state;
	assert_int_equal(client_ring_init(&r, 16), 0);
	/* a steady state of 10 in flight over many laps of a 16-slot ring */
	for (uint64_t seq = 0; seq < 1000; seq++) {
		assert_non_null(client_ring_push(&r, (int64_t)seq, (int64_t)seq));
		if (seq >= 9) {
			struct client_slot *old = client_ring_oldest(&r);
			assert_int_equal(old->seq, seq - 9);
			client_ring_resolve(&r, old);
		}
	}
	assert_int_equal(client_ring_capacity(&r), 16);
	assert_int_equal(r.pending, 9);
	/* a stale seq from an earlier lap maps to a live slot: it must not match */
	assert_null(client_ring_find(&r, 999 - 16));
	assert_non_null(client_ring_find(&r, 999));
	client_ring_free(&r);
}

static void test_ring_grows_keeping_pending(void **state)
{
	struct client_ring r;

	(void)state;
	assert_int_equal(client_ring_init(&r, 16), 0);
	for (int i = 0; i < 100; i++)
		assert_non_null(client_ring_push(&r, 10 * i, 20 * i));
	assert_true(client_ring_capacity(&r) >= 100);
	for (int i = 0; i < 100; i++) {
		struct client_slot *s = client_ring_find(&r, (uint64_t)i);
		assert_non_null(s);
		assert_int_equal(s->sent_real_ns, 10 * i);
		assert_int_equal(s->sent_mono_ns, 20 * i);
	}
	/* growth with a resolved hole and an advanced tail */
	client_ring_resolve(&r, client_ring_find(&r, 0));
	client_ring_resolve(&r, client_ring_find(&r, 50));
	for (int i = 100; i < 300; i++)
		assert_non_null(client_ring_push(&r, 10 * i, 20 * i));
	assert_null(client_ring_find(&r, 50));
	assert_int_equal(client_ring_find(&r, 51)->sent_real_ns, 510);
	assert_int_equal(client_ring_find(&r, 299)->sent_real_ns, 2990);
	assert_int_equal(client_ring_oldest(&r)->seq, 1);
	assert_int_equal(r.pending, 298);
	client_ring_free(&r);
}

static void test_ring_grows_after_wrapping(void **state)
{
	struct client_ring r;

	(void)state;
	assert_int_equal(client_ring_init(&r, 16), 0);
	/* move the window so it wraps the end of the array, then overflow it */
	for (int i = 0; i < 10; i++)
		client_ring_resolve(&r, client_ring_push(&r, i, i));
	for (int i = 10; i < 26; i++)
		assert_non_null(client_ring_push(&r, 100 + i, i));
	assert_int_equal(client_ring_capacity(&r), 16); /* exactly full */
	assert_non_null(client_ring_push(&r, 126, 26));
	assert_int_equal(client_ring_capacity(&r), 32);
	for (int i = 10; i < 27; i++) {
		struct client_slot *s = client_ring_find(&r, (uint64_t)i);
		assert_non_null(s);
		assert_int_equal(s->sent_real_ns, 100 + i);
	}
	assert_int_equal(client_ring_oldest(&r)->seq, 10);
	client_ring_free(&r);
}

/* ---- schedule ---- */

static void test_sched_due_times(void **state)
{
	struct client_sched s;

	(void)state;
	client_sched_init(&s, 1000, 1000, 0);
	assert_true(s.total == UINT64_MAX);
	assert_int_equal(client_sched_due_at(&s, 0), 1000);
	assert_int_equal(client_sched_due_at(&s, 1), 1000 + NSEC_PER_MSEC);
	assert_int_equal(client_sched_due_at(&s, 1000000), 1000 + 1000 * NSEC_PER_SEC);
	/* a rate that does not divide a second: no accumulated drift */
	client_sched_init(&s, 0, 3, 0);
	assert_int_equal(client_sched_due_at(&s, 1), 333333333);
	assert_int_equal(client_sched_due_at(&s, 3), NSEC_PER_SEC);
	assert_int_equal(client_sched_due_at(&s, 3000000), 1000000 * NSEC_PER_SEC);
}

static void test_sched_due_by(void **state)
{
	struct client_sched s;

	(void)state;
	client_sched_init(&s, 5000, 1000, 0);
	assert_int_equal(client_sched_due_by(&s, 4999), 0);
	assert_int_equal(client_sched_due_by(&s, 5000), 1); /* request 0 due at start */
	assert_int_equal(client_sched_due_by(&s, 5000 + NSEC_PER_MSEC - 1), 1);
	assert_int_equal(client_sched_due_by(&s, 5000 + NSEC_PER_MSEC), 2);
	/* a wake-up a second late finds a second's worth due: catch-up */
	assert_int_equal(client_sched_due_by(&s, 5000 + NSEC_PER_SEC), 1001);
	/* due_by and due_at agree at every boundary */
	client_sched_init(&s, 0, 7, 0);
	for (uint64_t k = 0; k < 100; k++) {
		int64_t t = client_sched_due_at(&s, k);
		assert_int_equal(client_sched_due_by(&s, t), k + 1);
		assert_int_equal(client_sched_due_by(&s, t - 1), k);
	}
}

static void test_sched_total(void **state)
{
	struct client_sched s;

	(void)state;
	client_sched_init(&s, 0, 1000, NSEC_PER_SEC);
	assert_int_equal(s.total, 1000);
	client_sched_init(&s, 0, 3, NSEC_PER_SEC);
	assert_int_equal(s.total, 3);
	client_sched_init(&s, 0, 50000, 4 * NSEC_PER_SEC);
	assert_int_equal(s.total, 200000);
	client_sched_init(&s, 0, 1000, NSEC_PER_SEC + 1); /* one more falls inside */
	assert_int_equal(s.total, 1001);
	client_sched_init(&s, 0, 0.5, NSEC_PER_SEC); /* only request 0 */
	assert_int_equal(s.total, 1);
	/* the end caps what is due however late the wake-up */
	client_sched_init(&s, 0, 1000, NSEC_PER_SEC);
	assert_int_equal(client_sched_due_by(&s, 10 * NSEC_PER_SEC), 1000);
}

/* ---- records ---- */

static void test_record_lines(void **state)
{
	char buf[128];

	(void)state;
	assert_int_equal(client_record_format(buf, sizeof(buf), 7, 42, 1700000000123456789LL,
					      CLIENT_OK, "a", 81234),
			 36);
	assert_string_equal(buf, "7,42,1700000000123456789,ok,a,81234\n");
	/* a lost request: no site and rtt 0, whatever is passed */
	client_record_format(buf, sizeof(buf), 7, 43, 5, CLIENT_TIMEOUT, NULL, 99);
	assert_string_equal(buf, "7,43,5,timeout,,0\n");
	client_record_format(buf, sizeof(buf), 4294967295u, 0, 6, CLIENT_ERROR, NULL, 0);
	assert_string_equal(buf, "4294967295,0,6,error,,0\n");
	assert_int_equal(client_record_format(buf, 10, 7, 42, 1, CLIENT_OK, "a", 1), -1);
}

/* the line is what snprintf writes, for any values, and -1 exactly when
 * it would not fit */
static void test_record_lines_as_snprintf(void **state)
{
	static const int64_t s64[] = {0,
				      1,
				      -1,
				      9,
				      10,
				      -10,
				      99,
				      1000000000,
				      INT64_MAX,
				      INT64_MIN,
				      INT64_MIN + 1,
				      -999999,
				      1796085339808958216LL};
	static const uint64_t u64[] = {0, 1, 9, 10, 12345678901234567890ULL, UINT64_MAX};
	static const uint32_t u32[] = {0, 7, 4294967295u, 2147614720u};
	static const char *const sites[] = {NULL, "", "a", "0123456789abcdef"};
	uint64_t x = 88172645463325252ULL;

	(void)state;
	for (int round = 0; round < 20000; round++) {
		char want[160], got[160];
		uint32_t client;
		uint64_t seq;
		int64_t sent, rtt;
		enum client_status st = (enum client_status)(round % 3);
		const char *site = sites[(round / 3) % 4];
		int n, m;

		/* the edges first, then xorshift's numbers of every length */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		client = round < 200 ? u32[round % 4] : (uint32_t)x;
		seq = round < 200 ? u64[round % 6] : x >> (x % 64);
		sent = round < 200 ? s64[round % 13] : (int64_t)(x * 31) >> (x % 64);
		rtt = round < 200 ? s64[(round + 5) % 13] : (int64_t)(x * 17) >> (x % 63);
		n = snprintf(want, sizeof(want),
			     "%" PRIu32 ",%" PRIu64 ",%" PRId64 ",%s,%s,%" PRId64 "\n", client, seq,
			     sent,
			     st == CLIENT_OK	    ? "ok"
			     : st == CLIENT_TIMEOUT ? "timeout"
						    : "error",
			     site ? site : "", st == CLIENT_OK ? rtt : 0);
		assert_int_equal(
		    client_record_format(got, sizeof(got), client, seq, sent, st, site, rtt), n);
		assert_string_equal(got, want);
		/* room for the line and its NUL, and one byte less */
		m = client_record_format(got, (size_t)n + 1, client, seq, sent, st, site, rtt);
		assert_int_equal(m, n);
		assert_string_equal(got, want);
		assert_int_equal(
		    client_record_format(got, (size_t)n, client, seq, sent, st, site, rtt), -1);
	}
	assert_int_equal(client_record_format(NULL, 0, 1, 1, 1, (enum client_status)3, "a", 1), -1);
}

/* records reach the file CLIENT_RECORD_BUF bytes at a time, and all of
 * them once it is closed; a write that fails is said at the close */
static void test_record_file_batches(void **state)
{
	char path[] = "/tmp/test_client_recordsXXXXXX";
	struct client_recfile f;
	struct client_recbin bin;
	struct stat st;
	int fd = mkstemp(path);
	/* the header and the site's name, then records up to the buffer */
	uint64_t fit = (CLIENT_RECORD_BUF - RECBIN_HDR_LEN) / RECBIN_LEN - 1, seq;

	(void)state;
	assert_true(fd != -1);
	close(fd);
	assert_int_equal(client_record_open(&f, path), 0);
	assert_int_equal(client_recbin_start(&bin, f.fp), 0);
	for (seq = 0; seq < fit; seq++)
		assert_int_equal(
		    client_recbin_write(&bin, 7, seq, 1000 + (int64_t)seq, CLIENT_OK, "a", 50), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 0); /* 32,767 records, not one write yet */
	assert_int_equal(client_recbin_write(&bin, 7, seq++, 1, CLIENT_TIMEOUT, NULL, 0), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, CLIENT_RECORD_BUF); /* one write of the whole buffer */
	assert_int_equal(client_record_close(&f), 0);
	assert_null(f.fp);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, RECBIN_HDR_LEN + (seq + 1) * RECBIN_LEN);
	unlink(path);
	assert_int_equal(client_record_close(&f), 0); /* closed: nothing to do */

	assert_int_equal(client_record_open(&f, "/dev/full"), 0);
	fputs(CLIENT_CSV_HEADER, f.fp);
	errno = 0;
	assert_int_equal(client_record_close(&f), -1);
	assert_int_equal(errno, ENOSPC);
	assert_int_equal(client_record_open(&f, "/nonexistent/dir/x.bin"), -1);
	assert_int_equal(errno, ENOENT);
	assert_null(f.fp);
}

static void test_record_header(void **state)
{
	(void)state;
	assert_string_equal(CLIENT_CSV_HEADER, "client,seq,sent_ns,status,site,rtt_ns\n");
}

static void test_site_clean(void **state)
{
	char out[WIRE_SITE_LEN + 1];

	(void)state;
	client_site_clean("site-a_1.x", out);
	assert_string_equal(out, "site-a_1.x");
	client_site_clean("a,b\nc\"d", out); /* would break the CSV */
	assert_string_equal(out, "a_b_c_d");
	client_site_clean("0123456789abcdefXYZ", out); /* at most the wire's 16 */
	assert_string_equal(out, "0123456789abcdef");
}

static void test_tally(void **state)
{
	static struct client_tally t;
	char name[16];

	(void)state;
	memset(&t, 0, sizeof(t));
	client_tally_add(&t, "a");
	client_tally_add(&t, "b");
	client_tally_add(&t, "a");
	assert_int_equal(t.n, 2);
	assert_string_equal(t.sites[0].site, "a");
	assert_int_equal(t.sites[0].replies, 2);
	assert_int_equal(t.sites[1].replies, 1);
	for (int i = 0; i < CLIENT_MAX_SITES + 5; i++) {
		snprintf(name, sizeof(name), "s%d", i);
		client_tally_add(&t, name);
	}
	assert_int_equal(t.n, CLIENT_MAX_SITES);
	assert_int_equal(t.other, 7); /* 2 + 62 named, the last 7 overflow */
}

/* ---- Happy Eyeballs ---- */

/* a site of family af on loopback (127.0.0.1 or ::1) that answers each
 * request at once, or (answer 0) reads and drops it; its port into *port */
static int he_site(int af, int *port)
{
	struct sockaddr_storage ss = {0};
	socklen_t len = af == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
	int fd = socket(af, SOCK_DGRAM | SOCK_NONBLOCK, 0);

	assert_true(fd != -1);
	ss.ss_family = (sa_family_t)af;
	if (af == AF_INET6)
		((struct sockaddr_in6 *)&ss)->sin6_addr = in6addr_loopback;
	else
		((struct sockaddr_in *)&ss)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&ss, len), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&ss, &len), 0);
	*port = ntohs(af == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
				     : ((struct sockaddr_in *)&ss)->sin_port);
	return fd;
}

/* he_answer: every request waiting, answered from its family's address
 * (arg: a counter), as a site does */
static void he_answer(struct loop *loop, int fd, uint32_t events, void *arg)
{
	uint8_t buf[WIRE_LEN];
	struct sockaddr_storage from;
	socklen_t len = sizeof(from);
	struct wire_msg m;
	int *answered = arg;

	(void)loop;
	(void)events;
	while (recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&from, &len) ==
	       WIRE_LEN) {
		assert_int_equal(wire_decode(buf, WIRE_LEN, &m), 0);
		m.type = WIRE_REPLY;
		strcpy(m.site, "a");
		wire_encode(&m, buf, sizeof(buf));
		assert_int_equal(sendto(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, len),
				 WIRE_LEN);
		(*answered)++;
		len = sizeof(from);
	}
}

static void he_drop(struct loop *loop, int fd, uint32_t events, void *arg)
{
	uint8_t buf[WIRE_LEN];

	(void)loop;
	(void)events;
	while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		(*(int *)arg)++;
}

/* he_run: 4 requests (100/s for 35 ms) to the IPv6 site, Happy Eyeballs
 * after 20 ms to the IPv4 one; v6_answers: whether the IPv6 site answers */
static void he_run(int v6_answers, struct client *c, int *got6, int *got4)
{
	int p6, p4, fd6 = he_site(AF_INET6, &p6), fd4 = he_site(AF_INET, &p4);
	struct loop *loop = loop_new();
	struct loop_handler h6, h4;
	struct client_cfg cfg = {.id = 1,
				 .rate = 100,
				 .timeout_ns = 100 * NSEC_PER_MSEC,
				 .duration_ns = 35 * NSEC_PER_MSEC,
				 .attempt_delay_ns = 20 * NSEC_PER_MSEC,
				 .family_column = 1};

	assert_non_null(loop);
	cfg.target.sin6 = (struct sockaddr_in6){.sin6_family = AF_INET6,
						.sin6_port = htons((uint16_t)p6),
						.sin6_addr = in6addr_loopback};
	cfg.fallback.sin = (struct sockaddr_in){.sin_family = AF_INET,
						.sin_port = htons((uint16_t)p4),
						.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	assert_int_equal(loop_add(loop, &h6, fd6, EPOLLIN, v6_answers ? he_answer : he_drop, got6),
			 0);
	assert_int_equal(loop_add(loop, &h4, fd4, EPOLLIN, he_answer, got4), 0);
	assert_int_equal(client_start(c, loop, &cfg, NULL), 0);
	assert_int_equal(loop_run(loop), 0);
	client_finish(c);
	client_close(c);
	loop_del(loop, &h6);
	loop_del(loop, &h4);
	loop_free(loop);
	close(fd6);
	close(fd4);
}

/* an IPv6 site that never answers: each request goes again, the same one,
 * to the IPv4 address after the attempt delay, and its reply counts */
static void test_happy_eyeballs_falls_back(void **state)
{
	struct client c;
	int got6 = 0, got4 = 0;

	(void)state;
	he_run(0, &c, &got6, &got4);
	assert_int_equal(c.stats.sent, 4);
	assert_int_equal(got6, 4);
	assert_int_equal(got4, 4);
	assert_int_equal(c.stats.fell_back, 4);
	assert_int_equal(c.stats.ok, 4);
	assert_int_equal(c.stats.ok4, 4);
	assert_int_equal(c.stats.ok6, 0);
	assert_int_equal(c.stats.lost, 0);
}

/* an IPv6 site that answers: nothing goes over IPv4 */
static void test_happy_eyeballs_prefers_ipv6(void **state)
{
	struct client c;
	int got6 = 0, got4 = 0;

	(void)state;
	he_run(1, &c, &got6, &got4);
	assert_int_equal(c.stats.sent, 4);
	assert_int_equal(got6, 4);
	assert_int_equal(got4, 0);
	assert_int_equal(c.stats.fell_back, 0);
	assert_int_equal(c.stats.ok6, 4);
	assert_int_equal(c.stats.lost, 0);
}

/* the ids a site saw, and how many requests */
struct he_seen {
	int n;
	uint32_t ids[64];
};

/* he_answer_ids: he_answer, noting each request's client id (arg: a
 * struct he_seen) */
static void he_answer_ids(struct loop *loop, int fd, uint32_t events, void *arg)
{
	uint8_t buf[WIRE_LEN];
	struct sockaddr_storage from;
	socklen_t len = sizeof(from);
	struct he_seen *seen = arg;
	struct wire_msg m;

	(void)loop;
	(void)events;
	while (recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&from, &len) ==
	       WIRE_LEN) {
		assert_int_equal(wire_decode(buf, WIRE_LEN, &m), 0);
		if (seen->n < 64)
			seen->ids[seen->n] = m.client_id;
		seen->n++;
		m.type = WIRE_REPLY;
		strcpy(m.site, "a");
		wire_encode(&m, buf, sizeof(buf));
		assert_int_equal(sendto(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, len),
				 WIRE_LEN);
		len = sizeof(from);
	}
}

/* a dual population in DNS mode (docs/agents.md, "Populations"): each
 * logical client's request goes to its own AAAA (::1), and, the IPv6 site
 * silent, again after the attempt delay to its own A (127.0.0.1), with its
 * own id; every reply over IPv4 counts */
static void test_happy_eyeballs_population(void **state)
{
	int p6, p4, fd6 = he_site(AF_INET6, &p6), fd4 = he_site(AF_INET, &p4), got6 = 0;
	struct in_addr lo4 = {.s_addr = htonl(INADDR_LOOPBACK)};
	struct loop *loop = loop_new();
	struct loop_handler h6, h4;
	struct he_seen seen = {0};
	struct pop_rates rates;
	struct pop pop;
	struct popdns pd = {.fd = -1, .pop = &pop};
	struct client c;
	struct client_cfg cfg = {.id = 1000,
				 .rate = 100,
				 .timeout_ns = 100 * NSEC_PER_MSEC,
				 .duration_ns = 55 * NSEC_PER_MSEC,
				 .attempt_delay_ns = 20 * NSEC_PER_MSEC,
				 .family_column = 1};
	int by[3] = {0};

	(void)state;
	assert_non_null(loop);
	assert_int_equal(pop_rates_parse("equal", &rates), 0);
	assert_int_equal(pop_init(&pop, 3, cfg.id, &rates, cfg.rate, 0, 1), 0);
	assert_int_equal(pop_dns_init(&pop, 1, NULL, 0, AF_UNSPEC), 0);
	/* their answers held past the run: no query */
	pop_dns_first(&pop, 0, POP_LOOKUP, &in6addr_loopback, INT64_MAX / 4, 0, 0);
	pop_dns_first(&pop, 0, POP_LOOKUP_A, &lo4, INT64_MAX / 4, 0, 0);
	/* the address is each client's; the ports the sites' */
	cfg.target.sin6 =
	    (struct sockaddr_in6){.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)p6)};
	cfg.fallback.sin =
	    (struct sockaddr_in){.sin_family = AF_INET, .sin_port = htons((uint16_t)p4)};
	assert_int_equal(loop_add(loop, &h6, fd6, EPOLLIN, he_drop, &got6), 0);
	assert_int_equal(loop_add(loop, &h4, fd4, EPOLLIN, he_answer_ids, &seen), 0);
	assert_int_equal(client_start_pop(&c, loop, &cfg, NULL, &pop, &pd, 0, 0, NULL), 0);
	assert_int_equal(loop_run(loop), 0);
	client_finish(&c);
	client_close(&c);
	assert_int_equal(c.stats.sent, 6); /* 3 clients, 55 ms at 100/s */
	assert_int_equal(got6, 6);
	assert_int_equal(seen.n, 6);
	assert_int_equal(c.stats.fell_back, 6);
	assert_int_equal(c.stats.ok4, 6);
	assert_int_equal(c.stats.ok6, 0);
	assert_int_equal(c.stats.lost, 0);
	assert_int_equal(c.stats.stray, 0);
	/* each copy its logical client's, twice each */
	for (int i = 0; i < seen.n; i++) {
		assert_in_range(seen.ids[i], cfg.id, cfg.id + 2);
		by[seen.ids[i] - cfg.id]++;
	}
	assert_int_equal(by[0], 2);
	assert_int_equal(by[1], 2);
	assert_int_equal(by[2], 2);
	loop_del(loop, &h6);
	loop_del(loop, &h4);
	loop_free(loop);
	pop_free(&pop);
	close(fd6);
	close(fd4);
}

/* ---- replies read late ---- */

/* a site on loopback in the client's own loop: it answers each request at
 * once, then keeps the thread 120 ms (a client not scheduled for a while),
 * longer than the client's 50 ms timeout */
static void site_answer(struct loop *loop, int fd, uint32_t events, void *arg)
{
	uint8_t buf[WIRE_LEN];
	struct sockaddr_in from;
	socklen_t len = sizeof(from);
	struct wire_msg m;
	ssize_t n;
	int *answered = arg;

	(void)loop;
	(void)events;
	while ((n = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&from, &len)) ==
	       WIRE_LEN) {
		assert_int_equal(wire_decode(buf, (size_t)n, &m), 0);
		m.type = WIRE_REPLY;
		strcpy(m.site, "a");
		wire_encode(&m, buf, sizeof(buf));
		assert_int_equal(sendto(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, len),
				 WIRE_LEN);
		(*answered)++;
		len = sizeof(from);
	}
	usleep(120000);
}

static void test_replies_read_late(void **state)
{
	struct sockaddr_in site = {.sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(site);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0), answered = 0;
	struct loop *loop = loop_new();
	struct loop_handler h;
	struct client c;
	struct client_cfg cfg = {.id = 1,
				 .rate = 100,
				 .timeout_ns = 50 * NSEC_PER_MSEC,
				 .duration_ns = 35 * NSEC_PER_MSEC};

	(void)state;
	assert_true(fd != -1 && loop != NULL);
	assert_int_equal(bind(fd, (struct sockaddr *)&site, sizeof(site)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&site, &len), 0);
	cfg.target.sin = site;
	assert_int_equal(loop_add(loop, &h, fd, EPOLLIN, site_answer, &answered), 0);
	assert_int_equal(client_start(&c, loop, &cfg, NULL), 0);
	test_wait_tstamps();
	assert_int_equal(loop_run(loop), 0);
	client_finish(&c);
	/* 4 requests (at 0, 10, 20, 30 ms), each answered at once and read
	 * 120 ms later: answered in time, none lost, none late */
	assert_int_equal(c.stats.sent, 4);
	assert_int_equal(answered, 4);
	assert_int_equal(c.stats.ok, 4);
	assert_int_equal(c.stats.lost, 0);
	assert_int_equal(c.stats.late, 0);
	client_close(&c);
	loop_del(loop, &h);
	close(fd);
	loop_free(loop);
}

/* a site on loopback in the client's own loop that answers at once */
static void site_answer_now(struct loop *loop, int fd, uint32_t events, void *arg)
{
	uint8_t buf[WIRE_LEN];
	struct sockaddr_in from;
	socklen_t len = sizeof(from);
	struct wire_msg m;
	ssize_t n;
	int *answered = arg;

	(void)loop;
	(void)events;
	while ((n = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&from, &len)) ==
	       WIRE_LEN) {
		assert_int_equal(wire_decode(buf, (size_t)n, &m), 0);
		m.type = WIRE_REPLY;
		strcpy(m.site, "a");
		wire_encode(&m, buf, sizeof(buf));
		assert_int_equal(sendto(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, len),
				 WIRE_LEN);
		(*answered)++;
		len = sizeof(from);
	}
}

/* at 20,000 requests/s the send tick reads the replies: the socket is not
 * in the loop (a reply does not wake the client) until the sends are over;
 * every request answered and recorded, in a record file of the client's */
static void test_replies_read_by_tick(void **state)
{
	struct sockaddr_in site = {.sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(site);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0), answered = 0, lines = 0, ok = 0;
	int bufsz = 4 << 20, tfd;
	struct loop *loop = loop_new();
	struct loop_handler h;
	struct client c;
	struct client_recfile f;
	char path[] = "/tmp/test_client_tickXXXXXX", line[128];
	struct client_cfg cfg = {.id = 9,
				 .rate = 20000,
				 .timeout_ns = 2 * NSEC_PER_SEC,
				 .duration_ns = 30 * NSEC_PER_MSEC};
	FILE *in;

	(void)state;
	assert_true(fd != -1 && loop != NULL);
	assert_true((tfd = mkstemp(path)) != -1);
	close(tfd);
	assert_int_equal(client_record_open(&f, path), 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&site, sizeof(site)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&site, &len), 0);
	assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bufsz, sizeof(bufsz)), 0);
	cfg.target.sin = site;
	assert_int_equal(loop_add(loop, &h, fd, EPOLLIN, site_answer_now, &answered), 0);
	assert_int_equal(client_start(&c, loop, &cfg, f.fp), 0);
	assert_true(c.periodic);
	assert_false(c.reply.added); /* the tick reads them */
	test_wait_tstamps();
	assert_int_equal(loop_run(loop), 0);
	assert_true(c.reply.added); /* watched once the sends were over */
	client_finish(&c);
	assert_int_equal(c.stats.sent, 600);
	assert_int_equal(answered, 600);
	assert_int_equal(c.stats.ok, 600);
	assert_int_equal(c.stats.lost, 0);
	client_close(&c);
	assert_int_equal(client_record_close(&f), 0);
	assert_non_null(in = fopen(path, "r"));
	while (fgets(line, sizeof(line), in)) {
		lines++;
		ok += strncmp(line, "9,", 2) == 0 && strstr(line, ",ok,a,") != NULL;
	}
	fclose(in);
	unlink(path);
	assert_int_equal(lines, 600);
	assert_int_equal(ok, 600);
	loop_del(loop, &h);
	close(fd);
	loop_free(loop);
}

/* a client that cannot keep up (2,000,000 requests/s on loopback, to a
 * port nobody listens on) runs its ticks back to back, not one loop turn
 * each, and still sends every request of its schedule */
static void test_ticks_back_to_back(void **state)
{
	struct sockaddr_in site = {.sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(site);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	struct loop *loop = loop_new();
	struct client c;
	struct client_cfg cfg = {.id = 3,
				 .rate = 2000000,
				 .timeout_ns = 20 * NSEC_PER_MSEC,
				 .duration_ns = 20 * NSEC_PER_MSEC};

	(void)state;
	assert_true(fd != -1 && loop != NULL);
	/* a port of the kernel's choice, closed again: nothing answers */
	assert_int_equal(bind(fd, (struct sockaddr *)&site, sizeof(site)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&site, &len), 0);
	close(fd);
	cfg.target.sin = site;
	assert_int_equal(client_start(&c, loop, &cfg, NULL), 0);
	assert_int_equal(loop_run(loop), 0);
	client_finish(&c);
	assert_int_equal(c.stats.sent, 40000);
	assert_int_equal(c.stats.ok + c.stats.lost + c.stats.errors, 40000);
	assert_true(c.stats.busy_rounds > 0);
	client_close(&c);
	loop_free(loop);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ring_push_find_resolve),
	    cmocka_unit_test(test_ring_wraps_without_growing),
	    cmocka_unit_test(test_ring_grows_keeping_pending),
	    cmocka_unit_test(test_ring_grows_after_wrapping),
	    cmocka_unit_test(test_sched_due_times),
	    cmocka_unit_test(test_sched_due_by),
	    cmocka_unit_test(test_sched_total),
	    cmocka_unit_test(test_record_lines),
	    cmocka_unit_test(test_record_lines_as_snprintf),
	    cmocka_unit_test(test_record_file_batches),
	    cmocka_unit_test(test_record_header),
	    cmocka_unit_test(test_site_clean),
	    cmocka_unit_test(test_tally),
	    cmocka_unit_test(test_replies_read_late),
	    cmocka_unit_test(test_happy_eyeballs_falls_back),
	    cmocka_unit_test(test_happy_eyeballs_prefers_ipv6),
	    cmocka_unit_test(test_happy_eyeballs_population),
	    cmocka_unit_test(test_replies_read_by_tick),
	    cmocka_unit_test(test_ticks_back_to_back),
	};

	return cmocka_run_group_tests_name("client", tests, NULL, NULL);
}
