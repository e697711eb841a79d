/* Positional parameters and return values: where the probe finds each one
 * and how its bits become the spec's value (struct vg_arg_plan,
 * include/vigil_event.h).
 *
 * With DWARF, a spec's positional parameters get the function's types and
 * x86-64 locations: an `int` is sign-extended from %edi, a `bool` is its
 * low byte, the seventh integer argument or one after a by-value struct is
 * read from the stack, and a `double` before an `int` does not shift the
 * `int` out of %rdi. Without DWARF, position i is integer register i (and
 * positions 7 and 8 the first two stack slots), as the ABI has it for
 * integers and pointers.
 * (No spec types here: spec.h and sym/dwarf.h both name a vg_loc.) */
#ifndef VIGIL_PLAN_ARGS_H
#define VIGIL_PLAN_ARGS_H

#include <stdbool.h>

#include "util/err.h"
#include "vigil_event.h"

struct vg_dwarf;

struct vg_args_req {
	const char *func;
	int nfields;		/* positions 0..nfields-1 may be read */
	/* the spec's name of each position; "" when it names none */
	const char (*names)[64];
	unsigned used;		/* bit i: the spec reads position i */
	bool uses_ret;
};

struct vg_args_plan {
	bool typed;		/* from DWARF; false: registers by position */
	/* per position (and, at VG_SLOT_RET, the return value): what it is
	 * and where, for `vigil lint --binary`: "int in %esi" */
	char what[VG_SLOT_RET + 1][160];
	/* positions whose spec name differs from the function's own, with
	 * the warning (vigil says where in the spec) */
	unsigned warn_mask;
	char warn[VG_MAX_FIELDS][320];
	/* of those, the names that are the function's own for another
	 * position: likely a mistake (swapped arguments) */
	unsigned likely_mask;
	/* in, for vg_plan_event (plan.h): warn about every name that
	 * differs (vigil lint --all-warnings), not only the likely mistakes */
	bool all_names;
	char caveat[320];	/* about the whole function, or "" */
	int bad;		/* on failure: the position at fault, or
				 * VG_SLOT_RET */
};

/* Plans the reading of FUNC's parameters and return value into conf (its
 * arg[], ret_conv, ret_size and the VG_EVF_ARGS / VG_EVF_RETX flags). dw
 * is BINARY's DWARF handle, or NULL when there is none. Fails, naming the
 * function, the binary and the parameter, when a parameter the spec reads
 * does not exist or cannot be a spec value (a double: the language has no
 * floating point, and a uprobe cannot read SSE registers; a struct passed
 * by value). A parameter that is only named, never read, is not read. */
int vg_args_plan(struct vg_dwarf *dw, const char *binary,
		 const struct vg_args_req *req, struct vg_ev_conf *conf,
		 struct vg_args_plan *out, struct vg_err *e);

#endif
