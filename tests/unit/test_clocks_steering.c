/*
 * The steering quality (probes/clocks/clocks_steering.c) on inputs built by
 * hand: seed 000's deviation (half the L1 distance) and its published
 * geolocation row, the nearest-rank percentiles and the mean, each client
 * node's shares from the captures against its target (weighted's weights,
 * failover's primary, anycast's route; none for latency), the period (before
 * t0, or the whole traffic of a steady-state run), the records' second count
 * and the upstream queries; the table as text and Markdown against golden
 * files (UPDATE_GOLDEN=1 writes one that differs to FILE.new, test_file.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <setjmp.h>
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clocks.h"
#include "test_file.h"
#include "wire.h"

#define DATA "tests/unit/data/clocks/"
#define T0 1000000000000LL
#define MS 1000000LL
#define ANY1 (WIRE_DNS_CLIENT_BASE - 1) /* c1's anycast flow */
#define DNS1 WIRE_DNS_CLIENT_ID(1)
#define DNS2 WIRE_DNS_CLIENT_ID(2)

static void test_deviation(void **state)
{
	/* seed 000's geolocation row: 57.6/25.3/17.1 against 50/30/20 */
	const double share[] = {0.576, 0.253, 0.171}, target[] = {0.5, 0.3, 0.2};
	const double same[] = {0.5, 0.3, 0.2}, all_a[] = {1, 0, 0};

	(void)state;
	assert_true(fabs(clocks_steer_deviation(share, target, 3) - 0.076) < 1e-12);
	assert_true(clocks_steer_deviation(same, target, 3) == 0);
	/* everything on a: the half of 0.5 + 0.3 + 0.2 */
	assert_true(fabs(clocks_steer_deviation(all_a, target, 3) - 0.5) < 1e-12);
}

static void test_dist(void **state)
{
	int64_t v[100];
	struct clocks_steer_dist d;

	(void)state;
	/* 100 .. 1 ms, reversed: sorted here */
	for (int i = 0; i < 100; i++)
		v[i] = (100 - i) * MS;
	clocks_steer_dist(&d, v, 100);
	assert_int_equal(d.n, 100);
	assert_int_equal(d.mean_ns, 50500000); /* 50.5 ms */
	assert_int_equal(d.p50_ns, 50 * MS);   /* nearest rank: the 50th */
	assert_int_equal(d.p99_ns, 99 * MS);
	v[0] = 7;
	clocks_steer_dist(&d, v, 1);
	assert_int_equal(d.mean_ns, 7);
	assert_int_equal(d.p50_ns, 7);
	assert_int_equal(d.p99_ns, 7);
	clocks_steer_dist(&d, v, 0);
	assert_int_equal(d.n, 0);
	assert_true(d.mean_ns == CLOCKS_NONE && d.p50_ns == CLOCKS_NONE && d.p99_ns == CLOCKS_NONE);
}

static struct clocks_capture caps[3];
static struct clocks_packet pk[3][64];
static struct clocks_request reqs[256];
static struct clocks_client clients[3];
static struct clocks_resolution rsv[4];
static struct clocks_query queries[8];
static struct clocks_query_capture qcap;

static void add_packet(int site, uint32_t client, int64_t t)
{
	struct clocks_capture *c = &caps[site];

	pk[site][c->n].t_ns = t;
	pk[site][c->n].client = client;
	c->n++;
}

static void add_request(struct clocks_input *in, uint32_t client, int64_t sent, int64_t rtt,
			const char *site)
{
	struct clocks_request *q = &reqs[in->nrequests++];

	memset(q, 0, sizeof(*q));
	q->client = client;
	q->sent_ns = sent;
	q->rtt_ns = rtt;
	q->status = CLOCKS_OK;
	snprintf(q->site, sizeof(q->site), "%s", site);
}

