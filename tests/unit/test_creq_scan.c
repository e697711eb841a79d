/* Finding valgrind's client requests in code (user/sym/creq_scan.h): the
 * preamble and its xchg %rbx,%rbx anywhere in a buffer, at its ends too;
 * not a preamble cut short, nor one followed by another magic xchg
 * (valgrind's %rcx, %rdx and %rdi ones are no client request); the count
 * when the output is too small; and in a real executable, this test's
 * own, which makes exactly one request (memcheck.h's own macro, never
 * run) in its code. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <valgrind/memcheck.h>

#include "sym/creq_scan.h"
#include "vigil_creq.h"

static const uint8_t pre[] = VG_CREQ_PREAMBLE;
static const uint8_t xchg[] = VG_CREQ_XCHG;

/* a request at off: 16 + 3 bytes */
static void put_request(uint8_t *buf, size_t off)
{
	memcpy(buf + off, pre, sizeof(pre));
	memcpy(buf + off + sizeof(pre), xchg, sizeof(xchg));
}

static void test_buffer(void **state)
{
	uint8_t buf[256];
	uint64_t out[8];

	(void)state;
	memset(buf, 0x90, sizeof(buf));	/* nops */
	put_request(buf, 0);
	put_request(buf, 40);
	/* a preamble cut short, and one with xchg %rcx,%rcx after it */
	memcpy(buf + 80, pre, 12);
	memcpy(buf + 120, pre, sizeof(pre));
	buf[136] = 0x48, buf[137] = 0x87, buf[138] = 0xc9;
	put_request(buf, sizeof(buf) - 19);	/* ends the buffer */
	assert_int_equal(vg_creq_scan_buf(buf, sizeof(buf), 0x1000, out, 8), 3);
	assert_int_equal(out[0], 0x1000 + 16);
	assert_int_equal(out[1], 0x1000 + 40 + 16);
	assert_int_equal(out[2], 0x1000 + sizeof(buf) - 3);
	/* too small an output: the count all the same, the first ones in */
	out[1] = 0;
	assert_int_equal(vg_creq_scan_buf(buf, sizeof(buf), 0, out, 1), 3);
	assert_int_equal(out[0], 16);
	assert_int_equal(out[1], 0);
	/* cut one byte short of the last xchg: two */
	assert_int_equal(vg_creq_scan_buf(buf, sizeof(buf) - 1, 0, out, 8), 2);
	/* shorter than one request, or empty */
	assert_int_equal(vg_creq_scan_buf(buf, 18, 0, out, 8), 0);
	assert_int_equal(vg_creq_scan_buf(buf, 0, 0, out, 8), 0);
}

/* never called: it puts one client request in this executable's code */
__attribute__((noinline, used)) static void one_request(void)
{
	VALGRIND_DO_LEAK_CHECK;
}

static void test_file(void **state)
{
	uint64_t *off = NULL;
	size_t n = 0;
	struct vg_err e = { 0 };
	uint8_t got[19];
	FILE *f;

	(void)state;
	(void)one_request;
	assert_int_equal(vg_creq_scan_file("/proc/self/exe", &off, &n, &e), 0);
	assert_int_equal(n, 1);
	/* the file has the preamble, then the xchg, where it says */
	f = fopen("/proc/self/exe", "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, (long)off[0] - 16, SEEK_SET), 0);
	assert_int_equal(fread(got, 1, sizeof(got), f), sizeof(got));
	fclose(f);
	assert_memory_equal(got, pre, sizeof(pre));
	assert_memory_equal(got + 16, xchg, sizeof(xchg));
	free(off);

	/* not an ELF file: an error naming it */
	assert_int_equal(vg_creq_scan_file("/proc/self/status", &off, &n, &e),
			 -1);
	assert_non_null(strstr(e.msg, "/proc/self/status"));
	assert_null(off);
	assert_int_equal(n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buffer),
		cmocka_unit_test(test_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
