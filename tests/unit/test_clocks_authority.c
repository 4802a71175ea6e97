/*
 * The verdicts and answers of a server that checks the sites itself
 * (probes/clocks/clocks_authority.c), from synthetic captures: its checks
 * on a site's link (SYN, then SYN-ACK or RST or nothing) and its responses
 * on its own link. And the authorities side by side (clocks_auths.c): each
 * [dns] node's own clocks, its clients told by the names they ask.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <pcap/dlt.h>

#include "clocks_auths.h"
#include "clocks_int.h"
#include "clocks_steering.h"
#include "ipframe.h"
#include "wire.h"

#define T0 1700000000000000000LL
#define MS 1000000LL
#define NS_ADDR "198.18.0.10"
#define A_ADDR "198.19.1.1"
#define B_ADDR "198.19.1.2"

static struct in_addr ip(const char *s)
{
	struct in_addr a;

	inet_pton(AF_INET, s, &a);
	return a;
}

/* a server at NS_ADDR, checks timing out after 1 s, down after `down`
 * failures (gdnsd: its count reset by 10 passes), up after `up` passes */
static void setup(struct clocks_input *in, int gdnsd, int down, int up)
{
	clocks_input_init(in);
	in->dnstopo.ndns = 1;
	strcpy(in->dnstopo.dns[0].name, "ns");
	in->dnstopo.dns[0].own_checks = 1;
	in->dnstopo.dns[0].gdnsd = gdnsd;
	in->dnstopo.dns[0].addr = ip(NS_ADDR);
	in->dnstopo.dns[0].check_timeout_ns = 1000 * MS;
	in->dnstopo.dns[0].check_down = down;
	in->dnstopo.dns[0].check_up = up;
	in->dnstopo.nnames = 1;
	strcpy(in->dnstopo.names[0].name, "www.lab.example");
}

/* check k of site a's capture, its SYN at t ms: outcome 'o' passed (SYN-ACK
 * 1 ms later), 'r' refused (RST 1 ms later), 't' unanswered */
static void check(struct clocks_capture *c, int k, int64_t t, char outcome)
{
	struct clocks_tcpseg syn = {.t_ns = T0 + t * MS,
				    .client = ip(NS_ADDR),
				    .server = ip(A_ADDR),
				    .cport = (uint16_t)(40000 + k),
				    .flags = IPFRAME_SYN};

	c->tcp[c->ntcp++] = syn;
	if (outcome == 't')
		return;
	syn.t_ns += MS;
	syn.from_server = 1;
	syn.flags = outcome == 'o' ? IPFRAME_SYN | IPFRAME_ACK : IPFRAME_RST | IPFRAME_ACK;
	c->tcp[c->ntcp++] = syn;
}

static void respond(struct clocks_query_capture *q, int64_t t, const char *addr)
{
	q->responses[q->nresp++] = (struct clocks_response){
	    .t_ns = T0 + t * MS, .src = ip(NS_ADDR), .name = 1, .naddr = 1, .addr = {ip(addr)}};
}

static void captures(struct clocks_input *in, struct clocks_capture *c,
		     struct clocks_query_capture *q)
{
	strcpy(c->label, "a");
	strcpy(q->label, "dns-ns");
	in->captures = c;
	in->ncaptures = 1;
	in->qcaptures = q;
	in->nqcaptures = 1;
}

static void release(struct clocks_input *in)
{
	free(in->health);
	free(in->answers);
}

/* PowerDNS: one failure takes a out, at the RST; the first response after
 * it that differs (b) is the answer change, from what it answered before */
static void test_pdns_first_failure(void **state)
{
	struct clocks_input in;
	struct clocks_tcpseg segs[32];
	struct clocks_response resp[8];
	struct clocks_capture c = {.tcp = segs};
	struct clocks_query_capture q = {.responses = resp};

	(void)state;
	setup(&in, 0, 1, 1);
	captures(&in, &c, &q);
	check(&c, 1, -1000, 'o');
	check(&c, 2, 0, 'o');
	check(&c, 3, 1000, 'r'); /* a killed at 500 ms */
	check(&c, 4, 2000, 'r');
	respond(&q, -500, A_ADDR);
	respond(&q, 1500, B_ADDR);
	assert_int_equal(clocks_authority_events(&in), 0);
	assert_int_equal(in.nauthority, 1);
	assert_int_equal(in.nhealth, 1);
	assert_false(in.health[0].healthy);
	assert_string_equal(in.health[0].site, "a");
	assert_true(in.health[0].t_ns == T0 + 1001 * MS);
	assert_int_equal(in.nanswers, 1);
	assert_true(in.answers[0].t_ns == T0 + 1500 * MS);
	assert_int_equal(in.answers[0].nbefore, 1);
	assert_true(in.answers[0].before[0].s_addr == ip(A_ADDR).s_addr);
	assert_true(in.answers[0].after[0].s_addr == ip(B_ADDR).s_addr);
	release(&in);
}

