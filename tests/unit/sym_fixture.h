/* What the tests of the symbol and type layer share (test_sym.c,
 * test_sym_types.c, test_sym_libs.c): the fixtures their group setup
 * builds and the helpers that read them.
 *
 * The group setup compiles tests/targets/sym_types.c and sym_inline.c in
 * the variants the tests need (PIE and non-PIE, -O2, without DWARF,
 * stripped with a debug file found by .gnu_debuglink or by build id), and
 * a small program with two shared libraries linked with DT_RUNPATH or
 * DT_RPATH, into a temporary directory it removes at the end. Expected
 * values come from outside the code under test where possible: nm for
 * addresses, ldd (the real loader) for library resolution, and a ptrace
 * run that stops at function entries and reads the arguments where the
 * ABI classification says they are. A test's main sets self_exe first. */
#ifndef VIGIL_TESTS_SYM_FIXTURE_H
#define VIGIL_TESTS_SYM_FIXTURE_H

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
#include "tmpdir.h"

static char srcdir[PATH_MAX];	/* tests/targets */
static char self_exe[PATH_MAX];	/* this test binary */

/* snprintf into an array, failing the test if it does not fit */
#define FMT(buf, ...) \
	assert_true(snprintf(buf, sizeof(buf), __VA_ARGS__) < (int)sizeof(buf))

/* first line of a command's output */
static inline int sh_line(char *out, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static inline int sh_line(char *out, size_t len, const char *fmt, ...)
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
static inline uint64_t nm_addr(const char *bin, const char *sym)
{
	char line[256] = "";

	if (sh_line(line, sizeof(line),
		    "nm %s | awk '$3 == \"%s\" { print $1 }'", bin, sym))
		return 0;
	return strtoull(line, NULL, 16);
}

static inline bool find_srcdir(void)
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

#define CC "cc -O1 -g -fno-omit-frame-pointer -fno-inline -pthread"

static inline int teardown(void **state);
static inline int build_fixtures(void);

/* cmocka skips the group teardown when the setup fails: clean up here */
static inline int setup(void **state)
{
	if (build_fixtures() == 0)
		return 0;
	teardown(state);
	return -1;
}

static inline int build_fixtures(void)
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
	/* its DWARF in a debug file found by debuglink, its symbols kept (as
	 * libc6-dbg leaves libc): the index is built lazily, a function at
	 * a symbol found through .debug_aranges */
	if (sh("cp %s %s && objcopy --only-keep-debug %s %s.debug && objcopy --strip-debug %s && objcopy --add-gnu-debuglink=%s.debug %s",
	       P("types"), P("types_dl"), P("types_dl"), P("types_dl"),
	       P("types_dl"), P("types_dl"), P("types_dl")))
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

static inline int teardown(void **state)
{
	(void)state;
	if (dir[0] && strncmp(dir, "/tmp/vigil-sym-", 15) == 0)
		sh("rm -rf '%s'", dir);
	return 0;
}

/* --- helpers ----------------------------------------------------------------- */

static inline struct vg_dwarf *open_ok(const char *bin)
{
	struct vg_err e = { 0 };
	struct vg_dwarf *dw = vg_dwarf_open(bin, &e);

	if (!dw)
		fail_msg("vg_dwarf_open(%s): %s", bin, e.msg);
	return dw;
}


static inline const struct vg_param *param(const struct vg_proto *p, size_t i)
{
	assert_true(i < p->nparams);
	return &p->params[i];
}

static inline void assert_reg(const struct vg_param *pa, enum vg_reg r0,
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

static inline void assert_stack(const struct vg_param *pa, int off)
{
	assert_int_equal(pa->loc.kind, VG_LOC_STACK);
	assert_int_equal(pa->loc.stack_off, off);
}

/* every test program's main: where it runs from, then its group */
#define SYM_TEST_MAIN(tests)						\
	int main(int argc, char **argv)					\
	{								\
		(void)argc;						\
		if (!realpath(argv[0], self_exe))			\
			snprintf(self_exe, sizeof(self_exe), "%s", argv[0]); \
		return cmocka_run_group_tests(tests, setup, teardown);	\
	}

#endif
