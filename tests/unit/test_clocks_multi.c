/*
 * probes/clocks/clocks_multi.c: the clocks of every failure of the
 * timeline, on synthetic runs: events read as steerlab, the probers, the
 * collector and authd write them, request captures and client records
 * built in memory. Two sites failing one after the other, each measured
 * from its own t0 with the requests that reached it; a recovery that ends
 * the first failure's window and a second failure of the same site after
 * it; a flap's downs, which are not failures; clocks.json's "failures".
 */
#include <arpa/inet.h>
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
#define ANY "198.19.0.1"
#define ADDR_A "198.19.1.1"
#define ADDR_B "198.19.1.2"
#define DNS_ID(n) (WIRE_DNS_CLIENT_BASE + (n))

#define LAB_UP                                                                                     \
	"{\"t\":1,\"event\":\"lab_up\",\"lab\":\"multi\",\"port\":7000,\"addresses\":{"            \
	"\"198.18.0.1\":{\"node\":\"core\",\"kind\":\"router\"},"                                  \
	"\"198.18.0.2\":{\"node\":\"a\",\"kind\":\"site\"},"                                       \
	"\"198.18.0.6\":{\"node\":\"b\",\"kind\":\"site\"},"                                       \
	"\"198.18.0.10\":{\"node\":\"c\",\"kind\":\"site\"}}}\n"

struct fixture {
	struct clocks_input in;
	struct clocks_multi m;
	char err[512];
};

static void fixture_cleanup(struct fixture *f)
{
	clocks_multi_free(&f->m);
}

TEST_EVENTS_FIXTURE(struct fixture, fixture_cleanup)

