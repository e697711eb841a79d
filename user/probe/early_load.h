/* The whole BPF object loaded while the plan is built (user/probe/
 * early_load.c). Loading parses the kernel's BTF and verifies every
 * program, ~80 ms of vigil's start-up on these machines, and the plan
 * (the DWARF of the libraries) takes as long on the other CPU. What the
 * object loads follows from the spec alone in most runs: vg_probe_early_
 * start configures a skeleton as it predicts vg_probe_open will, and
 * loads it on a thread; vg_probe_open takes it when its own configuration
 * (the programs it loads, the maps' sizes, the read-only data) is the
 * same, byte for byte, and else drops it and loads its own. The load
 * function given (probe_early.c) verifies vg_kstep beside the rest
 * (split_load.h). Probe-internal. */
#ifndef VIGIL_PROBE_EARLY_LOAD_H
#define VIGIL_PROBE_EARLY_LOAD_H

#include <bpf/libbpf.h>
#include <stdbool.h>

#include "load_stats.h"

struct vg_early_load;

/* model: an opened skeleton's object, configured, not loaded; load(arg)
 * loads it (the skeleton's load). Starts that on a thread (or now, with
 * none to be had). NULL without memory. */
struct vg_early_load *vg_early_load_start(struct bpf_object *model,
					  int (*load)(void *arg), void *arg);

/* Would main, configured and not loaded, load as the model did? If not,
 * *differs (differs not NULL) names the first program or map that is
 * configured otherwise. */
bool vg_early_load_fits(const struct vg_early_load *el,
			struct bpf_object *main, const char **differs);

/* Waits for the model's load: 0 and its verifier statistics (VIGIL_DEBUG,
 * load_stats.h) and its load time, or a negative errno. main's .bss and
 * .data as configured are written into the model's maps. The caller then
 * owns the model (its skeleton) and frees el. */
int vg_early_load_take(struct vg_early_load *el, struct bpf_object *main,
		       struct vg_load_stats **stats,
		       unsigned long long *load_ns);

/* Not taken: the model is destroyed by destroy(arg) once its load is
 * over, without waiting for it here. */
void vg_early_load_drop(struct vg_early_load *el, void (*destroy)(void *arg));

#endif
