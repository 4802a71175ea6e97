/*
 * probes/clocks/clocks_fib.c and clocks_catch.c: the FIB clocks and the
 * catchments, on synthetic event streams read as the collectors and
 * steerlab write them (clocks_read_events_stream): several routers, a
 * router that changes twice (path exploration), convergence at the last
 * router's final change, ECMP, a replace that takes the failed site's
 * route out (steer), the teardown's withdrawals ignored, and each anycast
 * client's site before t0 and after convergence.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>
#include <jansson.h>

#include "clocks.h"
#include "clocks_int.h"
#include "test_events.h"

#define T0 1700000000000000000LL
#define MS 1000000LL
#define assert_near(a, b, eps) assert_true(fabs((a) - (b)) < (eps))

/* a [link r1 r2], [link r2 r3]; a on r1, b on r2, c on r3 */
#define LAB_UP                                                                                     \
	"{\"t\":1,\"event\":\"lab_up\",\"lab\":\"fib\",\"port\":7000,\"addresses\":{"              \
	"\"198.18.0.1\":{\"node\":\"r1\",\"kind\":\"router\"},"                                    \
	"\"198.18.0.2\":{\"node\":\"a\",\"kind\":\"site\"},"                                       \
	"\"198.18.0.6\":{\"node\":\"b\",\"kind\":\"site\"},"                                       \
	"\"198.18.0.10\":{\"node\":\"c\",\"kind\":\"site\"},"                                      \
	"\"198.18.32.1\":{\"node\":\"r1\",\"kind\":\"router\"},"                                   \
	"\"198.18.32.2\":{\"node\":\"r2\",\"kind\":\"router\"},"                                   \
	"\"198.18.32.5\":{\"node\":\"r2\",\"kind\":\"router\"},"                                   \
	"\"198.18.32.6\":{\"node\":\"r3\",\"kind\":\"router\"}}}\n"
#define SITE_FAILED                                                                                \
	"{\"t\":1700000000000000000,\"event\":\"site_failed\",\"site\":\"a\",\"via\":"             \
	"\"198.18.0.2\",\"prefix\":\"198.19.0.1/32\",\"address\":\"198.19.1.1\"}\n"

struct fixture {
	struct clocks_input in;
	char err[512];
};

TEST_EVENTS_FIXTURE(struct fixture, TEST_EVENTS_NOTHING)

/* feed: text as the events file of agent on node; the reader's rc */
static int feed(struct fixture *f, const char *node, const char *agent, const char *text)
{
	return test_read_events(&f->in, f->err, sizeof(f->err), node, agent, text);
}

/* route: one route event line of a collector, as collector.c writes it */
static char *route(char *buf, size_t len, int64_t t, const char *op, const char *via, long metric,
		   int proto, const char *nexthops)
{
	snprintf(buf, len,
		 "{\"t\":%lld,\"event\":\"%s\",\"prefix\":\"198.19.0.1/32\",\"op\":\"%s\","
		 "\"via\":\"%s\",\"metric\":%ld,\"protocol\":%d,\"table\":254,\"type\":"
		 "\"unicast\",\"dev\":\"x\",\"multipath\":%s,\"nexthops\":%s}\n",
		 (long long)t, strcmp(op, "del") == 0 ? "route_deleted" : "route_added", op, via,
		 metric, proto, nexthops ? "true" : "false", nexthops ? nexthops : "null");
	return buf;
}

static void lab(struct fixture *f)
{
	assert_int_equal(feed(f, "lab", "steerlab", LAB_UP SITE_FAILED), 0);
}

static void feed_route(struct fixture *f, const char *router, int64_t t, const char *op,
		       const char *via, long metric, int proto, const char *nexthops)
{
	char line[1024];

	route(line, sizeof(line), t, op, via, metric, proto, nexthops);
	assert_int_equal(feed(f, router, "collector", line), 0);
}

static const struct clocks_router_fib *router_of(const struct clocks_fib *fib, const char *name)
{
	for (int i = 0; i < fib->nrouters; i++)
		if (strcmp(fib->routers[i].router, name) == 0)
			return &fib->routers[i];
	fail_msg("no router %s in the FIB clocks", name);
	return NULL;
}

/* routing = static, as routed does it: every router's routes present before
 * t0, each drops a's at once; r2's route used does not change */
