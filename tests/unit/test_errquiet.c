/* What a program tells a memory checker not to report
 * (user/watchset/errquiet.h), with memcheck's semantics: the request
 * numbers are memcheck.h's and valgrind.h's own; error reporting off per
 * thread, nested, never below 0; ignored ranges set and cut (a length of
 * 0 is nothing), per address space; bytes made addressable until they
 * are freed or made unaddressable; the first byte of an access that is
 * not silenced; a register's piece partly quiet taken as quiet. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include <valgrind/memcheck.h>

#include "watchset/errquiet.h"
#include "vigil_creq.h"

static void req(struct vg_errquiet *q, uint64_t space, uint32_t tid,
		uint64_t r, uint64_t a1, uint64_t a2)
{
	uint64_t w[6] = { r, a1, a2, 0, 0, 0 };

	assert_true(vg_errquiet_request(q, space, tid, w));
}

static void test_numbers(void **state)
{
	(void)state;
	assert_int_equal(VG_CREQ_CHANGE_ERR_DISABLEMENT,
			 VG_USERREQ__CHANGE_ERR_DISABLEMENT);
	assert_int_equal(VG_CREQ_MAKE_MEM_NOACCESS,
			 VG_USERREQ__MAKE_MEM_NOACCESS);
	assert_int_equal(VG_CREQ_MAKE_MEM_UNDEFINED,
			 VG_USERREQ__MAKE_MEM_UNDEFINED);
	assert_int_equal(VG_CREQ_MAKE_MEM_DEFINED,
			 VG_USERREQ__MAKE_MEM_DEFINED);
	assert_int_equal(VG_CREQ_ENABLE_ADDR_ERRS_IN_RANGE,
			 VG_USERREQ__ENABLE_ADDR_ERROR_REPORTING_IN_RANGE);
	assert_int_equal(VG_CREQ_DISABLE_ADDR_ERRS_IN_RANGE,
			 VG_USERREQ__DISABLE_ADDR_ERROR_REPORTING_IN_RANGE);
	/* the probe sends these on, and not the leak requests with them */
	assert_true(VG_CREQ_ERRS_REQ(VG_USERREQ__MAKE_MEM_DEFINED));
	assert_false(VG_CREQ_ERRS_REQ(VG_USERREQ__DO_LEAK_CHECK));
	assert_false(VG_CREQ_ERRS_REQ(VG_USERREQ__RUNNING_ON_VALGRIND));
	assert_false(VG_CREQ_LEAK_REQ(VG_USERREQ__CHANGE_ERR_DISABLEMENT));
}

static void test_thread_levels(void **state)
{
	struct vg_errquiet *q = vg_errquiet_new();
	uint64_t other[6] = { VG_USERREQ__RUNNING_ON_VALGRIND };

	(void)state;
	assert_false(vg_errquiet_request(q, 1, 7, other));
	assert_false(vg_errquiet_thread_off(q, 7));
	req(q, 1, 7, VG_CREQ_CHANGE_ERR_DISABLEMENT, 1, 0);
	req(q, 1, 7, VG_CREQ_CHANGE_ERR_DISABLEMENT, 1, 0);
	assert_true(vg_errquiet_thread_off(q, 7));
	assert_false(vg_errquiet_thread_off(q, 8));	/* its own */
	req(q, 1, 7, VG_CREQ_CHANGE_ERR_DISABLEMENT, (uint64_t)-1, 0);
	assert_true(vg_errquiet_thread_off(q, 7));	/* level 1 */
	req(q, 1, 7, VG_CREQ_CHANGE_ERR_DISABLEMENT, (uint64_t)-1, 0);
	assert_false(vg_errquiet_thread_off(q, 7));
	/* not below 0: one DISABLE after two extra ENABLEs is off */
	req(q, 1, 7, VG_CREQ_CHANGE_ERR_DISABLEMENT, (uint64_t)-1, 0);
	req(q, 1, 7, VG_CREQ_CHANGE_ERR_DISABLEMENT, (uint64_t)-1, 0);
	req(q, 1, 7, VG_CREQ_CHANGE_ERR_DISABLEMENT, 1, 0);
	assert_true(vg_errquiet_thread_off(q, 7));
	assert_int_equal(vg_errquiet_threads_off(q), 1);
	vg_errquiet_free(q);
}

