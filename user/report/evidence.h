/* The evidence of a violation: the events that moved the violating slice
 * (and the less specific slices it was joined from), each with its thread,
 * time, values and, when captured (--stacks, `backtrace`), the symbolized
 * user stack.
 *
 * Kept as one ring of the last N transitions of the run, not per slice:
 * memory stays bounded whatever the number of live slices (the monitor's
 * own budget is bytes per slice), at the price that a slice quiet for
 * longer than N transitions of the others shows only its recent history.
 * In the kernel tier only reported steps (state changes, states with
 * reactions) reach user space, so only those are evidence. */
#ifndef VIGIL_EVIDENCE_H
#define VIGIL_EVIDENCE_H

#include <stdio.h>

#include "monitor/monitor.h"

struct vg_evidence;

/* How the frames of an event's stack are found and named; the session
 * provides it (it has the probes and the target's pid). Fills up to max
 * lines like "release+0x12 (tests/targets/allocs.c:13)"; returns how many. */
typedef int (*vg_stack_fn)(void *ctx, const struct vg_mon_event *ev,
			   char (*lines)[320], int max);

/* cap: transitions kept (0 = 65536); show: at most this many per report */
struct vg_evidence *vg_evidence_new(const struct vg_spec *spec, size_t cap,
				    int show);
void vg_evidence_free(struct vg_evidence *x);
void vg_evidence_set_stacks(struct vg_evidence *x, vg_stack_fn fn, void *ctx);

void vg_evidence_add(struct vg_evidence *x, const struct vg_slice_view *s,
		     int from, int to, const struct vg_mon_event *ev);

/* The evidence of slice s, oldest first: as text lines (indented, for the
 * violation report), and as a JSON array (the value of "evidence"). */
/* A restore inside the session: how many steps were ever added (kept
 * with a checkpoint), and dropping those added after that mark, so that
 * a slice's evidence is again what it was at the checkpoint (as far as
 * the ring still holds it). */
uint64_t vg_evidence_mark(const struct vg_evidence *x);
void vg_evidence_rewind(struct vg_evidence *x, uint64_t mark);
void vg_evidence_text(struct vg_evidence *x, const struct vg_slice_view *s,
		      FILE *out);
void vg_evidence_json(struct vg_evidence *x, const struct vg_slice_view *s,
		      FILE *out);
/* The stack of one event, as text lines / a JSON array ([] when none). */
int vg_evidence_stack_text(struct vg_evidence *x,
			   const struct vg_mon_event *ev, FILE *out,
			   const char *indent);
void vg_evidence_stack_json(struct vg_evidence *x,
			    const struct vg_mon_event *ev, FILE *out);

/* Every transition the ring holds, newest first (the leak check finds
 * each block's allocation by it). */
typedef void (*vg_evidence_visit)(void *ctx, int prop, uint32_t mask,
				  const uint64_t *params, int from, int to,
				  const struct vg_mon_event *ev);
void vg_evidence_foreach(struct vg_evidence *x, vg_evidence_visit cb,
			 void *ctx);

#endif