static void feed(struct fixture *f, const char *node, const char *agent, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void feed(struct fixture *f, const char *node, const char *agent, const char *fmt, ...)
{
	char text[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	assert_int_equal(test_read_events(&f->in, f->err, sizeof(f->err), node, agent, text), 0);
}

/* site_failed of site (its link address via, its address addr) by event */
static void site_failed(struct fixture *f, int64_t t, const char *site, const char *via,
			const char *addr, const char *how, const char *event)
{
	feed(f, "lab", "steerlab",
	     "{\"t\":%lld,\"event\":\"site_failed\",\"site\":\"%s\",\"via\":\"%s\",\"prefix\":"
	     "\"" ANY "/32\",\"address\":\"%s\",\"how\":\"%s\",\"cause\":\"%s\",\"by\":"
	     "\"timeline\"}\n",
	     (long long)t, site, via, addr, how, event);
}

/* event_applied of event (action on site), as lab/run/actions.c writes it */
static void applied(struct fixture *f, int64_t t, const char *event, const char *action,
		    const char *site, const char *step, int cycle)
{
	char stepkey[64] = "";

	if (step)
		snprintf(stepkey, sizeof(stepkey), ",\"step\":\"%s\"", step);
	feed(f, "lab", "steerlab",
	     "{\"t\":%lld,\"event\":\"event_applied\",\"name\":\"%s\",\"action\":\"%s\","
	     "\"target\":\"%s\",\"kind\":\"site\",\"site\":\"%s\"%s,\"cycle\":%d,\"vias\":[],"
	     "\"by\":\"timeline\",\"nominal_at_ns\":%lld,\"at_ns\":%lld}\n",
	     (long long)t, event, action, site, site, stepkey, cycle, (long long)(t - T0),
	     (long long)(t - T0));
}

static void dead(struct fixture *f, int64_t t, const char *site)
{
	feed(f, site, "prober", "{\"t\":%lld,\"event\":\"declared_dead\",\"site\":\"%s\"}\n",
	     (long long)t, site);
}

static void unhealthy(struct fixture *f, int64_t t, const char *site)
{
	feed(f, "ns", "authd",
	     "{\"t\":%lld,\"event\":\"health_changed\",\"site\":\"%s\",\"healthy\":false}\n",
	     (long long)t, site);
}

static void route_deleted(struct fixture *f, int64_t t, const char *via)
{
	feed(f, "core", "collector",
	     "{\"t\":%lld,\"event\":\"route_deleted\",\"prefix\":\"" ANY "/32\",\"via\":\"%s\","
	     "\"metric\":20,\"protocol\":186,\"table\":254,\"type\":\"unicast\",\"dev\":\"x\","
	     "\"multipath\":false,\"nexthops\":null}\n",
	     (long long)t, via);
}

/* the answer stops handing out addr */
static void answer_without(struct fixture *f, int64_t t, const char *addr, const char *other)
{
	feed(f, "ns", "authd",
	     "{\"t\":%lld,\"event\":\"answer_changed\",\"name\":\"www.lab.example.\",\"before\":"
	     "[\"%s\"],\"after\":[\"%s\"],\"reason\":\"x\",\"policy\":\"failover\"}\n",
	     (long long)t, addr, other);
}

static struct clocks_capture *capture(struct fixture *f, const char *label)
{
	struct clocks_capture *c;

	for (size_t i = 0; i < f->in.ncaptures; i++)
		if (strcmp(f->in.captures[i].label, label) == 0)
			return &f->in.captures[i];
	assert_int_equal(clocks_grow((void **)&f->in.captures, &f->in.capcaptures, f->in.ncaptures,
				     sizeof(*f->in.captures)),
			 0);
	c = &f->in.captures[f->in.ncaptures++];
	memset(c, 0, sizeof(*c));
	snprintf(c->label, sizeof(c->label), "%s", label);
	return c;
}

/* a request of client (sequence number seq) captured on site's link at t,
 * to dst; lost: the client's record of it says timeout, else ok */
static void request(struct fixture *f, const char *site, int64_t t, uint32_t client, uint32_t seq,
		    const char *dst, int lost)
{
	struct clocks_capture *c = capture(f, site);
	struct clocks_request *q;

	assert_int_equal(clocks_grow((void **)&c->packets, &c->cap, c->n, sizeof(*c->packets)), 0);
	c->packets[c->n].t_ns = t;
	c->packets[c->n].client = client;
	c->packets[c->n].seq = seq;
	assert_int_equal(inet_pton(AF_INET, dst, &c->packets[c->n].dst), 1);
	c->n++;
	assert_int_equal(clocks_grow((void **)&f->in.requests, &f->in.caprequests, f->in.nrequests,
				     sizeof(*f->in.requests)),
			 0);
	q = &f->in.requests[f->in.nrequests++];
	memset(q, 0, sizeof(*q));
	q->client = client;
	q->seq = seq;
	q->sent_ns = t;
	q->rtt_ns = lost ? 0 : MS;
	q->status = lost ? CLOCKS_TIMEOUT : CLOCKS_OK;
	snprintf(q->site, sizeof(q->site), "%s", lost ? "" : site);
	f->in.have_requests = 1;
}

static void analyse(struct fixture *f)
{
	assert_int_equal(clocks_failures_find(&f->in, f->err, sizeof(f->err)), 0);
	assert_int_equal(clocks_multi(&f->in, &f->m), 0);
}

/* a crashes at T0, b is killed at T0 + 2 s; c takes over */
static void two_sites(struct fixture *f)
{
	feed(f, "lab", "steerlab", "%s", LAB_UP);
	site_failed(f, T0, "a", "198.18.0.2", ADDR_A, "crash", "e1");
	applied(f, T0, "e1", "crash", "a", NULL, 0);
	site_failed(f, T0 + 2000 * MS, "b", "198.18.0.6", ADDR_B, "sigkill", "e2");
	applied(f, T0 + 2000 * MS, "e2", "kill", "b", NULL, 0);
	/* a: detected and steered around in 300 ms, b in 150 ms */
	dead(f, T0 + 300 * MS, "a");
	route_deleted(f, T0 + 310 * MS, "198.18.0.2");
	unhealthy(f, T0 + 250 * MS, "a");
	answer_without(f, T0 + 260 * MS, ADDR_A, ADDR_B);
	dead(f, T0 + 2150 * MS, "b");
	route_deleted(f, T0 + 2160 * MS, "198.18.0.6");
	unhealthy(f, T0 + 2200 * MS, "b");
	answer_without(f, T0 + 2210 * MS, ADDR_B, "198.19.1.3");
	/* anycast client 1: to a until 200 ms after a's t0, then to b (which
	 * answers) until b fails, then to b for 100 ms more, lost */
	request(f, "a", T0 - 100 * MS, 1, 1, ANY, 0);
	request(f, "a", T0 + 100 * MS, 1, 2, ANY, 1);
	request(f, "a", T0 + 200 * MS, 1, 3, ANY, 1);
	request(f, "b", T0 + 1000 * MS, 1, 4, ANY, 0);
	request(f, "b", T0 + 2100 * MS, 1, 5, ANY, 1);
	request(f, "c", T0 + 2500 * MS, 1, 6, ANY, 0);
	/* DNS client 1: to a's address, then b's, then c's */
	request(f, "a", T0 + 50 * MS, DNS_ID(1), 1, ADDR_A, 1);
	request(f, "b", T0 + 1000 * MS, DNS_ID(1), 2, ADDR_B, 0);
	request(f, "b", T0 + 2300 * MS, DNS_ID(1), 3, ADDR_B, 1);
	request(f, "b", T0 + 2400 * MS, DNS_ID(1), 4, ADDR_B, 1);
	request(f, "c", T0 + 2500 * MS, DNS_ID(1), 5, "198.19.1.3", 0);
}

static void test_two_sites(void **state)
{
	struct fixture *f = *state;
	const struct clocks_result *a, *b;

	two_sites(f);
	analyse(f);
	assert_int_equal(f->in.nfailures, 2);
	assert_int_equal(f->m.n, 2);
	assert_string_equal(f->m.fc[0].f->site, "a");
	assert_string_equal(f->m.fc[0].f->name, "e1");
	assert_string_equal(f->m.fc[1].f->site, "b");
	assert_string_equal(f->m.fc[1].f->name, "e2");
	assert_string_equal(f->m.fc[1].f->how, "sigkill");
	assert_int_equal(f->m.fc[1].f->t0_ns, T0 + 2000 * MS);
	/* the first failure's clocks are the run's */
	assert_string_equal(f->in.failure.site, "a");

	/* anycast: each from its own t0, with the requests to its own site */
	a = &f->m.fc[0].res[0];
	b = &f->m.fc[1].res[0];
	assert_string_equal(a->scheme, "anycast");
	assert_int_equal(a->detect_ns, 300 * MS);
	assert_int_equal(a->steer_ns, 310 * MS);
	assert_int_equal(a->window_ns, 200 * MS);
	assert_int_equal(a->lost_capture, 2);
	assert_int_equal(a->lost_client, 2);
	assert_int_equal(b->detect_ns, 150 * MS);
	assert_int_equal(b->steer_ns, 160 * MS);
	assert_int_equal(b->window_ns, 100 * MS); /* not b's answered request at +1 s */
	assert_int_equal(b->lost_capture, 1);
	assert_int_equal(b->lost_client, 1);
	assert_int_equal(b->last_packet.n, 1);
	assert_int_equal(b->last_packet.max_ns, 100 * MS);

	/* dns: each site's own address */
	a = &f->m.fc[0].res[1];
	b = &f->m.fc[1].res[1];
	assert_int_equal(a->detect_ns, 250 * MS);
	assert_int_equal(a->steer_ns, 260 * MS);
	assert_int_equal(a->window_ns, 50 * MS);
	assert_int_equal(a->lost_client, 1);
	assert_int_equal(b->detect_ns, 200 * MS);
	assert_int_equal(b->steer_ns, 210 * MS);
	assert_int_equal(b->window_ns, 400 * MS);
	assert_int_equal(b->lost_capture, 2);
	assert_int_equal(b->lost_client, 2);
}

/* a crashes at T0, is recovered at +1 s and killed again at +2 s (no
 * site_failed: the lab writes one per site) */
static void test_recovery_and_again(void **state)
{
	struct fixture *f = *state;
	const struct clocks_result *r1, *r2;

	feed(f, "lab", "steerlab", "%s", LAB_UP);
	site_failed(f, T0, "a", "198.18.0.2", ADDR_A, "crash", "e1");
	applied(f, T0, "e1", "crash", "a", NULL, 0);
	applied(f, T0 + 1000 * MS, "e2", "recover", "a", NULL, 0);
	applied(f, T0 + 2000 * MS, "e3", "kill", "a", NULL, 0);
	dead(f, T0 + 300 * MS, "a");
	dead(f, T0 + 2120 * MS, "a");
	request(f, "a", T0 + 100 * MS, 1, 1, ANY, 1);
	request(f, "a", T0 + 1500 * MS, 1, 2, ANY, 0); /* answered: a is back */
	request(f, "a", T0 + 2100 * MS, 1, 3, ANY, 1);
	request(f, "a", T0 + 2250 * MS, 1, 4, ANY, 1);
	analyse(f);
	assert_int_equal(f->m.n, 2);
	assert_string_equal(f->m.fc[1].f->site, "a");
	assert_string_equal(f->m.fc[1].f->name, "e3");
	assert_string_equal(f->m.fc[1].f->how, "sigkill");
	assert_int_equal(f->m.fc[0].f->recovered_ns, T0 + 1000 * MS);
	assert_int_equal(f->m.fc[1].f->recovered_ns, 0);
	r1 = &f->m.fc[0].res[0];
	r2 = &f->m.fc[1].res[0];
	/* the recovery ends the first window: the answered request and the
	 * second failure's are not the first's */
	assert_int_equal(r1->window_ns, 100 * MS);
	assert_int_equal(r1->lost_capture, 1);
	assert_int_equal(r1->lost_client, 1);
	assert_int_equal(r1->detect_ns, 300 * MS);
	assert_true(r1->has_failback);
	assert_int_equal(r2->detect_ns, 120 * MS);
	assert_int_equal(r2->window_ns, 250 * MS);
	assert_int_equal(r2->lost_capture, 2);
	assert_int_equal(r2->lost_client, 2);
	assert_false(r2->has_failback);
}

/* a kill while the site is still out is not a new failure, nor a flap's
 * downs (the flap clocks'), nor a recovery */
static void test_not_failures(void **state)
{
	struct fixture *f = *state;

	feed(f, "lab", "steerlab", "%s", LAB_UP);
	site_failed(f, T0, "a", "198.18.0.2", ADDR_A, "drain", "e1");
	applied(f, T0, "e1", "drain", "a", NULL, 0);
	applied(f, T0 + 500 * MS, "e2", "kill", "a", NULL, 0);
	site_failed(f, T0 + 1000 * MS, "b", "198.18.0.6", ADDR_B, "sigkill", "f");
	applied(f, T0 + 1000 * MS, "f", "flap", "b", "down", 1);
	applied(f, T0 + 1200 * MS, "f", "flap", "b", "up", 1);
	applied(f, T0 + 1400 * MS, "f", "flap", "b", "down", 2);
	applied(f, T0 + 1600 * MS, "f", "flap", "b", "up", 2);
	analyse(f);
	assert_int_equal(f->in.nfailures, 2);
	assert_string_equal(f->in.failures[0].site, "a");
	assert_string_equal(f->in.failures[0].how, "drain");
	assert_string_equal(f->in.failures[1].site, "b");
	assert_int_equal(f->in.failures[1].recovered_ns, T0 + 1200 * MS);
}

/* several sites out at one instant (test_timeline's kill, freeze and
 * link-down at 1 s): the first site_failed stays first, as the run's t0;
 * a failure written later with an earlier t0 goes before the later ones */
static void test_same_instant(void **state)
{
	struct fixture *f = *state;

	feed(f, "lab", "steerlab", "%s", LAB_UP);
	site_failed(f, T0, "b", "198.18.0.6", ADDR_B, "sigkill", "e1");
	site_failed(f, T0, "a", "198.18.0.2", ADDR_A, "freeze", "e2");
	site_failed(f, T0 + 2 * 1000 * MS, "c", "198.18.0.10", "198.19.1.3", "crash", "e4");
	site_failed(f, T0 + 1000 * MS, "d", "198.18.0.14", "198.19.1.4", "crash", "e3");
	analyse(f);
	assert_string_equal(f->in.failure.site, "b");
	assert_int_equal(f->m.n, 4);
	assert_string_equal(f->m.fc[0].f->site, "b");
	assert_string_equal(f->m.fc[1].f->site, "a");
	assert_string_equal(f->m.fc[2].f->site, "d");
	assert_string_equal(f->m.fc[3].f->site, "c");
}

/* clocks.json's failures: every failure after the first */
static void test_json(void **state)
{
	struct fixture *f = *state;
	json_t *a, *o, *s;

	two_sites(f);
	f->in.traffic_start_ns = T0 - 2000 * MS;
	assert_int_equal(clocks_failures_find(&f->in, f->err, sizeof(f->err)), 0);
	a = clocks_json_failures(&f->in);
	assert_true(json_is_array(a));
	assert_int_equal(json_array_size(a), 1);
	o = json_array_get(a, 0);
	assert_string_equal(json_string_value(json_object_get(o, "name")), "e2");
	assert_string_equal(json_string_value(json_object_get(o, "site")), "b");
	assert_string_equal(json_string_value(json_object_get(o, "how")), "sigkill");
	assert_float_equal(json_real_value(json_object_get(o, "after_first_s")), 2.0, 1e-9);
	assert_float_equal(json_real_value(json_object_get(o, "at_s")), 4.0, 1e-9);
	assert_true(json_is_null(json_object_get(o, "recovered_s")));
	s = json_object_get(json_object_get(o, "schemes"), "anycast");
	assert_non_null(s);
	assert_float_equal(json_real_value(json_object_get(s, "detect_s")), 0.150, 1e-9);
	assert_float_equal(json_real_value(json_object_get(s, "window_s")), 0.100, 1e-9);
	assert_int_equal(json_integer_value(json_object_get(s, "lost_client")), 1);
	s = json_object_get(json_object_get(o, "schemes"), "dns");
	assert_non_null(s);
	assert_float_equal(json_real_value(json_object_get(s, "steer_s")), 0.210, 1e-9);
	json_decref(a);
}

/* every failure's clocks computed once for the run (in->multi) say what
 * each reader computed on its own: clocks.json's failures, the requests
 * every failure's capture counted; none for a single failure, whose
 * clocks are the run's (its failures array in clocks.json is empty) */
static void test_prepared(void **state)
{
	struct fixture *f = *state;
	char sites[2][128], *own, *once;
	int64_t lost[2];
	json_t *a;

	two_sites(f);
	assert_int_equal(clocks_failures_find(&f->in, f->err, sizeof(f->err)), 0);
	assert_null(f->in.multi);
	a = clocks_json_failures(&f->in);
	own = json_dumps(a, JSON_SORT_KEYS);
	json_decref(a);
	lost[0] = clocks_multi_lost_capture(&f->in, "anycast", sites[0], sizeof(sites[0]));
	clocks_multi_prepare(&f->in);
	assert_non_null(f->in.multi);
	assert_int_equal(f->in.multi->n, 2);
	a = clocks_json_failures(&f->in);
	once = json_dumps(a, JSON_SORT_KEYS);
	json_decref(a);
	assert_string_equal(own, once);
	lost[1] = clocks_multi_lost_capture(&f->in, "anycast", sites[1], sizeof(sites[1]));
	assert_true(lost[0] == 3 && lost[1] == 3);
	assert_string_equal(sites[0], sites[1]);
	free(own);
	free(once);
}

static void test_prepared_single(void **state)
{
	struct fixture *f = *state;
	json_t *a;

	feed(f, "lab", "steerlab", "%s", LAB_UP);
	site_failed(f, T0, "a", "198.18.0.2", ADDR_A, "crash", "e1");
	request(f, "a", T0 + 100 * MS, 1, 1, ANY, 1);
	assert_int_equal(clocks_failures_find(&f->in, f->err, sizeof(f->err)), 0);
	assert_int_equal(f->in.nfailures, 1);
	clocks_multi_prepare(&f->in);
	assert_null(f->in.multi);
	a = clocks_json_failures(&f->in);
	assert_int_equal(json_array_size(a), 0);
	json_decref(a);
}

/* the table: one row per failure and scheme, b's from its own t0 */
static void test_table(void **state)
{
	struct fixture *f = *state;
	char *text = NULL;
	size_t len = 0;
	FILE *mem;

	two_sites(f);
	analyse(f);
	mem = open_memstream(&text, &len);
	assert_non_null(mem);
	clocks_multi_print(mem, &f->in, &f->m);
	fclose(mem);
	assert_non_null(strstr(text, "every failure of the timeline"));
	assert_non_null(strstr(text, "e2         b        sigkill   +2.000   anycast      0.150 "
				     "    0.160     0.100"));
	assert_non_null(strstr(text, "e1         a        crash     +0.000   dns          0.250"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_two_sites, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_recovery_and_again, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_not_failures, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_same_instant, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_json, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_prepared, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_prepared_single, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_table, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
