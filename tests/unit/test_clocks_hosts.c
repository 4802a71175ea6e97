/*
 * The clocks of a lab over several hosts (docs/clocks.md, "Several
 * hosts"): a synthetic run whose site b, its prober, the collector of
 * router edge and the client c2 are on host h2, whose clock is 2 s ahead of
 * local's (the reference, where lab.events.jsonl is stamped). Every stamp
 * of h2's nodes is put on local's clock: the clocks come out as those of
 * the same run with no offset, with each clock's uncertainty its stamp's
 * host's; the verdict flags a host not measured and a clock whose
 * uncertainty is more than 10 % of it.
 */
#include "test_clocks_util.h"

#include "clocks_int.h"

#define OFF (2000 * MS) /* h2's clock less local's */
#define HOSTS                                                                                      \
	"\"hosts\":{\"core\":\"local\",\"a\":\"local\",\"c1\":\"local\",\"edge\":\"h2\","          \
	"\"b\":\"h2\",\"c2\":\"h2\"}"

/* two_hosts: the run, h2's stamps off by off; clock: host_clock's fields
 * (NULL: none) */
static void two_hosts(const char *dir, int64_t off, const char *clock)
{
	const struct tpkt a[] = {
	    {T0 - 900 * MS, 7000, WIRE_REQUEST, 1, ANY},
	    {T0 + 500 * MS, 7000, WIRE_REQUEST, 1, ANY},
	};
	const struct tpkt b[] = {
	    {T0 - 800 * MS + off, 7000, WIRE_REQUEST, 2, ANY},
	    {T0 + 200 * MS + off, 7000, WIRE_REQUEST, 1, ANY},
	    {T0 + 450 * MS + off, 7000, WIRE_REQUEST, 2, ANY},
	};
	const char *core = "core.collector.events.jsonl", *edge = "edge.collector.events.jsonl";

	put(dir, "topology.ini", "[lab]\nname = t\nport = 7000\n\n[router core]\n");
	ev(dir, "lab.events.jsonl", T0 - 5000 * MS, "lab_up",
	   ",\"lab\":\"t\",\"topology\":\"x.ini\"," HOSTS);
	if (clock)
		ev(dir, "lab.events.jsonl", T0 - 4000 * MS, "host_clock", clock);
	ev(dir, "lab.events.jsonl", T0 - 3000 * MS, "traffic_started",
	   ",\"fail_at_ns\":3000000000,\"duration_ns\":10000000000");
	ev(dir, "lab.events.jsonl", T0, "site_failed",
	   ",\"site\":\"b\",\"via\":\"198.18.0.6\",\"prefix\":\"198.19.0.1/32\","
	   "\"address\":\"" ADDR_B "\",\"how\":\"sigkill\"");
	ev(dir, "lab.events.jsonl", T0 + 7500 * MS, "traffic_stopped", ",\"interrupted\":false");
	ev(dir, "lab.events.jsonl", T0 + 9000 * MS, "lab_down", "");
	/* detect: b's own prober, on h2 */
	ev(dir, "b.prober.events.jsonl", T0 + 300 * MS + off, "declared_dead",
	   ",\"site\":\"b\",\"failures\":3");
	/* steer: core's FIB, on local */
	ev(dir, core, T0 - 4500 * MS, "capture_ready", ",\"label\":\"a\",\"buffer\":1");
	ev(dir, core, T0 + 400 * MS, "route_deleted",
	   ",\"prefix\":\"198.19.0.1/32\",\"via\":\"198.18.0.6\"");
	/* b's link captured by edge's collector, on h2 */
	ev(dir, edge, T0 - 4500 * MS + off, "capture_ready", ",\"label\":\"b\",\"buffer\":1");
	write_pcap(dir, "capture-a.pcap", a, 2, PCAP_TSTAMP_PRECISION_NANO);
	write_pcap(dir, "capture-b.pcap", b, 3, PCAP_TSTAMP_PRECISION_NANO);
	put(dir, "requests-c1.csv",
	    "client,seq,sent_ns,status,site,rtt_ns\n1,0,%lld,ok,a,10\n1,1,%lld,timeout,,0\n"
	    "1,2,%lld,ok,a,10\n",
	    (long long)(T0 - 900 * MS), (long long)(T0 + 200 * MS), (long long)(T0 + 500 * MS));
	put(dir, "requests-c2.csv",
	    "client,seq,sent_ns,status,site,rtt_ns\n2,0,%lld,ok,b,9\n2,1,%lld,timeout,,0\n",
	    (long long)(T0 - 800 * MS + off), (long long)(T0 + 450 * MS + off));
}

