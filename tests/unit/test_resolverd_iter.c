/*
 * resolverd's iterative mode without sockets: what a server's answer means
 * to the walk (agents/resolverd/iter_msg.h: referrals, bailiwick, CNAME
 * chains, negative answers, qname minimisation, the ECS option), the
 * delegation cache (deleg.h: TTLs, the closest cut, glue with its own
 * TTL, AAAA glue for a walk over IPv6), and the resolver's cache seen
 * through the walk (iter.h: a chain answered with each link's own TTL, an
 * NXDOMAIN from the TLD cached, answers cached per ECS scope, the keys of
 * IPv6 subnets), on a fake clock.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <cmocka.h>

#include "agents/resolverd/ctx.h"
#include "agents/resolverd/deleg.h"
#include "agents/resolverd/iter.h"
#include "agents/resolverd/iter_msg.h"
#include "agents/resolverd/msg.h"
#include "timeutil.h"

#define T0 (1000 * NSEC_PER_SEC)

struct built {
	uint8_t wire[KNOT_WIRE_MAX_PKTSIZE];
	size_t len;
	knot_pkt_t *pkt; /* while building; then parsed */
};

static void dname(knot_dname_storage_t dn, const char *s)
{
	assert_non_null(knot_dname_from_str(dn, s, sizeof(knot_dname_storage_t)));
	knot_dname_to_lower(dn);
}

static void key(struct rsv_key *k, const char *name, uint16_t type)
{
	knot_dname_storage_t dn;

	dname(dn, name);
	assert_int_equal(rsv_cache_key(k, dn, knot_dname_size(dn), type, KNOT_CLASS_IN), 0);
}

/* begin: a response to (qname, qtype) with rcode, AA as given */
static void begin(struct built *b, const char *qname, uint16_t qtype, uint16_t rcode, int aa)
{
	knot_dname_storage_t dn;

	b->pkt = knot_pkt_new(b->wire, sizeof(b->wire), NULL);
	assert_non_null(b->pkt);
	knot_pkt_clear(b->pkt);
	knot_wire_set_qr(b->pkt->wire);
	if (aa)
		knot_wire_set_aa(b->pkt->wire);
	knot_wire_set_rcode(b->pkt->wire, rcode);
	dname(dn, qname);
	assert_int_equal(knot_pkt_put_question(b->pkt, dn, KNOT_CLASS_IN, qtype), KNOT_EOK);
}

static void section(struct built *b, knot_section_t s)
{
	assert_int_equal(knot_pkt_begin(b->pkt, s), KNOT_EOK);
}

static void put(struct built *b, const char *owner, uint16_t type, uint32_t ttl, const void *rd,
		uint16_t len)
{
	knot_dname_storage_t dn;
	knot_rrset_t *r;

	dname(dn, owner);
	r = knot_rrset_new(dn, type, KNOT_CLASS_IN, ttl, NULL);
	assert_non_null(r);
	assert_int_equal(knot_rrset_add_rdata(r, rd, len, NULL), KNOT_EOK);
	assert_int_equal(knot_pkt_put(b->pkt, KNOT_COMPR_HINT_NONE, r, KNOT_PF_FREE), KNOT_EOK);
	free(r);
}

static void put_a(struct built *b, const char *owner, uint32_t ttl, uint8_t last)
{
	uint8_t a[4] = {198, 18, 201, last};

	put(b, owner, KNOT_RRTYPE_A, ttl, a, 4);
}

static void put_name(struct built *b, const char *owner, uint16_t type, uint32_t ttl,
		     const char *target)
{
	knot_dname_storage_t dn;

	dname(dn, target);
	put(b, owner, type, ttl, dn, (uint16_t)knot_dname_size(dn));
}

/* put_soa: a SOA at zone with this TTL and MINIMUM */
static void put_soa(struct built *b, const char *zone, uint32_t ttl, uint32_t minimum)
{
	uint8_t rd[64];
	const uint8_t names[] = "\2ns\0\2hm"; /* ns. hm. */
	uint32_t v[5] = {1, 3600, 600, 86400, minimum};
	size_t o = sizeof(names);

	memcpy(rd, names, sizeof(names));
	for (int i = 0; i < 5; i++, o += 4)
		knot_wire_write_u32(rd + o, v[i]);
	put(b, zone, KNOT_RRTYPE_SOA, ttl, rd, (uint16_t)o);
}

/* end: the message done, parsed again as resolverd parses answers */
static void end(struct built *b)
{
	b->len = b->pkt->size;
	knot_pkt_free(b->pkt);
	b->pkt = rsv_msg_parse(b->wire, b->len);
	assert_non_null(b->pkt);
}

static void drop(struct built *b)
{
	knot_pkt_free(b->pkt);
	b->pkt = NULL;
}

/* the referral the TLD example. gives for x.lab.example: NS ns1, ns2 with
 * glue (ns2's with its own TTL), and an address out of bailiwick */
