/* Unit tests of the symbol layer (user/sym/: dwarf.h, elf.h) against real
 * binaries: where functions are (symbol tables, DWARF only, debug files
 * by debuglink and build id, inlined copies and clones), and their
 * parameters' types and ABI locations, checked by a ptrace run that
 * stops at their entries (fixtures: sym_fixture.h). */
#include <dlfcn.h>
#include <unistd.h>

#include "sym_fixture.h"

#include <libdwarf/libdwarf.h>

#include "sym/dwarf_internal.h"
#include "sym/elfcopy.h"	/* whether the index was built */

/* --- functions ------------------------------------------------------------- */

static void test_func_symtab(void **state)
{
	struct vg_dwarf *dw = open_ok(P("types"));
	struct vg_err e = { 0 };
	struct vg_func f, g;

	(void)state;
	assert_true(vg_dwarf_has_debug(dw));
	assert_string_equal(vg_dwarf_debug_path(dw), P("types"));
	assert_true(vg_dwarf_is_pie(dw));
	assert_int_equal(vg_dwarf_func(dw, "queue_push", &f, &e), 0);
	assert_int_equal(f.source, VG_SRC_SYMTAB);
	assert_int_equal(f.addr, nm_addr(P("types"), "queue_push"));
	assert_true(f.size > 0);
	assert_false(f.ifunc);
	/* static functions are in .symtab only */
	assert_int_equal(vg_dwarf_func(dw, "helper_static", &g, &e), 0);
	assert_int_equal(g.addr, nm_addr(P("types"), "helper_static"));
	/* the historical entry point agrees */
	assert_int_equal(vg_elf_find_func(P("types"), "queue_push", &g, &e), 0);
	assert_int_equal(g.offset, f.offset);
	assert_int_equal(g.addr, f.addr);
	vg_dwarf_close(dw);
}

static void test_func_nopie_offset(void **state)
{
	struct vg_dwarf *dw = open_ok(P("types_nopie"));
	struct vg_err e = { 0 };
	struct vg_func f;

	(void)state;
	assert_false(vg_dwarf_is_pie(dw));
	assert_int_equal(vg_dwarf_func(dw, "queue_push", &f, &e), 0);
	assert_true(f.addr >= 0x400000);
	/* a non-PIE maps its file at 0x400000: offset = addr - 0x400000 */
	assert_int_equal(f.offset, f.addr - 0x400000);
	vg_dwarf_close(dw);
}

static void test_func_dynsym_and_ifunc(void **state)
{
	struct vg_libs l;
	struct vg_err e = { 0 };
	struct vg_func_where w;
	struct vg_func f;

	(void)state;
	assert_int_equal(vg_libs_load(P("types"), &l, &e), 0);
	assert_int_equal(vg_libs_find_func(&l, "malloc", &w, &e), 0);
	assert_int_equal(w.obj, 1);
	assert_string_equal(l.v[1].needed, "libc.so.6");
	/* Debian's libc keeps only .dynsym */
	assert_int_equal(vg_elf_find_func(w.path, "malloc", &f, &e), 0);
	assert_int_equal(f.offset, w.fn.offset);
	assert_true(w.fn.source == VG_SRC_DYNSYM ||
		    w.fn.source == VG_SRC_SYMTAB);
	assert_false(w.fn.ifunc);
	/* strlen is an IFUNC: its symbol is the resolver, and the probe
	 * goes on the implementation it picks here, which is the one this
	 * very process calls (user/sym/ifunc.c) */
	assert_int_equal(vg_elf_find_func(w.path, "strlen", &f, &e), 0);
	assert_true(f.ifunc);
	assert_int_equal(vg_libs_find_func(&l, "strlen", &w, &e), 0);
	assert_false(w.fn.ifunc);
	assert_true(w.fn.addr != f.addr);
	{
		/* libc's own, not a sanitizer's interceptor */
		void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
		void *impl = libc ? dlsym(libc, "strlen") : NULL;
		Dl_info di;

		assert_non_null(impl);
		dlclose(libc);
		assert_true(dladdr(impl, &di) != 0);
		assert_int_equal(w.fn.addr, (uint64_t)((uintptr_t)impl -
						       (uintptr_t)di.dli_fbase));
	}
	{
		/* its name and size from libc's separate debug file where
		 * the machine has one (libc6-dbg, by build id): the
		 * in-process tier needs the size */
		uint8_t id[64];
		int n = vg_elf_build_id(w.path, id, sizeof(id));
		const char *root = getenv("VIGIL_DEBUG_DIR");
		char dbg[PATH_MAX];
		size_t k;

		assert_true(n > 1);
		k = (size_t)snprintf(dbg, sizeof(dbg), "%s/.build-id/%02x/",
				     root && *root ? root : "/usr/lib/debug",
				     id[0]);
		for (int i = 1; i < n; i++)
			k += (size_t)snprintf(dbg + k, sizeof(dbg) - k, "%02x",
					      id[i]);
		snprintf(dbg + k, sizeof(dbg) - k, ".debug");
		if (access(dbg, R_OK) == 0) {
			assert_true(w.fn.size > 0);
			assert_non_null(strstr(w.sym, "strlen"));
			assert_null(strstr(w.sym, ".ifunc-impl"));
		} else {
			assert_string_equal(w.sym, "strlen.ifunc-impl");
		}
	}
	vg_libs_free(&l);
}