#define CLOCK_H2(off, unc)                                                                         \
	",\"host\":\"h2\",\"reference\":\"local\",\"offset_ns\":" #off ",\"uncertainty_ns\":" #unc \
	",\"probes\":16"

/* the clocks come out as without the offset, read by either pcap reader */
static void offsets_applied(const char *dir, enum clocks_pcap_via via)
{
	char *table, *same = rundir_new("test_clocks_hosts");
	json_t *off, *ref, *o, *u, *h;

	assert_non_null(same);

	clocks_pcap_via = via;
	two_hosts(dir, OFF, CLOCK_H2(2000000000, 5000));
	two_hosts(same, 0, CLOCK_H2(0, 5000));
	off = analyse(dir, &table);
	ref = analyse(same, NULL);
	clocks_pcap_via = CLOCKS_PCAP_VIA_OWN;
	o = anycast(off);
	assert_seconds(o, "detect_s", 0.3);
	assert_seconds(o, "steer_s", 0.4);
	assert_seconds(o, "window_s", 0.45);
	assert_count(o, "detect_at_ns", T0 + 300 * MS);
	/* each scheme's object, but for nothing, and the verdict: the same */
	assert_true(json_equal(o, anycast(ref)));
	assert_true(json_equal(json_object_get(off, "warnings"), json_object_get(ref, "warnings")));
	assert_int_equal(is_valid(off), is_valid(ref));
	/* detect (b's prober) and the window (edge's capture) are h2's
	 * stamps; steer (core's FIB) local's */
	u = json_object_get(o, "uncertainty_s");
	assert_non_null(u);
	assert_seconds(u, "detect", 5e-6);
	assert_seconds(u, "steer", 0);
	assert_seconds(u, "window", 5e-6);
	assert_seconds(u, "last_packet", 5e-6);
	h = json_object_get(json_object_get(off, "hosts"), "h2");
	assert_seconds(h, "offset_s", 2.0);
	assert_seconds(h, "uncertainty_s", 5e-6);
	assert_count(h, "probes", 16);
	assert_true(json_is_true(
	    json_object_get(json_object_get(json_object_get(off, "hosts"), "local"), "reference")));
	/* the table: ± on h2's clocks alone */
	assert_non_null(strstr(table, "0.300000 \u00b1 0.005 ms"));
	assert_non_null(strstr(table, "0.450000 \u00b1 0.005 ms"));
	assert_null(strstr(table, "0.400000 \u00b1"));
	assert_no_code(off, "clock_sync_uncertain");
	assert_no_code(off, "clock_sync_unmeasured");
	free(table);
	json_decref(off);
	json_decref(ref);
	rundir_free(same);
}

static void test_offsets_applied(void **state)
{
	offsets_applied(*state, CLOCKS_PCAP_VIA_OWN);
}

static void test_offsets_applied_libpcap(void **state)
{
	offsets_applied(*state, CLOCKS_PCAP_VIA_LIBPCAP);
}

/* h2's clock known to 40 ms: more than 10 % of detect (0.3 s), not of the
 * window nor of the last packet (0.45 s: 8.9 %), and steer is local's */
static void test_too_uncertain(void **state)
{
	const char *dir = *state;
	json_t *root;

	two_hosts(dir, -OFF, CLOCK_H2(-2000000000, 40000000));
	root = analyse(dir, NULL);
	assert_seconds(anycast(root), "detect_s", 0.3);
	assert_false(is_valid(root));
	assert_code(root, "clock_sync_uncertain", "anycast: detect 0.300000 s \u00b1 40.000 ms", 1);
	assert_int_equal(count_code(root, "clock_sync_uncertain"), 1);
	json_decref(root);
}

/* a host whose clock was not measured: its stamps as they are, and the
 * run invalid; and one with no host_clock at all */
static void test_unmeasured(void **state)
{
	const char *dir = *state;
	char *other = rundir_new("test_clocks_hosts");
	json_t *root;

	assert_non_null(other);

	two_hosts(dir, 0,
		  ",\"host\":\"h2\",\"reference\":\"local\",\"offset_ns\":null,"
		  "\"uncertainty_ns\":null,\"probes\":0");
	root = analyse(dir, NULL);
	assert_seconds(anycast(root), "detect_s", 0.3);
	assert_false(is_valid(root));
	assert_code(root, "clock_sync_unmeasured", "host h2: its clock was not measured", 1);
	assert_json_null(json_object_get(json_object_get(root, "hosts"), "h2"), "offset_s");
	json_decref(root);
	two_hosts(other, 0, NULL);
	root = analyse(other, NULL);
	assert_code(root, "clock_sync_unmeasured", "host h2: its clock was not measured", 1);
	assert_code(root, "clock_sync_unmeasured", "no host_clock event", 1);
	json_decref(root);
	rundir_free(other);
}