static void referral(struct built *b, uint32_t ns_ttl, uint32_t glue2_ttl)
{
	begin(b, "x.lab.example.", KNOT_RRTYPE_A, KNOT_RCODE_NOERROR, 0);
	section(b, KNOT_AUTHORITY);
	put_name(b, "lab.example.", KNOT_RRTYPE_NS, ns_ttl, "ns1.lab.example.");
	put_name(b, "lab.example.", KNOT_RRTYPE_NS, ns_ttl, "ns2.lab.example.");
	section(b, KNOT_ADDITIONAL);
	put_a(b, "ns1.lab.example.", ns_ttl, 3);
	put_a(b, "ns2.lab.example.", glue2_ttl, 4);
	put_a(b, "evil.other.", ns_ttl, 66); /* not a server of the cut */
	end(b);
}

static void test_referral(void **state)
{
	struct built b, m;
	struct rsv_iter_verdict v;
	struct rsv_key ask;
	knot_dname_storage_t zone, cut;
	const knot_pktsection_t *ad;

	(void)state;
	referral(&b, 300, 300);
	dname(zone, "example.");
	key(&ask, "x.lab.example.", KNOT_RRTYPE_A);
	assert_int_equal(rsv_iter_judge(b.pkt, zone, &ask, &v), RSV_ITER_REFERRAL);
	dname(cut, "lab.example.");
	assert_true(knot_dname_is_equal(v.cut, cut));
	assert_int_equal(v.ttl, 300);
	/* what is stored: both NS records, the glue of the NS names only */
	m.len = (size_t)rsv_iter_synth(b.pkt, zone, &ask, &v, m.wire, sizeof(m.wire));
	assert_true((int)m.len > 0);
	m.pkt = rsv_msg_parse(m.wire, m.len);
	assert_non_null(m.pkt);
	assert_int_equal(knot_pkt_qtype(m.pkt), KNOT_RRTYPE_NS);
	assert_int_equal(knot_pkt_section(m.pkt, KNOT_ANSWER)->count, 2);
	ad = knot_pkt_section(m.pkt, KNOT_ADDITIONAL);
	assert_int_equal(ad->count, 2);
	for (uint16_t i = 0; i < ad->count; i++)
		assert_true(rsv_iter_under(knot_pkt_rr(ad, i)->owner, cut));
	drop(&m);
	/* the same NS asked of lab.example's own servers is no referral (the
	 * cut is not below the zone asked): lame */
	assert_int_equal(rsv_iter_judge(b.pkt, cut, &ask, &v), RSV_ITER_LAME);
	/* nor is a referral for a zone the name is not in */
	key(&ask, "x.other.example.", KNOT_RRTYPE_A);
	assert_int_equal(rsv_iter_judge(b.pkt, zone, &ask, &v), RSV_ITER_LAME);
	drop(&b);
}

static void test_bailiwick(void **state)
{
	struct built b, m;
	struct rsv_iter_verdict v;
	struct rsv_key ask;
	knot_dname_storage_t zone, target;

	(void)state;
	/* lab.example's server answers www with the CNAME and, out of its
	 * bailiwick, an address for the target: the target is not taken */
	begin(&b, "www.lab.example.", KNOT_RRTYPE_A, KNOT_RCODE_NOERROR, 1);
	section(&b, KNOT_ANSWER);
	put_name(&b, "www.lab.example.", KNOT_RRTYPE_CNAME, 30, "edge.cdn.example.");
	put_a(&b, "edge.cdn.example.", 3600, 66);
	end(&b);
	dname(zone, "lab.example.");
	key(&ask, "www.lab.example.", KNOT_RRTYPE_A);
	assert_int_equal(rsv_iter_judge(b.pkt, zone, &ask, &v), RSV_ITER_CNAME);
	dname(target, "edge.cdn.example.");
	assert_true(knot_dname_is_equal(v.target, target));
	assert_int_equal(v.ttl, 30);
	m.len = (size_t)rsv_iter_synth(b.pkt, zone, &ask, &v, m.wire, sizeof(m.wire));
	m.pkt = rsv_msg_parse(m.wire, m.len);
	assert_non_null(m.pkt);
	assert_int_equal(knot_pkt_section(m.pkt, KNOT_ANSWER)->count, 1);
	assert_int_equal(knot_pkt_rr(knot_pkt_section(m.pkt, KNOT_ANSWER), 0)->type,
			 KNOT_RRTYPE_CNAME);
	assert_int_equal(rsv_iter_chain_next(m.pkt, &ask, target), 1);
	drop(&m);
	drop(&b);

	/* a chain inside the zone is followed; the answer is whole */
	begin(&b, "alias.lab.example.", KNOT_RRTYPE_A, KNOT_RCODE_NOERROR, 1);
	section(&b, KNOT_ANSWER);
	put_name(&b, "alias.lab.example.", KNOT_RRTYPE_CNAME, 60, "host.lab.example.");
	put_a(&b, "host.lab.example.", 20, 9);
	end(&b);
	key(&ask, "alias.lab.example.", KNOT_RRTYPE_A);
	assert_int_equal(rsv_iter_judge(b.pkt, zone, &ask, &v), RSV_ITER_ANSWER);
	assert_int_equal(v.ttl, 20);
	assert_int_equal(v.links, 1);
	drop(&b);

	/* a SOA of another zone makes no negative answer */
	begin(&b, "nx.lab.example.", KNOT_RRTYPE_A, KNOT_RCODE_NXDOMAIN, 1);
	section(&b, KNOT_AUTHORITY);
	put_soa(&b, "other.", 60, 60);
	end(&b);
	key(&ask, "nx.lab.example.", KNOT_RRTYPE_A);
	assert_int_equal(rsv_iter_judge(b.pkt, zone, &ask, &v), RSV_ITER_NOSOA);
	drop(&b);

	/* REFUSED and SERVFAIL: another server */
	begin(&b, "nx.lab.example.", KNOT_RRTYPE_A, KNOT_RCODE_REFUSED, 0);
	end(&b);
	assert_int_equal(rsv_iter_judge(b.pkt, zone, &ask, &v), RSV_ITER_FAILURE);
	drop(&b);
}

