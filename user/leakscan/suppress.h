/* Leak suppressions (docs/reference/leak-check.md, "Suppressions"): a file of
 *
 *   leak:PATTERN            LeakSanitizer's form: a loss record whose
 *                           allocation stack has a frame whose function,
 *                           source file or object matches PATTERN (a
 *                           substring; `*` any run of characters, `^` and
 *                           `$` anchor it) is suppressed;
 *   {                       valgrind's form, for Memcheck:Leak entries
 *      NAME                 (entries of other kinds are skipped):
 *      Memcheck:Leak        frame lines match the stack from its innermost
 *      match-leak-kinds: K  frame (the allocator), `fun:GLOB` a function,
 *      fun:GLOB             `obj:GLOB` an object's path, `src:FILE[:LINE]`
 *      obj:GLOB             a source file, `...` any number of frames;
 *      ...                  match-leak-kinds (optional): definite,
 *   }                       indirect, possible, reachable, or all.
 *
 * and `#` comments. */
#ifndef VIGIL_LEAKSCAN_SUPPRESS_H
#define VIGIL_LEAKSCAN_SUPPRESS_H

#include <stdint.h>

#include "leakscan/scan.h"
#include "util/err.h"

/* One frame of an allocation stack, innermost first */
struct vg_leak_frame {
	const char *func;	/* demangled, "" unknown */
	const char *file;	/* source file, "" without DWARF */
	int line;
	const char *obj;	/* the object's path, "" unknown */
};

struct vg_leak_supp;

struct vg_leak_supp *vg_leak_supp_new(void);
void vg_leak_supp_free(struct vg_leak_supp *s);

/* Add the suppressions of a file / of text (name: for messages). A
 * malformed entry: -1, e says name:line and what was expected (exit 2). */
int vg_leak_supp_load(struct vg_leak_supp *s, const char *path,
		      struct vg_err *e);
int vg_leak_supp_parse(struct vg_leak_supp *s, const char *name,
		       const char *text, struct vg_err *e);

int vg_leak_supp_count(const struct vg_leak_supp *s);
/* The suppression that matches a stack of kind k, or -1 */
int vg_leak_supp_match(const struct vg_leak_supp *s,
		       const struct vg_leak_frame *f, int n,
		       enum vg_leak_kind k);
/* its name: valgrind's NAME line, or "leak:PATTERN" */
const char *vg_leak_supp_name(const struct vg_leak_supp *s, int i);

#endif
