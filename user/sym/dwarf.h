/* One binary's symbols and debug information: functions (from .symtab,
 * .dynsym and DWARF), their parameters with types and x86-64 locations,
 * struct field offsets, and globals. This is what lets a spec say
 * `before queue_push(q) when q->count < q->cap`: the checker learns that q
 * is a `struct queue *` in %rdi and that count is a 4-byte signed int at
 * offset 4.
 *
 * A handle is opened once per binary and answers many questions; the
 * DWARF is indexed by name when it is opened (one pass over the top-level
 * entries), types are read lazily. Every error names the symbol and the
 * binary. Not thread-safe: one handle per thread. */
#ifndef VIGIL_SYM_DWARF_H
#define VIGIL_SYM_DWARF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/err.h"
#include "elf.h"

struct vg_dwarf;

/* Open BINARY. Succeeds for any ELF file, with or without DWARF: symbol
 * queries work without it, type queries then fail saying how to get it.
 * DWARF is taken from the binary or, when stripped, from a separate debug
 * file (/usr/lib/debug/.build-id/xx/yyyy.debug, or .gnu_debuglink next to
 * the binary, in its .debug/ or under /usr/lib/debug). */
struct vg_dwarf *vg_dwarf_open(const char *binary, struct vg_err *e);
void vg_dwarf_close(struct vg_dwarf *dw);

/* (a separate debug file is opened for this: a caller that only wants a
 * prototype asks vg_dwarf_proto, which a cache may answer without it) */
bool vg_dwarf_has_debug(struct vg_dwarf *dw);
/* the file the DWARF was read from (the binary or its debug file) */
const char *vg_dwarf_debug_path(const struct vg_dwarf *dw);
/* ET_DYN (a PIE, or a shared library): link-time addresses must be moved
 * by the load bias (maps.h: vg_maps_load_bias) to be run-time ones. */
bool vg_dwarf_is_pie(const struct vg_dwarf *dw);
/* The lowest link-time address of an executable PT_LOAD segment: what the
 * kernel's mm->start_code is, moved by the load bias. 0 when none. */
uint64_t vg_dwarf_text_vaddr(const struct vg_dwarf *dw);

/* --- types ---------------------------------------------------------- */

/* A type is named by its DIE offset; 0 means void (or no type). */
typedef uint64_t vg_type_id;

enum vg_tkind {
	VG_TK_VOID,
	VG_TK_SINT,		/* signed integer of `size` bytes (char too) */
	VG_TK_UINT,		/* unsigned integer */
	VG_TK_BOOL,
	VG_TK_FLOAT,		/* float 4, double 8, long double 16 */
	VG_TK_PTR,		/* target: the pointee (0: void *) */
	VG_TK_STRUCT,
	VG_TK_UNION,
	VG_TK_ENUM,		/* signedness: `enum_signed` */
	VG_TK_ARRAY,		/* target: the element; count: elements */
	VG_TK_FUNC,		/* a function type (what a function pointer
				 * points to) */
	VG_TK_OTHER,		/* complex, vectors, ...: size only */
};

struct vg_type {
	vg_type_id id;		/* after typedefs and qualifiers */
	enum vg_tkind kind;
	uint64_t size;		/* bytes; 0 for void, functions and structs
				 * only declared in every unit */
	uint32_t align;
	vg_type_id target;
	uint64_t count;		/* VG_TK_ARRAY: first dimension, 0 unknown */
	bool enum_signed;	/* VG_TK_ENUM: has a negative enumerator or a
				 * signed underlying type */
	/* as the program spells it, typedef names kept, for messages:
	 * "cq_ptr", "struct queue *", "unsigned int", "long[10]" */
	char name[128];
};

/* Describe a type. */
int vg_dwarf_type(struct vg_dwarf *dw, vg_type_id id, struct vg_type *out,
		  struct vg_err *e);

/* A type by its C name: "struct queue", "union u", "enum color", a
 * typedef ("queue_t") or a base type ("int"). */
int vg_dwarf_type_by_name(struct vg_dwarf *dw, const char *name,
			  struct vg_type *out, struct vg_err *e);

/* --- struct fields ---------------------------------------------------- */

struct vg_field {
	uint64_t offset;	/* bytes from the start of the struct */
	uint64_t size;		/* bytes to read at offset */
	/* bit-field: the value is bits [bit_offset, bit_offset + bit_size)
	 * of those `size` bytes read as a little-endian integer; bit_size 0
	 * for an ordinary field */
	uint32_t bit_offset, bit_size;
	struct vg_type type;
};

/* Where PATH lives in the struct BASE points to (or in BASE itself when it
 * is a struct or union): for p->field pass p's type and "field"; for
 * p->a.b pass "a.b"; "arr[2]" indexes an array member. Typedefs,
 * const/volatile and one level of pointer are followed, members of
 * anonymous structs and unions are found through them (C11), and a struct
 * only declared where BASE comes from is completed from its definition in
 * another unit. "->" inside PATH is refused: a second dereference is a
 * memory read, which is the caller's to do with vg_field.type.target.
 * Errors: "no field 'x' in struct queue (BIN)". */
int vg_dwarf_field(struct vg_dwarf *dw, vg_type_id base, const char *path,
		   struct vg_field *out, struct vg_err *e);

/* --- functions -------------------------------------------------------- */

/* A function's address and file offset: .symtab, .dynsym, then DWARF
 * DW_AT_low_pc. Fails with "function 'f' in BIN is inlined everywhere; it
 * has no address to probe" when DWARF has it only as inlined copies. */
