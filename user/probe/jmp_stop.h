/* Stops at a probe on a jmp (plan/placement.h): the kernel emulates the
 * probed jmp before a stop the probe sent takes effect, so the thread
 * stops at the jmp's target, in the callee of a tail call
 * (pthread_mutex_unlock's jmp to __pthread_mutex_unlock_usercnt). The
 * jmp changes nothing but the pc, so setting the pc back to it is an
 * exact undo: gdb's command file does (user/act/gdb.c), and frame #0 is
 * the probed function again, at its jmp. */
#ifndef VIGIL_PROBE_JMP_STOP_H
#define VIGIL_PROBE_JMP_STOP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "act/gdb.h"

struct vg_probe;
struct vg_plan_site;

/* Keep an entry site placement moved, or that is on a jmp, or patched by
 * the in-process tier past its function's first instructions: its event,
 * file and offsets. */
int vg_jmp_stop_add(struct vg_probe *p, const struct vg_plan_site *u);
void vg_jmp_stop_free(struct vg_probe *p);

/* Was an entry probe of event moved or put on a jmp? *skipped: the
 * instructions before it (tests, register moves), *jmp: it is on a jmp */
bool vg_jmp_stop_event(const struct vg_probe *p, int event, int *skipped,
		       bool *jmp);

/* Is event's in-process patch past its function's first instructions
 * (plan_fast.c, moved_entry)? A stop there is after them. */
bool vg_jmp_stop_inproc_moved(const struct vg_probe *p, int event);

/* The run-time (target, jmp) addresses of event's jmp sites in process
 * pid, from its mappings: up to max into m; how many. */
int vg_jmp_stop_mends(const struct vg_probe *p, pid_t pid, int event,
		      struct vg_gdb_pc_mend *m, int max);

#endif
