/* Unit tests of the symbol and type layer (user/sym/: dwarf.h, libs.h,
 * maps.h, elf.h) against real binaries.
 *
 * The group setup compiles tests/targets/sym_types.c and sym_inline.c in
 * the variants the tests need (PIE and non-PIE, -O2, without DWARF,
 * stripped with a debug file found by .gnu_debuglink or by build id), and
 * a small program with two shared libraries linked with DT_RUNPATH or
 * DT_RPATH, into a temporary directory it removes at the end. Expected
 * values come from outside the code under test where possible: nm for
 * addresses, ldd (the real loader) for library resolution, and a ptrace
 * run that stops at function entries and reads the arguments where the
 * ABI classification says they are. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sym/dwarf.h"
#include "sym/elf.h"
#include "sym/libs.h"
#include "sym/maps.h"

static char dir[PATH_MAX];	/* the temporary build directory */
static char srcdir[PATH_MAX];	/* tests/targets */
static char self_exe[PATH_MAX];	/* this test binary */

/* path of a file in the temporary directory (32 rotating buffers: at
 * most 32 uses in one expression) */
static const char *P(const char *name)
{
	static char bufs[32][PATH_MAX];
	static int i;
	char *b = bufs[i++ % 32];

	if (snprintf(b, PATH_MAX, "%s/%s", dir, name) >= PATH_MAX)
		abort();
	return b;
}

/* snprintf into an array, failing the test if it does not fit */
#define FMT(buf, ...) \
	assert_true(snprintf(buf, sizeof(buf), __VA_ARGS__) < (int)sizeof(buf))

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	if (st != 0)
		fprintf(stderr, "command failed (%d): %s\n", st, cmd);
	return st;
}

