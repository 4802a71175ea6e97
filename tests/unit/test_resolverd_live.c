/*
 * resolverd's resolvers over real loopback sockets, in this process, on a
 * fake clock: the test plays the clients and the authoritative server and
 * pumps the resolvers' loop (loop_once) and tick (rsv_ctx_tick)
 * itself. No root needed: 127.0.0.0/8 and unprivileged ports.
 *
 * Checked: each resolver asks from its own address, with RD clear and a
 * fresh ID; a miss then hits with a decreasing TTL; expiry refetches;
 * concurrent misses share one upstream query; retries after the timeout
 * with the same ID, then a stale answer (serve_stale) or SERVFAIL; prefetch
 * in the background; TC from upstream retried over TCP from the resolver's
 * address; a client over TCP; the CSV of upstream queries.
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
#include <unistd.h>

#include <cmocka.h>

#include "agents/resolverd/ctx.h"
#include "agents/resolverd/msg.h"
#include "timeutil.h"

#define S NSEC_PER_SEC

static int64_t fake_now = 5000 * S;

static int64_t fake_clock(void)
{
	return fake_now;
}

struct lab {
	struct rsv_conf conf;
	struct rsv_ctx ctx;
	struct loop *loop;
	int up_udp, up_tcp; /* the fake authoritative server */
	uint16_t port;	    /* the resolvers' */
	int client;	    /* a UDP client */
	char *csv;
	size_t csv_len;
};

static struct sockaddr_in sin_of(const char *a, uint16_t port)
{
	struct sockaddr_in s = {.sin_family = AF_INET, .sin_port = htons(port)};

	assert_int_equal(inet_pton(AF_INET, a, &s.sin_addr), 1);
	return s;
}

static int bound(int type, const char *a, uint16_t port, uint16_t *got)
{
	struct sockaddr_in s = sin_of(a, port);
	socklen_t len = sizeof(s);
	int fd = socket(AF_INET, type | SOCK_NONBLOCK, 0), on = 1;

	assert_true(fd >= 0);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	if (bind(fd, (struct sockaddr *)&s, sizeof(s)) == -1) {
		close(fd);
		return -1;
	}
	if (type == SOCK_STREAM)
		assert_int_equal(listen(fd, 8), 0);
	getsockname(fd, (struct sockaddr *)&s, &len);
	if (got)
		*got = ntohs(s.sin_port);
	return fd;
}

static void add_resolver(struct lab *l, const char *name, const char *addr)
{
	struct rsv_inst_conf *in = &l->conf.inst[l->conf.ninst++];

	snprintf(in->name, sizeof(in->name), "%s", name);
	inet_pton(AF_INET, addr, &in->addr);
	rsv_conf_defaults(&in->cache);
}

static int setup(void **state)
{
	struct lab *l = calloc(1, sizeof(*l));
	uint16_t up_port, probe;
	int fd;

	assert_non_null(l);
	/* the upstream: UDP and TCP on one port */
	for (;;) {
		l->up_udp = bound(SOCK_DGRAM, "127.0.0.1", 0, &up_port);
		if ((l->up_tcp = bound(SOCK_STREAM, "127.0.0.1", up_port, NULL)) >= 0)
			break;
		close(l->up_udp);
	}
	/* a port for the resolvers that is free now */
	fd = bound(SOCK_DGRAM, "127.0.0.1", 0, &probe);
	close(fd);
	l->port = probe;

	l->conf.upstream[0] = sin_of("127.0.0.1", up_port);
	l->conf.nupstream = 1;
	l->conf.timeout_ns = 500 * NSEC_PER_MSEC;
	l->conf.retries = 2;
	l->conf.port = l->port;
	l->conf.tcp = 1;
	l->conf.stats_ns = S;
	l->conf.max_pending = 100;
	l->conf.inst = calloc(4, sizeof(*l->conf.inst));
	add_resolver(l, "r1", "127.0.0.11");
	add_resolver(l, "r2", "127.0.0.12");
	l->conf.inst[1].cache.serve_stale = 1;
	l->conf.inst[1].cache.stale_ttl = 30;
	l->conf.inst[1].cache.stale_recheck_ns = 10 * S;
	add_resolver(l, "r3", "127.0.0.13");
	l->conf.inst[2].cache.prefetch_pct = 50;

	l->ctx.clock = fake_clock;
	l->ctx.stats.ev = event_open("/dev/null", "test", "resolverd");
	l->ctx.stats.csv = open_memstream(&l->csv, &l->csv_len);
	if ((l->loop = loop_new()) == NULL || rsv_ctx_open(&l->ctx, &l->conf, 1024, l->loop) == -1)
		fail_msg("rsv_ctx_open failed");
	l->client = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	*state = l;
	return 0;
}

