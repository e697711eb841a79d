/* The leak scan (user/leakscan/) on synthetic memory images: classes as
 * memcheck gives them (definite, indirect through a lost struct and a
 * cycle, possible through an interior pointer, reachable from a root and
 * through a reachable block, only possible through a possible block),
 * loss records and their order, suppressions in both forms. No process,
 * no root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "leakscan/records.h"
#include "leakscan/roots.h"
#include "leakscan/scan.h"
#include "leakscan/suppress.h"

#define HEAP 0x100000ull

/* a fake heap: block i at HEAP + i*0x100, 64 bytes of words */
struct img {
	uint64_t mem[16][8];
	struct vg_leak_block b[16];
	int n;
};

static int blk(struct img *m, uint64_t size)
{
	int i = m->n++;

	m->b[i].addr = HEAP + (uint64_t)i * 0x100;
	m->b[i].size = size;
	m->b[i].data = (const uint8_t *)m->mem[i];
	m->b[i].tag = i;
	return i;
}

static uint64_t at(int i, uint64_t off)
{
	return HEAP + (uint64_t)i * 0x100 + off;
}

/* kind of the block that was number i before sorting */
static enum vg_leak_kind kind_of(struct img *m, uint64_t addr)
{
	for (int i = 0; i < m->n; i++)
		if (m->b[i].addr == addr)
			return m->b[i].kind;
	fail_msg("no block at %llx", (unsigned long long)addr);
	return VG_LEAK_NKINDS;
}

static uint64_t indirect_of(struct img *m, uint64_t addr)
{
	for (int i = 0; i < m->n; i++)
		if (m->b[i].addr == addr)
			return m->b[i].indirect;
	return ~0ull;
}

static void test_classes(void **state)
{
	struct img m = { 0 };
	uint64_t root[6] = { 0 };
	int lost, child, grand, possible, held, viaheld, cyc1, cyc2, behind;
	struct vg_leak_scan *s;

	(void)state;
	lost = blk(&m, 24);		/* nothing points at it */
	child = blk(&m, 32);		/* lost -> child: indirect */
	grand = blk(&m, 16);		/* child -> grand: indirect */
	possible = blk(&m, 64);		/* root points at +8 */
	held = blk(&m, 40);		/* root points at its start */
	viaheld = blk(&m, 8);		/* held -> viaheld: reachable */
	cyc1 = blk(&m, 16);		/* cyc1 <-> cyc2, no root */
	cyc2 = blk(&m, 16);
	behind = blk(&m, 16);		/* possible -> behind: possible */
	m.mem[lost][1] = at(child, 0);
	m.mem[child][3] = at(grand, 0);
	m.mem[held][2] = at(viaheld, 0);
	m.mem[cyc1][0] = at(cyc2, 0);
	m.mem[cyc2][0] = at(cyc1, 0);
	m.mem[possible][0] = at(behind, 0);
	root[1] = at(possible, 8);
	root[4] = at(held, 0);
	root[5] = 0xdeadbeef;		/* no block */

	s = vg_leak_scan_new(m.b, (size_t)m.n);
	assert_non_null(s);
	/* an unaligned start: the first whole aligned word is root[1] */
	vg_leak_scan_root(s, 0x7000, root, sizeof(root));
	vg_leak_scan_finish(s);
	assert_int_equal(kind_of(&m, at(lost, 0)), VG_LEAK_DEFINITE);
	assert_int_equal(indirect_of(&m, at(lost, 0)), 32 + 16);
	assert_int_equal(kind_of(&m, at(child, 0)), VG_LEAK_INDIRECT);
	assert_int_equal(kind_of(&m, at(grand, 0)), VG_LEAK_INDIRECT);
	assert_int_equal(kind_of(&m, at(possible, 0)), VG_LEAK_POSSIBLE);
	assert_int_equal(kind_of(&m, at(behind, 0)), VG_LEAK_POSSIBLE);
	assert_int_equal(kind_of(&m, at(held, 0)), VG_LEAK_REACHABLE);
	assert_int_equal(kind_of(&m, at(viaheld, 0)), VG_LEAK_REACHABLE);
	/* a cycle: the lower address leads, the other is indirect */
	assert_int_equal(kind_of(&m, at(cyc1, 0)), VG_LEAK_DEFINITE);
	assert_int_equal(indirect_of(&m, at(cyc1, 0)), 16);
	assert_int_equal(kind_of(&m, at(cyc2, 0)), VG_LEAK_INDIRECT);
	assert_int_equal(vg_leak_scan_find(s, at(possible, 63)) >= 0, 1);
	assert_int_equal(vg_leak_scan_find(s, at(possible, 64)), -1);
	vg_leak_scan_free(s);
}