int vg_dwarf_func(struct vg_dwarf *dw, const char *name, struct vg_func *out,
		  struct vg_err *e);

/* x86-64 registers that hold arguments and return values */
enum vg_reg {
	VG_REG_NONE,
	VG_REG_RDI, VG_REG_RSI, VG_REG_RDX, VG_REG_RCX, VG_REG_R8, VG_REG_R9,
	VG_REG_RAX,
	VG_REG_XMM0, VG_REG_XMM1, VG_REG_XMM2, VG_REG_XMM3,
	VG_REG_XMM4, VG_REG_XMM5, VG_REG_XMM6, VG_REG_XMM7,
};

const char *vg_reg_name(enum vg_reg r);	/* "rdi", "xmm0" */
/* The register's offset in the kernel's struct pt_regs (the layout of
 * struct user_regs_struct), which is what a BPF program reads; -1 for the
 * SSE registers, which a uprobe cannot read: a float or double argument
 * in %xmm is not capturable, the caller must say so. */
int vg_reg_ptregs_offset(enum vg_reg r);

enum vg_loc_kind {
	VG_LOC_NONE,		/* occupies nothing (an empty struct) */
	VG_LOC_REG,		/* in reg[0] (and reg[1] for a second
				 * eightbyte: a 16-byte struct or __int128) */
	VG_LOC_STACK,		/* in memory at %rsp + stack_off at entry */
};

/* Where a value is at the function's entry (or, for the return value, at
 * its return). */
struct vg_loc {
	enum vg_loc_kind kind;
	int nregs;		/* VG_LOC_REG: 1 or 2 */
	enum vg_reg reg[2];	/* eightbyte 0 and 1, each INTEGER or SSE */
	/* VG_LOC_STACK: offset from %rsp at the first instruction, where
	 * [%rsp] is the return address, so the first stack argument is at
	 * 8. */
	int32_t stack_off;
};

struct vg_param {
	char *name;		/* NULL when DWARF has none (a declaration) */
	struct vg_type type;
	struct vg_loc loc;
};

struct vg_proto {
	char *func;
	size_t nparams;
	struct vg_param *params;
	bool variadic;		/* ends in "...": the named ones are above */
	bool has_ret;		/* false for void */
	struct vg_type ret;
	struct vg_loc ret_loc;	/* at return; for sret, %rax holds the
				 * address of the returned struct */
	bool sret;		/* the result is returned in memory: %rdi held
				 * its address at entry, so the parameters
				 * start at %rsi */
	/* DW_CC_nocall: the compiler changed how this function is called
	 * (unused results or parameters dropped); the locations below
	 * follow the ABI and may be wrong. */
	bool nocall;
	bool from_decl;		/* only a declaration was found (the function
				 * lives in another object); names may be
				 * missing */
};

/* The prototype of NAME from DWARF, with the location of each parameter
 * at entry.
 *
 * Locations come from the x86-64 SysV ABI classification of the parameter
 * types in order, not from the DWARF location lists: at -O1/-O2 those
 * describe where the compiler keeps a value inside the body, often start
 * after the prologue or move the value to a callee-saved register, and a
 * uprobe fires at the first instruction, where only the calling convention
 * holds. The ABI is the truth at entry; DWARF is the truth about the
 * types. (The ABI is also what a caller in another unit relies on, so a
 * function with a symbol cannot deviate from it.) */
int vg_dwarf_proto(struct vg_dwarf *dw, const char *name,
		   struct vg_proto *out, struct vg_err *e);
void vg_proto_free(struct vg_proto *p);

/* The DWARF name of parameter i (from 0), or NULL if there is none (out of
 * range, or a declaration without names). */
const char *vg_proto_param_name(const struct vg_proto *p, size_t i);

/* A spec names parameters by position (`before queue_push(queue)`); when
 * DWARF calls parameter i something else, writes a warning such as
 * "queue_push: the spec calls parameter 1 'queue'; BIN calls it 'q'" to
 * buf and returns true. Returns false when the names agree or DWARF has
 * no name; `_` in a spec never warns. */
bool vg_proto_name_differs(const struct vg_proto *p, const char *binary,
			   size_t i, const char *spec_name, char *buf,
			   size_t len);

/* Same as vg_proto_param_name without keeping a prototype: copies the name
 * of parameter i of FUNC to buf. */
int vg_dwarf_param_name(struct vg_dwarf *dw, const char *func, size_t i,
			char *buf, size_t len, struct vg_err *e);

/* --- globals ---------------------------------------------------------- */

struct vg_global {
	uint64_t addr;		/* link-time; add the load bias when pie */
	uint64_t size;
	bool pie;
	enum vg_sym_source source;	/* of the address */
	bool has_type;		/* DWARF knows it */
	struct vg_type type;
};

/* A global (or file-scope static) variable: address from .symtab/.dynsym
 * or DWARF (DW_OP_addr), type from DWARF. Thread-local variables have no
 * address and are refused. */
int vg_dwarf_global(struct vg_dwarf *dw, const char *name,
		    struct vg_global *out, struct vg_err *e);

/* Every variable DWARF places at a fixed address (globals and file-scope
 * or function statics; not thread-locals, not declarations) whose type
 * has a size: its name, link-time address, size in bytes, whether it is
 * external (else a static), and its unit's source file (NULL unknown).
 * For naming addresses in a binary stripped of .symtab. */
typedef void (*vg_dwarf_var_fn)(void *ctx, const char *name, uint64_t addr,
				uint64_t size, bool external,
				const char *file);
void vg_dwarf_each_var(struct vg_dwarf *dw, vg_dwarf_var_fn fn, void *ctx);

#endif
