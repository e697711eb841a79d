/* ELF symbol lookup: where a function lives in a binary's file, which is
 * what a uprobe is attached to. */
#ifndef VIGIL_SYM_ELF_H
#define VIGIL_SYM_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/err.h"

/* where a function's address came from */
enum vg_sym_source {
	VG_SRC_SYMTAB,		/* .symtab: also static functions */
	VG_SRC_DYNSYM,		/* .dynsym: all a stripped binary keeps */
	VG_SRC_DWARF,		/* DW_AT_low_pc: symbols stripped, DWARF kept
				 * (in the file or a separate debug file) */
};

struct vg_func {
	uint64_t addr;		/* st_value: link-time virtual address */
	uint64_t offset;	/* file offset of the first instruction */
	uint64_t size;
	enum vg_sym_source source;
	/* STT_GNU_IFUNC (strlen, memcpy in libc): addr is the resolver that
	 * runs once at load time, not the implementation that is called; a
	 * probe there sees no calls. The caller should say so. */
	bool ifunc;
};

/* Find a defined function symbol in .symtab, then .dynsym, then DWARF
 * (DW_AT_low_pc). On failure e->msg names the symbol and the binary and,
 * when DWARF knows why, says it: "function 'f' in BIN is inlined
 * everywhere; it has no address to probe", or that only compiler clones
 * (f.isra.0, f.constprop.0), whose arguments differ from the source,
 * exist. */
int vg_elf_find_func(const char *binary, const char *name,
		     struct vg_func *out, struct vg_err *e);

/* A data object BINARY exports (.dynsym, a global of any version):
 * its link-time address and size. */
int vg_elf_dyn_object(const char *binary, const char *name, uint64_t *addr,
		      uint64_t *size, struct vg_err *e);

/* Resolve a program name the way execvp would (PATH search when it has no
 * slash) into an absolute path; out must hold PATH_MAX bytes. */
int vg_resolve_program(const char *prog, char *out, struct vg_err *e);

#endif