/* a register alone keeps a block; a possible block's start pointer to a
 * block leaves it possible; a later root makes it reachable */
static void test_register_and_upgrade(void **state)
{
	struct img m = { 0 };
	int a, b, c;
	struct vg_leak_scan *s;
	uint64_t word;

	(void)state;
	a = blk(&m, 16);
	b = blk(&m, 16);
	c = blk(&m, 16);
	m.mem[b][0] = at(c, 0);
	s = vg_leak_scan_new(m.b, (size_t)m.n);
	vg_leak_scan_root_word(s, at(a, 0));
	vg_leak_scan_root_word(s, at(b, 4));	/* interior: b possible */
	word = at(b, 0);			/* then its start: reachable */
	vg_leak_scan_root(s, 0x8000, &word, sizeof(word));
	vg_leak_scan_finish(s);
	assert_int_equal(kind_of(&m, at(a, 0)), VG_LEAK_REACHABLE);
	assert_int_equal(kind_of(&m, at(b, 0)), VG_LEAK_REACHABLE);
	/* rescanned once b became reachable */
	assert_int_equal(kind_of(&m, at(c, 0)), VG_LEAK_REACHABLE);
	vg_leak_scan_free(s);
}

/* a block whose contents could not be read is not scanned; a 0-byte
 * block is reached by its exact address only */
static void test_unreadable_and_empty(void **state)
{
	struct img m = { 0 };
	int a, b, z;
	struct vg_leak_scan *s;

	(void)state;
	a = blk(&m, 16);
	b = blk(&m, 16);
	z = blk(&m, 0);
	m.mem[a][0] = at(b, 0);
	m.b[a].data = NULL;
	s = vg_leak_scan_new(m.b, (size_t)m.n);
	vg_leak_scan_root_word(s, at(a, 0));
	vg_leak_scan_root_word(s, at(z, 0));
	vg_leak_scan_finish(s);
	assert_int_equal(kind_of(&m, at(a, 0)), VG_LEAK_REACHABLE);
	assert_int_equal(kind_of(&m, at(b, 0)), VG_LEAK_DEFINITE);
	assert_int_equal(kind_of(&m, at(z, 0)), VG_LEAK_REACHABLE);
	vg_leak_scan_free(s);
}

/* overlapping blocks (a slice kept past a free vigil missed): the lower
 * one is kept, the count says how many */
static void test_overlap(void **state)
{
	struct vg_leak_block b[3] = {
		{ .addr = 0x2000, .size = 64 },
		{ .addr = 0x1000, .size = 16 },
		{ .addr = 0x2010, .size = 8 },
	};
	struct vg_leak_scan *s = vg_leak_scan_new(b, 3);

	(void)state;
	assert_int_equal(vg_leak_scan_count(s), 2);
	assert_int_equal(b[0].addr, 0x1000);
	assert_int_equal(b[1].addr, 0x2000);
	assert_int_equal(vg_leak_scan_find(s, 0x2018), 1);
	vg_leak_scan_free(s);
}

/* glibc's pointers to the next chunk's header (main_arena.top, a bin),
 * which lies inside a block of 1000 bytes (at +992), are not the
 * program's interior pointers */
