/* What the running kernel offers vigil beyond Linux 6.1 (Debian 12's),
 * each found by a probe of its own (the kernel's BTF, a tiny program
 * loaded, a perf event), never by a version number: a distribution
 * kernel backports, and a build leaves things out.
 *
 * One function per feature: true when it works; *why (may be NULL) gets
 * a short sentence, what was found or missed, with the Linux version that
 * brought it as a hint only. Each answer is computed once per process.
 * vg_kfeatures[] lists them all, for a report (vigil doctor). */
#ifndef VIGIL_PROBE_FEATURES_H
#define VIGIL_PROBE_FEATURES_H

#include <stdbool.h>
#include <stdint.h>

/* bpf_copy_from_user_str (6.12): strings read by the sleepable probes in
 * one call; else their pages are faulted in first, then read */
bool vg_feat_copy_from_user_str(const char **why);
/* bpf_send_signal_task (6.13): a followed fork's child held until its
 * probes are in; with bpf_task_from_pid, the kernel tier's timeouts */
bool vg_feat_send_signal_task(const char **why);
/* Where a thread's break is, for the kernel tier's object map
 * (bpf/kmem.bpf.h): the byte offsets of task_struct.mm and
 * mm_struct.brk in this kernel's BTF; false (and 0s) when unknown */
bool vg_feat_brk_offsets(uint32_t *off_mm, uint32_t *off_brk);
/* bpf_task_from_pid (6.2): the kernel tier's timer finds the thread */
bool vg_feat_task_from_pid(const char **why);
/* sched_process_exit's group_dead argument (6.16); else the last thread
 * is told from the process's count of live threads */
bool vg_feat_exit_group_dead(const char **why);
/* an fentry program on do_exit loads (BPF trampolines): where
 * sched_process_exit has no group_dead, vigil counts the threads in
 * do_exit to tell the last; else it goes by the live thread count */
bool vg_feat_exit_fentry(const char **why);
/* multi-uprobe links (6.6): one link per program and file; else one
 * uprobe per site */
bool vg_feat_uprobe_multi(const char **why);
/* a kprobe-type program may write the thread's registers (exact stops at
 * an entry: the stopped thread is put back at the call) */
bool vg_feat_rewind(const char **why);
/* the kernel tier's timeouts: a timer that stops a thread (both kfuncs
 * above); else timed properties run in the user tier */
bool vg_feat_ktimer(const char **why);
/* the x86 debug registers fire (hardware watchpoints): some hypervisors
 * accept the perf event and never deliver a hit */
bool vg_feat_debug_regs(const char **why);

struct vg_kfeature {
	const char *name;
	bool (*works)(const char **why);
};
extern const struct vg_kfeature vg_kfeatures[];	/* ends with { NULL } */

#endif
