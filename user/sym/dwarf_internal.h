/* What the four parts of user/sym/ DWARF reading share (dwarf.c: the
 * handle, its index and the libdwarf helpers; dwarf_type.c: types and struct
 * fields; dwarf_func.c: functions, their prototypes and globals;
 * dwarf_abi.c: where the x86-64 SysV ABI puts each parameter). Not for
 * other modules: they use dwarf.h. */
#ifndef VIGIL_SYM_DWARF_INTERNAL_H
#define VIGIL_SYM_DWARF_INTERNAL_H

#include <libdwarf/dwarf.h>
#include <libdwarf/libdwarf.h>
#include <stdbool.h>
#include <stdint.h>

#include "dwarf.h"
#include "sym_internal.h"

struct vg_proto_cache;

enum { ENT_FUNC, ENT_VAR, ENT_TYPE };

#define EF_PC 0x01	/* FUNC: DW_AT_low_pc; VAR: DW_OP_addr location */
#define EF_INLINE 0x02	/* abstract instance: DW_AT_inline inlined */
#define EF_DECL 0x04	/* DW_AT_declaration */
#define EF_ORIGIN 0x08	/* name came through abstract_origin/specification */
#define EF_RANGES 0x10	/* FUNC: DW_AT_ranges and no low_pc */
#define EF_TLS 0x20	/* VAR: thread-local */

struct dw_ent {
	char *name;
	uint64_t off;		/* DIE offset in .debug_info */
	uint64_t pc;		/* see EF_PC */
	uint16_t tag;
	uint8_t kind, flags;
};

struct vg_dwarf {
	char *path;		/* the binary */
	char *debug_path;	/* where the DWARF is; NULL: none */
	char *problem;		/* why DWARF that exists could not be read */
	struct vg_elf_file f;
	Dwarf_Debug dbg;
	struct dw_ent *ents;
	size_t nents, cap;
	/* A separate debug file (libc6-dbg's for libc) is big and a spec
	 * asks about a few of its functions: its index of every name is
	 * built on the first question by name (dw_index); a function at a
	 * symbol's address is found first through .debug_aranges in its
	 * compilation unit alone (dw_func_at_addr) */
	bool indexed;
	Dwarf_Arange *aranges;
	Dwarf_Signed naranges;
	bool aranges_read;
	struct dw_ent hit;	/* dw_func_at_addr's last answer */
	/* A separate debug file is opened on the first question the
	 * prototype cache (proto_cache.h) cannot answer: dw_load */
	bool deferred;
	struct vg_proto_cache *pcache;	/* NULL: none (off, no build id) */
};

#define MAX_DEPTH 32	/* typedef chains, nested structs */

/* --- dwarf.c: libdwarf made quiet. Each takes the handle so that errors
 * are freed, each returns false (or NULL, or 0) when the attribute or DIE
 * is absent; *_follow also look through DW_AT_abstract_origin and
 * DW_AT_specification. */
bool dw_attr(struct vg_dwarf *dw, Dwarf_Die die, Dwarf_Half at,
	     Dwarf_Attribute *a);

bool dw_has(struct vg_dwarf *dw, Dwarf_Die die, Dwarf_Half at);

bool dw_udata(struct vg_dwarf *dw, Dwarf_Die die, Dwarf_Half at,
	      uint64_t *v);

bool dw_negative(struct vg_dwarf *dw, Dwarf_Die die, Dwarf_Half at);

bool dw_flag(struct vg_dwarf *dw, Dwarf_Die die, Dwarf_Half at);

bool dw_ref(struct vg_dwarf *dw, Dwarf_Die die, Dwarf_Half at,
	    uint64_t *off);

const char *dw_name(struct vg_dwarf *dw, Dwarf_Die die);

int dw_tag(struct vg_dwarf *dw, Dwarf_Die die);

bool dw_die(struct vg_dwarf *dw, uint64_t off, Dwarf_Die *die);

bool dw_child(struct vg_dwarf *dw, Dwarf_Die parent, Dwarf_Die *c);

/* Open a deferred debug file (vg_dwarf_open's work, done on first use) */
void dw_load(struct vg_dwarf *dw);

/* The index of every name (dw->ents), built once, on first use */
void dw_index(struct vg_dwarf *dw);
/* The function defined at addr, from its compilation unit alone (through
 * .debug_aranges), as the index would have it; NULL when the aranges do
 * not say or the unit has no such function at its top level (the caller
 * then asks the index). Valid until the next call. */
const struct dw_ent *dw_func_at_addr(struct vg_dwarf *dw, uint64_t addr);

bool dw_next(struct vg_dwarf *dw, Dwarf_Die *c);

bool dw_origin(struct vg_dwarf *dw, Dwarf_Die die, Dwarf_Die *out);

bool dw_ref_follow(struct vg_dwarf *dw, Dwarf_Die die, Dwarf_Half at,
		   uint64_t *off);

bool dw_udata_follow(struct vg_dwarf *dw, Dwarf_Die die, Dwarf_Half at,
		     uint64_t *v);

const char *dw_name_follow(struct vg_dwarf *dw, Dwarf_Die die,
			   bool *via);

bool dw_expr(struct vg_dwarf *dw, Dwarf_Attribute a,
	     const uint8_t **p, size_t *n, Dwarf_Block **blk);

uint64_t dw_uleb(const uint8_t *p, size_t n, size_t *used);

/* the index entries [*lo, *hi) named NAME of kind ENT_* */
void dw_ent_range(struct vg_dwarf *dw, const char *name, int kind,
		  size_t *lo, size_t *hi);

/* 0 when the handle has DWARF; else the error that says how to get it */
int dw_need_debug(struct vg_dwarf *dw, const char *what,
		  struct vg_err *e);

/* --- dwarf_type.c, for dwarf_func.c and dwarf_abi.c */

/* a bit-field member's position and width, in bits */
void dw_member_bits(struct vg_dwarf *dw, Dwarf_Die m, uint64_t tsize,
		    uint64_t *bitpos, uint64_t *bitsize);

/* vg_dwarf_type, with the depth of typedef chains so far */
int dw_describe(struct vg_dwarf *dw, vg_type_id id, struct vg_type *t,
		int depth, struct vg_err *e);

/* --- dwarf_abi.c, for dwarf_func.c */

/* p's parameter and return-value locations, from their types */
int dw_locate_params(struct vg_dwarf *dw, struct vg_proto *p,
		     struct vg_err *e);

/* debugfile.c: the separate debug file of the ELF at binpath (malloc'd),
 * or NULL */
char *dw_find_debug_file(Elf *elf, const char *binpath);
/* the ELF's GNU build id in lowercase hex; false when it has none */
bool dw_build_id(Elf *elf, char *hex, size_t len);
/* where dw_find_debug_file looks first: ROOT/.build-id/ab/cdef....debug */
bool dw_build_id_debug_file(Elf *elf, char *path, size_t len);

#endif
