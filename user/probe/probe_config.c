/* How the BPF object is configured before its load, from the spec and the
 * programs the plan's sites run: which programs load, the lifecycle
 * programs' event numbers, the maps a run has no use for cut to one
 * entry. vg_probe_early_start's model and vg_probe_open's object go
 * through the same calls, so that the early load is taken only when both
 * come out the same byte for byte (early_load.c). */
#include "probe_internal.h"

#include <bpf/libbpf.h>

#include "features.h"
#include "plan/plan.h"
#include "ulink.h"
#include "vigil.skel.h"

/* The lifecycle programs' event indices (read-only data, so set before
 * load: vg_probe_early_start's model and vg_probe_open's object must get
 * the same bytes, split_load.h); whether the spec has signal and
 * syscall events. */
static void lifecycle_events(const struct vg_spec *s, struct vigil_bpf *skel,
			     bool *signal, bool *syscall)
{
	*signal = *syscall = false;
	for (int i = 0; i < s->nevents; i++) {
		switch (s->events[i].kind) {
		case VG_EV_EXIT:
			skel->rodata->ev_exit = i;
			break;
		case VG_EV_THREAD_EXIT:
			skel->rodata->ev_thread_exit = i;
			break;
		case VG_EV_SIGNAL:	/* or a fault in a freed block
					 * (watchset/callacc.c) */
			if (s->events[i].access_for)
				skel->rodata->ev_fault = i;
			else
				skel->rodata->ev_signal = i;
			*signal = true;
			break;
		case VG_EV_THREAD_START:
			skel->rodata->ev_thread_start = i;
			break;
		case VG_EV_SYSCALL:
			*syscall = true;
			break;
		default:
			break;
		}
	}
}

/* Before load: tell the lifecycle programs their event indices, and load
 * only those the spec uses. */
static void lifecycle_setup(struct vigil_bpf *skel, const struct vg_spec *s)
{
	bool signal, syscall, watches = false;

	lifecycle_events(s, skel, &signal, &syscall);
	for (int i = 0; i < s->nevents; i++)
		watches |= vg_event_watches(&s->events[i]);
	/* always: the exit status of a process we attached to, which is not
	 * ours to wait for, comes from its exit tracepoint; forks and execs
	 * of the target are reported */
	bpf_program__set_autoload(skel->progs.vg_exit, true);
	bpf_program__set_autoload(skel->progs.vg_fork, true);
	bpf_program__set_autoload(skel->progs.vg_exec, true);
	bpf_program__set_autoload(skel->progs.vg_signal, signal);
	bpf_program__set_autoload(skel->progs.vg_sys_enter, syscall);
	bpf_program__set_autoload(skel->progs.vg_watch, watches);
}

/* a call checked against watched blocks (user/watchset/callacc.c) */
static bool has_callacc_event(const struct vg_spec *spec)
{
	for (int i = 0; i < spec->nevents; i++)
		if (spec->events[i].access_for)
			return true;
	return false;
}

bool vg_probe_stacks_predicted(const struct vg_spec *spec)
{
	for (int i = 0; i < spec->nprops; i++) {
		const struct vg_property *pr = &spec->props[i];

		if (pr->timed || vg_property_backtraces(pr))
			return true;
	}
	for (int i = 0; i < spec->nevents; i++)
		if ((spec->events[i].access_for &&
		     spec->events[i].kind == VG_EV_SIGNAL) ||
		    (vg_event_watches(&spec->events[i]) &&
		     spec->events[i].wloc.per_slice))
			return true;
	return false;
}

void vg_probe_config_programs(struct vigil_bpf *skel,
			      const struct vg_spec *spec, bool ktier,
			      unsigned used, bool stacks)
{
	/* A preallocated map costs its whole size when it is made, on the
	 * load's critical path: the calls' page filter (65,536 entries)
	 * and the stack map (4,096 traces of 1 KB) took ~17 of the ~40 ms
	 * the maps took to make on a VM whose page faults trap to the
	 * hypervisor. A run that has no use for one gets one entry. */
	if (!has_callacc_event(spec))
		bpf_map__set_max_entries(skel->maps.watched_pages, 1);
	if (!stacks)
		bpf_map__set_max_entries(skel->maps.stacks, 1);
	bpf_program__set_autoload(skel->progs.vg_entry,
				  !ktier && used >> VG_PROG_ENTRY & 1);
	bpf_program__set_autoload(skel->progs.vg_return,
				  !ktier && used >> VG_PROG_RETURN & 1);
	bpf_program__set_autoload(skel->progs.vg_entry_k,
				  ktier && used >> VG_PROG_ENTRY & 1);
	bpf_program__set_autoload(skel->progs.vg_return_k,
				  ktier && used >> VG_PROG_RETURN & 1);
	bpf_program__set_autoload(skel->progs.vg_entry_s,
				  used >> VG_PROG_ENTRY_S & 1);
	bpf_program__set_autoload(skel->progs.vg_return_s,
				  used >> VG_PROG_RETURN_S & 1);
	bpf_program__set_autoload(skel->progs.vg_stash,
				  used >> VG_PROG_STASH & 1);
	/* only when the program or a library makes client requests
	 * (plan/plan_creq.c; the early load asks vg_plan_creq_any): the
	 * verifier spends ~35 ms of CPU on it, a tenth of a memory run's
	 * start */
	bpf_program__set_autoload(skel->progs.vg_creq,
				  used >> VG_PROG_CREQ & 1);
	/* the kernel tier's step, which the _k builds tail-call */
	bpf_program__set_autoload(skel->progs.vg_kstep,
				  ktier && (used >> VG_PROG_ENTRY & 1 ||
					    used >> VG_PROG_RETURN & 1));
	/* multi-uprobe links need programs loaded for them (ulink.h) */
	vg_ulink_prepare(skel->progs.vg_entry);
	vg_ulink_prepare(skel->progs.vg_return);
	vg_ulink_prepare(skel->progs.vg_entry_k);
	vg_ulink_prepare(skel->progs.vg_return_k);
	vg_ulink_prepare(skel->progs.vg_entry_s);
	vg_ulink_prepare(skel->progs.vg_return_s);
	vg_ulink_prepare(skel->progs.vg_stash);
	vg_ulink_prepare(skel->progs.vg_creq);
	vg_ulink_prepare(skel->progs.vg_kstep);
	/* what this kernel has beyond 6.1: without it, the code that
	 * needs it is dead and the verifier drops it (features.h) */
	skel->rodata->copy_str_ok = vg_feat_copy_from_user_str(NULL);
	skel->rodata->exit_group_dead_arg = vg_feat_exit_group_dead(NULL);
	skel->rodata->exit_group_dead_fentry =
		!skel->rodata->exit_group_dead_arg &&
		vg_feat_exit_fentry(NULL);
	bpf_program__set_autoload(skel->progs.vg_exit_in,
				  skel->rodata->exit_group_dead_fentry);
	lifecycle_setup(skel, spec);
}
