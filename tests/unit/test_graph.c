/*
 * lab/topology/graph*.c: `steerlab graph` on topology/bgp.ini (three
 * transit ASes in a ring, a site and a client on each) with an impaired
 * link: the JSON's nodes, links, impairments and eBGP sessions with their
 * ASNs; the dot's and mermaid's nodes and edges; then a run's clocks.json
 * on it (a catchment that moved, a router's FIB change) and the run
 * directories refused: not one, of another topology.
 */
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

#include "graph_int.h"
#include "test_rundir.h"

static struct topology topo;

/* graph_load: topology/bgp.ini with t1 to t2 impaired, from a copy */
static void graph_load(void)
{
	static const char path[] = "/tmp/test_graph-bgp.ini";
	char line[512];
	FILE *in = fopen("topology/bgp.ini", "r"), *out = fopen(path, "w");

	assert_non_null(in);
	assert_non_null(out);
	while (fgets(line, sizeof(line), in)) {
		fputs(line, out);
		if (strcmp(line, "[link t1 t2]\n") == 0)
			fputs("t1>t2.delay = 15ms\nt1>t2.loss = 1%\n", out);
	}
	fclose(in);
	fclose(out);
	memset(&topo, 0, sizeof(topo));
	if (topo_load(&topo, path, NULL, 0, stderr) != 0)
		fail_msg("%s does not load", path);
	unlink(path);
}

/* graph_text: what topo_graph_write writes (malloc'ed), or NULL with err */
static char *graph_text(const char *rundir, enum topo_graph_format fmt, char *err, size_t len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&buf, &n);
	int rc;

	assert_non_null(fp);
	rc = topo_graph_write(&topo, rundir, fmt, fp, err, len);
	fclose(fp);
	if (rc == -1) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void test_graph_json(void **state)
{
	char err[512], *text;
	json_t *root, *v;
	size_t i;
	int sessions = 0, impaired = 0;

	(void)state;
	graph_load();
	assert_non_null(text = graph_text(NULL, TOPO_GRAPH_JSON, err, sizeof(err)));
	assert_non_null(root = json_loads(text, 0, NULL));
	assert_string_equal(json_string_value(json_object_get(root, "routing")), "bgp");
	assert_int_equal(json_array_size(json_object_get(root, "nodes")), 9);
	assert_int_equal(json_array_size(json_object_get(root, "links")), 9);
	json_array_foreach(json_object_get(root, "nodes"), i, v)
	{
		const char *name = json_string_value(json_object_get(v, "name"));

		if (strcmp(name, "t3") == 0)
			assert_int_equal(json_integer_value(json_object_get(v, "asn")), 65003);
		if (strcmp(name, "b") == 0) {
			assert_int_equal(json_integer_value(json_object_get(v, "asn")), 65102);
			assert_string_equal(json_string_value(json_object_get(v, "router")), "t2");
		}
		if (strcmp(name, "c1") == 0)
			assert_true(json_is_null(json_object_get(v, "asn")));
	}
	json_array_foreach(json_object_get(root, "sessions"), i, v)
	{
		sessions++;
		if (strcmp(json_string_value(json_object_get(v, "a")), "t1") == 0 &&
		    strcmp(json_string_value(json_object_get(v, "b")), "a") == 0) {
			assert_int_equal(json_integer_value(json_object_get(v, "a_asn")), 65001);
			assert_int_equal(json_integer_value(json_object_get(v, "b_asn")), 65101);
		}
	}
	/* three [link]s and three sites' links; no client's */
	assert_int_equal(sessions, 6);
	json_array_foreach(json_object_get(root, "links"), i, v)
	{
		json_t *im = json_object_get(v, "impairment");

		if (json_object_size(im) == 0)
			continue;
		impaired++;
		assert_string_equal(json_string_value(json_object_get(v, "a")), "t1");
		assert_string_equal(json_string_value(json_object_get(im, "a>b")),
				    "delay=15ms loss=1%");
		assert_null(json_object_get(im, "b>a"));
	}
	assert_int_equal(impaired, 1);
	assert_true(json_is_null(json_object_get(root, "run")));
	json_decref(root);
	free(text);
}

