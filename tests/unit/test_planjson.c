/*
 * plan.json (lab/topology/planjson.c): what the lab writes of a topology, read back
 * by the clocks (probes/clocks/clocks_topo.c). For every topology of
 * topology/, the DNS side read from plan.json is the one worked out from
 * topology.ini as before; an old run directory without plan.json, or with
 * one the clocks cannot read, is still read from topology.ini; and the
 * addresses and ids in plan.json are the address plan's (lib/addrplan.h).
 */
#include <arpa/inet.h>
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "addrplan.h"
#include "clocks_int.h"
#include "topology.h"
#include "test_rundir.h"
#include "wire.h"

static const char *const topologies[] = {
    "topology/anycast.ini",	 "topology/cdn.ini",
    "topology/compare.ini",	 "topology/dns-outage.ini",
    "topology/dns.ini",		 "topology/failures.ini",
    "topology/population.ini",	 "topology/real-resolvers.ini",
    "topology/recovery.ini",	 "topology/resolvers.ini",
    "topology/two-failures.ini", "topology/two-routers.ini",
    "topology/bgp.ini",		 "topology/authorities.ini",
};

struct fixture {
	struct topology t;
	struct clocks_input in;
	struct clocks_topo_dns from_ini;
	char *dir;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (f == NULL || (f->dir = rundir_new("test_planjson")) == NULL)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	rundir_free(f->dir);
	free(f);
	return 0;
}

static void load(struct fixture *f, const char *path)
{
	char ini[512];
	FILE *fp;

	memset(&f->t, 0, sizeof(f->t));
	if (topo_load(&f->t, path, NULL, 0, stderr) == -1)
		fail_msg("%s: does not load", path);
	snprintf(ini, sizeof(ini), "%s/topology.ini", f->dir);
	fp = fopen(ini, "w");
	assert_non_null(fp);
	topo_print(&f->t, fp);
	assert_int_equal(fclose(fp), 0);
}

static void remove_plan(struct fixture *f)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/plan.json", f->dir);
	unlink(path);
}

/* the DNS side from plan.json is topology.ini's, for every topology */
static void test_plan_as_ini(void **state)
{
	struct fixture *f = *state;
	char err[512];

	for (size_t i = 0; i < sizeof(topologies) / sizeof(topologies[0]); i++) {
		load(f, topologies[i]);
		remove_plan(f);
		clocks_read_dns_topology(f->dir, &f->in);
		f->from_ini = f->in.dnstopo;
		assert_int_equal(planjson_write(&f->t, f->dir, err, sizeof(err)), 0);
		clocks_read_dns_topology(f->dir, &f->in);
		/* PowerDNS's and gdnsd's checks are plan.json's alone: a run from
		 * before it (read from topology.ini) had neither */
		f->in.dnstopo.nown = 0;
		for (int d = 0; d < f->in.dnstopo.ndns; d++) {
			struct clocks_dns_node *n = &f->in.dnstopo.dns[d];

			n->own_checks = n->gdnsd = n->check_down = n->check_up = 0;
			n->addr.s_addr = 0;
			n->check_timeout_ns = 0;
		}
		if (memcmp(&f->from_ini, &f->in.dnstopo, sizeof(f->from_ini)) != 0)
			fail_msg("%s: plan.json's DNS side differs from topology.ini's",
				 topologies[i]);
	}
}

/* the levels come from plan.json when it is there: the lab's, not worked
 * out again (a plan that says otherwise is believed) */
