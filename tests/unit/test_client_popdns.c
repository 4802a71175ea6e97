/*
 * A population's DNS lookups (agents/client/popdns.c) against two small
 * fake resolvers on 127.0.0.1 played by the test: the first answer of each
 * resolver shared by its clients; a client asking again when its hold runs
 * out (the TTL, or its stickiness for a sticky one, never under
 * CLIENT_DNS_MIN_TTL_NS), from its own source address, and taking the new
 * answer, written as a dns_answer event only when it changed; a query left
 * unanswered asked again after CLIENT_DNS_RETRY_NS and counted as a
 * failure; answers to no outstanding query ignored; a name that is not a
 * domain name refused with its message. No root.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>
#include <libknot/libknot.h>

#include "agents/client/popdns.h"
#include "event.h"
#include "log.h"
#include "test_child.h"
#include "test_file.h"
#include "timeutil.h"

#define NAME "www.lab.example"
#define WAIT_MS 5000 /* the longest a datagram on loopback may take */
#define S NSEC_PER_SEC

struct fixture {
	int fd[2]; /* the fake resolvers */
	union client_addr res[2];
	struct pop pop;
	struct popdns d;
	struct event_log *ev;
	char events[64];
};

/* setup_family: the fake resolvers on loopback of family (AF_INET, or
 * AF_INET6: ::1), and a population of lookups pop_family (pop_dns_init's) */
static int setup_family(void **state, int family, int pop_family)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct pop_rates rates;
	int efd;

	assert_non_null(f);
	for (int k = 0; k < 2; k++) {
		union client_addr s = {.sa.sa_family = (sa_family_t)family};
		socklen_t len = sizeof(f->res[k]);

		if (family == AF_INET6)
			s.sin6.sin6_addr = in6addr_loopback;
		else
			s.sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		f->fd[k] = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		assert_true(f->fd[k] >= 0);
		assert_int_equal(bind(f->fd[k], &s.sa, client_addr_len(&s)), 0);
		assert_int_equal(getsockname(f->fd[k], &f->res[k].sa, &len), 0);
	}
	/* 4 clients from id 100, client j asking resolver j mod 2; at a
	 * sticky share of 1/4, client 3 is the sticky one */
	assert_int_equal(pop_rates_parse("equal", &rates), 0);
	assert_int_equal(pop_init(&f->pop, 4, 100, &rates, 40, 0, 1), 0);
	assert_int_equal(pop_dns_init(&f->pop, 2, NULL, 0.25, pop_family), 0);
	assert_int_equal(f->pop.c[3].flags & POP_F_STICKY, POP_F_STICKY);
	snprintf(f->events, sizeof(f->events), "/tmp/test_client_popdns.XXXXXX");
	assert_true((efd = mkstemp(f->events)) >= 0);
	close(efd);
	assert_non_null(f->ev = event_open(f->events, "c1", "client"));
	assert_int_equal(popdns_open(&f->d, &f->pop, f->res, 2, NAME, 60 * S, f->ev), 0);
	log_init("client", 0);
	*state = f;
	return 0;
}

static int setup(void **state)
{
	return setup_family(state, AF_INET, AF_INET);
}

/* a dual population asking over IPv6, as a dual lab's does */
static int setup_dual(void **state)
{
	return setup_family(state, AF_INET6, AF_UNSPEC);
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	popdns_close(&f->d);
	assert_int_equal(f->d.fd, -1);
	popdns_close(&f->d);
	event_close(f->ev);
	unlink(f->events);
	pop_free(&f->pop);
	for (int k = 0; k < 2; k++)
		close(f->fd[k]);
	free(f);
	return 0;
}

static void wait_in(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	if (poll(&p, 1, WAIT_MS) != 1)
		fail_msg("nothing to read on fd %d within %d ms", fd, WAIT_MS);
}

/* respond: the answer to query q (qlen bytes), an A or an AAAA query: addr
 * (of the question's type) with ttl, into r; its length, or 0 if q is
 * neither or addr not of its type */
