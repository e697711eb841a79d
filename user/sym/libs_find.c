/* Which of a program's objects defines a function (user/sym/libs.h,
 * vg_libs_find_func): by their symbols in the order calls bind, then a
 * stripped library's separate debug file's symbols, then DWARF. The
 * objects themselves are libs.c's. */
#include "libs.h"
#include "dwarf.h"
#include "sym_internal.h"
#include "dwarf_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int found_in(const struct vg_libs *libs, size_t i,
		    struct vg_elf_file *f, const GElf_Sym *sym, int tab,
		    const char *name, struct vg_func_where *out,
		    struct vg_err *e)
{
	out->obj = i;
	snprintf(out->path, sizeof(out->path), "%s", libs->v[i].path);
	out->fn.addr = sym->st_value;
	out->fn.size = sym->st_size;
	out->fn.source = tab == VG_TAB_SYMTAB ? VG_SRC_SYMTAB : VG_SRC_DYNSYM;
	out->fn.ifunc = GELF_ST_TYPE(sym->st_info) == STT_GNU_IFUNC;
	snprintf(out->sym, sizeof(out->sym), "%s", name);
	/* memcpy, strlen: probe what the resolver picks, which is what is
	 * called (ifunc.c) */
	if (out->fn.ifunc &&
	    vg_ifunc_impl_vaddr(libs->v[i].path, name, &out->fn.addr)) {
		out->fn.ifunc = false;
		out->fn.size = 0;
		/* its own name (__strlen_avx2) when the symbols say, so that
		 * the resolver's DWARF (no parameters) is not taken for its */
		if ((!vg_elf_func_at(f->elf, out->fn.addr, out->sym,
				     sizeof(out->sym)) || !out->sym[0]) &&
		    !vg_ifunc_impl_debug_sym(f->elf, libs->v[i].path,
					     out->fn.addr, out->sym,
					     sizeof(out->sym), &out->fn.size))
			snprintf(out->sym, sizeof(out->sym), "%s.ifunc-impl",
				 name);
	}
	if (vg_elf_vaddr_to_offset(f->elf, out->fn.addr, &out->fn.offset))
		return vg_errf(e, "function '%s' in %s: address 0x%llx is in no loadable segment",
			       name, libs->v[i].path,
			       (unsigned long long)sym->st_value);
	return 0;
}

/* The symbol search's passes, in the order a call binds: the binary's own
 * symbols, local ones too; what each library the loader maps exports, in
 * load order (the first definition is the one calls bind to); local
 * symbols of its unstripped libraries; then the same two for the --lib
 * libraries, which the program may dlopen later. */
static const struct {
	bool dl;	/* the --lib libraries; else the loader's */
	int tabs;	/* VG_TAB_* */
	bool exported;	/* a library's exports: default version only */
} passes[] = {
	{ false, VG_TAB_SYMTAB | VG_TAB_DYNSYM, false },	/* v[0] only */
	{ false, VG_TAB_DYNSYM, true },
	{ false, VG_TAB_SYMTAB, false },
	{ true, VG_TAB_DYNSYM, true },
	{ true, VG_TAB_SYMTAB, false },
};

/* "not found": name what was searched, what could not be, and the way to
 * name a library the loader does not know about */
static int not_found(const struct vg_libs *libs, const char *name,
		     struct vg_err *e)
{
	static const char hint[] =
		"if the program loads it with dlopen, name the library with --lib PATH";
	size_t missing = 0, ndl = libs->n - libs->nloaded;
	char names[512] = "", dl[64] = "";

	for (size_t i = 1; i < libs->nloaded; i++) {
		if (libs->v[i].path)
			continue;
		missing++;
		if (strlen(names) + strlen(libs->v[i].needed) + 3 <
		    sizeof(names)) {
			if (names[0])
				strcat(names, ", ");
			strcat(names, libs->v[i].needed);
		}
	}
	if (ndl)
		snprintf(dl, sizeof(dl), " and %zu --lib librar%s", ndl,
			 ndl == 1 ? "y" : "ies");
	if (missing)
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "function '%s' not found in %s or its %zu libraries%s; %zu could not be found (%s): set LD_LIBRARY_PATH as the program will run; %s",
				    name, libs->v[0].path,
				    libs->nloaded - 1 - missing, dl, missing,
				    names, hint);
	return vg_errf_code(e, VG_EXIT_USAGE,
			    "function '%s' not found in %s or its %zu libraries%s; %s",
			    name, libs->v[0].path, libs->nloaded - 1, dl, hint);
}

