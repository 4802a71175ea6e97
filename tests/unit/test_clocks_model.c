/*
 * probes/clocks: the model beside the measurement (clocks_model.h) in
 * synthetic run directories whose topology.ini the model reads: each
 * scheme's "model" object in clocks.json with the keys of its measured
 * clocks, the run's "model", the table's model rows, and model_disagrees
 * for a clock outside the model's bounds and not for one inside; a run
 * whose topology does not load says why; the judgement itself on a model
 * built by hand (the tolerance, a lower bound, a later step of the
 * timeline, for a clock and for a count of the whole run).
 */
#include "test_clocks_util.h"

/* anycast over static routing: c1 (client id 1, 10 requests/s) routed to a
 * (metric 10) rather than b (20); a's prober every 100 ms, 3 failures: the
 * model's detect, steer, window and c1's last packet 0.2 to 0.3 s, its
 * losses 10 times that */
static const char any_ini[] = "[lab]\nname = t\nport = 7000\nrouting = static\nfail_at = 3s\n"
			      "duration = 10s\n\n[router core]\n\n[site a]\nlink = core\n"
			      "fail = yes\n\n[site b]\nlink = core\n\n[client c1]\nlink = core\n"
			      "mode = anycast\nrate = 10\n";

/* DNS: c1 (id 100001) asks authd on ns for www.lab.example itself, TTL 2 s,
 * one prober: it asks again 4 s into the traffic, 1 s after t0 */
static const char dns_ini[] =
    "[lab]\nname = t\nport = 7000\nrouting = static\nfail_at = 3s\nduration = 10s\n"
    "dns_name = www.lab.example\n\n[router core]\n\n[site a]\nlink = core\nfail = yes\n\n"
    "[site b]\nlink = core\n\n[dns ns]\nlink = core\n\n[prober p1]\nlink = core\n\n"
    "[client c1]\nlink = core\nmode = dns\nresolver = ns\nrate = 10\n\n[zone lab.example]\n"
    "soa = ns.lab.example. hostmaster.lab.example. 1 3600 600 86400 5\nttl = 60\n\n"
    "[name www.lab.example]\npolicy = failover\nprimary = a\nsecondary = b\nttl = 2\n";

/* anycast_run: site a fails at T0 (3 s into the traffic); its prober says
 * dead at detect_ms, the route via a leaves the FIB 1 ms later; c1 sends to
 * a every 100 ms until last_ms, each lost */
static void anycast_run(const char *dir, int detect_ms, int last_ms)
{
	struct tpkt a[64], b[128];
	const char *col = "core.collector.events.jsonl";
	char csv[8192];
	size_t n = 0, nb = 0, off;

	lab(dir);
	test_write_file(dir, "topology.ini", any_ini);
	ev(dir, "a.prober.events.jsonl", T0 + detect_ms * MS, "declared_dead", ",\"site\":\"a\"");
	ev(dir, col, T0 + (detect_ms + 1) * MS, "route_deleted",
	   ",\"prefix\":\"198.19.0.1/32\",\"via\":\"198.18.0.2\",\"metric\":10");
	a[n++] = (struct tpkt){T0 - 100 * MS, 7000, WIRE_REQUEST, 1, ANY};
	off = (size_t)snprintf(csv, sizeof(csv),
			       "client,seq,sent_ns,status,site,rtt_ns\n1,0,%lld,ok,a,10\n",
			       (long long)(T0 - 100 * MS));
	for (int t = 100; t <= last_ms && n < 64; t += 100) {
		a[n++] = (struct tpkt){T0 + t * MS, 7000, WIRE_REQUEST, 1, ANY};
		off += (size_t)snprintf(csv + off, sizeof(csv) - off, "1,%zu,%lld,timeout,,0\n", n,
					(long long)(T0 + t * MS));
	}
	/* then to b, until the traffic ends at t0 + 7 s */
	for (int t = last_ms + 100; t <= 7000 && nb < 128; t += 100) {
		b[nb++] = (struct tpkt){T0 + t * MS, 7000, WIRE_REQUEST, 1, ANY};
		off += (size_t)snprintf(csv + off, sizeof(csv) - off, "1,%zu,%lld,ok,b,10\n",
					n + nb, (long long)(T0 + t * MS));
	}
	write_pcap(dir, "capture-a.pcap", a, n, PCAP_TSTAMP_PRECISION_NANO);
	write_pcap(dir, "capture-b.pcap", b, nb, PCAP_TSTAMP_PRECISION_NANO);
	put(dir, "requests-c1.csv", "%s", csv);
}