static void test_func_dwarf_only_debuglink(void **state)
{
	struct vg_dwarf *dw = open_ok(P("types_strip"));
	struct vg_err e = { 0 };
	struct vg_func f, ref;
	char want[PATH_MAX];

	(void)state;
	assert_true(vg_dwarf_has_debug(dw));
	FMT(want, "%s/.debug/types_strip.debug", dir);
	assert_string_equal(vg_dwarf_debug_path(dw), want);
	assert_int_equal(vg_elf_find_func(P("types"), "helper_static", &ref, &e),
			 0);
	/* no .symtab, helper_static is static: only DWARF knows it */
	assert_int_equal(vg_dwarf_func(dw, "helper_static", &f, &e), 0);
	assert_int_equal(f.source, VG_SRC_DWARF);
	assert_int_equal(f.addr, ref.addr);
	assert_int_equal(f.offset, ref.offset);
	/* and the old entry point falls back to DWARF too */
	assert_int_equal(vg_elf_find_func(P("types_strip"), "helper_static", &f,
					  &e), 0);
	assert_int_equal(f.offset, ref.offset);
	vg_dwarf_close(dw);
}

static void test_func_dwarf_only_build_id(void **state)
{
	struct vg_dwarf *dw;
	struct vg_err e = { 0 };
	struct vg_func f, ref;
	char root[PATH_MAX];

	(void)state;
	FMT(root, "%s/dbg", dir);
	setenv("VIGIL_DEBUG_DIR", root, 1);
	dw = open_ok(P("types_bid"));
	unsetenv("VIGIL_DEBUG_DIR");
	assert_true(vg_dwarf_has_debug(dw));
	assert_contains(vg_dwarf_debug_path(dw), "/dbg/.build-id/");
	assert_int_equal(vg_elf_find_func(P("types"), "no_params", &ref, &e), 0);
	assert_int_equal(vg_dwarf_func(dw, "no_params", &f, &e), 0);
	assert_int_equal(f.source, VG_SRC_DWARF);
	assert_int_equal(f.offset, ref.offset);
	vg_dwarf_close(dw);
	/* without the debug directory there is no DWARF, and it says so */
	dw = open_ok(P("types_bid"));
	assert_false(vg_dwarf_has_debug(dw));
	assert_int_not_equal(vg_dwarf_func(dw, "no_params", &f, &e), 0);
	assert_contains(e.msg, "'no_params'");
	assert_contains(e.msg, P("types_bid"));
	assert_contains(e.msg, "no DWARF");
	vg_dwarf_close(dw);
}

static void test_func_inlined_everywhere(void **state)
{
	struct vg_dwarf *dw = open_ok(P("types"));
	struct vg_err e = { 0 };
	struct vg_func f;
	char want[PATH_MAX + 128];

	(void)state;
	snprintf(want, sizeof(want),
		 "function 'always_inl' in %s is inlined everywhere; it has no address to probe",
		 P("types"));
	assert_int_equal(vg_dwarf_func(dw, "always_inl", &f, &e), -1);
	assert_contains(e.msg, want);
	assert_int_equal(e.exit_code, 2);
	vg_dwarf_close(dw);
	/* through the old API as well (what probe.c calls) */
	assert_int_equal(vg_elf_find_func(P("types"), "always_inl", &f, &e), -1);
	assert_contains(e.msg, want);
	/* -O2 inlines a small static function everywhere */
	assert_int_equal(vg_elf_find_func(P("inline"), "square", &f, &e), -1);
	snprintf(want, sizeof(want),
		 "function 'square' in %s is inlined everywhere; it has no address to probe",
		 P("inline"));
	assert_contains(e.msg, want);
	/* also with the DWARF in a separate file */
	assert_int_equal(vg_elf_find_func(P("inline_strip"), "square", &f, &e),
			 -1);
	assert_contains(e.msg, "is inlined everywhere");
	/* the normal function next to them is found */
	assert_int_equal(vg_elf_find_func(P("inline"), "kept", &f, &e), 0);
}

