/*
 * authd's sockets (agents/authd/net.c) on loopback, driven by the test
 * through authd's own loop (loop_once): UDP answers from the address asked,
 * a batch of queries answered each once, an oversize datagram dropped and
 * counted; TCP answers in order on one connection, untruncated where UDP
 * truncates, a connection beyond tcp_max closed at once and an idle one
 * closed after tcp_idle; the control socket's reports, several per
 * datagram, accepted or refused as authd does (parsed, the sender checked
 * against -a, applied to the health state), and an accepted one changing
 * the answers. No root: 127.0.0.0/8 and ports the kernel picks.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>
#include <libknot/libknot.h>

#include "agents/authd/allow.h"
#include "agents/authd/health.h"
#include "agents/authd/net.h"
#include "agents/authd/respond.h"
#include "health_report.h"
#include "log.h"
#include "test_authd_util.h"
#include "test_child.h"
#include "timeutil.h"

#define WAIT_NS (5 * NSEC_PER_SEC) /* the longest any answer may take */

static const char *net_conf = "[server]\n"
			      "udp_max = 1232\n"
			      "[zone lab.example]\n"
			      "soa = ns1 hostmaster 1 3600 600 86400 20\n"
			      "ttl = 30\n"
			      "record = @ NS ns1\n"
			      "record = ns1 A 198.18.0.53\n"
			      "record = big TXT \"0123456789012345678901234567890123456789\"\n"
			      "record = big TXT \"1123456789012345678901234567890123456789\"\n"
			      "record = big TXT \"2123456789012345678901234567890123456789\"\n"
			      "record = big TXT \"3123456789012345678901234567890123456789\"\n"
			      "record = big TXT \"4123456789012345678901234567890123456789\"\n"
			      "record = big TXT \"5123456789012345678901234567890123456789\"\n"
			      "record = big TXT \"6123456789012345678901234567890123456789\"\n"
			      "record = big TXT \"7123456789012345678901234567890123456789\"\n"
			      "record = big TXT \"8123456789012345678901234567890123456789\"\n"
			      "record = big TXT \"9123456789012345678901234567890123456789\"\n"
			      "[site a]\n"
			      "address = 198.19.1.1\n"
			      "[site b]\n"
			      "address = 198.19.2.1\n"
			      "[name www.lab.example]\n"
			      "policy = simple\n"
			      "sites = a b\n"
			      "ttl = 10\n";

struct fixture {
	struct authd_db *db;
	struct authd_health h;
	struct authd_respond_ctx rc;
	struct authd_allow allow;
	struct loop *loop;
	struct authd_net *net;
	struct sockaddr_in dns, control; /* authd's */
	char reports[1024];		 /* what became of each report line */
	int nreports;
};

static struct sockaddr_in sin_of(const char *a, uint16_t port)
{
	struct sockaddr_in s = {.sin_family = AF_INET, .sin_port = htons(port)};

	assert_int_equal(inet_pton(AF_INET, a, &s.sin_addr), 1);
	return s;
}