/* first line of a command's output */
static int sh_line(char *out, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int sh_line(char *out, size_t len, const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	FILE *f;
	int ok;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (!(f = popen(cmd, "r")))
		return -1;
	ok = fgets(out, (int)len, f) != NULL;
	pclose(f);
	if (!ok)
		return -1;
	out[strcspn(out, "\n")] = 0;
	return 0;
}

/* the address nm gives a symbol */
static uint64_t nm_addr(const char *bin, const char *sym)
{
	char line[256] = "";

	if (sh_line(line, sizeof(line),
		    "nm %s | awk '$3 == \"%s\" { print $1 }'", bin, sym))
		return 0;
	return strtoull(line, NULL, 16);
}

static bool find_srcdir(void)
{
	const char *env = getenv("VIGIL_SRC_DIR");
	char exe[PATH_MAX], *s;
	struct stat st;

	if (env) {
		return snprintf(srcdir, sizeof(srcdir), "%s/tests/targets",
				env) < (int)sizeof(srcdir) &&
		       stat(srcdir, &st) == 0;
	}
	if (stat("tests/targets/sym_types.c", &st) == 0 &&
	    realpath("tests/targets", srcdir))
		return true;
	/* build/tests/test_sym -> ../../tests/targets */
	snprintf(exe, sizeof(exe), "%s", self_exe);
	for (int i = 0; i < 3 && (s = strrchr(exe, '/')); i++)
		*s = 0;
	return snprintf(srcdir, sizeof(srcdir), "%s/tests/targets", exe) <
		       (int)sizeof(srcdir) &&
	       stat(srcdir, &st) == 0;
}

static const char lib_b[] = "int libb_func(int x) { return x + 2; }\n";
static const char lib_a[] =
	"int libb_func(int);\n"
	"int liba_func(int x) { return libb_func(x) * 2; }\n";
/* libd.so: stripped, DWARF in a debug file; libd_static has no symbol,
 * libd_inl is inlined everywhere */
static const char lib_d[] =
	"__attribute__((noinline)) static int libd_static(int x) { return x * 5; }\n"
	"static inline __attribute__((always_inline)) int libd_inl(int x) { return x - 1; }\n"
	"int libd_func(int x) { return libd_static(x) + libd_inl(x); }\n";
static const char app_d[] =
	"int libd_func(int);\n"
	"int main(int argc, char **argv) { (void)argv; return libd_func(argc) == 0; }\n";
static const char app_c[] =
	"int liba_func(int);\n"
	"int main(int argc, char **argv) { (void)argv; return liba_func(argc) == 0; }\n";
/* two units: struct opaque is only declared where peek() is */
static const char opq_a[] =
	"struct opaque;\n"
	"struct opaque *mk(void);\n"
	"int inspect(struct opaque *o);\n"
	"__attribute__((noinline)) int peek(struct opaque *o) { return inspect(o); }\n"
	"__attribute__((noinline, used)) static int dup_static(int a) { return a; }\n"
	"int main(void) { return peek(mk()); }\n";
static const char opq_b[] =
	"#include <stdlib.h>\n"
	"struct opaque { int a; long b; };\n"
	"struct opaque *mk(void) { return calloc(1, sizeof(struct opaque)); }\n"
	"__attribute__((noinline, used)) static long dup_static(long b, long c) { return b + c; }\n"
	"int inspect(struct opaque *o) { return o->a + (int)dup_static(o->b, 1); }\n";

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

#define CC "cc -O1 -g -fno-omit-frame-pointer -fno-inline -pthread"

static int teardown(void **state);
static int build_fixtures(void);

/* cmocka skips the group teardown when the setup fails: clean up here */
static int setup(void **state)
{
	if (build_fixtures() == 0)
		return 0;
	teardown(state);
	return -1;
}

static int build_fixtures(void)
{
	static char types[PATH_MAX], inl[PATH_MAX];
	char bid[128] = "";

	if (!find_srcdir()) {
		fprintf(stderr, "cannot find tests/targets (set VIGIL_SRC_DIR)\n");
		return -1;
	}
	snprintf(dir, sizeof(dir), "/tmp/vigil-sym-XXXXXX");
	if (!mkdtemp(dir)) {
		dir[0] = 0;
		return -1;
	}
	if (snprintf(types, sizeof(types), "%s/sym_types.c", srcdir) >=
		    (int)sizeof(types) ||
	    snprintf(inl, sizeof(inl), "%s/sym_inline.c", srcdir) >=
		    (int)sizeof(inl))
		return -1;
	if (sh(CC " -o %s %s", P("types"), types) ||
	    sh(CC " -no-pie -fno-pie -o %s %s", P("types_nopie"), types) ||
	    sh("cc -O1 -fno-inline -pthread -o %s %s", P("types_nodw"), types) ||
	    sh("cc -O2 -g -o %s %s", P("inline"), inl))
		return -1;
	/* stripped, debug file in .debug/ next to it, found by debuglink */
	if (sh("mkdir -p %s/.debug && cp %s %s && objcopy --only-keep-debug %s %s/.debug/types_strip.debug && strip -s %s && objcopy --add-gnu-debuglink=%s/.debug/types_strip.debug %s",
	       dir, P("types"), P("types_strip"), P("types_strip"), dir,
	       P("types_strip"), dir, P("types_strip")))
		return -1;
	/* stripped, no debuglink, debug file under DEBUGDIR/.build-id/ */
	if (sh("cp %s %s && objcopy --only-keep-debug %s %s.debug && strip -s %s",
	       P("types"), P("types_bid"), P("types_bid"), P("types_bid"),
	       P("types_bid")) ||
	    sh_line(bid, sizeof(bid),
		    "readelf -n %s | awk '/Build ID/ { print $3 }'",
		    P("types_bid")) ||
	    strlen(bid) < 4 ||
	    sh("mkdir -p %s/dbg/.build-id/%.2s && mv %s.debug %s/dbg/.build-id/%.2s/%s.debug",
	       dir, bid, P("types_bid"), dir, bid, bid + 2))
		return -1;
	/* the same -O2 build, stripped, debuglink: no symbols to name clones */
	if (sh("cp %s %s && objcopy --only-keep-debug %s %s.debug && strip -s %s && objcopy --add-gnu-debuglink=%s.debug %s",
	       P("inline"), P("inline_strip"), P("inline_strip"),
	       P("inline_strip"), P("inline_strip"), P("inline_strip"),
	       P("inline_strip")))
		return -1;
	/* stripped, its debug file's .debug_info overwritten with 0xff:
	 * DWARF that exists but cannot be read */
	if (sh("cp %s %s && objcopy --only-keep-debug %s %s.debug && strip -s %s && head -c 4096 /dev/zero | tr '\\000' '\\377' > %s && objcopy --update-section .debug_info=%s %s.debug && objcopy --add-gnu-debuglink=%s.debug %s",
	       P("types"), P("types_bad"), P("types_bad"), P("types_bad"),
	       P("types_bad"), P("ff"), P("ff"), P("types_bad"),
	       P("types_bad"), P("types_bad")))
		return -1;
	/* libraries: lib/liba.so (RUNPATH $ORIGIN/../lib2) and
	 * lib/liba_norun.so (none) need lib2/libb.so */
	if (write_file(P("d.c"), lib_d) || write_file(P("app_d.c"), app_d) ||
	    write_file(P("b.c"), lib_b) || write_file(P("a.c"), lib_a) ||
	    write_file(P("app.c"), app_c) || write_file(P("opq_a.c"), opq_a) ||
	    write_file(P("opq_b.c"), opq_b))
		return -1;
	if (sh("mkdir -p %s/lib %s/lib2 %s/llp", dir, dir, dir) ||
	    sh("cc -shared -fPIC -Wl,-soname,libb.so -o %s/lib2/libb.so %s",
	       dir, P("b.c")) ||
	    sh("cc -shared -fPIC -Wl,-soname,liba.so -Wl,--enable-new-dtags,-rpath,'$ORIGIN/../lib2' -o %s/lib/liba.so %s -L%s/lib2 -lb",
	       dir, P("a.c"), dir) ||
	    sh("cc -shared -fPIC -Wl,-soname,liba_norun.so -o %s/lib/liba_norun.so %s -L%s/lib2 -lb",
	       dir, P("a.c"), dir) ||
	    sh("cc -o %s %s -L%s/lib -la -Wl,--enable-new-dtags,-rpath,'$ORIGIN/lib'",
	       P("app_runpath"), P("app.c"), dir) ||
	    sh("cc -o %s %s -L%s/lib -l:liba_norun.so -Wl,-rpath-link,%s/lib2 -Wl,--disable-new-dtags,-rpath,'$ORIGIN/lib:$ORIGIN/lib2'",
	       P("app_rpath"), P("app.c"), dir, dir) ||
	    sh("cc -o %s %s -L%s/lib -l:liba_norun.so -Wl,-rpath-link,%s/lib2 -Wl,--enable-new-dtags,-rpath,'$ORIGIN/lib:$ORIGIN/lib2'",
	       P("app_runpath2"), P("app.c"), dir, dir) ||
	    sh("cc -O1 -g -o %s %s %s", P("opaque"), P("opq_a.c"),
	       P("opq_b.c")))
		return -1;
	if (sh("cc -O1 -g -shared -fPIC -Wl,-soname,libd.so -o %s/lib/libd.so %s && objcopy --only-keep-debug %s/lib/libd.so %s/lib/libd.so.debug && strip -s %s/lib/libd.so && objcopy --add-gnu-debuglink=%s/lib/libd.so.debug %s/lib/libd.so",
	       dir, P("d.c"), dir, dir, dir, dir, dir) ||
	    sh("cc -o %s %s -L%s/lib -ld -Wl,-rpath,'$ORIGIN/lib'",
	       P("app_d"), P("app_d.c"), dir))
		return -1;
	/* llp/libb.so: a libb.so of the wrong ELF class, which the loader
	 * (and vigil) must skip */
	if (sh("cp %s/lib2/libb.so %s/llp/libb.so && printf '\\001' | dd of=%s/llp/libb.so bs=1 seek=4 conv=notrunc status=none",
	       dir, dir, dir))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (dir[0] && strncmp(dir, "/tmp/vigil-sym-", 15) == 0)
		sh("rm -rf '%s'", dir);
	return 0;
}

/* --- helpers ----------------------------------------------------------------- */

static struct vg_dwarf *open_ok(const char *bin)
{
	struct vg_err e = { 0 };
	struct vg_dwarf *dw = vg_dwarf_open(bin, &e);

	if (!dw)
		fail_msg("vg_dwarf_open(%s): %s", bin, e.msg);
	return dw;
}

static void assert_contains(const char *s, const char *sub)
{
	if (!strstr(s, sub))
		fail_msg("'%s' does not contain '%s'", s, sub);
}

static const struct vg_param *param(const struct vg_proto *p, size_t i)
{
	assert_true(i < p->nparams);
	return &p->params[i];
}

static void assert_reg(const struct vg_param *pa, enum vg_reg r0,
		       enum vg_reg r1)
{
	assert_int_equal(pa->loc.kind, VG_LOC_REG);
	assert_int_equal(pa->loc.nregs, r1 == VG_REG_NONE ? 1 : 2);
	if (pa->loc.reg[0] != r0 || (r1 && pa->loc.reg[1] != r1))
		fail_msg("%s: in %s %s, expected %s %s", pa->name,
			 vg_reg_name(pa->loc.reg[0]),
			 pa->loc.nregs > 1 ? vg_reg_name(pa->loc.reg[1]) : "",
			 vg_reg_name(r0), r1 ? vg_reg_name(r1) : "");
}

static void assert_stack(const struct vg_param *pa, int off)
{
	assert_int_equal(pa->loc.kind, VG_LOC_STACK);
	assert_int_equal(pa->loc.stack_off, off);
}

/* --- 1. functions ------------------------------------------------------------- */

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
	/* strlen is an IFUNC: its symbol is the resolver */
	assert_int_equal(vg_libs_find_func(&l, "strlen", &w, &e), 0);
	assert_true(w.fn.ifunc);
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

/* --- 2. parameters -------------------------------------------------------------- */

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

/* --- 3. struct fields ------------------------------------------------------------- */

static vg_type_id param_type(struct vg_dwarf *dw, const char *func, size_t i)
{
	struct vg_err e = { 0 };
	struct vg_proto p;
	vg_type_id t;

	if (vg_dwarf_proto(dw, func, &p, &e))
		fail_msg("%s", e.msg);
	assert_true(i < p.nparams);
	t = p.params[i].type.id;
	vg_proto_free(&p);
	return t;
}

static void field_ok(struct vg_dwarf *dw, vg_type_id base, const char *path,
		     uint64_t off, uint64_t size, enum vg_tkind kind,
		     struct vg_field *f)
{
	struct vg_err e = { 0 };

	if (vg_dwarf_field(dw, base, path, f, &e))
		fail_msg("field %s: %s", path, e.msg);
	if (f->offset != off || f->size != size || f->type.kind != kind)
		fail_msg("field %s: offset %llu size %llu kind %d; expected %llu %llu %d",
			 path, (unsigned long long)f->offset,
			 (unsigned long long)f->size, f->type.kind,
			 (unsigned long long)off, (unsigned long long)size,
			 kind);
}

static void test_field_simple(void **state)
{
	struct vg_dwarf *dw = open_ok(P("types"));
	vg_type_id q = param_type(dw, "queue_push", 0);
	struct vg_field f;
	struct vg_type t;
	struct vg_err e = { 0 };

	(void)state;
	field_ok(dw, q, "cap", 0, 4, VG_TK_SINT, &f);
	field_ok(dw, q, "count", 4, 4, VG_TK_SINT, &f);
	assert_int_equal(f.bit_size, 0);
	field_ok(dw, q, "items", 40, 8, VG_TK_PTR, &f);
	assert_string_equal(f.type.name, "long int *");
	field_ok(dw, q, "name", 48, 8, VG_TK_PTR, &f);
	field_ok(dw, q, "color", 56, 4, VG_TK_ENUM, &f);
	field_ok(dw, q, "ok", 60, 1, VG_TK_BOOL, &f);
	field_ok(dw, q, "ratio", 64, 8, VG_TK_FLOAT, &f);
	field_ok(dw, q, "next", 72, 8, VG_TK_PTR, &f);
	/* follow next: its target is struct queue again */
	assert_int_equal(vg_dwarf_type(dw, f.type.target, &t, &e), 0);
	assert_string_equal(t.name, "struct queue");
	field_ok(dw, f.type.target, "count", 4, 4, VG_TK_SINT, &f);
	vg_dwarf_close(dw);
}

static void test_field_nested_anonymous_array(void **state)
{
	struct vg_dwarf *dw = open_ok(P("types"));
	vg_type_id q = param_type(dw, "queue_push", 0);
	struct vg_field f;

	(void)state;
	field_ok(dw, q, "in", 8, 16, VG_TK_STRUCT, &f);
	assert_string_equal(f.type.name, "struct inner");
	field_ok(dw, q, "in.s", 8, 2, VG_TK_SINT, &f);
	field_ok(dw, q, "in.c", 10, 1, VG_TK_SINT, &f);
	field_ok(dw, q, "in.l", 16, 8, VG_TK_SINT, &f);
	field_ok(dw, q, "pos.x", 24, 4, VG_TK_SINT, &f);
	field_ok(dw, q, "pos.y", 28, 4, VG_TK_SINT, &f);
	/* C11 anonymous union */
	field_ok(dw, q, "u1", 32, 4, VG_TK_SINT, &f);
	field_ok(dw, q, "u2", 32, 4, VG_TK_FLOAT, &f);
	field_ok(dw, q, "arr", 80, 16, VG_TK_ARRAY, &f);
	assert_int_equal(f.type.count, 4);
	field_ok(dw, q, "arr[2]", 88, 4, VG_TK_SINT, &f);
	vg_dwarf_close(dw);
}

static void test_field_bitfields(void **state)
{
	struct vg_dwarf *dw = open_ok(P("types"));
	vg_type_id q = param_type(dw, "queue_push", 0);
	struct vg_field f;

	(void)state;
	field_ok(dw, q, "flag", 36, 1, VG_TK_UINT, &f);
	assert_int_equal(f.bit_offset, 0);
	assert_int_equal(f.bit_size, 3);
	field_ok(dw, q, "bits", 36, 1, VG_TK_UINT, &f);
	assert_int_equal(f.bit_offset, 3);
	assert_int_equal(f.bit_size, 5);
	vg_dwarf_close(dw);
}

static void test_field_through_typedefs(void **state)
{
	struct vg_dwarf *dw = open_ok(P("types"));
	/* cq_ptr = const volatile queue_t *, queue_t = struct queue */
	vg_type_id cq = param_type(dw, "typed_ptr", 0);
	struct vg_field f;
	struct vg_type t;
	struct vg_err e = { 0 };

	(void)state;
	field_ok(dw, cq, "in.l", 16, 8, VG_TK_SINT, &f);
	assert_int_equal(vg_dwarf_type_by_name(dw, "queue_t", &t, &e), 0);
	assert_int_equal(t.kind, VG_TK_STRUCT);
	field_ok(dw, t.id, "pos.y", 28, 4, VG_TK_SINT, &f);
	assert_int_equal(vg_dwarf_type_by_name(dw, "struct queue", &t, &e), 0);
	assert_int_equal(t.size, 96);
	assert_int_equal(t.align, 8);
	assert_int_equal(vg_dwarf_type_by_name(dw, "enum color", &t, &e), 0);
	assert_int_equal(t.kind, VG_TK_ENUM);
	assert_int_equal(vg_dwarf_type_by_name(dw, "struct nope", &t, &e), -1);
	assert_contains(e.msg, "struct nope");
	assert_contains(e.msg, P("types"));
	vg_dwarf_close(dw);
}

static void test_field_errors(void **state)
{
	struct vg_dwarf *dw = open_ok(P("types"));
	vg_type_id q = param_type(dw, "queue_push", 0);
	struct vg_field f;
	struct vg_err e = { 0 };
	char want[PATH_MAX + 64];

	(void)state;
	FMT(want, "no field 'x' in struct queue (%s)",
		 P("types"));
	assert_int_equal(vg_dwarf_field(dw, q, "x", &f, &e), -1);
	assert_string_equal(e.msg, want);
	assert_int_equal(e.exit_code, 2);
	FMT(want, "no field 'zz' in struct inner (%s)",
		 P("types"));
	assert_int_equal(vg_dwarf_field(dw, q, "in.zz", &f, &e), -1);
	assert_string_equal(e.msg, want);
	assert_int_equal(vg_dwarf_field(dw, q, "count.x", &f, &e), -1);
	assert_contains(e.msg, "not a struct");
	assert_int_equal(vg_dwarf_field(dw, q, "arr[4]", &f, &e), -1);
	assert_contains(e.msg, "out of bounds");
	assert_int_equal(vg_dwarf_field(dw, q, "items[1]", &f, &e), -1);
	assert_contains(e.msg, "pointer");
	assert_int_equal(vg_dwarf_field(dw, q, "next->count", &f, &e), -1);
	assert_contains(e.msg, "->");
	assert_int_equal(vg_dwarf_field(dw, q, "in.", &f, &e), -1);
	assert_int_equal(vg_dwarf_field(dw, q, "arr[1]x", &f, &e), -1);
	assert_int_equal(vg_dwarf_field(dw, q, "arr[1].", &f, &e), -1);
	assert_int_equal(vg_dwarf_field(dw, q, "arr[x]", &f, &e), -1);
	assert_int_equal(vg_dwarf_field(dw, q, "", &f, &e), -1);
	vg_dwarf_close(dw);
}

static void test_field_completed_from_other_unit(void **state)
{
	struct vg_dwarf *dw = open_ok(P("opaque"));
	/* peek(struct opaque *) is in a unit where struct opaque is only
	 * declared; the definition is in the other unit */
	vg_type_id o = param_type(dw, "peek", 0);
	struct vg_field f;

	(void)state;
	field_ok(dw, o, "b", 8, 8, VG_TK_SINT, &f);
	field_ok(dw, o, "a", 0, 4, VG_TK_SINT, &f);
	vg_dwarf_close(dw);
}

static void test_proto_matches_probed_address(void **state)
{
	struct vg_dwarf *dw = open_ok(P("opaque"));
	struct vg_err e = { 0 };
	struct vg_proto p;
	struct vg_func f;
	char file[PATH_MAX] = "";

	(void)state;
	/* two static dup_static, one per file, with different parameters:
	 * the prototype is the one of the code at the symbol's address */
	assert_int_equal(vg_dwarf_func(dw, "dup_static", &f, &e), 0);
	assert_int_equal(sh_line(file, sizeof(file), "addr2line -e %s 0x%llx",
				 P("opaque"), (unsigned long long)f.addr),
			 0);
	assert_int_equal(vg_dwarf_proto(dw, "dup_static", &p, &e), 0);
	if (strstr(file, "opq_a.c")) {
		assert_int_equal(p.nparams, 1);
		assert_string_equal(p.params[0].name, "a");
	} else {
		assert_non_null(strstr(file, "opq_b.c"));
		assert_int_equal(p.nparams, 2);
		assert_string_equal(p.params[0].name, "b");
	}
	vg_proto_free(&p);
	vg_dwarf_close(dw);
}

/* --- 4. globals --------------------------------------------------------------------- */

static void test_globals(void **state)
{
	struct vg_dwarf *dw = open_ok(P("types"));
	struct vg_global g;
	struct vg_err e = { 0 };

	(void)state;
	assert_int_equal(vg_dwarf_global(dw, "g_counter", &g, &e), 0);
	assert_int_equal(g.addr, nm_addr(P("types"), "g_counter"));
	assert_int_equal(g.size, 4);
	assert_true(g.pie);
	assert_int_equal(g.source, VG_SRC_SYMTAB);
	assert_true(g.has_type);
	assert_int_equal(g.type.kind, VG_TK_SINT);
	assert_int_equal(vg_dwarf_global(dw, "s_hidden", &g, &e), 0);
	assert_int_equal(g.addr, nm_addr(P("types"), "s_hidden"));
	assert_int_equal(g.size, 80);
	assert_int_equal(g.type.kind, VG_TK_ARRAY);
	assert_int_equal(g.type.count, 10);
	assert_string_equal(g.type.name, "long int[10]");
	assert_int_equal(vg_dwarf_global(dw, "g_queue", &g, &e), 0);
	assert_int_equal(g.type.kind, VG_TK_STRUCT);
	assert_int_equal(g.size, 96);
	assert_int_equal(vg_dwarf_global(dw, "g_size", &g, &e), 0);
	assert_string_equal(g.type.name, "my_size");
	assert_int_equal(g.type.kind, VG_TK_UINT);
	/* refused or absent, with the name and the binary */
	assert_int_equal(vg_dwarf_global(dw, "t_local", &g, &e), -1);
	assert_contains(e.msg, "'t_local'");
	assert_contains(e.msg, "thread-local");
	assert_int_equal(vg_dwarf_global(dw, "nope", &g, &e), -1);
	assert_contains(e.msg, "'nope'");
	assert_contains(e.msg, P("types"));
	vg_dwarf_close(dw);
	dw = open_ok(P("types_nopie"));
	assert_int_equal(vg_dwarf_global(dw, "g_counter", &g, &e), 0);
	assert_false(g.pie);
	assert_int_equal(g.addr, nm_addr(P("types_nopie"), "g_counter"));
	vg_dwarf_close(dw);
}

static void test_globals_dwarf_only_and_no_dwarf(void **state)
{
	struct vg_dwarf *dw = open_ok(P("types_strip"));
	struct vg_global g;
	struct vg_err e = { 0 };

	(void)state;
	assert_int_equal(vg_dwarf_global(dw, "s_hidden", &g, &e), 0);
	assert_int_equal(g.source, VG_SRC_DWARF);
	assert_int_equal(g.addr, nm_addr(P("types"), "s_hidden"));
	assert_int_equal(g.size, 80);
	vg_dwarf_close(dw);
	dw = open_ok(P("types_nodw"));
	assert_int_equal(vg_dwarf_global(dw, "g_counter", &g, &e), 0);
	assert_false(g.has_type);
	assert_int_equal(g.size, 4);
	vg_dwarf_close(dw);
}

/* --- 5. libraries ---------------------------------------------------------------------- */

/* ldd (the loader itself, in trace mode) agrees with every resolution */
static void agree_with_ldd(const struct vg_libs *l)
{
	for (size_t i = 1; i < l->n; i++) {
		char line[PATH_MAX + 64] = "", real_a[PATH_MAX],
		     real_b[PATH_MAX];

		if (strchr(l->v[i].needed, '/'))
			continue;	/* ldd prints the interpreter apart */
		sh_line(line, sizeof(line),
			"ldd %s | awk '$1 == \"%s\" { print $3 }'",
			l->v[0].path, l->v[i].needed);
		/* ldd lists the loader by its PT_INTERP path */
		if (!line[0] && !strncmp(l->v[i].needed, "ld-linux", 8))
			sh_line(line, sizeof(line),
				"ldd %s | awk '$1 ~ /\\/%s$/ { print $1 }'",
				l->v[0].path, l->v[i].needed);
		if (!l->v[i].path) {
			assert_string_equal(line, "not");
			continue;
		}
		if (!realpath(line, real_a) ||
		    !realpath(l->v[i].path, real_b) ||
		    strcmp(real_a, real_b))
			fail_msg("%s: ldd finds %s at '%s', vigil at %s",
				 l->v[0].path, l->v[i].needed, line,
				 l->v[i].path);
	}
}

static const struct vg_lib *lib_named(const struct vg_libs *l,
				      const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].needed, name))
			return &l->v[i];
	fail_msg("%s does not load %s", l->v[0].path, name);
	return NULL;
}