static void test_func_only_clones(void **state)
{
	struct vg_err e = { 0 };
	struct vg_func f;

	(void)state;
	/* scale(x, 3) is only ever called with k == 3: GCC keeps only
	 * scale.constprop.0, which takes x alone */
	assert_int_equal(vg_elf_find_func(P("inline"), "scale", &f, &e), -1);
	assert_contains(e.msg, "function 'scale' in");
	assert_contains(e.msg, "scale.constprop");
	assert_contains(e.msg, "parameters differ");
	/* stripped: the DWARF copy with k as a constant gives it away */
	assert_int_equal(vg_elf_find_func(P("inline_strip"), "scale", &f, &e),
			 -1);
	assert_contains(e.msg, "compiler-made copy");
}

static void test_func_not_found(void **state)
{
	struct vg_dwarf *dw = open_ok(P("types"));
	struct vg_err e = { 0 };
	struct vg_func f;

	(void)state;
	assert_int_equal(vg_dwarf_func(dw, "no_such_fn", &f, &e), -1);
	assert_contains(e.msg, "'no_such_fn'");
	assert_contains(e.msg, P("types"));
	/* printf is only declared: it lives in libc */
	assert_int_equal(vg_dwarf_func(dw, "printf", &f, &e), -1);
	assert_contains(e.msg, "only declared");
	vg_dwarf_close(dw);
	/* no DWARF: always_inl is simply absent, and the message says why
	 * DWARF could not help */
	assert_int_equal(vg_elf_find_func(P("types_nodw"), "always_inl", &f, &e),
			 -1);
	assert_contains(e.msg, "'always_inl'");
	assert_contains(e.msg, "no DWARF");
	/* not an ELF file */
	assert_null(vg_dwarf_open(P("b.c"), &e));
	assert_contains(e.msg, P("b.c"));
	assert_null(vg_dwarf_open(P("missing"), &e));
	assert_contains(e.msg, P("missing"));
}

/* --- parameters -------------------------------------------------------------- */

static void test_proto_basic(void **state)
{
	struct vg_dwarf *dw = open_ok(P("types"));
	struct vg_err e = { 0 };
	struct vg_proto p;
	struct vg_type t;
	const struct vg_param *q, *v;

	(void)state;
	assert_int_equal(vg_dwarf_proto(dw, "queue_push", &p, &e), 0);
	assert_string_equal(p.func, "queue_push");
	assert_int_equal(p.nparams, 2);
	assert_false(p.variadic);
	assert_false(p.sret);
	q = param(&p, 0);
	v = param(&p, 1);
	assert_string_equal(q->name, "q");
	assert_int_equal(q->type.kind, VG_TK_PTR);
	assert_int_equal(q->type.size, 8);
	assert_string_equal(q->type.name, "struct queue *");
	assert_int_equal(vg_dwarf_type(dw, q->type.target, &t, &e), 0);
	assert_int_equal(t.kind, VG_TK_STRUCT);
	assert_int_equal(t.size, 96);
	assert_string_equal(t.name, "struct queue");
	assert_reg(q, VG_REG_RDI, VG_REG_NONE);
	assert_string_equal(v->name, "v");
	assert_int_equal(v->type.kind, VG_TK_SINT);
	assert_int_equal(v->type.size, 8);
	assert_reg(v, VG_REG_RSI, VG_REG_NONE);
	assert_true(p.has_ret);
	assert_int_equal(p.ret.kind, VG_TK_SINT);
	assert_int_equal(p.ret.size, 4);
	assert_int_equal(p.ret_loc.reg[0], VG_REG_RAX);
	vg_proto_free(&p);
	/* void (void) */
	assert_int_equal(vg_dwarf_proto(dw, "no_params", &p, &e), 0);
	assert_int_equal(p.nparams, 0);
	assert_false(p.has_ret);
	vg_proto_free(&p);
	vg_dwarf_close(dw);
}

