/*
 * resolverd over IPv6 (docs/resolverd.md, "IPv6"), live: resolvers with an
 * IPv6 address beside their IPv4 one, in a network namespace of the test's
 * own with the lab's addresses on lo (tests/unit/test_netns.h: root, else
 * skipped), on a fake clock. The test plays the clients and the
 * authoritative servers (fakes on ADDR:53, their answers built with
 * libknot) and pumps the resolvers' loop itself.
 *
 * Checked: a query over IPv6 answered over IPv6 from the resolver's IPv6
 * address, then from the same cache over IPv4 and over IPv6; the query to
 * an IPv6 upstream leaving from the resolver's IPv6 address, and after TC
 * over TCP from it; a TCP client over IPv6; the CSV's source and upstream
 * columns. Iterating with transport = 6: the IPv6 root hint, the AAAA glue
 * followed (a server on the A glue's address hears nothing), an NS name
 * without glue resolved for its AAAA. ECS over IPv6: an IPv6 client passed
 * on as FAMILY 2 /56 (the option decoded from the query the server gets),
 * the answer cached for its /56 (a client of the same /56 hits, one of
 * another /56 misses), a client's own IPv6 option honoured and echoed, an
 * IPv4 client's /24 kept apart. IPv6 alone (no address): no IPv4 socket
 * (port 53 of 0.0.0.0 free), two caches each at its IPv6 address asking
 * from it, over UDP and after TC over TCP, a TCP client, the CSV and
 * resolver_stats naming them by their IPv6 addresses; and the same cache
 * walking the tree over IPv6.
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
#include "test_netns.h"
#include "timeutil.h"

#define S NSEC_PER_SEC
#define SRV_MAX 6
#define PUMPS 200 /* rounds of the loop a test waits at most for a packet (5 ms each) */

static int64_t fake_now = 5000 * S;

static int64_t fake_clock(void)
{
	return fake_now;
}

/* a fake authoritative server on ADDR:53, UDP and TCP */
struct fsrv {
	const char *addr;
	int udp, tcp, conn; /* conn: the TCP connection being read, or -1 */
	/* its answer to q in r (r a response to q already) */
	void (*answer)(const knot_pkt_t *q, knot_pkt_t *r);
	int tc;		   /* the next answer over UDP is truncated, and empty */
	char log[2048];	   /* "NAME TYPE[ ecs ADDR/SOURCE] from ADDR[ tcp]; " per query */
	uint8_t last[512]; /* the last query */
	size_t last_len;
	uint8_t in[514]; /* TCP: what was read of the query */
	size_t in_len;
};

static struct lab {
	int up; /* set up: to tear down */
	struct rsv_conf conf;
	struct rsv_ctx ctx;
	struct loop *loop;
	struct fsrv srv[SRV_MAX];
	int nsrv;
	int fds[16]; /* the clients' sockets */
	int nfd;
	char *csv;
	size_t csv_len;
} L;

/* the addresses of the test's namespace: the resolvers', the servers',
 * the clients' */
static const char *const lab_addrs[] = {
    "198.18.0.11/32",	     "198.18.0.12/32",	     "198.18.0.2/32",
    "198.18.0.3/32",	     "198.18.9.1/32",	     "2001:2:0:8000::11/128",
    "2001:2:0:8000::12/128", "2001:2::53/128",	     "2001:2::1/128",
    "2001:2::2/128",	     "2001:2::3/128",	     "2001:2:0:9000::1/128",
    "2001:2:0:90ff::2/128",  "2001:2:0:9100::3/128",
};

/*
 * Sockets.
 */

static socklen_t sa_of(const char *a, uint16_t port, struct sockaddr_storage *ss)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (strchr(a, ':')) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		assert_int_equal(inet_pton(AF_INET6, a, &s6->sin6_addr), 1);
		return sizeof(*s6);
	}
	s4->sin_family = AF_INET;
	s4->sin_port = htons(port);
	assert_int_equal(inet_pton(AF_INET, a, &s4->sin_addr), 1);
	return sizeof(*s4);
}

/* bound: a socket of type on a:port */
static int bound(int type, const char *a, uint16_t port)
{
	struct sockaddr_storage ss;
	socklen_t len = sa_of(a, port, &ss);
	int fd = socket(ss.ss_family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), on = 1;

	assert_true(fd >= 0);
	if (ss.ss_family == AF_INET6)
		assert_int_equal(setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof(on)), 0);
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	if (bind(fd, (struct sockaddr *)&ss, len) == -1)
		fail_msg("bind %s:%u: %s", a, port, strerror(errno));
	if (type == SOCK_STREAM)
		assert_int_equal(listen(fd, 8), 0);
	return fd;
}

/* sa_text: "ADDR" of a socket address */
static const char *sa_text(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	if (ss->ss_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)ss)->sin6_addr, buf, len);
	else
		inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr, buf, len);
	return buf;
}

/* lo_addr: cidr on lo */
static void lo_addr(struct nl_sock *sk, const char *cidr)
{
	struct rtnl_addr *a = rtnl_addr_alloc();
	struct nl_addr *local;
	int err;

	assert_non_null(a);
	assert_int_equal(nl_addr_parse(cidr, AF_UNSPEC, &local), 0);
	rtnl_addr_set_ifindex(a, 1);
	rtnl_addr_set_flags(a, IFA_F_NODAD);
	assert_int_equal(rtnl_addr_set_local(a, local), 0);
	if ((err = rtnl_addr_add(sk, a, 0)) < 0)
		fail_msg("%s on lo: %s", cidr, nl_geterror(err));
	nl_addr_put(local);
	rtnl_addr_put(a);
}

/* lo_ready: waits, a bounded while, until a datagram each of the lab's
 * addresses sends itself arrives, sent again every millisecond: the
 * kernel discards the first packets to an IPv6 address just added, for a
 * moment after the netlink request has returned, even with IFA_F_NODAD
 * (counted as Ip6OutNoRoutes, though sendto() succeeds). */