static void test_static_two_routers(void **state)
{
	struct fixture *f = *state;
	static struct clocks_fib fib;
	const struct clocks_router_fib *r1, *r2;

	lab(f);
	feed_route(f, "r1", T0 - 2000 * MS, "present", "198.18.0.2", 10, 252, NULL);
	feed_route(f, "r1", T0 - 2000 * MS, "add", "198.18.32.2", 16777236, 252, NULL);
	feed_route(f, "r2", T0 - 2000 * MS, "add", "198.18.32.1", 16777226, 252, NULL);
	feed_route(f, "r2", T0 - 2000 * MS, "add", "198.18.0.6", 20, 252, NULL);
	feed_route(f, "r1", T0 + 300 * MS, "del", "198.18.0.2", 10, 252, NULL);
	feed_route(f, "r2", T0 + 301 * MS, "del", "198.18.32.1", 16777226, 252, NULL);
	clocks_fib(&f->in, &fib);

	assert_int_equal(fib.nrouters, 2);
	r1 = router_of(&fib, "r1");
	r2 = router_of(&fib, "r2");
	assert_int_equal(r1->changes, 1);
	assert_int_equal(r1->path_changes, 1);
	assert_int_equal(r2->changes, 1);
	assert_int_equal(r2->path_changes, 0); /* b stays its route */
	assert_int_equal(r1->first_at_ns, T0 + 300 * MS);
	assert_int_equal(r2->final_at_ns, T0 + 301 * MS);
	/* before: r1 to a directly; after: to r2, which leads to b */
	assert_string_equal(r1->before.site, "a");
	assert_int_equal(r1->before.metric, 10);
	assert_string_equal(r1->after.site, "b");
	assert_int_equal(r1->after.metric, 16777236);
	assert_int_equal(r1->after.protocol, 252);
	assert_string_equal(r2->before.site, "b");
	assert_string_equal(r2->after.site, "b");
	assert_int_equal(fib.first_at_ns, T0 + 300 * MS);
	assert_string_equal(fib.first_router, "r1");
	assert_int_equal(fib.last_at_ns, T0 + 301 * MS);
	assert_string_equal(fib.last_router, "r2");
	assert_int_equal(fib.routers_changed, 2);
	assert_int_equal(fib.exploring, 0);
	assert_int_equal(fib.left_at_ns, T0 + 300 * MS);
}

/* BGP's way: one route per router, replaced; r3 explores (two changes) and
 * is the last: convergence is its final change, not its first */
static void test_path_exploration(void **state)
{
	struct fixture *f = *state;
	static struct clocks_fib fib;
	const struct clocks_router_fib *r3;

	lab(f);
	feed_route(f, "r1", T0 - 1000 * MS, "present", "198.18.0.2", 20, 186, NULL);
	feed_route(f, "r2", T0 - 1000 * MS, "present", "198.18.32.1", 20, 186, NULL);
	feed_route(f, "r3", T0 - 1000 * MS, "present", "198.18.32.5", 20, 186, NULL);
	/* r1 first, to r2 (whose b it reaches); r2 to b */
	feed_route(f, "r1", T0 + 100 * MS, "replace", "198.18.32.2", 20, 186, NULL);
	feed_route(f, "r2", T0 + 150 * MS, "replace", "198.18.0.6", 20, 186, NULL);
	/* r3: a path withdrawn, then another, then lost and found again */
	feed_route(f, "r3", T0 + 200 * MS, "del", "198.18.32.5", 20, 186, NULL);
	feed_route(f, "r3", T0 + 900 * MS, "add", "198.18.32.5", 20, 186, NULL);
	clocks_fib(&f->in, &fib);

	r3 = router_of(&fib, "r3");
	assert_int_equal(r3->changes, 2);
	assert_int_equal(r3->path_changes, 2); /* gone, back */
	assert_int_equal(r3->first_at_ns, T0 + 200 * MS);
	assert_int_equal(r3->final_at_ns, T0 + 900 * MS);
	/* r3 to r2, r2 to b: followed through every router's route */
	assert_string_equal(r3->before.site, "a"); /* r2 then went to r1, to a */
	assert_string_equal(r3->after.site, "b");
	assert_int_equal(fib.routers_changed, 3);
	assert_int_equal(fib.exploring, 1);
	assert_int_equal(fib.first_at_ns, T0 + 100 * MS);
	assert_string_equal(fib.first_router, "r1");
	assert_int_equal(fib.last_at_ns, T0 + 900 * MS);
	assert_string_equal(fib.last_router, "r3");
	/* a's route replaced by one via r2: it left r1's FIB then */
	assert_int_equal(fib.left_at_ns, T0 + 100 * MS);
}

/* before t0 is state, not change; the teardown's withdrawals (from
 * lab_stopping on) are not the run's; another prefix is not the service */
