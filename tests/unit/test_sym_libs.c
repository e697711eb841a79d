/* Unit tests of library resolution and process maps (user/sym/libs.h,
 * maps.h) against real binaries: DT_RUNPATH, DT_RPATH and
 * LD_LIBRARY_PATH as the loader applies them (checked against ldd),
 * functions found in a library's DWARF, and /proc/PID/maps of PIE and
 * non-PIE processes, and a mapping matched by path where its inode
 * is not the one stat() gives (fixtures: sym_fixture.h). */
#include "sym_fixture.h"

#include <sys/sysmacros.h>

/* --- libraries ---------------------------------------------------------------------- */

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
	/* static, symbols stripped: the library's debug file, by its
	 * .symtab (no DWARF index), with its size */
	assert_int_equal(vg_libs_find_func(&l, "libd_static", &w, &e), 0);
	assert_string_equal(w.path, want);
	assert_string_equal(l.v[w.obj].needed, "libd.so");
	assert_int_equal(w.fn.source, VG_SRC_SYMTAB);
	assert_true(w.fn.size > 0);
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

/* A file on overlayfs under an older kernel (Debian 12's 6.1): its
 * mapping's device and inode in /proc/PID/maps are the layer's beneath,
 * not what stat() of its path gives. It is found by its path: a stop at
 * a probed jmp in such a container is put back on the jmp. */
static void test_maps_file_vaddr(void **state)
{
	struct vg_maps m;
	struct vg_err e = { 0 };
	char self[PATH_MAX];
	const struct vg_map *x = NULL;
	uint64_t off, at, bias, bias2;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	(void)state;
	assert_true(n > 0);
	self[n] = 0;
	assert_int_equal(vg_maps_read(getpid(), &m, &e), 0);
	for (size_t i = 0; i < m.n && !x; i++)
		if (m.v[i].path && !strcmp(m.v[i].path, self) &&
		    m.v[i].perms[2] == 'x')
			x = &m.v[i];
	assert_non_null(x);
	off = x->offset + 16;
	at = vg_maps_file_vaddr(&m, self, off);
	assert_int_equal(at, x->start + 16);
	assert_int_equal(vg_maps_load_bias(&m, self, &bias, &e), 0);
	/* what 6.1 shows for an overlay's file: another device and inode */
	for (size_t i = 0; i < m.n; i++)
		if (m.v[i].ino) {
			m.v[i].dev = makedev(0, 1);
			m.v[i].ino += 1;
		}
	assert_int_equal(vg_maps_file_vaddr(&m, self, off), at);
	assert_int_equal(vg_maps_load_bias(&m, self, &bias2, &e), 0);
	assert_int_equal(bias2, bias);
	/* an offset no executable mapping holds, a file not mapped */
	assert_int_equal(vg_maps_file_vaddr(&m, self, 1ull << 40), 0);
	assert_int_equal(vg_maps_file_vaddr(&m, P("types_nodw"), 16), 0);
	vg_maps_free(&m);
}

static const struct CMUnitTest tests[] = {
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
	cmocka_unit_test(test_maps_file_vaddr),
};

SYM_TEST_MAIN(tests)
