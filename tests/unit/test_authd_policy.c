/* authd's steering policies (agents/authd/policy.h), with the health state. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <arpa/inet.h>
#include <cmocka.h>

#include "agents/authd/health.h"
#include "agents/authd/policy.h"
#include "test_authd_util.h"

static const char *policy_conf = "[server]\n"
				 "quorum = 0.5\n"
				 "[zone lab.example]\n"
				 "soa = ns1 hostmaster 1 3600 600 86400 30\n"
				 "[site a]\n"
				 "address = 198.19.1.1\n"
				 "address = 2001:db8:1::1\n"
				 "[site b]\n"
				 "address = 198.19.2.1\n"
				 "[site c]\n"
				 "address = 198.19.3.1\n"
				 "address = 198.19.3.2\n"
				 "[name simple.lab.example]\n"
				 "policy = simple\n"
				 "sites = a b c\n"
				 "[name fo.lab.example]\n"
				 "policy = failover\n"
				 "primary = a\n"
				 "secondary = b c\n"
				 "[name fo-closed.lab.example]\n"
				 "policy = failover\n"
				 "primary = a\n"
				 "secondary = b\n"
				 "all_dead = fail-closed\n"
				 "[name w.lab.example]\n"
				 "policy = weighted\n"
				 "weight = a 70\n"
				 "weight = b 30\n"
				 "[name w3.lab.example]\n"
				 "policy = weighted\n"
				 "weight = a 50\n"
				 "weight = b 30\n"
				 "weight = c 20\n"
				 "[name wr.lab.example]\n"
				 "policy = weighted\n"
				 "weighted_mode = random\n"
				 "weight = a 70\n"
				 "weight = b 30\n"
				 "[name geo.lab.example]\n"
				 "policy = geolocation\n"
				 "geo = 198.18.1.0/24 a\n"
				 "geo = 198.18.0.0/16 b\n"
				 "geo = 10.0.0.0/8 c\n"
				 "[name geod.lab.example]\n"
				 "policy = geolocation\n"
				 "geo = 198.18.1.0/24 a\n"
				 "default = c\n"
				 "[name lat.lab.example]\n"
				 "policy = latency\n"
				 "sites = a b c\n"
				 "vantage = 198.18.1.0/24 east\n"
				 "vantage = 198.18.2.0/24 west\n"
				 "[name mv.lab.example]\n"
				 "policy = multivalue\n"
				 "sites = a b c\n"
				 "[name px.lab.example]\n"
				 "policy = proximity\n"
				 "sites = a b c\n";

struct fixture {
	struct authd_db *db;
	struct authd_health h;
	uint64_t rng;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	f->db = test_load(policy_conf);
	assert_non_null(f->db);
	authd_health_init(&f->h, f->db);
	f->rng = 12345;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	authd_db_free(f->db);
	free(f);
	return 0;
}

static void report(struct fixture *f, const char *prober, const char *site, int up, uint32_t rtt)
{
	struct health_report r = {.up = up, .rtt_us = rtt};
	struct authd_health_change c;

	strcpy(r.prober, prober);
	strcpy(r.site, site);
	assert_int_equal(authd_health_apply(&f->h, &r, &c), 0);
}

static void client(struct authd_client *c, const char *addr, int source_len)
{
	memset(c, 0, sizeof(*c));
	if (inet_pton(AF_INET, addr, c->addr) == 1) {
		c->family = AF_INET;
	} else {
		assert_int_equal(inet_pton(AF_INET6, addr, c->addr), 1);
		c->family = AF_INET6;
	}
	c->source_len = (uint8_t)source_len;
}

/* chosen: the sites a selection names, as "a,b". */
static const char *chosen(struct fixture *f, const char *name, int fam,
			  const struct authd_client *c, uint8_t *scope)
{
	static char out[256];
	struct authd_name *nm = test_name(f->db, name);
	struct authd_pick p;
	struct authd_client none = {0};

	assert_non_null(nm);
	authd_policy_select(nm, fam, c ? c : &none, &f->h, f->db->sites, f->db->server.all_dead,
			    &p);
	out[0] = '\0';
	for (int i = 0; i < p.n; i++) {
		if (i)
			strcat(out, ",");
		strcat(out, f->db->sites[nm->sites[p.slot[i]]].name);
	}
	if (scope)
		*scope = p.scope;
	return out;
}

