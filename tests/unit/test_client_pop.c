/* The client population's pure parts: rate skews, phases, sticky
 * selection, the schedule (its ring and its heap), query ids, and the id
 * scheme. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "agents/client/pop.h"
#include "clocks.h"
#include "lab.h"
#include "timeutil.h"
#include "wire.h"

static void test_rates_parse(void **state)
{
	struct pop_rates r;

	(void)state;
	assert_int_equal(pop_rates_parse("equal", &r), 0);
	assert_int_equal(r.skew, POP_EQUAL);
	assert_int_equal(pop_rates_parse("harmonic", &r), 0);
	assert_int_equal(r.skew, POP_HARMONIC);
	assert_int_equal(pop_rates_parse("zipf:0.8", &r), 0);
	assert_int_equal(r.skew, POP_ZIPF);
	assert_true(fabs(r.exponent - 0.8) < 1e-12);
	assert_int_equal(pop_rates_parse("list:3,1,0.5", &r), 0);
	assert_int_equal(r.nweights, 3);
	assert_true(r.weights[2] == 0.5);
	assert_int_equal(pop_rates_parse("zipf:", &r), -1);
	assert_int_equal(pop_rates_parse("zipf:0", &r), -1);
	assert_int_equal(pop_rates_parse("zipf:1x", &r), -1);
	assert_int_equal(pop_rates_parse("list:1,,2", &r), -1);
	assert_int_equal(pop_rates_parse("list:1,-2", &r), -1);
	assert_int_equal(pop_rates_parse("uniform", &r), -1);
}

static void test_rates_skews(void **state)
{
	struct pop_rates r;
	double rate[100], sum = 0, h = 0;

	(void)state;
	/* harmonic: share of j is 1/(j+1) / H(n), and they add up */
	pop_rates_parse("harmonic", &r);
	pop_rates_fill(&r, 100, 1000, rate);
	for (int j = 0; j < 100; j++) {
		sum += rate[j];
		h += 1.0 / (j + 1);
	}
	assert_true(fabs(sum - 1000) < 1e-6);
	assert_true(fabs(rate[0] - 1000 / h) < 1e-9);
	assert_true(fabs(rate[0] / rate[9] - 10) < 1e-9);
	/* zipf 2: 1/(j+1)^2 */
	pop_rates_parse("zipf:2", &r);
	pop_rates_fill(&r, 100, 1000, rate);
	assert_true(fabs(rate[0] / rate[2] - 9) < 1e-9);
	/* equal */
	pop_rates_parse("equal", &r);
	pop_rates_fill(&r, 100, 1000, rate);
	assert_true(fabs(rate[0] - 10) < 1e-12 && fabs(rate[99] - 10) < 1e-12);
	/* a list, in turn: 3, 1, 3, 1 ... of 4 clients: 3/8 and 1/8 */
	pop_rates_parse("list:3,1", &r);
	pop_rates_fill(&r, 4, 80, rate);
	assert_true(fabs(rate[0] - 30) < 1e-9 && fabs(rate[1] - 10) < 1e-9);
	assert_true(fabs(rate[2] - 30) < 1e-9 && fabs(rate[3] - 10) < 1e-9);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* the phases of any first k clients cover [0, 1) evenly: no gap wider than
 * a few times 1/k (the golden-ratio sequence's three-gap theorem: at most
 * about 2.6 / k) */
static void test_phase_spread(void **state)
{
	static const uint32_t ks[] = {10, 100, 1000, 10000};

	(void)state;
	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		uint32_t k = ks[i];
		double *ph = malloc((k + 1) * sizeof(*ph)), widest = 0;

		for (uint32_t j = 0; j < k; j++) {
			ph[j] = i % 2 ? pop_hold_phase(j) : pop_phase(j);
			assert_true(ph[j] >= 0 && ph[j] < 1);
		}
		qsort(ph, k, sizeof(*ph), cmp_double);
		ph[k] = 1 + ph[0];
		for (uint32_t j = 0; j < k; j++)
			if (ph[j + 1] - ph[j] > widest)
				widest = ph[j + 1] - ph[j];
		assert_true(widest < 3.0 / k);
		free(ph);
	}
}