static void test_proto_integer_kinds_and_stack(void **state)
{
	struct vg_dwarf *dw = open_ok(P("types"));
	struct vg_err e = { 0 };
	struct vg_proto p;
	static const struct {
		const char *name;
		enum vg_tkind kind;
		uint64_t size;
	} want[] = { { "a", VG_TK_SINT, 4 }, { "b", VG_TK_SINT, 8 },
		     { "c", VG_TK_SINT, 1 }, { "d", VG_TK_SINT, 2 },
		     { "e", VG_TK_UINT, 4 }, { "f", VG_TK_PTR, 8 },
		     { "g", VG_TK_SINT, 4 }, { "h", VG_TK_SINT, 8 } };
	static const enum vg_reg regs[] = { VG_REG_RDI, VG_REG_RSI, VG_REG_RDX,
					    VG_REG_RCX, VG_REG_R8, VG_REG_R9 };

	(void)state;
	assert_int_equal(vg_dwarf_proto(dw, "many", &p, &e), 0);
	assert_int_equal(p.nparams, 8);
	for (size_t i = 0; i < 8; i++) {
		assert_string_equal(p.params[i].name, want[i].name);
		assert_int_equal(p.params[i].type.kind, want[i].kind);
		assert_int_equal(p.params[i].type.size, want[i].size);
		if (i < 6)
			assert_reg(&p.params[i], regs[i], VG_REG_NONE);
	}
	assert_int_equal(p.params[5].type.target, 0);	/* void * */
	assert_string_equal(p.params[5].type.name, "void *");
	/* the seventh and eighth integers go to the stack */
	assert_stack(&p.params[6], 8);
	assert_stack(&p.params[7], 16);
	vg_proto_free(&p);
	vg_dwarf_close(dw);
}

static void test_proto_sse_struct_mixed(void **state)
{
	struct vg_dwarf *dw = open_ok(P("types"));
	struct vg_err e = { 0 };
	struct vg_proto p;

	(void)state;
	assert_int_equal(vg_dwarf_proto(dw, "mixed", &p, &e), 0);
	assert_int_equal(p.nparams, 9);
	assert_reg(param(&p, 0), VG_REG_RDI, VG_REG_NONE);		/* int a */
	assert_int_equal(p.params[1].type.kind, VG_TK_FLOAT);
	assert_int_equal(p.params[1].type.size, 8);
	assert_reg(param(&p, 1), VG_REG_XMM0, VG_REG_NONE);	/* double x */
	assert_int_equal(p.params[2].type.size, 4);
	assert_reg(param(&p, 2), VG_REG_XMM1, VG_REG_NONE);	/* float y */
	assert_reg(param(&p, 3), VG_REG_RSI, VG_REG_NONE);		/* long b */
	/* struct small { long; double; }: INTEGER + SSE */
	assert_int_equal(p.params[4].type.kind, VG_TK_STRUCT);
	assert_reg(param(&p, 4), VG_REG_RDX, VG_REG_XMM2);
	/* struct big: 24 bytes, memory */
	assert_stack(param(&p, 5), 8);
	assert_int_equal(p.params[6].type.kind, VG_TK_BOOL);
	assert_reg(param(&p, 6), VG_REG_RCX, VG_REG_NONE);
	assert_int_equal(p.params[7].type.kind, VG_TK_ENUM);
	assert_false(p.params[7].type.enum_signed);
	assert_string_equal(p.params[7].type.name, "enum color");
	assert_reg(param(&p, 7), VG_REG_R8, VG_REG_NONE);
	/* struct fpair { float, float }: one SSE eightbyte */
	assert_reg(param(&p, 8), VG_REG_XMM3, VG_REG_NONE);
	assert_int_equal(p.ret.kind, VG_TK_FLOAT);
	assert_int_equal(p.ret_loc.reg[0], VG_REG_XMM0);
	vg_proto_free(&p);
	vg_dwarf_close(dw);
}