static void test_simple_hands_out_healthy_in_order(void **state)
{
	struct fixture *f = *state;

	assert_string_equal(chosen(f, "simple.lab.example.", AUTHD_V4, NULL, NULL), "a,b,c");
	report(f, "p1", "b", 0, 0);
	assert_string_equal(chosen(f, "simple.lab.example.", AUTHD_V4, NULL, NULL), "a,c");
	/* only a has AAAA */
	assert_string_equal(chosen(f, "simple.lab.example.", AUTHD_V6, NULL, NULL), "a");
}

static void test_all_dead_fail_open_and_closed(void **state)
{
	struct fixture *f = *state;

	report(f, "p1", "a", 0, 0);
	report(f, "p1", "b", 0, 0);
	report(f, "p1", "c", 0, 0);
	/* fail-open (the server default): as if all were healthy */
	assert_string_equal(chosen(f, "simple.lab.example.", AUTHD_V4, NULL, NULL), "a,b,c");
	assert_string_equal(chosen(f, "fo.lab.example.", AUTHD_V4, NULL, NULL), "a");
	/* fail-closed on this name: nothing */
	assert_string_equal(chosen(f, "fo-closed.lab.example.", AUTHD_V4, NULL, NULL), "");
	/* and server-wide */
	f->db->server.all_dead = AUTHD_FAIL_CLOSED;
	assert_string_equal(chosen(f, "simple.lab.example.", AUTHD_V4, NULL, NULL), "");
	assert_string_equal(chosen(f, "w.lab.example.", AUTHD_V4, NULL, NULL), "");
	report(f, "p1", "c", 1, 100);
	assert_string_equal(chosen(f, "simple.lab.example.", AUTHD_V4, NULL, NULL), "c");
}

static void test_failover(void **state)
{
	struct fixture *f = *state;

	assert_string_equal(chosen(f, "fo.lab.example.", AUTHD_V4, NULL, NULL), "a");
	report(f, "p1", "a", 0, 0);
	assert_string_equal(chosen(f, "fo.lab.example.", AUTHD_V4, NULL, NULL), "b");
	report(f, "p1", "b", 0, 0);
	assert_string_equal(chosen(f, "fo.lab.example.", AUTHD_V4, NULL, NULL), "c");
	report(f, "p1", "a", 1, 100);
	assert_string_equal(chosen(f, "fo.lab.example.", AUTHD_V4, NULL, NULL), "a");
	/* AAAA: only a has one; when a is dead no other candidate exists */
	report(f, "p1", "a", 0, 0);
	assert_string_equal(chosen(f, "fo.lab.example.", AUTHD_V6, NULL, NULL), "a");
	assert_string_equal(chosen(f, "fo-closed.lab.example.", AUTHD_V6, NULL, NULL), "");
}

/* shares: answers out of n per site over n weighted answers. */
static void shares(struct fixture *f, const char *name, int n, int counts[3])
{
	struct authd_name *nm = test_name(f->db, name);
	struct authd_pick p;
	struct authd_client none = {0};

	memset(counts, 0, 3 * sizeof(int));
	for (int i = 0; i < n; i++) {
		const knot_rdata_t *recs[16];
		int k;

		authd_policy_select(nm, AUTHD_V4, &none, &f->h, f->db->sites, AUTHD_FAIL_OPEN, &p);
		k = authd_policy_records(nm, AUTHD_V4, &p, f->db->sites, &f->rng, recs, 16);
		assert_true(k >= 1);
		if (memcmp(recs[0]->data, "\xc6\x13\x01", 3) == 0)
			counts[0]++;
		else if (memcmp(recs[0]->data, "\xc6\x13\x02", 3) == 0)
			counts[1]++;
		else
			counts[2]++;
	}
}

static void assert_share(int count, int n, double target)
{
	double share = (double)count / n;

	if (share < target - 0.01 || share > target + 0.01)
		fail_msg("share %.4f, expected %.2f within 0.01", share, target);
}