static void test_libs_runpath(void **state)
{
	struct vg_libs l;
	struct vg_err e = { 0 };
	const struct vg_lib *a, *b, *c;
	char want[PATH_MAX];

	(void)state;
	unsetenv("LD_LIBRARY_PATH");
	assert_int_equal(vg_libs_load(P("app_runpath"), &l, &e), 0);
	assert_string_equal(l.v[0].how, "binary");
	a = lib_named(&l, "liba.so");
	FMT(want, "%s/lib/liba.so", dir);
	assert_string_equal(a->path, want);
	assert_string_equal(a->how, "runpath");
	/* liba's own RUNPATH, $ORIGIN/../lib2, finds libb */
	b = lib_named(&l, "libb.so");
	assert_string_equal(b->how, "runpath");
	assert_string_equal(l.v[b->loader].needed, "liba.so");
	c = lib_named(&l, "libc.so.6");
	assert_string_equal(c->how, "ld.so.cache");
	assert_true(c->ino != 0);
	agree_with_ldd(&l);
	vg_libs_free(&l);
}

static void test_libs_rpath_inherited(void **state)
{
	struct vg_libs l;
	struct vg_err e = { 0 };
	const struct vg_lib *b;

	(void)state;
	unsetenv("LD_LIBRARY_PATH");
	/* DT_RPATH of the executable also serves its libraries' needs */
	assert_int_equal(vg_libs_load(P("app_rpath"), &l, &e), 0);
	assert_string_equal(lib_named(&l, "liba_norun.so")->how, "rpath");
	b = lib_named(&l, "libb.so");
	assert_non_null(b->path);
	assert_string_equal(b->how, "rpath");
	agree_with_ldd(&l);
	vg_libs_free(&l);
}

