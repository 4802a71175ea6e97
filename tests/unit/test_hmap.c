/*
 * lib/hmap: records found by key among many, several under one hash (the
 * lookup tells them apart), removed from the middle of a chain, the table
 * growing past one node per bucket with every record still found, and a
 * record in two tables at once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "hmap.h"

struct rec {
	int key;
	struct hmap_node node, other;
};

/* find: the record of key in m, under hash h */
static struct rec *find(const struct hmap *m, uint32_t h, int key)
{
	for (struct hmap_node *n = hmap_first(m, h); n; n = hmap_next(n)) {
		struct rec *r = HMAP_ENTRY(n, struct rec, node);

		if (r->key == key)
			return r;
	}
	return NULL;
}

static void test_collisions(void **state)
{
	struct rec r[5];
	struct hmap m;

	(void)state;
	assert_int_equal(hmap_init(&m, 1), 0);
	assert_int_equal(m.nbuckets, 16);
	/* 0, 1, 2 under hash 7; 3 under 7 + 16 (same bucket, another hash); 4
	 * under 8 */
	for (int i = 0; i < 5; i++) {
		r[i].key = i;
		hmap_insert(&m, &r[i].node, i < 3 ? 7 : i == 3 ? 7 + 16 : 8);
	}
	assert_int_equal(m.count, 5);
	for (int i = 0; i < 3; i++)
		assert_ptr_equal(find(&m, 7, i), &r[i]);
	assert_ptr_equal(find(&m, 23, 3), &r[3]);
	assert_null(find(&m, 7, 3)); /* same bucket, not the same hash */
	assert_ptr_equal(find(&m, 8, 4), &r[4]);
	assert_null(find(&m, 9, 4));
	/* out of the middle of the chain */
	hmap_remove(&m, &r[1].node);
	assert_int_equal(m.count, 4);
	assert_null(find(&m, 7, 1));
	assert_ptr_equal(find(&m, 7, 0), &r[0]);
	assert_ptr_equal(find(&m, 7, 2), &r[2]);
	assert_ptr_equal(find(&m, 23, 3), &r[3]);
	hmap_free(&m);
	assert_null(m.buckets);
}

static void test_grow(void **state)
{
	enum { N = 5000 };
	static struct rec r[N];
	struct hmap m, by_other;

	(void)state;
	assert_int_equal(hmap_init(&m, 16), 0);
	assert_int_equal(hmap_init(&by_other, 16), 0);
	for (int i = 0; i < N; i++) {
		r[i].key = i;
		hmap_insert(&m, &r[i].node, hmap_fnv1a(HMAP_FNV1A_INIT, &i, sizeof(i)));
		hmap_insert(&by_other, &r[i].other, (uint32_t)(N - i));
	}
	assert_true(m.nbuckets >= N);
	assert_true((m.nbuckets & (m.nbuckets - 1)) == 0);
	for (int i = 0; i < N; i++) {
		struct hmap_node *n = hmap_first(&by_other, (uint32_t)(N - i));

		assert_ptr_equal(find(&m, hmap_fnv1a(HMAP_FNV1A_INIT, &i, sizeof(i)), i), &r[i]);
		assert_non_null(n);
		assert_ptr_equal(HMAP_ENTRY(n, struct rec, other), &r[i]);
	}
	for (int i = 0; i < N; i += 2)
		hmap_remove(&m, &r[i].node);
	assert_int_equal(m.count, N / 2);
	for (int i = 0; i < N; i++)
		assert_true((find(&m, hmap_fnv1a(HMAP_FNV1A_INIT, &i, sizeof(i)), i) != NULL) ==
			    (i % 2 == 1));
	hmap_free(&m);
	hmap_free(&by_other);
}

static void test_fnv1a(void **state)
{
	(void)state;
	/* FNV-1a 32's published values */
	assert_int_equal(hmap_fnv1a(HMAP_FNV1A_INIT, "", 0), 0x811c9dc5u);
	assert_int_equal(hmap_fnv1a(HMAP_FNV1A_INIT, "a", 1), 0xe40c292cu);
	assert_int_equal(hmap_fnv1a(HMAP_FNV1A_INIT, "foobar", 6), 0xbf9cf968u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_collisions),
	    cmocka_unit_test(test_grow),
	    cmocka_unit_test(test_fnv1a),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