/* assert_iv: o's key is an interval {p5, p50, p95, min, max} with bounds
 * lo and hi (to 2 ms) */
static void assert_iv(json_t *o, const char *key, double lo, double hi)
{
	json_t *v = json_object_get(o, key);
	const char *k[] = {"p5", "p50", "p95", "min", "max"};

	if (!json_is_object(v))
		fail_msg("\"%s\" is not an interval", key);
	for (size_t i = 0; i < 5; i++)
		assert_true(json_is_real(json_object_get(v, k[i])));
	assert_true(fabs(json_real_value(json_object_get(v, "min")) - lo) < 0.002);
	assert_true(fabs(json_real_value(json_object_get(v, "max")) - hi) < 0.002);
	assert_true(json_real_value(json_object_get(v, "p5")) <=
		    json_real_value(json_object_get(v, "p50")));
	assert_true(json_real_value(json_object_get(v, "p50")) <=
		    json_real_value(json_object_get(v, "p95")));
}

/* a run the model predicts: every modelled clock inside, no
 * model_disagrees; the model's object has the keys of the measured clocks */
static void test_inside(void **state)
{
	const char *dir = *state;
	json_t *root, *o, *m, *run;
	char *table;

	anycast_run(dir, 250, 200);
	root = analyse(dir, &table);
	o = anycast(root);
	assert_seconds(o, "detect_s", 0.25);
	assert_seconds(o, "window_s", 0.2);
	m = json_object_get(o, "model");
	assert_non_null(m);
	/* the kill 3 s into the traffic, half a 100 ms interval before a
	 * probe (the lab sets the probers' cycles at the traffic's start) */
	assert_iv(m, "detect_s", 0.25, 0.25);
	assert_iv(m, "steer_s", 0.25, 0.25);
	assert_iv(m, "window_s", 0.25, 0.25);
	assert_iv(json_object_get(m, "last_per_client_s"), "p50", 0.25, 0.25);
	assert_iv(json_object_get(m, "last_per_client_s"), "max", 0.25, 0.25);
	assert_count(json_object_get(m, "last_per_client_s"), "clients", 1);
	/* per client by its id, as the measured last_by_client_s */
	assert_iv(json_object_get(m, "last_by_client_s"), "1", 0.25, 0.25);
	assert_iv(m, "lost_client", 2.5, 2.5);
	assert_iv(m, "lost_capture", 2.5, 2.5);
	assert_iv(json_object_get(m, "budget"), "equivalent_downtime_s", 0.25, 0.25);
	/* no upstream queries for anycast, nothing left out, nothing outside */
	assert_null(json_object_get(m, "upstream_queries"));
	assert_int_equal(json_object_size(json_object_get(m, "not_modelled")), 0);
	assert_int_equal(json_array_size(json_object_get(m, "outside")), 0);
	assert_int_equal(json_array_size(json_object_get(m, "later_step")), 0);
	/* the widening model_disagrees gives: 0.1 s, and c1's 10 requests/s x
	 * 0.1 s + 1 for the losses; no upstream queries to widen */
	assert_seconds(json_object_get(m, "tolerance"), "seconds", 0.1);
	assert_seconds(json_object_get(m, "tolerance"), "lost", 2);
	assert_null(json_object_get(json_object_get(m, "tolerance"), "upstream_queries"));
	/* the run's model: from its topology, t0 at its own instant */
	run = json_object_get(root, "model");
	assert_string_equal(json_string_value(json_object_get(run, "from")), "topology.ini");
	assert_seconds(run, "t0_s", 3.0);
	assert_seconds(run, "tolerance_s", 0.1);
	assert_true(json_array_size(json_object_get(run, "assumptions")) > 0);
	assert_no_code(root, "model_disagrees");
	/* the table: a row per modelled clock, measured beside the model */
	assert_non_null(strstr(table, "\nmodel: what steerlab model predicts from this run's "
				      "topology.ini, t0 3.000 s into the traffic\n"));
	assert_non_null(strstr(table, "scheme   clock"));
	assert_non_null(strstr(table, "measured - p50  agrees"));
	assert_non_null(
	    strstr(table, "anycast  detect (s)           0.250000  0.250          +0.000  yes"));
	assert_non_null(strstr(table, "anycast  window (s)           0.200000"));
	assert_null(strstr(table, "  NO"));
	assert_null(strstr(table, "anycast  upstream"));
	free(table);
	json_decref(root);
}