/* bound: a socket of type on a:port (0: the kernel's choice), -1 if taken */
static int bound(int type, const char *a, uint16_t port, struct sockaddr_in *got)
{
	struct sockaddr_in s = sin_of(a, port);
	socklen_t len = sizeof(s);
	int fd = socket(AF_INET, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	if (bind(fd, (struct sockaddr *)&s, sizeof(s)) == -1) {
		close(fd);
		return -1;
	}
	assert_int_equal(getsockname(fd, (struct sockaddr *)&s, &len), 0);
	if (got)
		*got = s;
	return fd;
}

/* free_port: a port of 127.0.0.1 free for UDP and TCP now */
static struct sockaddr_in free_port(void)
{
	for (;;) {
		struct sockaddr_in s;
		int u = bound(SOCK_DGRAM, "127.0.0.1", 0, &s);
		int t = bound(SOCK_STREAM, "127.0.0.1", ntohs(s.sin_port), NULL);

		close(u);
		if (t >= 0) {
			close(t);
			return s;
		}
	}
}

/* on_report: what authd.c's report callback does, written down instead of
 * logged: malformed, refused by -a, unknown site, or accepted */
static void on_report(void *arg, const char *line, size_t len, const struct sockaddr_storage *from)
{
	struct fixture *f = arg;
	struct health_report r;
	struct authd_health_change c;
	char reason[128], who[64];
	size_t at = strlen(f->reports);
	char *out = f->reports + at;
	size_t room = sizeof(f->reports) - at;

	f->nreports++;
	authd_allow_addr_str(from, who, sizeof(who));
	if (health_report_parse(line, len, &r) == -1)
		snprintf(out, room, "malformed from %s: '%.*s'\n", who, (int)len, line);
	else if (authd_allow_check(&f->allow, from, r.prober, reason, sizeof(reason)) == -1)
		snprintf(out, room, "refused from %s: %s\n", who, reason);
	else if (authd_health_apply(&f->h, &r, &c) == -1)
		snprintf(out, room, "unknown site %s from %s\n", r.site, r.prober);
	else
		snprintf(out, room, "accepted from %s: %s %s %s\n", who, r.prober, r.site,
			 r.up ? "up" : "down");
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->db = test_load(net_conf);
	assert_non_null(f->db);
	authd_health_init(&f->h, f->db);
	assert_int_equal(authd_respond_init(&f->rc, f->db, &f->h, 42), 0);
	assert_int_equal(authd_allow_add(&f->allow, "p1=127.0.0.1"), 0);
	assert_non_null(f->loop = loop_new());
	f->db->server.tcp_max = 2;
	f->db->server.tcp_idle_ns = 100 * NSEC_PER_MSEC;
	f->db->server.nlisten = 1;
	f->db->server.has_control = 1;
	/* a port taken between free_port and the bind: another one */
	for (int tries = 0; f->net == NULL && tries < 20; tries++) {
		f->dns = free_port();
		f->control = free_port();
		memcpy(&f->db->server.listen[0], &f->dns, sizeof(f->dns));
		memcpy(&f->db->server.control, &f->control, sizeof(f->control));
		f->net = authd_net_open(f->loop, &f->db->server, &f->rc, on_report, f);
	}
	assert_non_null(f->net);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	authd_net_close(f->net);
	loop_free(f->loop);
	authd_respond_free(&f->rc);
	authd_db_free(f->db);
	free(f);
	return 0;
}

/* query: an IN query for name/type with id, without EDNS; its length */
static size_t query(uint8_t *buf, size_t len, const char *name, uint16_t type, uint16_t id)
{
	uint8_t qname[KNOT_DNAME_MAXLEN];
	knot_pkt_t *q = knot_pkt_new(buf, (uint16_t)len, NULL);
	size_t size;

	assert_non_null(q);
	knot_pkt_clear(q);
	assert_non_null(knot_dname_from_str(qname, name, sizeof(qname)));
	knot_wire_set_id(q->wire, id);
	assert_int_equal(knot_pkt_put_question(q, qname, KNOT_CLASS_IN, type), KNOT_EOK);
	size = q->size;
	knot_pkt_free(q);
	return size;
}

/* answer: "ID RCODE [tc] ADDR ADDR ..." of a response: its A records
 * sorted, or "txt N" for N TXT records */
static const char *answer(const uint8_t *buf, size_t len)
{
	static char out[256];
	char addrs[8][INET_ADDRSTRLEN];
	int na = 0, ntxt = 0;
	knot_pkt_t *p = knot_pkt_new((void *)buf, len, NULL);
	size_t at;

	assert_non_null(p);
	assert_int_equal(knot_pkt_parse(p, 0), KNOT_EOK);
	assert_true(knot_wire_get_qr(p->wire));
	at = (size_t)snprintf(out, sizeof(out), "%u %s%s", knot_wire_get_id(p->wire),
			      knot_wire_get_rcode(p->wire) == KNOT_RCODE_NOERROR ? "NOERROR"
										 : "ERROR",
			      knot_wire_get_tc(p->wire) ? " tc" : "");
	for (uint16_t i = 0; i < p->sections[KNOT_ANSWER].count; i++) {
		const knot_rrset_t *rr = knot_pkt_rr(&p->sections[KNOT_ANSWER], i);

		if (rr->type == KNOT_RRTYPE_TXT)
			ntxt += rr->rrs.count;
		if (rr->type != KNOT_RRTYPE_A)
			continue;
		for (uint16_t k = 0; na < 8 && k < rr->rrs.count; k++)
			inet_ntop(AF_INET, knot_rdataset_at(&rr->rrs, k)->data, addrs[na++],
				  INET_ADDRSTRLEN);
	}
	for (int i = 0; i < na; i++)
		for (int j = i + 1; j < na; j++)
			if (strcmp(addrs[i], addrs[j]) > 0) {
				char t[INET_ADDRSTRLEN];

				memcpy(t, addrs[i], sizeof(t));
				memcpy(addrs[i], addrs[j], sizeof(t));
				memcpy(addrs[j], t, sizeof(t));
			}
	for (int i = 0; i < na; i++)
		at += (size_t)snprintf(out + at, sizeof(out) - at, " %s", addrs[i]);
	if (ntxt)
		snprintf(out + at, sizeof(out) - at, " txt %d", ntxt);
	knot_pkt_free(p);
	return out;
}

/* wait_recv: the next datagram or bytes on fd, authd's loop run until
 * there are some; what recv returned (0: the peer closed, -1 errno). Fails
 * after WAIT_NS. */
static ssize_t wait_recv(struct fixture *f, int fd, void *buf, size_t len, struct sockaddr_in *from)
{
	int64_t end = now_mono_ns() + WAIT_NS;
	socklen_t flen = sizeof(*from);

	for (;;) {
		ssize_t n = recvfrom(fd, buf, len, MSG_DONTWAIT, (struct sockaddr *)from,
				     from ? &flen : NULL);

		if (n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
			return n;
		if (now_mono_ns() > end)
			fail_msg("nothing came from authd in %lld s",
				 (long long)(WAIT_NS / 1000000000));
		loop_once(f->loop, 10);
	}
}

/* udp_ask: authd's answer to a query for name/type with id from fd, checked
 * to come from the address and port asked */
static const char *udp_ask(struct fixture *f, int fd, const char *name, uint16_t type, uint16_t id)
{
	uint8_t q[512], r[4096];
	struct sockaddr_in from;
	size_t n = query(q, sizeof(q), name, type, id);
	ssize_t got;

	assert_int_equal(sendto(fd, q, n, 0, (struct sockaddr *)&f->dns, sizeof(f->dns)),
			 (ssize_t)n);
	got = wait_recv(f, fd, r, sizeof(r), &from);
	assert_true(got > 0);
	/* from the address and port asked */
	assert_memory_equal(&from.sin_addr, &f->dns.sin_addr, sizeof(from.sin_addr));
	assert_int_equal(from.sin_port, f->dns.sin_port);
	return answer(r, (size_t)got);
}

static void test_udp_answers(void **state)
{
	struct fixture *f = *state;
	int c = bound(SOCK_DGRAM, "127.0.0.1", 0, NULL);
	uint8_t shortq[5] = {1, 2, 3, 4, 5};
	const struct authd_net_counts *n;

	assert_string_equal(udp_ask(f, c, "www.lab.example", KNOT_RRTYPE_A, 7),
			    "7 NOERROR 198.19.1.1 198.19.2.1");
	/* shorter than a header: no answer; the next query's is the next datagram */
	assert_int_equal(
	    sendto(c, shortq, sizeof(shortq), 0, (struct sockaddr *)&f->dns, sizeof(f->dns)),
	    (ssize_t)sizeof(shortq));
	assert_string_equal(udp_ask(f, c, "www.lab.example", KNOT_RRTYPE_A, 8),
			    "8 NOERROR 198.19.1.1 198.19.2.1");
	/* too big for UDP without EDNS: truncated, no records */
	assert_string_equal(udp_ask(f, c, "big.lab.example", KNOT_RRTYPE_TXT, 9), "9 NOERROR tc");
	n = authd_net_counts(f->net);
	assert_int_equal(n->udp_queries, 4);
	assert_int_equal(n->udp_responses, 3);
	assert_int_equal(n->udp_oversize, 0);
	assert_int_equal(n->udp_send_errors, 0);
	close(c);
}

static void test_udp_oversize_dropped(void **state)
{
	struct fixture *f = *state;
	int c = bound(SOCK_DGRAM, "127.0.0.1", 0, NULL);
	uint8_t big[5000];
	size_t n = query(big, sizeof(big), "www.lab.example", KNOT_RRTYPE_A, 1);

	memset(big + n, 0, sizeof(big) - n);
	assert_int_equal(sendto(c, big, sizeof(big), 0, (struct sockaddr *)&f->dns, sizeof(f->dns)),
			 (ssize_t)sizeof(big));
	/* the oversize one gets no answer: the first is the next query's */
	assert_string_equal(udp_ask(f, c, "www.lab.example", KNOT_RRTYPE_A, 2),
			    "2 NOERROR 198.19.1.1 198.19.2.1");
	assert_int_equal(authd_net_counts(f->net)->udp_oversize, 1);
	assert_int_equal(authd_net_counts(f->net)->udp_queries, 2);
	assert_int_equal(authd_net_counts(f->net)->udp_responses, 1);
	close(c);
}

static void test_udp_burst_each_answered_once(void **state)
{
	struct fixture *f = *state;
	int c = bound(SOCK_DGRAM, "127.0.0.1", 0, NULL);
	int rcvbuf = 1 << 20;
	char seen[201] = {0};

	/* more than a batch of 64: authd reads on until the socket is empty */
	setsockopt(c, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	for (uint16_t id = 1; id <= 200; id++) {
		uint8_t q[512];
		size_t n = query(q, sizeof(q), "www.lab.example", KNOT_RRTYPE_A, id);

		assert_int_equal(sendto(c, q, n, 0, (struct sockaddr *)&f->dns, sizeof(f->dns)),
				 (ssize_t)n);
	}
	for (int i = 0; i < 200; i++) {
		uint8_t r[512];
		unsigned id;
		ssize_t got = wait_recv(f, c, r, sizeof(r), NULL);

		assert_true(got > 0);
		assert_int_equal(sscanf(answer(r, (size_t)got), "%u", &id), 1);
		assert_true(id >= 1 && id <= 200);
		assert_int_equal(seen[id], 0);
		seen[id] = 1;
	}
	assert_int_equal(authd_net_counts(f->net)->udp_queries, 200);
	assert_int_equal(authd_net_counts(f->net)->udp_responses, 200);
	close(c);
}

/* tcp_connect: a connection to authd's TCP socket */
static int tcp_connect(struct fixture *f)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&f->dns, sizeof(f->dns)), 0);
	return fd;
}