static void test_negative_from_tld(void **state)
{
	struct built b;
	struct rsv_iter_verdict v;
	struct rsv_key ask;
	knot_dname_storage_t zone;

	(void)state;
	/* the TLD says nx.example does not exist: SOA TTL 60, MINIMUM 5 */
	begin(&b, "nx.example.", KNOT_RRTYPE_A, KNOT_RCODE_NXDOMAIN, 1);
	section(&b, KNOT_AUTHORITY);
	put_soa(&b, "example.", 60, 5);
	end(&b);
	dname(zone, "example.");
	key(&ask, "nx.example.", KNOT_RRTYPE_A);
	assert_int_equal(rsv_iter_judge(b.pkt, zone, &ask, &v), RSV_ITER_NXDOMAIN);
	assert_int_equal(v.ttl, 5);
	drop(&b);
	/* NODATA: NOERROR, no answer, the SOA */
	begin(&b, "example.", KNOT_RRTYPE_AAAA, KNOT_RCODE_NOERROR, 1);
	section(&b, KNOT_AUTHORITY);
	put_soa(&b, "example.", 3, 60);
	end(&b);
	key(&ask, "example.", KNOT_RRTYPE_AAAA);
	assert_int_equal(rsv_iter_judge(b.pkt, zone, &ask, &v), RSV_ITER_NODATA);
	assert_int_equal(v.ttl, 3);
	drop(&b);
}

static void test_deleg_cache(void **state)
{
	struct rsv_cache_cfg cfg, dcfg;
	struct rsv_cache c;
	struct built b, m;
	struct rsv_iter_verdict v;
	struct rsv_key ask;
	struct rsv_deleg_servers s;
	knot_dname_storage_t zone, name;

	(void)state;
	rsv_conf_defaults(&cfg);
	cfg.phase = RSV_PHASE_FRACTION; /* not for delegations */
	cfg.phase_frac = 0.5;
	rsv_deleg_cfg(&dcfg, &cfg);
	assert_int_equal(rsv_cache_init(&c, &dcfg), 0);
	dname(name, "a.b.lab.example.");
	assert_int_equal(rsv_deleg_closest(&c, name, T0, &s), 0);
	assert_int_equal(s.cut[0], 0);

	/* NS for 300 s, ns1's glue 300 s, ns2's 100 s */
	referral(&b, 300, 100);
	dname(zone, "example.");
	key(&ask, "x.lab.example.", KNOT_RRTYPE_A);
	assert_int_equal(rsv_iter_judge(b.pkt, zone, &ask, &v), RSV_ITER_REFERRAL);
	m.len = (size_t)rsv_iter_synth(b.pkt, zone, &ask, &v, m.wire, sizeof(m.wire));
	assert_int_equal(rsv_deleg_store(&c, m.wire, m.len, T0), 0);

	/* the closest cut of a name below it */
	assert_int_equal(rsv_deleg_closest(&c, name, T0 + NSEC_PER_SEC, &s), 1);
	dname(zone, "lab.example.");
	assert_true(knot_dname_is_equal(s.cut, zone));
	assert_int_equal(s.naddr, 2);
	assert_int_equal(s.nmissing, 0);
	/* not of a name above it or beside it */
	dname(name, "example.");
	assert_int_equal(rsv_deleg_closest(&c, name, T0, &s), 0);
	dname(name, "www.cdn.example.");
	assert_int_equal(rsv_deleg_closest(&c, name, T0, &s), 0);

	/* ns2's glue expires at 100 s: one address left, ns2 missing */
	dname(name, "a.b.lab.example.");
	assert_int_equal(rsv_deleg_closest(&c, name, T0 + 100 * NSEC_PER_SEC, &s), 1);
	assert_int_equal(s.naddr, 1);
	assert_int_equal(s.nmissing, 1);
	dname(zone, "ns2.lab.example.");
	assert_true(knot_dname_is_equal(s.missing[0], zone));
	/* the cut expires at its NS TTL, exactly (no phase for delegations) */
	assert_int_equal(rsv_deleg_closest(&c, name, T0 + 300 * NSEC_PER_SEC - 1, &s), 1);
	assert_int_equal(rsv_deleg_closest(&c, name, T0 + 300 * NSEC_PER_SEC, &s), 0);
	/* max_ttl clamps a delegation as any answer */
	rsv_cache_free(&c);
	dcfg.max_ttl = 60;
	assert_int_equal(rsv_cache_init(&c, &dcfg), 0);
	assert_int_equal(rsv_deleg_store(&c, m.wire, m.len, T0), 0);
	assert_int_equal(rsv_deleg_closest(&c, name, T0 + 60 * NSEC_PER_SEC, &s), 0);
	rsv_cache_free(&c);
	drop(&b);
}

