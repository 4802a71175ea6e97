/*
 * The resolver measurements (probes/clocks/clocks_resolvers.c,
 * clocks_topo.c; docs/clocks.md, "Resolvers"): the level of a [dns] node,
 * the DNS side of a recorded topology, the upstream queries per node and
 * level, the cache-answered classifier on synthetic packet lists, the decay
 * of each node's clients and the resolver_no_failover check.
 */
#include "test_clocks_util.h"

#include "clocks_int.h"

#define RSV1 "198.18.128.1"  /* node 0's cache 1 */
#define RSV1B "198.18.128.2" /* node 0's cache 2 */
#define RSV2 "198.18.129.1"  /* node 1's cache 1 */
#define CLIENT "198.18.0.26"
#define AUTH "198.18.0.10"
#define BLOCK0 CLOCKS_RSV_BLOCK(0)

static struct in_addr ip(const char *s)
{
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a;
}

/* a client's query (port 40000 + id) to cache, its answer, an upstream
 * query of cache, an upstream answer to it */
static struct clocks_dnsmsg cq(int64_t t, const char *cache, uint16_t id)
{
	return (struct clocks_dnsmsg){t,  ip(CLIENT), ip(cache), (uint16_t)(40000 + id),
				      53, id,	      0,	 0};
}

static struct clocks_dnsmsg ca(int64_t t, const char *cache, uint16_t id, uint8_t rcode)
{
	return (struct clocks_dnsmsg){t,  ip(cache), ip(CLIENT), 53, (uint16_t)(40000 + id),
				      id, 1,	     rcode};
}

static struct clocks_dnsmsg uq(int64_t t, const char *cache)
{
	return (struct clocks_dnsmsg){t, ip(cache), ip(AUTH), 33333, 53, 99, 0, 0};
}

static struct clocks_dnsmsg ua(int64_t t, const char *cache)
{
	return (struct clocks_dnsmsg){t, ip(AUTH), ip(cache), 53, 33333, 99, 1, 0};
}

static void test_dns_level(void **state)
{
	const char *root[] = {"."}, *tld[] = {"example."}, *tld2[] = {"com"},
		   *zone[] = {"lab.example."}, *mixed[] = {"lab.example", "example", "."};

	(void)state;
	assert_int_equal(clocks_dns_level(root, 1), CLOCKS_LEVEL_ROOT);
	assert_int_equal(clocks_dns_level(tld, 1), CLOCKS_LEVEL_TLD);
	assert_int_equal(clocks_dns_level(tld2, 1), CLOCKS_LEVEL_TLD);
	assert_int_equal(clocks_dns_level(zone, 1), CLOCKS_LEVEL_ZONE);
	assert_int_equal(clocks_dns_level(mixed, 2), CLOCKS_LEVEL_TLD);
	assert_int_equal(clocks_dns_level(mixed, 3), CLOCKS_LEVEL_ROOT);
	assert_int_equal(clocks_dns_level(NULL, 0), CLOCKS_LEVEL_ZONE);
}

/* the topology as recorded: nodes in file order, zones claimed or not */
static void test_topology(void **state)
{
	char *dir = rundir_new("rsvtopo");
	struct clocks_input in;

	(void)state;
	assert_non_null(dir);
	put(dir, "topology.ini",
	    "[lab]\nname = t\n\n[router core]\n\n[dns root]\nlink = core\nzones = .\n\n"
	    "[dns tld]\nlink = core\nzones = example.\n\n[dns ns]\nlink = core\n\n"
	    "[resolver r1]\nlink = core\n\n[resolver r2]\nlink = core\nimpl = unbound\n"
	    "count = 1\n\n[client c1]\nlink = core\nresolver = r2.1\n\n[client c2]\n"
	    "link = core\nresolver = ns\n\n[client c3]\nlink = core\nresolver = r1\n\n"
	    "[zone .]\nttl = 60\n\n[zone example]\nttl = 60\n\n[zone lab.example]\nttl = 60\n");
	clocks_input_init(&in);
	clocks_read_dns_topology(dir, &in);
	assert_int_equal(in.dnstopo.nrsv, 2);
	assert_string_equal(in.dnstopo.rsv[0].name, "r1");
	assert_string_equal(in.dnstopo.rsv[0].impl, "");
	assert_string_equal(in.dnstopo.rsv[1].impl, "unbound");
	assert_int_equal(in.dnstopo.rsv[1].count, 1);
	assert_int_equal(in.dnstopo.ndns, 3);
	assert_int_equal(in.dnstopo.dns[0].level, CLOCKS_LEVEL_ROOT);
	assert_int_equal(in.dnstopo.dns[1].level, CLOCKS_LEVEL_TLD);
	/* ns has no zones key: it serves the zone nobody claims */
	assert_int_equal(in.dnstopo.dns[2].level, CLOCKS_LEVEL_ZONE);
	assert_int_equal(in.dnstopo.nclients, 3);
	assert_int_equal(in.dnstopo.clients[0].rsv, 1);
	assert_int_equal(in.dnstopo.clients[1].rsv, -1); /* asks a [dns] node */
	assert_int_equal(in.dnstopo.clients[2].rsv, 0);
	assert_int_equal(clocks_rsv_of_addr(&in, ip("198.18.129.7")), 1);
	assert_int_equal(clocks_rsv_of_addr(&in, ip("198.18.130.1")), -1);
	assert_int_equal(clocks_rsv_of_addr(&in, ip(CLIENT)), -1);
	rundir_free(dir);
}

