/* resolverd without its sockets, for the fuzz targets; see resolverd_env.h. */
#include "resolverd_env.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/resolverd/deleg.h"
#include "agents/resolverd/msg.h"
#include "edns.h"
#include "agents/resolverd/upstream_int.h"
#include "timeutil.h"

#define FENV_START (1000 * NSEC_PER_SEC)
#define FENV_UP_RXLEN 4096 /* upstream.c's receive buffer: longer is cut */

struct fenv_client {
	uint8_t query[KNOT_WIRE_MAX_PKTSIZE];
	size_t len;
	size_t limit;		    /* the largest answer it may get */
	int has_q;		    /* its query parses, with one question: */
	knot_dname_storage_t qname; /* lower case */
	uint16_t qtype, qclass;
};

static struct rsv_conf fenv_conf;
static struct rsv_inst_conf fenv_iconf;
static struct rsv_ctx fenv_ctx;
static struct rsv_inst fenv_inst;
static struct fenv_client fenv_clients[FENV_CLIENTS];
static uint8_t fenv_scratch[RSV_TCP_MAX];
static uint8_t fenv_out[RSV_TCP_MAX];

static void fenv_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void fenv_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "resolverd fuzz: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	abort();
}

/*
 * What server.c, upstream_tcp.c and ctx.c provide to the code under test.
 */

uint8_t *rsv_srv_scratch(struct rsv_ctx *ctx)
{
	(void)ctx;
	return fenv_scratch;
}

static void fenv_check(int client, const uint8_t *a, size_t len);

void rsv_srv_reply(struct rsv_inst *in, const struct rsv_client *who, const uint8_t *buf,
		   size_t len)
{
	(void)in;
	/* both kinds carry the client's index in the port (fenv_ask) */
	fenv_check(ntohs(who->addr.sin_port) - 1000, buf, len);
}

int rsv_up_tcp_start(struct rsv_pending *p, const uint8_t *q, size_t qlen)
{
	/* "connected": fenv_upstream() gives the answer */
	(void)q;
	(void)qlen;
	snprintf(p->tcp_src, sizeof(p->tcp_src), "127.0.0.11:40000");
	return 0;
}

void rsv_up_tcp_close(struct rsv_pending *p)
{
	(void)p;
}

int rsv_watch(struct rsv_ctx *ctx, struct rsv_fd *f, uint32_t events)
{
	(void)ctx;
	(void)f;
	(void)events;
	errno = ENOSYS;
	return -1;
}

/*
 * The checks on what a client gets.
 */

/* fenv_note: what c's query wire/len allows its answers: 65535 bytes over
 * TCP; over UDP 512, or with EDNS its payload size within 512..1232 (a
 * query libknot does not parse gets a header at most, or, an EDNS payload
 * below 512, lib/edns.h, 512 bytes); and its question. */
static void fenv_note(struct fenv_client *c, const uint8_t *wire, size_t len, int tcp)
{
	static uint8_t copy[KNOT_WIRE_MAX_PKTSIZE];
	knot_pkt_t *p;
	int ret;

	c->limit = tcp ? KNOT_WIRE_MAX_PKTSIZE : KNOT_WIRE_MIN_PKTSIZE;
	c->has_q = 0;
	if (len < KNOT_WIRE_HEADER_SIZE || len > sizeof(copy))
		return;
	memcpy(copy, wire, len);
	if ((p = knot_pkt_new(copy, (uint16_t)len, NULL)) == NULL)
		return;
	ret = knot_pkt_parse(p, 0);
	if (ret != KNOT_EOK && ret != KNOT_ETRAIL && edns_payload_floor(copy, len) > 0) {
		knot_pkt_free(p);
		if ((p = knot_pkt_new(copy, (uint16_t)len, NULL)) == NULL)
			return;
		ret = knot_pkt_parse(p, 0);
	}
	if (ret == KNOT_EOK || ret == KNOT_ETRAIL) {
		if (!tcp && p->opt_rr != NULL) {
			uint16_t pl = knot_edns_get_payload(p->opt_rr);

			c->limit = pl < 512 ? 512 : pl > RSV_UDP_MAX ? RSV_UDP_MAX : pl;
		}
		if (knot_pkt_qname(p) != NULL) {
			c->has_q = 1;
			knot_dname_to_wire(c->qname, knot_pkt_qname(p), sizeof(c->qname));
			c->qtype = knot_pkt_qtype(p);
			c->qclass = knot_pkt_qclass(p);
		}
	}
	knot_pkt_free(p);
}