/*
 * Sites a, b, c; t0 at T0 + 10 s. c1: anycast (all at a) and DNS: 6 of 8
 * requests at a, 2 at b before t0, and 4 at c after t0 (not counted); c2:
 * DNS, 1 at a and 3 at b. The weighted name: a 3, b 1 (75/25). The records
 * say one of c1's DNS requests at a was at b. Probes (WIRE_PROBE_CLIENT)
 * are no one's.
 */
static void build(struct clocks_input *in, const char *policy)
{
	struct clocks_topo_name *n;

	clocks_input_init(in);
	memset(caps, 0, sizeof(caps));
	snprintf(in->lab, sizeof(in->lab), "t");
	snprintf(in->failure.site, sizeof(in->failure.site), "a");
	in->failure.t0_ns = T0 + 10000 * MS;
	in->traffic_start_ns = T0;
	in->traffic_duration_ns = 20000 * MS;
	for (int s = 0; s < 3; s++) {
		snprintf(caps[s].label, sizeof(caps[s].label), "%c", 'a' + s);
		caps[s].packets = pk[s];
	}
	for (int i = 0; i < 5; i++)
		add_packet(0, ANY1, T0 + i * 100 * MS);
	for (int i = 0; i < 6; i++)
		add_packet(0, DNS1, T0 + i * 100 * MS);
	add_packet(0, WIRE_PROBE_CLIENT, T0 + 5);
	for (int i = 0; i < 2; i++)
		add_packet(1, DNS1, T0 + 1000 * MS + i * 100 * MS);
	for (int i = 0; i < 4; i++)
		add_packet(2, DNS1, T0 + 11000 * MS + i * 100 * MS);
	add_packet(0, DNS2, T0 + 50 * MS);
	for (int i = 0; i < 3; i++)
		add_packet(1, DNS2, T0 + 60 * MS + i * MS);
	add_packet(0, DNS1, T0 - 1); /* before the traffic: not counted */
	in->captures = caps;
	in->ncaptures = 3;

	in->requests = reqs;
	for (int i = 0; i < 5; i++)
		add_request(in, DNS1, T0 + i * 100 * MS, (i + 1) * MS, "a");
	add_request(in, DNS1, T0 + 500 * MS, 6 * MS, "b");
	for (int i = 0; i < 2; i++)
		add_request(in, DNS1, T0 + 1000 * MS + i * 100 * MS, (7 + i) * MS, "b");
	add_request(in, DNS1, T0 + 11000 * MS, 100 * MS, "c"); /* after t0 */
	add_request(in, ANY1, T0, 2 * MS, "a");
	in->have_requests = 1;

	memset(clients, 0, sizeof(clients));
	snprintf(clients[0].node, sizeof(clients[0].node), "c1");
	clients[0].id = ANY1;
	snprintf(clients[1].node, sizeof(clients[1].node), "c1");
	clients[1].id = DNS1;
	snprintf(clients[2].node, sizeof(clients[2].node), "c2");
	clients[2].id = DNS2;
	in->clients = clients;
	in->nclients = 3;

	rsv[0] = (struct clocks_resolution){T0 - 3 * MS, DNS1, CLOCKS_DNS_FRESH, 3 * MS};
	rsv[1] = (struct clocks_resolution){T0 + 2000 * MS, DNS1, CLOCKS_DNS_FRESH, 1 * MS};
	rsv[2] = (struct clocks_resolution){T0 + 3000 * MS, DNS1, CLOCKS_DNS_TIMEOUT, 900 * MS};
	rsv[3] = (struct clocks_resolution){T0 + 4000 * MS, DNS2, CLOCKS_DNS_STALE, 5 * MS};
	in->resolutions = rsv;
	in->nresolutions = 4;

	for (int i = 0; i < 8; i++)
		queries[i] = (struct clocks_query){
		    T0 + (i < 6 ? i : 20 + i) * 1000 * MS, {0}, 0}; /* 6 before t0 */
	memset(&qcap, 0, sizeof(qcap));
	qcap.queries = queries;
	qcap.n = 8;
	in->qcaptures = &qcap;
	in->nqcaptures = 1;

	in->dnstopo.nnames = 1;
	n = &in->dnstopo.names[0];
	snprintf(n->name, sizeof(n->name), "www.lab.example");
	snprintf(n->policy, sizeof(n->policy), "%s", policy);
	snprintf(n->primary, sizeof(n->primary), "b");
	n->nweights = 2;
	snprintf(n->wsite[0], sizeof(n->wsite[0]), "a");
	n->weight[0] = 3;
	snprintf(n->wsite[1], sizeof(n->wsite[1]), "b");
	n->weight[1] = 1;
	in->dnstopo.nclients = 2;
	snprintf(in->dnstopo.clients[0].name, CLOCKS_NAME_MAX, "c1");
	snprintf(in->dnstopo.clients[0].router, CLOCKS_NAME_MAX, "core");
	snprintf(in->dnstopo.clients[1].name, CLOCKS_NAME_MAX, "c2");
	snprintf(in->dnstopo.clients[1].router, CLOCKS_NAME_MAX, "core");
}