/* sticky_share q: floor(n q) of n clients, evenly spread (one in every
 * 1/q, never two together at q <= 1/2) */
static void test_sticky_selection(void **state)
{
	uint32_t n = 10000, count = 0, last = 0, first = 1;

	(void)state;
	for (uint32_t j = 0; j < n; j++) {
		if (!pop_sticky(j, 0.02))
			continue;
		if (!first)
			assert_int_equal(j - last, 50);
		first = 0;
		last = j;
		count++;
	}
	assert_int_equal(count, 200);
	count = 0;
	for (uint32_t j = 0; j < 1000; j++)
		count += (uint32_t)pop_sticky(j, 1);
	assert_int_equal(count, 1000);
	for (uint32_t j = 0; j < 1000; j++)
		assert_false(pop_sticky(j, 0));
	count = 0;
	for (uint32_t j = 0; j < 1000; j++)
		count += (uint32_t)pop_sticky(j, 0.333);
	assert_int_equal(count, 333);
}

/* paced: each client sends rate * duration requests, in time order, and
 * the aggregate is the total rate */
static void test_schedule_paced(void **state)
{
	struct pop p;
	struct pop_rates r;
	uint32_t n = 1000, *count = calloc(n, sizeof(*count));
	int64_t start = 1000 * NSEC_PER_SEC, dur = 10 * NSEC_PER_SEC, prev = 0, now;
	uint64_t total = 0;
	int64_t j;

	(void)state;
	pop_rates_parse("harmonic", &r);
	assert_int_equal(pop_init(&p, n, 5, &r, 10000, 0, 1), 0);
	pop_start(&p, start, dur);
	for (now = start; now < start + dur + NSEC_PER_SEC; now += NSEC_PER_MSEC) {
		while ((j = pop_due(&p, now)) >= 0) {
			count[j]++;
			total++;
		}
		assert_true(pop_next_ns(&p) > now);
		assert_true(pop_next_ns(&p) >= prev);
		prev = now;
	}
	assert_int_equal(pop_next_ns(&p), INT64_MAX); /* over */
	/* the aggregate within one request per client of rate * duration */
	assert_true(llabs((long long)total - 100000) <= (long long)n);
	for (uint32_t k = 0; k < n; k++) {
		double want = p.c[k].rate * 10;
		assert_true(fabs(count[k] - want) <= 1.0);
	}
	pop_free(&p);
	free(count);
}

/* Poisson: the aggregate near rate * duration (within 5 sigma), the same
 * seed the same arrivals, gaps of the right mean */
static void test_schedule_poisson(void **state)
{
	struct pop p, q;
	struct pop_rates r;
	int64_t start = NSEC_PER_SEC, dur = 10 * NSEC_PER_SEC;
	uint64_t total = 0;
	int64_t j, k;

	(void)state;
	pop_rates_parse("equal", &r);
	assert_int_equal(pop_init(&p, 100, 0, &r, 1000, 1, 42), 0);
	assert_int_equal(pop_init(&q, 100, 0, &r, 1000, 1, 42), 0);
	pop_start(&p, start, dur);
	pop_start(&q, start, dur);
	for (int64_t now = start; now <= start + dur; now += NSEC_PER_MSEC) {
		while ((j = pop_due(&p, now)) >= 0) {
			k = pop_due(&q, now);
			assert_int_equal(j, k);
			total++;
		}
	}
	assert_true(fabs((double)total - 10000) < 5 * sqrt(10000));
	pop_free(&p);
	pop_free(&q);
}

/* pop_schedule_check: pops p from start to end in steps of step_ns, and
 * checks that the requests come in the order of their due times, none
 * later than the step it is popped in, none due at or after the end, and
 * that paced clients keep their interval exactly; the requests popped */