static int teardown(void **state)
{
	struct lab *l = *state;

	rsv_ctx_close(&l->ctx);
	loop_free(l->loop);
	fclose(l->ctx.stats.csv);
	event_close(l->ctx.stats.ev);
	free(l->csv);
	free(l->conf.inst);
	close(l->up_udp);
	close(l->up_tcp);
	close(l->client);
	free(l);
	return 0;
}

static void pump(struct lab *l)
{
	for (int i = 0; i < 5; i++)
		loop_once(l->loop, 5);
}

static void ask(struct lab *l, int fd, const char *resolver, const char *name, uint16_t id)
{
	uint8_t wire[512];
	knot_dname_storage_t dn;
	knot_pkt_t *p = knot_pkt_new(wire, sizeof(wire), NULL);
	struct sockaddr_in to = sin_of(resolver, l->port);

	knot_pkt_clear(p);
	knot_wire_set_id(p->wire, id);
	knot_wire_set_rd(p->wire);
	knot_dname_from_str(dn, name, sizeof(dn));
	assert_int_equal(knot_pkt_put_question(p, dn, KNOT_CLASS_IN, KNOT_RRTYPE_A), KNOT_EOK);
	assert_int_equal(sendto(fd, p->wire, p->size, 0, (struct sockaddr *)&to, sizeof(to)),
			 (ssize_t)p->size);
	knot_pkt_free(p);
}

/* ask_edns: ask() with an OPT of this payload size and no option */
static void ask_edns(struct lab *l, const char *name, uint16_t id, uint16_t payload)
{
	uint8_t wire[512];
	knot_dname_storage_t dn;
	knot_pkt_t *p = knot_pkt_new(wire, sizeof(wire), NULL);
	struct sockaddr_in to = sin_of("127.0.0.11", l->port);
	knot_rrset_t opt;

	knot_pkt_clear(p);
	knot_wire_set_id(p->wire, id);
	knot_dname_from_str(dn, name, sizeof(dn));
	assert_int_equal(knot_pkt_put_question(p, dn, KNOT_CLASS_IN, KNOT_RRTYPE_A), KNOT_EOK);
	assert_int_equal(knot_edns_init(&opt, payload, 0, 0, NULL), KNOT_EOK);
	assert_int_equal(knot_pkt_begin(p, KNOT_ADDITIONAL), KNOT_EOK);
	assert_int_equal(knot_pkt_put(p, KNOT_COMPR_HINT_NONE, &opt, KNOT_PF_FREE), KNOT_EOK);
	assert_int_equal(sendto(l->client, p->wire, p->size, 0, (struct sockaddr *)&to, sizeof(to)),
			 (ssize_t)p->size);
	knot_pkt_free(p);
}

/* reply: the next answer to a client on fd: its rcode, first TTL (-1 if
 * no answer record) and id. -1 if nothing came. */
static int reply(struct lab *l, int fd, int *ttl, uint16_t *id)
{
	uint8_t buf[4096];

	for (int i = 0; i < 50; i++) {
		ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n > 0) {
			knot_pkt_t *p = rsv_msg_parse(buf, (size_t)n);
			const knot_pktsection_t *an;
			int rcode;

			assert_non_null(p);
			an = knot_pkt_section(p, KNOT_ANSWER);
			*ttl = an->count ? (int)knot_pkt_rr(an, 0)->ttl : -1;
			if (id)
				*id = knot_wire_get_id(p->wire);
			rcode = knot_wire_get_rcode(p->wire);
			knot_pkt_free(p);
			return rcode;
		}
		pump(l);
	}
	return -1;
}

