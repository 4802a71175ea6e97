/*
 * probes/clocks/clocks_outage.c: the DNS outage clocks, on synthetic event
 * streams read as steerlab and the DNS clients write them: a dns-down and
 * its dns-up, two clients behind two resolvers (one serving stale, one
 * answering SERVFAIL), resolutions before, during and after it, each
 * counted at the instant its query left; a malformed dns_resolution is an
 * error naming the file and line.
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

struct fixture {
	struct clocks_input in;
	struct clocks_outages out;
	char err[512];
};

TEST_EVENTS_FIXTURE(struct fixture, TEST_EVENTS_NOTHING)

static int feed(struct fixture *f, const char *node, const char *agent, const char *text)
{
	return test_read_events(&f->in, f->err, sizeof(f->err), node, agent, text);
}

static void step(struct fixture *f, int64_t t, const char *name, const char *action)
{
	char line[512];

	snprintf(line, sizeof(line),
		 "{\"t\":%lld,\"event\":\"event_applied\",\"name\":\"%s\",\"action\":\"%s\","
		 "\"target\":\"ns\",\"kind\":\"dns\",\"site\":null,\"step\":null,\"cycle\":0,"
		 "\"vias\":[],\"at_ns\":0,\"nominal_at_ns\":0}\n",
		 (long long)t, name, action);
	assert_int_equal(feed(f, "lab", "steerlab", line), 0);
}

/* step_done: a step that began at t and was in place (its rule loaded) at
 * done, as lab/run/actions.c writes it */
static void step_done(struct fixture *f, int64_t t, int64_t done, const char *name,
		      const char *action)
{
	char line[512];

	snprintf(line, sizeof(line),
		 "{\"t\":%lld,\"event\":\"event_applied\",\"name\":\"%s\",\"action\":\"%s\","
		 "\"target\":\"ns\",\"kind\":\"dns\",\"site\":null,\"step\":null,\"cycle\":0,"
		 "\"vias\":[],\"done_ns\":%lld,\"at_ns\":0,\"nominal_at_ns\":0}\n",
		 (long long)t, name, action, (long long)done);
	assert_int_equal(feed(f, "lab", "steerlab", line), 0);
}

/* a resolution of client id, learned at t, its query sent latency before */
static void res(struct fixture *f, const char *node, uint32_t id, int64_t t, const char *outcome,
		int64_t latency)
{
	char line[512];

	snprintf(line, sizeof(line),
		 "{\"t\":%lld,\"event\":\"dns_resolution\",\"client\":%u,\"outcome\":\"%s\","
		 "\"rcode\":0,\"stale\":false,\"address\":null,\"latency_ns\":%lld}\n",
		 (long long)t, id, outcome, (long long)latency);
	assert_int_equal(feed(f, node, "client-dns", line), 0);
}

static void lab(struct fixture *f)
{
	char line[512];

	snprintf(line, sizeof(line),
		 "{\"t\":%lld,\"event\":\"traffic_started\",\"duration_ns\":10000000000}\n"
		 "{\"t\":%lld,\"event\":\"site_failed\",\"site\":\"a\",\"via\":\"198.18.0.2\","
		 "\"prefix\":\"198.19.0.1/32\",\"address\":\"198.19.1.1\"}\n",
		 (long long)(T0 - 2000 * MS), (long long)T0);
	assert_int_equal(feed(f, "lab", "steerlab", line), 0);
	assert_int_equal(
	    feed(f, "c1", "client-dns",
		 "{\"t\":1,\"event\":\"client_started\",\"client\":100001,\"target\":\"www\","
		 "\"rate\":100,\"resolver\":\"198.18.128.1\",\"mode\":\"dns\",\"sticky_ns\":0}\n"),
	    0);
	assert_int_equal(
	    feed(f, "c2", "client-dns",
		 "{\"t\":1,\"event\":\"client_started\",\"client\":100002,\"target\":\"www\","
		 "\"rate\":100,\"resolver\":\"198.18.129.1\",\"mode\":\"dns\",\"sticky_ns\":0}\n"),
	    0);
}

static const struct clocks_outage_resolver *res_of(const struct clocks_outage *o, const char *r)
{
	for (int i = 0; i < o->nresolvers; i++)
		if (strcmp(o->r[i].resolver, r) == 0)
			return &o->r[i];
	fail_msg("no resolver %s", r);
	return NULL;
}

