/*
 * probes/clocks: a population's per-client clocks, summarised
 * (clocks_pop.c; docs/clocks.md, "Populations"): the quantiles, counts and
 * slowest clients of clocks_pops over hand-made values, and a run
 * directory of 300 logical clients and 2 process clients, whose clocks.json
 * lists the process clients by id and summarises the population, with no
 * "limit" warning, consistent with the captures.
 */
#include "test_clocks_util.h"

#define POP1 WIRE_POP_ID(1, 0, 0)
#define POP2 WIRE_POP_ID(2, 0, 0)

/* 1000 logical clients of POP1: client j's last request at j ms (0: none),
 * the last 3 cut; 5 of POP2 at 0; 2 process clients between them */
static void test_pops_summary(void **state)
{
	static struct clocks_client_last by[1007];
	struct clocks_input in;
	struct clocks_client clients[2] = {{.id = POP1, .node = "users"}, {.id = 9, .node = "c9"}};
	struct clocks_pop pops[4];
	size_t n = 0;
	int lost;

	(void)state;
	clocks_input_init(&in);
	in.clients = clients;
	in.nclients = 2;
	by[n++] = (struct clocks_client_last){7, 5 * MS, 0};
	by[n++] = (struct clocks_client_last){9, 0, 0};
	for (uint32_t j = 0; j < 1000; j++)
		by[n++] = (struct clocks_client_last){POP1 + j, j * MS, j >= 997};
	for (uint32_t j = 0; j < 5; j++)
		by[n++] = (struct clocks_client_last){POP2 + j, 0, 0};
	assert_int_equal(clocks_pops(&in, by, n, pops, 4, &lost), 2);
	assert_int_equal(lost, 0);
	assert_int_equal(pops[0].base, POP1);
	assert_string_equal(pops[0].node, "users");
	assert_int_equal(pops[0].clients, 1000);
	assert_int_equal(pops[0].sent_after_t0, 999); /* client 0 at 0: none */
	assert_int_equal(pops[0].cut, 3);
	/* nearest rank: the ceil(p n)-th smallest, of 0 .. 999 ms */
	assert_int_equal(pops[0].p50_ns, 499 * MS);
	assert_int_equal(pops[0].p90_ns, 899 * MS);
	assert_int_equal(pops[0].p99_ns, 989 * MS);
	assert_int_equal(pops[0].p999_ns, 998 * MS);
	assert_int_equal(pops[0].max_ns, 999 * MS);
	/* the least cut client is at 997 ms: p999 and max may be more */
	assert_false(pops[0].lb_p50 || pops[0].lb_p90 || pops[0].lb_p99);
	assert_true(pops[0].lb_p999 && pops[0].lb_max);
	assert_int_equal(pops[0].nslowest, CLOCKS_POP_SLOWEST);
	for (int k = 0; k < CLOCKS_POP_SLOWEST; k++) {
		assert_int_equal(pops[0].slowest[k].client, POP1 + 999 - (uint32_t)k);
		assert_int_equal(pops[0].slowest[k].last_ns, (999 - k) * MS);
		assert_int_equal(pops[0].slowest[k].cut, k < 3);
	}
	/* a population that waited for nothing: no slowest, no node known */
	assert_int_equal(pops[1].base, POP2);
	assert_string_equal(pops[1].node, "");
	assert_int_equal(pops[1].clients, 5);
	assert_int_equal(pops[1].sent_after_t0, 0);
	assert_int_equal(pops[1].max_ns, 0);
	assert_int_equal(pops[1].nslowest, 0);
	/* room for one: the other counted */
	assert_int_equal(clocks_pops(&in, by, n, pops, 1, &lost), 1);
	assert_int_equal(lost, 1);
	/* no population */
	assert_int_equal(clocks_pops(&in, by, 2, pops, 4, &lost), 0);
}