static uint64_t pop_schedule_check(struct pop *p, int64_t start, int64_t end, int64_t step_ns,
				   int paced)
{
	int64_t *last = calloc(p->n, sizeof(*last)), prev = INT64_MIN, j;
	uint64_t total = 0;

	assert_non_null(last);
	for (int64_t now = start; now < end + NSEC_PER_SEC; now += step_ns) {
		for (;;) {
			int64_t due = pop_next_ns(p);

			if ((j = pop_due(p, now)) < 0)
				break;
			assert_true(due <= now);
			assert_true(due >= prev); /* in due order */
			assert_true(due >= start && due < end);
			if (paced && last[j])
				assert_int_equal(due - last[j], p->c[j].gap_ns);
			last[j] = due;
			prev = due;
			total++;
		}
		assert_true(pop_next_ns(p) > now);
	}
	assert_int_equal(pop_next_ns(p), INT64_MAX);
	assert_int_equal(p->nheap, 0);
	free(last);
	return total;
}

/* equal paced clients go round a ring in send order (O(1) a request); any
 * other schedule is a heap; each gives the requests in due order, and
 * paced ones exactly an interval apart, however coarse the steps */
static void test_schedule_ring_and_heap(void **state)
{
	static const struct {
		const char *skew;
		int poisson;
		uint32_t n;
		int ring;
	} cases[] = {
	    {"equal", 0, 1, 1},	     {"equal", 0, 7, 1},      {"equal", 0, 1000, 1},
	    {"equal", 0, 10000, 1},  {"list:3,1", 0, 100, 0}, {"harmonic", 0, 1000, 0},
	    {"zipf:1.5", 0, 333, 0}, {"equal", 1, 1000, 0},   {"harmonic", 1, 500, 0},
	};
	int64_t start = 5 * NSEC_PER_SEC, dur = 2 * NSEC_PER_SEC;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		static const int64_t steps[] = {NSEC_PER_MSEC / 10, 7 * NSEC_PER_MSEC,
						NSEC_PER_SEC};

		for (size_t k = 0; k < sizeof(steps) / sizeof(steps[0]); k++) {
			struct pop p;
			struct pop_rates r;
			uint64_t total;

			assert_int_equal(pop_rates_parse(cases[i].skew, &r), 0);
			assert_int_equal(
			    pop_init(&p, cases[i].n, 0, &r, 20000, cases[i].poisson, 3), 0);
			pop_start(&p, start, dur);
			assert_int_equal(p.ring != 0, cases[i].ring);
			total =
			    pop_schedule_check(&p, start, start + dur, steps[k], !cases[i].poisson);
			/* 20,000/s for 2 s: within one request a client, or
			 * Poisson's 5 sigma */
			if (cases[i].poisson)
				assert_true(fabs((double)total - 40000) < 5 * sqrt(40000));
			else
				assert_true(llabs((long long)total - 40000) <= cases[i].n);
			pop_free(&p);
		}
	}
}

/* the ring (equal) and the heap (harmonic) give the requests a plain scan
 * of every client's next due time gives, step by step */
static void test_schedule_as_scan(void **state)
{
	static const char *const skews[] = {"equal", "harmonic"};
	int64_t start = NSEC_PER_SEC, dur = NSEC_PER_SEC;
	uint32_t n = 500;

	(void)state;
	for (int k = 0; k < 2; k++) {
		struct pop p;
		struct pop_rates r;
		int64_t *next = calloc(n, sizeof(*next));

		assert_non_null(next);
		pop_rates_parse(skews[k], &r);
		assert_int_equal(pop_init(&p, n, 0, &r, 50000, 0, 1), 0);
		pop_start(&p, start, dur);
		assert_int_equal(p.ring != 0, k == 0);
		for (uint32_t j = 0; j < n; j++)
			next[j] = start + (int64_t)(pop_phase(j) * (double)p.c[j].gap_ns);
		for (int64_t now = start; now < start + dur + NSEC_PER_MSEC;
		     now += 50 * NSEC_PER_MSEC / 7) {
			/* a step's requests as a set (equal due times come in
			 * either order): how many, and a sum of their clients */
			uint64_t sp = 0, ss = 0, np = 0, ns = 0;
			int64_t j, first = INT64_MAX;

			while ((j = pop_due(&p, now)) >= 0) {
				sp += (uint64_t)j * (uint64_t)j + 1;
				np++;
			}
			for (uint32_t c = 0; c < n; c++) {
				while (next[c] <= now && next[c] < start + dur) {
					ss += (uint64_t)c * c + 1;
					ns++;
					next[c] += p.c[c].gap_ns;
				}
				if (next[c] < start + dur && next[c] < first)
					first = next[c];
			}
			assert_int_equal(np, ns);
			assert_true(sp == ss);
			assert_int_equal(pop_next_ns(&p), first);
		}
		pop_free(&p);
		free(next);
	}
}