static void test_outage(void **state)
{
	struct fixture *f = *state;
	const struct clocks_outage_resolver *r1, *r2;
	const struct clocks_outage *o;
	json_t *j;

	lab(f);
	step(f, T0 + 1000 * MS, "out", "dns-down");
	step(f, T0 + 4000 * MS, "back", "dns-up");
	res(f, "c1", 100001, T0 + 500 * MS, "fresh", MS);	    /* before: not counted */
	res(f, "c1", 100001, T0 + 2200 * MS, "stale", 200 * MS);    /* sent at 2.0 s */
	res(f, "c2", 100002, T0 + 2100 * MS, "servfail", 100 * MS); /* sent at 2.0 s */
	res(f, "c2", 100002, T0 + 3100 * MS, "timeout", 1000 * MS); /* sent at 2.1 s */
	res(f, "c2", 100002, T0 + 4500 * MS, "timeout", 1000 * MS); /* sent at 3.5 s */
	res(f, "c2", 100002, T0 + 5100 * MS, "fresh", 10 * MS);	    /* after the dns-up */
	clocks_outages(&f->in, &f->out);

	assert_int_equal(f->out.n, 1);
	o = &f->out.o[0];
	assert_string_equal(o->name, "out");
	assert_string_equal(o->action, "dns-down");
	assert_int_equal(o->from_ns, T0 + 1000 * MS);
	assert_int_equal(o->until_ns, T0 + 4000 * MS);
	/* from 1 s after t0 to the traffic's end at 8 s: 7 buckets of 1 s */
	assert_int_equal(o->nbuckets, 7);
	assert_int_equal(o->nresolvers, 2);
	r1 = res_of(o, "198.18.128.1");
	assert_int_equal(r1->during[CLOCKS_DNS_FRESH], 0);
	assert_int_equal(r1->during[CLOCKS_DNS_STALE], 1);
	assert_int_equal(r1->b[1][CLOCKS_DNS_STALE], 1);
	r2 = res_of(o, "198.18.129.1");
	assert_int_equal(r2->during[CLOCKS_DNS_SERVFAIL], 1);
	assert_int_equal(r2->during[CLOCKS_DNS_TIMEOUT], 2);
	assert_int_equal(r2->during[CLOCKS_DNS_FRESH], 0);
	/* answered slowly (100 ms or more), the timeouts not counted */
	assert_int_equal(r1->slow, 1);
	assert_true(r1->slowest_ns == 200 * MS);
	assert_int_equal(r2->slow, 1);
	assert_true(r2->slowest_ns == 100 * MS);
	assert_int_equal(r2->b[1][CLOCKS_DNS_SERVFAIL], 1);
	assert_int_equal(r2->b[1][CLOCKS_DNS_TIMEOUT], 1);
	assert_int_equal(r2->b[2][CLOCKS_DNS_TIMEOUT], 1);
	/* after the outage: in the buckets, not in during */
	assert_int_equal(r2->b[4][CLOCKS_DNS_FRESH], 1);

	j = clocks_json_outages(&f->in, &f->out);
	assert_int_equal(
	    json_integer_value(json_object_get(
		json_object_get(json_object_get(json_object_get(json_array_get(j, 0), "resolvers"),
						"198.18.129.1"),
				"during"),
		"timeout")),
	    2);
	assert_float_equal(json_real_value(json_object_get(json_array_get(j, 0), "until_s")), 4.0,
			   1e-9);
	json_decref(j);
}

/* a resolver outage that is never undone: until is missing, every
 * resolution after it counts */
static void test_outage_open(void **state)
{
	struct fixture *f = *state;

	lab(f);
	step(f, T0 + 1000 * MS, "rd", "resolver-down");
	res(f, "c1", 100001, T0 + 7000 * MS, "timeout", 1000 * MS);
	clocks_outages(&f->in, &f->out);
	assert_int_equal(f->out.n, 1);
	assert_int_equal(f->out.o[0].until_ns, CLOCKS_NONE);
	assert_int_equal(res_of(&f->out.o[0], "198.18.128.1")->during[CLOCKS_DNS_TIMEOUT], 1);
}

/* The outage counts from when its rule was in place, not from when
 * steerlab began to load it (nft in the namespace takes tens of ms on a
 * loaded machine): a query sent meanwhile and answered is not the outage's;
 * likewise its end is when the dns-up's removal was done. */
static void test_outage_in_effect(void **state)
{
	struct fixture *f = *state;
	const struct clocks_outage_resolver *r1;
	const struct clocks_outage *o;

	lab(f);
	step_done(f, T0 + 1000 * MS, T0 + 1040 * MS, "out", "dns-down");
	step_done(f, T0 + 4000 * MS, T0 + 4030 * MS, "back", "dns-up");
	res(f, "c1", 100001, T0 + 1021 * MS, "fresh", MS);	    /* sent at 1.020 s: loading */
	res(f, "c1", 100001, T0 + 2041 * MS, "timeout", 1000 * MS); /* sent at 1.041 s */
	res(f, "c1", 100001, T0 + 5020 * MS, "timeout", 1000 * MS); /* sent at 4.020 s: removing */
	res(f, "c1", 100001, T0 + 4041 * MS, "fresh", MS);	    /* sent at 4.040 s: after */
	clocks_outages(&f->in, &f->out);

	assert_int_equal(f->out.n, 1);
	o = &f->out.o[0];
	assert_int_equal(o->from_ns, T0 + 1040 * MS);
	assert_int_equal(o->until_ns, T0 + 4030 * MS);
	r1 = res_of(o, "198.18.128.1");
	assert_int_equal(r1->during[CLOCKS_DNS_FRESH], 0);
	assert_int_equal(r1->during[CLOCKS_DNS_TIMEOUT], 2);
}

static void test_bad_resolution(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(feed(f, "c1", "client-dns",
			      "{\"t\":5,\"event\":\"dns_resolution\",\"client\":100001,"
			      "\"outcome\":\"maybe\",\"latency_ns\":0}\n"),
			 -1);
	assert_non_null(strstr(f->err, "RUN/c1.client-dns.events.jsonl:1"));
	assert_non_null(strstr(f->err, "outcome"));
	assert_int_equal(feed(f, "c1", "client-dns",
			      "{\"t\":5,\"event\":\"dns_resolution\",\"client\":100001,"
			      "\"outcome\":\"fresh\"}\n"),
			 -1);
	assert_non_null(strstr(f->err, "latency_ns"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_outage, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_outage_open, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_outage_in_effect, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bad_resolution, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
