/* The in-process tier's step of the kernel-tier properties: the automaton
 * of bpf/kstep.bpf.h run inside the target by its agent (inproc/agent.c),
 * on the tables and the slice table of the region it shares with vigil
 * (include/vigil_fast.h), with the same semantics, slot for slot: a slice
 * either tier could have written means the same to both.
 *
 * Freestanding (no libc, no globals: the agent's code is position
 * independent and its state is the region's); also compiled hosted, for
 * tests/unit/test_inproc_kstep.c.
 *
 * The region's tables are full-size, as the BPF maps they mirror:
 * struct vg_kprop[VG_KMAX_PROPS] at kprops_off, struct vg_ktrans[
 * VG_KMAX_PROPS * VG_KMAX_STATES * VG_KMAX_BINDINGS] at ktrans_off (by
 * VG_KTRANS_INDEX), struct vg_insn[VG_KMAX_CODE] at kcode_off, struct
 * vg_kslot[kslot_mask + 1] at kslots_off. */
#ifndef VIGIL_INPROC_KSTEP_H
#define VIGIL_INPROC_KSTEP_H

#include "vigil_fast.h"

/* What the agent knows of the event being handled */
struct vg_inproc_env {
	struct vg_fast_shared *sh;	/* the region; tables at sh + *_off */
	__u32 tgid, tid;
	/* CLOCK_MONOTONIC: `time` in guards and updates, and the records'
	 * time, one instant per event as the kernel tier's ev_time(); 0
	 * until first asked, when `clock` reads it (NULL: stays 0): a step
	 * that neither reports nor asks the time reads no clock */
	__u64 now_ns;
	__u64 (*clock)(struct vg_fast_shared *sh);
	/* writes one record (rec, len bytes, a layout of vigil_event.h) to
	 * the ring: 0, or -1 when the ring dropped it, which emit counts
	 * (VG_FCNT_LOST, ev_lost[event]) as for every record it writes */
	int (*emit)(void *ctx, const void *rec, __u32 len, __u32 event);
	/* strlen_at's reads of the target's memory, which must not fault
	 * (n bytes at src): 0, or -1 when they cannot be read; NULL: none
	 * (strlen_at is unknown) */
	int (*read)(void *ctx, void *dst, __u64 src, __u64 n);
	void *ctx;
	/* gives the CPU away while a slice's lock is held by a thread that
	 * lost its CPU (NULL: none, the hosted tests) */
	void (*yield)(void);
};

/* Step every kernel-tier property event feeds (conf->nkprops, kprop[],
 * kslot[], kbind[]) as bpf/vigil/kstep.bpf.c's vg_kstep does. slot: the
 * event's slots (arguments, return value, captures: VG_NSLOTS of them);
 * at_entry: 1 at a function's entry (the kernel tier's rewind needs it;
 * there is no rewind here). Reports go through env->emit. Returns
 * VG_RF_STOPPED when some property entered a state that stops the
 * process (the caller stops it before the function runs), else 0.
 *
 * The memory predicates (VG_OP_MEM: valid(p, n), ...) are answered from
 * the object map at sh->objmap_off (include/vigil_objmap.h), three-valued
 * as the user tier's (user/monitor/vm.c, user/objmap/): an unknown makes
 * its guard not hold and is counted (sh->kunknown) for the verdict.
 *
 * Not done here, because the plan never gives this tier such a property
 * (each is counted in VG_FCNT_KUNSUP and otherwise ignored): timeouts
 * (timed_mask: deadlines need BPF timers), checkpoints (ckpt_mask). Nor
 * the rewind of a stop, the live view's transition counts (ktrans_hits)
 * or slices keyed by process (kslot_by_tgid: always 0). */
int vg_inproc_kstep(struct vg_inproc_env *env, const struct vg_ev_conf *conf,
		    __u32 event, __u64 *slot, int at_entry);

#endif