struct upq {
	uint16_t id;
	struct sockaddr_in from;
	uint8_t wire[512];
	size_t len;
	int rd;
};

/* upstream_query: the next query at the fake authoritative server; 0, or
 * -1 if none came. */
static int upstream_query(struct lab *l, struct upq *q)
{
	for (int i = 0; i < 20; i++) {
		socklen_t fl = sizeof(q->from);
		ssize_t n = recvfrom(l->up_udp, q->wire, sizeof(q->wire), MSG_DONTWAIT,
				     (struct sockaddr *)&q->from, &fl);
		if (n > 0) {
			q->len = (size_t)n;
			q->id = knot_wire_get_id(q->wire);
			q->rd = knot_wire_get_rd(q->wire);
			return 0;
		}
		pump(l);
	}
	return -1;
}

/* answer_wire: an authoritative answer to q with one A record of ttl (no
 * record if ttl < 0), rcode, TC if tc. Returns its length. */
static size_t answer_wire(const struct upq *q, int ttl, int rcode, int tc, uint8_t *out)
{
	knot_pkt_t *qp = rsv_msg_parse(q->wire, q->len), *p = knot_pkt_new(out, 512, NULL);
	size_t len;

	assert_non_null(qp);
	assert_int_equal(knot_pkt_init_response(p, qp), KNOT_EOK);
	knot_wire_set_aa(p->wire);
	knot_wire_set_rcode(p->wire, (short)rcode);
	if (tc)
		knot_wire_set_tc(p->wire);
	if (ttl >= 0) {
		uint8_t a[4] = {198, 19, 0, 1};
		knot_rrset_t *rr = knot_rrset_new(knot_pkt_qname(qp), KNOT_RRTYPE_A, KNOT_CLASS_IN,
						  (uint32_t)ttl, NULL);
		knot_rrset_add_rdata(rr, a, 4, NULL);
		assert_int_equal(knot_pkt_put(p, KNOT_COMPR_HINT_NONE, rr, KNOT_PF_FREE), KNOT_EOK);
		free(rr);
	}
	len = p->size;
	knot_pkt_free(p);
	knot_pkt_free(qp);
	return len;
}

static void upstream_answer(struct lab *l, const struct upq *q, int ttl, int rcode, int tc)
{
	uint8_t out[512];
	size_t len = answer_wire(q, ttl, rcode, tc, out);

	assert_int_equal(
	    sendto(l->up_udp, out, len, 0, (const struct sockaddr *)&q->from, sizeof(q->from)),
	    (ssize_t)len);
}

static const char *from_addr(const struct upq *q)
{
	static char buf[INET_ADDRSTRLEN];

	return inet_ntop(AF_INET, &q->from.sin_addr, buf, sizeof(buf));
}

static void test_miss_hit_expiry(void **state)
{
	struct lab *l = *state;
	struct upq q;
	uint16_t id;
	int ttl;

	ask(l, l->client, "127.0.0.11", "www.lab.test.", 101);
	assert_int_equal(upstream_query(l, &q), 0);
	assert_string_equal(from_addr(&q), "127.0.0.11");
	assert_string_equal(from_addr(&q), "127.0.0.11");
	assert_int_equal(q.rd, 0);
	upstream_answer(l, &q, 60, KNOT_RCODE_NOERROR, 0);
	assert_int_equal(reply(l, l->client, &ttl, &id), KNOT_RCODE_NOERROR);
	assert_int_equal(id, 101);
	assert_int_equal(ttl, 60);
	assert_int_equal(l->ctx.inst[0].n.misses, 1);

	/* a hit 20 s later: TTL 40, nothing upstream */
	fake_now += 20 * S;
	ask(l, l->client, "127.0.0.11", "www.lab.test.", 102);
	assert_int_equal(reply(l, l->client, &ttl, &id), KNOT_RCODE_NOERROR);
	assert_int_equal(ttl, 40);
	assert_int_equal(upstream_query(l, &q), -1);
	assert_int_equal(l->ctx.inst[0].n.hits, 1);

	/* another resolver has its own cache and its own address */
	ask(l, l->client, "127.0.0.12", "www.lab.test.", 103);
	assert_int_equal(upstream_query(l, &q), 0);
	assert_string_equal(from_addr(&q), "127.0.0.12");
	upstream_answer(l, &q, 60, KNOT_RCODE_NOERROR, 0);
	assert_int_equal(reply(l, l->client, &ttl, &id), KNOT_RCODE_NOERROR);
	assert_int_equal(ttl, 60);

	/* at exactly the TTL, r1 asks again */
	fake_now += 40 * S;
	ask(l, l->client, "127.0.0.11", "www.lab.test.", 104);
	assert_int_equal(upstream_query(l, &q), 0);
	assert_string_equal(from_addr(&q), "127.0.0.11");
	upstream_answer(l, &q, 60, KNOT_RCODE_NOERROR, 0);
	assert_int_equal(reply(l, l->client, &ttl, &id), KNOT_RCODE_NOERROR);
	assert_int_equal(ttl, 60);
	assert_int_equal(l->ctx.inst[0].n.upstream_queries, 2);
	assert_int_equal(l->ctx.inst[0].n.hits, 1);
	assert_int_equal(l->ctx.inst[0].n.misses, 2);
}