static void test_weighted_swrr_shares(void **state)
{
	struct fixture *f = *state;
	int c[3];

	shares(f, "w.lab.example.", 100000, c);
	assert_share(c[0], 100000, 0.70);
	assert_share(c[1], 100000, 0.30);
	/* smooth: exact over every cycle of total weight */
	shares(f, "w.lab.example.", 100, c);
	assert_int_equal(c[0], 70);
	assert_int_equal(c[1], 30);
	shares(f, "w3.lab.example.", 100000, c);
	assert_share(c[0], 100000, 0.50);
	assert_share(c[1], 100000, 0.30);
	assert_share(c[2], 100000, 0.20);
}

static void test_weighted_swrr_is_smooth(void **state)
{
	struct fixture *f = *state;
	struct authd_name *nm = test_name(f->db, "w.lab.example.");
	struct authd_pick p;
	struct authd_client none = {0};
	char seq[11] = "";

	/* 7:3 as nginx interleaves it, not aaaaaaabbb */
	for (int i = 0; i < 10; i++) {
		authd_policy_select(nm, AUTHD_V4, &none, &f->h, f->db->sites, AUTHD_FAIL_OPEN, &p);
		seq[i] = "ab"[authd_policy_weighted_pick(nm, AUTHD_V4, &p, &f->rng)];
	}
	assert_string_equal(seq, "abaaabaaba");
}

static void test_weighted_random_shares(void **state)
{
	struct fixture *f = *state;
	int c[3];

	shares(f, "wr.lab.example.", 100000, c);
	assert_share(c[0], 100000, 0.70);
	assert_share(c[1], 100000, 0.30);
}

static void test_weighted_skips_dead(void **state)
{
	struct fixture *f = *state;
	int c[3];

	report(f, "p1", "a", 0, 0);
	shares(f, "w3.lab.example.", 10000, c);
	assert_int_equal(c[0], 0);
	assert_share(c[1], 10000, 0.60); /* 30 / (30 + 20) */
	assert_share(c[2], 10000, 0.40);
	/* every site dead, fail-open: the weights as configured */
	report(f, "p1", "b", 0, 0);
	report(f, "p1", "c", 0, 0);
	shares(f, "w3.lab.example.", 100000, c);
	assert_share(c[0], 100000, 0.50);
	assert_share(c[1], 100000, 0.30);
	assert_share(c[2], 100000, 0.20);
}

static void test_geolocation_ecs(void **state)
{
	struct fixture *f = *state;
	struct authd_client c;
	uint8_t scope;

	client(&c, "198.18.1.0", 24); /* an ECS /24 */
	assert_string_equal(chosen(f, "geo.lab.example.", AUTHD_V4, &c, &scope), "a");
	assert_int_equal(scope, 24);
	client(&c, "198.18.7.0", 24);
	assert_string_equal(chosen(f, "geo.lab.example.", AUTHD_V4, &c, &scope), "b");
	/* the /16 answer holds for 198.18.0.0/22 only: 198.18.1.0/24 differs */
	assert_int_equal(scope, 22);
	client(&c, "198.18.128.0", 24);
	assert_string_equal(chosen(f, "geo.lab.example.", AUTHD_V4, &c, &scope), "b");
	assert_int_equal(scope, 17); /* 198.18.128.0/17 keeps 198.18.1.0/24 out */
	/* a /16 client cannot be placed in the /24: the /16 entry, scope 24 */
	client(&c, "198.18.0.0", 16);
	assert_string_equal(chosen(f, "geo.lab.example.", AUTHD_V4, &c, &scope), "b");
	assert_int_equal(scope, 24);
	client(&c, "10.1.2.0", 24);
	assert_string_equal(chosen(f, "geo.lab.example.", AUTHD_V4, &c, &scope), "c");
	assert_int_equal(scope, 8);
}

static void test_geolocation_source_address(void **state)
{
	struct fixture *f = *state;
	struct authd_client c;
	struct sockaddr_in sin = {.sin_family = AF_INET};

	inet_pton(AF_INET, "198.18.1.77", &sin.sin_addr);
	authd_client_from_sockaddr(&c, (struct sockaddr *)&sin);
	assert_int_equal(c.source_len, 32);
	assert_string_equal(chosen(f, "geo.lab.example.", AUTHD_V4, &c, NULL), "a");
	inet_pton(AF_INET, "198.18.200.1", &sin.sin_addr);
	authd_client_from_sockaddr(&c, (struct sockaddr *)&sin);
	assert_string_equal(chosen(f, "geo.lab.example.", AUTHD_V4, &c, NULL), "b");
}