static void test_dns_state(void **state)
{
	struct pop p;
	struct pop_rates r;
	struct in_addr a = {.s_addr = htonl(0xC6120001)};
	int64_t now = 50 * NSEC_PER_SEC, ttl = 30 * NSEC_PER_SEC, sticky = 600 * NSEC_PER_SEC;
	int64_t lo = INT64_MAX, hi = 0;
	int nsticky = 0, lookup;

	(void)state;
	pop_rates_parse("equal", &r);
	assert_int_equal(pop_init(&p, 1000, 0, &r, 1000, 0, 1), 0);
	assert_int_equal(pop_dns_init(&p, 3, NULL, 0.02, AF_INET), 0);
	assert_null(p.addr6);
	assert_null(p.c4);
	pop_dns_first(&p, 1, POP_LOOKUP, &a, ttl, sticky, now);
	for (uint32_t j = 0; j < 1000; j++) {
		const struct pop_client *c = &p.c[j];

		assert_int_equal(c->resolver, j % 3);
		if (c->resolver != 1) {
			assert_int_equal(c->addr.s_addr, 0); /* another resolver's */
			continue;
		}
		assert_int_equal(c->addr.s_addr, a.s_addr);
		assert_true(c->refresh_ns > now);
		if (c->flags & POP_F_STICKY) {
			nsticky++;
			assert_true(c->refresh_ns <= now + sticky);
			continue;
		}
		assert_true(c->refresh_ns <= now + ttl);
		if (c->refresh_ns < lo)
			lo = c->refresh_ns;
		if (c->refresh_ns > hi)
			hi = c->refresh_ns;
	}
	/* the first expiries spread over (nearly) a whole TTL */
	assert_true(lo - now < ttl / 50);
	assert_true(now + ttl - hi < ttl / 50);
	assert_true(nsticky >= 6 && nsticky <= 7); /* 20 of 1000, a third of them */
	/* query ids: taken, found, freed */
	assert_int_equal(pop_dns_take_qid(&p, 7, POP_LOOKUP, 100, now), 100);
	/* 100 is taken */
	assert_int_equal(pop_dns_take_qid(&p, 8, POP_LOOKUP, 100, now), 101);
	assert_int_equal(pop_dns_client(&p, 100, &lookup), 7);
	assert_int_equal(lookup, POP_LOOKUP);
	assert_int_equal(pop_dns_client(&p, 101, &lookup), 8);
	assert_int_equal(pop_dns_client(&p, 102, &lookup), -1);
	assert_int_equal(p.asking, 2);
	pop_dns_done(&p, 7, POP_LOOKUP);
	assert_int_equal(pop_dns_client(&p, 100, &lookup), -1);
	assert_false(p.c[7].flags & POP_F_ASKING);
	assert_int_equal(p.asking, 1);
	pop_free(&p);
}

/* the families: a population of family 6 holds each client's AAAA (its
 * own lookup, now of IPv6 addresses); a dual one the A beside it, a lookup
 * of its own (its hold, its query id), at the same resolver, both phases
 * spread alike; the query ids of the two lookups of one client told apart */
