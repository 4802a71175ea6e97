/*
 * probes/clocks: the anycast clocks of synthetic run directories (event
 * files, pcaps written with pcap_dump, client CSVs) in a temporary
 * directory: a whole run, clocks missing (null, not zero), a zero window and
 * microsecond pcaps; and the pure computation, percentiles over clients.
 * The DNS scheme is in test_clocks_dns.c, loading errors and the packet
 * decoders in test_clocks_load.c.
 */
#include "test_clocks_util.h"

static void test_full_run(void **state)
{
	const char *dir = *state;
	const struct tpkt a[] = {
	    {T0 - 1000 * MS, 7000, WIRE_REQUEST, 1, ANY}, /* before t0 */
	    {T0, 7000, WIRE_REQUEST, 2, ANY},		  /* at t0: not after it */
	    {T0 + 100 * MS, 7000, WIRE_REQUEST, 1, ANY},
	    {T0 + 200 * MS, 7000, WIRE_REQUEST, 2, ANY},
	    {T0 + 450 * MS, 7000, WIRE_REQUEST, 1, ANY},
	    {T0 + 500 * MS, 7000, WIRE_REPLY, 1, ANY},	 /* not a request */
	    {T0 + 600 * MS, 7001, WIRE_REQUEST, 1, ANY}, /* another port */
	    {T0 + 700 * MS, 7000, 0, 1, ANY},		 /* not a wire message */
	};
	const struct tpkt b[] = {{T0 + 1000 * MS, 7000, WIRE_REQUEST, 1, ANY},
				 {T0 + 2000 * MS, 7000, WIRE_REQUEST, 2, ANY}};
	const char *dead = "a.prober.events.jsonl", *col = "core.collector.events.jsonl";
	const char *route = ",\"prefix\":\"198.19.0.1/32\",\"via\":\"198.18.0.2\",\"metric\":10";
	char *table;
	json_t *root, *o;

	lab(dir);
	ev(dir, dead, T0 - 5000 * MS, "declared_dead", ",\"site\":\"a\",\"failures\":3");
	ev(dir, dead, T0 + 100 * MS, "probe_failed", ",\"site\":\"a\",\"consecutive\":1");
	ev(dir, "b.prober.events.jsonl", T0 + 200 * MS, "declared_dead", ",\"site\":\"b\"");
	ev(dir, dead, T0 + 1300 * MS, "declared_dead", ",\"site\":\"a\",\"failures\":3");
	ev(dir, dead, T0 + 300 * MS, "declared_dead", ",\"site\":\"a\",\"failures\":3");
	/* a remote prober's verdict is not the anycast detect, even if earlier */
	ev(dir, "p1.prober.events.jsonl", T0 + 50 * MS, "declared_dead", ",\"site\":\"a\"");
	ev(dir, col, T0 - 1000 * MS, "route_deleted", route);
	ev(dir, col, T0 + 200 * MS, "route_deleted",
	   ",\"prefix\":\"198.19.0.2/32\",\"via\":\"198.18.0.2\"");
	ev(dir, col, T0 + 250 * MS, "route_deleted",
	   ",\"prefix\":\"198.19.0.1/32\",\"via\":\"198.18.0.6\"");
	ev(dir, col, T0 + 300 * MS, "route_added", route);
	ev(dir, col, T0 + 350 * MS, "route_deleted", ",\"prefix\":\"198.19.0.1/32\",\"via\":null");
	ev(dir, col, T0 + 400 * MS, "route_deleted", route);
	ev(dir, col, T0 + 800 * MS, "route_deleted", route);
	ev(dir, col, T0 + 9000 * MS, "capture_stats",
	   ",\"label\":\"a\",\"packets\":5,\"received\":8,\"dropped\":2,\"if_dropped\":1");
	ev(dir, col, T0 + 9000 * MS, "capture_stats",
	   ",\"label\":\"b\",\"packets\":5,\"received\":5,\"dropped\":0,\"if_dropped\":0");
	write_pcap(dir, "capture-a.pcap", a, 8, PCAP_TSTAMP_PRECISION_NANO);
	write_pcap(dir, "capture-b.pcap", b, 2, PCAP_TSTAMP_PRECISION_NANO);
	put(dir, "requests-c1.csv",
	    "client,seq,sent_ns,status,site,rtt_ns\n"
	    "1,0,1,ok,a,10\n1,1,2,ok,b,10\n1,2,3,timeout,,0\n"
	    "1,3,4,timeout,,0\n1,4,5,error,,0\n");
	put(dir, "requests-c2.csv",
	    "client,seq,sent_ns,status,site,rtt_ns\n2,0,1,ok,b,9\n"
	    "2,1,2,ok,b,9\n");

	root = analyse(dir, &table);
	assert_string_equal(json_string_value(json_object_get(root, "lab")), "t");
	assert_count(root, "t0_ns", T0);
	o = anycast(root);
	assert_seconds(o, "detect_s", 0.3);
	assert_seconds(o, "steer_s", 0.4);
	assert_seconds(o, "window_s", 0.45);
	assert_count(o, "sent", 7);
	assert_count(o, "lost_client", 2);
	assert_count(o, "errors", 1);
	assert_count(o, "ok", 4);
	assert_count(o, "lost_capture", 3);
	assert_count(o, "capture_drops", 3);
	assert_count(o, "detect_at_ns", T0 + 300 * MS);
	assert_count(o, "steer_at_ns", T0 + 400 * MS);
	assert_count(json_object_get(o, "last_packet_s"), "clients", 2);
	assert_seconds(json_object_get(o, "last_packet_s"), "p50", 0.2);
	assert_seconds(json_object_get(o, "last_packet_s"), "max", 0.45);
	assert_count(json_object_get(o, "replies"), "b", 3);
	assert_count(json_object_get(o, "captured_after_t0"), "a", 3);
	assert_count(json_object_get(o, "captured_after_t0"), "b", 2);
	assert_count(json_object_get(o, "last_per_client_s"), "clients", 2);
	assert_count(json_object_get(o, "last_per_client_s"), "sent_after_t0", 2);
	assert_seconds(json_object_get(o, "last_per_client_s"), "p50", 0.2);
	assert_seconds(json_object_get(o, "last_per_client_s"), "max", 0.45);
	/* no upstream queries for anycast: the key is not there */
	assert_true(json_object_get(o, "upstream_queries") == NULL);
	/* the run has no DNS flows: the dns scheme is absent (no object, no
	 * column), not zeros, and none of its clocks is warned about */
	assert_null(json_object_get(json_object_get(root, "schemes"), "dns"));
	assert_string_equal(
	    json_string_value(json_array_get(json_object_get(root, "schemes_absent"), 0)), "dns");
	assert_int_equal(count_code(root, "clock_missing"), 0);
	assert_non_null(strstr(table, "detect (s)"));
	assert_non_null(strstr(table, "0.450000"));
	assert_non_null(strstr(table, "\n                                  anycast\n"));
	assert_non_null(strstr(table, "dns: absent: the run has no DNS-steered flows"));
	/* what the clocks ignore the verdict does not: the capture dropped,
	 * b was declared dead, other routes withdrawn, losses before t0 */
	assert_false(is_valid(root));
	assert_code(root, "capture_drops", "dropped 3 packets of link a", 1);
	assert_code(root, "healthy_site_dead", "declared site b dead once", 1);
	assert_code(root, "healthy_route_withdrawn", "via 198.18.0.6", 1);
	assert_code(root, "healthy_route_withdrawn", "via no gateway", 1);
	assert_code(root, "healthy_route_withdrawn",
		    "via 198.18.0.2 left the router's FIB once, "
		    "first at t0 - 1.000 s, before the site failed",
		    1);
	assert_code(root, "unexplained_loss", "anycast: 2 of the 2 requests", 1);
	assert_non_null(strstr(table, "*** INVALID RUN"));
	free(table);
	json_decref(root);
}