/* detect 0.7 s, the last request at 0.6 s: outside the model's 0.2 to 0.3
 * s by more than 0.1 s. Warned, not invalidating, each clock named with
 * both values; the table says NO */
static void test_outside(void **state)
{
	const char *dir = *state;
	json_t *root, *m, *out;
	char *table;

	anycast_run(dir, 700, 600);
	root = analyse(dir, &table);
	assert_code(root, "model_disagrees", "anycast detect (s): measured 0.700000, the model 0.2",
		    0);
	assert_code(root, "model_disagrees",
		    "bounds 0.250-0.250, tolerance 0.100): a bug of the model or of the lab", 0);
	assert_code(root, "model_disagrees", "anycast steer (s): measured 0.701000", 0);
	assert_code(root, "model_disagrees", "anycast window (s): measured 0.600000", 0);
	/* 6 lost, the model's at most 3, its tolerance 10 x 0.1 + 1 = 2 */
	assert_code(root, "model_disagrees",
		    "anycast lost (client): measured 6, the model 2 (p5-p95 2-2, bounds 2-2, "
		    "tolerance 2)",
		    0);
	m = json_object_get(anycast(root), "model");
	out = json_object_get(m, "outside");
	assert_true(json_array_size(out) >= 4);
	assert_string_equal(json_string_value(json_array_get(out, 0)), "detect_s");
	assert_non_null(strstr(table, "anycast  detect (s)           0.700000  0.2"));
	assert_non_null(strstr(table, "          +0.451  NO"));
	free(table);
	json_decref(root);
}

/* just outside the bounds but within the tolerance: agrees */
static void test_tolerance(void **state)
{
	const char *dir = *state;
	json_t *root;

	anycast_run(dir, 340, 300);
	root = analyse(dir, NULL);
	assert_no_code(root, "model_disagrees");
	json_decref(root);
}

/* a step of the timeline 150 ms after t0 (site a recovered), before the
 * model's 0.25 s: the clocks it could have changed are not judged, and
 * clocks.json names them under "later_step" (a repeat reads them:
 * lab/run/repeat_model.c), none under "outside" */
static void test_later_step(void **state)
{
	const char *dir = *state;
	json_t *root, *m, *later;
	int window = 0, lost = 0;
	size_t i;

	anycast_run(dir, 250, 200);
	ev(dir, "lab.events.jsonl", T0 + 150 * MS, "event_applied",
	   ",\"name\":\"e2\",\"action\":\"recover\",\"target\":\"a\",\"kind\":\"site\","
	   "\"site\":\"a\",\"cycle\":0,\"vias\":[],\"by\":\"timeline\"");
	root = analyse(dir, NULL);
	m = json_object_get(anycast(root), "model");
	later = json_object_get(m, "later_step");
	assert_true(json_is_array(later));
	for (i = 0; i < json_array_size(later); i++) {
		const char *k = json_string_value(json_array_get(later, i));
		window += k && strcmp(k, "window_s") == 0;
		lost += k && strcmp(k, "lost_client") == 0;
	}
	assert_int_equal(window, 1);
	assert_int_equal(lost, 1);
	assert_int_equal(json_array_size(json_object_get(m, "outside")), 0);
	json_decref(root);
}