static void test_proto_sret_exhaustion_wide(void **state)
{
	struct vg_dwarf *dw = open_ok(P("types"));
	struct vg_err e = { 0 };
	struct vg_proto p;

	(void)state;
	/* struct big returned in memory: %rdi is the hidden pointer */
	assert_int_equal(vg_dwarf_proto(dw, "ret_big", &p, &e), 0);
	assert_true(p.sret);
	assert_reg(param(&p, 0), VG_REG_RSI, VG_REG_NONE);
	assert_reg(param(&p, 1), VG_REG_RDX, VG_REG_NONE);
	assert_int_equal(p.ret_loc.reg[0], VG_REG_RAX);
	vg_proto_free(&p);
	/* struct small returned in %rax and %xmm0 */
	assert_int_equal(vg_dwarf_proto(dw, "ret_small", &p, &e), 0);
	assert_false(p.sret);
	assert_int_equal(p.ret_loc.nregs, 2);
	assert_int_equal(p.ret_loc.reg[0], VG_REG_RAX);
	assert_int_equal(p.ret_loc.reg[1], VG_REG_XMM0);
	vg_proto_free(&p);
	/* a two-register struct that does not fit goes to the stack whole,
	 * and a later integer still takes the last register */
	assert_int_equal(vg_dwarf_proto(dw, "exhaust", &p, &e), 0);
	assert_reg(param(&p, 4), VG_REG_R8, VG_REG_NONE);
	assert_stack(param(&p, 5), 8);
	assert_reg(param(&p, 6), VG_REG_R9, VG_REG_NONE);
	vg_proto_free(&p);
	/* the ninth double goes to the stack */
	assert_int_equal(vg_dwarf_proto(dw, "nine", &p, &e), 0);
	assert_reg(param(&p, 7), VG_REG_XMM7, VG_REG_NONE);
	assert_stack(param(&p, 8), 8);
	vg_proto_free(&p);
	/* long double: memory; __int128: two integer registers */
	assert_int_equal(vg_dwarf_proto(dw, "wide", &p, &e), 0);
	assert_int_equal(p.params[0].type.kind, VG_TK_FLOAT);
	assert_int_equal(p.params[0].type.size, 16);
	assert_stack(param(&p, 0), 8);
	assert_int_equal(p.params[1].type.size, 16);
	assert_reg(param(&p, 1), VG_REG_RDI, VG_REG_RSI);
	assert_reg(param(&p, 2), VG_REG_RDX, VG_REG_NONE);
	vg_proto_free(&p);
	/* a 16-aligned type on the stack skips a slot to align */
	assert_int_equal(vg_dwarf_proto(dw, "stack_align", &p, &e), 0);
	assert_stack(param(&p, 6), 8);
	assert_stack(param(&p, 7), 24);
	assert_stack(param(&p, 8), 40);
	vg_proto_free(&p);
	/* complex double: two SSE registers; complex long double: memory,
	 * 16-aligned */
	assert_int_equal(vg_dwarf_proto(dw, "cplx", &p, &e), 0);
	assert_int_equal(p.params[0].type.kind, VG_TK_OTHER);
	assert_reg(param(&p, 0), VG_REG_XMM0, VG_REG_XMM1);
	assert_int_equal(p.params[1].type.size, 32);
	assert_stack(param(&p, 1), 8);
	assert_reg(param(&p, 2), VG_REG_RDI, VG_REG_NONE);
	vg_proto_free(&p);
	/* variadic */
	assert_int_equal(vg_dwarf_proto(dw, "vfunc", &p, &e), 0);
	assert_true(p.variadic);
	assert_int_equal(p.nparams, 1);
	assert_string_equal(p.params[0].type.name, "const char *");
	vg_proto_free(&p);
	vg_dwarf_close(dw);
}

static void test_proto_typedefs_and_decl(void **state)
{
	struct vg_dwarf *dw = open_ok(P("types"));
	struct vg_err e = { 0 };
	struct vg_proto p;

	(void)state;
	assert_int_equal(vg_dwarf_proto(dw, "typed_ptr", &p, &e), 0);
	assert_string_equal(p.params[0].type.name, "cq_ptr");
	assert_int_equal(p.params[0].type.kind, VG_TK_PTR);
	assert_string_equal(p.params[1].type.name, "my_size");
	assert_int_equal(p.params[1].type.kind, VG_TK_UINT);
	assert_int_equal(p.params[1].type.size, 8);
	vg_proto_free(&p);
	/* an external function known only from its declaration: types, but
	 * no parameter names */
	assert_int_equal(vg_dwarf_proto(dw, "printf", &p, &e), 0);
	assert_true(p.from_decl);
	assert_true(p.variadic);
	assert_int_equal(p.nparams, 1);
	assert_null(p.params[0].name);
	assert_int_equal(p.params[0].type.kind, VG_TK_PTR);
	vg_proto_free(&p);
	/* the abstract instance of an inlined function still has a
	 * prototype */
	assert_int_equal(vg_dwarf_proto(dw, "always_inl", &p, &e), 0);
	assert_string_equal(p.params[0].name, "x");
	vg_proto_free(&p);
	/* errors */
	assert_int_equal(vg_dwarf_proto(dw, "no_such_fn", &p, &e), -1);
	assert_contains(e.msg, "'no_such_fn'");
	assert_contains(e.msg, P("types"));
	vg_dwarf_close(dw);
	dw = open_ok(P("types_nodw"));
	assert_false(vg_dwarf_has_debug(dw));
	assert_int_equal(vg_dwarf_proto(dw, "queue_push", &p, &e), -1);
	assert_contains(e.msg, P("types_nodw"));
	assert_contains(e.msg, "no DWARF");
	vg_dwarf_close(dw);
}