static const struct clocks_steer_row *row(const struct clocks_steering *s, int scheme,
					  const char *group)
{
	for (int i = 0; i < s->nrows; i++)
		if (s->rows[i].scheme == scheme && strcmp(s->rows[i].group, group) == 0)
			return &s->rows[i];
	fail_msg("no row %d %s", scheme, group);
	return NULL;
}

static void test_weighted(void **state)
{
	static struct clocks_input in;
	static struct clocks_steering s;
	const struct clocks_steer_row *r;

	(void)state;
	build(&in, "weighted");
	assert_int_equal(clocks_steering(&in, NULL, &s), 0);
	assert_int_equal(s.nsites, 3);
	assert_string_equal(s.sites[2], "c");
	assert_int_equal(s.nrows, 3);
	/* anycast first, then dns; by node */
	assert_int_equal(s.rows[0].scheme, CLOCKS_SCHEME_ANYCAST);
	assert_string_equal(s.rows[1].group, "c1");
	assert_string_equal(s.rows[2].group, "c2");

	r = row(&s, CLOCKS_SCHEME_DNS, "c1");
	assert_int_equal(r->ncaptured, 8); /* not the 4 after t0, not the one before the traffic */
	assert_int_equal(r->captured[0], 6);
	assert_int_equal(r->captured[2], 0);
	assert_true(r->share[0] == 0.75 && r->share[1] == 0.25 && r->share[2] == 0);
	assert_true(r->has_target && r->target[0] == 0.75 && r->target[1] == 0.25);
	assert_string_equal(r->target_from, "weighted: its weights");
	assert_true(r->deviation == 0);
	/* the records: 5 at a, 3 at b: 0.625 against 0.75 */
	assert_int_equal(r->nanswered, 8);
	assert_true(fabs(r->disagreement - 0.125) < 1e-12);
	/* RTT 1 .. 8 ms: mean 4.5, p50 the 4th, p99 the 8th */
	assert_int_equal(r->rtt.n, 8);
	assert_int_equal(r->rtt.mean_ns, 4500000);
	assert_int_equal(r->rtt.p50_ns, 4 * MS);
	assert_int_equal(r->rtt.p99_ns, 8 * MS);
	/* resolutions: the one in the traffic with an answer (not the one sent
	 * before it, not the timeout) */
	assert_int_equal(r->resolution.n, 1);
	assert_int_equal(r->resolution.p50_ns, 1 * MS);

	r = row(&s, CLOCKS_SCHEME_DNS, "c2");
	assert_true(r->share[0] == 0.25 && r->share[1] == 0.75);
	assert_true(fabs(r->deviation - 0.5) < 1e-12);
	assert_true(r->disagreement < 0); /* no records */
	assert_int_equal(r->rtt.n, 0);
	assert_int_equal(r->resolution.n, 1); /* a stale answer is an answer */

	/* the scheme's row: 7 of 12 at a, 5 at b; target 75/25 */
	assert_int_equal(s.total[CLOCKS_SCHEME_DNS].n, 12);
	assert_true(fabs(s.total[CLOCKS_SCHEME_DNS].share[0] - 7.0 / 12) < 1e-12);
	assert_true(fabs(s.total[CLOCKS_SCHEME_DNS].deviation - (0.75 - 7.0 / 12)) < 1e-12);

	r = row(&s, CLOCKS_SCHEME_ANYCAST, "c1");
	assert_int_equal(r->ncaptured, 5);
	assert_true(r->share[0] == 1);
	assert_false(r->has_target);
	assert_true(r->deviation < 0);
	assert_string_equal(r->target_from, "no route of the client's router known: no target");
	assert_true(s.total[CLOCKS_SCHEME_ANYCAST].deviation < 0);

	assert_int_equal(s.upstream_queries, 6);
}