/* A function its library's symbols lack but whose separate debug file's
 * .symtab has it (a stripped library's static function: glibc's
 * __libc_thread_freeres, which the memory specs name in `outside`): its
 * address and size there, the library's own. Indexing the library's DWARF
 * instead cost every run of those specs ~0.2 s. 0: found (or an error in
 * e), 1: not there. */
static int find_in_debug_symtab(const struct vg_libs *libs, const char *name,
				struct vg_func_where *out, struct vg_err *e)
{
	for (size_t i = 0; i < libs->n; i++) {
		struct vg_elf_file f, df;
		struct vg_err ignored;
		bool found = false;
		char *dpath;
		GElf_Sym sym;
		int r;

		if (!libs->v[i].path ||
		    vg_elf_file_open(libs->v[i].path, &f, &ignored))
			continue;
		dpath = dw_find_debug_file(f.elf, libs->v[i].path);
		if (dpath && strcmp(dpath, libs->v[i].path) &&
		    !vg_elf_file_open(dpath, &df, &ignored)) {
			found = vg_elf_lookup(df.elf, VG_TAB_SYMTAB, name,
					      VG_SYM_FUNC, false, &sym) != 0;
			vg_elf_file_close(&df);
		}
		free(dpath);
		if (found) {
			r = found_in(libs, i, &f, &sym, VG_TAB_SYMTAB, name,
				     out, e);
			vg_elf_file_close(&f);
			return r;
		}
		vg_elf_file_close(&f);
	}
	return 1;
}

int vg_libs_find_func(const struct vg_libs *libs, const char *name,
		      struct vg_func_where *out, struct vg_err *e)
{
	struct vg_elf_file f;
	struct vg_dwarf *dw;
	enum vg_nofunc why;
	GElf_Sym sym;
	bool have_reason = false;
	int tab, r;

	memset(out, 0, sizeof(*out));
	if (!libs->n)
		return vg_errf(e, "no binary to look for '%s' in", name);
	for (size_t pass = 0; pass < sizeof(passes) / sizeof(*passes);
	     pass++) {
		size_t lo = passes[pass].dl ? libs->nloaded : pass ? 1 : 0;
		size_t hi = passes[pass].dl ? libs->n : pass ? libs->nloaded : 1;

		for (size_t i = lo; i < hi; i++) {
			if (!libs->v[i].path)
				continue;
			if (vg_elf_file_open(libs->v[i].path, &f, e))
				continue;
			tab = vg_elf_lookup(f.elf, passes[pass].tabs, name,
					    VG_SYM_FUNC, passes[pass].exported,
					    &sym);
			if (tab) {
				r = found_in(libs, i, &f, &sym, tab, name, out,
					     e);
				vg_elf_file_close(&f);
				return r;
			}
			vg_elf_file_close(&f);
		}
	}
	if ((r = find_in_debug_symtab(libs, name, out, e)) <= 0)
		return r;
	memset(out, 0, sizeof(*out));
	/* DWARF, the binary's then each library's, the --lib ones last (a
	 * separate debug file, such as libc6-dbg's, has what the stripped
	 * library lost): a function without a symbol, or the reason it has
	 * no address. The first such reason beats "not found". Only reached
	 * when no symbol matched, so the cost of indexing the DWARF is paid
	 * on this path alone. */
	for (size_t i = 0; i < libs->n; i++) {
		struct vg_err de;

		if (!libs->v[i].path ||
		    !(dw = vg_dwarf_open(libs->v[i].path, &de)))
			continue;
		r = vg_dwarf_func_why(dw, name, &out->fn, &why, &de);
		vg_dwarf_close(dw);
		if (!r) {
			out->obj = i;
			snprintf(out->path, sizeof(out->path), "%s",
				 libs->v[i].path);
			return 0;
		}
		if (why != VG_NOFUNC_ABSENT && why != VG_NOFUNC_DECLARED &&
		    !have_reason) {
			*e = de;
			have_reason = true;
		}
	}
	if (have_reason)
		return -1;
	return not_found(libs, name, e);
}