static void test_glibc_chunks(void **state)
{
	struct img m = { 0 };
	int a, b;
	struct vg_leak_scan *s;

	(void)state;
	a = blk(&m, 60);		/* chunk 80: next header at +64: outside */
	b = blk(&m, 56);		/* chunk 64: next header at +48: inside */
	s = vg_leak_scan_new(m.b, (size_t)m.n);
	vg_leak_scan_glibc_chunks(s, 1);
	vg_leak_scan_root_word(s, at(b, 48));	/* the allocator's */
	vg_leak_scan_root_word(s, at(a, 40));	/* the program's */
	vg_leak_scan_finish(s);
	assert_int_equal(kind_of(&m, at(b, 0)), VG_LEAK_DEFINITE);
	assert_int_equal(kind_of(&m, at(a, 0)), VG_LEAK_POSSIBLE);
	vg_leak_scan_free(s);
}

/* ---- records and suppressions */

static const struct vg_leak_frame fr_main[] = {
	{ "malloc", "", 0, "" },
	{ "make_list", "/src/app/list.c", 12, "/usr/bin/app" },
	{ "main", "/src/app/main.c", 40, "/usr/bin/app" },
};
static const char *const tx_main[] = { "malloc", "make_list+0x1c (list.c:12)",
				       "main+0x2a (main.c:40)" };
static const struct vg_leak_frame fr_lib[] = {
	{ "calloc", "", 0, "" },
	{ "", "", 0, "/usr/lib/libfoo.so.1" },
	{ "main", "/src/app/main.c", 44, "/usr/bin/app" },
};
static const char *const tx_lib[] = { "calloc", "0x7f0012 (libfoo.so.1)",
				      "main+0x40 (main.c:44)" };

static const struct vg_leak_stack stacks[] = {
	{ 3, fr_main, tx_main },
	{ 3, fr_lib, tx_lib },
};

static void classed(struct vg_leak_block *b, uint64_t addr, uint64_t size,
		    enum vg_leak_kind k, uint64_t ind, int tag)
{
	memset(b, 0, sizeof(*b));
	b->addr = addr;
	b->size = size;
	b->kind = k;
	b->indirect = ind;
	b->tag = tag;
}

static char *text_of(const struct vg_leak_report *r,
		     const struct vg_leak_supp *supp, unsigned show, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (json)
		vg_leak_report_json(r, stacks, supp, f);
	else
		vg_leak_report_text(r, stacks, supp, show, f);
	fclose(f);
	return buf;
}

static void test_records(void **state)
{
	struct vg_leak_block b[5];
	struct vg_leak_report r;
	char *t;

	(void)state;
	classed(&b[0], 0x1000, 100, VG_LEAK_DEFINITE, 48, 0);
	classed(&b[1], 0x2000, 100, VG_LEAK_DEFINITE, 0, 0);
	classed(&b[2], 0x3000, 48, VG_LEAK_INDIRECT, 0, 0);
	classed(&b[3], 0x4000, 1000, VG_LEAK_REACHABLE, 0, 1);
	classed(&b[4], 0x5000, 10, VG_LEAK_POSSIBLE, 0, 1);
	assert_int_equal(vg_leak_records(b, 5, stacks, 2, NULL, &r), 0);
	assert_int_equal(r.nrec, 4);
	assert_int_equal(r.nshown, 4);
	/* ascending by bytes + indirect: 10, 48, 248, 1000 */
	assert_int_equal(r.rec[0].kind, VG_LEAK_POSSIBLE);
	assert_int_equal(r.rec[1].kind, VG_LEAK_INDIRECT);
	assert_int_equal(r.rec[2].kind, VG_LEAK_DEFINITE);
	assert_int_equal(r.rec[2].blocks, 2);
	assert_int_equal(r.rec[2].bytes, 200);
	assert_int_equal(r.rec[2].indirect, 48);
	assert_int_equal(r.rec[3].kind, VG_LEAK_REACHABLE);
	assert_int_equal(r.bytes[VG_LEAK_DEFINITE], 200);
	assert_int_equal(r.blocks[VG_LEAK_INDIRECT], 1);
	t = text_of(&r, NULL, 1u << VG_LEAK_DEFINITE | 1u << VG_LEAK_POSSIBLE,
		    false);
	assert_non_null(strstr(t, "248 (200 direct, 48 indirect) bytes in 2 blocks are definitely lost in loss record 3 of 4\n"
				  "   at malloc\n   by make_list+0x1c (list.c:12)\n   by main+0x2a (main.c:40)\n"));
	assert_non_null(strstr(t, "10 bytes in 1 blocks are possibly lost in loss record 1 of 4\n"));
	assert_null(strstr(t, "still reachable in loss record"));
	assert_non_null(strstr(t, "LEAK SUMMARY:\n   definitely lost: 200 bytes in 2 blocks\n"
				  "   indirectly lost: 48 bytes in 1 blocks\n"
				  "     possibly lost: 10 bytes in 1 blocks\n"
				  "   still reachable: 1,000 bytes in 1 blocks\n"
				  "        suppressed: 0 bytes in 0 blocks\n"));
	free(t);
	t = text_of(&r, NULL, 0, true);
	assert_non_null(strstr(t, "{\"record\":3,\"of\":4,\"kind\":\"definite\",\"blocks\":2,\"bytes\":200,\"indirect_bytes\":48,"));
	assert_non_null(strstr(t, "\"function\":\"make_list\",\"file\":\"/src/app/list.c\",\"line\":12"));
	assert_non_null(strstr(t, "\"reachable\":{\"bytes\":1000,\"blocks\":1}"));
	free(t);
	vg_leak_report_free(&r);
}