static void test_qmin(void **state)
{
	knot_dname_storage_t name, n, want;

	(void)state;
	dname(name, "www.lab.example.");
	rsv_iter_qmin_name(name, 1, n);
	dname(want, "example.");
	assert_true(knot_dname_is_equal(n, want));
	rsv_iter_qmin_name(name, 2, n);
	dname(want, "lab.example.");
	assert_true(knot_dname_is_equal(n, want));
	rsv_iter_qmin_name(name, 3, n);
	assert_true(knot_dname_is_equal(n, name));
	rsv_iter_qmin_name(name, 9, n);
	assert_true(knot_dname_is_equal(n, name));
}

static void test_ecs_option(void **state)
{
	struct rsv_key ask;
	struct built q;
	struct in_addr a, got;
	uint8_t source, scope;
	int n;

	(void)state;
	key(&ask, "geo.cdn.example.", KNOT_RRTYPE_A);
	inet_pton(AF_INET, "198.18.210.77", &a);
	n = rsv_iter_query(&ask, 7, &a, 24, q.wire, sizeof(q.wire));
	assert_true(n > 0);
	q.pkt = rsv_msg_parse(q.wire, (size_t)n);
	assert_non_null(q.pkt);
	assert_int_equal(knot_wire_get_rd(q.wire), 0);
	assert_int_equal(rsv_iter_ecs(q.pkt, &got, &source, &scope), 1);
	assert_int_equal(source, 24);
	assert_int_equal(scope, 0);
	inet_pton(AF_INET, "198.18.210.0", &a); /* cut to its source */
	assert_int_equal(got.s_addr, a.s_addr);
	drop(&q);
	n = rsv_iter_query(&ask, 7, NULL, 0, q.wire, sizeof(q.wire));
	q.pkt = rsv_msg_parse(q.wire, (size_t)n);
	assert_int_equal(rsv_iter_ecs(q.pkt, &got, &source, &scope), 0);
	drop(&q);
}

/*
 * The resolver's cache as the walk leaves it, read by a client's lookup.
 */
struct inst_fixture {
	struct rsv_conf conf;
	struct rsv_ctx ctx;
	struct rsv_inst in;
};

static int inst_setup(void **state)
{
	struct inst_fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->conf.mode = RSV_MODE_ITERATE;
	f->conf.ecs = 1;
	f->ctx.conf = &f->conf;
	f->ctx.now = T0;
	f->in.ctx = &f->ctx;
	rsv_conf_defaults(&f->conf.defaults);
	assert_int_equal(rsv_cache_init(&f->in.cache, &f->conf.defaults), 0);
	*state = f;
	return 0;
}

static int inst_teardown(void **state)
{
	struct inst_fixture *f = *state;

	rsv_cache_free(&f->in.cache);
	free(f);
	return 0;
}

/* store: the link verdict v of b (from zone) under k, as the walk does */
static void store(struct rsv_inst *in, const struct built *b, const char *zone,
		  const struct rsv_key *k, enum rsv_iter_kind want)
{
	static const enum rsv_kind kinds[] = {[RSV_ITER_ANSWER] = RSV_POSITIVE,
					      [RSV_ITER_CNAME] = RSV_POSITIVE,
					      [RSV_ITER_NXDOMAIN] = RSV_NXDOMAIN,
					      [RSV_ITER_NODATA] = RSV_NODATA};
	struct rsv_iter_verdict v;
	knot_dname_storage_t z;
	uint8_t m[KNOT_WIRE_MAX_PKTSIZE];
	int n;

	dname(z, zone);
	assert_int_equal(rsv_iter_judge(b->pkt, z, k, &v), want);
	n = rsv_iter_synth(b->pkt, z, k, &v, m, sizeof(m));
	assert_true(n > 0);
	assert_int_equal(
	    rsv_cache_store(&in->cache, k, kinds[v.kind], v.ttl, m, (size_t)n, in->ctx->now, NULL),
	    0);
}

/* client: a client's query for name/type, parsed */
static void client(struct built *b, const char *name, uint16_t type)
{
	knot_dname_storage_t dn;

	b->pkt = knot_pkt_new(b->wire, sizeof(b->wire), NULL);
	knot_pkt_clear(b->pkt);
	knot_wire_set_id(b->pkt->wire, 42);
	dname(dn, name);
	assert_int_equal(knot_pkt_put_question(b->pkt, dn, KNOT_CLASS_IN, type), KNOT_EOK);
	end(b);
}

/* answer_ttls: the answer section's records of a (len n) as "type:ttl ..." */
static void answer_ttls(const uint8_t *a, int n, char *buf, size_t len)
{
	knot_pkt_t *p = rsv_msg_parse(a, (size_t)n);
	const knot_pktsection_t *an;
	size_t o = 0;

	assert_non_null(p);
	an = knot_pkt_section(p, KNOT_ANSWER);
	buf[0] = 0;
	for (uint16_t i = 0; i < an->count; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%u:%u", i ? " " : "",
				      knot_pkt_rr(an, i)->type, knot_pkt_rr(an, i)->ttl);
	snprintf(buf + o, len - o, " rcode %u", knot_wire_get_rcode(p->wire));
	knot_pkt_free(p);
}