static void test_coalesced_misses(void **state)
{
	struct lab *l = *state;
	int other = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0), ttl;
	struct upq q, q2;
	uint16_t id;

	ask(l, l->client, "127.0.0.11", "shared.lab.test.", 201);
	ask(l, other, "127.0.0.11", "shared.lab.test.", 202);
	assert_int_equal(upstream_query(l, &q), 0);
	assert_int_equal(upstream_query(l, &q2), -1); /* one query for both */
	upstream_answer(l, &q, 30, KNOT_RCODE_NOERROR, 0);
	assert_int_equal(reply(l, l->client, &ttl, &id), KNOT_RCODE_NOERROR);
	assert_int_equal(id, 201);
	assert_int_equal(reply(l, other, &ttl, &id), KNOT_RCODE_NOERROR);
	assert_int_equal(id, 202);
	assert_int_equal(l->ctx.inst[0].n.coalesced, 1);
	close(other);
}

/* time_out: lets the attempt in flight time out. */
static void time_out(struct lab *l)
{
	fake_now += l->conf.timeout_ns;
	rsv_ctx_tick(&l->ctx);
}

static void test_retries_then_stale_or_servfail(void **state)
{
	struct lab *l = *state;
	struct upq q, q2;
	uint16_t id;
	int ttl;

	/* r2 serves stale, r1 does not; both cache a name */
	for (int i = 0; i < 2; i++) {
		ask(l, l->client, i ? "127.0.0.12" : "127.0.0.11", "old.lab.test.", 300);
		assert_int_equal(upstream_query(l, &q), 0);
		upstream_answer(l, &q, 10, KNOT_RCODE_NOERROR, 0);
		assert_int_equal(reply(l, l->client, &ttl, &id), KNOT_RCODE_NOERROR);
	}
	fake_now += 11 * S;

	/* the upstream is silent: three attempts, the same ID */
	ask(l, l->client, "127.0.0.12", "old.lab.test.", 301);
	assert_int_equal(upstream_query(l, &q), 0);
	time_out(l);
	assert_int_equal(upstream_query(l, &q2), 0);
	assert_int_equal(q2.id, q.id);
	time_out(l);
	assert_int_equal(upstream_query(l, &q2), 0);
	assert_int_equal(reply(l, l->client, &ttl, &id), -1); /* still waiting */
	time_out(l);
	assert_int_equal(reply(l, l->client, &ttl, &id), KNOT_RCODE_NOERROR);
	assert_int_equal(id, 301);
	assert_int_equal(ttl, 30); /* stale_ttl */
	assert_int_equal(l->ctx.inst[1].n.stale_answers, 1);
	assert_int_equal(l->ctx.inst[1].n.upstream_timeouts, 3);

	/* within stale_recheck: stale at once, nothing upstream */
	fake_now += 5 * S;
	ask(l, l->client, "127.0.0.12", "old.lab.test.", 302);
	assert_int_equal(reply(l, l->client, &ttl, &id), KNOT_RCODE_NOERROR);
	assert_int_equal(ttl, 30);
	assert_int_equal(upstream_query(l, &q), -1);

	/* r1: SERVFAIL after its attempts */
	ask(l, l->client, "127.0.0.11", "old.lab.test.", 303);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(upstream_query(l, &q), 0);
		time_out(l);
	}
	assert_int_equal(reply(l, l->client, &ttl, &id), KNOT_RCODE_SERVFAIL);
	assert_int_equal(l->ctx.inst[0].n.servfail, 1);

	/* a SERVFAIL from upstream is a failed refresh too (one upstream: at
	 * once, no retry) */
	fake_now += 20 * S;
	ask(l, l->client, "127.0.0.12", "old.lab.test.", 304);
	assert_int_equal(upstream_query(l, &q), 0);
	upstream_answer(l, &q, -1, KNOT_RCODE_SERVFAIL, 0);
	assert_int_equal(reply(l, l->client, &ttl, &id), KNOT_RCODE_NOERROR);
	assert_int_equal(ttl, 30);
	assert_int_equal(upstream_query(l, &q2), -1);
}