static struct vg_leak_supp *supp_of(const char *text)
{
	struct vg_leak_supp *s = vg_leak_supp_new();
	struct vg_err e = { 0 };

	assert_non_null(s);
	if (vg_leak_supp_parse(s, "t.supp", text, &e))
		fail_msg("%s", e.msg);
	return s;
}

static void test_suppress_lsan(void **state)
{
	struct vg_leak_supp *s = supp_of("# mine\n\nleak:make_list\nleak:^libfoo.so$\nleak:*foo.so.1$\n");

	(void)state;
	assert_int_equal(vg_leak_supp_count(s), 3);
	assert_int_equal(vg_leak_supp_match(s, fr_main, 3, VG_LEAK_DEFINITE), 0);
	/* an object path: "^libfoo.so$" is anchored, the path is longer */
	assert_int_equal(vg_leak_supp_match(s, fr_lib, 3, VG_LEAK_POSSIBLE), 2);
	assert_string_equal(vg_leak_supp_name(s, 0), "leak:make_list");
	vg_leak_supp_free(s);
	s = supp_of("leak:list.c\n");	/* a source file, as a substring */
	assert_int_equal(vg_leak_supp_match(s, fr_main, 3, VG_LEAK_REACHABLE), 0);
	assert_int_equal(vg_leak_supp_match(s, fr_lib, 3, VG_LEAK_REACHABLE), -1);
	vg_leak_supp_free(s);
}