/* a host_clock that is not one: the file and the line */
static void test_bad_host_clock(void **state)
{
	const char *dir = *state;
	char path[512], *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	two_hosts(dir, 0,
		  ",\"host\":\"h2\",\"reference\":\"local\",\"offset_ns\":5,"
		  "\"uncertainty_ns\":-1,\"probes\":16");
	assert_int_equal(clocks_analyse(dir, out), -1);
	fclose(out);
	free(buf);
	snprintf(path, sizeof(path), "%s/clocks.json", dir);
	assert_int_equal(access(path, F_OK), -1);
}

/* step: the timeline's step name (action) on site b at ms after t0, as the
 * lab writes it (event_applied, on the reference's clock) */
static void step(const char *dir, int64_t ms, const char *name, const char *action)
{
	char fields[512];

	snprintf(fields, sizeof(fields),
		 ",\"name\":\"%s\",\"action\":\"%s\",\"target\":\"b\",\"kind\":\"site\","
		 "\"site\":\"b\",\"cycle\":0,\"vias\":[],\"by\":\"timeline\","
		 "\"nominal_at_ns\":%lld,\"at_ns\":%lld",
		 name, action, (long long)(ms * MS), (long long)(ms * MS));
	ev(dir, "lab.events.jsonl", T0 + ms * MS, "event_applied", fields);
}

/* every_clock: the run of two_hosts, and b recovered at +3 s (the lab's
 * event, on local): b's prober declares it alive at +3.2 s and edge's FIB
 * takes its route back at +3.3 s (both on h2); before that edge, on h2,
 * had changed its route at +0.6 s, after core (local) at +0.4 s; client 2
 * sends to b again at +3.4 s (edge's capture, h2) */
static void every_clock(const char *dir, int64_t off, const char *clock)
{
	const struct tpkt b[] = {
	    {T0 - 800 * MS + off, 7000, WIRE_REQUEST, 2, ANY},
	    {T0 + 200 * MS + off, 7000, WIRE_REQUEST, 1, ANY},
	    {T0 + 450 * MS + off, 7000, WIRE_REQUEST, 2, ANY},
	    {T0 + 3400 * MS + off, 7000, WIRE_REQUEST, 2, ANY},
	};
	const char *edge = "edge.collector.events.jsonl";

	two_hosts(dir, off, clock);
	step(dir, 3000, "e2", "recover");
	ev(dir, "b.prober.events.jsonl", T0 + 3200 * MS + off, "declared_alive",
	   ",\"site\":\"b\",\"successes\":2");
	ev(dir, edge, T0 - 4400 * MS + off, "route_added",
	   ",\"prefix\":\"198.19.0.1/32\",\"op\":\"present\",\"via\":\"198.18.0.6\","
	   "\"metric\":20");
	ev(dir, edge, T0 + 600 * MS + off, "route_deleted",
	   ",\"prefix\":\"198.19.0.1/32\",\"op\":\"del\",\"via\":\"198.18.0.6\","
	   "\"metric\":20");
	ev(dir, edge, T0 + 3300 * MS + off, "route_added",
	   ",\"prefix\":\"198.19.0.1/32\",\"op\":\"add\",\"via\":\"198.18.0.6\","
	   "\"metric\":20");
	write_pcap(dir, "capture-b.pcap", b, 4, PCAP_TSTAMP_PRECISION_NANO);
}

/* every clock that compares a stamp of h2 with an instant of local carries
 * h2's uncertainty: the FIB's (edge's changes, the convergence), the
 * fail-back's; core's FIB change, on local, none */
