/* The guard/update interpreter against include/vigil_code.h: every opcode,
 * and the corner cases the BPF interpreter must answer the same way. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>

#include "monitor_builder.h"

/* Run a program with no inputs but a small environment. */
static uint64_t slot[VG_NSLOTS];
static int64_t vars[4], globals[4];

#define RUN(...)                                                           \
	vg_vm_run((const struct vg_insn[]){ __VA_ARGS__, I_END }, slot, vars, \
		  globals, 42, 1000)

/* a OP b for a binary opcode */
static int64_t bin(uint8_t op, int64_t a, int64_t b)
{
	return RUN(I_PUSH(a), I_PUSH(b), I_OP(op));
}

static void test_end_push(void **state)
{
	assert_int_equal(vg_vm_run((const struct vg_insn[]){ I_END }, NULL,
				   NULL, NULL, 0, 0),
			 1);
	assert_int_equal(RUN(I_PUSH(7)), 7);
	assert_int_equal(RUN(I_PUSH(-3)), -3);
	assert_int_equal(RUN(I_PUSH(1), I_PUSH(2)), 2);	/* top of stack */
	/* END stops: what follows is not run */
	assert_int_equal(RUN(I_PUSH(5), I_END, I_PUSH(6)), 5);
}

static void test_field_tid_time(void **state)
{
	for (int i = 0; i < VG_NSLOTS; i++)
		slot[i] = 100 + i;
	assert_int_equal(RUN(I_FIELD(0)), 100);
	assert_int_equal(RUN(I_FIELD(3)), 103);
	assert_int_equal(RUN(I_FIELD(VG_SLOT_RET)), 100 + VG_SLOT_RET);
	/* out of range reads slot 0, as the kernel interpreter does */
	assert_int_equal(RUN(I_FIELD(200)), 100);
	assert_int_equal(RUN(INS(VG_OP_TID, 0, 0)), 42);
	assert_int_equal(RUN(INS(VG_OP_TIME, 0, 0)), 1000);
	/* 64-bit fields come through unchanged */
	slot[1] = UINT64_MAX;
	assert_int_equal(RUN(I_FIELD(1)), -1);
}

static void test_vars_globals(void **state)
{
	memset(vars, 0, sizeof(vars));
	memset(globals, 0, sizeof(globals));
	/* update program: leaves nothing, returns 1 */
	assert_int_equal(RUN(I_PUSH(11), I_STV(2), I_PUSH(-9), I_STG(1)), 1);
	assert_int_equal(vars[2], 11);
	assert_int_equal(globals[1], -9);
	assert_int_equal(RUN(I_LDV(2)), 11);
	assert_int_equal(RUN(I_LDG(1)), -9);
	/* n = n + 1 */
	RUN(I_LDV(2), I_PUSH(1), I_OP(VG_OP_ADD), I_STV(2));
	assert_int_equal(vars[2], 12);
}

static void test_param(void **state)
{
	const uint64_t params[VG_MAX_PARAMS] = { 5, 6, 7, 8 };
	const struct vg_insn code[] = { I_PARAM(2), I_END };
	struct vg_vm_ctx c = { .code = code, .params = params };

	assert_int_equal(vg_vm_exec(&c), 7);
	/* vg_vm_run has no parameters: 0 */
	assert_int_equal(vg_vm_run(code, NULL, NULL, NULL, 0, 0), 0);
	/* out of range: malformed, 0 */
	const struct vg_insn bad[] = { I_PARAM(VG_MAX_PARAMS), I_END };
	c.code = bad;
	assert_int_equal(vg_vm_exec(&c), 0);
}

static void test_dup_pop(void **state)
{
	assert_int_equal(RUN(I_PUSH(3), I_OP(VG_OP_DUP), I_OP(VG_OP_MUL)), 9);
	assert_int_equal(RUN(I_PUSH(3), I_PUSH(4), I_OP(VG_OP_POP)), 3);
	assert_int_equal(RUN(I_PUSH(3), I_OP(VG_OP_POP)), 1);	/* empty */
}

static void test_arith(void **state)
{
	assert_int_equal(bin(VG_OP_ADD, 2, 3), 5);
	assert_int_equal(bin(VG_OP_ADD, INT64_MAX, 1), INT64_MIN);	/* wraps */
	assert_int_equal(bin(VG_OP_SUB, 2, 3), -1);
	assert_int_equal(bin(VG_OP_SUB, INT64_MIN, 1), INT64_MAX);
	assert_int_equal(bin(VG_OP_MUL, -4, 5), -20);
	assert_int_equal(bin(VG_OP_MUL, INT64_MAX, 2), -2);
	assert_int_equal(bin(VG_OP_MUL, INT64_MIN, -1), INT64_MIN);
}