static void test_suppress_valgrind(void **state)
{
	struct vg_leak_supp *s = supp_of(
		"{\n"
		"   list_leak\n"
		"   Memcheck:Leak\n"
		"   match-leak-kinds: definite,indirect\n"
		"   fun:malloc\n"
		"   fun:make_*\n"
		"}\n"
		"{\n"
		"   not_a_leak\n"
		"   Memcheck:Cond\n"
		"   fun:*\n"
		"}\n"
		"{\n"
		"   foo\n"
		"   Memcheck:Leak\n"
		"   fun:calloc\n"
		"   ...\n"
		"   src:main.c:44\n"
		"}\n");
	struct vg_leak_block b[3];
	struct vg_leak_report r;
	char *t;

	(void)state;
	assert_int_equal(vg_leak_supp_count(s), 2);	/* Cond skipped */
	assert_int_equal(vg_leak_supp_match(s, fr_main, 3, VG_LEAK_DEFINITE), 0);
	/* match-leak-kinds */
	assert_int_equal(vg_leak_supp_match(s, fr_main, 3, VG_LEAK_REACHABLE), -1);
	/* `...` then src:FILE:LINE */
	assert_int_equal(vg_leak_supp_match(s, fr_lib, 3, VG_LEAK_REACHABLE), 1);
	/* frames are matched from the innermost: make_* is not first */
	vg_leak_supp_free(s);
	s = supp_of("{\n x\n Memcheck:Leak\n fun:make_list\n}\n");
	assert_int_equal(vg_leak_supp_match(s, fr_main, 3, VG_LEAK_DEFINITE), -1);
	vg_leak_supp_free(s);

	s = supp_of("leak:make_list\n");
	classed(&b[0], 0x1000, 100, VG_LEAK_DEFINITE, 0, 0);
	classed(&b[1], 0x2000, 7, VG_LEAK_DEFINITE, 0, 1);
	classed(&b[2], 0x3000, 9, VG_LEAK_DEFINITE, 0, 0);
	assert_int_equal(vg_leak_records(b, 3, stacks, 2, s, &r), 0);
	assert_int_equal(r.nshown, 1);
	assert_int_equal(r.supp_blocks, 2);
	assert_int_equal(r.supp_bytes, 109);
	assert_int_equal(r.bytes[VG_LEAK_DEFINITE], 7);
	t = text_of(&r, s, 1u << VG_LEAK_DEFINITE, false);
	assert_non_null(strstr(t, "7 bytes in 1 blocks are definitely lost in loss record 1 of 1\n"));
	assert_non_null(strstr(t, "        suppressed: 109 bytes in 2 blocks\n"));
	assert_non_null(strstr(t, "used suppression:    1 leak:make_list\n"));
	free(t);
	vg_leak_report_free(&r);
	vg_leak_supp_free(s);
}

static void bad(const char *text, const char *want)
{
	struct vg_leak_supp *s = vg_leak_supp_new();
	struct vg_err e = { 0 };

	assert_int_equal(vg_leak_supp_parse(s, "t.supp", text, &e), -1);
	assert_int_equal(e.exit_code, 2);
	if (!strstr(e.msg, want))
		fail_msg("got \"%s\", wanted \"%s\"", e.msg, want);
	vg_leak_supp_free(s);
}

static void test_suppress_errors(void **state)
{
	(void)state;
	bad("\nleek:foo\n", "t.supp:2: expected `leak:PATTERN` or `{`");
	bad("{\n x\n Memcheck:Leak\n fun:a\n", "t.supp:4: the suppression opened at line 1 has no `}`");
	bad("{\n x\n Memcheck:Leak\n match-leak-kinds: lost\n}\n", "t.supp:4: match-leak-kinds takes");
	bad("{\n x\n Memcheck:Leak\n fn:a\n}\n", "t.supp:4: expected a frame");
	bad("{\n x\n}\n", "t.supp:3: the suppression opened at line 1 needs a name");
	bad("{\n x\n Leak\n}\n", "t.supp:3: expected `Memcheck:Leak`");
}

/* ---- roots.c on a real process: a child of this test (no root
 * needed), stopped, its blocks classed from its data, bss and stack */

#define KEY 0x5a5a5a5a5a5a5a5aull

static char *child_held;		/* data: still reachable */
static char *child_interior;		/* possibly lost */

static void __attribute__((noinline)) scrub(void)
{
	volatile char buf[16384];

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = 0;
}

/* the block's address, encoded: no plain copy of it stays behind */
static uint64_t __attribute__((noinline)) lost_block(void)
{
	return (uint64_t)(uintptr_t)malloc(40) ^ KEY;
}

static void __attribute__((noinline)) keep_blocks(void)
{
	child_held = malloc(56);
	child_interior = (char *)malloc(72) + 8;
}

