/* The watchpoints of a live run (`write x`, `read x`, `access x`): those on
 * globals of the program, armed for the whole run, and those on memory a
 * slice points to (`write q->count`, `write *p @ size`), armed while some
 * slice is in a state that consumes them or asked for them with a `watch`
 * reaction, within the four debug registers a thread has.
 *
 * The monitor tells it every transition; it computes the addresses the
 * slice needs from the slice's parameters and variables, arms and disarms
 * breakpoints through the probe layer, and turns each hit into the
 * event(s) of the slices that armed it, with `old`, the last value seen.
 *
 * The one header of user/watchset/, which holds every way vigil sees
 * accesses to watched memory: the debug registers (watchset.c, their
 * hits in watchset_hit.c, planned in watchset_plan.c), the calls whose buffers
 * touch a watched block (callacc.c, watchset_ranges.c), a violation's
 * block watched on (watchset_repeat.c), and the accesses the program told
 * memcheck not to report (watchset_quiet.c, over errquiet.c). The session
 * holds its state by one opaque pointer (struct vg_watchset) and calls
 * what is below; nothing here knows the session. The report's line of a
 * faulting access is fault.h's. The session's own part of it stays
 * there: the resuming of threads a probe held (session/hold.c), which
 * --dynamic's stops share. */
#ifndef VIGIL_WATCHSET_H
#define VIGIL_WATCHSET_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "spec/spec.h"

struct vg_monitor;
struct vg_mon_event;
struct vg_probe;
struct vg_slice_view;
struct vg_watchset;

/* What to do when a slice needs more debug registers than are free. */
enum vg_watch_policy {
	VG_WATCH_REFUSE,	/* the new slice goes unwatched: inconclusive */
	VG_WATCH_EVICT,		/* the oldest watched slices give theirs up:
				 * they become inconclusive */
};

/* x86: four debug registers per thread, and every breakpoint is in every
 * thread */
#define VG_WATCH_REGS 4

/* Which events hold their thread while a watchpoint is armed, and which
 * release one: user/plan/plan_holds.c. */

/* The watches of the plan (user/plan/plan.h: the globals' watchpoints,
 * where each per-slice watch finds its memory, the tiers, the states
 * whose entry stops the target), copied: the plan may go. */
struct vg_plan;
struct vg_watchset *vg_watchset_new(const struct vg_spec *spec,
				    const struct vg_plan *plan,
				    struct vg_probe *probe, pid_t pid,
				    enum vg_watch_policy policy,
				    struct vg_err *e);
void vg_watchset_free(struct vg_watchset *ws);

/* The program is loaded: arm the globals' watchpoints. */
int vg_watchset_start(struct vg_watchset *ws, struct vg_err *e);

/* A transition of the target's monitor m (the monitor hook). */
void vg_watchset_transition(struct vg_watchset *ws, struct vg_monitor *m,
			    const struct vg_slice_view *s, int from, int to);
/* After each event fed to m: what the transitions decided about slices
 * other than the one moving (evicted, refused) is applied. */
void vg_watchset_settle(struct vg_watchset *ws, struct vg_monitor *m);

/* The machine's debug registers report old hits again (VG_REGS_STALE):
 * every slice a hit moves may have been moved by one that did not
 * happen, and ends inconclusive */
void vg_watchset_set_stale(struct vg_watchset *ws);

/* What this machine's debug registers cannot be trusted with, said at the
 * start of a run (watchset_machine.c): those that never fire (the plan's
 * blind properties: r's verdicts say so, a global's properties are
 * inconclusive in mon from the start); those that report old hits again
 * (ws, when the run has watchpoints, set stale) */
struct vg_plan;
struct vg_report;
void vg_watchset_say_blind(const struct vg_spec *spec,
			   const struct vg_plan *plan, struct vg_report *r,
			   struct vg_monitor *mon);
void vg_watchset_say_stale(struct vg_watchset *ws, const struct vg_plan *plan,
			   struct vg_report *r);

/* Before feeding m a record's event, its flags: was it held
 * (VG_RF_ARMSTOP), did the probes count it as a release (VG_RF_RELEASE)?
 * An event
 * that holds to arm but was not held (the probes skip holds while every
 * register is taken under --watch-policy=refuse) makes what it arms late,
 * and the slice inconclusive. */
void vg_watchset_note(struct vg_watchset *ws, int event, uint16_t flags);

/* A watch event's record (ev->event a write/read/access event): fills in
 * `old` and feeds m the event of every slice that armed the address (or
 * of every property, for a global). */
int vg_watchset_hit(struct vg_watchset *ws, struct vg_monitor *m,
		    struct vg_mon_event *ev, struct vg_err *e);

/* A call vg_callacc_add added (memcpy, read(2)...): feeds
 * m the watch event of every slice whose watched block (in a consuming
 * state) the call's buffers overlap, as a hit at the first byte of the
 * overlap, whether a debug register covers it or not. */
int vg_watchset_call(struct vg_watchset *ws, struct vg_monitor *m,
		     const struct vg_mon_event *ev, struct vg_err *e);

/* A run that goes on past a violation a per-slice watch led to (an
 * access after free) reports each further access to the block from a new
 * call stack as that violation again (watchset_repeat.c), through fn,
 * called like the monitor's transition hook. */
typedef void (*vg_ws_repeat_fn)(void *ctx, const struct vg_slice_view *s,
				int from, int to,
				const struct vg_mon_event *ev);
void vg_watchset_set_repeat(struct vg_watchset *ws, vg_ws_repeat_fn fn,
			    void *ctx);

/* The end of the run: a line of counts, when anything was armed. */
void vg_watchset_finish(struct vg_watchset *ws, FILE *out);

/* valgrind's client requests that silence errors (watchset_quiet.c):
 * before the plan, a spec that watches freed blocks gets the
 * client-request event (--leak-check's, if it has it); in the run, each
 * request of process m, in order */
int vg_watchset_creq_prepare(struct vg_spec *spec, struct vg_err *e);
void vg_watchset_creq(struct vg_watchset *ws, const struct vg_monitor *m,
		      const struct vg_mon_event *ev);

/* Accesses through calls (callacc.c): before the plan, vg_callacc_add
 * appends to the spec, for each per-slice read/write/access event, a
 * `before FUNCTION` / `syscall NAME` event per call of the C library's
 * string and memory functions and system calls with a buffer (their
 * records go to vg_watchset_call), and one fault event: a SIGSEGV or
 * SIGBUS whose address may be in a watched block (glibc unmaps large
 * blocks at free), also fed to vg_watchset_call. None when no property
 * watches per slice; -1 with e set on out of memory. */
int vg_callacc_add(struct vg_spec *spec, struct vg_err *e);

/* Whether event is such a fault event, and its slots (a SIGSEGV or
 * SIGBUS raised by an access: bpf/vigil/lifecycle.bpf.c) */
bool vg_callacc_is_fault(const struct vg_spec *spec, int event);
enum {
	VG_FSLOT_SIG, VG_FSLOT_ADDR,
	VG_FSLOT_WRITE,		/* the page fault was a write's */
	VG_FSLOT_PC,		/* the faulting instruction */
	VG_FSLOT_N
};

#endif
