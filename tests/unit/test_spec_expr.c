/* The property language: what its expressions, types, variables and
 * statements compile to, checked exactly where the contract
 * (include/vigil_code.h) leaves a choice and otherwise run through
 * spec_interp.h's interpreter. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec/spec.h"
#include "spec_load.h"
#include "spec_interp.h"

/* ---- types, variables, statements ------------------------------------- */

static void test_types_and_inits(void **state)
{
	struct vg_spec *s = load(
		"property t\n"
		"slice on int a, int64 b, uint c, ptr d\n"
		"int i = 1 + 2 * 3, j\n"
		"int64 k = -9223372036854775808\n"
		"uint u = -1, v = 0xffffffffffffffff\n"
		"uint64 w = 7 / 0\n"
		"bool t = 3 > 2, f = false\n"
		"ptr p = null, q = 0x1000 + 8\n"
		"string s = \"hi\", e\n"
		"global string gs = \"hi\"\n"
		"global int ch = 'A' + '\\n'\n"
		"int tern = 1 ? 2 : 3, sh = -16 >> 2\n"
		"state x\n");
	const struct vg_property *p = &s->props[0];
	static const struct {
		const char *name;
		enum vg_type t;
	} want[] = {
		{ "i", VG_TYPE_INT }, { "j", VG_TYPE_INT }, { "k", VG_TYPE_INT },
		{ "u", VG_TYPE_UINT }, { "v", VG_TYPE_UINT },
		{ "w", VG_TYPE_UINT }, { "t", VG_TYPE_BOOL },
		{ "f", VG_TYPE_BOOL }, { "p", VG_TYPE_PTR }, { "q", VG_TYPE_PTR },
		{ "s", VG_TYPE_STR }, { "e", VG_TYPE_STR },
		{ "tern", VG_TYPE_INT }, { "sh", VG_TYPE_INT },
	};

	assert_int_equal(p->param_types[1], VG_TYPE_INT);
	assert_int_equal(p->param_types[2], VG_TYPE_UINT);
	assert_int_equal(p->param_types[3], VG_TYPE_PTR);
	assert_int_equal(p->nvars, 14);
	for (int i = 0; i < 14; i++) {
		assert_string_equal(p->vars[i].name, want[i].name);
		assert_int_equal(p->vars[i].type, want[i].t);
	}
	assert_int_equal(p->vars[0].init, 7);
	assert_int_equal(p->vars[1].init, 0);
	assert_int_equal(p->vars[2].init, INT64_MIN);
	assert_int_equal((uint64_t)p->vars[3].init, UINT64_MAX);
	assert_int_equal((uint64_t)p->vars[4].init, UINT64_MAX);
	assert_int_equal(p->vars[5].init, 0);	/* x / 0 == 0 */
	assert_int_equal(p->vars[6].init, 1);
	assert_int_equal(p->vars[7].init, 0);
	assert_int_equal(p->vars[9].init, 0x1008);
	assert_string_equal(vg_spec_string(s, (uint64_t)p->vars[10].init), "hi");
	/* an unset string is "" */
	assert_string_equal(vg_spec_string(s, (uint64_t)p->vars[11].init), "");
	assert_int_equal(p->vars[12].init, 2);
	assert_int_equal(p->vars[13].init, -4);
	assert_int_equal(p->nglobals, 2);
	assert_int_equal(p->globals[0].init, p->vars[10].init);
	assert_int_equal(p->globals[1].init, 'A' + 10);
	/* initializers leave no code behind */
	assert_int_equal(p->ncode, 0);
	assert_int_equal(p->ntrans, 0);
	vg_spec_free(s);
}

