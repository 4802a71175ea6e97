/*
 * The steady state of the steering (probes/model/model_steer*.c) against what
 * a hand works out: tests/unit/data/model/steer-hand.ini's two groups (c1,
 * 300 requests/s, near a; c2, 100/s, near b) and two sites over delayed
 * links: geolocation to the far sites, latency to the near ones, failover,
 * a weighted pattern one client rotates through alone, weighted at random
 * (binomial over its fills), a latency tie; smooth weighted round robin
 * against nginx's published sequence and authd's own; seed 000's policy
 * table through topology/policies.ini as the topology loader reads it
 * (geolocation and latency exactly, as the seed's own simulation gives them
 * too; weighted and the upstream queries where the lab differs, and why);
 * what is not modelled said; the JSON's keys those of clocks.json's
 * steering names.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <cmocka.h>

#include "agents/authd/policy.h"
#include "model.h"
#include "model_steer.h"
#include "topology.h"

#define HAND "tests/unit/data/model/steer-hand.ini"
#define NEAR(x, want, tol) assert_true(fabs((x) - (want)) <= (tol))

static struct topology topo;
static struct model_steer_input *in;
static struct model_steer_result res;
static struct model_notes notes;

/* model: file with the overrides, modelled */
static void model(const char *file, char *const sets[], int nsets)
{
	memset(&topo, 0, sizeof(topo));
	assert_int_equal(topo_load(&topo, file, sets, nsets, stderr), 0);
	free(in);
	assert_non_null(in = calloc(1, sizeof(*in)));
	model_steer_from_topology(&topo, 0, in, &notes);
	assert_int_equal(model_steer(in, &res), 0);
}

/* hand: steer-hand.ini, c1 asking name1 and c2 name2 */
static void hand(const char *name1, const char *name2)
{
	char s1[64], s2[64];
	char *sets[] = {s1, s2};

	snprintf(s1, sizeof(s1), "c1.name=%s.lab.example", name1);
	snprintf(s2, sizeof(s2), "c2.name=%s.lab.example", name2);
	model(HAND, sets, 2);
}

/* row: the name's row (NULL: a scheme's, of scheme s) */
static const struct model_steer_row *row(int s, const char *name)
{
	for (int i = 0; i < res.nrows; i++) {
		const struct model_steer_row *w = &res.rows[i];

		if (w->scheme == s && !w->group[0] &&
		    strncmp(w->name, name ? name : "", strlen(name ? name : "") + 1) == 0)
			return w;
	}
	fail_msg("no row %s", name ? name : "(all)");
	return NULL;
}

static int site(const char *name)
{
	for (int s = 0; s < in->nsites; s++)
		if (strcmp(in->sites[s], name) == 0)
			return s;
	fail_msg("no site %s", name);
	return -1;
}

/* one: v is one value in every draw, want */
static void one(const struct model_iv *v, double want, double tol)
{
	assert_true(v->known);
	NEAR(v->min, want, tol);
	NEAR(v->max, want, tol);
}

/* the file's addresses are what its geo and vantage prefixes assume */
static void test_hand_addresses(void **state)
{
	char a[INET_ADDRSTRLEN], b[INET_ADDRSTRLEN];

	(void)state;
	hand("geo", "geo");
	inet_ntop(AF_INET, &topo.links[topo.nodes[topo_find(&topo, "c1")].link].node_addr, a,
		  sizeof(a));
	inet_ntop(AF_INET, &topo.links[topo.nodes[topo_find(&topo, "c2")].link].node_addr, b,
		  sizeof(b));
	assert_string_equal(a, "198.18.0.22");
	assert_string_equal(b, "198.18.0.26");
}

/* geolocation sends c1 (300/s) to b 60 ms away and c2 (100/s) to a 50 ms
 * away: a 25 %, b 75 %, against target_share a:1 b:1 a deviation of 0.25,
 * (300 x 60 + 100 x 50) / 400 = 57.5 ms a request; each client fills at 0
 * and once its 5 s TTL ran out: 4 queries in 10 s. Latency the near ones:
 * a 75 %, b 25 %, (300 x 20 + 100 x 10) / 400 = 17.5 ms. Failover: b
 * alone, on target (its primary), (300 x 60 + 100 x 10) / 400 = 47.5 ms. */
static void test_hand_deterministic(void **state)
{
	static const struct {
		const char *name;
		double a, dev, rtt;
	} cases[] = {
	    {"geo", 0.25, 0.25, 57.5},
	    {"lat", 0.75, 0.25, 17.5},
	    {"fo", 0, 0, 47.5},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char name[64];
		const struct model_steer_row *w;

		hand(cases[i].name, cases[i].name);
		snprintf(name, sizeof(name), "%s.lab.example", cases[i].name);
		w = row(MODEL_DNS, name);
		assert_true(w->known);
		one(&w->share[site("a")], cases[i].a, 1e-9);
		one(&w->share[site("b")], 1 - cases[i].a, 1e-9);
		one(&w->deviation, cases[i].dev, 1e-9);
		one(&w->rtt_ms, cases[i].rtt, 1e-6);
		NEAR(w->requests, 4000, 1e-6);
		assert_true(w->upstream_known);
		one(&w->upstream, 4, 0);
		/* the scheme's row is the one name's */
		one(&row(MODEL_DNS, NULL)->share[site("a")], cases[i].a, 1e-9);
	}
}