static void test_chain_cached(void **state)
{
	struct inst_fixture *f = *state;
	struct built b, q;
	struct rsv_key k1, k2;
	uint8_t out[RSV_UDP_MAX];
	char got[128];
	int n;

	/* www.lab.example CNAME (30 s) -> edge.cdn.example A (10 s) */
	begin(&b, "www.lab.example.", KNOT_RRTYPE_A, KNOT_RCODE_NOERROR, 1);
	section(&b, KNOT_ANSWER);
	put_name(&b, "www.lab.example.", KNOT_RRTYPE_CNAME, 30, "edge.cdn.example.");
	end(&b);
	key(&k1, "www.lab.example.", KNOT_RRTYPE_A);
	store(&f->in, &b, "lab.example.", &k1, RSV_ITER_CNAME);
	drop(&b);
	client(&q, "www.lab.example.", KNOT_RRTYPE_A);
	/* the target is not cached yet: a miss */
	assert_int_equal(rsv_iter_cached(&f->in, q.pkt, &k1, 0, NULL, out, sizeof(out)), 0);
	begin(&b, "edge.cdn.example.", KNOT_RRTYPE_A, KNOT_RCODE_NOERROR, 1);
	section(&b, KNOT_ANSWER);
	put_a(&b, "edge.cdn.example.", 10, 1);
	end(&b);
	key(&k2, "edge.cdn.example.", KNOT_RRTYPE_A);
	store(&f->in, &b, "cdn.example.", &k2, RSV_ITER_ANSWER);
	drop(&b);

	/* the whole chain, each link its own TTL */
	n = rsv_iter_cached(&f->in, q.pkt, &k1, 0, NULL, out, sizeof(out));
	assert_true(n > 0);
	answer_ttls(out, n, got, sizeof(got));
	assert_string_equal(got, "5:30 1:10 rcode 0");
	f->ctx.now = T0 + 4 * NSEC_PER_SEC;
	n = rsv_iter_cached(&f->in, q.pkt, &k1, 0, NULL, out, sizeof(out));
	answer_ttls(out, n, got, sizeof(got));
	assert_string_equal(got, "5:26 1:6 rcode 0");
	/* the A expires at 10 s: the chain is a miss, the CNAME still fresh */
	f->ctx.now = T0 + 10 * NSEC_PER_SEC;
	assert_int_equal(rsv_iter_cached(&f->in, q.pkt, &k1, 0, NULL, out, sizeof(out)), 0);
	/* serve-stale off: nothing stale either */
	assert_int_equal(rsv_iter_cached(&f->in, q.pkt, &k1, 1, NULL, out, sizeof(out)), 0);
	/* with serve-stale, the expired link is answered with stale_ttl */
	f->in.cache.cfg.serve_stale = 1;
	n = rsv_iter_cached(&f->in, q.pkt, &k1, 1, NULL, out, sizeof(out));
	answer_ttls(out, n, got, sizeof(got));
	assert_string_equal(got, "5:20 1:30 rcode 0");
	drop(&q);
}

static void test_nxdomain_cached(void **state)
{
	struct inst_fixture *f = *state;
	struct built b, q;
	struct rsv_key k;
	uint8_t out[RSV_UDP_MAX];
	struct rsv_lookup l;
	int n;

	begin(&b, "nx.example.", KNOT_RRTYPE_A, KNOT_RCODE_NXDOMAIN, 1);
	section(&b, KNOT_AUTHORITY);
	put_soa(&b, "example.", 60, 5);
	end(&b);
	key(&k, "nx.example.", KNOT_RRTYPE_A);
	store(&f->in, &b, "example.", &k, RSV_ITER_NXDOMAIN);
	drop(&b);
	client(&q, "nx.example.", KNOT_RRTYPE_A);
	n = rsv_iter_cached(&f->in, q.pkt, &k, 0, NULL, out, sizeof(out));
	assert_true(n > 0);
	assert_int_equal(knot_wire_get_rcode(out), KNOT_RCODE_NXDOMAIN);
	assert_int_equal(knot_wire_get_nscount(out), 1);
	/* kept for the SOA's 5 s, not its 60 */
	f->ctx.now = T0 + 5 * NSEC_PER_SEC;
	rsv_cache_lookup(&f->in.cache, &k, f->ctx.now, &l);
	assert_int_equal(l.result, RSV_EXPIRED);
	drop(&q);
}