static void test_statements(void **state)
{
	struct vg_spec *s = load(
		"property t\nint a\nuint u\nglobal int g\nstring str\n"
		"state s {\n"
		"  before f(x) {\n"
		"    a = x; a += 1; a -= 2; a *= 3; a /= 4; a %= 5;\n"
		"    a &= 6; a |= 7; a ^= 8; a <<= 9; a >>= 10; a++; a--;\n"
		"    u /= 2; u %= 3; u >>= 1; g = a; g++;\n"
		"    str = \"x\"; str = x\n"
		"  } -> s\n"
		"  before h() { } -> s\n"
		"}\n");
	const struct vg_property *p = &s->props[0];
	uint64_t xid = vg_spec_intern(s, "x");

	ASSERT_CODE(p, p->trans[0].update,
		    { VG_OP_FIELD, 0, 0 }, { VG_OP_STVAR, 0, 0 },
		    { VG_OP_LDVAR, 0, 0 }, { VG_OP_PUSH, 0, 1 }, { VG_OP_ADD, 0, 0 }, { VG_OP_STVAR, 0, 0 },
		    { VG_OP_LDVAR, 0, 0 }, { VG_OP_PUSH, 0, 2 }, { VG_OP_SUB, 0, 0 }, { VG_OP_STVAR, 0, 0 },
		    { VG_OP_LDVAR, 0, 0 }, { VG_OP_PUSH, 0, 3 }, { VG_OP_MUL, 0, 0 }, { VG_OP_STVAR, 0, 0 },
		    { VG_OP_LDVAR, 0, 0 }, { VG_OP_PUSH, 0, 4 }, { VG_OP_DIVS, 0, 0 }, { VG_OP_STVAR, 0, 0 },
		    { VG_OP_LDVAR, 0, 0 }, { VG_OP_PUSH, 0, 5 }, { VG_OP_MODS, 0, 0 }, { VG_OP_STVAR, 0, 0 },
		    { VG_OP_LDVAR, 0, 0 }, { VG_OP_PUSH, 0, 6 }, { VG_OP_AND, 0, 0 }, { VG_OP_STVAR, 0, 0 },
		    { VG_OP_LDVAR, 0, 0 }, { VG_OP_PUSH, 0, 7 }, { VG_OP_OR, 0, 0 }, { VG_OP_STVAR, 0, 0 },
		    { VG_OP_LDVAR, 0, 0 }, { VG_OP_PUSH, 0, 8 }, { VG_OP_XOR, 0, 0 }, { VG_OP_STVAR, 0, 0 },
		    { VG_OP_LDVAR, 0, 0 }, { VG_OP_PUSH, 0, 9 }, { VG_OP_SHL, 0, 0 }, { VG_OP_STVAR, 0, 0 },
		    { VG_OP_LDVAR, 0, 0 }, { VG_OP_PUSH, 0, 10 }, { VG_OP_SHRS, 0, 0 }, { VG_OP_STVAR, 0, 0 },
		    { VG_OP_LDVAR, 0, 0 }, { VG_OP_PUSH, 0, 1 }, { VG_OP_ADD, 0, 0 }, { VG_OP_STVAR, 0, 0 },
		    { VG_OP_LDVAR, 0, 0 }, { VG_OP_PUSH, 0, 1 }, { VG_OP_SUB, 0, 0 }, { VG_OP_STVAR, 0, 0 },
		    { VG_OP_LDVAR, 1, 0 }, { VG_OP_PUSH, 0, 2 }, { VG_OP_DIVU, 0, 0 }, { VG_OP_STVAR, 1, 0 },
		    { VG_OP_LDVAR, 1, 0 }, { VG_OP_PUSH, 0, 3 }, { VG_OP_MODU, 0, 0 }, { VG_OP_STVAR, 1, 0 },
		    { VG_OP_LDVAR, 1, 0 }, { VG_OP_PUSH, 0, 1 }, { VG_OP_SHRU, 0, 0 }, { VG_OP_STVAR, 1, 0 },
		    { VG_OP_LDVAR, 0, 0 }, { VG_OP_STGLOB, 0, 0 },
		    { VG_OP_LDGLOB, 0, 0 }, { VG_OP_PUSH, 0, 1 }, { VG_OP_ADD, 0, 0 }, { VG_OP_STGLOB, 0, 0 },
		    { VG_OP_PUSH, 0, (int64_t)xid }, { VG_OP_STVAR, 2, 0 },
		    { VG_OP_FIELD, 0, 0 }, { VG_OP_STVAR, 2, 0 },
		    { VG_OP_END, 0, 0 });
	/* an empty block is no update at all */
	assert_int_equal(p->trans[1].update.len, 0);

	/* and it runs as C would */
	struct env env = { .slot = { 100 } };
	run(p, p->trans[0].update, &env);
	int64_t a = 100;
	a += 1; a -= 2; a *= 3; a /= 4; a %= 5; a &= 6; a |= 7; a ^= 8;
	a <<= 9; a >>= 10;
	assert_int_equal(env.var[0], a);
	assert_int_equal(env.glob[0], a + 1);
	vg_spec_free(s);
}

/* ---- expressions ------------------------------------------------------ */

