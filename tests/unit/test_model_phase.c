/*
 * Probers that do not coordinate (probe_phase = random; docs/topology.md,
 * "Probe phases"): the lab sets each such prober's cycle at an offset of
 * its own within its interval, drawn from the seed (topo_probe_offset_ns),
 * and the model follows: with a seed in the topology it knows the offsets,
 * without one it draws the phases. topology/compare.ini, static routing:
 * a's own prober probes every 100 ms and needs 3 failures of a refused
 * probe, the kill 3 s into the traffic.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model.h"
#include "topology.h"

static struct topology topo;
static struct model_input in;
static struct model_result res;
static struct model_notes notes;

static void load(char *const sets[], int nsets)
{
	char err[512];

	assert_int_equal(topo_load(&topo, "topology/compare.ini", sets, nsets, stderr), 0);
	assert_int_equal(model_from_topology(&topo, &in, &notes, err, sizeof(err)), 0);
	assert_int_equal(model_lab(&in, &res), 0);
}

/* no seed: each run draws its own, the model draws the phases: the
 * anycast detect anywhere in [2, 3) probe intervals after t0 */
static void test_drawn(void **state)
{
	char *sets[] = {"routing=static", "probe_phase=random"};
	const struct model_iv *d = &res.s[MODEL_ANYCAST].detect;

	(void)state;
	load(sets, 2);
	assert_true(in.site_probe.free_phase);
	assert_true(d->min >= 0.2 - 1e-9 && d->max <= 0.3 + 1e-9);
	assert_true(d->p95 - d->p5 > 0.08);
	/* start (the default): the phase t0 gives, 0.25 s */
	load(sets, 1);
	assert_false(in.site_probe.free_phase);
	assert_true(fabs(d->p5 - 0.25) < 1e-9 && fabs(d->p95 - 0.25) < 1e-9);
}

/* seed 7: a's prober's cycle off its interval's start by the offset the
 * lab draws; its probes at 3 s + off + (k + 1/2) x 100 ms: the third
 * failed one after t0 is detect */
static void test_seeded(void **state)
{
	char *sets[] = {"routing=static", "probe_phase=random", "seed=7"};
	const struct model_iv *d = &res.s[MODEL_ANYCAST].detect;
	int a;
	double off, first, want;

	(void)state;
	load(sets, 3);
	a = topo_find(&topo, "a");
	assert_true(a >= 0);
	off = (double)jitter_offset_ns(100000000, 7, JITTER_PROBER_INDEX + (unsigned)a) / 1e9;
	assert_true(fabs((double)topo_probe_offset_ns(&topo, a) / 1e9 - off) < 1e-12);
	assert_true(off > 0 && off < 0.1);
	/* the first probe at or after t0 = 3 s: off + (k + 1/2) 0.1 */
	first = off + (ceil((3 - off) / 0.1 - 0.5) + 0.5) * 0.1;
	want = first - 3 + 2 * 0.1;
	assert_false(in.site_probe.free_phase);
	assert_true(fabs(d->p5 - want) < 1e-9 && fabs(d->p95 - want) < 1e-9);
	/* measured (sudo steerlab run topology/compare.ini --set routing=static
	 * --set probe_phase=random --set seed=7): 0.2754 s, the model 0.275 */
	assert_true(fabs(want - 0.275) < 0.001);
}

/* what a topology says reads back */
static void test_print(void **state)
{
	char *sets[] = {"p1.probe_phase=random"};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_int_equal(topo_load(&topo, "topology/compare.ini", sets, 1, stderr), 0);
	assert_int_equal(topo.nodes[topo_find(&topo, "p1")].probe_phase, TOPO_PROBE_PHASE_RANDOM);
	assert_int_equal(topo.nodes[topo_find(&topo, "p2")].probe_phase, TOPO_PROBE_PHASE_START);
	topo_print(&topo, f);
	fclose(f);
	{
		char *p1 = strstr(buf, "[prober p1]"), *p2 = strstr(buf, "[prober p2]");

		assert_non_null(p1);
		assert_non_null(p2);
		/* p1's section has it, p2's (the lab's start) does not */
		*p2 = '\0';
		assert_non_null(strstr(p1, "\nprobe_phase = random\n"));
		*p2 = '[';
		assert_null(strstr(p2, "probe_phase"));
	}
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_drawn),
	    cmocka_unit_test(test_seeded),
	    cmocka_unit_test(test_print),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
