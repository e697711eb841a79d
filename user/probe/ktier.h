/* Compiling a property for the in-kernel tier (bpf/kstep.bpf.h): deciding
 * whether it is eligible and laying out its tables. Private to user/probe/. */
#ifndef VIGIL_KTIER_H
#define VIGIL_KTIER_H

#include <bpf/libbpf.h>

#include "probe.h"

struct vg_plan_ktables;

/* Write the plan's kernel-tier tables (vg_ktier_plan, probe.h) into the
 * kprops, ktrans and kcode maps of the loaded object. */
int vg_ktier_write(const struct vg_plan_ktables *kt, struct bpf_map *kprops,
		   struct bpf_map *ktrans, struct bpf_map *kcode,
		   struct vg_err *e);

#endif