/* gdnsd, down after 3 failures: two failures, then 10 passes reset the
 * count; then an unanswered check fails at its timeout, and two refused
 * ones make three: down at the third's RST. Its answers lag: a response
 * after the verdict that still says a is no change; the first b is. */
static void test_gdnsd_thresholds_and_lag(void **state)
{
	struct clocks_input in;
	struct clocks_tcpseg segs[64];
	struct clocks_response resp[8];
	struct clocks_capture c = {.tcp = segs};
	struct clocks_query_capture q = {.responses = resp};
	int k = 0;
	int64_t t = 0;

	(void)state;
	setup(&in, 1, 3, 2);
	captures(&in, &c, &q);
	check(&c, ++k, t, 'r');
	check(&c, ++k, t += 2000, 'r');
	for (int i = 0; i < 10; i++)
		check(&c, ++k, t += 2000, 'o');
	check(&c, ++k, t += 2000, 't'); /* failure 1 of the new count, at + 1 s */
	check(&c, ++k, t += 2000, 'r'); /* 2 */
	check(&c, ++k, t += 2000, 'r'); /* 3: down */
	int64_t down = t + 1;
	check(&c, ++k, t += 2000, 'o');
	check(&c, ++k, t += 2000, 'o'); /* 2 in a row: up */
	int64_t up = t + 1;
	respond(&q, down - 100, A_ADDR);
	respond(&q, down + 500, A_ADDR); /* the lag: no change yet */
	respond(&q, down + 1200, B_ADDR);
	assert_int_equal(clocks_authority_events(&in), 0);
	assert_int_equal(in.nhealth, 2);
	assert_false(in.health[0].healthy);
	assert_true(in.health[0].t_ns == T0 + down * MS);
	assert_true(in.health[1].healthy);
	assert_true(in.health[1].t_ns == T0 + up * MS);
	assert_int_equal(in.nanswers, 1);
	assert_true(in.answers[0].t_ns == T0 + (down + 1200) * MS);
	release(&in);
}

/* a check answered by nothing fails at its timeout, when the capture goes
 * on past it; one cut by the capture's end says nothing */
static void test_timeout(void **state)
{
	struct clocks_input in;
	struct clocks_tcpseg segs[8];
	struct clocks_response resp[1];
	struct clocks_capture c = {.tcp = segs};
	struct clocks_query_capture q = {.responses = resp};

	(void)state;
	setup(&in, 0, 1, 1);
	captures(&in, &c, &q);
	check(&c, 1, 0, 't');
	assert_int_equal(clocks_authority_events(&in), 0);
	assert_int_equal(in.nhealth, 0);
	release(&in);
	setup(&in, 0, 1, 1);
	c.ntcp = 0;
	captures(&in, &c, &q);
	check(&c, 1, 0, 't');
	check(&c, 2, 1500, 't');
	assert_int_equal(clocks_authority_events(&in), 0);
	assert_int_equal(in.nhealth, 1);
	assert_true(in.health[0].t_ns == T0 + 1000 * MS);
	release(&in);
}

static void side_health(struct clocks_health *h, const char *node, int64_t t, int healthy)
{
	memset(h, 0, sizeof(*h));
	h->t_ns = T0 + t * MS;
	strcpy(h->site, "a");
	strcpy(h->node, node);
	h->healthy = healthy;
}

static void side_answer(struct clocks_answer *x, const char *node, int64_t t)
{
	memset(x, 0, sizeof(*x));
	x->t_ns = T0 + t * MS;
	strcpy(x->node, node);
	x->nbefore = x->nafter = 1;
	x->before[0] = ip(A_ADDR);
	x->after[0] = ip(B_ADDR);
}

/* two authorities: nsa (authd) serves authd.example, ns (pdns)
 * pdns.example; c1 asks the lab's name (www.authd.example), c2 its own
 * (www.pdns.example), c3 the lab's too. Each row has its own node's
 * verdict and answer (not the other's, nor one before t0), its clients'
 * requests to a after t0 and the last of them; a lab of one authority has
 * no rows. */