static void test_libs_runpath_not_inherited(void **state)
{
	struct vg_libs l;
	struct vg_err e = { 0 };
	struct vg_func_where w;

	(void)state;
	unsetenv("LD_LIBRARY_PATH");
	/* DT_RUNPATH does not: libb.so is not found */
	assert_int_equal(vg_libs_load(P("app_runpath2"), &l, &e), 0);
	assert_null(lib_named(&l, "libb.so")->path);
	agree_with_ldd(&l);
	assert_int_equal(vg_libs_find_func(&l, "libb_func", &w, &e), -1);
	assert_contains(e.msg, "'libb_func'");
	assert_contains(e.msg, P("app_runpath2"));
	assert_contains(e.msg, "libb.so");
	vg_libs_free(&l);
}

static void test_libs_ld_library_path(void **state)
{
	struct vg_libs l;
	struct vg_err e = { 0 };
	const struct vg_lib *b;
	char llp[2 * PATH_MAX + 2], want[PATH_MAX];

	(void)state;
	/* llp/libb.so has the wrong ELF class: skipped, as ld.so does */
	FMT(llp, "%s/llp:%s/lib2", dir, dir);
	setenv("LD_LIBRARY_PATH", llp, 1);
	assert_int_equal(vg_libs_load(P("app_runpath2"), &l, &e), 0);
	b = lib_named(&l, "libb.so");
	FMT(want, "%s/lib2/libb.so", dir);
	assert_string_equal(b->path, want);
	assert_string_equal(b->how, "LD_LIBRARY_PATH");
	agree_with_ldd(&l);
	vg_libs_free(&l);
	unsetenv("LD_LIBRARY_PATH");
}