static void test_div_mod(void **state)
{
	assert_int_equal(bin(VG_OP_DIVS, 7, 2), 3);
	assert_int_equal(bin(VG_OP_DIVS, -7, 2), -3);	/* toward zero */
	assert_int_equal(bin(VG_OP_DIVS, 7, -2), -3);
	assert_int_equal(bin(VG_OP_DIVS, -7, -2), 3);
	assert_int_equal(bin(VG_OP_DIVS, 7, 0), 0);
	assert_int_equal(bin(VG_OP_DIVS, INT64_MIN, -1), INT64_MIN);
	assert_int_equal(bin(VG_OP_DIVS, INT64_MIN, 1), INT64_MIN);
	assert_int_equal(bin(VG_OP_DIVU, -1, 2), (int64_t)(UINT64_MAX / 2));
	assert_int_equal(bin(VG_OP_DIVU, 7, 0), 0);
	assert_int_equal(bin(VG_OP_DIVU, 9, 3), 3);
	assert_int_equal(bin(VG_OP_MODS, 7, 3), 1);
	assert_int_equal(bin(VG_OP_MODS, -7, 3), -1);	/* sign of dividend */
	assert_int_equal(bin(VG_OP_MODS, 7, -3), 1);
	assert_int_equal(bin(VG_OP_MODS, 7, 0), 7);	/* x % 0 == x */
	assert_int_equal(bin(VG_OP_MODS, -7, 0), -7);
	assert_int_equal(bin(VG_OP_MODS, INT64_MIN, -1), 0);
	assert_int_equal(bin(VG_OP_MODU, -1, 10), (int64_t)(UINT64_MAX % 10));
	assert_int_equal(bin(VG_OP_MODU, 7, 0), 7);
	assert_int_equal(bin(VG_OP_MODU, -5, 0), -5);
}

static void test_bits(void **state)
{
	assert_int_equal(bin(VG_OP_AND, 0xc, 0xa), 0x8);
	assert_int_equal(bin(VG_OP_OR, 0xc, 0xa), 0xe);
	assert_int_equal(bin(VG_OP_XOR, 0xc, 0xa), 0x6);
	assert_int_equal(bin(VG_OP_SHL, 1, 3), 8);
	assert_int_equal(bin(VG_OP_SHL, 1, 65), 2);	/* count mod 64 */
	assert_int_equal(bin(VG_OP_SHL, 1, 64), 1);
	assert_int_equal(bin(VG_OP_SHL, 1, 63), INT64_MIN);
	assert_int_equal(bin(VG_OP_SHL, 1, -1), INT64_MIN);	/* -1 & 63 */
	assert_int_equal(bin(VG_OP_SHRS, -8, 1), -4);		/* arithmetic */
	assert_int_equal(bin(VG_OP_SHRS, -1, 63), -1);
	assert_int_equal(bin(VG_OP_SHRS, 16, 66), 4);
	assert_int_equal(bin(VG_OP_SHRU, -8, 1), (int64_t)(UINT64_MAX / 2 - 3));
	assert_int_equal(bin(VG_OP_SHRU, -1, 63), 1);
	assert_int_equal(bin(VG_OP_SHRU, 16, 64), 16);
}

static void test_compare(void **state)
{
	assert_int_equal(bin(VG_OP_EQ, 3, 3), 1);
	assert_int_equal(bin(VG_OP_EQ, 3, 4), 0);
	assert_int_equal(bin(VG_OP_NE, 3, 4), 1);
	assert_int_equal(bin(VG_OP_NE, 3, 3), 0);
	/* signed: -1 < 1 */
	assert_int_equal(bin(VG_OP_LTS, -1, 1), 1);
	assert_int_equal(bin(VG_OP_LTS, 1, 1), 0);
	assert_int_equal(bin(VG_OP_LES, 1, 1), 1);
	assert_int_equal(bin(VG_OP_LES, 2, 1), 0);
	assert_int_equal(bin(VG_OP_GTS, 1, -1), 1);
	assert_int_equal(bin(VG_OP_GTS, 1, 1), 0);
	assert_int_equal(bin(VG_OP_GES, 1, 1), 1);
	assert_int_equal(bin(VG_OP_GES, -1, 1), 0);
	/* unsigned: -1 is the largest */
	assert_int_equal(bin(VG_OP_LTU, -1, 1), 0);
	assert_int_equal(bin(VG_OP_LTU, 1, -1), 1);
	assert_int_equal(bin(VG_OP_LEU, 1, 1), 1);
	assert_int_equal(bin(VG_OP_LEU, -1, 1), 0);
	assert_int_equal(bin(VG_OP_GTU, -1, 1), 1);
	assert_int_equal(bin(VG_OP_GTU, 1, 1), 0);
	assert_int_equal(bin(VG_OP_GEU, 1, 1), 1);
	assert_int_equal(bin(VG_OP_GEU, 1, -1), 0);
}

static void test_unary(void **state)
{
	assert_int_equal(RUN(I_PUSH(5), I_OP(VG_OP_NEG)), -5);
	assert_int_equal(RUN(I_PUSH(INT64_MIN), I_OP(VG_OP_NEG)), INT64_MIN);
	assert_int_equal(RUN(I_PUSH(0), I_OP(VG_OP_NOT)), 1);
	assert_int_equal(RUN(I_PUSH(-7), I_OP(VG_OP_NOT)), 0);
	assert_int_equal(RUN(I_PUSH(0), I_OP(VG_OP_BNOT)), -1);
	assert_int_equal(RUN(I_PUSH(0x0f), I_OP(VG_OP_BNOT)), ~(int64_t)0x0f);
}