static void test_every_clock(void **state)
{
	const char *dir = *state;
	char *table, *same = rundir_new("test_clocks_hosts");
	json_t *off, *ref, *o, *u, *fib, *b;

	assert_non_null(same);
	every_clock(dir, OFF, CLOCK_H2(2000000000, 5000));
	every_clock(same, 0, CLOCK_H2(0, 5000));
	off = analyse(dir, &table);
	ref = analyse(same, NULL);
	o = anycast(off);
	assert_true(json_equal(o, anycast(ref)));
	fib = json_object_get(o, "fib");
	assert_non_null(fib);
	assert_string_equal(json_string_value(json_object_get(fib, "last_router")), "edge");
	assert_seconds(fib, "convergence_s", 0.6);
	u = json_object_get(fib, "uncertainty_s");
	assert_seconds(u, "first", 0);
	assert_seconds(u, "convergence", 5e-6);
	assert_seconds(json_object_get(json_object_get(fib, "routers"), "core"), "uncertainty_s",
		       0);
	assert_seconds(json_object_get(json_object_get(fib, "routers"), "edge"), "uncertainty_s",
		       5e-6);
	b = json_object_get(o, "failback");
	assert_seconds(b, "healthy_s", 0.2);
	assert_seconds(b, "steer_s", 0.3);
	assert_seconds(b, "first_client_s", 0.4);
	u = json_object_get(o, "uncertainty_s");
	assert_seconds(u, "fib_convergence", 5e-6);
	assert_seconds(u, "failback_fib_convergence", 5e-6);
	assert_seconds(u, "failback_healthy", 5e-6);
	assert_seconds(u, "failback_steer", 5e-6);
	assert_seconds(u, "failback_first_client", 5e-6);
	assert_seconds(u, "failback_last_client", 5e-6);
	/* the table: ± on the fail-back's clocks */
	assert_non_null(strstr(table, "0.200000 \u00b1 0.005 ms"));
	assert_non_null(strstr(table, "0.400000 \u00b1 0.005 ms"));
	assert_no_code(off, "clock_sync_uncertain");
	free(table);
	json_decref(off);
	json_decref(ref);
	rundir_free(same);
}

/* h2 known to 25 ms: within 10 % of detect (0.3 s: 8.3 %), the window, the
 * FIB's convergence (0.6 s) and the fail-back's (0.3 s), not of the
 * fail-back's healthy (0.2 s: 12.5 %) */
static void test_failback_too_uncertain(void **state)
{
	const char *dir = *state;
	json_t *root;

	every_clock(dir, OFF, CLOCK_H2(2000000000, 25000000));
	root = analyse(dir, NULL);
	assert_false(is_valid(root));
	assert_code(root, "clock_sync_uncertain",
		    "anycast: failback_healthy 0.200000 s \u00b1 25.000 ms", 1);
	assert_int_equal(count_code(root, "clock_sync_uncertain"), 1);
	json_decref(root);
}

/* b killed again at +4 s, after its recovery: a later failure, whose
 * clocks from its own t0 carry h2's uncertainty too (b's prober declares it
 * dead at +4.3 s, 0.3 s after), in clocks.json's failures and in the
 * table of every failure */
static void test_later_failure(void **state)
{
	const char *dir = *state;
	char *table;
	json_t *root, *f, *u;

	every_clock(dir, OFF, CLOCK_H2(2000000000, 5000));
	step(dir, 4000, "e3", "kill");
	ev(dir, "b.prober.events.jsonl", T0 + 4300 * MS + OFF, "declared_dead",
	   ",\"site\":\"b\",\"failures\":3");
	root = analyse(dir, &table);
	f = json_array_get(json_object_get(root, "failures"), 0);
	assert_non_null(f);
	assert_string_equal(json_string_value(json_object_get(f, "name")), "e3");
	f = json_object_get(json_object_get(f, "schemes"), "anycast");
	assert_seconds(f, "detect_s", 0.3);
	u = json_object_get(f, "uncertainty_s");
	assert_non_null(u);
	assert_seconds(u, "detect", 5e-6);
	/* the table of every failure: a row of ± in ms under e3's */
	assert_non_null(strstr(table, "\u00b10.005"));
	free(table);
	json_decref(root);
}

/* a lab of one host: no hosts, no uncertainty, no ± */
static void test_one_host(void **state)
{
	const char *dir = *state;
	const struct tpkt a[] = {{T0 + 100 * MS, 7000, WIRE_REQUEST, 1, ANY}};
	char *table;
	json_t *root;

	lab(dir);
	ev(dir, "a.prober.events.jsonl", T0 + 300 * MS, "declared_dead", ",\"site\":\"a\"");
	write_pcap(dir, "capture-a.pcap", a, 1, PCAP_TSTAMP_PRECISION_NANO);
	root = analyse(dir, &table);
	assert_null(json_object_get(root, "hosts"));
	assert_null(json_object_get(anycast(root), "uncertainty_s"));
	assert_null(strstr(table, "\u00b1"));
	free(table);
	json_decref(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_offsets_applied, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_offsets_applied_libpcap, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_too_uncertain, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unmeasured, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bad_host_clock, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_every_clock, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_failback_too_uncertain, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_later_failure, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_one_host, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
