/* The leak check of a live session (docs/GUIDE.md, section 12): the live
 * blocks the spec's leak property knows (a slice per block: its address,
 * its `size`, the stack of the event that allocated it) classed by
 * user/leakscan/ from the stopped process's memory, as memcheck's leak
 * checker does, and reported as loss records with a LEAK SUMMARY.
 *
 * When: at exit with --leak-check (a property of vigil's own, below,
 * holds the target at the entry of _exit, after atexit handlers and
 * stdio's flush, its memory intact, and where it raises a signal on
 * itself that will kill it: abort, raise, kill; not at a fault); on demand with SIGUSR1, `vigil ctl
 * PID leaks` and gdb's `vigil leaks`. */
#ifndef VIGIL_SESSION_LEAKS_H
#define VIGIL_SESSION_LEAKS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <stdio.h>

#include "session/session.h"
#include "spec/spec.h"

struct vg_plan_leaks;

/* The property --leak-check adds: its event, `before _exit`, holds the
 * target for the scan (vg_leaks_plan tells the plan) */
#define VG_LEAK_HOLD_PROP "exit_for_leak_check"
/* and its event at valgrind's client requests (leaks_creq.c): the
 * request array's six words as its positions; the watches on freed
 * blocks add the same one (spec/spec.h) */
#define VG_LEAK_CREQ_EVENT VG_CREQ_EVENT

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

/* The holds of VG_LEAK_HOLD_PROP (leaks_fatal.c): the exit, and the
 * program raising a signal on itself (abort, raise, kill), which is
 * checked only when that signal will kill it */
#define VG_LEAK_NHOLDS 5
enum vg_leak_hold {
	VG_LEAK_HOLD_NONE,
	VG_LEAK_HOLD_EXIT,	/* before _exit */
	VG_LEAK_HOLD_ABORT,	/* before abort() */
	VG_LEAK_HOLD_ASSERT,	/* before __assert_fail(...): it aborts */
	VG_LEAK_HOLD_RAISE,	/* before raise(sig) */
	VG_LEAK_HOLD_KILL,	/* before kill(pid, sig) */
};
enum vg_leak_hold vg_leak_hold_kind(const char *event);
/* The signal an abort/raise/kill hold sends to the process itself (slot: the
 * event's fields), 0 for none (kill of another process) */
int vg_leak_hold_signal(enum vg_leak_hold kind, pid_t pid,
			const uint64_t *slot);
/* Will sig, sent now by thread tid with kind's hold, kill process pid?
 * Its default action kills and the thread neither blocks, ignores nor
 * catches it; abort (and a failed assert) kills unless SIGABRT has a handler (it unblocks it,
 * and sets SIG_DFL when it was ignored). */
bool vg_leak_signal_kills(enum vg_leak_hold kind, pid_t pid, pid_t tid,
			  int sig);

/* "definite,possible" or "all" etc. into a bit per kind; -1 when bad */
int vg_leak_kinds_parse(const char *list, unsigned *out);

#endif