/* a lab with dns_tree = yes, as the lab prints it back: the root and tld
 * nodes it added are comments, and still count at their levels */
static void test_topology_dns_tree(void **state)
{
	char *dir = rundir_new("rsvtree");
	struct clocks_input in;

	(void)state;
	assert_non_null(dir);
	put(dir, "topology.ini",
	    "[lab]\nname = t\ndns_tree = yes\n\n[router core]\n\n[dns ns]\nlink = core\n"
	    "zones = lab.example\n\n# [dns root]: added by [lab] dns_tree\n# zones = .\n\n"
	    "[resolver r1]\nlink = core\n\n[zone lab.example]\nttl = 60\n\n"
	    "# [zone .]: added by [lab] dns_tree\n");
	clocks_input_init(&in);
	clocks_read_dns_topology(dir, &in);
	assert_int_equal(in.dnstopo.ndns, 3);
	assert_string_equal(in.dnstopo.dns[0].name, "ns");
	assert_int_equal(in.dnstopo.dns[0].level, CLOCKS_LEVEL_ZONE);
	assert_string_equal(in.dnstopo.dns[1].name, "root");
	assert_int_equal(in.dnstopo.dns[1].level, CLOCKS_LEVEL_ROOT);
	assert_string_equal(in.dnstopo.dns[2].name, "tld");
	assert_int_equal(in.dnstopo.dns[2].level, CLOCKS_LEVEL_TLD);
	rundir_free(dir);
}

/* every client query answered from cache, by an upstream answer, with
 * SERVFAIL, or not at all */