static void test_libs_of_this_test_agree_with_ldd(void **state)
{
	struct vg_libs l;
	struct vg_err e = { 0 };

	(void)state;
	unsetenv("LD_LIBRARY_PATH");
	/* cmocka, libdwarf, libelf, libbpf, libz, libc, ...: from the
	 * ld.so.cache, checked against the real loader */
	assert_int_equal(vg_libs_load(self_exe, &l, &e), 0);
	assert_true(l.n >= 4);
	agree_with_ldd(&l);
	lib_named(&l, "libdwarf.so.1");
	vg_libs_free(&l);
}

static void test_libs_find_func(void **state)
{
	struct vg_libs l;
	struct vg_err e = { 0 };
	struct vg_func_where w;
	struct vg_func f;
	char want[PATH_MAX];

	(void)state;
	unsetenv("LD_LIBRARY_PATH");
	assert_int_equal(vg_libs_load(P("app_runpath"), &l, &e), 0);
	assert_int_equal(vg_libs_find_func(&l, "main", &w, &e), 0);
	assert_int_equal(w.obj, 0);
	assert_string_equal(w.path, P("app_runpath"));
	assert_int_equal(vg_libs_find_func(&l, "liba_func", &w, &e), 0);
	FMT(want, "%s/lib/liba.so", dir);
	assert_string_equal(w.path, want);
	assert_int_equal(vg_elf_find_func(want, "liba_func", &f, &e), 0);
	assert_int_equal(w.fn.offset, f.offset);
	assert_int_equal(vg_libs_find_func(&l, "libb_func", &w, &e), 0);
	assert_string_equal(l.v[w.obj].needed, "libb.so");
	assert_int_equal(vg_libs_find_func(&l, "malloc", &w, &e), 0);
	assert_string_equal(w.path, lib_named(&l, "libc.so.6")->path);
	assert_int_equal(vg_libs_find_func(&l, "no_such_fn", &w, &e), -1);
	assert_contains(e.msg, "'no_such_fn'");
	assert_contains(e.msg, P("app_runpath"));
	assert_contains(e.msg, "libraries");
	vg_libs_free(&l);
	/* inlined in the binary: the reason wins over "not found" */
	assert_int_equal(vg_libs_load(P("types"), &l, &e), 0);
	assert_int_equal(vg_libs_find_func(&l, "always_inl", &w, &e), -1);
	assert_contains(e.msg, "inlined everywhere");
	vg_libs_free(&l);
}