/* routing = bgp: zebra moves the route to the next site with one
 * RTM_NEWROUTE that replaces it; the kernel says nothing of the old one.
 * steer is that replacement, not a later deletion; a replacement via the
 * failed site itself is not. */
static void test_steer_by_replace(void **state)
{
	const char *dir = *state;
	const char *col = "core.collector.events.jsonl";
	json_t *root, *o;

	lab(dir);
	ev(dir, "a.prober.events.jsonl", T0 + 280 * MS, "declared_dead", ",\"site\":\"a\"");
	ev(dir, col, T0 - 2000 * MS, "route_added",
	   ",\"prefix\":\"198.19.0.1/32\",\"via\":\"198.18.0.2\",\"replace\":false");
	ev(dir, col, T0 + 300 * MS, "route_added",
	   ",\"prefix\":\"198.19.0.1/32\",\"via\":\"198.18.0.2\",\"replace\":true");
	ev(dir, col, T0 + 402 * MS, "route_added",
	   ",\"prefix\":\"198.19.0.1/32\",\"via\":\"198.18.0.6\",\"replace\":true");
	root = analyse(dir, NULL);
	o = anycast(root);
	assert_count(o, "steer_at_ns", T0 + 402 * MS);
	assert_seconds(o, "steer_s", 0.402);
	/* the route via a left by replacement after t0: not a healthy site's */
	assert_int_equal(count_code(root, "healthy_route_withdrawn"), 0);
	json_decref(root);
}