static void test_geolocation_default_and_unmapped(void **state)
{
	struct fixture *f = *state;
	struct authd_client c;
	uint8_t scope;

	client(&c, "192.0.2.1", 32);
	/* no default: an unmapped querier gets nothing (NODATA) */
	assert_string_equal(chosen(f, "geo.lab.example.", AUTHD_V4, &c, &scope), "");
	/* with one: the default */
	assert_string_equal(chosen(f, "geod.lab.example.", AUTHD_V4, &c, &scope), "c");
	assert_int_equal(scope, 6); /* 192.0.2.1 and 198.18.1.0 part after 5 bits */
	client(&c, "198.18.1.5", 32);
	assert_string_equal(chosen(f, "geod.lab.example.", AUTHD_V4, &c, NULL), "a");
	/* unknown querier (no address at all) */
	assert_string_equal(chosen(f, "geod.lab.example.", AUTHD_V4, NULL, NULL), "c");
	assert_string_equal(chosen(f, "geo.lab.example.", AUTHD_V4, NULL, NULL), "");
	/* an IPv6 querier is unmapped here */
	client(&c, "2001:db8::1", 56);
	assert_string_equal(chosen(f, "geod.lab.example.", AUTHD_V4, &c, NULL), "c");
}

static void test_geolocation_health_fallback(void **state)
{
	struct fixture *f = *state;
	struct authd_client c;

	client(&c, "198.18.1.5", 32);
	report(f, "p1", "a", 0, 0);
	/* the next less specific match */
	assert_string_equal(chosen(f, "geo.lab.example.", AUTHD_V4, &c, NULL), "b");
	/* then the default */
	assert_string_equal(chosen(f, "geod.lab.example.", AUTHD_V4, &c, NULL), "c");
	report(f, "p1", "b", 0, 0);
	/* then any healthy site of the name */
	assert_string_equal(chosen(f, "geo.lab.example.", AUTHD_V4, &c, NULL), "c");
	report(f, "p1", "c", 0, 0);
	/* all dead, fail-open: the mapped site */
	assert_string_equal(chosen(f, "geo.lab.example.", AUTHD_V4, &c, NULL), "a");
	f->db->server.all_dead = AUTHD_FAIL_CLOSED;
	assert_string_equal(chosen(f, "geo.lab.example.", AUTHD_V4, &c, NULL), "");
}

static void test_latency(void **state)
{
	struct fixture *f = *state;
	struct authd_client east, west, other;
	uint8_t scope;

	client(&east, "198.18.1.9", 32);
	client(&west, "198.18.2.9", 32);
	client(&other, "192.0.2.1", 32);
	/* no RTTs yet: the first site */
	assert_string_equal(chosen(f, "lat.lab.example.", AUTHD_V4, &east, NULL), "a");
	report(f, "east", "a", 1, 9000);
	report(f, "east", "b", 1, 2000);
	report(f, "east", "c", 1, 5000);
	report(f, "west", "a", 1, 1000);
	report(f, "west", "b", 1, 8000);
	report(f, "west", "c", 1, 3000);
	assert_string_equal(chosen(f, "lat.lab.example.", AUTHD_V4, &east, &scope), "b");
	assert_int_equal(scope, 24);
	assert_string_equal(chosen(f, "lat.lab.example.", AUTHD_V4, &west, NULL), "a");
	/* no vantage for this network: the first healthy site */
	assert_string_equal(chosen(f, "lat.lab.example.", AUTHD_V4, &other, NULL), "a");
	/* b dies (east says so, west agrees): east's next best */
	report(f, "east", "b", 0, 0);
	report(f, "west", "b", 0, 0);
	assert_string_equal(chosen(f, "lat.lab.example.", AUTHD_V4, &east, NULL), "c");
	/* RTTs change */
	report(f, "west", "c", 1, 500);
	assert_string_equal(chosen(f, "lat.lab.example.", AUTHD_V4, &west, NULL), "c");
	/* AAAA: only a has one */
	assert_string_equal(chosen(f, "lat.lab.example.", AUTHD_V6, &west, NULL), "a");
}