static void test_libs_find_func_in_library_dwarf(void **state)
{
	struct vg_libs l;
	struct vg_err e = { 0 };
	struct vg_func_where w;
	char want[PATH_MAX];

	(void)state;
	unsetenv("LD_LIBRARY_PATH");
	assert_int_equal(vg_libs_load(P("app_d"), &l, &e), 0);
	FMT(want, "%s/lib/libd.so", dir);
	/* exported: .dynsym */
	assert_int_equal(vg_libs_find_func(&l, "libd_func", &w, &e), 0);
	assert_string_equal(w.path, want);
	assert_int_equal(w.fn.source, VG_SRC_DYNSYM);
	/* static, symbols stripped: the library's debug file */
	assert_int_equal(vg_libs_find_func(&l, "libd_static", &w, &e), 0);
	assert_string_equal(w.path, want);
	assert_string_equal(l.v[w.obj].needed, "libd.so");
	assert_int_equal(w.fn.source, VG_SRC_DWARF);
	FMT(want, "%s/lib/libd.so.debug", dir);
	assert_int_equal(w.fn.addr, nm_addr(want, "libd_static"));
	assert_true(w.fn.offset > 0);
	FMT(want, "%s/lib/libd.so", dir);
	/* inlined everywhere in the library: the reason, naming it */
	assert_int_equal(vg_libs_find_func(&l, "libd_inl", &w, &e), -1);
	assert_contains(e.msg, "'libd_inl'");
	assert_contains(e.msg, want);
	assert_contains(e.msg, "inlined everywhere");
	vg_libs_free(&l);
}

