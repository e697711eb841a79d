/* The kernel tier's tables (laid out by the plan: plan/plan_ktier.c),
 * written into the loaded object's maps. */
#include "ktier.h"
#include "plan/plan.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

int vg_ktier_write(const struct vg_plan_ktables *kt, struct bpf_map *kprops,
		   struct bpf_map *ktrans, struct bpf_map *kcode,
		   struct vg_err *e)
{
	for (uint32_t k = 0; k < (uint32_t)kt->nkprops; k++)
		if (bpf_map_update_elem(bpf_map__fd(kprops), &k, &kt->kprops[k], 0))
			return vg_errf(e, "kernel tier: writing property table: %s",
				       strerror(errno));
	for (uint32_t i = 0; i < kt->ncode; i++)
		if (bpf_map_update_elem(bpf_map__fd(kcode), &i, &kt->code[i], 0))
			return vg_errf(e, "kernel tier: writing code: %s",
				       strerror(errno));
	for (int i = 0; i < kt->ntrans; i++)
		if (bpf_map_update_elem(bpf_map__fd(ktrans), &kt->trans[i].index,
					&kt->trans[i].t, 0))
			return vg_errf(e, "kernel tier: writing transitions: %s",
				       strerror(errno));
	return 0;
}
