/*
 * `steerlab nodes` (lab/cli/nodes.c) on topology/compare.ini, which has a node
 * of every kind, and a hand-made agent list: each node's kind, namespace,
 * addresses and links as the topology's address plan has them, each
 * agent alive or dead, a superseded agents.tsv line (a sited started
 * again by recover) not listed; the text against a golden file
 * (UPDATE_GOLDEN=1 writes one that differs to FILE.new), the JSON field by field. Also the
 * state look-ups (lab/build/state.c) and the hint for a missing node.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lab/cli/hint.h"
#include "lab/build/lab.h"
#include "lab/cli/cli.h"
#include "test_file.h"

#define GOLDEN "tests/unit/data/nodes/compare.golden"

static struct lab_state st;

/* add: an agents.tsv line, as lab_state_load makes it */
static void add(const char *line, int alive)
{
	struct lab_agent *a = &st.agents[st.nagents];

	assert_int_equal(lab_parse_agent_line(line, a), 0);
	a->node = topo_find(&st.t, a->nodename);
	a->reaped = !alive;
	st.nagents++;
}

static int setup(void **state)
{
	FILE *null = fopen("/dev/null", "w");

	(void)state;
	memset(&st, 0, sizeof(st));
	assert_int_equal(topo_load(&st.t, "topology/compare.ini", NULL, 0, null), 0);
	fclose(null);
	strcpy(st.name, st.t.name);
	strcpy(st.rundir, "/tmp/runs/compare-1");
	add("101\t1\tcore\trouted", 1);
	add("102\t1\tcore\tcollector", 1);
	add("103\t1\tcore\tcollector-dns", 1);
	add("104\t1\tns\tauthd", 1);
	add("105\t1\tr\tresolverd", 1);
	add("106\t1\ta\tsited", 0); /* failed by hand ... */
	add("107\t1\ta\tprober", 1);
	add("108\t1\tb\tsited", 0); /* ... and this one not recovered */
	add("109\t1\tb\tprober", 1);
	add("110\t1\tp1\tprober", 1);
	add("111\t1\tp2\tprober", 1);
	add("206\t2\ta\tsited", 1); /* recovered: supersedes 106 */
	return 0;
}

static void test_lookups(void **state)
{
	char err[512];
	int a = topo_find(&st.t, "a");

	(void)state;
	assert_false(lab_state_current(&st, 5)); /* 106, superseded by 206 */
	assert_true(lab_state_current(&st, 11));
	assert_true(lab_state_current(&st, 7)); /* b's sited: the last of b */
	assert_int_equal(lab_state_find_agent(&st, a, "sited"), 11);
	assert_int_equal(lab_state_find_agent(&st, a, "prober"), 6);
	assert_int_equal(lab_state_find_agent(&st, topo_find(&st.t, "c1"), "client"), -1);
	assert_int_equal(lab_state_node(&st, "r", err, sizeof(err)), topo_find(&st.t, "r"));
	assert_int_equal(lab_state_node(&st, "zz", err, sizeof(err)), -1);
	assert_string_equal(
	    err, "lab compare has no node 'zz' (its nodes: core, a, b, ns, p1, p2, r, c1, "
		 "c2, c3, root, tld)");
}

static void test_text(void **state)
{
	char *text = NULL, *line;
	size_t len;
	FILE *out = open_memstream(&text, &len);

	(void)state;
	assert_non_null(out);
	lab_nodes_print(&st, out);
	fclose(out);
	test_assert_golden(GOLDEN, text);
	/* what a user checks in it, whatever the golden file says */
	assert_non_null(strstr(text, "a (site), namespace compare-a\n"));
	assert_non_null(strstr(text, "  iface eth0         198.18.0.2/30      link to core (a)\n"));
	assert_non_null(strstr(text, "  agent sited         pid 206      alive\n"));
	assert_null(strstr(text, "pid 106 "));
	assert_non_null(strstr(text, "  agent sited         pid 108      dead\n"));
	assert_non_null(strstr(text, "caches r1 .. r4, to 198.18.128.4"));
	/* 80 columns */
	for (line = text; *line; line += strcspn(line, "\n") + 1)
		assert_true(strcspn(line, "\n") <= 80);
	free(text);
}

/* node: the JSON node called name */
static json_t *node(json_t *doc, const char *name)
{
	json_t *n;
	size_t i;

	json_array_foreach(json_object_get(doc, "nodes"), i, n)
	{
		if (strcmp(json_string_value(json_object_get(n, "name")), name) == 0)
			return n;
	}
	fail_msg("no node %s", name);
	return NULL;
}