/* tcp_read: one length-prefixed message into buf; its length, or 0 if the
 * connection closed first */
static size_t tcp_read(struct fixture *f, int fd, uint8_t *buf, size_t len)
{
	uint8_t pre[2];
	size_t want = 2, got = 0;
	uint8_t *to = pre;

	for (;;) {
		ssize_t n = wait_recv(f, fd, to + got, want - got, NULL);

		if (n <= 0)
			return 0;
		got += (size_t)n;
		if (got < want)
			continue;
		if (to == buf)
			return got;
		want = (size_t)pre[0] << 8 | pre[1];
		assert_true(want <= len);
		to = buf;
		got = 0;
	}
}

static void test_tcp_answers_in_order(void **state)
{
	struct fixture *f = *state;
	int c = tcp_connect(f);
	uint8_t out[1024], r[AUTHD_MSG_MAX];
	size_t at = 0, n;

	/* two queries in one segment, answered in order on the connection */
	for (uint16_t id = 21; id <= 22; id++) {
		n = query(out + at + 2, sizeof(out) - at - 2,
			  id == 21 ? "big.lab.example" : "www.lab.example",
			  id == 21 ? KNOT_RRTYPE_TXT : KNOT_RRTYPE_A, id);
		out[at] = (uint8_t)(n >> 8);
		out[at + 1] = (uint8_t)n;
		at += n + 2;
	}
	assert_int_equal(write(c, out, at), (ssize_t)at);
	/* over TCP the big answer is whole */
	n = tcp_read(f, c, r, sizeof(r));
	assert_true(n > 512);
	assert_string_equal(answer(r, n), "21 NOERROR txt 10");
	n = tcp_read(f, c, r, sizeof(r));
	assert_string_equal(answer(r, n), "22 NOERROR 198.19.1.1 198.19.2.1");
	assert_int_equal(authd_net_counts(f->net)->tcp_accepted, 1);
	assert_int_equal(authd_net_counts(f->net)->tcp_queries, 2);
	assert_int_equal(authd_net_counts(f->net)->tcp_responses, 2);
	close(c);
}

