/* Unit tests for the small modules the live path relies on: value
 * formatting and JSON escaping (report/, util/), process control (proc/)
 * and ELF symbol lookup (sym/elf.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "act/gdb.h"
#include "plan/placement.h"
#include "proc/proc.h"
#include "report/report.h"
#include "sym/elf.h"
#include "util/json.h"

static void test_format_value(void **state)
{
	char buf[64];

	vg_format_value(NULL, VG_TYPE_PTR, 0x1234abcdULL, buf, sizeof(buf));
	assert_string_equal(buf, "0x1234abcd");
	vg_format_value(NULL, VG_TYPE_INT, (uint64_t)-5, buf, sizeof(buf));
	assert_string_equal(buf, "-5");
	vg_format_value(NULL, VG_TYPE_UINT, UINT64_MAX, buf, sizeof(buf));
	assert_string_equal(buf, "18446744073709551615");
	vg_format_value(NULL, VG_TYPE_BOOL, 2, buf, sizeof(buf));
	assert_string_equal(buf, "true");
	vg_format_value(NULL, VG_TYPE_BOOL, 0, buf, sizeof(buf));
	assert_string_equal(buf, "false");
}

static char *json_of(void (*fn)(FILE *, const char *), const char *s)
{
	static char out[256];
	FILE *f = fmemopen(out, sizeof(out), "w");

	fn(f, s);
	fclose(f);
	return out;
}

static void json_str_wrap(FILE *f, const char *s)
{
	vg_json_str(f, s);
}

static void json_ptr_wrap(FILE *f, const char *s)
{
	vg_json_value(f, VG_TYPE_PTR, s);
}

static void json_int_wrap(FILE *f, const char *s)
{
	vg_json_value(f, VG_TYPE_INT, s);
}

static void test_json_escape(void **state)
{
	assert_string_equal(json_of(json_str_wrap, "a\"b\\c\n\x01"),
			    "\"a\\\"b\\\\c\\n\\u0001\"");
	assert_string_equal(json_of(json_ptr_wrap, "0x10"), "\"0x10\"");
	assert_string_equal(json_of(json_int_wrap, "-7"), "-7");
}

static void test_json_file_private(void **state)
{
	char path[] = "/tmp/vigil-test-XXXXXX";
	int fd = mkstemp(path);
	struct vg_err e = { 0 };
	struct stat st;
	FILE *f;

	close(fd);
	unlink(path);
	f = vg_json_open(path, &e);
	assert_non_null(f);
	fclose(f);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	unlink(path);
}

static void test_spawn_stopped(void **state)
{
	char *argv[] = { "/bin/true", NULL };
	struct vg_err e = { 0 };
	int code = -2, sig = -2, r;
	pid_t pid = vg_proc_spawn_stopped("/bin/true", argv, false, &e);

	assert_true(pid > 0);
	assert_true(vg_proc_is_stopped(pid));
	/* it is in its own session, so vigil's exit cannot SIGHUP it */
	assert_int_equal(getsid(pid), pid);
	assert_int_equal(vg_proc_release(pid, &e), 0);
	for (int i = 0; i < 500; i++) {
		r = vg_proc_reap(pid, &code, &sig);
		if (r)
			break;
		usleep(2000);
	}
	assert_int_equal(r, 1);
	assert_int_equal(code, 0);
	assert_int_equal(sig, 0);
}

static void test_spawn_exec_failure(void **state)
{
	char *argv[] = { "/nonexistent/prog", NULL };
	struct vg_err e = { 0 };
	int code = 0, sig = 0, r = 0;
	pid_t pid = vg_proc_spawn_stopped("/nonexistent/prog", argv, false,
					  &e);

	assert_true(pid > 0);
	vg_proc_release(pid, &e);
	for (int i = 0; i < 500 && !r; i++) {
		r = vg_proc_reap(pid, &code, &sig);
		usleep(2000);
	}
	assert_int_equal(r, 1);
	assert_int_equal(code, 127);
}

static void test_gdb_prepare(void **state)
{
	char cmd[4096], path[4096], text[4096];
	struct vg_err e = { 0 };
	struct stat st;
	FILE *f;
	size_t n;

	assert_int_equal(vg_gdb_prepare(4242, 4243, "VIOLATION of \"p\"",
					cmd, sizeof(cmd), &e), 0);
	assert_int_equal(sscanf(cmd, "gdb -p 4242 -x %4095s", path), 1);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = 0;
	fclose(f);
	assert_non_null(strstr(text, "handle SIGCONT nostop noprint pass\n"));
	assert_non_null(strstr(text, "shell kill -CONT 4242\n"));
	assert_non_null(strstr(text, "t.ptid[1] == 4243"));
	assert_non_null(strstr(text, "VIOLATION of \\\"p\\\""));
	unlink(path);
}