static void test_proto_alias(void **state)
{
	struct vg_dwarf *dw = open_ok(P("types"));
	struct vg_err e = { 0 };
	struct vg_proto p;
	struct vg_func f, g;

	(void)state;
	/* alias_fn is only a symbol; DWARF describes real_impl at the same
	 * address, as glibc's DWARF describes malloc as __libc_malloc */
	assert_int_equal(vg_dwarf_func(dw, "alias_fn", &f, &e), 0);
	assert_int_equal(vg_dwarf_func(dw, "real_impl", &g, &e), 0);
	assert_int_equal(f.addr, g.addr);
	assert_int_equal(vg_dwarf_proto(dw, "alias_fn", &p, &e), 0);
	assert_false(p.from_decl);
	assert_int_equal(p.nparams, 1);
	assert_string_equal(p.params[0].name, "count");
	assert_reg(param(&p, 0), VG_REG_RDI, VG_REG_NONE);
	vg_proto_free(&p);
	vg_dwarf_close(dw);
}

/* A separate debug file with the symbols in the binary: the parameters of
 * a function at a symbol come from its compilation unit alone, without the
 * index of every name; a name without a symbol then builds the index */
static void test_proto_lazy_index(void **state)
{
	struct vg_dwarf *dw = open_ok(P("types_dl"));
	struct vg_err e = { 0 };
	struct vg_proto p;
	struct vg_func f;
	struct vg_type t;

	(void)state;
	assert_true(vg_dwarf_has_debug(dw));
	assert_false(dw->indexed);
	assert_int_equal(vg_dwarf_proto(dw, "queue_push", &p, &e), 0);
	assert_false(dw->indexed);	/* .debug_aranges found its unit */
	assert_int_equal(p.nparams, 2);
	assert_string_equal(param(&p, 0)->name, "q");
	assert_string_equal(param(&p, 0)->type.name, "struct queue *");
	assert_string_equal(param(&p, 1)->name, "v");
	assert_reg(param(&p, 1), VG_REG_RSI, VG_REG_NONE);
	vg_proto_free(&p);
	/* a type by name: the index, built now */
	assert_int_equal(vg_dwarf_type_by_name(dw, "struct queue", &t, &e), 0);
	assert_true(dw->indexed);
	assert_int_equal(t.size, 96);
	/* and a function found by name agrees with the symbol */
	assert_int_equal(vg_dwarf_func(dw, "helper_static", &f, &e), 0);
	assert_int_equal(f.addr, nm_addr(P("types"), "helper_static"));
	vg_dwarf_close(dw);
}

static void test_unreadable_dwarf(void **state)
{
	struct vg_dwarf *dw = open_ok(P("types_bad"));
	struct vg_err e = { 0 };
	struct vg_proto p;
	struct vg_func f;

	(void)state;
	/* the handle still serves the symbol tables */
	assert_false(vg_dwarf_has_debug(dw));
	assert_int_equal(vg_dwarf_func(dw, "printf", &f, &e), -1);
	assert_contains(e.msg, "DWARF is unreadable");
	assert_int_equal(vg_dwarf_proto(dw, "queue_push", &p, &e), -1);
	assert_contains(e.msg, "cannot read the DWARF of");
	assert_contains(e.msg, P("types_bad"));
	vg_dwarf_close(dw);
	assert_int_equal(vg_elf_find_func(P("types_bad"), "queue_push", &f, &e),
			 -1);
	assert_contains(e.msg, "'queue_push'");
}

static void test_reg_helpers(void **state)
{
	(void)state;
	assert_string_equal(vg_reg_name(VG_REG_RDI), "rdi");
	assert_string_equal(vg_reg_name(VG_REG_R9), "r9");
	assert_string_equal(vg_reg_name(VG_REG_XMM7), "xmm7");
	assert_int_equal(vg_reg_ptregs_offset(VG_REG_RDI),
			 offsetof(struct user_regs_struct, rdi));
	assert_int_equal(vg_reg_ptregs_offset(VG_REG_RDI), 112);
	assert_int_equal(vg_reg_ptregs_offset(VG_REG_RAX), 80);
	assert_int_equal(vg_reg_ptregs_offset(VG_REG_R9), 64);
	assert_int_equal(vg_reg_ptregs_offset(VG_REG_XMM0), -1);
}