/* the pattern a a b, c1 alone in it (c2 asks fo): a fill every TTL of 1 s
 * and its host's 0.2 ms, 10 in 10 s: a a b a a b a a b a, b's three
 * answers 1.0002 s each: a 1 - 3.0006 / 10 */
static void test_hand_pattern(void **state)
{
	const struct model_steer_row *w;

	(void)state;
	hand("pat", "fo");
	w = row(MODEL_DNS, "pat.lab.example");
	one(&w->share[site("a")], 1 - 3.0006 / 10, 1e-6);
	one(&w->deviation, 0.5 - 3.0006 / 10, 1e-6);
	one(&w->upstream, 10, 0);
	one(&w->rtt_ms, (1 - 3.0006 / 10) * 20 + 3.0006 / 10 * 60, 1e-6);
}

/* weighted at random, 1:1: each of c1's 10 fills a or b with a half, so a's
 * share is a binomial over them, X / 10: P(X <= 1) = 11/1024, P(X <= 2) =
 * 56/1024: its p5 0.2, its p95 0.8 (within the last answer's 1.8 ms) */
static void test_hand_random(void **state)
{
	const struct model_steer_row *w;
	const struct model_iv *a;

	(void)state;
	hand("rnd", "fo");
	w = row(MODEL_DNS, "rnd.lab.example");
	a = &w->share[site("a")];
	NEAR(a->p5, 0.2, 0.001);
	NEAR(a->p50, 0.5, 0.001);
	NEAR(a->p95, 0.8, 0.001);
	assert_true(a->min >= 0 && a->max <= 1 && a->min < a->p5);
	one(&w->upstream, 10, 0);
}

/* pm is 40 ms from a and from b: a tie the lab's own time decides, every
 * draw one or the other for both groups: a 0 or 1, and the RTT per request
 * (300 x 20 + 100 x 50) / 400 = 27.5 or (300 x 60 + 100 x 10) / 400 = 47.5 */
static void test_hand_tie(void **state)
{
	const struct model_steer_row *w;

	(void)state;
	hand("tie", "tie");
	w = row(MODEL_DNS, "tie.lab.example");
	assert_true(w->known);
	NEAR(w->share[site("a")].min, 0, 1e-9);
	NEAR(w->share[site("a")].max, 1, 1e-9);
	NEAR(w->rtt_ms.min, 27.5, 1e-6);
	NEAR(w->rtt_ms.max, 47.5, 1e-6);
	assert_int_equal(in->ntie, 1);
}

/* smooth weighted round robin as nginx publishes it for 5, 1, 1 (a a b a c
 * a a), and as authd answers, step by step */
static void test_swrr(void **state)
{
	const double w[3] = {5, 1, 1};
	int out[70];
	struct authd_name nm;
	struct authd_pick p = {.n = 3, .slot = {0, 1, 2}};
	uint64_t rng = 1;
	char seq[8] = {0};

	(void)state;
	model_steer_swrr(w, 3, 7, out);
	for (int i = 0; i < 7; i++)
		seq[i] = (char)('a' + out[i]);
	assert_string_equal(seq, "aabacaa");
	memset(&nm, 0, sizeof(nm));
	nm.policy = AUTHD_WEIGHTED;
	nm.nsites = 3;
	for (int i = 0; i < 3; i++) {
		nm.sites[i] = i;
		nm.weight[i] = (uint32_t)w[i];
	}
	model_steer_swrr(w, 3, 70, out);
	for (int i = 0; i < 70; i++)
		assert_int_equal(authd_policy_weighted_pick(&nm, AUTHD_V4, &p, &rng), out[i]);
}

/* seed 000's table (topology/policies.ini's header, docs/topology.md):
 * geolocation and latency give each group's caches one site, so their
 * shares are the groups' request shares (195, 130, 101, 88 of 514) whatever
 * the TTL and the order of the fills; their RTT per request over 20 ms is
 * the seed's distance. The seed's own simulation (model_seed000.c) agrees.
 * Where the lab differs: weighted (which cache gets which place of the
 * rotation is the order of 40 caches' fills at authd, which the lab's
 * timing decides) and the upstream queries (the lab counts each cache's
 * first fill in the traffic, and each refetch waits for the first of its
 * clients' requests after the expiry, so a cache's TTL drifts by that much
 * a cycle: 40 x 12 + 40 less the drift, where the seed counts 480). */
