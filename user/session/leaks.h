/* The leak check of a live session (docs/GUIDE.md, section 12): the live
 * blocks the spec's leak property knows (a slice per block: its address,
 * its `size`, the stack of the event that allocated it) classed by
 * user/leakscan/ from the stopped process's memory, as memcheck's leak
 * checker does, and reported as loss records with a LEAK SUMMARY.
 *
 * When: at exit with --leak-check (a property of vigil's own, below,
 * holds the target at the entry of _exit, after atexit handlers and
 * stdio's flush, its memory intact); on demand with SIGUSR1, `vigil ctl
 * PID leaks` and gdb's `vigil leaks`. */
#ifndef VIGIL_SESSION_LEAKS_H
#define VIGIL_SESSION_LEAKS_H

#include <stdbool.h>
#include <stdio.h>

#include "session/session.h"
#include "spec/spec.h"

struct vg_plan_leaks;

/* The property --leak-check adds: its event, `before _exit`, holds the
 * target for the scan (vg_leaks_plan tells the plan) */
#define VG_LEAK_HOLD_PROP "exit_for_leak_check"

/* A property whose slices are heap blocks: named `leak` or `..._leak`,
 * sliced on one pointer, with a `size` variable (specs/lib/leak.vigil);
 * its slices in non-accepting states are the live blocks. *size_var: the
 * variable's index. */
bool vg_leak_block_prop(const struct vg_property *p, int *size_var);

/* --leak-check: add VG_LEAK_HOLD_PROP to spec (before the plan). A spec
 * without a block property: an error (exit 2). */
int vg_leaks_prepare(struct vg_spec *spec, const struct vg_session_opts *o,
		     struct vg_err *e);

/* --leak-check's part of the plan (plan/plan.h): the hold at _exit, and
 * the stacks the loss records need; vg_leaks_plan_free frees its arrays
 * once the plan is built */
int vg_leaks_plan(const struct vg_spec *spec, struct vg_plan_leaks *out,
		  struct vg_err *e);
void vg_leaks_plan_free(struct vg_plan_leaks *pl);

/* "definite,possible" or "all" etc. into a bit per kind; -1 when bad */
int vg_leak_kinds_parse(const char *list, unsigned *out);

#endif