/* DNS: c1 asks authd every TTL (2 s) from the start of the traffic, so it
 * leaves a at 4 s, 1 s after t0; its flow's id is 100001 */
static void dns_run(const char *dir, int last_ms)
{
	struct tpkt a[64], b[128];
	const char *authd = "ns.authd.events.jsonl";
	const char *name = ",\"name\":\"www.lab.example.\",\"policy\":\"failover\"";
	char extra[512], csv[8192];
	size_t n = 0, nb = 0, off;

	lab(dir);
	test_write_file(dir, "topology.ini", dns_ini);
	ev(dir, "p1.prober.events.jsonl", T0 + 250 * MS, "declared_dead", ",\"site\":\"a\"");
	ev(dir, authd, T0 - 5000 * MS, "authd_ready", ",\"zones\":1");
	snprintf(extra, sizeof(extra), "%s,\"before\":[],\"after\":[\"%s\"],\"reason\":\"start\"",
		 name, ADDR_A);
	ev(dir, authd, T0 - 5000 * MS, "answer_changed", extra);
	ev(dir, authd, T0 + 251 * MS, "health_changed",
	   ",\"site\":\"a\",\"healthy\":false,\"up_reports\":0,\"reports\":1,\"prober\":\"p1\"");
	snprintf(extra, sizeof(extra), "%s,\"before\":[\"%s\"],\"after\":[\"%s\"]", name, ADDR_A,
		 ADDR_B);
	ev(dir, authd, T0 + 251 * MS, "answer_changed", extra);
	a[n++] = (struct tpkt){T0 - 100 * MS, 7000, WIRE_REQUEST, DNS_ID(1), ADDR_A};
	off = (size_t)snprintf(csv, sizeof(csv),
			       "client,seq,sent_ns,status,site,rtt_ns\n100001,0,%lld,ok,a,10\n",
			       (long long)(T0 - 100 * MS));
	for (int t = 100; t <= last_ms && n < 64; t += 100) {
		a[n++] = (struct tpkt){T0 + t * MS, 7000, WIRE_REQUEST, DNS_ID(1), ADDR_A};
		off +=
		    (size_t)snprintf(csv + off, sizeof(csv) - off, "100001,%zu,%lld,timeout,,0\n",
				     n, (long long)(T0 + t * MS));
	}
	for (int t = last_ms + 100; t <= 7000 && nb < 128; t += 100) {
		b[nb++] = (struct tpkt){T0 + t * MS, 7000, WIRE_REQUEST, DNS_ID(1), ADDR_B};
		off += (size_t)snprintf(csv + off, sizeof(csv) - off, "100001,%zu,%lld,ok,b,10\n",
					n + nb, (long long)(T0 + t * MS));
	}
	write_pcap(dir, "capture-a.pcap", a, n, PCAP_TSTAMP_PRECISION_NANO);
	write_pcap(dir, "capture-b.pcap", b, nb, PCAP_TSTAMP_PRECISION_NANO);
	put(dir, "requests-c1-dns.csv", "%s", csv);
}

static void test_dns(void **state)
{
	const char *dir = *state;
	json_t *root, *m;
	char *table;

	dns_run(dir, 1000);
	root = analyse(dir, &table);
	m = json_object_get(dns(root), "model");
	assert_iv(m, "detect_s", 0.25, 0.25);
	assert_iv(m, "window_s", 1.0, 1.0);
	assert_iv(json_object_get(m, "last_by_client_s"), "100001", 1.0, 1.0);
	assert_iv(m, "lost_client", 10, 10);
	/* five queries of its own, one per TTL: measured only with a capture */
	assert_iv(m, "upstream_queries", 5, 5);
	/* its tolerance: what a traffic 0.1 s longer asks more (a fill at 10 s) */
	assert_seconds(json_object_get(m, "tolerance"), "upstream_queries", 1);
	assert_no_code(root, "model_disagrees");
	assert_non_null(
	    strstr(table, "dns     lost (client)               10     10              +0  yes"));
	/* not measured (no query capture): shown, not judged */
	assert_non_null(
	    strstr(table, "dns     upstream DNS queries         -      5               -  -"));
	assert_non_null(
	    strstr(table, "dns     window (s)            1.000000  1.000          +0.000  yes"));
	free(table);
	json_decref(root);
}