static void test_tcp_beyond_max_closed(void **state)
{
	struct fixture *f = *state;
	int c[3];
	uint8_t q[512], r[1024];
	size_t n;

	for (int i = 0; i < 3; i++)
		c[i] = tcp_connect(f);
	/* tcp_max = 2: the third is closed as soon as it is accepted */
	assert_int_equal(wait_recv(f, c[2], r, sizeof(r), NULL), 0);
	assert_int_equal(authd_net_counts(f->net)->tcp_rejected, 1);
	/* the first two are served */
	for (int i = 0; i < 2; i++) {
		n = query(q + 2, sizeof(q) - 2, "www.lab.example", KNOT_RRTYPE_A,
			  (uint16_t)(30 + i));
		q[0] = (uint8_t)(n >> 8);
		q[1] = (uint8_t)n;
		assert_int_equal(write(c[i], q, n + 2), (ssize_t)(n + 2));
		n = tcp_read(f, c[i], r, sizeof(r));
		assert_true(n > 0);
		assert_int_equal(knot_wire_get_id(r), 30 + i);
	}
	assert_int_equal(authd_net_counts(f->net)->tcp_accepted, 2);
	for (int i = 0; i < 3; i++)
		close(c[i]);
}

static void test_tcp_idle_closed(void **state)
{
	struct fixture *f = *state;
	int c = tcp_connect(f);
	uint8_t r[16];
	int64_t t0 = now_mono_ns(), took;

	/* tcp_idle 100 ms, checked every second: closed within about one */
	assert_int_equal(wait_recv(f, c, r, sizeof(r), NULL), 0);
	took = now_mono_ns() - t0;
	assert_true(took >= 100 * NSEC_PER_MSEC);
	assert_int_equal(authd_net_counts(f->net)->tcp_idle_closed, 1);
	close(c);
}