static void test_jumps(void **state)
{
	/* JMP 1 skips one instruction */
	assert_int_equal(RUN(I_PUSH(1), INS(VG_OP_JMP, 0, 1), I_PUSH(2)), 1);
	assert_int_equal(RUN(I_PUSH(1), INS(VG_OP_JMP, 0, 0), I_PUSH(2)), 2);
	/* a ? 10 : 20 as the compiler lays it out */
#define COND(a)                                                            \
	RUN(I_PUSH(a), INS(VG_OP_JZ, 0, 2), I_PUSH(10),                    \
	    INS(VG_OP_JMP, 0, 1), I_PUSH(20))
	assert_int_equal(COND(1), 10);
	assert_int_equal(COND(0), 20);
	assert_int_equal(COND(-5), 10);
	/* JNZ jumps on non-zero, and pops its operand either way */
	assert_int_equal(RUN(I_PUSH(9), I_PUSH(1), INS(VG_OP_JNZ, 0, 1),
			     I_PUSH(2)),
			 9);
	assert_int_equal(RUN(I_PUSH(9), I_PUSH(0), INS(VG_OP_JNZ, 0, 1),
			     I_PUSH(2)),
			 2);
	assert_int_equal(RUN(I_PUSH(0), INS(VG_OP_JZ, 0, 1), I_PUSH(2)), 1);
	/* short-circuit a && b: a == 0 gives 0 without evaluating b */
	assert_int_equal(RUN(I_PUSH(0), I_OP(VG_OP_DUP), INS(VG_OP_JZ, 0, 3),
			     I_OP(VG_OP_POP), I_PUSH(1), I_OP(VG_OP_NOT)),
			 0);
}

static void test_jump_bounds(void **state)
{
	/* with a length, a jump past the end ends the program */
	const struct vg_insn code[] = { I_PUSH(4), INS(VG_OP_JMP, 0, 100),
					I_PUSH(5), I_END };
	struct vg_vm_ctx c = { .code = code, .len = 4 };

	assert_int_equal(vg_vm_exec(&c), 4);
	/* a "negative" distance is huge unsigned: also past the end, never
	 * a backward jump */
	const struct vg_insn back[] = { I_PUSH(4), INS(VG_OP_JMP, 0, -2),
					I_PUSH(5), I_END };
	c.code = back;
	assert_int_equal(vg_vm_exec(&c), 4);
	/* the range ends without END: top of stack */
	const struct vg_insn noend[] = { I_PUSH(3), I_PUSH(8) };
	c.code = noend;
	c.len = 2;
	assert_int_equal(vg_vm_exec(&c), 8);
}

static void test_malformed(void **state)
{
	int64_t v[1] = { 0 };
	/* underflow: a binary operator on one value */
	assert_int_equal(RUN(I_PUSH(1), I_OP(VG_OP_ADD)), 0);
	assert_int_equal(RUN(I_OP(VG_OP_POP)), 0);
	assert_int_equal(RUN(I_OP(VG_OP_NEG)), 0);
	assert_int_equal(RUN(I_OP(VG_OP_JZ)), 0);
	/* overflow: VG_STACK_MAX + 1 pushes */
	assert_int_equal(RUN(I_PUSH(1), I_PUSH(1), I_PUSH(1), I_PUSH(1),
			     I_PUSH(1), I_PUSH(1), I_PUSH(1), I_PUSH(1)),
			 1);
	assert_int_equal(RUN(I_PUSH(1), I_PUSH(1), I_PUSH(1), I_PUSH(1),
			     I_PUSH(1), I_PUSH(1), I_PUSH(1), I_PUSH(1),
			     I_PUSH(2)),
			 0);
	/* unknown opcode */
	assert_int_equal(RUN(I_PUSH(1), I_PUSH(1), I_OP(VG_OP__COUNT)), 0);
	assert_int_equal(RUN(I_PUSH(1), I_PUSH(1), I_OP(200)), 0);
	/* variable index beyond the bounds given to vg_vm_exec */
	const struct vg_insn code[] = { I_PUSH(3), I_STV(1), I_END };
	struct vg_vm_ctx c = { .code = code, .vars = v, .nvars = 1 };
	assert_int_equal(vg_vm_exec(&c), 0);
	const struct vg_insn g[] = { I_LDG(0), I_END };
	c.code = g;
	assert_int_equal(vg_vm_exec(&c), 0);	/* no globals at all */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_end_push),
		cmocka_unit_test(test_field_tid_time),
		cmocka_unit_test(test_vars_globals),
		cmocka_unit_test(test_param),
		cmocka_unit_test(test_dup_pop),
		cmocka_unit_test(test_arith),
		cmocka_unit_test(test_div_mod),
		cmocka_unit_test(test_bits),
		cmocka_unit_test(test_compare),
		cmocka_unit_test(test_unary),
		cmocka_unit_test(test_jumps),
		cmocka_unit_test(test_jump_bounds),
		cmocka_unit_test(test_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