static void test_dns_families(void **state)
{
	struct pop p6, pd;
	struct pop_rates r;
	struct in6_addr a6, b6;
	struct in_addr a4 = {.s_addr = htonl(0xC6130101)}, b4 = {.s_addr = htonl(0xC6130102)};
	int64_t now = 50 * NSEC_PER_SEC, ttl = 30 * NSEC_PER_SEC;
	int lookup;

	(void)state;
	assert_int_equal(inet_pton(AF_INET6, "2001:2:0:ff01::1", &a6), 1);
	assert_int_equal(inet_pton(AF_INET6, "2001:2:0:ff01::2", &b6), 1);
	pop_rates_parse("equal", &r);
	assert_int_equal(pop_init(&p6, 100, 0, &r, 1000, 0, 1), 0);
	assert_int_equal(pop_dns_init(&p6, 2, NULL, 0, AF_INET6), 0);
	assert_non_null(p6.addr6);
	assert_null(p6.c4);
	assert_int_equal(pop_lookup_family(&p6, POP_LOOKUP), AF_INET6);
	pop_dns_first(&p6, 0, POP_LOOKUP, &a6, ttl, 0, now);
	for (uint32_t j = 0; j < 100; j++) {
		assert_memory_equal(&p6.addr6[j], j % 2 == 0 ? &a6 : &in6addr_any, 16);
		assert_int_equal(p6.c[j].addr.s_addr, 0); /* no A held */
		if (j % 2 == 0)
			assert_true(p6.c[j].refresh_ns > now && p6.c[j].refresh_ns <= now + ttl);
	}
	/* a change is told, the same address is not */
	assert_int_equal(pop_dns_set(&p6, 4, POP_LOOKUP, &a6), 0);
	assert_int_equal(pop_dns_set(&p6, 4, POP_LOOKUP, &b6), 1);
	assert_memory_equal(&p6.addr6[4], &b6, 16);
	assert_memory_equal(&p6.addr6[6], &a6, 16);
	pop_free(&p6);
	assert_null(p6.addr6);

	assert_int_equal(pop_init(&pd, 100, 0, &r, 1000, 0, 1), 0);
	assert_int_equal(pop_dns_init(&pd, 2, NULL, 0, AF_UNSPEC), 0);
	assert_non_null(pd.addr6);
	assert_non_null(pd.c4);
	assert_int_equal(pop_lookup_family(&pd, POP_LOOKUP), AF_INET6);
	assert_int_equal(pop_lookup_family(&pd, POP_LOOKUP_A), AF_INET);
	pop_dns_first(&pd, 1, POP_LOOKUP, &a6, ttl, 0, now);
	pop_dns_first(&pd, 1, POP_LOOKUP_A, &a4, ttl, 0, now);
	for (uint32_t j = 1; j < 100; j += 2) {
		assert_int_equal(pd.c4[j].resolver, pd.c[j].resolver);
		assert_memory_equal(&pd.addr6[j], &a6, 16);
		assert_int_equal(pd.c4[j].addr.s_addr, a4.s_addr);
		assert_int_equal(pd.c4[j].refresh_ns, pd.c[j].refresh_ns);
	}
	assert_int_equal(pop_dns_set(&pd, 3, POP_LOOKUP_A, &b4), 1);
	assert_int_equal(pd.c4[3].addr.s_addr, b4.s_addr);
	assert_memory_equal(&pd.addr6[3], &a6, 16); /* the AAAA's untouched */
	/* client 99 asks both at once: two ids, each found as its lookup */
	assert_int_equal(pop_dns_take_qid(&pd, 99, POP_LOOKUP, 7, now), 7);
	assert_int_equal(pop_dns_take_qid(&pd, 99, POP_LOOKUP_A, 7, now), 8);
	assert_true(pd.c[99].flags & POP_F_ASKING);
	assert_true(pd.c4[99].flags & POP_F_ASKING);
	assert_int_equal(pop_dns_client(&pd, 7, &lookup), 99);
	assert_int_equal(lookup, POP_LOOKUP);
	assert_int_equal(pop_dns_client(&pd, 8, &lookup), 99);
	assert_int_equal(lookup, POP_LOOKUP_A);
	assert_int_equal(pd.asking, 2);
	pop_dns_done(&pd, 99, POP_LOOKUP_A);
	assert_int_equal(pop_dns_client(&pd, 8, &lookup), -1);
	assert_false(pd.c4[99].flags & POP_F_ASKING);
	assert_true(pd.c[99].flags & POP_F_ASKING);
	assert_int_equal(pd.asking, 1);
	pop_free(&pd);
	assert_null(pd.c4);
}

