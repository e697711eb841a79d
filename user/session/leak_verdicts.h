/* The leak property's verdicts at exit from the leak check's classes
 * (--leak-check, session/leaks.c): the blocks the check at exit (or abort)
 * classed, by address, and the classer user/report/ asks for each heap
 * block's slice (vg_report_set_leak_classer). A lost block (the kinds in
 * `errors`) is an error; a still reachable block and the C library's own
 * are not (docs/GUIDE.md section 12). */
#ifndef VIGIL_SESSION_LEAK_VERDICTS_H
#define VIGIL_SESSION_LEAK_VERDICTS_H

#include <stdbool.h>
#include <stddef.h>

#include "leakscan/scan.h"
#include "monitor/monitor.h"
#include "report/report.h"
#include "spec/spec.h"

struct vg_leak_verdicts;

/* errors: a bit per enum vg_leak_kind. NULL: out of memory. */
struct vg_leak_verdicts *vg_leak_verdicts_new(const struct vg_spec *spec,
					      unsigned errors);
void vg_leak_verdicts_free(struct vg_leak_verdicts *v);

/* The classes of a check (they replace those of an earlier one): blocks
 * b[0..n), classed; libc[i]: b[i] is the C library's own. 0, -1 out of
 * memory. */
int vg_leak_verdicts_set(struct vg_leak_verdicts *v,
			 const struct vg_leak_block *b, const bool *libc,
			 size_t n);
bool vg_leak_verdicts_any(const struct vg_leak_verdicts *v);

/* A vg_leak_classer, ctx the vg_leak_verdicts */
bool vg_leak_verdict_of(void *ctx, const struct vg_slice_view *s,
			struct vg_leak_verdict *out);

#endif