static void test_elf_find_func(void **state)
{
	struct vg_func fn;
	struct vg_err e = { 0 };
	const char *bin = getenv("VIGIL_TEST_QUEUE");
	char path[4096];

	if (!bin) {	/* the Makefile's BUILD (build-san for SANITIZE=1) */
		snprintf(path, sizeof(path), "%s/targets/queue",
			 getenv("BUILD") ? getenv("BUILD") : "build");
		bin = path;
	}
	assert_int_equal(vg_elf_find_func(bin, "queue_push", &fn, &e), 0);
	assert_true(fn.size > 0);
	assert_true(fn.offset > 0);
	/* a PIE's first segment maps file offset 0 at vaddr 0 */
	assert_int_equal(fn.offset, fn.addr);

	assert_int_equal(vg_elf_find_func(bin, "queue_pushx", &fn, &e), -1);
	assert_non_null(strstr(e.msg, "queue_pushx"));
	assert_non_null(strstr(e.msg, bin));
	assert_int_equal(e.exit_code, VG_EXIT_USAGE);

	/* a function only in .dynsym */
	assert_int_equal(vg_elf_find_func("/lib/x86_64-linux-gnu/libc.so.6",
					  "malloc", &fn, &e), 0);
	assert_true(fn.offset > 0);
}

static void test_placement(void **state)
{
	/* glibc's free: test %rdi,%rdi; je ...: moves to the je */
	static const uint8_t free_start[] = { 0x48, 0x85, 0xff, 0x0f, 0x84,
					      0xbf, 0, 0, 0, 0x55 };
	/* endbr64; push %rbp */
	static const uint8_t cet[] = { 0xf3, 0x0f, 0x1e, 0xfa, 0x55 };
	/* push %rbp at once: stays */
	static const uint8_t push[] = { 0x55, 0x48, 0x89, 0xe5 };
	/* lea -0x10(%rdi),%rsi: writes a register, must stay */
	static const uint8_t lea[] = { 0x48, 0x8d, 0x77, 0xf0, 0x55 };
	/* test %rdi,%rdi; ret: ret is not emulated here, stays */
	static const uint8_t test_ret[] = { 0x48, 0x85, 0xff, 0xc3 };
	/* cmp (%rdi),%eax reads memory operand form 3b /r mod 00: stays */
	static const uint8_t cmp_mem[] = { 0x3b, 0x07, 0x55 };
	struct vg_placement pl;

	vg_place_bytes(free_start, sizeof(free_start), 0x1000, VG_PLACE_ARG_REGS, &pl);
	assert_int_equal(pl.offset, 0x1003);
	assert_int_equal(pl.skipped, 1);
	assert_true(pl.emulated);
	vg_place_bytes(cet, sizeof(cet), 0x2000, VG_PLACE_ARG_REGS, &pl);
	assert_int_equal(pl.offset, 0x2004);
	assert_string_equal(pl.insn, "push %rbp");
	vg_place_bytes(push, sizeof(push), 0x3000, VG_PLACE_ARG_REGS, &pl);
	assert_int_equal(pl.offset, 0x3000);
	assert_int_equal(pl.skipped, 0);
	assert_true(pl.emulated);
	vg_place_bytes(lea, sizeof(lea), 0x4000, VG_PLACE_ARG_REGS, &pl);
	assert_int_equal(pl.offset, 0x4000);
	assert_false(pl.emulated);
	vg_place_bytes(test_ret, sizeof(test_ret), 0x5000, VG_PLACE_ARG_REGS, &pl);
	assert_int_equal(pl.offset, 0x5000);
	assert_false(pl.emulated);
	vg_place_bytes(cmp_mem, sizeof(cmp_mem), 0x6000, VG_PLACE_ARG_REGS, &pl);
	assert_int_equal(pl.offset, 0x6000);
	assert_false(pl.emulated);
}