/* fenv_check: a is an answer to client's query */
static void fenv_check(int client, const uint8_t *a, size_t len)
{
	static uint8_t copy[KNOT_WIRE_MAX_PKTSIZE];
	const struct fenv_client *c;
	knot_pkt_t *p;
	int ret;

	if (client < 0 || client >= FENV_CLIENTS || fenv_clients[client].len == 0)
		fenv_fail("an answer to client %d, who asked nothing", client);
	c = &fenv_clients[client];
	if (len < KNOT_WIRE_HEADER_SIZE || len > c->limit)
		fenv_fail("an answer of %zu bytes to client %d (at most %zu)", len, client,
			  c->limit);
	if (!knot_wire_get_qr(a) || knot_wire_get_id(a) != knot_wire_get_id(c->query))
		fenv_fail("client %d: QR clear or ID %u for %u", client, knot_wire_get_id(a),
			  knot_wire_get_id(c->query));
	memcpy(copy, a, len);
	if ((p = knot_pkt_new(copy, (uint16_t)len, NULL)) == NULL)
		fenv_fail("knot_pkt_new");
	if ((ret = knot_pkt_parse(p, KNOT_PF_NOCANON)) != KNOT_EOK)
		fenv_fail("client %d: its answer does not parse: %s", client, knot_strerror(ret));
	/* the client's question */
	if (knot_pkt_qname(p) != NULL &&
	    (!c->has_q || !knot_dname_is_equal(knot_pkt_qname(p), c->qname) ||
	     knot_pkt_qtype(p) != c->qtype || knot_pkt_qclass(p) != c->qclass))
		fenv_fail("client %d: the answer's question is not the query's", client);
	knot_pkt_free(p);
}

/*
 * The resolver.
 */

void fenv_init(void)
{
	struct rsv_cache_cfg *cc = &fenv_iconf.cache;

	/* two upstreams, so that an error answer is retried at the other */
	for (int i = 0; i < 2; i++) {
		fenv_conf.upstream[i].sin_family = AF_INET;
		fenv_conf.upstream[i].sin_addr.s_addr = htonl(0x7f000001);
		fenv_conf.upstream[i].sin_port = htons((uint16_t)(53 + i));
	}
	fenv_conf.nupstream = 2;
	fenv_conf.timeout_ns = 500 * NSEC_PER_MSEC;
	fenv_conf.retries = 2;
	fenv_conf.port = 53;
	fenv_conf.tcp = 1;
	fenv_conf.stats_ns = NSEC_PER_SEC;
	fenv_conf.max_pending = 64;
	/* resolverd's defaults (config_keys.c), with serve_stale and prefetch */
	snprintf(fenv_iconf.name, sizeof(fenv_iconf.name), "r1");
	fenv_iconf.addr.s_addr = htonl(0x7f00000b);
	cc->max_ttl = 86400;
	cc->neg_max_ttl = 3600;
	cc->serve_stale = 1;
	cc->stale_ttl = 30;
	cc->max_stale_ns = 86400 * NSEC_PER_SEC;
	cc->stale_recheck_ns = 30 * NSEC_PER_SEC;
	cc->prefetch_pct = 50;
	cc->max_entries = 100;
	fenv_conf.inst = &fenv_iconf;
	fenv_conf.ninst = 1;

	fenv_ctx.conf = &fenv_conf;
	fenv_ctx.now = FENV_START;
	if (rsv_up_init(&fenv_ctx) == -1)
		fenv_fail("rsv_up_init");
	fenv_ctx.stats.csv = fopen("/dev/null", "w"); /* rsv_msg_name_csv runs */
	fenv_inst.ctx = &fenv_ctx;
	fenv_inst.conf = &fenv_iconf;
	fenv_inst.udp.fd = fenv_inst.tcp.fd = fenv_inst.up.fd = -1;
	snprintf(fenv_inst.src, sizeof(fenv_inst.src), "127.0.0.11:5353");
	fenv_ctx.inst = &fenv_inst;
	fenv_ctx.ninst = 1;
	if (rsv_cache_init(&fenv_inst.cache, cc) == -1)
		fenv_fail("rsv_cache_init");
}

