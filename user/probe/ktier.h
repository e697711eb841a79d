/* The in-kernel tier's tables (bpf/kstep.bpf.h) written into the loaded
 * object; which properties are eligible and how their tables are laid
 * out is the plan's (plan/plan_ktier.c). Private to user/probe/. */
#ifndef VIGIL_KTIER_H
#define VIGIL_KTIER_H

#include <bpf/libbpf.h>

#include "probe.h"

struct vg_plan_ktables;

/* Write the plan's kernel-tier tables (vg_ktier_plan, plan/plan.h) into the
 * kprops, ktrans and kcode maps of the loaded object. */
int vg_ktier_write(const struct vg_plan_ktables *kt, struct bpf_map *kprops,
		   struct bpf_map *ktrans, struct bpf_map *kcode,
		   struct vg_err *e);

#endif