static void test_precedence(void **state)
{
	assert_int_equal(eval("1 + 2 * 3 == 7", 0, 0), 1);
	assert_int_equal(eval("(1 + 2) * 3 == 9", 0, 0), 1);
	assert_int_equal(eval("x - y - 1", 10, 3), 6);	/* left assoc */
	assert_int_equal(eval("x / y / 2", 100, 5), 10);
	assert_int_equal(eval("1 << 2 + 1", 0, 0), 8);
	assert_int_equal(eval("5 & 3 == 1", 0, 0), 0);	/* == binds tighter */
	assert_int_equal(eval("1 | 2 ^ 3 & 6", 0, 0), 1 | (2 ^ (3 & 6)));
	assert_int_equal(eval("x < y == y < x", 1, 2), 0);
	assert_int_equal(eval("x > 0 && y > 0 || x == 5", 5, 0), 1);
	assert_int_equal(eval("x > 0 || y > 0 && x == 5", 1, 0), 1);
	assert_int_equal(eval("!x && y", 0, 3), 1);
	assert_int_equal(eval("!(x && y)", 1, 3), 0);
	assert_int_equal(eval("-x * 2", 4, 0), -8);
	assert_int_equal(eval("~x", 0, 0), -1);
	assert_int_equal(eval("- -x", 3, 0), 3);
	assert_int_equal(eval("x ? y : 9", 1, 2), 2);
	assert_int_equal(eval("x ? y : 9", 0, 2), 9);
	assert_int_equal(eval("x ? y ? 1 : 2 : 3", 1, 0), 2);
	assert_int_equal(eval("x % 3 + y % 3", 7, 8), 3);
	assert_int_equal(eval("x >> 1 << 2", 5, 0), 8);
	assert_int_equal(eval("x != y", 1, 1), 0);
	assert_int_equal(eval("x <= y && x >= y", 2, 2), 1);
	assert_int_equal(eval("true && !false", 0, 0), 1);
	assert_int_equal(eval("null == 0", 0, 0), 1);
	assert_int_equal(eval("'a' == 97 && '\\x41' == 65 && '\\'' == 39", 0, 0), 1);
	assert_int_equal(eval("tid == 0 && time == 0", 0, 0), 1);
	/* division by zero is defined */
	assert_int_equal(eval("x / y", 5, 0), 0);
	assert_int_equal(eval("x % y", 5, 0), 5);
	/* && and || give 0/1 */
	assert_int_equal(eval("x && y", 5, 7), 1);
	assert_int_equal(eval("x || y", 0, 7), 1);
	assert_int_equal(eval("x || y", 0, 0), 0);
}

static void test_signedness(void **state)
{
	/* variables of eval(): int a = -7, b = 2; uint u = 1; ptr p = 0x10 */
	assert_int_equal(eval("a < b", 0, 0), 1);
	assert_int_equal(eval("a < u", 0, 0), 0);	/* -7 as uint64 */
	assert_int_equal(eval("a / b", 0, 0), -3);
	assert_int_equal(eval("a % b", 0, 0), -1);
	assert_int_equal(eval("a >> 1", 0, 0), -4);
	assert_int_equal(eval("a / u == a", 0, 0), 1);
	assert_int_equal(eval("(a >> u) > 0", 0, 0), 1);
	assert_int_equal(eval("p > a", 0, 0), 0);
	assert_int_equal(eval("p + 8 == 0x18", 0, 0), 1);
	assert_int_equal(eval("x < y", -1, 1), 1);	/* fields are signed */

	assert_int_equal(guard_op("a < 1"), VG_OP_LTS);
	assert_int_equal(guard_op("a <= u"), VG_OP_LEU);
	assert_int_equal(guard_op("u > a"), VG_OP_GTU);
	assert_int_equal(guard_op("p >= 0"), VG_OP_GEU);
	assert_int_equal(guard_op("x >= 0"), VG_OP_GES);
	assert_int_equal(guard_op("a / 2 == 0"), VG_OP_DIVS);
	assert_int_equal(guard_op("u / 2 == 0"), VG_OP_DIVU);
	assert_int_equal(guard_op("a % 2 == 0"), VG_OP_MODS);
	assert_int_equal(guard_op("2 % u == 0"), VG_OP_MODU);
	assert_int_equal(guard_op("a >> 2 == 0"), VG_OP_SHRS);
	assert_int_equal(guard_op("u >> 2 == 0"), VG_OP_SHRU);
	assert_int_equal(guard_op("p >> 2 == 0"), VG_OP_SHRU);
	assert_int_equal(guard_op("a << 2 == 0"), VG_OP_SHL);
	assert_int_equal(guard_op("18446744073709551615 > a"), VG_OP_GTU);
	assert_int_equal(guard_op("t == true"), VG_OP_EQ);
	assert_int_equal(guard_op("-a < 0"), VG_OP_NEG);
	assert_int_equal(guard_op("~a < 0"), VG_OP_BNOT);
	assert_int_equal(guard_op("!t"), VG_OP_NOT);
}