static void test_side_by_side(void **state)
{
	struct clocks_input in;
	struct clocks_health h[4];
	struct clocks_answer ans[3];
	struct clocks_packet pk[6];
	struct clocks_client cl[3];
	struct clocks_capture c = {.packets = pk};
	struct clocks_auths out;
	const char *names[] = {"c1", "c2", "c3"};
	char name[CLOCKS_DNS_NAME_MAX];
	uint32_t ids[3];

	(void)state;
	clocks_input_init(&in);
	in.dnstopo.ndns = 2;
	strcpy(in.dnstopo.dns[0].name, "nsa");
	strcpy(in.dnstopo.dns[1].name, "ns");
	in.dnstopo.dns[1].own_checks = 1;
	in.dnstopo.nnames = 2;
	strcpy(in.dnstopo.names[0].name, "www.authd.example");
	in.dnstopo.names[0].server = 0;
	strcpy(in.dnstopo.names[1].name, "www.pdns.example.");
	in.dnstopo.names[1].server = 1;
	strcpy(in.dnstopo.lab_name, "WWW.authd.example.");
	in.dnstopo.nclients = 3;
	memset(cl, 0, sizeof(cl));
	for (int i = 0; i < 3; i++) {
		strcpy(in.dnstopo.clients[i].name, names[i]);
		strcpy(cl[i].node, names[i]);
		cl[i].id = ids[i] = WIRE_DNS_CLIENT_BASE + 1 + (uint32_t)i;
		cl[i].summary_ns = T0;
		cl[i].sent = 1000;
		cl[i].lost = 10 * (i + 1);
	}
	strcpy(in.dnstopo.clients[1].dns_name, "www.pdns.example");
	assert_int_equal(clocks_steer_name_of(&in, "c1", name, sizeof(name))->server, 0);
	assert_int_equal(clocks_steer_name_of(&in, "c2", name, sizeof(name))->server, 1);
	in.clients = cl;
	in.nclients = 3;
	in.failure.t0_ns = T0;
	strcpy(in.failure.site, "a");
	in.failure.has_address = 1;
	in.failure.address = ip(A_ADDR);
	side_health(&h[0], "ns", -500, 0); /* before t0: not its detect */
	side_health(&h[1], "ns", 900, 0);
	side_health(&h[2], "nsa", 2500, 0);
	side_health(&h[3], "nsa", 300, 1);
	in.health = h;
	in.nhealth = 4;
	side_answer(&ans[0], "ns", 1000);
	side_answer(&ans[1], "nsa", 2501);
	side_answer(&ans[2], "nsa", -100);
	in.answers = ans;
	in.nanswers = 3;
	strcpy(c.label, "a");
	pk[c.n++] = (struct clocks_packet){T0 + 100 * MS, ids[0], 1, ip(A_ADDR)};
	pk[c.n++] = (struct clocks_packet){T0 + 2900 * MS, ids[0], 2, ip(A_ADDR)};
	pk[c.n++] = (struct clocks_packet){T0 + 3000 * MS, ids[2], 1, ip(A_ADDR)};
	pk[c.n++] = (struct clocks_packet){T0 - 100 * MS, ids[1], 1, ip(A_ADDR)};
	pk[c.n++] = (struct clocks_packet){T0 + 1005 * MS, ids[1], 2, ip(A_ADDR)};
	pk[c.n++] = (struct clocks_packet){T0 + 1100 * MS, ids[1], 3, ip(B_ADDR)};
	in.captures = &c;
	in.ncaptures = 1;
	assert_int_equal(clocks_auths(&in, &out), 1);
	assert_int_equal(out.n, 2);
	assert_string_equal(out.a[0].node, "nsa");
	assert_string_equal(out.a[0].impl, "authd");
	assert_int_equal(out.a[0].clients, 2);
	assert_true(out.a[0].detect_ns == 2500 * MS);
	assert_true(out.a[0].steer_ns == 2501 * MS);
	assert_true(out.a[0].window_ns == 3000 * MS);
	assert_true(out.a[0].to_dead == 3);
	assert_true(out.a[0].lost == 40 && out.a[0].sent == 2000);
	assert_string_equal(out.a[1].node, "ns");
	assert_string_equal(out.a[1].impl, "pdns");
	assert_int_equal(out.a[1].clients, 1);
	assert_true(out.a[1].detect_ns == 900 * MS);
	assert_true(out.a[1].steer_ns == 1000 * MS);
	assert_true(out.a[1].window_ns == 1005 * MS);
	assert_true(out.a[1].to_dead == 1);
	/* every client asking nsa: one authority, no side by side */
	strcpy(in.dnstopo.clients[1].dns_name, "www.authd.example");
	assert_int_equal(clocks_auths(&in, &out), 0);
	assert_int_equal(out.n, 0);
}

