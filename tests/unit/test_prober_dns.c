/*
 * The prober's dns check (agents/prober/probe_dns.c): the SOA query it
 * sends, and the answers it takes: its own, authoritative, NOERROR, with
 * an answer, passes; another id is stale; a SERVFAIL, a REFUSED, a
 * referral (no AA) or an empty answer fails; a question of another zone is
 * not an answer to it. Live, against a server of the test's own on
 * loopback.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <cmocka.h>
#include <libknot/libknot.h>
#include <poll.h>
#include <sys/socket.h>

#include "agents/prober/probe.h"

/* answer: into buf, query q (len bytes) answered: QR, AA as aa, rcode,
 * ancount answers counted (the check reads the header and the question) */
static size_t answer(uint8_t *buf, const uint8_t *q, size_t len, int aa, int rcode, int ancount)
{
	memcpy(buf, q, len);
	knot_wire_set_qr(buf);
	if (aa)
		knot_wire_set_aa(buf);
	knot_wire_set_rcode(buf, (uint8_t)rcode);
	knot_wire_set_ancount(buf, (uint16_t)ancount);
	return len;
}

/* query: the SOA query of zone with id, as the probe sends it */
static size_t query(uint8_t *buf, size_t size, const char *zone, uint16_t id)
{
	uint8_t qname[KNOT_DNAME_MAXLEN];
	knot_pkt_t *q = knot_pkt_new(NULL, KNOT_WIRE_MIN_PKTSIZE, NULL);
	size_t n;

	assert_non_null(q);
	assert_non_null(knot_dname_from_str(qname, zone, sizeof(qname)));
	assert_int_equal(knot_pkt_put_question(q, qname, KNOT_CLASS_IN, KNOT_RRTYPE_SOA), KNOT_EOK);
	knot_wire_set_id(q->wire, id);
	assert_true(q->size <= size);
	memcpy(buf, q->wire, q->size);
	n = q->size;
	knot_pkt_free(q);
	return n;
}

static void test_check(void **state)
{
	uint8_t q[512], a[512];
	size_t n = query(q, sizeof(q), "lab.example", 7);

	(void)state;
	answer(a, q, n, 1, 0, 1);
	assert_int_equal(prober_dns_check(a, n, 7, "lab.example"), PROBER_REPLY_OK);
	assert_int_equal(prober_dns_check(a, n, 7, "LAB.example."), PROBER_REPLY_OK);
	assert_int_equal(prober_dns_check(a, n, 8, "lab.example"), PROBER_REPLY_STALE);
	assert_int_equal(prober_dns_check(a, n, 7 + 65536, "lab.example"), PROBER_REPLY_OK);
	assert_int_equal(prober_dns_check(a, n, 7, "other.example"), PROBER_REPLY_BAD);
	answer(a, q, n, 1, KNOT_RCODE_SERVFAIL, 0);
	assert_int_equal(prober_dns_check(a, n, 7, "lab.example"), PROBER_REPLY_UNAVAILABLE);
	answer(a, q, n, 1, KNOT_RCODE_REFUSED, 0);
	assert_int_equal(prober_dns_check(a, n, 7, "lab.example"), PROBER_REPLY_UNAVAILABLE);
	answer(a, q, n, 0, 0, 1); /* a referral, or a cache's answer */
	assert_int_equal(prober_dns_check(a, n, 7, "lab.example"), PROBER_REPLY_UNAVAILABLE);
	answer(a, q, n, 1, 0, 0);
	assert_int_equal(prober_dns_check(a, n, 7, "lab.example"), PROBER_REPLY_UNAVAILABLE);
	/* the query itself (no QR), a runt */
	assert_int_equal(prober_dns_check(q, n, 7, "lab.example"), PROBER_REPLY_BAD);
	assert_int_equal(prober_dns_check(a, 5, 7, "lab.example"), PROBER_REPLY_BAD);
}

/* serve: the server's next query answered as aa, rcode, ancount say */
static void serve(int s, int aa, int rcode, int ancount)
{
	uint8_t q[512], a[512];
	struct sockaddr_in from;
	socklen_t fl = sizeof(from);
	struct pollfd pf = {.fd = s, .events = POLLIN};
	ssize_t n;

	assert_int_equal(poll(&pf, 1, 1000), 1);
	n = recvfrom(s, q, sizeof(q), 0, (struct sockaddr *)&from, &fl);
	assert_true(n > KNOT_WIRE_HEADER_SIZE);
	assert_int_equal(knot_wire_get_qdcount(q), 1);
	answer(a, q, (size_t)n, aa, rcode, ancount);
	assert_int_equal(sendto(s, a, (size_t)n, 0, (struct sockaddr *)&from, fl), n);
}

/* probe: one probe sent; probe_read: its answer read */
static void probe(struct prober_probe *p)
{
	assert_int_equal(prober_check_dns.send(p, 500 * 1000000LL), 0);
}

static int probe_read(struct prober_probe *p)
{
	struct pollfd pf = {.fd = p->fd, .events = POLLIN};

	assert_int_equal(poll(&pf, 1, 1000), 1);
	return prober_check_dns.read(p);
}

static void test_live(void **state)
{
	struct sockaddr_in at = {.sin_family = AF_INET};
	socklen_t len = sizeof(at);
	struct prober_probe p;
	int s = socket(AF_INET, SOCK_DGRAM, 0);

	(void)state;
	at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(s, (struct sockaddr *)&at, sizeof(at)), 0);
	assert_int_equal(getsockname(s, (struct sockaddr *)&at, &len), 0);
	assert_ptr_equal(prober_check_find("dns"), &prober_check_dns);
	assert_int_equal(prober_check_dns.open(&p, (const struct sockaddr *)&at, "ns"), 0);
	p.dns_zone = "lab.example";
	probe(&p);
	serve(s, 1, 0, 1);
	assert_int_equal(probe_read(&p), PROBER_REPLY_OK);
	probe(&p);
	serve(s, 1, KNOT_RCODE_SERVFAIL, 0);
	assert_int_equal(probe_read(&p), PROBER_REPLY_UNAVAILABLE);
	/* nothing listens: the connected socket hears the port unreachable */
	close(s);
	probe(&p);
	errno = 0;
	assert_int_equal(probe_read(&p), -1);
	assert_int_equal(errno, ECONNREFUSED);
	prober_check_dns.close(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_check),
	    cmocka_unit_test(test_live),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