/* register writes the probe does not read (Debian 12's libc and libz) */
static void test_placement_writes(void **state)
{
	/* pthread_mutex_lock: mov 0x10(%rdi),%eax; mov %eax,%edx;
	 * and $0x17f,%edx; and $0x7c,%eax; jne rel32 */
	static const uint8_t lock[] = { 0x8b, 0x47, 0x10, 0x89, 0xc2, 0x81,
					0xe2, 0x7f, 0x01, 0, 0, 0x83, 0xe0,
					0x7c, 0x0f, 0x85, 0xac, 0, 0, 0 };
	/* inflateInit_ (libz.so.1+0xc130): mov %edx,%ecx; mov %rsi,%rdx;
	 * mov $0xf,%esi; jmp inflateInit2_@plt (at 0x32c0): a tail call */
	static const uint8_t tail[] = { 0x89, 0xd1, 0x48, 0x89, 0xf2, 0xbe,
					0x0f, 0, 0, 0, 0xe9, 0x81, 0x71,
					0xff, 0xff };
	/* pthread_mutex_unlock (libc.so.6+0x8dd50): mov $0x1,%esi;
	 * jmp __pthread_mutex_unlock_usercnt (at 0x8dc50) */
	static const uint8_t unlock[] = { 0xbe, 1, 0, 0, 0, 0xe9, 0xf6, 0xfe,
					  0xff, 0xff };
	/* the same movs before a push: %rdx is read, then overwritten, so
	 * running them again (a rewound stop) would not give %ecx again */
	static const uint8_t redo[] = { 0x89, 0xd1, 0x48, 0x89, 0xf2, 0x55 };
	/* mov %rdi,%rbx; push %rbp: %rbx is the caller's */
	static const uint8_t callee[] = { 0x48, 0x89, 0xfb, 0x55 };
	/* mov 0x8(%rip),%rax; xor %ecx,%ecx; push %r15 */
	static const uint8_t rip[] = { 0x48, 0x8b, 0x05, 8, 0, 0, 0, 0x31,
				       0xc9, 0x41, 0x57 };
	struct vg_placement pl;
	unsigned m = vg_place_arg_regs(1);

	assert_int_equal(m, (1u << 7) | (1u << 6));	/* rdi, rsi */
	assert_int_equal(vg_place_arg_regs(3), VG_PLACE_ARG_REGS);
	vg_place_bytes(lock, sizeof(lock), 0x1000, m, &pl);
	assert_int_equal(pl.offset, 0x100e);
	assert_int_equal(pl.skipped, 4);
	assert_true(pl.emulated);
	assert_string_equal(pl.insn, "jcc rel32");
	/* a probe reading %rdx (the third argument) keeps the entry */
	vg_place_bytes(lock, sizeof(lock), 0x1000, m | 1u << 2, &pl);
	assert_int_equal(pl.offset, 0x1000);
	assert_false(pl.emulated);
	/* a probe reading only %rdi goes on inflateInit_'s jmp, which the
	 * kernel emulates; a stop lands at the jmp's target, and the movs
	 * would not redo: no rewind */
	vg_place_bytes(tail, sizeof(tail), 0xc130, 1u << 7, &pl);
	assert_int_equal(pl.offset, 0xc13a);
	assert_int_equal(pl.skipped, 3);
	assert_true(pl.emulated);
	assert_string_equal(pl.insn, "jmp");
	assert_true(pl.jmp);
	assert_int_equal(pl.offset + (uint64_t)pl.jmp_to, 0x32c0);
	assert_true(pl.norewind);
	/* ... one reading the version (%rsi) or the size (%rdx, moved to
	 * %ecx) keeps the entry */
	vg_place_bytes(tail, sizeof(tail), 0xc130, 1u << 7 | 1u << 6, &pl);
	assert_int_equal(pl.offset, 0xc130);
	assert_false(pl.emulated);
	vg_place_bytes(tail, sizeof(tail), 0xc130, 1u << 7 | 1u << 2, &pl);
	assert_int_equal(pl.offset, 0xc130);
	/* pthread_mutex_unlock: onto its jmp; mov $1,%esi redoes */
	vg_place_bytes(unlock, sizeof(unlock), 0x8dd50, 1u << 7, &pl);
	assert_int_equal(pl.offset, 0x8dd55);
	assert_true(pl.emulated && pl.jmp);
	assert_int_equal(pl.offset + (uint64_t)pl.jmp_to, 0x8dc50);
	assert_false(pl.norewind);
	/* counting %rsi read (two registers for one argument) kept it */
	vg_place_bytes(unlock, sizeof(unlock), 0x8dd50, m, &pl);
	assert_int_equal(pl.offset, 0x8dd50);
	assert_false(pl.emulated || pl.jmp);
	/* a function that is its jmp (jmp rel8 back 0x10): on it */
	static const uint8_t jmp8[] = { 0xeb, 0xf0 };
	vg_place_bytes(jmp8, sizeof(jmp8), 0x9000, 1u << 7, &pl);
	assert_int_equal(pl.offset, 0x9000);
	assert_true(pl.jmp);
	assert_int_equal(pl.offset + (uint64_t)pl.jmp_to, 0x9000 + 2 - 0x10);
	assert_false(pl.norewind);
	/* the movs before a push: the probe moves, not rewound */
	vg_place_bytes(redo, sizeof(redo), 0x3000, 1u << 7, &pl);
	assert_int_equal(pl.offset, 0x3005);
	assert_true(pl.norewind);
	assert_false(pl.jmp);
	vg_place_bytes(callee, sizeof(callee), 0x4000, 0, &pl);
	assert_int_equal(pl.offset, 0x4000);
	vg_place_bytes(rip, sizeof(rip), 0x5000, m, &pl);
	assert_int_equal(pl.offset, 0x5009);
	assert_int_equal(pl.skipped, 2);
	assert_string_equal(pl.insn, "push %r15");
	/* ... but not when the probe reads %rcx */
	vg_place_bytes(rip, sizeof(rip), 0x5000, VG_PLACE_ARG_REGS, &pl);
	assert_int_equal(pl.offset, 0x5000);
	/* test %rdx,%rdx; mov $1,%edx; je: run again, the test would see
	 * the 1 and the je branch the other way: moved, never rewound */
	static const uint8_t flags[] = { 0x48, 0x85, 0xd2, 0xba, 1, 0, 0, 0,
					 0x74, 0x05 };
	vg_place_bytes(flags, sizeof(flags), 0x6000, 1u << 7, &pl);
	assert_int_equal(pl.offset, 0x6008);
	assert_true(pl.norewind);
	/* test %rdi,%rdi; mov $1,%edx; je: nothing read is overwritten */
	static const uint8_t flags_ok[] = { 0x48, 0x85, 0xff, 0xba, 1, 0, 0,
					    0, 0x74, 0x05 };
	vg_place_bytes(flags_ok, sizeof(flags_ok), 0x7000, 1u << 7, &pl);
	assert_int_equal(pl.offset, 0x7008);
	assert_false(pl.norewind);
}