static void test_window_of_changes(void **state)
{
	struct fixture *f = *state;
	static struct clocks_fib fib;
	char line[1024];
	const struct clocks_router_fib *r1;

	lab(f);
	assert_int_equal(feed(f, "lab", "steerlab",
			      "{\"t\":1700000009000000000,\"event\":"
			      "\"lab_stopping\"}\n"),
			 0);
	feed_route(f, "r2", T0 - 500 * MS, "present", "198.18.0.6", 20, 186, NULL);
	feed_route(f, "r1", T0 - 500 * MS, "add", "198.18.0.2", 20, 186, NULL);
	feed_route(f, "r1", T0 - 400 * MS, "replace", "198.18.0.2", 20, 186, NULL);
	feed_route(f, "r1", T0 + 10 * MS, "replace", "198.18.32.2", 20, 186, NULL);
	feed_route(f, "r1", T0 + 9000 * MS, "del", "198.18.32.2", 20, 186, NULL);
	snprintf(line, sizeof(line),
		 "{\"t\":%lld,\"event\":\"route_added\",\"prefix\":\"198.18.99.0/24\",\"op\":"
		 "\"add\",\"via\":\"198.18.0.2\",\"metric\":0}\n",
		 (long long)(T0 + 20 * MS));
	assert_int_equal(feed(f, "r1", "collector", line), 0);
	clocks_fib(&f->in, &fib);
	r1 = router_of(&fib, "r1");
	assert_int_equal(r1->changes, 1);
	assert_int_equal(r1->final_at_ns, T0 + 10 * MS);
	assert_true(r1->after.present); /* the teardown's del does not count */
	assert_string_equal(r1->after.site, "b");
	assert_int_equal(fib.last_at_ns, T0 + 10 * MS);
}

/* ECMP: a multipath route's next hops are one route; losing one of them is
 * a path change; a route of collector-dns beside the collector is the same
 * FIB and not counted twice */
static void test_multipath(void **state)
{
	struct fixture *f = *state;
	static struct clocks_fib fib;
	const struct clocks_router_fib *r1;
	char line[1024];

	lab(f);
	feed_route(f, "r1", T0 - 100 * MS, "present", "198.18.0.2", 20, 186,
		   "[{\"via\":\"198.18.0.2\",\"dev\":\"a\"},{\"via\":\"198.18.32.2\",\"dev\":"
		   "\"r2\"}]");
	feed_route(f, "r1", T0 + 50 * MS, "replace", "198.18.32.2", 20, 186, NULL);
	route(line, sizeof(line), T0 + 50 * MS, "replace", "198.18.32.2", 20, 186, NULL);
	assert_int_equal(feed(f, "r1", "collector-dns", line), 0);
	clocks_fib(&f->in, &fib);
	r1 = router_of(&fib, "r1");
	assert_int_equal(r1->before.nnh, 2);
	assert_string_equal(r1->before.nh[1].dev, "r2");
	assert_int_equal(r1->after.nnh, 1);
	assert_int_equal(r1->changes, 1);
	assert_int_equal(r1->path_changes, 1);
	/* the ECMP route via a's link was replaced by one not via it */
	assert_int_equal(fib.left_at_ns, T0 + 50 * MS);
}

/* steer: a replace takes a's route out of the FIB as a deletion does */
static void test_steer_by_replace(void **state)
{
	struct fixture *f = *state;
	static struct clocks_result r;

	lab(f);
	feed_route(f, "r1", T0 - 100 * MS, "present", "198.18.0.2", 20, 186, NULL);
	feed_route(f, "r1", T0 + 70 * MS, "replace", "198.18.32.2", 20, 186, NULL);
	/* a collector that says "replace": true and no op means the same */
	assert_int_equal(feed(f, "r2", "collector",
			      "{\"t\":1700000000080000000,\"event\":\"route_added\",\"prefix\":"
			      "\"198.19.0.1/32\",\"via\":\"198.18.32.1\",\"metric\":20,"
			      "\"replace\":true}\n"),
			 0);
	assert_int_equal(f->in.routes[f->in.nroutes - 1].op, CLOCKS_OP_REPLACE);
	clocks_anycast(&f->in, &r);
	assert_int_equal(r.steer_at_ns, T0 + 70 * MS);
	assert_int_equal(r.steer_ns, 70 * MS);
	assert_non_null(r.fib);
	assert_int_equal(r.fib->last_at_ns, T0 + 80 * MS);
	clocks_result_free(&r);
}

static void add_request(struct clocks_input *in, uint32_t client, int64_t sent,
			enum clocks_status st, const char *site)
{
	struct clocks_request *q;

	assert_int_equal(
	    clocks_grow((void **)&in->requests, &in->caprequests, in->nrequests, sizeof(*q)), 0);
	q = &in->requests[in->nrequests++];
	memset(q, 0, sizeof(*q));
	q->client = client;
	q->seq = in->nrequests;
	q->sent_ns = sent;
	q->status = st;
	snprintf(q->site, sizeof(q->site), "%s", site);
}

