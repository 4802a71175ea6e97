/*
 * authd's geolocation fallback map and weighted pattern (agents/authd/
 * policy.c, conf_name.c) with seed 000's table: sites b34, b35 and b06,
 * client groups g1..g4 mapped g1:b34 g2:b35 g3:b34 g4:b06, FALLBACK
 * b34:b06 b35:b34 b06:b35, PATTERN b34 b35 b06 b34 b35 b34 b35 b06 b34 b34.
 */
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

#define SEED_CONF                                                                                  \
	"[server]\n"                                                                               \
	"quorum = 0.5\n"                                                                           \
	"[zone lab.example]\n"                                                                     \
	"soa = ns1 hostmaster 1 3600 600 86400 30\n"                                               \
	"[site b34]\n"                                                                             \
	"address = 198.19.34.1\n"                                                                  \
	"[site b35]\n"                                                                             \
	"address = 198.19.35.1\n"                                                                  \
	"[site b06]\n"                                                                             \
	"address = 198.19.6.1\n"                                                                   \
	"[site far]\n"                                                                             \
	"address = 198.19.99.1\n"

static const char *seed_conf = SEED_CONF "[name geo.lab.example]\n"
					 "policy = geolocation\n"
					 "geo = 198.18.1.0/24 b34\n"
					 "geo = 198.18.2.0/24 b35\n"
					 "geo = 198.18.3.0/24 b34\n"
					 "geo = 198.18.4.0/24 b06\n"
					 "fallback = b34:b06 b35:b34 b06:b35\n"
					 "[name nofb.lab.example]\n"
					 "policy = geolocation\n"
					 "geo = 198.18.1.0/24 b34\n"
					 "geo = 198.18.2.0/24 b35\n"
					 "geo = 198.18.3.0/24 b34\n"
					 "geo = 198.18.4.0/24 b06\n"
					 "[name w.lab.example]\n"
					 "policy = weighted\n"
					 "weight = b34 5\n"
					 "weight = b35 3\n"
					 "weight = b06 2\n"
					 "pattern = b34 b35 b06 b34 b35 b34 b35 b06 b34 b34\n";

struct fixture {
	struct authd_db *db;
	struct authd_health h;
	uint64_t rng;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	f->db = test_load(seed_conf);
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

static void down(struct fixture *f, const char *site)
{
	struct health_report r = {.up = 0};
	struct authd_health_change c;

	strcpy(r.prober, "p1");
	strcpy(r.site, site);
	assert_int_equal(authd_health_apply(&f->h, &r, &c), 0);
}

/* answers: what group g (1..4, its /24 198.18.g.0) is answered for name,
 * one site per group, "g1:b34 g2:b35 ..." */
static const char *answers(struct fixture *f, const char *name)
{
	static char out[128];
	struct authd_name *nm = test_name(f->db, name);

	assert_non_null(nm);
	out[0] = '\0';
	for (int g = 1; g <= 4; g++) {
		struct authd_client c = {.family = AF_INET, .source_len = 32};
		struct authd_pick p;
		char a[16];

		snprintf(a, sizeof(a), "198.18.%d.9", g);
		assert_int_equal(inet_pton(AF_INET, a, c.addr), 1);
		authd_policy_select(nm, AUTHD_V4, &c, &f->h, f->db->sites, AUTHD_FAIL_OPEN, &p);
		assert_int_equal(p.n, 1);
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%sg%d:%s", g > 1 ? " " : "",
			 g, f->db->sites[nm->sites[p.slot[0]]].name);
	}
	return out;
}

/* a region whose site is dead goes to the map's fallback, not to the first
 * healthy candidate; a dead fallback passes on to its own */
static void test_geolocation_fallback(void **state)
{
	struct fixture *f = *state;

	assert_string_equal(answers(f, "geo.lab.example."), "g1:b34 g2:b35 g3:b34 g4:b06");
	down(f, "b34");
	assert_string_equal(answers(f, "geo.lab.example."), "g1:b06 g2:b35 g3:b06 g4:b06");
	/* without the map: the first healthy candidate, b35 */
	assert_string_equal(answers(f, "nofb.lab.example."), "g1:b35 g2:b35 g3:b35 g4:b06");
	down(f, "b06");
	assert_string_equal(answers(f, "geo.lab.example."), "g1:b35 g2:b35 g3:b35 g4:b35");
}