/* the DNS client stays half a second longer than its TTL allows */
static void test_dns_outside(void **state)
{
	const char *dir = *state;
	json_t *root;

	dns_run(dir, 1500);
	root = analyse(dir, NULL);
	assert_code(root, "model_disagrees",
		    "dns window (s): measured 1.500000, the model 1.000 (p5-p95 1.000-1.000, "
		    "bounds 1.000-1.000, tolerance 0.100)",
		    0);
	assert_no_code(root, "healthy_site_dead");
	json_decref(root);
}

/* a topology the model cannot use: no model, and why, in clocks.json and
 * the table; no scheme has a "model" */
static void test_none(void **state)
{
	const char *dir = *state;
	json_t *root;
	char *table;

	anycast_run(dir, 250, 200);
	test_write_file(dir, "topology.ini", "[lab]\nname = t\nport = 7000\n\n[router core]\n");
	root = analyse(dir, &table);
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(root, "model"), "none")),
	    "topology.ini: no [site] section: a lab needs at least one site");
	assert_null(json_object_get(anycast(root), "model"));
	assert_non_null(strstr(
	    table,
	    "\nmodel: none (topology.ini: no [site] section: a lab needs at least one site)\n"));
	assert_no_code(root, "model_disagrees");
	free(table);
	json_decref(root);
}

/* clocks_model_judge on a model made by hand: a clock of bounds 1 to 2 s
 * and a count of bounds 10 to 20 at 100 requests/s */