static void test_graph_dot_mermaid(void **state)
{
	char err[512], *dot, *mm;

	(void)state;
	graph_load();
	assert_non_null(dot = graph_text(NULL, TOPO_GRAPH_DOT, err, sizeof(err)));
	assert_non_null(strstr(dot, "graph \"bgp\" {\n"));
	assert_non_null(strstr(dot, "\t\"t1\" [shape=box label=\"t1\\nrouter AS65001\"];\n"));
	assert_non_null(
	    strstr(dot, "\t\"t1\" -- \"a\" [label=\"eBGP AS65001-AS65101\" style=bold];\n"));
	assert_non_null(strstr(dot, "\t\"t1\" -- \"c1\" [label=\"\"];\n"));
	assert_non_null(strstr(dot, "t1>t2 delay=15ms loss=1%"));
	assert_string_equal(dot + strlen(dot) - 2, "}\n");
	assert_non_null(mm = graph_text(NULL, TOPO_GRAPH_MERMAID, err, sizeof(err)));
	assert_int_equal(strncmp(mm, "graph LR\n", 9), 0);
	assert_non_null(strstr(mm, "  n3((\"a<br/>site AS65101\"))\n"));
	assert_non_null(strstr(mm, "  n0 ===|\"eBGP AS65001-AS65101\"| n3\n"));
	assert_non_null(strstr(mm, "  n0 --- n6\n"));
	free(dot);
	free(mm);
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_non_null(fp = fopen(path, "w"));
	fputs(text, fp);
	fclose(fp);
}

static void test_graph_run(void **state)
{
	char err[1024], *dir = rundir_new("test_graph"), *text;
	json_t *root, *v;
	size_t i;
	int seen = 0;

	(void)state;
	assert_non_null(dir);
	graph_load();
	/* not a run directory */
	assert_null(graph_text(dir, TOPO_GRAPH_DOT, err, sizeof(err)));
	assert_non_null(strstr(err, "no clocks.json: not a run directory"));
	write_file(dir, "clocks.json",
		   "{\"schemes\": {\"anycast\": {\"fib\": {\"convergence_s\": 0.5, \"routers\": "
		   "{\"t1\": {\"changes\": 2, \"first_s\": 0.25, \"final_s\": 0.5, \"before\": "
		   "{\"site\": \"a\"}, \"after\": {\"site\": \"b\"}}}}, \"catchments\": {\"1\": "
		   "{\"node\": \"c1\", \"before\": {\"site\": \"a\"}, \"after\": {\"site\": "
		   "\"b\"}, \"moved\": true}}}}}");
	assert_non_null(text = graph_text(dir, TOPO_GRAPH_JSON, err, sizeof(err)));
	assert_non_null(root = json_loads(text, 0, NULL));
	json_array_foreach(json_object_get(root, "nodes"), i, v)
	{
		const char *name = json_string_value(json_object_get(v, "name"));
		json_t *c = json_object_get(v, "catchment"), *f = json_object_get(v, "fib");

		if (strcmp(name, "c1") == 0) {
			assert_string_equal(json_string_value(json_object_get(c, "before")), "a");
			assert_string_equal(json_string_value(json_object_get(c, "after")), "b");
			assert_true(json_is_true(json_object_get(c, "moved")));
			seen++;
		} else if (strcmp(name, "t1") == 0) {
			assert_int_equal(json_integer_value(json_object_get(f, "changes")), 2);
			assert_string_equal(json_string_value(json_object_get(f, "after")), "b");
			seen++;
		} else {
			assert_null(c);
			assert_null(f);
		}
	}
	assert_int_equal(seen, 2);
	json_decref(root);
	free(text);
	assert_non_null(text = graph_text(dir, TOPO_GRAPH_DOT, err, sizeof(err)));
	/* c1 filled with b's colour, drawn with a's */
	assert_non_null(strstr(text,
			       "catchment a -> b (moved)\" style=filled fillcolor=\"#f28e2b\" "
			       "color=\"#4e79a7\""));
	assert_non_null(strstr(text, "FIB: 2 changes at t0+0.250..0.500 s\\nroute a -> b"));
	free(text);
	/* a run of another topology */
	write_file(dir, "clocks.json",
		   "{\"schemes\": {\"anycast\": {\"fib\": {\"routers\": {\"core\": {}}}}}}");
	assert_null(graph_text(dir, TOPO_GRAPH_DOT, err, sizeof(err)));
	assert_non_null(strstr(err, "node core is not in /tmp/test_graph-bgp.ini"));
	rundir_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_graph_json),
	    cmocka_unit_test(test_graph_dot_mermaid),
	    cmocka_unit_test(test_graph_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