void fenv_reset(void)
{
	fenv_settle();
	rsv_cache_free(&fenv_inst.cache);
	if (rsv_cache_init(&fenv_inst.cache, &fenv_iconf.cache) == -1)
		fenv_fail("rsv_cache_init");
	if (fenv_conf.mode == RSV_MODE_ITERATE) {
		struct rsv_cache_cfg dcfg;

		rsv_cache_free(&fenv_inst.deleg);
		rsv_deleg_cfg(&dcfg, &fenv_iconf.cache);
		if (rsv_cache_init(&fenv_inst.deleg, &dcfg) == -1)
			fenv_fail("rsv_cache_init");
		fenv_inst.ecs_scopes = 0;
	}
	fenv_ctx.up.rng = 0x9e3779b97f4a7c15ULL;
	fenv_ctx.now = FENV_START;
	fenv_inst.up_pref = 0;
	for (int i = 0; i < FENV_CLIENTS; i++)
		fenv_clients[i].len = 0;
}

void fenv_key(struct rsv_key *k, const char *name, uint16_t type)
{
	knot_dname_storage_t dn;

	if (knot_dname_from_str(dn, name, sizeof(dn)) == NULL ||
	    rsv_cache_key(k, dn, knot_dname_size(dn), type, KNOT_CLASS_IN) == -1)
		fenv_fail("fenv_key %s", name);
}

size_t fenv_ask(int client, int tcp, const uint8_t *wire, size_t len)
{
	struct fenv_client *c = &fenv_clients[client];
	struct rsv_client who = {.tcp = tcp};
	size_t n;

	if (len == 0 || len > sizeof(c->query))
		return 0;
	memcpy(c->query, wire, len);
	c->len = len;
	fenv_note(c, wire, len, tcp);
	/* over TCP too: the answer's client is told by the port (the
	 * connection reference stays empty: no loop in the harness) */
	who.addr.sin_family = AF_INET;
	who.addr.sin_addr.s_addr = htonl(0x7f000001);
	who.addr.sin_port = htons((uint16_t)(1000 + client));
	/* the buffers server.c gives it */
	n = rsv_client_query(&fenv_inst, wire, len, &who, fenv_out,
			     tcp ? RSV_TCP_MAX : RSV_UDP_MAX);
	if (n > 0)
		fenv_check(client, fenv_out, n);
	return n;
}

size_t fenv_ask_key(int client, int tcp, const struct rsv_key *k, uint16_t id, uint16_t edns)
{
	uint8_t q[KNOT_WIRE_MAX_PKTSIZE];
	knot_rrset_t opt;
	knot_pkt_t *p = knot_pkt_new(q, sizeof(q), NULL);
	size_t len;

	if (p == NULL)
		fenv_fail("knot_pkt_new");
	knot_pkt_clear(p);
	knot_wire_set_id(p->wire, id);
	knot_wire_set_rd(p->wire);
	if (knot_pkt_put_question(p, k->name, k->cls, k->type) != KNOT_EOK)
		fenv_fail("knot_pkt_put_question");
	if (edns > 0) {
		if (knot_edns_init(&opt, edns, 0, 0, NULL) != KNOT_EOK ||
		    knot_pkt_begin(p, KNOT_ADDITIONAL) != KNOT_EOK ||
		    knot_pkt_put(p, KNOT_COMPR_HINT_NONE, &opt, KNOT_PF_FREE) != KNOT_EOK)
			fenv_fail("the query's OPT");
	}
	len = p->size;
	knot_pkt_free(p);
	return fenv_ask(client, tcp, q, len);
}