static void test_cache_classify(void **state)
{
	const int64_t u = MS / 10; /* 100 us */
	struct clocks_dnsmsg m[] = {
	    /* a hit: answered at once */
	    cq(T0, RSV1, 1),
	    ca(T0 + u, RSV1, 1, 0),
	    /* a miss: the cache asks upstream and answers after its answer */
	    cq(T0 + 10 * MS, RSV1, 2),
	    uq(T0 + 10 * MS + u, RSV1),
	    /* a query coalesced on the same upstream query: a miss too */
	    cq(T0 + 10 * MS + 2 * u, RSV1, 3),
	    ua(T0 + 10 * MS + 5 * u, RSV1),
	    ca(T0 + 10 * MS + 6 * u, RSV1, 2, 0),
	    ca(T0 + 10 * MS + 6 * u, RSV1, 3, 0),
	    /* a hit that starts a prefetch: the answer leaves before the
	     * upstream one comes back */
	    cq(T0 + 20 * MS, RSV1, 4),
	    uq(T0 + 20 * MS + u, RSV1),
	    ca(T0 + 20 * MS + 2 * u, RSV1, 4, 0),
	    ua(T0 + 20 * MS + 5 * u, RSV1),
	    /* the upstream timed out: SERVFAIL, from nowhere */
	    cq(T0 + 30 * MS, RSV1, 5),
	    uq(T0 + 30 * MS + u, RSV1),
	    ca(T0 + 1030 * MS, RSV1, 5, 2),
	    /* an answer of another id, port or cache answers nothing */
	    cq(T0 + 1100 * MS, RSV1, 6),
	    ca(T0 + 1100 * MS + u, RSV1, 7, 0),
	    /* never answered */
	    cq(T0 + 1200 * MS, RSV1, 8),
	    /* another node's query, on this link: not a client's of this one */
	    cq(T0 + 1300 * MS, RSV2, 9),
	    ca(T0 + 1300 * MS + u, RSV2, 9, 0),
	    /* a hit of cache 2 while cache 1 of the node gets an upstream
	     * answer: each cache waits only for its own */
	    cq(T0 + 1400 * MS, RSV1B, 11),
	    ua(T0 + 1400 * MS + u, RSV1),
	    ca(T0 + 1400 * MS + 2 * u, RSV1B, 11, 0),
	    /* a hit long after: the unanswered ones are given up by then */
	    cq(T0 + 9000 * MS, RSV1, 10),
	    ca(T0 + 9000 * MS + u, RSV1, 10, 0),
	};
	size_t n = sizeof(m) / sizeof(m[0]);
	struct clocks_cache_counts c, by[CLOCKS_RSV_CACHES];

	(void)state;
	assert_int_equal(clocks_cache_classify(m, n, BLOCK0, CLOCKS_NONE, &c, by), 0);
	assert_int_equal(c.queries, 9);
	assert_int_equal(c.answered, 7);
	assert_int_equal(c.cache, 4);	 /* 1, 4, 11, 10 */
	assert_int_equal(c.upstream, 2); /* 2, 3 */
	assert_int_equal(c.servfail, 1); /* 5 */
	assert_int_equal(c.unanswered, 2);
	/* per cache: cache 2 had one query, a hit; cache 1 the others */
	assert_int_equal(by[2].queries, 1);
	assert_int_equal(by[2].cache, 1);
	assert_int_equal(by[1].queries, 8);
	assert_int_equal(by[1].cache, 3);
	assert_int_equal(by[1].upstream, 2);
	assert_int_equal(by[0].queries + by[3].queries, 0);
	/* after an instant: only the queries that arrived after it count */
	assert_int_equal(clocks_cache_classify(m, n, BLOCK0, T0 + 15 * MS, &c, NULL), 0);
	assert_int_equal(c.queries, 6);
	assert_int_equal(c.cache, 3);
	assert_int_equal(c.upstream, 0);
	assert_int_equal(c.servfail, 1);
	assert_int_equal(c.unanswered, 2);
	/* nothing captured */
	assert_int_equal(clocks_cache_classify(m, 0, BLOCK0, CLOCKS_NONE, &c, NULL), 0);
	assert_int_equal(c.queries + c.answered + c.unanswered, 0);
}

/* the DNS message decoder takes both directions of port 53 */
static void test_decode_dnsmsg(void **state)
{
	static const uint8_t answer[] = "\xab\xcd\x81\x82\x00\x01\x00\x00\x00\x00\x00\x00";
	uint8_t f[FRAME_MAX];
	struct clocks_dnsmsg m;
	size_t len;
	char s[INET_ADDRSTRLEN];

	(void)state;
	len = udp_frame(f, RSV1, CLIENT, 53, answer, 12);
	/* udp_frame sends from port 40000 to 53: make it an answer from 53 */
	f[14 + 20] = 0, f[14 + 20 + 1] = 53;
	f[14 + 20 + 2] = 0x9c, f[14 + 20 + 3] = 0x41; /* 40001 */
	assert_int_equal(clocks_decode_dnsmsg(NULL, DLT_EN10MB, f, len, &m), 0);
	assert_int_equal(m.sport, 53);
	assert_int_equal(m.dport, 40001);
	assert_int_equal(m.id, 0xabcd);
	assert_int_equal(m.qr, 1);
	assert_int_equal(m.rcode, 2);
	assert_string_equal(inet_ntop(AF_INET, &m.src, s, sizeof(s)), RSV1);
	/* not DNS: neither port is 53 */
	f[14 + 20 + 1] = 54;
	assert_int_equal(clocks_decode_dnsmsg(NULL, DLT_EN10MB, f, len, &m), -1);
	/* too short for a header */
	len = udp_frame(f, RSV1, CLIENT, 53, answer, 8);
	assert_int_equal(clocks_decode_dnsmsg(NULL, DLT_EN10MB, f, len, &m), -1);
}