/* send_report: text to the control socket from a socket on src */
static void send_report(struct fixture *f, const char *src, const char *text)
{
	int fd = bound(SOCK_DGRAM, src, 0, NULL);

	assert_true(fd >= 0);
	assert_int_equal(
	    sendto(fd, text, strlen(text), 0, (struct sockaddr *)&f->control, sizeof(f->control)),
	    (ssize_t)strlen(text));
	close(fd);
}

static void wait_reports(struct fixture *f, int n)
{
	int64_t end = now_mono_ns() + WAIT_NS;

	while (f->nreports < n) {
		if (now_mono_ns() > end)
			fail_msg("%d of %d report lines reached the callback: %s", f->nreports, n,
				 f->reports);
		loop_once(f->loop, 10);
	}
}

static void test_control_reports(void **state)
{
	struct fixture *f = *state;
	int c = bound(SOCK_DGRAM, "127.0.0.1", 0, NULL);

	assert_string_equal(udp_ask(f, c, "www.lab.example", KNOT_RRTYPE_A, 1),
			    "1 NOERROR 198.19.1.1 198.19.2.1");
	/* several lines in a datagram, an empty one skipped, the last without
	 * its '\n' */
	send_report(f, "127.0.0.1",
		    "HEALTH p1 a down 0\nnot a report\n\nHEALTH p2 a up 5\nHEALTH p1 zz up 1");
	wait_reports(f, 4);
	/* from an address -a does not list */
	send_report(f, "127.0.0.2", "HEALTH p1 b down 0\n");
	wait_reports(f, 5);
	assert_string_equal(f->reports,
			    "accepted from 127.0.0.1: p1 a down\n"
			    "malformed from 127.0.0.1: 'not a report'\n"
			    "refused from 127.0.0.1: prober id p2 not allowed from this sender\n"
			    "unknown site zz from p1\n"
			    "refused from 127.0.0.2: sender not allowed\n");
	assert_int_equal(authd_net_counts(f->net)->control_datagrams, 2);
	/* the accepted report took site a out of the answers; b stays */
	assert_string_equal(udp_ask(f, c, "www.lab.example", KNOT_RRTYPE_A, 2),
			    "2 NOERROR 198.19.2.1");
	send_report(f, "127.0.0.1", "HEALTH p1 a up 800\n");
	wait_reports(f, 6);
	assert_string_equal(udp_ask(f, c, "www.lab.example", KNOT_RRTYPE_A, 3),
			    "3 NOERROR 198.19.1.1 198.19.2.1");
	close(c);
}

