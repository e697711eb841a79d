/* VIGIL_DEBUG=1: the verifier's time and work per BPF program loaded
 * (user/probe/load_stats.c), so that what a spec costs at start-up can be
 * seen program by program. Probe-internal. */
#ifndef VIGIL_PROBE_LOAD_STATS_H
#define VIGIL_PROBE_LOAD_STATS_H

#include <bpf/libbpf.h>
#include <stdio.h>

struct vg_load_stats;

/* Before load: NULL (nothing to do) unless VIGIL_DEBUG is set; else asks
 * the kernel for its statistics on every program that will be loaded. */
struct vg_load_stats *vg_load_stats_arm(struct bpf_object *obj);
/* After load (load_ns: the time bpf_object__load took): one line per
 * program loaded, and one for those left out; after a failed load, the
 * log of the program refused. side/side_s: a second object whose
 * programs were loaded beside obj's (split_load.h), or NULL. Frees s and
 * side_s. */
void vg_load_stats_print(struct vg_load_stats *s, struct bpf_object *obj,
			 struct vg_load_stats *side_s, struct bpf_object *side,
			 unsigned long long load_ns, FILE *out);

/* After a failed load of obj, whose statistics are not printed: the logs
 * of its programs the kernel refused. Frees s. */
void vg_load_stats_refused(struct vg_load_stats *s, struct bpf_object *obj,
			   FILE *out);

/* Statistics armed but never printed. */
void vg_load_stats_free(struct vg_load_stats *s);

#endif
