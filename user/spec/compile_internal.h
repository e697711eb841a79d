/* What the two halves of the compiler share: compile.c turns a property's
 * syntax tree into states, events, bindings and transitions; compile_expr.c
 * compiles its guards and updates, and the memory reads they name, to
 * bytecode. Not for other modules. */
#ifndef VIGIL_SPEC_COMPILE_INTERNAL_H
#define VIGIL_SPEC_COMPILE_INTERNAL_H

#include "spec_internal.h"

/* Event fields have no declared type: a CSV field may be a number or a
 * string, so they are compatible with everything. */
#define TY_ANY 100
/* more would not fit the 16-bit idx of an instruction, and no real
 * property comes close */
#define MAX_VARS 1024

struct cc {
	struct vg_ld *ld;
	const struct vg_prop_ast *ast;
	struct vg_property *pr;
	int cap;		/* of pr->code */
	int depth;
	bool konst;		/* an initializer: no names */
	const struct vg_pattern *pat;
	int ev;			/* index into ld->events */
	struct vg_loc *bind_loc;	/* per binding: where it was first made */
};

enum ref_kind { R_FIELD, R_PARAM, R_VAR, R_GLOB, R_TID, R_TIME };

struct ref {
	enum ref_kind kind;
	int idx;
	int type;
	bool param;		/* a pattern name that binds a slice parameter */
};

/* The capture of the current event reading `path` from the pointer in
 * slot src (a position, VG_SLOT_RET or VG_CAP_GLOBAL), added unless the
 * event has it; its index. text is what reports call it. */
int vg_cc_capture(struct cc *c, int src, const char *path, bool is_str,
		  const char *text, struct vg_loc loc);
/* The capture of a pattern's `*name` at position i (compile.c) */
int vg_cc_pattern_capture(struct cc *c, const struct vg_pattern *pat, int i);

/* types: VG_TYPE_* or TY_ANY; their names, alone and with an article */
bool vg_cc_unsigned_ty(int t);
const char *vg_cc_ty_name(int t);
const char *vg_cc_a_ty(int t);
/* append an instruction to the property's code; its index */
int vg_cc_emit(struct cc *c, enum vg_opcode op, int idx, int64_t imm,
	       struct vg_loc loc);
/* what a name in a guard or update means (docs/LANGUAGE.md, Names) */
bool vg_cc_resolve(struct cc *c, const char *name, struct ref *r);
/* the opcode of a binary operator, unsigned or not */
enum vg_opcode vg_cc_binop(enum vg_tok op, bool u);
/* The path of a member chain below its base name, "a.b->c" for
 * p->a.b->c; false when the chain is not NAME->... or ::g... */
bool vg_cc_member_path(const struct vg_expr *e, const struct vg_expr **base,
		       char *buf, size_t len);
/* the index of the event a pattern names, added to the spec's events
 * the first time */
int vg_cc_event_index(struct vg_ld *ld, const struct vg_pattern *pat);
/* write/read/access: the event's location (vg_event.wloc), checked
 * against the property; from is the state the transition leaves */
void vg_cc_watch(struct cc *c, const struct vg_pattern *pat, int from);
/* change EXPR: its locations (vg_event.cloc) and bytecode, checked
 * against the property */
void vg_cc_change(struct cc *c, const struct vg_pattern *pat, int from);
/* compile e, leaving its value on the stack; its type */
int vg_cc_compile_expr(struct cc *c, const struct vg_expr *e);

#endif
