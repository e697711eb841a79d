/* The leak check of a run (docs/reference/leak-check.md): the live blocks
 * the spec's leak property knows (a slice per block: its address, its
 * `size`, the stack of the event that allocated it) classed by
 * user/leakscan/ from the stopped process's memory, as memcheck's leak
 * checker does, and reported as loss records with a LEAK SUMMARY.
 *
 * When: at exit with --leak-check (a property of vigil's own, below,
 * holds the target at the entry of _exit, after atexit handlers and
 * stdio's flush, its memory intact, and where it raises a signal on
 * itself that will kill it: abort, raise, kill; not at a fault); on
 * demand with SIGUSR1, `vigil ctl PID leaks` and gdb's `vigil leaks`.
 *
 * This folder is the whole check, a feature of the run
 * (vg_leaks_feature): the session core calls its hooks at each event, the
 * holds let go, SIGUSR1, a control command, the end. It sees the run
 * through the vg_run_* calls of feature/feature.h and the few
 * vg_leaks_host_* below (user/session/leaks_host.c), and includes
 * nothing of user/session/. */
#ifndef VIGIL_LEAKS_H
#define VIGIL_LEAKS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <stdio.h>

#include "spec/spec.h"
#include "util/err.h"

struct vg_run;
struct vg_mon_event;
struct vg_report;
struct vg_symbolizer;
struct vg_plan_leaks;
struct vg_feature;

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

/* --leak-check (leak_check): add VG_LEAK_HOLD_PROP to spec (before the
 * plan). A spec without a block property: an error (exit 2). */
int vg_leaks_prepare(struct vg_spec *spec, bool leak_check,
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

/* ---- the check inside a run: its state, and the loop's calls */

/* What the command line asked of it */
struct vg_leaks_opts {
	bool leak_check;	/* --leak-check: at exit and fatal raises */
	const char *suppressions;	/* --suppressions FILE, or NULL */
	unsigned show;		/* --show-leak-kinds, a bit per enum
				 * vg_leak_kind; 0: definite and possible,
				 * as memcheck */
	unsigned errors;	/* --errors-for-leak-kinds; 0: definite,
				 * indirect, possible */
};

struct vg_leaks;

/* The check's state for run, once its plan is built (the hold events of
 * --leak-check found in its spec, the suppressions read): NULL with e
 * set. Every run has one: SIGUSR1 and `vigil ctl leaks` ask without
 * --leak-check. */
struct vg_leaks *vg_leaks_new(struct vg_run *run,
			      const struct vg_leaks_opts *o, struct vg_err *e);
void vg_leaks_free(struct vg_leaks *l);
/* An event of the run: is it the target at _exit (or a fatal raise),
 * held for the check, or a leak client request? (l NULL: nothing) */
void vg_leaks_note(struct vg_leaks *l, const struct vg_mon_event *ev);
/* After a drain, before the holds are let go: the checks valgrind's
 * client requests asked for (leaks_creq.c), then the one at exit; both
 * must run while the hold still stops the target */
void vg_leaks_creq(struct vg_leaks *l);
void vg_leaks_at_exit(struct vg_leaks *l);
/* SIGUSR1: the check now, to stderr and --json (nothing without a leak
 * property) */
void vg_leaks_on_demand(struct vg_leaks *l);
/* `vigil ctl PID leaks [KINDS]`, gdb's `vigil leaks` (leaks_ctl.c), with
 * the contract of a feature's ctl hook (feature/feature.h): 0 not this
 * command, 1 answered (*text, *data), -1 refused with e set */
int vg_leaks_ctl(struct vg_leaks *l, const char *cmd, json_t *args,
		 char **text, json_t **data, struct vg_err *e);
/* The target is gone (exited; sig: the signal that killed it, or 0):
 * with --leak-check, say when the check could not run (leaks_fatal.c) */
void vg_leaks_end(struct vg_leaks *l, bool exited, int sig);

/* The check as a feature of the run (leaks_feature.c): its options
 * (--leak-check, --suppressions, --show-leak-kinds,
 * --errors-for-leak-kinds) and the hooks the session calls */
extern const struct vg_feature vg_leaks_feature;

/* What the check asks of the session that the vg_run_* calls do not
 * offer (user/session/leaks_host.c) */
/* Did the plan capture user stacks at this event? */
bool vg_leaks_host_stack_on(const struct vg_run *r, int event);
/* The target's symbolizer, made at first use */
struct vg_symbolizer *vg_leaks_host_symbolizer(struct vg_run *r);

#endif
