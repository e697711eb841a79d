/* Loading the BPF object's programs on two CPUs (user/probe/split_load.c).
 * libbpf 1.1 verifies a bpf_object's programs one after the other in
 * bpf_object__load; the kernel tier's step (vg_kstep) alone takes about
 * as long in the verifier as all the others together, so it is loaded
 * from an object of its own, build/bpf/kstep.bpf.o (the unit
 * bpf/vigil/kstep.bpf.c linked alone: no kfunc, no CO-RE, so libbpf never
 * parses the kernel's BTF for it), on a thread, while the main object
 * loads the rest; both use one set of maps, made on that thread while the
 * main object's thread parses the kernel's BTF. Without vg_kstep, the
 * watchpoint program (vg_watch, the longest of the rest) loads there
 * instead, from a second copy of the main object. vigil run's early load
 * (early_load.h) and vg_probe_open's load both go through here.
 * Probe-internal. */
#ifndef VIGIL_PROBE_SPLIT_LOAD_H
#define VIGIL_PROBE_SPLIT_LOAD_H

#include <bpf/libbpf.h>

#include "load_stats.h"

/* main: the opened, configured vigil object, not loaded. The maps the
 * kstep object has are made as main configures them (sizes, global data)
 * on another thread, while this one has libbpf parse the kernel's BTF;
 * main takes them, and when main would load vg_kstep (and the kstep
 * object's global data sits at the offsets main has it: the Makefile
 * links that unit first), vg_kstep loads from the kstep object on that
 * thread while load_main(arg) (the skeleton's load) loads main without
 * it; else, when main would load vg_watch, a copy of main loads it there
 * (its maps those the kstep object has: every one vg_watch reads). *side:
 * the kstep object or the copy (close it after main), or NULL when not
 * split; *stats: its verifier statistics (load_stats.h) when VIGIL_DEBUG
 * is set. 0 or a negative errno, as bpf_object__load. */
int vg_split_load(struct bpf_object *main, int (*load_main)(void *arg),
		  void *arg, struct bpf_object **side,
		  struct vg_load_stats **stats);

/* from's .bss and .data as configured (not loaded: their images), into
 * the maps of the same names of into, loaded. 0 or a negative errno. */
int vg_split_write_data(struct bpf_object *from, struct bpf_object *into);

#endif
