/* The implementation an IFUNC symbol resolves to (memcpy, strlen in libc),
 * for a probe that must see its calls: the symbol's own address is the
 * resolver, which runs once at load time.
 *
 * The resolver picks by CPU features; vigil runs on the same CPU as the
 * target, so when the target's object is a file vigil itself has loaded
 * (libc), the implementation vigil's own dynamic loader chose for vigil is
 * the one the target's chose: dlsym through a handle to that very file
 * (RTLD_NOLOAD: never load anything) runs the resolver, and dladdr gives
 * the object's load base, hence the link-time address. A target run with
 * GLIBC_TUNABLES that mask CPU features may choose another one: then its
 * calls go unseen, as before this lookup. */
#include "sym_internal.h"
#include "dwarf_internal.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

bool vg_ifunc_impl_vaddr(const char *path, const char *name,
			 uint64_t *vaddr)
{
	void *h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
	void *impl;
	Dl_info info;

	if (!h)
		return false;		/* not an object of vigil's own */
	impl = dlsym(h, name);
	dlclose(h);
	if (!impl || !dladdr(impl, &info) || !info.dli_fbase ||
	    (uintptr_t)impl < (uintptr_t)info.dli_fbase)
		return false;
	*vaddr = (uint64_t)((uintptr_t)impl - (uintptr_t)info.dli_fbase);
	return true;
}

/* A stripped library (Debian's libc.so.6) has no symbol for the
 * implementation (__memset_avx512_unaligned_erms), so neither its name nor
 * its size; its separate debug file's .symtab (libc6-dbg) has both. The
 * in-process tier needs the size: a patch must fit inside the function,
 * whose own jumps are checked against it (user/reloc/). */
bool vg_ifunc_impl_debug_sym(Elf *elf, const char *path, uint64_t vaddr,
			     char *name, size_t len, uint64_t *size)
{
	char *dpath = dw_find_debug_file(elf, path);
	struct vg_elf_file df;
	struct vg_err ignored;
	GElf_Sym sym;
	bool found = false;

	if (!dpath || !strcmp(dpath, path) ||
	    vg_elf_file_open(dpath, &df, &ignored)) {
		free(dpath);
		return false;
	}
	if (vg_elf_func_at(df.elf, vaddr, name, len) && name[0] &&
	    vg_elf_lookup(df.elf, VG_TAB_SYMTAB, name, VG_SYM_FUNC, false,
			  &sym) && sym.st_value == vaddr) {
		*size = sym.st_size;
		found = true;
	}
	vg_elf_file_close(&df);
	free(dpath);
	return found;
}