/* a run: logical client j of POP1 (node users) sends to a after t0 until
 * j ms, then to b; process clients 1 (a until 40 ms) and 2 (b only) */
static void test_pops_json(void **state)
{
	const char *dir = *state;
	struct tpkt a[302], b[303];
	size_t na = 0, nb = 0;
	json_t *root, *o, *p, *slow, *by;
	char id[16];

	lab(dir);
	for (uint32_t j = 1; j <= 300; j++) {
		a[na++] = (struct tpkt){T0 + j * MS, 7000, WIRE_REQUEST, POP1 + j - 1, ANY};
		b[nb++] =
		    (struct tpkt){T0 + 500 * MS + j * MS, 7000, WIRE_REQUEST, POP1 + j - 1, ANY};
	}
	a[na++] = (struct tpkt){T0 + 40 * MS, 7000, WIRE_REQUEST, 1, ANY};
	a[na++] = (struct tpkt){T0 - 40 * MS, 7000, WIRE_REQUEST, 2, ANY};
	b[nb++] = (struct tpkt){T0 + 900 * MS, 7000, WIRE_REQUEST, 1, ANY};
	b[nb++] = (struct tpkt){T0 + 900 * MS, 7000, WIRE_REQUEST, 2, ANY};
	b[nb++] = (struct tpkt){T0 + 950 * MS, 7000, WIRE_REQUEST, 2, ANY};
	write_pcap(dir, "capture-a.pcap", a, na, PCAP_TSTAMP_PRECISION_NANO);
	write_pcap(dir, "capture-b.pcap", b, nb, PCAP_TSTAMP_PRECISION_NANO);
	ev(dir, "users.client.events.jsonl", T0 - 3000 * MS, "client_started",
	   ",\"client\":2147614720,\"target\":\"x\",\"rate\":300.0");
	put(dir, "requests-users.csv", "client,seq,sent_ns,status,site,rtt_ns\n");

	root = analyse(dir, NULL);
	o = anycast(root);
	/* no warning for the summary: it is intended */
	assert_int_equal(count_code(root, "limit"), 0);
	assert_count(json_object_get(o, "last_per_client_s"), "clients", 302);
	/* the process clients by id, none of the population's */
	by = json_object_get(o, "last_by_client_s");
	assert_int_equal(json_object_size(by), 2);
	assert_seconds(by, "1", 0.04);
	assert_seconds(by, "2", 0);
	/* the population's summary, under its base id */
	snprintf(id, sizeof(id), "%u", POP1);
	p = json_object_get(json_object_get(o, "populations"), id);
	assert_non_null(p);
	assert_int_equal(json_object_size(json_object_get(o, "populations")), 1);
	assert_string_equal(json_string_value(json_object_get(p, "node")), "users");
	assert_count(p, "clients", 300);
	assert_count(p, "sent_after_t0", 300);
	assert_count(p, "cut", 0);
	assert_seconds(p, "p50", 0.150);
	assert_seconds(p, "p90", 0.270);
	assert_seconds(p, "p99", 0.297);
	assert_seconds(p, "p999", 0.300);
	assert_seconds(p, "max", 0.300);
	/* the window is the population's slowest */
	assert_seconds(o, "window_s", 0.300);
	slow = json_object_get(p, "slowest");
	assert_int_equal(json_array_size(slow), CLOCKS_POP_SLOWEST);
	assert_count(json_array_get(slow, 0), "client", POP1 + 299);
	assert_count(json_array_get(slow, 0), "index", 299);
	assert_seconds(json_array_get(slow, 0), "last_s", 0.300);
	assert_true(json_is_false(json_object_get(json_array_get(slow, 0), "cut")));
	assert_count(json_array_get(slow, 9), "index", 290);
	json_decref(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pops_summary),
	    cmocka_unit_test_setup_teardown(test_pops_json, setup, teardown),
	};

	return cmocka_run_group_tests_name("clocks populations", tests, NULL, NULL);
}