/* over IPv6 (a dual lab's resolvers asked over IPv6): a query, an answer
 * and its AAAA read as their IPv4 twins' (lab_up's twins); an address of
 * no twin, or no twins at all, is no DNS message of the lab's */
static void test_decode_ipv6(void **state)
{
	static const uint8_t query[] = "\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00"
				       "\x03www\x03lab\x07"
				       "example\x00\x00\x1c\x00\x01";
	/* the answer: two AAAA, a's own and one of no twin */
	static const uint8_t answer[] =
	    "\x12\x34\x81\x80\x00\x01\x00\x02\x00\x00\x00\x00"
	    "\x03www\x03lab\x07"
	    "example\x00\x00\x1c\x00\x01"
	    "\xc0\x0c\x00\x1c\x00\x01\x00\x00\x00\x02\x00\x10"
	    "\x20\x01\x00\x02\x00\x00\xff\x01\x00\x00\x00\x00\x00\x00\x00\x01"
	    "\xc0\x0c\x00\x1c\x00\x01\x00\x00\x00\x02\x00\x10"
	    "\x20\x01\x00\x02\x00\x00\xff\x09\x00\x00\x00\x00\x00\x00\x00\x09";
	static const char *const twins[][2] = {
	    {"2001:2:0:8000::1", RSV1}, {"2001:2::2", CLIENT}, {"2001:2:0:ff01::1", "198.19.1.1"}};
	uint8_t f[FRAME_MAX];
	struct clocks_input in;
	struct clocks_dnsmsg m;
	struct clocks_response r;
	struct in_addr src;
	const uint8_t *qname;
	size_t len, qlen;
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
	len = udp_frame(f, "2001:2::2", "2001:2:0:8000::1", 53, query, sizeof(query) - 1);
	assert_int_equal(clocks_decode_query(&in, DLT_EN10MB, f, len, &src), 0);
	assert_string_equal(inet_ntop(AF_INET, &src, s, sizeof(s)), CLIENT);
	assert_int_equal(clocks_decode_dnsmsg(&in, DLT_EN10MB, f, len, &m), 0);
	assert_string_equal(inet_ntop(AF_INET, &m.src, s, sizeof(s)), CLIENT);
	assert_string_equal(inet_ntop(AF_INET, &m.dst, s, sizeof(s)), RSV1);
	assert_int_equal(m.qr, 0);
	/* no twins: IPv4 alone */
	assert_int_equal(clocks_decode_query(NULL, DLT_EN10MB, f, len, &src), -1);
	assert_int_equal(clocks_decode_dnsmsg(NULL, DLT_EN10MB, f, len, &m), -1);
	/* from an address of no twin */
	len = udp_frame(f, "2001:2::99", "2001:2:0:8000::1", 53, query, sizeof(query) - 1);
	assert_int_equal(clocks_decode_query(&in, DLT_EN10MB, f, len, &src), -1);
	/* the answer from 53: its AAAA of a twin is a's, the other left out */
	len = udp_frame(f, "2001:2:0:8000::1", "2001:2::2", 40001, answer, sizeof(answer) - 1);
	f[14 + 40] = 0, f[14 + 40 + 1] = 53;
	assert_int_equal(clocks_decode_response(&in, DLT_EN10MB, f, len, &r, &qname, &qlen), 0);
	assert_string_equal(inet_ntop(AF_INET, &r.src, s, sizeof(s)), RSV1);
	assert_int_equal(r.naddr, 1);
	assert_string_equal(inet_ntop(AF_INET, &r.addr[0], s, sizeof(s)), "198.19.1.1");
	assert_int_equal(clocks_decode_dnsmsg(&in, DLT_EN10MB, f, len, &m), 0);
	assert_int_equal(m.qr, 1);
	assert_int_equal(m.sport, 53);
	clocks_input_free(&in);
}

/* a hand-built run: two [resolver] nodes, root/tld/zone [dns] nodes,
 * clients 1 (on r1) and 2 (on r2); t0 = T0, site a dead */
