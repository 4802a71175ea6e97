/*
 * linkd's delay line without the kernel (agents/linkd/dline.c): the heap
 * releases by time, and in arrival order at equal times; a flow's packets
 * keep their order under jitter, different flows do not wait for each
 * other; reorder sends at once; loss is drawn and counted; the flow hash
 * reads addresses, protocol and ports.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "agents/linkd/dline.h"

static void test_dline_heap_order(void **state)
{
	struct dline_heap h = {0};
	struct dline_pkt p, prev = {.release_ns = -1};
	uint64_t seed = 12345;
	const int n = 20000;

	(void)state;
	assert_null(dline_heap_peek(&h));
	assert_int_equal(dline_heap_pop(&h, &p), -1);
	for (int i = 0; i < n; i++) {
		/* times in a narrow range, so that many are equal */
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		assert_int_equal(dline_heap_push(&h, (int64_t)(seed >> 33) % 500, (uint32_t)i, 0),
				 0);
	}
	for (int i = 0; i < n; i++) {
		assert_int_equal(dline_heap_pop(&h, &p), 0);
		assert_true(p.release_ns > prev.release_ns ||
			    (p.release_ns == prev.release_ns && p.seq > prev.seq));
		/* equal times: arrival order, which is the id order here */
		if (p.release_ns == prev.release_ns)
			assert_true(p.id > prev.id);
		prev = p;
	}
	assert_null(dline_heap_peek(&h));
	dline_heap_free(&h);
}

/* a UDP/IPv4 packet from 198.18.0.1 to 198.18.0.2, ports sport, dport */
static void udp4(uint8_t *pkt, uint16_t sport, uint16_t dport, uint8_t fill)
{
	memset(pkt, fill, 64);
	pkt[0] = 0x45;
	pkt[6] = pkt[7] = 0;
	pkt[9] = 17;
	memcpy(pkt + 12, (uint8_t[]){198, 18, 0, 1, 198, 18, 0, 2}, 8);
	pkt[20] = (uint8_t)(sport >> 8);
	pkt[21] = (uint8_t)sport;
	pkt[22] = (uint8_t)(dport >> 8);
	pkt[23] = (uint8_t)dport;
}

static void test_dline_flow_hash(void **state)
{
	uint8_t a[64], b[64];

	(void)state;
	udp4(a, 4000, 7000, 0);
	udp4(b, 4000, 7000, 0xee);
	/* the payload is not the flow */
	assert_int_equal(dline_flow_hash(a, 64), dline_flow_hash(b, 64));
	udp4(b, 4000, 7001, 0);
	assert_int_not_equal(dline_flow_hash(a, 64), dline_flow_hash(b, 64));
	udp4(b, 4001, 7000, 0);
	assert_int_not_equal(dline_flow_hash(a, 64), dline_flow_hash(b, 64));
	/* ports cut off: the addresses alone */
	assert_int_equal(dline_flow_hash(a, 20), dline_flow_hash(b, 20));
	assert_int_equal(dline_flow_hash(a, 0), 0);
}

/* one flow under jitter: never released before its predecessor; two flows:
 * the second is not held behind the first */
static void test_dline_flow_order(void **state)
{
	static struct dline_link l;
	struct impair im = {.delay_ns = 10000000, .jitter_ns = 5000000};
	int64_t last = 0, r, t = 0, below = 0;

	(void)state;
	dline_link_init(&l, "veth0", 3, &im, 9);
	for (int i = 0; i < 10000; i++, t += 10000) {
		assert_int_equal(dline_decide(&l, t, 1, &r), DLINE_RELEASE);
		assert_true(r >= last);
		assert_true(r >= t + 5000000);
		last = r;
	}
	/* the other flow, arriving last, gets its own draw: often earlier */
	for (int i = 0; i < 100; i++) {
		assert_int_equal(dline_decide(&l, t, 2 + (uint32_t)i, &r), DLINE_RELEASE);
		below += r < last;
	}
	assert_true(below > 50);
	assert_int_equal(l.counts.queued, 10100);
	assert_int_equal(l.counts.dropped, 0);
}

static void test_dline_loss_reorder(void **state)
{
	static struct dline_link l;
	struct impair im = {.delay_ns = 10000000, .loss_pct = 10, .reorder_pct = 20};
	int64_t r;
	int dropped = 0, at_once = 0;
	const int n = 100000;

	(void)state;
	dline_link_init(&l, "veth0", 0, &im, 5);
	for (int i = 0; i < n; i++) {
		if (dline_decide(&l, 1000 * (int64_t)i, 7, &r) == DLINE_DROP) {
			dropped++;
			continue;
		}
		if (r == 1000 * (int64_t)i)
			at_once++;
		else
			assert_int_equal(r, 1000 * (int64_t)i + 10000000);
	}
	assert_int_equal(l.counts.dropped, dropped);
	assert_int_equal(l.counts.reordered, at_once);
	/* 10 % lost; 20 % of the rest at once */
	assert_true(abs(dropped - n / 10) < 300);
	assert_true(abs(at_once - (n - dropped) / 5) < 400);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dline_heap_order),
	    cmocka_unit_test(test_dline_flow_hash),
	    cmocka_unit_test(test_dline_flow_order),
	    cmocka_unit_test(test_dline_loss_reorder),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