/* weighted resolvers: the shares of any first k clients near the weights */
static void test_dns_weighted(void **state)
{
	static const double w[] = {3, 1, 1, 5};
	struct pop p;
	struct pop_rates r;
	uint32_t count[4] = {0};

	(void)state;
	pop_rates_parse("equal", &r);
	assert_int_equal(pop_init(&p, 10000, 0, &r, 1000, 0, 1), 0);
	assert_int_equal(pop_dns_init(&p, 4, w, 0, AF_INET), 0);
	for (uint32_t j = 0; j < 10000; j++) {
		count[p.c[j].resolver]++;
		if (j == 99) { /* the first 100 already within 3 of their share */
			assert_true(abs((int)count[0] - 30) <= 3 && abs((int)count[3] - 50) <= 3);
		}
	}
	assert_true(abs((int)count[0] - 3000) <= 5);
	assert_true(abs((int)count[1] - 1000) <= 5);
	assert_true(abs((int)count[2] - 1000) <= 5);
	assert_true(abs((int)count[3] - 5000) <= 5);
	pop_free(&p);
}

/* the id scheme: a population's ids tell the flow and the agent apart for
 * the collector, the clocks and the verdict, up to 8191 nodes of 131072 */
static void test_id_scheme(void **state)
{
	uint32_t any = LAB_POP_ID(1, 0), dns = LAB_POP_ID(1, 1), last = LAB_POP_ID(8191, 1);

	(void)state;
	assert_int_equal(clocks_scheme_of(any), CLOCKS_SCHEME_ANYCAST);
	assert_int_equal(clocks_scheme_of(any + 99999), CLOCKS_SCHEME_ANYCAST);
	assert_int_equal(clocks_scheme_of(any + WIRE_POP_INDEX_MASK), CLOCKS_SCHEME_ANYCAST);
	assert_int_equal(clocks_scheme_of(dns), CLOCKS_SCHEME_DNS);
	assert_int_equal(clocks_scheme_of(last + WIRE_POP_INDEX_MASK), CLOCKS_SCHEME_DNS);
	assert_int_equal(wire_agent_of(dns + 12345), dns);
	assert_int_equal(wire_agent_of(any + WIRE_POP_INDEX_MASK), any);
	assert_true(wire_agent_of(LAB_POP_ID(2, 1)) != dns);
	assert_true(last + WIRE_POP_INDEX_MASK == UINT32_MAX);
	/* the single clients' ids are unchanged */
	assert_int_equal(wire_agent_of(LAB_DNS_CLIENT_ID(3)), LAB_DNS_CLIENT_ID(3));
	assert_int_equal(clocks_scheme_of(3), CLOCKS_SCHEME_ANYCAST);
	assert_int_equal(clocks_scheme_of(LAB_DNS_CLIENT_ID(3)), CLOCKS_SCHEME_DNS);
	assert_int_equal(POP_MAX, WIRE_POP_INDEX_MASK + 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rates_parse),
	    cmocka_unit_test(test_rates_skews),
	    cmocka_unit_test(test_phase_spread),
	    cmocka_unit_test(test_sticky_selection),
	    cmocka_unit_test(test_schedule_paced),
	    cmocka_unit_test(test_schedule_poisson),
	    cmocka_unit_test(test_schedule_ring_and_heap),
	    cmocka_unit_test(test_schedule_as_scan),
	    cmocka_unit_test(test_dns_state),
	    cmocka_unit_test(test_dns_families),
	    cmocka_unit_test(test_dns_weighted),
	    cmocka_unit_test(test_id_scheme),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