static void rsv_input(struct clocks_input *in, struct clocks_client *cl,
		      struct clocks_query_capture *qc, struct clocks_capture *sc)
{
	clocks_input_init(in);
	in->failure.t0_ns = T0;
	strcpy(in->failure.site, "a");
	in->failure.has_address = 1;
	in->failure.address = ip(ADDR_A);
	in->traffic_start_ns = T0 - 1000 * MS;
	in->traffic_duration_ns = 3000 * MS;
	in->dnstopo.nrsv = 2;
	strcpy(in->dnstopo.rsv[0].name, "r1");
	strcpy(in->dnstopo.rsv[1].name, "r2");
	strcpy(in->dnstopo.rsv[1].impl, "bind9");
	in->dnstopo.ndns = 3;
	strcpy(in->dnstopo.dns[0].name, "root");
	in->dnstopo.dns[0].level = CLOCKS_LEVEL_ROOT;
	strcpy(in->dnstopo.dns[1].name, "tld");
	in->dnstopo.dns[1].level = CLOCKS_LEVEL_TLD;
	strcpy(in->dnstopo.dns[2].name, "ns");
	in->dnstopo.dns[2].level = CLOCKS_LEVEL_ZONE;
	in->dnstopo.nclients = 2;
	strcpy(in->dnstopo.clients[0].name, "c1");
	in->dnstopo.clients[0].rsv = 0;
	strcpy(in->dnstopo.clients[1].name, "c2");
	in->dnstopo.clients[1].rsv = 1;
	memset(cl, 0, 2 * sizeof(*cl));
	strcpy(cl[0].node, "c1");
	cl[0].id = DNS_ID(1);
	strcpy(cl[1].node, "c2");
	cl[1].id = DNS_ID(2);
	in->clients = cl;
	in->nclients = 2;
	memset(qc, 0, 3 * sizeof(*qc));
	strcpy(qc[0].label, "dns-root");
	strcpy(qc[1].label, "dns-tld");
	strcpy(qc[2].label, "dns-ns");
	in->qcaptures = qc;
	in->nqcaptures = 3;
	memset(sc, 0, 2 * sizeof(*sc));
	strcpy(sc[0].label, "a");
	strcpy(sc[1].label, "b");
	in->captures = sc;
	in->ncaptures = 2;
}

/* each query upstream counts for the node of its source, at the level of
 * the [dns] node whose link it reached */
static void test_upstream_levels(void **state)
{
	struct clocks_input in;
	struct clocks_client cl[2];
	struct clocks_query_capture qc[3];
	struct clocks_capture sc[2];
	struct clocks_query root[] = {{T0 - 5 * MS, ip(RSV1), 0}, {T0 + 5 * MS, ip(RSV1), 0}};
	struct clocks_query tld[] = {{T0 + 6 * MS, ip(RSV1), 0},
				     {T0 + 7 * MS, ip("198.18.129.2"), 0}};
	struct clocks_query zone[] = {{T0 - 9 * MS, ip(RSV2), 0},
				      {T0 + 8 * MS, ip(RSV2), 0},
				      {T0 + 9 * MS, ip(RSV2), 0},
				      {T0 + 10 * MS, ip(CLIENT), 0}};
	struct clocks_resolvers *rs = malloc(sizeof(*rs));

	(void)state;
	assert_non_null(rs);
	rsv_input(&in, cl, qc, sc);
	qc[0].queries = root, qc[0].n = 2;
	qc[1].queries = tld, qc[1].n = 2;
	qc[2].queries = zone, qc[2].n = 4;
	assert_int_equal(clocks_resolvers(&in, rs), 0);
	assert_int_equal(rs->n, 2);
	assert_int_equal(rs->r[0].up[CLOCKS_LEVEL_ROOT], 2);
	assert_int_equal(rs->r[0].up_after[CLOCKS_LEVEL_ROOT], 1);
	assert_int_equal(rs->r[0].up[CLOCKS_LEVEL_TLD], 1);
	assert_int_equal(rs->r[0].up[CLOCKS_LEVEL_ZONE], 0);
	assert_int_equal(rs->r[1].up[CLOCKS_LEVEL_ROOT], 0);
	assert_int_equal(rs->r[1].up[CLOCKS_LEVEL_TLD], 1); /* its cache 2 */
	assert_int_equal(rs->r[1].up[CLOCKS_LEVEL_ZONE], 3);
	assert_int_equal(rs->r[1].up_after[CLOCKS_LEVEL_ZONE], 2);
	assert_int_equal(rs->other_up[CLOCKS_LEVEL_ZONE], 1); /* a client asking ns */
	assert_int_equal(rs->traffic_ns, 3000 * MS);
	assert_int_equal(rs->after_ns, 2000 * MS);
	assert_false(rs->r[0].has_capture);
	/* no query capture at all: unknown, not 0 */
	in.nqcaptures = 0;
	assert_int_equal(clocks_resolvers(&in, rs), 0);
	assert_true(rs->r[0].up[CLOCKS_LEVEL_ZONE] == CLOCKS_NONE);
	free(rs);
}