static void test_negative_answer(void **state)
{
	struct lab *l = *state;
	uint64_t hits = l->ctx.inst[0].n.hits;
	struct upq q;
	uint16_t id;
	int ttl;

	/* NXDOMAIN without a SOA is passed on but not cached (RFC 2308 5) */
	ask(l, l->client, "127.0.0.11", "nope.lab.test.", 401);
	assert_int_equal(upstream_query(l, &q), 0);
	upstream_answer(l, &q, -1, KNOT_RCODE_NXDOMAIN, 0);
	assert_int_equal(reply(l, l->client, &ttl, &id), KNOT_RCODE_NXDOMAIN);
	ask(l, l->client, "127.0.0.11", "nope.lab.test.", 402);
	assert_int_equal(upstream_query(l, &q), 0);
	upstream_answer(l, &q, -1, KNOT_RCODE_NXDOMAIN, 0);
	assert_int_equal(reply(l, l->client, &ttl, &id), KNOT_RCODE_NXDOMAIN);
	assert_int_equal(l->ctx.inst[0].n.hits, hits);
}

static void test_prefetch(void **state)
{
	struct lab *l = *state;
	struct upq q;
	uint16_t id;
	int ttl;

	ask(l, l->client, "127.0.0.13", "pre.lab.test.", 501);
	assert_int_equal(upstream_query(l, &q), 0);
	upstream_answer(l, &q, 100, KNOT_RCODE_NOERROR, 0);
	assert_int_equal(reply(l, l->client, &ttl, &id), KNOT_RCODE_NOERROR);
	/* 49 s left of 100: under 50%, answered at once and refreshed */
	fake_now += 51 * S;
	ask(l, l->client, "127.0.0.13", "pre.lab.test.", 502);
	assert_int_equal(reply(l, l->client, &ttl, &id), KNOT_RCODE_NOERROR);
	assert_int_equal(ttl, 49);
	assert_int_equal(upstream_query(l, &q), 0);
	assert_string_equal(from_addr(&q), "127.0.0.13");
	upstream_answer(l, &q, 100, KNOT_RCODE_NOERROR, 0);
	pump(l);
	assert_int_equal(l->ctx.inst[2].n.prefetches, 1);
	/* the refreshed entry: the full TTL again */
	fake_now += S;
	ask(l, l->client, "127.0.0.13", "pre.lab.test.", 503);
	assert_int_equal(reply(l, l->client, &ttl, &id), KNOT_RCODE_NOERROR);
	assert_int_equal(ttl, 99);
	assert_int_equal(upstream_query(l, &q), -1);
}