static void test_ecs_scopes(void **state)
{
	struct inst_fixture *f = *state;
	struct rsv_key k, ka, kc, lk;
	struct rsv_ecs a = {.source = 24}, c = {.source = 24}, wide = {.source = 16};
	struct rsv_lookup l;
	const uint8_t msg[KNOT_WIRE_HEADER_SIZE] = {0};

	inet_pton(AF_INET, "198.18.210.0", &a.addr);
	inet_pton(AF_INET, "198.18.211.0", &c.addr);
	inet_pton(AF_INET, "198.18.0.0", &wide.addr);
	key(&k, "geo.cdn.example.", KNOT_RRTYPE_A);
	rsv_iter_lookup(&f->in, &k, &a, &l, &lk);
	assert_int_equal(l.result, RSV_MISS);
	/* a miss is resolved under the key scoped to the client's /24: a
	 * first label of its 8 hex digits, class 0xFF00 + 24; so two subnets
	 * do not wait on one query */
	assert_int_equal(rsv_iter_scoped_key(&k, a.addr, 24, &ka), 0);
	assert_int_equal(ka.len, k.len + 9);
	assert_memory_equal(ka.name, "\010c612d200", 9);
	assert_memory_equal(ka.name + 9, k.name, k.len);
	assert_int_equal(ka.cls, 0xff18);
	assert_int_equal(rsv_iter_scoped_key(&k, c.addr, 24, &kc), 0);
	assert_memory_not_equal(ka.name, kc.name, ka.len);
	/* answers of scope 24 for each subnet */
	assert_int_equal(
	    rsv_cache_store(&f->in.cache, &ka, RSV_POSITIVE, 60, msg, sizeof(msg), T0, NULL), 0);
	assert_int_equal(
	    rsv_cache_store(&f->in.cache, &kc, RSV_POSITIVE, 60, msg, sizeof(msg), T0, NULL), 0);
	f->in.ecs_scopes |= 1u << 24;
	rsv_iter_lookup(&f->in, &k, &a, &l, &lk);
	assert_int_equal(l.result, RSV_HIT);
	assert_memory_equal(lk.name, ka.name, ka.len);
	rsv_iter_lookup(&f->in, &k, &c, &l, &lk);
	assert_int_equal(l.result, RSV_HIT);
	assert_memory_equal(lk.name, kc.name, kc.len);
	/* a client whose source is /16 cannot use a /24 answer */
	rsv_iter_lookup(&f->in, &k, &wide, &l, &lk);
	assert_int_equal(l.result, RSV_MISS);
	/* an answer of scope 0 is the plain key's, for everyone */
	assert_int_equal(
	    rsv_cache_store(&f->in.cache, &k, RSV_POSITIVE, 60, msg, sizeof(msg), T0, NULL), 0);
	rsv_iter_lookup(&f->in, &k, &wide, &l, &lk);
	assert_int_equal(l.result, RSV_HIT);
	assert_int_equal(lk.cls, KNOT_CLASS_IN);
	rsv_iter_lookup(&f->in, &k, NULL, &l, &lk);
	assert_int_equal(l.result, RSV_HIT);
	/* once all expired: the scoped entry, to refresh or answer stale */
	f->ctx.now = T0 + 60 * NSEC_PER_SEC;
	rsv_iter_lookup(&f->in, &k, &a, &l, &lk);
	assert_int_equal(l.result, RSV_EXPIRED);
	assert_int_equal(lk.cls, KNOT_CLASS_IN); /* the plain one comes first */
}

static void test_ecs_echo(void **state)
{
	struct inst_fixture *f = *state;
	struct rsv_key k, ka;
	struct rsv_ecs a = {.source = 24};
	struct built q;
	uint8_t out[RSV_UDP_MAX], source, scope;
	const uint8_t msg[KNOT_WIRE_HEADER_SIZE] = {0};
	struct in_addr got;
	knot_pkt_t *ans;
	int n;

	inet_pton(AF_INET, "198.18.210.0", &a.addr);
	key(&k, "geo.cdn.example.", KNOT_RRTYPE_A);
	assert_int_equal(rsv_iter_scoped_key(&k, a.addr, 20, &ka), 0);
	assert_int_equal(
	    rsv_cache_store(&f->in.cache, &ka, RSV_POSITIVE, 60, msg, sizeof(msg), T0, NULL), 0);
	f->in.ecs_scopes |= 1u << 20;
	/* a client that sent 198.18.210.0/24 gets it back with the scope, 20 */
	n = rsv_iter_query(&k, 9, &a.addr, 24, q.wire, sizeof(q.wire));
	q.pkt = rsv_msg_parse(q.wire, (size_t)n);
	assert_non_null(q.pkt);
	n = rsv_iter_cached(&f->in, q.pkt, &k, 0, &a, out, sizeof(out));
	assert_true(n > 0);
	ans = rsv_msg_parse(out, (size_t)n);
	assert_non_null(ans);
	assert_int_equal(rsv_iter_ecs(ans, &got, &source, &scope), 1);
	assert_int_equal(got.s_addr, a.addr.s_addr);
	assert_int_equal(source, 24);
	assert_int_equal(scope, 20);
	knot_pkt_free(ans);
	drop(&q);
	/* one that sent none gets none */
	n = rsv_iter_query(&k, 9, NULL, 0, q.wire, sizeof(q.wire));
	q.pkt = rsv_msg_parse(q.wire, (size_t)n);
	n = rsv_iter_cached(&f->in, q.pkt, &k, 0, &a, out, sizeof(out));
	ans = rsv_msg_parse(out, (size_t)n);
	assert_non_null(ans);
	assert_int_equal(rsv_iter_ecs(ans, &got, &source, &scope), 0);
	knot_pkt_free(ans);
	drop(&q);
}