/* The real check of the classification: run the target under ptrace,
 * stop at the first instruction of each function, read every parameter
 * from the location vg_dwarf_proto gives, and compare it with what main()
 * passes (argc == 1). This also checks the load bias computed from
 * /proc/PID/maps at the exec stop. */
struct expect {
	const char *func;
	size_t nparams;
	const void *val[9];	/* NULL: not checked (a pointer) */
	size_t len[9];
};

struct small { long a; double b; };
struct big { long a, b, c; };
struct pair { long a, b; };
struct fpair { float x, y; };

static void read_loc(pid_t pid, const struct user_regs_struct *r,
		     const struct user_fpregs_struct *fp,
		     const struct vg_loc *l, size_t size, unsigned char *out)
{
	memset(out, 0, size);
	if (l->kind == VG_LOC_REG) {
		for (int k = 0; k < l->nregs; k++) {
			size_t n = size - 8 * k < 8 ? size - 8 * k : 8;
			int off = vg_reg_ptregs_offset(l->reg[k]);

			if (off >= 0)
				memcpy(out + 8 * k, (const char *)r + off, n);
			else
				memcpy(out + 8 * k,
				       (const char *)fp->xmm_space +
					       16 * (l->reg[k] - VG_REG_XMM0),
				       n);
		}
	} else if (l->kind == VG_LOC_STACK) {
		for (size_t i = 0; i < size; i += 8) {
			long w = ptrace(PTRACE_PEEKDATA, pid,
					(void *)(r->rsp + l->stack_off + i), 0);

			memcpy(out + i, &w, size - i < 8 ? size - i : 8);
		}
	}
}

