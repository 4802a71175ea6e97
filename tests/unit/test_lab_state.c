/*
 * What `steerlab down` accepts from a lab's state directory (lab/lab.h):
 * namespace names of the lab's own form only, agents.tsv lines of the form
 * `up` writes, labels of steerlab's own agents. The rest is refused, since a
 * state file that was tampered with must not turn `down` against the
 * machine (issue 8).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lab/lab.h"

static void test_ns_valid(void **state)
{
	(void)state;
	assert_true(lab_ns_valid("l-x", "l-x-core"));
	assert_true(lab_ns_valid("l-x", "l-x-c1"));
	assert_true(lab_ns_valid("anycast", "anycast-a"));
	/* another lab's, or no lab's */
	assert_false(lab_ns_valid("l-x", "l-foreign"));
	assert_false(lab_ns_valid("l-x", "l-xy-core"));
	assert_false(lab_ns_valid("l-x", "l-x"));
	assert_false(lab_ns_valid("l-x", "l-x-"));
	/* paths */
	assert_false(lab_ns_valid("l-x", "../../tmp/victim"));
	assert_false(lab_ns_valid("l-x", "l-x-../../etc"));
	assert_false(lab_ns_valid("l-x", "l-x-a/b"));
	assert_false(lab_ns_valid("l-x", "l-x-.."));
	/* the node name charset and length */
	assert_false(lab_ns_valid("l-x", "l-x-Core"));
	assert_false(lab_ns_valid("l-x", "l-x-a b"));
	assert_false(lab_ns_valid("l-x", "l-x-abcdefghijklm"));
	assert_true(lab_ns_valid("l-x", "l-x-abcdefghijkl"));
	/* a lab name that is not one */
	assert_false(lab_ns_valid("", "-core"));
	assert_false(lab_ns_valid("../x", "../x-core"));
}

static void test_agent_prog(void **state)
{
	(void)state;
	assert_string_equal(lab_agent_prog("sited"), "sited");
	assert_string_equal(lab_agent_prog("client"), "client");
	assert_string_equal(lab_agent_prog("client-dns"), "client");
	assert_string_equal(lab_agent_prog("collector-dns"), "collector");
	assert_string_equal(lab_agent_prog("resolverd"), "resolverd");
	assert_null(lab_agent_prog("sleep"));
	assert_null(lab_agent_prog("sh"));
	assert_null(lab_agent_prog("clientx"));
	assert_null(lab_agent_prog("client-"));
	assert_null(lab_agent_prog("client-../x"));
	assert_null(lab_agent_prog(""));
	/* FRR's daemons: exactly these labels, their programs FRR's */
	assert_string_equal(lab_agent_prog("zebra"), "zebra");
	assert_string_equal(lab_agent_prog("bgpd"), "bgpd");
	assert_string_equal(lab_agent_prog("bfdd"), "bfdd");
	assert_null(lab_agent_prog("bgpd-x"));
	assert_null(lab_agent_prog("ospfd"));
	assert_string_equal(lab_frr_prog("zebra"), "/usr/lib/frr/zebra");
	assert_string_equal(lab_frr_prog("bgpd"), "/usr/lib/frr/bgpd");
	assert_string_equal(lab_frr_prog("bfdd"), "/usr/lib/frr/bfdd");
	assert_null(lab_frr_prog("routed"));
	assert_null(lab_frr_prog("sited"));
}

static void test_agent_line(void **state)
{
	struct lab_agent a;

	(void)state;
	assert_int_equal(lab_parse_agent_line("1234\t567890\tc1\tclient-dns\n", &a), 0);
	assert_int_equal(a.pid, 1234);
	assert_true(a.starttime == 567890ull);
	assert_string_equal(a.name, "client-dns");
	assert_int_equal(a.pidfd, -1);
	assert_int_equal(a.reaped, 0);
	assert_int_equal(lab_parse_agent_line("99\t1\tcore\trouted", &a), 0);
	assert_int_equal(lab_parse_agent_line("99\t1\tcore\tbgpd\n", &a), 0);
	assert_int_equal(lab_parse_agent_line("99\t1\tcore\tzebra-x\n", &a), -1);

	assert_int_equal(lab_parse_agent_line("garbage line\n", &a), -1);
	assert_int_equal(lab_parse_agent_line("1\t5\tc1\tclient\n", &a), -1);  /* init */
	assert_int_equal(lab_parse_agent_line("0\t5\tc1\tclient\n", &a), -1);  /* a group */
	assert_int_equal(lab_parse_agent_line("-5\t5\tc1\tclient\n", &a), -1); /* a group */
	assert_int_equal(lab_parse_agent_line("1234\t5\tc1\tsleep\n", &a), -1);
	assert_int_equal(lab_parse_agent_line("1234\t5\t../c1\tclient\n", &a), -1);
	assert_int_equal(lab_parse_agent_line("1234\t5\tc1\tclient\textra\n", &a), -1);
	assert_int_equal(lab_parse_agent_line("1234\tx\tc1\tclient\n", &a), -1);
	assert_int_equal(lab_parse_agent_line("1234\t5\tc1\n", &a), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ns_valid),
	    cmocka_unit_test(test_agent_prog),
	    cmocka_unit_test(test_agent_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