/* each node's clients have their own decay, window and verdict */
static void test_per_node_decay(void **state)
{
	struct clocks_input in;
	struct clocks_client cl[2];
	struct clocks_query_capture qc[3];
	struct clocks_capture sc[2];
	struct clocks_packet a[40], b[40];
	struct clocks_resolvers *rs = malloc(sizeof(*rs));
	struct clocks_decay d;
	struct clocks_notes *v = calloc(1, sizeof(*v));
	char err[256];
	size_t na = 0, nb = 0;

	(void)state;
	assert_non_null(rs);
	assert_non_null(v);
	rsv_input(&in, cl, qc, sc);
	/* client 1 (r1) leaves a after 0.5 s, client 2 (r2) after 1.5 s;
	 * one request each per 100 ms */
	for (int k = 1; k <= 20; k++) {
		int64_t t = T0 + k * 100 * MS - MS;

		if (t < T0 + 500 * MS)
			a[na++] = (struct clocks_packet){t, DNS_ID(1), 0, ip(ADDR_A)};
		else
			b[nb++] = (struct clocks_packet){t, DNS_ID(1), 0, ip(ADDR_B)};
		if (t < T0 + 1500 * MS)
			a[na++] = (struct clocks_packet){t, DNS_ID(2), 0, ip(ADDR_A)};
		else
			b[nb++] = (struct clocks_packet){t, DNS_ID(2), 0, ip(ADDR_B)};
	}
	sc[0].packets = a, sc[0].n = na;
	sc[1].packets = b, sc[1].n = nb;
	assert_int_equal(clocks_decay(&in, 500 * MS, &d, err, sizeof(err)), 0);
	assert_int_equal(d.nrsv, 2);
	assert_int_equal(d.n, 4);
	/* r1: all 5 to a in (0, 0.5], then none; r2: to a until 1.5 s */
	assert_int_equal(d.rsv[0].dead[0], 5);
	assert_int_equal(d.rsv[0].all[0], 5);
	assert_int_equal(d.rsv[0].dead[1], 0);
	assert_int_equal(d.rsv[0].all[1], 5);
	assert_int_equal(d.rsv[1].dead[1], 5);
	assert_int_equal(d.rsv[1].dead[2], 5);
	assert_int_equal(d.rsv[1].dead[3], 0);
	/* the whole-lab curve stays: both clients */
	assert_int_equal(d.s[1].dead[1], 5);
	assert_int_equal(d.s[1].all[1], 10);
	clocks_decay_free(&d);
	/* client 2 stands for a population of 40 users: r2 has 40 users, r1 one */
	cl[1].population = 40;
	assert_int_equal(clocks_resolvers(&in, rs), 0);
	assert_int_equal(rs->r[0].nclients, 1);
	assert_int_equal(rs->r[0].users, 1);
	assert_int_equal(rs->r[1].users, 40);
	assert_int_equal(rs->r[0].clients[0], DNS_ID(1));
	assert_int_equal(rs->r[0].dead_after, 5);
	assert_int_equal(rs->r[0].all_after, 20);
	assert_int_equal(rs->r[0].window_ns, 499 * MS);
	assert_int_equal(rs->r[1].dead_after, 15);
	assert_int_equal(rs->r[1].window_ns, 1499 * MS);
	clocks_resolvers_verdict(&in, rs, v);
	assert_int_equal(v->n, 0);
	/* r2's client never leaves a: no failover seen through r2 */
	for (size_t k = 0; k < nb; k++)
		if (b[k].client == DNS_ID(2))
			b[k].client = DNS_ID(1);
	assert_int_equal(clocks_resolvers(&in, rs), 0);
	clocks_resolvers_verdict(&in, rs, v);
	assert_int_equal(v->n, 1);
	assert_string_equal(v->w[0].code, "resolver_no_failover");
	assert_false(v->w[0].invalidates);
	assert_non_null(strstr(v->w[0].msg, "[resolver] r2"));
	assert_non_null(strstr(v->w[0].msg, "every request after t0"));
	free(rs);
	free(v);
}