static void test_tc_retried_over_tcp(void **state)
{
	struct lab *l = *state;
	struct sockaddr_in peer;
	socklen_t plen = sizeof(peer);
	uint8_t buf[600], out[512];
	struct upq q;
	uint16_t id;
	size_t len;
	ssize_t n;
	int fd = -1, ttl;

	ask(l, l->client, "127.0.0.12", "big.lab.test.", 601);
	assert_int_equal(upstream_query(l, &q), 0);
	upstream_answer(l, &q, -1, KNOT_RCODE_NOERROR, 1);
	for (int i = 0; i < 50 && fd < 0; i++) {
		pump(l);
		fd = accept(l->up_tcp, (struct sockaddr *)&peer, &plen);
	}
	assert_true(fd >= 0);
	assert_string_equal(inet_ntoa(peer.sin_addr), "127.0.0.12");
	for (int i = 0; i < 50; i++) {
		pump(l);
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n > 0)
			break;
	}
	assert_true(n > 2);
	assert_int_equal((size_t)(buf[0] << 8 | buf[1]), (size_t)n - 2);
	memcpy(q.wire, buf + 2, (size_t)n - 2);
	q.len = (size_t)n - 2;
	assert_int_equal(knot_wire_get_id(q.wire), q.id);
	len = answer_wire(&q, 77, KNOT_RCODE_NOERROR, 0, out + 2);
	out[0] = (uint8_t)(len >> 8);
	out[1] = (uint8_t)len;
	assert_int_equal(send(fd, out, len + 2, 0), (ssize_t)len + 2);
	assert_int_equal(reply(l, l->client, &ttl, &id), KNOT_RCODE_NOERROR);
	assert_int_equal(ttl, 77);
	close(fd);
}

/* tcp_query: one query for name with id, with its length, on fd. */
static void tcp_query(int fd, const char *name, uint16_t id)
{
	uint8_t q[512];
	knot_dname_storage_t dn;
	knot_pkt_t *p = knot_pkt_new(q + 2, sizeof(q) - 2, NULL);

	knot_pkt_clear(p);
	knot_wire_set_id(p->wire, id);
	knot_dname_from_str(dn, name, sizeof(dn));
	knot_pkt_put_question(p, dn, KNOT_CLASS_IN, KNOT_RRTYPE_A);
	q[0] = 0;
	q[1] = (uint8_t)p->size;
	assert_int_equal(send(fd, q, p->size + 2, 0), (ssize_t)p->size + 2);
	knot_pkt_free(p);
}

/* tcp_reply: the next answer on fd: its id; its first TTL in *ttl. */
static uint16_t tcp_reply(struct lab *l, int fd, int *ttl)
{
	uint8_t buf[1024];
	size_t got = 0, len;
	knot_pkt_t *p;
	uint16_t id;
	ssize_t n;

	for (int i = 0; i < 50; i++) {
		pump(l);
		n = recv(fd, buf + got,
			 got < 2 ? 2 - got : 2 + (size_t)(buf[0] << 8 | buf[1]) - got,
			 MSG_DONTWAIT);
		if (n > 0)
			got += (size_t)n;
		if (got >= 2 && got == 2 + (size_t)(buf[0] << 8 | buf[1]))
			break;
	}
	assert_true(got > 2);
	len = (size_t)(buf[0] << 8 | buf[1]);
	assert_int_equal(got, len + 2);
	p = rsv_msg_parse(buf + 2, len);
	assert_non_null(p);
	assert_int_equal(knot_wire_get_rcode(p->wire), KNOT_RCODE_NOERROR);
	assert_int_equal(knot_pkt_section(p, KNOT_ANSWER)->count, 1);
	*ttl = (int)knot_pkt_rr(knot_pkt_section(p, KNOT_ANSWER), 0)->ttl;
	id = knot_wire_get_id(p->wire);
	knot_pkt_free(p);
	return id;
}

static void test_tcp_client(void **state)
{
	struct lab *l = *state;
	struct sockaddr_in to = sin_of("127.0.0.11", l->port);
	int fd = socket(AF_INET, SOCK_STREAM, 0), ttl;
	struct upq q;

	assert_int_equal(connect(fd, (struct sockaddr *)&to, sizeof(to)), 0);
	/* a miss: answered over the connection when the upstream answers */
	tcp_query(fd, "tcp.lab.test.", 701);
	assert_int_equal(upstream_query(l, &q), 0);
	upstream_answer(l, &q, 90, KNOT_RCODE_NOERROR, 0);
	assert_int_equal(tcp_reply(l, fd, &ttl), 701);
	assert_int_equal(ttl, 90);
	/* then a hit on the same connection */
	fake_now += 10 * S;
	tcp_query(fd, "tcp.lab.test.", 702);
	assert_int_equal(tcp_reply(l, fd, &ttl), 702);
	assert_int_equal(ttl, 80);
	close(fd);
}

