/* Loading one BPF object's programs on two CPUs (user/probe/split_load.c).
 * libbpf 1.1 verifies a bpf_object's programs one after the other in
 * bpf_object__load; the kernel tier's step (vg_kstep) alone takes about
 * as long in the verifier as all the others together, so it is loaded
 * from a second object of the same ELF, on a thread of its own, both
 * objects sharing one set of maps. Probe-internal. */
#ifndef VIGIL_PROBE_SPLIT_LOAD_H
#define VIGIL_PROBE_SPLIT_LOAD_H

#include <bpf/libbpf.h>
#include <stddef.h>

#include "load_stats.h"

/* main: the opened, configured (autoload, map sizes, global data)
 * object, not loaded yet; elf/sz: the bytes it was opened from. When
 * main would load program `name`, it is loaded instead on a thread from
 * a second object of elf, while load_main(arg) loads main (it must call
 * bpf_object__load or the skeleton's load). The maps are created once,
 * from a copy of main's sizes and initial values, and both objects use
 * them. *side: the second object (close it after main), or NULL when
 * name was not to be loaded (then this is load_main alone); *stats:
 * the side's verifier statistics (load_stats.h), armed when VIGIL_DEBUG
 * is set. Returns 0 or a negative errno, as bpf_object__load. */
int vg_split_load(struct bpf_object *main, const void *elf, size_t sz,
		  const char *name, int (*load_main)(void *arg), void *arg,
		  struct bpf_object **side, struct vg_load_stats **stats);

#endif