/* a response over IPv6 with an AAAA (a dual lab's PowerDNS or gdnsd
 * answering an IPv6 client): its source and its AAAA read as their IPv4
 * twins (lab_up's), also when the
 * capture's 128 bytes cut its OPT record (the frame is 134); cut inside
 * the answer, it is no response */
static void test_decode_response6(void **state)
{
	static const uint8_t dns[] =
	    {
		0x12, 0x34, 0x84, 0x00, 0,    1,   0,	 1,    0, 0,   0,   1, /* QR AA, 1 1 0 1 */
		3,    'w',  'w',  'w',	3,    'l', 'a',	 'b',  7, 'e', 'x', 'a',
		'm',  'p',  'l',  'e',	0,    0,   28,	 0,    1,		/* AAAA IN */
		0xc0, 12,   0,	  28,	0,    1,   0,	 0,    0, 2,   0,   16, /* TTL 2 */
		0x20, 0x01, 0,	  2,	0,    0,   0xff, 0x01, 0, 0,   0,   0,
		0,    0,    0,	  1,					  /* 2001:2:0:ff01::1 */
		0,    0,    41,	  0x04, 0xd0, 0,   0,	 0,    0, 0,   0, /* OPT */
	    };
	uint8_t f[14 + 40 + 8 + sizeof(dns)];
	static const char *const twins[][2] = {{"2001:2:0:2::2", "198.18.0.10"},
					       {"2001:2:0:5::2", "198.18.0.22"},
					       {"2001:2:0:ff01::1", "198.19.1.1"}};
	struct in6_addr src;
	struct clocks_input in;
	struct clocks_response r;
	const uint8_t *qname;
	size_t qlen;
	char s[INET_ADDRSTRLEN];

	(void)state;
	clocks_input_init(&in);
	in.twins = calloc(3, sizeof(*in.twins));
	assert_non_null(in.twins);
	in.ntwins = in.captwins = 3;
	for (int i = 0; i < 3; i++) {
		assert_int_equal(inet_pton(AF_INET6, twins[i][0], &in.twins[i].v6), 1);
		assert_int_equal(inet_pton(AF_INET, twins[i][1], &in.twins[i].v4), 1);
	}
	memset(f, 0, sizeof(f));
	f[12] = 0x86, f[13] = 0xdd;
	f[14] = 0x60;
	f[14 + 4] = 0, f[14 + 5] = 8 + sizeof(dns);
	f[14 + 6] = 17, f[14 + 7] = 64;
	inet_pton(AF_INET6, "2001:2:0:2::2", &src);
	memcpy(f + 14 + 8, &src, 16);
	inet_pton(AF_INET6, "2001:2:0:5::2", f + 14 + 24);
	f[54] = 0, f[55] = 53, f[56] = 0x9c, f[57] = 0x40;
	f[58] = 0, f[59] = 8 + sizeof(dns);
	memcpy(f + 62, dns, sizeof(dns));
	assert_int_equal(sizeof(f), 134);
	for (size_t len = sizeof(f); len >= 128; len -= sizeof(f) - 128) {
		memset(&r, 0, sizeof(r));
		assert_int_equal(clocks_decode_response(&in, DLT_EN10MB, f, len, &r, &qname, &qlen),
				 0);
		assert_string_equal(inet_ntop(AF_INET, &r.src, s, sizeof(s)), "198.18.0.10");
		assert_int_equal(r.naddr, 1);
		assert_string_equal(inet_ntop(AF_INET, &r.addr[0], s, sizeof(s)), "198.19.1.1");
	}
	assert_int_equal(clocks_decode_response(&in, DLT_EN10MB, f, 120, &r, &qname, &qlen), -1);
	/* without the twins, no response of the lab's */
	assert_int_equal(clocks_decode_response(NULL, DLT_EN10MB, f, sizeof(f), &r, &qname, &qlen),
			 -1);
	clocks_input_free(&in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pdns_first_failure),
	    cmocka_unit_test(test_gdnsd_thresholds_and_lag),
	    cmocka_unit_test(test_side_by_side),
	    cmocka_unit_test(test_timeout),
	    cmocka_unit_test(test_decode_response6),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