static void lo_ready(void)
{
	for (size_t i = 0; i < sizeof(lab_addrs) / sizeof(lab_addrs[0]); i++) {
		char a[INET6_ADDRSTRLEN], b[1];
		struct sockaddr_storage ss;
		socklen_t len;
		int rx, tx, tries = 0;
		struct pollfd p;

		snprintf(a, sizeof(a), "%.*s", (int)strcspn(lab_addrs[i], "/"), lab_addrs[i]);
		len = sa_of(a, 0, &ss);
		rx = bound(SOCK_DGRAM, a, 0);
		tx = bound(SOCK_DGRAM, a, 0);
		assert_int_equal(getsockname(rx, (struct sockaddr *)&ss, &len), 0);
		p = (struct pollfd){.fd = rx, .events = POLLIN};
		do
			assert_int_equal(sendto(tx, "p", 1, 0, (struct sockaddr *)&ss, len), 1);
		while (poll(&p, 1, 1) == 0 && ++tries < 1000);
		if (recv(rx, b, sizeof(b), MSG_DONTWAIT) != 1)
			fail_msg("%s: nothing arrives after 1 s", a);
		close(rx);
		close(tx);
	}
}

/*
 * Messages.
 */

static void appendf(char *buf, size_t max, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void appendf(char *buf, size_t max, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	va_start(ap, fmt);
	assert_true((size_t)vsnprintf(buf + n, max - n, fmt, ap) < max - n);
	va_end(ap);
}

/* ecs_text: " ecs ADDR/SOURCE[/SCOPE]" of p's ECS option, decoded from its
 * bytes (FAMILY, SOURCE, SCOPE, ADDRESS), or "" */
static void ecs_text(const knot_pkt_t *p, int scope, char *out, size_t max)
{
	uint8_t *opt, a[16] = {0};
	const uint8_t *d;
	uint16_t len;
	char t[INET6_ADDRSTRLEN];

	out[0] = 0;
	if (!knot_pkt_has_edns(p) ||
	    (opt = knot_pkt_edns_option(p, KNOT_EDNS_OPTION_CLIENT_SUBNET)) == NULL)
		return;
	d = knot_edns_opt_get_data(opt);
	len = knot_edns_opt_get_length(opt);
	assert_true(len >= 4 && len - 4 == (d[2] + 7) / 8 && len - 4 <= 16);
	memcpy(a, d + 4, len - 4u);
	inet_ntop(d[1] == 2 ? AF_INET6 : AF_INET, a, t, sizeof(t));
	appendf(out, max, " ecs %s/%u", t, d[2]);
	if (scope)
		appendf(out, max, "/%u", d[3]);
}

/* answer_text: "RCODE an: NAME TTL TYPE DATA, ...[ ecs ADDR/SOURCE/SCOPE]" */
static void answer_text(const uint8_t *wire, size_t len, char *out, size_t max)
{
	knot_pkt_t *p = rsv_msg_parse(wire, len);
	const knot_pktsection_t *an;
	char rc[16], e[96];

	assert_non_null(p);
	out[0] = 0;
	appendf(out, max, "%s", rsv_msg_rcode_name(knot_pkt_ext_rcode(p), rc, sizeof(rc)));
	an = knot_pkt_section(p, KNOT_ANSWER);
	for (uint16_t i = 0; i < an->count; i++) {
		const knot_rrset_t *rr = knot_pkt_rr(an, i);
		char owner[KNOT_DNAME_TXT_MAXLEN + 1], type[16], data[INET6_ADDRSTRLEN] = "";

		knot_dname_to_str(owner, rr->owner, sizeof(owner));
		knot_rrtype_to_string(rr->type, type, sizeof(type));
		if (rr->type == KNOT_RRTYPE_A || rr->type == KNOT_RRTYPE_AAAA)
			inet_ntop(rr->type == KNOT_RRTYPE_A ? AF_INET : AF_INET6,
				  rr->rrs.rdata->data, data, sizeof(data));
		appendf(out, max, "%s%s %u %s %s", i ? ", " : " an: ", owner, rr->ttl, type, data);
	}
	ecs_text(p, 1, e, sizeof(e));
	appendf(out, max, "%s", e);
	knot_pkt_free(p);
}

/* put_rr: one record of owner into r's current section: data is an
 * address (A, AAAA) or a name (NS) */
static void put_rr(knot_pkt_t *r, const knot_dname_t *owner, uint16_t type, uint32_t ttl,
		   const char *data)
{
	knot_dname_storage_t target;
	knot_rrset_t *rr = knot_rrset_new(owner, type, KNOT_CLASS_IN, ttl, NULL);
	uint8_t rd[16];

	assert_non_null(rr);
	if (type == KNOT_RRTYPE_NS) {
		assert_non_null(knot_dname_from_str(target, data, sizeof(target)));
		assert_int_equal(
		    knot_rrset_add_rdata(rr, target, (uint16_t)knot_dname_size(target), NULL),
		    KNOT_EOK);
	} else {
		assert_int_equal(inet_pton(type == KNOT_RRTYPE_AAAA ? AF_INET6 : AF_INET, data, rd),
				 1);
		assert_int_equal(
		    knot_rrset_add_rdata(rr, rd, type == KNOT_RRTYPE_AAAA ? 16 : 4, NULL),
		    KNOT_EOK);
	}
	assert_int_equal(knot_pkt_put(r, KNOT_COMPR_HINT_NONE, rr, KNOT_PF_FREE), KNOT_EOK);
	free(rr);
}

static void put(knot_pkt_t *r, const char *owner, uint16_t type, uint32_t ttl, const char *data)
{
	knot_dname_storage_t dn;

	assert_non_null(knot_dname_from_str(dn, owner, sizeof(dn)));
	put_rr(r, dn, type, ttl, data);
}

static int is(const knot_pkt_t *q, const char *name, uint16_t type)
{
	knot_dname_storage_t dn;

	assert_non_null(knot_dname_from_str(dn, name, sizeof(dn)));
	knot_dname_to_lower(dn);
	return knot_dname_is_equal(knot_pkt_qname(q), dn) && knot_pkt_qtype(q) == type;
}

static int under(const knot_pkt_t *q, const char *zone)
{
	char name[KNOT_DNAME_TXT_MAXLEN + 1];
	size_t n = strlen(zone), l;

	knot_dname_to_str(name, knot_pkt_qname(q), sizeof(name));
	l = strlen(name);
	return l >= n && strcmp(name + l - n, zone) == 0;
}

/* echo_ecs: q's ECS option back in r with the scope a geolocating server
 * gives: /24 for IPv4, /56 for IPv6 */
static void echo_ecs(const knot_pkt_t *q, knot_pkt_t *r)
{
	uint8_t *opt, o[20];
	uint16_t len;
	knot_rrset_t rr;

	if (!knot_pkt_has_edns(q) ||
	    (opt = knot_pkt_edns_option(q, KNOT_EDNS_OPTION_CLIENT_SUBNET)) == NULL)
		return;
	len = knot_edns_opt_get_length(opt);
	assert_true(len <= sizeof(o));
	memcpy(o, knot_edns_opt_get_data(opt), len);
	o[3] = o[1] == 2 ? 56 : 24;
	assert_int_equal(knot_edns_init(&rr, 1232, 0, 0, NULL), KNOT_EOK);
	assert_int_equal(knot_edns_add_option(&rr, KNOT_EDNS_OPTION_CLIENT_SUBNET, len, o, NULL),
			 KNOT_EOK);
	assert_int_equal(knot_pkt_begin(r, KNOT_ADDITIONAL), KNOT_EOK);
	assert_int_equal(knot_pkt_put(r, KNOT_COMPR_HINT_NONE, &rr, KNOT_PF_FREE), KNOT_EOK);
}

/* the forwarding test's upstream: every name has an address, TTL 60 */
static void lab_test_answer(const knot_pkt_t *q, knot_pkt_t *r)
{
	knot_wire_set_aa(r->wire);
	assert_int_equal(knot_pkt_begin(r, KNOT_ANSWER), KNOT_EOK);
	put_rr(r, knot_pkt_qname(q), KNOT_RRTYPE_A, 60, "198.19.0.1");
}

/* the root: example. with glue of both families, other. on a server of
 * example. without glue */
static void root_answer(const knot_pkt_t *q, knot_pkt_t *r)
{
	assert_int_equal(knot_pkt_begin(r, KNOT_AUTHORITY), KNOT_EOK);
	if (under(q, "example.")) {
		put(r, "example.", KNOT_RRTYPE_NS, 86400, "ns1.example.");
		assert_int_equal(knot_pkt_begin(r, KNOT_ADDITIONAL), KNOT_EOK);
		put(r, "ns1.example.", KNOT_RRTYPE_A, 86400, "198.18.0.2");
		put(r, "ns1.example.", KNOT_RRTYPE_AAAA, 86400, "2001:2::2");
	} else if (under(q, "other.")) {
		put(r, "other.", KNOT_RRTYPE_NS, 86400, "ns.example.");
	} else {
		knot_wire_set_rcode(r->wire, KNOT_RCODE_REFUSED);
	}
}

/* example.: www (geolocated: ECS echoed), and ns, other.'s server */
static void example_answer(const knot_pkt_t *q, knot_pkt_t *r)
{
	knot_wire_set_aa(r->wire);
	assert_int_equal(knot_pkt_begin(r, KNOT_ANSWER), KNOT_EOK);
	if (is(q, "www.example.", KNOT_RRTYPE_A)) {
		put(r, "www.example.", KNOT_RRTYPE_A, 300, "198.19.0.1");
		echo_ecs(q, r);
	} else if (is(q, "ns.example.", KNOT_RRTYPE_AAAA)) {
		put(r, "ns.example.", KNOT_RRTYPE_AAAA, 3600, "2001:2::3");
	} else if (is(q, "ns.example.", KNOT_RRTYPE_A)) {
		put(r, "ns.example.", KNOT_RRTYPE_A, 3600, "198.18.0.3");
	} else {
		knot_wire_set_rcode(r->wire, KNOT_RCODE_REFUSED);
	}
}

static void other_answer(const knot_pkt_t *q, knot_pkt_t *r)
{
	knot_wire_set_aa(r->wire);
	assert_int_equal(knot_pkt_begin(r, KNOT_ANSWER), KNOT_EOK);
	if (is(q, "host.other.", KNOT_RRTYPE_A))
		put(r, "host.other.", KNOT_RRTYPE_A, 300, "198.19.0.3");
	else
		knot_wire_set_rcode(r->wire, KNOT_RCODE_REFUSED);
}

/*
 * The fake servers.
 */

static struct fsrv *server(const char *addr, void (*answer)(const knot_pkt_t *, knot_pkt_t *))
{
	struct fsrv *s = &L.srv[L.nsrv++];

	assert_true(L.nsrv <= SRV_MAX);
	memset(s, 0, sizeof(*s));
	s->addr = addr;
	s->answer = answer;
	s->udp = bound(SOCK_DGRAM, addr, 53);
	s->tcp = bound(SOCK_STREAM, addr, 53);
	s->conn = -1;
	return s;
}

/* respond: s's answer to the query q/qlen from `from` in out; its length */
static size_t respond(struct fsrv *s, const uint8_t *q, size_t qlen,
		      const struct sockaddr_storage *from, int tcp, uint8_t *out, size_t max)
{
	knot_pkt_t *qp = rsv_msg_parse(q, qlen), *r;
	char name[KNOT_DNAME_TXT_MAXLEN + 1], type[16], ecs[96], src[INET6_ADDRSTRLEN];
	size_t len;

	assert_non_null(qp);
	assert_true(qlen <= sizeof(s->last));
	memcpy(s->last, q, qlen);
	s->last_len = qlen;
	knot_dname_to_str(name, knot_pkt_qname(qp), sizeof(name));
	knot_rrtype_to_string(knot_pkt_qtype(qp), type, sizeof(type));
	ecs_text(qp, 0, ecs, sizeof(ecs));
	appendf(s->log, sizeof(s->log), "%s %s%s from %s%s; ", name, type, ecs,
		sa_text(from, src, sizeof(src)), tcp ? " tcp" : "");
	r = knot_pkt_new(out, (uint16_t)max, NULL);
	assert_non_null(r);
	assert_int_equal(knot_pkt_init_response(r, qp), KNOT_EOK);
	if (s->tc && !tcp) {
		knot_wire_set_tc(r->wire);
		s->tc = 0;
	} else {
		s->answer(qp, r);
	}
	len = r->size;
	knot_pkt_free(r);
	knot_pkt_free(qp);
	return len;
}

/* serve: s answers what it was sent, over UDP and TCP */
static void serve(struct fsrv *s)
{
	uint8_t q[512], a[4096];
	struct sockaddr_storage from;
	socklen_t fl = sizeof(from);
	ssize_t n;
	size_t len;

	while ((n = recvfrom(s->udp, q, sizeof(q), MSG_DONTWAIT, (struct sockaddr *)&from, &fl)) >
	       0) {
		len = respond(s, q, (size_t)n, &from, 0, a, sizeof(a));
		assert_int_equal(sendto(s->udp, a, len, 0, (struct sockaddr *)&from, fl),
				 (ssize_t)len);
		fl = sizeof(from);
	}
	if (s->conn == -1) {
		s->conn = accept4(s->tcp, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		s->in_len = 0;
	}
	if (s->conn == -1)
		return;
	n = recv(s->conn, s->in + s->in_len, sizeof(s->in) - s->in_len, MSG_DONTWAIT);
	if (n > 0)
		s->in_len += (size_t)n;
	if (s->in_len < 2 || s->in_len < 2 + (size_t)(s->in[0] << 8 | s->in[1]))
		return;
	fl = sizeof(from);
	assert_int_equal(getpeername(s->conn, (struct sockaddr *)&from, &fl), 0);
	len = respond(s, s->in + 2, s->in_len - 2, &from, 1, a + 2, sizeof(a) - 2);
	a[0] = (uint8_t)(len >> 8);
	a[1] = (uint8_t)len;
	assert_int_equal(send(s->conn, a, len + 2, 0), (ssize_t)len + 2);
	close(s->conn);
	s->conn = -1;
}

/* pump: a round of the resolvers' loop, then of the servers */
static void pump(void)
{
	loop_once(L.loop, 5);
	for (int i = 0; i < L.nsrv; i++)
		serve(&L.srv[i]);
}

/*
 * The lab: addresses, servers, resolverd from its configuration text.
 */

static void lab_up(const char *config)
{
	struct nl_sock *sk = test_netns_sock();
	FILE *f = fmemopen((void *)config, strlen(config), "r");

	for (size_t i = 0; i < sizeof(lab_addrs) / sizeof(lab_addrs[0]); i++)
		lo_addr(sk, lab_addrs[i]);
	nl_socket_free(sk);
	lo_ready();
	assert_non_null(f);
	assert_int_equal(rsv_conf_load_stream(&L.conf, f, "r.ini", stderr), 0);
	fclose(f);
	L.ctx.clock = fake_clock;
	L.ctx.stats.ev = event_open("/dev/null", "test", "resolverd");
	L.ctx.stats.csv = open_memstream(&L.csv, &L.csv_len);
	if ((L.loop = loop_new()) == NULL || rsv_ctx_open(&L.ctx, &L.conf, 1024, L.loop) == -1)
		fail_msg("rsv_ctx_open failed");
	L.up = 1;
}

static int lab_teardown(void **state)
{
	(void)state;
	if (L.up) {
		rsv_ctx_close(&L.ctx);
		loop_free(L.loop);
		fclose(L.ctx.stats.csv);
		event_close(L.ctx.stats.ev);
		free(L.csv);
		rsv_conf_free(&L.conf);
		for (int i = 0; i < L.nsrv; i++) {
			close(L.srv[i].udp);
			close(L.srv[i].tcp);
			if (L.srv[i].conn != -1)
				close(L.srv[i].conn);
		}
		for (int i = 0; i < L.nfd; i++)
			close(L.fds[i]);
	}
	memset(&L, 0, sizeof(L));
	return 0;
}

/* csv: what the resolvers wrote to the CSV so far */
static const char *csv(void)
{
	fflush(L.ctx.stats.csv);
	return L.csv;
}

/*
 * The clients.
 */

/* client: a UDP socket on addr */
static int client(const char *addr)
{
	int fd = bound(SOCK_DGRAM, addr, 0);

	assert_true(L.nfd < (int)(sizeof(L.fds) / sizeof(L.fds[0])));
	L.fds[L.nfd++] = fd;
	return fd;
}

/* query: a query for name/type with id, an OPT with the ECS option of
 * family/source/addr if addr is not NULL; its length */
static size_t query(const char *name, uint16_t type, uint16_t id, const char *addr, uint8_t source,
		    uint8_t *out, size_t max)
{
	knot_dname_storage_t dn;
	knot_pkt_t *p = knot_pkt_new(out, (uint16_t)max, NULL);
	size_t len;

	assert_non_null(p);
	knot_pkt_clear(p);
	knot_wire_set_id(p->wire, id);
	knot_wire_set_rd(p->wire);
	assert_non_null(knot_dname_from_str(dn, name, sizeof(dn)));
	assert_int_equal(knot_pkt_put_question(p, dn, KNOT_CLASS_IN, type), KNOT_EOK);
	if (addr != NULL) {
		uint8_t o[20] = {0, strchr(addr, ':') ? 2 : 1, source, 0};
		knot_rrset_t opt;

		assert_int_equal(inet_pton(o[1] == 2 ? AF_INET6 : AF_INET, addr, o + 4), 1);
		assert_int_equal(knot_edns_init(&opt, 1232, 0, 0, NULL), KNOT_EOK);
		assert_int_equal(knot_edns_add_option(&opt, KNOT_EDNS_OPTION_CLIENT_SUBNET,
						      (uint16_t)(4 + (source + 7) / 8), o, NULL),
				 KNOT_EOK);
		assert_int_equal(knot_pkt_begin(p, KNOT_ADDITIONAL), KNOT_EOK);
		assert_int_equal(knot_pkt_put(p, KNOT_COMPR_HINT_NONE, &opt, KNOT_PF_FREE),
				 KNOT_EOK);
	}
	len = p->size;
	knot_pkt_free(p);
	return len;
}

/* ask_ecs: the client on fd asks resolver to (an address, port 53) */
static void ask_ecs(int fd, const char *to, const char *name, uint16_t type, uint16_t id,
		    const char *ecs, uint8_t source)
{
	uint8_t q[512];
	size_t len = query(name, type, id, ecs, source, q, sizeof(q));
	struct sockaddr_storage ss;
	socklen_t sl = sa_of(to, 53, &ss);

	assert_int_equal(sendto(fd, q, len, 0, (struct sockaddr *)&ss, sl), (ssize_t)len);
}

static void ask(int fd, const char *to, const char *name, uint16_t id)
{
	ask_ecs(fd, to, name, KNOT_RRTYPE_A, id, NULL, 0);
}

/* reply: the answer the client on fd gets, as answer_text; "from
 * ADDR:PORT" appended. Fails if none comes. */
static const char *reply(int fd, uint16_t id)
{
	static char text[1024];
	uint8_t buf[4096];
	struct sockaddr_storage from;
	socklen_t fl = sizeof(from);
	char a[INET6_ADDRSTRLEN];

	for (int i = 0; i < PUMPS; i++) {
		ssize_t n =
		    recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&from, &fl);

		if (n > 0) {
			assert_int_equal(knot_wire_get_id(buf), id);
			answer_text(buf, (size_t)n, text, sizeof(text));
			if (from.ss_family == AF_INET6)
				appendf(text, sizeof(text), " from [%s]:%u",
					sa_text(&from, a, sizeof(a)),
					ntohs(((struct sockaddr_in6 *)&from)->sin6_port));
			else
				appendf(text, sizeof(text), " from %s:%u",
					sa_text(&from, a, sizeof(a)),
					ntohs(((struct sockaddr_in *)&from)->sin_port));
			return text;
		}
		pump();
	}
	fail_msg("no answer to query %u", id);
	return NULL;
}

/* settle: the loop and the servers run a while: what was asked is asked */
static void settle(void)
{
	for (int i = 0; i < 20; i++)
		pump();
}

/*
 * The tests.
 */

static const char forward_conf[] = "[resolverd]\n"
				   "upstream = [2001:2::53]:53\n"
				   "[resolver r1]\n"
				   "address = 198.18.0.11\n"
				   "address6 = 2001:2:0:8000::11\n"
				   "[resolver r2]\n"
				   "address = 198.18.0.12\n"
				   "address6 = 2001:2:0:8000::12\n";

static void test_forward(void **state)
{
	char servers[RSV_UPSTREAM_MAX * RSV_SA_STRLEN];
	struct fsrv *up;
	int c6, c4;

	(void)state;
	TEST_NETNS_ENTER();
	lab_up(forward_conf);
	up = server("2001:2::53", lab_test_answer);
	c6 = client("2001:2:0:9000::1");
	c4 = client("198.18.9.1");
	/* what resolverd_ready says */
	assert_string_equal(rsv_stats_servers(&L.conf, servers, sizeof(servers)),
			    "[2001:2::53]:53");

	/* over IPv6: asked upstream from r1's IPv6 address, answered from it */
	ask(c6, "2001:2:0:8000::11", "www.lab.test.", 1);
	assert_string_equal(reply(c6, 1), "NOERROR an: www.lab.test. 60 A 198.19.0.1 "
					  "from [2001:2:0:8000::11]:53");
	assert_string_equal(up->log, "www.lab.test. A from 2001:2:0:8000::11; ");
	assert_int_equal(knot_wire_get_rd(up->last), 0);

	/* the same cache over IPv4 and IPv6: hits, nothing upstream */
	fake_now += 20 * S;
	ask(c4, "198.18.0.11", "www.lab.test.", 2);
	assert_string_equal(reply(c4, 2),
			    "NOERROR an: www.lab.test. 40 A 198.19.0.1 from 198.18.0.11:53");
	ask(c6, "2001:2:0:8000::11", "www.lab.test.", 3);
	assert_string_equal(reply(c6, 3), "NOERROR an: www.lab.test. 40 A 198.19.0.1 "
					  "from [2001:2:0:8000::11]:53");
	settle();
	assert_string_equal(up->log, "www.lab.test. A from 2001:2:0:8000::11; ");
	assert_int_equal(L.ctx.inst[0].n.queries, 3);
	assert_int_equal(L.ctx.inst[0].n.hits, 2);
	assert_int_equal(L.ctx.inst[0].n.misses, 1);

	/* r2: its own cache, its own IPv6 address */
	ask(c6, "2001:2:0:8000::12", "www.lab.test.", 4);
	assert_string_equal(reply(c6, 4), "NOERROR an: www.lab.test. 60 A 198.19.0.1 "
					  "from [2001:2:0:8000::12]:53");
	assert_string_equal(up->log, "www.lab.test. A from 2001:2:0:8000::11; "
				     "www.lab.test. A from 2001:2:0:8000::12; ");

	/* TC: asked again over TCP, from r1's IPv6 address */
	up->log[0] = 0;
	up->tc = 1;
	ask(c6, "2001:2:0:8000::11", "big.lab.test.", 5);
	assert_string_equal(reply(c6, 5), "NOERROR an: big.lab.test. 60 A 198.19.0.1 "
					  "from [2001:2:0:8000::11]:53");
	assert_string_equal(up->log, "big.lab.test. A from 2001:2:0:8000::11; "
				     "big.lab.test. A from 2001:2:0:8000::11 tcp; ");

	/* the CSV: the source and upstream columns in IPv6 */
	assert_non_null(strstr(csv(), ",r1,[2001:2:0:8000::11]:"));
	assert_non_null(strstr(csv(), ",[2001:2::53]:53,udp,"));
	assert_non_null(strstr(csv(), ",[2001:2::53]:53,tcp,"));
	assert_non_null(strstr(csv(), ",r2,[2001:2:0:8000::12]:"));
	assert_non_null(strstr(csv(), ",big.lab.test.,A,miss,1,truncated,NOERROR,"));
	assert_non_null(strstr(csv(), ",big.lab.test.,A,miss,2,answer,NOERROR,"));
	assert_null(strstr(csv(), "198.18.0.11:"));
}

/* tcp_ask: name/id over a TCP connection fd; the answer's text */
static const char *tcp_ask(int fd, const char *name, uint16_t id)
{
	static char text[1024];
	uint8_t q[514], buf[1024];
	size_t len = query(name, KNOT_RRTYPE_A, id, NULL, 0, q + 2, sizeof(q) - 2), got = 0;

	q[0] = (uint8_t)(len >> 8);
	q[1] = (uint8_t)len;
	assert_int_equal(send(fd, q, len + 2, 0), (ssize_t)len + 2);
	for (int i = 0; i < PUMPS; i++) {
		ssize_t n;

		pump();
		n = recv(fd, buf + got, sizeof(buf) - got, MSG_DONTWAIT);
		if (n > 0)
			got += (size_t)n;
		if (got >= 2 && got == 2 + (size_t)(buf[0] << 8 | buf[1])) {
			answer_text(buf + 2, got - 2, text, sizeof(text));
			return text;
		}
	}
	fail_msg("no answer over TCP");
	return NULL;
}

static void test_tcp_client(void **state)
{
	struct sockaddr_storage to, src;
	socklen_t tl, sl;
	int fd;

	(void)state;
	TEST_NETNS_ENTER();
	lab_up(forward_conf);
	server("2001:2::53", lab_test_answer);
	fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	L.fds[L.nfd++] = fd;
	sl = sa_of("2001:2:0:9000::1", 0, &src);
	assert_int_equal(bind(fd, (struct sockaddr *)&src, sl), 0);
	tl = sa_of("2001:2:0:8000::11", 53, &to);
	assert_int_equal(connect(fd, (struct sockaddr *)&to, tl), 0);
	/* a miss answered over the connection when the upstream answers,
	 * then a hit */
	assert_string_equal(tcp_ask(fd, "tcp.lab.test.", 7),
			    "NOERROR an: tcp.lab.test. 60 A 198.19.0.1");
	fake_now += 10 * S;
	assert_string_equal(tcp_ask(fd, "tcp.lab.test.", 8),
			    "NOERROR an: tcp.lab.test. 50 A 198.19.0.1");
	assert_string_equal(L.srv[0].log, "tcp.lab.test. A from 2001:2:0:8000::11; ");
}

static const char iterate_conf[] = "[resolverd]\n"
				   "mode = iterate\n"
				   "root = 2001:2::1\n"
				   "transport = 6\n"
				   "[resolver r1]\n"
				   "address = 198.18.0.11\n"
				   "address6 = 2001:2:0:8000::11\n";

static void test_iterate_aaaa_glue(void **state)
{
	struct fsrv *root, *ex, *other, *ex4, *other4;
	int c;

	(void)state;
	TEST_NETNS_ENTER();
	lab_up(iterate_conf);
	root = server("2001:2::1", root_answer);
	ex = server("2001:2::2", example_answer);
	other = server("2001:2::3", other_answer);
	/* the A glue's and the A record's addresses: never asked */
	ex4 = server("198.18.0.2", example_answer);
	other4 = server("198.18.0.3", other_answer);
	c = client("198.18.9.1");

	/* the root hint, then example.'s server at its AAAA glue */
	ask(c, "198.18.0.11", "www.example.", 1);
	assert_string_equal(reply(c, 1),
			    "NOERROR an: www.example. 300 A 198.19.0.1 from 198.18.0.11:53");
	assert_string_equal(root->log, "www.example. A from 2001:2:0:8000::11; ");
	assert_string_equal(ex->log, "www.example. A from 2001:2:0:8000::11; ");

	/* other. has no glue: its server's name is resolved for its AAAA
	 * (from example.'s server, known by now), then asked there */
	ask(c, "198.18.0.11", "host.other.", 2);
	assert_string_equal(reply(c, 2),
			    "NOERROR an: host.other. 300 A 198.19.0.3 from 198.18.0.11:53");
	assert_string_equal(root->log, "www.example. A from 2001:2:0:8000::11; "
				       "host.other. A from 2001:2:0:8000::11; ");
	assert_string_equal(ex->log, "www.example. A from 2001:2:0:8000::11; "
				     "ns.example. AAAA from 2001:2:0:8000::11; ");
	assert_string_equal(other->log, "host.other. A from 2001:2:0:8000::11; ");
	settle();
	assert_string_equal(ex4->log, "");
	assert_string_equal(other4->log, "");
	/* the CSV: each zone's server at its IPv6 address, from r1's */
	assert_non_null(strstr(csv(), ",r1,[2001:2:0:8000::11]:"));
	assert_non_null(strstr(csv(), ",[2001:2::1]:53,udp,"));
	assert_non_null(strstr(csv(), ",[2001:2::2]:53,udp,"));
	assert_non_null(strstr(csv(), ",host.other.,A,miss,1,answer,NOERROR,"));
	assert_non_null(strstr(csv(), ",example.,ns.example.,AAAA\n"));
	assert_non_null(strstr(csv(), ",[2001:2::3]:53,udp,"));
	assert_null(strstr(csv(), ",198.18.0."));
}

/* events: what rsv_stats_period writes, as text */
static char *stats_events(void)
{
	char path[] = "/tmp/hs-rsv-events-XXXXXX", *text = NULL;
	int fd = mkstemp(path);
	size_t len = 0;
	FILE *f;

	assert_true(fd >= 0);
	close(fd);
	event_close(L.ctx.stats.ev);
	L.ctx.stats.ev = event_open(path, "test", "resolverd");
	assert_non_null(L.ctx.stats.ev);
	rsv_stats_period(&L.ctx);
	event_close(L.ctx.stats.ev);
	L.ctx.stats.ev = event_open("/dev/null", "test", "resolverd");
	f = fopen(path, "r");
	assert_non_null(f);
	assert_true(getdelim(&text, &len, '\0', f) > 0);
	fclose(f);
	unlink(path);
	return text;
}

static const char forward6_conf[] = "[resolverd]\n"
				    "upstream = [2001:2::53]:53\n"
				    "[resolvers r]\n"
				    "count = 2\n"
				    "first_address6 = 2001:2:0:8000::11\n";

/* IPv6 alone: caches with no IPv4 address, forwarding to an IPv6 upstream */
static void test_ipv6_only(void **state)
{
	struct sockaddr_storage to, src;
	struct fsrv *up;
	socklen_t tl, sl;
	int c6, tcp;
	char *ev;

	(void)state;
	TEST_NETNS_ENTER();
	lab_up(forward6_conf);
	up = server("2001:2::53", lab_test_answer);
	c6 = client("2001:2:0:9000::1");
	/* no IPv4 socket at all: port 53 of every IPv4 address is free */
	for (int i = 0; i < 2; i++)
		assert_true(L.ctx.inst[i].udp.fd == -1 && L.ctx.inst[i].tcp.fd == -1 &&
			    L.ctx.inst[i].up.fd == -1);
	close(bound(SOCK_DGRAM, "0.0.0.0", 53));
	close(bound(SOCK_STREAM, "0.0.0.0", 53));

	/* r1 and r2 each at its IPv6 address, asking from it, its own cache */
	ask(c6, "2001:2:0:8000::11", "www.lab.test.", 1);
	assert_string_equal(reply(c6, 1), "NOERROR an: www.lab.test. 60 A 198.19.0.1 "
					  "from [2001:2:0:8000::11]:53");
	fake_now += 10 * S;
	ask(c6, "2001:2:0:8000::11", "www.lab.test.", 2);
	assert_string_equal(reply(c6, 2), "NOERROR an: www.lab.test. 50 A 198.19.0.1 "
					  "from [2001:2:0:8000::11]:53");
	ask(c6, "2001:2:0:8000::12", "www.lab.test.", 3);
	assert_string_equal(reply(c6, 3), "NOERROR an: www.lab.test. 60 A 198.19.0.1 "
					  "from [2001:2:0:8000::12]:53");
	settle();
	assert_string_equal(up->log, "www.lab.test. A from 2001:2:0:8000::11; "
				     "www.lab.test. A from 2001:2:0:8000::12; ");
	assert_int_equal(L.ctx.inst[0].n.hits, 1);

	/* TC: again over TCP from r2's IPv6 address; and a TCP client */
	up->log[0] = 0;
	up->tc = 1;
	ask(c6, "2001:2:0:8000::12", "big.lab.test.", 4);
	assert_string_equal(reply(c6, 4), "NOERROR an: big.lab.test. 60 A 198.19.0.1 "
					  "from [2001:2:0:8000::12]:53");
	assert_string_equal(up->log, "big.lab.test. A from 2001:2:0:8000::12; "
				     "big.lab.test. A from 2001:2:0:8000::12 tcp; ");
	tcp = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(tcp >= 0);
	L.fds[L.nfd++] = tcp;
	sl = sa_of("2001:2:0:9000::1", 0, &src);
	assert_int_equal(bind(tcp, (struct sockaddr *)&src, sl), 0);
	tl = sa_of("2001:2:0:8000::11", 53, &to);
	assert_int_equal(connect(tcp, (struct sockaddr *)&to, tl), 0);
	assert_string_equal(tcp_ask(tcp, "www.lab.test.", 5),
			    "NOERROR an: www.lab.test. 50 A 198.19.0.1");

	/* the CSV and resolver_stats name each cache by its IPv6 address */
	assert_non_null(strstr(csv(), ",r1,[2001:2:0:8000::11]:"));
	assert_non_null(strstr(csv(), ",r2,[2001:2:0:8000::12]:"));
	assert_non_null(strstr(csv(), ",[2001:2::53]:53,tcp,"));
	assert_null(strstr(csv(), "0.0.0.0"));
	ev = stats_events();
	assert_non_null(strstr(ev, "\"resolver\":\"r1\",\"address\":\"2001:2:0:8000::11\""));
	assert_non_null(strstr(ev, "\"resolver\":\"r2\",\"address\":\"2001:2:0:8000::12\""));
	free(ev);
}

static const char iterate6_conf[] = "[resolverd]\n"
				    "mode = iterate\n"
				    "root = 2001:2::1\n"
				    "transport = 6\n"
				    "[resolver r1]\n"
				    "address6 = 2001:2:0:8000::11\n";

/* IPv6 alone, iterating: the walk over IPv6 from the cache's address */
static void test_ipv6_only_iterate(void **state)
{
	struct fsrv *root, *ex, *other;
	int c;

	(void)state;
	TEST_NETNS_ENTER();
	lab_up(iterate6_conf);
	root = server("2001:2::1", root_answer);
	ex = server("2001:2::2", example_answer);
	other = server("2001:2::3", other_answer);
	c = client("2001:2:0:9000::1");
	assert_true(L.ctx.inst[0].udp.fd == -1 && L.ctx.inst[0].up.fd == -1);
	ask(c, "2001:2:0:8000::11", "host.other.", 1);
	assert_string_equal(reply(c, 1), "NOERROR an: host.other. 300 A 198.19.0.3 "
					 "from [2001:2:0:8000::11]:53");
	/* other.'s server has no glue: its AAAA from the root, then
	 * example.'s server; every query from r1's IPv6 address */
	assert_string_equal(root->log, "host.other. A from 2001:2:0:8000::11; "
				       "ns.example. AAAA from 2001:2:0:8000::11; ");
	assert_string_equal(ex->log, "ns.example. AAAA from 2001:2:0:8000::11; ");
	assert_string_equal(other->log, "host.other. A from 2001:2:0:8000::11; ");
	assert_non_null(strstr(csv(), ",r1,[2001:2:0:8000::11]:"));
}

static const char ecs_conf[] = "[resolverd]\n"
			       "mode = iterate\n"
			       "root = 2001:2::1\n"
			       "transport = 6\n"
			       "ecs = yes\n"
			       "[resolver r1]\n"
			       "address = 198.18.0.11\n"
			       "address6 = 2001:2:0:8000::11\n";

static void test_ecs(void **state)
{
	/* FAMILY 2, SOURCE 56, SCOPE 0, the /56's 7 bytes: 2001:2:0:9000::/56 */
	static const uint8_t wire56[] = {0, 2, 56, 0, 0x20, 0x01, 0x00, 0x02, 0x00, 0x00, 0x90};
	struct fsrv *ex;
	knot_pkt_t *q;
	uint8_t *opt;
	int c1, c2, c3, c4;

	(void)state;
	TEST_NETNS_ENTER();
	lab_up(ecs_conf);
	server("2001:2::1", root_answer);
	ex = server("2001:2::2", example_answer);
	c1 = client("2001:2:0:9000::1");
	c2 = client("2001:2:0:90ff::2"); /* c1's /56 */
	c3 = client("2001:2:0:9100::3"); /* another /56 */
	c4 = client("198.18.9.1");

	/* c1 over IPv6: its /56 on the wire */
	ask(c1, "2001:2:0:8000::11", "www.example.", 1);
	assert_string_equal(reply(c1, 1), "NOERROR an: www.example. 300 A 198.19.0.1 "
					  "from [2001:2:0:8000::11]:53");
	assert_string_equal(ex->log, "www.example. A ecs 2001:2:0:9000::/56 from "
				     "2001:2:0:8000::11; ");
	q = rsv_msg_parse(ex->last, ex->last_len);
	assert_non_null(q);
	opt = knot_pkt_edns_option(q, KNOT_EDNS_OPTION_CLIENT_SUBNET);
	assert_non_null(opt);
	assert_int_equal(knot_edns_opt_get_length(opt), sizeof(wire56));
	assert_memory_equal(knot_edns_opt_get_data(opt), wire56, sizeof(wire56));
	knot_pkt_free(q);

	/* the answer was scoped /56: c2, of c1's /56, hits */
	ask(c2, "2001:2:0:8000::11", "www.example.", 2);
	assert_string_equal(reply(c2, 2), "NOERROR an: www.example. 300 A 198.19.0.1 "
					  "from [2001:2:0:8000::11]:53");
	assert_int_equal(L.ctx.inst[0].n.hits, 1);
	/* c3, of another /56, misses: its own /56 asked */
	ask(c3, "2001:2:0:8000::11", "www.example.", 3);
	assert_string_equal(reply(c3, 3), "NOERROR an: www.example. 300 A 198.19.0.1 "
					  "from [2001:2:0:8000::11]:53");
	assert_int_equal(L.ctx.inst[0].n.hits, 1);
	assert_int_equal(L.ctx.inst[0].n.misses, 2);

	/* c1's own option (a /48) is passed on, and echoed back with the
	 * scope the answer is cached for: min(56, 48) */
	ask_ecs(c1, "2001:2:0:8000::11", "www.example.", KNOT_RRTYPE_A, 4, "2001:2:1::", 48);
	assert_string_equal(reply(c1, 4), "NOERROR an: www.example. 300 A 198.19.0.1 "
					  "ecs 2001:2:1::/48/48 from [2001:2:0:8000::11]:53");
	/* an IPv4 client: its /24, kept apart from the IPv6 subnets */
	ask(c4, "198.18.0.11", "www.example.", 5);
	assert_string_equal(reply(c4, 5),
			    "NOERROR an: www.example. 300 A 198.19.0.1 from 198.18.0.11:53");
	settle();
	assert_string_equal(ex->log, "www.example. A ecs 2001:2:0:9000::/56 from "
				     "2001:2:0:8000::11; "
				     "www.example. A ecs 2001:2:0:9100::/56 from "
				     "2001:2:0:8000::11; "
				     "www.example. A ecs 2001:2:1::/48 from 2001:2:0:8000::11; "
				     "www.example. A ecs 198.18.9.0/24 from 2001:2:0:8000::11; ");
	assert_true(L.ctx.inst[0].ecs_scopes6 == (1ull << 56 | 1ull << 48));
	assert_true(L.ctx.inst[0].ecs_scopes == 1u << 24);
	/* each scope's answer hits for its own clients */
	fake_now += 100 * S;
	ask(c2, "2001:2:0:8000::11", "www.example.", 6);
	assert_string_equal(reply(c2, 6), "NOERROR an: www.example. 200 A 198.19.0.1 "
					  "from [2001:2:0:8000::11]:53");
	ask(c3, "2001:2:0:8000::11", "www.example.", 7);
	assert_string_equal(reply(c3, 7), "NOERROR an: www.example. 200 A 198.19.0.1 "
					  "from [2001:2:0:8000::11]:53");
	ask(c4, "198.18.0.11", "www.example.", 8);
	assert_string_equal(reply(c4, 8),
			    "NOERROR an: www.example. 200 A 198.19.0.1 from 198.18.0.11:53");
	settle();
	assert_int_equal(L.ctx.inst[0].n.hits, 4);
	assert_int_equal(L.ctx.inst[0].n.misses, 4);
	/* the CSV: a scoped miss's qname has the /56 in its first label */
	assert_non_null(strstr(csv(), ",2001000200009000.www.example.,A,miss,1,answer,NOERROR,"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_forward, lab_teardown),
	    cmocka_unit_test_teardown(test_tcp_client, lab_teardown),
	    cmocka_unit_test_teardown(test_iterate_aaaa_glue, lab_teardown),
	    cmocka_unit_test_teardown(test_ecs, lab_teardown),
	    cmocka_unit_test_teardown(test_ipv6_only, lab_teardown),
	    cmocka_unit_test_teardown(test_ipv6_only_iterate, lab_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