static void test_plan_read(void **state)
{
	struct fixture *f = *state;
	char path[512], err[512];
	json_t *plan, *nodes, *n;
	size_t i;
	int tld = -1;

	load(f, "topology/compare.ini");
	assert_int_equal(planjson_write(&f->t, f->dir, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/plan.json", f->dir);
	plan = json_load_file(path, 0, NULL);
	assert_non_null(plan);
	nodes = json_object_get(plan, "nodes");
	json_array_foreach(nodes, i, n)
	{
		if (strcmp(json_string_value(json_object_get(n, "name")), "tld") == 0)
			json_object_set_new(n, "dns_level", json_string("zone"));
	}
	assert_int_equal(json_dump_file(plan, path, 0), 0);
	json_decref(plan);
	clocks_read_dns_topology(f->dir, &f->in);
	for (int k = 0; k < f->in.dnstopo.ndns; k++)
		if (strcmp(f->in.dnstopo.dns[k].name, "tld") == 0)
			tld = (int)f->in.dnstopo.dns[k].level;
	assert_int_equal(tld, CLOCKS_LEVEL_ZONE);
}

/* a run directory from before plan.json, or with one of another version
 * or not JSON, is read from topology.ini as before */
static void test_old_rundir(void **state)
{
	struct fixture *f = *state;
	static const char *const bad[] = {"", "{\"version\": 2, \"nodes\": []}\n", "[1, 2]\n",
					  "{\"version\": 1, \"nodes\": [{\"kind\": \"dns\", "
					  "\"name\": \"x\", \"dns_level\": \"top\"}]}\n"};
	char path[512];

	load(f, "topology/compare.ini");
	remove_plan(f);
	clocks_read_dns_topology(f->dir, &f->in);
	f->from_ini = f->in.dnstopo;
	assert_true(f->from_ini.ndns > 0);
	assert_true(f->from_ini.nrsv > 0);
	snprintf(path, sizeof(path), "%s/plan.json", f->dir);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		FILE *fp = fopen(path, "w");

		assert_non_null(fp);
		fputs(bad[i], fp);
		assert_int_equal(fclose(fp), 0);
		clocks_read_dns_topology(f->dir, &f->in);
		assert_memory_equal(&f->from_ini, &f->in.dnstopo, sizeof(f->from_ini));
	}
}

static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	assert_non_null(s);
	return s;
}

static void assert_addr(const char *text, struct in_addr want)
{
	char buf[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &want, buf, sizeof(buf));
	assert_string_equal(text, buf);
}

/* every node of the topology, with the plan's addresses and ids */
static void test_round_trip(void **state)
{
	struct fixture *f = *state;
	json_t *plan, *nodes, *n, *links;
	char path[512], err[512];
	unsigned routers = 0, resolvers = 0;
	size_t i;

	load(f, "topology/cdn.ini");
	assert_int_equal(planjson_write(&f->t, f->dir, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/plan.json", f->dir);
	plan = json_load_file(path, 0, NULL);
	assert_non_null(plan);
	assert_int_equal(json_integer_value(json_object_get(plan, "version")), PLANJSON_VERSION);
	assert_string_equal(str(plan, "lab"), f->t.name);
	assert_addr(str(plan, "service"), f->t.service);
	nodes = json_object_get(plan, "nodes");
	assert_int_equal(json_array_size(nodes), (size_t)f->t.nnodes);
	json_array_foreach(nodes, i, n)
	{
		const struct topo_node *node = &f->t.nodes[i];
		json_t *link = json_object_get(n, "link");

		assert_string_equal(str(n, "name"), node->name);
		assert_string_equal(str(n, "kind"), topo_kind_name(node->kind));
		if (node->link >= 0) {
			assert_addr(str(link, "address"), addrplan_link((unsigned)node->link, 1));
			assert_addr(str(link, "router_address"),
				    addrplan_link((unsigned)node->link, 0));
			assert_string_equal(str(link, "router"),
					    f->t.nodes[f->t.links[node->link].router].name);
		} else {
			assert_null(link);
		}
		if (node->kind == TOPO_ROUTER)
			assert_addr(str(n, "router_id"), addrplan_router_id(routers++));
		if (node->kind == TOPO_RESOLVER) {
			char block[32];

			inet_ntop(AF_INET,
				  &(struct in_addr){addrplan_resolver_block(resolvers).s_addr},
				  block, sizeof(block));
			strcat(block, "/24");
			assert_string_equal(str(n, "block"), block);
			assert_int_equal(json_integer_value(json_object_get(n, "resolver_index")),
					 resolvers++);
		}
		if (node->kind == TOPO_CLIENT) {
			assert_int_equal(json_integer_value(json_object_get(n, "client_id")),
					 node->client_id);
			if (node->mode != TOPO_MODE_ANYCAST)
				assert_int_equal(
				    json_integer_value(json_object_get(n, "dns_client_id")),
				    WIRE_DNS_CLIENT_ID(node->client_id));
		}
		if (node->kind == TOPO_DNS)
			assert_non_null(json_string_value(json_object_get(n, "dns_level")));
	}
	assert_true(routers > 0 && resolvers > 0);
	links = json_object_get(plan, "links");
	assert_int_equal(json_array_size(links), (size_t)f->t.nrlinks);
	json_array_foreach(links, i, n)
	{
		assert_addr(str(n, "a_address"), addrplan_rlink((unsigned)i, 0));
		assert_addr(str(n, "b_address"), addrplan_rlink((unsigned)i, 1));
	}
	json_decref(plan);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_plan_as_ini, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_plan_read, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_old_rundir, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