static void test_short_circuit_code(void **state)
{
	struct vg_spec *s = load(
		"property t\nbool a, b\n"
		"state s { before f() when a && b -> s\n"
		"          before g() when a || b -> s }\n");
	const struct vg_property *p = &s->props[0];

	ASSERT_CODE(p, p->trans[0].guard, { VG_OP_LDVAR, 0, 0 },
		    { VG_OP_JZ, 0, 4 }, { VG_OP_LDVAR, 1, 0 },
		    { VG_OP_JZ, 0, 2 }, { VG_OP_PUSH, 0, 1 },
		    { VG_OP_JMP, 0, 1 }, { VG_OP_PUSH, 0, 0 },
		    { VG_OP_END, 0, 0 });
	ASSERT_CODE(p, p->trans[1].guard, { VG_OP_LDVAR, 0, 0 },
		    { VG_OP_JNZ, 0, 4 }, { VG_OP_LDVAR, 1, 0 },
		    { VG_OP_JNZ, 0, 2 }, { VG_OP_PUSH, 0, 0 },
		    { VG_OP_JMP, 0, 1 }, { VG_OP_PUSH, 0, 1 },
		    { VG_OP_END, 0, 0 });
	for (int a = 0; a < 2; a++)
		for (int b = 0; b < 2; b++) {
			struct env env = { .var = { a ? 7 : 0, b ? 9 : 0 } };

			assert_int_equal(run(p, p->trans[0].guard, &env), a && b);
			assert_int_equal(run(p, p->trans[1].guard, &env), a || b);
		}
	vg_spec_free(s);
}

static void test_stack_limit(void **state)
{
	/* right-nested: every level keeps one value on the stack; 8 fit */
	struct vg_spec *s = load(
		"property t\nint a\nstate s { before f() when "
		"a + (a + (a + (a + (a + (a + (a + a)))))) > 0 -> s }\n");
	const struct vg_property *p = &s->props[0];
	struct env env = { .var = { 1 } };

	assert_int_equal(run(p, p->trans[0].guard, &env), 1);
	vg_spec_free(s);
	/* left-nested chains need two, however long */
	s = load("property t\nint a\nstate s { before f() when "
		 "a+a+a+a+a+a+a+a+a+a+a+a+a+a+a+a+a+a+a+a+a+a+a+a+a+a == 26 -> s }\n");
	env.var[0] = 1;
	assert_int_equal(run(&s->props[0], s->props[0].trans[0].guard, &env), 1);
	vg_spec_free(s);
}

static void test_strings(void **state)
{
	struct vg_spec *s = load(
		"property t\nstring name\n"
		"state s {\n"
		"  login(user) when user == \"root\\n\\t\\\\\\\"\\x41\" && name != \"\" { name = user; } -> s\n"
		"}\n"
		"event login(user)\n");
	const struct vg_property *p = &s->props[0];
	uint64_t id = vg_spec_intern(s, "root\n\t\\\"A");

	assert_int_equal(p->code[p->trans[0].guard.off + 1].op, VG_OP_PUSH);
	assert_int_equal(p->code[p->trans[0].guard.off + 1].imm, (int64_t)id);
	assert_int_equal(p->code[p->trans[0].guard.off + 2].op, VG_OP_EQ);
	/* "" is id 0, interned from the start */
	assert_int_equal(p->code[p->trans[0].guard.off + 5].imm, 0);
	assert_int_equal(vg_spec_intern(s, "root\n\t\\\"A"), id);
	assert_int_not_equal(vg_spec_intern(s, "other"), id);
	assert_string_equal(vg_spec_string(s, id), "root\n\t\\\"A");
	assert_null(vg_spec_string(s, 1000000));
	assert_string_equal(vg_spec_string(s, 0), "");
	vg_spec_free(s);
}

static void test_string_table_grows(void **state)
{
	struct vg_spec *s = vg_spec_new();
	char buf[32];

	for (int i = 0; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "s%d", i);
		assert_int_equal(vg_spec_intern(s, buf), (uint64_t)i + 1);
	}
	for (int i = 0; i < 5000; i += 7) {
		snprintf(buf, sizeof(buf), "s%d", i);
		assert_int_equal(vg_spec_intern(s, buf), (uint64_t)i + 1);
		assert_string_equal(vg_spec_string(s, (uint64_t)i + 1), buf);
	}
	vg_spec_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_types_and_inits),
		cmocka_unit_test(test_statements),
		cmocka_unit_test(test_precedence),
		cmocka_unit_test(test_signedness),
		cmocka_unit_test(test_short_circuit_code),
		cmocka_unit_test(test_stack_limit),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_string_table_grows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
