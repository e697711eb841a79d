/* The live view's frames: the monitor's state as one JSON object, the
 * payload of each server-sent event (view.h). Built on the session's
 * thread; knows the monitor and the spec, not HTTP. */
#ifndef VIGIL_VIEW_FRAME_H
#define VIGIL_VIEW_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "monitor/monitor.h"

/* Per transition of every property, flattened in spec order (property 0's
 * transitions first), as the edges' ids in the SVG (vg_dot_write: pP_tT). */
int vg_frame_tindex(const struct vg_spec *spec, int prop, int trans);
int vg_frame_ntrans(const struct vg_spec *spec);

struct vg_frame_in {
	const struct vg_spec *spec;
	struct vg_monitor *const *mons;	/* the target's, then followed ones */
	int nmons;
	const bool *kernel;		/* [nprops]: the property's tier */
	const uint64_t *fired;		/* [vg_frame_ntrans]: so far */
	uint64_t events, lost;
	double rate;			/* events per second, lately */
	int probes_on, probes_total;
	const char *phase;		/* "running", "stopped", "exited" */
	const char *note;		/* what the phase means here, or NULL */
	int sel_prop, sel_state;	/* list this state's slices; -1 none */
	int sel_cap;			/* at most this many */
	const char *const *violations;	/* JSON objects, oldest first */
	int nviolations;
	uint64_t seq;
	uint64_t t_ms;			/* since the view started */
};

/* A malloc'ed JSON object on one line (*len bytes), or NULL when out of
 * memory. One pass over the slices for the counts, and one more for the
 * selected state's list. */
char *vg_frame_build(const struct vg_frame_in *in, size_t *len);

/* One violation as the frames list it: the property, the slice, the
 * state change, the event and the evidence (already JSON: the members
 * vg_event_json writes, and vg_evidence_json's array). */
char *vg_frame_violation(const struct vg_spec *spec,
			 const struct vg_slice_view *s, int from,
			 const char *event_text, const char *event_members,
			 const char *evidence);

#endif