static size_t respond(const uint8_t *q, size_t qlen, const char *addr, uint32_t ttl, uint8_t *r,
		      size_t rlen)
{
	knot_pkt_t *query = knot_pkt_new((void *)q, qlen, NULL);
	knot_pkt_t *pkt = knot_pkt_new(r, (uint16_t)rlen, NULL);
	uint8_t rdata[16];
	knot_rrset_t *rr;
	size_t size = 0;
	uint16_t qtype;
	int v6;

	if (query == NULL || pkt == NULL || knot_pkt_parse(query, 0) != KNOT_EOK)
		goto out;
	qtype = knot_pkt_qtype(query);
	v6 = qtype == KNOT_RRTYPE_AAAA;
	if (qtype != KNOT_RRTYPE_A && !v6)
		goto out;
	knot_pkt_clear(pkt);
	knot_wire_set_id(pkt->wire, knot_wire_get_id(q));
	knot_wire_set_qr(pkt->wire);
	knot_wire_set_ra(pkt->wire);
	if (knot_pkt_put_question(pkt, knot_pkt_qname(query), KNOT_CLASS_IN, qtype) != KNOT_EOK ||
	    knot_pkt_begin(pkt, KNOT_ANSWER) != KNOT_EOK)
		goto out;
	rr = knot_rrset_new(knot_pkt_qname(query), qtype, KNOT_CLASS_IN, ttl, NULL);
	if (rr == NULL || inet_pton(v6 ? AF_INET6 : AF_INET, addr, rdata) != 1 ||
	    knot_rrset_add_rdata(rr, rdata, v6 ? 16 : 4, NULL) != KNOT_EOK ||
	    knot_pkt_put(pkt, 0, rr, KNOT_PF_FREE) != KNOT_EOK)
		goto out;
	free(rr);
	size = pkt->size;
out:
	knot_pkt_free(query);
	knot_pkt_free(pkt);
	return size;
}

/* qtype_of: query q's question type */
static uint16_t qtype_of(const uint8_t *q, size_t qlen)
{
	knot_pkt_t *query = knot_pkt_new((void *)q, qlen, NULL);
	uint16_t t = 0;

	if (query && knot_pkt_parse(query, 0) == KNOT_EOK)
		t = knot_pkt_qtype(query);
	knot_pkt_free(query);
	return t;
}

/* serve: resolver k reads the next query and, unless addr is NULL, answers
 * it (times copies); the query's source and id */
static struct in_addr serve(struct fixture *f, int k, const char *addr, uint32_t ttl, int times,
			    uint16_t *id)
{
	uint8_t q[512], r[512];
	union client_addr from;
	socklen_t len = sizeof(from);
	ssize_t n;
	size_t rn;

	wait_in(f->fd[k]);
	n = recvfrom(f->fd[k], q, sizeof(q), 0, (struct sockaddr *)&from, &len);
	assert_true(n >= KNOT_WIRE_HEADER_SIZE);
	if (id)
		*id = knot_wire_get_id(q);
	if (addr) {
		assert_true((rn = respond(q, (size_t)n, addr, ttl, r, sizeof(r))) > 0);
		for (int i = 0; i < times; i++)
			assert_int_equal(sendto(f->fd[k], r, rn, 0, (struct sockaddr *)&from, len),
					 (ssize_t)rn);
	}
	return from.sa.sa_family == AF_INET ? from.sin.sin_addr : (struct in_addr){0};
}

/* receive: the client reads the answers waiting at now */
static void receive(struct fixture *f, int64_t now)
{
	wait_in(f->d.fd);
	popdns_receive(&f->d, now);
}

static void nothing_waiting(int fd)
{
	uint8_t b[16];

	assert_int_equal(recv(fd, b, sizeof(b), MSG_DONTWAIT), -1);
	assert_int_equal(errno, EAGAIN);
}

/* first: popdns_first, each resolver answered by a child standing in for
 * it, which answers the one query it gets (a dual population's two: the
 * AAAA and the A): resolver 0 198.19.1.1 (2001:2:0:ff01::1) for 30 s,
 * resolver 1 198.19.2.1 (2001:2:0:ff01::2) for 5 s; what it logged (caller
 * frees) */