/* fenv_tcp: the answer read over TCP; the end of upstream_tcp.c's
 * rsv_up_tcp_event */
static void fenv_tcp(struct rsv_pending *p, const uint8_t *wire, size_t len)
{
	knot_pkt_t *pkt = rsv_msg_parse(wire, len);

	if (pkt == NULL || !rsv_msg_matches(pkt, p->ask, p->id)) {
		knot_pkt_free(pkt);
		if (!p->logged)
			rsv_stats_attempt(&fenv_ctx, p, "error", -1, 0);
		p->logged = 1;
		rsv_up_attempt_failed(p);
		return;
	}
	rsv_up_answer(p, pkt, wire, len);
	knot_pkt_free(pkt);
}

int fenv_upstream(const struct rsv_key *k, const uint8_t *wire, size_t len)
{
	static uint8_t buf[KNOT_WIRE_MAX_PKTSIZE];
	struct rsv_pending *p = rsv_up_find(&fenv_inst, k);

	if (p == NULL)
		return 0;
	if (len > sizeof(buf))
		len = sizeof(buf);
	for (int round = 0; p != NULL && round < 4; round++) {
		memcpy(buf, wire, len);
		if (len >= 2)
			knot_wire_set_id(buf, p->id);
		if (p->tcp)
			fenv_tcp(p, buf, len);
		else
			rsv_up_received(&fenv_inst, &fenv_conf.upstream[p->upstream], buf,
					len > FENV_UP_RXLEN ? FENV_UP_RXLEN : len,
					len > FENV_UP_RXLEN);
		p = rsv_up_find(&fenv_inst, k);
	}
	return 1;
}

void fenv_iterate(int qmin, int ecs)
{
	if (fenv_conf.mode != RSV_MODE_ITERATE) {
		fenv_conf.mode = RSV_MODE_ITERATE;
		fenv_conf.nupstream = 0;
		fenv_conf.root[0].sin_family = AF_INET;
		fenv_conf.root[0].sin_addr.s_addr = htonl(0x7f000001);
		fenv_conf.root[0].sin_port = htons(53);
		fenv_conf.nroot = 1;
		fenv_reset();
	}
	fenv_conf.qname_minimisation = qmin;
	fenv_conf.ecs = ecs;
}

int fenv_server(const uint8_t *wire, size_t len)
{
	static uint8_t buf[KNOT_WIRE_MAX_PKTSIZE];
	struct rsv_pending *p = fenv_ctx.up.q_head;
	knot_pkt_t *pkt;
	size_t o = len;

	if (p == NULL)
		return 0;
	if (len > sizeof(buf))
		len = sizeof(buf);
	memcpy(buf, wire, len);
	/* the question asked now in place of the input's, when it has one */
	pkt = rsv_msg_parse(wire, len);
	if (pkt != NULL && knot_wire_get_qdcount(wire) == 1 && pkt->qname_size > 0) {
		size_t rest = KNOT_WIRE_HEADER_SIZE + pkt->qname_size + 4;

		o = KNOT_WIRE_HEADER_SIZE;
		memcpy(buf + o, p->ask->name, p->ask->len);
		o += p->ask->len;
		knot_wire_write_u16(buf + o, p->ask->type);
		knot_wire_write_u16(buf + o + 2, p->ask->cls);
		o += 4;
		if (rest < len && o + (len - rest) <= sizeof(buf)) {
			memcpy(buf + o, wire + rest, len - rest);
			o += len - rest;
		}
	}
	knot_pkt_free(pkt);
	if (o >= 2)
		knot_wire_set_id(buf, p->id);
	if (p->tcp)
		fenv_tcp(p, buf, o);
	else
		rsv_up_received(&fenv_inst, &p->to, buf, o > FENV_UP_RXLEN ? FENV_UP_RXLEN : o,
				o > FENV_UP_RXLEN);
	return 1;
}