static void test_client_ecs(void **state)
{
	struct rsv_client udp = {.tcp = 0}, tcp = {.tcp = 1};
	struct built q;
	struct rsv_ecs e;
	char a[INET_ADDRSTRLEN];

	(void)state;
	inet_pton(AF_INET, "198.18.210.77", &udp.addr.sin_addr);
	client(&q, "geo.cdn.example.", KNOT_RRTYPE_A);
	/* no ECS in the query: the source address's /24 */
	assert_int_equal(rsv_iter_client_ecs(q.pkt, &udp, &e), 1);
	assert_int_equal(e.source, 24);
	assert_string_equal(inet_ntop(AF_INET, &e.addr, a, sizeof(a)), "198.18.210.0");
	/* over TCP the source is not known here: nothing passed on */
	assert_int_equal(rsv_iter_client_ecs(q.pkt, &tcp, &e), 0);
	drop(&q);
}

/* a walk over IPv6 (transport = 6) keeps a referral's AAAA glue, not its
 * A glue, and the delegation cache gives the servers' IPv6 addresses */
static void test_aaaa_glue(void **state)
{
	struct rsv_cache_cfg cfg, dcfg;
	struct rsv_cache c;
	struct built b, m;
	struct rsv_iter_verdict v;
	struct rsv_key ask;
	struct rsv_deleg_servers s;
	knot_dname_storage_t zone, name;
	const knot_pktsection_t *ad;
	uint8_t a6[16] = {0x20, 0x01, 0, 2, [15] = 3};
	char t[INET6_ADDRSTRLEN];

	(void)state;
	begin(&b, "x.lab.example.", KNOT_RRTYPE_A, KNOT_RCODE_NOERROR, 0);
	section(&b, KNOT_AUTHORITY);
	put_name(&b, "lab.example.", KNOT_RRTYPE_NS, 300, "ns1.lab.example.");
	put_name(&b, "lab.example.", KNOT_RRTYPE_NS, 300, "ns2.lab.example.");
	section(&b, KNOT_ADDITIONAL);
	put_a(&b, "ns1.lab.example.", 300, 3);
	put(&b, "ns1.lab.example.", KNOT_RRTYPE_AAAA, 300, a6, 16);
	put_a(&b, "ns2.lab.example.", 300, 4);
	end(&b);
	dname(zone, "example.");
	key(&ask, "x.lab.example.", KNOT_RRTYPE_A);
	assert_int_equal(rsv_iter_judge(b.pkt, zone, &ask, &v), RSV_ITER_REFERRAL);
	/* over IPv4 as ever: the A glue alone */
	m.len = (size_t)rsv_iter_synth(b.pkt, zone, &ask, &v, m.wire, sizeof(m.wire));
	m.pkt = rsv_msg_parse(m.wire, m.len);
	assert_non_null(m.pkt);
	ad = knot_pkt_section(m.pkt, KNOT_ADDITIONAL);
	assert_int_equal(ad->count, 2);
	for (uint16_t i = 0; i < ad->count; i++)
		assert_int_equal(knot_pkt_rr(ad, i)->type, KNOT_RRTYPE_A);
	drop(&m);
	/* over IPv6: the AAAA glue alone */
	m.len = (size_t)rsv_iter_synth_glue(b.pkt, zone, &ask, &v, KNOT_RRTYPE_AAAA, m.wire,
					    sizeof(m.wire));
	m.pkt = rsv_msg_parse(m.wire, m.len);
	assert_non_null(m.pkt);
	ad = knot_pkt_section(m.pkt, KNOT_ADDITIONAL);
	assert_int_equal(ad->count, 1);
	assert_int_equal(knot_pkt_rr(ad, 0)->type, KNOT_RRTYPE_AAAA);
	drop(&m);
	/* stored: ns1 has an IPv6 address, ns2 none (to be resolved) */
	rsv_conf_defaults(&cfg);
	rsv_deleg_cfg(&dcfg, &cfg);
	assert_int_equal(rsv_cache_init(&c, &dcfg), 0);
	m.len = (size_t)rsv_iter_synth_glue(b.pkt, zone, &ask, &v, KNOT_RRTYPE_AAAA, m.wire,
					    sizeof(m.wire));
	assert_int_equal(rsv_deleg_store(&c, m.wire, m.len, T0), 0);
	dname(name, "a.lab.example.");
	assert_int_equal(rsv_deleg_closest_type(&c, name, KNOT_RRTYPE_AAAA, T0, &s), 1);
	assert_int_equal(s.naddr, 1);
	assert_string_equal(inet_ntop(AF_INET6, &s.addr6[0], t, sizeof(t)), "2001:2::3");
	assert_int_equal(s.nmissing, 1);
	dname(name, "ns2.lab.example.");
	assert_true(knot_dname_is_equal(s.missing[0], name));
	/* and no IPv4 address for either */
	dname(name, "a.lab.example.");
	assert_int_equal(rsv_deleg_closest(&c, name, T0, &s), 1);
	assert_int_equal(s.naddr, 0);
	assert_int_equal(s.nmissing, 2);
	rsv_cache_free(&c);
	drop(&b);
}

/* ECS keys for IPv6 subnets: the /56's first 64 bits in hex, class 0xFF80
 * + the length; clients of one /56 share one, of two /56 not, and an IPv4
 * key never equals an IPv6 one */
