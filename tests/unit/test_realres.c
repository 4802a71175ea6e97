/*
 * Real resolvers on [resolver] nodes (lab/build/realres.h): each implementation's
 * configuration written from the node's knobs, compared with golden files
 * in tests/unit/data/realres/ (UPDATE_GOLDEN=1 writes one that differs to
 * FILE.new, read like code), in forward and iterate mode; the root hints; the
 * knobs an implementation cannot express, each an error at its line; a
 * real impl with count > 1; and the agent labels `down` accepts. Nothing
 * here runs a resolver (tests/integration/test_real_resolvers.sh does).
 * Run from the repository root.
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

#include "lab/build/lab.h"
#include "lab/build/realres.h"
#include "lab/topology/topology.h"
#include "test_topology_util.h"

#define RDATA "tests/unit/data/realres/"

/* conf_text: node's configuration for in, and its errors (both malloc'd) */
static int conf_text(const struct topology *t, int n, const struct realres_in *in, char **text,
		     char **errs)
{
	size_t len, elen;
	FILE *out = open_memstream(text, &len), *err = open_memstream(errs, &elen);
	int rc;

	assert_non_null(out);
	assert_non_null(err);
	rc = realres_write(t, n, in, out, err);
	fclose(out);
	fclose(err);
	return rc;
}

/* inputs: node's, its files under /run/steerlab/l/resolvers/NODE; with
 * iterate, the roots are the [dns] nodes */
static void inputs(const struct topology *t, int n, int iterate, struct realres_in *in)
{
	char dir[128];

	snprintf(dir, sizeof(dir), "/run/steerlab/l/resolvers/%s", t->nodes[n].name);
	assert_int_equal(realres_inputs(t, n, dir, in), 0);
	in->iterate = iterate;
}

static void test_realres_golden(void **state)
{
	static const char *const nodes[] = {"ru", "rk", "rb", "rd"};
	struct topology *t = new_topology();

	(void)state;
	load_ok(t, RDATA "lab.ini", NULL, 0);
	for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++) {
		for (int iterate = 0; iterate <= 1; iterate++) {
			int n = node_index(t, nodes[i]);
			char path[128], *text, *errs;
			struct realres_in in;

			inputs(t, n, iterate, &in);
			if (conf_text(t, n, &in, &text, &errs) != 0)
				fail_msg("%s: %s", nodes[i], errs);
			assert_string_equal(errs, "");
			snprintf(path, sizeof(path), RDATA "%s.%s.golden", nodes[i],
				 iterate ? "iterate" : "forward");
			test_assert_golden(path, text);
			free(text);
			free(errs);
		}
	}
	free(t);
}

/* what a user checks in them, whatever the golden files say */
static void test_realres_what_matters(void **state)
{
	struct topology *t = new_topology();
	char *text, *errs;
	struct realres_in in;
	int n;

	(void)state;
	load_ok(t, RDATA "lab.ini", NULL, 0);
	/* rd sets nothing: resolverd's defaults, written; forward to both */
	n = node_index(t, "rd");
	inputs(t, n, 0, &in);
	assert_int_equal(in.nservers, 2);
	assert_int_equal(conf_text(t, n, &in, &text, &errs), 0);
	assert_non_null(strstr(text, "\tinterface: 198.18.131.1@53\n"));
	assert_non_null(strstr(text, "\toutgoing-interface: 198.18.131.1\n"));
	assert_non_null(strstr(text, "\tcache-max-ttl: 86400\n"));
	assert_non_null(strstr(text, "\tcache-max-negative-ttl: 3600\n"));
	assert_non_null(strstr(text, "\tserve-expired: no\n"));
	assert_non_null(strstr(text, "\tmodule-config: \"iterator\"\n")); /* no validator */
	assert_non_null(strstr(text, "forward-addr: 198.18.0.10\n\tforward-addr: 198.18.0.14\n"));
	assert_null(strstr(text, "root.key"));
	free(text);
	free(errs);
	/* iterate: no forwarding, the hints name the lab's roots only */
	in.iterate = 1;
	assert_int_equal(conf_text(t, n, &in, &text, &errs), 0);
	assert_null(strstr(text, "forward-zone"));
	free(text);
	free(errs);
	/* bind9: the clamps as set, forwarders only, from its address */
	n = node_index(t, "rb");
	inputs(t, n, 0, &in);
	assert_int_equal(conf_text(t, n, &in, &text, &errs), 0);
	assert_non_null(strstr(text, "\tmin-cache-ttl 30;\n"));
	assert_non_null(strstr(text, "\tmax-ncache-ttl 600;\n"));
	assert_non_null(strstr(text, "\tstale-refresh-time 10;\n"));
	assert_non_null(strstr(text, "\tquery-source address 198.18.130.1;\n"));
	assert_non_null(strstr(text, "\tforward only;\n"));
	assert_non_null(strstr(text, "\tdnssec-validation no;\n"));
	free(text);
	free(errs);
	free(t);
}