static void test_targets(void **state)
{
	static struct clocks_input in;
	static struct clocks_steering s;
	static struct clocks_fib fib;
	struct clocks_result any = {0};
	const struct clocks_steer_row *r;

	(void)state;
	build(&in, "failover");
	memset(&fib, 0, sizeof(fib));
	fib.nrouters = 1;
	snprintf(fib.routers[0].router, CLOCKS_NAME_MAX, "core");
	fib.routers[0].before.present = 1;
	fib.routers[0].before.nnh = 1;
	snprintf(fib.routers[0].before.site, CLOCKS_NAME_MAX, "a");
	any.fib = &fib;
	assert_int_equal(clocks_steering(&in, &any, &s), 0);
	r = row(&s, CLOCKS_SCHEME_DNS, "c1");
	assert_string_equal(r->target_from, "failover: primary b 100 %");
	assert_true(fabs(r->deviation - 0.75) < 1e-12);
	r = row(&s, CLOCKS_SCHEME_ANYCAST, "c1");
	assert_string_equal(r->target_from, "nearest by routing: core's route to a");
	assert_true(r->deviation == 0);

	/* equal-cost paths: no single nearest site */
	fib.routers[0].before.nnh = 2;
	assert_int_equal(clocks_steering(&in, &any, &s), 0);
	r = row(&s, CLOCKS_SCHEME_ANYCAST, "c1");
	assert_string_equal(r->target_from,
			    "router core: 2 equal-cost paths, no single nearest site");
	assert_false(r->has_target);

	/* latency defines no shares */
	build(&in, "latency");
	assert_int_equal(clocks_steering(&in, NULL, &s), 0);
	r = row(&s, CLOCKS_SCHEME_DNS, "c1");
	assert_false(r->has_target);
	assert_string_equal(r->target_from, "policy latency defines no shares: no target");
}

/* a steady-state run: the whole traffic, to the last request captured */
static void test_steady(void **state)
{
	static struct clocks_input in;
	static struct clocks_steering s;

	(void)state;
	build(&in, "weighted");
	in.steady = 1;
	in.failure.site[0] = '\0';
	in.failure.t0_ns = T0 + 20000 * MS;
	assert_int_equal(clocks_steering(&in, NULL, &s), 0);
	assert_int_equal(row(&s, CLOCKS_SCHEME_DNS, "c1")->ncaptured, 12);
	assert_int_equal(row(&s, CLOCKS_SCHEME_DNS, "c1")->captured[2], 4);
	assert_int_equal(s.upstream_queries, 6); /* the last two came after the traffic */
	/* the traffic's end is later than the last request captured */
	assert_int_equal(s.until_ns, T0 + 20000 * MS + 1);
}

