/* Shared by the files of user/sym/ only: low-level ELF helpers over an open
 * libelf handle, so that elf.c, dwarf.c and libs.c read symbols and
 * segments the same way. Not part of the module's API. */
#ifndef VIGIL_SYM_INTERNAL_H
#define VIGIL_SYM_INTERNAL_H

#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elf.h"

struct vg_elf_file {
	int fd;
	Elf *elf;
	GElf_Ehdr ehdr;
};

/* Open PATH as an ELF file; on failure e names the file. */
int vg_elf_file_open(const char *path, struct vg_elf_file *f,
		     struct vg_err *e);
void vg_elf_file_close(struct vg_elf_file *f);

/* which symbol tables to search */
#define VG_TAB_SYMTAB 0x1
#define VG_TAB_DYNSYM 0x2
/* what to look for */
enum vg_symkind { VG_SYM_FUNC, VG_SYM_OBJECT };

/* Find a defined symbol NAME of the kind in the tables (.symtab first).
 * In .dynsym a default version (memcpy@@GLIBC_2.14) wins over a hidden
 * one (memcpy@GLIBC_2.2.5), as for the dynamic loader. With globals_only,
 * local symbols are skipped (what another object can bind to). Returns the
 * table it came from (VG_TAB_*) or 0. */
int vg_elf_lookup(Elf *elf, unsigned tables, const char *name,
		  enum vg_symkind kind, bool globals_only, GElf_Sym *out);

/* Calls fn with the name of every defined function symbol (STT_FUNC or
 * STT_GNU_IFUNC) of .symtab and .dynsym until it returns true; whether
 * one did. */
bool vg_elf_each_func(Elf *elf,
		      bool (*fn)(const char *, const GElf_Sym *, void *),
		      void *arg);

/* The name of a function symbol whose value is addr, copied to buf (""
 * when none). */
bool vg_elf_func_at(Elf *elf, uint64_t addr, char *buf, size_t len);

/* A function symbol named "NAME.suffix" (a GCC clone: NAME.isra.0,
 * NAME.constprop.0, NAME.part.0), copied to buf. */
bool vg_elf_find_clone(Elf *elf, const char *name, char *buf, size_t len);

/* An IFUNC symbol NAME of the object at PATH: the link-time address of
 * the implementation it resolves to on this machine (ifunc.c). False when
 * PATH is not an object vigil itself has loaded. */
bool vg_ifunc_impl_vaddr(const char *path, const char *name,
			 uint64_t *vaddr);
/* The name and size of the implementation at vaddr of the stripped
 * object at PATH (elf), from its separate debug file's .symtab; false
 * when it has none (ifunc.c). */
bool vg_ifunc_impl_debug_sym(Elf *elf, const char *path, uint64_t vaddr,
			     char *name, size_t len, uint64_t *size);

/* Virtual address to file offset through the PT_LOAD segment mapping it. */
int vg_elf_vaddr_to_offset(Elf *elf, uint64_t vaddr, uint64_t *off);

/* Why PATH cannot be loaded as a library here ("not an ELF file", "not a
 * shared library", the open error into buf), or NULL: an x86-64 ET_DYN
 * (libs.c). */
const char *vg_not_a_library(const char *path, char *buf, size_t len);

/* Whether the file has a section NAME with contents. */
bool vg_elf_has_section(Elf *elf, const char *name);

/* Why a function has no address, for callers that search further
 * (libs.c) and must tell "not here" from "here, but unprobeable". */
enum vg_nofunc {
	VG_NOFUNC_ABSENT,	/* nowhere in this binary */
	VG_NOFUNC_DECLARED,	/* only declared: defined in another object */
	VG_NOFUNC_INLINED,	/* inlined everywhere */
	VG_NOFUNC_CLONED,	/* only as f.isra.0, f.constprop.0, ... */
	VG_NOFUNC_OTHER,	/* known but no usable entry address */
};

struct vg_dwarf;
/* vg_dwarf_func, saying why it failed. */
int vg_dwarf_func_why(struct vg_dwarf *dw, const char *name,
		      struct vg_func *out, enum vg_nofunc *why,
		      struct vg_err *e);

/* The DWARF fallback of vg_elf_find_func (dwarf.c): the function is in
 * neither symbol table; find it in DWARF or explain why it has no address
 * (inlined everywhere, only compiler clones). Fills e in every failure. */
int vg_dwarf_func_fallback(const char *binary, struct vg_elf_file *f,
			   const char *name, struct vg_func *out,
			   struct vg_err *e);

#endif