/* from a file, the whole function searched: a branch back into the
 * skipped instructions keeps the entry */
static void test_placement_branch_into(void **state)
{
	static const uint8_t lock[] = { 0x8b, 0x47, 0x10, 0x89, 0xc2, 0x81,
					0xe2, 0x7f, 0x01, 0, 0, 0x83, 0xe0,
					0x7c, 0x0f, 0x85, 0xac, 0, 0, 0 };
	uint8_t f[64];
	char path[] = "/tmp/vigil-place-XXXXXX";
	struct vg_placement pl;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	memset(f, 0x90, sizeof(f));
	memcpy(f + 16, lock, sizeof(lock));	/* the function at 16 */
	f[16 + 40] = 0xc3;
	assert_int_equal(pwrite(fd, f, sizeof(f), 0), (ssize_t)sizeof(f));
	vg_place_entry(path, 16, 41, vg_place_arg_regs(1), &pl);
	assert_int_equal(pl.offset, 16 + 14);
	/* jmp back to the and at +5 (eb, rel8 from +32) */
	f[16 + 30] = 0xeb;
	f[16 + 31] = (uint8_t)(int8_t)(5 - 32);
	assert_int_equal(pwrite(fd, f, sizeof(f), 0), (ssize_t)sizeof(f));
	vg_place_entry(path, 16, 41, vg_place_arg_regs(1), &pl);
	assert_int_equal(pl.offset, 16);
	assert_false(pl.emulated);
	/* a branch to the entry itself is no harm */
	f[16 + 31] = (uint8_t)(int8_t)(0 - 32);
	assert_int_equal(pwrite(fd, f, sizeof(f), 0), (ssize_t)sizeof(f));
	vg_place_entry(path, 16, 41, vg_place_arg_regs(1), &pl);
	assert_int_equal(pl.offset, 16 + 14);
	close(fd);
	unlink(path);
}

static void test_resolve_program(void **state)
{
	char out[4096];
	struct vg_err e = { 0 };

	assert_int_equal(vg_resolve_program("true", out, &e), 0);
	assert_non_null(strstr(out, "/true"));
	assert_int_equal(out[0], '/');
	assert_int_equal(vg_resolve_program("no-such-program-xyz", out, &e), -1);
	assert_non_null(strstr(e.msg, "no-such-program-xyz"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_value),
		cmocka_unit_test(test_json_escape),
		cmocka_unit_test(test_json_file_private),
		cmocka_unit_test(test_spawn_stopped),
		cmocka_unit_test(test_spawn_exec_failure),
		cmocka_unit_test(test_gdb_prepare),
		cmocka_unit_test(test_elf_find_func),
		cmocka_unit_test(test_placement),
		cmocka_unit_test(test_placement_writes),
		cmocka_unit_test(test_placement_branch_into),
		cmocka_unit_test(test_resolve_program),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
