/* user/util/addrmap.c against a plain sorted array, on random operations
 * and on the rising addresses an allocator hands out. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>

#include <cmocka.h>

#include "util/addrmap.h"

#define CAP 512

/* the reference: keys[0..n) sorted, vals alongside */
struct ref {
	uint64_t keys[CAP];
	uint32_t vals[CAP];
	size_t n;
};

static size_t ref_pos(const struct ref *r, uint64_t k)
{
	size_t i = 0;

	while (i < r->n && r->keys[i] < k)
		i++;
	return i;
}

static int ref_put(struct ref *r, uint64_t k, uint32_t v)
{
	size_t i = ref_pos(r, k);

	if (i < r->n && r->keys[i] == k) {
		r->vals[i] = v;
		return 0;
	}
	if (r->n == CAP)
		return -1;
	memmove(&r->keys[i + 1], &r->keys[i], (r->n - i) * sizeof(r->keys[0]));
	memmove(&r->vals[i + 1], &r->vals[i], (r->n - i) * sizeof(r->vals[0]));
	r->keys[i] = k;
	r->vals[i] = v;
	r->n++;
	return 0;
}

static bool ref_del(struct ref *r, uint64_t k)
{
	size_t i = ref_pos(r, k);

	if (i == r->n || r->keys[i] != k)
		return false;
	memmove(&r->keys[i], &r->keys[i + 1], (r->n - i - 1) * sizeof(r->keys[0]));
	memmove(&r->vals[i], &r->vals[i + 1], (r->n - i - 1) * sizeof(r->vals[0]));
	r->n--;
	return true;
}

static void check_floor(const struct vg_addrmap *m, const struct ref *r,
			uint64_t k)
{
	size_t i = ref_pos(r, k + 1);	/* first key > k */
	uint64_t key = 0;
	uint32_t *v = vg_addrmap_floor(m, k, &key);

	if (k == UINT64_MAX)
		i = r->n;
	if (i == 0) {
		assert_null(v);
		return;
	}
	assert_non_null(v);
	assert_int_equal(key, r->keys[i - 1]);
	assert_int_equal(*v, r->vals[i - 1]);
}

static void run_ops(uint64_t (*key_of)(unsigned, unsigned), unsigned seed)
{
	struct vg_addrmap *m = vg_addrmap_new(CAP, sizeof(uint32_t));
	struct ref *r = calloc(1, sizeof(*r));

	assert_non_null(m);
	srand(seed);
	for (unsigned op = 0; op < 20000; op++) {
		uint64_t k = key_of(op, (unsigned)rand());
		uint32_t v = (uint32_t)rand();
		int what = rand() % 10;

		if (what < 5) {
			assert_int_equal(vg_addrmap_put(m, k, &v), ref_put(r, k, v));
		} else if (what < 8) {
			/* a key that is there, most of the time */
			if (r->n && rand() % 4)
				k = r->keys[(size_t)rand() % r->n];
			assert_int_equal(vg_addrmap_del(m, k), ref_del(r, k));
		} else {
			uint32_t *got = vg_addrmap_get(m, k);
			size_t i = ref_pos(r, k);

			if (i < r->n && r->keys[i] == k)
				assert_true(got && *got == r->vals[i]);
			else
				assert_null(got);
		}
		assert_int_equal(vg_addrmap_count(m), r->n);
		check_floor(m, r, k);
		check_floor(m, r, k - 1);
		check_floor(m, r, k + 1000);
	}
	check_floor(m, r, 0);
	check_floor(m, r, UINT64_MAX);
	vg_addrmap_free(m);
	free(r);
}

static uint64_t random_key(unsigned op, unsigned rnd)
{
	(void)op;
	return 0x1000 + (uint64_t)(rnd % 4096) * 16;
}

/* a heap: addresses rising, reused after frees */
static uint64_t rising_key(unsigned op, unsigned rnd)
{
	return 0x555500000000ull + (uint64_t)(op / 2 - rnd % (op / 2 + 1)) * 48;
}

static void test_random(void **state)
{
	(void)state;
	run_ops(random_key, 1);
	run_ops(random_key, 2);
}

static void test_rising(void **state)
{
	(void)state;
	run_ops(rising_key, 3);
}

/* A full map refuses a new key and changes nothing; a key it has is
 * still replaced. */
static void test_full(void **state)
{
	struct vg_addrmap *m = vg_addrmap_new(4, sizeof(uint32_t));
	uint32_t v = 7, *got;

	(void)state;
	for (uint64_t k = 1; k <= 4; k++)
		assert_int_equal(vg_addrmap_put(m, k * 100, &v), 0);
	assert_int_equal(vg_addrmap_put(m, 50, &v), -1);
	assert_null(vg_addrmap_get(m, 50));
	v = 9;
	assert_int_equal(vg_addrmap_put(m, 300, &v), 0);
	got = vg_addrmap_floor(m, 399, NULL);
	assert_true(got && *got == 9);
	assert_true(vg_addrmap_del(m, 300));
	assert_int_equal(vg_addrmap_put(m, 50, &v), 0);
	assert_int_equal(vg_addrmap_count(m), 4);
	vg_addrmap_free(m);
}

/* 1M rising keys: a plain tree would be a list a million deep (and this
 * recursion would overflow the stack); the treap stays shallow. */
static void test_deep(void **state)
{
	size_t n = 1 << 20;
	struct vg_addrmap *m = vg_addrmap_new(n, sizeof(uint64_t));
	uint64_t k, *got;

	(void)state;
	assert_non_null(m);
	for (k = 0; k < n; k++)
		assert_int_equal(vg_addrmap_put(m, 0x10000 + k * 32, &k), 0);
	got = vg_addrmap_floor(m, 0x10000 + 5000 * 32 + 31, &k);
	assert_true(got && *got == 5000 && k == 0x10000 + 5000 * 32);
	for (k = 0; k < n; k += 2)
		assert_true(vg_addrmap_del(m, 0x10000 + k * 32));
	got = vg_addrmap_floor(m, 0x10000 + 5000 * 32 + 31, &k);
	assert_true(got && *got == 4999);
	vg_addrmap_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_rising),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_deep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