static void test_ignored_ranges(void **state)
{
	struct vg_errquiet *q = vg_errquiet_new();
	uint64_t at = 0;

	(void)state;
	req(q, 1, 7, VG_CREQ_DISABLE_ADDR_ERRS_IN_RANGE, 1000, 4000);
	req(q, 1, 7, VG_CREQ_DISABLE_ADDR_ERRS_IN_RANGE, 9000, 0);	/* nothing */
	assert_false(vg_errquiet_first_loud(q, 1, 1000, 5000, &at));
	assert_true(vg_errquiet_first_loud(q, 1, 4990, 5010, &at));
	assert_int_equal(at, 5000);
	assert_true(vg_errquiet_first_loud(q, 1, 9000, 9001, &at));
	/* another address space has none */
	assert_true(vg_errquiet_first_loud(q, 2, 1000, 1004, &at));
	assert_int_equal(at, 1000);
	/* one byte re-enabled in the middle: cut in two */
	req(q, 1, 7, VG_CREQ_ENABLE_ADDR_ERRS_IN_RANGE, 3156, 1);
	assert_int_equal(vg_errquiet_ignored_ranges(q), 2);
	assert_true(vg_errquiet_first_loud(q, 1, 3152, 3160, &at));
	assert_int_equal(at, 3156);
	assert_false(vg_errquiet_first_loud(q, 1, 1492, 1496, &at));
	/* a register's piece of 8: any quiet byte makes it quiet */
	assert_true(vg_errquiet_any_quiet(q, 1, 3152, 3160));
	assert_false(vg_errquiet_any_quiet(q, 1, 5000, 5008));
	assert_true(vg_errquiet_any_quiet(q, 1, 4996, 5004));
	/* set again over the gap and past the end: merged into one */
	req(q, 1, 7, VG_CREQ_DISABLE_ADDR_ERRS_IN_RANGE, 3000, 3000);
	assert_int_equal(vg_errquiet_ignored_ranges(q), 1);
	assert_false(vg_errquiet_first_loud(q, 1, 1000, 6000, &at));
	/* a free does not touch them: memcheck's ranges outlive blocks */
	vg_errquiet_freed(q, 1, 0, 10000);
	assert_false(vg_errquiet_first_loud(q, 1, 1000, 6000, &at));
	req(q, 1, 7, VG_CREQ_ENABLE_ADDR_ERRS_IN_RANGE, 0, 100000);
	assert_int_equal(vg_errquiet_ignored_ranges(q), 0);
	vg_errquiet_free(q);
}

static void test_addressable(void **state)
{
	struct vg_errquiet *q = vg_errquiet_new();
	uint64_t at = 0;

	(void)state;
	/* malloc_free_fill: a word of a freed block made defined */
	req(q, 1, 7, VG_CREQ_MAKE_MEM_DEFINED, 0x1014, 4);
	assert_false(vg_errquiet_first_loud(q, 1, 0x1014, 0x1018, &at));
	assert_true(vg_errquiet_first_loud(q, 1, 0x1010, 0x1018, &at));
	assert_int_equal(at, 0x1010);
	req(q, 1, 7, VG_CREQ_MAKE_MEM_UNDEFINED, 0x1010, 4);	/* joins */
	assert_false(vg_errquiet_first_loud(q, 1, 0x1010, 0x1018, &at));
	/* both kinds of quiet bytes, back to back */
	req(q, 1, 7, VG_CREQ_DISABLE_ADDR_ERRS_IN_RANGE, 0x1018, 8);
	assert_false(vg_errquiet_first_loud(q, 1, 0x1010, 0x1020, &at));
	assert_true(vg_errquiet_first_loud(q, 1, 0x1010, 0x1021, &at));
	assert_int_equal(at, 0x1020);
	/* freed again: its bytes are unaddressable again */
	vg_errquiet_freed(q, 1, 0x1000, 0x1016);
	assert_true(vg_errquiet_first_loud(q, 1, 0x1010, 0x1018, &at));
	assert_int_equal(at, 0x1010);
	assert_false(vg_errquiet_first_loud(q, 1, 0x1016, 0x1018, &at));
	req(q, 1, 7, VG_CREQ_MAKE_MEM_NOACCESS, 0x1016, 2);
	assert_true(vg_errquiet_first_loud(q, 1, 0x1016, 0x1018, &at));
	assert_int_equal(at, 0x1016);
	/* to the top of the address space, clipped */
	req(q, 1, 7, VG_CREQ_MAKE_MEM_DEFINED, UINT64_MAX - 4, 100);
	assert_false(vg_errquiet_first_loud(q, 1, UINT64_MAX - 4, UINT64_MAX,
					    &at));
	vg_errquiet_count(q);
	assert_int_equal(vg_errquiet_silenced(q), 1);
	vg_errquiet_free(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_thread_levels),
		cmocka_unit_test(test_ignored_ranges),
		cmocka_unit_test(test_addressable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
