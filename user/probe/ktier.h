/* Compiling a property for the in-kernel tier (bpf/kstep.bpf.h): deciding
 * whether it is eligible and laying out its tables. Private to user/probe/. */
#ifndef VIGIL_KTIER_H
#define VIGIL_KTIER_H

#include <bpf/libbpf.h>

#include "probe.h"

/* Fill the kprops, ktrans and kcode maps of the loaded object for the
 * properties marked in opts->kernel; record in kprop_map[k] the spec index
 * of kernel property k. Also fills conf[event].kprop/kslot. */
int vg_ktier_load(const struct vg_spec *spec, const struct vg_probe_opts *opts,
		  struct bpf_map *kprops, struct bpf_map *ktrans,
		  struct bpf_map *kcode, struct vg_ev_conf *conf,
		  int *kprop_map, int *nkprops, struct vg_err *e);

/* Where kernel property kprop's bytecode starts in the kcode map. */
uint32_t vg_ktier_code_base(const struct vg_spec *spec,
			    const struct vg_probe_opts *opts, int kprop);

#endif