/* catchments: c1 a then b, c2 b throughout; what is sent between t0 and the
 * last FIB change is neither; lost requests name no site; DNS flows and
 * probes are not anycast clients */
static void test_catchments(void **state)
{
	struct fixture *f = *state;
	static struct clocks_fib fib;
	static struct clocks_catchments cs;

	lab(f);
	feed_route(f, "r1", T0 - 100 * MS, "present", "198.18.0.2", 20, 186, NULL);
	feed_route(f, "r1", T0 + 300 * MS, "replace", "198.18.32.2", 20, 186, NULL);
	for (int i = 0; i < 50; i++) {
		/* c2's records first, then c1's, as two files would be read */
		add_request(&f->in, 2, T0 - (50 - i) * 10 * MS, CLOCKS_OK, "b");
	}
	add_request(&f->in, 2, T0 + 100 * MS, CLOCKS_OK, "b");
	add_request(&f->in, 2, T0 + 400 * MS, CLOCKS_OK, "b");
	/* c1: a long ago b (a stale memory), then its last 20 all a */
	add_request(&f->in, 1, T0 - 5000 * MS, CLOCKS_OK, "b");
	for (int i = 0; i < 30; i++)
		add_request(&f->in, 1, T0 - (30 - i) * 10 * MS, CLOCKS_OK, "a");
	add_request(&f->in, 1, T0 + 100 * MS, CLOCKS_TIMEOUT, "");
	add_request(&f->in, 1, T0 + 250 * MS, CLOCKS_OK, "a"); /* before convergence */
	for (int i = 0; i < 5; i++)
		add_request(&f->in, 1, T0 + (400 + i) * MS, CLOCKS_OK, "b");
	add_request(&f->in, 1, T0 + 500 * MS, CLOCKS_TIMEOUT, "");
	add_request(&f->in, WIRE_DNS_CLIENT_BASE + 1, T0 + 400 * MS, CLOCKS_OK, "a");
	add_request(&f->in, 0, T0 + 400 * MS, CLOCKS_OK, "a");
	clocks_fib(&f->in, &fib);
	clocks_catchments(&f->in, &fib, &cs);

	assert_true(cs.known);
	assert_int_equal(cs.n, 2);
	assert_int_equal(cs.c[0].client, 1);
	assert_string_equal(cs.c[0].before, "a");
	assert_int_equal(cs.c[0].before_n, CLOCKS_CATCH_LAST);
	assert_int_equal(cs.c[0].before_of, CLOCKS_CATCH_LAST);
	assert_string_equal(cs.c[0].after, "b");
	assert_int_equal(cs.c[0].after_n, 5);
	assert_int_equal(cs.c[0].after_of, 5);
	assert_int_equal(cs.c[1].client, 2);
	assert_string_equal(cs.c[1].before, "b");
	assert_string_equal(cs.c[1].after, "b");
	assert_int_equal(cs.c[1].after_of, 1);
}

/* a population's catchments: its 300 logical clients counted by the pair
 * (before, after), none of them listed one by one. Logical client j: its
 * last answered request before t0 at a (an earlier one at b) for j < 200,
 * at b for the others; after convergence b, but for j % 100 == 0, which
 * stays at a; j = 299 was answered by no one after (lost). A second
 * population's client that sent nothing answered counts, with no sites. */