static char *first(struct fixture *f)
{
	pid_t pid;
	int status, saved;
	char *err;

	fflush(NULL);
	assert_true((pid = fork()) != -1);
	if (pid == 0) {
		const char *addr[2] = {"198.19.1.1", "198.19.2.1"};
		const char *addr6[2] = {"2001:2:0:ff01::1", "2001:2:0:ff01::2"};
		uint32_t ttl[2] = {30, 5};

		for (int i = 0; i < 2 * (f->pop.c4 ? 2 : 1); i++) {
			int k = i % 2;
			uint8_t q[512], r[512];
			union client_addr from;
			socklen_t len = sizeof(from);
			struct pollfd p = {.fd = f->fd[k], .events = POLLIN};
			ssize_t n;
			size_t rn;

			if (poll(&p, 1, WAIT_MS) != 1 ||
			    (n = recvfrom(f->fd[k], q, sizeof(q), 0, (struct sockaddr *)&from,
					  &len)) < 0 ||
			    (rn = respond(q, (size_t)n,
					  qtype_of(q, (size_t)n) == KNOT_RRTYPE_AAAA ? addr6[k]
										     : addr[k],
					  ttl[k], r, sizeof(r))) == 0 ||
			    sendto(f->fd[k], r, rn, 0, (struct sockaddr *)&from, len) !=
				(ssize_t)rn)
				_exit(1);
		}
		_exit(0);
	}
	saved = test_stderr_begin();
	status = popdns_first(&f->d);
	err = test_stderr_end(saved);
	assert_int_equal(status, 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	test_assert_exit(status, 0);
	return err;
}

static const char *addr_of(const struct fixture *f, uint32_t j)
{
	static char buf[INET_ADDRSTRLEN];

	return inet_ntop(AF_INET, &f->pop.c[j].addr, buf, sizeof(buf));
}

/* addr6_of: client j's AAAA address; a4_of: a dual one's A */
static const char *addr6_of(const struct fixture *f, uint32_t j)
{
	static char buf[INET6_ADDRSTRLEN];

	return inet_ntop(AF_INET6, &f->pop.addr6[j], buf, sizeof(buf));
}

static const char *a4_of(const struct fixture *f, uint32_t j)
{
	static char buf[INET_ADDRSTRLEN];

	return inet_ntop(AF_INET, &f->pop.c4[j].addr, buf, sizeof(buf));
}

/* events: the events written, one a line, without their time, sorted keys */
static char *events(struct fixture *f)
{
	char *text = test_read_file(f->events), *line, *save = NULL;
	char *out = calloc(1, strlen(text) * 2 + 1);

	assert_non_null(out);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_t *o = json_loads(line, 0, NULL);
		char *s;

		assert_non_null(o);
		assert_true(json_integer_value(json_object_get(o, "t")) > 0);
		json_object_del(o, "t");
		s = json_dumps(o, JSON_SORT_KEYS | JSON_COMPACT);
		strcat(out, s);
		strcat(out, "\n");
		free(s);
		json_decref(o);
	}
	free(text);
	return out;
}

static void test_first_answers(void **state)
{
	struct fixture *f = *state;
	int64_t before = now_mono_ns(), after;
	char *ev, *err = first(f), *text;

	after = now_mono_ns();
	text = test_strip_stamps(err);
	/* each answer said with the resolver it came from */
	assert_string_equal(text, "client: www.lab.example is 198.19.1.1 (ttl 30s) from resolver "
				  "127.0.0.1\n"
				  "client: www.lab.example is 198.19.2.1 (ttl 5s) from resolver "
				  "127.0.0.1\n");
	free(text);
	free(err);
	assert_string_equal(addr_of(f, 0), "198.19.1.1");
	assert_string_equal(addr_of(f, 1), "198.19.2.1");
	assert_string_equal(addr_of(f, 2), "198.19.1.1");
	assert_string_equal(addr_of(f, 3), "198.19.2.1");
	/* each holds its answer a part of a whole hold from now: the TTL's, or
	 * 60 s for the sticky one */
	for (uint32_t j = 0; j < 4; j++) {
		int64_t hold = j == 3 ? 60 * S : j % 2 ? 5 * S : 30 * S;

		assert_true(f->pop.c[j].refresh_ns > before);
		assert_true(f->pop.c[j].refresh_ns <= after + hold);
		assert_false(f->pop.c[j].flags & POP_F_ASKING);
	}
	assert_int_equal(f->d.queries, 2);
	assert_int_equal(f->d.answers, 2);
	assert_int_equal(f->d.failures, 0);
	/* the first answers are no change */
	assert_int_equal(f->d.changes, 0);
	ev = events(f);
	assert_string_equal(ev, "");
	free(ev);
}