static void __attribute__((noinline)) run_child(int fd)
{
	uint64_t a[3];
	char *volatile on_stack = malloc(24);	/* the stack: reachable */

	a[0] = lost_block();
	keep_blocks();
	a[1] = (uint64_t)(uintptr_t)child_held ^ KEY;
	a[2] = (uint64_t)(uintptr_t)(child_interior - 8) ^ KEY;
	if (write(fd, a, sizeof(a)) != sizeof(a) ||
	    write(fd, (void *)&on_stack, sizeof(on_stack)) != sizeof(on_stack))
		_exit(1);
	memset(a, 0, sizeof(a));
	scrub();
	raise(SIGSTOP);
	_exit(on_stack != NULL);
}

static pid_t child = -1;

/* a failed check leaves the stopped child: end it */
static int kill_child(void **state)
{
	int st;

	(void)state;
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, &st, 0);
	}
	child = -1;
	return 0;
}

static void test_process(void **state)
{
	int p[2], st;
	uint64_t a[3];
	char *stack_block;
	pid_t pid;
	struct vg_leak_block b[4] = { 0 };
	struct vg_leak_roots_info info = { 0 };
	struct vg_err e = { 0 };
	struct vg_leak_scan *s;
	uint8_t *data = NULL;

	(void)state;
	assert_int_equal(pipe(p), 0);
	child = pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		run_child(p[1]);
	}
	close(p[1]);
	assert_int_equal(read(p[0], a, sizeof(a)), sizeof(a));
	assert_int_equal(read(p[0], &stack_block, sizeof(stack_block)),
			 sizeof(stack_block));
	close(p[0]);
	assert_int_equal(waitpid(pid, &st, WUNTRACED), pid);
	assert_true(WIFSTOPPED(st));
	b[0] = (struct vg_leak_block){ .addr = a[0] ^ KEY, .size = 40 };
	b[1] = (struct vg_leak_block){ .addr = a[1] ^ KEY, .size = 56 };
	b[2] = (struct vg_leak_block){ .addr = a[2] ^ KEY, .size = 72 };
	b[3] = (struct vg_leak_block){ .addr = (uintptr_t)stack_block,
				       .size = 24 };
	assert_int_equal(vg_leak_read_blocks(pid, b, 4, &data, &info, &e), 0);
	assert_int_equal(info.blocks_unread, 0);
	s = vg_leak_scan_new(b, 4);
	assert_non_null(s);
	if (vg_leak_scan_roots(pid, s, b, 4, NULL, &info, &e))
		fail_msg("%s", e.msg);
	vg_leak_scan_finish(s);
	assert_int_equal(info.threads, 1);
	assert_int_equal(info.threads_regs, 1);	/* our child: seized */
	assert_true(info.regions >= 3);		/* data, bss, libc's... */
	for (int i = 0; i < 4; i++) {
		enum vg_leak_kind want =
			b[i].size == 40 ? VG_LEAK_DEFINITE :
			b[i].size == 72 ? VG_LEAK_POSSIBLE : VG_LEAK_REACHABLE;

		if (b[i].kind != want)
			fail_msg("the %llu-byte block is %s, not %s",
				 (unsigned long long)b[i].size,
				 vg_leak_kind_text(b[i].kind),
				 vg_leak_kind_text(want));
	}
	/* the child is stopped, as it was: once let go by the seize, a
	 * thread goes back into the group stop (after a moment in the
	 * kernel, never in its own code) */
	assert_int_equal(waitpid(pid, &st, WNOHANG), 0);
	for (int tries = 0;; tries++) {
		char path[64], line[256];
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		f = fopen(path, "r");
		assert_non_null(f);
		assert_non_null(fgets(line, sizeof(line), f));
		fclose(f);
		if (strstr(line, ") T "))
			break;
		if (tries == 2000)
			fail_msg("the child is not stopped again: %s", line);
		usleep(1000);
	}
	vg_leak_scan_free(s);
	free(data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classes),
		cmocka_unit_test(test_register_and_upgrade),
		cmocka_unit_test(test_unreadable_and_empty),
		cmocka_unit_test(test_overlap),
		cmocka_unit_test(test_glibc_chunks),
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_suppress_lsan),
		cmocka_unit_test(test_suppress_valgrind),
		cmocka_unit_test(test_suppress_errors),
		cmocka_unit_test_teardown(test_process, kill_child),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