static struct clocks_dnsmsg msg(int64_t t, uint32_t src, uint32_t dst, uint16_t sport,
				uint16_t dport, uint16_t id, int qr)
{
	struct clocks_dnsmsg m = {0};

	m.t_ns = t;
	m.src.s_addr = htonl(src);
	m.dst.s_addr = htonl(dst);
	m.sport = sport;
	m.dport = dport;
	m.id = id;
	m.qr = (uint8_t)qr;
	return m;
}

/* c1's queries to resolver node r's cache 1, on r's link: one answered at
 * once (a hit, 0.1 ms), one after an upstream answer reached the cache (a
 * miss, 0.6 ms), one of c9 (not c1's), one after t0 (not counted) */
static void test_cache_split(void **state)
{
	static struct clocks_input in;
	static struct clocks_steering s;
	static struct clocks_rsv_capture rc;
	static struct clocks_dnsmsg m[16];
	static struct clocks_addr_node addrs[2];
	const struct clocks_steer_row *r;
	uint32_t cache = CLOCKS_RSV_BLOCK(0) | 1, c1 = 0xc612000a, c9 = 0xc612000b;
	uint32_t up = 0xc6120063; /* a server above the cache */
	size_t n = 0;

	(void)state;
	build(&in, "weighted");
	in.dnstopo.nrsv = 1;
	snprintf(in.dnstopo.rsv[0].name, CLOCKS_NAME_MAX, "r");
	in.dnstopo.clients[0].rsv = 0;
	in.dnstopo.clients[1].rsv = 0;
	m[n++] = msg(T0 + 10 * MS, c1, cache, 5000, 53, 1, 0);
	m[n++] = msg(T0 + 10 * MS + 100000, cache, c1, 53, 5000, 1, 1);
	m[n++] = msg(T0 + 20 * MS, c1, cache, 5000, 53, 2, 0);
	m[n++] = msg(T0 + 20 * MS + 100000, cache, up, 4000, 53, 9, 0);
	m[n++] = msg(T0 + 20 * MS + 500000, up, cache, 53, 4000, 9, 1);
	m[n++] = msg(T0 + 20 * MS + 600000, cache, c1, 53, 5000, 2, 1);
	m[n++] = msg(T0 + 30 * MS, c9, cache, 5001, 53, 3, 0);
	m[n++] = msg(T0 + 30 * MS + 200000, cache, c9, 53, 5001, 3, 1);
	m[n++] = msg(T0 + 10500 * MS, c1, cache, 5000, 53, 4, 0);
	m[n++] = msg(T0 + 10500 * MS + 100000, cache, c1, 53, 5000, 4, 1);
	snprintf(rc.label, sizeof(rc.label), "resolver-r");
	rc.msgs = m;
	rc.n = n;
	in.rcaptures = &rc;
	in.nrcaptures = 1;
	addrs[0].addr.s_addr = htonl(c1);
	snprintf(addrs[0].node, CLOCKS_NAME_MAX, "c1");
	addrs[1].addr.s_addr = htonl(c9);
	snprintf(addrs[1].node, CLOCKS_NAME_MAX, "c9");
	in.addrs = addrs;
	in.naddrs = 2;
	assert_int_equal(clocks_steering(&in, NULL, &s), 0);
	r = row(&s, CLOCKS_SCHEME_DNS, "c1");
	assert_int_equal(r->cache_hit.n, 1);
	assert_int_equal(r->cache_hit.p50_ns, 100000);
	assert_int_equal(r->cache_miss.n, 1);
	assert_int_equal(r->cache_miss.p50_ns, 600000);
	r = row(&s, CLOCKS_SCHEME_DNS, "c2");
	assert_int_equal(r->cache_hit.n + r->cache_miss.n, 0);
}