static void test_catchments_population(void **state)
{
	struct fixture *f = *state;
	static struct clocks_fib fib;
	static struct clocks_catchments cs;
	const uint32_t base = WIRE_POP_ID(3, 0, 0), other = WIRE_POP_ID(4, 0, 0);

	lab(f);
	feed_route(f, "r1", T0 - 100 * MS, "present", "198.18.0.2", 20, 186, NULL);
	feed_route(f, "r1", T0 + 300 * MS, "replace", "198.18.32.2", 20, 186, NULL);
	for (uint32_t j = 0; j < 300; j++) {
		add_request(&f->in, base + j, T0 - 900 * MS, CLOCKS_OK, j < 200 ? "b" : "a");
		add_request(&f->in, base + j, T0 - 500 * MS, CLOCKS_OK, j < 200 ? "a" : "b");
		add_request(&f->in, base + j, T0 - 100 * MS, CLOCKS_TIMEOUT, "");
		if (j == 299)
			add_request(&f->in, base + j, T0 + 500 * MS, CLOCKS_TIMEOUT, "");
		else
			add_request(&f->in, base + j, T0 + 500 * MS, CLOCKS_OK,
				    j % 100 == 0 ? "a" : "b");
	}
	add_request(&f->in, other, T0 - 100 * MS, CLOCKS_TIMEOUT, "");
	add_request(&f->in, 1, T0 - 100 * MS, CLOCKS_OK, "a");
	clocks_fib(&f->in, &fib);
	clocks_catchments(&f->in, &fib, &cs);

	assert_true(cs.known);
	assert_int_equal(cs.n, 1); /* the process client alone */
	assert_int_equal(cs.c[0].client, 1);
	assert_int_equal(cs.npops, 2);
	assert_int_equal(cs.lost_pops, 0);
	assert_int_equal(cs.pops[0].base, base);
	assert_int_equal(cs.pops[0].clients, 300);
	/* a -> b: 198 (j < 200 but 0 and 100); b -> b: 98; a -> a: 2 (0,
	 * 100); b -> a: 1 (200); b -> none: 1 (299) */
	assert_int_equal(cs.pops[0].moved, 198 + 1);
	assert_int_equal(cs.pops[0].npairs, 5);
	assert_string_equal(cs.pops[0].pairs[0].before, "a");
	assert_string_equal(cs.pops[0].pairs[0].after, "b");
	assert_int_equal(cs.pops[0].pairs[0].clients, 198);
	assert_string_equal(cs.pops[0].pairs[1].before, "b");
	assert_string_equal(cs.pops[0].pairs[1].after, "b");
	assert_int_equal(cs.pops[0].pairs[1].clients, 98);
	assert_int_equal(cs.pops[0].pairs[2].clients, 2);
	for (int k = 3; k < 5; k++) {
		const struct clocks_catch_pair *q = &cs.pops[0].pairs[k];

		assert_int_equal(q->clients, 1);
		assert_string_equal(q->before, "b");
		assert_true(strcmp(q->after, "a") == 0 || strcmp(q->after, "") == 0);
	}
	assert_int_equal(cs.pops[1].base, other);
	assert_int_equal(cs.pops[1].clients, 1);
	assert_int_equal(cs.pops[1].moved, 0);
	assert_string_equal(cs.pops[1].pairs[0].before, "");
	assert_string_equal(cs.pops[1].pairs[0].after, "");
}

/* no FIB change: no "after convergence" to speak of */
static void test_catchments_unknown(void **state)
{
	struct fixture *f = *state;
	static struct clocks_fib fib;
	static struct clocks_catchments cs;

	lab(f);
	add_request(&f->in, 1, T0 - 10 * MS, CLOCKS_OK, "a");
	add_request(&f->in, 1, T0 + 10 * MS, CLOCKS_OK, "b");
	clocks_fib(&f->in, &fib);
	assert_int_equal(fib.nrouters, 0);
	assert_int_equal(fib.last_at_ns, CLOCKS_NONE);
	clocks_catchments(&f->in, &fib, &cs);
	assert_false(cs.known);
	assert_int_equal(cs.n, 1);
	assert_string_equal(cs.c[0].before, "a");
	assert_string_equal(cs.c[0].after, "");
}

/* A failure the timeline recovers is two episodes (issue 22): a crashes,
 * routed's hold timer deletes its route 2.41 s after t0 (r1 then uses r2's
 * route, to b), the timeline recovers a at 3 s and its route is back at
 * 3.314 s. The failure: one change, no path exploration, convergence at
 * 2.41 s; the fail-back: one change, 0.314 s after the recovery. Client 1
 * was at a before, at b during the outage, at a again after. */