/* prox: a PROXIMITY report from site's prober, at t seconds: the RTT from
 * site to querier q (0: unanswered) */
static void prox(struct fixture *f, const char *site, const char *q, uint32_t rtt, int t)
{
	struct health_report r = {.proximity = 1, .up = rtt > 0, .rtt_us = rtt};
	struct authd_health_change c;

	snprintf(r.prober, sizeof(r.prober), "px-%s", site);
	strcpy(r.site, site);
	assert_int_equal(inet_pton(AF_INET, q, &r.querier), 1);
	assert_int_equal(authd_health_apply_prox(&f->h, &r, (int64_t)t * 1000000000, &c), 0);
}

/* the sites of n answers to c in a row, as "a,b,a" */
static const char *answers(struct fixture *f, const char *name, const struct authd_client *c, int n)
{
	static char out[256];
	struct authd_name *nm = test_name(f->db, name);

	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		const knot_rdata_t *recs[8];
		struct authd_pick p;
		char addr[INET_ADDRSTRLEN];

		authd_policy_select(nm, AUTHD_V4, c, &f->h, f->db->sites, f->db->server.all_dead,
				    &p);
		/* one site's addresses */
		assert_true(
		    authd_policy_records(nm, AUTHD_V4, &p, f->db->sites, &f->rng, recs, 8) >= 1);
		inet_ntop(AF_INET, recs[0]->data, addr, sizeof(addr));
		for (int s = 0; s < f->db->nsites; s++)
			if (memcmp(f->db->sites[s].addr[AUTHD_V4][0], recs[0]->data, 4) == 0) {
				if (i)
					strcat(out, ",");
				strcat(out, f->db->sites[s].name);
			}
	}
	return out;
}

static void test_proximity(void **state)
{
	struct fixture *f = *state;
	struct authd_client r1, r2, net, other;
	uint8_t scope;

	client(&r1, "198.18.128.1", 32);
	client(&r2, "198.18.129.1", 32);
	client(&net, "198.18.129.0", 24); /* ECS: r2's network */
	client(&other, "192.0.2.1", 32);
	/* nothing measured: every live site, in turn */
	assert_string_equal(chosen(f, "px.lab.example.", AUTHD_V4, &r1, NULL), "a,b,c");
	assert_string_equal(answers(f, "px.lab.example.", &r1, 4), "a,b,c,a");
	/* the sites measure: each querier gets its closest */
	prox(f, "a", "198.18.128.1", 900, 1);
	prox(f, "b", "198.18.128.1", 40000, 1);
	prox(f, "c", "198.18.128.1", 20000, 1);
	prox(f, "a", "198.18.129.1", 41000, 1);
	prox(f, "b", "198.18.129.1", 700, 1);
	assert_string_equal(chosen(f, "px.lab.example.", AUTHD_V4, &r1, &scope), "a");
	assert_int_equal(scope, 32);
	assert_string_equal(answers(f, "px.lab.example.", &r1, 3), "a,a,a");
	assert_string_equal(chosen(f, "px.lab.example.", AUTHD_V4, &r2, NULL), "b");
	/* an ECS prefix: the measured querier inside it, scope its length */
	assert_string_equal(chosen(f, "px.lab.example.", AUTHD_V4, &net, &scope), "b");
	assert_int_equal(scope, 24);
	/* a querier no site measured: round robin */
	assert_string_equal(chosen(f, "px.lab.example.", AUTHD_V4, &other, NULL), "a,b,c");
	/* a dies: r1's next closest measured, c; r2 stays on b */
	report(f, "p1", "a", 0, 0);
	assert_string_equal(chosen(f, "px.lab.example.", AUTHD_V4, &r1, NULL), "c");
	assert_string_equal(chosen(f, "px.lab.example.", AUTHD_V4, &r2, NULL), "b");
	/* r2 stops answering b's probes: only a measures it, and a is dead:
	 * round robin over the live sites */
	prox(f, "b", "198.18.129.1", 0, 2);
	assert_string_equal(chosen(f, "px.lab.example.", AUTHD_V4, &r2, NULL), "b,c");
	/* the measurements age: the four of t = 1 s are stale at 4.5 s (3 s
	 * old); b's unanswered one of 2 s was no measurement either way */
	assert_int_equal(authd_health_expire(&f->h, 3900000000LL, 3000000000LL, NULL, NULL), 0);
	assert_int_equal(authd_health_expire(&f->h, 4500000000LL, 3000000000LL, NULL, NULL), 4);
	assert_string_equal(chosen(f, "px.lab.example.", AUTHD_V4, &r1, NULL), "b,c");
	/* fresh again */
	prox(f, "c", "198.18.128.1", 20000, 5);
	assert_string_equal(chosen(f, "px.lab.example.", AUTHD_V4, &r1, NULL), "c");
}