static void check_entry(const char *bin)
{
	static const int i1 = 1;
	static const long l1 = 1, l2 = 2, l3 = 3, l4 = 4, l5 = 5, l6 = 6,
			  l7 = 7, l8 = 8, l9 = 9;
	static const long double ld8 = 8.0L;
	static const int i7 = 7;
	static const char c3 = 3;
	static const short s4 = 4;
	static const unsigned u5 = 5;
	static const double d[9] = { 1, 1, 2, 3, 4, 5, 6, 7, 8 };
	static const float f2 = 2.0f;
	static const struct small sm = { 1, 0.5 };
	static const struct big bg = { 1, 2, 3 };
	static const struct pair pr = { 1, 4 };
	static const struct fpair fpr = { 1.5f, 2.5f };
	static const bool no = false;
	static const int green = 1;
	static const long double ld1 = 1.0L;
	static const __int128 w1 = 1;
	static const double cd[2] = { 1.0, 2.0 };
	static const long double ld3 = 3.0L;
	static const int i4 = 4;
	static const struct expect want[] = {
		{ "many", 8, { &i1, &l2, &c3, &s4, &u5, NULL, &i7, &l8 },
		  { 4, 8, 1, 2, 4, 0, 4, 8 } },
		{ "mixed", 9,
		  { &i1, &d[0], &f2, &l3, &sm, &bg, &no, &green, &fpr },
		  { 4, 8, 4, 8, 16, 24, 1, 4, 8 } },
		{ "exhaust", 7, { &l1, &l1, &l2, &l3, &l4, &pr, &l6 },
		  { 8, 8, 8, 8, 8, 16, 8 } },
		{ "nine", 9,
		  { &d[0], &d[1], &d[2], &d[3], &d[4], &d[5], &d[6], &d[7],
		    &d[8] },
		  { 8, 8, 8, 8, 8, 8, 8, 8, 8 } },
		/* an x87 long double: 10 significant bytes */
		{ "wide", 3, { &ld1, &w1, &l3 }, { 10, 16, 8 } },
		{ "ret_big", 2, { &i1, &l5 }, { 4, 8 } },
		/* complex double in xmm0 + xmm1; complex long double on the
		 * stack (its real part's 10 bytes); k in rdi */
		{ "cplx", 3, { cd, &ld3, &i4 }, { 16, 10, 4 } },
		{ "stack_align", 9,
		  { &l1, &l2, &l3, &l4, &l5, &l6, &l7, &ld8, &l9 },
		  { 8, 8, 8, 8, 8, 8, 8, 10, 8 } },
		{ "queue_push", 2, { NULL, &l1 }, { 0, 8 } },
	};
	enum { N = sizeof(want) / sizeof(want[0]) };
	struct vg_dwarf *dw = open_ok(bin);
	struct vg_proto protos[N];
	uint64_t addr[N];
	long orig[N];
	bool hit[N] = { false };
	struct vg_err e = { 0 };
	uint64_t bias;
	int status;
	pid_t pid;

	for (size_t i = 0; i < N; i++) {
		struct vg_func f;

		assert_int_equal(vg_dwarf_proto(dw, want[i].func, &protos[i], &e),
				 0);
		assert_int_equal(protos[i].nparams, want[i].nparams);
		assert_int_equal(vg_dwarf_func(dw, want[i].func, &f, &e), 0);
		addr[i] = f.addr;
	}
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);

		dup2(devnull, 1);
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		execl(bin, bin, (char *)NULL);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSTOPPED(status));
	assert_int_equal(vg_proc_load_bias(pid, bin, &bias, &e), 0);
	if (!vg_dwarf_is_pie(dw))
		assert_int_equal(bias, 0);
	for (size_t i = 0; i < N; i++) {
		addr[i] += bias;
		errno = 0;
		orig[i] = ptrace(PTRACE_PEEKTEXT, pid, (void *)addr[i], 0);
		assert_int_equal(errno, 0);
		assert_int_equal(ptrace(PTRACE_POKETEXT, pid, (void *)addr[i],
					(void *)((orig[i] & ~0xffL) | 0xcc)),
				 0);
	}
	assert_int_equal(ptrace(PTRACE_CONT, pid, 0, 0), 0);
	for (;;) {
		struct user_regs_struct r;
		struct user_fpregs_struct fp;
		size_t i;

		assert_int_equal(waitpid(pid, &status, 0), pid);
		if (WIFEXITED(status) || WIFSIGNALED(status))
			break;
		if (WSTOPSIG(status) != SIGTRAP) {
			ptrace(PTRACE_CONT, pid, 0, WSTOPSIG(status));
			continue;
		}
		assert_int_equal(ptrace(PTRACE_GETREGS, pid, 0, &r), 0);
		assert_int_equal(ptrace(PTRACE_GETFPREGS, pid, 0, &fp), 0);
		for (i = 0; i < N && addr[i] != r.rip - 1; i++)
			;
		if (i == N) {
			kill(pid, SIGKILL);
			fail_msg("unexpected trap at 0x%llx", r.rip);
		}
		hit[i] = true;
		for (size_t k = 0; k < want[i].nparams; k++) {
			const struct vg_param *pa = &protos[i].params[k];
			unsigned char got[32];

			if (!want[i].val[k])
				continue;
			read_loc(pid, &r, &fp, &pa->loc, pa->type.size, got);
			if (memcmp(got, want[i].val[k], want[i].len[k])) {
				kill(pid, SIGKILL);
				fail_msg("%s: %s: parameter %s is not where the ABI classification put it",
					 bin, want[i].func, pa->name);
			}
		}
		ptrace(PTRACE_POKETEXT, pid, (void *)addr[i], (void *)orig[i]);
		r.rip--;
		ptrace(PTRACE_SETREGS, pid, 0, &r);
		ptrace(PTRACE_CONT, pid, 0, 0);
	}
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	for (size_t i = 0; i < N; i++) {
		if (!hit[i])
			fail_msg("%s: %s was never reached", bin, want[i].func);
		vg_proto_free(&protos[i]);
	}
	vg_dwarf_close(dw);
}

static void test_abi_at_entry_pie(void **state)
{
	(void)state;
	check_entry(P("types"));
}

static void test_abi_at_entry_nopie(void **state)
{
	(void)state;
	check_entry(P("types_nopie"));
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_func_symtab),
	cmocka_unit_test(test_proto_lazy_index),
	cmocka_unit_test(test_func_nopie_offset),
	cmocka_unit_test(test_func_dynsym_and_ifunc),
	cmocka_unit_test(test_func_dwarf_only_debuglink),
	cmocka_unit_test(test_func_dwarf_only_build_id),
	cmocka_unit_test(test_func_inlined_everywhere),
	cmocka_unit_test(test_func_only_clones),
	cmocka_unit_test(test_func_not_found),
	cmocka_unit_test(test_proto_basic),
	cmocka_unit_test(test_proto_integer_kinds_and_stack),
	cmocka_unit_test(test_proto_sse_struct_mixed),
	cmocka_unit_test(test_proto_sret_exhaustion_wide),
	cmocka_unit_test(test_proto_typedefs_and_decl),
	cmocka_unit_test(test_proto_alias),
	cmocka_unit_test(test_unreadable_dwarf),
	cmocka_unit_test(test_reg_helpers),
	cmocka_unit_test(test_abi_at_entry_pie),
	cmocka_unit_test(test_abi_at_entry_nopie),
};

SYM_TEST_MAIN(tests)