static void test_failback_episodes(void **state)
{
	struct fixture *f = *state;
	static struct clocks_fib fib;
	static struct clocks_catchments cs;
	const struct clocks_router_fib *r1;
	json_t *o, *b;

	lab(f);
	f->in.failure.recovered_ns = T0 + 3000 * MS;
	feed_route(f, "r1", T0 - 2000 * MS, "present", "198.18.0.2", 10, 252, NULL);
	feed_route(f, "r1", T0 - 2000 * MS, "add", "198.18.32.2", 16777236, 252, NULL);
	feed_route(f, "r2", T0 - 2000 * MS, "present", "198.18.0.6", 20, 252, NULL);
	feed_route(f, "r1", T0 + 2410 * MS, "del", "198.18.0.2", 10, 252, NULL);
	feed_route(f, "r1", T0 + 3314 * MS, "add", "198.18.0.2", 10, 252, NULL);
	for (int i = 0; i < 30; i++)
		add_request(&f->in, 1, T0 - (30 - i) * 10 * MS, CLOCKS_OK, "a");
	add_request(&f->in, 1, T0 + 1000 * MS, CLOCKS_TIMEOUT, "");
	for (int i = 0; i < 5; i++)
		add_request(&f->in, 1, T0 + (2500 + 100 * i) * MS, CLOCKS_OK, "b");
	/* after the recovery, before the route came back: in neither */
	add_request(&f->in, 1, T0 + 3100 * MS, CLOCKS_OK, "b");
	for (int i = 0; i < 7; i++)
		add_request(&f->in, 1, T0 + (3400 + 100 * i) * MS, CLOCKS_OK, "a");
	clocks_fib(&f->in, &fib);
	clocks_catchments(&f->in, &fib, &cs);

	/* the failure, until the recovery */
	r1 = router_of(&fib, "r1");
	assert_int_equal(r1->changes, 1);
	assert_int_equal(r1->path_changes, 1);
	assert_int_equal(r1->final_at_ns, T0 + 2410 * MS);
	assert_string_equal(r1->before.site, "a");
	assert_string_equal(r1->after.site, "b");
	assert_int_equal(fib.exploring, 0);
	assert_int_equal(fib.routers_changed, 1);
	assert_int_equal(fib.last_at_ns, T0 + 2410 * MS);
	assert_int_equal(fib.left_at_ns, T0 + 2410 * MS);
	/* the fail-back, from it */
	assert_non_null(fib.failback);
	assert_int_equal(fib.failback->from_ns, T0 + 3000 * MS);
	r1 = router_of(fib.failback, "r1");
	assert_int_equal(r1->changes, 1);
	assert_int_equal(r1->first_at_ns, T0 + 3314 * MS);
	assert_string_equal(r1->before.site, "b");
	assert_string_equal(r1->after.site, "a");
	assert_int_equal(fib.failback->exploring, 0);
	assert_int_equal(fib.failback->last_at_ns, T0 + 3314 * MS);
	/* clocks.json: each episode's convergence from its own start */
	o = clocks_json_fib(&f->in, &fib);
	assert_near(json_real_value(json_object_get(o, "convergence_s")), 2.41, 1e-9);
	assert_int_equal(json_array_size(json_object_get(o, "path_exploration")), 0);
	b = json_object_get(o, "failback");
	assert_non_null(b);
	assert_near(json_real_value(json_object_get(b, "from_s")), 3.0, 1e-9);
	assert_near(json_real_value(json_object_get(b, "convergence_s")), 0.314, 1e-9);
	assert_int_equal(json_array_size(json_object_get(b, "path_exploration")), 0);
	json_decref(o);
	/* the catchment per episode: before, during, after */
	assert_int_equal(cs.episodes, 2);
	assert_true(cs.known && cs.during_known);
	assert_int_equal(cs.n, 1);
	assert_string_equal(cs.c[0].before, "a");
	assert_string_equal(cs.c[0].during, "b");
	assert_int_equal(cs.c[0].during_of, 5);
	assert_string_equal(cs.c[0].after, "a");
	assert_int_equal(cs.c[0].after_of, 7);
	assert_int_equal(clocks_catch_moved(&cs, cs.c[0].before, cs.c[0].during, cs.c[0].after), 1);
	assert_int_equal(clocks_catch_back(&cs, cs.c[0].before, cs.c[0].after), 1);
	o = clocks_json_catchments(&cs);
	assert_string_equal(json_string_value(json_object_get(
				json_object_get(json_object_get(o, "1"), "during"), "site")),
			    "b");
	assert_true(json_is_true(json_object_get(json_object_get(o, "1"), "moved")));
	assert_true(json_is_true(json_object_get(json_object_get(o, "1"), "back")));
	json_decref(o);
	free(fib.failback);
}

static int has_code(const struct clocks_notes *v, const char *code, const char *text)
{
	for (int i = 0; i < v->n; i++)
		if (strcmp(v->w[i].code, code) == 0 && (text == NULL || strstr(v->w[i].msg, text)))
			return 1;
	return 0;
}

/* the verdict with a routing daemon's routes (no site_failed routes): r2's
 * route via r1, which led to a at t0, withdrawn after t0 is the failure's;
 * r3's route via r2, which led to b, is a healthy route withdrawn */