/* a control socket on [::] takes both families: a report to 127.0.0.1
 * comes as ::ffff:127.0.0.1 and is allowed by its IPv4 address, one from
 * ::1 by its IPv6 one */
static void test_control_both_families(void **state)
{
	struct fixture *f = *state;
	struct sockaddr_in6 any6 = {.sin6_family = AF_INET6, .sin6_port = f->control.sin_port},
			    to6 = {.sin6_family = AF_INET6,
				   .sin6_port = f->control.sin_port,
				   .sin6_addr = IN6ADDR_LOOPBACK_INIT};
	const char *text = "HEALTH p6 b down 0\n";
	int fd6;

	authd_net_close(f->net);
	memset(&f->db->server.control, 0, sizeof(f->db->server.control));
	memcpy(&f->db->server.control, &any6, sizeof(any6));
	assert_non_null(f->net = authd_net_open(f->loop, &f->db->server, &f->rc, on_report, f));
	assert_int_equal(authd_allow_add(&f->allow, "p6=::1"), 0);
	send_report(f, "127.0.0.1", "HEALTH p1 a down 0\n");
	fd6 = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_true(fd6 >= 0);
	assert_int_equal(sendto(fd6, text, strlen(text), 0, (struct sockaddr *)&to6, sizeof(to6)),
			 (ssize_t)strlen(text));
	close(fd6);
	wait_reports(f, 2);
	assert_string_equal(f->reports, "accepted from 127.0.0.1: p1 a down\n"
					"accepted from ::1: p6 b down\n");
}

/* open_taken: authd_net_open on a UDP port another socket holds */
static void open_taken(void *arg)
{
	struct fixture *f = arg;
	struct authd_server_conf sv = f->db->server;
	struct sockaddr_in held;
	int fd = bound(SOCK_DGRAM, "127.0.0.1", 0, &held);
	/* not the parent's: its epoll instance is shared with the child */
	struct loop *loop = loop_new();

	log_init("authd", 0);
	memcpy(&sv.listen[0], &held, sizeof(held));
	sv.has_control = 0;
	if (loop == NULL || authd_net_open(loop, &sv, &f->rc, on_report, f) != NULL)
		fprintf(stderr, "authd_net_open: opened on a port in use\n");
	/* the port, for the parent to expect */
	fprintf(stderr, "port %u\n", ntohs(held.sin_port));
	loop_free(loop);
	close(fd);
}

static void test_open_refused(void **state)
{
	struct fixture *f = *state;
	int status;
	char *err = test_child_stderr(open_taken, f, &status), *text;
	char want[256];
	unsigned port;
	const char *p = strstr(err, "port ");

	assert_non_null(p);
	assert_int_equal(sscanf(p, "port %u", &port), 1);
	test_assert_exit(status, 0);
	text = test_strip_stamps(err);
	snprintf(want, sizeof(want),
		 "authd: authd_bind: bind 127.0.0.1:%u: Address already in use\nport %u\n", port,
		 port);
	assert_string_equal(text, want);
	free(text);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_udp_answers, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_udp_oversize_dropped, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_udp_burst_each_answered_once, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_tcp_answers_in_order, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_tcp_beyond_max_closed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_tcp_idle_closed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_control_reports, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_control_both_families, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_open_refused, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
