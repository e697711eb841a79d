/* `vigil graph`: a property's automaton as Graphviz DOT. */
#ifndef VIGIL_DOT_H
#define VIGIL_DOT_H

#include <stdint.h>
#include <stdio.h>

#include "spec/spec.h"

/* Per state of every property, flattened in spec order (property 0's
 * states first): reached[i] non-zero if some slice entered it, ended[i]
 * the number of slices that ended there. Both NULL: plain graph. */
struct vg_dot_marks {
	const uint8_t *reached;
	const uint64_t *ended;
};

void vg_dot_write(const struct vg_spec *spec, FILE *out,
		  const struct vg_dot_marks *marks);

/* Index of (prop, state) in the flattened arrays. */
int vg_dot_index(const struct vg_spec *spec, int prop, int state);
int vg_dot_nstates(const struct vg_spec *spec);

#endif
