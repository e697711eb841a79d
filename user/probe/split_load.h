/* Loading one BPF object's programs on two CPUs (user/probe/split_load.c).
 * libbpf 1.1 verifies a bpf_object's programs one after the other in
 * bpf_object__load; the kernel tier's step (vg_kstep) alone takes about
 * as long in the verifier as all the others together, so it is loaded
 * from a second object of the same ELF, on a thread of its own, both
 * objects sharing one set of maps. It can start before the main object
 * is even configured, from a model configured with what is known then.
 * vigil run now loads the whole object early instead (early_load.h); this
 * is how vg_probe_open loads when that one does not fit. Probe-internal. */
#ifndef VIGIL_PROBE_SPLIT_LOAD_H
#define VIGIL_PROBE_SPLIT_LOAD_H

#include <bpf/libbpf.h>
#include <stddef.h>

#include "load_stats.h"

struct vg_split;

/* model: an opened object of elf/sz, configured (map sizes, global
 * data); used only during the call. Creates the maps as model has them
 * and starts loading program `name` from a second object on a thread.
 * NULL when model would not load `name`, or on failure (errno). */
struct vg_split *vg_split_start(struct bpf_object *model, const void *elf,
				size_t sz, const char *name);

/* main: the opened, configured object, not loaded yet. Loads main by
 * load_main(arg) (bpf_object__load or the skeleton's load) while the
 * split's program loads beside it, main taking the split's maps: its
 * global data other than .rodata is written into them. A split that
 * does not fit main (a map size or .rodata differs, or main would not
 * load the program) is dropped and a new one started from main itself;
 * sp NULL: a new one as well. Consumes sp. *side: the second object
 * (close it after main), or NULL when main would not load `name` (then
 * this is load_main alone); *stats: the side's verifier statistics
 * (load_stats.h) when VIGIL_DEBUG is set. Returns 0 or a negative errno,
 * as bpf_object__load. */
int vg_split_finish(struct vg_split *sp, struct bpf_object *main,
		    const void *elf, size_t sz, const char *name,
		    int (*load_main)(void *arg), void *arg,
		    struct bpf_object **side, struct vg_load_stats **stats);

/* from's .bss and .data as configured (not loaded: their images), into
 * the maps of the same names of into, loaded (from == into: main after
 * it took the split's maps). 0 or a negative errno. */
int vg_split_write_data(struct bpf_object *from, struct bpf_object *into);

/* A split never finished: waits for its thread, frees it all. */
void vg_split_free(struct vg_split *sp);

#endif