/* routing = static, a crash: the site's prober died with it and never
 * declares it dead; the routers' hold timers expire its route. detect is
 * the first expiry of S's route at or after t0 (the legend says so), steer
 * the kernel's deletion; an expiry of another site, or before t0, is not
 * it; the prober's own verdict wins when earlier. */
static void test_detect_by_hold_timer(void **state)
{
	const char *dir = *state;
	const char *col = "core.collector.events.jsonl";
	const char *exp = ",\"prefix\":\"198.19.0.1/32\",\"via\":\"198.18.0.2\",\"metric\":10,"
			  "\"silent_s\":3.05,\"deleted\":true";
	char *table, site_a[256], site_b[256];
	json_t *root, *o;

	snprintf(site_a, sizeof(site_a), ",\"site\":\"a\"%s", exp);
	snprintf(site_b, sizeof(site_b), ",\"site\":\"b\"%s", exp);
	lab(dir);
	ev(dir, "core.routed.events.jsonl", T0 - 4000 * MS, "route_expired", site_a);
	ev(dir, "core.routed.events.jsonl", T0 + 1500 * MS, "route_expired", site_b);
	/* the kernel had dropped it already (its link went down): not it */
	ev(dir, "r3.routed.events.jsonl", T0 + 2800 * MS, "route_expired",
	   ",\"site\":\"a\",\"prefix\":\"198.19.0.1/32\",\"via\":\"198.18.0.2\","
	   "\"deleted\":false");
	ev(dir, "core.routed.events.jsonl", T0 + 2950 * MS, "route_expired", site_a);
	ev(dir, "r2.routed.events.jsonl", T0 + 2900 * MS, "route_expired", site_a);
	ev(dir, col, T0 + 2900 * MS + 1, "route_deleted",
	   ",\"prefix\":\"198.19.0.1/32\",\"via\":\"198.18.0.2\"");
	root = analyse(dir, &table);
	o = anycast(root);
	assert_count(o, "detect_at_ns", T0 + 2900 * MS);
	assert_seconds(o, "detect_s", 2.9);
	assert_count(o, "steer_at_ns", T0 + 2900 * MS + 1);
	assert_null(warning_of(root, "clock_missing", "anycast: detect"));
	assert_non_null(strstr(table, "anycast: detect = a router's hold timer expires a's route"));
	free(table);
	json_decref(root);

	/* the prober saw it first (a kill): its verdict is detect */
	ev(dir, "a.prober.events.jsonl", T0 + 300 * MS, "declared_dead", ",\"site\":\"a\"");
	root = analyse(dir, &table);
	assert_count(anycast(root), "detect_at_ns", T0 + 300 * MS);
	assert_non_null(strstr(table, "anycast: detect = a's prober declares it dead"));
	free(table);
	json_decref(root);
}