static void test_judge(void **state)
{
	struct clocks_input in;
	struct clocks_model *m = calloc(1, sizeof(*m));
	struct clocks_model_iv *w, *lost;

	(void)state;
	assert_non_null(m);
	clocks_input_init(&in);
	in.failure.t0_ns = T0;
	in.model = m;
	m->known = 1;
	m->t0_s = 3;
	m->duration_s = 10;
	m->s[0].present = 1;
	m->s[0].rate_per_s = 100;
	w = &m->s[0].clock[CLOCKS_MODEL_WINDOW];
	*w = (struct clocks_model_iv){
	    .known = 1, .p5 = 1.1, .p50 = 1.5, .p95 = 1.9, .min = 1, .max = 2};
	lost = &m->s[0].clock[CLOCKS_MODEL_LOST_CLIENT];
	*lost = (struct clocks_model_iv){
	    .known = 1, .p5 = 11, .p50 = 15, .p95 = 19, .min = 10, .max = 20};
	assert_int_equal(clocks_model_judge(&in, 0, CLOCKS_MODEL_WINDOW, 1.5, 0),
			 CLOCKS_MODEL_WITHIN);
	/* outside the p5-p95 but within the bounds: no disagreement */
	assert_int_equal(clocks_model_judge(&in, 0, CLOCKS_MODEL_WINDOW, 1.99, 0),
			 CLOCKS_MODEL_WITHIN);
	/* the tolerance, 0.1 s, either side */
	assert_int_equal(clocks_model_judge(&in, 0, CLOCKS_MODEL_WINDOW, 2.09, 0),
			 CLOCKS_MODEL_WITHIN);
	assert_int_equal(clocks_model_judge(&in, 0, CLOCKS_MODEL_WINDOW, 2.11, 0),
			 CLOCKS_MODEL_OUTSIDE);
	assert_int_equal(clocks_model_judge(&in, 0, CLOCKS_MODEL_WINDOW, 0.91, 0),
			 CLOCKS_MODEL_WITHIN);
	assert_int_equal(clocks_model_judge(&in, 0, CLOCKS_MODEL_WINDOW, 0.89, 0),
			 CLOCKS_MODEL_OUTSIDE);
	/* a lower bound: too short says nothing, too long is too long */
	assert_int_equal(clocks_model_judge(&in, 0, CLOCKS_MODEL_WINDOW, 0.5, 1),
			 CLOCKS_MODEL_LOWER_BOUND);
	assert_int_equal(clocks_model_judge(&in, 0, CLOCKS_MODEL_WINDOW, 2.5, 1),
			 CLOCKS_MODEL_OUTSIDE);
	/* a count's tolerance: its rate x 0.1 s, + 1 */
	assert_true(fabs(clocks_model_tolerance(m, 0, CLOCKS_MODEL_LOST_CLIENT) - 11) < 1e-9);
	assert_int_equal(clocks_model_judge(&in, 0, CLOCKS_MODEL_LOST_CLIENT, 31, 0),
			 CLOCKS_MODEL_WITHIN);
	assert_int_equal(clocks_model_judge(&in, 0, CLOCKS_MODEL_LOST_CLIENT, 32, 0),
			 CLOCKS_MODEL_OUTSIDE);
	/* not modelled: not judged */
	assert_int_equal(clocks_model_judge(&in, 0, CLOCKS_MODEL_DETECT, 5, 0),
			 CLOCKS_MODEL_UNKNOWN);
	/* a step of the timeline 1.5 s after t0, before the window could end:
	 * the model knows the first failure alone */
	in.hits = calloc(2, sizeof(*in.hits));
	assert_non_null(in.hits);
	in.nhits = 2;
	in.hits[0].t_ns = T0;
	in.hits[1].t_ns = T0 + 1500 * MS;
	assert_int_equal(clocks_model_judge(&in, 0, CLOCKS_MODEL_WINDOW, 5, 0),
			 CLOCKS_MODEL_LATER_STEP);
	assert_int_equal(clocks_model_judge(&in, 0, CLOCKS_MODEL_LOST_CLIENT, 50, 0),
			 CLOCKS_MODEL_LATER_STEP);
	/* a detect measured before the step is judged, one after it is not */
	m->s[0].clock[CLOCKS_MODEL_DETECT] = (struct clocks_model_iv){
	    .known = 1, .p5 = 1.1, .p50 = 1.5, .p95 = 1.9, .min = 1, .max = 2};
	assert_int_equal(clocks_model_judge(&in, 0, CLOCKS_MODEL_DETECT, 1.2, 0),
			 CLOCKS_MODEL_WITHIN);
	assert_int_equal(clocks_model_judge(&in, 0, CLOCKS_MODEL_DETECT, 1.6, 0),
			 CLOCKS_MODEL_LATER_STEP);
	/* one after the model's window: the window and the failure's own
	 * losses judged; the clients' losses, of the whole run, are not */
	in.hits[1].t_ns = T0 + 2500 * MS;
	assert_int_equal(clocks_model_judge(&in, 0, CLOCKS_MODEL_WINDOW, 5, 0),
			 CLOCKS_MODEL_OUTSIDE);
	m->s[0].clock[CLOCKS_MODEL_LOST_CAPTURE] = *lost;
	assert_int_equal(clocks_model_judge(&in, 0, CLOCKS_MODEL_LOST_CAPTURE, 50, 0),
			 CLOCKS_MODEL_OUTSIDE);
	assert_int_equal(clocks_model_judge(&in, 0, CLOCKS_MODEL_LOST_CLIENT, 50, 0),
			 CLOCKS_MODEL_LATER_STEP);
	/* after the traffic (t0 + 7 s): no step within it */
	in.hits[1].t_ns = T0 + 7500 * MS;
	assert_int_equal(clocks_model_judge(&in, 0, CLOCKS_MODEL_LOST_CLIENT, 50, 0),
			 CLOCKS_MODEL_OUTSIDE);
	clocks_input_free(&in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_inside, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_outside, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_later_step, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_tolerance, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_dns, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_dns_outside, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_none, setup, teardown),
	    cmocka_unit_test(test_judge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
