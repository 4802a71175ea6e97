/*
 * probes/clocks/clocks_flap.c: the flap clocks, on synthetic event streams
 * read as steerlab and the collectors write them: a flap of site a whose
 * route comes back at once after one up and is withheld (damping) after
 * the other, a router that never routed to a, a route that never comes
 * back, and clocks.json's timeline.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "clocks.h"
#include "clocks_int.h"
#include "test_events.h"

#define T0 1700000000000000000LL
#define MS 1000000LL

#define LAB_UP                                                                                     \
	"{\"t\":1,\"event\":\"lab_up\",\"lab\":\"flap\",\"port\":7000,\"addresses\":{"             \
	"\"198.18.0.1\":{\"node\":\"core\",\"kind\":\"router\"},"                                  \
	"\"198.18.0.2\":{\"node\":\"a\",\"kind\":\"site\"},"                                       \
	"\"198.18.0.6\":{\"node\":\"b\",\"kind\":\"site\"}}}\n"
#define SITE_FAILED                                                                                \
	"{\"t\":1700000000000000000,\"event\":\"site_failed\",\"site\":\"a\",\"via\":"             \
	"\"198.18.0.2\",\"prefix\":\"198.19.0.1/32\",\"address\":\"198.19.1.1\"}\n"

struct fixture {
	struct clocks_input in;
	struct clocks_flaps fl;
	char err[512];
};

TEST_EVENTS_FIXTURE(struct fixture, TEST_EVENTS_NOTHING)

static void feed(struct fixture *f, const char *node, const char *agent, const char *text)
{
	assert_int_equal(test_read_events(&f->in, f->err, sizeof(f->err), node, agent, text), 0);
}

/* a collector's route event: op replace (or present), del */
static void route(struct fixture *f, const char *router, int64_t t, const char *op, const char *via)
{
	char line[1024];

	snprintf(line, sizeof(line),
		 "{\"t\":%lld,\"event\":\"%s\",\"prefix\":\"198.19.0.1/32\",\"op\":\"%s\","
		 "\"via\":\"%s\",\"metric\":20,\"protocol\":186,\"table\":254,\"type\":"
		 "\"unicast\",\"dev\":\"x\",\"multipath\":false,\"nexthops\":null}\n",
		 (long long)t, strcmp(op, "del") == 0 ? "route_deleted" : "route_added", op, via);
	feed(f, router, "collector", line);
}

/* a flap step of e1 on site a, as lab/run/actions.c writes it */
static void step(struct fixture *f, int64_t t, const char *which, int cycle)
{
	char line[1024];

	snprintf(line, sizeof(line),
		 "{\"t\":%lld,\"event\":\"event_applied\",\"name\":\"e1\",\"action\":\"flap\","
		 "\"target\":\"a\",\"kind\":\"site\",\"site\":\"a\",\"step\":\"%s\",\"cycle\":%d,"
		 "\"vias\":[\"198.18.0.2\"],\"done_ns\":%lld,\"by\":\"timeline\","
		 "\"nominal_at_ns\":%lld,\"at_ns\":%lld}\n",
		 (long long)t, which, cycle, (long long)t + MS, (long long)(t - T0 + 3000 * MS),
		 (long long)(t - T0 + 3000 * MS));
	feed(f, "lab", "steerlab", line);
}

static void lab(struct fixture *f, int64_t stopping)
{
	char line[128];

	feed(f, "lab", "steerlab", LAB_UP SITE_FAILED);
	step(f, T0, "down", 1);
	step(f, T0 + 500 * MS, "up", 1);
	step(f, T0 + 1000 * MS, "down", 2);
	step(f, T0 + 1500 * MS, "up", 2);
	snprintf(line, sizeof(line), "{\"t\":%lld,\"event\":\"lab_stopping\"}\n",
		 (long long)stopping);
	feed(f, "lab", "steerlab", line);
	/* r2 routes to b all along */
	route(f, "r2", T0 - 2000 * MS, "present", "198.18.0.6");
}

static const struct clocks_flap_router *router_of(const struct clocks_flap *fp, const char *name)
{
	for (int i = 0; i < fp->nrouters; i++)
		if (strcmp(fp->routers[i].router, name) == 0)
			return &fp->routers[i];
	fail_msg("no router %s in the flap clocks", name);
	return NULL;
}

/* core: a's route goes and comes back 100 ms after the first up (too soon
 * to judge: the next down is 500 ms later), goes again, and after the last
 * up is withheld 3.5 s: suppressed from the up until it comes back */