static void test_policies_seed(void **state)
{
	static const struct {
		const char *name;
		int s0;
		double b34, b35, b06, dev, dist;
	} seed[] = {
	    {"geo.lab.example", MODEL_S0_GEOLOCATION, 0.576, 0.253, 0.171, 0.076, 1.710},
	    {"lat.lab.example", MODEL_S0_LATENCY, 0.551, 0.253, 0.196, 0.051, 1.171},
	};
	int req[MODEL_S0_RESOLVERS];
	const struct model_steer_row *w;

	(void)state;
	model("topology/policies.ini", NULL, 0);
	model_s0_requests(req);
	for (size_t i = 0; i < sizeof(seed) / sizeof(seed[0]); i++) {
		struct model_s0_result s0;

		w = row(MODEL_DNS, seed[i].name);
		assert_true(w->known);
		one(&w->share[site("b34")], seed[i].b34, 0.0005);
		one(&w->share[site("b35")], seed[i].b35, 0.0005);
		one(&w->share[site("b06")], seed[i].b06, 0.0005);
		one(&w->deviation, seed[i].dev, 0.0005);
		one(&w->rtt_ms, seed[i].dist * 20, 0.02);
		NEAR(w->requests, 514 * 60, 1e-6);
		/* the seed's simulation: the same shares to 0.1 point */
		assert_int_equal(model_s0_run(seed[i].s0, 300, -1, 3600, req, &s0), 0);
		for (int b = 0; b < MODEL_S0_ZONES; b++)
			NEAR(w->share[site(model_s0_zone_name[b])].p50, s0.share[b], 0.001);
		/* 40 caches, a fill each at the start and every TTL after */
		assert_true(w->upstream.p50 >= 480 && w->upstream.p50 <= 520);
	}
	/* the same caches ask every name: as many fills for each */
	NEAR(row(MODEL_DNS, "w.lab.example")->upstream.p50,
	     row(MODEL_DNS, "geo.lab.example")->upstream.p50, 0);
	/* weighted 5/3/2: its target within p5-p95 of every share, never
	 * exactly one value (the order of the fills decides) */
	w = row(MODEL_DNS, "w.lab.example");
	assert_string_equal(w->policy, "weighted");
	for (int s = 0; s < 3; s++) {
		assert_true(w->share[s].p5 <= w->target[s] && w->target[s] <= w->share[s].p95);
		assert_true(w->share[s].p5 < w->share[s].p95);
	}
	assert_true(w->deviation.p50 < 0.06);
}

/* not modelled, said: a name asked through a CNAME (cdn.ini), a DNS outage
 * within the period (dns-outage.ini), TCP clients of a rotation */
static void test_not_modelled(void **state)
{
	char set[] = "g1w.proto=tcp";
	char *sets[] = {set};

	(void)state;
	model("topology/cdn.ini", NULL, 0);
	assert_false(row(MODEL_DNS, NULL)->known);
	assert_non_null(strstr(row(MODEL_DNS, NULL)->why, "a name of no [name]"));
	model("topology/dns-outage.ini", NULL, 0);
	assert_false(row(MODEL_DNS, "www.lab.example")->known);
	assert_non_null(strstr(row(MODEL_DNS, "www.lab.example")->why, "dns-down of ns"));
	model("topology/policies.ini", sets, 1);
	assert_false(row(MODEL_DNS, "w.lab.example")->known);
	assert_non_null(strstr(row(MODEL_DNS, "w.lab.example")->why, "TCP or HTTP"));
	assert_true(row(MODEL_DNS, "geo.lab.example")->known);
}

/* the JSON: clocks.json's steering names' keys, each an interval */
static void test_json(void **state)
{
	json_t *o, *n;

	(void)state;
	model("topology/policies.ini", NULL, 0);
	assert_non_null(o = model_steer_json(in, &res));
	n = json_object_get(
	    json_object_get(json_object_get(json_object_get(o, "schemes"), "dns"), "names"),
	    "geo.lab.example");
	assert_non_null(n);
	assert_int_equal(json_integer_value(json_object_get(n, "requests")), 30840);
	NEAR(json_number_value(
		 json_object_get(json_object_get(json_object_get(n, "share"), "b34"), "p50")),
	     296.0 / 514, 1e-9);
	NEAR(json_number_value(json_object_get(json_object_get(n, "target"), "b34")), 0.5, 1e-9);
	assert_non_null(json_object_get(json_object_get(n, "deviation"), "p95"));
	assert_non_null(json_object_get(json_object_get(n, "rtt_mean_ms"), "p5"));
	assert_non_null(json_object_get(json_object_get(n, "upstream_queries"), "max"));
	assert_int_equal(json_array_size(json_object_get(o, "groups")), 12);
	json_decref(o);
	free(in);
	in = NULL;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hand_addresses), cmocka_unit_test(test_hand_deterministic),
	    cmocka_unit_test(test_hand_pattern),   cmocka_unit_test(test_hand_random),
	    cmocka_unit_test(test_hand_tie),	   cmocka_unit_test(test_swrr),
	    cmocka_unit_test(test_policies_seed),  cmocka_unit_test(test_not_modelled),
	    cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