static void test_asks_when_hold_runs_out(void **state)
{
	struct fixture *f = *state;
	int64_t t;
	char *ev;

	free(first(f));
	/* not due yet: no query */
	t = f->pop.c[0].refresh_ns - 1;
	popdns_check(&f->d, 0, t);
	popdns_flush(&f->d);
	assert_int_equal(f->d.queries, 2);
	nothing_waiting(f->fd[0]);

	/* due: asks its resolver, and takes the new answer */
	t = f->pop.c[0].refresh_ns;
	popdns_check(&f->d, 0, t);
	popdns_flush(&f->d);
	assert_int_equal(f->d.queries, 3);
	assert_true(f->pop.c[0].flags & POP_F_ASKING);
	serve(f, 0, "198.19.1.9", 20, 1, NULL);
	receive(f, t + S);
	assert_false(f->pop.c[0].flags & POP_F_ASKING);
	assert_string_equal(addr_of(f, 0), "198.19.1.9");
	/* held from when the request that asked was due (t), not from the
	 * answer's arrival a second later */
	assert_int_equal(f->pop.c[0].refresh_ns, t + 20 * S);
	/* the other client of resolver 0 still holds the old one */
	assert_string_equal(addr_of(f, 2), "198.19.1.1");

	/* the same answer again: counted, no event; a TTL of 0 held 100 ms */
	t = f->pop.c[1].refresh_ns;
	popdns_check(&f->d, 1, t);
	popdns_flush(&f->d);
	serve(f, 1, "198.19.2.1", 0, 1, NULL);
	receive(f, t);
	assert_int_equal(f->pop.c[1].refresh_ns, t + CLIENT_DNS_MIN_TTL_NS);

	/* the sticky client holds whatever it gets for its 60 s */
	t = f->pop.c[3].refresh_ns;
	popdns_check(&f->d, 3, t);
	popdns_flush(&f->d);
	serve(f, 1, "198.19.2.7", 5, 1, NULL);
	receive(f, t);
	assert_string_equal(addr_of(f, 3), "198.19.2.7");
	assert_int_equal(f->pop.c[3].refresh_ns, t + 60 * S);

	assert_int_equal(f->d.queries, 5);
	assert_int_equal(f->d.answers, 5);
	assert_int_equal(f->d.changes, 2);
	ev = events(f);
	assert_string_equal(ev,
			    "{\"address\":\"198.19.1.9\",\"agent\":\"client\",\"changed\":true,"
			    "\"client\":100,\"event\":\"dns_answer\",\"name\":\"www.lab.example\","
			    "\"node\":\"c1\",\"previous\":\"198.19.1.1\",\"ttl\":20}\n"
			    "{\"address\":\"198.19.2.7\",\"agent\":\"client\",\"changed\":true,"
			    "\"client\":103,\"event\":\"dns_answer\",\"name\":\"www.lab.example\","
			    "\"node\":\"c1\",\"previous\":\"198.19.2.1\",\"ttl\":5}\n");
	free(ev);
}