/* a child that prints its run-time addresses, then waits on stdin */
static pid_t spawn_wait(const char *bin, int *to_child, char *line,
			size_t len)
{
	int in[2], out[2];
	pid_t pid;
	FILE *f;

	assert_int_equal(pipe(in), 0);
	assert_int_equal(pipe(out), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execl(bin, bin, "wait", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	f = fdopen(out[0], "r");
	assert_non_null(f);
	assert_non_null(fgets(line, (int)len, f));
	fclose(f);
	*to_child = in[1];
	return pid;
}

static void check_maps(const char *bin, bool pie)
{
	struct vg_dwarf *dw = open_ok(bin);
	struct vg_err e = { 0 };
	struct vg_maps m;
	struct vg_objects o;
	struct vg_libs l;
	struct vg_func_where w;
	struct vg_func f;
	struct vg_global g;
	unsigned long long a_push, a_counter, a_malloc, a_helper;
	uint64_t bias, libc_bias = 0;
	char line[256];
	int fd, status;
	bool have_libc = false, have_self = false;
	pid_t pid = spawn_wait(bin, &fd, line, sizeof(line));

	assert_int_equal(sscanf(line, "%llx %llx %llx %llx", &a_push,
				&a_counter, &a_malloc, &a_helper),
			 4);
	assert_int_equal(vg_maps_read(pid, &m, &e), 0);
	assert_int_equal(m.pid, pid);
	assert_int_equal(vg_maps_load_bias(&m, bin, &bias, &e), 0);
	if (!pie)
		assert_int_equal(bias, 0);
	assert_int_equal(vg_dwarf_func(dw, "queue_push", &f, &e), 0);
	assert_int_equal(bias + f.addr, a_push);
	assert_int_equal(vg_dwarf_func(dw, "helper_static", &f, &e), 0);
	assert_int_equal(bias + f.addr, a_helper);
	assert_int_equal(vg_dwarf_global(dw, "g_counter", &g, &e), 0);
	assert_int_equal(g.pie, pie);
	assert_int_equal(bias + g.addr, a_counter);
	/* every mapped ELF object with its bias; libc's gives malloc */
	assert_int_equal(vg_maps_objects(&m, &o, &e), 0);
	assert_int_equal(vg_libs_load(bin, &l, &e), 0);
	assert_int_equal(vg_libs_find_func(&l, "malloc", &w, &e), 0);
	for (size_t i = 0; i < o.n; i++) {
		if (o.v[i].dev == l.v[w.obj].dev &&
		    o.v[i].ino == l.v[w.obj].ino) {
			have_libc = true;
			libc_bias = o.v[i].bias;
		}
		if (o.v[i].bias == bias && o.v[i].ino == l.v[0].ino)
			have_self = true;
	}
	assert_true(have_libc);
	assert_true(have_self);
	/* (a non-PIE's &malloc is its canonical PLT entry, not libc's) */
	if (pie)
		assert_int_equal(libc_bias + w.fn.addr, a_malloc);
	/* by pid, the same */
	assert_int_equal(vg_proc_load_bias(pid, bin, &libc_bias, &e), 0);
	assert_int_equal(libc_bias, bias);
	/* a file that is not mapped there */
	assert_int_equal(vg_maps_load_bias(&m, P("types_nodw"), &bias, &e), -1);
	assert_contains(e.msg, P("types_nodw"));
	assert_contains(e.msg, "not mapped");
	close(fd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	vg_libs_free(&l);
	vg_objects_free(&o);
	vg_maps_free(&m);
	vg_dwarf_close(dw);
}

static void test_maps_pie(void **state)
{
	(void)state;
	check_maps(P("types"), true);
}

static void test_maps_nopie(void **state)
{
	(void)state;
	check_maps(P("types_nopie"), false);
}

static void test_maps_errors(void **state)
{
	struct vg_maps m;
	struct vg_err e = { 0 };
	uint64_t bias;
	pid_t pid = fork();
	int status;

	(void)state;
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	/* a reaped pid: gone */
	assert_int_equal(vg_maps_read(pid, &m, &e), -1);
	assert_contains(e.msg, "/proc/");
	assert_int_equal(vg_proc_load_bias(pid, P("types"), &bias, &e), -1);
}

/* --- 6. parameter names ------------------------------------------------------------------ */

static void test_param_names(void **state)
{
	struct vg_dwarf *dw = open_ok(P("types"));
	struct vg_err e = { 0 };
	struct vg_proto p;
	char buf[256];

	(void)state;
	assert_int_equal(vg_dwarf_param_name(dw, "queue_push", 0, buf,
					     sizeof(buf), &e), 0);
	assert_string_equal(buf, "q");
	assert_int_equal(vg_dwarf_param_name(dw, "queue_push", 1, buf,
					     sizeof(buf), &e), 0);
	assert_string_equal(buf, "v");
	assert_int_equal(vg_dwarf_param_name(dw, "queue_push", 2, buf,
					     sizeof(buf), &e), -1);
	assert_contains(e.msg, "'queue_push'");
	assert_contains(e.msg, "2 parameters");
	assert_int_equal(vg_dwarf_param_name(dw, "printf", 0, buf,
					     sizeof(buf), &e), -1);
	assert_contains(e.msg, "no name");

	assert_int_equal(vg_dwarf_proto(dw, "queue_push", &p, &e), 0);
	assert_string_equal(vg_proto_param_name(&p, 0), "q");
	assert_null(vg_proto_param_name(&p, 5));
	assert_true(vg_proto_name_differs(&p, P("types"), 0, "queue", buf,
					  sizeof(buf)));
	assert_contains(buf, "'queue'");
	assert_contains(buf, "'q'");
	assert_contains(buf, "queue_push");
	assert_false(vg_proto_name_differs(&p, P("types"), 0, "q", buf,
					   sizeof(buf)));
	assert_false(vg_proto_name_differs(&p, P("types"), 1, "_", buf,
					   sizeof(buf)));
	assert_false(vg_proto_name_differs(&p, P("types"), 7, "x", buf,
					   sizeof(buf)));
	vg_proto_free(&p);
	vg_dwarf_close(dw);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_func_symtab),
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
		cmocka_unit_test(test_field_simple),
		cmocka_unit_test(test_field_nested_anonymous_array),
		cmocka_unit_test(test_field_bitfields),
		cmocka_unit_test(test_field_through_typedefs),
		cmocka_unit_test(test_field_errors),
		cmocka_unit_test(test_field_completed_from_other_unit),
		cmocka_unit_test(test_proto_matches_probed_address),
		cmocka_unit_test(test_globals),
		cmocka_unit_test(test_globals_dwarf_only_and_no_dwarf),
		cmocka_unit_test(test_libs_runpath),
		cmocka_unit_test(test_libs_rpath_inherited),
		cmocka_unit_test(test_libs_runpath_not_inherited),
		cmocka_unit_test(test_libs_ld_library_path),
		cmocka_unit_test(test_libs_of_this_test_agree_with_ldd),
		cmocka_unit_test(test_libs_find_func),
		cmocka_unit_test(test_libs_find_func_in_library_dwarf),
		cmocka_unit_test(test_maps_pie),
		cmocka_unit_test(test_maps_nopie),
		cmocka_unit_test(test_maps_errors),
		cmocka_unit_test(test_param_names),
	};

	(void)argc;
	if (!realpath(argv[0], self_exe))
		snprintf(self_exe, sizeof(self_exe), "%s", argv[0]);
	return cmocka_run_group_tests(tests, setup, teardown);
}