static void test_missing_clocks_are_null(void **state)
{
	const char *dir = *state;
	char *table, row[64];
	json_t *root, *o;

	lab(dir);
	/* the prober saw the failure only before t0; no route was deleted; no
	 * capture of a, no capture_stats, no client records */
	ev(dir, "a.prober.events.jsonl", T0 - 1, "declared_dead", ",\"site\":\"a\"");
	ev(dir, "core.collector.events.jsonl", T0 + MS, "route_added",
	   ",\"prefix\":\"198.19.0.1/32\",\"via\":\"198.18.0.2\"");
	root = analyse(dir, &table);
	o = anycast(root);
	for (const char **k =
		 (const char *[]){"detect_s", "steer_s", "window_s", "sent", "lost_client",
				  "lost_capture", "capture_drops", NULL};
	     *k; k++)
		assert_true(json_is_null(json_object_get(o, *k)));
	assert_true(json_array_size(json_object_get(root, "warnings")) >= 5);
	snprintf(row, sizeof(row), "\n%-26s %14s %14s\n", "detect (s)", "-", "-");
	assert_non_null(strstr(table, row));
	assert_non_null(strstr(table, "warning (clock_missing): anycast: detect:"));
	free(table);
	json_decref(root);
}

static void test_window_zero_and_micro_pcap(void **state)
{
	const char *dir = *state;
	/* a microsecond pcap, requests only before t0, on port 7001 */
	const struct tpkt a[] = {{T0 - 2000 * MS, 7001, WIRE_REQUEST, 1, ANY},
				 {T0 - 1000 * MS, 7001, WIRE_REQUEST, 1, ANY}};
	const struct tpkt b[] = {{T0 + 1500 * MS + 3000, 7001, WIRE_REQUEST, 1, ANY},
				 {T0 + 1600 * MS, 7000, WIRE_REQUEST, 1, ANY}};
	json_t *root, *o;

	lab_port(dir, 7001);
	write_pcap(dir, "capture-a.pcap", a, 2, PCAP_TSTAMP_PRECISION_MICRO);
	write_pcap(dir, "capture-b.pcap", b, 2, PCAP_TSTAMP_PRECISION_MICRO);
	root = analyse(dir, NULL);
	o = anycast(root);
	assert_count(root, "port", 7001);
	assert_seconds(o, "window_s", 0.0);
	assert_count(o, "lost_capture", 0);
	assert_count(json_object_get(o, "captured_after_t0"), "b", 1);
	json_decref(root);
}

/* the pure computation, without files: percentiles over 100 clients */
static void test_compute_percentiles(void **state)
{
	struct clocks_input in;
	struct clocks_capture cap;
	struct clocks_packet pk[200];
	struct clocks_result *r = calloc(1, sizeof(*r));

	(void)state;
	assert_non_null(r);
	clocks_input_init(&in);
	memset(&cap, 0, sizeof(cap));
	in.failure.t0_ns = T0;
	strcpy(in.failure.site, "a");
	inet_pton(AF_INET, ANY, &in.failure.prefix);
	in.failure.prefixlen = 32;
	strcpy(cap.label, "a");
	/* client k sends at t0 + k/2 ms and t0 + k ms: its last is k ms */
	for (int k = 1; k <= 100; k++) {
		pk[2 * k - 2] =
		    (struct clocks_packet){T0 + k * MS, (uint32_t)k, 1, in.failure.prefix};
		pk[2 * k - 1] =
		    (struct clocks_packet){T0 + k * MS / 2, (uint32_t)k, 0, in.failure.prefix};
	}
	cap.packets = pk;
	cap.n = 200;
	in.captures = &cap;
	in.ncaptures = 1;
	clocks_anycast(&in, r);
	assert_int_equal(r->last_packet.n, 100);
	assert_int_equal(r->last_packet.p50_ns, 50 * MS);
	assert_int_equal(r->last_packet.p99_ns, 99 * MS);
	assert_int_equal(r->last_packet.max_ns, 100 * MS);
	assert_int_equal(r->window_ns, 100 * MS);
	assert_int_equal(r->lost_capture, 200);
	assert_true(r->detect_ns == CLOCKS_NONE && r->steer_ns == CLOCKS_NONE);
	assert_true(r->sent == CLOCKS_NONE && r->capture_drops == CLOCKS_NONE);
	clocks_result_free(r);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_full_run, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_steer_by_replace, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_detect_by_hold_timer, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_missing_clocks_are_null, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_window_zero_and_micro_pcap, setup, teardown),
	    cmocka_unit_test(test_compute_percentiles),
	};

	return cmocka_run_group_tests_name("clocks anycast", tests, NULL, NULL);
}