/* resolver_no_failover only for a node whose clients used the dead site
 * when it failed: r1's client is sent to b all along (the geolocation put
 * it there), r2's to a until t0 and to b from then on (it had moved to b
 * at the instant of the failure: nothing to compare) */
static void test_no_failover_unused(void **state)
{
	struct clocks_input in;
	struct clocks_client cl[2];
	struct clocks_query_capture qc[3];
	struct clocks_capture sc[2];
	struct clocks_packet a[40], b[40];
	struct clocks_resolvers *rs = malloc(sizeof(*rs));
	struct clocks_notes *v = calloc(1, sizeof(*v));
	size_t na = 0, nb = 0;

	(void)state;
	assert_non_null(rs);
	assert_non_null(v);
	rsv_input(&in, cl, qc, sc);
	for (int k = -9; k <= 10; k++) {
		int64_t t = T0 + k * 100 * MS - MS;

		b[nb++] = (struct clocks_packet){t, DNS_ID(1), 0, ip(ADDR_B)};
		if (t < T0)
			a[na++] = (struct clocks_packet){t, DNS_ID(2), 0, ip(ADDR_A)};
		else
			b[nb++] = (struct clocks_packet){t, DNS_ID(2), 0, ip(ADDR_B)};
	}
	sc[0].packets = a, sc[0].n = na;
	sc[1].packets = b, sc[1].n = nb;
	assert_int_equal(clocks_resolvers(&in, rs), 0);
	assert_int_equal(rs->r[0].dead_before, 0);
	assert_int_equal(rs->r[0].dead_after, 0);
	assert_int_equal(rs->r[1].dead_before, 10);
	assert_int_equal(rs->r[1].dead_after, 0);
	clocks_resolvers_verdict(&in, rs, v);
	assert_int_equal(v->n, 1);
	assert_string_equal(v->w[0].code, "resolver_no_failover");
	assert_string_equal(v->w[0].msg,
			    "[resolver] r2: its DNS clients sent 10 requests to a in the second "
			    "before t0 and none after (none had its address then): its curve shows "
			    "no failover to compare");
	free(rs);
	free(v);
}

/* a resolver link's capture that dropped packets invalidates the run, and
 * the verdict says what it spoils; its file is a capture of that link */
static void test_resolver_drops(void **state)
{
	struct clocks_input in;
	struct clocks_client cl[2];
	struct clocks_query_capture qc[3];
	struct clocks_capture sc[2];
	struct clocks_rsv_capture rc;
	struct clocks_link_stats st;
	struct clocks_notes *v = calloc(1, sizeof(*v));
	int found = 0;

	(void)state;
	assert_non_null(v);
	rsv_input(&in, cl, qc, sc);
	memset(&rc, 0, sizeof(rc));
	strcpy(rc.label, "resolver-r1");
	in.rcaptures = &rc;
	in.nrcaptures = 1;
	memset(&st, 0, sizeof(st));
	strcpy(st.label, "resolver-r1");
	strcpy(st.node, "core");
	st.known = 1;
	st.dropped = 3;
	st.written = CLOCKS_NONE;
	in.stats = &st;
	in.nstats = 1;
	clocks_verdict(&in, NULL, 0, v);
	for (int i = 0; i < v->n; i++) {
		assert_string_not_equal(v->w[i].code, "capture_missing");
		if (strcmp(v->w[i].code, "capture_drops") == 0) {
			found = 1;
			assert_true(v->w[i].invalidates);
			assert_non_null(strstr(v->w[i].msg, "link resolver-r1"));
			assert_non_null(strstr(v->w[i].msg, "answered from its cache"));
		}
	}
	assert_true(found);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dns_level),	      cmocka_unit_test(test_topology),
	    cmocka_unit_test(test_topology_dns_tree), cmocka_unit_test(test_cache_classify),
	    cmocka_unit_test(test_decode_dnsmsg),     cmocka_unit_test(test_decode_ipv6),
	    cmocka_unit_test(test_upstream_levels),   cmocka_unit_test(test_per_node_decay),
	    cmocka_unit_test(test_resolver_drops),    cmocka_unit_test(test_no_failover_unused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