static void test_unanswered_asked_again(void **state)
{
	struct fixture *f = *state;
	int64_t t;
	uint16_t id1, id2;

	free(first(f));
	t = f->pop.c[2].refresh_ns;
	popdns_check(&f->d, 2, t);
	popdns_flush(&f->d);
	serve(f, 0, NULL, 0, 0, &id1); /* lost */
	/* within the retry time: it waits */
	popdns_check(&f->d, 2, t + CLIENT_DNS_RETRY_NS - 1);
	popdns_flush(&f->d);
	nothing_waiting(f->fd[0]);
	assert_int_equal(f->d.queries, 3);
	/* then asks again, the first counted as a failure */
	popdns_check(&f->d, 2, t + CLIENT_DNS_RETRY_NS);
	popdns_flush(&f->d);
	assert_int_equal(f->d.queries, 4);
	assert_int_equal(f->d.failures, 1);
	/* the answer comes twice: taken once */
	serve(f, 0, "198.19.1.5", 30, 2, &id2);
	assert_int_equal(id2, f->pop.c[2].qid);
	receive(f, t + CLIENT_DNS_RETRY_NS);
	assert_string_equal(addr_of(f, 2), "198.19.1.5");
	nothing_waiting(f->d.fd);
	assert_int_equal(f->d.answers, 3);
	assert_int_equal(f->d.changes, 1);
	assert_int_equal(f->pop.asking, 0);
}

static void test_own_source_addresses(void **state)
{
	struct fixture *f = *state;
	char a[INET_ADDRSTRLEN];

	free(first(f));
	/* a source block of two addresses: client j sends from 127.0.0.2 + j mod 2 */
	f->pop.src_net = 0x7f000002;
	f->pop.src_size = 2;
	for (uint32_t j = 0; j < 4; j++) {
		struct in_addr src;
		int64_t t = f->pop.c[j].refresh_ns;

		popdns_check(&f->d, j, t);
		popdns_flush(&f->d);
		src = serve(f, (int)(j % 2), "198.19.3.3", 30, 1, NULL);
		inet_ntop(AF_INET, &src, a, sizeof(a));
		assert_string_equal(a, j % 2 ? "127.0.0.3" : "127.0.0.2");
		receive(f, t);
		assert_string_equal(addr_of(f, j), "198.19.3.3");
	}
	assert_int_equal(f->d.changes, 4);
}

/* a dual population asking over IPv6: the first answers of both lookups
 * (the AAAA its requests go to, the A their fallback), each held apart; a
 * client due asks both, each as its own hold says, and takes each answer
 * into its own lookup; a changed AAAA is a dns_answer with IPv6 addresses */