static void test_flap_suppressed(void **state)
{
	struct fixture *f = *state;
	const struct clocks_flap_router *r;

	lab(f, T0 + 10000 * MS);
	route(f, "core", T0 - 2000 * MS, "present", "198.18.0.2");
	route(f, "core", T0 + 100 * MS, "replace", "198.18.0.6");
	route(f, "core", T0 + 600 * MS, "replace", "198.18.0.2");
	route(f, "core", T0 + 1100 * MS, "replace", "198.18.0.6");
	route(f, "core", T0 + 5000 * MS, "replace", "198.18.0.2");
	route(f, "core", T0 + 11000 * MS, "del", "198.18.0.2"); /* the teardown's */
	clocks_flaps(&f->in, &f->fl);

	assert_int_equal(f->fl.n, 1);
	assert_string_equal(f->fl.f[0].name, "e1");
	assert_string_equal(f->fl.f[0].site, "a");
	assert_int_equal(f->fl.f[0].cycles, 2);
	assert_int_equal(f->fl.f[0].first_down_ns, T0);
	assert_int_equal(f->fl.f[0].last_up_ns, T0 + 1500 * MS);
	r = router_of(&f->fl.f[0], "core");
	assert_true(r->to_site);
	assert_int_equal(r->changes, 4);
	assert_int_equal(r->times_ns[0], T0 + 100 * MS);
	assert_int_equal(r->times_ns[3], T0 + 5000 * MS);
	assert_int_equal(r->nups, 2);
	assert_int_equal(r->ups[0].cycle, 1);
	assert_int_equal(r->ups[0].back_at_ns, T0 + 600 * MS);
	assert_false(r->ups[0].judged);
	assert_false(r->ups[0].suppressed);
	assert_int_equal(r->ups[1].cycle, 2);
	assert_int_equal(r->ups[1].back_at_ns, T0 + 5000 * MS);
	assert_true(r->ups[1].judged);
	assert_true(r->ups[1].suppressed);
	assert_int_equal(r->suppressed, 1);

	r = router_of(&f->fl.f[0], "r2");
	assert_false(r->to_site);
	assert_int_equal(r->changes, 0);
	assert_int_equal(r->nups, 0);
}

/* without damping the route is back 300 ms after the last up: not
 * suppressed; and a route that never comes back before the teardown is */
static void test_flap_back_and_never(void **state)
{
	struct fixture *f = *state;
	const struct clocks_flap_router *r;

	lab(f, T0 + 10000 * MS);
	route(f, "core", T0 - 2000 * MS, "present", "198.18.0.2");
	route(f, "core", T0 + 100 * MS, "del", "198.18.0.2");
	route(f, "core", T0 + 600 * MS, "replace", "198.18.0.2");
	route(f, "core", T0 + 1100 * MS, "del", "198.18.0.2");
	route(f, "core", T0 + 1800 * MS, "replace", "198.18.0.2");
	clocks_flaps(&f->in, &f->fl);
	r = router_of(&f->fl.f[0], "core");
	assert_int_equal(r->changes, 4);
	assert_int_equal(r->ups[1].back_at_ns, T0 + 1800 * MS);
	assert_true(r->ups[1].judged);
	assert_false(r->ups[1].suppressed);
	assert_int_equal(r->suppressed, 0);
}

static void test_flap_never_back(void **state)
{
	struct fixture *f = *state;
	const struct clocks_flap_router *r;
	json_t *j, *supp;

	lab(f, T0 + 8000 * MS);
	route(f, "core", T0 - 2000 * MS, "present", "198.18.0.2");
	route(f, "core", T0 + 100 * MS, "replace", "198.18.0.6");
	route(f, "core", T0 + 9000 * MS, "replace", "198.18.0.2"); /* after lab_stopping */
	clocks_flaps(&f->in, &f->fl);
	r = router_of(&f->fl.f[0], "core");
	assert_int_equal(r->changes, 1);
	assert_int_equal(r->ups[0].back_at_ns, CLOCKS_NONE);
	assert_false(r->ups[0].judged);
	assert_int_equal(r->ups[1].back_at_ns, CLOCKS_NONE);
	assert_true(r->ups[1].suppressed);

	/* clocks.json: the interval open at the end (until_s null) */
	j = clocks_json_flaps(&f->in, &f->fl);
	supp = json_object_get(
	    json_object_get(json_object_get(json_array_get(j, 0), "routers"), "core"),
	    "suppressed");
	assert_int_equal(json_array_size(supp), 1);
	assert_true(json_is_null(json_object_get(json_array_get(supp, 0), "until_s")));
	assert_float_equal(json_real_value(json_object_get(json_array_get(supp, 0), "from_s")), 1.5,
			   1e-9);
	json_decref(j);

	/* the timeline: every step, as applied */
	j = clocks_json_timeline(&f->in);
	assert_int_equal(json_array_size(j), 4);
	assert_string_equal(json_string_value(json_object_get(json_array_get(j, 3), "action")),
			    "flap");
	assert_true(json_is_true(json_object_get(json_array_get(j, 3), "up")));
	assert_int_equal(json_integer_value(json_object_get(json_array_get(j, 3), "cycle")), 2);
	assert_float_equal(json_real_value(json_object_get(json_array_get(j, 3), "at_s")), 4.5,
			   1e-9);
	json_decref(j);
}

/* no flap in the timeline: no flap clocks */
static void test_no_flap(void **state)
{
	struct fixture *f = *state;

	feed(f, "lab", "steerlab", LAB_UP SITE_FAILED);
	route(f, "core", T0 + 100 * MS, "del", "198.18.0.2");
	clocks_flaps(&f->in, &f->fl);
	assert_int_equal(f->fl.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_flap_suppressed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_flap_back_and_never, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_flap_never_back, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_no_flap, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