/* the records' shares far from the captures': said, with 100 ok or more */
static void test_records_warning(void **state)
{
	static struct clocks_input in;

	(void)state;
	build(&in, "weighted");
	clocks_steering_prepare(&in, NULL);
	assert_int_equal(in.notes.n, 0); /* c1's 0.125 is over 8 records only */
	free(in.steering);
	in.steering = NULL;
	for (int i = 0; i < 100; i++)
		add_request(&in, DNS2, T0 + i * MS, MS, "c");
	clocks_steering_prepare(&in, NULL);
	assert_int_equal(in.notes.n, 1);
	assert_string_equal(in.notes.w[0].code, "steering_records");
	assert_string_equal(
	    in.notes.w[0].msg,
	    "dns c2: the shares of the clients' records (100 ok) are 1.000 from the "
	    "captures' (4 requests), more than 0.01");
	assert_int_equal(in.notes.w[0].invalidates, 0);
	free(in.steering);
}

static char *print(void (*fn)(FILE *, const struct clocks_input *), struct clocks_input *in)
{
	char *buf;
	size_t len;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(out);
	fn(out, in);
	assert_int_equal(fclose(out), 0);
	return buf;
}

/* two names side by side (seed 000's policies on one flow): c1 asks the
 * weighted name (a 3, b 1), c2 a geolocation name, which defines no shares:
 * its target is the [lab]'s target_share, a 1 b 1. Each name gets its own
 * row, the mean RTT per request its rows' weighted by their records. */
static void test_names(void **state)
{
	static struct clocks_input in;
	static struct clocks_steering s;
	struct clocks_topo_dns *d = &in.dnstopo;
	const struct clocks_steer_row *r;
	char *text, *md;
	json_t *j;

	(void)state;
	build(&in, "weighted");
	snprintf(d->names[0].name, CLOCKS_DNS_NAME_MAX, "w.lab.example");
	d->nnames = 2;
	memset(&d->names[1], 0, sizeof(d->names[1]));
	snprintf(d->names[1].name, CLOCKS_DNS_NAME_MAX, "geo.lab.example");
	snprintf(d->names[1].policy, sizeof(d->names[1].policy), "geolocation");
	snprintf(d->clients[0].dns_name, CLOCKS_DNS_NAME_MAX, "W.lab.example.");
	snprintf(d->clients[1].dns_name, CLOCKS_DNS_NAME_MAX, "geo.lab.example");
	/* the authd link's queries in the period (6): 3 for w, 1 for geo, 2
	 * for another name */
	for (int i = 0; i < 8; i++)
		queries[i].name = i < 3 ? 1 : i == 3 ? 2 : 0;
	/* no target_share yet: the geolocation name has no target */
	assert_int_equal(clocks_steering(&in, NULL, &s), 0);
	r = row(&s, CLOCKS_SCHEME_DNS, "c2");
	assert_false(r->has_target);
	assert_string_equal(r->target_from, "policy geolocation defines no shares: no target");
	assert_false(s.total[CLOCKS_SCHEME_DNS].has_target);

	d->ntarget = 2;
	snprintf(d->tsite[0], CLOCKS_NAME_MAX, "a");
	snprintf(d->tsite[1], CLOCKS_NAME_MAX, "b");
	d->tweight[0] = d->tweight[1] = 1;
	assert_int_equal(clocks_steering(&in, NULL, &s), 0);
	r = row(&s, CLOCKS_SCHEME_DNS, "c1");
	assert_string_equal(r->name, "W.lab.example.");
	assert_string_equal(r->target_from, "weighted: its weights");
	r = row(&s, CLOCKS_SCHEME_DNS, "c2");
	assert_string_equal(r->target_from,
			    "[lab] target_share (policy geolocation defines no shares)");
	assert_true(r->target[0] == 0.5 && r->target[1] == 0.5);
	assert_true(fabs(r->deviation - 0.25) < 1e-12);
	/* one row per name, in the order the groups name them */
	assert_int_equal(s.nnames, 2);
	assert_string_equal(s.names[0].name, "W.lab.example.");
	assert_int_equal(s.names[0].n, 8);
	assert_true(s.names[0].deviation == 0);
	assert_int_equal(s.names[0].rtt_mean_ns, 4500000);
	assert_int_equal(s.names[1].n, 4);
	assert_true(fabs(s.names[1].deviation - 0.25) < 1e-12);
	assert_true(s.names[1].rtt_mean_ns == CLOCKS_NONE); /* c2 has no records */
	assert_int_equal(s.names[0].upstream, 3);
	assert_int_equal(s.names[1].upstream, 1);
	assert_int_equal(s.upstream_queries, 6);
	/* the scheme's: every row has a target now, weighted by requests */
	assert_true(s.total[CLOCKS_SCHEME_DNS].has_target);
	assert_true(fabs(s.total[CLOCKS_SCHEME_DNS].target[0] - (0.75 * 8 + 0.5 * 4) / 12) < 1e-12);

	in.steering = &s;
	text = print(clocks_steering_print, &in);
	md = print(clocks_steering_md, &in);
	test_assert_golden(DATA "steering-names.golden", text);
	test_assert_golden(DATA "steering-names.md.golden", md);
	j = clocks_steering_json(&in);
	assert_true(
	    fabs(json_real_value(json_object_get(
		     json_object_get(
			 json_object_get(json_object_get(json_object_get(j, "schemes"), "dns"),
					 "names"),
			 "geo.lab.example"),
		     "deviation")) -
		 0.25) < 1e-12);
	json_decref(j);
	in.steering = NULL;
	free(text);
	free(md);
	/* a node asking a name that is no [name]'s */
	snprintf(d->clients[1].dns_name, CLOCKS_DNS_NAME_MAX, "other.lab.example");
	assert_int_equal(clocks_steering(&in, NULL, &s), 0);
	assert_string_equal(row(&s, CLOCKS_SCHEME_DNS, "c2")->target_from,
			    "other.lab.example is no [name] of the topology: no target");
}

