/* `vigil graph`: a property's automaton as Graphviz DOT. */
#ifndef VIGIL_DOT_H
#define VIGIL_DOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "spec/spec.h"

/* Per state of every property, flattened in spec order (property 0's
 * states first): reached[i] non-zero if some slice entered it, ended[i]
 * the number of slices that ended there. Both NULL: plain graph. */
struct vg_dot_marks {
	const uint8_t *reached;
	const uint64_t *ended;
	/* the live view: each state's label has a second line, room for the
	 * count the page writes there */
	bool live;
	/* the state of the slice the last stop was about (`vigil graph` in a
	 * live session): a blue fill and border, and stop_note beside it
	 * (an xlabel: the node keeps its size); NULL: none */
	const char *stop_note;
	int stop_prop, stop_state;
	/* [nprops]: properties left out (unloaded, load/unload.c); NULL: none */
	const bool *hidden;
};
#define VG_DOT_COUNT_ROOM "0000000 slices"
/* the last stop's state: blue, apart from the kinds' green/amber/red */
#define VG_DOT_STOP_FILL "#cfe2ff"
#define VG_DOT_STOP_BORDER "#0d47a1"

/* The fill colour of a state of this kind (static and live pictures). */
const char *vg_dot_kind_color(enum vg_state_kind k);
/* The graph as SVG, through Graphviz's dot: malloc'ed, *len bytes, or
 * NULL with e set. Nodes and edges carry ids pP_sS and pP_tT. */
char *vg_dot_svg(const struct vg_spec *spec, const struct vg_dot_marks *marks,
		 size_t *len, struct vg_err *e);

void vg_dot_write(const struct vg_spec *spec, FILE *out,
		  const struct vg_dot_marks *marks);

/* Index of (prop, state) in the flattened arrays. */
int vg_dot_index(const struct vg_spec *spec, int prop, int state);
int vg_dot_nstates(const struct vg_spec *spec);

#endif
