/* Exact kernel-tier stops at a function's entry (bpf/rewind.bpf.h): the
 * stopping probe sends the thread back to the call instruction, so nothing
 * of the function has run; on kernels that do not let a uprobe program
 * write its registers (before Linux 6.18) the stop stays after the
 * function's first instruction, and the report says so. */
#ifndef VIGIL_PROBE_REWIND_H
#define VIGIL_PROBE_REWIND_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

#include "spec/spec.h"

struct vg_probe;
struct vg_probe_opts;

/* Does this kernel accept a uprobe program that writes its registers?
 * (A four-instruction program is loaded and dropped, once.) */
bool vg_rewind_supported(void);

/* Before the BPF object is loaded: compile the rewind in when supported. */
void vg_rewind_setup(struct vg_probe *p);
/* After: which events may rewind (entry events of the kernel tier whose
 * function has no return probe). */
int vg_rewind_config(struct vg_probe *p, const struct vg_probe_opts *o);
/* ... that is, of a kernel-tier property's events: a `before` event with
 * no `after` event on its function, none of whose sites placement moved
 * past writes that would not redo (norewind) */
struct vg_plan;
bool vg_rewind_event_ok(const struct vg_spec *s, const struct vg_plan *plan,
			int event);

/* For a stopped kernel-tier record (flags VG_RF_*) of event `event`: NULL
 * when the thread stopped before the function ran (or the event is no
 * function entry), else what the report says: "stopped after f's first
 * instruction: why", or, when its probe is on a jmp (jmp_stop.h), at that
 * jmp, in buf. p: the probes (NULL: none on a jmp). */
const char *vg_rewind_stop_note(const struct vg_probe *p,
				const struct vg_spec *spec, int event,
				unsigned flags, char *buf, size_t len);

#endif