static void test_realres_hints(void **state)
{
	struct topology *t = new_topology();
	struct realres_in in;
	char *text;
	size_t len;
	FILE *out;

	(void)state;
	load_ok(t, RDATA "lab.ini", NULL, 0);
	inputs(t, node_index(t, "ru"), 1, &in);
	assert_non_null(out = open_memstream(&text, &len));
	assert_int_equal(realres_write_hints(&in, out), 0);
	fclose(out);
	assert_string_equal(text, "; the lab's root servers (steerlab, docs/resolvers.md)\n"
				  ".\t3600000\tNS\tr1.lab-roots.\n"
				  ".\t3600000\tNS\tr2.lab-roots.\n"
				  "r1.lab-roots.\t3600000\tA\t198.18.0.10\n"
				  "r2.lab-roots.\t3600000\tA\t198.18.0.14\n");
	free(text);
	free(t);
}

/* every knob an implementation cannot express, at its line; the ones it
 * can (phase = 0%, ecs = no, spread over one cache) pass */
static void test_realres_knob_errors(void **state)
{
	struct topology *t = new_topology();
	char *all = NULL;
	size_t len;
	FILE *err = open_memstream(&all, &len);

	(void)state;
	assert_non_null(err);
	load_ok(t, RDATA "err.ini", NULL, 0);
	for (int n = 0; n < t->nnodes; n++) {
		char *text, *errs;
		struct realres_in in;
		int rc;

		if (t->nodes[n].kind != TOPO_RESOLVER)
			continue;
		inputs(t, n, 0, &in);
		rc = conf_text(t, n, &in, &text, &errs);
		assert_int_equal(rc, strcmp(t->nodes[n].name, "ok") == 0 ? 0 : -1);
		fputs(errs, err);
		free(text);
		free(errs);
	}
	fclose(err);
	test_assert_golden(RDATA "err.expected", all);
	assert_non_null(strstr(all, "err.ini:19: phase: unbound cannot express this ("));
	free(all);
	free(t);
}

static void test_realres_count(void **state)
{
	static const char text[] =
	    "[lab]\nname = l\n[router core]\n[site a]\nlink = core\n"
	    "[dns ns]\nlink = core\n[zone lab.example]\n"
	    "soa = ns hostmaster 1 3600 600 86400 30\n"
	    "[resolver r]\nlink = core\ncount = 4\nimpl = unbound\n[client c]\nlink = core\n";
	char path[64], want[512];

	(void)state;
	write_temp(path, text, strlen(text));
	snprintf(want, sizeof(want),
		 "%s:13: [resolver r] impl = unbound runs one cache per process: expected count "
		 "= 1 (one node per cache), got count = 4 (count: line 12; impl: line 13)\n",
		 path);
	expect_errors(path, NULL, 0, want);
	unlink(path);
}

static void test_realres_labels(void **state)
{
	(void)state;
	assert_string_equal(realres_prog_of_label("unbound"), "/usr/sbin/unbound");
	assert_string_equal(realres_prog_of_label("kresd"), "/usr/sbin/kresd");
	assert_string_equal(realres_prog_of_label("named"), "/usr/sbin/named");
	assert_null(realres_prog_of_label("named-x"));
	assert_null(realres_prog_of_label("resolverd"));
	/* agents.tsv: exactly these labels, whose program down checks */
	assert_string_equal(lab_agent_prog("unbound"), "unbound");
	assert_string_equal(lab_agent_prog("named"), "named");
	assert_null(lab_agent_prog("kresd-r"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_realres_golden), cmocka_unit_test(test_realres_what_matters),
	    cmocka_unit_test(test_realres_hints),  cmocka_unit_test(test_realres_knob_errors),
	    cmocka_unit_test(test_realres_count),  cmocka_unit_test(test_realres_labels),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