static void test_multivalue(void **state)
{
	struct fixture *f = *state;
	struct authd_name *nm = test_name(f->db, "mv.lab.example.");
	struct authd_client none = {0};
	int first[4] = {0};

	for (int i = 0; i < 4000; i++) {
		const knot_rdata_t *recs[16];
		struct authd_pick p;
		int n;

		authd_policy_select(nm, AUTHD_V4, &none, &f->h, f->db->sites, AUTHD_FAIL_OPEN, &p);
		n = authd_policy_records(nm, AUTHD_V4, &p, f->db->sites, &f->rng, recs, 16);
		assert_int_equal(n, 4); /* a, b, c twice: all of them, fewer than 8 */
		for (int j = 0; j < n; j++)
			for (int k = j + 1; k < n; k++)
				assert_ptr_not_equal(recs[j], recs[k]);
		first[recs[0]->data[2] == 3 ? 2 + (recs[0]->data[3] - 1) : recs[0]->data[2] - 1]++;
	}
	/* random order: each record comes first about a quarter of the time */
	for (int i = 0; i < 4; i++)
		assert_true(first[i] > 800 && first[i] < 1200);
	report(f, "p1", "c", 0, 0);
	for (int i = 0; i < 100; i++) {
		const knot_rdata_t *recs[16];
		struct authd_pick p;

		authd_policy_select(nm, AUTHD_V4, &none, &f->h, f->db->sites, AUTHD_FAIL_OPEN, &p);
		assert_int_equal(
		    authd_policy_records(nm, AUTHD_V4, &p, f->db->sites, &f->rng, recs, 16), 2);
	}
}

static void test_multivalue_at_most_8(void **state)
{
	char conf[4096] = "[zone lab.example]\nsoa = ns hm 1 1 1 1 1\n"
			  "[name mv.lab.example]\npolicy = multivalue\nsites =";
	struct authd_db *db;
	struct authd_name *nm;
	struct authd_client none = {0};
	uint64_t rng = 7;

	(void)state;
	for (int i = 0; i < 12; i++)
		sprintf(conf + strlen(conf), " s%d", i);
	strcat(conf, "\n");
	for (int i = 0; i < 12; i++)
		sprintf(conf + strlen(conf), "[site s%d]\naddress = 198.19.0.%d\n", i, i + 1);
	db = test_load(conf);
	assert_non_null(db);
	nm = test_name(db, "mv.lab.example.");
	for (int round = 0; round < 100; round++) {
		const knot_rdata_t *recs[64];
		struct authd_pick p;
		int n;

		authd_policy_select(nm, AUTHD_V4, &none, NULL, db->sites, AUTHD_FAIL_OPEN, &p);
		assert_int_equal(p.n, 12);
		n = authd_policy_records(nm, AUTHD_V4, &p, db->sites, &rng, recs, 64);
		assert_int_equal(n, 8);
	}
	authd_db_free(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_simple_hands_out_healthy_in_order, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_all_dead_fail_open_and_closed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_failover, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_weighted_swrr_shares, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_weighted_swrr_is_smooth, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_weighted_random_shares, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_weighted_skips_dead, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_geolocation_ecs, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_geolocation_source_address, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_geolocation_default_and_unmapped, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_geolocation_health_fallback, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_latency, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_proximity, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_multivalue, setup, teardown),
	    cmocka_unit_test(test_multivalue_at_most_8),
	};

	return cmocka_run_group_tests_name("authd policy", tests, NULL, NULL);
}