static void test_dual_lookups(void **state)
{
	struct fixture *f = *state;
	char *err = first(f), *ev;
	int64_t t;
	uint16_t qt;
	uint8_t q[512], r[512];
	union client_addr from;
	socklen_t len;
	ssize_t n;
	size_t rn;

	assert_non_null(strstr(err, "www.lab.example is 2001:2:0:ff01::1 (ttl 30s) from resolver "
				    "::1\n"));
	assert_non_null(strstr(err, "www.lab.example is 198.19.2.1 (ttl 5s) from resolver ::1\n"));
	free(err);
	assert_int_equal(f->d.queries, 4);
	assert_int_equal(f->d.answers, 4);
	for (uint32_t j = 0; j < 4; j++) {
		assert_string_equal(addr6_of(f, j),
				    j % 2 ? "2001:2:0:ff01::2" : "2001:2:0:ff01::1");
		assert_string_equal(a4_of(f, j), j % 2 ? "198.19.2.1" : "198.19.1.1");
		assert_string_equal(addr_of(f, j), "0.0.0.0"); /* no A in its own lookup */
	}
	/* the A's hold ends later than the AAAA's: at the AAAA's, one query */
	f->pop.c4[0].refresh_ns = f->pop.c[0].refresh_ns + S;
	t = f->pop.c[0].refresh_ns;
	popdns_check(&f->d, 0, t);
	popdns_flush(&f->d);
	assert_int_equal(f->d.queries, 5);
	assert_true(f->pop.c[0].flags & POP_F_ASKING);
	assert_false(f->pop.c4[0].flags & POP_F_ASKING);
	wait_in(f->fd[0]);
	len = sizeof(from);
	n = recvfrom(f->fd[0], q, sizeof(q), 0, &from.sa, &len);
	assert_true(n > 0);
	assert_int_equal(qtype_of(q, (size_t)n), KNOT_RRTYPE_AAAA);
	assert_int_equal(from.sa.sa_family, AF_INET6); /* asked over IPv6 */
	assert_true((rn = respond(q, (size_t)n, "2001:2:0:ff01::9", 20, r, sizeof(r))) > 0);
	assert_int_equal(sendto(f->fd[0], r, rn, 0, &from.sa, len), (ssize_t)rn);
	receive(f, t);
	assert_string_equal(addr6_of(f, 0), "2001:2:0:ff01::9");
	assert_int_equal(f->pop.c[0].refresh_ns, t + 20 * S);
	assert_string_equal(a4_of(f, 0), "198.19.1.1");
	/* then the A's: an A query, its answer into the A lookup alone */
	t = f->pop.c4[0].refresh_ns;
	popdns_check(&f->d, 0, t);
	popdns_flush(&f->d);
	assert_true(f->pop.c4[0].flags & POP_F_ASKING);
	assert_false(f->pop.c[0].flags & POP_F_ASKING);
	wait_in(f->fd[0]);
	len = sizeof(from);
	n = recvfrom(f->fd[0], q, sizeof(q), 0, &from.sa, &len);
	assert_true(n > 0);
	qt = qtype_of(q, (size_t)n);
	assert_int_equal(qt, KNOT_RRTYPE_A);
	assert_true((rn = respond(q, (size_t)n, "198.19.1.9", 20, r, sizeof(r))) > 0);
	assert_int_equal(sendto(f->fd[0], r, rn, 0, &from.sa, len), (ssize_t)rn);
	receive(f, t);
	assert_string_equal(a4_of(f, 0), "198.19.1.9");
	assert_string_equal(addr6_of(f, 0), "2001:2:0:ff01::9");
	assert_int_equal(f->pop.c4[0].refresh_ns, t + 20 * S);
	assert_int_equal(f->pop.asking, 0);
	assert_int_equal(f->d.changes, 2);
	ev = events(f);
	assert_string_equal(ev,
			    "{\"address\":\"2001:2:0:ff01::9\",\"agent\":\"client\",\"changed\":"
			    "true,\"client\":100,\"event\":\"dns_answer\",\"name\":\"www.lab."
			    "example\",\"node\":\"c1\",\"previous\":\"2001:2:0:ff01::1\",\"ttl\":"
			    "20}\n"
			    "{\"address\":\"198.19.1.9\",\"agent\":\"client\",\"changed\":true,"
			    "\"client\":100,\"event\":\"dns_answer\",\"name\":\"www.lab.example\","
			    "\"node\":\"c1\",\"previous\":\"198.19.1.1\",\"ttl\":20}\n");
	free(ev);
}

static char longname[300]; /* 299 characters: more than a name may have */

static void bad_name(void *arg)
{
	struct fixture *f = arg;
	struct popdns d;

	log_init("client", 0);
	fprintf(stderr, "open: %d\n", popdns_open(&d, &f->pop, f->res, 2, "www..lab", S, NULL));
	fprintf(stderr, "open: %d\n", popdns_open(&d, &f->pop, f->res, 2, longname, S, NULL));
}

static void test_not_a_name(void **state)
{
	struct fixture *f = *state;
	int status;
	char *err, *text, want[1024];

	memset(longname, 'a', sizeof(longname) - 1);
	err = test_child_stderr(bad_name, f, &status);
	test_assert_exit(status, 0);
	text = test_strip_stamps(err);
	snprintf(want, sizeof(want),
		 "client: not a domain name: 'www..lab'\nopen: -1\n"
		 "client: not a domain name: '%s'\nopen: -1\n",
		 longname);
	assert_string_equal(text, want);
	free(text);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_first_answers, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_asks_when_hold_runs_out, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unanswered_asked_again, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_own_source_addresses, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_not_a_name, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_dual_lookups, setup_dual, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