static void test_verdict_daemon_routes(void **state)
{
	struct fixture *f = *state;
	static struct clocks_result r;
	static struct clocks_notes v;

	lab(f);
	feed_route(f, "r1", T0 - 100 * MS, "present", "198.18.0.2", 20, 186, NULL);
	feed_route(f, "r2", T0 - 100 * MS, "present", "198.18.32.1", 20, 186, NULL);
	feed_route(f, "r2", T0 - 100 * MS, "add", "198.18.0.6", 30, 186, NULL);
	feed_route(f, "r3", T0 - 100 * MS, "present", "198.18.32.5", 20, 186, NULL);
	feed_route(f, "r1", T0 + 100 * MS, "del", "198.18.0.2", 20, 186, NULL);
	feed_route(f, "r2", T0 + 200 * MS, "del", "198.18.32.1", 20, 186, NULL);
	clocks_anycast(&f->in, &r);
	memset(&v, 0, sizeof(v));
	clocks_verdict(&f->in, &r, 1, &v);
	assert_false(has_code(&v, "healthy_route_withdrawn", NULL));
	clocks_result_free(&r);

	/* r2's route to b goes too: not the failure's */
	feed_route(f, "r2", T0 + 300 * MS, "del", "198.18.0.6", 30, 186, NULL);
	clocks_anycast(&f->in, &r);
	memset(&v, 0, sizeof(v));
	clocks_verdict(&f->in, &r, 1, &v);
	assert_true(has_code(&v, "healthy_route_withdrawn", "via 198.18.0.6"));
	assert_false(has_code(&v, "healthy_route_withdrawn", "via 198.18.32.1"));
	clocks_result_free(&r);
}

/* a route installed again as it was is no change; a replace that moves a
 * healthy route (r2's, to b) away is a healthy route withdrawn, as a
 * deletion is; r1's move away from a is the failure's */
static void test_replace_same_and_left(void **state)
{
	struct fixture *f = *state;
	static struct clocks_result r;
	static struct clocks_notes v;
	const struct clocks_router_fib *r1, *r2;

	lab(f);
	feed_route(f, "r1", T0 - 100 * MS, "present", "198.18.0.2", 20, 186, NULL);
	feed_route(f, "r2", T0 - 100 * MS, "present", "198.18.0.6", 20, 186, NULL);
	feed_route(f, "r2", T0 + 50 * MS, "replace", "198.18.0.6", 20, 186, NULL);
	feed_route(f, "r1", T0 + 100 * MS, "replace", "198.18.32.2", 20, 186, NULL);
	clocks_anycast(&f->in, &r);
	r1 = router_of(r.fib, "r1");
	r2 = router_of(r.fib, "r2");
	assert_int_equal(r1->changes, 1);
	assert_int_equal(r2->changes, 0);
	assert_int_equal(r2->first_at_ns, CLOCKS_NONE);
	assert_int_equal(r.fib->routers_changed, 1);
	memset(&v, 0, sizeof(v));
	clocks_verdict(&f->in, &r, 1, &v);
	assert_false(has_code(&v, "healthy_route_withdrawn", NULL));
	clocks_result_free(&r);

	feed_route(f, "r2", T0 + 200 * MS, "replace", "198.18.32.1", 20, 186, NULL);
	clocks_anycast(&f->in, &r);
	assert_int_equal(router_of(r.fib, "r2")->changes, 1);
	memset(&v, 0, sizeof(v));
	clocks_verdict(&f->in, &r, 1, &v);
	assert_true(has_code(&v, "healthy_route_withdrawn", "via 198.18.0.6"));
	clocks_result_free(&r);
}

/* a dual lab: the routes to the service's IPv6 address, each (prefix and
 * next hops) read as its IPv4 twin's (lab_up's twins), are FIB clocks of
 * their own (fib6, clocks.json's "fib6") beside the IPv4 ones, which they
 * leave as they were; a link-local next hop names no site; an IPv6
 * prefix that is no twin is an error */