static void test_json(void **state)
{
	json_t *doc = lab_nodes_json(&st), *a, *core, *r, *c1, *x;

	(void)state;
	assert_non_null(doc);
	assert_string_equal(json_string_value(json_object_get(doc, "lab")), "compare");
	assert_string_equal(json_string_value(json_object_get(doc, "rundir")),
			    "/tmp/runs/compare-1");
	assert_int_equal(json_array_size(json_object_get(doc, "nodes")), 12);

	a = node(doc, "a");
	assert_string_equal(json_string_value(json_object_get(a, "kind")), "site");
	assert_string_equal(json_string_value(json_object_get(a, "namespace")), "compare-a");
	x = json_object_get(a, "addresses");
	assert_int_equal(json_array_size(x), 3);
	assert_string_equal(json_string_value(json_object_get(json_array_get(x, 0), "address")),
			    "198.18.0.2");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(x, 0), "prefixlen")),
			 30);
	assert_string_equal(json_string_value(json_object_get(json_array_get(x, 1), "role")),
			    "service");
	assert_string_equal(json_string_value(json_object_get(json_array_get(x, 1), "interface")),
			    "lo");
	x = json_object_get(a, "links");
	assert_int_equal(json_array_size(x), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(x, 0), "peer")),
			    "core");
	assert_string_equal(
	    json_string_value(json_object_get(json_array_get(x, 0), "peer_interface")), "a");
	x = json_object_get(a, "agents");
	assert_int_equal(json_array_size(x), 2); /* prober, and the recovered sited */
	assert_int_equal(json_integer_value(json_object_get(json_array_get(x, 1), "pid")), 206);
	assert_true(json_is_true(json_object_get(json_array_get(x, 1), "alive")));

	x = json_object_get(node(doc, "b"), "agents");
	assert_string_equal(json_string_value(json_object_get(json_array_get(x, 0), "agent")),
			    "sited");
	assert_true(json_is_false(json_object_get(json_array_get(x, 0), "alive")));

	core = node(doc, "core");
	assert_int_equal(json_array_size(json_object_get(core, "links")),
			 11); /* root, tld: dns_tree */
	assert_int_equal(json_array_size(json_object_get(core, "agents")), 3);
	r = node(doc, "r");
	assert_int_equal(json_array_size(json_object_get(r, "addresses")), 5); /* eth0, 4 caches */
	c1 = node(doc, "c1");
	assert_string_equal(json_string_value(json_object_get(c1, "kind")), "client");
	assert_int_equal(json_array_size(json_object_get(c1, "agents")), 0);
	json_decref(doc);
}

static void test_hint(void **state)
{
	char *names[] = {"a", "b"}, buf[256];

	(void)state;
	assert_int_equal(hint_which_node("fail", "lab1", "site", names, 2, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "fail: which site of lab lab1? its sites: a, b (e.g. steerlab "
				 "fail lab1 a)");
	assert_int_equal(hint_which_node("exec", "lab1", "node", names, 1, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "exec: which node of lab lab1? its nodes: a (e.g. steerlab exec "
				 "lab1 a -- ip route)");
	assert_int_equal(hint_which_node("fail", "lab1", "site", names, 0, buf, sizeof(buf)), -1);
	assert_int_equal(hint_which_node("fail", "lab1", "site", names, 2, buf, 10), -1);
}

/* a router's links to other routers, and its id: two-routers.ini's r1 */
static void test_router_links(void **state)
{
	static struct lab_state two;
	FILE *null = fopen("/dev/null", "w");
	char *text = NULL;
	size_t len;
	FILE *out = open_memstream(&text, &len);
	json_t *root, *r1, *links;

	(void)state;
	assert_non_null(out);
	assert_int_equal(topo_load(&two.t, "topology/two-routers.ini", NULL, 0, null), 0);
	fclose(null);
	strcpy(two.name, two.t.name);
	lab_nodes_print(&two, out);
	fclose(out);
	assert_non_null(strstr(text, "r1 (router), namespace tworouters-r1\n"
				     "  iface a            198.18.0.1/30      link to a (eth0)\n"));
	assert_non_null(strstr(text,
			       "  iface r2           198.18.32.1/30     link to router r2 (r1)\n"
			       "  iface lo           198.18.40.1/32     the router's id\n"));
	assert_non_null(
	    strstr(text, "  iface r1           198.18.32.2/30     link to router r1 (r2)\n"));
	free(text);
	root = lab_nodes_json(&two);
	assert_non_null(root);
	r1 = json_array_get(json_object_get(root, "nodes"), 0);
	links = json_object_get(r1, "links");
	assert_string_equal(json_string_value(json_object_get(
				json_array_get(links, json_array_size(links) - 1), "peer")),
			    "r2");
	json_decref(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lookups),	 cmocka_unit_test(test_text),
	    cmocka_unit_test(test_router_links), cmocka_unit_test(test_json),
	    cmocka_unit_test(test_hint),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