static void test_geolocation_fallback_each(void **state)
{
	struct fixture *f = *state;

	down(f, "b35");
	assert_string_equal(answers(f, "geo.lab.example."), "g1:b34 g2:b34 g3:b34 g4:b06");
	/* every candidate dead, fail-open: as if all were healthy */
	down(f, "b34");
	down(f, "b06");
	assert_string_equal(answers(f, "geo.lab.example."), "g1:b34 g2:b35 g3:b34 g4:b06");
}

/* seq: n weighted answers, space-separated */
static const char *seq(struct fixture *f, int n)
{
	static char out[512];
	struct authd_name *nm = test_name(f->db, "w.lab.example.");
	struct authd_client none = {0};

	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		struct authd_pick p;
		int s;

		authd_policy_select(nm, AUTHD_V4, &none, &f->h, f->db->sites, AUTHD_FAIL_OPEN, &p);
		s = authd_policy_weighted_pick(nm, AUTHD_V4, &p, &f->rng);
		assert_true(s >= 0);
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s", i ? " " : "",
			 f->db->sites[nm->sites[s]].name);
	}
	return out;
}

/* the pattern in turn, round and round; a dead site's entries skipped */
static void test_weighted_pattern(void **state)
{
	struct fixture *f = *state;
	struct authd_name *nm = test_name(f->db, "w.lab.example.");

	assert_string_equal(seq(f, 12), "b34 b35 b06 b34 b35 b34 b35 b06 b34 b34 b34 b35");
	/* the answers' records: the site's address */
	{
		struct authd_client none = {0};
		struct authd_pick p;
		const knot_rdata_t *recs[4];

		authd_policy_select(nm, AUTHD_V4, &none, &f->h, f->db->sites, AUTHD_FAIL_OPEN, &p);
		assert_int_equal(
		    authd_policy_records(nm, AUTHD_V4, &p, f->db->sites, &f->rng, recs, 4), 1);
		assert_memory_equal(recs[0]->data, "\xc6\x13\x06\x01", 4); /* 13th: b06 */
	}
	nm->pattern_pos[AUTHD_V4] = 0;
	down(f, "b35");
	assert_string_equal(seq(f, 10), "b34 b06 b34 b34 b06 b34 b34 b34 b06 b34");
}

static void test_conf_errors(void **state)
{
	char *e;

	(void)state;
	e = test_load_errors(SEED_CONF
			     "[name g.lab.example]\n"
			     "policy = geolocation\n"
			     "geo = 198.18.1.0/24 b34\n"
			     "geo = 198.18.2.0/24 b35\n"
			     "fallback = b34:far b35 b35:nowhere b34:b35 b35:b35 b35:b34 b34:b35\n"
			     "[name w.lab.example]\n"
			     "policy = weighted\n"
			     "weight = b34 5\n"
			     "weight = b35 3\n"
			     "pattern = b34 b06 b35\n"
			     "[name wr.lab.example]\n"
			     "policy = weighted\n"
			     "weighted_mode = random\n"
			     "weight = b34 5\n"
			     "pattern = b34\n"
			     "[name s.lab.example]\n"
			     "policy = simple\n"
			     "sites = b34\n"
			     "pattern = b34\n"
			     "fallback = b34:b35\n");
	assert_non_null(e);
	assert_string_equal(
	    e, "test.ini:17: [name g.lab.example] fallback: site 'far' is not a candidate of "
	       "this name (candidates: b34, b35)\n"
	       "test.ini:17: [name g.lab.example] fallback: expected SITE:FALLBACK pairs such "
	       "as 'a:b b:a', got 'b35'\n"
	       "test.ini:17: [name g.lab.example] fallback: unknown site 'nowhere' (sites: b34, "
	       "b35, b06, far)\n"
	       "test.ini:17: [name g.lab.example] fallback: site 'b35' falls back to itself\n"
	       "test.ini:17: [name g.lab.example] fallback: site 'b34' given two fallbacks\n"
	       "test.ini:22: [name w.lab.example] pattern: site 'b06' is not a candidate of this "
	       "name (candidates: b34, b35)\n"
	       "test.ini:27: [name wr.lab.example] pattern: a rotation is not random; expected "
	       "no weighted_mode = random with it\n"
	       "test.ini:31: [name s.lab.example] pattern: not a key of policy simple (its keys: "
	       "sites)\n"
	       "test.ini:32: [name s.lab.example] fallback: not a key of policy simple (its "
	       "keys: sites)\n");
	free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_geolocation_fallback, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_geolocation_fallback_each, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_weighted_pattern, setup, teardown),
	    cmocka_unit_test(test_conf_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