static void test_ipv6_routes(void **state)
{
	struct fixture *f = *state;
	static struct clocks_result r;
	char line[1024];
	json_t *j;

	assert_int_equal(feed(f, "lab", "steerlab",
			      "{\"t\":1,\"event\":\"lab_up\",\"lab\":\"fib\",\"port\":7000,"
			      "\"addresses\":{\"198.18.0.2\":{\"node\":\"a\",\"kind\":\"site\"},"
			      "\"198.18.32.2\":{\"node\":\"r2\",\"kind\":\"router\"}},"
			      "\"twins\":{\"2001:2:0:ff00::1\":\"198.19.0.1\","
			      "\"2001:2::2\":\"198.18.0.2\",\"2001:2:0:1000::2\":\"198.18.32.2\"}}"
			      "\n" SITE_FAILED),
			 0);
	feed_route(f, "r1", T0 - 100 * MS, "present", "198.18.0.2", 20, 186, NULL);
	feed_route(f, "r1", T0 + 80 * MS, "replace", "198.18.32.2", 20, 186, NULL);
	snprintf(line, sizeof(line),
		 "{\"t\":%lld,\"event\":\"route_added\",\"prefix\":\"2001:2:0:ff00::1/128\","
		 "\"op\":\"present\",\"via\":\"2001:2::2\",\"metric\":20,\"protocol\":186}\n"
		 "{\"t\":%lld,\"event\":\"route_deleted\",\"prefix\":\"2001:2:0:ff00::1/128\","
		 "\"op\":\"del\",\"via\":\"2001:2::2\",\"metric\":20,\"protocol\":186}\n"
		 "{\"t\":%lld,\"event\":\"route_added\",\"prefix\":\"2001:2:0:ff00::1/128\","
		 "\"op\":\"add\",\"via\":\"2001:2:0:1000::2\",\"metric\":20,\"protocol\":186}\n",
		 (long long)(T0 - 100 * MS), (long long)(T0 + 81 * MS), (long long)(T0 + 82 * MS));
	assert_int_equal(feed(f, "r1", "collector", line), 0);
	assert_int_equal(f->in.nroutes, 2);
	assert_int_equal(f->in.nroutes6, 3);
	clocks_anycast(&f->in, &r);
	assert_int_equal(router_of(r.fib, "r1")->changes, 1);
	assert_non_null(r.fib6);
	assert_int_equal(router_of(r.fib6, "r1")->changes, 2);
	assert_int_equal(router_of(r.fib6, "r1")->final_at_ns, T0 + 82 * MS);
	assert_string_equal(router_of(r.fib6, "r1")->before.site, "a");
	/* towards r2 (198.18.32.2, the twin of 2001:2:0:1000::2) */
	assert_int_equal(router_of(r.fib6, "r1")->after.nh[0].has_via, 1);
	assert_int_equal(router_of(r.fib6, "r1")->after.nh[0].via.s_addr,
			 router_of(r.fib, "r1")->after.nh[0].via.s_addr);
	assert_int_equal(r.fib6->left_at_ns, T0 + 81 * MS);
	/* steer is the IPv4 route's */
	assert_int_equal(r.steer_at_ns, T0 + 80 * MS);
	j = clocks_json_fib(&f->in, r.fib6);
	assert_int_equal(json_integer_value(json_object_get(j, "routers_changed")), 1);
	json_decref(j);
	clocks_result_free(&r);
	/* a link-local next hop: no site; a prefix without a twin: an error */
	assert_int_equal(feed(f, "r1", "collector",
			      "{\"t\":1700000000090000000,\"event\":\"route_added\",\"prefix\":"
			      "\"2001:2:0:ff00::1/128\",\"op\":\"replace\",\"via\":\"fe80::1\"}\n"),
			 0);
	assert_int_equal(f->in.routes6[3].has_via, 0);
	assert_int_equal(
	    feed(f, "r1", "collector",
		 "{\"t\":1,\"event\":\"route_added\",\"prefix\":\"2001:2:0:fe00::1/128\","
		 "\"op\":\"add\"}\n"),
	    -1);
	assert_non_null(strstr(f->err, "has an IPv6 prefix that is no address of lab_up's twins in "
				       "\"prefix\""));
}

/* malformed route events are errors naming the file and the line */
static void test_bad_route_events(void **state)
{
	struct fixture *f = *state;
	char line[1024];

	route(line, sizeof(line), T0, "sideways", "198.18.0.2", 20, 186, NULL);
	assert_int_equal(feed(f, "r1", "collector", line), -1);
	assert_non_null(strstr(f->err, "RUN/r1.collector.events.jsonl:1: route_added has no add, "
				       "replace, append or present in \"op\""));
	route(line, sizeof(line), T0, "add", "198.18.0.2", 20, 186, "[]");
	assert_int_equal(feed(f, "r1", "collector", line), -1);
	assert_non_null(strstr(f->err, "has no list of next hops in \"nexthops\""));
	route(line, sizeof(line), T0, "add", "198.18.0.2", 20, 186, "[{\"via\":\"nowhere\"}]");
	assert_int_equal(feed(f, "r1", "collector", line), -1);
	assert_non_null(strstr(f->err, "has no IPv4 address in \"via\""));
	assert_int_equal(feed(f, "lab", "steerlab",
			      "{\"t\":1,\"event\":\"lab_up\",\"lab\":\"x\",\"addresses\":{"
			      "\"198.18.0.1\":\"r1\"}}\n"),
			 -1);
	assert_non_null(strstr(f->err, "RUN/lab.steerlab.events.jsonl:1: lab_up has an entry "
				       "that is not ADDRESS: {node, kind} in \"addresses\""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_static_two_routers, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_ipv6_routes, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_path_exploration, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_window_of_changes, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_multipath, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_steer_by_replace, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_catchments, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_catchments_population, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_catchments_unknown, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_failback_episodes, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_verdict_daemon_routes, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_replace_same_and_left, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bad_route_events, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