/* a query's question told by its name, case aside; cut short or another:
 * none */
static void test_name_of(void **state)
{
	static struct clocks_topo_dns d;
	static const uint8_t w[] = "\1w\3lab\7example", geo[] = "\3geo\3lab\7example";
	static const uint8_t q[] = "\1W\3LAB\7example\0\0\1\0\1", other[] = "\1x\3lab\7example";

	(void)state;
	memset(&d, 0, sizeof(d));
	assert_int_equal(clocks_topo_name_of(&d, q, sizeof(q) - 1), 0); /* no names */
	d.nnames = 2;
	memcpy(d.names[0].wire, geo, sizeof(geo));
	memcpy(d.names[1].wire, w, sizeof(w));
	assert_int_equal(clocks_topo_name_of(&d, q, sizeof(q) - 1), 2);
	assert_int_equal(clocks_topo_name_of(&d, q, 8), 0); /* the name cut short */
	assert_int_equal(clocks_topo_name_of(&d, other, sizeof(other)), 0);
}

static void test_golden(void **state)
{
	static struct clocks_input in;
	char *text, *md;

	(void)state;
	build(&in, "weighted");
	in.steering = malloc(sizeof(*in.steering));
	assert_non_null(in.steering);
	assert_int_equal(clocks_steering(&in, NULL, in.steering), 0);
	text = print(clocks_steering_print, &in);
	md = print(clocks_steering_md, &in);
	test_assert_golden(DATA "steering.golden", text);
	test_assert_golden(DATA "steering.md.golden", md);
	free(text);
	free(md);
	free(in.steering);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_deviation),	    cmocka_unit_test(test_dist),
	    cmocka_unit_test(test_weighted),	    cmocka_unit_test(test_targets),
	    cmocka_unit_test(test_steady),	    cmocka_unit_test(test_cache_split),
	    cmocka_unit_test(test_records_warning), cmocka_unit_test(test_names),
	    cmocka_unit_test(test_name_of),	    cmocka_unit_test(test_golden),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