static void test_many_time_out_together(void **state)
{
	struct lab *l = *state;
	const char *names[] = {"t1.lab.test.", "t2.lab.test.", "t3.lab.test."};
	uint64_t servfail = l->ctx.inst[0].n.servfail;
	struct upq q;
	uint16_t id;
	int ttl;

	/* three queries in flight at once, on two resolvers; the first to
	 * fail must not take the others with it */
	for (int i = 0; i < 3; i++)
		ask(l, l->client, i == 2 ? "127.0.0.13" : "127.0.0.11", names[i],
		    (uint16_t)(800 + i));
	for (int attempt = 0; attempt < 3; attempt++) {
		for (int i = 0; i < 3; i++)
			assert_int_equal(upstream_query(l, &q), 0);
		time_out(l);
	}
	for (int i = 0; i < 3; i++) {
		assert_int_equal(reply(l, l->client, &ttl, &id), KNOT_RCODE_SERVFAIL);
		assert_true(id >= 800 && id < 803);
	}
	assert_int_equal(l->ctx.inst[0].n.servfail, servfail + 2);
	assert_null(l->ctx.up.q_head);
	assert_int_equal(l->ctx.up.count, 0);
}

/* RFC 6891 6.2.5: an EDNS payload below 512 is 512; a payload of 1 with no
 * option, which libknot alone refuses, was answered FORMERR */
static void test_edns_small_payload(void **state)
{
	static const uint16_t sizes[] = {0, 1, 2, 100, 511};
	struct lab *l = *state;
	struct upq q;
	uint16_t id;
	int ttl;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		ask_edns(l, "small.lab.test.", (uint16_t)(900 + i), sizes[i]);
		if (i == 0) {
			assert_int_equal(upstream_query(l, &q), 0);
			upstream_answer(l, &q, 60, KNOT_RCODE_NOERROR, 0);
		}
		assert_int_equal(reply(l, l->client, &ttl, &id), KNOT_RCODE_NOERROR);
		assert_int_equal(id, 900 + i);
		assert_true(ttl > 0);
	}
}

static void test_csv(void **state)
{
	struct lab *l = *state;

	fflush(l->ctx.stats.csv);
	/* one line per attempt: answered, timed out, truncated then TCP */
	assert_non_null(strstr(l->csv, ",r1,127.0.0.11:"));
	assert_non_null(strstr(l->csv, ",udp,"));
	assert_non_null(strstr(l->csv, ",www.lab.test.,A,miss,1,answer,NOERROR,"));
	/* forwarding: no zone; the question asked is the client's */
	assert_non_null(strstr(l->csv, ",old.lab.test.,A,miss,1,timeout,,0,,old.lab.test.,A\n"));
	assert_non_null(strstr(l->csv, ",old.lab.test.,A,miss,3,timeout,,0,,old.lab.test.,A\n"));
	assert_non_null(strstr(l->csv, ",old.lab.test.,A,miss,1,answer,SERVFAIL,"));
	assert_non_null(strstr(l->csv, ",pre.lab.test.,A,prefetch,1,answer,NOERROR,"));
	assert_non_null(strstr(l->csv, ",big.lab.test.,A,miss,1,truncated,NOERROR,"));
	assert_non_null(strstr(l->csv, ",tcp,"));
	assert_non_null(strstr(l->csv, ",big.lab.test.,A,miss,2,answer,NOERROR,"));
}

int main(void)
{
	/* in this order: each test leaves the caches to the next */
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_miss_hit_expiry),
	    cmocka_unit_test(test_coalesced_misses),
	    cmocka_unit_test(test_retries_then_stale_or_servfail),
	    cmocka_unit_test(test_negative_answer),
	    cmocka_unit_test(test_many_time_out_together),
	    cmocka_unit_test(test_prefetch),
	    cmocka_unit_test(test_tc_retried_over_tcp),
	    cmocka_unit_test(test_tcp_client),
	    cmocka_unit_test(test_edns_small_payload),
	    cmocka_unit_test(test_csv),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