static void test_ecs6_keys(void **state)
{
	struct inst_fixture *f = *state;
	struct rsv_key k, k1, k2, k3, k4, plain, lk;
	struct rsv_ecs e1 = {.v6 = 1, .source = 56}, e2 = e1, e3 = e1, e4 = {.source = 24}, d;
	struct rsv_lookup l;
	const uint8_t msg[KNOT_WIRE_HEADER_SIZE] = {0};
	int v6;

	inet_pton(AF_INET6, "2001:2:0:9000::", &e1.addr6);
	inet_pton(AF_INET6, "2001:2:0:90ff::2", &e2.addr6); /* not masked: the key masks */
	inet_pton(AF_INET6, "2001:2:0:9100::", &e3.addr6);
	inet_pton(AF_INET, "32.1.0.0", &e4.addr); /* 2001:0... as IPv4 */
	key(&k, "geo.cdn.example.", KNOT_RRTYPE_A);
	assert_int_equal(rsv_iter_ecs_key(&k, &e1, 56, &k1), 0);
	assert_int_equal(k1.len, k.len + 17);
	assert_memory_equal(k1.name, "\0202001000200009000", 17);
	assert_memory_equal(k1.name + 17, k.name, k.len);
	assert_int_equal(k1.cls, 0xff80 + 56);
	assert_int_equal(rsv_iter_ecs_key(&k, &e2, 56, &k2), 0);
	assert_int_equal(k2.len, k1.len);
	assert_memory_equal(k2.name, k1.name, k1.len);
	assert_int_equal(rsv_iter_ecs_key(&k, &e3, 56, &k3), 0);
	assert_memory_not_equal(k3.name, k1.name, k1.len);
	assert_int_equal(rsv_iter_ecs_key(&k, &e4, 24, &k4), 0);
	assert_int_equal(k4.cls, 0xff00 + 24);
	assert_int_not_equal(k4.len, k1.len);
	/* back from a key: the family, the subnet, the plain key */
	assert_int_equal(rsv_iter_key_scope(&k1, &v6), 56);
	assert_int_equal(v6, 1);
	assert_int_equal(rsv_iter_key_scope(&k4, &v6), 24);
	assert_int_equal(v6, 0);
	assert_int_equal(rsv_iter_key_scope(&k, NULL), 0);
	assert_int_equal(rsv_iter_key_ecs(&k2, &plain, &d), 1);
	assert_int_equal(d.v6, 1);
	assert_int_equal(d.source, 56);
	assert_memory_equal(&d.addr6, &e1.addr6, 16);
	assert_int_equal(plain.len, k.len);
	assert_memory_equal(plain.name, k.name, k.len);
	assert_int_equal(plain.cls, KNOT_CLASS_IN);
	assert_int_equal(rsv_iter_key_ecs(&k, &plain, &d), 0);
	/* a /56 answer for e1's subnet: found for e2, not e3, nor the IPv4
	 * client of the same bits */
	assert_int_equal(
	    rsv_cache_store(&f->in.cache, &k1, RSV_POSITIVE, 60, msg, sizeof(msg), T0, NULL), 0);
	f->in.ecs_scopes6 |= 1ull << 56;
	rsv_iter_lookup(&f->in, &k, &e2, &l, &lk);
	assert_int_equal(l.result, RSV_HIT);
	assert_memory_equal(lk.name, k1.name, k1.len);
	rsv_iter_lookup(&f->in, &k, &e3, &l, &lk);
	assert_int_equal(l.result, RSV_MISS);
	rsv_iter_lookup(&f->in, &k, &e4, &l, &lk);
	assert_int_equal(l.result, RSV_MISS);
}

static void test_client_ecs6(void **state)
{
	struct rsv_client udp = {.tcp = 0};
	struct built q;
	struct rsv_ecs e;
	char a[INET6_ADDRSTRLEN];

	(void)state;
	udp.addr.sin_family = AF_INET6;
	udp.addr6.sin6_family = AF_INET6;
	inet_pton(AF_INET6, "2001:2:0:90ff:1:2:3:4", &udp.addr6.sin6_addr);
	client(&q, "geo.cdn.example.", KNOT_RRTYPE_A);
	/* no ECS in the query: the IPv6 source address's /56 */
	assert_int_equal(rsv_iter_client_ecs(q.pkt, &udp, &e), 1);
	assert_int_equal(e.v6, 1);
	assert_int_equal(e.source, 56);
	assert_string_equal(inet_ntop(AF_INET6, &e.addr6, a, sizeof(a)), "2001:2:0:9000::");
	drop(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_referral),
	    cmocka_unit_test(test_bailiwick),
	    cmocka_unit_test(test_negative_from_tld),
	    cmocka_unit_test(test_deleg_cache),
	    cmocka_unit_test(test_qmin),
	    cmocka_unit_test(test_ecs_option),
	    cmocka_unit_test_setup_teardown(test_chain_cached, inst_setup, inst_teardown),
	    cmocka_unit_test_setup_teardown(test_nxdomain_cached, inst_setup, inst_teardown),
	    cmocka_unit_test_setup_teardown(test_ecs_scopes, inst_setup, inst_teardown),
	    cmocka_unit_test_setup_teardown(test_ecs_echo, inst_setup, inst_teardown),
	    cmocka_unit_test(test_client_ecs),
	    cmocka_unit_test(test_aaaa_glue),
	    cmocka_unit_test_setup_teardown(test_ecs6_keys, inst_setup, inst_teardown),
	    cmocka_unit_test(test_client_ecs6),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