/* fenv_rr: one record of k's name into r's current section (the rrset's
 * data goes with the packet) */
static void fenv_rr(knot_pkt_t *r, const struct rsv_key *k, uint16_t type, uint32_t ttl,
		    const uint8_t *rd, uint16_t len, int n)
{
	knot_rrset_t *rr = knot_rrset_new(k->name, type, KNOT_CLASS_IN, ttl, NULL);

	if (rr == NULL)
		fenv_fail("knot_rrset_new");
	for (int i = 0; i < n; i++)
		if (knot_rrset_add_rdata(rr, rd + i * len, len, NULL) != KNOT_EOK)
			fenv_fail("knot_rrset_add_rdata");
	if (knot_pkt_put(r, KNOT_COMPR_HINT_NONE, rr, KNOT_PF_FREE) != KNOT_EOK)
		fenv_fail("knot_pkt_put");
	free(rr);
}

size_t fenv_answer(const struct rsv_key *k, uint32_t ttl, int nx, int big, uint8_t *out)
{
	/* ns.lab.example. admin.lab.example. 1 3600 600 86400 MINIMUM */
	static const uint8_t names[] = "\2ns\3lab\7example\0\5admin\3lab\7example";
	uint8_t q[512], rd[16 * 100];
	knot_pkt_t *qp, *r;
	size_t len;
	int n;

	if ((n = rsv_msg_query(k, 0, NULL, q, sizeof(q))) <= 0 ||
	    (qp = rsv_msg_parse(q, (size_t)n)) == NULL)
		fenv_fail("the upstream query");
	r = knot_pkt_new(out, KNOT_WIRE_MAX_PKTSIZE, NULL);
	if (r == NULL || knot_pkt_init_response(r, qp) != KNOT_EOK)
		fenv_fail("knot_pkt_init_response");
	knot_wire_set_aa(r->wire);
	knot_wire_set_rcode(r->wire, nx ? KNOT_RCODE_NXDOMAIN : KNOT_RCODE_NOERROR);
	if (big) {
		for (int i = 0; i < 16; i++) {
			rd[i * 100] = 99;
			memset(rd + i * 100 + 1, 'a' + i, 99);
		}
		fenv_rr(r, k, KNOT_RRTYPE_TXT, ttl, rd, 100, 16);
	} else if (!nx && k->type == KNOT_RRTYPE_A) {
		memcpy(rd, "\xc6\x13\x01\x01", 4);
		fenv_rr(r, k, KNOT_RRTYPE_A, ttl, rd, 4, 1);
	} else {
		uint32_t v[5] = {1, 3600, 600, 86400, ttl};

		memcpy(rd, names, sizeof(names));
		for (int i = 0; i < 5; i++)
			knot_wire_write_u32(rd + sizeof(names) + 4 * i, v[i]);
		if (knot_pkt_begin(r, KNOT_AUTHORITY) != KNOT_EOK)
			fenv_fail("knot_pkt_begin");
		fenv_rr(r, k, KNOT_RRTYPE_SOA, 3600, rd, (uint16_t)(sizeof(names) + 20), 1);
	}
	len = r->size;
	knot_pkt_free(r);
	knot_pkt_free(qp);
	return len;
}

void fenv_advance(int64_t ns)
{
	fenv_ctx.now += ns;
}

void fenv_settle(void)
{
	struct rsv_upstream *u = &fenv_ctx.up;

	while (u->q_head != NULL) {
		if (u->q_head->deadline > fenv_ctx.now)
			fenv_ctx.now = u->q_head->deadline;
		rsv_up_tick(&fenv_ctx);
	}
}
