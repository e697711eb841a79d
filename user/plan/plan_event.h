/* What one event's probe reads: its arguments and return value (where,
 * and as which C type: user/plan/args.c) and the target memory its
 * `p->field` expressions name (user/plan/capture.c), both planned from
 * the DWARF of the object the function lives in. */
#ifndef VIGIL_PLAN_EVENT_H
#define VIGIL_PLAN_EVENT_H

#include <stdio.h>

#include "spec/spec.h"
#include "args.h"
#include "vigil_event.h"

struct vg_dwarf_cache;

/* Plans event ev into conf: for a function call, whose function lives in
 * OBJECT (NULL for other events), its arguments and return value; for
 * every event, its memory reads, `::global` ones in PROG, the program.
 * Warnings (a spec name that is not the function's own) go to warn with
 * the spec line, when warn is not NULL; `what` (may be NULL) gets the
 * description of each argument for `vigil lint --binary`. Errors name the
 * spec line. FUNC is the symbol the function was found as (a C++
 * function's mangled name; NULL: ev's name). */
int vg_plan_event(const struct vg_event *ev, const char *object,
		  const char *func,
		  const char *prog, struct vg_dwarf_cache **dc,
		  struct vg_ev_conf *conf, struct vg_args_plan *what,
		  FILE *warn, struct vg_err *e);

#endif
