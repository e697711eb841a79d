/* The in-process tier (a feature): the hot functions' probes put inside
 * the target, with no trap on their path.
 *
 * At the start (fast_install.c) vigil stops every thread of the target
 * with ptrace, maps into it an agent (inproc/, carried in vigil), a
 * region shared with vigil (include/vigil_fast.h: the event table, the
 * kernel tier's tables, a ring of records) and, when a kernel-tier
 * property is stepped there, the kernel tier's own slice table (the BPF
 * map, so both tiers share one state per slice); then it overwrites the
 * first bytes of each function the plan took (plan/plan_fast.c) with a
 * jump to a stub that calls the agent and goes on at the function's
 * relocated first instructions (reloc.c, tramp.c). The ring is drained
 * with the BPF ring (probe/probe.h's vg_probe_source), its records in
 * the same layouts; the patches come out at the end of the run.
 *
 * A CRIU checkpoint dumps the target with none of it (fast_ckpt.c takes
 * it out before the dump and puts it back after); a restored process
 * gets it as on attach.
 *
 * If vigil dies, the agent sees it (a robust mutex vigil holds, whose
 * word the kernel marks when its owner dies) and records nothing more;
 * the patches stay, and the functions run as before.
 */
#ifndef VIGIL_FAST_FEATURE_H
#define VIGIL_FAST_FEATURE_H

#include "feature/feature.h"

extern const struct vg_feature vg_fast_feature;

#endif
